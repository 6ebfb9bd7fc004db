//! The model's ReadableStream, driven directly through its operations on a
//! `Runtime<Model>`: the underlying source's methods are built-in functions
//! that log, and a "ruler" of chained reactions logs `t1`, `t2`, ... one
//! microtask apart, so that each log says on which microtask each step ran.
//!
//! Every expected log was read from the pinned Node 26.12.1 running the
//! equivalent JavaScript (written above each test), e.g.
//! `function ruler(n) { let p = Promise.resolve(); for (let i = 1; i <= n; i++)
//! p = p.then(() => log('t' + i)); }`; the model prints an iterator result
//! as `{value: v, done: b}` and a string chunk unquoted where
//! `console.log` differs.

mod common;

use nodesem_model::streams;
use nodesem_runtime::{ObjectData, ObjectId, UnderlyingSource, Value};

use common::*;

/// A built-in function that logs `text`, then what `f` logs of its first
/// argument, and returns what `f` returns.
fn logger(
    rt: &mut Rt,
    text: &'static str,
    f: impl Fn(&mut Rt, Value) -> Result<Value, Value> + 'static,
) -> ObjectId {
    rt.native_function(move |rt, _this, args| {
        rt.log_line(text.to_string());
        f(rt, args.first().cloned().unwrap_or(Value::Undefined))
    })
}

fn then(rt: &mut Rt, p: &Value, on_fulfilled: Option<ObjectId>, on_rejected: Option<ObjectId>) {
    let id = p.as_object().expect("a promise");
    rt.promise_then(id, on_fulfilled, on_rejected);
}

fn source(
    rt: &mut Rt,
    start: Option<ObjectId>,
    pull: Option<ObjectId>,
    cancel: Option<ObjectId>,
) -> UnderlyingSource {
    UnderlyingSource {
        object: Value::Object(rt.heap.alloc(ObjectData::Host)),
        start,
        pull,
        cancel,
    }
}

fn desired_size_line(rt: &mut Rt, c: &Value) -> String {
    let d = get(rt, c, "desiredSize");
    format!("desired {}", rt.fmt(&d))
}

/// The controller the source's `start` was given, kept in a cell.
fn keep_controller(rt: &mut Rt) -> (ObjectId, std::rc::Rc<std::cell::RefCell<Value>>) {
    let cell = std::rc::Rc::new(std::cell::RefCell::new(Value::Undefined));
    let kept = std::rc::Rc::clone(&cell);
    let start = rt.native_function(move |_, _, args| {
        *kept.borrow_mut() = args[0].clone();
        Ok(Value::Undefined)
    });
    (start, cell)
}

/// `new ReadableStream({ start(c) { log('start') }, pull(c) { log('pull',
/// c.desiredSize) } }); ruler(4)`: start runs in the constructor, pull on
/// the first microtask (the start promise's reaction was queued first), with
/// no reader, since the desired size is 1.
#[test]
fn pull_follows_a_synchronous_start_on_the_first_microtask_without_a_reader() {
    let mut rt = runtime();
    let start = logger(&mut rt, "start", |_, _| Ok(Value::Undefined));
    let pull = rt.native_function(|rt, _, args| {
        let line = desired_size_line(rt, &args[0]);
        rt.log_line(format!("pull {line}"));
        Ok(Value::Undefined)
    });
    let src = source(&mut rt, Some(start), Some(pull), None);
    streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    ruler(&mut rt, 4);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        ["start", "pull desired 1", "t1", "t2", "t3", "t4"]
    );
}

/// `start` returning `Promise.resolve()`: "a promise resolved with
/// startResult" adopts it, two microtasks later: `start t1 t2 pull t3`.
#[test]
fn a_start_promise_is_adopted_two_microtasks_later() {
    let mut rt = runtime();
    let start = logger(&mut rt, "start", |rt, _| {
        Ok(Value::Object(rt.promise_resolve(Value::Undefined)))
    });
    let pull = logger(&mut rt, "pull", |_, _| Ok(Value::Undefined));
    let src = source(&mut rt, Some(start), Some(pull), None);
    let s = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    streams::get_reader(&mut rt, s).expect("a reader");
    ruler(&mut rt, 4);
    drain(&mut rt);
    assert_eq!(lines(&rt), ["start", "t1", "t2", "pull", "t3", "t4"]);
}

