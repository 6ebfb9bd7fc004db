//! Byte streams: ReadableByteStreamController, ReadableStreamBYOBReader and
//! ReadableStreamBYOBRequest, and the byte tee, built the way Node 26.12.1's
//! lib/internal/webstreams/readablestream.js builds them.
//!
//! A child module of `streams` (it shares the stream, reader and tee
//! records and their private helpers): a stream's `kState.controller` is a
//! [`ControllerRef::Default`] or a [`ControllerRef::Byte`], a reader is a
//! default reader (read requests) or a BYOB reader (read-into requests), as
//! in Node.
//!
//! The layout follows Node's `kState` records: a byte controller keeps its
//! queue of `{ buffer, byteOffset, byteLength }` entries,
//! `queueTotalSize`, `pendingPullIntos` (descriptors with Node's fields),
//! the lazily made `byobRequest`, and the flags and algorithms. Node's fast
//! paths kept (each commented with the line it mirrors):
//!
//! - `enqueue` makes one pass over the reader state instead of the spec's
//!   four predicate calls, and serves a parked default read directly;
//! - `readableByteStreamControllerShouldCallPull` is single-pass;
//! - the queue and `pendingPullIntos` start as the shared empty queue;
//! - the pull reactions are made once and reused; a non-object `pull()`
//!   result chains onto the shared resolved promise;
//! - a default reader's `read()` with bytes buffered dequeues without a
//!   read request (in `streams::reader_read`).
//!
//! The seed's items (seeds/webstreams-idle-start-and-watchers.txt) for byte
//! streams: "no post-start microtask for sources without pull()"
//! ([`setup_byte_controller`]), and in the byte tee the cancel promise made
//! by the first branch cancel only and the readers' closed records as hooks
//! ([`forward_reader_error`]).
//!
//! Only Uint8Array exists in the language, so a descriptor's element size is
//! always 1 and its constructor always Uint8Array: Node's remainder and
//! "Partial read" branches cannot be taken (they are noted where they are).

use std::collections::VecDeque;

use nodesem_runtime::{Captures, Completion, HostClass, Job, ObjectId, UnderlyingSource, Value};

use super::{
    alloc_host, default_reader_read, fulfill_read_request, invalid_state, invalid_this,
    read_request_chunk, readable_stream_cancel, readable_stream_close, readable_stream_error,
    reader_closed_promise, reader_generic_release, rejected, releasing_error, setup_default_reader,
    stream_of, then_algorithm_result, AnyTee, CancelPromise, Closed, ControllerRef, Mutant,
    ReadRequest, ReaderData, Rt, Slot, StreamData, StreamState,
};
use super::{captured, read_request_value, stream_obj, trace_cancel_promise, trace_reader};

/// An underlying byte source's algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ByteAlgorithm {
    /// `nonOpCallback` (pull) or `nonOpCancel` (cancel).
    NonOp,
    /// The source's method.
    Source(ObjectId),
    /// Set to `undefined` by `readableByteStreamControllerClearAlgorithms`.
    Cleared,
    /// A branch of a byte tee (the tee's index, the branch's 0 or 1):
    /// `pull1Algorithm`/`pull2Algorithm`, `cancel1Algorithm`/`cancel2Algorithm`.
    Tee(u32, u8),
}

/// An entry of a byte controller's queue.
#[derive(Clone, Copy, Debug)]
pub(super) struct QueueEntry {
    /// `buffer`.
    buffer: ObjectId,
    /// `byteOffset`.
    byte_offset: usize,
    /// `byteLength`.
    byte_length: usize,
}

/// A pull-into descriptor's `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PullIntoType {
    /// `'default'`: made by autoAllocateChunkSize for a default read.
    Default,
    /// `'byob'`: a BYOB read.
    Byob,
    /// `'none'`: its reader was released (`kRelease`).
    None,
}

/// A pull-into descriptor (`elementSize` 1, `ctor` Uint8Array).
#[derive(Clone, Copy, Debug)]
struct PullIntoDescriptor {
    /// `buffer`.
    buffer: ObjectId,
    /// `bufferByteLength`.
    buffer_byte_length: usize,
    /// `byteOffset`.
    byte_offset: usize,
    /// `byteLength`.
    byte_length: usize,
    /// `bytesFilled`.
    bytes_filled: usize,
    /// `minimumFill`.
    minimum_fill: usize,
    /// `type`.
    kind: PullIntoType,
}

/// A ReadableByteStreamController's `kState` record.
#[derive(Debug)]
pub(super) struct ByteControllerData {
    /// The controller object.
    obj: ObjectId,
    /// `stream`.
    stream: u32,
    /// The underlying source, `this` of its methods.
    source: Value,
    /// `byobRequest`: the index of the request object, or null.
    byob_request: Option<u32>,
    /// `closeRequested`.
    close_requested: bool,
    /// `pullAgain`.
    pull_again: bool,
    /// `pulling`.
    pulling: bool,
    /// `pullFulfilled` and `pullRejected`, made on the first pull.
    pull_reactions: Option<(ObjectId, ObjectId)>,
    /// `started`.
    started: bool,
    /// `queue`.
    queue: VecDeque<QueueEntry>,
    /// `queueTotalSize`.
    pub(super) queue_total_size: usize,
    /// `highWaterMark`.
    high_water_mark: f64,
    /// `pullAlgorithm`.
    pull: ByteAlgorithm,
    /// `cancelAlgorithm`.
    cancel: ByteAlgorithm,
    /// `autoAllocateChunkSize`.
    auto_allocate_chunk_size: Option<usize>,
    /// `pendingPullIntos`.
    pending_pull_intos: VecDeque<PullIntoDescriptor>,
}

/// A ReadableStreamBYOBRequest's `kState`: `controller` (undefined once
/// invalidated) and `view` (null once invalidated).
#[derive(Debug)]
pub(super) struct ByobRequestData {
    /// The request object.
    obj: ObjectId,
    /// `controller`.
    controller: Option<u32>,
    /// `view`.
    view: Value,
}

/// A read-into request parked on a BYOB reader.
#[derive(Clone, Copy, Debug)]
pub(super) enum ReadIntoRequest {
    /// `ReadIntoRequest` of `reader.read(view)`: its promise.
    Promise(ObjectId),
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2223-L2309>
    /// the `readIntoRequest` of the byte tee's `pullWithBYOBReader` (the tee, `forBranch2`).
    Tee(u32, bool),
}

/// The state `readableByteStreamTee`'s closures share.
#[derive(Debug)]
pub(super) struct ByteTeeData {
    /// The hidden object standing for the closures' shared state ([`Slot::ByteTeeState`]).
    obj: ObjectId,
    /// `stream`.
    stream: u32,
    /// `reader`: the reader the tee holds now (default or BYOB).
    reader: u32,
    /// `reading`.
    pub(super) reading: bool,
    /// `readAgainForBranch1` and `readAgainForBranch2`.
    read_again: [bool; 2],
    /// `canceled1` and `canceled2`.
    canceled: [bool; 2],
    /// `reason1` and `reason2`.
    reasons: [Value; 2],
    /// `branch1` and `branch2`: their byte controllers' indices.
    branches: [u32; 2],
    /// `cancelDeferred` and `cancelSettled`.
    pub(super) cancel: CancelPromise,
    /// `pendingChunk`.
    pending_chunk: Value,
}

// ---- errors -----------------------------------------------------------

/// Node's `inspect(value)` for the values the byte stream errors describe.
fn inspect(rt: &Rt, value: &Value) -> String {
    if let Some(view) = rt.uint8_array(value) {
        // (Node's `inspect` groups more than six elements in rows.)
        return rt.inspect_uint8_array(view);
    }
    if let Some(s) = stream_of(rt, value) {
        let stream = &rt.lib.streams.streams[s as usize];
        let state = match stream.state {
            StreamState::Readable => "readable",
            StreamState::Closed => "closed",
            StreamState::Errored => "errored",
        };
        let byob = matches!(stream.controller, ControllerRef::Byte(_));
        return format!(
            "ReadableStream {{ locked: {}, state: '{state}', supportsBYOB: {byob} }}",
            stream.reader.is_some()
        );
    }
    match value {
        Value::String(s) => format!("'{s}'"),
        // `inspect(-0)` is `-0`.
        Value::Number(n) if *n == 0.0 && n.is_sign_negative() => "-0".to_string(),
        _ => rt.fmt(value),
    }
}

/// `new ERR_INVALID_ARG_VALUE(name, value, reason)` (a TypeError, or a
/// RangeError for `ERR_INVALID_ARG_VALUE.RangeError`).
fn invalid_arg_value(rt: &mut Rt, class: &str, name: &str, value: &Value, reason: &str) -> Value {
    let mut shown = inspect(rt, value);
    if shown.len() > 128 {
        shown.truncate(128);
        shown.push_str("...");
    }
    let kind = if name.contains('.') {
        "property"
    } else {
        "argument"
    };
    rt.node_error(
        class,
        "ERR_INVALID_ARG_VALUE",
        &format!("The {kind} '{name}' {reason}. Received {shown}"),
    )
}

