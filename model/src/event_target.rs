//! `EventTarget`: the event listener list, adding and removing listeners,
//! dispatching, and event handler attributes (`onabort`).
//!
//! The DOM Standard keeps an event listener list and clones it at the start
//! of a dispatch. Node 26 keeps, per event type, a doubly linked list behind a
//! head record (`root`) and walks it live, caching only the next node before
//! each call. Which listeners a dispatch visits after listeners were added or
//! removed during it follows from that walk, so the model keeps the same
//! structure: an arena of listener nodes with `previous`/`next` links and an
//! arena of roots. The observable departures are marked `NODE:`.
//!
//! DOM Standard: <https://dom.spec.whatwg.org/#interface-eventtarget>.
//! Node 26.12.1: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L587>.

use std::collections::{BTreeMap, HashSet};

use nodesem_runtime::gc::Captures;
use nodesem_runtime::{Completion, ObjectData, ObjectId, PromiseCapability, Runtime, Task, Value};

use crate::gc;
use crate::{abort, event, Model};

/// An index into [`Model::listeners`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ListenerId(pub(crate) usize);

/// An index into [`Model::roots`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootId(usize);

/// What precedes a listener node: the root or another node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Link {
    Root(RootId),
    Listener(ListenerId),
}

/// Node's list head for one event type: `{ size, next, resistStopPropagation }`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L694>
#[derive(Debug)]
pub struct ListenerRoot {
    /// `size`: Node's count of listeners. It is bookkeeping only, but when a
    /// removal brings it to 0 the root leaves the target's map, which is
    /// observable through `onabort` (see [`set_event_handler`]). It is not
    /// always the length of the list: an `onabort` wrapper whose handler is
    /// null stays in the list uncounted.
    size: i64,
    /// `next`: the first listener.
    next: Option<ListenerId>,
    /// `resistStopPropagation`: set once any listener of this type resisted
    /// `stopImmediatePropagation()`, never unset.
    resist_stop_propagation: bool,
}

/// An event listener (<https://dom.spec.whatwg.org/#concept-event-listener>),
/// as Node's `Listener` class: a node of the linked list.
#[derive(Debug)]
pub struct EventListener {
    /// callback: the function object (identity matters for removal), held
    /// strongly or, for a weak listener, through a WeakRef.
    callback: ListenerCallback,
    /// once.
    once: bool,
    /// capture.
    capture: bool,
    /// passive.
    passive: bool,
    /// Node's `kResistStopPropagation`: runs even after
    /// `stopImmediatePropagation()` (used by `addAbortListener` and by the
    /// removal listener of the `signal` option).
    resist_stop_propagation: bool,
    /// removed.
    removed: bool,
    previous: Link,
    /// Kept after removal, as Node's `remove()` keeps it: a dispatch that
    /// cached this node as its next one continues from here.
    next: Option<ListenerId>,
}

/// How a listener node holds its callback.
#[derive(Debug)]
enum ListenerCallback {
    /// `this.callback = listener`.
    Strong(ObjectId),
    /// A weak listener (Node's `kWeakHandler` option, which only the
    /// `signal` option's remover uses).
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L486-L506>
    Weak {
        /// `this.callback = new SafeWeakRef(listener)`.
        callback_ref: Value,
        /// `this.weakKeyRef = new SafeWeakRef(weak)`: the retainer.
        weak_key_ref: Value,
        /// The heap object standing for this `Listener` record, which the
        /// weak-listener registry's holdings hold and which is its
        /// unregister token.
        record: ObjectId,
    },
}

/// An `onabort`-style event handler: Node's `makeEventHandler` wrapper, a
/// listener whose handler can be swapped without moving it in the list.
#[derive(Debug)]
pub struct EventHandler {
    /// The wrapper function registered as a listener.
    wrapper: ObjectId,
    /// The current handler: a function or null.
    handler: Value,
}

/// The state of an EventTarget (a plain one or an AbortSignal).
#[derive(Debug, Default)]
pub struct EventTargetState {
    /// Node's `kEvents`: event type to the root of its listener list.
    events: BTreeMap<String, RootId>,
    /// Node's `kHandlers`: event type to its event handler.
    handlers: BTreeMap<String, EventHandler>,
    /// Node's `kMaxEventTargetListeners`: above this many listeners of one
    /// type, a MaxListenersExceededWarning; 0 is no limit.
    max_listeners: f64,
    /// Node's `kMaxEventTargetListenersWarned`: the warning was given, for
    /// whichever type, and is not given again until `setMaxListeners`.
    max_listeners_warned: bool,
}

/// The flattened options of `addEventListener`, including Node's internal ones.
#[derive(Clone, Copy, Debug, Default)]
pub struct ListenerOptions {
    /// `once`.
    pub once: bool,
    /// `capture`.
    pub capture: bool,
    /// `passive`.
    pub passive: bool,
    /// `signal`.
    pub signal: Option<ObjectId>,
    /// Node's `kResistStopPropagation`.
    pub resist_stop_propagation: bool,
    /// Node's `kWeakHandler`: the retainer object of a weak listener.
    pub weak: Option<ObjectId>,
}

/// `new EventTarget()`.
pub fn new_event_target(rt: &mut Runtime<Model>) -> ObjectId {
    let id = rt.heap.alloc(ObjectData::Host);
    init_event_target(rt, id);
    id
}

/// Node's `initEventTarget(self)`: an empty listener map, the default
/// maximum of listeners and no warning given.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L574-L579>
/// `self[kMaxEventTargetListeners] = EventEmitter.defaultMaxListeners`:
/// the default as it is when the target is made (10 unless a scenario set
/// `events.defaultMaxListeners`), kept by the target afterwards.
pub fn init_event_target(rt: &mut Runtime<Model>, id: ObjectId) {
    let max_listeners = crate::emitter::default_max_listeners(rt);
    rt.lib.targets.insert(
        id,
        EventTargetState {
            max_listeners,
            ..EventTargetState::default()
        },
    );
}

