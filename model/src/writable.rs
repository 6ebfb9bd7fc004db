//! The Streams Standard's `WritableStream`, `WritableStreamDefaultController`
//! and `WritableStreamDefaultWriter`, transcribed: each abstract operation is
//! a function named after it, with its steps quoted above the code, and each
//! internal slot is a field named after it.
//!
//! It exists so that the writable half of Node's webstreams (what `pipeTo`
//! and `TransformStream` write into) can be diffed step by step: the
//! order in which write, close and abort promises settle, when the sink's
//! methods run, and how backpressure moves the writer's `ready` promise.
//!
//! What is covered: a WritableStream made from an underlying sink (`start`,
//! `write`, `close`, `abort`, each optional) and a queuing strategy
//! (`highWaterMark`, `size`); its default controller (`error`, `signal`, a
//! real AbortSignal of [`crate::abort`]); its default writer (`write`,
//! `close`, `abort`, `releaseLock`, `ready`, `closed`, `desiredSize`);
//! `stream.abort`, `stream.close`, `stream.getWriter` and `stream.locked`.
//!
//! Streams Standard: <https://streams.spec.whatwg.org/#ws-model>.
//! Node 26.12.1: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js>.
//!
//! The departures of Node 26.12.1 that scenarios can observe, each marked
//! `NODE:` where it happens:
//!
//! - a promise returned by the sink's `write` is used as it is (the spec
//!   converts it to a new promise, two microtasks later);
//! - WritableStreamUpdateBackpressure sets [[backpressure]] before it
//!   resolves the ready promise (a pipe's ready hook reads it);
//! - every TypeError the spec leaves unworded is Node's `ERR_INVALID_STATE`
//!   TypeError, and the error of `releaseLock()` is one object, made once;
//! - an invalid chunk size is Node's `ERR_INVALID_ARG_VALUE` RangeError.
//!
//! - Node makes a writer's `ready` and `closed` promises lazily, when they
//!   are first read, from the stream's state then; the model makes them
//!   eagerly as the spec does, and follows Node where the two differ: a
//!   writer's `ready` that was dropped while erroring (or made on a writer
//!   acquired while erroring) and is read once the stream is "closed"
//!   (aborted while its close was in flight) is fulfilled.

use std::collections::VecDeque;

use nodesem_runtime::{
    Completion, HostClass, ObjectData, ObjectId, QueuingStrategy, Runtime, UnderlyingSink, Value,
};

use crate::slots::Slots;
use crate::streams::{
    a_new_promise, a_promise_rejected_with, a_promise_resolved_with, err_invalid_state, is_pending,
    mark_as_handled, reject, resolve, upon_settlement, SizeAlgorithm, ValueWithSize,
};
use crate::{abort, pipe, transform, Model};

type Rt = Runtime<Model>;

/// A WritableStream's [[state]].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WritableStreamState {
    /// "writable"
    Writable,
    /// "closed"
    Closed,
    /// "erroring"
    Erroring,
    /// "errored"
    Errored,
}

/// A pending abort request
/// (<https://streams.spec.whatwg.org/#pending-abort-request>).
#[derive(Clone, Debug)]
pub struct PendingAbortRequest {
    /// promise
    pub promise: ObjectId,
    /// reason
    pub reason: Value,
    /// was already erroring
    pub was_already_erroring: bool,
}

/// An entry of [[writeRequests]]: the promise a `write()` returned, or the
/// write of a pipe.
#[derive(Clone, Copy, Debug)]
pub enum WriteRequest {
    /// The promise of `writer.write(chunk)`.
    Promise(ObjectId),
    /// A chunk written by a pipe (Node's shared write tracker).
    Pipe(pipe::PipeId),
}

/// The internal slots of a WritableStream
/// (<https://streams.spec.whatwg.org/#ws-internal-slots>).
#[derive(Debug)]
pub struct WritableStream {
    /// [[backpressure]].
    pub backpressure: bool,
    /// [[closeRequest]].
    pub close_request: Option<ObjectId>,
    /// [[controller]].
    pub controller: Option<ObjectId>,
    /// [[inFlightWriteRequest]].
    pub in_flight_write_request: Option<WriteRequest>,
    /// [[inFlightCloseRequest]].
    pub in_flight_close_request: Option<ObjectId>,
    /// [[pendingAbortRequest]].
    pub pending_abort_request: Option<PendingAbortRequest>,
    /// [[state]].
    pub state: WritableStreamState,
    /// [[storedError]].
    pub stored_error: Value,
    /// [[writer]].
    pub writer: Option<ObjectId>,
    /// [[writeRequests]].
    pub write_requests: VecDeque<WriteRequest>,
}

/// A controller's [[startAlgorithm]] (only used while setting up).
#[derive(Clone, Copy, Debug)]
pub enum StartAlgorithm {
    /// "an algorithm that returns undefined".
    ReturnUndefined,
    /// Invoking the sink's `start` with « controller ».
    Invoke(ObjectId),
    /// An algorithm that returns this promise (a TransformStream's
    /// startPromise).
    ReturnPromise(ObjectId),
}

/// A controller's [[writeAlgorithm]].
#[derive(Clone, Copy, Debug)]
pub enum WriteAlgorithm {
    /// "an algorithm that returns a promise resolved with undefined".
    ResolveUndefined,
    /// Invoking the sink's `write` with « chunk, controller ».
    Invoke(ObjectId),
    /// TransformStreamDefaultSinkWriteAlgorithm(stream, chunk).
    Transform(ObjectId),
}

/// A controller's [[closeAlgorithm]].
#[derive(Clone, Copy, Debug)]
pub enum CloseAlgorithm {
    /// "an algorithm that returns a promise resolved with undefined".
    ResolveUndefined,
    /// Invoking the sink's `close` with « ».
    Invoke(ObjectId),
    /// TransformStreamDefaultSinkCloseAlgorithm(stream).
    Transform(ObjectId),
}

/// A controller's [[abortAlgorithm]].
#[derive(Clone, Copy, Debug)]
pub enum AbortAlgorithm {
    /// "an algorithm that returns a promise resolved with undefined".
    ResolveUndefined,
    /// Invoking the sink's `abort` with « reason ».
    Invoke(ObjectId),
    /// TransformStreamDefaultSinkAbortAlgorithm(stream, reason).
    Transform(ObjectId),
}

/// What a write algorithm gives back.
#[derive(Clone, Copy, Debug)]
pub enum AlgorithmResult {
    /// A promise.
    Promise(ObjectId),
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L388-L394>
    /// `kParkedAlgorithmResult`: the algorithm parked the write and calls
    /// [`write_fulfilled`] or [`write_rejected`] itself later (a
    /// TransformStream's write under backpressure).
    Parked,
}

/// An entry of the controller's [[queue]]: a chunk or the close sentinel.
#[derive(Clone, Debug)]
pub enum QueueEntry {
    /// A chunk, with its size.
    Chunk(ValueWithSize),
    /// The close sentinel, of size 0.
    Close,
}

/// The internal slots of a WritableStreamDefaultController
/// (<https://streams.spec.whatwg.org/#ws-default-controller-internal-slots>).
#[derive(Debug)]
pub struct WritableStreamDefaultController {
    /// [[abortAlgorithm]]: undefined once cleared.
    pub abort_algorithm: Option<AbortAlgorithm>,
    /// [[abortController]]: an AbortController of [`crate::abort`].
    pub abort_controller: ObjectId,
    /// [[closeAlgorithm]]: undefined once cleared.
    pub close_algorithm: Option<CloseAlgorithm>,
    /// [[queue]].
    pub queue: VecDeque<QueueEntry>,
    /// [[queueTotalSize]].
    pub queue_total_size: f64,
    /// [[started]].
    pub started: bool,
    /// [[strategyHWM]].
    pub strategy_hwm: f64,
    /// [[strategySizeAlgorithm]]: undefined once cleared.
    pub strategy_size_algorithm: Option<SizeAlgorithm>,
    /// [[stream]].
    pub stream: ObjectId,
    /// [[writeAlgorithm]]: undefined once cleared.
    pub write_algorithm: Option<WriteAlgorithm>,
    /// The underlying sink object: the callback this value of its methods.
    pub underlying_sink: Value,
}

/// The internal slots of a WritableStreamDefaultWriter
/// (<https://streams.spec.whatwg.org/#default-writer-internal-slots>).
#[derive(Debug)]
pub struct WritableStreamDefaultWriter {
    /// [[closedPromise]].
    pub closed_promise: ObjectId,
    /// [[readyPromise]].
    pub ready_promise: ObjectId,
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L663-L687>
    /// whether Node has materialized the ready record: the script read
    /// `ready` since the promise was made. Node settles only a materialized
    /// record; otherwise it makes one when `ready` is read, from the state
    /// then.
    pub ready_observed: bool,
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1088-L1099>
    /// EnsureReadyPromiseRejected found no pending materialized record and
    /// dropped the cache, or the writer was set up on an "erroring" stream
    /// (no record made): the next read of `ready` derives it from the
    /// stream's state (a stream aborted while its close was in flight is
    /// "closed" by then, and its writer's ready fulfilled).
    pub ready_dropped: bool,
    /// [[stream]]: undefined once released.
    pub stream: Option<ObjectId>,
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1791-L1798>
    /// the pipe whose `parkOnReady` installed its ready hook as this
    /// writer's ready record: resolving the ready promise runs the pipe's
    /// pump at once, not from a reaction.
    pub ready_hook: Option<pipe::PipeId>,
}

/// The writable streams' state for one scenario.
#[derive(Debug, Default)]
pub struct Writables {
    /// Every WritableStream.
    pub(crate) streams: Slots<WritableStream>,
    /// Every WritableStreamDefaultController.
    pub(crate) controllers: Slots<WritableStreamDefaultController>,
    /// Every WritableStreamDefaultWriter.
    pub(crate) writers: Slots<WritableStreamDefaultWriter>,
    /// Node's one "Writer has been released" error, once made.
    released_error: Option<Value>,
}

impl Writables {
    /// Empties the state for another scenario.
    pub fn clear(&mut self) {
        let Writables {
            streams,
            controllers,
            writers,
            released_error,
        } = self;
        streams.clear();
        controllers.clear();
        writers.clear();
        *released_error = None;
    }

    /// Forgets a collected object.
    pub(crate) fn forget(&mut self, id: &ObjectId) {
        self.streams.remove(id);
        self.controllers.remove(id);
        self.writers.remove(id);
    }

    /// The objects with slots here.
    pub(crate) fn ids(&self) -> impl Iterator<Item = ObjectId> + '_ {
        self.streams
            .ids()
            .chain(self.controllers.ids())
            .chain(self.writers.ids())
    }

    /// What the module keeps for good: Node's one "Writer has been
    /// released" error, once made (a module-level lazy value).
    pub(crate) fn roots(&self, roots: &mut Vec<Value>) {
        roots.extend(self.released_error.iter().cloned());
    }
}

impl WriteRequest {
    /// What the write request holds: its promise, or the pipe's hidden
    /// object (Node's write tracker, which the pipe's context holds).
    pub(crate) fn holds(&self) -> Value {
        Value::Object(match *self {
            WriteRequest::Promise(p) => p,
            WriteRequest::Pipe(p) => p.0,
        })
    }
}

/// The strong edges of a WritableStream, its controller or its writer:
/// their slots (<https://streams.spec.whatwg.org/#ws-internal-slots>), as
/// Node's `kState` records hold them.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1319-L1350>
/// (`setupWritableStreamDefaultControllerFromSink`) the controller's
/// algorithms are the sink's methods bound to the sink
/// (`createRawCallback2Params`, `createPromiseCallback...`): the sink object is
/// held while one of them is, and let go when they are cleared.
pub(crate) fn trace(rt: &Rt, obj: ObjectId, edges: &mut Vec<Value>) {
    let w = &rt.lib.writable;
    if let Some(s) = w.streams.get(&obj) {
        edges.extend(s.close_request.map(Value::Object));
        edges.extend(s.controller.map(Value::Object));
        edges.extend(s.in_flight_write_request.as_ref().map(WriteRequest::holds));
        edges.extend(s.in_flight_close_request.map(Value::Object));
        if let Some(request) = &s.pending_abort_request {
            edges.push(Value::Object(request.promise));
            edges.push(request.reason.clone());
        }
        edges.push(s.stored_error.clone());
        edges.extend(s.writer.map(Value::Object));
        edges.extend(s.write_requests.iter().map(WriteRequest::holds));
    }
    if let Some(c) = w.controllers.get(&obj) {
        let mut invoked = false;
        match c.abort_algorithm {
            Some(AbortAlgorithm::Invoke(f)) => {
                invoked = true;
                edges.push(Value::Object(f));
            }
            Some(AbortAlgorithm::Transform(ts)) => edges.push(Value::Object(ts)),
            Some(AbortAlgorithm::ResolveUndefined) | None => {}
        }
        match c.close_algorithm {
            Some(CloseAlgorithm::Invoke(f)) => {
                invoked = true;
                edges.push(Value::Object(f));
            }
            Some(CloseAlgorithm::Transform(ts)) => edges.push(Value::Object(ts)),
            Some(CloseAlgorithm::ResolveUndefined) | None => {}
        }
        match c.write_algorithm {
            Some(WriteAlgorithm::Invoke(f)) => {
                invoked = true;
                edges.push(Value::Object(f));
            }
            Some(WriteAlgorithm::Transform(ts)) => edges.push(Value::Object(ts)),
            Some(WriteAlgorithm::ResolveUndefined) | None => {}
        }
        if invoked {
            edges.push(c.underlying_sink.clone());
        }
        edges.push(Value::Object(c.abort_controller));
        for entry in &c.queue {
            if let QueueEntry::Chunk(chunk) = entry {
                edges.push(chunk.value.clone());
            }
        }
        if let Some(SizeAlgorithm::Invoke(size)) = c.strategy_size_algorithm {
            edges.push(Value::Object(size));
        }
        edges.push(Value::Object(c.stream));
    }
    if let Some(writer) = w.writers.get(&obj) {
        edges.push(Value::Object(writer.closed_promise));
        edges.push(Value::Object(writer.ready_promise));
        edges.extend(writer.stream.map(Value::Object));
        edges.extend(writer.ready_hook.map(|p| Value::Object(p.0)));
    }
}

