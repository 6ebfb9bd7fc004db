//! # nodesem-impl: the optimized implementation
//!
//! Node's EventTarget, Event, AbortController, AbortSignal and
//! `events.addAbortListener`, with the same observable behaviour as the
//! reference model and as Node 26.12.1, but built the way Node's optimized
//! library code is built: the fast paths and bookkeeping of
//! `seeds/abort-signal-speedup.txt` (each one is commented with the seed
//! item it mirrors, as `Seed ("...")`). Diffing this crate against the model,
//! which is written independently as a transcription of the specs, is what
//! finds the bugs such optimizations introduce; the [`Mutant`]s put known
//! ones back to measure that.
//!
//! Layout:
//! - `listeners`: the per-type intrusive listener lists in an index-linked
//!   arena, with Node's flag bits;
//! - `event`: an Event as one record with flag bits;
//! - `event_target`: `addEventListener`, `removeEventListener` and the
//!   dispatch walk;
//! - `abort`: AbortController, AbortSignal (abort, `any`, `timeout`,
//!   `onabort`) and `addAbortListener`;
//! - `streams`: ReadableStream, its default controller and reader, `tee`,
//!   size strategies;
//! - `writable`: WritableStream, its default controller (with its
//!   AbortController's signal) and writer;
//! - `transformstream`: TransformStream and its default controller;
//! - `pipe`: `pipeTo` and `pipeThrough`;
//! - `emitter`: EventEmitter, as `lib/events.js` builds it;
//! - [`mutant`]: the switchable bugs.
//!
//! Every library object is an [`ObjectData::Host`] in the runtime's heap; its
//! state lives in dense tables of [`Impl`], found through one slot per heap
//! object (no hashing on any path).
//!
//! Architecture invariants: impl never depends on the model; it does no
//! I/O, reads no clock and spawns no thread.

mod abort;
mod async_context;
mod emitter;
mod event;
mod event_target;
mod events_on;
mod gc;
mod iterate;
mod listeners;
pub mod mutant;
mod pipe;
mod streams;
mod transformstream;
mod writable;

use std::rc::Rc;

use nodesem_lang::{Engine, EngineError, Log, RunConfig, Scenario};
use nodesem_runtime::{
    AddListenerOptions, Completion, EventInit, HostClass, Library, ObjectData, ObjectId,
    QueuingStrategy, Runtime, StreamPipeOptions, Transformer, UnderlyingSink, UnderlyingSource,
    Value,
};

pub use mutant::{Mutant, UnknownMutant};

use abort::{Disposable, Registration, SignalData};
use event::EventData;
use event_target::TargetData;
use listeners::Listeners;
use streams::byte_streams;

/// The runtime with this library.
pub(crate) type Rt = Runtime<Impl>;

/// The interned type `"abort"`.
pub(crate) const ABORT: u32 = 0;

/// What a heap object is to this library, with the index of its state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// Not one of the library's objects.
    None,
    /// An AbortController; the index of its signal.
    Controller(u32),
    /// An AbortSignal.
    Signal(u32),
    /// A plain EventTarget.
    Target(u32),
    /// An Event.
    Event(u32),
    /// The Disposable of `addAbortListener`.
    Disposable(u32),
    /// A ReadableStream (`streams`).
    ReadableStream(u32),
    /// A ReadableStreamDefaultController.
    ReadableController(u32),
    /// A ReadableStreamDefaultReader.
    ReadableReader(u32),
    /// A ReadableStream's async iterator (`iterate`).
    ReadableIterator(u32),
    /// A WritableStream (`writable`).
    WritableStream(u32),
    /// A WritableStreamDefaultController (its stream's index).
    WritableController(u32),
    /// A WritableStreamDefaultWriter.
    WritableWriter(u32),
    /// A TransformStream (`transformstream`).
    TransformStream(u32),
    /// A TransformStreamDefaultController (its stream's index).
    TransformController(u32),
    /// A ReadableByteStreamController (`streams::byte_streams`).
    ByteController(u32),
    /// A ReadableStreamBYOBReader (its index among the readers).
    ByobReader(u32),
    /// A ReadableStreamBYOBRequest.
    ByobRequest(u32),
    /// The arrow of a `signal` option's remover (`gc.rs`), never handed to
    /// a script.
    Remover(u32),
    /// The hidden object standing for the state a tee's closures share
    /// (its index), never handed to a script: what holds it in Node (the
    /// branches' algorithms, the read request, the reader's hook) holds
    /// this object, and its trace lists the record's fields.
    TeeState(u32),
    /// The same for a byte tee.
    ByteTeeState(u32),
    /// The same for a pipe's shared state (`readableStreamPipeTo`'s
    /// closures).
    PipeState(u32),
    /// The same for `ReadableStream.from`'s closures (`iterator`,
    /// `nextMethod`, `stream`).
    FromState(u32),
    /// The same for an async iterator's `state` and `reader`, which its
    /// read requests and closures hold without the iterator object.
    IteratorState(u32),
    /// An EventEmitter (`emitter`).
    Emitter(u32),
    /// A once wrapper function (`emitter`): the id of the listener it
    /// wraps, its `.listener`.
    OnceWrapper(u32),
    /// The async iterator of `events.on` (`events_on`), its context's index.
    OnIterator(u32),
    /// The hidden object standing for the context `events.on`'s closures
    /// share (its index), never handed to a script.
    OnState(u32),
    /// An AsyncLocalStorage (`async_context`).
    Storage(u32),
    /// An async context frame, never handed to a script.
    Frame(u32),
    /// An AsyncResource.
    Resource(u32),
}

