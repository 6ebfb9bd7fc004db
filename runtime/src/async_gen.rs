//! Async generator objects (ECMA-262 §27.6, AsyncGenerator Objects), for
//! the one generator the language makes: `from async [V, ...]`'s
//! `(async function* () { for (let i = 0; i < values.length; i++) yield
//! values[i]; })()` (the prelude's `$.asyncGenerator`).
//!
//! Why here: `ReadableStream.from` over an async generator observes how
//! many microtasks each `next()` and `return()` takes, and that comes from
//! the generator's own machinery: a `yield` awaits its operand before it
//! settles the request's promise, a `return()` at a `yield` awaits its
//! value before the generator completes, requests queue up while the body
//! runs. The abstract operations below are the specification's, step by
//! step (<https://tc39.es/ecma262/#sec-asyncgenerator-objects>), with the
//! states of ES2022 (suspended-start, suspended-yield, executing,
//! awaiting-return, completed; ES2024 renamed the interim state of a body
//! that ended to draining-queue, which changes nothing observable).
//!
//! The body is not a block of the scenario but this fixed loop, so its
//! evaluation is written out as [`BodyPosition`]s: the loop's `i`, and
//! whether the body is at its start, awaiting a `yield`'s operand,
//! suspended at a `yield` or awaiting a `return()`'s value there.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use crate::gc::Captures;
use crate::promise::PromiseCapability;
use crate::value::{ObjectData, ObjectId, Value};
use crate::{Library, Runtime};

/// [[AsyncGeneratorState]].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsyncGeneratorState {
    /// suspended-start: made, its body not yet run.
    SuspendedStart,
    /// suspended-yield: stopped at a `yield`.
    SuspendedYield,
    /// executing: its body runs, or awaits inside.
    Executing,
    /// awaiting-return: awaiting the value of a `return()` that found the
    /// body finished (or never started).
    AwaitingReturn,
    /// completed.
    Completed,
}

/// The completion an AsyncGeneratorRequest carries: what `next(v)`,
/// `return(v)` and `throw(v)` resume the body with.
#[derive(Clone, Debug, PartialEq)]
pub enum ResumptionValue {
    /// NormalCompletion(v), from `next(v)`.
    Normal(Value),
    /// Completion { [[Type]]: return, [[Value]]: v }, from `return(v)`.
    Return(Value),
    /// ThrowCompletion(v), from `throw(v)`.
    Throw(Value),
}

/// An AsyncGeneratorRequest Record (27.6.3.1).
#[derive(Clone, Debug)]
pub struct AsyncGeneratorRequest {
    /// [[Completion]].
    pub completion: ResumptionValue,
    /// [[Capability]].
    pub capability: PromiseCapability,
}

/// Where the generator's body stands: the loop
/// `for (let i = 0; i < values.length; i++) yield values[i];`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyPosition {
    /// Not started (suspended-start).
    Start,
    /// In `Await(values[i])`, the first half of `yield values[i]`.
    AwaitingOperand(usize),
    /// Suspended at `yield values[i]` (suspended-yield), or going on from
    /// it without suspending.
    AtYield(usize),
    /// In the Await of AsyncGeneratorUnwrapYieldResumption: a `return()`
    /// reached the `yield`.
    AwaitingReturnValue,
    /// The body ended.
    Done,
}

/// The internal slots of an async generator object (27.6.2, Table
/// "Internal Slots of AsyncGenerator Instances"), with the body's state
/// ([[AsyncGeneratorContext]]).
#[derive(Debug)]
pub struct AsyncGeneratorData {
    /// [[AsyncGeneratorState]].
    pub state: AsyncGeneratorState,
    /// [[AsyncGeneratorQueue]].
    pub queue: VecDeque<AsyncGeneratorRequest>,
    /// The body's `values`.
    pub values: Rc<[Value]>,
    /// The body's position, its `i` included.
    pub position: BodyPosition,
}

/// How the body's evaluation comes back to the generator's steps: the
/// Completion Record a body evaluation ends with (AsyncGeneratorStart step
/// 4.c's result).
enum BodyResult {
    /// The loop ran to its end: a normal completion.
    Normal,
    /// A `return()` at a `yield`: a return completion with this value.
    Return(Value),
    /// A throw completion.
    Throw(Value),
}

