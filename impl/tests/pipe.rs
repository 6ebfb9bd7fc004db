//! pipeTo and pipeThrough in impl, run from scenario scripts and compared with the
//! logs of the pinned Node 26.12.1 (`nodesem run --engine node` on the same
//! text, taken when the test was written).

use nodesem_impl::ImplEngine;
use nodesem_lang::{parse, RunConfig};

/// The impl's log of `text`.
fn run(name: &str, text: &str) -> Vec<String> {
    let scenario = parse(name, text).unwrap_or_else(|e| panic!("{e}"));
    ImplEngine::default()
        .run_scenario(&scenario, &RunConfig::default())
        .lines
}

/// `text` prints Node's `log` on impl.
fn node_log(name: &str, text: &str, log: &[&str]) {
    assert_eq!(run(name, text), log, "{name}: impl's log is not Node's");
}

/// A push source piped into a sink: each chunk written a tick apart, the close propagated, the pipe promise fulfilled.
#[test]
fn p_basic() {
    node_log(
        "p_basic.scn",
        r#"# pipe of a push source into a sink, close propagates
let rs = readable start {
  enqueue controller "a"
  enqueue controller "b"
  close controller
}
let ws = writable write {
  log "write" chunk
} close {
  log "sink close"
}
let p = pipeTo rs ws
then p {
  log "pipe done"
}
log "locked" rs.locked ws.locked
ruler 12
"#,
        &[
            "locked true true",
            "write a",
            "t1",
            "write b",
            "t2",
            "t3",
            "sink close",
            "t4",
            "t5",
            "t6",
            "pipe done",
            "t7",
            "t8",
            "t9",
            "t10",
            "t11",
            "t12",
        ],
    );
}

/// A pulled source and a slow sink: the pulls follow the destination's backpressure.
#[test]
fn p_pull() {
    node_log(
        "p_pull.scn",
        r#"# pipe from a pulled source with a slow sink, desiredSize trajectory
let n = 0
let gate = promise
let rs = readable highWaterMark 0 pull {
  set n add n 1
  log "pull" n controller.desiredSize
  if less n 4 {
    enqueue controller n
  } else {
    close controller
  }
}
let ws = writable highWaterMark 2 write {
  log "write" chunk
  return gate
} close {
  log "sink close"
}
let p = pipeTo rs ws
then p {
  log "pipe done"
}
ruler 8
setTimeout 1 {
  resolve gate 0
  ruler 12
}
"#,
        &[
            "pull 1 0",
            "t1",
            "write 1",
            "pull 2 0",
            "t2",
            "t3",
            "t4",
            "t5",
            "t6",
            "t7",
            "t8",
            "pull 3 0",
            "write 2",
            "t1",
            "pull 4 0",
            "write 3",
            "t2",
            "t3",
            "sink close",
            "t4",
            "t5",
            "t6",
            "pipe done",
            "t7",
            "t8",
            "t9",
            "t10",
            "t11",
            "t12",
        ],
    );
}

/// A source error aborts the destination and rejects the pipe.
#[test]
fn p_source_error() {
    node_log(
        "p_source_error.scn",
        r#"let rs = readable start {
  enqueue controller "a"
  setTimeout 1 {
    error controller "src bad"
    ruler 8
  }
}
let ws = writable write {
  log "write" chunk
} abort {
  log "sink abort" reason
}
let p = pipeTo rs ws
catch p {
  log "pipe rejected" reason
}
ruler 4
"#,
        &[
            "write a",
            "t1",
            "t2",
            "t3",
            "t4",
            "t1",
            "sink abort src bad",
            "t2",
            "t3",
            "t4",
            "pipe rejected src bad",
            "t5",
            "t6",
            "t7",
            "t8",
        ],
    );
}

/// Preventabort: a source error leaves the destination writable and unlocked.
#[test]
fn p_source_error_prevent_abort() {
    node_log(
        "p_source_error_prevent_abort.scn",
        r#"let rs = readable start {
  setTimeout 1 {
    error controller "src bad"
    ruler 8
  }
}
let ws = writable write {
  log "write" chunk
} abort {
  log "sink abort" reason
}
let p = pipeTo rs ws preventAbort
catch p {
  log "pipe rejected" reason
}
setTimeout 5 {
  let w = getWriter ws
  let q = write w "after"
  then q {
    log "write after ok"
  }
}
"#,
        &[
            "t1",
            "t2",
            "pipe rejected src bad",
            "t3",
            "t4",
            "t5",
            "t6",
            "t7",
            "t8",
            "write after",
            "write after ok",
        ],
    );
}

