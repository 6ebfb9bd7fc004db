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
