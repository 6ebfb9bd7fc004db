//! The `Event` interface: the state an event carries through a dispatch and
//! the methods and getters a listener can use on it.
//!
//! It exists apart from the dispatch algorithm because Node keeps some of the
//! DOM's flags under other names (`kIsBeingDispatched` for the dispatch flag,
//! `kStop` for the stop immediate propagation flag) and derives `eventPhase`
//! and `currentTarget` from them; those derivations are where Node departs
//! from the DOM Standard, and they are easiest to review in one place.
//!
//! DOM Standard: <https://dom.spec.whatwg.org/#interface-event>.
//! Node 26.12.1: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L100>.

use std::rc::Rc;

use nodesem_runtime::{Completion, EventInit, ObjectData, ObjectId, Runtime, Value};

use crate::Model;

/// `Event.NONE`.
pub const NONE: f64 = 0.0;
/// `Event.AT_TARGET`.
pub const AT_TARGET: f64 = 2.0;

/// The internal state of one `Event` object.
#[derive(Clone, Debug)]
pub struct EventState {
    /// `type` (Node: `kType`).
    pub event_type: Rc<str>,
    /// `cancelable`, as initialized (Node: `#cancelable`).
    pub cancelable: bool,
    /// The DOM's canceled flag (Node: `#defaultPrevented`).
    pub canceled: bool,
    /// The DOM's stop propagation flag (Node: `#propagationStopped`).
    pub stop_propagation: bool,
    /// The DOM's stop immediate propagation flag (Node: `kStop`).
    pub stop_immediate_propagation: bool,
    /// The DOM's in passive listener flag (Node: `kInPassiveListener`).
    pub in_passive_listener: bool,
    /// The DOM's dispatch flag (Node: `kIsBeingDispatched`).
    pub being_dispatched: bool,
    /// `target` (Node: `kTarget`).
    pub target: Option<ObjectId>,
    /// `isTrusted` (Node: membership in `isTrustedSet`).
    pub is_trusted: bool,
    /// `bubbles`, as initialized (Node: `#bubbles`).
    pub bubbles: bool,
    /// `composed`, as initialized (Node: `#composed`).
    pub composed: bool,
    /// A CustomEvent's `detail` (Node: `kDetail`); `None` for an Event.
    pub detail: Option<Value>,
}

/// `new Event(type, { cancelable })`; `trusted` is Node's internal
/// `kTrustEvent` option, which only Node's own abort events use.
pub fn create_an_event(
    rt: &mut Runtime<Model>,
    event_type: &str,
    cancelable: bool,
    trusted: bool,
) -> ObjectId {
    let init = EventInit {
        event_type: Some(Rc::from(event_type)),
        cancelable,
        ..EventInit::default()
    };
    construct(rt, &init, trusted)
}

/// `new Event(type, eventInitDict)` and `new CustomEvent(type,
/// eventInitDict)` (<https://dom.spec.whatwg.org/#concept-event-constructor>)
/// as Node 26's constructors run them.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L116-L133>
/// and <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L403-L408>
/// (CustomEvent): without arguments the constructor throws
/// ERR_MISSING_ARGS; `detail` defaults to null.
pub fn new_event(rt: &mut Runtime<Model>, init: &EventInit) -> Completion {
    if init.event_type.is_none() {
        return Err(rt.node_error(
            "TypeError",
            "ERR_MISSING_ARGS",
            "The \"type\" argument must be specified",
        ));
    }
    Ok(Value::Object(construct(rt, init, false)))
}

/// The event constructor's steps once its arguments are checked.
fn construct(rt: &mut Runtime<Model>, init: &EventInit, trusted: bool) -> ObjectId {
    // 1. Let event be the result of running the inner event creation steps.
    let id = rt.heap.alloc(ObjectData::Host);
    // 2. Initialize event's type attribute to type.
    // 3. For each member → value in eventInitDict, if this's interface has
    //    an attribute whose identifier is member, then initialize that
    //    attribute to value (bubbles, cancelable, composed; CustomEvent's
    //    detail).
    let event_type = init.event_type.clone().unwrap_or_else(|| Rc::from(""));
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L407
    // `options?.detail ?? null`, as the dictionary's `any detail = null`
    // takes an explicit undefined for a missing member.
    let detail = init.custom.then(|| match &init.detail {
        None | Some(Value::Undefined) => Value::Null,
        Some(v) => v.clone(),
    });
    rt.lib.events.insert(
        id,
        EventState {
            event_type,
            cancelable: init.cancelable,
            canceled: false,
            stop_propagation: false,
            stop_immediate_propagation: false,
            in_passive_listener: false,
            being_dispatched: false,
            // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L130 the constructor sets `this[kTarget] = null`.
            target: None,
            is_trusted: trusted,
            bubbles: init.bubbles,
            composed: init.composed,
            detail,
        },
    );
    id
}

