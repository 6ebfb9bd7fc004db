//! What generated scenarios do, measured on the model: the share of their
//! callback bodies that run, the share that a budget stops, and how often
//! each kind of operation appears. A generator whose callbacks never run
//! tests nothing; these figures are how `nodesem gen --stats N` (and a
//! fuzz run's user) can tell.

use std::collections::BTreeMap;

use nodesem_lang::{gen, RunConfig, Scenario};
use serde::Serialize;

use crate::fuzz::GENERATED_SIZE;

/// Statistics of `scenarios` generated scenarios from seed `seed` on.
#[derive(Clone, Debug, Default, Serialize)]
pub struct GenStats {
    /// How many scenarios were measured.
    pub scenarios: u64,
    /// Statements per scenario, on average (blocks included).
    pub mean_statements: f64,
    /// Statements in all, for the mean.
    #[serde(skip)]
    pub statements: u64,
    /// Callback bodies in their text.
    pub bodies: u64,
    /// Of those, how many ran at least once on the model.
    pub bodies_run: u64,
    /// `bodies_run / bodies`.
    pub bodies_run_share: f64,
    /// Scenarios that ended with `budget exhausted`.
    pub budget_exhausted: u64,
    /// `budget_exhausted / scenarios`.
    pub budget_exhausted_share: f64,
    /// Scenarios whose run on the model panicked (a bug of the model,
    /// which the comparison reports as a crash when the model is one of
    /// its engines): counted, so that no run hides one.
    pub model_panics: u64,
    /// How many times each kind of operation appears (serde's names of
    /// `nodesem_lang::Op`'s variants).
    pub operations: BTreeMap<String, u64>,
}

/// Generates and runs `count` scenarios of the abort family on the model.
pub fn measure(seed: u64, count: u64) -> GenStats {
    measure_family(gen::Family::Abort, seed, count)
}

/// Generates and runs `count` scenarios of `family` on the model.
pub fn measure_family(family: gen::Family, seed: u64, count: u64) -> GenStats {
    let mut stats = GenStats::default();
    for i in 0..count {
        let scenario = family.generate_from_seed(seed.wrapping_add(i), GENERATED_SIZE);
        stats.record(&scenario);
    }
    stats.finish();
    stats
}

impl GenStats {
    /// Runs one generated scenario on the model and adds what it did.
    pub fn record(&mut self, scenario: &Scenario) {
        self.scenarios += 1;
        self.statements += crate::shrink::statements(scenario) as u64;
        count_operations(scenario, &mut self.operations);
        let run = std::panic::catch_unwind(|| {
            nodesem_model::run_with_stats(scenario, &RunConfig::default())
        });
        let Ok((_, run)) = run else {
            self.model_panics += 1;
            return;
        };
        self.bodies += run.bodies as u64;
        self.bodies_run += run.bodies_run as u64;
        self.budget_exhausted += u64::from(run.budget_exhausted);
    }

    /// Computes the shares and the mean from the counts.
    pub fn finish(&mut self) {
        let share = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        self.mean_statements = share(self.statements, self.scenarios);
        self.bodies_run_share = share(self.bodies_run, self.bodies);
        self.budget_exhausted_share = share(self.budget_exhausted, self.scenarios);
    }

    /// Adds another's counts to these.
    pub fn merge(&mut self, other: &GenStats) {
        self.scenarios += other.scenarios;
        self.statements += other.statements;
        self.bodies += other.bodies;
        self.bodies_run += other.bodies_run;
        self.budget_exhausted += other.budget_exhausted;
        self.model_panics += other.model_panics;
        for (k, v) in &other.operations {
            *self.operations.entry(k.clone()).or_insert(0) += v;
        }
    }
}

/// Counts the operations of a scenario by kind, through its serde form (so
/// that every variant, present and future, is named without a list here).
pub fn count_operations(scenario: &Scenario, counts: &mut BTreeMap<String, u64>) {
    fn op_name(op: &serde_json::Value) -> Option<String> {
        match op {
            serde_json::Value::String(name) => Some(name.clone()),
            serde_json::Value::Object(map) => map.keys().next().cloned(),
            _ => None,
        }
    }
    fn walk(value: &serde_json::Value, counts: &mut BTreeMap<String, u64>) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, inner) in map {
                    let op = match key.as_str() {
                        "do" => Some(inner),
                        "let" => inner.get("op"),
                        _ => None,
                    };
                    if let Some(name) = op.and_then(op_name) {
                        *counts.entry(name).or_insert(0) += 1;
                    }
                    walk(inner, counts);
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|i| walk(i, counts)),
            _ => {}
        }
    }
    if let Ok(json) = serde_json::to_value(scenario) {
        walk(&json, counts);
    }
}
