//! `nodesem mutants`: how well generated scenarios alone find each known
//! bug of the optimized implementation.
//!
//! A mutant counts as found only when a *generated* scenario finds it, with
//! no curated file in the run: curated scenarios are often written for the
//! mutant they catch, so counting them would measure the authors, not the
//! harness. For each mutant, generated scenarios run on the model and on
//! `impl+<mutant>` until the first divergence or until the mutant's time or
//! run budget is spent; the first divergence is then shrunk, and the report
//! says whether it was found, after how long and how many scenarios, and
//! how small its shrunk reproduction is.

use std::time::{Duration, Instant};

use nodesem_impl::{ImplEngine, Mutant};
use nodesem_lang::{gen, Engine, RunConfig, Scenario};
use nodesem_model::ModelEngine;
use serde::Serialize;

use crate::engines::Guarded;
use crate::fuzz::GENERATED_SIZE;
use crate::shrink::{self, ShrinkConfig};
use crate::signature::Signature;

/// How each mutant is hunted.
#[derive(Clone, Copy, Debug)]
pub struct MutantsConfig {
    /// The longest to look for one mutant.
    pub time: Duration,
    /// The most generated scenarios to try for one mutant.
    pub runs: u64,
    /// The seed of the first scenario (the same for every mutant).
    pub seed: u64,
    /// Threads running scenarios.
    pub jobs: usize,
    /// The limits each scenario runs with.
    pub run: RunConfig,
}

/// What the hunt for one mutant found.
#[derive(Clone, Debug, Serialize)]
pub struct MutantReport {
    /// The mutant's name (`impl+<name>`).
    pub name: String,
    /// Whether a generated scenario showed it.
    pub detected: bool,
    /// Seconds until the first divergent scenario had run.
    pub time_to_detect_s: Option<f64>,
    /// Scenarios run, up to and including the first divergent one.
    pub executions: u64,
    /// The seed of the first divergent scenario.
    pub seed: Option<u64>,
    /// Statements of the first divergent scenario once shrunk.
    pub shrunk_statements: Option<usize>,
    /// The shrunk scenario's signature.
    pub signature: Option<String>,
    /// The shrunk scenario, printed.
    pub shrunk: Option<String>,
}

/// The report of a whole run, as `--format json` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// One entry per mutant.
    pub mutants: Vec<MutantReport>,
    /// How many were detected.
    pub detected: usize,
    /// The median time to detection of the detected ones.
    pub median_time_to_detect_s: Option<f64>,
    /// The median shrunk size of the detected ones.
    pub median_shrunk_statements: Option<f64>,
}

/// The median of some numbers (the mean of the middle two for an even count).
pub fn median(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(|a, b| a.total_cmp(b));
    let mid = values.len() / 2;
    Some(if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    })
}

/// Hunts each of `mutants` with generated scenarios alone.
pub fn hunt_all(
    mutants: &[Mutant],
    config: &MutantsConfig,
    on_done: &mut dyn FnMut(&MutantReport),
) -> Report {
    let reports: Vec<MutantReport> = mutants
        .iter()
        .map(|&m| {
            let report = hunt(m, config);
            on_done(&report);
            report
        })
        .collect();
    let mut times: Vec<f64> = reports.iter().filter_map(|r| r.time_to_detect_s).collect();
    let mut sizes: Vec<f64> = reports
        .iter()
        .filter_map(|r| r.shrunk_statements.map(|s| s as f64))
        .collect();
    Report {
        detected: reports.iter().filter(|r| r.detected).count(),
        median_time_to_detect_s: median(&mut times),
        median_shrunk_statements: median(&mut sizes),
        mutants: reports,
    }
}

/// Hunts one mutant.
pub fn hunt(mutant: Mutant, config: &MutantsConfig) -> MutantReport {
    let model = Guarded(ModelEngine);
    let mutated = Guarded(ImplEngine {
        mutant: Some(mutant),
    });
    let engines: [&dyn Engine; 2] = [&model, &mutated];
    let start = Instant::now();
    let mut executions = 0u64;
    let mut next = config.seed;
    // Small chunks, so that the time to detection is measured finely.
    let chunk = 16 * config.jobs.max(1) as u64;
    let mut found: Option<(u64, Scenario, Signature)> = None;
    while found.is_none() && executions < config.runs && start.elapsed() < config.time {
        let count = chunk.min(config.runs - executions);
        let seeds: Vec<u64> = (0..count).map(|i| next.wrapping_add(i)).collect();
        let results = first_divergent(engines, &seeds, mutant.family(), config);
        match results {
            Some((index, scenario, signature)) => {
                executions += index as u64 + 1;
                found = Some((seeds[index], scenario, signature));
            }
            None => executions += count,
        }
        next = next.wrapping_add(count);
    }
    let time_to_detect = start.elapsed().as_secs_f64();
    let mut report = MutantReport {
        name: mutant.name().to_string(),
        detected: found.is_some(),
        time_to_detect_s: None,
        executions,
        seed: None,
        shrunk_statements: None,
        signature: None,
        shrunk: None,
    };
    if let Some((seed, scenario, signature)) = found {
        let shrunk = shrink::shrink(
            engines,
            &scenario,
            &signature,
            &ShrinkConfig {
                run: config.run,
                ..ShrinkConfig::default()
            },
        );
        report.time_to_detect_s = Some(time_to_detect);
        report.seed = Some(seed);
        report.shrunk_statements = Some(shrunk.statements.1);
        report.signature = Some(shrunk.signature.to_string());
        report.shrunk = Some(nodesem_lang::print(&shrunk.scenario));
    }
    report
}

/// The first seed of `seeds`, in order, whose scenario diverges, with the
/// scenario and its signature; the seeds are split over `jobs` threads.
fn first_divergent(
    engines: [&dyn Engine; 2],
    seeds: &[u64],
    family: gen::Family,
    config: &MutantsConfig,
) -> Option<(usize, Scenario, Signature)> {
    let jobs = config.jobs.max(1).min(seeds.len().max(1));
    let per_job = seeds.len().div_ceil(jobs).max(1);
    let found: Vec<Option<(usize, Scenario, Signature)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = seeds
            .chunks(per_job)
            .enumerate()
            .map(|(part, chunk)| {
                scope.spawn(move || {
                    let scenarios: Vec<Scenario> = chunk
                        .iter()
                        .map(|&s| family.generate_from_seed(s, GENERATED_SIZE))
                        .collect();
                    let signatures = shrink::divergences(engines, &scenarios, &config.run);
                    signatures.into_iter().zip(scenarios).enumerate().find_map(
                        |(i, (sig, scenario))| sig.map(|sig| (part * per_job + i, scenario, sig)),
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().ok().flatten())
            .collect()
    });
    found.into_iter().flatten().min_by_key(|(i, _, _)| *i)
}
