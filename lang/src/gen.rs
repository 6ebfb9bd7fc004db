//! Generators of valid scenarios, for fuzzing and property tests.
//!
//! A derived `Arbitrary` on the AST would produce mostly invalid scripts
//! (unknown bindings, the wrong kinds, `run` inside callbacks) and trees deep
//! enough to overflow the stack. This generator instead keeps the state the
//! script has built so far, as wasmtime's table-ops generator and
//! proptest-state-machine's reference state machine do: a symbol table of the
//! live bindings with their kinds, the listeners added by name, the
//! (target, type) pairs that have listeners, and the callback it is inside.
//! Every choice is drawn among the operations that are valid at that point, so
//! every scenario it produces is accepted by [`crate::parse`] and survives
//! `parse(print(s)) == s`.
//!
//! One generator serves every driver, because it reads its choices from
//! [`arbitrary::Unstructured`]:
//!
//! - libFuzzer: [`GeneratedScenario`] implements [`Arbitrary`], or call
//!   [`generate`] on the fuzzer's bytes;
//! - proptest: [`scenario_strategy`] maps a bounded `Vec<u8>` through the
//!   generator, so proptest's shrinking of the bytes shrinks the scenario
//!   (fewer bytes, fewer statements; smaller bytes, earlier choices);
//! - plain seeds: [`generate_from_seed`] fills the bytes from a seeded PRNG,
//!   so a finding can be replayed from `(seed, size)` alone.
//!
//! When the bytes run out every choice falls back to its first, cheapest
//! option (a short log, no optional part, an empty block), so generation
//! always ends and never fails.
//!
//! Scope: the abort and dispatch operations, the event-loop operations that
//! make them interesting (microtasks, ticks, timers, immediates, `run`) and
//! promises lightly. Choices are biased towards the shapes that have broken
//! optimized implementations before: listeners that abort controllers
//! (including re-entrantly the one being aborted), `any` over shared sources,
//! listeners removed or added during a dispatch, dispatch from inside another
//! target's listener. Every callback body starts with a `log` naming it, so
//! that a divergence in which callbacks ran, and in what order, is visible.
//!
//! Sizes are bounded by [`GenConfig`], itself capped by the language's
//! limits ([`crate::limits`]): by default blocks nest at most three deep, the
//! main script has at most 30 statements and a block 6, the whole scenario
//! 200. (A `dispatch` whose result is logged counts as one statement but
//! prints as two, and a `try` may end with a `throw` beyond the limit, so a
//! block can reach 8 lines and the main script 31.)

use arbitrary::{Arbitrary, Unstructured};
use proptest::strategy::Strategy;

use crate::ast::{
    Block, Callback, Expr, Handler, ListenerOptions, Name, Op, RunMode, Scenario, Stmt,
};
use crate::limits::{MAX_NESTING, MAX_SOURCE_BYTES};
use crate::parser::Kind;

/// The size limits of generated scenarios.
///
/// Whatever the values, a generated scenario stays within the static limits
/// of [`crate::limits`], so that it always parses: `max_depth` is capped at
/// [`MAX_NESTING`], `max_statements` at [`MAX_GENERATED_STATEMENTS`] (which
/// keeps the printed text below [`MAX_SOURCE_BYTES`]), and the other two at
/// `max_statements`. Lists (`log` values, `any` signals) hold at most four
/// entries, property chains are at most two long (`c.signal.reason`) and
/// integers lie in -100..=100, far inside the language's limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// The most statements in the main script.
    pub max_top_level: usize,
    /// The most statements in one block, its identifying `log` included.
    pub max_block: usize,
    /// The deepest blocks nest (a callback body in the main script is at
    /// depth 1).
    pub max_depth: usize,
    /// The most statements in the whole scenario, all blocks included.
    pub max_statements: usize,
}

/// The most statements a generated scenario may have, whatever
/// [`GenConfig::max_statements`] says. A statement prints as at most three
/// lines (`then P {`, `} else {` and `}`; or a `dispatch` and the `log` of
/// its result) of at most [`MAX_GENERATED_LINE`] bytes each, so the printed
/// scenario stays under [`MAX_SOURCE_BYTES`].
pub const MAX_GENERATED_STATEMENTS: usize = 1000;

/// The longest line the generator prints, in bytes: the indentation of
/// [`MAX_NESTING`] levels and the longest statement it writes (a `log` of
/// four values or an `on` with every option, under a hundred bytes).
pub const MAX_GENERATED_LINE: usize = 256;

const _: () = assert!(MAX_GENERATED_STATEMENTS * 3 * MAX_GENERATED_LINE <= MAX_SOURCE_BYTES);

impl GenConfig {
    /// The same limits, capped so that every scenario they allow is within
    /// the language's static limits (see [`GenConfig`]).
    pub fn within_limits(self) -> GenConfig {
        let max_statements = self.max_statements.min(MAX_GENERATED_STATEMENTS);
        GenConfig {
            max_top_level: self.max_top_level.min(max_statements),
            max_block: self.max_block.min(max_statements),
            max_depth: self.max_depth.min(MAX_NESTING),
            max_statements,
        }
    }
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            max_top_level: 30,
            max_block: 6,
            max_depth: 3,
            max_statements: 200,
        }
    }
}

/// The most bytes [`scenario_strategy`] feeds the generator: enough for a
/// full-size scenario, small enough that shrinking is quick.
pub const STRATEGY_MAX_BYTES: usize = 2048;

