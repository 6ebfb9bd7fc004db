//! The abstract syntax of a scenario.
//!
//! This is the one data structure every engine consumes: the parser produces
//! it, the generators produce it, the printer turns it back into text and
//! serde turns it into JSON. It carries no source positions, so that
//! `parse(print(s)) == s` is plain structural equality; positions live only in
//! the parser's errors.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A whole scenario script: a list of top-level statements.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Scenario {
    /// The top-level statements, in order. Shared, like a [`Block`]'s: an
    /// engine runs them without copying (`Arc::make_mut` to edit).
    pub body: Arc<Vec<Stmt>>,
}

impl Scenario {
    /// A scenario of these statements.
    pub fn new(body: Vec<Stmt>) -> Scenario {
        Scenario {
            body: Arc::new(body),
        }
    }

    /// The statements, to edit (copied first if an engine shares them).
    pub fn body_mut(&mut self) -> &mut Vec<Stmt> {
        Arc::make_mut(&mut self.body)
    }

    /// Whether the scenario says `use DIRECTIVE`. Directives come before
    /// every statement but comments (the parser's rule), so the search
    /// stops at the first other statement.
    pub fn uses(&self, directive: Directive) -> bool {
        self.body
            .iter()
            .take_while(|stmt| matches!(stmt, Stmt::Use(_) | Stmt::Comment(_)))
            .any(|stmt| matches!(stmt, Stmt::Use(d) if *d == directive))
    }
}

/// A block of statements: the body of a callback or of a `try`, with what
/// running it costs up front.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "BlockText", into = "BlockText")]
pub struct Block {
    /// The statements, in order. Shared: every function an engine makes
    /// from this block holds the same statements, so making a listener a
    /// thousand times copies nothing ([`Block::body_mut`] for the rare
    /// edit).
    body: Arc<Vec<Stmt>>,
    /// [`crate::statement_cost`] of the statements, worked out when they
    /// are set, so that no engine walks them again at every call. Private
    /// with them, so that no edit can leave it stale.
    cost: u64,
}

impl Block {
    /// A block of these statements.
    pub fn new(body: Vec<Stmt>) -> Block {
        Block::shared(Arc::new(body))
    }

    fn shared(body: Arc<Vec<Stmt>>) -> Block {
        let cost = crate::statement_cost(&body);
        Block { body, cost }
    }

    /// The statements.
    pub fn body(&self) -> &[Stmt] {
        &self.body
    }

    /// The statements, to edit (copied first if they are shared); the cost
    /// is worked out again when the edit ends. A block inside can only be
    /// reached for an edit through this, so the costs around it are worked
    /// out again too.
    pub fn body_mut(&mut self) -> BodyMut<'_> {
        BodyMut { block: self }
    }

    /// What running the statements costs up front ([`crate::statement_cost`]).
    pub fn cost(&self) -> u64 {
        self.cost
    }

    /// The names that functions made inside this block read (at any depth,
    /// through `try`, `if` and `repeat` blocks too), the arrow frames its
    /// statements run in when the scenario collects garbage included
    /// ([`Stmt::own_frame_operands`]): the bindings of this block's scope
    /// that V8 puts in the scope's context, so that they live as long as
    /// any closure made in the scope does. A binding no inner function
    /// reads lives on the stack and dies with the call (the runtime's
    /// collector follows only these names through a closure, `Env::trace`).
    /// Every closure of a scope shares its context: a function that reads
    /// none of them still keeps them all.
    pub fn closed_over_names(&self) -> Vec<&str> {
        let mut out = Vec::new();
        names_read(self.body(), false, &mut out);
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether the block binds anything itself: a `let` among its own
    /// statements (not in blocks inside). A `try`, `if` or `repeat` block
    /// that does not is no scope of its own (see [`crate::resolve`]).
    pub fn declares(&self) -> bool {
        self.body
            .iter()
            .any(|stmt| matches!(stmt, Stmt::Let { .. } | Stmt::Tee { .. }))
    }
}

/// The names of the bindings that `stmts` read, at any depth; with
/// `in_function` false, only those read inside the functions they make (a
/// `let` or a bare operation's blocks are functions; `try`, `if` and
/// `repeat` blocks are not) and inside the frames of their own that
/// statements run in when the scenario collects garbage
/// ([`Stmt::own_frame_operands`]).
pub fn names_read<'a>(stmts: &'a [Stmt], in_function: bool, out: &mut Vec<&'a str>) {
    for stmt in stmts {
        if in_function {
            stmt.operand_names(out);
        } else if let Some(operands) = stmt.own_frame_operands() {
            operands.into_iter().for_each(|e| e.binding_names(out));
        }
        let makes_functions = matches!(stmt, Stmt::Let { .. } | Stmt::Do(_));
        for block in stmt.blocks() {
            names_read(block.body(), in_function || makes_functions, out);
        }
    }
}

impl Stmt {
    /// In a scenario that collects garbage, the operands that JavaScript
    /// evaluates in an arrow function of their own, called at once: a
    /// `let`'s and a bare operation's (but an `await`'s, which must stay in
    /// its async function), a `log`'s, a `watch`'s, a `tee`'s and an `if`'s
    /// condition. V8 scans a running frame's registers whole, so what a
    /// statement evaluated would otherwise stay alive until the callback
    /// returns; in its own frame it dies with the statement. `None` for a
    /// statement evaluated in place. The emitter and the collector's rule
    /// for what a closure keeps ([`Block::closed_over_names`]) both follow
    /// this one list: a binding such a frame reads is, for V8, read by an
    /// inner function.
    pub fn own_frame_operands(&self) -> Option<Vec<&Expr>> {
        match self {
            Stmt::Let { op, .. } | Stmt::Do(op) if !matches!(op, Op::Await(_)) => Some(op.exprs()),
            Stmt::Log(exprs) => Some(exprs.iter().collect()),
            Stmt::Watch(e) | Stmt::Tee { stream: e, .. } | Stmt::If { cond: e, .. } => {
                Some(vec![e])
            }
            _ => None,
        }
    }

    /// The names of the bindings the statement's own operands read (not
    /// those of its blocks).
    pub fn operand_names<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Stmt::Let { op, .. } | Stmt::Do(op) => {
                op.exprs().into_iter().for_each(|e| e.binding_names(out))
            }
            Stmt::Tee { stream: e, .. }
            | Stmt::Throw(e)
            | Stmt::Return(Some(e))
            | Stmt::If { cond: e, .. }
            | Stmt::Drop(e)
            | Stmt::Watch(e) => e.binding_names(out),
            Stmt::Log(exprs) => exprs.iter().for_each(|e| e.binding_names(out)),
            Stmt::Return(None)
            | Stmt::Comment(_)
            | Stmt::Try(_)
            | Stmt::Repeat { .. }
            | Stmt::Run(_)
            | Stmt::Use(_)
            | Stmt::Gc
            | Stmt::Alive => {}
        }
    }

    /// Whether the statement reads the binding `name` anywhere: in its
    /// operands or in its blocks, at any depth.
    pub fn reads(&self, name: &str) -> bool {
        let mut out = Vec::new();
        names_read(std::slice::from_ref(self), true, &mut out);
        out.contains(&name)
    }
}

/// An edit of a block's statements ([`Block::body_mut`]).
pub struct BodyMut<'a> {
    block: &'a mut Block,
}

impl std::ops::Deref for BodyMut<'_> {
    type Target = Vec<Stmt>;

    fn deref(&self) -> &Vec<Stmt> {
        &self.block.body
    }
}

impl std::ops::DerefMut for BodyMut<'_> {
    fn deref_mut(&mut self) -> &mut Vec<Stmt> {
        Arc::make_mut(&mut self.block.body)
    }
}

impl Drop for BodyMut<'_> {
    fn drop(&mut self) {
        self.block.cost = crate::statement_cost(&self.block.body);
    }
}

/// A block as JSON has it: its statements alone.
#[derive(Serialize, Deserialize)]
#[serde(rename = "Block")]
struct BlockText {
    body: Arc<Vec<Stmt>>,
}

impl From<BlockText> for Block {
    fn from(text: BlockText) -> Block {
        Block::shared(text.body)
    }
}

impl From<Block> for BlockText {
    fn from(block: Block) -> BlockText {
        BlockText { body: block.body }
    }
}

/// A binding name, such as `c` or `listener_1`.
pub type Name = String;

/// A read of a binding ([`Expr::Var`]): its name, and where an engine
/// finds it, if [`crate::resolve::resolve`] worked that out. The place is a
/// hint, not part of the script: equality, hashing, printing and JSON see
/// the name alone, and an engine checks the hint against the name before it
/// trusts it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Binding {
    /// The name.
    pub name: Name,
    /// Where the binding lies, from the scope the read is in.
    #[serde(skip)]
    pub place: Option<Place>,
}

impl Binding {
    /// A read of `name`, not yet resolved.
    pub fn new(name: impl Into<Name>) -> Binding {
        Binding {
            name: name.into(),
            place: None,
        }
    }
}

impl PartialEq for Binding {
    fn eq(&self, other: &Binding) -> bool {
        self.name == other.name
    }
}

impl Eq for Binding {}

impl std::hash::Hash for Binding {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl std::ops::Deref for Binding {
    type Target = str;

    fn deref(&self) -> &str {
        &self.name
    }
}

/// Where a binding lies, seen from a read of it: how many scopes out, and
/// which of that scope's `let`s (the first is 0). See
/// [`crate::resolve`] for the scopes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Place {
    /// How many scopes out from the read's own.
    pub hops: u32,
    /// The index of the binding's `let` among its scope's.
    pub slot: u32,
}

