//! `EventEmitter` (Node's `lib/events.js`), written from its documentation:
//! <https://nodejs.org/docs/latest-v26.x/api/events.html>.
//!
//! It exists so that the optimized EventEmitter of `impl` (which keeps
//! Node's own layout: one function or an array per name, `_eventsCount`,
//! copy-on-write arrays while an emit runs) is diffed against something
//! built differently: here each emitter has an ordered map from event name
//! to a plain list of listener records, and every behaviour the
//! documentation leaves to the source (which listener an emit calls, the
//! order of `eventNames()`, what `'removeListener'` receives, when the
//! memory-leak warning is given again) is a rule stated in those terms with
//! the line of `lib/events.js` it comes from. Two engines built alike would
//! make the same mistakes.
//!
//! The map keys are property keys: a name is converted as
//! `events[type]` converts it (a number `1` and the string `"1"` are one
//! name; a symbol is its own), while the events `'newListener'` and
//! `'removeListener'` and the warning see the name as it was passed.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use nodesem_runtime::gc::Captures;
use nodesem_runtime::{
    Completion, FunctionData, HostClass, ObjectData, ObjectId, Runtime, Symbol, Value,
};

use crate::{abort, Model};

/// `EventEmitter.defaultMaxListeners` at the start of a run.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L260-L262>
/// `let defaultMaxListeners = 10`; `setDefaultMaxListeners N` changes it
/// ([`set_default_max_listeners`]).
pub const DEFAULT_MAX_LISTENERS: f64 = 10.0;

/// The state of the `lib/events.js` module itself, beside its emitters.
#[derive(Debug)]
pub struct EventsModule {
    /// `let defaultMaxListeners` (L262), which the `defaultMaxListeners`
    /// setter changes (L269-L279).
    default_max_listeners: f64,
    /// `const kErrorMonitor = Symbol('events.errorMonitor')` (L88,
    /// `EventEmitter.errorMonitor` at L246), made at its first use in a run
    /// (a run cannot tell when it was made).
    error_monitor: Option<Symbol>,
    /// The identity the next fresh `_events` object gets.
    next_object: u64,
    /// The `_events` objects that emits of `'error'` hold while they emit
    /// to the errorMonitor ([`HeldEvents`]), innermost last.
    held: Vec<HeldEvents>,
}

impl Default for EventsModule {
    fn default() -> Self {
        EventsModule {
            default_max_listeners: DEFAULT_MAX_LISTENERS,
            error_monitor: None,
            next_object: 0,
            held: Vec::new(),
        }
    }
}

/// An emitter's `_events` object as an emit of `'error'` holds it.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L492-L496>
/// `emit` reads `const events = this._events` once, emits to
/// `kErrorMonitor`, and then reads `events.error` (L496) and
/// `events[type]` (L508) of that object. A listener of the errorMonitor
/// can make the emitter replace `_events` by a fresh object (the removal
/// of its last listener, L696-L697; `removeAllListeners`, L752, L756,
/// L771): the emit then reads the old object, which keeps what it held
/// when it was replaced, since nothing changes a replaced object again.
#[derive(Debug)]
struct HeldEvents {
    /// The emitter.
    emitter: ObjectId,
    /// The identity of the object held ([`EmitterState::object`]).
    object: u64,
    /// Once the emitter replaced the object: its `error` property as it
    /// was then, the functions of the handler and Node's array (if it was
    /// one), or `None` for `undefined`.
    frozen: Option<Option<Handler>>,
}

/// The value of an `_events[name]` property, as an emit walks it: the
/// functions, and Node's array when there is one ([`ListArrays`]).
type Handler = (Vec<ObjectId>, Option<u64>);

/// An event name as a property key: a string or a symbol.
#[derive(Clone, Debug, PartialEq)]
pub enum EventName {
    /// A string key (numbers and other primitives become one).
    String(Rc<str>),
    /// A symbol, equal only to itself.
    Symbol(Symbol),
}

impl EventName {
    /// The key as a value, as `eventNames()` returns it.
    fn to_value(&self) -> Value {
        match self {
            EventName::String(s) => Value::String(s.clone()),
            EventName::Symbol(s) => Value::Symbol(s.clone()),
        }
    }

    /// Whether this is the string `name`.
    fn is(&self, name: &str) -> bool {
        matches!(self, EventName::String(s) if &**s == name)
    }

    /// ECMA-262 CanonicalNumericIndexString restricted to array indices:
    /// the keys that `Reflect.ownKeys` lists first, by their value.
    fn array_index(&self) -> Option<u32> {
        let EventName::String(s) = self else {
            return None;
        };
        let n: u32 = s.parse().ok()?;
        // "An array index is an integer index whose numeric value i is in
        // the range +0 ≤ i < 2^32 - 1", written canonically.
        (n != u32::MAX && n.to_string() == **s).then_some(n)
    }
}

/// One registered listener.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListenerRecord {
    /// The function an emit calls: the listener, or for a `once` listener
    /// its wrapper (what `rawListeners()` returns).
    pub function: ObjectId,
    /// The wrapper's `listener` property: the function given to `once`
    /// (what `listeners()` returns); `None` for a plain listener.
    pub original: Option<ObjectId>,
}

impl ListenerRecord {
    /// `listeners()`'s view of the record: the original function.
    fn unwrapped(&self) -> ObjectId {
        self.original.unwrap_or(self.function)
    }

    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L708-L713>
    /// `list[i] === listener || list[i].listener === listener`: the record
    /// is the function, or a wrapper of it.
    fn matches(&self, listener: &Value) -> bool {
        match listener {
            Value::Object(id) => self.function == *id || self.original == Some(*id),
            _ => false,
        }
    }
}

/// The listeners of one event name.
#[derive(Debug)]
pub struct NameListeners {
    /// The name.
    name: EventName,
    /// The listeners, in the order an emit calls them (never empty: a name
    /// without listeners leaves the map).
    listeners: Vec<ListenerRecord>,
    /// Which listener array Node holds for the name: `None` while it has
    /// one listener (Node keeps the function itself), else the array's
    /// identity ([`ListArrays`]).
    array: Option<u64>,
    /// The MaxListenersExceededWarning was given for this name.
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L590-L593>
    /// the flag is `existing.warned`, a property of the listener array, and
    /// a name has an array only while it has two listeners or more: it is
    /// forgotten when the name drops to one listener (L724-L725 puts the
    /// single function in the array's place) or none (L695-L700).
    warned: bool,
}

/// Node's listener arrays, as far as a script can tell them apart.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L508-L543>
/// emit walks the array it finds, counting itself in the array's
/// `kEmitting`; a change to an array that an emit walks goes to a copy that
/// takes its place (`ensureMutableListenerArray`, L907-L914), any other
/// change is made to the array in place. A name with one listener keeps
/// the function, no array (L568-L580, L724-L725), and its second listener
/// makes a new array. Only `removeAllListeners(name)` can see the
/// difference (L777-L786): it walks the array it found at the start by
/// index, from its first length down, so listeners that its
/// `'removeListener'` listeners add or remove change what it visits while
/// the array is still the name's, and not after; an index past the end
/// gives `undefined`, which `removeListener` refuses.
#[derive(Debug, Default)]
pub struct ListArrays {
    /// The identity the next new array gets.
    next: u64,
    /// The arrays that emits are walking, once per emit.
    walked: Vec<u64>,
    /// The arrays that `removeAllListeners` loops walk, with their
    /// contents as Node's array holds them.
    held: Vec<(u64, Vec<ObjectId>)>,
}

