//! # nodesem-model: the reference model
//!
//! An executable transcription of Node.js 26.12.1's `EventTarget`, `Event`,
//! `AbortController`, `AbortSignal`, `events.addAbortListener`,
//! `ReadableStream` (with its default controller and reader, byte streams:
//! `ReadableByteStreamController`, the BYOB reader and request, the byte
//! tee; `ReadableStream.from` and async iteration), `WritableStream` (with
//! its default controller and writer), `TransformStream` and
//! `pipeTo`/`pipeThrough`. It exists
//! so that the optimized implementation (and any Node build) can be diffed
//! against something whose every step can be checked by reading: each
//! algorithm is named after the DOM Standard's (the Streams Standard's, for
//! streams), quotes its steps above the code and links to the section.
//!
//! Where Node 26.12.1 does something else than the DOM Standard, the model
//! does what Node does and says so in a comment of the form
//! `// NODE: <link to Node's source at v26.12.1> <what differs>`; where the
//! model leaves something out because scenarios cannot observe it, it says
//! `// MODEL: <why>`. The Node departures that scenarios can observe:
//!
//! - dispatch walks Node's live linked list instead of a clone, so some
//!   listeners added during a dispatch run ([`event_target`]);
//! - there are no capture/bubble passes: listeners run in registration order
//!   whatever their `capture`, and `stopPropagation()` skips none of them;
//! - after the first listener that returns normally, `eventPhase` is 0 and
//!   `currentTarget` null for the rest of the dispatch;
//! - `cancelBubble` stays true after the dispatch;
//! - the `signal` option removes its listener from an abort *listener*, in
//!   its place among the signal's listeners, not before them;
//! - `onabort` keeps its first position even when set to null, and Node's
//!   listener count can drop the handler's registration;
//! - listener exceptions are reported from a `process.nextTick` callback, and
//!   a returned promise that rejects is reported the same way;
//! - `events.addAbortListener` on an aborted signal calls the listener from a
//!   microtask with a trusted `abort` Event;
//! - a ReadableStream's `pull` promise is taken as it is, two microtasks
//!   sooner than the Streams Standard's conversion, and the streams' errors
//!   are Node's coded ones ([`streams`], for byte streams too:
//!   [`byte_streams`], where Node's ProcessReadRequestsUsingQueue can also
//!   throw an internal assertion from `enqueue()`); so are the promises of a sink's
//!   `write` and a transformer's `transform` ([`writable`], [`transform`]);
//! - a write parked on a TransformStream's backpressure resumes two
//!   microtasks sooner than the spec's reaction chain, and its sink abort
//!   algorithm is an async function, two microtasks later ([`transform`]);
//! - `pipeTo`'s loop, which the spec leaves to the implementation, is
//!   Node's: batched reads from the source's queue, a ready hook that runs
//!   the pump inside the settle site, one shared write request ([`pipe`]).
//!
//! Invariants checked as the model runs (panics are bugs of the model): a
//! listener about to run is still in its list; an aborted signal is never
//! aborted again; every dependent of a signal is aborted before the signal's
//! abort event fires.
//!
//! Architecture invariant: the model depends only on `nodesem-lang` and
//! `nodesem-runtime`, does no I/O and reads no clock.

pub mod abort;
pub mod abort_listener;
pub mod async_context;
pub mod byte_streams;
pub mod emitter;
pub mod event;
pub mod event_target;
pub mod events_on;
pub mod gc;
pub mod iterate;
pub mod pipe;
pub mod slots;
pub mod streams;
pub mod transform;
pub mod writable;

use nodesem_lang::{Engine, EngineError, Log, RunConfig, Scenario};
use nodesem_runtime::{
    AddListenerOptions, Completion, EventInit, HostClass, Library, ObjectId, QueuingStrategy,
    Runtime, StreamPipeOptions, Transformer, UnderlyingSink, UnderlyingSource, Value,
};

use crate::abort::AbortSignalState;
use crate::abort_listener::Disposable;
use crate::event::EventState;
use crate::event_target::{EventListener, EventTargetState, ListenerOptions, ListenerRoot};
use crate::slots::Slots;

