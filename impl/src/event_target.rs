//! EventTarget: `addEventListener`, `removeEventListener` and the dispatch
//! walk, as Node's optimized `event_target.js` does them.
//!
//! NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L636-L891>
//! (`addEventListener`, `removeEventListener`, `kHybridDispatch`). Node
//! departs from the DOM Standard's "clone the listener list" dispatch: it
//! walks its live linked list (see [`crate::listeners`]), clears
//! `kIsBeingDispatched` after each listener that returns, reports a
//! listener's exception with `process.nextTick(() => { throw err })` and
//! attaches that reporter to a promise a listener returns. All of that is
//! kept here, because it is observable.

use nodesem_runtime::{
    AddListenerOptions, Captures, Completion, EventInit, Job, ObjectData, ObjectId,
    PromiseCapability, Task, Value,
};

use crate::event::{
    EventData, BEING_DISPATCHED, BUBBLES, CANCELABLE, COMPOSED, CUSTOM, IN_PASSIVE, STOP,
};
use crate::listeners::{Callback, CAPTURE, NIL, ONCE, PASSIVE, REMOVED, RESIST, WEAK};
use crate::{abort, alloc_host, type_error, Mutant, Rt, Slot, ABORT};

/// One EventTarget's state (an AbortSignal's too).
pub(crate) struct TargetData {
    /// The target object.
    pub(crate) obj: ObjectId,
    /// `kEvents`: type to the root of its list. A short vector: targets
    /// have few types, and a linear scan of `u32`s beats hashing.
    pub(crate) types: Vec<(u32, u32)>,
    /// The signal's index when this target is an AbortSignal (its listener
    /// hooks run then).
    pub(crate) signal: Option<u32>,
    /// `kMaxEventTargetListeners` (0: no limit).
    pub(crate) max_listeners: f64,
    /// `kMaxEventTargetListenersWarned`.
    pub(crate) warned: bool,
    /// The arrows of the `signal` option's removers this target retains
    /// (Node's `objectToWeakListenerMap.get(this)`), while they are linked.
    pub(crate) removers: Vec<ObjectId>,
}

/// `EventEmitter.defaultMaxListeners`, which every `initEventTarget`
/// copies. NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L262>
pub(crate) const DEFAULT_MAX_LISTENERS: f64 = 10.0;

impl TargetData {
    /// `this[kEvents]?.get(type)`.
    #[inline]
    pub(crate) fn root(&self, ty: u32) -> Option<u32> {
        self.types.iter().find(|(t, _)| *t == ty).map(|&(_, r)| r)
    }
}

/// `new EventTarget()`.
pub(crate) fn new_target(rt: &mut Rt) -> Value {
    let index = rt.lib.targets.len() as u32;
    let obj = alloc_host(rt, |_| Slot::Target(index));
    rt.lib.targets.push(TargetData {
        obj,
        types: Vec::new(),
        signal: None,
        // initEventTarget: `EventEmitter.defaultMaxListeners` as it is now.
        max_listeners: rt.lib.default_max_listeners,
        warned: false,
        removers: Vec::new(),
    });
    Value::Object(obj)
}

/// The target index of an EventTarget or AbortSignal value.
fn target_of(rt: &mut Rt, value: &Value) -> Result<u32, Value> {
    match value.as_object().map(|obj| rt.lib.slot(obj)) {
        Some(Slot::Target(t)) => Ok(t),
        Some(Slot::Signal(s)) => Ok(rt.lib.signals[s as usize].target),
        _ => Err(type_error(
            rt,
            "The \"this\" argument must be an instance of EventTarget",
        )),
    }
}

