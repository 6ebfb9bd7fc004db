//! The model's TransformStream, driven directly through its operations on
//! a `Runtime<Model>`: the transformer's methods are built-in functions
//! that log, and a "ruler" logs `t1`, `t2`, ... one microtask apart.
//!
//! Every expected log was read from the pinned Node 26.12.1 running the
//! scenario written above each test (`nodesem run --engine node`).

mod common;

use nodesem_model::{streams, transform, writable};
use nodesem_runtime::{ObjectData, ObjectId, QueuingStrategy, Transformer, Value};

use common::*;

fn transformer(rt: &mut Rt, transform: Option<ObjectId>, cancel: Option<ObjectId>) -> Transformer {
    Transformer {
        object: Value::Object(rt.heap.alloc(ObjectData::Host)),
        start: None,
        transform,
        flush: None,
        cancel,
    }
}

fn tget(rt: &mut Rt, obj: &Value, prop: &str) -> Value {
    transform::get(rt, obj.as_object().unwrap(), prop)
        .expect("a transform stream object")
        .expect("a getter that does not throw")
}

fn then_show(rt: &mut Rt, p: &Value, text: &'static str) {
    let f = show(rt, text);
    rt.promise_then(p.as_object().expect("a promise"), Some(f), None);
}

fn catch_show(rt: &mut Rt, p: &Value, text: &'static str) {
    let f = show(rt, text);
    rt.promise_then(p.as_object().expect("a promise"), None, Some(f));
}

/// ```text
/// let ts = transform transform {
///   log "transform" chunk
///   enqueue controller chunk
/// }
/// let w = getWriter ts.writable
/// let r = getReader ts.readable
/// let p = write w "x"
/// then p { log "written" value }
/// run turn
/// let q = read r
/// then q { log "read" value }
/// ruler 5
/// ```
///
/// The readable side's highWaterMark is 0, so the write waits, parked on
/// [[backpressure]], until the read pulls.
#[test]
fn a_write_waits_for_a_read_under_backpressure() {
    let mut rt = runtime();
    let f = rt.native_function(|rt, _, args| {
        let shown = rt.fmt(&args[0]);
        rt.log_line(format!("transform {shown}"));
        transform::controller_enqueue(rt, args[1].clone(), args[0].clone())?;
        Ok(Value::Undefined)
    });
    let t = transformer(&mut rt, Some(f), None);
    let ts = transform::new_transform_stream(
        &mut rt,
        t,
        QueuingStrategy::default(),
        QueuingStrategy::default(),
    )
    .expect("a transform stream");
    let id = ts.as_object().unwrap();
    assert_eq!(transform::backpressure(&rt, id), Some(true));
    let ws = tget(&mut rt, &ts, "writable");
    let rs = tget(&mut rt, &ts, "readable");
    let w = writable::get_writer(&mut rt, ws).expect("a writer");
    let r = streams::get_reader(&mut rt, rs).expect("a reader");
    let p = writable::writer_write(&mut rt, w, Value::string("x")).unwrap();
    then_show(&mut rt, &p, "written");
    drain(&mut rt);
    assert!(lines(&rt).is_empty(), "no transform before a read");
    assert_eq!(transform::backpressure(&rt, id), Some(true));
    let q = streams::reader_read(&mut rt, r).unwrap();
    then_show(&mut rt, &q, "read");
    ruler(&mut rt, 5);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "transform x",
            "t1",
            "read {value: x, done: false}",
            "t2",
            "t3",
            "written undefined",
            "t4",
            "t5"
        ]
    );
    // The enqueue into an empty queue with no read waiting makes
    // backpressure again.
    assert_eq!(transform::backpressure(&rt, id), Some(true));
}

/// ```text
/// let ts = transform cancel { log "cancel" reason }
/// let c = cancel ts.readable "why"
/// then c { log "cancelled" value }
/// let w = getWriter ts.writable
/// catch w.closed { log "writable" reason }
/// ruler 6
/// ```
#[test]
fn cancelling_the_readable_side_errors_the_writable_side() {
    let mut rt = runtime();
    let cancel = show(&mut rt, "cancel");
    let t = transformer(&mut rt, None, Some(cancel));
    let ts = transform::new_transform_stream(
        &mut rt,
        t,
        QueuingStrategy::default(),
        QueuingStrategy::default(),
    )
    .expect("a transform stream");
    let rs = tget(&mut rt, &ts, "readable");
    let ws = tget(&mut rt, &ts, "writable");
    let c = streams::stream_cancel(&mut rt, rs, Some(Value::string("why"))).unwrap();
    then_show(&mut rt, &c, "cancelled");
    let w = writable::get_writer(&mut rt, ws.clone()).expect("a writer");
    let closed = writable::get(&mut rt, w.as_object().unwrap(), "closed")
        .unwrap()
        .unwrap();
    catch_show(&mut rt, &closed, "writable");
    ruler(&mut rt, 6);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "cancel why",
            "t1",
            "t2",
            "cancelled undefined",
            "t3",
            "writable why",
            "t4",
            "t5",
            "t6"
        ]
    );
    assert_eq!(
        writable::state(&rt, ws.as_object().unwrap()),
        writable::WritableStreamState::Errored
    );
}

