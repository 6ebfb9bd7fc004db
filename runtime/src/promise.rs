//! Promises, transcribed from ECMA-262 §27.2 (Promise Objects), and Node's
//! tracking of unhandled rejections.
//!
//! The tick counts of promise code are observable (a `then` callback runs a
//! microtask after resolution, resolving with a thenable costs two more), so
//! the abstract operations follow the specification step by step:
//! <https://tc39.es/ecma262/#sec-promise-objects>.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use nodesem_lang::Combinator;

use crate::value::{Completion, ErrorClass, FunctionData, ObjectData, ObjectId, Value};
use crate::{Job, Library, Runtime};

/// [[PromiseState]].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromiseState {
    /// pending
    Pending,
    /// fulfilled
    Fulfilled,
    /// rejected
    Rejected,
}

/// The internal slots of a promise.
pub struct PromiseData {
    /// [[PromiseState]].
    pub state: PromiseState,
    /// [[PromiseResult]].
    pub result: Value,
    /// [[PromiseFulfillReactions]].
    pub fulfill_reactions: Vec<PromiseReaction>,
    /// [[PromiseRejectReactions]].
    pub reject_reactions: Vec<PromiseReaction>,
    /// [[PromiseIsHandled]].
    pub is_handled: bool,
    /// The resolving functions kept by `promise` (a deferred), if any.
    pub resolvers: Option<(ObjectId, ObjectId)>,
}

/// [[Type]] of a PromiseReaction Record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReactionType {
    /// Fulfill
    Fulfill,
    /// Reject
    Reject,
}

/// A PromiseReaction Record (§27.2.1.2).
#[derive(Clone, Debug)]
pub struct PromiseReaction {
    /// [[Capability]]: the derived promise and its resolving functions, or
    /// empty.
    pub capability: Option<PromiseCapability>,
    /// [[Type]].
    pub kind: ReactionType,
    /// [[Handler]]: a function, or empty.
    pub handler: Option<ObjectId>,
    /// V8's continuation-preserved embedder data of the reaction: the async
    /// context frame current when `then` (or `await`) made it, which its
    /// job runs in.
    pub frame: Value,
}

/// A PromiseCapability Record (§27.2.1.1).
#[derive(Clone, Copy, Debug)]
pub struct PromiseCapability {
    /// [[Promise]].
    pub promise: ObjectId,
    /// [[Resolve]].
    pub resolve: ObjectId,
    /// [[Reject]].
    pub reject: ObjectId,
}

impl<L: Library> Runtime<L> {
    fn promise_data(&self, p: ObjectId) -> &PromiseData {
        match self.heap.get(p) {
            ObjectData::Promise(d) => d,
            _ => panic!("not a promise: {p:?}"),
        }
    }

    fn promise_data_mut(&mut self, p: ObjectId) -> &mut PromiseData {
        match self.heap.get_mut(p) {
            ObjectData::Promise(d) => d,
            _ => panic!("not a promise: {p:?}"),
        }
    }

    /// Whether the object is a promise.
    pub fn is_promise(&self, v: &Value) -> bool {
        matches!(v, Value::Object(id) if matches!(self.heap.get(*id), ObjectData::Promise(_)))
    }

    /// A new pending promise (the part of `new Promise(executor)` before
    /// the executor runs).
    pub fn new_promise(&mut self) -> ObjectId {
        self.heap.alloc(ObjectData::Promise(PromiseData {
            state: PromiseState::Pending,
            result: Value::Undefined,
            fulfill_reactions: Vec::new(),
            reject_reactions: Vec::new(),
            is_handled: false,
            resolvers: None,
        }))
    }

    /// `promise`: a new promise whose resolving functions are kept for
    /// `resolve` and `reject`.
    pub fn new_deferred(&mut self) -> ObjectId {
        let p = self.new_promise();
        let (resolve, reject) = self.create_resolving_functions(p);
        self.promise_data_mut(p).resolvers = Some((resolve, reject));
        p
    }

    /// The resolving functions of a deferred promise.
    pub fn deferred_resolvers(&self, p: ObjectId) -> Option<(ObjectId, ObjectId)> {
        match self.heap.get(p) {
            ObjectData::Promise(d) => d.resolvers,
            _ => None,
        }
    }

