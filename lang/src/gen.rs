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
//! ## A generator that knows what will run
//!
//! A callback that never runs tests nothing, so the generator also tracks
//! what the script will do when it runs, as far as it can be known
//! statically, and makes sure that what it sets up is triggered:
//!
//! - *signals*: which controllers and timeouts each signal depends on (what
//!   `any` flattens to), and whether it is certainly live, certainly
//!   aborted, or may have been aborted by a callback that could have run
//!   since (an *epoch* counts the main-script statements that can run
//!   callbacks: `dispatch`, `abort`, `run`). Abort listeners land on signals
//!   that can still abort; a controller that a pending listener relies on is
//!   *reserved*, and the main script seldom aborts it before the epilogue.
//!   An `onabort` handler is seldom replaced while its body has yet to run;
//!   an `addAbortListener` is seldom disposed of before its listener ran,
//!   unless that listener is a `fn`; `clearTimeout` and `clearImmediate`
//!   mostly clear what fired already;
//! - *the clock*: the main script's virtual time, so that a `timeout` signal
//!   is known to have fired or not;
//! - *promises*: each `promise` is committed to fulfil or to reject when the
//!   first reaction or settlement needs it, and every later `resolve` or
//!   `reject` of it agrees, so each promise's outcome is known and reactions
//!   are attached to the side that runs (`catch` to a promise that rejects);
//! - *obligations*: adding a listener records what must happen for it to
//!   run (a dispatch of its target and type, an abort of a controller, the
//!   clock passing a timeout, a promise settling), and after what (the
//!   trigger of the callback that adds it, and whether a microtask or timer
//!   lies between);
//! - *the dispatch graph*: which (target, type) listeners dispatch which, so
//!   that a dispatch never closes a cycle (a listener that dispatches its own
//!   event, directly or through other listeners or deferred callbacks,
//!   recurses until a budget stops it). Adding a listener with a body counts
//!   as dispatching its (target, type), since Node's live walk of the list
//!   may call a listener appended during the dispatch, and so does an
//!   `addAbortListener`, which calls its listener at once on an aborted
//!   signal. Adding to the (target, type) being dispatched is allowed (the
//!   new listener is another, nested body). A `once` listener may, rarely,
//!   dispatch its own event: bounded recursion, as long as no listener of
//!   that event adds listeners to it;
//! - `fn` bodies may be added anywhere, so they never dispatch and create no
//!   obligations; each `fn` is used as a listener at least once.
//!
//! Some shapes that find bugs make a listener that must *not* run: a
//! `signal` option that removes its listener first, an `off` or `dispose`
//! before the trigger, a handler replaced. They stay, at a lower rate, and
//! the epilogue still dispatches their (target, type), so that a listener
//! that runs when it should not shows.
//!
//! Every scenario ends with an **epilogue** in the main script: a `run
//! advance` long enough for every timer, immediate, microtask and timeout
//! pending; an observation of every signal of the main script
//! (`log "end S" S.aborted S.reason S.onabort`), so that a difference in
//! state shows even when no listener logged it; a use of every `fn` not used
//! yet; one dispatch of every (target, type) that ever had a listener; then
//! the open obligations in an order that respects what each waits for
//! (settlements, then dispatches, then aborts, so that a listener with a
//! `signal` option is dispatched before its signal aborts; an abort waits
//! while a listener that relies on it has yet to be added), with another
//! `run advance` between rounds when callbacks deferred by the epilogue's
//! own triggers add listeners; and last, the (target, type) pairs of
//! listeners with a `signal` option once more, after the aborts that
//! removed them. The epilogue counts against the limits: the main script
//! stops early enough to leave it room, and when room is short the
//! epilogue keeps what the main script's own listeners need.
//!
//! Sizes are bounded by [`GenConfig`], itself capped by the language's
//! limits ([`crate::limits`]): by default blocks nest at most three deep, the
//! main script has at most 30 statements and a block 6, the whole scenario
//! 200. (A `dispatch` whose result is logged counts as one statement but
//! prints as two, and a `try` may end with a `throw` beyond the limit, so a
//! block can reach 8 lines and the main script 31.) Within those limits the
//! size of a scenario is drawn first, biased towards small ones with a long
//! tail: two in five aim at 3 to 12 statements, one in three at 12 to 30,
//! one in five at 30 to 80, one in twenty at 80 up to four fifths of the
//! limit (the rest is room for the last statement's blocks and the
//! epilogue); the bytes running out end a scenario sooner, so the size
//! still grows with the input.

use std::collections::{BTreeMap, BTreeSet};

use arbitrary::{Arbitrary, Unstructured};
use proptest::strategy::Strategy;

use crate::ast::{
    Block, Callback, Combinator, Directive, EventAttribute, Expr, Handler, ListenerOptions, Name,
    Op, RunMode, Scenario, Stmt,
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

/// Which generator makes a run's scenarios: each family of the language has
/// one that knows its states.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Family {
    /// Abort, dispatch, the event loop and promises: [`generate_from_seed`].
    #[default]
    Abort,
    /// Readable streams, their readers and microtask rulers:
    /// [`crate::gen_streams`].
    Streams,
    /// The abort family with collection points, dropped bindings and
    /// observations of what is alive ([`crate::gen_gc`]).
    Gc,
    /// The streams family with the same overlay.
    StreamsGc,
    /// The abort family with EventEmitters, their listeners and emits
    /// ([`crate::gen_emitter`]).
    Emitter,
    /// The abort family with AsyncLocalStorages, AsyncResources, native
    /// callbacks and `getStore` observations in its callbacks
    /// ([`crate::gen_async`]).
    Async,
    /// The same without native callbacks through an AsyncResource, which
    /// Node 26.12.1 runs without the resource's frame (a known bug, listed
    /// in `deviations.toml`): for checks against that Node.
    AsyncNode26,
}

impl Family {
    /// Every family.
    pub const ALL: [Family; 7] = [
        Family::Abort,
        Family::Streams,
        Family::Gc,
        Family::StreamsGc,
        Family::Emitter,
        Family::Async,
        Family::AsyncNode26,
    ];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Family::Abort => "abort",
            Family::Streams => "streams",
            Family::Gc => "gc",
            Family::StreamsGc => "streams-gc",
            Family::Emitter => "emitter",
            Family::Async => "async",
            Family::AsyncNode26 => "async-node26",
        }
    }

    /// The scenario of `(seed, size)` in this family.
    pub fn generate_from_seed(self, seed: u64, size: usize) -> Scenario {
        match self {
            Family::Abort => generate_from_seed(seed, size),
            Family::Streams => crate::gen_streams::generate_streams_from_seed(seed, size),
            Family::Emitter => {
                let scenario = generate_from_seed(seed, size);
                let bytes = seeded_bytes(seed ^ 0x6565_6565_6565_6565, 1024);
                let mut u = Unstructured::new(&bytes);
                crate::gen_emitter::add_emitters(&scenario, &mut u)
            }
            Family::Async | Family::AsyncNode26 => {
                let scenario = generate_from_seed(seed, size);
                let bytes = seeded_bytes(seed ^ 0x6163_6163_6163_6163, 1024);
                let mut u = Unstructured::new(&bytes);
                crate::gen_async::add_async_context(&scenario, &mut u, self == Family::Async)
            }
            Family::Gc | Family::StreamsGc => {
                let base = if self == Family::Gc {
                    Family::Abort
                } else {
                    Family::Streams
                };
                let scenario = base.generate_from_seed(seed, size);
                // The overlay's own bytes, from a stream the base's seed
                // does not share.
                let bytes = seeded_bytes(seed ^ 0x6763_6763_6763_6763, 1024);
                let mut u = Unstructured::new(&bytes);
                crate::gen_gc::add_gc_points(&scenario, &mut u, crate::gen_gc::GcDensity::default())
            }
        }
    }
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

/// The overlays' coin: whether the next byte of `u` is below `p` (a chance
/// of `p` in 256); false once the bytes run out.
pub(crate) fn byte_chance(u: &mut Unstructured<'_>, p: u8) -> bool {
    u.arbitrary::<u8>().is_ok_and(|b| b < p)
}

/// The overlays' walk: for each callback body of `stmt` (the blocks of a
/// `let` or of a bare operation), at most `max_depth` statements deep, the
/// inner statements first, then `visit` on the body itself.
pub(crate) fn visit_callback_bodies(
    stmt: &mut Stmt,
    max_depth: usize,
    visit: &mut dyn FnMut(&mut Vec<Stmt>),
) {
    fn walk(
        stmt: &mut Stmt,
        depth: usize,
        max_depth: usize,
        visit: &mut dyn FnMut(&mut Vec<Stmt>),
    ) {
        if depth > max_depth {
            return;
        }
        let callbacks = matches!(stmt, Stmt::Let { .. } | Stmt::Do(_));
        for block in stmt.blocks_mut() {
            let mut body = block.body_mut();
            for inner in body.iter_mut() {
                walk(inner, depth + 1, max_depth, visit);
            }
            if callbacks {
                visit(&mut body);
            }
        }
    }
    walk(stmt, 0, max_depth, visit);
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

/// Names of `DOMException` reasons: the abort's own two, so that a script's
/// reason can be mistaken for a default one, and two others.
const DOM_EXCEPTION_NAMES: &[&str] =
    &["AbortError", "TimeoutError", "NotAllowedError", "DataError"];

/// Every readable Event property: each getter is worth logging.
const EVENT_PROPS: &[&str] = &[
    "type",
    "defaultPrevented",
    "isTrusted",
    "eventPhase",
    "cancelable",
    "target",
    "currentTarget",
    "cancelBubble",
    "returnValue",
    "bubbles",
    "composed",
    "srcElement",
];

/// Every readable AbortSignal property.
const SIGNAL_PROPS: &[&str] = &["aborted", "reason", "onabort"];

/// Comment lines.
const COMMENTS: &[&str] = &[
    "generated",
    "",
    " indented",
    "re-entrancy ahead",
    "# nested hash",
];

/// How long the epilogue's `run advance` lets a `timeout` signal made by the
/// main script run: every `timeout` lasts at most this long.
const MAX_TIMEOUT_MS: u32 = 20;

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
    Combinator,
    Async,
    TryInvalid,
    ComposedPath,
    SetEventAttribute,
    SetInterval,
    Count,
    IfCount,
    WithResolvers,
    ManyListeners,
}

/// A live binding.
struct Binding {
    name: Name,
    kind: Kind,
}

/// A listener added by name, so that `off` can remove it (or miss it with
/// the wrong capture flag).
struct Registration {
    target: Expr,
    event_type: String,
    listener: Name,
    capture: bool,
    /// The obligation that makes it run, if any.
    obligation: Option<usize>,
    /// An `off` removed it (or tried to).
    removed: bool,
}

// ---- what the generator knows of the script's state ------------------------

/// A (target, type) pair, as the dispatch graph names it: the printed target
/// and the type.
type Node = (String, String);

fn node(target: &Expr, event_type: &str) -> Node {
    (crate::printer::print_expr(target), event_type.to_string())
}

/// What a signal's abort depends on: what `AbortSignal.any` flattens to.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Root {
    /// The signal of this controller.
    Controller(Name),
    /// This `timeout` signal.
    Timeout(Name),
    /// Born aborted (`aborted`).
    Aborted,
}

/// Whether a controller is aborted, as the main script sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Live,
    /// A callback defined at this epoch aborts it: it may be aborted once
    /// the main script has run something that can run callbacks.
    MaybeSince(u32),
    Aborted,
}

/// Whether a signal is aborted where the statement being generated runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Tri {
    Live,
    Maybe,
    Aborted,
}

/// A signal binding (`s`) or a controller's signal (`c.signal`), by the name
/// of its binding.
struct SignalInfo {
    roots: Vec<Root>,
    /// An inline `onabort` handler is set whose body has yet to run.
    onabort_pending: bool,
    /// The `fn` set as `onabort` handler, counted as one of its uses.
    onabort_fn: Option<Name>,
}

/// A promise made with `promise`.
#[derive(Default)]
struct DeferredInfo {
    /// Whether it fulfils (`true`) or rejects, once something needs to know:
    /// every `resolve` and `reject` of it then agrees.
    plan: Option<bool>,
    /// The main script settled it, outside any callback.
    settled: bool,
    /// The obligation to settle it, once a reaction waits for it.
    obligation: Option<usize>,
}

/// A promise binding.
struct PromiseInfo {
    /// Whether it fulfils; `None` for a `promise`, whose plan decides.
    outcome: Option<bool>,
    /// The `promise`s it waits for.
    roots: Vec<Name>,
}

/// What must happen for a callback to run.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Trigger {
    Dispatch(Expr, String),
    Abort(Name),
    /// The clock passing a `timeout` signal's deadline: a `run advance`.
    Advance(u32),
    Settle(Name),
}

/// When the code being generated runs: after the triggers of these
/// obligations, and, if `deferred`, after a callback queued then (a
/// microtask, tick, timer, immediate or reaction) with at most that many
/// milliseconds of timers between.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct After {
    parents: Vec<usize>,
    deferred: Option<u32>,
}

impl After {
    fn deferred_by(&self, ms: u32) -> After {
        After {
            parents: self.parents.clone(),
            deferred: Some(self.deferred.unwrap_or(0).saturating_add(ms)),
        }
    }

    fn is_main_script(&self) -> bool {
        self.parents.is_empty() && self.deferred.is_none()
    }
}

