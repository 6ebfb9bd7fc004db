//! AbortController, AbortSignal (abort, `AbortSignal.abort`, `timeout`,
//! `any`, `throwIfAborted`, `onabort`) and `events.addAbortListener`, with the
//! fast paths and the bookkeeping of the seed.
//!
//! NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L501-L556>
//! and <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/events/abort_listener.js#L27-L66>.
//! The abort order is Node 26's (DOM "signal abort"): mark the signal and
//! every dependent signal aborted, then fire the signal's event, then each
//! dependent's. Node 20 fired the source before marking its dependents.
//!
//! The weak references are the runtime's WeakRefs and the registrations
//! its FinalizationRegistries (see `gc.rs`): a composite's sources and a
//! source's dependants are lists of the signals' self-WeakRefs, deref'd
//! where Node derefs them (which keeps the signal until the end of the
//! job, as in Node), and `gc_persistent` is Node's `gcPersistentSignals`,
//! reported as roots.

use nodesem_runtime::{Captures, Completion, Job, ObjectId, Task, Value};

use crate::event::{BEING_DISPATCHED, TRUSTED};
use crate::event_target::{
    add_listener, dispatch, has_listeners, new_event, new_listener_hook, remove_listener,
    remove_listener_hook, TargetData,
};
use crate::gc::{deref, keep_input, self_ref};
use crate::listeners::{Callback, NIL, ONCE, RESIST};
use crate::{alloc_host, type_error, Mutant, Rt, Slot, ABORT};

/// A record of a FinalizationRegistry registration made (`gc.rs` makes the
/// real one). Seed ("No unregister tokens are needed"): none of them
/// carries one.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Registration {
    /// Seed ("Each composite registers once, to leave its sources'
    /// dependant sets when it is collected").
    Composite(u32),
    /// Seed ("Each source registers once, when it gets its first dependant,
    /// to leave its dependants' source sets when it is collected").
    Source(u32),
    /// Seed ("AbortSignal.timeout(): the registry holds the timer through a
    /// small holder that is emptied when the timer fires").
    Timeout {
        /// The timeout signal.
        signal: u32,
        /// Its holder in `Impl::timeout_holders`.
        holder: u32,
    },
}

/// One AbortSignal's state.
///
/// Seed ("Object shape: the slot that is added to a signal once it becomes
/// an any() source is pre-initialized, as are the composite-only slots"):
/// every slot exists from construction, with its empty value; no signal
/// grows a side table later.
pub(crate) struct SignalData {
    /// The signal object.
    pub(crate) obj: ObjectId,
    /// Its EventTarget state, in `Impl::targets`.
    pub(crate) target: u32,
    /// `kAborted`.
    pub(crate) aborted: bool,
    /// `kReason`.
    pub(crate) reason: Value,
    /// `kComposite`: made by `any()`.
    pub(crate) composite: bool,
    /// `kTimeout`: a timeout signal, or a composite with one among its
    /// sources.
    pub(crate) timeout: bool,
    /// `kFollowing`: registered in its sources' dependant lists.
    pub(crate) following: bool,
    /// Membership in `gcPersistentSignals` (kept alive while it can still
    /// abort and has abort listeners).
    pub(crate) gc_persistent: bool,
    /// `kWeakRef`: the one WeakRef (a runtime WeakRef object) to this
    /// signal. Seed ("Each signal gets a single self-WeakRef, shared by
    /// every composite that follows it"): made on first need, where
    /// Node 26.12.1 makes one (`gc::self_ref`).
    pub(crate) weak_ref: Option<ObjectId>,
    /// `kSourceSignals` (composites only; empty otherwise): the sources'
    /// self-WeakRefs, duplicates removed.
    pub(crate) sources: Vec<ObjectId>,
    /// `kDependantSignals`: the dependants' self-WeakRefs. Seed ("only
    /// allocate the dependent signal list when there are dependent
    /// signals"): `None` until the first one.
    pub(crate) dependants: Option<Vec<ObjectId>>,
    /// How many composites registered with this signal as a source whose
    /// own cleanup has not run: its registration as a source exists while
    /// this is above 0 ([`crate::gc::register_source`]).
    pub(crate) source_pending: u32,
    /// The sources (indices) this composite registered with, for its
    /// cleanup to count off ([`crate::gc`]'s `composite_collected`).
    pub(crate) registered_sources: Vec<u32>,
    /// Whether this signal's registration as a composite was made.
    pub(crate) composite_registered: bool,
    /// `kHandlers.get('abort')`: `None` before `onabort` was first set,
    /// else the wrapper's current `handler` (a function or null).
    pub(crate) onabort: Option<Value>,
    /// The holder of a timeout signal's timer.
    pub(crate) timeout_holder: Option<u32>,
}

