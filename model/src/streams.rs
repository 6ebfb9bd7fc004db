//! The Streams Standard's `ReadableStream`, `ReadableStreamDefaultController`
//! and `ReadableStreamDefaultReader`, transcribed: each abstract operation is
//! a function named after it, with its steps quoted above the code, and each
//! internal slot is a field named after it.
//!
//! What is covered: a ReadableStream made from an underlying source (`start`,
//! `pull`, `cancel`, each optional) and a queuing strategy
//! (`highWaterMark`, and `size`, called with `this` undefined: an invalid
//! size is Node's `ERR_INVALID_ARG_VALUE` RangeError); its default controller
//! (`enqueue`, `close`, `error`, `desiredSize`); its default reader (`read`,
//! `releaseLock`, `cancel`, `closed`); `stream.cancel`, `stream.locked` and
//! `stream.tee()` (ReadableStreamDefaultTee, without cloning). A stream's
//! [[controller]] may also be a ReadableByteStreamController and its
//! [[reader]] a ReadableStreamBYOBReader: those are in
//! [`crate::byte_streams`], and the operations here that the spec words for
//! both kinds dispatch to it. Piping is [`crate::pipe`]'s, `from` and async
//! iteration [`crate::iterate`]'s.
//!
//! Streams Standard: <https://streams.spec.whatwg.org/#rs-model>.
//! Node 26.12.1: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js>.
//!
//! The departures of Node 26.12.1 that scenarios can observe, each marked
//! `NODE:` where it happens:
//!
//! - the promise of `pull` is used as it is when it is a promise (the spec
//!   converts it to a new promise, two microtasks later for a promise);
//! - every TypeError the spec leaves unworded is Node's `ERR_INVALID_STATE`
//!   TypeError with its own message, and the two of `releaseLock()` are one
//!   error object each, made once and thrown again every time;
//! - a negative or NaN `highWaterMark` is an `ERR_INVALID_ARG_VALUE`
//!   RangeError;
//! - a tee's chunk microtask clears `reading` before it enqueues the chunk
//!   into the branches, so that a pull those enqueues ask for reads from the
//!   source at once (the spec clears it after both enqueues and reads again
//!   then, through readAgain);
//! - a tee's close steps run a nextTick later (the spec runs them at once).

use std::collections::VecDeque;

use nodesem_runtime::gc::Captures;
use nodesem_runtime::{
    Completion, HostClass, Job, ObjectData, ObjectId, PromiseState, QueuingStrategy, Runtime, Task,
    UnderlyingSource, Value,
};

use crate::slots::Slots;
use crate::writable::StartAlgorithm;
use crate::Model;

type Rt = Runtime<Model>;

/// A ReadableStream's [[state]].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadableStreamState {
    /// "readable"
    Readable,
    /// "closed"
    Closed,
    /// "errored"
    Errored,
}

/// The internal slots of a ReadableStream
/// (<https://streams.spec.whatwg.org/#rs-internal-slots>).
#[derive(Debug)]
pub struct ReadableStream {
    /// [[controller]]: undefined only while the constructor sets it up.
    pub controller: Option<ObjectId>,
    /// [[disturbed]]: whether the stream was read from or canceled.
    pub disturbed: bool,
    /// [[reader]]: the ReadableStreamDefaultReader, or undefined.
    pub reader: Option<ObjectId>,
    /// [[state]].
    pub state: ReadableStreamState,
    /// [[storedError]].
    pub stored_error: Value,
}

/// A controller's [[pullAlgorithm]].
#[derive(Clone, Copy, Debug)]
pub enum PullAlgorithm {
    /// The source had no `pull`: "an algorithm that returns a promise
    /// resolved with undefined".
    ResolveUndefined,
    /// Invoking the source's `pull` with the source as `this`.
    Invoke {
        /// The method.
        method: ObjectId,
    },
    /// The pullAlgorithm of a ReadableStreamDefaultTee, both branches'.
    Tee {
        /// The tee.
        tee: TeeId,
    },
    /// The pullAlgorithm of ReadableStreamFromIterable ([`crate::iterate`]).
    FromIterable {
        /// The from() stream's variables.
        from: crate::iterate::FromId,
    },
    /// TransformStreamDefaultSourcePullAlgorithm ([`crate::transform`]).
    Transform {
        /// The TransformStream.
        stream: ObjectId,
    },
}

/// A controller's [[cancelAlgorithm]].
#[derive(Clone, Copy, Debug)]
pub enum CancelAlgorithm {
    /// The source had no `cancel`: "an algorithm that returns a promise
    /// resolved with undefined".
    ResolveUndefined,
    /// Invoking the source's `cancel` with the source as `this`.
    Invoke {
        /// The method.
        method: ObjectId,
    },
    /// The cancel1Algorithm of a ReadableStreamDefaultTee (branch 1's).
    Tee1 {
        /// The tee.
        tee: TeeId,
    },
    /// The cancel2Algorithm of a ReadableStreamDefaultTee (branch 2's).
    Tee2 {
        /// The tee.
        tee: TeeId,
    },
    /// The cancelAlgorithm of ReadableStreamFromIterable ([`crate::iterate`]).
    FromIterable {
        /// The from() stream's variables.
        from: crate::iterate::FromId,
    },
    /// TransformStreamDefaultSourceCancelAlgorithm ([`crate::transform`]).
    Transform {
        /// The TransformStream.
        stream: ObjectId,
    },
}

/// A controller's [[strategySizeAlgorithm]] (a ReadableStream's or a
/// WritableStream's), as ExtractSizeAlgorithm makes it.
#[derive(Clone, Copy, Debug)]
pub enum SizeAlgorithm {
    /// "an algorithm that returns 1".
    ReturnOne,
    /// Invoking the strategy's `size` with « chunk » (`this` undefined).
    Invoke(ObjectId),
}

/// A value-with-size of a queue-with-sizes
/// (<https://streams.spec.whatwg.org/#value-with-size>).
#[derive(Clone, Debug)]
pub struct ValueWithSize {
    /// value
    pub value: Value,
    /// size
    pub size: f64,
}

/// The internal slots of a ReadableStreamDefaultController
/// (<https://streams.spec.whatwg.org/#rs-default-controller-internal-slots>).
#[derive(Debug)]
pub struct ReadableStreamDefaultController {
    /// [[cancelAlgorithm]]: undefined once cleared.
    pub cancel_algorithm: Option<CancelAlgorithm>,
    /// [[closeRequested]].
    pub close_requested: bool,
    /// [[pullAgain]].
    pub pull_again: bool,
    /// [[pullAlgorithm]]: undefined once cleared.
    pub pull_algorithm: Option<PullAlgorithm>,
    /// [[pulling]].
    pub pulling: bool,
    /// [[queue]].
    pub queue: VecDeque<ValueWithSize>,
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
    /// The underlying source object: the callback this value of the source's
    /// methods (the spec's algorithms close over it).
    pub underlying_source: Value,
}

/// A read request (<https://streams.spec.whatwg.org/#read-request>): what to
/// do with the next chunk, the close or the error.
#[derive(Clone, Copy, Debug)]
pub enum ReadRequest {
    /// The read request of `read()`, which settles `promise`.
    Read {
        /// The promise `read()` returned.
        promise: ObjectId,
    },
    /// The read request of a ReadableStreamDefaultTee's pullAlgorithm.
    Tee {
        /// The tee.
        tee: TeeId,
    },
    /// The read request of a ReadableStream's async iterator's "get the
    /// next iteration result" ([`crate::iterate`]).
    AsyncIterator {
        /// The iterator.
        iterator: ObjectId,
    },
    /// The read request of a pipe's pump ([`crate::pipe`]).
    Pipe {
        /// The pipe.
        pipe: crate::pipe::PipeId,
    },
    /// The read request of a ReadableByteStreamTee's pullWithDefaultReader.
    ByteTee {
        /// The byte tee.
        tee: crate::byte_streams::ByteTeeId,
    },
}

impl ReadRequest {
    /// What the read request holds: its promise, or the hidden object of
    /// the record whose steps it runs.
    pub(crate) fn holds(&self) -> Value {
        Value::Object(match *self {
            ReadRequest::Read { promise } => promise,
            ReadRequest::Tee { tee } => tee.0,
            ReadRequest::AsyncIterator { iterator } => iterator,
            ReadRequest::Pipe { pipe } => pipe.0,
            ReadRequest::ByteTee { tee } => tee.0,
        })
    }
}

/// Which ReadableStreamDefaultTee: the hidden heap object that stands for
/// its variables (the closure context Node's tee algorithms share,
/// `readableStreamDefaultTee`'s): what holds it keeps the variables, and
/// [`crate::gc`] forgets them when it is collected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TeeId(pub(crate) ObjectId);

/// The variables that the algorithms of one ReadableStreamDefaultTee(stream,
/// cloneForBranch2) share
/// (<https://streams.spec.whatwg.org/#abstract-opdef-readablestreamdefaulttee>).
///
/// MODEL: cloneForBranch2 is not kept: `tee()` passes false, and
/// StructuredClone is not modeled.
#[derive(Debug)]
pub struct DefaultTee {
    /// stream: the stream teed.
    pub stream: ObjectId,
    /// reader: the default reader the tee reads the stream with.
    pub reader: ObjectId,
    /// reading.
    pub reading: bool,
    /// readAgain.
    pub read_again: bool,
    /// canceled1.
    pub canceled1: bool,
    /// canceled2.
    pub canceled2: bool,
    /// reason1.
    pub reason1: Value,
    /// reason2.
    pub reason2: Value,
    /// branch1: undefined until it is created.
    pub branch1: Option<ObjectId>,
    /// branch2: undefined until it is created.
    pub branch2: Option<ObjectId>,
    /// cancelPromise.
    pub cancel_promise: ObjectId,
    /// cancelPromise's resolve function.
    pub cancel_promise_resolve: ObjectId,
}

/// The internal slots of a ReadableStreamDefaultReader
/// (<https://streams.spec.whatwg.org/#default-reader-internal-slots>).
#[derive(Debug)]
pub struct ReadableStreamDefaultReader {
    /// [[closedPromise]].
    pub closed_promise: ObjectId,
    /// [[stream]]: undefined once released.
    pub stream: Option<ObjectId>,
    /// [[readRequests]].
    pub read_requests: VecDeque<ReadRequest>,
}

/// The streams' state for one scenario.
#[derive(Debug, Default)]
pub struct Streams {
    /// Every ReadableStream.
    pub(crate) streams: Slots<ReadableStream>,
    /// Every ReadableStreamDefaultController.
    pub(crate) controllers: Slots<ReadableStreamDefaultController>,
    /// Every ReadableStreamDefaultReader.
    readers: Slots<ReadableStreamDefaultReader>,
    /// Every ReadableStreamDefaultTee, by [`TeeId`].
    tees: Slots<DefaultTee>,
    /// Node's one "Reader released" error, once made.
    released_error: Option<Value>,
    /// Node's one "Releasing reader" error, once made.
    releasing_error: Option<Value>,
    /// ReadableStreamFromIterable's variables and the async iterators'.
    pub(crate) iterate: crate::iterate::IterateState,
    /// Byte stream controllers, BYOB readers and requests, byte tees.
    pub(crate) bytes: crate::byte_streams::ByteStreams,
}

impl Streams {
    /// Forgets a stream whose constructor threw (the object never reaches
    /// the script).
    pub(crate) fn remove_stream(&mut self, s: ObjectId) {
        self.streams.remove(&s);
    }

    /// Empties the state for another scenario.
    pub fn clear(&mut self) {
        let Streams {
            streams,
            controllers,
            readers,
            tees,
            released_error,
            releasing_error,
            iterate,
            bytes,
        } = self;
        iterate.clear();
        bytes.clear();
        streams.clear();
        controllers.clear();
        readers.clear();
        tees.clear();
        *released_error = None;
        *releasing_error = None;
    }

    /// Forgets a collected object.
    pub(crate) fn forget(&mut self, id: &ObjectId) {
        self.streams.remove(id);
        self.controllers.remove(id);
        self.readers.remove(id);
        self.tees.remove(id);
        self.iterate.forget(id);
        self.bytes.forget(id);
    }

    /// The objects with slots here (the hidden objects of records too).
    pub(crate) fn ids(&self) -> impl Iterator<Item = ObjectId> + '_ {
        self.streams
            .ids()
            .chain(self.controllers.ids())
            .chain(self.readers.ids())
            .chain(self.tees.ids())
            .chain(self.iterate.ids())
            .chain(self.bytes.ids())
    }

    /// What the module keeps for good: Node's one "Reader released" and
    /// "Releasing reader" errors, once made (module-level lazy values).
    pub(crate) fn roots(&self, roots: &mut Vec<Value>) {
        roots.extend(self.released_error.iter().cloned());
        roots.extend(self.releasing_error.iter().cloned());
    }
}

impl PullAlgorithm {
    /// What the algorithm closes over; `true` when it invokes the source's
    /// method (and so holds the source).
    pub(crate) fn trace(&self, edges: &mut Vec<Value>) -> bool {
        match *self {
            PullAlgorithm::ResolveUndefined => {}
            PullAlgorithm::Invoke { method } => {
                edges.push(Value::Object(method));
                return true;
            }
            PullAlgorithm::Tee { tee } => edges.push(Value::Object(tee.0)),
            PullAlgorithm::FromIterable { from } => edges.push(Value::Object(from.0)),
            PullAlgorithm::Transform { stream } => edges.push(Value::Object(stream)),
        }
        false
    }
}

