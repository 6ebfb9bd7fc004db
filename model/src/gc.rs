//! Garbage collection of the library's objects: their strong edges, the
//! objects Node retains without a script reference, Node's internal
//! FinalizationRegistries, and what the library forgets when the collector
//! frees an object.
//!
//! Node 26.12.1 keeps AbortSignals alive through one strong set,
//! `gcPersistentSignals`, and links composites and sources only through
//! WeakRefs, cleaned by three FinalizationRegistries; weak listeners (the
//! remover of a `{signal}` option) are WeakRefs cleaned by a fourth. The
//! model uses the runtime's real WeakRefs and FinalizationRegistries for
//! them, so that what a `deref()` keeps until the end of the job and when a
//! cleanup runs (a poll phase after the collection) are the runtime's,
//! exactly as in Node (`harness/js/NODE_GC_FACTS.md`).
//!
//! NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L87-L111>
//! the module's registries and `gcPersistentSignals`.

use std::collections::HashSet;
use std::rc::Rc;

use nodesem_runtime::gc::Captures;
use nodesem_runtime::{Completion, ObjectData, ObjectId, Runtime, Value};

use crate::event_target::{self, ListenerId};
use crate::Model;

/// The module-level state of Node's abort_controller.js and
/// event_target.js that garbage collection sees, and what the model holds
/// for work in flight.
#[derive(Debug, Default)]
pub struct GcState {
    /// `gcPersistentSignals`: the signals Node keeps alive though nothing
    /// references them (a set, in insertion order).
    pub(crate) persistent_signals: Vec<ObjectId>,
    /// `clearTimeoutRegistry`, made on first use.
    pub(crate) clear_timeout_registry: Option<Value>,
    /// `dependantSignalsCleanupRegistry`, made on first use.
    pub(crate) dependant_signals_registry: Option<Value>,
    /// `sourceSignalsCleanupRegistry`, made on first use.
    pub(crate) source_signals_registry: Option<Value>,
    /// `weakListenersState` of event_target.js, made on first use.
    pub(crate) weak_listeners_registry: Option<Value>,
    /// Values the library's running algorithms hold in their locals (the
    /// signal being aborted, its reason, `dependentSignalsToAbort`, a
    /// dispatch's target and event): roots while they run.
    pub(crate) in_flight: Vec<Value>,
    /// The listener records a running dispatch holds (`next`), roots.
    pub(crate) dispatch_nodes: Vec<ListenerId>,
}

impl GcState {
    /// Empties the state for another scenario.
    pub fn clear(&mut self) {
        let GcState {
            persistent_signals,
            clear_timeout_registry,
            dependant_signals_registry,
            source_signals_registry,
            weak_listeners_registry,
            in_flight,
            dispatch_nodes,
        } = self;
        persistent_signals.clear();
        *clear_timeout_registry = None;
        *dependant_signals_registry = None;
        *source_signals_registry = None;
        *weak_listeners_registry = None;
        in_flight.clear();
        dispatch_nodes.clear();
    }
}

// ---- gcPersistentSignals ----------------------------------------------------

/// `gcPersistentSignals.add(signal)`.
pub(crate) fn persistent_add(rt: &mut Runtime<Model>, signal: ObjectId) {
    let set = &mut rt.lib.gc.persistent_signals;
    if !set.contains(&signal) {
        set.push(signal);
    }
}

/// `gcPersistentSignals.delete(signal)`.
pub(crate) fn persistent_delete(rt: &mut Runtime<Model>, signal: ObjectId) {
    rt.lib.gc.persistent_signals.retain(|s| *s != signal);
}

// ---- work in flight -----------------------------------------------------------

/// Roots `values` until [`release`] with the returned mark.
pub(crate) fn hold(rt: &mut Runtime<Model>, values: &[Value]) -> usize {
    let mark = rt.lib.gc.in_flight.len();
    rt.lib.gc.in_flight.extend_from_slice(values);
    mark
}

