//! `Event`: its state as one compact record with flag bits, its readable
//! properties and its three methods.
//!
//! NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L100>
//! (`class Event`). Node-specific behaviour kept here: `eventPhase` and
//! `currentTarget` follow `kIsBeingDispatched`, which the dispatch clears
//! after *every* listener that returns normally (so a second listener already
//! sees `eventPhase` 0 and `currentTarget` null), and `target` stays set
//! after the dispatch.

use nodesem_runtime::{Completion, ObjectId, Value};

/// `#cancelable`.
pub(crate) const CANCELABLE: u16 = 1 << 0;
/// `#defaultPrevented`.
pub(crate) const DEFAULT_PREVENTED: u16 = 1 << 1;
/// `#propagationStopped` (`cancelBubble`).
pub(crate) const PROPAGATION_STOPPED: u16 = 1 << 2;
/// `kStop`: `stopImmediatePropagation` was called.
pub(crate) const STOP: u16 = 1 << 3;
/// `kIsBeingDispatched`.
pub(crate) const BEING_DISPATCHED: u16 = 1 << 4;
/// `kInPassiveListener`.
pub(crate) const IN_PASSIVE: u16 = 1 << 5;
/// `isTrusted`.
///
/// Seed ("isTrusted: backed by a private field instead of a WeakSet"): a
/// bit of the event itself, not a side table of trusted events.
pub(crate) const TRUSTED: u16 = 1 << 6;
/// `#bubbles`.
pub(crate) const BUBBLES: u16 = 1 << 7;
/// `#composed`.
pub(crate) const COMPOSED: u16 = 1 << 8;
/// A CustomEvent (Node: `kDetail` is set); its detail is in the library's
/// table of details, at [`EventData::detail`].
pub(crate) const CUSTOM: u16 = 1 << 9;

/// One Event's state.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EventData {
    /// The event object.
    pub(crate) obj: ObjectId,
    /// `kType`, interned.
    pub(crate) ty: u32,
    /// `kTarget`: null until the first dispatch.
    pub(crate) target: Option<ObjectId>,
    /// The flag bits above.
    pub(crate) flags: u16,
    /// Where a CustomEvent's detail is kept (see [`CUSTOM`]).
    pub(crate) detail: u32,
}

impl EventData {
    #[inline]
    pub(crate) fn has(&self, flag: u16) -> bool {
        self.flags & flag != 0
    }

    /// A readable property (see the language reference); `type_name` is
    /// the interned type's text.
    pub(crate) fn get(&self, prop: &str, type_name: &str) -> Completion {
        let target = || self.target.map_or(Value::Null, Value::Object);
        Ok(match prop {
            "type" => Value::string(type_name),
            "cancelable" => Value::Bool(self.has(CANCELABLE)),
            // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L239> `this.#cancelable && this.#defaultPrevented`.
            "defaultPrevented" => Value::Bool(self.has(CANCELABLE) && self.has(DEFAULT_PREVENTED)),
            "isTrusted" => Value::Bool(self.has(TRUSTED)),
            // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L310> `kIsBeingDispatched ? Event.AT_TARGET : Event.NONE`.
            "eventPhase" => Value::Number(if self.has(BEING_DISPATCHED) { 2.0 } else { 0.0 }),
            "bubbles" => Value::Bool(self.has(BUBBLES)),
            "composed" => Value::Bool(self.has(COMPOSED)),
            // Not Node's clock: the language lets a script read only its type.
            "timeStamp" => Value::Number(0.0),
            // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L270> `!this.#cancelable || !this.#defaultPrevented`.
            "returnValue" => Value::Bool(!self.has(CANCELABLE) || !self.has(DEFAULT_PREVENTED)),
            "cancelBubble" => Value::Bool(self.has(PROPAGATION_STOPPED)),
            "target" | "srcElement" => target(),
            "currentTarget" if self.has(BEING_DISPATCHED) => target(),
            "currentTarget" => Value::Null,
            _ => Value::Undefined,
        })
    }

    /// `preventDefault()`: ignored for a non-cancelable event and inside a
    /// passive listener.
    pub(crate) fn prevent_default(&mut self) {
        if !self.has(CANCELABLE) || self.has(IN_PASSIVE) {
            return;
        }
        self.flags |= DEFAULT_PREVENTED;
    }

    /// `stopPropagation()`.
    pub(crate) fn stop_propagation(&mut self) {
        self.flags |= PROPAGATION_STOPPED;
    }

    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L276-L284> the `returnValue` setter: a falsy value
    /// prevents the default as `preventDefault()` does.
    pub(crate) fn set_return_value(&mut self, value: bool) {
        if !value {
            self.prevent_default();
        }
    }

    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L325-L331> the `cancelBubble` setter: only a truthy value
    /// counts.
    pub(crate) fn set_cancel_bubble(&mut self, value: bool) {
        if value {
            self.flags |= PROPAGATION_STOPPED;
        }
    }

    /// `stopImmediatePropagation()`: both flags.
    pub(crate) fn stop_immediate_propagation(&mut self) {
        self.flags |= PROPAGATION_STOPPED | STOP;
    }
}
