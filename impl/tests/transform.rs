//! TransformStream and its default controller in impl, run from scenario scripts and compared with the
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

/// Transform and flush: enqueues, desiredsize, the write and close promises against reads.
#[test]
fn t_basic() {
    node_log(
        "t_basic.scn",
        r#"let t = transform transform {
  log "transform" chunk controller.desiredSize
  enqueue controller chunk
  enqueue controller "extra"
} flush {
  log "flush"
}
let w = getWriter t.writable
let r = getReader t.readable
let p1 = write w "a"
then p1 {
  log "p1"
}
log "w desired" w.desiredSize
let q = read r
then q {
  log "read" value
}
let q2 = read r
then q2 {
  log "read2" value
}
let c = close w
then c {
  log "closed"
}
let q3 = read r
then q3 {
  log "read3" value
}
ruler 10
"#,
        &[
            "w desired 0",
            "t1",
            "t2",
            "t3",
            "transform a 0",
            "t4",
            "read {value: a, done: false}",
            "read2 {value: extra, done: false}",
            "t5",
            "flush",
            "t6",
            "p1",
            "t7",
            "read3 {value: undefined, done: true}",
            "t8",
            "closed",
            "t9",
            "t10",
        ],
    );
}

/// The identity transform: writes wait for reads (readable highwatermark 0).
#[test]
fn t_default() {
    node_log(
        "t_default.scn",
        r#"let t = transform
let w = getWriter t.writable
let r = getReader t.readable
let p1 = write w "a"
let p2 = write w "b"
then p1 {
  log "p1"
}
then p2 {
  log "p2"
}
log "desired" w.desiredSize
ruler 4
let q = read r
then q {
  log "read" value
  let q2 = read r
  then q2 {
    log "read2" value
  }
}
ruler 8
"#,
        &[
            "desired -1",
            "t1",
            "t1",
            "t2",
            "t2",
            "t3",
            "t3",
            "t4",
            "t4",
            "read {value: a, done: false}",
            "t5",
            "t6",
            "p1",
            "read2 {value: b, done: false}",
            "t7",
            "t8",
            "p2",
        ],
    );
}

/// A readable highwatermark of 1: the transform runs once the backpressure clears.
#[test]
fn t_backpressure() {
    node_log(
        "t_backpressure.scn",
        r#"let t = transform readableHighWaterMark 1 start {
  log "start"
} transform {
  log "transform" chunk
  enqueue controller chunk
}
let w = getWriter t.writable
let r = getReader t.readable
let p1 = write w 1
let p2 = write w 2
let p3 = write w 3
then p1 {
  log "p1"
}
then p2 {
  log "p2"
}
then p3 {
  log "p3"
}
ruler 6
setTimeout 1 {
  let q = read r
  then q {
    log "read" value
  }
  ruler 8
}
"#,
        &[
            "start",
            "t1",
            "t2",
            "t3",
            "transform 1",
            "t4",
            "t5",
            "t6",
            "p1",
            "transform 2",
            "read {value: 1, done: false}",
            "t1",
            "t2",
            "t3",
            "p2",
            "t4",
            "t5",
            "t6",
            "t7",
            "t8",
        ],
    );
}

/// Terminate from transform: the readable side closes, the writable side errors, enqueue throws.
#[test]
fn t_terminate() {
    node_log(
        "t_terminate.scn",
        r#"let t = transform transform {
  log "transform" chunk
  terminate controller
  try {
    enqueue controller "late"
  }
} cancel {
  log "cancel" reason
}
let w = getWriter t.writable
let r = getReader t.readable
let p1 = write w "a"
catch p1 {
  log "p1" reason
}
catch w.closed {
  log "w closed" reason
}
then r.closed {
  log "r closed"
}
ruler 8
"#,
        &["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"],
    );
}

