//! WritableStream, its default controller and writer in impl, run from scenario scripts and compared with the
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

/// Writes under the highwatermark, then close: the sink methods, the write promises, `ready`, `closed` and `desiredsize` on their ticks.
#[test]
fn w_basic() {
    node_log(
        "w_basic.scn",
        r#"# writer write/close, ready, closed, desiredSize
let ws = writable highWaterMark 2 start {
  log "start"
} write {
  log "write" chunk
} close {
  log "sink close"
} abort {
  log "sink abort" reason
}
let w = getWriter ws
log "desired" w.desiredSize
log "locked" ws.locked
let p1 = write w "a"
log "desired" w.desiredSize
let p2 = write w "b"
log "desired" w.desiredSize
then w.ready {
  log "ready"
}
then p1 {
  log "p1"
}
then p2 {
  log "p2"
}
let c = close w
then c {
  log "closed promise of close"
}
then w.closed {
  log "writer closed"
}
ruler 8
"#,
        &[
            "start",
            "desired 2",
            "locked true",
            "desired 1",
            "desired 0",
            "write a",
            "ready",
            "t1",
            "write b",
            "t2",
            "p1",
            "sink close",
            "t3",
            "p2",
            "t4",
            "closed promise of close",
            "writer closed",
            "t5",
            "t6",
            "t7",
            "t8",
        ],
    );
}

/// A pending sink write holds the queue: `desiredsize` goes negative, `ready` waits until the writes drain.
#[test]
fn w_backpressure() {
    node_log(
        "w_backpressure.scn",
        r#"# backpressure with a pending sink write
let gate = promise
let ws = writable highWaterMark 1 write {
  log "write" chunk
  return gate
}
let w = getWriter ws
let p1 = write w "a"
let p2 = write w "b"
log "desired" w.desiredSize
then w.ready {
  log "ready fulfilled"
}
then p1 {
  log "p1"
}
then p2 {
  log "p2"
}
ruler 3
setTimeout 1 {
  log "open"
  resolve gate 1
  ruler 6
}
"#,
        &[
            "desired -1",
            "write a",
            "t1",
            "t2",
            "t3",
            "open",
            "write b",
            "t1",
            "p1",
            "t2",
            "p2",
            "ready fulfilled",
            "t3",
            "t4",
            "t5",
            "t6",
        ],
    );
}

/// Abort with writes queued: the controller's signal fires at once, the sink abort runs after start, the queued write, `ready` and `closed` reject.
#[test]
fn w_abort() {
    node_log(
        "w_abort.scn",
        r#"# abort while a write is in flight; signal fires
let gate = promise
let ws = writable start {
  onabort controller.signal {
    log "signal abort" controller.signal.reason
  }
} write {
  log "write" chunk
  return gate
} abort {
  log "sink abort" reason
}
let w = getWriter ws
let p1 = write w "a"
let p2 = write w "b"
catch p2 {
  log "p2 rejected" reason
}
let a = abort w "why"
then a {
  log "abort fulfilled"
}
catch w.closed {
  log "closed rejected" reason
}
catch w.ready {
  log "ready rejected" reason
}
log "desired" w.desiredSize
ruler 4
setTimeout 1 {
  resolve gate 1
  ruler 6
}
"#,
        &[
            "signal abort why",
            "desired null",
            "sink abort why",
            "ready rejected why",
            "t1",
            "p2 rejected why",
            "t2",
            "abort fulfilled",
            "closed rejected why",
            "t3",
            "t4",
            "unhandled rejection why",
            "t1",
            "t2",
            "t3",
            "t4",
            "t5",
            "t6",
        ],
    );
}