/// The state of the library layer for one scenario: every host object's
/// internal slots, keyed by its heap id.
#[derive(Debug, Default)]
pub struct Model {
    /// AbortController to its signal.
    controllers: Slots<ObjectId>,
    /// Every EventTarget, AbortSignals included.
    targets: Slots<EventTargetState>,
    /// The AbortSignal slots.
    signals: Slots<AbortSignalState>,
    /// Every Event.
    events: Slots<EventState>,
    /// The Disposables of `addAbortListener`.
    disposables: Slots<Disposable>,
    /// Every listener node ever created (removed ones stay: a dispatch may
    /// still walk through them).
    listeners: Vec<EventListener>,
    /// Every list root ever created.
    roots: Vec<ListenerRoot>,
    /// ReadableStreams, their controllers and readers.
    streams: streams::Streams,
    /// WritableStreams, their controllers and writers.
    writable: writable::Writables,
    /// TransformStreams and their controllers.
    transform: transform::Transforms,
    /// Every pipe (ReadableStreamPipeTo), by [`pipe::PipeId`].
    pipes: Slots<pipe::Pipe>,
    /// The handles of weak listener records (Node's `Listener` objects of
    /// weak listeners, which the weak-listener registry holds), to their node.
    records: Slots<event_target::ListenerId>,
    /// Node's `objectToWeakListenerMap`: a retainer to the weak listener
    /// functions it keeps alive.
    weak_listener_map: Slots<Vec<ObjectId>>,
    /// `gcPersistentSignals`, Node's internal registries, work in flight.
    gc: gc::GcState,
    /// Every EventEmitter.
    emitters: Slots<emitter::EmitterState>,
    /// Every `once` wrapper function, to what its closure knows.
    once_wrappers: Slots<emitter::OnceWrapper>,
    /// Node's listener arrays that running emits and `removeAllListeners`
    /// loops hold ([`emitter::ListArrays`]).
    list_arrays: emitter::ListArrays,
    /// AsyncLocalStorages, async context frames and AsyncResources.
    async_context: async_context::AsyncContext,
    /// The state of `lib/events.js` itself: `defaultMaxListeners`,
    /// `kErrorMonitor`, the `_events` objects running emits hold, the
    /// scopes of `events.once` ([`emitter::EventsModule`]).
    events_module: emitter::EventsModule,
    /// The iterators of `events.on`, to their scopes.
    on_iterators: Slots<ObjectId>,
    /// The scopes of `events.on` calls ([`events_on::OnScope`]).
    on_scopes: Slots<events_on::OnScope>,
}

/// The TypeError V8 throws for `value.method(...)` on undefined or null, or
/// a TypeError for an object of the wrong kind.
pub(crate) fn cannot_read(rt: &mut Runtime<Model>, value: &Value, prop: &str) -> Value {
    match value {
        Value::Undefined | Value::Null => rt.cannot_read_properties(value, prop),
        // MODEL: the parser's kinds rule this out; the message is the model's.
        other => {
            let shown = rt.fmt(other);
            rt.new_error("TypeError", &format!("{shown}.{prop} is not a function"))
        }
    }
}

/// An operand that must be one of the library's objects, found in `table`;
/// `prop` names the member JavaScript would read on it.
fn operand<T>(
    rt: &mut Runtime<Model>,
    value: Value,
    prop: &str,
    table: fn(&Model) -> &Slots<T>,
) -> Result<ObjectId, Value> {
    match value {
        Value::Object(id) if table(&rt.lib).contains_key(&id) => Ok(id),
        other => Err(cannot_read(rt, &other, prop)),
    }
}

fn signal_operand(rt: &mut Runtime<Model>, value: Value, prop: &str) -> Result<ObjectId, Value> {
    operand(rt, value, prop, |m| &m.signals)
}

fn target_operand(rt: &mut Runtime<Model>, value: Value, prop: &str) -> Result<ObjectId, Value> {
    operand(rt, value, prop, |m| &m.targets)
}

impl Library for Model {
    fn new() -> Self {
        Model::default()
    }

    fn reset(&mut self) {
        let Model {
            controllers,
            targets,
            signals,
            events,
            disposables,
            listeners,
            roots,
            streams,
            writable,
            transform,
            pipes,
            records,
            weak_listener_map,
            gc,
            emitters,
            once_wrappers,
            list_arrays,
            async_context,
            events_module,
            on_iterators,
            on_scopes,
        } = self;
        controllers.clear();
        targets.clear();
        signals.clear();
        events.clear();
        disposables.clear();
        listeners.clear();
        roots.clear();
        streams.clear();
        writable.clear();
        transform.clear();
        pipes.clear();
        records.clear();
        weak_listener_map.clear();
        gc.clear();
        emitters.clear();
        once_wrappers.clear();
        *list_arrays = emitter::ListArrays::default();
        async_context.clear();
        *events_module = emitter::EventsModule::default();
        on_iterators.clear();
        on_scopes.clear();
    }

    // ---- abort ----

    fn new_abort_controller(rt: &mut Runtime<Self>) -> Completion {
        Ok(Value::Object(abort::new_abort_controller(rt)))
    }