/// What `events.setMaxListeners(n, target)` does to an EventTarget: sets
/// its maximum and forgets that it warned.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L315-L317>
pub fn set_max_listeners(rt: &mut Runtime<Model>, event_target: ObjectId, n: f64) {
    let state = target_state_mut(rt, event_target);
    state.max_listeners = n;
    state.max_listeners_warned = false;
}

/// `target[kMaxEventTargetListeners]`, or `None` for an object that is no
/// EventTarget.
pub fn max_listeners(rt: &Runtime<Model>, object: ObjectId) -> Option<f64> {
    rt.lib.targets.get(&object).map(|state| state.max_listeners)
}

/// `EventTarget.prototype[kNewListener](size, type, ...)`, run after a
/// listener of `event_type` was counted into its root (`size` is the new
/// count): the memory-leak warning, once per target.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L597-L613>
/// a positive maximum that `size` exceeds, on a target not yet warned,
/// sets the warned flag and emits a MaxListenersExceededWarning naming the
/// size, the type, the target as `inspect(this, { depth: -1 })` prints it
/// and the maximum. AbortSignal's override (lib/internal/abort_controller.js#L393-L394)
/// calls this first; its own half only keeps signals alive for GC.
fn event_target_new_listener(
    rt: &mut Runtime<Model>,
    event_target: ObjectId,
    size: i64,
    event_type: &str,
    weak: bool,
) {
    new_listener_warning(rt, event_target, size, event_type);
    if rt.lib.signals.contains_key(&event_target) {
        abort::signal_new_listener(rt, event_target, size, event_type, weak);
    }
}

/// `this[kRemoveListener](size, type, listener, capture)`: EventTarget's
/// does nothing; AbortSignal's may let the signal leave gcPersistentSignals.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L414-L420>
fn event_target_remove_listener(
    rt: &mut Runtime<Model>,
    event_target: ObjectId,
    size: i64,
    event_type: &str,
) {
    if rt.lib.signals.contains_key(&event_target) {
        abort::signal_remove_listener(rt, event_target, size, event_type);
    }
}

/// EventTarget's `kNewListener`: the MaxListenersExceededWarning.
fn new_listener_warning(
    rt: &mut Runtime<Model>,
    event_target: ObjectId,
    size: i64,
    event_type: &str,
) {
    let state = target_state(rt, event_target);
    let max = state.max_listeners;
    if max > 0.0 && size as f64 > max && !state.max_listeners_warned {
        target_state_mut(rt, event_target).max_listeners_warned = true;
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L896-L899>
        // an EventTarget inspects at depth -1 as its constructor's name;
        // an AbortSignal's customInspect (lib/internal/abort_controller.js#L124-L126)
        // returns the signal itself, which inspect prints as `[AbortSignal]`.
        let shown = if rt.lib.signals.contains_key(&event_target) {
            "[AbortSignal]"
        } else {
            "EventTarget"
        };
        let max_shown = rt.fmt(&Value::Number(max));
        let message = format!(
            "Possible EventTarget memory leak detected. {size} {event_type} listeners added to \
             {shown}. MaxListeners is {max_shown}. Use events.setMaxListeners() to increase limit"
        );
        rt.emit_warning("MaxListenersExceededWarning", &message);
    }
}

/// The number of listeners `events.getEventListeners(target, type)` returns:
/// the nodes linked from the type's root, if the target's map has one; 0 for
/// an object that is no EventTarget. MODEL: not a DOM algorithm; the runtime
/// charges this as work (nodesem_lang::RunConfig::work).
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L941-L949>
/// `getEventListeners` walks `kEvents.get(type).next` while a node has a
/// listener (read from the pinned binary itself, with
/// `require('events').getEventListeners.toString()`).
pub fn listener_count(rt: &Runtime<Model>, target: ObjectId, event_type: &str) -> u64 {
    let Some(state) = rt.lib.targets.get(&target) else {
        return 0;
    };
    let Some(&root_id) = state.events.get(event_type) else {
        return 0;
    };
    let mut count = 0;
    let mut next = root(rt, root_id).next;
    while let Some(id) = next {
        count += 1;
        next = node(rt, id).next;
    }
    count
}

fn target_state(rt: &Runtime<Model>, target: ObjectId) -> &EventTargetState {
    rt.lib.targets.get(&target).expect("an event target")
}

fn target_state_mut(rt: &mut Runtime<Model>, target: ObjectId) -> &mut EventTargetState {
    rt.lib.targets.get_mut(&target).expect("an event target")
}

fn node(rt: &Runtime<Model>, id: ListenerId) -> &EventListener {
    &rt.lib.listeners[id.0]
}

fn node_mut(rt: &mut Runtime<Model>, id: ListenerId) -> &mut EventListener {
    &mut rt.lib.listeners[id.0]
}

fn root(rt: &Runtime<Model>, id: RootId) -> &ListenerRoot {
    &rt.lib.roots[id.0]
}

fn root_mut(rt: &mut Runtime<Model>, id: RootId) -> &mut ListenerRoot {
    &mut rt.lib.roots[id.0]
}

fn set_next(rt: &mut Runtime<Model>, link: Link, next: Option<ListenerId>) {
    match link {
        Link::Root(r) => root_mut(rt, r).next = next,
        Link::Listener(l) => node_mut(rt, l).next = next,
    }
}

/// Node's `new Listener(eventTarget, eventType, previous, ...)`: a node
/// appended after `previous`.
fn new_listener(
    rt: &mut Runtime<Model>,
    event_target: ObjectId,
    event_type: &str,
    previous: Link,
    callback: ObjectId,
    options: &ListenerOptions,
) -> ListenerId {
    let id = ListenerId(rt.lib.listeners.len());
    let callback = match options.weak {
        None => ListenerCallback::Strong(callback),
        Some(retainer) => new_weak_callback(rt, event_target, event_type, id, callback, retainer),
    };
    rt.lib.listeners.push(EventListener {
        callback,
        once: options.once,
        capture: options.capture,
        passive: options.passive,
        resist_stop_propagation: options.resist_stop_propagation,
        removed: false,
        previous,
        next: None,
    });
    set_next(rt, previous, Some(id));
    id
}

