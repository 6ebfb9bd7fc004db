//! The optimized implementation against Node 26.12.1: each scenario's
//! expected log was printed by the pinned Node for the equivalent
//! JavaScript, the case of the same name in `tests/oracle/cases.mjs`
//! (re-run it with the command at the top of that file).

use nodesem_impl::ImplEngine;
use nodesem_lang::{parse, RunConfig};

/// Runs `text` on the implementation and compares its log with `expected`.
fn check(text: &str, expected: &[&str]) {
    let scenario = parse("test.scn", text).unwrap_or_else(|e| panic!("{e}"));
    let log = ImplEngine::default().run_scenario(&scenario, &RunConfig::default());
    assert_eq!(log.lines, expected, "\nscenario:\n{text}");
}

#[test]
fn abort_marks_every_dependant_before_any_event_fires() {
    check(
        r#"let a = controller
let b = controller
let ab = any [a.signal, b.signal]
let only_a = any [a.signal]
on a.signal abort {
  log "a fired" ab.aborted only_a.aborted
}
on ab abort {
  log "ab fired" ab.reason
}
on only_a abort {
  log "only_a fired"
}
microtask {
  log "microtask"
}
abort a "boom"
log "after abort"
"#,
        &[
            "a fired true true",
            "ab fired boom",
            "only_a fired",
            "after abort",
            "microtask",
        ],
    );
}

#[test]
fn default_reason_and_throw_if_aborted() {
    check(
        r#"let c = controller
let s = c.signal
log s.aborted s.reason
try {
  throwIfAborted s
  log "not thrown"
}
abort c
log s.aborted s.reason s.reason.name s.reason.message
try {
  throwIfAborted s
}
let d = controller
abort d undefined
log d.signal.reason
let e = aborted
log e.aborted e.reason
let f = aborted null
log f.reason
let g = aborted Error("why")
try {
  throwIfAborted g
}
"#,
        &[
            "false undefined",
            "not thrown",
            "true AbortError: This operation was aborted AbortError This operation was aborted",
            "caught AbortError: This operation was aborted",
            "AbortError: This operation was aborted",
            "true AbortError: This operation was aborted",
            "null",
            "caught Error: why",
        ],
    );
}

#[test]
fn reentrant_abort_fires_once_and_keeps_the_first_reason() {
    check(
        r#"let c = controller
on c.signal abort {
  log "fired" c.signal.reason
  abort c "second"
  log "after inner abort" c.signal.reason
}
abort c "first"
abort c "third"
log c.signal.reason
"#,
        &["fired first", "after inner abort first", "first"],
    );
}

#[test]
fn timeout_signal_fires_on_the_virtual_clock_and_keeps_nothing_alive() {
    check(
        r#"let t = timeout 10
on t abort {
  log "t fired" event.isTrusted t.reason
}
run advance 5
log "at 5" t.aborted
run advance 10
log "at 15" t.aborted
let u = timeout 5
on u abort {
  log "u never fires"
}
"#,
        &[
            "at 5 false",
            "t fired true TimeoutError: The operation was aborted due to timeout",
            "at 15 true",
        ],
    );
}

#[test]
fn timeout_in_any_with_a_refd_timer() {
    check(
        r#"let c = controller
let t = timeout 5
let x = any [c.signal, t]
on x abort {
  log "x" x.reason t.aborted
}
setTimeout 20 {
  log "t20" x.aborted
}
"#,
        &[
            "x TimeoutError: The operation was aborted due to timeout true",
            "t20 true",
        ],
    );
}

#[test]
fn any_with_an_already_aborted_source_is_born_aborted() {
    check(
        r#"let c = controller
let a = aborted "early"
let x = any [c.signal, a]
log x.aborted x.reason
on x abort {
  log "never"
}
abort c "late"
log x.reason c.signal.reason
let e = any []
log e.aborted
let n = any [e]
abort c
log n.aborted
"#,
        &["true early", "early late", "false", "false"],
    );
}

#[test]
fn any_nested_and_duplicate_sources() {
    check(
        r#"let a = controller
let b = controller
let ab = any [a.signal, b.signal]
let dup = any [a.signal, a.signal]
let nested = any [ab, b.signal]
on nested abort {
  log "nested" nested.reason ab.aborted dup.aborted
}
on dup abort {
  log "dup" dup.reason
}
on ab abort {
  log "ab" ab.reason nested.aborted
}
on b.signal abort {
  log "b" ab.aborted nested.aborted dup.aborted
}
abort b "B"
log "after" dup.aborted
abort a "A"
log dup.reason
"#,
        &[
            "b true true false",
            "ab B true",
            "nested B true false",
            "after false",
            "dup A",
            "A",
        ],
    );
}