impl<L: Library> Runtime<L> {
    /// `(async function* () { for (const v of values) yield v; })()`: the
    /// call of an async generator function (27.6.3.2 AsyncGeneratorStart
    /// after OrdinaryCreateFromConstructor): the generator in
    /// suspended-start, its body not run.
    pub fn create_async_generator(&mut self, values: Vec<Value>) -> ObjectId {
        // AsyncGeneratorStart:
        // 5. Set generator.[[AsyncGeneratorContext]] to genContext.
        // 6. Set generator.[[AsyncGeneratorState]] to suspended-start.
        // 7. Set generator.[[AsyncGeneratorQueue]] to a new empty List.
        self.heap
            .alloc(ObjectData::AsyncGenerator(Box::new(AsyncGeneratorData {
                state: AsyncGeneratorState::SuspendedStart,
                queue: VecDeque::new(),
                values: values.into(),
                position: BodyPosition::Start,
            })))
    }

    /// Whether a value is an async generator object.
    pub fn is_async_generator(&self, v: &Value) -> bool {
        matches!(v, Value::Object(id) if matches!(self.heap.get(*id), ObjectData::AsyncGenerator(_)))
    }

    fn generator(&self, g: ObjectId) -> &AsyncGeneratorData {
        match self.heap.get(g) {
            ObjectData::AsyncGenerator(data) => data,
            _ => panic!("not an async generator: {g:?}"),
        }
    }

    fn generator_mut(&mut self, g: ObjectId) -> &mut AsyncGeneratorData {
        match self.heap.get_mut(g) {
            ObjectData::AsyncGenerator(data) => data,
            _ => panic!("not an async generator: {g:?}"),
        }
    }

    /// An async generator's [[AsyncGeneratorState]] (for tests and asserts).
    pub fn async_generator_state(&self, g: ObjectId) -> AsyncGeneratorState {
        self.generator(g).state
    }

    /// 27.6.3.3 AsyncGeneratorValidate ( generator, generatorBrand ): a
    /// TypeError for a value that is no async generator.
    fn async_generator_validate(
        &mut self,
        generator: &Value,
        method: &str,
    ) -> Result<ObjectId, Value> {
        match generator {
            // 1. Perform ? RequireInternalSlot(generator, [[AsyncGeneratorContext]]).
            // 2. Perform ? RequireInternalSlot(generator, [[AsyncGeneratorState]]).
            // 3. Perform ? RequireInternalSlot(generator, [[AsyncGeneratorQueue]]).
            // 4. If generator.[[GeneratorBrand]] is not generatorBrand, throw a TypeError exception.
            Value::Object(id) if matches!(self.heap.get(*id), ObjectData::AsyncGenerator(_)) => {
                Ok(*id)
            }
            other => {
                let shown = self.no_side_effects_to_string(other);
                Err(self.new_error(
                    "TypeError",
                    &format!("{method} method called on incompatible receiver {shown}"),
                ))
            }
        }
    }

    /// 27.6.1.2 AsyncGenerator.prototype.next ( value ): the promise.
    pub fn async_generator_next(&mut self, generator: &Value, value: Value) -> ObjectId {
        // 1. Let generator be the this value.
        // 2. Let promiseCapability be ! NewPromiseCapability(%Promise%).
        let capability = self.new_promise_capability();
        // 3. Let result be Completion(AsyncGeneratorValidate(generator, empty)).
        // 4. IfAbruptRejectPromise(result, promiseCapability).
        let g = match self.async_generator_validate(generator, "AsyncGenerator.prototype.next") {
            Ok(g) => g,
            Err(e) => return self.reject_capability(capability, e),
        };
        // 5. Let state be generator.[[AsyncGeneratorState]].
        let state = self.generator(g).state;
        // 6. If state is completed, then
        if state == AsyncGeneratorState::Completed {
            // a. Let iteratorResult be CreateIteratorResultObject(undefined, true).
            let iterator_result = self.create_iter_result(Value::Undefined, true);
            // b. Perform ! Call(promiseCapability.[[Resolve]], undefined, « iteratorResult »).
            let _ = self.call_function(capability.resolve, Value::Undefined, &[iterator_result]);
            // c. Return promiseCapability.[[Promise]].
            return capability.promise;
        }
        // 7. Let completion be NormalCompletion(value).
        let completion = ResumptionValue::Normal(value);
        // 8. Perform AsyncGeneratorEnqueue(generator, completion, promiseCapability).
        self.async_generator_enqueue(g, completion.clone(), capability);
        // 9. If state is either suspended-start or suspended-yield, then
        if matches!(
            state,
            AsyncGeneratorState::SuspendedStart | AsyncGeneratorState::SuspendedYield
        ) {
            // a. Perform AsyncGeneratorResume(generator, completion).
            self.async_generator_resume(g, completion);
        } else {
            // 10. Else,
            //     a. Assert: state is either executing or awaiting-return.
            assert!(matches!(
                state,
                AsyncGeneratorState::Executing | AsyncGeneratorState::AwaitingReturn
            ));
        }
        // 11. Return promiseCapability.[[Promise]].
        capability.promise
    }

