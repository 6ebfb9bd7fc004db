//! Node workers die with nodesem: no test, signal or kill leaves a Node
//! process running. Each case runs in a process of its own (this test binary
//! started again in a helper mode, or the real `nodesem` binary), which the
//! test then interrupts or kills, and the test looks in `/proc` for the Node
//! workers that process had started.
//!
//! The helpers run the body [`spin`] writes, which creates a marker file and
//! then spins in `for (;;) {}`, so the test knows the worker is busy (it
//! cannot notice that its stdin closed) before it strikes: the helper tests
//! check each mechanism alone (the watchdog, the signal handler,
//! [`kill_all_workers`]); the `nodesem` tests check the whole binary, whose
//! `main` installs a handler that calls [`kill_all_workers`] and exits 130.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use nodesem_harness::node::{
    install_signal_handler, kill_all_workers, pinned_node_path, NodeEngine,
};
use nodesem_lang::{EngineError, RunConfig};

/// The helper mode, for a child process of this test binary.
const HELPER_MODE: &str = "NODESEM_WORKERS_TEST_HELPER";
/// The marker file the helper's scenario creates once it runs.
const HELPER_MARKER: &str = "NODESEM_WORKERS_TEST_MARKER";

/// A body that creates the marker file (a JavaScript string literal) and
/// spins for ever.
fn spin(marker: &Path) -> String {
    let marker = serde_json::to_string(&marker.display().to_string()).unwrap();
    format!(
        "$.segment(() => {{ process.getBuiltinModule(\"node:fs\").writeFileSync({marker}, \"\"); for (;;) {{}} }});"
    )
}

/// The helper processes' body; in a normal test run (no [`HELPER_MODE`]) it
/// returns at once. Modes:
///
/// - `spin`: runs [`spin`] on one worker, for ever;
/// - `handler`: the same after [`install_signal_handler`];
/// - `kill_all`: runs [`spin`] on a thread, waits for the marker, calls
///   [`kill_all_workers`] and checks that the spinning scenario crashed of a
///   SIGKILL (without it, the batch would only end at its 60 s timeout, as
///   a `TimedOut`); prints `helper ok` when it did.
#[test]
fn helper_process() {
    let Ok(mode) = std::env::var(HELPER_MODE) else {
        return;
    };
    let marker = PathBuf::from(std::env::var(HELPER_MARKER).expect("a marker path"));
    let node = pinned_node_path().unwrap_or_else(|e| panic!("{e}"));
    let engine = NodeEngine::at(node)
        .with_timeout(Duration::from_secs(60))
        .with_workers(1);
    let body = spin(&marker);
    match mode.as_str() {
        "spin" => {
            engine.run_js_batch(&[body], &RunConfig::default());
        }
        "handler" => {
            install_signal_handler();
            engine.run_js_batch(&[body], &RunConfig::default());
        }
        "kill_all" => {
            let batch =
                std::thread::spawn(move || engine.run_js_batch(&[body], &RunConfig::default()));
            assert!(
                wait_until(Duration::from_secs(60), || marker.exists()),
                "the scenario never ran"
            );
            kill_all_workers();
            let results = batch.join().unwrap();
            match &results[0] {
                Err(EngineError::Crashed(message)) if message.contains("SIGKILL") => {
                    println!("helper ok");
                }
                other => panic!("kill_all_workers did not kill the worker: {other:?}"),
            }
        }
        other => panic!("unknown helper mode {other}"),
    }
}

/// Starts this test binary again, running only [`helper_process`] in `mode`.
fn start_helper(mode: &str, marker: &Path) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "helper_process",
            "--exact",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(HELPER_MODE, mode)
        .env(HELPER_MARKER, marker)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Polls `done` every 20 ms until it holds or `limit` has passed.
fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + limit;
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The fields of `/proc/PID/stat` after the command name: state, ppid, ...
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    Some(after.split_whitespace().map(String::from).collect())
}

/// Whether a process runs (exists and is not a zombie: in a container whose
/// init does not reap, a killed orphan stays a zombie) and is a Node worker.
fn is_running_worker(pid: u32) -> bool {
    let Some(fields) = stat_fields(pid) else {
        return false;
    };
    if matches!(fields.first().map(String::as_str), Some("Z" | "X")) {
        return false;
    }
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|cmdline| String::from_utf8_lossy(&cmdline).contains("--expose-internals"))
}

/// The running Node workers whose parent is `parent`.
fn workers_of(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| {
            stat_fields(pid).is_some_and(|f| f.get(1).is_some_and(|p| *p == parent.to_string()))
        })
        .filter(|&pid| is_running_worker(pid))
        .collect()
}

/// Waits for `child` to exit, at most `limit`; kills it if it did not.
fn wait_for_exit(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let mut status = None;
    wait_until(limit, || {
        status = child.try_wait().ok().flatten();
        status.is_some()
    });
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    status
}

