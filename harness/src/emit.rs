//! The JavaScript emitter: a [`Scenario`] as JavaScript for real Node.js.
//!
//! Real Node is the oracle, and it only runs JavaScript. The emitter writes the
//! scenario as plain, readable code on top of the prelude (`harness/js/prelude.js`),
//! whose `$` object provides what Node cannot give deterministically: the
//! stable log format, the callback budget and a virtual clock for timers and
//! immediates. Everything the scenario exercises (AbortController,
//! EventTarget, promises, `queueMicrotask`, `process.nextTick`) is Node's own.
//!
//! Two forms:
//!
//! - [`emit_body`]: the scenario body alone, what the Node engine sends to
//!   `harness/js/server.js` in batch mode. The server runs it as the body of a
//!   function of `$` (the scenario's prelude object) and `events` (Node's
//!   `node:events` module).
//! - [`emit_program`]: a standalone ES module (the `nodesem emit-js` command):
//!   a header, `import events from "node:events"`, the prelude, the body and
//!   `$.start()`, ready to paste into a Node bug report.
//!
//! The shape of a body:
//!
//! - every top-level binding is declared up front (`let a, b;`), because the
//!   main script is cut into segments, one closure each: the statements
//!   between two `run` statements become `$.segment(() => { ... });` (empty
//!   parts too: each part is a macrotask of its own, as in the Rust runtime),
//!   and each `run` becomes `$.run("idle")`, `$.run("turn")` or
//!   `$.run("advance", MS)`;
//! - a binding inside a block is a `let` in that block;
//! - every script callback is `$.cb(function (PARAM) { ... })`, where PARAM is
//!   the implicit parameter of the language: `event` for listeners (`on`,
//!   `fn`, `onabort`, `addAbortListener`), `value` for `then`, `reason` for
//!   `else` and `catch`, none for the others;
//! - `try { ... }` is a real JavaScript `try` whose `catch` logs
//!   `caught <error>`, so that a `return` inside it still returns from the
//!   enclosing callback;
//! - operations are the JavaScript the language reference lists, with the
//!   prelude's helpers where the virtual clock or the kept resolving
//!   functions are involved (`$.setTimeout`, `$.setImmediate`,
//!   `$.timeoutSignal`, `$.deferred`, `$.resolve`, `$.reject`, `$.thenable`);
//! - garbage collection: `drop x` is `x = undefined;` (nothing else of the
//!   emitted program or the prelude holds a binding's object), `gc` is
//!   `$.gc();` (the real `gc()` of `--expose-gc`, after which the prelude's
//!   driver lets the real loop turn at the virtual poll phase, so that the
//!   FinalizationRegistry cleanups run there), `watch V` is
//!   `$.watch("V", V);`, `alive` is `$.alive();`, `dependants S` is
//!   `$.dependants(S)`, a registry is `$.registry(CLEANUP)` (a real
//!   `new FinalizationRegistry`, counted); WeakRef, `deref`, `register` and
//!   `unregister` are the plain JavaScript.
//!
//! The emitter expects a valid scenario (see [`nodesem_lang::validate`]); it
//! never panics on an invalid one, but what it writes then may fail in Node.

use std::fmt::Write;

use crate::js_source::{identifier, line_comment, string_literal};
use nodesem_lang::{
    Block, Callback, Directive, Expr, Handler, ListenerOptions, Op, RunMode, Scenario, Stmt,
    Temporary,
};

/// The prelude that every emitted body runs on, as the standalone program
/// inlines it.
pub const PRELUDE_JS: &str = include_str!("../js/prelude.js");

/// The flags the emitted JavaScript needs: `--expose-internals` for
/// `$.timeoutSignal` (AbortSignal.timeout on the virtual clock),
/// `--expose-gc` for scenarios that collect garbage, and
/// `--stack-trace-limit=0`: an Error that V8 gives a stack keeps the
/// receivers of the frames it captured alive until its `stack` is read
/// (`harness/js/NODE_GC_FACTS.md` §4: the default abort reason keeps its
/// controller, an error made in a listener its target), and which frames
/// it captures depends on how deep Node's internals and the prelude's own
/// frames are at that moment. No log line reads a stack, so without stacks
/// what a collection frees depends only on the references a scenario makes,
/// which the model follows. (That retention is a real Node leak, Node's
/// issue 66192; the engines do not model it.)
pub const NODE_FLAGS: &[&str] = &["--expose-gc", "--expose-internals", "--stack-trace-limit=0"];

/// The names a standalone program declares at its top level besides the
/// body's own (`$` and `events` cannot be bindings of the language).
const PROGRAM_NAMES: &[&str] = &["createScenario"];

/// The body of a scenario, for the prelude's `$` (see the module doc): for
/// a `use module` scenario, the code of an ES module (see
/// [`Emitter::module_top_level`]), which needs `$.startModule()` before it.
pub fn emit_body(scenario: &Scenario) -> String {
    let mut emitter = Emitter {
        own_frames: collects(&scenario.body),
        ..Emitter::default()
    };
    if is_module(scenario) {
        emitter.module_top_level(&scenario.body);
    } else {
        emitter.top_level(&scenario.body);
    }
    emitter.out
}

/// What [`emit_flavoured`] needs besides the scenario.
#[derive(Debug, Default)]
pub struct FlavourOptions {
    /// What the JavaScript runs on.
    pub flavour: Flavour,
    /// The real delay of a timer of each virtual delay (clamped as Node
    /// clamps it); a delay missing here is written as it is.
    /// Keyed by twice the virtual moment, plus one for the moment a `run
    /// advance` stops at (after the timers due then).
    pub timer_ms: std::collections::BTreeMap<u64, u64>,
    /// node-test: how many times each callback block ran in the model's
    /// run, by the address of the block in the scenario given.
    pub calls: std::collections::HashMap<usize, u32>,
    /// `$` before every helper's name, or nothing.
    pub helper_prefix: &'static str,
}

/// A scenario's body in a plain flavour, with what it needs and met.
#[derive(Debug)]
pub struct Flavoured {
    /// The code of the main script, its bindings declared first.
    pub body: String,
    /// The helpers the body calls (`log`, `deferred`, `events`, ...), by
    /// their names without the prefix.
    pub helpers: std::collections::BTreeSet<&'static str>,
    /// What the emitter met, in the order it wrote it.
    pub facts: Vec<Fact>,
}

/// The body of a scenario in any flavour; for [`Flavour::Prelude`] the same
/// as [`emit_body`] (with no facts).
pub fn emit_flavoured(scenario: &Scenario, options: FlavourOptions) -> Flavoured {
    if options.flavour == Flavour::Prelude {
        return Flavoured {
            body: emit_body(scenario),
            helpers: Default::default(),
            facts: Vec::new(),
        };
    }
    let mut emitter = Emitter {
        flavour: options.flavour,
        timer_ms: options.timer_ms,
        calls: options.calls,
        helper_prefix: options.helper_prefix,
        single_instance: true,
        module: is_module(scenario),
        ..Emitter::default()
    };
    emitter.top_level(&scenario.body);
    Flavoured {
        body: emitter.out,
        helpers: emitter.used.into_inner(),
        facts: emitter.facts.into_inner(),
    }
}

/// Every name a scenario binds, at any depth.
pub fn binding_names(body: &[Stmt]) -> std::collections::BTreeSet<String> {
    let mut names = std::collections::BTreeSet::new();
    fn walk(body: &[Stmt], names: &mut std::collections::BTreeSet<String>) {
        for stmt in body {
            match stmt {
                Stmt::Let { name, .. } => {
                    names.insert(name.to_string());
                }
                Stmt::Tee { branches, .. } => {
                    names.extend(branches.iter().map(|b| b.to_string()));
                }
                _ => {}
            }
            for block in stmt.blocks() {
                walk(block.body(), names);
            }
        }
    }
    walk(body, &mut names);
    names
}

/// Whether the scenario's main script is an ES module (`use module`).
pub fn is_module(scenario: &Scenario) -> bool {
    scenario.uses(Directive::Module)
}

/// Whether a statement list makes a native callback (`native MS ...`),
/// in any block.
pub fn uses_native_callbacks(stmts: &[nodesem_lang::Stmt]) -> bool {
    use nodesem_lang::{Op, Stmt};
    stmts.iter().any(|stmt| {
        matches!(
            stmt,
            Stmt::Let {
                op: Op::NativeCallback { .. },
                ..
            } | Stmt::Do(Op::NativeCallback { .. })
        ) || stmt
            .blocks()
            .iter()
            .any(|block| uses_native_callbacks(block.body()))
    })
}