impl ListArrays {
    fn fresh(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    /// The array that a change of a name's list is made to: a copy when an
    /// emit walks it (the copy takes its place), else the array itself.
    fn writable(&mut self, array: u64) -> u64 {
        if self.walked.contains(&array) {
            self.fresh()
        } else {
            array
        }
    }

    /// A held array's contents, changed in place.
    fn contents(&mut self, array: u64) -> impl Iterator<Item = &mut Vec<ObjectId>> {
        self.held
            .iter_mut()
            .filter(move |(id, _)| *id == array)
            .map(|(_, c)| c)
    }
}

/// The state of one EventEmitter.
#[derive(Debug, Default)]
pub struct EmitterState {
    /// Event name to its listeners, in the order the names got their first
    /// listener since they last had none.
    events: Vec<NameListeners>,
    /// `emitter.setMaxListeners(n)`; `None` follows
    /// `EventEmitter.defaultMaxListeners`.
    max_listeners: Option<f64>,
    /// The identity of the emitter's `_events` object, which Node replaces
    /// by a fresh one when the last listener goes ([`HeldEvents`]).
    object: u64,
    /// `this[kCapture]`: `captureRejections` (L346-L353), which
    /// `emitUnhandledRejectionOrErr` turns off while it emits.
    capture: bool,
    /// `this[Symbol.for('nodejs.rejection')]` (`kRejection`), `None` while
    /// it was never set (undefined: the prototype has none).
    rejection: Option<Value>,
}

impl EmitterState {
    fn entry(&self, name: &EventName) -> Option<&NameListeners> {
        self.events.iter().find(|e| e.name == *name)
    }

    fn position(&self, name: &EventName) -> Option<usize> {
        self.events.iter().position(|e| e.name == *name)
    }

    /// The listeners of `name` (empty if it has none).
    fn listeners(&self, name: &EventName) -> &[ListenerRecord] {
        self.entry(name).map_or(&[], |e| &e.listeners)
    }

    /// `events[name]` as an emit walks it, or `None` for `undefined`.
    fn handler(&self, name: &EventName) -> Option<Handler> {
        self.entry(name)
            .map(|e| (e.listeners.iter().map(|r| r.function).collect(), e.array))
    }

    fn has_listeners(&self, name: &str) -> bool {
        self.events.iter().any(|e| e.name.is(name))
    }

