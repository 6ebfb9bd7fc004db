//! `AbortController` and `AbortSignal`: signalling abort, dependent
//! (`AbortSignal.any`) signals, `AbortSignal.timeout` and the getters.
//!
//! This is where optimizations of Node's abort path keep changing observable
//! order (which signals are aborted when the first abort event fires, how many
//! events fire on re-entrant aborts), so every step is transcribed from the
//! DOM Standard's "signal abort" and "create a dependent abort signal" and
//! checked against Node 26.12.1's `abortSignal` and `AbortSignal.any`.
//!
//! DOM Standard: <https://dom.spec.whatwg.org/#interface-abortcontroller>,
//! <https://dom.spec.whatwg.org/#interface-AbortSignal>.
//! Node 26.12.1: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js>.

use nodesem_runtime::gc::Captures;
use nodesem_runtime::{Completion, ObjectData, ObjectId, Runtime, Task, Value};

use crate::gc::{self, deref, new_weak_ref};
use crate::{event_target, Model};

/// The internal slots of an AbortSignal.
#[derive(Clone, Debug)]
pub struct AbortSignalState {
    /// Whether the signal is aborted (Node: `kAborted`). The DOM derives it
    /// from the reason; Node keeps a flag, and reasons can be any value.
    pub aborted: bool,
    /// abort reason (Node: `kReason`).
    pub reason: Value,
    /// dependent (Node: `kComposite`).
    pub dependent: bool,
    /// source signals (Node: `kSourceSignals`, absent until `any()` gives
    /// the signal at least one source): an ordered set of WeakRefs to the
    /// sources, one new WeakRef per plain source occurrence (so `any([a,
    /// a])` holds two entries for `a`), the same WeakRef objects as the
    /// inner composite's for a composite input.
    pub source_signals: Option<Vec<Value>>,
    /// dependent signals (Node: `kDependantSignals`): an ordered set of the
    /// dependants' self-WeakRefs (`kResultSignalWeakRef`). Node creates it
    /// on the first follow; an absent set and an empty one both count 0.
    pub dependent_signals: Vec<Value>,
    /// Node's `kFollowing`: the signal registered itself with its sources.
    pub following: bool,
    /// Node's `kTimeout`: made by `AbortSignal.timeout`, or a composite of a
    /// timeout signal with sources.
    pub timeout: bool,
    /// Node's `kResultSignalWeakRef`: the composite's one WeakRef to itself,
    /// made by its first follow.
    pub result_signal_weak_ref: Option<Value>,
}

/// `new AbortController()` (<https://dom.spec.whatwg.org/#dom-abortcontroller-abortcontroller>).
pub fn new_abort_controller(rt: &mut Runtime<Model>) -> ObjectId {
    // 1. Let signal be a new AbortSignal object.
    // MODEL: Node creates the signal lazily on first use of `signal` or
    // `abort()`; nothing observable depends on when.
    let signal = new_abort_signal(rt);
    let controller = rt.heap.alloc(ObjectData::Host);
    // 2. Set this's signal to signal.
    rt.lib.controllers.insert(controller, signal);
    controller
}

/// A new AbortSignal object, not aborted, with no sources.
pub fn new_abort_signal(rt: &mut Runtime<Model>) -> ObjectId {
    let id = rt.heap.alloc(ObjectData::Host);
    event_target::init_event_target(rt, id);
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L247>
    // `this[kMaxEventTargetListeners] = 0`: a signal has no limit (and so no
    // MaxListenersExceededWarning) until `events.setMaxListeners` gives it one.
    event_target::set_max_listeners(rt, id, 0.0);
    rt.lib.signals.insert(
        id,
        AbortSignalState {
            aborted: false,
            reason: Value::Undefined,
            dependent: false,
            source_signals: None,
            dependent_signals: Vec::new(),
            following: false,
            timeout: false,
            result_signal_weak_ref: None,
        },
    );
    id
}

/// The controller's signal.
pub fn controller_signal(rt: &Runtime<Model>, controller: ObjectId) -> ObjectId {
    rt.lib.controllers[&controller]
}

