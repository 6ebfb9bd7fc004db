//! The benchmark shapes of seeds/abort-signal-speedup.txt and
//! seeds/webstreams-idle-start-and-watchers.txt, as scenarios, on the
//! reference model and the optimized implementation: aborting with and
//! without listeners, adding and removing listeners, AbortSignal.any() and
//! AbortSignal.timeout(); creating a stream without pull (and with one), a
//! tee, a 4-chunk push stream drained, a pipe set up and shut down by its
//! source's close, and a pipe of 4 chunks; and the EventEmitter seed's
//! (seeds/event-emitter-once-removelistener.txt): once and emit, add and
//! remove with and without 'newListener' and 'removeListener' listeners,
//! unique names, an emit to five listeners. Both engines share the runtime
//! and the interpreter, so the difference is the library layer's.
//!
//! Run: `cargo bench -p nodesem-harness --bench seed_shapes`.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use nodesem_lang::{parse, Engine, RunConfig, Scenario};

/// How many times each shape repeats in one scenario.
const N: usize = 200;

fn repeat(body: impl Fn(usize) -> String) -> Scenario {
    let text: String = (0..N).map(body).collect();
    parse("shape.scn", &text).expect("the shape parses")
}

fn shapes() -> Vec<(&'static str, Scenario)> {
    vec![
        (
            "abort, no listeners",
            repeat(|i| format!("let c{i} = controller\nabort c{i}\n")),
        ),
        (
            "abort, 1 listener",
            repeat(|i| {
                format!("let c{i} = controller\non c{i}.signal abort {{\n  log \"x\"\n}}\nabort c{i} \"r\"\n")
            }),
        ),
        (
            "add + remove listener",
            repeat(|i| {
                let setup = if i == 0 {
                    "let t = target\nlet f = fn {\n  log \"x\"\n}\n"
                } else {
                    ""
                };
                format!("{setup}on t e f\noff t e f\n")
            }),
        ),
        (
            "add + remove listener, once",
            repeat(|i| {
                let setup = if i == 0 {
                    "let t = target\nlet f = fn {\n  log \"x\"\n}\n"
                } else {
                    ""
                };
                format!("{setup}on t e f once\noff t e f\n")
            }),
        ),
        (
            "AbortSignal.timeout()",
            repeat(|i| format!("let s{i} = timeout 1000\n")),
        ),
        (
            "AbortSignal.any([a, b])",
            repeat(|i| {
                format!("let a{i} = controller\nlet b{i} = controller\nlet s{i} = any [a{i}.signal, b{i}.signal]\n")
            }),
        ),
        (
            "any() + listen + abort",
            repeat(|i| {
                format!(
                    "let a{i} = controller\nlet b{i} = controller\nlet s{i} = any [a{i}.signal, b{i}.signal]\non s{i} abort {{\n  log \"x\"\n}}\nabort a{i}\n"
                )
            }),
        ),
        (
            "ReadableStream, no pull",
            repeat(|i| format!("let s{i} = readable\n")),
        ),
        (
            "ReadableStream, with pull",
            repeat(|i| format!("let s{i} = readable highWaterMark 0 pull {{\n}}\n")),
        ),
        (
            "ReadableStream.tee()",
            repeat(|i| format!("let s{i} = readable\nlet [a{i}, b{i}] = tee s{i}\n")),
        ),
        (
            "4-chunk push stream drained",
            repeat(|i| {
                let mut text = format!(
                    "let s{i} = readable start {{\n  repeat 4 {{\n    enqueue controller 1\n  }}\n  close controller\n}}\nlet r{i} = getReader s{i}\n"
                );
                for k in 0..5 {
                    text.push_str(&format!("let p{i}_{k} = read r{i}\n"));
                }
                text
            }),
        ),
        (
            "pipeTo setup + shutdown",
            repeat(|i| {
                format!(
                    "let s{i} = readable start {{\n  close controller\n}}\nlet w{i} = writable\nlet p{i} = pipeTo s{i} w{i}\n"
                )
            }),
        ),
        (
            "pipeTo, 4 chunks",
            repeat(|i| {
                format!(
                    "let s{i} = readable start {{\n  repeat 4 {{\n    enqueue controller 1\n  }}\n  close controller\n}}\nlet w{i} = writable write {{\n}}\nlet p{i} = pipeTo s{i} w{i}\n"
                )
            }),
        ),
        // seeds/event-emitter-once-removelistener.txt's benchmarks:
        // ee-once, ee-add-remove (with and without 'newListener' and
        // 'removeListener' listeners), ee-listen-unique, ee-emit.
        (
            "emitter: once + emit",
            repeat(|i| {
                let setup = if i == 0 { EMITTER } else { "" };
                format!("{setup}once e \"x\" f\nemit e \"x\" 1\n")
            }),
        ),
        (
            "emitter: add + remove",
            repeat(|i| {
                let setup = if i == 0 { EMITTER } else { "" };
                format!("{setup}addListener e \"x\" f\nremoveListener e \"x\" f\n")
            }),
        ),
        (
            "emitter: add + remove, newListener and removeListener listeners",
            repeat(|i| {
                let setup = if i == 0 {
                    format!(
                        "{EMITTER}addListener e \"newListener\" g\naddListener e \"removeListener\" g\n"
                    )
                } else {
                    String::new()
                };
                format!("{setup}addListener e \"x\" f\nremoveListener e \"x\" f\n")
            }),
        ),
        (
            "emitter: unique names",
            repeat(|i| {
                let setup = if i == 0 { EMITTER } else { "" };
                format!("{setup}addListener e \"n{i}\" f\nremoveListener e \"n{i}\" f\n")
            }),
        ),
        (
            "emitter: emit to 5 listeners",
            repeat(|i| {
                let setup = if i == 0 {
                    format!("{EMITTER}repeat 5 {{\n  addListener e \"x\" g\n}}\n")
                } else {
                    String::new()
                };
                format!("{setup}emit e \"x\" 1 2\n")
            }),
        ),
    ]
}

/// An emitter `e`, a listener `f` that logs and a listener `g` that does
/// nothing.
const EMITTER: &str = "let e = emitter\nlet f = fn {\n  log \"x\"\n}\nlet g = fn {\n}\n";

fn seed_shapes(c: &mut Criterion) {
    let config = RunConfig::default();
    let model = nodesem_model::ModelEngine;
    let implementation = nodesem_impl::ImplEngine { mutant: None };
    for (name, scenario) in shapes() {
        assert_eq!(
            model.run(&scenario, &config).unwrap(),
            implementation.run(&scenario, &config).unwrap(),
            "{name}: the engines disagree"
        );
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Elements(N as u64));
        group.sample_size(30);
        group.bench_with_input(BenchmarkId::from_parameter("model"), &scenario, |b, s| {
            b.iter(|| model.run(s, &config).unwrap())
        });
        group.bench_with_input(BenchmarkId::from_parameter("impl"), &scenario, |b, s| {
            b.iter(|| implementation.run(s, &config).unwrap())
        });
        group.finish();
    }
}

criterion_group!(benches, seed_shapes);
criterion_main!(benches);
