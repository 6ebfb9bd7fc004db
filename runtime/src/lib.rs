//! # nodesem-runtime: the substrate both engines stand on
//!
//! The reference model and the optimized implementation differ only in
//! Node's library layer (EventTarget, AbortSignal, ...). Everything beneath
//! it is shared and lives here: values and the heap, promises
//! ([`promise`]), the job queues (`process.nextTick` and microtasks), timers
//! and immediates on a virtual clock ([`event_loop`]), and the interpreter
//! that runs a scenario's statements ([`interp`]). A library plugs in through
//! the [`Library`] trait and gets a complete engine: [`run_scenario`].
//!
//! Architecture invariant: the runtime does no I/O, reads no clock, spawns
//! no thread and reads no environment variable. Time is the virtual clock;
//! everything Node leaves open (such as the order of a 0 ms timer and an
//! immediate) is decided by a rule written down in [`event_loop`].

pub mod async_fn;
pub mod async_gen;
pub mod bytes;
pub mod event_loop;
pub mod gc;
pub mod interp;
pub mod iteration;
pub mod node_errors;
pub mod promise;
pub mod value;

use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

// The runtime's maps are keyed by ids and addresses it made itself: no
// input chooses their keys, so the fast unkeyed hash is safe.
use rustc_hash::{FxHashMap as HashMap, FxHashSet};

use nodesem_lang::{Log, RunConfig, Scenario};

pub use async_gen::AsyncGeneratorState;
pub use event_loop::Task;
pub use gc::Captures;
pub use iteration::{IteratorKind, IteratorRecord, WellKnownSymbol};

pub use promise::{PromiseCapability, PromiseReaction, PromiseState};
pub use value::{
    Completion, Env, ErrorClass, FunctionData, Heap, NativeFn, ObjectData, ObjectId, Symbol, Value,
};

/// The kinds of the library's objects, as the log and `instanceof` tell
/// them apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostClass {
    /// An AbortController.
    AbortController,
    /// An AbortSignal (also an EventTarget).
    AbortSignal,
    /// A plain EventTarget.
    EventTarget,
    /// An EventEmitter.
    EventEmitter,
    /// An Event, with its type.
    Event(Rc<str>),
    /// A CustomEvent (an Event too), with its type.
    CustomEvent(Rc<str>),
    /// The Disposable `addAbortListener` returns: `{ __proto__: null }`, so
    /// not even an `Object`.
    Disposable,
    /// A ReadableStream.
    ReadableStream,
    /// A ReadableStreamDefaultController.
    ReadableStreamDefaultController,
    /// A ReadableStreamDefaultReader.
    ReadableStreamDefaultReader,
    /// A ReadableStream's async iterator (`stream.values()`).
    ReadableStreamAsyncIterator,
    /// A WritableStream.
    WritableStream,
    /// A WritableStreamDefaultController.
    WritableStreamDefaultController,
    /// A WritableStreamDefaultWriter.
    WritableStreamDefaultWriter,
    /// A TransformStream.
    TransformStream,
    /// A TransformStreamDefaultController.
    TransformStreamDefaultController,
    /// A ReadableByteStreamController.
    ReadableByteStreamController,
    /// A ReadableStreamBYOBReader.
    ReadableStreamBYOBReader,
    /// A ReadableStreamBYOBRequest.
    ReadableStreamBYOBRequest,
    /// The async iterator of `events.on(emitter, name)`: an object whose
    /// prototype is %AsyncIteratorPrototype%.
    EventEmitterAsyncIterator,
    /// An AsyncLocalStorage.
    AsyncLocalStorage,
    /// An AsyncResource.
    AsyncResource,
    /// An async context frame (Node's `AsyncContextFrame`, a Map), which no
    /// script reaches.
    AsyncContextFrame,
}

impl HostClass {
    /// The name of the class's constructor, as `constructor.name` and the
    /// log's `[Tag]` print it; `None` for the null-prototype Disposable.
    pub fn constructor_name(&self) -> Option<&'static str> {
        Some(match self {
            HostClass::AbortController => "AbortController",
            HostClass::AbortSignal => "AbortSignal",
            HostClass::EventTarget => "EventTarget",
            HostClass::EventEmitter => "EventEmitter",
            HostClass::Event(_) => "Event",
            HostClass::CustomEvent(_) => "CustomEvent",
            HostClass::Disposable => return None,
            HostClass::ReadableStream => "ReadableStream",
            HostClass::ReadableStreamDefaultController => "ReadableStreamDefaultController",
            HostClass::ReadableStreamDefaultReader => "ReadableStreamDefaultReader",
            // Its prototype inherits `constructor` from Object.prototype
            // (through %AsyncIteratorPrototype%).
            HostClass::ReadableStreamAsyncIterator => "Object",
            // An object literal whose prototype is %AsyncIteratorPrototype%.
            HostClass::EventEmitterAsyncIterator => "Object",
            HostClass::WritableStream => "WritableStream",
            HostClass::WritableStreamDefaultController => "WritableStreamDefaultController",
            HostClass::WritableStreamDefaultWriter => "WritableStreamDefaultWriter",
            HostClass::TransformStream => "TransformStream",
            HostClass::TransformStreamDefaultController => "TransformStreamDefaultController",
            HostClass::ReadableByteStreamController => "ReadableByteStreamController",
            HostClass::ReadableStreamBYOBReader => "ReadableStreamBYOBReader",
            HostClass::ReadableStreamBYOBRequest => "ReadableStreamBYOBRequest",
            HostClass::AsyncLocalStorage => "AsyncLocalStorage",
            HostClass::AsyncResource => "AsyncResource",
            HostClass::AsyncContextFrame => "AsyncContextFrame",
        })
    }

    /// What the log prints between brackets for an object of this class:
    /// its `Symbol.toStringTag`, as `Object.prototype.toString` reads it
    /// (`[AbortSignal]`, `[ReadableStream AsyncIterator]`); `None` for the
    /// classes the log prints otherwise (events).
    pub fn tag(&self) -> Option<&'static str> {
        match self {
            HostClass::Event(_) | HostClass::CustomEvent(_) => None,
            // No `Symbol.toStringTag`: `[object Object]`.
            HostClass::Disposable
            | HostClass::EventEmitter
            | HostClass::EventEmitterAsyncIterator
            | HostClass::AsyncLocalStorage
            | HostClass::AsyncResource => Some("Object"),
            HostClass::AsyncContextFrame => Some("Map"),
            HostClass::ReadableStreamAsyncIterator => Some("ReadableStream AsyncIterator"),
            other => other.constructor_name(),
        }
    }
}

