//! What the stream tests of impl share: a run of native code inside an
//! immediate of an empty scenario, the tests' `d(v)` and `on(p, tag)`,
//! ruler reactions, and thin calls of the library's stream operations.
// Each test file uses a part of it.
#![allow(dead_code)]

use nodesem_impl::{Impl, Mutant};
use nodesem_lang::{parse, RunConfig};
use nodesem_runtime::{Library, ObjectData, ObjectId, Runtime, Task, UnderlyingSource, Value};

pub type Rt = Runtime<Impl>;

/// Runs `f` as an immediate of an empty scenario (with `mutant` switched
/// on), then the loop until idle; the log's lines.
pub fn run_with(mutant: Option<Mutant>, f: impl FnOnce(&mut Rt) + 'static) -> Vec<String> {
    let mut rt = Runtime::<Impl>::pooled(RunConfig::default());
    rt.lib.mutant = mutant;
    rt.set_immediate(Task::Native(Box::new(move |rt| {
        f(rt);
        Ok(Value::Undefined)
    })));
    let scenario = parse("tee.scn", "").expect("an empty scenario parses");
    rt.run_main(&scenario);
    rt.into_log().lines
}

pub fn run(f: impl FnOnce(&mut Rt) + 'static) -> Vec<String> {
    run_with(None, f)
}

/// `setTimeout(f, 1)`.
pub fn later(rt: &mut Rt, f: impl FnOnce(&mut Rt) + 'static) {
    rt.set_timeout(
        1,
        Task::Native(Box::new(move |rt| {
            f(rt);
            Ok(Value::Undefined)
        })),
        true,
    );
}

/// `queueMicrotask(f)`.
pub fn microtask(rt: &mut Rt, f: impl FnOnce(&mut Rt) + 'static) {
    rt.enqueue_microtask(nodesem_runtime::Job::Task(Task::Native(Box::new(
        move |rt| {
            f(rt);
            Ok(Value::Undefined)
        },
    ))));
}

pub fn log(rt: &mut Rt, line: impl Into<String>) {
    rt.log_line(line.into());
}

/// The test's `d(v)`.
pub fn d(rt: &Rt, v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::Object(id) => match rt.heap.get(*id) {
            ObjectData::IterResult { value, done } => {
                format!("done={done} value={}", d(rt, value))
            }
            ObjectData::Error { name, message, .. } => format!("{name}: {message}"),
            ObjectData::Array(items) => {
                let items: Vec<String> = items.iter().map(|v| d(rt, v)).collect();
                format!("[{}]", items.join(","))
            }
            _ => rt.fmt(v),
        },
        _ => rt.fmt(v),
    }
}

/// The `code` of a coded error, or `undefined`.
pub fn code(rt: &mut Rt, v: &Value) -> String {
    let code = rt.get_property(v, "code").unwrap_or(Value::Undefined);
    d(rt, &code)
}

/// A promise's [[PromiseResult]].
pub fn result_of(rt: &Rt, p: &Value) -> Value {
    match p.as_object().map(|id| rt.heap.get(id)) {
        Some(ObjectData::Promise(data)) => data.result.clone(),
        _ => panic!("not a promise"),
    }
}

pub fn native(rt: &mut Rt, f: impl Fn(&mut Rt, Value, &[Value]) -> Value + 'static) -> ObjectId {
    rt.native_function(move |rt, this, args| Ok(f(rt, this, args)))
}

pub fn throwing(rt: &mut Rt, f: impl Fn(&mut Rt, &[Value]) -> Value + 'static) -> ObjectId {
    rt.native_function(move |rt, _, args| Err(f(rt, args)))
}

/// `Promise.resolve()` and `n` chained reactions logging `TAG tI`.
pub fn rulers(rt: &mut Rt, tag: &'static str, n: u32) {
    let mut p = rt.promise_resolve(Value::Undefined);
    for i in 1..=n {
        let f = native(rt, move |rt, _, _| {
            log(rt, format!("{tag} t{i}"));
            Value::Undefined
        });
        p = rt.promise_then(p, Some(f), None);
    }
}

/// `on(p, tag)`.
pub fn on(rt: &mut Rt, p: &Value, tag: &'static str) {
    let Some(p) = p.as_object() else {
        panic!("{tag}: not a promise");
    };
    let fulfilled = native(rt, move |rt, _, args| {
        let line = format!("{tag} {}", d(rt, &args[0]));
        log(rt, line);
        Value::Undefined
    });
    let rejected = native(rt, move |rt, _, args| {
        let line = format!("{tag} err {}", d(rt, &args[0]));
        log(rt, line);
        Value::Undefined
    });
    rt.promise_then(p, Some(fulfilled), Some(rejected));
}

/// A source object with these methods.
pub fn source(
    rt: &mut Rt,
    start: Option<ObjectId>,
    pull: Option<ObjectId>,
    cancel: Option<ObjectId>,
) -> UnderlyingSource {
    UnderlyingSource {
        object: Value::Object(rt.heap.alloc(ObjectData::Plain)),
        start,
        pull,
        cancel,
    }
}

pub fn reader(rt: &mut Rt, stream: &Value) -> Value {
    Impl::readable_get_reader(rt, stream.clone()).expect("getReader does not throw")
}

pub fn read(rt: &mut Rt, reader: &Value) -> Value {
    Impl::reader_read(rt, reader.clone()).expect("read returns a promise")
}

pub fn closed(rt: &mut Rt, reader: &Value) -> Value {
    let obj = reader.as_object().expect("a reader");
    Impl::get(rt, obj, "closed").expect("closed is a promise")
}

pub fn lines(expected: &str) -> Vec<String> {
    expected.lines().map(str::to_string).collect()
}