    fn abort(rt: &mut Runtime<Self>, controller: Value, reason: Option<Value>) -> Completion {
        let c = operand(rt, controller, "abort", |m| &m.controllers)?;
        abort::controller_abort(rt, c, reason);
        Ok(Value::Undefined)
    }

    fn abort_signal_abort(rt: &mut Runtime<Self>, reason: Option<Value>) -> Completion {
        Ok(Value::Object(abort::abort_static(rt, reason)))
    }

    fn abort_signal_timeout(rt: &mut Runtime<Self>, ms: u32) -> Completion {
        Ok(Value::Object(abort::timeout(rt, ms)))
    }

    fn abort_signal_any(rt: &mut Runtime<Self>, signals: Vec<Value>) -> Completion {
        let mut list = Vec::with_capacity(signals.len());
        for (i, v) in signals.into_iter().enumerate() {
            match v {
                Value::Object(id) if rt.lib.signals.contains_key(&id) => list.push(id),
                _ => {
                    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L323-L326
                    // the WebIDL sequence<AbortSignal> converter, with the
                    // context 'signals', refuses the first element that is
                    // no AbortSignal (webidl.js's interface converter).
                    return Err(rt.webidl_type_error(
                        &format!("signals[{i}]"),
                        "is not of type AbortSignal.",
                    ));
                }
            }
        }
        Ok(Value::Object(abort::create_dependent_abort_signal(
            rt, &list,
        )))
    }

    fn throw_if_aborted(rt: &mut Runtime<Self>, signal: Value) -> Completion {
        let s = signal_operand(rt, signal, "throwIfAborted")?;
        abort::throw_if_aborted(rt, s)
    }

    fn set_onabort(rt: &mut Runtime<Self>, signal: Value, handler: Value) -> Result<(), Value> {
        let s = signal_operand(rt, signal, "onabort")?;
        event_target::set_event_handler(rt, s, "abort", handler)?;
        Ok(())
    }

    fn add_abort_listener(rt: &mut Runtime<Self>, signal: Value, listener: Value) -> Completion {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/events/abort_listener.js#L28-L32
        // `if (signal === undefined) throw ...; validateAbortSignal(signal,
        // 'signal'); validateFunction(listener, 'listener')`: of the values a
        // scenario makes, only an AbortSignal has `aborted`.
        let s = match signal {
            Value::Object(id) if rt.lib.signals.contains_key(&id) => id,
            other => return Err(rt.err_invalid_arg_type("signal", "AbortSignal", &other)),
        };
        let f = match listener {
            Value::Object(id) if rt.is_function(&listener) => id,
            other => return Err(rt.err_invalid_arg_type("listener", "function", &other)),
        };
        Ok(Value::Object(abort_listener::add_abort_listener(rt, s, f)))
    }

    fn dispose(rt: &mut Runtime<Self>, disposable: Value) -> Completion {
        let d = operand(rt, disposable, "Symbol(Symbol.dispose)", |m| &m.disposables)?;
        abort_listener::dispose(rt, d);
        Ok(Value::Undefined)
    }

    // ---- events.setMaxListeners and events.getMaxListeners ----

    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L304-L328>
    /// `function(n = defaultMaxListeners, ...eventTargets)`:
    /// `validateNumber(n, 'setMaxListeners', 0)`, then each target in
    /// order: an EventTarget gets the maximum and is no longer marked as
    /// warned; an object with a `setMaxListeners` method (an EventEmitter)
    /// gets a call; anything else throws
    /// ERR_INVALID_ARG_TYPE, and `target.setMaxListeners` on undefined or
    /// null throws V8's TypeError, after the earlier targets were set.
    fn set_max_listeners(rt: &mut Runtime<Self>, n: Value, targets: Vec<Value>) -> Completion {
        let n = match n {
            // `n = defaultMaxListeners`: the default as it is now.
            Value::Undefined => emitter::default_max_listeners(rt),
            Value::Number(n) => n,
            other => return Err(rt.err_invalid_arg_type("setMaxListeners", "number", &other)),
        };
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/validators.js#L188-L199>
        // `validateNumber(value, name, min = 0)`: below the minimum, or NaN,
        // is ERR_OUT_OF_RANGE ">= 0".
        if n.is_nan() || n < 0.0 {
            return Err(rt.err_out_of_range("setMaxListeners", ">= 0", n));
        }
        for target in targets {
            match target {
                Value::Object(id) if rt.lib.targets.contains_key(&id) => {
                    event_target::set_max_listeners(rt, id, n);
                }
                // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L318-L319>
                // `target.setMaxListeners(n)` of an EventEmitter.
                Value::Object(id) if rt.lib.emitters.contains_key(&id) => {
                    emitter::set_max_listeners(rt, id, n);
                }
                Value::Undefined | Value::Null => {
                    return Err(rt.cannot_read_properties(&target, "setMaxListeners"))
                }
                other => {
                    return Err(rt.err_invalid_arg_type_classes(
                        "eventTargets",
                        &["EventEmitter", "EventTarget"],
                        &other,
                    ))
                }
            }
        }
        Ok(Value::Undefined)
    }

    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L962-L973>
    /// `getMaxListeners(emitterOrTarget)`: an EventEmitter's own maximum,
    /// else a number in `kMaxEventTargetListeners`, else
    /// ERR_INVALID_ARG_TYPE for "emitter" (undefined and null included,
    /// through `?.`).
    fn get_max_listeners(rt: &mut Runtime<Self>, target: Value) -> Completion {
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/events.js#L963-L964>
        // an EventEmitter (it has `getMaxListeners`) comes first.
        let max = target.as_object().and_then(|id| {
            emitter::max_listeners(rt, id).or_else(|| event_target::max_listeners(rt, id))
        });
        match max {
            Some(max) => Ok(Value::Number(max)),
            None => Err(rt.err_invalid_arg_type_classes(
                "emitter",
                &["EventEmitter", "EventTarget"],
                &target,
            )),
        }
    }

