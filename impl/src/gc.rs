//! Garbage collection of the library's objects (the emitter's are
//! `emitter.rs`'s): their strong edges, the
//! objects Node retains without a script reference (`gcPersistentSignals`,
//! the module-level FinalizationRegistries), and what the library forgets
//! when the collector frees an object.
//!
//! The bookkeeping is the seed's (`seeds/abort-signal-speedup.txt`), built
//! on the runtime's real WeakRefs and FinalizationRegistries, so that what a
//! WeakRef keeps alive during a job and when a cleanup runs (the poll phase)
//! are the runtime's, as they are V8's for Node:
//!
//! - one self-WeakRef per signal ([`self_ref`]), made where Node 26.12.1
//!   makes one (`followCompositeSignal`'s `??=`, `AbortSignal.timeout`) and
//!   shared by every composite that follows the signal;
//! - one registration per composite ([`Registries::composites`]) and one per
//!   source at its first dependant ([`Registries::sources`]), without
//!   unregister tokens; their held values are the signal's index in
//!   `Impl::signals`, whose record outlives the object (the cleanup reads the
//!   dead signal's lists one last time);
//! - the timeouts' registry holds the timer through a holder that the timer
//!   empties when it fires ([`Registries::timeouts`]);
//! - the weak listeners of the `signal` option: the retainer (the target
//!   the listener was added to) holds the remover (its "arrow", a host
//!   object of its own), the signal holds it only weakly, and a registry on
//!   the arrow unlinks it once it is collected ([`Registries::weak_listeners`]).
//!
//! NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L357-L358> where the seed and 26.12.1 differ observably, 26.12.1 is kept:
//! `AbortSignal.any()` makes a new WeakRef to each plain input in 26.12.1,
//! which keeps the input alive until the end of the job (AddToKeptObjects);
//! the seed shares one WeakRef per signal, made once, so a later `any()`
//! would not keep its input. [`keep_input`] adds the input to the kept list
//! every time, as 26.12.1 does.

use nodesem_runtime::{Captures, Completion, ObjectData, ObjectId, Runtime, Value};

use crate::listeners::{Callback, NIL};
use crate::{Impl, Mutant, Rt, Slot, ABORT};

/// The library's FinalizationRegistries, made on first use (Node's are
/// module-level, so always reachable: they are roots).
#[derive(Default, Clone, Copy)]
pub(crate) struct Registries {
    /// Seed ("Each composite registers once, to leave its sources'
    /// dependant sets when it is collected"): held value, the composite's
    /// index.
    pub(crate) composites: Option<ObjectId>,
    /// Seed ("Each source registers once, when it gets its first dependant,
    /// to leave its dependants' source sets when it is collected"): held
    /// value, the source's index.
    pub(crate) sources: Option<ObjectId>,
    /// Seed ("the registry holds the timer through a small holder"): held
    /// value, the holder's index.
    pub(crate) timeouts: Option<ObjectId>,
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L433-L443>
    /// `weakListenersState`: held value, the remover's index.
    pub(crate) weak_listeners: Option<ObjectId>,
}

/// The `signal` option's remover (Node's arrow `() =>
/// this.removeEventListener(type, listener, options)`), as a host object:
/// it holds its retainer target, the listener and, through `options`, the
/// signal.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RemoverData {
    /// The arrow object.
    pub(crate) arrow: ObjectId,
    /// The signal (index) whose abort list holds it weakly.
    pub(crate) signal: u32,
    /// The retainer: the target (index) the listener was added to.
    pub(crate) retainer: u32,
    /// The listener the arrow removes, if it is an object.
    pub(crate) listener: Option<ObjectId>,
    /// What the removal throws for a refused listener.
    pub(crate) error: Option<ObjectId>,
    /// Its node in the signal's abort list while linked (`NIL` once
    /// removed: the registration is then as good as unregistered).
    pub(crate) node: u32,
    /// Whether its registration's cell is still there: not unregistered
    /// by `remove()` and its cleanup not run yet. Node's held value holds
    /// the `Listener` record, whose `next`/`previous` reach every record of
    /// the list: while registered, the list's listeners are held.
    pub(crate) registered: bool,
}