impl CancelAlgorithm {
    /// What the algorithm closes over; `true` when it invokes the source's
    /// method (and so holds the source).
    pub(crate) fn trace(&self, edges: &mut Vec<Value>) -> bool {
        match *self {
            CancelAlgorithm::ResolveUndefined => {}
            CancelAlgorithm::Invoke { method } => {
                edges.push(Value::Object(method));
                return true;
            }
            CancelAlgorithm::Tee1 { tee } | CancelAlgorithm::Tee2 { tee } => {
                edges.push(Value::Object(tee.0))
            }
            CancelAlgorithm::FromIterable { from } => edges.push(Value::Object(from.0)),
            CancelAlgorithm::Transform { stream } => edges.push(Value::Object(stream)),
        }
        false
    }
}

/// The strong edges of a ReadableStream, its default controller, its
/// default reader or a ReadableStreamDefaultTee's record (then those of the
/// byte streams' and the iteration's objects): their slots, as Node's
/// `kState` records hold them.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3061-L3088>
/// (`setupReadableStreamDefaultControllerFromSource`) the pull and cancel
/// algorithms are the source's methods bound to the source
/// (`createRawCallback1Param`, `createPromiseCallback1Param`): the source object is held while
/// one of them is, and let go when
/// ReadableStreamDefaultControllerClearAlgorithms clears them; the start
/// algorithm is a local of the set-up.
pub(crate) fn trace(rt: &Rt, obj: ObjectId, edges: &mut Vec<Value>) {
    let streams = &rt.lib.streams;
    if let Some(s) = streams.streams.get(&obj) {
        edges.extend(s.controller.map(Value::Object));
        edges.extend(s.reader.map(Value::Object));
        edges.push(s.stored_error.clone());
    }
    if let Some(c) = streams.controllers.get(&obj) {
        let mut invoked = false;
        if let Some(pull) = &c.pull_algorithm {
            invoked |= pull.trace(edges);
        }
        if let Some(cancel) = &c.cancel_algorithm {
            invoked |= cancel.trace(edges);
        }
        if invoked {
            edges.push(c.underlying_source.clone());
        }
        edges.extend(c.queue.iter().map(|v| v.value.clone()));
        if let Some(SizeAlgorithm::Invoke(size)) = c.strategy_size_algorithm {
            edges.push(Value::Object(size));
        }
        edges.push(Value::Object(c.stream));
    }
    if let Some(r) = streams.readers.get(&obj) {
        edges.push(Value::Object(r.closed_promise));
        edges.extend(r.stream.map(Value::Object));
        edges.extend(r.read_requests.iter().map(ReadRequest::holds));
    }
    if let Some(t) = streams.tees.get(&obj) {
        edges.push(Value::Object(t.stream));
        edges.push(Value::Object(t.reader));
        edges.push(t.reason1.clone());
        edges.push(t.reason2.clone());
        edges.extend(t.branch1.map(Value::Object));
        edges.extend(t.branch2.map(Value::Object));
        edges.push(Value::Object(t.cancel_promise));
        edges.push(Value::Object(t.cancel_promise_resolve));
    }
    crate::byte_streams::trace(rt, obj, edges);
    crate::iterate::trace(rt, obj, edges);
}

// ---- slot access ----------------------------------------------------------

pub(crate) fn stream(rt: &Rt, id: ObjectId) -> &ReadableStream {
    &rt.lib.streams.streams[&id]
}

pub(crate) fn stream_mut(rt: &mut Rt, id: ObjectId) -> &mut ReadableStream {
    rt.lib
        .streams
        .streams
        .get_mut(&id)
        .expect("a ReadableStream")
}

pub(crate) fn controller(rt: &Rt, id: ObjectId) -> &ReadableStreamDefaultController {
    &rt.lib.streams.controllers[&id]
}

fn controller_mut(rt: &mut Rt, id: ObjectId) -> &mut ReadableStreamDefaultController {
    rt.lib
        .streams
        .controllers
        .get_mut(&id)
        .expect("a ReadableStreamDefaultController")
}

pub(crate) fn reader(rt: &Rt, id: ObjectId) -> &ReadableStreamDefaultReader {
    &rt.lib.streams.readers[&id]
}

pub(crate) fn reader_mut(rt: &mut Rt, id: ObjectId) -> &mut ReadableStreamDefaultReader {
    rt.lib
        .streams
        .readers
        .get_mut(&id)
        .expect("a ReadableStreamDefaultReader")
}

fn tee_state(rt: &Rt, t: TeeId) -> &DefaultTee {
    &rt.lib.streams.tees[&t.0]
}

fn tee_state_mut(rt: &mut Rt, t: TeeId) -> &mut DefaultTee {
    rt.lib
        .streams
        .tees
        .get_mut(&t.0)
        .expect("a ReadableStreamDefaultTee")
}

/// A reader's [[closedPromise]], for a default or a BYOB reader (the slot
/// of ReadableStreamGenericReader).
pub(crate) fn generic_closed_promise(rt: &Rt, r: ObjectId) -> ObjectId {
    match rt.lib.streams.readers.get(&r) {
        Some(reader) => reader.closed_promise,
        None => crate::byte_streams::byob_reader(rt, r).closed_promise,
    }
}

fn set_generic_closed_promise(rt: &mut Rt, r: ObjectId, p: ObjectId) {
    match rt.lib.streams.readers.get_mut(&r) {
        Some(reader) => reader.closed_promise = p,
        None => crate::byte_streams::byob_reader_mut(rt, r).closed_promise = p,
    }
}

/// A reader's [[stream]], for a default or a BYOB reader.
pub(crate) fn generic_reader_stream(rt: &Rt, r: ObjectId) -> Option<ObjectId> {
    match rt.lib.streams.readers.get(&r) {
        Some(reader) => reader.stream,
        None => crate::byte_streams::byob_reader(rt, r).stream,
    }
}

fn set_generic_reader_stream(rt: &mut Rt, r: ObjectId, s: Option<ObjectId>) {
    match rt.lib.streams.readers.get_mut(&r) {
        Some(reader) => reader.stream = s,
        None => crate::byte_streams::byob_reader_mut(rt, r).stream = s,
    }
}

/// ReadableStreamHasDefaultReader(stream)
/// (<https://streams.spec.whatwg.org/#readable-stream-has-default-reader>).
pub(crate) fn readable_stream_has_default_reader(rt: &Rt, s: ObjectId) -> bool {
    // 1. Let reader be stream.[[reader]].
    // 2. If reader is undefined, return false.
    // 3. If reader implements ReadableStreamDefaultReader, return true.
    // 4. Return false.
    stream(rt, s)
        .reader
        .is_some_and(|r| rt.lib.streams.readers.contains_key(&r))
}

/// Whether a controller is a ReadableByteStreamController.
pub(crate) fn is_byte_controller(rt: &Rt, c: ObjectId) -> bool {
    rt.lib.streams.bytes.controllers.contains_key(&c)
}

/// The controller of a stream that has been set up.
pub(crate) fn stream_controller(rt: &Rt, s: ObjectId) -> ObjectId {
    stream(rt, s)
        .controller
        .expect("a stream's controller, set by its constructor")
}

// ---- promises, as the Web IDL Standard words them -------------------------

/// "a new promise" (<https://webidl.spec.whatwg.org/#a-new-promise>).
pub(crate) fn a_new_promise(rt: &mut Rt) -> ObjectId {
    rt.new_promise()
}

/// "a promise resolved with x"
/// (<https://webidl.spec.whatwg.org/#a-promise-resolved-with>): a new
/// promise, resolved with x through its resolve function (a promise or
/// thenable x is adopted, two microtasks later).
pub(crate) fn a_promise_resolved_with(rt: &mut Rt, x: Value) -> ObjectId {
    let p = rt.new_promise();
    rt.resolve_promise_with(p, x);
    p
}

/// "a promise rejected with r"
/// (<https://webidl.spec.whatwg.org/#a-promise-rejected-with>).
pub(crate) fn a_promise_rejected_with(rt: &mut Rt, r: Value) -> ObjectId {
    rt.promise_reject_new(r)
}

/// "resolve p with x" (<https://webidl.spec.whatwg.org/#resolve>), for a
/// promise made by [`a_new_promise`], which nothing else resolves.
pub(crate) fn resolve(rt: &mut Rt, p: ObjectId, x: Value) {
    rt.resolve_promise_with(p, x);
}

/// "reject p with r" (<https://webidl.spec.whatwg.org/#reject>), for a
/// promise made by [`a_new_promise`].
pub(crate) fn reject(rt: &mut Rt, p: ObjectId, r: Value) {
    rt.reject_promise(p, r);
}

/// "Set p.[[PromiseIsHandled]] to true"
/// (<https://webidl.spec.whatwg.org/#mark-a-promise-as-handled>).
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L422-L430>
/// `setPromiseHandled(promise)` attaches empty reactions instead; either way
/// the rejection is never reported, and the empty reactions' jobs log
/// nothing.
pub(crate) fn mark_as_handled(rt: &mut Rt, p: ObjectId) {
    if let ObjectData::Promise(data) = rt.heap.get_mut(p) {
        data.is_handled = true;
    }
}

/// Whether a promise of the model's is still pending.
pub(crate) fn is_pending(rt: &Rt, p: ObjectId) -> bool {
    matches!(rt.heap.get(p), ObjectData::Promise(d) if d.state == PromiseState::Pending)
}

/// "Upon fulfillment of p with steps / upon rejection of p with steps"
/// (<https://webidl.spec.whatwg.org/#upon-fulfillment>): PerformPromiseThen
/// with built-in functions running the steps, and no derived promise (the
/// steps' result is not used, and neither set of steps throws).
///
/// `captures` lists what the steps close over (the values, and the hidden
/// objects of the records they share), for the collector: both functions
/// hold them, as Node's arrow functions hold their context.
pub(crate) fn upon_settlement(
    rt: &mut Rt,
    p: ObjectId,
    captures: &[Value],
    on_fulfilled: impl Fn(&mut Rt, Value) + 'static,
    on_rejected: impl Fn(&mut Rt, Value) + 'static,
) {
    let fulfilled = rt.native_function_capturing(
        Captures::values(captures.to_vec()),
        move |rt, _this, args| {
            on_fulfilled(rt, args.first().cloned().unwrap_or(Value::Undefined));
            Ok(Value::Undefined)
        },
    );
    let rejected = rt.native_function_capturing(
        Captures::values(captures.to_vec()),
        move |rt, _this, args| {
            on_rejected(rt, args.first().cloned().unwrap_or(Value::Undefined));
            Ok(Value::Undefined)
        },
    );
    rt.perform_promise_then(p, Some(fulfilled), Some(rejected), None);
}

/// A hidden heap object standing for a record that several algorithms
/// share and that is no object of the spec's (a tee's variables, a pipe's,
/// ReadableStreamFromIterable's, an async iterator's state): in Node, the
/// closure context or plain object the algorithms hold. Whatever holds the
/// record holds this object; [`crate::gc::trace`] lists the record's
/// fields as its edges, and the record is forgotten when it is collected.
pub(crate) fn new_record_object(rt: &mut Rt) -> ObjectId {
    rt.heap.alloc(ObjectData::Host)
}

/// Calls script code (a source's, sink's or transformer's method, a size
/// function) with `roots`, the receiver and the arguments rooted for the
/// call: what the calling algorithm keeps in its locals and uses after
/// the call, which a `gc` in the callee must not collect (Node's frames
/// hold them).
pub(crate) fn call_rooted(
    rt: &mut Rt,
    function: ObjectId,
    this: Value,
    args: &[Value],
    roots: &[Value],
) -> Completion {
    let mut held = Vec::with_capacity(roots.len() + args.len() + 1);
    held.extend_from_slice(roots);
    held.push(this.clone());
    held.extend_from_slice(args);
    let mark = crate::gc::hold(rt, &held);
    let result = rt.call_function(function, this, args);
    crate::gc::release(rt, mark);
    result
}

/// Runs `f` with `roots` rooted: the values an algorithm keeps in its
/// locals across steps that may call script code.
pub(crate) fn rooted<T>(rt: &mut Rt, roots: &[Value], f: impl FnOnce(&mut Rt) -> T) -> T {
    let mark = crate::gc::hold(rt, roots);
    let result = f(rt);
    crate::gc::release(rt, mark);
    result
}

/// Node's `new ERR_INVALID_STATE.TypeError(message)`: a TypeError with the
/// code ERR_INVALID_STATE and the message `Invalid state: {message}`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/errors.js#L1567>
/// `E('ERR_INVALID_STATE', 'Invalid state: %s', Error, TypeError, RangeError)`;
/// the Streams Standard only says "a TypeError".
pub(crate) fn err_invalid_state(rt: &mut Rt, message: &str) -> Value {
    rt.node_error(
        "TypeError",
        "ERR_INVALID_STATE",
        &format!("Invalid state: {message}"),
    )
}

/// The TypeError for an operand that is not of the kind the operation's
/// method belongs to: `prop` is the member JavaScript would read on it.
fn wrong_kind(rt: &mut Rt, value: &Value, prop: &str) -> Value {
    crate::cannot_read(rt, value, prop)
}

pub(crate) fn stream_operand(rt: &mut Rt, value: Value, prop: &str) -> Result<ObjectId, Value> {
    match value {
        Value::Object(id) if rt.lib.streams.streams.contains_key(&id) => Ok(id),
        other => Err(wrong_kind(rt, &other, prop)),
    }
}

