//! Each mutant changes the log of a curated scenario: the harness can find
//! every one of them.
//!
//! The scenarios are `scenarios/mutants/*.scn`, one per mutant. They are
//! curated like every other scenario, so their correct log is Node's: it is
//! reviewed as a snapshot (`snapshots/mutants__*.snap`, the model's log,
//! which the conformance test also requires of the unmutated impl) and
//! `nodesem check scenarios/mutants --engines model,node` compares it with
//! the pinned Node 26.12.1.
//!
//! Each test below holds two logs:
//!
//! - `node`, Node 26.12.1's log: a copy of the scenario's snapshot, kept
//!   here to be read next to the mutant's; the test checks that it equals
//!   the snapshot and that the unmutated impl prints it;
//! - `mutant`, the log of `impl+<mutant>`: typed by hand from the bug the
//!   mutant re-introduces, and checked against that mutant only. It is NOT
//!   Node's output. Its lines marked `// mutant:` are the mutant's own (a
//!   comment in place of a line Node prints says the mutant leaves it
//!   out); its unmarked lines are the ones it shares with Node's log.

use std::path::{Path, PathBuf};

use nodesem_conformance::snapshot_log;
use nodesem_impl::{ImplEngine, Mutant};
use nodesem_lang::{parse, Engine, RunConfig};

/// The repository root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(file: &str, text: &str, mutant: Option<Mutant>) -> Vec<String> {
    let scenario = parse(file, text).unwrap_or_else(|e| panic!("{e}"));
    ImplEngine { mutant }
        .run_scenario(&scenario, &RunConfig::default())
        .lines
}

/// `scenarios/mutants/<file>` prints Node's log `node` on the unmutated impl
/// (and `node` is the scenario's reviewed snapshot), and the mutant's log
/// `mutated`, which differs from it, on `impl+<mutant>`.
fn exposes(mutant: Mutant, file: &str, node: &[&str], mutated: &[&str]) {
    let relative = format!("scenarios/mutants/{file}");
    let text = std::fs::read_to_string(root().join(&relative))
        .unwrap_or_else(|e| panic!("{relative}: {e}"));
    let snapshot = format!("mutants__{}", file.trim_end_matches(".scn"));
    assert_eq!(
        snapshot_log(&snapshot),
        node,
        "{relative}: the copy of Node's log here is not snapshots/{snapshot}.snap"
    );
    assert_eq!(
        run(&relative, &text, None),
        node,
        "{relative}: impl does not print Node's log"
    );
    assert_eq!(
        run(&relative, &text, Some(mutant)),
        mutated,
        "{relative}: {mutant} does not print the mutant's log typed here"
    );
    assert_ne!(node, mutated, "{mutant} is not exposed by {relative}");
}

#[test]
fn dependants_aborted_late() {
    exposes(
        Mutant::DependantsAbortedLate,
        "composites_aborted_before_the_sources_listeners_run.scn",
        &["a fired true true", "ab fired boom", "only_a fired"],
        &[
            "a fired false false", // mutant: the composites are not aborted yet
            "ab fired boom",
            "only_a fired",
        ],
    );
}

#[test]
fn signal_removal_ignores_capture() {
    exposes(
        Mutant::SignalRemovalIgnoresCapture,
        "signal_option_removal_matches_capture.scn",
        &["f", "end"],
        &[
            "f",
            "f", // mutant: the abort removed the non-capture one, `off` cannot remove the other
            "end",
        ],
    );
}

#[test]
fn abort_twice() {
    exposes(
        Mutant::AbortTwice,
        "second_abort_keeps_the_first_reason.scn",
        &["fired one", "one"],
        &[
            "fired one",
            "fired two", // mutant: the second abort fires again
            "two",       // mutant: and replaces the reason
        ],
    );
}

#[test]
fn stale_listener_check() {
    exposes(
        Mutant::StaleListenerCheck,
        "composite_listener_added_during_the_sources_abort_runs.scn",
        &["a", "x listener added during the abort of a"],
        &[
            "a",
            // mutant: no "x listener added during the abort of a"
        ],
    );
}

#[test]
fn removed_listener_runs() {
    exposes(
        Mutant::RemovedListenerRuns,
        "listener_removed_by_an_earlier_one_does_not_run.scn",
        &["first"],
        &[
            "first",
            "g (never: removed by the first)", // mutant: the removed listener runs
        ],
    );
}

