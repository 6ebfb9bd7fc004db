//! impl's byte streams against the pinned Node 26.12.1: each test runs a
//! scenario (its text below) on impl and compares the log with the one the
//! pinned Node printed for it (`nodesem run --engine node`), copied here.
//! They cover BYOB reads filled by enqueue (partial, exact, split), `min`,
//! respond and respondWithNewView with their errors, close with a partly
//! filled pull-into, release with one, and the byte tee (a BYOB branch,
//! cancel promises settling before and after they are made, errors).

use nodesem_impl::ImplEngine;
use nodesem_lang::{parse, RunConfig};

fn impl_log(text: &str) -> Vec<String> {
    let scenario = parse("bytes.scn", text).unwrap_or_else(|e| panic!("{e}"));
    ImplEngine::default()
        .run_scenario(&scenario, &RunConfig::default())
        .lines
}

#[test]
fn byob_partial_exact_split() {
    let text = r#"# BYOB reads filled by enqueue: partial (chunk smaller), exact, split (chunk larger)
let rs = readable bytes start {
  setTimeout 1 {
    log "req" controller.byobRequest.view
    let a = bytes [1, 2]
    enqueue controller a
    log "after enqueue 1, req" controller.byobRequest
    ruler 2
  }
  setTimeout 2 {
    let b = bytes [3, 4]
    enqueue controller b
    ruler 2
  }
  setTimeout 3 {
    let c = bytes [5, 6, 7, 8, 9]
    enqueue controller c
    log "desired" controller.desiredSize
    ruler 3
  }
}
let r = getReader rs byob
let v1 = bytes 4
let p1 = read r v1
then p1 {
  log "p1" value.value value.done v1
}
run advance 1
let v2 = bytes 2
let p2 = read r v2
then p2 {
  log "p2" value.value
}
run advance 1
let v3 = bytes 2
let p3 = read r v3
then p3 {
  log "p3" value.value
}
let v4 = bytes 3
let p4 = read r v4
then p4 {
  log "p4" value.value
}
run advance 1
let v5 = bytes 4
let p5 = read r v5
then p5 {
  log "p5" value.value
}
ruler 2
"#;
    let node: &[&str] = &[
        "req Uint8Array(0, 0, 0, 0)",
        "after enqueue 1, req null",
        "p1 Uint8Array(1, 2) false Uint8Array()",
        "t1",
        "t2",
        "p2 Uint8Array(3, 4)",
        "t1",
        "t2",
        "desired 0",
        "p3 Uint8Array(5, 6)",
        "p4 Uint8Array(7, 8, 9)",
        "t1",
        "t2",
        "t3",
        "t1",
        "t2",
    ];
    assert_eq!(impl_log(text), node);
}

#[test]
fn min() {
    let text = r#"# read(view, { min }) waits for min bytes; min errors
let rs = readable bytes start {
  setTimeout 1 {
    let a = bytes [1]
    enqueue controller a
    log "view after 1" controller.byobRequest.view
    ruler 2
  }
  setTimeout 2 {
    let b = bytes [2, 3, 4, 5]
    enqueue controller b
    ruler 2
  }
}
let r = getReader rs byob
let v = bytes 4
let p = read r v min 3
then p {
  log "p" value.value
}
run advance 2
let w = bytes 2
let q = read r w
then q {
  log "q" value.value
}
ruler 2
let x = bytes 2
let bad = read r x min 3
catch bad {
  log "bad" reason reason.code
}
let bad2 = read r x min 0
catch bad2 {
  log "bad2" reason reason.code
}
let bad2b = read r x min 1.5
catch bad2b {
  log "bad2b" reason reason.code
}
let z = bytes 0
let bad3 = read r z
catch bad3 {
  log "bad3" reason reason.code
}
ruler 2
"#;
    let node: &[&str] = &[
        "view after 1 Uint8Array(0, 0, 0)",
        "t1",
        "t2",
        "p Uint8Array(1, 2, 3, 4)",
        "t1",
        "t2",
        "q Uint8Array(5)",
        "t1",
        "bad RangeError: The value of \"options.min\" is out of range. It must be <= view.length. Received 3 ERR_OUT_OF_RANGE",
        "bad2 TypeError: The property 'options.min' must be greater than 0. Received 0 ERR_INVALID_ARG_VALUE",
        "bad2b TypeError: The property 'options.min' must be an integer. Received 1.5 ERR_INVALID_ARG_VALUE",
        "bad3 TypeError: Invalid state: View or Viewed ArrayBuffer is zero-length or detached ERR_INVALID_STATE",
        "t1",
        "t2",
        "t2",
    ];
    assert_eq!(impl_log(text), node);
}

