//! The Streams Standard's `TransformStream` and
//! `TransformStreamDefaultController`, transcribed: each abstract operation
//! is a function named after it, with its steps quoted above the code, and
//! each internal slot is a field named after it.
//!
//! It exists because a TransformStream couples a WritableStream and a
//! ReadableStream through [[backpressure]]: when a chunk written reaches the
//! transformer, and when the readable side's pull lets the next one
//! through, is where Node's continuation slots (which replace the spec's
//! [[backpressureChangePromise]]) could move a microtask.
//!
//! Streams Standard: <https://streams.spec.whatwg.org/#ts-model>.
//! Node 26.12.1: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js>.
//!
//! The departures of Node 26.12.1 that scenarios can observe, each marked
//! `NODE:` where it happens:
//!
//! - a promise returned by `transform` is used as it is (the spec converts
//!   it, two microtasks later);
//! - a write parked on backpressure resumes from a microtask queued when
//!   backpressure goes away and hands the transform's promise straight to
//!   the writable controller (the spec's reaction returns it, and its
//!   derived promise adopts it two microtasks later);
//! - the sink's abort algorithm is an async function: the writable side
//!   sees its finish promise two microtasks later;
//! - the errors are Node's `ERR_INVALID_STATE` TypeErrors.

use nodesem_runtime::{
    Completion, HostClass, Job, ObjectData, ObjectId, QueuingStrategy, Runtime, Task, Transformer,
    Value,
};

use nodesem_runtime::gc::Captures;

use crate::slots::Slots;
use crate::streams::{
    self, a_new_promise, a_promise_rejected_with, a_promise_resolved_with, err_invalid_state,
    reject, resolve, upon_settlement, CancelAlgorithm, PullAlgorithm, ReadableStreamState,
};
use crate::writable::{
    self, AbortAlgorithm, AlgorithmResult, CloseAlgorithm, StartAlgorithm, WritableStreamState,
    WriteAlgorithm,
};
use crate::Model;

type Rt = Runtime<Model>;

/// The internal slots of a TransformStream
/// (<https://streams.spec.whatwg.org/#ts-internal-slots>).
#[derive(Debug)]
pub struct TransformStream {
    /// [[backpressure]]: undefined until InitializeTransformStream sets it.
    pub backpressure: Option<bool>,
    /// [[backpressureChangePromise]].
    pub backpressure_change_promise: Option<ObjectId>,
    /// [[controller]].
    pub controller: Option<ObjectId>,
    /// [[readable]].
    pub readable: Option<ObjectId>,
    /// [[writable]].
    pub writable: Option<ObjectId>,
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L232-L239>
    /// `pendingWriteParked` and `pendingWriteChunk`: the chunk of a write
    /// that arrived under backpressure, until backpressure goes away.
    pub parked_write: Option<Value>,
}

/// A controller's [[transformAlgorithm]].
#[derive(Clone, Copy, Debug)]
pub enum TransformAlgorithm {
    /// The default: enqueue the chunk unchanged.
    Enqueue,
    /// Invoking the transformer's `transform` with « chunk, controller ».
    Invoke(ObjectId),
}

/// A controller's [[flushAlgorithm]] or [[cancelAlgorithm]].
#[derive(Clone, Copy, Debug)]
pub enum PromiseAlgorithm {
    /// "an algorithm which returns a promise resolved with undefined".
    ResolveUndefined,
    /// Invoking the transformer's method.
    Invoke(ObjectId),
}

/// The internal slots of a TransformStreamDefaultController
/// (<https://streams.spec.whatwg.org/#ts-default-controller-internal-slots>).
#[derive(Debug)]
pub struct TransformStreamDefaultController {
    /// [[cancelAlgorithm]]: undefined once cleared.
    pub cancel_algorithm: Option<PromiseAlgorithm>,
    /// [[finishPromise]].
    pub finish_promise: Option<ObjectId>,
    /// [[flushAlgorithm]]: undefined once cleared.
    pub flush_algorithm: Option<PromiseAlgorithm>,
    /// [[stream]].
    pub stream: ObjectId,
    /// [[transformAlgorithm]]: undefined once cleared.
    pub transform_algorithm: Option<TransformAlgorithm>,
    /// The transformer object: the callback this value of its methods.
    pub transformer: Value,
}

/// The transform streams' state for one scenario.
#[derive(Debug, Default)]
pub struct Transforms {
    /// Every TransformStream.
    streams: Slots<TransformStream>,
    /// Every TransformStreamDefaultController.
    controllers: Slots<TransformStreamDefaultController>,
}

impl Transforms {
    /// Empties the state for another scenario.
    pub fn clear(&mut self) {
        let Transforms {
            streams,
            controllers,
        } = self;
        streams.clear();
        controllers.clear();
    }

    /// Forgets a collected object.
    pub(crate) fn forget(&mut self, id: &ObjectId) {
        self.streams.remove(id);
        self.controllers.remove(id);
    }

    /// The objects with slots here.
    pub(crate) fn ids(&self) -> impl Iterator<Item = ObjectId> + '_ {
        self.streams.ids().chain(self.controllers.ids())
    }
}

/// The strong edges of a TransformStream or its controller: their slots
/// (<https://streams.spec.whatwg.org/#ts-internal-slots>).
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L498-L521>
/// (`setupTransformStreamDefaultControllerFromTransformer`) the algorithms are the transformer's methods bound to the transformer:
/// it is held while one of them is.
pub(crate) fn trace(rt: &Rt, obj: ObjectId, edges: &mut Vec<Value>) {
    let t = &rt.lib.transform;
    if let Some(s) = t.streams.get(&obj) {
        edges.extend(s.backpressure_change_promise.map(Value::Object));
        edges.extend(s.controller.map(Value::Object));
        edges.extend(s.readable.map(Value::Object));
        edges.extend(s.writable.map(Value::Object));
        edges.extend(s.parked_write.iter().cloned());
    }
    if let Some(c) = t.controllers.get(&obj) {
        let mut invoked = false;
        if let Some(TransformAlgorithm::Invoke(f)) = c.transform_algorithm {
            invoked = true;
            edges.push(Value::Object(f));
        }
        for algorithm in [c.flush_algorithm, c.cancel_algorithm]
            .into_iter()
            .flatten()
        {
            if let PromiseAlgorithm::Invoke(f) = algorithm {
                invoked = true;
                edges.push(Value::Object(f));
            }
        }
        if invoked {
            edges.push(c.transformer.clone());
        }
        edges.extend(c.finish_promise.map(Value::Object));
        edges.push(Value::Object(c.stream));
    }
}

