//! The `nodesem` command line: run, diff, check, emit-js and fmt.
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
        /// The report format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// The reviewed list of accepted differences with Node (default: deviations.toml, if present).
        #[arg(long)]
        deviations: Option<PathBuf>,
        #[command(flatten)]
        limits: Limits,
    },
    /// Prints a scenario as a standalone JavaScript (ESM) program for Node.
    EmitJs {
        /// The scenario file.
        file: PathBuf,
    },
    /// Prints a scenario in the canonical text form.
    Fmt {
        /// The scenario file.
        file: PathBuf,
    },
}

/// An error that means bad input (exit 2) rather than a divergence.
struct BadInput(anyhow::Error);

fn main() -> ExitCode {
    let cli = Cli::parse();
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

fn engine(spec: &str) -> Result<Box<dyn Engine>, BadInput> {
    engine_by_name(spec).map_err(bad)
}

fn load(files: &[PathBuf]) -> Result<Vec<Case>, BadInput> {
    check::load_cases(files).map_err(bad)
}

fn show(line: Option<String>) -> String {
    line.map_or("nothing (its log ended)".to_string(), |l| format!("`{l}`"))
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
            for ((case, la), lb) in cases.iter().zip(ra).zip(rb) {
                let (la, lb) = match (la, lb) {
                    (Ok(la), Ok(lb)) => (la, lb),
                    (la, lb) => {
                        for (name, r) in [(ea.name(), la), (eb.name(), lb)] {
                            if let Err(e) = r {
                                let _ = writeln!(stdout, "{}: {name} failed: {e}", case.name);
                            }
                        }
                        differ = true;
                        continue;
                    }
                };
                match check::first_difference(&la, &lb) {
                    None => {
                        let _ = writeln!(
                            stdout,
                            "{}: {} and {} agree ({} lines)",
                            case.name,
                            ea.name(),
                            eb.name(),
                            la.lines.len()
                        );
                    }
                    Some((line, x, y)) => {
                        differ = true;
                        let _ = writeln!(
                            stdout,
                            "{}: first difference at log line {line}: {} has {}, {} has {}",
                            case.name,
                            ea.name(),
                            show(x),
                            eb.name(),
                            show(y)
                        );
                        let header_a = format!("{} ({})", case.name, ea.name());
                        let header_b = format!("{} ({})", case.name, eb.name());
                        let _ = write!(
                            stdout,
                            "{}",
                            check::unified_diff(&la, &lb, &header_a, &header_b)
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
        Command::Check {
            paths,
            engines,
            generated,
            seed,
            format,
            deviations,
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
            let cases = check::Cases {
                files: load(&paths)?,
                generated,
                seed,
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
        Command::EmitJs { file } => {
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