/// A standalone ES module that runs the scenario and prints its log, one line
/// per `console.log`. `source_name` names the scenario in the header (a file
/// name, or a seed for a generated scenario).
pub fn emit_program(scenario: &Scenario, source_name: &str) -> String {
    let mut out = String::new();
    out.push_str("// A nodesem scenario as a standalone JavaScript program (`nodesem emit-js`).\n");
    out.push_str(
        "// It prints the scenario's log, one observable event per line. The code after the\n",
    );
    out.push_str(
        "// prelude is the scenario; the prelude provides `$`: the log format, the callback\n",
    );
    out.push_str(
        "// budget and a virtual clock that drives timers, immediates and AbortSignal.timeout.\n",
    );
    out.push_str("//\n");
    if is_module(scenario) {
        out.push_str(
            "// The scenario says `use module`: its main script is this ES module's own top-level\n",
        );
        out.push_str(
            "// code, so the microtasks it queues run before its process.nextTick callbacks (a\n",
        );
        out.push_str("// CommonJS main script runs them the other way round).\n");
        out.push_str("//\n");
    }
    out.push_str(
        "// Run with: node --expose-internals --expose-gc --stack-trace-limit=0 file.mjs\n",
    );
    out.push_str("// (the oracle nodesem pins is Node.js 26.12.1)\n");
    if uses_native_callbacks(&scenario.body) {
        out.push_str(
            "// Its native callbacks need the nodesem_callbacks addon built for that Node: nodesem\n",
        );
        out.push_str(
            "// builds it beside the binary (<node>/../../nodesem-native/); set NODESEM_ADDON to it.\n",
        );
    }
    out.push_str("//\n");
    let _ = writeln!(
        out,
        "{}",
        line_comment(&format!("Source scenario: {source_name}"))
    );
    for line in nodesem_lang::print(scenario).lines() {
        let _ = writeln!(out, "{}", line_comment(&format!("  {line}")));
    }
    out.push('\n');
    out.push_str("import events from \"node:events\";\n\n");
    out.push_str("// ---- the nodesem prelude (harness/js/prelude.js) ----\n\n");
    out.push_str(PRELUDE_JS);
    if !PRELUDE_JS.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("\n// ---- the scenario ----\n\n");
    out.push_str("const $ = createScenario({ print: (line) => console.log(line) });\n\n");
    let module = is_module(scenario);
    if module {
        out.push_str(
            "// The virtual loop, queued behind this module's evaluation and the drain after it.\n",
        );
        out.push_str("$.startModule();\n\n");
    }
    let body = emit_body(scenario);
    if top_level_names(&scenario.body)
        .iter()
        .any(|name| PROGRAM_NAMES.contains(name))
    {
        // A binding named like the program's own declarations would clash
        // with them at the module's top level: give the body a block.
        out.push_str("{\n");
        for line in body.lines() {
            if !line.is_empty() {
                out.push_str("  ");
            }
            out.push_str(line);
            out.push('\n');
        }
        out.push_str("}\n");
    } else {
        out.push_str(&body);
    }
    if !module {
        out.push_str("\n$.start();\n");
    }
    out
}

/// A string as a JavaScript string literal (see [`crate::js_source`]).
pub fn js_string(s: &str) -> String {
    string_literal(s)
}

/// The bindings of the main script itself (not of its blocks), in order and
/// without duplicates.
fn top_level_names(body: &[Stmt]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for stmt in body {
        let declared: &[std::sync::Arc<str>] = match stmt {
            Stmt::Let { name, .. } => std::slice::from_ref(name),
            Stmt::Tee { branches, .. } => branches,
            _ => &[],
        };
        for name in declared {
            if !names.contains(&&**name) {
                names.push(name);
            }
        }
    }
    names
}

/// The implicit parameter of a callback.
#[derive(Clone, Copy)]
enum Param {
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
    /// A sink's `write`, a transformer's `transform`: `chunk, controller`.
    ChunkController,
    /// A FinalizationRegistry's cleanup callback: `held`.
    Held,
    /// An EventEmitter's listener: `arg1, arg2`.
    Args,
    /// No parameter.
    None,
}

impl Param {
    fn as_str(self) -> &'static str {
        match self {
            Param::Event => "event",
            Param::Value => "value",
            Param::Reason => "reason",
            Param::Controller => "controller",
            Param::Chunk => "chunk",
            Param::ChunkController => "chunk, controller",
            Param::Held => "held",
            Param::Args => "arg1, arg2",
            Param::None => "",
        }
    }
}

/// What the emitted JavaScript runs on: one emitter writes all three, since
/// most operations are the same JavaScript and only the helpers differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Flavour {
    /// On the prelude's `$` (the node engine's bodies and `emit-js`): the
    /// virtual clock, budgets and charges.
    #[default]
    Prelude,
    /// A standalone program on real Node with no flags (`emit-js --plain`):
    /// real timers and immediates, a few helpers of its own, `console.log`.
    Plain,
    /// The plain program as a test of Node's test/parallel (`emit-js
    /// --node-test`): lines go into a `log` array, callbacks are wrapped in
    /// `common.mustCall`.
    NodeTest,
}

/// A statement of the scenario: its first printed line, and which
/// statement with that line it is (1 for the first, in the order of the
/// text), to find its line in the file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Site {
    /// The statement's first line as the printer writes it.
    pub text: String,
    /// Its occurrence among the statements with that first line.
    pub nth: usize,
}

impl std::fmt::Display for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// A construct of a scenario that the plain flavours meet, for
/// [`crate::plain`] to decide whether real Node orders it deterministically.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fact {
    /// A construct that cannot be plain whatever else the scenario does:
    /// its first printed line and why.
    Refused(Site, &'static str),
    /// A timer (`setTimeout`, `timeout`) of this many virtual ms, and whether
    /// it is made inside a callback (at a moment of the loop the emitter
    /// cannot know) rather than by the main script.
    Timer {
        /// The statement that makes it.
        stmt: Site,
        /// The virtual delay, clamped as Node clamps it.
        ms: u32,
        /// Made inside a callback.
        in_callback: bool,
        /// An `AbortSignal.timeout`, whose firing no log line shows.
        signal: bool,
        /// Made in a part of the main script after a `run` (or in a
        /// callback made there).
        later_part: bool,
    },
    /// A `setImmediate`.
    Immediate(Site),
    /// A `run turn` or `run idle` in the middle of the main script.
    Run(Site, RunMode),
}

#[derive(Default)]
struct Emitter {
    out: String,
    indent: usize,
    /// The scenario collects garbage: each statement that touches objects
    /// runs in a frame of its own ([`Emitter::own_frame`]).
    own_frames: bool,
    flavour: Flavour,
    /// The plain flavours: the real delay of a timer of each virtual delay.
    timer_ms: std::collections::BTreeMap<u64, u64>,
    /// The plain flavours: `$` before every helper's name when a binding of
    /// the scenario has one of their names.
    helper_prefix: &'static str,
    /// The helpers the program uses (plain flavours).
    used: std::cell::RefCell<std::collections::BTreeSet<&'static str>>,
    /// What the plain flavours met (see [`Fact`]).
    facts: std::cell::RefCell<Vec<Fact>>,
    /// The first printed line of the statement being written (plain
    /// flavours, for [`Fact`]s).
    current: Site,
    /// How many statements with each first line were written so far.
    seen: std::collections::HashMap<String, usize>,
    /// How many callbacks deep the statement being written is.
    callback_depth: usize,
    /// node-test: how many times each callback block ran in the model's run,
    /// by the block's address in the scenario being written.
    calls: std::collections::HashMap<usize, u32>,
    /// node-test: whether the code being written makes each of its callbacks
    /// at most once (not in a `repeat`, not in a callback that ran twice).
    single_instance: bool,
    /// The main script is an ES module.
    module: bool,
    /// The plain flavours: the code being written is a part of the main
    /// script after a `run`.
    later_part: bool,
}

/// Whether a statement list has a `gc` at any depth.
fn collects(body: &[Stmt]) -> bool {
    body.iter()
        .any(|stmt| matches!(stmt, Stmt::Gc) || stmt.blocks().iter().any(|b| collects(b.body())))
}

impl Emitter {
    /// A statement's code in an arrow function of its own, called at once,
    /// in a scenario that collects garbage. V8 scans a running function's
    /// registers whole, so an object a statement used as a receiver or an
    /// argument stays in one of them, alive, until the function returns
    /// (measured on Node 26.12.1: `t.dispatchEvent(e); t = undefined; gc()`
    /// in one function keeps `t`; the same with the call in an arrow does
    /// not). The language's bindings are the only references the model
    /// knows, so each statement's temporaries die with its own frame. The
    /// arrow keeps `this` and `arguments`; an `await` stays where it is.
    fn own_frame(&self, code: String, statement: bool) -> String {
        match (self.own_frames, statement) {
            (false, _) => code,
            (true, true) => format!("(() => {{ {code} }})();"),
            (true, false) => format!("(() => ({code}))()"),
        }
    }

    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn top_level(&mut self, body: &[Stmt]) {
        let names = top_level_names(body);
        if !names.is_empty() {
            let list: Vec<String> = names.iter().map(|n| identifier(n)).collect();
            let declaration = format!("let {};", list.join(", "));
            self.line(&declaration);
        }
        if self.flavour != Flavour::Prelude {
            self.plain_top_level(body);
            return;
        }
        let mut part: Vec<&Stmt> = Vec::new();
        for stmt in body {
            if let Stmt::Run(mode) = stmt {
                self.segment(&part);
                part.clear();
                self.line(&run_call(*mode));
            } else {
                part.push(stmt);
            }
        }
        self.segment(&part);
    }