    /// 27.2.1.3 CreateResolvingFunctions ( promise )
    pub fn create_resolving_functions(&mut self, promise: ObjectId) -> (ObjectId, ObjectId) {
        // 1. Let alreadyResolved be the Record { [[Value]]: false }.
        let already_resolved = Rc::new(Cell::new(false));
        // 2-6. Let resolve be a new function (27.2.1.3.2 Promise Resolve
        // Functions) with [[Promise]] and [[AlreadyResolved]] set; its steps
        // are `promise_resolving_function_call`.
        let resolve = self
            .heap
            .alloc(ObjectData::Function(FunctionData::Resolving {
                promise,
                already_resolved: Rc::clone(&already_resolved),
                reject: false,
            }));
        // 7-11. Let reject be a new function (27.2.1.3.1 Promise Reject
        // Functions), likewise.
        let reject = self
            .heap
            .alloc(ObjectData::Function(FunctionData::Resolving {
                promise,
                already_resolved,
                reject: true,
            }));
        // 12. Return the Record { [[Resolve]]: resolve, [[Reject]]: reject }.
        (resolve, reject)
    }

    /// ECMA-262 7.4.14 CreateIterResultObject(value, done): `{ value, done }`.
    pub fn create_iter_result(&mut self, value: Value, done: bool) -> Value {
        Value::Object(self.heap.alloc(ObjectData::IterResult { value, done }))
    }

    /// A call of a function made by [`Runtime::create_resolving_functions`]:
    /// 27.2.1.3.1 Promise Reject Functions when `reject`, else 27.2.1.3.2
    /// Promise Resolve Functions, with their [[Promise]] and
    /// [[AlreadyResolved]] slots.
    pub(crate) fn promise_resolving_function_call(
        &mut self,
        promise: ObjectId,
        already_resolved: &Cell<bool>,
        reject: bool,
        args: &[Value],
    ) -> Completion {
        let argument = args.first().cloned().unwrap_or(Value::Undefined);
        // 5. If alreadyResolved.[[Value]] is true, return undefined.
        if already_resolved.get() {
            return Ok(Value::Undefined);
        }
        // 6. Set alreadyResolved.[[Value]] to true.
        already_resolved.set(true);
        if reject {
            // 7. Perform RejectPromise(promise, reason).
            self.reject_promise(promise, argument);
        } else {
            self.resolve_promise_with(promise, argument);
        }
        // 8. Return undefined.
        Ok(Value::Undefined)
    }

    /// Steps 7-16 of 27.2.1.3.2 Promise Resolve Functions: resolving
    /// `promise` with `resolution` once alreadyResolved has been checked.
    pub fn resolve_promise_with(&mut self, promise: ObjectId, resolution: Value) {
        // 7. If SameValue(resolution, promise) is true, then
        if resolution == Value::Object(promise) {
            // a. Let selfResolutionError be a newly created TypeError object.
            let error = self.new_error(
                "TypeError",
                "Chaining cycle detected for promise #<Promise>",
            );
            // b. Perform RejectPromise(promise, selfResolutionError).
            self.reject_promise(promise, error);
            return;
        }
        // 8. If resolution is not an Object, then
        let Value::Object(obj) = resolution else {
            // a. Perform FulfillPromise(promise, resolution).
            self.fulfill_promise(promise, resolution);
            return;
        };
        // 9. Let then be Completion(Get(resolution, "then")).
        // 11. Let thenAction be then.[[Value]].
        // MODEL: scripts can make only promises and `thenable` objects with a
        // `then`; reading it never throws.
        let has_then = matches!(
            self.heap.get(obj),
            ObjectData::Promise(_) | ObjectData::Thenable { .. }
        );
        // 12. If IsCallable(thenAction) is false, then
        if !has_then {
            // a. Perform FulfillPromise(promise, resolution).
            self.fulfill_promise(promise, resolution);
            return;
        }
        // 13. Let thenJobCallback be HostMakeJobCallback(thenAction).
        // 14. Let job be NewPromiseResolveThenableJob(promise, resolution, thenJobCallback).
        // 15. Perform HostEnqueuePromiseJob(job.[[Job]], job.[[Realm]]).
        self.enqueue_microtask(Job::ResolveThenable {
            promise,
            thenable: obj,
        });
    }