/// The library state of one scenario: the optimized implementation.
pub struct Impl {
    /// The switched-on bug, if any (see [`Mutant`]).
    pub mutant: Option<Mutant>,
    /// One slot per heap object, by `ObjectId`.
    slots: Vec<Slot>,
    /// Event types, interned; `ABORT` is 0.
    types: Vec<Rc<str>>,
    /// Every listener node and root.
    listeners: Listeners,
    /// EventTargets, signals' included.
    targets: Vec<TargetData>,
    signals: Vec<SignalData>,
    events: Vec<EventData>,
    /// The details of CustomEvents, by [`EventData::detail`].
    details: Vec<Value>,
    disposables: Vec<Disposable>,
    /// `AbortSignal.timeout` holders: the pending timer, emptied when it
    /// fires (seed: "the registry holds the timer through a small holder").
    timeout_holders: Vec<Option<u64>>,
    /// A record of the FinalizationRegistry registrations made: one per
    /// composite and one per source, never tokened, and the timeouts'.
    registrations: Vec<Registration>,
    /// The library's FinalizationRegistries (`gc.rs`).
    registries: gc::Registries,
    /// The `signal` option's removers (`gc.rs`).
    removers: Vec<gc::RemoverData>,
    /// What running library code holds in its locals (a dispatch's target
    /// and event, an abort's dependants to fire): roots while it runs.
    in_flight: Vec<Value>,
    /// ReadableStreams, their controllers and readers.
    streams: streams::Streams,
    /// WritableStreams, their controllers and writers.
    writables: writable::Writables,
    /// TransformStreams (and their controllers).
    transforms: Vec<transformstream::TransformData>,
    /// The pipes of `pipeTo` and `pipeThrough`.
    pipes: Vec<pipe::PipeData>,
    /// EventEmitters (`emitter`).
    emitters: Vec<emitter::EmitterData>,
    /// The listener arrays running emitter code walks (an emit's
    /// `handler`, `removeAllListeners`' LIFO walk): roots while it runs.
    held_arrays: Vec<emitter::ListenerArray>,
    /// AsyncLocalStorages, frames and AsyncResources.
    async_context: async_context::AsyncContext,
    /// The `_events` objects that emits of 'error' hold across their
    /// errorMonitor emit: roots while they run.
    held_events: Vec<emitter::Events>,
    /// `events.defaultMaxListeners` (lib/events.js's module variable).
    default_max_listeners: f64,
    /// `events.errorMonitor`, once a run read it.
    error_monitor: Option<nodesem_runtime::Symbol>,
    /// The contexts of `events.on` calls.
    on_states: Vec<events_on::OnState>,
    /// Each emitter's `kCapture` and `kRejection`, by emitter index (grown
    /// on demand).
    emitter_extras: Vec<events_on::EmitterExtras>,
}

impl Impl {
    /// Records what a new heap object is.
    pub(crate) fn set_slot(&mut self, obj: ObjectId, slot: Slot) {
        let i = obj.0 as usize;
        if self.slots.len() <= i {
            self.slots.resize(i + 1, Slot::None);
        }
        self.slots[i] = slot;
    }

    /// What a heap object is.
    #[inline]
    pub(crate) fn slot(&self, obj: ObjectId) -> Slot {
        self.slots
            .get(obj.0 as usize)
            .copied()
            .unwrap_or(Slot::None)
    }

    /// The interned id of an event type.
    pub(crate) fn intern(&mut self, ty: &str) -> u32 {
        if self.mutant == Some(Mutant::TypeInternedByLength) {
            // Looked up by its length alone: the first type as long wins.
            if let Some(i) = self.types.iter().position(|t| t.len() == ty.len()) {
                return i as u32;
            }
        }
        if let Some(i) = self.types.iter().position(|t| &**t == ty) {
            return i as u32;
        }
        self.types.push(Rc::from(ty));
        (self.types.len() - 1) as u32
    }

    /// The text of an interned event type.
    pub(crate) fn type_name(&self, ty: u32) -> &str {
        &self.types[ty as usize]
    }
}

/// Counts of the implementation's internal bookkeeping after a run, for
/// tests that pin the seed's fast paths down (nothing here is observable
/// by a script).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bookkeeping {
    /// Events made (abort events and dispatched events).
    pub events: usize,
    /// Listener nodes and roots the arena ever held (its high-water mark).
    pub listener_nodes: usize,
    /// Registrations of composites (at most one each).
    pub composite_registrations: usize,
    /// Registrations of sources (at most one each).
    pub source_registrations: usize,
    /// Registrations of timeout signals.
    pub timeout_registrations: usize,
    /// Timeout holders still holding a pending timer.
    pub armed_timeout_holders: usize,
    /// Entries in all dependant lists together.
    pub dependant_entries: usize,
    /// Signals that ever allocated a dependant list.
    pub dependant_lists: usize,
    /// Signals now in `gcPersistentSignals`.
    pub gc_persistent_signals: usize,
}

