//! WritableStream, its default controller and writer, built the way Node's
//! lib/internal/webstreams/writablestream.js builds them.
//!
//! NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L177>
//! (the WritableStream class). The layout is Node's: a `kState` record per stream
//! (`WritableStreamState`, L589-L610: the close, in-flight and abort request records, the
//! `closeQueuedOrInFlight` flag, `backpressure`, the write-request queue made on the first write),
//! one per controller (the queue of (value, size) pairs with `kCloseSentinel`, the algorithms, the
//! `AbortController`, the write reactions made once) and one per writer (its `closed` and `ready`
//! records, each made on its first observation). Node's fast paths kept, because each decides
//! how many microtasks a step takes:
//!
//! - a start result that is not an object runs the post-start step by `queueMicrotask`, an object
//!   goes through `new Promise((r) => r(result))`;
//! - a sink `write()` result goes through `thenAlgorithmResult` (a non-object result reacts on the
//!   shared resolved promise), the write reactions are made once per controller;
//! - the default size algorithm is never called;
//! - the writer's `closed` and `ready` records are made lazily, derived from the state, and the
//!   settle sites touch them only once made; a pipe's writer carries hooks instead
//!   ([`WriterRecord::PipeClosed`], [`WriterRecord::PipeReady`]).
//!
//! The transform stream's writable side ([`SinkAlgorithm::Transform`]) and the pipe's shared
//! write request ([`WriteRequest::Pipe`]) are the other modules' hooks into these records.

use std::collections::VecDeque;

use nodesem_runtime::{Captures, Completion, Job, ObjectId, Runtime, UnderlyingSink, Value};

use crate::streams::{
    captured, coerce_size, extract_high_water_mark, extract_size_algorithm, invalid_state,
    invalid_this, is_pending, pending_promise, rejected, set_promise_handled,
    then_algorithm_result, Size,
};
use crate::{abort, alloc_host, Impl, Slot};

type Rt = Runtime<Impl>;

/// `kState.state` of a WritableStream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WState {
    /// `'writable'`.
    Writable,
    /// `'erroring'`.
    Erroring,
    /// `'closed'`.
    Closed,
    /// `'errored'`.
    Errored,
}

/// A write request: a `PromiseWithResolvers()` record, or the pipe's shared tracker.
#[derive(Clone, Copy, Debug)]
pub(crate) enum WriteRequest {
    /// The record's promise (its resolving functions are the runtime's).
    Promise(ObjectId),
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1613-L1641>
    /// a pipe's (its index) `writeTracker`.
    Pipe(u32),
}

/// `pendingAbortRequest` when there is one.
#[derive(Clone, Debug)]
struct PendingAbort {
    /// `abort.promise`.
    promise: ObjectId,
    /// `reason`.
    reason: Value,
    /// `wasAlreadyErroring`.
    was_already_erroring: bool,
}

/// A WritableStream's `kState`.
#[derive(Debug)]
struct StreamData {
    obj: ObjectId,
    state: WState,
    stored_error: Value,
    /// `closeRequest.promise`.
    close_request: Option<ObjectId>,
    /// `closeQueuedOrInFlight`.
    close_queued_or_in_flight: bool,
    /// `inFlightWriteRequest`.
    in_flight_write: Option<WriteRequest>,
    /// `inFlightCloseRequest.promise`.
    in_flight_close: Option<ObjectId>,
    pending_abort: Option<PendingAbort>,
    backpressure: bool,
    /// `writeRequests` (kEmptyQueue until the first write: an empty `VecDeque` owns nothing).
    write_requests: VecDeque<WriteRequest>,
    /// `writer`: its index.
    writer: Option<u32>,
}

/// A sink algorithm of a controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SinkAlgorithm {
    /// `nonOpCallback` (write) or `nonOpCancel` (close, abort).
    NonOp,
    /// The sink's method.
    Sink(ObjectId),
    /// The writable side of a TransformStream (its index).
    Transform(u32),
    /// Set to `undefined` by ClearAlgorithms.
    Cleared,
}

/// A controller's queue entry.
#[derive(Clone, Debug)]
enum QueueValue {
    Chunk(Value),
    /// `kCloseSentinel`.
    Close,
}

/// A WritableStreamDefaultController's `kState`.
#[derive(Debug)]
struct ControllerData {
    obj: ObjectId,
    /// The sink object, `this` of its methods.
    sink: Value,
    write: SinkAlgorithm,
    close: SinkAlgorithm,
    abort: SinkAlgorithm,
    size: Size,
    high_water_mark: f64,
    queue: VecDeque<(QueueValue, f64)>,
    queue_total_size: f64,
    /// `abortController`: the AbortController object.
    abort_controller: Value,
    started: bool,
    /// `writeFulfilled` and `writeRejected`, made on the first write.
    write_reactions: Option<(ObjectId, ObjectId)>,
}

/// A writer's `closed` or `ready` record, once observed, or a pipe's hook.
#[derive(Clone, Copy, Debug)]
pub(crate) enum WriterRecord {
    /// `{ promise, resolve, reject }`; `settleable` is false for `resolvedRecord()` and
    /// `rejectedHandledRecord()` (resolve and reject undefined).
    Record { promise: ObjectId, settleable: bool },
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1917>
    /// `new ClosedPromiseHook(undefined, onDestErrored)` of a pipe (its index).
    PipeClosed(u32),
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1766-L1773>
    /// the pipe's `readyHook`: resolving it runs `pump` at once.
    PipeReady(u32),
}

/// A writer's `kState`.
#[derive(Debug)]
struct WriterData {
    /// The writer object, once a script's `getWriter()` made one (a pipe's writer has none: the
    /// pipe holds its record).
    obj: Option<ObjectId>,
    stream: Option<u32>,
    close: Option<WriterRecord>,
    ready: Option<WriterRecord>,
}

/// The writable streams of one scenario.
#[derive(Debug, Default)]
pub struct Writables {
    streams: Vec<StreamData>,
    controllers: Vec<ControllerData>,
    writers: Vec<WriterData>,
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L122-L134>
    /// `lazyWritableReleasedError()`.
    released_error: Option<Value>,
}

impl Writables {
    /// Empties the state for another scenario.
    pub fn clear(&mut self) {
        self.streams.clear();
        self.controllers.clear();
        self.writers.clear();
        self.released_error = None;
    }
}

fn released_error(rt: &mut Rt) -> Value {
    if let Some(e) = &rt.lib.writables.released_error {
        return e.clone();
    }
    let e = invalid_state(rt, "Writer has been released");
    rt.lib.writables.released_error = Some(e.clone());
    e
}

fn sd(rt: &mut Rt, w: u32) -> &mut StreamData {
    &mut rt.lib.writables.streams[w as usize]
}

fn cd(rt: &mut Rt, w: u32) -> &mut ControllerData {
    &mut rt.lib.writables.controllers[w as usize]
}

// ---- records --------------------------------------------------------------