/// One statement.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stmt {
    /// `# text`: a comment line, kept so that printing preserves documentation.
    Comment(String),
    /// `let NAME = OP`: performs the operation and binds its result.
    Let {
        /// The new binding. Shared, so that an engine binding it a thousand
        /// times (a `let` in a listener) copies no text.
        name: Arc<str>,
        /// The operation whose result is bound.
        op: Op,
    },
    /// `let [A, B] = tee S`: `const [A, B] = S.tee()`, the two branches of
    /// a ReadableStream, each bound to a name.
    Tee {
        /// The names of the first and the second branch.
        branches: [Arc<str>; 2],
        /// The stream.
        stream: Expr,
    },
    /// `OP`: performs the operation and discards its result.
    Do(Op),
    /// `log EXPR...`: one log line with the values, separated by spaces.
    Log(Vec<Expr>),
    /// `try { ... }`: runs the block; an exception it throws is logged as
    /// `caught <value>` and goes no further.
    Try(Block),
    /// `repeat N { ... }`: runs the block N times, each time with bindings
    /// of its own: `for (let i = 0; i < N; i++) { ... }`.
    Repeat {
        /// How many times, at most [`crate::limits::MAX_REPEAT`].
        count: u32,
        /// The body.
        body: Block,
    },
    /// `if EXPR {` ... `} [else {` ... `}]`: runs the first block when the
    /// value is truthy (ToBoolean), else the second; each with bindings of
    /// its own.
    If {
        /// The condition.
        cond: Expr,
        /// The block run when it is truthy.
        then: Block,
        /// The block run otherwise.
        otherwise: Option<Block>,
    },
    /// `throw EXPR`.
    Throw(Expr),
    /// `return [EXPR]`: returns from the callback (the value matters to
    /// promise reactions).
    Return(Option<Expr>),
    /// `run turn | run idle | run advance MS`: pauses the main script and
    /// lets the event loop run. Top level only.
    Run(RunMode),
    /// `use module`: a directive about the whole scenario. Top level only,
    /// before every statement but comments.
    Use(Directive),
    /// `drop NAME`: `NAME = undefined`, so that the object the binding held
    /// is no longer reachable through it. The expression is a binding.
    Drop(Expr),
    /// `gc`: `globalThis.gc()`, a full garbage collection (`--expose-gc`).
    Gc,
    /// `watch V`: the engine keeps a WeakRef to the object V, labelled with
    /// V as written, for `alive` to report. Making the WeakRef keeps the
    /// object alive until the end of the current job, as any
    /// `new WeakRef` does (ECMA-262 AddToKeptObjects).
    Watch(Expr),
    /// `alive`: one log line, `alive` and the labels of the watched objects
    /// whose WeakRef still derefs to them, in the order of their `watch`
    /// (each deref keeps its object alive until the end of the job).
    Alive,
}

/// How far a `run` statement lets the event loop go before the main script
/// resumes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunMode {
    /// One loop iteration: the timers phase at the current time, then the
    /// immediates queued before the check phase began.
    Turn,
    /// Iterations until nothing keeps the loop alive.
    Idle,
    /// Iterations until the virtual clock reaches now + the given ms.
    Advance(u32),
}

/// A directive: `use WORD`, a statement that says how the whole scenario
/// runs. Directives come first in a scenario (only comments may precede
/// them) and only at the top level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Directive {
    /// `use module`: the main script is an ES module, not CommonJS. Its
    /// first part (up to the first `run`) runs as the module's evaluation,
    /// so the microtasks it queues run before its `process.nextTick` ticks.
    Module,
}

impl Directive {
    /// The word after `use`.
    pub fn word(self) -> &'static str {
        match self {
            Directive::Module => "module",
        }
    }

    /// Every directive, for the parser's "expected" list and the generators.
    pub const ALL: &'static [Directive] = &[Directive::Module];
}

/// The options of `addEventListener`, flattened.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ListenerOptions {
    /// `{ once: true }`.
    pub once: bool,
    /// `{ capture: true }`.
    pub capture: bool,
    /// `{ passive: true }`.
    pub passive: bool,
    /// `{ signal }`.
    pub signal: Option<Expr>,
    /// The options are the bare boolean `capture` (`on T TYPE true F`:
    /// `addEventListener(TYPE, F, true)`); `once`, `passive` and `signal`
    /// are then unset.
    #[serde(default)]
    pub as_boolean: bool,
    /// `options V`: the third argument is the value V itself (a number, a
    /// string, `null`, `{}` ...), which Node flattens or refuses; the flags
    /// above are then unset.
    #[serde(default)]
    pub value: Option<Expr>,
}

/// A callback argument: an existing function binding or an inline block.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Callback {
    /// A function value, usually a binding made with `fn`.
    Value(Expr),
    /// An inline function; its body is the block.
    Inline(Block),
}

/// What an `onabort` assignment stores.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Handler {
    /// `onabort s null`.
    Null,
    /// `onabort s "text"` (a string, a number, a boolean, `undefined` or an
    /// error): a value that is not callable, which the setter keeps when it
    /// is an object and makes null otherwise (`[LegacyTreatNonObjectAsNull]`);
    /// either way no handler runs.
    Value(Expr),
    /// `onabort s f` or `onabort s { ... }`.
    Callback(Callback),
}

/// The operands of `onEvents E NAME [signal S] [close C] [highWaterMark
/// H] [lowWaterMark L]` ([`Op::OnEvents`], boxed: it would be the largest
/// operation, and every frame of the recursion through blocks holds one).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct OnEvents {
    /// The emitter.
    pub emitter: Expr,
    /// The event name.
    pub name: Expr,
    /// The `signal` option (any value: Node validates it).
    pub signal: Option<Expr>,
    /// `close C`: an event name that closes the iterator.
    pub close: Option<Expr>,
    /// The `highWaterMark` option (any value: Node validates it).
    pub high_water_mark: Option<Expr>,
    /// The `lowWaterMark` option (any value: Node validates it).
    pub low_water_mark: Option<Expr>,
}

