//! The curated scenarios' logs as reviewed snapshots.
//!
//! For every `scenarios/**/*.scn`, the model's log is an insta snapshot in
//! `snapshots/`: a pull request that changes behaviour changes a snapshot,
//! and the reviewer sees the log diff (`cargo insta review`). The optimized
//! implementation's log must be identical to the model's.

use nodesem_conformance::{curated_scenarios, root, snapshot_name};
use nodesem_lang::{parse, Engine, RunConfig};

#[test]
fn curated_scenarios_match_their_snapshots_on_model_and_impl() {
    let scenarios = curated_scenarios();
    assert!(
        !scenarios.is_empty(),
        "no curated scenarios found under scenarios/"
    );
    let config = RunConfig::default();
    let model = nodesem_model::ModelEngine;
    let implementation = nodesem_impl::ImplEngine { mutant: None };
    let mut disagreements = Vec::new();
    for relative in &scenarios {
        let text = std::fs::read_to_string(root().join(relative)).expect("readable scenario");
        let scenario =
            parse(&relative.display().to_string(), &text).unwrap_or_else(|e| panic!("{e}"));
        let model_log = model
            .run(&scenario, &config)
            .expect("the model always runs");
        let impl_log = implementation
            .run(&scenario, &config)
            .expect("impl always runs");
        if impl_log != model_log {
            disagreements.push(format!(
                "{}:\n{}",
                relative.display(),
                nodesem_harness::check::unified_diff(&model_log, &impl_log, "model", "impl")
            ));
        }
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(root().join("snapshots"));
        settings.set_prepend_module_to_snapshot(false);
        settings.set_input_file(root().join(relative));
        settings.set_omit_expression(true);
        settings.bind(|| insta::assert_snapshot!(snapshot_name(relative), model_log.to_string()));
    }
    assert!(
        disagreements.is_empty(),
        "impl disagrees with the model:\n{}",
        disagreements.join("\n")
    );
}

#[test]
fn every_snapshot_belongs_to_a_scenario() {
    let names: Vec<String> = curated_scenarios()
        .iter()
        .map(|p| snapshot_name(p))
        .collect();
    let mut orphans = Vec::new();
    for entry in std::fs::read_dir(root().join("snapshots"))
        .expect("snapshots/ exists")
        .flatten()
    {
        let file = entry.file_name().to_string_lossy().to_string();
        let Some(name) = file.strip_suffix(".snap") else {
            continue;
        };
        if !names.iter().any(|n| n == name) {
            orphans.push(file);
        }
    }
    assert!(
        orphans.is_empty(),
        "snapshots without a scenario (delete them): {orphans:?}"
    );
}