/// The weak half of Node's `Listener` constructor: the callback behind a
/// WeakRef, a registry cell that removes the node once the function is
/// collected, and the function kept alive by the retainer through
/// `objectToWeakListenerMap`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L486-L506>
fn new_weak_callback(
    rt: &mut Runtime<Model>,
    event_target: ObjectId,
    event_type: &str,
    id: ListenerId,
    listener: ObjectId,
    retainer: ObjectId,
) -> ListenerCallback {
    // this.callback = new SafeWeakRef(listener);
    let callback_ref = gc::new_weak_ref(rt, listener);
    let record = rt.heap.alloc(ObjectData::Host);
    rt.lib.records.insert(record, id);
    // weakListeners().registry.register(listener, { eventTarget: new
    // SafeWeakRef(eventTarget), listener: this, eventType }, this);
    let registry = gc::weak_listeners_registry(rt);
    let event_target_ref = gc::new_weak_ref(rt, event_target);
    let held = gc::holdings(
        rt,
        vec![
            event_target_ref,
            Value::Object(record),
            Value::String(std::rc::Rc::from(event_type)),
        ],
    );
    rt.registry_register(
        &registry,
        Value::Object(listener),
        held,
        Some(Value::Object(record)),
    )
    .expect("a function can be registered");
    // this.weakKeyRef = new SafeWeakRef(weak);
    let weak_key_ref = gc::new_weak_ref(rt, retainer);
    // weakListeners().map.get(weak) ?? new SafeSet(), then .add(listener).
    let mut retained = rt
        .lib
        .weak_listener_map
        .remove(&retainer)
        .unwrap_or_default();
    if !retained.contains(&listener) {
        retained.push(listener);
    }
    rt.lib.weak_listener_map.insert(retainer, retained);
    ListenerCallback::Weak {
        callback_ref,
        weak_key_ref,
        record,
    }
}

/// Node's `Listener.prototype.remove()`: unlinks the node and marks it
/// removed; its own `next` stays. A weak listener also leaves the
/// registry and its retainer's set.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L552-L571>
fn unlink(rt: &mut Runtime<Model>, id: ListenerId) {
    let (previous, next) = {
        let n = node(rt, id);
        (n.previous, n.next)
    };
    set_next(rt, previous, next);
    if let Some(next) = next {
        node_mut(rt, next).previous = previous;
    }
    node_mut(rt, id).removed = true;
    if let ListenerCallback::Weak {
        callback_ref,
        weak_key_ref,
        record,
    } = &node(rt, id).callback
    {
        let (callback_ref, weak_key_ref, record) =
            (callback_ref.clone(), weak_key_ref.clone(), *record);
        // weakListeners().registry.unregister(this);
        let registry = gc::weak_listeners_registry(rt);
        rt.registry_unregister(&registry, Value::Object(record))
            .expect("an object token");
        let weak_key = gc::deref(rt, &weak_key_ref);
        let listener = gc::deref(rt, &callback_ref);
        if let (Some(weak_key), Some(listener)) = (weak_key, listener) {
            if let Some(retained) = rt.lib.weak_listener_map.get_mut(&weak_key) {
                retained.retain(|f| *f != listener);
                if retained.is_empty() {
                    rt.lib.weak_listener_map.remove(&weak_key);
                }
            }
        }
    }
}

/// A node's callback as a dispatch or a comparison reads it: a weak one
/// through `deref()` (`None` once collected).
fn node_callback(rt: &mut Runtime<Model>, id: ListenerId) -> Option<ObjectId> {
    match &node(rt, id).callback {
        ListenerCallback::Strong(f) => Some(*f),
        ListenerCallback::Weak { callback_ref, .. } => {
            let callback_ref = callback_ref.clone();
            gc::deref(rt, &callback_ref)
        }
    }
}

/// `eventTarget[kRemoveWeakListenerHelper](type, listener)`: the
/// weak-listener registry's cleanup, once the listener function was
/// collected.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L772-L795>
pub(crate) fn remove_weak_listener_helper(
    rt: &mut Runtime<Model>,
    event_target: ObjectId,
    event_type: &str,
    record: ObjectId,
) {
    let Some(&listener) = rt.lib.records.get(&record) else {
        return;
    };
    let Some(state) = rt.lib.targets.get(&event_target) else {
        return;
    };
    let Some(&root_id) = state.events.get(event_type) else {
        return;
    };
    let mut handler = root(rt, root_id).next;
    while let Some(h) = handler {
        if h == listener {
            // "Undefined is passed as the listener as the listener was GCed".
            unlink_and_count_off(rt, event_target, event_type, root_id, h);
            break;
        }
        handler = node(rt, h).next;
    }
}

/// The strong edges of an EventTarget: the callbacks (and weak records) of
/// its listener lists, its event handlers and their wrappers.
pub(crate) fn trace_target(rt: &Runtime<Model>, target: ObjectId, edges: &mut Vec<Value>) {
    let state = target_state(rt, target);
    for root_id in state.events.values() {
        if let Some(first) = root(rt, *root_id).next {
            trace_chain(rt, first, edges);
        }
    }
    for h in state.handlers.values() {
        edges.push(Value::Object(h.wrapper));
        edges.push(h.handler.clone());
    }
}