/// An operation: everything a script does to the APIs under test.
///
/// Each variant documents its syntax and the JavaScript it stands for.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// `EXPR` (only after `let NAME =`): binds a value.
    Value(Expr),

    // ---- abort -------------------------------------------------------
    /// `controller`: `new AbortController()`.
    NewController,
    /// `abort C [REASON]`: `C.abort(REASON)`.
    Abort {
        /// The controller.
        controller: Expr,
        /// The reason, or none for the default `AbortError` DOMException.
        reason: Option<Expr>,
    },
    /// `aborted [REASON]`: `AbortSignal.abort(REASON)`.
    SignalAbort {
        /// The reason, or none for the default.
        reason: Option<Expr>,
    },
    /// `timeout MS`: `AbortSignal.timeout(MS)`.
    SignalTimeout {
        /// The delay in ms of the virtual clock.
        ms: u32,
    },
    /// `any [S, ...]`: `AbortSignal.any([S, ...])`; `any set [S, ...]`:
    /// `AbortSignal.any(new Set([S, ...]))`, an iterable that is no array
    /// (and that holds each signal once).
    SignalAny {
        /// The source signals, duplicates allowed.
        signals: Vec<Expr>,
        /// Given as a Set.
        from_set: bool,
    },
    /// `throwIfAborted S`: `S.throwIfAborted()`.
    ThrowIfAborted {
        /// The signal.
        signal: Expr,
    },
    /// `onabort S HANDLER`: `S.onabort = HANDLER`.
    SetOnAbort {
        /// The signal.
        signal: Expr,
        /// The new handler.
        handler: Handler,
    },
    /// `addAbortListener S CALLBACK`: `events.addAbortListener(S, CALLBACK)`,
    /// returning a Disposable.
    AddAbortListener {
        /// The signal.
        signal: Expr,
        /// The listener.
        listener: Callback,
    },
    /// `dispose D`: `D[Symbol.dispose]()`.
    Dispose {
        /// The disposable returned by `addAbortListener`.
        disposable: Expr,
    },
    /// `setMaxListeners N T...`: `events.setMaxListeners(N, T...)`, with one
    /// target or more (the default is [`Op::SetDefaultMaxListeners`]'s).
    SetMaxListeners {
        /// The new maximum (any value: Node validates it).
        n: Expr,
        /// The targets (any values: Node validates each in turn).
        targets: Vec<Expr>,
    },
    /// `getMaxListeners T`: `events.getMaxListeners(T)`.
    GetMaxListeners {
        /// The target (any value: Node validates it).
        target: Expr,
    },

    // ---- EventEmitter (lib/events.js) ----------------------------------
    /// `emitter`: `new EventEmitter()`.
    NewEmitter,
    /// `addListener E NAME F` (`E.on(NAME, F)`), `prependListener E NAME F`,
    /// `once E NAME F`, `prependOnceListener E NAME F`: returns E. An
    /// inline listener's body sees its first two arguments as `arg1` and
    /// `arg2`, and the emitter as `this`.
    EmitterAdd {
        /// The emitter.
        emitter: Expr,
        /// The event name: a string or a symbol.
        name: Expr,
        /// The listener.
        listener: Callback,
        /// `prependListener` or `prependOnceListener`.
        prepend: bool,
        /// `once` or `prependOnceListener`.
        once: bool,
    },
    /// `removeListener E NAME F`: `E.removeListener(NAME, F)`, returns E.
    EmitterRemove {
        /// The emitter.
        emitter: Expr,
        /// The event name.
        name: Expr,
        /// The listener removed.
        listener: Expr,
    },
    /// `removeAllListeners E [NAME]`: `E.removeAllListeners(NAME)`, returns E.
    EmitterRemoveAll {
        /// The emitter.
        emitter: Expr,
        /// The event name, or every name.
        name: Option<Expr>,
    },
    /// `emit E NAME [ARG ...]`: `E.emit(NAME, ARG, ...)`, whether the name
    /// had listeners.
    Emit {
        /// The emitter.
        emitter: Expr,
        /// The event name.
        name: Expr,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `listenerCount E NAME [F]`: `E.listenerCount(NAME, F)`.
    EmitterListenerCount {
        /// The emitter.
        emitter: Expr,
        /// The event name.
        name: Expr,
        /// Only the listeners that are F (or wrap F).
        listener: Option<Expr>,
    },
    /// `eventNames E`: `E.eventNames()`, an array.
    EventNames {
        /// The emitter.
        emitter: Expr,
    },
    /// `listeners E NAME` or `rawListeners E NAME`: a copy of the
    /// listener array (`rawListeners` keeps the `once` wrappers).
    EmitterListeners {
        /// The emitter.
        emitter: Expr,
        /// The event name.
        name: Expr,
        /// `rawListeners`.
        raw: bool,
    },
    /// `eventsKeyCount E`: `Object.keys(E._events).length`, the string
    /// keys Node's `_events` object holds (what a leak of event names
    /// would grow).
    EventsKeyCount {
        /// The emitter.
        emitter: Expr,
    },
    /// `setDefaultMaxListeners N`: `events.defaultMaxListeners = N`, whose
    /// value is N; the setter validates N.
    SetDefaultMaxListeners {
        /// The new default (any value: Node validates it).
        n: Expr,
    },
    /// `onceEvent E NAME [signal S]`: `events.once(E, NAME, { signal: S })`,
    /// a promise of the array of the event's arguments.
    OnceEvent {
        /// The emitter.
        emitter: Expr,
        /// The event name.
        name: Expr,
        /// The `signal` option (any value: Node validates it).
        signal: Option<Expr>,
    },

    /// `onEvents E NAME [signal S]`: `events.on(E, NAME, { signal: S })`,
    /// an async iterator of the event's emits (`next` and `iterReturn`
    /// read it): each `next()` a promise of `{ value, done }` whose value
    /// is the array of one emit's arguments.
    OnEvents(Box<OnEvents>),
    /// `iterThrow I V`: `I.throw(V)` of an `events.on` iterator, whose
    /// value is undefined.
    IterThrow {
        /// The iterator.
        iterator: Expr,
        /// The error (any value: Node validates it).
        value: Expr,
    },
    /// `emitter captureRejections`: `new EventEmitter({ captureRejections:
    /// true })`.
    NewCapturingEmitter,
    /// `onRejection E F`: `E[Symbol.for('nodejs.rejection')] = F`, whose
    /// value is F.
    OnRejection {
        /// The emitter.
        emitter: Expr,
        /// The method (any value: Node calls it only if it is a function).
        function: Expr,
    },

    // ---- async context -----------------------------------------------
    /// `als [default V]`: `new AsyncLocalStorage()`, or with
    /// `{ defaultValue: V }`.
    NewAls {
        /// The default value `getStore` returns outside a store.
        default: Option<Expr>,
    },
    /// `getStore A`: `A.getStore()`.
    GetStore {
        /// The AsyncLocalStorage.
        als: Expr,
    },
    /// `enterWith A V`: `A.enterWith(V)`.
    EnterWith {
        /// The AsyncLocalStorage.
        als: Expr,
        /// The store.
        value: Expr,
    },
    /// `alsRun A V {`: `A.run(V, () => { ... })`, the callback's value.
    AlsRun {
        /// The AsyncLocalStorage.
        als: Expr,
        /// The store.
        value: Expr,
        /// The callback, called at once.
        body: Block,
    },
    /// `alsExit A {`: `A.exit(() => { ... })`, the callback's value.
    AlsExit {
        /// The AsyncLocalStorage.
        als: Expr,
        /// The callback, called at once.
        body: Block,
    },
    /// `disable A`: `A.disable()`.
    DisableAls {
        /// The AsyncLocalStorage.
        als: Expr,
    },
    /// `bind F`: `AsyncLocalStorage.bind(F)`; `bind R F`: `R.bind(F)` on an
    /// AsyncResource. A function.
    Bind {
        /// The AsyncResource, for `R.bind`.
        resource: Option<Expr>,
        /// The function bound.
        function: Expr,
    },
    /// `snapshot`: `AsyncLocalStorage.snapshot()`, a function that calls
    /// its first argument with the rest, in the frame of now.
    Snapshot,
    /// `call F [ARG ...]`: `F(ARG, ...)`, its value.
    Call {
        /// The function.
        function: Expr,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `asyncResource TYPE`: `new AsyncResource(TYPE)`.
    NewAsyncResource {
        /// The resource's type, a string.
        kind: Expr,
    },
    /// `runInAsyncScope R {`: `R.runInAsyncScope(() => { ... })`, the
    /// callback's value.
    RunInAsyncScope {
        /// The AsyncResource.
        resource: Expr,
        /// The callback, called at once.
        body: Block,
    },
    /// `emitDestroy R`: `R.emitDestroy()`, which returns R.
    EmitDestroy {
        /// The AsyncResource.
        resource: Expr,
    },
    /// `native MS [resource] F` / `native MS [resource] {`: a native
    /// callback into JavaScript from a libuv timer due in MS: the addon's
    /// `makeCallbackAfter(MS, F)` (node::MakeCallback without an async
    /// context frame) or, with `resource`, `makeResourceCallbackAfter(MS,
    /// F)` (a node::AsyncResource made now, which keeps the frame of now).
    NativeCallback {
        /// The delay, in ms.
        ms: u32,
        /// Through a node::AsyncResource.
        resource: bool,
        /// The callback.
        callback: Callback,
    },

    // ---- dispatch ----------------------------------------------------
    /// `target`: `new EventTarget()`.
    NewTarget,
    /// `fn { ... }`: a function value, for listeners that are added or
    /// removed by name. Its body sees the event as `event`.
    Function(Block),
    /// `handleEvent { ... }`: an EventListener object, `{ handleEvent(event)
    /// { ... } }`, for `on` and `off` by name; Node calls its `handleEvent`
    /// with the object as `this`, through an async wrapper.
    ListenerObject(Block),
    /// `fn async { ... }`: an async function value (`async function
    /// (event) { ... }`), for listeners added by name; its body may
    /// `await`, and a call returns its promise.
    AsyncFunction(Block),
    /// `async { ... }`: an async arrow function called at once, `(async ()
    /// => { ... })()`, whose value is its promise. Its body may `await`.
    Async(Block),
    /// `await V`: inside an async body only, `await V` (ECMA-262 27.7.5.3
    /// Await): the body resumes a microtask after V (through
    /// `Promise.resolve`) settles, with its value, or throws its reason.
    Await(Expr),
    /// `on T TYPE [once] [capture] [passive] [signal S] CALLBACK`:
    /// `T.addEventListener(TYPE, CALLBACK, { once, capture, passive, signal })`.
    AddEventListener {
        /// The event target (or signal).
        target: Expr,
        /// The event type.
        event_type: String,
        /// The listener.
        listener: Callback,
        /// The options.
        options: ListenerOptions,
    },
    /// `off T TYPE F [capture]`: `T.removeEventListener(TYPE, F, { capture })`;
    /// `off T TYPE F true|false`: `T.removeEventListener(TYPE, F, true|false)`.
    RemoveEventListener {
        /// The event target (or signal).
        target: Expr,
        /// The event type.
        event_type: String,
        /// The listener function.
        listener: Expr,
        /// The capture flag that identifies the listener.
        capture: bool,
        /// Whether `capture` is passed as a bare boolean, not in an object.
        #[serde(default)]
        as_boolean: bool,
    },
    /// `dispatch T TYPE [cancelable]`:
    /// `T.dispatchEvent(new Event(TYPE, { cancelable }))`, returning its result.
    Dispatch {
        /// The event target (or signal).
        target: Expr,
        /// The event type.
        event_type: String,
        /// Whether the event is cancelable.
        cancelable: bool,
    },
    /// `new Event [TYPE [bubbles] [cancelable] [composed]]` or `new
    /// CustomEvent [TYPE [detail V] [bubbles] [cancelable] [composed]]`:
    /// an event made outside any dispatch (without a type, the constructor
    /// throws Node's ERR_MISSING_ARGS; the options need a type before them).
    NewEvent {
        /// `CustomEvent` rather than `Event`.
        custom: bool,
        /// The type; `None` calls the constructor without arguments.
        event_type: Option<String>,
        /// `detail` of a CustomEvent.
        detail: Option<Expr>,
        /// `bubbles: true`.
        bubbles: bool,
        /// `cancelable: true`.
        cancelable: bool,
        /// `composed: true`.
        composed: bool,
    },
    /// `new AbortSignal`: `new AbortSignal()`, which Node refuses
    /// (ERR_ILLEGAL_CONSTRUCTOR).
    NewAbortSignal,
    /// `dispatchEvent T E`: `T.dispatchEvent(E)` of an event the script
    /// holds (made by `new Event`, or one being dispatched), its boolean
    /// result; E may be any value, which Node validates.
    DispatchEvent {
        /// The target.
        target: Expr,
        /// The event.
        event: Expr,
    },
    /// `composedPath E`: `E.composedPath()`, an array.
    ComposedPath {
        /// The event.
        event: Expr,
    },
    /// `set E.returnValue V` or `set E.cancelBubble V`: the two writable
    /// attributes of an Event.
    SetEventAttribute {
        /// The event.
        event: Expr,
        /// Which attribute.
        attribute: EventAttribute,
        /// The value assigned.
        value: Expr,
    },
    /// `preventDefault E`: `E.preventDefault()`.
    PreventDefault {
        /// The event.
        event: Expr,
    },
    /// `stopPropagation E`: `E.stopPropagation()`.
    StopPropagation {
        /// The event.
        event: Expr,
    },
    /// `stopImmediatePropagation E`: `E.stopImmediatePropagation()`.
    StopImmediatePropagation {
        /// The event.
        event: Expr,
    },

    // ---- event loop --------------------------------------------------
    /// `microtask { ... }`: `queueMicrotask(() => { ... })`.
    QueueMicrotask(Block),
    /// `tick { ... }`: `process.nextTick(() => { ... })`.
    NextTick(Block),
    /// `setTimeout MS { ... }`: `setTimeout(() => { ... }, MS)`, returning
    /// the timer.
    SetTimeout {
        /// The delay in ms of the virtual clock.
        ms: u32,
        /// The callback body.
        body: Block,
    },
    /// `setInterval MS { ... }`: `setInterval(() => { ... }, MS)`, returning
    /// the timer, which fires every MS until it is cleared.
    SetInterval {
        /// The period in ms of the virtual clock.
        ms: u32,
        /// The callback body.
        body: Block,
    },
    /// `clearInterval H`: the same as `clearTimeout H`, under its other
    /// name.
    ClearInterval {
        /// The timer.
        timer: Expr,
    },
    /// `unref H` / `ref H`: `H.unref()` or `H.ref()`, whether the timer
    /// keeps the event loop alive; its value is the timer.
    TimerRef {
        /// The timer.
        timer: Expr,
        /// `ref` rather than `unref`.
        refed: bool,
    },
    /// `clearTimeout H`.
    ClearTimeout {
        /// The timer.
        timer: Expr,
    },
    /// `setImmediate { ... }`, returning the immediate.
    SetImmediate(Block),
    /// `clearImmediate H`.
    ClearImmediate {
        /// The immediate.
        immediate: Expr,
    },

    // ---- promises ----------------------------------------------------
    /// `promise`: a new pending promise whose resolving functions the script
    /// keeps (`new Promise((res, rej) => ...)`).
    NewPromise,
    /// `set NAME V`: `NAME = V`, assigning a binding made by `let` (or an
    /// implicit parameter) that holds a plain value; its value is V.
    Assign {
        /// The binding, an [`Expr::Var`].
        target: Expr,
        /// The value assigned.
        value: Expr,
    },
    /// `withResolvers`: `Promise.withResolvers()`, a `{ promise, resolve,
    /// reject }` record; `resolve R.promise V` calls its resolve.
    WithResolvers,
    /// `process off uncaughtException` or `process off unhandledRejection`:
    /// the run goes on without the engine's handler of that process event,
    /// as a program that never installed one.
    ProcessOff(ProcessEvent),
    /// `resolve P [V]`: calls P's resolve function with V (a thenable V takes
    /// the extra ticks of NewPromiseResolveThenableJob).
    Resolve {
        /// A promise made with `promise`.
        promise: Expr,
        /// The resolution.
        value: Option<Expr>,
    },
    /// `reject P [V]`: calls P's reject function with V.
    Reject {
        /// A promise made with `promise`.
        promise: Expr,
        /// The rejection reason.
        value: Option<Expr>,
    },
    /// `then P [{ ... }] [else { ... }]`: `P.then(onFulfilled, onRejected)`,
    /// returning the derived promise. The fulfilment body sees `value`, the
    /// rejection body sees `reason`.
    Then {
        /// The promise.
        promise: Expr,
        /// The fulfilment reaction body.
        on_fulfilled: Option<Block>,
        /// The rejection reaction body.
        on_rejected: Option<Block>,
    },
    /// `catch P { ... }`: `P.catch(reason => { ... })`.
    Catch {
        /// The promise.
        promise: Expr,
        /// The rejection reaction body; it sees `reason`.
        on_rejected: Block,
    },
    /// `finally P { ... }`: `P.finally(() => { ... })`.
    Finally {
        /// The promise.
        promise: Expr,
        /// The body.
        on_finally: Block,
    },
    /// `resolved V`: `Promise.resolve(V)`.
    PromiseResolve {
        /// The value.
        value: Expr,
    },
    /// `rejected V`: `Promise.reject(V)`.
    PromiseReject {
        /// The reason.
        value: Expr,
    },
    /// `thenable V [{ ... }]`: `{ then(resolve) { ...; resolve(V); } }`.
    /// The body, when there is one, runs inside `then` before it resolves
    /// (so a log shows when the engine calls `then`); a throw from it
    /// rejects instead.
    Thenable {
        /// The value the thenable resolves with.
        value: Expr,
        /// Script code that `then` runs first.
        body: Option<Block>,
    },
    /// `all [...]`, `allSettled [...]`, `race [...]` or `promiseAny [...]`:
    /// `Promise.all([...])` and its siblings over an array of any values.
    Combinator {
        /// Which static method.
        kind: Combinator,
        /// The array's elements.
        values: Vec<Expr>,
    },
    /// `ruler N`: a microtask ruler, `Promise.resolve().then(() => log t1)
    /// .then(() => log t2)` ... up to `tN`: the line `tK` is logged on the
    /// K-th microtask from here, so a step that moves by one tick shows.
    Ruler {
        /// How many marks (1 to [`crate::limits::MAX_RULER`]).
        ticks: u32,
    },

    // ---- streams -----------------------------------------------------
    /// `readable [highWaterMark N] [size {] ... [} start {] ... [} pull {]
    /// ... [} cancel {] ... }`: `new ReadableStream({ start(controller) {
    /// ... }, pull(controller) { ... }, cancel(reason) { ... } }, {
    /// highWaterMark: N, size(chunk) { ... } })`, each part optional
    /// (`readable` alone is `new ReadableStream()`). `start` and `pull` see
    /// `controller`, `cancel` sees `reason`, `size` sees `chunk`; what they
    /// `return` is what the stream waits on (and, for `size`, the chunk's
    /// size).
    NewReadable {
        /// The queuing strategy.
        strategy: Strategy,
        /// The source's `start`.
        start: Option<Block>,
        /// The source's `pull`.
        pull: Option<Block>,
        /// The source's `cancel`.
        cancel: Option<Block>,
    },
    /// `enqueue C V`: `C.enqueue(V)` on a ReadableStreamDefaultController.
    Enqueue {
        /// The controller.
        controller: Expr,
        /// The chunk.
        chunk: Expr,
    },
    /// `close C`: `C.close()` on a ReadableStreamDefaultController.
    CloseController {
        /// The controller.
        controller: Expr,
    },
    /// `error C V`: `C.error(V)` on a ReadableStreamDefaultController.
    ErrorController {
        /// The controller.
        controller: Expr,
        /// The error.
        error: Expr,
    },
    /// `getReader S`: `S.getReader()`, a ReadableStreamDefaultReader.
    GetReader {
        /// The stream.
        stream: Expr,
    },
    /// `read R`: `R.read()`, a promise of `{ value, done }`.
    Read {
        /// The reader.
        reader: Expr,
    },
    /// `releaseLock R`: `R.releaseLock()`.
    ReleaseLock {
        /// The reader.
        reader: Expr,
    },
    /// `cancel X [V]`: `X.cancel(V)` on a ReadableStream or a reader, a
    /// promise.
    Cancel {
        /// The stream or reader.
        target: Expr,
        /// The reason; none calls `cancel()` without an argument.
        reason: Option<Expr>,
    },
    /// `writable [highWaterMark N] [size {] ... [} start {] ... [} write {]
    /// ... [} close {] ... [} abort {] ... }`: `new WritableStream({
    /// start(controller) {}, write(chunk, controller) {}, close() {},
    /// abort(reason) {} }, { highWaterMark: N, size(chunk) {} })`, each
    /// part optional. `start` and `write` see `controller` (a
    /// WritableStreamDefaultController), `write` and `size` see `chunk`,
    /// `abort` sees `reason`.
    NewWritable {
        /// The queuing strategy.
        strategy: Strategy,
        /// The sink's `start`.
        start: Option<Block>,
        /// The sink's `write`.
        write: Option<Block>,
        /// The sink's `close`.
        close: Option<Block>,
        /// The sink's `abort`.
        abort: Option<Block>,
    },
    /// `getWriter W`: `W.getWriter()`, a WritableStreamDefaultWriter.
    GetWriter {
        /// The stream.
        stream: Expr,
    },
    /// `write W V`: `W.write(V)` on a writer, a promise.
    Write {
        /// The writer.
        writer: Expr,
        /// The chunk.
        chunk: Expr,
    },
    /// `close X` on a WritableStream or its writer: `X.close()`, a promise.
    /// (`close` on a ReadableStream's controller is [`Op::CloseController`].)
    CloseWritable {
        /// The stream or writer.
        target: Expr,
    },
    /// `abort X [V]` on a WritableStream or its writer: `X.abort(V)`, a
    /// promise. (`abort` on an AbortController is [`Op::Abort`].)
    AbortWritable {
        /// The stream or writer.
        target: Expr,
        /// The reason; none calls `abort()` without an argument.
        reason: Option<Expr>,
    },
    /// `transform [writableHighWaterMark N] [readableHighWaterMark N]
    /// [start {] ... [} transform {] ... [} flush {] ... [} cancel {] ...
    /// }`: `new TransformStream({ start(controller) {},
    /// transform(chunk, controller) {}, flush(controller) {},
    /// cancel(reason) {} }, { highWaterMark: W }, { highWaterMark: R })`.
    /// `start`, `transform` and `flush` see `controller` (a
    /// TransformStreamDefaultController), `transform` sees `chunk`,
    /// `cancel` sees `reason`.
    NewTransform {
        /// The writable side's highWaterMark, when given.
        writable_high_water_mark: Option<Number>,
        /// The readable side's highWaterMark, when given.
        readable_high_water_mark: Option<Number>,
        /// The transformer's `start`.
        start: Option<Block>,
        /// The transformer's `transform`.
        transform: Option<Block>,
        /// The transformer's `flush`.
        flush: Option<Block>,
        /// The transformer's `cancel`.
        cancel: Option<Block>,
    },
    /// `terminate C`: `C.terminate()` on a TransformStreamDefaultController.
    Terminate {
        /// The controller.
        controller: Expr,
    },
    /// `pipeTo R W [preventClose] [preventAbort] [preventCancel] [signal
    /// S]`: `R.pipeTo(W, { ... })`, a promise.
    PipeTo {
        /// The ReadableStream.
        source: Expr,
        /// The WritableStream.
        dest: Expr,
        /// The options.
        options: PipeOptions,
    },
    /// `pipeThrough R T [preventClose] [preventAbort] [preventCancel]
    /// [signal S]`: `R.pipeThrough(T, { ... })` with a TransformStream,
    /// its readable side.
    PipeThrough {
        /// The ReadableStream.
        source: Expr,
        /// The TransformStream.
        transform: Expr,
        /// The options.
        options: PipeOptions,
    },
    /// `from [V, ...]`: `ReadableStream.from([V, ...])`, over an array (a
    /// sync iterable); `from async [V, ...]`: over an async generator that
    /// yields each value in turn, `ReadableStream.from((async function* ()
    /// { yield V; ... })())`.
    From {
        /// Whether the iterable is an async generator.
        is_async: bool,
        /// The values, at most [`crate::limits::MAX_LIST`].
        values: Vec<Expr>,
    },
    /// `values S [preventCancel]`: `S.values({ preventCancel })`, the
    /// stream's async iterator (what `for await` uses).
    Values {
        /// The stream.
        stream: Expr,
        /// `preventCancel: true`.
        prevent_cancel: bool,
    },
    /// `next I`: `I.next()` on a stream's async iterator, a promise of `{
    /// value, done }`.
    Next {
        /// The iterator.
        iterator: Expr,
    },
    /// `iterReturn I [V]`: `I.return(V)` on a stream's async iterator, a
    /// promise, as `break` in `for await` calls it.
    IterReturn {
        /// The iterator.
        iterator: Expr,
        /// The value; none calls `return()` without an argument.
        value: Option<Expr>,
    },

    // ---- byte streams ---------------------------------------------------
    /// `bytes [B, ...]`: `new Uint8Array([B, ...])`, each B a whole number
    /// from 0 to 255; `bytes N`: `new Uint8Array(N)`, N zero bytes.
    NewBytes(BytesInit),
    /// `subarray V START [END]`: `V.subarray(START, END)`, a Uint8Array
    /// over the same ArrayBuffer; START and END are whole numbers, a
    /// negative one counting from the end.
    Subarray {
        /// The Uint8Array.
        view: Expr,
        /// The first index.
        start: i32,
        /// The index after the last; none is `subarray(START)`.
        end: Option<i32>,
    },
    /// `readable bytes [highWaterMark N] [autoAllocateChunkSize N] [start
    /// {] ... [} pull {] ... [} cancel {] ... }`: `new ReadableStream({
    /// type: "bytes", autoAllocateChunkSize: N, start(controller) {},
    /// pull(controller) {}, cancel(reason) {} }, { highWaterMark: N })`.
    /// `start` and `pull` see `controller`, a ReadableByteStreamController.
    NewReadableBytes {
        /// The strategy's highWaterMark, when given.
        high_water_mark: Option<Number>,
        /// The source's `autoAllocateChunkSize`, when given.
        auto_allocate_chunk_size: Option<Number>,
        /// The source's `start`.
        start: Option<Block>,
        /// The source's `pull`.
        pull: Option<Block>,
        /// The source's `cancel`.
        cancel: Option<Block>,
    },
    /// `getReader S byob`: `S.getReader({ mode: "byob" })`, a
    /// ReadableStreamBYOBReader.
    GetByobReader {
        /// The stream.
        stream: Expr,
    },
    /// `read R V [min N]` on a BYOB reader: `R.read(V, { min: N })`, a
    /// promise of `{ value, done }`.
    ReadInto {
        /// The reader.
        reader: Expr,
        /// The view to read into.
        view: Expr,
        /// The `min` option, when given.
        min: Option<Expr>,
    },
    /// `respond Q N`: `Q.respond(N)` on a ReadableStreamBYOBRequest.
    Respond {
        /// The request.
        request: Expr,
        /// The number of bytes written.
        bytes_written: Expr,
    },
    /// `respondWithNewView Q V`: `Q.respondWithNewView(V)`.
    RespondWithNewView {
        /// The request.
        request: Expr,
        /// The view.
        view: Expr,
    },

    // ---- gc: WeakRef and FinalizationRegistry --------------------------
    /// `weakref V`: `new WeakRef(V)`.
    NewWeakRef {
        /// The target (an object; anything else is V8's TypeError).
        target: Expr,
    },
    /// `deref W`: `W.deref()`.
    Deref {
        /// The WeakRef.
        weak_ref: Expr,
    },
    /// `registry {` ... `}` or `registry F`: `new FinalizationRegistry(held
    /// => { ... })`; the body sees `held`.
    NewRegistry(Callback),
    /// `register R TARGET HELD [token T]`: `R.register(TARGET, HELD, T)`.
    Register {
        /// The FinalizationRegistry.
        registry: Expr,
        /// The object whose collection is watched.
        target: Expr,
        /// The held value the cleanup callback gets.
        held: Expr,
        /// The unregister token, when one is given.
        token: Option<Expr>,
    },
    /// `unregister R T`: `R.unregister(T)`, whether a cell was removed.
    Unregister {
        /// The FinalizationRegistry.
        registry: Expr,
        /// The unregister token.
        token: Expr,
    },
    /// `dependants S`: the size of S's set of dependant signals (the
    /// composites of `AbortSignal.any` that follow it), as Node's
    /// `signal[kDependantSignals]?.size ?? 0` reports it: a composite that
    /// was collected counts until Node's cleanup callback removes it.
    Dependants {
        /// The signal.
        signal: Expr,
    },
}

/// What `bytes` makes a Uint8Array of.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BytesInit {
    /// `bytes [B, ...]`: these bytes.
    Values(Vec<u8>),
    /// `bytes N`: N zero bytes, at most [`crate::limits::MAX_BYTES`].
    Zeros(u32),
}