    /// The main script of a `use module` scenario: its first part is the
    /// module's own top-level code, in `if ($.evaluate(COST)) { ...;
    /// $.evaluated(); }` (it pays for its statements up front, and
    /// `$.evaluated()` tells the prelude it did not throw). The parts after
    /// it, and the `run`s between them, are declared first, so that a
    /// throw of the first part does not keep them from the prelude: its
    /// `run`s still let the loop run, as in the Rust runtime.
    fn module_top_level(&mut self, body: &[Stmt]) {
        let names = top_level_names(body);
        if !names.is_empty() {
            let list: Vec<String> = names.iter().map(|n| identifier(n)).collect();
            let declaration = format!("let {};", list.join(", "));
            self.line(&declaration);
            // The main script's bindings are a root for the whole run, as the
            // Rust runtime's global environment is: V8 keeps a module-level
            // binding that no closure reads on the stack of the module's
            // evaluation only, so the prelude holds one closure that reads
            // them all (a CommonJS body's segments are such closures).
            self.line(&format!("$.keep(() => [{}]);", list.join(", ")));
        }
        let first_run = body
            .iter()
            .position(|stmt| matches!(stmt, Stmt::Run(_)))
            .unwrap_or(body.len());
        let (first, rest) = body.split_at(first_run);
        if !rest.is_empty() {
            self.line("// The parts of the main script after its first `run`: macrotasks of the virtual loop.");
            let mut part: Vec<&Stmt> = Vec::new();
            let mut runs = rest.iter().peekable();
            while let Some(stmt) = runs.next() {
                if let Stmt::Run(mode) = stmt {
                    self.line(&run_call(*mode));
                    part.clear();
                    while let Some(next) = runs.next_if(|s| !matches!(s, Stmt::Run(_))) {
                        part.push(next);
                    }
                    self.segment(&part);
                }
            }
        }
        self.line("// The main script's first part: this ES module's own top-level code.");
        self.line(&format!(
            "if ($.evaluate({})) {{",
            nodesem_lang::statement_cost(first)
        ));
        self.indent += 1;
        for stmt in first {
            self.stmt(stmt, true);
        }
        self.line("$.evaluated();");
        self.indent -= 1;
        self.line("}");
    }

    /// The main script of a plain program: its statements as they are, up
    /// to its first `run`. A `run turn` or `run idle` with only comments
    /// after it changes nothing of the log (the loop runs until idle after
    /// the main script anyway; a turn's empty part drains nothing). Before
    /// any other `run idle` or `run turn`, the part ends by handing the next
    /// part, a function `partN`, to `process.once('beforeExit', ...)` (Node
    /// emits it when the loop has nothing left that keeps it alive, and
    /// drains ticks and microtasks after it, as after the model's idle
    /// part) or to `setImmediate` (which [`crate::plain`] accepts only in a
    /// scenario with no other immediate and no timer: then the first check
    /// phase runs it and nothing else), and before a `run advance` (trailing
    /// too: it fires the unref'd timers due by then) to `setTimeout` at the
    /// stop's real moment less this part's; a part that throws hands nothing
    /// on, as no part after a throw runs in the model.
    fn plain_top_level(&mut self, body: &[Stmt]) {
        let mut part = 1;
        let mut i = 0;
        // Whether the part being written runs from 'beforeExit'.
        let mut from_before_exit = false;
        // The virtual time the part being written runs at, after `run
        // advance`s.
        let mut clock: u32 = 0;
        while i < body.len() {
            let stmt = &body[i];
            i += 1;
            let Stmt::Run(mode) = stmt else {
                self.stmt(stmt, true);
                continue;
            };
            let text = nodesem_lang::printer::print(&Scenario {
                body: std::sync::Arc::new(vec![stmt.clone()]),
            });
            let last = body[i..].iter().all(|s| {
                matches!(
                    s,
                    Stmt::Run(RunMode::Turn | RunMode::Idle) | Stmt::Comment(_)
                )
            });
            self.set_current(stmt);
            if last && !matches!(mode, RunMode::Advance(_)) {
                self.line(&line_comment(&format!(
                    "{}: the loop runs until it is idle after the main script anyway",
                    text.trim()
                )));
                continue;
            }
            if self.module {
                self.refuse("the parts of an ES module's main script after a `run` are not the module's code");
                continue;
            }
            self.facts
                .borrow_mut()
                .push(Fact::Run(self.current.clone(), *mode));
            part += 1;
            let name = format!("{}part{part}", self.helper_prefix);
            let (call, why) = match mode {
                // Node emits 'beforeExit' again only when the loop came
                // alive since it last did: a part that runs from it hands
                // the next on from an immediate.
                RunMode::Idle if from_before_exit => (
                    format!("setImmediate(() => process.once('beforeExit', {name}));"),
                    "the rest of the main script runs when the loop is idle ('beforeExit')",
                ),
                RunMode::Idle => (
                    format!("process.once('beforeExit', {name});"),
                    "the rest of the main script runs when the loop is idle ('beforeExit')",
                ),
                // A timer just after the virtual moment the advance stops
                // at: a rank of its own after the timers due then (see
                // [`crate::plain`]), less the real moment this part runs at.
                RunMode::Advance(ms) => {
                    let target = clock.saturating_add(*ms);
                    let from = if clock == 0 {
                        Some(&0)
                    } else {
                        self.timer_ms.get(&(2 * u64::from(clock) + 1))
                    };
                    let real = match (self.timer_ms.get(&(2 * u64::from(target) + 1)), from) {
                        (Some(to), Some(from)) => to.saturating_sub(*from),
                        _ => u64::from(*ms),
                    };
                    clock = target;
                    (
                        format!("setTimeout({name}, {real});"),
                        "the rest of the main script runs when the timers up to that moment have",
                    )
                }
                RunMode::Turn => (
                    format!("setImmediate({name});"),
                    "the rest of the main script runs after one turn of the loop",
                ),
            };
            self.line(&call);
            from_before_exit = *mode == RunMode::Idle;
            if self.indent > 0 {
                self.indent -= 1;
                self.line("}");
            }
            self.line("");
            self.line(&line_comment(&format!("{}: {why}.", text.trim())));
            self.line(&format!("function {name}() {{"));
            self.indent += 1;
            self.later_part = true;
        }
        if self.indent > 0 {
            self.indent -= 1;
            self.line("}");
        }
    }

    /// Records the statement being written (plain flavours).
    fn set_current(&mut self, stmt: &Stmt) {
        if self.flavour == Flavour::Prelude {
            return;
        }
        let text = nodesem_lang::printer::print(&Scenario {
            body: std::sync::Arc::new(vec![stmt.clone()]),
        });
        let text = text.lines().next().unwrap_or_default().trim().to_string();
        let nth = self.seen.entry(text.clone()).or_default();
        *nth += 1;
        self.current = Site { text, nth: *nth };
    }

    /// Records that the statement being written cannot be plain, and why.
    fn refuse(&self, why: &'static str) {
        if self.flavour != Flavour::Prelude {
            self.facts
                .borrow_mut()
                .push(Fact::Refused(self.current.clone(), why));
        }
    }

    /// A helper's name: the prelude's `$.NAME`, or the plain program's own
    /// function, which it then declares.
    fn helper(&self, name: &'static str) -> String {
        if self.flavour == Flavour::Prelude {
            format!("$.{name}")
        } else {
            self.used.borrow_mut().insert(name);
            format!("{}{name}", self.helper_prefix)
        }
    }

    /// The function that logs a line.
    fn log_function(&self) -> String {
        match self.flavour {
            Flavour::Prelude => "$.log".to_string(),
            Flavour::Plain => self.helper("log"),
            Flavour::NodeTest => self.helper("record"),
        }
    }

    /// `(CHARGE, CALL)` on the prelude, `CALL` in a plain program.
    fn charged(&self, walked: &[(&String, &str)], call: String) -> String {
        if self.flavour == Flavour::Prelude {
            format!("({}, {call})", charge(walked))
        } else {
            call
        }
    }

