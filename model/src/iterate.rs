//! `ReadableStream.from(asyncIterable)` and a ReadableStream's async
//! iterator (`values()`, `next()`, `return()`), transcribed from the Streams
//! Standard (ReadableStreamFromIterable; the asynchronous iterator
//! initialization steps, "get the next iteration result" and "asynchronous
//! iterator return" of ReadableStream) and from Web IDL (opening an async
//! sequence, getting its next value and closing it; the `next` and `return`
//! methods of the asynchronous iterator prototype object, §3.7.10.2), each
//! step quoted above its code.
//!
//! Streams Standard: <https://streams.spec.whatwg.org/#readable-stream-from-iterable>
//! and <https://streams.spec.whatwg.org/#rs-asynciterator>.
//! Web IDL: <https://webidl.spec.whatwg.org/#js-async-iterable> and
//! <https://webidl.spec.whatwg.org/#js-asynchronous-iterator-prototype-object>.
//!
//! The departures of Node 26.12.1 that scenarios can observe, each marked
//! `NODE:` where it happens (all are microtask counts):
//!
//! - from() calls a sync iterator's `next()` itself (no
//!   CreateAsyncFromSyncIterator), takes `next()`'s result with
//!   PromiseResolve (not a new promise), awaits an object value before the
//!   enqueue (for async iterators too), and runs the pull's fulfilment steps
//!   at once after the enqueue or close;
//! - its cancel awaits `return(reason)` with PromiseResolve, and an array's
//!   iterator has no `return` to call;
//! - the iterator's first `next()` waits a microtask; `next()` with a chunk
//!   queued (in a default controller's queue, or bytes in a byte
//!   controller's) returns it at once, leaving no ongoing promise; the read request settles the promise with
//!   the iterator result itself (no reaction after it) and clears the
//!   ongoing promise then; `return()` gives its own promise, whose steps make
//!   the iterator result (no reaction after it).
//! - a read request record parked twice (a `next()` after a chunk cleared
//!   the ongoing promise, before a chained `next()` read) runs its close or
//!   error steps twice: the second throws ERR_INTERNAL_ASSERTION out of the
//!   operation that closed or errored the stream, and a `return()` while a
//!   read is parked rejects with it; neither is a failed assertion here.

use nodesem_runtime::gc::Captures;
use nodesem_runtime::{
    Completion, HostClass, IteratorRecord, ObjectData, ObjectId, Runtime, Value, WellKnownSymbol,
};

use crate::slots::Slots;
use crate::streams::{self, CancelAlgorithm, PullAlgorithm, ReadRequest, ReadableStreamState};
use crate::Model;

type Rt = Runtime<Model>;

/// Which ReadableStreamFromIterable: the hidden heap object that stands for
/// its variables (the closure context of Node's `readableStreamFromIterable`:
/// the stream and the iterator), see [`streams::new_record_object`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FromId(pub(crate) ObjectId);

/// An IDL async iterator (Web IDL §3.2.26, "Async iterators"): its
/// underlying record.
#[derive(Debug)]
pub struct FromIterable {
    /// stream: undefined until CreateReadableStream made it.
    pub stream: Option<ObjectId>,
    /// iterator: the async iterator's underlying record.
    pub iterator: IteratorRecord,
}

/// A default asynchronous iterator object for ReadableStream (Web IDL
/// §3.7.10.1), with the Streams Standard's items.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L695-L731>
/// the items live in a state record apart from the iterator object (the
/// object's methods close over it, the stream and the reader), and the read
/// request holds the state record, not the object: these slots are keyed by
/// a hidden object standing for the state record
/// ([`streams::new_record_object`]), which the iterator object holds.
#[derive(Debug)]
pub struct AsyncIterator {
    /// target: the stream.
    pub target: ObjectId,
    /// ongoing promise: null or a promise.
    pub ongoing_promise: Option<ObjectId>,
    /// is finished.
    pub is_finished: bool,
    /// reader: the ReadableStream async iterator's reader.
    pub reader: ObjectId,
    /// prevent cancel.
    pub prevent_cancel: bool,
    /// The promise of "get the next iteration result" in flight.
    pub promise: Option<ObjectId>,
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L796-L804>
    /// `started`: whether next() or return() was called.
    pub started: bool,
}

/// The state of ReadableStreamFromIterable and of the async iterators for
/// one scenario.
#[derive(Debug, Default)]
pub struct IterateState {
    /// Every ReadableStreamFromIterable's variables, by [`FromId`].
    froms: Slots<FromIterable>,
    /// Every async iterator's state record, by its hidden object.
    iterators: Slots<AsyncIterator>,
    /// Every async iterator object, to its state record's hidden object.
    objects: Slots<ObjectId>,
}

impl IterateState {
    /// Empties the state for another scenario.
    pub fn clear(&mut self) {
        let IterateState {
            froms,
            iterators,
            objects,
        } = self;
        froms.clear();
        iterators.clear();
        objects.clear();
    }

