//! `ReadableStream.from(iterable)` and a ReadableStream's async iterator
//! (`values()`, `next()`, `return()`), built the way Node 26.12.1's
//! lib/internal/webstreams/readablestream.js builds them.
//!
//! NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1426-L1537>
//! `readableStreamFromIterable`: no CreateAsyncFromSyncIterator; the iterator of
//! `iterable[Symbol.asyncIterator] ?? iterable[Symbol.iterator]` is called directly, its
//! `next()` result goes through `PromiseResolve` and an object value is adopted like `await
//! value`, and the pull parks its result (`kParkedAlgorithmResult`) and calls the controller's
//! `pullFulfilled` itself; the cancel algorithm is an async function awaiting
//! `iterator.return(reason)`.
//!
//! NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L695-L883>
//! the async iterator: one state record that doubles as the read request, `next()` chained
//! through `current` (the first one a microtask late, on `kResolvedPromise`), the buffered fast
//! path of `read()` in `next()`, and `return()` cancelling through the reader then
//! `PromisePrototypeThen(result, () => iterResult)`.
//!
//! The record's `[kClose]`/`[kError]` release the reader with
//! `readableStreamReaderGenericRelease` (not the default reader's release,
//! which would error the rest of its read requests): a record parked twice
//! runs them twice, and the second's ERR_INTERNAL_ASSERTION reaches whoever
//! closed or errored the stream, as Node's does.

use nodesem_runtime::{Captures, Completion, ObjectId, Value, WellKnownSymbol};

use crate::streams::{self, byte_streams, Algorithm, ControllerRef, ReadRequest, StreamState};
use crate::{alloc_host, Rt, Slot};

/// The closures' shared state of one `readableStreamFromIterable`.
#[derive(Debug)]
struct FromData {
    /// The hidden object standing for the closures' shared state ([`Slot::FromState`]).
    obj: ObjectId,
    /// `stream`: its index.
    stream: u32,
    /// `iterator`.
    iterator: Value,
    /// `nextMethod`, looked up once.
    next_method: Value,
    /// `pendingIterResult`: a non-object `next()` result, for a microtask.
    pending_iter_result: Value,
}

/// A `ReadableStreamAsyncIteratorReadRequest`: the iterator's state.
#[derive(Debug)]
struct IteratorData {
    /// The hidden object standing for `state` and `reader`, which the read requests and the
    /// closures hold ([`Slot::IteratorState`]); the iterator object holds it too.
    state: ObjectId,
    /// `reader`: the index of its default reader.
    reader: u32,
    /// `preventCancel`.
    prevent_cancel: bool,
    /// `done`.
    done: bool,
    /// `started`.
    started: bool,
    /// `current`: the promise the next call chains on.
    current: Option<ObjectId>,
    /// `promise`: the `PromiseWithResolvers()` of the read in flight.
    promise: Option<ObjectId>,
    /// `chainedNextSteps`, made once.
    chained_next_steps: Option<ObjectId>,
}

/// `ReadableStream.from`'s records and the iterators', for one scenario.
#[derive(Debug, Default)]
pub struct IterateState {
    froms: Vec<FromData>,
    iterators: Vec<IteratorData>,
}

impl IterateState {
    /// Empties the state for another scenario.
    pub fn clear(&mut self) {
        self.froms.clear();
        self.iterators.clear();
    }
}

fn from_data(rt: &mut Rt, f: u32) -> &mut FromData {
    &mut rt.lib.streams.iterate.froms[f as usize]
}

fn iterator_data(rt: &mut Rt, i: u32) -> &mut IteratorData {
    &mut rt.lib.streams.iterate.iterators[i as usize]
}

/// `value !== null && (typeof value === 'object' || typeof value === 'function')`.
fn is_object(value: &Value) -> bool {
    matches!(value, Value::Object(_))
}

// ---- ReadableStream.from ----------------------------------------------

