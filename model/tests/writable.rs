//! The model's WritableStream, driven directly through its operations on a
//! `Runtime<Model>`: the sink's methods are built-in functions that log, and
//! a "ruler" of chained reactions logs `t1`, `t2`, ... one microtask apart.
//!
//! Every expected log was read from the pinned Node 26.12.1 running the
//! scenario written above each test (`nodesem run --engine node`); the
//! slots are checked between the steps where the log cannot show them.

mod common;

use nodesem_model::writable::{self, WritableStreamState};
use nodesem_runtime::{ObjectData, ObjectId, QueuingStrategy, UnderlyingSink, Value};

use common::*;

fn sink(
    rt: &mut Rt,
    write: Option<ObjectId>,
    close: Option<ObjectId>,
    abort: Option<ObjectId>,
) -> UnderlyingSink {
    UnderlyingSink {
        object: Value::Object(rt.heap.alloc(ObjectData::Host)),
        start: None,
        write,
        close,
        abort,
    }
}

fn strategy(high_water_mark: f64, size: Option<ObjectId>) -> QueuingStrategy {
    QueuingStrategy {
        high_water_mark: Some(high_water_mark),
        size,
    }
}

fn wget(rt: &mut Rt, obj: &Value, prop: &str) -> Value {
    let id = obj.as_object().expect("an object");
    writable::get(rt, id, prop)
        .expect("a writable stream object")
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

fn is_pending(rt: &Rt, p: &Value) -> bool {
    matches!(
        rt.heap.get(p.as_object().expect("a promise")),
        ObjectData::Promise(d) if d.state == nodesem_runtime::PromiseState::Pending
    )
}

/// ```text
/// let gate = promise
/// let ws = writable highWaterMark 2 write {
///   log "write" chunk
///   return gate
/// }
/// let w = getWriter ws
/// let p1 = write w "a"
/// let p2 = write w "b"
/// let p3 = write w "c"
/// then p1 { log "p1" value }
/// then p3 { log "p3" value }
/// then w.ready { log "ready" value }
/// run turn
/// resolve gate
/// ruler 4
/// ```
#[test]
fn backpressure_follows_the_queue_and_ready_resolves_when_it_drains() {
    let mut rt = runtime();
    let gate = rt.new_promise();
    let write = rt.native_function(move |rt, _, args| {
        let shown = rt.fmt(&args[0]);
        rt.log_line(format!("write {shown}"));
        Ok(Value::Object(gate))
    });
    let sink = sink(&mut rt, Some(write), None, None);
    let ws = writable::new_writable_stream(&mut rt, sink, strategy(2.0, None)).expect("a stream");
    let s = ws.as_object().unwrap();
    let w = writable::get_writer(&mut rt, ws.clone()).expect("a writer");
    assert_eq!(wget(&mut rt, &ws, "locked"), Value::Bool(true));
    let ready0 = wget(&mut rt, &w, "ready");
    let p1 = writable::writer_write(&mut rt, w.clone(), Value::string("a")).unwrap();
    assert_eq!(wget(&mut rt, &w, "desiredSize"), Value::Number(1.0));
    assert!(!writable::backpressure(&rt, s));
    writable::writer_write(&mut rt, w.clone(), Value::string("b")).unwrap();
    assert_eq!(wget(&mut rt, &w, "desiredSize"), Value::Number(0.0));
    assert!(
        writable::backpressure(&rt, s),
        "desiredSize 0 is backpressure"
    );
    let ready = wget(&mut rt, &w, "ready");
    assert_ne!(ready, ready0, "backpressure makes a new ready promise");
    assert!(is_pending(&rt, &ready));
    let p3 = writable::writer_write(&mut rt, w.clone(), Value::string("c")).unwrap();
    assert_eq!(wget(&mut rt, &w, "desiredSize"), Value::Number(-1.0));
    then_show(&mut rt, &p1, "p1");
    then_show(&mut rt, &p3, "p3");
    then_show(&mut rt, &ready, "ready");
    drain(&mut rt);
    // The first write is in flight, the other two queued.
    assert_eq!(writable::queued_write_requests(&rt, s), 2);
    rt.resolve_promise_with(gate, Value::Undefined);
    ruler(&mut rt, 4);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "write a",
            "write b",
            "t1",
            "p1 undefined",
            "write c",
            "t2",
            "ready undefined",
            "t3",
            "p3 undefined",
            "t4"
        ]
    );
    assert_eq!(wget(&mut rt, &w, "desiredSize"), Value::Number(2.0));
    assert!(!writable::backpressure(&rt, s));
    assert_eq!(writable::state(&rt, s), WritableStreamState::Writable);
}

