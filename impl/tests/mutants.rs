//! Each mutant changes the log of at least one scenario whose correct log
//! Node 26.12.1 prints (the first six are cut-down forms of curated
//! scenarios under `scenarios/`, which `nodesem check` runs on real Node;
//! the correct log of each later one was checked with
//! `nodesem run FILE --engine node`): the harness can find every one of
//! them.

use nodesem_impl::{ImplEngine, Mutant};
use nodesem_lang::{parse, Engine, RunConfig};

fn run(text: &str, mutant: Option<Mutant>) -> Vec<String> {
    let scenario = parse("test.scn", text).unwrap_or_else(|e| panic!("{e}"));
    ImplEngine { mutant }
        .run_scenario(&scenario, &RunConfig::default())
        .lines
}

/// The correct log is Node's; the mutant's differs from it, as shown.
fn exposes(mutant: Mutant, text: &str, correct: &[&str], mutated: &[&str]) {
    assert_eq!(run(text, None), correct, "correct log\nscenario:\n{text}");
    assert_eq!(
        run(text, Some(mutant)),
        mutated,
        "{mutant}\nscenario:\n{text}"
    );
    assert_ne!(correct, mutated);
}

#[test]
fn dependants_aborted_late() {
    exposes(
        Mutant::DependantsAbortedLate,
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
abort a "boom"
"#,
        &["a fired true true", "ab fired boom", "only_a fired"],
        &["a fired false false", "ab fired boom", "only_a fired"],
    );
}

#[test]
fn signal_removal_ignores_capture() {
    exposes(
        Mutant::SignalRemovalIgnoresCapture,
        r#"let c = controller
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
"#,
        &["f", "end"],
        &["f", "f", "end"],
    );
}

#[test]
fn abort_twice() {
    exposes(
        Mutant::AbortTwice,
        r#"let c = controller
on c.signal abort {
  log "fired" c.signal.reason
}
abort c "one"
abort c "two"
log c.signal.reason
"#,
        &["fired one", "one"],
        &["fired one", "fired two", "two"],
    );
}

#[test]
fn stale_listener_check() {
    exposes(
        Mutant::StaleListenerCheck,
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
        &["a"],
    );
}

#[test]
fn removed_listener_runs() {
    exposes(
        Mutant::RemovedListenerRuns,
        r#"let t = target
let g = fn {
  log "g (never: removed by the first)"
}
on t x {
  log "first"
  off t x g
}
on t x g
dispatch t x
"#,
        &["first"],
        &["first", "g (never: removed by the first)"],
    );
}

#[test]
fn abort_listener_stoppable() {
    exposes(
        Mutant::AbortListenerStoppable,
        r#"let c = controller
let s = c.signal
on s abort {
  log "first stops"
  stopImmediatePropagation event
}
let d = addAbortListener s {
  log "abort listener" event.cancelBubble
}
abort c
"#,
        &["first stops", "abort listener true"],
        &["first stops"],
    );
}

#[test]
fn recycle_during_walk() {
    // The first listener removes the next one and adds another: the walk
    // has cached the removed node as its next, and Node's removed node
    // keeps its stale end, so the new listener is not visited. The mutant
    // reused the removed node for it, and the walk calls it.
    exposes(
        Mutant::RecycleDuringWalk,
        r#"let t = target
let g = fn {
  log "g (never: removed by the first)"
}
on t foo {
  log "first"
  off t foo g
  on t foo {
    log "added during the dispatch (never: after the old end)"
  }
}
on t foo g
dispatch t foo
log "end"
"#,
        &["first", "end"],
        &[
            "first",
            "added during the dispatch (never: after the old end)",
            "end",
        ],
    );
}

#[test]
fn once_removed_after_call() {
    exposes(
        Mutant::OnceRemovedAfterCall,
        r#"let t = target
let f = fn {
  log "f"
  on t foo f once
}
on t foo f once
dispatch t foo
dispatch t foo
log "end"
"#,
        &["f", "f", "end"],
        &["f", "end"],
    );
}

#[test]
fn exception_in_microtask() {
    exposes(
        Mutant::ExceptionInMicrotask,
        r#"let t = target
on t foo {
  log "listener"
  microtask {
    log "microtask"
  }
  throw Error("boom")
}
dispatch t foo
log "end"
"#,
        &["listener", "end", "uncaught Error: boom", "microtask"],
        &["listener", "end", "microtask", "uncaught Error: boom"],
    );
}

#[test]
fn onabort_count_lost() {
    exposes(
        Mutant::OnabortCountLost,
        r#"let c = controller
let s = c.signal
onabort s {
  log "first handler"
}
onabort s {
  log "second handler" event.type
}
let f = fn {
  log "f"
}
on s abort f
off s abort f
abort c
log "end"
"#,
        &["second handler abort", "end"],
        &["end"],
    );
}

#[test]
fn type_interned_by_length() {
    exposes(
        Mutant::TypeInternedByLength,
        r#"let t = target
on t foo {
  log "foo listener" event.type
}
dispatch t bar
dispatch t foo
"#,
        &["foo listener foo"],
        &["foo listener foo", "foo listener foo"],
    );
}

#[test]
fn onabort_skipped_by_fast_path() {
    exposes(
        Mutant::OnabortSkippedByFastPath,
        r#"let c = controller
onabort c.signal {
  log "onabort" event.type
}
abort c
log "end"
"#,
        &["onabort abort", "end"],
        &["end"],
    );
}

#[test]
fn readd_overwrites_flags() {
    exposes(
        Mutant::ReaddOverwritesFlags,
        r#"let t = target
let f = fn {
  preventDefault event
  log "f" event.defaultPrevented
}
on t foo f passive
on t foo f
let r = dispatch t foo cancelable
log r
"#,
        &["f false", "true"],
        &["f true", "false"],
    );
}

#[test]
fn removal_listener_dropped() {
    exposes(
        Mutant::RemovalListenerDropped,
        r#"let c = controller
let t = target
let f = fn {
  log "f"
}
on t foo f signal c.signal
off t foo f
on t foo f
abort c
dispatch t foo
log "end"
"#,
        &["end"],
        &["f", "end"],
    );
}

#[test]
fn dispatch_flag_hoisted() {
    exposes(
        Mutant::DispatchFlagHoisted,
        r#"let t = target
on t foo {
  log "first" event.eventPhase
}
on t foo {
  log "second" event.eventPhase event.currentTarget
}
dispatch t foo
"#,
        &["first 2", "second 0 null"],
        &["first 2", "second 2 [EventTarget]"],
    );
}

#[test]
fn every_mutant_has_a_test_above_and_a_name_that_parses_back() {
    let tested = [
        "dependants-aborted-late",
        "signal-removal-ignores-capture",
        "abort-twice",
        "stale-listener-check",
        "removed-listener-runs",
        "abort-listener-stoppable",
        "recycle-during-walk",
        "once-removed-after-call",
        "exception-in-microtask",
        "onabort-count-lost",
        "type-interned-by-length",
        "onabort-skipped-by-fast-path",
        "readd-overwrites-flags",
        "removal-listener-dropped",
        "dispatch-flag-hoisted",
    ];
    let names: Vec<&str> = Mutant::ALL.iter().map(|m| m.name()).collect();
    assert_eq!(names, tested);
    for m in Mutant::ALL {
        assert_eq!(m.name().parse::<Mutant>(), Ok(m));
        assert_eq!(
            ImplEngine { mutant: Some(m) }.name(),
            format!("impl+{}", m.name())
        );
    }
    assert_eq!(ImplEngine::default().name(), "impl");
    assert!("no-such-mutant".parse::<Mutant>().is_err());
}