/// Cancel of the readable side, controller.error in start, abort of the writable side.
#[test]
fn t_error_cancel() {
    node_log(
        "t_error_cancel.scn",
        r#"let t = transform cancel {
  log "cancel" reason
}
let w = getWriter t.writable
let r = getReader t.readable
let c = cancel r "nope"
then c {
  log "cancel done"
}
catch w.closed {
  log "w closed" reason
}
ruler 6
let t2 = transform start {
  error controller "boom"
}
let w2 = getWriter t2.writable
catch w2.closed {
  log "w2 closed" reason
}
let r2 = getReader t2.readable
catch r2.closed {
  log "r2 closed" reason
}
let t3 = transform cancel {
  log "cancel3" reason
}
let w3 = getWriter t3.writable
let a = abort w3 "ab"
then a {
  log "abort3 done"
}
let r3 = getReader t3.readable
catch r3.closed {
  log "r3 closed" reason
}
ruler 8
"#,
        &[
            "cancel nope",
            "t1",
            "r2 closed boom",
            "t1",
            "t2",
            "t2",
            "cancel done",
            "t3",
            "cancel3 ab",
            "t3",
            "w closed nope",
            "t4",
            "w2 closed boom",
            "t4",
            "t5",
            "r3 closed ab",
            "t5",
            "t6",
            "t6",
            "abort3 done",
            "t7",
            "t8",
        ],
    );
}

/// A flush that throws errors the readable side and rejects the close.
#[test]
fn t_flush_throw() {
    node_log(
        "t_flush_throw.scn",
        r#"let t = transform flush {
  log "flush"
  throw Error("flush bad")
}
let w = getWriter t.writable
let r = getReader t.readable
let c = close w
catch c {
  log "close" reason
}
catch r.closed {
  log "r closed" reason
}
ruler 8
"#,
        &[
            "t1",
            "t2",
            "flush",
            "t3",
            "t4",
            "r closed Error: flush bad",
            "t5",
            "close Error: flush bad",
            "t6",
            "t7",
            "t8",
        ],
    );
}

/// WritableHighWaterMark 0 and a gated start: the write waits for start and the read.
#[test]
fn t2_hwm0_start() {
    node_log(
        "t2_hwm0_start.scn",
        r#"let gate = promise
let t = transform writableHighWaterMark 0 start {
  log "start"
  return gate
} transform {
  log "transform" chunk
  enqueue controller chunk
}
let w = getWriter t.writable
log "desired" w.desiredSize
let r = getReader t.readable
let q = read r
then q {
  log "read" value
}
let p = write w "a"
then p {
  log "p"
}
ruler 3
setTimeout 1 {
  resolve gate 0
  ruler 10
}
"#,
        &[
            "start",
            "desired 0",
            "t1",
            "t2",
            "t3",
            "t1",
            "t2",
            "t3",
            "transform a",
            "t4",
            "read {value: a, done: false}",
            "t5",
            "t6",
            "p",
            "t7",
            "t8",
            "t9",
            "t10",
        ],
    );
}

/// Cancel of the readable side while a write is parked on backpressure.
#[test]
fn t2_cancel_while_parked() {
    node_log(
        "t2_cancel_while_parked.scn",
        r#"let t = transform transform {
  log "transform" chunk
  enqueue controller chunk
} cancel {
  log "cancel" reason
}
let w = getWriter t.writable
let p1 = write w 1
let p2 = write w 2
catch p2 {
  log "p2" reason
}
then p1 {
  log "p1"
}
setTimeout 1 {
  let r = getReader t.readable
  let q = read r
  then q {
    log "read" value
  }
  let c = cancel r "stop"
  then c {
    log "cancelled"
  }
  catch w.closed {
    log "w closed" reason
  }
  ruler 8
}
"#,
        &[
            "cancel stop",
            "read {value: undefined, done: true}",
            "t1",
            "t2",
            "p1",
            "p2 stop",
            "w closed stop",
            "cancelled",
            "t3",
            "t4",
            "t5",
            "t6",
            "t7",
            "t8",
        ],
    );
}

