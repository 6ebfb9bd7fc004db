//! Support for the conformance tests: where the curated scenarios and their
//! snapshots live, and how a scenario's snapshot is named.
//!
//! The root package exists so that cargo-insta finds the top-level
//! `snapshots/` folder (it looks for snapshots inside package folders only).

use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every curated scenario file, sorted, as paths relative to the root.
pub fn curated_scenarios() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "scn") {
                out.push(
                    path.strip_prefix(root())
                        .expect("under the root")
                        .to_path_buf(),
                );
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join("scenarios"), &mut out);
    out.sort();
    out
}

/// The snapshot name of a scenario: its path under `scenarios/` without the
/// extension, with `/` as `__` (`scenarios/abort/any_order.scn` is
/// `abort__any_order`).
pub fn snapshot_name(relative: &Path) -> String {
    let inner = relative.strip_prefix("scenarios").unwrap_or(relative);
    inner
        .with_extension("")
        .to_string_lossy()
        .replace(['/', '\\'], "__")
}

/// The log lines of a curated scenario's reviewed snapshot, by snapshot
/// name ([`snapshot_name`]): what follows insta's header (a `---` line, the
/// metadata, a `---` line). For tests of other crates that check a log
/// against what was reviewed (and checked against Node).
pub fn snapshot_log(name: &str) -> Vec<String> {
    let path = root().join("snapshots").join(format!("{name}.snap"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let body = text
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map(|(_, body)| body)
        .unwrap_or_else(|| panic!("{}: no insta header", path.display()));
    body.lines().map(str::to_string).collect()
}
