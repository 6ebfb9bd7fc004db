//! Each mutant changes the log of at least one scenario whose correct log
//! Node 26.12.1 prints (each is a cut-down form of a curated scenario under
//! `scenarios/`, which `nodesem check` runs on real Node): the harness can
//! find every one of them.

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
fn every_mutant_has_a_test_above_and_a_name_that_parses_back() {
    let tested = [
        "dependants-aborted-late",
        "signal-removal-ignores-capture",
        "abort-twice",
        "stale-listener-check",
        "removed-listener-runs",
        "abort-listener-stoppable",
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