/// ```text
/// let ws = writable highWaterMark 4 write { log "write" chunk }
///   close { log "close" undefined } abort { log "abort" reason }
/// let w = getWriter ws
/// write w "a"
/// write w "b"
/// let a = abort w "r"
/// then a { log "aborted" value }
/// catch w.closed { log "closed rejected" reason }
/// ruler 5
/// ```
///
/// The abort comes before the start microtask: no write reaches the sink,
/// both writes reject (unhandled), the controller's signal is aborted at
/// once and the sink's abort runs when start has settled.
#[test]
fn abort_before_start_rejects_the_queued_writes_and_calls_the_sink_abort() {
    let mut rt = runtime();
    let write = show(&mut rt, "write");
    let close = show(&mut rt, "close");
    let abort = show(&mut rt, "abort");
    let sink = sink(&mut rt, Some(write), Some(close), Some(abort));
    let ws = writable::new_writable_stream(&mut rt, sink, strategy(4.0, None)).expect("a stream");
    let s = ws.as_object().unwrap();
    let w = writable::get_writer(&mut rt, ws.clone()).expect("a writer");
    writable::writer_write(&mut rt, w.clone(), Value::string("a")).unwrap();
    writable::writer_write(&mut rt, w.clone(), Value::string("b")).unwrap();
    let a = writable::writer_abort(&mut rt, w.clone(), Some(Value::string("r"))).unwrap();
    assert_eq!(writable::state(&rt, s), WritableStreamState::Erroring);
    assert_eq!(wget(&mut rt, &w, "desiredSize"), Value::Null);
    then_show(&mut rt, &a, "aborted");
    let closed = wget(&mut rt, &w, "closed");
    catch_show(&mut rt, &closed, "closed rejected");
    ruler(&mut rt, 5);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "abort r",
            "t1",
            "t2",
            "aborted undefined",
            "closed rejected r",
            "t3",
            "t4",
            "t5",
            "unhandled rejection r",
            "unhandled rejection r"
        ]
    );
    assert_eq!(writable::state(&rt, s), WritableStreamState::Errored);
}

/// ```text
/// let ws = writable highWaterMark 5 size { log "size" chunk return 2 }
/// let w = getWriter ws
/// write w "a"
/// write w "b"
/// write w "c"
/// ```
#[test]
fn a_size_strategy_sizes_every_chunk_written() {
    let mut rt = runtime();
    let size = rt.native_function(|rt, this, args| {
        assert_eq!(this, Value::Undefined, "size is called with this undefined");
        let shown = rt.fmt(&args[0]);
        rt.log_line(format!("size {shown}"));
        Ok(Value::Number(2.0))
    });
    let sink = sink(&mut rt, None, None, None);
    let ws =
        writable::new_writable_stream(&mut rt, sink, strategy(5.0, Some(size))).expect("a stream");
    let w = writable::get_writer(&mut rt, ws.clone()).expect("a writer");
    let mut desired = Vec::new();
    for chunk in ["a", "b", "c"] {
        writable::writer_write(&mut rt, w.clone(), Value::string(chunk)).unwrap();
        desired.push(wget(&mut rt, &w, "desiredSize"));
    }
    assert_eq!(
        desired,
        [Value::Number(3.0), Value::Number(1.0), Value::Number(-1.0)]
    );
    drain(&mut rt);
    assert_eq!(lines(&rt), ["size a", "size b", "size c"]);
    assert_eq!(wget(&mut rt, &w, "desiredSize"), Value::Number(5.0));
}

