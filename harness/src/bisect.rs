//! `nodesem bisect` and `nodesem versions`: which Node release changed a
//! scenario's log, and which releases agree.
//!
//! A scenario whose log on one Node differs from another's raises the
//! question of when Node changed. Both commands run scenarios on releases
//! from [`crate::releases`]; what a release does with a scenario is an
//! [`Outcome`]: its log, or the engine's error (an old release that cannot
//! run the prelude is an outcome of its own, shown as such, never a crash of
//! the command).
//!
//! The searches here are pure functions over a list of releases and a
//! `run` callback that gives the outcomes of some scenarios on one release,
//! so they are tested on synthetic outcomes; the commands pass a callback
//! that installs the release and runs the scenarios on it in one batch.
//!
//! - [`bisect_many`] bisects every scenario at once over the releases from
//!   `good` to `bad` in version order (not release date: 20.19.0 came out
//!   after 22.0.0 but sorts before it). Each round asks for the midpoint of
//!   every scenario still searching, grouped by release, so a folder of
//!   scenarios costs one batch per release visited, not one per scenario.
//!   The answer is the first release whose outcome differs from `good`'s,
//!   assuming one change (as any bisection does); every outcome seen is
//!   kept, so a release that could not run the scenario is visible.
//! - [`group_outcomes`] groups releases whose outcomes are identical.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use nodesem_lang::{Engine, EngineError, Log, RunConfig, Scenario};

use crate::node::NodeEngine;
use crate::releases::{ReleaseError, Releases, Version};

/// What one release did with one scenario.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The log's lines.
    Log(Vec<String>),
    /// The engine could not run it (the error's text, with the release's
    /// binary path replaced by `<node>` so that releases compare).
    Error(String),
}

impl Outcome {
    /// The outcome of an engine result on the binary `node_path`.
    pub fn of(result: Result<Log, EngineError>, node_path: &str) -> Outcome {
        match result {
            Ok(log) => Outcome::Log(log.lines),
            Err(e) => {
                let text = e.to_string();
                Outcome::Error(if node_path.is_empty() {
                    text
                } else {
                    text.replace(node_path, "<node>")
                })
            }
        }
    }

    /// Whether this is an engine error.
    pub fn is_error(&self) -> bool {
        matches!(self, Outcome::Error(_))
    }

    /// The outcome as text: the log's lines, or `error: ...`.
    pub fn text(&self) -> String {
        match self {
            Outcome::Log(lines) => lines.iter().fold(String::new(), |mut out, line| {
                out.push_str(line);
                out.push('\n');
                out
            }),
            Outcome::Error(e) => format!("error: {e}\n"),
        }
    }
}

/// One bisection between the release known to give `good`'s outcome
/// (`lo`) and the one known to differ (`hi`), as indices into a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Search {
    /// The last index known to give the good outcome.
    pub lo: usize,
    /// The first index known to differ from it.
    pub hi: usize,
}

impl Search {
    /// The index to try next, or `None` when `hi` is the answer.
    pub fn next(&self) -> Option<usize> {
        (self.hi - self.lo > 1).then(|| self.lo + (self.hi - self.lo) / 2)
    }

    /// Records whether index `at` (from [`Search::next`]) gave the good outcome.
    pub fn record(&mut self, at: usize, same_as_good: bool) {
        if same_as_good {
            self.lo = at;
        } else {
            self.hi = at;
        }
    }
}

/// The first index of `0..len` where `same_as_good` is false, by bisection,
/// given that index 0 is good; `None` when the last index is good too (no
/// change to find) or `len < 2`. Asks about O(log len) indices.
pub fn first_change(len: usize, mut same_as_good: impl FnMut(usize) -> bool) -> Option<usize> {
    if len < 2 || same_as_good(len - 1) {
        return None;
    }
    let mut search = Search { lo: 0, hi: len - 1 };
    while let Some(at) = search.next() {
        search.record(at, same_as_good(at));
    }
    Some(search.hi)
}

/// The answer of a bisection for one scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The first release whose outcome differs from the good release's.
    Changed {
        /// The last release with the good outcome.
        last_good: Version,
        /// Its outcome.
        good: Outcome,
        /// The first release that differs.
        first_bad: Version,
        /// Its outcome.
        bad: Outcome,
    },
    /// The good and the bad release agree: nothing to bisect.
    Same {
        /// Their outcome.
        outcome: Outcome,
    },
}

