//! The EventEmitter seed's benchmark shapes
//! (seeds/event-emitter-once-removelistener.txt: ee-once, ee-add-remove with
//! and without 'newListener' and 'removeListener' listeners,
//! ee-listen-unique, ee-emit) on the library layer alone: the `Library`
//! methods of the reference model and of the optimized implementation
//! called directly, with empty built-in listeners, as Node's benchmarks
//! call the methods of an emitter. `seed_shapes -- emitter` runs the same
//! shapes as scenarios, where the shared interpreter takes nine tenths of
//! the time and hides the layer's difference; this bench measures what the
//! seed changed.
//!
//! Each shape starts from a fresh runtime and emitter and repeats its
//! operations [`N`] times; the engines' results are checked to be the same
//! before timing.
//!
//! Run: `cargo bench -p nodesem-harness --bench emitter_layer`.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use nodesem_lang::RunConfig;
use nodesem_runtime::{Captures, Library, Runtime, Value};

/// How many times each shape repeats on one emitter.
const N: usize = 1000;

/// The shapes: a name and what one repetition does.
#[derive(Clone, Copy)]
enum Shape {
    OnceEmit,
    AddRemove,
    AddRemoveAnnounced,
    UniqueNames,
    EmitToFive,
}

const SHAPES: [(&str, Shape); 5] = [
    ("once + emit", Shape::OnceEmit),
    ("add + remove", Shape::AddRemove),
    (
        "add + remove, newListener and removeListener listeners",
        Shape::AddRemoveAnnounced,
    ),
    ("unique names", Shape::UniqueNames),
    ("emit to 5 listeners", Shape::EmitToFive),
];

/// Runs one shape on library `L`; returns the emitter's listener count of
/// the last name used and the number of emits that found listeners, which
/// both engines must agree on.
fn run<L: Library>(shape: Shape, names: &[Value]) -> (String, usize) {
    let mut rt: Box<Runtime<L>> = Box::new(Runtime::new(RunConfig::default()));
    let rt = &mut *rt;
    let e = L::new_event_emitter(rt).expect("an emitter");
    let listener = |rt: &mut Runtime<L>| {
        Value::Object(
            rt.native_function_capturing(Captures::nothing(), |_, _, _| Ok(Value::Undefined)),
        )
    };
    let f = listener(rt);
    let x = Value::string("x");
    let mut found = 0;
    if let Shape::AddRemoveAnnounced = shape {
        let g = listener(rt);
        for special in ["newListener", "removeListener"] {
            L::emitter_add_listener(
                rt,
                e.clone(),
                Value::string(special),
                g.clone(),
                false,
                false,
            )
            .expect("added");
        }
    }
    if let Shape::EmitToFive = shape {
        for _ in 0..5 {
            let g = listener(rt);
            L::emitter_add_listener(rt, e.clone(), x.clone(), g, false, false).expect("added");
        }
    }
    for name in names.iter().take(N) {
        match shape {
            Shape::OnceEmit => {
                L::emitter_add_listener(rt, e.clone(), x.clone(), f.clone(), false, true)
                    .expect("added");
                let r = L::emitter_emit(rt, e.clone(), x.clone(), vec![Value::Number(1.0)]);
                found += usize::from(matches!(r, Ok(Value::Bool(true))));
            }
            Shape::AddRemove | Shape::AddRemoveAnnounced => {
                L::emitter_add_listener(rt, e.clone(), x.clone(), f.clone(), false, false)
                    .expect("added");
                L::emitter_remove_listener(rt, e.clone(), x.clone(), f.clone()).expect("removed");
            }
            Shape::UniqueNames => {
                L::emitter_add_listener(rt, e.clone(), name.clone(), f.clone(), false, false)
                    .expect("added");
                L::emitter_remove_listener(rt, e.clone(), name.clone(), f.clone())
                    .expect("removed");
            }
            Shape::EmitToFive => {
                let args = vec![Value::Number(1.0), Value::Number(2.0)];
                let r = L::emitter_emit(rt, e.clone(), x.clone(), args);
                found += usize::from(matches!(r, Ok(Value::Bool(true))));
            }
        }
    }
    let last = names[N - 1].clone();
    let count = L::emitter_listener_count(rt, e, last, None).expect("a count");
    (rt.fmt(&count), found)
}

fn emitter_layer(c: &mut Criterion) {
    let names: Vec<Value> = (0..N).map(|i| Value::string(&format!("n{i}"))).collect();
    for (name, shape) in SHAPES {
        assert_eq!(
            run::<nodesem_model::Model>(shape, &names),
            run::<nodesem_impl::Impl>(shape, &names),
            "{name}: the engines disagree"
        );
        let mut group = c.benchmark_group(format!("emitter layer: {name}"));
        group.throughput(Throughput::Elements(N as u64));
        group.sample_size(30);
        group.bench_with_input(BenchmarkId::from_parameter("model"), &names, |b, names| {
            b.iter(|| run::<nodesem_model::Model>(shape, names))
        });
        group.bench_with_input(BenchmarkId::from_parameter("impl"), &names, |b, names| {
            b.iter(|| run::<nodesem_impl::Impl>(shape, names))
        });
        group.finish();
    }
}

criterion_group!(benches, emitter_layer);
criterion_main!(benches);