impl Impl {
    /// The bookkeeping counts (see [`Bookkeeping`]).
    pub fn bookkeeping(&self) -> Bookkeeping {
        let mut b = Bookkeeping {
            events: self.events.len(),
            listener_nodes: self.listeners.high_water(),
            armed_timeout_holders: self.timeout_holders.iter().filter(|h| h.is_some()).count(),
            ..Bookkeeping::default()
        };
        for r in &self.registrations {
            match r {
                Registration::Composite(s) => {
                    debug_assert!(self.signals[*s as usize].composite);
                    b.composite_registrations += 1;
                }
                Registration::Source(s) => {
                    debug_assert!(self.signals[*s as usize].dependants.is_some());
                    b.source_registrations += 1;
                }
                Registration::Timeout { signal, holder } => {
                    debug_assert!(self.signals[*signal as usize].timeout);
                    debug_assert!((*holder as usize) < self.timeout_holders.len());
                    b.timeout_registrations += 1;
                }
            }
        }
        for s in &self.signals {
            if let Some(d) = &s.dependants {
                b.dependant_lists += 1;
                b.dependant_entries += d.len();
            }
            b.gc_persistent_signals += usize::from(s.gc_persistent);
        }
        b
    }
}

/// A TypeError, for operands of the wrong kind (the parser already refuses
/// them; generated ASTs might not).
pub(crate) fn type_error(rt: &mut Rt, what: &str) -> Value {
    rt.new_error("TypeError", what)
}

/// V8's TypeError for calling `method` on a receiver that lacks it: reading
/// a property of undefined or null, else "`<value>.<method>` is not a
/// function". (V8 names the receiver by its source text, which generated
/// ASTs alone reach: the parser refuses such receivers.)
pub(crate) fn no_method(rt: &mut Rt, value: &Value, method: &str) -> Value {
    if matches!(value, Value::Undefined | Value::Null) {
        return rt.cannot_read_properties(value, method);
    }
    let shown = rt.fmt(value);
    rt.new_error("TypeError", &format!("{shown}.{method} is not a function"))
}

impl Library for Impl {
    fn new() -> Self {
        // Room for a typical scenario's objects up front: growing these
        // from empty reallocated each several times per run.
        Impl {
            mutant: None,
            slots: Vec::with_capacity(32),
            types: vec![Rc::from("abort")],
            listeners: Listeners::default(),
            targets: Vec::with_capacity(8),
            signals: Vec::with_capacity(8),
            events: Vec::with_capacity(8),
            details: Vec::new(),
            disposables: Vec::new(),
            timeout_holders: Vec::new(),
            registrations: Vec::new(),
            registries: gc::Registries::default(),
            removers: Vec::new(),
            in_flight: Vec::new(),
            streams: streams::Streams::default(),
            writables: writable::Writables::default(),
            transforms: Vec::new(),
            pipes: Vec::new(),
            emitters: Vec::new(),
            held_arrays: Vec::new(),
            async_context: async_context::AsyncContext::default(),
            held_events: Vec::new(),
            default_max_listeners: emitter::DEFAULT_MAX_LISTENERS,
            error_monitor: None,
            on_states: Vec::new(),
            emitter_extras: Vec::new(),
        }
    }

    fn reset(&mut self) {
        let Impl {
            mutant,
            slots,
            types,
            listeners,
            targets,
            signals,
            events,
            details,
            disposables,
            timeout_holders,
            registrations,
            registries,
            removers,
            in_flight,
            streams,
            writables,
            transforms,
            pipes,
            emitters,
            held_arrays,
            async_context,
            held_events,
            default_max_listeners,
            error_monitor,
            on_states,
            emitter_extras,
        } = self;
        *mutant = None;
        slots.clear();
        types.truncate(1); // "abort", interned first by `new`
        listeners.clear();
        targets.clear();
        signals.clear();
        events.clear();
        details.clear();
        disposables.clear();
        timeout_holders.clear();
        registrations.clear();
        *registries = gc::Registries::default();
        removers.clear();
        in_flight.clear();
        streams.clear();
        writables.clear();
        transforms.clear();
        pipes.clear();
        emitters.clear();
        held_arrays.clear();
        async_context.clear();
        held_events.clear();
        *default_max_listeners = emitter::DEFAULT_MAX_LISTENERS;
        *error_monitor = None;
        on_states.clear();
        emitter_extras.clear();
    }

    fn new_abort_controller(rt: &mut Rt) -> Completion {
        Ok(abort::new_controller(rt))
    }

    fn abort(rt: &mut Rt, controller: Value, reason: Option<Value>) -> Completion {
        abort::op_abort(rt, &controller, reason)
    }

    fn abort_signal_abort(rt: &mut Rt, reason: Option<Value>) -> Completion {
        abort::op_signal_abort(rt, reason)
    }

    fn abort_signal_timeout(rt: &mut Rt, ms: u32) -> Completion {
        Ok(abort::signal_timeout(rt, ms))
    }

    fn abort_signal_any(rt: &mut Rt, signals: Vec<Value>) -> Completion {
        abort::op_signal_any(rt, &signals)
    }

    fn throw_if_aborted(rt: &mut Rt, signal: Value) -> Completion {
        abort::op_throw_if_aborted(rt, &signal)
    }

    fn set_onabort(rt: &mut Rt, signal: Value, handler: Value) -> Result<(), Value> {
        abort::op_set_onabort(rt, &signal, handler)
    }

    fn add_abort_listener(rt: &mut Rt, signal: Value, listener: Value) -> Completion {
        abort::op_add_abort_listener(rt, &signal, &listener)
    }