    /// 27.2.2.2 NewPromiseResolveThenableJob: the job's closure.
    pub(crate) fn promise_resolve_thenable_job(&mut self, promise: ObjectId, thenable: ObjectId) {
        // a. Let resolvingFunctions be CreateResolvingFunctions(promiseToResolve).
        let (resolve, reject) = self.create_resolving_functions(promise);
        // b. Let thenCallResult be Completion(HostCallJobCallback(then, thenable,
        //    « resolvingFunctions.[[Resolve]], resolvingFunctions.[[Reject]] »)).
        let result = match self.heap.get(thenable) {
            // The built-in Promise.prototype.then.
            ObjectData::Promise(_) => {
                self.promise_then(thenable, Some(resolve), Some(reject));
                Ok(Value::Undefined)
            }
            // `thenable V [{ ... }]`: then(resolve) { ...; resolve(V); }
            ObjectData::Thenable { value, then } => {
                let (value, then) = (value.clone(), *then);
                match then {
                    Some(body) => self
                        .call_function(body, Value::Object(thenable), &[])
                        .and_then(|_| self.call_function(resolve, Value::Undefined, &[value])),
                    None => self.call_function(resolve, Value::Undefined, &[value]),
                }
            }
            _ => unreachable!("only promises and thenables are enqueued"),
        };
        // c. If thenCallResult is an abrupt completion, then
        if let Err(e) = result {
            // i. Return ? Call(resolvingFunctions.[[Reject]], undefined, « thenCallResult.[[Value]] »).
            let _ = self.call_function(reject, Value::Undefined, &[e]);
        }
    }

    /// 27.2.1.4 FulfillPromise ( promise, value )
    pub fn fulfill_promise(&mut self, promise: ObjectId, value: Value) {
        let data = self.promise_data_mut(promise);
        // 1. Assert: The value of promise.[[PromiseState]] is pending.
        assert_eq!(data.state, PromiseState::Pending);
        // 2. Let reactions be promise.[[PromiseFulfillReactions]].
        let reactions = std::mem::take(&mut data.fulfill_reactions);
        // 3. Set promise.[[PromiseResult]] to value.
        data.result = value.clone();
        // 4-5. Set the reactions lists to undefined.
        data.reject_reactions.clear();
        // 6. Set promise.[[PromiseState]] to fulfilled.
        data.state = PromiseState::Fulfilled;
        // 7. Perform TriggerPromiseReactions(reactions, value).
        self.trigger_promise_reactions(reactions, value);
    }

    /// 27.2.1.7 RejectPromise ( promise, reason )
    pub fn reject_promise(&mut self, promise: ObjectId, reason: Value) {
        let data = self.promise_data_mut(promise);
        // 1. Assert: The value of promise.[[PromiseState]] is pending.
        assert_eq!(data.state, PromiseState::Pending);
        // 2. Let reactions be promise.[[PromiseRejectReactions]].
        let reactions = std::mem::take(&mut data.reject_reactions);
        // 3. Set promise.[[PromiseResult]] to reason.
        data.result = reason.clone();
        // 4-5. Set the reactions lists to undefined.
        data.fulfill_reactions.clear();
        // 6. Set promise.[[PromiseState]] to rejected.
        data.state = PromiseState::Rejected;
        // 7. If promise.[[PromiseIsHandled]] is false, perform
        //    HostPromiseRejectionTracker(promise, "reject").
        if !data.is_handled {
            self.host_promise_rejection_tracker(promise, RejectionOperation::Reject);
        }
        // 8. Perform TriggerPromiseReactions(reactions, reason).
        self.trigger_promise_reactions(reactions, reason);
    }

    /// 27.2.1.8 TriggerPromiseReactions ( reactions, argument )
    fn trigger_promise_reactions(&mut self, reactions: Vec<PromiseReaction>, argument: Value) {
        // 1. For each element reaction of reactions, do
        for reaction in reactions {
            // a. Let job be NewPromiseReactionJob(reaction, argument).
            // b. Perform HostEnqueuePromiseJob(job.[[Job]], job.[[Realm]]).
            self.enqueue_microtask(Job::PromiseReaction {
                reaction,
                argument: argument.clone(),
            });
        }
    }

    /// 27.2.2.1 NewPromiseReactionJob: the job's closure.
    pub(crate) fn promise_reaction_job(&mut self, reaction: PromiseReaction, argument: Value) {
        // c. If handler is empty, then
        let handler_result = match reaction.handler {
            None => match reaction.kind {
                // i. If type is fulfill, let handlerResult be NormalCompletion(argument).
                ReactionType::Fulfill => Ok(argument),
                // ii. Else, let handlerResult be ThrowCompletion(argument).
                ReactionType::Reject => Err(argument),
            },
            // d. Else, let handlerResult be Completion(HostCallJobCallback(handler, undefined, « argument »)).
            Some(handler) => self.call_function(handler, Value::Undefined, &[argument]),
        };
        // e. If promiseCapability is undefined, then return empty.
        let Some(capability) = reaction.capability else {
            return;
        };
        match handler_result {
            // f. If handlerResult is an abrupt completion, then
            //    i. Return ? Call(promiseCapability.[[Reject]], undefined, « handlerResult.[[Value]] »).
            Err(e) => {
                let _ = self.call_function(capability.reject, Value::Undefined, &[e]);
            }
            // g. Else, Return ? Call(promiseCapability.[[Resolve]], undefined, « handlerResult.[[Value]] »).
            Ok(v) => {
                let _ = self.call_function(capability.resolve, Value::Undefined, &[v]);
            }
        }
    }