fn ts(rt: &Rt, id: ObjectId) -> &TransformStream {
    &rt.lib.transform.streams[&id]
}

fn ts_mut(rt: &mut Rt, id: ObjectId) -> &mut TransformStream {
    rt.lib
        .transform
        .streams
        .get_mut(&id)
        .expect("a TransformStream")
}

fn controller(rt: &Rt, id: ObjectId) -> &TransformStreamDefaultController {
    &rt.lib.transform.controllers[&id]
}

fn controller_mut(rt: &mut Rt, id: ObjectId) -> &mut TransformStreamDefaultController {
    rt.lib
        .transform
        .controllers
        .get_mut(&id)
        .expect("a TransformStreamDefaultController")
}

fn ts_controller(rt: &Rt, s: ObjectId) -> ObjectId {
    ts(rt, s)
        .controller
        .expect("the transform stream's controller")
}

/// A TransformStream's [[readable]].
pub(crate) fn readable(rt: &Rt, s: ObjectId) -> ObjectId {
    ts(rt, s).readable.expect("the transform stream's readable")
}

/// A TransformStream's [[writable]].
pub(crate) fn writable_side(rt: &Rt, s: ObjectId) -> ObjectId {
    ts(rt, s).writable.expect("the transform stream's writable")
}

/// Whether `obj` is a TransformStream.
pub(crate) fn is_transform_stream(rt: &Rt, obj: ObjectId) -> bool {
    rt.lib.transform.streams.contains_key(&obj)
}

fn readable_controller(rt: &Rt, s: ObjectId) -> ObjectId {
    streams::stream_controller(rt, readable(rt, s))
}

fn writable_controller(rt: &Rt, s: ObjectId) -> ObjectId {
    writable::stream_controller(rt, writable_side(rt, s))
}

fn controller_operand(rt: &mut Rt, value: Value, prop: &str) -> Result<ObjectId, Value> {
    match value {
        Value::Object(id) if rt.lib.transform.controllers.contains_key(&id) => Ok(id),
        other => Err(crate::cannot_read(rt, &other, prop)),
    }
}

/// "Queue a reaction on a resolved promise": Node's
/// `PromisePrototypeThen(kResolvedPromise, f)`, a job at the end of the
/// microtask queue.
///
/// `captures` lists what `f` closes over, for the collector.
fn on_resolved_promise(rt: &mut Rt, captures: &[Value], f: impl FnOnce(&mut Rt) + 'static) {
    let task = move |rt: &mut Rt| {
        f(rt);
        Ok(Value::Undefined)
    };
    let captures = Captures::values(captures.to_vec());
    rt.enqueue_microtask(Job::Task(Task::Captured(Box::new(task), captures)));
}

// ---- the TransformStream class --------------------------------------------

/// `new TransformStream(transformer, writableStrategy, readableStrategy)`
/// (<https://streams.spec.whatwg.org/#ts-constructor>).
pub fn new_transform_stream(
    rt: &mut Rt,
    transformer: Transformer,
    writable_strategy: QueuingStrategy,
    readable_strategy: QueuingStrategy,
) -> Completion {
    // 1. If transformer is missing, set it to null.
    // 2. Let transformerDict be transformer, converted to an IDL value of
    //    type Transformer.
    // 3. If transformerDict["readableType"] exists, throw a RangeError exception.
    // 4. If transformerDict["writableType"] exists, throw a RangeError exception.
    // MODEL: the scenario's transformer has neither.
    // 5. Let readableHighWaterMark be ? ExtractHighWaterMark(readableStrategy, 0).
    let readable_high_water_mark =
        streams::extract_high_water_mark(rt, readable_strategy.high_water_mark, 0.0)?;
    // 6. Let readableSizeAlgorithm be ! ExtractSizeAlgorithm(readableStrategy).
    let readable_size_algorithm = writable::extract_size_algorithm(&readable_strategy);
    // 7. Let writableHighWaterMark be ? ExtractHighWaterMark(writableStrategy, 1).
    let writable_high_water_mark =
        streams::extract_high_water_mark(rt, writable_strategy.high_water_mark, 1.0)?;
    // 8. Let writableSizeAlgorithm be ! ExtractSizeAlgorithm(writableStrategy).
    let writable_size_algorithm = writable::extract_size_algorithm(&writable_strategy);
    // 9. Let startPromise be a new promise.
    let start_promise = a_new_promise(rt);
    let this = rt.heap.alloc(ObjectData::Host);
    // 10. Perform ! InitializeTransformStream(this, startPromise,
    //     writableHighWaterMark, writableSizeAlgorithm,
    //     readableHighWaterMark, readableSizeAlgorithm).
    initialize_transform_stream(
        rt,
        this,
        start_promise,
        writable_high_water_mark,
        writable_size_algorithm,
        readable_high_water_mark,
        readable_size_algorithm,
    );
    // 11. Perform ? SetUpTransformStreamDefaultControllerFromTransformer(
    //     this, transformer, transformerDict).
    set_up_transform_stream_default_controller_from_transformer(rt, this, &transformer);
    // 12. If transformerDict["start"] exists, then resolve startPromise with
    //     the result of invoking transformerDict["start"] with argument list
    //     « this.[[controller]] » and callback this value transformer.
    // 13. Otherwise, resolve startPromise with undefined.
    let result = match transformer.start {
        Some(start) => {
            let c = ts_controller(rt, this);
            // (The stream and startPromise, which the script has not seen,
            // are rooted for the call, as the constructor's frame holds
            // them.)
            streams::call_rooted(
                rt,
                start,
                transformer.object.clone(),
                &[Value::Object(c)],
                &[Value::Object(this), Value::Object(start_promise)],
            )?
        }
        None => Value::Undefined,
    };
    resolve(rt, start_promise, result);
    Ok(Value::Object(this))
}

