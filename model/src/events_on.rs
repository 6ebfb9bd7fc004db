//! `events.on(emitter, name, options)`: an async iterator of an
//! EventEmitter's events, transcribed from Node 26.12.1's `lib/events.js`.
//!
//! The documentation: "Returns an `AsyncIterator` that iterates
//! `eventName` events. It will throw if the `EventEmitter` emits
//! `'error'`. It removes all listeners when exiting the loop."
//! <https://nodejs.org/docs/latest-v26.x/api/events.html#eventsonemitter-eventname-options>
//!
//! What only the source decides (the queues, when a `next()` promise is
//! made already settled and when it waits, that a second `'error'` is
//! lost, the order in which `return()` removes the listeners) is written
//! here step by step, with the lines cited. `on` is a plain function: what
//! it validates throws at the call, not into a promise.
//!
//! The variables of `on`'s scope that its closures share (V8 allocates them
//! in one context) are a hidden host object, the *scope* ([`OnScope`]):
//! the listener functions `on` adds hold it, and so does the iterator (its
//! methods are closures of that scope); the scope does not hold the
//! iterator, which no closure reads.

use std::collections::VecDeque;

use nodesem_runtime::gc::Captures;
use nodesem_runtime::{Completion, EventsOnOptions, ObjectData, ObjectId, Runtime, Value};

use crate::{abort, abort_listener, emitter, Model};

/// The context of one `events.on` call.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L1099-L1106>
#[derive(Debug)]
pub struct OnScope {
    /// `emitter`.
    emitter: Value,
    /// `event`.
    event: Value,
    /// `signal` (`options.signal`): undefined or an AbortSignal.
    signal: Value,
    /// `unconsumedEvents`: the argument arrays of emits no `next()` took.
    unconsumed_events: VecDeque<Value>,
    /// `unconsumedPromises`: the `{ resolve, reject }` of `next()` calls
    /// that wait.
    unconsumed_promises: VecDeque<(ObjectId, ObjectId)>,
    /// `highWatermark` (L1093).
    high_watermark: f64,
    /// `lowWatermark` (L1096).
    low_watermark: f64,
    /// `paused`: set past `highWatermark`, just before `emitter.pause()`,
    /// which an EventEmitter does not have (the call throws and the flag
    /// stays).
    paused: bool,
    /// `error`, `null` at first (L1104).
    error: Value,
    /// `finished`.
    finished: bool,
    /// `size`: the length of `unconsumedEvents`.
    size: usize,
    /// The `listeners` array of `listenersController()` (L1242-L1256):
    /// `[emitter, event, handler]` in the order they were added.
    listeners: Vec<(Value, Value, ObjectId)>,
    /// `abortListenerDisposable` (L1202): `null` without a signal.
    abort_listener_disposable: Option<ObjectId>,
    /// Whether L1202 has run: before, the `const` is in its temporal dead
    /// zone, and a `closeHandler` that a listener of the emitter runs
    /// while `on` adds its listeners (a 'newListener' listener that emits
    /// 'error' or a `close` name) throws V8's ReferenceError.
    abort_listener_disposable_initialized: bool,
    /// The function declarations `errorHandler`, `abortListener` and
    /// `closeHandler`, which the context holds.
    functions: Vec<ObjectId>,
}

impl OnScope {
    /// The values the context holds, for the collector.
    fn trace(&self, edges: &mut Vec<Value>) {
        edges.push(self.emitter.clone());
        edges.push(self.event.clone());
        edges.push(self.signal.clone());
        edges.push(self.error.clone());
        edges.extend(self.unconsumed_events.iter().cloned());
        for (resolve, reject) in &self.unconsumed_promises {
            edges.push(Value::Object(*resolve));
            edges.push(Value::Object(*reject));
        }
        for (emitter, event, handler) in &self.listeners {
            edges.push(emitter.clone());
            edges.push(event.clone());
            edges.push(Value::Object(*handler));
        }
        edges.extend(self.abort_listener_disposable.map(Value::Object));
        edges.extend(self.functions.iter().map(|f| Value::Object(*f)));
    }
}

