//! `nodesem fuzz`: generate scenarios, diff two engines, shrink every new
//! divergence and keep one finding per cause, for as long as it is let run.
//!
//! A fuzz run is left alone overnight, so it is built to lose nothing:
//!
//! - Each divergent scenario is keyed by the [`Signature`] of its first
//!   differing line. A signature never seen before is shrunk
//!   ([`crate::shrink`]), and the *shrunk* scenario's signature names its
//!   group: all divergences that shrink to the same cause are one finding.
//!   (A raw signature already seen is counted in the group it led to
//!   without being shrunk again: thousands of scenarios that hit one bug
//!   cost one shrink.)
//! - A new group is written at once, before the run goes on, to
//!   `DIR/<id>.scn` (the shrunk scenario, headed by comments naming the
//!   engines, the seed, the signature and the first differing line, and
//!   how to replay it), `DIR/<id>.diff` (the divergence as `nodesem diff`
//!   shows it) and `DIR/<id>.orig.scn` (the scenario as generated). Every
//!   file is written to a temporary file in `DIR` and renamed into place,
//!   so a run killed at any moment leaves no half-written file.
//! - `DIR/state.json` holds where the seeds go on from and the counts of
//!   every group, rewritten the same way after each chunk of scenarios. A
//!   run into an existing `DIR` resumes: it goes on from the next seed, and
//!   groups already there are counted but not reported again.
//! - A stop request (SIGINT) ends the run after the current chunk with its
//!   summary; the Node engines' workers end with the process.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nodesem_lang::{gen, print, Engine, RunConfig, Scenario};
use serde::{Deserialize, Serialize};

use crate::check::{render_divergence, Divergence};
use crate::shrink::{self, ShrinkConfig};
use crate::signature::Signature;

/// The size argument of [`gen::generate_from_seed`] for fuzzing (as `check`
/// uses it).
pub const GENERATED_SIZE: usize = 4096;

/// How a fuzz run goes.
#[derive(Clone, Debug)]
pub struct FuzzConfig {
    /// Stop after this long.
    pub time: Option<Duration>,
    /// Stop after this many scenarios.
    pub runs: Option<u64>,
    /// Threads that generate and run in-process engines.
    pub jobs: usize,
    /// The findings folder.
    pub out: PathBuf,
    /// The first seed; `None` goes on from the folder's state (or 0).
    pub seed: Option<u64>,
    /// The limits each scenario runs with.
    pub run: RunConfig,
    /// How shrinking runs.
    pub shrink: ShrinkConfig,
    /// Scenarios per chunk (between two saves of the state).
    pub chunk: usize,
    /// The generator of the scenarios.
    pub family: gen::Family,
}

/// What a fuzz run did, as `--format json` prints it.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// The engines.
    pub engines: [String; 2],
    /// Scenarios generated and run on both engines in this run.
    pub executions: u64,
    /// Executions per second of wall-clock time.
    pub exec_per_s: f64,
    /// Divergent scenarios found in this run.
    pub findings: u64,
    /// Divergences that an engine which is not deterministic (real Node)
    /// did not repeat: its log changed from run to run, and one of its logs
    /// was the other engine's ([`crate::check::rerun_instability`]). Not
    /// findings: they are neither shrunk nor saved.
    pub unstable: u64,
    /// Groups (distinct causes) found in this run, new ones only.
    pub groups: usize,
    /// Groups in the folder, old and new.
    pub groups_total: usize,
    /// The next seed a resumed run starts from.
    pub next_seed: u64,
    /// Wall-clock seconds.
    pub elapsed_s: f64,
    /// The new groups, in the order they were found.
    pub new_groups: Vec<GroupReport>,
    /// What the generated scenarios did, measured on the model for one
    /// scenario in [`STATS_SAMPLE`]: the share of callback bodies that ran,
    /// the share a budget stopped, the operations by kind.
    pub generator: crate::gen_stats::GenStats,
}

/// One generated scenario in this many is also run on the model with
/// statistics, for [`Summary::generator`].
pub const STATS_SAMPLE: u64 = 16;

/// One group as the summary reports it.
#[derive(Clone, Debug, Serialize)]
pub struct GroupReport {
    /// The group's id (its files are `<id>.scn`, `<id>.diff`, ...).
    pub id: String,
    /// Its signature, displayed.
    pub signature: String,
    /// The seed that first hit it.
    pub seed: u64,
    /// Statements of the shrunk scenario.
    pub shrunk_statements: usize,
    /// Seconds the shrink took.
    pub shrink_s: f64,
}