/// The options of `events.on(emitter, name, options)` a scenario passes:
/// each `None` when the object has no such member (all `None`: no options
/// object, `kEmptyObject`).
#[derive(Clone, Debug, Default)]
pub struct EventsOnOptions {
    /// `signal`.
    pub signal: Option<Value>,
    /// `close: [name]`.
    pub close: Option<Value>,
    /// `highWaterMark`.
    pub high_water_mark: Option<Value>,
    /// `lowWaterMark`.
    pub low_water_mark: Option<Value>,
}

/// The underlying source of `new ReadableStream(source, strategy)`, as a
/// scenario writes it: an object whose `start`, `pull` and `cancel`
/// methods, each optional, are script functions. The library calls them
/// with the object as `this` (the Streams Standard's "invoking
/// underlyingSourceDict["start"] with callback this value
/// underlyingSource").
#[derive(Clone, Debug)]
pub struct UnderlyingSource {
    /// The source object itself, `this` in its methods.
    pub object: Value,
    /// `start(controller)`.
    pub start: Option<ObjectId>,
    /// `pull(controller)`.
    pub pull: Option<ObjectId>,
    /// `cancel(reason)`.
    pub cancel: Option<ObjectId>,
}

/// The underlying sink of `new WritableStream(sink, strategy)`: an object
/// whose `start`, `write`, `close` and `abort` methods, each optional, are
/// script functions, called with the object as `this`.
#[derive(Clone, Debug)]
pub struct UnderlyingSink {
    /// The sink object itself, `this` in its methods.
    pub object: Value,
    /// `start(controller)`.
    pub start: Option<ObjectId>,
    /// `write(chunk, controller)`.
    pub write: Option<ObjectId>,
    /// `close()`.
    pub close: Option<ObjectId>,
    /// `abort(reason)`.
    pub abort: Option<ObjectId>,
}

/// The transformer of `new TransformStream(transformer, writableStrategy,
/// readableStrategy)`: an object whose `start`, `transform`, `flush` and
/// `cancel` methods, each optional, are script functions, called with the
/// object as `this`.
#[derive(Clone, Debug)]
pub struct Transformer {
    /// The transformer object itself, `this` in its methods.
    pub object: Value,
    /// `start(controller)`.
    pub start: Option<ObjectId>,
    /// `transform(chunk, controller)`.
    pub transform: Option<ObjectId>,
    /// `flush(controller)`.
    pub flush: Option<ObjectId>,
    /// `cancel(reason)`.
    pub cancel: Option<ObjectId>,
}

/// A queuing strategy (the Streams Standard's QueuingStrategy dictionary):
/// `{ highWaterMark, size }`, each optional. `size` is a script function
/// of `chunk`, called with `this` undefined (a WebIDL callback function).
#[derive(Clone, Debug, Default)]
pub struct QueuingStrategy {
    /// `highWaterMark`, when given.
    pub high_water_mark: Option<f64>,
    /// `size(chunk)`, when given.
    pub size: Option<ObjectId>,
}

/// The options of `pipeTo` and `pipeThrough` (the StreamPipeOptions
/// dictionary), their operands evaluated.
#[derive(Clone, Debug, Default)]
pub struct StreamPipeOptions {
    /// `preventClose`.
    pub prevent_close: bool,
    /// `preventAbort`.
    pub prevent_abort: bool,
    /// `preventCancel`.
    pub prevent_cancel: bool,
    /// `signal`, when given (the script's value, not yet checked to be an
    /// AbortSignal).
    pub signal: Option<Value>,
}

/// The options of `addEventListener`, their operands evaluated.
#[derive(Clone, Debug, Default)]
pub struct AddListenerOptions {
    /// `once: true`.
    pub once: bool,
    /// `capture: true`.
    pub capture: bool,
    /// `passive: true`.
    pub passive: bool,
    /// The `signal` option's value, when one was given.
    pub signal: Option<Value>,
    /// The third argument as a value (`options V`), when the script gave one
    /// instead of the flags above: the library flattens it as Node's
    /// `validateEventListenerOptions` does (a boolean is `capture`, `null`
    /// and `undefined` are no options, an object has none of the flags the
    /// language can set, anything else is refused).
    pub value: Option<Value>,
}

/// The arguments of `new Event(...)` and `new CustomEvent(...)`, evaluated.
#[derive(Clone, Debug, Default)]
pub struct EventInit {
    /// A `CustomEvent`.
    pub custom: bool,
    /// The type; `None` when the constructor gets no arguments.
    pub event_type: Option<Rc<str>>,
    /// `detail`, when given.
    pub detail: Option<Value>,
    /// `bubbles`.
    pub bubbles: bool,
    /// `cancelable`.
    pub cancelable: bool,
    /// `composed`.
    pub composed: bool,
}

