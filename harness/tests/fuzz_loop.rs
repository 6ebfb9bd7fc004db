//! The fuzz loop end to end: the shrinker keeps a divergence and makes it
//! small, `nodesem fuzz` writes one finding per cause and resumes without
//! reporting it again, every finding replays with `nodesem diff`, and
//! `nodesem mutants` finds every mutant of impl from generated scenarios
//! alone (no curated file in the run).

mod common;

use common::{nodesem, root};
use std::process::Command;

use nodesem_harness::engines::Guarded;
use nodesem_harness::oracle::{run_both, small_config};
use nodesem_harness::shrink::{divergence, shrink, statements, ShrinkConfig};
use nodesem_impl::{ImplEngine, Mutant};
use nodesem_lang::gen::generate_from_seed;
use nodesem_lang::{parse, validate, Engine, RunConfig};
use nodesem_model::ModelEngine;

#[test]
fn the_shrinker_keeps_the_divergence_and_makes_it_small() {
    let model = Guarded(ModelEngine);
    let config = RunConfig::default();
    let mut shrunk_sizes = Vec::new();
    for mutant in [
        Mutant::AbortTwice,
        Mutant::RemovedListenerRuns,
        Mutant::OnceRemovedAfterCall,
        Mutant::TypeInternedByLength,
        Mutant::DependantsAbortedLate,
    ] {
        let mutated = Guarded(ImplEngine {
            mutant: Some(mutant),
        });
        let engines: [&dyn Engine; 2] = [&model, &mutated];
        let mut found = 0;
        for seed in 0..1000 {
            let scenario = generate_from_seed(seed, 4096);
            let Some(signature) = divergence(engines, &scenario, &config) else {
                continue;
            };
            let shrunk = shrink(engines, &scenario, &signature, &ShrinkConfig::default());
            assert!(
                validate(&shrunk.scenario).is_ok(),
                "{mutant} seed {seed}: invalid"
            );
            assert_eq!(
                divergence(engines, &shrunk.scenario, &config).as_ref(),
                Some(&signature),
                "{mutant} seed {seed}: the shrunk scenario lost the divergence"
            );
            assert!(statements(&shrunk.scenario) <= statements(&scenario));
            shrunk_sizes.push(statements(&shrunk.scenario));
            found += 1;
            if found == 3 {
                break;
            }
        }
        assert!(found >= 1, "{mutant} diverges on some seed");
    }
    shrunk_sizes.sort();
    let median = shrunk_sizes[shrunk_sizes.len() / 2];
    assert!(median <= 8, "median shrunk size {median}: {shrunk_sizes:?}");
}

#[test]
fn the_shrinker_lowers_a_repeat_count_to_what_the_divergence_needs() {
    // The mutant fires a second abort: two aborts are the least that show
    // it, so of `repeat 9` the shrinker keeps `repeat 2`, and drops the
    // statements that do not matter.
    let text = "let c = controller\nlet t = target\non c.signal abort {\n  log \"fired\"\n}\nrepeat 9 {\n  abort c\n  dispatch t go\n}\n";
    let scenario = parse("repeat.scn", text).unwrap();
    let model = Guarded(ModelEngine);
    let mutated = Guarded(ImplEngine {
        mutant: Some(Mutant::AbortTwice),
    });
    let engines: [&dyn Engine; 2] = [&model, &mutated];
    let config = RunConfig::default();
    let signature = divergence(engines, &scenario, &config).expect("the mutant diverges");
    let shrunk = shrink(engines, &scenario, &signature, &ShrinkConfig::default());
    let printed = nodesem_lang::print(&shrunk.scenario);
    assert!(printed.contains("repeat 2 {"), "{printed}");
    assert!(!printed.contains("dispatch"), "{printed}");
}

#[test]
fn fuzz_writes_each_cause_once_and_resumes() {
    let dir = tempfile::Builder::new()
        .prefix("nodesem-fuzz-")
        .tempdir()
        .unwrap();
    let out = dir.path().display().to_string();
    let args = [
        "fuzz",
        "--a",
        "model",
        "--b",
        "impl+abort-twice",
        "--runs",
        "300",
        "--out",
        &out,
        "--format",
        "json",
    ];
    let first = nodesem(&args);
    assert_eq!(first.status.code(), Some(1), "new groups exit 1");
    let summary: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(summary["executions"], 300);
    let groups = summary["groups"].as_u64().unwrap();
    assert!(groups >= 1, "{summary}");
    assert!(summary["findings"].as_u64().unwrap() >= groups);

    let mut ids = Vec::new();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            !name.starts_with(".tmp"),
            "a temporary file was left: {name}"
        );
        if let Some(id) = name.strip_suffix(".orig.scn") {
            ids.push(id.to_string());
        }
    }
    assert_eq!(ids.len() as u64, groups);
    for id in &ids {
        for suffix in [".scn", ".diff", ".orig.scn"] {
            assert!(
                dir.path().join(format!("{id}{suffix}")).is_file(),
                "{id}{suffix}"
            );
        }
        let finding = dir.path().join(format!("{id}.scn"));
        let text = std::fs::read_to_string(&finding).unwrap();
        assert!(
            text.starts_with(&format!("# nodesem finding {id}\n")),
            "{text}"
        );
        assert!(
            text.contains("# engines: model vs impl+abort-twice\n"),
            "{text}"
        );
        parse("finding.scn", &text).expect("a finding parses");
        let replay = nodesem(&[
            "diff",
            finding.to_str().unwrap(),
            "--a",
            "model",
            "--b",
            "impl+abort-twice",
        ]);
        assert_eq!(replay.status.code(), Some(1), "the finding replays: {text}");
    }

    // A second run into the same folder goes on from seed 300 and reports
    // no group again.
    let second = nodesem(&args);
    let summary: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(summary["next_seed"], 600, "{summary}");
    let again: Vec<&str> = summary["new_groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["id"].as_str())
        .filter(|id| ids.iter().any(|known| known == id))
        .collect();
    assert!(again.is_empty(), "reported again: {again:?}");
}