#[test]
fn abort_listener_stoppable() {
    exposes(
        Mutant::AbortListenerStoppable,
        "add_abort_listener_runs_after_stop_immediate_propagation.scn",
        &["first stops", "abort listener true"],
        &[
            "first stops",
            // mutant: no "abort listener true", stopImmediatePropagation skipped it
        ],
    );
}

#[test]
fn recycle_during_walk() {
    // The walk has cached the removed node as its next, and Node's removed
    // node keeps its stale end, so the new listener is not visited. The
    // mutant reused the removed node for it, and the walk calls it.
    exposes(
        Mutant::RecycleDuringWalk,
        "listener_added_after_removing_the_next_one_is_not_visited.scn",
        &["first", "end"],
        &[
            "first",
            "added during the dispatch (never: after the old end)", // mutant
            "end",
        ],
    );
}

#[test]
fn once_removed_after_call() {
    exposes(
        Mutant::OnceRemovedAfterCall,
        "once_listener_can_add_itself_again.scn",
        &["f", "f", "end"],
        &[
            "f",
            // mutant: no second "f": the re-add was a duplicate, then the call removed f
            "end",
        ],
    );
}

#[test]
fn exception_in_microtask() {
    exposes(
        Mutant::ExceptionInMicrotask,
        "listener_exception_reported_before_its_microtask.scn",
        &["listener", "end", "uncaught Error: boom", "microtask"],
        &[
            "listener",
            "end",
            "microtask",            // mutant: before the report
            "uncaught Error: boom", // mutant: reported from a microtask, after it
        ],
    );
}

#[test]
fn onabort_count_lost() {
    exposes(
        Mutant::OnabortCountLost,
        "onabort_replaced_while_another_listener_comes_and_goes.scn",
        &["second handler abort", "end"],
        &[
            // mutant: no "second handler abort", the handler was lost
            "end",
        ],
    );
}

#[test]
fn type_interned_by_length() {
    exposes(
        Mutant::TypeInternedByLength,
        "listener_sees_only_its_own_event_type.scn",
        &["foo listener foo"],
        &[
            "foo listener foo", // mutant: called for "bar", a type of the same length
            "foo listener foo",
        ],
    );
}

#[test]
fn onabort_skipped_by_fast_path() {
    exposes(
        Mutant::OnabortSkippedByFastPath,
        "onabort_handler_runs_when_it_is_the_only_listener.scn",
        &["onabort abort", "end"],
        &[
            // mutant: no "onabort abort", the no-listener fast path skipped the event
            "end",
        ],
    );
}

#[test]
fn readd_overwrites_flags() {
    exposes(
        Mutant::ReaddOverwritesFlags,
        "duplicate_add_keeps_the_first_passive_flag.scn",
        &["f false", "true"],
        &[
            "f true", // mutant: the re-add cleared passive, so preventDefault worked
            "false",  // mutant: and the dispatch returns false
        ],
    );
}

#[test]
fn removal_listener_dropped() {
    exposes(
        Mutant::RemovalListenerDropped,
        "signal_option_removes_a_listener_added_again_without_it.scn",
        &["end"],
        &[
            "f", // mutant: the abort no longer removes the re-added listener
            "end",
        ],
    );
}

#[test]
fn dispatch_flag_hoisted() {
    exposes(
        Mutant::DispatchFlagHoisted,
        "dispatch_flag_cleared_after_the_first_listener.scn",
        &["first 2", "second 0 null"],
        &[
            "first 2",
            "second 2 [EventTarget]", // mutant: the flag is cleared only after the last listener
        ],
    );
}

#[test]
fn signal_max_listeners_ten() {
    exposes(
        Mutant::SignalMaxListenersTen,
        "an_abort_signal_has_no_listener_limit.scn",
        &["max 0", "added", "abort 11"],
        &[
            "max 10", // mutant: the signal keeps EventTarget's default
            "added",
            "warning MaxListenersExceededWarning: Possible EventTarget memory leak detected. 11 abort listeners added to [AbortSignal]. MaxListeners is 10. Use events.setMaxListeners() to increase limit",
            "abort 11",
        ],
    );
}

#[test]
fn start_shortcut_with_pull() {
    exposes(
        Mutant::StartShortcutWithPull,
        "a_source_with_pull_is_pulled_a_microtask_after_start.scn",
        &["start", "pull 1", "t1", "t2"],
        &[
            "start", // mutant: no "pull 1": nothing pulls after the shortcut start
            "t1", "t2",
        ],
    );
}