    // ---- dispatch ----

    // ---- EventEmitter ----

    // ---- async context ----

    fn new_async_local_storage(rt: &mut Runtime<Self>, default: Option<Value>) -> Completion {
        async_context::new_storage(rt, default)
    }

    fn als_get_store(rt: &mut Runtime<Self>, als: Value) -> Completion {
        async_context::get_store(rt, als)
    }

    fn als_enter_with(rt: &mut Runtime<Self>, als: Value, store: Value) -> Completion {
        async_context::enter_with(rt, als, store)
    }

    fn als_run(rt: &mut Runtime<Self>, als: Value, store: Value, f: ObjectId) -> Completion {
        async_context::run(rt, als, store, f)
    }

    fn als_exit(rt: &mut Runtime<Self>, als: Value, f: ObjectId) -> Completion {
        async_context::exit(rt, als, f)
    }

    fn als_disable(rt: &mut Runtime<Self>, als: Value) -> Completion {
        async_context::disable(rt, als)
    }

    fn als_bind(rt: &mut Runtime<Self>, f: Value) -> Completion {
        async_context::storage_bind(rt, f)
    }

    fn als_snapshot(rt: &mut Runtime<Self>) -> Completion {
        async_context::snapshot(rt)
    }

    fn new_async_resource(rt: &mut Runtime<Self>, kind: Value) -> Completion {
        async_context::new_resource(rt, kind)
    }

    fn async_resource_run(rt: &mut Runtime<Self>, resource: Value, f: ObjectId) -> Completion {
        async_context::run_in_async_scope(rt, resource, f, Value::Undefined, &[])
    }

    fn async_resource_bind(rt: &mut Runtime<Self>, resource: Value, f: Value) -> Completion {
        async_context::bind_method(rt, resource, f)
    }

    fn async_resource_emit_destroy(rt: &mut Runtime<Self>, resource: Value) -> Completion {
        async_context::emit_destroy(rt, resource)
    }

    fn make_callback(
        rt: &mut Runtime<Self>,
        f: ObjectId,
        recv: Value,
        resource_frame: Option<Value>,
    ) {
        async_context::make_callback(rt, f, recv, resource_frame)
    }

    fn new_event_emitter(rt: &mut Runtime<Self>) -> Completion {
        Ok(emitter::new_event_emitter(rt))
    }

    fn emitter_add_listener(
        rt: &mut Runtime<Self>,
        e: Value,
        name: Value,
        listener: Value,
        prepend: bool,
        once: bool,
    ) -> Completion {
        emitter::add_listener(rt, e, name, listener, prepend, once)
    }

    fn emitter_remove_listener(
        rt: &mut Runtime<Self>,
        e: Value,
        name: Value,
        listener: Value,
    ) -> Completion {
        emitter::remove_listener(rt, e, name, listener)
    }

    fn emitter_remove_all_listeners(
        rt: &mut Runtime<Self>,
        e: Value,
        name: Option<Value>,
    ) -> Completion {
        emitter::remove_all_listeners(rt, e, name)
    }

    fn emitter_emit(rt: &mut Runtime<Self>, e: Value, name: Value, args: Vec<Value>) -> Completion {
        emitter::emit(rt, e, name, args)
    }