/// A scenario made by [`generate`], for fuzz targets that take their input
/// as `Arbitrary` (`fuzz_target!(|s: GeneratedScenario| ...)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedScenario(pub Scenario);

impl<'a> Arbitrary<'a> for GeneratedScenario {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        generate(u).map(GeneratedScenario)
    }
}

/// Generates a valid scenario from the bytes of `u`, with the default limits.
///
/// It never returns an error; the `Result` is the shape `arbitrary` expects.
pub fn generate(u: &mut Unstructured<'_>) -> arbitrary::Result<Scenario> {
    generate_with(u, &GenConfig::default())
}

/// Generates a valid scenario from the bytes of `u`, within `config`'s limits.
pub fn generate_with(u: &mut Unstructured<'_>, config: &GenConfig) -> arbitrary::Result<Scenario> {
    Ok(Generator::new(u, *config).scenario())
}

/// Generates a valid scenario from `size` bytes of a splitmix64 stream seeded
/// with `seed`. The same `(seed, size)` always gives the same scenario.
pub fn generate_from_seed(seed: u64, size: usize) -> Scenario {
    let bytes = seeded_bytes(seed, size);
    let mut u = Unstructured::new(&bytes);
    Generator::new(&mut u, GenConfig::default()).scenario()
}

/// `size` bytes of the splitmix64 stream seeded with `seed`: the input that
/// [`generate_from_seed`] gives the generator.
pub fn seeded_bytes(seed: u64, size: usize) -> Vec<u8> {
    let mut state = seed;
    let mut bytes = Vec::with_capacity(size + 8);
    while bytes.len() < size {
        // splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom
        // number generators", 2014), as in java.util.SplittableRandom.
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        bytes.extend_from_slice(&z.to_le_bytes());
    }
    bytes.truncate(size);
    bytes
}

/// A proptest strategy for valid scenarios: a `Vec<u8>` of at most
/// [`STRATEGY_MAX_BYTES`] mapped through [`generate`]. Shrinking shrinks the
/// bytes, which shrinks the scenario.
pub fn scenario_strategy() -> impl Strategy<Value = Scenario> {
    proptest::collection::vec(proptest::num::u8::ANY, 0..=STRATEGY_MAX_BYTES).prop_map(|bytes| {
        let mut u = Unstructured::new(&bytes);
        Generator::new(&mut u, GenConfig::default()).scenario()
    })
}

// ---- vocabulary -----------------------------------------------------------

/// Event types for `on`, `off` and `dispatch`. `foo` twice to make listeners
/// and dispatches meet more often; a quoted type exercises the printer.
const EVENT_TYPES: &[&str] = &["foo", "foo", "bar", "abort", "my event"];

/// Reason strings: plain ones, and ones the printer has to escape.
const STRINGS: &[&str] = &[
    "boom",
    "again",
    "late",
    "x y",
    "quote\"d",
    "back\\slash",
    "tab\there",
    "ünï",
    "",
];

/// Messages for `Error("...")`.
const ERROR_MESSAGES: &[&str] = &["boom", "listener failed", "nested", "late"];

/// Event properties worth logging.
const EVENT_PROPS: &[&str] = &[
    "type",
    "defaultPrevented",
    "isTrusted",
    "eventPhase",
    "cancelable",
];

/// Comment lines.
const COMMENTS: &[&str] = &[
    "generated",
    "",
    " indented",
    "re-entrancy ahead",
    "# nested hash",
];

/// Everything the generator can do as one statement. The first entry of a
/// choice list is what exhausted input falls back to, so `Log` comes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Log,
    Comment,
    Controller,
    Abort,
    SignalAbort,
    Timeout,
    Any,
    TryThrowIfAborted,
    TryThrow,
    OnAbort,
    AddAbortListener,
    Dispose,
    Target,
    Function,
    On,
    Off,
    Dispatch,
    PreventDefault,
    StopPropagation,
    StopImmediatePropagation,
    Microtask,
    Tick,
    SetTimeout,
    ClearTimeout,
    SetImmediate,
    ClearImmediate,
    Run,
    Throw,
    Return,
    Promise,
    Resolve,
    Reject,
    Then,
    Catch,
    Resolved,
}

/// A live binding.
struct Binding {
    name: Name,
    kind: Kind,
    /// For functions: whether the body reads `event`, which makes it unfit
    /// for `addAbortListener` (an already aborted signal calls it with no
    /// argument).
    reads_event: bool,
}

/// A listener added by name, so that `off` can remove it (or miss it with
/// the wrong capture flag).
struct Registration {
    target: Expr,
    event_type: String,
    listener: Name,
    capture: bool,
}

/// Where the statement being generated stands.
#[derive(Clone, Debug, Default)]
struct Ctx {
    /// 0 in the main script, n inside n nested blocks.
    depth: usize,
    /// Directly in the main script: `run` is allowed.
    top_level: bool,
    /// Inside a callback: `return` is allowed.
    in_callback: bool,
    /// Inside a `try`: a `throw` is caught.
    in_try: bool,
    /// `event` names an Event here (not shadowed by a parameter that may be
    /// undefined).
    event: bool,
    /// `value` is visible.
    value: bool,
    /// `reason` is visible.
    reason: bool,
    /// The target and type of the listener whose body this is, to bias
    /// choices towards re-entrancy and to avoid endless self-dispatch.
    listening: Option<(Expr, String)>,
    /// In a named `fn`, which may be added anywhere: no dispatch, which could
    /// recurse without end.
    no_dispatch: bool,
}