#[test]
fn respond() {
    let text = r#"# respond and respondWithNewView from pull, and their errors
let n = 0
let rs = readable bytes pull {
  set n add n 1
  let q = controller.byobRequest
  log "pull" n q.view
  if less n 2 {
    try {
      respond q 0
    }
    try {
      respond q 10
    }
    respond q 2
    log "after respond" q.view controller.byobRequest
    try {
      respond q 1
    }
  } else {
    let v = q.view
    let w = subarray v 0 1
    let u = subarray v 1 2
    try {
      respondWithNewView q u
    }
    respondWithNewView q w
    log "v after" v w
  }
}
let r = getReader rs byob
let a = bytes 3
let p = read r a
then p {
  log "p" value.value value.done a
}
ruler 3
let b = bytes 3
let p2 = read r b
then p2 {
  log "p2" value.value
}
ruler 3
"#;
    let node: &[&str] = &[
        "pull 1 Uint8Array(0, 0, 0)",
        "caught TypeError: The argument 'bytesWritten' is invalid. Received 0",
        "caught RangeError: The argument 'bytesWritten' is invalid. Received 10",
        "after respond null [ReadableStreamBYOBRequest]",
        "caught TypeError: Invalid state: This BYOB request has been invalidated",
        "t1",
        "t1",
        "p Uint8Array(0, 0) false Uint8Array()",
        "pull 2 Uint8Array(0, 0, 0)",
        "caught RangeError: The argument 'view' is invalid. Received Uint8Array(1) [ 0 ]",
        "v after Uint8Array() Uint8Array()",
        "t2",
        "t2",
        "p2 Uint8Array(0)",
        "t3",
        "t3",
    ];
    assert_eq!(impl_log(text), node);
}

#[test]
fn close_partial() {
    let text = r#"# close with a partially filled pull-into: respond 0 after close gives done with the bytes
let rs = readable bytes start {
  setTimeout 1 {
    let a = bytes [1]
    enqueue controller a
    close controller
    log "desired" controller.desiredSize
    let q = controller.byobRequest
    log "q view" q.view
    try {
      respond q 1
    }
    respond q 0
    ruler 3
  }
}
let r = getReader rs byob
let v = bytes 4
let p = read r v min 3
then p {
  log "p" value.value value.done
}
let w = bytes 2
let p2 = read r w
then p2 {
  log "p2" value.value value.done
}
then r.closed {
  log "closed"
}
run advance 1
let x = bytes 2
let p3 = read r x
then p3 {
  log "p3" value.value value.done
}
ruler 2
"#;
    let node: &[&str] = &[
        "desired 0",
        "q view Uint8Array(0, 0, 0)",
        "caught TypeError: The argument 'bytesWritten' is invalid. Received 1",
        "closed",
        "p Uint8Array(1) true",
        "p2 Uint8Array() true",
        "t1",
        "t2",
        "t3",
        "p3 Uint8Array() true",
        "t1",
        "t2",
    ];
    assert_eq!(impl_log(text), node);
}

#[test]
fn release_pending_then_enqueue() {
    let text = r#"# releaseLock with a partly filled pull-into: the bytes go back to the queue
let rs = readable bytes start {
  setTimeout 1 {
    let a = bytes [1, 2]
    enqueue controller a
    log "desired" controller.desiredSize
  }
  setTimeout 2 {
    log "desired" controller.desiredSize controller.byobRequest
    let b = bytes [3]
    enqueue controller b
    log "desired" controller.desiredSize
  }
}
let r = getReader rs byob
let v = bytes 4
let p = read r v min 4
catch p {
  log "p rejected" reason.code
}
run advance 1
releaseLock r
run advance 1
let r2 = getReader rs
let q = read r2
then q {
  log "q" value.value
}
let q2 = read r2
then q2 {
  log "q2" value.value
}
ruler 3
"#;
    let node: &[&str] = &[
        "desired 0",
        "p rejected ERR_INVALID_STATE",
        "desired 0 [ReadableStreamBYOBRequest]",
        "desired -3",
        "q Uint8Array(1, 2)",
        "q2 Uint8Array(3)",
        "t1",
        "t2",
        "t3",
    ];
    assert_eq!(impl_log(text), node);
}

#[test]
fn tee_byob_branch() {
    let text = r#"# byte tee: a BYOB reader on one branch; the other gets a clone
let rs = readable bytes start {
  setTimeout 1 {
    let x = bytes [7, 8, 9]
    enqueue controller x
    ruler 4
  }
  setTimeout 2 {
    close controller
    ruler 4
  }
}
let [b1, b2] = tee rs
let r1 = getReader b1 byob
let r2 = getReader b2
let v = bytes 2
let p1 = read r1 v
then p1 {
  log "r1" value.value
}
let p2 = read r2
then p2 {
  log "r2" value.value
}
ruler 2
run advance 1
let w = bytes 4
let p3 = read r1 w
then p3 {
  log "r1b" value.value value.done
}
let p4 = read r2
then p4 {
  log "r2b" value.value value.done
}
ruler 4
run advance 1
let u = bytes 4
let p5 = read r1 u
then p5 {
  log "r1c" value.value value.done
}
ruler 3
"#;
    let node: &[&str] = &[
        "t1",
        "t2",
        "t1",
        "r1 Uint8Array(7, 8)",
        "r2 Uint8Array(7, 8)",
        "t2",
        "t3",
        "t4",
        "t1",
        "r1b Uint8Array(9) false",
        "r2b Uint8Array(9) false",
        "t2",
        "t3",
        "t4",
        "t1",
        "t2",
        "t3",
        "t4",
        "r1c Uint8Array() true",
        "t1",
        "t2",
        "t3",
    ];
    assert_eq!(impl_log(text), node);
}