/// A bisection's answer for one scenario and every outcome it saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bisection {
    /// The answer.
    pub answer: Answer,
    /// Every release run for this scenario, in version order, with its outcome.
    pub tested: Vec<(Version, Outcome)>,
}

/// Bisects `scenarios` scenarios over `releases` (sorted; the first is the
/// good release, the last the bad one). `run(release, indices)` gives the
/// outcomes of those scenarios on that release, in order; it is called once
/// per release and round with every scenario that needs that release.
pub fn bisect_many(
    releases: &[Version],
    scenarios: usize,
    run: &mut dyn FnMut(Version, &[usize]) -> Vec<Outcome>,
) -> Vec<Bisection> {
    let mut seen: HashMap<(usize, usize), Outcome> = HashMap::new();
    let all: Vec<usize> = (0..scenarios).collect();
    let mut ask = |at: usize, which: &[usize], seen: &mut HashMap<(usize, usize), Outcome>| {
        let need: Vec<usize> = which
            .iter()
            .copied()
            .filter(|s| !seen.contains_key(&(at, *s)))
            .collect();
        if need.is_empty() {
            return;
        }
        let outcomes = run(releases[at], &need);
        for (s, outcome) in need.iter().zip(outcomes) {
            seen.insert((at, *s), outcome);
        }
    };
    if releases.is_empty() || scenarios == 0 {
        return Vec::new();
    }
    let last = releases.len() - 1;
    ask(0, &all, &mut seen);
    ask(last, &all, &mut seen);
    let outcome = |seen: &HashMap<(usize, usize), Outcome>, at: usize, s: usize| {
        seen.get(&(at, s))
            .cloned()
            .unwrap_or_else(|| Outcome::Error("the release gave no result".into()))
    };
    let mut searches: Vec<Option<Search>> = (0..scenarios)
        .map(|s| {
            (outcome(&seen, 0, s) != outcome(&seen, last, s)).then_some(Search { lo: 0, hi: last })
        })
        .collect();
    loop {
        let mut by_release: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (s, search) in searches.iter().enumerate() {
            if let Some(at) = search.as_ref().and_then(Search::next) {
                by_release.entry(at).or_default().push(s);
            }
        }
        if by_release.is_empty() {
            break;
        }
        for (at, which) in by_release {
            ask(at, &which, &mut seen);
            for s in which {
                let same = outcome(&seen, at, s) == outcome(&seen, 0, s);
                if let Some(search) = searches[s].as_mut() {
                    search.record(at, same);
                }
            }
        }
    }
    (0..scenarios)
        .map(|s| {
            let answer = match searches[s] {
                Some(search) => Answer::Changed {
                    last_good: releases[search.lo],
                    good: outcome(&seen, search.lo, s),
                    first_bad: releases[search.hi],
                    bad: outcome(&seen, search.hi, s),
                },
                None => Answer::Same {
                    outcome: outcome(&seen, 0, s),
                },
            };
            let mut tested: Vec<(Version, Outcome)> = seen
                .iter()
                .filter(|((_, sc), _)| *sc == s)
                .map(|((at, _), o)| (releases[*at], o.clone()))
                .collect();
            tested.sort_by_key(|(v, _)| *v);
            Bisection { answer, tested }
        })
        .collect()
}

/// Releases with one outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The outcome.
    pub outcome: Outcome,
    /// The releases (in the order given) that gave it.
    pub versions: Vec<Version>,
}

/// Groups `outcomes` (one per release, in the order given) by identical
/// outcome; the groups are in the order of their first release.
pub fn group_outcomes(outcomes: &[(Version, Outcome)]) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for (version, outcome) in outcomes {
        match groups.iter_mut().find(|g| g.outcome == *outcome) {
            Some(group) => group.versions.push(*version),
            None => groups.push(Group {
                outcome: outcome.clone(),
                versions: vec![*version],
            }),
        }
    }
    groups
}

/// The letter of group `i`: A, B, ..., Z, then G27, G28...
pub fn group_label(i: usize) -> String {
    match u8::try_from(i) {
        Ok(n) if n < 26 => char::from(b'A' + n).to_string(),
        _ => format!("G{}", i + 1),
    }
}

/// `A: 20.20.2  B: 22.22.0, 24.13.0 (error)`: one table row's groups.
pub fn render_groups(groups: &[Group]) -> String {
    groups
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let versions = g
                .versions
                .iter()
                .map(Version::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            let kind = if g.outcome.is_error() {
                " (engine error)"
            } else {
                ""
            };
            format!("{}: {versions}{kind}", group_label(i))
        })
        .collect::<Vec<_>>()
        .join("  ")
}