/// A library layer: the part of Node that an engine implements (the model
/// or the optimized implementation), as the typed operations a script can
/// perform on it.
///
/// The runtime evaluates every operand, once, in the order JavaScript does
/// (the receiver, then the arguments left to right), charges the work an
/// operation will do ([`RunConfig::work`]), and throws V8's TypeError for a
/// method called on `undefined` or `null` before the arguments are
/// evaluated, as `undefined.abort(x)` does. A library gets values, checks
/// that they are what its algorithms need, and runs them. Every operation
/// of the language's abort and dispatch families is a method here, with no
/// default: a library must say what each one does.
pub trait Library: Sized + 'static {
    /// The library's state for a fresh scenario.
    fn new() -> Self;

    /// Empties the state for another scenario: afterwards it must behave
    /// exactly as [`Library::new`]'s does, keeping only allocated memory
    /// ([`Runtime::pooled`]).
    fn reset(&mut self);

    // ---- AbortController and AbortSignal -------------------------------

    /// `new AbortController()`.
    fn new_abort_controller(rt: &mut Runtime<Self>) -> Completion;

    /// `controller.abort(reason)`; `reason` is `None` when no argument was
    /// passed.
    fn abort(rt: &mut Runtime<Self>, controller: Value, reason: Option<Value>) -> Completion;

    /// `AbortSignal.abort(reason)`.
    fn abort_signal_abort(rt: &mut Runtime<Self>, reason: Option<Value>) -> Completion;

    /// `AbortSignal.timeout(ms)`, on the virtual clock.
    fn abort_signal_timeout(rt: &mut Runtime<Self>, ms: u32) -> Completion;

    /// `AbortSignal.any(signals)`.
    fn abort_signal_any(rt: &mut Runtime<Self>, signals: Vec<Value>) -> Completion;

    /// `signal.throwIfAborted()`.
    fn throw_if_aborted(rt: &mut Runtime<Self>, signal: Value) -> Completion;

    /// `signal.onabort = handler` (the runtime gives the assignment its
    /// value, the handler).
    fn set_onabort(rt: &mut Runtime<Self>, signal: Value, handler: Value) -> Result<(), Value>;

    /// `events.addAbortListener(signal, listener)`, returning its
    /// Disposable.
    fn add_abort_listener(rt: &mut Runtime<Self>, signal: Value, listener: Value) -> Completion;

    /// `disposable[Symbol.dispose]()`.
    fn dispose(rt: &mut Runtime<Self>, disposable: Value) -> Completion;

    // ---- events.setMaxListeners and events.getMaxListeners --------------

    /// `events.setMaxListeners(n, ...targets)`, with one target or more;
    /// its validation errors included.
    fn set_max_listeners(rt: &mut Runtime<Self>, n: Value, targets: Vec<Value>) -> Completion;

    /// `events.getMaxListeners(target)`, for any value.
    fn get_max_listeners(rt: &mut Runtime<Self>, target: Value) -> Completion;

    // ---- EventEmitter (Node's lib/events.js) ---------------------------

    /// `new EventEmitter()`.
    fn new_event_emitter(rt: &mut Runtime<Self>) -> Completion;

    /// `emitter.on(name, listener)` (`addListener`), `prependListener`,
    /// `once` and `prependOnceListener`: returns the emitter. A value that
    /// is not an emitter throws the TypeError its missing method would.
    fn emitter_add_listener(
        rt: &mut Runtime<Self>,
        emitter: Value,
        name: Value,
        listener: Value,
        prepend: bool,
        once: bool,
    ) -> Completion;

    /// `emitter.removeListener(name, listener)`: returns the emitter.
    fn emitter_remove_listener(
        rt: &mut Runtime<Self>,
        emitter: Value,
        name: Value,
        listener: Value,
    ) -> Completion;

    /// `emitter.removeAllListeners(name)`, or of every name when `name` is
    /// `None`: returns the emitter.
    fn emitter_remove_all_listeners(
        rt: &mut Runtime<Self>,
        emitter: Value,
        name: Option<Value>,
    ) -> Completion;

    /// `emitter.emit(name, ...args)`: whether the name had listeners; an
    /// `'error'` without listeners throws.
    fn emitter_emit(
        rt: &mut Runtime<Self>,
        emitter: Value,
        name: Value,
        args: Vec<Value>,
    ) -> Completion;

    /// `emitter.listenerCount(name, listener)`.
    fn emitter_listener_count(
        rt: &mut Runtime<Self>,
        emitter: Value,
        name: Value,
        listener: Option<Value>,
    ) -> Completion;

    /// `emitter.eventNames()`: an array of strings and symbols.
    fn emitter_event_names(rt: &mut Runtime<Self>, emitter: Value) -> Completion;

    /// `emitter.listeners(name)`, or `emitter.rawListeners(name)` when
    /// `raw`: a new array.
    fn emitter_listeners(
        rt: &mut Runtime<Self>,
        emitter: Value,
        name: Value,
        raw: bool,
    ) -> Completion;

    /// `Object.keys(emitter._events).length`: how many string keys the
    /// emitter's `_events` object holds.
    fn emitter_events_key_count(rt: &mut Runtime<Self>, emitter: Value) -> Completion;

    /// `events.errorMonitor`: the one symbol of the run whose listeners
    /// `emit('error', ...)` calls first.
    fn error_monitor(rt: &mut Runtime<Self>) -> Value;

    /// `events.defaultMaxListeners`.
    fn default_max_listeners(rt: &mut Runtime<Self>) -> Value;

    /// `events.defaultMaxListeners = n`, its validation errors included
    /// (the runtime gives the assignment its value, `n`).
    fn set_default_max_listeners(rt: &mut Runtime<Self>, n: Value) -> Result<(), Value>;

    /// `events.once(emitter, name, { signal })` (`signal` is `None` without
    /// options): a promise of the array of the event's arguments.
    fn events_once(
        rt: &mut Runtime<Self>,
        emitter: Value,
        name: Value,
        signal: Option<Value>,
    ) -> Completion;

    /// `new EventEmitter({ captureRejections: true })`.
    fn new_capturing_event_emitter(rt: &mut Runtime<Self>) -> Completion;

    /// `emitter[Symbol.for('nodejs.rejection')] = function`: the method a
    /// capturing emitter calls with a listener's rejection instead of
    /// emitting `'error'` (any value; only a function is called).
    fn emitter_set_rejection_handler(
        rt: &mut Runtime<Self>,
        emitter: Value,
        function: Value,
    ) -> Result<(), Value>;

    /// `events.on(emitter, name, options)`: an async iterator of the
    /// event's emits ([`HostClass::EventEmitterAsyncIterator`]), or what
    /// validation throws.
    fn events_on(
        rt: &mut Runtime<Self>,
        emitter: Value,
        name: Value,
        options: EventsOnOptions,
    ) -> Completion;

    /// `iterator.throw(value)` of an `events.on` iterator: undefined, or
    /// the ERR_INVALID_ARG_TYPE of a value that is no Error.
    fn events_iterator_throw(rt: &mut Runtime<Self>, iterator: Value, value: Value) -> Completion;

    /// `iterator.next()` of an `events.on` iterator: a promise of
    /// `{ value, done }`.
    fn events_iterator_next(rt: &mut Runtime<Self>, iterator: Value) -> Completion;

    /// `iterator.return(value)` of an `events.on` iterator (which ignores
    /// `value`): a promise of `{ value: undefined, done: true }`.
    fn events_iterator_return(rt: &mut Runtime<Self>, iterator: Value) -> Completion;

    // ---- EventTarget and Event -----------------------------------------

    /// `new EventTarget()`.
    fn new_event_target(rt: &mut Runtime<Self>) -> Completion;

    /// `target.addEventListener(type, listener, options)`.
    fn add_event_listener(
        rt: &mut Runtime<Self>,
        target: Value,
        event_type: &str,
        listener: Value,
        options: AddListenerOptions,
    ) -> Completion;

    /// `target.removeEventListener(type, listener, { capture })`.
    fn remove_event_listener(
        rt: &mut Runtime<Self>,
        target: Value,
        event_type: &str,
        listener: Value,
        capture: bool,
    ) -> Completion;

    /// `target.dispatchEvent(new Event(type, { cancelable }))`: the event is
    /// the library's to make, since nothing sees it before the dispatch.
    fn dispatch_new_event(
        rt: &mut Runtime<Self>,
        target: Value,
        event_type: &str,
        cancelable: bool,
    ) -> Completion;

    /// `event.preventDefault()`.
    fn prevent_default(rt: &mut Runtime<Self>, event: Value) -> Completion;

    /// `event.stopPropagation()`.
    fn stop_propagation(rt: &mut Runtime<Self>, event: Value) -> Completion;

    /// `event.stopImmediatePropagation()`.
    fn stop_immediate_propagation(rt: &mut Runtime<Self>, event: Value) -> Completion;

    /// `new Event(type, { bubbles, cancelable, composed })` or `new
    /// CustomEvent(type, { detail, ... })`; without a type, the
    /// constructor called with no arguments.
    fn new_event(rt: &mut Runtime<Self>, init: EventInit) -> Completion;

    /// `new AbortSignal()`.
    fn new_abort_signal(rt: &mut Runtime<Self>) -> Completion;

    /// `target.dispatchEvent(event)` for any value the script passes.
    fn dispatch_event(rt: &mut Runtime<Self>, target: Value, event: Value) -> Completion;

    /// `event.composedPath()`.
    fn composed_path(rt: &mut Runtime<Self>, event: Value) -> Completion;

    /// `event.returnValue = value`.
    fn set_return_value(rt: &mut Runtime<Self>, event: Value, value: Value) -> Completion;

    /// `event.cancelBubble = value`.
    fn set_cancel_bubble(rt: &mut Runtime<Self>, event: Value, value: Value) -> Completion;

    // ---- ReadableStream, its default controller and reader -------------

    /// `new ReadableStream(source, strategy)`.
    fn new_readable_stream(
        rt: &mut Runtime<Self>,
        source: UnderlyingSource,
        strategy: QueuingStrategy,
    ) -> Completion;

    /// `controller.enqueue(chunk)` on a ReadableStreamDefaultController.
    fn readable_controller_enqueue(
        rt: &mut Runtime<Self>,
        controller: Value,
        chunk: Value,
    ) -> Completion;

    /// `controller.close()`.
    fn readable_controller_close(rt: &mut Runtime<Self>, controller: Value) -> Completion;

    /// `controller.error(e)`.
    fn readable_controller_error(
        rt: &mut Runtime<Self>,
        controller: Value,
        error: Value,
    ) -> Completion;

    /// `stream.getReader()`: a ReadableStreamDefaultReader.
    fn readable_get_reader(rt: &mut Runtime<Self>, stream: Value) -> Completion;

    /// `stream.cancel(reason)`, a promise; `reason` is `None` when no
    /// argument was passed.
    fn readable_cancel(rt: &mut Runtime<Self>, stream: Value, reason: Option<Value>) -> Completion;

    /// `reader.read()`: a promise of `{ value, done }`
    /// ([`Runtime::create_iter_result`]).
    fn reader_read(rt: &mut Runtime<Self>, reader: Value) -> Completion;

    /// `reader.releaseLock()`.
    fn reader_release_lock(rt: &mut Runtime<Self>, reader: Value) -> Completion;

    /// `reader.cancel(reason)`, a promise.
    fn reader_cancel(rt: &mut Runtime<Self>, reader: Value, reason: Option<Value>) -> Completion;

    /// `stream.tee()`: an array of the two branches
    /// ([`Runtime::create_array_from_list`]).
    fn readable_tee(rt: &mut Runtime<Self>, stream: Value) -> Completion;

    /// `stream.pipeTo(dest, options)`, a promise.
    fn readable_pipe_to(
        rt: &mut Runtime<Self>,
        stream: Value,
        dest: Value,
        options: StreamPipeOptions,
    ) -> Completion;

    /// `stream.pipeThrough(transform, options)`: the transform's readable
    /// side.
    fn readable_pipe_through(
        rt: &mut Runtime<Self>,
        stream: Value,
        transform: Value,
        options: StreamPipeOptions,
    ) -> Completion;

    /// `ReadableStream.from(iterable)`: `iterable` is an array (a sync
    /// iterable) or an async generator object ([`Runtime::new_async_generator`]).
    fn readable_from(rt: &mut Runtime<Self>, iterable: Value) -> Completion;

    /// `stream.values({ preventCancel })`: the stream's async iterator.
    fn readable_values(rt: &mut Runtime<Self>, stream: Value, prevent_cancel: bool) -> Completion;

    /// `iterator.next()` on a stream's async iterator, a promise of `{
    /// value, done }`.
    fn async_iterator_next(rt: &mut Runtime<Self>, iterator: Value) -> Completion;

    /// `iterator.return(value)` on a stream's async iterator, a promise of
    /// `{ value, done }`; `value` is `None` when no argument was passed.
    fn async_iterator_return(
        rt: &mut Runtime<Self>,
        iterator: Value,
        value: Option<Value>,
    ) -> Completion;

    // ---- byte streams: ReadableByteStreamController, BYOB reader -------

    /// `new ReadableStream({ type: "bytes", autoAllocateChunkSize, ... },
    /// strategy)`; `auto_allocate_chunk_size` is `None` when the source
    /// gives none.
    fn new_readable_byte_stream(
        rt: &mut Runtime<Self>,
        source: UnderlyingSource,
        strategy: QueuingStrategy,
        auto_allocate_chunk_size: Option<f64>,
    ) -> Completion;

    /// `controller.enqueue(chunk)` on a ReadableByteStreamController.
    fn byte_controller_enqueue(
        rt: &mut Runtime<Self>,
        controller: Value,
        chunk: Value,
    ) -> Completion;

    /// `controller.close()` on a ReadableByteStreamController.
    fn byte_controller_close(rt: &mut Runtime<Self>, controller: Value) -> Completion;

    /// `controller.error(e)` on a ReadableByteStreamController.
    fn byte_controller_error(rt: &mut Runtime<Self>, controller: Value, error: Value)
        -> Completion;

    /// `request.respond(bytesWritten)` on a ReadableStreamBYOBRequest.
    fn byob_request_respond(
        rt: &mut Runtime<Self>,
        request: Value,
        bytes_written: Value,
    ) -> Completion;

    /// `request.respondWithNewView(view)`.
    fn byob_request_respond_with_new_view(
        rt: &mut Runtime<Self>,
        request: Value,
        view: Value,
    ) -> Completion;

    /// `stream.getReader({ mode: "byob" })`: a ReadableStreamBYOBReader.
    fn readable_get_byob_reader(rt: &mut Runtime<Self>, stream: Value) -> Completion;

    /// `reader.read(view, { min })` on a BYOB reader, a promise of `{
    /// value, done }`; `min` is `None` when no options are passed.
    fn byob_reader_read(
        rt: &mut Runtime<Self>,
        reader: Value,
        view: Value,
        min: Option<Value>,
    ) -> Completion;

    /// `reader.releaseLock()` on a BYOB reader.
    fn byob_reader_release_lock(rt: &mut Runtime<Self>, reader: Value) -> Completion;

    /// `reader.cancel(reason)` on a BYOB reader, a promise.
    fn byob_reader_cancel(
        rt: &mut Runtime<Self>,
        reader: Value,
        reason: Option<Value>,
    ) -> Completion;

    // ---- WritableStream, its default controller and writer -------------

    /// `new WritableStream(sink, strategy)`.
    fn new_writable_stream(
        rt: &mut Runtime<Self>,
        sink: UnderlyingSink,
        strategy: QueuingStrategy,
    ) -> Completion;

    /// `stream.abort(reason)`, a promise.
    fn writable_abort(rt: &mut Runtime<Self>, stream: Value, reason: Option<Value>) -> Completion;

    /// `stream.close()`, a promise.
    fn writable_close(rt: &mut Runtime<Self>, stream: Value) -> Completion;

    /// `stream.getWriter()`: a WritableStreamDefaultWriter.
    fn writable_get_writer(rt: &mut Runtime<Self>, stream: Value) -> Completion;

    /// `controller.error(e)` on a WritableStreamDefaultController.
    fn writable_controller_error(
        rt: &mut Runtime<Self>,
        controller: Value,
        error: Value,
    ) -> Completion;

    /// `writer.write(chunk)`, a promise.
    fn writer_write(rt: &mut Runtime<Self>, writer: Value, chunk: Value) -> Completion;

    /// `writer.close()`, a promise.
    fn writer_close(rt: &mut Runtime<Self>, writer: Value) -> Completion;

    /// `writer.abort(reason)`, a promise.
    fn writer_abort(rt: &mut Runtime<Self>, writer: Value, reason: Option<Value>) -> Completion;

    /// `writer.releaseLock()`.
    fn writer_release_lock(rt: &mut Runtime<Self>, writer: Value) -> Completion;

    // ---- TransformStream and its default controller --------------------

    /// `new TransformStream(transformer, writableStrategy,
    /// readableStrategy)`.
    fn new_transform_stream(
        rt: &mut Runtime<Self>,
        transformer: Transformer,
        writable_strategy: QueuingStrategy,
        readable_strategy: QueuingStrategy,
    ) -> Completion;

    /// `controller.enqueue(chunk)` on a TransformStreamDefaultController.
    fn transform_controller_enqueue(
        rt: &mut Runtime<Self>,
        controller: Value,
        chunk: Value,
    ) -> Completion;

    /// `controller.error(e)` on a TransformStreamDefaultController.
    fn transform_controller_error(
        rt: &mut Runtime<Self>,
        controller: Value,
        error: Value,
    ) -> Completion;

    /// `controller.terminate()`.
    fn transform_controller_terminate(rt: &mut Runtime<Self>, controller: Value) -> Completion;

    // ---- async context ------------------------------------------------
    //
    // The runtime keeps the current async context frame (V8's
    // continuation-preserved embedder data, [`Runtime::context_frame`]) and
    // gives every tick, microtask, promise reaction, timer and immediate the
    // frame current when it was made; the library says what a frame is and
    // how AsyncLocalStorage and AsyncResource read and change it.

    /// `new AsyncLocalStorage()`, or with `{ defaultValue }` when `default`
    /// is given.
    fn new_async_local_storage(rt: &mut Runtime<Self>, default: Option<Value>) -> Completion;

    /// `als.getStore()`.
    fn als_get_store(rt: &mut Runtime<Self>, als: Value) -> Completion;

    /// `als.enterWith(store)`.
    fn als_enter_with(rt: &mut Runtime<Self>, als: Value, store: Value) -> Completion;

    /// `als.run(store, f)`: calls `f` with no arguments, its value.
    fn als_run(rt: &mut Runtime<Self>, als: Value, store: Value, f: ObjectId) -> Completion;

    /// `als.exit(f)`.
    fn als_exit(rt: &mut Runtime<Self>, als: Value, f: ObjectId) -> Completion;

    /// `als.disable()`.
    fn als_disable(rt: &mut Runtime<Self>, als: Value) -> Completion;

    /// `AsyncLocalStorage.bind(f)`: a function.
    fn als_bind(rt: &mut Runtime<Self>, f: Value) -> Completion;

    /// `AsyncLocalStorage.snapshot()`: a function.
    fn als_snapshot(rt: &mut Runtime<Self>) -> Completion;

    /// `new AsyncResource(type)`.
    fn new_async_resource(rt: &mut Runtime<Self>, kind: Value) -> Completion;

    /// `resource.runInAsyncScope(f)`: calls `f` with no arguments, its value.
    fn async_resource_run(rt: &mut Runtime<Self>, resource: Value, f: ObjectId) -> Completion;

    /// `resource.bind(f)`: a function.
    fn async_resource_bind(rt: &mut Runtime<Self>, resource: Value, f: Value) -> Completion;

    /// `resource.emitDestroy()`: the resource.
    fn async_resource_emit_destroy(rt: &mut Runtime<Self>, resource: Value) -> Completion;

    /// A native call into JavaScript from an event-loop callback, with
    /// nothing of the script below it: `node::MakeCallback(isolate, recv,
    /// f, 0, nullptr, async_context)` (`resource_frame` is `None`), or
    /// `node::AsyncResource::MakeCallback` on a resource made when the
    /// callback was scheduled, when the frame current then was
    /// `resource_frame`. The library opens and closes Node's
    /// InternalCallbackScope around the call (the frame it runs in, the
    /// drain of the tick and microtask queues when the outermost scope
    /// closes; [`Runtime::open_callback_scope`]). What the callback throws
    /// is the library's to report.
    fn make_callback(
        rt: &mut Runtime<Self>,
        f: ObjectId,
        recv: Value,
        resource_frame: Option<Value>,
    );

    // ---- garbage collection ([`gc`]) ----------------------------------

    /// `dependants S`: the size of the signal's set of dependant signals as
    /// Node 26.12.1's `signal[kDependantSignals]?.size ?? 0` reports it
    /// (entries for collected composites count until the cleanup callback
    /// that removes them has run); V8's TypeError-free 0 for a value that
    /// is no signal.
    fn dependant_count(rt: &mut Runtime<Self>, signal: Value) -> Completion;

    /// The objects that the library object `obj` holds strongly (its
    /// listeners, reason, signal, ...), pushed on `edges`. What it holds
    /// weakly (Node's WeakRefs) it must not report.
    fn trace(rt: &Runtime<Self>, obj: ObjectId, edges: &mut Vec<Value>);

    /// The library's roots, pushed on `roots`: what it keeps alive though no
    /// object reaches it (Node's `gcPersistentSignals`, work in flight).
    /// Returns false when it cannot tell (its state holds objects it does
    /// not trace): the collection then collects nothing.
    fn trace_roots(rt: &Runtime<Self>, roots: &mut Vec<Value>) -> bool;

    /// After a collection, before the slots of `dead` are emptied: the
    /// library forgets them (entries keyed by them; it may read their state
    /// one last time) and checks its invariants.
    fn collected(rt: &mut Runtime<Self>, dead: &[ObjectId]);

    // ---- what the runtime asks of the library's objects ----------------

    /// Reads a property of one of the library's objects.
    fn get(rt: &mut Runtime<Self>, obj: ObjectId, prop: &str) -> Completion;

    /// What one of the library's objects is: how the log prints it
    /// (`[AbortSignal]`, `Event(abort)`) and what `instanceof` says of it.
    fn host_class(rt: &Runtime<Self>, obj: ObjectId) -> HostClass;

    /// How many listeners of `event_type` the EventTarget (or AbortSignal)
    /// `target` has, counted as Node's `events.getEventListeners(target,
    /// type).length` counts them: the nodes linked from the type's root, an
    /// `onabort` wrapper included; 0 for an object that is not an
    /// EventTarget. Operations that walk the list cost this many steps of
    /// work ([`RunConfig::work`]), in every engine.
    fn listener_count(rt: &Runtime<Self>, target: ObjectId, event_type: &str) -> u64;
}

