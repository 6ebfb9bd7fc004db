//! Async functions (ECMA-262 §27.7.5, AsyncFunction Abstract Operations):
//! `fn async {` and `async {` bodies, suspended at each `await`.
//!
//! The interpreter walks statements recursively, and a recursive walk cannot
//! stop in the middle of a block and pick up there a microtask later. So an
//! async body runs here, as an explicit stack of the blocks it is inside
//! (the body, and the `try` and `repeat` blocks around the statement it is
//! at) with a position in each. Every other statement runs through the
//! interpreter as usual; the parser lets `await` stand only directly in an
//! async body or in its `try` and `repeat` blocks, never inside another
//! callback, so these frames are all an `await` can be inside.
//!
//! The tick counts come from the specification's own operations: an
//! `await` is PromiseResolve then PerformPromiseThen without a derived
//! promise (one microtask for a settled native promise, more for a
//! thenable), and the function's promise is settled through its resolving
//! functions (returning a promise costs the two ticks of
//! NewPromiseResolveThenableJob).
//! <https://tc39.es/ecma262/#sec-async-function-abstract-operations>

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use nodesem_lang::{Block, Op, Stmt};

use crate::interp::Flow;
use crate::promise::PromiseCapability;
use crate::value::{Env, ObjectId, Value};
use crate::{Library, Runtime};

/// The execution context of an async function between its `await`s.
struct Activation {
    /// The blocks the body is inside, outermost first.
    frames: Vec<Frame>,
    /// The function's promise and its resolving functions.
    capability: PromiseCapability,
    /// The binding `let NAME = await V` gives the awaited value to.
    binding: Option<Arc<str>>,
}

/// One block of an async body being run.
struct Frame {
    block: Block,
    /// The next statement.
    index: usize,
    env: Env,
    kind: FrameKind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum FrameKind {
    /// The function's body.
    Body,
    /// A `try` block: an exception stops here and is logged as `caught`.
    Try,
    /// A `repeat` block with this many rounds still to run after this one.
    Repeat(u32),
    /// The branch an `if` took.
    Branch,
}

/// What an async body's walk goes on with.
enum Resume {
    /// The next statement.
    Next,
    /// An exception, thrown at the current statement.
    Throw(Value),
}

impl<L: Library> Runtime<L> {
    /// A call of an async function whose call frame is `env`: 15.8.4
    /// EvaluateAsyncFunctionBody and 27.7.5.1 AsyncFunctionStart. Returns the
    /// function's promise once the body has run to its first `await` (or
    /// its end).
    pub(crate) fn async_function_start(&mut self, body: &Block, env: Env) -> Value {
        // EvaluateAsyncFunctionBody 1. Let promiseCapability be
        //    ! NewPromiseCapability(%Promise%).
        let capability = self.new_promise_capability();
        let promise = capability.promise;
        // 4. Perform AsyncFunctionStart(promiseCapability, FunctionBody):
        //    AsyncBlockStart runs the body in a new execution context.
        let activation = Activation {
            frames: vec![Frame {
                block: Block::clone(body),
                index: 0,
                env,
                kind: FrameKind::Body,
            }],
            capability,
            binding: None,
        };
        self.async_run(activation, Resume::Next);
        // 5. Return ReturnCompletion(promiseCapability.[[Promise]]).
        Value::Object(promise)
    }

    /// Runs an async body from where it stands until it awaits or ends:
    /// 27.7.5.2 AsyncBlockStart, step 3's closure, from a resumption on.
    fn async_run(&mut self, activation: Activation, resume: Resume) {
        // The function's promise and resolving functions are the running
        // code's while it runs ([`crate::gc`]): nothing else holds them
        // before the first `await` returns the promise.
        let c = activation.capability;
        let held = [c.promise, c.resolve, c.reject].map(Value::Object);
        self.holding(&held, |rt| rt.async_walk(activation, resume));
    }

