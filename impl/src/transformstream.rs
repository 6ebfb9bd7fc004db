//! TransformStream and its default controller, built the way Node's
//! lib/internal/webstreams/transformstream.js builds them.
//!
//! NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L117-L184>
//! (the constructor) and `initializeTransformStream` (L387-L422). Node's shape is kept:
//!
//! - without a `start()` both sides start from the shared resolved promise
//!   (`resolvedStartAlgorithm`), with one the start promise record, resolved with start's result
//!   after both sides are set up;
//! - the spec's `[[backpressureChangePromise]]` is replaced by continuation slots
//!   (`transformStreamSetBackpressure`, L452-L479): a parked pull is completed by queueing the
//!   readable controller's `pullFulfilled` on the shared resolved promise, a parked write by the
//!   write continuation, at the positions the old promise's reactions had;
//! - `transform()` is a raw callback: a result that is not an object is replaced by the shared
//!   resolved promise; the rejection reaction of the perform-transform step is made once.

use nodesem_runtime::{
    Captures, Completion, HostClass, Job, ObjectId, Runtime, Transformer, Value,
};

use crate::streams::{self, captured, Algorithm, StreamState};
use crate::writable::{self, SinkAlgorithm, Start, WState};
use crate::{alloc_host, Impl, Slot};

type Rt = Runtime<Impl>;

/// A transformer method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    /// Not given: `defaultTransformAlgorithm`, `nonOpFlush` or `nonOpCancel`.
    Default,
    /// The transformer's method.
    Script(ObjectId),
    /// Cleared by `transformStreamDefaultControllerClearAlgorithms`.
    Cleared,
}

/// A TransformStream's `kState` and its controller's.
#[derive(Debug)]
pub(crate) struct TransformData {
    /// The TransformStream object.
    obj: ObjectId,
    /// The controller object.
    controller_obj: ObjectId,
    /// `readable`: the readable side's index and object.
    readable: u32,
    readable_obj: ObjectId,
    /// `writable`: the writable side's index.
    writable: u32,
    /// `backpressure` (undefined until `initializeTransformStream` sets it).
    backpressure: Option<bool>,
    /// `pullPending`.
    pull_pending: bool,
    /// `pendingWriteParked`.
    pending_write_parked: bool,
    /// `pendingWriteChunk`.
    pending_write_chunk: Value,
    /// The transformer, `this` of its methods.
    transformer: Value,
    transform: Method,
    flush: Method,
    cancel: Method,
    /// `finishPromise`.
    finish_promise: Option<ObjectId>,
    /// `performTransformRejected`, made once.
    perform_transform_rejected: Option<ObjectId>,
}

fn td(rt: &mut Rt, t: u32) -> &mut TransformData {
    &mut rt.lib.transforms[t as usize]
}

fn controller_of(rt: &Rt, value: &Value) -> Option<u32> {
    match value.as_object().map(|o| rt.lib.slot(o)) {
        Some(Slot::TransformController(t)) => Some(t),
        _ => None,
    }
}

/// The readable and writable sides of a transform stream, as values.
pub(crate) fn sides(rt: &Rt, t: u32) -> (Value, Value) {
    let d = &rt.lib.transforms[t as usize];
    (
        Value::Object(d.readable_obj),
        Value::Object(writable::stream_obj(rt, d.writable)),
    )
}

