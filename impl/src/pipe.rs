//! `pipeTo` and `pipeThrough`, built the way Node's `readableStreamPipeTo`
//! (lib/internal/webstreams/readablestream.js) builds them.
//!
//! NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1575-L1936>
//! `readableStreamPipeTo`: its closures share one [`PipeData`]. Node's shape is kept because it
//! decides the microtask positions:
//!
//! - one shared write request, the `writeTracker` ([`WriteRequest::Pipe`]), counts the chunks
//!   in flight instead of a promise per write; `waitForPendingWrites` arms a `stall` record;
//! - the pump is callback-driven: with chunks queued in the source's controller it dequeues them
//!   in a batch and yields on the shared resolved promise; else it parks one reused read request
//!   ([`ReadRequest::Pipe`]) whose chunk steps forward the chunk a microtask later;
//! - on backpressure it parks on a hook installed as the writer's ready record
//!   ([`WriterRecord::PipeReady`]), which runs the pump synchronously when backpressure clears;
//! - Seed ("Closed watchers as records instead of promises"): the pipe holds the only references
//!   to its reader and writer, so the source's close and error watchers and the destination's
//!   error watcher are installed as their `[[closedPromise]]` records themselves
//!   ([`Closed::PipeHook`](crate::streams) and [`WriterRecord::PipeClosed`]); the settle sites
//!   settle the record where they would have settled the promise, and the hook queues the watcher
//!   at the microtask position its reaction would have had ([`queue_watcher`]), with no promise
//!   made (the hooks' shared forever-pending promise is what the probes see:
//!   `record_pending` is true for a hook, and `setPromiseHandled` skips it).
//!
//! [`WriteRequest::Pipe`]: crate::writable::WriteRequest::Pipe
//! [`ReadRequest::Pipe`]: crate::streams
//! [`WriterRecord::PipeReady`]: crate::writable::WriterRecord::PipeReady
//! [`WriterRecord::PipeClosed`]: crate::writable::WriterRecord::PipeClosed

use nodesem_lang::Combinator;
use nodesem_runtime::{Captures, Completion, Job, ObjectId, Runtime, StreamPipeOptions, Value};

use crate::streams::{self, captured, StreamState};
use crate::writable::{self, WState, WriterRecord};
use crate::{abort, alloc_host, Impl, Mutant, Slot};

type Rt = Runtime<Impl>;

/// The state `readableStreamPipeTo`'s closures share.
#[derive(Debug)]
pub(crate) struct PipeData {
    /// The hidden object standing for the closures' shared state ([`Slot::PipeState`]).
    obj: ObjectId,
    /// `source`: the readable stream's index.
    source: u32,
    /// `dest`: the writable stream's index.
    dest: u32,
    /// `reader` (a default reader's index).
    reader: u32,
    /// `writer` (a writer's index).
    writer: u32,
    prevent_close: bool,
    prevent_abort: bool,
    prevent_cancel: bool,
    /// `signal`: the signal's index.
    signal: Option<u32>,
    /// `disposable` of `addAbortListener`.
    disposable: Option<Value>,
    /// `shuttingDown`.
    shutting_down: bool,
    /// `promise.promise`.
    promise: ObjectId,
    /// `writeTracker.pending`.
    pending: u32,
    /// `writeTracker.failed`.
    failed: bool,
    /// `writeTracker.failure`.
    failure: Value,
    /// `writeTracker.stall`.
    stall: Option<ObjectId>,
    /// `pendingChunk`.
    pending_chunk: Value,
}

/// A shutdown action of `shutdownWithAnAction`.
#[derive(Clone, Debug)]
enum Action {
    /// `() => writableStreamAbort(dest, error)` (source errored).
    AbortDest(Value),
    /// `() => writableStreamDefaultWriterCloseWithErrorPropagation(writer)` (source closed).
    CloseDest,
    /// `() => readableStreamCancel(source, error)` (dest errored or closed).
    CancelSource(Value),
    /// `() => SafePromiseAll(actions, (action) => action())` of `abortAlgorithm`.
    Abort(Value),
}

fn pd(rt: &mut Rt, p: u32) -> &mut PipeData {
    &mut rt.lib.pipes[p as usize]
}