    /// 27.2.5.4 Promise.prototype.then ( onFulfilled, onRejected ) on a
    /// built-in promise: NewPromiseCapability(%Promise%) then
    /// PerformPromiseThen. Returns the derived promise.
    pub fn promise_then(
        &mut self,
        promise: ObjectId,
        on_fulfilled: Option<ObjectId>,
        on_rejected: Option<ObjectId>,
    ) -> ObjectId {
        // 3. Let C be ? SpeciesConstructor(promise, %Promise%).
        // 4. Let resultCapability be ? NewPromiseCapability(C).
        let capability = self.new_promise_capability();
        let derived = capability.promise;
        // 5. Return PerformPromiseThen(promise, onFulfilled, onRejected, resultCapability).
        self.perform_promise_then(promise, on_fulfilled, on_rejected, Some(capability));
        derived
    }

    /// 27.2.5.4.1 PerformPromiseThen ( promise, onFulfilled, onRejected [ , resultCapability ] )
    pub fn perform_promise_then(
        &mut self,
        promise: ObjectId,
        on_fulfilled: Option<ObjectId>,
        on_rejected: Option<ObjectId>,
        capability: Option<PromiseCapability>,
    ) {
        // 3-6. Handlers that are not callable become empty (callers pass None).
        // 7. Let fulfillReaction be the PromiseReaction Record { ... [[Type]]: fulfill ... }.
        let fulfill = PromiseReaction {
            capability,
            kind: ReactionType::Fulfill,
            handler: on_fulfilled,
            frame: self.frame.clone(),
        };
        // 8. Let rejectReaction be the PromiseReaction Record { ... [[Type]]: reject ... }.
        let reject = PromiseReaction {
            capability,
            kind: ReactionType::Reject,
            handler: on_rejected,
            frame: self.frame.clone(),
        };
        let data = self.promise_data_mut(promise);
        match data.state {
            // 9. If promise.[[PromiseState]] is pending, then append the reactions.
            PromiseState::Pending => {
                data.fulfill_reactions.push(fulfill);
                data.reject_reactions.push(reject);
            }
            // 10. Else if promise.[[PromiseState]] is fulfilled, then
            PromiseState::Fulfilled => {
                // a. Let value be promise.[[PromiseResult]].
                let value = data.result.clone();
                data.is_handled = true;
                // b-c. Let fulfillJob be NewPromiseReactionJob(fulfillReaction, value); enqueue it.
                self.enqueue_microtask(Job::PromiseReaction {
                    reaction: fulfill,
                    argument: value,
                });
                return;
            }
            // 11. Else,
            PromiseState::Rejected => {
                // b. Let reason be promise.[[PromiseResult]].
                let reason = data.result.clone();
                // c. If promise.[[PromiseIsHandled]] is false, perform
                //    HostPromiseRejectionTracker(promise, "handle").
                let was_handled = data.is_handled;
                data.is_handled = true;
                if !was_handled {
                    self.host_promise_rejection_tracker(promise, RejectionOperation::Handle);
                }
                // d-e. Let rejectJob be NewPromiseReactionJob(rejectReaction, reason); enqueue it.
                self.enqueue_microtask(Job::PromiseReaction {
                    reaction: reject,
                    argument: reason,
                });
                return;
            }
        }
        // 12. Set promise.[[PromiseIsHandled]] to true.
        self.promise_data_mut(promise).is_handled = true;
    }

    /// 27.2.4.7.1 PromiseResolve ( C, x ) with C = %Promise%.
    pub fn promise_resolve(&mut self, x: Value) -> ObjectId {
        // 1. If IsPromise(x) is true, then
        //    a. Let xConstructor be ? Get(x, "constructor").
        //    b. If SameValue(xConstructor, C) is true, return x.
        if let Value::Object(id) = x {
            if matches!(self.heap.get(id), ObjectData::Promise(_)) {
                return id;
            }
        }
        // 2. Let promiseCapability be ? NewPromiseCapability(C).
        let p = self.new_promise();
        let (resolve, _reject) = self.create_resolving_functions(p);
        // 3. Perform ? Call(promiseCapability.[[Resolve]], undefined, « x »).
        let _ = self.call_function(resolve, Value::Undefined, &[x]);
        // 4. Return promiseCapability.[[Promise]].
        p
    }

