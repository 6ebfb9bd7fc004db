//! The `nodesem` command line: run, diff, check, fuzz, shrink, bisect,
//! versions, emit-js and fmt.
//!
//! Exit status: 0 when everything agrees, 1 when logs differ (a divergence)
//! or an engine failed, 2 for bad input (an unreadable or malformed scenario,
//! an unknown engine), with the error on stderr.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use nodesem_harness::check::{self, Case};
use nodesem_harness::deviations::DeviationSet;
use nodesem_harness::emit;
use nodesem_harness::engines::engine_by_name;
use nodesem_harness::shrink;
use nodesem_lang::{print, Engine, RunConfig};

#[derive(Parser)]
#[command(
    name = "nodesem",
    version,
    about = "Differential checking of Node.js library semantics: a reference model, an optimized implementation and real Node run the same scenarios and their logs are diffed"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// Which generator makes the generated scenarios (`nodesem_lang::gen::Family`).
#[derive(Clone, Copy, Default, ValueEnum)]
enum FamilyArg {
    /// Abort, dispatch, the event loop and promises.
    #[default]
    Abort,
    /// Readable streams, their readers and microtask rulers.
    Streams,
    /// The abort family with collection points, dropped bindings, watched
    /// objects and a FinalizationRegistry (`gc`, `drop`, `watch`, `alive`).
    Gc,
    /// The streams family with the same collection points.
    StreamsGc,
    /// The abort family with EventEmitters, their listeners and emits.
    Emitter,
    /// The abort family with AsyncLocalStorages, AsyncResources, native
    /// callbacks and store observations in its callbacks.
    Async,
    /// The async family without native callbacks through an AsyncResource,
    /// which Node 26.12.1 runs without the resource's frame (a known bug,
    /// listed in deviations.toml): for checks against that Node.
    AsyncNode26,
}

impl From<FamilyArg> for nodesem_lang::gen::Family {
    fn from(f: FamilyArg) -> Self {
        match f {
            FamilyArg::Abort => nodesem_lang::gen::Family::Abort,
            FamilyArg::Streams => nodesem_lang::gen::Family::Streams,
            FamilyArg::Gc => nodesem_lang::gen::Family::Gc,
            FamilyArg::StreamsGc => nodesem_lang::gen::Family::StreamsGc,
            FamilyArg::Emitter => nodesem_lang::gen::Family::Emitter,
            FamilyArg::Async => nodesem_lang::gen::Family::Async,
            FamilyArg::AsyncNode26 => nodesem_lang::gen::Family::AsyncNode26,
        }
    }
}

/// The options `bisect` and `versions` pass to every Node release.
#[derive(clap::Args)]
struct NodeOptions {
    /// An option for every Node binary, such as --no-async-context-frame (repeatable).
    #[arg(
        long = "node-option",
        value_name = "OPTION",
        allow_hyphen_values = true
    )]
    node_options: Vec<String>,
}

#[derive(clap::Args, Clone, Copy)]
struct Limits {
    /// The most script callbacks a scenario may run (at most 10000000).
    #[arg(long, default_value_t = RunConfig::default().budget)]
    budget: u32,
    /// The deepest script callbacks may nest (at most 256).
    #[arg(long, default_value_t = RunConfig::default().max_depth)]
    max_depth: u32,
    /// The most steps of work a scenario may do (at most 1000000000).
    #[arg(long, default_value_t = RunConfig::default().work)]
    work: u64,
    /// The most bytes a scenario's log may hold (at most 1073741824).
    #[arg(long, default_value_t = RunConfig::default().max_log_bytes)]
    max_log_bytes: u64,
}

impl Limits {
    /// The run configuration, checked against the documented maxima.
    fn config(self) -> Result<RunConfig, BadInput> {
        let config = RunConfig {
            budget: self.budget,
            max_depth: self.max_depth,
            work: self.work,
            max_log_bytes: self.max_log_bytes,
        };
        config.validate().map_err(|e| bad(anyhow::anyhow!(e)))?;
        Ok(config)
    }
}

