//! Node's event loop, restricted to what scenarios can schedule, on a
//! virtual clock.
//!
//! The rules, each checked against Node 26.12.1 (see `NODE:` notes):
//!
//! - After every macrotask (a main-script segment, a timer, an immediate),
//!   Node runs `processTicksAndRejections()`: all nextTicks, then all
//!   microtasks, then the unhandled rejections, repeated until nothing is
//!   left. This is the *drain*.
//! - A nextTick callback that throws is reported as an uncaught exception and
//!   ends the drain; the rest of the queue waits for the next drain.
//! - A timer or immediate callback that throws is reported, and the next
//!   callback of the same phase runs *before* the drain (Node re-enters its
//!   timer/immediate processing without draining). The drain at the end of a
//!   phase always happens.
//! - An iteration is a timers phase (every timer due at `now`, in deadline
//!   then creation order) and a check phase (the immediates queued before it
//!   began). When nothing is runnable the clock jumps to the next deadline.
//!   The loop ends when no immediate and no ref'd timer is pending; pending
//!   ticks and microtasks are drained first (Node's `beforeExit` callback
//!   scope drains them).
//! - With `use module` the main script's first part is an ES module's
//!   evaluation, which runs inside a promise job of Node's loader: the
//!   microtasks it queues run before the drain, so before its ticks (see
//!   `Runtime::evaluate_module`).
//! - MODEL: a 0 ms timer and an immediate scheduled by the main script race
//!   in real Node (it depends on whether 1 ms passed before the loop
//!   started); here the loop starts at virtual time 0, the timer is due at 1,
//!   so the immediate runs first. The Node engine's driver makes the same
//!   choice.

use std::rc::Rc;

use nodesem_lang::{Directive, RunMode, Scenario, Stmt};

use crate::value::{Completion, Env, ObjectData, ObjectId, Value};
use crate::{Job, Library, Runtime, TimerEntry};

/// A callback the event loop runs: a script function or a closure of the
/// runtime or the library.
pub enum Task<L: 'static> {
    /// A script function, called with no arguments and this `this`:
    /// undefined for a microtask or a tick; for a timer's or an immediate's
    /// callback the handle (Node calls it on the `Timeout` or `Immediate`
    /// object `setTimeout` or `setImmediate` returned).
    Script(ObjectId, Value),
    /// A closure of the runtime or library; an `Err` is thrown.
    // Allowed (nodesem-model): clippy 1.95's type_complexity fails `-D warnings`
    // here, and every crate's clippy run lints this workspace dependency.
    #[allow(clippy::type_complexity)]
    Native(Box<dyn FnOnce(&mut Runtime<L>) -> Completion>),
    /// A closure that lists what it captured, for the collector
    /// ([`crate::gc::Captures`]); a [`Task::Native`] makes a collection
    /// that reaches it keep everything.
    #[allow(clippy::type_complexity)]
    Captured(
        Box<dyn FnOnce(&mut Runtime<L>) -> Completion>,
        crate::gc::Captures,
    ),
}

/// The outcome of a drain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Drain {
    /// Both queues are empty.
    Done,
    /// A nextTick callback threw; the rest waits for the next drain.
    Interrupted,
}

impl<L: Library> Runtime<L> {
    // ---- scheduling -----------------------------------------------------

    /// `process.nextTick(task)`.
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/process/task_queues.js#L116-L124>
    /// the TickObject keeps `this[async_context_frame] = AsyncContextFrame.current()`,
    /// which processTicksAndRejections exchanges in around its callback
    /// (L77-L102).
    pub fn next_tick(&mut self, task: Task<L>) {
        self.ticks.push_back((self.frame.clone(), task));
    }

    /// `process.emitWarning(warning)` for a warning object whose `name` and
    /// `message` are given: the 'warning' event comes a tick later, as the
    /// line `warning NAME: MESSAGE` (the prelude's
    /// `process.on('warning', ...)` on real Node).
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/process/warning.js#L180>
    /// `process.nextTick(doEmitWarning, warning)`, queued where
    /// `emitWarning` is called, behind the ticks already queued; and
    /// `doEmitWarning` (L84-L86) is `process.emit('warning', warning)`.
    /// MODEL: nothing else observes the warning object, so only its text
    /// is kept.
    pub fn emit_warning(&mut self, name: &str, message: &str) {
        let line = format!("warning {name}: {message}");
        self.next_tick(Task::Captured(
            Box::new(move |rt: &mut Runtime<L>| {
                rt.log_line(line);
                Ok(Value::Undefined)
            }),
            crate::gc::Captures::nothing(),
        ));
    }