/// A sink write that throws cancels the source and rejects the pipe.
#[test]
fn p_dest_error() {
    node_log(
        "p_dest_error.scn",
        r#"let rs = readable highWaterMark 0 pull {
  log "pull"
  enqueue controller "x"
} cancel {
  log "source cancel" reason
}
let ws = writable write {
  log "write" chunk
  throw Error("sink bad")
}
let p = pipeTo rs ws
catch p {
  log "pipe rejected" reason
}
ruler 10
"#,
        &[
            "pull",
            "t1",
            "write x",
            "t2",
            "t3",
            "source cancel Error: sink bad",
            "t4",
            "t5",
            "t6",
            "pipe rejected Error: sink bad",
            "t7",
            "t8",
            "t9",
            "t10",
        ],
    );
}

/// Preventcancel: a destination error leaves the source uncancelled and unlocked.
#[test]
fn p_dest_error_prevent_cancel() {
    node_log(
        "p_dest_error_prevent_cancel.scn",
        r#"let rs = readable highWaterMark 0 pull {
  log "pull"
  enqueue controller "x"
} cancel {
  log "source cancel" reason
}
let ws = writable write {
  log "write" chunk
  throw Error("sink bad")
}
let p = pipeTo rs ws preventCancel
catch p {
  log "pipe rejected" reason
}
ruler 10
setTimeout 1 {
  log "locked" rs.locked
}
"#,
        &[
            "pull",
            "t1",
            "write x",
            "t2",
            "t3",
            "t4",
            "pipe rejected Error: sink bad",
            "t5",
            "t6",
            "t7",
            "t8",
            "t9",
            "t10",
            "locked false",
        ],
    );
}

/// Preventclose: the source close leaves the destination open and unlocked.
#[test]
fn p_prevent_close() {
    node_log(
        "p_prevent_close.scn",
        r#"let rs = readable start {
  enqueue controller "a"
  close controller
}
let ws = writable write {
  log "write" chunk
} close {
  log "sink close"
}
let p = pipeTo rs ws preventClose
then p {
  log "pipe done" ws.locked
  let w = getWriter ws
  let q = write w "more"
}
ruler 10
"#,
        &[
            "write a",
            "t1",
            "t2",
            "t3",
            "pipe done false",
            "write more",
            "t4",
            "t5",
            "t6",
            "t7",
            "t8",
            "t9",
            "t10",
        ],
    );
}

/// An already aborted signal: abort and cancel both run, the pipe rejects with the reason.
#[test]
fn p_signal_aborted() {
    node_log(
        "p_signal_aborted.scn",
        r#"let s = aborted "early"
let rs = readable cancel {
  log "source cancel" reason
}
let ws = writable abort {
  log "sink abort" reason
}
let p = pipeTo rs ws signal s
catch p {
  log "pipe rejected" reason
}
ruler 8
"#,
        &[
            "sink abort early",
            "source cancel early",
            "t1",
            "t2",
            "t3",
            "t4",
            "t5",
            "t6",
            "pipe rejected early",
            "t7",
            "t8",
        ],
    );
}

/// A signal aborted mid-pipe waits for the write in flight, then aborts and cancels.
#[test]
fn p_signal_mid() {
    node_log(
        "p_signal_mid.scn",
        r#"let c = controller
let gate = promise
let rs = readable highWaterMark 0 pull {
  log "pull"
  enqueue controller "x"
} cancel {
  log "source cancel" reason
}
let ws = writable write {
  log "write" chunk
  return gate
} abort {
  log "sink abort" reason
}
let p = pipeTo rs ws signal c.signal
catch p {
  log "pipe rejected" reason
}
setTimeout 1 {
  abort c "stop"
  ruler 10
  setTimeout 1 {
    resolve gate 0
    ruler 10
  }
}
"#,
        &[
            "pull",
            "write x",
            "t1",
            "t2",
            "t3",
            "t4",
            "t5",
            "t6",
            "t7",
            "t8",
            "t9",
            "t10",
            "t1",
            "sink abort stop",
            "source cancel stop",
            "t2",
            "t3",
            "t4",
            "t5",
            "t6",
            "t7",
            "pipe rejected stop",
            "t8",
            "t9",
            "t10",
        ],
    );
}