/// What `DIR/state.json` keeps between runs.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct State {
    engines: [String; 2],
    next_seed: u64,
    executions: u64,
    /// Group id to its record.
    groups: BTreeMap<String, GroupState>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct GroupState {
    signature: Signature,
    first_seed: u64,
    count: u64,
    /// The unshrunk signatures that led here.
    raw: Vec<Signature>,
}

/// Why a fuzz run could not run.
#[derive(Debug, thiserror::Error)]
pub enum FuzzError {
    /// The findings folder could not be used.
    #[error("cannot use the findings folder {path}")]
    Io {
        /// The folder or file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The folder's state belongs to another pair of engines.
    #[error("{path} holds findings of {found}, not of {wanted}; use another --out")]
    OtherEngines {
        /// The state file.
        path: String,
        /// Its engines.
        found: String,
        /// The engines asked for.
        wanted: String,
    },
    /// The state file is not valid.
    #[error("{path} is not a nodesem fuzz state: {message}")]
    BadState {
        /// The state file.
        path: String,
        /// What is wrong.
        message: String,
    },
}

/// Writes `contents` to `path` atomically: a temporary file in the same
/// folder, then a rename.
pub fn write_atomically(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    file.write_all(contents)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Runs the fuzz loop on `engines` until the time, the runs or `stop` end
/// it. `on_group` is called with each new group as soon as its files are
/// written; `on_progress` after each chunk with the summary so far.
pub fn fuzz(
    engines: [&dyn Engine; 2],
    config: &FuzzConfig,
    stop: &AtomicBool,
    on_group: &mut dyn FnMut(&GroupReport),
    on_progress: &mut dyn FnMut(&Summary),
) -> Result<Summary, FuzzError> {
    let start = Instant::now();
    let names = [engines[0].name(), engines[1].name()];
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| FuzzError::Io { path, source }
    };
    std::fs::create_dir_all(&config.out).map_err(io(&config.out))?;
    let state_path = config.out.join("state.json");
    let mut state = match std::fs::read_to_string(&state_path) {
        Ok(text) => serde_json::from_str::<State>(&text).map_err(|e| FuzzError::BadState {
            path: state_path.display().to_string(),
            message: e.to_string(),
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => State {
            engines: names.clone(),
            ..State::default()
        },
        Err(e) => return Err(io(&state_path)(e)),
    };
    if state.engines != names {
        return Err(FuzzError::OtherEngines {
            path: state_path.display().to_string(),
            found: state.engines.join(" vs "),
            wanted: names.join(" vs "),
        });
    }
    let mut raw_to_group: HashMap<Signature, String> = HashMap::new();
    for (id, group) in &state.groups {
        for raw in &group.raw {
            raw_to_group.insert(raw.clone(), id.clone());
        }
    }
    let mut next_seed = config.seed.unwrap_or(state.next_seed);
    let mut summary = Summary {
        engines: names.clone(),
        groups_total: state.groups.len(),
        ..Summary::default()
    };
    let chunk = config.chunk.max(1);
    loop {
        let left = config.runs.map(|r| r.saturating_sub(summary.executions));
        if stop.load(Ordering::Relaxed)
            || left == Some(0)
            || config.time.is_some_and(|t| start.elapsed() >= t)
        {
            break;
        }
        let count = left.map_or(chunk as u64, |l| l.min(chunk as u64)) as usize;
        let seeds: Vec<u64> = (0..count as u64)
            .map(|i| next_seed.wrapping_add(i))
            .collect();
        let results = run_chunk(engines, &seeds, config);
        for (seed, scenario, _) in &results {
            if seed.is_multiple_of(STATS_SAMPLE) {
                summary.generator.record(scenario);
            }
        }
        summary.generator.finish();
        for (seed, scenario, raw) in results {
            let Some(raw) = raw else { continue };
            if crate::check::rerun_instability(engines, &scenario, &config.run).is_some() {
                summary.unstable += 1;
                continue;
            }
            summary.findings += 1;
            if let Some(id) = raw_to_group.get(&raw) {
                if let Some(group) = state.groups.get_mut(id) {
                    group.count += 1;
                }
                continue;
            }
            let shrunk = shrink::shrink(engines, &scenario, &raw, &config.shrink);
            let id = shrunk.signature.id();
            raw_to_group.insert(raw.clone(), id.clone());
            if let Some(group) = state.groups.get_mut(&id) {
                group.count += 1;
                group.raw.push(raw);
                continue;
            }
            let report = GroupReport {
                id: id.clone(),
                signature: shrunk.signature.to_string(),
                seed,
                shrunk_statements: shrunk.statements.1,
                shrink_s: shrunk.elapsed.as_secs_f64(),
            };
            write_group(engines, config, &report, &scenario, &shrunk.scenario)
                .map_err(io(&config.out))?;
            state.groups.insert(
                id,
                GroupState {
                    signature: shrunk.signature,
                    first_seed: seed,
                    count: 1,
                    raw: vec![raw],
                },
            );
            on_group(&report);
            summary.new_groups.push(report);
        }
        next_seed = next_seed.wrapping_add(count as u64);
        summary.executions += count as u64;
        state.next_seed = next_seed;
        state.executions += count as u64;
        let json = serde_json::to_vec_pretty(&state).unwrap_or_default();
        write_atomically(&state_path, &json).map_err(io(&state_path))?;
        summary.groups = summary.new_groups.len();
        summary.groups_total = state.groups.len();
        summary.next_seed = next_seed;
        summary.elapsed_s = start.elapsed().as_secs_f64();
        summary.exec_per_s = summary.executions as f64 / summary.elapsed_s.max(1e-9);
        on_progress(&summary);
    }
    summary.elapsed_s = start.elapsed().as_secs_f64();
    summary.exec_per_s = summary.executions as f64 / summary.elapsed_s.max(1e-9);
    Ok(summary)
}

type ChunkResult = (u64, Scenario, Option<Signature>);

/// Generates and runs one chunk of seeds on both engines, `jobs` threads
/// at a time; each result has the raw signature (and the logs) of a
/// divergence.
fn run_chunk(engines: [&dyn Engine; 2], seeds: &[u64], config: &FuzzConfig) -> Vec<ChunkResult> {
    let jobs = config.jobs.max(1).min(seeds.len().max(1));
    let per_job = seeds.len().div_ceil(jobs);
    std::thread::scope(|scope| {
        let handles: Vec<_> = seeds
            .chunks(per_job.max(1))
            .map(|part| {
                scope.spawn(move || {
                    let scenarios: Vec<Scenario> = part
                        .iter()
                        .map(|&s| config.family.generate_from_seed(s, GENERATED_SIZE))
                        .collect();
                    let signatures = shrink::divergences(engines, &scenarios, &config.run);
                    part.iter()
                        .zip(scenarios)
                        .zip(signatures)
                        .map(|((&seed, scenario), raw)| (seed, scenario, raw))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// A comment line for a finding's header: one line whatever the text holds.
fn comment(text: &str) -> String {
    let line: String = text
        .chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect();
    format!("# {line}\n")
}

/// Writes a new group's three files, each atomically.
fn write_group(
    engines: [&dyn Engine; 2],
    config: &FuzzConfig,
    report: &GroupReport,
    original: &Scenario,
    shrunk: &Scenario,
) -> std::io::Result<()> {
    let names = [engines[0].name(), engines[1].name()];
    let scn = config.out.join(format!("{}.scn", report.id));
    let shown = scn.display().to_string();
    // The divergence of the shrunk scenario, rendered as check and diff do.
    let divergence = Divergence::between(
        &shown,
        &names,
        engines[0].run(shrunk, &config.run),
        engines[1].run(shrunk, &config.run),
        None,
    );
    let mut header = String::new();
    header.push_str(&comment(&format!("nodesem finding {}", report.id)));
    header.push_str(&comment(&format!("engines: {} vs {}", names[0], names[1])));
    let family = match config.family {
        gen::Family::Abort => String::new(),
        other => format!(" --family {}", other.name()),
    };
    header.push_str(&comment(&format!(
        "seed: {} (nodesem gen{family} --seed {} --count 1 prints the original; {}.orig.scn holds it)",
        report.seed, report.seed, report.id
    )));
    header.push_str(&comment(&format!("signature: {}", report.signature)));
    if let Some(d) = &divergence {
        header.push_str(&comment(&d.first_line()));
    }
    header.push_str(&comment(&format!(
        "replay: nodesem diff {} --a {} --b {}",
        shown, names[0], names[1]
    )));
    write_atomically(&scn, format!("{header}{}", print(shrunk)).as_bytes())?;
    let diff = divergence
        .map(|d| render_divergence(&d))
        .unwrap_or_default();
    write_atomically(
        &config.out.join(format!("{}.diff", report.id)),
        diff.as_bytes(),
    )?;
    write_atomically(
        &config.out.join(format!("{}.orig.scn", report.id)),
        print(original).as_bytes(),
    )
}