    fn dispose(rt: &mut Rt, disposable: Value) -> Completion {
        abort::op_dispose(rt, &disposable)
    }

    fn set_max_listeners(rt: &mut Rt, n: Value, targets: Vec<Value>) -> Completion {
        event_target::op_set_max_listeners(rt, &n, &targets)
    }

    fn get_max_listeners(rt: &mut Rt, target: Value) -> Completion {
        event_target::op_get_max_listeners(rt, &target)
    }

    fn new_async_local_storage(rt: &mut Rt, default: Option<Value>) -> Completion {
        async_context::new_storage(rt, default)
    }

    fn als_get_store(rt: &mut Rt, als: Value) -> Completion {
        async_context::get_store(rt, als)
    }

    fn als_enter_with(rt: &mut Rt, als: Value, store: Value) -> Completion {
        async_context::enter_with(rt, als, store)
    }

    fn als_run(rt: &mut Rt, als: Value, store: Value, f: ObjectId) -> Completion {
        async_context::run(rt, als, store, f)
    }

    fn als_exit(rt: &mut Rt, als: Value, f: ObjectId) -> Completion {
        async_context::exit(rt, als, f)
    }

    fn als_disable(rt: &mut Rt, als: Value) -> Completion {
        async_context::disable(rt, als)
    }

    fn als_bind(rt: &mut Rt, f: Value) -> Completion {
        async_context::storage_bind(rt, f)
    }

    fn als_snapshot(rt: &mut Rt) -> Completion {
        async_context::snapshot(rt)
    }

    fn new_async_resource(rt: &mut Rt, kind: Value) -> Completion {
        async_context::new_resource(rt, kind)
    }

    fn async_resource_run(rt: &mut Rt, resource: Value, f: ObjectId) -> Completion {
        async_context::run_in_async_scope(rt, resource, f)
    }

    fn async_resource_bind(rt: &mut Rt, resource: Value, f: Value) -> Completion {
        async_context::resource_bind(rt, resource, f)
    }

    fn async_resource_emit_destroy(rt: &mut Rt, resource: Value) -> Completion {
        async_context::emit_destroy(rt, resource)
    }

    fn make_callback(rt: &mut Rt, f: ObjectId, recv: Value, resource_frame: Option<Value>) {
        async_context::make_callback(rt, f, recv, resource_frame)
    }

    fn new_event_emitter(rt: &mut Rt) -> Completion {
        emitter::new_emitter(rt)
    }

    fn emitter_add_listener(
        rt: &mut Rt,
        emitter: Value,
        name: Value,
        listener: Value,
        prepend: bool,
        once: bool,
    ) -> Completion {
        // Script code runs inside only through the 'newListener' emit,
        // which roots what it needs (`emitter::add_listener`).
        emitter::op_add_listener(rt, &emitter, &name, &listener, prepend, once)
    }

    fn emitter_remove_listener(
        rt: &mut Rt,
        emitter: Value,
        name: Value,
        listener: Value,
    ) -> Completion {
        // Script code runs inside only through the 'removeListener' emit,
        // after the removal, whose calls root their receiver and arguments.
        emitter::op_remove_listener(rt, &emitter, &name, &listener)
    }

    fn emitter_remove_all_listeners(
        rt: &mut Rt,
        emitter: Value,
        name: Option<Value>,
    ) -> Completion {
        let roots = [emitter.clone(), name.clone().unwrap_or(Value::Undefined)];
        rt.holding(&roots, |rt| {
            emitter::op_remove_all_listeners(rt, &emitter, name.as_ref())
        })
    }

    fn emitter_emit(rt: &mut Rt, emitter: Value, name: Value, args: Vec<Value>) -> Completion {
        let mut roots = vec![emitter.clone(), name.clone()];
        roots.extend(args.iter().cloned());
        rt.holding(&roots, |rt| emitter::op_emit(rt, &emitter, &name, &args))
    }

    fn emitter_listener_count(
        rt: &mut Rt,
        emitter: Value,
        name: Value,
        listener: Option<Value>,
    ) -> Completion {
        emitter::op_listener_count(rt, &emitter, &name, listener.as_ref())
    }

    fn emitter_event_names(rt: &mut Rt, emitter: Value) -> Completion {
        emitter::op_event_names(rt, &emitter)
    }

    fn emitter_listeners(rt: &mut Rt, emitter: Value, name: Value, raw: bool) -> Completion {
        emitter::op_listeners(rt, &emitter, &name, raw)
    }

    fn emitter_events_key_count(rt: &mut Rt, emitter: Value) -> Completion {
        emitter::op_events_key_count(rt, &emitter)
    }

    fn error_monitor(rt: &mut Rt) -> Value {
        emitter::error_monitor(rt)
    }

    fn default_max_listeners(rt: &mut Rt) -> Value {
        Value::Number(rt.lib.default_max_listeners)
    }

    fn set_default_max_listeners(rt: &mut Rt, n: Value) -> Result<(), Value> {
        emitter::set_default_max_listeners(rt, &n)
    }

    fn events_once(rt: &mut Rt, emitter: Value, name: Value, signal: Option<Value>) -> Completion {
        let mut roots = vec![emitter.clone(), name.clone()];
        roots.extend(signal.iter().cloned());
        rt.holding(&roots, |rt| {
            emitter::op_once(rt, &emitter, &name, signal.as_ref())
        })
    }

    fn new_capturing_event_emitter(rt: &mut Rt) -> Completion {
        events_on::new_capturing_emitter(rt)
    }

