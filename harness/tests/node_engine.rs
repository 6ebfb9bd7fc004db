//! Tests of the Node engine on the pinned Node 26.12.1 (real processes, no
//! mocks): scenarios that crash, hang or fail get their own clear error while
//! the scenarios around them still produce their logs, also when Node dies
//! after a scenario's answer; a worker that closes its stdout, a huge
//! request line and a binary that never becomes ready cannot hang a batch;
//! the same scenarios give the same logs on every run; and the standalone
//! program that `emit-js` writes prints what batch mode returns.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use nodesem_harness::emit::{emit_body, emit_program, NODE_FLAGS};
use nodesem_harness::node::{pinned_node_path, NodeEngine};
use nodesem_lang::gen::generate_from_seed;
use nodesem_lang::{parse, Engine, EngineError, Log, RunConfig, Scenario};

/// One engine for the whole test binary, as a fuzz loop would keep one.
fn engine() -> &'static NodeEngine {
    static ENGINE: OnceLock<NodeEngine> = OnceLock::new();
    ENGINE.get_or_init(|| NodeEngine::pinned().unwrap_or_else(|e| panic!("{e}")))
}

fn log(lines: &[&str]) -> Result<Log, EngineError> {
    Ok(Log {
        lines: lines.iter().map(|l| l.to_string()).collect(),
    })
}

const GOOD: &str = r#"$.segment(() => {
  $.log("good", 1);
  queueMicrotask($.cb(function () { $.log("micro"); }));
  process.nextTick($.cb(function () { $.log("tick"); }));
});"#;

fn good_log() -> Result<Log, EngineError> {
    log(&["good 1", "tick", "micro"])
}