#[test]
fn start_shortcut_ignores_promise() {
    exposes(
        Mutant::StartShortcutIgnoresPromise,
        "a_rejected_start_promise_errors_a_pull_less_stream.scn",
        &["t1", "t2", "t3", "read rejected start failed", "t4"],
        &[
            "t1",
            "t2",
            "t3",
            // mutant: no "read rejected": the stream never errors
            "t4",
            "unhandled rejection start failed", // mutant: nobody watched start's promise
        ],
    );
}

#[test]
fn pull_again_lost() {
    exposes(
        Mutant::PullAgainLost,
        "an_enqueue_during_pull_asks_for_another_pull.scn",
        &[
            "pull 1", "t1", "pull 2", "t2", "pull 3", "t3", "t4", "t5", "t6",
        ],
        &[
            "pull 1", "t1",
            // mutant: no "pull 2" nor "pull 3": the pull asked for during pull is dropped
            "t2", "t3", "t4", "t5", "t6",
        ],
    );
}

#[test]
fn last_chunk_keeps_stream_open() {
    exposes(
        Mutant::LastChunkKeepsStreamOpen,
        "reading_the_last_chunk_closes_a_closing_stream.scn",
        &[
            "read {value: last, done: false}",
            "read {value: undefined, done: true}",
            "closed",
            "t1",
            "t2",
        ],
        &[
            "read {value: last, done: false}",
            // mutant: the second read stays pending and closed never settles
            "t1",
            "t2",
        ],
    );
}

#[test]
fn tee_cancel_resolved_early() {
    exposes(
        Mutant::TeeCancelResolvedEarly,
        "a_tee_branch_cancel_waits_for_the_other_branch.scn",
        &[
            "t1",
            "t2",
            "t3",
            "cancelling two",
            "source cancel Array(r1, r2)",
            "t1",
            "t2",
            "t3",
            "one cancelled",
            "two cancelled",
        ],
        &[
            "t1",
            "one cancelled", // mutant: the first cancel fulfils at once
            "t2",
            "t3",
            "cancelling two",
            "source cancel Array(r1, r2)",
            "t1",
            "two cancelled", // mutant: and the second without waiting for the source's
            "t2",
            "t3",
        ],
    );
}

#[test]
fn pipe_watcher_late() {
    exposes(
        Mutant::PipeWatcherLate,
        "a_pipe_closes_the_destination_two_ticks_after_the_source.scn",
        &[
            "closing the source",
            "t1",
            "sink close",
            "t2",
            "t3",
            "t4",
            "pipe done",
        ],
        &[
            "closing the source",
            "t1",
            "t2",
            "sink close", // mutant: the close watcher ran a microtask late
            "t3",
            "t4",
            "pipe done",
        ],
    );
}

#[test]
fn byte_tee_no_clone() {
    exposes(
        Mutant::ByteTeeNoClone,
        "a_byte_tee_gives_each_branch_its_own_copy.scn",
        &[
            "enqueued Uint8Array()",
            "t1",
            "branch1 Uint8Array(1, 2, 3)",
            "t2",
            "branch2 Uint8Array(1, 2, 3)",
            "same view false",
            "t3",
            "t4",
            "t1",
            "t2",
        ],
        &[
            "enqueued Uint8Array()",
            "t1",
            "branch1 Uint8Array(1, 2, 3)",
            "t2",
            // mutant: branch 2 got the view branch 1's enqueue detached: its read stays pending
            "t3",
            "t4",
            // mutant: and the enqueue's transfer throws out of forwardChunk's reaction
            "unhandled rejection TypeError: Cannot perform ArrayBuffer.prototype.transfer on a detached ArrayBuffer",
            "t1",
            "t2",
        ],
    );
}

#[test]
fn resource_callback_loses_store() {
    exposes(
        Mutant::ResourceCallbackLosesStore,
        "a_resource_callback_keeps_the_store.scn",
        &["store kept"],
        &["store lost"], // mutant (and Node 26.12.1): the callback runs in no frame
    );
}