    /// 27.2.4.6 Promise.reject ( r ).
    pub fn promise_reject_new(&mut self, r: Value) -> ObjectId {
        let p = self.new_promise();
        let (_resolve, reject) = self.create_resolving_functions(p);
        let _ = self.call_function(reject, Value::Undefined, &[r]);
        p
    }

    /// 27.2.5.1 Promise.prototype.catch ( onRejected ): Invoke(promise, "then", « undefined, onRejected »).
    pub fn promise_catch(&mut self, promise: ObjectId, on_rejected: ObjectId) -> ObjectId {
        self.promise_then(promise, None, Some(on_rejected))
    }

    /// 27.2.5.3 Promise.prototype.finally ( onFinally ), with C = %Promise%.
    pub fn promise_finally(&mut self, promise: ObjectId, on_finally: ObjectId) -> ObjectId {
        // 6.a. Let thenFinallyClosure be a new Abstract Closure with parameters (value) ...
        let holds = crate::gc::Captures::objects(&[on_finally]);
        let then_finally = self.native_function_capturing(holds.clone(), move |rt, _this, args| {
            let value = args.first().cloned().unwrap_or(Value::Undefined);
            // i. Let result be ? Call(onFinally, undefined).
            let result = rt.call_function(on_finally, Value::Undefined, &[])?;
            // ii. Let p be ? PromiseResolve(C, result).
            let p = rt.promise_resolve(result);
            // iii. Let returnValue be a new Abstract Closure that returns value.
            // iv. Let valueThunk be CreateBuiltinFunction(returnValue, 0, "", « »).
            let holds = crate::gc::Captures::values(vec![value.clone()]);
            let value_thunk = rt.native_function_capturing(holds, move |_, _, _| Ok(value.clone()));
            // v. Return ? Invoke(p, "then", « valueThunk »).
            Ok(Value::Object(rt.promise_then(p, Some(value_thunk), None)))
        });
        // 6.c. Let catchFinallyClosure be a new Abstract Closure with parameters (reason) ...
        let catch_finally = self.native_function_capturing(holds, move |rt, _this, args| {
            let reason = args.first().cloned().unwrap_or(Value::Undefined);
            // i. Let result be ? Call(onFinally, undefined).
            let result = rt.call_function(on_finally, Value::Undefined, &[])?;
            // ii. Let p be ? PromiseResolve(C, result).
            let p = rt.promise_resolve(result);
            // iii. Let throwReason be a new Abstract Closure that throws reason.
            // iv. Let thrower be CreateBuiltinFunction(throwReason, 0, "", « »).
            let holds = crate::gc::Captures::values(vec![reason.clone()]);
            let thrower = rt.native_function_capturing(holds, move |_, _, _| Err(reason.clone()));
            // v. Return ? Invoke(p, "then", « thrower »).
            Ok(Value::Object(rt.promise_then(p, Some(thrower), None)))
        });
        // 7. Return ? Invoke(promise, "then", « thenFinally, catchFinally »).
        self.promise_then(promise, Some(then_finally), Some(catch_finally))
    }

    /// NewPromiseCapability(%Promise%) (27.2.1.5): a new promise and its
    /// resolving functions.
    pub fn new_promise_capability(&mut self) -> PromiseCapability {
        let promise = self.new_promise();
        let (resolve, reject) = self.create_resolving_functions(promise);
        PromiseCapability {
            promise,
            resolve,
            reject,
        }
    }

    /// CreateArrayFromList ( elements ) (7.3.18).
    pub fn create_array_from_list(&mut self, elements: Vec<Value>) -> Value {
        Value::Object(self.heap.alloc(ObjectData::Array(elements.into())))
    }

    /// `Promise.all`, `Promise.allSettled`, `Promise.any` and
    /// `Promise.race` (27.2.4.1, 27.2.4.2, 27.2.4.3, 27.2.4.5) with C =
    /// %Promise% over an array of values: the steps shared by all four,
    /// then the Perform operation of each. The array's iterator is the
    /// built-in one, which cannot throw, so the IfAbruptRejectPromise steps
    /// never apply.
    pub fn promise_combinator(&mut self, kind: Combinator, values: Vec<Value>) -> ObjectId {
        // 1. Let C be the this value.
        // 2. Let promiseCapability be ? NewPromiseCapability(C).
        let capability = self.new_promise_capability();
        // 3. Let promiseResolve be Completion(GetPromiseResolve(C)).
        //    (%Promise.resolve%: PromiseResolve below.)
        // 5. Let iteratorRecord be Completion(GetIterator(iterable, sync)).
        // 7. Let result be Completion(PerformPromiseAll(iteratorRecord, C,
        //    promiseCapability, promiseResolve)) (or its sibling).
        match kind {
            Combinator::All => self.perform_promise_all(values, capability, false),
            Combinator::AllSettled => self.perform_promise_all(values, capability, true),
            Combinator::Any => self.perform_promise_any(values, capability),
            Combinator::Race => self.perform_promise_race(values, capability),
        }
        // 9. Return ? result.
        capability.promise
    }

