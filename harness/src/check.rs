//! The differential check: every scenario on every engine, each engine's log
//! compared with the first engine's, every difference reported.
//!
//! This is `nodesem check`, the project's main job. A scenario an engine could
//! not run (a crash, a hang) is a failure, never silently dropped: a harness
//! that drops what the oracle cannot run hides exactly the cases it should
//! show. Differences between our engines and real Node that are listed in
//! the deviations file are accepted; a listed one that no longer differs is
//! an error, so the list cannot rot.

use std::path::{Path, PathBuf};
use std::time::Instant;

use nodesem_lang::{gen, print, Engine, EngineError, Log, RunConfig, Scenario};
use serde::Serialize;

use crate::deviations::{DeviationSet, LogDiff};

/// One scenario to check.
#[derive(Clone, Debug)]
pub struct Case {
    /// A file path, or `generated #i (seed S)`.
    pub name: String,
    /// The scenario.
    pub scenario: Scenario,
    /// Whether it came from the generator (its text is printed on failure).
    pub generated: bool,
}

/// The most generated scenarios one `check` may add (`--generated`). They
/// are made chunk by chunk as they are checked, so memory does not grow with
/// the count; the limit only keeps a typo from meaning years.
pub const MAX_GENERATED: usize = 100_000_000;

/// A scenario file that could not be read or parsed.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A file or folder could not be read.
    #[error("cannot read {path}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A path is neither a regular file nor a folder (a device, a FIFO).
    #[error("{path}: not a regular file or a folder")]
    NotAFile {
        /// The path.
        path: String,
    },
    /// A file is larger than a scenario may be.
    #[error("{path}: the file has {size} bytes, more than the {limit} a scenario may have")]
    TooLarge {
        /// The path.
        path: String,
        /// Its size, or at least how much was read.
        size: u64,
        /// [`nodesem_lang::limits::MAX_SOURCE_BYTES`].
        limit: usize,
    },
    /// Parse or validation errors, every one of them.
    #[error(transparent)]
    Parse(#[from] nodesem_lang::ParseError),
    /// Several files had errors.
    #[error("{}", .0.iter().map(|e| format!("{:#}", anyhow_like(e))).collect::<Vec<_>>().join("\n"))]
    Many(Vec<LoadError>),
}