/// Which registry.
#[derive(Clone, Copy)]
enum Which {
    Composites,
    Sources,
    Timeouts,
    WeakListeners,
}

/// The registry `which`, made on first use with its native cleanup
/// (which captures nothing: it reads the library's tables).
fn registry(rt: &mut Rt, which: Which) -> Value {
    let slot = match which {
        Which::Composites => rt.lib.registries.composites,
        Which::Sources => rt.lib.registries.sources,
        Which::Timeouts => rt.lib.registries.timeouts,
        Which::WeakListeners => rt.lib.registries.weak_listeners,
    };
    if let Some(r) = slot {
        return Value::Object(r);
    }
    let cleanup = rt.native_function_capturing(Captures::nothing(), move |rt, _this, args| {
        let index = match args.first() {
            Some(Value::Number(n)) => *n as u32,
            // A source's held value is its own WeakRef.
            Some(Value::Object(w)) => {
                match rt.lib.signals.iter().position(|s| s.weak_ref == Some(*w)) {
                    Some(i) => i as u32,
                    None => return Ok(Value::Undefined),
                }
            }
            _ => return Ok(Value::Undefined),
        };
        match which {
            Which::Composites => composite_collected(rt, index),
            Which::Sources => source_collected(rt, index),
            Which::Timeouts => timeout_collected(rt, index),
            Which::WeakListeners => remover_collected(rt, index),
        }
        Ok(Value::Undefined)
    });
    let registry = rt
        .new_finalization_registry(Value::Object(cleanup))
        .expect("a native function is callable");
    let id = registry.as_object().expect("a registry is an object");
    let r = &mut rt.lib.registries;
    match which {
        Which::Composites => r.composites = Some(id),
        Which::Sources => r.sources = Some(id),
        Which::Timeouts => r.timeouts = Some(id),
        Which::WeakListeners => r.weak_listeners = Some(id),
    }
    registry
}

fn register(rt: &mut Rt, which: Which, target: ObjectId, index: u32) {
    let registry = registry(rt, which);
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L488-L494> a weak listener registers with its record as the
    // unregister token, and `remove()` unregisters it: a removed listener's
    // cell never makes a cleanup task (whose callback scope would drain the
    // ticks an uncaught exception left). The arrow is the token here. The
    // seed's registrations of composites and sources take none.
    //
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L311-L314> a timeout signal is its own token too, so
    // that its timer can unregister it when it fires (the seed keeps that
    // registration until the signal is collected, which makes a cleanup task
    // then: `impl+timeout-registration-kept`).
    let token =
        matches!(which, Which::WeakListeners | Which::Timeouts).then_some(Value::Object(target));
    register_with(rt, registry, target, Value::Number(f64::from(index)), token);
}

fn register_with(
    rt: &mut Rt,
    registry: Value,
    target: ObjectId,
    held: Value,
    token: Option<Value>,
) {
    rt.registry_register(&registry, Value::Object(target), held, token)
        .expect("a library object can be held weakly");
}

/// Registers a composite (once).
pub(crate) fn register_composite(rt: &mut Rt, composite: u32) {
    let obj = rt.lib.signals[composite as usize].obj;
    register(rt, Which::Composites, obj, composite);
}

