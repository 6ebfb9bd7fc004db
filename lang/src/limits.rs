//! The limits of a scenario, the same for the parser and for every engine.
//!
//! Scenario text is untrusted input: a file may be huge or nested without
//! end, and a valid script may try to run for ever or print without end. Each
//! limit here exists so that no input can overflow a stack, exhaust memory or
//! hang nodesem, and so that the engines stop a runaway scenario at the same
//! point with the same `budget exhausted: ...` line:
//!
//! - *static* limits, checked by the parser before anything runs (a scenario
//!   past one is a diagnostic with file, line and column): the size of a
//!   file, how deep blocks nest, how long a property chain or a list is, the
//!   range of integers;
//! - *run-time* budgets in [`RunConfig`](crate::RunConfig), checked as the
//!   scenario runs: callbacks, callback nesting, steps of work and log bytes.
//!
//! The static limits also keep every scenario one that real Node compiles:
//! V8 refuses calls with more than 65,535 arguments and overflows its parser
//! stack on deeply nested functions, both far beyond these limits.

/// The largest scenario file, in bytes. A larger file is refused before it
/// is read whole: [`parse`](crate::parse) and
/// [`parse_bytes`](crate::parse_bytes) report one diagnostic, at the
/// character that holds the first byte past the limit, without lexing.
pub const MAX_SOURCE_BYTES: usize = 1 << 20;

/// How deep blocks may nest: the main script is depth 0, a callback in it
/// depth 1, a block inside that depth 2. The parser, printer, interpreter
/// and emitter recurse once per level, so this bounds their stack use
/// whatever the input. The parser reports a deeper block at its `{` and
/// skips its body without recursing.
pub const MAX_NESTING: usize = 32;

/// The longest property chain, such as `a.signal.reason.message` (3). A
/// longer one is reported at its first `.` past the limit.
pub const MAX_PROPERTY_CHAIN: usize = 8;

/// The most values one list may hold: the values of a `log`, the signals of
/// an `any [...]`. A longer list is reported at its first value past the
/// limit.
pub const MAX_LIST: usize = 256;

/// How deep temporaries nest (`any [any [timeout 5]]`, [`crate::Expr::Temporary`]):
/// an inner `any` list holds `timeout` temporaries but no `any` of its own,
/// so every recursion over an expression stays shallow.
pub const MAX_TEMPORARY_DEPTH: usize = 2;

/// The most bytes a `bytes N` Uint8Array may hold (and the largest
/// `autoAllocateChunkSize` a byte stream may take): enough for any chunk
/// a scenario reads, small enough that no script exhausts memory with
/// them.
pub const MAX_BYTES: u32 = 4096;

/// The largest count of a `repeat N` loop. The work budget bounds what a
/// loop does at run time (its statements are paid for up front, N times);
/// this bounds the text's meaning: eleven listeners on one signal is where
/// Node warns, and a thousand is plenty for any listener-count question.
pub const MAX_REPEAT: u32 = 1000;

/// The most marks of one `ruler N`. A ruler tells on which microtask
/// something happens; stream operations take a handful of ticks, and a
/// ruler is paid for as N statements of work.
pub const MAX_RULER: u32 = 64;

/// The largest integer literal, and the negation of the smallest:
/// JavaScript's `Number.MAX_SAFE_INTEGER`. Every integer of the language is
/// then exactly the same number in every engine (beyond it, a Rust `f64` and
/// a JavaScript number round differently from the literal: for `log
/// 9007199254740993` the model logged `9007199254740992`, Node the
/// literal). The lexer reports a literal outside the range at its first
/// character.
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// The largest `--budget` (script callbacks per scenario).
pub const MAX_BUDGET: u32 = 10_000_000;

/// The largest `--max-depth` (script callbacks nested in one another).
/// Measured on Node 26.12.1: a chain of abort listeners that each abort the
/// next controller overflows V8's stack at about 965 levels; 256 keeps a
/// margin of almost four.
pub const MAX_CALLBACK_DEPTH: u32 = 256;

/// The largest `--work` (steps of work per scenario, see
/// [`RunConfig::work`](crate::RunConfig::work)).
pub const MAX_WORK: u64 = 1_000_000_000;

/// The largest `--max-log-bytes`.
pub const MAX_LOG_BYTES: u64 = 1 << 30;
