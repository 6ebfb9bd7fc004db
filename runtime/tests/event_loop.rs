//! The event loop's order, checked on scenarios that use no library: each
//! expected log was printed by Node 26.12.1 for the equivalent JavaScript
//! (plain CommonJS, run from a setImmediate callback).

use nodesem_lang::{parse, RunConfig};
use nodesem_runtime::{
    run_scenario, AddListenerOptions, Completion, Library, ObjectId, Runtime, Value,
};

/// A library layer with no operations: only the runtime's own.
struct NoLibrary;

/// What every library operation does here: the scenarios of this file use
/// none.
fn none<T>() -> T {
    unreachable!("these scenarios use no library operation")
}

impl Library for NoLibrary {
    fn new() -> Self {
        NoLibrary
    }
    fn new_abort_controller(_: &mut Runtime<Self>) -> Completion {
        none()
    }
    fn abort(_: &mut Runtime<Self>, _: Value, _: Option<Value>) -> Completion {
        none()
    }
    fn abort_signal_abort(_: &mut Runtime<Self>, _: Option<Value>) -> Completion {
        none()
    }
    fn abort_signal_timeout(_: &mut Runtime<Self>, _: u32) -> Completion {
        none()
    }
    fn abort_signal_any(_: &mut Runtime<Self>, _: Vec<Value>) -> Completion {
        none()
    }
    fn throw_if_aborted(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn set_onabort(_: &mut Runtime<Self>, _: Value, _: Value) -> Result<(), Value> {
        none()
    }
    fn add_abort_listener(_: &mut Runtime<Self>, _: Value, _: Value) -> Completion {
        none()
    }
    fn dispose(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn new_event_target(_: &mut Runtime<Self>) -> Completion {
        none()
    }
    fn add_event_listener(
        _: &mut Runtime<Self>,
        _: Value,
        _: &str,
        _: Value,
        _: AddListenerOptions,
    ) -> Completion {
        none()
    }
    fn remove_event_listener(
        _: &mut Runtime<Self>,
        _: Value,
        _: &str,
        _: Value,
        _: bool,
    ) -> Completion {
        none()
    }
    fn dispatch_new_event(_: &mut Runtime<Self>, _: Value, _: &str, _: bool) -> Completion {
        none()
    }
    fn prevent_default(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn stop_propagation(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn stop_immediate_propagation(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn get(_: &mut Runtime<Self>, _: ObjectId, _: &str) -> Completion {
        none()
    }
    fn describe(_: &Runtime<Self>, _: ObjectId) -> String {
        none()
    }
    fn listener_count(_: &Runtime<Self>, _: ObjectId, _: &str) -> u64 {
        0
    }
}

fn check(text: &str, expected: &[&str]) {
    let scenario = parse("test.scn", text).unwrap_or_else(|e| panic!("{e}"));
    let log = run_scenario::<NoLibrary>(&scenario, &RunConfig::default());
    assert_eq!(log.lines, expected, "\nscenario:\n{text}");
}

#[test]
fn ticks_before_microtasks_after_main() {
    check(
        "tick {\n  log \"A\"\n  microtask {\n    log \"A-micro\"\n  }\n}\nmicrotask {\n  log \"B\"\n  tick {\n    log \"B-tick\"\n  }\n}\nlog \"main\"\n",
        &["main", "A", "B", "A-micro", "B-tick"],
    );
}

#[test]
fn throwing_tick_interrupts_the_drain_until_the_next_macrotask() {
    check(
        r#"setImmediate {
  tick {
    log "t1"
    microtask {
      log "m-from-t1"
    }
    throw Error("x")
  }
  tick {
    log "t2"
  }
  microtask {
    log "m1"
  }
  setImmediate {
    log "next"
  }
}
"#,
        &["t1", "uncaught Error: x", "next", "t2", "m1", "m-from-t1"],
    );
}

#[test]
fn throwing_microtask_does_not_interrupt() {
    check(
        r#"microtask {
  log "m1"
  tick {
    log "t-from-m1"
  }
  throw Error("y")
}
microtask {
  log "m2"
}
tick {
  log "t1"
}
"#,
        &["t1", "m1", "uncaught Error: y", "m2", "t-from-m1"],
    );
}

#[test]
fn throwing_callbacks_skip_the_drain_before_the_next_in_the_phase() {
    check(
        r#"setImmediate {
  log "imm1"
  tick {
    log "t1"
  }
  microtask {
    log "m1"
  }
  throw Error("x")
}
setImmediate {
  log "imm2"
}
setTimeout 5 {
  log "T1"
  tick {
    log "Tt1"
  }
  throw Error("y")
}
setTimeout 5 {
  log "T2"
}
setTimeout 8 {
  log "T3"
  tick {
    log "T3t"
  }
  throw Error("z")
}
"#,
        &[
            "imm1",
            "uncaught Error: x",
            "imm2",
            "t1",
            "m1",
            "T1",
            "uncaught Error: y",
            "T2",
            "Tt1",
            "T3",
            "uncaught Error: z",
            "T3t",
        ],
    );
}

#[test]
fn leftover_ticks_run_before_exit() {
    check(
        r#"setImmediate {
  tick {
    log "t1"
    throw Error("a")
  }
  tick {
    log "t2"
    throw Error("b")
  }
  tick {
    log "t3"
  }
  setImmediate {
    log "I2"
  }
}
"#,
        &[
            "t1",
            "uncaught Error: a",
            "I2",
            "t2",
            "uncaught Error: b",
            "t3",
        ],
    );
}

#[test]
fn unhandled_rejections_after_the_drain() {
    check(
        r#"let r = rejected 1
tick {
  log "t1"
}
microtask {
  log "m1"
}
let p = rejected 2
microtask {
  catch p {
    log "caught2"
  }
}
"#,
        &["t1", "m1", "caught2", "unhandled rejection 1"],
    );
}

#[test]
fn timers_and_immediates_on_the_virtual_clock() {
    check(
        r#"setTimeout 0 {
  log "timeout 0"
}
setImmediate {
  log "immediate"
}
setTimeout 10 {
  log "t10"
  setTimeout 5 {
    log "t15 made at 10"
  }
}
setTimeout 15 {
  log "t15 made at 0"
}
let c = setTimeout 12 {
  log "cleared"
}
clearTimeout c
run advance 11
log "at 11"
run idle
log "idle"
"#,
        &[
            "immediate",
            "timeout 0",
            "t10",
            "at 11",
            "t15 made at 0",
            "t15 made at 10",
            "idle",
        ],
    );
}

