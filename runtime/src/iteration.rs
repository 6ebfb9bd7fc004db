//! The iterator protocol (ECMA-262 §7.4, Operations on Iterator Objects)
//! over the iterables the runtime makes: arrays (through
//! %ArrayIteratorPrototype%), async generators ([`crate::async_gen`]) and
//! the async-from-sync iterators that wrap a sync iterator (§27.1.6).
//!
//! Why here: `ReadableStream.from(iterable)` opens its argument with
//! GetIterator(iterable, async) (the Web IDL async_sequence conversion), and
//! both engines need the same lookups and calls of `next` and `return`, as
//! functions, so that an engine written after Node's code (which calls
//! `iterable[Symbol.asyncIterator] ?? iterable[Symbol.iterator]` and the
//! iterator's `next` itself) and one written after the Streams Standard
//! (which goes through CreateAsyncFromSyncIterator) both find them here.
//! The iterators' methods are built-in function objects, got with
//! [`Runtime::get_property`] and called with [`Runtime::call_function`],
//! as JavaScript does. <https://tc39.es/ecma262/#sec-operations-on-iterator-objects>

use std::rc::Rc;

use crate::gc::Captures;
use crate::promise::PromiseCapability;
use crate::value::{Completion, ObjectData, ObjectId, Value};
use crate::{Library, Runtime};

/// The well-known symbols the iterator protocol looks methods up by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WellKnownSymbol {
    /// `Symbol.iterator` (@@iterator).
    Iterator,
    /// `Symbol.asyncIterator` (@@asyncIterator).
    AsyncIterator,
}

/// GetIterator's kind argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IteratorKind {
    /// sync
    Sync,
    /// async
    Async,
}

/// An Iterator Record (7.4.1).
#[derive(Clone, Debug, PartialEq)]
pub struct IteratorRecord {
    /// [[Iterator]].
    pub iterator: Value,
    /// [[NextMethod]].
    pub next_method: Value,
    /// [[Done]].
    pub done: bool,
}

/// The slots of an Array Iterator (23.1.5): the array and the index of the
/// next element; `None` once it returned `done: true`.
#[derive(Debug)]
pub struct ArrayIteratorData {
    /// The array iterated.
    pub array: Rc<[Value]>,
    /// The next index, until the iterator is done.
    pub next_index: Option<usize>,
}

/// Which built-in method a function object made by
/// [`Runtime::iterator_method`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    Next,
    Return,
    Throw,
}

impl<L: Library> Runtime<L> {
    /// GetMethod(V, @@symbol) (7.3.10) for the well-known iterator symbols:
    /// the method, or undefined. An array has `[Symbol.iterator]`
    /// (%Array.prototype.values%); an async generator has
    /// `[Symbol.asyncIterator]` (%AsyncIteratorPrototype%'s, which returns
    /// `this`); an array iterator has `[Symbol.iterator]`
    /// (%IteratorPrototype%'s, likewise). Nothing else the runtime makes
    /// has either.
    pub fn get_well_known_method(&mut self, v: &Value, symbol: WellKnownSymbol) -> Completion {
        let Value::Object(id) = v else {
            return Ok(Value::Undefined);
        };
        let kind = match self.heap.get(*id) {
            ObjectData::Array(_) if symbol == WellKnownSymbol::Iterator => 0,
            ObjectData::ArrayIterator(_) if symbol == WellKnownSymbol::Iterator => 1,
            ObjectData::AsyncGenerator(_) if symbol == WellKnownSymbol::AsyncIterator => 1,
            _ => return Ok(Value::Undefined),
        };
        Ok(Value::Object(if kind == 0 {
            // 23.1.3.38 Array.prototype.values ( ): 1. Let O be ? ToObject(this value).
            // 2. Return CreateArrayIterator(O, value).
            self.native_function_capturing(Captures::nothing(), |rt, this, _args| match &this {
                Value::Object(id) => match rt.heap.get(*id) {
                    ObjectData::Array(items) => {
                        let array = items.clone();
                        Ok(Value::Object(rt.heap.alloc(ObjectData::ArrayIterator(
                            ArrayIteratorData {
                                array,
                                next_index: Some(0),
                            },
                        ))))
                    }
                    _ => Err(rt.new_error("TypeError", "not an array")),
                },
                _ => Err(rt.new_error("TypeError", "not an array")),
            })
        } else {
            // 27.1.2.1 %IteratorPrototype% [ @@iterator ] ( ) and 27.1.3.1
            // %AsyncIteratorPrototype% [ @@asyncIterator ] ( ):
            // 1. Return the this value.
            self.native_function_capturing(Captures::nothing(), |_, this, _| Ok(this))
        }))
    }