    fn emitter_listener_count(
        rt: &mut Runtime<Self>,
        e: Value,
        name: Value,
        listener: Option<Value>,
    ) -> Completion {
        emitter::listener_count(rt, e, name, listener)
    }

    fn emitter_event_names(rt: &mut Runtime<Self>, e: Value) -> Completion {
        emitter::event_names(rt, e)
    }

    fn emitter_listeners(rt: &mut Runtime<Self>, e: Value, name: Value, raw: bool) -> Completion {
        emitter::listeners(rt, e, name, raw)
    }

    fn emitter_events_key_count(rt: &mut Runtime<Self>, e: Value) -> Completion {
        emitter::events_key_count(rt, e)
    }

    fn error_monitor(rt: &mut Runtime<Self>) -> Value {
        Value::Symbol(emitter::error_monitor(rt))
    }

    fn default_max_listeners(rt: &mut Runtime<Self>) -> Value {
        Value::Number(emitter::default_max_listeners(rt))
    }

    fn set_default_max_listeners(rt: &mut Runtime<Self>, n: Value) -> Result<(), Value> {
        emitter::set_default_max_listeners(rt, n)
    }

    fn events_once(
        rt: &mut Runtime<Self>,
        e: Value,
        name: Value,
        signal: Option<Value>,
    ) -> Completion {
        emitter::once(rt, e, name, signal)
    }

    fn new_capturing_event_emitter(rt: &mut Runtime<Self>) -> Completion {
        Ok(emitter::new_capturing_event_emitter(rt))
    }

    fn emitter_set_rejection_handler(
        rt: &mut Runtime<Self>,
        e: Value,
        function: Value,
    ) -> Result<(), Value> {
        emitter::set_rejection_handler(rt, e, function)
    }

    fn events_on(
        rt: &mut Runtime<Self>,
        e: Value,
        name: Value,
        options: nodesem_runtime::EventsOnOptions,
    ) -> Completion {
        events_on::on(rt, e, name, options)
    }

    fn events_iterator_throw(rt: &mut Runtime<Self>, iterator: Value, value: Value) -> Completion {
        events_on::iterator_throw(rt, iterator, value)
    }

    fn events_iterator_next(rt: &mut Runtime<Self>, iterator: Value) -> Completion {
        events_on::next(rt, iterator)
    }

    fn events_iterator_return(rt: &mut Runtime<Self>, iterator: Value) -> Completion {
        events_on::iterator_return(rt, iterator)
    }

    // ---- dispatch ----

    fn new_event_target(rt: &mut Runtime<Self>) -> Completion {
        Ok(Value::Object(event_target::new_event_target(rt)))
    }

    fn add_event_listener(
        rt: &mut Runtime<Self>,
        target: Value,
        event_type: &str,
        listener: Value,
        options: AddListenerOptions,
    ) -> Completion {
        let t = target_operand(rt, target, "addEventListener")?;
        let options = match options.value {
            Some(value) => event_target::flatten_more(rt, value)?,
            None => options,
        };
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L663
        // `validateAbortSignal(signal, 'options.signal')`: undefined is no signal.
        let signal = match options.signal {
            None | Some(Value::Undefined) => None,
            Some(Value::Object(id)) if rt.lib.signals.contains_key(&id) => Some(id),
            Some(other) => {
                return Err(rt.err_invalid_arg_type("options.signal", "AbortSignal", &other))
            }
        };
        event_target::add_event_listener_steps(
            rt,
            t,
            event_type,
            listener,
            ListenerOptions {
                once: options.once,
                capture: options.capture,
                passive: options.passive,
                signal,
                resist_stop_propagation: false,
                weak: None,
            },
        )
    }

    fn remove_event_listener(
        rt: &mut Runtime<Self>,
        target: Value,
        event_type: &str,
        listener: Value,
        capture: bool,
    ) -> Completion {
        let t = target_operand(rt, target, "removeEventListener")?;
        event_target::remove_event_listener_steps(rt, t, event_type, listener, capture)
    }

    fn dispatch_new_event(
        rt: &mut Runtime<Self>,
        target: Value,
        event_type: &str,
        cancelable: bool,
    ) -> Completion {
        let t = target_operand(rt, target, "dispatchEvent")?;
        let e = event::create_an_event(rt, event_type, cancelable, false);
        event_target::dispatch_event(rt, t, e)
    }

    fn prevent_default(rt: &mut Runtime<Self>, event: Value) -> Completion {
        let ev = event::event_of(rt, &event, "preventDefault")?;
        event::prevent_default(rt, ev);
        Ok(Value::Undefined)
    }