/// Two enqueues in one transform call against a readable highWaterMark of 2.
#[test]
fn e_transform_enqueue_size() {
    node_log(
        "e_transform_enqueue_size.scn",
        r#"let t = transform readableHighWaterMark 2 transform {
  enqueue controller chunk
  log "desired" controller.desiredSize
  enqueue controller chunk
  log "desired" controller.desiredSize
}
let w = getWriter t.writable
let p = write w "x"
then p {
  log "written"
}
ruler 6
let r = getReader t.readable
let q = read r
then q {
  log "read" value
}
ruler 6
"#,
        &[
            "t1",
            "t1",
            "t2",
            "t2",
            "t3",
            "t3",
            "desired 2",
            "desired 1",
            "t4",
            "t4",
            "read {value: x, done: false}",
            "t5",
            "t5",
            "t6",
            "t6",
            "written",
        ],
    );
}

/// Transform and flush returning a pending promise hold the writes, the reads and the close.
#[test]
fn t3_promises() {
    node_log(
        "t3_promises.scn",
        r#"let gate = promise
let t = transform transform {
  log "transform" chunk
  enqueue controller chunk
  return gate
} flush {
  log "flush"
  return gate
}
let w = getWriter t.writable
let r = getReader t.readable
let p1 = write w 1
let p2 = write w 2
then p1 {
  log "p1"
}
then p2 {
  log "p2"
}
let q = read r
then q {
  log "read" value
  let q2 = read r
  then q2 {
    log "read2" value
  }
}
let c = close w
then c {
  log "closed"
}
ruler 4
setTimeout 1 {
  resolve gate 0
  ruler 12
}
"#,
        &[
            "t1",
            "t2",
            "t3",
            "transform 1",
            "t4",
            "read {value: 1, done: false}",
            "t1",
            "transform 2",
            "t2",
            "p1",
            "read2 {value: 2, done: false}",
            "t3",
            "flush",
            "t4",
            "p2",
            "t5",
            "t6",
            "t7",
            "t8",
            "closed",
            "t9",
            "t10",
            "t11",
            "t12",
        ],
    );
}

/// A transform that throws errors both sides.
#[test]
fn t3_throw() {
    node_log(
        "t3_throw.scn",
        r#"let t = transform transform {
  log "transform" chunk
  throw Error("tx")
} cancel {
  log "cancel" reason
}
let w = getWriter t.writable
let r = getReader t.readable
let q = read r
catch q {
  log "read" reason
}
let p1 = write w 1
catch p1 {
  log "p1" reason
}
catch w.closed {
  log "w closed" reason
}
ruler 8
"#,
        &[
            "t1",
            "t2",
            "t3",
            "transform 1",
            "t4",
            "t5",
            "read Error: tx",
            "t6",
            "p1 Error: tx",
            "w closed Error: tx",
            "t7",
            "t8",
        ],
    );
}

/// Terminate in start: the read is done, the write rejects, flush never runs.
#[test]
fn t3_terminate_start() {
    node_log(
        "t3_terminate_start.scn",
        r#"let t = transform start {
  terminate controller
  log "desired" controller.desiredSize
} flush {
  log "flush"
}
let w = getWriter t.writable
let r = getReader t.readable
let q = read r
then q {
  log "read" value
}
let p = write w 1
catch p {
  log "write" reason
}
catch w.closed {
  log "w closed" reason
}
ruler 8
"#,
        &[
            "desired 0",
            "read {value: undefined, done: true}",
            "write TypeError: Invalid state: TransformStream has been terminated",
            "t1",
            "t2",
            "t3",
            "w closed TypeError: Invalid state: TransformStream has been terminated",
            "t4",
            "t5",
            "t6",
            "t7",
            "t8",
        ],
    );
}

