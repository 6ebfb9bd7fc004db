//! `events.on` and `captureRejections`, built as Node 26.12.1's
//! `lib/events.js` builds them.
//!
//! `events.on`'s closures share one context; here it is a record
//! ([`OnState`]) behind a hidden host object ([`Slot::OnState`]) that the
//! iterator, the listener wrapper, `errorHandler` and `abortListener` hold.
//! The two FixedQueues are `VecDeque`s (`size` is the events queue's
//! length); the watermarks keep their defaults, so `paused` is never set.
//!
//! `captureRejections` is the emitter's `kCapture` property and
//! `Symbol.for('nodejs.rejection')` an own method; both live beside the
//! emitter's `_events` layout, in [`EmitterExtras`], since only an emit
//! whose listener returned something reads them.

use std::collections::VecDeque;

use nodesem_runtime::{Captures, Completion, EventsOnOptions, ObjectData, ObjectId, Task, Value};

use crate::{Rt, Slot};

/// The per-emitter properties outside `_events`: `kCapture` and
/// `kRejection`.
#[derive(Clone, Debug, Default)]
pub(crate) struct EmitterExtras {
    /// `this[kCapture]`.
    capture: bool,
    /// `this[kRejection]`, if it was set.
    rejection: Option<Value>,
}

/// The context of one `events.on(emitter, event, options)` call.
#[derive(Debug)]
pub(crate) struct OnState {
    /// The hidden object standing for the context.
    hidden: ObjectId,
    emitter: Value,
    event: Value,
    signal: Value,
    unconsumed_events: VecDeque<Value>,
    unconsumed_promises: VecDeque<(ObjectId, ObjectId)>,
    error: Value,
    finished: bool,
    /// `size`, which a throwing `pause()` leaves one past the queue.
    size: usize,
    high: f64,
    low: f64,
    paused: bool,
    /// `listenersController()`'s `[emitter, event, handler]` entries.
    listeners: Vec<(Value, Value, ObjectId)>,
    disposable: Option<Value>,
    /// `abortListenerDisposable` is a `const` declared after the listeners
    /// are added: until then, a `closeHandler` run by a listener throws.
    disposable_declared: bool,
    error_handler: Option<ObjectId>,
    abort_listener: Option<ObjectId>,
    close_handler: Option<ObjectId>,
}

fn extras(rt: &mut Rt, e: u32) -> &mut EmitterExtras {
    let all = &mut rt.lib.emitter_extras;
    if all.len() <= e as usize {
        all.resize(e as usize + 1, EmitterExtras::default());
    }
    &mut all[e as usize]
}

fn emitter_index(rt: &Rt, value: &Value) -> Option<u32> {
    match value.as_object().map(|o| rt.lib.slot(o)) {
        Some(Slot::Emitter(e)) => Some(e),
        _ => None,
    }
}

/// `new EventEmitter({ captureRejections: true })`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L346-L348>
pub(crate) fn new_capturing_emitter(rt: &mut Rt) -> Completion {
    let emitter = crate::emitter::new_emitter(rt)?;
    let e = emitter_index(rt, &emitter).expect("a new emitter");
    extras(rt, e).capture = true;
    Ok(emitter)
}