#[derive(Subcommand)]
enum Command {
    /// Prints the log of each scenario on one engine.
    Run {
        /// Scenario files or folders.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// model, impl, impl+<mutant>, node or node:<path>.
        #[arg(long, default_value = "model")]
        engine: String,
        #[command(flatten)]
        limits: Limits,
    },
    /// Runs each scenario on two engines and prints a unified diff of the logs.
    Diff {
        /// Scenario files or folders.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The reference engine.
        #[arg(long, default_value = "model")]
        a: String,
        /// The engine compared with it.
        #[arg(long, default_value = "impl")]
        b: String,
        #[command(flatten)]
        limits: Limits,
    },
    /// Runs every scenario under the paths, plus generated ones, on every engine; reports every difference.
    Check {
        /// Scenario files or folders (default: scenarios/).
        paths: Vec<PathBuf>,
        /// Engines, comma-separated; each is compared with the first.
        #[arg(long, default_value = "model,impl", value_delimiter = ',')]
        engines: Vec<String>,
        /// How many generated scenarios to add (at most 100000000; they are made as they are checked).
        #[arg(long, default_value_t = 0)]
        generated: usize,
        /// The seed of the first generated scenario.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The generator of the generated scenarios.
        #[arg(long, value_enum, default_value = "abort")]
        family: FamilyArg,
        /// The report format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// The reviewed list of accepted differences with Node (default: deviations.toml, if present).
        #[arg(long)]
        deviations: Option<PathBuf>,
        /// Only the scenario files that use timers, intervals, immediates, timeout signals or `run advance` (for node?clock=real).
        #[arg(long)]
        only_timers: bool,
        #[command(flatten)]
        limits: Limits,
    },
    /// Generates scenarios and diffs two engines on them, shrinking every new divergence into a finding.
    Fuzz {
        /// The reference engine.
        #[arg(long, default_value = "model")]
        a: String,
        /// The engine compared with it.
        #[arg(long, default_value = "impl")]
        b: String,
        /// How long to run, such as 90s, 30m or 8h (default: until --runs or Ctrl-C).
        #[arg(long, value_parser = parse_duration)]
        time: Option<std::time::Duration>,
        /// How many scenarios to run.
        #[arg(long)]
        runs: Option<u64>,
        /// Threads (default: one per core; 1 when an engine is Node, which uses its own workers).
        #[arg(long)]
        jobs: Option<usize>,
        /// The findings folder; a run into an existing one resumes it.
        #[arg(long, default_value = "findings")]
        out: PathBuf,
        /// The first seed (default: where the folder's last run stopped, or 0).
        #[arg(long)]
        seed: Option<u64>,
        /// The generator of the generated scenarios.
        #[arg(long, value_enum, default_value = "abort")]
        family: FamilyArg,
        /// The report format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        limits: Limits,
    },
    /// Measures how well generated scenarios alone (no curated file) find each mutant of impl.
    Mutants {
        /// The longest to look for each mutant, such as 30s or 2m.
        #[arg(long, value_parser = parse_duration, default_value = "30s")]
        time: std::time::Duration,
        /// The most generated scenarios to try for each mutant.
        #[arg(long, default_value_t = 1_000_000)]
        runs: u64,
        /// The seed of the first scenario (each mutant is hunted with the
        /// generator of its family: abort and dispatch, or streams).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Only these mutants (default: all of them).
        #[arg(long = "mutant", value_name = "NAME")]
        only: Vec<String>,
        /// The report format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        limits: Limits,
    },
    /// Prints generated scenarios, or statistics of what they do on the model.
    Gen {
        /// The seed of the first scenario.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// How many scenarios.
        #[arg(long, default_value_t = 1)]
        count: u64,
        /// The generator of the generated scenarios.
        #[arg(long, value_enum, default_value = "abort")]
        family: FamilyArg,
        /// Instead of printing them, run N scenarios on the model and print statistics as JSON.
        #[arg(long, value_name = "N")]
        stats: Option<u64>,
    },
    /// Shrinks a divergent scenario to a small one that diverges the same way.
    Shrink {
        /// The scenario file.
        file: PathBuf,
        /// The reference engine.
        #[arg(long, default_value = "model")]
        a: String,
        /// The engine compared with it.
        #[arg(long, default_value = "impl")]
        b: String,
        /// Where to write the shrunk scenario (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        limits: Limits,
    },
    /// Finds the first Node release between two where a scenario's log changes, by bisection over the registry's releases.
    ///
    /// Exit status: 0 when a change was found for every scenario, 1 when
    /// some scenario gives the same log (or the same engine error) on both
    /// releases, 2 for bad input or when a release cannot be listed or
    /// installed.
    Bisect {
        /// Scenario files or folders (one answer per scenario).
        paths: Vec<PathBuf>,
        /// The release that gives the old log, such as 20, 22.12 or 22.12.0 (default: a --finding's first engine).
        #[arg(long)]
        good: Option<String>,
        /// The release that gives the new log (default: a --finding's second engine); newer than --good.
        #[arg(long)]
        bad: Option<String>,
        /// A finding of nodesem fuzz (DIR/ID.scn): its scenario, and its engines if they are node@VERSION.
        #[arg(long)]
        finding: Option<PathBuf>,
        /// Also bisect over the releases between --good and --bad that cannot run the prelude (no process.getBuiltinModule: 21.x, 22.0 to 22.2, 20.15 and before); each gives every scenario an engine error.
        #[arg(long)]
        all_releases: bool,
        #[command(flatten)]
        node_options: NodeOptions,
        #[command(flatten)]
        limits: Limits,
    },
    /// Runs scenarios on several Node releases and groups the releases that give identical logs.
    ///
    /// Exit status: 0 when every release agrees on every scenario, 1 when
    /// some differ, 2 for bad input or when a release cannot be installed.
    Versions {
        /// Scenario files or folders.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The releases, comma-separated, such as 20,22,24,26 or 22.12.0.
        #[arg(long, required = true, value_delimiter = ',')]
        versions: Vec<String>,
        /// Also print a diff from the first group's log to each other group's.
        #[arg(long)]
        diff: bool,
        #[command(flatten)]
        node_options: NodeOptions,
        #[command(flatten)]
        limits: Limits,
    },
    /// Prints a scenario as a standalone JavaScript (ESM) program for Node.
    EmitJs {
        /// The scenario file.
        file: PathBuf,
        /// A plain program instead: no prelude, no flags, real timers and
        /// process hooks (refused, exit 2, where real Node could order it
        /// otherwise).
        #[arg(long, conflicts_with = "node_test")]
        plain: bool,
        /// A test in the form of Node's test/parallel (common.mustCall, the
        /// log checked with assert.deepStrictEqual); refused as --plain is.
        #[arg(long)]
        node_test: bool,
    },
    /// Prints a scenario in the canonical text form.
    Fmt {
        /// The scenario file.
        file: PathBuf,
    },
}