/// A sink write that throws errors the stream; writes after it reject with the error, a released writer with the released error.
#[test]
fn w_errors() {
    node_log(
        "w_errors.scn",
        r#"# controller.error, sink write throwing, release lock
let ws = writable start {
  log "start"
} write {
  log "write" chunk
  throw Error("bad write")
}
let w = getWriter ws
let p1 = write w "a"
catch p1 {
  log "p1" reason
}
catch w.closed {
  log "closed" reason
}
ruler 4
setTimeout 1 {
  let p2 = write w "b"
  catch p2 {
    log "p2" reason
  }
  log "desired" w.desiredSize
  releaseLock w
  catch w.closed {
    log "closed after release" reason
  }
  let p3 = write w "c"
  catch p3 {
    log "p3" reason
  }
  let w2 = getWriter ws
  catch w2.closed {
    log "w2 closed" reason
  }
  ruler 3
}
"#,
        &[
            "start",
            "write a",
            "t1",
            "t2",
            "p1 Error: bad write",
            "closed Error: bad write",
            "t3",
            "t4",
            "desired null",
            "p2 Error: bad write",
            "closed after release TypeError: Invalid state: Writer has been released",
            "p3 TypeError: Invalid state: Writer is not bound to a WritableStream",
            "w2 closed Error: bad write",
            "t1",
            "t2",
            "t3",
        ],
    );
}

/// Controller.error from a timer rejects `closed` and `ready`; close of a locked stream rejects.
#[test]
fn w_controller_error() {
    node_log(
        "w_controller_error.scn",
        r#"let ws = writable start {
  setTimeout 1 {
    error controller "boom"
    ruler 3
  }
} abort {
  log "sink abort" reason
}
let w = getWriter ws
catch w.closed {
  log "closed" reason
}
catch w.ready {
  log "ready" reason
}
let c = close ws
catch c {
  log "close of locked" reason
}
ruler 2
"#,
        &[
            "close of locked TypeError: Invalid state: WritableStream is locked",
            "t1",
            "t2",
            "closed boom",
            "t1",
            "t2",
            "t3",
        ],
    );
}

/// A script size: called per write with the chunk, its result counted in `desiredsize`; a throwing size errors the stream.
#[test]
fn w_size() {
    node_log(
        "w_size.scn",
        r#"let n = 0
let ws = writable highWaterMark 5 size {
  set n add n 1
  log "size" chunk
  if same n 3 {
    throw Error("size threw")
  }
  return 2
} write {
  log "write" chunk
}
let w = getWriter ws
let p1 = write w "a"
log "desired" w.desiredSize
let p2 = write w "b"
log "desired" w.desiredSize
let p3 = write w "c"
catch p3 {
  log "p3" reason
}
catch p2 {
  log "p2" reason
}
then p1 {
  log "p1"
}
catch w.closed {
  log "closed" reason
}
log "desired" w.desiredSize
ruler 4
"#,
        &[
            "size a",
            "desired 3",
            "size b",
            "desired 1",
            "size c",
            "desired null",
            "p3 Error: size threw",
            "t1",
            "p2 Error: size threw",
            "closed Error: size threw",
            "t2",
            "t3",
            "t4",
            "unhandled rejection Error: size threw",
        ],
    );
}

/// Invalid sizes (negative, not a number) reject the write with node's rangeerror.
#[test]
fn w_size_invalid() {
    node_log(
        "w_size_invalid.scn",
        r#"let ws = writable size {
  return -1
}
let w = getWriter ws
let p1 = write w "a"
catch p1 {
  log "p1" reason
}
let ws2 = writable size {
  return "x"
}
let w2 = getWriter ws2
let p2 = write w2 "a"
catch p2 {
  log "p2" reason
}
ruler 2
"#,
        &[
            "t1",
            "p1 RangeError: The argument 'size' is invalid. Received -1",
            "p2 RangeError: The argument 'size' is invalid. Received 'x'",
            "t2",
        ],
    );
}