/// A unified diff of two outcomes, headed by their names.
pub fn render_diff(a_name: &str, a: &Outcome, b_name: &str, b: &Outcome) -> String {
    let (a_text, b_text) = (a.text(), b.text());
    similar::TextDiff::from_lines(&a_text, &b_text)
        .unified_diff()
        .context_radius(3)
        .header(a_name, b_name)
        .to_string()
}

/// The report of one scenario's bisection, as `nodesem bisect` prints it.
pub fn render_bisection(name: &str, good: Version, bad: Version, b: &Bisection) -> String {
    let mut out = String::new();
    match &b.answer {
        Answer::Same { outcome } => {
            let what = if outcome.is_error() {
                "fail the same way (engine error)"
            } else {
                "give the same log"
            };
            let _ = writeln!(
                out,
                "{name}: Node {good} and Node {bad} {what}: nothing to bisect"
            );
        }
        Answer::Changed {
            last_good,
            good: good_outcome,
            first_bad,
            bad: bad_outcome,
        } => {
            let _ = writeln!(
                out,
                "{name}: the log changes in Node {first_bad} (the release before it, {last_good}, gives the same log as Node {good})"
            );
            for (label, version, outcome) in [
                ("last good", last_good, good_outcome),
                ("first changed", first_bad, bad_outcome),
            ] {
                let _ = writeln!(out, "== node@{version} ({label})");
                out.push_str(&outcome.text());
            }
            out.push_str(&render_diff(
                &format!("node@{last_good}"),
                good_outcome,
                &format!("node@{first_bad}"),
                bad_outcome,
            ));
        }
    }
    let good_outcome = b.tested.first().map(|(_, o)| o);
    let runs: Vec<String> = b
        .tested
        .iter()
        .map(|(v, o)| {
            let kind = if o.is_error() {
                "engine error"
            } else if Some(o) == good_outcome {
                "good"
            } else {
                "changed"
            };
            format!("{v} {kind}")
        })
        .collect();
    let _ = writeln!(out, "releases run: {}", runs.join(", "));
    let failed: Vec<String> = b
        .tested
        .iter()
        .filter(|(_, o)| o.is_error())
        .map(|(v, _)| v.to_string())
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(
            out,
            "these releases could not run the scenario (engine error, shown as its own outcome): {}",
            failed.join(", ")
        );
    }
    out
}

/// Runs scenarios on releases for the commands: installs each release
/// when first asked for (into the shared cache), runs the asked scenarios
/// in one batch of one Node engine, and counts what it did.
pub struct ReleaseRunner<'a> {
    releases: &'a Releases,
    scenarios: &'a [Scenario],
    config: RunConfig,
    /// Options for every Node binary (such as `--no-async-context-frame`).
    options: Vec<String>,
    /// Releases installed now (not found in the cache).
    pub downloaded: usize,
    /// Releases run.
    pub releases_run: usize,
    /// Time spent installing.
    pub install_time: Duration,
    /// Time spent running scenarios.
    pub run_time: Duration,
    /// The first install error: the run is then worthless, and the
    /// command reports it instead of an answer.
    pub failed: Option<ReleaseError>,
    quiet: bool,
}