    /// Forgets a collected object.
    pub(crate) fn forget(&mut self, id: &ObjectId) {
        self.froms.remove(id);
        self.iterators.remove(id);
        self.objects.remove(id);
    }

    /// The objects with slots here.
    pub(crate) fn ids(&self) -> impl Iterator<Item = ObjectId> + '_ {
        self.froms
            .ids()
            .chain(self.iterators.ids())
            .chain(self.objects.ids())
    }
}

/// The strong edges of an object of this module: a from() record's (the
/// stream and the iterator record), an async iterator object's (its state
/// record, and the stream and reader its methods close over) and a state
/// record's (the reader, the ongoing promise and the read's promise).
pub(crate) fn trace(rt: &Rt, obj: ObjectId, edges: &mut Vec<Value>) {
    let state = &rt.lib.streams.iterate;
    if let Some(f) = state.froms.get(&obj) {
        edges.extend(f.stream.map(Value::Object));
        edges.push(f.iterator.iterator.clone());
        edges.push(f.iterator.next_method.clone());
    }
    if let Some(&record) = state.objects.get(&obj) {
        edges.push(Value::Object(record));
        if let Some(o) = state.iterators.get(&record) {
            edges.push(Value::Object(o.target));
            edges.push(Value::Object(o.reader));
        }
    }
    if let Some(o) = state.iterators.get(&obj) {
        edges.push(Value::Object(o.reader));
        edges.extend(o.ongoing_promise.map(Value::Object));
        edges.extend(o.promise.map(Value::Object));
    }
}

fn from_state(rt: &Rt, f: FromId) -> &FromIterable {
    &rt.lib.streams.iterate.froms[&f.0]
}

fn it(rt: &Rt, i: ObjectId) -> &AsyncIterator {
    rt.lib
        .streams
        .iterate
        .iterators
        .get(&i)
        .expect("an async iterator")
}

fn it_mut(rt: &mut Rt, i: ObjectId) -> &mut AsyncIterator {
    rt.lib
        .streams
        .iterate
        .iterators
        .get_mut(&i)
        .expect("an async iterator")
}

/// The stream's controller, once the from() stream is made.
fn from_controller(rt: &Rt, f: FromId) -> ObjectId {
    let s = from_state(rt, f).stream.expect("the from() stream");
    streams::stream_controller(rt, s)
}

// ---- ReadableStream.from --------------------------------------------------

/// The static `ReadableStream.from(asyncIterable)`
/// (<https://streams.spec.whatwg.org/#rs-from>).
pub fn from(rt: &mut Rt, async_iterable: Value) -> Completion {
    // (The argument converted to an IDL async_sequence<any>: Web IDL
    // §3.2.26, "convert a JavaScript value to async sequence".)
    // 1. If V is not an Object, then throw a TypeError.
    // 2. Let method be ? GetMethod(obj, %Symbol.asyncIterator%).
    let mut method = rt.get_well_known_method(&async_iterable, WellKnownSymbol::AsyncIterator)?;
    let mut sync = false;
    // 3. If method is undefined:
    if method == Value::Undefined {
        //  1. Set syncMethod to ? GetMethod(obj, %Symbol.iterator%).
        method = rt.get_well_known_method(&async_iterable, WellKnownSymbol::Iterator)?;
        //  2. If syncMethod is undefined, throw a TypeError.
        if method == Value::Undefined {
            // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1429-L1431
            // `new ERR_ARG_NOT_ITERABLE(iterable)`.
            let shown = rt.fmt(&async_iterable);
            return Err(rt.node_error(
                "TypeError",
                "ERR_ARG_NOT_ITERABLE",
                &format!("{shown} must be iterable"),
            ));
        }
        //  3. Return an IDL async sequence value with object set to V,
        //     method set to syncMethod, and type set to "sync".
        sync = true;
    }
    // 4. Return an IDL async sequence value with object V, method method
    //    and type "async".
    // 1. Return ? ReadableStreamFromIterable(asyncIterable).
    readable_stream_from_iterable(rt, async_iterable, method, sync)
}