/// ReadableStream size strategies: sizes counted in desiredSize, an invalid or throwing size errors the stream and throws from enqueue.
#[test]
fn r_size() {
    node_log(
        "r_size.scn",
        r#"let rs = readable highWaterMark 4 size {
  log "size" chunk
  return chunk
} start {
  enqueue controller 1
  log "desired" controller.desiredSize
  enqueue controller 2
  log "desired" controller.desiredSize
  try {
    enqueue controller -1
  }
  log "desired" controller.desiredSize
}
let r = getReader rs
catch r.closed {
  log "closed" reason
}
ruler 2
let rs2 = readable highWaterMark 2 size {
  throw Error("size boom")
} start {
  try {
    enqueue controller "z"
  }
}
let r2 = getReader rs2
catch r2.closed {
  log "closed2" reason
}
let rs3 = readable highWaterMark 3 size {
  return 2
} pull {
  log "pull" controller.desiredSize
  enqueue controller "p"
}
let r3 = getReader rs3
let q = read r3
then q {
  log "read" value
  log "desired after read"
}
ruler 4
"#,
        &[
            "size 1",
            "desired 3",
            "size 2",
            "desired 1",
            "size -1",
            "caught RangeError: The argument 'size' is invalid. Received -1",
            "desired null",
            "caught Error: size boom",
            "closed RangeError: The argument 'size' is invalid. Received -1",
            "t1",
            "closed2 Error: size boom",
            "pull 3",
            "t1",
            "t2",
            "read {value: p, done: false}",
            "desired after read",
            "pull 3",
            "t2",
            "pull 1",
            "t3",
            "t4",
        ],
    );
}

/// Abort while the sink close is in flight: the abort promise follows the close.
#[test]
fn w2_close_then_abort() {
    node_log(
        "w2_close_then_abort.scn",
        r#"let gate = promise
let ws = writable close {
  log "sink close"
  return gate
} abort {
  log "sink abort" reason
}
let w = getWriter ws
let c = close w
then c {
  log "close done"
}
ruler 2
setTimeout 1 {
  let a = abort w "late"
  then a {
    log "abort done"
  }
  catch a {
    log "abort rejected" reason
  }
  log "desired" w.desiredSize
  catch w.ready {
    log "ready" reason
  }
  then w.closed {
    log "closed fulfilled"
  }
  resolve gate 0
  ruler 6
}
"#,
        &[
            "sink close",
            "t1",
            "t2",
            "desired null",
            "ready late",
            "t1",
            "t2",
            "close done",
            "abort done",
            "closed fulfilled",
            "t3",
            "t4",
            "t5",
            "t6",
        ],
    );
}

/// Abort without a reason: the signal gets the default AbortError, a second abort returns the same promise.
#[test]
fn w2_abort_no_reason() {
    node_log(
        "w2_abort_no_reason.scn",
        r#"let ws = writable start {
  onabort controller.signal {
    log "aborted" controller.signal.reason
  }
} abort {
  log "sink abort" reason
}
setTimeout 1 {
  let a = abort ws
  then a {
    log "abort done"
  }
  let a2 = abort ws "again"
  log "same" same a a2
  let w = getWriter ws
  catch w.closed {
    log "closed" reason
  }
  ruler 4
}
"#,
        &[
            "aborted AbortError: This operation was aborted",
            "sink abort undefined",
            "same false",
            "closed undefined",
            "t1",
            "abort done",
            "t2",
            "t3",
            "t4",
        ],
    );
}

/// ReleaseLock with a pending ready: ready and the pending write reject with the released error, desiredSize throws.
#[test]
fn w2_release_ready() {
    node_log(
        "w2_release_ready.scn",
        r#"let gate = promise
let ws = writable highWaterMark 1 write {
  return gate
}
let w = getWriter ws
let p = write w "a"
let r1 = w.ready
catch r1 {
  log "r1" reason
}
setTimeout 1 {
  let p2 = write w "b"
  releaseLock w
  catch w.ready {
    log "ready after release" reason
  }
  catch p2 {
    log "p2" reason
  }
  try {
    log w.desiredSize
  }
  let w2 = getWriter ws
  log "w2 desired" w2.desiredSize
  then w2.ready {
    log "w2 ready"
  }
  resolve gate 0
  ruler 6
}
"#,
        &[
            "caught TypeError: Invalid state: Writer is not bound to a WritableStream",
            "w2 desired -1",
            "r1 TypeError: Invalid state: Writer has been released",
            "ready after release TypeError: Invalid state: Writer has been released",
            "t1",
            "t2",
            "w2 ready",
            "t3",
            "t4",
            "t5",
            "t6",
        ],
    );
}