fn scope_mut(rt: &mut Runtime<Model>, scope: ObjectId) -> &mut OnScope {
    rt.lib
        .on_scopes
        .get_mut(&scope)
        .expect("a live events.on scope")
}

fn scope_ref(rt: &Runtime<Model>, scope: ObjectId) -> &OnScope {
    rt.lib
        .on_scopes
        .get(&scope)
        .expect("a live events.on scope")
}

use crate::emitter::abort_error;

/// `createIterResult(value, done)`: `{ done, value }`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L1045-L1047>
fn create_iter_result(rt: &mut Runtime<Model>, value: Value, done: bool) -> Value {
    rt.create_iter_result(value, done)
}

/// `events.on(emitter, event, options)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L1085-L1240>
pub fn on(
    rt: &mut Runtime<Model>,
    emitter: Value,
    event: Value,
    options: EventsOnOptions,
) -> Completion {
    // L1087: `validateObject(options, 'options')` holds for the object a
    // scenario writes and for kEmptyObject alike.
    // L1088: `const signal = options.signal;`
    let signal = options.signal.unwrap_or(Value::Undefined);
    // L1089-L1091: `validateAbortSignal(signal, 'options.signal')`, then
    // the AbortError of an aborted signal.
    let signal_id = crate::emitter::signal_option(rt, &signal)?;
    // L1093: `options.highWaterMark ?? options.highWatermark ??
    // NumberMAX_SAFE_INTEGER` (no scenario writes the old spelling), then
    // L1094: `validateInteger(highWatermark, 'options.highWaterMark', 1)`.
    let high_watermark = watermark(
        rt,
        options.high_water_mark,
        MAX_SAFE_INTEGER,
        "options.highWaterMark",
    )?;
    // L1096-L1097: the same for the low watermark, 1 by default.
    let low_watermark = watermark(rt, options.low_water_mark, 1.0, "options.lowWaterMark")?;
    // L1100-L1106: the queues and variables.
    let scope = rt.heap.alloc(ObjectData::Host);
    rt.lib.on_scopes.insert(
        scope,
        OnScope {
            emitter: emitter.clone(),
            event: event.clone(),
            signal,
            unconsumed_events: VecDeque::new(),
            unconsumed_promises: VecDeque::new(),
            high_watermark,
            low_watermark,
            paused: false,
            error: Value::Null,
            finished: false,
            size: 0,
            listeners: Vec::new(),
            abort_listener_disposable: None,
            abort_listener_disposable_initialized: false,
            functions: Vec::new(),
        },
    );
    // L1108-L1184: `const iterator = ObjectSetPrototypeOf({ next() {...},
    // return() {...}, throw(err) {...}, ... }, AsyncIteratorPrototype)`.
    let iterator = rt.heap.alloc(ObjectData::Host);
    rt.lib.on_iterators.insert(iterator, scope);
    // L1189-L1191: the listener of `event`, `function(...args) { return
    // eventHandler(args); }` (no kFirstEventParam option).
    let listener = rt.native_function_capturing(Captures::objects(&[scope]), move |rt, _, args| {
        let args = rt.create_array_from_list(args.to_vec());
        event_handler(rt, scope, args)?;
        Ok(Value::Undefined)
    });
    // L1221-L1226: `function errorHandler(err)`.
    let error_listener =
        rt.native_function_capturing(Captures::objects(&[scope]), move |rt, _, args| {
            let err = args.first().cloned().unwrap_or(Value::Undefined);
            error_handler(rt, scope, err)?;
            Ok(Value::Undefined)
        });
    // L1206-L1208: `function abortListener() { errorHandler(new
    // AbortError(undefined, { cause: signal?.reason })); }`.
    let abort_listener =
        rt.native_function_capturing(Captures::objects(&[scope]), move |rt, _, _| {
            if let Some(s) = scope_ref(rt, scope).signal.as_object() {
                let _cause = abort::reason(rt, s);
            }
            let error = abort_error(rt);
            error_handler(rt, scope, error)?;
            Ok(Value::Undefined)
        });
    // L1228-L1239: `function closeHandler()`, a listener of the `close`
    // events, whose result (a promise) the emit gives to `addCatch`.
    let close_listener = rt
        .native_function_capturing(Captures::objects(&[scope]), move |rt, _, _| {
            close_handler(rt, scope)
        });
    scope_mut(rt, scope).functions = vec![error_listener, abort_listener, close_listener];
    let held = [
        Value::Object(iterator),
        Value::Object(scope),
        Value::Object(listener),
    ];
    rt.holding(&held, |rt| {
        // L1189: `addEventListener(emitter, event, ...)`.
        let emitter_value = emitter.clone();
        controller_add(rt, scope, emitter.clone(), event.clone(), listener)?;
        // L1192-L1194: `if (event !== 'error' && typeof emitter.on ===
        // 'function') addEventListener(emitter, 'error', errorHandler);`
        if !matches!(&event, Value::String(s) if &**s == "error") {
            controller_add(rt, scope, emitter, Value::string("error"), error_listener)?;
        }
        // L1195-L1200: `const closeEvents = options?.close; if
        // (closeEvents?.length) for (...) addEventListener(emitter,
        // closeEvents[i], closeHandler);` (a scenario's `close` is one name).
        if let Some(close) = options.close {
            controller_add(rt, scope, emitter_value.clone(), close, close_listener)?;
        }
        // L1202: `const abortListenerDisposable = signal ?
        // addAbortListener(signal, abortListener) : null;`
        let disposable =
            signal_id.map(|s| abort_listener::add_abort_listener(rt, s, abort_listener));
        let s = scope_mut(rt, scope);
        s.abort_listener_disposable = disposable;
        s.abort_listener_disposable_initialized = true;
        // L1204: `return iterator;`
        Ok(Value::Object(iterator))
    })
}

