//! The runtime on its own, under a library layer that has no operations
//! (`NoLibrary`).
//!
//! - Every curated scenario of [`FOLDERS`] uses no library operation, and
//!   the library-less runtime prints exactly its reviewed snapshot in
//!   `snapshots/`, which is the model's log (`tests/conformance.rs`) and
//!   which `nodesem check --engines model,node` compares with the pinned
//!   Node 26.12.1: the event loop's order and the log's format do not
//!   depend on the library layer. The logs of these cases are Node's
//!   because the check compares them with Node, not because this file says
//!   so.
//! - The other tests check what a curated scenario cannot, since curated
//!   scenarios run with the default `RunConfig`: the budgets stop a
//!   scenario where `RunConfig` says (these limits are nodesem's own, so
//!   their logs are the budget rules of `nodesem_lang::RunConfig`, not
//!   anything Node prints), and a frame with more bindings than its
//!   unindexed form holds still resolves each (the log follows from the
//!   language's scoping rules).

mod common;

use std::path::{Path, PathBuf};

use common::NoLibrary;
use nodesem_conformance::snapshot_log;
use nodesem_lang::{parse, RunConfig};
use nodesem_runtime::run_scenario;

/// The folders of curated scenarios that use no library operation.
const FOLDERS: [&str; 2] = ["scenarios/event_loop", "scenarios/log"];

/// The repository root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn scenarios_without_library_operations_print_their_snapshots_on_the_bare_runtime() {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for folder in FOLDERS {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(folder))
            .unwrap_or_else(|e| panic!("{folder}: {e}"))
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "scn"))
            .collect();
        files.sort();
        for path in files {
            let stem = path.file_stem().unwrap().to_string_lossy();
            let area = folder.trim_start_matches("scenarios/");
            let relative = format!("{folder}/{stem}.scn");
            let text = std::fs::read_to_string(&path).unwrap();
            let scenario = parse(&relative, &text).unwrap_or_else(|e| panic!("{e}"));
            let log = run_scenario::<NoLibrary>(&scenario, &RunConfig::default());
            if log.lines != snapshot_log(&format!("{area}__{stem}")) {
                wrong.push(format!("{relative}:\n{log}"));
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} scenarios under {FOLDERS:?}");
    assert!(
        wrong.is_empty(),
        "the bare runtime's log is not the snapshot:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn budget_stops_a_runaway_scenario() {
    let scenario = parse(
        "t.scn",
        "setImmediate {\n  log \"1\"\n  setImmediate {\n    log \"2\"\n    setImmediate {\n      log \"3\"\n    }\n  }\n}\n",
    )
    .unwrap();
    let log = run_scenario::<NoLibrary>(
        &scenario,
        &RunConfig {
            budget: 2,
            ..RunConfig::default()
        },
    );
    assert_eq!(
        log.lines,
        vec!["1", "2", "budget exhausted: more than 2 callbacks"]
    );
}

#[test]
fn work_is_charged_per_statement_when_a_body_is_called() {
    // The main script costs 3 (two logs and the microtask statement), the
    // microtask's body 2 when it runs: a budget of 4 stops it as it starts,
    // a budget of 5 lets it finish.
    let text = "log \"a\"\nmicrotask {\n  log \"b\"\n  log \"c\"\n}\nlog \"d\"\n";
    let scenario = parse("t.scn", text).unwrap();
    let run = |work| {
        run_scenario::<NoLibrary>(
            &scenario,
            &RunConfig {
                work,
                ..RunConfig::default()
            },
        )
        .lines
    };
    assert_eq!(run(5), vec!["a", "d", "b", "c"]);
    assert_eq!(
        run(4),
        vec!["a", "d", "budget exhausted: more than 4 steps of work"]
    );
    assert_eq!(run(2), vec!["budget exhausted: more than 2 steps of work"]);
}

#[test]
fn a_log_past_its_byte_limit_stops_the_scenario() {
    // "abc\n" is 4 bytes, "é\n" 3 (UTF-8): 7 fit in 7, not in 6.
    let scenario = parse("t.scn", "log \"abc\"\nlog \"\u{e9}\"\nlog \"x\"\n").unwrap();
    let run = |max_log_bytes| {
        run_scenario::<NoLibrary>(
            &scenario,
            &RunConfig {
                max_log_bytes,
                ..RunConfig::default()
            },
        )
        .lines
    };
    assert_eq!(run(9), vec!["abc", "\u{e9}", "x"]);
    assert_eq!(
        run(8),
        vec![
            "abc",
            "\u{e9}",
            "budget exhausted: the log would be larger than 8 bytes"
        ]
    );
    assert_eq!(
        run(6),
        vec![
            "abc",
            "budget exhausted: the log would be larger than 6 bytes"
        ]
    );
}

#[test]
fn a_frame_of_many_bindings_finds_each_of_them() {
    // Past 16 bindings a frame is indexed; every binding must still resolve.
    let mut text = String::new();
    for i in 0..40 {
        text.push_str(&format!("let v{i} = {i}\n"));
    }
    text.push_str("log v0 v15 v16 v17 v39\nmicrotask {\n  let v40 = 40\n  log v40 v39 v0\n}\n");
    let scenario = parse("t.scn", &text).unwrap();
    let log = run_scenario::<NoLibrary>(&scenario, &RunConfig::default());
    assert_eq!(log.lines, vec!["0 15 16 17 39", "40 39 0"]);
}