/// `ReadableStream.from(iterable)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L347-L349>
/// and `readableStreamFromIterable` (L1426-L1537).
pub fn readable_from(rt: &mut Rt, iterable: Value) -> Completion {
    // `iterable[SymbolAsyncIterator] ?? iterable[SymbolIterator]`.
    let mut getter = rt.get_well_known_method(&iterable, WellKnownSymbol::AsyncIterator)?;
    if matches!(getter, Value::Undefined | Value::Null) {
        getter = rt.get_well_known_method(&iterable, WellKnownSymbol::Iterator)?;
    }
    let Some(getter) = getter.as_object().filter(|_| rt.is_function(&getter)) else {
        let shown = rt.fmt(&iterable);
        return Err(rt.node_error(
            "TypeError",
            "ERR_ARG_NOT_ITERABLE",
            &format!("{shown} must be iterable"),
        ));
    };
    let iterator = rt.call_function(getter, iterable, &[])?;
    if !is_object(&iterator) {
        return Err(streams::invalid_state(
            rt,
            "The iterator method must return an object",
        ));
    }
    // Per GetIteratorDirect, the next method is looked up once.
    let next_method = rt.get_property(&iterator, "next")?;
    let f = rt.lib.streams.iterate.froms.len() as u32;
    // `createReadableStream(nonOpCallback, pullAlgorithm, cancelAlgorithm, 0)`.
    let algorithm = Algorithm::From(f);
    let (obj, stream, controller) =
        streams::alloc_stream(rt, Value::Undefined, algorithm, algorithm, 0.0);
    let state = alloc_host(rt, |_| Slot::FromState(f));
    rt.lib.streams.iterate.froms.push(FromData {
        obj: state,
        stream,
        iterator,
        next_method,
        pending_iter_result: Value::Undefined,
    });
    // The start algorithm returns undefined; with a pull algorithm the
    // post-start step is a microtask.
    streams::setup_default_controller(rt, controller, None)?;
    Ok(Value::Object(obj))
}

/// `stream[kState].controller` of a from() stream.
fn from_controller(rt: &mut Rt, f: u32) -> u32 {
    let s = from_data(rt, f).stream;
    streams::controller_index(rt, s)
}

/// `rejectPull(error)`: `readableStreamDefaultControllerError(controller, error)`.
///
/// It always runs in a promise reaction (or in `processIterResult`, which
/// does): an ERR_INTERNAL_ASSERTION of an iterator's error steps (see
/// [`iterator_error_steps`]) rejects the promise its `then` derived, which
/// nobody handles.
fn reject_pull(rt: &mut Rt, f: u32, error: Value) {
    let c = from_controller(rt, f);
    rt.clear_internal_assertion();
    streams::default_controller_error(rt, c, error);
    if let Some(e) = rt.take_internal_assertion() {
        rt.promise_reject_new(e);
    }
}

/// `pullAlgorithm()`: calls `next`, and parks.
pub(crate) fn from_pull(rt: &mut Rt, f: u32) {
    let data = from_data(rt, f);
    let (iterator, next_method) = (data.iterator.clone(), data.next_method.clone());
    let state = from_value(rt, f);
    let next_result = match next_method.as_object() {
        // (The pull algorithm's context is on the stack while next() runs.)
        Some(next) if rt.is_function(&next_method) => {
            rt.holding(&[state], |rt| rt.call_function(next, iterator, &[]))
        }
        _ => {
            let shown = rt.fmt(&next_method);
            Err(rt.new_error("TypeError", &format!("{shown} is not a function")))
        }
    };
    let c = from_controller(rt, f);
    let next_result = match next_result {
        Ok(v) => v,
        Err(error) => {
            // `return PromiseReject(error)`: thenAlgorithmResult then
            // chains the pull's reactions on it.
            let p = rt.promise_reject_new(error);
            let (on_fulfilled, on_rejected) = pull_reactions(rt, c);
            rt.perform_promise_then(p, Some(on_fulfilled), Some(on_rejected), None);
            return;
        }
    };
    if is_object(&next_result) {
        // Mirrors `await iterator.next()`: processIterResult runs at the
        // microtask position the await resumed.
        let p = rt.promise_resolve(next_result);
        let captures = Captures::values(vec![from_value(rt, f)]);
        let process = rt.native_function_capturing(captures, move |rt, _, args| {
            process_iter_result(rt, f, args.first().cloned().unwrap_or(Value::Undefined));
            Ok(Value::Undefined)
        });
        let reject = reject_pull_function(rt, f);
        rt.perform_promise_then(p, Some(process), Some(reject), None);
        return;
    }
    // A non-thenable next() result fails validation a microtask later.
    from_data(rt, f).pending_iter_result = next_result;
    let resolved = streams::resolved_promise(rt);
    let captures = Captures::values(vec![from_value(rt, f)]);
    let process = rt.native_function_capturing(captures, move |rt, _, _| {
        let iter_result =
            std::mem::replace(&mut from_data(rt, f).pending_iter_result, Value::Undefined);
        process_iter_result(rt, f, iter_result);
        Ok(Value::Undefined)
    });
    rt.perform_promise_then(resolved, Some(process), None, None);
}

