//! The Streams Standard's byte streams, transcribed as [`crate::streams`]
//! transcribes default streams: `ReadableByteStreamController`,
//! `ReadableStreamBYOBRequest`, `ReadableStreamBYOBReader`, the pull-into
//! descriptors that carry a reader's buffer through the controller, a
//! default reader's reads of a byte stream (each chunk a Uint8Array), and
//! ReadableByteStreamTee (the tee of a byte stream, which gives the second
//! branch a copy of each chunk, CloneAsUint8Array). Each abstract operation
//! is a function named after it with its steps quoted above the code; each
//! internal slot is a field named after it.
//!
//! It exists apart from `streams.rs` because it is as large again and
//! touches the default stream's code only where the spec does: a stream's
//! [[controller]] is a default or a byte controller (its [[CancelSteps]],
//! [[PullSteps]] and [[ReleaseSteps]] dispatch here), a stream's [[reader]]
//! is a default or a BYOB reader (ReadableStreamCancel, ReadableStreamClose
//! and ReadableStreamError handle both), and ReadableStreamTee dispatches
//! to the byte tee.
//!
//! Streams Standard: <https://streams.spec.whatwg.org/#rbs-controller-class>.
//! Node 26.12.1: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js>.
//!
//! MODEL: scenarios make only Uint8Arrays, so every view constructor is
//! %Uint8Array% and every element size 1 (the remainder steps never have
//! anything left over), and no buffer is a SharedArrayBuffer or resizable.
//!
//! The departures of Node 26.12.1 that scenarios can observe, each marked
//! `NODE:` where it happens: the TypeErrors and RangeErrors the spec leaves
//! unworded are Node's coded errors (ERR_INVALID_STATE,
//! ERR_INVALID_ARG_VALUE, ERR_OUT_OF_RANGE) with Node's messages; a pull
//! that returns a promise is taken as it is (as for default streams); and
//! an enqueue that fulfils waiting default reads from a queue holding fewer
//! chunks than there are reads throws Node's ERR_INTERNAL_ASSERTION and
//! loses a read (ReadableByteStreamControllerProcessReadRequestsUsingQueue).

use std::collections::VecDeque;

use nodesem_runtime::gc::Captures;
use nodesem_runtime::{
    Completion, HostClass, Job, ObjectData, ObjectId, Runtime, Task, UnderlyingSource, Value,
};

use crate::slots::Slots;
use crate::streams::{
    a_new_promise, a_promise_rejected_with, a_promise_resolved_with,
    acquire_readable_stream_default_reader, err_invalid_state, extract_high_water_mark,
    initialize_readable_stream, is_readable_stream_locked, read_request_chunk_steps,
    readable_stream_add_read_request, readable_stream_cancel, readable_stream_close,
    readable_stream_default_reader_read, readable_stream_default_reader_release,
    readable_stream_error, readable_stream_fulfill_read_request,
    readable_stream_get_num_read_requests, readable_stream_has_default_reader,
    readable_stream_reader_generic_cancel, readable_stream_reader_generic_initialize,
    readable_stream_reader_generic_release, reject, releasing_error, resolve, stream,
    stream_controller, stream_mut, stream_operand, upon_settlement, ReadRequest,
    ReadableStreamState,
};
use crate::Model;

type Rt = Runtime<Model>;

/// A byte controller's [[pullAlgorithm]].
#[derive(Clone, Copy, Debug)]
pub enum BytePullAlgorithm {
    /// The source had no `pull`: "an algorithm that returns a promise
    /// resolved with undefined".
    ResolveUndefined,
    /// Invoking the source's `pull` with the source as `this`.
    Invoke {
        /// The method.
        method: ObjectId,
    },
    /// The pull1Algorithm of a ReadableByteStreamTee.
    Tee1 {
        /// The tee.
        tee: ByteTeeId,
    },
    /// The pull2Algorithm of a ReadableByteStreamTee.
    Tee2 {
        /// The tee.
        tee: ByteTeeId,
    },
}

/// A byte controller's [[cancelAlgorithm]].
#[derive(Clone, Copy, Debug)]
pub enum ByteCancelAlgorithm {
    /// The source had no `cancel`: "an algorithm that returns a promise
    /// resolved with undefined".
    ResolveUndefined,
    /// Invoking the source's `cancel` with the source as `this`.
    Invoke {
        /// The method.
        method: ObjectId,
    },
    /// The cancel1Algorithm of a ReadableByteStreamTee.
    Tee1 {
        /// The tee.
        tee: ByteTeeId,
    },
    /// The cancel2Algorithm of a ReadableByteStreamTee.
    Tee2 {
        /// The tee.
        tee: ByteTeeId,
    },
}

/// A readable byte stream queue entry
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-queue-entry>).
#[derive(Clone, Copy, Debug)]
pub struct ReadableByteStreamQueueEntry {
    /// buffer: an ArrayBuffer, transferred from the enqueued view.
    pub buffer: ObjectId,
    /// byte offset.
    pub byte_offset: usize,
    /// byte length.
    pub byte_length: usize,
}

/// A pull-into descriptor's reader type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReaderType {
    /// "default": made by [[PullSteps]] for a default reader
    /// (autoAllocateChunkSize).
    Default,
    /// "byob": made by a BYOB reader's read.
    Byob,
    /// "none": its reader was released.
    None,
}

/// A pull-into descriptor
/// (<https://streams.spec.whatwg.org/#pull-into-descriptor>).
///
/// MODEL: view constructor is always %Uint8Array% and element size 1.
#[derive(Clone, Copy, Debug)]
pub struct PullIntoDescriptor {
    /// buffer.
    pub buffer: ObjectId,
    /// buffer byte length.
    pub buffer_byte_length: usize,
    /// byte offset.
    pub byte_offset: usize,
    /// byte length.
    pub byte_length: usize,
    /// bytes filled.
    pub bytes_filled: usize,
    /// minimum fill.
    pub minimum_fill: usize,
    /// element size.
    pub element_size: usize,
    /// reader type.
    pub reader_type: ReaderType,
}

/// The internal slots of a ReadableByteStreamController
/// (<https://streams.spec.whatwg.org/#rbs-controller-internal-slots>).
#[derive(Debug)]
pub struct ReadableByteStreamController {
    /// [[autoAllocateChunkSize]].
    pub auto_allocate_chunk_size: Option<usize>,
    /// [[byobRequest]]: a ReadableStreamBYOBRequest, or null.
    pub byob_request: Option<ObjectId>,
    /// [[cancelAlgorithm]]: undefined once cleared.
    pub cancel_algorithm: Option<ByteCancelAlgorithm>,
    /// [[closeRequested]].
    pub close_requested: bool,
    /// [[pullAgain]].
    pub pull_again: bool,
    /// [[pullAlgorithm]]: undefined once cleared.
    pub pull_algorithm: Option<BytePullAlgorithm>,
    /// [[pulling]].
    pub pulling: bool,
    /// [[pendingPullIntos]].
    pub pending_pull_intos: VecDeque<PullIntoDescriptor>,
    /// [[queue]].
    pub queue: VecDeque<ReadableByteStreamQueueEntry>,
    /// [[queueTotalSize]], in bytes.
    pub queue_total_size: usize,
    /// [[started]].
    pub started: bool,
    /// [[strategyHWM]].
    pub strategy_hwm: f64,
    /// [[stream]].
    pub stream: ObjectId,
    /// The underlying source object: the callback this value of the
    /// source's methods.
    pub underlying_source: Value,
}

impl ReadIntoRequest {
    /// What the read-into request holds: its promise, or the byte tee's
    /// hidden object.
    pub(crate) fn holds(&self) -> Value {
        Value::Object(match *self {
            ReadIntoRequest::Read { promise } => promise,
            ReadIntoRequest::ByteTee { tee, .. } => tee.0,
        })
    }
}

/// A read-into request (<https://streams.spec.whatwg.org/#read-into-request>).
#[derive(Clone, Copy, Debug)]
pub enum ReadIntoRequest {
    /// The read-into request of a BYOB reader's `read()`, which settles
    /// `promise`.
    Read {
        /// The promise `read()` returned.
        promise: ObjectId,
    },
    /// The read-into request of a byte tee's pullWithBYOBReader.
    ByteTee {
        /// The tee.
        tee: ByteTeeId,
        /// forBranch2.
        for_branch2: bool,
    },
}

/// The internal slots of a ReadableStreamBYOBReader
/// (<https://streams.spec.whatwg.org/#byob-reader-internal-slots>).
#[derive(Debug)]
pub struct ReadableStreamBYOBReader {
    /// [[closedPromise]].
    pub closed_promise: ObjectId,
    /// [[stream]]: undefined once released.
    pub stream: Option<ObjectId>,
    /// [[readIntoRequests]].
    pub read_into_requests: VecDeque<ReadIntoRequest>,
}

/// The internal slots of a ReadableStreamBYOBRequest
/// (<https://streams.spec.whatwg.org/#rs-byob-request-internal-slots>).
#[derive(Debug)]
pub struct ReadableStreamBYOBRequest {
    /// [[controller]]: undefined once invalidated.
    pub controller: Option<ObjectId>,
    /// [[view]]: a Uint8Array, or null once invalidated.
    pub view: Value,
}

/// Which ReadableByteStreamTee: the hidden heap object that stands for its
/// variables (the closure context of Node's `readableByteStreamTee`), see
/// [`crate::streams::new_record_object`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteTeeId(pub(crate) ObjectId);

/// The variables the algorithms of one ReadableByteStreamTee(stream) share
/// (<https://streams.spec.whatwg.org/#abstract-opdef-readablebytestreamtee>).
#[derive(Debug)]
pub struct ByteTee {
    /// stream.
    pub stream: ObjectId,
    /// reader: a default reader, or a BYOB reader after a BYOB pull.
    pub reader: ObjectId,
    /// reading.
    pub reading: bool,
    /// readAgainForBranch1.
    pub read_again_for_branch1: bool,
    /// readAgainForBranch2.
    pub read_again_for_branch2: bool,
    /// canceled1.
    pub canceled1: bool,
    /// canceled2.
    pub canceled2: bool,
    /// reason1.
    pub reason1: Value,
    /// reason2.
    pub reason2: Value,
    /// branch1: undefined until created.
    pub branch1: Option<ObjectId>,
    /// branch2: undefined until created.
    pub branch2: Option<ObjectId>,
    /// cancelPromise.
    pub cancel_promise: ObjectId,
    /// cancelPromise's resolve function.
    pub cancel_promise_resolve: ObjectId,
}

/// The byte streams' state for one scenario.
#[derive(Debug, Default)]
pub struct ByteStreams {
    /// Every ReadableByteStreamController.
    pub(crate) controllers: Slots<ReadableByteStreamController>,
    /// Every ReadableStreamBYOBReader.
    byob_readers: Slots<ReadableStreamBYOBReader>,
    /// Every ReadableStreamBYOBRequest.
    byob_requests: Slots<ReadableStreamBYOBRequest>,
    /// Every ReadableByteStreamTee, by [`ByteTeeId`].
    tees: Slots<ByteTee>,
}

impl ByteStreams {
    /// Empties the state for another scenario.
    pub fn clear(&mut self) {
        let ByteStreams {
            controllers,
            byob_readers,
            byob_requests,
            tees,
        } = self;
        controllers.clear();
        byob_readers.clear();
        byob_requests.clear();
        tees.clear();
    }

    /// Forgets a collected object.
    pub(crate) fn forget(&mut self, id: &ObjectId) {
        self.controllers.remove(id);
        self.byob_readers.remove(id);
        self.byob_requests.remove(id);
        self.tees.remove(id);
    }

    /// The objects with slots here.
    pub(crate) fn ids(&self) -> impl Iterator<Item = ObjectId> + '_ {
        self.controllers
            .ids()
            .chain(self.byob_readers.ids())
            .chain(self.byob_requests.ids())
            .chain(self.tees.ids())
    }
}

/// The strong edges of a ReadableByteStreamController, a BYOB reader, a
/// BYOB request or a ReadableByteStreamTee's record: their slots (the
/// queue's and the pull-into descriptors' buffers among them).
pub(crate) fn trace(rt: &Rt, obj: ObjectId, edges: &mut Vec<Value>) {
    let bytes = &rt.lib.streams.bytes;
    if let Some(c) = bytes.controllers.get(&obj) {
        let mut invoked = false;
        match c.pull_algorithm {
            Some(BytePullAlgorithm::Invoke { method }) => {
                invoked = true;
                edges.push(Value::Object(method));
            }
            Some(BytePullAlgorithm::Tee1 { tee } | BytePullAlgorithm::Tee2 { tee }) => {
                edges.push(Value::Object(tee.0))
            }
            Some(BytePullAlgorithm::ResolveUndefined) | None => {}
        }
        match c.cancel_algorithm {
            Some(ByteCancelAlgorithm::Invoke { method }) => {
                invoked = true;
                edges.push(Value::Object(method));
            }
            Some(ByteCancelAlgorithm::Tee1 { tee } | ByteCancelAlgorithm::Tee2 { tee }) => {
                edges.push(Value::Object(tee.0))
            }
            Some(ByteCancelAlgorithm::ResolveUndefined) | None => {}
        }
        if invoked {
            edges.push(c.underlying_source.clone());
        }
        edges.extend(c.byob_request.map(Value::Object));
        edges.extend(c.pending_pull_intos.iter().map(|d| Value::Object(d.buffer)));
        edges.extend(c.queue.iter().map(|e| Value::Object(e.buffer)));
        edges.push(Value::Object(c.stream));
    }
    if let Some(r) = bytes.byob_readers.get(&obj) {
        edges.push(Value::Object(r.closed_promise));
        edges.extend(r.stream.map(Value::Object));
        edges.extend(r.read_into_requests.iter().map(ReadIntoRequest::holds));
    }
    if let Some(request) = bytes.byob_requests.get(&obj) {
        edges.extend(request.controller.map(Value::Object));
        edges.push(request.view.clone());
    }
    if let Some(t) = bytes.tees.get(&obj) {
        edges.push(Value::Object(t.stream));
        edges.push(Value::Object(t.reader));
        edges.push(t.reason1.clone());
        edges.push(t.reason2.clone());
        edges.extend(t.branch1.map(Value::Object));
        edges.extend(t.branch2.map(Value::Object));
        edges.push(Value::Object(t.cancel_promise));
        edges.push(Value::Object(t.cancel_promise_resolve));
    }
}

// ---- slot access ----------------------------------------------------------

fn controller(rt: &Rt, c: ObjectId) -> &ReadableByteStreamController {
    &rt.lib.streams.bytes.controllers[&c]
}

fn controller_mut(rt: &mut Rt, c: ObjectId) -> &mut ReadableByteStreamController {
    rt.lib
        .streams
        .bytes
        .controllers
        .get_mut(&c)
        .expect("a ReadableByteStreamController")
}

pub(crate) fn byob_reader(rt: &Rt, r: ObjectId) -> &ReadableStreamBYOBReader {
    &rt.lib.streams.bytes.byob_readers[&r]
}

pub(crate) fn byob_reader_mut(rt: &mut Rt, r: ObjectId) -> &mut ReadableStreamBYOBReader {
    rt.lib
        .streams
        .bytes
        .byob_readers
        .get_mut(&r)
        .expect("a ReadableStreamBYOBReader")
}

/// Whether `r` is a ReadableStreamBYOBReader.
pub(crate) fn is_byob_reader(rt: &Rt, r: ObjectId) -> bool {
    rt.lib.streams.bytes.byob_readers.contains_key(&r)
}

/// Makes a BYOB reader's slots (for ReadableStreamReaderGenericInitialize).
pub(crate) fn insert_byob_reader(rt: &mut Rt, r: ObjectId, closed_promise: ObjectId, s: ObjectId) {
    rt.lib.streams.bytes.byob_readers.insert(
        r,
        ReadableStreamBYOBReader {
            closed_promise,
            stream: Some(s),
            read_into_requests: VecDeque::new(),
        },
    );
}

fn tee_state(rt: &Rt, t: ByteTeeId) -> &ByteTee {
    &rt.lib.streams.bytes.tees[&t.0]
}

fn tee_state_mut(rt: &mut Rt, t: ByteTeeId) -> &mut ByteTee {
    rt.lib
        .streams
        .bytes
        .tees
        .get_mut(&t.0)
        .expect("a ReadableByteStreamTee")
}

fn first_pending_pull_into(rt: &Rt, c: ObjectId) -> PullIntoDescriptor {
    *controller(rt, c)
        .pending_pull_intos
        .front()
        .expect("a pending pull-into descriptor")
}

fn first_pending_pull_into_mut(rt: &mut Rt, c: ObjectId) -> &mut PullIntoDescriptor {
    controller_mut(rt, c)
        .pending_pull_intos
        .front_mut()
        .expect("a pending pull-into descriptor")
}

fn byte_controller_operand(rt: &mut Rt, value: Value, prop: &str) -> Result<ObjectId, Value> {
    match value {
        Value::Object(id) if rt.lib.streams.bytes.controllers.contains_key(&id) => Ok(id),
        other => Err(crate::cannot_read(rt, &other, prop)),
    }
}

fn byob_reader_operand(rt: &mut Rt, value: Value, prop: &str) -> Result<ObjectId, Value> {
    match value {
        Value::Object(id) if is_byob_reader(rt, id) => Ok(id),
        other => Err(crate::cannot_read(rt, &other, prop)),
    }
}

fn byob_request_operand(rt: &mut Rt, value: Value, prop: &str) -> Result<ObjectId, Value> {
    match value {
        Value::Object(id) if rt.lib.streams.bytes.byob_requests.contains_key(&id) => Ok(id),
        other => Err(crate::cannot_read(rt, &other, prop)),
    }
}

/// Node's `new ERR_INVALID_ARG_VALUE(name, value, reason)`: "The argument
/// 'name' is invalid. Received 3" (a property when the name has a dot),
/// a TypeError or, with `range`, a RangeError.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/errors.js#L1484-L1491>
/// the value is shown by `inspect()`, cut after 128 characters.
fn err_invalid_arg_value(
    rt: &mut Rt,
    range: bool,
    name: &str,
    value: &Value,
    reason: &str,
) -> Value {
    let kind = if name.contains('.') {
        "property"
    } else {
        "argument"
    };
    let shown = match (rt.uint8_array(value), value) {
        (Some(view), _) => rt.inspect_uint8_array(view),
        // inspect(-0) is "-0".
        (None, Value::Number(n)) if *n == 0.0 && n.is_sign_negative() => "-0".to_string(),
        (None, _) => rt.fmt(value),
    };
    let shown = match shown.char_indices().nth(128) {
        Some((at, _)) => format!("{}...", &shown[..at]),
        None => shown,
    };
    let class = if range { "RangeError" } else { "TypeError" };
    rt.node_error(
        class,
        "ERR_INVALID_ARG_VALUE",
        &format!("The {kind} '{name}' {reason}. Received {shown}"),
    )
}