/// Drops what was held since `mark`.
pub(crate) fn release(rt: &mut Runtime<Model>, mark: usize) {
    rt.lib.gc.in_flight.truncate(mark);
}

// ---- WeakRefs -------------------------------------------------------------

/// `new SafeWeakRef(target)` (which keeps the target until the end of the job).
pub(crate) fn new_weak_ref(rt: &mut Runtime<Model>, target: ObjectId) -> Value {
    rt.new_weak_ref(Value::Object(target))
        .expect("an object can be held weakly")
}

/// `weakRef.deref()` (which keeps the target until the end of the job).
pub(crate) fn deref(rt: &mut Runtime<Model>, weak_ref: &Value) -> Option<ObjectId> {
    match rt.weak_ref_deref(weak_ref).expect("a WeakRef") {
        Value::Object(id) => Some(id),
        _ => None,
    }
}

/// What a WeakRef points to, read without `deref()` (and so without keeping
/// it): for tracing and invariants only, never for the algorithms.
pub(crate) fn peek(rt: &Runtime<Model>, weak_ref: &Value) -> Option<ObjectId> {
    match weak_ref {
        Value::Object(id) => match rt.heap.get(*id) {
            ObjectData::WeakRef(Value::Object(target)) => Some(*target),
            _ => None,
        },
        _ => None,
    }
}

/// A registry's holdings of several values: a plain array (Node's holdings
/// are null-prototype objects; only their fields matter).
pub(crate) fn holdings(rt: &mut Runtime<Model>, values: Vec<Value>) -> Value {
    Value::Object(rt.heap.alloc(ObjectData::Array(Rc::from(values))))
}