/// ReadableStreamFromIterable(asyncIterable)
/// (<https://streams.spec.whatwg.org/#readable-stream-from-iterable>), with
/// the async sequence's object, method and whether its type is "sync".
fn readable_stream_from_iterable(
    rt: &mut Rt,
    object: Value,
    method: Value,
    sync: bool,
) -> Completion {
    // 1. Let stream be undefined.
    // 2. Let iterator be the result of opening an async sequence asyncIterable.
    //    (Web IDL "open an async sequence":)
    //    1. Let iterator be ? GetIteratorFromMethod(sequence's object, sequence's method).
    let iterator = rt.get_iterator_from_method(&object, &method)?;
    //    2. If sequence's type is "sync", set iterator to
    //       CreateAsyncFromSyncIterator(iterator).
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1428-L1438
    // `readableStreamFromIterable` takes `iterable[SymbolAsyncIterator] ??
    // iterable[SymbolIterator]` and calls the iterator it returns as it is:
    // a sync iterator is not wrapped, its `next()` results are used as
    // they come and an object value is awaited in the pull (below), which
    // the wrapper's continuation would do some microtasks later.
    let _ = sync;
    //    3. Return an async iterator value with underlying record set to iterator.
    let f = FromId(streams::new_record_object(rt));
    rt.lib.streams.iterate.froms.insert(
        f.0,
        FromIterable {
            stream: None,
            iterator,
        },
    );
    // 3. Let startAlgorithm be an algorithm that returns undefined.
    // 4. Let pullAlgorithm be the following steps: (from_pull_algorithm)
    // 5. Let cancelAlgorithm be the following steps, given reason:
    //    (from_cancel_algorithm)
    // 6. Set stream to ! CreateReadableStream(startAlgorithm, pullAlgorithm,
    //    cancelAlgorithm, 0).
    let stream = streams::create_readable_stream(
        rt,
        PullAlgorithm::FromIterable { from: f },
        CancelAlgorithm::FromIterable { from: f },
        Some(0.0),
    );
    if let Some(from) = rt.lib.streams.iterate.froms.get_mut(&f.0) {
        from.stream = Some(stream);
    }
    // 7. Return stream.
    Ok(Value::Object(stream))
}

/// ReadableStreamFromIterable's pullAlgorithm (step 4): the promise, or
/// `None` when, as Node's does, it parks its result.
pub(crate) fn from_pull_algorithm(rt: &mut Rt, f: FromId) -> Option<ObjectId> {
    // 1. Let nextPromise be the result of getting the next value of iterator.
    //    (Web IDL "get the next value of an async iterator":)
    //    1. Let nextResult be IteratorNext(iterator's underlying record).
    // MODEL: the runtime's iterators' `next` returns an object (or a
    // promise of one), so IteratorNext's own TypeError never applies.
    let record = from_state(rt, f).iterator.clone();
    // (The record is rooted while `next()` runs.)
    let next_result = streams::rooted(rt, &[Value::Object(f.0)], |rt| {
        rt.iterator_next(&record, None)
    });
    let next_result = match next_result {
        Ok(result) => result,
        //    2. If nextResult is an abrupt completion, return a promise
        //       rejected with nextResult.[[Value]].
        // (Step 2 of ReadableStreamFromIterable's pull then reacts: the
        // controller's upon-rejection steps error the stream.)
        Err(e) => return Some(streams::a_promise_rejected_with(rt, e)),
    };
    //    3. Let nextPromise be a promise resolved with nextResult.[[Value]].
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1500-L1509
    // `PromiseResolve(nextResult)`: a promise `next()` returned is used as
    // it is, two microtasks sooner than a new promise resolved with it.
    let next_promise = rt.promise_resolve(next_result);
    //    4. Return the result of reacting to nextPromise with the following
    //       fulfillment steps, given iterResult: (from_pull_fulfilled)
    // 2. Return the result of reacting to nextPromise:
    //    - If nextPromise was fulfilled with value v: (from_pull_fulfilled)
    //    - If nextPromise was rejected with reason r, perform !
    //      ReadableStreamDefaultControllerError(stream.[[controller]], r).
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1498-L1510
    // the pull returns `kParkedAlgorithmResult`: no promise for the
    // controller to react to; the fulfillment steps end with the
    // controller's pull fulfilment steps, at once.
    streams::upon_settlement(
        rt,
        next_promise,
        &[Value::Object(f.0)],
        move |rt, iter_result| from_pull_fulfilled(rt, f, iter_result),
        move |rt, r| {
            let c = from_controller(rt, f);
            from_controller_error(rt, c, r);
        },
    );
    None
}

/// ! ReadableStreamDefaultControllerError(stream.[[controller]], e) in a
/// reaction of ReadableStreamFromIterable's pull.
fn from_controller_error(rt: &mut Rt, c: ObjectId, e: Value) {
    rt.clear_internal_assertion();
    streams::readable_stream_default_controller_error(rt, c, e);
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1446-L1448
    // `rejectPull` runs in a `PromisePrototypeThen` reaction (or in
    // `processIterResult`, which does): an ERR_INTERNAL_ASSERTION of an
    // async iterator's error steps (see release_parked_reader) rejects the
    // promise that `then` derived, which nothing handles.
    if let Some(e) = rt.take_internal_assertion() {
        streams::a_promise_rejected_with(rt, e);
    }
}