    /// 27.6.1.3 AsyncGenerator.prototype.return ( value ): the promise.
    pub fn async_generator_return(&mut self, generator: &Value, value: Value) -> ObjectId {
        // 1. Let generator be the this value.
        // 2. Let promiseCapability be ! NewPromiseCapability(%Promise%).
        let capability = self.new_promise_capability();
        // 3. Let result be Completion(AsyncGeneratorValidate(generator, empty)).
        // 4. IfAbruptRejectPromise(result, promiseCapability).
        let g = match self.async_generator_validate(generator, "AsyncGenerator.prototype.return") {
            Ok(g) => g,
            Err(e) => return self.reject_capability(capability, e),
        };
        // 5. Let completion be Completion Record { [[Type]]: return, [[Value]]: value, [[Target]]: empty }.
        let completion = ResumptionValue::Return(value);
        // 6. Perform AsyncGeneratorEnqueue(generator, completion, promiseCapability).
        self.async_generator_enqueue(g, completion.clone(), capability);
        // 7. Let state be generator.[[AsyncGeneratorState]].
        let state = self.generator(g).state;
        match state {
            // 8. If state is either suspended-start or completed, then
            AsyncGeneratorState::SuspendedStart | AsyncGeneratorState::Completed => {
                // a. Set generator.[[AsyncGeneratorState]] to awaiting-return.
                self.generator_mut(g).state = AsyncGeneratorState::AwaitingReturn;
                // b. Perform ! AsyncGeneratorAwaitReturn(generator).
                self.async_generator_await_return(g);
            }
            // 9. Else if state is suspended-yield, then
            AsyncGeneratorState::SuspendedYield => {
                // a. Perform AsyncGeneratorResume(generator, completion).
                self.async_generator_resume(g, completion);
            }
            // 10. Else,
            //     a. Assert: state is either executing or awaiting-return.
            AsyncGeneratorState::Executing | AsyncGeneratorState::AwaitingReturn => {}
        }
        // 11. Return promiseCapability.[[Promise]].
        capability.promise
    }

    /// 27.6.1.4 AsyncGenerator.prototype.throw ( exception ): the promise.
    pub fn async_generator_throw(&mut self, generator: &Value, exception: Value) -> ObjectId {
        // 1. Let generator be the this value.
        // 2. Let promiseCapability be ! NewPromiseCapability(%Promise%).
        let capability = self.new_promise_capability();
        // 3. Let result be Completion(AsyncGeneratorValidate(generator, empty)).
        // 4. IfAbruptRejectPromise(result, promiseCapability).
        let g = match self.async_generator_validate(generator, "AsyncGenerator.prototype.throw") {
            Ok(g) => g,
            Err(e) => return self.reject_capability(capability, e),
        };
        // 5. Let state be generator.[[AsyncGeneratorState]].
        let mut state = self.generator(g).state;
        // 6. If state is suspended-start, then
        if state == AsyncGeneratorState::SuspendedStart {
            // a. Set generator.[[AsyncGeneratorState]] to completed.
            self.generator_mut(g).state = AsyncGeneratorState::Completed;
            self.generator_mut(g).position = BodyPosition::Done;
            // b. Set state to completed.
            state = AsyncGeneratorState::Completed;
        }
        // 7. If state is completed, then
        if state == AsyncGeneratorState::Completed {
            // a. Perform ! Call(promiseCapability.[[Reject]], undefined, « exception »).
            // b. Return promiseCapability.[[Promise]].
            return self.reject_capability(capability, exception);
        }
        // 8. Let completion be ThrowCompletion(exception).
        let completion = ResumptionValue::Throw(exception);
        // 9. Perform AsyncGeneratorEnqueue(generator, completion, promiseCapability).
        self.async_generator_enqueue(g, completion.clone(), capability);
        // 10. If state is suspended-yield, then
        if state == AsyncGeneratorState::SuspendedYield {
            // a. Perform AsyncGeneratorResume(generator, completion).
            self.async_generator_resume(g, completion);
        }
        // 11. Else, a. Assert: state is either executing or awaiting-return.
        // 12. Return promiseCapability.[[Promise]].
        capability.promise
    }