#[test]
fn tee_cancel_settle() {
    let text = r#"# byte tee cancel promise: cancel one then close the source; close then cancel both; cancel both
let rs1 = readable bytes start {
  setTimeout 1 {
    close controller
    ruler 3
  }
} cancel {
  log "cancel1 (never)" reason
}
let [a1, a2] = tee rs1
let x = cancel a1 "one"
then x {
  log "a1 cancelled" value
}
ruler 2
run advance 1
let rs2 = readable bytes start {
  close controller
}
let [d1, d2] = tee rs2
ruler 2
let y1 = cancel d1 "p"
then y1 {
  log "d1 cancelled" value
}
let y2 = cancel d2 "q"
then y2 {
  log "d2 cancelled" value
}
ruler 3
let rs3 = readable bytes cancel {
  log "source cancel" reason
}
let [e1, e2] = tee rs3
let z1 = cancel e1 "r1"
then z1 {
  log "e1 cancelled" value
}
ruler 2
let z2 = cancel e2 "r2"
then z2 {
  log "e2 cancelled" value
}
log "same" same z1 z2
ruler 3
"#;
    let node: &[&str] = &[
        "t1",
        "t2",
        "t1",
        "t2",
        "t3",
        "source cancel Array(r1, r2)",
        "same false",
        "t1",
        "t1",
        "t1",
        "t1",
        "t2",
        "t2",
        "t2",
        "t2",
        "t3",
        "t3",
        "d1 cancelled undefined",
        "d2 cancelled undefined",
        "e1 cancelled undefined",
        "e2 cancelled undefined",
    ];
    assert_eq!(impl_log(text), node);
}

#[test]
fn tee_error() {
    let text = r#"# byte tee: cancel one then error the source; tee of an errored byte source
let rs1 = readable bytes start {
  setTimeout 1 {
    error controller "bad"
    ruler 3
  }
}
let [a1, a2] = tee rs1
let r2 = getReader a2
catch r2.closed {
  log "a2 closed rejected" reason
}
let x = cancel a1 "one"
then x {
  log "a1 cancelled" value
}
ruler 2
run advance 1
let rs2 = readable bytes start {
  error controller "early"
}
let [b1, b2] = tee rs2
let q1 = getReader b1
catch q1.closed {
  log "b1 closed rejected" reason
}
let y = cancel b2 "late"
then y {
  log "b2 cancel" value
}
catch y {
  log "b2 cancel rejected" reason
}
ruler 4
"#;
    let node: &[&str] = &[
        "t1",
        "t2",
        "t1",
        "a2 closed rejected bad",
        "t2",
        "a1 cancelled undefined",
        "t3",
        "t1",
        "b1 closed rejected early",
        "t2",
        "b2 cancel undefined",
        "t3",
        "t4",
    ];
    assert_eq!(impl_log(text), node);
}

#[test]
fn tee_cancel_with_pending_byob() {
    let text = r#"# byte tee: cancel a branch with a BYOB read pending, then the source closes with BYOB reads pending
let rs = readable bytes start {
  setTimeout 1 {
    let x = bytes [1, 2, 3]
    enqueue controller x
    ruler 3
  }
  setTimeout 2 {
    close controller
    ruler 4
  }
} cancel {
  log "source cancel" reason
}
let [b1, b2] = tee rs
let r1 = getReader b1 byob
let r2 = getReader b2 byob
let v = bytes 2
let p1 = read r1 v
then p1 {
  log "r1" value.value value.done
}
let w = bytes 4
let p2 = read r2 w
then p2 {
  log "r2" value.value value.done
}
run advance 1
let u = bytes 4
let p3 = read r2 u
then p3 {
  log "r2b" value.value value.done
}
let c = cancel r1 "bye"
then c {
  log "r1 cancel" value
}
ruler 2
run advance 1
let z = bytes 4
let p4 = read r2 z
then p4 {
  log "r2c" value.value value.done
}
ruler 3
"#;
    let node: &[&str] = &[
        "t1",
        "r1 Uint8Array(1, 2) false",
        "r2 Uint8Array(1, 2) false",
        "t2",
        "t3",
        "t1",
        "r2b Uint8Array(3) false",
        "t2",
        "t1",
        "t2",
        "t3",
        "t4",
        "r2c Uint8Array() true",
        "t1",
        "r1 cancel undefined",
        "t2",
        "t3",
    ];
    assert_eq!(impl_log(text), node);
}