/// A signal with preventabort and preventcancel: only the pipe rejects.
#[test]
fn p_signal_prevent() {
    node_log(
        "p_signal_prevent.scn",
        r#"let c = controller
let rs = readable cancel {
  log "source cancel" reason
}
let ws = writable abort {
  log "sink abort" reason
}
let p = pipeTo rs ws preventAbort preventCancel signal c.signal
catch p {
  log "pipe rejected" reason
}
setTimeout 1 {
  abort c
  ruler 8
}
"#,
        &[
            "t1",
            "t2",
            "t3",
            "pipe rejected AbortError: This operation was aborted",
            "t4",
            "t5",
            "t6",
            "t7",
            "t8",
        ],
    );
}

/// A destination already closing cancels the source.
#[test]
fn p_dest_closed() {
    node_log(
        "p_dest_closed.scn",
        r#"let rs = readable cancel {
  log "source cancel" reason
}
let ws = writable close {
  log "sink close"
}
let cl = close ws
let p = pipeTo rs ws
catch p {
  log "pipe rejected" reason
}
ruler 8
"#,
        &[
            "source cancel TypeError: Invalid state: Destination WritableStream is closed",
            "sink close",
            "t1",
            "t2",
            "pipe rejected TypeError: Invalid state: Destination WritableStream is closed",
            "t3",
            "t4",
            "t5",
            "t6",
            "t7",
            "t8",
        ],
    );
}

/// Both ends errored before the pipe starts.
#[test]
fn p_errored_both() {
    node_log(
        "p_errored_both.scn",
        r#"let rs = readable start {
  error controller "src"
} cancel {
  log "source cancel" reason
}
let ws = writable start {
  error controller "dst"
} abort {
  log "sink abort" reason
}
setTimeout 1 {
  let p = pipeTo rs ws
  catch p {
    log "pipe rejected" reason
  }
  ruler 6
}
"#,
        &["t1", "pipe rejected src", "t2", "t3", "t4", "t5", "t6"],
    );
}

/// A locked source or destination rejects the pipe.
#[test]
fn p_locked() {
    node_log(
        "p_locked.scn",
        r#"let rs = readable
let ws = writable
let r = getReader rs
let p = pipeTo rs ws
catch p {
  log "pipe rejected" reason
}
releaseLock r
let w = getWriter ws
let p2 = pipeTo rs ws
catch p2 {
  log "pipe2 rejected" reason
}
ruler 2
"#,
        &[
            "pipe rejected TypeError: Invalid state: The ReadableStream is locked",
            "pipe2 rejected TypeError: Invalid state: The WritableStream is locked",
            "t1",
            "t2",
        ],
    );
}

/// Pipethrough a transform: the readable side reads the transformed chunks and closes.
#[test]
fn pt_basic() {
    node_log(
        "pt_basic.scn",
        r#"let rs = readable start {
  enqueue controller 1
  enqueue controller 2
  close controller
}
let t = transform transform {
  log "transform" chunk
  enqueue controller chunk
}
let out = pipeThrough rs t
let r = getReader out
let q = read r
then q {
  log "read" value
  let q2 = read r
  then q2 {
    log "read2" value
    let q3 = read r
    then q3 {
      log "read3" value
    }
  }
}
ruler 14
"#,
        &[
            "t1",
            "t2",
            "t3",
            "transform 1",
            "t4",
            "read {value: 1, done: false}",
            "t5",
            "transform 2",
            "t6",
            "read2 {value: 2, done: false}",
            "t7",
            "t8",
            "t9",
            "t10",
            "read3 {value: undefined, done: true}",
            "t11",
            "t12",
            "t13",
            "t14",
        ],
    );
}