impl<'a> ReleaseRunner<'a> {
    /// A runner of `scenarios` on the releases of `releases`.
    pub fn new(
        releases: &'a Releases,
        scenarios: &'a [Scenario],
        config: RunConfig,
        options: Vec<String>,
    ) -> ReleaseRunner<'a> {
        ReleaseRunner {
            releases,
            scenarios,
            config,
            options,
            downloaded: 0,
            releases_run: 0,
            install_time: Duration::ZERO,
            run_time: Duration::ZERO,
            failed: None,
            quiet: false,
        }
    }

    /// Prints no progress lines.
    pub fn quiet(mut self) -> ReleaseRunner<'a> {
        self.quiet = true;
        self
    }

    /// The outcomes of the scenarios `which` on `version`.
    pub fn run(&mut self, version: Version, which: &[usize]) -> Vec<Outcome> {
        let error = |why: String| which.iter().map(|_| Outcome::Error(why.clone())).collect();
        if self.failed.is_some() {
            return error("not run: an install failed".into());
        }
        let started = Instant::now();
        let installed = self.releases.install(version);
        self.install_time += started.elapsed();
        let installed = match installed {
            Ok(installed) => installed,
            Err(e) => {
                let why = e.to_string();
                self.failed = Some(e);
                return error(why);
            }
        };
        if installed.downloaded {
            self.downloaded += 1;
        }
        let started = Instant::now();
        let name = format!("node@{version}");
        let engine = NodeEngine::at(&installed.node).with_options(self.options.clone(), name);
        // A release without the internals the prelude relies on fails its
        // worker's start-up probe (NodeEngine::preflight), which names what
        // is missing: one quick error for the whole release instead of a
        // timeout per scenario.
        if let Err(e) = engine.preflight() {
            if !self.quiet {
                eprintln!("nodesem: Node {version} cannot run scenarios: {e}");
            }
            self.releases_run += 1;
            return error(format!("the engine failed: {e}"));
        }
        let batch: Vec<Scenario> = which.iter().map(|&s| self.scenarios[s].clone()).collect();
        let results = engine.run_batch(&batch, &self.config);
        drop(engine);
        self.run_time += started.elapsed();
        self.releases_run += 1;
        if !self.quiet {
            eprintln!(
                "nodesem: ran {} scenario{} on Node {version} in {:.1} s",
                which.len(),
                if which.len() == 1 { "" } else { "s" },
                started.elapsed().as_secs_f64()
            );
        }
        let path = installed.node.display().to_string();
        results.into_iter().map(|r| Outcome::of(r, &path)).collect()
    }
}

/// The two engines a finding file (`nodesem fuzz`'s `DIR/ID.scn`) names in
/// its `# engines: A vs B` header line, if it has one.
pub fn finding_engines(text: &str) -> Option<(String, String)> {
    text.lines()
        .take_while(|line| line.starts_with('#'))
        .find_map(|line| line.strip_prefix("# engines: "))
        .and_then(|rest| rest.split_once(" vs "))
        .map(|(a, b)| (a.trim().to_string(), b.trim().to_string()))
}

