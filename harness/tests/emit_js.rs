//! Tests of the JavaScript emitter: the exact shape of emitted bodies on
//! small scenarios (insta snapshots, reviewed by reading them), and that the
//! standalone program of every curated scenario and of 200 generated ones is
//! JavaScript the pinned Node accepts (`node --check`).

use std::path::{Path, PathBuf};
use std::process::Command;

use insta::assert_snapshot;
use nodesem_harness::emit::{emit_body, emit_program};
use nodesem_harness::node::pinned_node_path;
use nodesem_lang::gen::generate_from_seed;
use nodesem_lang::{parse, Scenario};

fn scenario(text: &str) -> Scenario {
    parse("test.scn", text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn body(text: &str) -> String {
    emit_body(&scenario(text))
}

#[test]
fn segments_runs_and_top_level_bindings() {
    assert_snapshot!(body(
        r#"# The contract's ordering example.
let c = controller
let t = target
let l1 = fn {
  log "l1" event.type c.signal.aborted
}
on t foo l1 once
tick {
  log "tick"
}
microtask {
  log "micro"
}
setTimeout 10 {
  log "t10"
}
setImmediate {
  log "imm"
}
let r = dispatch t foo cancelable
log "dispatched" r
run idle
try {
  throwIfAborted c.signal
}
abort c "boom"
log c.signal.reason
run advance 5
run turn
"#
    ));
}

#[test]
fn abort_operations() {
    assert_snapshot!(body(
        r#"let a = controller
let b = controller
let ab = any [a.signal, b.signal, a.signal]
let gone = aborted "early"
let plain = aborted
let slow = timeout 50
onabort a.signal {
  log "onabort" event.type
}
onabort b.signal null
let d = addAbortListener ab {
  log "listener" ab.reason
}
dispose d
abort a
abort b Error("why")
log gone.reason plain.aborted slow.aborted
"#
    ));
}

#[test]
fn max_listeners_operations() {
    assert_snapshot!(body(
        r#"let t = target
let c = controller
setMaxListeners 2 t c.signal
setMaxListeners undefined t
let m = getMaxListeners c.signal
log m
on t go null
"#
    ));
}

#[test]
fn listeners_options_and_dispatch() {
    assert_snapshot!(body(
        r#"let c = controller
let t = target
let f = fn {
  preventDefault event
  stopImmediatePropagation event
}
on t x f
on t x f capture
on t x once capture passive signal c.signal {
  stopPropagation event
  off t x f capture
  off t x f
}
on t "with space" {
  log event.type event.target event.cancelable
}
dispatch t x
let ok = dispatch t x cancelable
log ok
"#
    ));
}

#[test]
fn callbacks_try_return_and_promises() {
    assert_snapshot!(body(
        r#"let p = promise
let q = then p {
  try {
    let inner = controller
    return inner.signal
  }
  return 1
} else {
  log "rejected" reason
  throw reason
}
let r = catch q {
  log reason.message
}
finally r {
  log "finally"
}
then q
let th = thenable -9007199254740991
resolve p th
reject p
let one = resolved 1
let two = rejected Error("no")
catch two {
  log "caught" reason
}
then one else {
  log "not reached"
}
let h = setTimeout 0 {
}
clearTimeout h
let i = setImmediate {
  log "\"quoted\"\n\u{2028}"
}
clearImmediate i
"#
    ));
}

#[test]
fn standalone_program_shape() {
    let program = emit_program(
        &scenario("let c = controller\nabort c \"boom\"\nlog c.signal.reason\n"),
        "scenarios/abort/example.scn",
    );
    // The prelude is long; the snapshot keeps what surrounds it.
    let prelude = nodesem_harness::emit::PRELUDE_JS;
    let start = program.find(prelude).expect("the prelude is inlined");
    let head = &program[..start];
    let tail = &program[start + prelude.len()..];
    assert_snapshot!(format!("{head}<prelude.js>\n{tail}"));
}

#[test]
fn a_top_level_binding_named_like_the_programs_own_gets_a_block() {
    let program = emit_program(&scenario("let createScenario = controller\n"), "x.scn");
    assert!(program.contains("{\n  let createScenario;\n"), "{program}");
}

/// The curated scenarios, sorted.
fn curated_scenarios() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    nodesem_harness::check::scenario_files(&[root]).expect("scenarios/ is readable")
}

#[test]
fn every_emitted_program_passes_node_check() {
    let node = pinned_node_path().unwrap_or_else(|e| panic!("{e}"));
    let mut programs: Vec<(String, String)> = Vec::new();
    for path in curated_scenarios() {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        let s = parse(&name, &text).unwrap_or_else(|e| panic!("{e}"));
        programs.push((name.clone(), emit_program(&s, &name)));
    }
    for seed in 0..200 {
        let s = generate_from_seed(seed, 1500);
        let name = format!("generated seed {seed} size 1500");
        programs.push((name.clone(), emit_program(&s, &name)));
    }

    let temp = tempfile::Builder::new()
        .prefix("nodesem-emit-check-")
        .tempdir()
        .unwrap();
    let dir = temp.path();
    let files: Vec<(String, PathBuf)> = programs
        .iter()
        .enumerate()
        .map(|(i, (name, program))| {
            let file = dir.join(format!("scenario-{i}.mjs"));
            std::fs::write(&file, program).unwrap();
            (name.clone(), file)
        })
        .collect();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let (files, node) = (&files, &node);
                scope.spawn(move || {
                    let mut failures = Vec::new();
                    for (name, file) in files.iter().skip(w).step_by(workers) {
                        let out = Command::new(node)
                            .arg("--check")
                            .arg(file)
                            .env_remove("NODE_OPTIONS")
                            .env_remove("NODE_EXTRA_CA_CERTS")
                            .output()
                            .unwrap();
                        if !out.status.success() {
                            failures.push(format!(
                                "{name} ({}):\n{}",
                                file.display(),
                                String::from_utf8_lossy(&out.stderr)
                            ));
                        }
                    }
                    failures
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    if !failures.is_empty() {
        // Keep the programs for a look at what Node refused.
        let kept = temp.keep();
        eprintln!("the programs are kept in {}", kept.display());
    }
    assert!(
        failures.is_empty(),
        "{} of {} programs fail node --check:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