/// Registers a source, at its first dependant (again after every
/// dependant's cleanup took the registration away).
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L88-L97>
/// 26.12.1 registers a source once per composite, with the composite's
/// WeakRef as the unregister token, and a composite's cleanup unregisters
/// those cells: a source collected after every composite that followed it
/// was cleaned up has no cell left, so it makes no cleanup task (whose
/// callback scope would drain the ticks an uncaught exception left
/// waiting). The seed's one registration per source, without a token,
/// would make one: `impl+source-registration-kept`. So the one
/// registration here takes the source's own WeakRef as its token (and as
/// its held value, which keeps that token alive while the cell exists), and
/// the last pending composite's cleanup unregisters it.
pub(crate) fn register_source(rt: &mut Rt, source: u32) {
    let obj = rt.lib.signals[source as usize].obj;
    let registry = registry(rt, Which::Sources);
    let w = self_ref(rt, source);
    register_with(rt, registry, obj, Value::Object(w), Some(Value::Object(w)));
}

/// A composite's cleanup ran: each source it registered with counts it
/// off, and a source with none left loses its registration.
fn sources_count_off(rt: &mut Rt, composite: u32) {
    let sources = std::mem::take(&mut rt.lib.signals[composite as usize].registered_sources);
    for source in sources {
        let data = &mut rt.lib.signals[source as usize];
        if data.source_pending == 0 {
            continue;
        }
        data.source_pending -= 1;
        if data.source_pending > 0 || rt.lib.mutant == Some(Mutant::SourceRegistrationKept) {
            continue;
        }
        let (Some(registry), Some(w)) = (rt.lib.registries.sources, data.weak_ref) else {
            continue;
        };
        let _ = rt.registry_unregister(&Value::Object(registry), Value::Object(w));
    }
}

/// The timer of a timeout signal fired: `clearTimeoutRegistry.unregister(signal)`.
pub(crate) fn unregister_timeout(rt: &mut Rt, signal: u32) {
    let obj = rt.lib.signals[signal as usize].obj;
    if let Some(registry) = rt.lib.registries.timeouts {
        let _ = rt.registry_unregister(&Value::Object(registry), Value::Object(obj));
    }
}

/// Registers a timeout signal with its holder.
pub(crate) fn register_timeout(rt: &mut Rt, signal: u32, holder: u32) {
    let obj = rt.lib.signals[signal as usize].obj;
    register(rt, Which::Timeouts, obj, holder);
}

/// Registers a remover's arrow.
pub(crate) fn register_remover(rt: &mut Rt, remover: u32) {
    let arrow = rt.lib.removers[remover as usize].arrow;
    register(rt, Which::WeakListeners, arrow, remover);
}