fn held_fields(rt: &Runtime<Model>, args: &[Value]) -> Vec<Value> {
    match args.first() {
        Some(Value::Object(id)) => match rt.heap.get(*id) {
            ObjectData::Array(items) => items.to_vec(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

// ---- Node's registries ------------------------------------------------------

/// `clearTimeoutRegistry = new SafeFinalizationRegistry(clearTimeout)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L87>
/// MODEL: the holdings is the timer's id, standing for the Timeout object.
pub(crate) fn clear_timeout_registry(rt: &mut Runtime<Model>) -> Value {
    if let Some(r) = &rt.lib.gc.clear_timeout_registry {
        return r.clone();
    }
    let cleanup = rt.native_function_capturing(Captures::nothing(), |rt, _this, args| {
        if let Some(Value::Number(id)) = args.first() {
            rt.clear_timeout(*id as u64);
        }
        Ok(Value::Undefined)
    });
    let registry = rt
        .new_finalization_registry(Value::Object(cleanup))
        .expect("a function");
    rt.lib.gc.clear_timeout_registry = Some(registry.clone());
    registry
}

/// `dependantSignalsCleanupRegistry` and `sourceSignalsCleanupRegistry`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L88-L111>
pub(crate) fn signal_registries(rt: &mut Runtime<Model>) -> (Value, Value) {
    if let (Some(d), Some(s)) = (
        &rt.lib.gc.dependant_signals_registry,
        &rt.lib.gc.source_signals_registry,
    ) {
        return (d.clone(), s.clone());
    }
    // ({ sourceSignalRef, dependantSignalRef }) => { ... }
    let dependant_cleanup = rt.native_function_capturing(Captures::nothing(), |rt, _this, args| {
        let fields = held_fields(rt, args);
        let [source_signal_ref, dependant_signal_ref] = &fields[..] else {
            return Ok(Value::Undefined);
        };
        // sourceSignalsCleanupRegistry.unregister(dependantSignalRef);
        let (_, source_registry) = signal_registries(rt);
        rt.registry_unregister(&source_registry, dependant_signal_ref.clone())?;
        // const sourceSignal = sourceSignalRef.deref();
        // if (sourceSignal === undefined) return;
        let Some(source_signal) = deref(rt, source_signal_ref) else {
            return Ok(Value::Undefined);
        };
        // sourceSignal[kDependantSignals].delete(dependantSignalRef);
        crate::abort::dependants_delete(rt, source_signal, dependant_signal_ref);
        Ok(Value::Undefined)
    });
    // ({ sourceSignalRef, composedSignalRef }) => { ... }
    let source_cleanup = rt.native_function_capturing(Captures::nothing(), |rt, _this, args| {
        let fields = held_fields(rt, args);
        let [source_signal_ref, composed_signal_ref] = &fields[..] else {
            return Ok(Value::Undefined);
        };
        if let Some(composed_signal) = deref(rt, composed_signal_ref) {
            // composedSignal[kSourceSignals].delete(sourceSignalRef);
            // if (composedSignal[kSourceSignals].size === 0)
            //   gcPersistentSignals.delete(composedSignal);
            if crate::abort::sources_delete(rt, composed_signal, source_signal_ref) == 0 {
                persistent_delete(rt, composed_signal);
            }
        }
        Ok(Value::Undefined)
    });
    let dependant = rt
        .new_finalization_registry(Value::Object(dependant_cleanup))
        .expect("a function");
    let source = rt
        .new_finalization_registry(Value::Object(source_cleanup))
        .expect("a function");
    rt.lib.gc.dependant_signals_registry = Some(dependant.clone());
    rt.lib.gc.source_signals_registry = Some(source.clone());
    (dependant, source)
}

/// `weakListeners().registry`: cleanup
/// `({ eventTarget, listener, eventType }) => eventTarget.deref()?.[kRemoveWeakListenerHelper](eventType, listener)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L433-L443>
pub(crate) fn weak_listeners_registry(rt: &mut Runtime<Model>) -> Value {
    if let Some(r) = &rt.lib.gc.weak_listeners_registry {
        return r.clone();
    }
    let cleanup = rt.native_function_capturing(Captures::nothing(), |rt, _this, args| {
        let fields = held_fields(rt, args);
        let [event_target_ref, Value::Object(record), Value::String(event_type)] = &fields[..]
        else {
            return Ok(Value::Undefined);
        };
        if let Some(event_target) = deref(rt, event_target_ref) {
            event_target::remove_weak_listener_helper(rt, event_target, event_type, *record);
        }
        Ok(Value::Undefined)
    });
    let registry = rt
        .new_finalization_registry(Value::Object(cleanup))
        .expect("a function");
    rt.lib.gc.weak_listeners_registry = Some(registry.clone());
    registry
}

// ---- the Library's GC methods --------------------------------------------------

/// `dependants S`: `signal[kDependantSignals]?.size ?? 0`.
pub(crate) fn dependant_count(rt: &mut Runtime<Model>, signal: Value) -> Completion {
    let n = match signal {
        Value::Object(id) => rt
            .lib
            .signals
            .get(&id)
            .map_or(0, |s| s.dependent_signals.len()),
        _ => 0,
    };
    Ok(Value::Number(n as f64))
}

/// The strong edges of one of the library's objects: what Node's object
/// holds in its fields and private slots (WeakRef objects included, their
/// targets not).
pub(crate) fn trace(rt: &Runtime<Model>, obj: ObjectId, edges: &mut Vec<Value>) {
    let lib = &rt.lib;
    lib.async_context.trace(obj, edges);
    // AbortController: `#signal` (l.567).
    if let Some(signal) = lib.controllers.get(&obj) {
        edges.push(Value::Object(*signal));
    }
    // EventTarget: kEvents (the lists), kHandlers (wrappers and handlers).
    if lib.targets.contains_key(&obj) {
        event_target::trace_target(rt, obj, edges);
    }
    // The WeakMap `objectToWeakListenerMap`: while the retainer lives, its
    // entry holds the weak listeners' functions (an ephemeron).
    if let Some(functions) = lib.weak_listener_map.get(&obj) {
        edges.extend(functions.iter().map(|f| Value::Object(*f)));
    }
    // A weak Listener record (held by the weak-listener registry's
    // holdings): its WeakRefs and its neighbours in the list.
    if let Some(&node) = lib.records.get(&obj) {
        event_target::trace_chain(rt, node, edges);
    }
    // AbortSignal: kReason, kSourceSignals and kDependantSignals (Sets of
    // WeakRefs), kResultSignalWeakRef.
    if let Some(s) = lib.signals.get(&obj) {
        edges.push(s.reason.clone());
        if let Some(sources) = &s.source_signals {
            edges.extend(sources.iter().cloned());
        }
        edges.extend(s.dependent_signals.iter().cloned());
        if let Some(r) = &s.result_signal_weak_ref {
            edges.push(r.clone());
        }
    }
    // Event: kTarget, kDetail.
    if let Some(e) = lib.events.get(&obj) {
        if let Some(t) = e.target {
            edges.push(Value::Object(t));
        }
        if let Some(d) = &e.detail {
            edges.push(d.clone());
        }
    }
    // addAbortListener's Disposable: its method's context holds `signal`
    // and `listener` (abort_listener.js l.27-65).
    if let Some(d) = lib.disposables.get(&obj) {
        let (signal, listener) = d.holds();
        edges.push(Value::Object(signal));
        edges.push(Value::Object(listener));
    }
    // The streams' objects: ReadableStream, its default and byte
    // controllers, default and BYOB readers, BYOB requests, the async
    // iterators and their state records, the records of the default and
    // byte tees and of ReadableStream.from (streams.rs, byte_streams.rs,
    // iterate.rs); WritableStream, its controller and writer (writable.rs);
    // TransformStream and its controller (transform.rs); a pipe's record
    // (pipe.rs).
    // EventEmitter: its listener records (functions, once wrappers and
    // their originals).
    crate::emitter::trace(rt, obj, edges);
    // events.on: an iterator's scope, and what the scope holds.
    crate::events_on::trace(rt, obj, edges);
    crate::streams::trace(rt, obj, edges);
    crate::writable::trace(rt, obj, edges);
    crate::transform::trace(rt, obj, edges);
    if let Some(pipe) = lib.pipes.get(&obj) {
        pipe.trace(edges);
    }
}

/// The library's roots: `gcPersistentSignals`, Node's module-level
/// registries and lazily made errors, and what running algorithms hold.
/// Every object of the library is traced, so this never gives up.
pub(crate) fn trace_roots(rt: &Runtime<Model>, roots: &mut Vec<Value>) -> bool {
    rt.lib.streams.roots(roots);
    rt.lib.writable.roots(roots);
    let gc = &rt.lib.gc;
    roots.extend(gc.persistent_signals.iter().map(|s| Value::Object(*s)));
    for registry in [
        &gc.clear_timeout_registry,
        &gc.dependant_signals_registry,
        &gc.source_signals_registry,
        &gc.weak_listeners_registry,
    ]
    .into_iter()
    .flatten()
    {
        roots.push(registry.clone());
    }
    roots.extend(gc.in_flight.iter().cloned());
    crate::emitter::roots(rt, roots);
    for &node in &gc.dispatch_nodes {
        event_target::trace_chain(rt, node, roots);
    }
    true
}

/// Forgets collected objects, then checks what Node guarantees after a
/// collection:
///
/// 1. no strong reference to a collected object remains in the library's
///    state of a live object (which checks `trace` against the tables: an
///    edge it forgot shows up here);
/// 2. every WeakRef to a collected composite that is still in a live
///    source's `kDependantSignals` has a cleared cell of
///    `dependantSignalsCleanupRegistry` that will delete it in the next
///    cleanup (Node never deletes those entries on abort: the set shrinks
///    only there);
/// 3. every WeakRef to a collected source still in the `kSourceSignals` of a
///    live, following composite has a cleared cell of
///    `sourceSignalsCleanupRegistry` that will delete it.
pub(crate) fn collected(rt: &mut Runtime<Model>, dead: &[ObjectId]) {
    let dead_set: HashSet<ObjectId> = dead.iter().copied().collect();
    let persistent_dead = rt
        .lib
        .gc
        .persistent_signals
        .iter()
        .any(|s| dead_set.contains(s));
    assert!(
        !persistent_dead,
        "a signal of gcPersistentSignals was collected"
    );
    {
        let lib = &mut rt.lib;
        for id in dead {
            lib.controllers.remove(id);
            lib.targets.remove(id);
            lib.signals.remove(id);
            lib.events.remove(id);
            lib.disposables.remove(id);
            lib.records.remove(id);
            lib.weak_listener_map.remove(id);
            lib.streams.forget(id);
            lib.writable.forget(id);
            lib.transform.forget(id);
            lib.pipes.remove(id);
            lib.emitters.remove(id);
            lib.once_wrappers.remove(id);
            lib.async_context.forget(id);
        }
        for id in dead {
            crate::events_on::forget(rt, id);
        }
    }
    check_no_strong_reference_to(rt, &dead_set);
    check_weak_sets_are_cleaned(rt);
}

fn check_no_strong_reference_to(rt: &Runtime<Model>, dead: &HashSet<ObjectId>) {
    let is_dead = |v: &Value| matches!(v, Value::Object(id) if dead.contains(id));
    let mut objects: Vec<ObjectId> = Vec::new();
    objects.extend(rt.lib.controllers.ids());
    objects.extend(rt.lib.targets.ids());
    objects.extend(rt.lib.events.ids());
    objects.extend(rt.lib.disposables.ids());
    objects.extend(rt.lib.records.ids());
    objects.extend(rt.lib.weak_listener_map.ids());
    objects.extend(rt.lib.streams.ids());
    objects.extend(rt.lib.writable.ids());
    objects.extend(rt.lib.transform.ids());
    objects.extend(rt.lib.pipes.ids());
    objects.extend(rt.lib.emitters.ids());
    objects.extend(rt.lib.on_iterators.ids());
    objects.extend(rt.lib.on_scopes.ids());
    objects.extend(rt.lib.async_context.ids());
    for obj in objects {
        let mut edges = Vec::new();
        trace(rt, obj, &mut edges);
        if let Some(v) = edges.iter().find(|v| is_dead(v)) {
            panic!("invariant: live {obj:?} holds the collected {v:?}");
        }
    }
}

/// The cleared cells' holdings of a registry.
fn cleared_holdings(rt: &Runtime<Model>, registry: &Option<Value>) -> Vec<Vec<Value>> {
    let Some(Value::Object(id)) = registry else {
        return Vec::new();
    };
    let ObjectData::FinalizationRegistry(data) = rt.heap.get(*id) else {
        return Vec::new();
    };
    data.cells
        .iter()
        .filter(|c| c.target.is_none())
        .map(|c| held_fields(rt, std::slice::from_ref(&c.held)))
        .collect()
}

fn check_weak_sets_are_cleaned(rt: &Runtime<Model>) {
    let dependant_cells = cleared_holdings(rt, &rt.lib.gc.dependant_signals_registry);
    let source_cells = cleared_holdings(rt, &rt.lib.gc.source_signals_registry);
    for signal in rt.lib.signals.ids() {
        let s = &rt.lib.signals[&signal];
        for w in &s.dependent_signals {
            if peek(rt, w).is_some() {
                continue;
            }
            let covered = dependant_cells.iter().any(|h| {
                matches!(&h[..], [source_ref, dep_ref] if dep_ref == w && peek(rt, source_ref) == Some(signal))
            });
            assert!(
                covered,
                "invariant: {signal:?}'s kDependantSignals holds a WeakRef to a collected composite \
                 that no cleanup will delete"
            );
        }
        if !s.following {
            continue;
        }
        for w in s.source_signals.iter().flatten() {
            if peek(rt, w).is_some() {
                continue;
            }
            let covered = source_cells.iter().any(|h| {
                matches!(&h[..], [source_ref, composed_ref] if source_ref == w && peek(rt, composed_ref) == Some(signal))
            });
            assert!(
                covered,
                "invariant: {signal:?}'s kSourceSignals holds a WeakRef to a collected source \
                 that no cleanup will delete"
            );
        }
    }
}