/// `record.resolve()` (also `?.resolve()` on a hook).
fn record_resolve(rt: &mut Rt, record: WriterRecord) {
    match record {
        WriterRecord::Record {
            promise,
            settleable,
        } => {
            if settleable && is_pending(rt, promise) {
                rt.resolve_promise_with(promise, Value::Undefined);
            }
        }
        // `onResolved` undefined.
        WriterRecord::PipeClosed(_) => {}
        // (The pump a ready hook resumes cannot throw: its write asserts only while a close is
        // in flight, and no backpressure flip resolves the hook then.)
        WriterRecord::PipeReady(p) => {
            let _ = crate::pipe::pump(rt, p);
        }
    }
}

/// Whether `isPromisePending(record.promise)`: a hook carries the shared forever-pending promise
/// (`kPendingPromise`), so it always is.
fn record_pending(rt: &Rt, record: WriterRecord) -> bool {
    match record {
        WriterRecord::Record { promise, .. } => is_pending(rt, promise),
        WriterRecord::PipeClosed(_) | WriterRecord::PipeReady(_) => true,
    }
}

/// `setPromiseHandled(record.promise); record.reject(error)` (the hook's promise is skipped).
fn record_reject(rt: &mut Rt, record: WriterRecord, error: Value) {
    match record {
        WriterRecord::Record {
            promise,
            settleable,
        } => {
            set_promise_handled(rt, promise);
            if settleable {
                rt.reject_promise(promise, error);
            }
        }
        WriterRecord::PipeClosed(p) => crate::pipe::dest_hook_reject(rt, p, error),
        // `ignoreReadyRejection`.
        WriterRecord::PipeReady(_) => {}
    }
}