/// A job in the microtask queue (ECMA-262 HostEnqueuePromiseJob, and Node's
/// `queueMicrotask`).
pub enum Job<L: 'static> {
    /// NewPromiseReactionJob.
    PromiseReaction {
        /// The reaction.
        reaction: PromiseReaction,
        /// Its argument.
        argument: Value,
    },
    /// NewPromiseResolveThenableJob.
    ResolveThenable {
        /// The promise to resolve.
        promise: ObjectId,
        /// The thenable (a promise or a `thenable` object).
        thenable: ObjectId,
    },
    /// `queueMicrotask(fn)` or a library's own microtask.
    Task(Task<L>),
}

/// A timer on the virtual clock.
pub(crate) struct TimerEntry<L: 'static> {
    pub(crate) id: u64,
    /// The async context frame current when it was made ([`Runtime::context_frame`]).
    pub(crate) frame: Value,
    pub(crate) refed: bool,
    pub(crate) task: Task<L>,
    /// An interval's: it goes back on the list after its callback.
    pub(crate) repeating: bool,
}

/// One scenario's running state: heap, queues, clock, log and the library.
pub struct Runtime<L: 'static> {
    /// Every object of the scenario.
    pub heap: Heap<L>,
    /// The library's state.
    pub lib: L,
    /// The limits.
    pub config: RunConfig,
    log: Log,
    /// Each with the async context frame it runs in.
    ticks: VecDeque<(Value, Task<L>)>,
    /// Each with the async context frame it runs in.
    microtasks: VecDeque<(Value, Job<L>)>,
    pub(crate) pending_unhandled_rejections: Vec<ObjectId>,
    /// Rejections reported as unhandled that have no handler yet (Node's
    /// `warned` promises of `maybeUnhandledPromises`).
    pub(crate) reported_rejections: FxHashSet<ObjectId>,
    /// Reported rejections that got a handler since the last
    /// processPromiseRejections (Node's `asyncHandledRejections`).
    pub(crate) handled_after_report: Vec<ObjectId>,
    /// The virtual clock, in ms.
    now: u64,
    /// Timers by (deadline, creation sequence).
    timers: BTreeMap<(u64, u64), TimerEntry<L>>,
    /// Timer id to its key in `timers`, while pending.
    timer_keys: HashMap<u64, (u64, u64)>,
    immediates: VecDeque<(u64, Value, Task<L>)>,
    /// The current async context frame: V8's continuation-preserved
    /// embedder data, which Node's `AsyncContextFrame.current()` reads
    /// ([`Runtime::context_frame`]).
    pub(crate) frame: Value,
    /// The main script's frame between two of its parts.
    pub(crate) main_frame: Value,
    /// How many callback scopes are open (Node's
    /// `env->async_callback_scope_depth()`).
    pub(crate) callback_scopes: u32,
    next_seq: u64,
    steps: u32,
    depth: u32,
    /// Steps of work charged so far ([`RunConfig::work`]).
    work: u64,
    /// Bytes in the log so far ([`RunConfig::max_log_bytes`]).
    log_bytes: u64,
    /// The work weight of each composite signal `AbortSignal.any` made (see
    /// [`Runtime::charge_any`]).
    pub(crate) any_weights: HashMap<ObjectId, u64>,
    /// The signal each Disposable of `addAbortListener` removes from.
    pub(crate) disposable_signals: HashMap<ObjectId, Value>,
    /// The callback blocks called so far, by their identity (for
    /// [`RunStats`]).
    pub(crate) bodies_run: FxHashSet<u64>,
    /// The intervals whose callback runs now, by id, with whether they are
    /// ref'd: cleared meanwhile, one leaves this map and is not re-armed.
    pub(crate) running_intervals: HashMap<u64, bool>,
    /// Whether to record which bodies ran ([`RunStats`]).
    pub(crate) collect_stats: bool,
    stopped: bool,
    /// Whether the engine's `process.on('uncaughtException')` handler is
    /// installed (until `process off uncaughtException`).
    pub(crate) uncaught_handler: bool,
    /// Whether its `process.on('unhandledRejection')` handler is.
    pub(crate) rejection_handler: bool,
    /// Whether the process exited (an uncaught exception without a
    /// handler): the run is stopped, though not by its budget.
    pub(crate) exited: bool,
    /// Whether a library step raised Node's ERR_INTERNAL_ASSERTION where it
    /// cannot return it ([`Runtime::raise_internal_assertion`]).
    internal_assertion: bool,
    /// The collector's state: roots, kept objects, dirty registries
    /// ([`gc`]).
    pub(crate) gc: gc::GcState,
}