    /// The `next`, `return` and `throw` methods of the runtime's iterators
    /// (an array iterator has only `next`, %ArrayIteratorPrototype%.next),
    /// for [`Runtime::get_property`]; `None` for any other property or
    /// object.
    pub(crate) fn iterator_method(&mut self, id: ObjectId, prop: &str) -> Option<Value> {
        let method = match prop {
            "next" => Method::Next,
            "return" => Method::Return,
            "throw" => Method::Throw,
            _ => return None,
        };
        match (self.heap.get(id), method) {
            (ObjectData::ArrayIterator(_), Method::Next)
            | (ObjectData::AsyncGenerator(_), _)
            | (ObjectData::AsyncFromSyncIterator(_), _) => {}
            _ => return None,
        }
        let f = self.native_function_capturing(Captures::nothing(), move |rt, this, args| {
            let arg = args.first().cloned();
            let Value::Object(obj) = this else {
                return Err(rt.new_error("TypeError", "not an iterator"));
            };
            match rt.heap.get(obj) {
                ObjectData::ArrayIterator(_) => Ok(rt.array_iterator_next(obj)),
                ObjectData::AsyncGenerator(_) => {
                    let arg = arg.unwrap_or(Value::Undefined);
                    let this = Value::Object(obj);
                    Ok(Value::Object(match method {
                        Method::Next => rt.async_generator_next(&this, arg),
                        Method::Return => rt.async_generator_return(&this, arg),
                        Method::Throw => rt.async_generator_throw(&this, arg),
                    }))
                }
                ObjectData::AsyncFromSyncIterator(_) => Ok(Value::Object(match method {
                    Method::Next => rt.async_from_sync_iterator_next(obj, arg),
                    Method::Return => rt.async_from_sync_iterator_return(obj, arg),
                    Method::Throw => rt.async_from_sync_iterator_throw(obj, arg),
                })),
                _ => Err(rt.new_error("TypeError", "not an iterator")),
            }
        });
        Some(Value::Object(f))
    }

    /// %ArrayIteratorPrototype%.next ( ) (23.1.5.2.1) on an array iterator,
    /// whose closure (CreateArrayIterator's) yields each element in turn.
    fn array_iterator_next(&mut self, it: ObjectId) -> Value {
        let ObjectData::ArrayIterator(data) = self.heap.get_mut(it) else {
            unreachable!("an array iterator")
        };
        match data.next_index {
            // The closure returned: the generator is completed.
            None => self.create_iter_result(Value::Undefined, true),
            Some(index) => {
                // b. Repeat, ... iii. If index ≥ len, return NormalCompletion(undefined).
                if index >= data.array.len() {
                    data.next_index = None;
                    return self.create_iter_result(Value::Undefined, true);
                }
                // 2. Let elementValue be ? Get(array, elementKey). ...
                //    GeneratorYield(CreateIteratorResultObject(result, false)).
                let value = data.array[index].clone();
                // vi. Set index to index + 1.
                data.next_index = Some(index + 1);
                self.create_iter_result(value, false)
            }
        }
    }

    /// 7.3.10 GetMethod ( V, P )
    pub fn get_method(&mut self, v: &Value, p: &str) -> Completion {
        // 1. Let func be ? GetV(V, P).
        let func = self.get_property(v, p)?;
        // 2. If func is either undefined or null, return undefined.
        if matches!(func, Value::Undefined | Value::Null) {
            return Ok(Value::Undefined);
        }
        // 3. If IsCallable(func) is false, throw a TypeError exception.
        if !self.is_function(&func) {
            let shown = self.no_side_effects_to_string(&func);
            return Err(self.new_error("TypeError", &format!("{shown} is not a function")));
        }
        // 4. Return func.
        Ok(func)
    }