// ---- slot access ----------------------------------------------------------

pub(crate) fn stream(rt: &Rt, id: ObjectId) -> &WritableStream {
    &rt.lib.writable.streams[&id]
}

fn stream_mut(rt: &mut Rt, id: ObjectId) -> &mut WritableStream {
    rt.lib
        .writable
        .streams
        .get_mut(&id)
        .expect("a WritableStream")
}

fn controller(rt: &Rt, id: ObjectId) -> &WritableStreamDefaultController {
    &rt.lib.writable.controllers[&id]
}

fn controller_mut(rt: &mut Rt, id: ObjectId) -> &mut WritableStreamDefaultController {
    rt.lib
        .writable
        .controllers
        .get_mut(&id)
        .expect("a WritableStreamDefaultController")
}

pub(crate) fn writer(rt: &Rt, id: ObjectId) -> &WritableStreamDefaultWriter {
    &rt.lib.writable.writers[&id]
}

pub(crate) fn writer_mut(rt: &mut Rt, id: ObjectId) -> &mut WritableStreamDefaultWriter {
    rt.lib
        .writable
        .writers
        .get_mut(&id)
        .expect("a WritableStreamDefaultWriter")
}

/// The controller of a stream that has been set up.
pub(crate) fn stream_controller(rt: &Rt, s: ObjectId) -> ObjectId {
    stream(rt, s)
        .controller
        .expect("a stream's controller, set by its constructor")
}

fn wrong_kind(rt: &mut Rt, value: &Value, prop: &str) -> Value {
    crate::cannot_read(rt, value, prop)
}

fn stream_operand(rt: &mut Rt, value: Value, prop: &str) -> Result<ObjectId, Value> {
    match value {
        Value::Object(id) if rt.lib.writable.streams.contains_key(&id) => Ok(id),
        other => Err(wrong_kind(rt, &other, prop)),
    }
}

fn controller_operand(rt: &mut Rt, value: Value, prop: &str) -> Result<ObjectId, Value> {
    match value {
        Value::Object(id) if rt.lib.writable.controllers.contains_key(&id) => Ok(id),
        other => Err(wrong_kind(rt, &other, prop)),
    }
}

fn writer_operand(rt: &mut Rt, value: Value, prop: &str) -> Result<ObjectId, Value> {
    match value {
        Value::Object(id) if rt.lib.writable.writers.contains_key(&id) => Ok(id),
        other => Err(wrong_kind(rt, &other, prop)),
    }
}

/// Node's "Writer is not bound to a WritableStream" rejection.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L424-L428>
fn not_bound(rt: &mut Rt) -> Value {
    err_invalid_state(rt, "Writer is not bound to a WritableStream")
}

fn rejected_completion(rt: &mut Rt, e: Value) -> Completion {
    Ok(Value::Object(a_promise_rejected_with(rt, e)))
}

// ---- queuing strategies ---------------------------------------------------

/// ExtractSizeAlgorithm(strategy)
/// (<https://streams.spec.whatwg.org/#make-size-algorithm-from-size-function>).
pub(crate) fn extract_size_algorithm(strategy: &QueuingStrategy) -> SizeAlgorithm {
    // 1. If strategy["size"] does not exist, return an algorithm that
    //    returns 1.
    // 2. Return an algorithm that performs the following steps, taking a
    //    chunk argument: 1. Return the result of invoking strategy["size"]
    //    with argument list « chunk ».
    match strategy.size {
        None => SizeAlgorithm::ReturnOne,
        Some(size) => SizeAlgorithm::Invoke(size),
    }
}

/// Performing a size algorithm, passing in chunk: the chunk's size, or the
/// exception of `size` (Web IDL "invoke a callback function": `this`
/// undefined, the result converted to unrestricted double).
pub(crate) fn perform_size_algorithm(
    rt: &mut Rt,
    algorithm: SizeAlgorithm,
    chunk: Value,
) -> Result<Value, Value> {
    match algorithm {
        SizeAlgorithm::ReturnOne => Ok(Value::Number(1.0)),
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1130-L1136
        // `FunctionPrototypeCall(sizeAlgorithm, undefined, chunk)`: the
        // value is returned as it is, and converted (`+size`) only by
        // enqueueValueWithSize, whose RangeError names the value returned.
        SizeAlgorithm::Invoke(size) => {
            crate::streams::call_rooted(rt, size, Value::Undefined, &[chunk], &[])
        }
    }
}

/// `+value` for the values a scenario's `size` can return.
///
/// MODEL: strings are converted as JavaScript's StringToNumber does for
/// decimal literals and whitespace; an object is NaN (a plain object's
/// ToPrimitive is "[object Object]").
fn to_number(rt: &mut Rt, value: &Value) -> Result<f64, Value> {
    Ok(match value {
        Value::Number(n) => *n,
        Value::Undefined => f64::NAN,
        Value::Null => 0.0,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::String(s) => {
            let t = s.trim();
            if t.is_empty() {
                0.0
            } else {
                t.parse::<f64>().unwrap_or(f64::NAN)
            }
        }
        Value::Symbol(_) => {
            return Err(rt.new_error("TypeError", "Cannot convert a Symbol value to a number"))
        }
        Value::Object(_) => f64::NAN,
    })
}

/// How Node's `inspect` writes a refused value in ERR_INVALID_ARG_VALUE.
fn inspect(rt: &Rt, value: &Value) -> String {
    match value {
        Value::String(s) => format!("'{s}'"),
        other => rt.fmt(other),
    }
}

/// The checks of EnqueueValueWithSize(container, value, size), steps 2 and
/// 3 (<https://streams.spec.whatwg.org/#enqueue-value-with-size>): the size
/// as a number, or the RangeError.
pub(crate) fn check_chunk_size(rt: &mut Rt, size: &Value) -> Result<f64, Value> {
    let n = to_number(rt, size)?;
    // 2. If ! IsNonNegativeNumber(size) is false, throw a RangeError exception.
    // 3. If size is +∞, throw a RangeError exception.
    if n.is_nan() || n < 0.0 || n == f64::INFINITY {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L289-L296
        // `throw new ERR_INVALID_ARG_VALUE.RangeError('size', size)`:
        // "The argument 'size' is invalid. Received NaN".
        let received = inspect(rt, size);
        return Err(rt.node_error(
            "RangeError",
            "ERR_INVALID_ARG_VALUE",
            &format!("The argument 'size' is invalid. Received {received}"),
        ));
    }
    Ok(n)
}

// ---- the WritableStream class ---------------------------------------------

/// `new WritableStream(underlyingSink, strategy)`
/// (<https://streams.spec.whatwg.org/#ws-constructor>).
pub fn new_writable_stream(
    rt: &mut Rt,
    sink: UnderlyingSink,
    strategy: QueuingStrategy,
) -> Completion {
    // 1. If underlyingSink is missing, set it to null.
    // 2. Let underlyingSinkDict be underlyingSink, converted to an IDL value
    //    of type UnderlyingSink.
    // 3. If underlyingSinkDict["type"] exists, throw a RangeError exception.
    // MODEL: the scenario's sink has only start, write, close and abort.
    let this = rt.heap.alloc(ObjectData::Host);
    // 4. Perform ! InitializeWritableStream(this).
    initialize_writable_stream(rt, this);
    // 5. Let sizeAlgorithm be ! ExtractSizeAlgorithm(strategy).
    let size_algorithm = extract_size_algorithm(&strategy);
    // 6. Let highWaterMark be ? ExtractHighWaterMark(strategy, 1).
    let high_water_mark =
        match crate::streams::extract_high_water_mark(rt, strategy.high_water_mark, 1.0) {
            Ok(hwm) => hwm,
            Err(e) => {
                // The object never reaches the script.
                rt.lib.writable.streams.remove(&this);
                return Err(e);
            }
        };
    // 7. Perform ? SetUpWritableStreamDefaultControllerFromUnderlyingSink(
    //    this, underlyingSink, underlyingSinkDict, highWaterMark,
    //    sizeAlgorithm).
    set_up_writable_stream_default_controller_from_underlying_sink(
        rt,
        this,
        sink,
        high_water_mark,
        size_algorithm,
    )?;
    Ok(Value::Object(this))
}

/// `stream.abort(reason)` (<https://streams.spec.whatwg.org/#ws-abort>).
pub fn stream_abort(rt: &mut Rt, s: Value, reason: Option<Value>) -> Completion {
    let s = stream_operand(rt, s, "abort")?;
    let reason = reason.unwrap_or(Value::Undefined);
    // 1. If ! IsWritableStreamLocked(this) is true, return a promise rejected
    //    with a TypeError exception.
    if is_writable_stream_locked(rt, s) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L262-L265
        let e = err_invalid_state(rt, "WritableStream is locked");
        return rejected_completion(rt, e);
    }
    // 2. Return ! WritableStreamAbort(this, reason).
    Ok(Value::Object(writable_stream_abort(rt, s, reason)))
}

/// `stream.close()` (<https://streams.spec.whatwg.org/#ws-close>).
pub fn stream_close(rt: &mut Rt, s: Value) -> Completion {
    let s = stream_operand(rt, s, "close")?;
    // 1. If ! IsWritableStreamLocked(this) is true, return a promise rejected
    //    with a TypeError exception.
    if is_writable_stream_locked(rt, s) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L276-L279
        let e = err_invalid_state(rt, "WritableStream is locked");
        return rejected_completion(rt, e);
    }
    // 2. If ! WritableStreamCloseQueuedOrInFlight(this) is true, return a
    //    promise rejected with a TypeError exception.
    if writable_stream_close_queued_or_in_flight(rt, s) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L280-L283
        let e = err_invalid_state(rt, "Failure closing WritableStream");
        return rejected_completion(rt, e);
    }
    // 3. Return ! WritableStreamClose(this).
    Ok(Value::Object(writable_stream_close(rt, s)))
}

/// `stream.getWriter()` (<https://streams.spec.whatwg.org/#ws-get-writer>).
pub fn get_writer(rt: &mut Rt, s: Value) -> Completion {
    let s = stream_operand(rt, s, "getWriter")?;
    // 1. Return ? AcquireWritableStreamDefaultWriter(this).
    Ok(Value::Object(acquire_writable_stream_default_writer(
        rt, s,
    )?))
}

// ---- writable stream abstract operations ----------------------------------

/// AcquireWritableStreamDefaultWriter(stream)
/// (<https://streams.spec.whatwg.org/#acquire-writable-stream-default-writer>).
pub(crate) fn acquire_writable_stream_default_writer(
    rt: &mut Rt,
    s: ObjectId,
) -> Result<ObjectId, Value> {
    // 1. Let writer be a new WritableStreamDefaultWriter.
    let w = rt.heap.alloc(ObjectData::Host);
    // 2. Perform ? SetUpWritableStreamDefaultWriter(writer, stream).
    set_up_writable_stream_default_writer(rt, w, s)?;
    // 3. Return writer.
    Ok(w)
}