/// The Disposable of `addAbortListener`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Disposable {
    /// The signal was already aborted: a microtask will call the listener
    /// unless this was disposed first.
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/events/abort_listener.js#L27-L66>
    /// the Disposable's method shares `addAbortListener`'s context, which
    /// holds `signal` and `listener`, in this case too.
    Queued {
        /// Set by `dispose`.
        disposed: bool,
        /// The signal.
        signal: u32,
        /// The listener.
        listener: ObjectId,
    },
    /// The listener was added; `dispose` removes it.
    Listening {
        /// The signal.
        signal: u32,
        /// The listener.
        listener: ObjectId,
    },
}

/// A new signal, every slot initialized.
fn new_signal(rt: &mut Rt, aborted: bool, reason: Value, composite: bool) -> u32 {
    let index = rt.lib.signals.len() as u32;
    let target = rt.lib.targets.len() as u32;
    let obj = alloc_host(rt, |_| Slot::Signal(index));
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L247>
    // the AbortSignal constructor sets `kMaxEventTargetListeners` to 0,
    // after initEventTarget's default: no limit for signals.
    let max_listeners = if rt.lib.mutant == Some(Mutant::SignalMaxListenersTen) {
        crate::event_target::DEFAULT_MAX_LISTENERS
    } else {
        0.0
    };
    rt.lib.targets.push(TargetData {
        obj,
        types: Vec::new(),
        signal: Some(index),
        max_listeners,
        warned: false,
        removers: Vec::new(),
    });
    rt.lib.signals.push(SignalData {
        obj,
        target,
        aborted,
        reason,
        composite,
        timeout: false,
        following: false,
        gc_persistent: false,
        weak_ref: None,
        sources: Vec::new(),
        dependants: None,
        source_pending: 0,
        registered_sources: Vec::new(),
        composite_registered: false,
        onabort: None,
        timeout_holder: None,
    });
    index
}

/// The signal index of a signal value.
pub(crate) fn signal_of(rt: &mut Rt, value: &Value) -> Result<u32, Value> {
    match value.as_object().map(|obj| rt.lib.slot(obj)) {
        Some(Slot::Signal(s)) => Ok(s),
        _ => Err(type_error(
            rt,
            "The \"signal\" argument must be an instance of AbortSignal",
        )),
    }
}

/// `new DOMException('This operation was aborted', 'AbortError')`.
fn default_reason(rt: &mut Rt) -> Value {
    rt.new_dom_exception("This operation was aborted", "AbortError")
}

/// An optional reason, with JavaScript's default-parameter rule: absent or
/// `undefined` gives the default AbortError.
fn reason_or_default(rt: &mut Rt, reason: Option<Value>) -> Value {
    match reason {
        None | Some(Value::Undefined) => default_reason(rt),
        Some(v) => v,
    }
}

/// `new AbortController()`. Node makes the signal lazily, on the first
/// `signal` read or `abort()`; making it at once is not observable.
pub(crate) fn new_controller(rt: &mut Rt) -> Value {
    let signal = new_signal(rt, false, Value::Undefined, false);
    Value::Object(alloc_host(rt, |_| Slot::Controller(signal)))
}

/// `abort C [REASON]`.
pub(crate) fn op_abort(rt: &mut Rt, controller: &Value, reason: Option<Value>) -> Completion {
    let Some(Slot::Controller(signal)) = controller.as_object().map(|c| rt.lib.slot(c)) else {
        return Err(type_error(rt, "abort needs an AbortController"));
    };
    let reason = reason_or_default(rt, reason);
    abort_signal(rt, signal, reason);
    Ok(Value::Undefined)
}