    /// 7.4.2 GetIteratorFromMethod ( obj, method )
    pub fn get_iterator_from_method(
        &mut self,
        obj: &Value,
        method: &Value,
    ) -> Result<IteratorRecord, Value> {
        // 1. Let iterator be ? Call(method, obj).
        let Some(method) = method.as_object() else {
            return Err(self.new_error("TypeError", "the iterator method is not a function"));
        };
        let iterator = self.call_function(method, obj.clone(), &[])?;
        // 2. If iterator is not an Object, throw a TypeError exception.
        if !matches!(iterator, Value::Object(_)) {
            let shown = self.no_side_effects_to_string(&iterator);
            return Err(self.new_error(
                "TypeError",
                &format!("Result of the Symbol.iterator method is not an object: {shown}"),
            ));
        }
        // 3. Let nextMethod be ? Get(iterator, "next").
        let next_method = self.get_property(&iterator, "next")?;
        // 4. Let iteratorRecord be the Iterator Record { [[Iterator]]: iterator,
        //    [[NextMethod]]: nextMethod, [[Done]]: false }.
        // 5. Return iteratorRecord.
        Ok(IteratorRecord {
            iterator,
            next_method,
            done: false,
        })
    }

    /// 7.4.3 GetIterator ( obj, kind )
    pub fn get_iterator(
        &mut self,
        obj: &Value,
        kind: IteratorKind,
    ) -> Result<IteratorRecord, Value> {
        // 1. If kind is async, then
        let method = if kind == IteratorKind::Async {
            // a. Let method be ? GetMethod(obj, @@asyncIterator).
            let method = self.get_well_known_method(obj, WellKnownSymbol::AsyncIterator)?;
            // b. If method is undefined, then
            if method == Value::Undefined {
                // i. Let syncMethod be ? GetMethod(obj, @@iterator).
                let sync_method = self.get_well_known_method(obj, WellKnownSymbol::Iterator)?;
                // ii. If syncMethod is undefined, throw a TypeError exception.
                if sync_method == Value::Undefined {
                    return Err(self.not_iterable(obj));
                }
                // iii. Let syncIteratorRecord be ? GetIteratorFromMethod(obj, syncMethod).
                let sync_iterator_record = self.get_iterator_from_method(obj, &sync_method)?;
                // iv. Return CreateAsyncFromSyncIterator(syncIteratorRecord).
                return Ok(self.create_async_from_sync_iterator(sync_iterator_record));
            }
            method
        } else {
            // 2. Else, a. Let method be ? GetMethod(obj, @@iterator).
            self.get_well_known_method(obj, WellKnownSymbol::Iterator)?
        };
        // 3. If method is undefined, throw a TypeError exception.
        if method == Value::Undefined {
            return Err(self.not_iterable(obj));
        }
        // 4. Return ? GetIteratorFromMethod(obj, method).
        self.get_iterator_from_method(obj, &method)
    }

    /// V8's TypeError for a value that is not iterable.
    fn not_iterable(&mut self, obj: &Value) -> Value {
        let shown = self.no_side_effects_to_string(obj);
        self.new_error("TypeError", &format!("{shown} is not iterable"))
    }

    /// 7.4.4 IteratorNext ( iteratorRecord [ , value ] )
    pub fn iterator_next(&mut self, record: &IteratorRecord, value: Option<Value>) -> Completion {
        // 1. If value is not present, then
        //    a. Let result be ? Call(iteratorRecord.[[NextMethod]], iteratorRecord.[[Iterator]]).
        // 2. Else,
        //    a. Let result be ? Call(iteratorRecord.[[NextMethod]], iteratorRecord.[[Iterator]], « value »).
        let Some(next) = record.next_method.as_object() else {
            let shown = self.no_side_effects_to_string(&record.next_method);
            return Err(self.new_error("TypeError", &format!("{shown} is not a function")));
        };
        let args: Vec<Value> = value.into_iter().collect();
        let result = self.call_function(next, record.iterator.clone(), &args)?;
        // 3. If result is not an Object, throw a TypeError exception.
        if !matches!(result, Value::Object(_)) {
            let shown = self.no_side_effects_to_string(&result);
            return Err(self.new_error(
                "TypeError",
                &format!("Iterator result {shown} is not an object"),
            ));
        }
        // 4. Return result.
        Ok(result)
    }

    /// 7.4.5 IteratorComplete ( iterResult ): 1. Return ToBoolean(? Get(iterResult, "done")).
    pub fn iterator_complete(&mut self, iter_result: &Value) -> Result<bool, Value> {
        Ok(self.get_property(iter_result, "done")?.to_boolean())
    }

    /// 7.4.6 IteratorValue ( iterResult ): 1. Return ? Get(iterResult, "value").
    pub fn iterator_value(&mut self, iter_result: &Value) -> Completion {
        self.get_property(iter_result, "value")
    }

