//! The real-clock Node engine (`node?clock=real`) and the worker's probe of
//! Node's internals, on the pinned Node 26.12.1 as a user runs them: curated
//! timer scenarios give on libuv's real loop the logs the model gives; a
//! construct the real loop cannot order (a collection, a wait of 20,000 s) is
//! refused with its line and counted apart, and a `run turn` with immediates
//! pending runs; a Node that lacks an internal the prelude needs is reported once,
//! naming it, and nothing runs.

mod common;

use std::process::Command;

use common::{nodesem, root};

/// Curated scenarios with timers of several durations and equal deadlines,
/// intervals, immediates that throw, ticks that throw, `run advance` and
/// `run idle`, each of which the real clock runs (none is refused).
const TIMER_SCENARIOS: [&str; 6] = [
    "scenarios/event_loop/timer_deadlines_across_run_advance_and_idle.scn",
    "scenarios/event_loop/an_interval_rearms_behind_the_timers_its_callback_made.scn",
    "scenarios/event_loop/intervals_rearm_after_their_callback_and_unref_lets_the_loop_end.scn",
    "scenarios/event_loop/throwing_last_immediate_runs_the_one_it_queued_before_the_drain.scn",
    "scenarios/event_loop/throwing_timers_and_immediates_skip_the_drain_before_the_next_in_their_phase.scn",
    "scenarios/async/throwing_immediate_runs_the_ones_it_queued_first.scn",
];

#[test]
fn curated_timer_scenarios_agree_with_the_model_on_the_real_clock() {
    let mut args = vec![
        "check",
        "--engines",
        "model,node?clock=real",
        "--deviations",
        "/dev/null",
    ];
    args.extend(TIMER_SCENARIOS);
    let out = nodesem(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("checked 6 scenarios") && stdout.contains(": 0 divergences, 0 timeouts"),
        "{stdout}"
    );
    // Each ran: a refusal would be listed.
    assert!(!stdout.contains("refused"), "{stdout}");
}

#[test]
fn only_timers_selects_the_scenarios_that_use_the_clock() {
    let out = nodesem(&[
        "check",
        "--only-timers",
        "--engines",
        "model,impl",
        "scenarios/event_loop",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    // scenarios/event_loop has 16 files, of which 10 use timers, immediates or `run advance`.
    assert!(
        stdout.contains("checked 10 scenarios (10 from files"),
        "{stdout}"
    );
}

#[test]
fn what_the_real_loop_cannot_order_is_refused_with_its_line() {
    let dir = tempfile::Builder::new()
        .prefix("nodesem-realclock-")
        .tempdir()
        .unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    // A collection: when a FinalizationRegistry's cleanup runs is V8's choice.
    let collects = write("collects.scn", "setTimeout 1 {\n  log \"t\"\n}\ngc\n");
    // A wait of 10^6 virtual ms: 20,000 s of real time.
    let long = write(
        "long.scn",
        "setTimeout 1 {\n  log \"t\"\n}\nrun turn\nrun advance 1000000\nlog \"late\"\n",
    );
    // A turn with immediates pending runs: its end follows the batch.
    let turn = write(
        "turn.scn",
        "setImmediate {\n  log \"i1\"\n  setImmediate {\n    log \"i2\"\n  }\n}\nrun turn\nlog \"after the turn\"\n",
    );
    let out = nodesem(&[
        "check",
        "--engines",
        "model,node?clock=real",
        "--deviations",
        "/dev/null",
        &collects,
        &long,
        &turn,
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    // Refusals are counted apart: the check passes.
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("checked 3 scenarios") && stdout.contains(": 0 divergences"),
        "{stdout}"
    );
    assert!(
        stdout.contains("2 scenarios refused by a real-clock engine"),
        "{stdout}"
    );
    assert!(
        stdout.contains("cannot run on a real clock: gc at line 4: "),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "cannot run on a real clock: run advance 1000000 at line 5: it would take 20000000 ms of real time"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("turn.scn:"), "{stdout}");
}

#[test]
fn a_node_without_an_internal_the_prelude_needs_is_reported_once_by_name() {
    let out = Command::new(env!("CARGO_BIN_EXE_nodesem"))
        .args(["check", "--engines", "model,node", "scenarios/event_loop"])
        .env("NODESEM_PROBE_EXTRA", "internal/not_there")
        .current_dir(root())
        .output()
        .expect("the nodesem binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert_eq!(stderr.matches("internal/not_there").count(), 1, "{stderr}");
    assert!(
        stderr.contains("node v26.12.1 lacks Node internals nodesem's prelude relies on"),
        "{stderr}"
    );
    // Nothing ran.
    assert!(!stdout.contains("checked"), "{stdout}");
}
