//! The CPU cost of one generated scenario on each side of the fuzz loop, at
//! the default generator mix: the model and impl run one after the other on
//! one thread (one model-against-impl execution), and the pinned Node
//! 26.12.1 through the Node engine with a single warm worker process. The
//! same 1,000 pre-generated scenarios for all, so generation is not counted;
//! then their CommonJS and ES module scenarios, each kind on its own.
//!
//! Each side is timed in CPU time, not wall-clock time: the bench process's
//! own (`getrusage`, every thread: for Node that is emitting the JavaScript,
//! writing the request and parsing the log) plus, for Node, the worker
//! process's (every thread, from `/proc`: V8's compiler and GC threads work
//! next to the main one, so a wall clock would undercount what a scenario
//! costs the machine). Criterion reports these CPU durations as its times.
//! The binary uses mimalloc, as the `nodesem` binary does.
//!
//! Run: `cargo bench -p nodesem-harness --bench generated`.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nix::sys::resource::{getrusage, UsageWho};
use nodesem_harness::node::{workers_cpu_time, NodeEngine};
use nodesem_impl::ImplEngine;
use nodesem_lang::gen::generate_from_seed;
use nodesem_lang::{Directive, Engine, RunConfig, Scenario};
use nodesem_model::ModelEngine;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// CPU time used so far by this process (all its threads, finished ones
/// included) and by the live Node workers.
fn cpu_time() -> Duration {
    let usage = getrusage(UsageWho::RUSAGE_SELF).expect("getrusage(RUSAGE_SELF)");
    let micros = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(t.tv_sec() as u64) + Duration::from_micros(t.tv_usec() as u64)
    };
    micros(usage.user_time()) + micros(usage.system_time()) + workers_cpu_time()
}

/// Runs `work` `iters` times and returns the CPU time that took.
fn cpu_timed(iters: u64, mut work: impl FnMut()) -> Duration {
    let start = cpu_time();
    for _ in 0..iters {
        work();
    }
    cpu_time().saturating_sub(start)
}

/// Both sides over `scenarios`, as one benchmark group named `name`.
fn measure(c: &mut Criterion, name: &str, scenarios: &[Scenario]) {
    let config = RunConfig::default();
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(scenarios.len() as u64));
    group.sample_size(10);
    group.bench_function("model then impl, one thread", |b| {
        b.iter_custom(|iters| {
            cpu_timed(iters, || {
                for s in scenarios {
                    let _ = ModelEngine.run(s, &config);
                    let _ = ImplEngine { mutant: None }.run(s, &config);
                }
            })
        })
    });
    match NodeEngine::pinned() {
        Ok(node) => {
            let node = node.with_workers(1);
            let warm = node.run_batch(scenarios, &config);
            assert!(warm.iter().all(Result::is_ok), "node failed on a scenario");
            group.bench_function("node, one worker", |b| {
                b.iter_custom(|iters| {
                    cpu_timed(iters, || {
                        let _ = node.run_batch(scenarios, &config);
                    })
                })
            });
        }
        Err(e) => eprintln!("skipping node: {e}"),
    }
    group.finish();
}

/// The default mix, then its CommonJS and its ES module scenarios apart:
/// an ES module costs the Node engine several times what a CommonJS
/// scenario does (Node's ESM loader, and a worker retired every
/// `MAX_MODULES_PER_WORKER` modules), so the mix's ratio is not the
/// ratio of either kind.
fn generated(c: &mut Criterion) {
    let scenarios: Vec<Scenario> = (0..1000).map(|s| generate_from_seed(s, 4096)).collect();
    measure(c, "1000 generated scenarios, CPU time", &scenarios);
    let (modules, commonjs): (Vec<Scenario>, Vec<Scenario>) = scenarios
        .into_iter()
        .partition(|s| s.uses(Directive::Module));
    measure(c, "the CommonJS ones, CPU time", &commonjs);
    measure(c, "the ES module ones, CPU time", &modules);
}

criterion_group!(benches, generated);
criterion_main!(benches);
