//! ReadableStreamPipeTo and `pipeThrough`: the Streams Standard's piping of
//! a ReadableStream into a WritableStream, with Node 26.12.1's loop.
//!
//! It exists because the spec leaves the loop itself to the implementation
//! ("in parallel", with only constraints on what it may do), so every
//! microtask of a pipe is Node's choice: when the next chunk is read, when
//! it is written, and how many microtasks each shutdown path takes. The
//! model transcribes the spec's steps (the reader and writer, the shutdown
//! conditions, "shutdown with an action", "shutdown" and "finalize") in the
//! order and at the microtask Node's `readableStreamPipeTo` performs them,
//! each departure marked `NODE:`:
//!
//! - the pump reads the source controller's queued chunks itself, in a
//!   batch, writing each at once, and yields between batches through a
//!   reaction on a resolved promise; only with an empty queue does it park
//!   a read request, whose chunk is written a microtask later;
//! - it waits for backpressure through a hook installed as the writer's
//!   ready record, which runs the pump inside the settle site (no
//!   microtask);
//! - writes are tracked by one shared request (no promise per write);
//! - a source or destination that is already errored or closed is acted
//!   on at once, not from a reaction;
//! - the signal's abort runs both actions through `SafePromiseAll`.
//!
//! Streams Standard: <https://streams.spec.whatwg.org/#readable-stream-pipe-to>.
//! Node 26.12.1: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1575-L1936>.

use nodesem_runtime::gc::Captures;
use nodesem_runtime::{Completion, ObjectId, Runtime, StreamPipeOptions, Value};

use nodesem_lang::Combinator;

use crate::streams::{
    self, a_new_promise, a_promise_rejected_with, a_promise_resolved_with, err_invalid_state,
    mark_as_handled, reject, resolve, upon_settlement, ReadRequest, ReadableStreamState,
};
use crate::writable::{self, WritableStreamState, WriteRequestKind};
use crate::{abort_listener, transform, Model};

type Rt = Runtime<Model>;

/// Which pipe: the hidden heap object that stands for its variables (the
/// closure context of Node's `readableStreamPipeTo`, which its read
/// request, its write tracker, its watchers' reactions and its abort
/// listener hold), see [`streams::new_record_object`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipeId(pub(crate) ObjectId);

/// The variables of one ReadableStreamPipeTo(source, dest, preventClose,
/// preventAbort, preventCancel, signal).
#[derive(Debug)]
pub struct Pipe {
    /// source
    pub source: ObjectId,
    /// dest
    pub dest: ObjectId,
    /// reader: the source's default reader.
    pub reader: ObjectId,
    /// writer: the destination's default writer.
    pub writer: ObjectId,
    /// preventClose
    pub prevent_close: bool,
    /// preventAbort
    pub prevent_abort: bool,
    /// preventCancel
    pub prevent_cancel: bool,
    /// signal
    pub signal: Option<ObjectId>,
    /// shuttingDown
    pub shutting_down: bool,
    /// promise: the promise pipeTo returns.
    pub promise: ObjectId,
    /// The Disposable of the signal's abort listener.
    pub disposable: Option<ObjectId>,
    /// Node's `writeTracker.pending`: writes queued and not yet settled.
    pub pending: u32,
    /// `writeTracker.failed`.
    pub failed: bool,
    /// `writeTracker.failure`.
    pub failure: Value,
    /// `writeTracker.stall`: the promise waitForPendingWrites waits on.
    pub stall: Option<ObjectId>,
    /// `pendingChunk`: the chunk of the read request, on its way to the
    /// write.
    pub pending_chunk: Value,
}

fn pipe(rt: &Rt, p: PipeId) -> &Pipe {
    &rt.lib.pipes[&p.0]
}

fn pipe_mut(rt: &mut Rt, p: PipeId) -> &mut Pipe {
    rt.lib.pipes.get_mut(&p.0).expect("a pipe")
}

impl Pipe {
    /// The pipe's variables that hold values: its strong edges.
    pub(crate) fn trace(&self, edges: &mut Vec<Value>) {
        edges.push(Value::Object(self.source));
        edges.push(Value::Object(self.dest));
        edges.push(Value::Object(self.reader));
        edges.push(Value::Object(self.writer));
        edges.extend(self.signal.map(Value::Object));
        edges.push(Value::Object(self.promise));
        edges.extend(self.disposable.map(Value::Object));
        edges.push(self.failure.clone());
        edges.extend(self.stall.map(Value::Object));
        edges.push(self.pending_chunk.clone());
    }
}