/// A readable cancel while flush is pending returns the same finish promise.
#[test]
fn t3_cancel_during_flush() {
    node_log(
        "t3_cancel_during_flush.scn",
        r#"let gate = promise
let t = transform flush {
  log "flush"
  return gate
} cancel {
  log "cancel" reason
}
let w = getWriter t.writable
let r = getReader t.readable
let c = close w
then c {
  log "close done"
}
catch c {
  log "close rejected" reason
}
ruler 3
setTimeout 1 {
  let k = cancel r "stop"
  then k {
    log "cancel done"
  }
  catch k {
    log "cancel rejected" reason
  }
  resolve gate 0
  ruler 8
}
"#,
        &[
            "t1",
            "t2",
            "flush",
            "t3",
            "t1",
            "t2",
            "t3",
            "close done",
            "cancel done",
            "t4",
            "t5",
            "t6",
            "t7",
            "t8",
        ],
    );
}

/// An abort of the writable side then a cancel of the readable side share the finish promise.
#[test]
fn t3_abort_then_cancel() {
    node_log(
        "t3_abort_then_cancel.scn",
        r#"let gate = promise
let t = transform cancel {
  log "cancel" reason
  return gate
}
let w = getWriter t.writable
let r = getReader t.readable
setTimeout 1 {
  let a = abort w "A"
  then a {
    log "abort done"
  }
  let k = cancel r "K"
  then k {
    log "cancel done"
  }
  catch k {
    log "cancel rejected" reason
  }
  catch r.closed {
    log "r closed" reason
  }
  ruler 3
  setTimeout 1 {
    resolve gate 0
    ruler 8
  }
}
"#,
        &[
            "cancel A",
            "t1",
            "t2",
            "t3",
            "t1",
            "t2",
            "t3",
            "cancel done",
            "t4",
            "abort done",
            "t5",
            "t6",
            "t7",
            "t8",
        ],
    );
}

/// terminate() with a chunk left queued on the readable side, then a cancel of that side: the
/// cleared cancel algorithm is called and V8's TypeError is thrown out of reader.cancel(), after
/// the readable closed (its reader's closed promise resolves); the transformer's cancel is not
/// called.
#[test]
fn cancel_after_terminate_calls_a_cleared_algorithm() {
    node_log(
        "cancel_after_terminate.scn",
        include_str!(
            "../../scenarios/streams/transform_cancel_after_terminate_calls_a_cleared_algorithm.scn"
        ),
        &[
            "caught TypeError: controller[kState].cancelAlgorithm is not a function",
            "after true",
            "t1",
            "reader closed",
            "t2",
            "t3",
            "t4",
        ],
    );
}

/// The same through a pipe with a signal: the TypeError is uncaught out of the output reader's
/// cancel(), and the script stops there.
#[test]
fn piped_output_cancelled_after_terminate() {
    node_log(
        "piped_cancel_after_terminate.scn",
        include_str!(
            "../../scenarios/streams/transform_piped_output_cancelled_after_terminate.scn"
        ),
        &[
            "pull",
            "t1",
            "pull",
            "t2",
            "pull",
            "t3",
            "transform 0",
            "source cancel TypeError: Invalid state: TransformStream has been terminated",
            "cancelling",
            "uncaught TypeError: controller[kState].cancelAlgorithm is not a function",
            "output closed",
        ],
    );
}

/// A tee of a terminated transform's readable: the second branch's cancel cancels the teed
/// stream, whose cleared cancel algorithm throws out of that cancel(); the tee's cancel promise
/// is never resolved, so the first cancel never settles either.
#[test]
fn tee_of_a_terminated_readable_cancelled() {
    node_log(
        "tee_cancelled.scn",
        include_str!(
            "../../scenarios/streams/transform_tee_of_a_terminated_readable_cancelled.scn"
        ),
        &[
            "caught TypeError: controller[kState].cancelAlgorithm is not a function",
            "after",
            "one closed",
            "two closed",
            "t1",
            "t2",
            "t3",
            "t4",
        ],
    );
}
