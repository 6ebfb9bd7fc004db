//! The cost of one generated scenario on each side of the fuzz loop, at the
//! default generator mix: the model and impl run one after the other on one
//! thread (one model-against-impl execution), and the pinned Node 26.12.1
//! through the Node engine with a single warm worker process (so that its
//! wall-clock time is one core's work, like the in-process engines'). The
//! same 1,000 pre-generated scenarios for all, so generation is not counted.
//! The binary uses mimalloc, as the `nodesem` binary does.
//!
//! Run: `cargo bench -p nodesem-harness --bench generated`.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nodesem_harness::node::NodeEngine;
use nodesem_impl::ImplEngine;
use nodesem_lang::gen::generate_from_seed;
use nodesem_lang::{Engine, RunConfig, Scenario};
use nodesem_model::ModelEngine;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn generated(c: &mut Criterion) {
    let scenarios: Vec<Scenario> = (0..1000).map(|s| generate_from_seed(s, 4096)).collect();
    let config = RunConfig::default();
    let mut group = c.benchmark_group("1000 generated scenarios");
    group.throughput(Throughput::Elements(scenarios.len() as u64));
    group.sample_size(10);
    group.bench_function("model then impl, one thread", |b| {
        b.iter(|| {
            for s in &scenarios {
                let _ = ModelEngine.run(s, &config);
                let _ = ImplEngine { mutant: None }.run(s, &config);
            }
        })
    });
    match NodeEngine::pinned() {
        Ok(node) => {
            let node = node.with_workers(1);
            let warm = node.run_batch(&scenarios, &config);
            assert!(warm.iter().all(Result::is_ok), "node failed on a scenario");
            group.bench_function("node, one worker", |b| {
                b.iter(|| node.run_batch(&scenarios, &config))
            });
        }
        Err(e) => eprintln!("skipping node: {e}"),
    }
    group.finish();
}

criterion_group!(benches, generated);
criterion_main!(benches);