    fn emitter_set_rejection_handler(
        rt: &mut Rt,
        emitter: Value,
        function: Value,
    ) -> Result<(), Value> {
        events_on::set_rejection(rt, &emitter, function)
    }

    fn events_on(
        rt: &mut Rt,
        emitter: Value,
        name: Value,
        options: nodesem_runtime::EventsOnOptions,
    ) -> Completion {
        let mut roots = vec![emitter.clone(), name.clone()];
        roots.extend(options.signal.iter().cloned());
        roots.extend(options.close.iter().cloned());
        rt.holding(&roots, |rt| events_on::op_on(rt, &emitter, &name, &options))
    }

    fn events_iterator_throw(rt: &mut Rt, iterator: Value, value: Value) -> Completion {
        let roots = [iterator.clone()];
        rt.holding(&roots, |rt| events_on::op_throw(rt, &iterator, &value))
    }

    fn events_iterator_next(rt: &mut Rt, iterator: Value) -> Completion {
        events_on::op_next(rt, &iterator)
    }

    fn events_iterator_return(rt: &mut Rt, iterator: Value) -> Completion {
        let roots = [iterator.clone()];
        rt.holding(&roots, |rt| events_on::op_return(rt, &iterator))
    }

    fn new_event_target(rt: &mut Rt) -> Completion {
        Ok(event_target::new_target(rt))
    }

    fn add_event_listener(
        rt: &mut Rt,
        target: Value,
        event_type: &str,
        listener: Value,
        options: AddListenerOptions,
    ) -> Completion {
        event_target::op_add_event_listener(rt, &target, event_type, &listener, &options)
    }

    fn remove_event_listener(
        rt: &mut Rt,
        target: Value,
        event_type: &str,
        listener: Value,
        capture: bool,
    ) -> Completion {
        event_target::op_remove_event_listener(rt, &target, event_type, &listener, capture)
    }

    fn dispatch_new_event(
        rt: &mut Rt,
        target: Value,
        event_type: &str,
        cancelable: bool,
    ) -> Completion {
        event_target::op_dispatch(rt, &target, event_type, cancelable)
    }

    fn prevent_default(rt: &mut Rt, event: Value) -> Completion {
        event_target::op_event_method(rt, &event, "preventDefault", EventData::prevent_default)
    }

    fn stop_propagation(rt: &mut Rt, event: Value) -> Completion {
        event_target::op_event_method(rt, &event, "stopPropagation", EventData::stop_propagation)
    }

    fn stop_immediate_propagation(rt: &mut Rt, event: Value) -> Completion {
        event_target::op_event_method(
            rt,
            &event,
            "stopImmediatePropagation",
            EventData::stop_immediate_propagation,
        )
    }

    fn new_event(rt: &mut Rt, init: EventInit) -> Completion {
        event_target::op_new_event(rt, init)
    }

    fn new_abort_signal(rt: &mut Rt) -> Completion {
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/abort_controller.js#L241-L244> without kDontThrowSymbol.
        Err(rt.node_error(
            "TypeError",
            "ERR_ILLEGAL_CONSTRUCTOR",
            "Illegal constructor",
        ))
    }

    fn dispatch_event(rt: &mut Rt, target: Value, event: Value) -> Completion {
        event_target::op_dispatch_event(rt, &target, &event)
    }

    fn composed_path(rt: &mut Rt, event: Value) -> Completion {
        event_target::op_composed_path(rt, &event)
    }

    fn set_return_value(rt: &mut Rt, event: Value, value: Value) -> Completion {
        let value = value.to_boolean();
        event_target::op_event_method(rt, &event, "returnValue", |e| e.set_return_value(value))
    }

    fn set_cancel_bubble(rt: &mut Rt, event: Value, value: Value) -> Completion {
        let value = value.to_boolean();
        event_target::op_event_method(rt, &event, "cancelBubble", |e| e.set_cancel_bubble(value))
    }

    // ---- streams ----

    fn new_readable_stream(
        rt: &mut Rt,
        source: UnderlyingSource,
        strategy: QueuingStrategy,
    ) -> Completion {
        let roots = [source_roots(&source), strategy_roots(&strategy)].concat();
        rt.holding(&roots, |rt| {
            streams::new_readable_stream(rt, source, strategy)
        })
    }

    fn readable_controller_enqueue(rt: &mut Rt, controller: Value, chunk: Value) -> Completion {
        let roots = [controller.clone(), chunk.clone()];
        rt.holding(&roots, |rt| {
            streams::controller_enqueue(rt, controller, chunk)
        })
    }

    fn readable_controller_close(rt: &mut Rt, controller: Value) -> Completion {
        let roots = [controller.clone()];
        rt.holding(&roots, |rt| streams::controller_close(rt, controller))
    }

    fn readable_controller_error(rt: &mut Rt, controller: Value, error: Value) -> Completion {
        let roots = [controller.clone(), error.clone()];
        rt.holding(&roots, |rt| {
            streams::controller_error(rt, controller, error)
        })
    }

    fn readable_get_reader(rt: &mut Rt, stream: Value) -> Completion {
        let roots = [stream.clone()];
        rt.holding(&roots, |rt| streams::get_reader(rt, stream))
    }