#[test]
fn thenable_takes_one_extra_tick() {
    check(
        r#"let p = promise
let q = promise
then p {
  log "p resolved"
}
then q {
  log "q resolved"
}
let th = thenable 1
resolve p th
resolve q 2
microtask {
  log "m1"
  microtask {
    log "m2"
    microtask {
      log "m3"
    }
  }
}
"#,
        &["q resolved", "m1", "p resolved", "m2", "m3"],
    );
}

#[test]
fn budget_stops_a_runaway_scenario() {
    let text = "let f = fn {\n  setImmediate {\n    log \"again\"\n  }\n}\n";
    let _ = text;
    let scenario = parse(
        "t.scn",
        "setImmediate {\n  log \"1\"\n  setImmediate {\n    log \"2\"\n    setImmediate {\n      log \"3\"\n    }\n  }\n}\n",
    )
    .unwrap();
    let log = run_scenario::<NoLibrary>(
        &scenario,
        &RunConfig {
            budget: 2,
            ..RunConfig::default()
        },
    );
    assert_eq!(
        log.lines,
        vec!["1", "2", "budget exhausted: more than 2 callbacks"]
    );
}

#[test]
fn resolving_with_a_promise_takes_two_extra_ticks_and_finally_its_own() {
    check(
        r#"let p2 = promise
then p2 {
  log "p2 (resolved with promise)"
}
let one = resolved 1
resolve p2 one
microtask {
  log "m1"
  microtask {
    log "m2"
    microtask {
      log "m3"
    }
  }
}
let f = finally one {
  log "fin"
}
then f {
  log "after finally"
}
"#,
        &[
            "m1",
            "fin",
            "m2",
            "p2 (resolved with promise)",
            "m3",
            "after finally",
        ],
    );
}

#[test]
fn a_handled_uncaught_exception_queues_a_noop_immediate() {
    // Node 26.12.1 prints exactly this; the noop immediate queued after the
    // first exception drains `m1` before `imm3`.
    check(
        r#"tick {
  log "t1 throws"
  throw Error("t1")
}
microtask {
  log "m1"
}
setImmediate {
  log "imm2"
  tick {
    log "t2 throws"
    throw Error("t2")
  }
  setImmediate {
    log "imm3"
  }
}
"#,
        &[
            "t1 throws",
            "uncaught Error: t1",
            "imm2",
            "t2 throws",
            "uncaught Error: t2",
            "m1",
            "imm3",
        ],
    );
}