    /// 7.4.11 IteratorClose ( iteratorRecord, completion ), for a throw
    /// completion (`Err`) or a normal one (`Ok`).
    pub fn iterator_close(
        &mut self,
        record: &IteratorRecord,
        completion: Completion,
    ) -> Completion {
        // 1. Assert: iteratorRecord.[[Iterator]] is an Object.
        // 2. Let iterator be iteratorRecord.[[Iterator]].
        let iterator = record.iterator.clone();
        // 3. Let innerResult be Completion(GetMethod(iterator, "return")).
        let mut inner_result = self.get_method(&iterator, "return");
        // 4. If innerResult is a normal completion, then
        if let Ok(return_method) = &inner_result {
            // a. Let return be innerResult.[[Value]].
            // b. If return is undefined, return ? completion.
            let Some(return_method) = return_method.as_object() else {
                return completion;
            };
            // c. Set innerResult to Completion(Call(return, iterator)).
            inner_result = self.call_function(return_method, iterator, &[]);
        }
        // 5. If completion is a throw completion, return ? completion.
        completion.as_ref().map_err(|e| e.clone())?;
        // 6. If innerResult is a throw completion, return ? innerResult.
        let inner = inner_result?;
        // 7. If innerResult.[[Value]] is not an Object, throw a TypeError exception.
        if !matches!(inner, Value::Object(_)) {
            let shown = self.no_side_effects_to_string(&inner);
            return Err(self.new_error(
                "TypeError",
                &format!("Iterator result {shown} is not an object"),
            ));
        }
        // 8. Return ? completion.
        completion
    }

    /// 27.1.6.1 CreateAsyncFromSyncIterator ( syncIteratorRecord )
    pub fn create_async_from_sync_iterator(
        &mut self,
        sync_iterator_record: IteratorRecord,
    ) -> IteratorRecord {
        // 1. Let asyncIterator be OrdinaryObjectCreate(%AsyncFromSyncIteratorPrototype%,
        //    « [[SyncIteratorRecord]] »).
        // 2. Set asyncIterator.[[SyncIteratorRecord]] to syncIteratorRecord.
        let async_iterator = Value::Object(self.heap.alloc(ObjectData::AsyncFromSyncIterator(
            Box::new(sync_iterator_record),
        )));
        // 3. Let nextMethod be ! Get(asyncIterator, "next").
        let next_method = self
            .get_property(&async_iterator, "next")
            .expect("%AsyncFromSyncIteratorPrototype%.next");
        // 4. Let iteratorRecord be the Iterator Record { [[Iterator]]: asyncIterator,
        //    [[NextMethod]]: nextMethod, [[Done]]: false }.
        // 5. Return iteratorRecord.
        IteratorRecord {
            iterator: async_iterator,
            next_method,
            done: false,
        }
    }

    /// An async-from-sync iterator's [[SyncIteratorRecord]].
    fn sync_iterator_record(&self, o: ObjectId) -> IteratorRecord {
        match self.heap.get(o) {
            ObjectData::AsyncFromSyncIterator(record) => IteratorRecord::clone(record),
            _ => unreachable!("an async-from-sync iterator"),
        }
    }

    /// 27.1.6.2.1 %AsyncFromSyncIteratorPrototype%.next ( [ value ] )
    pub fn async_from_sync_iterator_next(&mut self, o: ObjectId, value: Option<Value>) -> ObjectId {
        // 1. Let O be the this value.
        // 2. Assert: O is an Object that has a [[SyncIteratorRecord]] internal slot.
        // 3. Let promiseCapability be ! NewPromiseCapability(%Promise%).
        let capability = self.new_promise_capability();
        // 4. Let syncIteratorRecord be O.[[SyncIteratorRecord]].
        let sync_iterator_record = self.sync_iterator_record(o);
        // 5. If value is present, then
        //    a. Let result be Completion(IteratorNext(syncIteratorRecord, value)).
        // 6. Else,
        //    a. Let result be Completion(IteratorNext(syncIteratorRecord)).
        let result = self.iterator_next(&sync_iterator_record, value);
        // 7. IfAbruptRejectPromise(result, promiseCapability).
        let result = match result {
            Ok(result) => result,
            Err(e) => return self.reject_with(capability, e),
        };
        // 8. Return AsyncFromSyncIteratorContinuation(result, promiseCapability,
        //    syncIteratorRecord, true).
        self.async_from_sync_iterator_continuation(result, capability, sync_iterator_record, true)
    }