fn state(rt: &Runtime<Model>, signal: ObjectId) -> &AbortSignalState {
    rt.lib.signals.get(&signal).expect("an abort signal")
}

fn state_mut(rt: &mut Runtime<Model>, signal: ObjectId) -> &mut AbortSignalState {
    rt.lib.signals.get_mut(&signal).expect("an abort signal")
}

/// Sets a signal's abort reason. Invariant: an aborted signal never goes
/// back, and its reason never changes.
fn set_abort_reason(rt: &mut Runtime<Model>, signal: ObjectId, reason: Value) {
    let s = state_mut(rt, signal);
    assert!(!s.aborted, "an aborted signal was aborted again");
    s.aborted = true;
    s.reason = reason;
}

/// The default reason: a new "AbortError" DOMException.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L581>
/// `abort(reason = new DOMException('This operation was aborted', 'AbortError'))`:
/// a default parameter, so an explicit `undefined` also gets the default.
pub fn reason_or_default(rt: &mut Runtime<Model>, reason: Option<Value>) -> Value {
    match reason {
        Some(r) if r != Value::Undefined => r,
        _ => rt.new_dom_exception("This operation was aborted", "AbortError"),
    }
}

/// `abort(reason)` (<https://dom.spec.whatwg.org/#dom-abortcontroller-abort>):
/// signal abort on this with reason if it is given.
pub fn controller_abort(rt: &mut Runtime<Model>, controller: ObjectId, reason: Option<Value>) {
    let reason = reason_or_default(rt, reason);
    let signal = controller_signal(rt, controller);
    // To signal abort on an AbortController controller: signal abort on
    // controller's signal with reason.
    signal_abort(rt, signal, reason);
}

/// To signal abort (<https://dom.spec.whatwg.org/#abortsignal-signal-abort>),
/// given an AbortSignal object `signal` and a reason (Node's `abortSignal`;
/// callers have already substituted the default reason).
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L501>
pub fn signal_abort(rt: &mut Runtime<Model>, signal: ObjectId, reason: Value) {
    // 1. If signal is aborted, then return.
    if state(rt, signal).aborted {
        return;
    }
    // 2. Set signal's abort reason to reason if it is given; otherwise to a
    //    new "AbortError" DOMException.
    set_abort_reason(rt, signal, reason.clone());
    // The function's locals (`signal`, `reason`, `dependentSignalsToAbort`)
    // hold their values while listeners run.
    let mark = gc::hold(rt, &[Value::Object(signal), reason.clone()]);
    // 3. Let dependentSignalsToAbort be a new list.
    let mut dependent_signals_to_abort = Vec::new();
    // 4. For each dependentSignal of signal's dependent signals:
    let dependents = state(rt, signal).dependent_signals.clone();
    for weak_ref in dependents {
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L514-L516>
        // the set holds WeakRefs: `s.deref()`, skipping a collected one.
        let Some(dependent_signal) = deref(rt, &weak_ref) else {
            continue;
        };
        // 4.1. If dependentSignal is not aborted:
        if !state(rt, dependent_signal).aborted {
            // 4.1.1. Set dependentSignal's abort reason to signal's abort reason.
            set_abort_reason(rt, dependent_signal, reason.clone());
            // 4.1.2. Append dependentSignal to dependentSignalsToAbort.
            dependent_signals_to_abort.push(dependent_signal);
            gc::hold(rt, &[Value::Object(dependent_signal)]);
        }
    }
    // Invariant: every live dependent of an aborted source is aborted before
    // any abort event fires.
    assert!(
        state(rt, signal)
            .dependent_signals
            .iter()
            .filter_map(|w| gc::peek(rt, w))
            .all(|d| state(rt, d).aborted),
        "a dependent signal is not aborted when its source's abort event fires"
    );
    // 5. Run the abort steps for signal.
    run_the_abort_steps(rt, signal);
    // 6. For each dependentSignal of dependentSignalsToAbort, run the abort
    //    steps for dependentSignal.
    for dependent_signal in dependent_signals_to_abort {
        run_the_abort_steps(rt, dependent_signal);
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L540>
        // a transitively aborted dependant leaves gcPersistentSignals.
        gc::persistent_delete(rt, dependent_signal);
    }
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L544>
    // so does the signal itself,
    gc::persistent_delete(rt, signal);
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L548-L555>
    // and, for a composite, each of its live sources (a timeout source too,
    // whatever listeners it has of its own).
    let s = state(rt, signal);
    if s.dependent {
        if let Some(sources) = s.source_signals.clone() {
            for source_weak_ref in sources {
                if let Some(source_signal) = deref(rt, &source_weak_ref) {
                    gc::persistent_delete(rt, source_signal);
                }
            }
        }
    }
    gc::release(rt, mark);
}