    /// The real delay of a timer of `ms` virtual ms (plain flavours); `signal`
    /// for an `AbortSignal.timeout`.
    fn real_ms(&self, ms: u32, signal: bool) -> String {
        let clamped = clamp_ms(ms);
        self.facts.borrow_mut().push(Fact::Timer {
            stmt: self.current.clone(),
            ms: clamped,
            in_callback: self.callback_depth > 0 || self.later_part,
            later_part: self.later_part,
            signal,
        });
        match self.timer_ms.get(&(2 * u64::from(clamped))) {
            Some(real) => real.to_string(),
            None => ms.to_string(),
        }
    }

    /// `node:events`: the prelude program's import and the server's
    /// parameter, or the plain program's own binding.
    fn events(&self) -> String {
        if self.flavour == Flavour::Prelude {
            "events".to_string()
        } else {
            self.helper("events")
        }
    }

    /// `AbortSignal.any`, through the prelude's weight check or as it is.
    fn any_function(&self) -> &'static str {
        if self.flavour == Flavour::Prelude {
            "$.any"
        } else {
            "AbortSignal.any"
        }
    }

    /// A timer function: the prelude's virtual one or Node's own.
    fn timer_function(&self, name: &'static str) -> String {
        if self.flavour == Flavour::Prelude {
            format!("$.{name}")
        } else {
            name.to_string()
        }
    }

    /// One part of the main script between `run` statements: a macrotask.
    fn segment(&mut self, part: &[&Stmt]) {
        if part.is_empty() {
            self.line("$.segment(() => {});");
            return;
        }
        self.line("$.segment(() => {");
        self.indent += 1;
        for stmt in part {
            self.stmt(stmt, true);
        }
        self.indent -= 1;
        let owned: Vec<Stmt> = part.iter().map(|s| (*s).clone()).collect();
        self.line(&format!("}}{});", cost_argument(&owned)));
    }

    fn stmts(&mut self, body: &[Stmt]) {
        for stmt in body {
            self.stmt(stmt, false);
        }
    }

    /// One statement; `top_level` bindings were declared up front and are
    /// assigned here.
    fn stmt(&mut self, stmt: &Stmt, top_level: bool) {
        self.set_current(stmt);
        match stmt {
            Stmt::Comment(text) => self.line(&line_comment(text.trim())),
            Stmt::Let { name, op } => {
                let mut value = self.op(op);
                if stmt.own_frame_operands().is_some() {
                    value = self.own_frame(value, false);
                }
                let name = identifier(name);
                if top_level {
                    self.line(&format!("{name} = {value};"));
                } else {
                    self.line(&format!("let {name} = {value};"));
                }
            }
            Stmt::Tee { branches, stream } => {
                let [a, b] = [identifier(&branches[0]), identifier(&branches[1])];
                let value = self.own_frame(format!("{}.tee()", self.expr(stream)), false);
                if top_level {
                    self.line(&format!("[{a}, {b}] = {value};"));
                } else {
                    self.line(&format!("let [{a}, {b}] = {value};"));
                }
            }
            Stmt::Do(op) => {
                let mut value = format!("{};", self.op(op));
                if stmt.own_frame_operands().is_some() {
                    value = self.own_frame(value, true);
                }
                self.line(&value);
            }
            Stmt::Log(values) => {
                let args: Vec<String> = values.iter().map(|e| self.expr(e)).collect();
                let code = self.own_frame(
                    format!("{}({});", self.log_function(), args.join(", ")),
                    true,
                );
                self.line(&code);
            }
            Stmt::Repeat { count, body } => {
                // A scenario's names never start with `$`.
                self.line(&format!("for (let $i = 0; $i < {count}; $i++) {{"));
                self.indent += 1;
                let single = std::mem::replace(&mut self.single_instance, false);
                self.stmts(body.body());
                self.single_instance = single;
                self.indent -= 1;
                self.line("}");
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                let cond = self.own_frame(self.expr(cond), false);
                self.line(&format!("if ({cond}) {{"));
                self.indent += 1;
                self.stmts(then.body());
                self.indent -= 1;
                if let Some(otherwise) = otherwise {
                    self.line("} else {");
                    self.indent += 1;
                    self.stmts(otherwise.body());
                    self.indent -= 1;
                }
                self.line("}");
            }
            Stmt::Try(block) => {
                self.line("try {");
                self.indent += 1;
                // Bindings inside a `try` are local to it, at the top level too.
                self.stmts(block.body());
                self.indent -= 1;
                self.line("} catch (error) {");
                self.indent += 1;
                let log = self.log_function();
                self.line(&format!("{log}(\"caught\", error);"));
                self.indent -= 1;
                self.line("}");
            }
            Stmt::Throw(value) => {
                let code = format!("throw {};", self.expr(value));
                self.line(&code);
            }
            // The binding no longer holds the object; nothing else of the
            // emitted program does either (the prelude holds no binding).
            Stmt::Drop(binding) => self.line(&format!("{} = undefined;", self.expr(binding))),
            Stmt::Gc => {
                self.refuse(GC_REFUSAL);
                self.line("$.gc();");
            }
            Stmt::Watch(value) => {
                self.refuse(GC_REFUSAL);
                let label = nodesem_lang::printer::expr_text(value);
                let code = format!("$.watch({}, {});", string_literal(&label), self.expr(value));
                let code = self.own_frame(code, true);
                self.line(&code);
            }
            Stmt::Alive => {
                self.refuse(GC_REFUSAL);
                self.line("$.alive();");
            }
            Stmt::Return(_) if self.later_part && self.callback_depth == 0 => {
                self.refuse("a `return` in a part of the main script after a `run` would end that part without handing on the next");
                self.line("return;");
            }
            Stmt::Return(_) if self.module && self.callback_depth == 0 => {
                self.refuse("an ES module's top level cannot `return`");
                self.line("return;");
            }
            Stmt::Return(None) => self.line("return;"),
            Stmt::Return(Some(value)) => self.line(&format!("return {};", self.expr(value))),
            // Only valid at the top level, where `top_level` handles it; inside
            // a callback the prelude refuses it with a clear error.
            Stmt::Run(mode) => self.line(&run_call(*mode)),
            // The program's shape says it (see `emit_program`, `module_top_level`).
            Stmt::Use(directive) => {
                self.line(&line_comment(&format!("use {}", directive.word())));
            }
        }
    }

    /// A script callback, `$.cb(function (PARAM) { ... })`, whose closing line
    /// is at the current indentation.
    fn callback(&mut self, param: Param, block: &Block) -> String {
        self.function(param, block, "")
    }

    /// [`Emitter::callback`] of an async function.
    fn async_callback(&mut self, param: Param, block: &Block) -> String {
        self.function(param, block, "async ")
    }

    fn function(&mut self, param: Param, block: &Block, prefix: &str) -> String {
        let (head, tail) = match self.flavour {
            Flavour::Prelude => (
                format!("$.cb({prefix}function ({}) {{", param.as_str()),
                format!("{})", cost_argument(block.body())),
            ),
            Flavour::Plain => (
                format!("{prefix}function ({}) {{", param.as_str()),
                String::new(),
            ),
            Flavour::NodeTest => {
                let ran = self
                    .calls
                    .get(&(block as *const Block as usize))
                    .copied()
                    .unwrap_or(0);
                if ran == 0 {
                    // It must not run: its body is not needed.
                    return "common.mustNotCall()".to_string();
                }
                if self.single_instance {
                    (
                        format!("common.mustCall({prefix}function ({}) {{", param.as_str()),
                        if ran == 1 {
                            ")".to_string()
                        } else {
                            format!(", {ran})")
                        },
                    )
                } else {
                    // Made several times: how often each one runs is not
                    // known, only the log says it.
                    (
                        format!("{prefix}function ({}) {{", param.as_str()),
                        String::new(),
                    )
                }
            }
        };
        if block.body().is_empty() {
            return format!("{head}}}{tail}");
        }
        let saved = std::mem::take(&mut self.out);
        let current = std::mem::take(&mut self.current);
        let single = self.single_instance;
        self.single_instance = self
            .calls
            .get(&(block as *const Block as usize))
            .is_some_and(|&n| n <= 1);
        self.callback_depth += 1;
        self.indent += 1;
        self.stmts(block.body());
        self.indent -= 1;
        self.callback_depth -= 1;
        self.single_instance = single;
        self.current = current;
        let body = std::mem::replace(&mut self.out, saved);
        let pad = "  ".repeat(self.indent);
        format!("{head}\n{body}{pad}}}{tail}")
    }

    /// `{ name: function (...) { ... }, ... }`: the methods of a stream's
    /// underlying source, sink or transformer that are given.
    fn methods(&mut self, methods: &[(&str, Param, &Option<Block>)]) -> String {
        let mut out = Vec::new();
        for (name, param, block) in methods {
            if let Some(block) = block {
                out.push(format!("{name}: {}", self.callback(*param, block)));
            }
        }
        format!("{{ {} }}", out.join(", "))
    }

    /// `{ highWaterMark: N, size: function (chunk) { ... } }`, or `None`
    /// when the strategy gives neither.
    fn strategy(&mut self, strategy: &nodesem_lang::Strategy) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(n) = &strategy.high_water_mark {
            parts.push(format!(
                "highWaterMark: {}",
                nodesem_lang::number_to_string(n.value())
            ));
        }
        if let Some(size) = &strategy.size {
            parts.push(format!("size: {}", self.callback(Param::Chunk, size)));
        }
        (!parts.is_empty()).then(|| format!("{{ {} }}", parts.join(", ")))
    }

    fn listener(&mut self, callback: &Callback) -> String {
        match callback {
            Callback::Value(value) => self.expr(value),
            Callback::Inline(block) => self.callback(Param::Event, block),
        }
    }

    /// The JavaScript expression of an operation.
    fn op(&mut self, op: &Op) -> String {
        match op {
            Op::Value(value) => self.expr(value),

            // ---- abort
            Op::NewController => "new AbortController()".to_string(),
            Op::Abort { controller, reason } => {
                format!("{}.abort({})", self.expr(controller), self.optional(reason))
            }
            Op::SignalAbort { reason } => format!("AbortSignal.abort({})", self.optional(reason)),
            Op::SignalTimeout { ms } => self.timeout_signal(*ms),
            Op::SignalAny { signals, from_set } => self.signal_any(signals, *from_set),
            Op::ThrowIfAborted { signal } => format!("{}.throwIfAborted()", self.expr(signal)),
            Op::SetOnAbort { signal, handler } => {
                let value = match handler {
                    Handler::Null => "null".to_string(),
                    Handler::Value(value) => self.expr(value),
                    Handler::Callback(callback) => self.listener(callback),
                };
                let signal = self.expr(signal);
                if self.flavour == Flavour::Prelude {
                    format!(
                        "({}, {signal}.onabort = {value})",
                        charge(&[(&signal, "abort")])
                    )
                } else {
                    format!("({signal}.onabort = {value})")
                }
            }
            Op::AddAbortListener { signal, listener } => {
                let listener = self.listener(listener);
                if self.flavour == Flavour::Prelude {
                    format!("$.addAbortListener({}, {listener})", self.expr(signal))
                } else {
                    format!(
                        "{}.addAbortListener({}, {listener})",
                        self.helper("events"),
                        self.expr(signal)
                    )
                }
            }
            Op::Dispose { disposable } => {
                if self.flavour == Flavour::Prelude {
                    format!("$.dispose({})", self.expr(disposable))
                } else {
                    format!("{}[Symbol.dispose]()", self.expr(disposable))
                }
            }
            Op::NewWeakRef { target } => format!("new WeakRef({})", self.expr(target)),
            Op::Deref { weak_ref } => format!("{}.deref()", self.expr(weak_ref)),
            Op::NewRegistry(cleanup) => {
                let cleanup = match cleanup {
                    Callback::Inline(block) => self.callback(Param::Held, block),
                    Callback::Value(e) => self.expr(e),
                };
                // `new FinalizationRegistry(cleanup)`, through the prelude, which
                // counts the registries to let enough real loop turns pass for
                // their cleanups at each poll phase after a gc.
                self.refuse(GC_REFUSAL);
                format!("$.registry({cleanup})")
            }
            Op::Register {
                registry,
                target,
                held,
                token,
            } => {
                let token = token
                    .as_ref()
                    .map(|t| format!(", {}", self.expr(t)))
                    .unwrap_or_default();
                format!(
                    "{}.register({}, {}{token})",
                    self.expr(registry),
                    self.expr(target),
                    self.expr(held)
                )
            }
            Op::Unregister { registry, token } => {
                format!("{}.unregister({})", self.expr(registry), self.expr(token))
            }
            Op::Dependants { signal } => {
                self.refuse(GC_REFUSAL);
                format!("$.dependants({})", self.expr(signal))
            }
            Op::SetMaxListeners { n, targets } => {
                let args: Vec<String> = std::iter::once(n)
                    .chain(targets)
                    .map(|e| self.expr(e))
                    .collect();
                format!("{}.setMaxListeners({})", self.events(), args.join(", "))
            }
            Op::GetMaxListeners { target } => {
                format!("{}.getMaxListeners({})", self.events(), self.expr(target))
            }

            // ---- dispatch
            Op::NewTarget => "new EventTarget()".to_string(),

            // ---- async context (`$.asyncHooks` is `node:async_hooks`)
            Op::NewAls { default } => match default {
                Some(d) => format!(
                    "new {}.AsyncLocalStorage({{ defaultValue: {} }})",
                    self.helper("asyncHooks"),
                    self.expr(d)
                ),
                None => format!("new {}.AsyncLocalStorage()", self.helper("asyncHooks")),
            },
            Op::GetStore { als } => format!("{}.getStore()", self.expr(als)),
            Op::EnterWith { als, value } => {
                format!("{}.enterWith({})", self.expr(als), self.expr(value))
            }
            Op::AlsRun { als, value, body } => format!(
                "{}.run({}, {})",
                self.expr(als),
                self.expr(value),
                self.callback(Param::None, body)
            ),
            Op::AlsExit { als, body } => {
                format!(
                    "{}.exit({})",
                    self.expr(als),
                    self.callback(Param::None, body)
                )
            }
            Op::DisableAls { als } => format!("{}.disable()", self.expr(als)),
            Op::Bind { resource, function } => match resource {
                Some(r) => format!("{}.bind({})", self.expr(r), self.expr(function)),
                None => format!(
                    "{}.AsyncLocalStorage.bind({})",
                    self.helper("asyncHooks"),
                    self.expr(function)
                ),
            },
            Op::Snapshot => format!("{}.AsyncLocalStorage.snapshot()", self.helper("asyncHooks")),
            Op::Call { function, args } => {
                let args: Vec<String> = args.iter().map(|e| self.expr(e)).collect();
                format!("{}({})", self.expr(function), args.join(", "))
            }
            Op::NewAsyncResource { kind } => {
                format!(
                    "new {}.AsyncResource({})",
                    self.helper("asyncHooks"),
                    self.expr(kind)
                )
            }
            Op::RunInAsyncScope { resource, body } => format!(
                "{}.runInAsyncScope({})",
                self.expr(resource),
                self.callback(Param::None, body)
            ),
            Op::EmitDestroy { resource } => format!("{}.emitDestroy()", self.expr(resource)),
            Op::NativeCallback {
                ms,
                resource,
                callback,
            } => {
                let callback = match callback {
                    Callback::Value(value) => self.expr(value),
                    Callback::Inline(block) => self.callback(Param::None, block),
                };
                self.refuse("a native callback needs nodesem's addon (harness/native)");
                format!("$.native({ms}, {callback}, {resource})")
            }

            // ---- EventEmitter
            Op::NewEmitter => format!("new {}.EventEmitter()", self.events()),
            Op::NewCapturingEmitter => {
                format!(
                    "new {}.EventEmitter({{ captureRejections: true }})",
                    self.events()
                )
            }
            Op::OnRejection { emitter, function } => format!(
                "({}[Symbol.for('nodejs.rejection')] = {})",
                self.expr(emitter),
                self.expr(function)
            ),
            Op::OnEvents(o) => {
                let nodesem_lang::ast::OnEvents {
                    emitter,
                    name,
                    signal,
                    close,
                    high_water_mark,
                    low_water_mark,
                } = &**o;
                let mut members = Vec::new();
                if let Some(signal) = signal {
                    members.push(format!("signal: {}", self.expr(signal)));
                }
                if let Some(close) = close {
                    members.push(format!("close: [{}]", self.expr(close)));
                }
                if let Some(n) = high_water_mark {
                    members.push(format!("highWaterMark: {}", self.expr(n)));
                }
                if let Some(n) = low_water_mark {
                    members.push(format!("lowWaterMark: {}", self.expr(n)));
                }
                let call = if members.is_empty() {
                    format!(
                        "{}.on({}, {})",
                        self.events(),
                        self.expr(emitter),
                        self.expr(name)
                    )
                } else {
                    format!(
                        "{}.on({}, {}, {{ {} }})",
                        self.events(),
                        self.expr(emitter),
                        self.expr(name),
                        members.join(", ")
                    )
                };
                match signal {
                    // Adding the abort listener (`addAbortListener`) walks
                    // the signal's abort listeners: charged as `onceEvent`
                    // charges.
                    Some(signal) => {
                        let signal = self.expr(signal);
                        self.charged(&[(&signal, "abort")], call)
                    }
                    None => call,
                }
            }
            Op::IterThrow { iterator, value } => {
                format!("{}.throw({})", self.expr(iterator), self.expr(value))
            }
            Op::EmitterAdd {
                emitter,
                name,
                listener,
                prepend,
                once,
            } => {
                let (_, method) = nodesem_lang::emitter_add_form(*prepend, *once);
                let listener = match listener {
                    Callback::Value(value) => self.expr(value),
                    Callback::Inline(block) => self.callback(Param::Args, block),
                };
                format!(
                    "{}.{method}({}, {listener})",
                    self.expr(emitter),
                    self.expr(name)
                )
            }
            Op::EmitterRemove {
                emitter,
                name,
                listener,
            } => format!(
                "{}.removeListener({}, {})",
                self.expr(emitter),
                self.expr(name),
                self.expr(listener)
            ),
            Op::EmitterRemoveAll { emitter, name } => {
                format!(
                    "{}.removeAllListeners({})",
                    self.expr(emitter),
                    self.optional(name)
                )
            }
            Op::Emit {
                emitter,
                name,
                args,
            } => {
                let mut list = vec![self.expr(name)];
                list.extend(args.iter().map(|e| self.expr(e)));
                format!("{}.emit({})", self.expr(emitter), list.join(", "))
            }
            Op::EmitterListenerCount {
                emitter,
                name,
                listener,
            } => match listener {
                Some(listener) => format!(
                    "{}.listenerCount({}, {})",
                    self.expr(emitter),
                    self.expr(name),
                    self.expr(listener)
                ),
                None => format!("{}.listenerCount({})", self.expr(emitter), self.expr(name)),
            },
            Op::EventNames { emitter } => format!("{}.eventNames()", self.expr(emitter)),
            Op::EventsKeyCount { emitter } => {
                format!("Object.keys({}._events).length", self.expr(emitter))
            }
            Op::SetDefaultMaxListeners { n } => {
                format!("({}.defaultMaxListeners = {})", self.events(), self.expr(n))
            }
            Op::OnceEvent {
                emitter,
                name,
                signal,
            } => match signal {
                // Adding the abort listener walks the signal's abort
                // listeners: charged as `on S abort` charges them.
                Some(signal) => {
                    let signal = self.expr(signal);
                    let call = format!(
                        "{}.once({}, {}, {{ signal: {signal} }})",
                        self.events(),
                        self.expr(emitter),
                        self.expr(name)
                    );
                    self.charged(&[(&signal, "abort")], call)
                }
                None => format!(
                    "{}.once({}, {})",
                    self.events(),
                    self.expr(emitter),
                    self.expr(name)
                ),
            },
            Op::EmitterListeners { emitter, name, raw } => format!(
                "{}.{}({})",
                self.expr(emitter),
                if *raw { "rawListeners" } else { "listeners" },
                self.expr(name)
            ),
            Op::Function(block) => self.callback(Param::Event, block),
            Op::ListenerObject(block) => {
                format!("{{ handleEvent: {} }}", self.callback(Param::Event, block))
            }
            Op::AsyncFunction(block) => self.async_callback(Param::Event, block),
            // An arrow function keeps the `this` around it.
            Op::Async(block) => {
                let function = self.async_callback(Param::None, block);
                if self.flavour == Flavour::Prelude {
                    format!("{function}.call(this)")
                } else {
                    // A statement that starts with `async function` would be
                    // a declaration.
                    format!("({function}).call({})", self.expr(&Expr::This))
                }
            }
            Op::Await(value) => format!("await {}", self.expr(value)),
            Op::AddEventListener {
                target,
                event_type,
                listener,
                options,
            } => {
                let listener = self.listener(listener);
                let target = self.expr(target);
                let signal = options.signal.as_ref().map(|e| self.expr(e));
                let mut walked = vec![(&target, event_type.as_str())];
                if let Some(signal) = &signal {
                    walked.push((signal, "abort"));
                }
                let options = self.listener_options(options);
                let call = format!(
                    "{target}.addEventListener({}, {listener}{options})",
                    js_string(event_type)
                );
                self.charged(&walked, call)
            }
            Op::RemoveEventListener {
                target,
                event_type,
                listener,
                capture,
                as_boolean,
            } => {
                let options = match (*as_boolean, *capture) {
                    (true, capture) => format!(", {capture}"),
                    (false, true) => ", { capture: true }".to_string(),
                    (false, false) => String::new(),
                };
                let target = self.expr(target);
                let call = format!(
                    "{target}.removeEventListener({}, {}{options})",
                    js_string(event_type),
                    self.expr(listener)
                );
                self.charged(&[(&target, event_type)], call)
            }
            Op::Dispatch {
                target,
                event_type,
                cancelable,
            } => {
                let options = if *cancelable {
                    ", { cancelable: true }"
                } else {
                    ""
                };
                let target = self.expr(target);
                let call = format!(
                    "{target}.dispatchEvent(new Event({}{options}))",
                    js_string(event_type)
                );
                self.charged(&[(&target, event_type)], call)
            }
            Op::NewEvent {
                custom,
                event_type,
                detail,
                bubbles,
                cancelable,
                composed,
            } => {
                let class = if *custom { "CustomEvent" } else { "Event" };
                let Some(event_type) = event_type else {
                    return format!("new {class}()");
                };
                let mut options = Vec::new();
                if let Some(detail) = detail {
                    options.push(format!("detail: {}", self.expr(detail)));
                }
                for (set, name) in [
                    (*bubbles, "bubbles"),
                    (*cancelable, "cancelable"),
                    (*composed, "composed"),
                ] {
                    if set {
                        options.push(format!("{name}: true"));
                    }
                }
                let options = if options.is_empty() {
                    String::new()
                } else {
                    format!(", {{ {} }}", options.join(", "))
                };
                format!("new {class}({}{options})", js_string(event_type))
            }
            Op::NewAbortSignal => "new AbortSignal()".to_string(),
            Op::DispatchEvent { target, event } => {
                let (target, event) = (self.expr(target), self.expr(event));
                if self.flavour == Flavour::Prelude {
                    format!(
                        "($.charge($.listeners({target}, $.eventType({event}))), {target}.dispatchEvent({event}))"
                    )
                } else {
                    format!("{target}.dispatchEvent({event})")
                }
            }
            Op::ComposedPath { event } => format!("{}.composedPath()", self.expr(event)),
            Op::SetEventAttribute {
                event,
                attribute,
                value,
            } => format!(
                "({}.{} = {})",
                self.expr(event),
                attribute.name(),
                self.expr(value)
            ),
            Op::PreventDefault { event } => format!("{}.preventDefault()", self.expr(event)),
            Op::StopPropagation { event } => format!("{}.stopPropagation()", self.expr(event)),
            Op::StopImmediatePropagation { event } => {
                format!("{}.stopImmediatePropagation()", self.expr(event))
            }

            // ---- event loop
            Op::QueueMicrotask(block) => {
                format!("queueMicrotask({})", self.callback(Param::None, block))
            }
            Op::NextTick(block) => {
                format!("process.nextTick({})", self.callback(Param::None, block))
            }
            Op::SetTimeout { ms, body } => {
                if self.flavour == Flavour::Prelude {
                    format!("$.setTimeout({ms}, {})", self.callback(Param::None, body))
                } else {
                    let real = self.real_ms(*ms, false);
                    format!("setTimeout({}, {real})", self.callback(Param::None, body))
                }
            }
            Op::ClearTimeout { timer } => {
                format!(
                    "{}({})",
                    self.timer_function("clearTimeout"),
                    self.expr(timer)
                )
            }
            Op::SetInterval { ms, body } => {
                if self.flavour == Flavour::Prelude {
                    format!("$.setInterval({ms}, {})", self.callback(Param::None, body))
                } else {
                    self.refuse("an interval's rounds meet other timers at real moments that can flip their order");
                    format!("setInterval({}, {ms})", self.callback(Param::None, body))
                }
            }
            // The virtual timers' clear takes a timeout and an interval alike,
            // as Node's clearTimeout and clearInterval do.
            Op::ClearInterval { timer } => {
                let clear = if self.flavour == Flavour::Prelude {
                    "$.clearTimeout"
                } else {
                    "clearInterval"
                };
                format!("{clear}({})", self.expr(timer))
            }
            Op::TimerRef { timer, refed } => {
                let method = if *refed { "ref" } else { "unref" };
                if self.flavour == Flavour::Prelude {
                    format!("$.{method}({})", self.expr(timer))
                } else {
                    format!("{}.{method}()", self.expr(timer))
                }
            }
            Op::SetImmediate(block) => {
                if self.flavour != Flavour::Prelude {
                    self.facts
                        .borrow_mut()
                        .push(Fact::Immediate(self.current.clone()));
                }
                format!(
                    "{}({})",
                    self.timer_function("setImmediate"),
                    self.callback(Param::None, block)
                )
            }
            Op::ClearImmediate { immediate } => format!(
                "{}({})",
                self.timer_function("clearImmediate"),
                self.expr(immediate)
            ),

            // ---- promises
            Op::NewPromise => format!("{}()", self.helper("deferred")),
            Op::WithResolvers => format!("{}()", self.helper("withResolvers")),
            Op::ProcessOff(event) => {
                self.refuse("with no handler of its own, the program's process would print and exit where the prelude logs `exit 1 after uncaught`");
                format!("$.processOff('{}')", event.name())
            }
            Op::Assign { target, value } => {
                format!("({} = {})", self.expr(target), self.expr(value))
            }
            Op::Resolve { promise, value } => match value {
                Some(value) => format!(
                    "{}({}, {})",
                    self.helper("resolve"),
                    self.expr(promise),
                    self.expr(value)
                ),
                None => format!("{}({})", self.helper("resolve"), self.expr(promise)),
            },
            Op::Reject { promise, value } => match value {
                Some(value) => format!(
                    "{}({}, {})",
                    self.helper("reject"),
                    self.expr(promise),
                    self.expr(value)
                ),
                None => format!("{}({})", self.helper("reject"), self.expr(promise)),
            },
            Op::Then {
                promise,
                on_fulfilled,
                on_rejected,
            } => {
                let fulfilled = on_fulfilled
                    .as_ref()
                    .map(|block| self.callback(Param::Value, block));
                let rejected = on_rejected
                    .as_ref()
                    .map(|block| self.callback(Param::Reason, block));
                let args = match (fulfilled, rejected) {
                    (None, None) => String::new(),
                    (Some(f), None) => f,
                    (None, Some(r)) => format!("undefined, {r}"),
                    (Some(f), Some(r)) => format!("{f}, {r}"),
                };
                format!("{}.then({args})", self.expr(promise))
            }
            Op::Catch {
                promise,
                on_rejected,
            } => format!(
                "{}.catch({})",
                self.expr(promise),
                self.callback(Param::Reason, on_rejected)
            ),
            Op::Finally {
                promise,
                on_finally,
            } => format!(
                "{}.finally({})",
                self.expr(promise),
                self.callback(Param::None, on_finally)
            ),
            Op::PromiseResolve { value } => format!("Promise.resolve({})", self.expr(value)),
            Op::PromiseReject { value } => format!("Promise.reject({})", self.expr(value)),
            Op::Thenable { value, body } => match body {
                Some(body) => format!(
                    "{}({}, {})",
                    self.helper("thenable"),
                    self.expr(value),
                    self.callback(Param::None, body)
                ),
                None => format!("{}({})", self.helper("thenable"), self.expr(value)),
            },
            Op::Combinator { kind, values } => {
                let values: Vec<String> = values.iter().map(|e| self.expr(e)).collect();
                format!("Promise.{}([{}])", kind.method(), values.join(", "))
            }
            Op::Ruler { ticks } => format!("{}({ticks})", self.helper("ruler")),

            // ---- streams
            Op::NewReadable {
                strategy,
                start,
                pull,
                cancel,
            } => {
                let source = self.methods(&[
                    ("start", Param::Controller, start),
                    ("pull", Param::Controller, pull),
                    ("cancel", Param::Reason, cancel),
                ]);
                match self.strategy(strategy) {
                    Some(strategy) => format!("new ReadableStream({source}, {strategy})"),
                    None => format!("new ReadableStream({source})"),
                }
            }
            Op::NewWritable {
                strategy,
                start,
                write,
                close,
                abort,
            } => {
                let sink = self.methods(&[
                    ("start", Param::Controller, start),
                    ("write", Param::ChunkController, write),
                    ("close", Param::None, close),
                    ("abort", Param::Reason, abort),
                ]);
                match self.strategy(strategy) {
                    Some(strategy) => format!("new WritableStream({sink}, {strategy})"),
                    None => format!("new WritableStream({sink})"),
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
                let transformer = self.methods(&[
                    ("start", Param::Controller, start),
                    ("transform", Param::ChunkController, transform),
                    ("flush", Param::Controller, flush),
                    ("cancel", Param::Reason, cancel),
                ]);
                let hwm = |n: &Option<nodesem_lang::Number>| match n {
                    Some(n) => format!(
                        "{{ highWaterMark: {} }}",
                        nodesem_lang::number_to_string(n.value())
                    ),
                    None => "undefined".to_string(),
                };
                match (writable_high_water_mark, readable_high_water_mark) {
                    (None, None) => format!("new TransformStream({transformer})"),
                    (w, None) => format!("new TransformStream({transformer}, {})", hwm(w)),
                    (w, r) => format!("new TransformStream({transformer}, {}, {})", hwm(w), hwm(r)),
                }
            }
            Op::GetWriter { stream } => format!("{}.getWriter()", self.expr(stream)),
            Op::Write { writer, chunk } => {
                format!("{}.write({})", self.expr(writer), self.expr(chunk))
            }
            Op::CloseWritable { target } => format!("{}.close()", self.expr(target)),
            Op::AbortWritable { target, reason } => match reason {
                Some(reason) => format!("{}.abort({})", self.expr(target), self.expr(reason)),
                None => format!("{}.abort()", self.expr(target)),
            },
            Op::Terminate { controller } => format!("{}.terminate()", self.expr(controller)),
            Op::PipeTo {
                source,
                dest,
                options,
            } => format!(
                "{}.pipeTo({}{})",
                self.expr(source),
                self.expr(dest),
                self.pipe_options(options)
            ),
            Op::PipeThrough {
                source,
                transform,
                options,
            } => format!(
                "{}.pipeThrough({}{})",
                self.expr(source),
                self.expr(transform),
                self.pipe_options(options)
            ),
            Op::From { is_async, values } => {
                let values: Vec<String> = values.iter().map(|e| self.expr(e)).collect();
                if *is_async {
                    format!(
                        "ReadableStream.from({}([{}]))",
                        self.helper("asyncGenerator"),
                        values.join(", ")
                    )
                } else {
                    format!("ReadableStream.from([{}])", values.join(", "))
                }
            }
            Op::Values {
                stream,
                prevent_cancel,
            } => {
                if *prevent_cancel {
                    format!("{}.values({{ preventCancel: true }})", self.expr(stream))
                } else {
                    format!("{}.values()", self.expr(stream))
                }
            }
            Op::Next { iterator } => format!("{}.next()", self.expr(iterator)),
            Op::IterReturn { iterator, value } => match value {
                Some(value) => format!("{}.return({})", self.expr(iterator), self.expr(value)),
                None => format!("{}.return()", self.expr(iterator)),
            },
            Op::NewBytes(nodesem_lang::BytesInit::Values(bytes)) => {
                let bytes: Vec<String> = bytes.iter().map(u8::to_string).collect();
                format!("new Uint8Array([{}])", bytes.join(", "))
            }
            Op::NewBytes(nodesem_lang::BytesInit::Zeros(n)) => format!("new Uint8Array({n})"),
            Op::Subarray { view, start, end } => match end {
                Some(end) => format!("{}.subarray({start}, {end})", self.expr(view)),
                None => format!("{}.subarray({start})", self.expr(view)),
            },
            Op::NewReadableBytes {
                high_water_mark,
                auto_allocate_chunk_size,
                start,
                pull,
                cancel,
            } => {
                let methods = self.methods(&[
                    ("start", Param::Controller, start),
                    ("pull", Param::Controller, pull),
                    ("cancel", Param::Reason, cancel),
                ]);
                let mut head = "type: \"bytes\"".to_string();
                if let Some(n) = auto_allocate_chunk_size {
                    head.push_str(&format!(
                        ", autoAllocateChunkSize: {}",
                        nodesem_lang::number_to_string(n.value())
                    ));
                }
                let source = match methods
                    .strip_prefix("{ ")
                    .and_then(|m| m.strip_suffix(" }"))
                {
                    Some(inner) if !inner.is_empty() => format!("{{ {head}, {inner} }}"),
                    _ => format!("{{ {head} }}"),
                };
                match high_water_mark {
                    Some(n) => format!(
                        "new ReadableStream({source}, {{ highWaterMark: {} }})",
                        nodesem_lang::number_to_string(n.value())
                    ),
                    None => format!("new ReadableStream({source})"),
                }
            }
            Op::GetByobReader { stream } => {
                format!("{}.getReader({{ mode: \"byob\" }})", self.expr(stream))
            }
            Op::ReadInto { reader, view, min } => match min {
                Some(min) => format!(
                    "{}.read({}, {{ min: {} }})",
                    self.expr(reader),
                    self.expr(view),
                    self.expr(min)
                ),
                None => format!("{}.read({})", self.expr(reader), self.expr(view)),
            },
            Op::Respond {
                request,
                bytes_written,
            } => format!(
                "{}.respond({})",
                self.expr(request),
                self.expr(bytes_written)
            ),
            Op::RespondWithNewView { request, view } => {
                format!(
                    "{}.respondWithNewView({})",
                    self.expr(request),
                    self.expr(view)
                )
            }
            Op::Enqueue { controller, chunk } => {
                format!("{}.enqueue({})", self.expr(controller), self.expr(chunk))
            }
            Op::CloseController { controller } => format!("{}.close()", self.expr(controller)),
            Op::ErrorController { controller, error } => {
                format!("{}.error({})", self.expr(controller), self.expr(error))
            }
            Op::GetReader { stream } => format!("{}.getReader()", self.expr(stream)),
            Op::Read { reader } => format!("{}.read()", self.expr(reader)),
            Op::ReleaseLock { reader } => format!("{}.releaseLock()", self.expr(reader)),
            Op::Cancel { target, reason } => match reason {
                Some(reason) => format!("{}.cancel({})", self.expr(target), self.expr(reason)),
                None => format!("{}.cancel()", self.expr(target)),
            },
        }
    }
}