/// A size of -1 is Node's ERR_INVALID_ARG_VALUE RangeError
/// (`writable_invalid_sizes_are_range_errors.scn` checks it on Node): the
/// stream errors and the write rejects with it.
#[test]
fn an_invalid_size_errors_the_stream_with_a_range_error() {
    let mut rt = runtime();
    let size = rt.native_function(|_, _, _| Ok(Value::Number(-1.0)));
    let sink = sink(&mut rt, None, None, None);
    let ws =
        writable::new_writable_stream(&mut rt, sink, strategy(1.0, Some(size))).expect("a stream");
    let s = ws.as_object().unwrap();
    let w = writable::get_writer(&mut rt, ws).expect("a writer");
    let p = writable::writer_write(&mut rt, w, Value::string("a")).unwrap();
    catch_show(&mut rt, &p, "write");
    assert_eq!(writable::state(&rt, s), WritableStreamState::Erroring);
    drain(&mut rt);
    assert_eq!(writable::state(&rt, s), WritableStreamState::Errored);
    assert_eq!(
        lines(&rt),
        ["write RangeError: The argument 'size' is invalid. Received -1"]
    );
}

/// releaseLock() on a writer: the stream is unlocked, the writer's
/// desiredSize throws, and a second writer can be had.
#[test]
fn release_lock_unlocks_the_stream() {
    let mut rt = runtime();
    let sink = sink(&mut rt, None, None, None);
    let ws = writable::new_writable_stream(&mut rt, sink, strategy(1.0, None)).expect("a stream");
    let w = writable::get_writer(&mut rt, ws.clone()).expect("a writer");
    assert!(writable::get_writer(&mut rt, ws.clone()).is_err(), "locked");
    writable::writer_release_lock(&mut rt, w.clone()).unwrap();
    assert_eq!(wget(&mut rt, &ws, "locked"), Value::Bool(false));
    let desired = writable::get(&mut rt, w.as_object().unwrap(), "desiredSize").unwrap();
    assert!(desired.is_err(), "a released writer's desiredSize throws");
    assert!(writable::get_writer(&mut rt, ws).is_ok());
}

/// `writable_ready_after_abort_during_close_is_fulfilled.scn`: abort()
/// while the sink's close is in flight. The close completes, the abort
/// fulfils, the stream is "closed", and a ready promise first read then is
/// fulfilled: Node derives it from "closed" (the spec's stays rejected).
#[test]
fn ready_first_read_after_an_abort_during_close_is_fulfilled() {
    let mut rt = runtime();
    let gate = rt.new_promise();
    let close = rt.native_function(move |rt, _, _| {
        rt.log_line("sink close".into());
        Ok(Value::Object(gate))
    });
    let abort = show(&mut rt, "sink abort (never)");
    let sink = sink(&mut rt, None, Some(close), Some(abort));
    let ws = writable::new_writable_stream(&mut rt, sink, strategy(1.0, None)).expect("a stream");
    let s = ws.as_object().unwrap();
    let w = writable::get_writer(&mut rt, ws).expect("a writer");
    let c = writable::writer_close(&mut rt, w.clone()).unwrap();
    then_show(&mut rt, &c, "close fulfilled");
    drain(&mut rt);
    let a = writable::writer_abort(&mut rt, w.clone(), Some(Value::string("why"))).unwrap();
    then_show(&mut rt, &a, "abort fulfilled");
    assert_eq!(writable::state(&rt, s), WritableStreamState::Erroring);
    rt.resolve_promise_with(gate, Value::Undefined);
    drain(&mut rt);
    assert_eq!(writable::state(&rt, s), WritableStreamState::Closed);
    let ready = wget(&mut rt, &w, "ready");
    then_show(&mut rt, &ready, "ready fulfilled");
    catch_show(&mut rt, &ready, "ready rejected");
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "sink close",
            "close fulfilled undefined",
            "abort fulfilled undefined",
            "ready fulfilled undefined"
        ]
    );
}

