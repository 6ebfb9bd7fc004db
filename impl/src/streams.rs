//! ReadableStream, its default controller and reader, built the way Node's
//! lib/internal/webstreams/readablestream.js builds them, with the
//! optimizations of seeds/webstreams-idle-start-and-watchers.txt.
//!
//! NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L247>
//! (the ReadableStream class; the rest of the file and `util.js` next to it). The layout follows
//! Node's, not the Streams Standard's: a state record per stream (`kState`: `state`, `reader`,
//! `storedError`, `disturbed`, `controller`), one per controller (the queue, `queueTotalSize`,
//! `started`, `pulling`, `pullAgain`, `closeRequested`, the algorithms) and one per reader (its
//! read requests and its lazily made `closed` promise record). Node's own fast paths are kept and
//! commented with the lines they mirror, because each one decides how many microtasks a step takes:
//!
//! - `read()` with a chunk in the queue returns `PromiseResolve({ done,
//!   value })` instead of parking a read request;
//! - a source without `pull()` never enters the pulling bookkeeping;
//! - the pull reactions are made once per controller and reused;
//! - a non-object result of `pull()` is chained to one shared resolved
//!   promise (`kResolvedPromise`) instead of a fresh one;
//! - `start()`'s result goes through `new Promise((r) => r(result))`, which
//!   costs two more microtasks for a promise than `PromiseResolve` would;
//! - the reader's `closed` promise is made on its first observation;
//! - the released and releasing errors are one shared object each.
//!
//! The seed's first item, "No post-start microtask for sources without
//! pull()", is in [`setup_default_controller`]. `tee()` ([`tee`]) mirrors two
//! more: "The tee's cancel promise is materialized by the first branch cancel
//! only" ([`cancel_promise_record`]) and, for the reader only the tee holds,
//! "Closed watchers as records instead of promises" ([`watch_reader_errored`]).
//!
//! A strategy's `size` is Node's: the default size algorithm is never called (every chunk
//! counts 1), a script's is called with `this` undefined and its result validated by
//! `enqueueValueWithSize` ([`enqueue_value_with_size`]). The transform stream's readable side
//! ([`Algorithm::Transform`]) and the pipe's read request ([`ReadRequest::Pipe`]) and closed
//! watcher ([`Closed::PipeHook`]) are the other modules' hooks into these records.
//!
//! Byte streams (a stream whose `kState.controller` is a
//! ReadableByteStreamController, BYOB readers and requests, the byte tee)
//! are in the child module [`byte_streams`], which shares these records.

use std::collections::VecDeque;

use nodesem_runtime::{
    Captures, Completion, HostClass, Job, ObjectData, ObjectId, PromiseState, QueuingStrategy,
    Runtime, Task, UnderlyingSource, Value,
};

use crate::{alloc_host, Impl, Mutant, Slot};

#[path = "byte_streams.rs"]
pub(crate) mod byte_streams;

use byte_streams::{ByobRequestData, ByteControllerData, ByteTeeData, ReadIntoRequest};

type Rt = Runtime<Impl>;

/// `kState.state` of a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StreamState {
    /// `'readable'`.
    Readable,
    /// `'closed'`.
    Closed,
    /// `'errored'`.
    Errored,
}

/// A stream's `kState` record.
#[derive(Debug)]
pub(crate) struct StreamData {
    /// The stream object.
    pub(crate) obj: ObjectId,
    /// `state`.
    pub(crate) state: StreamState,
    /// `reader`: the index of the reader holding the lock.
    pub(crate) reader: Option<u32>,
    /// `storedError`.
    stored_error: Value,
    /// `disturbed`. Nothing the language can do reads it (Node's
    /// `isDisturbed` is internal); kept because Node keeps it.
    pub(crate) disturbed: bool,
    /// `controller`: its default or byte controller.
    pub(crate) controller: ControllerRef,
}

/// A stream's `kState.controller`: Node's `isReadableStreamDefaultController` /
/// `isReadableByteStreamController` decide which, here the variant does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ControllerRef {
    /// A ReadableStreamDefaultController (an index into `controllers`).
    Default(u32),
    /// A ReadableByteStreamController (an index into `byte_controllers`).
    Byte(u32),
}

/// An underlying-source algorithm of a controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Algorithm {
    /// The source has no such method: Node's shared `nonOpCallback` (pull)
    /// or `nonOpCancel` (cancel).
    NonOp,
    /// The source's method.
    Source(ObjectId),
    /// Set to `undefined` by `readableStreamDefaultControllerClearAlgorithms`.
    Cleared,
    /// A branch of a tee (the tee's index, the branch's 0 or 1): the tee's
    /// shared `pullAlgorithm`, or the branch's `cancel1Algorithm` or
    /// `cancel2Algorithm`.
    Tee(u32, u8),
    /// The pull or cancel algorithm of `ReadableStream.from` (the index of
    /// its record in [`crate::iterate`]).
    From(u32),
    /// The readable side of a TransformStream (its index):
    /// `transformStreamDefaultSourcePullAlgorithm` and
    /// `transformStreamDefaultSourceCancelAlgorithm` (`transformstream`).
    Transform(u32),
}

/// A controller's `sizeAlgorithm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Size {
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L77-L79>
    /// the shared `defaultSizeAlgorithm`, never called (it returns 1).
    Default,
    /// The strategy's `size(chunk)`, called with `this` undefined.
    Script(ObjectId),
    /// Set to `undefined` by ClearAlgorithms.
    Cleared,
}

/// A default controller's `kState` record.
#[derive(Debug)]
pub(crate) struct ControllerData {
    /// The controller object.
    obj: ObjectId,
    /// `stream`: its stream's index.
    stream: u32,
    /// The underlying source object, `this` of its methods.
    source: Value,
    /// `pullAlgorithm`.
    pull: Algorithm,
    /// `cancelAlgorithm`.
    cancel: Algorithm,
    /// `closeRequested`.
    pub(crate) close_requested: bool,
    /// `highWaterMark`.
    high_water_mark: f64,
    /// `pullAgain`.
    pull_again: bool,
    /// `pulling`.
    pulling: bool,
    /// `pullFulfilled` and `pullRejected`, made on the first pull.
    pull_reactions: Option<(ObjectId, ObjectId)>,
    /// `queue`.
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L279>
    /// (`kEmptyQueue`): a controller starts with (and is reset to) an empty queue that owns no
    /// storage; an empty `VecDeque` allocates nothing either. The (value, size) pairs of Node's
    /// ring.
    pub(crate) queue: VecDeque<(Value, f64)>,
    /// `sizeAlgorithm`.
    size: Size,
    /// `queueTotalSize`.
    queue_total_size: f64,
    /// `started`.
    started: bool,
}

/// The `{ promise, resolve, reject }` record of a reader's
/// `[[closedPromise]]`, once observed.
#[derive(Clone, Copy, Debug)]
struct ClosedRecord {
    /// `promise`.
    promise: ObjectId,
    /// Whether the record has its resolving functions
    /// (`PromiseWithResolvers()`), or was made settled (`resolve` and
    /// `reject` undefined).
    settleable: bool,
}

/// A reader's `kState.close`.
#[derive(Clone, Copy, Debug)]
enum Closed {
    /// A `{ promise, resolve, reject }` record.
    Record(ClosedRecord),
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1907-L1912>
    /// the `ClosedPromiseHook(onSourceClosed, onSourceErrored)` a pipe (its index) installs on its
    /// reader (`pipe`).
    PipeHook(u32),
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1539-L1560>
    /// `ClosedPromiseHook`, installed by a tee (its index) on the reader only it holds: settling
    /// it runs the tee's watcher a microtask later, where the reaction to the promise would have
    /// run, and makes no promise. The tee has no close watcher, so resolving it does nothing.
    TeeHook(u32),
    /// The same hook installed by a byte tee (its index) on one of the readers it holds (the
    /// reader's index: `forwardReaderError(thisReader)`'s guard ignores a reader swapped out).
    ByteTeeHook(u32, u32),
}

/// A read request parked on a default reader.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ReadRequest {
    /// `DefaultReadRequest` of `reader.read()`: its promise.
    Promise(ObjectId),
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L905-L928>
    /// the `StepsReadRequest` of a tee (its index), whose steps are the tee's read request steps.
    Tee(u32),
    /// The read request of a stream's async iterator (its index in
    /// [`crate::iterate`]): Node's `ReadableStreamAsyncIteratorReadRequest`.
    Iterator(u32),
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1848-L1858>
    /// the pipe's (its index) one reused `StepsReadRequest`.
    Pipe(u32),
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2184-L2210>
    /// the `defaultReadRequest` of a byte tee (its index).
    ByteTee(u32),
}

/// A default reader's `kState` record.
#[derive(Debug)]
pub(crate) struct ReaderData {
    /// The reader object, once a script's `getReader()` made one; the readers only a tee, a
    /// pipe or an async iterator holds have none (whatever holds such a reader in Node holds
    /// its record here, and traces it: [`trace_reader`]).
    pub(crate) obj: Option<ObjectId>,
    /// `stream`: the stream's index while the reader holds its lock.
    pub(crate) stream: Option<u32>,
    /// `readRequests`: each parked read request.
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2775-L2780>:
    /// a reader starts with the shared empty queue, so acquiring one allocates no request storage.
    pub(crate) read_requests: VecDeque<ReadRequest>,
    /// `close`, made by [`reader_closed_promise`] on first observation, or
    /// a tee's hook.
    close: Option<Closed>,
    /// Whether this is a ReadableStreamBYOBReader (Node's `reader[kType]`).
    byob: bool,
    /// `readIntoRequests` of a BYOB reader (always empty for a default one).
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2759-L2773>:
    /// it too starts as the shared empty queue.
    read_into_requests: VecDeque<ReadIntoRequest>,
}

/// The tee's `cancelPromise`.
#[derive(Clone, Copy, Debug)]
enum CancelPromise {
    /// Not made yet; `cancelSettled`: whether it would have been resolved.
    Unmade {
        /// `cancelSettled`.
        settled: bool,
    },
    /// Made by the first branch cancel: the promise, and whether its
    /// resolve function has been called (its [[AlreadyResolved]]).
    Made {
        /// `cancelPromise.promise`.
        promise: ObjectId,
        /// The resolving functions' [[AlreadyResolved]].
        resolved: bool,
    },
}

/// The state `readableStreamDefaultTee`'s closures share.
#[derive(Debug)]
struct TeeData {
    /// The hidden object standing for the closures' shared state ([`Slot::TeeState`]).
    obj: ObjectId,
    /// `stream`: the teed stream's index.
    stream: u32,
    /// `reader`: the index of the reader the tee holds on it.
    reader: u32,
    /// `reading`.
    reading: bool,
    /// `canceled1` and `canceled2`.
    canceled: [bool; 2],
    /// `reason1` and `reason2`.
    reasons: [Value; 2],
    /// `branch1` and `branch2`: their controllers' indices.
    branches: [u32; 2],
    /// `cancelPromise`.
    cancel: CancelPromise,
}