/// `start` returning `Promise.reject(new Error('S'))`, with
/// `reader.closed.catch(e => log('closed rejected', e.message))`: the
/// stream errors two microtasks after the start, the catch runs a third.
#[test]
fn a_start_rejection_errors_the_stream() {
    let mut rt = runtime();
    let start = logger(&mut rt, "start", |rt, _| {
        let e = rt.new_error("Error", "S");
        Ok(Value::Object(rt.promise_reject_new(e)))
    });
    let src = source(&mut rt, Some(start), None, None);
    let s = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    let r = streams::get_reader(&mut rt, s).expect("a reader");
    let closed = get(&mut rt, &r, "closed");
    let caught = show(&mut rt, "closed rejected");
    then(&mut rt, &closed, None, Some(caught));
    ruler(&mut rt, 4);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        ["start", "t1", "t2", "t3", "closed rejected Error: S", "t4"]
    );
}

/// `{ pull(c) { log('pull', n++); if (n < 3) c.enqueue(n); return
/// Promise.resolve(); } }` with `highWaterMark: 5`: each enqueue during a
/// pull sets [[pullAgain]], and the next pull comes one microtask after the
/// previous one: Node 26.12.1 takes the returned promise as it is.
#[test]
fn pull_again_one_microtask_after_the_pull_promise() {
    let mut rt = runtime();
    let n = std::rc::Rc::new(std::cell::Cell::new(0));
    let pull = rt.native_function(move |rt, _, args| {
        let i = n.get();
        rt.log_line(format!("pull {i}"));
        n.set(i + 1);
        if i + 1 < 3 {
            streams::controller_enqueue(rt, args[0].clone(), Value::Number(f64::from(i + 1)))?;
        }
        Ok(Value::Object(rt.promise_resolve(Value::Undefined)))
    });
    let src = source(&mut rt, None, Some(pull), None);
    streams::new_readable_stream(&mut rt, src, Some(5.0)).expect("a stream");
    ruler(&mut rt, 4);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        ["pull 0", "t1", "pull 1", "t2", "pull 2", "t3", "t4"]
    );
}

/// `{ pull() { log('pull'); throw new Error('P'); } }` with a reader whose
/// `closed` is caught: the rejected pull promise errors the stream on the
/// next microtask, and the catch runs on the one after.
#[test]
fn a_throwing_pull_errors_the_stream() {
    let mut rt = runtime();
    let pull = logger(&mut rt, "pull", |rt, _| Err(rt.new_error("Error", "P")));
    let src = source(&mut rt, None, Some(pull), None);
    let s = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    let r = streams::get_reader(&mut rt, s).expect("a reader");
    let closed = get(&mut rt, &r, "closed");
    let caught = show(&mut rt, "closed rejected");
    then(&mut rt, &closed, None, Some(caught));
    ruler(&mut rt, 3);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        ["pull", "t1", "t2", "closed rejected Error: P", "t3"]
    );
}

/// `stream.cancel('R').then(v => log('cancelled', v))` after `ruler(5)`, for
/// a `cancel` returning undefined, `Promise.resolve(7)`, or throwing: the
/// returned promise is adopted two microtasks later (the conversion to
/// Promise<undefined>); the result is undefined either way.
#[test]
fn cancel_waits_for_the_source_cancel_promise() {
    let cases: [(u8, &[&str]); 3] = [
        (
            0,
            &[
                "cancel",
                "t1",
                "t2",
                "cancelled undefined",
                "t3",
                "t4",
                "t5",
            ],
        ),
        (
            1,
            &[
                "cancel",
                "t1",
                "t2",
                "t3",
                "t4",
                "cancelled undefined",
                "t5",
            ],
        ),
        (
            2,
            &[
                "cancel",
                "t1",
                "t2",
                "cancel rejected Error: C",
                "t3",
                "t4",
                "t5",
            ],
        ),
    ];
    for (kind, expected) in cases {
        let mut rt = runtime();
        let cancel = logger(&mut rt, "cancel", move |rt, _| match kind {
            0 => Ok(Value::Undefined),
            1 => Ok(Value::Object(rt.promise_resolve(Value::Number(7.0)))),
            _ => Err(rt.new_error("Error", "C")),
        });
        let src = source(&mut rt, None, None, Some(cancel));
        let s = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
        ruler(&mut rt, 5);
        let p = streams::stream_cancel(&mut rt, s, Some(Value::string("R"))).expect("a promise");
        let fulfilled = show(&mut rt, "cancelled");
        let rejected = show(&mut rt, "cancel rejected");
        then(&mut rt, &p, Some(fulfilled), Some(rejected));
        drain(&mut rt);
        assert_eq!(lines(&rt), expected, "case {kind}");
    }
}

