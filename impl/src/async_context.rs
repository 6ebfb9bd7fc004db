//! AsyncLocalStorage, AsyncResource and the native callback scope, built
//! for speed.
//!
//! Why it exists: the differential check needs a second, independently
//! built async context layer to hold against the model's transcription of
//! Node's JavaScript. Here a frame is a small array of `(storage index,
//! store)` pairs kept sorted by storage index, so `getStore` is a binary
//! search and no frame holds an object id it would have to hash; a storage
//! and a resource are indices into plain vectors.
//!
//! The callback scope mirrors `seeds/callback-scope-env-lookups.txt`: the
//! scope keeps the prior frame only when there is one (nodejs/node#66316's
//! "the global handle is created only when the prior frame is not
//! undefined"), and `AsyncResource::MakeCallback` passes the frame the
//! resource saved to the callback scope, as the follow-up
//! (nodejs/node#66326) does. Two mutants put back what came before:
//! [`Mutant::ResourceCallbackLosesStore`] (Node 26.12.1's
//! `AsyncResource::MakeCallback`) and
//! [`Mutant::CallbackScopeMicrotasksFirst`].

use nodesem_runtime::gc::Captures;
use nodesem_runtime::interp::same_value;
use nodesem_runtime::{Completion, ObjectId, Runtime, Value};

use crate::{no_method, Impl, Mutant, Slot};

type Rt = Runtime<Impl>;

/// The async context state of a run.
#[derive(Default)]
pub(crate) struct AsyncContext {
    /// Storages: each one's object and default value.
    storages: Vec<(ObjectId, Value)>,
    /// Frames: sorted by storage index.
    frames: Vec<Vec<(u32, Value)>>,
    /// Resources: the frame each saved.
    resources: Vec<Value>,
}

impl AsyncContext {
    pub(crate) fn clear(&mut self) {
        self.storages.clear();
        self.frames.clear();
        self.resources.clear();
    }
}

/// The strong edges of an async context object.
pub(crate) fn trace(rt: &Rt, slot: Slot, edges: &mut Vec<Value>) {
    let ac = &rt.lib.async_context;
    match slot {
        Slot::Storage(s) => edges.push(ac.storages[s as usize].1.clone()),
        Slot::Frame(f) => {
            for (s, value) in &ac.frames[f as usize] {
                edges.push(Value::Object(ac.storages[*s as usize].0));
                edges.push(value.clone());
            }
        }
        Slot::Resource(r) => edges.push(ac.resources[r as usize].clone()),
        _ => {}
    }
}

/// V8's TypeError for `value.method(...)` on a value without the method.
fn storage_index(rt: &mut Rt, value: &Value, method: &str) -> Result<u32, Value> {
    match value.as_object().map(|o| rt.lib.slot(o)) {
        Some(Slot::Storage(s)) => Ok(s),
        _ => Err(no_method(rt, value, method)),
    }
}

fn resource_index(rt: &mut Rt, value: &Value, method: &str) -> Result<u32, Value> {
    match value.as_object().map(|o| rt.lib.slot(o)) {
        Some(Slot::Resource(r)) => Ok(r),
        _ => Err(no_method(rt, value, method)),
    }
}

/// The current frame's pairs, if there is a frame.
fn current_pairs(rt: &Rt) -> Option<&Vec<(u32, Value)>> {
    match rt.context_frame() {
        Value::Object(id) => match rt.lib.slot(id) {
            Slot::Frame(f) => rt.lib.async_context.frames.get(f as usize),
            _ => None,
        },
        _ => None,
    }
}

/// A new frame: the current one's pairs with `storage` set to `store`.
fn derive_frame(rt: &mut Rt, storage: u32, store: Value) -> Value {
    let mut pairs = current_pairs(rt).cloned().unwrap_or_default();
    match pairs.binary_search_by_key(&storage, |(s, _)| *s) {
        Ok(at) => pairs[at].1 = store,
        Err(at) => pairs.insert(at, (storage, store)),
    }
    let index = rt.lib.async_context.frames.len() as u32;
    rt.lib.async_context.frames.push(pairs);
    Value::Object(crate::alloc_host(rt, |_| Slot::Frame(index)))
}