/// The queuing strategy of a ReadableStream or WritableStream: `{
/// highWaterMark, size }`, each optional.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Strategy {
    /// `highWaterMark: N`.
    pub high_water_mark: Option<Number>,
    /// `size(chunk) { ... }`.
    pub size: Option<Block>,
}

/// The options of `pipeTo` and `pipeThrough` (StreamPipeOptions).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PipeOptions {
    /// `preventClose: true`.
    pub prevent_close: bool,
    /// `preventAbort: true`.
    pub prevent_abort: bool,
    /// `preventCancel: true`.
    pub prevent_cancel: bool,
    /// `signal: S`.
    pub signal: Option<Expr>,
}

impl PipeOptions {
    /// Whether no option is given (`pipeTo(W)` with one argument).
    pub fn is_empty(&self) -> bool {
        !self.prevent_close && !self.prevent_abort && !self.prevent_cancel && self.signal.is_none()
    }
}

/// The writable attributes of an Event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EventAttribute {
    /// `returnValue`: assigning a falsy value cancels the event.
    ReturnValue,
    /// `cancelBubble`: assigning a truthy value stops propagation.
    CancelBubble,
}

impl EventAttribute {
    /// Its name in JavaScript.
    pub fn name(self) -> &'static str {
        match self {
            EventAttribute::ReturnValue => "returnValue",
            EventAttribute::CancelBubble => "cancelBubble",
        }
    }
}

