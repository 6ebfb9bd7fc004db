//! The scenario interpreter: statements, expressions and the runtime's own
//! operations (the event loop and promises). Library operations go to the
//! [`Library`].
//!
//! Each construct does what the JavaScript that `nodesem emit-js` prints for
//! it does; the language reference in `nodesem-lang` gives the mapping.

use std::rc::Rc;

use nodesem_lang::{Block, Callback, Expr, Op, Stmt};

use crate::value::{
    number_to_string, Completion, Env, ErrorClass, FunctionData, ObjectData, ObjectId, Value,
};
use crate::{Job, Library, Runtime, Task};

/// How a block finished.
pub enum Flow {
    /// It ran to its end.
    Normal,
    /// It executed `return`.
    Return(Value),
}

/// What identifies a callback body for [`crate::RunStats`]: a hash of its
/// statements. Generated bodies start with a `log` of a unique label, so
/// distinct bodies have distinct identities.
pub(crate) fn block_identity(block: &Block) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    block.hash(&mut hasher);
    hasher.finish()
}

/// The identities ([`block_identity`]) of the callback blocks a statement
/// list holds, nested ones included (`try` blocks are not callbacks, but
/// what they hold counts).
pub fn callback_blocks(body: &[Stmt], out: &mut std::collections::HashSet<u64>) {
    for stmt in body {
        for block in stmt.blocks() {
            if !matches!(stmt, Stmt::Try(_)) {
                out.insert(block_identity(block));
            }
            callback_blocks(&block.body, out);
        }
    }
}

/// A callback block as functions share it (see [`Runtime::make_function`]).
#[derive(Clone)]
pub(crate) struct CompiledBody {
    block: Rc<Block>,
    cost: u64,
    identity: u64,
}

/// What [`Runtime::exec_op`] records once an operation made its object.
enum AfterOp {
    /// Nothing.
    Nothing,
    /// The work weight of the signal `AbortSignal.any` returns.
    AnyWeight(u64),
    /// The signal of the Disposable `addAbortListener` returns.
    DisposableOf(Value),
}

/// The implicit parameter of a callback body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// A listener: `event`.
    Event,
    /// A fulfilment reaction: `value`.
    Value,
    /// A rejection reaction: `reason`.
    Reason,
    /// None.
    None,
}

impl Param {
    fn name(self) -> Option<&'static str> {
        match self {
            Param::Event => Some("event"),
            Param::Value => Some("value"),
            Param::Reason => Some("reason"),
            Param::None => None,
        }
    }
}

impl<L: Library> Runtime<L> {
    /// Charges the work an operation does beyond its statement
    /// ([`nodesem_lang::RunConfig::work`]): the listener lists it walks and
    /// the signals `AbortSignal.any` visits. The operands involved are
    /// evaluated here as well as by the operation; they have no side effects,
    /// and one that throws throws the same error first, as the emitted
    /// JavaScript's `$.listeners(...)` does before the call.
    fn charge_op(&mut self, op: &Op, env: &Env) -> Result<AfterOp, Value> {
        let mut after = AfterOp::Nothing;
        let steps = match op {
            Op::AddEventListener {
                target,
                event_type,
                options,
                ..
            } => {
                let mut steps = self.listeners_of(target, event_type, env)?;
                if let Some(signal) = &options.signal {
                    steps += self.listeners_of(signal, "abort", env)?;
                }
                steps
            }
            Op::RemoveEventListener {
                target, event_type, ..
            }
            | Op::Dispatch {
                target, event_type, ..
            } => self.listeners_of(target, event_type, env)?,
            Op::SetOnAbort { signal, .. } => self.listeners_of(signal, "abort", env)?,
            Op::AddAbortListener { signal, .. } => {
                let s = self.eval(signal, env)?;
                let steps = match &s {
                    Value::Object(id) => L::listener_count(self, *id, "abort"),
                    _ => 0,
                };
                after = AfterOp::DisposableOf(s);
                steps
            }
            Op::Dispose { disposable } => {
                let d = self.eval(disposable, env)?;
                match d.as_object().and_then(|d| self.disposable_signals.get(&d)) {
                    Some(Value::Object(signal)) => L::listener_count(self, *signal, "abort"),
                    _ => 0,
                }
            }
            Op::SignalAny { signals } => {
                let mut steps = 0;
                for signal in signals {
                    let s = self.eval(signal, env)?;
                    steps += s
                        .as_object()
                        .and_then(|s| self.any_weights.get(&s).copied())
                        .unwrap_or(1);
                }
                after = AfterOp::AnyWeight(steps);
                steps
            }
            _ => return Ok(after),
        };
        self.charge(steps);
        Ok(after)
    }