pub(crate) fn new_storage(rt: &mut Rt, default: Option<Value>) -> Completion {
    let index = rt.lib.async_context.storages.len() as u32;
    let obj = crate::alloc_host(rt, |_| Slot::Storage(index));
    rt.lib
        .async_context
        .storages
        .push((obj, default.unwrap_or(Value::Undefined)));
    Ok(Value::Object(obj))
}

fn lookup(rt: &Rt, storage: u32) -> Value {
    if let Some(pairs) = current_pairs(rt) {
        if let Ok(at) = pairs.binary_search_by_key(&storage, |(s, _)| *s) {
            return pairs[at].1.clone();
        }
    }
    rt.lib.async_context.storages[storage as usize].1.clone()
}

pub(crate) fn get_store(rt: &mut Rt, als: Value) -> Completion {
    let s = storage_index(rt, &als, "getStore")?;
    Ok(lookup(rt, s))
}

pub(crate) fn enter_with(rt: &mut Rt, als: Value, store: Value) -> Completion {
    let s = storage_index(rt, &als, "enterWith")?;
    let frame = derive_frame(rt, s, store);
    rt.set_context_frame(frame);
    Ok(Value::Undefined)
}

pub(crate) fn run(rt: &mut Rt, als: Value, store: Value, f: ObjectId) -> Completion {
    let s = storage_index(rt, &als, "run")?;
    let prior = lookup(rt, s);
    // Already the store: nothing to enter or to restore.
    if same_value(&prior, &store) {
        return rt.call_function(f, Value::Null, &[]);
    }
    let frame = derive_frame(rt, s, store);
    rt.set_context_frame(frame);
    // The prior store is the Rust code's while the callback runs (a `gc`
    // in it must not collect it).
    let held = [prior.clone()];
    let result = rt.holding(&held, |rt| rt.call_function(f, Value::Null, &[]));
    // Restored by entering the prior store again, over whatever the
    // callback left current.
    let frame = derive_frame(rt, s, prior);
    rt.set_context_frame(frame);
    result
}

pub(crate) fn exit(rt: &mut Rt, als: Value, f: ObjectId) -> Completion {
    storage_index(rt, &als, "exit")?;
    run(rt, als, Value::Undefined, f)
}

pub(crate) fn disable(rt: &mut Rt, als: Value) -> Completion {
    let s = storage_index(rt, &als, "disable")?;
    if let Value::Object(id) = rt.context_frame() {
        if let Slot::Frame(f) = rt.lib.slot(id) {
            let pairs = &mut rt.lib.async_context.frames[f as usize];
            if let Ok(at) = pairs.binary_search_by_key(&s, |(k, _)| *k) {
                pairs.remove(at);
            }
        }
    }
    Ok(Value::Undefined)
}

fn new_resource_index(rt: &mut Rt) -> (ObjectId, u32) {
    let index = rt.lib.async_context.resources.len() as u32;
    let frame = rt.context_frame();
    rt.lib.async_context.resources.push(frame);
    (crate::alloc_host(rt, |_| Slot::Resource(index)), index)
}

pub(crate) fn new_resource(rt: &mut Rt, kind: Value) -> Completion {
    if !matches!(kind, Value::String(_)) {
        return Err(rt.err_invalid_arg_type("type", "string", &kind));
    }
    Ok(Value::Object(new_resource_index(rt).0))
}

/// `runInAsyncScope` on resource `r`.
fn in_scope(rt: &mut Rt, r: u32, f: ObjectId, this: Value, args: &[Value]) -> Completion {
    let frame = rt.lib.async_context.resources[r as usize].clone();
    let prior = rt.exchange_context_frame(frame);
    let held = [prior.clone()];
    let result = rt.holding(&held, |rt| rt.call_function(f, this, args));
    rt.set_context_frame(prior);
    result
}