#[test]
fn onabort_keeps_the_position_where_it_was_first_set() {
    check(
        r#"let c = controller
let s = c.signal
on s abort {
  log "L1"
}
onabort s {
  log "H1"
}
on s abort {
  log "L2"
}
onabort s {
  log "H2" event.type
}
log s.onabort
abort c
onabort s null
log s.onabort
"#,
        &["[Function]", "L1", "H2 abort", "L2", "null"],
    );
}

#[test]
fn onabort_set_to_null_and_back_keeps_its_place() {
    check(
        r#"let c = controller
let s = c.signal
onabort s {
  log "first"
}
on s abort {
  log "L"
}
onabort s null
onabort s {
  log "second"
}
abort c
"#,
        &["second", "L"],
    );
}

#[test]
fn onabort_is_lost_when_its_list_was_emptied_while_null() {
    // Node's size accounting does not count a wrapper whose handler is null,
    // so removing `h` empties the list and drops its root with the wrapper
    // still linked to it; the new handler then counts itself into the new
    // root without being in it.
    check(
        r#"let c = controller
let s = c.signal
onabort s {
  log "first"
}
onabort s null
let h = fn {
  log "h"
}
on s abort h
off s abort h
on s abort {
  log "k"
}
onabort s {
  log "g"
}
abort c
log s.onabort
"#,
        &["k", "[Function]"],
    );
}

#[test]
fn add_abort_listener_on_an_aborted_signal_runs_in_a_microtask() {
    // NODE 26.12.1 calls the listener with a trusted abort event (not with
    // no argument), marked as being dispatched during the call.
    check(
        r#"let s = aborted "r"
tick {
  log "tick"
}
microtask {
  log "m1"
}
let d = addAbortListener s {
  log "listener" event.type event.isTrusted event.eventPhase event.target s.reason
  microtask {
    log "later phase" event.eventPhase
  }
}
let d2 = addAbortListener s {
  log "disposed: never"
}
dispose d2
microtask {
  log "m2"
}
log "sync" d
"#,
        &[
            "sync [Object]",
            "tick",
            "m1",
            "listener abort true 2 [AbortSignal] r",
            "m2",
            "later phase 0",
        ],
    );
}

#[test]
fn add_abort_listener_resists_stop_immediate_propagation() {
    check(
        r#"let c = controller
let s = c.signal
on s abort {
  log "first stops"
  stopImmediatePropagation event
}
let d = addAbortListener s {
  log "abort listener" event.cancelBubble
}
on s abort {
  log "never: stopped"
}
let c2 = controller
let d2 = addAbortListener c2.signal {
  log "never: disposed"
}
dispose d2
dispose d2
abort c2
abort c
"#,
        &["first stops", "abort listener true"],
    );
}

#[test]
fn dispose_removes_a_listener_that_add_abort_listener_found_already_there() {
    check(
        r#"let c = controller
let f = fn {
  log "f" event.isTrusted
}
on c.signal abort f
let d = addAbortListener c.signal f
dispose d
abort c
log "f was removed by dispose"
"#,
        &["f was removed by dispose"],
    );
}

#[test]
fn once_listener_runs_once_even_when_dispatch_recurses() {
    check(
        r#"let t = target
on t x once {
  log "once" event.eventPhase
  dispatch t x
}
on t x {
  log "plain"
}
dispatch t x
dispatch t x
"#,
        &["once 2", "plain", "plain", "plain"],
    );
}

#[test]
fn capture_flag_identifies_listeners() {
    check(
        r#"let t = target
let f = fn {
  log "f" event.type
}
on t x f
on t x f capture
on t x f
dispatch t x
off t x f capture
dispatch t x
off t x f capture
off t x f
dispatch t x
log "end"
"#,
        &["f x", "f x", "f x", "end"],
    );
}

#[test]
fn passive_listener_cannot_prevent_default() {
    check(
        r#"let t = target
on t x passive {
  preventDefault event
  log "passive" event.defaultPrevented event.returnValue
}
on t x {
  log "next" event.defaultPrevented
  preventDefault event
  log "now" event.defaultPrevented event.returnValue
}
let r = dispatch t x cancelable
log r
let r2 = dispatch t y cancelable
log r2
"#,
        &[
            "passive false true",
            "next false",
            "now true false",
            "false",
            "true",
        ],
    );
}