/// Start returning a pending promise holds the writes; a rejected one errors the stream.
#[test]
fn w2_start_promise() {
    node_log(
        "w2_start_promise.scn",
        r#"let gate = promise
let ws = writable start {
  log "start"
  return gate
} write {
  log "write" chunk
}
let w = getWriter ws
let p = write w "x"
then p {
  log "written"
}
ruler 3
setTimeout 1 {
  resolve gate 0
  ruler 6
}
let ws2 = writable start {
  let bad = rejected "start bad"
  return bad
}
let w2 = getWriter ws2
catch w2.closed {
  log "w2 closed" reason
}
"#,
        &[
            "start",
            "t1",
            "t2",
            "t3",
            "w2 closed start bad",
            "t1",
            "write x",
            "t2",
            "t3",
            "written",
            "t4",
            "t5",
            "t6",
        ],
    );
}

/// A fractional size counted in desiredSize, with a write held.
#[test]
fn e_size_write_desired() {
    node_log(
        "e_size_write_desired.scn",
        r#"let never = promise
let ws = writable highWaterMark 3 size {
  return 1.5
} write {
  log "write" chunk
  return never
}
let w = getWriter ws
let a = write w "a"
log "d" w.desiredSize
let b = write w "b"
log "d" w.desiredSize
then w.ready {
  log "ready"
}
ruler 4
log "d" w.desiredSize
"#,
        &["d 1.5", "d 0", "d 0", "write a", "t1", "t2", "t3", "t4"],
    );
}

/// Abort before start completes: the sink abort runs after start, the queued write rejects with
/// the reason, and `closed` waits for the sink abort's promise, which never settles.
#[test]
fn e_writer_closed_erroring() {
    node_log(
        "e_writer_closed_erroring.scn",
        r#"let never = promise
let gate = promise
let ws = writable write {
  log "write"
  return gate
} abort {
  log "abort" reason
  return never
}
let w = getWriter ws
let p = write w 1
let a = abort w "r"
catch w.closed {
  log "closed rejected" reason
}
setTimeout 1 {
  reject gate "write failed"
  ruler 6
  catch p {
    log "p" reason
  }
}
"#,
        &[
            "abort r",
            "unhandled rejection r",
            "t1",
            "p r",
            "t2",
            "t3",
            "t4",
            "t5",
            "t6",
            "rejection handled [Promise]",
            "unhandled rejection write failed",
        ],
    );
}

/// Script sizes of every kind of value: strings, booleans, null, hex and empty strings coerced as `+value`; undefined, Infinity, objects, quoted strings, symbols and overflowing strings refused with Node's errors; -0 counts 0.
#[test]
fn s_values() {
    node_log(
        "s_values.scn",
        r#"let i = 0
let rs = readable highWaterMark 100 size {
  set i add i 1
  log "size this" this
  if same i 1 {
    return "3"
  }
  if same i 2 {
    return true
  }
  if same i 3 {
    return null
  }
  if same i 4 {
    return " 0x10 "
  }
  if same i 5 {
    return ""
  }
  return 2.5
} start {
  enqueue controller "a"
  log controller.desiredSize
  enqueue controller "b"
  log controller.desiredSize
  enqueue controller "c"
  log controller.desiredSize
  enqueue controller "d"
  log controller.desiredSize
  enqueue controller "e"
  log controller.desiredSize
  enqueue controller "f"
  log controller.desiredSize
}
let ws = writable size {
  return undefined
}
let w = getWriter ws
let p = write w 1
catch p {
  log "undefined" reason
}
let ws2 = writable size {
  return Infinity
}
let w2 = getWriter ws2
let p2 = write w2 1
catch p2 {
  log "Infinity" reason
}
let ws3 = writable size {
  return {}
}
let w3 = getWriter ws3
let p3 = write w3 1
catch p3 {
  log "object" reason
}
let ws4 = writable size {
  return "a'b"
}
let w4 = getWriter ws4
let p4 = write w4 1
catch p4 {
  log "quote" reason
}
let ws5 = writable size {
  return Symbol("s")
}
let w5 = getWriter ws5
let p5 = write w5 1
catch p5 {
  log "symbol" reason
}
let ws6 = writable highWaterMark 1 size {
  return -0
}
let w6 = getWriter ws6
let p6 = write w6 1
log "minus zero" w6.desiredSize
let ws7 = writable size {
  return "1e400"
}
let w7 = getWriter ws7
let p7 = write w7 1
catch p7 {
  log "1e400" reason
}
ruler 3
"#,
        &[
            "size this undefined",
            "97",
            "size this undefined",
            "96",
            "size this undefined",
            "96",
            "size this undefined",
            "80",
            "size this undefined",
            "80",
            "size this undefined",
            "77.5",
            "minus zero 1",
            "t1",
            "undefined RangeError: The argument 'size' is invalid. Received undefined",
            "Infinity RangeError: The argument 'size' is invalid. Received Infinity",
            "object RangeError: The argument 'size' is invalid. Received {}",
            "quote RangeError: The argument 'size' is invalid. Received \"a'b\"",
            "symbol TypeError: Cannot convert a Symbol value to a number",
            "1e400 RangeError: The argument 'size' is invalid. Received '1e400'",
            "t2",
            "t3",
        ],
    );
}