/// The fulfillment steps of the pull's nextPromise, given iterResult (Web
/// IDL's "get the next value" step 4, then ReadableStreamFromIterable's
/// pull step 2 on the value it gives).
fn from_pull_fulfilled(rt: &mut Rt, f: FromId, iter_result: Value) {
    let c = from_controller(rt, f);
    let error = |rt: &mut Rt, e: Value| from_controller_error(rt, c, e);
    // 1. If iterResult is not an Object, throw a TypeError.
    if !matches!(iter_result, Value::Object(_)) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1452-L1455
        // `new ERR_INVALID_STATE.TypeError('The promise returned by the iterator.next() method must fulfill with an object')`.
        let e = streams::err_invalid_state(
            rt,
            "The promise returned by the iterator.next() method must fulfill with an object",
        );
        return error(rt, e);
    }
    // 2. Let done be ? IteratorComplete(iterResult).
    let done = match rt.iterator_complete(&iter_result) {
        Ok(done) => done,
        Err(e) => return error(rt, e),
    };
    // 3. If done is true: 1. Return end of iteration.
    if done {
        // If v is end of iteration, perform !
        // ReadableStreamDefaultControllerClose(stream.[[controller]]).
        streams::readable_stream_default_controller_close(rt, c);
    } else {
        // 4. Otherwise: 1. Let V be ? IteratorValue(iterResult).
        let v = match rt.iterator_value(&iter_result) {
            Ok(v) => v,
            Err(e) => return error(rt, e),
        };
        // 2. Let value be the result of converting V to an IDL value of
        //    type any. 3. Return value.
        if matches!(v, Value::Object(_)) {
            // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1461-L1467
            // an object value is adopted like `await iterResult.value`
            // (`PromiseResolve(value)`, then the enqueue a microtask after it
            // settles), for an async iterator's values too; the spec awaits
            // only a sync iterator's, in CreateAsyncFromSyncIterator's
            // continuation.
            let p = rt.promise_resolve(v);
            streams::upon_settlement(
                rt,
                p,
                &[Value::Object(f.0)],
                move |rt, value| {
                    // Otherwise, perform !
                    // ReadableStreamDefaultControllerEnqueue(stream.[[controller]], v).
                    let c = from_controller(rt, f);
                    streams::readable_stream_default_controller_enqueue(rt, c, value)
                        .expect("a chunk of size 1 is enqueued");
                    streams::pull_promise_fulfilled(rt, c);
                },
                move |rt, r| {
                    let c = from_controller(rt, f);
                    from_controller_error(rt, c, r);
                },
            );
            return;
        }
        // Otherwise, perform !
        // ReadableStreamDefaultControllerEnqueue(stream.[[controller]], v).
        streams::readable_stream_default_controller_enqueue(rt, c, v)
            .expect("a chunk of size 1 is enqueued");
    }
    // (ReadableStreamDefaultControllerCallPullIfNeeded's step 7, "upon
    // fulfillment of pullPromise", run at once: see from_pull_algorithm.)
    streams::pull_promise_fulfilled(rt, c);
}

/// ReadableStreamFromIterable's cancelAlgorithm (step 5), given reason.
pub(crate) fn from_cancel_algorithm(rt: &mut Rt, f: FromId, reason: Value) -> ObjectId {
    // 1. Return the result of closing iterator with reason.
    //    (Web IDL "close an async iterator":)
    //    1. Let iteratorRecord be iterator's underlying record.
    //    2. Let iteratorObj be iteratorRecord.[[Iterator]].
    let iterator_obj = from_state(rt, f).iterator.iterator.clone();
    //    3. Let returnMethod be GetMethod(iteratorObj, "return").
    let return_method = match rt.get_method(&iterator_obj, "return") {
        Ok(m) => m,
        //    4. If returnMethod is an abrupt completion, return a promise
        //       rejected with returnMethod.[[Value]].
        Err(e) => return streams::a_promise_rejected_with(rt, e),
    };
    //    5. If returnMethod is undefined, return a promise resolved with undefined.
    // (An array's iterator has no `return`.)
    let Some(return_method) = return_method.as_object() else {
        return streams::a_promise_resolved_with(rt, Value::Undefined);
    };
    //    6. Let returnResult be Call(returnMethod.[[Value]], iteratorObj, « reason »).
    let return_result = match streams::call_rooted(rt, return_method, iterator_obj, &[reason], &[])
    {
        Ok(r) => r,
        //    7. If returnResult is an abrupt completion, return a promise
        //       rejected with returnResult.[[Value]].
        Err(e) => return streams::a_promise_rejected_with(rt, e),
    };
    //    8. Let returnPromise be a promise resolved with returnResult.[[Value]].
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1517-L1527
    // the cancel algorithm is an async function that does `await
    // iterator.return(reason)`: PromiseResolve, so the promise `return()`
    // gave is used as it is, two microtasks sooner.
    let return_promise = rt.promise_resolve(return_result);
    //    9. Return the result of reacting to returnPromise with the following
    //       fulfillment steps, given returnPromiseResult:
    let fulfillment = rt.native_function_capturing(Captures::nothing(), |rt, _this, args| {
        let return_promise_result = args.first().cloned().unwrap_or(Value::Undefined);
        //   1. If returnPromiseResult is not an Object, throw a TypeError.
        if !matches!(return_promise_result, Value::Object(_)) {
            // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L1523-L1526
            // `ERR_INVALID_STATE`'s message.
            return Err(streams::err_invalid_state(
                rt,
                "The promise returned by the iterator.return() method must fulfill with an object",
            ));
        }
        //   2. Return undefined.
        Ok(Value::Undefined)
    });
    rt.promise_then(return_promise, Some(fulfillment), None)
}

// ---- the async iterator ---------------------------------------------------