/// `writable_ready_of_a_writer_acquired_while_erroring_during_close.scn`:
/// a writer acquired once an abort made the stream "erroring" while its
/// close was in flight. The spec's ready is rejected with the abort reason;
/// Node's is made when first read, and read after the close completed
/// ("closed") it is fulfilled. Read while still "erroring", it is rejected
/// and stays so.
#[test]
fn ready_of_a_writer_acquired_while_erroring_follows_the_state_when_first_read() {
    for read_while_erroring in [false, true] {
        let mut rt = runtime();
        let gate = rt.new_promise();
        let close = rt.native_function(move |_, _, _| Ok(Value::Object(gate)));
        let sink = sink(&mut rt, None, Some(close), None);
        let ws =
            writable::new_writable_stream(&mut rt, sink, strategy(1.0, None)).expect("a stream");
        let s = ws.as_object().unwrap();
        drain(&mut rt);
        writable::stream_close(&mut rt, ws.clone()).unwrap();
        writable::stream_abort(&mut rt, ws.clone(), Some(Value::string("broken"))).unwrap();
        assert_eq!(writable::state(&rt, s), WritableStreamState::Erroring);
        let w = writable::get_writer(&mut rt, ws).expect("a writer");
        let early = read_while_erroring.then(|| wget(&mut rt, &w, "ready"));
        rt.resolve_promise_with(gate, Value::Undefined);
        drain(&mut rt);
        assert_eq!(writable::state(&rt, s), WritableStreamState::Closed);
        let ready = early.unwrap_or_else(|| wget(&mut rt, &w, "ready"));
        let fulfilled = show(&mut rt, "ready fulfilled");
        let rejected = show(&mut rt, "ready rejected");
        rt.promise_then(ready.as_object().unwrap(), Some(fulfilled), Some(rejected));
        drain(&mut rt);
        let expected = if read_while_erroring {
            "ready rejected broken"
        } else {
            "ready fulfilled undefined"
        };
        assert_eq!(
            lines(&rt),
            [expected],
            "read while erroring: {read_while_erroring}"
        );
    }
}

/// `writable_write_while_a_close_is_in_flight_fails_node_assertion.scn`:
/// ProcessClose cleared the size algorithm while the stream is still
/// "writable", and Node's GetChunkSize assertion throws out of `write()`.
#[test]
fn a_write_while_a_close_is_in_flight_throws_node_internal_assertion() {
    let mut rt = runtime();
    let size = rt.native_function(|_, _, _| Ok(Value::Number(1.0)));
    let gate = rt.new_promise();
    let close = rt.native_function(move |_, _, _| Ok(Value::Object(gate)));
    let sink = sink(&mut rt, None, Some(close), None);
    let ws =
        writable::new_writable_stream(&mut rt, sink, strategy(1.0, Some(size))).expect("a stream");
    let s = ws.as_object().unwrap();
    let w = writable::get_writer(&mut rt, ws).expect("a writer");
    drain(&mut rt);
    writable::writer_close(&mut rt, w.clone()).unwrap();
    assert_eq!(writable::state(&rt, s), WritableStreamState::Writable);
    let e = writable::writer_write(&mut rt, w, Value::string("x")).expect_err("a throw");
    let code = rt.get_property(&e, "code").unwrap();
    assert_eq!(rt.fmt(&code), "ERR_INTERNAL_ASSERTION");
}