/// `new ERR_INVALID_STATE.RangeError(message)`.
fn invalid_state_range(rt: &mut Rt, message: &str) -> Value {
    rt.node_error(
        "RangeError",
        "ERR_INVALID_STATE",
        &format!("Invalid state: {message}"),
    )
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/validators.js#L406-L412>
/// `validateBuffer(value, name)`: an ArrayBufferView, else ERR_INVALID_ARG_TYPE.
fn validate_buffer(rt: &mut Rt, value: &Value, name: &str) -> Result<(), Value> {
    if rt.uint8_array(value).is_some() {
        return Ok(());
    }
    Err(rt.err_invalid_arg_type_classes(name, &["Buffer", "TypedArray", "DataView"], value))
}

/// `ArrayBufferPrototypeTransfer(buffer)`.
fn transfer(rt: &mut Rt, buffer: ObjectId) -> Result<ObjectId, Value> {
    rt.transfer_array_buffer(buffer)
}

fn byte_controller_of(rt: &Rt, value: &Value) -> Option<u32> {
    match value.as_object().map(|obj| rt.lib.slot(obj)) {
        Some(Slot::ByteController(b)) => Some(b),
        _ => None,
    }
}

fn byob_reader_of(rt: &Rt, value: &Value) -> Option<u32> {
    match value.as_object().map(|obj| rt.lib.slot(obj)) {
        Some(Slot::ByobReader(r)) => Some(r),
        _ => None,
    }
}

fn byob_request_of(rt: &Rt, value: &Value) -> Option<u32> {
    match value.as_object().map(|obj| rt.lib.slot(obj)) {
        Some(Slot::ByobRequest(q)) => Some(q),
        _ => None,
    }
}

fn ctl(rt: &mut Rt, b: u32) -> &mut ByteControllerData {
    &mut rt.lib.streams.byte_controllers[b as usize]
}

/// `controller[kState].queueTotalSize > 0`, as the async iterator's `next()` fast path tests it.
pub(crate) fn has_queued_bytes(rt: &Rt, b: u32) -> bool {
    rt.lib.streams.byte_controllers[b as usize].queue_total_size > 0
}

fn stream_state(rt: &Rt, b: u32) -> StreamState {
    let s = rt.lib.streams.byte_controllers[b as usize].stream;
    rt.lib.streams.streams[s as usize].state
}

// ---- construction -----------------------------------------------------

/// `new ReadableStream({ type: 'bytes', ... }, { highWaterMark })`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L277-L287>
/// (the constructor's bytes arm, `extractHighWaterMark(highWaterMark, 0)`) and
/// <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3948-L3982>
/// `setupReadableByteStreamControllerFromSource`.
pub fn new_byte_stream(
    rt: &mut Rt,
    source: UnderlyingSource,
    high_water_mark: Option<f64>,
    auto_allocate_chunk_size: Option<f64>,
) -> Completion {
    let high_water_mark = match high_water_mark {
        None => 0.0,
        Some(h) if h.is_nan() || h < 0.0 => {
            let shown = rt.fmt(&Value::Number(h));
            return Err(rt.node_error(
                "RangeError",
                "ERR_INVALID_ARG_VALUE",
                &format!("The property 'strategy.highWaterMark' is invalid. Received {shown}"),
            ));
        }
        Some(h) => h,
    };
    for (name, method) in [
        ("source.pull", source.pull),
        ("source.cancel", source.cancel),
    ] {
        if let Some(f) = method {
            if !rt.is_function(&Value::Object(f)) {
                return Err(rt.err_invalid_arg_type(name, "function", &Value::Object(f)));
            }
        }
    }
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3967-L3971>
    if auto_allocate_chunk_size == Some(0.0) {
        return Err(invalid_arg_value(
            rt,
            "TypeError",
            "source.autoAllocateChunkSize",
            &Value::Number(0.0),
            "is invalid",
        ));
    }
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3897-L3900>
    // `setupReadableByteStreamController` asserts `NumberIsInteger(autoAllocateChunkSize)`: a
    // fraction throws ERR_INTERNAL_ASSERTION from the constructor.
    if auto_allocate_chunk_size.is_some_and(|n| n.fract() != 0.0) {
        return Err(rt.internal_assertion_error());
    }
    let (obj, b) = alloc_byte_stream(
        rt,
        source.object.clone(),
        source
            .pull
            .map_or(ByteAlgorithm::NonOp, ByteAlgorithm::Source),
        source
            .cancel
            .map_or(ByteAlgorithm::NonOp, ByteAlgorithm::Source),
        high_water_mark,
        auto_allocate_chunk_size.map(|n| n as usize),
    );
    setup_byte_controller(rt, b, source.start)?;
    Ok(Value::Object(obj))
}

/// The stream and byte controller objects and records (the first half of
/// `setupReadableByteStreamController`): the stream object and the
/// controller's index.
fn alloc_byte_stream(
    rt: &mut Rt,
    source: Value,
    pull: ByteAlgorithm,
    cancel: ByteAlgorithm,
    high_water_mark: f64,
    auto_allocate_chunk_size: Option<usize>,
) -> (ObjectId, u32) {
    let s = rt.lib.streams.streams.len() as u32;
    let b = rt.lib.streams.byte_controllers.len() as u32;
    let stream_obj = alloc_host(rt, |_| Slot::ReadableStream(s));
    let controller_obj = alloc_host(rt, |_| Slot::ByteController(b));
    rt.lib.streams.streams.push(StreamData {
        obj: stream_obj,
        state: StreamState::Readable,
        reader: None,
        stored_error: Value::Undefined,
        disturbed: false,
        controller: ControllerRef::Byte(b),
    });
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3900-L3917>:
    // `queue` and `pendingPullIntos` start as `kEmptyQueue` (an empty VecDeque owns nothing).
    rt.lib.streams.byte_controllers.push(ByteControllerData {
        obj: controller_obj,
        stream: s,
        source,
        byob_request: None,
        close_requested: false,
        pull_again: false,
        pulling: false,
        pull_reactions: None,
        started: false,
        queue: VecDeque::new(),
        queue_total_size: 0,
        high_water_mark,
        pull,
        cancel,
        auto_allocate_chunk_size,
        pending_pull_intos: VecDeque::new(),
    });
    (stream_obj, b)
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3918-L3946>
/// `setupReadableByteStreamController`, from the start algorithm on.
///
/// Seed ("No post-start microtask for sources without pull()" ... "Byte streams get the same
/// treatment"): a start result that cannot reject and a source without pull() set `started` at
/// once, with no closure and no microtask.
fn setup_byte_controller(rt: &mut Rt, b: u32, start: Option<ObjectId>) -> Result<(), Value> {
    let data = &rt.lib.streams.byte_controllers[b as usize];
    let (source, obj, pull) = (data.source.clone(), data.obj, data.pull);
    // The constructor's frame holds the stream (and so its controller) while start() runs.
    let result = match start {
        Some(f) => rt.holding(&[Value::Object(obj)], |rt| {
            rt.call_function(f, source, &[Value::Object(obj)])
        })?,
        None => Value::Undefined,
    };
    let start_fulfilled = !matches!(result, Value::Object(_));
    if start_fulfilled && pull == ByteAlgorithm::NonOp {
        ctl(rt, b).started = true;
        return Ok(());
    }
    if start_fulfilled {
        // `queueMicrotask(started)`.
        rt.enqueue_microtask(Job::Task(captured(vec![Value::Object(obj)], move |rt| {
            byte_started(rt, b);
            Ok(Value::Undefined)
        })));
        return Ok(());
    }
    // `PromisePrototypeThen(new Promise((r) => r(startResult)), started, ...)`.
    let wrapper = rt.new_promise();
    rt.resolve_promise_with(wrapper, result);
    let on_started = rt.native_function_capturing(Captures::objects(&[obj]), move |rt, _, _| {
        byte_started(rt, b);
        Ok(Value::Undefined)
    });
    let on_error = byte_error_reaction(rt, b);
    rt.perform_promise_then(wrapper, Some(on_started), Some(on_error), None);
    Ok(())
}

/// `(error) => readableByteStreamControllerError(controller, error)`.
fn byte_error_reaction(rt: &mut Rt, b: u32) -> ObjectId {
    let obj = byte_controller_obj(rt, b);
    rt.native_function_capturing(Captures::objects(&[obj]), move |rt, _, args| {
        let error = args.first().cloned().unwrap_or(Value::Undefined);
        rt.clear_internal_assertion();
        byte_controller_error(rt, b, error);
        // An ERR_INTERNAL_ASSERTION of an async iterator's error steps rejects the promise
        // `PromisePrototypeThen` derived, which nobody handles.
        if let Some(e) = rt.take_internal_assertion() {
            rt.promise_reject_new(e);
        }
        Ok(Value::Undefined)
    })
}

/// The `started` closure of `setupReadableByteStreamController`.
fn byte_started(rt: &mut Rt, b: u32) {
    let data = ctl(rt, b);
    data.started = true;
    debug_assert!(!data.pulling && !data.pull_again);
    call_pull_if_needed(rt, b);
}

// ---- the controller ---------------------------------------------------

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3180-L3204>
/// `readableByteStreamControllerShouldCallPull`, Node's single-pass version.
fn should_call_pull(rt: &Rt, b: u32) -> bool {
    let data = &rt.lib.streams.byte_controllers[b as usize];
    let stream = &rt.lib.streams.streams[data.stream as usize];
    if stream.state != StreamState::Readable || data.close_requested || !data.started {
        return false;
    }
    if let Some(r) = stream.reader {
        let reader = &rt.lib.streams.readers[r as usize];
        if !reader.read_requests.is_empty() || !reader.read_into_requests.is_empty() {
            return true;
        }
    }
    data.high_water_mark - data.queue_total_size as f64 > 0.0
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3745-L3781>
/// `readableByteStreamControllerCallPullIfNeeded`, with the reactions made once and the raw
/// callback's result through `thenAlgorithmResult`.
fn call_pull_if_needed(rt: &mut Rt, b: u32) {
    if !should_call_pull(rt, b) {
        return;
    }
    let data = ctl(rt, b);
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3749-L3750>
    // `pullAlgorithm === nonOpCallback`: nothing to run.
    let algorithm = data.pull;
    if matches!(algorithm, ByteAlgorithm::NonOp | ByteAlgorithm::Cleared) {
        return;
    }
    if data.pulling {
        data.pull_again = true;
        return;
    }
    debug_assert!(!data.pull_again);
    data.pulling = true;
    let (source, obj) = (data.source.clone(), data.obj);
    let (on_fulfilled, on_rejected) = match data.pull_reactions {
        Some(reactions) => reactions,
        None => {
            let on_fulfilled =
                rt.native_function_capturing(Captures::objects(&[obj]), move |rt, _, _| {
                    let data = ctl(rt, b);
                    data.pulling = false;
                    if data.pull_again {
                        data.pull_again = false;
                        call_pull_if_needed(rt, b);
                    }
                    Ok(Value::Undefined)
                });
            let on_rejected = byte_error_reaction(rt, b);
            ctl(rt, b).pull_reactions = Some((on_fulfilled, on_rejected));
            (on_fulfilled, on_rejected)
        }
    };
    let result = match algorithm {
        // (The controller, which holds the reactions, is on the stack while pull() runs.)
        ByteAlgorithm::Source(f) => rt.holding(&[Value::Object(obj)], |rt| {
            rt.call_function(f, source, &[Value::Object(obj)])
        }),
        ByteAlgorithm::Tee(t, branch) => {
            byte_tee_pull(rt, t, usize::from(branch));
            Ok(Value::Undefined)
        }
        ByteAlgorithm::NonOp | ByteAlgorithm::Cleared => return,
    };
    then_algorithm_result(rt, result, on_fulfilled, on_rejected);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3149-L3155>
/// `readableByteStreamControllerInvalidateBYOBRequest`.
fn invalidate_byob_request(rt: &mut Rt, b: u32) {
    let Some(q) = ctl(rt, b).byob_request.take() else {
        return;
    };
    let request = &mut rt.lib.streams.byob_requests[q as usize];
    request.controller = None;
    request.view = Value::Null;
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3157-L3160>
/// `readableByteStreamControllerClearAlgorithms`.
fn clear_algorithms(rt: &mut Rt, b: u32) {
    let data = ctl(rt, b);
    data.pull = ByteAlgorithm::Cleared;
    data.cancel = ByteAlgorithm::Cleared;
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3162-L3165>
/// `readableByteStreamControllerClearPendingPullIntos`.
fn clear_pending_pull_intos(rt: &mut Rt, b: u32) {
    invalidate_byob_request(rt, b);
    ctl(rt, b).pending_pull_intos = VecDeque::new();
}

/// `resetQueue(controller)`.
fn reset_queue(rt: &mut Rt, b: u32) {
    let data = ctl(rt, b);
    data.queue = VecDeque::new();
    data.queue_total_size = 0;
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3783-L3793>
/// `readableByteStreamControllerError`.
pub(super) fn byte_controller_error(rt: &mut Rt, b: u32, error: Value) {
    if stream_state(rt, b) != StreamState::Readable {
        return;
    }
    clear_pending_pull_intos(rt, b);
    reset_queue(rt, b);
    clear_algorithms(rt, b);
    let s = ctl(rt, b).stream;
    readable_stream_error(rt, s, error);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3090-L3117>
/// `readableByteStreamControllerClose`.
fn byte_controller_close(rt: &mut Rt, b: u32) -> Result<(), Value> {
    let data = ctl(rt, b);
    if data.close_requested || stream_state(rt, b) != StreamState::Readable {
        return Ok(());
    }
    let data = ctl(rt, b);
    if data.queue_total_size > 0 {
        data.close_requested = true;
        return Ok(());
    }
    // (The "Partial read" check, `bytesFilled % elementSize !== 0`, never holds with element
    // size 1.)
    clear_algorithms(rt, b);
    let s = ctl(rt, b).stream;
    readable_stream_close(rt, s);
    Ok(())
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3795-L3801>
/// `readableByteStreamControllerCancelSteps` (`kCancel`).
pub(super) fn byte_controller_cancel_steps(rt: &mut Rt, b: u32, reason: Value) -> ObjectId {
    clear_pending_pull_intos(rt, b);
    reset_queue(rt, b);
    let data = &rt.lib.streams.byte_controllers[b as usize];
    let (algorithm, source) = (data.cancel, data.source.clone());
    let promise = match algorithm {
        // `createPromiseCallback1Param`.
        ByteAlgorithm::Source(f) => {
            let p = rt.new_promise();
            let roots = [Value::Object(byte_controller_obj(rt, b)), Value::Object(p)];
            match rt.holding(&roots, |rt| rt.call_function(f, source, &[reason])) {
                Ok(v) => rt.resolve_promise_with(p, v),
                Err(e) => rt.reject_promise(p, e),
            }
            p
        }
        ByteAlgorithm::Tee(t, branch) => byte_tee_cancel(rt, t, usize::from(branch), reason),
        ByteAlgorithm::NonOp | ByteAlgorithm::Cleared => rt.promise_resolve(Value::Undefined),
    };
    clear_algorithms(rt, b);
    promise
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1332-L1343>
/// `ReadableByteStreamController.prototype[kRelease]`: a released reader's first pending pull-into
/// stays, as type `'none'`, alone in a new queue.
pub(super) fn byte_controller_release(rt: &mut Rt, b: u32) {
    let data = ctl(rt, b);
    if let Some(mut first) = data.pending_pull_intos.front().copied() {
        first.kind = PullIntoType::None;
        data.pending_pull_intos = VecDeque::from([first]);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3167-L3178>
/// `readableByteStreamControllerGetDesiredSize`.
fn desired_size(rt: &Rt, b: u32) -> Value {
    let data = &rt.lib.streams.byte_controllers[b as usize];
    match rt.lib.streams.streams[data.stream as usize].state {
        StreamState::Errored => Value::Null,
        StreamState::Closed => Value::Number(0.0),
        StreamState::Readable => Value::Number(data.high_water_mark - data.queue_total_size as f64),
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3206-L3219>
/// `readableByteStreamControllerHandleQueueDrain`.
fn handle_queue_drain(rt: &mut Rt, b: u32) {
    debug_assert_eq!(stream_state(rt, b), StreamState::Readable);
    let data = ctl(rt, b);
    if data.queue_total_size == 0 && data.close_requested {
        let s = data.stream;
        clear_algorithms(rt, b);
        readable_stream_close(rt, s);
        return;
    }
    call_pull_if_needed(rt, b);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3506-L3518>
/// `readableByteStreamControllerEnqueueChunkToQueue`.
fn enqueue_chunk_to_queue(
    rt: &mut Rt,
    b: u32,
    buffer: ObjectId,
    byte_offset: usize,
    byte_length: usize,
) {
    let data = ctl(rt, b);
    data.queue.push_back(QueueEntry {
        buffer,
        byte_offset,
        byte_length,
    });
    data.queue_total_size += byte_length;
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3481-L3504>
/// `readableByteStreamControllerEnqueueClonedChunkToQueue` (the slice of a live buffer cannot
/// throw).
fn enqueue_cloned_chunk_to_queue(
    rt: &mut Rt,
    b: u32,
    buffer: ObjectId,
    byte_offset: usize,
    byte_length: usize,
) {
    let clone = rt.array_buffer_slice(buffer, byte_offset, byte_offset + byte_length);
    enqueue_chunk_to_queue(rt, b, clone, 0, byte_length);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3520-L3541>
/// `readableByteStreamControllerEnqueueDetachedPullIntoToQueue`: the head descriptor.
fn enqueue_detached_pull_into_to_queue(rt: &mut Rt, b: u32) {
    let desc = ctl(rt, b).pending_pull_intos[0];
    debug_assert_eq!(desc.kind, PullIntoType::None);
    if desc.bytes_filled > 0 {
        enqueue_cloned_chunk_to_queue(rt, b, desc.buffer, desc.byte_offset, desc.bytes_filled);
    }
    shift_pending_pull_into(rt, b);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3740-L3743>
/// `readableByteStreamControllerShiftPendingPullInto`.
fn shift_pending_pull_into(rt: &mut Rt, b: u32) -> Option<PullIntoDescriptor> {
    let data = ctl(rt, b);
    debug_assert!(data.byob_request.is_none());
    data.pending_pull_intos.pop_front()
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3543-L3609>
/// `readableByteStreamControllerFillPullIntoDescriptorFromQueue`: copies queued bytes into the
/// descriptor (`desc`, updated in place); whether it reached its minimum fill.
fn fill_pull_into_descriptor_from_queue(
    rt: &mut Rt,
    b: u32,
    desc: &mut PullIntoDescriptor,
) -> bool {
    let max_bytes_to_copy = rt.lib.streams.byte_controllers[b as usize]
        .queue_total_size
        .min(desc.byte_length - desc.bytes_filled);
    let max_bytes_filled = desc.bytes_filled + max_bytes_to_copy;
    // (elementSize 1: maxAlignedBytes is maxBytesFilled.)
    let max_aligned_bytes = max_bytes_filled;
    let mut total_remaining = max_bytes_to_copy;
    let mut ready = false;
    debug_assert!(desc.bytes_filled < desc.minimum_fill);
    if max_aligned_bytes >= desc.minimum_fill {
        total_remaining = max_aligned_bytes - desc.bytes_filled;
        ready = true;
    }
    while total_remaining > 0 {
        let head = rt.lib.streams.byte_controllers[b as usize].queue[0];
        let bytes_to_copy = total_remaining.min(head.byte_length);
        let dest_start = desc.byte_offset + desc.bytes_filled;
        rt.copy_buffer_bytes(
            desc.buffer,
            dest_start,
            head.buffer,
            head.byte_offset,
            bytes_to_copy,
        );
        let data = ctl(rt, b);
        if head.byte_length == bytes_to_copy {
            data.queue.pop_front();
        } else {
            let entry = &mut data.queue[0];
            entry.byte_offset += bytes_to_copy;
            entry.byte_length -= bytes_to_copy;
        }
        data.queue_total_size -= bytes_to_copy;
        // readableByteStreamControllerFillHeadPullIntoDescriptor.
        debug_assert!(data.byob_request.is_none());
        desc.bytes_filled += bytes_to_copy;
        total_remaining -= bytes_to_copy;
    }
    if !ready {
        debug_assert_eq!(
            rt.lib.streams.byte_controllers[b as usize].queue_total_size,
            0
        );
    }
    ready
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3611-L3631>
/// `readableByteStreamControllerProcessPullIntoDescriptorsUsingQueue`.
fn process_pull_into_descriptors_using_queue(rt: &mut Rt, b: u32) -> Vec<PullIntoDescriptor> {
    let mut filled = Vec::new();
    loop {
        let data = &rt.lib.streams.byte_controllers[b as usize];
        if data.pending_pull_intos.is_empty() || data.queue_total_size == 0 {
            break;
        }
        let mut desc = data.pending_pull_intos[0];
        let ready = fill_pull_into_descriptor_from_queue(rt, b, &mut desc);
        ctl(rt, b).pending_pull_intos[0] = desc;
        if ready {
            shift_pending_pull_into(rt, b);
            filled.push(desc);
        }
    }
    filled
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2373-L2392>
/// `readableByteStreamControllerConvertPullIntoDescriptor`: the filled part as a new view on the
/// transferred buffer.
fn convert_pull_into_descriptor(rt: &mut Rt, desc: &PullIntoDescriptor) -> Completion {
    if desc.bytes_filled > desc.byte_length {
        return Err(invalid_state_range(rt, "The buffer size is invalid"));
    }
    let transferred = transfer(rt, desc.buffer)?;
    Ok(rt.new_uint8_array(transferred, desc.byte_offset, desc.bytes_filled))
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3119-L3138>
/// `readableByteStreamControllerCommitPullIntoDescriptor`.
fn commit_pull_into_descriptor(
    rt: &mut Rt,
    s: u32,
    desc: &PullIntoDescriptor,
) -> Result<(), Value> {
    debug_assert_ne!(desc.kind, PullIntoType::None);
    let done = rt.lib.streams.streams[s as usize].state == StreamState::Closed;
    let filled = convert_pull_into_descriptor(rt, desc)?;
    if desc.kind == PullIntoType::Default {
        fulfill_read_request(rt, s, filled, done);
    } else {
        fulfill_read_into_request(rt, s, filled, done);
    }
    Ok(())
}

/// `readableByteStreamControllerCommitPullIntoDescriptors`.
fn commit_pull_into_descriptors(
    rt: &mut Rt,
    s: u32,
    descriptors: &[PullIntoDescriptor],
) -> Result<(), Value> {
    for desc in descriptors {
        commit_pull_into_descriptor(rt, s, desc)?;
    }
    Ok(())
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2528-L2539>
/// `readableStreamFulfillReadIntoRequest`.
fn fulfill_read_into_request(rt: &mut Rt, s: u32, chunk: Value, done: bool) {
    let Some(r) = rt.lib.streams.streams[s as usize].reader else {
        return;
    };
    let Some(request) = rt.lib.streams.readers[r as usize]
        .read_into_requests
        .pop_front()
    else {
        return;
    };
    if done {
        read_into_request_close(rt, request, chunk);
    } else {
        read_into_request_chunk(rt, request, chunk);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3388-L3479>
/// `readableByteStreamControllerEnqueue`, with Node's single pass over the reader state.
fn byte_controller_enqueue(rt: &mut Rt, b: u32, chunk: &Value) -> Result<(), Value> {
    let view = rt.uint8_array(chunk).expect("a validated view");
    let (byte_offset, byte_length) = (view.byte_offset, rt.view_length(view));
    let data = ctl(rt, b);
    if data.close_requested || stream_state(rt, b) != StreamState::Readable {
        return Ok(());
    }
    let transferred = transfer(rt, view.buffer)?;
    if let Some(first) = ctl(rt, b).pending_pull_intos.front().copied() {
        if rt.is_detached_buffer(first.buffer) {
            return Err(invalid_state(rt, "Destination ArrayBuffer is detached"));
        }
        invalidate_byob_request(rt, b);
        let moved = transfer(rt, first.buffer)?;
        ctl(rt, b).pending_pull_intos[0].buffer = moved;
        if first.kind == PullIntoType::None {
            enqueue_detached_pull_into_to_queue(rt, b);
        }
    }
    let s = ctl(rt, b).stream;
    let reader = rt.lib.streams.streams[s as usize].reader;
    match reader.map(|r| (r, rt.lib.streams.readers[r as usize].byob)) {
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3428-L3460>
        // a default reader.
        Some((r, false)) => {
            if !rt.lib.streams.readers[r as usize].read_requests.is_empty()
                && ctl(rt, b).queue_total_size > 0
            {
                // The transferred buffer is a local while the queue's drain step pulls.
                rt.holding(&[Value::Object(transferred)], |rt| {
                    process_read_requests_using_queue(rt, b)
                })?;
            }
            if rt.lib.streams.readers[r as usize].read_requests.is_empty() {
                enqueue_chunk_to_queue(rt, b, transferred, byte_offset, byte_length);
            } else {
                debug_assert!(ctl(rt, b).queue.is_empty());
                if !ctl(rt, b).pending_pull_intos.is_empty() {
                    debug_assert_eq!(ctl(rt, b).pending_pull_intos[0].kind, PullIntoType::Default);
                    shift_pending_pull_into(rt, b);
                }
                let transferred_view = rt.new_uint8_array(transferred, byte_offset, byte_length);
                let request = rt.lib.streams.readers[r as usize]
                    .read_requests
                    .pop_front()
                    .expect("a parked read");
                read_request_chunk(rt, request, transferred_view);
            }
        }
        Some((_, true)) => {
            enqueue_chunk_to_queue(rt, b, transferred, byte_offset, byte_length);
            let filled = process_pull_into_descriptors_using_queue(rt, b);
            commit_pull_into_descriptors(rt, s, &filled)?;
        }
        None => enqueue_chunk_to_queue(rt, b, transferred, byte_offset, byte_length),
    }
    call_pull_if_needed(rt, b);
    Ok(())
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3810-L3821>
/// `readableByteStreamControllerDequeueChunk`: the queue's first entry as a view, after the drain
/// step (close or pull).
pub(crate) fn byte_controller_dequeue_chunk(rt: &mut Rt, b: u32) -> Value {
    let data = ctl(rt, b);
    debug_assert!(data.queue_total_size > 0);
    let entry = data.queue.pop_front().expect("a queued chunk");
    data.queue_total_size -= entry.byte_length;
    // The entry's buffer is a local while the drain step pulls.
    rt.holding(&[Value::Object(entry.buffer)], |rt| {
        handle_queue_drain(rt, b)
    });
    rt.new_uint8_array(entry.buffer, entry.byte_offset, entry.byte_length)
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3827-L3844>
/// `readableByteStreamControllerProcessReadRequestsUsingQueue`, with Node's bug kept: it reads
/// `queueTotalSize` once, before the loop, so with more read requests than queued chunks it
/// shifts one more request (which never settles) and `readableByteStreamControllerDequeueChunk`'s
/// `assert(controller[kState].queueTotalSize > 0)` (L3811) throws ERR_INTERNAL_ASSERTION.
fn process_read_requests_using_queue(rt: &mut Rt, b: u32) -> Result<(), Value> {
    let s = ctl(rt, b).stream;
    let r = rt.lib.streams.streams[s as usize]
        .reader
        .expect("a default reader");
    let queue_total_size = ctl(rt, b).queue_total_size;
    while !rt.lib.streams.readers[r as usize].read_requests.is_empty() {
        if queue_total_size == 0 {
            return Ok(());
        }
        let request = rt.lib.streams.readers[r as usize]
            .read_requests
            .pop_front()
            .expect("a parked read");
        if ctl(rt, b).queue_total_size == 0 {
            return Err(rt.internal_assertion_error());
        }
        let held = read_request_value(rt, request);
        let chunk = rt.holding(&[held], |rt| byte_controller_dequeue_chunk(rt, b));
        read_request_chunk(rt, request, chunk);
    }
    Ok(())
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3846-L3886>
/// `readableByteStreamControllerPullSteps` (`kPull`) for a default reader's read.
pub(super) fn byte_controller_pull_steps(rt: &mut Rt, b: u32, request: ReadRequest) {
    let s = ctl(rt, b).stream;
    if ctl(rt, b).queue_total_size > 0 {
        let held = read_request_value(rt, request);
        let chunk = rt.holding(&[held], |rt| byte_controller_dequeue_chunk(rt, b));
        read_request_chunk(rt, request, chunk);
        return;
    }
    if let Some(size) = ctl(rt, b).auto_allocate_chunk_size {
        let buffer = rt.new_array_buffer(vec![0; size]);
        ctl(rt, b).pending_pull_intos.push_back(PullIntoDescriptor {
            buffer,
            buffer_byte_length: size,
            byte_offset: 0,
            byte_length: size,
            bytes_filled: 0,
            minimum_fill: 1,
            kind: PullIntoType::Default,
        });
    }
    super::add_read_request(rt, s, request);
    call_pull_if_needed(rt, b);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3221-L3299>
/// `readableByteStreamControllerPullInto`.
fn byte_controller_pull_into(
    rt: &mut Rt,
    b: u32,
    view: &Value,
    min: usize,
    request: ReadIntoRequest,
) -> Result<(), Value> {
    let v = rt.uint8_array(view).expect("a validated view");
    let (byte_offset, byte_length) = (rt.view_byte_offset(v), rt.view_length(v));
    let buffer_byte_length = rt.array_buffer_byte_length(v.buffer);
    let transferred = match transfer(rt, v.buffer) {
        Ok(t) => t,
        Err(error) => {
            read_into_request_error(rt, request, error);
            return Ok(());
        }
    };
    let mut desc = PullIntoDescriptor {
        buffer: transferred,
        buffer_byte_length,
        byte_offset,
        byte_length,
        bytes_filled: 0,
        minimum_fill: min,
        kind: PullIntoType::Byob,
    };
    let s = ctl(rt, b).stream;
    if !ctl(rt, b).pending_pull_intos.is_empty() {
        ctl(rt, b).pending_pull_intos.push_back(desc);
        add_read_into_request(rt, s, request);
        return Ok(());
    }
    if rt.lib.streams.streams[s as usize].state == StreamState::Closed {
        let empty = rt.new_uint8_array(desc.buffer, byte_offset, 0);
        read_into_request_close(rt, request, empty);
        return Ok(());
    }
    if ctl(rt, b).queue_total_size > 0 {
        if fill_pull_into_descriptor_from_queue(rt, b, &mut desc) {
            let filled = convert_pull_into_descriptor(rt, &desc)?;
            let held = [filled.clone(), read_into_request_value(rt, request)];
            rt.holding(&held, |rt| handle_queue_drain(rt, b));
            read_into_request_chunk(rt, request, filled);
            return Ok(());
        }
        if ctl(rt, b).close_requested {
            let error = invalid_state(rt, "ReadableStream closed");
            byte_controller_error(rt, b, error.clone());
            read_into_request_error(rt, request, error);
            return Ok(());
        }
    }
    // `materializePendingPullIntos(controller[kState]).push(desc)`.
    ctl(rt, b).pending_pull_intos.push_back(desc);
    add_read_into_request(rt, s, request);
    call_pull_if_needed(rt, b);
    Ok(())
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2551-L2559>
/// `readableStreamAddReadIntoRequest`.
fn add_read_into_request(rt: &mut Rt, s: u32, request: ReadIntoRequest) {
    debug_assert_ne!(
        rt.lib.streams.streams[s as usize].state,
        StreamState::Errored
    );
    if let Some(r) = rt.lib.streams.streams[s as usize].reader {
        rt.lib.streams.readers[r as usize]
            .read_into_requests
            .push_back(request);
    }
}

/// The bytes written a script passed, as Node's comparisons read a number.
///
/// FIXME: Node does not convert `bytesWritten`: a string goes through its `+`, `>` and `%` as
/// JavaScript evaluates them (`respond("x")` fills nothing and fulfils the read with an empty
/// view); here anything but a number, boolean or null is NaN and refused
/// (impl/tests/byte_streams.rs, `respond_with_a_string_is_refused`). A fractional number is
/// truncated here, where Node keeps it in `bytesFilled` and queues a zero-length remainder
/// (`bytesFilled % elementSize` is not 0), which a later default read can dequeue.
fn bytes_written_number(value: &Value) -> f64 {
    match value {
        Value::Number(n) => *n,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Null => 0.0,
        _ => f64::NAN,
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3332-L3356>
/// `readableByteStreamControllerRespond`.
fn byte_controller_respond(rt: &mut Rt, b: u32, bytes_written: &Value) -> Result<(), Value> {
    let n = bytes_written_number(bytes_written);
    let desc = ctl(rt, b).pending_pull_intos[0];
    if stream_state(rt, b) == StreamState::Closed {
        if n != 0.0 {
            return Err(invalid_arg_value(
                rt,
                "TypeError",
                "bytesWritten",
                bytes_written,
                "is invalid",
            ));
        }
    } else {
        debug_assert_eq!(stream_state(rt, b), StreamState::Readable);
        if n == 0.0 || n.is_nan() {
            return Err(invalid_arg_value(
                rt,
                "TypeError",
                "bytesWritten",
                bytes_written,
                "is invalid",
            ));
        }
        if desc.bytes_filled as f64 + n > desc.byte_length as f64 {
            return Err(invalid_arg_value(
                rt,
                "RangeError",
                "bytesWritten",
                bytes_written,
                "is invalid",
            ));
        }
    }
    let moved = transfer(rt, desc.buffer)?;
    ctl(rt, b).pending_pull_intos[0].buffer = moved;
    respond_internal(rt, b, n.max(0.0) as usize)
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3308-L3330>
/// `readableByteStreamControllerRespondInternal`.
fn respond_internal(rt: &mut Rt, b: u32, bytes_written: usize) -> Result<(), Value> {
    invalidate_byob_request(rt, b);
    if stream_state(rt, b) == StreamState::Closed {
        if bytes_written != 0 {
            return Err(invalid_state(
                rt,
                "Controller is closed but view is not zero-length",
            ));
        }
        respond_in_closed_state(rt, b)?;
    } else {
        if bytes_written == 0 {
            return Err(invalid_state(rt, "View cannot be zero-length"));
        }
        respond_in_readable_state(rt, b, bytes_written)?;
    }
    call_pull_if_needed(rt, b);
    Ok(())
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3358-L3373>
/// `readableByteStreamControllerRespondInClosedState`.
fn respond_in_closed_state(rt: &mut Rt, b: u32) -> Result<(), Value> {
    if ctl(rt, b).pending_pull_intos[0].kind == PullIntoType::None {
        shift_pending_pull_into(rt, b);
    }
    let s = ctl(rt, b).stream;
    let Some(r) = rt.lib.streams.streams[s as usize].reader else {
        return Ok(());
    };
    if !rt.lib.streams.readers[r as usize].byob {
        return Ok(());
    }
    let count = rt.lib.streams.readers[r as usize].read_into_requests.len();
    let mut filled = Vec::with_capacity(count);
    for _ in 0..count {
        if let Some(desc) = shift_pending_pull_into(rt, b) {
            filled.push(desc);
        }
    }
    commit_pull_into_descriptors(rt, s, &filled)
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3633-L3693>
/// `readableByteStreamControllerRespondInReadableState`, on the head descriptor.
fn respond_in_readable_state(rt: &mut Rt, b: u32, bytes_written: usize) -> Result<(), Value> {
    let s = ctl(rt, b).stream;
    let desc = ctl(rt, b).pending_pull_intos[0];
    if desc.bytes_filled + bytes_written > desc.byte_length {
        return Err(invalid_state_range(rt, "The buffer size is invalid"));
    }
    // readableByteStreamControllerFillHeadPullIntoDescriptor.
    debug_assert!(ctl(rt, b).byob_request.is_none());
    ctl(rt, b).pending_pull_intos[0].bytes_filled += bytes_written;
    if desc.kind == PullIntoType::None {
        enqueue_detached_pull_into_to_queue(rt, b);
        let filled = process_pull_into_descriptors_using_queue(rt, b);
        return commit_pull_into_descriptors(rt, s, &filled);
    }
    let desc = ctl(rt, b).pending_pull_intos[0];
    if desc.bytes_filled < desc.minimum_fill {
        return Ok(());
    }
    shift_pending_pull_into(rt, b);
    // (elementSize 1: no remainder to queue.)
    let filled = process_pull_into_descriptors_using_queue(rt, b);
    commit_pull_into_descriptor(rt, s, &desc)?;
    commit_pull_into_descriptors(rt, s, &filled)
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3695-L3738>
/// `readableByteStreamControllerRespondWithNewView`.
fn byte_controller_respond_with_new_view(rt: &mut Rt, b: u32, view: &Value) -> Result<(), Value> {
    let desc = ctl(rt, b).pending_pull_intos[0];
    let v = rt.uint8_array(view).expect("a validated view");
    let view_byte_length = rt.view_length(v);
    let view_byte_offset = rt.view_byte_offset(v);
    let view_buffer_byte_length = rt.array_buffer_byte_length(v.buffer);
    if stream_state(rt, b) == StreamState::Closed {
        if view_byte_length != 0 {
            return Err(invalid_state(rt, "View is not zero-length"));
        }
    } else if view_byte_length == 0 {
        return Err(invalid_state(rt, "View is zero-length"));
    }
    if desc.byte_offset + desc.bytes_filled != view_byte_offset
        || desc.bytes_filled + view_byte_length > desc.byte_length
        || desc.buffer_byte_length != view_buffer_byte_length
    {
        return Err(invalid_arg_value(
            rt,
            "RangeError",
            "view",
            view,
            "is invalid",
        ));
    }
    let moved = transfer(rt, v.buffer)?;
    ctl(rt, b).pending_pull_intos[0].buffer = moved;
    respond_internal(rt, b, view_byte_length)
}

// ---- read-into requests -------------------------------------------------

/// A read-into request's `[kChunk](chunk)`.
fn read_into_request_chunk(rt: &mut Rt, request: ReadIntoRequest, chunk: Value) {
    match request {
        ReadIntoRequest::Promise(p) => {
            let result = rt.create_iter_result(chunk, false);
            rt.resolve_promise_with(p, result);
        }
        ReadIntoRequest::Tee(t, for_branch2) => byob_tee_chunk_steps(rt, t, for_branch2, chunk),
    }
}

/// A read-into request's `[kClose](chunk)`.
pub(super) fn read_into_request_close(rt: &mut Rt, request: ReadIntoRequest, chunk: Value) {
    match request {
        ReadIntoRequest::Promise(p) => {
            let result = rt.create_iter_result(chunk, true);
            rt.resolve_promise_with(p, result);
        }
        ReadIntoRequest::Tee(t, for_branch2) => byob_tee_close_steps(rt, t, for_branch2, chunk),
    }
}

/// A read-into request's `[kError](error)`.
pub(super) fn read_into_request_error(rt: &mut Rt, request: ReadIntoRequest, error: Value) {
    match request {
        ReadIntoRequest::Promise(p) => rt.reject_promise(p, error),
        ReadIntoRequest::Tee(t, _) => rt.lib.streams.byte_tees[t as usize].reading = false,
    }
}

// ---- the operations ---------------------------------------------------

/// `controller.enqueue(chunk)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1288-L1316>.
pub fn controller_enqueue(rt: &mut Rt, controller: Value, chunk: Value) -> Completion {
    let Some(b) = byte_controller_of(rt, &controller) else {
        return Err(invalid_this(rt, "ReadableByteStreamController"));
    };
    validate_buffer(rt, &chunk, "buffer")?;
    let view = rt.uint8_array(&chunk).expect("validated");
    if rt.view_length(view) == 0 || rt.array_buffer_byte_length(view.buffer) == 0 {
        return Err(invalid_state(
            rt,
            "chunk ArrayBuffer is zero-length or detached",
        ));
    }
    if ctl(rt, b).close_requested {
        return Err(invalid_state(rt, "Controller is already closed"));
    }
    if stream_state(rt, b) != StreamState::Readable {
        return Err(invalid_state(rt, "ReadableStream is already closed"));
    }
    byte_controller_enqueue(rt, b, &chunk)?;
    Ok(Value::Undefined)
}

/// `controller.close()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1275-L1283>.
pub fn controller_close(rt: &mut Rt, controller: Value) -> Completion {
    let Some(b) = byte_controller_of(rt, &controller) else {
        return Err(invalid_this(rt, "ReadableByteStreamController"));
    };
    if ctl(rt, b).close_requested {
        return Err(invalid_state(rt, "Controller is already closed"));
    }
    if stream_state(rt, b) != StreamState::Readable {
        return Err(invalid_state(rt, "ReadableStream is already closed"));
    }
    // An ERR_INTERNAL_ASSERTION of an async iterator's close steps (its read request parked
    // twice) unwinds to here, as on a default controller.
    rt.clear_internal_assertion();
    byte_controller_close(rt, b)?;
    if let Some(e) = rt.take_internal_assertion() {
        return Err(e);
    }
    Ok(Value::Undefined)
}

/// `controller.error(e)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1318-L1322>.
pub fn controller_error(rt: &mut Rt, controller: Value, error: Value) -> Completion {
    let Some(b) = byte_controller_of(rt, &controller) else {
        return Err(invalid_this(rt, "ReadableByteStreamController"));
    };
    // An ERR_INTERNAL_ASSERTION of an async iterator's error steps unwinds to here.
    rt.clear_internal_assertion();
    byte_controller_error(rt, b, error);
    if let Some(e) = rt.take_internal_assertion() {
        return Err(e);
    }
    Ok(Value::Undefined)
}

/// `request.respond(bytesWritten)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L619-L643>.
pub fn request_respond(rt: &mut Rt, request: Value, bytes_written: Value) -> Completion {
    let Some(q) = byob_request_of(rt, &request) else {
        return Err(invalid_this(rt, "ReadableStreamBYOBRequest"));
    };
    let data = &rt.lib.streams.byob_requests[q as usize];
    let (view, controller) = (data.view.clone(), data.controller);
    let Some(b) = controller else {
        return Err(invalid_state(rt, "This BYOB request has been invalidated"));
    };
    let v = rt.uint8_array(&view).expect("a live request's view");
    if rt.is_detached_buffer(v.buffer) {
        return Err(invalid_state(rt, "Viewed ArrayBuffer is detached"));
    }
    byte_controller_respond(rt, b, &bytes_written)?;
    Ok(Value::Undefined)
}

/// `request.respondWithNewView(view)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L648-L667>.
pub fn request_respond_with_new_view(rt: &mut Rt, request: Value, view: Value) -> Completion {
    let Some(q) = byob_request_of(rt, &request) else {
        return Err(invalid_this(rt, "ReadableStreamBYOBRequest"));
    };
    let Some(b) = rt.lib.streams.byob_requests[q as usize].controller else {
        return Err(invalid_state(rt, "This BYOB request has been invalidated"));
    };
    validate_buffer(rt, &view, "view")?;
    let v = rt.uint8_array(&view).expect("validated");
    if rt.is_detached_buffer(v.buffer) {
        return Err(invalid_state(rt, "Viewed ArrayBuffer is detached"));
    }
    byte_controller_respond_with_new_view(rt, b, &view)?;
    Ok(Value::Undefined)
}

/// `stream.getReader({ mode: 'byob' })`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L371-L390>,
/// the ReadableStreamBYOBReader constructor (L1085-L1095) and `setupReadableStreamBYOBReader`
/// (L2759-L2773).
pub fn get_byob_reader(rt: &mut Rt, stream: Value) -> Completion {
    let Some(s) = stream_of(rt, &stream) else {
        return Err(invalid_this(rt, "ReadableStream"));
    };
    let r = setup_byob_reader(rt, s, &stream)?;
    let obj = alloc_host(rt, |_| Slot::ByobReader(r));
    rt.lib.streams.readers[r as usize].obj = Some(obj);
    Ok(Value::Object(obj))
}

/// `setupReadableStreamBYOBReader`: the reader's index.
fn setup_byob_reader(rt: &mut Rt, s: u32, stream: &Value) -> Result<u32, Value> {
    if rt.lib.streams.streams[s as usize].reader.is_some() {
        return Err(invalid_state(rt, "ReadableStream is locked"));
    }
    if !matches!(
        rt.lib.streams.streams[s as usize].controller,
        ControllerRef::Byte(_)
    ) {
        return Err(invalid_arg_value(
            rt,
            "TypeError",
            "stream",
            stream,
            "must be a byte stream",
        ));
    }
    let r = rt.lib.streams.readers.len() as u32;
    rt.lib.streams.readers.push(ReaderData {
        obj: None,
        stream: Some(s),
        read_requests: VecDeque::new(),
        close: None,
        byob: true,
        read_into_requests: VecDeque::new(),
    });
    rt.lib.streams.streams[s as usize].reader = Some(r);
    Ok(r)
}

/// `reader.read(view, { min })`: argument errors are rejections.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1107-L1116>
/// and `readableStreamBYOBReaderReadView`
/// (<https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2675-L2722>).
pub fn byob_reader_read(rt: &mut Rt, reader: Value, view: Value, min: Option<Value>) -> Completion {
    match read_view(rt, &reader, &view, min) {
        Ok(p) => Ok(Value::Object(p)),
        Err(error) => rejected(rt, error),
    }
}

fn read_view(
    rt: &mut Rt,
    reader: &Value,
    view: &Value,
    min: Option<Value>,
) -> Result<ObjectId, Value> {
    let Some(r) = byob_reader_of(rt, reader) else {
        return Err(invalid_this(rt, "ReadableStreamBYOBReader"));
    };
    validate_buffer(rt, view, "view")?;
    let v = rt.uint8_array(view).expect("validated");
    let view_byte_length = rt.view_length(v);
    if view_byte_length == 0 || rt.array_buffer_byte_length(v.buffer) == 0 {
        return Err(invalid_state(
            rt,
            "View or Viewed ArrayBuffer is zero-length or detached",
        ));
    }
    // `options?.min ?? 1`.
    let min = match min {
        None | Some(Value::Undefined | Value::Null) => Value::Number(1.0),
        Some(m) => m,
    };
    let Value::Number(n) = min else {
        return Err(rt.err_invalid_arg_type("options.min", "number", &min));
    };
    if !(n.is_finite() && n.fract() == 0.0) {
        return Err(invalid_arg_value(
            rt,
            "TypeError",
            "options.min",
            &min,
            "must be an integer",
        ));
    }
    if n <= 0.0 {
        return Err(invalid_arg_value(
            rt,
            "TypeError",
            "options.min",
            &min,
            "must be greater than 0",
        ));
    }
    if n > view_byte_length as f64 {
        return Err(rt.err_out_of_range("options.min", "<= view.length", n));
    }
    let Some(s) = rt.lib.streams.readers[r as usize].stream else {
        return Err(invalid_state(rt, "The reader is not attached to a stream"));
    };
    let promise = rt.new_promise();
    rt.holding(&[Value::Object(promise)], |rt| {
        byob_reader_read_into(rt, s, view, n as usize, ReadIntoRequest::Promise(promise))
    })?;
    Ok(promise)
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2724-L2739>
/// `readableStreamBYOBReaderRead`.
fn byob_reader_read_into(
    rt: &mut Rt,
    s: u32,
    view: &Value,
    min: usize,
    request: ReadIntoRequest,
) -> Result<(), Value> {
    let stream = &mut rt.lib.streams.streams[s as usize];
    stream.disturbed = true;
    if stream.state == StreamState::Errored {
        let error = stream.stored_error.clone();
        read_into_request_error(rt, request, error);
        return Ok(());
    }
    let ControllerRef::Byte(b) = stream.controller else {
        unreachable!("a BYOB reader locks a byte stream");
    };
    byte_controller_pull_into(rt, b, view, min, request)
}

/// `reader.releaseLock()` of a BYOB reader.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1118-L1124>
/// and `readableStreamBYOBReaderRelease` (L2635-L2647).
pub fn byob_reader_release_lock(rt: &mut Rt, reader: Value) -> Completion {
    let Some(r) = byob_reader_of(rt, &reader) else {
        return Err(invalid_this(rt, "ReadableStreamBYOBReader"));
    };
    byob_reader_release(rt, r);
    Ok(Value::Undefined)
}

/// `readableStreamBYOBReaderRelease`.
fn byob_reader_release(rt: &mut Rt, r: u32) {
    if !reader_generic_release(rt, r) {
        return;
    }
    if rt.lib.streams.readers[r as usize]
        .read_into_requests
        .is_empty()
    {
        return;
    }
    let error = releasing_error(rt);
    while let Some(request) = rt.lib.streams.readers[r as usize]
        .read_into_requests
        .pop_front()
    {
        read_into_request_error(rt, request, error.clone());
    }
}

/// `reader.cancel(reason)` of a BYOB reader.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1140-L1149>.
pub fn byob_reader_cancel(rt: &mut Rt, reader: Value, reason: Option<Value>) -> Completion {
    let Some(r) = byob_reader_of(rt, &reader) else {
        let error = invalid_this(rt, "ReadableStreamBYOBReader");
        return rejected(rt, error);
    };
    let Some(s) = rt.lib.streams.readers[r as usize].stream else {
        let error = invalid_state(rt, "The reader is not attached to a stream");
        return rejected(rt, error);
    };
    readable_stream_cancel(rt, s, reason.unwrap_or(Value::Undefined))
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1244-L1263>
/// the `byobRequest` getter: made from the head descriptor on first read, kept until invalidated.
fn byob_request(rt: &mut Rt, b: u32) -> Value {
    if ctl(rt, b).byob_request.is_none() {
        if let Some(desc) = ctl(rt, b).pending_pull_intos.front().copied() {
            let view = rt.new_uint8_array(
                desc.buffer,
                desc.byte_offset + desc.bytes_filled,
                desc.byte_length - desc.bytes_filled,
            );
            // `createReadableStreamBYOBRequest(this, view)`.
            let q = rt.lib.streams.byob_requests.len() as u32;
            let obj = alloc_host(rt, |_| Slot::ByobRequest(q));
            rt.lib.streams.byob_requests.push(ByobRequestData {
                obj,
                controller: Some(b),
                view,
            });
            ctl(rt, b).byob_request = Some(q);
        }
    }
    match ctl(rt, b).byob_request {
        Some(q) => Value::Object(rt.lib.streams.byob_requests[q as usize].obj),
        None => Value::Null,
    }
}

/// A property of a byte stream object, or `None` when `obj` is none.
pub(super) fn get(rt: &mut Rt, obj: ObjectId, prop: &str) -> Option<Completion> {
    Some(Ok(match rt.lib.slot(obj) {
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1269-L1273>
        Slot::ByteController(b) if prop == "desiredSize" => desired_size(rt, b),
        Slot::ByteController(b) if prop == "byobRequest" => byob_request(rt, b),
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1130-L1134>
        Slot::ByobReader(r) if prop == "closed" => Value::Object(reader_closed_promise(rt, r)),
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L610-L614>
        Slot::ByobRequest(q) if prop == "view" => {
            rt.lib.streams.byob_requests[q as usize].view.clone()
        }
        Slot::ByteController(_) | Slot::ByobReader(_) | Slot::ByobRequest(_) => Value::Undefined,
        _ => return None,
    }))
}

/// What a byte stream object is, or `None` when `obj` is none.
pub(super) fn host_class(rt: &Rt, obj: ObjectId) -> Option<HostClass> {
    match rt.lib.slot(obj) {
        Slot::ByteController(_) => Some(HostClass::ReadableByteStreamController),
        Slot::ByobReader(_) => Some(HostClass::ReadableStreamBYOBReader),
        Slot::ByobRequest(_) => Some(HostClass::ReadableStreamBYOBRequest),
        _ => None,
    }
}

// ---- the byte tee -------------------------------------------------------

/// `stream.tee()` of a byte stream.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2076-L2371>
/// `readableByteStreamTee`: the closures share one [`ByteTeeData`]; the branches' algorithms are
/// [`ByteAlgorithm::Tee`], the default read request [`ReadRequest::ByteTee`], the BYOB one
/// [`ReadIntoRequest::Tee`], and the error watcher [`Closed::ByteTeeHook`].
pub(super) fn byte_tee(rt: &mut Rt, s: u32) -> Completion {
    let reader = setup_default_reader(rt, s)?;
    let t = rt.lib.streams.byte_tees.len() as u32;
    // Seed ("The tee's cancel promise is materialized by the first branch cancel only"): no
    // `cancelDeferred` yet.
    let tee_obj = alloc_host(rt, |_| Slot::ByteTeeState(t));
    rt.lib.streams.byte_tees.push(ByteTeeData {
        obj: tee_obj,
        stream: s,
        reader,
        reading: false,
        read_again: [false; 2],
        canceled: [false; 2],
        reasons: [Value::Undefined, Value::Undefined],
        branches: [0, 0],
        cancel: CancelPromise::Unmade { settled: false },
        pending_chunk: Value::Undefined,
    });
    // `createReadableByteStream(nonOpCallback, pullNAlgorithm, cancelNAlgorithm)`:
    // highWaterMark 0, no autoAllocateChunkSize; with a pull algorithm the post-start step stays
    // a microtask.
    let mut objects = [Value::Undefined, Value::Undefined];
    for branch in 0..2u8 {
        let algorithm = ByteAlgorithm::Tee(t, branch);
        let (obj, b) = alloc_byte_stream(rt, Value::Undefined, algorithm, algorithm, 0.0, None);
        rt.lib.streams.byte_tees[t as usize].branches[branch as usize] = b;
        setup_byte_controller(rt, b, None)?;
        objects[branch as usize] = Value::Object(obj);
    }
    forward_reader_error(rt, t, reader);
    let [branch1, branch2] = objects;
    Ok(rt.create_array_from_list(vec![branch1, branch2]))
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2115-L2126>
/// `forwardReaderError(thisReader)` through `watchReaderErrored` (L1565-L1573).
///
/// Seed ("Closed watchers as records instead of promises"): the tee holds the only reference to
/// each reader it makes, so the watcher is the reader's closed record ([`Closed::ByteTeeHook`]),
/// or, for an errored stream, queued at once where the rejected promise's reaction would be.
fn forward_reader_error(rt: &mut Rt, t: u32, r: u32) {
    let s = rt.lib.streams.byte_tees[t as usize].stream;
    let stream = &rt.lib.streams.streams[s as usize];
    if stream.state == StreamState::Errored {
        let error = stream.stored_error.clone();
        byte_tee_hook_reject(rt, t, r, error);
        return;
    }
    rt.lib.streams.readers[r as usize].close = Some(Closed::ByteTeeHook(t, r));
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1556-L1559>
/// `ClosedPromiseHook.prototype.reject`: the watcher of reader `r`, a microtask from now.
pub(super) fn byte_tee_hook_reject(rt: &mut Rt, t: u32, r: u32, error: Value) {
    let tee = Value::Object(byte_tee_obj(rt, t));
    rt.enqueue_microtask(Job::Task(captured(vec![tee, error.clone()], move |rt| {
        // `if (thisReader !== reader) return;`
        if rt.lib.streams.byte_tees[t as usize].reader != r {
            return Ok(Value::Undefined);
        }
        let [b1, b2] = rt.lib.streams.byte_tees[t as usize].branches;
        byte_controller_error(rt, b1, error.clone());
        byte_controller_error(rt, b2, error);
        if rt.lib.streams.byte_tees[t as usize].canceled != [true, true] {
            super::settle_cancel_promise(rt, AnyTee::Byte(t));
        }
        Ok(Value::Undefined)
    })));
}

/// `cloneAsUint8Array(view)` (util.js L124-L131): a view of a copy of the bytes.
fn clone_as_uint8_array(rt: &mut Rt, chunk: &Value) -> Value {
    let v = rt.uint8_array(chunk).expect("a chunk is a view");
    let copy = rt.array_buffer_slice(v.buffer, v.byte_offset, v.byte_offset + v.length);
    let length = rt.array_buffer_byte_length(copy);
    rt.new_uint8_array(copy, 0, length)
}

/// The chunk for the second branch: a clone, or (mutant byte-tee-no-clone) the same view.
fn clone_for_branch(rt: &mut Rt, chunk: &Value) -> Value {
    if rt.lib.mutant == Some(Mutant::ByteTeeNoClone) {
        return chunk.clone();
    }
    clone_as_uint8_array(rt, chunk)
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2313-L2341>
/// `pull1Algorithm` and `pull2Algorithm`.
fn byte_tee_pull(rt: &mut Rt, t: u32, branch: usize) {
    let tee = &mut rt.lib.streams.byte_tees[t as usize];
    if tee.reading {
        tee.read_again[branch] = true;
        return;
    }
    tee.reading = true;
    let b = tee.branches[branch];
    // `branchN[kState].controller.byobRequest`: the getter, which makes the request.
    let request = byob_request(rt, b);
    if matches!(request, Value::Null) {
        pull_with_default_reader(rt, t);
    } else {
        let q = byob_request_of(rt, &request).expect("a BYOB request");
        let view = rt.lib.streams.byob_requests[q as usize].view.clone();
        pull_with_byob_reader(rt, t, view, branch == 1);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2177-L2212>
/// `pullWithDefaultReader`: swaps a BYOB reader for a default one, then reads with the shared
/// `defaultReadRequest`.
fn pull_with_default_reader(rt: &mut Rt, t: u32) {
    let tee = &rt.lib.streams.byte_tees[t as usize];
    let (s, r) = (tee.stream, tee.reader);
    if rt.lib.streams.readers[r as usize].byob {
        byob_reader_release(rt, r);
        let reader = setup_default_reader(rt, s).expect("the released stream is unlocked");
        rt.lib.streams.byte_tees[t as usize].reader = reader;
        forward_reader_error(rt, t, reader);
    }
    default_reader_read(rt, s, ReadRequest::ByteTee(t));
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2185-L2188>
/// the default read request's chunk steps: `pendingChunk = chunk`, then `forwardChunk` a
/// microtask later.
pub(super) fn byte_tee_chunk_steps(rt: &mut Rt, t: u32, chunk: Value) {
    rt.lib.streams.byte_tees[t as usize].pending_chunk = chunk;
    let tee = Value::Object(byte_tee_obj(rt, t));
    rt.enqueue_microtask(Job::Task(captured(vec![tee], move |rt| {
        forward_chunk(rt, t);
        Ok(Value::Undefined)
    })));
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2132-L2174>
/// `forwardChunk`.
fn forward_chunk(rt: &mut Rt, t: u32) {
    let tee = &mut rt.lib.streams.byte_tees[t as usize];
    tee.read_again = [false; 2];
    let chunk1 = std::mem::replace(&mut tee.pending_chunk, Value::Undefined);
    let mut chunk2 = chunk1.clone();
    if tee.canceled == [false, false] {
        // (A clone of a live buffer cannot throw here.)
        chunk2 = clone_for_branch(rt, &chunk1);
    }
    for (branch, chunk) in [(0, chunk1), (1, chunk2)] {
        let tee = &rt.lib.streams.byte_tees[t as usize];
        if !tee.canceled[branch] {
            let b = tee.branches[branch];
            // An enqueue that throws rejects the promise of forwardChunk's reaction to
            // `kResolvedPromise`, which nothing handles, and skips the rest.
            if let Err(error) = byte_controller_enqueue(rt, b, &chunk) {
                rt.promise_reject_new(error);
                return;
            }
        }
    }
    tee_read_again(rt, t);
}

/// `reading = false`, then the read asked for meanwhile (branch 1's first).
fn tee_read_again(rt: &mut Rt, t: u32) {
    let tee = &mut rt.lib.streams.byte_tees[t as usize];
    tee.reading = false;
    if tee.read_again[0] {
        byte_tee_pull(rt, t, 0);
    } else if tee.read_again[1] {
        byte_tee_pull(rt, t, 1);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2189-L2207>
/// the default read request's close steps.
pub(super) fn byte_tee_close_steps(rt: &mut Rt, t: u32) {
    rt.lib.streams.byte_tees[t as usize].reading = false;
    for branch in 0..2 {
        let tee = &rt.lib.streams.byte_tees[t as usize];
        if !tee.canceled[branch] {
            let b = tee.branches[branch];
            let _ = byte_controller_close(rt, b);
        }
    }
    for branch in 0..2 {
        let b = rt.lib.streams.byte_tees[t as usize].branches[branch];
        if !ctl(rt, b).pending_pull_intos.is_empty() {
            let _ = byte_controller_respond(rt, b, &Value::Number(0.0));
        }
    }
    if rt.lib.streams.byte_tees[t as usize].canceled != [true, true] {
        super::settle_cancel_promise(rt, AnyTee::Byte(t));
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2214-L2311>
/// `pullWithBYOBReader(view, forBranch2)`: swaps a default reader for a BYOB one, then reads into
/// the branch's BYOB request view with `min` 1.
fn pull_with_byob_reader(rt: &mut Rt, t: u32, view: Value, for_branch2: bool) {
    let tee = &rt.lib.streams.byte_tees[t as usize];
    let (s, r) = (tee.stream, tee.reader);
    if !rt.lib.streams.readers[r as usize].byob {
        super::default_reader_release(rt, r);
        let stream = Value::Undefined;
        let reader = setup_byob_reader(rt, s, &stream).expect("the released stream is unlocked");
        rt.lib.streams.byte_tees[t as usize].reader = reader;
        forward_reader_error(rt, t, reader);
    }
    let _ = byob_reader_read_into(rt, s, &view, 1, ReadIntoRequest::Tee(t, for_branch2));
}

/// The BYOB branch and the other branch of a BYOB read: (index, byte controller) each.
fn byob_branches(rt: &Rt, t: u32, for_branch2: bool) -> ((usize, u32), (usize, u32)) {
    let tee = &rt.lib.streams.byte_tees[t as usize];
    let (byob, other) = if for_branch2 { (1, 0) } else { (0, 1) };
    ((byob, tee.branches[byob]), (other, tee.branches[other]))
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2224-L2273>
/// the read-into request's chunk steps: a `queueMicrotask`, then the BYOB branch responds with the
/// chunk and the other branch gets a clone.
fn byob_tee_chunk_steps(rt: &mut Rt, t: u32, for_branch2: bool, chunk: Value) {
    let tee = Value::Object(byte_tee_obj(rt, t));
    rt.enqueue_microtask(Job::Task(captured(vec![tee, chunk.clone()], move |rt| {
        rt.lib.streams.byte_tees[t as usize].read_again = [false; 2];
        let ((byob, byob_b), (other, other_b)) = byob_branches(rt, t, for_branch2);
        let canceled = rt.lib.streams.byte_tees[t as usize].canceled;
        let (byob_canceled, other_canceled) = (canceled[byob], canceled[other]);
        if !other_canceled {
            let cloned = clone_for_branch(rt, &chunk);
            // A throw here is the `queueMicrotask` callback's: reported as uncaught.
            if !byob_canceled {
                byte_controller_respond_with_new_view(rt, byob_b, &chunk)?;
            }
            byte_controller_enqueue(rt, other_b, &cloned)?;
        } else if !byob_canceled {
            byte_controller_respond_with_new_view(rt, byob_b, &chunk)?;
        }
        tee_read_again(rt, t);
        Ok(Value::Undefined)
    })));
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2274-L2306>
/// the read-into request's close steps.
fn byob_tee_close_steps(rt: &mut Rt, t: u32, for_branch2: bool, chunk: Value) {
    rt.lib.streams.byte_tees[t as usize].reading = false;
    let ((byob, byob_b), (other, other_b)) = byob_branches(rt, t, for_branch2);
    let canceled = rt.lib.streams.byte_tees[t as usize].canceled;
    let (byob_canceled, other_canceled) = (canceled[byob], canceled[other]);
    if !byob_canceled {
        let _ = byte_controller_close(rt, byob_b);
    }
    if !other_canceled {
        let _ = byte_controller_close(rt, other_b);
    }
    if !matches!(chunk, Value::Undefined) {
        if !byob_canceled {
            let _ = byte_controller_respond_with_new_view(rt, byob_b, &chunk);
        }
        if !other_canceled && !ctl(rt, other_b).pending_pull_intos.is_empty() {
            let _ = byte_controller_respond(rt, other_b, &Value::Number(0.0));
        }
    }
    if !byob_canceled || !other_canceled {
        super::settle_cancel_promise(rt, AnyTee::Byte(t));
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2343-L2361>
/// `cancel1Algorithm` and `cancel2Algorithm`.
fn byte_tee_cancel(rt: &mut Rt, t: u32, branch: usize, reason: Value) -> ObjectId {
    let tee = &mut rt.lib.streams.byte_tees[t as usize];
    tee.canceled[branch] = true;
    tee.reasons[branch] = reason;
    let promise = super::cancel_promise_record(rt, AnyTee::Byte(t));
    let tee = &rt.lib.streams.byte_tees[t as usize];
    if tee.canceled[1 - branch] {
        let (s, reasons) = (tee.stream, tee.reasons.clone());
        let composite = rt.create_array_from_list(reasons.to_vec());
        let cancelled = readable_stream_cancel(rt, s, composite).unwrap_or(Value::Undefined);
        super::resolve_cancel_promise(rt, AnyTee::Byte(t), cancelled);
    }
    promise
}

// ---- the collector's view --------------------------------------------------

/// A byte controller's object.
pub(super) fn byte_controller_obj(rt: &Rt, b: u32) -> ObjectId {
    rt.lib.streams.byte_controllers[b as usize].obj
}

/// The hidden object standing for a byte tee's shared state.
pub(super) fn byte_tee_obj(rt: &Rt, t: u32) -> ObjectId {
    rt.lib.streams.byte_tees[t as usize].obj
}

/// What a read-into request holds, as one value.
fn read_into_request_value(rt: &Rt, request: ReadIntoRequest) -> Value {
    Value::Object(match request {
        ReadIntoRequest::Promise(p) => p,
        ReadIntoRequest::Tee(t, _) => byte_tee_obj(rt, t),
    })
}

/// A parked read-into request's edge.
pub(super) fn trace_read_into_request(rt: &Rt, request: ReadIntoRequest, edges: &mut Vec<Value>) {
    edges.push(read_into_request_value(rt, request));
}

/// The strong edges of a byte stream object; false when `slot` is none.
pub(super) fn trace(rt: &Rt, slot: Slot, edges: &mut Vec<Value>) -> bool {
    let algorithm = |a: ByteAlgorithm, edges: &mut Vec<Value>| match a {
        ByteAlgorithm::Source(f) => edges.push(Value::Object(f)),
        ByteAlgorithm::Tee(t, _) => edges.push(Value::Object(byte_tee_obj(rt, t))),
        ByteAlgorithm::NonOp | ByteAlgorithm::Cleared => {}
    };
    match slot {
        Slot::ByteController(b) => {
            let data = &rt.lib.streams.byte_controllers[b as usize];
            edges.push(Value::Object(stream_obj(rt, data.stream)));
            edges.push(data.source.clone());
            algorithm(data.pull, edges);
            algorithm(data.cancel, edges);
            if let Some(q) = data.byob_request {
                edges.push(Value::Object(rt.lib.streams.byob_requests[q as usize].obj));
            }
            if let Some((f, r)) = data.pull_reactions {
                edges.push(Value::Object(f));
                edges.push(Value::Object(r));
            }
            edges.extend(data.queue.iter().map(|e| Value::Object(e.buffer)));
            edges.extend(
                data.pending_pull_intos
                    .iter()
                    .map(|d| Value::Object(d.buffer)),
            );
        }
        Slot::ByobRequest(q) => {
            let request = &rt.lib.streams.byob_requests[q as usize];
            if let Some(b) = request.controller {
                edges.push(Value::Object(byte_controller_obj(rt, b)));
            }
            edges.push(request.view.clone());
        }
        Slot::ByteTeeState(t) => {
            let tee = &rt.lib.streams.byte_tees[t as usize];
            edges.push(Value::Object(stream_obj(rt, tee.stream)));
            trace_reader(rt, tee.reader, edges);
            edges.extend(tee.reasons.iter().cloned());
            for &b in &tee.branches {
                let branch = &rt.lib.streams.byte_controllers[b as usize];
                edges.push(Value::Object(stream_obj(rt, branch.stream)));
            }
            trace_cancel_promise(tee.cancel, edges);
            edges.push(tee.pending_chunk.clone());
        }
        _ => return false,
    }
    true
}

/// Forgets the records of collected byte stream objects.
pub(super) fn forget(rt: &mut Rt, slot: Slot) {
    let st = &mut rt.lib.streams;
    match slot {
        Slot::ByteController(b) => {
            let data = &mut st.byte_controllers[b as usize];
            data.source = Value::Undefined;
            data.pull = ByteAlgorithm::Cleared;
            data.cancel = ByteAlgorithm::Cleared;
            data.pull_reactions = None;
            data.byob_request = None;
            data.queue = VecDeque::new();
            data.pending_pull_intos = VecDeque::new();
        }
        Slot::ByobRequest(q) => {
            let request = &mut st.byob_requests[q as usize];
            request.controller = None;
            request.view = Value::Null;
        }
        Slot::ByteTeeState(t) => {
            let tee = &mut st.byte_tees[t as usize];
            tee.reasons = [Value::Undefined, Value::Undefined];
            tee.pending_chunk = Value::Undefined;
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    //! The seed's items for byte streams, which no log shows: when the
    //! started flag is set, what a byte tee allocates, and its hooks.

    use nodesem_lang::RunConfig;
    use nodesem_runtime::{Library, ObjectData, QueuingStrategy, Runtime, UnderlyingSource, Value};

    use super::super::{CancelPromise, Closed};
    use crate::Impl;

    fn source(rt: &mut super::Rt, pull: bool) -> UnderlyingSource {
        let pull = pull.then(|| rt.native_function(|_, _, _| Ok(Value::Undefined)));
        UnderlyingSource {
            object: Value::Object(rt.heap.alloc(ObjectData::Plain)),
            start: None,
            pull,
            cancel: None,
        }
    }

    /// A new byte stream: whether its controller is started when the
    /// constructor returns, and the heap objects made.
    fn after_construction(pull: bool) -> (bool, usize) {
        let mut rt = Runtime::<Impl>::pooled(RunConfig::default());
        let src = source(&mut rt, pull);
        let before = rt.heap.len();
        Impl::new_readable_byte_stream(&mut rt, src, QueuingStrategy::default(), None).unwrap();
        let made = rt.heap.len() - before;
        (rt.lib.streams.byte_controllers[0].started, made)
    }

    #[test]
    fn a_byte_source_without_pull_starts_synchronously() {
        // Seed ("Byte streams get the same treatment"): the stream and the
        // controller, nothing for a post-start step.
        assert_eq!(after_construction(false), (true, 2));
        // With pull(): the microtask (a native task, no heap object), not run yet.
        assert_eq!(after_construction(true), (false, 2));
    }

    #[test]
    fn a_byte_tee_makes_its_cancel_promise_on_the_first_branch_cancel_and_hooks_its_reader() {
        let mut rt = Runtime::<Impl>::pooled(RunConfig::default());
        let src = source(&mut rt, false);
        let s =
            Impl::new_readable_byte_stream(&mut rt, src, QueuingStrategy::default(), None).unwrap();
        let before = rt.heap.len();
        let branches = Impl::readable_tee(&mut rt, s).unwrap();
        // Two streams, two controllers, the array and the hidden object
        // standing for the closures' shared state (for the collector): no
        // promise, no resolvers, no reader object, no watcher reaction.
        assert_eq!(rt.heap.len() - before, 6);
        let tee = &rt.lib.streams.byte_tees[0];
        assert!(matches!(
            tee.cancel,
            CancelPromise::Unmade { settled: false }
        ));
        let r = tee.reader;
        assert!(matches!(
            rt.lib.streams.readers[r as usize].close,
            Some(Closed::ByteTeeHook(0, hooked)) if hooked == r
        ));
        let ObjectData::Array(items) = rt.heap.get(branches.as_object().unwrap()) else {
            panic!("not an array");
        };
        let b1 = items[0].clone();
        Impl::readable_cancel(&mut rt, b1, None).unwrap();
        assert!(matches!(
            rt.lib.streams.byte_tees[0].cancel,
            CancelPromise::Made {
                resolved: false,
                ..
            }
        ));
    }

    #[test]
    fn wrong_kinds_get_node_errors_not_panics() {
        let mut rt = Runtime::<Impl>::pooled(RunConfig::default());
        let plain = Value::Object(rt.heap.alloc(ObjectData::Plain));
        for v in [Value::Undefined, Value::Number(1.0), plain] {
            assert!(Impl::byte_controller_enqueue(&mut rt, v.clone(), Value::Null).is_err());
            assert!(Impl::byte_controller_close(&mut rt, v.clone()).is_err());
            assert!(Impl::byte_controller_error(&mut rt, v.clone(), Value::Null).is_err());
            assert!(Impl::byob_request_respond(&mut rt, v.clone(), Value::Null).is_err());
            assert!(
                Impl::byob_request_respond_with_new_view(&mut rt, v.clone(), Value::Null).is_err()
            );
            assert!(Impl::readable_get_byob_reader(&mut rt, v.clone()).is_err());
            assert!(Impl::byob_reader_release_lock(&mut rt, v.clone()).is_err());
            for p in [
                Impl::byob_reader_read(&mut rt, v.clone(), Value::Null, None),
                Impl::byob_reader_cancel(&mut rt, v.clone(), None),
            ] {
                assert!(rt.is_promise(&p.unwrap()));
            }
        }
    }
}