impl<L: Library> Runtime<L> {
    /// A fresh runtime for one scenario.
    pub fn new(config: RunConfig) -> Self {
        Runtime {
            heap: Heap::default(),
            lib: L::new(),
            config,
            // A generated scenario logs a few dozen lines: growing the list
            // from empty reallocated it five or six times.
            log: Log {
                lines: Vec::with_capacity(64),
            },
            ticks: VecDeque::new(),
            microtasks: VecDeque::new(),
            pending_unhandled_rejections: Vec::new(),
            reported_rejections: FxHashSet::default(),
            handled_after_report: Vec::new(),
            now: 0,
            timers: BTreeMap::new(),
            timer_keys: HashMap::default(),
            immediates: VecDeque::new(),
            frame: Value::Undefined,
            main_frame: Value::Undefined,
            callback_scopes: 0,
            next_seq: 0,
            steps: 0,
            depth: 0,
            work: 0,
            log_bytes: 0,
            any_weights: HashMap::default(),
            disposable_signals: HashMap::default(),
            bodies_run: FxHashSet::default(),
            // A generated scenario makes functions from a dozen blocks:
            // growing the cache from empty rehashed it several times.
            running_intervals: HashMap::default(),
            collect_stats: false,
            stopped: false,
            uncaught_handler: true,
            rejection_handler: true,
            exited: false,
            internal_assertion: false,
            gc: gc::GcState::default(),
        }
    }