#[test]
fn after_the_last_immediate_of_a_batch_throws_the_immediates_queued_since_run_in_the_same_phase() {
    // Node 26.12.1 prints exactly this (cases A, B and C, each on its own).
    check(
        r#"setImmediate {
  log "I1"
  tick {
    log "t1"
  }
  setImmediate {
    log "I2 (queued by I1)"
  }
  throw Error("A")
}
"#,
        &["I1", "uncaught Error: A", "I2 (queued by I1)", "t1"],
    );
    check(
        r#"setImmediate {
  log "I1"
  tick {
    log "t1"
  }
  setImmediate {
    log "I3 (queued by I1)"
  }
  throw Error("B")
}
setImmediate {
  log "I2 sibling"
}
"#,
        &[
            "I1",
            "uncaught Error: B",
            "I2 sibling",
            "t1",
            "I3 (queued by I1)",
        ],
    );
    check(
        r#"setImmediate {
  log "I1"
  setImmediate {
    log "I3 (queued by I1)"
    tick {
      log "t3"
    }
  }
}
setImmediate {
  log "I2 throws"
  tick {
    log "t2"
  }
  throw Error("C")
}
"#,
        &[
            "I1",
            "I2 throws",
            "uncaught Error: C",
            "I3 (queued by I1)",
            "t2",
            "t3",
        ],
    );
}

#[test]
fn work_is_charged_per_statement_when_a_body_is_called() {
    // The main script costs 3 (two logs and the microtask statement), the
    // microtask's body 2 when it runs: a budget of 4 stops it as it starts,
    // a budget of 5 lets it finish.
    let text = "log \"a\"\nmicrotask {\n  log \"b\"\n  log \"c\"\n}\nlog \"d\"\n";
    let scenario = parse("t.scn", text).unwrap();
    let run = |work| {
        run_scenario::<NoLibrary>(
            &scenario,
            &RunConfig {
                work,
                ..RunConfig::default()
            },
        )
        .lines
    };
    assert_eq!(run(5), vec!["a", "d", "b", "c"]);
    assert_eq!(
        run(4),
        vec!["a", "d", "budget exhausted: more than 4 steps of work"]
    );
    assert_eq!(run(2), vec!["budget exhausted: more than 2 steps of work"]);
}

#[test]
fn a_log_past_its_byte_limit_stops_the_scenario() {
    // "abc\n" is 4 bytes, "é\n" 3 (UTF-8): 7 fit in 7, not in 6.
    let scenario = parse("t.scn", "log \"abc\"\nlog \"\u{e9}\"\nlog \"x\"\n").unwrap();
    let run = |max_log_bytes| {
        run_scenario::<NoLibrary>(
            &scenario,
            &RunConfig {
                max_log_bytes,
                ..RunConfig::default()
            },
        )
        .lines
    };
    assert_eq!(run(9), vec!["abc", "\u{e9}", "x"]);
    assert_eq!(
        run(8),
        vec![
            "abc",
            "\u{e9}",
            "budget exhausted: the log would be larger than 8 bytes"
        ]
    );
    assert_eq!(
        run(6),
        vec![
            "abc",
            "budget exhausted: the log would be larger than 6 bytes"
        ]
    );
}

#[test]
fn a_line_break_in_a_value_stays_one_log_line() {
    let scenario = parse("t.scn", "log \"a\\nb\\r\" \"c\"\nthrow Error(\"x\\ny\")\n").unwrap();
    let log = run_scenario::<NoLibrary>(&scenario, &RunConfig::default());
    assert_eq!(log.lines, vec!["a\\nb\\r c", "uncaught Error: x\\ny"]);
}

#[test]
fn a_frame_of_many_bindings_finds_each_of_them() {
    // Past 16 bindings a frame is indexed; every binding must still resolve.
    let mut text = String::new();
    for i in 0..40 {
        text.push_str(&format!("let v{i} = {i}\n"));
    }
    text.push_str("log v0 v15 v16 v17 v39\nmicrotask {\n  let v40 = 40\n  log v40 v39 v0\n}\n");
    let scenario = parse("t.scn", &text).unwrap();
    let log = run_scenario::<NoLibrary>(&scenario, &RunConfig::default());
    assert_eq!(log.lines, vec!["0 15 16 17 39", "40 39 0"]);
}