/// A `PromiseWithResolvers()` record.
fn pending_record(rt: &mut Rt) -> WriterRecord {
    WriterRecord::Record {
        promise: rt.new_promise(),
        settleable: true,
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L397-L413>
/// `resolvedRecord()`.
fn resolved_record(rt: &mut Rt) -> WriterRecord {
    WriterRecord::Record {
        promise: rt.promise_resolve(Value::Undefined),
        settleable: false,
    }
}

/// `rejectedHandledRecord(error)`.
fn rejected_handled_record(rt: &mut Rt, error: Value) -> WriterRecord {
    let promise = rt.promise_reject_new(error);
    set_promise_handled(rt, promise);
    WriterRecord::Record {
        promise,
        settleable: false,
    }
}

/// `writer[kState].close = record` (the pipe's closed hook).
pub(crate) fn set_writer_close(rt: &mut Rt, writer: u32, record: WriterRecord) {
    rt.lib.writables.writers[writer as usize].close = Some(record);
}

/// `writer[kState].ready = undefined; writer[kState].close = undefined` (the pipe's `finalize`).
pub(crate) fn drop_writer_records(rt: &mut Rt, writer: u32) {
    let data = &mut rt.lib.writables.writers[writer as usize];
    data.close = None;
    data.ready = None;
}

/// A writer's `kState.close` (for tests).
#[cfg(test)]
pub(crate) fn writer_close_record(rt: &Rt, writer: u32) -> Option<WriterRecord> {
    rt.lib.writables.writers[writer as usize].close
}

/// `writer[kState].ready = record` (the pipe's `parkOnReady`).
pub(crate) fn set_writer_ready(rt: &mut Rt, writer: u32, record: WriterRecord) {
    rt.lib.writables.writers[writer as usize].ready = Some(record);
}

// ---- brand checks -----------------------------------------------------------

pub(crate) fn stream_of(rt: &Rt, value: &Value) -> Option<u32> {
    match value.as_object().map(|obj| rt.lib.slot(obj)) {
        Some(Slot::WritableStream(w)) => Some(w),
        _ => None,
    }
}

fn writer_of(rt: &Rt, value: &Value) -> Option<u32> {
    match value.as_object().map(|obj| rt.lib.slot(obj)) {
        Some(Slot::WritableWriter(w)) => Some(w),
        _ => None,
    }
}

fn controller_of(rt: &Rt, value: &Value) -> Option<u32> {
    match value.as_object().map(|obj| rt.lib.slot(obj)) {
        Some(Slot::WritableController(w)) => Some(w),
        _ => None,
    }
}

// ---- accessors for the pipe and the transform stream -------------------------

pub(crate) fn state(rt: &Rt, w: u32) -> WState {
    rt.lib.writables.streams[w as usize].state
}

pub(crate) fn stored_error(rt: &Rt, w: u32) -> Value {
    rt.lib.writables.streams[w as usize].stored_error.clone()
}

pub(crate) fn backpressure(rt: &Rt, w: u32) -> bool {
    rt.lib.writables.streams[w as usize].backpressure
}

pub(crate) fn is_locked(rt: &Rt, w: u32) -> bool {
    rt.lib.writables.streams[w as usize].writer.is_some()
}

/// The stream object.
pub(crate) fn stream_obj(rt: &Rt, w: u32) -> ObjectId {
    rt.lib.writables.streams[w as usize].obj
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L949-L951>
/// `writableStreamCloseQueuedOrInFlight`.
pub(crate) fn close_queued_or_in_flight(rt: &Rt, w: u32) -> bool {
    rt.lib.writables.streams[w as usize].close_queued_or_in_flight
}

/// The controller's `writeFulfilled` and `writeRejected` (made before the write algorithm runs).
pub(crate) fn write_reactions(rt: &Rt, w: u32) -> (ObjectId, ObjectId) {
    rt.lib.writables.controllers[w as usize]
        .write_reactions
        .expect("made before the write algorithm runs")
}

// ---- construction -------------------------------------------------------------

/// What the start algorithm is.
pub(crate) enum Start {
    /// The sink's `start` bound to the sink and the controller, or `nonOpCallback`.
    Sink(Option<ObjectId>),
    /// An internal start algorithm's result (the transform stream's start promise).
    Result(Value),
}

/// `new WritableStream(sink, strategy)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L184-L209>
/// and `setupWritableStreamDefaultControllerFromSink` (L1319-L1350).
pub fn new_writable_stream(
    rt: &mut Rt,
    sink: UnderlyingSink,
    strategy: nodesem_runtime::QueuingStrategy,
) -> Completion {
    let size = extract_size_algorithm(rt, strategy.size)?;
    let high_water_mark = extract_high_water_mark(rt, strategy.high_water_mark, 1.0)?;
    for (name, method) in [
        ("sink.write", sink.write),
        ("sink.close", sink.close),
        ("sink.abort", sink.abort),
    ] {
        if let Some(f) = method {
            if !rt.is_function(&Value::Object(f)) {
                return Err(rt.err_invalid_arg_type(name, "function", &Value::Object(f)));
            }
        }
    }
    let algorithms = [
        sink.write.map_or(SinkAlgorithm::NonOp, SinkAlgorithm::Sink),
        sink.close.map_or(SinkAlgorithm::NonOp, SinkAlgorithm::Sink),
        sink.abort.map_or(SinkAlgorithm::NonOp, SinkAlgorithm::Sink),
    ];
    let w = alloc_writable(rt, sink.object.clone(), algorithms, high_water_mark, size);
    setup_controller(rt, w, Start::Sink(sink.start))?;
    Ok(Value::Object(stream_obj(rt, w)))
}

/// The stream and controller objects and records (`createWritableStream` before the setup's
/// start): the index of both.
pub(crate) fn alloc_writable(
    rt: &mut Rt,
    sink: Value,
    [write, close, abort]: [SinkAlgorithm; 3],
    high_water_mark: f64,
    size: Size,
) -> u32 {
    let w = rt.lib.writables.streams.len() as u32;
    let obj = alloc_host(rt, |_| Slot::WritableStream(w));
    let controller_obj = alloc_host(rt, |_| Slot::WritableController(w));
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1369>
    // `abortController: new AbortController()`, impl's own.
    let abort_controller = abort::new_controller(rt);
    rt.lib.writables.streams.push(StreamData {
        obj,
        state: WState::Writable,
        stored_error: Value::Undefined,
        close_request: None,
        close_queued_or_in_flight: false,
        in_flight_write: None,
        in_flight_close: None,
        pending_abort: None,
        backpressure: false,
        write_requests: VecDeque::new(),
        writer: None,
    });
    rt.lib.writables.controllers.push(ControllerData {
        obj: controller_obj,
        sink,
        write,
        close,
        abort,
        size,
        high_water_mark,
        queue: VecDeque::new(),
        queue_total_size: 0.0,
        abort_controller,
        started: false,
        write_reactions: None,
    });
    w
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1352-L1410>
/// `setupWritableStreamDefaultController`, from `writableStreamUpdateBackpressure` on.
pub(crate) fn setup_controller(rt: &mut Rt, w: u32, start: Start) -> Result<(), Value> {
    update_backpressure(rt, w);
    let result = match start {
        Start::Sink(Some(f)) => {
            let (sink, controller) = {
                let c = cd(rt, w);
                (c.sink.clone(), c.obj)
            };
            // The constructor's frame holds the stream while start() runs.
            let roots = [Value::Object(stream_obj(rt, w))];
            rt.holding(&roots, |rt| {
                rt.call_function(f, sink, &[Value::Object(controller)])
            })?
        }
        Start::Sink(None) => Value::Undefined,
        Start::Result(v) => v,
    };
    if !matches!(result, Value::Object(_)) {
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1390-L1397>:
        // `queueMicrotask(started)`.
        let controller = controller_value(rt, w);
        rt.enqueue_microtask(Job::Task(captured(vec![controller], move |rt| {
            started(rt, w);
            Ok(Value::Undefined)
        })));
        return Ok(());
    }
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1401-L1409>:
    // `PromisePrototypeThen(new Promise((r) => r(startResult)), started, ...)`.
    let wrapper = rt.new_promise();
    rt.resolve_promise_with(wrapper, result);
    let controller = Captures::values(vec![controller_value(rt, w)]);
    let on_started = rt.native_function_capturing(controller.clone(), move |rt, _, _| {
        started(rt, w);
        Ok(Value::Undefined)
    });
    let on_error = rt.native_function_capturing(controller, move |rt, _, args| {
        let error = args.first().cloned().unwrap_or(Value::Undefined);
        cd(rt, w).started = true;
        deal_with_rejection(rt, w, error);
        Ok(Value::Undefined)
    });
    rt.perform_promise_then(wrapper, Some(on_started), Some(on_error), None);
    Ok(())
}

/// The `started` step.
fn started(rt: &mut Rt, w: u32) {
    cd(rt, w).started = true;
    advance_queue_if_needed(rt, w);
}

// ---- the stream's abstract operations -------------------------------------------

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L689-L725>
/// `writableStreamAbort`.
pub(crate) fn writable_stream_abort(rt: &mut Rt, w: u32, reason: Value) -> ObjectId {
    if matches!(state(rt, w), WState::Closed | WState::Errored) {
        return rt.promise_resolve(Value::Undefined);
    }
    // `controller[kState].abortController.abort(reason)`: listeners run now (the stream and
    // the reason are on the stack meanwhile).
    let controller = cd(rt, w).abort_controller.clone();
    let roots = [Value::Object(stream_obj(rt, w)), reason.clone()];
    let _ = rt.holding(&roots, |rt| {
        abort::op_abort(rt, &controller, Some(reason.clone()))
    });
    let st = state(rt, w);
    if matches!(st, WState::Closed | WState::Errored) {
        return rt.promise_resolve(Value::Undefined);
    }
    if let Some(pending) = &sd(rt, w).pending_abort {
        return pending.promise;
    }
    let was_already_erroring = st == WState::Erroring;
    let reason = if was_already_erroring {
        Value::Undefined
    } else {
        reason
    };
    let promise = rt.new_promise();
    sd(rt, w).pending_abort = Some(PendingAbort {
        promise,
        reason: reason.clone(),
        was_already_erroring,
    });
    if !was_already_erroring {
        start_erroring(rt, w, reason);
    }
    promise
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L727-L747>
/// `writableStreamClose`.
pub(crate) fn writable_stream_close(rt: &mut Rt, w: u32) -> Completion {
    let st = state(rt, w);
    if matches!(st, WState::Closed | WState::Errored) {
        let error = invalid_state(rt, "WritableStream is closed");
        return rejected(rt, error);
    }
    let (writer, backpressure) = {
        let s = sd(rt, w);
        (s.writer, s.backpressure)
    };
    let promise = rt.new_promise();
    let s = sd(rt, w);
    s.close_request = Some(promise);
    s.close_queued_or_in_flight = true;
    if let (Some(writer), true, WState::Writable) = (writer, backpressure, st) {
        if let Some(ready) = rt.lib.writables.writers[writer as usize].ready {
            record_resolve(rt, ready);
        }
    }
    controller_close(rt, w);
    Ok(Value::Object(promise))
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L753-L772>
/// `writableStreamUpdateBackpressure`: the backpressure derived from the desired size, published
/// before the ready record is resolved (a pipe's ready hook reads it).
fn update_backpressure(rt: &mut Rt, w: u32) {
    let c = cd(rt, w);
    let backpressure = c.high_water_mark - c.queue_total_size <= 0.0;
    let s = sd(rt, w);
    let changed = s.backpressure != backpressure;
    s.backpressure = backpressure;
    let Some(writer) = s.writer else {
        return;
    };
    if !changed {
        return;
    }
    if backpressure {
        rt.lib.writables.writers[writer as usize].ready = None;
    } else if let Some(ready) = rt.lib.writables.writers[writer as usize].ready {
        record_resolve(rt, ready);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L774-L791>
/// `writableStreamStartErroring`.
fn start_erroring(rt: &mut Rt, w: u32, reason: Value) {
    let s = sd(rt, w);
    debug_assert_eq!(s.state, WState::Writable);
    s.state = WState::Erroring;
    s.stored_error = reason.clone();
    if let Some(writer) = s.writer {
        writer_ensure_ready_promise_rejected(rt, writer, reason);
    }
    if !has_operation_marked_in_flight(rt, w) && cd(rt, w).started {
        finish_erroring(rt, w);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L793-L818>
/// `writableStreamRejectCloseAndClosedPromiseIfNeeded` (the stream's own `closedPromise` is
/// internal: nothing here observes it).
fn reject_close_and_closed_promise_if_needed(rt: &mut Rt, w: u32) {
    let error = stored_error(rt, w);
    if let Some(close) = sd(rt, w).close_request.take() {
        sd(rt, w).close_queued_or_in_flight = false;
        rt.reject_promise(close, error.clone());
    }
    if let Some(writer) = sd(rt, w).writer {
        if let Some(close) = rt.lib.writables.writers[writer as usize].close {
            if record_pending(rt, close) {
                record_reject(rt, close, error);
            }
        }
    }
}

fn has_operation_marked_in_flight(rt: &mut Rt, w: u32) -> bool {
    let s = sd(rt, w);
    s.in_flight_write.is_some() || s.in_flight_close.is_some()
}

/// A write request's `resolve()`.
fn write_request_resolve(rt: &mut Rt, request: WriteRequest) {
    match request {
        WriteRequest::Promise(p) => rt.resolve_promise_with(p, Value::Undefined),
        WriteRequest::Pipe(p) => crate::pipe::tracker_resolve(rt, p),
    }
}

/// A write request's `reject(error)`.
fn write_request_reject(rt: &mut Rt, request: WriteRequest, error: Value) {
    match request {
        WriteRequest::Promise(p) => rt.reject_promise(p, error),
        WriteRequest::Pipe(p) => crate::pipe::tracker_reject(rt, p, error),
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L846-L853>
/// `writableStreamFinishInFlightWriteWithError`.
fn finish_in_flight_write_with_error(rt: &mut Rt, w: u32, error: Value) {
    if let Some(request) = sd(rt, w).in_flight_write.take() {
        write_request_reject(rt, request, error.clone());
    }
    deal_with_rejection(rt, w, error);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L855-L859>
/// `writableStreamFinishInFlightWrite`.
fn finish_in_flight_write(rt: &mut Rt, w: u32) {
    if let Some(request) = sd(rt, w).in_flight_write.take() {
        write_request_resolve(rt, request);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L861-L873>
/// `writableStreamFinishInFlightCloseWithError`.
fn finish_in_flight_close_with_error(rt: &mut Rt, w: u32, error: Value) {
    if let Some(close) = sd(rt, w).in_flight_close.take() {
        rt.reject_promise(close, error.clone());
    }
    sd(rt, w).close_queued_or_in_flight = false;
    if let Some(abort) = sd(rt, w).pending_abort.take() {
        rt.reject_promise(abort.promise, error.clone());
    }
    deal_with_rejection(rt, w, error);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L875-L893>
/// `writableStreamFinishInFlightClose`.
fn finish_in_flight_close(rt: &mut Rt, w: u32) {
    if let Some(close) = sd(rt, w).in_flight_close.take() {
        rt.resolve_promise_with(close, Value::Undefined);
    }
    sd(rt, w).close_queued_or_in_flight = false;
    if state(rt, w) == WState::Erroring {
        sd(rt, w).stored_error = Value::Undefined;
        if let Some(abort) = sd(rt, w).pending_abort.take() {
            rt.resolve_promise_with(abort.promise, Value::Undefined);
        }
    }
    sd(rt, w).state = WState::Closed;
    if let Some(writer) = sd(rt, w).writer {
        if let Some(close) = rt.lib.writables.writers[writer as usize].close {
            record_resolve(rt, close);
        }
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L895-L934>
/// `writableStreamFinishErroring`.
fn finish_erroring(rt: &mut Rt, w: u32) {
    sd(rt, w).state = WState::Errored;
    // `controller[kError]()`: resetQueue.
    let c = cd(rt, w);
    c.queue = VecDeque::new();
    c.queue_total_size = 0.0;
    let error = stored_error(rt, w);
    while let Some(request) = sd(rt, w).write_requests.pop_front() {
        write_request_reject(rt, request, error.clone());
    }
    let Some(abort) = sd(rt, w).pending_abort.take() else {
        reject_close_and_closed_promise_if_needed(rt, w);
        return;
    };
    if abort.was_already_erroring {
        rt.reject_promise(abort.promise, error);
        reject_close_and_closed_promise_if_needed(rt, w);
        return;
    }
    // `writer[kState].close ??= PromiseWithResolvers()`: the closed record is rejected only once
    // the sink's abort settles.
    if let Some(writer) = sd(rt, w).writer {
        if rt.lib.writables.writers[writer as usize].close.is_none() {
            let record = pending_record(rt);
            rt.lib.writables.writers[writer as usize].close = Some(record);
        }
    }
    let promise = abort.promise;
    let result = rt.holding(&[Value::Object(promise)], |rt| {
        controller_abort_steps(rt, w, abort.reason)
    });
    let captures = Captures::values(vec![
        Value::Object(stream_obj(rt, w)),
        Value::Object(promise),
    ]);
    let on_fulfilled = rt.native_function_capturing(captures.clone(), move |rt, _, _| {
        rt.resolve_promise_with(promise, Value::Undefined);
        reject_close_and_closed_promise_if_needed(rt, w);
        Ok(Value::Undefined)
    });
    let on_rejected = rt.native_function_capturing(captures, move |rt, _, args| {
        let error = args.first().cloned().unwrap_or(Value::Undefined);
        rt.reject_promise(promise, error);
        reject_close_and_closed_promise_if_needed(rt, w);
        Ok(Value::Undefined)
    });
    rt.perform_promise_then(result, Some(on_fulfilled), Some(on_rejected), None);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L936-L947>
/// `writableStreamDealWithRejection`.
fn deal_with_rejection(rt: &mut Rt, w: u32, error: Value) {
    if state(rt, w) == WState::Writable {
        start_erroring(rt, w, error);
        return;
    }
    finish_erroring(rt, w);
}

// ---- the writer -----------------------------------------------------------------

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L620-L629>
/// `setupWritableStreamDefaultWriter`: the writer's index (its records unmade).
pub(crate) fn setup_writer(rt: &mut Rt, w: u32) -> Result<u32, Value> {
    if is_locked(rt, w) {
        return Err(invalid_state(rt, "WritableStream is locked"));
    }
    let index = rt.lib.writables.writers.len() as u32;
    rt.lib.writables.writers.push(WriterData {
        obj: None,
        stream: Some(w),
        close: None,
        ready: None,
    });
    sd(rt, w).writer = Some(index);
    Ok(index)
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L636-L658>
/// `writerClosedPromise`.
fn writer_closed_promise(rt: &mut Rt, writer: u32) -> ObjectId {
    let record = match rt.lib.writables.writers[writer as usize].close {
        Some(r) => r,
        None => {
            let r = match rt.lib.writables.writers[writer as usize].stream {
                None => {
                    let e = released_error(rt);
                    rejected_handled_record(rt, e)
                }
                Some(w) => match state(rt, w) {
                    WState::Writable | WState::Erroring => pending_record(rt),
                    WState::Closed => resolved_record(rt),
                    WState::Errored => {
                        let e = stored_error(rt, w);
                        rejected_handled_record(rt, e)
                    }
                },
            };
            rt.lib.writables.writers[writer as usize].close = Some(r);
            r
        }
    };
    record_promise(rt, record)
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L663-L687>
/// `writerReadyPromise`.
fn writer_ready_promise(rt: &mut Rt, writer: u32) -> ObjectId {
    let record = match rt.lib.writables.writers[writer as usize].ready {
        Some(r) => r,
        None => {
            let r = match rt.lib.writables.writers[writer as usize].stream {
                None => {
                    let e = released_error(rt);
                    rejected_handled_record(rt, e)
                }
                Some(w) => match state(rt, w) {
                    WState::Writable => {
                        if !close_queued_or_in_flight(rt, w) && backpressure(rt, w) {
                            pending_record(rt)
                        } else {
                            resolved_record(rt)
                        }
                    }
                    WState::Closed => resolved_record(rt),
                    WState::Erroring | WState::Errored => {
                        let e = stored_error(rt, w);
                        rejected_handled_record(rt, e)
                    }
                },
            };
            rt.lib.writables.writers[writer as usize].ready = Some(r);
            r
        }
    };
    record_promise(rt, record)
}

/// A record's promise; a hook's is the shared `kPendingPromise` (nothing reads a pipe's
/// writer).
fn record_promise(rt: &mut Rt, record: WriterRecord) -> ObjectId {
    match record {
        WriterRecord::Record { promise, .. } => promise,
        WriterRecord::PipeClosed(_) | WriterRecord::PipeReady(_) => pending_promise(rt),
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1088-L1099>
/// `writableStreamDefaultWriterEnsureReadyPromiseRejected`.
fn writer_ensure_ready_promise_rejected(rt: &mut Rt, writer: u32, error: Value) {
    match rt.lib.writables.writers[writer as usize].ready {
        Some(ready) if record_pending(rt, ready) => record_reject(rt, ready, error),
        _ => rt.lib.writables.writers[writer as usize].ready = None,
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1101-L1110>
/// `writableStreamDefaultWriterEnsureClosedPromiseRejected`.
fn writer_ensure_closed_promise_rejected(rt: &mut Rt, writer: u32, error: Value) {
    match rt.lib.writables.writers[writer as usize].close {
        Some(close) if record_pending(rt, close) => record_reject(rt, close, error),
        _ => rt.lib.writables.writers[writer as usize].close = None,
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1059-L1070>
/// `writableStreamDefaultWriterRelease`.
pub(crate) fn writer_release(rt: &mut Rt, writer: u32) {
    let Some(w) = rt.lib.writables.writers[writer as usize].stream else {
        return;
    };
    let error = released_error(rt);
    writer_ensure_ready_promise_rejected(rt, writer, error.clone());
    writer_ensure_closed_promise_rejected(rt, writer, error);
    sd(rt, w).writer = None;
    rt.lib.writables.writers[writer as usize].stream = None;
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L967-L1002>
/// `writableStreamDefaultWriterWrite` and, for a pipe's tracker,
/// `writableStreamDefaultWriterWriteWithRequest` (L1009-L1057): the request's promise, or the
/// precondition failure (a pipe latches it on its tracker).
pub(crate) fn writer_write_request(
    rt: &mut Rt,
    writer: u32,
    chunk: Value,
    request: Option<u32>,
) -> Result<Option<ObjectId>, Value> {
    // (Node asserts the writer is bound; a pipe's forwarding can only reach a released writer
    // through an internal assertion failure, refused here without panicking.)
    let Some(w) = rt.lib.writables.writers[writer as usize].stream else {
        return Err(invalid_state(rt, "Writer is not bound to a WritableStream"));
    };
    let roots = [Value::Object(stream_obj(rt, w)), chunk.clone()];
    let chunk_size = rt.holding(&roots, |rt| controller_get_chunk_size(rt, w, &chunk));
    // The size algorithm is script code: it can release the writer.
    if rt.lib.writables.writers[writer as usize].stream != Some(w) {
        return Err(invalid_state(rt, "Mismatched WritableStreams"));
    }
    let st = state(rt, w);
    if st == WState::Errored {
        return Err(stored_error(rt, w));
    }
    if close_queued_or_in_flight(rt, w) || st == WState::Closed {
        return Err(invalid_state(rt, "WritableStream is closed"));
    }
    if st == WState::Erroring {
        return Err(stored_error(rt, w));
    }
    let (entry, promise) = match request {
        None => {
            let p = rt.new_promise();
            (WriteRequest::Promise(p), Some(p))
        }
        Some(p) => (WriteRequest::Pipe(p), None),
    };
    sd(rt, w).write_requests.push_back(entry);
    if let Some(p) = request {
        crate::pipe::tracker_pending_inc(rt, p);
    }
    let held: Vec<Value> = promise.map(Value::Object).into_iter().collect();
    rt.holding(&held, |rt| controller_write(rt, w, chunk, chunk_size));
    Ok(promise)
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1072-L1086>
/// `writableStreamDefaultWriterGetDesiredSize`.
fn writer_get_desired_size(rt: &Rt, w: u32) -> Value {
    match state(rt, w) {
        WState::Errored | WState::Erroring => Value::Null,
        WState::Closed => Value::Number(0.0),
        WState::Writable => {
            let c = &rt.lib.writables.controllers[w as usize];
            Value::Number(c.high_water_mark - c.queue_total_size)
        }
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1112-L1129>
/// `writableStreamDefaultWriterCloseWithErrorPropagation`.
pub(crate) fn writer_close_with_error_propagation(rt: &mut Rt, w: u32) -> ObjectId {
    let st = state(rt, w);
    if close_queued_or_in_flight(rt, w) || st == WState::Closed {
        return rt.promise_resolve(Value::Undefined);
    }
    if st == WState::Errored {
        let e = stored_error(rt, w);
        return rt.promise_reject_new(e);
    }
    match writable_stream_close(rt, w) {
        Ok(Value::Object(p)) => p,
        _ => unreachable!("a writable or erroring stream closes with a promise"),
    }
}

// ---- the controller ------------------------------------------------------------

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1147-L1163>
/// `writableStreamDefaultControllerWrite`.
fn controller_write(rt: &mut Rt, w: u32, chunk: Value, chunk_size: Value) {
    // `enqueueValueWithSize(controller, chunk, chunkSize)`.
    let size = match coerce_size(rt, &chunk_size) {
        Ok(n) => n,
        Err(error) => {
            controller_error_if_needed(rt, w, error);
            return;
        }
    };
    let c = cd(rt, w);
    c.queue.push_back((QueueValue::Chunk(chunk), size));
    c.queue_total_size += size;
    if !close_queued_or_in_flight(rt, w) && state(rt, w) == WState::Writable {
        update_backpressure(rt, w);
    }
    advance_queue_if_needed(rt, w);
}

/// The write reactions, made on the first write and reused.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1172-L1195>.
fn write_reactions_made(rt: &mut Rt, w: u32) -> (ObjectId, ObjectId) {
    if let Some(r) = cd(rt, w).write_reactions {
        return r;
    }
    let controller = Captures::values(vec![controller_value(rt, w)]);
    let on_fulfilled = rt.native_function_capturing(controller.clone(), move |rt, _, _| {
        finish_in_flight_write(rt, w);
        dequeue_value(rt, w);
        if !close_queued_or_in_flight(rt, w) && state(rt, w) == WState::Writable {
            update_backpressure(rt, w);
        }
        advance_queue_if_needed(rt, w);
        Ok(Value::Undefined)
    });
    let on_rejected = rt.native_function_capturing(controller, move |rt, _, args| {
        let error = args.first().cloned().unwrap_or(Value::Undefined);
        if state(rt, w) == WState::Writable {
            clear_algorithms(rt, w);
        }
        finish_in_flight_write_with_error(rt, w, error);
        Ok(Value::Undefined)
    });
    cd(rt, w).write_reactions = Some((on_fulfilled, on_rejected));
    (on_fulfilled, on_rejected)
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1165-L1211>
/// `writableStreamDefaultControllerProcessWrite`.
fn process_write(rt: &mut Rt, w: u32, chunk: Value) {
    // writableStreamMarkFirstWriteRequestInFlight.
    let request = sd(rt, w).write_requests.pop_front();
    sd(rt, w).in_flight_write = request;
    let (on_fulfilled, on_rejected) = write_reactions_made(rt, w);
    let (algorithm, sink, controller) = {
        let c = cd(rt, w);
        (c.write, c.sink.clone(), c.obj)
    };
    let result = match algorithm {
        // (The controller, which holds the reactions, is on the stack while write() runs.)
        SinkAlgorithm::Sink(f) => rt.holding(&[Value::Object(controller)], |rt| {
            rt.call_function(f, sink, &[chunk, Value::Object(controller)])
        }),
        SinkAlgorithm::Transform(t) => {
            match crate::transformstream::sink_write(rt, t, chunk) {
                // `kParkedAlgorithmResult`.
                None => return,
                Some(p) => Ok(Value::Object(p)),
            }
        }
        SinkAlgorithm::NonOp | SinkAlgorithm::Cleared => Ok(Value::Undefined),
    };
    then_algorithm_result(rt, result, on_fulfilled, on_rejected);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1213-L1228>
/// `writableStreamDefaultControllerProcessClose`.
fn process_close(rt: &mut Rt, w: u32) {
    // writableStreamMarkCloseRequestInFlight.
    let close = sd(rt, w).close_request.take();
    sd(rt, w).in_flight_close = close;
    dequeue_value(rt, w);
    let (algorithm, sink) = {
        let c = cd(rt, w);
        (c.close, c.sink.clone())
    };
    let promise = match algorithm {
        // createPromiseCallbackNoParams: `async () => close.call(sink)`.
        SinkAlgorithm::Sink(f) => promise_call(rt, stream_obj(rt, w), f, sink, &[]),
        SinkAlgorithm::Transform(t) => crate::transformstream::sink_close(rt, t),
        // `nonOpCancel`, an async function.
        SinkAlgorithm::NonOp | SinkAlgorithm::Cleared => rt.promise_resolve(Value::Undefined),
    };
    clear_algorithms(rt, w);
    let stream = Captures::values(vec![Value::Object(stream_obj(rt, w))]);
    let on_fulfilled = rt.native_function_capturing(stream.clone(), move |rt, _, _| {
        finish_in_flight_close(rt, w);
        Ok(Value::Undefined)
    });
    let on_rejected = rt.native_function_capturing(stream, move |rt, _, args| {
        let error = args.first().cloned().unwrap_or(Value::Undefined);
        finish_in_flight_close_with_error(rt, w, error);
        Ok(Value::Undefined)
    });
    rt.perform_promise_then(promise, Some(on_fulfilled), Some(on_rejected), None);
}

/// `async (...args) => fn.call(thisArg, ...args)`: a throw rejects, a promise result is adopted.
/// `holder` is the object whose algorithm this is (on the stack while `f` runs).
pub(crate) fn promise_call(
    rt: &mut Rt,
    holder: ObjectId,
    f: ObjectId,
    this: Value,
    args: &[Value],
) -> ObjectId {
    let p = rt.new_promise();
    let roots = [Value::Object(holder), Value::Object(p)];
    match rt.holding(&roots, |rt| rt.call_function(f, this, args)) {
        Ok(v) => rt.resolve_promise_with(p, v),
        Err(e) => rt.reject_promise(p, e),
    }
    p
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L513-L517>
/// `controller[kAbort](reason)`: the abort algorithm's promise, then ClearAlgorithms.
fn controller_abort_steps(rt: &mut Rt, w: u32, reason: Value) -> ObjectId {
    let (algorithm, sink) = {
        let c = cd(rt, w);
        (c.abort, c.sink.clone())
    };
    let promise = match algorithm {
        SinkAlgorithm::Sink(f) => promise_call(rt, stream_obj(rt, w), f, sink, &[reason]),
        SinkAlgorithm::Transform(t) => crate::transformstream::sink_abort(rt, t, reason),
        SinkAlgorithm::NonOp | SinkAlgorithm::Cleared => rt.promise_resolve(Value::Undefined),
    };
    clear_algorithms(rt, w);
    promise
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L293-L300>
/// `dequeueValue`.
fn dequeue_value(rt: &mut Rt, w: u32) {
    let c = cd(rt, w);
    if let Some((_, size)) = c.queue.pop_front() {
        c.queue_total_size = (c.queue_total_size - size).max(0.0);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1238-L1264>
/// `writableStreamDefaultControllerGetChunkSize`: the size's raw result (validated when queued).
fn controller_get_chunk_size(rt: &mut Rt, w: u32, chunk: &Value) -> Value {
    match cd(rt, w).size {
        Size::Default | Size::Cleared => Value::Number(1.0),
        Size::Script(f) => {
            // (The caller holds the stream and the chunk.)
            match rt.call_function(f, Value::Undefined, std::slice::from_ref(chunk)) {
                Ok(v) => v,
                Err(error) => {
                    controller_error_if_needed(rt, w, error);
                    Value::Number(1.0)
                }
            }
        }
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1266-L1272>
/// `writableStreamDefaultControllerErrorIfNeeded`.
pub(crate) fn controller_error_if_needed(rt: &mut Rt, w: u32, error: Value) {
    if state(rt, w) == WState::Writable {
        controller_error(rt, w, error);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1274-L1281>
/// `writableStreamDefaultControllerError`.
fn controller_error(rt: &mut Rt, w: u32, error: Value) {
    clear_algorithms(rt, w);
    start_erroring(rt, w, error);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1283-L1286>
/// `writableStreamDefaultControllerClose`.
fn controller_close(rt: &mut Rt, w: u32) {
    cd(rt, w).queue.push_back((QueueValue::Close, 0.0));
    advance_queue_if_needed(rt, w);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1288-L1293>
/// `writableStreamDefaultControllerClearAlgorithms`.
fn clear_algorithms(rt: &mut Rt, w: u32) {
    let c = cd(rt, w);
    c.write = SinkAlgorithm::Cleared;
    c.close = SinkAlgorithm::Cleared;
    c.abort = SinkAlgorithm::Cleared;
    c.size = Size::Cleared;
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1295-L1317>
/// `writableStreamDefaultControllerAdvanceQueueIfNeeded`.
fn advance_queue_if_needed(rt: &mut Rt, w: u32) {
    if !cd(rt, w).started || sd(rt, w).in_flight_write.is_some() {
        return;
    }
    if state(rt, w) == WState::Erroring {
        finish_erroring(rt, w);
        return;
    }
    match cd(rt, w).queue.front() {
        None => {}
        Some((QueueValue::Close, _)) => process_close(rt, w),
        Some((QueueValue::Chunk(chunk), _)) => {
            let chunk = chunk.clone();
            process_write(rt, w, chunk);
        }
    }
}

// ---- the operations ---------------------------------------------------------------

/// `stream.abort(reason)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L259-L267>.
pub fn stream_abort(rt: &mut Rt, stream: Value, reason: Option<Value>) -> Completion {
    let Some(w) = stream_of(rt, &stream) else {
        let e = invalid_this(rt, "WritableStream");
        return rejected(rt, e);
    };
    if is_locked(rt, w) {
        let e = invalid_state(rt, "WritableStream is locked");
        return rejected(rt, e);
    }
    let p = writable_stream_abort(rt, w, reason.unwrap_or(Value::Undefined));
    Ok(Value::Object(p))
}

/// `stream.close()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L272-L284>.
pub fn stream_close(rt: &mut Rt, stream: Value) -> Completion {
    let Some(w) = stream_of(rt, &stream) else {
        let e = invalid_this(rt, "WritableStream");
        return rejected(rt, e);
    };
    if is_locked(rt, w) {
        let e = invalid_state(rt, "WritableStream is locked");
        return rejected(rt, e);
    }
    if close_queued_or_in_flight(rt, w) {
        let e = invalid_state(rt, "Failure closing WritableStream");
        return rejected(rt, e);
    }
    writable_stream_close(rt, w)
}

/// `stream.getWriter()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L289-L294>
/// and the writer's constructor (L373-L383).
pub fn get_writer(rt: &mut Rt, stream: Value) -> Completion {
    let Some(w) = stream_of(rt, &stream) else {
        return Err(invalid_this(rt, "WritableStream"));
    };
    let index = setup_writer(rt, w)?;
    let obj = alloc_host(rt, |_| Slot::WritableWriter(index));
    rt.lib.writables.writers[index as usize].obj = Some(obj);
    Ok(Value::Object(obj))
}

/// `controller.error(e)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L535-L541>.
pub fn op_controller_error(rt: &mut Rt, controller: Value, error: Value) -> Completion {
    let Some(w) = controller_of(rt, &controller) else {
        return Err(invalid_this(rt, "WritableStreamDefaultController"));
    };
    if state(rt, w) == WState::Writable {
        controller_error(rt, w, error);
    }
    Ok(Value::Undefined)
}

/// The stream a writer method works on, or the rejection it returns.
fn bound_stream(rt: &mut Rt, writer: &Value) -> Result<u32, Value> {
    let Some(wr) = writer_of(rt, writer) else {
        return Err(invalid_this(rt, "WritableStreamDefaultWriter"));
    };
    rt.lib.writables.writers[wr as usize]
        .stream
        .ok_or_else(|| invalid_state(rt, "Writer is not bound to a WritableStream"))
}

/// Whether `writableStreamDefaultControllerGetChunkSize`'s assertion fails for a write through
/// `writer` (bound): the size algorithm is cleared while the stream is still 'writable' (a close
/// in flight).
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1243-L1247>.
pub(crate) fn chunk_size_asserts(rt: &mut Rt, writer: u32) -> bool {
    match rt.lib.writables.writers[writer as usize].stream {
        Some(w) => cd(rt, w).size == Size::Cleared && state(rt, w) == WState::Writable,
        None => false,
    }
}

/// Whether the writer is still bound to its stream (not released).
pub(crate) fn writer_is_bound(rt: &Rt, writer: u32) -> bool {
    rt.lib.writables.writers[writer as usize].stream.is_some()
}

/// `writer.write(chunk)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L471-L480>.
pub fn writer_write(rt: &mut Rt, writer: Value, chunk: Value) -> Completion {
    if let Err(e) = bound_stream(rt, &writer) {
        return rejected(rt, e);
    }
    let wr = writer_of(rt, &writer).expect("a writer");
    // `writableStreamDefaultControllerGetChunkSize` asserts that a stream whose algorithms are
    // cleared is closed, errored or erroring; a close in flight clears them while the stream is
    // still 'writable', so a write then fails that assertion, and write() throws Node's
    // ERR_INTERNAL_ASSERTION (a bug of Node 26.12.1, kept as Node has it).
    if chunk_size_asserts(rt, wr) {
        return Err(rt.internal_assertion_error());
    }
    match writer_write_request(rt, wr, chunk, None) {
        Ok(p) => Ok(Value::Object(
            p.expect("a write without a tracker has a promise"),
        )),
        Err(e) => rejected(rt, e),
    }
}

/// `writer.close()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L437-L453>.
pub fn writer_close(rt: &mut Rt, writer: Value) -> Completion {
    let w = match bound_stream(rt, &writer) {
        Ok(w) => w,
        Err(e) => return rejected(rt, e),
    };
    if close_queued_or_in_flight(rt, w) {
        let e = invalid_state(rt, "Failure to close WritableStream");
        return rejected(rt, e);
    }
    writable_stream_close(rt, w)
}

/// `writer.abort(reason)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L423-L432>.
pub fn writer_abort(rt: &mut Rt, writer: Value, reason: Option<Value>) -> Completion {
    let w = match bound_stream(rt, &writer) {
        Ok(w) => w,
        Err(e) => return rejected(rt, e),
    };
    let p = writable_stream_abort(rt, w, reason.unwrap_or(Value::Undefined));
    Ok(Value::Object(p))
}

/// `writer.releaseLock()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L455-L465>.
pub fn writer_release_lock(rt: &mut Rt, writer: Value) -> Completion {
    let Some(wr) = writer_of(rt, &writer) else {
        return Err(invalid_this(rt, "WritableStreamDefaultWriter"));
    };
    writer_release(rt, wr);
    Ok(Value::Undefined)
}

/// A property of a writable object, or `None` when `obj` is none.
pub fn get(rt: &mut Rt, obj: ObjectId, prop: &str) -> Option<Completion> {
    Some(Ok(match (rt.lib.slot(obj), prop) {
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L249-L253>
        (Slot::WritableStream(w), "locked") => Value::Bool(is_locked(rt, w)),
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L526-L530>
        (Slot::WritableController(w), "signal") => {
            let controller = rt.lib.writables.controllers[w as usize]
                .abort_controller
                .clone();
            match controller.as_object().map(|c| rt.lib.slot(c)) {
                Some(Slot::Controller(s)) => Value::Object(rt.lib.signals[s as usize].obj),
                _ => Value::Undefined,
            }
        }
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L389-L393>
        (Slot::WritableWriter(wr), "closed") => Value::Object(writer_closed_promise(rt, wr)),
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L413-L417>
        (Slot::WritableWriter(wr), "ready") => Value::Object(writer_ready_promise(rt, wr)),
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L399-L407>
        (Slot::WritableWriter(wr), "desiredSize") => {
            match rt.lib.writables.writers[wr as usize].stream {
                None => {
                    return Some(Err(invalid_state(
                        rt,
                        "Writer is not bound to a WritableStream",
                    )))
                }
                Some(w) => writer_get_desired_size(rt, w),
            }
        }
        (Slot::WritableStream(_) | Slot::WritableController(_) | Slot::WritableWriter(_), _) => {
            Value::Undefined
        }
        _ => return None,
    }))
}

// ---- the collector's view ---------------------------------------------------------

/// A controller's object, as a value.
fn controller_value(rt: &Rt, w: u32) -> Value {
    Value::Object(rt.lib.writables.controllers[w as usize].obj)
}

/// A write request's edge.
fn write_request_value(rt: &Rt, request: WriteRequest) -> Value {
    Value::Object(match request {
        WriteRequest::Promise(p) => p,
        WriteRequest::Pipe(p) => crate::pipe::state_obj(rt, p),
    })
}

/// A writer record's (or hook's) edge.
fn writer_record_value(rt: &Rt, record: WriterRecord) -> Value {
    Value::Object(match record {
        WriterRecord::Record { promise, .. } => promise,
        WriterRecord::PipeClosed(p) | WriterRecord::PipeReady(p) => crate::pipe::state_obj(rt, p),
    })
}

/// What a writer's `kState` holds (its object too, for a holder of the writer: the stream's
/// `kState.writer`, a pipe).
pub(crate) fn trace_writer(rt: &Rt, writer: u32, edges: &mut Vec<Value>) {
    let data = &rt.lib.writables.writers[writer as usize];
    if let Some(obj) = data.obj {
        edges.push(Value::Object(obj));
    }
    if let Some(w) = data.stream {
        edges.push(Value::Object(stream_obj(rt, w)));
    }
    for record in data.close.iter().chain(&data.ready) {
        edges.push(writer_record_value(rt, *record));
    }
}

/// The objects a sink algorithm holds.
fn trace_sink_algorithm(rt: &Rt, algorithm: SinkAlgorithm, edges: &mut Vec<Value>) {
    match algorithm {
        SinkAlgorithm::Sink(f) => edges.push(Value::Object(f)),
        SinkAlgorithm::Transform(t) => {
            edges.push(Value::Object(crate::transformstream::stream_obj(rt, t)));
        }
        SinkAlgorithm::NonOp | SinkAlgorithm::Cleared => {}
    }
}

/// The strong edges of a writable stream object; false when `slot` is none.
pub(crate) fn trace(rt: &Rt, slot: Slot, edges: &mut Vec<Value>) -> bool {
    match slot {
        Slot::WritableStream(w) => {
            let s = &rt.lib.writables.streams[w as usize];
            edges.push(controller_value(rt, w));
            edges.push(s.stored_error.clone());
            edges.extend(
                s.close_request
                    .iter()
                    .chain(&s.in_flight_close)
                    .map(|&p| Value::Object(p)),
            );
            if let Some(request) = s.in_flight_write {
                edges.push(write_request_value(rt, request));
            }
            if let Some(abort) = &s.pending_abort {
                edges.push(Value::Object(abort.promise));
                edges.push(abort.reason.clone());
            }
            for &request in &s.write_requests {
                edges.push(write_request_value(rt, request));
            }
            if let Some(writer) = s.writer {
                trace_writer(rt, writer, edges);
            }
        }
        Slot::WritableController(w) => {
            let c = &rt.lib.writables.controllers[w as usize];
            edges.push(Value::Object(stream_obj(rt, w)));
            edges.push(c.sink.clone());
            for algorithm in [c.write, c.close, c.abort] {
                trace_sink_algorithm(rt, algorithm, edges);
            }
            if let Size::Script(f) = c.size {
                edges.push(Value::Object(f));
            }
            for (entry, _) in &c.queue {
                if let QueueValue::Chunk(chunk) = entry {
                    edges.push(chunk.clone());
                }
            }
            edges.push(c.abort_controller.clone());
            if let Some((f, r)) = c.write_reactions {
                edges.push(Value::Object(f));
                edges.push(Value::Object(r));
            }
        }
        Slot::WritableWriter(writer) => trace_writer(rt, writer, edges),
        _ => return false,
    }
    true
}

/// The shared released error (module-level in Node): a root.
pub(crate) fn roots(rt: &Rt, roots: &mut Vec<Value>) {
    roots.extend(rt.lib.writables.released_error.iter().cloned());
}

/// Forgets the records of collected writable stream objects.
pub(crate) fn forget(rt: &mut Rt, slot: Slot) {
    let ws = &mut rt.lib.writables;
    match slot {
        Slot::WritableStream(w) => {
            let s = &mut ws.streams[w as usize];
            s.stored_error = Value::Undefined;
            s.pending_abort = None;
            s.write_requests = VecDeque::new();
        }
        Slot::WritableController(w) => {
            let c = &mut ws.controllers[w as usize];
            c.sink = Value::Undefined;
            c.write = SinkAlgorithm::Cleared;
            c.close = SinkAlgorithm::Cleared;
            c.abort = SinkAlgorithm::Cleared;
            c.size = Size::Cleared;
            c.queue = VecDeque::new();
            c.write_reactions = None;
        }
        Slot::WritableWriter(writer) => {
            let data = &mut ws.writers[writer as usize];
            data.close = None;
            data.ready = None;
        }
        _ => {}
    }
}