#[test]
fn non_cancelable_prevent_default_and_dispatch_result() {
    check(
        r#"let t = target
on t x {
  preventDefault event
  log event.cancelable event.defaultPrevented event.returnValue
}
let r = dispatch t x
log r
"#,
        &["false false true", "true"],
    );
}

#[test]
fn signal_option_removes_the_listener_on_abort() {
    check(
        r#"let c = controller
let t = target
let f = fn {
  log "f" event.eventPhase
}
on t x f signal c.signal
on t x f capture signal c.signal
on t x signal c.signal {
  log "inline with signal"
}
dispatch t x
abort c
dispatch t x
log "after abort"
on t x f signal c.signal
dispatch t x
log "already aborted: not added"
"#,
        &[
            "f 2",
            "f 0",
            "inline with signal",
            "after abort",
            "already aborted: not added",
        ],
    );
}

#[test]
fn signal_option_removes_only_the_matching_capture() {
    check(SIGNAL_CAPTURE, &["f", "end"]);
}

/// The seed's new test: the `signal` option removes only the listener with
/// the capture flag it was added with.
pub const SIGNAL_CAPTURE: &str = r#"let c = controller
let t = target
let f = fn {
  log "f"
}
on t x f
on t x f capture signal c.signal
abort c
dispatch t x
off t x f
dispatch t x
log "end"
"#;

#[test]
fn signal_option_listener_sits_in_the_signals_list() {
    check(
        r#"let c = controller
let t = target
on c.signal abort {
  log "first abort listener dispatches"
  dispatch t x
}
on t x signal c.signal {
  log "t listener still there"
}
on c.signal abort {
  log "later abort listener dispatches"
  dispatch t x
}
abort c
"#,
        &[
            "first abort listener dispatches",
            "t listener still there",
            "later abort listener dispatches",
        ],
    );
}

#[test]
fn stop_immediate_propagation_skips_later_listeners() {
    check(
        r#"let t = target
on t x {
  log "1" event.cancelBubble
  stopImmediatePropagation event
  log "1 after" event.cancelBubble
}
on t x passive {
  log "never: passive does not resist"
}
on t x {
  log "never"
}
dispatch t x
on t y {
  stopPropagation event
  log "stopPropagation only" event.cancelBubble
}
on t y {
  log "still runs"
}
dispatch t y
"#,
        &[
            "1 false",
            "1 after true",
            "stopPropagation only true",
            "still runs",
        ],
    );
}

#[test]
fn event_phase_and_targets_during_and_after_dispatch() {
    // NODE: kIsBeingDispatched is cleared after every listener that returns
    // normally, so the second listener already sees phase 0 and no
    // currentTarget; a listener that throws leaves it set.
    check(
        r#"let t = target
on t x {
  log "first" event.eventPhase event.target event.currentTarget event.srcElement
  microtask {
    log "after" event.eventPhase event.target event.currentTarget
  }
}
on t x {
  log "second" event.eventPhase event.target event.currentTarget
}
dispatch t x
on t y {
  throw Error("boom")
}
on t y {
  log "after throw" event.eventPhase event.currentTarget
}
dispatch t y
"#,
        &[
            "first 2 [EventTarget] [EventTarget] [EventTarget]",
            "second 0 [EventTarget] null",
            "after throw 2 [EventTarget]",
            "uncaught Error: boom",
            "after 0 [EventTarget] null",
        ],
    );
}

#[test]
fn is_trusted_only_for_abort_events() {
    check(
        r#"let c = controller
on c.signal abort {
  log "abort" event.isTrusted event.cancelable event.bubbles event.composed event.type event
}
let t = target
on t x {
  log "x" event.isTrusted
}
dispatch t x
abort c
dispatch c.signal abort
"#,
        &[
            "x false",
            "abort true false false false abort Event(abort)",
            "abort false false false false abort Event(abort)",
        ],
    );
}

#[test]
fn listeners_removed_or_added_during_dispatch() {
    check(LISTENERS_DURING_DISPATCH, LISTENERS_DURING_DISPATCH_LOG);
}

/// Node's live-list walk: a removed listener is skipped; an appended one is
/// visited unless the walk had already passed the end of the list.
pub const LISTENERS_DURING_DISPATCH: &str = r#"let t = target
let g = fn {
  log "g (never: removed by the first)"
}
let h = fn {
  log "h (appended while not last: visited)"
}
let k = fn {
  log "k (appended before the walk passed the end: visited)"
}
on t x {
  log "first"
  off t x g
  on t x h
}
on t x g
on t x {
  log "third"
  on t x k
}
dispatch t x
let u = target
let late = fn {
  log "late (appended by the last listener: not visited the first time)"
}
on u y {
  log "only"
  on u y late
}
dispatch u y
log "second dispatch"
dispatch u y
"#;

