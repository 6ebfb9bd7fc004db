//! The collector's view of impl's objects: what Node 26.12.1 keeps alive
//! and what it collects, the dependant sets as `kDependantSignals.size`
//! reports them, and the GC mutants.
//!
//! Every `node` log below is real Node 26.12.1's output for the scenario
//! (`nodesem run FILE --engine node`, the pinned binary with
//! `--expose-gc`); see harness/js/NODE_GC_FACTS.md for the facts behind
//! them. A `mutant` log is typed by hand from the bug the mutant
//! re-introduces; it is NOT Node's output.

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

/// impl prints Node's log, and `impl+<mutant>` the mutant's, which differs.
fn exposes(mutant: Mutant, text: &str, node_log: &[&str], mutated: &[&str]) {
    node(text, node_log);
    assert_eq!(
        run(text, Some(mutant)),
        mutated,
        "{mutant} does not print the mutant's log typed here"
    );
    assert_ne!(node_log, mutated, "{mutant} is not exposed");
}

/// A collected composite stays in its source's dependant set until the
/// composite registration's cleanup has run (the poll phase after the
/// collection): NODE_GC_FACTS.md §5, `exp/q5_dep.js`.
const DEPENDANTS_PRUNED: &str = "\
let c = controller
let a = any [c.signal]
let b = any [a]
let n = dependants c.signal
log n
drop a
drop b
setImmediate {
  gc
  let m = dependants c.signal
  log m
  setImmediate {
    let k = dependants c.signal
    log k
  }
}
";

#[test]
fn dependants_never_pruned() {
    exposes(
        Mutant::DependantsNeverPruned,
        DEPENDANTS_PRUNED,
        &["2", "2", "0"],
        &["2", "2", "2"], // mutant: the cleanup prunes nothing
    );
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

/// A timeout signal with an abort listener is in gcPersistentSignals
/// until its timer fires (NODE_GC_FACTS.md §5, "Retention measurements").
const TIMEOUT_WITH_LISTENER: &str = "\
let s = timeout 5
on s abort {
  log \"fired\"
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
";

#[test]
fn timeout_collected_early() {
    exposes(
        Mutant::TimeoutCollectedEarly,
        TIMEOUT_WITH_LISTENER,
        &["alive s", "fired", "alive"],
        &["alive", "alive"], // mutant: collected at once, never fires
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

/// A composite with a strong abort listener lives while a source can
/// abort it: once its only source is collected and the source
/// registration's cleanup emptied its sources, it is collected too
/// (NODE_GC_FACTS.md §6, test 5).
const COMPOSITE_AFTER_ITS_SOURCE: &str = "\
let c = controller
let a = any [c.signal]
on a abort {
  log \"a fired\"
}
watch c.signal
watch a
drop a
drop c
setImmediate {
  gc
  alive
  setImmediate {
    gc
    alive
    setImmediate {
      gc
      alive
    }
  }
}
";

#[test]
fn composite_outlives_sources() {
    exposes(
        Mutant::CompositeOutlivesSources,
        COMPOSITE_AFTER_ITS_SOURCE,
        &["alive a", "alive", "alive"],
        &["alive a", "alive a", "alive a"], // mutant: kept for good
    );
}

/// The `signal` option's remover lives as long as the target it was added
/// to (target -> WeakMap entry -> arrow), so a collection does not stop
/// the abort from removing the listener.
const REMOVER_HELD_BY_THE_TARGET: &str = "\
let c = controller
let t = target
let f = fn {
  log \"f\"
}
on t x f signal c.signal
setImmediate {
  gc
  setImmediate {
    abort c
    dispatch t x
    let n = dependants c.signal
    log n
  }
}
";

#[test]
fn signal_remover_weak() {
    exposes(
        Mutant::SignalRemoverWeak,
        REMOVER_HELD_BY_THE_TARGET,
        &["0"],
        &["f", "0"], // mutant: the remover was collected, f stays
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