/// To run the abort steps (<https://dom.spec.whatwg.org/#run-the-abort-steps>)
/// for an AbortSignal `signal`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L559>
/// Node has no abort algorithms (steps 1 and 2): what the DOM does with them
/// (removing a listener added with the `signal` option) Node does from an
/// abort event listener, see `add_an_event_listener`. Node fires the event
/// even when nobody listens; that is not observable.
fn run_the_abort_steps(rt: &mut Runtime<Model>, signal: ObjectId) {
    // 3. Fire an event named abort at signal.
    event_target::fire_an_event(rt, "abort", signal);
}

/// `AbortSignal.abort(reason)` (<https://dom.spec.whatwg.org/#dom-abortsignal-abort>).
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L298>
/// no abort event is fired.
pub fn abort_static(rt: &mut Runtime<Model>, reason: Option<Value>) -> ObjectId {
    // 1. Let signal be a new AbortSignal object.
    let signal = new_abort_signal(rt);
    // 2. Set signal's abort reason to reason if it is given; otherwise to a
    //    new "AbortError" DOMException.
    let reason = reason_or_default(rt, reason);
    set_abort_reason(rt, signal, reason);
    // 3. Return signal.
    signal
}

/// `AbortSignal.timeout(milliseconds)` (<https://dom.spec.whatwg.org/#dom-abortsignal-timeout>).
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L204-L219>
/// an unref'd `setTimeout`: the timer alone never keeps the event loop alive,
/// and the abort happens in the timer's callback itself, not in a task queued
/// from it.
pub fn timeout(rt: &mut Runtime<Model>, milliseconds: u32) -> ObjectId {
    // 1. Let signal be a new AbortSignal object.
    let signal = new_abort_signal(rt);
    // 3. Run steps after a timeout given global, "AbortSignal-timeout",
    //    milliseconds, and the following step:
    //    1. Queue a global task on the timer task source given global to
    //       signal abort given signal and a new "TimeoutError" DOMException.
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L310>
    // `signal[kTimeout] = true`.
    state_mut(rt, signal).timeout = true;
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L311-L314>
    // `clearTimeoutRegistry.register(signal, setWeakAbortSignalTimeout(new
    // SafeWeakRef(signal), delay), signal)`: the timer's callback closes over
    // the WeakRef only, and the registry clears the timer once the signal is
    // collected.
    let weak_ref = new_weak_ref(rt, signal);
    let timer = set_weak_abort_signal_timeout(rt, weak_ref, milliseconds);
    let registry = gc::clear_timeout_registry(rt);
    rt.registry_register(
        &registry,
        Value::Object(signal),
        Value::Number(timer as f64),
        Some(Value::Object(signal)),
    )
    .expect("a signal can be registered");
    // 4. Return signal.
    signal
}