// ---- transform stream abstract operations ---------------------------------

/// InitializeTransformStream(stream, startPromise, writableHighWaterMark,
/// writableSizeAlgorithm, readableHighWaterMark, readableSizeAlgorithm)
/// (<https://streams.spec.whatwg.org/#initialize-transform-stream>).
fn initialize_transform_stream(
    rt: &mut Rt,
    stream: ObjectId,
    start_promise: ObjectId,
    writable_high_water_mark: f64,
    writable_size_algorithm: streams::SizeAlgorithm,
    readable_high_water_mark: f64,
    readable_size_algorithm: streams::SizeAlgorithm,
) {
    rt.lib.transform.streams.insert(
        stream,
        TransformStream {
            // 9. Set stream.[[backpressure]] and
            //    stream.[[backpressureChangePromise]] to undefined.
            backpressure: None,
            backpressure_change_promise: None,
            // 11. Set stream.[[controller]] to undefined.
            controller: None,
            readable: None,
            writable: None,
            parked_write: None,
        },
    );
    // 1. Let startAlgorithm be an algorithm that returns startPromise.
    let start_algorithm = StartAlgorithm::ReturnPromise(start_promise);
    // 2. Let writeAlgorithm be the following steps, taking a chunk argument:
    //    1. Return ! TransformStreamDefaultSinkWriteAlgorithm(stream, chunk).
    // 3. Let abortAlgorithm be the following steps, taking a reason argument:
    //    1. Return ! TransformStreamDefaultSinkAbortAlgorithm(stream, reason).
    // 4. Let closeAlgorithm be the following steps:
    //    1. Return ! TransformStreamDefaultSinkCloseAlgorithm(stream).
    // 5. Set stream.[[writable]] to ! CreateWritableStream(startAlgorithm,
    //    writeAlgorithm, closeAlgorithm, abortAlgorithm,
    //    writableHighWaterMark, writableSizeAlgorithm).
    let w = writable::create_writable_stream(
        rt,
        start_algorithm,
        WriteAlgorithm::Transform(stream),
        CloseAlgorithm::Transform(stream),
        AbortAlgorithm::Transform(stream),
        writable_high_water_mark,
        writable_size_algorithm,
    );
    ts_mut(rt, stream).writable = Some(w);
    // 6. Let pullAlgorithm be the following steps:
    //    1. Return ! TransformStreamDefaultSourcePullAlgorithm(stream).
    // 7. Let cancelAlgorithm be the following steps, taking a reason argument:
    //    1. Return ! TransformStreamDefaultSourceCancelAlgorithm(stream, reason).
    // 8. Set stream.[[readable]] to ! CreateReadableStream(startAlgorithm,
    //    pullAlgorithm, cancelAlgorithm, readableHighWaterMark,
    //    readableSizeAlgorithm).
    let r = create_readable_stream(
        rt,
        start_algorithm,
        PullAlgorithm::Transform { stream },
        CancelAlgorithm::Transform { stream },
        readable_high_water_mark,
        readable_size_algorithm,
    );
    ts_mut(rt, stream).readable = Some(r);
    // 10. Perform ! TransformStreamSetBackpressure(stream, true).
    transform_stream_set_backpressure(rt, stream, true);
}

/// CreateReadableStream(startAlgorithm, pullAlgorithm, cancelAlgorithm,
/// highWaterMark, sizeAlgorithm)
/// (<https://streams.spec.whatwg.org/#create-readable-stream>).
fn create_readable_stream(
    rt: &mut Rt,
    start_algorithm: StartAlgorithm,
    pull_algorithm: PullAlgorithm,
    cancel_algorithm: CancelAlgorithm,
    high_water_mark: f64,
    size_algorithm: streams::SizeAlgorithm,
) -> ObjectId {
    // 3. Assert: ! IsNonNegativeNumber(highWaterMark) is true.
    assert!(high_water_mark >= 0.0);
    // 4. Let stream be a new ReadableStream.
    let s = rt.heap.alloc(ObjectData::Host);
    // 5. Perform ! InitializeReadableStream(stream).
    streams::initialize_readable_stream(rt, s);
    // 6. Let controller be a new ReadableStreamDefaultController.
    let c = rt.heap.alloc(ObjectData::Host);
    // 7. Perform ? SetUpReadableStreamDefaultController(stream, controller,
    //    startAlgorithm, pullAlgorithm, cancelAlgorithm, highWaterMark,
    //    sizeAlgorithm).
    streams::set_up_readable_stream_default_controller(
        rt,
        s,
        c,
        Value::Undefined,
        start_algorithm,
        pull_algorithm,
        cancel_algorithm,
        high_water_mark,
        size_algorithm,
    )
    .expect("a start algorithm that returns a promise does not throw");
    // 8. Return stream.
    s
}

/// TransformStreamError(stream, e)
/// (<https://streams.spec.whatwg.org/#transform-stream-error>).
fn transform_stream_error(rt: &mut Rt, stream: ObjectId, e: Value) {
    // 1. Perform ! ReadableStreamDefaultControllerError(
    //    stream.[[readable]].[[controller]], e).
    let rc = readable_controller(rt, stream);
    streams::readable_stream_default_controller_error(rt, rc, e.clone());
    // 2. Perform ! TransformStreamErrorWritableAndUnblockWrite(stream, e).
    transform_stream_error_writable_and_unblock_write(rt, stream, e);
}

/// TransformStreamErrorWritableAndUnblockWrite(stream, e)
/// (<https://streams.spec.whatwg.org/#transform-stream-error-writable-and-unblock-write>).
fn transform_stream_error_writable_and_unblock_write(rt: &mut Rt, stream: ObjectId, e: Value) {
    // 1. Perform ! TransformStreamDefaultControllerClearAlgorithms(
    //    stream.[[controller]]).
    let c = ts_controller(rt, stream);
    transform_stream_default_controller_clear_algorithms(rt, c);
    // 2. Perform ! WritableStreamDefaultControllerErrorIfNeeded(
    //    stream.[[writable]].[[controller]], e).
    let wc = writable_controller(rt, stream);
    writable::writable_stream_default_controller_error_if_needed(rt, wc, e);
    // 3. Perform ! TransformStreamUnblockWrite(stream).
    transform_stream_unblock_write(rt, stream);
}