/// The streams' state for one scenario.
#[derive(Debug, Default)]
pub struct Streams {
    /// Every stream's `kState`.
    pub(crate) streams: Vec<StreamData>,
    /// Every default controller's `kState`.
    pub(crate) controllers: Vec<ControllerData>,
    /// Every default reader's `kState`.
    pub(crate) readers: Vec<ReaderData>,
    /// `ReadableStream.from`'s records and the async iterators'.
    pub(crate) iterate: crate::iterate::IterateState,
    /// Every tee's shared state.
    tees: Vec<TeeData>,
    /// Every byte controller's `kState`.
    byte_controllers: Vec<ByteControllerData>,
    /// Every ReadableStreamBYOBRequest's `kState`.
    byob_requests: Vec<ByobRequestData>,
    /// Every byte tee's shared state.
    byte_tees: Vec<ByteTeeData>,
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L352>
    /// `kResolvedPromise`: one resolved promise that chains the pull reaction of a non-object
    /// `pull()` result.
    resolved: Option<ObjectId>,
    /// A `() => {}`: the fulfilment handler that makes `cancel()`'s
    /// promise fulfil with undefined (Node makes a closure per call; one is
    /// as good, nothing can tell them apart).
    noop: Option<ObjectId>,
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L164-L173>
    /// `lazyReadableReleasedError()`: the one `Reader released` error, made on first use.
    released_error: Option<Value>,
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L175-L183>
    /// `lazyReadableReleasingError()`: the one `Releasing reader` error.
    releasing_error: Option<Value>,
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L415-L420>
    /// `kPendingPromise`: the one forever-pending promise every closed-promise hook (a tee's, a
    /// pipe's) and the pipe's ready hook carry, made on first use.
    pending: Option<ObjectId>,
}

impl Streams {
    /// Empties the state for another scenario.
    pub fn clear(&mut self) {
        self.streams.clear();
        self.controllers.clear();
        self.readers.clear();
        self.tees.clear();
        self.iterate.clear();
        self.byte_controllers.clear();
        self.byob_requests.clear();
        self.byte_tees.clear();
        self.resolved = None;
        self.noop = None;
        self.released_error = None;
        self.releasing_error = None;
        self.pending = None;
    }
}

// ---- errors -----------------------------------------------------------

/// `new ERR_INVALID_STATE.TypeError(message)`.
pub(crate) fn invalid_state(rt: &mut Rt, message: &str) -> Value {
    rt.node_error(
        "TypeError",
        "ERR_INVALID_STATE",
        &format!("Invalid state: {message}"),
    )
}

/// `new ERR_INVALID_THIS(type)`.
pub(crate) fn invalid_this(rt: &mut Rt, class: &str) -> Value {
    rt.node_error(
        "TypeError",
        "ERR_INVALID_THIS",
        &format!("Value of \"this\" must be of type {class}"),
    )
}

/// The shared `Reader released` error.
fn released_error(rt: &mut Rt) -> Value {
    if let Some(e) = &rt.lib.streams.released_error {
        return e.clone();
    }
    let e = invalid_state(rt, "Reader released");
    rt.lib.streams.released_error = Some(e.clone());
    e
}

/// The shared `Releasing reader` error.
fn releasing_error(rt: &mut Rt) -> Value {
    if let Some(e) = &rt.lib.streams.releasing_error {
        return e.clone();
    }
    let e = invalid_state(rt, "Releasing reader");
    rt.lib.streams.releasing_error = Some(e.clone());
    e
}

// ---- brand checks -----------------------------------------------------

pub(crate) fn stream_of(rt: &Rt, value: &Value) -> Option<u32> {
    match value.as_object().map(|obj| rt.lib.slot(obj)) {
        Some(Slot::ReadableStream(s)) => Some(s),
        _ => None,
    }
}

fn controller_of(rt: &Rt, value: &Value) -> Option<u32> {
    match value.as_object().map(|obj| rt.lib.slot(obj)) {
        Some(Slot::ReadableController(c)) => Some(c),
        _ => None,
    }
}

fn reader_of(rt: &Rt, value: &Value) -> Option<u32> {
    match value.as_object().map(|obj| rt.lib.slot(obj)) {
        Some(Slot::ReadableReader(r)) => Some(r),
        _ => None,
    }
}

/// What a controller method throws on a value that is not a controller.
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1167-L1215>:
/// the controller's methods have no brand check; reading `kState` of another object gives undefined
/// and the destructuring in `readableStreamDefaultControllerCanCloseOrEnqueue` (or
/// `readableStreamDefaultControllerError`) throws V8's TypeError.
fn not_a_controller(rt: &mut Rt) -> Value {
    rt.new_error(
        "TypeError",
        "Cannot destructure property 'stream' of 'controller[kState]' as it is undefined.",
    )
}

// ---- promises ---------------------------------------------------------

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L422-L430>
/// `setPromiseHandled`. Node attaches a no-op rejection handler; setting [[PromiseIsHandled]] is
/// what that does that anyone can see (the handler's job runs nothing).
pub(crate) fn set_promise_handled(rt: &mut Rt, promise: ObjectId) {
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L422-L424>:
    // `kPendingPromise` is skipped, so no reaction accumulates on it.
    if rt.lib.streams.pending == Some(promise) {
        return;
    }
    if let ObjectData::Promise(data) = rt.heap.get_mut(promise) {
        data.is_handled = true;
    }
}

pub(crate) fn is_pending(rt: &Rt, promise: ObjectId) -> bool {
    matches!(rt.heap.get(promise), ObjectData::Promise(d) if d.state == PromiseState::Pending)
}

/// `PromiseReject(error)`, as a value.
pub(crate) fn rejected(rt: &mut Rt, error: Value) -> Completion {
    Ok(Value::Object(rt.promise_reject_new(error)))
}

/// `kPendingPromise`, the hooks' shared forever-pending promise.
pub(crate) fn pending_promise(rt: &mut Rt) -> ObjectId {
    if let Some(p) = rt.lib.streams.pending {
        return p;
    }
    let p = rt.new_promise();
    rt.lib.streams.pending = Some(p);
    p
}