/// Node's `PromisePrototypeThen(kResolvedPromise, f)`: a reaction at the end
/// of the microtask queue; a throw of `f` rejects the reaction's derived
/// promise, which nothing handles (an unhandled rejection). `f` closes over
/// the pipe `p` only.
fn on_resolved_promise(rt: &mut Rt, p: PipeId, f: impl Fn(&mut Rt) -> Result<(), Value> + 'static) {
    let reaction = rt.native_function_capturing(Captures::objects(&[p.0]), move |rt, _, _| {
        f(rt)?;
        Ok(Value::Undefined)
    });
    let resolved = rt.promise_resolve(Value::Undefined);
    rt.promise_then(resolved, Some(reaction), None);
}

/// A throw out of a pipe step that Node runs in a promise reaction
/// (`PromisePrototypeThen(..., step)`): the reaction's derived promise is
/// rejected with it, and nothing handles it.
fn reject_derived(rt: &mut Rt, result: Result<(), Value>) {
    if let Err(e) = result {
        a_promise_rejected_with(rt, e);
    }
}

// ---- ReadableStream.prototype.pipeTo and pipeThrough ----------------------

/// Checks an options' signal: the AbortSignal, or Node's
/// `validateAbortSignal(signal, 'options.signal')` error.
fn signal_option(rt: &mut Rt, signal: Option<Value>) -> Result<Option<ObjectId>, Value> {
    match signal {
        None | Some(Value::Undefined) => Ok(None),
        Some(Value::Object(id)) if rt.lib.signals.contains_key(&id) => Ok(Some(id)),
        Some(other) => Err(rt.err_invalid_arg_type("options.signal", "AbortSignal", &other)),
    }
}

/// `source.pipeTo(destination, options)`
/// (<https://streams.spec.whatwg.org/#rs-pipe-to>).
pub fn pipe_to(rt: &mut Rt, source: Value, dest: Value, options: StreamPipeOptions) -> Completion {
    let source = match source {
        Value::Object(id) if rt.lib.streams.streams.contains_key(&id) => id,
        other => return Err(crate::cannot_read(rt, &other, "pipeTo")),
    };
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L444-L480
    // every error is a rejected promise, the destination's checked first
    // (`ERR_INVALID_ARG_TYPE('transform.writable', 'WritableStream', ...)`),
    // then the signal, then the locks.
    let dest = match dest {
        Value::Object(id) if rt.lib.writable.streams.contains_key(&id) => id,
        other => {
            let e = rt.err_invalid_arg_type("transform.writable", "WritableStream", &other);
            return Ok(Value::Object(a_promise_rejected_with(rt, e)));
        }
    };
    let signal = match signal_option(rt, options.signal) {
        Ok(signal) => signal,
        Err(e) => return Ok(Value::Object(a_promise_rejected_with(rt, e))),
    };
    // 1. If ! IsReadableStreamLocked(this) is true, return a promise rejected
    //    with a TypeError exception.
    if streams::is_readable_stream_locked(rt, source) {
        let e = err_invalid_state(rt, "The ReadableStream is locked");
        return Ok(Value::Object(a_promise_rejected_with(rt, e)));
    }
    // 2. If ! IsWritableStreamLocked(destination) is true, return a promise
    //    rejected with a TypeError exception.
    if writable::is_writable_stream_locked(rt, dest) {
        let e = err_invalid_state(rt, "The WritableStream is locked");
        return Ok(Value::Object(a_promise_rejected_with(rt, e)));
    }
    // 3. Let signal be options["signal"] if it exists, or undefined otherwise.
    // 4. Return ! ReadableStreamPipeTo(this, destination,
    //    options["preventClose"], options["preventAbort"],
    //    options["preventCancel"], signal).
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L470-L479
    // a throw out of readableStreamPipeTo (see its Err) is caught by
    // pipeTo's `catch`: a promise rejected with it.
    match readable_stream_pipe_to(
        rt,
        source,
        dest,
        options.prevent_close,
        options.prevent_abort,
        options.prevent_cancel,
        signal,
    ) {
        Ok(promise) => Ok(Value::Object(promise)),
        Err(e) => Ok(Value::Object(a_promise_rejected_with(rt, e))),
    }
}