/// Pipethrough then pipeto a sink with highwatermark 1: the transform's backpressure.
#[test]
fn pt_to_sink() {
    node_log(
        "pt_to_sink.scn",
        r#"let rs = readable start {
  enqueue controller 1
  enqueue controller 2
  close controller
}
let t = transform transform {
  log "transform" chunk
  enqueue controller chunk
  enqueue controller chunk
}
let ws = writable highWaterMark 1 write {
  log "write" chunk
} close {
  log "sink close"
}
let out = pipeThrough rs t
let p = pipeTo out ws
then p {
  log "done"
}
ruler 20
"#,
        &[
            "t1",
            "t2",
            "t3",
            "transform 1",
            "t4",
            "write 1",
            "t5",
            "write 1",
            "t6",
            "t7",
            "transform 2",
            "t8",
            "write 2",
            "t9",
            "write 2",
            "t10",
            "t11",
            "t12",
            "t13",
            "sink close",
            "t14",
            "t15",
            "t16",
            "done",
            "t17",
            "t18",
            "t19",
            "t20",
        ],
    );
}

/// A push source of five chunks into a gated highWaterMark-2 sink: the batch path parks on the ready hook and resumes synchronously when the backpressure clears.
#[test]
fn p2_batch() {
    node_log(
        "p2_batch.scn",
        r#"# a push source with many chunks into a hwm-2 sink with a gate: the batch path and the ready hook
let gate = promise
let n = 0
let rs = readable highWaterMark 10 start {
  enqueue controller 1
  enqueue controller 2
  enqueue controller 3
  enqueue controller 4
  enqueue controller 5
  close controller
}
let ws = writable highWaterMark 2 write {
  set n add n 1
  log "write" chunk
  if same n 2 {
    return gate
  }
} close {
  log "sink close"
}
let p = pipeTo rs ws
then p {
  log "done"
}
ruler 6
setTimeout 1 {
  resolve gate 0
  ruler 16
}
"#,
        &[
            "write 1",
            "t1",
            "write 2",
            "t2",
            "t3",
            "t4",
            "t5",
            "t6",
            "write 3",
            "t1",
            "write 4",
            "t2",
            "write 5",
            "t3",
            "t4",
            "sink close",
            "t5",
            "t6",
            "t7",
            "done",
            "t8",
            "t9",
            "t10",
            "t11",
            "t12",
            "t13",
            "t14",
            "t15",
            "t16",
        ],
    );
}

/// The destination errors while a write is in flight: the source is cancelled once the write settles.
#[test]
fn p2_dest_error_pending() {
    node_log(
        "p2_dest_error_pending.scn",
        r#"# the destination errors while a write is pending: the pipe waits for it
let gate = promise
let rs = readable highWaterMark 3 start {
  enqueue controller 1
  enqueue controller 2
} cancel {
  log "source cancel" reason
}
let ws = writable highWaterMark 3 start {
  setTimeout 1 {
    log "erroring"
    error controller "dst err"
    ruler 8
  }
} write {
  log "write" chunk
  return gate
} abort {
  log "sink abort" reason
}
let p = pipeTo rs ws
catch p {
  log "pipe rejected" reason
}
setTimeout 3 {
  reject gate "gate err"
  ruler 8
}
"#,
        &[
            "write 1",
            "erroring",
            "t1",
            "t2",
            "t3",
            "t4",
            "t5",
            "t6",
            "t7",
            "t8",
            "t1",
            "source cancel dst err",
            "t2",
            "t3",
            "t4",
            "pipe rejected dst err",
            "t5",
            "t6",
            "t7",
            "t8",
        ],
    );
}

/// The source closes while writes are pending: the destination closes after they finish.
#[test]
fn p2_source_close_pending() {
    node_log(
        "p2_source_close_pending.scn",
        r#"# the source closes while writes are pending: the close waits for them
let gate = promise
let rs = readable start {
  enqueue controller 1
  setTimeout 1 {
    log "closing"
    close controller
    ruler 6
  }
}
let ws = writable highWaterMark 3 write {
  log "write" chunk
  return gate
} close {
  log "sink close"
}
let p = pipeTo rs ws
then p {
  log "done"
}
setTimeout 3 {
  resolve gate 0
  ruler 10
}
"#,
        &[
            "write 1",
            "closing",
            "t1",
            "t2",
            "t3",
            "t4",
            "t5",
            "t6",
            "t1",
            "sink close",
            "t2",
            "t3",
            "t4",
            "done",
            "t5",
            "t6",
            "t7",
            "t8",
            "t9",
            "t10",
        ],
    );
}