/// CreateWritableStream(startAlgorithm, writeAlgorithm, closeAlgorithm,
/// abortAlgorithm, highWaterMark, sizeAlgorithm)
/// (<https://streams.spec.whatwg.org/#create-writable-stream>).
pub(crate) fn create_writable_stream(
    rt: &mut Rt,
    start_algorithm: StartAlgorithm,
    write_algorithm: WriteAlgorithm,
    close_algorithm: CloseAlgorithm,
    abort_algorithm: AbortAlgorithm,
    high_water_mark: f64,
    size_algorithm: SizeAlgorithm,
) -> ObjectId {
    // 1. Assert: ! IsNonNegativeNumber(highWaterMark) is true.
    assert!(high_water_mark >= 0.0);
    // 2. Let stream be a new WritableStream.
    let s = rt.heap.alloc(ObjectData::Host);
    // 3. Perform ! InitializeWritableStream(stream).
    initialize_writable_stream(rt, s);
    // 4. Let controller be a new WritableStreamDefaultController.
    let c = rt.heap.alloc(ObjectData::Host);
    // 5. Perform ? SetUpWritableStreamDefaultController(stream, controller,
    //    startAlgorithm, writeAlgorithm, closeAlgorithm, abortAlgorithm,
    //    highWaterMark, sizeAlgorithm).
    set_up_writable_stream_default_controller(
        rt,
        s,
        c,
        Value::Undefined,
        start_algorithm,
        write_algorithm,
        close_algorithm,
        abort_algorithm,
        high_water_mark,
        size_algorithm,
    )
    .expect("a start algorithm that returns a promise does not throw");
    // 6. Return stream.
    s
}

/// InitializeWritableStream(stream)
/// (<https://streams.spec.whatwg.org/#initialize-writable-stream>).
fn initialize_writable_stream(rt: &mut Rt, s: ObjectId) {
    rt.lib.writable.streams.insert(
        s,
        WritableStream {
            // 8. Set stream.[[backpressure]] to false.
            backpressure: false,
            // 4. Set stream.[[writer]], stream.[[controller]],
            //    stream.[[inFlightWriteRequest]], stream.[[closeRequest]],
            //    stream.[[inFlightCloseRequest]], and
            //    stream.[[pendingAbortRequest]] to undefined.
            close_request: None,
            controller: None,
            in_flight_write_request: None,
            in_flight_close_request: None,
            pending_abort_request: None,
            // 1. Set stream.[[state]] to "writable".
            state: WritableStreamState::Writable,
            // 2. Set stream.[[storedError]], stream.[[writer]], ... to
            //    undefined.
            stored_error: Value::Undefined,
            writer: None,
            // 5. Set stream.[[writeRequests]] to a new empty list.
            write_requests: VecDeque::new(),
        },
    );
}

/// IsWritableStreamLocked(stream)
/// (<https://streams.spec.whatwg.org/#is-writable-stream-locked>).
pub(crate) fn is_writable_stream_locked(rt: &Rt, s: ObjectId) -> bool {
    // 1. If stream.[[writer]] is undefined, return false.
    // 2. Return true.
    stream(rt, s).writer.is_some()
}

/// SetUpWritableStreamDefaultWriter(writer, stream)
/// (<https://streams.spec.whatwg.org/#set-up-writable-stream-default-writer>).
fn set_up_writable_stream_default_writer(
    rt: &mut Rt,
    w: ObjectId,
    s: ObjectId,
) -> Result<(), Value> {
    // 1. If ! IsWritableStreamLocked(stream) is true, throw a TypeError
    //    exception.
    if is_writable_stream_locked(rt, s) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L621-L622
        return Err(err_invalid_state(rt, "WritableStream is locked"));
    }
    // 4. Let state be stream.[[state]].
    let state = stream(rt, s).state;
    let (ready_promise, closed_promise) = match state {
        // 5. If state is "writable",
        WritableStreamState::Writable => {
            //   1. If ! WritableStreamCloseQueuedOrInFlight(stream) is false
            //      and stream.[[backpressure]] is true, set
            //      writer.[[readyPromise]] to a new promise.
            //   2. Otherwise, set writer.[[readyPromise]] to a promise
            //      resolved with undefined.
            let ready = if !writable_stream_close_queued_or_in_flight(rt, s)
                && stream(rt, s).backpressure
            {
                a_new_promise(rt)
            } else {
                a_promise_resolved_with(rt, Value::Undefined)
            };
            //   3. Set writer.[[closedPromise]] to a new promise.
            (ready, a_new_promise(rt))
        }
        // 6. Otherwise, if state is "erroring",
        WritableStreamState::Erroring => {
            //   1. Set writer.[[readyPromise]] to a promise rejected with
            //      stream.[[storedError]].
            let e = stream(rt, s).stored_error.clone();
            let ready = a_promise_rejected_with(rt, e);
            //   2. Set writer.[[readyPromise]].[[PromiseIsHandled]] to true.
            mark_as_handled(rt, ready);
            //   3. Set writer.[[closedPromise]] to a new promise.
            (ready, a_new_promise(rt))
        }
        // 7. Otherwise, if state is "closed",
        WritableStreamState::Closed => {
            //   1. Set writer.[[readyPromise]] to a promise resolved with
            //      undefined.
            let ready = a_promise_resolved_with(rt, Value::Undefined);
            //   2. Set writer.[[closedPromise]] to a promise resolved with
            //      undefined.
            (ready, a_promise_resolved_with(rt, Value::Undefined))
        }
        // 8. Otherwise,
        WritableStreamState::Errored => {
            //   1. Assert: state is "errored".
            //   2. Let storedError be stream.[[storedError]].
            let stored_error = stream(rt, s).stored_error.clone();
            //   3. Set writer.[[readyPromise]] to a promise rejected with
            //      storedError.
            //   4. Set writer.[[readyPromise]].[[PromiseIsHandled]] to true.
            let ready = a_promise_rejected_with(rt, stored_error.clone());
            mark_as_handled(rt, ready);
            //   5. Set writer.[[closedPromise]] to a promise rejected with
            //      storedError.
            //   6. Set writer.[[closedPromise]].[[PromiseIsHandled]] to true.
            let closed = a_promise_rejected_with(rt, stored_error);
            mark_as_handled(rt, closed);
            (ready, closed)
        }
    };
    rt.lib.writable.writers.insert(
        w,
        WritableStreamDefaultWriter {
            closed_promise,
            ready_promise,
            // 2. Set writer.[[stream]] to stream.
            stream: Some(s),
            ready_observed: false,
            // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L620-L629
            // Node's setup materializes no record: `ready` is derived when
            // first read (writerReadyPromise). Of the states, only
            // "erroring" can move to a state that derives another promise
            // than the one made above: to "closed" (an abort while the
            // close is in flight), whose derived ready is fulfilled.
            ready_dropped: state == WritableStreamState::Erroring,
            ready_hook: None,
        },
    );
    // 3. Set stream.[[writer]] to writer.
    stream_mut(rt, s).writer = Some(w);
    Ok(())
}

/// WritableStreamAbort(stream, reason)
/// (<https://streams.spec.whatwg.org/#writable-stream-abort>).
pub(crate) fn writable_stream_abort(rt: &mut Rt, s: ObjectId, reason: Value) -> ObjectId {
    let mut reason = reason;
    // 1. If stream.[[state]] is "closed" or "errored", return a promise
    //    resolved with undefined.
    if matches!(
        stream(rt, s).state,
        WritableStreamState::Closed | WritableStreamState::Errored
    ) {
        return a_promise_resolved_with(rt, Value::Undefined);
    }
    // 2. Signal abort on stream.[[controller]].[[abortController]] with
    //    reason.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L677
    // `abortController.abort(reason)`: an undefined reason is the default
    // parameter's AbortError DOMException for the signal (the stream's
    // stored error stays undefined).
    let c = stream_controller(rt, s);
    let abort_controller = controller(rt, c).abort_controller;
    // (The stream and the reason are rooted while the signal's abort
    // listeners run script code.)
    crate::streams::rooted(rt, &[Value::Object(s), reason.clone()], |rt| {
        abort::controller_abort(rt, abort_controller, Some(reason.clone()))
    });
    // 3. Let state be stream.[[state]].
    let state = stream(rt, s).state;
    // 4. If state is "closed" or "errored", return a promise resolved with
    //    undefined.
    if matches!(
        state,
        WritableStreamState::Closed | WritableStreamState::Errored
    ) {
        return a_promise_resolved_with(rt, Value::Undefined);
    }
    // 5. If stream.[[pendingAbortRequest]] is not undefined, return
    //    stream.[[pendingAbortRequest]]'s promise.
    if let Some(request) = &stream(rt, s).pending_abort_request {
        return request.promise;
    }
    // 6. Assert: state is "writable" or "erroring".
    assert!(matches!(
        state,
        WritableStreamState::Writable | WritableStreamState::Erroring
    ));
    // 7. Let wasAlreadyErroring be false.
    let mut was_already_erroring = false;
    // 8. If state is "erroring",
    if state == WritableStreamState::Erroring {
        //   1. Set wasAlreadyErroring to true.
        was_already_erroring = true;
        //   2. Set reason to undefined.
        reason = Value::Undefined;
    }
    // 9. Let promise be a new promise.
    let promise = a_new_promise(rt);
    // 10. Set stream.[[pendingAbortRequest]] to a new pending abort request
    //     whose promise is promise, reason is reason, and was already
    //     erroring is wasAlreadyErroring.
    stream_mut(rt, s).pending_abort_request = Some(PendingAbortRequest {
        promise,
        reason: reason.clone(),
        was_already_erroring,
    });
    // 11. If wasAlreadyErroring is false, perform !
    //     WritableStreamStartErroring(stream, reason).
    if !was_already_erroring {
        writable_stream_start_erroring(rt, s, reason);
    }
    // 12. Return promise.
    promise
}

/// WritableStreamClose(stream)
/// (<https://streams.spec.whatwg.org/#writable-stream-close>).
pub(crate) fn writable_stream_close(rt: &mut Rt, s: ObjectId) -> ObjectId {
    // 1. Let state be stream.[[state]].
    let state = stream(rt, s).state;
    // 2. If state is "closed" or "errored", return a promise rejected with a
    //    TypeError exception.
    if matches!(
        state,
        WritableStreamState::Closed | WritableStreamState::Errored
    ) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L716-L719
        let e = err_invalid_state(rt, "WritableStream is closed");
        return a_promise_rejected_with(rt, e);
    }
    // 3. Assert: state is "writable" or "erroring".
    // 4. Assert: ! WritableStreamCloseQueuedOrInFlight(stream) is false.
    assert!(!writable_stream_close_queued_or_in_flight(rt, s));
    // 5. Let promise be a new promise.
    let promise = a_new_promise(rt);
    // 6. Set stream.[[closeRequest]] to promise.
    stream_mut(rt, s).close_request = Some(promise);
    // 7. Let writer be stream.[[writer]].
    // 8. If writer is not undefined, and stream.[[backpressure]] is true,
    //    and state is "writable", resolve writer.[[readyPromise]] with
    //    undefined.
    if let Some(w) = stream(rt, s).writer {
        if stream(rt, s).backpressure && state == WritableStreamState::Writable {
            resolve_ready_promise(rt, w);
        }
    }
    // 9. Perform ! WritableStreamDefaultControllerClose(stream.[[controller]]).
    let c = stream_controller(rt, s);
    // (The promise, returned after the steps, is rooted while they may run
    // script code.)
    crate::streams::rooted(rt, &[Value::Object(promise)], |rt| {
        writable_stream_default_controller_close(rt, c)
    });
    // 10. Return promise.
    promise
}

/// "Resolve writer.[[readyPromise]] with undefined", or, for a pipe's
/// writer whose ready hook is installed, the hook's resolve: the pump.
fn resolve_ready_promise(rt: &mut Rt, w: ObjectId) {
    let ready = writer(rt, w).ready_promise;
    resolve(rt, ready, Value::Undefined);
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1791-L1798
    // the pipe's ready hook is `{ resolve: pump }`: resolving it runs the
    // pump now, inside the settle site.
    if let Some(p) = writer(rt, w).ready_hook {
        // (The pump throws only from a write into a destination whose close
        // is in flight; the hook runs when backpressure clears, only while
        // the destination is "writable" with no close queued or in flight,
        // or from WritableStreamClose, where the pump finds backpressure
        // and parks again. Node would throw into the settle site.)
        let pumped = crate::streams::rooted(rt, &[Value::Object(p.0)], |rt| pipe::pump(rt, p));
        if let Err(e) = pumped {
            rt.report_uncaught(&e);
        }
    }
}

/// WritableStreamAddWriteRequest(stream)
/// (<https://streams.spec.whatwg.org/#writable-stream-add-write-request>).
fn writable_stream_add_write_request(rt: &mut Rt, s: ObjectId) -> ObjectId {
    // 1. Assert: ! IsWritableStreamLocked(stream) is true.
    assert!(is_writable_stream_locked(rt, s));
    // 2. Assert: stream.[[state]] is "writable".
    assert_eq!(stream(rt, s).state, WritableStreamState::Writable);
    // 3. Let promise be a new promise.
    let promise = a_new_promise(rt);
    // 4. Append promise to stream.[[writeRequests]].
    stream_mut(rt, s)
        .write_requests
        .push_back(WriteRequest::Promise(promise));
    // 5. Return promise.
    promise
}