/// `composedPath()` (<https://dom.spec.whatwg.org/#dom-event-composedpath>).
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L258-L262>
/// Node has no event path: `[target]` while the dispatch flag is set (so
/// only in the first listener that returns normally, see `eventPhase`),
/// `[]` otherwise.
pub fn composed_path(rt: &mut Runtime<Model>, event: ObjectId) -> Value {
    let e = state(rt, event);
    let path = match (e.being_dispatched, e.target) {
        (true, Some(t)) => vec![Value::Object(t)],
        _ => Vec::new(),
    };
    rt.create_array_from_list(path)
}

/// The `returnValue` setter
/// (<https://dom.spec.whatwg.org/#dom-event-returnvalue>): "set the
/// canceled flag with this if the given value is false" (Node: `if
/// (!value)`, the same ToBoolean).
pub fn set_return_value(rt: &mut Runtime<Model>, event: ObjectId, value: bool) {
    if !value {
        set_the_canceled_flag(rt, event);
    }
}

/// The `cancelBubble` setter
/// (<https://dom.spec.whatwg.org/#dom-event-cancelbubble>): "set this's stop
/// propagation flag if the given value is true"; false does nothing.
pub fn set_cancel_bubble(rt: &mut Runtime<Model>, event: ObjectId, value: bool) {
    if value {
        state_mut(rt, event).stop_propagation = true;
    }
}

/// The event behind a value, or the TypeError JavaScript would throw when a
/// method `method` is called on it.
pub fn event_of(rt: &mut Runtime<Model>, value: &Value, method: &str) -> Result<ObjectId, Value> {
    if let Value::Object(id) = value {
        if rt.lib.events.contains_key(id) {
            return Ok(*id);
        }
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L172 every Event method starts with `if (!isEvent(this)) throw new
        // ERR_INVALID_THIS('Event')`.
        return Err(rt.new_error("TypeError", "Value of \"this\" must be of type Event"));
    }
    Err(crate::cannot_read(rt, value, method))
}

fn state(rt: &Runtime<Model>, event: ObjectId) -> &EventState {
    rt.lib.events.get(&event).expect("an event")
}

fn state_mut(rt: &mut Runtime<Model>, event: ObjectId) -> &mut EventState {
    rt.lib.events.get_mut(&event).expect("an event")
}

/// To set the canceled flag
/// (<https://dom.spec.whatwg.org/#set-the-canceled-flag>), given an event
/// `event`, if `event`'s `cancelable` attribute value is true and `event`'s in
/// passive listener flag is unset, then set `event`'s canceled flag, and do
/// nothing otherwise.
fn set_the_canceled_flag(rt: &mut Runtime<Model>, event: ObjectId) {
    let e = state_mut(rt, event);
    if e.cancelable && !e.in_passive_listener {
        e.canceled = true;
    }
}

/// `preventDefault()` (<https://dom.spec.whatwg.org/#dom-event-preventdefault>):
/// set the canceled flag with this.
pub fn prevent_default(rt: &mut Runtime<Model>, event: ObjectId) {
    set_the_canceled_flag(rt, event);
}

/// `stopPropagation()` (<https://dom.spec.whatwg.org/#dom-event-stoppropagation>):
/// set this's stop propagation flag.
pub fn stop_propagation(rt: &mut Runtime<Model>, event: ObjectId) {
    state_mut(rt, event).stop_propagation = true;
}

/// `stopImmediatePropagation()`
/// (<https://dom.spec.whatwg.org/#dom-event-stopimmediatepropagation>): set
/// this's stop propagation flag and this's stop immediate propagation flag.
pub fn stop_immediate_propagation(rt: &mut Runtime<Model>, event: ObjectId) {
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L177-L178
    // calls this.stopPropagation() then sets kStop; the same two flags.
    let e = state_mut(rt, event);
    e.stop_propagation = true;
    e.stop_immediate_propagation = true;
}