    /// 27.2.4.1.2 PerformPromiseAll and 27.2.4.2.1 PerformPromiseAllSettled
    /// (`settled`): the same loop, with the second making a record of each
    /// outcome and passing a reject element function of its own.
    fn perform_promise_all(
        &mut self,
        items: Vec<Value>,
        capability: PromiseCapability,
        settled: bool,
    ) {
        // 1. Let values be a new empty List.
        let values = Rc::new(RefCell::new(Vec::with_capacity(items.len())));
        // 2. Let remainingElementsCount be the Record { [[Value]]: 1 }.
        let remaining = Rc::new(Cell::new(1usize));
        // 3. Let index be 0.
        // 4. Repeat,
        for (index, next) in items.into_iter().enumerate() {
            // c. Append undefined to values.
            values.borrow_mut().push(Value::Undefined);
            // d. Let nextPromise be ? Call(promiseResolve, constructor, « next »).
            let next_promise = self.promise_resolve(next);
            // e-j. Let onFulfilled be a new Promise.all Resolve Element
            //      Function (27.2.4.1.3) (or Promise.allSettled's, 27.2.4.2.2),
            //      with [[AlreadyCalled]] false, [[Index]] index, [[Values]]
            //      values, [[Capability]] and [[RemainingElements]].
            //      allSettled: onFulfilled and onRejected share one
            //      alreadyCalled (27.2.4.2.1 step 4.k-r).
            let already_called = Rc::new(Cell::new(false));
            let element = |fulfilled: bool| {
                let (values, remaining, already_called) =
                    (values.clone(), remaining.clone(), already_called.clone());
                move |rt: &mut Runtime<L>, _this: Value, args: &[Value]| {
                    let x = args.first().cloned().unwrap_or(Value::Undefined);
                    // 1-3. If F.[[AlreadyCalled]] is true, return undefined;
                    //      set it to true.
                    if already_called.replace(true) {
                        return Ok(Value::Undefined);
                    }
                    // allSettled 9-12: a record { status, value } or
                    // { status, reason }; all: x itself.
                    let element = if settled {
                        let record = ObjectData::Settled {
                            fulfilled,
                            value: x,
                        };
                        Value::Object(rt.heap.alloc(record))
                    } else {
                        x
                    };
                    // Set values[index] to x (or the record).
                    values.borrow_mut()[index] = element;
                    // Set remainingElementsCount.[[Value]] to
                    // remainingElementsCount.[[Value]] - 1.
                    remaining.set(remaining.get() - 1);
                    // If remainingElementsCount.[[Value]] = 0, then
                    if remaining.get() == 0 {
                        // a. Let valuesArray be CreateArrayFromList(values).
                        let list = std::mem::take(&mut *values.borrow_mut());
                        let array = rt.create_array_from_list(list);
                        // b. Return ? Call(promiseCapability.[[Resolve]], undefined, « valuesArray »).
                        return rt.call_function(capability.resolve, Value::Undefined, &[array]);
                    }
                    Ok(Value::Undefined)
                }
            };
            // Each element function holds the values list and the result
            // capability.
            let holds = || crate::gc::Captures::Lists {
                values: [capability.promise, capability.resolve, capability.reject]
                    .into_iter()
                    .map(Value::Object)
                    .collect(),
                lists: vec![values.clone()],
            };
            let on_fulfilled = self.native_function_capturing(holds(), element(true));
            let on_rejected = if settled {
                self.native_function_capturing(holds(), element(false))
            } else {
                // all: the result capability's own reject.
                capability.reject
            };
            // k. Set remainingElementsCount.[[Value]] to remainingElementsCount.[[Value]] + 1.
            remaining.set(remaining.get() + 1);
            // l. Perform ? Invoke(nextPromise, "then", « onFulfilled, onRejected »).
            self.promise_then(next_promise, Some(on_fulfilled), Some(on_rejected));
            // m. Set index to index + 1.
        }
        // b. If next is DONE, then
        //    i. Set remainingElementsCount.[[Value]] to remainingElementsCount.[[Value]] - 1.
        remaining.set(remaining.get() - 1);
        //    ii. If remainingElementsCount.[[Value]] = 0, then
        if remaining.get() == 0 {
            //   1. Let valuesArray be CreateArrayFromList(values).
            let list = std::mem::take(&mut *values.borrow_mut());
            let array = self.create_array_from_list(list);
            //   2. Perform ? Call(resultCapability.[[Resolve]], undefined, « valuesArray »).
            let _ = self.call_function(capability.resolve, Value::Undefined, &[array]);
        }
        //    iii. Return resultCapability.[[Promise]].
    }