    /// Forgets an ERR_INTERNAL_ASSERTION that no operation threw, before an
    /// operation that would throw one ([`Runtime::raise_internal_assertion`]).
    pub fn clear_internal_assertion(&mut self) {
        self.internal_assertion = false;
    }

    /// Records that a library step deep inside an operation failed one of
    /// Node's own `assert()`s, where the step cannot return the exception
    /// (a read request's close steps inside ReadableStreamClose, say): the
    /// operation that started it throws it when it returns
    /// ([`Runtime::take_internal_assertion`]). Node stops at the throw; an
    /// engine using this finishes the rest of the operation first.
    pub fn raise_internal_assertion(&mut self) {
        self.internal_assertion = true;
    }

    /// The ERR_INTERNAL_ASSERTION raised since
    /// [`Runtime::clear_internal_assertion`], if any, as Node's error.
    pub fn take_internal_assertion(&mut self) -> Option<Value> {
        if !std::mem::take(&mut self.internal_assertion) {
            return None;
        }
        Some(self.internal_assertion_error())
    }

    /// Appends a line to the log, unless the scenario was stopped. A line
    /// that would take the log past [`RunConfig::max_log_bytes`] stops the
    /// scenario instead.
    ///
    /// A line never holds a line break: `\n` and `\r` in a logged value
    /// (an error message, a string) are written as those two-character
    /// escapes, so that one event stays one line wherever the log goes.
    pub fn log_line(&mut self, line: String) {
        if self.stopped {
            return;
        }
        let line = if memchr::memchr2(b'\n', b'\r', line.as_bytes()).is_some() {
            line.replace('\r', "\\r").replace('\n', "\\n")
        } else {
            line
        };
        let bytes = line.len() as u64 + 1;
        if self.log_bytes + bytes > self.config.max_log_bytes {
            let limit = self.config.max_log_bytes;
            self.stop(format!("the log would be larger than {limit} bytes"));
            return;
        }
        self.log_bytes += bytes;
        self.log.push(line);
    }