    /// HostEnqueuePromiseJob, or `queueMicrotask`.
    ///
    /// A job runs in an async context frame (V8's continuation-preserved
    /// embedder data, which V8 sets around every microtask): a promise
    /// reaction's is the one current when `then` made the reaction
    /// ([`crate::promise::PromiseReaction::frame`]); a thenable job's and a
    /// `queueMicrotask` callback's the one current when it was queued (V8
    /// stores it in the job's record; Node's queueMicrotask also binds the
    /// callback to an AsyncResource made there, the same frame).
    pub fn enqueue_microtask(&mut self, job: Job<L>) {
        let frame = match &job {
            Job::PromiseReaction { reaction, .. } => reaction.frame.clone(),
            _ => self.frame.clone(),
        };
        self.microtasks.push_back((frame, job));
    }

    /// `setTimeout(task, ms)`: returns the timer's id. `refed` false is
    /// `timer.unref()`, as `AbortSignal.timeout` does.
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/timers.js#L225-L243>
    /// a delay below 1 (or above 2^31-1) becomes 1 ms.
    pub fn set_timeout(&mut self, ms: u32, task: Task<L>, refed: bool) -> u64 {
        let frame = self.frame.clone();
        self.add_timer(ms, task, refed, frame)
    }

    /// A libuv timer of the library's or an addon's, due like a Timeout of
    /// `ms` made now, whose callback native code calls with no JavaScript
    /// below it: it runs in no async context frame (the callback scope it
    /// opens decides its frame).
    pub fn set_native_timer(&mut self, ms: u32, task: Task<L>) -> u64 {
        self.add_timer(ms, task, true, Value::Undefined)
    }

    fn add_timer(&mut self, ms: u32, task: Task<L>, refed: bool, frame: Value) -> u64 {
        let ms = clamp_delay(ms);
        let seq = self.seq();
        let key = (self.now + ms, seq);
        self.timers.insert(
            key,
            TimerEntry {
                id: seq,
                frame,
                refed,
                task,
                repeating: false,
            },
        );
        self.timer_keys.insert(seq, key);
        seq
    }

    /// `setInterval(f, ms)` calling `f` on `this` (its handle): returns the
    /// timer's id, which it keeps from one round to the next.
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/timers.js#L203-L210>
    /// `initAsyncResource` gives the Timeout the frame current when it was
    /// made; listOnTimeout re-inserts the same Timeout, so every round runs
    /// in it.
    pub fn set_interval(&mut self, ms: u32, f: ObjectId, this: Value) -> u64 {
        let id = self.seq();
        let frame = self.frame.clone();
        self.arm_interval(id, id, clamp_delay(ms), (f, this, frame), true);
        id
    }

    /// Puts an interval on the timer list, due `repeat` from now; `call`
    /// is its function, its `this` and the frame it runs in.
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/timers.js#L675-L692>
    /// listOnTimeout runs a timer, then, in a `finally`, re-inserts a
    /// repeating one that was not cleared (`_idleTimeout !== -1`) with
    /// `start` taken before the call: on the virtual clock, `now`, which a
    /// callback does not move. The re-inserted timer is appended to its
    /// list, so it comes after timers made during its callback with the
    /// same deadline.
    fn arm_interval(
        &mut self,
        id: u64,
        seq: u64,
        repeat: u64,
        call: (ObjectId, Value, Value),
        refed: bool,
    ) {
        let key = (self.now + repeat, seq);
        let (f, this, frame) = call;
        // The frame too: the callback may enter another one, and the next
        // round still runs in this one.
        let holds =
            crate::gc::Captures::values(vec![Value::Object(f), this.clone(), frame.clone()]);
        let again = frame.clone();
        let task = Task::Captured(
            Box::new(move |rt: &mut Runtime<L>| {
                let result = rt.call_function(f, this.clone(), &[]);
                if let Some(refed) = rt.running_intervals.remove(&id) {
                    let seq = rt.seq();
                    rt.arm_interval(id, seq, repeat, (f, this, again), refed);
                }
                result
            }),
            holds,
        );
        self.timers.insert(
            key,
            TimerEntry {
                id,
                frame,
                refed,
                task,
                repeating: true,
            },
        );
        self.timer_keys.insert(id, key);
    }