    fn readable_cancel(rt: &mut Rt, stream: Value, reason: Option<Value>) -> Completion {
        let roots = [stream.clone(), reason.clone().unwrap_or(Value::Undefined)];
        rt.holding(&roots, |rt| streams::stream_cancel(rt, stream, reason))
    }

    fn reader_read(rt: &mut Rt, reader: Value) -> Completion {
        let roots = [reader.clone()];
        rt.holding(&roots, |rt| streams::reader_read(rt, reader))
    }

    fn reader_release_lock(rt: &mut Rt, reader: Value) -> Completion {
        let roots = [reader.clone()];
        rt.holding(&roots, |rt| streams::reader_release_lock(rt, reader))
    }

    fn reader_cancel(rt: &mut Rt, reader: Value, reason: Option<Value>) -> Completion {
        let roots = [reader.clone(), reason.clone().unwrap_or(Value::Undefined)];
        rt.holding(&roots, |rt| streams::reader_cancel(rt, reader, reason))
    }

    fn readable_tee(rt: &mut Rt, stream: Value) -> Completion {
        let roots = [stream.clone()];
        rt.holding(&roots, |rt| streams::tee(rt, stream))
    }

    fn readable_pipe_to(
        rt: &mut Rt,
        stream: Value,
        dest: Value,
        options: StreamPipeOptions,
    ) -> Completion {
        let roots = [
            stream.clone(),
            dest.clone(),
            options.signal.clone().unwrap_or(Value::Undefined),
        ];
        rt.holding(&roots, |rt| pipe::pipe_to(rt, stream, dest, options))
    }

    fn readable_pipe_through(
        rt: &mut Rt,
        stream: Value,
        transform: Value,
        options: StreamPipeOptions,
    ) -> Completion {
        let roots = [
            stream.clone(),
            transform.clone(),
            options.signal.clone().unwrap_or(Value::Undefined),
        ];
        rt.holding(&roots, |rt| {
            pipe::pipe_through(rt, stream, transform, options)
        })
    }

    fn readable_from(rt: &mut Rt, iterable: Value) -> Completion {
        let roots = [iterable.clone()];
        rt.holding(&roots, |rt| iterate::readable_from(rt, iterable))
    }

    fn readable_values(rt: &mut Rt, stream: Value, prevent_cancel: bool) -> Completion {
        let roots = [stream.clone()];
        rt.holding(&roots, |rt| iterate::values(rt, stream, prevent_cancel))
    }

    fn async_iterator_next(rt: &mut Rt, iterator: Value) -> Completion {
        let roots = [iterator.clone()];
        rt.holding(&roots, |rt| iterate::next(rt, iterator))
    }

    fn async_iterator_return(rt: &mut Rt, iterator: Value, value: Option<Value>) -> Completion {
        let roots = [iterator.clone(), value.clone().unwrap_or(Value::Undefined)];
        rt.holding(&roots, |rt| iterate::iterator_return(rt, iterator, value))
    }

    // ---- WritableStream ----

    fn new_writable_stream(
        rt: &mut Rt,
        sink: UnderlyingSink,
        strategy: QueuingStrategy,
    ) -> Completion {
        let roots = [sink_roots(&sink), strategy_roots(&strategy)].concat();
        rt.holding(&roots, |rt| {
            writable::new_writable_stream(rt, sink, strategy)
        })
    }

    fn writable_abort(rt: &mut Rt, stream: Value, reason: Option<Value>) -> Completion {
        let roots = [stream.clone(), reason.clone().unwrap_or(Value::Undefined)];
        rt.holding(&roots, |rt| writable::stream_abort(rt, stream, reason))
    }

    fn writable_close(rt: &mut Rt, stream: Value) -> Completion {
        let roots = [stream.clone()];
        rt.holding(&roots, |rt| writable::stream_close(rt, stream))
    }

    fn writable_get_writer(rt: &mut Rt, stream: Value) -> Completion {
        let roots = [stream.clone()];
        rt.holding(&roots, |rt| writable::get_writer(rt, stream))
    }

    fn writable_controller_error(rt: &mut Rt, controller: Value, error: Value) -> Completion {
        let roots = [controller.clone(), error.clone()];
        rt.holding(&roots, |rt| {
            writable::op_controller_error(rt, controller, error)
        })
    }

    fn writer_write(rt: &mut Rt, writer: Value, chunk: Value) -> Completion {
        let roots = [writer.clone(), chunk.clone()];
        rt.holding(&roots, |rt| writable::writer_write(rt, writer, chunk))
    }

    fn writer_close(rt: &mut Rt, writer: Value) -> Completion {
        let roots = [writer.clone()];
        rt.holding(&roots, |rt| writable::writer_close(rt, writer))
    }

    fn writer_abort(rt: &mut Rt, writer: Value, reason: Option<Value>) -> Completion {
        let roots = [writer.clone(), reason.clone().unwrap_or(Value::Undefined)];
        rt.holding(&roots, |rt| writable::writer_abort(rt, writer, reason))
    }

    fn writer_release_lock(rt: &mut Rt, writer: Value) -> Completion {
        let roots = [writer.clone()];
        rt.holding(&roots, |rt| writable::writer_release_lock(rt, writer))
    }

    // ---- TransformStream ----

    fn new_transform_stream(
        rt: &mut Rt,
        transformer: Transformer,
        writable_strategy: QueuingStrategy,
        readable_strategy: QueuingStrategy,
    ) -> Completion {
        let roots = [
            transformer_roots(&transformer),
            strategy_roots(&writable_strategy),
            strategy_roots(&readable_strategy),
        ]
        .concat();
        rt.holding(&roots, |rt| {
            transformstream::new_transform_stream(
                rt,
                transformer,
                writable_strategy,
                readable_strategy,
            )
        })
    }