    /// Charges `steps` steps of work ([`RunConfig::work`]); past the budget
    /// the scenario stops. Returns whether it may go on.
    pub fn charge(&mut self, steps: u64) -> bool {
        if self.stopped {
            return false;
        }
        self.work = self.work.saturating_add(steps);
        if self.work > self.config.work {
            let work = self.config.work;
            self.stop(format!("more than {work} steps of work"));
            return false;
        }
        true
    }

    /// The virtual time, in ms.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Whether the scenario was stopped by its budget.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Stops the scenario with one log line; nothing runs or logs after it.
    pub fn stop(&mut self, why: String) {
        if !self.stopped {
            self.log.push(format!("budget exhausted: {why}"));
            self.stopped = true;
        }
    }

    /// The log so far.
    pub fn log(&self) -> &Log {
        &self.log
    }

    /// The log, once the run is over. The runtime itself goes back to this
    /// thread's spare (see [`Runtime::pooled`]).
    pub fn into_log(mut self: Box<Self>) -> Log {
        // The next log is likely as long as this one: one allocation for
        // it, where growing from empty made four.
        let capacity = self.log.lines.len();
        let log = std::mem::replace(
            &mut self.log,
            Log {
                lines: Vec::with_capacity(capacity),
            },
        );
        // A run that made a great many objects leaves tables that size:
        // not worth keeping for the next, usually small, scenario.
        if self.heap.len() <= SPARE_MAX_OBJECTS {
            SPARE_RUNTIMES.with(|spare| {
                spare.borrow_mut().insert(std::any::TypeId::of::<L>(), self);
            });
        }
        log
    }