/// TransformStreamSetBackpressure(stream, backpressure)
/// (<https://streams.spec.whatwg.org/#transform-stream-set-backpressure>).
fn transform_stream_set_backpressure(rt: &mut Rt, stream: ObjectId, backpressure: bool) {
    // 1. Assert: stream.[[backpressure]] is not backpressure.
    assert_ne!(ts(rt, stream).backpressure, Some(backpressure));
    // 2. If stream.[[backpressureChangePromise]] is not undefined, resolve
    //    stream.[[backpressureChangePromise]] with undefined.
    if let Some(p) = ts(rt, stream).backpressure_change_promise {
        resolve(rt, p, Value::Undefined);
    }
    // 3. Set stream.[[backpressureChangePromise]] to a new promise.
    let p = a_new_promise(rt);
    ts_mut(rt, stream).backpressure_change_promise = Some(p);
    // 4. Set stream.[[backpressure]] to backpressure.
    ts_mut(rt, stream).backpressure = Some(backpressure);
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L428-L430
    // a write parked under backpressure resumes from a microtask queued now
    // (`PromisePrototypeThen(kResolvedPromise, state.writeContinuation)`),
    // the position of the spec's reaction to the promise resolved above.
    if !backpressure {
        if let Some(chunk) = ts_mut(rt, stream).parked_write.take() {
            let captures = [Value::Object(stream), chunk.clone()];
            on_resolved_promise(rt, &captures, move |rt| {
                parked_write_continuation(rt, stream, chunk)
            });
        }
    }
}

/// TransformStreamUnblockWrite(stream)
/// (<https://streams.spec.whatwg.org/#transform-stream-unblock-write>).
fn transform_stream_unblock_write(rt: &mut Rt, stream: ObjectId) {
    // 1. If stream.[[backpressure]] is true, perform !
    //    TransformStreamSetBackpressure(stream, false).
    if ts(rt, stream).backpressure == Some(true) {
        transform_stream_set_backpressure(rt, stream, false);
    }
}

// ---- the TransformStreamDefaultController class ---------------------------

/// The `desiredSize` getter
/// (<https://streams.spec.whatwg.org/#ts-default-controller-desired-size>).
fn desired_size(rt: &Rt, c: ObjectId) -> Value {
    // 1. Let readableController be this.[[stream]].[[readable]].[[controller]].
    let rc = readable_controller(rt, controller(rt, c).stream);
    // 2. Return ! ReadableStreamDefaultControllerGetDesiredSize(readableController).
    match streams::readable_stream_default_controller_get_desired_size(rt, rc) {
        Some(n) => Value::Number(n),
        None => Value::Null,
    }
}

/// `controller.enqueue(chunk)`
/// (<https://streams.spec.whatwg.org/#ts-default-controller-enqueue>).
pub fn controller_enqueue(rt: &mut Rt, c: Value, chunk: Value) -> Completion {
    let c = controller_operand(rt, c, "enqueue")?;
    // 1. Perform ? TransformStreamDefaultControllerEnqueue(this, chunk).
    transform_stream_default_controller_enqueue(rt, c, chunk)?;
    Ok(Value::Undefined)
}

/// `controller.error(e)`
/// (<https://streams.spec.whatwg.org/#ts-default-controller-error>).
pub fn controller_error(rt: &mut Rt, c: Value, e: Value) -> Completion {
    let c = controller_operand(rt, c, "error")?;
    // 1. Perform ? TransformStreamDefaultControllerError(this, e).
    transform_stream_default_controller_error(rt, c, e);
    Ok(Value::Undefined)
}

/// `controller.terminate()`
/// (<https://streams.spec.whatwg.org/#ts-default-controller-terminate>).
pub fn controller_terminate(rt: &mut Rt, c: Value) -> Completion {
    let c = controller_operand(rt, c, "terminate")?;
    // 1. Perform ? TransformStreamDefaultControllerTerminate(this).
    transform_stream_default_controller_terminate(rt, c);
    Ok(Value::Undefined)
}

// ---- default controllers' abstract operations -----------------------------

/// SetUpTransformStreamDefaultController(stream, controller,
/// transformAlgorithm, flushAlgorithm, cancelAlgorithm)
/// (<https://streams.spec.whatwg.org/#set-up-transform-stream-default-controller>).
fn set_up_transform_stream_default_controller(
    rt: &mut Rt,
    stream: ObjectId,
    c: ObjectId,
    transformer: Value,
    transform_algorithm: TransformAlgorithm,
    flush_algorithm: PromiseAlgorithm,
    cancel_algorithm: PromiseAlgorithm,
) {
    // 1. Assert: stream implements TransformStream.
    // 2. Assert: stream.[[controller]] is undefined.
    assert!(ts(rt, stream).controller.is_none());
    rt.lib.transform.controllers.insert(
        c,
        TransformStreamDefaultController {
            // 7. Set controller.[[cancelAlgorithm]] to cancelAlgorithm.
            cancel_algorithm: Some(cancel_algorithm),
            finish_promise: None,
            // 6. Set controller.[[flushAlgorithm]] to flushAlgorithm.
            flush_algorithm: Some(flush_algorithm),
            // 3. Set controller.[[stream]] to stream.
            stream,
            // 5. Set controller.[[transformAlgorithm]] to transformAlgorithm.
            transform_algorithm: Some(transform_algorithm),
            transformer,
        },
    );
    // 4. Set stream.[[controller]] to controller.
    ts_mut(rt, stream).controller = Some(c);
}