/// `r.read().then(...)`, `ruler(3)`, then `c.enqueue('a')`: the pending read
/// is fulfilled by the enqueue, and the desired size stays 1 (the chunk
/// never reached the queue).
#[test]
fn an_enqueue_fulfils_a_pending_read() {
    let mut rt = runtime();
    let (start, kept) = keep_controller(&mut rt);
    let src = source(&mut rt, Some(start), None, None);
    let s = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    let r = streams::get_reader(&mut rt, s).expect("a reader");
    let p = streams::reader_read(&mut rt, r).expect("a promise");
    let read = show(&mut rt, "read");
    then(&mut rt, &p, Some(read), None);
    ruler(&mut rt, 3);
    let c = kept.borrow().clone();
    streams::controller_enqueue(&mut rt, c.clone(), Value::string("a")).expect("enqueued");
    let line = desired_size_line(&mut rt, &c);
    rt.log_line(line);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "desired 1",
            "t1",
            "read {value: a, done: false}",
            "t2",
            "t3"
        ]
    );
}

/// `start(c) { c.enqueue('a'); c.close(); }`, then two reads and `closed`:
/// the first read takes the last chunk and closes the stream, so `closed`
/// (whose reaction was registered first) and both reads settle on the
/// first microtask.
#[test]
fn a_close_requested_with_a_queued_chunk_closes_on_its_read() {
    let mut rt = runtime();
    let start = rt.native_function(|rt, _, args| {
        streams::controller_enqueue(rt, args[0].clone(), Value::string("a"))?;
        let line = desired_size_line(rt, &args[0]);
        rt.log_line(line);
        streams::controller_close(rt, args[0].clone())?;
        let line = desired_size_line(rt, &args[0]);
        rt.log_line(line);
        Ok(Value::Undefined)
    });
    let src = source(&mut rt, Some(start), None, None);
    let s = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    let r = streams::get_reader(&mut rt, s).expect("a reader");
    let closed = get(&mut rt, &r, "closed");
    let on_closed = show(&mut rt, "closed");
    then(&mut rt, &closed, Some(on_closed), None);
    ruler(&mut rt, 2);
    for text in ["read", "read2"] {
        let p = streams::reader_read(&mut rt, r.clone()).expect("a promise");
        let f = show(&mut rt, text);
        then(&mut rt, &p, Some(f), None);
    }
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "desired 0",
            "desired 0",
            "t1",
            "closed undefined",
            "read {value: a, done: false}",
            "read2 {value: undefined, done: true}",
            "t2",
        ]
    );
}