/// `new TransformStream(transformer, writableStrategy, readableStrategy)`.
pub fn new_transform_stream(
    rt: &mut Rt,
    transformer: Transformer,
    writable_strategy: nodesem_runtime::QueuingStrategy,
    readable_strategy: nodesem_runtime::QueuingStrategy,
) -> Completion {
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L148-L160>:
    // the readable side's strategy first (highWaterMark 0 by default), then the writable's.
    let readable_hwm =
        streams::extract_high_water_mark(rt, readable_strategy.high_water_mark, 0.0)?;
    let readable_size = streams::extract_size_algorithm(rt, readable_strategy.size)?;
    let writable_hwm =
        streams::extract_high_water_mark(rt, writable_strategy.high_water_mark, 1.0)?;
    let writable_size = streams::extract_size_algorithm(rt, writable_strategy.size)?;
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L162-L165>:
    // `startPromise` only with a start(); else `resolvedStartAlgorithm` gives `kResolvedPromise`.
    let start_promise = match transformer.start {
        Some(_) => rt.new_promise(),
        None => streams::resolved_promise(rt),
    };
    // The transformer's methods are validated as functions (createRawCallback2Params and
    // createPromiseCallback1Param) when the controller is set up.
    for (name, method) in [
        ("transformer.transform", transformer.transform),
        ("transformer.flush", transformer.flush),
        ("transformer.cancel", transformer.cancel),
    ] {
        if let Some(f) = method {
            if !rt.is_function(&Value::Object(f)) {
                return Err(rt.err_invalid_arg_type(name, "function", &Value::Object(f)));
            }
        }
    }
    let t = rt.lib.transforms.len() as u32;
    // initializeTransformStream: the writable side, then the readable side.
    let w = writable::alloc_writable(
        rt,
        Value::Undefined,
        [SinkAlgorithm::Transform(t); 3],
        writable_hwm,
        writable_size,
    );
    writable::setup_controller(rt, w, Start::Result(Value::Object(start_promise)))?;
    let algorithm = Algorithm::Transform(t);
    let (readable_obj, r, c) =
        streams::alloc_stream(rt, Value::Undefined, algorithm, algorithm, readable_hwm);
    streams::set_size(rt, c, readable_size);
    streams::setup_default_controller_started(rt, c, Value::Object(start_promise));
    let obj = alloc_host(rt, |_| Slot::TransformStream(t));
    let controller_obj = alloc_host(rt, |_| Slot::TransformController(t));
    let method = |m: Option<ObjectId>| m.map_or(Method::Default, Method::Script);
    rt.lib.transforms.push(TransformData {
        obj,
        controller_obj,
        readable: r,
        readable_obj,
        writable: w,
        backpressure: None,
        pull_pending: false,
        pending_write_parked: false,
        pending_write_chunk: Value::Undefined,
        transformer: transformer.object.clone(),
        transform: method(transformer.transform),
        flush: method(transformer.flush),
        cancel: method(transformer.cancel),
        finish_promise: None,
        perform_transform_rejected: None,
    });
    set_backpressure(rt, t, true);
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L177-L183>:
    // `startPromise.resolve(FunctionPrototypeCall(start, transformer, controller))`; a throw
    // leaves the constructor.
    if let Some(start) = transformer.start {
        // The constructor's frame holds the stream and the start promise while start() runs.
        let roots = [Value::Object(obj), Value::Object(start_promise)];
        let result = rt.holding(&roots, |rt| {
            rt.call_function(start, transformer.object, &[Value::Object(controller_obj)])
        })?;
        rt.resolve_promise_with(start_promise, result);
    }
    Ok(Value::Object(obj))
}