    /// `Call(promiseCapability.[[Reject]], undefined, « e »)`, then the
    /// capability's promise (IfAbruptRejectPromise's steps).
    fn reject_capability(&mut self, capability: PromiseCapability, e: Value) -> ObjectId {
        let _ = self.call_function(capability.reject, Value::Undefined, &[e]);
        capability.promise
    }

    /// 27.6.3.4 AsyncGeneratorEnqueue ( generator, completion, promiseCapability )
    fn async_generator_enqueue(
        &mut self,
        g: ObjectId,
        completion: ResumptionValue,
        capability: PromiseCapability,
    ) {
        // 1. Let request be AsyncGeneratorRequest { [[Completion]]: completion, [[Capability]]: promiseCapability }.
        let request = AsyncGeneratorRequest {
            completion,
            capability,
        };
        // 2. Append request to generator.[[AsyncGeneratorQueue]].
        self.generator_mut(g).queue.push_back(request);
    }

    /// 27.6.3.5 AsyncGeneratorCompleteStep ( generator, completion, done [ , realm ] ),
    /// with completion normal (`Ok`) or throw (`Err`).
    fn async_generator_complete_step(
        &mut self,
        g: ObjectId,
        completion: Result<Value, Value>,
        done: bool,
    ) {
        // 1. Assert: generator.[[AsyncGeneratorQueue]] is not empty.
        // 2. Let next be the first element of generator.[[AsyncGeneratorQueue]].
        // 3. Remove the first element from generator.[[AsyncGeneratorQueue]].
        let next = self
            .generator_mut(g)
            .queue
            .pop_front()
            .expect("AsyncGeneratorCompleteStep: a request in the queue");
        // 4. Let promiseCapability be next.[[Capability]].
        let capability = next.capability;
        match completion {
            // 5. Let value be completion.[[Value]].
            // 6. If completion is a throw completion, then
            //    a. Perform ! Call(promiseCapability.[[Reject]], undefined, « value »).
            Err(value) => {
                let _ = self.call_function(capability.reject, Value::Undefined, &[value]);
            }
            // 7. Else,
            //    a. Assert: completion is a normal completion.
            //    b-c. Let iteratorResult be CreateIteratorResultObject(value, done).
            //    d. Perform ! Call(promiseCapability.[[Resolve]], undefined, « iteratorResult »).
            Ok(value) => {
                let iterator_result = self.create_iter_result(value, done);
                let _ =
                    self.call_function(capability.resolve, Value::Undefined, &[iterator_result]);
            }
        }
    }

    /// 27.6.3.6 AsyncGeneratorResume ( generator, completion )
    fn async_generator_resume(&mut self, g: ObjectId, completion: ResumptionValue) {
        // 1. Assert: generator.[[AsyncGeneratorState]] is either suspended-start or suspended-yield.
        let state = self.generator(g).state;
        assert!(matches!(
            state,
            AsyncGeneratorState::SuspendedStart | AsyncGeneratorState::SuspendedYield
        ));
        // 2-4. Let genContext be generator.[[AsyncGeneratorContext]]; suspend callerContext.
        // 5. Set generator.[[AsyncGeneratorState]] to executing.
        self.generator_mut(g).state = AsyncGeneratorState::Executing;
        // 6. Push genContext onto the execution context stack.
        // 7. Resume the suspended evaluation of genContext using completion
        //    as the result of the operation that suspended it.
        match self.generator(g).position {
            // A generator resumed from its start ignores the value: the
            // body begins.
            BodyPosition::Start => self.async_generator_body_loop(g, 0),
            BodyPosition::AtYield(i) => {
                self.async_generator_unwrap_yield_resumption(g, i, completion)
            }
            other => unreachable!(
                "a suspended generator's body is at its start or a yield, not {other:?}"
            ),
        }
        // 8. Assert: result is never an abrupt completion.
        // 9. Assert: When we return here, genContext has already been removed
        //    from the execution context stack and callerContext is the
        //    currently running execution context.
    }