/// The static methods of `Promise` that combine an iterable of values
/// (ECMA-262, 27.2.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Combinator {
    /// `Promise.all`: fulfils with every value, rejects with the first
    /// reason.
    All,
    /// `Promise.allSettled`: fulfils with a `{ status, value }` or
    /// `{ status, reason }` record for each.
    AllSettled,
    /// `Promise.race`: settles as the first to settle.
    Race,
    /// `Promise.any`: fulfils with the first value, rejects with an
    /// AggregateError of every reason.
    Any,
}

impl Combinator {
    /// Every combinator.
    pub const ALL: [Combinator; 4] = [
        Combinator::All,
        Combinator::AllSettled,
        Combinator::Race,
        Combinator::Any,
    ];

    /// The scenario keyword. `any` is `AbortSignal.any`, so `Promise.any`
    /// is `promiseAny`.
    pub fn keyword(self) -> &'static str {
        match self {
            Combinator::All => "all",
            Combinator::AllSettled => "allSettled",
            Combinator::Race => "race",
            Combinator::Any => "promiseAny",
        }
    }

    /// The method's name on `Promise`.
    pub fn method(self) -> &'static str {
        match self {
            Combinator::All => "all",
            Combinator::AllSettled => "allSettled",
            Combinator::Race => "race",
            Combinator::Any => "any",
        }
    }
}

/// An expression: a literal, a binding, a property read or a new Error.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expr {
    /// `undefined`.
    Undefined,
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer such as `42` or `-1`.
    Int(i64),
    /// A number that is no safe integer: a fraction such as `1.5`, `-0`,
    /// `NaN` or `Infinity`.
    Number(Number),
    /// `Symbol()` or `Symbol("description")`: a new symbol each time it is
    /// evaluated.
    Symbol(Option<String>),
    /// `{}`: a new plain object each time it is evaluated.
    Object,
    /// `A.constructor.name`: the name of A's constructor (`AbortSignal`,
    /// `CustomEvent`, `AsyncFunction`, `Number`, ...).
    ConstructorName(Box<Expr>),
    /// `Event.AT_TARGET`, `DOMException.ABORT_ERR`: a constant of the
    /// Event or DOMException interface object ([`EVENT_CONSTANTS`],
    /// [`DOM_EXCEPTION_CONSTANTS`]).
    ClassConstant(Class, Name),
    /// A string literal such as `"boom"`.
    Str(String),
    /// A binding, or one of the implicit parameters `event`, `value`, `reason`.
    Var(Binding),
    /// `EXPR.NAME`: a property read.
    Prop(Box<Expr>, Name),
    /// `Error("message")`: `new Error("message")`.
    NewError(String),
    /// `TypeError("message")` or `RangeError("message")`: a new error of a
    /// built-in class other than `Error`.
    NewBuiltinError {
        /// The class.
        class: BuiltinError,
        /// The message.
        message: String,
    },
    /// `DOMException("message", "Name")`: `new DOMException(message, name)`.
    NewDomException {
        /// The message.
        message: String,
        /// The name, such as `AbortError` or `TimeoutError`.
        name: String,
    },
    /// `this`: the receiver of the innermost callback running (undefined at
    /// the top level, which is module code).
    This,
    /// `add A B`: `A + B` of two primitive values (numbers add, a string
    /// concatenates); an object operand is a TypeError in every engine.
    Add(Box<Expr>, Box<Expr>),
    /// `less A B`: `A < B` of two primitive values (two strings compare by
    /// code units, anything else as numbers); an object operand is a
    /// TypeError in every engine.
    Less(Box<Expr>, Box<Expr>),
    /// `arguments.length`: how many arguments the innermost callback was
    /// called with (only inside callbacks).
    ArgumentCount,
    /// `errorMonitor`: `events.errorMonitor`, the symbol whose listeners an
    /// `emit("error", ...)` calls before the `'error'` listeners.
    ErrorMonitor,
    /// `defaultMaxListeners`: `events.defaultMaxListeners`.
    DefaultMaxListeners,
    /// `same A B`: `Object.is(A, B)`, whether two values are the same (for
    /// objects: the same object). Neither operand is a `same` or `typeof`.
    Same(Box<Expr>, Box<Expr>),
    /// `typeof A`: JavaScript's `typeof A`. The operand is not a `same` or
    /// `typeof`.
    TypeOf(Box<Expr>),
    /// `instanceof A CLASS`: JavaScript's `A instanceof CLASS`. The operand
    /// is not a `same`, `typeof` or `instanceof`.
    InstanceOf(Box<Expr>, Class),
    /// `timeout MS` or `any [...]` written as an element of an `any` list:
    /// a signal made in place that no binding ever holds
    /// (`AbortSignal.any([AbortSignal.timeout(5)])`), so that after the
    /// statement only Node's own bookkeeping can keep it.
    Temporary(Box<Temporary>),
}