    /// `timer.ref()` / `timer.unref()`: whether the timer keeps the loop
    /// alive; nothing happens to one that fired or was cleared.
    pub fn set_timer_ref(&mut self, id: u64, refed: bool) {
        if let Some(key) = self.timer_keys.get(&id) {
            if let Some(entry) = self.timers.get_mut(key) {
                entry.refed = refed;
            }
        } else if let Some(running) = self.running_intervals.get_mut(&id) {
            *running = refed;
        }
    }

    /// `clearTimeout(id)` (or `clearInterval`); nothing happens if it fired
    /// or was cleared. An interval cleared by its own callback is not
    /// re-armed.
    pub fn clear_timeout(&mut self, id: u64) {
        if let Some(key) = self.timer_keys.remove(&id) {
            self.timers.remove(&key);
        }
        self.running_intervals.remove(&id);
    }

    /// `setImmediate(task)`: returns the immediate's id.
    pub fn set_immediate(&mut self, task: Task<L>) -> u64 {
        let id = self.seq();
        self.immediates.push_back((id, self.frame.clone(), task));
        id
    }

    /// `clearImmediate(id)`.
    pub fn clear_immediate(&mut self, id: u64) {
        self.immediates.retain(|(i, _, _)| *i != id);
    }

    // ---- async context frames and callback scopes ------------------------

    /// The current async context frame: V8's continuation-preserved
    /// embedder data, `undefined` until a library sets it (Node's
    /// `AsyncContextFrame.current()`,
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/async_context_frame.js#L12-L24>).
    pub fn context_frame(&self) -> Value {
        self.frame.clone()
    }

    /// `AsyncContextFrame.set(frame)`.
    pub fn set_context_frame(&mut self, frame: Value) {
        self.frame = frame;
    }

    /// `AsyncContextFrame.exchange(frame)`: sets it, returns the prior one.
    pub fn exchange_context_frame(&mut self, frame: Value) -> Value {
        std::mem::replace(&mut self.frame, frame)
    }

    /// `env->PushAsyncCallbackScope()`: a callback scope opens; returns the
    /// depth with it.
    pub fn push_callback_scope(&mut self) -> u32 {
        self.callback_scopes += 1;
        self.callback_scopes
    }

    /// `env->PopAsyncCallbackScope()`.
    pub fn pop_callback_scope(&mut self) {
        self.callback_scopes = self.callback_scopes.saturating_sub(1);
    }

    /// `env->async_callback_scope_depth()`: how many callback scopes are
    /// open. The runtime's own macrotasks are not counted: each is the
    /// outermost scope of its loop callback.
    pub fn callback_scope_depth(&self) -> u32 {
        self.callback_scopes
    }

    /// `tick_info->has_tick_scheduled()`.
    pub fn has_tick_scheduled(&self) -> bool {
        !self.ticks.is_empty()
    }

    /// `tick_info->has_rejection_to_warn()`: a rejection waits for
    /// processPromiseRejections.
    pub fn has_rejection_to_warn(&self) -> bool {
        !self.pending_unhandled_rejections.is_empty() || !self.handled_after_report.is_empty()
    }

    /// `MicrotaskQueue::PerformCheckpoint`: every microtask, those queued
    /// meanwhile too.
    pub fn perform_microtask_checkpoint(&mut self) {
        self.run_microtasks();
    }

    /// The tick callback, `processTicksAndRejections()`: a tick that throws
    /// is reported and ends it.
    pub fn process_ticks_and_rejections(&mut self) {
        let _ = self.drain();
    }

    // ---- running callbacks ------------------------------------------------