    /// 27.2.4.3.1 PerformPromiseAny.
    fn perform_promise_any(&mut self, items: Vec<Value>, capability: PromiseCapability) {
        // 1. Let errors be a new empty List.
        let errors = Rc::new(RefCell::new(Vec::with_capacity(items.len())));
        // 2. Let remainingElementsCount be the Record { [[Value]]: 1 }.
        let remaining = Rc::new(Cell::new(1usize));
        // 3. Let index be 0.
        // 4. Repeat,
        for (index, next) in items.into_iter().enumerate() {
            // c. Append undefined to errors.
            errors.borrow_mut().push(Value::Undefined);
            // d. Let nextPromise be ? Call(promiseResolve, constructor, « next »).
            let next_promise = self.promise_resolve(next);
            // e-j. Let onRejected be a new Promise.any Reject Element Function
            //      (27.2.4.3.2).
            let (errors_of, remaining_of) = (errors.clone(), remaining.clone());
            let already_called = Cell::new(false);
            let holds = crate::gc::Captures::Lists {
                values: [capability.promise, capability.resolve, capability.reject]
                    .into_iter()
                    .map(Value::Object)
                    .collect(),
                lists: vec![errors.clone()],
            };
            let on_rejected = self.native_function_capturing(holds, move |rt, _this, args| {
                let x = args.first().cloned().unwrap_or(Value::Undefined);
                // 1-3. If F.[[AlreadyCalled]] is true, return undefined; set it.
                if already_called.replace(true) {
                    return Ok(Value::Undefined);
                }
                // 7. Set errors[index] to x.
                errors_of.borrow_mut()[index] = x;
                // 8. Set remainingElementsCount.[[Value]] to ... - 1.
                remaining_of.set(remaining_of.get() - 1);
                // 9. If remainingElementsCount.[[Value]] = 0, then
                if remaining_of.get() == 0 {
                    // a-c. Let error be a newly created AggregateError object
                    //      with its errors property CreateArrayFromList(errors).
                    let list = std::mem::take(&mut *errors_of.borrow_mut());
                    let error = rt.new_aggregate_error(list);
                    // d. Return ? Call(promiseCapability.[[Reject]], undefined, « error »).
                    return rt.call_function(capability.reject, Value::Undefined, &[error]);
                }
                Ok(Value::Undefined)
            });
            // k. Set remainingElementsCount.[[Value]] to ... + 1.
            remaining.set(remaining.get() + 1);
            // l. Perform ? Invoke(nextPromise, "then", « resultCapability.[[Resolve]], onRejected »).
            self.promise_then(next_promise, Some(capability.resolve), Some(on_rejected));
        }
        // b. If next is DONE, then
        //    i. Set remainingElementsCount.[[Value]] to ... - 1.
        remaining.set(remaining.get() - 1);
        //    ii. If remainingElementsCount.[[Value]] = 0, then
        if remaining.get() == 0 {
            //   1-3. Let error be a newly created AggregateError object ...
            let list = std::mem::take(&mut *errors.borrow_mut());
            let error = self.new_aggregate_error(list);
            //   4. Return ThrowCompletion(error): Promise.any's step 8,
            //      IfAbruptRejectPromise, rejects the capability with it.
            let _ = self.call_function(capability.reject, Value::Undefined, &[error]);
        }
    }

    /// 27.2.4.5.1 PerformPromiseRace.
    fn perform_promise_race(&mut self, items: Vec<Value>, capability: PromiseCapability) {
        // 1. Repeat,
        for next in items {
            // c. Let nextPromise be ? Call(promiseResolve, constructor, « next »).
            let next_promise = self.promise_resolve(next);
            // d. Perform ? Invoke(nextPromise, "then", « resultCapability.[[Resolve]], resultCapability.[[Reject]] »).
            self.promise_then(
                next_promise,
                Some(capability.resolve),
                Some(capability.reject),
            );
        }
        // b. If next is DONE, return resultCapability.[[Promise]].
    }