/// SetUpTransformStreamDefaultControllerFromTransformer(stream,
/// transformer, transformerDict)
/// (<https://streams.spec.whatwg.org/#set-up-transform-stream-default-controller-from-transformer>).
fn set_up_transform_stream_default_controller_from_transformer(
    rt: &mut Rt,
    stream: ObjectId,
    transformer: &Transformer,
) {
    // 1. Let controller be a new TransformStreamDefaultController.
    let c = rt.heap.alloc(ObjectData::Host);
    // 2. Let transformAlgorithm be the following steps, taking a chunk
    //    argument: (the default, which enqueues the chunk)
    // 5. If transformerDict["transform"] exists, set transformAlgorithm to
    //    an algorithm which takes an argument chunk and returns the result
    //    of invoking transformerDict["transform"] with argument list «
    //    chunk, controller » and callback this value transformer.
    let transform_algorithm = match transformer.transform {
        Some(f) => TransformAlgorithm::Invoke(f),
        None => TransformAlgorithm::Enqueue,
    };
    // 3. Let flushAlgorithm be an algorithm which returns a promise resolved
    //    with undefined.
    // 6. If transformerDict["flush"] exists, set flushAlgorithm to an
    //    algorithm which returns the result of invoking
    //    transformerDict["flush"] with argument list « controller » and
    //    callback this value transformer.
    let flush_algorithm = match transformer.flush {
        Some(f) => PromiseAlgorithm::Invoke(f),
        None => PromiseAlgorithm::ResolveUndefined,
    };
    // 4. Let cancelAlgorithm be an algorithm which returns a promise
    //    resolved with undefined.
    // 7. If transformerDict["cancel"] exists, set cancelAlgorithm to an
    //    algorithm which takes an argument reason and returns the result of
    //    invoking transformerDict["cancel"] with argument list « reason »
    //    and callback this value transformer.
    let cancel_algorithm = match transformer.cancel {
        Some(f) => PromiseAlgorithm::Invoke(f),
        None => PromiseAlgorithm::ResolveUndefined,
    };
    // 8. Perform ! SetUpTransformStreamDefaultController(stream, controller,
    //    transformAlgorithm, flushAlgorithm, cancelAlgorithm).
    set_up_transform_stream_default_controller(
        rt,
        stream,
        c,
        transformer.object.clone(),
        transform_algorithm,
        flush_algorithm,
        cancel_algorithm,
    );
}

/// TransformStreamDefaultControllerClearAlgorithms(controller)
/// (<https://streams.spec.whatwg.org/#transform-stream-default-controller-clear-algorithms>).
fn transform_stream_default_controller_clear_algorithms(rt: &mut Rt, c: ObjectId) {
    let controller = controller_mut(rt, c);
    // 1. Set controller.[[transformAlgorithm]] to undefined.
    controller.transform_algorithm = None;
    // 2. Set controller.[[flushAlgorithm]] to undefined.
    controller.flush_algorithm = None;
    // 3. Set controller.[[cancelAlgorithm]] to undefined.
    controller.cancel_algorithm = None;
}

/// TransformStreamDefaultControllerEnqueue(controller, chunk)
/// (<https://streams.spec.whatwg.org/#transform-stream-default-controller-enqueue>).
fn transform_stream_default_controller_enqueue(
    rt: &mut Rt,
    c: ObjectId,
    chunk: Value,
) -> Result<(), Value> {
    // 1. Let stream be controller.[[stream]].
    let stream = controller(rt, c).stream;
    // 2. Let readableController be stream.[[readable]].[[controller]].
    let rc = readable_controller(rt, stream);
    // 3. If ! ReadableStreamDefaultControllerCanCloseOrEnqueue(
    //    readableController) is false, throw a TypeError exception.
    if !streams::readable_stream_default_controller_can_close_or_enqueue(rt, rc) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L489-L490
        return Err(err_invalid_state(rt, "Unable to enqueue"));
    }
    // 4. Let enqueueResult be ReadableStreamDefaultControllerEnqueue(
    //    readableController, chunk).
    // 5. If enqueueResult is an abrupt completion,
    if let Err(e) = streams::readable_stream_default_controller_enqueue(rt, rc, chunk) {
        //   1. Perform ! TransformStreamErrorWritableAndUnblockWrite(stream,
        //      enqueueResult.[[Value]]).
        transform_stream_error_writable_and_unblock_write(rt, stream, e);
        //   2. Throw stream.[[readable]].[[storedError]].
        let r = readable(rt, stream);
        return Err(streams::stream(rt, r).stored_error.clone());
    }
    // 6. Let backpressure be ! ReadableStreamDefaultControllerHasBackpressure(
    //    readableController).
    let backpressure = !streams::readable_stream_default_controller_should_call_pull(rt, rc);
    // 7. If backpressure is not stream.[[backpressure]],
    if Some(backpressure) != ts(rt, stream).backpressure {
        //   1. Assert: backpressure is true.
        assert!(backpressure);
        //   2. Perform ! TransformStreamSetBackpressure(stream, true).
        transform_stream_set_backpressure(rt, stream, true);
    }
    Ok(())
}

/// TransformStreamDefaultControllerError(controller, e)
/// (<https://streams.spec.whatwg.org/#transform-stream-default-controller-error>).
fn transform_stream_default_controller_error(rt: &mut Rt, c: ObjectId, e: Value) {
    // 1. Perform ! TransformStreamError(controller.[[stream]], e).
    let stream = controller(rt, c).stream;
    transform_stream_error(rt, stream, e);
}