/// A signal made in place as an element of an `any` list
/// ([`Expr::Temporary`]). An inner `any` list holds no `any` temporary of
/// its own, so they nest two deep at most
/// ([`crate::limits::MAX_TEMPORARY_DEPTH`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Temporary {
    /// `timeout MS`: `AbortSignal.timeout(MS)`, as [`Op::SignalTimeout`].
    Timeout(u32),
    /// `any [S, ...]` or `any set [S, ...]`: `AbortSignal.any(...)`, as
    /// [`Op::SignalAny`].
    Any {
        /// The source signals.
        signals: Vec<Expr>,
        /// Given as a Set.
        from_set: bool,
    },
}

impl Temporary {
    /// The expressions inside (an inner `any`'s signals).
    pub fn exprs(&self) -> &[Expr] {
        match self {
            Temporary::Timeout(_) => &[],
            Temporary::Any { signals, .. } => signals,
        }
    }

    /// [`Temporary::exprs`], mutably.
    pub fn exprs_mut(&mut self) -> &mut [Expr] {
        match self {
            Temporary::Timeout(_) => &mut [],
            Temporary::Any { signals, .. } => signals,
        }
    }
}

/// The four ways to add an EventEmitter listener ([`Op::EmitterAdd`]):
/// `(prepend, once)`, the language's word, and the emitter's method.
pub const EMITTER_ADD_FORMS: [(bool, bool, &str, &str); 4] = [
    (false, false, "addListener", "on"),
    (true, false, "prependListener", "prependListener"),
    (false, true, "once", "once"),
    (true, true, "prependOnceListener", "prependOnceListener"),
];

/// The language's word and the emitter's method of an
/// [`Op::EmitterAdd`] with these flags.
pub fn emitter_add_form(prepend: bool, once: bool) -> (&'static str, &'static str) {
    let (_, _, word, method) = EMITTER_ADD_FORMS
        .into_iter()
        .find(|f| (f.0, f.1) == (prepend, once))
        .expect("every pair of flags has a form");
    (word, method)
}

/// The constants of the Event interface (DOM Standard, interface Event),
/// with their values.
pub const EVENT_CONSTANTS: [(&str, u16); 4] = [
    ("NONE", 0),
    ("CAPTURING_PHASE", 1),
    ("AT_TARGET", 2),
    ("BUBBLING_PHASE", 3),
];

/// DOMException's legacy code constants with their values, and the error
/// name that Web IDL's error names table gives each code
/// (<https://webidl.spec.whatwg.org/#idl-DOMException-error-names>): empty
/// for the three constants whose names the table leaves out
/// (`DOMSTRING_SIZE_ERR`, `NO_DATA_ALLOWED_ERR`, `VALIDATION_ERR`).
pub const DOM_EXCEPTION_CONSTANTS: [(&str, u16, &str); 25] = [
    ("INDEX_SIZE_ERR", 1, "IndexSizeError"),
    ("DOMSTRING_SIZE_ERR", 2, ""),
    ("HIERARCHY_REQUEST_ERR", 3, "HierarchyRequestError"),
    ("WRONG_DOCUMENT_ERR", 4, "WrongDocumentError"),
    ("INVALID_CHARACTER_ERR", 5, "InvalidCharacterError"),
    ("NO_DATA_ALLOWED_ERR", 6, ""),
    (
        "NO_MODIFICATION_ALLOWED_ERR",
        7,
        "NoModificationAllowedError",
    ),
    ("NOT_FOUND_ERR", 8, "NotFoundError"),
    ("NOT_SUPPORTED_ERR", 9, "NotSupportedError"),
    ("INUSE_ATTRIBUTE_ERR", 10, "InUseAttributeError"),
    ("INVALID_STATE_ERR", 11, "InvalidStateError"),
    ("SYNTAX_ERR", 12, "SyntaxError"),
    ("INVALID_MODIFICATION_ERR", 13, "InvalidModificationError"),
    ("NAMESPACE_ERR", 14, "NamespaceError"),
    ("INVALID_ACCESS_ERR", 15, "InvalidAccessError"),
    ("VALIDATION_ERR", 16, ""),
    ("TYPE_MISMATCH_ERR", 17, "TypeMismatchError"),
    ("SECURITY_ERR", 18, "SecurityError"),
    ("NETWORK_ERR", 19, "NetworkError"),
    ("ABORT_ERR", 20, "AbortError"),
    ("URL_MISMATCH_ERR", 21, "URLMismatchError"),
    ("QUOTA_EXCEEDED_ERR", 22, "QuotaExceededError"),
    ("TIMEOUT_ERR", 23, "TimeoutError"),
    ("INVALID_NODE_TYPE_ERR", 24, "InvalidNodeTypeError"),
    ("DATA_CLONE_ERR", 25, "DataCloneError"),
];

/// A DOMException's `code`: the legacy code of its name in the error names
/// table, 0 for a name the table gives none (the pinned Node 26.12.1 gives
/// `DOMStringSizeError` 0 too: scenario `identity/error_names_messages_and_codes`).
pub fn dom_exception_code(name: &str) -> u16 {
    DOM_EXCEPTION_CONSTANTS
        .iter()
        .find(|(_, _, error)| !error.is_empty() && *error == name)
        .map_or(0, |(_, code, _)| *code)
}

/// The names of `class`'s constants (Event's or DOMException's), in order.
pub fn class_constant_names(class: Class) -> Vec<&'static str> {
    match class {
        Class::Event => EVENT_CONSTANTS.iter().map(|(n, _)| *n).collect(),
        Class::DomException => DOM_EXCEPTION_CONSTANTS.iter().map(|(n, ..)| *n).collect(),
        _ => Vec::new(),
    }
}

/// The value of constant `name` of `class` (Event or DOMException), if it
/// has one.
pub fn class_constant(class: Class, name: &str) -> Option<u16> {
    match class {
        Class::Event => EVENT_CONSTANTS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v),
        Class::DomException => DOM_EXCEPTION_CONSTANTS
            .iter()
            .find(|(n, ..)| *n == name)
            .map(|(_, v, _)| *v),
        _ => None,
    }
}

/// A process event whose handler a scenario can go without
/// ([`Op::ProcessOff`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ProcessEvent {
    /// `uncaughtException`: without a handler, the first uncaught exception
    /// ends the process with exit code 1.
    UncaughtException,
    /// `unhandledRejection`: without a handler, Node's default
    /// `--unhandled-rejections=throw` raises each unhandled rejection as an
    /// uncaught exception whose origin is `unhandledRejection`.
    UnhandledRejection,
}

impl ProcessEvent {
    /// Every process event, in the order the language reference lists them.
    pub const ALL: [ProcessEvent; 2] = [
        ProcessEvent::UncaughtException,
        ProcessEvent::UnhandledRejection,
    ];

    /// The event's name, as `process.on` takes it.
    pub fn name(self) -> &'static str {
        match self {
            ProcessEvent::UncaughtException => "uncaughtException",
            ProcessEvent::UnhandledRejection => "unhandledRejection",
        }
    }
}

/// The value of a number literal that is no safe integer ([`Expr::Number`]),
/// kept as its bits so that the tree stays `Eq` and `Hash`; every NaN is
/// the one canonical NaN.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Number(u64);

impl Number {
    /// The literal of this value.
    pub fn new(value: f64) -> Number {
        Number(if value.is_nan() {
            f64::NAN.to_bits()
        } else {
            value.to_bits()
        })
    }

    /// Its value.
    pub fn value(self) -> f64 {
        f64::from_bits(self.0)
    }

    /// How the literal is written, in a scenario and in JavaScript alike:
    /// `-0` for negative zero (which `String` prints as `0`), `NaN`,
    /// `Infinity`, else the value as JavaScript's `String` prints it.
    pub fn text(self) -> String {
        let v = self.value();
        if v == 0.0 && v.is_sign_negative() {
            "-0".into()
        } else {
            number_to_string(v)
        }
    }
}

impl std::fmt::Debug for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

/// [`number_to_string`], appended to `out`. A log is mostly integers: an
/// integer of magnitude at most 2^53 is its decimal digits (step 6, whose
/// shortest digits and zeros spell the integer), written without the
/// general path's allocations.
pub fn write_number(out: &mut String, x: f64) {
    if x.fract() == 0.0 && x.abs() <= MAX_SAFE_INTEGER {
        // -0 becomes 0 here, as step 2 prints it.
        out.push_str(itoa::Buffer::new().format(x as i64));
    } else {
        out.push_str(&number_to_string(x));
    }
}

/// 2^53, the largest integer below which every integer is a Number.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_992.0;

