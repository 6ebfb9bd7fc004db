//! The collector's view of impl's objects: what Node 26.12.1 keeps alive
//! and what it collects, the dependant sets as `kDependantSignals.size`
//! reports them. (The GC mutants are exposed by scenarios/mutants/, in
//! impl/tests/mutants.rs.)
//!
//! Every `node` log below is real Node 26.12.1's output for the scenario
//! (`nodesem run FILE --engine node`, the pinned binary with
//! `--expose-gc`); see harness/js/NODE_GC_FACTS.md for the facts behind
//! them.

use nodesem_impl::{ImplEngine, Mutant};
use nodesem_lang::{parse, RunConfig};

fn run(text: &str, mutant: Option<Mutant>) -> Vec<String> {
    let scenario = parse("gc.scn", text).unwrap_or_else(|e| panic!("{e}"));
    ImplEngine { mutant }
        .run_scenario(&scenario, &RunConfig::default())
        .lines
}

/// impl prints Node's log.
fn node(text: &str, node: &[&str]) {
    assert_eq!(run(text, None), node, "impl does not print Node's log");
}

#[test]
fn a_collected_composite_is_counted_until_its_cleanup() {
    node(
        "\
let c = controller
let a = any [c.signal]
let n = dependants c.signal
log n
watch a
drop a
setImmediate {
  gc
  alive
  let m = dependants c.signal
  log m
  setImmediate {
    let k = dependants c.signal
    log k
  }
}
",
        &["1", "alive", "1", "0"],
    );
}

#[test]
fn an_unobserved_timeout_is_collected() {
    node(
        "\
let s = timeout 5
watch s
drop s
setTimeout 1 {
  gc
  alive
}
",
        &["alive"],
    );
}

/// The quirk of NODE_GC_FACTS.md §5: a composite whose first abort
/// listener is weak (the `signal` option of a target since dropped) and
/// second strong is not in gcPersistentSignals, so it is collected and its
/// strong listener never fires.
#[test]
fn weak_then_strong_listener_lets_the_composite_go() {
    node(
        "\
let c = controller
let a = any [c.signal]
let t = target
let f = fn {
  log \"f\"
}
on t x f signal a
on a abort {
  log \"a fired\"
}
watch a
drop a
drop t
setImmediate {
  gc
  setImmediate {
    gc
    alive
    abort c
  }
}
",
        &["alive"],
    );
}

/// Node's weak-listener registry holds the remover's `Listener` record,
/// whose links reach the other listeners of the signal's list: a listener
/// added after the remover lives until the registry's cleanup ran.
#[test]
fn the_weak_listener_registry_holds_the_list() {
    node(
        "\
let c1 = controller
let f2 = fn {
}
watch f2
on c1.signal abort f2 signal c1.signal
drop f2
drop c1
run turn
gc
alive
",
        &["alive f2"],
    );
}

/// The Disposable of `addAbortListener` on an aborted signal shares the
/// function's context, which holds the listener.
#[test]
fn the_disposable_of_an_aborted_signal_holds_the_listener() {
    node(
        "\
let f4 = fn {
}
watch f4
let c9 = controller
abort c9
let d13 = addAbortListener c9.signal f4
drop f4
run advance 0
gc
alive
",
        &["alive f4"],
    );
}

/// A timeout given to `any()` is in gcPersistentSignals until it fires,
/// with no listener anywhere; a composite of it aborts with it.
#[test]
fn a_timeout_given_to_any_is_kept_until_it_fires() {
    node(
        "\
let s = timeout 5
let a = any [s]
on a abort {
  log \"a\" a.reason
}
watch s
drop s
setTimeout 1 {
  gc
  alive
}
setTimeout 20 {
  gc
  alive
}
",
        &[
            "alive s",
            "a TimeoutError: The operation was aborted due to timeout",
            "alive",
        ],
    );
}