/// Why a scenario that collects garbage or watches what is collected cannot
/// be plain.
const GC_REFUSAL: &str = "garbage collection needs `node --expose-gc`, and when real Node collects on its own and runs the cleanups is V8's decision";

/// A timer's delay as Node clamps it (lib/internal/timers.js, `Timeout`):
/// outside [1, 2^31 - 1] it is 1.
fn clamp_ms(ms: u32) -> u32 {
    if (1..=0x7fff_ffff).contains(&ms) {
        ms
    } else {
        1
    }
}

/// `, N`: the statement cost a callback or main-script part pays when it
/// runs (see [`nodesem_lang::statement_cost`]), nothing when it is 0.
fn cost_argument(body: &[Stmt]) -> String {
    match nodesem_lang::statement_cost(body) {
        0 => String::new(),
        n => format!(", {n}"),
    }
}

/// `$.charge(...)`: the work of walking these listener lists, charged before
/// the operation that walks them (the runtime's `charge_listeners`).
fn charge(walked: &[(&String, &str)]) -> String {
    let counts: Vec<String> = walked
        .iter()
        .map(|(target, event_type)| format!("$.listeners({target}, {})", js_string(event_type)))
        .collect();
    format!("$.charge({})", counts.join(" + "))
}

fn run_call(mode: RunMode) -> String {
    match mode {
        RunMode::Turn => "$.run(\"turn\");".to_string(),
        RunMode::Idle => "$.run(\"idle\");".to_string(),
        RunMode::Advance(ms) => format!("$.run(\"advance\", {ms});"),
    }
}