/// `stream.values({ preventCancel })`
/// (<https://streams.spec.whatwg.org/#rs-get-iterator>): a new default
/// asynchronous iterator object (Web IDL §3.7.10.1), its target the
/// stream, its ongoing promise null, not finished; then the asynchronous
/// iterator initialization steps.
pub fn values(rt: &mut Rt, stream: Value, prevent_cancel: bool) -> Completion {
    let s = streams::stream_operand(rt, stream, "values")?;
    // 1. Let reader be ? AcquireReadableStreamDefaultReader(stream).
    let reader = streams::acquire_readable_stream_default_reader(rt, s)?;
    let iterator = rt.heap.alloc(ObjectData::Host);
    // (The state record, apart from the object: see AsyncIterator.)
    let state = streams::new_record_object(rt);
    rt.lib.streams.iterate.objects.insert(iterator, state);
    rt.lib.streams.iterate.iterators.insert(
        state,
        AsyncIterator {
            target: s,
            ongoing_promise: None,
            is_finished: false,
            // 2. Set iterator's reader to reader.
            reader,
            // 3. Let preventCancel be args[0]["preventCancel"].
            // 4. Set iterator's prevent cancel to preventCancel.
            prevent_cancel,
            promise: None,
            started: false,
        },
    );
    Ok(Value::Object(iterator))
}

/// The state record of the iterator a `next` or `return` is called on.
fn iterator_operand(rt: &mut Rt, value: Value, prop: &str) -> Result<ObjectId, Value> {
    match value {
        Value::Object(id) if rt.lib.streams.iterate.objects.contains_key(&id) => {
            Ok(rt.lib.streams.iterate.objects[&id])
        }
        // MODEL: the parser's kinds rule this out; the message is the model's.
        other => Err(crate::cannot_read(rt, &other, prop)),
    }
}

/// The `next` method of the asynchronous iterator prototype object (Web IDL
/// §3.7.10.2).
pub fn next(rt: &mut Rt, this_value: Value) -> Completion {
    // 1-7. (the interface; thisValidationPromiseCapability; object is this
    //    value, a default asynchronous iterator object for ReadableStream)
    let object = iterator_operand(rt, this_value, "next")?;
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L796-L804
    // "If this is the first read, delay by one microtask": the first call
    // (of next or return) finds an ongoing promise, Node's
    // `kResolvedPromise`, and chains on it.
    if !it(rt, object).started {
        let resolved = rt.promise_resolve(Value::Undefined);
        let o = it_mut(rt, object);
        o.ongoing_promise = Some(resolved);
        o.started = true;
    }
    // 9. Let ongoingPromise be object's ongoing promise.
    // 10. If ongoingPromise is not null, then:
    if let Some(ongoing_promise) = it(rt, object).ongoing_promise {
        //  1. Let afterOngoingPromiseCapability be ! NewPromiseCapability(%Promise%).
        //  2. Let onSettled be CreateBuiltinFunction(nextSteps, 0, "", « »).
        let captures = Captures::objects(&[object, it(rt, object).target]);
        let on_settled = rt.native_function_capturing(captures, move |rt, _, _| {
            Ok(Value::Object(next_steps(rt, object)))
        });
        //  3. Perform PerformPromiseThen(ongoingPromise, onSettled, onSettled,
        //     afterOngoingPromiseCapability).
        let after = rt.promise_then(ongoing_promise, Some(on_settled), Some(on_settled));
        //  4. Set object's ongoing promise to afterOngoingPromiseCapability.[[Promise]].
        it_mut(rt, object).ongoing_promise = Some(after);
    } else {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L814-L853
        // with no read in flight and a chunk in the controller's queue
        // (default or byte), Node dequeues it as the controller's pull steps would (and
        // closes or pulls as they would) and returns
        // `PromiseResolve({ done: false, value })`, the ongoing promise
        // left null: the result is seen a microtask after the call, where
        // the read request's would be seen some microtasks later.
        if let Some(result) = buffered_next(rt, object) {
            return Ok(Value::Object(result));
        }
        // 11. Otherwise: 1. Set object's ongoing promise to the result of
        //     running nextSteps.
        let p = next_steps(rt, object);
        it_mut(rt, object).ongoing_promise = Some(p);
    }
    // 12. Return object's ongoing promise.
    Ok(Value::Object(
        it(rt, object).ongoing_promise.expect("the ongoing promise"),
    ))
}

