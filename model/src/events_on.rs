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
use nodesem_runtime::{Completion, ObjectData, ObjectId, Runtime, Value};

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
    /// `paused`. It becomes true only past `highWaterMark`, whose default
    /// (`Number.MAX_SAFE_INTEGER`, L1093) no queue reaches, so it stays
    /// false and `emitter.pause()`/`resume()` are never called.
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
    /// The function declarations `errorHandler` and `abortListener`,
    /// which the context holds.
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

/// `new AbortError(undefined, { cause })`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/errors.js#L980-L989>
/// MODEL: the `cause` (the signal's reason) is not readable in scenarios.
fn abort_error(rt: &mut Runtime<Model>) -> Value {
    rt.node_error("AbortError", "ABORT_ERR", "The operation was aborted")
}

/// `createIterResult(value, done)`: `{ done, value }`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L1045-L1047>
fn create_iter_result(rt: &mut Runtime<Model>, value: Value, done: bool) -> Value {
    rt.create_iter_result(value, done)
}

/// `events.on(emitter, event, { signal })`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L1085-L1240>
pub fn on(
    rt: &mut Runtime<Model>,
    emitter: Value,
    event: Value,
    signal: Option<Value>,
) -> Completion {
    // L1087: `validateObject(options, 'options')` holds for `{ signal }` and
    // for kEmptyObject alike. L1088: `const signal = options.signal;`
    let signal = signal.unwrap_or(Value::Undefined);
    // L1089: `validateAbortSignal(signal, 'options.signal')`
    // (lib/internal/validators.js#L454-L461): undefined, or an object with
    // `aborted`, which of the values a scenario makes only an AbortSignal
    // has.
    let signal_id = match &signal {
        Value::Undefined => None,
        Value::Object(id) if rt.lib.signals.contains_key(id) => Some(*id),
        other => return Err(rt.err_invalid_arg_type("options.signal", "AbortSignal", other)),
    };
    // L1090-L1091: `if (signal?.aborted) throw new AbortError(undefined,
    // { cause: signal.reason });`
    if let Some(s) = signal_id {
        if abort::aborted(rt, s) {
            let _cause = abort::reason(rt, s);
            return Err(abort_error(rt));
        }
    }
    // L1093-L1097: the watermarks take their defaults
    // (`Number.MAX_SAFE_INTEGER` and 1), which validateInteger accepts.
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
            paused: false,
            error: Value::Null,
            finished: false,
            size: 0,
            listeners: Vec::new(),
            abort_listener_disposable: None,
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
    scope_mut(rt, scope).functions = vec![error_listener, abort_listener];
    let held = [
        Value::Object(iterator),
        Value::Object(scope),
        Value::Object(listener),
    ];
    rt.holding(&held, |rt| {
        // L1189: `addEventListener(emitter, event, ...)`.
        controller_add(rt, scope, emitter.clone(), event.clone(), listener)?;
        // L1192-L1194: `if (event !== 'error' && typeof emitter.on ===
        // 'function') addEventListener(emitter, 'error', errorHandler);`
        if !matches!(&event, Value::String(s) if &**s == "error") {
            controller_add(rt, scope, emitter, Value::string("error"), error_listener)?;
        }
        // L1195-L1200: no `close` option.
        // L1202: `const abortListenerDisposable = signal ?
        // addAbortListener(signal, abortListener) : null;`
        if let Some(s) = signal_id {
            let disposable = abort_listener::add_abort_listener(rt, s, abort_listener);
            scope_mut(rt, scope).abort_listener_disposable = Some(disposable);
        }
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
            // L1212-L1216: `size++`; the high watermark is never passed.
            s.size += 1;
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
    // L1229: `abortListenerDisposable?.[SymbolDispose]();`
    if let Some(disposable) = scope_ref(rt, scope).abort_listener_disposable {
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
        rt.call_function(resolve, Value::Undefined, std::slice::from_ref(&done_result))?;
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
        // L1112-L1113
        let value = s
            .unconsumed_events
            .pop_front()
            .expect("size counts the queue");
        s.size -= 1;
        // L1114-L1117: never paused (see `OnScope::paused`).
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