/// `addEventListener(emitter, event, handler)` of `listenersController()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L1246-L1249>
/// `eventTargetAgnosticAddListener(...)` (L1059-L1071: an emitter's `on`),
/// then the entry is pushed, so a listener whose `on` threw is not listed.
fn controller_add(
    rt: &mut Runtime<Model>,
    scope: ObjectId,
    emitter: Value,
    event: Value,
    handler: ObjectId,
) -> Result<(), Value> {
    match &emitter {
        Value::Object(id) if rt.lib.emitters.contains_key(id) => {}
        // L1060: `typeof emitter.on` of undefined or null.
        Value::Undefined | Value::Null => return Err(rt.cannot_read_properties(&emitter, "on")),
        // L1068-L1070. MODEL: an EventTarget would take the
        // `addEventListener` path, which the parser's kinds rule out.
        other => return Err(rt.err_invalid_arg_type("emitter", "EventEmitter", other)),
    }
    emitter::add_listener(
        rt,
        emitter.clone(),
        event.clone(),
        Value::Object(handler),
        false,
        false,
    )?;
    scope_mut(rt, scope)
        .listeners
        .push((emitter, event, handler));
    Ok(())
}

/// `function eventHandler(value)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L1210-L1219>
fn event_handler(rt: &mut Runtime<Model>, scope: ObjectId, value: Value) -> Result<(), Value> {
    let s = scope_mut(rt, scope);
    // L1211: `if (unconsumedPromises.isEmpty())`
    match s.unconsumed_promises.pop_front() {
        None => {
            // L1212: `size++;`
            s.size += 1;
            // L1213-L1216: `if (!paused && size > highWatermark) { paused =
            // true; emitter.pause(); }`: an EventEmitter has no `pause`, so
            // the call throws, before the push.
            if !s.paused && s.size as f64 > s.high_watermark {
                s.paused = true;
                return Err(no_method(rt, "pause"));
            }
            // L1217: `unconsumedEvents.push(value);`
            s.unconsumed_events.push_back(value);
            Ok(())
        }
        // L1218: `unconsumedPromises.shift().resolve(createIterResult(value,
        // false));`
        Some((resolve, _)) => {
            let result = create_iter_result(rt, value, false);
            rt.call_function(resolve, Value::Undefined, &[result])?;
            Ok(())
        }
    }
}

