//! EventEmitter, built the way Node 26.12.1's `lib/events.js` builds it.
//!
//! This module exists so that the differential check has an EventEmitter
//! written like Node's own: the model transcribes the documented behaviour,
//! this one keeps Node's data layout and hot-path shortcuts (those of
//! `seeds/event-emitter-once-removelistener.txt`, PR #64373, with its
//! follow-up #64475), where the bugs such shortcuts bring would hide.
//!
//! The layout, per emitter ([`EmitterData`]):
//! - `_events`: one entry per event name, in V8's property order (integer
//!   indices ascending, then strings, then symbols, each in insertion
//!   order; a deleted and re-added key goes to the end), whose value is a
//!   single function (the fast path of one listener) or a listener array
//!   ([`ListenerArray`]), or `undefined` where shape mode stores it;
//! - `_eventsCount`, `_maxListeners` and `kShapeMode`;
//! - listener arrays are shared objects (`Rc`), as JavaScript arrays are,
//!   with Node's `kEmitting` counter and `warned` flag: `emit` walks the
//!   array it found, and a change to an array being emitted goes to a copy
//!   (`ensureMutableListenerArray`), so the walk sees a snapshot without
//!   copying on every emit.
//!
//! A `once` wrapper is a native function object whose captures are exactly
//! Node's closure's (`target`, `type`, `listener`); its `.listener` is the
//! wrapper's slot ([`Slot::OnceWrapper`]).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use nodesem_runtime::{Captures, Completion, FunctionData, ObjectData, ObjectId, Symbol, Value};

use crate::{no_method, Mutant, Rt, Slot};

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L262>
/// `defaultMaxListeners`, as a run starts (the setter at L269-L279 changes
/// it: [`Impl::default_max_listeners`](crate::Impl)).
pub(crate) const DEFAULT_MAX_LISTENERS: f64 = 10.0;

/// The names of the two events an emitter emits about itself.
const NEW_LISTENER: usize = 0;
const REMOVE_LISTENER: usize = 1;

thread_local! {
    /// `'newListener'` and `'removeListener'` as values, made once per
    /// thread: every add and removal that announces itself passes one.
    static SPECIAL_NAMES: [Value; 2] = [Value::string("newListener"), Value::string("removeListener")];
}

/// One of [`SPECIAL_NAMES`].
fn special_name(which: usize) -> Value {
    SPECIAL_NAMES.with(|names| names[which].clone())
}

/// A property key of `_events`: what ToPropertyKey makes of an event name.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Key {
    /// A string key.
    Str(Rc<str>),
    /// A symbol key.
    Sym(Symbol),
}

impl Key {
    /// The key as a value (what `ReflectOwnKeys` gives).
    fn to_value(&self) -> Value {
        match self {
            Key::Str(s) => Value::String(s.clone()),
            Key::Sym(s) => Value::Symbol(s.clone()),
        }
    }

    /// The array index the key is, if it is one (a canonical numeric string
    /// of an integer from 0 to 2^32 - 2): V8 lists those first, ascending.
    fn index(&self) -> Option<u32> {
        let Key::Str(s) = self else { return None };
        if s.is_empty() || s.len() > 10 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        if s.len() > 1 && s.starts_with('0') {
            return None;
        }
        let n: u64 = s.parse().ok()?;
        (n < u64::from(u32::MAX)).then_some(n as u32)
    }

    fn is(&self, name: &str) -> bool {
        matches!(self, Key::Str(s) if &**s == name)
    }
}

/// A listener array: the array object itself, shared by `_events` and by
/// whatever running code holds it (an emit's `handler`, the LIFO walk of
/// `removeAllListeners`).
pub(crate) type ListenerArray = Rc<RefCell<ArrayData>>;

/// The contents of a listener array.
#[derive(Debug, Default)]
pub(crate) struct ArrayData {
    /// The listener functions (once wrappers included).
    pub(crate) items: Vec<ObjectId>,
    /// `handler[kEmitting]`: how many emits are walking this array.
    emitting: u32,
    /// `existing.warned`: the MaxListeners warning was given for it.
    warned: bool,
}

/// The value of an `_events` entry.
#[derive(Clone, Debug)]
pub(crate) enum Handler {
    /// One listener, stored as the function itself.
    One(ObjectId),
    /// Two or more (or, transiently, fewer) in an array.
    Many(ListenerArray),
}

/// The `_events` object, shared as a JavaScript object is: by its emitter
/// and by an emit of `'error'` that read it (`const events =
/// this._events`) before the emitter replaced it by a fresh one.
#[derive(Clone, Debug, Default)]
pub(crate) struct Events(Rc<RefCell<EventsData>>);

impl Events {
    fn get(&self, key: &Key) -> Option<Handler> {
        self.0.borrow().get(key)
    }

    fn set(&mut self, key: Key, value: Option<Handler>) {
        self.0.borrow_mut().set(key, value)
    }

    fn delete(&mut self, key: &Key) {
        self.0.borrow_mut().delete(key)
    }

    fn has(&self, name: &str) -> bool {
        self.0.borrow().has(name)
    }

    /// `this._events = { __proto__: null }`: a fresh object. One that
    /// nothing else holds (no emit of 'error' read it) is emptied in place,
    /// keeping its allocation: no script can tell the two apart.
    fn fresh(&mut self) {
        match Rc::get_mut(&mut self.0) {
            Some(data) => data.get_mut().entries.clear(),
            None => *self = Events::default(),
        }
    }

    fn own_keys(&self) -> Vec<(Key, bool)> {
        self.0.borrow().own_keys()
    }

    fn functions(&self, out: &mut Vec<Value>) {
        self.0.borrow().functions(out)
    }

    /// `Object.keys(events).length`: the string keys, `undefined` ones
    /// included.
    fn string_keys(&self) -> usize {
        self.0
            .borrow()
            .entries
            .iter()
            .filter(|(k, _)| matches!(k, Key::Str(_)))
            .count()
    }
}

/// The properties of an `_events` object: its entries in insertion order;
/// `None` is a property that holds `undefined`.
#[derive(Debug, Default)]
pub(crate) struct EventsData {
    entries: Vec<(Key, Option<Handler>)>,
}