/// Node's `validateBuffer(value, name)`: ERR_INVALID_ARG_TYPE for a value
/// that is no ArrayBufferView.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/validators.js#L406-L412>
/// where Web IDL's ArrayBufferView conversion throws an unworded TypeError.
fn validate_buffer(
    rt: &mut Rt,
    value: &Value,
    name: &str,
) -> Result<nodesem_runtime::bytes::View, Value> {
    match rt.uint8_array(value) {
        Some(view) => Ok(view),
        None => {
            Err(rt.err_invalid_arg_type_classes(name, &["Buffer", "TypedArray", "DataView"], value))
        }
    }
}

// ---- the ReadableStream constructor for "bytes" ---------------------------

/// `new ReadableStream({ type: "bytes", ... }, strategy)`
/// (<https://streams.spec.whatwg.org/#rs-constructor>), step 4.
pub fn new_readable_byte_stream(
    rt: &mut Rt,
    source: UnderlyingSource,
    high_water_mark: Option<f64>,
    auto_allocate_chunk_size: Option<f64>,
) -> Completion {
    let this = rt.heap.alloc(ObjectData::Host);
    // 3. Perform ! InitializeReadableStream(this).
    initialize_readable_stream(rt, this);
    // 4. If underlyingSourceDict["type"] is "bytes":
    //    1. If strategy["size"] exists, throw a RangeError exception.
    //    (Scenarios give byte streams no size.)
    //    2. Let highWaterMark be ? ExtractHighWaterMark(strategy, 0).
    let high_water_mark = match extract_high_water_mark(rt, high_water_mark, 0.0) {
        Ok(hwm) => hwm,
        Err(e) => {
            rt.lib.streams.remove_stream(this);
            return Err(e);
        }
    };
    //    3. Perform ? SetUpReadableByteStreamControllerFromUnderlyingSource(
    //       this, underlyingSource, underlyingSourceDict, highWaterMark).
    set_up_readable_byte_stream_controller_from_underlying_source(
        rt,
        this,
        source,
        high_water_mark,
        auto_allocate_chunk_size,
    )?;
    Ok(Value::Object(this))
}

/// SetUpReadableByteStreamControllerFromUnderlyingSource(stream,
/// underlyingSource, underlyingSourceDict, highWaterMark)
/// (<https://streams.spec.whatwg.org/#set-up-readable-byte-stream-controller-from-underlying-source>).
fn set_up_readable_byte_stream_controller_from_underlying_source(
    rt: &mut Rt,
    s: ObjectId,
    source: UnderlyingSource,
    high_water_mark: f64,
    auto_allocate_chunk_size: Option<f64>,
) -> Result<(), Value> {
    // 1. Let controller be a new ReadableByteStreamController.
    // 2. Let startAlgorithm be an algorithm that returns undefined.
    // 5. If underlyingSourceDict["start"] exists, then set startAlgorithm to
    //    an algorithm which returns the result of invoking
    //    underlyingSourceDict["start"] with argument list « controller »
    //    and callback this value underlyingSource.
    let start_algorithm = source.start;
    // 3. Let pullAlgorithm be an algorithm that returns a promise resolved
    //    with undefined.
    // 6. If underlyingSourceDict["pull"] exists, then set pullAlgorithm to
    //    an algorithm which returns the result of invoking
    //    underlyingSourceDict["pull"] with argument list « controller » and
    //    callback this value underlyingSource.
    let pull_algorithm = match source.pull {
        Some(method) => BytePullAlgorithm::Invoke { method },
        None => BytePullAlgorithm::ResolveUndefined,
    };
    // 4. Let cancelAlgorithm be an algorithm that returns a promise resolved
    //    with undefined.
    // 7. If underlyingSourceDict["cancel"] exists, then set cancelAlgorithm
    //    to an algorithm which takes an argument reason and returns the
    //    result of invoking underlyingSourceDict["cancel"] with argument
    //    list « reason » and callback this value underlyingSource.
    let cancel_algorithm = match source.cancel {
        Some(method) => ByteCancelAlgorithm::Invoke { method },
        None => ByteCancelAlgorithm::ResolveUndefined,
    };
    // 8. Let autoAllocateChunkSize be
    //    underlyingSourceDict["autoAllocateChunkSize"], if it exists, or
    //    undefined otherwise.
    // 9. If autoAllocateChunkSize is 0, then throw a TypeError exception.
    if auto_allocate_chunk_size == Some(0.0) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3967-L3971
        // `new ERR_INVALID_ARG_VALUE('source.autoAllocateChunkSize', 0)`.
        rt.lib.streams.remove_stream(s);
        return Err(err_invalid_arg_value(
            rt,
            false,
            "source.autoAllocateChunkSize",
            &Value::Number(0.0),
            "is invalid",
        ));
    }
    // (Web IDL's [EnforceRange] unsigned long long conversion would take
    // the integer part of a fraction.)
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3897-L3900
    // Node converts nothing, and SetUpReadableByteStreamController's step 2
    // asserts with Node's `assert()`: a fraction throws ERR_INTERNAL_ASSERTION
    // from the constructor. (The language's chunk sizes are from 0 to 4096.)
    if auto_allocate_chunk_size.is_some_and(|n| n.fract() != 0.0) {
        rt.lib.streams.remove_stream(s);
        return Err(rt.internal_assertion_error());
    }
    let auto_allocate_chunk_size = auto_allocate_chunk_size.map(|n| n as usize);
    let c = rt.heap.alloc(ObjectData::Host);
    // 10. Perform ? SetUpReadableByteStreamController(stream, controller,
    //     startAlgorithm, pullAlgorithm, cancelAlgorithm, highWaterMark,
    //     autoAllocateChunkSize).
    set_up_readable_byte_stream_controller(
        rt,
        s,
        c,
        source.object,
        start_algorithm,
        pull_algorithm,
        cancel_algorithm,
        high_water_mark,
        auto_allocate_chunk_size,
    )
}

/// SetUpReadableByteStreamController(stream, controller, startAlgorithm,
/// pullAlgorithm, cancelAlgorithm, highWaterMark, autoAllocateChunkSize)
/// (<https://streams.spec.whatwg.org/#set-up-readable-byte-stream-controller>).
#[allow(clippy::too_many_arguments)] // the spec's parameters, one for one
fn set_up_readable_byte_stream_controller(
    rt: &mut Rt,
    s: ObjectId,
    c: ObjectId,
    underlying_source: Value,
    start_algorithm: Option<ObjectId>,
    pull_algorithm: BytePullAlgorithm,
    cancel_algorithm: ByteCancelAlgorithm,
    high_water_mark: f64,
    auto_allocate_chunk_size: Option<usize>,
) -> Result<(), Value> {
    // 1. Assert: stream.[[controller]] is undefined.
    assert!(stream(rt, s).controller.is_none());
    // 2. If autoAllocateChunkSize is not undefined,
    //    1. Assert: ! IsInteger(autoAllocateChunkSize) is true.
    //    2. Assert: autoAllocateChunkSize is positive.
    assert!(auto_allocate_chunk_size.is_none_or(|n| n > 0));
    rt.lib.streams.bytes.controllers.insert(
        c,
        ReadableByteStreamController {
            // 11. Set controller.[[autoAllocateChunkSize]] to autoAllocateChunkSize.
            auto_allocate_chunk_size,
            // 5. Set controller.[[byobRequest]] to null.
            byob_request: None,
            // 10. Set controller.[[cancelAlgorithm]] to cancelAlgorithm.
            cancel_algorithm: Some(cancel_algorithm),
            // 7. Set controller.[[closeRequested]] and controller.[[started]]
            //    to false.
            close_requested: false,
            // 4. Set controller.[[pullAgain]] and controller.[[pulling]] to false.
            pull_again: false,
            // 9. Set controller.[[pullAlgorithm]] to pullAlgorithm.
            pull_algorithm: Some(pull_algorithm),
            pulling: false,
            // 12. Set controller.[[pendingPullIntos]] to a new empty list.
            pending_pull_intos: VecDeque::new(),
            // 6. Perform ! ResetQueue(controller).
            queue: VecDeque::new(),
            queue_total_size: 0,
            started: false,
            // 8. Set controller.[[strategyHWM]] to highWaterMark.
            strategy_hwm: high_water_mark,
            // 3. Set controller.[[stream]] to stream.
            stream: s,
            underlying_source: underlying_source.clone(),
        },
    );
    // 13. Set stream.[[controller]] to controller.
    stream_mut(rt, s).controller = Some(c);
    // 14. Let startResult be the result of performing startAlgorithm.
    let start_result = match start_algorithm {
        None => Value::Undefined,
        // (The stream and the controller, which the script has not seen
        // yet, are rooted for the call, as the constructor's frame holds
        // them.)
        Some(start) => crate::streams::call_rooted(
            rt,
            start,
            underlying_source,
            &[Value::Object(c)],
            &[Value::Object(s)],
        )?,
    };
    // 15. Let startPromise be a promise resolved with startResult.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3920-L3945
    // a start result that is no object sets [[started]] at once when the
    // source has no pull, and otherwise queues the step 16 microtask
    // directly: neither is observable (without a pull, [[started]] gates
    // nothing; the microtask is where the reaction's would be).
    let start_promise = a_promise_resolved_with(rt, start_result);
    upon_settlement(
        rt,
        start_promise,
        &[Value::Object(c)],
        // 16. Upon fulfillment of startPromise,
        move |rt, _| {
            //   1. Set controller.[[started]] to true.
            controller_mut(rt, c).started = true;
            //   2. Assert: controller.[[pulling]] is false.
            assert!(!controller(rt, c).pulling);
            //   3. Assert: controller.[[pullAgain]] is false.
            assert!(!controller(rt, c).pull_again);
            //   4. Perform ! ReadableByteStreamControllerCallPullIfNeeded(controller).
            readable_byte_stream_controller_call_pull_if_needed(rt, c);
        },
        // 17. Upon rejection of startPromise with reason r,
        move |rt, r| {
            //   1. Perform ! ReadableByteStreamControllerError(controller, r).
            error_in_a_reaction(rt, c, r);
        },
    );
    Ok(())
}

/// CreateReadableByteStream(startAlgorithm, pullAlgorithm, cancelAlgorithm)
/// (<https://streams.spec.whatwg.org/#abstract-opdef-createreadablebytestream>),
/// with a startAlgorithm that returns undefined (what the byte tee passes).
fn create_readable_byte_stream(
    rt: &mut Rt,
    pull_algorithm: BytePullAlgorithm,
    cancel_algorithm: ByteCancelAlgorithm,
) -> ObjectId {
    // 1. Let stream be a new ReadableStream.
    let s = rt.heap.alloc(ObjectData::Host);
    // 2. Perform ! InitializeReadableStream(stream).
    initialize_readable_stream(rt, s);
    // 3. Let controller be a new ReadableByteStreamController.
    let c = rt.heap.alloc(ObjectData::Host);
    // 4. Perform ? SetUpReadableByteStreamController(stream, controller,
    //    startAlgorithm, pullAlgorithm, cancelAlgorithm, 0, undefined).
    set_up_readable_byte_stream_controller(
        rt,
        s,
        c,
        Value::Undefined,
        None,
        pull_algorithm,
        cancel_algorithm,
        0.0,
        None,
    )
    .expect("a start algorithm that returns undefined does not throw");
    // 5. Return stream.
    s
}

// ---- the ReadableByteStreamController class -------------------------------

/// The `byobRequest` getter
/// (<https://streams.spec.whatwg.org/#rbs-controller-byob-request>).
fn byob_request(rt: &mut Rt, c: ObjectId) -> Value {
    // 1. Return ! ReadableByteStreamControllerGetBYOBRequest(this).
    match readable_byte_stream_controller_get_byob_request(rt, c) {
        Some(request) => Value::Object(request),
        None => Value::Null,
    }
}

/// The `desiredSize` getter
/// (<https://streams.spec.whatwg.org/#rbs-controller-desired-size>).
fn desired_size(rt: &Rt, c: ObjectId) -> Value {
    // 1. Return ! ReadableByteStreamControllerGetDesiredSize(this).
    match readable_byte_stream_controller_get_desired_size(rt, c) {
        Some(n) => Value::Number(n),
        None => Value::Null,
    }
}

/// `controller.close()` (<https://streams.spec.whatwg.org/#rbs-controller-close>).
pub fn controller_close(rt: &mut Rt, c: Value) -> Completion {
    let c = byte_controller_operand(rt, c, "close")?;
    // 1. If this.[[closeRequested]] is true, throw a TypeError exception.
    if controller(rt, c).close_requested {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1278-L1279
        return Err(err_invalid_state(rt, "Controller is already closed"));
    }
    // 2. If this.[[stream]].[[state]] is not "readable", throw a TypeError
    //    exception.
    let s = controller(rt, c).stream;
    if stream(rt, s).state != ReadableStreamState::Readable {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1280-L1281
        return Err(err_invalid_state(rt, "ReadableStream is already closed"));
    }
    // 3. Perform ? ReadableByteStreamControllerClose(this).
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1282-L1283
    // an async iterator's read request parked twice throws
    // ERR_INTERNAL_ASSERTION from its close steps (crate::iterate), out of close().
    rt.clear_internal_assertion();
    readable_byte_stream_controller_close(rt, c)?;
    if let Some(e) = rt.take_internal_assertion() {
        return Err(e);
    }
    Ok(Value::Undefined)
}

/// `controller.enqueue(chunk)`
/// (<https://streams.spec.whatwg.org/#rbs-controller-enqueue>).
pub fn controller_enqueue(rt: &mut Rt, c: Value, chunk: Value) -> Completion {
    let c = byte_controller_operand(rt, c, "enqueue")?;
    let view = validate_buffer(rt, &chunk, "buffer")?;
    // 1. If chunk.[[ByteLength]] is 0, throw a TypeError exception.
    // 2. If chunk.[[ViewedArrayBuffer]].[[ArrayBufferByteLength]] is 0, throw
    //    a TypeError exception.
    if rt.view_length(view) == 0 || rt.array_buffer_byte_length(view.buffer) == 0 {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1304-L1307
        // one error for both (a detached buffer's length is 0).
        return Err(err_invalid_state(
            rt,
            "chunk ArrayBuffer is zero-length or detached",
        ));
    }
    // 3. If this.[[closeRequested]] is true, throw a TypeError exception.
    if controller(rt, c).close_requested {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1308-L1309
        return Err(err_invalid_state(rt, "Controller is already closed"));
    }
    // 4. If this.[[stream]].[[state]] is not "readable", throw a TypeError
    //    exception.
    let s = controller(rt, c).stream;
    if stream(rt, s).state != ReadableStreamState::Readable {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1310-L1311
        return Err(err_invalid_state(rt, "ReadableStream is already closed"));
    }
    // 5. Return ? ReadableByteStreamControllerEnqueue(this, chunk).
    readable_byte_stream_controller_enqueue(rt, c, view)?;
    Ok(Value::Undefined)
}

/// `controller.error(e)` (<https://streams.spec.whatwg.org/#rbs-controller-error>).
pub fn controller_error(rt: &mut Rt, c: Value, e: Value) -> Completion {
    let c = byte_controller_operand(rt, c, "error")?;
    // 1. Perform ! ReadableByteStreamControllerError(this, e).
    // (And, as for `close()`, an ERR_INTERNAL_ASSERTION of an async
    // iterator's error steps comes out of error().)
    rt.clear_internal_assertion();
    readable_byte_stream_controller_error(rt, c, e);
    if let Some(e) = rt.take_internal_assertion() {
        return Err(e);
    }
    Ok(Value::Undefined)
}

/// [[CancelSteps]](reason)
/// (<https://streams.spec.whatwg.org/#rbs-controller-private-cancel>).
pub(crate) fn cancel_steps(rt: &mut Rt, c: ObjectId, reason: Value) -> ObjectId {
    // 1. Perform ! ReadableByteStreamControllerClearPendingPullIntos(this).
    readable_byte_stream_controller_clear_pending_pull_intos(rt, c);
    // 2. Perform ! ResetQueue(this).
    reset_queue(rt, c);
    // 3. Let result be the result of performing this.[[cancelAlgorithm]],
    //    passing in reason.
    let algorithm = controller(rt, c)
        .cancel_algorithm
        .expect("the cancel algorithm of a readable stream, not yet cleared");
    // (The controller is rooted while the algorithm runs script code.)
    let result = crate::streams::rooted(rt, &[Value::Object(c)], |rt| {
        perform_cancel_algorithm(rt, c, algorithm, reason)
    });
    // 4. Perform ! ReadableByteStreamControllerClearAlgorithms(this).
    readable_byte_stream_controller_clear_algorithms(rt, c);
    // 5. Return result.
    result
}

/// [[PullSteps]](readRequest)
/// (<https://streams.spec.whatwg.org/#rbs-controller-private-pull>).
pub(crate) fn pull_steps(rt: &mut Rt, c: ObjectId, read_request: ReadRequest) {
    // 1. Let stream be this.[[stream]].
    let s = controller(rt, c).stream;
    // 2. Assert: ! ReadableStreamHasDefaultReader(stream) is true.
    assert!(readable_stream_has_default_reader(rt, s));
    // 3. If this.[[queueTotalSize]] > 0,
    if controller(rt, c).queue_total_size > 0 {
        //   1. Assert: ! ReadableStreamGetNumReadRequests(stream) is 0.
        assert_eq!(readable_stream_get_num_read_requests(rt, s), 0);
        //   2. Perform ! ReadableByteStreamControllerFillReadRequestFromQueue(
        //      this, readRequest).
        readable_byte_stream_controller_fill_read_request_from_queue(rt, c, read_request);
        //   3. Return.
        return;
    }
    // 4. Let autoAllocateChunkSize be this.[[autoAllocateChunkSize]].
    // 5. If autoAllocateChunkSize is not undefined,
    if let Some(auto_allocate_chunk_size) = controller(rt, c).auto_allocate_chunk_size {
        //   1. Let buffer be Construct(%ArrayBuffer%, « autoAllocateChunkSize »).
        //   2. If buffer is an abrupt completion, ... (MODEL: the language's
        //      chunk sizes are small; allocating never fails.)
        let buffer = rt.new_array_buffer(vec![0; auto_allocate_chunk_size]);
        //   3. Let pullIntoDescriptor be a new pull-into descriptor with
        //      buffer buffer.[[Value]], buffer byte length
        //      autoAllocateChunkSize, byte offset 0, byte length
        //      autoAllocateChunkSize, bytes filled 0, minimum fill 1,
        //      element size 1, view constructor %Uint8Array%, and reader
        //      type "default".
        let pull_into_descriptor = PullIntoDescriptor {
            buffer,
            buffer_byte_length: auto_allocate_chunk_size,
            byte_offset: 0,
            byte_length: auto_allocate_chunk_size,
            bytes_filled: 0,
            minimum_fill: 1,
            element_size: 1,
            reader_type: ReaderType::Default,
        };
        //   4. Append pullIntoDescriptor to this.[[pendingPullIntos]].
        controller_mut(rt, c)
            .pending_pull_intos
            .push_back(pull_into_descriptor);
    }
    // 6. Perform ! ReadableStreamAddReadRequest(stream, readRequest).
    readable_stream_add_read_request(rt, s, read_request);
    // 7. Perform ! ReadableByteStreamControllerCallPullIfNeeded(this).
    readable_byte_stream_controller_call_pull_if_needed(rt, c);
}