fn controller_operand(rt: &mut Rt, value: Value, prop: &str) -> Result<ObjectId, Value> {
    match value {
        Value::Object(id) if rt.lib.streams.controllers.contains_key(&id) => Ok(id),
        other => Err(wrong_kind(rt, &other, prop)),
    }
}

fn reader_operand(rt: &mut Rt, value: Value, prop: &str) -> Result<ObjectId, Value> {
    match value {
        Value::Object(id) if rt.lib.streams.readers.contains_key(&id) => Ok(id),
        other => Err(wrong_kind(rt, &other, prop)),
    }
}

// ---- the ReadableStream class ---------------------------------------------

/// `new ReadableStream(underlyingSource, { highWaterMark })`: a strategy
/// without `size` ([`new_readable_stream_with_strategy`]).
pub fn new_readable_stream(
    rt: &mut Rt,
    source: UnderlyingSource,
    high_water_mark: Option<f64>,
) -> Completion {
    let strategy = QueuingStrategy {
        high_water_mark,
        size: None,
    };
    new_readable_stream_with_strategy(rt, source, strategy)
}

/// `new ReadableStream(underlyingSource, strategy)`
/// (<https://streams.spec.whatwg.org/#rs-constructor>).
pub fn new_readable_stream_with_strategy(
    rt: &mut Rt,
    source: UnderlyingSource,
    strategy: QueuingStrategy,
) -> Completion {
    // 1. If underlyingSource is missing, set it to null.
    // 2. Let underlyingSourceDict be underlyingSource, converted to an IDL
    //    value of type UnderlyingSource.
    // MODEL: the scenario's source object has only start, pull and cancel,
    // each a function; the conversion reads them in that order and cannot
    // throw.
    let this = rt.heap.alloc(ObjectData::Host);
    // 3. Perform ! InitializeReadableStream(this).
    initialize_readable_stream(rt, this);
    // 4. If underlyingSourceDict["type"] is "bytes": (no type here)
    // 5. Otherwise,
    //    1. Assert: underlyingSourceDict["type"] does not exist.
    //    2. Let sizeAlgorithm be ! ExtractSizeAlgorithm(strategy).
    let size_algorithm = crate::writable::extract_size_algorithm(&strategy);
    //    3. Let highWaterMark be ? ExtractHighWaterMark(strategy, 1).
    let high_water_mark = match extract_high_water_mark(rt, strategy.high_water_mark, 1.0) {
        Ok(hwm) => hwm,
        Err(e) => {
            // The object never reaches the script.
            rt.lib.streams.streams.remove(&this);
            return Err(e);
        }
    };
    //    4. Perform ? SetUpReadableStreamDefaultControllerFromUnderlyingSource(
    //       this, underlyingSource, underlyingSourceDict, highWaterMark,
    //       sizeAlgorithm).
    set_up_readable_stream_default_controller_from_underlying_source(
        rt,
        this,
        source,
        high_water_mark,
        size_algorithm,
    )?;
    Ok(Value::Object(this))
}

/// ExtractHighWaterMark(strategy, defaultHWM)
/// (<https://streams.spec.whatwg.org/#validate-and-normalize-high-water-mark>).
pub(crate) fn extract_high_water_mark(
    rt: &mut Rt,
    hwm: Option<f64>,
    default_hwm: f64,
) -> Result<f64, Value> {
    // 1. If strategy["highWaterMark"] does not exist, return defaultHWM.
    let Some(high_water_mark) = hwm else {
        return Ok(default_hwm);
    };
    // 2. Let highWaterMark be strategy["highWaterMark"].
    // 3. If highWaterMark is NaN or highWaterMark < 0, throw a RangeError
    //    exception.
    if high_water_mark.is_nan() || high_water_mark < 0.0 {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L68-L75
        // `extractHighWaterMark` throws
        // `new ERR_INVALID_ARG_VALUE.RangeError('strategy.highWaterMark', value)`:
        // "The property 'strategy.highWaterMark' is invalid. Received -1".
        let received = rt.fmt(&Value::Number(high_water_mark));
        return Err(rt.node_error(
            "RangeError",
            "ERR_INVALID_ARG_VALUE",
            &format!("The property 'strategy.highWaterMark' is invalid. Received {received}"),
        ));
    }
    // 4. Return highWaterMark.
    Ok(high_water_mark)
}

/// InitializeReadableStream(stream)
/// (<https://streams.spec.whatwg.org/#initialize-readable-stream>).
pub(crate) fn initialize_readable_stream(rt: &mut Rt, s: ObjectId) {
    rt.lib.streams.streams.insert(
        s,
        ReadableStream {
            controller: None,
            // 3. Set stream.[[disturbed]] to false.
            disturbed: false,
            // 2. Set stream.[[reader]] and stream.[[storedError]] to undefined.
            reader: None,
            // 1. Set stream.[[state]] to "readable".
            state: ReadableStreamState::Readable,
            stored_error: Value::Undefined,
        },
    );
}

/// The `locked` getter (<https://streams.spec.whatwg.org/#rs-locked>).
fn locked(rt: &Rt, s: ObjectId) -> bool {
    // 1. Return ! IsReadableStreamLocked(this).
    is_readable_stream_locked(rt, s)
}

/// `stream.cancel(reason)` (<https://streams.spec.whatwg.org/#rs-cancel>).
pub fn stream_cancel(rt: &mut Rt, s: Value, reason: Option<Value>) -> Completion {
    let s = stream_operand(rt, s, "cancel")?;
    let reason = reason.unwrap_or(Value::Undefined);
    // 1. If ! IsReadableStreamLocked(this) is true, return a promise rejected
    //    with a TypeError exception.
    if is_readable_stream_locked(rt, s) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L355-L361
        // `new ERR_INVALID_STATE.TypeError('ReadableStream is locked')`.
        let e = err_invalid_state(rt, "ReadableStream is locked");
        return Ok(Value::Object(a_promise_rejected_with(rt, e)));
    }
    // 2. Return ! ReadableStreamCancel(this, reason).
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L355-L363
    // no catch: a throw out of the cancel algorithm (a terminated transform's
    // readable, see transform::source_cancel_algorithm) leaves cancel() as
    // an exception, not a rejected promise as Web IDL would make it.
    Ok(Value::Object(readable_stream_cancel(rt, s, reason)?))
}

/// `stream.getReader()` (<https://streams.spec.whatwg.org/#rs-get-reader>),
/// without options.
pub fn get_reader(rt: &mut Rt, s: Value) -> Completion {
    let s = stream_operand(rt, s, "getReader")?;
    // 1. If options["mode"] does not exist, return ?
    //    AcquireReadableStreamDefaultReader(this).
    Ok(Value::Object(acquire_readable_stream_default_reader(
        rt, s,
    )?))
}

// ---- readable stream abstract operations ----------------------------------

/// AcquireReadableStreamDefaultReader(stream)
/// (<https://streams.spec.whatwg.org/#acquire-readable-stream-reader>).
pub(crate) fn acquire_readable_stream_default_reader(
    rt: &mut Rt,
    s: ObjectId,
) -> Result<ObjectId, Value> {
    // 1. Let reader be a new ReadableStreamDefaultReader.
    let reader = rt.heap.alloc(ObjectData::Host);
    // 2. Perform ? SetUpReadableStreamDefaultReader(reader, stream).
    set_up_readable_stream_default_reader(rt, reader, s)?;
    // 3. Return reader.
    Ok(reader)
}

/// IsReadableStreamLocked(stream)
/// (<https://streams.spec.whatwg.org/#is-readable-stream-locked>).
pub(crate) fn is_readable_stream_locked(rt: &Rt, s: ObjectId) -> bool {
    // 1. If stream.[[reader]] is undefined, return false.
    // 2. Return true.
    stream(rt, s).reader.is_some()
}

/// ReadableStreamCancel(stream, reason)
/// (<https://streams.spec.whatwg.org/#readable-stream-cancel>).
///
/// An `Err` is the exception of performing a cleared [[cancelAlgorithm]]
/// (see transform::source_cancel_algorithm): the spec's `!` does not hold
/// there, and Node's code throws it to its caller.
pub(crate) fn readable_stream_cancel(
    rt: &mut Rt,
    s: ObjectId,
    reason: Value,
) -> Result<ObjectId, Value> {
    // 1. Set stream.[[disturbed]] to true.
    stream_mut(rt, s).disturbed = true;
    match stream(rt, s).state {
        // 2. If stream.[[state]] is "closed", return a promise resolved with
        //    undefined.
        ReadableStreamState::Closed => return Ok(a_promise_resolved_with(rt, Value::Undefined)),
        // 3. If stream.[[state]] is "errored", return a promise rejected with
        //    stream.[[storedError]].
        ReadableStreamState::Errored => {
            let e = stream(rt, s).stored_error.clone();
            return Ok(a_promise_rejected_with(rt, e));
        }
        ReadableStreamState::Readable => {}
    }
    // 4. Perform ! ReadableStreamClose(stream).
    readable_stream_close(rt, s);
    // 5. Let reader be stream.[[reader]].
    // 6. If reader is not undefined and reader implements
    //    ReadableStreamBYOBReader,
    if let Some(r) = stream(rt, s).reader {
        if crate::byte_streams::is_byob_reader(rt, r) {
            //   1. Let readIntoRequests be reader.[[readIntoRequests]].
            //   2. Set reader.[[readIntoRequests]] to an empty list.
            let read_into_requests =
                std::mem::take(&mut crate::byte_streams::byob_reader_mut(rt, r).read_into_requests);
            //   3. For each readIntoRequest of readIntoRequests,
            // (The list, in no slot now, is rooted while the steps run: a
            // byte tee's may respond and pull.)
            let roots: Vec<Value> = read_into_requests
                .iter()
                .map(crate::byte_streams::ReadIntoRequest::holds)
                .collect();
            rooted(rt, &roots, |rt| {
                for read_into_request in read_into_requests {
                    //  1. Perform readIntoRequest's close steps, given undefined.
                    crate::byte_streams::read_into_request_close_steps(
                        rt,
                        read_into_request,
                        Value::Undefined,
                    );
                }
            });
        }
    }
    // 7. Let sourceCancelPromise be !
    //    stream.[[controller]].[[CancelSteps]](reason).
    let c = stream_controller(rt, s);
    let source_cancel_promise = cancel_steps(rt, c, reason)?;
    // 8. Return the result of reacting to sourceCancelPromise with a
    //    fulfillment step that returns undefined.
    let returns_undefined =
        rt.native_function_capturing(Captures::nothing(), |_, _, _| Ok(Value::Undefined));
    Ok(rt.promise_then(source_cancel_promise, Some(returns_undefined), None))
}

/// ReadableStreamClose(stream)
/// (<https://streams.spec.whatwg.org/#readable-stream-close>).
pub(crate) fn readable_stream_close(rt: &mut Rt, s: ObjectId) {
    // 1. Assert: stream.[[state]] is "readable".
    assert_eq!(stream(rt, s).state, ReadableStreamState::Readable);
    // 2. Set stream.[[state]] to "closed".
    stream_mut(rt, s).state = ReadableStreamState::Closed;
    // 3. Let reader be stream.[[reader]].
    // 4. If reader is undefined, return.
    let Some(r) = stream(rt, s).reader else {
        return;
    };
    // 5. Resolve reader.[[closedPromise]] with undefined.
    let closed = generic_closed_promise(rt, r);
    resolve(rt, closed, Value::Undefined);
    // 6. If reader implements ReadableStreamDefaultReader,
    if !rt.lib.streams.readers.contains_key(&r) {
        return;
    }
    //    1. Let readRequests be reader.[[readRequests]].
    //    2. Set reader.[[readRequests]] to an empty list.
    let read_requests = std::mem::take(&mut reader_mut(rt, r).read_requests);
    //    3. For each readRequest of readRequests,
    // (The list, in no slot now, is rooted while the steps run.)
    let roots: Vec<Value> = read_requests.iter().map(ReadRequest::holds).collect();
    rooted(rt, &roots, |rt| {
        for read_request in read_requests {
            //   1. Perform readRequest's close steps.
            read_request_close_steps(rt, read_request);
        }
    });
}

/// ReadableStreamError(stream, e)
/// (<https://streams.spec.whatwg.org/#readable-stream-error>).
pub(crate) fn readable_stream_error(rt: &mut Rt, s: ObjectId, e: Value) {
    // 1. Assert: stream.[[state]] is "readable".
    assert_eq!(stream(rt, s).state, ReadableStreamState::Readable);
    // 2. Set stream.[[state]] to "errored".
    stream_mut(rt, s).state = ReadableStreamState::Errored;
    // 3. Set stream.[[storedError]] to e.
    stream_mut(rt, s).stored_error = e.clone();
    // 4. Let reader be stream.[[reader]].
    // 5. If reader is undefined, return.
    let Some(r) = stream(rt, s).reader else {
        return;
    };
    // 6. Reject reader.[[closedPromise]] with e.
    let closed = generic_closed_promise(rt, r);
    reject(rt, closed, e.clone());
    // 7. Set reader.[[closedPromise]].[[PromiseIsHandled]] to true.
    mark_as_handled(rt, closed);
    // 8. If reader implements ReadableStreamDefaultReader,
    if rt.lib.streams.readers.contains_key(&r) {
        //    1. Perform ! ReadableStreamDefaultReaderErrorReadRequests(reader, e).
        readable_stream_default_reader_error_read_requests(rt, r, e);
    } else {
        // 9. Otherwise,
        //    1. Assert: reader implements ReadableStreamBYOBReader.
        //    2. Perform ! ReadableStreamBYOBReaderErrorReadIntoRequests(reader, e).
        crate::byte_streams::readable_stream_byob_reader_error_read_into_requests(rt, r, e);
    }
}