/// What a `Listener` record reaches: itself and, through `previous` and
/// `next` (and the list head), every record of its list, with their strong
/// callbacks, and for a weak one its WeakRefs.
pub(crate) fn trace_chain(rt: &Runtime<Model>, start: ListenerId, edges: &mut Vec<Value>) {
    let mut seen = HashSet::new();
    let mut work = vec![start];
    while let Some(id) = work.pop() {
        if !seen.insert(id) {
            continue;
        }
        let n = node(rt, id);
        match &n.callback {
            ListenerCallback::Strong(f) => edges.push(Value::Object(*f)),
            ListenerCallback::Weak {
                callback_ref,
                weak_key_ref,
                record,
            } => {
                edges.push(callback_ref.clone());
                edges.push(weak_key_ref.clone());
                edges.push(Value::Object(*record));
            }
        }
        match n.previous {
            Link::Listener(p) => work.push(p),
            Link::Root(r) => work.extend(root(rt, r).next),
        }
        work.extend(n.next);
    }
}

/// Whether a node is linked into the list behind `root`: the invariant that a
/// listener about to be invoked was not removed.
fn list_contains(rt: &Runtime<Model>, root_id: RootId, id: ListenerId) -> bool {
    let mut cursor = root(rt, root_id).next;
    while let Some(c) = cursor {
        if c == id {
            return true;
        }
        cursor = node(rt, c).next;
    }
    false
}

/// Node's `Listener.prototype.same(listener, capture)`: a weak listener's
/// function is read through `deref()`.
fn same(rt: &mut Runtime<Model>, id: ListenerId, callback: ObjectId, capture: bool) -> bool {
    node_callback(rt, id) == Some(callback) && node(rt, id).capture == capture
}

/// `eventTarget.addEventListener(type, callback, options)` with a callback
/// argument that may be no function: Node 26's order of steps.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L645-L684>
/// the options, and with them the signal's remover, come before
/// `validateEventListener(listener)`: a listener that is `null` or
/// `undefined` is then ignored (with a process warning), one that is not an
/// object throws ERR_INVALID_ARG_TYPE, and in both cases a live signal
/// keeps the remover it was given.
pub fn add_event_listener_steps(
    rt: &mut Runtime<Model>,
    event_target: ObjectId,
    event_type: &str,
    callback: Value,
    options: ListenerOptions,
) -> Completion {
    if let Value::Object(callback) = callback {
        return add_an_event_listener(rt, event_target, event_type, callback, options);
    }
    if !signal_steps(rt, &options, event_target, event_type, &callback)? {
        return Ok(Value::Undefined);
    }
    validate_event_listener(rt, &callback)?;
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L675-L686>
    // "The DOM silently allows passing undefined as a second argument":
    // Node warns, `addEventListener called with ${listener} which has no
    // effect.`, and adds nothing.
    let shown = rt.fmt(&callback);
    rt.emit_warning(
        "AddEventListenerArgumentTypeWarning",
        &format!("addEventListener called with {shown} which has no effect."),
    );
    Ok(Value::Undefined)
}