    /// 27.1.6.2.2 %AsyncFromSyncIteratorPrototype%.return ( [ value ] )
    pub fn async_from_sync_iterator_return(
        &mut self,
        o: ObjectId,
        value: Option<Value>,
    ) -> ObjectId {
        // 1. Let O be the this value.
        // 2. Assert: O is an Object that has a [[SyncIteratorRecord]] internal slot.
        // 3. Let promiseCapability be ! NewPromiseCapability(%Promise%).
        let capability = self.new_promise_capability();
        // 4. Let syncIteratorRecord be O.[[SyncIteratorRecord]].
        let sync_iterator_record = self.sync_iterator_record(o);
        // 5. Let syncIterator be syncIteratorRecord.[[Iterator]].
        let sync_iterator = sync_iterator_record.iterator.clone();
        // 6. Let return be Completion(GetMethod(syncIterator, "return")).
        // 7. IfAbruptRejectPromise(return, promiseCapability).
        let return_method = match self.get_method(&sync_iterator, "return") {
            Ok(m) => m,
            Err(e) => return self.reject_with(capability, e),
        };
        // 8. If return is undefined, then
        let Some(return_method) = return_method.as_object() else {
            // a. Let iteratorResult be CreateIteratorResultObject(value, true).
            let iterator_result = self.create_iter_result(value.unwrap_or(Value::Undefined), true);
            // b. Perform ! Call(promiseCapability.[[Resolve]], undefined, « iteratorResult »).
            let _ = self.call_function(capability.resolve, Value::Undefined, &[iterator_result]);
            // c. Return promiseCapability.[[Promise]].
            return capability.promise;
        };
        // 9. If value is present, then
        //    a. Let result be Completion(Call(return, syncIterator, « value »)).
        // 10. Else,
        //    a. Let result be Completion(Call(return, syncIterator)).
        let args: Vec<Value> = value.into_iter().collect();
        let result = self.call_function(return_method, sync_iterator, &args);
        // 11. IfAbruptRejectPromise(result, promiseCapability).
        let result = match result {
            Ok(result) => result,
            Err(e) => return self.reject_with(capability, e),
        };
        // 12. If result is not an Object, then
        if !matches!(result, Value::Object(_)) {
            // a. Perform ! Call(promiseCapability.[[Reject]], undefined, « a newly created TypeError object »).
            // b. Return promiseCapability.[[Promise]].
            let shown = self.no_side_effects_to_string(&result);
            let e = self.new_error(
                "TypeError",
                &format!("Iterator result {shown} is not an object"),
            );
            return self.reject_with(capability, e);
        }
        // 13. Return AsyncFromSyncIteratorContinuation(result, promiseCapability,
        //     syncIteratorRecord, false).
        self.async_from_sync_iterator_continuation(result, capability, sync_iterator_record, false)
    }

    /// 27.1.6.2.3 %AsyncFromSyncIteratorPrototype%.throw ( [ value ] ),
    /// for sync iterators without a `throw` method (the only ones the
    /// runtime makes): steps 1-7 and 8.
    pub fn async_from_sync_iterator_throw(
        &mut self,
        o: ObjectId,
        value: Option<Value>,
    ) -> ObjectId {
        let _ = value;
        // 3. Let promiseCapability be ! NewPromiseCapability(%Promise%).
        let capability = self.new_promise_capability();
        // 4. Let syncIteratorRecord be O.[[SyncIteratorRecord]].
        let sync_iterator_record = self.sync_iterator_record(o);
        // 5. Let syncIterator be syncIteratorRecord.[[Iterator]].
        // 6. Let throw be Completion(GetMethod(syncIterator, "throw")).
        // 7. IfAbruptRejectPromise(throw, promiseCapability).
        let throw = match self.get_method(&sync_iterator_record.iterator, "throw") {
            Ok(t) => t,
            Err(e) => return self.reject_with(capability, e),
        };
        assert_eq!(
            throw,
            Value::Undefined,
            "the runtime's sync iterators have no throw"
        );
        // 8. If throw is undefined, then
        //    a. NOTE: If syncIterator does not have a throw method, close it to give it a
        //       chance to clean up before we reject the capability.
        //    b. Let closeCompletion be NormalCompletion(empty).
        //    c. Let result be Completion(IteratorClose(syncIteratorRecord, closeCompletion)).
        //    d. IfAbruptRejectPromise(result, promiseCapability).
        if let Err(e) = self.iterator_close(&sync_iterator_record, Ok(Value::Undefined)) {
            return self.reject_with(capability, e);
        }
        //    e. NOTE: The next step throws a TypeError to indicate that there was a protocol
        //       violation: syncIterator does not have a throw method.
        //    f. NOTE: If closing syncIterator does not throw then the result of that operation
        //       is ignored, even if it yields a rejected promise.
        //    g. Perform ! Call(promiseCapability.[[Reject]], undefined, « a newly created TypeError object »).
        //    h. Return promiseCapability.[[Promise]].
        let e = self.new_error(
            "TypeError",
            "The iterator does not provide a 'throw' method",
        );
        self.reject_with(capability, e)
    }