    /// Calls a function object. A script function counts against the
    /// budget; once the scenario is stopped, calls do nothing.
    pub fn call_function(&mut self, func: ObjectId, this: Value, args: &[Value]) -> Completion {
        if self.stopped {
            return Ok(Value::Undefined);
        }
        match self.heap.get(func) {
            ObjectData::Function(crate::FunctionData::Native(f, _)) => {
                let f = f.clone();
                // The function (and so what it captured), its receiver and
                // its arguments are the running code's while it runs.
                let mark = self.gc.stack.len();
                self.gc.stack.push(Value::Object(func));
                self.gc.stack.push(this.clone());
                self.gc.stack.extend(args.iter().cloned());
                let result = f(self, this, args);
                self.gc.stack.truncate(mark);
                result
            }
            ObjectData::Function(crate::FunctionData::Resolving {
                promise,
                already_resolved,
                reject,
            }) => {
                let (promise, already_resolved, reject) =
                    (*promise, Rc::clone(already_resolved), *reject);
                self.promise_resolving_function_call(promise, &already_resolved, reject, args)
            }
            ObjectData::Function(crate::FunctionData::Script {
                body,
                param,
                second,
                env,
                origin,
                is_async,
            }) => {
                let (body, param, second, env, origin, is_async) = (
                    body.clone(),
                    *param,
                    *second,
                    env.clone(),
                    *origin,
                    *is_async,
                );
                let cost = body.cost();
                self.steps += 1;
                if self.steps > self.config.budget {
                    let budget = self.config.budget;
                    self.stop(format!("more than {budget} callbacks"));
                    return Ok(Value::Undefined);
                }
                if self.depth >= self.config.max_depth {
                    let depth = self.config.max_depth;
                    self.stop(format!("callbacks nested more than {depth} deep"));
                    return Ok(Value::Undefined);
                }
                if !self.charge(cost) {
                    return Ok(Value::Undefined);
                }
                if self.collect_stats {
                    self.bodies_run.insert(origin);
                }
                let param = param.map(|p| (p, args.first().cloned().unwrap_or(Value::Undefined)));
                let argc = u32::try_from(args.len()).unwrap_or(u32::MAX);
                let env = env.call_frame(&body, this, param, argc);
                if let Some(second) = second {
                    let arg = args.get(1).cloned().unwrap_or(Value::Undefined);
                    env.define(&std::sync::Arc::from(second), arg);
                }
                self.depth += 1;
                // The running function and its frame (which holds the
                // arguments a script can reach) are roots while it runs
                // ([`crate::gc`]).
                let mark = self.gc.stack.len();
                self.gc.stack.push(Value::Object(func));
                self.gc.frames.push(env.clone());
                let result = if is_async {
                    Ok(self.async_function_start(&body, env))
                } else {
                    self.exec_callback_body(&body, &env)
                };
                self.gc.frames.pop();
                self.gc.stack.truncate(mark);
                self.depth -= 1;
                result
            }
            _ => {
                let e = self.new_error("TypeError", "callback is not a function");
                Err(e)
            }
        }
    }

    /// Runs a task in the async context frame it was queued with, then puts
    /// back the frame that was current.
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/timers.js#L670-L722>
    /// listOnTimeout (and processImmediate, L565-L594, and
    /// processTicksAndRejections) call
    /// `AsyncContextFrame.exchange(timer[async_context_frame])` before the
    /// callback and `AsyncContextFrame.set(prior)` after it. MODEL: after a
    /// callback that threw, Node skips the `set` (it is not in a `finally`)
    /// and the next callback's exchange keeps what the thrower left as its
    /// prior; the runtime puts the prior frame back either way: every later
    /// callback runs in its own frame, and no script code runs in the
    /// loop's own.
    fn run_task_in(&mut self, frame: Value, task: Task<L>) -> Completion {
        let prior = std::mem::replace(&mut self.frame, frame);
        let result = self.run_task(task);
        self.frame = prior;
        result
    }

    fn run_task(&mut self, task: Task<L>) -> Completion {
        match task {
            Task::Script(f, this) => self.call_function(f, this, &[]),
            Task::Native(f) => self.run_native_task(f, crate::gc::Captures::Unknown),
            Task::Captured(f, captures) => self.run_native_task(f, captures),
        }
    }

    /// A closure task, what it captured a root while it runs.
    #[allow(clippy::type_complexity)]
    fn run_native_task(
        &mut self,
        f: Box<dyn FnOnce(&mut Runtime<L>) -> Completion>,
        captures: crate::gc::Captures,
    ) -> Completion {
        if self.stopped {
            return Ok(Value::Undefined);
        }
        self.gc.task_captures.push(captures);
        let result = f(self);
        self.gc.task_captures.pop();
        result
    }

