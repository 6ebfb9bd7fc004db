//! The model's garbage collection of abort signals and listeners
//! (model/src/gc.rs): scenarios whose logs are what real Node 26.12.1
//! prints. Every expected log below was produced by
//! `nodesem run FILE --engine node` on the pinned Node (and the model
//! agrees): Node's test-abortsignal-drop-settled-signals.mjs and
//! test-abortsignal-any-source-gc.mjs cases, and the retention rules of
//! harness/js/NODE_GC_FACTS.md.

use nodesem_lang::{parse, RunConfig};
use nodesem_model::Model;
use nodesem_runtime::run_scenario;

fn check(name: &str, text: &str, expected: &[&str]) {
    let scenario = parse(name, text).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let log = run_scenario::<Model>(&scenario, &RunConfig::default());
    assert_eq!(log.lines, expected, "{name}");
}

/// AbortSignal.timeout with a listener: alive after gc (gcPersistentSignals) and fires; collected after.
#[test]
fn timeout_with_a_listener_is_kept_until_it_fires() {
    check(
        "timeout_with_a_listener_is_kept_until_it_fires",
        r#"let s = timeout 5
on s abort {
  log "fired"
}
watch s
drop s
gc
alive
setTimeout 1 {
  gc
  alive
}
setTimeout 20 {
  gc
  alive
}
"#,
        &["alive s", "alive s", "fired", "alive"],
    );
}

/// AbortSignal.timeout without listeners: collected; its timer does not keep it.
#[test]
fn unobserved_timeout_is_collected() {
    check(
        "unobserved_timeout_is_collected",
        r#"let s = timeout 5
watch s
drop s
setTimeout 1 {
  gc
  alive
}
"#,
        &["alive"],
    );
}

/// any([c.signal]) with a strong abort listener, dropped: alive, fires on abort, collected after; the source's dependant entry goes one cleanup later.
#[test]
fn composite_with_a_listener_and_a_live_source_is_kept() {
    check(
        "composite_with_a_listener_and_a_live_source_is_kept",
        r#"let c = controller
let a = any [c.signal]
on a abort {
  log "a aborted"
}
watch a
drop a
setTimeout 1 {
  gc
  alive
  abort c
  setImmediate {
    gc
    alive
    let n = dependants c.signal
    log n
    setImmediate {
      let m = dependants c.signal
      log m
    }
  }
}
"#,
        &["alive a", "a aborted", "alive", "1", "0"],
    );
}

/// The source collected, sourceSignalsCleanupRegistry empties the composite's sources and it leaves gcPersistentSignals: collected at the next gc.
#[test]
fn composite_is_collected_after_its_last_source() {
    check(
        "composite_is_collected_after_its_last_source",
        r#"let c = controller
let a = any [c.signal]
on a abort {
  log "a aborted"
}
watch a
watch c
drop a
drop c
setTimeout 1 {
  gc
  alive
  setImmediate {
    gc
    alive
  }
}
"#,
        &["alive a", "alive"],
    );
}

/// A timeout passed to any() is in gcPersistentSignals, listeners or not, until it fires; the unobserved composite is not.
#[test]
fn timeout_passed_to_any_is_kept_until_it_fires() {
    check(
        "timeout_passed_to_any_is_kept_until_it_fires",
        r#"let s = timeout 10
let a = any [s]
watch s
watch a
drop s
drop a
setTimeout 1 {
  gc
  alive
}
setTimeout 20 {
  gc
  alive
}
"#,
        &["alive s", "alive"],
    );
}

/// `{signal}`: the target keeps the signal (through the remover), the signal does not keep the target.
#[test]
fn signal_option_remover_is_weak() {
    check(
        "signal_option_remover_is_weak",
        r#"let c = controller
let t = target
on t x signal c.signal {
  log "x"
}
let s = c.signal
watch s
watch t
drop c
drop s
setTimeout 1 {
  gc
  alive
  drop t
  setImmediate {
    gc
    alive
  }
}
"#,
        &["alive s t", "alive"],
    );
}

/// Node's quirk: the first abort listener weak (a `{signal}` remover whose target is gone), the second strong: the size is 2, the composite is not kept and its listener never fires.
#[test]
fn weak_first_then_strong_listener_is_not_kept() {
    check(
        "weak_first_then_strong_listener_is_not_kept",
        r#"let c = controller
let a = any [c.signal]
let t = target
on t x signal a {
  log "x"
}
on a abort {
  log "a aborted"
}
watch a
drop a
drop t
setTimeout 1 {
  gc
  alive
  abort c
  setImmediate {
    gc
    alive
  }
}
"#,
        &["alive", "alive"],
    );
}

/// Strong first, weak second: kept, fires.
#[test]
fn strong_first_then_weak_listener_is_kept() {
    check(
        "strong_first_then_weak_listener_is_kept",
        r#"let c = controller
let a = any [c.signal]
on a abort {
  log "a aborted"
}
let t = target
on t x signal a {
  log "x"
}
watch a
drop a
drop t
setTimeout 1 {
  gc
  alive
  abort c
  setImmediate {
    gc
    alive
  }
}
"#,
        &["alive a", "a aborted", "alive"],
    );
}