/// JavaScript's `Number::toString(x)` in radix 10 (ECMA-262 6.1.6.1.20):
/// the shortest digits that read back as `x`, placed by its exponent.
pub fn number_to_string(x: f64) -> String {
    // 1. If x is NaN, return "NaN".
    if x.is_nan() {
        return "NaN".into();
    }
    // 2. If x is +0 or -0, return "0".
    if x == 0.0 {
        return "0".into();
    }
    // 3. If x < 0, return the string-concatenation of "-" and Number::toString(-x).
    if x < 0.0 {
        return format!("-{}", number_to_string(-x));
    }
    // 4. If x is +Infinity, return "Infinity".
    if x.is_infinite() {
        return "Infinity".into();
    }
    // 5. Let n, k and s be integers such that k >= 1, 10^(k-1) <= s < 10^k,
    //    s × 10^(n-k) is x, and k is as small as possible. (Rust's shortest
    //    exponential form gives exactly these digits s and n - 1.)
    let exp = format!("{x:e}");
    let (mantissa, e) = exp.split_once('e').expect("an exponent");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let k = digits.len() as i64;
    let n = e.parse::<i64>().expect("an integer exponent") + 1;
    if k <= n && n <= 21 {
        // 6. The k digits of s followed by n - k zeros.
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        // 7. The most significant n digits, ".", the remaining k - n digits.
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        // 8. "0.", -n zeros, the k digits.
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        // 9-10. Exponential notation, the exponent's sign always written.
        let sign = if n - 1 < 0 { '-' } else { '+' };
        let magnitude = (n - 1).abs();
        if k == 1 {
            format!("{digits}e{sign}{magnitude}")
        } else {
            format!("{}.{}e{sign}{magnitude}", &digits[..1], &digits[1..])
        }
    }
}

/// The constructors `instanceof` can test against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Class {
    /// `AbortController`.
    AbortController,
    /// `AbortSignal`.
    AbortSignal,
    /// `EventTarget`.
    EventTarget,
    /// `Event`.
    Event,
    /// `Error`.
    Error,
    /// `TypeError`.
    TypeError,
    /// `RangeError`.
    RangeError,
    /// `DOMException`.
    DomException,
    /// `AggregateError`.
    AggregateError,
    /// `Promise`.
    Promise,
    /// `Array`.
    Array,
    /// `Function`.
    Function,
    /// `Object`.
    Object,
}

impl Class {
    /// Every class, in the order the language reference lists them.
    pub const ALL: [Class; 13] = [
        Class::AbortController,
        Class::AbortSignal,
        Class::EventTarget,
        Class::Event,
        Class::Error,
        Class::TypeError,
        Class::RangeError,
        Class::DomException,
        Class::AggregateError,
        Class::Promise,
        Class::Array,
        Class::Function,
        Class::Object,
    ];

    /// The constructor's name, as JavaScript spells it.
    pub fn name(self) -> &'static str {
        match self {
            Class::AbortController => "AbortController",
            Class::AbortSignal => "AbortSignal",
            Class::EventTarget => "EventTarget",
            Class::Event => "Event",
            Class::Error => "Error",
            Class::TypeError => "TypeError",
            Class::RangeError => "RangeError",
            Class::DomException => "DOMException",
            Class::AggregateError => "AggregateError",
            Class::Promise => "Promise",
            Class::Array => "Array",
            Class::Function => "Function",
            Class::Object => "Object",
        }
    }

    /// The class of this name.
    pub fn from_name(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// The built-in error classes besides `Error` that a scenario can make.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BuiltinError {
    /// `TypeError`.
    TypeError,
    /// `RangeError`.
    RangeError,
}

impl BuiltinError {
    /// The class's name, as JavaScript spells it.
    pub fn name(self) -> &'static str {
        match self {
            BuiltinError::TypeError => "TypeError",
            BuiltinError::RangeError => "RangeError",
        }
    }
}

impl Expr {
    /// A binding reference.
    pub fn var(name: impl Into<String>) -> Expr {
        Expr::Var(Binding::new(name))
    }

    /// The names of the bindings this expression reads (`a` of `a.signal`).
    pub fn binding_names<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Expr::Var(binding) => out.push(&binding.name),
            Expr::Prop(base, _)
            | Expr::TypeOf(base)
            | Expr::InstanceOf(base, _)
            | Expr::ConstructorName(base) => base.binding_names(out),
            Expr::Same(a, b) | Expr::Add(a, b) | Expr::Less(a, b) => {
                a.binding_names(out);
                b.binding_names(out);
            }
            Expr::Temporary(t) => t.exprs().iter().for_each(|e| e.binding_names(out)),
            _ => {}
        }
    }

    /// Calls `f` on each expression directly inside this one (the operand
    /// of a property read, `typeof`, `instanceof`, `constructor.name`; both
    /// of `same`, `add`, `less`). The match is exhaustive, so a new kind of
    /// expression holding others must say so here, and every tool that
    /// rewrites bindings (the resolver, the shrinker's renaming) sees it.
    pub fn for_each_operand_mut(&mut self, mut f: impl FnMut(&mut Expr)) {
        match self {
            Expr::Prop(base, _)
            | Expr::TypeOf(base)
            | Expr::InstanceOf(base, _)
            | Expr::ConstructorName(base) => f(base),
            Expr::Same(a, b) | Expr::Add(a, b) | Expr::Less(a, b) => {
                f(a);
                f(b);
            }
            Expr::Temporary(t) => t.exprs_mut().iter_mut().for_each(f),
            Expr::Var(_)
            | Expr::Undefined
            | Expr::This
            | Expr::ArgumentCount
            | Expr::ErrorMonitor
            | Expr::DefaultMaxListeners
            | Expr::Null
            | Expr::Bool(_)
            | Expr::Int(_)
            | Expr::Number(_)
            | Expr::Symbol(_)
            | Expr::Object
            | Expr::ClassConstant(..)
            | Expr::Str(_)
            | Expr::NewError(_)
            | Expr::NewBuiltinError { .. }
            | Expr::NewDomException { .. } => {}
        }
    }

    /// A property read on this expression.
    pub fn prop(self, name: impl Into<String>) -> Expr {
        Expr::Prop(Box::new(self), name.into())
    }
}

/// The blocks directly inside a statement (`&Stmt` or `&mut Stmt`): one
/// match for [`Stmt::blocks`] and [`Stmt::blocks_mut`]. The patterns bind
/// by reference, so the same arms give `&Block` or `&mut Block` as the
/// statement is borrowed.
macro_rules! stmt_blocks {
    ($stmt:expr) => {{
        let op = match $stmt {
            Stmt::Try(b) | Stmt::Repeat { body: b, .. } => return vec![b],
            Stmt::If {
                then, otherwise, ..
            } => return std::iter::once(then).chain(otherwise).collect(),
            Stmt::Let { op, .. } | Stmt::Do(op) => op,
            _ => return Vec::new(),
        };
        match op {
            Op::SetOnAbort {
                handler: Handler::Callback(Callback::Inline(b)),
                ..
            }
            | Op::AddAbortListener {
                listener: Callback::Inline(b),
                ..
            }
            | Op::AddEventListener {
                listener: Callback::Inline(b),
                ..
            }
            | Op::EmitterAdd {
                listener: Callback::Inline(b),
                ..
            }
            | Op::NativeCallback {
                callback: Callback::Inline(b),
                ..
            }
            | Op::AlsRun { body: b, .. }
            | Op::AlsExit { body: b, .. }
            | Op::RunInAsyncScope { body: b, .. }
            | Op::Function(b)
            | Op::AsyncFunction(b)
            | Op::Async(b)
            | Op::ListenerObject(b)
            | Op::QueueMicrotask(b)
            | Op::NextTick(b)
            | Op::SetImmediate(b)
            | Op::SetTimeout { body: b, .. }
            | Op::SetInterval { body: b, .. }
            | Op::Catch { on_rejected: b, .. }
            | Op::Finally { on_finally: b, .. }
            | Op::Thenable { body: Some(b), .. }
            | Op::NewRegistry(Callback::Inline(b)) => vec![b],
            Op::Then {
                on_fulfilled,
                on_rejected,
                ..
            } => on_fulfilled.into_iter().chain(on_rejected).collect(),
            Op::NewReadable {
                strategy: Strategy { size, .. },
                start,
                pull,
                cancel,
            } => size
                .into_iter()
                .chain(start)
                .chain(pull)
                .chain(cancel)
                .collect(),
            Op::NewWritable {
                strategy: Strategy { size, .. },
                start,
                write,
                close,
                abort,
            } => size
                .into_iter()
                .chain(start)
                .chain(write)
                .chain(close)
                .chain(abort)
                .collect(),
            Op::NewReadableBytes {
                start,
                pull,
                cancel,
                ..
            } => start.into_iter().chain(pull).chain(cancel).collect(),
            Op::NewTransform {
                start,
                transform,
                flush,
                cancel,
                ..
            } => start
                .into_iter()
                .chain(transform)
                .chain(flush)
                .chain(cancel)
                .collect(),
            _ => Vec::new(),
        }
    }};
}