/// `on T TYPE [once] [capture] [passive] [signal S] CALLBACK`.
pub(crate) fn op_add_event_listener(
    rt: &mut Rt,
    target: &Value,
    event_type: &str,
    listener: &Value,
    options: &AddListenerOptions,
) -> Completion {
    let target = target_of(rt, target)?;
    let ty = rt.lib.intern(event_type);
    // Seed ("addEventListener() flattens its options into locals"): the
    // options become flag bits at once; no options record is made.
    let mut flags = 0;
    if options.once {
        flags |= ONCE;
    }
    if options.capture {
        flags |= CAPTURE;
    }
    if options.passive {
        flags |= PASSIVE;
    }
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L1109-L1125> `validateEventListenerOptions` of an options value:
    // `true` is the capture flag; null, undefined (the default parameter,
    // kEmptyObject) and any object (whose once, capture, passive and signal
    // no object of the language has) set nothing; the rest fail
    // `validateObject(options, 'options', kValidateObjectAllowObjects)`.
    match &options.value {
        None | Some(Value::Undefined | Value::Null | Value::Object(_) | Value::Bool(false)) => {}
        Some(Value::Bool(true)) => flags |= CAPTURE,
        Some(other) => return Err(rt.err_invalid_arg_type("options", "object", other)),
    }
    // Seed ("... and only validates signal when one is passed").
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L663> `validateAbortSignal(signal, 'options.signal')`; undefined is none.
    let signal = match &options.signal {
        None | Some(Value::Undefined) => None,
        Some(value) => match value.as_object().map(|obj| rt.lib.slot(obj)) {
            Some(Slot::Signal(s)) => Some(s),
            _ => return Err(rt.err_invalid_arg_type("options.signal", "AbortSignal", value)),
        },
    };
    if let Some(signal) = signal {
        if rt.lib.signals[signal as usize].aborted {
            return Ok(Value::Undefined);
        }
        let capture = options.capture && rt.lib.mutant != Some(Mutant::SignalRemovalIgnoresCapture);
        let signal_target = rt.lib.signals[signal as usize].target;
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L669-L671> `signal.addEventListener('abort', () => this.removeEventListener(...),
        // { once: true, [kWeakHandler]: this, [kResistStopPropagation]: true })`,
        // before the duplicate check, so even a duplicate registration gets
        // one, and before the listener is validated, so a refused one too.
        let (callback_listener, error) = match *listener {
            Value::Object(listener) => (Some(listener), None),
            ref other => (
                None,
                invalid_listener(rt, other)
                    .err()
                    .and_then(|e| e.as_object()),
            ),
        };
        let remover = new_remover(rt, signal, target, callback_listener, error);
        let callback = match callback_listener {
            Some(listener) => Callback::RemoveOnAbort {
                target,
                ty,
                listener,
                capture,
                remover,
            },
            None => Callback::RemoveInvalid { error, remover },
        };
        add_listener(rt, signal_target, ABORT, callback, ONCE | WEAK | RESIST);
    }
    let Value::Object(listener) = *listener else {
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L675-L686> a listener that fails `validateEventListener`: when null or
        // undefined, an AddEventListenerArgumentTypeWarning and nothing
        // added; otherwise ERR_INVALID_ARG_TYPE.
        invalid_listener(rt, listener)?;
        let text = if matches!(listener, Value::Null) {
            "addEventListener called with null which has no effect."
        } else {
            "addEventListener called with undefined which has no effect."
        };
        rt.emit_warning("AddEventListenerArgumentTypeWarning", text);
        return Ok(Value::Undefined);
    };
    add_listener(rt, target, ty, Callback::Function(listener), flags);
    Ok(Value::Undefined)
}