/// `source.pipeThrough(transform, options)`
/// (<https://streams.spec.whatwg.org/#rs-pipe-through>).
pub fn pipe_through(
    rt: &mut Rt,
    source: Value,
    transform: Value,
    options: StreamPipeOptions,
) -> Completion {
    let source = match source {
        Value::Object(id) if rt.lib.streams.streams.contains_key(&id) => id,
        other => return Err(crate::cannot_read(rt, &other, "pipeThrough")),
    };
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L392-L437
    // `transform?.readable` must be a ReadableStream and
    // `transform?.writable` a WritableStream (ERR_INVALID_ARG_TYPE); of the
    // values a scenario makes, only a TransformStream has them.
    let t = match transform {
        Value::Object(id) if transform::is_transform_stream(rt, id) => id,
        _ => {
            return Err(rt.err_invalid_arg_type(
                "transform.readable",
                "ReadableStream",
                &Value::Undefined,
            ))
        }
    };
    let readable = transform::readable(rt, t);
    let writable = transform::writable_side(rt, t);
    let signal = signal_option(rt, options.signal)?;
    // 1. If ! IsReadableStreamLocked(this) is true, throw a TypeError exception.
    if streams::is_readable_stream_locked(rt, source) {
        return Err(err_invalid_state(rt, "The ReadableStream is locked"));
    }
    // 2. If ! IsWritableStreamLocked(transform["writable"]) is true, throw a
    //    TypeError exception.
    if writable::is_writable_stream_locked(rt, writable) {
        return Err(err_invalid_state(rt, "The WritableStream is locked"));
    }
    // 3. Let signal be options["signal"] if it exists, or undefined otherwise.
    // 4. Let promise be ! ReadableStreamPipeTo(this, transform["writable"],
    //    options["preventClose"], options["preventAbort"],
    //    options["preventCancel"], signal).
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L427-L433
    // no catch here: a throw out of readableStreamPipeTo is pipeThrough's.
    let promise = readable_stream_pipe_to(
        rt,
        source,
        writable,
        options.prevent_close,
        options.prevent_abort,
        options.prevent_cancel,
        signal,
    )?;
    // 5. Set promise.[[PromiseIsHandled]] to true.
    mark_as_handled(rt, promise);
    // 6. Return transform["readable"].
    Ok(Value::Object(readable))
}

// ---- ReadableStreamPipeTo --------------------------------------------------

/// ReadableStreamPipeTo(source, dest, preventClose, preventAbort,
/// preventCancel, signal)
/// (<https://streams.spec.whatwg.org/#readable-stream-pipe-to>).
///
/// An `Err` is an exception Node's `readableStreamPipeTo` throws where the
/// spec's `!` steps hold: the pump's write while the destination's close is
/// in flight fails Node's GetChunkSize assertion, and a cancel of a
/// terminated transform's readable throws (see
/// transform::source_cancel_algorithm). What was done before it stays done.
fn readable_stream_pipe_to(
    rt: &mut Rt,
    source: ObjectId,
    dest: ObjectId,
    prevent_close: bool,
    prevent_abort: bool,
    prevent_cancel: bool,
    signal: Option<ObjectId>,
) -> Result<ObjectId, Value> {
    // 1-7. (Asserts on the arguments; no signal is undefined.)
    // 8. If source.[[controller]] implements ReadableByteStreamController,
    //    ... (no byte streams here)
    // 9. Otherwise, let reader be ! AcquireReadableStreamDefaultReader(source).
    let reader =
        streams::acquire_readable_stream_default_reader(rt, source).expect("an unlocked source");
    // 10. Let writer be ! AcquireWritableStreamDefaultWriter(dest).
    let writer =
        writable::acquire_writable_stream_default_writer(rt, dest).expect("an unlocked dest");
    // 11. Set source.[[disturbed]] to true.
    streams::stream_mut(rt, source).disturbed = true;
    // 12. Let shuttingDown be false.
    // 13. Let promise be a new promise.
    let promise = a_new_promise(rt);
    let p = PipeId(streams::new_record_object(rt));
    rt.lib.pipes.insert(
        p.0,
        Pipe {
            source,
            dest,
            reader,
            writer,
            prevent_close,
            prevent_abort,
            prevent_cancel,
            signal,
            shutting_down: false,
            promise,
            disposable: None,
            pending: 0,
            failed: false,
            failure: Value::Undefined,
            stall: None,
            pending_chunk: Value::Undefined,
        },
    );
    // (The pipe's record, which holds its variables, is rooted for the rest
    // of the steps, as Node's frame holds them: the pump and the actions
    // run script code.)
    let mark = crate::gc::hold(rt, &[Value::Object(p.0)]);
    let result = readable_stream_pipe_to_steps(rt, p);
    crate::gc::release(rt, mark);
    result
}