/// WritableStreamCloseQueuedOrInFlight(stream)
/// (<https://streams.spec.whatwg.org/#writable-stream-close-queued-or-in-flight>).
pub(crate) fn writable_stream_close_queued_or_in_flight(rt: &Rt, s: ObjectId) -> bool {
    // 1. If stream.[[closeRequest]] is undefined and
    //    stream.[[inFlightCloseRequest]] is undefined, return false.
    // 2. Return true.
    let stream = stream(rt, s);
    stream.close_request.is_some() || stream.in_flight_close_request.is_some()
}

/// WritableStreamDealWithRejection(stream, error)
/// (<https://streams.spec.whatwg.org/#writable-stream-deal-with-rejection>).
fn writable_stream_deal_with_rejection(rt: &mut Rt, s: ObjectId, error: Value) {
    // 1. Let state be stream.[[state]].
    let state = stream(rt, s).state;
    // 2. If state is "writable",
    if state == WritableStreamState::Writable {
        //   1. Perform ! WritableStreamStartErroring(stream, error).
        writable_stream_start_erroring(rt, s, error);
        //   2. Return.
        return;
    }
    // 3. Assert: state is "erroring".
    assert_eq!(state, WritableStreamState::Erroring);
    // 4. Perform ! WritableStreamFinishErroring(stream).
    writable_stream_finish_erroring(rt, s);
}

/// Settles a write request: "resolve writeRequest with undefined".
fn resolve_write_request(rt: &mut Rt, request: WriteRequest) {
    match request {
        WriteRequest::Promise(p) => resolve(rt, p, Value::Undefined),
        WriteRequest::Pipe(p) => pipe::write_request_resolve(rt, p),
    }
}

/// "Reject writeRequest with error".
fn reject_write_request(rt: &mut Rt, request: WriteRequest, error: Value) {
    match request {
        WriteRequest::Promise(p) => reject(rt, p, error),
        WriteRequest::Pipe(p) => pipe::write_request_reject(rt, p, error),
    }
}

/// WritableStreamFinishErroring(stream)
/// (<https://streams.spec.whatwg.org/#writable-stream-finish-erroring>).
fn writable_stream_finish_erroring(rt: &mut Rt, s: ObjectId) {
    // 1. Assert: stream.[[state]] is "erroring".
    assert_eq!(stream(rt, s).state, WritableStreamState::Erroring);
    // 2. Assert: ! WritableStreamHasOperationMarkedInFlight(stream) is false.
    assert!(!writable_stream_has_operation_marked_in_flight(rt, s));
    // 3. Set stream.[[state]] to "errored".
    stream_mut(rt, s).state = WritableStreamState::Errored;
    // 4. Perform ! stream.[[controller]].[[ErrorSteps]]().
    let c = stream_controller(rt, s);
    error_steps(rt, c);
    // 5. Let storedError be stream.[[storedError]].
    let stored_error = stream(rt, s).stored_error.clone();
    // 6. For each writeRequest of stream.[[writeRequests]]:
    //    1. Reject writeRequest with storedError.
    // 7. Set stream.[[writeRequests]] to an empty list.
    let write_requests = std::mem::take(&mut stream_mut(rt, s).write_requests);
    for write_request in write_requests {
        reject_write_request(rt, write_request, stored_error.clone());
    }
    // 8. If stream.[[pendingAbortRequest]] is undefined,
    //    1. Perform ! WritableStreamRejectCloseAndClosedPromiseIfNeeded(stream).
    //    2. Return.
    // 9. Let abortRequest be stream.[[pendingAbortRequest]].
    // 10. Set stream.[[pendingAbortRequest]] to undefined.
    let Some(abort_request) = stream_mut(rt, s).pending_abort_request.take() else {
        writable_stream_reject_close_and_closed_promise_if_needed(rt, s);
        return;
    };
    // 11. If abortRequest's was already erroring is true,
    if abort_request.was_already_erroring {
        //   1. Reject abortRequest's promise with storedError.
        reject(rt, abort_request.promise, stored_error);
        //   2. Perform ! WritableStreamRejectCloseAndClosedPromiseIfNeeded(stream).
        writable_stream_reject_close_and_closed_promise_if_needed(rt, s);
        //   3. Return.
        return;
    }
    // 12. Let promise be ! stream.[[controller]].[[AbortSteps]](abortRequest's reason).
    // (abortRequest, in no slot now, and the stream are rooted while the
    // sink's abort runs script code.)
    let abort_promise = abort_request.promise;
    let roots = [Value::Object(abort_promise), Value::Object(s)];
    let promise = crate::streams::rooted(rt, &roots, |rt| abort_steps(rt, c, abort_request.reason));
    upon_settlement(
        rt,
        promise,
        &[Value::Object(abort_promise), Value::Object(s)],
        // 13. Upon fulfillment of promise,
        move |rt, _| {
            //   1. Resolve abortRequest's promise with undefined.
            resolve(rt, abort_promise, Value::Undefined);
            //   2. Perform ! WritableStreamRejectCloseAndClosedPromiseIfNeeded(stream).
            writable_stream_reject_close_and_closed_promise_if_needed(rt, s);
        },
        // 14. Upon rejection of promise with reason reason,
        move |rt, reason| {
            //   1. Reject abortRequest's promise with reason.
            reject(rt, abort_promise, reason);
            //   2. Perform ! WritableStreamRejectCloseAndClosedPromiseIfNeeded(stream).
            writable_stream_reject_close_and_closed_promise_if_needed(rt, s);
        },
    );
}

/// WritableStreamFinishInFlightClose(stream)
/// (<https://streams.spec.whatwg.org/#writable-stream-finish-in-flight-close>).
fn writable_stream_finish_in_flight_close(rt: &mut Rt, s: ObjectId) {
    // 1. Assert: stream.[[inFlightCloseRequest]] is not undefined.
    // 2. Resolve stream.[[inFlightCloseRequest]] with undefined.
    // 3. Set stream.[[inFlightCloseRequest]] to undefined.
    let request = stream_mut(rt, s)
        .in_flight_close_request
        .take()
        .expect("a close request in flight");
    resolve(rt, request, Value::Undefined);
    // 4. Let state be stream.[[state]].
    let state = stream(rt, s).state;
    // 5. Assert: stream.[[state]] is "writable" or "erroring".
    assert!(matches!(
        state,
        WritableStreamState::Writable | WritableStreamState::Erroring
    ));
    // 6. If state is "erroring",
    if state == WritableStreamState::Erroring {
        //   1. Set stream.[[storedError]] to undefined.
        stream_mut(rt, s).stored_error = Value::Undefined;
        //   2. If stream.[[pendingAbortRequest]] is not undefined,
        //      1. Resolve stream.[[pendingAbortRequest]]'s promise with
        //         undefined.
        //      2. Set stream.[[pendingAbortRequest]] to undefined.
        if let Some(request) = stream_mut(rt, s).pending_abort_request.take() {
            resolve(rt, request.promise, Value::Undefined);
        }
    }
    // 7. Set stream.[[state]] to "closed".
    stream_mut(rt, s).state = WritableStreamState::Closed;
    // 8. Let writer be stream.[[writer]].
    // 9. If writer is not undefined, resolve writer.[[closedPromise]] with
    //    undefined.
    if let Some(w) = stream(rt, s).writer {
        let closed = writer(rt, w).closed_promise;
        resolve(rt, closed, Value::Undefined);
    }
    // 10. Assert: stream.[[pendingAbortRequest]] is undefined.
    assert!(stream(rt, s).pending_abort_request.is_none());
    // 11. Assert: stream.[[storedError]] is undefined.
    assert_eq!(stream(rt, s).stored_error, Value::Undefined);
}

/// WritableStreamFinishInFlightCloseWithError(stream, error)
/// (<https://streams.spec.whatwg.org/#writable-stream-finish-in-flight-close-with-error>).
fn writable_stream_finish_in_flight_close_with_error(rt: &mut Rt, s: ObjectId, error: Value) {
    // 1. Assert: stream.[[inFlightCloseRequest]] is not undefined.
    // 2. Reject stream.[[inFlightCloseRequest]] with error.
    // 3. Set stream.[[inFlightCloseRequest]] to undefined.
    let request = stream_mut(rt, s)
        .in_flight_close_request
        .take()
        .expect("a close request in flight");
    reject(rt, request, error.clone());
    // 4. Assert: stream.[[state]] is "writable" or "erroring".
    assert!(matches!(
        stream(rt, s).state,
        WritableStreamState::Writable | WritableStreamState::Erroring
    ));
    // 5. If stream.[[pendingAbortRequest]] is not undefined,
    //    1. Reject stream.[[pendingAbortRequest]]'s promise with error.
    //    2. Set stream.[[pendingAbortRequest]] to undefined.
    if let Some(request) = stream_mut(rt, s).pending_abort_request.take() {
        reject(rt, request.promise, error.clone());
    }
    // 6. Perform ! WritableStreamDealWithRejection(stream, error).
    writable_stream_deal_with_rejection(rt, s, error);
}

/// WritableStreamFinishInFlightWrite(stream)
/// (<https://streams.spec.whatwg.org/#writable-stream-finish-in-flight-write>).
fn writable_stream_finish_in_flight_write(rt: &mut Rt, s: ObjectId) {
    // 1. Assert: stream.[[inFlightWriteRequest]] is not undefined.
    // 2. Resolve stream.[[inFlightWriteRequest]] with undefined.
    // 3. Set stream.[[inFlightWriteRequest]] to undefined.
    let request = stream_mut(rt, s)
        .in_flight_write_request
        .take()
        .expect("a write request in flight");
    resolve_write_request(rt, request);
}

/// WritableStreamFinishInFlightWriteWithError(stream, error)
/// (<https://streams.spec.whatwg.org/#writable-stream-finish-in-flight-write-with-error>).
fn writable_stream_finish_in_flight_write_with_error(rt: &mut Rt, s: ObjectId, error: Value) {
    // 1. Assert: stream.[[inFlightWriteRequest]] is not undefined.
    // 2. Reject stream.[[inFlightWriteRequest]] with error.
    // 3. Set stream.[[inFlightWriteRequest]] to undefined.
    let request = stream_mut(rt, s)
        .in_flight_write_request
        .take()
        .expect("a write request in flight");
    reject_write_request(rt, request, error.clone());
    // 4. Assert: stream.[[state]] is "writable" or "erroring".
    assert!(matches!(
        stream(rt, s).state,
        WritableStreamState::Writable | WritableStreamState::Erroring
    ));
    // 5. Perform ! WritableStreamDealWithRejection(stream, error).
    writable_stream_deal_with_rejection(rt, s, error);
}

/// WritableStreamHasOperationMarkedInFlight(stream)
/// (<https://streams.spec.whatwg.org/#writable-stream-has-operation-marked-in-flight>).
fn writable_stream_has_operation_marked_in_flight(rt: &Rt, s: ObjectId) -> bool {
    // 1. If stream.[[inFlightWriteRequest]] is undefined and
    //    stream.[[inFlightCloseRequest]] is undefined, return false.
    // 2. Return true.
    let stream = stream(rt, s);
    stream.in_flight_write_request.is_some() || stream.in_flight_close_request.is_some()
}

/// WritableStreamMarkCloseRequestInFlight(stream)
/// (<https://streams.spec.whatwg.org/#writable-stream-mark-close-request-in-flight>).
fn writable_stream_mark_close_request_in_flight(rt: &mut Rt, s: ObjectId) {
    let stream = stream_mut(rt, s);
    // 1. Assert: stream.[[inFlightCloseRequest]] is undefined.
    assert!(stream.in_flight_close_request.is_none());
    // 2. Assert: stream.[[closeRequest]] is not undefined.
    // 3. Set stream.[[inFlightCloseRequest]] to stream.[[closeRequest]].
    // 4. Set stream.[[closeRequest]] to undefined.
    stream.in_flight_close_request = Some(stream.close_request.take().expect("a close request"));
}

/// WritableStreamMarkFirstWriteRequestInFlight(stream)
/// (<https://streams.spec.whatwg.org/#writable-stream-mark-first-write-request-in-flight>).
fn writable_stream_mark_first_write_request_in_flight(rt: &mut Rt, s: ObjectId) {
    let stream = stream_mut(rt, s);
    // 1. Assert: stream.[[inFlightWriteRequest]] is undefined.
    assert!(stream.in_flight_write_request.is_none());
    // 2. Assert: stream.[[writeRequests]] is not empty.
    // 3. Let writeRequest be stream.[[writeRequests]][0].
    // 4. Remove writeRequest from stream.[[writeRequests]].
    let write_request = stream.write_requests.pop_front().expect("a write request");
    // 5. Set stream.[[inFlightWriteRequest]] to writeRequest.
    stream.in_flight_write_request = Some(write_request);
}