/// `PromisePrototypeThen(kResolvedPromise, f)`.
fn on_resolved(rt: &mut Rt, f: ObjectId) {
    let p = streams::resolved_promise(rt);
    rt.perform_promise_then(p, Some(f), None, None);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L462-L479>
/// `transformStreamSetBackpressure`.
fn set_backpressure(rt: &mut Rt, t: u32, backpressure: bool) {
    let d = td(rt, t);
    d.backpressure = Some(backpressure);
    if backpressure {
        if d.pull_pending {
            d.pull_pending = false;
            let c = streams::controller_index(rt, rt.lib.transforms[t as usize].readable);
            if let Some(f) = streams::pull_fulfilled_reaction(rt, c) {
                on_resolved(rt, f);
            }
        }
    } else if d.pending_write_parked {
        let stream = Value::Object(d.obj);
        rt.enqueue_microtask(Job::Task(captured(vec![stream], move |rt| {
            write_continuation(rt, t);
            Ok(Value::Undefined)
        })));
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L633-L653>
/// `writeContinuation`: the parked write completes through the writable controller's write
/// reactions.
fn write_continuation(rt: &mut Rt, t: u32) {
    let d = td(rt, t);
    let chunk = std::mem::replace(&mut d.pending_write_chunk, Value::Undefined);
    d.pending_write_parked = false;
    let w = d.writable;
    let (fulfilled, rejected) = writable::write_reactions(rt, w);
    if writable::state(rt, w) == WState::Erroring {
        let error = writable::stored_error(rt, w);
        let held = vec![Value::Object(rejected), error.clone()];
        rt.enqueue_microtask(Job::Task(captured(held, move |rt| {
            rt.call_function(rejected, Value::Undefined, &[error])
        })));
        return;
    }
    let promise = perform_transform(rt, t, chunk);
    rt.perform_promise_then(promise, Some(fulfilled), Some(rejected), None);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L424-L433>
/// `transformStreamError`.
fn transform_stream_error(rt: &mut Rt, t: u32, error: Value) {
    let r = td(rt, t).readable;
    let c = streams::controller_index(rt, r);
    streams::default_controller_error(rt, c, error.clone());
    error_writable_and_unblock_write(rt, t, error);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L435-L445>
/// `transformStreamErrorWritableAndUnblockWrite`.
fn error_writable_and_unblock_write(rt: &mut Rt, t: u32, error: Value) {
    clear_algorithms(rt, t);
    let w = td(rt, t).writable;
    writable::controller_error_if_needed(rt, w, error);
    unblock_write(rt, t);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L447-L450>
/// `transformStreamUnblockWrite`.
fn unblock_write(rt: &mut Rt, t: u32) {
    if td(rt, t).backpressure == Some(true) {
        set_backpressure(rt, t, false);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L523-L527>
/// `transformStreamDefaultControllerClearAlgorithms`.
fn clear_algorithms(rt: &mut Rt, t: u32) {
    let d = td(rt, t);
    d.transform = Method::Cleared;
    d.flush = Method::Cleared;
    d.cancel = Method::Cleared;
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L529-L553>
/// `transformStreamDefaultControllerEnqueue`.
fn controller_enqueue(rt: &mut Rt, t: u32, chunk: Value) -> Result<(), Value> {
    let r = td(rt, t).readable;
    let c = streams::controller_index(rt, r);
    if !streams::can_close_or_enqueue(rt, c) {
        return Err(streams::invalid_state(rt, "Unable to enqueue"));
    }
    if let Err(error) = streams::default_controller_enqueue(rt, c, chunk) {
        error_writable_and_unblock_write(rt, t, error);
        return Err(streams::stored_error(rt, r));
    }
    let backpressure = streams::has_backpressure(rt, c);
    if Some(backpressure) != td(rt, t).backpressure {
        set_backpressure(rt, t, true);
    }
    Ok(())
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L566-L593>
/// `transformStreamDefaultControllerPerformTransform`.
fn perform_transform(rt: &mut Rt, t: u32, chunk: Value) -> ObjectId {
    let (method, transformer, controller, obj) = {
        let d = td(rt, t);
        (d.transform, d.transformer.clone(), d.controller_obj, d.obj)
    };
    let result = match method {
        Method::Cleared => return streams::resolved_promise(rt),
        // (The stream, which holds the reaction, is on the stack while transform() runs.)
        Method::Script(f) => rt.holding(&[Value::Object(obj)], |rt| {
            rt.call_function(f, transformer, &[chunk, Value::Object(controller)])
        }),
        // `defaultTransformAlgorithm`.
        Method::Default => controller_enqueue(rt, t, chunk).map(|()| Value::Undefined),
    };
    let result = match result {
        Ok(Value::Object(o)) => rt.promise_resolve(Value::Object(o)),
        Ok(_) => streams::resolved_promise(rt),
        Err(e) => rt.promise_reject_new(e),
    };
    let on_rejected = match td(rt, t).perform_transform_rejected {
        Some(f) => f,
        None => {
            let captures = Captures::objects(&[obj]);
            let f = rt.native_function_capturing(captures, move |rt, _, args| {
                let error = args.first().cloned().unwrap_or(Value::Undefined);
                transform_stream_error(rt, t, error.clone());
                Err(error)
            });
            td(rt, t).perform_transform_rejected = Some(f);
            f
        }
    };
    rt.promise_then(result, None, Some(on_rejected))
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L612-L657>
/// `transformStreamDefaultSinkWriteAlgorithm`: the perform-transform promise, or `None` for
/// `kParkedAlgorithmResult` (the chunk waits for the backpressure to clear).
pub(crate) fn sink_write(rt: &mut Rt, t: u32, chunk: Value) -> Option<ObjectId> {
    let d = td(rt, t);
    if d.backpressure == Some(true) {
        d.pending_write_parked = true;
        d.pending_write_chunk = chunk;
        return None;
    }
    Some(perform_transform(rt, t, chunk))
}

/// The `{ promise, resolve, reject }` of `finishPromise`, made now.
fn new_finish_promise(rt: &mut Rt, t: u32) -> ObjectId {
    let p = rt.new_promise();
    td(rt, t).finish_promise = Some(p);
    p
}

/// A transformer method called as `createPromiseCallback1Param` makes it, or its default
/// (`nonOpFlush`, `nonOpCancel`: a resolved promise).
fn promise_method(rt: &mut Rt, t: u32, method: Method, arg: Value) -> ObjectId {
    let (transformer, obj) = (td(rt, t).transformer.clone(), td(rt, t).obj);
    match method {
        Method::Script(f) => writable::promise_call(rt, obj, f, transformer, &[arg]),
        Method::Default | Method::Cleared => rt.promise_resolve(Value::Undefined),
    }
}

/// `PromisePrototypeThen(promise, onFulfilled, onRejected)` with native steps, which capture
/// `captures` (the transform stream's closures' context: the stream, the finish promise, the
/// reason).
fn then_native(
    rt: &mut Rt,
    promise: ObjectId,
    captures: Vec<Value>,
    fulfilled: impl Fn(&mut Rt) + 'static,
    rejected: impl Fn(&mut Rt, Value) + 'static,
) {
    let captures = Captures::values(captures);
    let on_fulfilled = rt.native_function_capturing(captures.clone(), move |rt, _, _| {
        fulfilled(rt);
        Ok(Value::Undefined)
    });
    let on_rejected = rt.native_function_capturing(captures, move |rt, _, args| {
        rejected(rt, args.first().cloned().unwrap_or(Value::Undefined));
        Ok(Value::Undefined)
    });
    rt.perform_promise_then(promise, Some(on_fulfilled), Some(on_rejected), None);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L659-L691>
/// `transformStreamDefaultSinkAbortAlgorithm`, an async function: its promise adopts the finish
/// promise.
pub(crate) fn sink_abort(rt: &mut Rt, t: u32, reason: Value) -> ObjectId {
    let outer = rt.new_promise();
    let finish = match td(rt, t).finish_promise {
        Some(p) => p,
        None => {
            let finish = new_finish_promise(rt, t);
            let cancel = td(rt, t).cancel;
            // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L671>
            // a cleared cancel algorithm is called: V8's TypeError rejects the async function.
            if cancel == Method::Cleared {
                let e = cancel_algorithm_not_a_function(rt);
                rt.reject_promise(outer, e);
                return outer;
            }
            // The async function's promise is its caller's while the cancel runs script code.
            let cancel_promise = rt.holding(&[Value::Object(outer)], |rt| {
                promise_method(rt, t, cancel, reason.clone())
            });
            clear_algorithms(rt, t);
            let r = td(rt, t).readable;
            let captures = vec![
                Value::Object(td(rt, t).obj),
                Value::Object(finish),
                reason.clone(),
            ];
            then_native(
                rt,
                cancel_promise,
                captures,
                move |rt| {
                    if streams::state(rt, r) == StreamState::Errored {
                        let e = streams::stored_error(rt, r);
                        rt.reject_promise(finish, e);
                    } else {
                        let c = streams::controller_index(rt, r);
                        streams::default_controller_error(rt, c, reason.clone());
                        rt.resolve_promise_with(finish, Value::Undefined);
                    }
                },
                move |rt, error| {
                    let c = streams::controller_index(rt, r);
                    streams::default_controller_error(rt, c, error.clone());
                    rt.reject_promise(finish, error);
                },
            );
            finish
        }
    };
    rt.resolve_promise_with(outer, Value::Object(finish));
    outer
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L693-L721>
/// `transformStreamDefaultSinkCloseAlgorithm`.
pub(crate) fn sink_close(rt: &mut Rt, t: u32) -> ObjectId {
    if let Some(p) = td(rt, t).finish_promise {
        return p;
    }
    let finish = new_finish_promise(rt, t);
    let (flush, controller) = (td(rt, t).flush, td(rt, t).controller_obj);
    let flush_promise = promise_method(rt, t, flush, Value::Object(controller));
    clear_algorithms(rt, t);
    let r = td(rt, t).readable;
    let captures = vec![Value::Object(td(rt, t).obj), Value::Object(finish)];
    then_native(
        rt,
        flush_promise,
        captures,
        move |rt| {
            if streams::state(rt, r) == StreamState::Errored {
                let e = streams::stored_error(rt, r);
                rt.reject_promise(finish, e);
            } else {
                let c = streams::controller_index(rt, r);
                streams::default_controller_close(rt, c);
                rt.resolve_promise_with(finish, Value::Undefined);
            }
        },
        move |rt, error| {
            let c = streams::controller_index(rt, r);
            streams::default_controller_error(rt, c, error.clone());
            rt.reject_promise(finish, error);
        },
    );
    finish
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L723-L733>
/// `transformStreamDefaultSourcePullAlgorithm`: parked until the backpressure is set again.
pub(crate) fn source_pull(rt: &mut Rt, t: u32) {
    set_backpressure(rt, t, false);
    td(rt, t).pull_pending = true;
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L735-L773>
/// `transformStreamDefaultSourceCancelAlgorithm`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L746-L747>
/// the finish promise is set, then `controller[kState].cancelAlgorithm(reason)` is called; after
/// `terminate()` (which clears the algorithms without a finish promise) left chunks queued on the
/// readable side, a cancel of that side calls the cleared (undefined) algorithm, and V8's
/// TypeError is thrown out of the cancel, the finish promise left pending forever (a bug of
/// Node 26.12.1, kept as Node has it).
pub(crate) fn source_cancel(rt: &mut Rt, t: u32, reason: Value) -> Result<ObjectId, Value> {
    if let Some(p) = td(rt, t).finish_promise {
        return Ok(p);
    }
    let finish = new_finish_promise(rt, t);
    let cancel = td(rt, t).cancel;
    if cancel == Method::Cleared {
        return Err(cancel_algorithm_not_a_function(rt));
    }
    let cancel_promise = promise_method(rt, t, cancel, reason.clone());
    clear_algorithms(rt, t);
    let w = td(rt, t).writable;
    let captures = vec![
        Value::Object(td(rt, t).obj),
        Value::Object(finish),
        reason.clone(),
    ];
    then_native(
        rt,
        cancel_promise,
        captures,
        move |rt| {
            if writable::state(rt, w) == WState::Errored {
                let e = writable::stored_error(rt, w);
                rt.reject_promise(finish, e);
            } else {
                writable::controller_error_if_needed(rt, w, reason.clone());
                unblock_write(rt, t);
                rt.resolve_promise_with(finish, Value::Undefined);
            }
        },
        move |rt, error| {
            writable::controller_error_if_needed(rt, w, error.clone());
            unblock_write(rt, t);
            rt.reject_promise(finish, error);
        },
    );
    Ok(finish)
}

/// V8's TypeError for `controller[kState].cancelAlgorithm(reason)` once the algorithm is cleared
/// (undefined).
fn cancel_algorithm_not_a_function(rt: &mut Rt) -> Value {
    rt.new_error(
        "TypeError",
        "controller[kState].cancelAlgorithm is not a function",
    )
}

// ---- the operations -----------------------------------------------------------------

/// The transform stream of a controller method's receiver.
fn receiver(rt: &mut Rt, controller: &Value) -> Result<u32, Value> {
    controller_of(rt, controller)
        .ok_or_else(|| streams::invalid_this(rt, "TransformStreamDefaultController"))
}

/// `controller.enqueue(chunk)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L336-L340>.
pub fn op_enqueue(rt: &mut Rt, controller: Value, chunk: Value) -> Completion {
    let t = receiver(rt, &controller)?;
    controller_enqueue(rt, t, chunk)?;
    Ok(Value::Undefined)
}

/// `controller.error(reason)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L345-L349>.
pub fn op_error(rt: &mut Rt, controller: Value, error: Value) -> Completion {
    let t = receiver(rt, &controller)?;
    transform_stream_error(rt, t, error);
    Ok(Value::Undefined)
}

/// `controller.terminate()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L595-L610>
/// `transformStreamDefaultControllerTerminate`.
pub fn op_terminate(rt: &mut Rt, controller: Value) -> Completion {
    let t = receiver(rt, &controller)?;
    let r = td(rt, t).readable;
    let c = streams::controller_index(rt, r);
    streams::default_controller_close(rt, c);
    let error = streams::invalid_state(rt, "TransformStream has been terminated");
    error_writable_and_unblock_write(rt, t, error);
    Ok(Value::Undefined)
}

/// A property of a transform object, or `None` when `obj` is none.
pub fn get(rt: &mut Rt, obj: ObjectId, prop: &str) -> Option<Completion> {
    Some(Ok(match (rt.lib.slot(obj), prop) {
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L190-L204>
        (Slot::TransformStream(t), "readable") => sides(rt, t).0,
        (Slot::TransformStream(t), "writable") => sides(rt, t).1,
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/transformstream.js#L318-L331>
        (Slot::TransformController(t), "desiredSize") => {
            let r = rt.lib.transforms[t as usize].readable;
            let c = streams::controller_index(rt, r);
            streams::desired_size(rt, c)
        }
        (Slot::TransformStream(_) | Slot::TransformController(_), _) => Value::Undefined,
        _ => return None,
    }))
}

/// What a transform object is.
pub fn host_class(rt: &Rt, obj: ObjectId) -> Option<HostClass> {
    match rt.lib.slot(obj) {
        Slot::TransformStream(_) => Some(HostClass::TransformStream),
        Slot::TransformController(_) => Some(HostClass::TransformStreamDefaultController),
        _ => None,
    }
}

// ---- the collector's view ---------------------------------------------------------

/// A TransformStream's object.
pub(crate) fn stream_obj(rt: &Rt, t: u32) -> ObjectId {
    rt.lib.transforms[t as usize].obj
}

/// The strong edges of a TransformStream or its controller (each holds the other: Node's
/// `stream[kState].controller` and `controller[kState].stream`); false when `slot` is none.
pub(crate) fn trace(rt: &Rt, slot: Slot, edges: &mut Vec<Value>) -> bool {
    let (Slot::TransformStream(t) | Slot::TransformController(t)) = slot else {
        return false;
    };
    let d = &rt.lib.transforms[t as usize];
    edges.push(Value::Object(d.obj));
    edges.push(Value::Object(d.controller_obj));
    edges.push(Value::Object(d.readable_obj));
    edges.push(Value::Object(writable::stream_obj(rt, d.writable)));
    edges.push(d.pending_write_chunk.clone());
    edges.push(d.transformer.clone());
    for method in [d.transform, d.flush, d.cancel] {
        if let Method::Script(f) = method {
            edges.push(Value::Object(f));
        }
    }
    edges.extend(
        d.finish_promise
            .iter()
            .chain(&d.perform_transform_rejected)
            .map(|&o| Value::Object(o)),
    );
    true
}

/// Forgets the record of a collected transform stream.
pub(crate) fn forget(rt: &mut Rt, slot: Slot) {
    if let Slot::TransformStream(t) = slot {
        let d = &mut rt.lib.transforms[t as usize];
        d.pending_write_chunk = Value::Undefined;
        d.transformer = Value::Undefined;
        d.transform = Method::Cleared;
        d.flush = Method::Cleared;
        d.cancel = Method::Cleared;
        d.perform_transform_rejected = None;
    }
}