/// The controller's `pullFulfilled` and `pullRejected`, which the pull that
/// ran the algorithm made.
fn pull_reactions(rt: &mut Rt, c: u32) -> (ObjectId, ObjectId) {
    streams::pull_reactions(rt, c).expect("the controller creates them before the pull")
}

/// `rejectPull` as a function.
fn reject_pull_function(rt: &mut Rt, f: u32) -> ObjectId {
    let captures = Captures::values(vec![from_value(rt, f)]);
    rt.native_function_capturing(captures, move |rt, _, args| {
        reject_pull(rt, f, args.first().cloned().unwrap_or(Value::Undefined));
        Ok(Value::Undefined)
    })
}

/// `processIterResult(iterResult)`.
fn process_iter_result(rt: &mut Rt, f: u32, iter_result: Value) {
    let c = from_controller(rt, f);
    if !is_object(&iter_result) {
        let e = streams::invalid_state(
            rt,
            "The promise returned by the iterator.next() method must fulfill with an object",
        );
        reject_pull(rt, f, e);
        return;
    }
    let done = match rt.get_property(&iter_result, "done") {
        Ok(done) => done.to_boolean(),
        Err(error) => return reject_pull(rt, f, error),
    };
    if done {
        streams::default_controller_close(rt, c);
    } else {
        let value = match rt.get_property(&iter_result, "value") {
            Ok(value) => value,
            Err(error) => return reject_pull(rt, f, error),
        };
        if is_object(&value) {
            // Adopted like `await iterResult.value`, keeping the observable
            // .then lookup on plain objects.
            let p = rt.promise_resolve(value);
            let captures = Captures::values(vec![from_value(rt, f)]);
            let enqueue = rt.native_function_capturing(captures, move |rt, _, args| {
                enqueue_value(rt, f, args.first().cloned().unwrap_or(Value::Undefined));
                Ok(Value::Undefined)
            });
            let reject = reject_pull_function(rt, f);
            rt.perform_promise_then(p, Some(enqueue), Some(reject), None);
            return;
        }
        // The stream's size algorithm is the default one, which cannot throw.
        let _ = streams::default_controller_enqueue(rt, c, value);
    }
    // pullFulfilled exists: the controller creates it before the pull.
    streams::pull_fulfilled(rt, c);
}

/// `enqueueValue(value)`.
fn enqueue_value(rt: &mut Rt, f: u32, value: Value) {
    let c = from_controller(rt, f);
    // The stream's size algorithm is the default one, which cannot throw.
    let _ = streams::default_controller_enqueue(rt, c, value);
    streams::pull_fulfilled(rt, c);
}