    /// The listener count of `event_type` on the value of `target`.
    fn listeners_of(&mut self, target: &Expr, event_type: &str, env: &Env) -> Result<u64, Value> {
        Ok(match self.eval(target, env)? {
            Value::Object(id) => L::listener_count(self, id, event_type),
            _ => 0,
        })
    }

    /// Records the weight of a signal `AbortSignal.any` returned: what its
    /// creation was charged, unless it came back already aborted (Node then
    /// returns a plain aborted signal, no composite). An `any` over a
    /// composite costs the composite's weight, a bound on the sources it
    /// flattens, without knowing how a library keeps them.
    fn record_any_weight(&mut self, signal: ObjectId, weight: u64) {
        let aborted = matches!(L::get(self, signal, "aborted"), Ok(Value::Bool(true)));
        if !aborted {
            self.any_weights.insert(signal, weight);
        }
    }

    /// Runs statements in `env`.
    pub fn exec_stmts(&mut self, stmts: &[Stmt], env: &Env) -> Result<Flow, Value> {
        for stmt in stmts {
            // Once stopped, nothing the rest could do is observable.
            if self.stopped() {
                return Ok(Flow::Normal);
            }
            if let Flow::Return(v) = self.exec_stmt(stmt, env)? {
                return Ok(Flow::Return(v));
            }
        }
        Ok(Flow::Normal)
    }

    /// Runs a callback's body; its value is what `return` gave, or undefined.
    pub(crate) fn exec_callback_body(&mut self, body: &Block, env: &Env) -> Completion {
        match self.exec_stmts(&body.body, env)? {
            Flow::Normal => Ok(Value::Undefined),
            Flow::Return(v) => Ok(v),
        }
    }