/// TransformStreamDefaultControllerPerformTransform(controller, chunk)
/// (<https://streams.spec.whatwg.org/#transform-stream-default-controller-perform-transform>).
fn transform_stream_default_controller_perform_transform(
    rt: &mut Rt,
    c: ObjectId,
    chunk: Value,
) -> ObjectId {
    // 1. Let transformPromise be the result of performing
    //    controller.[[transformAlgorithm]], passing chunk.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L527-L531
    // an algorithm cleared by a concurrent cancel, abort or close: the
    // shared resolved promise is returned as it is, without step 2's
    // reaction (a microtask sooner).
    let transform_promise = match controller(rt, c).transform_algorithm {
        None => return a_promise_resolved_with(rt, Value::Undefined),
        Some(TransformAlgorithm::Enqueue) => {
            // 1. Let result be TransformStreamDefaultControllerEnqueue(
            //    controller, chunk).
            match transform_stream_default_controller_enqueue(rt, c, chunk) {
                // 2. If result is an abrupt completion, return a promise
                //    rejected with result.[[Value]].
                Err(e) => a_promise_rejected_with(rt, e),
                // 3. Otherwise, return a promise resolved with undefined.
                Ok(()) => a_promise_resolved_with(rt, Value::Undefined),
            }
        }
        Some(TransformAlgorithm::Invoke(f)) => {
            let this = controller(rt, c).transformer.clone();
            match streams::call_rooted(rt, f, this, &[chunk, Value::Object(c)], &[]) {
                Err(e) => a_promise_rejected_with(rt, e),
                // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L532-L542
                // `PromiseResolve(result)`: a returned promise is used as it
                // is, two microtasks sooner than Web IDL's conversion.
                Ok(value) => rt.promise_resolve(value),
            }
        }
    };
    // 2. Return the result of reacting to transformPromise with the
    //    following rejection steps given the argument r:
    let rejected = rt.native_function_capturing(Captures::objects(&[c]), move |rt, _, args| {
        let r = args.first().cloned().unwrap_or(Value::Undefined);
        //   1. Perform ! TransformStreamError(controller.[[stream]], r).
        let stream = controller(rt, c).stream;
        transform_stream_error(rt, stream, r.clone());
        //   2. Throw r.
        Err(r)
    });
    rt.promise_then(transform_promise, None, Some(rejected))
}

/// TransformStreamDefaultControllerTerminate(controller)
/// (<https://streams.spec.whatwg.org/#transform-stream-default-controller-terminate>).
fn transform_stream_default_controller_terminate(rt: &mut Rt, c: ObjectId) {
    // 1. Let stream be controller.[[stream]].
    let stream = controller(rt, c).stream;
    // 2. Let readableController be stream.[[readable]].[[controller]].
    let rc = readable_controller(rt, stream);
    // 3. Perform ! ReadableStreamDefaultControllerClose(readableController).
    streams::readable_stream_default_controller_close(rt, rc);
    // 4. Let error be a TypeError exception indicating that the stream has
    //    been terminated.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L565-L567
    let error = err_invalid_state(rt, "TransformStream has been terminated");
    // 5. Perform ! TransformStreamErrorWritableAndUnblockWrite(stream, error).
    transform_stream_error_writable_and_unblock_write(rt, stream, error);
}

// ---- the default sink ------------------------------------------------------

/// TransformStreamDefaultSinkWriteAlgorithm(stream, chunk)
/// (<https://streams.spec.whatwg.org/#transform-stream-default-sink-write-algorithm>).
pub(crate) fn sink_write_algorithm(rt: &mut Rt, stream: ObjectId, chunk: Value) -> AlgorithmResult {
    // 1. Assert: stream.[[writable]].[[state]] is "writable".
    let w = writable_side(rt, stream);
    assert_eq!(writable::stream(rt, w).state, WritableStreamState::Writable);
    // 2. Let controller be stream.[[controller]].
    let c = ts_controller(rt, stream);
    // 3. If stream.[[backpressure]] is true,
    if ts(rt, stream).backpressure == Some(true) {
        //   1. Let backpressureChangePromise be stream.[[backpressureChangePromise]].
        //   2. Assert: backpressureChangePromise is not undefined.
        //   3. Return the result of reacting to backpressureChangePromise
        //      with the following fulfillment steps: (parked_write_continuation)
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L570-L617
        // the chunk is parked; when backpressure goes away a microtask runs
        // the steps, and the transform's promise goes to the writable
        // controller's reactions itself (`kParkedAlgorithmResult`), two
        // microtasks before the spec's derived promise would adopt it.
        assert!(ts(rt, stream).parked_write.is_none());
        ts_mut(rt, stream).parked_write = Some(chunk);
        return AlgorithmResult::Parked;
    }
    // 4. Return ! TransformStreamDefaultControllerPerformTransform(controller, chunk).
    AlgorithmResult::Promise(transform_stream_default_controller_perform_transform(
        rt, c, chunk,
    ))
}

/// The fulfillment steps of step 3.3 of the sink write algorithm, run by
/// Node's write continuation.
fn parked_write_continuation(rt: &mut Rt, stream: ObjectId, chunk: Value) {
    let wc = writable_controller(rt, stream);
    //   1. Let writable be stream.[[writable]].
    let w = writable_side(rt, stream);
    //   2. Let state be writable.[[state]].
    let state = writable::stream(rt, w).state;
    //   3. If state is "erroring", throw writable.[[storedError]].
    if state == WritableStreamState::Erroring {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L596-L602
        // the rejection reaches the writable controller a microtask later.
        let error = writable::stream(rt, w).stored_error.clone();
        let captures = [Value::Object(wc), error.clone()];
        on_resolved_promise(rt, &captures, move |rt| {
            writable::write_rejected(rt, wc, error)
        });
        return;
    }
    //   4. Assert: state is "writable".
    assert_eq!(state, WritableStreamState::Writable);
    //   5. Return ! TransformStreamDefaultControllerPerformTransform(controller, chunk).
    let c = ts_controller(rt, stream);
    let p = transform_stream_default_controller_perform_transform(rt, c, chunk);
    upon_settlement(
        rt,
        p,
        &[Value::Object(wc)],
        move |rt, _| writable::write_fulfilled(rt, wc),
        move |rt, e| writable::write_rejected(rt, wc, e),
    );
}

/// Performing a [[flushAlgorithm]] or [[cancelAlgorithm]].
fn perform_promise_algorithm(
    rt: &mut Rt,
    c: ObjectId,
    algorithm: PromiseAlgorithm,
    args: &[Value],
) -> ObjectId {
    match algorithm {
        PromiseAlgorithm::ResolveUndefined => a_promise_resolved_with(rt, Value::Undefined),
        PromiseAlgorithm::Invoke(f) => {
            let this = controller(rt, c).transformer.clone();
            match streams::call_rooted(rt, f, this, args, &[Value::Object(c)]) {
                Err(e) => a_promise_rejected_with(rt, e),
                // Converted to a new promise resolved with it (Node's async
                // wrapper does the same).
                Ok(value) => a_promise_resolved_with(rt, value),
            }
        }
    }
}