impl Emitter {
    /// `, { preventClose: true, ... }` with the pipe options that are set, or
    /// nothing.
    fn pipe_options(&self, options: &nodesem_lang::PipeOptions) -> String {
        if options.is_empty() {
            return String::new();
        }
        let mut parts = Vec::new();
        for (name, set) in [
            ("preventClose", options.prevent_close),
            ("preventAbort", options.prevent_abort),
            ("preventCancel", options.prevent_cancel),
        ] {
            if set {
                parts.push(format!("{name}: true"));
            }
        }
        if let Some(signal) = &options.signal {
            parts.push(format!("signal: {}", self.expr(signal)));
        }
        format!(", {{ {} }}", parts.join(", "))
    }

    /// `, { once: true, ... }` with the options that are set, or nothing.
    fn listener_options(&self, options: &ListenerOptions) -> String {
        if let Some(value) = &options.value {
            return format!(", {}", self.expr(value));
        }
        if options.as_boolean {
            return format!(", {}", options.capture);
        }
        let mut set: Vec<String> = Vec::new();
        if options.once {
            set.push("once: true".into());
        }
        if options.capture {
            set.push("capture: true".into());
        }
        if options.passive {
            set.push("passive: true".into());
        }
        if let Some(signal) = &options.signal {
            set.push(format!("signal: {}", self.expr(signal)));
        }
        if set.is_empty() {
            String::new()
        } else {
            format!(", {{ {} }}", set.join(", "))
        }
    }

