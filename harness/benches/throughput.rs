//! Throughput of each engine on the curated abort and dispatch suite: the
//! reference model, the optimized implementation and the pinned Node 26.12.1
//! through the batched Node engine (warm worker processes, as `check` and a
//! fuzz loop use them). Criterion reports the median time per batch and the
//! scenarios per second.
//!
//! Run: `cargo bench -p nodesem-harness --bench throughput`.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nodesem_harness::check::load_cases;
use nodesem_harness::engines::engine_by_name;
use nodesem_lang::{RunConfig, Scenario};

fn curated_abort_and_dispatch() -> Vec<Scenario> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("scenarios");
    load_cases(&[root.join("abort"), root.join("dispatch")])
        .expect("the curated scenarios parse")
        .into_iter()
        .map(|c| c.scenario)
        .collect()
}

fn throughput(c: &mut Criterion) {
    let scenarios = curated_abort_and_dispatch();
    let config = RunConfig::default();
    let mut group = c.benchmark_group("curated abort+dispatch suite");
    group.throughput(Throughput::Elements(scenarios.len() as u64));
    group.sample_size(20);
    for name in ["model", "impl", "node"] {
        let engine = match engine_by_name(name) {
            Ok(engine) => engine,
            Err(e) => {
                eprintln!("skipping {name}: {e}");
                continue;
            }
        };
        // Warm up: the Node engine starts its worker processes here.
        let warm = engine.run_batch(&scenarios, &config);
        assert!(
            warm.iter().all(Result::is_ok),
            "{name} failed on the curated suite"
        );
        group.bench_function(name, |b| b.iter(|| engine.run_batch(&scenarios, &config)));
    }
    group.finish();
}

criterion_group!(benches, throughput);
criterion_main!(benches);