/// WritableStreamRejectCloseAndClosedPromiseIfNeeded(stream)
/// (<https://streams.spec.whatwg.org/#writable-stream-reject-close-and-closed-promise-if-needed>).
fn writable_stream_reject_close_and_closed_promise_if_needed(rt: &mut Rt, s: ObjectId) {
    // 1. Assert: stream.[[state]] is "errored".
    assert_eq!(stream(rt, s).state, WritableStreamState::Errored);
    let stored_error = stream(rt, s).stored_error.clone();
    // 2. If stream.[[closeRequest]] is not undefined,
    //    1. Assert: stream.[[inFlightCloseRequest]] is undefined.
    //    2. Reject stream.[[closeRequest]] with stream.[[storedError]].
    //    3. Set stream.[[closeRequest]] to undefined.
    if let Some(request) = stream_mut(rt, s).close_request.take() {
        assert!(stream(rt, s).in_flight_close_request.is_none());
        reject(rt, request, stored_error.clone());
    }
    // 3. Let writer be stream.[[writer]].
    // 4. If writer is not undefined,
    if let Some(w) = stream(rt, s).writer {
        //   1. Reject writer.[[closedPromise]] with stream.[[storedError]].
        //   2. Set writer.[[closedPromise]].[[PromiseIsHandled]] to true.
        let closed = writer(rt, w).closed_promise;
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L809-L815
        // only a pending closed promise is rejected and marked (a released
        // writer's was already replaced by a rejected one).
        if is_pending(rt, closed) {
            mark_as_handled(rt, closed);
            reject(rt, closed, stored_error);
        }
    }
}

/// WritableStreamStartErroring(stream, reason)
/// (<https://streams.spec.whatwg.org/#writable-stream-start-erroring>).
pub(crate) fn writable_stream_start_erroring(rt: &mut Rt, s: ObjectId, reason: Value) {
    // 1. Assert: stream.[[storedError]] is undefined.
    assert_eq!(stream(rt, s).stored_error, Value::Undefined);
    // 2. Assert: stream.[[state]] is "writable".
    assert_eq!(stream(rt, s).state, WritableStreamState::Writable);
    // 3. Let controller be stream.[[controller]].
    // 4. Assert: controller is not undefined.
    let c = stream_controller(rt, s);
    // 5. Set stream.[[state]] to "erroring".
    stream_mut(rt, s).state = WritableStreamState::Erroring;
    // 6. Set stream.[[storedError]] to reason.
    stream_mut(rt, s).stored_error = reason.clone();
    // 7. Let writer be stream.[[writer]].
    // 8. If writer is not undefined, perform !
    //    WritableStreamDefaultWriterEnsureReadyPromiseRejected(writer, reason).
    if let Some(w) = stream(rt, s).writer {
        writable_stream_default_writer_ensure_ready_promise_rejected(rt, w, reason);
    }
    // 9. If ! WritableStreamHasOperationMarkedInFlight(stream) is false and
    //    controller.[[started]] is true, perform !
    //    WritableStreamFinishErroring(stream).
    if !writable_stream_has_operation_marked_in_flight(rt, s) && controller(rt, c).started {
        writable_stream_finish_erroring(rt, s);
    }
}

/// WritableStreamUpdateBackpressure(stream, backpressure)
/// (<https://streams.spec.whatwg.org/#writable-stream-update-backpressure>).
fn writable_stream_update_backpressure(rt: &mut Rt, s: ObjectId, backpressure: bool) {
    // 1. Assert: stream.[[state]] is "writable".
    assert_eq!(stream(rt, s).state, WritableStreamState::Writable);
    // 2. Assert: ! WritableStreamCloseQueuedOrInFlight(stream) is false.
    assert!(!writable_stream_close_queued_or_in_flight(rt, s));
    // 3. Let writer be stream.[[writer]].
    let w = stream(rt, s).writer;
    let changed = backpressure != stream(rt, s).backpressure;
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L737-L741
    // step 5 comes first: "The state field is published before the ready
    // record is resolved so that a ready resolve hook (pipeTo's pump
    // continuation) observes the new value."
    // 5. Set stream.[[backpressure]] to backpressure.
    stream_mut(rt, s).backpressure = backpressure;
    // 4. If writer is not undefined and backpressure is not
    //    stream.[[backpressure]],
    if let Some(w) = w {
        if changed {
            if backpressure {
                //   1. If backpressure is true, set writer.[[readyPromise]]
                //      to a new promise.
                let ready = a_new_promise(rt);
                let writer = writer_mut(rt, w);
                writer.ready_promise = ready;
                writer.ready_observed = false;
                // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L746
                // the new record replaces a pipe's ready hook too.
                writer.ready_hook = None;
            } else {
                //   2. Otherwise, 1. Assert: backpressure is false.
                //      2. Resolve writer.[[readyPromise]] with undefined.
                resolve_ready_promise(rt, w);
            }
        }
    }
}

// ---- the WritableStreamDefaultWriter class --------------------------------

/// The `closed` getter (<https://streams.spec.whatwg.org/#default-writer-closed>).
fn writer_closed(rt: &Rt, w: ObjectId) -> ObjectId {
    // 1. Return this.[[closedPromise]].
    writer(rt, w).closed_promise
}

/// The `desiredSize` getter
/// (<https://streams.spec.whatwg.org/#default-writer-desired-size>).
fn writer_desired_size(rt: &mut Rt, w: ObjectId) -> Completion {
    // 1. If this.[[stream]] is undefined, throw a TypeError exception.
    if writer(rt, w).stream.is_none() {
        return Err(not_bound(rt));
    }
    // 2. Return ! WritableStreamDefaultWriterGetDesiredSize(this).
    Ok(
        match writable_stream_default_writer_get_desired_size(rt, w) {
            Some(n) => Value::Number(n),
            None => Value::Null,
        },
    )
}

/// The `ready` getter (<https://streams.spec.whatwg.org/#default-writer-ready>).
fn writer_ready(rt: &mut Rt, w: ObjectId) -> ObjectId {
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L663-L687
    // `writerReadyPromise(writer)`: a dropped record is derived from the
    // stream's state now; of the states, only "closed" derives something
    // else than the rejected promise the spec left (a fulfilled one).
    if writer(rt, w).ready_dropped {
        writer_mut(rt, w).ready_dropped = false;
        let closed = writer(rt, w)
            .stream
            .is_some_and(|s| stream(rt, s).state == WritableStreamState::Closed);
        if closed {
            let p = a_promise_resolved_with(rt, Value::Undefined);
            writer_mut(rt, w).ready_promise = p;
        }
    }
    writer_mut(rt, w).ready_observed = true;
    // 1. Return this.[[readyPromise]].
    writer(rt, w).ready_promise
}

/// `writer.abort(reason)` (<https://streams.spec.whatwg.org/#default-writer-abort>).
pub fn writer_abort(rt: &mut Rt, w: Value, reason: Option<Value>) -> Completion {
    let w = writer_operand(rt, w, "abort")?;
    let reason = reason.unwrap_or(Value::Undefined);
    // 1. If this.[[stream]] is undefined, return a promise rejected with a
    //    TypeError exception.
    if writer(rt, w).stream.is_none() {
        let e = not_bound(rt);
        return rejected_completion(rt, e);
    }
    // 2. Return ! WritableStreamDefaultWriterAbort(this, reason).
    Ok(Value::Object(writable_stream_default_writer_abort(
        rt, w, reason,
    )))
}

/// `writer.close()` (<https://streams.spec.whatwg.org/#default-writer-close>).
pub fn writer_close(rt: &mut Rt, w: Value) -> Completion {
    let w = writer_operand(rt, w, "close")?;
    // 1. Let stream be this.[[stream]].
    // 2. If stream is undefined, return a promise rejected with a TypeError
    //    exception.
    let Some(s) = writer(rt, w).stream else {
        let e = not_bound(rt);
        return rejected_completion(rt, e);
    };
    // 3. If ! WritableStreamCloseQueuedOrInFlight(stream) is true, return a
    //    promise rejected with a TypeError exception.
    if writable_stream_close_queued_or_in_flight(rt, s) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L451-L454
        let e = err_invalid_state(rt, "Failure to close WritableStream");
        return rejected_completion(rt, e);
    }
    // 4. Return ! WritableStreamDefaultWriterClose(this).
    Ok(Value::Object(writable_stream_default_writer_close(rt, w)))
}

/// `writer.releaseLock()`
/// (<https://streams.spec.whatwg.org/#default-writer-release-lock>).
pub fn writer_release_lock(rt: &mut Rt, w: Value) -> Completion {
    let w = writer_operand(rt, w, "releaseLock")?;
    // 1. Let stream be this.[[stream]].
    // 2. If stream is undefined, return.
    let Some(s) = writer(rt, w).stream else {
        return Ok(Value::Undefined);
    };
    // 3. Assert: stream.[[writer]] is not undefined.
    assert!(stream(rt, s).writer.is_some());
    // 4. Perform ! WritableStreamDefaultWriterRelease(this).
    writable_stream_default_writer_release(rt, w);
    Ok(Value::Undefined)
}

/// `writer.write(chunk)` (<https://streams.spec.whatwg.org/#default-writer-write>).
pub fn writer_write(rt: &mut Rt, w: Value, chunk: Value) -> Completion {
    let w = writer_operand(rt, w, "write")?;
    // 1. If this.[[stream]] is undefined, return a promise rejected with a
    //    TypeError exception.
    if writer(rt, w).stream.is_none() {
        let e = not_bound(rt);
        return rejected_completion(rt, e);
    }
    // 2. Return ! WritableStreamDefaultWriterWrite(this, chunk).
    Ok(Value::Object(writable_stream_default_writer_write(
        rt,
        w,
        chunk,
        WriteRequestKind::Promise,
    )?))
}

// ---- writers' abstract operations ------------------------------------------

/// WritableStreamDefaultWriterAbort(writer, reason)
/// (<https://streams.spec.whatwg.org/#writable-stream-default-writer-abort>).
fn writable_stream_default_writer_abort(rt: &mut Rt, w: ObjectId, reason: Value) -> ObjectId {
    // 1. Let stream be writer.[[stream]].
    // 2. Assert: stream is not undefined.
    let s = writer(rt, w).stream.expect("the writer's stream");
    // 3. Return ! WritableStreamAbort(stream, reason).
    writable_stream_abort(rt, s, reason)
}

/// WritableStreamDefaultWriterClose(writer)
/// (<https://streams.spec.whatwg.org/#writable-stream-default-writer-close>).
fn writable_stream_default_writer_close(rt: &mut Rt, w: ObjectId) -> ObjectId {
    // 1. Let stream be writer.[[stream]].
    // 2. Assert: stream is not undefined.
    let s = writer(rt, w).stream.expect("the writer's stream");
    // 3. Return ! WritableStreamClose(stream).
    writable_stream_close(rt, s)
}

/// WritableStreamDefaultWriterCloseWithErrorPropagation(writer)
/// (<https://streams.spec.whatwg.org/#writable-stream-default-writer-close-with-error-propagation>).
pub(crate) fn writable_stream_default_writer_close_with_error_propagation(
    rt: &mut Rt,
    w: ObjectId,
) -> ObjectId {
    // 1. Let stream be writer.[[stream]].
    // 2. Assert: stream is not undefined.
    let s = writer(rt, w).stream.expect("the writer's stream");
    // 3. Let state be stream.[[state]].
    let state = stream(rt, s).state;
    // 4. If ! WritableStreamCloseQueuedOrInFlight(stream) is true or state
    //    is "closed", return a promise resolved with undefined.
    if writable_stream_close_queued_or_in_flight(rt, s) || state == WritableStreamState::Closed {
        return a_promise_resolved_with(rt, Value::Undefined);
    }
    // 5. If state is "errored", return a promise rejected with
    //    stream.[[storedError]].
    if state == WritableStreamState::Errored {
        let e = stream(rt, s).stored_error.clone();
        return a_promise_rejected_with(rt, e);
    }
    // 6. Assert: state is "writable" or "erroring".
    // 7. Return ! WritableStreamDefaultWriterClose(writer).
    writable_stream_default_writer_close(rt, w)
}

/// WritableStreamDefaultWriterEnsureClosedPromiseRejected(writer, error)
/// (<https://streams.spec.whatwg.org/#writable-stream-default-writer-ensure-closed-promise-rejected>).
fn writable_stream_default_writer_ensure_closed_promise_rejected(
    rt: &mut Rt,
    w: ObjectId,
    error: Value,
) {
    let closed = writer(rt, w).closed_promise;
    // 1. If writer.[[closedPromise]].[[PromiseState]] is "pending", reject
    //    writer.[[closedPromise]] with error.
    if is_pending(rt, closed) {
        reject(rt, closed, error);
    } else {
        // 2. Otherwise, set writer.[[closedPromise]] to a promise rejected
        //    with error.
        let p = a_promise_rejected_with(rt, error);
        writer_mut(rt, w).closed_promise = p;
    }
    // 3. Set writer.[[closedPromise]].[[PromiseIsHandled]] to true.
    let closed = writer(rt, w).closed_promise;
    mark_as_handled(rt, closed);
}

