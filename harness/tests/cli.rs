//! The `nodesem` command as a user runs it: exit codes, error positions, the
//! unified diff, the JSON report, and the harness's power to find every
//! mutant of the optimized implementation.

mod common;

use common::{nodesem, root};
use std::path::PathBuf;

/// A file in a temporary folder that is removed when the returned guard is
/// dropped (the tests leave nothing in the temporary directory).
fn temp_scenario(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("nodesem-cli-")
        .tempdir()
        .unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn malformed_scenario_exits_2_with_file_line_and_column() {
    let (_dir, path) = temp_scenario("bad.scn", "let t = target\nabort t\nlog \"unterminated\n");
    let out = nodesem(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let shown = path.display().to_string();
    assert!(
        stderr.contains(&format!(
            "{shown}:2:7: expected an AbortController, a WritableStream or a WritableStreamDefaultWriter, found `t`, which is an EventTarget"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{shown}:3:5: expected a closing `\"`")),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn unknown_engine_and_missing_file_exit_2() {
    let out = nodesem(&["run", "scenarios/abort/any_basic.scn", "--engine", "v8"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown engine `v8`"));
    let out = nodesem(&["run", "no/such/file.scn"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/file.scn"));
    let out = nodesem(&[
        "run",
        "scenarios/abort/any_basic.scn",
        "--engine",
        "impl+no-such-mutant",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown mutant `no-such-mutant`"));
}

#[test]
fn run_prints_the_log() {
    let out = nodesem(&[
        "run",
        "scenarios/abort/any_dependents_aborted_before_events.scn",
        "--engine",
        "impl",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "a fired true true\nab fired boom\nonly_a fired\nafter abort\nmicrotask\n"
    );
}

#[test]
fn diff_exits_0_on_agreement_and_1_with_a_unified_diff_naming_the_first_divergent_line() {
    let scenario = "scenarios/abort/any_dependents_aborted_before_events.scn";
    let out = nodesem(&["diff", scenario, "--a", "model", "--b", "impl"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = nodesem(&[
        "diff",
        scenario,
        "--a",
        "model",
        "--b",
        "impl+dependants-aborted-late",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("first difference at log line 1: model has `a fired true true`, impl+dependants-aborted-late has `a fired false false`"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  -a fired true true\n  +a fired false false\n"),
        "{stdout}"
    );
}

#[test]
fn check_reports_json_with_the_required_fields() {
    let out = nodesem(&[
        "check",
        "scenarios/abort",
        "--generated",
        "50",
        "--seed",
        "7",
        "--format",
        "json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["scenarios"].as_u64().unwrap() >= 30);
    assert_eq!(report["generated"], 50);
    assert_eq!(report["engines"], serde_json::json!(["model", "impl"]));
    assert_eq!(report["divergences"], serde_json::json!([]));
    assert!(report["elapsed_s"].as_f64().unwrap() > 0.0);
}

/// The report's shape for a mutant that curated and generated scenarios
/// find. How well generated scenarios alone find every mutant is measured by
/// `nodesem mutants` (tests/fuzz_loop.rs).
#[test]
fn check_reports_each_divergence_with_its_generated_text() {
    for mutant in [
        nodesem_impl::Mutant::AbortTwice,
        nodesem_impl::Mutant::DependantsAbortedLate,
        nodesem_impl::Mutant::ExceptionInMicrotask,
    ] {
        let engines = format!("model,impl+{}", mutant.name());
        let out = nodesem(&[
            "check",
            "--engines",
            &engines,
            "--generated",
            "300",
            "--format",
            "json",
        ]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "mutant {} was not found",
            mutant.name()
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let divergences = report["divergences"].as_array().unwrap();
        assert!(!divergences.is_empty());
        for d in divergences {
            assert!(d["line"].as_u64().unwrap() >= 1);
            assert_eq!(d["engines"][1], format!("impl+{}", mutant.name()));
            if d["scenario"].as_str().unwrap().starts_with("generated") {
                // A generated case carries its text, which parses again.
                let text = d["text"].as_str().unwrap();
                nodesem_lang::parse("reported", text).unwrap();
            }
        }
    }
}

#[test]
fn stale_and_mismatched_deviations_fail_the_check() {
    let (_dir, deviations) = temp_scenario(
        "deviations.toml",
        r#"
[[deviation]]
scenario = "scenarios/abort/any_basic.scn"
engines = ["model", "impl"]
diff = ["-before false", "+before true"]
why = "a test entry that no longer differs"
link = "https://dom.spec.whatwg.org/#dom-abortsignal-any"
"#,
    );
    let out = nodesem(&[
        "check",
        "scenarios/abort/any_basic.scn",
        "--deviations",
        deviations.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout)
        .contains("STALE DEVIATION scenarios/abort/any_basic.scn (model vs impl)"));

    let (_dir2, bad) = temp_scenario(
        "bad-deviations.toml",
        "[[deviation]]\nscenario = \"x.scn\"\n",
    );
    let out = nodesem(&[
        "check",
        "scenarios/abort/any_basic.scn",
        "--deviations",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn fmt_prints_the_canonical_form() {
    let (_dir, path) = temp_scenario(
        "messy.scn",
        "# x\nlet   c =   controller\nabort c    \"r\"\n",
    );
    let out = nodesem(&["fmt", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "# x\nlet c = controller\nabort c \"r\"\n"
    );
}

#[test]
fn the_oracle_behind_the_differential_fuzz_target_agrees_and_catches_a_mutant() {
    use nodesem_harness::oracle::model_vs_impl;
    for seed in 0..200 {
        let scenario = nodesem_lang::gen::generate_from_seed(seed, 4096);
        assert_eq!(model_vs_impl(&scenario, None), None, "seed {seed}");
    }
    let scenario = nodesem_lang::parse(
        "t.scn",
        &std::fs::read_to_string(
            root().join("scenarios/abort/any_dependents_aborted_before_events.scn"),
        )
        .unwrap(),
    )
    .unwrap();
    let report =
        model_vs_impl(&scenario, Some(nodesem_impl::Mutant::ALL[0])).expect("the mutant differs");
    assert!(report.contains("differ at log line 1"), "{report}");
}

#[test]
fn two_node_binaries_compare_through_the_cli() {
    // The pinned binary under two names: `node` and `node:<path>` must agree on
    // every curated abort scenario; this is how two Node builds are compared.
    let pinned = nodesem_harness::node::pinned_node_path().expect("the pinned Node installs");
    let other = format!("node:{}", pinned.display());
    let out = nodesem(&[
        "check",
        "scenarios/abort",
        "--engines",
        &format!("node,{other}"),
        "--format",
        "json",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert_eq!(report["engines"], serde_json::json!(["node", other]));
    assert_eq!(report["divergences"], serde_json::json!([]));
    let out = nodesem(&[
        "run",
        "scenarios/abort/any_basic.scn",
        "--engine",
        "node:/no/such/node",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/node is not a file"));
}

#[test]
fn emit_js_plain_prints_a_short_program_without_the_prelude() {
    let out = nodesem(&["emit-js", "--plain", "scenarios/abort/any_basic.scn"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let program = String::from_utf8_lossy(&out.stdout);
    assert!(
        !program.contains("createScenario") && !program.contains("$."),
        "{program}"
    );
    assert!(program.contains("console.log("), "{program}");
    assert!(
        program.contains("AbortSignal.any([a.signal, b.signal])"),
        "{program}"
    );
    assert!(program.lines().count() < 40, "{program}");
    let out = nodesem(&["emit-js", "--node-test", "scenarios/abort/any_basic.scn"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let test = String::from_utf8_lossy(&out.stdout);
    assert!(
        test.starts_with("'use strict';\nconst common = require('../common');\nconst assert = require('assert');\n"),
        "{test}"
    );
    assert!(
        test.contains("common.mustCall(function (event) {"),
        "{test}"
    );
    assert!(
        test.contains("assert.deepStrictEqual(log, [\n    \"before false\",\n"),
        "{test}"
    );
}

#[test]
fn emit_js_plain_refuses_what_real_node_could_order_otherwise_with_exit_2() {
    for flag in ["--plain", "--node-test"] {
        let out = nodesem(&["emit-js", flag, "scenarios/abort/timeout_zero.scn"]);
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert!(out.stdout.is_empty());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!(
                "scenarios/abort/timeout_zero.scn cannot be {flag}: line 7: `setImmediate {{`: an immediate in a scenario with timers (`let s = timeout 0`): real Node orders a timer against an immediate"
            )),
            "{stderr}"
        );
    }
    let out = nodesem(&[
        "emit-js",
        "--plain",
        "--node-test",
        "scenarios/abort/any_basic.scn",
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
}

#[test]
fn emit_js_plain_turns_run_advance_into_a_timer_at_its_rank() {
    let out = nodesem(&[
        "emit-js",
        "--plain",
        "scenarios/abort/timeout_ordering_with_timers.scn",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let program = String::from_utf8_lossy(&out.stdout);
    // Deadlines 1, 3, 7, 10 (the first advance), 30 and 35 (the second)
    // become 100 to 600 ms.
    for expected in [
        "early = AbortSignal.timeout(200);",
        "late = AbortSignal.timeout(500);",
        "}, 100);",
        "}, 300);",
        "setTimeout(part2, 400);",
        "  setTimeout(part3, 200);",
        "function part3() {",
    ] {
        assert!(program.contains(expected), "{expected}:\n{program}");
    }
}

#[test]
fn emit_js_plain_names_the_line_of_the_refused_one_of_two_same_statements() {
    let (_dir, path) = temp_scenario(
        "nested.scn",
        "# A timer made by a timer.\nsetTimeout 1 {\n  log \"outer\"\n  setTimeout 1 {\n    log \"inner\"\n  }\n}\n",
    );
    let out = nodesem(&["emit-js", "--plain", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "line 4: `setTimeout 1 {`: a timer made inside a callback, after the first timer ran"
        ),
        "{stderr}"
    );
}