pub(crate) fn run_in_async_scope(rt: &mut Rt, resource: Value, f: ObjectId) -> Completion {
    let r = resource_index(rt, &resource, "runInAsyncScope")?;
    in_scope(rt, r, f, Value::Undefined, &[])
}

fn bind_to(rt: &mut Rt, resource: (ObjectId, u32), f: Value) -> Completion {
    let f = match f {
        Value::Object(id) if rt.is_function(&f) => id,
        other => return Err(rt.err_invalid_arg_type("fn", "function", &other)),
    };
    let (obj, r) = resource;
    let bound = rt
        .native_function_capturing(Captures::objects(&[obj, f]), move |rt, this, args| {
            in_scope(rt, r, f, this, args)
        });
    Ok(Value::Object(bound))
}

pub(crate) fn resource_bind(rt: &mut Rt, resource: Value, f: Value) -> Completion {
    let r = resource_index(rt, &resource, "bind")?;
    let Value::Object(obj) = resource else {
        unreachable!("a resource is an object")
    };
    bind_to(rt, (obj, r), f)
}

pub(crate) fn storage_bind(rt: &mut Rt, f: Value) -> Completion {
    // `type ||= fn.name` reads the name first.
    if matches!(f, Value::Undefined | Value::Null) {
        return Err(rt.cannot_read_properties(&f, "name"));
    }
    let resource = new_resource_index(rt);
    bind_to(rt, resource, f)
}

pub(crate) fn snapshot(rt: &mut Rt) -> Completion {
    let runner = rt.native_function_capturing(Captures::nothing(), |rt, _, args| {
        let cb = args.first().cloned().unwrap_or(Value::Undefined);
        match cb {
            Value::Object(id) if rt.is_function(&cb) => {
                rt.call_function(id, Value::Undefined, &args[1..])
            }
            _ => Err(rt.new_error("TypeError", "cb is not a function")),
        }
    });
    storage_bind(rt, Value::Object(runner))
}

pub(crate) fn emit_destroy(rt: &mut Rt, resource: Value) -> Completion {
    resource_index(rt, &resource, "emitDestroy")?;
    Ok(resource)
}

/// The callback scope around a native call into JavaScript.
pub(crate) fn make_callback(rt: &mut Rt, f: ObjectId, recv: Value, resource_frame: Option<Value>) {
    // AsyncResource::MakeCallback hands its saved frame to the scope
    // (nodejs/node#66326); Node 26.12.1 entered it around a scope that
    // then ran the callback in no frame at all.
    let frame = match resource_frame {
        Some(_) if rt.lib.mutant == Some(Mutant::ResourceCallbackLosesStore) => Value::Undefined,
        Some(frame) => frame,
        None => Value::Undefined,
    };
    let depth = rt.push_callback_scope();
    // The prior frame is kept only when there is one (nodejs/node#66316).
    let prior = match rt.exchange_context_frame(frame) {
        Value::Undefined => None,
        other => Some(other),
    };
    let held = [prior.clone().unwrap_or(Value::Undefined)];
    let failed = match rt.holding(&held, |rt| rt.call_function(f, recv, &[])) {
        Ok(_) => false,
        Err(e) => {
            rt.report_uncaught(&e);
            true
        }
    };
    rt.set_context_frame(prior.unwrap_or(Value::Undefined));
    if !failed && depth == 1 {
        if rt.lib.mutant == Some(Mutant::CallbackScopeMicrotasksFirst) {
            rt.perform_microtask_checkpoint();
            if rt.has_tick_scheduled() || rt.has_rejection_to_warn() {
                rt.process_ticks_and_rejections();
            }
        } else if rt.has_tick_scheduled() {
            // processTicksAndRejections runs the microtasks after the ticks.
            rt.process_ticks_and_rejections();
        } else {
            rt.perform_microtask_checkpoint();
            if rt.has_tick_scheduled() || rt.has_rejection_to_warn() {
                rt.process_ticks_and_rejections();
            }
        }
    }
    rt.pop_callback_scope();
}
