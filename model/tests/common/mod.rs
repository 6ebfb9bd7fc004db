//! What the model's stream tests share: a runtime, its event loop run
//! dry, its log, a logging built-in, a microtask ruler and a getter.
// Each test file uses a part of it.
#![allow(dead_code)]

use nodesem_lang::{parse, RunConfig};
use nodesem_model::streams;
use nodesem_model::Model;
use nodesem_runtime::{ObjectId, Runtime, Value};

pub type Rt = Runtime<Model>;

pub fn runtime() -> Box<Rt> {
    Runtime::<Model>::pooled(RunConfig::default())
}

/// Runs the event loop until nothing is left (an empty main script, after
/// which the ticks and microtasks queued so far run).
pub fn drain(rt: &mut Rt) {
    let scenario = parse("drain", "").expect("an empty scenario");
    rt.run_main(&scenario);
}

pub fn lines(rt: &Rt) -> Vec<String> {
    rt.log().lines.clone()
}

/// A built-in function that logs `text` and the formatted first argument.
pub fn show(rt: &mut Rt, text: &'static str) -> ObjectId {
    rt.native_function(move |rt, _this, args| {
        let v = args.first().cloned().unwrap_or(Value::Undefined);
        let shown = rt.fmt(&v);
        rt.log_line(format!("{text} {shown}"));
        Ok(Value::Undefined)
    })
}

/// Logs `t1` .. `tn`, one microtask apart, starting with the next one.
pub fn ruler(rt: &mut Rt, n: u32) {
    let mut p = rt.promise_resolve(Value::Undefined);
    for i in 1..=n {
        let f = rt.native_function(move |rt, _, _| {
            rt.log_line(format!("t{i}"));
            Ok(Value::Undefined)
        });
        p = rt.promise_then(p, Some(f), None);
    }
}

pub fn get(rt: &mut Rt, obj: &Value, prop: &str) -> Value {
    let id = obj.as_object().expect("an object");
    streams::get(rt, id, prop)
        .expect("a stream object")
        .expect("a getter that does not throw")
}