/// Whether a listener must not run because of `stopImmediatePropagation()`.
pub fn stop_immediate_propagation_flag(rt: &Runtime<Model>, event: ObjectId) -> bool {
    state(rt, event).stop_immediate_propagation
}

/// The `defaultPrevented` getter.
pub fn default_prevented(rt: &Runtime<Model>, event: ObjectId) -> bool {
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L239
    // `this.#cancelable && this.#defaultPrevented`; the same as the DOM's canceled flag,
    // which can only be set on a cancelable event.
    let e = state(rt, event);
    e.cancelable && e.canceled
}

/// Reads one of the readable properties of an Event.
pub fn get(rt: &mut Runtime<Model>, event: ObjectId, prop: &str) -> Completion {
    let e = state(rt, event);
    let target = e.target.map_or(Value::Null, Value::Object);
    Ok(match prop {
        "type" => Value::String(e.event_type.clone()),
        "cancelable" => Value::Bool(e.cancelable),
        "defaultPrevented" => Value::Bool(default_prevented(rt, event)),
        "isTrusted" => Value::Bool(e.is_trusted),
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L310
        // `this[kIsBeingDispatched] ? AT_TARGET : NONE`. Node clears
        // kIsBeingDispatched after the first listener that returns normally, so
        // later listeners of the same dispatch see NONE (the DOM keeps AT_TARGET
        // for the whole dispatch: https://dom.spec.whatwg.org/#concept-event-dispatch
        // step 5.14).
        "eventPhase" => Value::Number(if e.being_dispatched { AT_TARGET } else { NONE }),
        "bubbles" => Value::Bool(e.bubbles),
        "composed" => Value::Bool(e.composed),
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L413-L417
        // CustomEvent's getter; Event has no `detail`.
        "detail" => e.detail.clone().unwrap_or(Value::Undefined),
        // MODEL: the time the event was made, on no clock the log could
        // compare: the language lets a script read only its type.
        "timeStamp" => Value::Number(0.0),
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L270
        // `!this.#cancelable || !this.#defaultPrevented`.
        "returnValue" => Value::Bool(!e.cancelable || !e.canceled),
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L316
        // the stop propagation flag is never unset, not even after the dispatch
        // (the DOM unsets it: https://dom.spec.whatwg.org/#concept-event-dispatch step 9).
        "cancelBubble" => Value::Bool(e.stop_propagation),
        "target" | "srcElement" => target,
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L373-L387
        // the constants are defined on the Event constructor only, not on
        // Event.prototype as Web IDL puts an interface's constants on both
        // (https://webidl.spec.whatwg.org/#es-constants): an event has none.
        "NONE" | "CAPTURING_PHASE" | "AT_TARGET" | "BUBBLING_PHASE" => Value::Undefined,
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L203
        // `this[kIsBeingDispatched] ? this[kTarget] : null`, so null again from
        // the second listener on (see eventPhase).
        "currentTarget" => {
            if e.being_dispatched {
                target
            } else {
                Value::Null
            }
        }
        _ => Value::Undefined,
    })
}

/// Sets the dispatch flag and the target (Node's `kIsBeingDispatched` and `kTarget`).
pub fn set_dispatching(
    rt: &mut Runtime<Model>,
    event: ObjectId,
    target: Option<ObjectId>,
    on: bool,
) {
    let e = state_mut(rt, event);
    if let Some(t) = target {
        e.target = Some(t);
    }
    e.being_dispatched = on;
}

/// Whether the dispatch flag is set.
pub fn being_dispatched(rt: &Runtime<Model>, event: ObjectId) -> bool {
    state(rt, event).being_dispatched
}

/// Sets or unsets the in passive listener flag.
pub fn set_in_passive_listener(rt: &mut Runtime<Model>, event: ObjectId, on: bool) {
    state_mut(rt, event).in_passive_listener = on;
}

/// The event's type.
pub fn event_type(rt: &Runtime<Model>, event: ObjectId) -> Rc<str> {
    state(rt, event).event_type.clone()
}