    fn exec_stmt(&mut self, stmt: &Stmt, env: &Env) -> Result<Flow, Value> {
        match stmt {
            Stmt::Comment(_) | Stmt::Run(_) => {}
            Stmt::Let { name, op } => {
                let v = self.exec_op(op, env)?;
                env.define(name, v);
            }
            Stmt::Do(op) => {
                self.exec_op(op, env)?;
            }
            Stmt::Log(exprs) => {
                let mut parts = Vec::with_capacity(exprs.len());
                for e in exprs {
                    let v = self.eval(e, env)?;
                    parts.push(self.fmt(&v));
                }
                self.log_line(parts.join(" "));
            }
            Stmt::Try(block) => {
                let inner = env.child();
                match self.exec_stmts(&block.body, &inner) {
                    Ok(flow) => return Ok(flow),
                    Err(e) => {
                        let line = format!("caught {}", self.fmt(&e));
                        self.log_line(line);
                    }
                }
            }
            Stmt::Throw(e) => {
                let v = self.eval(e, env)?;
                return Err(v);
            }
            Stmt::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(e, env)?,
                    None => Value::Undefined,
                };
                return Ok(Flow::Return(v));
            }
        }
        Ok(Flow::Normal)
    }

    /// Evaluates an expression.
    pub fn eval(&mut self, expr: &Expr, env: &Env) -> Completion {
        Ok(match expr {
            Expr::Undefined => Value::Undefined,
            Expr::Null => Value::Null,
            Expr::Bool(b) => Value::Bool(*b),
            Expr::Int(i) => Value::Number(*i as f64),
            Expr::Str(s) => Value::string(s),
            Expr::Var(name) => env.lookup(name).unwrap_or(Value::Undefined),
            Expr::Prop(obj, prop) => {
                let obj = self.eval(obj, env)?;
                return self.get_property(&obj, prop);
            }
            Expr::NewError(msg) => self.new_error("Error", msg),
        })
    }

    /// Evaluates an expression that the parser checked is an object.
    pub fn eval_object(&mut self, expr: &Expr, env: &Env) -> Result<ObjectId, Value> {
        match self.eval(expr, env)? {
            Value::Object(id) => Ok(id),
            other => {
                let shown = self.fmt(&other);
                Err(self.new_error("TypeError", &format!("{shown} is not an object")))
            }
        }
    }

    /// `value[prop]`.
    pub fn get_property(&mut self, value: &Value, prop: &str) -> Completion {
        match value {
            Value::Undefined | Value::Null => Err(self.cannot_read_properties(value, prop)),
            Value::Object(id) => match self.heap.get(*id) {
                ObjectData::Error { name, message, .. } => Ok(match prop {
                    "name" => Value::String(name.clone()),
                    "message" => Value::String(message.clone()),
                    _ => Value::Undefined,
                }),
                ObjectData::Host => L::get(self, *id, prop),
                ObjectData::Function(_) if prop == "name" => Ok(Value::string("")),
                _ => Ok(Value::Undefined),
            },
            _ => Ok(Value::Undefined),
        }
    }

    /// V8's TypeError for reading `prop` (or calling a method named `prop`)
    /// on `value`: "Cannot read properties of undefined (reading 'type')".
    pub fn cannot_read_properties(&mut self, value: &Value, prop: &str) -> Value {
        let shown = self.fmt(value);
        self.new_error(
            "TypeError",
            &format!("Cannot read properties of {shown} (reading '{prop}')"),
        )
    }

    /// A new Error (or TypeError, RangeError) with this message.
    pub fn new_error(&mut self, name: &str, message: &str) -> Value {
        Value::Object(self.heap.alloc(ObjectData::Error {
            class: ErrorClass::Error,
            name: Rc::from(name),
            message: Rc::from(message),
        }))
    }

    /// A new DOMException, such as `new DOMException(message, 'AbortError')`.
    pub fn new_dom_exception(&mut self, message: &str, name: &str) -> Value {
        Value::Object(self.heap.alloc(ObjectData::Error {
            class: ErrorClass::DomException,
            name: Rc::from(name),
            message: Rc::from(message),
        }))
    }

    /// A script function with the given body, closing over `env`.
    pub fn make_function(&mut self, body: &Block, param: Param, env: &Env) -> ObjectId {
        let compiled = self.compiled_body(body);
        self.heap.alloc(ObjectData::Function(FunctionData::Script {
            body: compiled.block,
            param: param.name(),
            env: env.clone(),
            cost: compiled.cost,
            origin: compiled.identity,
        }))
    }

    /// The shared copy of a callback block, its statement cost and its
    /// identity, made once per block of the scenario, however many function
    /// objects a run makes from it (a listener added inside a listener that
    /// runs a thousand times).
    ///
    /// The cache is keyed by the block's address. That is sound because no
    /// block a function can be made from is freed during the run: such a
    /// block lies either in a part of the main script, which the runtime
    /// keeps (`Runtime::main`), or in the body of a function made
    /// earlier, which this cache keeps.
    fn compiled_body(&mut self, body: &Block) -> CompiledBody {
        let key = body as *const Block as usize;
        if let Some(found) = self.bodies.get(&key) {
            return found.clone();
        }
        let compiled = CompiledBody {
            block: Rc::new(body.clone()),
            cost: nodesem_lang::statement_cost(&body.body),
            // Hashing a block costs as much as running it: only for stats.
            identity: if self.collect_stats {
                block_identity(body)
            } else {
                0
            },
        };
        self.bodies.insert(key, compiled.clone());
        compiled
    }

    /// A callback argument as a function object: an inline block becomes a
    /// new function, a value is evaluated.
    pub fn callback_function(
        &mut self,
        cb: &Callback,
        param: Param,
        env: &Env,
    ) -> Result<ObjectId, Value> {
        match cb {
            Callback::Inline(block) => Ok(self.make_function(block, param, env)),
            Callback::Value(e) => self.eval_object(e, env),
        }
    }

    /// Whether a value is a function object.
    pub fn is_function(&self, v: &Value) -> bool {
        matches!(v, Value::Object(id) if matches!(self.heap.get(*id), ObjectData::Function(_)))
    }

    /// How the log prints a value (see the language reference).
    pub fn fmt(&self, v: &Value) -> String {
        match v {
            Value::Undefined => "undefined".into(),
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => number_to_string(*n),
            Value::String(s) => s.to_string(),
            Value::Object(id) => match self.heap.get(*id) {
                ObjectData::Error { name, message, .. } => format!("{name}: {message}"),
                ObjectData::Function(_) => "[Function]".into(),
                ObjectData::Promise(_) => "[Promise]".into(),
                ObjectData::Thenable(_)
                | ObjectData::Plain
                | ObjectData::Timer(_)
                | ObjectData::Immediate(_) => "[Object]".into(),
                ObjectData::Host => L::describe(self, *id),
            },
        }
    }

    /// Performs an operation: the library's, or the runtime's own.
    pub fn exec_op(&mut self, op: &Op, env: &Env) -> Completion {
        let after = self.charge_op(op, env)?;
        if let Some(result) = L::op(self, op, env) {
            if let Ok(Value::Object(made)) = &result {
                match after {
                    AfterOp::Nothing => {}
                    AfterOp::AnyWeight(weight) => self.record_any_weight(*made, weight),
                    AfterOp::DisposableOf(signal) => {
                        self.disposable_signals.insert(*made, signal);
                    }
                }
            }
            return result;
        }
        Ok(match op {
            Op::Value(e) => self.eval(e, env)?,
            Op::Function(block) => Value::Object(self.make_function(block, Param::Event, env)),
            Op::QueueMicrotask(block) => {
                let f = self.make_function(block, Param::None, env);
                self.enqueue_microtask(Job::Task(Task::Script(f)));
                Value::Undefined
            }
            Op::NextTick(block) => {
                let f = self.make_function(block, Param::None, env);
                self.next_tick(Task::Script(f));
                Value::Undefined
            }
            Op::SetTimeout { ms, body } => {
                let f = self.make_function(body, Param::None, env);
                let id = self.set_timeout(*ms, Task::Script(f), true);
                Value::Object(self.heap.alloc(ObjectData::Timer(id)))
            }
            Op::ClearTimeout { timer } => {
                let h = self.eval_object(timer, env)?;
                if let ObjectData::Timer(id) = self.heap.get(h) {
                    let id = *id;
                    self.clear_timeout(id);
                }
                Value::Undefined
            }
            Op::SetImmediate(block) => {
                let f = self.make_function(block, Param::None, env);
                let id = self.set_immediate(Task::Script(f));
                Value::Object(self.heap.alloc(ObjectData::Immediate(id)))
            }
            Op::ClearImmediate { immediate } => {
                let h = self.eval_object(immediate, env)?;
                if let ObjectData::Immediate(id) = self.heap.get(h) {
                    let id = *id;
                    self.clear_immediate(id);
                }
                Value::Undefined
            }
            Op::NewPromise => Value::Object(self.new_deferred()),
            Op::Resolve { promise, value } | Op::Reject { promise, value } => {
                let p = self.eval_object(promise, env)?;
                let v = match value {
                    Some(e) => self.eval(e, env)?,
                    None => Value::Undefined,
                };
                let (resolve, reject) = self
                    .deferred_resolvers(p)
                    .expect("the parser checked it is a deferred");
                let f = if matches!(op, Op::Resolve { .. }) {
                    resolve
                } else {
                    reject
                };
                self.call_function(f, Value::Undefined, &[v])?
            }
            Op::Then {
                promise,
                on_fulfilled,
                on_rejected,
            } => {
                let p = self.eval_object(promise, env)?;
                let f = on_fulfilled
                    .as_ref()
                    .map(|b| self.make_function(b, Param::Value, env));
                let r = on_rejected
                    .as_ref()
                    .map(|b| self.make_function(b, Param::Reason, env));
                Value::Object(self.promise_then(p, f, r))
            }
            Op::Catch {
                promise,
                on_rejected,
            } => {
                let p = self.eval_object(promise, env)?;
                let r = self.make_function(on_rejected, Param::Reason, env);
                Value::Object(self.promise_catch(p, r))
            }
            Op::Finally {
                promise,
                on_finally,
            } => {
                let p = self.eval_object(promise, env)?;
                let f = self.make_function(on_finally, Param::None, env);
                Value::Object(self.promise_finally(p, f))
            }
            Op::PromiseResolve { value } => {
                let v = self.eval(value, env)?;
                Value::Object(self.promise_resolve(v))
            }
            Op::PromiseReject { value } => {
                let v = self.eval(value, env)?;
                Value::Object(self.promise_reject_new(v))
            }
            Op::Thenable { value } => {
                let v = self.eval(value, env)?;
                Value::Object(self.heap.alloc(ObjectData::Thenable(v)))
            }
            other => {
                // The library declined an operation only it can perform.
                let e = self.new_error(
                    "Error",
                    &format!("nodesem: the library does not implement {other:?}"),
                );
                return Err(e);
            }
        })
    }
}