/// ReadableStreamAddReadRequest(stream, readRequest)
/// (<https://streams.spec.whatwg.org/#readable-stream-add-read-request>).
pub(crate) fn readable_stream_add_read_request(
    rt: &mut Rt,
    s: ObjectId,
    read_request: ReadRequest,
) {
    // 1. Assert: stream.[[reader]] implements ReadableStreamDefaultReader.
    let r = stream(rt, s).reader.expect("the stream's default reader");
    // 2. Assert: stream.[[state]] is "readable".
    assert_eq!(stream(rt, s).state, ReadableStreamState::Readable);
    // 3. Append readRequest to stream.[[reader]].[[readRequests]].
    reader_mut(rt, r).read_requests.push_back(read_request);
}

/// ReadableStreamFulfillReadRequest(stream, chunk, done)
/// (<https://streams.spec.whatwg.org/#readable-stream-fulfill-read-request>).
pub(crate) fn readable_stream_fulfill_read_request(
    rt: &mut Rt,
    s: ObjectId,
    chunk: Value,
    done: bool,
) {
    // 1. Assert: ! ReadableStreamHasDefaultReader(stream) is true.
    // 2. Let reader be stream.[[reader]].
    let r = stream(rt, s).reader.expect("the stream's default reader");
    // 3. Assert: reader.[[readRequests]] is not empty.
    assert!(!reader(rt, r).read_requests.is_empty());
    // 4. Let readRequest be reader.[[readRequests]][0].
    // 5. Remove readRequest from reader.[[readRequests]].
    let read_request = reader_mut(rt, r)
        .read_requests
        .pop_front()
        .expect("a read request");
    // 6. If done is true, perform readRequest's close steps.
    if done {
        read_request_close_steps(rt, read_request);
    } else {
        // 7. Otherwise, perform readRequest's chunk steps, given chunk.
        read_request_chunk_steps(rt, read_request, chunk);
    }
}

/// ReadableStreamGetNumReadRequests(stream)
/// (<https://streams.spec.whatwg.org/#readable-stream-get-num-read-requests>).
pub(crate) fn readable_stream_get_num_read_requests(rt: &Rt, s: ObjectId) -> usize {
    // 1. Assert: ! ReadableStreamHasDefaultReader(stream) is true.
    let r = stream(rt, s).reader.expect("the stream's default reader");
    // 2. Return stream.[[reader]].[[readRequests]]'s size.
    reader(rt, r).read_requests.len()
}

// ---- the read request of read() -------------------------------------------

/// A read request's chunk steps, given chunk.
pub(crate) fn read_request_chunk_steps(rt: &mut Rt, read_request: ReadRequest, chunk: Value) {
    match read_request {
        // chunk steps, given chunk: 1. Resolve promise with
        // «[ "value" → chunk, "done" → false ]».
        ReadRequest::Read { promise } => {
            let result = rt.create_iter_result(chunk, false);
            resolve(rt, promise, result);
        }
        ReadRequest::Tee { tee } => tee_chunk_steps(rt, tee, chunk),
        ReadRequest::AsyncIterator { iterator } => {
            crate::iterate::iterator_chunk_steps(rt, iterator, chunk)
        }
        ReadRequest::Pipe { pipe } => crate::pipe::read_request_chunk_steps(rt, pipe, chunk),
        ReadRequest::ByteTee { tee } => crate::byte_streams::byte_tee_chunk_steps(rt, tee, chunk),
    }
}

/// A read request's close steps.
pub(crate) fn read_request_close_steps(rt: &mut Rt, read_request: ReadRequest) {
    match read_request {
        // close steps: 1. Resolve promise with
        // «[ "value" → undefined, "done" → true ]».
        ReadRequest::Read { promise } => {
            let result = rt.create_iter_result(Value::Undefined, true);
            resolve(rt, promise, result);
        }
        ReadRequest::Tee { tee } => tee_close_steps(rt, tee),
        ReadRequest::AsyncIterator { iterator } => {
            crate::iterate::iterator_close_steps(rt, iterator)
        }
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1866-L1876
        // the pipe's close and error steps do nothing (`nonOpCallback`):
        // the source watchers handle close and error.
        ReadRequest::Pipe { .. } => {}
        ReadRequest::ByteTee { tee } => crate::byte_streams::byte_tee_close_steps(rt, tee),
    }
}

/// A read request's error steps, given e.
pub(crate) fn read_request_error_steps(rt: &mut Rt, read_request: ReadRequest, e: Value) {
    match read_request {
        // error steps, given e: 1. Reject promise with e.
        ReadRequest::Read { promise } => reject(rt, promise, e),
        ReadRequest::Tee { tee } => tee_error_steps(rt, tee),
        ReadRequest::AsyncIterator { iterator } => {
            crate::iterate::iterator_error_steps(rt, iterator, e)
        }
        ReadRequest::Pipe { .. } => {}
        ReadRequest::ByteTee { tee } => crate::byte_streams::byte_tee_error_steps(rt, tee),
    }
}

// ---- the ReadableStreamDefaultReader class --------------------------------

/// The `closed` getter
/// (<https://streams.spec.whatwg.org/#generic-reader-closed>).
fn closed(rt: &Rt, r: ObjectId) -> ObjectId {
    // 1. Return this.[[closedPromise]].
    reader(rt, r).closed_promise
}

/// `reader.cancel(reason)`
/// (<https://streams.spec.whatwg.org/#generic-reader-cancel>).
pub fn reader_cancel(rt: &mut Rt, r: Value, reason: Option<Value>) -> Completion {
    let r = reader_operand(rt, r, "cancel")?;
    let reason = reason.unwrap_or(Value::Undefined);
    // 1. If this.[[stream]] is undefined, return a promise rejected with a
    //    TypeError exception.
    if reader(rt, r).stream.is_none() {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1052-L1057
        // `new ERR_INVALID_STATE.TypeError('The reader is not attached to a stream')`.
        let e = err_invalid_state(rt, "The reader is not attached to a stream");
        return Ok(Value::Object(a_promise_rejected_with(rt, e)));
    }
    // 2. Return ! ReadableStreamReaderGenericCancel(this, reason).
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1052-L1060
    // no catch: a throw out of the cancel algorithm is cancel()'s exception.
    Ok(Value::Object(readable_stream_reader_generic_cancel(
        rt, r, reason,
    )?))
}

/// `reader.read()` (<https://streams.spec.whatwg.org/#default-reader-read>).
pub fn reader_read(rt: &mut Rt, r: Value) -> Completion {
    let r = reader_operand(rt, r, "read")?;
    // 1. If this.[[stream]] is undefined, return a promise rejected with a
    //    TypeError exception.
    if reader(rt, r).stream.is_none() {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L974-L981
        // `new ERR_INVALID_STATE.TypeError('The reader is not attached to a stream')`.
        let e = err_invalid_state(rt, "The reader is not attached to a stream");
        return Ok(Value::Object(a_promise_rejected_with(rt, e)));
    }
    // 2. Let promise be a new promise.
    let promise = a_new_promise(rt);
    // 3. Let readRequest be a new read request with the following items:
    //    chunk steps, close steps, error steps (see ReadRequest::Read).
    let read_request = ReadRequest::Read { promise };
    // 4. Perform ! ReadableStreamDefaultReaderRead(this, readRequest).
    // (The promise, returned after the steps, is rooted while they may run
    // script code and settle it, as `read()`'s frame holds it.)
    rooted(rt, &[Value::Object(promise)], |rt| {
        readable_stream_default_reader_read(rt, r, read_request)
    });
    // 5. Return promise.
    Ok(Value::Object(promise))
}

/// `reader.releaseLock()`
/// (<https://streams.spec.whatwg.org/#default-reader-release-lock>).
pub fn reader_release_lock(rt: &mut Rt, r: Value) -> Completion {
    let r = reader_operand(rt, r, "releaseLock")?;
    // 1. If this.[[stream]] is undefined, return.
    if reader(rt, r).stream.is_none() {
        return Ok(Value::Undefined);
    }
    // 2. Perform ! ReadableStreamDefaultReaderRelease(this).
    readable_stream_default_reader_release(rt, r);
    Ok(Value::Undefined)
}

// ---- readers' abstract operations ------------------------------------------

/// ReadableStreamReaderGenericCancel(reader, reason)
/// (<https://streams.spec.whatwg.org/#readable-stream-reader-generic-cancel>).
pub(crate) fn readable_stream_reader_generic_cancel(
    rt: &mut Rt,
    r: ObjectId,
    reason: Value,
) -> Result<ObjectId, Value> {
    // 1. Let stream be reader.[[stream]].
    // 2. Assert: stream is not undefined.
    let s = generic_reader_stream(rt, r).expect("the reader's stream");
    // 3. Return ! ReadableStreamCancel(stream, reason).
    readable_stream_cancel(rt, s, reason)
}

/// ReadableStreamReaderGenericInitialize(reader, stream)
/// (<https://streams.spec.whatwg.org/#readable-stream-reader-generic-initialize>),
/// which makes the reader's slots; SetUpReadableStreamDefaultReader's step 3
/// (an empty [[readRequests]]) is done here too, or
/// SetUpReadableStreamBYOBReader's step 4 (an empty [[readIntoRequests]])
/// when `byob`.
pub(crate) fn readable_stream_reader_generic_initialize(
    rt: &mut Rt,
    r: ObjectId,
    s: ObjectId,
    byob: bool,
) {
    // 3. If stream.[[state]] is "readable",
    //    1. Set reader.[[closedPromise]] to a new promise.
    // 4. Otherwise, if stream.[[state]] is "closed",
    //    1. Set reader.[[closedPromise]] to a promise resolved with undefined.
    // 5. Otherwise,
    //    1. Assert: stream.[[state]] is "errored".
    //    2. Set reader.[[closedPromise]] to a promise rejected with
    //       stream.[[storedError]].
    //    3. Set reader.[[closedPromise]].[[PromiseIsHandled]] to true.
    let closed_promise = match stream(rt, s).state {
        ReadableStreamState::Readable => a_new_promise(rt),
        ReadableStreamState::Closed => a_promise_resolved_with(rt, Value::Undefined),
        ReadableStreamState::Errored => {
            let e = stream(rt, s).stored_error.clone();
            let p = a_promise_rejected_with(rt, e);
            mark_as_handled(rt, p);
            p
        }
    };
    if byob {
        crate::byte_streams::insert_byob_reader(rt, r, closed_promise, s);
    } else {
        rt.lib.streams.readers.insert(
            r,
            ReadableStreamDefaultReader {
                closed_promise,
                // 1. Set reader.[[stream]] to stream.
                stream: Some(s),
                read_requests: VecDeque::new(),
            },
        );
    }
    // 2. Set stream.[[reader]] to reader.
    stream_mut(rt, s).reader = Some(r);
}

/// ReadableStreamReaderGenericRelease(reader)
/// (<https://streams.spec.whatwg.org/#readable-stream-reader-generic-release>).
pub(crate) fn readable_stream_reader_generic_release(rt: &mut Rt, r: ObjectId) {
    // 1. Let stream be reader.[[stream]].
    // 2. Assert: stream is not undefined.
    let s = generic_reader_stream(rt, r).expect("the reader's stream");
    // 3. Assert: stream.[[reader]] is reader.
    assert_eq!(stream(rt, s).reader, Some(r));
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L164-L173
    // `lazyReadableReleasedError()`: the TypeError is
    // `new ERR_INVALID_STATE.TypeError('Reader released')`, made once and
    // the same object for every release.
    let e = released_error(rt);
    // 4. If stream.[[state]] is "readable", reject reader.[[closedPromise]]
    //    with a TypeError exception.
    if stream(rt, s).state == ReadableStreamState::Readable {
        let closed = generic_closed_promise(rt, r);
        assert!(
            is_pending(rt, closed),
            "a readable stream's reader's closed promise is pending"
        );
        reject(rt, closed, e);
    } else {
        // 5. Otherwise, set reader.[[closedPromise]] to a promise rejected
        //    with a TypeError exception.
        let p = a_promise_rejected_with(rt, e);
        set_generic_closed_promise(rt, r, p);
    }
    // 6. Set reader.[[closedPromise]].[[PromiseIsHandled]] to true.
    let closed = generic_closed_promise(rt, r);
    mark_as_handled(rt, closed);
    // 7. Perform ! stream.[[controller]].[[ReleaseSteps]]().
    let c = stream_controller(rt, s);
    release_steps(rt, c);
    // 8. Set stream.[[reader]] to undefined.
    stream_mut(rt, s).reader = None;
    // 9. Set reader.[[stream]] to undefined.
    set_generic_reader_stream(rt, r, None);
}

/// Node's one "Reader released" TypeError.
fn released_error(rt: &mut Rt) -> Value {
    if let Some(e) = &rt.lib.streams.released_error {
        return e.clone();
    }
    let e = err_invalid_state(rt, "Reader released");
    rt.lib.streams.released_error = Some(e.clone());
    e
}