/// An error with its `source()` chain, `: `-separated, as anyhow's `{:#}`
/// prints it.
fn anyhow_like(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

/// Every `.scn` file under the paths (files named directly are taken as
/// they are), sorted, each once. Folders are walked through symbolic links,
/// but each real folder once: a link back to an ancestor neither loops nor
/// loads a file twice.
pub fn scenario_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, LoadError> {
    let mut files = Vec::new();
    let mut visited = std::collections::HashSet::new();
    let mut seen_files = std::collections::HashSet::new();
    for path in paths {
        collect(path, true, &mut visited, &mut seen_files, &mut files)?;
    }
    files.sort();
    Ok(files)
}

fn collect(
    path: &Path,
    named: bool,
    visited: &mut std::collections::HashSet<PathBuf>,
    seen_files: &mut std::collections::HashSet<PathBuf>,
    out: &mut Vec<PathBuf>,
) -> Result<(), LoadError> {
    let io = |source| LoadError::Io {
        path: path.display().to_string(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    let canonical = std::fs::canonicalize(path).map_err(io)?;
    if meta.is_dir() {
        if !visited.insert(canonical) {
            return Ok(());
        }
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(path).map_err(io)? {
            entries.push(entry.map_err(io)?.path());
        }
        entries.sort();
        for p in entries {
            if p.is_dir() || p.extension().is_some_and(|e| e == "scn") {
                collect(&p, false, visited, seen_files, out)?;
            }
        }
    } else if (meta.is_file() || named) && seen_files.insert(canonical) {
        out.push(path.to_path_buf());
    }
    Ok(())
}

/// Reads one scenario file's bytes, refusing anything that is not a regular
/// file or is larger than [`nodesem_lang::limits::MAX_SOURCE_BYTES`] before
/// reading it whole (a file that grows while it is read is cut off there).
pub fn read_scenario_bytes(path: &Path) -> Result<Vec<u8>, LoadError> {
    use std::io::Read;
    let shown = || path.display().to_string();
    let io = |source| LoadError::Io {
        path: shown(),
        source,
    };
    let limit = nodesem_lang::limits::MAX_SOURCE_BYTES;
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(LoadError::NotAFile { path: shown() });
    }
    if meta.len() > limit as u64 {
        return Err(LoadError::TooLarge {
            path: shown(),
            size: meta.len(),
            limit,
        });
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(limit as u64 + 1).read_to_end(&mut bytes))
        .map_err(io)?;
    if bytes.len() > limit {
        return Err(LoadError::TooLarge {
            path: shown(),
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

/// Reads and parses one scenario file.
pub fn load_file(path: &Path) -> Result<Scenario, LoadError> {
    let bytes = read_scenario_bytes(path)?;
    Ok(nodesem_lang::parser::parse_bytes(
        &path.display().to_string(),
        &bytes,
    )?)
}

/// Loads every scenario under the paths, reporting every file's errors.
pub fn load_cases(paths: &[PathBuf]) -> Result<Vec<Case>, LoadError> {
    let mut cases = Vec::new();
    let mut errors = Vec::new();
    for file in scenario_files(paths)? {
        match load_file(&file) {
            Ok(scenario) => cases.push(Case {
                name: file.display().to_string(),
                scenario,
                generated: false,
            }),
            Err(e) => errors.push(e),
        }
    }
    match errors.len() {
        0 => Ok(cases),
        1 => Err(errors.remove(0)),
        _ => Err(LoadError::Many(errors)),
    }
}

/// Generated scenarios `first..first + count` of a run that starts at `seed`.
fn generated_range(first: usize, count: usize, seed: u64, family: gen::Family) -> Vec<Case> {
    (first..first + count)
        .map(|i| {
            let s = seed.wrapping_add(i as u64);
            Case {
                name: format!("generated #{i} (seed {s})"),
                scenario: family.generate_from_seed(s, 4096),
                generated: true,
            }
        })
        .collect()
}

/// What a check runs: the scenarios from files, then `generated` generated
/// ones from `seed` on, made a chunk at a time.
#[derive(Clone, Debug, Default)]
pub struct Cases {
    /// The scenarios loaded from files.
    pub files: Vec<Case>,
    /// How many generated scenarios follow them.
    pub generated: usize,
    /// The seed of the first generated scenario.
    pub seed: u64,
    /// The generator of the generated ones.
    pub family: gen::Family,
}

impl Cases {
    /// Only these cases (files or already generated ones), nothing generated
    /// lazily.
    pub fn of(cases: Vec<Case>) -> Cases {
        Cases {
            files: cases,
            ..Cases::default()
        }
    }

    /// Whether there is nothing to check.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.generated == 0
    }

    /// The cases in chunks of at most `size`: the files', then generated
    /// ones, each generated chunk made only when it is reached.
    fn chunks(&self, size: usize) -> impl Iterator<Item = std::borrow::Cow<'_, [Case]>> + '_ {
        let files = self.files.chunks(size).map(std::borrow::Cow::Borrowed);
        let generated = (0..self.generated).step_by(size).map(move |first| {
            let count = size.min(self.generated - first);
            std::borrow::Cow::Owned(generated_range(first, count, self.seed, self.family))
        });
        files.chain(generated)
    }
}

/// Where two engines' logs for one scenario part ways.
#[derive(Clone, Debug, Serialize)]
pub struct Divergence {
    /// The scenario's name.
    pub scenario: String,
    /// The two engines: the reference (the first engine) and the other.
    pub engines: [String; 2],
    /// The first differing line, 1-based (0 for an engine failure).
    pub line: usize,
    /// The reference engine's line there (none when its log ended).
    pub expected: Option<String>,
    /// The other engine's line there (none when its log ended).
    pub actual: Option<String>,
    /// The engine error, when an engine could not run the scenario.
    pub error: Option<String>,
    /// Whether an engine ran out of time (twice, for a Node engine, which
    /// retries with a longer limit): a failure of its own kind, reported
    /// apart from log differences.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
    /// The scenario text, for generated scenarios.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Both logs, for the text report.
    #[serde(skip)]
    pub logs: Option<(Log, Log)>,
    /// Set when the logs differ only because an engine that is not
    /// deterministic gave another log on another run, one the other
    /// engine printed ([`Report::unstable`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unstable: Option<Instability>,
}

/// How an engine's log changed from run to run ([`Engine::deterministic`]).
#[derive(Clone, Debug, Serialize)]
pub struct Instability {
    /// The engine whose log changed.
    pub engine: String,
    /// How many times it ran the scenario.
    pub runs: usize,
    /// How many different logs it printed.
    pub logs: usize,
}

impl Divergence {
    /// The divergence between two engines' results for one scenario, or
    /// `None` when both ran and their logs agree. `text` is the scenario's
    /// text when the report should show it.
    pub fn between(
        scenario: &str,
        engines: &[String; 2],
        a: Result<Log, EngineError>,
        b: Result<Log, EngineError>,
        text: Option<String>,
    ) -> Option<Divergence> {
        match (a, b) {
            (Ok(a), Ok(b)) => {
                let (line, expected, actual) = first_difference(&a, &b)?;
                Some(Divergence {
                    scenario: scenario.to_string(),
                    engines: engines.clone(),
                    line,
                    expected,
                    actual,
                    error: None,
                    timed_out: false,
                    text,
                    logs: Some((a, b)),
                    unstable: None,
                })
            }
            (a, b) => {
                let timed_out = [&a, &b]
                    .iter()
                    .any(|r| matches!(r, Err(EngineError::TimedOut(_))));
                let error = [(&engines[0], a), (&engines[1], b)]
                    .iter()
                    .filter_map(|(n, r)| r.as_ref().err().map(|err| format!("{n}: {err}")))
                    .collect::<Vec<_>>()
                    .join("; ");
                Some(Divergence {
                    scenario: scenario.to_string(),
                    engines: engines.clone(),
                    line: 0,
                    expected: None,
                    actual: None,
                    error: Some(error),
                    timed_out,
                    text,
                    logs: None,
                    unstable: None,
                })
            }
        }
    }

    /// One line saying where the engines part ways: the first differing
    /// line of each, or the engine failure.
    pub fn first_line(&self) -> String {
        match &self.error {
            Some(err) => format!("engine failure: {err}"),
            None => format!(
                "first difference at log line {}: {} has {}, {} has {}",
                self.line,
                self.engines[0],
                show_line(self.expected.as_deref()),
                self.engines[1],
                show_line(self.actual.as_deref()),
            ),
        }
    }
}

/// The outcome of a check.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// How many scenarios came from files.
    pub scenarios: usize,
    /// How many were generated.
    pub generated: usize,
    /// The engines, the first being the reference.
    pub engines: Vec<String>,
    /// Every unexplained difference or failure.
    pub divergences: Vec<Divergence>,
    /// Scenarios an engine could not finish in time, apart from the rest.
    pub timeouts: Vec<Divergence>,
    /// Differences that an engine which is not deterministic (real Node)
    /// does not reproduce: rerun, it printed the other engine's log too.
    /// Shown, and not a failure: the reference gave one of the outcomes
    /// the oracle itself gives.
    pub unstable: Vec<Divergence>,
    /// Scenarios the real-clock Node engine refused (`cannot run on a real
    /// clock: ...`, [`crate::realclock`]) or ran late each time it tried
    /// them: counted and shown, not a failure.
    #[serde(default)]
    pub refused: Vec<Divergence>,
    /// Differences explained by the deviations file.
    pub accepted_deviations: usize,
    /// Deviations listed in the file that no longer occur.
    pub stale_deviations: Vec<String>,
    /// Wall-clock seconds.
    pub elapsed_s: f64,
    /// What the generated scenarios did on the model, for one in
    /// [`crate::fuzz::STATS_SAMPLE`] (absent without generated scenarios).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generator: Option<crate::gen_stats::GenStats>,
}

impl Report {
    /// Whether the check passed.
    pub fn ok(&self) -> bool {
        self.divergences.is_empty() && self.timeouts.is_empty() && self.stale_deviations.is_empty()
    }
}

/// The first line where two logs differ, 1-based, with both lines there.
pub fn first_difference(a: &Log, b: &Log) -> Option<(usize, Option<String>, Option<String>)> {
    let n = a.lines.len().max(b.lines.len());
    (0..n).find_map(|i| {
        let (x, y) = (a.lines.get(i), b.lines.get(i));
        (x != y).then(|| (i + 1, x.cloned(), y.cloned()))
    })
}

/// How many more times an engine that is not deterministic runs a
/// scenario it diverged on, to see whether its log changes.
pub const RERUNS: usize = 3;

/// The logs an engine printed for one scenario: `first`, and when the
/// engine is not deterministic, those of [`RERUNS`] more runs (a run that
/// fails counts as no log).
fn logs_of(engine: &dyn Engine, scenario: &Scenario, first: &Log, config: &RunConfig) -> Vec<Log> {
    let mut logs = vec![first.clone()];
    if engine.deterministic() {
        return logs;
    }
    let again = vec![scenario.clone(); RERUNS];
    for log in engine.run_batch(&again, config).into_iter().flatten() {
        if !logs.contains(&log) {
            logs.push(log);
        }
    }
    logs
}

/// Whether a divergence between `a` and `b` is an engine's log changing
/// from run to run: rerun on each engine that is not deterministic, some
/// log of one is a log of the other.
fn instability(
    engines: [&dyn Engine; 2],
    scenario: &Scenario,
    logs: (&Log, &Log),
    config: &RunConfig,
) -> Option<Instability> {
    if engines.iter().all(|e| e.deterministic()) {
        return None;
    }
    let a = logs_of(engines[0], scenario, logs.0, config);
    let b = logs_of(engines[1], scenario, logs.1, config);
    if !a.iter().any(|log| b.contains(log)) {
        return None;
    }
    let (engine, logs) = if a.len() > 1 {
        (engines[0], &a)
    } else {
        (engines[1], &b)
    };
    Some(Instability {
        engine: engine.name(),
        runs: 1 + RERUNS,
        logs: logs.len(),
    })
}

/// Whether engines that diverged on `scenario` disagree only because one
/// that is not deterministic (real Node) changes its log from run to run:
/// each such engine runs it [`RERUNS`] more times, and the divergence is
/// unstable when some log of one engine is a log of the other. `None`
/// without a non-deterministic engine, or when the difference holds. For
/// the fuzz loop, which keeps only the divergence's signature.
pub fn rerun_instability(
    engines: [&dyn Engine; 2],
    scenario: &Scenario,
    config: &RunConfig,
) -> Option<Instability> {
    if engines.iter().all(|e| e.deterministic()) {
        return None;
    }
    let first = |engine: &dyn Engine| engine.run(scenario, config).ok();
    let (a, b) = (first(engines[0])?, first(engines[1])?);
    if a == b {
        // The difference went away on its own: as unstable as can be.
        return Some(Instability {
            engine: engines
                .iter()
                .find(|e| !e.deterministic())
                .map_or_else(String::new, |e| e.name()),
            runs: 2,
            logs: 2,
        });
    }
    instability(engines, scenario, (&a, &b), config)
}

/// How many cases run between two comparisons: a long run reports what it
/// found so far, and holds only one chunk's logs at a time.
const CHUNK: usize = 2000;

/// Runs every case on every engine and compares each engine's log with the
/// first engine's.
pub fn check(
    cases: &Cases,
    engines: &[Box<dyn Engine>],
    config: &RunConfig,
    deviations: &DeviationSet,
) -> Report {
    check_with(cases, engines, config, deviations, &mut |_| {})
}

/// [`check`], calling `found` with each divergence as soon as its chunk of
/// cases has run, so that an interrupted long run has already shown every
/// finding up to that point.
pub fn check_with(
    cases: &Cases,
    engines: &[Box<dyn Engine>],
    config: &RunConfig,
    deviations: &DeviationSet,
    found: &mut dyn FnMut(&Divergence),
) -> Report {
    let start = Instant::now();
    let names: Vec<String> = engines.iter().map(|e| e.name()).collect();
    let mut divergences = Vec::new();
    let mut timeouts = Vec::new();
    let mut unstable = Vec::new();
    let mut refused = Vec::new();
    let mut accepted = 0;
    let mut stale_deviations = Vec::new();
    let mut counts: (usize, usize) = (0, 0);
    let mut generator = crate::gen_stats::GenStats::default();
    for chunk in cases.chunks(CHUNK) {
        let chunk: &[Case] = &chunk;
        for case in chunk {
            if case.generated {
                if (counts.1 as u64).is_multiple_of(crate::fuzz::STATS_SAMPLE) {
                    generator.record(&case.scenario);
                }
                counts.1 += 1;
            } else {
                counts.0 += 1;
            }
        }
        let scenarios: Vec<Scenario> = chunk.iter().map(|c| c.scenario.clone()).collect();
        // Each engine on its own thread: model and impl are single-threaded,
        // the Node engine spreads its batch over worker processes itself.
        let results: Vec<Vec<Result<Log, EngineError>>> = std::thread::scope(|scope| {
            let handles: Vec<_> = engines
                .iter()
                .map(|e| scope.spawn(|| e.run_batch(&scenarios, config)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .expect("engines report failures, they do not panic")
                })
                .collect()
        });
        for (i, case) in chunk.iter().enumerate() {
            for (e, other) in results.iter().enumerate().skip(1) {
                let pair = [names[0].clone(), names[e].clone()];
                let text = || case.generated.then(|| print(&case.scenario));
                let divergence = match (&results[0][i], &other[i]) {
                    (Ok(a), Ok(b)) => {
                        let listed = deviations.find(&case.name, &pair[0], &pair[1]);
                        match (first_difference(a, b), listed) {
                            (None, None) => None,
                            // Listed, yet the engines agree: the list must shrink.
                            (None, Some(index)) => {
                                stale_deviations.push(deviations.describe(index));
                                None
                            }
                            (Some(_), Some(index))
                                if deviations.get(index).matches(&LogDiff::between(a, b)) =>
                            {
                                accepted += 1;
                                None
                            }
                            (Some(_), _) => Divergence::between(
                                &case.name,
                                &pair,
                                Ok(a.clone()),
                                Ok(b.clone()),
                                text(),
                            )
                            .map(|mut d| {
                                d.unstable = instability(
                                    [&*engines[0], &*engines[e]],
                                    &case.scenario,
                                    (a, b),
                                    config,
                                );
                                d
                            }),
                        }
                    }
                    (a, b) => Divergence::between(&case.name, &pair, a.clone(), b.clone(), text()),
                };
                if let Some(d) = divergence {
                    if d.error
                        .as_deref()
                        .is_some_and(crate::realclock::not_compared)
                    {
                        refused.push(d);
                        continue;
                    }
                    found(&d);
                    if d.unstable.is_some() {
                        unstable.push(d);
                    } else if d.timed_out {
                        timeouts.push(d);
                    } else {
                        divergences.push(d);
                    }
                }
            }
        }
    }
    Report {
        scenarios: counts.0,
        generated: counts.1,
        engines: names,
        divergences,
        timeouts,
        unstable,
        refused,
        accepted_deviations: accepted,
        stale_deviations,
        elapsed_s: start.elapsed().as_secs_f64(),
        generator: (counts.1 > 0).then(|| {
            generator.finish();
            generator
        }),
    }
}

/// A unified diff of two logs, headed by the engines' names.
pub fn unified_diff(a: &Log, b: &Log, a_name: &str, b_name: &str) -> String {
    let a_text = a.to_string();
    let b_text = b.to_string();
    similar::TextDiff::from_lines(&a_text, &b_text)
        .unified_diff()
        .context_radius(3)
        .header(a_name, b_name)
        .to_string()
}

fn show_line(line: Option<&str>) -> String {
    line.map_or("nothing (its log ended)".to_string(), |l| format!("`{l}`"))
}

/// The text form of one divergence: the engines, the first differing line,
/// the unified diff and, for a generated scenario, its text.
pub fn render_divergence(d: &Divergence) -> String {
    let mut out = format!(
        "{} {} ({} vs {})\n  {}\n",
        if d.unstable.is_some() {
            "UNSTABLE"
        } else if d.timed_out {
            "TIMEOUT"
        } else {
            "DIVERGENCE"
        },
        d.scenario,
        d.engines[0],
        d.engines[1],
        d.first_line()
    );
    if let Some(u) = &d.unstable {
        out.push_str(&format!(
            "  not a divergence: {} printed {} different logs in {} runs, {}'s among them\n",
            u.engine,
            u.logs,
            u.runs,
            if u.engine == d.engines[0] {
                &d.engines[1]
            } else {
                &d.engines[0]
            },
        ));
    }
    if let Some((a, b)) = &d.logs {
        for line in unified_diff(a, b, &d.engines[0], &d.engines[1]).lines() {
            out.push_str("  ");
            out.push_str(line);
            out.push('\n');
        }
    }
    if let Some(text) = &d.text {
        out.push_str("  scenario:\n");
        for line in text.lines() {
            out.push_str("    ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The end of the text report: stale deviations and the summary line.
pub fn render_summary(report: &Report) -> String {
    let mut out = String::new();
    for s in &report.stale_deviations {
        out.push_str(&format!(
            "STALE DEVIATION {s}: the engines now agree; remove it from the deviations file\n"
        ));
    }
    out.push_str(&format!(
        "checked {} scenarios ({} from files, {} generated) on {}: {} divergences, {} timeouts, {} unstable, {} accepted deviations, {} stale deviations, {:.2} s\n",
        report.scenarios + report.generated,
        report.scenarios,
        report.generated,
        report.engines.join(", "),
        report.divergences.len(),
        report.timeouts.len(),
        report.unstable.len(),
        report.accepted_deviations,
        report.stale_deviations.len(),
        report.elapsed_s
    ));
    if !report.refused.is_empty() {
        out.push_str(&format!(
            "{} scenarios refused by a real-clock engine (or late each time on a loaded machine):\n",
            report.refused.len()
        ));
        for d in &report.refused {
            out.push_str(&format!(
                "  {}: {}\n",
                d.scenario,
                d.error.as_deref().unwrap_or_default()
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// An engine that prints its logs in turn, one per run, and says
    /// whether it is deterministic.
    struct Turns {
        name: &'static str,
        logs: Vec<&'static str>,
        next: AtomicUsize,
        deterministic: bool,
    }

    impl Turns {
        fn engine(
            name: &'static str,
            logs: &[&'static str],
            deterministic: bool,
        ) -> Box<dyn Engine> {
            Box::new(Turns {
                name,
                logs: logs.to_vec(),
                next: AtomicUsize::new(0),
                deterministic,
            })
        }
    }

    impl Engine for Turns {
        fn name(&self) -> String {
            self.name.to_string()
        }

        fn deterministic(&self) -> bool {
            self.deterministic
        }

        fn run(&self, _: &Scenario, _: &RunConfig) -> Result<Log, EngineError> {
            let i = self.next.fetch_add(1, Ordering::SeqCst);
            Ok(Log {
                lines: vec![self.logs[i % self.logs.len()].to_string()],
            })
        }
    }

    fn one_case() -> Cases {
        let scenario = nodesem_lang::parse("s.scn", "log 1\n").expect("parses");
        Cases::of(vec![Case {
            name: "s.scn".into(),
            scenario,
            generated: false,
        }])
    }

    fn run(engines: &[Box<dyn Engine>]) -> Report {
        check(
            &one_case(),
            engines,
            &RunConfig::default(),
            &DeviationSet::default(),
        )
    }

    #[test]
    fn a_log_that_changes_between_runs_of_an_oracle_is_unstable_not_a_divergence() {
        let report = run(&[
            Turns::engine("model", &["a"], true),
            Turns::engine("node", &["b", "a"], false),
        ]);
        assert!(report.divergences.is_empty(), "{:?}", report.divergences);
        assert_eq!(report.unstable.len(), 1);
        let u = report.unstable[0].unstable.as_ref().expect("marked");
        assert_eq!((u.engine.as_str(), u.runs, u.logs), ("node", 4, 2));
        assert!(report.ok());
        assert!(
            render_divergence(&report.unstable[0]).starts_with("UNSTABLE s.scn (model vs node)")
        );
    }

    #[test]
    fn the_fuzz_loops_rerun_tells_an_unstable_divergence_from_a_real_one() {
        let scenario = nodesem_lang::parse("s.scn", "log 1\n").expect("parses");
        let config = RunConfig::default();
        let model = Turns::engine("model", &["a"], true);
        // The fuzz loop saw `b` from node; node then prints `b` and `a`.
        let flaky = Turns::engine("node", &["b", "a", "b", "b"], false);
        let u = rerun_instability([&*model, &*flaky], &scenario, &config).expect("unstable");
        assert_eq!(u.engine, "node");
        // Node that always prints `b` differs for real.
        let steady = Turns::engine("node", &["b"], false);
        assert!(rerun_instability([&*model, &*steady], &scenario, &config).is_none());
        // Deterministic engines are never rerun: no instability, whatever they print.
        let other = Turns::engine("impl", &["b", "a"], true);
        assert!(rerun_instability([&*model, &*other], &scenario, &config).is_none());
    }

    #[test]
    fn an_oracle_that_repeats_its_different_log_is_a_divergence() {
        let report = run(&[
            Turns::engine("model", &["a"], true),
            Turns::engine("node", &["b"], false),
        ]);
        assert_eq!(report.divergences.len(), 1);
        assert!(report.unstable.is_empty());
        assert!(!report.ok());
    }

    #[test]
    fn an_oracle_that_changes_among_logs_the_reference_never_prints_is_a_divergence() {
        let report = run(&[
            Turns::engine("model", &["a"], true),
            Turns::engine("node", &["b", "c"], false),
        ]);
        assert_eq!(report.divergences.len(), 1);
        assert!(!report.ok());
    }

    #[test]
    fn deterministic_engines_are_not_rerun() {
        // Were `impl` rerun, its second log would match the model's.
        let report = run(&[
            Turns::engine("model", &["a"], true),
            Turns::engine("impl", &["b", "a"], true),
        ]);
        assert_eq!(report.divergences.len(), 1);
        assert!(report.unstable.is_empty());
    }
}