/// `function errorHandler(err)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L1221-L1226>
fn error_handler(rt: &mut Runtime<Model>, scope: ObjectId, err: Value) -> Result<(), Value> {
    let s = scope_mut(rt, scope);
    match s.unconsumed_promises.pop_front() {
        // L1222: `if (unconsumedPromises.isEmpty()) error = err;`
        None => s.error = err,
        // L1223: `else unconsumedPromises.shift().reject(err);`
        Some((_, reject)) => {
            rt.call_function(reject, Value::Undefined, &[err])?;
        }
    }
    // L1225: `closeHandler();`
    close_handler(rt, scope)?;
    Ok(())
}

/// `function closeHandler()`: a promise of `{ value: undefined, done: true }`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L1228-L1239>
fn close_handler(rt: &mut Runtime<Model>, scope: ObjectId) -> Completion {
    // L1229: `abortListenerDisposable?.[SymbolDispose]();`, a read of the
    // `const` that throws before L1202 initialized it.
    let s = scope_ref(rt, scope);
    if !s.abort_listener_disposable_initialized {
        return Err(rt.new_error(
            "ReferenceError",
            "Cannot access 'abortListenerDisposable' before initialization",
        ));
    }
    if let Some(disposable) = s.abort_listener_disposable {
        abort_listener::dispose(rt, disposable);
    }
    // L1230: `removeAll();` (L1250-L1254): the entries are popped, the last
    // added first, each removed with `eventTargetAgnosticRemoveListener`
    // (L1049-L1057: the emitter's `removeListener`, which emits
    // 'removeListener'); an exception leaves the rest listed.
    while let Some((emitter, event, handler)) = scope_mut(rt, scope).listeners.pop() {
        let held = [emitter.clone(), event.clone(), Value::Object(handler)];
        rt.holding(&held, |rt| {
            emitter::remove_listener(rt, emitter.clone(), event.clone(), Value::Object(handler))
        })?;
    }
    // L1231-L1232
    let s = scope_mut(rt, scope);
    s.finished = true;
    s.paused = false;
    // L1233: one `doneResult` for every waiting promise and the result.
    let done_result = create_iter_result(rt, Value::Undefined, true);
    // L1234-L1236: every waiting `next()` resolves to it.
    while let Some((resolve, _)) = scope_mut(rt, scope).unconsumed_promises.pop_front() {
        rt.call_function(
            resolve,
            Value::Undefined,
            std::slice::from_ref(&done_result),
        )?;
    }
    // L1238: `return PromiseResolve(doneResult);`
    Ok(Value::Object(rt.promise_resolve(done_result)))
}

/// The scope of an `events.on` iterator, or the TypeError of `method` on
/// anything else.
fn iterator_scope(
    rt: &mut Runtime<Model>,
    iterator: Value,
    method: &str,
) -> Result<ObjectId, Value> {
    match iterator {
        Value::Object(id) if rt.lib.on_iterators.contains_key(&id) => Ok(rt.lib.on_iterators[&id]),
        other => Err(crate::cannot_read(rt, &other, method)),
    }
}

/// `iterator.next()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L1109-L1138>
pub fn next(rt: &mut Runtime<Model>, iterator: Value) -> Completion {
    let scope = iterator_scope(rt, iterator, "next")?;
    let s = scope_mut(rt, scope);
    // L1111: `if (size)`: "First, we consume all unread events".
    if s.size > 0 {
        // L1112: `unconsumedEvents.shift()`: a FixedQueue gives null when
        // it is empty (lib/internal/fixed_queue.js#L81-L88), which it is
        // when `size` counted an event that a throwing `pause()` kept out.
        let value = s.unconsumed_events.pop_front().unwrap_or(Value::Null);
        // L1113: `size--;`
        s.size -= 1;
        // L1114-L1117: `if (paused && size < lowWatermark) {
        // emitter.resume(); paused = false; }`: no `resume` either.
        if s.paused && (s.size as f64) < s.low_watermark {
            return Err(no_method(rt, "resume"));
        }
        // L1118: `return PromiseResolve(createIterResult(value, false));`
        let result = create_iter_result(rt, value, false);
        return Ok(Value::Object(rt.promise_resolve(result)));
    }
    // L1124: `if (error)`: a truthy error, once.
    if s.error.to_boolean() {
        let error = std::mem::replace(&mut s.error, Value::Null);
        // L1125: `const p = PromiseReject(error);` L1127: `error = null;`
        return Ok(Value::Object(rt.promise_reject_new(error)));
    }
    // L1132: `if (finished) return closeHandler();`
    if s.finished {
        return close_handler(rt, scope);
    }
    // L1135-L1137: `return new Promise(function(resolve, reject) {
    // unconsumedPromises.push({ resolve, reject }); });`
    let promise = rt.new_promise();
    let (resolve, reject) = rt.create_resolving_functions(promise);
    scope_mut(rt, scope)
        .unconsumed_promises
        .push_back((resolve, reject));
    Ok(Value::Object(promise))
}