/// The `signal` option's remover: its arrow (a host object the retainer
/// `target` holds, which holds the target, the listener and the signal),
/// registered in the weak listeners' registry.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L486-L506>
/// the weak `Listener`: `new SafeWeakRef(listener)` (the arrow),
/// `new SafeWeakRef(eventTarget)` (the signal) and `new SafeWeakRef(weak)`
/// (the retainer) keep all three until the end of the job.
fn new_remover(
    rt: &mut Rt,
    signal: u32,
    retainer: u32,
    listener: Option<ObjectId>,
    error: Option<ObjectId>,
) -> u32 {
    let index = rt.lib.removers.len() as u32;
    let arrow = alloc_host(rt, |_| Slot::Remover(index));
    rt.lib.removers.push(crate::gc::RemoverData {
        arrow,
        signal,
        retainer,
        listener,
        error,
        node: crate::listeners::NIL,
        registered: true,
    });
    rt.lib.targets[retainer as usize].removers.push(arrow);
    let signal_obj = rt.lib.signals[signal as usize].obj;
    let retainer_obj = rt.lib.targets[retainer as usize].obj;
    for obj in [arrow, signal_obj, retainer_obj] {
        rt.add_to_kept_objects(&Value::Object(obj));
    }
    crate::gc::register_remover(rt, index);
    index
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L1092-L1107> `validateEventListener` of a listener argument that is no object:
/// `null` and `undefined` pass as none, the rest throw ERR_INVALID_ARG_TYPE.
fn invalid_listener(rt: &mut Rt, listener: &Value) -> Completion {
    match listener {
        Value::Null | Value::Undefined => Ok(Value::Undefined),
        other => Err(rt.err_invalid_arg_type("listener", "EventListener", other)),
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L693-L727> the list half of `addEventListener`: a new root for the first
/// listener of a type, else the duplicate walk and an append.
pub(crate) fn add_listener(rt: &mut Rt, target: u32, ty: u32, callback: Callback, flags: u8) {
    let lib = &mut rt.lib;
    let size = match lib.targets[target as usize].root(ty) {
        None => {
            let root = lib.listeners.new_root(flags & RESIST != 0);
            let node = lib.listeners.append(root, callback, flags);
            note_remover_node(lib, callback, node);
            lib.targets[target as usize].types.push((ty, root));
            1
        }
        Some(root) => {
            let last = match lib.listeners.find(root, callback, flags & CAPTURE != 0) {
                Err(last) => last,
                Ok(duplicate) => {
                    // A duplicate: ignored (the mutant updates it instead).
                    if lib.mutant == Some(Mutant::ReaddOverwritesFlags) {
                        let node = lib.listeners.get_mut(duplicate);
                        node.flags = (node.flags & !(ONCE | PASSIVE)) | (flags & (ONCE | PASSIVE));
                    }
                    return;
                }
            };
            let node = lib.listeners.append(last, callback, flags);
            note_remover_node(lib, callback, node);
            let root = lib.listeners.get_mut(root);
            root.size += 1;
            root.flags |= flags & RESIST;
            root.size
        }
    };
    new_listener_hook(rt, target, ty, size, flags & WEAK != 0);
}

/// A remover's node, once linked.
fn note_remover_node(lib: &mut crate::Impl, callback: Callback, node: u32) {
    if let Callback::RemoveOnAbort { remover, .. } | Callback::RemoveInvalid { remover, .. } =
        callback
    {
        lib.removers[remover as usize].node = node;
    }
}

/// `kNewListener`. Seed ("AbortSignal calls the EventTarget hooks directly
/// instead of through keyed super"): one plain call; the EventTarget half
/// (the MaxListeners warning) first, then the signal half, for signals only.
pub(crate) fn new_listener_hook(rt: &mut Rt, target: u32, ty: u32, size: i32, weak: bool) {
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L597-L613>
    // `max > 0 && size > max && !warned`: warn once, until setMaxListeners.
    let data = &rt.lib.targets[target as usize];
    if data.max_listeners > 0.0 && f64::from(size) > data.max_listeners && !data.warned {
        max_listeners_exceeded(rt, target, ty, size);
    }
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L393-L412>
    // the signal half reads `this.aborted` (a refresh) for every abort
    // listener, before it tests `size === 1`.
    if let Some(signal) = rt.lib.targets[target as usize].signal {
        if ty == ABORT {
            abort::signal_new_abort_listener(rt, signal, size, weak);
        }
    }
}

/// The cold half of `kNewListener`: marks the target warned and emits the
/// MaxListenersExceededWarning. `inspect(this, { depth: -1 })` is
/// `EventTarget` for a plain target (its custom inspect returns the class
/// name, NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L896-L899>)
/// and `[AbortSignal]` for a signal (its custom inspect returns the signal
/// itself, NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L124-L126>).
#[cold]
fn max_listeners_exceeded(rt: &mut Rt, target: u32, ty: u32, size: i32) {
    let data = &mut rt.lib.targets[target as usize];
    data.warned = true;
    let inspected = if data.signal.is_some() {
        "[AbortSignal]"
    } else {
        "EventTarget"
    };
    let max = Value::Number(data.max_listeners);
    let ty = rt.lib.types[ty as usize].clone();
    let max = rt.fmt(&max);
    let message = format!(
        "Possible EventTarget memory leak detected. {size} {ty} listeners added to {inspected}. \
         MaxListeners is {max}. Use events.setMaxListeners() to increase limit"
    );
    rt.emit_warning("MaxListenersExceededWarning", &message);
}

/// `events.setMaxListeners(n, ...eventTargets)` with at least one target.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L304-L328>
/// `n = defaultMaxListeners` when undefined, `validateNumber(n,
/// 'setMaxListeners', 0)`, then for each target in turn: an EventTarget's
/// `kMaxEventTargetListeners = n` and `kMaxEventTargetListenersWarned =
/// false`; else `target.setMaxListeners`, which no scenario value has
/// (ERR_INVALID_ARG_TYPE; V8's TypeError on undefined and null).
pub(crate) fn op_set_max_listeners(rt: &mut Rt, n: &Value, targets: &[Value]) -> Completion {
    let n = match *n {
        Value::Undefined => rt.lib.default_max_listeners,
        Value::Number(n) if n >= 0.0 => n,
        // validateNumber (lib/internal/validators.js#L188-L199): NaN and
        // numbers below 0 are out of range.
        Value::Number(n) => return Err(rt.err_out_of_range("setMaxListeners", ">= 0", n)),
        ref other => return Err(rt.err_invalid_arg_type("setMaxListeners", "number", other)),
    };
    for value in targets {
        let index = match value.as_object().map(|obj| rt.lib.slot(obj)) {
            Some(Slot::Target(t)) => t,
            Some(Slot::Signal(s)) => rt.lib.signals[s as usize].target,
            // `typeof target.setMaxListeners === 'function'`: an emitter's
            // own `setMaxListeners(n)`.
            Some(Slot::Emitter(e)) => {
                crate::emitter::set_max_listeners(rt, e, n);
                continue;
            }
            _ if matches!(value, Value::Undefined | Value::Null) => {
                return Err(rt.cannot_read_properties(value, "setMaxListeners"));
            }
            _ => {
                return Err(rt.err_invalid_arg_type_classes(
                    "eventTargets",
                    &["EventEmitter", "EventTarget"],
                    value,
                ));
            }
        };
        let data = &mut rt.lib.targets[index as usize];
        data.max_listeners = n;
        data.warned = false;
    }
    Ok(Value::Undefined)
}

/// `events.getMaxListeners(emitterOrTarget)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L962-L973>
/// `emitterOrTarget?.[kMaxEventTargetListeners]` when it is a number, else
/// ERR_INVALID_ARG_TYPE naming "emitter".
pub(crate) fn op_get_max_listeners(rt: &mut Rt, value: &Value) -> Completion {
    let index = match value.as_object().map(|obj| rt.lib.slot(obj)) {
        Some(Slot::Target(t)) => t,
        Some(Slot::Signal(s)) => rt.lib.signals[s as usize].target,
        // `typeof emitterOrTarget?.getMaxListeners === 'function'` comes
        // first: an emitter's `_getMaxListeners`.
        Some(Slot::Emitter(e)) => {
            return Ok(Value::Number(crate::emitter::get_max_listeners(rt, e)))
        }
        _ => {
            return Err(rt.err_invalid_arg_type_classes(
                "emitter",
                &["EventEmitter", "EventTarget"],
                value,
            ))
        }
    };
    Ok(Value::Number(rt.lib.targets[index as usize].max_listeners))
}

/// `kRemoveListener`, the same way.
pub(crate) fn remove_listener_hook(rt: &mut Rt, target: u32, ty: u32, size: i32) {
    if let Some(signal) = rt.lib.targets[target as usize].signal {
        if ty == ABORT && size == 0 {
            abort::signal_last_abort_listener_removed(rt, signal);
        }
    }
}

/// `off T TYPE F [capture]`.
pub(crate) fn op_remove_event_listener(
    rt: &mut Rt,
    target: &Value,
    event_type: &str,
    listener: &Value,
    capture: bool,
) -> Completion {
    let target = target_of(rt, target)?;
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L743-L744> `if (!validateEventListener(listener)) return;`
    let Value::Object(listener) = *listener else {
        return invalid_listener(rt, listener);
    };
    let ty = rt.lib.intern(event_type);
    let removed = remove_listener(rt, target, ty, Callback::Function(listener), capture);
    if removed && rt.lib.mutant == Some(Mutant::RemovalListenerDropped) {
        drop_removal_listener(rt, target, ty, listener, capture);
    }
    Ok(Value::Undefined)
}

/// The mutant [`Mutant::RemovalListenerDropped`]: the first removal listener
/// that the `signal` option put on any signal for this (target, type,
/// listener, capture) leaves that signal's abort list.
fn drop_removal_listener(rt: &mut Rt, target: u32, ty: u32, listener: ObjectId, capture: bool) {
    let wanted = |c: Callback| {
        matches!(c, Callback::RemoveOnAbort { target: t, ty: y, listener: l, capture: c, .. }
            if (t, y, l, c) == (target, ty, listener, capture))
    };
    for s in 0..rt.lib.signals.len() {
        let signal_target = rt.lib.signals[s].target;
        let Some(root) = rt.lib.targets[signal_target as usize].root(ABORT) else {
            continue;
        };
        let mut node = rt.lib.listeners.get(root).next;
        while node != NIL {
            if wanted(rt.lib.listeners.get(node).callback) {
                unlink(rt, signal_target, ABORT, root, node);
                return;
            }
            node = rt.lib.listeners.get(node).next;
        }
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L758-L769> `removeEventListener`: the first node with the same listener and
/// capture flag is unlinked; a list whose size drops to 0 loses its root.
/// Returns whether a listener was removed.
pub(crate) fn remove_listener(
    rt: &mut Rt,
    target: u32,
    ty: u32,
    callback: Callback,
    capture: bool,
) -> bool {
    let lib = &mut rt.lib;
    let Some(root) = lib.targets[target as usize].root(ty) else {
        return false;
    };
    let Ok(node) = lib.listeners.find(root, callback, capture) else {
        return false;
    };
    unlink(rt, target, ty, root, node);
    true
}

/// The rest of `removeEventListener` once the node is found: unlink it,
/// count it off the root, drop a root whose size reaches 0, run the hook.
pub(crate) fn unlink(rt: &mut Rt, target: u32, ty: u32, root: u32, node: u32) {
    let callback = rt.lib.listeners.get(node).callback;
    crate::gc::forget_remover(rt, callback);
    let lib = &mut rt.lib;
    let mutant = lib.mutant;
    lib.listeners.remove(node, mutant);
    let root_node = lib.listeners.get_mut(root);
    root_node.size -= 1;
    let size = root_node.size;
    if size == 0 {
        lib.targets[target as usize].types.retain(|&(t, _)| t != ty);
        // Nodes still linked after the root (only an `onabort` wrapper whose
        // handler is null can be: Node's size does not count it) become
        // unreachable with it; they are not recycled.
        lib.listeners.release(root, mutant);
    }
    remove_listener_hook(rt, target, ty, size);
}

/// A new Event (`new Event(type, { cancelable })`, or a trusted one).
pub(crate) fn new_event(rt: &mut Rt, ty: u32, flags: u16) -> u32 {
    let index = rt.lib.events.len() as u32;
    let obj = alloc_host(rt, |_| Slot::Event(index));
    rt.lib.events.push(EventData {
        obj,
        ty,
        target: None,
        flags,
        detail: 0,
    });
    index
}

/// `new Event(type, options)` and `new CustomEvent(type, options)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L116-L133> and
/// <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L403-L408>: `arguments.length === 0` throws
/// ERR_MISSING_ARGS; `this[kDetail] = options?.detail ?? null`.
pub(crate) fn op_new_event(rt: &mut Rt, init: EventInit) -> Completion {
    let Some(event_type) = init.event_type else {
        return Err(rt.node_error(
            "TypeError",
            "ERR_MISSING_ARGS",
            "The \"type\" argument must be specified",
        ));
    };
    let ty = rt.lib.intern(&event_type);
    let mut flags = 0;
    for (set, flag) in [
        (init.bubbles, BUBBLES),
        (init.cancelable, CANCELABLE),
        (init.composed, COMPOSED),
        (init.custom, CUSTOM),
    ] {
        if set {
            flags |= flag;
        }
    }
    let event = new_event(rt, ty, flags);
    if init.custom {
        let detail = match init.detail {
            None | Some(Value::Undefined) => Value::Null,
            Some(v) => v,
        };
        rt.lib.events[event as usize].detail = rt.lib.details.len() as u32;
        rt.lib.details.push(detail);
    }
    Ok(Value::Object(rt.lib.events[event as usize].obj))
}

/// `dispatchEvent T E` of an event the script holds.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L800-L815> `instanceof Event`, then ERR_EVENT_RECURSION for an
/// event being dispatched, then `kHybridDispatch`.
pub(crate) fn op_dispatch_event(rt: &mut Rt, target: &Value, event: &Value) -> Completion {
    let target = target_of(rt, target)?;
    let Some(Slot::Event(e)) = event.as_object().map(|obj| rt.lib.slot(obj)) else {
        return Err(rt.err_invalid_arg_type("event", "Event", event));
    };
    let data = rt.lib.events[e as usize];
    if data.has(BEING_DISPATCHED) {
        let message = format!(
            "The event \"{}\" is already being dispatched",
            rt.lib.type_name(data.ty)
        );
        return Err(rt.node_error("Error", "ERR_EVENT_RECURSION", &message));
    }
    dispatch(rt, target, data.ty, e);
    let e = &rt.lib.events[e as usize];
    Ok(Value::Bool(
        !(e.has(CANCELABLE) && e.has(crate::event::DEFAULT_PREVENTED)),
    ))
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L258-L262> `composedPath()`: `[target]` while being dispatched.
pub(crate) fn op_composed_path(rt: &mut Rt, event: &Value) -> Completion {
    let Some(Slot::Event(e)) = event.as_object().map(|obj| rt.lib.slot(obj)) else {
        return Err(rt.cannot_read_properties(event, "composedPath"));
    };
    let data = rt.lib.events[e as usize];
    let path = match data.target {
        Some(t) if data.has(BEING_DISPATCHED) => vec![Value::Object(t)],
        _ => Vec::new(),
    };
    Ok(rt.create_array_from_list(path))
}

/// `dispatch T TYPE [cancelable]`: `T.dispatchEvent(new Event(TYPE, ...))`.
pub(crate) fn op_dispatch(
    rt: &mut Rt,
    target: &Value,
    event_type: &str,
    cancelable: bool,
) -> Completion {
    let target = target_of(rt, target)?;
    let ty = rt.lib.intern(event_type);
    // Not Node's, same observable result: with no listener, nobody can see
    // the event, so none is made and nothing can have prevented it.
    if !has_listeners(rt, target, ty) {
        return Ok(Value::Bool(true));
    }
    let event = new_event(rt, ty, if cancelable { CANCELABLE } else { 0 });
    dispatch(rt, target, ty, event);
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L814> `return event.defaultPrevented !== true`.
    let e = &rt.lib.events[event as usize];
    Ok(Value::Bool(
        !(e.has(CANCELABLE) && e.has(crate::event::DEFAULT_PREVENTED)),
    ))
}

/// `events.getEventListeners(target, type).length`: the nodes hanging off
/// the type's root (the runtime charges it as work). A type never interned
/// has no root anywhere.
pub(crate) fn listener_count(rt: &Rt, target: ObjectId, event_type: &str) -> u64 {
    let target = match rt.lib.slot(target) {
        Slot::Target(t) => t,
        Slot::Signal(s) => rt.lib.signals[s as usize].target,
        _ => return 0,
    };
    let Some(ty) = rt.lib.types.iter().position(|t| &**t == event_type) else {
        return 0;
    };
    let Some(root) = rt.lib.targets[target as usize].root(ty as u32) else {
        return 0;
    };
    let mut count = 0;
    let mut next = rt.lib.listeners.get(root).next;
    while next != NIL {
        count += 1;
        next = rt.lib.listeners.get(next).next;
    }
    count
}

/// Whether a dispatch of `ty` on `target` would call anything: the type has
/// a root with at least one node.
#[inline]
pub(crate) fn has_listeners(rt: &Rt, target: u32, ty: u32) -> bool {
    match rt.lib.targets[target as usize].root(ty) {
        Some(root) => rt.lib.listeners.get(root).next != NIL,
        None => false,
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L817> `kHybridDispatch(event, type, event)`, the walk.
pub(crate) fn dispatch(rt: &mut Rt, target: u32, ty: u32, event: u32) {
    let target_obj = rt.lib.targets[target as usize].obj;
    let event_obj = {
        let e = &mut rt.lib.events[event as usize];
        debug_assert!(
            !e.has(BEING_DISPATCHED),
            "op_dispatch_event refuses an event being dispatched"
        );
        e.target = Some(target_obj);
        e.flags |= BEING_DISPATCHED;
        e.obj
    };
    let first = match rt.lib.targets[target as usize].root(ty) {
        Some(root) => (root, rt.lib.listeners.get(root).next),
        None => (NIL, NIL),
    };
    let (root, mut handler) = first;
    if handler == NIL {
        rt.lib.events[event as usize].flags &= !BEING_DISPATCHED;
        return;
    }
    // The mutants that reorder the walk's own bookkeeping.
    let once_after_call = rt.lib.mutant == Some(Mutant::OnceRemovedAfterCall);
    let flag_hoisted = rt.lib.mutant == Some(Mutant::DispatchFlagHoisted);
    rt.lib.listeners.begin_walk();
    // The walk's locals (`this`, `event`, the cached `next` record's
    // callback) are roots while it runs.
    let base = rt.lib.in_flight.len();
    rt.lib.in_flight.extend([
        Value::Object(target_obj),
        Value::Object(event_obj),
        Value::Undefined,
    ]);
    while handler != NIL {
        let node = *rt.lib.listeners.get(handler);
        let stopped = rt.lib.events[event as usize].has(STOP);
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L833-L834> `while (handler !== undefined && (root.resistStopPropagation
        // || handler.passive || event?.[kStop] !== true))`.
        if !(rt.lib.listeners.get(root).flags & RESIST != 0
            || node.flags & PASSIVE != 0
            || !stopped)
        {
            break;
        }
        // Cache the next item in case this iteration removes the current one.
        let next = node.next;
        rt.lib.in_flight[base + 2] =
            match (next != NIL).then(|| rt.lib.listeners.get(next).callback) {
                Some(Callback::Function(f)) => Value::Object(f),
                _ => Value::Undefined,
            };
        let removed =
            node.flags & REMOVED != 0 && rt.lib.mutant != Some(Mutant::RemovedListenerRuns);
        if removed || (stopped && node.flags & RESIST == 0) {
            handler = next;
            continue;
        }
        let once = node.flags & ONCE != 0 && node.flags & REMOVED == 0;
        if once && !once_after_call {
            remove_once(rt, target, ty, root, handler);
        }
        if node.flags & PASSIVE != 0 {
            rt.lib.events[event as usize].flags |= IN_PASSIVE;
        }
        match call_listener(rt, node.callback, target_obj, event_obj) {
            Ok(result) => {
                if !flag_hoisted {
                    rt.lib.events[event as usize].flags &= !BEING_DISPATCHED;
                }
                if !matches!(result, Value::Undefined | Value::Null) {
                    add_catch(rt, result);
                }
            }
            Err(err) => emit_uncaught_exception(rt, err),
        }
        if once && once_after_call && rt.lib.listeners.get(handler).flags & REMOVED == 0 {
            remove_once(rt, target, ty, root, handler);
        }
        rt.lib.events[event as usize].flags &= !IN_PASSIVE;
        handler = next;
    }
    rt.lib.events[event as usize].flags &= !BEING_DISPATCHED;
    rt.lib.in_flight.truncate(base);
    rt.lib.listeners.end_walk();
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L846-L851> the `once` half of the walk: `handler.remove(); root.size--;`
/// and `kRemoveListener` (the root stays, even at size 0).
fn remove_once(rt: &mut Rt, target: u32, ty: u32, root: u32, handler: u32) {
    let callback = rt.lib.listeners.get(handler).callback;
    crate::gc::forget_remover(rt, callback);
    let mutant = rt.lib.mutant;
    rt.lib.listeners.remove(handler, mutant);
    let root_node = rt.lib.listeners.get_mut(root);
    root_node.size -= 1;
    let size = root_node.size;
    remove_listener_hook(rt, target, ty, size);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L510-L514> the callback `new Listener` makes for an
/// EventListener object: `async (...args) => { if (listener.handleEvent)
/// await ReflectApply(listener.handleEvent, listener, args); }`, its promise
/// returned to the walk (which passes it to `addCatch`).
fn call_handle_event(
    rt: &mut Rt,
    object: ObjectId,
    handle_event: ObjectId,
    event: ObjectId,
) -> Completion {
    let PromiseCapability {
        promise,
        resolve,
        reject,
    } = rt.new_promise_capability();
    // The wrapper's frame holds its promise while handleEvent runs.
    let capability = [promise, resolve, reject].map(Value::Object);
    let settle: Result<Value, Value> = rt.holding(&capability, |rt| {
        rt.call_function(handle_event, Value::Object(object), &[Value::Object(event)])
    });
    match settle {
        Err(thrown) => {
            rt.call_function(reject, Value::Undefined, &[thrown])?;
        }
        Ok(returned) => {
            // `await`: the promise settles once what handleEvent returned has.
            let awaited = rt.promise_resolve(returned);
            let done = rt
                .native_function_capturing(Captures::objects(&[resolve]), move |rt, _, _| {
                    rt.call_function(resolve, Value::Undefined, &[Value::Undefined])
                });
            let failed =
                rt.native_function_capturing(Captures::objects(&[reject]), move |rt, _, args| {
                    rt.call_function(
                        reject,
                        Value::Undefined,
                        &[args.first().cloned().unwrap_or(Value::Undefined)],
                    )
                });
            rt.perform_promise_then(awaited, Some(done), Some(failed), None);
        }
    }
    Ok(Value::Object(promise))
}

/// Calls what a listener node holds, with `this` the target.
fn call_listener(rt: &mut Rt, callback: Callback, this: ObjectId, event: ObjectId) -> Completion {
    match callback {
        Callback::Function(f) => match *rt.heap.get(f) {
            ObjectData::ListenerObject { handle_event } => {
                call_handle_event(rt, f, handle_event, event)
            }
            ObjectData::Function(_) => {
                rt.call_function(f, Value::Object(this), &[Value::Object(event)])
            }
            // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L510-L514> any other object gets the async wrapper too,
            // whose `if (listener.handleEvent)` is false for every object
            // but a handleEvent one: the wrapper's promise, fulfilled.
            _ => {
                let PromiseCapability {
                    promise, resolve, ..
                } = rt.new_promise_capability();
                rt.call_function(resolve, Value::Undefined, &[Value::Undefined])?;
                Ok(Value::Object(promise))
            }
        },
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L1158-L1163> `makeEventHandler`'s `eventHandler`: calls the current
        // handler if it is a function.
        Callback::EventHandler(signal) => match rt.lib.signals[signal as usize].onabort {
            Some(Value::Object(f)) if rt.is_function(&Value::Object(f)) => {
                rt.call_function(f, Value::Object(this), &[Value::Object(event)])
            }
            _ => Ok(Value::Undefined),
        },
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L865-L869>
        // a weak handler whose callback was collected is not called.
        Callback::RemoveOnAbort { remover, .. } | Callback::RemoveInvalid { remover, .. }
            if !crate::gc::remover_alive(rt, remover) =>
        {
            Ok(Value::Undefined)
        }
        Callback::RemoveOnAbort {
            target,
            ty,
            listener,
            capture,
            ..
        } => {
            remove_listener(rt, target, ty, Callback::Function(listener), capture);
            Ok(Value::Undefined)
        }
        Callback::RemoveInvalid { error, .. } => match error {
            Some(error) => Err(Value::Object(error)),
            None => Ok(Value::Undefined),
        },
        // A walk never reaches a root, unless the recycling mutant
        // (`Mutant::RecycleDuringWalk`) made a node it held into one.
        Callback::Root => Ok(Value::Undefined),
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L1151-L1153> `emitUncaughtException(err)`: `process.nextTick(() => { throw err; })`.
pub(crate) fn emit_uncaught_exception(rt: &mut Rt, err: Value) {
    let captures = Captures::values(vec![err.clone()]);
    let rethrow = Task::Captured(Box::new(move |_| Err(err)), captures);
    if rt.lib.mutant == Some(Mutant::ExceptionInMicrotask) {
        rt.enqueue_microtask(Job::Task(rethrow));
    } else {
        rt.next_tick(rethrow);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L1140-L1149> `addCatch(result)`: a listener's non-nullish result gets
/// `result.then(undefined, err => emitUncaughtException(err))` when it has a
/// `then`. Scripts can return two such objects: a promise, and a `thenable`,
/// whose `then(resolve) { resolve(V) }` then calls `undefined` and throws.
fn add_catch(rt: &mut Rt, result: Value) {
    let Value::Object(obj) = result else {
        return;
    };
    match rt.heap.get(obj) {
        ObjectData::Promise(_) => {
            let on_rejected =
                rt.native_function_capturing(Captures::nothing(), |rt, _this, args| {
                    let err = args.first().cloned().unwrap_or(Value::Undefined);
                    emit_uncaught_exception(rt, err);
                    Ok(Value::Undefined)
                });
            rt.promise_then(obj, None, Some(on_rejected));
        }
        ObjectData::Thenable { then, .. } => {
            // Its script code runs first; what it throws is reported instead.
            let err = match then.map(|body| rt.call_function(body, Value::Object(obj), &[])) {
                Some(Err(thrown)) => thrown,
                _ => rt.new_error("TypeError", "resolve is not a function"),
            };
            emit_uncaught_exception(rt, err);
        }
        _ => {}
    }
}

/// `preventDefault E`, `stopPropagation E`, `stopImmediatePropagation E`.
pub(crate) fn op_event_method(
    rt: &mut Rt,
    value: &Value,
    name: &str,
    method: impl FnOnce(&mut EventData),
) -> Completion {
    let slot = value.as_object().map(|o| rt.lib.slot(o));
    let Some(Slot::Event(e)) = slot else {
        // V8's message for a method call on undefined or null; the parser
        // lets only events through otherwise.
        return Err(rt.cannot_read_properties(value, name));
    };
    method(&mut rt.lib.events[e as usize]);
    Ok(Value::Undefined)
}
