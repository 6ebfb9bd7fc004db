//! Tidy checks, as ordinary tests: module docs, the dependency rules of
//! DESIGN.md, pure engines, cited Node notes and documented scenarios.

use std::path::{Path, PathBuf};

use nodesem_conformance::{curated_scenarios, root};

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path
                .file_name()
                .is_some_and(|n| n == "target" || n == "snapshots")
            {
                continue;
            }
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

const CRATES: &[&str] = &[
    "lang", "runtime", "model", "impl", "harness", "fuzz", "tests",
];

#[test]
fn every_module_says_why_it_exists() {
    let mut missing = Vec::new();
    for krate in CRATES {
        for file in rust_files(&root().join(krate)) {
            let text = std::fs::read_to_string(&file).unwrap();
            if !text.trim_start().starts_with("//!") {
                missing.push(file.strip_prefix(root()).unwrap().display().to_string());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "files without a `//!` module doc: {missing:?}"
    );
}

fn dependencies(krate: &str) -> String {
    let manifest = std::fs::read_to_string(root().join(krate).join("Cargo.toml")).unwrap();
    // Everything after [dependencies] (dev-dependencies included).
    manifest
        .split("[dependencies]")
        .nth(1)
        .unwrap_or_default()
        .to_string()
}

#[test]
fn dependency_rules_hold() {
    assert!(
        !dependencies("model").contains("nodesem-impl"),
        "model must not depend on impl"
    );
    assert!(
        !dependencies("impl").contains("nodesem-model"),
        "impl must not depend on model"
    );
    for engine in [
        "nodesem-runtime",
        "nodesem-model",
        "nodesem-impl",
        "nodesem-harness",
    ] {
        assert!(
            !dependencies("lang").contains(engine),
            "lang must not depend on {engine}"
        );
    }
    for library in ["nodesem-model", "nodesem-impl", "nodesem-harness"] {
        assert!(
            !dependencies("runtime").contains(library),
            "runtime must not depend on {library}"
        );
    }
}

#[test]
fn engines_are_pure() {
    // No I/O, no clock, no threads, no environment in the engines.
    let forbidden = [
        "std::fs",
        "std::time",
        "std::thread",
        "std::env",
        "std::process",
        "println!",
        "eprintln!",
        "Instant::",
    ];
    let mut found = Vec::new();
    for krate in ["runtime", "model", "impl"] {
        for file in rust_files(&root().join(krate).join("src")) {
            let text = std::fs::read_to_string(&file).unwrap();
            for word in forbidden {
                if text.contains(word) {
                    found.push(format!(
                        "{} uses {word}",
                        file.strip_prefix(root()).unwrap().display()
                    ));
                }
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn every_node_note_carries_a_link() {
    let mut bad = Vec::new();
    for krate in ["runtime", "model", "impl"] {
        for file in rust_files(&root().join(krate).join("src")) {
            let text = std::fs::read_to_string(&file).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                // A note is a comment line that starts with `NODE:`; its link
                // may be on one of the note's next lines.
                let comment = line.trim_start();
                let body = comment.trim_start_matches(['/', '!']).trim_start();
                if comment.starts_with("//") && body.starts_with("NODE:") {
                    let note = lines[i..lines.len().min(i + 4)].join(" ");
                    if !note.contains("https://") {
                        let path = file.strip_prefix(root()).unwrap().display().to_string();
                        bad.push(format!("{path}:{}", i + 1));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "NODE: notes without a link: {bad:?}");
}

#[test]
fn every_curated_scenario_says_what_it_pins_down() {
    let mut bad = Vec::new();
    for relative in curated_scenarios() {
        let text = std::fs::read_to_string(root().join(&relative)).unwrap();
        if !text.starts_with('#') {
            bad.push(relative.display().to_string());
        }
    }
    assert!(
        bad.is_empty(),
        "scenarios that do not start with a comment: {bad:?}"
    );
}

#[test]
fn every_curated_scenario_is_in_canonical_form() {
    // `nodesem fmt` leaves every file as it is, so that a scenario's diff in a
    // pull request shows only what changed in it.
    let mut bad = Vec::new();
    for relative in curated_scenarios() {
        let text = std::fs::read_to_string(root().join(&relative)).unwrap();
        let scenario = nodesem_lang::parse(&relative.display().to_string(), &text).unwrap();
        if nodesem_lang::print(&scenario) != text {
            bad.push(relative.display().to_string());
        }
    }
    assert!(
        bad.is_empty(),
        "not in canonical form (run `nodesem fmt`): {bad:?}"
    );
}

/// Tests make temporary files only through the tempfile crate, whose guards
/// remove them, and nothing reads JavaScript from a shared temporary folder:
/// the standard library's temporary-folder function appears nowhere.
#[test]
fn temporary_files_come_from_tempfile_only() {
    let needle = ["std::env::", "temp_dir()"].concat();
    let mut found = Vec::new();
    for krate in CRATES {
        for file in rust_files(&root().join(krate)) {
            let text = std::fs::read_to_string(&file).unwrap();
            if text.contains(&needle) {
                found.push(file.strip_prefix(root()).unwrap().display().to_string());
            }
        }
    }
    assert!(found.is_empty(), "{needle} in {found:?}");
}