/// `kResolvedPromise`.
pub(crate) fn resolved_promise(rt: &mut Rt) -> ObjectId {
    if let Some(p) = rt.lib.streams.resolved {
        return p;
    }
    let p = rt.promise_resolve(Value::Undefined);
    rt.lib.streams.resolved = Some(p);
    p
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L368-L377>
/// `thenAlgorithmResult(result, onFulfilled, onRejected)`: a non-object result cannot reject and
/// has no `then` to look up, so the fulfilment reaction goes onto the shared resolved promise, at
/// the microtask position the coerced promise's reaction would have had; anything else goes through
/// `PromiseResolve` (the promise itself for a promise). A throw is `PromiseReject(error)`.
pub(crate) fn then_algorithm_result(
    rt: &mut Rt,
    result: Completion,
    on_fulfilled: ObjectId,
    on_rejected: ObjectId,
) {
    // The derived promise of `PromisePrototypeThen` is never observed, and
    // neither reaction throws: the reactions carry no capability.
    match result {
        Ok(Value::Object(obj)) => {
            let p = rt.promise_resolve(Value::Object(obj));
            rt.perform_promise_then(p, Some(on_fulfilled), Some(on_rejected), None);
        }
        Ok(_) => {
            let p = resolved_promise(rt);
            rt.perform_promise_then(p, Some(on_fulfilled), None, None);
        }
        Err(error) => {
            let p = rt.promise_reject_new(error);
            rt.perform_promise_then(p, Some(on_fulfilled), Some(on_rejected), None);
        }
    }
}

// ---- construction -----------------------------------------------------

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L68-L75>
/// `extractHighWaterMark(value, defaultHWM)`.
pub(crate) fn extract_high_water_mark(
    rt: &mut Rt,
    value: Option<f64>,
    default: f64,
) -> Result<f64, Value> {
    match value {
        None => Ok(default),
        Some(h) if h.is_nan() || h < 0.0 => {
            let shown = rt.fmt(&Value::Number(h));
            Err(rt.node_error(
                "RangeError",
                "ERR_INVALID_ARG_VALUE",
                &format!("The property 'strategy.highWaterMark' is invalid. Received {shown}"),
            ))
        }
        Some(h) => Ok(h),
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L81-L85>
/// `extractSizeAlgorithm(size)`: `validateFunction(size, 'strategy.size')`.
pub(crate) fn extract_size_algorithm(rt: &mut Rt, size: Option<ObjectId>) -> Result<Size, Value> {
    match size {
        None => Ok(Size::Default),
        Some(f) if rt.is_function(&Value::Object(f)) => Ok(Size::Script(f)),
        Some(f) => Err(rt.err_invalid_arg_type("strategy.size", "function", &Value::Object(f))),
    }
}

/// JavaScript's `+value` (ToNumber) for the values a script's `size` can return.
fn to_number(rt: &mut Rt, value: &Value) -> Result<f64, Value> {
    Ok(match value {
        Value::Undefined => f64::NAN,
        Value::Null => 0.0,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Number(n) => *n,
        Value::String(s) => string_to_number(s),
        Value::Symbol(_) => {
            return Err(rt.new_error("TypeError", "Cannot convert a Symbol value to a number"))
        }
        Value::Object(id) => match rt.heap.get(*id) {
            // `[].toString()` is `""`, `[x].toString()` is `String(x)`.
            ObjectData::Array(items) if items.is_empty() => 0.0,
            ObjectData::Array(items) if items.len() == 1 => {
                let item = items[0].clone();
                match item {
                    Value::Undefined | Value::Null => 0.0,
                    Value::Object(_) => f64::NAN,
                    other => {
                        let text = rt.fmt(&other);
                        string_to_number(&text)
                    }
                }
            }
            _ => f64::NAN,
        },
    })
}

/// ECMA-262 StringToNumber.
fn string_to_number(s: &str) -> f64 {
    let t = s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if t.is_empty() {
        return 0.0;
    }
    for (prefix, radix) in [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ] {
        if let Some(digits) = t.strip_prefix(prefix) {
            return u64::from_str_radix(digits, radix).map_or(f64::NAN, |n| n as f64);
        }
    }
    match t {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    if t.chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
    {
        t.parse::<f64>().unwrap_or(f64::NAN)
    } else {
        f64::NAN
    }
}

/// `util.inspect(value)` for the primitives an invalid size can be.
fn inspect(rt: &Rt, value: &Value) -> String {
    match value {
        Value::Number(n) if *n == 0.0 && n.is_sign_negative() => "-0".into(),
        Value::String(s) => {
            if s.contains('\'') && !s.contains('"') {
                format!("\"{s}\"")
            } else {
                format!("'{}'", s.replace('\'', "\\'"))
            }
        }
        Value::Object(id) => match rt.heap.get(*id) {
            ObjectData::Array(items) if items.is_empty() => "[]".into(),
            ObjectData::Plain => "{}".into(),
            _ => rt.fmt(value),
        },
        _ => rt.fmt(value),
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L314-L324>
/// `enqueueValueWithSize`'s validation: the coerced size, or the RangeError for a NaN, negative
/// or infinite one.
pub(crate) fn coerce_size(rt: &mut Rt, size: &Value) -> Result<f64, Value> {
    let coerced = to_number(rt, size)?;
    if coerced.is_nan() || coerced < 0.0 || coerced == f64::INFINITY {
        let shown = inspect(rt, size);
        return Err(rt.node_error(
            "RangeError",
            "ERR_INVALID_ARG_VALUE",
            &format!("The argument 'size' is invalid. Received {shown}"),
        ));
    }
    Ok(coerced)
}

/// `new ReadableStream(source, { highWaterMark, size })`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L254-L293>
/// (the constructor) and
/// <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L3061-L3088>
/// `setupReadableStreamDefaultControllerFromSource`.
pub fn new_readable_stream(
    rt: &mut Rt,
    source: UnderlyingSource,
    strategy: QueuingStrategy,
) -> Completion {
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L285-L290>
    // `extractHighWaterMark(highWaterMark, 1)`, then `extractSizeAlgorithm(size)`.
    let high_water_mark = extract_high_water_mark(rt, strategy.high_water_mark, 1.0)?;
    let size = extract_size_algorithm(rt, strategy.size)?;
    // createRawCallback1Param('source.pull', ...) and
    // createPromiseCallback1Param('source.cancel', ...) validate the
    // methods before start() runs.
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
    let (stream_obj, _, index) = alloc_stream(
        rt,
        source.object.clone(),
        source.pull.map_or(Algorithm::NonOp, Algorithm::Source),
        source.cancel.map_or(Algorithm::NonOp, Algorithm::Source),
        high_water_mark,
    );
    rt.lib.streams.controllers[index as usize].size = size;
    setup_default_controller(rt, index, source.start)?;
    Ok(Value::Object(stream_obj))
}

/// The stream and controller objects and their `kState` records, before
/// `setupReadableStreamDefaultController` calls the start algorithm: the
/// stream object, its index and its controller's (which differ once byte
/// streams, whose controllers are kept apart, exist).
pub(crate) fn alloc_stream(
    rt: &mut Rt,
    source: Value,
    pull: Algorithm,
    cancel: Algorithm,
    high_water_mark: f64,
) -> (ObjectId, u32, u32) {
    let index = rt.lib.streams.streams.len() as u32;
    let c = rt.lib.streams.controllers.len() as u32;
    let stream_obj = alloc_host(rt, |_| Slot::ReadableStream(index));
    let controller_obj = alloc_host(rt, |_| Slot::ReadableController(c));
    rt.lib.streams.streams.push(StreamData {
        obj: stream_obj,
        state: StreamState::Readable,
        reader: None,
        stored_error: Value::Undefined,
        disturbed: false,
        controller: ControllerRef::Default(c),
    });
    rt.lib.streams.controllers.push(ControllerData {
        obj: controller_obj,
        stream: index,
        source,
        pull,
        cancel,
        close_requested: false,
        high_water_mark,
        pull_again: false,
        pulling: false,
        pull_reactions: None,
        queue: VecDeque::new(),
        size: Size::Default,
        queue_total_size: 0.0,
        started: false,
    });
    (stream_obj, index, c)
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2999-L3059>
/// `setupReadableStreamDefaultController`, from the call of the start algorithm on (the records are
/// made by the caller). A start() that throws makes the constructor throw.
pub(crate) fn setup_default_controller(
    rt: &mut Rt,
    c: u32,
    start: Option<ObjectId>,
) -> Result<(), Value> {
    let data = &rt.lib.streams.controllers[c as usize];
    let (source, controller_obj) = (data.source.clone(), data.obj);
    // `FunctionPrototypeBind(start, source, controller)`, or
    // `nonOpCallback`, which returns undefined.
    // The constructor's frame holds the stream (and so its controller) while start() runs.
    let result = match start {
        Some(f) => rt.holding(&[Value::Object(controller_obj)], |rt| {
            rt.call_function(f, source, &[Value::Object(controller_obj)])
        })?,
        None => Value::Undefined,
    };
    setup_default_controller_started(rt, c, result);
    Ok(())
}

/// The rest of `setupReadableStreamDefaultController` once the start algorithm returned
/// `result` (a transform stream's readable side passes its start promise).
pub(crate) fn setup_default_controller_started(rt: &mut Rt, c: u32, result: Value) {
    let pull = rt.lib.streams.controllers[c as usize].pull;
    // A result that is not an object can only fulfil, and looking up its
    // `then` is not observable.
    let start_fulfilled = !matches!(result, Value::Object(_))
        || rt.lib.mutant == Some(Mutant::StartShortcutIgnoresPromise) && pull == Algorithm::NonOp;
    // Seed ("No post-start microtask for sources without pull()"): the
    // started flag only gates calls into the pull algorithm, and a source
    // without pull() has nothing to run there, so the flag is set at once
    // and no reaction or task is allocated. Only for a result that cannot
    // reject: a promise (or thenable) start() returns still errors the
    // stream when it rejects, pending or not, so it keeps the reaction
    // below even without pull().
    if start_fulfilled
        && (pull == Algorithm::NonOp || rt.lib.mutant == Some(Mutant::StartShortcutWithPull))
    {
        rt.lib.streams.controllers[c as usize].started = true;
        return;
    }
    if start_fulfilled {
        // Seed ("Sources with pull() keep the microtask, at the same
        // position"): the post-start step runs where the reaction to an
        // already fulfilled promise would have run, the next microtask.
        let controller = controller_value(rt, c);
        rt.enqueue_microtask(Job::Task(captured(vec![controller], move |rt| {
            started(rt, c);
            Ok(Value::Undefined)
        })));
        return;
    }
    // `PromisePrototypeThen(new Promise((r) => r(startResult)), started,
    // error => readableStreamDefaultControllerError(controller, error))`:
    // the wrapper costs a promise result two more microtasks (a
    // NewPromiseResolveThenableJob) than `PromiseResolve` would.
    let wrapper = rt.new_promise();
    rt.resolve_promise_with(wrapper, result);
    let controller = controller_value(rt, c);
    let on_started =
        rt.native_function_capturing(Captures::values(vec![controller]), move |rt, _, _| {
            started(rt, c);
            Ok(Value::Undefined)
        });
    let on_error = controller_error_reaction(rt, c);
    rt.perform_promise_then(wrapper, Some(on_started), Some(on_error), None);
}

/// `error => readableStreamDefaultControllerError(controller, error)`, the
/// rejection reaction of start's and pull's promises.
fn controller_error_reaction(rt: &mut Rt, c: u32) -> ObjectId {
    let controller = controller_value(rt, c);
    rt.native_function_capturing(Captures::values(vec![controller]), move |rt, _, args| {
        let error = args.first().cloned().unwrap_or(Value::Undefined);
        rt.clear_internal_assertion();
        default_controller_error(rt, c, error);
        // An ERR_INTERNAL_ASSERTION of the iterator's error steps rejects
        // the promise `PromisePrototypeThen` derived, which nobody handles.
        if let Some(e) = rt.take_internal_assertion() {
            rt.promise_reject_new(e);
        }
        Ok(Value::Undefined)
    })
}

/// The `started` step: the flag, then a pull if one is needed.
fn started(rt: &mut Rt, c: u32) {
    let data = &mut rt.lib.streams.controllers[c as usize];
    data.started = true;
    debug_assert!(!data.pulling && !data.pull_again);
    call_pull_if_needed(rt, c);
}

// ---- the controller ---------------------------------------------------

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2848-L2854>
/// `readableStreamDefaultControllerCanCloseOrEnqueue`.
pub(crate) fn can_close_or_enqueue(rt: &Rt, c: u32) -> bool {
    let data = &rt.lib.streams.controllers[c as usize];
    !data.close_requested
        && rt.lib.streams.streams[data.stream as usize].state == StreamState::Readable
}

/// Whether the stream's reader is a default reader with parked reads.
fn has_read_requests(rt: &Rt, s: u32) -> bool {
    rt.lib.streams.streams[s as usize]
        .reader
        .is_some_and(|r| !rt.lib.streams.readers[r as usize].read_requests.is_empty())
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2870-L2892>
/// `readableStreamDefaultControllerShouldCallPull`, the single-pass version of the spec's predicate
/// chain.
pub(crate) fn should_call_pull(rt: &Rt, c: u32) -> bool {
    let data = &rt.lib.streams.controllers[c as usize];
    let s = data.stream;
    if data.close_requested
        || rt.lib.streams.streams[s as usize].state != StreamState::Readable
        || !data.started
    {
        return false;
    }
    if has_read_requests(rt, s) {
        return true;
    }
    data.high_water_mark - data.queue_total_size > 0.0
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2894-L2898>
/// `readableStreamDefaultControllerCallPullIfNeeded`.
pub(crate) fn call_pull_if_needed(rt: &mut Rt, c: u32) {
    if should_call_pull(rt, c) {
        pull(rt, c);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2903-L2943>
/// `readableStreamDefaultControllerPull`: the half of CallPullIfNeeded after ShouldCallPull.
fn pull(rt: &mut Rt, c: u32) {
    let data = &mut rt.lib.streams.controllers[c as usize];
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2904-L2908>:
    // a source without pull() has nothing to run; no pulling bookkeeping, no reaction, no
    // microtask. (After ClearAlgorithms the stream is no longer readable, so nothing pulls.)
    let algorithm = data.pull;
    if matches!(algorithm, Algorithm::NonOp | Algorithm::Cleared) {
        return;
    }
    if data.pulling {
        data.pull_again = true;
        return;
    }
    debug_assert!(!data.pull_again);
    data.pulling = true;
    let (source, controller_obj) = (data.source.clone(), data.obj);
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2915-L2928>:
    // the two reactions capture only the controller, so they are made on the first pull and reused
    // for every later one.
    let (on_fulfilled, on_rejected) = match data.pull_reactions {
        Some(reactions) => reactions,
        None => {
            let controller = Value::Object(controller_obj);
            let captures = Captures::values(vec![controller]);
            let on_fulfilled = rt.native_function_capturing(captures, move |rt, _, _| {
                let data = &mut rt.lib.streams.controllers[c as usize];
                data.pulling = false;
                if rt.lib.mutant == Some(Mutant::PullAgainLost) {
                    data.pull_again = false;
                }
                if data.pull_again {
                    data.pull_again = false;
                    call_pull_if_needed(rt, c);
                }
                Ok(Value::Undefined)
            });
            let on_rejected = controller_error_reaction(rt, c);
            rt.lib.streams.controllers[c as usize].pull_reactions =
                Some((on_fulfilled, on_rejected));
            (on_fulfilled, on_rejected)
        }
    };
    let result = match algorithm {
        // The raw callback: `pull.call(source, controller)`, its result
        // uncoerced, a throw caught.
        // (The controller, which holds the reactions, is on the stack while pull() runs.)
        Algorithm::Source(f) => rt.holding(&[Value::Object(controller_obj)], |rt| {
            rt.call_function(f, source, &[Value::Object(controller_obj)])
        }),
        // The tee's pullAlgorithm returns undefined.
        Algorithm::Tee(t, _) => {
            rt.holding(&[Value::Object(controller_obj)], |rt| tee_pull(rt, t));
            Ok(Value::Undefined)
        }
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L369-L370>
        // `kParkedAlgorithmResult`: the algorithm calls `pullFulfilled` (or errors the controller)
        // itself.
        Algorithm::From(f) => {
            crate::iterate::from_pull(rt, f);
            return;
        }
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L369-L370>:
        // `kParkedAlgorithmResult`: the transform's pull delivers `pullFulfilled` itself.
        Algorithm::Transform(t) => {
            crate::transformstream::source_pull(rt, t);
            return;
        }
        Algorithm::NonOp | Algorithm::Cleared => return,
    };
    then_algorithm_result(rt, result, on_fulfilled, on_rejected);
}

/// `controller[kState].pullFulfilled` and `pullRejected`, once a pull made them.
pub(crate) fn pull_reactions(rt: &Rt, c: u32) -> Option<(ObjectId, ObjectId)> {
    rt.lib.streams.controllers[c as usize].pull_reactions
}

/// `controller[kState].pullFulfilled()`, called by an algorithm that parked its result: the
/// reaction made by the pull that ran it.
pub(crate) fn pull_fulfilled(rt: &mut Rt, c: u32) {
    if let Some((on_fulfilled, _)) = rt.lib.streams.controllers[c as usize].pull_reactions {
        // The reaction returns undefined and throws nothing.
        let _ = rt.call_function(on_fulfilled, Value::Undefined, &[]);
    }
}

/// The controller's `pullFulfilled` reaction (made before the pull algorithm runs).
pub(crate) fn pull_fulfilled_reaction(rt: &Rt, c: u32) -> Option<ObjectId> {
    rt.lib.streams.controllers[c as usize]
        .pull_reactions
        .map(|(f, _)| f)
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2945-L2949>
/// `readableStreamDefaultControllerClearAlgorithms`.
pub(crate) fn clear_algorithms(rt: &mut Rt, c: u32) {
    let data = &mut rt.lib.streams.controllers[c as usize];
    data.pull = Algorithm::Cleared;
    data.cancel = Algorithm::Cleared;
    data.size = Size::Cleared;
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L302-L306>
/// `resetQueue`: back to the storage-less empty queue.
fn reset_queue(rt: &mut Rt, c: u32) {
    let data = &mut rt.lib.streams.controllers[c as usize];
    data.queue = VecDeque::new();
    data.queue_total_size = 0.0;
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2951-L2960>
/// `readableStreamDefaultControllerError`.
pub(crate) fn default_controller_error(rt: &mut Rt, c: u32, error: Value) {
    let s = rt.lib.streams.controllers[c as usize].stream;
    if rt.lib.streams.streams[s as usize].state == StreamState::Readable {
        reset_queue(rt, c);
        clear_algorithms(rt, c);
        readable_stream_error(rt, s, error);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2782-L2790>
/// `readableStreamDefaultControllerClose`.
pub(crate) fn default_controller_close(rt: &mut Rt, c: u32) {
    if !can_close_or_enqueue(rt, c) {
        return;
    }
    let data = &mut rt.lib.streams.controllers[c as usize];
    data.close_requested = true;
    if data.queue.is_empty() {
        let s = data.stream;
        clear_algorithms(rt, c);
        readable_stream_close(rt, s);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2792-L2842>
/// `readableStreamDefaultControllerEnqueue`, on its default-size-algorithm path.
pub(crate) fn default_controller_enqueue(rt: &mut Rt, c: u32, chunk: Value) -> Result<(), Value> {
    let data = &rt.lib.streams.controllers[c as usize];
    let s = data.stream;
    if data.close_requested || rt.lib.streams.streams[s as usize].state != StreamState::Readable {
        return Ok(());
    }
    if has_read_requests(rt, s) {
        // Fulfilling a read request can run script code (the pipe's
        // forwarding is a microtask away, but Node re-evaluates the whole
        // predicate afterwards all the same).
        fulfill_read_request(rt, s, chunk, false);
    } else if let Size::Script(size) = data.size {
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2826-L2840>:
        // `FunctionPrototypeCall(sizeAlgorithm, undefined, chunk)`, then `enqueueValueWithSize`;
        // a throw of either errors the stream and is rethrown.
        let roots = [controller_value(rt, c), chunk.clone()];
        let sized = rt
            .holding(&roots, |rt| {
                rt.call_function(size, Value::Undefined, std::slice::from_ref(&chunk))
            })
            .and_then(|v| coerce_size(rt, &v));
        match sized {
            Ok(n) => {
                let data = &mut rt.lib.streams.controllers[c as usize];
                data.queue.push_back((chunk, n));
                data.queue_total_size += n;
            }
            Err(error) => {
                default_controller_error(rt, c, error.clone());
                return Err(error);
            }
        }
    } else {
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2811-L2825>:
        // the default size algorithm always returns 1 and cannot throw, so the chunk is queued
        // with size 1 without calling it, and ShouldCallPull reduces to the started flag and the
        // desired size.
        let data = &mut rt.lib.streams.controllers[c as usize];
        data.queue.push_back((chunk, 1.0));
        data.queue_total_size += 1.0;
        if data.started && data.high_water_mark - data.queue_total_size > 0.0 {
            pull(rt, c);
        }
        return Ok(());
    }
    call_pull_if_needed(rt, c);
    Ok(())
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/util.js#L293-L300>
/// `dequeueValue`.
pub(crate) fn dequeue_value(rt: &mut Rt, c: u32) -> Value {
    let data = &mut rt.lib.streams.controllers[c as usize];
    let (value, size) = data.queue.pop_front().unwrap_or((Value::Undefined, 0.0));
    data.queue_total_size = (data.queue_total_size - size).max(0.0);
    value
}

/// The queue-filled arm of the pull steps, shared by `read()`'s fast path:
/// dequeue, then close the stream if that emptied a closing queue, or
/// pull if the reduced ShouldCallPull holds (the state is readable and the
/// queue was not empty, so no read request can be parked).
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2974-L2989>
/// and
/// <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L994-L1007>.
pub(crate) fn dequeue_for_read(rt: &mut Rt, c: u32) -> Value {
    let chunk = dequeue_value(rt, c);
    let data = &rt.lib.streams.controllers[c as usize];
    if data.close_requested
        && data.queue.is_empty()
        && rt.lib.mutant != Some(Mutant::LastChunkKeepsStreamOpen)
    {
        let s = data.stream;
        clear_algorithms(rt, c);
        readable_stream_close(rt, s);
    } else if !data.close_requested
        && data.started
        && data.high_water_mark - data.queue_total_size > 0.0
    {
        // The dequeued chunk is the caller's local while pull() runs.
        rt.holding(std::slice::from_ref(&chunk), |rt| pull(rt, c));
    }
    chunk
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2969-L2997>
/// `readableStreamDefaultControllerPullSteps` (`kPull`).
fn default_controller_pull_steps(rt: &mut Rt, c: u32, request: ReadRequest) {
    let s = rt.lib.streams.controllers[c as usize].stream;
    if !rt.lib.streams.controllers[c as usize].queue.is_empty() {
        let held = read_request_value(rt, request);
        let chunk = rt.holding(&[held], |rt| dequeue_for_read(rt, c));
        read_request_chunk(rt, request, chunk);
        return;
    }
    add_read_request(rt, s, request);
    // Reduced ShouldCallPull: readable, an empty queue means no close was
    // requested, and the request just parked satisfies the reader arm.
    if rt.lib.streams.controllers[c as usize].started {
        pull(rt, c);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2962-L2967>
/// `readableStreamDefaultControllerCancelSteps` (`kCancel`): the cancel algorithm's promise.
///
/// A cancel algorithm that throws (a transform's, calling its cleared cancel algorithm) throws
/// out of here before the algorithms are cleared, as Node's does.
fn default_controller_cancel_steps(rt: &mut Rt, c: u32, reason: Value) -> Result<ObjectId, Value> {
    reset_queue(rt, c);
    let data = &rt.lib.streams.controllers[c as usize];
    let (algorithm, source) = (data.cancel, data.source.clone());
    let promise = match algorithm {
        // `createPromiseCallback1Param`: `async (arg) => cancel.call(source,
        // arg)`, so a throw rejects and a promise result is adopted.
        Algorithm::Source(f) => {
            let p = rt.new_promise();
            let roots = [controller_value(rt, c), Value::Object(p)];
            match rt.holding(&roots, |rt| rt.call_function(f, source, &[reason])) {
                Ok(v) => rt.resolve_promise_with(p, v),
                Err(e) => rt.reject_promise(p, e),
            }
            p
        }
        // The branch's cancel algorithm returns the tee's cancel promise.
        Algorithm::Tee(t, branch) => tee_cancel(rt, t, branch, reason)?,
        Algorithm::From(f) => crate::iterate::from_cancel(rt, f, reason),
        Algorithm::Transform(t) => crate::transformstream::source_cancel(rt, t, reason)?,
        // `async function nonOpCancel() {}`. (Cleared cannot happen: the
        // algorithms are cleared only when the stream stops being
        // readable, and only a readable stream is cancelled.)
        Algorithm::NonOp | Algorithm::Cleared => rt.promise_resolve(Value::Undefined),
    };
    clear_algorithms(rt, c);
    Ok(promise)
}

// ---- the stream -------------------------------------------------------

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2398-L2419>
/// `readableStreamCancel`.
pub(crate) fn readable_stream_cancel(rt: &mut Rt, s: u32, reason: Value) -> Completion {
    let stream = &mut rt.lib.streams.streams[s as usize];
    stream.disturbed = true;
    match stream.state {
        StreamState::Closed => return Ok(Value::Object(rt.promise_resolve(Value::Undefined))),
        StreamState::Errored => {
            let error = stream.stored_error.clone();
            return rejected(rt, error);
        }
        StreamState::Readable => {}
    }
    let controller = stream.controller;
    readable_stream_close(rt, s);
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2410-L2415>:
    // a BYOB reader's parked reads close with an undefined value.
    if let Some(r) = rt.lib.streams.streams[s as usize].reader {
        while let Some(request) = rt.lib.streams.readers[r as usize]
            .read_into_requests
            .pop_front()
        {
            byte_streams::read_into_request_close(rt, request, Value::Undefined);
        }
    }
    // `stream[kState].controller[kCancel](reason)`.
    let cancelled = match controller {
        ControllerRef::Default(c) => default_controller_cancel_steps(rt, c, reason)?,
        ControllerRef::Byte(b) => byte_streams::byte_controller_cancel_steps(rt, b, reason),
    };
    // `PromisePrototypeThen(cancelPromise, () => {})`.
    let noop = match rt.lib.streams.noop {
        Some(f) => f,
        None => {
            let f =
                rt.native_function_capturing(Captures::nothing(), |_, _, _| Ok(Value::Undefined));
            rt.lib.streams.noop = Some(f);
            f
        }
    };
    Ok(Value::Object(rt.promise_then(cancelled, Some(noop), None)))
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2421-L2439>
/// `readableStreamClose`: the reader's closed promise first, then each parked read with `done`.
pub(crate) fn readable_stream_close(rt: &mut Rt, s: u32) {
    let stream = &mut rt.lib.streams.streams[s as usize];
    debug_assert_eq!(stream.state, StreamState::Readable);
    stream.state = StreamState::Closed;
    let Some(r) = stream.reader else {
        return;
    };
    // `reader[kState].close?.resolve()`: only a materialized record. A
    // tee's hook has no close watcher (`onResolved` is undefined).
    match rt.lib.streams.readers[r as usize].close {
        Some(Closed::Record(close)) if close.settleable => {
            rt.resolve_promise_with(close.promise, Value::Undefined);
        }
        // The pipe's hook queues `onSourceClosed`.
        Some(Closed::PipeHook(p)) => crate::pipe::source_hook_resolve(rt, p),
        _ => {}
    }
    while let Some(request) = rt.lib.streams.readers[r as usize].read_requests.pop_front() {
        read_request_close(rt, request);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2441-L2474>
/// `readableStreamError`.
fn readable_stream_error(rt: &mut Rt, s: u32, error: Value) {
    let stream = &mut rt.lib.streams.streams[s as usize];
    debug_assert_eq!(stream.state, StreamState::Readable);
    stream.state = StreamState::Errored;
    stream.stored_error = error.clone();
    let Some(r) = stream.reader else {
        return;
    };
    match rt.lib.streams.readers[r as usize].close {
        Some(Closed::Record(close)) if close.settleable => {
            set_promise_handled(rt, close.promise);
            rt.reject_promise(close.promise, error.clone());
        }
        // `setPromiseHandled` skips the hook's shared pending promise.
        Some(Closed::TeeHook(t)) => tee_hook_reject(rt, t, error.clone()),
        Some(Closed::PipeHook(p)) => crate::pipe::source_hook_reject(rt, p, error.clone()),
        Some(Closed::ByteTeeHook(t, hooked)) => {
            byte_streams::byte_tee_hook_reject(rt, t, hooked, error.clone());
        }
        Some(Closed::Record(_)) | None => {}
    }
    while let Some(request) = rt.lib.streams.readers[r as usize].read_requests.pop_front() {
        read_request_error(rt, request, error.clone());
    }
    // A BYOB reader's read-into requests (a default reader has none).
    while let Some(request) = rt.lib.streams.readers[r as usize]
        .read_into_requests
        .pop_front()
    {
        byte_streams::read_into_request_error(rt, request, error.clone());
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2541-L2549>
/// `readableStreamAddReadRequest`.
fn add_read_request(rt: &mut Rt, s: u32, request: ReadRequest) {
    debug_assert_eq!(
        rt.lib.streams.streams[s as usize].state,
        StreamState::Readable
    );
    if let Some(r) = rt.lib.streams.streams[s as usize].reader {
        rt.lib.streams.readers[r as usize]
            .read_requests
            .push_back(request);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2510-L2526>
/// `readableStreamFulfillReadRequest`.
fn fulfill_read_request(rt: &mut Rt, s: u32, chunk: Value, done: bool) {
    let Some(r) = rt.lib.streams.streams[s as usize].reader else {
        return;
    };
    let Some(request) = rt.lib.streams.readers[r as usize].read_requests.pop_front() else {
        return;
    };
    if done {
        read_request_close(rt, request);
    } else {
        read_request_chunk(rt, request, chunk);
    }
}

/// A read request's chunk steps (`[kChunk](chunk)`).
fn read_request_chunk(rt: &mut Rt, request: ReadRequest, chunk: Value) {
    match request {
        ReadRequest::Promise(p) => {
            let result = rt.create_iter_result(chunk, false);
            rt.resolve_promise_with(p, result);
        }
        ReadRequest::Tee(t) => tee_chunk_steps(rt, t, chunk),
        ReadRequest::Iterator(i) => crate::iterate::iterator_chunk_steps(rt, i, chunk),
        ReadRequest::Pipe(p) => crate::pipe::read_chunk_steps(rt, p, chunk),
        ReadRequest::ByteTee(t) => byte_streams::byte_tee_chunk_steps(rt, t, chunk),
    }
}

/// A read request's close steps (`[kClose]()`).
fn read_request_close(rt: &mut Rt, request: ReadRequest) {
    match request {
        ReadRequest::Promise(p) => {
            let result = rt.create_iter_result(Value::Undefined, true);
            rt.resolve_promise_with(p, result);
        }
        ReadRequest::Tee(t) => tee_close_steps(rt, t),
        ReadRequest::Iterator(i) => crate::iterate::iterator_close_steps(rt, i),
        // `nonOpCallback`: the pipe's source watchers see the close.
        ReadRequest::Pipe(_) => {}
        ReadRequest::ByteTee(t) => byte_streams::byte_tee_close_steps(rt, t),
    }
}

/// A read request's error steps (`[kError](error)`).
fn read_request_error(rt: &mut Rt, request: ReadRequest, error: Value) {
    match request {
        ReadRequest::Promise(p) => rt.reject_promise(p, error),
        // The tee's error steps: `reading = false`.
        ReadRequest::Tee(t) => rt.lib.streams.tees[t as usize].reading = false,
        ReadRequest::Iterator(i) => crate::iterate::iterator_error_steps(rt, i, error),
        // `nonOpCallback`.
        ReadRequest::Pipe(_) => {}
        ReadRequest::ByteTee(t) => rt.lib.streams.byte_tees[t as usize].reading = false,
    }
}

// ---- the reader -------------------------------------------------------

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2583-L2619>
/// `readerClosedPromise`: the reader's `[[closedPromise]]`, made on its first observation from the
/// state it would have followed: rejected with the released error once detached, else pending,
/// resolved or rejected with the stream's.
fn reader_closed_promise(rt: &mut Rt, r: u32) -> ObjectId {
    match rt.lib.streams.readers[r as usize].close {
        Some(Closed::Record(close)) => return close.promise,
        Some(Closed::TeeHook(_) | Closed::PipeHook(_) | Closed::ByteTeeHook(..)) => {
            return pending_promise(rt)
        }
        None => {}
    }
    let record = match rt.lib.streams.readers[r as usize].stream {
        None => {
            let error = released_error(rt);
            let promise = rt.promise_reject_new(error);
            set_promise_handled(rt, promise);
            ClosedRecord {
                promise,
                settleable: false,
            }
        }
        Some(s) => match rt.lib.streams.streams[s as usize].state {
            StreamState::Readable => ClosedRecord {
                promise: rt.new_promise(),
                settleable: true,
            },
            StreamState::Closed => ClosedRecord {
                promise: rt.promise_resolve(Value::Undefined),
                settleable: false,
            },
            StreamState::Errored => {
                let error = rt.lib.streams.streams[s as usize].stored_error.clone();
                let promise = rt.promise_reject_new(error);
                set_promise_handled(rt, promise);
                ClosedRecord {
                    promise,
                    settleable: false,
                }
            }
        },
    };
    rt.lib.streams.readers[r as usize].close = Some(Closed::Record(record));
    record.promise
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2741-L2757>
/// `readableStreamDefaultReaderRead`.
pub(crate) fn default_reader_read(rt: &mut Rt, s: u32, request: ReadRequest) {
    let stream = &mut rt.lib.streams.streams[s as usize];
    stream.disturbed = true;
    match stream.state {
        StreamState::Closed => read_request_close(rt, request),
        StreamState::Errored => {
            let error = stream.stored_error.clone();
            read_request_error(rt, request, error);
        }
        // `stream[kState].controller[kPull](readRequest)`.
        StreamState::Readable => match stream.controller {
            ControllerRef::Default(c) => default_controller_pull_steps(rt, c, request),
            ControllerRef::Byte(b) => byte_streams::byte_controller_pull_steps(rt, b, request),
        },
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2649-L2673>
/// `readableStreamReaderGenericRelease` and
/// <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2621-L2633>
/// `readableStreamDefaultReaderRelease`.
pub(crate) fn default_reader_release(rt: &mut Rt, r: u32) {
    if !reader_generic_release(rt, r) {
        return;
    }
    // readableStreamDefaultReaderErrorReadRequests, after the detach.
    if rt.lib.streams.readers[r as usize].read_requests.is_empty() {
        return;
    }
    let error = releasing_error(rt);
    while let Some(request) = rt.lib.streams.readers[r as usize].read_requests.pop_front() {
        read_request_error(rt, request, error.clone());
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2649-L2673>
/// `readableStreamReaderGenericRelease` (what a pipe's `finalize` calls: its parked read request
/// stays with the detached reader). False when the reader held no stream.
pub(crate) fn reader_generic_release(rt: &mut Rt, r: u32) -> bool {
    let Some(s) = rt.lib.streams.readers[r as usize].stream else {
        return false;
    };
    debug_assert_eq!(rt.lib.streams.streams[s as usize].reader, Some(r));
    if rt.lib.streams.streams[s as usize].state == StreamState::Readable {
        match rt.lib.streams.readers[r as usize].close {
            Some(Closed::Record(close)) if close.settleable && is_pending(rt, close.promise) => {
                let error = released_error(rt);
                rt.reject_promise(close.promise, error);
                set_promise_handled(rt, close.promise);
            }
            // (No tee releases its reader; a hook would run its watcher.)
            Some(Closed::TeeHook(t)) => {
                let error = released_error(rt);
                tee_hook_reject(rt, t, error);
            }
            Some(Closed::PipeHook(p)) => {
                let error = released_error(rt);
                crate::pipe::source_hook_reject(rt, p, error);
            }
            // A byte tee swaps its reader: the hook's watcher runs and its
            // guard ignores the released reader.
            Some(Closed::ByteTeeHook(t, hooked)) => {
                let error = released_error(rt);
                byte_streams::byte_tee_hook_reject(rt, t, hooked, error);
            }
            Some(Closed::Record(_)) | None => {}
        }
    } else {
        // Node drops the record where the spec replaces the promise: the
        // next observation derives the released rejection.
        rt.lib.streams.readers[r as usize].close = None;
    }
    // `controller[kRelease]()`: a no-op for a default controller.
    if let ControllerRef::Byte(b) = rt.lib.streams.streams[s as usize].controller {
        byte_streams::byte_controller_release(rt, b);
    }
    rt.lib.streams.streams[s as usize].reader = None;
    rt.lib.streams.readers[r as usize].stream = None;
    true
}

// ---- the operations ---------------------------------------------------

/// `controller.enqueue(chunk)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1194-L1198>.
pub fn controller_enqueue(rt: &mut Rt, controller: Value, chunk: Value) -> Completion {
    let Some(c) = controller_of(rt, &controller) else {
        return Err(not_a_controller(rt));
    };
    if !can_close_or_enqueue(rt, c) {
        return Err(invalid_state(rt, "Controller is already closed"));
    }
    default_controller_enqueue(rt, c, chunk)?;
    Ok(Value::Undefined)
}

/// `controller.close()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1185-L1189>.
pub fn controller_close(rt: &mut Rt, controller: Value) -> Completion {
    let Some(c) = controller_of(rt, &controller) else {
        return Err(not_a_controller(rt));
    };
    if !can_close_or_enqueue(rt, c) {
        return Err(invalid_state(rt, "Controller is already closed"));
    }
    // An ERR_INTERNAL_ASSERTION of the iterator's close steps unwinds to here.
    rt.clear_internal_assertion();
    default_controller_close(rt, c);
    if let Some(e) = rt.take_internal_assertion() {
        return Err(e);
    }
    Ok(Value::Undefined)
}

/// `controller.error(e)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1203-L1205>.
pub fn controller_error(rt: &mut Rt, controller: Value, error: Value) -> Completion {
    let Some(c) = controller_of(rt, &controller) else {
        return Err(not_a_controller(rt));
    };
    // An ERR_INTERNAL_ASSERTION of the iterator's error steps unwinds to here.
    rt.clear_internal_assertion();
    default_controller_error(rt, c, error);
    if let Some(e) = rt.take_internal_assertion() {
        return Err(e);
    }
    Ok(Value::Undefined)
}

/// `stream.getReader()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L371-L390>,
/// then the ReadableStreamDefaultReader constructor
/// (<https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L956-L966>)
/// and `setupReadableStreamDefaultReader`
/// (<https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2775-L2780>).
pub fn get_reader(rt: &mut Rt, stream: Value) -> Completion {
    let Some(s) = stream_of(rt, &stream) else {
        return Err(invalid_this(rt, "ReadableStream"));
    };
    let index = setup_default_reader(rt, s)?;
    let obj = alloc_host(rt, |_| Slot::ReadableReader(index));
    rt.lib.streams.readers[index as usize].obj = Some(obj);
    Ok(Value::Object(obj))
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2775-L2780>
/// `setupReadableStreamDefaultReader` and
/// <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2569-L2575>
/// `readableStreamReaderGenericInitialize`: a new reader's record, locking the stream; its index.
pub(crate) fn setup_default_reader(rt: &mut Rt, s: u32) -> Result<u32, Value> {
    if rt.lib.streams.streams[s as usize].reader.is_some() {
        return Err(invalid_state(rt, "ReadableStream is locked"));
    }
    let index = rt.lib.streams.readers.len() as u32;
    // The closed promise is left unmade, as its settlement follows from
    // the state.
    rt.lib.streams.readers.push(ReaderData {
        obj: None,
        stream: Some(s),
        read_requests: VecDeque::new(),
        close: None,
        byob: false,
        read_into_requests: VecDeque::new(),
    });
    rt.lib.streams.streams[s as usize].reader = Some(index);
    Ok(index)
}

/// `stream.cancel(reason)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L355-L363>.
pub fn stream_cancel(rt: &mut Rt, stream: Value, reason: Option<Value>) -> Completion {
    let Some(s) = stream_of(rt, &stream) else {
        let error = invalid_this(rt, "ReadableStream");
        return rejected(rt, error);
    };
    if rt.lib.streams.streams[s as usize].reader.is_some() {
        let error = invalid_state(rt, "ReadableStream is locked");
        return rejected(rt, error);
    }
    readable_stream_cancel(rt, s, reason.unwrap_or(Value::Undefined))
}

/// `reader.read()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L974-L1028>.
pub fn reader_read(rt: &mut Rt, reader: Value) -> Completion {
    let s = match attached_stream(rt, &reader) {
        Ok(s) => s,
        Err(error) => return rejected(rt, error),
    };
    let stream = &rt.lib.streams.streams[s as usize];
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L986-L1010>:
    // with a chunk in the queue, no read request is made: the chunk is dequeued (closing or pulling
    // as the pull steps would) and `PromiseResolve({ done: false, value })` is returned, whose
    // reactions run a microtask later, as the request's would.
    if stream.state == StreamState::Readable {
        let chunk = match stream.controller {
            ControllerRef::Default(c)
                if !rt.lib.streams.controllers[c as usize].queue.is_empty() =>
            {
                rt.lib.streams.streams[s as usize].disturbed = true;
                Some(dequeue_for_read(rt, c))
            }
            // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1011-L1020>:
            // a byte controller with buffered bytes: the queue-filled arm of its pull steps.
            ControllerRef::Byte(b)
                if rt.lib.streams.byte_controllers[b as usize].queue_total_size > 0 =>
            {
                rt.lib.streams.streams[s as usize].disturbed = true;
                Some(byte_streams::byte_controller_dequeue_chunk(rt, b))
            }
            _ => None,
        };
        if let Some(chunk) = chunk {
            let result = rt.create_iter_result(chunk, false);
            return Ok(Value::Object(rt.promise_resolve(result)));
        }
    }
    // `new DefaultReadRequest()`: its promise is all that is kept.
    let request = rt.new_promise();
    rt.holding(&[Value::Object(request)], |rt| {
        default_reader_read(rt, s, ReadRequest::Promise(request));
    });
    Ok(Value::Object(request))
}

/// `reader.releaseLock()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1030-L1036>.
pub fn reader_release_lock(rt: &mut Rt, reader: Value) -> Completion {
    let Some(r) = reader_of(rt, &reader) else {
        return Err(invalid_this(rt, "ReadableStreamDefaultReader"));
    };
    default_reader_release(rt, r);
    Ok(Value::Undefined)
}

/// `reader.cancel(reason)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1052-L1060>
/// and
/// <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2561-L2567>
/// `readableStreamReaderGenericCancel`.
pub fn reader_cancel(rt: &mut Rt, reader: Value, reason: Option<Value>) -> Completion {
    match attached_stream(rt, &reader) {
        Ok(s) => readable_stream_cancel(rt, s, reason.unwrap_or(Value::Undefined)),
        Err(error) => rejected(rt, error),
    }
}

/// The stream a reader method works on: Node's ERR_INVALID_THIS for a value
/// that is no default reader, ERR_INVALID_STATE for a released one (both
/// returned by `read()` and `cancel()` as rejected promises).
fn attached_stream(rt: &mut Rt, reader: &Value) -> Result<u32, Value> {
    let Some(r) = reader_of(rt, reader) else {
        return Err(invalid_this(rt, "ReadableStreamDefaultReader"));
    };
    rt.lib.streams.readers[r as usize]
        .stream
        .ok_or_else(|| invalid_state(rt, "The reader is not attached to a stream"))
}

/// A property of a stream object, or `None` when `obj` is none.
pub fn get(rt: &mut Rt, obj: ObjectId, prop: &str) -> Option<Completion> {
    Some(Ok(match rt.lib.slot(obj) {
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L341-L345>
        // `locked`.
        Slot::ReadableStream(s) if prop == "locked" => {
            Value::Bool(rt.lib.streams.streams[s as usize].reader.is_some())
        }
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1181-L1183>
        // and
        // <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2856-L2868>
        // `readableStreamDefaultControllerGetDesiredSize`.
        Slot::ReadableController(c) if prop == "desiredSize" => desired_size(rt, c),
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1042-L1046>
        // `closed`.
        Slot::ReadableReader(r) if prop == "closed" => Value::Object(reader_closed_promise(rt, r)),
        Slot::ReadableStream(_) | Slot::ReadableController(_) | Slot::ReadableReader(_) => {
            Value::Undefined
        }
        _ => return byte_streams::get(rt, obj, prop),
    }))
}

/// What a stream object is, or `None` when `obj` is none.
pub fn host_class(rt: &Rt, obj: ObjectId) -> Option<HostClass> {
    match rt.lib.slot(obj) {
        Slot::ReadableStream(_) => Some(HostClass::ReadableStream),
        Slot::ReadableController(_) => Some(HostClass::ReadableStreamDefaultController),
        Slot::ReadableReader(_) => Some(HostClass::ReadableStreamDefaultReader),
        _ => byte_streams::host_class(rt, obj),
    }
}

// ---- for the pipe and the transform stream ----------------------------

/// A stream's `kState.state`.
pub(crate) fn state(rt: &Rt, s: u32) -> StreamState {
    rt.lib.streams.streams[s as usize].state
}

/// A stream's `kState.storedError`.
pub(crate) fn stored_error(rt: &Rt, s: u32) -> Value {
    rt.lib.streams.streams[s as usize].stored_error.clone()
}

/// Whether a stream is locked to a reader.
pub(crate) fn is_locked(rt: &Rt, s: u32) -> bool {
    rt.lib.streams.streams[s as usize].reader.is_some()
}

/// A controller's `sizeAlgorithm = size`.
pub(crate) fn set_size(rt: &mut Rt, c: u32, size: Size) {
    rt.lib.streams.controllers[c as usize].size = size;
}

/// `source[kState].disturbed = true`.
pub(crate) fn set_disturbed(rt: &mut Rt, s: u32) {
    rt.lib.streams.streams[s as usize].disturbed = true;
}

/// A stream's default controller's index; `None` when its controller is a byte controller
/// (`isReadableStreamDefaultController` is false).
pub(crate) fn default_controller_index(rt: &Rt, s: u32) -> Option<u32> {
    match rt.lib.streams.streams[s as usize].controller {
        ControllerRef::Default(c) => Some(c),
        ControllerRef::Byte(_) => None,
    }
}

/// The default controller's index of a stream that has one (a TransformStream's readable side,
/// a `ReadableStream.from` stream).
pub(crate) fn controller_index(rt: &Rt, s: u32) -> u32 {
    default_controller_index(rt, s).expect("a stream with a default controller")
}

/// The length of a controller's queue.
pub(crate) fn queue_len(rt: &Rt, c: u32) -> usize {
    rt.lib.streams.controllers[c as usize].queue.len()
}

/// A controller's `closeRequested`.
pub(crate) fn close_requested(rt: &Rt, c: u32) -> bool {
    rt.lib.streams.controllers[c as usize].close_requested
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2856-L2868>
/// `readableStreamDefaultControllerGetDesiredSize`.
pub(crate) fn desired_size(rt: &Rt, c: u32) -> Value {
    let data = &rt.lib.streams.controllers[c as usize];
    match rt.lib.streams.streams[data.stream as usize].state {
        StreamState::Errored => Value::Null,
        StreamState::Closed => Value::Number(0.0),
        StreamState::Readable => Value::Number(data.high_water_mark - data.queue_total_size),
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2844-L2846>
/// `readableStreamDefaultControllerHasBackpressure`.
pub(crate) fn has_backpressure(rt: &Rt, c: u32) -> bool {
    !should_call_pull(rt, c)
}

/// Installs a pipe's (`p`) closed watcher on its reader: `reader[kState].close = new
/// ClosedPromiseHook(onSourceClosed, onSourceErrored)`.
pub(crate) fn set_pipe_hook(rt: &mut Rt, r: u32, p: u32) {
    rt.lib.streams.readers[r as usize].close = Some(Closed::PipeHook(p));
}

/// Which kind of `kState.close` a reader has (for tests).
#[cfg(test)]
#[derive(Debug)]
pub(crate) enum ClosedKind {
    Record,
    TeeHook,
    PipeHook(u32),
    ByteTeeHook,
}

#[cfg(test)]
impl Streams {
    /// The kind of a reader's `kState.close`.
    pub(crate) fn reader_close(&self, r: u32) -> Option<ClosedKind> {
        self.readers[r as usize].close.map(|c| match c {
            Closed::Record(_) => ClosedKind::Record,
            Closed::TeeHook(_) => ClosedKind::TeeHook,
            Closed::PipeHook(p) => ClosedKind::PipeHook(p),
            Closed::ByteTeeHook(..) => ClosedKind::ByteTeeHook,
        })
    }
}

/// `reader[kState].close = undefined`.
pub(crate) fn drop_reader_close(rt: &mut Rt, r: u32) {
    rt.lib.streams.readers[r as usize].close = None;
}

// ---- tee --------------------------------------------------------------

/// `stream.tee()`: the two branches, as an array.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L485-L489>
/// (`tee()`),
/// <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1938-L1943>
/// `readableStreamTee` (every stream here has a default controller) and
/// <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1945-L2074>
/// `readableStreamDefaultTee` without `cloneForBranch2` (false from `tee()`). Its closures share
/// one [`TeeData`]; the branches' algorithms are [`Algorithm::Tee`], its read request is
/// [`ReadRequest::Tee`] and its error watcher is [`Closed::TeeHook`].
pub fn tee(rt: &mut Rt, stream: Value) -> Completion {
    let Some(s) = stream_of(rt, &stream) else {
        return Err(invalid_this(rt, "ReadableStream"));
    };
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1938-L1943>
    // `readableStreamTee`: a byte stream gets `readableByteStreamTee`.
    if matches!(
        rt.lib.streams.streams[s as usize].controller,
        ControllerRef::Byte(_)
    ) {
        return byte_streams::byte_tee(rt, s);
    }
    // `new ReadableStreamDefaultReader(stream)`: throws on a locked stream.
    let reader = setup_default_reader(rt, s)?;
    let t = rt.lib.streams.tees.len() as u32;
    // Seed ("The tee's cancel promise is materialized by the first branch
    // cancel only"): no promise is made here; `CancelPromise::Unmade`
    // keeps Node's `cancelSettled` until a branch is cancelled.
    let tee_obj = alloc_host(rt, |_| Slot::TeeState(t));
    rt.lib.streams.tees.push(TeeData {
        obj: tee_obj,
        stream: s,
        reader,
        reading: false,
        canceled: [false; 2],
        reasons: [Value::Undefined, Value::Undefined],
        branches: [0, 0],
        cancel: CancelPromise::Unmade { settled: false },
    });
    // `createReadableStream(nonOpCallback, pullAlgorithm, cancelNAlgorithm)`:
    // highWaterMark 1; the start algorithm returns undefined, and with a
    // pull algorithm the post-start step stays a microtask.
    let mut objects = [Value::Undefined, Value::Undefined];
    for branch in 0..2u8 {
        let algorithm = Algorithm::Tee(t, branch);
        let (obj, _, index) = alloc_stream(rt, Value::Undefined, algorithm, algorithm, 1.0);
        rt.lib.streams.tees[t as usize].branches[branch as usize] = index;
        setup_default_controller(rt, index, None)?;
        objects[branch as usize] = Value::Object(obj);
    }
    watch_reader_errored(rt, t);
    let [branch1, branch2] = objects;
    Ok(rt.create_array_from_list(vec![branch1, branch2]))
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1562-L1573>
/// `watchReaderErrored`, with the tee's watcher (L2064-L2071).
///
/// Seed ("Closed watchers as records instead of promises"): the tee holds the only reference to its
/// reader, so the reader's `[[closedPromise]]` is never observed as a promise. Instead of making
/// it and adding a rejection reaction, the watcher is installed as the record itself
/// ([`Closed::TeeHook`]); [`readable_stream_error`] (and a release) settle the record where they
/// would have settled the promise, and [`tee_hook_reject`] queues the watcher at the microtask
/// position the reaction would have had. A stream already errored would have given a rejected
/// promise, whose reaction is queued at once: so is the watcher.
fn watch_reader_errored(rt: &mut Rt, t: u32) {
    let tee = &rt.lib.streams.tees[t as usize];
    let (s, r) = (tee.stream, tee.reader);
    let stream = &rt.lib.streams.streams[s as usize];
    if stream.state == StreamState::Errored {
        let error = stream.stored_error.clone();
        tee_hook_reject(rt, t, error);
        return;
    }
    rt.lib.streams.readers[r as usize].close = Some(Closed::TeeHook(t));
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1556-L1559>
/// `ClosedPromiseHook.prototype.reject`: the tee's error watcher, a microtask from now (where
/// `PromisePrototypeThen(kResolvedPromise, ...)` puts it).
fn tee_hook_reject(rt: &mut Rt, t: u32, error: Value) {
    let tee = Value::Object(rt.lib.streams.tees[t as usize].obj);
    rt.enqueue_microtask(Job::Task(captured(vec![tee, error.clone()], move |rt| {
        tee_source_errored(rt, t, error);
        Ok(Value::Undefined)
    })));
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2066-L2071>
/// the tee's error watcher: both branches error, and the cancel promise resolves unless both
/// branches were cancelled.
fn tee_source_errored(rt: &mut Rt, t: u32, error: Value) {
    let [b1, b2] = rt.lib.streams.tees[t as usize].branches;
    default_controller_error(rt, b1, error.clone());
    default_controller_error(rt, b2, error);
    if rt.lib.streams.tees[t as usize].canceled != [true, true] {
        settle_cancel_promise(rt, AnyTee::Default(t));
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2007-L2035>
/// the tee's `pullAlgorithm`: one read of the teed stream at a time, with the tee's read request.
fn tee_pull(rt: &mut Rt, t: u32) {
    let tee = &mut rt.lib.streams.tees[t as usize];
    if tee.reading {
        return;
    }
    tee.reading = true;
    // The reader still holds the stream: nothing releases a tee's reader.
    let s = tee.stream;
    default_reader_read(rt, s, ReadRequest::Tee(t));
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2011-L2016>
/// the tee's chunk steps: the chunk is forwarded a microtask later (the spec queues one), where
/// the reaction of `forwardChunk` (L1984-L2002) to the shared resolved promise runs.
fn tee_chunk_steps(rt: &mut Rt, t: u32, chunk: Value) {
    let tee = Value::Object(rt.lib.streams.tees[t as usize].obj);
    rt.enqueue_microtask(Job::Task(captured(vec![tee, chunk.clone()], move |rt| {
        rt.lib.streams.tees[t as usize].reading = false;
        // `canceled2` is read after branch 1's enqueue, which can pull
        // the teed stream and so run its pull().
        for branch in 0..2 {
            let tee = &rt.lib.streams.tees[t as usize];
            if !tee.canceled[branch] {
                let b = tee.branches[branch];
                // A branch has the default size algorithm: no throw.
                let _ = default_controller_enqueue(rt, b, chunk.clone());
            }
        }
        Ok(Value::Undefined)
    })));
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2017-L2030>
/// the tee's close steps, on `process.nextTick` (not in the spec; Node's): the branches not
/// cancelled close, and the cancel promise resolves unless both were.
fn tee_close_steps(rt: &mut Rt, t: u32) {
    let tee = Value::Object(rt.lib.streams.tees[t as usize].obj);
    rt.next_tick(captured(vec![tee], move |rt| {
        rt.lib.streams.tees[t as usize].reading = false;
        for branch in 0..2 {
            let tee = &rt.lib.streams.tees[t as usize];
            if !tee.canceled[branch] {
                let b = tee.branches[branch];
                default_controller_close(rt, b);
            }
        }
        if rt.lib.streams.tees[t as usize].canceled != [true, true] {
            settle_cancel_promise(rt, AnyTee::Default(t));
        }
        Ok(Value::Undefined)
    }));
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1961-L1966>
/// `settleCancelPromise`: resolve the cancel promise if a branch cancel made it, else remember
/// that it would have been resolved.
fn settle_cancel_promise(rt: &mut Rt, t: AnyTee) {
    match *cancel_of(rt, t) {
        CancelPromise::Unmade { .. } => {
            *cancel_of(rt, t) = CancelPromise::Unmade { settled: true };
        }
        CancelPromise::Made { .. } => resolve_cancel_promise(rt, t, Value::Undefined),
    }
}

/// A default tee or a byte tee: both keep their cancel promise the same way (Node's
/// `readableByteStreamTee` says "See readableStreamDefaultTee").
#[derive(Clone, Copy, Debug)]
enum AnyTee {
    /// A default tee's index.
    Default(u32),
    /// A byte tee's index.
    Byte(u32),
}

/// The tee's `cancelPromise` (`cancelDeferred` in the byte tee).
fn cancel_of(rt: &mut Rt, t: AnyTee) -> &mut CancelPromise {
    match t {
        AnyTee::Default(t) => &mut rt.lib.streams.tees[t as usize].cancel,
        AnyTee::Byte(t) => &mut rt.lib.streams.byte_tees[t as usize].cancel,
    }
}

/// `cancelPromise.resolve(value)`: ignored once it was called (the
/// resolving functions' [[AlreadyResolved]]).
fn resolve_cancel_promise(rt: &mut Rt, t: AnyTee, value: Value) {
    if let CancelPromise::Made {
        promise,
        resolved: false,
    } = *cancel_of(rt, t)
    {
        *cancel_of(rt, t) = CancelPromise::Made {
            promise,
            resolved: true,
        };
        rt.resolve_promise_with(promise, value);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1968-L1975>
/// `cancelPromiseRecord`.
///
/// Seed ("The tee's cancel promise is materialized by the first branch cancel only"): the promise
/// the spec makes in ReadableStreamDefaultTee is made here, by the first branch cancel, and
/// resolved at once if the source already closed or errored (`cancelSettled`). Nothing can tell:
/// before a branch cancel nothing holds the promise, and a promise resolved with undefined
/// earlier or now runs its reactions at the same positions, since they are added now.
fn cancel_promise_record(rt: &mut Rt, t: AnyTee) -> ObjectId {
    match *cancel_of(rt, t) {
        CancelPromise::Made { promise, .. } => promise,
        CancelPromise::Unmade { settled } => {
            let promise = rt.new_promise();
            *cancel_of(rt, t) = CancelPromise::Made {
                promise,
                resolved: false,
            };
            if settled {
                resolve_cancel_promise(rt, t, Value::Undefined);
            }
            promise
        }
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2037-L2057>
/// `cancel1Algorithm` and `cancel2Algorithm`: the branch's reason is kept; once both branches are
/// cancelled the teed stream is cancelled with both reasons and the cancel promise resolves with
/// that result. Returns the cancel promise.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L2043>
/// what the teed stream's cancel throws (a terminated transform's readable calling its cleared
/// cancel algorithm) is thrown out of here, before the cancel promise is resolved, so that it
/// stays pending.
fn tee_cancel(rt: &mut Rt, t: u32, branch: u8, reason: Value) -> Result<ObjectId, Value> {
    let branch = usize::from(branch & 1);
    let tee = &mut rt.lib.streams.tees[t as usize];
    tee.canceled[branch] = true;
    tee.reasons[branch] = reason;
    let promise = cancel_promise_record(rt, AnyTee::Default(t));
    let tee = &rt.lib.streams.tees[t as usize];
    if tee.canceled[1 - branch] {
        let (s, reasons) = (tee.stream, tee.reasons.clone());
        let composite = rt.create_array_from_list(reasons.to_vec());
        let cancelled = readable_stream_cancel(rt, s, composite)?;
        resolve_cancel_promise(rt, AnyTee::Default(t), cancelled);
    } else if rt.lib.mutant == Some(Mutant::TeeCancelResolvedEarly) {
        resolve_cancel_promise(rt, AnyTee::Default(t), Value::Undefined);
    }
    Ok(promise)
}

// ---- the collector's view --------------------------------------------------

/// A native task that lists what it captured (`Task::Captured`).
pub(crate) fn captured(
    values: Vec<Value>,
    f: impl FnOnce(&mut Rt) -> Completion + 'static,
) -> Task<Impl> {
    Task::Captured(Box::new(f), Captures::values(values))
}

/// A default controller's object, as a value.
pub(crate) fn controller_value(rt: &Rt, c: u32) -> Value {
    Value::Object(rt.lib.streams.controllers[c as usize].obj)
}

/// A stream's object.
pub(crate) fn stream_obj(rt: &Rt, s: u32) -> ObjectId {
    rt.lib.streams.streams[s as usize].obj
}

/// The object of a stream's `kState.controller`.
fn stream_controller_obj(rt: &Rt, s: u32) -> ObjectId {
    match rt.lib.streams.streams[s as usize].controller {
        ControllerRef::Default(c) => rt.lib.streams.controllers[c as usize].obj,
        ControllerRef::Byte(b) => byte_streams::byte_controller_obj(rt, b),
    }
}

/// What a read request holds, as one value (its promise, or the object standing for the
/// closures' state whose steps it runs): what a caller keeps alive while it holds the request.
fn read_request_value(rt: &Rt, request: ReadRequest) -> Value {
    Value::Object(match request {
        ReadRequest::Promise(p) => p,
        ReadRequest::Tee(t) => rt.lib.streams.tees[t as usize].obj,
        ReadRequest::Iterator(i) => crate::iterate::iterator_state_obj(rt, i),
        ReadRequest::Pipe(p) => crate::pipe::state_obj(rt, p),
        ReadRequest::ByteTee(t) => byte_streams::byte_tee_obj(rt, t),
    })
}

/// The objects an underlying-source algorithm holds: the source's method, or the closures'
/// state of a tee, a `from()` stream or a transform stream. A cleared algorithm holds nothing.
fn trace_algorithm(rt: &Rt, algorithm: Algorithm, edges: &mut Vec<Value>) {
    match algorithm {
        Algorithm::Source(f) => edges.push(Value::Object(f)),
        Algorithm::Tee(t, _) => edges.push(Value::Object(rt.lib.streams.tees[t as usize].obj)),
        Algorithm::From(f) => edges.push(Value::Object(crate::iterate::from_state_obj(rt, f))),
        Algorithm::Transform(t) => {
            edges.push(Value::Object(crate::transformstream::stream_obj(rt, t)));
        }
        Algorithm::NonOp | Algorithm::Cleared => {}
    }
}

/// What a reader's `kState` holds (its object too, for a holder of the reader: a stream's
/// `kState.reader`, a tee, a pipe, an async iterator): the stream while attached, the parked
/// read (and read-into) requests, the `close` record or the hook standing for its watchers.
pub(crate) fn trace_reader(rt: &Rt, r: u32, edges: &mut Vec<Value>) {
    let data = &rt.lib.streams.readers[r as usize];
    if let Some(obj) = data.obj {
        edges.push(Value::Object(obj));
    }
    if let Some(s) = data.stream {
        edges.push(Value::Object(stream_obj(rt, s)));
    }
    for &request in &data.read_requests {
        edges.push(read_request_value(rt, request));
    }
    for &request in &data.read_into_requests {
        byte_streams::trace_read_into_request(rt, request, edges);
    }
    match data.close {
        Some(Closed::Record(close)) => edges.push(Value::Object(close.promise)),
        Some(Closed::PipeHook(p)) => edges.push(Value::Object(crate::pipe::state_obj(rt, p))),
        Some(Closed::TeeHook(t)) => edges.push(Value::Object(rt.lib.streams.tees[t as usize].obj)),
        Some(Closed::ByteTeeHook(t, _)) => {
            edges.push(Value::Object(byte_streams::byte_tee_obj(rt, t)))
        }
        None => {}
    }
}

/// The cancel promise of a tee, once made.
fn trace_cancel_promise(cancel: CancelPromise, edges: &mut Vec<Value>) {
    if let CancelPromise::Made { promise, .. } = cancel {
        edges.push(Value::Object(promise));
    }
}

/// The strong edges of a readable stream object (byte streams' included); false when `slot`
/// is none.
pub(crate) fn trace(rt: &Rt, slot: Slot, edges: &mut Vec<Value>) -> bool {
    match slot {
        Slot::ReadableStream(s) => {
            let data = &rt.lib.streams.streams[s as usize];
            edges.push(Value::Object(stream_controller_obj(rt, s)));
            edges.push(data.stored_error.clone());
            if let Some(r) = data.reader {
                trace_reader(rt, r, edges);
            }
        }
        Slot::ReadableController(c) => {
            let data = &rt.lib.streams.controllers[c as usize];
            edges.push(Value::Object(stream_obj(rt, data.stream)));
            edges.push(data.source.clone());
            trace_algorithm(rt, data.pull, edges);
            trace_algorithm(rt, data.cancel, edges);
            if let Size::Script(f) = data.size {
                edges.push(Value::Object(f));
            }
            if let Some((f, r)) = data.pull_reactions {
                edges.push(Value::Object(f));
                edges.push(Value::Object(r));
            }
            edges.extend(data.queue.iter().map(|(v, _)| v.clone()));
        }
        Slot::ReadableReader(r) | Slot::ByobReader(r) => trace_reader(rt, r, edges),
        Slot::TeeState(t) => {
            let tee = &rt.lib.streams.tees[t as usize];
            edges.push(Value::Object(stream_obj(rt, tee.stream)));
            trace_reader(rt, tee.reader, edges);
            edges.extend(tee.reasons.iter().cloned());
            for &b in &tee.branches {
                let branch = &rt.lib.streams.controllers[b as usize];
                edges.push(Value::Object(stream_obj(rt, branch.stream)));
            }
            trace_cancel_promise(tee.cancel, edges);
        }
        _ => return byte_streams::trace(rt, slot, edges),
    }
    true
}

/// The library-wide objects of the streams (Node's module-level `kResolvedPromise`,
/// `kPendingPromise`, the shared errors and the no-op reaction): roots.
pub(crate) fn roots(rt: &Rt, roots: &mut Vec<Value>) {
    let st = &rt.lib.streams;
    roots.extend(
        st.resolved
            .into_iter()
            .chain(st.noop)
            .chain(st.pending)
            .map(Value::Object),
    );
    roots.extend(st.released_error.iter().chain(&st.releasing_error).cloned());
}

/// Forgets the records of collected readable stream objects: their held values are dropped
/// (no live object reaches them: the invariant checks that).
pub(crate) fn forget(rt: &mut Rt, slot: Slot) {
    let st = &mut rt.lib.streams;
    match slot {
        Slot::ReadableStream(s) => st.streams[s as usize].stored_error = Value::Undefined,
        Slot::ReadableController(c) => {
            let data = &mut st.controllers[c as usize];
            data.source = Value::Undefined;
            data.pull = Algorithm::Cleared;
            data.cancel = Algorithm::Cleared;
            data.size = Size::Cleared;
            data.pull_reactions = None;
            data.queue = VecDeque::new();
        }
        Slot::ReadableReader(r) | Slot::ByobReader(r) => {
            let data = &mut st.readers[r as usize];
            data.read_requests = VecDeque::new();
            data.read_into_requests = VecDeque::new();
            data.close = None;
        }
        Slot::TeeState(t) => {
            let tee = &mut st.tees[t as usize];
            tee.reasons = [Value::Undefined, Value::Undefined];
        }
        _ => byte_streams::forget(rt, slot),
    }
}

#[cfg(test)]
mod tests {
    //! The seed's fast path, which no log shows: when the started flag is
    //! set, and whether the post-start step allocated anything.

    use nodesem_lang::RunConfig;
    use nodesem_runtime::{Library, ObjectData, Runtime, UnderlyingSource, Value};

    use crate::Impl;

    fn source(rt: &mut super::Rt, start_result: Option<Value>, pull: bool) -> UnderlyingSource {
        let start = start_result.map(|v| rt.native_function(move |_, _, _| Ok(v.clone())));
        let pull = pull.then(|| rt.native_function(|_, _, _| Ok(Value::Undefined)));
        UnderlyingSource {
            object: Value::Object(rt.heap.alloc(ObjectData::Plain)),
            start,
            pull,
            cancel: None,
        }
    }

    /// Whether the stream's controller is started right after the
    /// constructor returns, and how many heap objects the post-start step
    /// made (the stream and controller are two).
    fn after_construction(start_result: Option<Value>, pull: bool) -> (bool, usize) {
        let mut rt = Runtime::<Impl>::pooled(RunConfig::default());
        let src = source(&mut rt, start_result, pull);
        let before = rt.heap.len();
        Impl::new_readable_stream(&mut rt, src, nodesem_runtime::QueuingStrategy::default())
            .unwrap();
        let made = rt.heap.len() - before;
        (rt.lib.streams.controllers[0].started, made)
    }

    #[test]
    fn a_source_without_pull_starts_synchronously_and_allocates_nothing() {
        // Seed ("No post-start microtask for sources without pull()").
        assert_eq!(after_construction(None, false), (true, 2));
        assert_eq!(
            after_construction(Some(Value::Number(1.0)), false),
            (true, 2)
        );
        assert_eq!(after_construction(Some(Value::Null), false), (true, 2));
    }

    #[test]
    fn a_source_with_pull_keeps_the_post_start_microtask() {
        // A microtask (a native task, no heap object), not yet run.
        assert_eq!(after_construction(None, true), (false, 2));
        assert_eq!(after_construction(Some(Value::Undefined), true), (false, 2));
    }

    #[test]
    fn an_object_from_start_keeps_the_reaction_even_without_pull() {
        let mut rt = Runtime::<Impl>::pooled(RunConfig::default());
        let p = rt.new_promise();
        let src = source(&mut rt, Some(Value::Object(p)), false);
        Impl::new_readable_stream(&mut rt, src, nodesem_runtime::QueuingStrategy::default())
            .unwrap();
        assert!(!rt.lib.streams.controllers[0].started);
        let ObjectData::Promise(data) = rt.heap.get(p) else {
            panic!("not a promise");
        };
        // The wrapper's NewPromiseResolveThenableJob is queued; no reaction
        // on the start promise yet, nothing marked handled.
        assert!(data.fulfill_reactions.is_empty() && !data.is_handled);
    }

    /// A stream without methods, teed: the heap objects tee() made.
    fn teed() -> (Box<super::Rt>, Value, usize) {
        let mut rt = Runtime::<Impl>::pooled(RunConfig::default());
        let src = source(&mut rt, None, false);
        let s =
            Impl::new_readable_stream(&mut rt, src, nodesem_runtime::QueuingStrategy::default())
                .unwrap();
        let before = rt.heap.len();
        let branches = Impl::readable_tee(&mut rt, s.clone()).unwrap();
        let made = rt.heap.len() - before;
        (rt, branches, made)
    }

    fn branch(rt: &super::Rt, branches: &Value, i: usize) -> Value {
        match rt.heap.get(branches.as_object().unwrap()) {
            ObjectData::Array(items) => items[i].clone(),
            _ => panic!("not an array"),
        }
    }

    #[test]
    fn a_tee_makes_its_cancel_promise_on_the_first_branch_cancel() {
        // Seed ("The tee's cancel promise is materialized by the first
        // branch cancel only"): two streams, two controllers, the array and
        // the hidden object standing for the closures' shared state (for the
        // collector); no promise, no resolvers, no reader object.
        let (mut rt, branches, made) = teed();
        assert_eq!(made, 6);
        assert!(matches!(
            rt.lib.streams.tees[0].cancel,
            super::CancelPromise::Unmade { settled: false }
        ));
        let b1 = branch(&rt, &branches, 0);
        Impl::readable_cancel(&mut rt, b1, None).unwrap();
        assert!(matches!(
            rt.lib.streams.tees[0].cancel,
            super::CancelPromise::Made {
                resolved: false,
                ..
            }
        ));
    }

    #[test]
    fn a_tee_watches_its_reader_with_a_hook() {
        // Seed ("Closed watchers as records instead of promises"): the
        // reader's closed record is the tee's hook, and erroring the source
        // queues the watcher without making a promise for it.
        let mut rt = Runtime::<Impl>::pooled(RunConfig::default());
        let held = std::rc::Rc::new(std::cell::RefCell::new(Value::Undefined));
        let keep = held.clone();
        let start = rt.native_function(move |_, _, args| {
            *keep.borrow_mut() = args[0].clone();
            Ok(Value::Undefined)
        });
        let src = UnderlyingSource {
            object: Value::Object(rt.heap.alloc(ObjectData::Plain)),
            start: Some(start),
            pull: None,
            cancel: None,
        };
        let s =
            Impl::new_readable_stream(&mut rt, src, nodesem_runtime::QueuingStrategy::default())
                .unwrap();
        Impl::readable_tee(&mut rt, s).unwrap();
        let r = rt.lib.streams.tees[0].reader as usize;
        assert!(matches!(
            rt.lib.streams.readers[r].close,
            Some(super::Closed::TeeHook(0))
        ));
        let error = Value::string("bad");
        let before = rt.heap.len();
        let c = held.borrow().clone();
        Impl::readable_controller_error(&mut rt, c, error).unwrap();
        assert_eq!(rt.heap.len(), before);
    }

    #[test]
    fn wrong_kinds_get_node_errors_not_panics() {
        let mut rt = Runtime::<Impl>::pooled(RunConfig::default());
        let plain = Value::Object(rt.heap.alloc(ObjectData::Plain));
        for v in [Value::Undefined, Value::Number(1.0), plain] {
            assert!(Impl::readable_get_reader(&mut rt, v.clone()).is_err());
            assert!(Impl::reader_release_lock(&mut rt, v.clone()).is_err());
            assert!(Impl::readable_controller_enqueue(&mut rt, v.clone(), Value::Null).is_err());
            assert!(Impl::readable_controller_close(&mut rt, v.clone()).is_err());
            assert!(Impl::readable_controller_error(&mut rt, v.clone(), Value::Null).is_err());
            assert!(Impl::readable_tee(&mut rt, v.clone()).is_err());
            for p in [
                Impl::readable_cancel(&mut rt, v.clone(), None),
                Impl::reader_read(&mut rt, v.clone()),
                Impl::reader_cancel(&mut rt, v.clone(), None),
            ] {
                assert!(rt.is_promise(&p.unwrap()));
            }
        }
        let e = Impl::readable_get_reader(&mut rt, Value::Null).unwrap_err();
        let code = rt.get_property(&e, "code").unwrap();
        assert_eq!(code, Value::string("ERR_INVALID_THIS"));
    }
}
