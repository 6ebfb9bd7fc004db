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

use nodesem_runtime::{Completion, ObjectData, ObjectId, Runtime, Task, Value};

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
    /// the signal at least one source).
    ///
    /// MODEL: Node keeps a set of WeakRefs, one new WeakRef per plain source
    /// occurrence, so `any([a, a])` holds two entries for `a`; which entries
    /// exist is only observable through garbage collection, which scenarios
    /// of this model cannot trigger, so this is an ordered set of signals.
    pub source_signals: Option<Vec<ObjectId>>,
    /// dependent signals (Node: `kDependantSignals`), in insertion order.
    pub dependent_signals: Vec<ObjectId>,
    /// Node's `kFollowing`: the signal registered itself with its sources.
    pub following: bool,
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
    // 3. Let dependentSignalsToAbort be a new list.
    let mut dependent_signals_to_abort = Vec::new();
    // 4. For each dependentSignal of signal's dependent signals:
    let dependents = state(rt, signal).dependent_signals.clone();
    for dependent_signal in dependents {
        // 4.1. If dependentSignal is not aborted:
        if !state(rt, dependent_signal).aborted {
            // 4.1.1. Set dependentSignal's abort reason to signal's abort reason.
            set_abort_reason(rt, dependent_signal, reason.clone());
            // 4.1.2. Append dependentSignal to dependentSignalsToAbort.
            dependent_signals_to_abort.push(dependent_signal);
        }
    }
    // Invariant: every dependent of an aborted source is aborted before any
    // abort event fires.
    assert!(
        state(rt, signal)
            .dependent_signals
            .iter()
            .all(|d| state(rt, *d).aborted),
        "a dependent signal is not aborted when its source's abort event fires"
    );
    // 5. Run the abort steps for signal.
    run_the_abort_steps(rt, signal);
    // 6. For each dependentSignal of dependentSignalsToAbort, run the abort
    //    steps for dependentSignal.
    for dependent_signal in dependent_signals_to_abort {
        run_the_abort_steps(rt, dependent_signal);
    }
    // MODEL: Node then drops the signals from gcPersistentSignals
    // (https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L540);
    // that only matters to garbage collection.
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
    // MODEL: Node reaches the signal through a WeakRef and a
    // FinalizationRegistry clears the timer when the signal is collected;
    // scenarios cannot collect it, so the timer always fires.
    rt.set_timeout(
        milliseconds,
        Task::Native(Box::new(move |rt: &mut Runtime<Model>| {
            let reason =
                rt.new_dom_exception("The operation was aborted due to timeout", "TimeoutError");
            signal_abort(rt, signal, reason);
            Ok(Value::Undefined)
        })),
        false,
    );
    // 4. Return signal.
    signal
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
    // 4. For each signal of signals:
    for &signal in signals {
        // MODEL: Node adds timeout sources to gcPersistentSignals here; only GC sees it.
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
            append_source(rt, result_signal, signal);
            // (Appending resultSignal to signal's dependent signals happens in
            // follow_composite_signal, as in Node.)
        } else {
            // 4.2. Otherwise, for each sourceSignal of signal's source signals:
            let sources = state(rt, signal).source_signals.clone().unwrap_or_default();
            for source_signal in sources {
                // 4.2.1. Assert: sourceSignal is not aborted and not dependent.
                // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L367 Node asserts only "not dependent" and treats an aborted
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
                append_source(rt, result_signal, source_signal);
            }
        }
    }
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L388
    // the result registers with its sources at once ("following").
    follow_composite_signal(rt, result_signal);
    // 5. Return resultSignal.
    result_signal
}

/// Appends to a signal's source signals (an ordered set).
fn append_source(rt: &mut Runtime<Model>, result_signal: ObjectId, source: ObjectId) {
    let sources = state_mut(rt, result_signal)
        .source_signals
        .get_or_insert_with(Vec::new);
    if !sources.contains(&source) {
        sources.push(source);
    }
}

/// Node's `followCompositeSignal(signal)`: append the composite to each
/// source's dependent signals (DOM step 4.1.2 and 4.2.3 of "create a
/// dependent abort signal").
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L159>
fn follow_composite_signal(rt: &mut Runtime<Model>, signal: ObjectId) {
    let s = state(rt, signal);
    if s.following || s.aborted || s.source_signals.as_ref().is_none_or(Vec::is_empty) {
        return;
    }
    let sources = s.source_signals.clone().unwrap_or_default();
    for source_signal in sources {
        if state(rt, source_signal).aborted {
            let reason = state(rt, source_signal).reason.clone();
            signal_abort(rt, signal, reason);
            return;
        }
        // Append resultSignal to sourceSignal's dependent signals (a set).
        let dependents = &mut state_mut(rt, source_signal).dependent_signals;
        if !dependents.contains(&signal) {
            dependents.push(signal);
        }
    }
    state_mut(rt, signal).following = true;
}

/// Node's `refreshCompositeSignal(signal)`: a composite whose source is
/// aborted is aborted now. Called by the `aborted` and `reason` getters,
/// `throwIfAborted()` and `any()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L140>
/// MODEL: every composite follows its sources from creation and there is no
/// GC, so a source's abort always reaches its dependents first and this never
/// aborts anything; it is kept so that the getters read like Node's.
fn refresh_composite_signal(rt: &mut Runtime<Model>, signal: ObjectId) {
    let s = state(rt, signal);
    if !s.dependent || s.aborted || s.source_signals.as_ref().is_none_or(Vec::is_empty) {
        return;
    }
    let sources = s.source_signals.clone().unwrap_or_default();
    for source_signal in sources {
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