/// TransformStreamDefaultSinkAbortAlgorithm(stream, reason)
/// (<https://streams.spec.whatwg.org/#transform-stream-default-sink-abort-algorithm>).
pub(crate) fn sink_abort_algorithm(rt: &mut Rt, stream: ObjectId, reason: Value) -> ObjectId {
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L619
    // `async function transformStreamDefaultSinkAbortAlgorithm`: what it
    // returns (the finish promise) is adopted by the async function's own
    // promise, two microtasks later.
    let finish_promise = sink_abort_algorithm_steps(rt, stream, reason);
    a_promise_resolved_with(rt, Value::Object(finish_promise))
}

fn sink_abort_algorithm_steps(rt: &mut Rt, stream: ObjectId, reason: Value) -> ObjectId {
    // 1. Let controller be stream.[[controller]].
    let c = ts_controller(rt, stream);
    // 2. If controller.[[finishPromise]] is not undefined, return
    //    controller.[[finishPromise]].
    if let Some(p) = controller(rt, c).finish_promise {
        return p;
    }
    // 3. Let readable be stream.[[readable]].
    let r = readable(rt, stream);
    // 4. Let controller.[[finishPromise]] be a new promise.
    let finish = a_new_promise(rt);
    controller_mut(rt, c).finish_promise = Some(finish);
    // 5. Let cancelPromise be the result of performing
    //    controller.[[cancelAlgorithm]], passing reason.
    let algorithm = controller(rt, c)
        .cancel_algorithm
        .expect("the cancel algorithm, not yet cleared");
    let cancel_promise = perform_promise_algorithm(rt, c, algorithm, std::slice::from_ref(&reason));
    // 6. Perform ! TransformStreamDefaultControllerClearAlgorithms(controller).
    transform_stream_default_controller_clear_algorithms(rt, c);
    // 7. React to cancelPromise:
    upon_settlement(
        rt,
        cancel_promise,
        &[Value::Object(r), Value::Object(finish), reason.clone()],
        //   1. If cancelPromise was fulfilled, then:
        move |rt, _| {
            //  1. If readable.[[state]] is "errored", reject
            //     controller.[[finishPromise]] with readable.[[storedError]].
            if streams::stream(rt, r).state == ReadableStreamState::Errored {
                let e = streams::stream(rt, r).stored_error.clone();
                reject(rt, finish, e);
            } else {
                //  2. Otherwise:
                //     1. Perform ! ReadableStreamDefaultControllerError(
                //        readable.[[controller]], reason).
                let rc = streams::stream_controller(rt, r);
                streams::readable_stream_default_controller_error(rt, rc, reason.clone());
                //     2. Resolve controller.[[finishPromise]] with undefined.
                resolve(rt, finish, Value::Undefined);
            }
        },
        //   2. If cancelPromise was rejected with reason r, then:
        move |rt, e| {
            //  1. Perform ! ReadableStreamDefaultControllerError(
            //     readable.[[controller]], r).
            let rc = streams::stream_controller(rt, r);
            streams::readable_stream_default_controller_error(rt, rc, e.clone());
            //  2. Reject controller.[[finishPromise]] with r.
            reject(rt, finish, e);
        },
    );
    // 8. Return controller.[[finishPromise]].
    finish
}

/// TransformStreamDefaultSinkCloseAlgorithm(stream)
/// (<https://streams.spec.whatwg.org/#transform-stream-default-sink-close-algorithm>).
pub(crate) fn sink_close_algorithm(rt: &mut Rt, stream: ObjectId) -> ObjectId {
    // 1. Let controller be stream.[[controller]].
    let c = ts_controller(rt, stream);
    // 2. If controller.[[finishPromise]] is not undefined, return
    //    controller.[[finishPromise]].
    if let Some(p) = controller(rt, c).finish_promise {
        return p;
    }
    // 3. Let readable be stream.[[readable]].
    let r = readable(rt, stream);
    // 4. Let controller.[[finishPromise]] be a new promise.
    let finish = a_new_promise(rt);
    controller_mut(rt, c).finish_promise = Some(finish);
    // 5. Let flushPromise be the result of performing
    //    controller.[[flushAlgorithm]].
    let algorithm = controller(rt, c)
        .flush_algorithm
        .expect("the flush algorithm, not yet cleared");
    let flush_promise = perform_promise_algorithm(rt, c, algorithm, &[Value::Object(c)]);
    // 6. Perform ! TransformStreamDefaultControllerClearAlgorithms(controller).
    transform_stream_default_controller_clear_algorithms(rt, c);
    // 7. React to flushPromise:
    upon_settlement(
        rt,
        flush_promise,
        &[Value::Object(r), Value::Object(finish)],
        //   1. If flushPromise was fulfilled, then:
        move |rt, _| {
            //  1. If readable.[[state]] is "errored", reject
            //     controller.[[finishPromise]] with readable.[[storedError]].
            if streams::stream(rt, r).state == ReadableStreamState::Errored {
                let e = streams::stream(rt, r).stored_error.clone();
                reject(rt, finish, e);
            } else {
                //  2. Otherwise:
                //     1. Perform ! ReadableStreamDefaultControllerClose(
                //        readable.[[controller]]).
                let rc = streams::stream_controller(rt, r);
                streams::readable_stream_default_controller_close(rt, rc);
                //     2. Resolve controller.[[finishPromise]] with undefined.
                resolve(rt, finish, Value::Undefined);
            }
        },
        //   2. If flushPromise was rejected with reason r, then:
        move |rt, e| {
            //  1. Perform ! ReadableStreamDefaultControllerError(
            //     readable.[[controller]], r).
            let rc = streams::stream_controller(rt, r);
            streams::readable_stream_default_controller_error(rt, rc, e.clone());
            //  2. Reject controller.[[finishPromise]] with r.
            reject(rt, finish, e);
        },
    );
    // 8. Return controller.[[finishPromise]].
    finish
}

// ---- the default source ----------------------------------------------------