/// The signal's self-WeakRef (`signal[kWeakRef] ??= new WeakRef(signal)`):
/// making it keeps the signal until the end of the job, as `new WeakRef`
/// does.
pub(crate) fn self_ref(rt: &mut Rt, signal: u32) -> ObjectId {
    if let Some(w) = rt.lib.signals[signal as usize].weak_ref {
        return w;
    }
    let obj = rt.lib.signals[signal as usize].obj;
    let w = rt
        .new_weak_ref(Value::Object(obj))
        .expect("a signal can be held weakly")
        .as_object()
        .expect("a WeakRef is an object");
    rt.lib.signals[signal as usize].weak_ref = Some(w);
    w
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L357>
/// `new SafeWeakRef(signal)` for a plain input of `any()`: the seed shares
/// the signal's one WeakRef, but 26.12.1's new one keeps the input until
/// the end of the job, which is observable; so it is kept here too.
pub(crate) fn keep_input(rt: &mut Rt, signal: u32) -> ObjectId {
    let w = self_ref(rt, signal);
    let obj = rt.lib.signals[signal as usize].obj;
    rt.add_to_kept_objects(&Value::Object(obj));
    w
}

/// `weakRef.deref()`: the signal, kept until the end of the job, or `None`
/// once collected. A WeakRef object that was collected itself (its signal
/// held it, so the signal is gone too) derefs to `None`.
pub(crate) fn deref(rt: &mut Rt, w: ObjectId) -> Option<u32> {
    if !rt.is_alive(w) {
        return None;
    }
    match rt.weak_ref_deref(&Value::Object(w)) {
        Ok(Value::Object(obj)) => match rt.lib.slot(obj) {
            Slot::Signal(s) => Some(s),
            _ => None,
        },
        _ => None,
    }
}

/// The composite registration's cleanup: the collected composite leaves
/// its live sources' dependant sets.
fn composite_collected(rt: &mut Rt, composite: u32) {
    sources_count_off(rt, composite);
    if rt.lib.mutant == Some(Mutant::DependantsNeverPruned) {
        return;
    }
    let Some(own) = rt.lib.signals[composite as usize].weak_ref else {
        return;
    };
    let sources = rt.lib.signals[composite as usize].sources.clone();
    for w in sources {
        if let Some(source) = deref(rt, w) {
            if let Some(d) = &mut rt.lib.signals[source as usize].dependants {
                d.retain(|&x| x != own);
            }
        }
    }
}

/// The source registration's cleanup: the collected source leaves its
/// live dependants' source sets; a composite left without sources cannot
/// abort any more and leaves `gcPersistentSignals`.
fn source_collected(rt: &mut Rt, source: u32) {
    // Its registration's cell is spent.
    rt.lib.signals[source as usize].source_pending = 0;
    let Some(own) = rt.lib.signals[source as usize].weak_ref else {
        return;
    };
    let dependants = rt.lib.signals[source as usize]
        .dependants
        .clone()
        .unwrap_or_default();
    for w in dependants {
        let Some(composite) = deref(rt, w) else {
            continue;
        };
        let data = &mut rt.lib.signals[composite as usize];
        data.sources.retain(|&x| x != own);
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L106-L108>
        // "This signal will no longer abort".
        if data.sources.is_empty() && rt.lib.mutant != Some(Mutant::CompositeOutlivesSources) {
            data.gc_persistent = false;
        }
    }
}

/// The timeout registration's cleanup: `clearTimeout` of the holder's timer
/// if it has not fired.
fn timeout_collected(rt: &mut Rt, holder: u32) {
    if let Some(timer) = rt.lib.timeout_holders[holder as usize].take() {
        rt.clear_timeout(timer);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L772-L795>
/// `kRemoveWeakListenerHelper`: the collected remover's node leaves the
/// signal's abort list (if the signal is alive and the node still linked),
/// counted off, and `kRemoveListener` runs with the new size.
fn remover_collected(rt: &mut Rt, remover: u32) {
    rt.lib.removers[remover as usize].registered = false;
    let r = rt.lib.removers[remover as usize];
    if r.node == NIL {
        return;
    }
    let obj = rt.lib.signals[r.signal as usize].obj;
    if !rt.is_alive(obj) {
        return;
    }
    // `eventTarget.deref()`.
    rt.add_to_kept_objects(&Value::Object(obj));
    let target = rt.lib.signals[r.signal as usize].target;
    let Some(root) = rt.lib.targets[target as usize].root(ABORT) else {
        return;
    };
    crate::event_target::unlink(rt, target, ABORT, root, r.node);
}

/// A remover's node left its list: its registration is as good as
/// unregistered, and the retainer no longer holds it.
pub(crate) fn forget_remover(rt: &mut Rt, callback: Callback) {
    let remover = match callback {
        Callback::RemoveOnAbort { remover, .. } | Callback::RemoveInvalid { remover, .. } => {
            remover
        }
        _ => return,
    };
    let r = &mut rt.lib.removers[remover as usize];
    r.node = NIL;
    let was_registered = std::mem::replace(&mut r.registered, false);
    let arrow = r.arrow;
    let retainer = r.retainer;
    // `remove()`: `weakListenersState.registry.unregister(this)`.
    if was_registered {
        if let Some(registry) = rt.lib.registries.weak_listeners {
            let _ = rt.registry_unregister(&Value::Object(registry), Value::Object(arrow));
        }
    }
    rt.lib.targets[retainer as usize]
        .removers
        .retain(|&a| a != arrow);
}

/// Whether a remover's arrow is still there (`handler.callback.deref()`,
/// which keeps it).
pub(crate) fn remover_alive(rt: &mut Rt, remover: u32) -> bool {
    let arrow = rt.lib.removers[remover as usize].arrow;
    if !rt.is_alive(arrow) {
        return false;
    }
    rt.add_to_kept_objects(&Value::Object(arrow));
    true
}

/// `dependants S`: `S[kDependantSignals]?.size ?? 0`.
pub(crate) fn dependant_count(rt: &mut Runtime<Impl>, signal: Value) -> Completion {
    let n = match signal.as_object().map(|o| rt.lib.slot(o)) {
        Some(Slot::Signal(s)) => rt.lib.signals[s as usize]
            .dependants
            .as_ref()
            .map_or(0, Vec::len),
        _ => 0,
    };
    Ok(Value::Number(n as f64))
}

/// The strong callbacks of a target's lists (weak removers excluded) and
/// the removers it retains.
fn trace_target(rt: &Rt, target: u32, edges: &mut Vec<Value>) {
    let data = &rt.lib.targets[target as usize];
    for &(_, root) in &data.types {
        let mut node = rt.lib.listeners.get(root).next;
        while node != NIL {
            let n = rt.lib.listeners.get(node);
            if let Callback::Function(f) = n.callback {
                edges.push(Value::Object(f));
            }
            node = n.next;
        }
    }
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L500-L505> the retainer -> (WeakMap ephemeron) -> the arrow; the mutant
    // leaves the arrow to the weak side only.
    if rt.lib.mutant != Some(Mutant::SignalRemoverWeak) {
        for &arrow in &data.removers {
            edges.push(Value::Object(arrow));
        }
    }
}

/// The strong edges of one of the library's objects.
pub(crate) fn trace(rt: &Runtime<Impl>, obj: ObjectId, edges: &mut Vec<Value>) {
    match rt.lib.slot(obj) {
        Slot::Controller(s) => edges.push(Value::Object(rt.lib.signals[s as usize].obj)),
        Slot::Signal(s) => {
            let data = &rt.lib.signals[s as usize];
            edges.push(data.reason.clone());
            if let Some(handler) = &data.onabort {
                edges.push(handler.clone());
            }
            // kWeakRef, kSourceSignals and kDependantSignals hold WeakRef
            // objects strongly (their targets weakly).
            if let Some(w) = data.weak_ref {
                edges.push(Value::Object(w));
            }
            edges.extend(data.sources.iter().map(|&w| Value::Object(w)));
            if let Some(d) = &data.dependants {
                edges.extend(d.iter().map(|&w| Value::Object(w)));
            }
            trace_target(rt, data.target, edges);
        }
        Slot::Target(t) => trace_target(rt, t, edges),
        Slot::Event(e) => {
            let event = &rt.lib.events[e as usize];
            if let Some(t) = event.target {
                edges.push(Value::Object(t));
            }
            if event.has(crate::event::CUSTOM) {
                edges.push(rt.lib.details[event.detail as usize].clone());
            }
        }
        Slot::Disposable(d) => {
            let (crate::abort::Disposable::Listening { signal, listener }
            | crate::abort::Disposable::Queued {
                signal, listener, ..
            }) = rt.lib.disposables[d as usize];
            edges.push(Value::Object(rt.lib.signals[signal as usize].obj));
            edges.push(Value::Object(listener));
        }
        Slot::Remover(r) => {
            let r = rt.lib.removers[r as usize];
            // `this`, `listener` and `options` (which holds the signal).
            edges.push(Value::Object(rt.lib.targets[r.retainer as usize].obj));
            edges.push(Value::Object(rt.lib.signals[r.signal as usize].obj));
            if let Some(l) = r.listener {
                edges.push(Value::Object(l));
            }
            if let Some(e) = r.error {
                edges.push(Value::Object(e));
            }
        }
        Slot::Emitter(e) => {
            crate::emitter::trace(rt, e, edges);
            crate::events_on::trace_emitter(rt, e, edges);
        }
        slot @ (Slot::OnIterator(_) | Slot::OnState(_)) => crate::events_on::trace(rt, slot, edges),
        slot @ (Slot::Storage(_) | Slot::Frame(_) | Slot::Resource(_)) => {
            crate::async_context::trace(rt, slot, edges)
        }
        // A once wrapper is a function: the runtime traces its captures.
        Slot::None | Slot::OnceWrapper(_) => {}
        slot => trace_stream(rt, slot, edges),
    }
}

/// The strong edges of a stream object (or of a hidden object standing for the state some
/// stream algorithms' closures share): `kState` records and what Node's closures capture,
/// written next to the records (`streams`, `byte_streams`, `writable`, `transformstream`,
/// `pipe`, `iterate`).
fn trace_stream(rt: &Rt, slot: Slot, edges: &mut Vec<Value>) {
    let _ = crate::streams::trace(rt, slot, edges)
        || crate::writable::trace(rt, slot, edges)
        || crate::transformstream::trace(rt, slot, edges)
        || crate::pipe::trace(rt, slot, edges)
        || crate::iterate::trace(rt, slot, edges);
}

/// Whether a slot is a stream object's (or a hidden stream state's).
fn is_stream_slot(slot: Slot) -> bool {
    !matches!(
        slot,
        Slot::None
            | Slot::Controller(_)
            | Slot::Signal(_)
            | Slot::Target(_)
            | Slot::Event(_)
            | Slot::Disposable(_)
            | Slot::Remover(_)
            | Slot::Emitter(_)
            | Slot::OnceWrapper(_)
            | Slot::OnIterator(_)
            | Slot::OnState(_)
            | Slot::Storage(_)
            | Slot::Frame(_)
            | Slot::Resource(_)
    )
}

/// The library's roots: `gcPersistentSignals`, the module-level
/// registries and stream objects (`kResolvedPromise`, `kPendingPromise`,
/// the shared errors), and what a running abort or dispatch holds in its
/// locals. (What running stream code holds across a call into script code
/// it holds with `Runtime::holding`.)
pub(crate) fn trace_roots(rt: &Runtime<Impl>, roots: &mut Vec<Value>) -> bool {
    crate::streams::roots(rt, roots);
    crate::writable::roots(rt, roots);
    crate::emitter::roots(rt, roots);
    for s in &rt.lib.signals {
        if s.gc_persistent {
            roots.push(Value::Object(s.obj));
        }
    }
    let r = rt.lib.registries;
    for id in [r.composites, r.sources, r.timeouts, r.weak_listeners]
        .into_iter()
        .flatten()
    {
        roots.push(Value::Object(id));
    }
    roots.extend(rt.lib.in_flight.iter().cloned());
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L488-L494>
    // the weak listeners' registry holds each registered remover's
    // `Listener` record, and through its links the list's other records
    // and their callbacks (NODE_GC_FACTS.md §1).
    for r in &rt.lib.removers {
        if r.registered && r.node != NIL {
            list_callbacks(rt, r.node, roots);
        }
    }
    true
}

/// The callbacks of every record reachable from `node` by its links.
fn list_callbacks(rt: &Rt, node: u32, roots: &mut Vec<Value>) {
    let push = |n: u32, roots: &mut Vec<Value>| match rt.lib.listeners.get(n).callback {
        Callback::Function(f) => roots.push(Value::Object(f)),
        Callback::EventHandler(s) => {
            if let Some(h) = &rt.lib.signals[s as usize].onabort {
                roots.push(h.clone());
            }
        }
        _ => {}
    };
    let mut n = rt.lib.listeners.get(node).next;
    while n != NIL {
        push(n, roots);
        n = rt.lib.listeners.get(n).next;
    }
    let mut n = rt.lib.listeners.get(node).previous;
    while n != NIL {
        push(n, roots);
        n = rt.lib.listeners.get(n).previous;
    }
}

/// Forgets collected objects: nothing of the library is keyed by them (its
/// records are indexed and outlive their objects, for the cleanups); checks
/// that no retained signal was collected.
pub(crate) fn collected(rt: &mut Runtime<Impl>, dead: &[ObjectId]) {
    // Invariants after a collection (the runtime empties the dead slots
    // after this returns, so their state can still be read):
    // 1. nothing in gcPersistentSignals was collected;
    // 2. every entry of a live signal's dependant list whose composite was
    //    collected is a self-WeakRef whose composite registration has a
    //    cleared cell, so that its cleanup will take it out (Node keeps
    //    such entries until then, and settled ones for good: the list is
    //    never a list of live signals, but it never keeps one alive and
    //    never loses track of a dead one).
    for &obj in dead {
        if let Slot::Signal(s) = rt.lib.slot(obj) {
            assert!(
                !rt.lib.signals[s as usize].gc_persistent,
                "invariant: a signal of gcPersistentSignals was collected"
            );
        }
    }
    streams_collected(rt, dead);
    crate::emitter::collected(rt, dead);
    if rt.lib.mutant == Some(Mutant::DependantsNeverPruned) {
        return;
    }
    let pending: Vec<u32> = match rt.lib.registries.composites.map(|r| rt.heap.get(r)) {
        Some(ObjectData::FinalizationRegistry(data)) => data
            .cells
            .iter()
            .filter(|c| c.target.is_none())
            .filter_map(|c| match c.held {
                Value::Number(n) => Some(n as u32),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let is_dead = |rt: &Rt, obj: ObjectId| dead.contains(&obj) || !rt.is_alive(obj);
    for signal in &rt.lib.signals {
        if is_dead(rt, signal.obj) {
            continue;
        }
        for &w in signal.dependants.iter().flatten() {
            let ObjectData::WeakRef(Value::Undefined) = rt.heap.get(w) else {
                continue;
            };
            let owner = rt.lib.signals.iter().position(|d| d.weak_ref == Some(w));
            assert!(
                owner.is_some_and(|c| pending.contains(&(c as u32))),
                "invariant: a dependant list holds a collected composite with no cleanup pending"
            );
        }
    }
}

/// After a collection: checks that no live stream object's trace lists a collected object (a
/// forgotten edge shows up so), then forgets the collected stream objects: their slots, and
/// the values their records hold.
fn streams_collected(rt: &mut Runtime<Impl>, dead: &[ObjectId]) {
    let mut is_dead = vec![false; rt.heap.len()];
    for &obj in dead {
        is_dead[obj.0 as usize] = true;
    }
    let mut edges = Vec::new();
    for i in 0..rt.lib.slots.len().min(is_dead.len()) {
        let slot = rt.lib.slots[i];
        if !is_stream_slot(slot) || is_dead[i] || !rt.is_alive(ObjectId(i as u32)) {
            continue;
        }
        edges.clear();
        trace_stream(rt, slot, &mut edges);
        for edge in &edges {
            if let Value::Object(o) = edge {
                assert!(
                    !is_dead[o.0 as usize] && rt.is_alive(*o),
                    "invariant: the live {slot:?} (object {i}) holds the collected object {o:?}"
                );
            }
        }
    }
    for &obj in dead {
        let slot = rt.lib.slot(obj);
        if !is_stream_slot(slot) {
            continue;
        }
        crate::streams::forget(rt, slot);
        crate::writable::forget(rt, slot);
        crate::transformstream::forget(rt, slot);
        crate::pipe::forget(rt, slot);
        crate::iterate::forget(rt, slot);
        rt.lib.set_slot(obj, Slot::None);
    }
}