/// [[ReleaseSteps]]()
/// (<https://streams.spec.whatwg.org/#abstract-opdef-readablebytestreamcontroller-releasesteps>).
pub(crate) fn release_steps(rt: &mut Rt, c: ObjectId) {
    // 1. If this.[[pendingPullIntos]] is not empty,
    if !controller(rt, c).pending_pull_intos.is_empty() {
        //   1. Let firstPendingPullInto be this.[[pendingPullIntos]][0].
        let mut first_pending_pull_into = first_pending_pull_into(rt, c);
        //   2. Set firstPendingPullInto's reader type to "none".
        first_pending_pull_into.reader_type = ReaderType::None;
        //   3. Set this.[[pendingPullIntos]] to the list « firstPendingPullInto ».
        controller_mut(rt, c).pending_pull_intos = VecDeque::from([first_pending_pull_into]);
    }
}

// ---- the ReadableStreamBYOBRequest class ----------------------------------

/// The `view` getter (<https://streams.spec.whatwg.org/#rs-byob-request-view>).
fn view(rt: &Rt, q: ObjectId) -> Value {
    // 1. Return this.[[view]].
    rt.lib.streams.bytes.byob_requests[&q].view.clone()
}

/// `request.respond(bytesWritten)`
/// (<https://streams.spec.whatwg.org/#rs-byob-request-respond>).
pub fn request_respond(rt: &mut Rt, q: Value, bytes_written: Value) -> Completion {
    let q = byob_request_operand(rt, q, "respond")?;
    // MODEL: bytesWritten is an [EnforceRange] unsigned long long; Node
    // reads it as it is, so a number is taken as it is and anything else
    // as NaN (which fails the checks Node makes as 0 does).
    let bytes_written = match bytes_written {
        Value::Number(n) => n,
        _ => f64::NAN,
    };
    // FIXME: a negative or fractional bytesWritten passes Node 26.12.1's
    // checks and corrupts the pull-into descriptor's bytes filled (later
    // views throw RangeErrors from odd places); the model does not follow
    // that, and throws the TypeError of Web IDL's conversion instead.
    if bytes_written.is_finite() && (bytes_written < 0.0 || bytes_written.fract() != 0.0) {
        return Err(rt.new_error("TypeError", "bytesWritten is outside the accepted range"));
    }
    let request = &rt.lib.streams.bytes.byob_requests[&q];
    // 1. If this.[[controller]] is undefined, throw a TypeError exception.
    let Some(c) = request.controller else {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L625-L629
        return Err(err_invalid_state(
            rt,
            "This BYOB request has been invalidated",
        ));
    };
    let view = rt
        .uint8_array(&request.view)
        .expect("a valid request's view");
    // 2. If ! IsDetachedBuffer(this.[[view]].[[ArrayBuffer]]) is true, throw
    //    a TypeError exception.
    if rt.is_detached_buffer(view.buffer) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L635-L637
        return Err(err_invalid_state(rt, "Viewed ArrayBuffer is detached"));
    }
    // 3. Assert: this.[[view]].[[ByteLength]] > 0.
    assert!(view.length > 0);
    // 4. Assert: this.[[view]].[[ViewedArrayBuffer]].[[ByteLength]] > 0.
    assert!(rt.array_buffer_byte_length(view.buffer) > 0);
    // 5. Perform ? ReadableByteStreamControllerRespond(this.[[controller]],
    //    bytesWritten).
    readable_byte_stream_controller_respond(rt, c, bytes_written)?;
    Ok(Value::Undefined)
}

/// `request.respondWithNewView(view)`
/// (<https://streams.spec.whatwg.org/#rs-byob-request-respond-with-new-view>).
pub fn request_respond_with_new_view(rt: &mut Rt, q: Value, view: Value) -> Completion {
    let q = byob_request_operand(rt, q, "respondWithNewView")?;
    // 1. If this.[[controller]] is undefined, throw a TypeError exception.
    let Some(c) = rt.lib.streams.bytes.byob_requests[&q].controller else {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L655-L658
        return Err(err_invalid_state(
            rt,
            "This BYOB request has been invalidated",
        ));
    };
    let v = validate_buffer(rt, &view, "view")?;
    // 2. If ! IsDetachedBuffer(view.[[ViewedArrayBuffer]]) is true, throw a
    //    TypeError exception.
    if rt.is_detached_buffer(v.buffer) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L662-L664
        return Err(err_invalid_state(rt, "Viewed ArrayBuffer is detached"));
    }
    // 3. Return ? ReadableByteStreamControllerRespondWithNewView(
    //    this.[[controller]], view).
    readable_byte_stream_controller_respond_with_new_view(rt, c, &view)?;
    Ok(Value::Undefined)
}

// ---- the ReadableStreamBYOBReader class -----------------------------------

/// `stream.getReader({ mode: "byob" })`
/// (<https://streams.spec.whatwg.org/#rs-get-reader>).
pub fn get_byob_reader(rt: &mut Rt, s: Value) -> Completion {
    let s = stream_operand(rt, s, "getReader")?;
    // 2. Assert: options["mode"] is "byob".
    // 3. Return ? AcquireReadableStreamBYOBReader(this).
    Ok(Value::Object(acquire_readable_stream_byob_reader(rt, s)?))
}

/// AcquireReadableStreamBYOBReader(stream)
/// (<https://streams.spec.whatwg.org/#acquire-readable-stream-byob-reader>).
fn acquire_readable_stream_byob_reader(rt: &mut Rt, s: ObjectId) -> Result<ObjectId, Value> {
    // 1. Let reader be a new ReadableStreamBYOBReader.
    let r = rt.heap.alloc(ObjectData::Host);
    // 2. Perform ? SetUpReadableStreamBYOBReader(reader, stream).
    set_up_readable_stream_byob_reader(rt, r, s)?;
    // 3. Return reader.
    Ok(r)
}

/// SetUpReadableStreamBYOBReader(reader, stream)
/// (<https://streams.spec.whatwg.org/#set-up-readable-stream-byob-reader>).
fn set_up_readable_stream_byob_reader(rt: &mut Rt, r: ObjectId, s: ObjectId) -> Result<(), Value> {
    // 1. If ! IsReadableStreamLocked(stream) is true, throw a TypeError
    //    exception.
    if is_readable_stream_locked(rt, s) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2760-L2761
        return Err(err_invalid_state(rt, "ReadableStream is locked"));
    }
    // 2. If stream.[[controller]] does not implement
    //    ReadableByteStreamController, throw a TypeError exception.
    let c = stream_controller(rt, s);
    if !rt.lib.streams.bytes.controllers.contains_key(&c) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2765-L2766
        // `new ERR_INVALID_ARG_VALUE('stream', stream, 'must be a byte
        // stream')`, the stream shown by its custom inspect (unlocked here).
        let state = match stream(rt, s).state {
            ReadableStreamState::Readable => "readable",
            ReadableStreamState::Closed => "closed",
            ReadableStreamState::Errored => "errored",
        };
        return Err(rt.node_error(
            "TypeError",
            "ERR_INVALID_ARG_VALUE",
            &format!(
                "The argument 'stream' must be a byte stream. Received ReadableStream {{ locked: false, state: '{state}', supportsBYOB: false }}"
            ),
        ));
    }
    // 3. Perform ! ReadableStreamReaderGenericInitialize(reader, stream).
    // 4. Set reader.[[readIntoRequests]] to a new empty list.
    readable_stream_reader_generic_initialize(rt, r, s, true);
    Ok(())
}

/// The `closed` getter (<https://streams.spec.whatwg.org/#generic-reader-closed>).
fn closed(rt: &Rt, r: ObjectId) -> ObjectId {
    // 1. Return this.[[closedPromise]].
    byob_reader(rt, r).closed_promise
}

/// `reader.cancel(reason)` on a BYOB reader
/// (<https://streams.spec.whatwg.org/#generic-reader-cancel>).
pub fn reader_cancel(rt: &mut Rt, r: Value, reason: Option<Value>) -> Completion {
    let r = byob_reader_operand(rt, r, "cancel")?;
    let reason = reason.unwrap_or(Value::Undefined);
    // 1. If this.[[stream]] is undefined, return a promise rejected with a
    //    TypeError exception.
    if byob_reader(rt, r).stream.is_none() {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1143-L1146
        let e = err_invalid_state(rt, "The reader is not attached to a stream");
        return Ok(Value::Object(a_promise_rejected_with(rt, e)));
    }
    // 2. Return ! ReadableStreamReaderGenericCancel(this, reason).
    Ok(Value::Object(readable_stream_reader_generic_cancel(
        rt, r, reason,
    )?))
}

/// `reader.read(view, options)`
/// (<https://streams.spec.whatwg.org/#byob-reader-read>).
pub fn reader_read(rt: &mut Rt, r: Value, view: Value, min: Option<Value>) -> Completion {
    let r = byob_reader_operand(rt, r, "read")?;
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1107-L1116
    // every argument error of `read()` is a rejected promise, as Web IDL's
    // conversions of a promise-returning operation make them.
    match byob_reader_read_view(rt, r, &view, min) {
        Ok(p) => Ok(Value::Object(p)),
        Err(e) => Ok(Value::Object(a_promise_rejected_with(rt, e))),
    }
}

/// The steps of `read(view, options)`, where a returned error is a promise
/// rejected with it.
fn byob_reader_read_view(
    rt: &mut Rt,
    r: ObjectId,
    view: &Value,
    min: Option<Value>,
) -> Result<ObjectId, Value> {
    let v = validate_buffer(rt, view, "view")?;
    // 1. If view.[[ByteLength]] is 0, return a promise rejected with a
    //    TypeError exception.
    // 2. If view.[[ViewedArrayBuffer]].[[ArrayBufferByteLength]] is 0,
    //    return a promise rejected with a TypeError exception.
    // 3. If ! IsDetachedBuffer(view.[[ViewedArrayBuffer]]) is true, return a
    //    promise rejected with a TypeError exception.
    if rt.view_length(v) == 0 || rt.array_buffer_byte_length(v.buffer) == 0 {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2693-L2696
        // one error for the three (a detached buffer's length is 0).
        return Err(err_invalid_state(
            rt,
            "View or Viewed ArrayBuffer is zero-length or detached",
        ));
    }
    // (options["min"], an [EnforceRange] unsigned long long, default 1.)
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2702-L2714
    // `validateNumber(min, 'options.min')`, then ERR_INVALID_ARG_VALUE for
    // a fraction or for min <= 0, and ERR_OUT_OF_RANGE for min >
    // view.length.
    let min = match min {
        None | Some(Value::Undefined) | Some(Value::Null) => 1.0,
        Some(Value::Number(n)) => n,
        Some(other) => return Err(rt.err_invalid_arg_type("options.min", "number", &other)),
    };
    if min.fract() != 0.0 || !min.is_finite() {
        return Err(err_invalid_arg_value(
            rt,
            false,
            "options.min",
            &Value::Number(min),
            "must be an integer",
        ));
    }
    // 4. If options["min"] is 0, return a promise rejected with a TypeError
    //    exception.
    if min <= 0.0 {
        return Err(err_invalid_arg_value(
            rt,
            false,
            "options.min",
            &Value::Number(min),
            "must be greater than 0",
        ));
    }
    // 5. If view has a [[TypedArrayName]] internal slot,
    //    1. If options["min"] > view.[[ArrayLength]], return a promise
    //       rejected with a RangeError exception.
    if min > v.length as f64 {
        return Err(rt.err_out_of_range("options.min", "<= view.length", min));
    }
    // 7. If this.[[stream]] is undefined, return a promise rejected with a
    //    TypeError exception.
    if byob_reader(rt, r).stream.is_none() {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2716-L2718
        return Err(err_invalid_state(
            rt,
            "The reader is not attached to a stream",
        ));
    }
    // 8. Let promise be a new promise.
    let promise = a_new_promise(rt);
    // 9. Let readIntoRequest be a new read-into request with the following
    //    items: (ReadIntoRequest::Read)
    let read_into_request = ReadIntoRequest::Read { promise };
    // 10. Perform ! ReadableStreamBYOBReaderRead(this, view,
    //     options["min"], readIntoRequest).
    // (The promise, returned after the steps, is rooted while they may run
    // script code and settle it, as `read()`'s frame holds it.)
    crate::streams::rooted(rt, &[Value::Object(promise)], |rt| {
        readable_stream_byob_reader_read(rt, r, v, min as usize, read_into_request)
    });
    // 11. Return promise.
    Ok(promise)
}

/// `reader.releaseLock()` on a BYOB reader
/// (<https://streams.spec.whatwg.org/#byob-reader-release-lock>).
pub fn reader_release_lock(rt: &mut Rt, r: Value) -> Completion {
    let r = byob_reader_operand(rt, r, "releaseLock")?;
    // 1. If this.[[stream]] is undefined, return.
    if byob_reader(rt, r).stream.is_none() {
        return Ok(Value::Undefined);
    }
    // 2. Perform ! ReadableStreamBYOBReaderRelease(this).
    readable_stream_byob_reader_release(rt, r);
    Ok(Value::Undefined)
}

// ---- BYOB readers' abstract operations -------------------------------------

/// A read-into request's chunk steps, given chunk.
fn read_into_request_chunk_steps(rt: &mut Rt, request: ReadIntoRequest, chunk: Value) {
    match request {
        // chunk steps, given chunk: 1. Resolve promise with
        // «[ "value" → chunk, "done" → false ]».
        ReadIntoRequest::Read { promise } => {
            let result = rt.create_iter_result(chunk, false);
            resolve(rt, promise, result);
        }
        ReadIntoRequest::ByteTee { tee, for_branch2 } => {
            byte_tee_byob_chunk_steps(rt, tee, for_branch2, chunk)
        }
    }
}

/// A read-into request's close steps, given chunk.
pub(crate) fn read_into_request_close_steps(rt: &mut Rt, request: ReadIntoRequest, chunk: Value) {
    match request {
        // close steps, given chunk: 1. Resolve promise with
        // «[ "value" → chunk, "done" → true ]».
        ReadIntoRequest::Read { promise } => {
            let result = rt.create_iter_result(chunk, true);
            resolve(rt, promise, result);
        }
        ReadIntoRequest::ByteTee { tee, for_branch2 } => {
            byte_tee_byob_close_steps(rt, tee, for_branch2, chunk)
        }
    }
}

/// A read-into request's error steps, given e.
fn read_into_request_error_steps(rt: &mut Rt, request: ReadIntoRequest, e: Value) {
    match request {
        // error steps, given e: 1. Reject promise with e.
        ReadIntoRequest::Read { promise } => reject(rt, promise, e),
        // error steps: 1. Set reading to false.
        ReadIntoRequest::ByteTee { tee, .. } => tee_state_mut(rt, tee).reading = false,
    }
}

/// ReadableStreamBYOBReaderRead(reader, view, min, readIntoRequest)
/// (<https://streams.spec.whatwg.org/#readable-stream-byob-reader-read>).
fn readable_stream_byob_reader_read(
    rt: &mut Rt,
    r: ObjectId,
    view: nodesem_runtime::bytes::View,
    min: usize,
    read_into_request: ReadIntoRequest,
) {
    // 1. Let stream be reader.[[stream]].
    // 2. Assert: stream is not undefined.
    let s = byob_reader(rt, r).stream.expect("the reader's stream");
    // 3. Set stream.[[disturbed]] to true.
    stream_mut(rt, s).disturbed = true;
    // 4. If stream.[[state]] is "errored", perform readIntoRequest's error
    //    steps given stream.[[storedError]].
    if stream(rt, s).state == ReadableStreamState::Errored {
        let e = stream(rt, s).stored_error.clone();
        read_into_request_error_steps(rt, read_into_request, e);
    } else {
        // 5. Otherwise, perform ! ReadableByteStreamControllerPullInto(
        //    stream.[[controller]], view, min, readIntoRequest).
        let c = stream_controller(rt, s);
        readable_byte_stream_controller_pull_into(rt, c, view, min, read_into_request);
    }
}

/// ReadableStreamBYOBReaderRelease(reader)
/// (<https://streams.spec.whatwg.org/#abstract-opdef-readablestreambyobreaderrelease>).
fn readable_stream_byob_reader_release(rt: &mut Rt, r: ObjectId) {
    // 1. Perform ! ReadableStreamReaderGenericRelease(reader).
    readable_stream_reader_generic_release(rt, r);
    // 2. Let e be a new TypeError exception.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2635-L2641
    // Node's one "Releasing reader" ERR_INVALID_STATE TypeError, the
    // default reader's too.
    let e = releasing_error(rt);
    // 3. Perform ! ReadableStreamBYOBReaderErrorReadIntoRequests(reader, e).
    readable_stream_byob_reader_error_read_into_requests(rt, r, e);
}

/// ReadableStreamBYOBReaderErrorReadIntoRequests(reader, e)
/// (<https://streams.spec.whatwg.org/#abstract-opdef-readablestreambyobreadererrorreadintorequests>).
pub(crate) fn readable_stream_byob_reader_error_read_into_requests(
    rt: &mut Rt,
    r: ObjectId,
    e: Value,
) {
    // 1. Let readIntoRequests be reader.[[readIntoRequests]].
    // 2. Set reader.[[readIntoRequests]] to a new empty list.
    let read_into_requests = std::mem::take(&mut byob_reader_mut(rt, r).read_into_requests);
    // 3. For each readIntoRequest of readIntoRequests,
    for read_into_request in read_into_requests {
        //   1. Perform readIntoRequest's error steps, given e.
        read_into_request_error_steps(rt, read_into_request, e.clone());
    }
}

/// ReadableStreamAddReadIntoRequest(stream, readRequest)
/// (<https://streams.spec.whatwg.org/#readable-stream-add-read-into-request>).
fn readable_stream_add_read_into_request(rt: &mut Rt, s: ObjectId, request: ReadIntoRequest) {
    // 1. Assert: stream.[[reader]] implements ReadableStreamBYOBReader.
    let r = stream(rt, s).reader.expect("the stream's BYOB reader");
    assert!(is_byob_reader(rt, r));
    // 2. Assert: stream.[[state]] is "readable" or "closed".
    assert_ne!(stream(rt, s).state, ReadableStreamState::Errored);
    // 3. Append readRequest to stream.[[reader]].[[readIntoRequests]].
    byob_reader_mut(rt, r).read_into_requests.push_back(request);
}