    fn stop_propagation(rt: &mut Runtime<Self>, event: Value) -> Completion {
        let ev = event::event_of(rt, &event, "stopPropagation")?;
        event::stop_propagation(rt, ev);
        Ok(Value::Undefined)
    }

    fn stop_immediate_propagation(rt: &mut Runtime<Self>, event: Value) -> Completion {
        let ev = event::event_of(rt, &event, "stopImmediatePropagation")?;
        event::stop_immediate_propagation(rt, ev);
        Ok(Value::Undefined)
    }

    fn new_event(rt: &mut Runtime<Self>, init: EventInit) -> Completion {
        event::new_event(rt, &init)
    }

    fn new_abort_signal(rt: &mut Runtime<Self>) -> Completion {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L241-L244
        // the constructor throws unless called with Node's private symbol
        // (the DOM's AbortSignal has no constructor at all).
        Err(rt.node_error(
            "TypeError",
            "ERR_ILLEGAL_CONSTRUCTOR",
            "Illegal constructor",
        ))
    }

    fn dispatch_event(rt: &mut Runtime<Self>, target: Value, event: Value) -> Completion {
        let t = target_operand(rt, target, "dispatchEvent")?;
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L807-L808
        // `if (!(event instanceof Event)) throw new ERR_INVALID_ARG_TYPE('event', 'Event', event)`.
        let e = match event {
            Value::Object(id) if rt.lib.events.contains_key(&id) => id,
            other => return Err(rt.err_invalid_arg_type("event", "Event", &other)),
        };
        event_target::dispatch_event(rt, t, e)
    }

    fn composed_path(rt: &mut Runtime<Self>, event: Value) -> Completion {
        let ev = event::event_of(rt, &event, "composedPath")?;
        Ok(event::composed_path(rt, ev))
    }

    fn set_return_value(rt: &mut Runtime<Self>, event: Value, value: Value) -> Completion {
        let ev = event::event_of(rt, &event, "returnValue")?;
        event::set_return_value(rt, ev, value.to_boolean());
        Ok(Value::Undefined)
    }

    fn set_cancel_bubble(rt: &mut Runtime<Self>, event: Value, value: Value) -> Completion {
        let ev = event::event_of(rt, &event, "cancelBubble")?;
        event::set_cancel_bubble(rt, ev, value.to_boolean());
        Ok(Value::Undefined)
    }

    // ---- streams ----

    fn new_readable_stream(
        rt: &mut Runtime<Self>,
        source: UnderlyingSource,
        strategy: QueuingStrategy,
    ) -> Completion {
        streams::new_readable_stream_with_strategy(rt, source, strategy)
    }

    fn readable_controller_enqueue(
        rt: &mut Runtime<Self>,
        controller: Value,
        chunk: Value,
    ) -> Completion {
        streams::controller_enqueue(rt, controller, chunk)
    }

    fn readable_controller_close(rt: &mut Runtime<Self>, controller: Value) -> Completion {
        streams::controller_close(rt, controller)
    }

    fn readable_controller_error(
        rt: &mut Runtime<Self>,
        controller: Value,
        error: Value,
    ) -> Completion {
        streams::controller_error(rt, controller, error)
    }

    fn readable_get_reader(rt: &mut Runtime<Self>, stream: Value) -> Completion {
        streams::get_reader(rt, stream)
    }

    fn readable_cancel(rt: &mut Runtime<Self>, stream: Value, reason: Option<Value>) -> Completion {
        streams::stream_cancel(rt, stream, reason)
    }

    fn reader_read(rt: &mut Runtime<Self>, reader: Value) -> Completion {
        streams::reader_read(rt, reader)
    }

    fn reader_release_lock(rt: &mut Runtime<Self>, reader: Value) -> Completion {
        streams::reader_release_lock(rt, reader)
    }

    fn reader_cancel(rt: &mut Runtime<Self>, reader: Value, reason: Option<Value>) -> Completion {
        streams::reader_cancel(rt, reader, reason)
    }

    fn readable_tee(rt: &mut Runtime<Self>, stream: Value) -> Completion {
        streams::tee(rt, stream)
    }

    fn readable_pipe_to(
        rt: &mut Runtime<Self>,
        source: Value,
        dest: Value,
        options: StreamPipeOptions,
    ) -> Completion {
        pipe::pipe_to(rt, source, dest, options)
    }

    fn readable_pipe_through(
        rt: &mut Runtime<Self>,
        source: Value,
        transform: Value,
        options: StreamPipeOptions,
    ) -> Completion {
        pipe::pipe_through(rt, source, transform, options)
    }

    fn readable_from(rt: &mut Runtime<Self>, iterable: Value) -> Completion {
        iterate::from(rt, iterable)
    }

