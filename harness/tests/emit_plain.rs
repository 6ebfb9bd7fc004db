//! `nodesem emit-js --plain` and `--node-test` against the pinned Node: the
//! plain program of every curated scenario that `--plain` accepts, run with
//! no flags at all, prints exactly the model's log; every refused one is
//! refused with a reason; and the node-test form of every other curated
//! scenario passes under a stand-in for Node's `test/common` (call counts
//! checked at exit, as Node's own does), while a wrong expectation fails.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use nodesem_harness::node::pinned_node_path;
use nodesem_harness::plain::{emit, Flavour};
use nodesem_lang::{Engine, RunConfig, Scenario};

/// The curated scenarios, sorted.
fn curated_scenarios() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    nodesem_harness::check::scenario_files(&[root]).expect("scenarios/ is readable")
}

fn load(path: &Path) -> Scenario {
    nodesem_harness::check::load_file(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A folder for the programs, under the target directory.
fn work_dir(prefix: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("a folder under the target directory")
}

/// The model's log of a scenario, one line each, as a program prints it.
fn model_output(scenario: &Scenario) -> String {
    let log = nodesem_model::ModelEngine
        .run(scenario, &RunConfig::default())
        .expect("the model runs every curated scenario");
    log.lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Runs `node FILE` (no flags) and returns its exit status and outputs.
fn run_node(node: &Path, file: &Path) -> (Option<i32>, String, String) {
    let out = Command::new(node)
        .arg(file)
        .current_dir(file.parent().expect("a file in a folder"))
        .env_remove("NODE_OPTIONS")
        .stdin(Stdio::null())
        .output()
        .expect("node starts");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `jobs` on a few threads.
fn in_parallel<T: Send>(jobs: Vec<T>, work: impl Fn(T) + Sync) {
    let queue = Mutex::new(jobs);
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(2, 4);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let job = queue.lock().unwrap().pop();
                match job {
                    Some(job) => work(job),
                    None => break,
                }
            });
        }
    });
}

/// A unified diff of two outputs, for a failure message.
fn diff(expected: &str, actual: &str) -> String {
    similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .header("the model", "node")
        .to_string()
}