/// ReadableStreamFulfillReadIntoRequest(stream, chunk, done)
/// (<https://streams.spec.whatwg.org/#readable-stream-fulfill-read-into-request>).
fn readable_stream_fulfill_read_into_request(rt: &mut Rt, s: ObjectId, chunk: Value, done: bool) {
    // 1. Assert: ! ReadableStreamHasBYOBReader(stream) is true.
    // 2. Let reader be stream.[[reader]].
    let r = stream(rt, s).reader.expect("the stream's BYOB reader");
    // 3. Assert: reader.[[readIntoRequests]] is not empty.
    // 4. Let readIntoRequest be reader.[[readIntoRequests]][0].
    // 5. Remove readIntoRequest from reader.[[readIntoRequests]].
    let request = byob_reader_mut(rt, r)
        .read_into_requests
        .pop_front()
        .expect("a read-into request");
    // 6. If done is true, perform readIntoRequest's close steps, given chunk.
    if done {
        read_into_request_close_steps(rt, request, chunk);
    } else {
        // 7. Otherwise, perform readIntoRequest's chunk steps, given chunk.
        read_into_request_chunk_steps(rt, request, chunk);
    }
}

/// ReadableStreamGetNumReadIntoRequests(stream)
/// (<https://streams.spec.whatwg.org/#readable-stream-get-num-read-into-requests>).
fn readable_stream_get_num_read_into_requests(rt: &Rt, s: ObjectId) -> usize {
    // 1. Assert: ! ReadableStreamHasBYOBReader(stream) is true.
    let r = stream(rt, s).reader.expect("the stream's BYOB reader");
    // 2. Return stream.[[reader]].[[readIntoRequests]]'s size.
    byob_reader(rt, r).read_into_requests.len()
}

/// ReadableStreamHasBYOBReader(stream)
/// (<https://streams.spec.whatwg.org/#readable-stream-has-byob-reader>).
fn readable_stream_has_byob_reader(rt: &Rt, s: ObjectId) -> bool {
    // 1. Let reader be stream.[[reader]].
    // 2. If reader is undefined, return false.
    // 3. If reader implements ReadableStreamBYOBReader, return true.
    // 4. Return false.
    stream(rt, s).reader.is_some_and(|r| is_byob_reader(rt, r))
}

// ---- byte stream controllers' abstract operations --------------------------

/// ReadableByteStreamControllerCallPullIfNeeded(controller)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-call-pull-if-needed>).
fn readable_byte_stream_controller_call_pull_if_needed(rt: &mut Rt, c: ObjectId) {
    // 1. Let shouldPull be ! ReadableByteStreamControllerShouldCallPull(controller).
    // 2. If shouldPull is false, return.
    if !readable_byte_stream_controller_should_call_pull(rt, c) {
        return;
    }
    // 3. If controller.[[pulling]] is true,
    if controller(rt, c).pulling {
        //   1. Set controller.[[pullAgain]] to true.
        controller_mut(rt, c).pull_again = true;
        //   2. Return.
        return;
    }
    // 4. Assert: controller.[[pullAgain]] is false.
    assert!(!controller(rt, c).pull_again);
    // 5. Set controller.[[pulling]] to true.
    controller_mut(rt, c).pulling = true;
    // 6. Let pullPromise be the result of performing controller.[[pullAlgorithm]].
    let algorithm = controller(rt, c)
        .pull_algorithm
        .expect("the pull algorithm of a stream that should pull");
    // (The controller is rooted while the algorithm runs script code.)
    let pull_promise = crate::streams::rooted(rt, &[Value::Object(c)], |rt| {
        perform_pull_algorithm(rt, c, algorithm)
    });
    upon_settlement(
        rt,
        pull_promise,
        &[Value::Object(c)],
        // 7. Upon fulfillment of pullPromise,
        move |rt, _| {
            //   1. Set controller.[[pulling]] to false.
            controller_mut(rt, c).pulling = false;
            //   2. If controller.[[pullAgain]] is true,
            if controller(rt, c).pull_again {
                //  1. Set controller.[[pullAgain]] to false.
                controller_mut(rt, c).pull_again = false;
                //  2. Perform ! ReadableByteStreamControllerCallPullIfNeeded(controller).
                readable_byte_stream_controller_call_pull_if_needed(rt, c);
            }
        },
        // 8. Upon rejection of pullPromise with reason e,
        move |rt, e| {
            //   1. Perform ! ReadableByteStreamControllerError(controller, e).
            error_in_a_reaction(rt, c, e);
        },
    );
}

/// ! ReadableByteStreamControllerError(controller, e) in the reaction to a
/// rejected start or pull promise.
fn error_in_a_reaction(rt: &mut Rt, c: ObjectId, e: Value) {
    rt.clear_internal_assertion();
    readable_byte_stream_controller_error(rt, c, e);
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L368-L377
    // an ERR_INTERNAL_ASSERTION of an async iterator's error steps
    // (crate::iterate) rejects the promise `PromisePrototypeThen` derived
    // for the reaction, which nothing handles.
    if let Some(e) = rt.take_internal_assertion() {
        a_promise_rejected_with(rt, e);
    }
}

/// ReadableByteStreamControllerClearAlgorithms(controller)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-clear-algorithms>).
fn readable_byte_stream_controller_clear_algorithms(rt: &mut Rt, c: ObjectId) {
    let controller = controller_mut(rt, c);
    // 1. Set controller.[[pullAlgorithm]] to undefined.
    controller.pull_algorithm = None;
    // 2. Set controller.[[cancelAlgorithm]] to undefined.
    controller.cancel_algorithm = None;
}

/// ReadableByteStreamControllerClearPendingPullIntos(controller)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-clear-pending-pull-intos>).
fn readable_byte_stream_controller_clear_pending_pull_intos(rt: &mut Rt, c: ObjectId) {
    // 1. Perform ! ReadableByteStreamControllerInvalidateBYOBRequest(controller).
    readable_byte_stream_controller_invalidate_byob_request(rt, c);
    // 2. Set controller.[[pendingPullIntos]] to a new empty list.
    controller_mut(rt, c).pending_pull_intos.clear();
}

/// ReadableByteStreamControllerClose(controller)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-close>).
fn readable_byte_stream_controller_close(rt: &mut Rt, c: ObjectId) -> Result<(), Value> {
    // 1. Let stream be controller.[[stream]].
    let s = controller(rt, c).stream;
    // 2. If controller.[[closeRequested]] is true or stream.[[state]] is not
    //    "readable", return.
    if controller(rt, c).close_requested || stream(rt, s).state != ReadableStreamState::Readable {
        return Ok(());
    }
    // 3. If controller.[[queueTotalSize]] > 0,
    if controller(rt, c).queue_total_size > 0 {
        //   1. Set controller.[[closeRequested]] to true.
        controller_mut(rt, c).close_requested = true;
        //   2. Return.
        return Ok(());
    }
    // 4. If controller.[[pendingPullIntos]] is not empty,
    if !controller(rt, c).pending_pull_intos.is_empty() {
        //   1. Let firstPendingPullInto be controller.[[pendingPullIntos]][0].
        let first = first_pending_pull_into(rt, c);
        //   2. If the remainder after dividing firstPendingPullInto's bytes
        //      filled by firstPendingPullInto's element size is not 0,
        if !first.bytes_filled.is_multiple_of(first.element_size) {
            //  1. Let e be a new TypeError exception.
            // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3109
            let e = err_invalid_state(rt, "Partial read");
            //  2. Perform ! ReadableByteStreamControllerError(controller, e).
            readable_byte_stream_controller_error(rt, c, e.clone());
            //  3. Throw e.
            return Err(e);
        }
    }
    // 5. Perform ! ReadableByteStreamControllerClearAlgorithms(controller).
    readable_byte_stream_controller_clear_algorithms(rt, c);
    // 6. Perform ! ReadableStreamClose(stream).
    readable_stream_close(rt, s);
    Ok(())
}

/// ReadableByteStreamControllerCommitPullIntoDescriptor(stream, pullIntoDescriptor)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-commit-pull-into-descriptor>).
fn readable_byte_stream_controller_commit_pull_into_descriptor(
    rt: &mut Rt,
    s: ObjectId,
    pull_into_descriptor: PullIntoDescriptor,
) {
    // 1. Assert: stream.[[state]] is not "errored".
    assert_ne!(stream(rt, s).state, ReadableStreamState::Errored);
    // 2. Assert: pullIntoDescriptor.reader type is not "none".
    assert_ne!(pull_into_descriptor.reader_type, ReaderType::None);
    // 3. Let done be false.
    let mut done = false;
    // 4. If stream.[[state]] is "closed",
    if stream(rt, s).state == ReadableStreamState::Closed {
        //   1. Assert: the remainder after dividing pullIntoDescriptor's bytes
        //      filled by pullIntoDescriptor's element size is 0.
        assert_eq!(
            pull_into_descriptor.bytes_filled % pull_into_descriptor.element_size,
            0
        );
        //   2. Set done to true.
        done = true;
    }
    // 5. Let filledView be !
    //    ReadableByteStreamControllerConvertPullIntoDescriptor(pullIntoDescriptor).
    let filled_view =
        readable_byte_stream_controller_convert_pull_into_descriptor(rt, pull_into_descriptor);
    // 6. If pullIntoDescriptor's reader type is "default",
    if pull_into_descriptor.reader_type == ReaderType::Default {
        //   1. Perform ! ReadableStreamFulfillReadRequest(stream, filledView, done).
        readable_stream_fulfill_read_request(rt, s, filled_view, done);
    } else {
        // 7. Otherwise,
        //   1. Assert: pullIntoDescriptor's reader type is "byob".
        //   2. Perform ! ReadableStreamFulfillReadIntoRequest(stream,
        //      filledView, done).
        readable_stream_fulfill_read_into_request(rt, s, filled_view, done);
    }
}

/// ReadableByteStreamControllerConvertPullIntoDescriptor(pullIntoDescriptor)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-convert-pull-into-descriptor>).
fn readable_byte_stream_controller_convert_pull_into_descriptor(
    rt: &mut Rt,
    pull_into_descriptor: PullIntoDescriptor,
) -> Value {
    // 1. Let bytesFilled be pullIntoDescriptor's bytes filled.
    let bytes_filled = pull_into_descriptor.bytes_filled;
    // 2. Let elementSize be pullIntoDescriptor's element size.
    let element_size = pull_into_descriptor.element_size;
    // 3. Assert: bytesFilled ≤ pullIntoDescriptor's byte length.
    assert!(bytes_filled <= pull_into_descriptor.byte_length);
    // 4. Assert: the remainder after dividing bytesFilled by elementSize is 0.
    assert_eq!(bytes_filled % element_size, 0);
    // 5. Let buffer be ! TransferArrayBuffer(pullIntoDescriptor's buffer).
    let buffer = rt
        .transfer_array_buffer(pull_into_descriptor.buffer)
        .expect("a pull-into descriptor's buffer is not detached");
    // 6. Return ! Construct(pullIntoDescriptor's view constructor, « buffer,
    //    pullIntoDescriptor's byte offset, bytesFilled ÷ elementSize »).
    rt.new_uint8_array(
        buffer,
        pull_into_descriptor.byte_offset,
        bytes_filled / element_size,
    )
}

/// ReadableByteStreamControllerEnqueue(controller, chunk)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-enqueue>).
fn readable_byte_stream_controller_enqueue(
    rt: &mut Rt,
    c: ObjectId,
    chunk: nodesem_runtime::bytes::View,
) -> Result<(), Value> {
    // 1. Let stream be controller.[[stream]].
    let s = controller(rt, c).stream;
    // 2. If controller.[[closeRequested]] is true or stream.[[state]] is not
    //    "readable", return.
    if controller(rt, c).close_requested || stream(rt, s).state != ReadableStreamState::Readable {
        return Ok(());
    }
    // 3. Let buffer be chunk.[[ViewedArrayBuffer]].
    let buffer = chunk.buffer;
    // 4. Let byteOffset be chunk.[[ByteOffset]].
    let byte_offset = chunk.byte_offset;
    // 5. Let byteLength be chunk.[[ByteLength]].
    let byte_length = chunk.length;
    // 6. If ! IsDetachedBuffer(buffer) is true, throw a TypeError exception.
    // (The public enqueue refused a detached buffer already; the tee's
    // chunks never are.)
    assert!(!rt.is_detached_buffer(buffer));
    // 7. Let transferredBuffer be ? TransferArrayBuffer(buffer).
    let transferred_buffer = rt.transfer_array_buffer(buffer)?;
    // 8. If controller.[[pendingPullIntos]] is not empty,
    if !controller(rt, c).pending_pull_intos.is_empty() {
        //   1. Let firstPendingPullInto be controller.[[pendingPullIntos]][0].
        let first = first_pending_pull_into(rt, c);
        //   2. If ! IsDetachedBuffer(firstPendingPullInto's buffer) is true,
        //      throw a TypeError exception.
        if rt.is_detached_buffer(first.buffer) {
            // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3408-L3412
            return Err(err_invalid_state(rt, "Destination ArrayBuffer is detached"));
        }
        //   3. Perform ! ReadableByteStreamControllerInvalidateBYOBRequest(controller).
        readable_byte_stream_controller_invalidate_byob_request(rt, c);
        //   4. Set firstPendingPullInto's buffer to !
        //      TransferArrayBuffer(firstPendingPullInto's buffer).
        let transferred = rt
            .transfer_array_buffer(first.buffer)
            .expect("a buffer that is not detached");
        first_pending_pull_into_mut(rt, c).buffer = transferred;
        //   5. If firstPendingPullInto's reader type is "none", perform ?
        //      ReadableByteStreamControllerEnqueueDetachedPullIntoToQueue(
        //      controller, firstPendingPullInto).
        if first.reader_type == ReaderType::None {
            let first = first_pending_pull_into(rt, c);
            readable_byte_stream_controller_enqueue_detached_pull_into_to_queue(rt, c, first)?;
        }
    }
    // 9. If ! ReadableStreamHasDefaultReader(stream) is true,
    if readable_stream_has_default_reader(rt, s) {
        //   1. Perform ! ReadableByteStreamControllerProcessReadRequestsUsingQueue(controller).
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3437-L3443
        // this may throw (see the operation).
        readable_byte_stream_controller_process_read_requests_using_queue(rt, c)?;
        //   2. If ! ReadableStreamGetNumReadRequests(stream) is 0,
        if readable_stream_get_num_read_requests(rt, s) == 0 {
            //  1. Assert: controller.[[pendingPullIntos]] is empty.
            // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3444-L3450
            // Node does not assert it (a default pull-into left by a
            // fulfilled autoAllocate read can be pending here), and neither
            // does the model.
            //  2. Perform ! ReadableByteStreamControllerEnqueueChunkToQueue(
            //     controller, transferredBuffer, byteOffset, byteLength).
            readable_byte_stream_controller_enqueue_chunk_to_queue(
                rt,
                c,
                transferred_buffer,
                byte_offset,
                byte_length,
            );
        } else {
            //   3. Otherwise,
            //  1. Assert: controller.[[queue]] is empty.
            assert!(controller(rt, c).queue.is_empty());
            //  2. If controller.[[pendingPullIntos]] is not empty,
            if !controller(rt, c).pending_pull_intos.is_empty() {
                //  1. Assert: controller.[[pendingPullIntos]][0]'s reader type
                //     is "default".
                assert_eq!(
                    first_pending_pull_into(rt, c).reader_type,
                    ReaderType::Default
                );
                //  2. Perform ! ReadableByteStreamControllerShiftPendingPullInto(controller).
                readable_byte_stream_controller_shift_pending_pull_into(rt, c);
            }
            //  3. Let transferredView be ! Construct(%Uint8Array%, «
            //     transferredBuffer, byteOffset, byteLength »).
            let transferred_view = rt.new_uint8_array(transferred_buffer, byte_offset, byte_length);
            //  4. Perform ! ReadableStreamFulfillReadRequest(stream,
            //     transferredView, false).
            readable_stream_fulfill_read_request(rt, s, transferred_view, false);
        }
    } else if readable_stream_has_byob_reader(rt, s) {
        // 10. Otherwise, if ! ReadableStreamHasBYOBReader(stream) is true,
        //   1. Perform ! ReadableByteStreamControllerEnqueueChunkToQueue(
        //      controller, transferredBuffer, byteOffset, byteLength).
        readable_byte_stream_controller_enqueue_chunk_to_queue(
            rt,
            c,
            transferred_buffer,
            byte_offset,
            byte_length,
        );
        //   2. Let filledPullIntos be the result of performing !
        //      ReadableByteStreamControllerProcessPullIntoDescriptorsUsingQueue(controller).
        let filled_pull_intos =
            readable_byte_stream_controller_process_pull_into_descriptors_using_queue(rt, c);
        //   3. For each filledPullInto of filledPullIntos,
        for filled_pull_into in filled_pull_intos {
            //  1. Perform ! ReadableByteStreamControllerCommitPullIntoDescriptor(
            //     stream, filledPullInto).
            readable_byte_stream_controller_commit_pull_into_descriptor(rt, s, filled_pull_into);
        }
    } else {
        // 11. Otherwise,
        //   1. Assert: ! IsReadableStreamLocked(stream) is false.
        assert!(!is_readable_stream_locked(rt, s));
        //   2. Perform ! ReadableByteStreamControllerEnqueueChunkToQueue(
        //      controller, transferredBuffer, byteOffset, byteLength).
        readable_byte_stream_controller_enqueue_chunk_to_queue(
            rt,
            c,
            transferred_buffer,
            byte_offset,
            byte_length,
        );
    }
    // 12. Perform ! ReadableByteStreamControllerCallPullIfNeeded(controller).
    readable_byte_stream_controller_call_pull_if_needed(rt, c);
    Ok(())
}

/// ReadableByteStreamControllerEnqueueChunkToQueue(controller, buffer,
/// byteOffset, byteLength)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-enqueue-chunk-to-queue>).
fn readable_byte_stream_controller_enqueue_chunk_to_queue(
    rt: &mut Rt,
    c: ObjectId,
    buffer: ObjectId,
    byte_offset: usize,
    byte_length: usize,
) {
    let controller = controller_mut(rt, c);
    // 1. Append a new readable byte stream queue entry with buffer buffer,
    //    byte offset byteOffset, and byte length byteLength to
    //    controller.[[queue]].
    controller.queue.push_back(ReadableByteStreamQueueEntry {
        buffer,
        byte_offset,
        byte_length,
    });
    // 2. Set controller.[[queueTotalSize]] to controller.[[queueTotalSize]] +
    //    byteLength.
    controller.queue_total_size += byte_length;
}