    /// 27.2.1.9 HostPromiseRejectionTracker ( promise, operation ), as Node
    /// implements it.
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/process/promises.js#L189-L198>
    /// `unhandledRejection` keeps rejected promises without a handler in
    /// insertion order; one that gets a handler before they are processed is
    /// forgotten; the rest are reported by `processPromiseRejections()` at the
    /// end of each round of `processTicksAndRejections()`.
    fn host_promise_rejection_tracker(&mut self, promise: ObjectId, operation: RejectionOperation) {
        match operation {
            RejectionOperation::Reject => self.pending_unhandled_rejections.push(promise),
            RejectionOperation::Handle => {
                // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/process/promises.js#L203-L218> `handledRejection`: a rejection
                // not yet processed is forgotten; one already reported
                // (`warned`) waits for the next processPromiseRejections,
                // which emits 'rejectionHandled' for it.
                let before = self.pending_unhandled_rejections.len();
                self.pending_unhandled_rejections.retain(|p| *p != promise);
                if self.pending_unhandled_rejections.len() == before
                    && self.reported_rejections.remove(&promise)
                {
                    self.handled_after_report.push(promise);
                }
            }
        }
    }

    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/process/promises.js#L369-L416> `processPromiseRejections()`: reports every pending rejection
    /// that is still unhandled, through `process.on('unhandledRejection')`.
    /// Returns whether anything was reported (so that the tick loop runs
    /// another round, as Node's does).
    pub(crate) fn process_promise_rejections(&mut self) -> bool {
        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/process/promises.js#L370-L377> first
        // `process.emit('rejectionHandled', promise)` for each reported
        // rejection that got a handler since, in that order.
        let handled = std::mem::take(&mut self.handled_after_report);
        let mut reported = !handled.is_empty();
        for promise in handled {
            let line = format!("rejection handled {}", self.fmt(&Value::Object(promise)));
            self.log_line(line);
        }
        let pending = std::mem::take(&mut self.pending_unhandled_rejections);
        for promise in pending {
            let data = self.promise_data(promise);
            if data.is_handled {
                continue;
            }
            let reason = data.result.clone();
            // `promiseInfo.warned = true`: a handler added later is reported.
            self.reported_rejections.insert(promise);
            reported = true;
            if self.rejection_handler {
                let line = format!("unhandled rejection {}", self.fmt(&reason));
                self.log_line(line);
                continue;
            }
            // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/process/promises.js#L316-L327>
            // `throwUnhandledRejectionsMode`, Node's default: no
            // 'unhandledRejection' listener handled it, so an error-like
            // reason (an object with an own `stack`), or else an
            // UnhandledPromiseRejection describing it, is raised as an
            // uncaught exception from a promise.
            let error = if self.is_error_like(&reason) {
                reason
            } else {
                let shown = self.no_side_effects_to_string(&reason);
                let message = format!("This error originated either by throwing inside of an async function without a catch block, or by rejecting a promise which was not handled with .catch(). The promise rejected with the reason \"{shown}\".");
                Value::Object(self.heap.alloc(ObjectData::Error {
                    class: ErrorClass::Node {
                        code: "ERR_UNHANDLED_REJECTION",
                    },
                    name: std::rc::Rc::from("UnhandledPromiseRejection"),
                    message: std::rc::Rc::from(message.as_str()),
                }))
            };
            self.trigger_uncaught_exception(&error, true);
            if self.stopped {
                break;
            }
        }
        reported
    }

    /// Creates a built-in function object whose captures are not listed: a
    /// collection that reaches it collects nothing ([`crate::gc`]).
    pub fn native_function(
        &mut self,
        f: impl Fn(&mut Runtime<L>, Value, &[Value]) -> Completion + 'static,
    ) -> ObjectId {
        self.native_function_capturing(crate::gc::Captures::Unknown, f)
    }

    /// Creates a built-in function object that holds `captures` (and
    /// nothing else that is or can come to be an object).
    pub fn native_function_capturing(
        &mut self,
        captures: crate::gc::Captures,
        f: impl Fn(&mut Runtime<L>, Value, &[Value]) -> Completion + 'static,
    ) -> ObjectId {
        self.heap.alloc(ObjectData::Function(FunctionData::Native(
            Rc::new(f),
            captures,
        )))
    }
}

/// The operation argument of HostPromiseRejectionTracker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RejectionOperation {
    Reject,
    Handle,
}
