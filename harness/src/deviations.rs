//! The reviewed list of differences between our engines and real Node.
//!
//! When the model and Node 26 disagree, either the model is wrong and gets
//! fixed, or the difference is a deliberate, documented deviation. Each entry
//! of `deviations.toml` names the scenario, the pair of engines, the exact
//! differing lines, why, and a link to the standard, a Node issue or a
//! source line. The file is reviewed like code; `nodesem check` accepts a
//! difference only when it is listed exactly, and reports a listed one that
//! no longer occurs as stale.

use std::path::Path;

use nodesem_lang::Log;
use serde::Deserialize;

/// The lines by which two logs differ, without context: `-line` for a line
/// only the first engine printed, `+line` for one only the second printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogDiff(pub Vec<String>);

impl LogDiff {
    /// The differing lines of `a` (the reference) and `b`.
    pub fn between(a: &Log, b: &Log) -> LogDiff {
        let a_lines: Vec<&str> = a.lines.iter().map(String::as_str).collect();
        let b_lines: Vec<&str> = b.lines.iter().map(String::as_str).collect();
        let diff = similar::TextDiff::from_slices(&a_lines, &b_lines);
        let mut out = Vec::new();
        for change in diff.iter_all_changes() {
            match change.tag() {
                similar::ChangeTag::Delete => out.push(format!("-{}", change.value())),
                similar::ChangeTag::Insert => out.push(format!("+{}", change.value())),
                similar::ChangeTag::Equal => {}
            }
        }
        LogDiff(out)
    }
}

/// One accepted difference.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deviation {
    /// The scenario file, relative to the repository root.
    pub scenario: String,
    /// The reference engine and the other engine, e.g. `["model", "node"]`.
    pub engines: [String; 2],
    /// The differing lines, as [`LogDiff`] prints them.
    pub diff: Vec<String>,
    /// Why the difference is accepted.
    pub why: String,
    /// A link to the standard, a Node issue or a Node source line.
    pub link: String,
}

impl Deviation {
    /// Whether the logs differ exactly as listed.
    pub fn matches(&self, diff: &LogDiff) -> bool {
        self.diff == diff.0
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    deviation: Vec<Deviation>,
}

/// The deviations file's entries.
#[derive(Clone, Debug, Default)]
pub struct DeviationSet {
    entries: Vec<Deviation>,
}

/// A deviations file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DeviationError {
    /// It could not be read.
    #[error("cannot read the deviations file {path}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// It is not valid.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong, with its position.
        message: String,
    },
}

impl DeviationSet {
    /// No deviations.
    pub fn empty() -> Self {
        DeviationSet::default()
    }

    /// Parses the text of a deviations file; `path` names it in errors.
    pub fn parse(path: &str, text: &str) -> Result<Self, DeviationError> {
        let file: File = toml::from_str(text).map_err(|e| DeviationError::Invalid {
            path: path.into(),
            message: e.to_string(),
        })?;
        for (i, d) in file.deviation.iter().enumerate() {
            let problem = if d.why.trim().is_empty() {
                Some("has no `why`")
            } else if !d.link.starts_with("https://") {
                Some("needs a `link` starting with https://")
            } else if d.diff.is_empty() {
                Some("lists no differing lines")
            } else if d
                .diff
                .iter()
                .any(|l| !l.starts_with('-') && !l.starts_with('+'))
            {
                Some("has a `diff` line that starts with neither - nor +")
            } else {
                None
            };
            if let Some(problem) = problem {
                return Err(DeviationError::Invalid {
                    path: path.into(),
                    message: format!("deviation #{} ({}) {problem}", i + 1, d.scenario),
                });
            }
        }
        Ok(DeviationSet {
            entries: file.deviation,
        })
    }

    /// Reads a deviations file; a missing file is an error.
    pub fn load(path: &Path) -> Result<Self, DeviationError> {
        let shown = path.display().to_string();
        match std::fs::read_to_string(path) {
            Ok(text) => DeviationSet::parse(&shown, &text),
            Err(source) => Err(DeviationError::Io {
                path: shown,
                source,
            }),
        }
    }

    /// The file the user named, which must exist; or, when none was named,
    /// `default` if it exists (the repository's own `deviations.toml` when
    /// run from a checkout) and no deviation otherwise.
    pub fn load_or_default(named: Option<&Path>, default: &Path) -> Result<Self, DeviationError> {
        match named {
            Some(path) => DeviationSet::load(path),
            None if default.exists() => DeviationSet::load(default),
            None => Ok(DeviationSet::empty()),
        }
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry at `index`.
    pub fn get(&self, index: usize) -> &Deviation {
        &self.entries[index]
    }

    /// The entry for this scenario and pair of engines, if listed.
    pub fn find(&self, scenario: &str, reference: &str, other: &str) -> Option<usize> {
        let scenario = scenario.trim_start_matches("./");
        self.entries.iter().position(|d| {
            let path = d.scenario.trim_start_matches("./");
            (scenario == path || scenario.ends_with(&format!("/{path}")))
                && d.engines[0] == reference
                && d.engines[1] == other
        })
    }

    /// A one-line description of an entry, for reports.
    pub fn describe(&self, index: usize) -> String {
        let d = &self.entries[index];
        format!("{} ({} vs {})", d.scenario, d.engines[0], d.engines[1])
    }
}