/// `stream.pipeTo(destination, options)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L444-L480>.
pub fn pipe_to(rt: &mut Rt, stream: Value, dest: Value, options: StreamPipeOptions) -> Completion {
    // (`pipeTo`'s try/catch: a throw of `readableStreamPipeTo` rejects too.)
    let piped = pipe_checks(rt, &stream, &dest, &options, "transform.writable")
        .and_then(|(s, w, signal)| readable_stream_pipe_to(rt, s, w, &options, signal));
    match piped {
        Ok(promise) => Ok(Value::Object(promise)),
        Err(e) => streams::rejected(rt, e),
    }
}

/// The checks of `pipeTo` and `pipeThrough` after the receiver's and destination's brands, in
/// Node's order: the signal, then the locks.
fn pipe_checks(
    rt: &mut Rt,
    stream: &Value,
    dest: &Value,
    options: &StreamPipeOptions,
    dest_name: &str,
) -> Result<(u32, u32, Option<u32>), Value> {
    let Some(s) = streams::stream_of(rt, stream) else {
        return Err(streams::invalid_this(rt, "ReadableStream"));
    };
    let Some(w) = writable::stream_of(rt, dest) else {
        return Err(rt.err_invalid_arg_type(dest_name, "WritableStream", dest));
    };
    let signal = match &options.signal {
        None | Some(Value::Undefined) => None,
        Some(v) => match v.as_object().map(|o| rt.lib.slot(o)) {
            Some(Slot::Signal(i)) => Some(i),
            _ => return Err(rt.err_invalid_arg_type("options.signal", "AbortSignal", v)),
        },
    };
    if streams::is_locked(rt, s) {
        return Err(streams::invalid_state(rt, "The ReadableStream is locked"));
    }
    if writable::is_locked(rt, w) {
        return Err(streams::invalid_state(rt, "The WritableStream is locked"));
    }
    Ok((s, w, signal))
}