/// ReadableStreamPipeTo's steps from 14 on, with the pipe's variables made.
fn readable_stream_pipe_to_steps(rt: &mut Rt, p: PipeId) -> Result<ObjectId, Value> {
    let Pipe {
        source,
        dest,
        reader,
        writer,
        prevent_cancel,
        signal,
        promise,
        ..
    } = *pipe(rt, p);
    // 14. If signal is not undefined,
    if let Some(signal) = signal {
        //   1. Let abortAlgorithm be the following steps: (abort_algorithm)
        //   2. If signal is aborted, perform abortAlgorithm and return promise.
        if crate::abort::aborted(rt, signal) {
            abort_algorithm(rt, p);
            return Ok(promise);
        }
        //   3. Add abortAlgorithm to signal.
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1880-L1887
        // `addAbortListener(signal, abortAlgorithm)`: an abort event
        // listener, removed by finalize.
        let listener = rt.native_function_capturing(Captures::objects(&[p.0]), move |rt, _, _| {
            abort_algorithm(rt, p);
            Ok(Value::Undefined)
        });
        let disposable = abort_listener::add_abort_listener(rt, signal, listener);
        pipe_mut(rt, p).disposable = Some(disposable);
    }
    // 15. In parallel (but not really; see #905), using reader and writer,
    //     read all chunks from source and write them to dest.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1889
    // the pump starts at once, before the shutdown conditions are checked:
    // a destination whose close is in flight has its algorithms cleared, and
    // the batch's first write fails Node's GetChunkSize assertion, thrown
    // out of readableStreamPipeTo with the reader and writer still locked,
    // the abort listener added and no watcher installed.
    pump(rt, p)?;
    //     "Error and close states must be propagated: the following
    //     conditions must be applied in order."
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1918-L1933
    // a source or destination already errored or closed is acted on now;
    // the watchers are reactions to the reader's and writer's closed
    // promises otherwise.
    //   1. Errors must be propagated forward: if source.[[state]] is or
    //      becomes "errored", then ...
    match streams::stream(rt, source).state {
        ReadableStreamState::Errored => {
            let e = streams::stream(rt, source).stored_error.clone();
            on_source_errored(rt, p, e)?;
        }
        ReadableStreamState::Readable => {
            let closed = streams::reader(rt, reader).closed_promise;
            // (Node's watchers run in reactions: a throw is an unhandled
            // rejection of theirs.)
            upon_settlement(
                rt,
                closed,
                &[Value::Object(p.0)],
                move |rt, _| {
                    let done = on_source_closed(rt, p);
                    reject_derived(rt, done)
                },
                move |rt, e| {
                    let done = on_source_errored(rt, p, e);
                    reject_derived(rt, done)
                },
            );
        }
        ReadableStreamState::Closed => {}
    }
    //   2. Errors must be propagated backward: if dest.[[state]] is or
    //      becomes "errored", then ...
    if writable::stream(rt, dest).state == WritableStreamState::Errored {
        let e = writable::stream(rt, dest).stored_error.clone();
        on_dest_errored(rt, p, e)?;
    } else {
        let closed = writable::writer(rt, writer).closed_promise;
        upon_settlement(
            rt,
            closed,
            &[Value::Object(p.0)],
            |_, _| {},
            move |rt, e| {
                let done = on_dest_errored(rt, p, e);
                reject_derived(rt, done)
            },
        );
    }
    //   3. Closing must be propagated forward: if source.[[state]] is or
    //      becomes "closed", then ...
    if streams::stream(rt, source).state == ReadableStreamState::Closed {
        on_source_closed(rt, p)?;
    }
    //   4. Closing must be propagated backward: if !
    //      WritableStreamCloseQueuedOrInFlight(dest) is true or
    //      dest.[[state]] is "closed", then
    if writable::writable_stream_close_queued_or_in_flight(rt, dest)
        || writable::stream(rt, dest).state == WritableStreamState::Closed
    {
        //   1. Assert: no chunks have been read or written.
        //   2. Let destClosed be a new TypeError.
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1924-L1926
        let dest_closed = err_invalid_state(rt, "Destination WritableStream is closed");
        //   3. If preventCancel is false, shutdown with an action of !
        //      ReadableStreamCancel(source, destClosed) and with destClosed.
        if !prevent_cancel {
            shutdown_with_an_action(
                rt,
                p,
                Action::CancelSource(dest_closed.clone()),
                true,
                dest_closed,
            )?;
        } else {
            //   4. Otherwise, shutdown with destClosed.
            shutdown(rt, p, true, dest_closed);
        }
    }
    // 16. Return promise.
    Ok(promise)
}

/// The abortAlgorithm of step 14.1.
fn abort_algorithm(rt: &mut Rt, p: PipeId) {
    let pipe = pipe(rt, p);
    let (source, dest, signal) = (pipe.source, pipe.dest, pipe.signal.expect("a signal"));
    let (prevent_abort, prevent_cancel) = (pipe.prevent_abort, pipe.prevent_cancel);
    // 1. Let error be signal's abort reason.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1720-L1726
    // (Node makes a DOMException of an `AbortError` of its own, which no
    // scenario's signal holds.)
    let error = crate::abort::reason(rt, signal);
    // 2. Let actions be an empty ordered set.
    let mut actions = Vec::new();
    // 3. If preventAbort is false, append the following action to actions:
    //    1. If dest.[[state]] is "writable", return ! WritableStreamAbort(dest,
    //       error).
    //    2. Otherwise, return a promise resolved with undefined.
    if !prevent_abort {
        actions.push(Action::AbortDestIfWritable(error.clone()));
    }
    // 4. If preventCancel is false, append the following action to actions:
    //    1. If source.[[state]] is "readable", return ! ReadableStreamCancel(
    //       source, error).
    //    2. Otherwise, return a promise resolved with undefined.
    if !prevent_cancel {
        actions.push(Action::CancelSourceIfReadable(error.clone()));
    }
    let _ = (source, dest);
    // 5. Shutdown with an action consisting of getting a promise to wait for
    //    all of the actions in actions, and with error.
    // (Waiting for all of them throws nothing: each action's throw rejects
    // its SafePromise, see perform_action.)
    if let Err(e) = shutdown_with_an_action(rt, p, Action::All(actions), true, error) {
        rt.report_uncaught(&e);
    }
}