/// `iterator.return()`: `return closeHandler();`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L1140-L1142>
pub fn iterator_return(rt: &mut Runtime<Model>, iterator: Value) -> Completion {
    let scope = iterator_scope(rt, iterator, "return")?;
    let held = [Value::Object(scope)];
    rt.holding(&held, |rt| close_handler(rt, scope))
}

/// `iterator.throw(err)`: undefined.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L1144-L1150>
/// `if (!err || !(err instanceof Error)) throw new
/// ERR_INVALID_ARG_TYPE('EventEmitter.AsyncIterator', 'Error', err);
/// errorHandler(err);`
pub fn iterator_throw(rt: &mut Runtime<Model>, iterator: Value, err: Value) -> Completion {
    let scope = iterator_scope(rt, iterator, "throw")?;
    let is_error =
        matches!(&err, Value::Object(id) if matches!(rt.heap.get(*id), ObjectData::Error { .. }));
    if !err.to_boolean() || !is_error {
        return Err(rt.err_invalid_arg_type("EventEmitter.AsyncIterator", "Error", &err));
    }
    let held = [Value::Object(scope), err.clone()];
    rt.holding(&held, |rt| error_handler(rt, scope, err.clone()))?;
    Ok(Value::Undefined)
}

/// `Number.MAX_SAFE_INTEGER`.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A watermark option: its default for undefined or null (`??`), else
/// `validateInteger(value, name, 1)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/validators.js#L97-L106>
fn watermark(
    rt: &mut Runtime<Model>,
    value: Option<Value>,
    default: f64,
    name: &str,
) -> Result<f64, Value> {
    let n = match value {
        None | Some(Value::Undefined | Value::Null) => default,
        Some(Value::Number(n)) => n,
        // L99-L100: `typeof value !== 'number'`.
        Some(other) => return Err(rt.err_invalid_arg_type(name, "number", &other)),
    };
    // L101-L102: `NumberIsInteger(value)`.
    if !n.is_finite() || n.fract() != 0.0 {
        return Err(rt.err_out_of_range(name, "an integer", n));
    }
    // L103-L104: `value < min || value > max`.
    if !(1.0..=MAX_SAFE_INTEGER).contains(&n) {
        return Err(rt.err_out_of_range(name, ">= 1 && <= 9007199254740991", n));
    }
    Ok(n)
}

/// V8's TypeError for `emitter.pause()` or `emitter.resume()` on an
/// EventEmitter, which has neither.
fn no_method(rt: &mut Runtime<Model>, method: &str) -> Value {
    rt.new_error("TypeError", &format!("emitter.{method} is not a function"))
}

/// The strong edges of an `events.on` iterator (its scope, which its
/// methods close over) and of a scope (what its context holds).
pub(crate) fn trace(rt: &Runtime<Model>, obj: ObjectId, edges: &mut Vec<Value>) {
    if let Some(scope) = rt.lib.on_iterators.get(&obj) {
        edges.push(Value::Object(*scope));
    }
    if let Some(scope) = rt.lib.on_scopes.get(&obj) {
        scope.trace(edges);
    }
}

/// Forgets a collected iterator or scope.
pub(crate) fn forget(rt: &mut Runtime<Model>, obj: &ObjectId) {
    rt.lib.on_iterators.remove(obj);
    rt.lib.on_scopes.remove(obj);
}
