//! The contract between the harness and every engine: run a [`Scenario`],
//! get a [`Log`].
//!
//! Engines know nothing of diffing, fuzzing or processes; the harness knows
//! nothing of how an engine works inside. Keeping the trait here, in the crate
//! every engine already depends on, lets the model and the optimized
//! implementation stay independent of each other.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::ast::{Block, Scenario, Stmt};

/// Limits that every engine applies the same way, so that a runaway scenario
/// stops with the same log line everywhere (see [`crate::limits`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunConfig {
    /// The most script callbacks a scenario may run.
    pub budget: u32,
    /// The deepest script callbacks may nest (a listener that dispatches on
    /// its own target recurses).
    pub max_depth: u32,
    /// The most steps of work a scenario may do. A script callback costs one
    /// step per statement of its body (statements in nested callbacks are
    /// the cost of those callbacks), and so does each part of the main
    /// script; an operation that walks a listener list costs one step more
    /// per listener in it, and `AbortSignal.any` one per signal it visits.
    /// Every engine counts the same steps, from what JavaScript can observe,
    /// so a scenario that is cheap in one engine and quadratic in another
    /// stops at the same point in both.
    pub work: u64,
    /// The most bytes the log may hold: the UTF-8 length of every line plus
    /// one for its line break.
    pub max_log_bytes: u64,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            budget: 10_000,
            max_depth: 64,
            work: 1_000_000,
            max_log_bytes: 1 << 20,
        }
    }
}

impl RunConfig {
    /// Checks every limit against its documented maximum in
    /// [`crate::limits`]; the error says which one and why.
    pub fn validate(&self) -> Result<(), String> {
        use crate::limits::{MAX_BUDGET, MAX_CALLBACK_DEPTH, MAX_LOG_BYTES, MAX_WORK};
        if self.budget == 0 || self.budget > MAX_BUDGET {
            return Err(format!(
                "the callback budget must be from 1 to {MAX_BUDGET}, not {}",
                self.budget
            ));
        }
        if self.max_depth == 0 || self.max_depth > MAX_CALLBACK_DEPTH {
            return Err(format!(
                "the callback depth must be from 1 to {MAX_CALLBACK_DEPTH} (deeper overflows real Node's stack), not {}",
                self.max_depth
            ));
        }
        if self.work == 0 || self.work > MAX_WORK {
            return Err(format!(
                "the work budget must be from 1 to {MAX_WORK} steps, not {}",
                self.work
            ));
        }
        if self.max_log_bytes == 0 || self.max_log_bytes > MAX_LOG_BYTES {
            return Err(format!(
                "the log limit must be from 1 to {MAX_LOG_BYTES} bytes, not {}",
                self.max_log_bytes
            ));
        }
        Ok(())
    }
}

/// The steps of work that running `body` costs up front (see
/// [`RunConfig::work`]): one per statement, the statements of `try` blocks
/// and of both branches of an `if` included (they run as part of the body)
/// and those of a `repeat N` body N
/// times (it costs what its unrolled copies would), the bodies of callbacks not
/// (each callback pays for its own when it is called). Comments and `run`
/// cost nothing. Every engine charges this at the start of a callback or of
/// a part of the main script, so a body that throws half-way has still paid
/// for all of it, the same in each.
pub fn statement_cost(body: &[Stmt]) -> u64 {
    body.iter()
        .map(|stmt| match stmt {
            // A directive is no work: it says how the script runs.
            Stmt::Comment(_) | Stmt::Run(_) | Stmt::Use(_) => 0,
            // A block inside knows its own cost.
            Stmt::Try(block) => 1 + block.cost(),
            // Both branches: what either could cost.
            Stmt::If {
                then, otherwise, ..
            } => 1u64
                .saturating_add(then.cost())
                .saturating_add(otherwise.as_ref().map_or(0, Block::cost)),
            Stmt::Repeat { count, body } => {
                1u64.saturating_add(u64::from(*count).saturating_mul(body.cost()))
            }
            _ => 1,
        })
        .fold(0u64, u64::saturating_add)
}

/// What a scenario observably did: one event per line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Log {
    /// The lines, in the order they happened.
    pub lines: Vec<String>,
}

impl Log {
    /// Appends a line.
    pub fn push(&mut self, line: impl Into<String>) {
        self.lines.push(line.into());
    }
}

impl fmt::Display for Log {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for line in &self.lines {
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

/// Why an engine could not produce a log for a scenario.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// The engine process crashed while running the scenario.
    #[error("the engine crashed: {0}")]
    Crashed(String),
    /// The scenario did not finish within the time limit.
    #[error("the scenario did not finish within {0} ms")]
    TimedOut(u64),
    /// The engine refused or failed to run the scenario.
    #[error("the engine failed: {0}")]
    Failed(String),
}

/// An engine: something that runs scenarios and reports what they did.
pub trait Engine: Send + Sync {
    /// The engine's name as the command line spells it.
    fn name(&self) -> String;

    /// Runs one scenario to completion.
    fn run(&self, scenario: &Scenario, config: &RunConfig) -> Result<Log, EngineError>;

    /// Whether one scenario always gives one log. Real Node need not: V8
    /// decides when its collector's work lands (which dirty
    /// FinalizationRegistry runs first, what an optimized frame still
    /// holds), so a check reruns such an engine's divergences to tell a
    /// log that changes from run to run from a difference.
    fn deterministic(&self) -> bool {
        true
    }

    /// Checks, before a run, that the engine can run scenarios at all (a
    /// Node binary without the internals nodesem relies on cannot), so that
    /// a command says why once instead of once per scenario.
    fn preflight(&self) -> Result<(), EngineError> {
        Ok(())
    }

    /// Runs many scenarios; engines with a costly start (a Node process)
    /// override this to batch. Results come back in input order.
    fn run_batch(
        &self,
        scenarios: &[Scenario],
        config: &RunConfig,
    ) -> Vec<Result<Log, EngineError>> {
        scenarios.iter().map(|s| self.run(s, config)).collect()
    }
}