    fn readable_values(rt: &mut Runtime<Self>, stream: Value, prevent_cancel: bool) -> Completion {
        iterate::values(rt, stream, prevent_cancel)
    }

    fn async_iterator_next(rt: &mut Runtime<Self>, iterator: Value) -> Completion {
        iterate::next(rt, iterator)
    }

    fn async_iterator_return(
        rt: &mut Runtime<Self>,
        iterator: Value,
        value: Option<Value>,
    ) -> Completion {
        iterate::iterator_return(rt, iterator, value)
    }

    // ---- WritableStream ----

    fn new_writable_stream(
        rt: &mut Runtime<Self>,
        sink: UnderlyingSink,
        strategy: QueuingStrategy,
    ) -> Completion {
        writable::new_writable_stream(rt, sink, strategy)
    }

    fn writable_abort(rt: &mut Runtime<Self>, stream: Value, reason: Option<Value>) -> Completion {
        writable::stream_abort(rt, stream, reason)
    }

    fn writable_close(rt: &mut Runtime<Self>, stream: Value) -> Completion {
        writable::stream_close(rt, stream)
    }

    fn writable_get_writer(rt: &mut Runtime<Self>, stream: Value) -> Completion {
        writable::get_writer(rt, stream)
    }

    fn writable_controller_error(
        rt: &mut Runtime<Self>,
        controller: Value,
        error: Value,
    ) -> Completion {
        writable::controller_error(rt, controller, error)
    }

    fn writer_write(rt: &mut Runtime<Self>, writer: Value, chunk: Value) -> Completion {
        writable::writer_write(rt, writer, chunk)
    }

    fn writer_close(rt: &mut Runtime<Self>, writer: Value) -> Completion {
        writable::writer_close(rt, writer)
    }

    fn writer_abort(rt: &mut Runtime<Self>, writer: Value, reason: Option<Value>) -> Completion {
        writable::writer_abort(rt, writer, reason)
    }

    fn writer_release_lock(rt: &mut Runtime<Self>, writer: Value) -> Completion {
        writable::writer_release_lock(rt, writer)
    }

    // ---- TransformStream ----

    fn new_transform_stream(
        rt: &mut Runtime<Self>,
        transformer: Transformer,
        writable_strategy: QueuingStrategy,
        readable_strategy: QueuingStrategy,
    ) -> Completion {
        transform::new_transform_stream(rt, transformer, writable_strategy, readable_strategy)
    }

    fn transform_controller_enqueue(
        rt: &mut Runtime<Self>,
        controller: Value,
        chunk: Value,
    ) -> Completion {
        transform::controller_enqueue(rt, controller, chunk)
    }

    fn transform_controller_error(
        rt: &mut Runtime<Self>,
        controller: Value,
        error: Value,
    ) -> Completion {
        transform::controller_error(rt, controller, error)
    }

    fn transform_controller_terminate(rt: &mut Runtime<Self>, controller: Value) -> Completion {
        transform::controller_terminate(rt, controller)
    }

    // ---- byte streams ----

    fn new_readable_byte_stream(
        rt: &mut Runtime<Self>,
        source: UnderlyingSource,
        strategy: QueuingStrategy,
        auto_allocate_chunk_size: Option<f64>,
    ) -> Completion {
        byte_streams::new_readable_byte_stream(
            rt,
            source,
            strategy.high_water_mark,
            auto_allocate_chunk_size,
        )
    }

    fn byte_controller_enqueue(
        rt: &mut Runtime<Self>,
        controller: Value,
        chunk: Value,
    ) -> Completion {
        byte_streams::controller_enqueue(rt, controller, chunk)
    }

    fn byte_controller_close(rt: &mut Runtime<Self>, controller: Value) -> Completion {
        byte_streams::controller_close(rt, controller)
    }

    fn byte_controller_error(
        rt: &mut Runtime<Self>,
        controller: Value,
        error: Value,
    ) -> Completion {
        byte_streams::controller_error(rt, controller, error)
    }

    fn byob_request_respond(
        rt: &mut Runtime<Self>,
        request: Value,
        bytes_written: Value,
    ) -> Completion {
        byte_streams::request_respond(rt, request, bytes_written)
    }

    fn byob_request_respond_with_new_view(
        rt: &mut Runtime<Self>,
        request: Value,
        view: Value,
    ) -> Completion {
        byte_streams::request_respond_with_new_view(rt, request, view)
    }

    fn readable_get_byob_reader(rt: &mut Runtime<Self>, stream: Value) -> Completion {
        byte_streams::get_byob_reader(rt, stream)
    }