// ---- the pump ---------------------------------------------------------------

/// Node's `pump()`: one step of step 15's loop.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1807-L1877>
///
/// An `Err` is the throw of a write (see pipe_write), out of the pump to its
/// caller.
pub(crate) fn pump(rt: &mut Rt, p: PipeId) -> Result<(), Value> {
    // "Shutdown must stop activity: if shuttingDown becomes true, the user
    // agent must not initiate further reads from reader, and must only
    // perform writes of already-read chunks."
    if pipe(rt, p).shutting_down {
        return Ok(());
    }
    let (source, dest, writer, reader) = {
        let pipe = pipe(rt, p);
        (pipe.source, pipe.dest, pipe.writer, pipe.reader)
    };
    // "Backpressure must be enforced: while WritableStreamDefaultWriterGetDesiredSize(writer)
    // is ≤ 0 or is null, the user agent must not read from reader."
    if writable::stream(rt, dest).backpressure {
        park_on_ready(rt, p);
        return Ok(());
    }
    let c = streams::stream_controller(rt, source);
    // (Node's `isReadableStreamDefaultController(controller)`: a byte
    // source always takes the read request below.)
    if streams::stream(rt, source).state == ReadableStreamState::Readable
        && !streams::is_byte_controller(rt, c)
        && !streams::controller(rt, c).queue.is_empty()
    {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1818-L1862
        // the queued chunks are taken from the controller in a batch, each
        // written at once (the [[PullSteps]] of a read, without a read
        // request).
        while !streams::controller(rt, c).queue.is_empty() {
            if pipe(rt, p).shutting_down {
                return Ok(());
            }
            let chunk = streams::dequeue_value(rt, c);
            if streams::controller(rt, c).close_requested
                && streams::controller(rt, c).queue.is_empty()
            {
                streams::readable_stream_default_controller_clear_algorithms(rt, c);
                streams::readable_stream_close(rt, source);
            }
            // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1809-L1811
            // a throw of the write (the GetChunkSize assertion of a
            // destination whose close is in flight) leaves the pump at once.
            pipe_write(rt, p, writer, chunk)?;
            if writable::stream(rt, dest).backpressure
                || writable::stream(rt, dest).state != WritableStreamState::Writable
                || writable::writable_stream_close_queued_or_in_flight(rt, dest)
            {
                break;
            }
        }
        streams::readable_stream_default_controller_call_pull_if_needed(rt, c);
        if streams::stream(rt, source).state == ReadableStreamState::Closed {
            return Ok(());
        }
        if writable::stream(rt, dest).backpressure {
            park_on_ready(rt, p);
            return Ok(());
        }
        on_resolved_promise(rt, p, move |rt| pump(rt, p));
        return Ok(());
    }
    // Otherwise a read request: ReadableStreamDefaultReaderRead(reader,
    // readRequest), whose chunk steps write the chunk a microtask later.
    streams::readable_stream_default_reader_read(rt, reader, ReadRequest::Pipe { pipe: p });
    Ok(())
}

/// Node's `parkOnReady()`: the pump waits for the writer's ready promise,
/// through a hook installed as the writer's ready record.
fn park_on_ready(rt: &mut Rt, p: PipeId) {
    let writer = pipe(rt, p).writer;
    writable::writer_mut(rt, writer).ready_hook = Some(p);
}

/// The chunk steps of the pipe's read request.
pub(crate) fn read_request_chunk_steps(rt: &mut Rt, p: PipeId, chunk: Value) {
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1866-L1873
    // the chunk is written from a reaction on a resolved promise
    // (`forwardChunk`), then the pump goes on.
    pipe_mut(rt, p).pending_chunk = chunk;
    // (A throw from `forwardChunk` rejects the reaction's derived promise:
    // Node reports it as an unhandled rejection.)
    let forward_chunk = rt.native_function_capturing(Captures::objects(&[p.0]), move |rt, _, _| {
        let chunk = std::mem::replace(&mut pipe_mut(rt, p).pending_chunk, Value::Undefined);
        let writer = pipe(rt, p).writer;
        pipe_write(rt, p, writer, chunk)?;
        pump(rt, p)?;
        Ok(Value::Undefined)
    });
    let resolved = rt.promise_resolve(Value::Undefined);
    rt.promise_then(resolved, Some(forward_chunk), None);
}