/// Something the epilogue must do (unless it happened already) for a
/// callback to run.
struct Obligation {
    trigger: Trigger,
    after: After,
    /// Controllers whose abort before the trigger makes it useless (the
    /// `signal` option of the listener).
    avoid: Vec<Name>,
    /// Where it was satisfied: 0 in the main script, else the index of the
    /// epilogue statement plus one.
    done: Option<usize>,
    /// An `addAbortListener`: an abort before it is added calls it too.
    resilient: bool,
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
    /// choices towards re-entrancy.
    listening: Option<(Expr, String)>,
    /// In a named `fn`, which may be added anywhere: no dispatch, which could
    /// recurse without end.
    no_dispatch: bool,
    /// When this code runs; `None` when that is unknown (a `fn` body), and
    /// nothing here may rely on obligations.
    after: Option<After>,
    /// The (target, type) whose dispatch runs this code, kept through
    /// deferred callbacks: the source of the dispatch graph's edges.
    node: Option<Node>,
    /// Signals (binding names) and controllers known to be aborted here:
    /// inside their abort listeners.
    aborted: Vec<Name>,
    /// Directly in the listener's body, while its event is dispatched.
    dispatching: bool,
    /// In a `once` listener (or an `addAbortListener` one).
    once: bool,
}

struct Generator<'u, 'a> {
    u: &'u mut Unstructured<'a>,
    config: GenConfig,
    /// The statements this scenario aims at, drawn first.
    target: usize,
    /// The bindings visible now, innermost block last.
    scopes: Vec<Vec<Binding>>,
    /// Listeners added by name.
    registrations: Vec<Registration>,
    /// (target, type) pairs with a listener, so that dispatches reach them,
    /// with whether the target is a signal.
    listened: Vec<(Expr, String, bool)>,
    /// Pairs of the main script with a listener that has a `signal` option:
    /// the epilogue dispatches them once more after its aborts.
    signal_pairs: Vec<(Expr, String)>,
    /// The counter behind every binding name and callback label.
    next_id: u32,
    /// Statements generated so far.
    statements: usize,
    signals: BTreeMap<Name, SignalInfo>,
    controllers: BTreeMap<Name, Status>,
    /// `timeout` signals with their delay and their deadline, when the main
    /// script made them at a known time.
    timeouts: BTreeMap<Name, (u32, Option<u64>)>,
    /// Timers with their deadline when known, immediates with the count of
    /// `run`s before them: the ones that fired already are the ones to
    /// clear, mostly.
    timers: BTreeMap<Name, Option<u64>>,
    immediates: BTreeMap<Name, Option<u32>>,
    /// The main script's `run` statements so far.
    runs: u32,
    deferreds: BTreeMap<Name, DeferredInfo>,
    promises: BTreeMap<Name, PromiseInfo>,
    /// `fn`s of the main script and how many listeners that will run use
    /// them.
    fn_uses: BTreeMap<Name, usize>,
    /// Counters of the main script that callbacks increment (`set n add n
    /// 1`) and the epilogue logs: how often callbacks ran shows even where
    /// none logged.
    counters: Vec<Name>,
    /// Disposables: their signal; when the signal was aborted already, the
    /// count of `run`s before them (the listener waits for a microtask); the
    /// `fn` they listen with, if named.
    disposables: BTreeMap<Name, (Expr, Option<u32>, Option<Name>)>,
    obligations: Vec<Obligation>,
    /// The dispatch graph: a listener of the first dispatches the second.
    edges: BTreeSet<(Node, Node)>,
    /// Nodes with a `once` listener that dispatches its own event, and nodes
    /// whose listeners add listeners to themselves: never both.
    self_dispatching: BTreeSet<Node>,
    self_adding: BTreeSet<Node>,
    /// Main-script statements so far that can run callbacks.
    epoch: u32,
    /// The main script's virtual time (a lower bound once `run idle` ran).
    clock: u64,
    clock_exact: bool,
    /// The longest wait for a deferred callback or timeout made so far.
    async_delay: Option<u32>,
    /// Main-script lines the epilogue keeps for the triggers that the main
    /// script's own listeners need, while it writes anything else.
    reserve: usize,
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
            target: 0,
            scopes: vec![Vec::new()],
            registrations: Vec::new(),
            listened: Vec::new(),
            signal_pairs: Vec::new(),
            next_id: 0,
            statements: 0,
            signals: BTreeMap::new(),
            controllers: BTreeMap::new(),
            timeouts: BTreeMap::new(),
            timers: BTreeMap::new(),
            immediates: BTreeMap::new(),
            runs: 0,
            deferreds: BTreeMap::new(),
            promises: BTreeMap::new(),
            fn_uses: BTreeMap::new(),
            counters: Vec::new(),
            disposables: BTreeMap::new(),
            obligations: Vec::new(),
            edges: BTreeSet::new(),
            self_dispatching: BTreeSet::new(),
            self_adding: BTreeSet::new(),
            epoch: 0,
            clock: 0,
            clock_exact: true,
            async_delay: None,
            reserve: 0,
        }
    }

    fn scenario(&mut self) -> Scenario {
        self.target = self.draw_size();
        let ctx = Ctx {
            top_level: true,
            after: Some(After::default()),
            ..Ctx::default()
        };
        let mut body = Vec::new();
        if self.chance(30) {
            let name = self.fresh("n");
            self.declare(&name, Kind::Value);
            self.counters.push(name.clone());
            self.statements += 1;
            body.push(Stmt::Let {
                name: name.into(),
                op: Op::Value(Expr::Int(0)),
            });
        }
        loop {
            // One statement may add a little to the epilogue: a margin.
            let reserve = self.epilogue_estimate() + 2;
            if body.len() + reserve >= self.config.max_top_level
                || self.statements + reserve >= self.target
                || self.u.is_empty()
            {
                break;
            }
            self.statement(&ctx, &mut body);
        }
        self.epilogue(&mut body);
        // One scenario in ten has an ES module main script. Drawn last, so
        // that it changes nothing else a seed generates; a directive comes
        // first.
        if self.chance(10) {
            body.insert(0, Stmt::Use(Directive::Module));
        }
        // Now and then without one of the engine's process handlers (drawn
        // last too): unhandled rejections become uncaught exceptions from a
        // promise, or the first uncaught exception ends the run.
        let at = usize::from(matches!(body.first(), Some(Stmt::Use(_))));
        if self.chance(6) {
            body.insert(
                at,
                Stmt::Do(Op::ProcessOff(crate::ast::ProcessEvent::UnhandledRejection)),
            );
        }
        if self.chance(2) {
            body.insert(
                at,
                Stmt::Do(Op::ProcessOff(crate::ast::ProcessEvent::UncaughtException)),
            );
        }
        let mut scenario = Scenario::new(body);
        crate::resolve(&mut scenario);
        scenario
    }

    /// The number of statements to aim at: small most of the time, with a
    /// long tail up to the limit (less a fifth, for the blocks of the last
    /// statement and the epilogue).
    fn draw_size(&mut self) -> usize {
        let max = self.config.max_statements - self.config.max_statements / 5;
        let (lo, hi) = match self.below(20) {
            0..=7 => (3, 12),
            8..=14 => (12, 30),
            15..=18 => (30, 80),
            _ => (80, max),
        };
        let hi = hi.min(max);
        let lo = lo.min(hi);
        self.range(lo as u32, hi as u32) as usize
    }

    /// What the statements of a block may reach: the drawn size, within the
    /// limit.
    fn budget(&self) -> usize {
        self.target.min(self.config.max_statements)
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

    /// Picks among `preferred` `percent` of the time (always when it holds
    /// every item), else among all `items`.
    fn pick_preferring<T: Clone>(
        &mut self,
        items: &[T],
        percent: u32,
        preferred: Vec<T>,
    ) -> Option<T> {
        if !preferred.is_empty() && (preferred.len() == items.len() || self.chance(percent)) {
            self.pick(&preferred)
        } else {
            self.pick(items)
        }
    }

    /// The items for which `good` holds.
    fn filter<T: Clone>(&self, items: &[T], good: impl Fn(&Self, &T) -> bool) -> Vec<T> {
        items.iter().filter(|i| good(self, i)).cloned().collect()
    }

    // ---- the symbol table ----------------------------------------------

    fn fresh(&mut self, prefix: &str) -> Name {
        self.next_id += 1;
        format!("{prefix}{}", self.next_id)
    }

    fn declare(&mut self, name: &str, kind: Kind) {
        let scope = self
            .scopes
            .last_mut()
            .expect("the main script's scope is never popped");
        scope.push(Binding {
            name: name.to_string(),
            kind,
        });
    }

    fn visible(&self, name: &str) -> bool {
        self.scopes.iter().flatten().any(|b| b.name == name)
    }

    fn expr_visible(&self, e: &Expr) -> bool {
        root(e).is_none_or(|n| self.visible(n))
    }

    /// Whether the binding is the main script's, so that the epilogue sees it.
    fn in_main_scope(&self, name: &str) -> bool {
        self.scopes[0].iter().any(|b| b.name == name)
    }

    fn expr_in_main_scope(&self, e: &Expr) -> bool {
        root(e).is_some_and(|n| self.in_main_scope(n))
    }

    /// Directly in the main script's scope (not in a `try` block of it).
    fn main_scope(&self, ctx: &Ctx) -> bool {
        ctx.top_level && self.scopes.len() == 1
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

    fn functions(&self) -> Vec<Name> {
        self.names(Kind::Function)
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

    /// The targets of the main script: the epilogue can dispatch on them,
    /// so listeners go there.
    fn main_targets(&self) -> Vec<(Expr, bool)> {
        self.targets()
            .into_iter()
            .filter(|(t, _)| self.expr_in_main_scope(t))
            .collect()
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

    // ---- signals -------------------------------------------------------

    fn add_signal(&mut self, key: &str, roots: Vec<Root>) {
        self.signals.insert(
            key.to_string(),
            SignalInfo {
                roots,
                onabort_pending: false,
                onabort_fn: None,
            },
        );
    }

    fn roots(&self, signal: &Expr) -> Vec<Root> {
        root(signal)
            .and_then(|k| self.signals.get(k))
            .map(|s| s.roots.clone())
            .unwrap_or_default()
    }

    fn root_state(&self, r: &Root, ctx: &Ctx) -> Tri {
        match r {
            Root::Aborted => Tri::Aborted,
            Root::Controller(c) => {
                if ctx.aborted.contains(c) {
                    return Tri::Aborted;
                }
                match self.controllers.get(c) {
                    Some(Status::Aborted) => Tri::Aborted,
                    Some(Status::MaybeSince(e)) if ctx.in_callback || *e < self.epoch => Tri::Maybe,
                    _ => Tri::Live,
                }
            }
            Root::Timeout(t) => {
                if ctx.aborted.contains(t) {
                    return Tri::Aborted;
                }
                match self.timeouts.get(t) {
                    Some((_, Some(deadline))) if self.clock >= *deadline => Tri::Aborted,
                    Some((_, Some(_))) if self.clock_exact && !ctx.in_callback => Tri::Live,
                    _ => Tri::Maybe,
                }
            }
        }
    }

    /// Whether the signal is aborted where `ctx` runs.
    fn signal_state(&self, signal: &Expr, ctx: &Ctx) -> Tri {
        let Some(key) = root(signal) else {
            return Tri::Maybe;
        };
        if ctx.aborted.iter().any(|a| a == key) {
            return Tri::Aborted;
        }
        self.roots(signal)
            .iter()
            .map(|r| self.root_state(r, ctx))
            .max()
            .unwrap_or(Tri::Live)
    }

    /// What aborts the signal later, from the epilogue: a controller or a
    /// timeout of the main script that is still live.
    fn abort_trigger(&self, signal: &Expr, ctx: &Ctx) -> Option<Trigger> {
        self.abort_trigger_at_most(signal, ctx, Tri::Live)
    }

    /// [`Self::abort_trigger`] through roots that may be aborted already
    /// when `worst` is [`Tri::Maybe`] (enough for an `addAbortListener`,
    /// which is called either way).
    fn abort_trigger_at_most(&self, signal: &Expr, ctx: &Ctx, worst: Tri) -> Option<Trigger> {
        let roots = self.roots(signal);
        let live = |r: &Root| self.root_state(r, ctx) <= worst;
        for r in &roots {
            if let Root::Controller(c) = r {
                if live(r) && self.in_main_scope(c) {
                    return Some(Trigger::Abort(c.clone()));
                }
            }
        }
        for r in &roots {
            if let Root::Timeout(t) = r {
                if live(r) && self.in_main_scope(t) {
                    return Some(Trigger::Advance(MAX_TIMEOUT_MS));
                }
                // Made by a callback: it fires `ms` after that callback ran,
                // unless the clock has passed it already.
                if let Some((ms, None)) = self.timeouts.get(t) {
                    if self.root_state(r, ctx) != Tri::Aborted && !self.in_main_scope(t) {
                        return Some(Trigger::Advance(ms.max(&1).to_owned()));
                    }
                }
            }
        }
        None
    }

    /// Signals an abort listener can land on here: live, with something
    /// that aborts them later.
    fn abortable_signals(&self, ctx: &Ctx) -> Vec<Expr> {
        self.signals()
            .into_iter()
            .filter(|s| {
                self.signal_state(s, ctx) == Tri::Live && self.abort_trigger(s, ctx).is_some()
            })
            .collect()
    }

    /// The trigger that runs a new abort listener on `signal`: its abort, or
    /// when it cannot abort any more, a dispatch of `abort` on it.
    fn abort_listener_trigger(&self, signal: &Expr, ctx: &Ctx) -> Option<Trigger> {
        if self.signal_state(signal, ctx) != Tri::Aborted {
            if let Some(t) = self.abort_trigger(signal, ctx) {
                return Some(t);
            }
        }
        self.expr_in_main_scope(signal)
            .then(|| Trigger::Dispatch(signal.clone(), "abort".into()))
    }

    /// Controllers that an abort from the main script should leave alone
    /// for now: a listener added by a callback that has not run yet waits
    /// for their abort, or a listener with their signal as its `signal`
    /// option waits for its dispatch.
    fn reserved(&self) -> BTreeSet<Name> {
        let mut out = BTreeSet::new();
        for o in self.obligations.iter().filter(|o| o.done.is_none()) {
            out.extend(o.avoid.iter().cloned());
            if let Trigger::Abort(c) = &o.trigger {
                if !o.after.is_main_script() {
                    out.insert(c.clone());
                }
            }
        }
        out
    }

    /// Whether disposing `d` here loses no body: its listener is a `fn`
    /// (which the epilogue uses elsewhere if need be), or it ran already
    /// (its signal aborted, or, when it was aborted already, the main script
    /// ran the loop since).
    fn disposed_late(&self, d: &str, ctx: &Ctx) -> bool {
        match self.disposables.get(d) {
            Some((_, _, Some(_))) => true,
            Some((_, Some(runs), None)) => !ctx.in_callback && self.runs > *runs,
            Some((signal, None, None)) => self.signal_state(signal, ctx) == Tri::Aborted,
            None => true,
        }
    }

    fn controllers_of(roots: &[Root]) -> Vec<Name> {
        roots
            .iter()
            .filter_map(|r| match r {
                Root::Controller(c) => Some(c.clone()),
                _ => None,
            })
            .collect()
    }

    // ---- obligations -----------------------------------------------------

    /// Records what must happen for a callback defined in `ctx` to run, and
    /// returns it; `None` when nothing can be relied on here.
    fn oblige(&mut self, ctx: &Ctx, trigger: Trigger, avoid: Vec<Name>) -> Option<usize> {
        let after = ctx.after.clone()?;
        let reachable = match &trigger {
            Trigger::Dispatch(t, _) => self.expr_in_main_scope(t),
            Trigger::Abort(c) | Trigger::Settle(c) => self.in_main_scope(c),
            Trigger::Advance(_) => true,
        };
        if !reachable {
            return None;
        }
        if let Trigger::Advance(ms) = trigger {
            self.note_async(&Some(after.deferred_by(ms)));
        }
        self.obligations.push(Obligation {
            trigger,
            after,
            avoid,
            done: None,
            resilient: false,
        });
        Some(self.obligations.len() - 1)
    }

    /// The context of a listener's body, run by obligation `ob`.
    fn after_obligation(ob: Option<usize>) -> Option<After> {
        ob.map(|o| After {
            parents: vec![o],
            deferred: None,
        })
    }

    /// The main script did `trigger` outside any callback: obligations
    /// recorded there before are met.
    fn satisfied_in_main_script(&mut self, trigger: &Trigger) {
        for o in &mut self.obligations {
            if o.done.is_none() && o.after.is_main_script() && o.trigger == *trigger {
                o.done = Some(0);
            }
        }
    }

    fn note_async(&mut self, after: &Option<After>) {
        if let Some(d) = after.as_ref().and_then(|a| a.deferred) {
            self.async_delay = Some(self.async_delay.unwrap_or(0).max(d));
        }
    }

    /// Whether a listener of `from` may dispatch `to`: not when `to` leads
    /// back to `from`.
    fn reaches(&self, from: &Node, to: &Node) -> bool {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(n) = stack.pop() {
            if n == *to {
                return true;
            }
            if !seen.insert(n.clone()) {
                continue;
            }
            for (a, b) in &self.edges {
                if *a == n {
                    stack.push(b.clone());
                }
            }
        }
        false
    }

    /// Whether code here may add a listener with a body to `to`. A listener
    /// appended to a list being walked runs in the same dispatch, so adding
    /// to `to` is as good as dispatching it: not when `to` leads back here.
    /// Adding to the node being dispatched is the one exception (the new
    /// listener is another, nested body), unless a `once` listener of it
    /// dispatches it again.
    fn may_add(&self, ctx: &Ctx, to: &Node) -> bool {
        match &ctx.node {
            None => true,
            Some(from) if from == to => !self.self_dispatching.contains(to),
            Some(from) => !self.reaches(to, from),
        }
    }

    /// Records that code here adds a listener with a body to `to`.
    fn note_add(&mut self, ctx: &Ctx, to: &Node) {
        match ctx.node.clone() {
            Some(from) if from == *to => {
                self.self_adding.insert(from);
            }
            Some(from) => {
                self.edges.insert((from, to.clone()));
            }
            None => {}
        }
    }

    fn may_dispatch(&self, ctx: &Ctx, to: &Node) -> bool {
        match &ctx.node {
            None => true,
            Some(from) => from != to && !self.reaches(to, from),
        }
    }

    // ---- statements ------------------------------------------------------

    /// The actions valid in `ctx`, with their weights.
    fn choices(&self, ctx: &Ctx) -> Vec<(Action, u32)> {
        use Action::*;
        let nest = self.can_nest(ctx);
        let top = ctx.depth == 0;
        let main = self.main_scope(ctx);
        let in_listener = ctx.listening.is_some();
        let signal = self.has_signal();
        let target = self.has(Kind::Target) || self.has(Kind::Controller);
        let main_target = !self.main_targets().is_empty();
        let functions = self.has(Kind::Function);
        let controllers = self.count(Kind::Controller);
        let targets = self.count(Kind::Target);
        let knows = ctx.after.is_some();
        let abortable = !self.abortable_signals(ctx).is_empty();
        let reserved = self.reserved();
        let free_controllers = self
            .names(Kind::Controller)
            .iter()
            .any(|c| !reserved.contains(c));
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
        let abort_weight = if in_listener {
            12
        } else if ctx.in_callback || free_controllers {
            6
        } else {
            1
        };
        add(Abort, controllers > 0, abort_weight);
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
        let listen = if abortable { 4 } else { 1 };
        add(OnAbort, signal && ((nest && knows) || functions), listen);
        add(
            AddAbortListener,
            signal && ((nest && knows) || functions),
            if abortable { 3 } else { 2 },
        );
        let late = self
            .names(Kind::Disposable)
            .iter()
            .any(|d| self.disposed_late(d, ctx));
        add(
            Dispose,
            self.has(Kind::Disposable),
            if late { 3 } else { 2 },
        );
        add(
            Function,
            nest && main && main_target,
            if functions { 4 } else { 8 },
        );
        add(
            On,
            main_target && ((nest && knows) || functions),
            if in_listener { 8 } else { 10 },
        );
        add(Off, target && functions, if in_listener { 10 } else { 5 });
        add(
            Dispatch,
            target && !ctx.no_dispatch,
            if in_listener { 8 } else { 6 },
        );
        add(PreventDefault, ctx.event, 4);
        add(StopPropagation, ctx.event, 2);
        // Outside `once` listeners it would silence the listeners after it
        // in every dispatch, except in an abort listener of a signal, which
        // aborts once (the epilogue dispatches `abort` once more).
        let abort_listener = ctx.listening.as_ref().is_some_and(|(t, ty)| {
            ty == "abort" && root(t).is_some_and(|k| self.signals.contains_key(k))
        });
        add(
            StopImmediatePropagation,
            ctx.event && (ctx.once || !ctx.dispatching || abort_listener),
            3,
        );
        add(Microtask, nest, 3);
        add(Tick, nest, 2);
        add(SetTimeout, nest, 3);
        add(ClearTimeout, self.has(Kind::Timer), 1);
        add(SetImmediate, nest, 2);
        add(ClearImmediate, self.has(Kind::Immediate), 1);
        add(Run, ctx.top_level, 4);
        add(
            Throw,
            ctx.in_callback || ctx.in_try,
            if in_listener { 3 } else { 1 },
        );
        add(Return, ctx.in_callback, 1);
        add(Promise, main, 2);
        add(Resolve, self.has(Kind::Deferred), 2);
        add(Reject, self.has(Kind::Deferred), 1);
        add(Then, knows && self.has(Kind::Promise), 2);
        add(Catch, knows && nest && self.has(Kind::Promise), 1);
        add(Resolved, true, 1);
        add(
            Combinator,
            knows,
            if self.has(Kind::Promise) { 2 } else { 1 },
        );
        add(Async, knows && nest, 2);
        add(TryInvalid, nest, 1);
        add(SetInterval, nest && ctx.top_level, 1);
        let counting = ctx.in_callback && !self.counters.is_empty();
        add(Count, counting, 3);
        add(IfCount, counting && nest, 1);
        add(WithResolvers, knows && nest, 1);
        add(ComposedPath, ctx.event, 1);
        add(SetEventAttribute, ctx.event, 1);
        add(ManyListeners, top && main && main_target, 3);
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

    /// A main-script statement outside any callback that can run callbacks.
    fn bump_epoch(&mut self, ctx: &Ctx) {
        if !ctx.in_callback {
            self.epoch += 1;
        }
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
                self.controllers.insert(name.clone(), Status::Live);
                self.add_signal(&name, vec![Root::Controller(name.clone())]);
                out.push(Stmt::Let {
                    name: name.into(),
                    op: Op::NewController,
                });
            }
            Action::Target => {
                let name = self.fresh("t");
                self.declare(&name, Kind::Target);
                out.push(Stmt::Let {
                    name: name.into(),
                    op: Op::NewTarget,
                });
            }
            Action::Abort => {
                let controller = self.abort_controller(ctx);
                let reason = self.opt_reason(ctx);
                if let Some(c) = root(&controller).map(str::to_string) {
                    if ctx.in_callback {
                        if self.controllers.get(&c) == Some(&Status::Live) {
                            self.controllers.insert(c, Status::MaybeSince(self.epoch));
                        }
                    } else {
                        self.controllers.insert(c.clone(), Status::Aborted);
                        self.satisfied_in_main_script(&Trigger::Abort(c));
                    }
                }
                self.bump_epoch(ctx);
                out.push(Stmt::Do(Op::Abort { controller, reason }));
            }
            Action::SignalAbort => {
                let reason = self.opt_reason(ctx);
                let name = self.fresh("s");
                self.declare(&name, Kind::Signal);
                self.add_signal(&name, vec![Root::Aborted]);
                out.push(Stmt::Let {
                    name: name.into(),
                    op: Op::SignalAbort { reason },
                });
            }
            Action::Timeout => {
                let ms = self.range(0, MAX_TIMEOUT_MS);
                let name = self.fresh("s");
                self.declare(&name, Kind::Signal);
                let deadline = (!ctx.in_callback).then(|| self.clock + u64::from(ms.max(1)));
                self.timeouts.insert(name.clone(), (ms, deadline));
                if !ctx.in_callback {
                    self.async_delay = Some(self.async_delay.unwrap_or(0).max(MAX_TIMEOUT_MS));
                }
                self.add_signal(&name, vec![Root::Timeout(name.clone())]);
                out.push(Stmt::Let {
                    name: name.into(),
                    op: Op::SignalTimeout { ms },
                });
            }
            Action::Any => {
                let pool = self.signals();
                let n = if pool.is_empty() { 0 } else { self.range(1, 4) };
                let mut signals = Vec::new();
                let mut roots = Vec::new();
                for _ in 0..n {
                    if let Some(s) = self.pick(&pool) {
                        for r in self.roots(&s) {
                            if !roots.contains(&r) {
                                roots.push(r);
                            }
                        }
                        signals.push(s);
                    }
                }
                let name = self.fresh("s");
                self.declare(&name, Kind::Signal);
                self.add_signal(&name, roots);
                out.push(Stmt::Let {
                    name: name.into(),
                    op: Op::SignalAny {
                        signals,
                        from_set: self.chance(10),
                    },
                });
            }
            Action::TryThrowIfAborted => {
                let signals = self.signals();
                let signal = self
                    .pick_preferring(
                        &signals,
                        50,
                        self.filter(&signals, |g, s| g.signal_state(s, ctx) == Tri::Live),
                    )
                    .unwrap_or(Expr::Undefined);
                // The rest of the block runs only if the signal is not
                // aborted: generate more only when that is certain.
                let runs_on = !ctx.in_callback && self.signal_state(&signal, ctx) == Tri::Live;
                let inner = self.try_ctx(ctx);
                let label = self.fresh("try");
                let first = vec![
                    Stmt::Do(Op::ThrowIfAborted {
                        signal: signal.clone(),
                    }),
                    Stmt::Log(vec![Expr::Str(label), signal.prop("aborted")]),
                ];
                let block = if runs_on {
                    self.block(&inner, first)
                } else {
                    self.statements += first.len();
                    Block::new(first)
                };
                out.push(Stmt::Try(block));
            }
            Action::TryThrow => {
                let inner = self.try_ctx(ctx);
                let label = self.fresh("try");
                let mut block = self.block(&inner, vec![Stmt::Log(vec![Expr::Str(label)])]);
                // Last, so that the statements before it run.
                if !ends_block(block.body()) {
                    let thrown = self.thrown_value(ctx);
                    self.statements += 1;
                    block.body_mut().push(Stmt::Throw(thrown));
                }
                out.push(Stmt::Try(block));
            }
            Action::OnAbort => self.on_abort(ctx, out),
            Action::AddAbortListener => self.add_abort_listener(ctx, out),
            Action::Dispose => {
                let names = self.names(Kind::Disposable);
                // Often the latest: add then remove.
                let latest = names.last().cloned().filter(|_| self.chance(30));
                let disposable = latest
                    .or_else(|| {
                        self.pick_preferring(
                            &names,
                            70,
                            self.filter(&names, |g, d| g.disposed_late(d, ctx)),
                        )
                    })
                    .unwrap_or_default();
                if let Some(f) = self.disposables.get(&disposable).and_then(|d| d.2.clone()) {
                    if let Some(n) = self.fn_uses.get_mut(&f) {
                        *n = n.saturating_sub(1);
                    }
                }
                out.push(Stmt::Do(Op::Dispose {
                    disposable: Expr::var(disposable),
                }));
            }
            Action::Function => {
                let name = self.fresh("f");
                let inner = Ctx {
                    event: true,
                    listening: None,
                    no_dispatch: true,
                    after: None,
                    node: None,
                    aborted: Vec::new(),
                    dispatching: true,
                    once: false,
                    ..self.callback_ctx(ctx)
                };
                let label = vec![Expr::Str(name.clone()), Expr::var("event").prop("type")];
                // One in five is an async function: its code after an
                // `await` runs a microtask after the dispatch that called it.
                let is_async = self.chance(20);
                let mut first = vec![Stmt::Log(label)];
                if is_async {
                    first.push(Stmt::Do(Op::Await(Expr::Undefined)));
                }
                let body = self.block(&inner, first);
                self.declare(&name, Kind::Function);
                self.fn_uses.insert(name.clone(), 0);
                out.push(Stmt::Let {
                    name: name.into(),
                    op: if is_async {
                        Op::AsyncFunction(body)
                    } else {
                        Op::Function(body)
                    },
                });
            }
            Action::On => self.add_event_listener(ctx, out),
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
            Action::StopImmediatePropagation => {
                // In a `once` listener, the listeners after it miss this
                // dispatch only: dispatch once more after it.
                if ctx.dispatching {
                    if let Some((t, ty)) = ctx.listening.clone() {
                        let _ = self.oblige(ctx, Trigger::Dispatch(t, ty), Vec::new());
                    }
                }
                out.push(Stmt::Do(Op::StopImmediatePropagation {
                    event: Expr::var("event"),
                }))
            }
            Action::Microtask => {
                let label = self.fresh("m");
                let body = self.plain_body(ctx, label, 0);
                out.push(Stmt::Do(Op::QueueMicrotask(body)));
            }
            Action::Tick => {
                let label = self.fresh("tk");
                let body = self.plain_body(ctx, label, 0);
                out.push(Stmt::Do(Op::NextTick(body)));
            }
            Action::SetTimeout => {
                let ms = self.range(0, 20);
                // The timer's name, or a label when it is not bound, names
                // the callback in the log.
                let bind = self.chance(70);
                let name = self.fresh(if bind { "h" } else { "to" });
                let body = self.plain_body(ctx, name.clone(), ms.max(1));
                if bind {
                    let deadline = (!ctx.in_callback && self.clock_exact)
                        .then(|| self.clock + u64::from(ms.max(1)));
                    self.timers.insert(name.clone(), deadline);
                }
                self.emit(
                    out,
                    bind.then_some((name, Kind::Timer)),
                    Op::SetTimeout { ms, body },
                );
            }
            Action::ClearTimeout => {
                // Mostly one that fired already: clearing a pending timer
                // loses its body.
                let names = self.names(Kind::Timer);
                let fired = self.filter(&names, |g, t| {
                    !ctx.in_callback
                        && g.timers
                            .get(t)
                            .is_some_and(|d| d.is_some_and(|d| g.clock >= d))
                });
                let timer = Expr::var(self.pick_preferring(&names, 75, fired).unwrap_or_default());
                out.push(Stmt::Do(Op::ClearTimeout { timer }));
            }
            Action::SetImmediate => {
                let bind = self.chance(50);
                let name = self.fresh(if bind { "i" } else { "im" });
                let body = self.plain_body(ctx, name.clone(), 1);
                if bind {
                    let runs = (!ctx.in_callback).then_some(self.runs);
                    self.immediates.insert(name.clone(), runs);
                }
                self.emit(
                    out,
                    bind.then_some((name, Kind::Immediate)),
                    Op::SetImmediate(body),
                );
            }
            Action::ClearImmediate => {
                let names = self.names(Kind::Immediate);
                let fired = self.filter(&names, |g, i| {
                    !ctx.in_callback
                        && g.immediates
                            .get(i)
                            .is_some_and(|r| r.is_some_and(|r| g.runs > r))
                });
                let immediate =
                    Expr::var(self.pick_preferring(&names, 75, fired).unwrap_or_default());
                out.push(Stmt::Do(Op::ClearImmediate { immediate }));
            }
            Action::Run => {
                let mode = match self.below(4) {
                    0 => RunMode::Turn,
                    1 => RunMode::Idle,
                    2 => RunMode::Advance(self.range(0, 25)),
                    _ => RunMode::Turn,
                };
                self.runs += 1;
                match mode {
                    RunMode::Turn => {}
                    RunMode::Idle => self.clock_exact = false,
                    RunMode::Advance(ms) => self.clock += u64::from(ms),
                }
                self.bump_epoch(ctx);
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
                self.deferreds.insert(name.clone(), DeferredInfo::default());
                self.promises.insert(
                    name.clone(),
                    PromiseInfo {
                        outcome: None,
                        roots: vec![name.clone()],
                    },
                );
                out.push(Stmt::Let {
                    name: name.into(),
                    op: Op::NewPromise,
                });
            }
            Action::Resolve | Action::Reject => self.settle(action == Action::Resolve, ctx, out),
            Action::Combinator => self.combinator(out),
            Action::WithResolvers => self.with_resolvers(ctx, out),
            Action::Async => self.async_body(ctx, out),
            Action::TryInvalid => self.try_invalid(out),
            Action::ManyListeners => self.many_listeners(out),
            Action::Count => {
                let counters = self.counters.clone();
                let n = Expr::var(self.pick(&counters).unwrap_or_default());
                out.push(Stmt::Do(Op::Assign {
                    target: n.clone(),
                    value: Expr::Add(Box::new(n), Box::new(Expr::Int(1))),
                }));
            }
            Action::IfCount => {
                // A condition on how often callbacks ran so far.
                let counters = self.counters.clone();
                let name = self.pick(&counters).unwrap_or_default();
                let bound = Expr::Int(i64::from(self.range(0, 3)));
                let label = self.fresh("if");
                let then = Block::new(vec![Stmt::Log(vec![
                    Expr::Str(label.clone()),
                    Expr::var(&name),
                ])]);
                let otherwise = self
                    .chance(40)
                    .then(|| Block::new(vec![Stmt::Log(vec![Expr::Str(format!("{label} else"))])]));
                self.statements += 1;
                out.push(Stmt::If {
                    cond: Expr::Less(Box::new(bound), Box::new(Expr::var(name))),
                    then,
                    otherwise,
                });
            }
            Action::SetInterval => {
                // An interval that fires one to three times: a timer made
                // right after clears it between two rounds (and, sometimes,
                // the interval is unref'd, so that only that timer keeps the
                // loop alive).
                let ms = self.range(2, 8);
                let name = self.fresh("iv");
                let body = self.plain_body(ctx, name.clone(), ms);
                self.emit(
                    out,
                    Some((name.clone(), Kind::Timer)),
                    Op::SetInterval { ms, body },
                );
                if self.chance(30) {
                    out.push(Stmt::Do(Op::TimerRef {
                        timer: Expr::var(&name),
                        refed: false,
                    }));
                }
                let rounds = self.range(1, 3);
                let clear = Block::new(vec![Stmt::Do(Op::ClearInterval {
                    timer: Expr::var(&name),
                })]);
                out.push(Stmt::Do(Op::SetTimeout {
                    ms: ms * rounds + ms / 2,
                    body: clear,
                }));
                self.statements += 2;
            }
            Action::ComposedPath => {
                let name = self.fresh("path");
                out.push(Stmt::Let {
                    name: name.as_str().into(),
                    op: Op::ComposedPath {
                        event: Expr::var("event"),
                    },
                });
                out.push(Stmt::Log(vec![Expr::Str(name.clone()), Expr::var(name)]));
                self.statements += 1;
            }
            Action::SetEventAttribute => {
                let (attribute, value) = if self.chance(50) {
                    (EventAttribute::ReturnValue, Expr::Bool(false))
                } else {
                    (EventAttribute::CancelBubble, Expr::Bool(true))
                };
                out.push(Stmt::Do(Op::SetEventAttribute {
                    event: Expr::var("event"),
                    attribute,
                    value,
                }));
            }
            Action::Then => self.then(ctx, out),
            Action::Catch => self.catch(ctx, out),
            Action::Resolved => {
                let (op, fulfils) = if self.chance(25) {
                    (
                        Op::PromiseReject {
                            value: self.reason(ctx),
                        },
                        false,
                    )
                } else if self.chance(30) {
                    let value = self.reason(ctx);
                    let name = self.fresh("tn");
                    // Sometimes script code in `then` shows when it is called
                    // (if anything adopts the thenable: when is unknown).
                    let body = (self.can_nest(ctx) && self.chance(30)).then(|| {
                        let label = self.fresh("tb");
                        Block::new(vec![Stmt::Log(vec![Expr::Str(label)])])
                    });
                    self.declare(&name, Kind::Thenable);
                    out.push(Stmt::Let {
                        name: name.into(),
                        op: Op::Thenable { value, body },
                    });
                    return;
                } else {
                    (
                        Op::PromiseResolve {
                            value: self.reason(ctx),
                        },
                        true,
                    )
                };
                self.bind_promise(op, Some(fulfils), Vec::new(), out);
            }
        }
    }

    /// Appends `let NAME = OP` (declaring NAME) or, without a binding, `OP`.
    fn emit(&mut self, out: &mut Vec<Stmt>, binding: Option<(Name, Kind)>, op: Op) {
        match binding {
            Some((name, kind)) => {
                self.declare(&name, kind);
                out.push(Stmt::Let {
                    name: name.into(),
                    op,
                });
            }
            None => out.push(Stmt::Do(op)),
        }
    }

    fn bind_promise(
        &mut self,
        op: Op,
        outcome: Option<bool>,
        roots: Vec<Name>,
        out: &mut Vec<Stmt>,
    ) {
        if self.chance(60) {
            let name = self.fresh("p");
            self.promises
                .insert(name.clone(), PromiseInfo { outcome, roots });
            self.emit(out, Some((name, Kind::Promise)), op);
        } else {
            self.emit(out, None, op);
        }
    }

    fn can_nest(&self, ctx: &Ctx) -> bool {
        ctx.depth < self.config.max_depth && self.statements + 2 < self.config.max_statements
    }

    // ---- promises ------------------------------------------------------------

    /// Whether the promise fulfils (`Some(true)`), rejects, or depends on a
    /// `promise` not committed yet (`None`).
    fn outcome(&self, p: &str) -> Option<bool> {
        let info = self.promises.get(p)?;
        match info.outcome {
            Some(o) => Some(o),
            None => self.deferreds.get(p)?.plan,
        }
    }

    /// Commits the `promise`s a promise waits for, and returns its outcome.
    fn commit(&mut self, p: &str, fulfil: bool) -> bool {
        let roots = self
            .promises
            .get(p)
            .map(|i| i.roots.clone())
            .unwrap_or_default();
        for r in roots {
            if let Some(d) = self.deferreds.get_mut(&r) {
                d.plan.get_or_insert(fulfil);
            }
        }
        self.outcome(p).unwrap_or(fulfil)
    }

    /// Whether the promise settles without anything left to do.
    fn surely_settles(&self, p: &str) -> bool {
        self.promises.get(p).is_some_and(|i| {
            i.roots
                .iter()
                .all(|r| self.deferreds.get(r).is_some_and(|d| d.settled))
        })
    }

    /// What a reaction attached in `ctx` to promise `p` runs after: the
    /// settling of its `promise`s and a microtask.
    fn reaction_after(&mut self, ctx: &Ctx, p: &str) -> Option<After> {
        let mut after = ctx.after.clone()?.deferred_by(0);
        let roots = self
            .promises
            .get(p)
            .map(|i| i.roots.clone())
            .unwrap_or_default();
        for r in roots {
            let Some(d) = self.deferreds.get(&r) else {
                continue;
            };
            if d.settled {
                continue;
            }
            let ob = match d.obligation {
                Some(ob) => ob,
                None => {
                    let main = Ctx {
                        after: Some(After::default()),
                        ..Ctx::default()
                    };
                    let ob = self.oblige(&main, Trigger::Settle(r.clone()), Vec::new())?;
                    if let Some(d) = self.deferreds.get_mut(&r) {
                        d.obligation = Some(ob);
                    }
                    ob
                }
            };
            after.parents.push(ob);
        }
        self.note_async(&Some(after.clone()));
        Some(after)
    }

    fn settle(&mut self, resolve: bool, ctx: &Ctx, out: &mut Vec<Stmt>) {
        let names = self.names(Kind::Deferred);
        let Some(name) = self.pick(&names) else {
            return out.push(self.log(ctx, "log".into()));
        };
        let plan = self.deferreds.get(&name).and_then(|d| d.plan);
        let resolve = plan.unwrap_or(resolve);
        let promise = Expr::var(&name);
        let op = if resolve {
            // A promise to adopt must settle, without waiting for this one,
            // and fulfil as planned.
            let candidates: Vec<Name> = self
                .names(Kind::Promise)
                .into_iter()
                .filter(|q| *q != name && self.surely_settles(q) && self.outcome(q) == Some(true))
                .collect();
            let value = match self.below(5) {
                0 => None,
                1 => self.pick(&self.names(Kind::Thenable)).map(Expr::var),
                2 => self.pick(&candidates).map(Expr::var),
                _ => Some(self.reason(ctx)),
            };
            Op::Resolve { promise, value }
        } else {
            let value = self.opt_reason(ctx);
            Op::Reject { promise, value }
        };
        if let Some(d) = self.deferreds.get_mut(&name) {
            d.plan = Some(resolve);
            if !ctx.in_callback {
                d.settled = true;
            }
        }
        if !ctx.in_callback {
            self.satisfied_in_main_script(&Trigger::Settle(name));
        }
        out.push(Stmt::Do(op));
    }

    fn then(&mut self, ctx: &Ctx, out: &mut Vec<Stmt>) {
        let names = self.names(Kind::Promise);
        let name = self.pick(&names).unwrap_or_default();
        let fulfil = self.chance(70);
        let fulfils = self.commit(&name, fulfil);
        let nest = self.can_nest(ctx);
        let after = self.reaction_after(ctx, &name);
        let on_fulfilled = if nest && self.chance(if fulfils { 90 } else { 5 }) {
            Some(self.reaction_body(ctx, true, after.clone()))
        } else {
            None
        };
        let on_rejected = if nest && self.chance(if fulfils { 5 } else { 90 }) {
            Some(self.reaction_body(ctx, false, after))
        } else {
            None
        };
        let handler = if fulfils { &on_fulfilled } else { &on_rejected };
        let outcome = match handler {
            Some(b) => !matches!(b.body().last(), Some(Stmt::Throw(_))),
            None => fulfils,
        };
        let roots = self
            .promises
            .get(&name)
            .map(|i| i.roots.clone())
            .unwrap_or_default();
        let op = Op::Then {
            promise: Expr::var(name),
            on_fulfilled,
            on_rejected,
        };
        self.bind_promise(op, Some(outcome), roots, out);
    }

    /// A value whose outcome is known, for a combinator or an `await`: a
    /// promise that settles as planned, a thenable or a plain value, with
    /// whether it fulfils and the `promise`s it waits for.
    fn settling_value(&mut self, fulfilling_only: bool) -> (Expr, bool, Vec<Name>) {
        let promises: Vec<Name> = self
            .names(Kind::Promise)
            .into_iter()
            .filter(|p| match self.outcome(p) {
                Some(fulfils) => fulfils || !fulfilling_only,
                None => false,
            })
            .collect();
        match self.below(5) {
            0..=2 if !promises.is_empty() => {
                let p = self.pick(&promises).expect("a promise");
                let fulfils = self.outcome(&p).unwrap_or(true);
                let roots = self
                    .promises
                    .get(&p)
                    .map(|i| i.roots.clone())
                    .unwrap_or_default();
                (Expr::var(p), fulfils, roots)
            }
            3 => match self.pick(&self.names(Kind::Thenable)) {
                Some(t) => (Expr::var(t), true, Vec::new()),
                None => (Expr::Int(i64::from(self.range(0, 9))), true, Vec::new()),
            },
            _ => (Expr::Str(self.pick_str(STRINGS)), true, Vec::new()),
        }
    }

    /// `all`, `allSettled`, `race` or `promiseAny` over one to three values
    /// whose outcomes are known, bound as a promise with the outcome the
    /// combinator has over them.
    fn combinator(&mut self, out: &mut Vec<Stmt>) {
        let kind = self.pick(&Combinator::ALL).unwrap_or(Combinator::All);
        let n = 1 + self.below(3);
        let mut values = Vec::with_capacity(n);
        let mut outcomes = Vec::with_capacity(n);
        let mut roots = Vec::new();
        for _ in 0..n {
            let (value, fulfils, item_roots) = self.settling_value(false);
            values.push(value);
            outcomes.push(fulfils);
            roots.extend(item_roots);
        }
        let outcome = match kind {
            Combinator::All => Some(outcomes.iter().all(|f| *f)),
            Combinator::AllSettled => Some(true),
            Combinator::Any => Some(outcomes.iter().any(|f| *f)),
            // The first to settle decides: known only when they agree.
            Combinator::Race => {
                if outcomes.iter().all(|f| *f == outcomes[0]) {
                    Some(outcomes[0])
                } else {
                    None
                }
            }
        };
        roots.sort();
        roots.dedup();
        let name = self.fresh("p");
        self.promises
            .insert(name.clone(), PromiseInfo { outcome, roots });
        self.emit(
            out,
            Some((name, Kind::Promise)),
            Op::Combinator { kind, values },
        );
    }

    /// `let w = withResolvers`, `then w.promise {` a reaction `}` (or its
    /// `else`), then `resolve w.promise V` or `reject w.promise V`: the
    /// record's promise settles through its own functions, a microtask
    /// after the statement that settles it.
    fn with_resolvers(&mut self, ctx: &Ctx, out: &mut Vec<Stmt>) {
        let name = self.fresh("w");
        let fulfil = self.chance(70);
        self.declare(&name, Kind::Resolvers);
        out.push(Stmt::Let {
            name: name.clone().into(),
            op: Op::WithResolvers,
        });
        let promise = Expr::var(&name).prop("promise");
        let after = ctx.after.clone().map(|a| a.deferred_by(0));
        let body = self.reaction_body(ctx, fulfil, after);
        let (on_fulfilled, on_rejected) = if fulfil {
            (Some(body), None)
        } else {
            (None, Some(body))
        };
        out.push(Stmt::Do(Op::Then {
            promise: promise.clone(),
            on_fulfilled,
            on_rejected,
        }));
        let value = Some(self.reason(ctx));
        out.push(Stmt::Do(if fulfil {
            Op::Resolve { promise, value }
        } else {
            Op::Reject { promise, value }
        }));
        self.statements += 2;
    }

    /// `let p = async {` a log, `let aw = await V` over a value that
    /// fulfils, a log of it, and statements that run as a reaction to V
    /// would `}`, bound as a promise that fulfils unless the body ends by
    /// throwing.
    fn async_body(&mut self, ctx: &Ctx, out: &mut Vec<Stmt>) {
        let (awaited, _, roots) = self.settling_value(true);
        let label = self.fresh("as");
        let after = match &awaited {
            Expr::Var(p) if self.promises.contains_key(&p.name) => {
                let p = p.clone();
                self.reaction_after(ctx, &p)
            }
            _ => ctx.after.clone().map(|a| a.deferred_by(0)),
        };
        let mut inner = self.callback_ctx(ctx);
        inner.after = after;
        self.note_async(&inner.after);
        let bound = self.fresh("aw");
        let first = vec![
            Stmt::Log(vec![Expr::Str(label.clone())]),
            Stmt::Let {
                name: bound.clone().into(),
                op: Op::Await(awaited),
            },
            Stmt::Log(vec![
                Expr::Str(format!("{label} awaited")),
                Expr::var(bound),
            ]),
        ];
        let body = self.block(&inner, first);
        let outcome = !matches!(body.body().last(), Some(Stmt::Throw(_)));
        let name = self.fresh("p");
        self.promises.insert(
            name.clone(),
            PromiseInfo {
                outcome: Some(outcome),
                roots,
            },
        );
        self.emit(out, Some((name, Kind::Promise)), Op::Async(body));
    }

    fn catch(&mut self, ctx: &Ctx, out: &mut Vec<Stmt>) {
        let names: Vec<Name> = self
            .names(Kind::Promise)
            .into_iter()
            .filter(|p| self.outcome(p) != Some(true))
            .collect();
        let Some(name) = self.pick(&names) else {
            return self.then(ctx, out);
        };
        self.commit(&name, false);
        let after = self.reaction_after(ctx, &name);
        let on_rejected = self.reaction_body(ctx, false, after);
        let outcome = !matches!(on_rejected.body().last(), Some(Stmt::Throw(_)));
        let roots = self
            .promises
            .get(&name)
            .map(|i| i.roots.clone())
            .unwrap_or_default();
        self.bind_promise(
            Op::Catch {
                promise: Expr::var(name),
                on_rejected,
            },
            Some(outcome),
            roots,
            out,
        );
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
            after: ctx.after.clone(),
            node: ctx.node.clone(),
            aborted: ctx.aborted.clone(),
            dispatching: false,
            once: false,
        }
    }

    /// The context of a listener's body: run by obligation `ob`, dispatched
    /// as `(target, type)`.
    fn listener_ctx(&self, ctx: &Ctx, target: &Expr, event_type: &str, ob: Option<usize>) -> Ctx {
        let mut aborted = ctx.aborted.clone();
        if event_type == "abort" {
            if let Some(k) = root(target) {
                if self.signals.contains_key(k) {
                    aborted.push(k.to_string());
                }
            }
        }
        Ctx {
            event: true,
            listening: Some((target.clone(), event_type.to_string())),
            no_dispatch: false,
            after: Self::after_obligation(ob),
            node: Some(node(target, event_type)),
            aborted,
            dispatching: true,
            ..self.callback_ctx(ctx)
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
        // The long tail fills its blocks.
        let least = if self.target >= 80 { limit / 2 } else { 0 };
        let n = self.range(least as u32, limit as u32) as usize;
        let start = body.len();
        while body.len() - start < n && self.statements < self.budget() && !ends_block(&body) {
            self.statement(inner, &mut body);
        }
        self.scopes.pop();
        Block::new(body)
    }

    /// The body of an event listener on `target` for `event_type`, starting
    /// with `log "<label>" event.type`.
    fn listener_body(
        &mut self,
        ctx: &Ctx,
        target: &Expr,
        event_type: &str,
        prefix: &str,
        ob: Option<usize>,
        once: bool,
    ) -> Block {
        let label = self.fresh(prefix);
        let inner = Ctx {
            once,
            ..self.listener_ctx(ctx, target, event_type, ob)
        };
        let mut log = vec![Expr::Str(label), Expr::var("event").prop("type")];
        if self.chance(40) {
            let prop = self.pick_str(EVENT_PROPS);
            log.push(Expr::var("event").prop(prop));
        }
        match self.below(16) {
            // Whether the event is still at its target (Node clears that
            // after the first listener returns), and what its target is.
            0 => log.push(Expr::Same(
                Box::new(Expr::var("event").prop("eventPhase")),
                Box::new(Expr::ClassConstant(
                    crate::ast::Class::Event,
                    "AT_TARGET".into(),
                )),
            )),
            1 => log.push(Expr::ConstructorName(Box::new(
                Expr::var("event").prop("target"),
            ))),
            _ => {}
        }
        self.call_shape(&mut log);
        self.block(&inner, vec![Stmt::Log(log)])
    }

    /// The body of a callback without parameters (microtask, tick, timer,
    /// immediate), starting with `log "<label>"`, run `ms` after the code
    /// that queues it.
    fn plain_body(&mut self, ctx: &Ctx, label: String, ms: u32) -> Block {
        let mut inner = self.callback_ctx(ctx);
        inner.after = ctx.after.as_ref().map(|a| a.deferred_by(ms));
        self.note_async(&inner.after);
        let mut log = vec![Expr::Str(label)];
        self.call_shape(&mut log);
        self.block(&inner, vec![Stmt::Log(log)])
    }

    /// Now and then, how the callback was called: `arguments.length`, or
    /// `typeof this` (the receiver is a target, a timer's handle or
    /// undefined, each as Node passes it).
    fn call_shape(&mut self, log: &mut Vec<Expr>) {
        match self.below(16) {
            0 => log.push(Expr::ArgumentCount),
            1 => log.push(Expr::TypeOf(Box::new(Expr::This))),
            _ => {}
        }
    }

    /// A `then` body (sees `value`) or an `else`/`catch` body (sees `reason`).
    fn reaction_body(&mut self, ctx: &Ctx, fulfilled: bool, after: Option<After>) -> Block {
        let (prefix, param) = if fulfilled {
            ("th", "value")
        } else {
            ("ca", "reason")
        };
        let label = self.fresh(prefix);
        let mut inner = self.callback_ctx(ctx);
        inner.after = after;
        if fulfilled {
            inner.value = true;
        } else {
            inner.reason = true;
        }
        let mut log = vec![Expr::Str(label), Expr::var(param)];
        self.call_shape(&mut log);
        self.block(&inner, vec![Stmt::Log(log)])
    }

    // ---- operands ------------------------------------------------------------

    /// The controller to abort: inside a listener on a controller's signal,
    /// often that very controller (re-entrant abort). The main script leaves
    /// reserved controllers alone, mostly.
    fn abort_controller(&mut self, ctx: &Ctx) -> Expr {
        if let Some((Expr::Prop(obj, prop), _)) = &ctx.listening {
            if prop == "signal" && self.expr_visible(obj) && self.chance(40) {
                return (**obj).clone();
            }
        }
        let names = self.names(Kind::Controller);
        let name = if ctx.in_callback {
            self.pick(&names)
        } else {
            let reserved = self.reserved();
            let free = self.filter(&names, |_, c| !reserved.contains(c));
            self.pick_preferring(&names, 90, free)
        };
        Expr::var(name.unwrap_or_default())
    }

    /// An optional abort or rejection reason.
    fn opt_reason(&mut self, ctx: &Ctx) -> Option<Expr> {
        if self.chance(75) {
            Some(self.reason(ctx))
        } else {
            None
        }
    }

    /// A reason: strings, numbers, `Error("...")` and the other error
    /// classes, `undefined`, another signal's reason, the reason this
    /// callback received, and now and then a fraction, -0, NaN, a symbol or
    /// a plain object.
    fn reason(&mut self, ctx: &Ctx) -> Expr {
        if self.chance(10) {
            return self.unusual_value();
        }
        match self.below(8) {
            0 | 1 => Expr::Str(self.pick_str(STRINGS)),
            2 => Expr::Int(i64::from(self.range(0, 200)) - 100),
            3 => Expr::NewError(self.pick_str(ERROR_MESSAGES)),
            4 => self.other_error(),
            5 => Expr::Undefined,
            6 => match self.pick(&self.signals()) {
                Some(s) => s.prop("reason"),
                None => Expr::Null,
            },
            _ if ctx.reason => Expr::var("reason"),
            _ => Expr::Bool(self.chance(50)),
        }
    }

    /// A value of the kinds few tests try: a number that is no integer
    /// (`-0` and `NaN` among them), a symbol, a plain object.
    fn unusual_value(&mut self) -> Expr {
        match self.below(6) {
            0 => Expr::Number(crate::ast::Number::new(-0.0)),
            1 => Expr::Number(crate::ast::Number::new(f64::NAN)),
            2 => Expr::Number(crate::ast::Number::new(
                f64::from(self.range(0, 40)) / 4.0 + 0.125,
            )),
            3 => Expr::Symbol(None),
            4 => Expr::Symbol(Some(self.pick_str(STRINGS))),
            _ => Expr::Object,
        }
    }

    /// An error of a class other than `Error`: `TypeError`, `RangeError`
    /// or `DOMException` with a name (the abort's own names among them).
    fn other_error(&mut self) -> Expr {
        let message = self.pick_str(ERROR_MESSAGES);
        match self.below(4) {
            0 => Expr::NewBuiltinError {
                class: crate::ast::BuiltinError::TypeError,
                message,
            },
            1 => Expr::NewBuiltinError {
                class: crate::ast::BuiltinError::RangeError,
                message,
            },
            _ => Expr::NewDomException {
                message,
                name: self.pick_str(DOM_EXCEPTION_NAMES),
            },
        }
    }

    fn thrown_value(&mut self, ctx: &Ctx) -> Expr {
        match self.below(3) {
            0 => Expr::NewError(self.pick_str(ERROR_MESSAGES)),
            _ => self.reason(ctx),
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

    /// A named listener, preferring one no listener that will run uses yet.
    fn listener_fn(&mut self) -> Option<Name> {
        let functions = self.functions();
        let unused = self.filter(&functions, |g, f| g.fn_uses.get(f).copied() == Some(0));
        self.pick_preferring(&functions, 80, unused)
    }

    fn use_fn(&mut self, name: &str, ob: Option<usize>) {
        if ob.is_some() {
            if let Some(n) = self.fn_uses.get_mut(name) {
                *n += 1;
            }
        }
    }

    /// Whether to pass a named function rather than an inline body.
    fn by_name(&mut self, ctx: &Ctx) -> bool {
        let functions = self.functions();
        if functions.is_empty() {
            return false;
        }
        if !(self.can_nest(ctx) && ctx.after.is_some()) {
            return true;
        }
        let unused = functions
            .iter()
            .any(|f| self.fn_uses.get(f).copied() == Some(0));
        self.chance(if unused { 60 } else { 35 })
    }

    fn add_event_listener(&mut self, ctx: &Ctx, out: &mut Vec<Stmt>) {
        let targets = self.main_targets();
        // Inside a listener, often add to the target and type being
        // dispatched: whether the new listener runs in this dispatch is one
        // of the subtle rules. Not where a `once` listener dispatches its own
        // event: that would recurse without end.
        let own = ctx.listening.clone().filter(|(t, ty)| {
            self.expr_in_main_scope(t) && !self.self_dispatching.contains(&node(t, ty))
        });
        // Sometimes add a listener by name again, mostly one `off` removed:
        // whether the duplicate is ignored, and what it keeps of the
        // `signal` option's removal, are subtle rules.
        let again: Vec<usize> = (0..self.registrations.len())
            .filter(|&i| {
                let r = &self.registrations[i];
                self.expr_in_main_scope(&r.target) && self.visible(&r.listener)
            })
            .collect();
        let removed = self.filter(&again, |g, i| g.registrations[*i].removed);
        let again = if self.chance(20) {
            self.pick_preferring(&again, 60, removed)
        } else {
            None
        };
        let (target, event_type) = match (again, own) {
            (Some(i), _) => (
                self.registrations[i].target.clone(),
                self.registrations[i].event_type.clone(),
            ),
            (None, Some(pair)) if self.chance(50) => pair,
            _ => {
                let (t, is_signal) = self.pick(&targets).unwrap_or((Expr::Undefined, false));
                let ty = self.event_type_for(is_signal);
                (t, ty)
            }
        };
        let here = node(&target, &event_type);
        let is_signal = root(&target).is_some_and(|k| self.signals.contains_key(k));
        let may_add = self.may_add(ctx, &here);
        if !may_add && self.functions().is_empty() {
            let label = self.fresh("log");
            let stmt = self.log(ctx, label);
            return out.push(stmt);
        }
        // A named listener is added once however often this runs.
        let by_name = again.is_some() || !may_add || self.by_name(ctx);
        if !by_name {
            self.note_add(ctx, &here);
        }
        // The `signal` option: for a listener that should run, a live one
        // that the epilogue's first `run` does not abort (no timeout) and
        // that the listener's own abort does not abort.
        let own_roots = if is_signal && event_type == "abort" {
            self.roots(&target)
        } else {
            Vec::new()
        };
        let signal = if self.chance(25) {
            let signals = self.signals();
            let live = self.filter(&signals, |g, s| {
                g.good_signal_option(s, &target, &own_roots, ctx)
            });
            // Now and then one that removes the listener before it runs
            // (the listener must then not run: a bug finder of its own).
            let percent = if by_name { 50 } else { 85 };
            self.pick_preferring(&signals, percent, live)
        } else {
            None
        };
        let capture = match again {
            Some(i) => self.registrations[i].capture ^ self.chance(15),
            None => self.chance(25),
        };
        let options = ListenerOptions {
            once: self.chance(25),
            capture,
            passive: self.chance(20),
            signal,
            as_boolean: false,
            value: None,
        };
        let removed_early = options
            .signal
            .as_ref()
            .is_some_and(|s| !self.good_signal_option(s, &target, &own_roots, ctx));
        let avoid = match &options.signal {
            Some(s) if !removed_early => Self::controllers_of(&self.roots(s)),
            _ => Vec::new(),
        };
        let trigger = if is_signal && event_type == "abort" {
            self.abort_listener_trigger(&target, ctx)
        } else {
            Some(Trigger::Dispatch(target.clone(), event_type.clone()))
        };
        let ob = match trigger {
            Some(t) if !removed_early => self.oblige(ctx, t, avoid),
            _ => None,
        };
        let listener = if by_name {
            let name = match again {
                Some(i) => self.registrations[i].listener.clone(),
                None => self.listener_fn().unwrap_or_default(),
            };
            self.use_fn(&name, ob);
            self.registrations.push(Registration {
                target: target.clone(),
                event_type: event_type.clone(),
                listener: name.clone(),
                capture: options.capture,
                obligation: ob,
                removed: false,
            });
            Callback::Value(Expr::var(name))
        } else {
            let body = self.listener_body(ctx, &target, &event_type, "l", ob, options.once);
            if self.chance(8) {
                // The same body as an EventListener object's handleEvent,
                // bound just before: Node calls it through an async wrapper.
                let name = self.fresh("o");
                out.push(Stmt::Let {
                    name: name.as_str().into(),
                    op: Op::ListenerObject(body),
                });
                self.statements += 1;
                Callback::Value(Expr::var(name))
            } else {
                Callback::Inline(body)
            }
        };
        self.listened
            .push((target.clone(), event_type.clone(), is_signal));
        if options.signal.is_some() && self.expr_in_main_scope(&target) {
            self.signal_pairs.push((target.clone(), event_type.clone()));
        }
        out.push(Stmt::Do(Op::AddEventListener {
            target,
            event_type,
            listener,
            options,
        }));
    }

    /// `repeat N { on T TYPE { log ... } }` in the main script: more
    /// listeners of one type than the target's maximum, so that Node's
    /// MaxListenersExceededWarning shows (11 on a plain EventTarget, whose
    /// maximum is 10). An AbortSignal has no maximum until
    /// `setMaxListeners` gives it one, and sometimes a target gets a
    /// smaller one (0 lifts it); now and then `getMaxListeners` reads it.
    fn many_listeners(&mut self, out: &mut Vec<Stmt>) {
        let targets = self.main_targets();
        let Some((target, is_signal)) = self.pick(&targets) else {
            return;
        };
        let event_type = self.event_type_for(is_signal);
        let mut count = 11;
        if (is_signal && self.chance(70)) || self.chance(20) {
            let (n, repeat) = match self.below(8) {
                0 => (Expr::Undefined, 11),
                1 => (Expr::Int(0), 11),
                _ => {
                    let max = self.range(1, 3);
                    (Expr::Int(i64::from(max)), max + 1)
                }
            };
            count = repeat;
            out.push(Stmt::Do(Op::SetMaxListeners {
                n,
                targets: vec![target.clone()],
            }));
            self.statements += 1;
        }
        if self.chance(30) {
            let name = self.fresh("max");
            self.emit(
                out,
                Some((name.clone(), Kind::Value)),
                Op::GetMaxListeners {
                    target: target.clone(),
                },
            );
            out.push(Stmt::Log(vec![Expr::var(name)]));
            self.statements += 2;
        }
        let label = self.fresh("many");
        out.push(Stmt::Repeat {
            count,
            body: Block::new(vec![Stmt::Do(Op::AddEventListener {
                target,
                event_type,
                listener: Callback::Inline(Block::new(vec![Stmt::Log(vec![Expr::Str(label)])])),
                options: ListenerOptions::default(),
            })]),
        });
        self.statements += 2;
    }

    /// Whether `signal` as the `signal` option of a listener on `target`
    /// leaves the listener to run: live, aborted only by controllers (the
    /// epilogue's first `run` fires timeouts; a signal that cannot abort may
    /// see an `abort` event dispatched, which removes the listener too), not
    /// the target itself and not aborted by the listener's own trigger.
    fn good_signal_option(&self, signal: &Expr, target: &Expr, own: &[Root], ctx: &Ctx) -> bool {
        let roots = self.roots(signal);
        signal != target
            && !roots.is_empty()
            && self.signal_state(signal, ctx) == Tri::Live
            && roots
                .iter()
                .all(|r| matches!(r, Root::Controller(_)) && !own.contains(r))
    }

    fn on_abort(&mut self, ctx: &Ctx, out: &mut Vec<Stmt>) {
        let signals = self.signals();
        let abortable = self.abortable_signals(ctx);
        let free = |g: &Self, s: &Expr| {
            !root(s).is_some_and(|k| g.signals.get(k).is_some_and(|i| i.onabort_pending))
        };
        let by_name = self.by_name(ctx);
        let inline = !by_name && self.can_nest(ctx) && ctx.after.is_some();
        let signal = {
            let good: Vec<Expr> = abortable
                .iter()
                .filter(|s| free(self, s))
                .cloned()
                .collect();
            let unpending: Vec<Expr> = signals.iter().filter(|s| free(self, s)).cloned().collect();
            // A signal whose handler is a `fn`: replace it.
            let with_fn = self.filter(&signals, |g, s| {
                root(s)
                    .and_then(|k| g.signals.get(k))
                    .is_some_and(|i| i.onabort_fn.is_some())
            });
            if !with_fn.is_empty() && self.chance(35) {
                self.pick(&with_fn)
            } else if !good.is_empty() && self.chance(90) {
                self.pick(&good)
            } else if !unpending.is_empty() {
                self.pick(&unpending)
            } else {
                self.pick(&signals)
            }
        }
        .unwrap_or(Expr::Undefined);
        // Replacing the handler loses a body that has yet to run: seldom.
        if !free(self, &signal) && !self.chance(15) {
            let label = self.fresh("log");
            return out.push(self.log(ctx, label));
        }
        if let Some(i) = root(&signal).and_then(|k| self.signals.get_mut(k)) {
            i.onabort_pending = false;
        }
        // Replacing one `fn` handler by another is a case of its own.
        let has_fn = root(&signal)
            .and_then(|k| self.signals.get(k))
            .is_some_and(|i| i.onabort_fn.is_some());
        let by_name = by_name || (has_fn && !self.functions().is_empty() && self.chance(60));
        let trigger = self.abort_listener_trigger(&signal, ctx);
        // The `fn` handler replaced is one use fewer.
        if let Some(old) = root(&signal)
            .and_then(|k| self.signals.get_mut(k))
            .and_then(|i| i.onabort_fn.take())
        {
            if let Some(n) = self.fn_uses.get_mut(&old) {
                *n = n.saturating_sub(1);
            }
        }
        let by_name = by_name || (trigger.is_none() && !self.functions().is_empty());
        let handler = if inline && trigger.is_some() && self.chance(85) {
            let ob = trigger.and_then(|t| self.oblige(ctx, t, Vec::new()));
            if ob.is_some() {
                if let Some(i) = root(&signal).and_then(|k| self.signals.get_mut(k)) {
                    i.onabort_pending = true;
                }
            }
            Handler::Callback(Callback::Inline(
                self.listener_body(ctx, &signal, "abort", "oa", ob, false),
            ))
        } else if by_name {
            let ob = trigger.and_then(|t| self.oblige(ctx, t, Vec::new()));
            let name = self.listener_fn().unwrap_or_default();
            self.use_fn(&name, ob);
            if ob.is_some() {
                if let Some(i) = root(&signal).and_then(|k| self.signals.get_mut(k)) {
                    i.onabort_fn = Some(name.clone());
                }
            }
            Handler::Callback(Callback::Value(Expr::var(name)))
        } else {
            Handler::Null
        };
        self.listened.push((signal.clone(), "abort".into(), true));
        out.push(Stmt::Do(Op::SetOnAbort { signal, handler }));
    }

    fn add_abort_listener(&mut self, ctx: &Ctx, out: &mut Vec<Stmt>) {
        let signals = self.signals();
        let abortable = self.abortable_signals(ctx);
        // An aborted signal calls the listener from a microtask: that path
        // is worth a share too. Each time this code runs after the signal
        // aborted, the listener is called at once: as if this code
        // dispatched the signal's abort, so not where that recurses.
        let signals = self.filter(&signals, |g, s| g.may_add(ctx, &node(s, "abort")));
        let abortable = self.filter(&abortable, |g, s| g.may_add(ctx, &node(s, "abort")));
        let aborted = self.filter(&signals, |g, s| g.signal_state(s, ctx) == Tri::Aborted);
        if signals.is_empty() {
            let label = self.fresh("log");
            return out.push(self.log(ctx, label));
        }
        let signal = if !abortable.is_empty() && self.chance(70) {
            self.pick(&abortable)
        } else if !aborted.is_empty() && self.chance(90) {
            self.pick(&aborted)
        } else if !abortable.is_empty() {
            self.pick(&abortable)
        } else {
            self.pick(&signals)
        }
        .unwrap_or(Expr::Undefined);
        let state = self.signal_state(&signal, ctx);
        let here = node(&signal, "abort");
        let ob = if state == Tri::Aborted {
            None
        } else {
            self.abort_trigger_at_most(&signal, ctx, Tri::Maybe)
                .and_then(|t| self.oblige(ctx, t, Vec::new()))
        };
        // Called whenever the signal aborts, before or after it is added.
        if let Some(o) = ob {
            self.obligations[o].resilient = true;
        }
        let after = if state == Tri::Aborted || ob.is_none() {
            ctx.after.as_ref().map(|a| a.deferred_by(0))
        } else {
            Self::after_obligation(ob)
        };
        self.note_async(&after);
        let bind = self.chance(80);
        let name = self.fresh(if bind { "d" } else { "al" });
        let by_name = self.by_name(ctx)
            || (state != Tri::Aborted && ob.is_none() && !self.functions().is_empty());
        let mut named = None;
        let listener = if !by_name && self.can_nest(ctx) && ctx.after.is_some() {
            self.note_add(ctx, &here);
            let label = name.clone();
            // Called from a microtask, not from a dispatch, when the signal
            // is aborted already.
            let inner = Ctx {
                after,
                once: true,
                dispatching: state == Tri::Live,
                ..self.listener_ctx(ctx, &signal, "abort", None)
            };
            let mut log = vec![Expr::Str(label)];
            if self.chance(50) {
                log.push(Expr::var("event").prop(self.pick_str(EVENT_PROPS)));
            }
            Callback::Inline(self.block(&inner, vec![Stmt::Log(log)]))
        } else {
            let f = self.listener_fn().unwrap_or_default();
            self.use_fn(&f, if after.is_some() { Some(0) } else { None });
            named = Some(f.clone());
            Callback::Value(Expr::var(f))
        };
        self.listened.push((signal.clone(), "abort".into(), true));
        if bind {
            let queued = (state == Tri::Aborted).then_some(self.runs);
            self.disposables
                .insert(name.clone(), (signal.clone(), queued, named));
        }
        let op = Op::AddAbortListener { signal, listener };
        self.emit(out, bind.then_some((name, Kind::Disposable)), op);
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
        // Elsewhere, prefer a listener that ran already or whose function
        // other listeners use.
        let safe = |g: &Self, i: &usize| {
            let r = &g.registrations[*i];
            r.obligation
                .is_some_and(|o| g.obligations[o].done.is_some())
                || g.fn_uses.get(&r.listener).copied().unwrap_or(0) >= 2
        };
        let chosen = if !same.is_empty() && self.chance(70) {
            self.pick(&same)
        } else if !visible.is_empty() && self.chance(75) {
            let safe = self.filter(&visible, safe);
            self.pick_preferring(&visible, 50, safe)
        } else {
            None
        };
        // Often the latest: add then remove.
        let chosen = match (chosen, visible.last()) {
            (Some(_), Some(&last)) if same.is_empty() && self.chance(30) => Some(last),
            (c, _) => c,
        };
        if let Some(i) = chosen {
            self.registrations[i].removed = true;
            let r = &self.registrations[i];
            let (target, event_type, name, capture, ob) = (
                r.target.clone(),
                r.event_type.clone(),
                r.listener.clone(),
                r.capture,
                r.obligation,
            );
            // Sometimes the capture flag does not match, so nothing is removed.
            let capture = capture ^ self.chance(20);
            if ob.is_some_and(|o| self.obligations[o].done.is_none()) {
                if let Some(n) = self.fn_uses.get_mut(&name) {
                    *n = n.saturating_sub(1);
                }
            }
            return Stmt::Do(Op::RemoveEventListener {
                target,
                event_type,
                listener: Expr::var(name),
                capture,
                as_boolean: false,
            });
        }
        let (target, is_signal) = self
            .pick(&self.targets())
            .unwrap_or((Expr::Undefined, false));
        let event_type = self.event_type_for(is_signal);
        let listener = Expr::var(self.pick(&self.functions()).unwrap_or_default());
        let capture = self.chance(30);
        Stmt::Do(Op::RemoveEventListener {
            target,
            event_type,
            listener,
            capture,
            as_boolean: false,
        })
    }

    fn dispatch(&mut self, ctx: &Ctx, out: &mut Vec<Stmt>) {
        let listened: Vec<(Expr, String)> = self
            .listened
            .iter()
            .filter(|(t, ty, _)| self.expr_visible(t) && self.may_dispatch(ctx, &node(t, ty)))
            .map(|(t, ty, _)| (t.clone(), ty.clone()))
            .collect();
        let picked = match self.pick(&listened) {
            Some(pair) if self.chance(75) => Some(pair),
            _ => {
                let (t, is_signal) = self
                    .pick(&self.targets())
                    .unwrap_or((Expr::Undefined, false));
                let ty = self.event_type_for(is_signal);
                // A listener that dispatches its own event (or one that
                // leads back to it) recurses until a budget stops it: try
                // the other types, then give up.
                std::iter::once(ty)
                    .chain(["foo", "bar", "my event"].map(String::from))
                    .find(|ty| self.may_dispatch(ctx, &node(&t, ty)))
                    .map(|ty| (t, ty))
            }
        };
        // Rarely, a `once` listener dispatches its own event: the recursion
        // ends when the `once` listeners are used up, as long as no listener
        // of that event adds more.
        let picked = match (&ctx.listening, ctx.once && ctx.dispatching) {
            (Some((t, ty)), true)
                if !self.self_adding.contains(&node(t, ty))
                    && self.expr_visible(t)
                    && self.chance(5) =>
            {
                self.self_dispatching.insert(node(t, ty));
                Some((t.clone(), ty.clone()))
            }
            _ => picked,
        };
        let Some((target, event_type)) = picked else {
            let label = self.fresh("log");
            return out.push(self.log(ctx, label));
        };
        let to = node(&target, &event_type);
        if let Some(from) = ctx.node.clone() {
            if from != to {
                self.edges.insert((from, to));
            }
        }
        if !ctx.in_callback {
            self.satisfied_in_main_script(&Trigger::Dispatch(target.clone(), event_type.clone()));
        }
        self.bump_epoch(ctx);
        let cancelable = self.chance(50);
        if self.chance(15) {
            return self.dispatch_held_event(target, event_type, cancelable, out);
        }
        let op = Op::Dispatch {
            target,
            event_type,
            cancelable,
        };
        if self.chance(40) {
            let name = self.fresh("r");
            self.declare(&name, Kind::Value);
            out.push(Stmt::Let {
                name: name.as_str().into(),
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

    /// `let e = new Event TYPE ...` (sometimes a CustomEvent with a detail,
    /// sometimes prevented or stopped before it is dispatched), then `let r
    /// = dispatchEvent T e` and a log of the result and the event after it.
    fn dispatch_held_event(
        &mut self,
        target: Expr,
        event_type: String,
        cancelable: bool,
        out: &mut Vec<Stmt>,
    ) {
        let custom = self.chance(30);
        let detail = (custom && self.chance(70)).then(|| Expr::Str(self.pick_str(STRINGS)));
        let event = self.fresh("e");
        out.push(Stmt::Let {
            name: event.as_str().into(),
            op: Op::NewEvent {
                custom,
                event_type: Some(event_type),
                detail,
                bubbles: self.chance(20),
                cancelable,
                composed: self.chance(20),
            },
        });
        let held = Expr::var(&event);
        // At most three statements, as a block lets one statement overflow it
        // by two: with a call before the dispatch, no log after it.
        let before = self.below(8);
        match before {
            0 => out.push(Stmt::Do(Op::PreventDefault {
                event: held.clone(),
            })),
            1 => out.push(Stmt::Do(Op::SetEventAttribute {
                event: held.clone(),
                attribute: EventAttribute::ReturnValue,
                value: Expr::Bool(false),
            })),
            2 => out.push(Stmt::Do(Op::StopImmediatePropagation {
                event: held.clone(),
            })),
            _ => {}
        }
        let result = self.fresh("r");
        out.push(Stmt::Let {
            name: result.as_str().into(),
            op: Op::DispatchEvent {
                target,
                event: held.clone(),
            },
        });
        self.statements += 1;
        if before <= 2 {
            self.statements += 1;
            return;
        }
        let mut logged = vec![
            Expr::Str(format!("{result} dispatched")),
            Expr::var(&result),
        ];
        logged.push(held.clone().prop("defaultPrevented"));
        logged.push(held.clone().prop("eventPhase"));
        if custom {
            logged.push(held.prop("detail"));
        }
        out.push(Stmt::Log(logged));
        self.statements += 1;
    }

    /// `try {` one operation with an argument Node refuses `}`: the
    /// validators' coded errors, logged as `caught`.
    fn try_invalid(&mut self, out: &mut Vec<Stmt>) {
        let signal = self.pick(&self.signals());
        let target = self.pick(&self.targets()).map(|(t, _)| t);
        let wrong = match self.below(5) {
            0 => Expr::Int(i64::from(self.range(0, 9))),
            1 => Expr::Str(self.pick_str(STRINGS)),
            2 => Expr::Null,
            3 => self.unusual_value(),
            _ => Expr::Undefined,
        };
        let op = match (self.below(10), signal, target) {
            // No inline listener: the try block is the one level this nests.
            (0, _, _) => Op::AddAbortListener {
                signal: wrong.clone(),
                listener: Callback::Value(wrong),
            },
            (1, Some(s), _) => Op::AddAbortListener {
                signal: s,
                listener: Callback::Value(wrong),
            },
            (2, Some(s), _) => Op::SignalAny {
                from_set: false,
                signals: vec![s, wrong],
            },
            // A null or undefined listener throws nothing: Node warns. Or
            // the options are the wrong value, refused before the listener.
            (3, _, Some(t)) if self.chance(30) => Op::AddEventListener {
                target: t,
                event_type: "foo".into(),
                listener: Callback::Value(Expr::Null),
                options: ListenerOptions {
                    value: Some(wrong),
                    ..ListenerOptions::default()
                },
            },
            (3, _, Some(t)) => Op::AddEventListener {
                target: t,
                event_type: "foo".into(),
                listener: Callback::Value(wrong),
                options: ListenerOptions::default(),
            },
            (4, _, Some(t)) => Op::DispatchEvent {
                target: t,
                event: wrong,
            },
            (5, _, _) => Op::NewAbortSignal,
            // Node's validateNumber (an integer passes, undefined is the
            // default) and its check of each target.
            (6, _, Some(t)) => Op::SetMaxListeners {
                n: wrong,
                targets: vec![t],
            },
            (7, _, _) => Op::SetMaxListeners {
                n: Expr::Int(i64::from(self.range(0, 3))),
                targets: vec![wrong],
            },
            (8, _, _) => Op::GetMaxListeners { target: wrong },
            _ => Op::NewEvent {
                custom: self.chance(50),
                event_type: None,
                detail: None,
                bubbles: false,
                cancelable: false,
                composed: false,
            },
        };
        let label = self.fresh("try");
        self.statements += 2;
        out.push(Stmt::Try(Block::new(vec![
            Stmt::Log(vec![Expr::Str(label)]),
            Stmt::Do(op),
        ])));
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
                Some(s.prop(self.pick_str(SIGNAL_PROPS)))
            }
            1 => Some(Expr::var("event").prop(self.pick_str(EVENT_PROPS))),
            2 => Some(Expr::var("value")),
            3 => Some(Expr::var("reason")),
            _ => self.pick(&self.names(Kind::Value)).map(Expr::var),
        }
    }

    // ---- the epilogue ----------------------------------------------------------

    /// The main script's signals, in the order they were made.
    fn main_signals(&self) -> Vec<Expr> {
        self.signals()
            .into_iter()
            .filter(|s| self.expr_in_main_scope(s))
            .collect()
    }

    /// Pairs of the main script that had listeners, for the epilogue's
    /// dispatches (abort listeners of signals wait for their abort).
    fn main_pairs(&self) -> Vec<(Expr, String)> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for (t, ty, is_signal) in &self.listened {
            if (*is_signal && ty == "abort") || !self.expr_in_main_scope(t) {
                continue;
            }
            if seen.insert(node(t, ty)) {
                out.push((t.clone(), ty.clone()));
            }
        }
        out
    }

    fn unused_fns(&self) -> Vec<Name> {
        self.fn_uses
            .iter()
            .filter(|(f, n)| **n == 0 && self.in_main_scope(f))
            .map(|(f, _)| f.clone())
            .collect()
    }

    /// About how many statements the epilogue needs now.
    fn epilogue_estimate(&self) -> usize {
        let mut triggers = BTreeSet::new();
        let mut later = 0;
        for o in self.obligations.iter().filter(|o| o.done.is_none()) {
            // What a callback sets up needs a trigger of its own, after the
            // callback's.
            if !o.after.is_main_script() {
                later += 1;
                continue;
            }
            triggers.insert(match &o.trigger {
                Trigger::Dispatch(t, ty) => {
                    format!("d {}", crate::printer::print_expr(t) + " " + ty)
                }
                Trigger::Abort(c) => format!("a {c}"),
                Trigger::Advance(_) => "run".into(),
                Trigger::Settle(p) => format!("s {p}"),
            });
        }
        for (t, ty) in self.main_pairs() {
            triggers.insert(format!("d {}", crate::printer::print_expr(&t) + " " + &ty));
        }
        let runs = usize::from(self.async_delay.is_some());
        self.main_signals().len() + triggers.len() + later + self.unused_fns().len() * 2 + runs
    }

    /// Whether the main script has room for one more statement.
    fn room(&self, body: &[Stmt], lines: usize) -> bool {
        body.len() + lines + self.reserve <= self.config.max_top_level
            && self.statements < self.config.max_statements
    }

    fn push_epilogue(&mut self, body: &mut Vec<Stmt>, stmt: Stmt) -> usize {
        self.statements += 1;
        body.push(stmt);
        body.len()
    }

    /// Ends the scenario: lets pending callbacks and timeouts run, observes
    /// every signal, uses every unused `fn`, dispatches every pair that had
    /// listeners, and meets every open obligation, in an order that respects
    /// what each waits for.
    fn epilogue(&mut self, body: &mut Vec<Stmt>) {
        let ctx = Ctx {
            top_level: true,
            after: Some(After::default()),
            ..Ctx::default()
        };
        // Where each `run advance` of the epilogue is.
        let mut runs: Vec<usize> = Vec::new();
        if let Some(ms) = self.async_delay {
            if !self.room(body, 1) {
                return;
            }
            let at = self.push_epilogue(body, Stmt::Run(RunMode::Advance(ms.max(1))));
            runs.push(at);
        }
        for s in self.main_signals() {
            if !self.room(body, 1) {
                return;
            }
            let label = format!("end {}", crate::printer::print_expr(&s));
            let mut values = vec![Expr::Str(label)];
            values.extend(SIGNAL_PROPS.iter().map(|p| s.clone().prop(*p)));
            self.push_epilogue(body, Stmt::Log(values));
        }
        if !self.counters.is_empty() && self.room(body, 1) {
            let mut values = vec![Expr::Str("end counters".into())];
            values.extend(self.counters.iter().map(Expr::var));
            self.push_epilogue(body, Stmt::Log(values));
        }
        // Every `fn` runs somewhere, room permitting.
        for f in self.unused_fns() {
            self.reserve = self.must_left(self.obligations.len());
            let targets = self.main_targets();
            let Some((target, is_signal)) =
                self.pick_preferring(&targets, 70, self.filter(&targets, |_, (_, s)| !s))
            else {
                break;
            };
            let mut event_type = self.pick_str(EVENT_TYPES);
            if is_signal && event_type == "abort" {
                event_type = "foo".into();
            }
            if !self.room(body, 2) {
                break;
            }
            self.push_epilogue(
                body,
                Stmt::Do(Op::AddEventListener {
                    target: target.clone(),
                    event_type: event_type.clone(),
                    listener: Callback::Value(Expr::var(f)),
                    options: ListenerOptions::default(),
                }),
            );
            self.listened
                .push((target.clone(), event_type.clone(), is_signal));
            self.obligations.push(Obligation {
                trigger: Trigger::Dispatch(target, event_type),
                after: After::default(),
                avoid: Vec::new(),
                done: None,
                resilient: false,
            });
        }
        // Every pair that had listeners is dispatched once, room
        // permitting.
        let essential = self.obligations.len();
        for (t, ty) in self.main_pairs() {
            self.obligations.push(Obligation {
                trigger: Trigger::Dispatch(t, ty),
                after: After::default(),
                avoid: Vec::new(),
                done: None,
                resilient: false,
            });
        }
        let mut dispatched: BTreeMap<Node, usize> = BTreeMap::new();
        // Controllers the main script aborted, outside callbacks.
        let mut aborted: BTreeMap<Name, usize> = self
            .controllers
            .iter()
            .filter(|(_, s)| **s == Status::Aborted)
            .map(|(c, _)| (c.clone(), 0))
            .collect();
        let mut settled: BTreeSet<Name> = BTreeSet::new();
        for _round in 0..4 {
            loop {
                let mut progress = false;
                for phase in 0..3 {
                    for i in 0..self.obligations.len() {
                        let Some(after) = self.ready_at(i, &runs) else {
                            continue;
                        };
                        self.reserve = self.reserve_for(i, essential);
                        let trigger = self.obligations[i].trigger.clone();
                        let done = match (phase, trigger) {
                            (0, Trigger::Settle(p)) => {
                                if !settled.contains(&p) {
                                    if !self.room(body, 1) {
                                        continue;
                                    }
                                    settled.insert(p.clone());
                                    let fulfil =
                                        self.deferreds.get(&p).and_then(|d| d.plan).unwrap_or(true);
                                    let promise = Expr::var(&p);
                                    let op = if fulfil {
                                        let value = self.chance(50).then(|| self.reason(&ctx));
                                        Op::Resolve { promise, value }
                                    } else {
                                        Op::Reject {
                                            promise,
                                            value: self.opt_reason(&ctx),
                                        }
                                    };
                                    Some(self.push_epilogue(body, Stmt::Do(op)))
                                } else {
                                    Some(after)
                                }
                            }
                            (0, Trigger::Advance(_)) => runs.iter().copied().find(|r| *r > after),
                            (1, Trigger::Dispatch(t, ty)) => {
                                let n = node(&t, &ty);
                                match dispatched.get(&n) {
                                    Some(at) if *at > after => Some(*at),
                                    _ => {
                                        let Some(at) = self.epilogue_dispatch(body, t, ty) else {
                                            continue;
                                        };
                                        dispatched.insert(n, at);
                                        Some(at)
                                    }
                                }
                            }
                            (2, Trigger::Abort(c)) => match aborted.get(&c) {
                                Some(at) if *at > after => Some(*at),
                                Some(_) if self.obligations[i].resilient => Some(after),
                                Some(_) => {
                                    // Aborted too early for this listener:
                                    // dispatch its abort event instead.
                                    let signal = Expr::var(&c).prop("signal");
                                    let n = node(&signal, "abort");
                                    match dispatched.get(&n) {
                                        Some(at) if *at > after => Some(*at),
                                        _ => {
                                            let Some(at) = self.epilogue_dispatch(
                                                body,
                                                signal,
                                                "abort".into(),
                                            ) else {
                                                continue;
                                            };
                                            dispatched.insert(n, at);
                                            Some(at)
                                        }
                                    }
                                }
                                None if self.abort_waits(&c, i, &runs) => None,
                                None => {
                                    if !self.room(body, 1) {
                                        continue;
                                    }
                                    let reason = self.opt_reason(&ctx);
                                    let at = self.push_epilogue(
                                        body,
                                        Stmt::Do(Op::Abort {
                                            controller: Expr::var(&c),
                                            reason,
                                        }),
                                    );
                                    aborted.insert(c, at);
                                    Some(at)
                                }
                            },
                            _ => None,
                        };
                        if let Some(at) = done {
                            self.obligations[i].done = Some(at);
                            progress = true;
                        }
                    }
                }
                if !progress {
                    // Aborts that wait for listeners yet to be added go
                    // ahead when nothing else can.
                    // Those of the main script's listeners first, then any
                    // that fits.
                    let mut forced: Vec<(bool, usize, Name)> = (0..self.obligations.len())
                        .filter_map(|i| {
                            let o = &self.obligations[i];
                            match &o.trigger {
                                Trigger::Abort(c)
                                    if !aborted.contains_key(c)
                                        && self.ready_at(i, &runs).is_some() =>
                                {
                                    let own = i < essential && o.after.is_main_script();
                                    Some((!own, i, c.clone()))
                                }
                                _ => None,
                            }
                        })
                        .collect();
                    forced.sort();
                    let fits = forced.into_iter().find(|(_, i, _)| {
                        self.reserve = self.reserve_for(*i, essential);
                        self.room(body, 1)
                    });
                    let Some((_, _, c)) = fits else {
                        break;
                    };
                    let at = self.push_epilogue(
                        body,
                        Stmt::Do(Op::Abort {
                            controller: Expr::var(&c),
                            reason: None,
                        }),
                    );
                    aborted.insert(c, at);
                }
            }
            // Callbacks deferred by the epilogue's triggers: run them, and
            // meet what they set up.
            let waiting: Vec<u32> = (0..self.obligations.len())
                .filter_map(|i| self.waits_for_run(i, &runs))
                .collect();
            let Some(ms) = waiting.into_iter().max() else {
                break;
            };
            self.reserve = self.must_left(essential);
            if !self.room(body, 1) {
                break;
            }
            let at = self.push_epilogue(body, Stmt::Run(RunMode::Advance(ms.max(1))));
            runs.push(at);
        }
        // The `signal` options removed their listeners when the signals
        // aborted: dispatch their pairs once more, room permitting.
        self.reserve = self.must_left(essential);
        let mut seen = BTreeSet::new();
        for (t, ty) in self.signal_pairs.clone() {
            if seen.insert(node(&t, &ty)) && aborted.keys().next().is_some() {
                let _ = self.epilogue_dispatch(body, t, ty);
            }
        }
        self.reserve = 0;
    }

    /// How many distinct triggers the main script's own listeners still
    /// need: obligations recorded outside any callback, before `essential`.
    fn must_left(&self, essential: usize) -> usize {
        let mut keys = BTreeSet::new();
        for o in &self.obligations[..essential.min(self.obligations.len())] {
            if o.done.is_none() && o.after.is_main_script() {
                keys.insert(format!("{:?}", o.trigger));
            }
        }
        keys.len()
    }

    /// The lines to keep while meeting obligation `i`: all that the main
    /// script's listeners need, less one if `i` is one of them.
    fn reserve_for(&self, i: usize, essential: usize) -> usize {
        let own = i < essential && self.obligations[i].after.is_main_script();
        self.must_left(essential).saturating_sub(usize::from(own))
    }

    /// A dispatch of the epilogue, sometimes cancelable with its result
    /// logged; its position, or `None` without room.
    fn epilogue_dispatch(
        &mut self,
        body: &mut Vec<Stmt>,
        target: Expr,
        event_type: String,
    ) -> Option<usize> {
        if !self.room(body, 1) {
            return None;
        }
        let cancelable = self.chance(50);
        let op = Op::Dispatch {
            target,
            event_type,
            cancelable,
        };
        if cancelable && self.room(body, 2) && self.chance(50) {
            let name = self.fresh("r");
            self.declare(&name, Kind::Value);
            body.push(Stmt::Let {
                name: name.as_str().into(),
                op,
            });
            Some(self.push_epilogue(
                body,
                Stmt::Log(vec![
                    Expr::Str(format!("{name} dispatched")),
                    Expr::var(name),
                ]),
            ))
        } else {
            Some(self.push_epilogue(body, Stmt::Do(op)))
        }
    }

    /// Where obligation `i` can be met from (its trigger must come after
    /// that position), or `None` if it is met, or waits for something.
    fn ready_at(&self, i: usize, runs: &[usize]) -> Option<usize> {
        let o = &self.obligations[i];
        if o.done.is_some() {
            return None;
        }
        let mut at = 0;
        for p in &o.after.parents {
            at = at.max(self.obligations[*p].done?);
        }
        if o.after.deferred.is_some() {
            at = runs.iter().copied().find(|r| *r > at)?;
        }
        Some(at)
    }

    /// The delay a `run advance` must cover for obligation `i`, if it waits
    /// only for one.
    fn waits_for_run(&self, i: usize, runs: &[usize]) -> Option<u32> {
        let o = &self.obligations[i];
        if o.done.is_some() {
            return None;
        }
        let mut at = 0;
        for p in &o.after.parents {
            at = at.max(self.obligations[*p].done?);
        }
        let last_run = runs.last().copied().unwrap_or(0);
        match (&o.trigger, o.after.deferred) {
            (Trigger::Advance(ms), d) if last_run <= at => Some(ms.saturating_add(d.unwrap_or(0))),
            (_, Some(d)) if last_run <= at => Some(d),
            _ => None,
        }
    }

    /// Whether aborting `c` should wait: another listener that relies on
    /// its abort, or on its not being aborted yet, has yet to be added.
    fn abort_waits(&self, c: &str, except: usize, runs: &[usize]) -> bool {
        self.obligations.iter().enumerate().any(|(j, o)| {
            j != except
                && o.done.is_none()
                && (o.avoid.iter().any(|a| a == c)
                    || (matches!(&o.trigger, Trigger::Abort(x) if x == c)
                        && self.ready_at(j, runs).is_none()))
        })
    }
}