    fn byob_reader_read(
        rt: &mut Runtime<Self>,
        reader: Value,
        view: Value,
        min: Option<Value>,
    ) -> Completion {
        byte_streams::reader_read(rt, reader, view, min)
    }

    fn byob_reader_release_lock(rt: &mut Runtime<Self>, reader: Value) -> Completion {
        byte_streams::reader_release_lock(rt, reader)
    }

    fn byob_reader_cancel(
        rt: &mut Runtime<Self>,
        reader: Value,
        reason: Option<Value>,
    ) -> Completion {
        byte_streams::reader_cancel(rt, reader, reason)
    }

    // ---- what the runtime asks ----

    fn get(rt: &mut Runtime<Self>, obj: ObjectId, prop: &str) -> Completion {
        if let Some(&signal) = rt.lib.controllers.get(&obj) {
            return Ok(match prop {
                "signal" => Value::Object(signal),
                _ => Value::Undefined,
            });
        }
        if rt.lib.signals.contains_key(&obj) {
            return Ok(match prop {
                "aborted" => Value::Bool(abort::aborted(rt, obj)),
                "reason" => abort::reason(rt, obj),
                "onabort" => event_target::get_event_handler(rt, obj, "abort"),
                _ => Value::Undefined,
            });
        }
        if rt.lib.events.contains_key(&obj) {
            return event::get(rt, obj, prop);
        }
        if let Some(value) = streams::get(rt, obj, prop) {
            return value;
        }
        if let Some(value) = iterate::get(rt, obj, prop) {
            return value;
        }
        if let Some(value) = writable::get(rt, obj, prop) {
            return value;
        }
        if let Some(value) = transform::get(rt, obj, prop) {
            return value;
        }
        Ok(Value::Undefined)
    }

    fn host_class(rt: &Runtime<Self>, obj: ObjectId) -> HostClass {
        let m = &rt.lib;
        if m.controllers.contains_key(&obj) {
            HostClass::AbortController
        } else if m.signals.contains_key(&obj) {
            HostClass::AbortSignal
        } else if m.targets.contains_key(&obj) {
            HostClass::EventTarget
        } else if m.emitters.contains_key(&obj) {
            HostClass::EventEmitter
        } else if m.on_iterators.contains_key(&obj) {
            HostClass::EventEmitterAsyncIterator
        } else if let Some(class) = m.async_context.host_class(obj) {
            class
        } else if let Some(e) = m.events.get(&obj) {
            // Only a CustomEvent has a detail (null when none was given).
            if e.detail.is_some() {
                HostClass::CustomEvent(e.event_type.clone())
            } else {
                HostClass::Event(e.event_type.clone())
            }
        } else if let Some(class) = streams::host_class(rt, obj) {
            class
        } else if let Some(class) = iterate::host_class(rt, obj) {
            class
        } else if let Some(class) = writable::host_class(rt, obj) {
            class
        } else if let Some(class) = transform::host_class(rt, obj) {
            class
        } else {
            // The Disposable of addAbortListener.
            HostClass::Disposable
        }
    }

    fn dependant_count(rt: &mut Runtime<Self>, signal: Value) -> Completion {
        gc::dependant_count(rt, signal)
    }

    fn trace(rt: &Runtime<Self>, obj: ObjectId, edges: &mut Vec<Value>) {
        gc::trace(rt, obj, edges)
    }

    fn trace_roots(rt: &Runtime<Self>, roots: &mut Vec<Value>) -> bool {
        gc::trace_roots(rt, roots)
    }

    fn collected(rt: &mut Runtime<Self>, dead: &[ObjectId]) {
        gc::collected(rt, dead)
    }

    fn listener_count(rt: &Runtime<Self>, target: ObjectId, event_type: &str) -> u64 {
        event_target::listener_count(rt, target, event_type)
    }
}

/// Runs a scenario on the model and returns its log with the run's
/// statistics (which callback bodies ran, whether a budget stopped it), for
/// judging what a generator produces.
pub fn run_with_stats(scenario: &Scenario, config: &RunConfig) -> (Log, nodesem_runtime::RunStats) {
    nodesem_runtime::run_scenario_with_stats::<Model>(scenario, config)
}

/// The reference model as an engine of the harness.
#[derive(Clone, Copy, Debug, Default)]
pub struct ModelEngine;

impl Engine for ModelEngine {
    fn name(&self) -> String {
        "model".into()
    }

    fn run(&self, scenario: &Scenario, config: &RunConfig) -> Result<Log, EngineError> {
        Ok(nodesem_runtime::run_scenario::<Model>(scenario, config))
    }
}