/// Node's `setWeakAbortSignalTimeout(weakRef, delay)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L204-L219>
fn set_weak_abort_signal_timeout(rt: &mut Runtime<Model>, weak_ref: Value, delay: u32) -> u64 {
    let captured = weak_ref.clone();
    rt.set_timeout(
        delay,
        Task::Captured(
            Box::new(move |rt: &mut Runtime<Model>| {
                // const signal = weakRef.deref(); if (signal !== undefined) {
                let Some(signal) = deref(rt, &weak_ref) else {
                    return Ok(Value::Undefined);
                };
                // clearTimeoutRegistry.unregister(signal);
                let registry = gc::clear_timeout_registry(rt);
                rt.registry_unregister(&registry, Value::Object(signal))?;
                // gcPersistentSignals.delete(signal);
                gc::persistent_delete(rt, signal);
                let reason = rt
                    .new_dom_exception("The operation was aborted due to timeout", "TimeoutError");
                signal_abort(rt, signal, reason);
                Ok(Value::Undefined)
            }),
            Captures::values(vec![captured]),
        ),
        false,
    )
}

/// `AbortSignal.any(signals)` (<https://dom.spec.whatwg.org/#dom-abortsignal-any>):
/// to create a dependent abort signal
/// (<https://dom.spec.whatwg.org/#create-a-dependent-abort-signal>) from
/// `signals`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L322>
/// Node checks each signal for being aborted in the same loop that collects
/// sources (the DOM checks all of them first); both return a signal aborted
/// with the reason of the first aborted signal in the list. Node marks the
/// result aborted through `abortSignal`, which fires an abort event at it;
/// nobody can listen yet.
pub fn create_dependent_abort_signal(rt: &mut Runtime<Model>, signals: &[ObjectId]) -> ObjectId {
    // 1. Let resultSignal be a new object implementing AbortSignal.
    let result_signal = new_abort_signal(rt);
    // 3. Set resultSignal's dependent to true.
    state_mut(rt, result_signal).dependent = true;
    if signals.is_empty() {
        return result_signal;
    }
    state_mut(rt, result_signal).source_signals = Some(Vec::new());
    let mut has_timeout_signals = false;
    // 4. For each signal of signals:
    for &signal in signals {
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L342-L348>
        // a timeout input enters gcPersistentSignals, listeners or not,
        // before the aborted check (so an already fired one too).
        if state(rt, signal).timeout {
            has_timeout_signals = true;
            gc::persistent_add(rt, signal);
        }
        // 2. If signal is aborted, then set resultSignal's abort reason to
        //    signal's abort reason and return resultSignal.
        refresh_composite_signal(rt, signal);
        if state(rt, signal).aborted {
            let reason = state(rt, signal).reason.clone();
            signal_abort(rt, result_signal, reason);
            return result_signal;
        }
        if !state(rt, signal).dependent {
            // 4.1. If signal's dependent is false: append signal to
            //      resultSignal's source signals.
            // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L356-L358>
            // a new WeakRef for each occurrence.
            let signal_weak_ref = new_weak_ref(rt, signal);
            sources_mut(rt, result_signal).push(signal_weak_ref);
            // (Appending resultSignal to signal's dependent signals happens in
            // follow_composite_signal, as in Node.)
        } else if state(rt, signal).source_signals.is_none() {
            // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L359-L360>
            // a composite made by `any([])` has no source set: skipped.
            continue;
        } else {
            // 4.2. Otherwise, for each sourceSignal of signal's source signals:
            let sources = state(rt, signal).source_signals.clone().unwrap_or_default();
            for source_signal_weak_ref in sources {
                // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L363-L366>
                // a collected source is skipped (and stays in the inner set).
                let Some(source_signal) = deref(rt, &source_signal_weak_ref) else {
                    continue;
                };
                // 4.2.1. Assert: sourceSignal is not aborted and not dependent.
                // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L367>
                // Node asserts only "not dependent" and treats an aborted
                // source like an aborted signal (step 2).
                assert!(
                    !state(rt, source_signal).dependent,
                    "a source signal is dependent"
                );
                if state(rt, source_signal).aborted {
                    let reason = state(rt, source_signal).reason.clone();
                    signal_abort(rt, result_signal, reason);
                    return result_signal;
                }
                // 4.2.2. Append sourceSignal to resultSignal's source signals.
                // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L374-L377>
                // the inner composite's own WeakRef, once.
                let sources = sources_mut(rt, result_signal);
                if !sources.contains(&source_signal_weak_ref) {
                    sources.push(source_signal_weak_ref);
                }
            }
        }
    }
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L382-L384>
    // a composite of a timeout signal (with sources) is a timeout signal.
    if has_timeout_signals && !sources_mut(rt, result_signal).is_empty() {
        state_mut(rt, result_signal).timeout = true;
    }
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L388>
    // the result registers with its sources at once ("following").
    follow_composite_signal(rt, result_signal);
    // 5. Return resultSignal.
    result_signal
}