/// `reader.cancel('why')` with a pending read on a stream with
/// `highWaterMark: 0`: the source's cancel runs at once, the stream is
/// closed (its `closed` promise is resolved before the read request's close
/// steps run, so its reaction comes first, on the next microtask), and the
/// cancel promise settles a microtask later; the stream stays locked.
#[test]
fn a_reader_cancel_closes_the_stream_and_its_pending_reads() {
    let mut rt = runtime();
    let cancel = rt.native_function(|rt, _, args| {
        let why = rt.fmt(&args[0]);
        rt.log_line(format!("cancel {why}"));
        Ok(Value::Undefined)
    });
    let src = source(&mut rt, None, None, Some(cancel));
    let s = streams::new_readable_stream(&mut rt, src, Some(0.0)).expect("a stream");
    let r = streams::get_reader(&mut rt, s.clone()).expect("a reader");
    let p = streams::reader_read(&mut rt, r.clone()).expect("a promise");
    let read = show(&mut rt, "read");
    then(&mut rt, &p, Some(read), None);
    let closed = get(&mut rt, &r, "closed");
    let on_closed = show(&mut rt, "closed");
    then(&mut rt, &closed, Some(on_closed), None);
    drain(&mut rt);
    ruler(&mut rt, 3);
    let p = streams::reader_cancel(&mut rt, r, Some(Value::string("why"))).expect("a promise");
    let cancelled = show(&mut rt, "cancelled");
    then(&mut rt, &p, Some(cancelled), None);
    let locked = get(&mut rt, &s, "locked");
    let locked = rt.fmt(&locked);
    rt.log_line(format!("locked {locked}"));
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "cancel why",
            "locked true",
            "t1",
            "closed undefined",
            "read {value: undefined, done: true}",
            "t2",
            "cancelled undefined",
            "t3",
        ]
    );
}

/// Node's messages: `c.enqueue(1)` and `c.close()` after `c.close()` (and
/// after `c.error()`), `getReader()` and `cancel()` on a locked stream,
/// `read()` and `cancel()` on a released reader, its `closed`, a read
/// pending at the release, a negative or NaN highWaterMark.
#[test]
fn errors_are_nodes() {
    fn message(rt: &mut Rt, e: &Value) -> String {
        let name = rt.get_property(e, "name").expect("name");
        let code = rt.get_property(e, "code").expect("code");
        let message = rt.get_property(e, "message").expect("message");
        format!("{} {} {}", rt.fmt(&name), rt.fmt(&code), rt.fmt(&message))
    }
    let mut rt = runtime();
    let (start, kept) = keep_controller(&mut rt);
    let src = source(&mut rt, Some(start), None, None);
    let s = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    let c = kept.borrow().clone();
    streams::controller_close(&mut rt, c.clone()).expect("closed");
    let e = streams::controller_enqueue(&mut rt, c.clone(), Value::Number(1.0)).unwrap_err();
    assert_eq!(
        message(&mut rt, &e),
        "TypeError ERR_INVALID_STATE Invalid state: Controller is already closed"
    );
    let e = streams::controller_close(&mut rt, c.clone()).unwrap_err();
    assert_eq!(
        message(&mut rt, &e),
        "TypeError ERR_INVALID_STATE Invalid state: Controller is already closed"
    );
    streams::controller_error(&mut rt, c.clone(), Value::string("x")).expect("no effect");
    assert_eq!(get(&mut rt, &c, "desiredSize"), Value::Number(0.0));
    let r = streams::get_reader(&mut rt, s.clone()).expect("a reader");
    let e = streams::get_reader(&mut rt, s.clone()).unwrap_err();
    assert_eq!(
        message(&mut rt, &e),
        "TypeError ERR_INVALID_STATE Invalid state: ReadableStream is locked"
    );
    let p = streams::stream_cancel(&mut rt, s.clone(), None).expect("a promise");
    let caught = show(&mut rt, "cancel locked");
    then(&mut rt, &p, None, Some(caught));
    streams::reader_release_lock(&mut rt, r.clone()).expect("released");
    assert_eq!(get(&mut rt, &s, "locked"), Value::Bool(false));
    streams::reader_release_lock(&mut rt, r.clone()).expect("released again: nothing");
    let p = streams::reader_read(&mut rt, r.clone()).expect("a promise");
    let caught = show(&mut rt, "read released");
    then(&mut rt, &p, None, Some(caught));
    let closed = get(&mut rt, &r, "closed");
    let caught = show(&mut rt, "closed released");
    then(&mut rt, &closed, None, Some(caught));

    // A read pending when the reader is released.
    let (start, _) = keep_controller(&mut rt);
    let src = source(&mut rt, Some(start), None, None);
    let s2 = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    let r2 = streams::get_reader(&mut rt, s2).expect("a reader");
    let p = streams::reader_read(&mut rt, r2.clone()).expect("a promise");
    let caught = show(&mut rt, "pending read on release");
    then(&mut rt, &p, None, Some(caught));
    let closed2 = get(&mut rt, &r2, "closed");
    streams::reader_release_lock(&mut rt, r2.clone()).expect("released");
    assert_eq!(
        get(&mut rt, &r2, "closed"),
        closed2,
        "the same promise, rejected"
    );
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "cancel locked TypeError: Invalid state: ReadableStream is locked",
            "read released TypeError: Invalid state: The reader is not attached to a stream",
            "closed released TypeError: Invalid state: Reader released",
            "pending read on release TypeError: Invalid state: Releasing reader",
        ]
    );

    for (hwm, shown) in [(-1.0, "-1"), (f64::NAN, "NaN")] {
        let src = source(&mut rt, None, None, None);
        let e = streams::new_readable_stream(&mut rt, src, Some(hwm)).unwrap_err();
        assert_eq!(
            message(&mut rt, &e),
            format!(
                "RangeError ERR_INVALID_ARG_VALUE The property 'strategy.highWaterMark' is invalid. Received {shown}"
            )
        );
    }
}