impl EventsData {
    /// `events[key]`, `None` for `undefined` (absent or stored).
    fn get(&self, key: &Key) -> Option<Handler> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, h)| h.clone())
    }

    /// `events[key] = value`: in place if the property exists, else a new
    /// property at the end.
    fn set(&mut self, key: Key, value: Option<Handler>) {
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => self.entries.push((key, value)),
        }
    }

    /// `delete events[key]`.
    fn delete(&mut self, key: &Key) {
        self.entries.retain(|(k, _)| k != key);
    }

    /// Whether `events[name] !== undefined` for a string name.
    fn has(&self, name: &str) -> bool {
        self.entries.iter().any(|(k, h)| k.is(name) && h.is_some())
    }

    /// `ReflectOwnKeys(events)`, in V8's order, with whether each holds a
    /// value other than `undefined`.
    fn own_keys(&self) -> Vec<(Key, bool)> {
        let mut indices: Vec<(u32, Key, bool)> = self
            .entries
            .iter()
            .filter_map(|(k, h)| k.index().map(|i| (i, k.clone(), h.is_some())))
            .collect();
        indices.sort_by_key(|(i, _, _)| *i);
        let mut keys: Vec<(Key, bool)> = indices.into_iter().map(|(_, k, d)| (k, d)).collect();
        for want_symbol in [false, true] {
            for (k, h) in &self.entries {
                let is_symbol = matches!(k, Key::Sym(_));
                if is_symbol == want_symbol && k.index().is_none() {
                    keys.push((k.clone(), h.is_some()));
                }
            }
        }
        keys
    }

    /// Every listener function the object holds.
    fn functions(&self, out: &mut Vec<Value>) {
        for (_, h) in &self.entries {
            match h {
                Some(Handler::One(f)) => out.push(Value::Object(*f)),
                Some(Handler::Many(a)) => {
                    out.extend(a.borrow().items.iter().map(|&f| Value::Object(f)))
                }
                None => {}
            }
        }
    }
}

/// One EventEmitter's own properties.
#[derive(Debug)]
pub(crate) struct EmitterData {
    /// The emitter object.
    obj: ObjectId,
    /// `this._events`.
    events: Events,
    /// `this._eventsCount`.
    count: i64,
    /// `this[kShapeMode]`: true only for emitters whose `_events` was
    /// preallocated on the prototype (streams); `new EventEmitter()` makes
    /// its own, so it is false here until something preallocates.
    shape_mode: bool,
    /// `this._maxListeners`, `None` for `undefined`.
    max_listeners: Option<f64>,
}

/// `new EventEmitter()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L332-L354>
/// `EventEmitter.init`: `_events` is the prototype's `undefined`, so the
/// emitter gets its own `{ __proto__: null }`, `_eventsCount` 0 and
/// `kShapeMode` false.
pub(crate) fn new_emitter(rt: &mut Rt) -> Completion {
    let index = rt.lib.emitters.len() as u32;
    let obj = crate::alloc_host(rt, |_| Slot::Emitter(index));
    rt.lib.emitters.push(EmitterData {
        obj,
        events: Events::default(),
        count: 0,
        shape_mode: false,
        max_listeners: None,
    });
    Ok(Value::Object(obj))
}

/// The emitter a receiver is, or the TypeError its missing `method` gives.
fn emitter_of(rt: &mut Rt, value: &Value, method: &str) -> Result<u32, Value> {
    match value.as_object().map(|o| rt.lib.slot(o)) {
        Some(Slot::Emitter(e)) => Ok(e),
        _ => Err(no_method(rt, value, method)),
    }
}

/// ToPropertyKey of an event name.
fn to_key(rt: &Rt, name: &Value) -> Key {
    match name {
        Value::String(s) => Key::Str(s.clone()),
        Value::Symbol(s) => Key::Sym(s.clone()),
        Value::Object(_) => Key::Str(Rc::from(object_to_string(rt, name, 0))),
        // `String(v)` of the other primitives, as the log writes them.
        other => Key::Str(Rc::from(rt.fmt(other))),
    }
}

/// ToString of an object (ToPrimitive with hint string), for the objects a
/// scenario can make; a function's source text is not shared by the
/// engines, so it gets `Object.prototype.toString`'s answer.
fn object_to_string(rt: &Rt, value: &Value, depth: usize) -> String {
    let Value::Object(id) = value else {
        return match value {
            Value::Undefined | Value::Null => String::new(),
            other => rt.fmt(other),
        };
    };
    match rt.heap.get(*id) {
        ObjectData::Error { name, message, .. } => match (name.is_empty(), message.is_empty()) {
            (_, true) => name.to_string(),
            (true, false) => message.to_string(),
            (false, false) => format!("{name}: {message}"),
        },
        ObjectData::Array(items) if depth < 8 => items
            .iter()
            .map(|v| object_to_string(rt, v, depth + 1))
            .collect::<Vec<_>>()
            .join(","),
        ObjectData::Array(_) => String::new(),
        ObjectData::Promise(_) => "[object Promise]".into(),
        ObjectData::Host => {
            let class = <crate::Impl as nodesem_runtime::Library>::host_class(rt, *id);
            format!("[object {}]", class.tag().unwrap_or("Object"))
        }
        _ => "[object Object]".into(),
    }
}