    /// Reports an exception the way `process.on('uncaughtException')` sees it.
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/process/execution.js#L208-L210>
    /// once a handler has handled the exception, Node queues
    /// `setImmediate(noop)` "to make sure any ticks get processed". That
    /// immediate is a macrotask like any other: the drain after it runs what
    /// an interrupted drain left, which is observable when a second exception
    /// interrupts the next drain too.
    pub fn report_uncaught(&mut self, error: &Value) {
        self.trigger_uncaught_exception(error, false);
    }

    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/process/execution.js#L168-L210>
    /// `onGlobalUncaughtException(er, fromPromise)`: the `type` (the
    /// handler's `origin` argument) is `unhandledRejection` for an error
    /// that comes from a promise, else `uncaughtException`. Without a
    /// listener (L192-L199), `process.exitCode = 1` and
    /// `process.emit('exit', 1)`; then the process prints the error and
    /// exits, and nothing else of the program runs.
    pub fn trigger_uncaught_exception(&mut self, error: &Value, from_promise: bool) {
        let origin = if from_promise {
            " from unhandledRejection"
        } else {
            ""
        };
        let shown = self.fmt(error);
        if !self.uncaught_handler {
            self.log_line(format!("exit 1 after uncaught {shown}{origin}"));
            // (Unless that line took the log past its budget, which stopped
            // the run already.)
            if !self.stopped {
                self.exited = true;
                self.stopped = true;
            }
            return;
        }
        self.log_line(format!("uncaught {shown}{origin}"));
        self.set_immediate(Task::Captured(
            Box::new(|_| Ok(Value::Undefined)),
            crate::gc::Captures::nothing(),
        ));
    }

    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/process/task_queues.js#L72-L109>
    /// `processTicksAndRejections()`:
    /// `do { run every tick; runMicrotasks(); } while (ticks queued || processPromiseRejections())`.
    fn drain(&mut self) -> Drain {
        loop {
            if self.stopped {
                return Drain::Done;
            }
            while let Some((frame, tick)) = self.ticks.pop_front() {
                if let Err(e) = self.run_task_in(frame, tick) {
                    // The exception leaves processTicksAndRejections and the
                    // callback scope, whose close leaves no frame current.
                    self.frame = Value::Undefined;
                    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/process/task_queues.js#L82-L98> the exception leaves processTicksAndRejections (a try/finally, no catch);
                    // the remaining ticks wait for the next callback scope.
                    self.report_uncaught(&e);
                    return Drain::Interrupted;
                }
                if self.stopped {
                    return Drain::Done;
                }
            }
            self.run_microtasks();
            if self.stopped {
                return Drain::Done;
            }
            if self.ticks.is_empty() && !self.process_promise_rejections() {
                return Drain::Done;
            }
        }
    }

    /// V8's microtask checkpoint: runs jobs until the queue is empty,
    /// including jobs queued meanwhile; then ClearKeptObjects.
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/process/task_queues.js#L104> every `runMicrotasks()`
    /// is V8's `MicrotaskQueue::PerformCheckpoint`, which empties the kept
    /// list after the jobs, measured (`harness/js/NODE_GC_FACTS.md` §3): a WeakRef's target
    /// made or deref'd in a macrotask, its ticks or its microtasks survives
    /// a `gc` until that checkpoint ends.
    fn run_microtasks(&mut self) {
        self.run_microtask_jobs();
        self.clear_kept_objects();
    }

    fn run_microtask_jobs(&mut self) {
        while let Some((frame, job)) = self.microtasks.pop_front() {
            if self.stopped {
                return;
            }
            // V8 (RunSingleMicrotask) sets the job's frame only when it
            // has one: a job made in no frame runs in whatever is current.
            // Measured on the pinned binary: after a `queueMicrotask`
            // callback threw, the next job made in no frame sees the frame
            // the thrower left; after a job that returned, the frame is
            // undefined again (the reset is V8's, whatever the job's frame).
            let defined = !matches!(frame, Value::Undefined);
            if defined {
                self.frame = frame.clone();
            }
            let mut threw = false;
            match job {
                Job::PromiseReaction { reaction, argument } => {
                    // The job's record is the running code's while it runs
                    // ([`crate::gc`]): the derived promise the handler's
                    // result settles may have no other holder.
                    let c = reaction.capability;
                    let held = [
                        c.map_or(Value::Undefined, |c| Value::Object(c.promise)),
                        c.map_or(Value::Undefined, |c| Value::Object(c.resolve)),
                        c.map_or(Value::Undefined, |c| Value::Object(c.reject)),
                        argument.clone(),
                    ];
                    self.holding(&held, |rt| rt.promise_reaction_job(reaction, argument));
                }
                Job::ResolveThenable { promise, thenable } => {
                    let held = [promise, thenable].map(Value::Object);
                    self.holding(&held, |rt| {
                        rt.promise_resolve_thenable_job(promise, thenable)
                    });
                }
                Job::Task(task) => {
                    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/process/task_queues.js#L167-L182> queueMicrotask enqueues the callback
                    // itself (no try/catch in lib/); V8 hands a microtask's
                    // exception to Node's message listener, which reports it
                    // as uncaught (C++, not in lib/), and the checkpoint goes
                    // on. Measured on the pinned binary.
                    if let Err(e) = self.run_task(task) {
                        threw = true;
                        // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/process/task_queues.js#L154-L163>
                        // a callback queued in a frame runs through
                        // `runInAsyncScope`, whose `finally` sets back the
                        // frame V8 had set, the job's; one queued in no frame
                        // leaves what it entered.
                        if defined {
                            self.frame = frame;
                        }
                        self.report_uncaught(&e);
                    }
                }
            }
            if !threw {
                self.frame = Value::Undefined;
            }
        }
    }