/// WritableStreamDefaultWriterEnsureReadyPromiseRejected(writer, error)
/// (<https://streams.spec.whatwg.org/#writable-stream-default-writer-ensure-ready-promise-rejected>).
fn writable_stream_default_writer_ensure_ready_promise_rejected(
    rt: &mut Rt,
    w: ObjectId,
    error: Value,
) {
    // (A pipe's ready hook rejects nothing: Node's is `ignoreReadyRejection`.)
    writer_mut(rt, w).ready_hook = None;
    let ready = writer(rt, w).ready_promise;
    // 1. If writer.[[readyPromise]].[[PromiseState]] is "pending", reject
    //    writer.[[readyPromise]] with error.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1088-L1099
    // only a materialized (read) record is rejected; else the cache is
    // dropped, and `ready` derives it when next read.
    if is_pending(rt, ready) && writer(rt, w).ready_observed {
        reject(rt, ready, error);
    } else {
        // 2. Otherwise, set writer.[[readyPromise]] to a promise rejected
        //    with error.
        let p = a_promise_rejected_with(rt, error);
        let writer = writer_mut(rt, w);
        writer.ready_promise = p;
        writer.ready_dropped = true;
    }
    // 3. Set writer.[[readyPromise]].[[PromiseIsHandled]] to true.
    let ready = writer(rt, w).ready_promise;
    mark_as_handled(rt, ready);
}

/// WritableStreamDefaultWriterGetDesiredSize(writer)
/// (<https://streams.spec.whatwg.org/#writable-stream-default-writer-get-desired-size>):
/// `None` is null.
pub(crate) fn writable_stream_default_writer_get_desired_size(rt: &Rt, w: ObjectId) -> Option<f64> {
    // 1. Let stream be writer.[[stream]].
    let s = writer(rt, w).stream.expect("the writer's stream");
    // 2. Let state be stream.[[state]].
    match stream(rt, s).state {
        // 3. If state is "errored" or "erroring", return null.
        WritableStreamState::Errored | WritableStreamState::Erroring => None,
        // 4. If state is "closed", return 0.
        WritableStreamState::Closed => Some(0.0),
        // 5. Return ! WritableStreamDefaultControllerGetDesiredSize(
        //    stream.[[controller]]).
        WritableStreamState::Writable => Some(writable_stream_default_controller_get_desired_size(
            rt,
            stream_controller(rt, s),
        )),
    }
}

/// WritableStreamDefaultWriterRelease(writer)
/// (<https://streams.spec.whatwg.org/#writable-stream-default-writer-release>).
pub(crate) fn writable_stream_default_writer_release(rt: &mut Rt, w: ObjectId) {
    // 1. Let stream be writer.[[stream]].
    // 2. Assert: stream is not undefined.
    let s = writer(rt, w).stream.expect("the writer's stream");
    // 3. Assert: stream.[[writer]] is writer.
    assert_eq!(stream(rt, s).writer, Some(w));
    // 4. Let releasedError be a new TypeError.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L124-L135
    // `lazyWritableReleasedError()`: one
    // `ERR_INVALID_STATE.TypeError('Writer has been released')`, made once.
    let released_error = released_error(rt);
    // 5. Perform ! WritableStreamDefaultWriterEnsureReadyPromiseRejected(
    //    writer, releasedError).
    writable_stream_default_writer_ensure_ready_promise_rejected(rt, w, released_error.clone());
    // 6. Perform ! WritableStreamDefaultWriterEnsureClosedPromiseRejected(
    //    writer, releasedError).
    writable_stream_default_writer_ensure_closed_promise_rejected(rt, w, released_error);
    // 7. Set stream.[[writer]] to undefined.
    stream_mut(rt, s).writer = None;
    // 8. Set writer.[[stream]] to undefined.
    writer_mut(rt, w).stream = None;
}

fn released_error(rt: &mut Rt) -> Value {
    if let Some(e) = &rt.lib.writable.released_error {
        return e.clone();
    }
    let e = err_invalid_state(rt, "Writer has been released");
    rt.lib.writable.released_error = Some(e.clone());
    e
}

/// Which write request WritableStreamDefaultWriterWrite makes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum WriteRequestKind {
    /// A new promise, returned (`writer.write()`).
    Promise,
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1000-L1047>
    /// `writableStreamDefaultWriterWriteWithRequest`: a pipe's shared
    /// write tracker, no promise; a failed precondition is latched on the
    /// tracker.
    Pipe(pipe::PipeId),
}

/// WritableStreamDefaultWriterWrite(writer, chunk)
/// (<https://streams.spec.whatwg.org/#writable-stream-default-writer-write>):
/// the write's promise (for a pipe's write, an unused resolved promise).
pub(crate) fn writable_stream_default_writer_write(
    rt: &mut Rt,
    w: ObjectId,
    chunk: Value,
    kind: WriteRequestKind,
) -> Result<ObjectId, Value> {
    let fail = |rt: &mut Rt, e: Value| match kind {
        WriteRequestKind::Promise => a_promise_rejected_with(rt, e),
        WriteRequestKind::Pipe(p) => {
            pipe::write_request_failed(rt, p, e);
            a_promise_resolved_with(rt, Value::Undefined)
        }
    };
    // 1. Let stream be writer.[[stream]].
    // 2. Assert: stream is not undefined.
    let s = writer(rt, w).stream.expect("the writer's stream");
    // 3. Let controller be stream.[[controller]].
    let c = stream_controller(rt, s);
    // 4. Let chunkSize be ! WritableStreamDefaultControllerGetChunkSize(
    //    controller, chunk).
    // (The writer, the stream, the chunk and a pipe's record are rooted
    // while the size function runs script code: the steps below use them.)
    let mut roots = vec![Value::Object(w), Value::Object(s), chunk.clone()];
    if let WriteRequestKind::Pipe(p) = kind {
        roots.push(Value::Object(p.0));
    }
    let chunk_size = crate::streams::rooted(rt, &roots, |rt| {
        writable_stream_default_controller_get_chunk_size(rt, c, chunk.clone())
    })?;
    // 5. If stream is not equal to writer.[[stream]], return a promise
    //    rejected with a TypeError exception.
    if writer(rt, w).stream != Some(s) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L978-L981
        let e = err_invalid_state(rt, "Mismatched WritableStreams");
        return Ok(fail(rt, e));
    }
    // 6. Let state be stream.[[state]].
    let state = stream(rt, s).state;
    // 7. If state is "errored", return a promise rejected with
    //    stream.[[storedError]].
    if state == WritableStreamState::Errored {
        let e = stream(rt, s).stored_error.clone();
        return Ok(fail(rt, e));
    }
    // 8. If ! WritableStreamCloseQueuedOrInFlight(stream) is true or state
    //    is "closed", return a promise rejected with a TypeError exception
    //    indicating that the stream is closing or closed.
    if writable_stream_close_queued_or_in_flight(rt, s) || state == WritableStreamState::Closed {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L989-L992
        let e = err_invalid_state(rt, "WritableStream is closed");
        return Ok(fail(rt, e));
    }
    // 9. If state is "erroring", return a promise rejected with
    //    stream.[[storedError]].
    if state == WritableStreamState::Erroring {
        let e = stream(rt, s).stored_error.clone();
        return Ok(fail(rt, e));
    }
    // 10. Assert: state is "writable".
    assert_eq!(state, WritableStreamState::Writable);
    // 11. Let promise be ! WritableStreamAddWriteRequest(stream).
    let promise = match kind {
        WriteRequestKind::Promise => writable_stream_add_write_request(rt, s),
        WriteRequestKind::Pipe(p) => {
            stream_mut(rt, s)
                .write_requests
                .push_back(WriteRequest::Pipe(p));
            pipe::write_request_added(rt, p);
            a_promise_resolved_with(rt, Value::Undefined)
        }
    };
    // 12. Perform ! WritableStreamDefaultControllerWrite(controller, chunk,
    //     chunkSize).
    // (The promise, returned after the steps, is rooted while they may run
    // script code and settle it.)
    crate::streams::rooted(rt, &[Value::Object(promise)], |rt| {
        writable_stream_default_controller_write(rt, c, chunk, chunk_size)
    });
    // 13. Return promise.
    Ok(promise)
}

// ---- the WritableStreamDefaultController class ----------------------------

/// The `signal` getter
/// (<https://streams.spec.whatwg.org/#ws-default-controller-signal>).
fn controller_signal(rt: &Rt, c: ObjectId) -> ObjectId {
    // 1. Return this.[[abortController]]'s signal.
    abort::controller_signal(rt, controller(rt, c).abort_controller)
}

/// `controller.error(e)`
/// (<https://streams.spec.whatwg.org/#ws-default-controller-error>).
pub fn controller_error(rt: &mut Rt, c: Value, e: Value) -> Completion {
    let c = controller_operand(rt, c, "error")?;
    // 1. Let state be this.[[stream]].[[state]].
    let s = controller(rt, c).stream;
    // 2. If state is not "writable", return.
    if stream(rt, s).state != WritableStreamState::Writable {
        return Ok(Value::Undefined);
    }
    // 3. Perform ! WritableStreamDefaultControllerError(this, e).
    writable_stream_default_controller_error(rt, c, e);
    Ok(Value::Undefined)
}

/// [[AbortSteps]](reason)
/// (<https://streams.spec.whatwg.org/#ws-default-controller-private-abort>).
fn abort_steps(rt: &mut Rt, c: ObjectId, reason: Value) -> ObjectId {
    // 1. Let result be the result of performing this.[[abortAlgorithm]],
    //    passing reason.
    let algorithm = controller(rt, c)
        .abort_algorithm
        .expect("the abort algorithm, not yet cleared");
    // (The controller is rooted while the algorithm runs script code.)
    let result = crate::streams::rooted(rt, &[Value::Object(c)], |rt| {
        perform_abort_algorithm(rt, c, algorithm, reason)
    });
    // 2. Perform ! WritableStreamDefaultControllerClearAlgorithms(this).
    writable_stream_default_controller_clear_algorithms(rt, c);
    // 3. Return result.
    result
}

/// [[ErrorSteps]]()
/// (<https://streams.spec.whatwg.org/#ws-default-controller-private-error>).
fn error_steps(rt: &mut Rt, c: ObjectId) {
    // 1. Perform ! ResetQueue(this).
    let controller = controller_mut(rt, c);
    controller.queue.clear();
    controller.queue_total_size = 0.0;
}

// ---- default controllers' abstract operations -----------------------------

/// SetUpWritableStreamDefaultController(stream, controller, startAlgorithm,
/// writeAlgorithm, closeAlgorithm, abortAlgorithm, highWaterMark,
/// sizeAlgorithm)
/// (<https://streams.spec.whatwg.org/#set-up-writable-stream-default-controller>).
#[allow(clippy::too_many_arguments)] // the spec's parameters, one for one
fn set_up_writable_stream_default_controller(
    rt: &mut Rt,
    s: ObjectId,
    c: ObjectId,
    underlying_sink: Value,
    start_algorithm: StartAlgorithm,
    write_algorithm: WriteAlgorithm,
    close_algorithm: CloseAlgorithm,
    abort_algorithm: AbortAlgorithm,
    high_water_mark: f64,
    size_algorithm: SizeAlgorithm,
) -> Result<(), Value> {
    // 1. Assert: stream implements WritableStream.
    // 2. Assert: stream.[[controller]] is undefined.
    assert!(stream(rt, s).controller.is_none());
    // 6. Set controller.[[abortController]] to a new AbortController.
    let abort_controller = abort::new_abort_controller(rt);
    rt.lib.writable.controllers.insert(
        c,
        WritableStreamDefaultController {
            // 12. Set controller.[[abortAlgorithm]] to abortAlgorithm.
            abort_algorithm: Some(abort_algorithm),
            abort_controller,
            // 11. Set controller.[[closeAlgorithm]] to closeAlgorithm.
            close_algorithm: Some(close_algorithm),
            // 5. Perform ! ResetQueue(controller).
            queue: VecDeque::new(),
            queue_total_size: 0.0,
            // 7. Set controller.[[started]] to false.
            started: false,
            // 8. Set controller.[[strategySizeAlgorithm]] to sizeAlgorithm.
            // 9. Set controller.[[strategyHWM]] to highWaterMark.
            strategy_hwm: high_water_mark,
            strategy_size_algorithm: Some(size_algorithm),
            // 3. Set controller.[[stream]] to stream.
            stream: s,
            // 10. Set controller.[[writeAlgorithm]] to writeAlgorithm.
            write_algorithm: Some(write_algorithm),
            underlying_sink: underlying_sink.clone(),
        },
    );
    // 4. Set stream.[[controller]] to controller.
    stream_mut(rt, s).controller = Some(c);
    // 13. Let backpressure be ! WritableStreamDefaultControllerGetBackpressure(controller).
    let backpressure = writable_stream_default_controller_get_backpressure(rt, c);
    // 14. Perform ! WritableStreamUpdateBackpressure(stream, backpressure).
    writable_stream_update_backpressure(rt, s, backpressure);
    // 15. Let startResult be the result of performing startAlgorithm. (This
    //     may throw an exception.)
    let start_result = match start_algorithm {
        StartAlgorithm::ReturnUndefined => Value::Undefined,
        // (The stream and the controller, which the script has not seen
        // yet, are rooted for the call, as the constructor's frame holds
        // them.)
        StartAlgorithm::Invoke(start) => crate::streams::call_rooted(
            rt,
            start,
            underlying_sink,
            &[Value::Object(c)],
            &[Value::Object(s)],
        )?,
        StartAlgorithm::ReturnPromise(p) => Value::Object(p),
    };
    // 16. Let startPromise be a promise resolved with startResult.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1275-L1298
    // a value that is no object is `queueMicrotask(started)`, at the
    // position the reaction below would have; an object goes through
    // `new Promise((r) => r(startResult))` as here.
    let start_promise = a_promise_resolved_with(rt, start_result);
    upon_settlement(
        rt,
        start_promise,
        &[Value::Object(s), Value::Object(c)],
        // 17. Upon fulfillment of startPromise,
        move |rt, _| {
            //   1. Assert: stream.[[state]] is "writable" or "erroring".
            assert!(matches!(
                stream(rt, s).state,
                WritableStreamState::Writable | WritableStreamState::Erroring
            ));
            //   2. Set controller.[[started]] to true.
            controller_mut(rt, c).started = true;
            //   3. Perform ! WritableStreamDefaultControllerAdvanceQueueIfNeeded(controller).
            writable_stream_default_controller_advance_queue_if_needed(rt, c);
        },
        // 18. Upon rejection of startPromise with reason r,
        move |rt, r| {
            //   1. Assert: stream.[[state]] is "writable" or "erroring".
            assert!(matches!(
                stream(rt, s).state,
                WritableStreamState::Writable | WritableStreamState::Erroring
            ));
            //   2. Set controller.[[started]] to true.
            controller_mut(rt, c).started = true;
            //   3. Perform ! WritableStreamDealWithRejection(stream, r).
            writable_stream_deal_with_rejection(rt, s, r);
        },
    );
    Ok(())
}