/// Node's one "Releasing reader" TypeError.
pub(crate) fn releasing_error(rt: &mut Rt) -> Value {
    if let Some(e) = &rt.lib.streams.releasing_error {
        return e.clone();
    }
    let e = err_invalid_state(rt, "Releasing reader");
    rt.lib.streams.releasing_error = Some(e.clone());
    e
}

/// ReadableStreamDefaultReaderErrorReadRequests(reader, e)
/// (<https://streams.spec.whatwg.org/#abstract-opdef-readablestreamdefaultreadererrorreadrequests>).
fn readable_stream_default_reader_error_read_requests(rt: &mut Rt, r: ObjectId, e: Value) {
    // 1. Let readRequests be reader.[[readRequests]].
    // 2. Set reader.[[readRequests]] to a new empty list.
    let read_requests = std::mem::take(&mut reader_mut(rt, r).read_requests);
    // 3. For each readRequest of readRequests,
    // (The list, in no slot now, is rooted while the steps run.)
    let mut roots: Vec<Value> = read_requests.iter().map(ReadRequest::holds).collect();
    roots.push(e.clone());
    rooted(rt, &roots, |rt| {
        for read_request in read_requests {
            //   1. Perform readRequest's error steps, given e.
            read_request_error_steps(rt, read_request, e.clone());
        }
    });
}

/// ReadableStreamDefaultReaderRead(reader, readRequest)
/// (<https://streams.spec.whatwg.org/#readable-stream-default-reader-read>).
pub(crate) fn readable_stream_default_reader_read(
    rt: &mut Rt,
    r: ObjectId,
    read_request: ReadRequest,
) {
    // 1. Let stream be reader.[[stream]].
    // 2. Assert: stream is not undefined.
    let s = reader(rt, r).stream.expect("the reader's stream");
    // 3. Set stream.[[disturbed]] to true.
    stream_mut(rt, s).disturbed = true;
    match stream(rt, s).state {
        // 4. If stream.[[state]] is "closed", perform readRequest's close steps.
        ReadableStreamState::Closed => read_request_close_steps(rt, read_request),
        // 5. Otherwise, if stream.[[state]] is "errored", perform readRequest's
        //    error steps given stream.[[storedError]].
        ReadableStreamState::Errored => {
            let e = stream(rt, s).stored_error.clone();
            read_request_error_steps(rt, read_request, e);
        }
        // 6. Otherwise,
        //    1. Assert: stream.[[state]] is "readable".
        //    2. Perform ! stream.[[controller]].[[PullSteps]](readRequest).
        ReadableStreamState::Readable => {
            let c = stream_controller(rt, s);
            pull_steps(rt, c, read_request);
        }
    }
}

/// ReadableStreamDefaultReaderRelease(reader)
/// (<https://streams.spec.whatwg.org/#abstract-opdef-readablestreamdefaultreaderrelease>).
pub(crate) fn readable_stream_default_reader_release(rt: &mut Rt, r: ObjectId) {
    // 1. Perform ! ReadableStreamReaderGenericRelease(reader).
    readable_stream_reader_generic_release(rt, r);
    // 2. Let e be a new TypeError exception.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L175-L183
    // `lazyReadableReleasingError()`: Node's
    // `new ERR_INVALID_STATE.TypeError('Releasing reader')`, made once and the
    // same object for every release.
    let e = releasing_error(rt);
    // 3. Perform ! ReadableStreamDefaultReaderErrorReadRequests(reader, e).
    readable_stream_default_reader_error_read_requests(rt, r, e);
}

/// SetUpReadableStreamDefaultReader(reader, stream)
/// (<https://streams.spec.whatwg.org/#set-up-readable-stream-default-reader>).
fn set_up_readable_stream_default_reader(
    rt: &mut Rt,
    r: ObjectId,
    s: ObjectId,
) -> Result<(), Value> {
    // 1. If ! IsReadableStreamLocked(stream) is true, throw a TypeError
    //    exception.
    if is_readable_stream_locked(rt, s) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2775-L2777
        // `new ERR_INVALID_STATE.TypeError('ReadableStream is locked')`.
        return Err(err_invalid_state(rt, "ReadableStream is locked"));
    }
    // 2. Perform ! ReadableStreamReaderGenericInitialize(reader, stream).
    // 3. Set reader.[[readRequests]] to a new empty list.
    readable_stream_reader_generic_initialize(rt, r, s, false);
    Ok(())
}

// ---- the ReadableStreamDefaultController class ----------------------------

/// The `desiredSize` getter
/// (<https://streams.spec.whatwg.org/#rs-default-controller-desired-size>).
fn desired_size(rt: &Rt, c: ObjectId) -> Value {
    // 1. Return ! ReadableStreamDefaultControllerGetDesiredSize(this).
    match readable_stream_default_controller_get_desired_size(rt, c) {
        Some(n) => Value::Number(n),
        None => Value::Null,
    }
}

/// `controller.close()`
/// (<https://streams.spec.whatwg.org/#rs-default-controller-close>).
pub fn controller_close(rt: &mut Rt, c: Value) -> Completion {
    let c = controller_operand(rt, c, "close")?;
    // 1. If ! ReadableStreamDefaultControllerCanCloseOrEnqueue(this) is false,
    //    throw a TypeError exception.
    if !readable_stream_default_controller_can_close_or_enqueue(rt, c) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1185-L1187
        // `new ERR_INVALID_STATE.TypeError('Controller is already closed')`,
        // for an errored stream too.
        return Err(err_invalid_state(rt, "Controller is already closed"));
    }
    // 2. Perform ! ReadableStreamDefaultControllerClose(this).
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1185-L1189
    // an async iterator's read request parked twice throws
    // ERR_INTERNAL_ASSERTION from its close steps (crate::iterate), out of close().
    rt.clear_internal_assertion();
    readable_stream_default_controller_close(rt, c);
    if let Some(e) = rt.take_internal_assertion() {
        return Err(e);
    }
    Ok(Value::Undefined)
}

/// `controller.enqueue(chunk)`
/// (<https://streams.spec.whatwg.org/#rs-default-controller-enqueue>).
pub fn controller_enqueue(rt: &mut Rt, c: Value, chunk: Value) -> Completion {
    let c = controller_operand(rt, c, "enqueue")?;
    // 1. If ! ReadableStreamDefaultControllerCanCloseOrEnqueue(this) is false,
    //    throw a TypeError exception.
    if !readable_stream_default_controller_can_close_or_enqueue(rt, c) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1194-L1196
        // `new ERR_INVALID_STATE.TypeError('Controller is already closed')`,
        // for an errored stream too.
        return Err(err_invalid_state(rt, "Controller is already closed"));
    }
    // 2. Perform ? ReadableStreamDefaultControllerEnqueue(this, chunk).
    readable_stream_default_controller_enqueue(rt, c, chunk)?;
    Ok(Value::Undefined)
}

/// `controller.error(e)`
/// (<https://streams.spec.whatwg.org/#rs-default-controller-error>).
pub fn controller_error(rt: &mut Rt, c: Value, e: Value) -> Completion {
    let c = controller_operand(rt, c, "error")?;
    // 1. Perform ! ReadableStreamDefaultControllerError(this, e).
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1203-L1205
    // an async iterator's read request parked twice throws
    // ERR_INTERNAL_ASSERTION from its error steps (crate::iterate), out of error().
    rt.clear_internal_assertion();
    readable_stream_default_controller_error(rt, c, e);
    if let Some(e) = rt.take_internal_assertion() {
        return Err(e);
    }
    Ok(Value::Undefined)
}

/// [[CancelSteps]](reason)
/// (<https://streams.spec.whatwg.org/#rs-default-controller-private-cancel>).
fn cancel_steps(rt: &mut Rt, c: ObjectId, reason: Value) -> Result<ObjectId, Value> {
    if is_byte_controller(rt, c) {
        return Ok(crate::byte_streams::cancel_steps(rt, c, reason));
    }
    // 1. Perform ! ResetQueue(this).
    reset_queue(rt, c);
    // 2. Let result be the result of performing this.[[cancelAlgorithm]],
    //    passing reason.
    let algorithm = controller(rt, c)
        .cancel_algorithm
        .expect("the cancel algorithm of a readable stream, not yet cleared");
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2962-L2967
    // a throw of the algorithm leaves this at once: the queue is reset, the
    // algorithms are not cleared.
    // (The controller is rooted while the algorithm runs script code.)
    let result = rooted(rt, &[Value::Object(c)], |rt| {
        perform_cancel_algorithm(rt, c, algorithm, reason)
    })?;
    // 3. Perform ! ReadableStreamDefaultControllerClearAlgorithms(this).
    readable_stream_default_controller_clear_algorithms(rt, c);
    // 4. Return result.
    Ok(result)
}

/// [[PullSteps]](readRequest)
/// (<https://streams.spec.whatwg.org/#rs-default-controller-private-pull>).
fn pull_steps(rt: &mut Rt, c: ObjectId, read_request: ReadRequest) {
    if is_byte_controller(rt, c) {
        return crate::byte_streams::pull_steps(rt, c, read_request);
    }
    // 1. Let stream be this.[[stream]].
    let s = controller(rt, c).stream;
    // 2. If this.[[queue]] is not empty,
    if !controller(rt, c).queue.is_empty() {
        //   1. Let chunk be ! DequeueValue(this).
        let chunk = dequeue_value(rt, c);
        //   2. If this.[[closeRequested]] is true and this.[[queue]] is empty,
        if controller(rt, c).close_requested && controller(rt, c).queue.is_empty() {
            //  1. Perform ! ReadableStreamDefaultControllerClearAlgorithms(this).
            readable_stream_default_controller_clear_algorithms(rt, c);
            //  2. Perform ! ReadableStreamClose(stream).
            readable_stream_close(rt, s);
        } else {
            //   3. Otherwise, perform !
            //      ReadableStreamDefaultControllerCallPullIfNeeded(this).
            // (The chunk and the read request, in no slot now, are rooted
            // while the pull runs script code.)
            let roots = [chunk.clone(), read_request.holds()];
            rooted(rt, &roots, |rt| {
                readable_stream_default_controller_call_pull_if_needed(rt, c)
            });
        }
        //   4. Perform readRequest's chunk steps, given chunk.
        read_request_chunk_steps(rt, read_request, chunk);
    } else {
        // 3. Otherwise,
        //    1. Perform ! ReadableStreamAddReadRequest(stream, readRequest).
        readable_stream_add_read_request(rt, s, read_request);
        //    2. Perform ! ReadableStreamDefaultControllerCallPullIfNeeded(this).
        readable_stream_default_controller_call_pull_if_needed(rt, c);
    }
}

/// Whether a controller's [[queue]] is not empty.
pub(crate) fn controller_has_queued_chunks(rt: &Rt, c: ObjectId) -> bool {
    !controller(rt, c).queue.is_empty()
}

/// "Set stream.[[disturbed]] to true".
pub(crate) fn set_disturbed(rt: &mut Rt, s: ObjectId) {
    stream_mut(rt, s).disturbed = true;
}

/// [[PullSteps]]'s step 2, the queue-filled arm, up to the chunk steps:
/// the chunk dequeued (closing the stream or pulling as step 2 does).
pub(crate) fn pull_steps_dequeue(rt: &mut Rt, c: ObjectId) -> Value {
    let s = controller(rt, c).stream;
    //   1. Let chunk be ! DequeueValue(this).
    let chunk = dequeue_value(rt, c);
    //   2. If this.[[closeRequested]] is true and this.[[queue]] is empty,
    if controller(rt, c).close_requested && controller(rt, c).queue.is_empty() {
        //  1. Perform ! ReadableStreamDefaultControllerClearAlgorithms(this).
        readable_stream_default_controller_clear_algorithms(rt, c);
        //  2. Perform ! ReadableStreamClose(stream).
        readable_stream_close(rt, s);
    } else {
        //   3. Otherwise, perform !
        //      ReadableStreamDefaultControllerCallPullIfNeeded(this).
        // (The chunk, in no slot now, is rooted while the pull runs.)
        rooted(rt, std::slice::from_ref(&chunk), |rt| {
            readable_stream_default_controller_call_pull_if_needed(rt, c)
        });
    }
    chunk
}

/// [[ReleaseSteps]]()
/// (<https://streams.spec.whatwg.org/#abstract-opdef-readablestreamdefaultcontroller-releasesteps>).
fn release_steps(rt: &mut Rt, c: ObjectId) {
    if is_byte_controller(rt, c) {
        crate::byte_streams::release_steps(rt, c);
    }
    // 1. Return.
}

// ---- default controllers' abstract operations -----------------------------