    fn has_pending_jobs(&self) -> bool {
        !self.ticks.is_empty()
            || !self.microtasks.is_empty()
            || !self.pending_unhandled_rejections.is_empty()
            || !self.handled_after_report.is_empty()
    }

    /// Runs the macrotasks of one phase, each taken by `next` when the
    /// previous one is done, with Node's drains between them; `has_next`
    /// says, without taking it, whether another one is due.
    /// Returns whether any of them threw.
    pub(crate) fn run_phase(
        &mut self,
        mut has_next: impl FnMut(&Self, bool) -> bool,
        mut next: impl FnMut(&mut Self) -> Option<(Value, Task<L>)>,
    ) -> bool {
        // A phase is one native callback of the loop (processTimers,
        // processImmediate, a cleanup task): its InternalCallbackScope opens
        // in no frame and puts the prior one back when it closes, so a
        // frame a throwing microtask left does not reach the next phase.
        let outer = std::mem::replace(&mut self.frame, Value::Undefined);
        let any_threw = self.run_phase_callbacks(&mut has_next, &mut next);
        self.frame = outer;
        any_threw
    }

    fn run_phase_callbacks(
        &mut self,
        has_next: &mut impl FnMut(&Self, bool) -> bool,
        next: &mut impl FnMut(&mut Self) -> Option<(Value, Task<L>)>,
    ) -> bool {
        let mut first = true;
        let mut previous_threw = false;
        let mut any_threw = false;
        loop {
            if self.stopped {
                return any_threw;
            }
            if !has_next(self, previous_threw) {
                break;
            }
            // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/timers.js#L643-L646>
            // listOnTimeout and processImmediate call runNextTicks() before
            // every callback but the first; after a callback threw, Node
            // re-enters them and the next callback runs first. The drain
            // comes *before* the next callback is taken (Node peeks, runs the
            // ticks, then removes the timer or checks `_destroyed`), so a tick
            // can still clear it (found by nodesem-impl's differential run
            // against Node).
            if !first && !previous_threw {
                self.drain();
                if self.stopped || !has_next(self, false) {
                    break;
                }
            }
            let Some((frame, task)) = next(self) else {
                break;
            };
            first = false;
            previous_threw = match self.run_task_in(frame, task) {
                Ok(_) => false,
                Err(e) => {
                    // The exception leaves the phase's callback scope; Node
                    // calls the next callback from a new one, in no frame.
                    self.frame = Value::Undefined;
                    self.report_uncaught(&e);
                    any_threw = true;
                    true
                }
            };
        }
        // The callback scope's close at the end of the phase.
        if !first {
            self.drain();
        }
        any_threw
    }

    /// The timers phase: every timer due at `now`. Timers created during the
    /// phase are due at `now + 1` at the earliest, so never in it.
    fn timers_phase(&mut self) {
        let now = self.now;
        let due = move |rt: &Self, _previous_threw: bool| {
            rt.timers.keys().next().is_some_and(|k| k.0 <= now)
        };
        let _ = self.run_phase(due, |rt| {
            let (&key, _) = rt.timers.iter().next()?;
            if key.0 > now {
                return None;
            }
            let entry = rt.timers.remove(&key)?;
            rt.timer_keys.remove(&entry.id);
            if entry.repeating {
                rt.running_intervals.insert(entry.id, entry.refed);
            }
            Some((entry.frame, entry.task))
        });
    }