/// Node's buffered fast path of `next()` (see [`next`]).
fn buffered_next(rt: &mut Rt, object: ObjectId) -> Option<ObjectId> {
    let o = it(rt, object);
    if o.is_finished {
        return None;
    }
    let s = streams::reader(rt, o.reader).stream?;
    if streams::stream(rt, s).state != ReadableStreamState::Readable {
        return None;
    }
    let c = streams::stream_controller(rt, s);
    let chunk = if streams::is_byte_controller(rt, c) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L843-L851
        // a byte controller with queued bytes takes the fast path too: the
        // [[PullSteps]] queue-filled arm (FillReadRequestFromQueue steps
        // 1-6), without the read request.
        if !crate::byte_streams::has_queued_bytes(rt, c) {
            return None;
        }
        // ReadableStreamDefaultReaderRead: 3. Set stream.[[disturbed]] to true.
        streams::set_disturbed(rt, s);
        crate::byte_streams::fill_read_request_from_queue_view(rt, c)
    } else {
        if !streams::controller_has_queued_chunks(rt, c) {
            return None;
        }
        // ReadableStreamDefaultReaderRead: 3. Set stream.[[disturbed]] to true.
        streams::set_disturbed(rt, s);
        // [[PullSteps]]: the queue-filled arm, without the read request.
        streams::pull_steps_dequeue(rt, c)
    };
    let result = rt.create_iter_result(chunk, false);
    Some(rt.promise_resolve(result))
}

/// The `next` method's nextSteps (step 8).
fn next_steps(rt: &mut Rt, object: ObjectId) -> ObjectId {
    // 1. Let nextPromiseCapability be ! NewPromiseCapability(%Promise%).
    // 2. If object's is finished is true, then:
    if it(rt, object).is_finished {
        //  1. Let result be CreateIteratorResultObject(undefined, true).
        let result = rt.create_iter_result(Value::Undefined, true);
        //  2. Perform ! Call(nextPromiseCapability.[[Resolve]], undefined, « result »).
        //  3. Return nextPromiseCapability.[[Promise]].
        return streams::a_promise_resolved_with(rt, result);
    }
    // 3. Let kind be object's kind.
    // 4. Let nextPromise be the result of getting the next iteration result
    //    with object's target and object.
    // 5-9. (fulfillSteps, rejectSteps, PerformPromiseThen(nextPromise,
    //    onFulfilled, onRejected, nextPromiseCapability))
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L699-L731
    // the read request settles the promise next() returns with the
    // iterator result itself, and does fulfillSteps' and rejectSteps' work
    // (ongoing promise null, is finished) when it runs: no reaction after
    // nextPromise, and the ongoing promise is cleared a microtask sooner.
    get_the_next_iteration_result(rt, object)
}

/// ReadableStream's "get the next iteration result" steps
/// (<https://streams.spec.whatwg.org/#rs-asynciterator-prototype-next>),
/// given the stream and iterator.
fn get_the_next_iteration_result(rt: &mut Rt, iterator: ObjectId) -> ObjectId {
    // 1. Let reader be iterator's reader.
    let reader = it(rt, iterator).reader;
    // 2. Assert: reader.[[stream]] is not undefined.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L738-L742
    // a released reader gives a promise rejected with
    // `ERR_INVALID_STATE.TypeError('The reader is not bound to a ReadableStream')`.
    if streams::reader(rt, reader).stream.is_none() {
        let e = streams::err_invalid_state(rt, "The reader is not bound to a ReadableStream");
        return streams::a_promise_rejected_with(rt, e);
    }
    // 3. Let promise be a new promise.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L695-L731
    // the iterator's state record is its one read request and holds one
    // `PromiseWithResolvers()` in `promise`: a read started while another
    // is in flight (a next() called after a chunk cleared the ongoing
    // promise, before a chained next's steps ran) replaces it, so the
    // earlier request settles the later promise and the earlier promise is
    // never settled; settling it again through its resolving functions does
    // nothing.
    let promise = rt.new_deferred();
    it_mut(rt, iterator).promise = Some(promise);
    // 4. Let readRequest be a new read request with the following items:
    //    (iterator_chunk_steps, iterator_close_steps, iterator_error_steps)
    // 5. Perform ! ReadableStreamDefaultReaderRead(this, readRequest).
    // (The promise is rooted while the read may run script code and settle
    // it: a later read replaces the state's.)
    streams::rooted(rt, &[Value::Object(promise)], |rt| {
        streams::readable_stream_default_reader_read(
            rt,
            reader,
            ReadRequest::AsyncIterator { iterator },
        )
    });
    // 6. Return promise.
    promise
}

/// "Resolve promise with x" or "reject promise with x": through the
/// resolving functions of the iterator's promise (Web IDL's resolve and
/// reject call them), so that a second settlement does nothing.
fn settle_read_promise(rt: &mut Rt, iterator: ObjectId, result: Result<Value, Value>) {
    let promise = it(rt, iterator)
        .promise
        .expect("the promise of the read in flight");
    let (resolve, reject) = rt
        .deferred_resolvers(promise)
        .expect("the read promise keeps its resolving functions");
    let (function, x) = match result {
        Ok(x) => (resolve, x),
        Err(x) => (reject, x),
    };
    // A promise's resolving functions return undefined and throw nothing.
    let _ = rt.call_function(function, Value::Undefined, &[x]);
}

/// The read request's chunk steps, given chunk.
pub(crate) fn iterator_chunk_steps(rt: &mut Rt, iterator: ObjectId, chunk: Value) {
    // (fulfillSteps 1. Set object's ongoing promise to null.)
    it_mut(rt, iterator).ongoing_promise = None;
    // 1. Resolve promise with chunk.
    // (fulfillSteps 4.3-4. Let value be next, converted to a JavaScript
    // value. Return CreateIteratorResultObject(value, false).)
    let result = rt.create_iter_result(chunk, false);
    settle_read_promise(rt, iterator, Ok(result));
}