/// ReadableByteStreamControllerEnqueueClonedChunkToQueue(controller, buffer,
/// byteOffset, byteLength)
/// (<https://streams.spec.whatwg.org/#abstract-opdef-readablebytestreamcontrollerenqueueclonedchunktoqueue>).
fn readable_byte_stream_controller_enqueue_cloned_chunk_to_queue(
    rt: &mut Rt,
    c: ObjectId,
    buffer: ObjectId,
    byte_offset: usize,
    byte_length: usize,
) -> Result<(), Value> {
    // 1. Let cloneResult be CloneArrayBuffer(buffer, byteOffset, byteLength,
    //    %ArrayBuffer%).
    // 2. If cloneResult is an abrupt completion, ... (MODEL: the buffer is
    //    a pull-into descriptor's, never detached here, so the clone cannot
    //    fail.)
    let clone_result = rt.array_buffer_slice(buffer, byte_offset, byte_offset + byte_length);
    // 3. Perform ! ReadableByteStreamControllerEnqueueChunkToQueue(controller,
    //    cloneResult.[[Value]], 0, byteLength).
    readable_byte_stream_controller_enqueue_chunk_to_queue(rt, c, clone_result, 0, byte_length);
    Ok(())
}

/// ReadableByteStreamControllerEnqueueDetachedPullIntoToQueue(controller,
/// pullIntoDescriptor)
/// (<https://streams.spec.whatwg.org/#abstract-opdef-readablebytestreamcontrollerenqueuedetachedpullintotoqueue>).
fn readable_byte_stream_controller_enqueue_detached_pull_into_to_queue(
    rt: &mut Rt,
    c: ObjectId,
    pull_into_descriptor: PullIntoDescriptor,
) -> Result<(), Value> {
    // 1. Assert: pullIntoDescriptor's reader type is "none".
    assert_eq!(pull_into_descriptor.reader_type, ReaderType::None);
    // 2. If pullIntoDescriptor's bytes filled > 0, perform ?
    //    ReadableByteStreamControllerEnqueueClonedChunkToQueue(controller,
    //    pullIntoDescriptor's buffer, pullIntoDescriptor's byte offset,
    //    pullIntoDescriptor's bytes filled).
    if pull_into_descriptor.bytes_filled > 0 {
        readable_byte_stream_controller_enqueue_cloned_chunk_to_queue(
            rt,
            c,
            pull_into_descriptor.buffer,
            pull_into_descriptor.byte_offset,
            pull_into_descriptor.bytes_filled,
        )?;
    }
    // 3. Perform ! ReadableByteStreamControllerShiftPendingPullInto(controller).
    readable_byte_stream_controller_shift_pending_pull_into(rt, c);
    Ok(())
}

/// ReadableByteStreamControllerError(controller, e)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-error>).
pub(crate) fn readable_byte_stream_controller_error(rt: &mut Rt, c: ObjectId, e: Value) {
    // 1. Let stream be controller.[[stream]].
    let s = controller(rt, c).stream;
    // 2. If stream.[[state]] is not "readable", return.
    if stream(rt, s).state != ReadableStreamState::Readable {
        return;
    }
    // 3. Perform ! ReadableByteStreamControllerClearPendingPullIntos(controller).
    readable_byte_stream_controller_clear_pending_pull_intos(rt, c);
    // 4. Perform ! ResetQueue(controller).
    reset_queue(rt, c);
    // 5. Perform ! ReadableByteStreamControllerClearAlgorithms(controller).
    readable_byte_stream_controller_clear_algorithms(rt, c);
    // 6. Perform ! ReadableStreamError(stream, e).
    readable_stream_error(rt, s, e);
}

/// ReadableByteStreamControllerFillHeadPullIntoDescriptor(controller, size,
/// pullIntoDescriptor)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-fill-head-pull-into-descriptor>):
/// `descriptor` is the descriptor to fill (the head of
/// [[pendingPullIntos]], or one not yet appended).
fn readable_byte_stream_controller_fill_head_pull_into_descriptor(
    rt: &Rt,
    c: ObjectId,
    size: usize,
    descriptor: &mut PullIntoDescriptor,
) {
    // 1. Assert: either controller.[[pendingPullIntos]] is empty, or
    //    controller.[[pendingPullIntos]][0] is pullIntoDescriptor.
    // 2. Assert: controller.[[byobRequest]] is null.
    assert!(controller(rt, c).byob_request.is_none());
    // 3. Set pullIntoDescriptor's bytes filled to bytes filled + size.
    descriptor.bytes_filled += size;
}

/// ReadableByteStreamControllerFillPullIntoDescriptorFromQueue(controller,
/// pullIntoDescriptor)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-fill-pull-into-descriptor-from-queue>).
fn readable_byte_stream_controller_fill_pull_into_descriptor_from_queue(
    rt: &mut Rt,
    c: ObjectId,
    descriptor: &mut PullIntoDescriptor,
) -> bool {
    // 1. Let maxBytesToCopy be min(controller.[[queueTotalSize]],
    //    pullIntoDescriptor's byte length − pullIntoDescriptor's bytes filled).
    let max_bytes_to_copy = controller(rt, c)
        .queue_total_size
        .min(descriptor.byte_length - descriptor.bytes_filled);
    // 2. Let maxBytesFilled be pullIntoDescriptor's bytes filled + maxBytesToCopy.
    let max_bytes_filled = descriptor.bytes_filled + max_bytes_to_copy;
    // 3. Let totalBytesToCopyRemaining be maxBytesToCopy.
    let mut total_bytes_to_copy_remaining = max_bytes_to_copy;
    // 4. Let ready be false.
    let mut ready = false;
    // 5. Assert: ! IsDetachedBuffer(pullIntoDescriptor's buffer) is false.
    assert!(!rt.is_detached_buffer(descriptor.buffer));
    // 6. Assert: pullIntoDescriptor's bytes filled < pullIntoDescriptor's
    //    minimum fill.
    assert!(descriptor.bytes_filled < descriptor.minimum_fill);
    // 7. Let remainderBytes be the remainder after dividing maxBytesFilled by
    //    pullIntoDescriptor's element size.
    let remainder_bytes = max_bytes_filled % descriptor.element_size;
    // 8. Let maxAlignedBytes be maxBytesFilled − remainderBytes.
    let max_aligned_bytes = max_bytes_filled - remainder_bytes;
    // 9. If maxAlignedBytes ≥ pullIntoDescriptor's minimum fill,
    if max_aligned_bytes >= descriptor.minimum_fill {
        //   1. Set totalBytesToCopyRemaining to maxAlignedBytes −
        //      pullIntoDescriptor's bytes filled.
        total_bytes_to_copy_remaining = max_aligned_bytes - descriptor.bytes_filled;
        //   2. Set ready to true.
        ready = true;
    }
    // 10. Let queue be controller.[[queue]].
    // 11. While totalBytesToCopyRemaining > 0,
    while total_bytes_to_copy_remaining > 0 {
        //   1. Let headOfQueue be queue[0].
        let head_of_queue = *controller(rt, c).queue.front().expect("a queued chunk");
        //   2. Let bytesToCopy be min(totalBytesToCopyRemaining,
        //      headOfQueue's byte length).
        let bytes_to_copy = total_bytes_to_copy_remaining.min(head_of_queue.byte_length);
        //   3. Let destStart be pullIntoDescriptor's byte offset +
        //      pullIntoDescriptor's bytes filled.
        let dest_start = descriptor.byte_offset + descriptor.bytes_filled;
        //   4. Let descriptorBuffer be pullIntoDescriptor's buffer.
        //   5. Let queueBuffer be headOfQueue's buffer.
        //   6. Let queueByteOffset be headOfQueue's byte offset.
        //   7. Assert: ! CanCopyDataBlockBytes(descriptorBuffer, destStart,
        //      queueBuffer, queueByteOffset, bytesToCopy) is true.
        assert_ne!(descriptor.buffer, head_of_queue.buffer);
        //   8. Perform ! CopyDataBlockBytes(descriptorBuffer.[[ArrayBufferData]],
        //      destStart, queueBuffer.[[ArrayBufferData]], queueByteOffset,
        //      bytesToCopy).
        rt.copy_buffer_bytes(
            descriptor.buffer,
            dest_start,
            head_of_queue.buffer,
            head_of_queue.byte_offset,
            bytes_to_copy,
        );
        let controller_slots = controller_mut(rt, c);
        //   9. If headOfQueue's byte length is bytesToCopy,
        if head_of_queue.byte_length == bytes_to_copy {
            //  1. Remove queue[0].
            controller_slots.queue.pop_front();
        } else {
            //   10. Otherwise,
            let head = controller_slots.queue.front_mut().expect("a queued chunk");
            //  1. Set headOfQueue's byte offset to headOfQueue's byte offset +
            //     bytesToCopy.
            head.byte_offset += bytes_to_copy;
            //  2. Set headOfQueue's byte length to headOfQueue's byte length −
            //     bytesToCopy.
            head.byte_length -= bytes_to_copy;
        }
        //   11. Set controller.[[queueTotalSize]] to
        //       controller.[[queueTotalSize]] − bytesToCopy.
        controller_slots.queue_total_size -= bytes_to_copy;
        //   12. Perform ! ReadableByteStreamControllerFillHeadPullIntoDescriptor(
        //       controller, bytesToCopy, pullIntoDescriptor).
        readable_byte_stream_controller_fill_head_pull_into_descriptor(
            rt,
            c,
            bytes_to_copy,
            descriptor,
        );
        //   13. Set totalBytesToCopyRemaining to totalBytesToCopyRemaining −
        //       bytesToCopy.
        total_bytes_to_copy_remaining -= bytes_to_copy;
    }
    // 12. If ready is false,
    if !ready {
        //   1. Assert: controller.[[queueTotalSize]] is 0.
        assert_eq!(controller(rt, c).queue_total_size, 0);
        //   2. Assert: pullIntoDescriptor's bytes filled > 0.
        assert!(descriptor.bytes_filled > 0);
        //   3. Assert: pullIntoDescriptor's bytes filled < pullIntoDescriptor's
        //      minimum fill.
        assert!(descriptor.bytes_filled < descriptor.minimum_fill);
    }
    // 13. Return ready.
    ready
}

/// ReadableByteStreamControllerFillReadRequestFromQueue(controller, readRequest)
/// (<https://streams.spec.whatwg.org/#abstract-opdef-readablebytestreamcontrollerfillreadrequestfromqueue>).
fn readable_byte_stream_controller_fill_read_request_from_queue(
    rt: &mut Rt,
    c: ObjectId,
    read_request: ReadRequest,
) {
    // 1-6.
    // (The read request, in no slot, is rooted while the drain may pull.)
    let view = crate::streams::rooted(rt, &[read_request.holds()], |rt| {
        fill_read_request_from_queue_view(rt, c)
    });
    // 7. Perform readRequest's chunk steps, given view.
    read_request_chunk_steps(rt, read_request, view);
}

/// Steps 1-6 of ReadableByteStreamControllerFillReadRequestFromQueue: the
/// queue's first entry, removed (with the drain step: close or pull), as a
/// view. Also Node's byte fast path of the async iterator's `next()`, which
/// has no read request (see `iterate::next`).
pub(crate) fn fill_read_request_from_queue_view(rt: &mut Rt, c: ObjectId) -> Value {
    // 1. Assert: controller.[[queueTotalSize]] > 0.
    assert!(controller(rt, c).queue_total_size > 0);
    // 2. Let entry be controller.[[queue]][0].
    // 3. Remove entry from controller.[[queue]].
    let entry = controller_mut(rt, c)
        .queue
        .pop_front()
        .expect("a queued chunk");
    // 4. Set controller.[[queueTotalSize]] to controller.[[queueTotalSize]] −
    //    entry's byte length.
    controller_mut(rt, c).queue_total_size -= entry.byte_length;
    // 5. Perform ! ReadableByteStreamControllerHandleQueueDrain(controller).
    // (The entry's buffer, in no slot now, is rooted while the drain may
    // pull and run script code.)
    crate::streams::rooted(rt, &[Value::Object(entry.buffer)], |rt| {
        readable_byte_stream_controller_handle_queue_drain(rt, c)
    });
    // 6. Let view be ! Construct(%Uint8Array%, « entry's buffer, entry's byte
    //    offset, entry's byte length »).
    rt.new_uint8_array(entry.buffer, entry.byte_offset, entry.byte_length)
}

/// Whether a byte controller's queue holds bytes
/// (controller.[[queueTotalSize]] > 0).
pub(crate) fn has_queued_bytes(rt: &Rt, c: ObjectId) -> bool {
    controller(rt, c).queue_total_size > 0
}

/// ReadableByteStreamControllerGetBYOBRequest(controller)
/// (<https://streams.spec.whatwg.org/#abstract-opdef-readablebytestreamcontrollergetbyobrequest>).
fn readable_byte_stream_controller_get_byob_request(rt: &mut Rt, c: ObjectId) -> Option<ObjectId> {
    // 1. If controller.[[byobRequest]] is null and
    //    controller.[[pendingPullIntos]] is not empty,
    if controller(rt, c).byob_request.is_none() && !controller(rt, c).pending_pull_intos.is_empty()
    {
        //   1. Let firstDescriptor be controller.[[pendingPullIntos]][0].
        let first = first_pending_pull_into(rt, c);
        //   2. Let view be ! Construct(%Uint8Array%, « firstDescriptor's
        //      buffer, firstDescriptor's byte offset + firstDescriptor's bytes
        //      filled, firstDescriptor's byte length − firstDescriptor's bytes
        //      filled »).
        let view = rt.new_uint8_array(
            first.buffer,
            first.byte_offset + first.bytes_filled,
            first.byte_length - first.bytes_filled,
        );
        //   3. Let byobRequest be a new ReadableStreamBYOBRequest.
        let byob_request = rt.heap.alloc(ObjectData::Host);
        //   4. Set byobRequest.[[controller]] to controller.
        //   5. Set byobRequest.[[view]] to view.
        rt.lib.streams.bytes.byob_requests.insert(
            byob_request,
            ReadableStreamBYOBRequest {
                controller: Some(c),
                view,
            },
        );
        //   6. Set controller.[[byobRequest]] to byobRequest.
        controller_mut(rt, c).byob_request = Some(byob_request);
    }
    // 2. Return controller.[[byobRequest]].
    controller(rt, c).byob_request
}

/// ReadableByteStreamControllerGetDesiredSize(controller)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-get-desired-size>):
/// `None` is null.
fn readable_byte_stream_controller_get_desired_size(rt: &Rt, c: ObjectId) -> Option<f64> {
    let controller = controller(rt, c);
    // 1. Let state be controller.[[stream]].[[state]].
    match stream(rt, controller.stream).state {
        // 2. If state is "errored", return null.
        ReadableStreamState::Errored => None,
        // 3. If state is "closed", return 0.
        ReadableStreamState::Closed => Some(0.0),
        // 4. Return controller.[[strategyHWM]] − controller.[[queueTotalSize]].
        ReadableStreamState::Readable => {
            Some(controller.strategy_hwm - controller.queue_total_size as f64)
        }
    }
}

/// ReadableByteStreamControllerHandleQueueDrain(controller)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-handle-queue-drain>).
fn readable_byte_stream_controller_handle_queue_drain(rt: &mut Rt, c: ObjectId) {
    let s = controller(rt, c).stream;
    // 1. Assert: controller.[[stream]].[[state]] is "readable".
    assert_eq!(stream(rt, s).state, ReadableStreamState::Readable);
    // 2. If controller.[[queueTotalSize]] is 0 and
    //    controller.[[closeRequested]] is true,
    if controller(rt, c).queue_total_size == 0 && controller(rt, c).close_requested {
        //   1. Perform ! ReadableByteStreamControllerClearAlgorithms(controller).
        readable_byte_stream_controller_clear_algorithms(rt, c);
        //   2. Perform ! ReadableStreamClose(controller.[[stream]]).
        readable_stream_close(rt, s);
    } else {
        // 3. Otherwise,
        //   1. Perform ! ReadableByteStreamControllerCallPullIfNeeded(controller).
        readable_byte_stream_controller_call_pull_if_needed(rt, c);
    }
}

/// ReadableByteStreamControllerInvalidateBYOBRequest(controller)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-invalidate-byob-request>).
fn readable_byte_stream_controller_invalidate_byob_request(rt: &mut Rt, c: ObjectId) {
    // 1. If controller.[[byobRequest]] is null, return.
    let Some(q) = controller(rt, c).byob_request else {
        return;
    };
    let request = rt
        .lib
        .streams
        .bytes
        .byob_requests
        .get_mut(&q)
        .expect("a ReadableStreamBYOBRequest");
    // 2. Set controller.[[byobRequest]].[[controller]] to undefined.
    request.controller = None;
    // 3. Set controller.[[byobRequest]].[[view]] to null.
    request.view = Value::Null;
    // 4. Set controller.[[byobRequest]] to null.
    controller_mut(rt, c).byob_request = None;
}

/// ReadableByteStreamControllerProcessPullIntoDescriptorsUsingQueue(controller)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-process-pull-into-descriptors-using-queue>).
fn readable_byte_stream_controller_process_pull_into_descriptors_using_queue(
    rt: &mut Rt,
    c: ObjectId,
) -> Vec<PullIntoDescriptor> {
    // 1. Assert: controller.[[closeRequested]] is false.
    assert!(!controller(rt, c).close_requested);
    // 2. Let filledPullIntos be a new empty list.
    let mut filled_pull_intos = Vec::new();
    // 3. While controller.[[pendingPullIntos]] is not empty,
    while !controller(rt, c).pending_pull_intos.is_empty() {
        //   1. If controller.[[queueTotalSize]] is 0, then break.
        if controller(rt, c).queue_total_size == 0 {
            break;
        }
        //   2. Let pullIntoDescriptor be controller.[[pendingPullIntos]][0].
        let mut descriptor = first_pending_pull_into(rt, c);
        //   3. If ! ReadableByteStreamControllerFillPullIntoDescriptorFromQueue(
        //      controller, pullIntoDescriptor) is true,
        let ready = readable_byte_stream_controller_fill_pull_into_descriptor_from_queue(
            rt,
            c,
            &mut descriptor,
        );
        *first_pending_pull_into_mut(rt, c) = descriptor;
        if ready {
            //  1. Perform ! ReadableByteStreamControllerShiftPendingPullInto(controller).
            readable_byte_stream_controller_shift_pending_pull_into(rt, c);
            //  2. Append pullIntoDescriptor to filledPullIntos.
            filled_pull_intos.push(descriptor);
        }
    }
    // 4. Return filledPullIntos.
    filled_pull_intos
}