/// Runs a batch in which every other body is a fault and checks each result.
fn check_faults(engine: &NodeEngine) {
    let bodies: Vec<String> = [
        GOOD,
        // Node aborts (SIGABRT) in the middle of a scenario.
        r#"$.segment(() => { $.log("about to abort"); process.abort(); });"#,
        GOOD,
        // Node exits with status 3, after a word on stderr.
        r#"$.segment(() => { console.error("dying words"); process.exit(3); });"#,
        GOOD,
        // A scenario that never ends.
        r#"$.segment(() => { while (true) {} });"#,
        GOOD,
        // A SyntaxError: the body is not JavaScript.
        r#"$.segment(() => { (( });"#,
        GOOD,
        // A throw at the top level of the body, outside any segment.
        r#"$.log("before"); undefinedName;"#,
        GOOD,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let results = engine.run_js_batch(&bodies, &RunConfig::default());
    assert_eq!(results.len(), bodies.len());
    for (i, result) in results.iter().enumerate() {
        if i % 2 == 0 {
            assert_eq!(result, &good_log(), "body {i}");
        }
    }
    match &results[1] {
        Err(EngineError::Crashed(message)) => {
            assert!(message.contains("SIGABRT"), "{message}");
        }
        other => panic!("process.abort(): {other:?}"),
    }
    match &results[3] {
        Err(EngineError::Crashed(message)) => {
            assert!(message.contains("while running the scenario"), "{message}");
            assert!(message.contains("exit status: 3"), "{message}");
            assert!(message.contains("dying words"), "{message}");
        }
        other => panic!("process.exit(3): {other:?}"),
    }
    // A hang is retried once with three times the limit, then reported with
    // the limit it ran out of.
    assert_eq!(results[5], Err(EngineError::TimedOut(6000)));
    match &results[7] {
        Err(EngineError::Failed(message)) => {
            assert!(message.starts_with("SyntaxError: "), "{message}");
        }
        other => panic!("SyntaxError: {other:?}"),
    }
    assert_eq!(
        results[9],
        Err(EngineError::Failed(
            "ReferenceError: undefinedName is not defined".into()
        ))
    );
}

#[test]
fn faults_are_per_scenario_on_one_worker() {
    let node = pinned_node_path().unwrap_or_else(|e| panic!("{e}"));
    let engine = NodeEngine::at(node)
        .with_timeout(Duration::from_secs(2))
        .with_workers(1);
    check_faults(&engine);
}

#[test]
fn faults_are_per_scenario_on_every_core() {
    let node = pinned_node_path().unwrap_or_else(|e| panic!("{e}"));
    let engine = NodeEngine::at(node).with_timeout(Duration::from_secs(2));
    check_faults(&engine);
    // The engine still works after the faults, on the servers it kept.
    let again = engine.run_js_batch(&[GOOD.to_string(), GOOD.to_string()], &RunConfig::default());
    assert_eq!(again, vec![good_log(), good_log()]);
}

fn scenario(text: &str) -> Scenario {
    parse("test.scn", text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn a_scenario_runs_with_its_documented_log() {
    // The example of DESIGN.md (Node 26 aborts every composite before any
    // abort event fires), plus addAbortListener and a timeout signal.
    let s = scenario(
        r#"let a = controller
let b = controller
let ab = any [a.signal, b.signal]
let only_a = any [a.signal]
on a.signal abort {
  log "a fired" ab.aborted only_a.aborted
}
on ab abort {
  log "ab fired" ab.reason
}
on only_a abort {
  log "only_a fired"
}
microtask {
  log "microtask"
}
let d = addAbortListener b.signal {
  log "never: disposed"
}
dispose d
abort a "boom"
log "after abort"
let t = timeout 5
addAbortListener t {
  log "timeout" t.reason
}
run advance 10
abort b
log b.signal.reason
"#,
    );
    assert_eq!(
        engine().run(&s, &RunConfig::default()),
        log(&[
            "a fired true true",
            "ab fired boom",
            "only_a fired",
            "after abort",
            "microtask",
            "timeout TimeoutError: The operation was aborted due to timeout",
            "AbortError: This operation was aborted",
        ])
    );
}

#[test]
fn budget_and_depth_come_from_the_run_config() {
    let s = scenario("let t = target\non t x {\n  log \"in\"\n  dispatch t x\n}\ndispatch t x\n");
    let config = RunConfig {
        budget: 100,
        max_depth: 2,
        ..RunConfig::default()
    };
    assert_eq!(
        engine().run(&s, &config),
        log(&[
            "in",
            "in",
            "budget exhausted: callbacks nested more than 2 deep"
        ])
    );
}

#[test]
fn names() {
    assert_eq!(engine().name(), "node");
    assert_eq!(
        NodeEngine::at("/opt/node-b/bin/node").name(),
        "node:/opt/node-b/bin/node"
    );
}

#[test]
fn a_missing_binary_fails_every_scenario_without_panicking() {
    let engine = NodeEngine::at("/nonexistent/nodesem/node");
    let results = engine.run_batch(
        &[Scenario::default(), Scenario::default()],
        &RunConfig::default(),
    );
    assert_eq!(results.len(), 2);
    for result in results {
        match result {
            Err(EngineError::Failed(message)) => {
                assert!(
                    message.contains("cannot start node at /nonexistent/nodesem/node"),
                    "{message}"
                );
                assert!(message.contains("2 times in a row"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
}

// ---- a death after the answer ---------------------------------------------

// Each makes Node die after the scenario's answer: a real immediate queued
// during the scenario runs after the answer is written, while the server
// settles the scenario's leftovers, before it takes the next request.
const EXIT_AFTER: &str =
    r#"$.segment(() => { $.log("exit after"); setImmediate(() => process.exit(3)); });"#;
const ABORT_AFTER: &str =
    r#"$.segment(() => { $.log("abort after"); setImmediate(() => process.abort()); });"#;
const EXIT_ON_A_TICK_AFTER: &str = r#"$.segment(() => { $.log("tick after"); setImmediate(() => process.nextTick(() => process.exit(4))); });"#;

/// Runs 20 batches of innocent bodies around bodies that kill Node after
/// their answer (the last one ends the batch, so the settle probe must
/// catch it): the culprit is always the one reported, and the innocent
/// bodies always succeed, also the one each culprit was followed by.
fn check_deaths_after_the_answer(engine: &NodeEngine) {
    let bodies: Vec<String> = [
        GOOD,
        EXIT_AFTER,
        GOOD,
        GOOD,
        ABORT_AFTER,
        GOOD,
        EXIT_ON_A_TICK_AFTER,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let culprits = [(1, "exit status: 3"), (4, "SIGABRT"), (6, "exit status: 4")];
    for batch in 0..20 {
        let results = engine.run_js_batch(&bodies, &RunConfig::default());
        assert_eq!(results.len(), bodies.len());
        for (i, result) in results.iter().enumerate() {
            match culprits.iter().find(|(at, _)| *at == i) {
                Some((_, status)) => match result {
                    Err(EngineError::Crashed(message)) => {
                        assert!(
                            message.contains("after the scenario's log was complete"),
                            "batch {batch}, body {i}: {message}"
                        );
                        assert!(
                            message.contains(status),
                            "batch {batch}, body {i}: {message}"
                        );
                    }
                    other => panic!("batch {batch}, body {i} should be blamed: {other:?}"),
                },
                None => assert_eq!(result, &good_log(), "batch {batch}, body {i} is innocent"),
            }
        }
    }
}

#[test]
fn a_death_after_an_answer_is_that_scenarios_on_one_worker() {
    let node = pinned_node_path().unwrap_or_else(|e| panic!("{e}"));
    let engine = NodeEngine::at(node).with_workers(1);
    check_deaths_after_the_answer(&engine);
}

#[test]
fn a_death_after_an_answer_is_that_scenarios_on_every_core() {
    let node = pinned_node_path().unwrap_or_else(|e| panic!("{e}"));
    let engine = NodeEngine::at(node);
    check_deaths_after_the_answer(&engine);
}

#[test]
fn a_hang_after_an_answer_is_that_scenarios() {
    let node = pinned_node_path().unwrap_or_else(|e| panic!("{e}"));
    let engine = NodeEngine::at(node)
        .with_timeout(Duration::from_secs(2))
        .with_workers(1);
    // Answers, then spins while its leftovers settle: the next body is never
    // acknowledged. The second one ends the batch, for the settle probe.
    let spins =
        r#"$.segment(() => { $.log("spin after"); setImmediate(() => { for (;;) {} }); });"#;
    let bodies: Vec<String> = [GOOD, spins, GOOD, spins]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let results = engine.run_js_batch(&bodies, &RunConfig::default());
    assert_eq!(
        results,
        vec![
            good_log(),
            Err(EngineError::TimedOut(2000)),
            good_log(),
            Err(EngineError::TimedOut(2000)),
        ]
    );
}

// ---- nothing can hang a batch ----------------------------------------------

#[test]
fn an_8_mb_request_line_runs() {
    let node = pinned_node_path().unwrap_or_else(|e| panic!("{e}"));
    let engine = NodeEngine::at(node)
        .with_timeout(Duration::from_secs(20))
        .with_workers(1);
    let big = format!("/*{}*/ $.log(\"big\");", "x".repeat(8 << 20));
    let results = engine.run_js_batch(&[big, GOOD.to_string()], &RunConfig::default());
    assert_eq!(results, vec![log(&["big"]), good_log()]);
}

#[test]
fn a_worker_that_closes_its_stdout_and_runs_on_is_killed() {
    let node = pinned_node_path().unwrap_or_else(|e| panic!("{e}"));
    let engine = NodeEngine::at(node)
        .with_timeout(Duration::from_secs(120))
        .with_workers(1);
    // Runs on for 60 s after closing stdout: a nodesem that waited for its
    // exit would report how it exited then, not that it was killed.
    let closes = r#"$.segment(() => {
  process.getBuiltinModule("node:fs").closeSync(1);
  const end = Date.now() + 60000;
  while (Date.now() < end) {}
});"#;
    let results = engine.run_js_batch(
        &[closes.to_string(), GOOD.to_string()],
        &RunConfig::default(),
    );
    match &results[0] {
        Err(EngineError::Crashed(message)) => {
            assert!(message.contains("while running the scenario"), "{message}");
            assert!(message.contains("SIGKILL"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(results[1], good_log());
}

/// A fake `node`: a shell script that counts its starts in `starts` beside
/// it and then runs `script`. Run once (not counted) before it is returned,
/// so that no test thread's fork still holds it open for writing when the
/// engine runs it (which makes exec fail with "Text file busy").
fn fake_node(dir: &Path, script: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("node");
    let text = format!(
        "#!/bin/sh\n[ \"$1\" = --probe ] && exit 0\necho start >> \"$(dirname \"$0\")/starts\"\n{script}\n"
    );
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    for attempt in 0.. {
        match Command::new(&path).arg("--probe").status() {
            Ok(status) if status.success() => break,
            Err(e) if e.raw_os_error() == Some(26) && attempt < 100 => {
                std::thread::sleep(Duration::from_millis(20));
            }
            other => panic!("the fake node does not run: {other:?}"),
        }
    }
    path
}

fn starts(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("starts"))
        .unwrap_or_default()
        .lines()
        .count()
}

/// Runs 50 bodies on a fake node that never serves, on `workers` workers,
/// and checks that each gets the batch's one error, which says `what`.
fn check_broken_node(script: &str, what: &str, workers: usize) {
    let dir = tempfile::tempdir().unwrap();
    let node = fake_node(dir.path(), script);
    let engine = NodeEngine::at(&node)
        .with_startup_timeout(Duration::from_millis(300))
        .with_workers(workers);
    let bodies = vec![GOOD.to_string(); 50];
    let results = engine.run_js_batch(&bodies, &RunConfig::default());
    assert_eq!(results.len(), 50);
    let first = match &results[0] {
        Err(EngineError::Failed(message)) => message.clone(),
        other => panic!("{other:?}"),
    };
    assert!(first.contains(&node.display().to_string()), "{first}");
    assert!(first.contains(what), "{first}");
    assert!(first.contains("failed 2 times in a row"), "{first}");
    for (i, result) in results.iter().enumerate() {
        match result {
            Err(EngineError::Failed(message)) => {
                assert!(message.contains(what), "body {i}: {message}");
                assert!(
                    message.contains("failed 2 times in a row"),
                    "body {i}: {message}"
                );
            }
            other => panic!("body {i}: {other:?}"),
        }
    }
    // Two failed starts stop the batch; a thread whose start was under way
    // when the second failed may have tried once more, no thread twice.
    let started = starts(dir.path());
    assert!(
        (2..=2 * workers.max(1)).contains(&started),
        "{started} starts on {workers} workers"
    );
}

#[test]
fn a_node_that_never_becomes_ready_stops_the_batch() {
    check_broken_node("sleep 1000", "did not say it was ready within 300 ms", 1);
    check_broken_node("sleep 1000", "did not say it was ready within 300 ms", 3);
}

#[test]
fn a_node_that_prints_garbage_or_exits_stops_the_batch() {
    check_broken_node(
        "echo garbage; sleep 1000",
        "did not start nodesem's server; it printed: garbage",
        1,
    );
    check_broken_node(
        "echo 'no server here' >&2; exit 7",
        "node exited while starting (exit status: 7); stderr ends with:\nno server here",
        2,
    );
}

fn generated(count: u64) -> Vec<Scenario> {
    (0..count)
        .map(|seed| generate_from_seed(seed, 1500))
        .collect()
}

// The driver runs a whole scenario inside one real callback and drains with
// Node's own runNextTicks(), so no V8 platform task (FinalizationRegistry
// cleanup), I/O callback or timing can change a log; a budget-stopped
// scenario's leftovers are drained before the next one starts. This test
// holds the engine to that: the same logs every run, in another order, on
// fresh processes, and the model's.
#[test]
fn the_same_scenarios_give_the_same_logs_every_time() {
    let scenarios = generated(300);
    let config = RunConfig::default();
    let first = engine().run_batch(&scenarios, &config);
    let model: Vec<_> = scenarios
        .iter()
        .map(|s| nodesem_model::ModelEngine.run(s, &config))
        .collect();
    assert_same(&scenarios, &model, &first, "the model against node");
    for (i, result) in first.iter().enumerate() {
        assert!(
            result.is_ok(),
            "seed {i}: {result:?}\n{}",
            nodesem_lang::print(&scenarios[i])
        );
    }
    for run in 2..=3 {
        let again = engine().run_batch(&scenarios, &config);
        assert_same(&scenarios, &first, &again, &format!("run {run}"));
    }
    // In reverse order, so every scenario follows different neighbours.
    let reversed: Vec<Scenario> = scenarios.iter().rev().cloned().collect();
    let mut again = engine().run_batch(&reversed, &config);
    again.reverse();
    assert_same(&scenarios, &first, &again, "reverse order");
    // One at a time on a fresh process each: the same again, so no
    // scenario's log depends on what ran before it in the same process.
    let node = engine().node_path().to_path_buf();
    let fresh: Vec<_> = scenarios
        .iter()
        .take(10)
        .map(|s| NodeEngine::at(&node).with_workers(1).run(s, &config))
        .collect();
    assert_same(&scenarios, &first[..10], &fresh, "fresh processes");
}

/// Fails with the scenarios whose results differ, each with its first
/// differing line, rather than with two whole batches.
fn assert_same(
    scenarios: &[Scenario],
    expected: &[Result<Log, EngineError>],
    actual: &[Result<Log, EngineError>],
    what: &str,
) {
    let mut report = String::new();
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        if e == a {
            continue;
        }
        let detail = match (e, a) {
            (Ok(e), Ok(a)) => {
                let at = e
                    .lines
                    .iter()
                    .zip(&a.lines)
                    .take_while(|(x, y)| x == y)
                    .count();
                format!(
                    "line {}: {:?} then {:?}",
                    at + 1,
                    e.lines.get(at),
                    a.lines.get(at)
                )
            }
            _ => format!("{e:?} then {a:?}"),
        };
        report.push_str(&format!(
            "seed {i}: {detail}\n{}\n",
            nodesem_lang::print(&scenarios[i])
        ));
    }
    assert!(report.is_empty(), "{what} differs from run 1:\n{report}");
}

#[test]
fn the_standalone_program_prints_what_batch_mode_returns() {
    let scenarios = generated(20);
    let batch = engine().run_batch(&scenarios, &RunConfig::default());
    let dir = tempfile::Builder::new()
        .prefix("nodesem-standalone-")
        .tempdir()
        .unwrap();
    for (seed, (s, expected)) in scenarios.iter().zip(&batch).enumerate() {
        let file = dir.path().join(format!("seed-{seed}.mjs"));
        std::fs::write(&file, emit_program(s, &format!("seed {seed}"))).unwrap();
        let lines = run_standalone(&file, &format!("seed {seed}"));
        assert_eq!(
            Ok(Log { lines }),
            *expected,
            "seed {seed}\n{}",
            emit_body(s)
        );
    }
}

/// Runs an emitted program file with the pinned Node as `nodesem emit-js`
/// users would, asserts that it succeeded, and returns its output lines.
fn run_standalone(file: &std::path::Path, what: &str) -> Vec<String> {
    let out = Command::new(engine().node_path())
        .args(NODE_FLAGS)
        .arg(file)
        .env_remove("NODE_OPTIONS")
        .env_remove("NODE_EXTRA_CA_CERTS")
        .output()
        .unwrap();
    assert!(out.status.success(), "{what}: {out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// A `use module` scenario is a real ES module in both forms: batch mode
/// (the worker imports it through Node's ESM loader) and the standalone
/// program, and both print the model's log, microtasks before ticks.
#[test]
fn a_module_scenario_runs_as_an_es_module_in_batch_and_standalone() {
    let text = "# ES module order.\nuse module\ntick {\n  log \"tick\"\n}\nmicrotask {\n  log \"micro\"\n}\nrun turn\ntick {\n  log \"tick 2\"\n}\nmicrotask {\n  log \"micro 2\"\n}\n";
    let scenario = parse("module.scn", text).unwrap();
    let expected = log(&["micro", "tick", "tick 2", "micro 2"]);
    assert_eq!(engine().run(&scenario, &RunConfig::default()), expected);
    let program = emit_program(&scenario, "module.scn");
    assert!(
        program.contains("// The scenario says `use module`"),
        "{program}"
    );
    assert!(program.contains("\n$.startModule();\n"), "{program}");
    assert!(!program.contains("\n$.start();\n"), "{program}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("module.mjs");
    std::fs::write(&file, &program).unwrap();
    let lines = run_standalone(&file, "module.scn");
    assert_eq!(Ok(Log { lines }), expected);
    // The same statements without the directive: CommonJS order.
    let commonjs = parse("commonjs.scn", &text.replace("use module\n", "")).unwrap();
    assert_eq!(
        engine().run(&commonjs, &RunConfig::default()),
        log(&["tick", "micro", "tick 2", "micro 2"])
    );
}

/// Node never frees a module record, so a worker is retired after
/// `MAX_MODULES_PER_WORKER` module scenarios; a batch longer than that
/// still gets every log.
#[test]
fn module_scenarios_beyond_a_workers_share_all_run() {
    let scenario = parse(
        "m.scn",
        "use module\ntick {\n  log \"t\"\n}\nmicrotask {\n  log \"m\"\n}\n",
    )
    .unwrap();
    let count = nodesem_harness::node::MAX_MODULES_PER_WORKER * 2 + 3;
    let scenarios = vec![scenario; count];
    let results = engine().run_batch(&scenarios, &RunConfig::default());
    assert_eq!(results.len(), count);
    for result in results {
        assert_eq!(result, log(&["m", "t"]));
    }
}