/// Step 1 of the read request's close and error steps: ! ReadableStreamDefaultReaderRelease(reader),
/// false when the reader was already released.
fn release_parked_reader(rt: &mut Rt, reader: ObjectId) -> bool {
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L715-L728
    // the iterator's one read request record, parked twice (see
    // get_the_next_iteration_result), runs these steps twice when the stream
    // closes or errors; the first run released the reader, and the second
    // one's `readableStreamReaderGenericRelease` fails its
    // `assert(stream !== undefined)`: ERR_INTERNAL_ASSERTION unwinds
    // ReadableStreamClose or ReadableStreamError to the operation that
    // closed or errored the stream, which throws it (the promise was settled
    // by the first run).
    if streams::reader(rt, reader).stream.is_none() {
        rt.raise_internal_assertion();
        return false;
    }
    streams::readable_stream_default_reader_release(rt, reader);
    true
}

/// The read request's close steps.
pub(crate) fn iterator_close_steps(rt: &mut Rt, iterator: ObjectId) {
    // (fulfillSteps 1. Set object's ongoing promise to null. 2.1. Set
    // object's is finished to true.)
    let o = it_mut(rt, iterator);
    o.ongoing_promise = None;
    o.is_finished = true;
    let reader = o.reader;
    // 1. Perform ! ReadableStreamDefaultReaderRelease(reader).
    if !release_parked_reader(rt, reader) {
        return;
    }
    // 2. Resolve promise with end of iteration.
    // (fulfillSteps 2.2. Return CreateIteratorResultObject(undefined, true).)
    let result = rt.create_iter_result(Value::Undefined, true);
    settle_read_promise(rt, iterator, Ok(result));
}

/// The read request's error steps, given e.
pub(crate) fn iterator_error_steps(rt: &mut Rt, iterator: ObjectId, e: Value) {
    // (rejectSteps 1. Set object's ongoing promise to null. 2. Set object's
    // is finished to true.)
    let o = it_mut(rt, iterator);
    o.ongoing_promise = None;
    o.is_finished = true;
    let reader = o.reader;
    // 1. Perform ! ReadableStreamDefaultReaderRelease(reader).
    if !release_parked_reader(rt, reader) {
        return;
    }
    // 2. Reject promise with e. (rejectSteps 3. Throw reason.)
    settle_read_promise(rt, iterator, Err(e));
}

/// The `return` method of the asynchronous iterator prototype object (Web
/// IDL §3.7.10.2), taking one argument value.
pub fn iterator_return(rt: &mut Rt, this_value: Value, value: Option<Value>) -> Completion {
    let value = value.unwrap_or(Value::Undefined);
    // 1-7. (the interface; returnPromiseCapability; object is this value,
    //    a default asynchronous iterator object for ReadableStream)
    let object = iterator_operand(rt, this_value, "return")?;
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L864
    // `state.started = true`: a next() after it is not delayed.
    it_mut(rt, object).started = true;
    // 9. Let ongoingPromise be object's ongoing promise.
    // 10. If ongoingPromise is not null, then:
    if let Some(ongoing_promise) = it(rt, object).ongoing_promise {
        //  1. Let afterOngoingPromiseCapability be ! NewPromiseCapability(%Promise%).
        //  2. Let onSettled be CreateBuiltinFunction(returnSteps, 0, "", « »).
        let value = value.clone();
        let captures = Captures::values(vec![
            Value::Object(object),
            Value::Object(it(rt, object).target),
            value.clone(),
        ]);
        let on_settled = rt.native_function_capturing(captures, move |rt, _, _| {
            Ok(Value::Object(return_steps(rt, object, value.clone())))
        });
        //  3. Perform PerformPromiseThen(ongoingPromise, onSettled, onSettled,
        //     afterOngoingPromiseCapability).
        let after = rt.promise_then(ongoing_promise, Some(on_settled), Some(on_settled));
        //  4. Set object's ongoing promise to afterOngoingPromiseCapability.[[Promise]].
        it_mut(rt, object).ongoing_promise = Some(after);
    } else {
        // 11. Otherwise: 1. Set object's ongoing promise to the result of
        //     running returnSteps.
        let p = return_steps(rt, object, value);
        it_mut(rt, object).ongoing_promise = Some(p);
    }
    // 12. Let fulfillSteps be the following steps:
    //     1. Return CreateIteratorResultObject(value, true).
    // 13. Let onFulfilled be CreateBuiltinFunction(fulfillSteps, 1, "", « »).
    // 14. Perform PerformPromiseThen(object's ongoing promise, onFulfilled,
    //     undefined, returnPromiseCapability).
    // 15. Return returnPromiseCapability.[[Promise]].
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L864-L871
    // `return state.current`: the ongoing promise itself, which the return
    // steps fulfil with the iterator result (below); no reaction after it.
    Ok(Value::Object(
        it(rt, object).ongoing_promise.expect("the ongoing promise"),
    ))
}