    /// The names in `Reflect.ownKeys` order.
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L872-L883>
    /// `eventNames()` lists `ReflectOwnKeys(this._events)` (ECMA-262
    /// OrdinaryOwnPropertyKeys: array indices in ascending order, then the
    /// other strings, then the symbols, each in the order they were
    /// created). A name that loses its last listener is deleted from that
    /// object (L695-L700: `delete events[type]`, or a fresh object when it
    /// was the last name; the shape mode of L694 needs a subclass that sets
    /// `_events` itself, which scenarios do not have), so a name that gets
    /// a listener again is created again, at the end.
    fn names_in_key_order(&self) -> Vec<EventName> {
        let mut indices: Vec<(u32, EventName)> = Vec::new();
        let mut strings = Vec::new();
        let mut symbols = Vec::new();
        for e in &self.events {
            match (&e.name, e.name.array_index()) {
                (_, Some(i)) => indices.push((i, e.name.clone())),
                (EventName::String(_), None) => strings.push(e.name.clone()),
                (EventName::Symbol(_), None) => symbols.push(e.name.clone()),
            }
        }
        indices.sort_by_key(|(i, _)| *i);
        indices
            .into_iter()
            .map(|(_, n)| n)
            .chain(strings)
            .chain(symbols)
            .collect()
    }
}

/// What a `once` wrapper function knows.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L633-L643>
/// `_onceWrap(target, type, listener)`: a closure over the emitter, the
/// name as given and the listener, with a `fired` flag, and a `listener`
/// property that is the original.
#[derive(Debug)]
pub struct OnceWrapper {
    /// `target`.
    emitter: ObjectId,
    /// `type`, as given to `once`.
    name: Value,
    /// `listener`, the original.
    listener: ObjectId,
    /// `fired`.
    fired: bool,
}

/// `new EventEmitter()`: no listeners, no maximum of its own.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L332-L354>
pub fn new_event_emitter(rt: &mut Runtime<Model>) -> Value {
    let id = rt.heap.alloc(ObjectData::Host);
    rt.lib.emitters.insert(id, EmitterState::default());
    Value::Object(id)
}

/// `new EventEmitter({ captureRejections: true })`: "It enables automatic
/// capturing of promise rejection".
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L346-L348>
/// `validateBoolean(opts.captureRejections, ...)`, then
/// `this[kCapture] = Boolean(opts.captureRejections)`.
pub fn new_capturing_event_emitter(rt: &mut Runtime<Model>) -> Value {
    let id = rt.heap.alloc(ObjectData::Host);
    rt.lib.emitters.insert(
        id,
        EmitterState {
            capture: true,
            ..EmitterState::default()
        },
    );
    Value::Object(id)
}

/// `emitter[Symbol.for('nodejs.rejection')] = function`: an own property
/// that `emitUnhandledRejectionOrErr` reads (L379).
pub fn set_rejection_handler(
    rt: &mut Runtime<Model>,
    emitter: Value,
    function: Value,
) -> Result<(), Value> {
    // The parser's kinds allow only emitters; a dropped binding
    // (undefined) throws as V8's assignment to a property of undefined
    // does.
    let e = match emitter {
        Value::Object(id) if rt.lib.emitters.contains_key(&id) => id,
        Value::Undefined | Value::Null => {
            let shown = rt.fmt(&emitter);
            return Err(rt.new_error(
                "TypeError",
                &format!("Cannot set properties of {shown} (setting 'Symbol(nodejs.rejection)')"),
            ));
        }
        // MODEL: another object would take the property; the kinds rule it out.
        _ => return Ok(()),
    };
    state_mut(rt, e).rejection = Some(function);
    Ok(())
}

/// The emitter a method is called on, or the TypeError V8 throws for
/// `value.method(...)` on anything else.
fn receiver(rt: &mut Runtime<Model>, value: Value, method: &str) -> Result<ObjectId, Value> {
    match value {
        Value::Object(id) if rt.lib.emitters.contains_key(&id) => Ok(id),
        other => Err(crate::cannot_read(rt, &other, method)),
    }
}

fn state(rt: &Runtime<Model>, emitter: ObjectId) -> &EmitterState {
    rt.lib.emitters.get(&emitter).expect("an emitter")
}

fn state_mut(rt: &mut Runtime<Model>, emitter: ObjectId) -> &mut EmitterState {
    rt.lib.emitters.get_mut(&emitter).expect("an emitter")
}

/// ToPropertyKey of an event name, as `events[type]` performs it.
///
/// MODEL: an object name becomes its `toString()`: an error's
/// `Error.prototype.toString`, an array's elements joined by commas, any
/// other object `[object Tag]`; a function's source text is not shared by
/// the engines, so a function is `[object Function]` here.
pub fn event_name(rt: &Runtime<Model>, value: &Value) -> EventName {
    match value {
        Value::Symbol(s) => EventName::Symbol(s.clone()),
        Value::String(s) => EventName::String(s.clone()),
        other => EventName::String(Rc::from(to_string(rt, other, 0).as_str())),
    }
}

/// ToString of a value that is no symbol (an array's symbol element would
/// throw in JavaScript; the model writes it as `String` does).
fn to_string(rt: &Runtime<Model>, value: &Value, depth: usize) -> String {
    match value {
        Value::Object(id) => match rt.heap.get(*id) {
            ObjectData::Error { name, message, .. } => {
                match (name.is_empty(), message.is_empty()) {
                    (true, _) => message.to_string(),
                    (false, true) => name.to_string(),
                    (false, false) => format!("{name}: {message}"),
                }
            }
            ObjectData::Array(items) if depth < 8 => items
                .iter()
                .map(|v| match v {
                    Value::Undefined | Value::Null => String::new(),
                    v => to_string(rt, v, depth + 1),
                })
                .collect::<Vec<_>>()
                .join(","),
            ObjectData::Function(_) => "[object Function]".into(),
            ObjectData::Promise(_) => "[object Promise]".into(),
            ObjectData::Host => match rt.host_class_of(value).and_then(|c| c.tag()) {
                Some(tag) => format!("[object {tag}]"),
                None => "[object Event]".into(),
            },
            _ => "[object Object]".into(),
        },
        Value::Symbol(s) => s.descriptive_string(),
        other => rt.fmt(other),
    }
}

/// The function `listener` is, or Node's ERR_INVALID_ARG_TYPE.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L265-L267>
/// `checkListener(listener)`: `validateFunction(listener, 'listener')`.
fn check_listener(rt: &mut Runtime<Model>, listener: &Value) -> Result<ObjectId, Value> {
    match listener {
        Value::Object(id) if rt.is_function(listener) => Ok(*id),
        other => Err(rt.err_invalid_arg_type("listener", "function", other)),
    }
}

/// `emitter.on(name, listener)`, `prependListener`, `once` and
/// `prependOnceListener`.
///
/// The documentation: "Adds the listener function to the end of the
/// listeners array for the event named eventName" (to the beginning with
/// `prepend`); "The EventEmitter instance will emit its own 'newListener'
/// event *before* a listener is added to its internal array of
/// listeners"; a `once` listener "is invoked only the next time
/// eventName is triggered, after which it is removed", and
/// `'newListener'` receives the original function of it.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L651-L656>
/// `once` validates the listener, wraps it and adds the wrapper with
/// `on`; L545-L597 `_addListener` validates what it adds, emits
/// `'newListener'` with `(type, listener.listener ?? listener)` only if
/// the name `'newListener'` has listeners (L559-L561), then adds, then
/// checks the maximum.
pub fn add_listener(
    rt: &mut Runtime<Model>,
    emitter: Value,
    name: Value,
    listener: Value,
    prepend: bool,
    once: bool,
) -> Completion {
    let (_, method) = nodesem_lang::emitter_add_form(prepend, once);
    let e = receiver(rt, emitter.clone(), method)?;
    let f = check_listener(rt, &listener)?;
    let record = if once {
        let wrapper = once_wrap(rt, e, name.clone(), f);
        ListenerRecord {
            function: wrapper,
            original: Some(f),
        }
    } else {
        // A wrapper taken from `rawListeners()` and added again keeps its
        // `listener` property.
        ListenerRecord {
            function: f,
            original: rt.lib.once_wrappers.get(&f).map(|w| w.listener),
        }
    };
    let held = [
        emitter.clone(),
        name.clone(),
        Value::Object(record.function),
        Value::Object(record.unwrapped()),
    ];
    rt.holding(&held, |rt| {
        if state(rt, e).has_listeners("newListener") {
            let args = [name.clone(), Value::Object(record.unwrapped())];
            emit_steps(rt, e, &EventName::String(Rc::from("newListener")), &args)?;
        }
        let key = event_name(rt, &name);
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L410-L414>
        // `_getMaxListeners`: the default as it is now, for an emitter
        // without a maximum of its own.
        let default = rt.lib.events_module.default_max_listeners;
        let st = state_mut(rt, e);
        let max = st.max_listeners.unwrap_or(default);
        let at = match st.position(&key) {
            Some(at) => at,
            None => {
                st.events.push(NameListeners {
                    name: key,
                    listeners: Vec::new(),
                    array: None,
                    warned: false,
                });
                st.events.len() - 1
            }
        };
        let function = record.function;
        let entry = &mut st.events[at];
        if prepend {
            entry.listeners.insert(0, record);
        } else {
            entry.listeners.push(record);
        }
        let array = match (entry.listeners.len(), entry.array) {
            (1, _) => None,
            (_, None) => Some(rt.lib.list_arrays.fresh()),
            (_, Some(array)) => {
                let array = rt.lib.list_arrays.writable(array);
                for contents in rt.lib.list_arrays.contents(array) {
                    if prepend {
                        contents.insert(0, function);
                    } else {
                        contents.push(function);
                    }
                }
                Some(array)
            }
        };
        let st = state_mut(rt, e);
        let entry = &mut st.events[at];
        entry.array = array;
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L590-L593>
        // the check runs only when the name already had a listener (a
        // name's first listener is never counted against the maximum).
        let count = entry.listeners.len();
        if count >= 2 && max > 0.0 && count as f64 > max && !entry.warned {
            entry.warned = true;
            warn_max_listeners_exceeded(rt, &name, count, max);
        }
        Ok(emitter.clone())
    })
}

/// The MaxListenersExceededWarning of an emitter.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L599-L607>
/// a warning named MaxListenersExceededWarning (with `emitter`, `type`
/// and `count` fields, which the log does not show), its message naming the
/// count, `String(type)`, the emitter as `inspect(target, { depth: -1 })`
/// prints it (`[EventEmitter]`) and the maximum, given to
/// `process.emitWarning`, which emits `'warning'` from a next tick.
fn warn_max_listeners_exceeded(rt: &mut Runtime<Model>, name: &Value, count: usize, max: f64) {
    let shown_name = to_string(rt, name, 0);
    let shown_max = rt.fmt(&Value::Number(max));
    let message = format!(
        "Possible EventEmitter memory leak detected. {count} {shown_name} listeners added to \
         [EventEmitter]. MaxListeners is {shown_max}. Use emitter.setMaxListeners() to increase limit"
    );
    rt.emit_warning("MaxListenersExceededWarning", &message);
}

/// `_onceWrap(target, type, listener)`: a function object that, the first
/// time it is called, removes itself from `type` (as `removeListener` does)
/// and then calls the listener with the emitter as `this` and its own
/// arguments, returning what the listener returns; later calls do nothing.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L633-L643>
fn once_wrap(
    rt: &mut Runtime<Model>,
    emitter: ObjectId,
    name: Value,
    listener: ObjectId,
) -> ObjectId {
    let this_wrapper: Rc<Cell<Option<ObjectId>>> = Rc::new(Cell::new(None));
    let me = this_wrapper.clone();
    let captures = Captures::values(vec![
        Value::Object(emitter),
        name.clone(),
        Value::Object(listener),
    ]);
    let wrapper = rt.native_function_capturing(captures, move |rt, _this, args| {
        let wrapper = me.get().expect("the wrapper knows itself");
        let w = rt
            .lib
            .once_wrappers
            .get_mut(&wrapper)
            .expect("a live once wrapper");
        if w.fired {
            return Ok(Value::Undefined);
        }
        w.fired = true;
        let (emitter, name, listener) = (w.emitter, w.name.clone(), w.listener);
        remove_listener(rt, Value::Object(emitter), name, Value::Object(wrapper))?;
        rt.call_function(listener, Value::Object(emitter), args)
    });
    this_wrapper.set(Some(wrapper));
    rt.lib.once_wrappers.insert(
        wrapper,
        OnceWrapper {
            emitter,
            name,
            listener,
            fired: false,
        },
    );
    wrapper
}

/// `emitter.removeListener(name, listener)`: "removes, at most, one
/// instance of a listener from the listener array", the most recently
/// added one, and then emits `'removeListener'`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L679-L732>
/// the listener is validated first; the search runs from the end
/// (L708-L713) and matches a record that is the function or a once
/// wrapper of it. `'removeListener'` is emitted after the removal, if the
/// name `'removeListener'` still has listeners, with the name as given and:
/// when the name had that one listener, the record's original (L691,
/// L703: `list.listener || listener`); when it had more, the value passed
/// in (L728: `listener`), which is a wrapper when a wrapper removes itself
/// or `removeAllListeners` removes it.
pub fn remove_listener(
    rt: &mut Runtime<Model>,
    emitter: Value,
    name: Value,
    listener: Value,
) -> Completion {
    let e = receiver(rt, emitter.clone(), "removeListener")?;
    check_listener(rt, &listener)?;
    let key = event_name(rt, &name);
    let st = state(rt, e);
    let Some(at) = st.position(&key) else {
        return Ok(emitter);
    };
    let Some(position) = st.events[at]
        .listeners
        .iter()
        .rposition(|r| r.matches(&listener))
    else {
        return Ok(emitter);
    };
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L692-L697>
    // the one listener of the only name: `_eventsCount` reaches 0 and the
    // emitter gets a fresh `_events` object.
    if st.events[at].listeners.len() == 1 && st.events.len() == 1 {
        replace_events_object(rt, e);
    }
    let st = state_mut(rt, e);
    let entry = &mut st.events[at];
    let had = entry.listeners.len();
    let removed = entry.listeners.remove(position);
    if entry.listeners.len() <= 1 {
        entry.warned = false;
    }
    let array = entry.array;
    let left = entry.listeners.len();
    if entry.listeners.is_empty() {
        st.events.remove(at);
    }
    if let Some(array) = array {
        let arrays = &mut rt.lib.list_arrays;
        let array = arrays.writable(array);
        for contents in arrays.contents(array) {
            if position < contents.len() {
                contents.remove(position);
            }
        }
        let st = state_mut(rt, e);
        if let Some(at) = st.position(&key) {
            st.events[at].array = (left >= 2).then_some(array);
        }
    }
    let st = state(rt, e);
    if st.has_listeners("removeListener") {
        let reported = if had == 1 {
            removed.original.map_or(listener, Value::Object)
        } else {
            listener
        };
        let held = [
            emitter.clone(),
            Value::Object(removed.function),
            Value::Object(removed.unwrapped()),
        ];
        rt.holding(&held, |rt| {
            emit_steps(
                rt,
                e,
                &EventName::String(Rc::from("removeListener")),
                &[name, reported],
            )
        })?;
    }
    Ok(emitter)
}

/// `emitter.removeAllListeners([name])`: "Removes all listeners, or those
/// of the specified eventName."
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L743-L789>
/// without `'removeListener'` listeners the names simply go (L750-L762).
/// Otherwise, for one name, each listener it had is removed with
/// `removeListener(name, listener)` from the last to the first (L777-L786:
/// the raw function, so a wrapper is what `'removeListener'` receives
/// while the name has more than one listener); for every name, each name
/// in `Reflect.ownKeys` order but `'removeListener'` is done that way
/// (L766-L769), then `'removeListener'` itself (L770), and at last every
/// listener still there (added meanwhile) goes without an event (L771).
///
/// The one-name loop walks Node's array as [`ListArrays`] says: the
/// listeners that `'removeListener'` listeners add or remove while it runs
/// change what it visits as long as the array is still the name's.
pub fn remove_all_listeners(
    rt: &mut Runtime<Model>,
    emitter: Value,
    name: Option<Value>,
) -> Completion {
    let e = receiver(rt, emitter.clone(), "removeAllListeners")?;
    if !state(rt, e).has_listeners("removeListener") {
        match &name {
            // L752: a fresh `_events` object.
            None => {
                replace_events_object(rt, e);
                state_mut(rt, e).events.clear();
            }
            Some(name) => {
                let key = event_name(rt, name);
                if let Some(at) = state(rt, e).position(&key) {
                    // L755-L756: a fresh object when the count reaches 0.
                    if state(rt, e).events.len() == 1 {
                        replace_events_object(rt, e);
                    }
                    state_mut(rt, e).events.remove(at);
                }
            }
        }
        return Ok(emitter);
    }
    match name {
        None => {
            for key in state(rt, e).names_in_key_order() {
                if key.is("removeListener") {
                    continue;
                }
                remove_all_listeners(rt, emitter.clone(), Some(key.to_value()))?;
            }
            remove_all_listeners(rt, emitter.clone(), Some(Value::string("removeListener")))?;
            // L771: a fresh `_events` object.
            replace_events_object(rt, e);
            state_mut(rt, e).events.clear();
        }
        Some(name) => {
            let key = event_name(rt, &name);
            let (functions, array) = match state(rt, e).entry(&key) {
                Some(n) => (
                    n.listeners.iter().map(|r| r.function).collect::<Vec<_>>(),
                    n.array,
                ),
                None => (Vec::new(), None),
            };
            let Some(array) = array else {
                // One listener (Node's function itself), or none.
                if let Some(&f) = functions.first() {
                    let held = [emitter.clone(), Value::Object(f)];
                    rt.holding(&held, |rt| {
                        remove_listener(rt, emitter.clone(), name.clone(), Value::Object(f))
                    })?;
                }
                return Ok(emitter);
            };
            // The array found, walked by index from its first length down
            // as it is at each step ([`ListArrays`]).
            let first_length = functions.len();
            rt.lib.list_arrays.held.push((array, functions));
            let result = (0..first_length).rev().try_for_each(|i| {
                let f = rt
                    .lib
                    .list_arrays
                    .held
                    .iter()
                    .rev()
                    .find(|(id, _)| *id == array)
                    .and_then(|(_, c)| c.get(i).copied());
                let f = f.map_or(Value::Undefined, Value::Object);
                let held = [emitter.clone(), f.clone()];
                rt.holding(&held, |rt| {
                    remove_listener(rt, emitter.clone(), name.clone(), f).map(|_| ())
                })
            });
            let held = &mut rt.lib.list_arrays.held;
            if let Some(i) = held.iter().rposition(|(id, _)| *id == array) {
                held.remove(i);
            }
            result?;
        }
    }
    Ok(emitter)
}

/// `emitter.emit(name, ...args)`: "Synchronously calls each of the
/// listeners registered for the event named eventName, in the order they
/// were registered, passing the supplied arguments to each. Returns true if
/// the event had listeners, false otherwise."
pub fn emit(rt: &mut Runtime<Model>, emitter: Value, name: Value, args: Vec<Value>) -> Completion {
    let e = receiver(rt, emitter.clone(), "emit")?;
    let mut held = args.clone();
    held.push(emitter);
    rt.holding(&held, |rt| emit_algorithm(rt, e, &name, &args))
}

/// `EventEmitter.prototype.emit(type, ...args)`, step by step.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L489-L543>
fn emit_algorithm(rt: &mut Runtime<Model>, e: ObjectId, ty: &Value, args: &[Value]) -> Completion {
    // L490: `let doError = (type === 'error');`
    let do_error = matches!(ty, Value::String(s) if &**s == "error");
    // L492: `const events = this._events;` (a `new EventEmitter()` always
    // has one, so L493 holds and L497-L498 never apply).
    let object = state(rt, e).object;
    // L494-L495: `if (doError && events[kErrorMonitor] !== undefined)
    // this.emit(kErrorMonitor, ...args);` (no listener can have the symbol
    // before the run made it).
    let mut frozen = None;
    let monitor = rt.lib.events_module.error_monitor.clone();
    if let (true, Some(monitor)) = (do_error, monitor) {
        let monitor = EventName::Symbol(monitor);
        if state(rt, e).entry(&monitor).is_some() {
            rt.lib.events_module.held.push(HeldEvents {
                emitter: e,
                object,
                frozen: None,
            });
            let result = emit_algorithm(rt, e, &monitor.to_value(), args);
            let held = rt.lib.events_module.held.pop();
            frozen = held.and_then(|h| h.frozen);
            result?;
        }
    }
    // L496 and L508 read `events`: the emitter's object, or the one it
    // replaced meanwhile, as it was then ([`HeldEvents`]).
    let key = event_name(rt, ty);
    let handler = match frozen {
        Some(handler) => handler,
        None => state(rt, e).handler(&key),
    };
    // L496: `doError &&= events.error === undefined;` L500-L506: if there is
    // no 'error' event listener, throw.
    if do_error && handler.is_none() {
        return Err(unhandled_error(rt, args.first().cloned()));
    }
    // L508-L511: `const handler = events[type]; if (handler === undefined)
    // return false;`
    let Some(handler) = handler else {
        return Ok(Value::Bool(false));
    };
    call_listeners(rt, e, ty, handler, args)
}

/// The calls of an emit to a name of this emitter as its listeners are
/// now (what `emit(type)` does for a type other than `'error'`).
fn emit_steps(rt: &mut Runtime<Model>, e: ObjectId, key: &EventName, args: &[Value]) -> Completion {
    match state(rt, e).handler(key) {
        Some(handler) => call_listeners(rt, e, &key.to_value(), handler, args),
        None => Ok(Value::Bool(false)),
    }
}

/// The calls of an emit: each listener of the list as it is when the emit
/// starts, with the emitter as `this`; an exception stops the emit and
/// propagates.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L513-L542>
/// a single listener is called as it is; an array is walked while its
/// `kEmitting` count makes every change during the emit go to a copy
/// (L907-L914): the walk sees the list as it was. What a listener returns,
/// unless it is undefined or null, goes to `addCatch` (L519-L521,
/// L533-L535), which looks at it only with `captureRejections`.
fn call_listeners(
    rt: &mut Runtime<Model>,
    e: ObjectId,
    ty: &Value,
    (snapshot, array): Handler,
    args: &[Value],
) -> Completion {
    let held: Vec<Value> = snapshot.iter().map(|f| Value::Object(*f)).collect();
    if let Some(array) = array {
        rt.lib.list_arrays.walked.push(array);
    }
    let result = rt.holding(&held, |rt| {
        for f in &snapshot {
            let result = rt.call_function(*f, Value::Object(e), args)?;
            if !matches!(result, Value::Undefined | Value::Null) {
                let held = [result.clone()];
                rt.holding(&held, |rt| add_catch(rt, e, result.clone(), ty, args))?;
            }
        }
        Ok(Value::Bool(true))
    });
    if let Some(array) = array {
        let walked = &mut rt.lib.list_arrays.walked;
        if let Some(i) = walked.iter().rposition(|&a| a == array) {
            walked.remove(i);
        }
    }
    result
}

/// `addCatch(that, promise, type, args)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L356-L376>
fn add_catch(
    rt: &mut Runtime<Model>,
    that: ObjectId,
    promise: Value,
    ty: &Value,
    args: &[Value],
) -> Result<(), Value> {
    // L357-L359: `if (!that[kCapture]) return;`
    if !state(rt, that).capture {
        return Ok(());
    }
    // L363-L372: `const then = promise.then; if (typeof then ===
    // 'function') then.call(promise, undefined, function(err) { ... });`
    let attempt = add_catch_then(rt, that, &promise, ty, args);
    // L373-L375: `catch (err) { that.emit('error', err); }`
    if let Err(err) = attempt {
        let held = [err.clone()];
        rt.holding(&held, |rt| {
            emit_algorithm(
                rt,
                that,
                &Value::string("error"),
                std::slice::from_ref(&err),
            )
        })?;
    }
    Ok(())
}

/// The `try` block of `addCatch`: `promise.then` read, and called when it
/// is a function.
fn add_catch_then(
    rt: &mut Runtime<Model>,
    that: ObjectId,
    promise: &Value,
    ty: &Value,
    args: &[Value],
) -> Result<(), Value> {
    let Value::Object(p) = *promise else {
        // A primitive's `then` (its prototype's) is undefined.
        return Ok(());
    };
    let is_promise = matches!(rt.heap.get(p), ObjectData::Promise(_));
    let thenable_body = match rt.heap.get(p) {
        ObjectData::Thenable { then, .. } => Some(*then),
        _ => None,
    };
    if !is_promise && thenable_body.is_none() {
        // No other object of a scenario has a `then`.
        return Ok(());
    }
    // L367-L371: the rejection handler, a closure over `that`, `type` and
    // `args`.
    let args_array = rt.create_array_from_list(args.to_vec());
    let captures = Captures::values(vec![Value::Object(that), ty.clone(), args_array.clone()]);
    let ty = ty.clone();
    let on_rejected = rt.native_function_capturing(captures, move |rt, _, rejection| {
        let err = rejection.first().cloned().unwrap_or(Value::Undefined);
        // L368-L370: `process.nextTick(emitUnhandledRejectionOrErr, that,
        // err, type, args);`
        let (ty, args_array) = (ty.clone(), args_array.clone());
        let captures = Captures::values(vec![
            Value::Object(that),
            err.clone(),
            ty.clone(),
            args_array.clone(),
        ]);
        rt.next_tick(nodesem_runtime::Task::Captured(
            Box::new(move |rt: &mut Runtime<Model>| {
                emit_unhandled_rejection_or_err(rt, that, err, ty, args_array)
            }),
            captures,
        ));
        Ok(Value::Undefined)
    });
    match thenable_body {
        // `Promise.prototype.then.call(promise, undefined, onRejected)`.
        None => {
            rt.promise_then(p, None, Some(on_rejected));
        }
        // A `thenable V` is `{ then(resolve) { ...; resolve(V); } }`: its
        // body runs on the thenable, and then `resolve`, here undefined,
        // is no function.
        Some(body) => {
            let held = [Value::Object(on_rejected)];
            rt.holding(&held, |rt| {
                if let Some(body) = body {
                    rt.call_function(body, Value::Object(p), &[])?;
                }
                Err(rt.new_error("TypeError", "resolve is not a function"))
            })?;
        }
    }
    Ok(())
}

/// `emitUnhandledRejectionOrErr(ee, err, type, args)`, a next tick.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L378-L397>
fn emit_unhandled_rejection_or_err(
    rt: &mut Runtime<Model>,
    ee: ObjectId,
    err: Value,
    ty: Value,
    args: Value,
) -> Completion {
    // MODEL: a collected emitter is unreachable here: the tick holds it.
    let rejection = state(rt, ee).rejection.clone();
    // L379-L380: `if (typeof ee[kRejection] === 'function')
    // ee[kRejection](err, type, ...args);`
    if let Some(Value::Object(f)) = rejection.filter(|r| rt.is_function(r)) {
        let mut call_args = vec![err, ty];
        if let Value::Object(a) = args {
            if let ObjectData::Array(items) = rt.heap.get(a) {
                call_args.extend(items.iter().cloned());
            }
        }
        rt.call_function(f, Value::Object(ee), &call_args)?;
        return Ok(Value::Undefined);
    }
    // L384: `const prev = ee[kCapture];`
    let prev = state(rt, ee).capture;
    // L390-L392: `ee[kCapture] = false; ee.emit('error', err);`
    state_mut(rt, ee).capture = false;
    let result = emit_algorithm(rt, ee, &Value::string("error"), &[err]);
    // L393-L395: `finally { ee[kCapture] = prev; }`
    if let Some(st) = rt.lib.emitters.get_mut(&ee) {
        st.capture = prev;
    }
    result?;
    Ok(Value::Undefined)
}

/// The emitter replaces its `_events` object by a fresh one (the callers
/// cite where): an emit that holds the old object keeps what it has now.
fn replace_events_object(rt: &mut Runtime<Model>, e: ObjectId) {
    let st = state(rt, e);
    let (current, error) = (st.object, st.handler(&EventName::String(Rc::from("error"))));
    let module = &mut rt.lib.events_module;
    for held in module.held.iter_mut() {
        if held.emitter == e && held.object == current && held.frozen.is_none() {
            held.frozen = Some(error.clone());
        }
    }
    module.next_object += 1;
    let fresh = module.next_object;
    state_mut(rt, e).object = fresh;
}

/// What an unhandled `'error'` throws: the first argument if it is an
/// Error, else ERR_UNHANDLED_ERROR.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L449-L480>
/// `er instanceof Error` is thrown itself (every error of a scenario,
/// DOMException and Node's coded errors included, is one); otherwise
/// `new ERR_UNHANDLED_ERROR(inspect(er))`, whose message
/// (lib/internal/errors.js#L1920-L1927) is `Unhandled error. (X)`.
/// MODEL: its `context` property (the value) is not readable in scenarios.
fn unhandled_error(rt: &mut Runtime<Model>, er: Option<Value>) -> Value {
    let er = er.unwrap_or(Value::Undefined);
    if matches!(&er, Value::Object(id) if matches!(rt.heap.get(*id), ObjectData::Error { .. })) {
        return er;
    }
    let shown = inspect(rt, &er, 0);
    rt.node_error(
        "Error",
        "ERR_UNHANDLED_ERROR",
        &format!("Unhandled error. ({shown})"),
    )
}

/// `util.inspect(value)` with the default options, for the values an
/// unhandled `'error'` shows.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/util/inspect.js#L785-L840>
/// `strEscape`: single quotes, or double quotes when the string has a `'`
/// and no `"`, or backticks when it has both and no backtick or `${`;
/// control characters, the quote in use and `\` are escaped (`meta`,
/// L267-L282).
/// MODEL: strings are never split across lines (inspect splits a string
/// with newlines longer than its break length); objects other than plain
/// ones, arrays, functions and promises show as `[Tag]`.
fn inspect(rt: &Runtime<Model>, value: &Value, depth: usize) -> String {
    match value {
        Value::String(s) => quote(s),
        Value::Number(n) if *n == 0.0 && n.is_sign_negative() => "-0".into(),
        Value::Symbol(s) => s.descriptive_string(),
        Value::Object(id) => match rt.heap.get(*id) {
            ObjectData::Array(items) if items.is_empty() => "[]".into(),
            // util.inspect's `depth` 2: what is nested deeper than that is
            // `[Array]`, and a function's properties are not shown.
            ObjectData::Array(items) if depth <= 2 => {
                let parts: Vec<String> = items.iter().map(|v| inspect(rt, v, depth + 1)).collect();
                reduce_to_single_string(&parts, "[", "]", 2 * depth)
            }
            ObjectData::Array(_) => "[Array]".into(),
            // A scenario's functions are anonymous function expressions
            // (an async one is an AsyncFunction); a once wrapper is
            // `_onceWrap`'s `wrapper` with its `listener` property; the
            // runtime's own functions (resolving functions) are anonymous.
            ObjectData::Function(FunctionData::Script { is_async, .. }) => if *is_async {
                "[AsyncFunction (anonymous)]"
            } else {
                "[Function (anonymous)]"
            }
            .into(),
            ObjectData::Function(_) => match rt.lib.once_wrappers.get(id) {
                Some(w) if depth <= 2 => format!(
                    "[Function: wrapper] {{ listener: {} }}",
                    inspect(rt, &Value::Object(w.listener), depth + 1)
                ),
                // Deeper than `depth`, a function with own properties is
                // `[Function]`, unnamed (one without any keeps its name).
                Some(_) => "[Function]".into(),
                None => "[Function (anonymous)]".into(),
            },
            ObjectData::Plain => "{}".into(),
            // util.inspect's formatPromise: the state, and the result of a
            // settled promise.
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
            // No own enumerable property.
            ObjectData::WeakRef(_) => "WeakRef {}".into(),
            ObjectData::FinalizationRegistry(_) => "FinalizationRegistry {}".into(),
            // An EventTarget has no own enumerable property; an
            // AbortSignal's custom inspect shows `aborted`, an
            // AbortController's its signal.
            _ => match rt.host_class_of(value) {
                Some(HostClass::EventTarget) => "EventTarget {}".into(),
                Some(HostClass::AbortSignal) => {
                    let aborted = rt.lib.signals.get(id).is_some_and(|s| s.aborted);
                    format!("AbortSignal {{ aborted: {aborted} }}")
                }
                Some(HostClass::AbortController) => {
                    let signal = rt.lib.controllers.get(id).copied();
                    let aborted =
                        signal.is_some_and(|s| rt.lib.signals.get(&s).is_some_and(|s| s.aborted));
                    format!("AbortController {{ signal: AbortSignal {{ aborted: {aborted} }} }}")
                }
                Some(HostClass::AsyncLocalStorage) => "AsyncLocalStorage {}".into(),
                Some(HostClass::EventEmitter) if depth == 0 => inspect_emitter(rt, *id),
                Some(class) => match class.constructor_name() {
                    Some(name) => format!("[{name}]"),
                    None => "[Object]".into(),
                },
                None => "[Object]".into(),
            },
        },
        other => rt.fmt(other),
    }
}

/// util.inspect of an EventEmitter at the top level (`inspect(er)` with
/// Node's default options: depth 2, `breakLength` 80, `compact` 3;
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L469-L477>),
/// measured on the pinned binary: its own properties (`_events`, a
/// null-prototype object whose keys come in V8's order; `_eventsCount`;
/// `_maxListeners`) and symbols (`kShapeMode`, `kCapture`); a listener
/// array also shows its `kEmitting` count (`Symbol(events.emitting): 0`;
/// MODEL: always 0, which an emitter inspected from inside an emit of one
/// of its arrayed names would show as 1; no scenario reaches it).
/// Each object is laid out by [`reduce_to_single_string`]. MODEL: an
/// emitter nested in another value is printed `[EventEmitter]`, and
/// arrays of more than six listeners (which util.inspect groups in
/// columns) are not laid out as Node does; no scenario reaches either.
fn inspect_emitter(rt: &Runtime<Model>, emitter: ObjectId) -> String {
    let st = state(rt, emitter);
    let mut entries = Vec::new();
    for name in st.names_in_key_order() {
        let listeners = st.listeners(&name);
        if listeners.is_empty() {
            continue;
        }
        let key = match &name {
            EventName::Symbol(s) => s.descriptive_string(),
            EventName::String(s) if is_identifier(s) => s.to_string(),
            EventName::String(s) => quote(s),
        };
        // The emitter is at depth 0, `_events` at 1, a listener at 2 and a
        // listener in an array at 3.
        let value = match listeners {
            [one] => inspect(rt, &Value::Object(one.function), 2),
            many => {
                let mut items: Vec<String> = many
                    .iter()
                    .map(|r| inspect(rt, &Value::Object(r.function), 3))
                    .collect();
                items.push("Symbol(events.emitting): 0".into());
                reduce_to_single_string(&items, "[", "]", 4)
            }
        };
        entries.push(format!("{key}: {value}"));
    }
    let events = if entries.is_empty() {
        "[Object: null prototype] {}".to_string()
    } else {
        reduce_to_single_string(&entries, "[Object: null prototype] {", "}", 2)
    };
    let max = match st.max_listeners {
        None => "undefined".to_string(),
        Some(m) => inspect(rt, &Value::Number(m), 1),
    };
    let own = [
        format!("_events: {events}"),
        format!("_eventsCount: {}", entries.len()),
        format!("_maxListeners: {max}"),
        "Symbol(shapeMode): false".to_string(),
        "Symbol(kCapture): false".to_string(),
    ];
    reduce_to_single_string(&own, "EventEmitter {", "}", 0)
}