/// A composite's source signals (the set exists).
fn sources_mut(rt: &mut Runtime<Model>, signal: ObjectId) -> &mut Vec<Value> {
    state_mut(rt, signal)
        .source_signals
        .get_or_insert_with(Vec::new)
}

/// `signal[kSourceSignals].delete(weakRef)`; returns the size after.
pub(crate) fn sources_delete(rt: &mut Runtime<Model>, signal: ObjectId, weak_ref: &Value) -> usize {
    match &mut state_mut(rt, signal).source_signals {
        Some(sources) => {
            sources.retain(|w| w != weak_ref);
            sources.len()
        }
        None => 0,
    }
}

/// `signal[kDependantSignals].delete(weakRef)`.
pub(crate) fn dependants_delete(rt: &mut Runtime<Model>, signal: ObjectId, weak_ref: &Value) {
    state_mut(rt, signal)
        .dependent_signals
        .retain(|w| w != weak_ref);
}

/// Whether the signal is a timeout signal or a composite with sources
/// (`isTimeoutOrNonEmptyCompositeSignal`).
fn is_timeout_or_non_empty_composite_signal(rt: &Runtime<Model>, signal: ObjectId) -> bool {
    let s = state(rt, signal);
    s.timeout || (s.dependent && s.source_signals.as_ref().is_some_and(|v| !v.is_empty()))
}

/// AbortSignal's half of `[kNewListener](size, type, listener, once,
/// capture, passive, weak)`, after EventTarget's.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L393-L412>
/// the first abort listener follows the sources (a no-op: `any()` already
/// did), and the first abort listener of a timeout signal or of a
/// composite with sources, if it is not weak, puts the signal in
/// gcPersistentSignals. `size` counts weak listeners too: a strong second
/// listener after a weak first one does not.
pub(crate) fn signal_new_listener(
    rt: &mut Runtime<Model>,
    signal: ObjectId,
    size: i64,
    event_type: &str,
    weak: bool,
) {
    if state(rt, signal).dependent && event_type == "abort" && !aborted(rt, signal) && size == 1 {
        follow_composite_signal(rt, signal);
    }
    if is_timeout_or_non_empty_composite_signal(rt, signal)
        && event_type == "abort"
        && !aborted(rt, signal)
        && !weak
        && size == 1
    {
        gc::persistent_add(rt, signal);
    }
}

/// AbortSignal's half of `[kRemoveListener](size, type, listener, capture)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L414-L420>
/// the last abort listener gone, the signal leaves gcPersistentSignals.
pub(crate) fn signal_remove_listener(
    rt: &mut Runtime<Model>,
    signal: ObjectId,
    size: i64,
    event_type: &str,
) {
    if is_timeout_or_non_empty_composite_signal(rt, signal) && event_type == "abort" && size == 0 {
        gc::persistent_delete(rt, signal);
    }
}