/// ReadableByteStreamControllerProcessReadRequestsUsingQueue(controller)
/// (<https://streams.spec.whatwg.org/#abstract-opdef-readablebytestreamcontrollerprocessreadrequestsusingqueue>).
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3827-L3844>
/// Node reads `queueTotalSize` once, before the loop, so step 3.1 never
/// sees the queue drained by the requests it fulfilled: with more read
/// requests than queued chunks (a released reader's partly filled
/// pull-into copied to the queue by an enqueue, with two default reads
/// waiting), the next request is taken out of [[readRequests]] and
/// ReadableByteStreamControllerDequeueChunk's `assert(queueTotalSize > 0)`
/// throws ERR_INTERNAL_ASSERTION out of `enqueue()` (L3810-L3812): that
/// read request is lost, and the rest of the enqueue does not run. The
/// model does the same; the error is the `Err`.
fn readable_byte_stream_controller_process_read_requests_using_queue(
    rt: &mut Rt,
    c: ObjectId,
) -> Result<(), Value> {
    // 1. Let reader be controller.[[stream]].[[reader]].
    let s = controller(rt, c).stream;
    // 2. Assert: reader implements ReadableStreamDefaultReader.
    assert!(readable_stream_has_default_reader(rt, s));
    let r = stream(rt, s).reader.expect("the stream's default reader");
    let queue_total_size_before = controller(rt, c).queue_total_size;
    // 3. While reader.[[readRequests]] is not empty,
    while !crate::streams::reader(rt, r).read_requests.is_empty() {
        //   1. If controller.[[queueTotalSize]] is 0, return.
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3828-L3838
        // the size before the loop (see above).
        if queue_total_size_before == 0 {
            return Ok(());
        }
        //   2. Let readRequest be reader.[[readRequests]][0].
        //   3. Remove readRequest from reader.[[readRequests]].
        let read_request = crate::streams::reader_mut(rt, r)
            .read_requests
            .pop_front()
            .expect("a read request");
        if controller(rt, c).queue_total_size == 0 {
            return Err(rt.internal_assertion_error());
        }
        //   4. Perform ! ReadableByteStreamControllerFillReadRequestFromQueue(
        //      controller, readRequest).
        readable_byte_stream_controller_fill_read_request_from_queue(rt, c, read_request);
    }
    Ok(())
}

/// ReadableByteStreamControllerPullInto(controller, view, min, readIntoRequest)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-pull-into>).
fn readable_byte_stream_controller_pull_into(
    rt: &mut Rt,
    c: ObjectId,
    view: nodesem_runtime::bytes::View,
    min: usize,
    read_into_request: ReadIntoRequest,
) {
    // 1. Let stream be controller.[[stream]].
    let s = controller(rt, c).stream;
    // 2. Let elementSize be 1.
    // 3. Let ctor be %DataView%.
    // 4. If view has a [[TypedArrayName]] internal slot (i.e., it is not a
    //    DataView), set elementSize to the element size specified in the
    //    typed array constructors table for view.[[TypedArrayName]], and set
    //    ctor to the constructor specified in the typed array constructors
    //    table for view.[[TypedArrayName]]. (Uint8Array: 1, %Uint8Array%.)
    let element_size = 1;
    // 5. Let minimumFill be min × elementSize.
    let minimum_fill = min * element_size;
    // 6. Assert: minimumFill ≥ 0 and minimumFill ≤ view.[[ByteLength]].
    assert!(minimum_fill <= view.length);
    // 7. Assert: the remainder after dividing minimumFill by elementSize is 0.
    // 8. Let byteOffset be view.[[ByteOffset]].
    let byte_offset = view.byte_offset;
    // 9. Let byteLength be view.[[ByteLength]].
    let byte_length = view.length;
    // 10. Let bufferResult be TransferArrayBuffer(view.[[ViewedArrayBuffer]]).
    // 11. If bufferResult is an abrupt completion,
    //   1. Perform readIntoRequest's error steps, given bufferResult.[[Value]].
    //   2. Return.
    // 12. Let buffer be bufferResult.[[Value]].
    let buffer = match rt.transfer_array_buffer(view.buffer) {
        Ok(buffer) => buffer,
        Err(e) => {
            read_into_request_error_steps(rt, read_into_request, e);
            return;
        }
    };
    // 13. Let pullIntoDescriptor be a new pull-into descriptor with buffer
    //     buffer, buffer byte length buffer.[[ArrayBufferByteLength]], byte
    //     offset byteOffset, byte length byteLength, bytes filled 0, minimum
    //     fill minimumFill, element size elementSize, view constructor ctor,
    //     and reader type "byob".
    let mut descriptor = PullIntoDescriptor {
        buffer,
        buffer_byte_length: rt.array_buffer_byte_length(buffer),
        byte_offset,
        byte_length,
        bytes_filled: 0,
        minimum_fill,
        element_size,
        reader_type: ReaderType::Byob,
    };
    // 14. If controller.[[pendingPullIntos]] is not empty,
    if !controller(rt, c).pending_pull_intos.is_empty() {
        //   1. Append pullIntoDescriptor to controller.[[pendingPullIntos]].
        controller_mut(rt, c)
            .pending_pull_intos
            .push_back(descriptor);
        //   2. Perform ! ReadableStreamAddReadIntoRequest(stream, readIntoRequest).
        readable_stream_add_read_into_request(rt, s, read_into_request);
        //   3. Return.
        return;
    }
    // 15. If stream.[[state]] is "closed",
    if stream(rt, s).state == ReadableStreamState::Closed {
        //   1. Let emptyView be ! Construct(ctor, « pullIntoDescriptor's
        //      buffer, pullIntoDescriptor's byte offset, 0 »).
        let empty_view = rt.new_uint8_array(descriptor.buffer, descriptor.byte_offset, 0);
        //   2. Perform readIntoRequest's close steps, given emptyView.
        read_into_request_close_steps(rt, read_into_request, empty_view);
        //   3. Return.
        return;
    }
    // 16. If controller.[[queueTotalSize]] > 0,
    if controller(rt, c).queue_total_size > 0 {
        //   1. If ! ReadableByteStreamControllerFillPullIntoDescriptorFromQueue(
        //      controller, pullIntoDescriptor) is true,
        if readable_byte_stream_controller_fill_pull_into_descriptor_from_queue(
            rt,
            c,
            &mut descriptor,
        ) {
            //  1. Let filledView be !
            //     ReadableByteStreamControllerConvertPullIntoDescriptor(pullIntoDescriptor).
            let filled_view =
                readable_byte_stream_controller_convert_pull_into_descriptor(rt, descriptor);
            //  2. Perform ! ReadableByteStreamControllerHandleQueueDrain(controller).
            // (filledView and the request, in no slot, are rooted while the
            // drain may pull and run script code.)
            let roots = [filled_view.clone(), read_into_request.holds()];
            crate::streams::rooted(rt, &roots, |rt| {
                readable_byte_stream_controller_handle_queue_drain(rt, c)
            });
            //  3. Perform readIntoRequest's chunk steps, given filledView.
            read_into_request_chunk_steps(rt, read_into_request, filled_view);
            //  4. Return.
            return;
        }
        //   2. If controller.[[closeRequested]] is true,
        if controller(rt, c).close_requested {
            //  1. Let e be a TypeError exception.
            // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3285-L3290
            let e = err_invalid_state(rt, "ReadableStream closed");
            //  2. Perform ! ReadableByteStreamControllerError(controller, e).
            readable_byte_stream_controller_error(rt, c, e.clone());
            //  3. Perform readIntoRequest's error steps, given e.
            read_into_request_error_steps(rt, read_into_request, e);
            //  4. Return.
            return;
        }
    }
    // 17. Append pullIntoDescriptor to controller.[[pendingPullIntos]].
    controller_mut(rt, c)
        .pending_pull_intos
        .push_back(descriptor);
    // 18. Perform ! ReadableStreamAddReadIntoRequest(stream, readIntoRequest).
    readable_stream_add_read_into_request(rt, s, read_into_request);
    // 19. Perform ! ReadableByteStreamControllerCallPullIfNeeded(controller).
    readable_byte_stream_controller_call_pull_if_needed(rt, c);
}

/// ReadableByteStreamControllerRespond(controller, bytesWritten)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-respond>).
fn readable_byte_stream_controller_respond(
    rt: &mut Rt,
    c: ObjectId,
    bytes_written: f64,
) -> Result<(), Value> {
    // 1. Assert: controller.[[pendingPullIntos]] is not empty.
    // 2. Let firstDescriptor be controller.[[pendingPullIntos]][0].
    let first = first_pending_pull_into(rt, c);
    // 3. Let state be controller.[[stream]].[[state]].
    let s = controller(rt, c).stream;
    let state = stream(rt, s).state;
    // 4. If state is "closed",
    if state == ReadableStreamState::Closed {
        //   1. If bytesWritten is not 0, throw a TypeError exception.
        if bytes_written != 0.0 {
            // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3340-L3342
            // `new ERR_INVALID_ARG_VALUE('bytesWritten', bytesWritten)`.
            return Err(err_invalid_arg_value(
                rt,
                false,
                "bytesWritten",
                &Value::Number(bytes_written),
                "is invalid",
            ));
        }
    } else {
        // 5. Otherwise,
        //   1. Assert: state is "readable".
        assert_eq!(state, ReadableStreamState::Readable);
        //   2. If bytesWritten is 0, throw a TypeError exception.
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3345-L3351
        // `new ERR_INVALID_ARG_VALUE('bytesWritten', bytesWritten)` (NaN
        // too), and its RangeError for too many bytes.
        if bytes_written == 0.0 || bytes_written.is_nan() {
            return Err(err_invalid_arg_value(
                rt,
                false,
                "bytesWritten",
                &Value::Number(bytes_written),
                "is invalid",
            ));
        }
        //   3. If firstDescriptor's bytes filled + bytesWritten >
        //      firstDescriptor's byte length, throw a RangeError exception.
        if first.bytes_filled as f64 + bytes_written > first.byte_length as f64 {
            return Err(err_invalid_arg_value(
                rt,
                true,
                "bytesWritten",
                &Value::Number(bytes_written),
                "is invalid",
            ));
        }
    }
    // 6. Set firstDescriptor's buffer to ! TransferArrayBuffer(firstDescriptor's buffer).
    let transferred = rt
        .transfer_array_buffer(first.buffer)
        .expect("a pull-into descriptor's buffer is not detached");
    first_pending_pull_into_mut(rt, c).buffer = transferred;
    // 7. Perform ? ReadableByteStreamControllerRespondInternal(controller,
    //    bytesWritten).
    readable_byte_stream_controller_respond_internal(rt, c, bytes_written as usize)
}

/// ReadableByteStreamControllerRespondInClosedState(controller, firstDescriptor)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-respond-in-closed-state>).
fn readable_byte_stream_controller_respond_in_closed_state(
    rt: &mut Rt,
    c: ObjectId,
    first_descriptor: PullIntoDescriptor,
) {
    // 1. Assert: the remainder after dividing firstDescriptor's bytes filled
    //    by firstDescriptor's element size is 0.
    assert_eq!(
        first_descriptor.bytes_filled % first_descriptor.element_size,
        0
    );
    // 2. If firstDescriptor's reader type is "none", perform !
    //    ReadableByteStreamControllerShiftPendingPullInto(controller).
    if first_descriptor.reader_type == ReaderType::None {
        readable_byte_stream_controller_shift_pending_pull_into(rt, c);
    }
    // 3. Let stream be controller.[[stream]].
    let s = controller(rt, c).stream;
    // 4. If ! ReadableStreamHasBYOBReader(stream) is true,
    if readable_stream_has_byob_reader(rt, s) {
        //   1. Let filledPullIntos be a new empty list.
        let mut filled_pull_intos = Vec::new();
        //   2. While filledPullIntos's size < !
        //      ReadableStreamGetNumReadIntoRequests(stream),
        while filled_pull_intos.len() < readable_stream_get_num_read_into_requests(rt, s) {
            //  1. Let pullIntoDescriptor be !
            //     ReadableByteStreamControllerShiftPendingPullInto(controller).
            let descriptor = readable_byte_stream_controller_shift_pending_pull_into(rt, c);
            //  2. Append pullIntoDescriptor to filledPullIntos.
            filled_pull_intos.push(descriptor);
        }
        //   3. For each filledPullInto of filledPullIntos,
        for filled_pull_into in filled_pull_intos {
            //  1. Perform ! ReadableByteStreamControllerCommitPullIntoDescriptor(
            //     stream, filledPullInto).
            readable_byte_stream_controller_commit_pull_into_descriptor(rt, s, filled_pull_into);
        }
    }
}

/// ReadableByteStreamControllerRespondInReadableState(controller,
/// bytesWritten, pullIntoDescriptor)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-respond-in-readable-state>).
fn readable_byte_stream_controller_respond_in_readable_state(
    rt: &mut Rt,
    c: ObjectId,
    bytes_written: usize,
) -> Result<(), Value> {
    let s = controller(rt, c).stream;
    let mut descriptor = first_pending_pull_into(rt, c);
    // 1. Assert: pullIntoDescriptor's bytes filled + bytesWritten ≤
    //    pullIntoDescriptor's byte length.
    assert!(descriptor.bytes_filled + bytes_written <= descriptor.byte_length);
    // 2. Perform ! ReadableByteStreamControllerFillHeadPullIntoDescriptor(
    //    controller, bytesWritten, pullIntoDescriptor).
    readable_byte_stream_controller_fill_head_pull_into_descriptor(
        rt,
        c,
        bytes_written,
        &mut descriptor,
    );
    *first_pending_pull_into_mut(rt, c) = descriptor;
    // 3. If pullIntoDescriptor's reader type is "none",
    if descriptor.reader_type == ReaderType::None {
        //   1. Perform ? ReadableByteStreamControllerEnqueueDetachedPullIntoToQueue(
        //      controller, pullIntoDescriptor).
        readable_byte_stream_controller_enqueue_detached_pull_into_to_queue(rt, c, descriptor)?;
        //   2. Let filledPullIntos be the result of performing !
        //      ReadableByteStreamControllerProcessPullIntoDescriptorsUsingQueue(controller).
        let filled_pull_intos =
            readable_byte_stream_controller_process_pull_into_descriptors_using_queue(rt, c);
        //   3. For each filledPullInto of filledPullIntos,
        for filled_pull_into in filled_pull_intos {
            //  1. Perform ! ReadableByteStreamControllerCommitPullIntoDescriptor(
            //     controller.[[stream]], filledPullInto).
            readable_byte_stream_controller_commit_pull_into_descriptor(rt, s, filled_pull_into);
        }
        //   4. Return.
        return Ok(());
    }
    // 4. If pullIntoDescriptor's bytes filled < pullIntoDescriptor's minimum
    //    fill, return.
    if descriptor.bytes_filled < descriptor.minimum_fill {
        return Ok(());
    }
    // 5. Perform ! ReadableByteStreamControllerShiftPendingPullInto(controller).
    readable_byte_stream_controller_shift_pending_pull_into(rt, c);
    // 6. Let remainderSize be the remainder after dividing
    //    pullIntoDescriptor's bytes filled by pullIntoDescriptor's element
    //    size.
    let remainder_size = descriptor.bytes_filled % descriptor.element_size;
    // 7. If remainderSize > 0, ... (MODEL: element size 1, no remainder.)
    assert_eq!(remainder_size, 0);
    // 8. Set pullIntoDescriptor's bytes filled to pullIntoDescriptor's bytes
    //    filled − remainderSize.
    descriptor.bytes_filled -= remainder_size;
    // 9. Let filledPullIntos be the result of performing !
    //    ReadableByteStreamControllerProcessPullIntoDescriptorsUsingQueue(controller).
    let filled_pull_intos =
        readable_byte_stream_controller_process_pull_into_descriptors_using_queue(rt, c);
    // 10. Perform ! ReadableByteStreamControllerCommitPullIntoDescriptor(
    //     controller.[[stream]], pullIntoDescriptor).
    readable_byte_stream_controller_commit_pull_into_descriptor(rt, s, descriptor);
    // 11. For each filledPullInto of filledPullIntos,
    for filled_pull_into in filled_pull_intos {
        //   1. Perform ! ReadableByteStreamControllerCommitPullIntoDescriptor(
        //      controller.[[stream]], filledPullInto).
        readable_byte_stream_controller_commit_pull_into_descriptor(rt, s, filled_pull_into);
    }
    Ok(())
}

/// ReadableByteStreamControllerRespondInternal(controller, bytesWritten)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-respond-internal>).
fn readable_byte_stream_controller_respond_internal(
    rt: &mut Rt,
    c: ObjectId,
    bytes_written: usize,
) -> Result<(), Value> {
    // 1. Let firstDescriptor be controller.[[pendingPullIntos]][0].
    let first = first_pending_pull_into(rt, c);
    // 2. Assert: ! CanTransferArrayBuffer(firstDescriptor's buffer) is true.
    assert!(!rt.is_detached_buffer(first.buffer));
    // 3. Perform ! ReadableByteStreamControllerInvalidateBYOBRequest(controller).
    readable_byte_stream_controller_invalidate_byob_request(rt, c);
    // 4. Let state be controller.[[stream]].[[state]].
    let s = controller(rt, c).stream;
    let state = stream(rt, s).state;
    // 5. If state is "closed",
    if state == ReadableStreamState::Closed {
        //   1. Assert: bytesWritten is 0.
        assert_eq!(bytes_written, 0);
        //   2. Perform ! ReadableByteStreamControllerRespondInClosedState(
        //      controller, firstDescriptor).
        readable_byte_stream_controller_respond_in_closed_state(rt, c, first);
    } else {
        // 6. Otherwise,
        //   1. Assert: state is "readable".
        assert_eq!(state, ReadableStreamState::Readable);
        //   2. Assert: bytesWritten > 0.
        assert!(bytes_written > 0);
        //   3. Perform ? ReadableByteStreamControllerRespondInReadableState(
        //      controller, bytesWritten, firstDescriptor).
        readable_byte_stream_controller_respond_in_readable_state(rt, c, bytes_written)?;
    }
    // 7. Perform ! ReadableByteStreamControllerCallPullIfNeeded(controller).
    readable_byte_stream_controller_call_pull_if_needed(rt, c);
    Ok(())
}