/// SetUpWritableStreamDefaultControllerFromUnderlyingSink(stream,
/// underlyingSink, underlyingSinkDict, highWaterMark, sizeAlgorithm)
/// (<https://streams.spec.whatwg.org/#set-up-writable-stream-default-controller-from-underlying-sink>).
fn set_up_writable_stream_default_controller_from_underlying_sink(
    rt: &mut Rt,
    s: ObjectId,
    sink: UnderlyingSink,
    high_water_mark: f64,
    size_algorithm: SizeAlgorithm,
) -> Result<(), Value> {
    // 1. Let controller be a new WritableStreamDefaultController.
    let c = rt.heap.alloc(ObjectData::Host);
    // 2. Let startAlgorithm be an algorithm that returns undefined.
    // 6. If underlyingSinkDict["start"] exists, then set startAlgorithm to an
    //    algorithm which returns the result of invoking
    //    underlyingSinkDict["start"] with argument list « controller », exception
    //    behavior "rethrow", and callback this value underlyingSink.
    let start_algorithm = match sink.start {
        Some(f) => StartAlgorithm::Invoke(f),
        None => StartAlgorithm::ReturnUndefined,
    };
    // 3. Let writeAlgorithm be an algorithm that returns a promise resolved
    //    with undefined.
    // 7. If underlyingSinkDict["write"] exists, then set writeAlgorithm to an
    //    algorithm which takes an argument chunk and returns the result of
    //    invoking underlyingSinkDict["write"] with argument list « chunk,
    //    controller » and callback this value underlyingSink.
    let write_algorithm = match sink.write {
        Some(f) => WriteAlgorithm::Invoke(f),
        None => WriteAlgorithm::ResolveUndefined,
    };
    // 4. Let closeAlgorithm be an algorithm that returns a promise resolved
    //    with undefined.
    // 8. If underlyingSinkDict["close"] exists, then set closeAlgorithm to an
    //    algorithm which returns the result of invoking
    //    underlyingSinkDict["close"] with argument list «» and callback this
    //    value underlyingSink.
    let close_algorithm = match sink.close {
        Some(f) => CloseAlgorithm::Invoke(f),
        None => CloseAlgorithm::ResolveUndefined,
    };
    // 5. Let abortAlgorithm be an algorithm that returns a promise resolved
    //    with undefined.
    // 9. If underlyingSinkDict["abort"] exists, then set abortAlgorithm to an
    //    algorithm which takes an argument reason and returns the result of
    //    invoking underlyingSinkDict["abort"] with argument list « reason »
    //    and callback this value underlyingSink.
    let abort_algorithm = match sink.abort {
        Some(f) => AbortAlgorithm::Invoke(f),
        None => AbortAlgorithm::ResolveUndefined,
    };
    // 10. Perform ? SetUpWritableStreamDefaultController(stream, controller,
    //     startAlgorithm, writeAlgorithm, closeAlgorithm, abortAlgorithm,
    //     highWaterMark, sizeAlgorithm).
    set_up_writable_stream_default_controller(
        rt,
        s,
        c,
        sink.object,
        start_algorithm,
        write_algorithm,
        close_algorithm,
        abort_algorithm,
        high_water_mark,
        size_algorithm,
    )
}

/// WritableStreamDefaultControllerAdvanceQueueIfNeeded(controller)
/// (<https://streams.spec.whatwg.org/#writable-stream-default-controller-advance-queue-if-needed>).
fn writable_stream_default_controller_advance_queue_if_needed(rt: &mut Rt, c: ObjectId) {
    // 1. Let stream be controller.[[stream]].
    let s = controller(rt, c).stream;
    // 2. If controller.[[started]] is false, return.
    if !controller(rt, c).started {
        return;
    }
    // 3. If stream.[[inFlightWriteRequest]] is not undefined, return.
    if stream(rt, s).in_flight_write_request.is_some() {
        return;
    }
    // 4. Let state be stream.[[state]].
    // 5. Assert: state is not "closed" or "errored".
    // 6. If state is "erroring",
    if stream(rt, s).state == WritableStreamState::Erroring {
        //   1. Perform ! WritableStreamFinishErroring(stream).
        writable_stream_finish_erroring(rt, s);
        //   2. Return.
        return;
    }
    // 7. If controller.[[queue]] is empty, return.
    // 8. Let value be ! PeekQueueValue(controller).
    let value = match controller(rt, c).queue.front() {
        None => return,
        Some(QueueEntry::Close) => None,
        Some(QueueEntry::Chunk(v)) => Some(v.value.clone()),
    };
    match value {
        // 9. If value is the close sentinel, perform !
        //    WritableStreamDefaultControllerProcessClose(controller).
        None => writable_stream_default_controller_process_close(rt, c),
        // 10. Otherwise, perform !
        //     WritableStreamDefaultControllerProcessWrite(controller, value).
        Some(value) => writable_stream_default_controller_process_write(rt, c, value),
    }
}

/// WritableStreamDefaultControllerClearAlgorithms(controller)
/// (<https://streams.spec.whatwg.org/#writable-stream-default-controller-clear-algorithms>).
fn writable_stream_default_controller_clear_algorithms(rt: &mut Rt, c: ObjectId) {
    let controller = controller_mut(rt, c);
    // 1. Set controller.[[writeAlgorithm]] to undefined.
    controller.write_algorithm = None;
    // 2. Set controller.[[closeAlgorithm]] to undefined.
    controller.close_algorithm = None;
    // 3. Set controller.[[abortAlgorithm]] to undefined.
    controller.abort_algorithm = None;
    // 4. Set controller.[[strategySizeAlgorithm]] to undefined.
    controller.strategy_size_algorithm = None;
}

/// WritableStreamDefaultControllerClose(controller)
/// (<https://streams.spec.whatwg.org/#writable-stream-default-controller-close>).
fn writable_stream_default_controller_close(rt: &mut Rt, c: ObjectId) {
    // 1. Perform ! EnqueueValueWithSize(controller, close sentinel, 0).
    controller_mut(rt, c).queue.push_back(QueueEntry::Close);
    // 2. Perform ! WritableStreamDefaultControllerAdvanceQueueIfNeeded(controller).
    writable_stream_default_controller_advance_queue_if_needed(rt, c);
}

/// WritableStreamDefaultControllerError(controller, error)
/// (<https://streams.spec.whatwg.org/#writable-stream-default-controller-error>).
fn writable_stream_default_controller_error(rt: &mut Rt, c: ObjectId, error: Value) {
    // 1. Let stream be controller.[[stream]].
    let s = controller(rt, c).stream;
    // 2. Assert: stream.[[state]] is "writable".
    assert_eq!(stream(rt, s).state, WritableStreamState::Writable);
    // 3. Perform ! WritableStreamDefaultControllerClearAlgorithms(controller).
    writable_stream_default_controller_clear_algorithms(rt, c);
    // 4. Perform ! WritableStreamStartErroring(stream, error).
    writable_stream_start_erroring(rt, s, error);
}

/// WritableStreamDefaultControllerErrorIfNeeded(controller, error)
/// (<https://streams.spec.whatwg.org/#writable-stream-default-controller-error-if-needed>).
pub(crate) fn writable_stream_default_controller_error_if_needed(
    rt: &mut Rt,
    c: ObjectId,
    error: Value,
) {
    // 1. If controller.[[stream]].[[state]] is "writable", perform !
    //    WritableStreamDefaultControllerError(controller, error).
    let s = controller(rt, c).stream;
    if stream(rt, s).state == WritableStreamState::Writable {
        writable_stream_default_controller_error(rt, c, error);
    }
}

/// WritableStreamDefaultControllerGetBackpressure(controller)
/// (<https://streams.spec.whatwg.org/#writable-stream-default-controller-get-backpressure>).
fn writable_stream_default_controller_get_backpressure(rt: &Rt, c: ObjectId) -> bool {
    // 1. Let desiredSize be ! WritableStreamDefaultControllerGetDesiredSize(controller).
    let desired_size = writable_stream_default_controller_get_desired_size(rt, c);
    // 2. Return true if desiredSize ≤ 0, or false otherwise.
    desired_size <= 0.0
}

/// WritableStreamDefaultControllerGetChunkSize(controller, chunk)
/// (<https://streams.spec.whatwg.org/#writable-stream-default-controller-get-chunk-size>):
/// the chunk's size as the algorithm returned it (Node converts it only in
/// EnqueueValueWithSize), or Node's failed assertion.
fn writable_stream_default_controller_get_chunk_size(
    rt: &mut Rt,
    c: ObjectId,
    chunk: Value,
) -> Result<Value, Value> {
    // 1. If controller.[[strategySizeAlgorithm]] is undefined, then:
    let Some(algorithm) = controller(rt, c).strategy_size_algorithm else {
        //   1. Assert: controller.[[stream]].[[state]] is not "writable".
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1238-L1248
        // the assertion is Node's `assert`, and it fails where the spec's
        // would: ProcessClose clears the algorithms while the stream is
        // still "writable", so a write while a close is in flight throws
        // ERR_INTERNAL_ASSERTION out of `write()`.
        let s = controller(rt, c).stream;
        if stream(rt, s).state == WritableStreamState::Writable {
            return Err(rt.internal_assertion_error());
        }
        //   2. Return 1.
        return Ok(Value::Number(1.0));
    };
    // 2. Let returnValue be the result of performing
    //    controller.[[strategySizeAlgorithm]], passing in chunk, and
    //    interpreting the result as a completion record.
    Ok(match perform_size_algorithm(rt, algorithm, chunk) {
        // 3. If returnValue is an abrupt completion,
        Err(e) => {
            //   1. Perform ! WritableStreamDefaultControllerErrorIfNeeded(
            //      controller, returnValue.[[Value]]).
            writable_stream_default_controller_error_if_needed(rt, c, e);
            //   2. Return 1.
            Value::Number(1.0)
        }
        // 4. Return returnValue.[[Value]].
        Ok(size) => size,
    })
}

/// WritableStreamDefaultControllerGetDesiredSize(controller)
/// (<https://streams.spec.whatwg.org/#writable-stream-default-controller-get-desired-size>).
pub(crate) fn writable_stream_default_controller_get_desired_size(rt: &Rt, c: ObjectId) -> f64 {
    // 1. Return controller.[[strategyHWM]] − controller.[[queueTotalSize]].
    let controller = controller(rt, c);
    controller.strategy_hwm - controller.queue_total_size
}