/// The `return` method's returnSteps (step 8).
fn return_steps(rt: &mut Rt, object: ObjectId, value: Value) -> ObjectId {
    // 1. Let returnPromiseCapability be ! NewPromiseCapability(%Promise%).
    // 2. If object's is finished is true, then:
    if it(rt, object).is_finished {
        //  1. Let result be CreateIteratorResultObject(value, true).
        let result = rt.create_iter_result(value, true);
        //  2. Perform ! Call(returnPromiseCapability.[[Resolve]], undefined, « result »).
        //  3. Return returnPromiseCapability.[[Promise]].
        return streams::a_promise_resolved_with(rt, result);
    }
    // 3. Set object's is finished to true.
    it_mut(rt, object).is_finished = true;
    // 4. Return the result of running the asynchronous iterator return
    //    algorithm for interface, given object's target, object, and value.
    asynchronous_iterator_return(rt, object, value)
}

/// ReadableStream's asynchronous iterator return steps
/// (<https://streams.spec.whatwg.org/#rs-asynciterator-prototype-return>),
/// given the stream, iterator and arg.
fn asynchronous_iterator_return(rt: &mut Rt, iterator: ObjectId, arg: Value) -> ObjectId {
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L753
    // the return steps make the iterator result `{ done: true, value }`
    // that Web IDL's `return` makes in a reaction after them.
    let iter_result = rt.create_iter_result(arg.clone(), true);
    // 1. Let reader be iterator's reader.
    let reader = it(rt, iterator).reader;
    // 2. Assert: reader.[[stream]] is not undefined.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L760-L763
    // a released reader gives a promise rejected with
    // `ERR_INVALID_STATE.TypeError('The reader is not bound to a ReadableStream')`.
    if streams::reader(rt, reader).stream.is_none() {
        let e = streams::err_invalid_state(rt, "The reader is not bound to a ReadableStream");
        return streams::a_promise_rejected_with(rt, e);
    }
    // 3. Assert: reader.[[readRequests]] is empty, as the async iterator
    //    machinery guarantees that any previous calls to next() have settled
    //    before this is called.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L764
    // Node's ongoing promise is cleared by the read request's chunk steps,
    // before a next() chained behind it reads (see next_steps), so a
    // return() called then finds that read parked: its `assert` throws and
    // the return steps give a promise rejected with ERR_INTERNAL_ASSERTION,
    // the stream neither cancelled nor released.
    if !streams::reader(rt, reader).read_requests.is_empty() {
        let e = rt.internal_assertion_error();
        return streams::a_promise_rejected_with(rt, e);
    }
    // 4. If iterator's prevent cancel is false:
    if !it(rt, iterator).prevent_cancel {
        //  1. Let result be ! ReadableStreamReaderGenericCancel(reader, arg).
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L758-L775
        // a throw of the cancel (a terminated transform's readable) is
        // caught: a promise rejected with it, the reader not released.
        // (The iterator result and the state record, in locals, are
        // rooted while the cancel runs script code.)
        let roots = [iter_result.clone(), Value::Object(iterator)];
        let cancelled = streams::rooted(rt, &roots, |rt| {
            streams::readable_stream_reader_generic_cancel(rt, reader, arg)
        });
        let result = match cancelled {
            Ok(result) => result,
            Err(e) => return streams::a_promise_rejected_with(rt, e),
        };
        //  2. Perform ! ReadableStreamDefaultReaderRelease(reader).
        streams::readable_stream_default_reader_release(rt, reader);
        //  3. Return result.
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L766-L768
        // `PromisePrototypeThen(result, () => iterResult)`.
        let captures = Captures::values(vec![iter_result.clone()]);
        let give = rt.native_function_capturing(captures, move |_, _, _| Ok(iter_result.clone()));
        return rt.promise_then(result, Some(give), None);
    }
    // 5. Perform ! ReadableStreamDefaultReaderRelease(reader).
    streams::readable_stream_default_reader_release(rt, reader);
    // 6. Return a promise resolved with undefined.
    // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webstreams/readablestream.js#L771-L772
    // `PromiseResolve(iterResult)`, the iterator result at once.
    rt.promise_resolve(iter_result)
}

// ---- what the runtime asks ------------------------------------------------

/// What an iterate object is, or `None` when `obj` is none.
pub fn host_class(rt: &Rt, obj: ObjectId) -> Option<HostClass> {
    rt.lib
        .streams
        .iterate
        .objects
        .contains_key(&obj)
        .then_some(HostClass::ReadableStreamAsyncIterator)
}

/// A property of an async iterator (none the language reads), or `None`
/// when `obj` is none.
pub fn get(rt: &Rt, obj: ObjectId, _prop: &str) -> Option<Completion> {
    rt.lib
        .streams
        .iterate
        .objects
        .contains_key(&obj)
        .then_some(Ok(Value::Undefined))
}
