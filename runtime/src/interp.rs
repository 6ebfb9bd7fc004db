//! The scenario interpreter: statements, expressions and the runtime's own
//! operations (the event loop and promises). Library operations go to the
//! [`Library`].
//!
//! Each construct does what the JavaScript that `nodesem emit-js` prints for
//! it does; the language reference in `nodesem-lang` gives the mapping.

use std::rc::Rc;

use nodesem_lang::{
    Block, BytesInit, Callback, Class, EventAttribute, Expr, Handler, Op, PipeOptions, Stmt,
    Strategy, Temporary,
};

use crate::value::{
    Completion, Env, ErrorClass, FunctionData, ObjectData, ObjectId, Symbol, Value,
};
use crate::{
    HostClass, Job, Library, QueuingStrategy, Runtime, StreamPipeOptions, Task, Transformer,
    UnderlyingSink, UnderlyingSource,
};

/// How many arrays and `allSettled` records deep the log prints a value's
/// contents (`Array(Array([Array]))`), as `util.inspect` stops at a depth.
pub const FMT_MAX_DEPTH: usize = 2;

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
/// list holds, nested ones included (`try` and `repeat` blocks are not
/// callbacks, but what they hold counts).
pub fn callback_blocks(body: &[Stmt], out: &mut std::collections::HashSet<u64>) {
    for stmt in body {
        for block in stmt.blocks() {
            if !matches!(stmt, Stmt::Try(_) | Stmt::Repeat { .. } | Stmt::If { .. }) {
                out.insert(block_identity(block));
            }
            callback_blocks(block.body(), out);
        }
    }
}

pub use nodesem_lang::ast::dom_exception_code;

/// SameValue(a, b) (ECMA-262, 7.2.9), which `Object.is` returns: numbers
/// are the same when both are NaN, or equal with the same sign (so 0 and
/// -0 differ); objects when they are the same object.
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            (x.is_nan() && y.is_nan()) || (x == y && x.is_sign_negative() == y.is_sign_negative())
        }
        _ => a == b,
    }
}

/// SameValueZero (ECMA-262 7.2.11): SameValue, except that +0 and -0 are
/// the same; what a Set compares its elements with.
pub fn same_value_zero(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => (x.is_nan() && y.is_nan()) || x == y,
        _ => a == b,
    }
}

/// The implicit parameter of a callback body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// A listener: `event`.
    Event,
    /// A fulfilment reaction: `value`.
    Value,
    /// A rejection reaction, or a stream source's `cancel`: `reason`.
    Reason,
    /// A stream source's `start` or `pull`, a sink's `start`, a
    /// transformer's `start` or `flush`: `controller`.
    Controller,
    /// A strategy's `size`: `chunk`.
    Chunk,
    /// A sink's `write` or a transformer's `transform`: `chunk`, then
    /// `controller`.
    ChunkController,
    /// A FinalizationRegistry's cleanup callback: `held`.
    Held,
    /// An EventEmitter's listener: its first two arguments, `arg1` and
    /// `arg2`.
    Args,
    /// None.
    None,
}

impl Param {
    fn name(self) -> Option<&'static str> {
        match self {
            Param::Event => Some("event"),
            Param::Value => Some("value"),
            Param::Reason => Some("reason"),
            Param::Controller => Some("controller"),
            Param::Chunk | Param::ChunkController => Some("chunk"),
            Param::Held => Some("held"),
            Param::Args => Some("arg1"),
            Param::None => None,
        }
    }

    fn second(self) -> Option<&'static str> {
        match self {
            Param::ChunkController => Some("controller"),
            Param::Args => Some("arg2"),
            _ => None,
        }
    }
}

impl<L: Library> Runtime<L> {
    /// Charges the work of walking these listener lists
    /// ([`nodesem_lang::RunConfig::work`]): each is a target's list of one
    /// event type, counted as [`Library::listener_count`] counts it; a value
    /// that is not an object has none. It is charged after the operands are
    /// evaluated and before the operation runs, as the emitted JavaScript's
    /// `$.charge($.listeners(...))` is. Returns whether the scenario may go
    /// on.
    fn charge_listeners(&mut self, lists: &[(&Value, &str)]) -> bool {
        let mut steps = 0;
        for (target, event_type) in lists {
            if let Value::Object(id) = target {
                steps += L::listener_count(self, *id, event_type);
            }
        }
        self.charge(steps)
    }

    /// Evaluates the receiver of a method call, `receiver.method(...)`:
    /// undefined and null throw V8's TypeError before any argument is
    /// evaluated.
    fn receiver(&mut self, expr: &Expr, method: &str, env: &Env) -> Completion {
        let value = self.eval(expr, env)?;
        if matches!(value, Value::Undefined | Value::Null) {
            return Err(self.cannot_read_properties(&value, method));
        }
        Ok(value)
    }

    /// Evaluates an argument that may be left out.
    fn eval_optional(&mut self, expr: &Option<Expr>, env: &Env) -> Result<Option<Value>, Value> {
        expr.as_ref().map(|e| self.eval(e, env)).transpose()
    }