    /// `! Call(promiseCapability.[[Reject]], undefined, « e »)`, then the
    /// capability's promise (IfAbruptRejectPromise).
    fn reject_with(&mut self, capability: PromiseCapability, e: Value) -> ObjectId {
        let _ = self.call_function(capability.reject, Value::Undefined, &[e]);
        capability.promise
    }

    /// 27.1.6.4 AsyncFromSyncIteratorContinuation ( result, promiseCapability,
    /// syncIteratorRecord, closeOnRejection )
    pub fn async_from_sync_iterator_continuation(
        &mut self,
        result: Value,
        capability: PromiseCapability,
        sync_iterator_record: IteratorRecord,
        close_on_rejection: bool,
    ) -> ObjectId {
        // 1. NOTE: Because promiseCapability is derived from the intrinsic %Promise%,
        //    the calls to promiseCapability.[[Reject]] entailed by the use
        //    IfAbruptRejectPromise below are guaranteed not to throw.
        // 2. Let done be Completion(IteratorComplete(result)).
        // 3. IfAbruptRejectPromise(done, promiseCapability).
        let done = match self.iterator_complete(&result) {
            Ok(done) => done,
            Err(e) => return self.reject_with(capability, e),
        };
        // 4. Let value be Completion(IteratorValue(result)).
        // 5. IfAbruptRejectPromise(value, promiseCapability).
        let value = match self.iterator_value(&result) {
            Ok(value) => value,
            Err(e) => return self.reject_with(capability, e),
        };
        // 6. Let valueWrapper be Completion(PromiseResolve(%Promise%, value)).
        // 7. If valueWrapper is an abrupt completion, done is false, and closeOnRejection
        //    is true, then ... (PromiseResolve of %Promise% does not throw here)
        // 8. IfAbruptRejectPromise(valueWrapper, promiseCapability).
        let value_wrapper = self.promise_resolve(value);
        // 9. Let unwrap be a new Abstract Closure with parameters (v) that captures done
        //    and performs the following steps when called:
        //    a. Return CreateIteratorResultObject(v, done).
        // 10. Let onFulfilled be CreateBuiltinFunction(unwrap, 1, "", « »).
        let on_fulfilled =
            self.native_function_capturing(Captures::nothing(), move |rt, _this, args| {
                let v = args.first().cloned().unwrap_or(Value::Undefined);
                Ok(rt.create_iter_result(v, done))
            });
        // 11. NOTE: onFulfilled is used when processing the "value" property of an
        //     IteratorResult object in order to wait for its value if it is a promise and
        //     re-package the result in a new "unwrapped" IteratorResult object.
        // 12. If done is true, or if closeOnRejection is false, then
        //     a. Let onRejected be undefined.
        let on_rejected = if done || !close_on_rejection {
            None
        } else {
            // 13. Else,
            //     a. Let closeIterator be a new Abstract Closure with parameters (error) that
            //        captures syncIteratorRecord and performs the following steps when called:
            //        i. Return ? IteratorClose(syncIteratorRecord, ThrowCompletion(error)).
            //     b. Let onRejected be CreateBuiltinFunction(closeIterator, 1, "", « »).
            //     c. NOTE: onRejected is used to close the Iterator when the "value" property
            //        of an IteratorResult object it yields is a rejected promise.
            let captures = Captures::Exactly {
                values: vec![
                    sync_iterator_record.iterator.clone(),
                    sync_iterator_record.next_method.clone(),
                ],
                envs: Vec::new(),
            };
            Some(
                self.native_function_capturing(captures, move |rt, _this, args| {
                    let error = args.first().cloned().unwrap_or(Value::Undefined);
                    rt.iterator_close(&sync_iterator_record, Err(error))
                }),
            )
        };
        // 14. Perform PerformPromiseThen(valueWrapper, onFulfilled, onRejected, promiseCapability).
        self.perform_promise_then(
            value_wrapper,
            Some(on_fulfilled),
            on_rejected,
            Some(capability),
        );
        // 15. Return promiseCapability.[[Promise]].
        capability.promise
    }
}