/// `aborted [REASON]`: `AbortSignal.abort(REASON)`.
pub(crate) fn op_signal_abort(rt: &mut Rt, reason: Option<Value>) -> Completion {
    let reason = reason_or_default(rt, reason);
    let signal = new_signal(rt, true, reason, false);
    Ok(Value::Object(rt.lib.signals[signal as usize].obj))
}

/// `timeout MS`: `AbortSignal.timeout(MS)`, on an unref'd timer of the
/// virtual clock.
pub(crate) fn signal_timeout(rt: &mut Rt, ms: u32) -> Value {
    let signal = new_signal(rt, false, Value::Undefined, false);
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L311-L314> `new SafeWeakRef(signal)`: the signal's self-WeakRef.
    let weak = self_ref(rt, signal);
    let holder = rt.lib.timeout_holders.len() as u32;
    rt.lib.timeout_holders.push(None);
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L204-L219> the timer closes over a WeakRef, not the signal, and is unref'd.
    let timer = rt.set_timeout(
        ms,
        Task::Captured(
            Box::new(move |rt| {
                on_timeout(rt, weak, holder);
                Ok(Value::Undefined)
            }),
            Captures::objects(&[weak]),
        ),
        false,
    );
    rt.lib.timeout_holders[holder as usize] = Some(timer);
    crate::gc::register_timeout(rt, signal, holder);
    rt.lib
        .registrations
        .push(Registration::Timeout { signal, holder });
    let data = &mut rt.lib.signals[signal as usize];
    data.timeout = true;
    data.timeout_holder = Some(holder);
    Value::Object(data.obj)
}

/// The timeout's callback.
fn on_timeout(rt: &mut Rt, weak: ObjectId, holder: u32) {
    // Seed: the holder is emptied when the timer fires.
    rt.lib.timeout_holders[holder as usize] = None;
    let Some(signal) = deref(rt, weak) else {
        return;
    };
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L206-L208> `clearTimeoutRegistry.unregister(signal)`: the
    // seed leaves the registration until the signal is collected, and its
    // cleanup is then a task of the poll phase, whose callback scope runs
    // the ticks an uncaught exception left waiting before the next
    // macrotask would have. Observable, so impl keeps 26.12.1's unregister;
    // the seed's way is the mutant.
    if rt.lib.mutant != Some(Mutant::TimeoutRegistrationKept) {
        crate::gc::unregister_timeout(rt, signal);
    }
    rt.lib.signals[signal as usize].gc_persistent = false;
    let reason = rt.new_dom_exception("The operation was aborted due to timeout", "TimeoutError");
    abort_signal(rt, signal, reason);
}

/// `any [S, ...]`: `AbortSignal.any([S, ...])`.
pub(crate) fn op_signal_any(rt: &mut Rt, signals: &[Value]) -> Completion {
    // The WebIDL sequence conversion: every element, before anything else.
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L323-L326> `converters['sequence<AbortSignal>'](signals, { context: 'signals' })`.
    let mut inputs = Vec::with_capacity(signals.len());
    for (i, s) in signals.iter().enumerate() {
        match s.as_object().map(|obj| rt.lib.slot(obj)) {
            Some(Slot::Signal(s)) => inputs.push(s),
            _ => {
                let context = format!("signals[{i}]");
                return Err(rt.webidl_type_error(&context, "is not of type AbortSignal."));
            }
        }
    }
    let result = new_signal(rt, false, Value::Undefined, true);
    let result_obj = rt.lib.signals[result as usize].obj;
    if inputs.is_empty() {
        return Ok(Value::Object(result_obj));
    }
    let mut has_timeout = false;
    for signal in inputs {
        let data = &mut rt.lib.signals[signal as usize];
        if data.timeout {
            has_timeout = true;
            data.gc_persistent = true;
        }
        refresh_composite_signal(rt, signal);
        let data = &rt.lib.signals[signal as usize];
        if data.aborted {
            let reason = data.reason.clone();
            abort_signal(rt, result, reason);
            return Ok(Value::Object(result_obj));
        }
        if !data.composite {
            let weak = keep_input(rt, signal);
            add_source(rt, result, weak);
            continue;
        }
        // A composite contributes its own sources (they are never composites).
        let sources = rt.lib.signals[signal as usize].sources.clone();
        for weak in sources {
            let Some(source) = deref(rt, weak) else {
                continue;
            };
            debug_assert!(!rt.lib.signals[source as usize].composite);
            if rt.lib.signals[source as usize].aborted {
                let reason = rt.lib.signals[source as usize].reason.clone();
                abort_signal(rt, result, reason);
                return Ok(Value::Object(result_obj));
            }
            add_source(rt, result, weak);
        }
    }
    let data = &mut rt.lib.signals[result as usize];
    if has_timeout && !data.sources.is_empty() {
        data.timeout = true;
    }
    follow_composite_signal(rt, result);
    Ok(Value::Object(result_obj))
}

