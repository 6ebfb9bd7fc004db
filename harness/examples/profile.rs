//! A fixed workload for profilers: the 1,000 generated scenarios of the
//! `generated` bench, run REPS times on the model, the impl or both.
//!
//! Timings on a shared machine move by 10% between runs; instruction counts
//! do not. To see what a change to the model, impl or runtime saves, count
//! the instructions of a run with and without the scenarios and divide:
//!
//! ```sh
//! cargo build --release -p nodesem-harness --example profile
//! valgrind --tool=cachegrind --cache-sim=no target/release/examples/profile both 0
//! valgrind --tool=cachegrind --cache-sim=no target/release/examples/profile both 2
//! # (I refs of the second - I refs of the first) / 2000 = instructions per scenario
//! ```
//!
//! `--tool=callgrind` on the same command shows where they go. The
//! figures to quote are still the bench's.

use nodesem_impl::ImplEngine;
use nodesem_lang::gen::generate_from_seed;
use nodesem_lang::{Engine, RunConfig, Scenario};
use nodesem_model::ModelEngine;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut args = std::env::args().skip(1);
    let engines = args.next().unwrap_or_else(|| "both".into());
    let reps: usize = match args.next().map(|r| r.parse()) {
        None => 1,
        Some(Ok(reps)) => reps,
        Some(Err(e)) => {
            eprintln!("usage: profile [model|impl|both] [REPS]: {e}");
            std::process::exit(2);
        }
    };
    let scenarios: Vec<Scenario> = (0..1000).map(|s| generate_from_seed(s, 4096)).collect();
    let config = RunConfig::default();
    run_reps(&engines, reps, &scenarios, &config);
}

/// The measured part, apart from generation: profile it alone with
/// `valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*run_reps*'`.
#[inline(never)]
fn run_reps(engines: &str, reps: usize, scenarios: &[Scenario], config: &RunConfig) {
    for _ in 0..reps {
        for s in scenarios {
            if engines != "impl" {
                let _ = ModelEngine.run(s, config);
            }
            if engines != "model" {
                let _ = ImplEngine { mutant: None }.run(s, config);
            }
        }
    }
}