/// An operation's own expressions (`&Op` or `&mut Op`, with `mut` as the
/// second argument for the latter): one exhaustive match for [`Op::exprs`]
/// and [`Op::exprs_mut`], as [`stmt_blocks`] is for blocks.
macro_rules! op_exprs {
    ($op:expr, $($mutability:tt)?) => {{
        fn callback(c: & $($mutability)? Callback) -> Option<& $($mutability)? Expr> {
            match c {
                Callback::Value(e) => Some(e),
                Callback::Inline(_) => None,
            }
        }
        match $op {
            Op::Value(e)
            | Op::Await(e)
            | Op::ThrowIfAborted { signal: e }
            | Op::Dispose { disposable: e }
            | Op::GetMaxListeners { target: e }
            | Op::PreventDefault { event: e }
            | Op::StopPropagation { event: e }
            | Op::StopImmediatePropagation { event: e }
            | Op::ClearTimeout { timer: e }
            | Op::ClearInterval { timer: e }
            | Op::TimerRef { timer: e, .. }
            | Op::ClearImmediate { immediate: e }
            | Op::Then { promise: e, .. }
            | Op::Catch { promise: e, .. }
            | Op::Finally { promise: e, .. }
            | Op::PromiseResolve { value: e }
            | Op::PromiseReject { value: e }
            | Op::Thenable { value: e, .. }
            | Op::Dispatch { target: e, .. } => vec![e],
            Op::Combinator { values, .. } => values.into_iter().collect(),
            Op::NewEvent { detail, .. } => detail.into_iter().collect(),
            Op::DispatchEvent { target, event } => vec![target, event],
            Op::ComposedPath { event: e } => vec![e],
            Op::Assign { target, value } => vec![target, value],
            Op::SetEventAttribute { event, value, .. } => vec![event, value],
            Op::Abort { controller, reason } => std::iter::once(controller).chain(reason).collect(),
            Op::SignalAbort { reason } => reason.into_iter().collect(),
            Op::SignalAny { signals, .. } => signals.into_iter().collect(),
            Op::SetMaxListeners { n, targets } => std::iter::once(n).chain(targets).collect(),
            Op::SetOnAbort { signal, handler } => {
                let mut out = vec![signal];
                match handler {
                    Handler::Callback(c) => out.extend(callback(c)),
                    Handler::Value(value) => out.push(value),
                    Handler::Null => {}
                }
                out
            }
            Op::AddAbortListener { signal, listener } => {
                std::iter::once(signal).chain(callback(listener)).collect()
            }
            Op::AddEventListener {
                target,
                listener,
                options,
                ..
            } => std::iter::once(target)
                .chain(callback(listener))
                .chain(& $($mutability)? options.signal)
                .chain(& $($mutability)? options.value)
                .collect(),
            Op::RemoveEventListener {
                target, listener, ..
            } => vec![target, listener],
            Op::Resolve { promise, value } | Op::Reject { promise, value } => {
                std::iter::once(promise).chain(value).collect()
            }
            Op::EmitterAdd { emitter, name, listener, .. } => {
                vec![emitter, name].into_iter().chain(callback(listener)).collect()
            }
            Op::EmitterRemove { emitter, name, listener } => vec![emitter, name, listener],
            Op::EmitterRemoveAll { emitter, name } => std::iter::once(emitter).chain(name).collect(),
            Op::Emit { emitter, name, args } => {
                vec![emitter, name].into_iter().chain(args).collect()
            }
            Op::EmitterListenerCount { emitter, name, listener } => {
                vec![emitter, name].into_iter().chain(listener).collect()
            }
            Op::EventNames { emitter } => vec![emitter],
            Op::EmitterListeners { emitter, name, .. } => vec![emitter, name],
            Op::NewAls { default } => std::iter::empty().chain(default).collect(),
            Op::GetStore { als } | Op::DisableAls { als } | Op::AlsExit { als, .. } => vec![als],
            Op::EnterWith { als, value } | Op::AlsRun { als, value, .. } => vec![als, value],
            Op::Bind { resource, function } => std::iter::empty().chain(resource).chain(std::iter::once(function)).collect(),
            Op::Snapshot => Vec::new(),
            Op::Call { function, args } => std::iter::once(function).chain(args).collect(),
            Op::NewAsyncResource { kind } => vec![kind],
            Op::RunInAsyncScope { resource, .. } | Op::EmitDestroy { resource } => vec![resource],
            Op::NativeCallback { callback: c, .. } => callback(c).into_iter().collect(),
            Op::EventsKeyCount { emitter } => vec![emitter],
            Op::SetDefaultMaxListeners { n } => vec![n],
            Op::OnceEvent { emitter, name, signal } => {
                vec![emitter, name].into_iter().chain(signal).collect()
            }
            Op::OnEvents(o) => {
                let OnEvents {
                    emitter,
                    name,
                    signal,
                    close,
                    high_water_mark,
                    low_water_mark,
                } = & $($mutability)? **o;
                vec![emitter, name]
                .into_iter()
                .chain(signal)
                .chain(close)
                .chain(high_water_mark)
                .chain(low_water_mark)
                .collect()
            }
            Op::IterThrow { iterator, value } => vec![iterator, value],
            Op::OnRejection { emitter, function } => vec![emitter, function],
            Op::NewController
            | Op::NewEmitter
            | Op::NewCapturingEmitter
            | Op::SignalTimeout { .. }
            | Op::NewTarget
            | Op::Function(_)
            | Op::AsyncFunction(_)
            | Op::Async(_)
            | Op::ListenerObject(_)
            | Op::QueueMicrotask(_)
            | Op::NextTick(_)
            | Op::SetTimeout { .. }
            | Op::SetInterval { .. }
            | Op::SetImmediate(_)
            | Op::NewAbortSignal
            | Op::NewPromise
            | Op::WithResolvers
            | Op::ProcessOff(_)
            | Op::Ruler { .. }
            | Op::NewReadable { .. } => Vec::new(),
            Op::Enqueue { controller, chunk } => vec![controller, chunk],
            Op::CloseController { controller } => vec![controller],
            Op::ErrorController { controller, error } => vec![controller, error],
            Op::GetReader { stream } => vec![stream],
            Op::Read { reader } | Op::ReleaseLock { reader } => vec![reader],
            Op::Cancel { target, reason } | Op::AbortWritable { target, reason } => {
                std::iter::once(target).chain(reason).collect()
            }
            Op::NewWritable { .. } | Op::NewTransform { .. } => Vec::new(),
            Op::GetWriter { stream } | Op::Values { stream, .. } => vec![stream],
            Op::Write { writer, chunk } => vec![writer, chunk],
            Op::CloseWritable { target } => vec![target],
            Op::Terminate { controller } => vec![controller],
            Op::PipeTo {
                source,
                dest: other,
                options,
            }
            | Op::PipeThrough {
                source,
                transform: other,
                options,
            } => vec![source, other]
                .into_iter()
                .chain(& $($mutability)? options.signal)
                .collect(),
            Op::From { values, .. } => values.into_iter().collect(),
            Op::Next { iterator } => vec![iterator],
            Op::IterReturn { iterator, value } => std::iter::once(iterator).chain(value).collect(),
            Op::NewBytes(_) | Op::NewReadableBytes { .. } => Vec::new(),
            Op::Subarray { view, .. } => vec![view],
            Op::GetByobReader { stream } => vec![stream],
            Op::ReadInto { reader, view, min } => vec![reader, view].into_iter().chain(min).collect(),
            Op::Respond {
                request,
                bytes_written: other,
            }
            | Op::RespondWithNewView {
                request,
                view: other,
            } => vec![request, other],
            Op::NewWeakRef { target: e }
            | Op::Deref { weak_ref: e }
            | Op::Dependants { signal: e } => vec![e],
            Op::NewRegistry(c) => callback(c).into_iter().collect(),
            Op::Register {
                registry,
                target,
                held,
                token,
            } => vec![registry, target, held].into_iter().chain(token).collect(),
            Op::Unregister { registry, token } => vec![registry, token],
        }
    }};
}

impl Stmt {
    /// The blocks directly inside this statement: a `try` or `repeat`
    /// block, or the inline callback bodies of its operation, in source
    /// order. Tools that walk the tree (the shrinker, the statistics of
    /// generated scenarios) go through this one function, so a new
    /// operation with a block needs adding in [`stmt_blocks`] only.
    pub fn blocks(&self) -> Vec<&Block> {
        stmt_blocks!(self)
    }

    /// [`Stmt::blocks`], mutably.
    pub fn blocks_mut(&mut self) -> Vec<&mut Block> {
        stmt_blocks!(self)
    }
}

impl Op {
    /// The operation's own expressions (its operands; not those inside its
    /// blocks), in source order. The match is exhaustive, so a new
    /// operation must say what its operands are.
    pub fn exprs(&self) -> Vec<&Expr> {
        op_exprs!(self,)
    }

    /// [`Op::exprs`], mutably: for tools that rewrite bindings, such as the
    /// shrinker's canonical renaming.
    pub fn exprs_mut(&mut self) -> Vec<&mut Expr> {
        op_exprs!(self, mut)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn written(x: f64) -> String {
        let mut out = String::from("> ");
        write_number(&mut out, x);
        out
    }

    #[test]
    fn write_number_prints_integers_and_the_rest_as_number_to_string_does() {
        for x in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            1e15,
            MAX_SAFE_INTEGER,
            -MAX_SAFE_INTEGER,
            MAX_SAFE_INTEGER * 2.0,
            1e21,
            0.5,
            5e-7,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            assert_eq!(written(x), format!("> {}", number_to_string(x)), "{x:?}");
        }
        assert_eq!(written(-0.0), "> 0");
        assert_eq!(written(-42.0), "> -42");
    }

    #[test]
    fn a_block_knows_its_cost_through_every_edit() {
        let log = || Stmt::Log(vec![Expr::Int(1)]);
        let inner = Block::new(vec![log(), log()]);
        let mut outer = Block::new(vec![
            log(),
            Stmt::Repeat {
                count: 3,
                body: inner,
            },
        ]);
        assert_eq!(outer.cost(), 1 + 1 + 3 * 2);
        // An edit of the block inside goes through the one outside.
        {
            let mut body = outer.body_mut();
            let Stmt::Repeat { body: inner, .. } = &mut body[1] else {
                unreachable!()
            };
            inner.body_mut().push(log());
        }
        assert_eq!(outer.cost(), 1 + 1 + 3 * 3);
        assert_eq!(outer.cost(), crate::statement_cost(outer.body()));
        // A copy shares the statements; editing it leaves the original.
        let mut copy = outer.clone();
        copy.body_mut().clear();
        assert_eq!((copy.cost(), outer.cost()), (0, 11));
        // JSON carries the statements alone, and reading it back works the
        // cost out again.
        let json = serde_json::to_string(&outer).unwrap();
        assert!(!json.contains("cost"), "{json}");
        let back: Block = serde_json::from_str(&json).unwrap();
        assert_eq!(back, outer);
        assert_eq!(back.cost(), 11);
    }

    proptest! {
        #[test]
        fn write_number_agrees_with_number_to_string(x in any::<f64>(), i in any::<i64>()) {
            prop_assert_eq!(written(x), format!("> {}", number_to_string(x)));
            let i = i as f64;
            prop_assert_eq!(written(i), format!("> {}", number_to_string(i)));
        }
    }
}
