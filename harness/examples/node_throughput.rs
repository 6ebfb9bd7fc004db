//! Measures the Node engine's throughput: a batch of generated scenarios
//! through `NodeEngine::run_batch` on the pinned Node, in scenarios per second.
//!
//! The fuzz loop's speed against real Node is bounded by this number, so it is
//! worth re-measuring after any change to the server, the prelude or the
//! engine. Run: `cargo run --release -p nodesem-harness --example node_throughput [N] [SIZE]`
//! (default N = 5000 scenarios made from SIZE = 1500 generator bytes each, the
//! fuzz loop's size). The first, warm-up batch starts the Node processes;
//! the timed batch reuses them, as a fuzz loop does.

use std::time::Instant;

use nodesem_harness::node::NodeEngine;
use nodesem_lang::gen::generate_from_seed;
use nodesem_lang::{Engine, RunConfig, Scenario};

fn main() {
    let count: u64 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(5000);
    let engine = match NodeEngine::pinned() {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let size: usize = std::env::args()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(1500);
    let config = RunConfig::default();
    // Abort/dispatch-sized scenarios, as the generator makes them.
    let scenarios: Vec<Scenario> = (0..count)
        .map(|seed| generate_from_seed(seed, size))
        .collect();

    let start = Instant::now();
    let warm = engine.run_batch(&scenarios[..scenarios.len().min(200)], &config);
    let warm_up = start.elapsed();

    let start = Instant::now();
    let results = engine.run_batch(&scenarios, &config);
    let elapsed = start.elapsed();

    let failed = results.iter().chain(&warm).filter(|r| r.is_err()).count();
    let lines: usize = results.iter().flatten().map(|log| log.lines.len()).sum();
    println!(
        "{count} scenarios of {size} generator bytes ({lines} log lines) in {:.3} s on {} worker processes: {:.0} scenarios/s \
         (warm-up batch with process start: {:.0} ms; {failed} failed)",
        elapsed.as_secs_f64(),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        count as f64 / elapsed.as_secs_f64(),
        warm_up.as_secs_f64() * 1000.0,
    );
}