/// ReadableStreamDefaultControllerCallPullIfNeeded(controller)
/// (<https://streams.spec.whatwg.org/#readable-stream-default-controller-call-pull-if-needed>).
pub(crate) fn readable_stream_default_controller_call_pull_if_needed(rt: &mut Rt, c: ObjectId) {
    // 1. Let shouldPull be ! ReadableStreamDefaultControllerShouldCallPull(controller).
    let should_pull = readable_stream_default_controller_should_call_pull(rt, c);
    // 2. If shouldPull is false, return.
    if !should_pull {
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
    // (The controller is rooted while the algorithm runs script code: the
    // steps below use it.)
    let pulled = rooted(rt, &[Value::Object(c)], |rt| {
        perform_pull_algorithm(rt, c, algorithm)
    });
    let Some(pull_promise) = pulled else {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L369-L370
        // `kParkedAlgorithmResult`: ReadableStream.from's pull runs step 7's
        // fulfillment steps itself ([`crate::iterate`]), at once after its
        // enqueue or close, not a microtask after a promise.
        return;
    };
    upon_settlement(
        rt,
        pull_promise,
        &[Value::Object(c)],
        // 7. Upon fulfillment of pullPromise,
        move |rt, _| pull_promise_fulfilled(rt, c),
        // 8. Upon rejection of pullPromise with reason e,
        move |rt, e| {
            //   1. Perform ! ReadableStreamDefaultControllerError(controller, e).
            error_in_a_reaction(rt, c, e);
        },
    );
}

/// ! ReadableStreamDefaultControllerError(controller, e) in the reaction to
/// a rejected start or pull promise.
fn error_in_a_reaction(rt: &mut Rt, c: ObjectId, e: Value) {
    rt.clear_internal_assertion();
    readable_stream_default_controller_error(rt, c, e);
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L368-L377
    // an ERR_INTERNAL_ASSERTION of an async iterator's error steps
    // (crate::iterate) rejects the promise `PromisePrototypeThen` derived
    // for the reaction, which nothing handles.
    if let Some(e) = rt.take_internal_assertion() {
        a_promise_rejected_with(rt, e);
    }
}

/// ReadableStreamDefaultControllerCallPullIfNeeded's step 7: the steps upon
/// fulfillment of pullPromise.
pub(crate) fn pull_promise_fulfilled(rt: &mut Rt, c: ObjectId) {
    //   1. Set controller.[[pulling]] to false.
    controller_mut(rt, c).pulling = false;
    //   2. If controller.[[pullAgain]] is true,
    if controller(rt, c).pull_again {
        //  1. Set controller.[[pullAgain]] to false.
        controller_mut(rt, c).pull_again = false;
        //  2. Perform ! ReadableStreamDefaultControllerCallPullIfNeeded(controller).
        readable_stream_default_controller_call_pull_if_needed(rt, c);
    }
}

/// ReadableStreamDefaultControllerShouldCallPull(controller)
/// (<https://streams.spec.whatwg.org/#readable-stream-default-controller-should-call-pull>).
pub(crate) fn readable_stream_default_controller_should_call_pull(rt: &Rt, c: ObjectId) -> bool {
    // 1. Let stream be controller.[[stream]].
    let s = controller(rt, c).stream;
    // 2. If ! ReadableStreamDefaultControllerCanCloseOrEnqueue(controller) is
    //    false, return false.
    if !readable_stream_default_controller_can_close_or_enqueue(rt, c) {
        return false;
    }
    // 3. If controller.[[started]] is false, return false.
    if !controller(rt, c).started {
        return false;
    }
    // 4. If ! IsReadableStreamLocked(stream) is true and !
    //    ReadableStreamGetNumReadRequests(stream) > 0, return true.
    if is_readable_stream_locked(rt, s) && readable_stream_get_num_read_requests(rt, s) > 0 {
        return true;
    }
    // 5. Let desiredSize be ! ReadableStreamDefaultControllerGetDesiredSize(controller).
    let desired_size = readable_stream_default_controller_get_desired_size(rt, c);
    // 6. Assert: desiredSize is not null.
    let desired_size = desired_size.expect("the desired size of a readable stream");
    // 7. If desiredSize > 0, return true.
    // 8. Return false.
    desired_size > 0.0
}

/// ReadableStreamDefaultControllerClearAlgorithms(controller)
/// (<https://streams.spec.whatwg.org/#readable-stream-default-controller-clear-algorithms>).
pub(crate) fn readable_stream_default_controller_clear_algorithms(rt: &mut Rt, c: ObjectId) {
    let controller = controller_mut(rt, c);
    // 1. Set controller.[[pullAlgorithm]] to undefined.
    controller.pull_algorithm = None;
    // 2. Set controller.[[cancelAlgorithm]] to undefined.
    controller.cancel_algorithm = None;
    // 3. Set controller.[[strategySizeAlgorithm]] to undefined.
    controller.strategy_size_algorithm = None;
}

/// ReadableStreamDefaultControllerClose(controller)
/// (<https://streams.spec.whatwg.org/#readable-stream-default-controller-close>).
pub(crate) fn readable_stream_default_controller_close(rt: &mut Rt, c: ObjectId) {
    // 1. If ! ReadableStreamDefaultControllerCanCloseOrEnqueue(controller) is
    //    false, return.
    if !readable_stream_default_controller_can_close_or_enqueue(rt, c) {
        return;
    }
    // 2. Let stream be controller.[[stream]].
    let s = controller(rt, c).stream;
    // 3. Set controller.[[closeRequested]] to true.
    controller_mut(rt, c).close_requested = true;
    // 4. If controller.[[queue]] is empty,
    if controller(rt, c).queue.is_empty() {
        //   1. Perform ! ReadableStreamDefaultControllerClearAlgorithms(controller).
        readable_stream_default_controller_clear_algorithms(rt, c);
        //   2. Perform ! ReadableStreamClose(stream).
        readable_stream_close(rt, s);
    }
}

/// ReadableStreamDefaultControllerEnqueue(controller, chunk)
/// (<https://streams.spec.whatwg.org/#readable-stream-default-controller-enqueue>).
pub(crate) fn readable_stream_default_controller_enqueue(
    rt: &mut Rt,
    c: ObjectId,
    chunk: Value,
) -> Result<(), Value> {
    // 1. If ! ReadableStreamDefaultControllerCanCloseOrEnqueue(controller) is
    //    false, return.
    if !readable_stream_default_controller_can_close_or_enqueue(rt, c) {
        return Ok(());
    }
    // 2. Let stream be controller.[[stream]].
    let s = controller(rt, c).stream;
    // 3. If ! IsReadableStreamLocked(stream) is true and !
    //    ReadableStreamGetNumReadRequests(stream) > 0, perform !
    //    ReadableStreamFulfillReadRequest(stream, chunk, false).
    if is_readable_stream_locked(rt, s) && readable_stream_get_num_read_requests(rt, s) > 0 {
        readable_stream_fulfill_read_request(rt, s, chunk, false);
    } else {
        // 4. Otherwise,
        //    1. Let result be the result of performing
        //       controller.[[strategySizeAlgorithm]], passing in chunk, and
        //       interpreting the result as a completion record.
        let size_algorithm = controller(rt, c)
            .strategy_size_algorithm
            .expect("the size algorithm of a stream that can enqueue");
        // (The controller and the chunk are rooted while the size
        // function runs: the steps below use them.)
        let result = rooted(rt, &[Value::Object(c), chunk.clone()], |rt| {
            crate::writable::perform_size_algorithm(rt, size_algorithm, chunk.clone())
        });
        //    2. If result is an abrupt completion,
        //       1. Perform ! ReadableStreamDefaultControllerError(controller,
        //          result.[[Value]]).
        //       2. Return result.
        //    3. Let chunkSize be result.[[Value]].
        let chunk_size = match result {
            Ok(size) => size,
            Err(e) => {
                readable_stream_default_controller_error(rt, c, e.clone());
                return Err(e);
            }
        };
        //    4. Let enqueueResult be EnqueueValueWithSize(controller, chunk,
        //       chunkSize).
        //    5. If enqueueResult is an abrupt completion,
        //       1. Perform ! ReadableStreamDefaultControllerError(controller,
        //          enqueueResult.[[Value]]).
        //       2. Return enqueueResult.
        if let Err(e) = enqueue_value_with_size(rt, c, chunk, chunk_size) {
            readable_stream_default_controller_error(rt, c, e.clone());
            return Err(e);
        }
    }
    // 5. Perform ! ReadableStreamDefaultControllerCallPullIfNeeded(controller).
    readable_stream_default_controller_call_pull_if_needed(rt, c);
    Ok(())
}

/// ReadableStreamDefaultControllerError(controller, e)
/// (<https://streams.spec.whatwg.org/#readable-stream-default-controller-error>).
pub(crate) fn readable_stream_default_controller_error(rt: &mut Rt, c: ObjectId, e: Value) {
    // 1. Let stream be controller.[[stream]].
    let s = controller(rt, c).stream;
    // 2. If stream.[[state]] is not "readable", return.
    if stream(rt, s).state != ReadableStreamState::Readable {
        return;
    }
    // 3. Perform ! ResetQueue(controller).
    reset_queue(rt, c);
    // 4. Perform ! ReadableStreamDefaultControllerClearAlgorithms(controller).
    readable_stream_default_controller_clear_algorithms(rt, c);
    // 5. Perform ! ReadableStreamError(stream, e).
    readable_stream_error(rt, s, e);
}

/// ReadableStreamDefaultControllerGetDesiredSize(controller)
/// (<https://streams.spec.whatwg.org/#readable-stream-default-controller-get-desired-size>):
/// `None` is null.
pub(crate) fn readable_stream_default_controller_get_desired_size(
    rt: &Rt,
    c: ObjectId,
) -> Option<f64> {
    let controller = controller(rt, c);
    // 1. Let state be controller.[[stream]].[[state]].
    match stream(rt, controller.stream).state {
        // 2. If state is "errored", return null.
        ReadableStreamState::Errored => None,
        // 3. If state is "closed", return 0.
        ReadableStreamState::Closed => Some(0.0),
        // 4. Return controller.[[strategyHWM]] − controller.[[queueTotalSize]].
        ReadableStreamState::Readable => {
            Some(controller.strategy_hwm - controller.queue_total_size)
        }
    }
}

/// ReadableStreamDefaultControllerCanCloseOrEnqueue(controller)
/// (<https://streams.spec.whatwg.org/#readable-stream-default-controller-can-close-or-enqueue>).
pub(crate) fn readable_stream_default_controller_can_close_or_enqueue(
    rt: &Rt,
    c: ObjectId,
) -> bool {
    let controller = controller(rt, c);
    // 1. Let state be controller.[[stream]].[[state]].
    let state = stream(rt, controller.stream).state;
    // 2. If controller.[[closeRequested]] is false and state is "readable",
    //    return true.
    // 3. Otherwise, return false.
    !controller.close_requested && state == ReadableStreamState::Readable
}

/// SetUpReadableStreamDefaultController(stream, controller, startAlgorithm,
/// pullAlgorithm, cancelAlgorithm, highWaterMark, sizeAlgorithm)
/// (<https://streams.spec.whatwg.org/#set-up-readable-stream-default-controller>),
/// with the start algorithm of SetUpReadableStreamDefaultControllerFromUnderlyingSource:
/// the source's `start`, if any.
#[allow(clippy::too_many_arguments)] // the spec's parameters, one for one
pub(crate) fn set_up_readable_stream_default_controller(
    rt: &mut Rt,
    s: ObjectId,
    c: ObjectId,
    underlying_source: Value,
    start_algorithm: StartAlgorithm,
    pull_algorithm: PullAlgorithm,
    cancel_algorithm: CancelAlgorithm,
    high_water_mark: f64,
    size_algorithm: SizeAlgorithm,
) -> Result<(), Value> {
    // 1. Assert: stream.[[controller]] is undefined.
    assert!(stream(rt, s).controller.is_none());
    rt.lib.streams.controllers.insert(
        c,
        ReadableStreamDefaultController {
            // 7. Set controller.[[cancelAlgorithm]] to cancelAlgorithm.
            cancel_algorithm: Some(cancel_algorithm),
            // 4. Set controller.[[started]], controller.[[closeRequested]],
            //    controller.[[pullAgain]], and controller.[[pulling]] to false.
            close_requested: false,
            pull_again: false,
            // 6. Set controller.[[pullAlgorithm]] to pullAlgorithm.
            pull_algorithm: Some(pull_algorithm),
            pulling: false,
            // 3. Perform ! ResetQueue(controller).
            queue: VecDeque::new(),
            queue_total_size: 0.0,
            started: false,
            // 5. Set controller.[[strategySizeAlgorithm]] to sizeAlgorithm and
            //    controller.[[strategyHWM]] to highWaterMark.
            strategy_hwm: high_water_mark,
            strategy_size_algorithm: Some(size_algorithm),
            // 2. Set controller.[[stream]] to stream.
            stream: s,
            underlying_source: underlying_source.clone(),
        },
    );
    // 8. Set stream.[[controller]] to controller.
    stream_mut(rt, s).controller = Some(c);
    // 9. Let startResult be the result of performing startAlgorithm. (This
    //    might throw an exception.)
    // (SetUpReadableStreamDefaultControllerFromUnderlyingSource: "an algorithm
    // that returns undefined", or "the result of invoking
    // underlyingSourceDict["start"] with argument list « controller » and
    // callback this value underlyingSource".)
    let start_result = match start_algorithm {
        StartAlgorithm::ReturnUndefined => Value::Undefined,
        // (The stream and the controller, which the script has not seen
        // yet, are rooted for the call, as the constructor's frame holds
        // them.)
        StartAlgorithm::Invoke(start) => call_rooted(
            rt,
            start,
            underlying_source,
            &[Value::Object(c)],
            &[Value::Object(s)],
        )?,
        StartAlgorithm::ReturnPromise(p) => Value::Object(p),
    };
    // 10. Let startPromise be a promise resolved with startResult.
    let start_promise = a_promise_resolved_with(rt, start_result);
    upon_settlement(
        rt,
        start_promise,
        &[Value::Object(c)],
        // 11. Upon fulfillment of startPromise,
        move |rt, _| {
            //   1. Set controller.[[started]] to true.
            controller_mut(rt, c).started = true;
            //   2. Assert: controller.[[pulling]] is false.
            assert!(!controller(rt, c).pulling);
            //   3. Assert: controller.[[pullAgain]] is false.
            assert!(!controller(rt, c).pull_again);
            //   4. Perform ! ReadableStreamDefaultControllerCallPullIfNeeded(controller).
            readable_stream_default_controller_call_pull_if_needed(rt, c);
        },
        // 12. Upon rejection of startPromise with reason r,
        move |rt, r| {
            //   1. Perform ! ReadableStreamDefaultControllerError(controller, r).
            error_in_a_reaction(rt, c, r);
        },
    );
    Ok(())
}

/// SetUpReadableStreamDefaultControllerFromUnderlyingSource(stream,
/// underlyingSource, underlyingSourceDict, highWaterMark, sizeAlgorithm)
/// (<https://streams.spec.whatwg.org/#set-up-readable-stream-default-controller-from-underlying-source>).
fn set_up_readable_stream_default_controller_from_underlying_source(
    rt: &mut Rt,
    s: ObjectId,
    source: UnderlyingSource,
    high_water_mark: f64,
    size_algorithm: SizeAlgorithm,
) -> Result<(), Value> {
    // 1. Let controller be a new ReadableStreamDefaultController.
    let c = rt.heap.alloc(ObjectData::Host);
    // 2. Let startAlgorithm be an algorithm that returns undefined.
    // 5. If underlyingSourceDict["start"] exists, then set startAlgorithm to an
    //    algorithm which returns the result of invoking
    //    underlyingSourceDict["start"] with argument list « controller » and
    //    callback this value underlyingSource.
    let start_algorithm = match source.start {
        Some(start) => StartAlgorithm::Invoke(start),
        None => StartAlgorithm::ReturnUndefined,
    };
    // 3. Let pullAlgorithm be an algorithm that returns a promise resolved with
    //    undefined.
    // 6. If underlyingSourceDict["pull"] exists, then set pullAlgorithm to an
    //    algorithm which returns the result of invoking
    //    underlyingSourceDict["pull"] with argument list « controller » and
    //    callback this value underlyingSource.
    let pull_algorithm = match source.pull {
        Some(method) => PullAlgorithm::Invoke { method },
        None => PullAlgorithm::ResolveUndefined,
    };
    // 4. Let cancelAlgorithm be an algorithm that returns a promise resolved
    //    with undefined.
    // 7. If underlyingSourceDict["cancel"] exists, then set cancelAlgorithm to
    //    an algorithm which takes an argument reason and returns the result of
    //    invoking underlyingSourceDict["cancel"] with argument list « reason »
    //    and callback this value underlyingSource.
    let cancel_algorithm = match source.cancel {
        Some(method) => CancelAlgorithm::Invoke { method },
        None => CancelAlgorithm::ResolveUndefined,
    };
    // 8. Perform ? SetUpReadableStreamDefaultController(stream, controller,
    //    startAlgorithm, pullAlgorithm, cancelAlgorithm, highWaterMark,
    //    sizeAlgorithm).
    set_up_readable_stream_default_controller(
        rt,
        s,
        c,
        source.object,
        start_algorithm,
        pull_algorithm,
        cancel_algorithm,
        high_water_mark,
        size_algorithm,
    )
}

/// Performing a controller's [[pullAlgorithm]]: invoking the source's `pull`
/// with « controller », its return type Promise<undefined>, a tee's
/// pullAlgorithm, or ReadableStreamFromIterable's (`None` when it parks
/// its result, see [`crate::iterate`]).
fn perform_pull_algorithm(rt: &mut Rt, c: ObjectId, algorithm: PullAlgorithm) -> Option<ObjectId> {
    Some(match algorithm {
        PullAlgorithm::ResolveUndefined => a_promise_resolved_with(rt, Value::Undefined),
        PullAlgorithm::Tee { tee } => tee_pull_algorithm(rt, tee),
        PullAlgorithm::FromIterable { from } => {
            return crate::iterate::from_pull_algorithm(rt, from)
        }
        PullAlgorithm::Transform { stream } => crate::transform::source_pull_algorithm(rt, stream),
        PullAlgorithm::Invoke { method } => {
            let this = controller(rt, c).underlying_source.clone();
            match call_rooted(rt, method, this, &[Value::Object(c)], &[]) {
                // An exception becomes a promise rejected with it (Web IDL
                // "invoke a callback function" with a promise return type).
                Err(e) => a_promise_rejected_with(rt, e),
                // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3073-L3075
                // and https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L368-L377
                // (`createRawCallback1Param`, then `thenAlgorithmResult`'s
                // `PromiseResolve(result)`): Web IDL converts the returned
                // value to a new promise resolved with it
                // (NewPromiseCapability, then its resolve function: a
                // returned promise is adopted two microtasks later); Node
                // takes a returned promise as it is, so the pull's
                // settlement is seen two microtasks sooner.
                Ok(value) => rt.promise_resolve(value),
            }
        }
    })
}

/// Performing a controller's [[cancelAlgorithm]], passing reason: invoking
/// the source's `cancel` with « reason », its return type Promise<undefined>,
/// or a tee's cancel1Algorithm or cancel2Algorithm.
fn perform_cancel_algorithm(
    rt: &mut Rt,
    c: ObjectId,
    algorithm: CancelAlgorithm,
    reason: Value,
) -> Result<ObjectId, Value> {
    Ok(match algorithm {
        CancelAlgorithm::ResolveUndefined => a_promise_resolved_with(rt, Value::Undefined),
        CancelAlgorithm::Tee1 { tee } => tee_cancel1_algorithm(rt, tee, reason)?,
        CancelAlgorithm::Tee2 { tee } => tee_cancel2_algorithm(rt, tee, reason)?,
        CancelAlgorithm::FromIterable { from } => {
            crate::iterate::from_cancel_algorithm(rt, from, reason)
        }
        CancelAlgorithm::Transform { stream } => {
            crate::transform::source_cancel_algorithm(rt, stream, reason)?
        }
        CancelAlgorithm::Invoke { method } => {
            let this = controller(rt, c).underlying_source.clone();
            match call_rooted(rt, method, this, &[reason], &[Value::Object(c)]) {
                // An exception becomes a promise rejected with it.
                Err(e) => a_promise_rejected_with(rt, e),
                // The value converted to Promise<undefined> (Web IDL: a new
                // promise resolved with it, so a returned promise is adopted
                // two microtasks later, as Node's async wrapper does).
                Ok(value) => a_promise_resolved_with(rt, value),
            }
        }
    })
}

// ---- queue-with-sizes -----------------------------------------------------

/// DequeueValue(container)
/// (<https://streams.spec.whatwg.org/#dequeue-value>).
pub(crate) fn dequeue_value(rt: &mut Rt, c: ObjectId) -> Value {
    let container = controller_mut(rt, c);
    // 1. Assert: container has [[queue]] and [[queueTotalSize]] internal slots.
    // 2. Assert: container.[[queue]] is not empty.
    assert!(!container.queue.is_empty());
    // 3. Let valueWithSize be container.[[queue]][0].
    // 4. Remove valueWithSize from container.[[queue]].
    let value_with_size = container.queue.pop_front().expect("a queued value");
    // 5. Set container.[[queueTotalSize]] to container.[[queueTotalSize]] −
    //    valueWithSize's size.
    container.queue_total_size -= value_with_size.size;
    // 6. If container.[[queueTotalSize]] < 0, set container.[[queueTotalSize]]
    //    to 0. (This can occur due to rounding errors.)
    if container.queue_total_size < 0.0 {
        container.queue_total_size = 0.0;
    }
    // 7. Return valueWithSize's value.
    value_with_size.value
}

/// EnqueueValueWithSize(container, value, size)
/// (<https://streams.spec.whatwg.org/#enqueue-value-with-size>).
fn enqueue_value_with_size(
    rt: &mut Rt,
    c: ObjectId,
    value: Value,
    size: Value,
) -> Result<(), Value> {
    // 1. Assert: container has [[queue]] and [[queueTotalSize]] internal slots.
    // 2. If ! IsNonNegativeNumber(size) is false, throw a RangeError exception.
    // 3. If size is +∞, throw a RangeError exception.
    let size = crate::writable::check_chunk_size(rt, &size)?;
    let container = controller_mut(rt, c);
    // 4. Append a new value-with-size with value value and size size to
    //    container.[[queue]].
    container.queue.push_back(ValueWithSize { value, size });
    // 5. Set container.[[queueTotalSize]] to container.[[queueTotalSize]] + size.
    container.queue_total_size += size;
    Ok(())
}

/// ResetQueue(container) (<https://streams.spec.whatwg.org/#reset-queue>).
fn reset_queue(rt: &mut Rt, c: ObjectId) {
    let container = controller_mut(rt, c);
    // 1. Assert: container has [[queue]] and [[queueTotalSize]] internal slots.
    // 2. Set container.[[queue]] to a new empty list.
    container.queue.clear();
    // 3. Set container.[[queueTotalSize]] to 0.
    container.queue_total_size = 0.0;
}

// ---- what the runtime asks ------------------------------------------------

/// A property of a stream object, or `None` when `obj` is none.
pub fn get(rt: &mut Rt, obj: ObjectId, prop: &str) -> Option<Completion> {
    if let Some(value) = crate::byte_streams::get(rt, obj, prop) {
        return Some(value);
    }
    let streams = &rt.lib.streams;
    if streams.streams.contains_key(&obj) {
        return Some(Ok(match prop {
            "locked" => Value::Bool(locked(rt, obj)),
            _ => Value::Undefined,
        }));
    }
    if streams.controllers.contains_key(&obj) {
        return Some(Ok(match prop {
            "desiredSize" => desired_size(rt, obj),
            _ => Value::Undefined,
        }));
    }
    if streams.readers.contains_key(&obj) {
        return Some(Ok(match prop {
            "closed" => Value::Object(closed(rt, obj)),
            _ => Value::Undefined,
        }));
    }
    None
}

/// What a stream object is, or `None` when `obj` is none.
pub fn host_class(rt: &Rt, obj: ObjectId) -> Option<HostClass> {
    let streams = &rt.lib.streams;
    if streams.streams.contains_key(&obj) {
        Some(HostClass::ReadableStream)
    } else if streams.controllers.contains_key(&obj) {
        Some(HostClass::ReadableStreamDefaultController)
    } else if streams.readers.contains_key(&obj) {
        Some(HostClass::ReadableStreamDefaultReader)
    } else {
        crate::byte_streams::host_class(rt, obj)
    }
}

/// `stream.tee()` (<https://streams.spec.whatwg.org/#rs-tee>): an array of
/// the two branches.
pub fn tee(rt: &mut Rt, s: Value) -> Completion {
    let s = stream_operand(rt, s, "tee")?;
    // 1. Return ? ReadableStreamTee(this, false).
    let [branch1, branch2] = readable_stream_tee(rt, s, false)?;
    // (The sequence<ReadableStream> converted to a JavaScript array.)
    Ok(rt.create_array_from_list(vec![Value::Object(branch1), Value::Object(branch2)]))
}

// ---- tee --------------------------------------------------------------------

/// CreateReadableStream(startAlgorithm, pullAlgorithm, cancelAlgorithm[,
/// highWaterMark]) (<https://streams.spec.whatwg.org/#create-readable-stream>),
/// without sizeAlgorithm and with a startAlgorithm that returns undefined
/// (what the tee and ReadableStreamFromIterable pass); `high_water_mark` is
/// `None` when not passed.
pub(crate) fn create_readable_stream(
    rt: &mut Rt,
    pull_algorithm: PullAlgorithm,
    cancel_algorithm: CancelAlgorithm,
    high_water_mark: Option<f64>,
) -> ObjectId {
    // 1. If highWaterMark was not passed, set it to 1.
    let high_water_mark = high_water_mark.unwrap_or(1.0);
    // 2. If sizeAlgorithm was not passed, set it to an algorithm that returns 1.
    let size_algorithm = SizeAlgorithm::ReturnOne;
    // 3. Assert: ! IsNonNegativeNumber(highWaterMark) is true.
    // 4. Let stream be a new ReadableStream.
    let s = rt.heap.alloc(ObjectData::Host);
    // 5. Perform ! InitializeReadableStream(stream).
    initialize_readable_stream(rt, s);
    // 6. Let controller be a new ReadableStreamDefaultController.
    let c = rt.heap.alloc(ObjectData::Host);
    // 7. Perform ? SetUpReadableStreamDefaultController(stream, controller,
    //    startAlgorithm, pullAlgorithm, cancelAlgorithm, highWaterMark,
    //    sizeAlgorithm).
    set_up_readable_stream_default_controller(
        rt,
        s,
        c,
        Value::Undefined,
        StartAlgorithm::ReturnUndefined,
        pull_algorithm,
        cancel_algorithm,
        high_water_mark,
        size_algorithm,
    )
    .expect("a start algorithm that returns undefined does not throw");
    // 8. Return stream.
    s
}

/// ReadableStreamTee(stream, cloneForBranch2)
/// (<https://streams.spec.whatwg.org/#readable-stream-tee>).
fn readable_stream_tee(
    rt: &mut Rt,
    s: ObjectId,
    clone_for_branch2: bool,
) -> Result<[ObjectId; 2], Value> {
    // 1. Assert: stream implements ReadableStream.
    assert!(rt.lib.streams.streams.contains_key(&s));
    // 2. Assert: cloneForBranch2 is a boolean.
    // 3. If stream.[[controller]] implements ReadableByteStreamController,
    //    return ? ReadableByteStreamTee(stream).
    if is_byte_controller(rt, stream_controller(rt, s)) {
        return crate::byte_streams::readable_byte_stream_tee(rt, s);
    }
    // 4. Return ? ReadableStreamDefaultTee(stream, cloneForBranch2).
    readable_stream_default_tee(rt, s, clone_for_branch2)
}

/// ReadableStreamDefaultTee(stream, cloneForBranch2)
/// (<https://streams.spec.whatwg.org/#abstract-opdef-readablestreamdefaulttee>):
/// the variables are a [`DefaultTee`]'s; pullAlgorithm, cancel1Algorithm and
/// cancel2Algorithm are [`tee_pull_algorithm`], [`tee_cancel1_algorithm`]
/// and [`tee_cancel2_algorithm`], and the read request's steps
/// [`tee_chunk_steps`], [`tee_close_steps`] and [`tee_error_steps`].
fn readable_stream_default_tee(
    rt: &mut Rt,
    s: ObjectId,
    clone_for_branch2: bool,
) -> Result<[ObjectId; 2], Value> {
    // 1. Assert: stream implements ReadableStream.
    assert!(rt.lib.streams.streams.contains_key(&s));
    // 2. Assert: cloneForBranch2 is a boolean.
    // MODEL: and false: `tee()` passes false, and StructuredClone is not
    // modeled.
    assert!(!clone_for_branch2, "a tee without cloning");
    // 3. Let reader be ? AcquireReadableStreamDefaultReader(stream).
    let r = acquire_readable_stream_default_reader(rt, s)?;
    // 12. Let cancelPromise be a new promise (with its capability's
    //     [[Resolve]], which "resolve cancelPromise" calls).
    let cancel_promise = a_new_promise(rt);
    let (cancel_promise_resolve, _) = rt.create_resolving_functions(cancel_promise);
    let t = TeeId(new_record_object(rt));
    rt.lib.streams.tees.insert(
        t.0,
        DefaultTee {
            stream: s,
            reader: r,
            // 4. Let reading be false.
            reading: false,
            // 5. Let readAgain be false.
            read_again: false,
            // 6. Let canceled1 be false.
            canceled1: false,
            // 7. Let canceled2 be false.
            canceled2: false,
            // 8. Let reason1 be undefined.
            reason1: Value::Undefined,
            // 9. Let reason2 be undefined.
            reason2: Value::Undefined,
            // 10. Let branch1 be undefined.
            branch1: None,
            // 11. Let branch2 be undefined.
            branch2: None,
            cancel_promise,
            cancel_promise_resolve,
        },
    );
    // 13. Let pullAlgorithm be the following steps: (tee_pull_algorithm)
    // 14. Let cancel1Algorithm be the following steps, taking a reason
    //     argument: (tee_cancel1_algorithm)
    // 15. Let cancel2Algorithm be the following steps, taking a reason
    //     argument: (tee_cancel2_algorithm)
    // 16. Let startAlgorithm be an algorithm that returns undefined.
    // 17. Set branch1 to ! CreateReadableStream(startAlgorithm,
    //     pullAlgorithm, cancel1Algorithm).
    let branch1 = create_readable_stream(
        rt,
        PullAlgorithm::Tee { tee: t },
        CancelAlgorithm::Tee1 { tee: t },
        None,
    );
    tee_state_mut(rt, t).branch1 = Some(branch1);
    // 18. Set branch2 to ! CreateReadableStream(startAlgorithm,
    //     pullAlgorithm, cancel2Algorithm).
    let branch2 = create_readable_stream(
        rt,
        PullAlgorithm::Tee { tee: t },
        CancelAlgorithm::Tee2 { tee: t },
        None,
    );
    tee_state_mut(rt, t).branch2 = Some(branch2);
    // 19. Upon rejection of reader.[[closedPromise]] with reason r,
    let closed = reader(rt, r).closed_promise;
    upon_settlement(
        rt,
        closed,
        &[Value::Object(t.0)],
        |_, _| {},
        move |rt, r| {
            let (branch1, branch2) = tee_branches(rt, t);
            //   1. Perform ! ReadableStreamDefaultControllerError(
            //      branch1.[[controller]], r).
            let c1 = stream_controller(rt, branch1);
            readable_stream_default_controller_error(rt, c1, r.clone());
            //   2. Perform ! ReadableStreamDefaultControllerError(
            //      branch2.[[controller]], r).
            let c2 = stream_controller(rt, branch2);
            readable_stream_default_controller_error(rt, c2, r);
            //   3. If canceled1 is false or canceled2 is false, resolve
            //      cancelPromise with undefined.
            let tee = tee_state(rt, t);
            if !tee.canceled1 || !tee.canceled2 {
                resolve_cancel_promise(rt, t, Value::Undefined);
            }
        },
    );
    // 20. Return « branch1, branch2 ».
    Ok([branch1, branch2])
}

/// A tee's branch1 and branch2, once both are created.
fn tee_branches(rt: &Rt, t: TeeId) -> (ObjectId, ObjectId) {
    let tee = tee_state(rt, t);
    (
        tee.branch1.expect("the tee's branch1"),
        tee.branch2.expect("the tee's branch2"),
    )
}

/// "Resolve cancelPromise with x": through the promise's resolve function,
/// so that once it is resolved, resolving it again does nothing (a branch
/// whose close was requested can still be canceled after the close steps
/// resolved cancelPromise).
fn resolve_cancel_promise(rt: &mut Rt, t: TeeId, x: Value) {
    let resolve = tee_state(rt, t).cancel_promise_resolve;
    // A promise's resolve function returns undefined and throws nothing.
    let _ = rt.call_function(resolve, Value::Undefined, &[x]);
}

/// ReadableStreamDefaultTee's pullAlgorithm (step 13).
fn tee_pull_algorithm(rt: &mut Rt, t: TeeId) -> ObjectId {
    // 1. If reading is true,
    if tee_state(rt, t).reading {
        //   1. Set readAgain to true.
        tee_state_mut(rt, t).read_again = true;
        //   2. Return a promise resolved with undefined.
        return a_promise_resolved_with(rt, Value::Undefined);
    }
    // 2. Set reading to true.
    tee_state_mut(rt, t).reading = true;
    // 3. Let readRequest be a read request with the following items: (the
    //    chunk steps, close steps and error steps of ReadRequest::Tee)
    let read_request = ReadRequest::Tee { tee: t };
    // 4. Perform ! ReadableStreamDefaultReaderRead(reader, readRequest).
    let r = tee_state(rt, t).reader;
    readable_stream_default_reader_read(rt, r, read_request);
    // 5. Return a promise resolved with undefined.
    a_promise_resolved_with(rt, Value::Undefined)
}

/// The chunk steps, given chunk, of the tee's read request.
fn tee_chunk_steps(rt: &mut Rt, t: TeeId, chunk: Value) {
    // 1. Queue a microtask to perform the following steps:
    let captures = Captures::values(vec![Value::Object(t.0), chunk.clone()]);
    let task = move |rt: &mut Rt| {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1984-L2001
        // `forwardChunk()` sets `reading = false` first, before the
        // enqueues, and Node has no readAgain (`pullAlgorithm` returns at
        // once while reading, L2008): a pull that the enqueue into branch1
        // asks for reads from the stream at once, before branch2 gets the
        // chunk, where the spec's pull only sets readAgain and step 7 reads
        // after both enqueues. Step 6 is done here, first; step 7 then finds
        // readAgain true only while a read is again in flight (a no-op) or
        // after that read failed at once on an errored stream (a read that
        // fails the same way): it changes nothing.
        //   6. Set reading to false.
        tee_state_mut(rt, t).reading = false;
        //   1. Set readAgain to false.
        tee_state_mut(rt, t).read_again = false;
        //   2. Let chunk1 and chunk2 be chunk.
        let (chunk1, chunk2) = (chunk.clone(), chunk);
        //   3. If canceled2 is false and cloneForBranch2 is true, ...
        //      (cloneForBranch2 is false)
        let (branch1, branch2) = tee_branches(rt, t);
        //   4. If canceled1 is false, perform !
        //      ReadableStreamDefaultControllerEnqueue(branch1.[[controller]],
        //      chunk1).
        if !tee_state(rt, t).canceled1 {
            let c1 = stream_controller(rt, branch1);
            readable_stream_default_controller_enqueue(rt, c1, chunk1)
                .expect("a chunk of size 1 is enqueued");
        }
        //   5. If canceled2 is false, perform !
        //      ReadableStreamDefaultControllerEnqueue(branch2.[[controller]],
        //      chunk2).
        if !tee_state(rt, t).canceled2 {
            let c2 = stream_controller(rt, branch2);
            readable_stream_default_controller_enqueue(rt, c2, chunk2)
                .expect("a chunk of size 1 is enqueued");
        }
        //   7. If readAgain is true, perform pullAlgorithm.
        if tee_state(rt, t).read_again {
            tee_pull_algorithm(rt, t);
        }
        Ok(Value::Undefined)
    };
    rt.enqueue_microtask(Job::Task(Task::Captured(Box::new(task), captures)));
    // (The microtask delay here is necessary because it takes at least a
    // microtask to detect errors, when we use reader.[[closedPromise]]
    // below. We want errors in stream to error both branches immediately,
    // so we cannot let a successful synchronous read happen before the
    // error is seen.)
}

/// The close steps of the tee's read request.
fn tee_close_steps(rt: &mut Rt, t: TeeId) {
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2017-L2029
    // the close steps run in a `process.nextTick()` callback ("not part of
    // the spec", for nodejs/node#39758): the branches close after the
    // ticks already queued and, when the stream closed in a microtask,
    // after every microtask. Until then reading stays true, and canceled1
    // and canceled2 are read when the tick runs.
    let task = move |rt: &mut Rt| {
        let (branch1, branch2) = tee_branches(rt, t);
        // 1. Set reading to false.
        tee_state_mut(rt, t).reading = false;
        // 2. If canceled1 is false, perform !
        //    ReadableStreamDefaultControllerClose(branch1.[[controller]]).
        if !tee_state(rt, t).canceled1 {
            let c1 = stream_controller(rt, branch1);
            readable_stream_default_controller_close(rt, c1);
        }
        // 3. If canceled2 is false, perform !
        //    ReadableStreamDefaultControllerClose(branch2.[[controller]]).
        if !tee_state(rt, t).canceled2 {
            let c2 = stream_controller(rt, branch2);
            readable_stream_default_controller_close(rt, c2);
        }
        // 4. If canceled1 is false or canceled2 is false, resolve
        //    cancelPromise with undefined.
        let tee = tee_state(rt, t);
        if !tee.canceled1 || !tee.canceled2 {
            resolve_cancel_promise(rt, t, Value::Undefined);
        }
        Ok(Value::Undefined)
    };
    let captures = Captures::objects(&[t.0]);
    rt.next_tick(Task::Captured(Box::new(task), captures));
}

/// The error steps of the tee's read request.
fn tee_error_steps(rt: &mut Rt, t: TeeId) {
    // 1. Set reading to false.
    tee_state_mut(rt, t).reading = false;
}

/// ReadableStreamDefaultTee's cancel1Algorithm (step 14), taking a reason
/// argument.
fn tee_cancel1_algorithm(rt: &mut Rt, t: TeeId, reason: Value) -> Result<ObjectId, Value> {
    // 1. Set canceled1 to true.
    tee_state_mut(rt, t).canceled1 = true;
    // 2. Set reason1 to reason.
    tee_state_mut(rt, t).reason1 = reason;
    // 3. If canceled2 is true,
    if tee_state(rt, t).canceled2 {
        tee_cancel_stream(rt, t)?;
    }
    // 4. Return cancelPromise.
    Ok(tee_state(rt, t).cancel_promise)
}

/// ReadableStreamDefaultTee's cancel2Algorithm (step 15), taking a reason
/// argument.
fn tee_cancel2_algorithm(rt: &mut Rt, t: TeeId, reason: Value) -> Result<ObjectId, Value> {
    // 1. Set canceled2 to true.
    tee_state_mut(rt, t).canceled2 = true;
    // 2. Set reason2 to reason.
    tee_state_mut(rt, t).reason2 = reason;
    // 3. If canceled1 is true,
    if tee_state(rt, t).canceled1 {
        tee_cancel_stream(rt, t)?;
    }
    // 4. Return cancelPromise.
    Ok(tee_state(rt, t).cancel_promise)
}

/// Step 3's substeps of cancel1Algorithm and cancel2Algorithm, once both
/// branches are canceled.
///
/// NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2037-L2056
/// a throw of ReadableStreamCancel (a terminated transform's readable)
/// leaves the cancel algorithm before cancelPromise is resolved, and out of
/// the branch's cancel.
fn tee_cancel_stream(rt: &mut Rt, t: TeeId) -> Result<(), Value> {
    let tee = tee_state(rt, t);
    let (s, reason1, reason2) = (tee.stream, tee.reason1.clone(), tee.reason2.clone());
    //   1. Let compositeReason be ! CreateArrayFromList(« reason1, reason2 »).
    let composite_reason = rt.create_array_from_list(vec![reason1, reason2]);
    //   2. Let cancelResult be ! ReadableStreamCancel(stream, compositeReason).
    let cancel_result = readable_stream_cancel(rt, s, composite_reason)?;
    //   3. Resolve cancelPromise with cancelResult.
    resolve_cancel_promise(rt, t, Value::Object(cancel_result));
    Ok(())
}