    fn async_walk(&mut self, mut activation: Activation, mut resume: Resume) {
        loop {
            if self.stopped() {
                // The budget stopped the scenario: the body never resumes.
                return;
            }
            if let Resume::Throw(error) = resume {
                resume = Resume::Next;
                // The exception leaves frames until a `try` stops it.
                loop {
                    match activation.frames.pop() {
                        Some(Frame {
                            kind: FrameKind::Try,
                            ..
                        }) => {
                            let line = format!("caught {}", self.fmt(&error));
                            self.log_line(line);
                            break;
                        }
                        Some(_) => continue,
                        None => {
                            // AsyncBlockStart 3.g. Else, i. Assert: result is a
                            //    throw completion. ii. Perform ! Call(
                            //    promiseCapability.[[Reject]], undefined, « result.[[Value]] »).
                            let reject = activation.capability.reject;
                            let _ = self.call_function(reject, Value::Undefined, &[error]);
                            return;
                        }
                    }
                }
                continue;
            }
            let Some(frame) = activation.frames.last_mut() else {
                unreachable!("the body's frame ends the walk")
            };
            // The statement stays where it is in the scenario's tree, never
            // copied (a block's clone shares its statements).
            let block = frame.block.clone();
            let Some(stmt) = block.body().get(frame.index) else {
                // The block ran to its end.
                let frame = activation.frames.pop().expect("a frame");
                match frame.kind {
                    FrameKind::Body => {
                        // AsyncBlockStart 3.e. If result is a normal completion,
                        //    perform ! Call(promiseCapability.[[Resolve]], undefined, « undefined »).
                        let resolve = activation.capability.resolve;
                        let _ = self.call_function(resolve, Value::Undefined, &[Value::Undefined]);
                        return;
                    }
                    FrameKind::Try | FrameKind::Branch | FrameKind::Repeat(0) => {}
                    FrameKind::Repeat(left) => {
                        // The next round, with bindings of its own.
                        let parent = &activation.frames.last().expect("the body").env;
                        activation.frames.push(Frame {
                            env: parent.block_scope(&frame.block),
                            block: frame.block,
                            index: 0,
                            kind: FrameKind::Repeat(left - 1),
                        });
                    }
                }
                continue;
            };
            frame.index += 1;
            let env = frame.env.clone();
            let (binding, awaited) = match stmt {
                Stmt::Let {
                    name,
                    op: Op::Await(value),
                } => (Some(name.clone()), value),
                Stmt::Do(Op::Await(value)) => (None, value),
                Stmt::Try(block) => {
                    activation.frames.push(Frame {
                        block: block.clone(),
                        index: 0,
                        env: env.block_scope(block),
                        kind: FrameKind::Try,
                    });
                    continue;
                }
                Stmt::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    match self.eval(cond, &env) {
                        Ok(cond) => {
                            let branch = if cond.to_boolean() {
                                Some(then)
                            } else {
                                otherwise.as_ref()
                            };
                            if let Some(block) = branch {
                                activation.frames.push(Frame {
                                    block: block.clone(),
                                    index: 0,
                                    env: env.block_scope(block),
                                    kind: FrameKind::Branch,
                                });
                            }
                        }
                        Err(error) => resume = Resume::Throw(error),
                    }
                    continue;
                }
                Stmt::Repeat { count, body } => {
                    if *count > 0 {
                        activation.frames.push(Frame {
                            block: body.clone(),
                            index: 0,
                            env: env.block_scope(body),
                            kind: FrameKind::Repeat(count - 1),
                        });
                    }
                    continue;
                }
                other => {
                    // The frames of the blocks the body is in are roots
                    // while its statement runs.
                    let mark = self.gc.frames.len();
                    self.gc
                        .frames
                        .extend(activation.frames.iter().map(|f| f.env.clone()));
                    self.gc.frames.push(env.clone());
                    let done = self.exec_stmt(other, &env);
                    self.gc.frames.truncate(mark);
                    match done {
                        Ok(Flow::Normal) => {}
                        Ok(Flow::Return(value)) => {
                            // AsyncBlockStart 3.f. Else if result is a return
                            //    completion, perform ! Call(promiseCapability.[[Resolve]],
                            //    undefined, « result.[[Value]] »).
                            let resolve = activation.capability.resolve;
                            let _ = self.call_function(resolve, Value::Undefined, &[value]);
                            return;
                        }
                        Err(error) => resume = Resume::Throw(error),
                    }
                    continue;
                }
            };
            match self.eval(awaited, &env) {
                Ok(value) => {
                    activation.binding = binding;
                    self.await_value(activation, value);
                    return;
                }
                Err(error) => resume = Resume::Throw(error),
            }
        }
    }

    /// 27.7.5.3 Await ( value ), with the body's execution context
    /// suspended as `activation`.
    fn await_value(&mut self, activation: Activation, value: Value) {
        // 2. Let promise be ? PromiseResolve(%Promise%, value).
        let promise: ObjectId = self.promise_resolve(value);
        // What the suspended context holds: its frames and its promise.
        let holds = crate::gc::Captures::Exactly {
            values: [
                activation.capability.promise,
                activation.capability.resolve,
                activation.capability.reject,
            ]
            .into_iter()
            .map(Value::Object)
            .collect(),
            envs: activation.frames.iter().map(|f| f.env.clone()).collect(),
        };
        // The context resumes once, from whichever closure is called.
        let suspended = Rc::new(RefCell::new(Some(activation)));
        // 3. Let fulfilledClosure be a new Abstract Closure with parameters
        //    (v) that resumes asyncContext with NormalCompletion(v).
        let on_fulfilled = {
            let suspended = suspended.clone();
            self.native_function_capturing(holds.clone(), move |rt, _this, args| {
                if let Some(mut activation) = suspended.borrow_mut().take() {
                    let v = args.first().cloned().unwrap_or(Value::Undefined);
                    if let Some(name) = activation.binding.take() {
                        let frame = activation.frames.last().expect("a frame");
                        frame.env.define(&name, v);
                    }
                    rt.async_run(activation, Resume::Next);
                }
                Ok(Value::Undefined)
            })
        };
        // 5. Let rejectedClosure be a new Abstract Closure with parameters
        //    (reason) that resumes asyncContext with ThrowCompletion(reason).
        let on_rejected = self.native_function_capturing(holds, move |rt, _this, args| {
            if let Some(activation) = suspended.borrow_mut().take() {
                let reason = args.first().cloned().unwrap_or(Value::Undefined);
                rt.async_run(activation, Resume::Throw(reason));
            }
            Ok(Value::Undefined)
        });
        // 7. Perform PerformPromiseThen(promise, onFulfilled, onRejected).
        self.perform_promise_then(promise, Some(on_fulfilled), Some(on_rejected), None);
    }
}