/// util.inspect's `reduceToSingleString` for an object whose entries are
/// already formatted, at `indentation` spaces, with `compact` 3 (every
/// object here is within three levels of its innermost one): on one line
/// when `isBelowBreakLength` (the entries, one more per entry and a start
/// of `entries + indentation + opening brace + 10`, at most `breakLength`
/// 80, and no entry broken over lines), else one entry per line.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/util/inspect.js#L2626-L2704>
/// `isBelowBreakLength` and `reduceToSingleString`; the default
/// `breakLength` is 80 (L231).
fn reduce_to_single_string(
    entries: &[String],
    open: &str,
    close: &str,
    indentation: usize,
) -> String {
    let start = entries.len() + indentation + open.len() + 10;
    let mut total = entries.len() + start;
    let mut below = total + entries.len() <= 80;
    for entry in entries {
        total += entry.len();
        below &= total <= 80;
    }
    if below {
        let joined = entries.join(", ");
        if !joined.contains('\n') {
            return format!("{open} {joined} {close}");
        }
    }
    let pad = " ".repeat(indentation);
    let separator = format!(",\n{pad}  ");
    format!("{open}\n{pad}  {}\n{pad}{close}", entries.join(&separator))
}

/// Whether util.inspect writes a key bare: an identifier (`keyStrRegExp`).
fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with(|c: char| c.is_ascii_digit())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// `strEscape(str)` of Node's inspect.
fn quote(s: &str) -> String {
    let quote = if !s.contains('\'') {
        '\''
    } else if !s.contains('"') {
        '"'
    } else if !s.contains('`') && !s.contains("${") {
        '`'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        let point = c as u32;
        match c {
            '\'' if quote == '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{b}' => out.push_str("\\x0B"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            _ if point < 32 || (127..160).contains(&point) => {
                out.push_str(&format!("\\x{point:02X}"));
            }
            _ => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// `emitter.listenerCount(name[, listener])`: "the number of listeners
/// listening for the event named eventName. If listener is provided, it
/// will return how many times the listener is found in the list of the
/// listeners of the event."
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L835-L865>
/// `listener != null` filters (undefined and null count every listener),
/// matching a record that is the listener or wraps it.
pub fn listener_count(
    rt: &mut Runtime<Model>,
    emitter: Value,
    name: Value,
    listener: Option<Value>,
) -> Completion {
    let e = receiver(rt, emitter, "listenerCount")?;
    let key = event_name(rt, &name);
    let list = state(rt, e).listeners(&key);
    let n = match listener {
        None | Some(Value::Undefined | Value::Null) => list.len(),
        Some(l) => list.iter().filter(|r| r.matches(&l)).count(),
    };
    Ok(Value::Number(n as f64))
}

/// `emitter.eventNames()`: "an array listing the events for which the
/// emitter has registered listeners", in the order of
/// [`EmitterState::names_in_key_order`].
pub fn event_names(rt: &mut Runtime<Model>, emitter: Value) -> Completion {
    let e = receiver(rt, emitter, "eventNames")?;
    let names: Vec<Value> = state(rt, e)
        .names_in_key_order()
        .iter()
        .map(EventName::to_value)
        .collect();
    Ok(rt.create_array_from_list(names))
}

/// `emitter.listeners(name)`: "a copy of the array of listeners", once
/// listeners as their originals; `emitter.rawListeners(name)`: the same
/// "including any wrappers (such as those created by .once())".
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L791-L826>
pub fn listeners(rt: &mut Runtime<Model>, emitter: Value, name: Value, raw: bool) -> Completion {
    let e = receiver(rt, emitter, if raw { "rawListeners" } else { "listeners" })?;
    let key = event_name(rt, &name);
    let list: Vec<Value> = state(rt, e)
        .listeners(&key)
        .iter()
        .map(|r| Value::Object(if raw { r.function } else { r.unwrapped() }))
        .collect();
    Ok(rt.create_array_from_list(list))
}

/// `emitter.setMaxListeners(n)`, as `events.setMaxListeners(n, emitter)`
/// calls it (`n` already validated).
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L404-L408>
/// the maximum is set; a name's warned flag stays.
pub fn set_max_listeners(rt: &mut Runtime<Model>, emitter: ObjectId, n: f64) {
    state_mut(rt, emitter).max_listeners = Some(n);
}

/// `_getMaxListeners(emitter)`, or `None` for an object that is no emitter.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L410-L414>
/// `that._maxListeners === undefined` reads `EventEmitter.defaultMaxListeners`
/// as it is at the call.
pub fn max_listeners(rt: &Runtime<Model>, object: ObjectId) -> Option<f64> {
    let default = rt.lib.events_module.default_max_listeners;
    rt.lib
        .emitters
        .get(&object)
        .map(|s| s.max_listeners.unwrap_or(default))
}

/// The strong edges of an emitter: every listener record's function and
/// original. (A once wrapper's own edges, the emitter, the name and the
/// original, are the captures of its closure.)
pub(crate) fn trace(rt: &Runtime<Model>, obj: ObjectId, edges: &mut Vec<Value>) {
    if let Some(st) = rt.lib.emitters.get(&obj) {
        for entry in &st.events {
            for r in &entry.listeners {
                edges.push(Value::Object(r.function));
                if let Some(o) = r.original {
                    edges.push(Value::Object(o));
                }
            }
        }
    }
}

/// The functions that emits of `'error'` hold in the `_events` objects
/// their emitters replaced ([`HeldEvents`]): alive while the emit runs.
pub(crate) fn roots(rt: &Runtime<Model>, roots: &mut Vec<Value>) {
    for held in &rt.lib.events_module.held {
        if let Some(Some((functions, _))) = &held.frozen {
            roots.extend(functions.iter().map(|f| Value::Object(*f)));
        }
    }
}

/// `Object.keys(emitter._events).length`: the names that are strings
/// (`Object.keys` leaves symbols out). A name that loses its last listener
/// is deleted from the object (L699) or the object is replaced (L697), so
/// no key of a name without listeners stays (the shape mode of L694-L695,
/// which keeps it with `undefined`, needs a subclass that presets
/// `_events`).
pub fn events_key_count(rt: &mut Runtime<Model>, emitter: Value) -> Completion {
    // MODEL: `E._events` of a value that is no emitter is a read the
    // parser's kinds rule out; the model throws as a method call would.
    let e = receiver(rt, emitter, "_events")?;
    let n = state(rt, e)
        .events
        .iter()
        .filter(|n| matches!(n.name, EventName::String(_)))
        .count();
    Ok(Value::Number(n as f64))
}

/// `EventEmitter.errorMonitor`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L88>
/// `const kErrorMonitor = Symbol('events.errorMonitor')`, exported at L246.
pub fn error_monitor(rt: &mut Runtime<Model>) -> Symbol {
    rt.lib
        .events_module
        .error_monitor
        .get_or_insert_with(|| Symbol::new("events.errorMonitor"))
        .clone()
}

/// The `defaultMaxListeners` getter.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L272-L274>
pub fn default_max_listeners(rt: &Runtime<Model>) -> f64 {
    rt.lib.events_module.default_max_listeners
}

/// The `defaultMaxListeners` setter.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L275-L278>
/// `validateNumber(arg, 'defaultMaxListeners', 0); defaultMaxListeners =
/// arg;`: a number from 0 up (Infinity included), else ERR_INVALID_ARG_TYPE
/// (no number) or ERR_OUT_OF_RANGE (below 0, or NaN:
/// lib/internal/validators.js#L188-L199). Emitters read it whenever they
/// check their maximum (L410-L414); an EventTarget copies it when it is made
/// (lib/internal/event_target.js#L576).
pub fn set_default_max_listeners(rt: &mut Runtime<Model>, arg: Value) -> Result<(), Value> {
    let n = match arg {
        Value::Number(n) => n,
        other => return Err(rt.err_invalid_arg_type("defaultMaxListeners", "number", &other)),
    };
    if n.is_nan() || n < 0.0 {
        return Err(rt.err_out_of_range("defaultMaxListeners", ">= 0", n));
    }
    rt.lib.events_module.default_max_listeners = n;
    Ok(())
}

/// `new AbortError(undefined, { cause })`: an Error named AbortError with
/// code ABORT_ERR and the default message.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/errors.js#L980-L989>
/// MODEL: the `cause` (the signal's reason) is not readable in scenarios.
pub(crate) fn abort_error(rt: &mut Runtime<Model>) -> Value {
    rt.node_error("AbortError", "ABORT_ERR", "The operation was aborted")
}

/// The `signal` option of `events.once` and `events.on`, as both read it:
/// `validateAbortSignal(signal, 'options.signal')`
/// (<https://github.com/nodejs/node/blob/v26.12.1/lib/internal/validators.js#L454-L461>:
/// undefined, or an object with `aborted`, which of the values a scenario
/// makes only an AbortSignal has), then `if (signal?.aborted) throw new
/// AbortError(undefined, { cause: signal.reason })`. The signal, if any.
pub(crate) fn signal_option(
    rt: &mut Runtime<Model>,
    signal: &Value,
) -> Result<Option<ObjectId>, Value> {
    let signal_id = match signal {
        Value::Undefined => None,
        Value::Object(id) if rt.lib.signals.contains_key(id) => Some(*id),
        other => return Err(rt.err_invalid_arg_type("options.signal", "AbortSignal", other)),
    };
    if let Some(s) = signal_id {
        if abort::aborted(rt, s) {
            let _cause = abort::reason(rt, s);
            return Err(abort_error(rt));
        }
    }
    Ok(signal_id)
}

/// The executor's scope of `events.once`, which its three closures share
/// (one V8 context): the slots, in this order.
const ONCE_EMITTER: usize = 0;
const ONCE_NAME: usize = 1;
const ONCE_SIGNAL: usize = 2;
const ONCE_RESOLVE: usize = 3;
const ONCE_REJECT: usize = 4;
const ONCE_ERROR_LISTENER: usize = 5;
const ONCE_RESOLVER: usize = 6;
const ONCE_ABORT_LISTENER: usize = 7;

/// A value of the shared scope.
fn slot(scope: &RefCell<Vec<Value>>, at: usize) -> Value {
    scope.borrow()[at].clone()
}

/// Calls the scope's `resolve` or `reject` with one argument.
fn call_slot(
    rt: &mut Runtime<Model>,
    scope: &RefCell<Vec<Value>>,
    at: usize,
    argument: Value,
) -> Completion {
    match slot(scope, at) {
        Value::Object(f) => rt.call_function(f, Value::Undefined, &[argument])?,
        _ => unreachable!("the scope holds its resolving functions"),
    };
    Ok(Value::Undefined)
}

/// The signal of the scope, if `signal != null`.
fn scope_signal(scope: &RefCell<Vec<Value>>) -> Option<ObjectId> {
    slot(scope, ONCE_SIGNAL).as_object()
}

/// `events.once(emitter, name, options)`: "Creates a Promise that is
/// fulfilled when the EventEmitter emits the given event or that is
/// rejected if the EventEmitter emits 'error' while waiting. The Promise
/// will resolve with an array of all the arguments emitted to the given
/// event."
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L1001-L1043>
/// an `async function`: what its body throws rejects its promise, and its
/// `return new Promise(...)` resolves its promise with that promise (a
/// thenable: two jobs more before a reaction to it runs).
pub fn once(
    rt: &mut Runtime<Model>,
    emitter: Value,
    name: Value,
    signal: Option<Value>,
) -> Completion {
    let promise = rt.new_promise();
    let held = [Value::Object(promise)];
    let body = rt.holding(&held, |rt| once_body(rt, emitter, name, signal));
    match body {
        Ok(inner) => rt.resolve_promise_with(promise, inner),
        Err(error) => rt.reject_promise(promise, error),
    }
    Ok(Value::Object(promise))
}

/// The body of the async function `once`.
fn once_body(
    rt: &mut Runtime<Model>,
    emitter: Value,
    name: Value,
    signal: Option<Value>,
) -> Completion {
    // L1001: `options = kEmptyObject`; L1002: `validateObject(options,
    // 'options')` holds for `{ signal }` and for kEmptyObject alike.
    // L1003: `const { signal } = options;`
    let signal = signal.unwrap_or(Value::Undefined);
    // L1004-L1006: `validateAbortSignal(signal, 'options.signal')`, then
    // the AbortError of an aborted signal.
    let signal_id = signal_option(rt, &signal)?;
    // L1007: `return new Promise((resolve, reject) => { ... })`.
    let inner = rt.new_promise();
    let (resolve, reject) = rt.create_resolving_functions(inner);
    let scope = Rc::new(RefCell::new(vec![
        emitter,
        name,
        signal,
        Value::Object(resolve),
        Value::Object(reject),
        Value::Undefined,
        Value::Undefined,
        Value::Undefined,
    ]));
    let captures = || Captures::Lists {
        values: Vec::new(),
        lists: vec![Rc::clone(&scope)],
    };
    // L1008-L1014: `const errorListener = (err) => { ... }`.
    let own = Rc::clone(&scope);
    let error_listener = rt.native_function_capturing(captures(), move |rt, _this, args| {
        let err = args.first().cloned().unwrap_or(Value::Undefined);
        // L1009: `emitter.removeListener(name, resolver);`
        remove_listener(
            rt,
            slot(&own, ONCE_EMITTER),
            slot(&own, ONCE_NAME),
            slot(&own, ONCE_RESOLVER),
        )?;
        // L1010-L1012: `if (signal != null)
        // eventTargetAgnosticRemoveListener(signal, 'abort', abortListener);`
        remove_abort_listener(rt, &own);
        // L1013: `reject(err);`
        call_slot(rt, &own, ONCE_REJECT, err)
    });
    // L1015-L1023: `const resolver = (...args) => { ... }`.
    let own = Rc::clone(&scope);
    let resolver = rt.native_function_capturing(captures(), move |rt, _this, args| {
        // L1016-L1018: `if (typeof emitter.removeListener === 'function')
        // emitter.removeListener('error', errorListener);` (an emitter has
        // the method).
        remove_listener(
            rt,
            slot(&own, ONCE_EMITTER),
            Value::string("error"),
            slot(&own, ONCE_ERROR_LISTENER),
        )?;
        // L1019-L1021
        remove_abort_listener(rt, &own);
        // L1022: `resolve(args);`
        let array = rt.create_array_from_list(args.to_vec());
        call_slot(rt, &own, ONCE_RESOLVE, array)
    });
    // L1033-L1037: `function abortListener() { ... }`.
    let own = Rc::clone(&scope);
    let abort_listener = rt.native_function_capturing(captures(), move |rt, _this, _args| {
        // L1034: `eventTargetAgnosticRemoveListener(emitter, name, resolver);`
        // (L1049-L1057: the emitter's `removeListener`).
        remove_listener(
            rt,
            slot(&own, ONCE_EMITTER),
            slot(&own, ONCE_NAME),
            slot(&own, ONCE_RESOLVER),
        )?;
        // L1035: `eventTargetAgnosticRemoveListener(emitter, 'error',
        // errorListener);`
        remove_listener(
            rt,
            slot(&own, ONCE_EMITTER),
            Value::string("error"),
            slot(&own, ONCE_ERROR_LISTENER),
        )?;
        // L1036: `reject(new AbortError(undefined, { cause: signal?.reason }));`
        if let Some(s) = scope_signal(&own) {
            let _cause = abort::reason(rt, s);
        }
        let error = abort_error(rt);
        call_slot(rt, &own, ONCE_REJECT, error)
    });
    {
        let mut scope = scope.borrow_mut();
        scope[ONCE_ERROR_LISTENER] = Value::Object(error_listener);
        scope[ONCE_RESOLVER] = Value::Object(resolver);
        scope[ONCE_ABORT_LISTENER] = Value::Object(abort_listener);
    }
    let held = [
        Value::Object(inner),
        Value::Object(error_listener),
        Value::Object(resolver),
        Value::Object(abort_listener),
    ];
    // ECMA-262 27.2.3.1 Promise(executor) steps 9-10: what the executor
    // throws rejects the promise.
    let executed = rt.holding(&held, |rt| once_executor(rt, &scope, signal_id));
    if let Err(error) = executed {
        rt.call_function(reject, Value::Undefined, &[error])?;
    }
    Ok(Value::Object(inner))
}

/// The executor of `once`'s promise, after its closures are made.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L1025-L1041>
fn once_executor(
    rt: &mut Runtime<Model>,
    scope: &RefCell<Vec<Value>>,
    signal: Option<ObjectId>,
) -> Result<(), Value> {
    let emitter = slot(scope, ONCE_EMITTER);
    let name = slot(scope, ONCE_NAME);
    // L1027: `eventTargetAgnosticAddListener(emitter, name, resolver, opts)`
    // with `opts.once`: L1059-L1063, `emitter.once(name, listener)` when
    // `typeof emitter.on === 'function'`.
    match &emitter {
        Value::Object(id) if rt.lib.emitters.contains_key(id) => {}
        Value::Undefined | Value::Null => return Err(rt.cannot_read_properties(&emitter, "on")),
        // L1066-L1070: an object without `on` or `addEventListener`.
        // MODEL: an EventTarget would take the `addEventListener` path of
        // L1066-L1067, which the parser's kinds rule out (only emitters).
        other => return Err(rt.err_invalid_arg_type("emitter", "EventEmitter", other)),
    }
    add_listener(
        rt,
        emitter.clone(),
        name.clone(),
        slot(scope, ONCE_RESOLVER),
        false,
        true,
    )?;
    // L1028-L1032: `if (name !== 'error' && typeof emitter.once ===
    // 'function') emitter.once('error', errorListener);`
    if !matches!(&name, Value::String(s) if &**s == "error") {
        add_listener(
            rt,
            emitter,
            Value::string("error"),
            slot(scope, ONCE_ERROR_LISTENER),
            false,
            true,
        )?;
    }
    // L1038-L1041: `if (signal != null) eventTargetAgnosticAddListener(signal,
    // 'abort', abortListener, { once: true, [kResistStopPropagation]: true })`:
    // a signal has no `on`, so `signal.addEventListener(...)`.
    if let (Some(s), Value::Object(f)) = (signal, slot(scope, ONCE_ABORT_LISTENER)) {
        crate::event_target::add_an_event_listener(
            rt,
            s,
            "abort",
            f,
            crate::event_target::ListenerOptions {
                once: true,
                resist_stop_propagation: true,
                ..crate::event_target::ListenerOptions::default()
            },
        )?;
    }
    Ok(())
}

/// `if (signal != null) eventTargetAgnosticRemoveListener(signal, 'abort',
/// abortListener)`: L1049-L1053, a signal has no `removeListener`, so
/// `signal.removeEventListener('abort', abortListener, undefined)`.
fn remove_abort_listener(rt: &mut Runtime<Model>, scope: &RefCell<Vec<Value>>) {
    if let (Some(s), Value::Object(f)) = (scope_signal(scope), slot(scope, ONCE_ABORT_LISTENER)) {
        crate::event_target::remove_an_event_listener(rt, s, "abort", f, false);
    }
}
