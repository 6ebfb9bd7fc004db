//! The contract between the harness and every engine: run a [`Scenario`],
//! get a [`Log`].
//!
//! Engines know nothing of diffing, fuzzing or processes; the harness knows
//! nothing of how an engine works inside. Keeping the trait here, in the crate
//! every engine already depends on, lets the model and the optimized
//! implementation stay independent of each other.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::ast::Scenario;

/// Limits that every engine applies the same way, so that a runaway scenario
/// stops with the same log line everywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunConfig {
    /// The most script callbacks a scenario may run.
    pub budget: u32,
    /// The deepest script callbacks may nest (a listener that dispatches on
    /// its own target recurses).
    pub max_depth: u32,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            budget: 10_000,
            max_depth: 64,
        }
    }
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