/// PreventAbort with a write in flight: the pipe rejects after the write settles.
#[test]
fn p2_source_error_pending_prevent() {
    node_log(
        "p2_source_error_pending_prevent.scn",
        r#"let gate = promise
let rs = readable start {
  enqueue controller 1
  setTimeout 1 {
    error controller "src err"
    ruler 6
  }
}
let ws = writable highWaterMark 3 write {
  log "write" chunk
  return gate
} abort {
  log "sink abort" reason
}
let p = pipeTo rs ws preventAbort
catch p {
  log "pipe rejected" reason
}
setTimeout 3 {
  resolve gate 0
  ruler 10
}
"#,
        &[
            "write 1",
            "t1",
            "t2",
            "t3",
            "t4",
            "t5",
            "t6",
            "t1",
            "t2",
            "pipe rejected src err",
            "t3",
            "t4",
            "t5",
            "t6",
            "t7",
            "t8",
            "t9",
            "t10",
        ],
    );
}

/// A signal aborted while the destination has not started: the abort action and the cancel both run.
#[test]
fn p2_signal_dest_erroring() {
    node_log(
        "p2_signal_dest_erroring.scn",
        r#"let c = controller
let never = promise
let rs = readable cancel {
  log "source cancel" reason
}
let ws = writable start {
  return never
} abort {
  log "sink abort" reason
}
let p = pipeTo rs ws signal c.signal
catch p {
  log "pipe rejected" reason
}
setTimeout 1 {
  abort c
  ruler 10
}
"#,
        &[
            "source cancel AbortError: This operation was aborted",
            "t1",
            "t2",
            "t3",
            "t4",
            "t5",
            "t6",
            "t7",
            "t8",
            "t9",
            "t10",
        ],
    );
}

/// Two pipes from the branches of one tee, into sinks of highWaterMark 1 and 0.
#[test]
fn e_tee_pipe() {
    node_log(
        "e_tee_pipe.scn",
        r#"# two pipes from the branches of a tee
let rs = readable start {
  enqueue controller "a"
  enqueue controller "b"
  close controller
}
let [b1, b2] = tee rs
let ws1 = writable write {
  log "w1" chunk
} close {
  log "close1"
}
let ws2 = writable highWaterMark 0 write {
  log "w2" chunk
} close {
  log "close2"
}
let p1 = pipeTo b1 ws1
let p2 = pipeTo b2 ws2
then p1 {
  log "p1"
}
then p2 {
  log "p2"
}
ruler 16
"#,
        &[
            "t1", "t2", "w1 a", "t3", "w1 b", "t4", "t5", "t6", "t7", "t8", "t9", "t10", "t11",
            "t12", "t13", "t14", "t15", "t16", "close1", "p1",
        ],
    );
}

/// A pipe into a transform's writable side, read from its readable side, then the source cancelled.
#[test]
fn e_pipe_into_transform() {
    node_log(
        "e_pipe_into_transform.scn",
        r#"let rs = readable highWaterMark 0 start {
  enqueue controller 1
} pull {
  log "pull" controller.desiredSize
}
let t = transform transform {
  log "transform" chunk controller.desiredSize
  enqueue controller chunk
} flush {
  log "flush"
}
let p = pipeTo rs t.writable
let r = getReader t.readable
ruler 6
setTimeout 1 {
  let q = read r
  then q {
    log "read" value
  }
  ruler 8
  setTimeout 1 {
    cancel rs "x"
    log "after cancel"
    ruler 8
  }
}
catch p {
  log "pipe rejected" reason
}
"#,
        &[
            "t1",
            "t2",
            "t3",
            "t4",
            "t5",
            "t6",
            "transform 1 0",
            "t1",
            "read {value: 1, done: false}",
            "t2",
            "pull 0",
            "t3",
            "t4",
            "t5",
            "t6",
            "t7",
            "t8",
            "after cancel",
            "t1",
            "t2",
            "t3",
            "t4",
            "t5",
            "t6",
            "t7",
            "t8",
            "unhandled rejection TypeError: Invalid state: ReadableStream is locked",
        ],
    );
}