/// `stream.pipeThrough(transform, options)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L392-L437>.
pub fn pipe_through(
    rt: &mut Rt,
    stream: Value,
    transform: Value,
    options: StreamPipeOptions,
) -> Completion {
    if streams::stream_of(rt, &stream).is_none() {
        return Err(streams::invalid_this(rt, "ReadableStream"));
    }
    let (readable, writable) = match transform.as_object().map(|o| rt.lib.slot(o)) {
        Some(Slot::TransformStream(t)) => crate::transformstream::sides(rt, t),
        // `transform?.readable` of anything else is undefined.
        _ => {
            return Err(rt.err_invalid_arg_type(
                "transform.readable",
                "ReadableStream",
                &Value::Undefined,
            ))
        }
    };
    let (s, w, signal) = pipe_checks(rt, &stream, &writable, &options, "transform.writable")?;
    // (No try/catch here: a throw of `readableStreamPipeTo` is thrown out of `pipeThrough`.)
    let promise = readable_stream_pipe_to(rt, s, w, &options, signal)?;
    streams::set_promise_handled(rt, promise);
    Ok(readable)
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1575-L1936>
/// `readableStreamPipeTo`.
fn readable_stream_pipe_to(
    rt: &mut Rt,
    s: u32,
    w: u32,
    options: &StreamPipeOptions,
    signal: Option<u32>,
) -> Result<ObjectId, Value> {
    // Neither can throw: the locks were checked.
    let reader = streams::setup_default_reader(rt, s).expect("unlocked");
    let writer = writable::setup_writer(rt, w).expect("unlocked");
    streams::set_disturbed(rt, s);
    let promise = rt.new_promise();
    let p = rt.lib.pipes.len() as u32;
    let obj = alloc_host(rt, |_| Slot::PipeState(p));
    rt.lib.pipes.push(PipeData {
        obj,
        source: s,
        dest: w,
        reader,
        writer,
        prevent_close: options.prevent_close,
        prevent_abort: options.prevent_abort,
        prevent_cancel: options.prevent_cancel,
        signal,
        disposable: None,
        shutting_down: false,
        promise,
        pending: 0,
        failed: false,
        failure: Value::Undefined,
        stall: None,
        pending_chunk: Value::Undefined,
    });
    // `readableStreamPipeTo`'s frame holds its closures' context and the promise while the
    // first pump and the watchers run script code.
    rt.holding(&[Value::Object(obj), Value::Object(promise)], |rt| {
        start_pipe(rt, p, signal)
    })?;
    Ok(promise)
}

/// The rest of `readableStreamPipeTo` once its state is made: the signal, the first pump, the
/// watchers.
fn start_pipe(rt: &mut Rt, p: u32, signal: Option<u32>) -> Result<(), Value> {
    let (s, w, reader, writer) = {
        let d = pd(rt, p);
        (d.source, d.dest, d.reader, d.writer)
    };
    if let Some(signal) = signal {
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1861-L1868>.
        if rt.lib.signals[signal as usize].aborted {
            return abort_algorithm(rt, p);
        }
        let captures = Captures::values(vec![state_value(rt, p)]);
        let listener = rt.native_function_capturing(captures, move |rt, _, _| {
            abort_algorithm(rt, p).map(|()| Value::Undefined)
        });
        let signal_obj = Value::Object(rt.lib.signals[signal as usize].obj);
        let disposable = abort::op_add_abort_listener(rt, &signal_obj, &Value::Object(listener))
            .expect("a signal and a function");
        pd(rt, p).disposable = Some(disposable);
    }
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1870>
    // what the first pump throws (see `write_with_tracker`) is thrown out of
    // `readableStreamPipeTo` before any watcher is installed: the reader and writer stay locked.
    pump(rt, p)?;
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1900-L1933>:
    // the watchers, each installed as its record (see the module docs).
    match streams::state(rt, s) {
        StreamState::Errored => {
            let e = streams::stored_error(rt, s);
            on_source_errored(rt, p, e)?;
        }
        StreamState::Readable => streams::set_pipe_hook(rt, reader, p),
        StreamState::Closed => {}
    }
    if writable::state(rt, w) == WState::Errored {
        let e = writable::stored_error(rt, w);
        on_dest_errored(rt, p, e)?;
    } else {
        writable::set_writer_close(rt, writer, WriterRecord::PipeClosed(p));
    }
    if streams::state(rt, s) == StreamState::Closed {
        on_source_closed(rt, p)?;
    }
    if writable::close_queued_or_in_flight(rt, w) || writable::state(rt, w) == WState::Closed {
        let error = streams::invalid_state(rt, "Destination WritableStream is closed");
        if !pd(rt, p).prevent_cancel {
            shutdown_with_an_action(rt, p, Action::CancelSource(error.clone()), true, error)?;
        } else {
            shutdown(rt, p, true, error);
        }
    }
    Ok(())
}

// ---- the hooks --------------------------------------------------------------------

/// Seed ("Closed watchers as records instead of promises"): a hook's watcher, queued at the
/// microtask position the reaction to the settled `[[closedPromise]]` would have had
/// (`PromisePrototypeThen(kResolvedPromise, ...)`, the next microtask).
///
/// `held` is what the watcher captures besides the pipe's state (an error).
fn queue_watcher(
    rt: &mut Rt,
    p: u32,
    held: Vec<Value>,
    watcher: Box<dyn FnOnce(&mut Rt) -> Thrown>,
) {
    let late = rt.lib.mutant == Some(Mutant::PipeWatcherLate);
    let again = held.clone();
    queue_reaction(rt, p, held, move |rt| {
        if late {
            // The mutant: one microtask later than the reaction.
            queue_reaction(rt, p, again, watcher);
            return Ok(());
        }
        watcher(rt)
    });
}

/// What a pipe step returns: `Err` with what it throws.
type Thrown = Result<(), Value>;

/// `PromisePrototypeThen(kResolvedPromise, step)`, without the promise: the step runs a microtask
/// later, and what it throws rejects a promise no one handles, as it would the reaction's
/// (an unhandled rejection).
///
/// The step captures the pipe's state (`p`) and `held`.
fn queue_reaction(
    rt: &mut Rt,
    p: u32,
    mut held: Vec<Value>,
    step: impl FnOnce(&mut Rt) -> Thrown + 'static,
) {
    held.push(state_value(rt, p));
    rt.enqueue_microtask(Job::Task(captured(held, move |rt| {
        if let Err(thrown) = step(rt) {
            rt.promise_reject_new(thrown);
        }
        Ok(Value::Undefined)
    })));
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1551-L1554>
/// `ClosedPromiseHook.prototype.resolve` of the reader's hook: `onSourceClosed`, a microtask on.
pub(crate) fn source_hook_resolve(rt: &mut Rt, p: u32) {
    queue_watcher(
        rt,
        p,
        Vec::new(),
        Box::new(move |rt| on_source_closed(rt, p)),
    );
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1556-L1559>
/// `ClosedPromiseHook.prototype.reject` of the reader's hook: `onSourceErrored(error)`.
pub(crate) fn source_hook_reject(rt: &mut Rt, p: u32, error: Value) {
    let held = vec![error.clone()];
    queue_watcher(
        rt,
        p,
        held,
        Box::new(move |rt| on_source_errored(rt, p, error)),
    );
}

/// `ClosedPromiseHook.prototype.reject` of the writer's hook: `onDestErrored(error)`.
pub(crate) fn dest_hook_reject(rt: &mut Rt, p: u32, error: Value) {
    let held = vec![error.clone()];
    queue_watcher(
        rt,
        p,
        held,
        Box::new(move |rt| on_dest_errored(rt, p, error)),
    );
}

// ---- the write tracker ---------------------------------------------------------------

/// `request.pending++`.
pub(crate) fn tracker_pending_inc(rt: &mut Rt, p: u32) {
    pd(rt, p).pending += 1;
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1621-L1630>
/// `writeTracker.resolve()`.
pub(crate) fn tracker_resolve(rt: &mut Rt, p: u32) {
    let d = pd(rt, p);
    d.pending -= 1;
    if d.pending == 0 {
        if let Some(stall) = d.stall.take() {
            if d.failed {
                let failure = d.failure.clone();
                rt.reject_promise(stall, failure);
            } else {
                rt.resolve_promise_with(stall, Value::Undefined);
            }
        }
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1631-L1640>
/// `writeTracker.reject(error)`.
pub(crate) fn tracker_reject(rt: &mut Rt, p: u32, error: Value) {
    let d = pd(rt, p);
    d.pending -= 1;
    d.failed = true;
    d.failure = error.clone();
    if let Some(stall) = d.stall.take() {
        rt.reject_promise(stall, error);
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1664-L1672>
/// `waitForPendingWrites`.
fn wait_for_pending_writes(rt: &mut Rt, p: u32) -> ObjectId {
    let d = pd(rt, p);
    if d.pending == 0 {
        return if d.failed {
            let failure = d.failure.clone();
            rt.promise_reject_new(failure)
        } else {
            rt.promise_resolve(Value::Undefined)
        };
    }
    let stall = rt.new_promise();
    pd(rt, p).stall = Some(stall);
    stall
}

// ---- shutdown ----------------------------------------------------------------------

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1646-L1662>
/// `finalize(rejected, error)`.
fn finalize(rt: &mut Rt, p: u32, rejected: bool, error: Value) {
    let d = &rt.lib.pipes[p as usize];
    let (reader, writer, promise, disposable) =
        (d.reader, d.writer, d.promise, d.disposable.clone());
    writable::drop_writer_records(rt, writer);
    streams::drop_reader_close(rt, reader);
    writable::writer_release(rt, writer);
    streams::reader_generic_release(rt, reader);
    if let Some(disposable) = disposable {
        let _ = abort::op_dispose(rt, &disposable);
    }
    if rejected {
        rt.reject_promise(promise, error);
    } else {
        rt.resolve_promise_with(promise, Value::Undefined);
    }
}

/// `(error) => finalize(true, error)`.
fn finalize_rejected(rt: &mut Rt, p: u32) -> ObjectId {
    let captures = Captures::values(vec![state_value(rt, p)]);
    rt.native_function_capturing(captures, move |rt, _, args| {
        let error = args.first().cloned().unwrap_or(Value::Undefined);
        finalize(rt, p, true, error);
        Ok(Value::Undefined)
    })
}

/// Whether the destination is writable with no close queued (the condition for waiting on the
/// pending writes).
fn dest_writable(rt: &Rt, p: u32) -> bool {
    let w = rt.lib.pipes[p as usize].dest;
    writable::state(rt, w) == WState::Writable && !writable::close_queued_or_in_flight(rt, w)
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1674-L1693>
/// `shutdownWithAnAction(action, rejected, originalError)`.
///
/// What the action throws (a cancel of the source calling a cleared algorithm) is thrown out of
/// here, or, after the pending writes, rejects that reaction's promise (an unhandled rejection);
/// the pipe is then never finalized.
fn shutdown_with_an_action(
    rt: &mut Rt,
    p: u32,
    action: Action,
    rejected: bool,
    error: Value,
) -> Result<(), Value> {
    if pd(rt, p).shutting_down {
        return Ok(());
    }
    pd(rt, p).shutting_down = true;
    if dest_writable(rt, p) {
        let wait = wait_for_pending_writes(rt, p);
        let captures = Captures::values(vec![
            state_value(rt, p),
            action_value(&action),
            error.clone(),
        ]);
        let complete_fn = rt.native_function_capturing(captures, move |rt, _, _| {
            complete(rt, p, action.clone(), rejected, error.clone()).map(|()| Value::Undefined)
        });
        let on_rejected = finalize_rejected(rt, p);
        rt.promise_then(wait, Some(complete_fn), Some(on_rejected));
        return Ok(());
    }
    complete(rt, p, action, rejected, error)
}

/// `complete()` of `shutdownWithAnAction`.
fn complete(
    rt: &mut Rt,
    p: u32,
    action: Action,
    rejected: bool,
    error: Value,
) -> Result<(), Value> {
    // The action's value and the error are this frame's while the action runs script code.
    let roots = [state_value(rt, p), action_value(&action), error.clone()];
    let result = rt.holding(&roots, |rt| run_action(rt, p, action))?;
    let captures = Captures::values(vec![state_value(rt, p), error.clone()]);
    let on_fulfilled = rt.native_function_capturing(captures, move |rt, _, _| {
        finalize(rt, p, rejected, error.clone());
        Ok(Value::Undefined)
    });
    let on_rejected = finalize_rejected(rt, p);
    rt.perform_promise_then(result, Some(on_fulfilled), Some(on_rejected), None);
    Ok(())
}

/// An action's promise, or what it throws.
fn run_action(rt: &mut Rt, p: u32, action: Action) -> Result<ObjectId, Value> {
    let (s, w) = (
        rt.lib.pipes[p as usize].source,
        rt.lib.pipes[p as usize].dest,
    );
    Ok(match action {
        Action::AbortDest(error) => writable::writable_stream_abort(rt, w, error),
        Action::CloseDest => writable::writer_close_with_error_propagation(rt, w),
        Action::CancelSource(error) => cancel_source(rt, s, error)?,
        Action::Abort(error) => {
            let (prevent_abort, prevent_cancel) = {
                let d = &rt.lib.pipes[p as usize];
                (d.prevent_abort, d.prevent_cancel)
            };
            // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/per_context/primordials.js#L500-L520>
            // `SafePromiseAll(actions, (action) => action())`: each action's result is wrapped in
            // `new SafePromise((a, b) => PromisePrototypeThen(result, a, b))`, the wrappers go
            // through `SafePromise.all`, and its result through `.then(a, b)` to the returned
            // promise.
            // An action that throws is called in the wrapper's executor, so it rejects the
            // wrapper at once.
            let mut results = Vec::new();
            if !prevent_abort {
                results.push(Ok(if writable::state(rt, w) == WState::Writable {
                    writable::writable_stream_abort(rt, w, error.clone())
                } else {
                    rt.promise_resolve(Value::Undefined)
                }));
            }
            if !prevent_cancel {
                // The abort's promise is this frame's while the cancel runs script code.
                let held: Vec<Value> = results
                    .iter()
                    .filter_map(|r: &Result<ObjectId, Value>| r.as_ref().ok())
                    .map(|&o| Value::Object(o))
                    .collect();
                results.push(rt.holding(&held, |rt| {
                    if streams::state(rt, s) == StreamState::Readable {
                        cancel_source(rt, s, error)
                    } else {
                        Ok(rt.promise_resolve(Value::Undefined))
                    }
                }));
            }
            let mut wrappers = Vec::with_capacity(results.len());
            for result in results {
                let wrapper = rt.new_promise();
                match result {
                    Ok(result) => {
                        let (a, b) = rt.create_resolving_functions(wrapper);
                        rt.perform_promise_then(result, Some(a), Some(b), None);
                    }
                    Err(thrown) => rt.reject_promise(wrapper, thrown),
                }
                wrappers.push(Value::Object(wrapper));
            }
            let all = rt.promise_combinator(Combinator::All, wrappers);
            let outer = rt.new_promise();
            let (a, b) = rt.create_resolving_functions(outer);
            rt.perform_promise_then(all, Some(a), Some(b), None);
            outer
        }
    })
}

/// `readableStreamCancel(source, error)`, as a promise, or what it throws.
fn cancel_source(rt: &mut Rt, s: u32, error: Value) -> Result<ObjectId, Value> {
    match streams::readable_stream_cancel(rt, s, error)? {
        Value::Object(p) => Ok(p),
        _ => unreachable!("readableStreamCancel returns a promise"),
    }
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1695-L1707>
/// `shutdown(rejected, error)`.
fn shutdown(rt: &mut Rt, p: u32, rejected: bool, error: Value) {
    if pd(rt, p).shutting_down {
        return;
    }
    pd(rt, p).shutting_down = true;
    if dest_writable(rt, p) {
        let wait = wait_for_pending_writes(rt, p);
        let captures = Captures::values(vec![state_value(rt, p), error.clone()]);
        let on_fulfilled = rt.native_function_capturing(captures, move |rt, _, _| {
            finalize(rt, p, rejected, error.clone());
            Ok(Value::Undefined)
        });
        let on_rejected = finalize_rejected(rt, p);
        rt.perform_promise_then(wait, Some(on_fulfilled), Some(on_rejected), None);
        return;
    }
    finalize(rt, p, rejected, error);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1709-L1742>
/// `abortAlgorithm`: the signal's reason (an `AbortError` of Node's own would become a
/// DOMException; no signal of a scenario has one).
fn abort_algorithm(rt: &mut Rt, p: u32) -> Result<(), Value> {
    let signal = pd(rt, p).signal.expect("only a signal aborts a pipe");
    let error = rt.lib.signals[signal as usize].reason.clone();
    shutdown_with_an_action(rt, p, Action::Abort(error.clone()), true, error)
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1872-L1880>
/// `onSourceErrored(error)`.
fn on_source_errored(rt: &mut Rt, p: u32, error: Value) -> Result<(), Value> {
    if !pd(rt, p).prevent_abort {
        return shutdown_with_an_action(rt, p, Action::AbortDest(error.clone()), true, error);
    }
    shutdown(rt, p, true, error);
    Ok(())
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1882-L1888>
/// `onSourceClosed()`.
fn on_source_closed(rt: &mut Rt, p: u32) -> Result<(), Value> {
    if !pd(rt, p).prevent_close {
        return shutdown_with_an_action(rt, p, Action::CloseDest, false, Value::Undefined);
    }
    shutdown(rt, p, false, Value::Undefined);
    Ok(())
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1890-L1898>
/// `onDestErrored(error)`.
fn on_dest_errored(rt: &mut Rt, p: u32, error: Value) -> Result<(), Value> {
    if !pd(rt, p).prevent_cancel {
        return shutdown_with_an_action(rt, p, Action::CancelSource(error.clone()), true, error);
    }
    shutdown(rt, p, true, error);
    Ok(())
}

// ---- the pump ---------------------------------------------------------------------

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1775-L1780>
/// `forwardChunk`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1009-L1012>
/// `writableStreamDefaultWriterWriteWithRequest` asserts that the writer is still bound; a pipe
/// finalized (its writer released) between the chunk steps and this microtask, as when a
/// transform's `terminate()` errors the destination, fails that assertion: the
/// ERR_INTERNAL_ASSERTION rejects the reaction's promise, an unhandled rejection, and the pump does
/// not go on (a bug of Node 26.12.1, kept as Node has it).
fn forward_chunk(rt: &mut Rt, p: u32) -> Completion {
    let chunk = std::mem::replace(&mut pd(rt, p).pending_chunk, Value::Undefined);
    let writer = pd(rt, p).writer;
    if !writable::writer_is_bound(rt, writer) {
        return Err(rt.internal_assertion_error());
    }
    write_with_tracker(rt, p, chunk)?;
    pump(rt, p)?;
    Ok(Value::Undefined)
}

/// `writableStreamDefaultWriterWriteWithRequest(writer, chunk, writeTracker)`: a precondition
/// failure is latched on the tracker.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/writablestream.js#L1017-L1019>
/// `writableStreamDefaultControllerGetChunkSize` (L1243-L1247) asserts that a destination whose
/// algorithms are cleared is closed, errored or erroring; one whose close() is in flight (called
/// before the pipe) is still 'writable', so the pipe's first write throws ERR_INTERNAL_ASSERTION
/// out of the write, before anything is latched or queued (a bug of Node 26.12.1, kept as Node
/// has it): the error is returned, for the caller to throw on.
fn write_with_tracker(rt: &mut Rt, p: u32, chunk: Value) -> Result<(), Value> {
    let writer = pd(rt, p).writer;
    if writable::chunk_size_asserts(rt, writer) {
        return Err(rt.internal_assertion_error());
    }
    if let Err(failure) = writable::writer_write_request(rt, writer, chunk, Some(p)) {
        let d = pd(rt, p);
        d.failed = true;
        d.failure = failure;
    }
    Ok(())
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1849-L1855>
/// the read request's chunk steps: the chunk is forwarded a microtask later, by
/// `PromisePrototypeThen(kResolvedPromise, forwardChunk)` (a reaction, so that what it throws
/// rejects a promise).
pub(crate) fn read_chunk_steps(rt: &mut Rt, p: u32, chunk: Value) {
    pd(rt, p).pending_chunk = chunk;
    let resolved = rt.promise_resolve(Value::Undefined);
    let captures = Captures::values(vec![state_value(rt, p)]);
    let forward = rt.native_function_capturing(captures, move |rt, _, _| forward_chunk(rt, p));
    rt.promise_then(resolved, Some(forward), None);
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1766-L1773>
/// `parkOnReady`.
fn park_on_ready(rt: &mut Rt, p: u32) {
    let writer = pd(rt, p).writer;
    writable::set_writer_ready(rt, writer, WriterRecord::PipeReady(p));
}

/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1782-L1859>
/// `pump`: what a write throws (see `write_with_tracker`) is thrown out of it, the batch left
/// where it was (no pull, no next pump).
pub(crate) fn pump(rt: &mut Rt, p: u32) -> Result<(), Value> {
    if pd(rt, p).shutting_down {
        return Ok(());
    }
    let (s, w) = (pd(rt, p).source, pd(rt, p).dest);
    if writable::backpressure(rt, w) {
        park_on_ready(rt, p);
        return Ok(());
    }
    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1792-L1844>:
    // the batch over the chunks queued in a default controller.
    let default = streams::default_controller_index(rt, s);
    if let Some(c) = default.filter(|&c| {
        streams::state(rt, s) == StreamState::Readable && streams::queue_len(rt, c) > 0
    }) {
        while streams::queue_len(rt, c) > 0 {
            if pd(rt, p).shutting_down {
                return Ok(());
            }
            let chunk = streams::dequeue_value(rt, c);
            if streams::close_requested(rt, c) && streams::queue_len(rt, c) == 0 {
                streams::clear_algorithms(rt, c);
                streams::readable_stream_close(rt, s);
            }
            write_with_tracker(rt, p, chunk)?;
            if writable::backpressure(rt, w)
                || writable::state(rt, w) != WState::Writable
                || writable::close_queued_or_in_flight(rt, w)
            {
                break;
            }
        }
        streams::call_pull_if_needed(rt, c);
        if streams::state(rt, s) == StreamState::Closed {
            return Ok(());
        }
        if writable::backpressure(rt, w) {
            park_on_ready(rt, p);
            return Ok(());
        }
        // `PromisePrototypeThen(kResolvedPromise, pump)`: what the next pump throws is an
        // unhandled rejection.
        queue_reaction(rt, p, Vec::new(), move |rt| pump(rt, p));
        return Ok(());
    }
    // The slow path: park the reused read request.
    streams::default_reader_read(rt, s, streams::ReadRequest::Pipe(p));
    Ok(())
}

// ---- the collector's view ---------------------------------------------------------

/// The hidden object standing for a pipe's shared state.
pub(crate) fn state_obj(rt: &Rt, p: u32) -> ObjectId {
    rt.lib.pipes[p as usize].obj
}

fn state_value(rt: &Rt, p: u32) -> Value {
    Value::Object(state_obj(rt, p))
}

/// What an action closure holds besides the pipe's state.
fn action_value(action: &Action) -> Value {
    match action {
        Action::AbortDest(e) | Action::CancelSource(e) | Action::Abort(e) => e.clone(),
        Action::CloseDest => Value::Undefined,
    }
}

/// The strong edges of a pipe's state (the context of `readableStreamPipeTo`'s closures: the
/// streams, the reader and writer, the signal and its disposable, the promise, the write
/// tracker's failure and stall, the pending chunk); false when `slot` is none.
pub(crate) fn trace(rt: &Rt, slot: Slot, edges: &mut Vec<Value>) -> bool {
    let Slot::PipeState(p) = slot else {
        return false;
    };
    let d = &rt.lib.pipes[p as usize];
    edges.push(Value::Object(streams::stream_obj(rt, d.source)));
    edges.push(Value::Object(writable::stream_obj(rt, d.dest)));
    streams::trace_reader(rt, d.reader, edges);
    writable::trace_writer(rt, d.writer, edges);
    if let Some(signal) = d.signal {
        edges.push(Value::Object(rt.lib.signals[signal as usize].obj));
    }
    edges.extend(d.disposable.iter().cloned());
    edges.push(Value::Object(d.promise));
    edges.push(d.failure.clone());
    edges.extend(d.stall.map(Value::Object));
    edges.push(d.pending_chunk.clone());
    true
}

/// Forgets the record of a collected pipe's state.
pub(crate) fn forget(rt: &mut Rt, slot: Slot) {
    if let Slot::PipeState(p) = slot {
        let d = &mut rt.lib.pipes[p as usize];
        d.failure = Value::Undefined;
        d.pending_chunk = Value::Undefined;
        d.disposable = None;
        d.stall = None;
    }
}

#[cfg(test)]
mod tests {
    //! The seed's watcher records, which no log shows: what a pipe installs
    //! on its reader and writer, and that settling them makes no promise.

    use nodesem_lang::RunConfig;
    use nodesem_runtime::{
        Library, ObjectData, QueuingStrategy, Runtime, StreamPipeOptions, UnderlyingSink,
        UnderlyingSource, Value,
    };

    use crate::writable::WriterRecord;
    use crate::Impl;

    /// A runtime with a pipe from a source whose controller is returned into
    /// a sink without methods.
    fn piped() -> (Box<super::Rt>, Value) {
        let mut rt = Runtime::<Impl>::pooled(RunConfig::default());
        let held = std::rc::Rc::new(std::cell::RefCell::new(Value::Undefined));
        let keep = held.clone();
        let start = rt.native_function(move |_, _, args| {
            *keep.borrow_mut() = args[0].clone();
            Ok(Value::Undefined)
        });
        let source = UnderlyingSource {
            object: Value::Object(rt.heap.alloc(ObjectData::Plain)),
            start: Some(start),
            pull: None,
            cancel: None,
        };
        let rs = Impl::new_readable_stream(&mut rt, source, QueuingStrategy::default()).unwrap();
        let sink = UnderlyingSink {
            object: Value::Object(rt.heap.alloc(ObjectData::Plain)),
            start: None,
            write: None,
            close: None,
            abort: None,
        };
        let ws = Impl::new_writable_stream(&mut rt, sink, QueuingStrategy::default()).unwrap();
        Impl::readable_pipe_to(&mut rt, rs, ws, StreamPipeOptions::default()).unwrap();
        let controller = held.borrow().clone();
        (rt, controller)
    }

    #[test]
    fn a_pipe_installs_its_watchers_as_records() {
        // Seed ("Closed watchers as records instead of promises").
        let (rt, _) = piped();
        let pipe = &rt.lib.pipes[0];
        assert!(matches!(
            rt.lib.streams.reader_close(pipe.reader),
            Some(crate::streams::ClosedKind::PipeHook(0))
        ));
        assert!(matches!(
            crate::writable::writer_close_record(&rt, pipe.writer),
            Some(WriterRecord::PipeClosed(0))
        ));
    }

    #[test]
    fn closing_the_source_queues_the_watcher_without_a_promise() {
        let (mut rt, controller) = piped();
        let before = rt.heap.len();
        Impl::readable_controller_close(&mut rt, controller).unwrap();
        assert_eq!(rt.heap.len(), before, "no promise or reaction made");
        assert!(
            !rt.lib.pipes[0].shutting_down,
            "the watcher waits a microtask"
        );
    }

    #[test]
    fn erroring_the_source_queues_the_watcher_without_a_promise() {
        let (mut rt, controller) = piped();
        let before = rt.heap.len();
        Impl::readable_controller_error(&mut rt, controller, Value::string("bad")).unwrap();
        assert_eq!(rt.heap.len(), before, "no promise or reaction made");
        assert!(!rt.lib.pipes[0].shutting_down);
    }
}