/// terminate() closes the readable side and errors the writable side with
/// Node's ERR_INVALID_STATE TypeError; a later enqueue throws "Unable to
/// enqueue" (`transform_terminate_closes_readable_and_errors_writable.scn`).
#[test]
fn terminate_closes_the_readable_side_and_errors_the_writable_side() {
    let mut rt = runtime();
    let kept = std::rc::Rc::new(std::cell::RefCell::new(Value::Undefined));
    let k = std::rc::Rc::clone(&kept);
    let start = rt.native_function(move |_, _, args| {
        *k.borrow_mut() = args[0].clone();
        Ok(Value::Undefined)
    });
    let mut t = transformer(&mut rt, None, None);
    t.start = Some(start);
    let ts = transform::new_transform_stream(
        &mut rt,
        t,
        QueuingStrategy::default(),
        QueuingStrategy::default(),
    )
    .expect("a transform stream");
    let c = kept.borrow().clone();
    assert_eq!(tget(&mut rt, &c, "desiredSize"), Value::Number(0.0));
    transform::controller_terminate(&mut rt, c.clone()).unwrap();
    let e = transform::controller_enqueue(&mut rt, c.clone(), Value::string("x"))
        .expect_err("enqueue after terminate throws");
    assert_eq!(rt.fmt(&e), "TypeError: Invalid state: Unable to enqueue");
    let ws = tget(&mut rt, &ts, "writable");
    let s = ws.as_object().unwrap();
    assert_eq!(
        writable::state(&rt, s),
        writable::WritableStreamState::Erroring
    );
    drain(&mut rt);
    assert_eq!(
        writable::state(&rt, s),
        writable::WritableStreamState::Errored
    );
    // A closed readable side's desiredSize is 0.
    assert_eq!(tget(&mut rt, &c, "desiredSize"), Value::Number(0.0));
}

/// ```text
/// let ts = transform readableHighWaterMark 2 transform {
///   enqueue controller chunk
///   terminate controller
/// } cancel { log "transformer cancel" reason }
/// let w = getWriter ts.writable
/// let r = getReader ts.readable
/// write w "a"
/// run turn
/// try { cancel r "stop" }
/// let c2 = cancel r "again"
/// then c2 { log "second cancel" value }
/// let q = read r
/// then q { log "read" value }
/// ruler 2
/// ```
///
/// terminate() with "a" still queued clears the transformer's algorithms
/// while the readable stays "readable": the cancel performs the cleared
/// cancel algorithm and throws Node's TypeError out of cancel() (the
/// transformer's cancel is never called); the readable is closed by then,
/// so a second cancel is fulfilled.
#[test]
fn a_cancel_after_terminate_with_a_chunk_queued_throws() {
    let mut rt = runtime();
    let transform_fn = rt.native_function(|rt, _, args| {
        let c = args[1].clone();
        transform::controller_enqueue(rt, c.clone(), args[0].clone())?;
        transform::controller_terminate(rt, c)?;
        Ok(Value::Undefined)
    });
    let cancel = show(&mut rt, "transformer cancel");
    let t = transformer(&mut rt, Some(transform_fn), Some(cancel));
    let ts = transform::new_transform_stream(
        &mut rt,
        t,
        QueuingStrategy::default(),
        QueuingStrategy {
            high_water_mark: Some(2.0),
            size: None,
        },
    )
    .expect("a transform stream");
    let ws = tget(&mut rt, &ts, "writable");
    let rs = tget(&mut rt, &ts, "readable");
    let w = writable::get_writer(&mut rt, ws).unwrap();
    let r = streams::get_reader(&mut rt, rs).unwrap();
    writable::writer_write(&mut rt, w, Value::string("a")).unwrap();
    drain(&mut rt);
    let e = streams::reader_cancel(&mut rt, r.clone(), Some(Value::string("stop")))
        .expect_err("the cleared cancel algorithm throws");
    assert_eq!(
        rt.fmt(&e),
        "TypeError: controller[kState].cancelAlgorithm is not a function"
    );
    let c2 = streams::reader_cancel(&mut rt, r.clone(), Some(Value::string("again"))).unwrap();
    then_show(&mut rt, &c2, "second cancel");
    // The queue was reset before the throw: the read finds the end.
    let q = streams::reader_read(&mut rt, r).unwrap();
    then_show(&mut rt, &q, "read");
    ruler(&mut rt, 2);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "second cancel undefined",
            "read {value: undefined, done: true}",
            "t1",
            "t2"
        ]
    );
}