struct Generator<'u, 'a> {
    u: &'u mut Unstructured<'a>,
    config: GenConfig,
    /// The bindings visible now, innermost block last.
    scopes: Vec<Vec<Binding>>,
    /// Listeners added by name.
    registrations: Vec<Registration>,
    /// (target, type) pairs with a listener, so that dispatches reach them.
    listened: Vec<(Expr, String)>,
    /// The counter behind every binding name and callback label.
    next_id: u32,
    /// Statements generated so far.
    statements: usize,
}

/// Whether a block ends here: statements after a `throw` or `return` would
/// never run.
fn ends_block(body: &[Stmt]) -> bool {
    matches!(body.last(), Some(Stmt::Throw(_) | Stmt::Return(_)))
}

/// The binding an expression starts from.
fn root(e: &Expr) -> Option<&str> {
    match e {
        Expr::Var(n) => Some(n),
        Expr::Prop(e, _) => root(e),
        _ => None,
    }
}

impl<'u, 'a> Generator<'u, 'a> {
    fn new(u: &'u mut Unstructured<'a>, config: GenConfig) -> Self {
        Generator {
            u,
            config: config.within_limits(),
            scopes: vec![Vec::new()],
            registrations: Vec::new(),
            listened: Vec::new(),
            next_id: 0,
            statements: 0,
        }
    }

    fn scenario(&mut self) -> Scenario {
        let ctx = Ctx {
            top_level: true,
            ..Ctx::default()
        };
        let mut body = Vec::new();
        while body.len() < self.config.max_top_level
            && self.statements < self.config.max_statements
            && !self.u.is_empty()
        {
            self.statement(&ctx, &mut body);
        }
        Scenario { body }
    }

    // ---- choosing from the bytes ---------------------------------------