/// A signal aborted after the pipe finished does nothing: its listener was removed.
#[test]
fn e_pipe_signal_after_close() {
    node_log(
        "e_pipe_signal_after_close.scn",
        r#"let c = controller
let rs = readable start {
  enqueue controller "a"
  close controller
}
let ws = writable write {
  log "write" chunk
} close {
  log "sink close"
}
let p = pipeTo rs ws preventCancel signal c.signal
then p {
  log "done"
  abort c "late"
  log "aborted after done"
}
ruler 10
"#,
        &[
            "write a",
            "t1",
            "t2",
            "sink close",
            "t3",
            "t4",
            "t5",
            "done",
            "aborted after done",
            "t6",
            "t7",
            "t8",
            "t9",
            "t10",
        ],
    );
}

/// A signal aborted right after pipeTo: the destination's signal fires, both ends unlock before the pipe rejects.
#[test]
fn e_pipe_writer_locked_after_abort() {
    node_log(
        "e_pipe_writer_locked_after_abort.scn",
        r#"let c = controller
let rs = readable highWaterMark 2 start {
  enqueue controller 1
} cancel {
  log "cancel" reason
}
let ws = writable highWaterMark 1 start {
  onabort controller.signal {
    log "ws signal" controller.signal.reason
  }
} write {
  log "write" chunk
} abort {
  log "abort" reason
}
let p = pipeTo rs ws signal c.signal
catch p {
  log "rejected" reason
  log "locks" rs.locked ws.locked
}
abort c
ruler 10
"#,
        &[
            "write 1",
            "t1",
            "t2",
            "ws signal AbortError: This operation was aborted",
            "abort AbortError: This operation was aborted",
            "cancel AbortError: This operation was aborted",
            "t3",
            "t4",
            "t5",
            "t6",
            "t7",
            "t8",
            "rejected AbortError: This operation was aborted",
            "locks false false",
            "t9",
            "t10",
        ],
    );
}

/// PipeThrough throws for a locked writable or readable; an aborted signal with preventCancel errors only the transform.
#[test]
fn pt3_errors() {
    node_log(
        "pt3_errors.scn",
        r#"let rs = readable
let t = transform
let w = getWriter t.writable
try {
  let out = pipeThrough rs t
}
log "rs locked" rs.locked
releaseLock w
let r = getReader rs
try {
  let out2 = pipeThrough rs t
}
releaseLock r
let c = controller
let s = aborted "pre"
let t2 = transform cancel {
  log "t2 cancel" reason
}
let out3 = pipeThrough rs t2 preventCancel signal s
let r3 = getReader out3
catch r3.closed {
  log "out3 closed" reason
}
log "rs locked" rs.locked
ruler 10
"#,
        &[
            "caught TypeError: Invalid state: The WritableStream is locked",
            "rs locked false",
            "caught TypeError: Invalid state: The ReadableStream is locked",
            "rs locked true",
            "t1",
            "t2",
            "t2 cancel pre",
            "t3",
            "t4",
            "out3 closed pre",
            "t5",
            "t6",
            "t7",
            "t8",
            "t9",
            "t10",
        ],
    );
}

/// PipeThrough with preventClose leaves the transform's writable side open and unlocked.
#[test]
fn pt3_options() {
    node_log(
        "pt3_options.scn",
        r#"let rs = readable start {
  enqueue controller "a"
  close controller
}
let t = transform flush {
  log "flush"
}
let out = pipeThrough rs t preventClose
let r = getReader out
let q = read r
then q {
  log "read" value
}
ruler 8
setTimeout 1 {
  log "writable locked" t.writable.locked
  let w = getWriter t.writable
  let c = close w
  then c {
    log "closed by hand"
  }
  let q2 = read r
  then q2 {
    log "read2" value
  }
  ruler 6
}
"#,
        &[
            "t1",
            "t2",
            "t3",
            "t4",
            "read {value: a, done: false}",
            "t5",
            "t6",
            "t7",
            "t8",
            "writable locked false",
            "flush",
            "t1",
            "read2 {value: undefined, done: true}",
            "t2",
            "closed by hand",
            "t3",
            "t4",
            "t5",
            "t6",
        ],
    );
}

/// Node's ERR_INTERNAL_ASSERTION, as the log shows it.
const ASSERTION: &str = "Error: This is caused by either a bug in Node.js or incorrect usage of Node.js internals.\\nPlease open an issue with this stack trace at https://github.com/nodejs/node/issues\\n";