    /// The body's loop from `i` on: `i < values.length` and, while it
    /// holds, `yield values[i]`, which in an async generator is 15.5.5
    /// Yield: `AsyncGeneratorYield(? Await(value))`.
    fn async_generator_body_loop(&mut self, g: ObjectId, i: usize) {
        let Some(value) = self.generator(g).values.get(i).cloned() else {
            // The loop ends, and the body with it: a normal completion.
            self.generator_mut(g).position = BodyPosition::Done;
            self.async_generator_body_ends(g, BodyResult::Normal);
            return;
        };
        // Yield ( value ): 2. If generatorKind is async, return ?
        // AsyncGeneratorYield(? Await(value)).
        self.generator_mut(g).position = BodyPosition::AwaitingOperand(i);
        self.async_generator_await(
            g,
            value,
            move |rt, v| rt.async_generator_yield(g, i, v),
            // The rejection is thrown at the `yield`: nothing in the body
            // catches it.
            move |rt, e| rt.async_generator_body_ends(g, BodyResult::Throw(e)),
        );
    }

    /// 27.7.5.3 Await ( value ) inside the generator's body: the body's
    /// context is suspended until `value` settles, then resumes with
    /// `on_fulfilled` or `on_rejected`.
    fn async_generator_await(
        &mut self,
        g: ObjectId,
        value: Value,
        on_fulfilled: impl FnOnce(&mut Runtime<L>, Value) + 'static,
        on_rejected: impl FnOnce(&mut Runtime<L>, Value) + 'static,
    ) {
        // 2. Let promise be ? PromiseResolve(%Promise%, value).
        let promise = self.promise_resolve(value);
        // The context resumes once, from whichever closure is called.
        type Resumptions<L> = (
            Box<dyn FnOnce(&mut Runtime<L>, Value)>,
            Box<dyn FnOnce(&mut Runtime<L>, Value)>,
        );
        let suspended: Rc<RefCell<Option<Resumptions<L>>>> = Rc::new(RefCell::new(Some((
            Box::new(on_fulfilled),
            Box::new(on_rejected),
        ))));
        // 3. Let fulfilledClosure be a new Abstract Closure with parameters
        //    (v) that resumes asyncContext with NormalCompletion(v).
        // The resumptions close over the generator alone (and indices).
        let captures = Captures::Exactly {
            values: vec![Value::Object(g)],
            envs: Vec::new(),
        };
        let fulfilled = {
            let suspended = suspended.clone();
            self.native_function_capturing(captures.clone(), move |rt, _this, args| {
                if let Some((resume, _)) = suspended.borrow_mut().take() {
                    resume(rt, args.first().cloned().unwrap_or(Value::Undefined));
                }
                Ok(Value::Undefined)
            })
        };
        // 5. Let rejectedClosure be a new Abstract Closure with parameters
        //    (reason) that resumes asyncContext with ThrowCompletion(reason).
        let rejected = self.native_function_capturing(captures, move |rt, _this, args| {
            if let Some((_, resume)) = suspended.borrow_mut().take() {
                resume(rt, args.first().cloned().unwrap_or(Value::Undefined));
            }
            Ok(Value::Undefined)
        });
        // 7. Perform PerformPromiseThen(promise, onFulfilled, onRejected).
        self.perform_promise_then(promise, Some(fulfilled), Some(rejected), None);
    }

    /// 27.6.3.8 AsyncGeneratorYield ( value ), at `yield values[i]`.
    fn async_generator_yield(&mut self, g: ObjectId, i: usize, value: Value) {
        // 1-4. Let generator be the generator of the running context.
        // 5. Let completion be NormalCompletion(value).
        // 6-8. (previousContext and previousRealm)
        // 9. Perform AsyncGeneratorCompleteStep(generator, completion, false, previousRealm).
        self.generator_mut(g).position = BodyPosition::AtYield(i);
        self.async_generator_complete_step(g, Ok(value), false);
        // 10. Let queue be generator.[[AsyncGeneratorQueue]].
        // 11. If queue is not empty, then
        if let Some(to_yield) = self.generator(g).queue.front() {
            // a. NOTE: Execution continues without suspending the generator.
            // b. Let toYield be the first element of queue.
            // c. Let resumptionValue be Completion(toYield.[[Completion]]).
            let resumption_value = to_yield.completion.clone();
            // d. Return ? AsyncGeneratorUnwrapYieldResumption(resumptionValue).
            self.async_generator_unwrap_yield_resumption(g, i, resumption_value);
        } else {
            // 12. Else,
            //     a. Set generator.[[AsyncGeneratorState]] to suspended-yield.
            //     b-d. Remove genContext from the stack and resume callerContext
            //          passing undefined; when genContext is resumed again, let
            //          resumptionValue be the Completion Record it is resumed with.
            //     f. Return ? AsyncGeneratorUnwrapYieldResumption(resumptionValue).
            //     (AsyncGeneratorResume picks up there.)
            self.generator_mut(g).state = AsyncGeneratorState::SuspendedYield;
        }
    }