/// TransformStreamDefaultSourceCancelAlgorithm(stream, reason)
/// (<https://streams.spec.whatwg.org/#transform-stream-default-source-cancel>).
///
/// `terminate()` with chunks still queued in the readable clears the
/// controller's algorithms (TransformStreamErrorWritableAndUnblockWrite)
/// while the readable stays "readable" and its cancel algorithm is still
/// this one, with no [[finishPromise]]: a cancel then performs an undefined
/// [[cancelAlgorithm]] (the reference implementation calls `undefined` and
/// throws a TypeError). The `Err` is that exception.
pub(crate) fn source_cancel_algorithm(
    rt: &mut Rt,
    stream: ObjectId,
    reason: Value,
) -> Result<ObjectId, Value> {
    // 1. Let controller be stream.[[controller]].
    let c = ts_controller(rt, stream);
    // 2. If controller.[[finishPromise]] is not undefined, return
    //    controller.[[finishPromise]].
    if let Some(p) = controller(rt, c).finish_promise {
        return Ok(p);
    }
    // 3. Let writable be stream.[[writable]].
    let w = writable_side(rt, stream);
    // 4. Let controller.[[finishPromise]] be a new promise.
    let finish = a_new_promise(rt);
    controller_mut(rt, c).finish_promise = Some(finish);
    // 5. Let cancelPromise be the result of performing
    //    controller.[[cancelAlgorithm]], passing reason.
    let Some(algorithm) = controller(rt, c).cancel_algorithm else {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L740-L747
        // `controller[kState].cancelAlgorithm(reason)` with the slot cleared
        // throws this TypeError out of the cancel, [[finishPromise]] already
        // set (and never settled: a later cancel or abort returns it).
        let e = rt.new_error(
            "TypeError",
            "controller[kState].cancelAlgorithm is not a function",
        );
        return Err(e);
    };
    let cancel_promise = perform_promise_algorithm(rt, c, algorithm, std::slice::from_ref(&reason));
    // 6. Perform ! TransformStreamDefaultControllerClearAlgorithms(controller).
    transform_stream_default_controller_clear_algorithms(rt, c);
    // 7. React to cancelPromise:
    upon_settlement(
        rt,
        cancel_promise,
        &[
            Value::Object(w),
            Value::Object(finish),
            reason.clone(),
            Value::Object(stream),
        ],
        //   1. If cancelPromise was fulfilled, then:
        move |rt, _| {
            //  1. If writable.[[state]] is "errored", reject
            //     controller.[[finishPromise]] with writable.[[storedError]].
            if writable::stream(rt, w).state == WritableStreamState::Errored {
                let e = writable::stream(rt, w).stored_error.clone();
                reject(rt, finish, e);
            } else {
                //  2. Otherwise:
                //     1. Perform ! WritableStreamDefaultControllerErrorIfNeeded(
                //        writable.[[controller]], reason).
                let wc = writable::stream_controller(rt, w);
                writable::writable_stream_default_controller_error_if_needed(
                    rt,
                    wc,
                    reason.clone(),
                );
                //     2. Perform ! TransformStreamUnblockWrite(stream).
                transform_stream_unblock_write(rt, stream);
                //     3. Resolve controller.[[finishPromise]] with undefined.
                resolve(rt, finish, Value::Undefined);
            }
        },
        //   2. If cancelPromise was rejected with reason r, then:
        move |rt, e| {
            //  1. Perform ! WritableStreamDefaultControllerErrorIfNeeded(
            //     writable.[[controller]], r).
            let wc = writable::stream_controller(rt, w);
            writable::writable_stream_default_controller_error_if_needed(rt, wc, e.clone());
            //  2. Perform ! TransformStreamUnblockWrite(stream).
            transform_stream_unblock_write(rt, stream);
            //  3. Reject controller.[[finishPromise]] with r.
            reject(rt, finish, e);
        },
    );
    // 8. Return controller.[[finishPromise]].
    Ok(finish)
}

/// TransformStreamDefaultSourcePullAlgorithm(stream)
/// (<https://streams.spec.whatwg.org/#transform-stream-default-source-pull>).
pub(crate) fn source_pull_algorithm(rt: &mut Rt, stream: ObjectId) -> ObjectId {
    // 1. Assert: stream.[[backpressure]] is true.
    assert_eq!(ts(rt, stream).backpressure, Some(true));
    // 2. Assert: stream.[[backpressureChangePromise]] is not undefined.
    // 3. Perform ! TransformStreamSetBackpressure(stream, false).
    transform_stream_set_backpressure(rt, stream, false);
    // 4. Return stream.[[backpressureChangePromise]].
    ts(rt, stream)
        .backpressure_change_promise
        .expect("the backpressure change promise")
}

// ---- what the runtime asks ------------------------------------------------

/// A property of a transform stream object, or `None` when `obj` is none.
pub fn get(rt: &mut Rt, obj: ObjectId, prop: &str) -> Option<Completion> {
    let t = &rt.lib.transform;
    if t.streams.contains_key(&obj) {
        return Some(Ok(match prop {
            // The `readable` getter: 1. Return this.[[readable]].
            "readable" => Value::Object(readable(rt, obj)),
            // The `writable` getter: 1. Return this.[[writable]].
            "writable" => Value::Object(writable_side(rt, obj)),
            _ => Value::Undefined,
        }));
    }
    if t.controllers.contains_key(&obj) {
        return Some(Ok(match prop {
            "desiredSize" => desired_size(rt, obj),
            _ => Value::Undefined,
        }));
    }
    None
}

/// What a transform stream object is, or `None` when `obj` is none.
pub fn host_class(rt: &Rt, obj: ObjectId) -> Option<HostClass> {
    let t = &rt.lib.transform;
    if t.streams.contains_key(&obj) {
        Some(HostClass::TransformStream)
    } else if t.controllers.contains_key(&obj) {
        Some(HostClass::TransformStreamDefaultController)
    } else {
        None
    }
}

/// A TransformStream's [[backpressure]] (for tests and tools that inspect
/// the model).
pub fn backpressure(rt: &Rt, s: ObjectId) -> Option<bool> {
    ts(rt, s).backpressure
}