const LISTENERS_DURING_DISPATCH_LOG: &[&str] = &[
    "first",
    "third",
    "h (appended while not last: visited)",
    "k (appended before the walk passed the end: visited)",
    "only",
    "second dispatch",
    "only",
    "late (appended by the last listener: not visited the first time)",
];

#[test]
fn listener_exceptions_and_returned_promises_are_reported() {
    check(
        r#"tick {
  log "tick before"
}
let t = target
let p = rejected Error("async")
let th = thenable 1
on t x {
  log "l1"
  throw Error("x")
}
on t x {
  log "l2"
  return p
}
on t x {
  log "l3"
  return th
}
dispatch t x
log "after dispatch"
microtask {
  log "micro"
}
tick {
  log "tick after"
}
setImmediate {
  log "immediate"
}
"#,
        &[
            "l1",
            "l2",
            "l3",
            "after dispatch",
            "tick before",
            "uncaught Error: x",
            "immediate",
            "uncaught TypeError: resolve is not a function",
            "tick after",
            "micro",
            "uncaught Error: async",
        ],
    );
}

#[test]
fn abort_listener_added_by_an_earlier_abort_listener_fires() {
    check(
        r#"let a = controller
let x = any [a.signal]
on a.signal abort {
  log "a"
  on x abort {
    log "x listener added during the abort of a"
  }
}
abort a
"#,
        &["a", "x listener added during the abort of a"],
    );
}

#[test]
fn abort_twice_is_a_no_op() {
    check(
        r#"let c = controller
on c.signal abort {
  log "fired" c.signal.reason
}
abort c "one"
abort c "two"
log c.signal.reason
"#,
        &["fired one", "one"],
    );
}

// ---- edge cases -----------------------------------------------------------

#[test]
fn signal_option_removes_a_later_registration_of_the_same_listener() {
    // The removal closure removes whatever (listener, capture) registration
    // exists when the signal aborts, and a duplicate registration still
    // gets one.
    check(
        r#"let c = controller
let t = target
let f = fn {
  log "f"
}
on t x f signal c.signal
off t x f
on t x f
abort c
dispatch t x
on t x f
let c2 = controller
on t x f signal c2.signal
abort c2
dispatch t x
log "end"
"#,
        &["end"],
    );
}

#[test]
fn onabort_set_during_the_abort_dispatch() {
    check(
        r#"let c = controller
let s = c.signal
on s abort {
  log "L1"
  onabort s {
    log "H set by L1"
  }
}
on s abort {
  log "L2" event.eventPhase
}
abort c
let c2 = controller
let s2 = c2.signal
on s2 abort {
  log "only"
  onabort s2 {
    log "never: appended after the end"
  }
}
abort c2
dispatch s2 abort
"#,
        &[
            "L1",
            "L2 0",
            "H set by L1",
            "only",
            "only",
            "never: appended after the end",
        ],
    );
}

#[test]
fn dispatch_recursion_hits_the_depth_limit() {
    check(
        r#"let t = target
on t x {
  dispatch t x
}
dispatch t x
run turn
log "never"
"#,
        &["budget exhausted: callbacks nested more than 64 deep"],
    );
}

#[test]
fn prevent_default_after_dispatch() {
    check(
        r#"let t = target
on t x passive {
  microtask {
    preventDefault event
    log "later" event.defaultPrevented event.returnValue
  }
}
let r = dispatch t x cancelable
log r
"#,
        &["true", "later true false"],
    );
}

#[test]
fn passive_stop_immediate() {
    check(
        r#"let t = target
on t x passive {
  stopImmediatePropagation event
  log "p1"
}
on t x passive {
  log "p2 never"
}
on t x {
  log "n never"
}
dispatch t x
"#,
        &["p1"],
    );
}

#[test]
fn once_listener_that_throws_and_once_with_signal() {
    check(
        r#"let c = controller
let t = target
on t x once signal c.signal {
  log "once throws"
  throw Error("o")
}
dispatch t x
dispatch t x
abort c
log "end"
"#,
        &["once throws", "end", "uncaught Error: o"],
    );
}