/// WritableStreamDefaultControllerProcessClose(controller)
/// (<https://streams.spec.whatwg.org/#writable-stream-default-controller-process-close>).
fn writable_stream_default_controller_process_close(rt: &mut Rt, c: ObjectId) {
    // 1. Let stream be controller.[[stream]].
    let s = controller(rt, c).stream;
    // 2. Perform ! WritableStreamMarkCloseRequestInFlight(stream).
    writable_stream_mark_close_request_in_flight(rt, s);
    // 3. Perform ! DequeueValue(controller).
    dequeue_value(rt, c);
    // 4. Assert: controller.[[queue]] is empty.
    assert!(controller(rt, c).queue.is_empty());
    // 5. Let sinkClosePromise be the result of performing
    //    controller.[[closeAlgorithm]].
    let algorithm = controller(rt, c)
        .close_algorithm
        .expect("the close algorithm, not yet cleared");
    // (The controller is rooted while the algorithm runs script code.)
    let sink_close_promise = crate::streams::rooted(rt, &[Value::Object(c)], |rt| {
        perform_close_algorithm(rt, c, algorithm)
    });
    // 6. Perform ! WritableStreamDefaultControllerClearAlgorithms(controller).
    writable_stream_default_controller_clear_algorithms(rt, c);
    upon_settlement(
        rt,
        sink_close_promise,
        &[Value::Object(s)],
        // 7. Upon fulfillment of sinkClosePromise,
        //    1. Perform ! WritableStreamFinishInFlightClose(stream).
        move |rt, _| writable_stream_finish_in_flight_close(rt, s),
        // 8. Upon rejection of sinkClosePromise with reason reason,
        //    1. Perform ! WritableStreamFinishInFlightCloseWithError(stream,
        //       reason).
        move |rt, reason| writable_stream_finish_in_flight_close_with_error(rt, s, reason),
    );
}

/// WritableStreamDefaultControllerProcessWrite(controller, chunk)
/// (<https://streams.spec.whatwg.org/#writable-stream-default-controller-process-write>).
fn writable_stream_default_controller_process_write(rt: &mut Rt, c: ObjectId, chunk: Value) {
    // 1. Let stream be controller.[[stream]].
    let s = controller(rt, c).stream;
    // 2. Perform ! WritableStreamMarkFirstWriteRequestInFlight(stream).
    writable_stream_mark_first_write_request_in_flight(rt, s);
    // 3. Let sinkWritePromise be the result of performing
    //    controller.[[writeAlgorithm]], passing in chunk.
    let algorithm = controller(rt, c)
        .write_algorithm
        .expect("the write algorithm, not yet cleared");
    // (The controller is rooted while the algorithm runs script code.)
    let written = crate::streams::rooted(rt, &[Value::Object(c)], |rt| {
        perform_write_algorithm(rt, c, algorithm, chunk)
    });
    let sink_write_promise = match written {
        AlgorithmResult::Promise(p) => p,
        AlgorithmResult::Parked => return,
    };
    upon_settlement(
        rt,
        sink_write_promise,
        &[Value::Object(s), Value::Object(c)],
        move |rt, _| write_fulfilled(rt, c),
        move |rt, reason| write_rejected(rt, c, reason),
    );
}

/// Step 4 of ProcessWrite: upon fulfillment of sinkWritePromise.
pub(crate) fn write_fulfilled(rt: &mut Rt, c: ObjectId) {
    let s = controller(rt, c).stream;
    //   1. Perform ! WritableStreamFinishInFlightWrite(stream).
    writable_stream_finish_in_flight_write(rt, s);
    //   2. Let state be stream.[[state]].
    let state = stream(rt, s).state;
    //   3. Assert: state is "writable" or "erroring".
    assert!(matches!(
        state,
        WritableStreamState::Writable | WritableStreamState::Erroring
    ));
    //   4. Perform ! DequeueValue(controller).
    dequeue_value(rt, c);
    //   5. If ! WritableStreamCloseQueuedOrInFlight(stream) is false and
    //      state is "writable",
    if !writable_stream_close_queued_or_in_flight(rt, s) && state == WritableStreamState::Writable {
        //  1. Let backpressure be !
        //     WritableStreamDefaultControllerGetBackpressure(controller).
        let backpressure = writable_stream_default_controller_get_backpressure(rt, c);
        //  2. Perform ! WritableStreamUpdateBackpressure(stream, backpressure).
        writable_stream_update_backpressure(rt, s, backpressure);
    }
    //   6. Perform ! WritableStreamDefaultControllerAdvanceQueueIfNeeded(controller).
    writable_stream_default_controller_advance_queue_if_needed(rt, c);
}

/// Step 5 of ProcessWrite: upon rejection of sinkWritePromise with reason.
pub(crate) fn write_rejected(rt: &mut Rt, c: ObjectId, reason: Value) {
    let s = controller(rt, c).stream;
    //   1. If stream.[[state]] is "writable", perform !
    //      WritableStreamDefaultControllerClearAlgorithms(controller).
    if stream(rt, s).state == WritableStreamState::Writable {
        writable_stream_default_controller_clear_algorithms(rt, c);
    }
    //   2. Perform ! WritableStreamFinishInFlightWriteWithError(stream, reason).
    writable_stream_finish_in_flight_write_with_error(rt, s, reason);
}

/// WritableStreamDefaultControllerWrite(controller, chunk, chunkSize)
/// (<https://streams.spec.whatwg.org/#writable-stream-default-controller-write>).
fn writable_stream_default_controller_write(
    rt: &mut Rt,
    c: ObjectId,
    chunk: Value,
    chunk_size: Value,
) {
    // 1. Let enqueueResult be EnqueueValueWithSize(controller, chunk, chunkSize).
    // 2. If enqueueResult is an abrupt completion,
    if let Err(e) = enqueue_value_with_size(rt, c, chunk, chunk_size) {
        //   1. Perform ! WritableStreamDefaultControllerErrorIfNeeded(
        //      controller, enqueueResult.[[Value]]).
        writable_stream_default_controller_error_if_needed(rt, c, e);
        //   2. Return.
        return;
    }
    // 3. Let stream be controller.[[stream]].
    let s = controller(rt, c).stream;
    // 4. If ! WritableStreamCloseQueuedOrInFlight(stream) is false and
    //    stream.[[state]] is "writable",
    if !writable_stream_close_queued_or_in_flight(rt, s)
        && stream(rt, s).state == WritableStreamState::Writable
    {
        //   1. Let backpressure be !
        //      WritableStreamDefaultControllerGetBackpressure(controller).
        let backpressure = writable_stream_default_controller_get_backpressure(rt, c);
        //   2. Perform ! WritableStreamUpdateBackpressure(stream, backpressure).
        writable_stream_update_backpressure(rt, s, backpressure);
    }
    // 5. Perform ! WritableStreamDefaultControllerAdvanceQueueIfNeeded(controller).
    writable_stream_default_controller_advance_queue_if_needed(rt, c);
}

// ---- performing the algorithms ---------------------------------------------

/// Performing [[writeAlgorithm]], passing in chunk.
fn perform_write_algorithm(
    rt: &mut Rt,
    c: ObjectId,
    algorithm: WriteAlgorithm,
    chunk: Value,
) -> AlgorithmResult {
    match algorithm {
        WriteAlgorithm::ResolveUndefined => {
            AlgorithmResult::Promise(a_promise_resolved_with(rt, Value::Undefined))
        }
        WriteAlgorithm::Transform(ts) => transform::sink_write_algorithm(rt, ts, chunk),
        WriteAlgorithm::Invoke(method) => {
            let this = controller(rt, c).underlying_sink.clone();
            AlgorithmResult::Promise(
                match crate::streams::call_rooted(rt, method, this, &[chunk, Value::Object(c)], &[])
                {
                    // An exception becomes a promise rejected with it.
                    Err(e) => a_promise_rejected_with(rt, e),
                    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1093-L1106
                    // (`createRawCallback2Params`, then `thenAlgorithmResult`'s
                    // `PromiseResolve(result)`): a returned promise is used as
                    // it is, two microtasks sooner than Web IDL's conversion to
                    // a new promise resolved with it.
                    Ok(value) => rt.promise_resolve(value),
                },
            )
        }
    }
}

/// Performing [[closeAlgorithm]].
fn perform_close_algorithm(rt: &mut Rt, c: ObjectId, algorithm: CloseAlgorithm) -> ObjectId {
    match algorithm {
        CloseAlgorithm::ResolveUndefined => a_promise_resolved_with(rt, Value::Undefined),
        CloseAlgorithm::Transform(ts) => transform::sink_close_algorithm(rt, ts),
        CloseAlgorithm::Invoke(method) => {
            let this = controller(rt, c).underlying_sink.clone();
            match crate::streams::call_rooted(rt, method, this, &[], &[Value::Object(c)]) {
                Err(e) => a_promise_rejected_with(rt, e),
                // Converted to a new promise resolved with it, as Node's
                // async wrapper does.
                Ok(value) => a_promise_resolved_with(rt, value),
            }
        }
    }
}

/// Performing [[abortAlgorithm]], passing reason.
fn perform_abort_algorithm(
    rt: &mut Rt,
    c: ObjectId,
    algorithm: AbortAlgorithm,
    reason: Value,
) -> ObjectId {
    match algorithm {
        AbortAlgorithm::ResolveUndefined => a_promise_resolved_with(rt, Value::Undefined),
        AbortAlgorithm::Transform(ts) => transform::sink_abort_algorithm(rt, ts, reason),
        AbortAlgorithm::Invoke(method) => {
            let this = controller(rt, c).underlying_sink.clone();
            match crate::streams::call_rooted(rt, method, this, &[reason], &[Value::Object(c)]) {
                Err(e) => a_promise_rejected_with(rt, e),
                Ok(value) => a_promise_resolved_with(rt, value),
            }
        }
    }
}

// ---- queue-with-sizes -----------------------------------------------------

/// DequeueValue(container) (<https://streams.spec.whatwg.org/#dequeue-value>).
fn dequeue_value(rt: &mut Rt, c: ObjectId) {
    let container = controller_mut(rt, c);
    // 2. Assert: container.[[queue]] is not empty.
    // 3. Let valueWithSize be container.[[queue]][0].
    // 4. Remove valueWithSize from container.[[queue]].
    let size = match container.queue.pop_front().expect("a queued value") {
        QueueEntry::Close => 0.0,
        QueueEntry::Chunk(v) => v.size,
    };
    // 5. Set container.[[queueTotalSize]] to container.[[queueTotalSize]] −
    //    valueWithSize's size.
    container.queue_total_size -= size;
    // 6. If container.[[queueTotalSize]] < 0, set container.[[queueTotalSize]]
    //    to 0. (This can occur due to rounding errors.)
    if container.queue_total_size < 0.0 {
        container.queue_total_size = 0.0;
    }
}

/// EnqueueValueWithSize(container, value, size)
/// (<https://streams.spec.whatwg.org/#enqueue-value-with-size>).
fn enqueue_value_with_size(
    rt: &mut Rt,
    c: ObjectId,
    value: Value,
    size: Value,
) -> Result<(), Value> {
    // 2-3. (the checks)
    let size = check_chunk_size(rt, &size)?;
    let container = controller_mut(rt, c);
    // 4. Append a new value-with-size with value value and size size to
    //    container.[[queue]].
    container
        .queue
        .push_back(QueueEntry::Chunk(ValueWithSize { value, size }));
    // 5. Set container.[[queueTotalSize]] to container.[[queueTotalSize]] + size.
    container.queue_total_size += size;
    Ok(())
}

// ---- what the runtime asks ------------------------------------------------

/// A property of a writable stream object, or `None` when `obj` is none.
pub fn get(rt: &mut Rt, obj: ObjectId, prop: &str) -> Option<Completion> {
    let w = &rt.lib.writable;
    if w.streams.contains_key(&obj) {
        return Some(Ok(match prop {
            "locked" => Value::Bool(is_writable_stream_locked(rt, obj)),
            _ => Value::Undefined,
        }));
    }
    if w.controllers.contains_key(&obj) {
        return Some(Ok(match prop {
            "signal" => Value::Object(controller_signal(rt, obj)),
            _ => Value::Undefined,
        }));
    }
    if w.writers.contains_key(&obj) {
        return Some(match prop {
            "closed" => Ok(Value::Object(writer_closed(rt, obj))),
            "ready" => Ok(Value::Object(writer_ready(rt, obj))),
            "desiredSize" => writer_desired_size(rt, obj),
            _ => Ok(Value::Undefined),
        });
    }
    None
}

/// What a writable stream object is, or `None` when `obj` is none.
pub fn host_class(rt: &Rt, obj: ObjectId) -> Option<HostClass> {
    let w = &rt.lib.writable;
    if w.streams.contains_key(&obj) {
        Some(HostClass::WritableStream)
    } else if w.controllers.contains_key(&obj) {
        Some(HostClass::WritableStreamDefaultController)
    } else if w.writers.contains_key(&obj) {
        Some(HostClass::WritableStreamDefaultWriter)
    } else {
        None
    }
}

/// A WritableStream's [[state]] (for tests and tools that inspect the model).
pub fn state(rt: &Rt, s: ObjectId) -> WritableStreamState {
    stream(rt, s).state
}

/// A WritableStream's [[backpressure]].
pub fn backpressure(rt: &Rt, s: ObjectId) -> bool {
    stream(rt, s).backpressure
}

/// How many write requests a WritableStream has queued (not in flight).
pub fn queued_write_requests(rt: &Rt, s: ObjectId) -> usize {
    stream(rt, s).write_requests.len()
}