/// Node's `writableStreamDefaultWriterWriteWithRequest(writer, chunk,
/// writeTracker)`.
fn pipe_write(rt: &mut Rt, p: PipeId, writer: ObjectId, chunk: Value) -> Result<(), Value> {
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1000-L1004
    // `assert(stream !== undefined)`: a chunk read before the pipe
    // finalized (the read request's, on its way to the write) meets a
    // released writer, and Node's assertion throws.
    if writable::writer(rt, writer).stream.is_none() {
        return Err(rt.internal_assertion_error());
    }
    writable::writable_stream_default_writer_write(rt, writer, chunk, WriteRequestKind::Pipe(p))
        .map(|_| ())
}

// ---- the shared write request ---------------------------------------------

/// A write of the pipe was queued.
pub(crate) fn write_request_added(rt: &mut Rt, p: PipeId) {
    pipe_mut(rt, p).pending += 1;
}

/// A write of the pipe could not be queued.
pub(crate) fn write_request_failed(rt: &mut Rt, p: PipeId, e: Value) {
    let pipe = pipe_mut(rt, p);
    pipe.failed = true;
    pipe.failure = e;
}

/// "Resolve writeRequest": `writeTracker.resolve()`.
pub(crate) fn write_request_resolve(rt: &mut Rt, p: PipeId) {
    let pipe = pipe_mut(rt, p);
    pipe.pending -= 1;
    if pipe.pending == 0 {
        if let Some(stall) = pipe.stall.take() {
            if pipe.failed {
                let failure = pipe.failure.clone();
                reject(rt, stall, failure);
            } else {
                resolve(rt, stall, Value::Undefined);
            }
        }
    }
}

/// "Reject writeRequest with error": `writeTracker.reject(error)`.
pub(crate) fn write_request_reject(rt: &mut Rt, p: PipeId, error: Value) {
    let pipe = pipe_mut(rt, p);
    pipe.pending -= 1;
    pipe.failed = true;
    pipe.failure = error.clone();
    if let Some(stall) = pipe.stall.take() {
        reject(rt, stall, error);
    }
}

/// "Wait until every chunk that has been read has been written (i.e. the
/// corresponding promises have settled)": Node's `waitForPendingWrites()`.
fn wait_for_pending_writes(rt: &mut Rt, p: PipeId) -> ObjectId {
    if pipe(rt, p).pending == 0 {
        return if pipe(rt, p).failed {
            let failure = pipe(rt, p).failure.clone();
            a_promise_rejected_with(rt, failure)
        } else {
            a_promise_resolved_with(rt, Value::Undefined)
        };
    }
    let stall = a_new_promise(rt);
    pipe_mut(rt, p).stall = Some(stall);
    stall
}

// ---- the shutdown conditions -----------------------------------------------

/// Step 15's first condition: source.[[state]] is or becomes "errored".
fn on_source_errored(rt: &mut Rt, p: PipeId, error: Value) -> Result<(), Value> {
    // 1. If preventAbort is false, shutdown with an action of !
    //    WritableStreamAbort(dest, source.[[storedError]]) and with
    //    source.[[storedError]].
    if !pipe(rt, p).prevent_abort {
        shutdown_with_an_action(rt, p, Action::AbortDest(error.clone()), true, error)
    } else {
        // 2. Otherwise, shutdown with source.[[storedError]].
        shutdown(rt, p, true, error);
        Ok(())
    }
}

/// Step 15's second condition: dest.[[state]] is or becomes "errored".
fn on_dest_errored(rt: &mut Rt, p: PipeId, error: Value) -> Result<(), Value> {
    // 1. If preventCancel is false, shutdown with an action of !
    //    ReadableStreamCancel(source, dest.[[storedError]]) and with
    //    dest.[[storedError]].
    if !pipe(rt, p).prevent_cancel {
        shutdown_with_an_action(rt, p, Action::CancelSource(error.clone()), true, error)
    } else {
        // 2. Otherwise, shutdown with dest.[[storedError]].
        shutdown(rt, p, true, error);
        Ok(())
    }
}

/// Step 15's third condition: source.[[state]] is or becomes "closed".
fn on_source_closed(rt: &mut Rt, p: PipeId) -> Result<(), Value> {
    // 1. If preventClose is false, shutdown with an action of !
    //    WritableStreamDefaultWriterCloseWithErrorPropagation(writer).
    if !pipe(rt, p).prevent_close {
        shutdown_with_an_action(rt, p, Action::CloseDest, false, Value::Undefined)
    } else {
        // 2. Otherwise, shutdown.
        shutdown(rt, p, false, Value::Undefined);
        Ok(())
    }
}