/// Adds a source to a composite's source list, once. Seed ("AbortSignal.any([a, a])
/// now registers once instead of twice, because the WeakRefs are shared").
fn add_source(rt: &mut Rt, composite: u32, weak: ObjectId) {
    let sources = &mut rt.lib.signals[composite as usize].sources;
    if !sources.contains(&weak) {
        sources.push(weak);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L159> `followCompositeSignal`: the composite enters each source's
/// dependant list, with the registrations of the seed.
fn follow_composite_signal(rt: &mut Rt, composite: u32) {
    let data = &rt.lib.signals[composite as usize];
    if data.following || data.aborted || data.sources.is_empty() {
        return;
    }
    let own = self_ref(rt, composite);
    let sources = rt.lib.signals[composite as usize].sources.clone();
    for weak in sources {
        let Some(source) = deref(rt, weak) else {
            // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L168-L170> a dead source leaves the set.
            rt.lib.signals[composite as usize]
                .sources
                .retain(|&w| w != weak);
            continue;
        };
        let source_data = &mut rt.lib.signals[source as usize];
        if source_data.aborted {
            let reason = source_data.reason.clone();
            abort_signal(rt, composite, reason);
            return;
        }
        // The sources are deduplicated, so each (source, composite) pair
        // comes here once: the list needs no membership test.
        source_data
            .dependants
            .get_or_insert_with(Vec::new)
            .push(own);
        source_data.source_pending += 1;
        if source_data.source_pending == 1 {
            rt.lib.registrations.push(Registration::Source(source));
            crate::gc::register_source(rt, source);
        }
        rt.lib.signals[composite as usize]
            .registered_sources
            .push(source);
    }
    let data = &mut rt.lib.signals[composite as usize];
    if !data.composite_registered {
        data.composite_registered = true;
        rt.lib
            .registrations
            .push(Registration::Composite(composite));
        crate::gc::register_composite(rt, composite);
    }
    rt.lib.signals[composite as usize].following = true;
}

/// The signal half of `kNewListener`, for every abort listener (`size`
/// is the list's size after the add).
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L393-L412>
/// `this.aborted` refreshes a composite before `size === 1` is tested.
pub(crate) fn signal_new_abort_listener(rt: &mut Rt, signal: u32, size: i32, weak: bool) {
    if rt.lib.signals[signal as usize].composite {
        refresh_composite_signal(rt, signal);
        if !rt.lib.signals[signal as usize].aborted && size == 1 {
            follow_composite_signal(rt, signal);
        }
    }
    let data = &rt.lib.signals[signal as usize];
    let may_be_collected_early = data.timeout || (data.composite && !data.sources.is_empty());
    if !may_be_collected_early {
        return;
    }
    refresh_composite_signal(rt, signal);
    let data = &mut rt.lib.signals[signal as usize];
    if !data.aborted && !weak && size == 1 {
        if data.timeout && !data.composite && rt.lib.mutant == Some(Mutant::TimeoutCollectedEarly) {
            return;
        }
        data.gc_persistent = true;
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L140-L157>
/// `refreshCompositeSignal`: dead sources leave a composite's source set,
/// and an aborted source aborts it. Every source looked at is deref'd
/// (kept until the end of the job).
pub(crate) fn refresh_composite_signal(rt: &mut Rt, signal: u32) {
    let data = &rt.lib.signals[signal as usize];
    if !data.composite || data.aborted || data.sources.is_empty() {
        return;
    }
    let sources = data.sources.clone();
    for weak in sources {
        let Some(source) = deref(rt, weak) else {
            rt.lib.signals[signal as usize]
                .sources
                .retain(|&w| w != weak);
            continue;
        };
        // The mutant is Node 20's order, from before the refresh existed:
        // a read of a composite does not abort it from its aborted source.
        if rt.lib.signals[source as usize].aborted
            && rt.lib.mutant != Some(Mutant::DependantsAbortedLate)
        {
            let reason = rt.lib.signals[source as usize].reason.clone();
            abort_signal(rt, signal, reason);
            return;
        }
    }
}

/// The signal half of `kRemoveListener`, for the last abort listener.
pub(crate) fn signal_last_abort_listener_removed(rt: &mut Rt, signal: u32) {
    let data = &mut rt.lib.signals[signal as usize];
    if data.timeout || (data.composite && !data.sources.is_empty()) {
        data.gc_persistent = false;
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L501> `abortSignal(signal, reason)`
/// (<https://dom.spec.whatwg.org/#abortsignal-signal-abort>).
pub(crate) fn abort_signal(rt: &mut Rt, signal: u32, reason: Value) {
    let mutant = rt.lib.mutant;
    let data = &mut rt.lib.signals[signal as usize];
    // 1. If signal is aborted, then return.
    if data.aborted && mutant != Some(Mutant::AbortTwice) {
        return;
    }
    // 2. Set signal's abort reason.
    data.aborted = true;
    data.reason = reason.clone();
    if mutant == Some(Mutant::DependantsAbortedLate) {
        // The pre-fix order: fire, then abort each dependant in turn.
        run_abort(rt, signal);
        let dependants = rt.lib.signals[signal as usize].dependants.clone();
        for weak in dependants.into_iter().flatten() {
            if let Some(dependant) = deref(rt, weak) {
                abort_signal(rt, dependant, reason.clone());
            }
        }
        rt.lib.signals[signal as usize].gc_persistent = false;
        return;
    }
    // 3. Let dependentSignalsToAbort be a new list. Seed ("only allocate the
    //    dependent signal list when there are dependent signals"), and no
    //    Vec at all for a signal that never had one.
    // 4. For each dependentSignal of signal's dependent signals: if it is
    //    not aborted, set its reason and append it.
    let to_abort = data.dependants.take().map(|dependants| {
        let mut to_abort = Vec::with_capacity(dependants.len());
        for &weak in &dependants {
            let Some(dependant) = deref(rt, weak) else {
                continue;
            };
            let d = &mut rt.lib.signals[dependant as usize];
            if !d.aborted {
                d.aborted = true;
                d.reason = reason.clone();
                let target = d.target;
                // The mutant decides the fast path now, before any listener ran.
                let silent =
                    mutant == Some(Mutant::StaleListenerCheck) && !has_listeners(rt, target, ABORT);
                to_abort.push((dependant, silent));
            }
        }
        rt.lib.signals[signal as usize].dependants = Some(dependants);
        to_abort
    });
    // The signal and `dependentSignalsToAbort` are the abort's locals:
    // roots while its listeners run.
    let base = rt.lib.in_flight.len();
    rt.lib
        .in_flight
        .push(Value::Object(rt.lib.signals[signal as usize].obj));
    for &(dependant, _) in to_abort.iter().flatten() {
        let obj = rt.lib.signals[dependant as usize].obj;
        rt.lib.in_flight.push(Value::Object(obj));
    }
    // 5. Run the abort steps for signal.
    run_abort(rt, signal);
    // 6. For each dependentSignal of dependentSignalsToAbort, run the abort
    //    steps for dependentSignal (and drop it from gcPersistentSignals).
    for (dependant, silent) in to_abort.into_iter().flatten() {
        if !silent {
            run_abort(rt, dependant);
        }
        rt.lib.signals[dependant as usize].gc_persistent = false;
    }
    rt.lib.in_flight.truncate(base);
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L543-L555> the signal, and a composite's sources, leave gcPersistentSignals.
    rt.lib.signals[signal as usize].gc_persistent = false;
    if rt.lib.signals[signal as usize].composite {
        let sources = rt.lib.signals[signal as usize].sources.clone();
        for weak in sources {
            if let Some(source) = deref(rt, weak) {
                rt.lib.signals[source as usize].gc_persistent = false;
            }
        }
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L559> `runAbort(signal)`: fire a trusted `abort` event at the signal.
fn run_abort(rt: &mut Rt, signal: u32) {
    let target = rt.lib.signals[signal as usize].target;
    // Seed ("skip allocating and dispatching the abort event when the
    // signal has no abort listeners"): decided here, when the abort steps
    // run, so listeners added by earlier abort listeners count.
    if !has_listeners(rt, target, ABORT) {
        return;
    }
    if rt.lib.mutant == Some(Mutant::OnabortSkippedByFastPath) && only_onabort(rt, target) {
        return;
    }
    let event = new_event(rt, ABORT, TRUSTED);
    dispatch(rt, target, ABORT, event);
}

/// Whether every node of the target's abort list is an `onabort` wrapper
/// (the mutant [`Mutant::OnabortSkippedByFastPath`] counts nothing else).
fn only_onabort(rt: &Rt, target: u32) -> bool {
    let Some(root) = rt.lib.targets[target as usize].root(ABORT) else {
        return true;
    };
    let mut node = rt.lib.listeners.get(root).next;
    while node != NIL {
        let n = rt.lib.listeners.get(node);
        if !matches!(n.callback, Callback::EventHandler(_)) {
            return false;
        }
        node = n.next;
    }
    true
}

/// `throwIfAborted S`.
pub(crate) fn op_throw_if_aborted(rt: &mut Rt, signal: &Value) -> Completion {
    let signal = signal_of(rt, signal)?;
    refresh_composite_signal(rt, signal);
    let data = &rt.lib.signals[signal as usize];
    if data.aborted {
        return Err(data.reason.clone());
    }
    Ok(Value::Undefined)
}

/// A signal's readable properties (`aborted` and `reason` refresh a
/// composite first).
pub(crate) fn signal_get(rt: &mut Rt, signal: u32, prop: &str) -> Value {
    if matches!(prop, "aborted" | "reason") {
        refresh_composite_signal(rt, signal);
    }
    let data = &rt.lib.signals[signal as usize];
    match prop {
        "aborted" => Value::Bool(data.aborted),
        "reason" => data.reason.clone(),
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L1173> `this[kHandlers]?.get(event)?.handler ?? null`.
        "onabort" => data.onabort.clone().unwrap_or(Value::Null),
        _ => Value::Undefined,
    }
}

/// `onabort S HANDLER`: `S.onabort = HANDLER`; its value is the handler, as
/// the assignment expression's is.
pub(crate) fn op_set_onabort(rt: &mut Rt, signal: &Value, handler: Value) -> Result<(), Value> {
    let signal = signal_of(rt, signal)?;
    set_onabort(rt, signal, handler);
    Ok(())
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L1180-L1218> the setter of `defineEventHandler(AbortSignal.prototype, 'abort')`.
/// The wrapper keeps the position at which `onabort` was first set; a new
/// handler only changes what it calls, and the root's size follows
/// whether the handler is a function. When the list lost its root
/// meanwhile (removeEventListener emptied it), a function handler re-adds
/// the wrapper; when it has a root that no longer holds the wrapper, the
/// handler is never called (Node's behaviour, kept).
fn set_onabort(rt: &mut Rt, signal: u32, value: Value) {
    // [LegacyTreatNonObjectAsNull]: what is not an object becomes null.
    let value = if value.as_object().is_some() {
        value
    } else {
        Value::Null
    };
    let target = rt.lib.signals[signal as usize].target;
    let Some(old) = rt.lib.signals[signal as usize].onabort.clone() else {
        rt.lib.signals[signal as usize].onabort = Some(value);
        add_listener(rt, target, ABORT, Callback::EventHandler(signal), 0);
        return;
    };
    let old_is_function = rt.is_function(&old);
    if old_is_function {
        if let Some(root) = rt.lib.targets[target as usize].root(ABORT) {
            let node = rt.lib.listeners.get_mut(root);
            node.size -= 1;
            let size = node.size;
            remove_listener_hook(rt, target, ABORT, size);
        }
    }
    let is_function = rt.is_function(&value);
    rt.lib.signals[signal as usize].onabort = Some(value);
    if is_function {
        if let Some(root) = rt.lib.targets[target as usize].root(ABORT) {
            if old_is_function && rt.lib.mutant == Some(Mutant::OnabortCountLost) {
                return; // The count taken off for the old handler stays off.
            }
            let node = rt.lib.listeners.get_mut(root);
            node.size += 1;
            let size = node.size;
            new_listener_hook(rt, target, ABORT, size, false);
        } else {
            add_listener(rt, target, ABORT, Callback::EventHandler(signal), 0);
        }
    }
}

/// `addAbortListener S CALLBACK`: `events.addAbortListener(S, CALLBACK)`.
pub(crate) fn op_add_abort_listener(rt: &mut Rt, signal: &Value, listener: &Value) -> Completion {
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/events/abort_listener.js#L28-L32> `if (signal === undefined) throw ...`, then
    // `validateAbortSignal(signal, 'signal')` and `validateFunction(listener, 'listener')`.
    let Some(Slot::Signal(signal)) = signal.as_object().map(|obj| rt.lib.slot(obj)) else {
        return Err(rt.err_invalid_arg_type("signal", "AbortSignal", signal));
    };
    let listener = match *listener {
        Value::Object(f) if rt.is_function(listener) => f,
        ref other => return Err(rt.err_invalid_arg_type("listener", "function", other)),
    };
    let index = rt.lib.disposables.len() as u32;
    let data = &rt.lib.signals[signal as usize];
    if data.aborted {
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/events/abort_listener.js#L35-L47> already aborted: a microtask calls the listener with a new
        // trusted abort event whose target is the signal, marked as being
        // dispatched during the call, unless the Disposable was disposed.
        let signal_obj = data.obj;
        rt.lib.disposables.push(Disposable::Queued {
            disposed: false,
            signal,
            listener,
        });
        let captures = Captures::objects(&[signal_obj, listener]);
        rt.enqueue_microtask(Job::Task(Task::Captured(
            Box::new(move |rt| {
                if let Disposable::Queued { disposed: true, .. } =
                    rt.lib.disposables[index as usize]
                {
                    return Ok(Value::Undefined);
                }
                let event = new_event(rt, ABORT, TRUSTED | BEING_DISPATCHED);
                let e = &mut rt.lib.events[event as usize];
                e.target = Some(signal_obj);
                let event_obj = e.obj;
                // An exception leaves the event marked, as in Node.
                rt.call_function(listener, Value::Undefined, &[Value::Object(event_obj)])?;
                rt.lib.events[event as usize].flags &= !BEING_DISPATCHED;
                Ok(Value::Undefined)
            }),
            captures,
        )));
    } else {
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/events/abort_listener.js#L53-L55> `signal.addEventListener('abort', listener, { once: true,
        // [kResistStopPropagation]: true })`.
        let target = data.target;
        let flags = if rt.lib.mutant == Some(Mutant::AbortListenerStoppable) {
            ONCE
        } else {
            ONCE | RESIST
        };
        add_listener(rt, target, ABORT, Callback::Function(listener), flags);
        rt.lib
            .disposables
            .push(Disposable::Listening { signal, listener });
    }
    Ok(Value::Object(alloc_host(rt, |_| Slot::Disposable(index))))
}

/// `dispose D`: `D[Symbol.dispose]()`; every call removes again.
pub(crate) fn op_dispose(rt: &mut Rt, disposable: &Value) -> Completion {
    let Some(Slot::Disposable(index)) = disposable.as_object().map(|d| rt.lib.slot(d)) else {
        return Err(type_error(
            rt,
            "dispose needs the Disposable of addAbortListener",
        ));
    };
    match rt.lib.disposables[index as usize] {
        Disposable::Queued {
            signal, listener, ..
        } => {
            rt.lib.disposables[index as usize] = Disposable::Queued {
                disposed: true,
                signal,
                listener,
            };
        }
        Disposable::Listening { signal, listener } => {
            let target = rt.lib.signals[signal as usize].target;
            remove_listener(rt, target, ABORT, Callback::Function(listener), false);
        }
    }
    Ok(Value::Undefined)
}