/// The original listener of a once wrapper (`wrapper.listener`).
fn unwrapped(rt: &Rt, f: ObjectId) -> Option<ObjectId> {
    match rt.lib.slot(f) {
        Slot::OnceWrapper(listener) => Some(ObjectId(listener)),
        _ => None,
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L265-L267>
/// `checkListener`: `validateFunction(listener, 'listener')`.
fn check_listener(rt: &mut Rt, listener: &Value) -> Result<ObjectId, Value> {
    match listener {
        Value::Object(id) if rt.is_function(listener) => Ok(*id),
        other => Err(rt.err_invalid_arg_type("listener", "function", other)),
    }
}

/// `emitter.on`, `prependListener`, `once` and `prependOnceListener`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L651-L656>
/// `once`: `checkListener(listener)`, then `this.on(type, _onceWrap(...))`
/// (and `prependOnceListener`, L665-L671, with `prependListener`).
pub(crate) fn op_add_listener(
    rt: &mut Rt,
    emitter: &Value,
    name: &Value,
    listener: &Value,
    prepend: bool,
    once: bool,
) -> Completion {
    let (_, method) = nodesem_lang::emitter_add_form(prepend, once);
    let e = emitter_of(rt, emitter, method)?;
    let listener = check_listener(rt, listener)?;
    let listener = if once {
        once_wrap(rt, e, name, listener)
    } else {
        listener
    };
    add_listener(rt, e, name, listener, prepend)?;
    Ok(emitter.clone())
}

/// The shared state of a once wrapper's closure: `fired`, and the wrapper
/// itself (the closure's own binding `wrapper`).
struct OnceState {
    fired: Cell<bool>,
    wrapper: Cell<ObjectId>,
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L633-L643>
/// `_onceWrap`: a closure over `target`, `type`, `listener` and `fired`:
/// once fired it does nothing; else it sets `fired`, removes itself, then
/// calls the listener with the target as `this`; `wrapper.listener` is the
/// original.
fn once_wrap(rt: &mut Rt, e: u32, name: &Value, listener: ObjectId) -> ObjectId {
    let target = rt.lib.emitters[e as usize].obj;
    let state = Rc::new(OnceState {
        fired: Cell::new(false),
        wrapper: Cell::new(listener),
    });
    let own = Rc::clone(&state);
    let ty = name.clone();
    let captures = Captures::values(vec![
        Value::Object(target),
        name.clone(),
        Value::Object(listener),
    ]);
    let wrapper = rt.native_function_capturing(captures, move |rt, _this, args| {
        if own.fired.get() {
            return Ok(Value::Undefined);
        }
        own.fired.set(true);
        let target = Value::Object(target);
        let wrapper = Value::Object(own.wrapper.get());
        remove_listener(rt, e, &ty, &wrapper)?;
        rt.call_function(listener, target, args)
    });
    state.wrapper.set(wrapper);
    rt.lib.set_slot(wrapper, Slot::OnceWrapper(listener.0));
    wrapper
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L545-L597>
/// `_addListener`: 'newListener' first (with `listener.listener ??
/// listener`), then `_events` read again; the first listener of a name is
/// stored as the function, the second makes an array, later ones go into
/// it (a copy if it is being emitted); past the maximum, the outlined
/// warning, once per array.
fn add_listener(
    rt: &mut Rt,
    e: u32,
    name: &Value,
    listener: ObjectId,
    prepend: bool,
) -> Result<(), Value> {
    if rt.lib.emitters[e as usize].events.has("newListener") {
        let announced = unwrapped(rt, listener).unwrap_or(listener);
        // The listener being added (a once wrapper is in no argument) is
        // only this code's while 'newListener' listeners run.
        let roots = [Value::Object(listener)];
        rt.holding(&roots, |rt| {
            emit(
                rt,
                e,
                &special_name(NEW_LISTENER),
                &[name.clone(), Value::Object(announced)],
            )
        })?;
    }
    let key = to_key(rt, name);
    let existing = rt.lib.emitters[e as usize].events.get(&key);
    let array = match existing {
        None => {
            let data = &mut rt.lib.emitters[e as usize];
            data.events.set(key, Some(Handler::One(listener)));
            data.count += 1;
            return Ok(());
        }
        Some(Handler::One(existing)) => {
            let items = if prepend {
                vec![listener, existing]
            } else {
                vec![existing, listener]
            };
            let array = Rc::new(RefCell::new(ArrayData {
                items,
                emitting: 0,
                warned: false,
            }));
            rt.lib.emitters[e as usize]
                .events
                .set(key, Some(Handler::Many(Rc::clone(&array))));
            array
        }
        Some(Handler::Many(array)) => {
            let array = ensure_mutable(rt, e, &key, array);
            {
                let mut a = array.borrow_mut();
                if prepend {
                    a.items.insert(0, listener);
                } else {
                    a.items.push(listener);
                }
            }
            array
        }
    };
    // Check for listener leak.
    let m = max_listeners(rt, e);
    let (len, warned) = {
        let a = array.borrow();
        (a.items.len(), a.warned)
    };
    let warned = warned && rt.lib.mutant != Some(Mutant::WarningEveryListener);
    if m > 0.0 && len as f64 > m && !warned {
        warn_max_listeners_exceeded(rt, name, &array, m);
    }
    Ok(())
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L599-L607>
/// `warnMaxListenersExceeded`, outlined from `_addListener`: marks the
/// array warned and emits the MaxListenersExceededWarning through
/// `process.emitWarning` (its 'warning' event a tick later).
/// `inspect(target, { depth: -1 })` of an EventEmitter is `[EventEmitter]`.
#[cold]
fn warn_max_listeners_exceeded(rt: &mut Rt, name: &Value, array: &ListenerArray, m: f64) {
    let len = {
        let mut a = array.borrow_mut();
        a.warned = true;
        a.items.len()
    };
    let name = rt.fmt(name);
    let m = rt.fmt(&Value::Number(m));
    let message = format!(
        "Possible EventEmitter memory leak detected. {len} {name} listeners added to \
         [EventEmitter]. MaxListeners is {m}. Use emitter.setMaxListeners() to increase limit"
    );
    rt.emit_warning("MaxListenersExceededWarning", &message);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L907-L914>
/// `ensureMutableListenerArray`: an array that an emit is walking is
/// replaced in `_events` by a copy (`cloneEventListenerArray`, L898-L905,
/// which keeps `warned`), and the copy is changed instead.
fn ensure_mutable(rt: &mut Rt, e: u32, key: &Key, array: ListenerArray) -> ListenerArray {
    let copy = {
        let a = array.borrow();
        if a.emitting == 0 || rt.lib.mutant == Some(Mutant::EmitLiveArray) {
            None
        } else {
            Some(ArrayData {
                items: a.items.clone(),
                emitting: 0,
                warned: a.warned,
            })
        }
    };
    match copy {
        None => array,
        Some(copy) => {
            let copy = Rc::new(RefCell::new(copy));
            rt.lib.emitters[e as usize]
                .events
                .set(key.clone(), Some(Handler::Many(Rc::clone(&copy))));
            copy
        }
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L410-L414>
/// `_getMaxListeners`: `_maxListeners`, or `defaultMaxListeners` when it
/// is undefined.
fn max_listeners(rt: &Rt, e: u32) -> f64 {
    rt.lib.emitters[e as usize]
        .max_listeners
        .unwrap_or(rt.lib.default_max_listeners)
}

/// `emitter.removeListener(name, listener)`.
pub(crate) fn op_remove_listener(
    rt: &mut Rt,
    emitter: &Value,
    name: &Value,
    listener: &Value,
) -> Completion {
    let e = emitter_of(rt, emitter, "removeListener")?;
    remove_listener(rt, e, name, listener)?;
    Ok(emitter.clone())
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L679-L732>
/// `removeListener`. A single function (or the once wrapper of the
/// listener): `_eventsCount` down, then, as #64475 restored it, `undefined`
/// stored in shape mode, else a fresh `_events` when the count reaches 0,
/// else `delete`; 'removeListener' with `list.listener || listener`. In an
/// array: the last match is taken out (of a copy if it is being emitted),
/// an array of one becomes its function, and 'removeListener' gets the
/// `listener` argument.
fn remove_listener(rt: &mut Rt, e: u32, name: &Value, listener: &Value) -> Result<(), Value> {
    let listener = check_listener(rt, listener)?;
    let key = to_key(rt, name);
    let data = &mut rt.lib.emitters[e as usize];
    match data.events.get(&key) {
        None => Ok(()),
        Some(Handler::One(list)) => {
            let original = unwrapped(rt, list);
            if list != listener && original != Some(listener) {
                return Ok(());
            }
            let data = &mut rt.lib.emitters[e as usize];
            data.count -= 1;
            // `events` is the object read at the start: when it is
            // replaced, the old one keeps its properties.
            let had_remove_listener;
            if data.shape_mode || rt.lib.mutant == Some(Mutant::EmitterKeepsDynamicNames) {
                data.events.set(key, None);
                had_remove_listener = data.events.has("removeListener");
            } else if data.count == 0 {
                had_remove_listener = data.events.has("removeListener");
                data.events.fresh();
            } else {
                data.events.delete(&key);
                had_remove_listener = data.events.has("removeListener");
            }
            if had_remove_listener {
                let announced = if rt.lib.mutant == Some(Mutant::OnceWrapperInRemoveEvent) {
                    list
                } else {
                    original.unwrap_or(listener)
                };
                emit(
                    rt,
                    e,
                    &special_name(REMOVE_LISTENER),
                    &[name.clone(), Value::Object(announced)],
                )?;
            }
            Ok(())
        }
        Some(Handler::Many(array)) => {
            let array = ensure_mutable(rt, e, &key, array);
            let position = {
                let a = array.borrow();
                a.items
                    .iter()
                    .rposition(|&f| f == listener || unwrapped(rt, f) == Some(listener))
            };
            let Some(position) = position else {
                return Ok(());
            };
            let only = {
                let mut a = array.borrow_mut();
                a.items.remove(position);
                (a.items.len() == 1).then(|| a.items[0])
            };
            let data = &mut rt.lib.emitters[e as usize];
            if let Some(f) = only {
                data.events.set(key, Some(Handler::One(f)));
            }
            if data.events.has("removeListener") {
                emit(
                    rt,
                    e,
                    &special_name(REMOVE_LISTENER),
                    &[name.clone(), Value::Object(listener)],
                )?;
            }
            Ok(())
        }
    }
}

/// `emitter.removeAllListeners([name])`.
pub(crate) fn op_remove_all_listeners(
    rt: &mut Rt,
    emitter: &Value,
    name: Option<&Value>,
) -> Completion {
    let e = emitter_of(rt, emitter, "removeAllListeners")?;
    remove_all_listeners(rt, e, name)?;
    Ok(emitter.clone())
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L743-L789>
/// `removeAllListeners`. Without a 'removeListener' listener: a fresh
/// `_events` (all names, or the name's removal brought the count to 0) or
/// `delete`, and `kShapeMode` false. With one: every other key of
/// `ReflectOwnKeys(events)` in turn, then 'removeListener' itself, then a
/// fresh `_events`; for one name, its function, or its array's listeners
/// from the last to the first (reading the array as it is then).
fn remove_all_listeners(rt: &mut Rt, e: u32, name: Option<&Value>) -> Result<(), Value> {
    if !rt.lib.emitters[e as usize].events.has("removeListener") {
        match name {
            None => {
                let data = &mut rt.lib.emitters[e as usize];
                data.events.fresh();
                data.count = 0;
            }
            Some(name) => {
                let key = to_key(rt, name);
                let data = &mut rt.lib.emitters[e as usize];
                if data.events.get(&key).is_some() {
                    data.count -= 1;
                    if data.count == 0 {
                        data.events.fresh();
                    } else {
                        data.events.delete(&key);
                    }
                }
            }
        }
        rt.lib.emitters[e as usize].shape_mode = false;
        return Ok(());
    }
    let Some(name) = name else {
        let keys = rt.lib.emitters[e as usize].events.own_keys();
        for (key, _) in keys {
            if key.is("removeListener") {
                continue;
            }
            remove_all_listeners(rt, e, Some(&key.to_value()))?;
        }
        remove_all_listeners(rt, e, Some(&special_name(REMOVE_LISTENER)))?;
        let data = &mut rt.lib.emitters[e as usize];
        data.events.fresh();
        data.count = 0;
        data.shape_mode = false;
        return Ok(());
    };
    let key = to_key(rt, name);
    match rt.lib.emitters[e as usize].events.get(&key) {
        None => Ok(()),
        Some(Handler::One(f)) => remove_listener(rt, e, name, &Value::Object(f)),
        Some(Handler::Many(array)) => {
            // LIFO order; the array is this frame's local meanwhile.
            rt.lib.held_arrays.push(Rc::clone(&array));
            let len = array.borrow().items.len();
            let mut result = Ok(());
            for i in (0..len).rev() {
                let listener = array
                    .borrow()
                    .items
                    .get(i)
                    .map_or(Value::Undefined, |&f| Value::Object(f));
                result = remove_listener(rt, e, name, &listener);
                if result.is_err() {
                    break;
                }
            }
            rt.lib.held_arrays.pop();
            result
        }
    }
}

/// `emitter.emit(name, ...args)`.
pub(crate) fn op_emit(rt: &mut Rt, emitter: &Value, name: &Value, args: &[Value]) -> Completion {
    let e = emitter_of(rt, emitter, "emit")?;
    emit(rt, e, name, args).map(Value::Bool)
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L489-L543>
/// `emit`: for 'error', the errorMonitor's listeners first, then an 'error'
/// without a listener in the `_events` read at the start throws (the
/// outlined `getUnhandledErrorException`); a single function is called
/// directly; an array is walked as it is, its `kEmitting` count up
/// meanwhile (and down in a `finally`), so that changes go to a copy.
fn emit(rt: &mut Rt, e: u32, name: &Value, args: &[Value]) -> Result<bool, Value> {
    let this = Value::Object(rt.lib.emitters[e as usize].obj);
    let do_error = matches!(name, Value::String(s) if &**s == "error");
    if do_error {
        return emit_error(rt, e, this, args);
    }
    let key = to_key(rt, name);
    let handler = rt.lib.emitters[e as usize].events.get(&key);
    call_handler(rt, this, name, handler, args)
}

/// The 'error' path of `emit` (L490-L506), outlined: `events` is read once,
/// the `kErrorMonitor` listeners run, and `events.error` is read from that
/// same object, which the emitter may have replaced meanwhile (it then
/// keeps what it held).
#[cold]
fn emit_error(rt: &mut Rt, e: u32, this: Value, args: &[Value]) -> Result<bool, Value> {
    let events = rt.lib.emitters[e as usize].events.clone();
    if let Some(monitor) = rt.lib.error_monitor.clone() {
        if events.get(&Key::Sym(monitor.clone())).is_some() {
            rt.lib.held_events.push(events.clone());
            let result = emit(rt, e, &Value::Symbol(monitor), args);
            rt.lib.held_events.pop();
            result?;
        }
    }
    if !events.has("error") {
        return Err(unhandled_error_exception(rt, args));
    }
    let handler = events.get(&Key::Str(Rc::from("error")));
    call_handler(rt, this, &Value::string("error"), handler, args)
}

/// L508-L542: the calls of one `events[type]`.
fn call_handler(
    rt: &mut Rt,
    this: Value,
    name: &Value,
    handler: Option<Handler>,
    args: &[Value],
) -> Result<bool, Value> {
    match handler {
        None => Ok(false),
        Some(Handler::One(f)) => {
            // A result other than undefined or null goes to `addCatch`
            // (`events_on`), which does nothing without `captureRejections`.
            let result = rt.call_function(f, this.clone(), args)?;
            if !matches!(result, Value::Undefined | Value::Null) {
                crate::events_on::add_catch(rt, &this, &result, name, args)?;
            }
            Ok(true)
        }
        Some(Handler::Many(array)) => {
            array.borrow_mut().emitting += 1;
            rt.lib.held_arrays.push(Rc::clone(&array));
            let mut result = Ok(true);
            // While an emit walks it (`kEmitting`), a change to the array
            // goes to a copy: the walk reads a few listeners once, on the
            // stack. (The live-array mutant reads the array as it changes.)
            const FEW: usize = 8;
            let few = {
                let a = array.borrow();
                (a.items.len() <= FEW && rt.lib.mutant != Some(Mutant::EmitLiveArray)).then(|| {
                    let mut buffer = [ObjectId(0); FEW];
                    buffer[..a.items.len()].copy_from_slice(&a.items);
                    (buffer, a.items.len())
                })
            };
            let mut i = 0;
            loop {
                let f = match &few {
                    Some((buffer, len)) if i < *len => buffer[i],
                    Some(_) => break,
                    None => {
                        let a = array.borrow();
                        match a.items.get(i) {
                            Some(&f) => f,
                            None => break,
                        }
                    }
                };
                match rt.call_function(f, this.clone(), args) {
                    Err(error) => {
                        result = Err(error);
                        break;
                    }
                    Ok(Value::Undefined | Value::Null) => {}
                    Ok(returned) => {
                        let roots = [returned.clone()];
                        let caught = rt.holding(&roots, |rt| {
                            crate::events_on::add_catch(rt, &this, &returned, name, args)
                        });
                        if let Err(error) = caught {
                            result = Err(error);
                            break;
                        }
                    }
                }
                i += 1;
            }
            rt.lib.held_arrays.pop();
            array.borrow_mut().emitting -= 1;
            result
        }
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L449-L480>
/// `getUnhandledErrorException`: an Error is thrown itself; anything else
/// becomes ERR_UNHANDLED_ERROR, "Unhandled error. (" + `inspect(er)` + ")".
#[cold]
fn unhandled_error_exception(rt: &mut Rt, args: &[Value]) -> Value {
    let er = args.first().cloned().unwrap_or(Value::Undefined);
    if let Value::Object(id) = er {
        if matches!(rt.heap.get(id), ObjectData::Error { .. }) {
            return er;
        }
    }
    let shown = inspect(rt, &er, 0);
    rt.node_error(
        "Error",
        "ERR_UNHANDLED_ERROR",
        &format!("Unhandled error. ({shown})"),
    )
}

/// `util.inspect(value)` for the values a scenario can emit as an error
/// (measured on Node 26.12.1): a script function is `[Function (anonymous)]`
/// and `_onceWrap`'s function is `[Function: wrapper]` with its listener.
fn inspect(rt: &Rt, value: &Value, depth: usize) -> String {
    match value {
        Value::Number(n) if *n == 0.0 && n.is_sign_negative() => "-0".into(),
        Value::String(s) => quote(s),
        Value::Object(id) => match rt.heap.get(*id) {
            ObjectData::Plain => "{}".into(),
            ObjectData::Array(items) if items.is_empty() => "[]".into(),
            ObjectData::Array(_) if depth > 2 => "[Array]".into(),
            ObjectData::Array(items) => {
                let parts: Vec<String> = items.iter().map(|v| inspect(rt, v, depth + 1)).collect();
                lay_out(&parts, "[", "]", 2 * depth)
            }
            ObjectData::Function(_)
                if depth > 2 && matches!(rt.lib.slot(*id), Slot::OnceWrapper(_)) =>
            {
                "[Function]".into()
            }
            ObjectData::Function(_)
                if depth <= 2 && matches!(rt.lib.slot(*id), Slot::OnceWrapper(_)) =>
            {
                let Slot::OnceWrapper(l) = rt.lib.slot(*id) else {
                    unreachable!()
                };
                let original = inspect(rt, &Value::Object(ObjectId(l)), depth + 1);
                format!("[Function: wrapper] {{ listener: {original} }}")
            }
            // A scenario's functions are anonymous function expressions.
            ObjectData::Function(FunctionData::Script { is_async: true, .. }) => {
                "[AsyncFunction (anonymous)]".into()
            }
            ObjectData::Function(_) => "[Function (anonymous)]".into(),
            ObjectData::Promise(p) => match p.state {
                nodesem_runtime::PromiseState::Pending => "Promise { <pending> }".into(),
                nodesem_runtime::PromiseState::Fulfilled => {
                    format!("Promise {{ {} }}", inspect(rt, &p.result, depth + 1))
                }
                nodesem_runtime::PromiseState::Rejected => {
                    format!(
                        "Promise {{ <rejected> {} }}",
                        inspect(rt, &p.result, depth + 1)
                    )
                }
            },
            ObjectData::WeakRef(_) => "WeakRef {}".into(),
            ObjectData::FinalizationRegistry(_) => "FinalizationRegistry {}".into(),
            ObjectData::Host => match rt.lib.slot(*id) {
                Slot::Emitter(e) if depth == 0 => inspect_emitter(rt, e, depth),
                Slot::Target(_) => "EventTarget {}".into(),
                Slot::Signal(s) => format!(
                    "AbortSignal {{ aborted: {} }}",
                    rt.lib.signals[s as usize].aborted
                ),
                Slot::Controller(s) => format!(
                    "AbortController {{ signal: AbortSignal {{ aborted: {} }} }}",
                    rt.lib.signals[s as usize].aborted
                ),
                Slot::Storage(_) => "AsyncLocalStorage {}".into(),
                _ => rt.fmt(value),
            },
            _ => rt.fmt(value),
        },
        _ => rt.fmt(value),
    }
}

/// `inspect` of an emitter: its own properties, one a line. (Node breaks
/// an `_events` line longer than its `breakLength` into lines, which is not
/// written here: such an `_events` prints on one line.)
fn inspect_emitter(rt: &Rt, e: u32, depth: usize) -> String {
    let data = &rt.lib.emitters[e as usize];
    let entries: Vec<String> = data
        .events
        .own_keys()
        .into_iter()
        .map(|(key, _)| {
            let shown = match &key {
                Key::Sym(s) => s.descriptive_string(),
                Key::Str(s)
                    if !s.is_empty()
                        && !s.starts_with(|c: char| c.is_ascii_digit())
                        && s.chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') =>
                {
                    s.to_string()
                }
                Key::Str(s) => quote(s),
            };
            let value = match data.events.get(&key) {
                None => "undefined".to_string(),
                Some(Handler::One(f)) => inspect(rt, &Value::Object(f), depth + 2),
                Some(Handler::Many(a)) => {
                    let a = a.borrow();
                    let mut items: Vec<String> = a
                        .items
                        .iter()
                        .map(|&f| inspect(rt, &Value::Object(f), depth + 3))
                        .collect();
                    items.push(format!("Symbol(events.emitting): {}", a.emitting));
                    lay_out(&items, "[", "]", 4)
                }
            };
            format!("{shown}: {value}")
        })
        .collect();
    let events = if entries.is_empty() {
        "[Object: null prototype] {}".to_string()
    } else {
        lay_out(&entries, "[Object: null prototype] {", "}", 2)
    };
    let max = match data.max_listeners {
        None => "undefined".to_string(),
        Some(m) => inspect(rt, &Value::Number(m), depth + 1),
    };
    let own = [
        format!("_events: {events}"),
        format!("_eventsCount: {}", data.count),
        format!("_maxListeners: {max}"),
        format!("Symbol(shapeMode): {}", data.shape_mode),
        "Symbol(kCapture): false".to_string(),
    ];
    lay_out(&own, "EventEmitter {", "}", 0)
}

/// util.inspect's line breaking (`reduceToSingleString` with `compact` 3
/// and `breakLength` 80): one line when the entries, a comma each and a
/// start of `entries + indentation + brace + 10` fit in 80, else one entry
/// per line at `indentation` + 2.
fn lay_out(entries: &[String], open: &str, close: &str, indentation: usize) -> String {
    let start = entries.len() * 2 + indentation + open.len() + 10;
    let total = start + entries.iter().map(String::len).sum::<usize>();
    if start + entries.len() <= 80 && total <= 80 && entries.iter().all(|e| !e.contains('\n')) {
        return format!("{open} {} {close}", entries.join(", "));
    }
    let pad = " ".repeat(indentation);
    format!(
        "{open}\n{pad}  {}\n{pad}{close}",
        entries.join(&format!(",\n{pad}  "))
    )
}

/// A string as `inspect` quotes it: single quotes, else double quotes if
/// it holds a single quote, else backticks if it holds both.
fn quote(s: &str) -> String {
    let escape = |q: char| {
        let mut out = String::with_capacity(s.len() + 2);
        out.push(q);
        for c in s.chars() {
            match c {
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\\' => out.push_str("\\\\"),
                c if c == q => {
                    out.push('\\');
                    out.push(c);
                }
                c => out.push(c),
            }
        }
        out.push(q);
        out
    };
    if !s.contains('\'') {
        escape('\'')
    } else if !s.contains('"') {
        escape('"')
    } else if !s.contains('`') && !s.contains("${") {
        escape('`')
    } else {
        escape('\'')
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L835-L865>
/// `listenerCount(type, listener)`: with a listener (`!= null`), the
/// listeners that are it or wrap it; else all of them.
pub(crate) fn op_listener_count(
    rt: &mut Rt,
    emitter: &Value,
    name: &Value,
    listener: Option<&Value>,
) -> Completion {
    let e = emitter_of(rt, emitter, "listenerCount")?;
    let key = to_key(rt, name);
    let wanted = listener
        .filter(|l| !matches!(l, Value::Undefined | Value::Null))
        .cloned();
    let matches = |rt: &Rt, f: ObjectId, l: &Value| {
        *l == Value::Object(f) || unwrapped(rt, f).is_some_and(|o| *l == Value::Object(o))
    };
    let n = match rt.lib.emitters[e as usize].events.get(&key) {
        None => 0,
        Some(Handler::One(f)) => match &wanted {
            Some(l) => usize::from(matches(rt, f, l)),
            None => 1,
        },
        Some(Handler::Many(array)) => {
            let a = array.borrow();
            match &wanted {
                Some(l) => a.items.iter().filter(|&&f| matches(rt, f, l)).count(),
                None => a.items.len(),
            }
        }
    };
    Ok(Value::Number(n as f64))
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L872-L883>
/// `eventNames`: `[]` when `_eventsCount` is 0, else the own keys whose
/// value is not `undefined`.
pub(crate) fn op_event_names(rt: &mut Rt, emitter: &Value) -> Completion {
    let e = emitter_of(rt, emitter, "eventNames")?;
    let data = &rt.lib.emitters[e as usize];
    let names: Vec<Value> = if data.count == 0 {
        Vec::new()
    } else {
        data.events
            .own_keys()
            .into_iter()
            .filter(|(_, defined)| *defined)
            .map(|(k, _)| k.to_value())
            .collect()
    };
    Ok(rt.create_array_from_list(names))
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L791-L806>
/// `_listeners`: a new array; `listeners` unwraps once wrappers
/// (`unwrapListeners`, L916-L924), `rawListeners` copies them as they are
/// (`arrayClone`, L885-L896).
pub(crate) fn op_listeners(rt: &mut Rt, emitter: &Value, name: &Value, raw: bool) -> Completion {
    let method = if raw { "rawListeners" } else { "listeners" };
    let e = emitter_of(rt, emitter, method)?;
    let key = to_key(rt, name);
    let items: Vec<ObjectId> = match rt.lib.emitters[e as usize].events.get(&key) {
        None => Vec::new(),
        Some(Handler::One(f)) => vec![f],
        Some(Handler::Many(array)) => array.borrow().items.clone(),
    };
    let list = items
        .into_iter()
        .map(|f| {
            let f = if raw {
                f
            } else {
                unwrapped(rt, f).unwrap_or(f)
            };
            Value::Object(f)
        })
        .collect();
    Ok(rt.create_array_from_list(list))
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L404-L408>
/// `emitter.setMaxListeners(n)`, which `events.setMaxListeners` calls for
/// an emitter (`n` already validated there): `_maxListeners = n`.
pub(crate) fn set_max_listeners(rt: &mut Rt, e: u32, n: f64) {
    rt.lib.emitters[e as usize].max_listeners = Some(n);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L962-L964>
/// `events.getMaxListeners` of an emitter: `_getMaxListeners(emitter)`.
pub(crate) fn get_max_listeners(rt: &Rt, e: u32) -> f64 {
    max_listeners(rt, e)
}

// ---- garbage collection -----------------------------------------------

/// An emitter's strong edges: `_events` holds its listener functions and
/// once wrappers (whose captures hold the originals and the emitter).
pub(crate) fn trace(rt: &Rt, e: u32, edges: &mut Vec<Value>) {
    rt.lib.emitters[e as usize].events.functions(edges);
}

/// What running emitter code holds in its locals: the arrays an emit or a
/// `removeAllListeners` walks, which `_events` may no longer hold, and the
/// `_events` objects emits of 'error' read.
pub(crate) fn roots(rt: &Rt, roots: &mut Vec<Value>) {
    for array in &rt.lib.held_arrays {
        roots.extend(array.borrow().items.iter().map(|&f| Value::Object(f)));
    }
    for events in &rt.lib.held_events {
        events.functions(roots);
    }
}

/// After a collection: checks that no live emitter holds a collected
/// listener, then forgets collected emitters and once wrappers.
pub(crate) fn collected(rt: &mut Rt, dead: &[ObjectId]) {
    let mut edges = Vec::new();
    for (i, data) in rt.lib.emitters.iter().enumerate() {
        if dead.contains(&data.obj) || !rt.is_alive(data.obj) {
            continue;
        }
        edges.clear();
        trace(rt, i as u32, &mut edges);
        for edge in &edges {
            if let Value::Object(o) = edge {
                assert!(
                    !dead.contains(o) && rt.is_alive(*o),
                    "invariant: the live emitter {i} holds the collected listener {o:?}"
                );
            }
        }
    }
    for &obj in dead {
        match rt.lib.slot(obj) {
            Slot::Emitter(e) => {
                let data = &mut rt.lib.emitters[e as usize];
                data.events = Events::default();
                data.count = 0;
                rt.lib.set_slot(obj, Slot::None);
            }
            Slot::OnceWrapper(_) => rt.lib.set_slot(obj, Slot::None),
            _ => {}
        }
    }
}

// ---- events.errorMonitor, defaultMaxListeners, the leak check, events.once

/// `events.errorMonitor`, made when a run first reads it.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L88>
/// `kErrorMonitor = Symbol('events.errorMonitor')`.
pub(crate) fn error_monitor(rt: &mut Rt) -> Value {
    let symbol = rt
        .lib
        .error_monitor
        .get_or_insert_with(|| Symbol::new("events.errorMonitor"))
        .clone();
    Value::Symbol(symbol)
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L269-L279>
/// the `defaultMaxListeners` accessor's setter: `validateNumber(arg,
/// 'defaultMaxListeners', 0)`, then the module's `defaultMaxListeners`.
pub(crate) fn set_default_max_listeners(rt: &mut Rt, arg: &Value) -> Result<(), Value> {
    match *arg {
        Value::Number(n) if n >= 0.0 => {
            rt.lib.default_max_listeners = n;
            Ok(())
        }
        // NaN fails `n >= 0` too: out of range.
        Value::Number(n) => Err(rt.err_out_of_range("defaultMaxListeners", ">= 0", n)),
        ref other => Err(rt.err_invalid_arg_type("defaultMaxListeners", "number", other)),
    }
}

/// `Object.keys(emitter._events).length`: the string keys of `_events`,
/// those holding `undefined` (shape mode) included.
pub(crate) fn op_events_key_count(rt: &mut Rt, emitter: &Value) -> Completion {
    let e = emitter_of(rt, emitter, "_events")?;
    let n = rt.lib.emitters[e as usize].events.string_keys();
    Ok(Value::Number(n as f64))
}

/// What the closures of one `events.once` call share: V8 gives them one
/// context, here a list whose slots are the `ONCE_*` indices (the
/// collector traces it whole, as a context).
type OnceContext = Rc<RefCell<Vec<Value>>>;

const ONCE_EMITTER: usize = 0;
const ONCE_NAME: usize = 1;
const ONCE_SIGNAL: usize = 2;
const ONCE_RESOLVE: usize = 3;
const ONCE_REJECT: usize = 4;
const ONCE_ERROR_LISTENER: usize = 5;
const ONCE_RESOLVER: usize = 6;
const ONCE_ABORT_LISTENER: usize = 7;

fn ctx(c: &OnceContext, at: usize) -> Value {
    c.borrow()[at].clone()
}

/// `new AbortError(undefined, { cause })`; the cause is not readable in
/// scenarios.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/errors.js#L980-L989>
fn abort_error(rt: &mut Rt) -> Value {
    rt.node_error("AbortError", "ABORT_ERR", "The operation was aborted")
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L1001-L1043>
/// `async function once(emitter, name, options)`: validation and the
/// aborted check throw into the async function's promise; otherwise it
/// returns a `new Promise` (so its own promise follows that one through a
/// thenable job) whose executor adds `resolver` with `emitter.once`, an
/// `errorListener` for 'error' unless the name is 'error', and a resisting
/// once abort listener on the signal.
pub(crate) fn op_once(
    rt: &mut Rt,
    emitter: &Value,
    name: &Value,
    signal: Option<&Value>,
) -> Completion {
    let outer = rt.new_promise();
    let roots = [Value::Object(outer)];
    let body = rt.holding(&roots, |rt| once_body(rt, emitter, name, signal));
    match body {
        Ok(inner) => rt.resolve_promise_with(outer, inner),
        Err(error) => rt.reject_promise(outer, error),
    }
    Ok(Value::Object(outer))
}

fn once_body(rt: &mut Rt, emitter: &Value, name: &Value, signal: Option<&Value>) -> Completion {
    let signal = signal.cloned().unwrap_or(Value::Undefined);
    // validateAbortSignal(signal, 'options.signal'): undefined or a signal.
    let signal_index = match signal.as_object().map(|o| rt.lib.slot(o)) {
        _ if signal == Value::Undefined => None,
        Some(Slot::Signal(s)) => Some(s),
        _ => return Err(rt.err_invalid_arg_type("options.signal", "AbortSignal", &signal)),
    };
    if let Some(s) = signal_index {
        crate::abort::refresh_composite_signal(rt, s);
        if rt.lib.signals[s as usize].aborted {
            return Err(abort_error(rt));
        }
    }
    let inner = rt.new_promise();
    let (resolve, reject) = rt.create_resolving_functions(inner);
    let context: OnceContext = Rc::new(RefCell::new(vec![
        emitter.clone(),
        name.clone(),
        signal,
        Value::Object(resolve),
        Value::Object(reject),
        Value::Undefined,
        Value::Undefined,
        Value::Undefined,
    ]));
    let captures = |c: &OnceContext| Captures::Lists {
        values: Vec::new(),
        lists: vec![Rc::clone(c)],
    };
    let c = Rc::clone(&context);
    let error_listener = rt.native_function_capturing(captures(&context), move |rt, _, args| {
        let err = args.first().cloned().unwrap_or(Value::Undefined);
        once_remove(rt, &c, ONCE_NAME, ONCE_RESOLVER)?;
        once_remove_abort_listener(rt, &c);
        once_settle(rt, &c, ONCE_REJECT, err)
    });
    let c = Rc::clone(&context);
    let resolver = rt.native_function_capturing(captures(&context), move |rt, _, args| {
        once_remove(rt, &c, usize::MAX, ONCE_ERROR_LISTENER)?;
        once_remove_abort_listener(rt, &c);
        let array = rt.create_array_from_list(args.to_vec());
        once_settle(rt, &c, ONCE_RESOLVE, array)
    });
    let c = Rc::clone(&context);
    let abort_listener = rt.native_function_capturing(captures(&context), move |rt, _, _| {
        once_remove(rt, &c, ONCE_NAME, ONCE_RESOLVER)?;
        once_remove(rt, &c, usize::MAX, ONCE_ERROR_LISTENER)?;
        let error = abort_error(rt);
        once_settle(rt, &c, ONCE_REJECT, error)
    });
    {
        let mut c = context.borrow_mut();
        c[ONCE_ERROR_LISTENER] = Value::Object(error_listener);
        c[ONCE_RESOLVER] = Value::Object(resolver);
        c[ONCE_ABORT_LISTENER] = Value::Object(abort_listener);
    }
    let roots = [
        Value::Object(inner),
        Value::Object(error_listener),
        Value::Object(resolver),
        Value::Object(abort_listener),
    ];
    let executed = rt.holding(&roots, |rt| {
        let e = match emitter.as_object().map(|o| rt.lib.slot(o)) {
            Some(Slot::Emitter(e)) => e,
            _ if matches!(emitter, Value::Undefined | Value::Null) => {
                return Err(rt.cannot_read_properties(emitter, "on"));
            }
            // (An EventTarget's `addEventListener` path: the parser admits
            // emitters only.)
            _ => return Err(rt.err_invalid_arg_type("emitter", "EventEmitter", emitter)),
        };
        let wrapped = once_wrap(rt, e, name, resolver);
        add_listener(rt, e, name, wrapped, false)?;
        if !matches!(name, Value::String(s) if &**s == "error") {
            let error = Value::string("error");
            let wrapped = once_wrap(rt, e, &error, error_listener);
            add_listener(rt, e, &error, wrapped, false)?;
        }
        if let Some(s) = signal_index {
            let target = rt.lib.signals[s as usize].target;
            crate::event_target::add_listener(
                rt,
                target,
                crate::ABORT,
                crate::listeners::Callback::Function(abort_listener),
                crate::listeners::ONCE | crate::listeners::RESIST,
            );
        }
        Ok(())
    });
    if let Err(error) = executed {
        rt.call_function(reject, Value::Undefined, &[error])?;
    }
    Ok(Value::Object(inner))
}

/// `emitter.removeListener(NAME, LISTENER)` of a once context: the name in
/// slot `name` (`usize::MAX` for 'error'), the listener in slot `listener`.
fn once_remove(rt: &mut Rt, c: &OnceContext, name: usize, listener: usize) -> Result<(), Value> {
    let emitter = ctx(c, ONCE_EMITTER);
    let name = if name == usize::MAX {
        Value::string("error")
    } else {
        ctx(c, name)
    };
    let e = emitter_of(rt, &emitter, "removeListener")?;
    remove_listener(rt, e, &name, &ctx(c, listener))
}

/// `signal.removeEventListener('abort', abortListener)` when there is a
/// signal.
fn once_remove_abort_listener(rt: &mut Rt, c: &OnceContext) {
    let (Some(Slot::Signal(s)), Value::Object(f)) = (
        ctx(c, ONCE_SIGNAL).as_object().map(|o| rt.lib.slot(o)),
        ctx(c, ONCE_ABORT_LISTENER),
    ) else {
        return;
    };
    let target = rt.lib.signals[s as usize].target;
    crate::event_target::remove_listener(
        rt,
        target,
        crate::ABORT,
        crate::listeners::Callback::Function(f),
        false,
    );
}

/// `resolve(value)` or `reject(value)` of the context.
fn once_settle(rt: &mut Rt, c: &OnceContext, which: usize, value: Value) -> Completion {
    if let Value::Object(f) = ctx(c, which) {
        rt.call_function(f, Value::Undefined, &[value])?;
    }
    Ok(Value::Undefined)
}