/// The DOM's "flatten more" (<https://dom.spec.whatwg.org/#event-flatten-more>)
/// of an `options` argument given as a value: a boolean is `capture`, and
/// a dictionary's members are read from an object.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L1109-L1125>
/// `validateEventListenerOptions`: `null` is no options, and anything that
/// is not an object (or a function) throws ERR_INVALID_ARG_TYPE, where Web
/// IDL would convert a primitive to an empty dictionary. An undefined
/// argument never gets there: the default parameter makes it kEmptyObject
/// (L636, L649).
pub fn flatten_more(
    rt: &mut Runtime<Model>,
    options: Value,
) -> Result<nodesem_runtime::AddListenerOptions, Value> {
    let none = nodesem_runtime::AddListenerOptions::default();
    match options {
        Value::Undefined | Value::Null => Ok(none),
        Value::Bool(capture) => Ok(nodesem_runtime::AddListenerOptions { capture, ..none }),
        // MODEL: no object the language makes has an `once`, `capture`,
        // `passive` or `signal` property: each reads undefined, which
        // `Boolean(...)` makes false, and no signal.
        Value::Object(_) => Ok(none),
        other => Err(rt.err_invalid_arg_type("options", "object", &other)),
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L1092-L1107>
/// `validateEventListener` for a callback that is no object: `null` and
/// `undefined` pass as "no listener", anything else throws.
fn validate_event_listener(rt: &mut Runtime<Model>, callback: &Value) -> Completion {
    match callback {
        Value::Null | Value::Undefined | Value::Object(_) => Ok(Value::Undefined),
        other => Err(rt.err_invalid_arg_type("listener", "EventListener", other)),
    }
}

/// Steps 2 and 6 of "add an event listener" for a listener with a signal:
/// returns false, to stop, when the signal is aborted; else adds the
/// signal's remover of `callback`.
fn signal_steps(
    rt: &mut Runtime<Model>,
    options: &ListenerOptions,
    event_target: ObjectId,
    event_type: &str,
    callback: &Value,
) -> Result<bool, Value> {
    let Some(signal) = options.signal else {
        return Ok(true);
    };
    // 2. If listener's signal is non-null and is aborted, then return.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L666
    // reads `signal.aborted`, the getter, which refreshes a composite signal first.
    if abort::aborted(rt, signal) {
        return Ok(false);
    }
    // 6. If listener's signal is non-null, then add the following abort
    //    steps to it: remove an event listener with eventTarget and listener.
    add_signal_remover(
        rt,
        signal,
        event_target,
        event_type,
        callback.clone(),
        options.capture,
    )?;
    Ok(true)
}

/// Step 6 of "add an event listener" as Node does it: a `once` abort
/// listener on the signal (resisting stopImmediatePropagation) that calls
/// `removeEventListener(type, callback, { capture })`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L669-L671>
/// Node has no abort algorithms: it adds a `once` abort *event listener*
/// that removes the listener. It is added before the duplicate check, as in
/// the DOM, and it runs in its place among the signal's abort listeners,
/// where the DOM runs abort algorithms before any listener; so an abort
/// listener added earlier can still dispatch to the listener that is about
/// to be removed.
fn add_signal_remover(
    rt: &mut Runtime<Model>,
    signal: ObjectId,
    event_target: ObjectId,
    event_type: &str,
    callback: Value,
    capture: bool,
) -> Completion {
    let event_type_owned = event_type.to_string();
    // The arrow closes over `this`, `type`, `listener` and `options`, which
    // holds the signal.
    let captures = Captures::values(vec![
        Value::Object(event_target),
        callback.clone(),
        Value::Object(signal),
    ]);
    let remover = rt.native_function_capturing(captures, move |rt, _this, _args| {
        remove_event_listener_steps(
            rt,
            event_target,
            &event_type_owned,
            callback.clone(),
            capture,
        )
    });
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L669-L671>
    // `[kWeakHandler]: this`: the signal holds the remover weakly, the
    // target keeps it alive, and it never puts the signal in
    // gcPersistentSignals.
    add_an_event_listener(
        rt,
        signal,
        "abort",
        remover,
        ListenerOptions {
            once: true,
            resist_stop_propagation: true,
            weak: Some(event_target),
            ..ListenerOptions::default()
        },
    )
}

/// `eventTarget.removeEventListener(type, callback, { capture })` with a
/// callback argument that may be no function.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L737-L744>
/// `if (!validateEventListener(listener)) return;` before anything else.
pub fn remove_event_listener_steps(
    rt: &mut Runtime<Model>,
    event_target: ObjectId,
    event_type: &str,
    callback: Value,
    capture: bool,
) -> Completion {
    match callback {
        Value::Object(callback) => {
            remove_an_event_listener(rt, event_target, event_type, callback, capture);
            Ok(Value::Undefined)
        }
        other => validate_event_listener(rt, &other),
    }
}

/// To add an event listener (<https://dom.spec.whatwg.org/#add-an-event-listener>),
/// given an EventTarget object `eventTarget` and an event listener `listener`,
/// as Node's `addEventListener(type, listener, options)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L636>
pub fn add_an_event_listener(
    rt: &mut Runtime<Model>,
    event_target: ObjectId,
    event_type: &str,
    callback: ObjectId,
    options: ListenerOptions,
) -> Completion {
    // 1. (ServiceWorkerGlobalScope warning: not applicable.)
    // 2 and 6: the signal's steps, before the rest as in Node.
    if !signal_steps(
        rt,
        &options,
        event_target,
        event_type,
        &Value::Object(callback),
    )? {
        return Ok(Value::Undefined);
    }

    // 3. If listener's callback is null, then return.
    // (A null callback never gets here: see add_event_listener_steps.)

    // 4. If listener's passive is null, then set it to the default passive value.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L1119 passive is `Boolean(options.passive)`, never null.

    // 5. If eventTarget's event listener list does not contain an event
    //    listener whose type is listener's type, callback is listener's
    //    callback, and capture is listener's capture, then append listener to
    //    eventTarget's event listener list.
    let existing = target_state(rt, event_target)
        .events
        .get(event_type)
        .copied();
    let Some(root_id) = existing else {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L693 the first listener of a type creates its root.
        let root_id = RootId(rt.lib.roots.len());
        rt.lib.roots.push(ListenerRoot {
            size: 1,
            next: None,
            resist_stop_propagation: options.resist_stop_propagation,
        });
        new_listener(
            rt,
            event_target,
            event_type,
            Link::Root(root_id),
            callback,
            &options,
        );
        event_target_new_listener(rt, event_target, 1, event_type, options.weak.is_some());
        target_state_mut(rt, event_target)
            .events
            .insert(event_type.to_string(), root_id);
        return Ok(Value::Undefined);
    };
    let mut previous = Link::Root(root_id);
    let mut handler = root(rt, root_id).next;
    while let Some(h) = handler {
        if same(rt, h, callback, options.capture) {
            // Duplicate: ignored, its first registration's flags stay.
            return Ok(Value::Undefined);
        }
        previous = Link::Listener(h);
        handler = node(rt, h).next;
    }
    new_listener(rt, event_target, event_type, previous, callback, &options);
    let r = root_mut(rt, root_id);
    r.size += 1;
    r.resist_stop_propagation |= options.resist_stop_propagation;
    let size = r.size;
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L727>
    event_target_new_listener(rt, event_target, size, event_type, options.weak.is_some());
    Ok(Value::Undefined)
}

/// `removeEventListener(type, callback, { capture })`
/// (<https://dom.spec.whatwg.org/#dom-eventtarget-removeeventlistener>):
///
/// 1. Let capture be the result of flattening options.
/// 2. If this's event listener list contains an event listener whose type is
///    type, callback is callback, and capture is capture, then remove an event
///    listener with this and that event listener.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L737>
pub fn remove_an_event_listener(
    rt: &mut Runtime<Model>,
    event_target: ObjectId,
    event_type: &str,
    callback: ObjectId,
    capture: bool,
) {
    let Some(root_id) = target_state(rt, event_target)
        .events
        .get(event_type)
        .copied()
    else {
        return;
    };
    let mut handler = root(rt, root_id).next;
    while let Some(h) = handler {
        if same(rt, h, callback, capture) {
            // To remove an event listener
            // (https://dom.spec.whatwg.org/#remove-an-event-listener):
            // 2. Set listener's removed to true and remove listener from
            //    eventTarget's event listener list.
            unlink_and_count_off(rt, event_target, event_type, root_id, h);
            return;
        }
        handler = node(rt, h).next;
    }
}

/// `dispatchEvent(event)` (<https://dom.spec.whatwg.org/#dom-eventtarget-dispatchevent>).
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L801>
pub fn dispatch_event(rt: &mut Runtime<Model>, target: ObjectId, event: ObjectId) -> Completion {
    // 1. If event's dispatch flag is set, or if its initialized flag is not
    //    set, then throw an "InvalidStateError" DOMException.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L810-L811 Node throws ERR_EVENT_RECURSION (an Error) for the dispatch
    // flag; it has no initialized flag (its constructor always initializes).
    if event::being_dispatched(rt, event) {
        let t = event::event_type(rt, event);
        return Err(rt.node_error(
            "Error",
            "ERR_EVENT_RECURSION",
            &format!("The event \"{t}\" is already being dispatched"),
        ));
    }
    // 2. Initialize event's isTrusted attribute to false.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L813 Node leaves isTrusted as the constructor set it; its own abort
    // events (fire_an_event) are trusted and go through this method too.

    // 3. Return the result of dispatching event to this.
    dispatch(rt, target, event);
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L814 `return event.defaultPrevented !== true`.
    Ok(Value::Bool(!event::default_prevented(rt, event)))
}

/// To dispatch an event to a target
/// (<https://dom.spec.whatwg.org/#concept-event-dispatch>), as Node's
/// `[kHybridDispatch](nodeValue, type, event)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L817>
/// Node has no event path (no parents, no capturing or bubbling passes):
/// every listener of the type runs once, in list order, whatever its
/// `capture` flag, and `stopPropagation()` has no effect on them. The DOM runs
/// the capture listeners at the target first (step 5.13, "capturing"), then
/// the others (step 5.14, "bubbling"), and a `stopPropagation()` in the first
/// pass skips the second (invoke, step 6).
fn dispatch(rt: &mut Runtime<Model>, target: ObjectId, event: ObjectId) {
    // 1. Set event's dispatch flag. (Node: event[kTarget] = this;
    //    event[kIsBeingDispatched] = true.)
    event::set_dispatching(rt, event, Some(target), true);

    let event_type = event::event_type(rt, event);
    let root_id = target_state(rt, target).events.get(&*event_type).copied();
    let Some(root_id) = root_id.filter(|r| root(rt, *r).next.is_some()) else {
        event::set_dispatching(rt, event, None, false);
        return;
    };

    // invoke (https://dom.spec.whatwg.org/#concept-event-listener-invoke)
    // 8. Let listeners be a clone of event's currentTarget's event listener list.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L830 no clone; inner_invoke walks the live list from root.
    inner_invoke(rt, target, event, root_id);

    // 6-9. Set event's eventPhase to NONE, currentTarget to null, unset the
    //      dispatch flag, stop propagation flag and stop immediate propagation flag.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L889
    // only the dispatch flag is unset (eventPhase and currentTarget derive from
    // it); cancelBubble stays true after a stopPropagation().
    event::set_dispatching(rt, event, None, false);
}

/// Web IDL's "call a user object's operation"
/// (<https://webidl.spec.whatwg.org/#call-a-user-objects-operation>) for an
/// EventListener callback `callback`, operation "handleEvent": a function is
/// called itself, with `this` the current target; an object has its
/// `handleEvent` called, with `this` the object.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L510-L514>
/// Node calls an object's `handleEvent` inside an async arrow function,
/// `async (...args) => { if (listener.handleEvent) await
/// ReflectApply(listener.handleEvent, listener, args); }`: what it throws
/// rejects that function's promise instead of propagating, and the
/// dispatch reports the rejection through the promise it got back
/// (`addCatch`), later; what it returns is awaited.
fn call_a_user_objects_operation(
    rt: &mut Runtime<Model>,
    callback: ObjectId,
    current_target: ObjectId,
    event: ObjectId,
) -> Completion {
    if rt.is_function(&Value::Object(callback)) {
        return rt.call_function(
            callback,
            Value::Object(current_target),
            &[Value::Object(event)],
        );
    }
    // The async arrow function's promise (15.8.4 EvaluateAsyncFunctionBody).
    let PromiseCapability {
        promise,
        resolve,
        reject,
    } = rt.new_promise_capability();
    // `if (listener.handleEvent)`, read at each call: an object without
    // one (`{}`) is a listener that does nothing, its promise fulfilled.
    let handle_event = match rt.get_property(&Value::Object(callback), "handleEvent") {
        Ok(Value::Object(f)) if rt.is_function(&Value::Object(f)) => f,
        Ok(other) if !other.to_boolean() => {
            rt.call_function(resolve, Value::Undefined, &[Value::Undefined])?;
            return Ok(Value::Object(promise));
        }
        // MODEL: the language gives no object a `handleEvent` that is
        // neither a function nor absent; Reflect.apply would throw.
        Ok(_) => {
            let error = rt.new_error("TypeError", "handleEvent is not a function");
            rt.call_function(reject, Value::Undefined, &[error])?;
            return Ok(Value::Object(promise));
        }
        Err(thrown) => {
            rt.call_function(reject, Value::Undefined, &[thrown])?;
            return Ok(Value::Object(promise));
        }
    };
    // `await ReflectApply(listener.handleEvent, listener, args)`, the
    // arrow's frame holding its promise.
    let capability = [promise, resolve, reject].map(Value::Object);
    match rt.holding(&capability, |rt| {
        rt.call_function(
            handle_event,
            Value::Object(callback),
            &[Value::Object(event)],
        )
    }) {
        // A throw ends the body: AsyncBlockStart rejects the promise.
        Err(thrown) => {
            rt.call_function(reject, Value::Undefined, &[thrown])?;
        }
        // 27.7.5.3 Await: PromiseResolve, then resume (the body ends, the
        // promise fulfils with undefined) or throw (it rejects).
        Ok(returned) => {
            let awaited = rt.promise_resolve(returned);
            let holds = Captures::objects(&[resolve, reject]);
            let on_fulfilled =
                rt.native_function_capturing(holds.clone(), move |rt, _this, _args| {
                    rt.call_function(resolve, Value::Undefined, &[Value::Undefined])
                });
            let on_rejected = rt.native_function_capturing(holds, move |rt, _this, args| {
                let reason = args.first().cloned().unwrap_or(Value::Undefined);
                rt.call_function(reject, Value::Undefined, &[reason])
            });
            rt.perform_promise_then(awaited, Some(on_fulfilled), Some(on_rejected), None);
        }
    }
    Ok(Value::Object(promise))
}

/// The unlinking both removals share, Node's `removeEventListener` and
/// `kRemoveWeakListenerHelper` alike: the node leaves its list, the type's
/// count goes down, and the hook runs with the new count.
fn unlink_and_count_off(
    rt: &mut Runtime<Model>,
    event_target: ObjectId,
    event_type: &str,
    root_id: RootId,
    h: ListenerId,
) {
    unlink(rt, h);
    let r = root_mut(rt, root_id);
    r.size -= 1;
    let size = r.size;
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L763>
    // when the count reaches 0 the root leaves the map, even if an
    // uncounted `onabort` wrapper is still linked behind it.
    if size == 0 {
        target_state_mut(rt, event_target).events.remove(event_type);
    }
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L765>
    event_target_remove_listener(rt, event_target, size, event_type);
}

/// To inner invoke (<https://dom.spec.whatwg.org/#concept-event-listener-inner-invoke>),
/// as Node's walk of the linked list in `kHybridDispatch`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L830-L887>
/// the list is walked live: before calling a listener the walk caches its
/// `next` node, and a removed node keeps its `next`. So a listener appended
/// during the dispatch runs if it ends up behind a node the walk has yet to
/// leave, and does not when it was appended behind the node running now
/// while that node was last (or behind a node removed meanwhile). The DOM
/// clones the list first, so no listener added during a dispatch runs.
fn inner_invoke(rt: &mut Runtime<Model>, target: ObjectId, event: ObjectId, root_id: RootId) {
    // The dispatch's frame holds `this`, the event and the cached `next`.
    let mark = gc::hold(rt, &[Value::Object(target), Value::Object(event)]);
    inner_invoke_walk(rt, target, event, root_id);
    gc::release(rt, mark);
}

fn inner_invoke_walk(rt: &mut Runtime<Model>, target: ObjectId, event: ObjectId, root_id: RootId) {
    let mut handler = root(rt, root_id).next;
    // 2. For each listener of listeners, whose removed is false:
    while let Some(h) = handler {
        let (removed, once, passive, resist, next) = {
            let n = node(rt, h);
            (
                n.removed,
                n.once,
                n.passive,
                n.resist_stop_propagation,
                n.next,
            )
        };
        let stopped = event::stop_immediate_propagation_flag(rt, event);
        // 2.15. If event's stop immediate propagation flag is set, then break.
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L833
        // the walk goes on past a stopImmediatePropagation() for listeners
        // that resist it (addAbortListener, the signal option's removal), and,
        // when the root has none, for passive listeners, which it then skips
        // below: the same listeners run either way.
        if stopped && !root(rt, root_id).resist_stop_propagation && !passive {
            break;
        }
        // Cache the next item in case this iteration removes the current one.
        if removed || (stopped && !resist) {
            handler = next;
            continue;
        }
        // Invariant: a listener that runs is still in its list.
        assert!(
            list_contains(rt, root_id, h),
            "a removed listener is about to be invoked"
        );
        // 2.1. If event's type is not listener's type, then continue.
        // (The list holds only listeners of this type.)
        // 2.3-2.4. (capturing/bubbling phases: see `dispatch`.)
        // 2.5. If listener's once is true, then remove an event listener given
        //      event's currentTarget attribute value and listener.
        if once {
            // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L846
            // the root stays in the map even when its count reaches 0.
            unlink(rt, h);
            root_mut(rt, root_id).size -= 1;
            // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L849>
            // `this[kRemoveListener](root.size, type, listener, capture)`.
            let size = root(rt, root_id).size;
            let event_type = event::event_type(rt, event);
            event_target_remove_listener(rt, target, size, &event_type);
        }
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L864-L866>
        // a weak handler's callback is `deref()`ed, and one already collected
        // is not called (the flags below are not touched either).
        let Some(callback) = node_callback(rt, h) else {
            handler = next;
            continue;
        };
        // 2.9. If listener's passive is true, then set event's in passive listener flag.
        if passive {
            event::set_in_passive_listener(rt, event, true);
        }
        // 2.11. Call a user object's operation with listener's callback,
        //       "handleEvent", « event », and event's currentTarget attribute value.
        rt.lib.gc.dispatch_nodes.extend(next);
        let called = call_a_user_objects_operation(rt, callback, target, event);
        if next.is_some() {
            rt.lib.gc.dispatch_nodes.pop();
        }
        match called {
            Ok(result) => {
                // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L873
                // the dispatch flag is unset after the first listener that
                // returns normally, so the following listeners see eventPhase 0
                // and currentTarget null. A listener that throws skips this.
                event::set_dispatching(rt, event, None, false);
                // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L877
                // a returned thenable gets a rejection handler that reports.
                if !matches!(result, Value::Undefined | Value::Null) {
                    if let Err(e) = add_catch(rt, &result) {
                        report_the_exception(rt, e);
                    }
                }
            }
            // If this throws an exception exception: report exception.
            Err(exception) => report_the_exception(rt, exception),
        }
        // 2.12. Unset event's in passive listener flag.
        event::set_in_passive_listener(rt, event, false);
        handler = next;
    }
}

/// To report an exception
/// (<https://html.spec.whatwg.org/multipage/webappapis.html#report-the-exception>),
/// as Node's `emitUncaughtException(err)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L1151>
/// `process.nextTick(() => { throw err; })`: the error reaches
/// `uncaughtException` from a nextTick queued at the moment of the throw, and
/// interrupts that drain like any throwing tick.
fn report_the_exception(rt: &mut Runtime<Model>, exception: Value) {
    let captures = Captures::values(vec![exception.clone()]);
    rt.next_tick(Task::Captured(Box::new(move |_| Err(exception)), captures));
}

/// Node's `addCatch(promise)`: if the listener returned a thenable, calls its
/// `then(undefined, err => emitUncaughtException(err))`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L1140>
fn add_catch(rt: &mut Runtime<Model>, value: &Value) -> Completion {
    let Value::Object(id) = value else {
        return Ok(Value::Undefined);
    };
    let id = *id;
    if rt.is_promise(value) {
        let on_rejected = rt.native_function_capturing(Captures::nothing(), |rt, _this, args| {
            report_the_exception(rt, args.first().cloned().unwrap_or(Value::Undefined));
            Ok(Value::Undefined)
        });
        rt.promise_then(id, None, Some(on_rejected));
        return Ok(Value::Undefined);
    }
    if let ObjectData::Thenable { then, .. } = rt.heap.get(id) {
        // The scenario's thenable is `{ then(resolve) { ...; resolve(V); } }`:
        // called as then(undefined, onRejected), it runs its script code,
        // then calls undefined.
        if let Some(body) = *then {
            rt.call_function(body, Value::Object(id), &[])?;
        }
        return Err(rt.new_error("TypeError", "resolve is not a function"));
    }
    Ok(Value::Undefined)
}

/// To fire an event (<https://dom.spec.whatwg.org/#concept-event-fire>) named
/// `e` at `target`, as Node's `runAbort`: a trusted Event through
/// `target.dispatchEvent(event)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L559>
pub fn fire_an_event(rt: &mut Runtime<Model>, e: &str, target: ObjectId) {
    // 1-4. Let event be the result of creating an event, initialize its type to e.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L560 `new Event('abort', { [kTrustEvent]: true })`: isTrusted is true.
    let event = event::create_an_event(rt, e, false, true);
    // 5. Return the result of dispatching event at target.
    let result = dispatch_event(rt, target, event);
    debug_assert!(result.is_ok(), "a new event is never being dispatched");
}

/// The getter of an event handler IDL attribute such as `onabort`
/// (<https://html.spec.whatwg.org/multipage/webappapis.html#event-handler-idl-attributes>).
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L1173>
/// `this[kHandlers]?.get(event)?.handler ?? null`.
pub fn get_event_handler(rt: &Runtime<Model>, target: ObjectId, event_type: &str) -> Value {
    match target_state(rt, target).handlers.get(event_type) {
        Some(h) if !matches!(h.handler, Value::Undefined) => h.handler.clone(),
        _ => Value::Null,
    }
}

/// The setter of an event handler IDL attribute such as `onabort`.
///
/// HTML keeps one event listener per handler, added when the handler is
/// first set to non-null and kept in its place while the handler changes
/// (<https://html.spec.whatwg.org/multipage/webappapis.html#getting-the-current-value-of-the-event-handler>).
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L1180>
/// Node adds a wrapper listener on the first assignment, even of null, and
/// never removes it: setting null keeps the wrapper in place (it then does
/// nothing) and a later function runs at the wrapper's first position. Node
/// only adjusts the type's listener count; when other removals bring that
/// count to 0 the root, with the wrapper, leaves the map. A later function is
/// then re-registered at the end if no listener of the type exists, and never
/// runs if one does.
pub fn set_event_handler(
    rt: &mut Runtime<Model>,
    target: ObjectId,
    event_type: &str,
    value: Value,
) -> Completion {
    // [LegacyTreatNonObjectAsNull]: values that are not objects become null.
    let value = if rt.is_function(&value) || matches!(value, Value::Object(_)) {
        value
    } else {
        Value::Null
    };
    let is_function = rt.is_function(&value);
    let existing = target_state(rt, target)
        .handlers
        .get(event_type)
        .map(|h| (h.wrapper, rt.is_function(&h.handler)));
    match existing {
        Some((wrapper, had_function)) => {
            let root_id = target_state(rt, target).events.get(event_type).copied();
            if had_function {
                if let Some(r) = root_id {
                    root_mut(rt, r).size -= 1;
                    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L1198>
                    let size = root(rt, r).size;
                    event_target_remove_listener(rt, target, size, event_type);
                }
            }
            target_state_mut(rt, target)
                .handlers
                .get_mut(event_type)
                .expect("the handler exists")
                .handler = value;
            if is_function {
                match target_state(rt, target).events.get(event_type).copied() {
                    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L1204-L1206>
                    // the count goes up and kNewListener runs, with the
                    // count as Node keeps it.
                    Some(r) => {
                        root_mut(rt, r).size += 1;
                        let size = root(rt, r).size;
                        event_target_new_listener(rt, target, size, event_type, false);
                    }
                    // The wrapper was removed from kEvents: re-register it.
                    None => {
                        add_an_event_listener(
                            rt,
                            target,
                            event_type,
                            wrapper,
                            ListenerOptions::default(),
                        )?;
                    }
                }
            }
        }
        None => {
            // Node's makeEventHandler(handler): calls the current handler, if
            // it is a function, with the `this` it was called with (the
            // target: only a dispatch on it calls the wrapper).
            // MODEL: Node's wrapper holds the handler in a property
            // (`eventHandler.handler`); the model keeps the handler in the
            // target's slots and the wrapper holds nothing, so the edge
            // wrapper -> handler is the target's edge to its handler.
            let owned = event_type.to_string();
            let wrapper =
                rt.native_function_capturing(Captures::nothing(), move |rt, this, args| {
                    let Value::Object(target) = this else {
                        return Ok(Value::Undefined);
                    };
                    if !rt.lib.targets.contains_key(&target) {
                        return Ok(Value::Undefined);
                    }
                    let handler = get_event_handler(rt, target, &owned);
                    match handler {
                        Value::Object(f) if rt.is_function(&handler) => {
                            rt.call_function(f, this, args)
                        }
                        _ => Ok(Value::Undefined),
                    }
                });
            add_an_event_listener(rt, target, event_type, wrapper, ListenerOptions::default())?;
            target_state_mut(rt, target).handlers.insert(
                event_type.to_string(),
                EventHandler {
                    wrapper,
                    handler: value,
                },
            );
        }
    }
    Ok(Value::Undefined)
}