/// The action of a "shutdown with an action".
#[derive(Clone, Debug)]
enum Action {
    /// ! WritableStreamAbort(dest, error).
    AbortDest(Value),
    /// ! ReadableStreamCancel(source, error).
    CancelSource(Value),
    /// ! WritableStreamDefaultWriterCloseWithErrorPropagation(writer).
    CloseDest,
    /// The abort algorithm's first action: abort dest if it is writable.
    AbortDestIfWritable(Value),
    /// Its second: cancel source if it is readable.
    CancelSourceIfReadable(Value),
    /// Waiting for all of the abort algorithm's actions.
    All(Vec<Action>),
}

impl Action {
    /// The values the action holds (its errors).
    fn values(&self, out: &mut Vec<Value>) {
        match self {
            Action::AbortDest(e)
            | Action::CancelSource(e)
            | Action::AbortDestIfWritable(e)
            | Action::CancelSourceIfReadable(e) => out.push(e.clone()),
            Action::CloseDest => {}
            Action::All(actions) => actions.iter().for_each(|a| a.values(out)),
        }
    }
}

/// Performs an action: its promise, or the exception of a cancel of a
/// terminated transform's readable (see transform::source_cancel_algorithm).
fn perform_action(rt: &mut Rt, p: PipeId, action: Action) -> Result<ObjectId, Value> {
    let (source, dest, writer) = {
        let pipe = pipe(rt, p);
        (pipe.source, pipe.dest, pipe.writer)
    };
    Ok(match action {
        Action::AbortDest(e) => writable::writable_stream_abort(rt, dest, e),
        Action::CancelSource(e) => streams::readable_stream_cancel(rt, source, e)?,
        Action::CloseDest => {
            writable::writable_stream_default_writer_close_with_error_propagation(rt, writer)
        }
        Action::AbortDestIfWritable(e) => {
            if writable::stream(rt, dest).state == WritableStreamState::Writable {
                writable::writable_stream_abort(rt, dest, e)
            } else {
                a_promise_resolved_with(rt, Value::Undefined)
            }
        }
        Action::CancelSourceIfReadable(e) => {
            if streams::stream(rt, source).state == ReadableStreamState::Readable {
                streams::readable_stream_cancel(rt, source, e)?
            } else {
                a_promise_resolved_with(rt, Value::Undefined)
            }
        }
        Action::All(actions) => {
            // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1748-L1751
            // `SafePromiseAll(actions, (action) => action())`: each action's
            // promise is followed by a SafePromise (one microtask), those go
            // through `SafePromise.all`, and its result through a `then`
            // into a new Promise.
            let mut followers = Vec::with_capacity(actions.len());
            // (The followers made so far are rooted while the next action
            // runs script code.)
            let mark = crate::gc::hold(rt, &[]);
            for action in actions {
                let follower = rt.new_promise();
                crate::gc::hold(rt, &[Value::Object(follower)]);
                match perform_action(rt, p, action) {
                    Ok(result) => {
                        let (res, rej) = rt.create_resolving_functions(follower);
                        rt.perform_promise_then(result, Some(res), Some(rej), None);
                    }
                    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/per_context/primordials.js#L500-L507
                    // the action runs in the SafePromise's executor: its
                    // throw rejects that promise at once.
                    Err(e) => reject(rt, follower, e),
                }
                followers.push(Value::Object(follower));
            }
            crate::gc::release(rt, mark);
            let all = rt.promise_combinator(Combinator::All, followers);
            let outer = rt.new_promise();
            let (res, rej) = rt.create_resolving_functions(outer);
            rt.perform_promise_then(all, Some(res), Some(rej), None);
            outer
        }
    })
}

/// "Shutdown with an action": given an action and optionally an error
/// (`rejected` says whether one was given: the error may be undefined).
fn shutdown_with_an_action(
    rt: &mut Rt,
    p: PipeId,
    action: Action,
    rejected: bool,
    original_error: Value,
) -> Result<(), Value> {
    // 1. If shuttingDown is true, abort these substeps.
    if pipe(rt, p).shutting_down {
        return Ok(());
    }
    // 2. Set shuttingDown to true.
    pipe_mut(rt, p).shutting_down = true;
    let dest = pipe(rt, p).dest;
    // 3. If dest.[[state]] is "writable" and !
    //    WritableStreamCloseQueuedOrInFlight(dest) is false,
    if writable::stream(rt, dest).state == WritableStreamState::Writable
        && !writable::writable_stream_close_queued_or_in_flight(rt, dest)
    {
        //   1. If any chunks have been read but not yet written, write them
        //      to dest.
        //   2. Wait until every chunk that has been read has been written
        //      (i.e. the corresponding promises have settled).
        let wait = wait_for_pending_writes(rt, p);
        let mut captures = vec![Value::Object(p.0), original_error.clone()];
        action.values(&mut captures);
        upon_settlement(
            rt,
            wait,
            &captures,
            move |rt, _| {
                let done = complete(rt, p, action.clone(), rejected, original_error.clone());
                reject_derived(rt, done)
            },
            move |rt, e| finalize(rt, p, true, e),
        );
        return Ok(());
    }
    complete(rt, p, action, rejected, original_error)
}