/// ReadableByteStreamControllerRespondWithNewView(controller, view)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-respond-with-new-view>).
fn readable_byte_stream_controller_respond_with_new_view(
    rt: &mut Rt,
    c: ObjectId,
    view_value: &Value,
) -> Result<(), Value> {
    let view = rt.uint8_array(view_value).expect("a Uint8Array");
    // 1. Assert: controller.[[pendingPullIntos]] is not empty.
    // 2. Assert: ! IsDetachedBuffer(view.[[ViewedArrayBuffer]]) is false.
    assert!(!rt.is_detached_buffer(view.buffer));
    // 3. Let firstDescriptor be controller.[[pendingPullIntos]][0].
    let first = first_pending_pull_into(rt, c);
    // 4. Let state be controller.[[stream]].[[state]].
    let s = controller(rt, c).stream;
    let state = stream(rt, s).state;
    // 5. If state is "closed",
    if state == ReadableStreamState::Closed {
        //   1. If view.[[ByteLength]] is not 0, throw a TypeError exception.
        if view.length != 0 {
            // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3711-L3712
            return Err(err_invalid_state(rt, "View is not zero-length"));
        }
    } else {
        // 6. Otherwise,
        //   1. Assert: state is "readable".
        assert_eq!(state, ReadableStreamState::Readable);
        //   2. If view.[[ByteLength]] is 0, throw a TypeError exception.
        if view.length == 0 {
            // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3715-L3716
            return Err(err_invalid_state(rt, "View is zero-length"));
        }
    }
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3726-L3733
    // each of the three RangeErrors is
    // `new ERR_INVALID_ARG_VALUE.RangeError('view', view)` (Node checks the
    // byte length before the buffer's; the errors are alike, so the order
    // does not show).
    // 7. If firstDescriptor's byte offset + firstDescriptor' bytes filled is
    //    not view.[[ByteOffset]], throw a RangeError exception.
    // 8. If firstDescriptor's buffer byte length is not
    //    view.[[ViewedArrayBuffer]].[[ByteLength]], throw a RangeError
    //    exception.
    // 9. If firstDescriptor's bytes filled + view.[[ByteLength]] >
    //    firstDescriptor's byte length, throw a RangeError exception.
    if first.byte_offset + first.bytes_filled != view.byte_offset
        || first.buffer_byte_length != rt.array_buffer_byte_length(view.buffer)
        || first.bytes_filled + view.length > first.byte_length
    {
        return Err(err_invalid_arg_value(
            rt,
            true,
            "view",
            view_value,
            "is invalid",
        ));
    }
    // 10. Let viewByteLength be view.[[ByteLength]].
    let view_byte_length = view.length;
    // 11. Set firstDescriptor's buffer to ? TransferArrayBuffer(view.[[ViewedArrayBuffer]]).
    let transferred = rt.transfer_array_buffer(view.buffer)?;
    first_pending_pull_into_mut(rt, c).buffer = transferred;
    // 12. Perform ? ReadableByteStreamControllerRespondInternal(controller,
    //     viewByteLength).
    readable_byte_stream_controller_respond_internal(rt, c, view_byte_length)
}

/// ReadableByteStreamControllerShiftPendingPullInto(controller)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-shift-pending-pull-into>).
fn readable_byte_stream_controller_shift_pending_pull_into(
    rt: &mut Rt,
    c: ObjectId,
) -> PullIntoDescriptor {
    // 1. Assert: controller.[[byobRequest]] is null.
    assert!(controller(rt, c).byob_request.is_none());
    // 2. Let descriptor be controller.[[pendingPullIntos]][0].
    // 3. Remove descriptor from controller.[[pendingPullIntos]].
    // 4. Return descriptor.
    controller_mut(rt, c)
        .pending_pull_intos
        .pop_front()
        .expect("a pending pull-into descriptor")
}

/// ReadableByteStreamControllerShouldCallPull(controller)
/// (<https://streams.spec.whatwg.org/#readable-byte-stream-controller-should-call-pull>).
fn readable_byte_stream_controller_should_call_pull(rt: &Rt, c: ObjectId) -> bool {
    // 1. Let stream be controller.[[stream]].
    let s = controller(rt, c).stream;
    // 2. If stream.[[state]] is not "readable", return false.
    if stream(rt, s).state != ReadableStreamState::Readable {
        return false;
    }
    // 3. If controller.[[closeRequested]] is true, return false.
    if controller(rt, c).close_requested {
        return false;
    }
    // 4. If controller.[[started]] is false, return false.
    if !controller(rt, c).started {
        return false;
    }
    // 5. If ! ReadableStreamHasDefaultReader(stream) is true and !
    //    ReadableStreamGetNumReadRequests(stream) > 0, return true.
    if readable_stream_has_default_reader(rt, s) && readable_stream_get_num_read_requests(rt, s) > 0
    {
        return true;
    }
    // 6. If ! ReadableStreamHasBYOBReader(stream) is true and !
    //    ReadableStreamGetNumReadIntoRequests(stream) > 0, return true.
    if readable_stream_has_byob_reader(rt, s)
        && readable_stream_get_num_read_into_requests(rt, s) > 0
    {
        return true;
    }
    // 7. Let desiredSize be ! ReadableByteStreamControllerGetDesiredSize(controller).
    // 8. Assert: desiredSize is not null.
    let desired_size = readable_byte_stream_controller_get_desired_size(rt, c)
        .expect("the desired size of a readable stream");
    // 9. If desiredSize > 0, return true.
    // 10. Return false.
    desired_size > 0.0
}

/// ResetQueue(container) (<https://streams.spec.whatwg.org/#reset-queue>),
/// for a byte controller.
fn reset_queue(rt: &mut Rt, c: ObjectId) {
    let container = controller_mut(rt, c);
    // 2. Set container.[[queue]] to a new empty list.
    container.queue.clear();
    // 3. Set container.[[queueTotalSize]] to 0.
    container.queue_total_size = 0;
}

/// Performing a byte controller's [[pullAlgorithm]].
fn perform_pull_algorithm(rt: &mut Rt, c: ObjectId, algorithm: BytePullAlgorithm) -> ObjectId {
    match algorithm {
        BytePullAlgorithm::ResolveUndefined => a_promise_resolved_with(rt, Value::Undefined),
        BytePullAlgorithm::Tee1 { tee } => byte_tee_pull1_algorithm(rt, tee),
        BytePullAlgorithm::Tee2 { tee } => byte_tee_pull2_algorithm(rt, tee),
        BytePullAlgorithm::Invoke { method } => {
            let this = controller(rt, c).underlying_source.clone();
            match crate::streams::call_rooted(rt, method, this, &[Value::Object(c)], &[]) {
                Err(e) => a_promise_rejected_with(rt, e),
                // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3771-L3780
                // `thenAlgorithmResult(result, ...)` takes a returned
                // promise as it is (PromiseResolve), two microtasks sooner
                // than Web IDL's conversion, as for default streams.
                Ok(value) => rt.promise_resolve(value),
            }
        }
    }
}

/// Performing a byte controller's [[cancelAlgorithm]], passing reason.
fn perform_cancel_algorithm(
    rt: &mut Rt,
    c: ObjectId,
    algorithm: ByteCancelAlgorithm,
    reason: Value,
) -> ObjectId {
    match algorithm {
        ByteCancelAlgorithm::ResolveUndefined => a_promise_resolved_with(rt, Value::Undefined),
        ByteCancelAlgorithm::Tee1 { tee } => byte_tee_cancel1_algorithm(rt, tee, reason),
        ByteCancelAlgorithm::Tee2 { tee } => byte_tee_cancel2_algorithm(rt, tee, reason),
        ByteCancelAlgorithm::Invoke { method } => {
            let this = controller(rt, c).underlying_source.clone();
            match crate::streams::call_rooted(rt, method, this, &[reason], &[Value::Object(c)]) {
                Err(e) => a_promise_rejected_with(rt, e),
                // The value converted to Promise<undefined>: a new promise
                // resolved with it (Node's async wrapper does the same).
                Ok(value) => a_promise_resolved_with(rt, value),
            }
        }
    }
}

// ---- the byte tee ------------------------------------------------------------

/// ReadableByteStreamTee(stream)
/// (<https://streams.spec.whatwg.org/#abstract-opdef-readablebytestreamtee>):
/// the variables are a [`ByteTee`]'s; pull1Algorithm, pull2Algorithm,
/// cancel1Algorithm and cancel2Algorithm are the `byte_tee_*` functions
/// named after them.
pub(crate) fn readable_byte_stream_tee(rt: &mut Rt, s: ObjectId) -> Result<[ObjectId; 2], Value> {
    // 1. Assert: stream implements ReadableStream.
    // 2. Assert: stream.[[controller]] implements ReadableByteStreamController.
    assert!(rt
        .lib
        .streams
        .bytes
        .controllers
        .contains_key(&stream_controller(rt, s)));
    // 3. Let reader be ? AcquireReadableStreamDefaultReader(stream).
    let reader = acquire_readable_stream_default_reader(rt, s)?;
    // 13. Let cancelPromise be a new promise.
    let cancel_promise = a_new_promise(rt);
    let (cancel_promise_resolve, _) = rt.create_resolving_functions(cancel_promise);
    let t = ByteTeeId(crate::streams::new_record_object(rt));
    rt.lib.streams.bytes.tees.insert(
        t.0,
        ByteTee {
            stream: s,
            reader,
            // 4. Let reading be false.
            reading: false,
            // 5. Let readAgainForBranch1 be false.
            read_again_for_branch1: false,
            // 6. Let readAgainForBranch2 be false.
            read_again_for_branch2: false,
            // 7. Let canceled1 be false.
            canceled1: false,
            // 8. Let canceled2 be false.
            canceled2: false,
            // 9. Let reason1 be undefined.
            reason1: Value::Undefined,
            // 10. Let reason2 be undefined.
            reason2: Value::Undefined,
            // 11. Let branch1 be undefined.
            branch1: None,
            // 12. Let branch2 be undefined.
            branch2: None,
            cancel_promise,
            cancel_promise_resolve,
        },
    );
    // 14. Let forwardReaderError be ... (byte_tee_forward_reader_error)
    // 15. Let pullWithDefaultReader be ... (byte_tee_pull_with_default_reader)
    // 16. Let pullWithBYOBReader be ... (byte_tee_pull_with_byob_reader)
    // 17-20. pull1Algorithm, pull2Algorithm, cancel1Algorithm, cancel2Algorithm.
    // 21. Let startAlgorithm be an algorithm that returns undefined.
    // 22. Set branch1 to ! CreateReadableByteStream(startAlgorithm,
    //     pull1Algorithm, cancel1Algorithm).
    let branch1 = create_readable_byte_stream(
        rt,
        BytePullAlgorithm::Tee1 { tee: t },
        ByteCancelAlgorithm::Tee1 { tee: t },
    );
    tee_state_mut(rt, t).branch1 = Some(branch1);
    // 23. Set branch2 to ! CreateReadableByteStream(startAlgorithm,
    //     pull2Algorithm, cancel2Algorithm).
    let branch2 = create_readable_byte_stream(
        rt,
        BytePullAlgorithm::Tee2 { tee: t },
        ByteCancelAlgorithm::Tee2 { tee: t },
    );
    tee_state_mut(rt, t).branch2 = Some(branch2);
    // 24. Perform forwardReaderError, given reader.
    byte_tee_forward_reader_error(rt, t, reader);
    // 25. Return « branch1, branch2 ».
    Ok([branch1, branch2])
}

fn tee_branches(rt: &Rt, t: ByteTeeId) -> (ObjectId, ObjectId) {
    let tee = tee_state(rt, t);
    (
        tee.branch1.expect("the tee's branch1"),
        tee.branch2.expect("the tee's branch2"),
    )
}

/// "Resolve cancelPromise with x", through its resolve function (a second
/// resolve does nothing).
fn resolve_cancel_promise(rt: &mut Rt, t: ByteTeeId, x: Value) {
    let resolve = tee_state(rt, t).cancel_promise_resolve;
    let _ = rt.call_function(resolve, Value::Undefined, &[x]);
}

/// ReadableByteStreamTee's forwardReaderError, taking a thisReader argument
/// (step 14).
fn byte_tee_forward_reader_error(rt: &mut Rt, t: ByteTeeId, this_reader: ObjectId) {
    let closed = crate::streams::generic_closed_promise(rt, this_reader);
    // 1. Upon rejection of thisReader.[[closedPromise]] with reason r,
    upon_settlement(
        rt,
        closed,
        &[Value::Object(t.0), Value::Object(this_reader)],
        |_, _| {},
        move |rt, r| {
            //   1. If thisReader is not reader, return.
            if tee_state(rt, t).reader != this_reader {
                return;
            }
            let (branch1, branch2) = tee_branches(rt, t);
            //   2. Perform ! ReadableByteStreamControllerError(branch1.[[controller]], r).
            let c1 = stream_controller(rt, branch1);
            readable_byte_stream_controller_error(rt, c1, r.clone());
            //   3. Perform ! ReadableByteStreamControllerError(branch2.[[controller]], r).
            let c2 = stream_controller(rt, branch2);
            readable_byte_stream_controller_error(rt, c2, r);
            //   4. If canceled1 is false or canceled2 is false, resolve
            //      cancelPromise with undefined.
            let tee = tee_state(rt, t);
            if !tee.canceled1 || !tee.canceled2 {
                resolve_cancel_promise(rt, t, Value::Undefined);
            }
        },
    );
}

/// ReadableByteStreamTee's pullWithDefaultReader (step 15).
fn byte_tee_pull_with_default_reader(rt: &mut Rt, t: ByteTeeId) {
    let s = tee_state(rt, t).stream;
    // 1. If reader implements ReadableStreamBYOBReader,
    let r = tee_state(rt, t).reader;
    if is_byob_reader(rt, r) {
        //   1. Assert: reader.[[readIntoRequests]] is empty.
        assert!(byob_reader(rt, r).read_into_requests.is_empty());
        //   2. Perform ! ReadableStreamBYOBReaderRelease(reader).
        readable_stream_byob_reader_release(rt, r);
        //   3. Set reader to ! AcquireReadableStreamDefaultReader(stream).
        let reader = acquire_readable_stream_default_reader(rt, s)
            .expect("the stream the tee released is unlocked");
        tee_state_mut(rt, t).reader = reader;
        //   4. Perform forwardReaderError, given reader.
        byte_tee_forward_reader_error(rt, t, reader);
    }
    // 2. Let readRequest be a read request with the following items: (the
    //    steps of ReadRequest::ByteTee)
    let read_request = ReadRequest::ByteTee { tee: t };
    // 3. Perform ! ReadableStreamDefaultReaderRead(reader, readRequest).
    let r = tee_state(rt, t).reader;
    readable_stream_default_reader_read(rt, r, read_request);
}

/// CloneAsUint8Array(O) (<https://streams.spec.whatwg.org/#abstract-opdef-cloneasuint8array>).
fn clone_as_uint8_array(rt: &mut Rt, o: &Value) -> Completion {
    // 1. Assert: O is an Object.
    // 2. Assert: O has an [[ViewedArrayBuffer]] internal slot.
    let view = rt.uint8_array(o).expect("a Uint8Array chunk");
    // 3. Assert: ! IsDetachedBuffer(O.[[ViewedArrayBuffer]]) is false.
    assert!(!rt.is_detached_buffer(view.buffer));
    // 4. Let buffer be ? CloneArrayBuffer(O.[[ViewedArrayBuffer]],
    //    O.[[ByteOffset]], O.[[ByteLength]], %ArrayBuffer%).
    let buffer = rt.array_buffer_slice(
        view.buffer,
        view.byte_offset,
        view.byte_offset + view.length,
    );
    // 5. Let array be ! Construct(%Uint8Array%, « buffer »).
    let array = rt.new_uint8_array(buffer, 0, view.length);
    // 6. Return array.
    Ok(array)
}

/// The chunk steps, given chunk, of pullWithDefaultReader's read request.
pub(crate) fn byte_tee_chunk_steps(rt: &mut Rt, t: ByteTeeId, chunk: Value) {
    // 1. Queue a microtask to perform the following steps:
    let captures = Captures::values(vec![Value::Object(t.0), chunk.clone()]);
    let task = move |rt: &mut Rt| {
        //   1. Set readAgainForBranch1 to false.
        tee_state_mut(rt, t).read_again_for_branch1 = false;
        //   2. Set readAgainForBranch2 to false.
        tee_state_mut(rt, t).read_again_for_branch2 = false;
        //   3. Let chunk1 be chunk.
        let chunk1 = chunk.clone();
        //   4. Let chunk2 be chunk.
        let mut chunk2 = chunk.clone();
        let (branch1, branch2) = tee_branches(rt, t);
        let (c1, c2) = (
            stream_controller(rt, branch1),
            stream_controller(rt, branch2),
        );
        //   5. If canceled1 is false and canceled2 is false,
        if !tee_state(rt, t).canceled1 && !tee_state(rt, t).canceled2 {
            //  1. Let cloneResult be CloneAsUint8Array(chunk).
            match clone_as_uint8_array(rt, &chunk) {
                //  2. If cloneResult is an abrupt completion,
                Err(e) => {
                    //  1. Perform ! ReadableByteStreamControllerError(
                    //     branch1.[[controller]], cloneResult.[[Value]]).
                    readable_byte_stream_controller_error(rt, c1, e.clone());
                    //  2. Perform ! ReadableByteStreamControllerError(
                    //     branch2.[[controller]], cloneResult.[[Value]]).
                    readable_byte_stream_controller_error(rt, c2, e.clone());
                    //  3. Resolve cancelPromise with ! ReadableStreamCancel(
                    //     stream, cloneResult.[[Value]]).
                    let s = tee_state(rt, t).stream;
                    let p = byte_stream_cancel(rt, s, e);
                    resolve_cancel_promise(rt, t, Value::Object(p));
                    //  4. Return.
                    return Ok(Value::Undefined);
                }
                //  3. Otherwise, set chunk2 to cloneResult.[[Value]].
                Ok(clone) => chunk2 = clone,
            }
        }
        // (chunk2, a clone in no slot yet, is rooted while the enqueue into
        // branch1 may pull and run script code.)
        crate::streams::rooted(rt, &[chunk2.clone()], |rt| {
            byte_tee_chunk_steps_enqueue(rt, t, (c1, chunk1), (c2, chunk2))
        })
    };
    rt.enqueue_microtask(Job::Task(Task::Captured(Box::new(task), captures)));
}

