//! The model's ReadableStreamPipeTo, driven directly through its
//! operations on a `Runtime<Model>`: the streams' methods are built-in
//! functions that log, and a "ruler" logs `t1`, `t2`, ... one microtask
//! apart, so that the log shows Node's loop tick by tick.
//!
//! Every expected log was read from the pinned Node 26.12.1 running the
//! scenario written above each test (`nodesem run --engine node`).

mod common;

use nodesem_model::{abort, pipe, streams, writable};
use nodesem_runtime::{
    ObjectData, ObjectId, QueuingStrategy, StreamPipeOptions, UnderlyingSink, UnderlyingSource,
    Value,
};

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

fn source(rt: &mut Rt, start: Option<ObjectId>, cancel: Option<ObjectId>) -> UnderlyingSource {
    UnderlyingSource {
        object: Value::Object(rt.heap.alloc(ObjectData::Host)),
        start,
        pull: None,
        cancel,
    }
}

fn hwm(n: f64) -> QueuingStrategy {
    QueuingStrategy {
        high_water_mark: Some(n),
        size: None,
    }
}

fn then_show(rt: &mut Rt, p: &Value, text: &'static str, rejected: &'static str) {
    let f = show(rt, text);
    let g = show(rt, rejected);
    rt.promise_then(p.as_object().expect("a promise"), Some(f), Some(g));
}

/// ```text
/// let rs = readable highWaterMark 4 start {
///   enqueue controller "a"
///   enqueue controller "b"
///   close controller
/// }
/// let ws = writable highWaterMark 1 write { log "write" chunk }
///   close { log "close" undefined }
/// let p = pipeTo rs ws
/// then p { log "piped" value }
/// ruler 8
/// ```
///
/// The pump takes "a" from the source's queue at once and stops on the
/// destination's backpressure; the write's settlement runs it again from
/// the ready hook.
#[test]
fn queued_chunks_are_written_in_batches_and_the_close_is_propagated() {
    let mut rt = runtime();
    let start = rt.native_function(|rt, _, args| {
        let c = args[0].clone();
        streams::controller_enqueue(rt, c.clone(), Value::string("a"))?;
        streams::controller_enqueue(rt, c.clone(), Value::string("b"))?;
        streams::controller_close(rt, c)?;
        Ok(Value::Undefined)
    });
    let src = source(&mut rt, Some(start), None);
    let rs = streams::new_readable_stream(&mut rt, src, Some(4.0)).expect("a stream");
    let write = show(&mut rt, "write");
    let close = show(&mut rt, "close");
    let snk = sink(&mut rt, Some(write), Some(close), None);
    let ws = writable::new_writable_stream(&mut rt, snk, hwm(1.0)).expect("a stream");
    let p = pipe::pipe_to(
        &mut rt,
        rs.clone(),
        ws.clone(),
        StreamPipeOptions::default(),
    )
    .unwrap();
    // The first chunk is already on its way to the sink.
    assert_eq!(pipe::pending_writes(&rt), [1]);
    assert!(writable::backpressure(&rt, ws.as_object().unwrap()));
    then_show(&mut rt, &p, "piped", "pipe rejected");
    ruler(&mut rt, 8);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "write a",
            "t1",
            "write b",
            "t2",
            "t3",
            "close undefined",
            "t4",
            "t5",
            "t6",
            "piped undefined",
            "t7",
            "t8"
        ]
    );
    assert_eq!(pipe::shutting_down(&rt), [true]);
    assert_eq!(pipe::pending_writes(&rt), [0]);
    assert_eq!(
        writable::state(&rt, ws.as_object().unwrap()),
        writable::WritableStreamState::Closed
    );
}

/// ```text
/// let ac = controller
/// let rs = readable highWaterMark 0 cancel { log "cancel" reason }
/// let ws = writable abort { log "abort" reason }
/// let p = pipeTo rs ws preventCancel signal ac.signal
/// catch p { log "pipe" reason }
/// run turn
/// abort ac "stop"
/// ruler 8
/// ```
#[test]
fn a_signal_abort_with_prevent_cancel_aborts_only_the_destination() {
    let mut rt = runtime();
    let cancel = show(&mut rt, "cancel");
    let src = source(&mut rt, None, Some(cancel));
    let rs = streams::new_readable_stream(&mut rt, src, Some(0.0)).expect("a stream");
    let abort_fn = show(&mut rt, "abort");
    let snk = sink(&mut rt, None, None, Some(abort_fn));
    let ws = writable::new_writable_stream(&mut rt, snk, hwm(1.0)).expect("a stream");
    let ac = abort::new_abort_controller(&mut rt);
    let signal = abort::controller_signal(&rt, ac);
    let options = StreamPipeOptions {
        prevent_cancel: true,
        signal: Some(Value::Object(signal)),
        ..StreamPipeOptions::default()
    };
    let p = pipe::pipe_to(&mut rt, rs.clone(), ws, options).unwrap();
    let f = show(&mut rt, "pipe");
    rt.promise_then(p.as_object().unwrap(), None, Some(f));
    drain(&mut rt);
    assert_eq!(pipe::shutting_down(&rt), [false]);
    abort::controller_abort(&mut rt, ac, Some(Value::string("stop")));
    assert_eq!(pipe::shutting_down(&rt), [true]);
    ruler(&mut rt, 8);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "abort stop",
            "t1",
            "t2",
            "t3",
            "t4",
            "t5",
            "t6",
            "pipe stop",
            "t7",
            "t8"
        ]
    );
    // preventCancel: the source is still readable, and unlocked again.
    let locked = streams::get(&mut rt, rs.as_object().unwrap(), "locked")
        .unwrap()
        .unwrap();
    assert_eq!(locked, Value::Bool(false));
}