/// `async function cancelAlgorithm(reason)`: its promise.
pub(crate) fn from_cancel(rt: &mut Rt, f: u32, reason: Value) -> ObjectId {
    let capability = rt.new_promise_capability();
    let iterator = from_data(rt, f).iterator.clone();
    let settle = |rt: &mut Rt, result: Completion| {
        let (function, value) = match result {
            Ok(v) => (capability.resolve, v),
            Err(e) => (capability.reject, e),
        };
        let _ = rt.call_function(function, Value::Undefined, &[value]);
    };
    // `const returnMethod = iterator.return;`
    let return_method = match rt.get_property(&iterator, "return") {
        Ok(m) => m,
        Err(e) => {
            settle(rt, Err(e));
            return capability.promise;
        }
    };
    // `if (returnMethod === undefined) return;`
    if return_method == Value::Undefined {
        settle(rt, Ok(Value::Undefined));
        return capability.promise;
    }
    // `await FunctionPrototypeCall(returnMethod, iterator, reason)`.
    let held = [
        from_value(rt, f),
        Value::Object(capability.promise),
        Value::Object(capability.resolve),
        Value::Object(capability.reject),
    ];
    let called = match return_method.as_object() {
        // (The async function's frame holds its capability while return() runs.)
        Some(m) if rt.is_function(&return_method) => {
            rt.holding(&held, |rt| rt.call_function(m, iterator, &[reason]))
        }
        _ => {
            let shown = rt.fmt(&return_method);
            Err(rt.new_error("TypeError", &format!("{shown} is not a function")))
        }
    };
    let awaited = match called {
        Ok(v) => v,
        Err(e) => {
            settle(rt, Err(e));
            return capability.promise;
        }
    };
    let p = rt.promise_resolve(awaited);
    let captures = Captures::values(held[1..].to_vec());
    let on_fulfilled = rt.native_function_capturing(captures.clone(), move |rt, _, args| {
        let iter_result = args.first().cloned().unwrap_or(Value::Undefined);
        let result = if is_object(&iter_result) {
            Ok(Value::Undefined)
        } else {
            Err(streams::invalid_state(
                rt,
                "The promise returned by the iterator.return() method must fulfill with an object",
            ))
        };
        let (function, value) = match result {
            Ok(v) => (capability.resolve, v),
            Err(e) => (capability.reject, e),
        };
        let _ = rt.call_function(function, Value::Undefined, &[value]);
        Ok(Value::Undefined)
    });
    let on_rejected = rt.native_function_capturing(captures, move |rt, _, args| {
        let e = args.first().cloned().unwrap_or(Value::Undefined);
        let _ = rt.call_function(capability.reject, Value::Undefined, &[e]);
        Ok(Value::Undefined)
    });
    rt.perform_promise_then(p, Some(on_fulfilled), Some(on_rejected), None);
    capability.promise
}

// ---- the async iterator -----------------------------------------------

/// `stream.values({ preventCancel })`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L497-L509>.
pub fn values(rt: &mut Rt, stream: Value, prevent_cancel: bool) -> Completion {
    let Some(s) = streams::stream_of(rt, &stream) else {
        return Err(streams::invalid_this(rt, "ReadableStream"));
    };
    // `new ReadableStreamDefaultReader(this)`: only its record, as no
    // script ever sees the iterator's reader object.
    let reader = streams::setup_default_reader(rt, s)?;
    let i = rt.lib.streams.iterate.iterators.len() as u32;
    let state = alloc_host(rt, |_| Slot::IteratorState(i));
    rt.lib.streams.iterate.iterators.push(IteratorData {
        state,
        reader,
        prevent_cancel,
        done: false,
        started: false,
        current: None,
        promise: None,
        chained_next_steps: None,
    });
    Ok(Value::Object(alloc_host(rt, |_| Slot::ReadableIterator(i))))
}

fn iterator_of(rt: &Rt, value: &Value) -> Option<u32> {
    match value.as_object().map(|obj| rt.lib.slot(obj)) {
        Some(Slot::ReadableIterator(i)) => Some(i),
        _ => None,
    }
}

