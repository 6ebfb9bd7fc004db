//! The in-process differential oracle: one scenario on the model and on the
//! optimized implementation, their logs compared.
//!
//! The `differential` fuzz target is a thin wrapper around [`model_vs_impl`],
//! so libFuzzer and `cargo test` exercise the same code.

use nodesem_impl::{ImplEngine, Mutant};
use nodesem_lang::{print, Engine, RunConfig, Scenario};
use nodesem_model::ModelEngine;

use crate::check::{first_difference, unified_diff};

/// Runs `scenario` on the model and on impl (with `mutant` if given).
/// Returns `None` when the logs agree, or a report with the scenario, the
/// first differing line and the unified diff.
pub fn model_vs_impl(scenario: &Scenario, mutant: Option<Mutant>) -> Option<String> {
    let config = RunConfig::default();
    let model = ModelEngine
        .run(scenario, &config)
        .expect("the model runs every valid scenario");
    let implementation = ImplEngine { mutant };
    let other = implementation
        .run(scenario, &config)
        .expect("impl runs every valid scenario");
    let (line, _, _) = first_difference(&model, &other)?;
    Some(format!(
        "model and {} differ at log line {line}\n{}\nscenario:\n{}",
        implementation.name(),
        unified_diff(&model, &other, "model", &implementation.name()),
        print(scenario)
    ))
}

/// Runs `scenario` on the model and on impl with `config`, for the
/// `engines_never_panic` fuzz target: either engine panicking (a failed
/// invariant of the model, a bug of impl) or overflowing its stack is the
/// failure; the logs are not compared.
pub fn run_both(scenario: &Scenario, config: &RunConfig) {
    let _ = ModelEngine.run(scenario, config);
    let _ = ImplEngine { mutant: None }.run(scenario, config);
}

/// A run configuration from fuzzer bytes, within small ranges that reach
/// every way a scenario can be stopped: few callbacks, shallow nesting,
/// little work, a short log.
pub fn small_config(bytes: [u8; 4]) -> RunConfig {
    RunConfig {
        budget: 1 + u32::from(bytes[0]) * 8,
        max_depth: 1 + u32::from(bytes[1] % 64),
        work: 1 + u64::from(bytes[2]) * 64,
        max_log_bytes: 1 + u64::from(bytes[3]) * 64,
    }
}