    /// An index below `n` (`n > 0`); 0 once the bytes run out.
    fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        self.u.choose_index(n).unwrap_or(0)
    }

    /// A number in `lo..=hi`; `lo` once the bytes run out.
    fn range(&mut self, lo: u32, hi: u32) -> u32 {
        self.u.int_in_range(lo..=hi).unwrap_or(lo)
    }

    /// True with the given percentage; false once the bytes run out.
    fn chance(&mut self, percent: u32) -> bool {
        self.range(0, 99) >= 100 - percent.min(100)
    }

    fn pick<T: Clone>(&mut self, items: &[T]) -> Option<T> {
        if items.is_empty() {
            return None;
        }
        let i = self.below(items.len());
        Some(items[i].clone())
    }

    fn pick_str(&mut self, items: &[&str]) -> String {
        self.pick(items).unwrap_or_default().to_string()
    }

    fn weighted<T: Copy>(&mut self, items: &[(T, u32)]) -> Option<T> {
        let total: u32 = items.iter().map(|(_, w)| w).sum();
        if total == 0 {
            return None;
        }
        let mut x = self.range(0, total - 1);
        for &(item, w) in items {
            if x < w {
                return Some(item);
            }
            x -= w;
        }
        None
    }

    // ---- the symbol table ----------------------------------------------

    fn fresh(&mut self, prefix: &str) -> Name {
        self.next_id += 1;
        format!("{prefix}{}", self.next_id)
    }

    fn declare(&mut self, name: &str, kind: Kind) {
        self.declare_fn(name, kind, false);
    }

    fn declare_fn(&mut self, name: &str, kind: Kind, reads_event: bool) {
        let scope = self
            .scopes
            .last_mut()
            .expect("the main script's scope is never popped");
        scope.push(Binding {
            name: name.to_string(),
            kind,
            reads_event,
        });
    }

    fn visible(&self, name: &str) -> bool {
        self.scopes.iter().flatten().any(|b| b.name == name)
    }

    fn expr_visible(&self, e: &Expr) -> bool {
        root(e).is_none_or(|n| self.visible(n))
    }

    /// The visible bindings whose kind fits `wanted`.
    fn names(&self, wanted: Kind) -> Vec<Name> {
        self.scopes
            .iter()
            .flatten()
            .filter(|b| b.kind.fits(wanted))
            .map(|b| b.name.clone())
            .collect()
    }

    fn functions(&self, reading_event_allowed: bool) -> Vec<Name> {
        self.scopes
            .iter()
            .flatten()
            .filter(|b| b.kind == Kind::Function && (reading_event_allowed || !b.reads_event))
            .map(|b| b.name.clone())
            .collect()
    }

    /// Every signal expression: signal bindings and controllers' `.signal`.
    fn signals(&self) -> Vec<Expr> {
        let mut out = Vec::new();
        for b in self.scopes.iter().flatten() {
            match b.kind {
                Kind::Signal => out.push(Expr::var(&b.name)),
                Kind::Controller => out.push(Expr::var(&b.name).prop("signal")),
                _ => {}
            }
        }
        out
    }

    /// Every target expression, with whether it is a signal.
    fn targets(&self) -> Vec<(Expr, bool)> {
        let mut out = Vec::new();
        for b in self.scopes.iter().flatten() {
            match b.kind {
                Kind::Target => out.push((Expr::var(&b.name), false)),
                Kind::Signal => out.push((Expr::var(&b.name), true)),
                Kind::Controller => out.push((Expr::var(&b.name).prop("signal"), true)),
                _ => {}
            }
        }
        out
    }

    fn has(&self, wanted: Kind) -> bool {
        self.scopes.iter().flatten().any(|b| b.kind.fits(wanted))
    }

    fn count(&self, kind: Kind) -> usize {
        self.scopes
            .iter()
            .flatten()
            .filter(|b| b.kind == kind)
            .count()
    }

    fn has_signal(&self) -> bool {
        self.has(Kind::Signal) || self.has(Kind::Controller)
    }

    // ---- statements ------------------------------------------------------

    /// The actions valid in `ctx`, with their weights.
    fn choices(&self, ctx: &Ctx) -> Vec<(Action, u32)> {
        use Action::*;
        let nest = self.can_nest(ctx);
        let top = ctx.depth == 0;
        let in_listener = ctx.listening.is_some();
        let signal = self.has_signal();
        let target = self.has(Kind::Target) || self.has(Kind::Controller);
        let functions = self.has(Kind::Function);
        let controllers = self.count(Kind::Controller);
        let targets = self.count(Kind::Target);
        let mut c = vec![(Log, 5), (Comment, 1)];
        let mut add = |action: Action, ok: bool, weight: u32| {
            if ok && weight > 0 {
                c.push((action, weight));
            }
        };
        // Objects made inside a callback are seldom used again: make most of
        // them in the main script.
        add(
            Controller,
            true,
            if top && controllers < 2 {
                12
            } else if top {
                4
            } else {
                1
            },
        );
        add(
            Target,
            true,
            if top && targets < 2 {
                6
            } else if top {
                3
            } else {
                1
            },
        );
        add(Abort, controllers > 0, if in_listener { 12 } else { 6 });
        add(SignalAbort, true, if top { 2 } else { 1 });
        add(Timeout, true, if top { 3 } else { 1 });
        add(
            Any,
            true,
            if !signal {
                1
            } else if top {
                6
            } else {
                2
            },
        );
        add(TryThrowIfAborted, nest && signal, 3);
        add(TryThrow, nest, 1);
        add(OnAbort, signal, 4);
        add(
            AddAbortListener,
            signal && (nest || !self.functions(false).is_empty()),
            3,
        );
        add(Dispose, self.has(Kind::Disposable), 3);
        add(Function, nest, if top { 4 } else { 1 });
        add(
            On,
            target && (nest || functions),
            if in_listener { 8 } else { 10 },
        );
        add(Off, target && functions, if in_listener { 8 } else { 3 });
        add(
            Dispatch,
            target && !ctx.no_dispatch,
            if in_listener { 8 } else { 6 },
        );
        add(PreventDefault, ctx.event, 4);
        add(StopPropagation, ctx.event, 2);
        add(StopImmediatePropagation, ctx.event, 3);
        add(Microtask, nest, 3);
        add(Tick, nest, 2);
        add(SetTimeout, nest, 3);
        add(ClearTimeout, self.has(Kind::Timer), 2);
        add(SetImmediate, nest, 2);
        add(ClearImmediate, self.has(Kind::Immediate), 1);
        add(Run, ctx.top_level, 4);
        add(
            Throw,
            ctx.in_callback || ctx.in_try,
            if in_listener { 3 } else { 1 },
        );
        add(Return, ctx.in_callback, 1);
        add(Promise, true, if top { 2 } else { 1 });
        add(Resolve, self.has(Kind::Deferred), 2);
        add(Reject, self.has(Kind::Deferred), 1);
        add(Then, self.has(Kind::Promise), 2);
        add(Catch, nest && self.has(Kind::Promise), 1);
        add(Resolved, true, 1);
        c
    }

    /// Generates one statement (sometimes two, such as a dispatch and the log
    /// of its result) and appends it to `out`.
    fn statement(&mut self, ctx: &Ctx, out: &mut Vec<Stmt>) {
        let choices = self.choices(ctx);
        let action = self.weighted(&choices).unwrap_or(Action::Log);
        self.perform(action, ctx, out);
        // Counted after, not before: the choices were computed with the
        // count as it was, and an action must still find them valid (an
        // `on` chosen because it may nest must still be allowed to nest).
        self.statements += 1;
    }

    /// Generates the statement for an action that [`Self::choices`] offered.
    fn perform(&mut self, action: Action, ctx: &Ctx, out: &mut Vec<Stmt>) {
        match action {
            Action::Log => {
                let label = self.fresh("log");
                let stmt = self.log(ctx, label);
                out.push(stmt);
            }
            Action::Comment => out.push(Stmt::Comment(self.pick_str(COMMENTS))),
            Action::Controller => {
                let name = self.fresh("c");
                self.declare(&name, Kind::Controller);
                out.push(Stmt::Let {
                    name,
                    op: Op::NewController,
                });
            }
            Action::Target => {
                let name = self.fresh("t");
                self.declare(&name, Kind::Target);
                out.push(Stmt::Let {
                    name,
                    op: Op::NewTarget,
                });
            }
            Action::Abort => {
                let controller = self.abort_controller(ctx);
                let reason = self.opt_reason(ctx);
                out.push(Stmt::Do(Op::Abort { controller, reason }));
            }
            Action::SignalAbort => {
                let reason = self.opt_reason(ctx);
                let name = self.fresh("s");
                self.declare(&name, Kind::Signal);
                out.push(Stmt::Let {
                    name,
                    op: Op::SignalAbort { reason },
                });
            }
            Action::Timeout => {
                let ms = self.range(0, 20);
                let name = self.fresh("s");
                self.declare(&name, Kind::Signal);
                out.push(Stmt::Let {
                    name,
                    op: Op::SignalTimeout { ms },
                });
            }
            Action::Any => {
                let pool = self.signals();
                let n = if pool.is_empty() { 0 } else { self.range(1, 4) };
                let mut signals = Vec::new();
                for _ in 0..n {
                    signals.extend(self.pick(&pool));
                }
                let name = self.fresh("s");
                self.declare(&name, Kind::Signal);
                out.push(Stmt::Let {
                    name,
                    op: Op::SignalAny { signals },
                });
            }
            Action::TryThrowIfAborted => {
                let signal = self.pick(&self.signals()).unwrap_or(Expr::Undefined);
                let inner = self.try_ctx(ctx);
                let label = self.fresh("try");
                let first = vec![
                    Stmt::Do(Op::ThrowIfAborted {
                        signal: signal.clone(),
                    }),
                    Stmt::Log(vec![Expr::Str(label), signal.prop("aborted")]),
                ];
                let block = self.block(&inner, first);
                out.push(Stmt::Try(block));
            }
            Action::TryThrow => {
                let inner = self.try_ctx(ctx);
                let label = self.fresh("try");
                let mut block = self.block(&inner, vec![Stmt::Log(vec![Expr::Str(label)])]);
                // Last, so that the statements before it run.
                if !ends_block(&block.body) {
                    let thrown = self.thrown_value(ctx);
                    self.statements += 1;
                    block.body.push(Stmt::Throw(thrown));
                }
                out.push(Stmt::Try(block));
            }
            Action::OnAbort => {
                let signal = self.pick(&self.signals()).unwrap_or(Expr::Undefined);
                let functions = self.functions(true);
                let nest = self.can_nest(ctx);
                let handler = match self.below(4) {
                    0 if nest => Handler::Callback(Callback::Inline(
                        self.listener_body(ctx, &signal, "abort", "oa"),
                    )),
                    1 if !functions.is_empty() => Handler::Callback(Callback::Value(Expr::var(
                        self.pick(&functions).unwrap_or_default(),
                    ))),
                    2 | 3 if nest => Handler::Callback(Callback::Inline(
                        self.listener_body(ctx, &signal, "abort", "oa"),
                    )),
                    _ => Handler::Null,
                };
                self.listened.push((signal.clone(), "abort".into()));
                out.push(Stmt::Do(Op::SetOnAbort { signal, handler }));
            }
            Action::AddAbortListener => {
                let signal = self.pick(&self.signals()).unwrap_or(Expr::Undefined);
                let functions = self.functions(false);
                let bind = self.chance(80);
                let name = self.fresh(if bind { "d" } else { "al" });
                let listener = if self.can_nest(ctx) && (functions.is_empty() || self.chance(75)) {
                    // An already aborted signal calls the listener with no
                    // argument: the body must not read `event`.
                    let label = name.clone();
                    let inner = Ctx {
                        event: false,
                        listening: Some((signal.clone(), "abort".into())),
                        no_dispatch: false,
                        ..self.callback_ctx(ctx)
                    };
                    Callback::Inline(self.block(&inner, vec![Stmt::Log(vec![Expr::Str(label)])]))
                } else {
                    Callback::Value(Expr::var(self.pick(&functions).unwrap_or_default()))
                };
                self.listened.push((signal.clone(), "abort".into()));
                let op = Op::AddAbortListener { signal, listener };
                self.emit(out, bind.then_some((name, Kind::Disposable)), op);
            }
            Action::Dispose => {
                let disposable =
                    Expr::var(self.pick(&self.names(Kind::Disposable)).unwrap_or_default());
                out.push(Stmt::Do(Op::Dispose { disposable }));
            }
            Action::Function => {
                let name = self.fresh("f");
                let reads_event = self.chance(80);
                let inner = Ctx {
                    event: reads_event,
                    listening: None,
                    no_dispatch: true,
                    ..self.callback_ctx(ctx)
                };
                let mut label = vec![Expr::Str(name.clone())];
                if reads_event {
                    label.push(Expr::var("event").prop("type"));
                }
                let body = self.block(&inner, vec![Stmt::Log(label)]);
                self.declare_fn(&name, Kind::Function, reads_event);
                out.push(Stmt::Let {
                    name,
                    op: Op::Function(body),
                });
            }
            Action::On => {
                let stmt = self.add_event_listener(ctx);
                out.push(stmt);
            }
            Action::Off => {
                let stmt = self.remove_event_listener(ctx);
                out.push(stmt);
            }
            Action::Dispatch => self.dispatch(ctx, out),
            Action::PreventDefault => out.push(Stmt::Do(Op::PreventDefault {
                event: Expr::var("event"),
            })),
            Action::StopPropagation => out.push(Stmt::Do(Op::StopPropagation {
                event: Expr::var("event"),
            })),
            Action::StopImmediatePropagation => out.push(Stmt::Do(Op::StopImmediatePropagation {
                event: Expr::var("event"),
            })),
            Action::Microtask => {
                let label = self.fresh("m");
                let body = self.plain_body(ctx, label);
                out.push(Stmt::Do(Op::QueueMicrotask(body)));
            }
            Action::Tick => {
                let label = self.fresh("tk");
                let body = self.plain_body(ctx, label);
                out.push(Stmt::Do(Op::NextTick(body)));
            }
            Action::SetTimeout => {
                let ms = self.range(0, 20);
                // The timer's name, or a label when it is not bound, names
                // the callback in the log.
                let bind = self.chance(70);
                let name = self.fresh(if bind { "h" } else { "to" });
                let body = self.plain_body(ctx, name.clone());
                self.emit(
                    out,
                    bind.then_some((name, Kind::Timer)),
                    Op::SetTimeout { ms, body },
                );
            }
            Action::ClearTimeout => {
                let timer = Expr::var(self.pick(&self.names(Kind::Timer)).unwrap_or_default());
                out.push(Stmt::Do(Op::ClearTimeout { timer }));
            }
            Action::SetImmediate => {
                let bind = self.chance(50);
                let name = self.fresh(if bind { "i" } else { "im" });
                let body = self.plain_body(ctx, name.clone());
                self.emit(
                    out,
                    bind.then_some((name, Kind::Immediate)),
                    Op::SetImmediate(body),
                );
            }
            Action::ClearImmediate => {
                let immediate =
                    Expr::var(self.pick(&self.names(Kind::Immediate)).unwrap_or_default());
                out.push(Stmt::Do(Op::ClearImmediate { immediate }));
            }
            Action::Run => {
                let mode = match self.below(4) {
                    0 => RunMode::Turn,
                    1 => RunMode::Idle,
                    2 => RunMode::Advance(self.range(0, 25)),
                    _ => RunMode::Turn,
                };
                out.push(Stmt::Run(mode));
            }
            Action::Throw => {
                let thrown = self.thrown_value(ctx);
                out.push(Stmt::Throw(thrown));
            }
            Action::Return => {
                let value = match self.below(4) {
                    0 => None,
                    1 if ctx.value => Some(Expr::var("value")),
                    1 | 2 => Some(Expr::Int(i64::from(self.range(0, 9)))),
                    _ => Some(Expr::Str(self.pick_str(STRINGS))),
                };
                out.push(Stmt::Return(value));
            }
            Action::Promise => {
                let name = self.fresh("p");
                self.declare(&name, Kind::Deferred);
                out.push(Stmt::Let {
                    name,
                    op: Op::NewPromise,
                });
            }
            Action::Resolve => {
                let promise = Expr::var(self.pick(&self.names(Kind::Deferred)).unwrap_or_default());
                let value = self.resolution(ctx);
                out.push(Stmt::Do(Op::Resolve { promise, value }));
            }
            Action::Reject => {
                let promise = Expr::var(self.pick(&self.names(Kind::Deferred)).unwrap_or_default());
                let value = self.opt_reason(ctx);
                out.push(Stmt::Do(Op::Reject { promise, value }));
            }
            Action::Then => {
                let promise = Expr::var(self.pick(&self.names(Kind::Promise)).unwrap_or_default());
                let nest = self.can_nest(ctx);
                let on_fulfilled = if nest && self.chance(80) {
                    Some(self.reaction_body(ctx, true))
                } else {
                    None
                };
                let on_rejected = if nest && self.chance(40) {
                    Some(self.reaction_body(ctx, false))
                } else {
                    None
                };
                let op = Op::Then {
                    promise,
                    on_fulfilled,
                    on_rejected,
                };
                self.bind_promise(op, out);
            }
            Action::Catch => {
                let promise = Expr::var(self.pick(&self.names(Kind::Promise)).unwrap_or_default());
                let on_rejected = self.reaction_body(ctx, false);
                self.bind_promise(
                    Op::Catch {
                        promise,
                        on_rejected,
                    },
                    out,
                );
            }
            Action::Resolved => {
                let op = if self.chance(25) {
                    Op::PromiseReject {
                        value: self.reason(ctx),
                    }
                } else if self.chance(30) {
                    let value = self.reason(ctx);
                    let name = self.fresh("tn");
                    self.declare(&name, Kind::Thenable);
                    out.push(Stmt::Let {
                        name,
                        op: Op::Thenable { value },
                    });
                    return;
                } else {
                    Op::PromiseResolve {
                        value: self.reason(ctx),
                    }
                };
                self.bind_promise(op, out);
            }
        }
    }

    /// Appends `let NAME = OP` (declaring NAME) or, without a binding, `OP`.
    fn emit(&mut self, out: &mut Vec<Stmt>, binding: Option<(Name, Kind)>, op: Op) {
        match binding {
            Some((name, kind)) => {
                self.declare(&name, kind);
                out.push(Stmt::Let { name, op });
            }
            None => out.push(Stmt::Do(op)),
        }
    }

    fn bind_promise(&mut self, op: Op, out: &mut Vec<Stmt>) {
        let binding = if self.chance(60) {
            Some((self.fresh("p"), Kind::Promise))
        } else {
            None
        };
        self.emit(out, binding, op);
    }

    fn can_nest(&self, ctx: &Ctx) -> bool {
        ctx.depth < self.config.max_depth && self.statements + 2 < self.config.max_statements
    }

    // ---- blocks ------------------------------------------------------------

    /// The context of a callback body defined in `ctx`: one level deeper,
    /// no `run`, `return` allowed. Closures still see the outer `event`,
    /// `value` and `reason`.
    fn callback_ctx(&self, ctx: &Ctx) -> Ctx {
        Ctx {
            depth: ctx.depth + 1,
            top_level: false,
            in_callback: true,
            in_try: false,
            event: ctx.event,
            value: ctx.value,
            reason: ctx.reason,
            listening: None,
            no_dispatch: ctx.no_dispatch,
        }
    }

    fn try_ctx(&self, ctx: &Ctx) -> Ctx {
        Ctx {
            depth: ctx.depth + 1,
            top_level: false,
            in_try: true,
            ..ctx.clone()
        }
    }

    /// A block: `first` (the identifying log and any fixed statements), then
    /// a few generated statements, in a scope of its own.
    fn block(&mut self, inner: &Ctx, first: Vec<Stmt>) -> Block {
        self.scopes.push(Vec::new());
        self.statements += first.len();
        let mut body = first;
        let room = self.config.max_block.saturating_sub(body.len());
        let limit = match inner.depth {
            0 | 1 => room,
            2 => room.min(3),
            _ => room.min(2),
        };
        let n = self.range(0, limit as u32) as usize;
        let start = body.len();
        while body.len() - start < n
            && self.statements < self.config.max_statements
            && !ends_block(&body)
        {
            self.statement(inner, &mut body);
        }
        self.scopes.pop();
        Block { body }
    }

    /// The body of an event listener on `target` for `event_type`, starting
    /// with `log "<label>" event.type`.
    fn listener_body(&mut self, ctx: &Ctx, target: &Expr, event_type: &str, prefix: &str) -> Block {
        let label = self.fresh(prefix);
        let inner = Ctx {
            event: true,
            listening: Some((target.clone(), event_type.to_string())),
            no_dispatch: false,
            ..self.callback_ctx(ctx)
        };
        let mut log = vec![Expr::Str(label), Expr::var("event").prop("type")];
        if self.chance(30) {
            let prop = self.pick_str(EVENT_PROPS);
            log.push(Expr::var("event").prop(prop));
        }
        self.block(&inner, vec![Stmt::Log(log)])
    }

    /// The body of a callback without parameters (microtask, tick, timer,
    /// immediate), starting with `log "<label>"`.
    fn plain_body(&mut self, ctx: &Ctx, label: String) -> Block {
        let inner = self.callback_ctx(ctx);
        self.block(&inner, vec![Stmt::Log(vec![Expr::Str(label)])])
    }

    /// A `then` body (sees `value`) or an `else`/`catch` body (sees `reason`).
    fn reaction_body(&mut self, ctx: &Ctx, fulfilled: bool) -> Block {
        let (prefix, param) = if fulfilled {
            ("th", "value")
        } else {
            ("ca", "reason")
        };
        let label = self.fresh(prefix);
        let mut inner = self.callback_ctx(ctx);
        if fulfilled {
            inner.value = true;
        } else {
            inner.reason = true;
        }
        self.block(
            &inner,
            vec![Stmt::Log(vec![Expr::Str(label), Expr::var(param)])],
        )
    }

    // ---- operands ------------------------------------------------------------

    /// The controller to abort: inside a listener on a controller's signal,
    /// often that very controller (re-entrant abort).
    fn abort_controller(&mut self, ctx: &Ctx) -> Expr {
        if let Some((Expr::Prop(obj, prop), _)) = &ctx.listening {
            if prop == "signal" && self.expr_visible(obj) && self.chance(40) {
                return (**obj).clone();
            }
        }
        Expr::var(self.pick(&self.names(Kind::Controller)).unwrap_or_default())
    }

    /// An optional abort or rejection reason.
    fn opt_reason(&mut self, ctx: &Ctx) -> Option<Expr> {
        if self.chance(75) {
            Some(self.reason(ctx))
        } else {
            None
        }
    }

    /// A reason: strings, numbers, `Error("...")`, `undefined`, another
    /// signal's reason, or the reason this callback received.
    fn reason(&mut self, ctx: &Ctx) -> Expr {
        match self.below(8) {
            0 | 1 => Expr::Str(self.pick_str(STRINGS)),
            2 => Expr::Int(i64::from(self.range(0, 200)) - 100),
            3 | 4 => Expr::NewError(self.pick_str(ERROR_MESSAGES)),
            5 => Expr::Undefined,
            6 => match self.pick(&self.signals()) {
                Some(s) => s.prop("reason"),
                None => Expr::Null,
            },
            _ if ctx.reason => Expr::var("reason"),
            _ => Expr::Bool(self.chance(50)),
        }
    }

    fn thrown_value(&mut self, ctx: &Ctx) -> Expr {
        match self.below(3) {
            0 => Expr::NewError(self.pick_str(ERROR_MESSAGES)),
            _ => self.reason(ctx),
        }
    }

    /// What to resolve a deferred promise with; thenables and promises take
    /// extra microtasks, which is the point.
    fn resolution(&mut self, ctx: &Ctx) -> Option<Expr> {
        match self.below(5) {
            0 => None,
            1 => self.pick(&self.names(Kind::Thenable)).map(Expr::var),
            2 => self.pick(&self.names(Kind::Promise)).map(Expr::var),
            _ => Some(self.reason(ctx)),
        }
    }

    /// An event type for `target`: mostly `abort` on signals.
    fn event_type_for(&mut self, is_signal: bool) -> String {
        if is_signal && self.chance(70) {
            "abort".into()
        } else {
            self.pick_str(EVENT_TYPES)
        }
    }

    fn add_event_listener(&mut self, ctx: &Ctx) -> Stmt {
        let targets = self.targets();
        // Inside a listener, often add to the target and type being
        // dispatched: whether the new listener runs in this dispatch is one
        // of the subtle rules.
        let (target, event_type) = match &ctx.listening {
            Some((t, ty)) if self.expr_visible(t) && self.chance(50) => (t.clone(), ty.clone()),
            _ => {
                let (t, is_signal) = self.pick(&targets).unwrap_or((Expr::Undefined, false));
                let ty = self.event_type_for(is_signal);
                (t, ty)
            }
        };
        let options = ListenerOptions {
            once: self.chance(25),
            capture: self.chance(25),
            passive: self.chance(20),
            signal: if self.chance(25) {
                self.pick(&self.signals())
            } else {
                None
            },
        };
        let functions = self.functions(true);
        let inline = self.can_nest(ctx) && (functions.is_empty() || self.chance(60));
        let listener = if inline {
            Callback::Inline(self.listener_body(ctx, &target, &event_type, "l"))
        } else {
            let name = self.pick(&functions).unwrap_or_default();
            self.registrations.push(Registration {
                target: target.clone(),
                event_type: event_type.clone(),
                listener: name.clone(),
                capture: options.capture,
            });
            Callback::Value(Expr::var(name))
        };
        self.listened.push((target.clone(), event_type.clone()));
        Stmt::Do(Op::AddEventListener {
            target,
            event_type,
            listener,
            options,
        })
    }

    fn remove_event_listener(&mut self, ctx: &Ctx) -> Stmt {
        let visible: Vec<usize> = (0..self.registrations.len())
            .filter(|&i| {
                let r = &self.registrations[i];
                self.expr_visible(&r.target) && self.visible(&r.listener)
            })
            .collect();
        // Inside a listener, prefer removing a listener of the same dispatch.
        let same: Vec<usize> = visible
            .iter()
            .copied()
            .filter(|&i| {
                let r = &self.registrations[i];
                ctx.listening
                    .as_ref()
                    .is_some_and(|(t, ty)| *t == r.target && *ty == r.event_type)
            })
            .collect();
        let chosen = if !same.is_empty() && self.chance(70) {
            self.pick(&same)
        } else if !visible.is_empty() && self.chance(75) {
            self.pick(&visible)
        } else {
            None
        };
        if let Some(i) = chosen {
            let r = &self.registrations[i];
            let (target, event_type, listener, capture) = (
                r.target.clone(),
                r.event_type.clone(),
                Expr::var(&r.listener),
                r.capture,
            );
            // Sometimes the capture flag does not match, so nothing is removed.
            let capture = capture ^ self.chance(20);
            return Stmt::Do(Op::RemoveEventListener {
                target,
                event_type,
                listener,
                capture,
            });
        }
        let (target, is_signal) = self
            .pick(&self.targets())
            .unwrap_or((Expr::Undefined, false));
        let event_type = self.event_type_for(is_signal);
        let listener = Expr::var(self.pick(&self.functions(true)).unwrap_or_default());
        let capture = self.chance(30);
        Stmt::Do(Op::RemoveEventListener {
            target,
            event_type,
            listener,
            capture,
        })
    }

    fn dispatch(&mut self, ctx: &Ctx, out: &mut Vec<Stmt>) {
        let listened: Vec<(Expr, String)> = self
            .listened
            .iter()
            .filter(|(t, ty)| {
                self.expr_visible(t) && ctx.listening.as_ref() != Some(&(t.clone(), ty.clone()))
            })
            .cloned()
            .collect();
        let (target, mut event_type) = match self.pick(&listened) {
            Some(pair) if self.chance(75) => pair,
            _ => {
                let (t, is_signal) = self
                    .pick(&self.targets())
                    .unwrap_or((Expr::Undefined, false));
                let ty = self.event_type_for(is_signal);
                (t, ty)
            }
        };
        // A listener that dispatches its own event recurses until the depth
        // limit: legal, but it would drown every other behaviour.
        if ctx
            .listening
            .as_ref()
            .is_some_and(|(t, ty)| *t == target && *ty == event_type)
        {
            event_type = if event_type == "bar" {
                "foo".into()
            } else {
                "bar".into()
            };
        }
        let cancelable = self.chance(50);
        let op = Op::Dispatch {
            target,
            event_type,
            cancelable,
        };
        if self.chance(40) {
            let name = self.fresh("r");
            self.declare(&name, Kind::Value);
            out.push(Stmt::Let {
                name: name.clone(),
                op,
            });
            out.push(Stmt::Log(vec![
                Expr::Str(format!("{name} dispatched")),
                Expr::var(name),
            ]));
        } else {
            out.push(Stmt::Do(op));
        }
    }

    /// `log "<label>" ...`: a few interesting values visible here.
    fn log(&mut self, ctx: &Ctx, label: String) -> Stmt {
        let mut values = vec![Expr::Str(label)];
        let n = self.range(0, 3);
        for _ in 0..n {
            if let Some(e) = self.interesting(ctx) {
                values.push(e);
            }
        }
        Stmt::Log(values)
    }

    fn interesting(&mut self, ctx: &Ctx) -> Option<Expr> {
        let mut kinds = vec![0u8];
        if ctx.event {
            kinds.push(1);
        }
        if ctx.value {
            kinds.push(2);
        }
        if ctx.reason {
            kinds.push(3);
        }
        if self.has(Kind::Value) {
            kinds.push(4);
        }
        match self.pick(&kinds)? {
            0 => {
                let s = self.pick(&self.signals())?;
                Some(if self.chance(50) {
                    s.prop("aborted")
                } else {
                    s.prop("reason")
                })
            }
            1 => Some(Expr::var("event").prop(self.pick_str(EVENT_PROPS))),
            2 => Some(Expr::var("value")),
            3 => Some(Expr::var("reason")),
            _ => self.pick(&self.names(Kind::Value)).map(Expr::var),
        }
    }
}