    /// A listener argument: an inline block becomes a new function (that
    /// sees `event`); a value is evaluated, and the library validates it
    /// (a string is no listener).
    fn listener_value(&mut self, cb: &Callback, env: &Env) -> Completion {
        match cb {
            Callback::Inline(block) => {
                Ok(Value::Object(self.make_function(block, Param::Event, env)))
            }
            Callback::Value(e) => self.eval(e, env),
        }
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

    /// Runs statements in `env`, which is a root of the collector while
    /// they run.
    pub fn exec_stmts(&mut self, stmts: &[Stmt], env: &Env) -> Result<Flow, Value> {
        // A block that declares nothing runs in its parent's frame, which
        // is a root already (a call's frame too, pushed by the call).
        if self.gc.frames.last().is_some_and(|top| top.same(env)) {
            return self.exec_stmts_in(stmts, env);
        }
        self.gc.frames.push(env.clone());
        let result = self.exec_stmts_in(stmts, env);
        self.gc.frames.pop();
        result
    }

    fn exec_stmts_in(&mut self, stmts: &[Stmt], env: &Env) -> Result<Flow, Value> {
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
        match self.exec_stmts(body.body(), env)? {
            Flow::Normal => Ok(Value::Undefined),
            Flow::Return(v) => Ok(v),
        }
    }

    pub(crate) fn exec_stmt(&mut self, stmt: &Stmt, env: &Env) -> Result<Flow, Value> {
        match stmt {
            // A directive was read before the script began (Runtime::run_main).
            Stmt::Comment(_) | Stmt::Run(_) | Stmt::Use(_) => {}
            Stmt::Drop(e) => {
                // `NAME = undefined`.
                if let Expr::Var(binding) = e {
                    env.assign(&binding.name, Value::Undefined);
                }
            }
            Stmt::Gc => {
                self.collect_garbage();
            }
            Stmt::Watch(e) => {
                let value = self.eval(e, env)?;
                let label = nodesem_lang::printer::expr_text(e);
                self.watch(&label, value)?;
            }
            Stmt::Alive => {
                let line = self.alive_line();
                self.log_line(line);
            }
            Stmt::Let { name, op } => {
                let v = self.exec_op(op, env)?;
                env.define(name, v);
            }
            Stmt::Tee { branches, stream } => {
                let stream = self.receiver(stream, "tee", env)?;
                let pair = L::readable_tee(self, stream)?;
                let items = match pair {
                    Value::Object(id) => match self.heap.get(id) {
                        ObjectData::Array(items) if items.len() == 2 => Some(items.clone()),
                        _ => None,
                    },
                    _ => None,
                };
                let Some(items) = items else {
                    // `const [a, b] = x` of a value that is no pair: the
                    // libraries always return one.
                    return Err(self.new_error("TypeError", "tee did not return two branches"));
                };
                env.define(&branches[0], items[0].clone());
                env.define(&branches[1], items[1].clone());
            }
            Stmt::Do(op) => {
                self.exec_op(op, env)?;
            }
            Stmt::Log(exprs) => {
                // Most lines fit: growing a string from empty reallocates
                // it three or four times.
                let mut line = String::with_capacity(64);
                for (i, e) in exprs.iter().enumerate() {
                    if i > 0 {
                        line.push(' ');
                    }
                    match e {
                        // A literal prints as itself: no value is made.
                        Expr::Str(s) => line.push_str(s),
                        e => {
                            let v = self.eval(e, env)?;
                            self.fmt_into(&mut line, &v);
                        }
                    }
                }
                self.log_line(line);
            }
            Stmt::Try(block) => {
                let inner = env.block_scope(block);
                match self.exec_stmts(block.body(), &inner) {
                    Ok(flow) => return Ok(flow),
                    Err(e) => {
                        let line = format!("caught {}", self.fmt(&e));
                        self.log_line(line);
                    }
                }
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                let cond = self.eval(cond, env)?;
                let block = if cond.to_boolean() {
                    Some(then)
                } else {
                    otherwise.as_ref()
                };
                if let Some(block) = block {
                    return self.exec_stmts(block.body(), &env.block_scope(block));
                }
            }
            Stmt::Repeat { count, body } => {
                // `for (let i = 0; i < N; i++) { ... }`: a new scope each
                // time round; `return` leaves the callback around it.
                for _ in 0..*count {
                    if self.stopped() {
                        break;
                    }
                    if let Flow::Return(v) = self.exec_stmts(body.body(), &env.block_scope(body))? {
                        return Ok(Flow::Return(v));
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
            Expr::Number(n) => Value::Number(n.value()),
            Expr::Symbol(description) => {
                Value::Symbol(Symbol::new(description.as_deref().unwrap_or("")))
            }
            Expr::Object => Value::Object(self.heap.alloc(ObjectData::Plain)),
            Expr::ConstructorName(a) => {
                let a = self.eval(a, env)?;
                return self.constructor_name(&a);
            }
            Expr::ClassConstant(class, name) => Value::Number(f64::from(
                nodesem_lang::ast::class_constant(*class, name).unwrap_or_default(),
            )),
            Expr::Str(s) => Value::string(s),
            Expr::Var(binding) => {
                let hinted = binding
                    .place
                    .and_then(|place| env.lookup_at(place, &binding.name));
                debug_assert!(
                    hinted.as_ref().is_none_or(|v| env
                        .lookup(&binding.name)
                        .is_some_and(|found| same_value(v, &found))),
                    "`{}` at {:?} is not the binding a search finds",
                    binding.name,
                    binding.place,
                );
                match hinted {
                    Some(value) => value,
                    None => env.lookup(&binding.name).unwrap_or(Value::Undefined),
                }
            }
            Expr::Prop(obj, prop) => {
                let obj = self.eval(obj, env)?;
                return self.get_property(&obj, prop);
            }
            Expr::NewError(msg) => self.new_error("Error", msg),
            Expr::NewBuiltinError { class, message } => self.new_error(class.name(), message),
            Expr::NewDomException { message, name } => self.new_dom_exception(message, name),
            Expr::This => env.this(),
            Expr::ArgumentCount => Value::Number(f64::from(env.argument_count())),
            Expr::ErrorMonitor => L::error_monitor(self),
            Expr::DefaultMaxListeners => L::default_max_listeners(self),
            Expr::Add(a, b) | Expr::Less(a, b) => {
                let x = self.eval(a, env)?;
                let y = self.eval(b, env)?;
                let add = matches!(expr, Expr::Add(..));
                return self.primitive_operator(add, &x, &y);
            }
            Expr::Same(a, b) => {
                let a = self.eval(a, env)?;
                let b = self.eval(b, env)?;
                Value::Bool(same_value(&a, &b))
            }
            Expr::TypeOf(a) => {
                let a = self.eval(a, env)?;
                Value::string(self.type_of(&a))
            }
            Expr::Temporary(t) => match &**t {
                Temporary::Timeout(ms) => L::abort_signal_timeout(self, *ms)?,
                Temporary::Any { signals, from_set } => self.signal_any(signals, *from_set, env)?,
            },
            Expr::InstanceOf(a, class) => {
                let a = self.eval(a, env)?;
                Value::Bool(self.instance_of(&a, *class))
            }
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
                ObjectData::Error {
                    class,
                    name,
                    message,
                } => Ok(match prop {
                    "name" => Value::String(name.clone()),
                    "message" => Value::String(message.clone()),
                    "code" if *class == ErrorClass::DomException => {
                        Value::Number(f64::from(dom_exception_code(name)))
                    }
                    "code" => match class {
                        ErrorClass::Node { code } => Value::string(code),
                        _ => Value::Undefined,
                    },
                    "errors" => match class {
                        ErrorClass::Aggregate { errors } => Value::Object(*errors),
                        _ => Value::Undefined,
                    },
                    // Web IDL puts an interface's constants on its prototype
                    // too: every DOMException has ABORT_ERR and the rest.
                    constant if *class == ErrorClass::DomException => {
                        match nodesem_lang::ast::class_constant(Class::DomException, constant) {
                            Some(v) => Value::Number(f64::from(v)),
                            None => Value::Undefined,
                        }
                    }
                    _ => Value::Undefined,
                }),
                ObjectData::Host => L::get(self, *id, prop),
                ObjectData::ListenerObject { handle_event } if prop == "handleEvent" => {
                    Ok(Value::Object(*handle_event))
                }
                ObjectData::Resolvers { promise } => {
                    let promise = *promise;
                    let (resolve, reject) = self
                        .deferred_resolvers(promise)
                        .expect("withResolvers keeps its functions");
                    Ok(match prop {
                        "promise" => Value::Object(promise),
                        "resolve" => Value::Object(resolve),
                        "reject" => Value::Object(reject),
                        _ => Value::Undefined,
                    })
                }
                ObjectData::Function(_) if prop == "name" => Ok(Value::string("")),
                ObjectData::AsyncGenerator(_)
                | ObjectData::ArrayIterator(_)
                | ObjectData::AsyncFromSyncIterator(_) => {
                    let id = *id;
                    Ok(self.iterator_method(id, prop).unwrap_or(Value::Undefined))
                }
                ObjectData::IterResult { value, done } => Ok(match prop {
                    "value" => value.clone(),
                    "done" => Value::Bool(*done),
                    _ => Value::Undefined,
                }),
                ObjectData::Uint8Array(view) => {
                    let view = *view;
                    Ok(match prop {
                        "byteLength" | "length" => Value::Number(self.view_length(view) as f64),
                        "byteOffset" => Value::Number(self.view_byte_offset(view) as f64),
                        _ => Value::Undefined,
                    })
                }
                _ => Ok(Value::Undefined),
            },
            _ => Ok(Value::Undefined),
        }
    }

    /// `value.constructor.name`: the name of the constructor on the value's
    /// prototype chain ([`Runtime::class_name`] for an object). Undefined
    /// and null have no `constructor`, and the null-prototype Disposable's
    /// `constructor` is undefined: V8's TypeErrors.
    pub fn constructor_name(&mut self, value: &Value) -> Completion {
        let name: Rc<str> = match value {
            Value::Undefined | Value::Null => {
                return Err(self.cannot_read_properties(value, "constructor"))
            }
            Value::Bool(_) => Rc::from("Boolean"),
            Value::Number(_) => Rc::from("Number"),
            Value::String(_) => Rc::from("String"),
            Value::Symbol(_) => Rc::from("Symbol"),
            Value::Object(id) => match self.class_name(*id) {
                Some(name) => name,
                None => return Err(self.cannot_read_properties(&Value::Undefined, "name")),
            },
        };
        Ok(Value::String(name))
    }

    /// The name of the constructor on an object's prototype chain, as the
    /// pinned Node 26.12.1 gives it (`object.constructor.name`), or `None`
    /// for the null-prototype Disposable, which has no constructor. Node's
    /// coded errors are made by their built-in class (`TypeError`); a timer
    /// is a `Timeout` and an immediate an `Immediate`, as Node's handles (and
    /// the prelude's virtual ones) are. What Node's
    /// `determineSpecificType` calls "an instance of" and V8's
    /// `NoSideEffectsToString` writes as `#<...>`.
    pub fn class_name(&self, id: ObjectId) -> Option<Rc<str>> {
        Some(match self.heap.get(id) {
            ObjectData::Error { class, name, .. } => match class {
                ErrorClass::DomException => Rc::from("DOMException"),
                ErrorClass::Aggregate { .. } => Rc::from("AggregateError"),
                ErrorClass::Error | ErrorClass::Node { .. } => name.clone(),
            },
            ObjectData::Function(FunctionData::Script { is_async: true, .. }) => {
                Rc::from("AsyncFunction")
            }
            ObjectData::Function(_) => Rc::from("Function"),
            ObjectData::Promise(_) => Rc::from("Promise"),
            ObjectData::Array(_) => Rc::from("Array"),
            ObjectData::ArrayBuffer(_) => Rc::from("ArrayBuffer"),
            ObjectData::Uint8Array(_) => Rc::from("Uint8Array"),
            ObjectData::Timer(_) => Rc::from("Timeout"),
            ObjectData::Immediate(_) => Rc::from("Immediate"),
            ObjectData::WeakRef(_) => Rc::from("WeakRef"),
            ObjectData::FinalizationRegistry(_) => Rc::from("FinalizationRegistry"),
            ObjectData::Collected => panic!("invariant: a collected object {id:?} was read"),
            // %AsyncGeneratorPrototype%.constructor is
            // %AsyncGeneratorFunction.prototype%, an object whose `name` is
            // Function.prototype's, the empty string.
            ObjectData::AsyncGenerator(_) => Rc::from(""),
            ObjectData::ArrayIterator(_)
            | ObjectData::AsyncFromSyncIterator(_)
            | ObjectData::Thenable { .. }
            | ObjectData::Settled { .. }
            | ObjectData::IterResult { .. }
            | ObjectData::ListenerObject { .. }
            | ObjectData::Resolvers { .. }
            | ObjectData::Plain => Rc::from("Object"),
            ObjectData::Host => Rc::from(L::host_class(self, id).constructor_name()?),
        })
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

    /// A new AggregateError with V8's message for `Promise.any`, and an
    /// `errors` array of these values.
    pub fn new_aggregate_error(&mut self, errors: Vec<Value>) -> Value {
        let Value::Object(errors) = self.create_array_from_list(errors) else {
            unreachable!("an array is an object")
        };
        Value::Object(self.heap.alloc(ObjectData::Error {
            class: ErrorClass::Aggregate { errors },
            name: Rc::from("AggregateError"),
            message: Rc::from("All promises were rejected"),
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
        self.make_script_function(body, param, env, false)
    }

    /// A script function, async or not.
    pub fn make_script_function(
        &mut self,
        body: &Block,
        param: Param,
        env: &Env,
        is_async: bool,
    ) -> ObjectId {
        // Hashing a block costs as much as running it: only for stats.
        let origin = if self.collect_stats {
            block_identity(body)
        } else {
            0
        };
        self.heap.alloc(ObjectData::Function(FunctionData::Script {
            body: body.clone(),
            param: param.name(),
            second: param.second(),
            env: env.clone(),
            origin,
            is_async,
        }))
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

    /// `add A B` and `less A B`: JavaScript's `+` (13.15.3
    /// ApplyStringOrNumericBinaryOperator) and `<` (7.2.13
    /// IsLessThan) on primitive values. An object operand would need
    /// ToPrimitive, whose result (a function's source text, say) the engines
    /// do not share: every engine throws the same TypeError instead (the
    /// prelude's `$.add` and `$.less`).
    pub fn primitive_operator(&mut self, add: bool, x: &Value, y: &Value) -> Completion {
        if matches!(x, Value::Object(_)) || matches!(y, Value::Object(_)) {
            let op = if add { "add" } else { "less" };
            return Err(self.new_error(
                "TypeError",
                &format!("nodesem: `{op}` takes primitive values"),
            ));
        }
        let number = |v: &Value| match v {
            Value::Undefined => f64::NAN,
            Value::Null => 0.0,
            Value::Bool(b) => f64::from(u8::from(*b)),
            Value::Number(n) => *n,
            Value::String(s) => string_to_number(s),
            Value::Symbol(_) | Value::Object(_) => unreachable!("refused before"),
        };
        // ToString and ToNumber of a Symbol throw (7.1.17 step 2, 7.1.4
        // step 2), with V8's messages; the left operand converts first.
        let symbol = |rt: &mut Self, to: &str| {
            Err(rt.new_error(
                "TypeError",
                &format!("Cannot convert a Symbol value to a {to}"),
            ))
        };
        Ok(if add {
            match (x, y) {
                (Value::String(_), _) | (_, Value::String(_)) => {
                    if matches!(x, Value::Symbol(_)) || matches!(y, Value::Symbol(_)) {
                        return symbol(self, "string");
                    }
                    let mut out = self.fmt(x);
                    self.fmt_into(&mut out, y);
                    Value::string(&out)
                }
                (Value::Symbol(_), _) | (_, Value::Symbol(_)) => return symbol(self, "number"),
                _ => Value::Number(number(x) + number(y)),
            }
        } else {
            match (x, y) {
                // Two strings compare by UTF-16 code units.
                (Value::String(a), Value::String(b)) => {
                    Value::Bool(a.encode_utf16().lt(b.encode_utf16()))
                }
                (Value::Symbol(_), _) | (_, Value::Symbol(_)) => return symbol(self, "number"),
                _ => Value::Bool(number(x) < number(y)),
            }
        })
    }

    /// `typeof value` (ECMA-262, 13.5.3.1, table "typeof Operator Results").
    pub fn type_of(&self, value: &Value) -> &'static str {
        match value {
            Value::Undefined => "undefined",
            Value::Null => "object",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Symbol(_) => "symbol",
            Value::Object(_) if self.is_function(value) => "function",
            Value::Object(_) => "object",
        }
    }

    /// `value instanceof class` (ECMA-262, 13.10.2, InstanceofOperator): for
    /// these built-in constructors, whether `class.prototype` is on the
    /// value's prototype chain. The chains are Node 26's: an AbortSignal is
    /// an EventTarget; every error, a DOMException included, is an Error;
    /// an error's own class is the constructor that made it (its `name`
    /// here, which scripts cannot change); the Disposable of
    /// `addAbortListener` has a null prototype, so it is not an Object.
    pub fn instance_of(&self, value: &Value, class: Class) -> bool {
        let Value::Object(id) = value else {
            return false;
        };
        match self.heap.get(*id) {
            ObjectData::Error {
                class: error_class,
                name,
                ..
            } => match class {
                Class::Object | Class::Error => true,
                Class::DomException => *error_class == ErrorClass::DomException,
                Class::TypeError | Class::RangeError => {
                    matches!(error_class, ErrorClass::Error | ErrorClass::Node { .. })
                        && **name == *class.name()
                }
                Class::AggregateError => matches!(error_class, ErrorClass::Aggregate { .. }),
                _ => false,
            },
            ObjectData::Function(_) => matches!(class, Class::Function | Class::Object),
            ObjectData::Promise(_) => matches!(class, Class::Promise | Class::Object),
            ObjectData::Array(_) => matches!(class, Class::Array | Class::Object),
            ObjectData::ArrayBuffer(_) | ObjectData::Uint8Array(_) => class == Class::Object,
            ObjectData::Thenable { .. }
            | ObjectData::AsyncGenerator(_)
            | ObjectData::ArrayIterator(_)
            | ObjectData::AsyncFromSyncIterator(_)
            | ObjectData::Settled { .. }
            | ObjectData::IterResult { .. }
            | ObjectData::ListenerObject { .. }
            | ObjectData::Resolvers { .. }
            | ObjectData::Timer(_)
            | ObjectData::Immediate(_)
            | ObjectData::WeakRef(_)
            | ObjectData::FinalizationRegistry(_)
            | ObjectData::Plain => class == Class::Object,
            ObjectData::Collected => panic!("invariant: a collected object {id:?} was read"),
            ObjectData::Host => match (L::host_class(self, *id), class) {
                (HostClass::Disposable, _) => false,
                (_, Class::Object) => true,
                (HostClass::AbortSignal, Class::AbortSignal | Class::EventTarget) => true,
                (HostClass::AbortController, Class::AbortController)
                | (HostClass::EventTarget, Class::EventTarget)
                | (HostClass::Event(_) | HostClass::CustomEvent(_), Class::Event) => true,
                _ => false,
            },
        }
    }

    /// Whether a value is a function object.
    pub fn is_function(&self, v: &Value) -> bool {
        matches!(v, Value::Object(id) if matches!(self.heap.get(*id), ObjectData::Function(_)))
    }

    /// How the log prints a value (see the language reference).
    pub fn fmt(&self, v: &Value) -> String {
        let mut out = String::new();
        self.fmt_into(&mut out, v);
        out
    }

    /// [`Runtime::fmt`], appended to `out`.
    pub fn fmt_into(&self, out: &mut String, v: &Value) {
        self.fmt_nested(out, v, 0);
    }

    /// [`Runtime::fmt_into`] of a value `depth` arrays or records deep:
    /// past [`FMT_MAX_DEPTH`] they print as `[Array]` and `[Object]`, so
    /// that no chain of arrays, however long, recurses deeper.
    fn fmt_nested(&self, out: &mut String, v: &Value, depth: usize) {
        match v {
            Value::Undefined => out.push_str("undefined"),
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => nodesem_lang::write_number(out, *n),
            Value::String(s) => out.push_str(s),
            Value::Symbol(s) => out.push_str(&s.descriptive_string()),
            Value::Object(id) => match self.heap.get(*id) {
                ObjectData::Error { name, message, .. } => {
                    out.push_str(name);
                    out.push_str(": ");
                    out.push_str(message);
                }
                ObjectData::Function(_) => out.push_str("[Function]"),
                ObjectData::Promise(_) => out.push_str("[Promise]"),
                ObjectData::Array(_)
                | ObjectData::Settled { .. }
                | ObjectData::IterResult { .. }
                    if depth >= FMT_MAX_DEPTH =>
                {
                    out.push_str(if matches!(self.heap.get(*id), ObjectData::Array(_)) {
                        "[Array]"
                    } else {
                        "[Object]"
                    });
                }
                ObjectData::Array(items) => {
                    out.push_str("Array(");
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        self.fmt_nested(out, item, depth + 1);
                    }
                    out.push(')');
                }
                ObjectData::Uint8Array(view) => {
                    out.push_str("Uint8Array(");
                    for (i, b) in self.view_bytes(*view).iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        out.push_str(&b.to_string());
                    }
                    out.push(')');
                }
                ObjectData::ArrayBuffer(_) => out.push_str("[ArrayBuffer]"),
                ObjectData::IterResult { value, done } => {
                    out.push_str("{value: ");
                    self.fmt_nested(out, value, depth + 1);
                    out.push_str(if *done {
                        ", done: true}"
                    } else {
                        ", done: false}"
                    });
                }
                ObjectData::Settled { fulfilled, value } => {
                    out.push_str(if *fulfilled {
                        "{status: fulfilled, value: "
                    } else {
                        "{status: rejected, reason: "
                    });
                    self.fmt_nested(out, value, depth + 1);
                    out.push('}');
                }
                // `Object.prototype.toString` reads their
                // `Symbol.toStringTag`.
                ObjectData::AsyncGenerator(_) => out.push_str("[AsyncGenerator]"),
                ObjectData::ArrayIterator(_) => out.push_str("[Array Iterator]"),
                ObjectData::AsyncFromSyncIterator(_) => out.push_str("[Object]"),
                ObjectData::WeakRef(_) => out.push_str("[WeakRef]"),
                ObjectData::FinalizationRegistry(_) => out.push_str("[FinalizationRegistry]"),
                ObjectData::Collected => panic!("invariant: a collected object {id:?} was read"),
                ObjectData::Thenable { .. }
                | ObjectData::ListenerObject { .. }
                | ObjectData::Resolvers { .. }
                | ObjectData::Plain
                | ObjectData::Timer(_)
                | ObjectData::Immediate(_) => out.push_str("[Object]"),
                ObjectData::Host => match L::host_class(self, *id) {
                    HostClass::Event(event_type) | HostClass::CustomEvent(event_type) => {
                        out.push_str("Event(");
                        out.push_str(&event_type);
                        out.push(')');
                    }
                    // The Disposable, `{ __proto__: null, ... }`, is
                    // `[Object]`.
                    class => {
                        out.push('[');
                        out.push_str(class.tag().unwrap_or("Object"));
                        out.push(']');
                    }
                },
            },
        }
    }

    /// Performs an operation: its operands evaluated here, once, in
    /// JavaScript's order, then the library's method or the runtime's own
    /// event loop and promises.
    pub fn exec_op(&mut self, op: &Op, env: &Env) -> Completion {
        Ok(match op {
            // ---- abort: the library's ----
            Op::NewController => L::new_abort_controller(self)?,
            Op::Abort { controller, reason } => {
                let controller = self.receiver(controller, "abort", env)?;
                let reason = self.eval_optional(reason, env)?;
                L::abort(self, controller, reason)?
            }
            Op::SignalAbort { reason } => {
                let reason = self.eval_optional(reason, env)?;
                L::abort_signal_abort(self, reason)?
            }
            Op::SignalTimeout { ms } => L::abort_signal_timeout(self, *ms)?,
            Op::SignalAny { signals, from_set } => self.signal_any(signals, *from_set, env)?,
            Op::ThrowIfAborted { signal } => {
                let signal = self.receiver(signal, "throwIfAborted", env)?;
                L::throw_if_aborted(self, signal)?
            }
            Op::NewWeakRef { target } => {
                let target = self.eval(target, env)?;
                self.new_weak_ref(target)?
            }
            Op::Deref { weak_ref } => {
                let weak_ref = self.receiver(weak_ref, "deref", env)?;
                self.weak_ref_deref(&weak_ref)?
            }
            Op::NewRegistry(cleanup) => {
                let cleanup = match cleanup {
                    Callback::Inline(block) => {
                        Value::Object(self.make_function(block, Param::Held, env))
                    }
                    Callback::Value(e) => self.eval(e, env)?,
                };
                self.new_finalization_registry(cleanup)?
            }
            Op::Register {
                registry,
                target,
                held,
                token,
            } => {
                let registry = self.receiver(registry, "register", env)?;
                let target = self.eval(target, env)?;
                let held = self.eval(held, env)?;
                let token = self.eval_optional(token, env)?;
                self.registry_register(&registry, target, held, token)?
            }
            Op::Unregister { registry, token } => {
                let registry = self.receiver(registry, "unregister", env)?;
                let token = self.eval(token, env)?;
                self.registry_unregister(&registry, token)?
            }
            Op::Dependants { signal } => {
                let signal = self.eval(signal, env)?;
                L::dependant_count(self, signal)?
            }
            Op::SetOnAbort { signal, handler } => {
                // `($.charge(...), S.onabort = H)`: S, the charge, H, and
                // then the assignment, which throws on undefined or null.
                let signal = self.eval(signal, env)?;
                if !self.charge_listeners(&[(&signal, "abort")]) {
                    return Ok(Value::Undefined);
                }
                let handler = match handler {
                    Handler::Null => Value::Null,
                    Handler::Value(e) => self.eval(e, env)?,
                    Handler::Callback(cb) => self.listener_value(cb, env)?,
                };
                if matches!(signal, Value::Undefined | Value::Null) {
                    let shown = self.fmt(&signal);
                    return Err(self.new_error(
                        "TypeError",
                        &format!("Cannot set properties of {shown} (setting 'onabort')"),
                    ));
                }
                L::set_onabort(self, signal, handler.clone())?;
                handler
            }
            Op::AddAbortListener { signal, listener } => {
                let signal = self.eval(signal, env)?;
                let listener = self.listener_value(listener, env)?;
                if !self.charge_listeners(&[(&signal, "abort")]) {
                    return Ok(Value::Undefined);
                }
                let made = L::add_abort_listener(self, signal.clone(), listener)?;
                if let Value::Object(disposable) = made {
                    self.disposable_signals.insert(disposable, signal);
                }
                made
            }
            Op::SetMaxListeners { n, targets } => {
                // `events.setMaxListeners(N, T...)`: N, then the targets,
                // left to right; the function validates them.
                let n = self.eval(n, env)?;
                let mut values = Vec::with_capacity(targets.len());
                for target in targets {
                    values.push(self.eval(target, env)?);
                }
                L::set_max_listeners(self, n, values)?
            }
            Op::GetMaxListeners { target } => {
                let target = self.eval(target, env)?;
                L::get_max_listeners(self, target)?
            }
            Op::Dispose { disposable } => {
                let disposable = self.eval(disposable, env)?;
                let signal = disposable
                    .as_object()
                    .and_then(|d| self.disposable_signals.get(&d))
                    .cloned()
                    .unwrap_or(Value::Undefined);
                if !self.charge_listeners(&[(&signal, "abort")]) {
                    return Ok(Value::Undefined);
                }
                L::dispose(self, disposable)?
            }

            // ---- dispatch: the library's ----
            Op::NewTarget => L::new_event_target(self)?,
            Op::NewEmitter
            | Op::EmitterAdd { .. }
            | Op::EmitterRemove { .. }
            | Op::EmitterRemoveAll { .. }
            | Op::Emit { .. }
            | Op::EmitterListenerCount { .. }
            | Op::EventNames { .. }
            | Op::EmitterListeners { .. }
            | Op::EventsKeyCount { .. }
            | Op::SetDefaultMaxListeners { .. }
            | Op::OnceEvent { .. }
            | Op::OnEvents(_)
            | Op::IterThrow { .. }
            | Op::NewCapturingEmitter
            | Op::OnRejection { .. } => return self.exec_emitter_op(op, env),
            Op::NewAls { .. }
            | Op::GetStore { .. }
            | Op::EnterWith { .. }
            | Op::AlsRun { .. }
            | Op::AlsExit { .. }
            | Op::DisableAls { .. }
            | Op::Bind { .. }
            | Op::Snapshot
            | Op::Call { .. }
            | Op::NewAsyncResource { .. }
            | Op::RunInAsyncScope { .. }
            | Op::EmitDestroy { .. }
            | Op::NativeCallback { .. } => return self.exec_async_context_op(op, env),
            Op::AddEventListener {
                target,
                event_type,
                listener,
                options,
            } => {
                // `($.charge($.listeners(T) + $.listeners(S)),
                // T.addEventListener(TYPE, CALLBACK, { ..., signal: S }))`.
                let target = self.eval(target, env)?;
                let signal = self.eval_optional(&options.signal, env)?;
                let charged = match &signal {
                    Some(signal) => {
                        self.charge_listeners(&[(&target, event_type), (signal, "abort")])
                    }
                    None => self.charge_listeners(&[(&target, event_type)]),
                };
                if !charged {
                    return Ok(Value::Undefined);
                }
                if matches!(target, Value::Undefined | Value::Null) {
                    return Err(self.cannot_read_properties(&target, "addEventListener"));
                }
                let listener = self.listener_value(listener, env)?;
                let value = self.eval_optional(&options.value, env)?;
                let options = crate::AddListenerOptions {
                    once: options.once,
                    capture: options.capture,
                    passive: options.passive,
                    signal,
                    value,
                };
                L::add_event_listener(self, target, event_type, listener, options)?
            }
            Op::RemoveEventListener {
                target,
                event_type,
                listener,
                capture,
                ..
            } => {
                let target = self.eval(target, env)?;
                if !self.charge_listeners(&[(&target, event_type)]) {
                    return Ok(Value::Undefined);
                }
                if matches!(target, Value::Undefined | Value::Null) {
                    return Err(self.cannot_read_properties(&target, "removeEventListener"));
                }
                let listener = self.eval(listener, env)?;
                L::remove_event_listener(self, target, event_type, listener, *capture)?
            }
            Op::Dispatch {
                target,
                event_type,
                cancelable,
            } => {
                let target = self.eval(target, env)?;
                if !self.charge_listeners(&[(&target, event_type)]) {
                    return Ok(Value::Undefined);
                }
                if matches!(target, Value::Undefined | Value::Null) {
                    return Err(self.cannot_read_properties(&target, "dispatchEvent"));
                }
                L::dispatch_new_event(self, target, event_type, *cancelable)?
            }
            Op::NewEvent {
                custom,
                event_type,
                detail,
                bubbles,
                cancelable,
                composed,
            } => {
                let detail = self.eval_optional(detail, env)?;
                let init = crate::EventInit {
                    custom: *custom,
                    event_type: event_type.as_deref().map(Rc::from),
                    detail,
                    bubbles: *bubbles,
                    cancelable: *cancelable,
                    composed: *composed,
                };
                L::new_event(self, init)?
            }
            Op::NewAbortSignal => L::new_abort_signal(self)?,
            Op::DispatchEvent { target, event } => {
                // `($.charge($.listeners(T, $.eventType(E))), T.dispatchEvent(E))`:
                // the walk of the event's type, when it is an event.
                let target = self.eval(target, env)?;
                let event = self.eval(event, env)?;
                let event_type = match event {
                    Value::Object(id) => match L::host_class(self, id) {
                        HostClass::Event(t) | HostClass::CustomEvent(t) => Some(t),
                        _ => None,
                    },
                    _ => None,
                };
                let walked = match &event_type {
                    Some(t) => self.charge_listeners(&[(&target, t)]),
                    None => self.charge_listeners(&[]),
                };
                if !walked {
                    return Ok(Value::Undefined);
                }
                if matches!(target, Value::Undefined | Value::Null) {
                    return Err(self.cannot_read_properties(&target, "dispatchEvent"));
                }
                L::dispatch_event(self, target, event)?
            }
            Op::ComposedPath { event } => {
                let event = self.receiver(event, "composedPath", env)?;
                L::composed_path(self, event)?
            }
            Op::SetEventAttribute {
                event,
                attribute,
                value,
            } => {
                // `E.returnValue = V`: E, V, then the assignment, which
                // throws on undefined or null.
                let event = self.eval(event, env)?;
                let value = self.eval(value, env)?;
                if matches!(event, Value::Undefined | Value::Null) {
                    let shown = self.fmt(&event);
                    let name = attribute.name();
                    return Err(self.new_error(
                        "TypeError",
                        &format!("Cannot set properties of {shown} (setting '{name}')"),
                    ));
                }
                match attribute {
                    EventAttribute::ReturnValue => L::set_return_value(self, event, value.clone())?,
                    EventAttribute::CancelBubble => {
                        L::set_cancel_bubble(self, event, value.clone())?
                    }
                };
                value
            }
            Op::PreventDefault { event } => {
                let event = self.receiver(event, "preventDefault", env)?;
                L::prevent_default(self, event)?
            }
            Op::StopPropagation { event } => {
                let event = self.receiver(event, "stopPropagation", env)?;
                L::stop_propagation(self, event)?
            }
            Op::StopImmediatePropagation { event } => {
                let event = self.receiver(event, "stopImmediatePropagation", env)?;
                L::stop_immediate_propagation(self, event)?
            }

            // ---- the runtime's own ----
            Op::Value(e) => self.eval(e, env)?,
            Op::Function(block) => Value::Object(self.make_function(block, Param::Event, env)),
            Op::ListenerObject(block) => {
                let handle_event = self.make_function(block, Param::Event, env);
                Value::Object(self.heap.alloc(ObjectData::ListenerObject { handle_event }))
            }
            Op::AsyncFunction(block) => {
                Value::Object(self.make_script_function(block, Param::Event, env, true))
            }
            Op::Async(block) => {
                // `(async () => { ... })()`: an arrow function, so its
                // `this` is the one around it.
                let f = self.make_script_function(block, Param::None, env, true);
                let this = env.this();
                self.call_function(f, this, &[])?
            }
            // The async walk (`crate::async_fn`) performs every `await` of
            // a body it runs; the parser lets `await` stand nowhere else.
            // An AST built by hand that has one elsewhere gets its value.
            Op::Await(value) => self.eval(value, env)?,
            Op::QueueMicrotask(block) => {
                let f = self.make_function(block, Param::None, env);
                self.enqueue_microtask(Job::Task(Task::Script(f, Value::Undefined)));
                Value::Undefined
            }
            Op::NextTick(block) => {
                let f = self.make_function(block, Param::None, env);
                self.next_tick(Task::Script(f, Value::Undefined));
                Value::Undefined
            }
            Op::SetTimeout { ms, body } => {
                let f = self.make_function(body, Param::None, env);
                // The handle exists before the timer: the callback's `this`.
                let handle = self.heap.alloc(ObjectData::Timer(0));
                let id = self.set_timeout(*ms, Task::Script(f, Value::Object(handle)), true);
                *self.heap.get_mut(handle) = ObjectData::Timer(id);
                Value::Object(handle)
            }
            Op::SetInterval { ms, body } => {
                let f = self.make_function(body, Param::None, env);
                let handle = self.heap.alloc(ObjectData::Timer(0));
                let id = self.set_interval(*ms, f, Value::Object(handle));
                *self.heap.get_mut(handle) = ObjectData::Timer(id);
                Value::Object(handle)
            }
            Op::TimerRef { timer, refed } => {
                let h = self.eval_object(timer, env)?;
                if let ObjectData::Timer(id) = self.heap.get(h) {
                    let id = *id;
                    self.set_timer_ref(id, *refed);
                }
                Value::Object(h)
            }
            Op::ClearTimeout { timer } | Op::ClearInterval { timer } => {
                let h = self.eval_object(timer, env)?;
                if let ObjectData::Timer(id) = self.heap.get(h) {
                    let id = *id;
                    self.clear_timeout(id);
                }
                Value::Undefined
            }
            Op::SetImmediate(block) => {
                let f = self.make_function(block, Param::None, env);
                let handle = self.heap.alloc(ObjectData::Immediate(0));
                let id = self.set_immediate(Task::Script(f, Value::Object(handle)));
                *self.heap.get_mut(handle) = ObjectData::Immediate(id);
                Value::Object(handle)
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
            Op::Assign { target, value } => {
                let value = self.eval(value, env)?;
                if let Expr::Var(name) = target {
                    env.assign(name, value.clone());
                }
                value
            }
            Op::ProcessOff(event) => {
                match event {
                    nodesem_lang::ProcessEvent::UncaughtException => self.uncaught_handler = false,
                    nodesem_lang::ProcessEvent::UnhandledRejection => {
                        self.rejection_handler = false
                    }
                }
                Value::Undefined
            }
            Op::WithResolvers => {
                // 27.2.4.9 Promise.withResolvers: NewPromiseCapability(%Promise%),
                // then an object with its three fields.
                let promise = self.new_deferred();
                Value::Object(self.heap.alloc(ObjectData::Resolvers { promise }))
            }
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
            Op::Thenable { value, body } => {
                let value = self.eval(value, env)?;
                let then = body
                    .as_ref()
                    .map(|b| self.make_function(b, Param::None, env));
                Value::Object(self.heap.alloc(ObjectData::Thenable { value, then }))
            }
            Op::Combinator { kind, values } => {
                let mut items = Vec::with_capacity(values.len());
                for e in values {
                    items.push(self.eval(e, env)?);
                }
                Value::Object(self.promise_combinator(*kind, items))
            }
            Op::Ruler { ticks } => {
                self.ruler(*ticks);
                Value::Undefined
            }

            // ---- streams: the library's, in a function of their own ----
            _ => return self.exec_stream_op(op, env),
        })
    }

    /// `any [...]`: `AbortSignal.any(...)` of its evaluated elements.
    fn signal_any(&mut self, signals: &[Expr], from_set: bool, env: &Env) -> Completion {
        // `$.any([...])` charges the weight of its sources.
        let mut values: Vec<Value> = Vec::with_capacity(signals.len());
        let mut weight = 0;
        for signal in signals {
            let value = self.eval(signal, env)?;
            // `new Set([...])`: a value already in the set is not
            // added again (SameValueZero, ECMA-262 24.2.4.1), so
            // iterating it yields each once.
            if from_set && values.iter().any(|v| same_value_zero(v, &value)) {
                continue;
            }
            weight += value
                .as_object()
                .and_then(|s| self.any_weights.get(&s).copied())
                .unwrap_or(1);
            values.push(value);
        }
        if !self.charge(weight) {
            return Ok(Value::Undefined);
        }
        let made = L::abort_signal_any(self, values)?;
        if let Value::Object(signal) = made {
            self.record_any_weight(signal, weight);
        }
        Ok(made)
    }

    /// [`Runtime::exec_op`] of the async context operations, apart for the
    /// same reason as [`Runtime::exec_stream_op`].
    #[inline(never)]
    fn exec_async_context_op(&mut self, op: &Op, env: &Env) -> Completion {
        Ok(match op {
            Op::NewAls { default } => {
                let default = self.eval_optional(default, env)?;
                L::new_async_local_storage(self, default)?
            }
            Op::GetStore { als } => {
                let als = self.eval(als, env)?;
                L::als_get_store(self, als)?
            }
            Op::EnterWith { als, value } => {
                let als = self.eval(als, env)?;
                let value = self.eval(value, env)?;
                L::als_enter_with(self, als, value)?
            }
            Op::AlsRun { als, value, body } => {
                let als = self.eval(als, env)?;
                let value = self.eval(value, env)?;
                let f = self.make_function(body, Param::None, env);
                L::als_run(self, als, value, f)?
            }
            Op::AlsExit { als, body } => {
                let als = self.eval(als, env)?;
                let f = self.make_function(body, Param::None, env);
                L::als_exit(self, als, f)?
            }
            Op::DisableAls { als } => {
                let als = self.eval(als, env)?;
                L::als_disable(self, als)?
            }
            Op::Bind { resource, function } => match resource {
                Some(resource) => {
                    let resource = self.eval(resource, env)?;
                    let function = self.eval(function, env)?;
                    L::async_resource_bind(self, resource, function)?
                }
                None => {
                    let function = self.eval(function, env)?;
                    L::als_bind(self, function)?
                }
            },
            Op::Snapshot => L::als_snapshot(self)?,
            Op::Call { function, args } => {
                let f = self.eval(function, env)?;
                let mut values = Vec::with_capacity(args.len());
                for arg in args {
                    values.push(self.eval(arg, env)?);
                }
                match f {
                    Value::Object(id) if self.is_function(&f) => {
                        self.call_function(id, Value::Undefined, &values)?
                    }
                    _ => {
                        // V8's message names the callee as written.
                        let text = nodesem_lang::printer::print_expr(function);
                        return Err(
                            self.new_error("TypeError", &format!("{text} is not a function"))
                        );
                    }
                }
            }
            Op::NewAsyncResource { kind } => {
                let kind = self.eval(kind, env)?;
                L::new_async_resource(self, kind)?
            }
            Op::RunInAsyncScope { resource, body } => {
                let resource = self.eval(resource, env)?;
                let f = self.make_function(body, Param::None, env);
                L::async_resource_run(self, resource, f)?
            }
            Op::EmitDestroy { resource } => {
                let resource = self.eval(resource, env)?;
                L::async_resource_emit_destroy(self, resource)?
            }
            Op::NativeCallback {
                ms,
                resource,
                callback,
            } => {
                let f = self.callback_function(callback, Param::None, env)?;
                // The addon's receiver: a new plain object (`Object::New`).
                let recv = Value::Object(self.heap.alloc(ObjectData::Plain));
                // A node::AsyncResource made now keeps the frame of now.
                let resource_frame = resource.then(|| self.context_frame());
                let mut held = vec![Value::Object(f), recv.clone()];
                held.extend(resource_frame.iter().cloned());
                let task = Task::Captured(
                    Box::new(move |rt: &mut Runtime<L>| {
                        L::make_callback(rt, f, recv, resource_frame);
                        Ok(Value::Undefined)
                    }),
                    crate::gc::Captures::values(held),
                );
                // A libuv timer, due in the timers phase like a Timeout
                // of the same delay made now.
                self.set_native_timer(*ms, task);
                Value::Undefined
            }
            _ => unreachable!("exec_op sends only async context operations here"),
        })
    }

    /// [`Runtime::exec_op`] of the EventEmitter operations, apart for the
    /// same reason as [`Runtime::exec_stream_op`].
    #[inline(never)]
    fn exec_emitter_op(&mut self, op: &Op, env: &Env) -> Completion {
        Ok(match op {
            Op::NewEmitter => L::new_event_emitter(self)?,
            Op::NewCapturingEmitter => L::new_capturing_event_emitter(self)?,
            Op::OnRejection { emitter, function } => {
                // `(E[Symbol.for('nodejs.rejection')] = F)`: E, then F.
                let emitter = self.eval(emitter, env)?;
                let function = self.eval(function, env)?;
                L::emitter_set_rejection_handler(self, emitter, function.clone())?;
                function
            }
            Op::OnEvents(o) => {
                let nodesem_lang::ast::OnEvents {
                    emitter,
                    name,
                    signal,
                    close,
                    high_water_mark,
                    low_water_mark,
                } = &**o;
                // As `onceEvent`: E, NAME, the options in order, then the
                // charge for the walk of S's abort listeners that adding its
                // abort listener makes.
                let emitter = self.eval(emitter, env)?;
                let name = self.eval(name, env)?;
                let options = crate::EventsOnOptions {
                    signal: self.eval_optional(signal, env)?,
                    close: self.eval_optional(close, env)?,
                    high_water_mark: self.eval_optional(high_water_mark, env)?,
                    low_water_mark: self.eval_optional(low_water_mark, env)?,
                };
                if let Some(s) = &options.signal {
                    if !self.charge_listeners(&[(s, "abort")]) {
                        return Ok(Value::Undefined);
                    }
                }
                L::events_on(self, emitter, name, options)?
            }
            Op::IterThrow { iterator, value } => {
                let iterator = self.receiver(iterator, "throw", env)?;
                let value = self.eval(value, env)?;
                L::events_iterator_throw(self, iterator, value)?
            }
            Op::EmitterAdd {
                emitter,
                name,
                listener,
                prepend,
                once,
            } => {
                let emitter = self.eval(emitter, env)?;
                let name = self.eval(name, env)?;
                let listener = match listener {
                    Callback::Inline(block) => {
                        Value::Object(self.make_function(block, Param::Args, env))
                    }
                    Callback::Value(e) => self.eval(e, env)?,
                };
                L::emitter_add_listener(self, emitter, name, listener, *prepend, *once)?
            }
            Op::EmitterRemove {
                emitter,
                name,
                listener,
            } => {
                let emitter = self.eval(emitter, env)?;
                let name = self.eval(name, env)?;
                let listener = self.eval(listener, env)?;
                L::emitter_remove_listener(self, emitter, name, listener)?
            }
            Op::EmitterRemoveAll { emitter, name } => {
                let emitter = self.eval(emitter, env)?;
                let name = self.eval_optional(name, env)?;
                L::emitter_remove_all_listeners(self, emitter, name)?
            }
            Op::Emit {
                emitter,
                name,
                args,
            } => {
                let emitter = self.eval(emitter, env)?;
                let name = self.eval(name, env)?;
                let mut values = Vec::with_capacity(args.len());
                for arg in args {
                    values.push(self.eval(arg, env)?);
                }
                L::emitter_emit(self, emitter, name, values)?
            }
            Op::EmitterListenerCount {
                emitter,
                name,
                listener,
            } => {
                let emitter = self.eval(emitter, env)?;
                let name = self.eval(name, env)?;
                let listener = self.eval_optional(listener, env)?;
                L::emitter_listener_count(self, emitter, name, listener)?
            }
            Op::EventNames { emitter } => {
                let emitter = self.eval(emitter, env)?;
                L::emitter_event_names(self, emitter)?
            }
            Op::EmitterListeners { emitter, name, raw } => {
                let emitter = self.eval(emitter, env)?;
                let name = self.eval(name, env)?;
                L::emitter_listeners(self, emitter, name, *raw)?
            }
            Op::EventsKeyCount { emitter } => {
                let emitter = self.eval(emitter, env)?;
                L::emitter_events_key_count(self, emitter)?
            }
            Op::SetDefaultMaxListeners { n } => {
                let n = self.eval(n, env)?;
                L::set_default_max_listeners(self, n.clone())?;
                n
            }
            Op::OnceEvent {
                emitter,
                name,
                signal,
            } => {
                // `($.charge($.listeners(S)), events.once(E, NAME, { signal: S }))`:
                // E, NAME, S, the charge for the walk of S's abort
                // listeners that adding its abort listener makes.
                let emitter = self.eval(emitter, env)?;
                let name = self.eval(name, env)?;
                let signal = self.eval_optional(signal, env)?;
                if let Some(s) = &signal {
                    if !self.charge_listeners(&[(s, "abort")]) {
                        return Ok(Value::Undefined);
                    }
                }
                L::events_once(self, emitter, name, signal)?
            }
            _ => unreachable!("exec_op sends only EventEmitter operations here"),
        })
    }

    /// [`Runtime::exec_op`] of the stream operations. Apart, so that the
    /// frame of `exec_op`, which every nested callback adds to the stack,
    /// does not grow with each of their locals.
    #[inline(never)]
    fn exec_stream_op(&mut self, op: &Op, env: &Env) -> Completion {
        Ok(match op {
            Op::NewReadable {
                strategy,
                start,
                pull,
                cancel,
            } => {
                let object = Value::Object(self.heap.alloc(ObjectData::Plain));
                let source = UnderlyingSource {
                    start: self.method(start, Param::Controller, env),
                    pull: self.method(pull, Param::Controller, env),
                    cancel: self.method(cancel, Param::Reason, env),
                    object,
                };
                let strategy = self.strategy(strategy, env);
                L::new_readable_stream(self, source, strategy)?
            }
            Op::Enqueue { controller, chunk } => {
                let controller = self.receiver(controller, "enqueue", env)?;
                let chunk = self.eval(chunk, env)?;
                match self.host_class_of(&controller) {
                    Some(HostClass::TransformStreamDefaultController) => {
                        L::transform_controller_enqueue(self, controller, chunk)?
                    }
                    Some(HostClass::ReadableByteStreamController) => {
                        L::byte_controller_enqueue(self, controller, chunk)?
                    }
                    _ => L::readable_controller_enqueue(self, controller, chunk)?,
                }
            }
            Op::CloseController { controller } => {
                let controller = self.receiver(controller, "close", env)?;
                if self.is_host(&controller, HostClass::ReadableByteStreamController) {
                    L::byte_controller_close(self, controller)?
                } else {
                    L::readable_controller_close(self, controller)?
                }
            }
            Op::ErrorController { controller, error } => {
                let controller = self.receiver(controller, "error", env)?;
                let error = self.eval(error, env)?;
                match self.host_class_of(&controller) {
                    Some(HostClass::WritableStreamDefaultController) => {
                        L::writable_controller_error(self, controller, error)?
                    }
                    Some(HostClass::TransformStreamDefaultController) => {
                        L::transform_controller_error(self, controller, error)?
                    }
                    Some(HostClass::ReadableByteStreamController) => {
                        L::byte_controller_error(self, controller, error)?
                    }
                    _ => L::readable_controller_error(self, controller, error)?,
                }
            }
            Op::GetReader { stream } => {
                let stream = self.receiver(stream, "getReader", env)?;
                L::readable_get_reader(self, stream)?
            }
            Op::Read { reader } => {
                let reader = self.receiver(reader, "read", env)?;
                L::reader_read(self, reader)?
            }
            Op::ReleaseLock { reader } => {
                let target = self.receiver(reader, "releaseLock", env)?;
                match self.host_class_of(&target) {
                    Some(HostClass::WritableStreamDefaultWriter) => {
                        L::writer_release_lock(self, target)?
                    }
                    Some(HostClass::ReadableStreamBYOBReader) => {
                        L::byob_reader_release_lock(self, target)?
                    }
                    _ => L::reader_release_lock(self, target)?,
                }
            }
            Op::Cancel { target, reason } => {
                let target = self.receiver(target, "cancel", env)?;
                let reason = self.eval_optional(reason, env)?;
                match self.host_class_of(&target) {
                    Some(HostClass::ReadableStreamDefaultReader) => {
                        L::reader_cancel(self, target, reason)?
                    }
                    Some(HostClass::ReadableStreamBYOBReader) => {
                        L::byob_reader_cancel(self, target, reason)?
                    }
                    _ => L::readable_cancel(self, target, reason)?,
                }
            }
            Op::PipeTo {
                source,
                dest,
                options,
            } => {
                let source = self.receiver(source, "pipeTo", env)?;
                let dest = self.eval(dest, env)?;
                let options = self.pipe_options(options, env)?;
                L::readable_pipe_to(self, source, dest, options)?
            }
            Op::PipeThrough {
                source,
                transform,
                options,
            } => {
                let source = self.receiver(source, "pipeThrough", env)?;
                let transform = self.eval(transform, env)?;
                let options = self.pipe_options(options, env)?;
                L::readable_pipe_through(self, source, transform, options)?
            }
            Op::From { is_async, values } => {
                let mut items = Vec::with_capacity(values.len());
                for e in values {
                    items.push(self.eval(e, env)?);
                }
                let iterable = if *is_async {
                    self.new_async_generator(items)?
                } else {
                    Value::Object(self.heap.alloc(ObjectData::Array(items.into())))
                };
                L::readable_from(self, iterable)?
            }
            Op::Values {
                stream,
                prevent_cancel,
            } => {
                let stream = self.receiver(stream, "values", env)?;
                L::readable_values(self, stream, *prevent_cancel)?
            }
            Op::Next { iterator } => {
                let iterator = self.receiver(iterator, "next", env)?;
                if self.is_host(&iterator, HostClass::EventEmitterAsyncIterator) {
                    L::events_iterator_next(self, iterator)?
                } else {
                    L::async_iterator_next(self, iterator)?
                }
            }
            Op::IterReturn { iterator, value } => {
                let iterator = self.receiver(iterator, "return", env)?;
                let value = self.eval_optional(value, env)?;
                if self.is_host(&iterator, HostClass::EventEmitterAsyncIterator) {
                    L::events_iterator_return(self, iterator)?
                } else {
                    L::async_iterator_return(self, iterator, value)?
                }
            }
            Op::NewWritable {
                strategy,
                start,
                write,
                close,
                abort,
            } => {
                let object = Value::Object(self.heap.alloc(ObjectData::Plain));
                let sink = UnderlyingSink {
                    start: self.method(start, Param::Controller, env),
                    write: self.method(write, Param::ChunkController, env),
                    close: self.method(close, Param::None, env),
                    abort: self.method(abort, Param::Reason, env),
                    object,
                };
                let strategy = self.strategy(strategy, env);
                L::new_writable_stream(self, sink, strategy)?
            }
            Op::GetWriter { stream } => {
                let stream = self.receiver(stream, "getWriter", env)?;
                L::writable_get_writer(self, stream)?
            }
            Op::Write { writer, chunk } => {
                let writer = self.receiver(writer, "write", env)?;
                let chunk = self.eval(chunk, env)?;
                L::writer_write(self, writer, chunk)?
            }
            Op::CloseWritable { target } => {
                let target = self.receiver(target, "close", env)?;
                if self.is_host(&target, HostClass::WritableStreamDefaultWriter) {
                    L::writer_close(self, target)?
                } else {
                    L::writable_close(self, target)?
                }
            }
            Op::AbortWritable { target, reason } => {
                let target = self.receiver(target, "abort", env)?;
                let reason = self.eval_optional(reason, env)?;
                if self.is_host(&target, HostClass::WritableStreamDefaultWriter) {
                    L::writer_abort(self, target, reason)?
                } else {
                    L::writable_abort(self, target, reason)?
                }
            }
            Op::NewTransform {
                writable_high_water_mark,
                readable_high_water_mark,
                start,
                transform,
                flush,
                cancel,
            } => {
                let object = Value::Object(self.heap.alloc(ObjectData::Plain));
                let transformer = Transformer {
                    start: self.method(start, Param::Controller, env),
                    transform: self.method(transform, Param::ChunkController, env),
                    flush: self.method(flush, Param::Controller, env),
                    cancel: self.method(cancel, Param::Reason, env),
                    object,
                };
                let strategy = |n: &Option<nodesem_lang::Number>| QueuingStrategy {
                    high_water_mark: n.map(|n| n.value()),
                    size: None,
                };
                L::new_transform_stream(
                    self,
                    transformer,
                    strategy(writable_high_water_mark),
                    strategy(readable_high_water_mark),
                )?
            }
            Op::Terminate { controller } => {
                let controller = self.receiver(controller, "terminate", env)?;
                L::transform_controller_terminate(self, controller)?
            }
            Op::NewBytes(init) => {
                let bytes = match init {
                    BytesInit::Values(bytes) => bytes.clone(),
                    BytesInit::Zeros(n) => vec![0; *n as usize],
                };
                self.new_uint8_array_from(bytes)
            }
            Op::Subarray { view, start, end } => {
                let view = self.receiver(view, "subarray", env)?;
                self.subarray(&view, *start, *end)?
            }
            Op::NewReadableBytes {
                high_water_mark,
                auto_allocate_chunk_size,
                start,
                pull,
                cancel,
            } => {
                let object = Value::Object(self.heap.alloc(ObjectData::Plain));
                let source = UnderlyingSource {
                    start: self.method(start, Param::Controller, env),
                    pull: self.method(pull, Param::Controller, env),
                    cancel: self.method(cancel, Param::Reason, env),
                    object,
                };
                let strategy = QueuingStrategy {
                    high_water_mark: high_water_mark.map(|n| n.value()),
                    size: None,
                };
                L::new_readable_byte_stream(
                    self,
                    source,
                    strategy,
                    auto_allocate_chunk_size.map(|n| n.value()),
                )?
            }
            Op::GetByobReader { stream } => {
                let stream = self.receiver(stream, "getReader", env)?;
                L::readable_get_byob_reader(self, stream)?
            }
            Op::ReadInto { reader, view, min } => {
                let reader = self.receiver(reader, "read", env)?;
                let view = self.eval(view, env)?;
                let min = self.eval_optional(min, env)?;
                L::byob_reader_read(self, reader, view, min)?
            }
            Op::Respond {
                request,
                bytes_written,
            } => {
                let request = self.receiver(request, "respond", env)?;
                let bytes_written = self.eval(bytes_written, env)?;
                L::byob_request_respond(self, request, bytes_written)?
            }
            Op::RespondWithNewView { request, view } => {
                let request = self.receiver(request, "respondWithNewView", env)?;
                let view = self.eval(view, env)?;
                L::byob_request_respond_with_new_view(self, request, view)?
            }
            _ => unreachable!("exec_op runs every operation that is not a stream's"),
        })
    }

    /// A stream method's block as a function (of `param`), when given.
    fn method(&mut self, block: &Option<Block>, param: Param, env: &Env) -> Option<ObjectId> {
        block.as_ref().map(|b| self.make_function(b, param, env))
    }

    /// A queuing strategy: its `size` as a function of `chunk`.
    fn strategy(&mut self, strategy: &Strategy, env: &Env) -> QueuingStrategy {
        QueuingStrategy {
            high_water_mark: strategy.high_water_mark.map(|n| n.value()),
            size: self.method(&strategy.size, Param::Chunk, env),
        }
    }

    /// The options of `pipeTo` and `pipeThrough`, the signal evaluated.
    fn pipe_options(
        &mut self,
        options: &PipeOptions,
        env: &Env,
    ) -> Result<StreamPipeOptions, Value> {
        Ok(StreamPipeOptions {
            prevent_close: options.prevent_close,
            prevent_abort: options.prevent_abort,
            prevent_cancel: options.prevent_cancel,
            signal: self.eval_optional(&options.signal, env)?,
        })
    }

    /// The class of one of the library's objects; `None` for any other
    /// value. The runtime dispatches a method that several classes have
    /// (`close`, `error`, `releaseLock`) on it, as JavaScript's lookup on
    /// the receiver's prototype does.
    pub fn host_class_of(&self, value: &Value) -> Option<HostClass> {
        match value {
            Value::Object(id) if matches!(self.heap.get(*id), ObjectData::Host) => {
                Some(L::host_class(self, *id))
            }
            _ => None,
        }
    }

    /// Whether `value` is one of the library's objects of this class.
    pub fn is_host(&self, value: &Value, class: HostClass) -> bool {
        self.host_class_of(value) == Some(class)
    }

    /// An async generator object that yields `values` in turn: `(async
    /// function* () { yield v1; yield v2; ... })()`.
    pub fn new_async_generator(&mut self, values: Vec<Value>) -> Completion {
        Ok(Value::Object(self.create_async_generator(values)))
    }

    /// `ruler N`: `Promise.resolve()` followed by a chain of N `then`s, the
    /// K-th logging `tK`, so that it is logged on the K-th microtask job
    /// from here.
    fn ruler(&mut self, ticks: u32) {
        let mut promise = self.promise_resolve(Value::Undefined);
        for k in 1..=ticks {
            let holds = crate::gc::Captures::nothing();
            let mark = self.native_function_capturing(holds, move |rt, _this, _args| {
                rt.log_line(format!("t{k}"));
                Ok(Value::Undefined)
            });
            promise = self.promise_then(promise, Some(mark), None);
        }
    }
}

/// StringToNumber (ECMA-262 7.1.4.1.1) for the strings scenarios write:
/// blank is 0, a decimal number (with the usual forms JavaScript takes:
/// sign, fraction, exponent, `Infinity`) is its value, anything else NaN.
fn string_to_number(s: &str) -> f64 {
    let t = s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if t.is_empty() {
        return 0.0;
    }
    match t {
        "Infinity" | "+Infinity" => return f64::INFINITY,
        "-Infinity" => return f64::NEG_INFINITY,
        _ => {}
    }
    for (prefix, radix) in [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ] {
        if let Some(rest) = t.strip_prefix(prefix) {
            return match u128::from_str_radix(rest, radix) {
                Ok(n) if !rest.starts_with(['+', '-']) => n as f64,
                _ => f64::NAN,
            };
        }
    }
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    // Rust also reads "inf" and "nan", which JavaScript does not.
    if !digits.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return f64::NAN;
    }
    t.parse::<f64>().unwrap_or(f64::NAN)
}