    fn transform_controller_enqueue(rt: &mut Rt, controller: Value, chunk: Value) -> Completion {
        let roots = [controller.clone(), chunk.clone()];
        rt.holding(&roots, |rt| {
            transformstream::op_enqueue(rt, controller, chunk)
        })
    }

    fn transform_controller_error(rt: &mut Rt, controller: Value, error: Value) -> Completion {
        let roots = [controller.clone(), error.clone()];
        rt.holding(&roots, |rt| {
            transformstream::op_error(rt, controller, error)
        })
    }

    fn transform_controller_terminate(rt: &mut Rt, controller: Value) -> Completion {
        let roots = [controller.clone()];
        rt.holding(&roots, |rt| transformstream::op_terminate(rt, controller))
    }

    // ---- byte streams ----

    fn new_readable_byte_stream(
        rt: &mut Rt,
        source: UnderlyingSource,
        strategy: QueuingStrategy,
        auto_allocate_chunk_size: Option<f64>,
    ) -> Completion {
        let roots = [source_roots(&source), strategy_roots(&strategy)].concat();
        rt.holding(&roots, |rt| {
            byte_streams::new_byte_stream(
                rt,
                source,
                strategy.high_water_mark,
                auto_allocate_chunk_size,
            )
        })
    }

    fn byte_controller_enqueue(rt: &mut Rt, controller: Value, chunk: Value) -> Completion {
        let roots = [controller.clone(), chunk.clone()];
        rt.holding(&roots, |rt| {
            byte_streams::controller_enqueue(rt, controller, chunk)
        })
    }

    fn byte_controller_close(rt: &mut Rt, controller: Value) -> Completion {
        let roots = [controller.clone()];
        rt.holding(&roots, |rt| byte_streams::controller_close(rt, controller))
    }

    fn byte_controller_error(rt: &mut Rt, controller: Value, error: Value) -> Completion {
        let roots = [controller.clone(), error.clone()];
        rt.holding(&roots, |rt| {
            byte_streams::controller_error(rt, controller, error)
        })
    }

    fn byob_request_respond(rt: &mut Rt, request: Value, bytes_written: Value) -> Completion {
        let roots = [request.clone(), bytes_written.clone()];
        rt.holding(&roots, |rt| {
            byte_streams::request_respond(rt, request, bytes_written)
        })
    }

    fn byob_request_respond_with_new_view(rt: &mut Rt, request: Value, view: Value) -> Completion {
        let roots = [request.clone(), view.clone()];
        rt.holding(&roots, |rt| {
            byte_streams::request_respond_with_new_view(rt, request, view)
        })
    }

    fn readable_get_byob_reader(rt: &mut Rt, stream: Value) -> Completion {
        let roots = [stream.clone()];
        rt.holding(&roots, |rt| byte_streams::get_byob_reader(rt, stream))
    }

    fn byob_reader_read(rt: &mut Rt, reader: Value, view: Value, min: Option<Value>) -> Completion {
        let roots = [
            reader.clone(),
            view.clone(),
            min.clone().unwrap_or(Value::Undefined),
        ];
        rt.holding(&roots, |rt| {
            byte_streams::byob_reader_read(rt, reader, view, min)
        })
    }

    fn byob_reader_release_lock(rt: &mut Rt, reader: Value) -> Completion {
        let roots = [reader.clone()];
        rt.holding(&roots, |rt| {
            byte_streams::byob_reader_release_lock(rt, reader)
        })
    }

    fn byob_reader_cancel(rt: &mut Rt, reader: Value, reason: Option<Value>) -> Completion {
        let roots = [reader.clone(), reason.clone().unwrap_or(Value::Undefined)];
        rt.holding(&roots, |rt| {
            byte_streams::byob_reader_cancel(rt, reader, reason)
        })
    }

    fn get(rt: &mut Rt, obj: ObjectId, prop: &str) -> Completion {
        if let Some(value) = streams::get(rt, obj, prop) {
            return value;
        }
        if let Some(value) = writable::get(rt, obj, prop) {
            return value;
        }
        if let Some(value) = transformstream::get(rt, obj, prop) {
            return value;
        }
        match rt.lib.slot(obj) {
            Slot::Controller(s) if prop == "signal" => {
                Ok(Value::Object(rt.lib.signals[s as usize].obj))
            }
            Slot::Signal(s) => Ok(abort::signal_get(rt, s, prop)),
            Slot::Event(e) => {
                let event = rt.lib.events[e as usize];
                if prop == "detail" {
                    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L413-L417> CustomEvent's getter.
                    return Ok(if event.has(event::CUSTOM) {
                        rt.lib.details[event.detail as usize].clone()
                    } else {
                        Value::Undefined
                    });
                }
                event.get(prop, rt.lib.type_name(event.ty))
            }
            _ => Ok(Value::Undefined),
        }
    }