    /// The check phase: the immediates queued before it began.
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/timers.js#L525-L600>
    /// processImmediate takes the queue as one batch and marks it
    /// outstanding; when a callback throws, Node re-enters processImmediate,
    /// which goes on with the rest of the batch, or, when the thrower was
    /// the batch's last, takes every immediate queued since (the uncaught
    /// handler's no-op among them) as a new batch of the same phase, before
    /// any drain.
    fn check_phase(&mut self) {
        let Some(first_last) = self.immediates.back().map(|(id, _, _)| *id) else {
            return;
        };
        let last = std::cell::Cell::new(first_last);
        let due =
            |rt: &Self, previous_threw: bool| match (rt.immediates.front(), rt.immediates.back()) {
                (Some((front, _, _)), _) if *front <= last.get() => true,
                (Some(_), Some((back, _, _))) if previous_threw => {
                    last.set(*back);
                    true
                }
                _ => false,
            };
        let _ = self.run_phase(due, |rt| {
            rt.immediates
                .pop_front()
                .map(|(_, frame, task)| (frame, task))
        });
    }

    fn iteration(&mut self) {
        self.timers_phase();
        // Measured on the pinned Node: the poll phase runs V8's platform
        // tasks, a registry's cleanup among them ([`Runtime::cleanup_phase`]).
        self.cleanup_phase();
        self.check_phase();
    }

    fn runnable_now(&self) -> bool {
        !self.immediates.is_empty()
            || self.cleanup_pending()
            || self.timers.keys().next().is_some_and(|k| k.0 <= self.now)
    }

    fn next_deadline(&self) -> Option<u64> {
        self.timers.keys().next().map(|k| k.0)
    }

    fn has_refed_timer(&self) -> bool {
        self.timers.values().any(|t| t.refed)
    }

    /// Runs the loop until nothing keeps it alive.
    fn run_until_idle(&mut self) {
        loop {
            if self.stopped {
                return;
            }
            if self.runnable_now() {
                self.iteration();
            } else if self.has_refed_timer() {
                self.now = self.next_deadline().expect("a ref'd timer is pending");
                self.iteration();
            } else if self.has_pending_jobs() {
                // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/process/task_queues.js#L72-L109> before the process would exit, Node's
                // C++ emits 'beforeExit' inside a callback scope (not in
                // lib/), whose close runs processTicksAndRejections over
                // what an interrupted drain left. Measured on the pinned
                // binary.
                self.drain();
            } else {
                return;
            }
        }
    }

    /// Runs the loop until the clock reaches `now + ms`.
    fn run_advance(&mut self, ms: u32) {
        let target = self.now + u64::from(ms);
        loop {
            if self.stopped {
                return;
            }
            if self.runnable_now() {
                self.iteration();
            } else if let Some(deadline) = self.next_deadline().filter(|d| *d <= target) {
                self.now = deadline;
                self.iteration();
            } else {
                self.now = target;
                return;
            }
        }
    }

    /// The first part of a `use module` main script: an ES module's
    /// evaluation. Returns whether it threw.
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/modules/esm/module_job.js#L558-L575>
    /// `ModuleJob.run` evaluates the module after `await this.#instantiate()`,
    /// that is inside a promise job: the microtasks the module's code
    /// queues run in the same microtask checkpoint, the ones they queue
    /// too, and only when it is empty does the callback scope's close run
    /// `processTicksAndRejections()`, ticks first. Measured on the pinned
    /// binary: a module that queues a tick, then a microtask, logs the
    /// microtask first (CommonJS: the tick), and a tick queued by such a
    /// microtask runs after the ticks queued before it.
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/modules/run_main.js#L90-L116>
    /// a throw at the module's top level rejects the evaluation's promise;
    /// it travels through the `await`s of `ModuleJob.run`, the loader's
    /// `import` (<https://github.com/nodejs/node/blob/v26.12.1/lib/internal/modules/esm/loader.js#L634-L656>)
    /// and `asyncRunEntryPointWithESMLoader`, whose `catch` calls
    /// `triggerUncaughtException`. Measured on the pinned binary: the
    /// report is the fourth of a chain of microtask jobs whose first is
    /// queued at the throw ([`MODULE_THROW_HOPS`]; three on Node 20), so the
    /// microtasks queued before the throw, and the first ones they queue,
    /// run before it. The rest of the main script never runs.
    fn evaluate_module(&mut self, evaluation: Task<L>) -> bool {
        let frame = self.main_frame.clone();
        let threw = match self.run_task_in(frame, evaluation) {
            Ok(_) => false,
            Err(error) => {
                self.enqueue_module_rejection(error, MODULE_THROW_HOPS);
                true
            }
        };
        // The rest of the checkpoint the evaluation ran in, then the close
        // of the callback scope around it.
        self.run_microtasks();
        if !self.stopped {
            self.drain();
        }
        threw
    }