/// `new ERR_INVALID_THIS('ReadableStreamAsyncIterator')`, rejected.
fn invalid_this_rejected(rt: &mut Rt) -> Completion {
    let e = streams::invalid_this(rt, "ReadableStreamAsyncIterator");
    Ok(Value::Object(rt.promise_reject_new(e)))
}

/// The reader's stream, while it holds the lock.
fn reader_stream(rt: &Rt, reader: u32) -> Option<u32> {
    rt.lib.streams.readers[reader as usize].stream
}

/// `iterator.next()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L789-L856>.
pub fn next(rt: &mut Rt, iterator: Value) -> Completion {
    let Some(i) = iterator_of(rt, &iterator) else {
        return invalid_this_rejected(rt);
    };
    // If this is the first read, delay by one microtask to ensure that
    // the controller has had an opportunity to properly start and perform
    // the initial pull.
    if !iterator_data(rt, i).started {
        let resolved = streams::resolved_promise(rt);
        let data = iterator_data(rt, i);
        data.current = Some(resolved);
        data.started = true;
    }
    if let Some(current) = iterator_data(rt, i).current {
        let steps = match iterator_data(rt, i).chained_next_steps {
            Some(steps) => steps,
            None => {
                let captures = Captures::objects(&[iterator_state_obj(rt, i)]);
                let steps = rt.native_function_capturing(captures, move |rt, _, _| {
                    Ok(Value::Object(next_steps(rt, i)))
                });
                iterator_data(rt, i).chained_next_steps = Some(steps);
                steps
            }
        };
        let chained = rt.promise_then(current, Some(steps), Some(steps));
        iterator_data(rt, i).current = Some(chained);
        return Ok(Value::Object(chained));
    }
    // No read is in flight. Mirror the buffered fast path of
    // ReadableStreamDefaultReader.read(): with data queued in the
    // controller, resolve at once without a read request.
    let data = iterator_data(rt, i);
    let (done, reader) = (data.done, data.reader);
    if let Some(s) = reader_stream(rt, reader).filter(|_| !done) {
        let stream = &rt.lib.streams.streams[s as usize];
        let readable = stream.state == StreamState::Readable;
        match rt.lib.streams.streams[s as usize].controller {
            // `isReadableStreamDefaultController(controller)` with a queued chunk.
            ControllerRef::Default(c)
                if readable && !rt.lib.streams.controllers[c as usize].queue.is_empty() =>
            {
                rt.lib.streams.streams[s as usize].disturbed = true;
                let chunk = streams::dequeue_for_read(rt, c);
                let result = rt.create_iter_result(chunk, false);
                return Ok(Value::Object(rt.promise_resolve(result)));
            }
            // A byte controller with buffered bytes (`queueTotalSize > 0`): the chunk comes
            // from `readableByteStreamControllerDequeueChunk` (its drain step may close the
            // stream or pull) and `state.current` stays undefined, where the slow path would
            // leave it holding the settled read's promise for the next `next()` to chain on.
            // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L843-L851>
            ControllerRef::Byte(b) if readable && byte_streams::has_queued_bytes(rt, b) => {
                rt.lib.streams.streams[s as usize].disturbed = true;
                let chunk = byte_streams::byte_controller_dequeue_chunk(rt, b);
                let result = rt.create_iter_result(chunk, false);
                return Ok(Value::Object(rt.promise_resolve(result)));
            }
            _ => {}
        }
    }
    let p = next_steps(rt, i);
    iterator_data(rt, i).current = Some(p);
    Ok(Value::Object(p))
}

/// `readableStreamAsyncIteratorNextSteps(state)`: its promise.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L733-L748>.
fn next_steps(rt: &mut Rt, i: u32) -> ObjectId {
    if iterator_data(rt, i).done {
        let result = rt.create_iter_result(Value::Undefined, true);
        return rt.promise_resolve(result);
    }
    let reader = iterator_data(rt, i).reader;
    let Some(s) = reader_stream(rt, reader) else {
        let e = streams::invalid_state(rt, "The reader is not bound to a ReadableStream");
        return rt.promise_reject_new(e);
    };
    // `PromiseWithResolvers()`.
    let promise = rt.new_deferred();
    iterator_data(rt, i).promise = Some(promise);
    let held = [
        Value::Object(promise),
        Value::Object(iterator_state_obj(rt, i)),
    ];
    rt.holding(&held, |rt| {
        streams::default_reader_read(rt, s, ReadRequest::Iterator(i));
    });
    promise
}