/// `E[Symbol.for('nodejs.rejection')] = F`.
pub(crate) fn set_rejection(rt: &mut Rt, emitter: &Value, function: Value) -> Result<(), Value> {
    match emitter_index(rt, emitter) {
        Some(e) => {
            extras(rt, e).rejection = Some(function);
            Ok(())
        }
        None if matches!(emitter, Value::Undefined | Value::Null) => {
            let shown = rt.fmt(emitter);
            Err(rt.new_error(
                "TypeError",
                &format!("Cannot set properties of {shown} (setting 'Symbol(nodejs.rejection)')"),
            ))
        }
        None => Ok(()),
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L356-L376>
/// `addCatch(that, promise, type, args)`, for a listener's result that is
/// neither undefined nor null: nothing unless `kCapture`; else
/// `promise.then(undefined, err => process.nextTick(
/// emitUnhandledRejectionOrErr, that, err, type, args))`, and what getting
/// or calling `then` throws is emitted as 'error' at once.
#[cold]
pub(crate) fn add_catch(
    rt: &mut Rt,
    this: &Value,
    result: &Value,
    ty: &Value,
    args: &[Value],
) -> Result<(), Value> {
    let (Some(e), Value::Object(that)) = (emitter_index(rt, this), this.clone()) else {
        return Ok(());
    };
    if !rt
        .lib
        .emitter_extras
        .get(e as usize)
        .is_some_and(|x| x.capture)
    {
        return Ok(());
    }
    let Value::Object(p) = *result else {
        return Ok(());
    };
    let thenable = match rt.heap.get(p) {
        ObjectData::Promise(_) => None,
        ObjectData::Thenable { then, .. } => Some(*then),
        _ => return Ok(()),
    };
    let args = rt.create_array_from_list(args.to_vec());
    let ty = ty.clone();
    let captures = Captures::values(vec![Value::Object(that), ty.clone(), args.clone()]);
    let on_rejected = rt.native_function_capturing(captures, move |rt, _, a| {
        let err = a.first().cloned().unwrap_or(Value::Undefined);
        let (ty, args) = (ty.clone(), args.clone());
        let captures = Captures::values(vec![
            Value::Object(that),
            err.clone(),
            ty.clone(),
            args.clone(),
        ]);
        rt.next_tick(Task::Captured(
            Box::new(move |rt: &mut Rt| emit_unhandled_rejection_or_err(rt, that, err, ty, args)),
            captures,
        ));
        Ok(Value::Undefined)
    });
    let thrown = match thenable {
        None => {
            rt.promise_then(p, None, Some(on_rejected));
            return Ok(());
        }
        // `{ then(resolve) { ...; resolve(V); } }` called with
        // `(undefined, onRejected)`.
        Some(body) => rt.holding(&[Value::Object(on_rejected)], |rt| {
            if let Some(body) = body {
                if let Err(e) = rt.call_function(body, Value::Object(p), &[]) {
                    return e;
                }
            }
            rt.new_error("TypeError", "resolve is not a function")
        }),
    };
    let emitter = Value::Object(that);
    rt.holding(std::slice::from_ref(&thrown), |rt| {
        crate::emitter::op_emit(
            rt,
            &emitter,
            &Value::string("error"),
            std::slice::from_ref(&thrown),
        )
    })?;
    Ok(())
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L378-L397>
/// `emitUnhandledRejectionOrErr`: the `kRejection` method if it is a
/// function, else 'error' emitted with `kCapture` off (restored after).
fn emit_unhandled_rejection_or_err(
    rt: &mut Rt,
    that: ObjectId,
    err: Value,
    ty: Value,
    args: Value,
) -> Completion {
    let emitter = Value::Object(that);
    let e = emitter_index(rt, &emitter).expect("the tick holds the emitter");
    let method = extras(rt, e)
        .rejection
        .clone()
        .filter(|f| rt.is_function(f));
    if let Some(Value::Object(f)) = method {
        let mut all = vec![err, ty];
        if let Value::Object(a) = args {
            if let ObjectData::Array(items) = rt.heap.get(a) {
                all.extend(items.iter().cloned());
            }
        }
        rt.call_function(f, emitter, &all)?;
        return Ok(Value::Undefined);
    }
    let prev = extras(rt, e).capture;
    extras(rt, e).capture = false;
    let result = crate::emitter::op_emit(rt, &emitter, &Value::string("error"), &[err]);
    extras(rt, e).capture = prev;
    result.map(|_| Value::Undefined)
}

/// The rejection method an emitter holds.
pub(crate) fn trace_emitter(rt: &Rt, e: u32, edges: &mut Vec<Value>) {
    if let Some(Some(f)) = rt.lib.emitter_extras.get(e as usize).map(|x| &x.rejection) {
        edges.push(f.clone());
    }
}

// ---- events.on ----------------------------------------------------------

fn abort_error(rt: &mut Rt) -> Value {
    rt.node_error("AbortError", "ABORT_ERR", "The operation was aborted")
}

fn state(rt: &mut Rt, s: u32) -> &mut OnState {
    &mut rt.lib.on_states[s as usize]
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L1085-L1204>
/// `events.on`: the signal validated (an aborted one throws an
/// AbortError at once), then the iterator, the listener of `event`
/// (`function(...args) { return eventHandler(args); }`), `errorHandler`
/// on 'error' unless the event is 'error', and `addAbortListener`.
pub(crate) fn op_on(
    rt: &mut Rt,
    emitter: &Value,
    event: &Value,
    options: &EventsOnOptions,
) -> Completion {
    let signal = options.signal.clone().unwrap_or(Value::Undefined);
    if signal != Value::Undefined {
        match signal.as_object().map(|o| rt.lib.slot(o)) {
            Some(Slot::Signal(s)) => {
                crate::abort::refresh_composite_signal(rt, s);
                if rt.lib.signals[s as usize].aborted {
                    return Err(abort_error(rt));
                }
            }
            _ => return Err(rt.err_invalid_arg_type("options.signal", "AbortSignal", &signal)),
        }
    }
    let high = water_mark(
        rt,
        &options.high_water_mark,
        MAX_SAFE,
        "options.highWaterMark",
    )?;
    let low = water_mark(rt, &options.low_water_mark, 1.0, "options.lowWaterMark")?;
    let index = rt.lib.on_states.len() as u32;
    let hidden = crate::alloc_host(rt, |_| Slot::OnState(index));
    rt.lib.on_states.push(OnState {
        hidden,
        emitter: emitter.clone(),
        event: event.clone(),
        signal: signal.clone(),
        unconsumed_events: VecDeque::new(),
        unconsumed_promises: VecDeque::new(),
        error: Value::Null,
        finished: false,
        size: 0,
        high,
        low,
        paused: false,
        listeners: Vec::new(),
        disposable: None,
        disposable_declared: false,
        error_handler: None,
        abort_listener: None,
        close_handler: None,
    });
    let iterator = crate::alloc_host(rt, |_| Slot::OnIterator(index));
    let holds = || Captures::objects(&[hidden]);
    let listener = rt.native_function_capturing(holds(), move |rt, _, args| {
        let value = rt.create_array_from_list(args.to_vec());
        let s = state(rt, index);
        match s.unconsumed_promises.pop_front() {
            None => {
                s.size += 1;
                if !s.paused && s.size as f64 > s.high {
                    // `paused = true; emitter.pause();` on an emitter
                    // without `pause`.
                    s.paused = true;
                    return Err(rt.new_error("TypeError", "emitter.pause is not a function"));
                }
                s.unconsumed_events.push_back(value);
            }
            Some((resolve, _)) => {
                let result = rt.create_iter_result(value, false);
                rt.call_function(resolve, Value::Undefined, &[result])?;
            }
        }
        Ok(Value::Undefined)
    });
    let error_handler = rt.native_function_capturing(holds(), move |rt, _, args| {
        let err = args.first().cloned().unwrap_or(Value::Undefined);
        on_error(rt, index, err)?;
        Ok(Value::Undefined)
    });
    let abort_listener = rt.native_function_capturing(holds(), move |rt, _, _| {
        let err = abort_error(rt);
        on_error(rt, index, err)?;
        Ok(Value::Undefined)
    });
    let close_handler = rt.native_function_capturing(holds(), move |rt, _, _| close(rt, index));
    {
        let s = state(rt, index);
        s.error_handler = Some(error_handler);
        s.abort_listener = Some(abort_listener);
        s.close_handler = Some(close_handler);
    }
    let roots = [
        Value::Object(iterator),
        Value::Object(hidden),
        Value::Object(listener),
    ];
    rt.holding(&roots, |rt| {
        controller_add(rt, index, emitter, event, listener)?;
        if !matches!(event, Value::String(s) if &**s == "error") {
            controller_add(rt, index, emitter, &Value::string("error"), error_handler)?;
        }
        if let Some(name) = &options.close {
            controller_add(rt, index, emitter, name, close_handler)?;
        }
        if signal != Value::Undefined {
            let d =
                crate::abort::op_add_abort_listener(rt, &signal, &Value::Object(abort_listener))?;
            state(rt, index).disposable = Some(d);
        }
        state(rt, index).disposable_declared = true;
        Ok(Value::Object(iterator))
    })
}

/// `listenersController().addEventListener`: the emitter's `on`, then the
/// entry.
fn controller_add(
    rt: &mut Rt,
    s: u32,
    emitter: &Value,
    event: &Value,
    handler: ObjectId,
) -> Result<(), Value> {
    if emitter_index(rt, emitter).is_none() {
        return Err(if matches!(emitter, Value::Undefined | Value::Null) {
            rt.cannot_read_properties(emitter, "on")
        } else {
            rt.err_invalid_arg_type("emitter", "EventEmitter", emitter)
        });
    }
    crate::emitter::op_add_listener(rt, emitter, event, &Value::Object(handler), false, false)?;
    state(rt, s)
        .listeners
        .push((emitter.clone(), event.clone(), handler));
    Ok(())
}

/// `errorHandler(err)`: the first waiting `next()` rejects, or the error
/// waits for the next one; then `closeHandler()`.
fn on_error(rt: &mut Rt, s: u32, err: Value) -> Result<(), Value> {
    let st = state(rt, s);
    match st.unconsumed_promises.pop_front() {
        None => st.error = err,
        Some((_, reject)) => {
            rt.call_function(reject, Value::Undefined, &[err])?;
        }
    }
    close(rt, s).map(|_| ())
}

/// `closeHandler()`: dispose of the abort listener, remove the listeners
/// (last added first), finish, resolve every waiting `next()` with one
/// done result and return `PromiseResolve(doneResult)`.
fn close(rt: &mut Rt, s: u32) -> Completion {
    if !state(rt, s).disposable_declared {
        return Err(rt.new_error(
            "ReferenceError",
            "Cannot access 'abortListenerDisposable' before initialization",
        ));
    }
    if let Some(d) = state(rt, s).disposable.clone() {
        crate::abort::op_dispose(rt, &d)?;
    }
    while let Some((emitter, event, handler)) = state(rt, s).listeners.pop() {
        let roots = [emitter.clone(), Value::Object(handler)];
        rt.holding(&roots, |rt| {
            crate::emitter::op_remove_listener(rt, &emitter, &event, &Value::Object(handler))
        })?;
    }
    let st = state(rt, s);
    st.finished = true;
    st.paused = false;
    let done = rt.create_iter_result(Value::Undefined, true);
    while let Some((resolve, _)) = state(rt, s).unconsumed_promises.pop_front() {
        rt.call_function(resolve, Value::Undefined, std::slice::from_ref(&done))?;
    }
    Ok(Value::Object(rt.promise_resolve(done)))
}

fn iterator_index(rt: &mut Rt, iterator: &Value, method: &str) -> Result<u32, Value> {
    match iterator.as_object().map(|o| rt.lib.slot(o)) {
        Some(Slot::OnIterator(s)) => Ok(s),
        _ => Err(rt.cannot_read_properties(iterator, method)),
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L1109-L1138>
/// `next()`: a queued event as an already fulfilled promise, else the
/// stored error as a rejected one (once, if truthy), else the close when
/// finished, else a promise that waits.
pub(crate) fn op_next(rt: &mut Rt, iterator: &Value) -> Completion {
    let s = iterator_index(rt, iterator, "next")?;
    let st = state(rt, s);
    if st.size > 0 {
        // FixedQueue's shift gives null once empty.
        let value = st.unconsumed_events.pop_front().unwrap_or(Value::Null);
        st.size -= 1;
        if st.paused && (st.size as f64) < st.low {
            return Err(rt.new_error("TypeError", "emitter.resume is not a function"));
        }
        let result = rt.create_iter_result(value, false);
        return Ok(Value::Object(rt.promise_resolve(result)));
    }
    if st.error.to_boolean() {
        let error = std::mem::replace(&mut st.error, Value::Null);
        return Ok(Value::Object(rt.promise_reject_new(error)));
    }
    if st.finished {
        return close(rt, s);
    }
    let promise = rt.new_promise();
    let functions = rt.create_resolving_functions(promise);
    state(rt, s).unconsumed_promises.push_back(functions);
    Ok(Value::Object(promise))
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L1144-L1150>
/// `throw(err)`: a truthy Error goes to `errorHandler`; anything else is
/// ERR_INVALID_ARG_TYPE.
pub(crate) fn op_throw(rt: &mut Rt, iterator: &Value, err: &Value) -> Completion {
    let s = iterator_index(rt, iterator, "throw")?;
    match *err {
        Value::Object(id) if matches!(rt.heap.get(id), ObjectData::Error { .. }) => {
            rt.holding(std::slice::from_ref(err), |rt| on_error(rt, s, err.clone()))?;
            Ok(Value::Undefined)
        }
        _ => Err(rt.err_invalid_arg_type("EventEmitter.AsyncIterator", "Error", err)),
    }
}

const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/validators.js#L97-L106>
/// a watermark after `??` (undefined and null take the default), through
/// `validateInteger(value, name, 1)`.
fn water_mark(rt: &mut Rt, value: &Option<Value>, default: f64, name: &str) -> Result<f64, Value> {
    match value {
        None | Some(Value::Undefined | Value::Null) => Ok(default),
        Some(Value::Number(n)) if n.fract() != 0.0 || !n.is_finite() => {
            Err(rt.err_out_of_range(name, "an integer", *n))
        }
        Some(Value::Number(n)) if *n < 1.0 || *n > MAX_SAFE => {
            Err(rt.err_out_of_range(name, ">= 1 && <= 9007199254740991", *n))
        }
        Some(Value::Number(n)) => Ok(*n),
        Some(other) => Err(rt.err_invalid_arg_type(name, "number", other)),
    }
}

/// `return()`: `closeHandler()`.
pub(crate) fn op_return(rt: &mut Rt, iterator: &Value) -> Completion {
    let s = iterator_index(rt, iterator, "return")?;
    close(rt, s)
}

/// The strong edges of an iterator (its context) and of a context.
pub(crate) fn trace(rt: &Rt, slot: Slot, edges: &mut Vec<Value>) {
    match slot {
        // The iterator's methods close over the context.
        Slot::OnIterator(s) => edges.push(Value::Object(rt.lib.on_states[s as usize].hidden)),
        Slot::OnState(s) => trace_state(&rt.lib.on_states[s as usize], edges),
        _ => {}
    }
}

fn trace_state(st: &OnState, edges: &mut Vec<Value>) {
    edges.push(st.emitter.clone());
    edges.push(st.event.clone());
    edges.push(st.signal.clone());
    edges.push(st.error.clone());
    edges.extend(st.unconsumed_events.iter().cloned());
    for &(resolve, reject) in &st.unconsumed_promises {
        edges.push(Value::Object(resolve));
        edges.push(Value::Object(reject));
    }
    for (emitter, event, handler) in &st.listeners {
        edges.push(emitter.clone());
        edges.push(event.clone());
        edges.push(Value::Object(*handler));
    }
    edges.extend(st.disposable.iter().cloned());
    edges.extend(st.error_handler.map(Value::Object));
    edges.extend(st.abort_listener.map(Value::Object));
    edges.extend(st.close_handler.map(Value::Object));
}