/// The release a `node@VERSION` engine name names (options dropped).
pub fn release_of_engine(name: &str) -> Option<&str> {
    let version = name.strip_prefix("node@")?;
    Some(version.split('+').next().unwrap_or(version))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(major: u32, minor: u32) -> Version {
        Version {
            major,
            minor,
            patch: 0,
        }
    }

    fn log(text: &str) -> Outcome {
        Outcome::Log(vec![text.to_string()])
    }

    #[test]
    fn a_finding_names_its_releases() {
        let text = "# nodesem finding abc\n# engines: node@20.20.2 vs node@26.12.1+--x\n# seed: 1\nsync {}\n";
        let (a, b) = finding_engines(text).unwrap();
        assert_eq!(release_of_engine(&a), Some("20.20.2"));
        assert_eq!(release_of_engine(&b), Some("26.12.1"));
        assert_eq!(release_of_engine("node"), None);
        assert_eq!(finding_engines("sync {}\n# engines: a vs b\n"), None);
    }

    #[test]
    fn first_change_finds_the_boundary_in_few_questions() {
        for len in 2..40 {
            for boundary in 1..len {
                let mut asked = 0;
                let found = first_change(len, |i| {
                    asked += 1;
                    i < boundary
                });
                assert_eq!(found, Some(boundary), "len {len} boundary {boundary}");
                // The last index, then at most ceil(log2(len)) midpoints.
                let bound = 1 + (usize::BITS - (len - 1).leading_zeros()) as usize;
                assert!(asked <= bound, "len {len}: asked {asked} > {bound}");
            }
        }
        assert_eq!(first_change(10, |_| true), None);
        assert_eq!(first_change(1, |_| false), None);
    }

    /// Synthetic outcomes: scenario 0 changes at release 5, scenario 1 never
    /// changes, scenario 2 cannot run before release 3 (an engine error)
    /// and its log never changes after.
    fn synthetic(release: Version, s: usize) -> Outcome {
        let i = release.major;
        match s {
            0 => log(if i < 5 { "old" } else { "new" }),
            1 => log("same"),
            _ if i < 3 => Outcome::Error("the engine failed: no getBuiltinModule".into()),
            _ => log("runs"),
        }
    }

    #[test]
    fn bisect_many_answers_each_scenario_and_batches_by_release() {
        let releases: Vec<Version> = (0..12).map(|i| v(i, 0)).collect();
        let mut calls: Vec<(Version, Vec<usize>)> = Vec::new();
        let answers = bisect_many(&releases, 3, &mut |release, which| {
            calls.push((release, which.to_vec()));
            which.iter().map(|&s| synthetic(release, s)).collect()
        });
        assert_eq!(
            answers[0].answer,
            Answer::Changed {
                last_good: v(4, 0),
                good: log("old"),
                first_bad: v(5, 0),
                bad: log("new"),
            }
        );
        assert_eq!(
            answers[1].answer,
            Answer::Same {
                outcome: log("same")
            }
        );
        match &answers[2].answer {
            Answer::Changed {
                last_good,
                good,
                first_bad,
                bad,
            } => {
                assert_eq!((*last_good, *first_bad), (v(2, 0), v(3, 0)));
                assert!(good.is_error());
                assert_eq!(*bad, log("runs"));
            }
            other => panic!("expected a change, got {other:?}"),
        }
        // Every release is run at most once per scenario, and both ends
        // run all three scenarios in one call each.
        let mut pairs: Vec<(Version, usize)> = calls
            .iter()
            .flat_map(|(r, w)| w.iter().map(move |s| (*r, *s)))
            .collect();
        let total = pairs.len();
        pairs.sort();
        pairs.dedup();
        assert_eq!(pairs.len(), total);
        assert_eq!(calls[0], (v(0, 0), vec![0, 1, 2]));
        assert_eq!(calls[1], (v(11, 0), vec![0, 1, 2]));
        // Scenarios 0 and 2 share their first midpoint (release 5): one call.
        assert_eq!(calls[2], (v(5, 0), vec![0, 2]));
        // What each scenario saw is in version order and includes the ends.
        assert_eq!(answers[1].tested.len(), 2);
        assert!(answers[0].tested.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(answers[2].tested.iter().any(|(_, o)| o.is_error()));
    }

    #[test]
    fn a_release_range_of_two_needs_no_midpoint() {
        let releases = [v(1, 0), v(2, 0)];
        let answers = bisect_many(&releases, 1, &mut |release, which| {
            which.iter().map(|_| log(&release.to_string())).collect()
        });
        assert!(matches!(
            answers[0].answer,
            Answer::Changed { first_bad, .. } if first_bad == v(2, 0)
        ));
    }

    #[test]
    fn groups_keep_errors_apart_and_follow_first_appearance() {
        let outcomes = vec![
            (v(20, 0), Outcome::Error("x".into())),
            (v(22, 0), log("a")),
            (v(24, 0), log("b")),
            (v(26, 0), log("a")),
        ];
        let groups = group_outcomes(&outcomes);
        assert_eq!(groups.len(), 3);
        assert_eq!(groups[1].versions, vec![v(22, 0), v(26, 0)]);
        assert_eq!(
            render_groups(&groups),
            "A: 20.0.0 (engine error)  B: 22.0.0, 26.0.0  C: 24.0.0"
        );
        assert_eq!(group_label(26), "G27");
    }

    #[test]
    fn an_error_outcome_hides_the_binary_path() {
        let e = EngineError::Failed("cannot start /cache/20.0.0/node: exit 9".into());
        assert_eq!(
            Outcome::of(Err(e), "/cache/20.0.0/node"),
            Outcome::Error("the engine failed: cannot start <node>: exit 9".into())
        );
    }

    #[test]
    fn the_report_shows_both_logs_the_diff_and_the_failed_releases() {
        let releases: Vec<Version> = (0..8).map(|i| v(i, 0)).collect();
        let answers = bisect_many(&releases, 3, &mut |release, which| {
            which.iter().map(|&s| synthetic(release, s)).collect()
        });
        let text = render_bisection("x.scn", v(0, 0), v(7, 0), &answers[2]);
        assert!(
            text.starts_with("x.scn: the log changes in Node 3.0.0"),
            "{text}"
        );
        assert!(text.contains("== node@2.0.0 (last good)\nerror: the engine failed"));
        assert!(text.contains("== node@3.0.0 (first changed)\nruns\n"));
        assert!(text.contains("+runs"));
        assert!(text.contains(
            "could not run the scenario (engine error, shown as its own outcome): 0.0.0"
        ));
        let same = render_bisection("y.scn", v(0, 0), v(7, 0), &answers[1]);
        assert!(
            same.contains("give the same log: nothing to bisect"),
            "{same}"
        );
    }
}