    /// One hop of a top-level throw's way to `uncaughtException`: a
    /// microtask job that queues the next, the last of `hops` reporting it.
    fn enqueue_module_rejection(&mut self, error: Value, hops: u32) {
        let captures = crate::gc::Captures::values(vec![error.clone()]);
        self.enqueue_microtask(Job::Task(Task::Captured(
            Box::new(move |rt: &mut Runtime<L>| {
                if hops > 1 {
                    rt.enqueue_module_rejection(error, hops - 1);
                } else {
                    // NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/modules/run_main.js#L106-L114>
                    // `triggerUncaughtException(err, true /* fromPromise */)`:
                    // the handler's origin is `unhandledRejection`.
                    rt.trigger_uncaught_exception(&error, true);
                }
                Ok(Value::Undefined)
            }),
            captures,
        )));
    }

    /// Runs the main script: its segments between `run` statements are
    /// macrotasks, and the loop runs after each as the `run` says, then
    /// until idle. With `use module` the first segment is an ES module's
    /// evaluation instead ([`Runtime::evaluate_module`]); the others are
    /// macrotasks in both kinds of main script, since a module's top-level
    /// code cannot resume after the loop has run without top-level await,
    /// which the language does not have.
    pub fn run_main(&mut self, scenario: &Scenario) {
        let global = Env::default();
        self.gc.global = Some(global.clone());
        let module = scenario.uses(Directive::Module);
        let mut aborted = false;
        // The parts run from the scenario's statements, uncopied.
        let main = std::sync::Arc::clone(&scenario.body);
        let mut start = 0;
        loop {
            let end = main[start..]
                .iter()
                .position(|stmt| matches!(stmt, Stmt::Run(_)))
                .map_or(main.len(), |at| start + at);
            let mode = match main.get(end) {
                Some(Stmt::Run(mode)) => Some(*mode),
                _ => None,
            };
            let segment = start..end;
            let first = segment.start == 0;
            start = end + 1;
            if !aborted && !self.stopped {
                let (main, env) = (std::sync::Arc::clone(&main), global.clone());
                let captures = crate::gc::Captures::Exactly {
                    values: Vec::new(),
                    envs: vec![global.clone()],
                };
                let task = Task::Captured(
                    Box::new(move |rt: &mut Runtime<L>| {
                        let body = &main[segment];
                        // A part of the main script pays for its statements up
                        // front, as a callback does (RunConfig::work).
                        if !rt.charge(nodesem_lang::statement_cost(body)) {
                            return Ok(Value::Undefined);
                        }
                        let result = rt.exec_stmts(body, &env).map(|_| Value::Undefined);
                        // MODEL: the main script goes on after a `run` in the
                        // frame it left off in, as a module's code after an
                        // `await` does (its reaction keeps the frame).
                        rt.main_frame = rt.frame.clone();
                        result
                    }),
                    captures,
                );
                if module && first {
                    aborted = self.evaluate_module(task);
                } else {
                    let mut task = Some(task);
                    // A segment is a phase of one macrotask. MODEL: an
                    // exception at the top level is reported like Node's
                    // uncaughtException handler sees a CommonJS module's
                    // top-level throw, and the rest of the main script never
                    // runs.
                    let pending = std::cell::Cell::new(true);
                    let self_main_frame = self.main_frame.clone();
                    aborted = self.run_phase(
                        |_, _| pending.get(),
                        |_| {
                            pending.set(false);
                            Some((self_main_frame.clone(), task.take()?))
                        },
                    );
                }
            }
            match mode {
                Some(RunMode::Turn) => self.iteration(),
                Some(RunMode::Idle) => self.run_until_idle(),
                Some(RunMode::Advance(ms)) => self.run_advance(ms),
                None => {
                    self.run_until_idle();
                    return;
                }
            }
        }
    }
}

/// How many microtask jobs a top-level throw of an ES module main script
/// takes to reach `uncaughtException` on Node 26.12.1, the first queued at
/// the throw (see [`Runtime::evaluate_module`]).
pub const MODULE_THROW_HOPS: u32 = 4;

/// A timer's delay as Node takes it: below 1, or above 2^31-1, it is 1 ms.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/timers.js#L225-L243>
fn clamp_delay(ms: u32) -> u64 {
    if ms < 1 || ms > i32::MAX as u32 {
        1
    } else {
        u64::from(ms)
    }
}