/// Asserts that every worker in `workers` stops running within 10 s (the
/// watchdog polls every 200 ms); kills the survivors so that a failing test
/// leaves nothing behind.
fn assert_workers_end(workers: &[u32], what: &str) {
    let ended = wait_until(Duration::from_secs(10), || {
        workers.iter().all(|&pid| !is_running_worker(pid))
    });
    let survivors: Vec<u32> = workers
        .iter()
        .copied()
        .filter(|&pid| is_running_worker(pid))
        .collect();
    for &pid in &survivors {
        let _ = kill(Pid::from_raw(pid as i32), Signal::SIGKILL);
    }
    assert!(ended, "{what}: node workers {survivors:?} survived");
}

/// Starts a helper, waits until its scenario spins, and returns it with
/// its workers.
fn spinning_helper(mode: &str, marker: &Path) -> (Child, Vec<u32>) {
    let mut helper = start_helper(mode, marker);
    let pid = helper.id();
    let ran = wait_until(Duration::from_secs(60), || marker.exists());
    let workers = workers_of(pid);
    if !ran || workers.is_empty() {
        let _ = helper.kill();
        let output = helper.wait_with_output().unwrap();
        panic!(
            "the helper's scenario did not run on a worker (ran: {ran}): {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    (helper, workers)
}

#[test]
fn a_sigkilled_parent_takes_its_spinning_worker_along() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("running");
    let (mut helper, workers) = spinning_helper("spin", &marker);
    helper.kill().unwrap(); // SIGKILL: no handler runs, only the watchdog can act
    let _ = helper.wait();
    assert_workers_end(&workers, "after SIGKILL of their parent");
}

#[test]
fn sigterm_kills_the_workers_and_exits_130_with_the_handler() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("running");
    let (mut helper, workers) = spinning_helper("handler", &marker);
    kill(Pid::from_raw(helper.id() as i32), Signal::SIGTERM).unwrap();
    let status = wait_for_exit(&mut helper, Duration::from_secs(30));
    assert_workers_end(&workers, "after SIGTERM");
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(130),
        "the handler exits with 130: {status:?}"
    );
}

#[test]
fn kill_all_workers_kills_a_spinning_worker() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("running");
    let helper = start_helper("kill_all", &marker);
    let output = helper.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("helper ok"),
        "{}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

// ---- the nodesem binary -----------------------------------------------------

/// A valid scenario that keeps Node busy for about a second with `--budget
/// 10000000 --work 1000000000`: every dispatch queues an immediate that
/// dispatches again.
const SLOW: &str = "let t = target
on t again {
  setImmediate {
    dispatch t again
  }
}
dispatch t again
";

/// The CPU time a process has used, in clock ticks (utime + stime).
fn cpu_ticks(pid: u32) -> u64 {
    stat_fields(pid).map_or(0, |f| {
        f.iter()
            .skip(11)
            .take(2)
            .filter_map(|t| t.parse::<u64>().ok())
            .sum()
    })
}

/// Starts `nodesem run` on 20 copies of [`SLOW`] on the pinned Node and
/// waits until a worker has used half a second of CPU (starting uses a
/// tenth of that), so it is running a scenario, busy for seconds more.
fn nodesem_with_a_busy_worker(dir: &Path) -> (Child, Vec<u32>) {
    // Installs the pinned Node first, so that nodesem finds it at once.
    pinned_node_path().unwrap_or_else(|e| panic!("{e}"));
    for i in 0..20 {
        std::fs::write(dir.join(format!("slow{i}.scn")), SLOW).unwrap();
    }
    let mut nodesem = Command::new(env!("CARGO_BIN_EXE_nodesem"))
        .arg("run")
        .arg(dir)
        .args([
            "--engine",
            "node",
            "--budget",
            "10000000",
            "--work",
            "1000000000",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = nodesem.id();
    let mut workers = Vec::new();
    let busy = wait_until(Duration::from_secs(60), || {
        workers = workers_of(pid);
        workers.iter().any(|&w| cpu_ticks(w) >= 50)
    });
    if !busy {
        let _ = nodesem.kill();
        let output = nodesem.wait_with_output().unwrap();
        panic!(
            "nodesem had no busy worker ({workers:?}): {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    (nodesem, workers)
}

#[test]
fn nodesem_leaves_no_worker_after_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let (mut nodesem, workers) = nodesem_with_a_busy_worker(dir.path());
    kill(Pid::from_raw(nodesem.id() as i32), Signal::SIGTERM).unwrap();
    let status = wait_for_exit(&mut nodesem, Duration::from_secs(30));
    assert_workers_end(&workers, "after SIGTERM of nodesem");
    // main.rs's handler kills the workers (kill_all_workers) and exits 130.
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(130),
        "nodesem's SIGTERM handler exits with 130: {status:?}"
    );
}

#[test]
fn nodesem_leaves_no_worker_after_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let (mut nodesem, workers) = nodesem_with_a_busy_worker(dir.path());
    nodesem.kill().unwrap();
    let _ = nodesem.wait();
    assert_workers_end(&workers, "after SIGKILL of nodesem");
}