    fn optional(&self, value: &Option<Expr>) -> String {
        value.as_ref().map(|e| self.expr(e)).unwrap_or_default()
    }

    /// `AbortSignal.timeout(MS)` on the prelude's clock.
    fn timeout_signal(&self, ms: u32) -> String {
        if self.flavour == Flavour::Prelude {
            format!("$.timeoutSignal({ms})")
        } else {
            format!("AbortSignal.timeout({})", self.real_ms(ms, true))
        }
    }

    /// `AbortSignal.any(...)`, through the prelude's weight check.
    fn signal_any(&self, signals: &[Expr], from_set: bool) -> String {
        let list: Vec<String> = signals.iter().map(|e| self.expr(e)).collect();
        if from_set {
            format!("{}(new Set([{}]))", self.any_function(), list.join(", "))
        } else {
            format!("{}([{}])", self.any_function(), list.join(", "))
        }
    }

    /// The JavaScript of an expression.
    fn expr(&self, value: &Expr) -> String {
        match value {
            Expr::Undefined => "undefined".into(),
            Expr::Null => "null".into(),
            Expr::Bool(b) => b.to_string(),
            Expr::Int(i) => int(*i),
            // `-0`, `NaN`, `Infinity` and fractions are written the same in
            // JavaScript; `-0` is the unary minus of 0, which is -0.
            Expr::Number(n) => format!("({})", n.text()),
            Expr::Symbol(None) => "Symbol()".into(),
            Expr::Symbol(Some(description)) => format!("Symbol({})", js_string(description)),
            Expr::Object => "({})".into(),
            Expr::ConstructorName(a) => format!("({}).constructor.name", self.expr(a)),
            Expr::ClassConstant(class, name) => format!("{}.{}", class.name(), identifier(name)),
            Expr::Str(s) => js_string(s),
            Expr::Var(name) => identifier(name),
            Expr::Prop(base, name) => {
                let name = identifier(name);
                match **base {
                    // `1.name` does not parse: a number needs parentheses.
                    Expr::Int(i) => format!("({}).{name}", int(i)),
                    _ => format!("{}.{name}", self.expr(base)),
                }
            }
            Expr::NewError(message) => format!("new Error({})", js_string(message)),
            Expr::NewBuiltinError { class, message } => {
                format!("new {}({})", class.name(), js_string(message))
            }
            Expr::NewDomException { message, name } => {
                format!(
                    "new DOMException({}, {})",
                    js_string(message),
                    js_string(name)
                )
            }
            // The prelude's `Object.is`, taken before the scenario runs: a
            // binding named `Object` cannot change it.
            // Callbacks are `function`s, called with their receiver (the
            // prelude's `$.cb` passes it on); the top level is module code.
            // A CommonJS module's top-level `this` is its `exports`; the
            // language's, as an ES module's, is undefined.
            Expr::This if self.flavour != Flavour::Prelude && self.callback_depth == 0 => {
                "undefined".into()
            }
            Expr::This => "this".into(),
            Expr::ArgumentCount => "arguments.length".into(),
            Expr::ErrorMonitor => format!("{}.errorMonitor", self.events()),
            Expr::DefaultMaxListeners => format!("{}.defaultMaxListeners", self.events()),
            Expr::Same(a, b) if self.flavour == Flavour::Prelude => {
                format!("$.same({}, {})", self.expr(a), self.expr(b))
            }
            Expr::Add(a, b) if self.flavour == Flavour::Prelude => {
                format!("$.add({}, {})", self.expr(a), self.expr(b))
            }
            Expr::Less(a, b) if self.flavour == Flavour::Prelude => {
                format!("$.less({}, {})", self.expr(a), self.expr(b))
            }
            Expr::Same(a, b) => format!("Object.is({}, {})", self.expr(a), self.expr(b)),
            Expr::Add(a, b) => format!("({} + {})", self.expr(a), self.expr(b)),
            Expr::Less(a, b) => format!("({} < {})", self.expr(a), self.expr(b)),
            Expr::TypeOf(a) => format!("(typeof {})", self.expr(a)),
            // Bindings start with a lowercase letter: no scenario can shadow a
            // constructor.
            Expr::InstanceOf(a, class) => format!("({} instanceof {})", self.expr(a), class.name()),
            Expr::Temporary(t) => match &**t {
                Temporary::Timeout(ms) => self.timeout_signal(*ms),
                Temporary::Any { signals, from_set } => self.signal_any(signals, *from_set),
            },
        }
    }
}

/// An integer literal. The parser keeps integers within JavaScript's safe
/// range ([`nodesem_lang::limits::MAX_SAFE_INTEGER`]), where a JavaScript
/// number and the runtime's `f64` are the same exact value.
fn int(i: i64) -> String {
    i.to_string()
}