/// Steps 6-10 of the chunk steps' microtask of pullWithDefaultReader's
/// read request, given branch1's controller and chunk1, branch2's and
/// chunk2.
fn byte_tee_chunk_steps_enqueue(
    rt: &mut Rt,
    t: ByteTeeId,
    (c1, chunk1): (ObjectId, Value),
    (c2, chunk2): (ObjectId, Value),
) -> Completion {
    //   6. If canceled1 is false, perform !
    //      ReadableByteStreamControllerEnqueue(branch1.[[controller]], chunk1).
    if !tee_state(rt, t).canceled1 {
        let view = rt.uint8_array(&chunk1).expect("a Uint8Array chunk");
        // FIXME: an enqueue can throw Node's internal assertion (see
        // ProcessReadRequestsUsingQueue); Node reports it as an
        // unhandled rejection of forwardChunk's reaction, the model as
        // an uncaught exception of the microtask.
        readable_byte_stream_controller_enqueue(rt, c1, view)?;
    }
    //   7. If canceled2 is false, perform !
    //      ReadableByteStreamControllerEnqueue(branch2.[[controller]], chunk2).
    if !tee_state(rt, t).canceled2 {
        let view = rt.uint8_array(&chunk2).expect("a Uint8Array chunk");
        readable_byte_stream_controller_enqueue(rt, c2, view)?;
    }
    //   8. Set reading to false.
    tee_state_mut(rt, t).reading = false;
    //   9. If readAgainForBranch1 is true, perform pull1Algorithm.
    if tee_state(rt, t).read_again_for_branch1 {
        byte_tee_pull1_algorithm(rt, t);
    } else if tee_state(rt, t).read_again_for_branch2 {
        //   10. Otherwise, if readAgainForBranch2 is true, perform
        //       pull2Algorithm.
        byte_tee_pull2_algorithm(rt, t);
    }
    Ok(Value::Undefined)
}

/// The close steps of pullWithDefaultReader's read request.
pub(crate) fn byte_tee_close_steps(rt: &mut Rt, t: ByteTeeId) {
    let (branch1, branch2) = tee_branches(rt, t);
    let (c1, c2) = (
        stream_controller(rt, branch1),
        stream_controller(rt, branch2),
    );
    // 1. Set reading to false.
    tee_state_mut(rt, t).reading = false;
    // 2. If canceled1 is false, perform !
    //    ReadableByteStreamControllerClose(branch1.[[controller]]).
    if !tee_state(rt, t).canceled1 {
        readable_byte_stream_controller_close(rt, c1).expect("a branch without partial reads");
    }
    // 3. If canceled2 is false, perform !
    //    ReadableByteStreamControllerClose(branch2.[[controller]]).
    if !tee_state(rt, t).canceled2 {
        readable_byte_stream_controller_close(rt, c2).expect("a branch without partial reads");
    }
    // 4. If branch1.[[controller]].[[pendingPullIntos]] is not empty,
    //    perform ! ReadableByteStreamControllerRespond(branch1.[[controller]], 0).
    if !controller(rt, c1).pending_pull_intos.is_empty() {
        readable_byte_stream_controller_respond(rt, c1, 0.0).expect("a respond with 0 when closed");
    }
    // 5. If branch2.[[controller]].[[pendingPullIntos]] is not empty,
    //    perform ! ReadableByteStreamControllerRespond(branch2.[[controller]], 0).
    if !controller(rt, c2).pending_pull_intos.is_empty() {
        readable_byte_stream_controller_respond(rt, c2, 0.0).expect("a respond with 0 when closed");
    }
    // 6. If canceled1 is false or canceled2 is false, resolve cancelPromise
    //    with undefined.
    let tee = tee_state(rt, t);
    if !tee.canceled1 || !tee.canceled2 {
        resolve_cancel_promise(rt, t, Value::Undefined);
    }
}

/// The error steps of pullWithDefaultReader's read request.
pub(crate) fn byte_tee_error_steps(rt: &mut Rt, t: ByteTeeId) {
    // 1. Set reading to false.
    tee_state_mut(rt, t).reading = false;
}

/// ReadableByteStreamTee's pullWithBYOBReader, given view and forBranch2
/// (step 16).
fn byte_tee_pull_with_byob_reader(rt: &mut Rt, t: ByteTeeId, view: Value, for_branch2: bool) {
    let s = tee_state(rt, t).stream;
    // 1. If reader implements ReadableStreamDefaultReader,
    let r = tee_state(rt, t).reader;
    if !is_byob_reader(rt, r) {
        //   1. Assert: reader.[[readRequests]] is empty.
        assert!(crate::streams::reader(rt, r).read_requests.is_empty());
        //   2. Perform ! ReadableStreamDefaultReaderRelease(reader).
        readable_stream_default_reader_release(rt, r);
        //   3. Set reader to ! AcquireReadableStreamBYOBReader(stream).
        let reader = acquire_readable_stream_byob_reader(rt, s)
            .expect("the byte stream the tee released is unlocked");
        tee_state_mut(rt, t).reader = reader;
        //   4. Perform forwardReaderError, given reader.
        byte_tee_forward_reader_error(rt, t, reader);
    }
    // 2. Let byobBranch be branch2 if forBranch2 is true, and branch1
    //    otherwise.
    // 3. Let otherBranch be branch2 if forBranch2 is false, and branch1
    //    otherwise. (Both are read where the steps use them.)
    // 4. Let readIntoRequest be a read-into request with the following
    //    items: (the steps of ReadIntoRequest::ByteTee)
    let read_into_request = ReadIntoRequest::ByteTee {
        tee: t,
        for_branch2,
    };
    // 5. Perform ! ReadableStreamBYOBReaderRead(reader, view, 1, readIntoRequest).
    let r = tee_state(rt, t).reader;
    let view = rt.uint8_array(&view).expect("a BYOB request's view");
    readable_stream_byob_reader_read(rt, r, view, 1, read_into_request);
}

/// byobBranch, otherBranch, byobCanceled and otherCanceled of
/// pullWithBYOBReader's steps, as (controller, canceled) pairs.
fn byob_and_other(
    rt: &Rt,
    t: ByteTeeId,
    for_branch2: bool,
) -> ((ObjectId, bool), (ObjectId, bool)) {
    let (branch1, branch2) = tee_branches(rt, t);
    let tee = tee_state(rt, t);
    let one = (stream_controller(rt, branch1), tee.canceled1);
    let two = (stream_controller(rt, branch2), tee.canceled2);
    if for_branch2 {
        (two, one)
    } else {
        (one, two)
    }
}

/// The chunk steps, given chunk, of pullWithBYOBReader's read-into request.
fn byte_tee_byob_chunk_steps(rt: &mut Rt, t: ByteTeeId, for_branch2: bool, chunk: Value) {
    // 1. Queue a microtask to perform the following steps:
    let captures = Captures::values(vec![Value::Object(t.0), chunk.clone()]);
    let task = move |rt: &mut Rt| {
        //   1. Set readAgainForBranch1 to false.
        tee_state_mut(rt, t).read_again_for_branch1 = false;
        //   2. Set readAgainForBranch2 to false.
        tee_state_mut(rt, t).read_again_for_branch2 = false;
        //   3. Let byobCanceled be canceled2 if forBranch2 is true, and
        //      canceled1 otherwise.
        //   4. Let otherCanceled be canceled2 if forBranch2 is false, and
        //      canceled1 otherwise.
        let ((byob_controller, byob_canceled), (other_controller, other_canceled)) =
            byob_and_other(rt, t, for_branch2);
        //   5. If otherCanceled is false,
        if !other_canceled {
            //  1. Let cloneResult be CloneAsUint8Array(chunk).
            let cloned_chunk = match clone_as_uint8_array(rt, &chunk) {
                //  2. If cloneResult is an abrupt completion,
                Err(e) => {
                    //  1. Perform ! ReadableByteStreamControllerError(
                    //     byobBranch.[[controller]], cloneResult.[[Value]]).
                    readable_byte_stream_controller_error(rt, byob_controller, e.clone());
                    //  2. Perform ! ReadableByteStreamControllerError(
                    //     otherBranch.[[controller]], cloneResult.[[Value]]).
                    readable_byte_stream_controller_error(rt, other_controller, e.clone());
                    //  3. Resolve cancelPromise with ! ReadableStreamCancel(
                    //     stream, cloneResult.[[Value]]).
                    let s = tee_state(rt, t).stream;
                    let p = byte_stream_cancel(rt, s, e);
                    resolve_cancel_promise(rt, t, Value::Object(p));
                    //  4. Return.
                    return Ok(Value::Undefined);
                }
                //  3. Otherwise, let clonedChunk be cloneResult.[[Value]].
                Ok(clone) => clone,
            };
            // (clonedChunk, in no slot yet, is rooted while the respond may
            // pull and run script code.)
            let mark = crate::gc::hold(rt, std::slice::from_ref(&cloned_chunk));
            //  4. If byobCanceled is false, perform !
            //     ReadableByteStreamControllerRespondWithNewView(
            //     byobBranch.[[controller]], chunk).
            if !byob_canceled {
                readable_byte_stream_controller_respond_with_new_view(rt, byob_controller, &chunk)
                    .expect("the chunk read into the branch's view");
            }
            crate::gc::release(rt, mark);
            //  5. Perform ! ReadableByteStreamControllerEnqueue(
            //     otherBranch.[[controller]], clonedChunk).
            let view = rt.uint8_array(&cloned_chunk).expect("a Uint8Array");
            // FIXME: as in the default read's chunk steps, an error here is
            // Node's unhandled rejection, the model's uncaught exception.
            readable_byte_stream_controller_enqueue(rt, other_controller, view)?;
        } else if !byob_canceled {
            //   6. Otherwise, if byobCanceled is false, perform !
            //      ReadableByteStreamControllerRespondWithNewView(
            //      byobBranch.[[controller]], chunk).
            readable_byte_stream_controller_respond_with_new_view(rt, byob_controller, &chunk)
                .expect("the chunk read into the branch's view");
        }
        //   7. Set reading to false.
        tee_state_mut(rt, t).reading = false;
        //   8. If readAgainForBranch1 is true, perform pull1Algorithm.
        if tee_state(rt, t).read_again_for_branch1 {
            byte_tee_pull1_algorithm(rt, t);
        } else if tee_state(rt, t).read_again_for_branch2 {
            //   9. Otherwise, if readAgainForBranch2 is true, perform
            //      pull2Algorithm.
            byte_tee_pull2_algorithm(rt, t);
        }
        Ok(Value::Undefined)
    };
    rt.enqueue_microtask(Job::Task(Task::Captured(Box::new(task), captures)));
}

/// The close steps, given chunk, of pullWithBYOBReader's read-into request.
fn byte_tee_byob_close_steps(rt: &mut Rt, t: ByteTeeId, for_branch2: bool, chunk: Value) {
    // 1. Set reading to false.
    tee_state_mut(rt, t).reading = false;
    // 2. Let byobCanceled be canceled2 if forBranch2 is true, and canceled1
    //    otherwise.
    // 3. Let otherCanceled be canceled2 if forBranch2 is false, and
    //    canceled1 otherwise.
    let ((byob_controller, byob_canceled), (other_controller, other_canceled)) =
        byob_and_other(rt, t, for_branch2);
    // 4. If byobCanceled is false, perform !
    //    ReadableByteStreamControllerClose(byobBranch.[[controller]]).
    if !byob_canceled {
        readable_byte_stream_controller_close(rt, byob_controller)
            .expect("a branch without partial reads");
    }
    // 5. If otherCanceled is false, perform !
    //    ReadableByteStreamControllerClose(otherBranch.[[controller]]).
    if !other_canceled {
        readable_byte_stream_controller_close(rt, other_controller)
            .expect("a branch without partial reads");
    }
    // 6. If chunk is not undefined,
    if chunk != Value::Undefined {
        //   1. Assert: chunk.[[ByteLength]] is 0.
        //   2. If byobCanceled is false, perform !
        //      ReadableByteStreamControllerRespondWithNewView(
        //      byobBranch.[[controller]], chunk).
        if !byob_canceled {
            readable_byte_stream_controller_respond_with_new_view(rt, byob_controller, &chunk)
                .expect("an empty view when closed");
        }
        //   3. If otherCanceled is false and
        //      otherBranch.[[controller]].[[pendingPullIntos]] is not empty,
        //      perform ! ReadableByteStreamControllerRespond(
        //      otherBranch.[[controller]], 0).
        if !other_canceled
            && !controller(rt, other_controller)
                .pending_pull_intos
                .is_empty()
        {
            readable_byte_stream_controller_respond(rt, other_controller, 0.0)
                .expect("a respond with 0 when closed");
        }
    }
    // 7. If byobCanceled is false or otherCanceled is false, resolve
    //    cancelPromise with undefined.
    if !byob_canceled || !other_canceled {
        resolve_cancel_promise(rt, t, Value::Undefined);
    }
}

/// ReadableByteStreamTee's pull1Algorithm (step 17).
fn byte_tee_pull1_algorithm(rt: &mut Rt, t: ByteTeeId) -> ObjectId {
    // 1. If reading is true,
    if tee_state(rt, t).reading {
        //   1. Set readAgainForBranch1 to true.
        tee_state_mut(rt, t).read_again_for_branch1 = true;
        //   2. Return a promise resolved with undefined.
        return a_promise_resolved_with(rt, Value::Undefined);
    }
    // 2. Set reading to true.
    tee_state_mut(rt, t).reading = true;
    // 3. Let byobRequest be ! ReadableByteStreamControllerGetBYOBRequest(
    //    branch1.[[controller]]).
    let (branch1, _) = tee_branches(rt, t);
    let c1 = stream_controller(rt, branch1);
    match readable_byte_stream_controller_get_byob_request(rt, c1) {
        // 4. If byobRequest is null, perform pullWithDefaultReader.
        None => byte_tee_pull_with_default_reader(rt, t),
        // 5. Otherwise, perform pullWithBYOBReader, given
        //    byobRequest.[[view]] and false.
        Some(q) => {
            let view = view(rt, q);
            byte_tee_pull_with_byob_reader(rt, t, view, false);
        }
    }
    // 6. Return a promise resolved with undefined.
    a_promise_resolved_with(rt, Value::Undefined)
}

/// ReadableByteStreamTee's pull2Algorithm (step 18).
fn byte_tee_pull2_algorithm(rt: &mut Rt, t: ByteTeeId) -> ObjectId {
    // 1. If reading is true,
    if tee_state(rt, t).reading {
        //   1. Set readAgainForBranch2 to true.
        tee_state_mut(rt, t).read_again_for_branch2 = true;
        //   2. Return a promise resolved with undefined.
        return a_promise_resolved_with(rt, Value::Undefined);
    }
    // 2. Set reading to true.
    tee_state_mut(rt, t).reading = true;
    // 3. Let byobRequest be ! ReadableByteStreamControllerGetBYOBRequest(
    //    branch2.[[controller]]).
    let (_, branch2) = tee_branches(rt, t);
    let c2 = stream_controller(rt, branch2);
    match readable_byte_stream_controller_get_byob_request(rt, c2) {
        // 4. If byobRequest is null, perform pullWithDefaultReader.
        None => byte_tee_pull_with_default_reader(rt, t),
        // 5. Otherwise, perform pullWithBYOBReader, given
        //    byobRequest.[[view]] and true.
        Some(q) => {
            let view = view(rt, q);
            byte_tee_pull_with_byob_reader(rt, t, view, true);
        }
    }
    // 6. Return a promise resolved with undefined.
    a_promise_resolved_with(rt, Value::Undefined)
}

/// ReadableByteStreamTee's cancel1Algorithm, taking a reason argument
/// (step 19).
fn byte_tee_cancel1_algorithm(rt: &mut Rt, t: ByteTeeId, reason: Value) -> ObjectId {
    // 1. Set canceled1 to true.
    tee_state_mut(rt, t).canceled1 = true;
    // 2. Set reason1 to reason.
    tee_state_mut(rt, t).reason1 = reason;
    // 3. If canceled2 is true,
    if tee_state(rt, t).canceled2 {
        byte_tee_cancel_stream(rt, t);
    }
    // 4. Return cancelPromise.
    tee_state(rt, t).cancel_promise
}

/// ReadableByteStreamTee's cancel2Algorithm, taking a reason argument
/// (step 20).
fn byte_tee_cancel2_algorithm(rt: &mut Rt, t: ByteTeeId, reason: Value) -> ObjectId {
    // 1. Set canceled2 to true.
    tee_state_mut(rt, t).canceled2 = true;
    // 2. Set reason2 to reason.
    tee_state_mut(rt, t).reason2 = reason;
    // 3. If canceled1 is true,
    if tee_state(rt, t).canceled1 {
        byte_tee_cancel_stream(rt, t);
    }
    // 4. Return cancelPromise.
    tee_state(rt, t).cancel_promise
}

/// ! ReadableStreamCancel(stream, reason) of a byte stream: its
/// [[CancelSteps]] perform its own [[cancelAlgorithm]] (a source's `cancel`,
/// whose exception is a rejection, or a byte tee's), which never throw; only
/// a default controller's transform algorithm can (see
/// transform::source_cancel_algorithm), so the `!` holds here.
fn byte_stream_cancel(rt: &mut Rt, s: ObjectId, reason: Value) -> ObjectId {
    match readable_stream_cancel(rt, s, reason) {
        Ok(p) => p,
        Err(e) => a_promise_rejected_with(rt, e),
    }
}

/// Step 3's substeps of cancel1Algorithm and cancel2Algorithm.
fn byte_tee_cancel_stream(rt: &mut Rt, t: ByteTeeId) {
    let tee = tee_state(rt, t);
    let (s, reason1, reason2) = (tee.stream, tee.reason1.clone(), tee.reason2.clone());
    //   1. Let compositeReason be ! CreateArrayFromList(« reason1, reason2 »).
    let composite_reason = rt.create_array_from_list(vec![reason1, reason2]);
    //   2. Let cancelResult be ! ReadableStreamCancel(stream, compositeReason).
    let cancel_result = byte_stream_cancel(rt, s, composite_reason);
    //   3. Resolve cancelPromise with cancelResult.
    resolve_cancel_promise(rt, t, Value::Object(cancel_result));
}

// ---- what the runtime asks ------------------------------------------------

/// A property of a byte stream object, or `None` when `obj` is none.
pub fn get(rt: &mut Rt, obj: ObjectId, prop: &str) -> Option<Completion> {
    let bytes = &rt.lib.streams.bytes;
    if bytes.controllers.contains_key(&obj) {
        return Some(Ok(match prop {
            "desiredSize" => desired_size(rt, obj),
            "byobRequest" => byob_request(rt, obj),
            _ => Value::Undefined,
        }));
    }
    if bytes.byob_readers.contains_key(&obj) {
        return Some(Ok(match prop {
            "closed" => Value::Object(closed(rt, obj)),
            _ => Value::Undefined,
        }));
    }
    if bytes.byob_requests.contains_key(&obj) {
        return Some(Ok(match prop {
            "view" => view(rt, obj),
            _ => Value::Undefined,
        }));
    }
    None
}

/// What a byte stream object is, or `None` when `obj` is none.
pub fn host_class(rt: &Rt, obj: ObjectId) -> Option<HostClass> {
    let bytes = &rt.lib.streams.bytes;
    if bytes.controllers.contains_key(&obj) {
        Some(HostClass::ReadableByteStreamController)
    } else if bytes.byob_readers.contains_key(&obj) {
        Some(HostClass::ReadableStreamBYOBReader)
    } else if bytes.byob_requests.contains_key(&obj) {
        Some(HostClass::ReadableStreamBYOBRequest)
    } else {
        None
    }
}