/// Two readers of one stream, each released: their `closed` promises are
/// rejected with the same error object (Node's one "Reader released" error).
#[test]
fn releases_reject_with_one_error() {
    let mut rt = runtime();
    let src = source(&mut rt, None, None, None);
    let s = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    let mut reasons = Vec::new();
    for _ in 0..2 {
        let r = streams::get_reader(&mut rt, s.clone()).expect("a reader");
        let closed = get(&mut rt, &r, "closed");
        streams::reader_release_lock(&mut rt, r).expect("released");
        let id = closed.as_object().expect("a promise");
        match rt.heap.get(id) {
            ObjectData::Promise(d) => reasons.push(d.result.clone()),
            _ => panic!("not a promise"),
        }
    }
    assert_eq!(reasons[0], reasons[1]);
}

/// `c.error('boom')` with a pending read: the read is rejected on the next
/// microtask, the desired size is null, and an unobserved `closed` is not
/// reported as an unhandled rejection; a second `error` does nothing.
#[test]
fn an_error_rejects_pending_reads_and_marks_closed_handled() {
    let mut rt = runtime();
    let (start, kept) = keep_controller(&mut rt);
    let src = source(&mut rt, Some(start), None, None);
    let s = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    let r = streams::get_reader(&mut rt, s.clone()).expect("a reader");
    let p = streams::reader_read(&mut rt, r.clone()).expect("a promise");
    let caught = show(&mut rt, "read rejected");
    then(&mut rt, &p, None, Some(caught));
    ruler(&mut rt, 2);
    let c = kept.borrow().clone();
    streams::controller_error(&mut rt, c.clone(), Value::string("boom")).expect("errored");
    let line = desired_size_line(&mut rt, &c);
    rt.log_line(line);
    streams::controller_error(&mut rt, c, Value::string("again")).expect("no effect");
    let p = streams::reader_cancel(&mut rt, r, None).expect("a promise");
    let caught = show(&mut rt, "cancel errored");
    then(&mut rt, &p, None, Some(caught));
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "desired null",
            "t1",
            "read rejected boom",
            "cancel errored boom",
            "t2",
        ]
    );
}

/// Operands of the wrong kind throw a TypeError, never panic.
#[test]
fn wrong_operands_throw() {
    let mut rt = runtime();
    let src = source(&mut rt, None, None, None);
    let s = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    assert!(streams::controller_enqueue(&mut rt, s.clone(), Value::Undefined).is_err());
    assert!(streams::controller_close(&mut rt, Value::Undefined).is_err());
    assert!(streams::controller_error(&mut rt, Value::Null, Value::Undefined).is_err());
    assert!(streams::reader_read(&mut rt, s.clone()).is_err());
    assert!(streams::reader_release_lock(&mut rt, Value::Number(1.0)).is_err());
    assert!(streams::reader_cancel(&mut rt, s, None).is_err());
    assert!(streams::get_reader(&mut rt, Value::Undefined).is_err());
    assert!(streams::stream_cancel(&mut rt, Value::Bool(true), None).is_err());
}