/// addAbortListener's strong listener puts the composite in gcPersistentSignals.
#[test]
fn add_abort_listener_disposable_keeps_the_composite() {
    check(
        "add_abort_listener_disposable_keeps_the_composite",
        r#"let c = controller
let a = any [c.signal]
let d = addAbortListener a {
  log "listener"
}
watch a
drop a
setTimeout 1 {
  gc
  alive
  abort c
}
"#,
        &["alive a", "listener"],
    );
}

/// NODE_GC_FACTS.md section 5 (q5_dep): the dependant WeakRef counts until the cleanup.
#[test]
fn dependants_shrink_one_cleanup_after_the_composite_is_collected() {
    check(
        "dependants_shrink_one_cleanup_after_the_composite_is_collected",
        r#"let c = controller
let a = any [c.signal]
watch a
let n = dependants c.signal
log n
drop a
gc
alive
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
"#,
        &["1", "alive a", "alive", "1", "0"],
    );
}

/// test-abortsignal-drop-settled-signals.mjs 1: composites whose listeners were removed go, and so do their entries.
#[test]
fn drop_settled_signals_drops_settled_dependants() {
    check(
        "drop_settled_signals_drops_settled_dependants",
        r#"let c = controller
let f = fn {
  log "never"
}
let a1 = any [c.signal]
on a1 abort f
let a2 = any [c.signal]
on a2 abort f
setImmediate {
  off a1 abort f
  off a2 abort f
  drop a1
  drop a2
}
setTimeout 5 {
  gc
  let n = dependants c.signal
  log n
  setImmediate {
    let m = dependants c.signal
    log m
  }
}
"#,
        &["2", "0"],
    );
}

/// test-abortsignal-drop-settled-signals.mjs 2: composites still referenced stay in the set.
#[test]
fn drop_settled_signals_keeps_active_dependants() {
    check(
        "drop_settled_signals_keeps_active_dependants",
        r#"let c = controller
let a1 = any [c.signal]
on a1 abort {
  log "a1"
}
let a2 = any [c.signal]
on a2 abort {
  log "a2"
}
setTimeout 5 {
  gc
  setImmediate {
    let n = dependants c.signal
    log n
  }
}
"#,
        &["2"],
    );
}

/// test-abortsignal-drop-settled-signals.mjs 3: a source used only by a discarded any() is collected.
#[test]
fn drop_settled_signals_short_lived_sources() {
    check(
        "drop_settled_signals_short_lived_sources",
        r#"let c1 = controller
let s1 = c1.signal
watch s1
let x1 = any [s1]
drop x1
drop s1
drop c1
let c2 = controller
let s2 = c2.signal
watch s2
let x2 = any [s2]
drop x2
drop s2
drop c2
setTimeout 1 {
  gc
  setImmediate {
    alive
  }
}
"#,
        &["alive"],
    );
}

/// test-abortsignal-drop-settled-signals.mjs 4: sizes 2 and 1, then 0 once the composite is collected and cleaned.
#[test]
fn drop_settled_signals_composite_source() {
    check(
        "drop_settled_signals_composite_source",
        r#"let c0 = controller
let c1 = controller
let s0 = c0.signal
let s1 = c1.signal
let a = any [s0]
let b = any [a, s1]
watch b
let n0 = dependants s0
let n1 = dependants s1
log n0 n1
drop a
drop b
setTimeout 1 {
  gc
  alive
  let m0 = dependants s0
  let m1 = dependants s1
  log m0 m1
  setImmediate {
    gc
    alive
    let k0 = dependants s0
    let k1 = dependants s1
    log k0 k1
  }
}
"#,
        &["2 1", "alive", "2 1", "alive", "0 0"],
    );
}

/// test-abortsignal-drop-settled-signals.mjs 5: composites with listeners over a collected source are collected.
#[test]
fn drop_settled_signals_even_with_listeners() {
    check(
        "drop_settled_signals_even_with_listeners",
        r#"let c = controller
let s = c.signal
let a = any [s]
on a abort {
  log "a"
}
let b = any [a]
on b abort {
  log "b"
}
watch s
watch a
watch b
drop s
drop a
drop b
drop c
setTimeout 1 {
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
"#,
        &["alive a b", "alive", "alive"],
    );
}

/// test-abortsignal-any-source-gc.mjs: the source aborted and collected, the nested composite still reports its abort.
#[test]
fn any_source_gc_keeps_the_abort_of_a_collected_source() {
    check(
        "any_source_gc_keeps_the_abort_of_a_collected_source",
        r#"let c = controller
let i = any [c.signal]
let a = any [i]
drop i
let s = c.signal
watch s
drop s
abort c "boom"
drop c
setTimeout 1 {
  gc
  alive
  log a.aborted a.reason
}
"#,
        &["alive", "true boom"],
    );
}