/// A pipe from a full queue into a destination whose close() is in flight: the batch's first
/// write fails Node's chunk-size assertion, thrown out of pipeTo (which rejects with it) before
/// the pull and the watchers, so no third pull and both sides stay locked.
#[test]
fn pipe_into_a_destination_whose_close_is_in_flight() {
    let rejected = format!("pipe rejected {ASSERTION}");
    node_log(
        "close_in_flight.scn",
        include_str!(
            "../../scenarios/streams/pipe_into_a_destination_whose_close_is_in_flight.scn"
        ),
        &[
            "pull 1",
            "pull 2",
            "sink close",
            "locked true true",
            &rejected,
            "t1",
            "closed",
            "t2",
            "t3",
            "t4",
            "after true true",
        ],
    );
}

/// The same destination with nothing queued: the pipe shuts down at once and releases its
/// writer, and the chunk its parked read then gets fails Node's unbound-writer assertion in the
/// forwarding reaction, an unhandled rejection after the pipe rejected.
#[test]
fn pipe_read_into_a_destination_whose_close_is_in_flight() {
    let unhandled = format!("unhandled rejection {ASSERTION}");
    node_log(
        "read_close_in_flight.scn",
        include_str!(
            "../../scenarios/streams/pipe_read_into_a_destination_whose_close_is_in_flight.scn"
        ),
        &[
            "sink close",
            "pull",
            "pipe rejected TypeError: Invalid state: Destination WritableStream is closed",
            "t1",
            "closed",
            "t2",
            "t3",
            "t4",
            &unhandled,
            "after false false",
        ],
    );
}

/// The message of V8's TypeError for calling a transform's cleared cancel algorithm.
const CLEARED_CANCEL: &str = "TypeError: controller[kState].cancelAlgorithm is not a function";

/// The destination-errored watcher's cancel of a terminated transform's readable throws in its
/// reaction: an unhandled rejection, and the pipe never settles or unlocks.
#[test]
fn pipe_from_a_terminated_transform_into_a_failing_destination() {
    let unhandled = format!("unhandled rejection {CLEARED_CANCEL}");
    node_log(
        "failing_destination.scn",
        include_str!(
            "../../scenarios/streams/pipe_from_a_terminated_transform_into_a_failing_destination.scn"
        ),
        &[
            "after", "write x", "t1", "t2", "t3", "t4", "t5", "t6", &unhandled, "end true true",
        ],
    );
}

/// The signal's abort: the throwing cancel action rejects its SafePromiseAll wrapper, so the pipe
/// rejects with the TypeError after the destination's abort.
#[test]
fn pipe_from_a_terminated_transform_aborted_by_its_signal() {
    let rejected = format!("pipe rejected {CLEARED_CANCEL}");
    node_log(
        "aborted.scn",
        include_str!(
            "../../scenarios/streams/pipe_from_a_terminated_transform_aborted_by_its_signal.scn"
        ),
        &[
            "after",
            "aborted",
            "write x",
            "t1",
            "t2",
            "abort sig",
            "t3",
            "t4",
            "t5",
            "t6",
            &rejected,
            "end false false",
        ],
    );
}

/// An already errored destination: the synchronous watcher's throw leaves readableStreamPipeTo,
/// pipeTo rejects with it at once, and both sides stay locked.
#[test]
fn pipe_from_a_terminated_transform_into_an_errored_destination() {
    let rejected = format!("pipe rejected {CLEARED_CANCEL}");
    node_log(
        "errored_destination.scn",
        include_str!(
            "../../scenarios/streams/pipe_from_a_terminated_transform_into_an_errored_destination.scn"
        ),
        &[
            "after true true",
            &rejected,
            "t1",
            "t2",
            "t3",
            "t4",
            "end true true",
        ],
    );
}

/// The same through pipeThrough, which has no try/catch: the TypeError is thrown out of it.
#[test]
fn pipe_through_from_a_terminated_transform_into_an_errored_transform() {
    let caught = format!("caught {CLEARED_CANCEL}");
    node_log(
        "pipe_through_errored.scn",
        include_str!(
            "../../scenarios/streams/pipe_through_from_a_terminated_transform_into_an_errored_transform.scn"
        ),
        &[&caught, "after true true", "t1", "t2"],
    );
}