/// `state.promise.resolve(x)` / `.reject(e)`.
fn settle(rt: &mut Rt, i: u32, result: Result<Value, Value>) {
    let promise = iterator_data(rt, i)
        .promise
        .expect("a read in flight has its promise");
    let (resolve, reject) = rt
        .deferred_resolvers(promise)
        .expect("PromiseWithResolvers keeps its functions");
    let (function, value) = match result {
        Ok(v) => (resolve, v),
        Err(e) => (reject, e),
    };
    let _ = rt.call_function(function, Value::Undefined, &[value]);
}

/// `[kChunk](chunk)`.
pub(crate) fn iterator_chunk_steps(rt: &mut Rt, i: u32, chunk: Value) {
    iterator_data(rt, i).current = None;
    let result = rt.create_iter_result(chunk, false);
    settle(rt, i, Ok(result));
}

/// `this.reader`'s `readableStreamReaderGenericRelease`, in `[kClose]` and
/// `[kError]`: not the default reader's release, so a record parked twice
/// (a `next()` between a chunk and a chained `next()`'s steps) stays in
/// the detached reader's queue, and its second run finds no stream: Node's
/// `assert(stream !== undefined)` throws (false then).
fn release_or_assert(rt: &mut Rt, reader: u32) -> bool {
    if streams::reader_generic_release(rt, reader) {
        return true;
    }
    rt.raise_internal_assertion();
    false
}

/// `[kClose]()`.
pub(crate) fn iterator_close_steps(rt: &mut Rt, i: u32) {
    let data = iterator_data(rt, i);
    data.current = None;
    data.done = true;
    let reader = data.reader;
    if !release_or_assert(rt, reader) {
        return;
    }
    let result = rt.create_iter_result(Value::Undefined, true);
    settle(rt, i, Ok(result));
}

/// `[kError](error)`.
pub(crate) fn iterator_error_steps(rt: &mut Rt, i: u32, error: Value) {
    let data = iterator_data(rt, i);
    data.current = None;
    data.done = true;
    let reader = data.reader;
    if !release_or_assert(rt, reader) {
        return;
    }
    settle(rt, i, Err(error));
}

/// `iterator.return(value)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L858-L872>.
pub fn iterator_return(rt: &mut Rt, iterator: Value, value: Option<Value>) -> Completion {
    let Some(i) = iterator_of(rt, &iterator) else {
        return invalid_this_rejected(rt);
    };
    let value = value.unwrap_or(Value::Undefined);
    iterator_data(rt, i).started = true;
    let current = match iterator_data(rt, i).current {
        Some(current) => {
            let steps = {
                let value = value.clone();
                let captures = Captures::values(vec![
                    Value::Object(iterator_state_obj(rt, i)),
                    value.clone(),
                ]);
                rt.native_function_capturing(captures, move |rt, _, _| {
                    Ok(Value::Object(return_steps(rt, i, value.clone())))
                })
            };
            rt.promise_then(current, Some(steps), Some(steps))
        }
        None => return_steps(rt, i, value),
    };
    iterator_data(rt, i).current = Some(current);
    Ok(Value::Object(current))
}