#[test]
fn callback_scope_microtasks_first() {
    exposes(
        Mutant::CallbackScopeMicrotasksFirst,
        "a_callback_scope_runs_ticks_before_microtasks.scn",
        &["tick", "microtask"],
        &["microtask", "tick"], // mutant: the checkpoint before the queued tick
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
        "signal-max-listeners-ten",
        "start-shortcut-with-pull",
        "start-shortcut-ignores-promise",
        "pull-again-lost",
        "last-chunk-keeps-stream-open",
        "tee-cancel-resolved-early",
        "pipe-watcher-late",
        "byte-tee-no-clone",
        "dependants-never-pruned",
        "timeout-collected-early",
        "composite-outlives-sources",
        "signal-remover-weak",
        "timeout-registration-kept",
        "source-registration-kept",
        "emitter-keeps-dynamic-names",
        "once-wrapper-in-remove-event",
        "emit-live-array",
        "warning-every-listener",
        "resource-callback-loses-store",
        "callback-scope-microtasks-first",
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

#[test]
fn scenarios_mutants_holds_one_scenario_per_mutant() {
    let files = std::fs::read_dir(root().join("scenarios/mutants"))
        .expect("scenarios/mutants/ exists")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "scn"))
        .count();
    assert_eq!(files, Mutant::ALL.len());
}

#[test]
fn dependants_never_pruned() {
    exposes(
        Mutant::DependantsNeverPruned,
        "a_collected_composite_leaves_its_sources_dependants.scn",
        &["2", "2", "0"],
        &["2", "2", "2"], // mutant: the cleanup prunes nothing
    );
}

#[test]
fn timeout_collected_early() {
    exposes(
        Mutant::TimeoutCollectedEarly,
        "an_observed_timeout_lives_until_it_fires.scn",
        &["alive s", "fired", "alive"],
        &["alive", "alive"], // mutant: collected at once, it never fires
    );
}

#[test]
fn composite_outlives_sources() {
    exposes(
        Mutant::CompositeOutlivesSources,
        "a_composite_goes_when_its_only_source_goes.scn",
        &["alive a", "alive", "alive"],
        &["alive a", "alive a", "alive a"], // mutant: kept for good
    );
}

#[test]
fn signal_remover_weak() {
    exposes(
        Mutant::SignalRemoverWeak,
        "the_target_holds_its_signal_option_remover.scn",
        &["0"],
        &["f", "0"], // mutant: the remover was collected, the listener stays
    );
}

#[test]
fn timeout_registration_kept() {
    exposes(
        Mutant::TimeoutRegistrationKept,
        "a_fired_timeout_leaves_no_registration.scn",
        &[
            "uncaught Error: first",
            "immediate",
            "uncaught Error: second",
        ],
        &[
            "uncaught Error: first",
            "uncaught Error: second", // mutant: the cleanup task's scope runs the waiting tick
            "immediate",
        ],
    );
}

#[test]
fn source_registration_kept() {
    exposes(
        Mutant::SourceRegistrationKept,
        "a_source_followed_only_by_cleaned_composites_leaves_no_registration.scn",
        &[
            "uncaught Error: first",
            "immediate",
            "uncaught Error: second",
        ],
        &[
            "uncaught Error: first",
            "uncaught Error: second", // mutant: the source's cleanup task's scope runs the waiting tick
            "immediate",
        ],
    );
}

#[test]
fn emitter_keeps_dynamic_names() {
    exposes(
        Mutant::EmitterKeepsDynamicNames,
        "an_emitter_deletes_a_removed_name.scn",
        &["Array(b, a)"],
        &["Array(a, b)"], // mutant: "a" kept its place as an undefined property
    );
}

#[test]
fn once_wrapper_in_remove_event() {
    exposes(
        Mutant::OnceWrapperInRemoveEvent,
        "remove_listener_event_gets_the_original_of_a_lone_once_listener.scn",
        &["removed solo true", "f ran"],
        &["removed solo false", "f ran"], // mutant: the wrapper, not f
    );
}

#[test]
fn emit_live_array() {
    exposes(
        Mutant::EmitLiveArray,
        "emit_walks_the_listeners_it_started_with.scn",
        &["a 1", "b 1"],
        &["a 1"], // mutant: b, removed by a during the emit, does not run
    );
}

#[test]
fn warning_every_listener() {
    let warning = |n: u32| {
        format!(
            "warning MaxListenersExceededWarning: Possible EventEmitter memory leak detected. \
             {n} x listeners added to [EventEmitter]. MaxListeners is 1. Use \
             emitter.setMaxListeners() to increase limit"
        )
    };
    let (two, three) = (warning(2), warning(3));
    exposes(
        Mutant::WarningEveryListener,
        "max_listeners_warning_once_per_array.scn",
        &["three listeners", two.as_str()],
        &["three listeners", two.as_str(), three.as_str()], // mutant: warns again
    );
}
