//! The runtime's collector on the bare runtime (no library objects): what
//! `gc` collects, WeakRef's KeepDuringJob, FinalizationRegistry cleanups
//! and their place in the loop. Each expected log is what the pinned Node
//! 26.12.1 prints for the same program (the scenario as `nodesem emit-js`
//! writes it, or the plain JavaScript in harness/js/NODE_GC_FACTS.md's
//! experiments): cleanups run in the poll phase after every due timer, a
//! registry's callbacks back to back in the reverse of their registration,
//! then their ticks, then their microtasks.

mod common;

use common::NoLibrary;
use nodesem_lang::{parse, RunConfig};
use nodesem_runtime::run_scenario;

fn log_of(text: &str) -> Vec<String> {
    let scenario = parse("gc.scn", text).unwrap_or_else(|e| panic!("{e}"));
    run_scenario::<NoLibrary>(&scenario, &RunConfig::default()).lines
}

fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

#[test]
fn a_weak_target_survives_the_job_that_made_it_and_then_is_collected() {
    let log = log_of(
        "let a = {}\nlet w = weakref a\ndrop a\ngc\nlet kept = deref w\nlog \"same job\" kept\ndrop kept\n\
         setTimeout 1 {\n  gc\n  let v = deref w\n  log \"timer\" v\n}\n",
    );
    assert_eq!(log, lines("same job [Object]\ntimer undefined"));
}

#[test]
fn the_kept_list_lasts_until_the_microtask_checkpoint_ends() {
    // Ticks of the main script and microtasks still see the target; a tick
    // queued by a microtask runs after the checkpoint that cleared it.
    let log = log_of(
        "let a = {}\nlet w = weakref a\ndrop a\n\
         tick {\n  gc\n  let v = deref w\n  log \"tick\" v\n}\n\
         microtask {\n  gc\n  try {\n    let v = deref w\n    log \"microtask\" v\n  }\n  tick {\n    gc\n    let u = deref w\n    log \"late tick\" u\n  }\n}\n",
    );
    // The derefs keep it again until their own checkpoint ends.
    assert_eq!(
        log,
        lines("tick [Object]\nmicrotask [Object]\nlate tick undefined")
    );
}

#[test]
fn cleanups_run_in_the_poll_phase_in_reverse_registration_order_then_their_ticks_and_microtasks() {
    let log = log_of(
        "let r = registry {\n  log \"cleanup\" held\n  tick {\n    log \"tick\" held\n  }\n  microtask {\n    log \"micro\" held\n  }\n}\n\
         let a = {}\nlet b = {}\nregister r a \"a\"\nregister r b \"b\"\ndrop a\ndrop b\n\
         setTimeout 1 {\n  gc\n  log \"timer\"\n  tick {\n    log \"timer tick\"\n  }\n}\n\
         setTimeout 1 {\n  log \"t2\"\n}\nsetImmediate {\n  log \"immediate\"\n}\nsetTimeout 5 {\n  log \"t3\"\n}\n",
    );
    assert_eq!(
        log,
        lines(
            "immediate\ntimer\ntimer tick\nt2\ncleanup b\ncleanup a\ntick b\ntick a\nmicro b\nmicro a\nt3"
        )
    );
}

#[test]
fn an_unregistered_cell_and_an_unreachable_registry_call_nothing() {
    let log = log_of(
        "let r = registry {\n  log \"cleanup\" held\n}\nlet dead = registry {\n  log \"never\"\n}\n\
         let a = {}\nlet t = {}\nregister r a \"a\" token t\nlet d = {}\nregister dead d \"d\"\n\
         let again = unregister r t\nlog again\nlet none = unregister r t\nlog none\n\
         drop a\ndrop d\ndrop dead\nrun turn\ngc\nrun idle\nlog \"end\"\n",
    );
    assert_eq!(log, lines("true\nfalse\nend"));
}

#[test]
fn what_a_pending_callback_or_a_live_function_closes_over_stays() {
    // A closure reads the binding, not the value: dropping the main
    // script's binding frees its object though a function mentions it; a
    // block's binding that a pending callback closes over stays.
    let log = log_of(
        "let a = {}\nwatch a\nlet f = fn {\n  log a\n}\nrepeat 1 {\n  let b = {}\n  watch b\n  setTimeout 5 {\n    log \"timer\" b\n  }\n}\n\
         drop a\nrun turn\ngc\nalive\nrun advance 10\ngc\nalive\n",
    );
    assert_eq!(log, lines("alive b\ntimer [Object]\nalive"));
}

#[test]
fn a_throwing_cleanup_is_uncaught_and_the_rest_of_its_cells_come_later() {
    let log = log_of(
        "let r = registry {\n  log \"cleanup\" held\n  throw held\n}\n\
         let a = {}\nlet b = {}\nregister r a \"a\"\nregister r b \"b\"\ndrop a\ndrop b\nrun turn\ngc\n",
    );
    assert_eq!(log, lines("cleanup b\nuncaught b\ncleanup a\nuncaught a"));
}

#[test]
fn weak_ref_and_registry_refuse_what_cannot_be_held_weakly() {
    let log = log_of(
        "try {\n  let w = weakref 1\n}\nlet r = registry {\n  log held\n}\nlet o = {}\n\
         try {\n  register r 1 2\n}\ntry {\n  register r o o\n}\ntry {\n  register r o 1 token 2\n}\n\
         try {\n  let x = unregister r \"t\"\n}\nlet w = weakref o\nlog w r\n",
    );
    assert_eq!(
        log,
        lines(
            "caught TypeError: WeakRef: invalid target\n\
             caught TypeError: FinalizationRegistry.prototype.register: invalid target\n\
             caught TypeError: FinalizationRegistry.prototype.register: target and holdings must not be same\n\
             caught TypeError: Invalid unregisterToken ('2')\n\
             caught TypeError: Invalid unregisterToken ('t')\n\
             [WeakRef] [FinalizationRegistry]"
        )
    );
}

#[test]
fn a_promise_combinator_and_an_async_function_hold_what_they_wait_for() {
    // A pending Promise.all keeps its values list; a suspended async body its
    // bindings: after a gc they still log.
    let log = log_of(
        "let p = promise\nlet all2 = all [p, 1]\nthen all2 {\n  log value\n}\n\
         let q = promise\nlet job = async {\n  let o = {}\n  watch o\n  await q\n  log \"resumed\" o\n}\n\
         run turn\ngc\nalive\nresolve p {}\nresolve q\n",
    );
    assert_eq!(log, lines("alive o\nresumed [Object]\nArray([Object], 1)"));
}

#[test]
fn a_closure_keeps_what_its_scope_reads_as_v8_contexts_do() {
    // In the timer's scope, `y` is read by a statement (which runs in an
    // arrow frame of its own when a scenario collects garbage, so V8 keeps
    // it in the scope's context) and so stays while the pending `late`
    // timer lives, though that timer reads nothing; `x`, in a `try` block
    // whose scope no closure keeps, is gone with the call. Node 26.12.1
    // prints the same for the emitted program.
    let log = log_of(
        "setTimeout 1 {\n  try {\n    let x = {}\n    watch x\n  }\n  let y = {}\n  watch y\n  setTimeout 10 {\n    log \"late\"\n  }\n}\n\
         setTimeout 2 {\n  gc\n  alive\n}\nsetTimeout 20 {\n  gc\n  alive\n}\n",
    );
    assert_eq!(log, lines("alive y\nlate\nalive"));
}