    /// A runtime for a new scenario, as [`Runtime::new`] makes it, but
    /// reusing the memory of the one this thread's last run with library `L`
    /// gave back through [`Runtime::into_log`]. The fuzz loop runs tens of
    /// thousands of small scenarios a second on each thread: growing every
    /// table from empty again each time was a tenth of the work. Boxed, so
    /// that going to the spare and back moves no runtime.
    pub fn pooled(config: RunConfig) -> Box<Self> {
        let spare =
            SPARE_RUNTIMES.with(|spare| spare.borrow_mut().remove(&std::any::TypeId::of::<L>()));
        match spare.and_then(|rt| rt.downcast::<Runtime<L>>().ok()) {
            Some(mut rt) => {
                rt.reset(config);
                rt
            }
            None => Box::new(Runtime::new(config)),
        }
    }

    /// Empties the runtime for a new scenario: afterwards it behaves as
    /// `Runtime::new(config)` does, with the allocations it had. Every field
    /// is named, so that a new one cannot be forgotten here.
    fn reset(&mut self, new_config: RunConfig) {
        let Runtime {
            heap,
            lib,
            config,
            log,
            ticks,
            microtasks,
            pending_unhandled_rejections,
            reported_rejections,
            handled_after_report,
            now,
            timers,
            timer_keys,
            immediates,
            frame,
            main_frame,
            callback_scopes,
            next_seq,
            steps,
            depth,
            work,
            log_bytes,
            any_weights,
            disposable_signals,
            bodies_run,
            running_intervals,
            collect_stats,
            stopped,
            uncaught_handler,
            rejection_handler,
            exited,
            internal_assertion,
            gc,
        } = self;
        // Tasks and jobs first: their closures hold values of the heap.
        gc.clear();
        ticks.clear();
        microtasks.clear();
        immediates.clear();
        timers.clear();
        *frame = Value::Undefined;
        *main_frame = Value::Undefined;
        *callback_scopes = 0;
        heap.clear();
        lib.reset();
        *config = new_config;
        log.lines.clear();
        pending_unhandled_rejections.clear();
        reported_rejections.clear();
        handled_after_report.clear();
        *now = 0;
        timer_keys.clear();
        *next_seq = 0;
        *steps = 0;
        *depth = 0;
        *work = 0;
        *log_bytes = 0;
        any_weights.clear();
        disposable_signals.clear();
        bodies_run.clear();
        running_intervals.clear();
        *collect_stats = false;
        *stopped = false;
        *uncaught_handler = true;
        *rejection_handler = true;
        *exited = false;
        *internal_assertion = false;
    }

    /// The next creation sequence number (shared by timers and immediates).
    fn seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }
}

/// The most objects a run may have made for its runtime to be kept for the
/// next run ([`Runtime::into_log`]): a few megabytes of tables per thread.
/// It was 4,096, which the seed-shapes bench's 200-stream scenarios crossed
/// in impl (about 4,200 objects) and not in the model (about 4,000), so
/// only impl grew its tables from empty on every run, and the comparison
/// measured that instead of the libraries.
const SPARE_MAX_OBJECTS: usize = 1 << 15;

thread_local! {
    /// Per thread, the last runtime each library ran on, emptied for reuse
    /// ([`Runtime::pooled`]); keyed by the library's type.
    static SPARE_RUNTIMES: std::cell::RefCell<HashMap<std::any::TypeId, Box<dyn std::any::Any>>> =
        std::cell::RefCell::new(HashMap::default());
}

/// Runs a scenario on the runtime with library `L` and returns its log.
#[inline(never)] // a profiler can collect exactly the run (harness/examples/profile.rs)
pub fn run_scenario<L: Library>(scenario: &Scenario, config: &RunConfig) -> Log {
    let mut rt = Runtime::<L>::pooled(*config);
    rt.run_main(scenario);
    rt.into_log()
}

/// What a run did besides its log, for judging generated scenarios: how
/// many of the scenario's callback bodies ever ran, and whether a budget
/// stopped it. Nothing here is observable by a script.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Callback blocks in the scenario's text (listeners, `fn`, reactions,
    /// microtasks, ticks, timers, immediates; not `try` or `repeat` blocks).
    pub bodies: usize,
    /// Of those, how many were called at least once.
    pub bodies_run: usize,
    /// Whether the scenario ended with a `budget exhausted` line.
    pub budget_exhausted: bool,
    /// Steps of work charged ([`RunConfig::work`]).
    pub work: u64,
}

/// [`run_scenario`], with the [`RunStats`] of the run.
pub fn run_scenario_with_stats<L: Library>(
    scenario: &Scenario,
    config: &RunConfig,
) -> (Log, RunStats) {
    let mut rt = Runtime::<L>::pooled(*config);
    rt.collect_stats = true;
    rt.run_main(scenario);
    let mut bodies = std::collections::HashSet::new();
    interp::callback_blocks(&scenario.body, &mut bodies);
    let stats = RunStats {
        bodies: bodies.len(),
        bodies_run: bodies.iter().filter(|b| rt.bodies_run.contains(b)).count(),
        budget_exhausted: rt.stopped && !rt.exited,
        work: rt.work,
    };
    (rt.into_log(), stats)
}