/// `readableStreamAsyncIteratorReturnSteps(state, value)`: its promise.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L750-L776>.
fn return_steps(rt: &mut Rt, i: u32, value: Value) -> ObjectId {
    let iter_result = rt.create_iter_result(value.clone(), true);
    if iterator_data(rt, i).done {
        return rt.promise_resolve(iter_result);
    }
    iterator_data(rt, i).done = true;
    let reader = iterator_data(rt, i).reader;
    let Some(s) = reader_stream(rt, reader) else {
        let e = streams::invalid_state(rt, "The reader is not bound to a ReadableStream");
        return rt.promise_reject_new(e);
    };
    // `assert(!reader[kState].readRequests.length)`: a chained `next()`'s
    // read parked after a chunk cleared `current` fails it, and the catch
    // rejects with ERR_INTERNAL_ASSERTION (nothing cancelled or released).
    if !rt.lib.streams.readers[reader as usize]
        .read_requests
        .is_empty()
    {
        let e = rt.internal_assertion_error();
        return rt.promise_reject_new(e);
    }
    if !iterator_data(rt, i).prevent_cancel {
        // `readableStreamReaderGenericCancel(reader, value)`, then the
        // release, then `PromisePrototypeThen(result, () => iterResult)`.
        let held = [
            iter_result.clone(),
            Value::Object(iterator_state_obj(rt, i)),
        ];
        let result = match rt.holding(&held, |rt| streams::readable_stream_cancel(rt, s, value)) {
            Ok(Value::Object(p)) => p,
            Ok(_) => unreachable!("readableStreamCancel returns a promise"),
            Err(e) => return rt.promise_reject_new(e),
        };
        streams::reader_generic_release(rt, reader);
        let captures = Captures::values(vec![iter_result.clone()]);
        let give_result =
            rt.native_function_capturing(captures, move |_, _, _| Ok(iter_result.clone()));
        return rt.promise_then(result, Some(give_result), None);
    }
    streams::reader_generic_release(rt, reader);
    rt.promise_resolve(iter_result)
}

// ---- the collector's view ---------------------------------------------------------

/// The hidden object standing for a `from()` stream's closures' context.
pub(crate) fn from_state_obj(rt: &Rt, f: u32) -> ObjectId {
    rt.lib.streams.iterate.froms[f as usize].obj
}

fn from_value(rt: &Rt, f: u32) -> Value {
    Value::Object(from_state_obj(rt, f))
}

/// The hidden object standing for an async iterator's `state` and `reader`.
pub(crate) fn iterator_state_obj(rt: &Rt, i: u32) -> ObjectId {
    rt.lib.streams.iterate.iterators[i as usize].state
}

/// The strong edges of an async iterator, its state, or a `from()` stream's context; false
/// when `slot` is none.
pub(crate) fn trace(rt: &Rt, slot: Slot, edges: &mut Vec<Value>) -> bool {
    match slot {
        // The iterator object's `next` and `return` close over `state` and `reader`.
        Slot::ReadableIterator(i) => edges.push(Value::Object(iterator_state_obj(rt, i))),
        Slot::IteratorState(i) => {
            let data = &rt.lib.streams.iterate.iterators[i as usize];
            streams::trace_reader(rt, data.reader, edges);
            edges.extend(
                data.current
                    .iter()
                    .chain(&data.promise)
                    .chain(&data.chained_next_steps)
                    .map(|&o| Value::Object(o)),
            );
        }
        Slot::FromState(f) => {
            let data = &rt.lib.streams.iterate.froms[f as usize];
            edges.push(Value::Object(streams::stream_obj(rt, data.stream)));
            edges.push(data.iterator.clone());
            edges.push(data.next_method.clone());
            edges.push(data.pending_iter_result.clone());
        }
        _ => return false,
    }
    true
}

/// Forgets the records of a collected iterator state or `from()` context.
pub(crate) fn forget(rt: &mut Rt, slot: Slot) {
    let it = &mut rt.lib.streams.iterate;
    match slot {
        Slot::IteratorState(i) => {
            let data = &mut it.iterators[i as usize];
            data.current = None;
            data.promise = None;
            data.chained_next_steps = None;
        }
        Slot::FromState(f) => {
            let data = &mut it.froms[f as usize];
            data.iterator = Value::Undefined;
            data.next_method = Value::Undefined;
            data.pending_iter_result = Value::Undefined;
        }
        _ => {}
    }
}