    /// 27.6.3.7 AsyncGeneratorUnwrapYieldResumption ( resumptionValue ), the
    /// value of `yield values[i]` in the body, and what the body does with
    /// it.
    fn async_generator_unwrap_yield_resumption(
        &mut self,
        g: ObjectId,
        i: usize,
        resumption_value: ResumptionValue,
    ) {
        match resumption_value {
            // 1. If resumptionValue is not a return completion, return ? resumptionValue.
            // A normal completion: the `yield` evaluates to it (unused), then `i++`.
            ResumptionValue::Normal(_) => self.async_generator_body_loop(g, i + 1),
            // A throw completion: thrown at the `yield`, uncaught in the body.
            ResumptionValue::Throw(e) => {
                self.generator_mut(g).position = BodyPosition::Done;
                self.async_generator_body_ends(g, BodyResult::Throw(e));
            }
            ResumptionValue::Return(value) => {
                // 2. Let awaited be Completion(Await(resumptionValue.[[Value]])).
                self.generator_mut(g).position = BodyPosition::AwaitingReturnValue;
                self.async_generator_await(
                    g,
                    value,
                    // 4. Assert: awaited is a normal completion.
                    // 5. Return ReturnCompletion(awaited.[[Value]]).
                    move |rt, awaited| {
                        rt.generator_mut(g).position = BodyPosition::Done;
                        rt.async_generator_body_ends(g, BodyResult::Return(awaited));
                    },
                    // 3. If awaited is a throw completion, return ? awaited.
                    move |rt, e| {
                        rt.generator_mut(g).position = BodyPosition::Done;
                        rt.async_generator_body_ends(g, BodyResult::Throw(e));
                    },
                );
            }
        }
    }

    /// 27.6.3.2 AsyncGeneratorStart ( generator, generatorBody ), step 4's
    /// closure from step 4.e on: the body's evaluation ended with `result`.
    fn async_generator_body_ends(&mut self, g: ObjectId, result: BodyResult) {
        // e. Assert: If we return here, the async generator either threw an
        //    exception or performed either an implicit or explicit return.
        // f. Remove acGenContext from the execution context stack.
        // g. Set acGenerator.[[AsyncGeneratorState]] to completed.
        self.generator_mut(g).state = AsyncGeneratorState::Completed;
        let completion = match result {
            // h. If result is a normal completion, set result to NormalCompletion(undefined).
            BodyResult::Normal => Ok(Value::Undefined),
            // i. If result is a return completion, set result to NormalCompletion(result.[[Value]]).
            BodyResult::Return(v) => Ok(v),
            BodyResult::Throw(e) => Err(e),
        };
        // j. Perform AsyncGeneratorCompleteStep(acGenerator, result, true).
        self.async_generator_complete_step(g, completion, true);
        // k. Perform AsyncGeneratorDrainQueue(acGenerator).
        self.async_generator_drain_queue(g);
        // l. Return undefined.
    }

