//! Hostile input, as an attacker or a fuzzer would write it: each test runs
//! the real `nodesem` binary on one attack with a bound on its time and, for
//! the in-process engines, on its address space, and asserts what must
//! happen: the exit code, the message, and that nothing ran that the
//! scenario did not say.
//!
//! The bounds are limits for a hang or a memory blow-up, not timings: a run
//! that ends within them passes whatever it took.

use nodesem_conformance::root;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nodesem_lang::printer::quote;

/// What one run printed.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// How long any one attack may take before it counts as a hang.
const HANG: Duration = Duration::from_secs(120);

/// The address space an in-process run may use (`ulimit -v`, in KiB): a
/// run that tried to read `/dev/zero` whole or to build a 500 MB log fails
/// against it instead of swapping the machine.
const MEMORY_KIB: u64 = 3 << 20;

/// Runs `nodesem ARGS` under `ulimit -v` (when `bounded`) with a hang limit.
fn nodesem_with(args: &[&str], bounded: bool) -> Run {
    let bin = env!("CARGO_BIN_EXE_nodesem");
    let mut command = if bounded {
        let mut c = Command::new("bash");
        c.arg("-c")
            .arg(format!("ulimit -v {MEMORY_KIB} && exec \"$0\" \"$@\""))
            .arg(bin);
        c
    } else {
        Command::new(bin)
    };
    let mut child = command
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nodesem starts");
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stdout.read_to_end(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stderr.read_to_end(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("nodesem {args:?} hung for more than {HANG:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.code(),
        stdout: String::from_utf8_lossy(&out.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&err.join().unwrap()).into_owned(),
    }
}

fn nodesem(args: &[&str]) -> Run {
    nodesem_with(args, true)
}

fn write(dir: &Path, name: &str, text: impl AsRef<[u8]>) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn temp() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("nodesem-reliability-")
        .tempdir()
        .unwrap()
}

/// The model's log of a scenario, through the binary.
fn model_log(file: &str) -> String {
    let run = nodesem(&["run", file, "--engine", "model"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    run.stdout
}

// ---- code injection into the oracle ---------------------------------------------------------

/// The text an attacker hides behind a line terminator that JavaScript
/// honours and the scenario language does not: if it ran, it would print a
/// line and create a file.
fn injection(marker: &Path) -> String {
    format!(
        "console.log(\"INJECTED\");process.getBuiltinModule(\"fs\").writeFileSync({:?},\"x\")",
        marker.display().to_string()
    )
}

#[test]
fn no_comment_string_or_file_name_runs_code_on_node() {
    let dir = temp();
    let marker = dir.path().join("ran");
    let code = injection(&marker);
    let mut scenario = String::new();
    for terminator in ['\u{2028}', '\u{2029}'] {
        scenario.push_str(&format!("# x{terminator}{code}\n"));
        let text = format!("y{terminator}\"){code}//");
        scenario.push_str(&format!("log {}\n", quote(&text)));
        scenario.push_str(&format!("# \\u{{2028}} */ {terminator}*/{code}//\n"));
    }
    scenario.push_str("let t = target\n");
    let event_type = quote(&format!("e\u{2028}\"){code}//"));
    scenario.push_str(&format!("on t {event_type} {{\n  log event.type\n}}\n"));
    scenario.push_str(&format!("dispatch t {event_type}\n"));
    // A file name with a line terminator reaches the emitted header.
    let file = write(
        dir.path(),
        "name\u{2028}console.log(\"INJECTED BY NAME\");.scn",
        &scenario,
    );
    let expected = model_log(&file);
    assert!(
        expected.contains("INJECTED"),
        "the strings are logged as text"
    );

    let on_node = nodesem_with(&["run", &file, "--engine", "node"], false);
    assert_eq!(on_node.code, Some(0), "{}", on_node.stderr);
    assert_eq!(on_node.stdout, expected);

    let program = nodesem(&["emit-js", &file]);
    assert_eq!(program.code, Some(0), "{}", program.stderr);
    for c in ['\u{2028}', '\u{2029}', '\r'] {
        assert!(
            !program.stdout.contains(c),
            "a raw {c:?} reached the program"
        );
    }
    let js = write(dir.path(), "program.mjs", &program.stdout);
    let node = nodesem_harness::node::pinned_node_path().expect("the pinned node");
    let out = Command::new(node)
        .args(nodesem_harness::emit::NODE_FLAGS)
        .arg(&js)
        .env_remove("NODE_OPTIONS")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
    assert!(!expected.contains("INJECTED BY NAME"));
    assert!(!marker.exists(), "the injected code ran");
}

// ---- nesting and size -----------------------------------------------------------------------

#[test]
fn deep_nesting_is_a_diagnostic_for_every_command() {
    let dir = temp();
    // About 60 KB of nested blocks, then 1 MB: both once overflowed the stack (exit 134).
    for (name, depth) in [("deep60k.scn", 5_000), ("deep1m.scn", 80_000)] {
        let mut text = String::new();
        for _ in 0..depth {
            text.push_str("microtask {\n");
        }
        for _ in 0..depth {
            text.push_str("}\n");
        }
        let text = &text[..text.len().min(nodesem_lang::limits::MAX_SOURCE_BYTES)];
        let file = write(dir.path(), name, text);
        for args in [
            vec!["fmt", &file],
            vec!["run", &file],
            vec!["check", &file],
            vec!["emit-js", &file],
        ] {
            let run = nodesem(&args);
            assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
            assert!(
                run.stderr.contains(&format!(
                    "{file}:{}:",
                    nodesem_lang::limits::MAX_NESTING + 1
                )),
                "{args:?}: {}",
                run.stderr
            );
            assert!(run.stdout.is_empty());
        }
    }
}

#[test]
fn limits_beyond_their_maxima_are_refused_before_anything_runs() {
    for (flag, value, says) in [
        ("--max-depth", "2000", "callback depth"),
        ("--budget", "0", "callback budget"),
        ("--work", "0", "work budget"),
        ("--max-log-bytes", "0", "log limit"),
        ("--generated", "1000000000", "--generated is at most"),
    ] {
        let run = nodesem(&["check", "scenarios/abort/any_basic.scn", flag, value]);
        assert_eq!(run.code, Some(2), "{flag} {value}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{flag} {value}: {}", run.stderr);
    }
    let run = nodesem(&[
        "check",
        "scenarios/abort/any_basic.scn",
        "--max-depth",
        "256",
    ]);
    assert_eq!(
        run.code,
        Some(0),
        "the maximum itself is allowed: {}",
        run.stderr
    );
}

#[test]
fn integers_beyond_the_safe_range_are_refused() {
    let dir = temp();
    let file = write(dir.path(), "big.scn", "log 9007199254740993\n");
    let run = nodesem(&["run", &file]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains(&format!("{file}:1:5:")),
        "{}",
        run.stderr
    );
    let file = write(
        dir.path(),
        "max.scn",
        "log 9007199254740991 -9007199254740991\n",
    );
    assert_eq!(model_log(&file), "9007199254740991 -9007199254740991\n");
}

#[test]
fn a_log_of_more_values_than_node_can_compile_is_refused() {
    let dir = temp();
    let text = format!("log{}\n", " 1".repeat(65_526));
    let file = write(dir.path(), "wide.scn", text);
    let run = nodesem(&["run", &file]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains(&format!("{file}:1:")), "{}", run.stderr);
}

// ---- runaway work -------------------------------------------------------------------------------

/// A listener that logs a long string, dispatched many times: 10 KB of
/// scenario that once built a 500 MB log.
fn long_log_scenario() -> String {
    let long = "a".repeat(4000);
    let mut text = String::from("let t = target\non t x {\n");
    text.push_str(&format!("  log \"{long}\" \"{long}\"\n"));
    text.push_str("}\n");
    for _ in 0..200 {
        text.push_str("dispatch t x\n");
    }
    text
}

/// Listeners that add listeners that add listeners: the walks and the
/// duplicate checks grow quadratically while few callbacks run.
fn listener_storm_scenario() -> String {
    fn body(depth: usize, text: &mut String) {
        if depth == 5 {
            return;
        }
        for _ in 0..5 {
            text.push_str(&"  ".repeat(depth));
            text.push_str("on t x {\n");
            body(depth + 1, text);
            text.push_str(&"  ".repeat(depth));
            text.push_str("}\n");
        }
    }
    let mut text = String::from("let t = target\n");
    body(0, &mut text);
    text.push_str("dispatch t x\ndispatch t x\n");
    text
}

#[test]
fn runaway_scenarios_stop_with_the_same_budget_line_everywhere() {
    let dir = temp();
    let cases = [
        (
            write(dir.path(), "long_log.scn", long_log_scenario()),
            "budget exhausted: the log would be larger than 1048576 bytes",
        ),
        (
            write(dir.path(), "storm.scn", listener_storm_scenario()),
            "budget exhausted: more than 1000000 steps of work",
        ),
    ];
    for (file, line) in &cases {
        let log = model_log(file);
        assert_eq!(log.lines().last(), Some(*line), "{file}");
        assert!(
            log.len() <= 1 << 20,
            "{file}: the log stays within its limit"
        );
        let run = nodesem(&["check", file, "--engines", "model,impl"]);
        assert_eq!(run.code, Some(0), "{file}: {}", run.stdout);
        let run = nodesem_with(&["check", file, "--engines", "model,node"], false);
        assert_eq!(run.code, Some(0), "{file}: {}{}", run.stdout, run.stderr);
    }
}

// ---- paths and files ------------------------------------------------------------------------

#[test]
fn a_device_or_an_oversized_file_is_refused_before_it_is_read() {
    let run = nodesem(&["run", "/dev/zero"]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("/dev/zero: not a regular file"),
        "{}",
        run.stderr
    );

    let dir = temp();
    let big = "# padding\n".repeat(nodesem_lang::limits::MAX_SOURCE_BYTES / 10 + 1);
    let file = write(dir.path(), "big.scn", big);
    let run = nodesem(&["fmt", &file]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr
            .contains("more than the 1048576 a scenario may have"),
        "{}",
        run.stderr
    );
}

#[test]
fn symlinked_folders_are_walked_once() {
    let dir = temp();
    let inner = dir.path().join("inner");
    std::fs::create_dir(&inner).unwrap();
    write(&inner, "a.scn", "log \"a\"\n");
    std::os::unix::fs::symlink(dir.path(), inner.join("loop")).unwrap();
    std::os::unix::fs::symlink(&inner, dir.path().join("again")).unwrap();
    let shown = dir.path().display().to_string();
    let run = nodesem(&["check", &shown, "--format", "json"]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["scenarios"], 1, "{}", run.stdout);
}

#[test]
fn an_empty_check_and_a_missing_deviations_file_are_errors() {
    let dir = temp();
    let shown = dir.path().display().to_string();
    let run = nodesem(&["check", &shown]);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("nothing to check"), "{}", run.stderr);
    let run = nodesem(&["check", &shown, "--generated", "3"]);
    assert_eq!(
        run.code,
        Some(0),
        "generated scenarios alone are a check: {}",
        run.stderr
    );

    let missing = dir.path().join("none.toml").display().to_string();
    let run = nodesem(&[
        "check",
        "scenarios/abort/any_basic.scn",
        "--deviations",
        &missing,
    ]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr
            .contains(&format!("cannot read the deviations file {missing}")),
        "{}",
        run.stderr
    );
}

#[test]
fn io_errors_are_said_once_and_bad_bytes_get_a_position() {
    let run = nodesem(&["run", "no/such/file.scn"]);
    assert_eq!(run.code, Some(2));
    assert_eq!(
        run.stderr.matches("No such file or directory").count(),
        1,
        "{}",
        run.stderr
    );

    let dir = temp();
    let file = write(dir.path(), "latin1.scn", b"log \"ok\"\nlog \"caf\xe9\"\n");
    let run = nodesem(&["run", &file]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains(&format!("{file}:2:9:")),
        "{}",
        run.stderr
    );

    let file = write(dir.path(), "open.scn", "log 1\nmicrotask {\n  log 2\n");
    let run = nodesem(&["run", &file]);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains(&format!("{file}:3:")), "{}", run.stderr);
    assert!(run.stderr.contains("line 2"), "{}", run.stderr);
}