    fn host_class(rt: &Rt, obj: ObjectId) -> HostClass {
        if let Some(class) = streams::host_class(rt, obj) {
            return class;
        }
        if let Some(class) = transformstream::host_class(rt, obj) {
            return class;
        }
        match rt.lib.slot(obj) {
            Slot::Controller(_) => HostClass::AbortController,
            Slot::Signal(_) => HostClass::AbortSignal,
            Slot::Target(_) => HostClass::EventTarget,
            Slot::Event(e) => {
                let data = rt.lib.events[e as usize];
                let ty = rt.lib.types[data.ty as usize].clone();
                if data.flags & event::CUSTOM != 0 {
                    HostClass::CustomEvent(ty)
                } else {
                    HostClass::Event(ty)
                }
            }
            Slot::ReadableStream(_) => HostClass::ReadableStream,
            Slot::ReadableController(_) => HostClass::ReadableStreamDefaultController,
            Slot::ReadableReader(_) => HostClass::ReadableStreamDefaultReader,
            Slot::ReadableIterator(_) => HostClass::ReadableStreamAsyncIterator,
            Slot::WritableStream(_) => HostClass::WritableStream,
            Slot::WritableController(_) => HostClass::WritableStreamDefaultController,
            Slot::WritableWriter(_) => HostClass::WritableStreamDefaultWriter,
            Slot::TransformStream(_) => HostClass::TransformStream,
            Slot::TransformController(_) => HostClass::TransformStreamDefaultController,
            Slot::ByteController(_) => HostClass::ReadableByteStreamController,
            Slot::ByobReader(_) => HostClass::ReadableStreamBYOBReader,
            Slot::ByobRequest(_) => HostClass::ReadableStreamBYOBRequest,
            Slot::Emitter(_) => HostClass::EventEmitter,
            Slot::OnIterator(_) => HostClass::EventEmitterAsyncIterator,
            Slot::Storage(_) => HostClass::AsyncLocalStorage,
            Slot::Frame(_) => HostClass::AsyncContextFrame,
            Slot::Resource(_) => HostClass::AsyncResource,
            Slot::Disposable(_)
            | Slot::OnceWrapper(_)
            | Slot::Remover(_)
            | Slot::TeeState(_)
            | Slot::ByteTeeState(_)
            | Slot::PipeState(_)
            | Slot::FromState(_)
            | Slot::IteratorState(_)
            | Slot::OnState(_)
            | Slot::None => HostClass::Disposable,
        }
    }

    fn dependant_count(rt: &mut Rt, signal: Value) -> Completion {
        gc::dependant_count(rt, signal)
    }

    fn trace(rt: &Rt, obj: ObjectId, edges: &mut Vec<Value>) {
        gc::trace(rt, obj, edges)
    }

    fn trace_roots(rt: &Rt, roots: &mut Vec<Value>) -> bool {
        gc::trace_roots(rt, roots)
    }

    fn collected(rt: &mut Rt, dead: &[ObjectId]) {
        gc::collected(rt, dead)
    }

    fn listener_count(rt: &Rt, target: ObjectId, event_type: &str) -> u64 {
        event_target::listener_count(rt, target, event_type)
    }
}

/// What an operation's frame holds while it runs (its receiver and arguments, as a JavaScript
/// method's frame does): the roots of its stream algorithms' calls into script code.
fn source_roots(source: &UnderlyingSource) -> Vec<Value> {
    let mut roots = vec![source.object.clone()];
    roots.extend(
        [source.start, source.pull, source.cancel]
            .into_iter()
            .flatten()
            .map(Value::Object),
    );
    roots
}

fn sink_roots(sink: &UnderlyingSink) -> Vec<Value> {
    let mut roots = vec![sink.object.clone()];
    roots.extend(
        [sink.start, sink.write, sink.close, sink.abort]
            .into_iter()
            .flatten()
            .map(Value::Object),
    );
    roots
}

fn transformer_roots(transformer: &Transformer) -> Vec<Value> {
    let mut roots = vec![transformer.object.clone()];
    roots.extend(
        [
            transformer.start,
            transformer.transform,
            transformer.flush,
            transformer.cancel,
        ]
        .into_iter()
        .flatten()
        .map(Value::Object),
    );
    roots
}

fn strategy_roots(strategy: &QueuingStrategy) -> Vec<Value> {
    strategy.size.map(Value::Object).into_iter().collect()
}

/// Allocates a host object in the heap and records its slot.
pub(crate) fn alloc_host(rt: &mut Rt, slot: impl FnOnce(ObjectId) -> Slot) -> ObjectId {
    let obj = rt.heap.alloc(ObjectData::Host);
    let s = slot(obj);
    rt.lib.set_slot(obj, s);
    obj
}

/// The optimized implementation as an engine: `impl`, or
/// `impl+<mutant-name>` with a mutant switched on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImplEngine {
    /// The switched-on bug, if any.
    pub mutant: Option<Mutant>,
}

impl ImplEngine {
    /// Runs one scenario (the [`Engine::run`] of this engine, without the
    /// `Result`: the implementation always produces a log).
    pub fn run_scenario(&self, scenario: &Scenario, config: &RunConfig) -> Log {
        let mut rt = Runtime::<Impl>::pooled(*config);
        rt.lib.mutant = self.mutant;
        rt.run_main(scenario);
        rt.into_log()
    }
}

impl Engine for ImplEngine {
    fn name(&self) -> String {
        match self.mutant {
            None => "impl".to_string(),
            Some(m) => format!("impl+{}", m.name()),
        }
    }

    fn run(&self, scenario: &Scenario, config: &RunConfig) -> Result<Log, EngineError> {
        Ok(self.run_scenario(scenario, config))
    }
}