    /// 27.6.3.9 AsyncGeneratorAwaitReturn ( generator )
    fn async_generator_await_return(&mut self, g: ObjectId) {
        // 1. Let queue be generator.[[AsyncGeneratorQueue]].
        // 2. Assert: queue is not empty.
        // 3. Let next be the first element of queue.
        // 4. Let completion be Completion(next.[[Completion]]).
        let completion = self
            .generator(g)
            .queue
            .front()
            .expect("AsyncGeneratorAwaitReturn: a request in the queue")
            .completion
            .clone();
        // 5. Assert: completion is a return completion.
        let ResumptionValue::Return(value) = completion else {
            panic!("AsyncGeneratorAwaitReturn of a request that is no return()");
        };
        // 6. Let promiseCompletion be Completion(PromiseResolve(%Promise%, completion.[[Value]])).
        // 7. If promiseCompletion is an abrupt completion, then ... (PromiseResolve of
        //    %Promise% reads `constructor` only of a promise, which scripts cannot change)
        // 8. Assert: promiseCompletion is a normal completion.
        // 9. Let promise be promiseCompletion.[[Value]].
        let promise = self.promise_resolve(value);
        // 10. Let fulfilledClosure be a new Abstract Closure with parameters (value) that
        //     captures generator and performs the following steps when called:
        let captures = Captures::Exactly {
            values: vec![Value::Object(g)],
            envs: Vec::new(),
        };
        let on_fulfilled =
            self.native_function_capturing(captures.clone(), move |rt, _this, args| {
                let value = args.first().cloned().unwrap_or(Value::Undefined);
                // a. Assert: generator.[[AsyncGeneratorState]] is awaiting-return.
                assert_eq!(rt.generator(g).state, AsyncGeneratorState::AwaitingReturn);
                // b. Set generator.[[AsyncGeneratorState]] to completed.
                rt.generator_mut(g).state = AsyncGeneratorState::Completed;
                // c. Let result be NormalCompletion(value).
                // d. Perform AsyncGeneratorCompleteStep(generator, result, true).
                rt.async_generator_complete_step(g, Ok(value), true);
                // e. Perform AsyncGeneratorDrainQueue(generator).
                rt.async_generator_drain_queue(g);
                // f. Return undefined.
                Ok(Value::Undefined)
            });
        // 11. Let onFulfilled be CreateBuiltinFunction(fulfilledClosure, 1, "", « »).
        // 12. Let rejectedClosure be a new Abstract Closure with parameters (reason) that
        //     captures generator and performs the following steps when called:
        let on_rejected = self.native_function_capturing(captures, move |rt, _this, args| {
            let reason = args.first().cloned().unwrap_or(Value::Undefined);
            // a. Assert: generator.[[AsyncGeneratorState]] is awaiting-return.
            assert_eq!(rt.generator(g).state, AsyncGeneratorState::AwaitingReturn);
            // b. Set generator.[[AsyncGeneratorState]] to completed.
            rt.generator_mut(g).state = AsyncGeneratorState::Completed;
            // c. Let result be ThrowCompletion(reason).
            // d. Perform AsyncGeneratorCompleteStep(generator, result, true).
            rt.async_generator_complete_step(g, Err(reason), true);
            // e. Perform AsyncGeneratorDrainQueue(generator).
            rt.async_generator_drain_queue(g);
            // f. Return undefined.
            Ok(Value::Undefined)
        });
        // 13. Let onRejected be CreateBuiltinFunction(rejectedClosure, 1, "", « »).
        // 14. Perform PerformPromiseThen(promise, onFulfilled, onRejected).
        self.perform_promise_then(promise, Some(on_fulfilled), Some(on_rejected), None);
    }

    /// 27.6.3.10 AsyncGeneratorDrainQueue ( generator )
    fn async_generator_drain_queue(&mut self, g: ObjectId) {
        // 1. Assert: generator.[[AsyncGeneratorState]] is completed.
        assert_eq!(self.generator(g).state, AsyncGeneratorState::Completed);
        // 2. Let queue be generator.[[AsyncGeneratorQueue]].
        // 3. If queue is empty, return.
        // 4. Let done be false.
        // 5. Repeat, while done is false,
        //    a. Let next be the first element of queue.
        while let Some(next) = self.generator(g).queue.front() {
            // b. Let completion be Completion(next.[[Completion]]).
            match next.completion.clone() {
                // c. If completion is a return completion, then
                ResumptionValue::Return(_) => {
                    // i. Set generator.[[AsyncGeneratorState]] to awaiting-return.
                    self.generator_mut(g).state = AsyncGeneratorState::AwaitingReturn;
                    // ii. Perform ! AsyncGeneratorAwaitReturn(generator).
                    self.async_generator_await_return(g);
                    // iii. Set done to true.
                    return;
                }
                // d. Else,
                //    i. If completion is a normal completion, then
                //       1. Set completion to NormalCompletion(undefined).
                //    ii. Perform AsyncGeneratorCompleteStep(generator, completion, true).
                //    iii. If queue is empty, set done to true.
                ResumptionValue::Normal(_) => {
                    self.async_generator_complete_step(g, Ok(Value::Undefined), true)
                }
                ResumptionValue::Throw(e) => self.async_generator_complete_step(g, Err(e), true),
            }
        }
    }
}