/// Steps 4-6 of "shutdown with an action".
///
/// NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1687-L1692
/// a throw of the action leaves `complete()` to its caller, the pipe never
/// finalized.
fn complete(
    rt: &mut Rt,
    p: PipeId,
    action: Action,
    rejected: bool,
    original_error: Value,
) -> Result<(), Value> {
    // 4. Let p be the result of performing action.
    // (originalError is rooted while the action runs script code.)
    let promise = streams::rooted(rt, &[Value::Object(p.0), original_error.clone()], |rt| {
        perform_action(rt, p, action)
    })?;
    upon_settlement(
        rt,
        promise,
        &[Value::Object(p.0), original_error.clone()],
        // 5. Upon fulfillment of p, finalize, passing along originalError if
        //    it was given.
        move |rt, _| finalize(rt, p, rejected, original_error.clone()),
        // 6. Upon rejection of p with reason newError, finalize with newError.
        move |rt, new_error| finalize(rt, p, true, new_error),
    );
    Ok(())
}

/// "Shutdown", optionally with an error.
fn shutdown(rt: &mut Rt, p: PipeId, rejected: bool, error: Value) {
    // 1. If shuttingDown is true, abort these substeps.
    if pipe(rt, p).shutting_down {
        return;
    }
    // 2. Set shuttingDown to true.
    pipe_mut(rt, p).shutting_down = true;
    let dest = pipe(rt, p).dest;
    // 3. If dest.[[state]] is "writable" and !
    //    WritableStreamCloseQueuedOrInFlight(dest) is false,
    if writable::stream(rt, dest).state == WritableStreamState::Writable
        && !writable::writable_stream_close_queued_or_in_flight(rt, dest)
    {
        //   1. If any chunks have been read but not yet written, write them
        //      to dest.
        //   2. Wait until every chunk that has been read has been written.
        let wait = wait_for_pending_writes(rt, p);
        upon_settlement(
            rt,
            wait,
            &[Value::Object(p.0), error.clone()],
            move |rt, _| finalize(rt, p, rejected, error.clone()),
            move |rt, e| finalize(rt, p, true, e),
        );
        return;
    }
    // 4. Finalize, passing along error if it was given.
    finalize(rt, p, rejected, error);
}

/// "Finalize", optionally with an error.
fn finalize(rt: &mut Rt, p: PipeId, rejected: bool, error: Value) {
    let (reader, writer, promise, disposable) = {
        let pipe = pipe(rt, p);
        (pipe.reader, pipe.writer, pipe.promise, pipe.disposable)
    };
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1650-L1656
    // the ready hook is dropped first.
    writable::writer_mut(rt, writer).ready_hook = None;
    // 1. Perform ! WritableStreamDefaultWriterRelease(writer).
    writable::writable_stream_default_writer_release(rt, writer);
    // 2. If reader implements ReadableStreamBYOBReader, ... (no BYOB readers)
    // 3. Otherwise, perform ! ReadableStreamDefaultReaderRelease(reader).
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1658
    // `readableStreamReaderGenericRelease(reader)`: the pipe's read request
    // is not rejected (its error steps do nothing anyway).
    streams::readable_stream_reader_generic_release(rt, reader);
    // 4. If signal is not undefined, remove abortAlgorithm from signal.
    if let Some(d) = disposable {
        abort_listener::dispose(rt, d);
    }
    // 5. If error was given, reject promise with error.
    if rejected {
        reject(rt, promise, error);
    } else {
        // 6. Otherwise, resolve promise with undefined.
        resolve(rt, promise, Value::Undefined);
    }
}

/// Every pipe's shuttingDown, in the order the pipes were made (for tests
/// and tools that inspect the model).
pub fn shutting_down(rt: &Rt) -> Vec<bool> {
    rt.lib
        .pipes
        .ids()
        .map(|p| rt.lib.pipes[&p].shutting_down)
        .collect()
}

/// Every pipe's count of writes in flight or queued (Node's
/// `writeTracker.pending`).
pub fn pending_writes(rt: &Rt) -> Vec<u32> {
    rt.lib
        .pipes
        .ids()
        .map(|p| rt.lib.pipes[&p].pending)
        .collect()
}