/// The engines allocate and free many small objects per scenario (values,
/// environments, listener nodes, log lines); with glibc's allocator that was
/// about 40% of a model-against-impl run.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// An error that means bad input (exit 2) rather than a divergence.
struct BadInput(anyhow::Error);

fn main() -> ExitCode {
    let cli = Cli::parse();
    install_signal_handler(matches!(cli.command, Command::Fuzz { .. }));
    match run(cli) {
        Ok(code) => code,
        Err(BadInput(e)) => {
            eprintln!("nodesem: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn bad<E: Into<anyhow::Error>>(e: E) -> BadInput {
    BadInput(e.into())
}

/// The engine named `spec`, once it has shown it can run scenarios at all
/// ([`Engine::preflight`]): a broken one is reported here, once.
fn engine(spec: &str) -> Result<Box<dyn Engine>, BadInput> {
    let engine = engine_by_name(spec).map_err(bad)?;
    engine
        .preflight()
        .map_err(|e| bad(anyhow::anyhow!("engine `{spec}` cannot run scenarios: {e}")))?;
    Ok(engine)
}

fn load(files: &[PathBuf]) -> Result<Vec<Case>, BadInput> {
    check::load_cases(files).map_err(bad)
}

/// `90s`, `30m`, `8h`, `2d` or a number of seconds.
fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit() && c != '.') {
        Some(i) => text.split_at(i),
        None => (text, "s"),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("expected a duration such as 90s, 30m or 8h, found `{text}`"))?;
    let seconds = match unit {
        "s" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        "d" => value * 86400.0,
        _ => return Err(format!("expected a unit s, m, h or d, found `{unit}`")),
    };
    if !seconds.is_finite() || !(0.0..=1e9).contains(&seconds) {
        return Err(format!("the duration `{text}` is out of range"));
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}

/// `nodesem fuzz`.
#[allow(clippy::too_many_arguments)]
fn fuzz_command(
    a: String,
    b: String,
    time: Option<std::time::Duration>,
    runs: Option<u64>,
    jobs: Option<usize>,
    out: PathBuf,
    seed: Option<u64>,
    family: FamilyArg,
    format: Format,
    limits: Limits,
) -> Result<ExitCode, BadInput> {
    use nodesem_harness::fuzz::{fuzz, FuzzConfig};
    let (ea, eb) = (engine(&a)?, engine(&b)?);
    let uses_node = [&a, &b].iter().any(|s| s.trim().starts_with("node"));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let run = limits.config()?;
    let config = FuzzConfig {
        time,
        runs,
        jobs: jobs.unwrap_or(if uses_node { 1 } else { cores }),
        out,
        seed,
        run,
        shrink: nodesem_harness::shrink::ShrinkConfig {
            run,
            batch: shrink_batch(&[&a, &b]),
            ..Default::default()
        },
        chunk: if uses_node { 2000 } else { 500 },
        family: family.into(),
    };
    let bar = indicatif::ProgressBar::new_spinner();
    if matches!(format, Format::Json) {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(250));
    let text = matches!(format, Format::Text);
    let mut on_group = |g: &nodesem_harness::fuzz::GroupReport| {
        if text {
            // On stdout, above the progress bar (which is hidden when stderr
            // is not a terminal), so a log of the run keeps every group.
            bar.suspend(|| {
                println!(
                    "NEW GROUP {} (seed {}, shrunk to {} statements in {:.2} s): {}",
                    g.id, g.seed, g.shrunk_statements, g.shrink_s, g.signature
                )
            });
        }
    };
    let mut on_progress = |s: &nodesem_harness::fuzz::Summary| {
        bar.set_message(format!(
            "{} executions, {:.0}/s, {} findings, {} new groups ({} in the folder)",
            s.executions, s.exec_per_s, s.findings, s.groups, s.groups_total
        ));
    };
    let summary = fuzz(
        [ea.as_ref(), eb.as_ref()],
        &config,
        stop_flag(),
        &mut on_group,
        &mut on_progress,
    )
    .map_err(bad)?;
    bar.finish_and_clear();
    let mut stdout = std::io::stdout().lock();
    match format {
        Format::Text => {
            let _ = writeln!(
                stdout,
                "fuzzed {} scenarios on {} vs {} in {:.1} s ({:.0} executions/s): {} divergent, {} unstable, {} new groups, {} groups in {}; next seed {}",
                summary.executions,
                summary.engines[0],
                summary.engines[1],
                summary.elapsed_s,
                summary.exec_per_s,
                summary.findings,
                summary.unstable,
                summary.groups,
                summary.groups_total,
                config.out.display(),
                summary.next_seed
            );
        }
        Format::Json => {
            let json = serde_json::to_string_pretty(&summary)
                .context("serializing the summary")
                .map_err(bad)?;
            let _ = writeln!(stdout, "{json}");
        }
    }
    Ok(if summary.groups == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The options for every Node binary, each of which must start with `--`.
fn checked_node_options(options: Vec<String>) -> Result<Vec<String>, BadInput> {
    match options.iter().find(|o| !o.starts_with("--") || o.len() < 3) {
        Some(o) => Err(bad(anyhow::anyhow!(
            "--node-option `{o}` is not an option of the form --name or --name=value"
        ))),
        None => Ok(options),
    }
}

/// `nodesem bisect`.
fn bisect_command(
    paths: Vec<PathBuf>,
    good: Option<String>,
    bad_release: Option<String>,
    finding: Option<PathBuf>,
    all_releases: bool,
    node_options: Vec<String>,
    limits: Limits,
) -> Result<ExitCode, BadInput> {
    use nodesem_harness::bisect::{
        bisect_many, finding_engines, release_of_engine, render_bisection, Answer, ReleaseRunner,
    };
    use nodesem_harness::releases::{between, runs_the_prelude, Releases};
    let started = std::time::Instant::now();
    let config = limits.config()?;
    let node_options = checked_node_options(node_options)?;
    let mut cases = Vec::new();
    let (mut good, mut bad_release) = (good, bad_release);
    if let Some(finding) = &finding {
        let text = std::fs::read_to_string(finding)
            .with_context(|| format!("cannot read {}", finding.display()))
            .map_err(bad)?;
        if let Some((a, b)) = finding_engines(&text) {
            good = good.or_else(|| release_of_engine(&a).map(str::to_string));
            bad_release = bad_release.or_else(|| release_of_engine(&b).map(str::to_string));
        }
        cases.extend(load(std::slice::from_ref(finding))?);
    }
    if !paths.is_empty() {
        cases.extend(load(&paths)?);
    }
    if cases.is_empty() {
        return Err(bad(anyhow::anyhow!(
            "nothing to bisect: give scenario files, a folder or --finding DIR/ID.scn"
        )));
    }
    let (Some(good), Some(bad_release)) = (good, bad_release) else {
        return Err(bad(anyhow::anyhow!(
            "--good and --bad are needed (a --finding supplies them only when its engines are node@VERSION)"
        )));
    };
    let releases = Releases::from_env().map_err(bad)?;
    let good_v = releases.resolve(&good).map_err(bad)?;
    let bad_v = releases.resolve(&bad_release).map_err(bad)?;
    if good_v >= bad_v {
        return Err(bad(anyhow::anyhow!(
            "--good ({good} = {good_v}) must be an older release than --bad ({bad_release} = {bad_v})"
        )));
    }
    let list = releases.list().map_err(bad)?;
    let (inner, left_out): (Vec<_>, Vec<_>) = between(&list, good_v, bad_v)
        .into_iter()
        .partition(|v| all_releases || runs_the_prelude(*v));
    if !left_out.is_empty() {
        eprintln!(
            "nodesem: leaving out {} releases that cannot run the prelude (no process.getBuiltinModule): {} to {} (--all-releases keeps them)",
            left_out.len(),
            left_out[0],
            left_out[left_out.len() - 1]
        );
    }
    let mut range = vec![good_v];
    range.extend(inner);
    range.push(bad_v);
    eprintln!(
        "nodesem: bisecting {} scenario{} over {} releases from {good_v} to {bad_v} (cache {})",
        cases.len(),
        if cases.len() == 1 { "" } else { "s" },
        range.len(),
        releases.dir().display()
    );
    let scenarios: Vec<_> = cases.iter().map(|c| c.scenario.clone()).collect();
    let mut runner = ReleaseRunner::new(&releases, &scenarios, config, node_options);
    let answers = bisect_many(&range, scenarios.len(), &mut |v, which| {
        runner.run(v, which)
    });
    if let Some(e) = runner.failed.take() {
        return Err(bad(e));
    }
    let mut stdout = std::io::stdout().lock();
    let mut unchanged = 0;
    for (case, answer) in cases.iter().zip(&answers) {
        if matches!(answer.answer, Answer::Same { .. }) {
            unchanged += 1;
        }
        let _ = write!(
            stdout,
            "{}",
            render_bisection(&case.name, good_v, bad_v, answer)
        );
    }
    let _ = writeln!(
        stdout,
        "bisected {} scenario{} over {} releases ({good_v} to {bad_v}) in {:.1} s: {} releases run, {} installed now ({:.1} s installing, {:.1} s running)",
        cases.len(),
        if cases.len() == 1 { "" } else { "s" },
        range.len(),
        started.elapsed().as_secs_f64(),
        runner.releases_run,
        runner.downloaded,
        runner.install_time.as_secs_f64(),
        runner.run_time.as_secs_f64(),
    );
    Ok(if unchanged == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `nodesem versions`.
fn versions_command(
    files: Vec<PathBuf>,
    versions: Vec<String>,
    diff: bool,
    node_options: Vec<String>,
    limits: Limits,
) -> Result<ExitCode, BadInput> {
    use nodesem_harness::bisect::{group_outcomes, render_diff, render_groups, ReleaseRunner};
    use nodesem_harness::releases::Releases;
    let config = limits.config()?;
    let node_options = checked_node_options(node_options)?;
    let cases = load(&files)?;
    let releases = Releases::from_env().map_err(bad)?;
    let mut resolved = Vec::new();
    for spec in &versions {
        let v = releases.resolve(spec).map_err(bad)?;
        if !resolved.contains(&v) {
            resolved.push(v);
        }
    }
    let scenarios: Vec<_> = cases.iter().map(|c| c.scenario.clone()).collect();
    let all: Vec<usize> = (0..scenarios.len()).collect();
    let mut runner = ReleaseRunner::new(&releases, &scenarios, config, node_options);
    let mut outcomes = Vec::new();
    for &v in &resolved {
        outcomes.push(runner.run(v, &all));
        if let Some(e) = runner.failed.take() {
            return Err(bad(e));
        }
    }
    let mut stdout = std::io::stdout().lock();
    let mut differ = false;
    for (s, case) in cases.iter().enumerate() {
        let row: Vec<_> = resolved
            .iter()
            .zip(&outcomes)
            .map(|(v, o)| (*v, o[s].clone()))
            .collect();
        let groups = group_outcomes(&row);
        differ |= groups.len() > 1;
        let _ = writeln!(stdout, "{}: {}", case.name, render_groups(&groups));
        if diff {
            for (i, g) in groups.iter().enumerate().skip(1) {
                let _ = write!(
                    stdout,
                    "{}",
                    render_diff(
                        &format!("A node@{}", groups[0].versions[0]),
                        &groups[0].outcome,
                        &format!(
                            "{} node@{}",
                            nodesem_harness::bisect::group_label(i),
                            g.versions[0]
                        ),
                        &g.outcome
                    )
                );
            }
        }
    }
    Ok(if differ {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// SIGINT, SIGTERM and SIGHUP end nodesem and every Node worker it started.
/// A fuzz run (`graceful`) first finishes its chunk, writes its state and
/// prints its summary; a second signal ends it at once.
fn install_signal_handler(graceful: bool) {
    let _ = ctrlc::set_handler(move || {
        if graceful && !stop_flag().swap(true, std::sync::atomic::Ordering::SeqCst) {
            eprintln!("nodesem: stopping after the current chunk (again to stop at once)");
            return;
        }
        nodesem_harness::node::kill_all_workers();
        std::process::exit(130);
    });
}

/// Set when the user asked the run to stop (SIGINT, SIGTERM): long commands
/// finish their current chunk and report.
fn stop_flag() -> &'static std::sync::atomic::AtomicBool {
    static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    &STOP
}

/// How many shrink candidates run together: Node engines take batches.
fn shrink_batch(specs: &[&str]) -> usize {
    if specs.iter().any(|s| s.trim().starts_with("node")) {
        32
    } else {
        1
    }
}

fn run(cli: Cli) -> Result<ExitCode, BadInput> {
    let mut stdout = std::io::stdout().lock();
    match cli.command {
        Command::Run {
            files,
            engine: spec,
            limits,
        } => {
            let cases = load(&files)?;
            let engine = engine(&spec)?;
            let scenarios: Vec<_> = cases.iter().map(|c| c.scenario.clone()).collect();
            let results = engine.run_batch(&scenarios, &limits.config()?);
            let mut failed = false;
            for (case, result) in cases.iter().zip(results) {
                if cases.len() > 1 {
                    let _ = writeln!(stdout, "== {}", case.name);
                }
                match result {
                    Ok(log) => {
                        let _ = write!(stdout, "{log}");
                    }
                    Err(e) => {
                        eprintln!("nodesem: {}: {e}", case.name);
                        failed = true;
                    }
                }
            }
            Ok(if failed {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Diff {
            files,
            a,
            b,
            limits,
        } => {
            let cases = load(&files)?;
            let (ea, eb) = (engine(&a)?, engine(&b)?);
            let scenarios: Vec<_> = cases.iter().map(|c| c.scenario.clone()).collect();
            let config = limits.config()?;
            let (ra, rb) = (
                ea.run_batch(&scenarios, &config),
                eb.run_batch(&scenarios, &config),
            );
            let mut differ = false;
            let names = [ea.name(), eb.name()];
            for ((case, la), lb) in cases.iter().zip(ra).zip(rb) {
                let lines = la.as_ref().map_or(0, |l| l.lines.len());
                match check::Divergence::between(&case.name, &names, la, lb, None) {
                    None => {
                        let _ = writeln!(
                            stdout,
                            "{}: {} and {} agree ({lines} lines)",
                            case.name, names[0], names[1]
                        );
                    }
                    Some(d) => {
                        differ = true;
                        let _ = write!(stdout, "{}", check::render_divergence(&d));
                    }
                }
            }
            Ok(if differ {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Check {
            paths,
            engines,
            generated,
            seed,
            family,
            format,
            deviations,
            only_timers,
            limits,
        } => {
            let paths = if paths.is_empty() {
                vec![PathBuf::from("scenarios")]
            } else {
                paths
            };
            if generated > check::MAX_GENERATED {
                return Err(bad(anyhow::anyhow!(
                    "--generated is at most {}, not {generated}",
                    check::MAX_GENERATED
                )));
            }
            let mut files = load(&paths)?;
            if only_timers {
                files.retain(|case| nodesem_harness::realclock::uses_clock(&case.scenario));
            }
            let cases = check::Cases {
                files,
                generated,
                seed,
                family: family.into(),
            };
            if cases.is_empty() {
                return Err(bad(anyhow::anyhow!(
                    "nothing to check: no scenario file under {} and --generated 0",
                    paths
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            if engines.len() < 2 {
                return Err(bad(anyhow::anyhow!(
                    "--engines needs at least two engines to compare"
                )));
            }
            let engines = engines
                .iter()
                .map(|s| engine(s))
                .collect::<Result<Vec<_>, _>>()?;
            let deviations =
                DeviationSet::load_or_default(deviations.as_deref(), Path::new("deviations.toml"))
                    .map_err(bad)?;
            let config = limits.config()?;
            let report = match format {
                Format::Text => {
                    // Each divergence is printed as soon as its chunk has run,
                    // so an interrupted long run has shown what it found.
                    let mut print_now = |d: &check::Divergence| {
                        let _ = write!(stdout, "{}", check::render_divergence(d));
                        let _ = stdout.flush();
                    };
                    let report =
                        check::check_with(&cases, &engines, &config, &deviations, &mut print_now);
                    let _ = write!(stdout, "{}", check::render_summary(&report));
                    report
                }
                Format::Json => {
                    let report = check::check(&cases, &engines, &config, &deviations);
                    let json = serde_json::to_string_pretty(&report)
                        .context("serializing the report")
                        .map_err(bad)?;
                    let _ = writeln!(stdout, "{json}");
                    report
                }
            };
            Ok(if report.ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Fuzz {
            a,
            b,
            time,
            runs,
            jobs,
            out,
            seed,
            family,
            format,
            limits,
        } => fuzz_command(a, b, time, runs, jobs, out, seed, family, format, limits),
        Command::Mutants {
            time,
            runs,
            seed,
            only,
            format,
            limits,
        } => {
            use nodesem_harness::mutants::{hunt_all, MutantsConfig};
            let mutants = if only.is_empty() {
                nodesem_impl::Mutant::ALL.to_vec()
            } else {
                only.iter()
                    .map(|name| {
                        name.parse::<nodesem_impl::Mutant>()
                            .map_err(|e| bad(anyhow::anyhow!("{e}")))
                    })
                    .collect::<Result<Vec<_>, _>>()?
            };
            let config = MutantsConfig {
                time,
                runs,
                seed,
                jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
                run: limits.config()?,
            };
            let text = matches!(format, Format::Text);
            let mut on_done = |r: &nodesem_harness::mutants::MutantReport| {
                if text {
                    let _ = match (r.time_to_detect_s, r.shrunk_statements) {
                        (Some(t), Some(n)) => writeln!(
                            std::io::stdout(),
                            "{:32} found after {:>7} scenarios, {:>7.2} s; shrunk to {n} statements (seed {})",
                            r.name,
                            r.executions,
                            t,
                            r.seed.unwrap_or_default()
                        ),
                        _ => writeln!(
                            std::io::stdout(),
                            "{:32} NOT FOUND in {} scenarios",
                            r.name, r.executions
                        ),
                    };
                }
            };
            let report = hunt_all(&mutants, &config, &mut on_done);
            match format {
                Format::Text => {
                    let _ = writeln!(
                        stdout,
                        "{} of {} mutants found by generated scenarios alone; median time to detection {}, median shrunk size {}",
                        report.detected,
                        report.mutants.len(),
                        report.median_time_to_detect_s.map_or("-".into(), |t| format!("{t:.2} s")),
                        report.median_shrunk_statements.map_or("-".into(), |n| format!("{n} statements")),
                    );
                }
                Format::Json => {
                    let json = serde_json::to_string_pretty(&report)
                        .context("serializing the report")
                        .map_err(bad)?;
                    let _ = writeln!(stdout, "{json}");
                }
            }
            Ok(if report.detected == report.mutants.len() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Gen {
            seed,
            count,
            family,
            stats,
        } => {
            match stats {
                None => {
                    for i in 0..count {
                        let s = seed.wrapping_add(i);
                        let scenario = nodesem_lang::gen::Family::from(family)
                            .generate_from_seed(s, nodesem_harness::fuzz::GENERATED_SIZE);
                        let _ = writeln!(stdout, "# seed {s}");
                        let _ = write!(stdout, "{}", print(&scenario));
                    }
                }
                Some(n) => {
                    let stats = nodesem_harness::gen_stats::measure_family(family.into(), seed, n);
                    let json = serde_json::to_string_pretty(&stats)
                        .context("serializing the statistics")
                        .map_err(bad)?;
                    let _ = writeln!(stdout, "{json}");
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Shrink {
            file,
            a,
            b,
            output,
            limits,
        } => {
            let scenario = check::load_file(&file).map_err(bad)?;
            let (ea, eb) = (engine(&a)?, engine(&b)?);
            let config = nodesem_harness::shrink::ShrinkConfig {
                run: limits.config()?,
                batch: shrink_batch(&[&a, &b]),
                ..Default::default()
            };
            let engines = [ea.as_ref(), eb.as_ref()];
            let Some(signature) = shrink::divergence(engines, &scenario, &config.run) else {
                eprintln!(
                    "nodesem: {}: {} and {} agree; nothing to shrink",
                    file.display(),
                    ea.name(),
                    eb.name()
                );
                return Ok(ExitCode::FAILURE);
            };
            let shrunk = shrink::shrink(engines, &scenario, &signature, &config);
            let text = print(&shrunk.scenario);
            match output {
                Some(path) => std::fs::write(&path, &text)
                    .with_context(|| format!("cannot write {}", path.display()))
                    .map_err(bad)?,
                None => {
                    let _ = write!(stdout, "{text}");
                }
            }
            eprintln!(
                "nodesem: shrunk {} from {} to {} statements in {:.2} s ({} candidates); it keeps {}",
                file.display(),
                shrunk.statements.0,
                shrunk.statements.1,
                shrunk.elapsed.as_secs_f64(),
                shrunk.candidates,
                shrunk.signature
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Bisect {
            paths,
            good,
            bad,
            finding,
            all_releases,
            node_options,
            limits,
        } => bisect_command(
            paths,
            good,
            bad,
            finding,
            all_releases,
            node_options.node_options,
            limits,
        ),
        Command::Versions {
            files,
            versions,
            diff,
            node_options,
            limits,
        } => versions_command(files, versions, diff, node_options.node_options, limits),
        Command::EmitJs {
            file,
            plain,
            node_test,
        } if plain || node_test => {
            let scenario = check::load_file(&file).map_err(bad)?;
            let flavour = if plain {
                nodesem_harness::plain::Flavour::Plain
            } else {
                nodesem_harness::plain::Flavour::NodeTest
            };
            let text = std::fs::read_to_string(&file).ok();
            match nodesem_harness::plain::emit(
                &scenario,
                flavour,
                &file.display().to_string(),
                text.as_deref(),
            ) {
                Ok(program) => {
                    let _ = write!(stdout, "{program}");
                    Ok(ExitCode::SUCCESS)
                }
                Err(refusal) => {
                    let flag = if plain { "--plain" } else { "--node-test" };
                    eprintln!("nodesem: {} cannot be {flag}: {refusal}", file.display());
                    Ok(ExitCode::from(2))
                }
            }
        }
        Command::EmitJs { file, .. } => {
            let scenario = check::load_file(&file).map_err(bad)?;
            let _ = write!(
                stdout,
                "{}",
                emit::emit_program(&scenario, &file.display().to_string())
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Fmt { file } => {
            let scenario = check::load_file(&file).map_err(bad)?;
            let _ = write!(stdout, "{}", print(&scenario));
            Ok(ExitCode::SUCCESS)
        }
    }
}