/// Every operation on a closing, closed, released and errored stream: the promises and errors Node gives.
#[test]
fn w3_states() {
    node_log(
        "w3_states.scn",
        r#"let ws = writable close {
  log "sink close"
}
let c = close ws
then c {
  log "stream close done"
}
let c2 = close ws
catch c2 {
  log "close twice" reason
}
let w = getWriter ws
log "desired closing" w.desiredSize
then w.ready {
  log "ready while closing"
}
let p = write w "late"
catch p {
  log "write while closing" reason
}
let c3 = close w
catch c3 {
  log "writer close while closing" reason
}
ruler 3
setTimeout 1 {
  log "desired closed" w.desiredSize
  then w.closed {
    log "closed"
  }
  let a = abort w "x"
  then a {
    log "abort closed resolved"
  }
  releaseLock w
  catch w.closed {
    log "closed after release" reason
  }
  catch w.ready {
    log "ready after release" reason
  }
  let a2 = abort w "y"
  catch a2 {
    log "abort released" reason
  }
  let w2 = getWriter ws
  then w2.closed {
    log "w2 closed"
  }
  then w2.ready {
    log "w2 ready"
  }
  let c4 = close w2
  catch c4 {
    log "close closed" reason
  }
  ruler 3
}
let es = writable start {
  error controller "E"
}
setTimeout 2 {
  let we = getWriter es
  log "errored desired" we.desiredSize
  catch we.ready {
    log "errored ready" reason
  }
  catch we.closed {
    log "errored closed" reason
  }
  let pe = write we 1
  catch pe {
    log "errored write" reason
  }
  let ce = close we
  catch ce {
    log "errored close" reason
  }
  let ae = abort es "A"
  catch ae {
    log "abort locked" reason
  }
  releaseLock we
  let ae2 = abort es "A"
  then ae2 {
    log "abort errored resolved"
  }
  let ge = getWriter es
  let ge2 = getWriter es
}
"#,
        &[
            "desired closing 1",
            "sink close",
            "close twice TypeError: Invalid state: Failure closing WritableStream",
            "ready while closing",
            "write while closing TypeError: Invalid state: WritableStream is closed",
            "writer close while closing TypeError: Invalid state: Failure to close WritableStream",
            "t1",
            "t2",
            "stream close done",
            "t3",
            "desired closed 0",
            "closed",
            "abort closed resolved",
            "closed after release TypeError: Invalid state: Writer has been released",
            "ready after release TypeError: Invalid state: Writer has been released",
            "abort released TypeError: Invalid state: Writer is not bound to a WritableStream",
            "w2 closed",
            "w2 ready",
            "close closed TypeError: Invalid state: WritableStream is closed",
            "t1",
            "t2",
            "t3",
            "errored desired null",
            "uncaught TypeError: Invalid state: WritableStream is locked",
            "errored ready E",
            "errored closed E",
            "errored write E",
            "errored close TypeError: Invalid state: WritableStream is closed",
            "abort locked TypeError: Invalid state: WritableStream is locked",
            "abort errored resolved",
        ],
    );
}