/// Node's `followCompositeSignal(signal)`: append the composite to each
/// source's dependent signals (DOM step 4.1.2 and 4.2.3 of "create a
/// dependent abort signal"), through WeakRefs and two registries.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L159-L194>
fn follow_composite_signal(rt: &mut Runtime<Model>, signal: ObjectId) {
    let s = state(rt, signal);
    if s.following || s.aborted || s.source_signals.as_ref().is_none_or(Vec::is_empty) {
        return;
    }
    // const resultSignalWeakRef = signal[kResultSignalWeakRef] ??= new SafeWeakRef(signal);
    let result_signal_weak_ref = match state(rt, signal).result_signal_weak_ref.clone() {
        Some(w) => w,
        None => {
            let w = new_weak_ref(rt, signal);
            state_mut(rt, signal).result_signal_weak_ref = Some(w.clone());
            w
        }
    };
    let sources = state(rt, signal).source_signals.clone().unwrap_or_default();
    for source_signal_weak_ref in sources {
        let Some(source_signal) = deref(rt, &source_signal_weak_ref) else {
            sources_delete(rt, signal, &source_signal_weak_ref);
            continue;
        };
        if state(rt, source_signal).aborted {
            let reason = state(rt, source_signal).reason.clone();
            signal_abort(rt, signal, reason);
            return;
        }
        // sourceSignal[kDependantSignals].add(resultSignalWeakRef);
        let dependents = &mut state_mut(rt, source_signal).dependent_signals;
        if !dependents.contains(&result_signal_weak_ref) {
            dependents.push(result_signal_weak_ref.clone());
        }
        let (dependant_registry, source_registry) = gc::signal_registries(rt);
        // dependantSignalsCleanupRegistry.register(signal, { sourceSignalRef,
        // dependantSignalRef }): no unregister token.
        let held = gc::holdings(
            rt,
            vec![
                source_signal_weak_ref.clone(),
                result_signal_weak_ref.clone(),
            ],
        );
        rt.registry_register(&dependant_registry, Value::Object(signal), held, None)
            .expect("a signal can be registered");
        // sourceSignalsCleanupRegistry.register(sourceSignal, { sourceSignalRef,
        // composedSignalRef }, resultSignalWeakRef).
        let held = gc::holdings(
            rt,
            vec![
                source_signal_weak_ref.clone(),
                result_signal_weak_ref.clone(),
            ],
        );
        rt.registry_register(
            &source_registry,
            Value::Object(source_signal),
            held,
            Some(result_signal_weak_ref.clone()),
        )
        .expect("a signal can be registered");
    }
    state_mut(rt, signal).following = true;
}

/// Node's `refreshCompositeSignal(signal)`: forgets collected sources, and
/// a composite whose source is aborted is aborted now. Called by the
/// `aborted` and `reason` getters, `throwIfAborted()` and `any()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L140-L157>
/// MODEL: every composite follows its sources from creation, so a source's
/// abort always reaches its live dependents first and this never aborts
/// anything; what it does do is delete the WeakRefs of collected sources,
/// which decides whether the composite still counts as one with sources.
fn refresh_composite_signal(rt: &mut Runtime<Model>, signal: ObjectId) {
    let s = state(rt, signal);
    if !s.dependent || s.aborted || s.source_signals.as_ref().is_none_or(Vec::is_empty) {
        return;
    }
    let sources = s.source_signals.clone().unwrap_or_default();
    for source_signal_weak_ref in sources {
        let Some(source_signal) = deref(rt, &source_signal_weak_ref) else {
            sources_delete(rt, signal, &source_signal_weak_ref);
            continue;
        };
        if state(rt, source_signal).aborted {
            let reason = state(rt, source_signal).reason.clone();
            signal_abort(rt, signal, reason);
            return;
        }
    }
}

/// The `aborted` getter (<https://dom.spec.whatwg.org/#dom-abortsignal-aborted>):
/// true if this is aborted.
pub fn aborted(rt: &mut Runtime<Model>, signal: ObjectId) -> bool {
    refresh_composite_signal(rt, signal);
    state(rt, signal).aborted
}

/// The `reason` getter (<https://dom.spec.whatwg.org/#dom-abortsignal-reason>):
/// this's abort reason.
pub fn reason(rt: &mut Runtime<Model>, signal: ObjectId) -> Value {
    refresh_composite_signal(rt, signal);
    state(rt, signal).reason.clone()
}

/// `throwIfAborted()` (<https://dom.spec.whatwg.org/#dom-abortsignal-throwifaborted>):
/// throw this's abort reason, if this is aborted.
pub fn throw_if_aborted(rt: &mut Runtime<Model>, signal: ObjectId) -> Completion {
    refresh_composite_signal(rt, signal);
    let s = state(rt, signal);
    if s.aborted {
        return Err(s.reason.clone());
    }
    Ok(Value::Undefined)
}