/// ```text
/// let rs = readable start { enqueue controller "a" }
/// let ws = writable write { log "write" chunk  throw Error("dest") }
/// let p = pipeTo rs ws
/// catch p { log "pipe" reason }
/// ruler 8
/// ```
#[test]
fn a_destination_error_cancels_the_source_and_rejects_the_pipe() {
    let mut rt = runtime();
    let start = rt.native_function(|rt, _, args| {
        streams::controller_enqueue(rt, args[0].clone(), Value::string("a"))?;
        Ok(Value::Undefined)
    });
    let src = source(&mut rt, Some(start), None);
    let rs = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    let write = rt.native_function(|rt, _, args| {
        let shown = rt.fmt(&args[0]);
        rt.log_line(format!("write {shown}"));
        Err(rt.new_error("Error", "dest"))
    });
    let snk = sink(&mut rt, Some(write), None, None);
    let ws = writable::new_writable_stream(&mut rt, snk, hwm(1.0)).expect("a stream");
    let p = pipe::pipe_to(&mut rt, rs, ws, StreamPipeOptions::default()).unwrap();
    let f = show(&mut rt, "pipe");
    rt.promise_then(p.as_object().unwrap(), None, Some(f));
    ruler(&mut rt, 8);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "write a",
            "t1",
            "t2",
            "t3",
            "t4",
            "t5",
            "pipe Error: dest",
            "t6",
            "t7",
            "t8"
        ]
    );
}

/// ```text
/// let rs = readable highWaterMark 2 start {
///   enqueue controller "a"
///   enqueue controller "b"
/// }
/// let ws = writable highWaterMark 1 write { log "write" chunk }
///   close { log "close" undefined }
/// run turn
/// close ws
/// let p = pipeTo rs ws preventCancel
/// then p { log "piped" value } else { log "pipe rejected" reason }
/// ruler 2
/// ```
///
/// The destination's close is in flight (algorithms cleared, still
/// "writable"): the pump's first write fails Node's GetChunkSize assertion,
/// thrown out of ReadableStreamPipeTo, so pipeTo rejects with it and the
/// pipe never shuts down: both streams stay locked.
#[test]
fn a_pipe_into_a_destination_closing_in_flight_rejects_with_node_assertion() {
    let mut rt = runtime();
    let start = rt.native_function(|rt, _, args| {
        let c = args[0].clone();
        streams::controller_enqueue(rt, c.clone(), Value::string("a"))?;
        streams::controller_enqueue(rt, c, Value::string("b"))?;
        Ok(Value::Undefined)
    });
    let src = source(&mut rt, Some(start), None);
    let rs = streams::new_readable_stream(&mut rt, src, Some(2.0)).expect("a stream");
    let write = show(&mut rt, "write");
    let close = show(&mut rt, "close");
    let snk = sink(&mut rt, Some(write), Some(close), None);
    let ws = writable::new_writable_stream(&mut rt, snk, hwm(1.0)).expect("a stream");
    drain(&mut rt);
    writable::stream_close(&mut rt, ws.clone()).unwrap();
    let options = StreamPipeOptions {
        prevent_cancel: true,
        ..StreamPipeOptions::default()
    };
    let p = pipe::pipe_to(&mut rt, rs.clone(), ws.clone(), options).unwrap();
    then_show(&mut rt, &p, "piped", "pipe rejected");
    ruler(&mut rt, 2);
    drain(&mut rt);
    let assertion = rt.internal_assertion_error();
    // (A log line shows a newline of the message as `\n`.)
    let assertion = rt.fmt(&assertion).replace('\n', "\\n");
    assert_eq!(
        lines(&rt),
        [
            "close undefined".to_string(),
            format!("pipe rejected {assertion}"),
            "t1".to_string(),
            "t2".to_string(),
        ]
    );
    // The pipe never reached a shutdown; its reader and writer are held.
    assert_eq!(pipe::shutting_down(&rt), [false]);
    assert_eq!(get(&mut rt, &rs, "locked"), Value::Bool(true));
    let ws_locked = writable::get(&mut rt, ws.as_object().unwrap(), "locked")
        .expect("a writable stream")
        .expect("a getter that does not throw");
    assert_eq!(ws_locked, Value::Bool(true));
    assert_eq!(
        writable::state(&rt, ws.as_object().unwrap()),
        writable::WritableStreamState::Closed
    );
}