#[test]
fn a_stream_finding_names_its_family_and_replays() {
    let dir = tempfile::Builder::new()
        .prefix("nodesem-fuzz-streams-")
        .tempdir()
        .unwrap();
    let out = dir.path().display().to_string();
    let mutated = "impl+pull-again-lost";
    let run = nodesem(&[
        "fuzz", "--a", "model", "--b", mutated, "--family", "streams", "--runs", "50", "--out",
        &out, "--format", "json",
    ]);
    assert_eq!(run.status.code(), Some(1), "new groups exit 1");
    let mut findings = 0;
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(id) = name.strip_suffix(".orig.scn") else {
            continue;
        };
        findings += 1;
        let text = std::fs::read_to_string(dir.path().join(format!("{id}.scn"))).unwrap();
        // The header says how to print the original: with the family.
        let seed: u64 = text
            .lines()
            .find_map(|l| l.strip_prefix("# seed: "))
            .and_then(|l| l.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("a seed line: {text}"));
        assert!(
            text.contains(&format!(
                "(nodesem gen --family streams --seed {seed} --count 1 prints the original;"
            )),
            "{text}"
        );
        let original = std::fs::read_to_string(&path).unwrap();
        let printed = nodesem(&[
            "gen",
            "--family",
            "streams",
            "--seed",
            &seed.to_string(),
            "--count",
            "1",
        ]);
        let printed = String::from_utf8(printed.stdout).unwrap();
        assert_eq!(
            printed.trim_start_matches(&format!("# seed {seed}\n")),
            original,
            "{id}: the original is the generator's"
        );
        let replay = nodesem(&[
            "diff",
            dir.path().join(format!("{id}.scn")).to_str().unwrap(),
            "--a",
            "model",
            "--b",
            mutated,
        ]);
        assert_eq!(replay.status.code(), Some(1), "the finding replays: {text}");
    }
    assert!(findings >= 1);
}

#[test]
fn mutants_are_found_by_generated_scenarios_alone() {
    // Bounded by scenarios, not time, so the outcome does not depend on the
    // machine's speed. The time figures are the command's to report.
    let out = nodesem(&[
        "mutants", "--runs", "100000", "--time", "1h", "--format", "json",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let mutants = report["mutants"].as_array().unwrap();
    assert_eq!(mutants.len(), Mutant::ALL.len());
    for m in mutants {
        assert_eq!(m["detected"], true, "{m}");
        assert!(m["shrunk_statements"].as_u64().unwrap() <= 25, "{m}");
    }
    assert!(
        report["median_shrunk_statements"].as_f64().unwrap() <= 8.0,
        "{report}"
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn no_engine_panics_under_small_limits() {
    // The glue of the engines_never_panic fuzz target, on seeds.
    for seed in 0..300u64 {
        let scenario = generate_from_seed(seed, 2048);
        let b = seed.to_le_bytes();
        run_both(
            &scenario,
            &small_config([b[0], b[1] ^ b[2], b[3], b[4] ^ 0x5a]),
        );
    }
}

#[test]
fn the_first_ctrl_c_ends_a_fuzz_run_with_its_summary() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    use std::io::Read;
    let dir = tempfile::Builder::new()
        .prefix("nodesem-fuzz-int-")
        .tempdir()
        .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_nodesem"))
        .args([
            "fuzz", "--a", "model", "--b", "impl", "--time", "1h", "--format", "json", "--out",
        ])
        .arg(dir.path())
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the run has saved its state once, then interrupt it.
    let state = dir.path().join("state.json");
    for _ in 0..600 {
        if state.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(state.exists(), "the run saved no state");
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "no group, a clean end: {stdout}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert!(summary["executions"].as_u64().unwrap() > 0);
    assert_eq!(
        summary["next_seed"], saved["next_seed"],
        "the summary is what was saved"
    );
}