#[test]
fn every_accepted_curated_scenario_prints_the_models_log_on_plain_node() {
    let node = pinned_node_path().expect("the pinned Node");
    let dir = work_dir("emit-plain-");
    let mut jobs = Vec::new();
    let mut refused: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for path in curated_scenarios() {
        let scenario = load(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        match emit(
            &scenario,
            Flavour::Plain,
            &path.display().to_string(),
            Some(&text),
        ) {
            Ok(program) => {
                assert!(
                    !program.contains("$."),
                    "{}: a plain program uses the prelude:\n{program}",
                    path.display()
                );
                let extension = if nodesem_harness::emit::is_module(&scenario) {
                    "mjs"
                } else {
                    "js"
                };
                let file = dir.path().join(format!("{}.{extension}", jobs.len()));
                std::fs::write(&file, &program).unwrap();
                jobs.push((path, file, model_output(&scenario), program));
            }
            Err(refusal) => {
                assert!(
                    !refusal.why.is_empty() && !refusal.construct.is_empty(),
                    "{}: a refusal without a reason: {refusal:?}",
                    path.display()
                );
                assert!(
                    !refusal.why.contains("the model cannot run it"),
                    "{}: {refusal}",
                    path.display()
                );
                refused
                    .entry(refusal.why.split(" (").next().unwrap().to_string())
                    .or_default()
                    .push(path.display().to_string());
            }
        }
    }
    let accepted = jobs.len();
    let failures = Mutex::new(Vec::new());
    in_parallel(jobs, |(path, file, expected, program)| {
        let (status, stdout, stderr) = run_node(&node, &file);
        if status != Some(0) || stdout != expected {
            failures.lock().unwrap().push(format!(
                "{} (exit {status:?}):\n{}\nstderr:\n{stderr}\nprogram:\n{program}",
                path.display(),
                diff(&expected, &stdout)
            ));
        }
    });
    let failures = failures.into_inner().unwrap();
    let refused_count: usize = refused.values().map(Vec::len).sum();
    eprintln!("--plain: {accepted} accepted, {refused_count} refused");
    for (why, paths) in &refused {
        eprintln!("  {} refused: {why}", paths.len());
    }
    assert!(
        failures.is_empty(),
        "{} of {accepted} plain programs print another log than the model's:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    // The common constructs are plain: no scenario of these families is
    // refused for a reason of its own, only for what it shares with others.
    for family in ["dispatch", "promises"] {
        let theirs: Vec<&String> = refused
            .values()
            .flatten()
            .filter(|p| p.contains(&format!("scenarios/{family}/")))
            .collect();
        let all = curated_scenarios()
            .iter()
            .filter(|p| {
                p.display()
                    .to_string()
                    .contains(&format!("scenarios/{family}/"))
            })
            .count();
        assert!(
            theirs.len() * 2 < all,
            "more than half of {family} is refused: {theirs:?}"
        );
    }
}

/// A stand-in for the piece of Node's test/common that the node-test form
/// uses: mustCall(fn, n = 1) and mustNotCall(), whose call counts are
/// checked when the process exits; a mismatch prints and exits 1.
const COMMON_JS: &str = r#"'use strict';
// A stand-in for Node's test/common: mustCall and mustNotCall, checked at exit.
const checks = [];
let installed = false;
function install() {
  if (installed) return;
  installed = true;
  process.on('exit', (code) => {
    if (code !== 0) return;
    const wrong = checks.filter((c) => c.actual !== c.exact);
    for (const c of wrong) {
      console.log(`Mismatched ${c.name} function calls. Expected exactly ${c.exact}, actual ${c.actual}.`);
    }
    if (wrong.length > 0) process.exit(1);
  });
}
function mustCall(fn, exact = 1) {
  install();
  const check = { name: fn.name || '<anonymous>', exact, actual: 0 };
  checks.push(check);
  return function (...args) {
    check.actual++;
    return Reflect.apply(fn, this, args);
  };
}
function mustNotCall(message = 'function should not have been called') {
  return function mustNotCall() {
    throw new Error(message);
  };
}
module.exports = { mustCall, mustNotCall };
"#;

const COMMON_MJS: &str = r#"import common from './index.js';
export const { mustCall, mustNotCall } = common;
"#;

/// A folder laid out as Node's test/: `common/` and `parallel/`.
/// `skew` is added to every count mustCall expects (1: a deliberately wrong
/// `common`).
fn test_tree(skew: u32) -> tempfile::TempDir {
    let dir = work_dir("emit-node-test-");
    std::fs::create_dir(dir.path().join("common")).unwrap();
    std::fs::create_dir(dir.path().join("parallel")).unwrap();
    let common = COMMON_JS.replace(
        "exact, actual: 0",
        &format!("exact: exact + {skew}, actual: 0"),
    );
    assert_ne!(common, COMMON_JS);
    std::fs::write(dir.path().join("common/index.js"), common).unwrap();
    std::fs::write(dir.path().join("common/index.mjs"), COMMON_MJS).unwrap();
    dir
}

#[test]
fn node_test_form_of_every_accepted_scenario_passes_and_a_wrong_expectation_fails() {
    let node = pinned_node_path().expect("the pinned Node");
    let dir = test_tree(0);
    let skewed = test_tree(1);
    let mut jobs = Vec::new();
    // Every other curated scenario (in sorted order), to keep the test
    // short: the plain test above runs every one.
    for path in curated_scenarios().into_iter().step_by(2) {
        let scenario = load(&path);
        let name = path.display().to_string();
        let Ok(program) = emit(&scenario, Flavour::NodeTest, &name, None) else {
            continue;
        };
        let module = nodesem_harness::emit::is_module(&scenario);
        let header = if module {
            "import * as common from '../common/index.mjs';\nimport assert from 'node:assert';\n"
        } else {
            "'use strict';\nconst common = require('../common');\nconst assert = require('assert');\n"
        };
        assert!(program.starts_with(header), "{name}:\n{program}");
        let extension = if module { "mjs" } else { "js" };
        let file = dir
            .path()
            .join(format!("parallel/test-nodesem-{}.{extension}", jobs.len()));
        std::fs::write(&file, &program).unwrap();
        jobs.push((jobs.len(), name, file, program));
    }
    let total = jobs.len();
    assert!(total > 0, "no scenario has a node-test form");
    let failures = Mutex::new(Vec::new());
    in_parallel(jobs, |(index, name, file, program)| {
        let (status, stdout, stderr) = run_node(&node, &file);
        if status != Some(0) {
            failures.lock().unwrap().push(format!(
                "{name} (exit {status:?}):\n{stdout}\n{stderr}\nprogram:\n{program}"
            ));
            return;
        }
        // A handful again, wrong: one more expected line, and (under a
        // `common` that expects every mustCall once more than asked) a
        // callback expected once more than it runs.
        if index % 20 != 0 {
            return;
        }
        let wrong = program.replacen(
            "\n  ]);\n});",
            "\n    \"a line the scenario never logs\",\n  ]);\n});",
            1,
        );
        assert_ne!(wrong, program);
        let wrong_file = file.with_file_name(format!(
            "wrong-{}",
            file.file_name().unwrap().to_string_lossy()
        ));
        std::fs::write(&wrong_file, &wrong).unwrap();
        let (status, _, stderr) = run_node(&node, &wrong_file);
        if status != Some(1) || !stderr.contains("AssertionError") {
            failures.lock().unwrap().push(format!(
                "{name}: one more expected line passes (exit {status:?}):\n{stderr}"
            ));
        }
        if program.contains("common.mustCall(") {
            let skewed = skewed
                .path()
                .join("parallel")
                .join(file.file_name().unwrap());
            std::fs::write(&skewed, &program).unwrap();
            let (status, stdout, _) = run_node(&node, &skewed);
            if status != Some(1) || !stdout.contains("Mismatched") {
                failures.lock().unwrap().push(format!(
                    "{name}: a callback expected once more than it runs passes (exit {status:?}):\n{stdout}"
                ));
            }
        }
    });
    let failures = failures.into_inner().unwrap();
    eprintln!("--node-test: {total} tests");
    assert!(
        failures.is_empty(),
        "{} of {total} node-test forms fail:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