#[test]
fn aborting_a_signal_inside_a_dispatch_removes_a_later_listener() {
    check(
        r#"let c = controller
let t = target
on t x {
  log "first aborts"
  abort c
}
on t x signal c.signal {
  log "never: removed by the abort"
}
on t x {
  log "third"
}
dispatch t x
"#,
        &["first aborts", "third"],
    );
}

#[test]
fn add_abort_listener_during_the_abort() {
    check(
        r#"let c = controller
let s = c.signal
on s abort {
  log "L"
  let d = addAbortListener s {
    log "aal in microtask" event.eventPhase
  }
}
microtask {
  log "m"
}
abort c
on s abort {
  log "added after abort, fires on manual dispatch" event.isTrusted
}
dispatch s abort
"#,
        &[
            "L",
            "L",
            "added after abort, fires on manual dispatch false",
            "m",
            "aal in microtask 2",
            "aal in microtask 2",
        ],
    );
}

#[test]
fn reason_values() {
    check(
        r#"let c = controller
let c2 = controller
abort c c2.signal
log c.signal.reason
let s = aborted 0
log s.reason
let s2 = aborted false
log s2.reason
let x = any [s2, s]
log x.reason
try {
  throwIfAborted x
}
"#,
        &["[AbortSignal]", "0", "false", "false", "caught false"],
    );
}

#[test]
fn timeout_zero_and_composite_of_timeouts() {
    check(
        r#"let t0 = timeout 0
let t3 = timeout 3
let x = any [t3, t0]
on x abort {
  log "x" x.reason t0.aborted t3.aborted
}
on t0 abort {
  log "t0" x.aborted
}
setTimeout 10 {
  log "t10" t3.aborted
}
"#,
        &[
            "t0 true",
            "x TimeoutError: The operation was aborted due to timeout true false",
            "t10 true",
        ],
    );
}

#[test]
fn abort_in_a_dependant_listener_of_another_source() {
    // ab is marked by a's abort; b's abort (re-entrant, from a's listener)
    // finds it aborted and leaves it to a, which fires it last.
    check(
        r#"let a = controller
let b = controller
let ab = any [a.signal, b.signal]
let bb = any [b.signal]
on a.signal abort {
  log "a, aborting b"
  abort b "B"
  log "a done"
}
on b.signal abort {
  log "b" ab.reason bb.reason
}
on ab abort {
  log "ab" ab.reason
}
on bb abort {
  log "bb" bb.reason
}
abort a "A"
"#,
        &["a, aborting b", "b A B", "bb B", "a done", "ab A"],
    );
}

#[test]
fn stop_immediate_in_abort_does_not_stop_signal_option_removal() {
    check(
        r#"let c = controller
let t = target
on c.signal abort {
  stopImmediatePropagation event
  log "stopper"
}
on t x signal c.signal {
  log "never"
}
on c.signal abort {
  log "never either"
}
abort c
dispatch t x
log "end"
"#,
        &["stopper", "end"],
    );
}

#[test]
fn listener_removing_the_rest_and_re_adding_one() {
    // b is removed and appended again while the walk holds its old node:
    // the stale node is skipped and c's too; the new b comes after the end
    // the walk had cached (a's old next was b).
    check(
        r#"let t = target
let b = fn {
  log "b"
}
let c = fn {
  log "c"
}
on t x once {
  log "a"
  off t x b
  off t x c
  on t x b
}
on t x b
on t x c
dispatch t x
log "again"
dispatch t x
"#,
        &["a", "again", "b"],
    );
}

#[test]
fn a_tick_between_two_due_callbacks_can_clear_the_second() {
    // Found by a differential run against Node; fixed in the runtime's
    // `run_phase`: the ticks between two callbacks of a phase run before the
    // second is taken, so clearing it there cancels it. The throwing ticks
    // leave the clearing ticks for the drain between the callbacks.
    check(
        r#"let h1 = setTimeout 9 {
  log "h1"
}
let h2 = setTimeout 9 {
  log "h2 (never: cleared by a tick that runs between the two)"
}
let i1 = setImmediate {
  log "i1"
}
let i2 = setImmediate {
  log "i2 (never: cleared likewise)"
}
tick {
  throw Error("first")
}
tick {
  log "tick clears i2"
  clearImmediate i2
}
tick {
  throw Error("second")
}
tick {
  log "tick clears h2"
  clearTimeout h2
}
"#,
        &[
            "uncaught Error: first",
            "i1",
            "tick clears i2",
            "uncaught Error: second",
            "tick clears h2",
            "h1",
        ],
    );
}
