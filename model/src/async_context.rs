//! AsyncLocalStorage, AsyncResource and native callback scopes, as Node
//! 26.12.1 builds them on the async context frame.
//!
//! Why it exists: async context is what a rewrite of a callback path loses
//! without a failing test (the store of an AsyncLocalStorage one tick later,
//! or inside a native callback). The runtime keeps the current frame (V8's
//! continuation-preserved embedder data) and hands each tick, microtask,
//! promise reaction, timer and immediate the frame it was made in; this
//! module says what a frame is and transcribes, step by step:
//!
//! - `lib/internal/async_context_frame.js`: an `AsyncContextFrame` is a Map
//!   from storages to stores, copied from the current frame when a storage
//!   enters a store, and changed in place only by `disable`;
//! - `lib/internal/async_local_storage/async_context_frame.js`: the
//!   AsyncLocalStorage that Node 26 uses (`--async-context-frame` is on by
//!   default);
//! - `lib/async_hooks.js`: AsyncResource, `bind` and `runInAsyncScope`;
//! - `src/api/callback.cc`: `InternalCallbackScope`, which a native call
//!   into JavaScript opens, and whose close restores the prior frame and,
//!   when it is the outermost scope, drains the microtasks and ticks.
//!
//! Async hooks (`createHook`, async ids) are not modelled: nothing in the
//! language observes them, so `emitDestroy` only returns its resource.

use nodesem_runtime::gc::Captures;
use nodesem_runtime::interp::same_value;
use nodesem_runtime::{Completion, ObjectData, ObjectId, Runtime, Value};

use crate::slots::Slots;
use crate::Model;

/// The async context objects of a run.
#[derive(Debug, Default)]
pub struct AsyncContext {
    /// Every AsyncLocalStorage, to its `#defaultValue`.
    storages: Slots<Value>,
    /// Every AsyncContextFrame: its Map's entries in insertion order.
    frames: Slots<Vec<(ObjectId, Value)>>,
    /// Every AsyncResource, to its `[contextFrameSymbol]`.
    resources: Slots<Value>,
}

impl AsyncContext {
    /// Forgets everything, for the next run.
    pub fn clear(&mut self) {
        self.storages.clear();
        self.frames.clear();
        self.resources.clear();
    }

    /// Forgets a collected object.
    pub fn forget(&mut self, id: &ObjectId) {
        self.storages.remove(id);
        self.frames.remove(id);
        self.resources.remove(id);
    }

    /// The objects of this module.
    pub fn ids(&self) -> impl Iterator<Item = ObjectId> + '_ {
        self.storages
            .ids()
            .chain(self.frames.ids())
            .chain(self.resources.ids())
    }

    /// What `obj` is, if it is one of this module's.
    pub fn host_class(&self, obj: ObjectId) -> Option<nodesem_runtime::HostClass> {
        use nodesem_runtime::HostClass;
        if self.storages.contains_key(&obj) {
            Some(HostClass::AsyncLocalStorage)
        } else if self.frames.contains_key(&obj) {
            Some(HostClass::AsyncContextFrame)
        } else if self.resources.contains_key(&obj) {
            Some(HostClass::AsyncResource)
        } else {
            None
        }
    }

    /// The strong edges of `obj`: a storage's default value, a frame's
    /// keys and values (a Map holds both strongly), a resource's frame.
    pub fn trace(&self, obj: ObjectId, edges: &mut Vec<Value>) {
        if let Some(default) = self.storages.get(&obj) {
            edges.push(default.clone());
        }
        if let Some(entries) = self.frames.get(&obj) {
            for (key, value) in entries {
                edges.push(Value::Object(*key));
                edges.push(value.clone());
            }
        }
        if let Some(frame) = self.resources.get(&obj) {
            edges.push(frame.clone());
        }
    }
}

// ---- AsyncContextFrame --------------------------------------------------

/// `new AsyncContextFrame(store, data)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/async_context_frame.js#L42-L46>
/// `super(AsyncContextFrame.current())` copies the current frame's entries
/// (none when there is no frame), then `this.set(store, data)`.
fn new_frame(rt: &mut Runtime<Model>, store: ObjectId, data: Value) -> Value {
    let mut entries = match rt.context_frame() {
        Value::Object(current) => rt.lib.async_context.frames.get(&current).cloned(),
        _ => None,
    }
    .unwrap_or_default();
    // Map.prototype.set: an existing key keeps its place.
    match entries.iter_mut().find(|(key, _)| *key == store) {
        Some(entry) => entry.1 = data,
        None => entries.push((store, data)),
    }
    let id = rt.heap.alloc(ObjectData::Host);
    rt.lib.async_context.frames.insert(id, entries);
    Value::Object(id)
}

/// `frame?.has(store)` and `frame?.get(store)` of the current frame.
fn current_entry(rt: &Runtime<Model>, store: ObjectId) -> Option<Value> {
    let Value::Object(frame) = rt.context_frame() else {
        return None;
    };
    rt.lib
        .async_context
        .frames
        .get(&frame)?
        .iter()
        .find(|(key, _)| *key == store)
        .map(|(_, value)| value.clone())
}

// ---- AsyncLocalStorage --------------------------------------------------

/// The storage a method is called on, or V8's TypeError.
fn storage(rt: &mut Runtime<Model>, value: &Value, method: &str) -> Result<ObjectId, Value> {
    match value {
        Value::Object(id) if rt.lib.async_context.storages.contains_key(id) => Ok(*id),
        other => Err(crate::cannot_read(rt, other, method)),
    }
}

/// `new AsyncLocalStorage(options)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/async_local_storage/async_context_frame.js#L30-L37>
/// `validateObject(options)` (the language gives an object or nothing),
/// then `#defaultValue = options.defaultValue`.
pub fn new_storage(rt: &mut Runtime<Model>, default: Option<Value>) -> Completion {
    let id = rt.heap.alloc(ObjectData::Host);
    rt.lib
        .async_context
        .storages
        .insert(id, default.unwrap_or(Value::Undefined));
    Ok(Value::Object(id))
}

/// `getStore()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/async_local_storage/async_context_frame.js#L76-L82>
/// the current frame's entry for this storage when it has one (even
/// `undefined`), else `#defaultValue`.
pub fn get_store(rt: &mut Runtime<Model>, als: Value) -> Completion {
    let store = storage(rt, &als, "getStore")?;
    Ok(match current_entry(rt, store) {
        Some(value) => value,
        None => rt
            .lib
            .async_context
            .storages
            .get(&store)
            .cloned()
            .unwrap_or(Value::Undefined),
    })
}

/// `enterWith(data)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/async_local_storage/async_context_frame.js#L54-L57>
/// a new frame, a copy of the current one with this storage's entry set to
/// `data`, becomes current.
pub fn enter_with(rt: &mut Runtime<Model>, als: Value, data: Value) -> Completion {
    let store = storage(rt, &als, "enterWith")?;
    let frame = new_frame(rt, store, data);
    rt.set_context_frame(frame);
    Ok(Value::Undefined)
}

/// `run(data, fn)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/async_local_storage/async_context_frame.js#L59-L70>
/// 1. `prior = this.getStore()` (the default value when the frame has no
///    entry);
/// 2. when `ObjectIs(prior, data)`, just `fn()`;
/// 3. else `enterWith(data)`, `fn()`, and in a `finally` `enterWith(prior)`:
///    a new frame copied from the one current then (so what `fn` entered
///    into other storages stays), with this storage's entry set to
///    `prior`: afterwards the frame has an entry for it, `undefined`
///    included, where before it may have had none.
pub fn run(rt: &mut Runtime<Model>, als: Value, data: Value, f: ObjectId) -> Completion {
    let store = storage(rt, &als, "run")?;
    let prior = get_store(rt, als.clone())?;
    if same_value(&prior, &data) {
        return rt.call_function(f, Value::Null, &[]);
    }
    let frame = new_frame(rt, store, data);
    rt.set_context_frame(frame);
    // The prior store is the Rust code's while the callback runs (a `gc`
    // in it must not collect it).
    let held = [prior.clone()];
    let result = rt.holding(&held, |rt| rt.call_function(f, Value::Null, &[]));
    let frame = new_frame(rt, store, prior);
    rt.set_context_frame(frame);
    result
}

/// `exit(fn)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/async_local_storage/async_context_frame.js#L72-L74>
/// `this.run(undefined, fn)`.
pub fn exit(rt: &mut Runtime<Model>, als: Value, f: ObjectId) -> Completion {
    storage(rt, &als, "exit")?;
    run(rt, als, Value::Undefined, f)
}

/// `disable()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/async_local_storage/async_context_frame.js#L50-L52>
/// and <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/async_context_frame.js#L26-L28>:
/// `getContinuationPreservedEmbedderData()?.disable(store)`, which is
/// `this.delete(store)` on the current frame object itself: every task
/// that was given that same frame sees the entry gone too.
pub fn disable(rt: &mut Runtime<Model>, als: Value) -> Completion {
    let store = storage(rt, &als, "disable")?;
    if let Value::Object(frame) = rt.context_frame() {
        if let Some(entries) = rt.lib.async_context.frames.get_mut(&frame) {
            entries.retain(|(key, _)| *key != store);
        }
    }
    Ok(Value::Undefined)
}

/// `AsyncLocalStorage.bind(fn)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/async_local_storage/async_context_frame.js#L42-L44>
/// `AsyncResource.bind(fn)`, which is
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/async_hooks.js#L274-L277>
/// `type ||= fn.name` (V8's TypeError for an undefined `fn`), then
/// `new AsyncResource(type || 'bound-anonymous-fn').bind(fn, thisArg)`.
pub fn storage_bind(rt: &mut Runtime<Model>, f: Value) -> Completion {
    if matches!(f, Value::Undefined | Value::Null) {
        return Err(rt.cannot_read_properties(&f, "name"));
    }
    let resource = new_resource_unchecked(rt);
    resource_bind(rt, resource, f)
}

/// `AsyncLocalStorage.snapshot()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/async_local_storage/async_context_frame.js#L46-L48>
/// `AsyncLocalStorage.bind((cb, ...args) => cb(...args))`: the arrow
/// function calls its first argument with the others (V8's TypeError,
/// `cb is not a function`, for anything else).
pub fn snapshot(rt: &mut Runtime<Model>) -> Completion {
    let call_first =
        rt.native_function_capturing(Captures::nothing(), |rt, _this, args| match args.first() {
            Some(Value::Object(cb)) if rt.is_function(&Value::Object(*cb)) => {
                rt.call_function(*cb, Value::Undefined, &args[1..])
            }
            _ => Err(rt.new_error("TypeError", "cb is not a function")),
        });
    storage_bind(rt, Value::Object(call_first))
}

// ---- AsyncResource ------------------------------------------------------

/// The resource a method is called on, or V8's TypeError.
fn resource(rt: &mut Runtime<Model>, value: &Value, method: &str) -> Result<ObjectId, Value> {
    match value {
        Value::Object(id) if rt.lib.async_context.resources.contains_key(id) => Ok(*id),
        other => Err(crate::cannot_read(rt, other, method)),
    }
}

/// `new AsyncResource(type)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/async_hooks.js#L180-L217>
/// `validateString(type, 'type')`; the trigger id checks pass for the
/// default options; then `this[contextFrameSymbol] =
/// AsyncContextFrame.current()`. (The async ids and the init and destroy
/// hooks are not modelled: no hook exists.)
pub fn new_resource(rt: &mut Runtime<Model>, kind: Value) -> Completion {
    if !matches!(kind, Value::String(_)) {
        return Err(rt.err_invalid_arg_type("type", "string", &kind));
    }
    Ok(Value::Object(new_resource_unchecked(rt)))
}

fn new_resource_unchecked(rt: &mut Runtime<Model>) -> ObjectId {
    let id = rt.heap.alloc(ObjectData::Host);
    let frame = rt.context_frame();
    rt.lib.async_context.resources.insert(id, frame);
    id
}

/// `runInAsyncScope(fn, thisArg, ...args)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/async_hooks.js#L219-L232>
/// `prior = AsyncContextFrame.exchange(this[contextFrameSymbol])`, the
/// call, and in a `finally` `AsyncContextFrame.set(prior)`: the frame from
/// before comes back whatever the function entered.
pub fn run_in_async_scope(
    rt: &mut Runtime<Model>,
    resource_value: Value,
    f: ObjectId,
    this: Value,
    args: &[Value],
) -> Completion {
    let id = resource(rt, &resource_value, "runInAsyncScope")?;
    let frame = rt
        .lib
        .async_context
        .resources
        .get(&id)
        .cloned()
        .unwrap_or(Value::Undefined);
    let prior = rt.exchange_context_frame(frame);
    let held = [prior.clone()];
    let result = rt.holding(&held, |rt| rt.call_function(f, this, args));
    rt.set_context_frame(prior);
    result
}

/// `bind(fn)`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/async_hooks.js#L250-L272>
/// `validateFunction(fn, 'fn')`; without a `thisArg`, a function that
/// calls `resource.runInAsyncScope(fn, this, ...args)`.
pub fn resource_bind(rt: &mut Runtime<Model>, resource_id: ObjectId, f: Value) -> Completion {
    let f = match f {
        Value::Object(id) if rt.is_function(&f) => id,
        other => return Err(rt.err_invalid_arg_type("fn", "function", &other)),
    };
    let captures = Captures::objects(&[resource_id, f]);
    let bound = rt.native_function_capturing(captures, move |rt, this, args| {
        run_in_async_scope(rt, Value::Object(resource_id), f, this, args)
    });
    Ok(Value::Object(bound))
}

/// `resource.bind(fn)` on a value that must be a resource.
pub fn bind_method(rt: &mut Runtime<Model>, resource_value: Value, f: Value) -> Completion {
    let id = resource(rt, &resource_value, "bind")?;
    resource_bind(rt, id, f)
}

/// `emitDestroy()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/async_hooks.js#L234-L240>
/// marks it destroyed, emits the destroy hook (none exists), `return this`.
pub fn emit_destroy(rt: &mut Runtime<Model>, resource_value: Value) -> Completion {
    resource(rt, &resource_value, "emitDestroy")?;
    Ok(resource_value)
}

// ---- native callbacks ---------------------------------------------------

/// A native callback from a libuv timer: `node::MakeCallback`, or
/// `node::AsyncResource::MakeCallback` when `resource_frame` is the frame
/// the C++ AsyncResource saved when it was made.
///
/// `src/api/callback.cc` at v26.12.1: `InternalMakeCallback` opens an
/// `InternalCallbackScope(env, resource, asyncContext, flags,
/// context_frame)`, calls the function, and closes the scope:
///
/// 1. the constructor: `env->PushAsyncCallbackScope()`, then
///    `prior_context_frame_ = async_context_frame::exchange(isolate,
///    context_frame)`;
/// 2. the call; a throw marks the scope failed, and V8 hands the exception
///    to Node's message listener, which reports it as uncaught;
/// 3. `Close()`: `async_context_frame::exchange(isolate, prior)`; a failed
///    scope stops here; so does one that is not the outermost
///    (`async_callback_scope_depth() > 1`);
/// 4. when no tick is scheduled, the microtask checkpoint;
/// 5. when no tick is scheduled and no rejection waits, stop; else call
///    the tick callback, `processTicksAndRejections()`;
/// 6. the destructor: `env->PopAsyncCallbackScope()`.
///
/// MODEL: the frame. `node::MakeCallback` passes `Undefined` as
/// `context_frame`. For `AsyncResource::MakeCallback` Node's documentation
/// of AsyncResource ("callbacks run in the execution context of the
/// resource") is the model's specification: the scope is opened with the
/// frame the resource saved. Node 26.12.1 enters that frame with an
/// `async_context_frame::Scope` and then calls the free `MakeCallback`,
/// whose scope exchanges it for `Undefined`, so the callback loses it: the
/// bug described at the end of `seeds/callback-scope-env-lookups.txt`,
/// listed in `deviations.toml` (`resource-callback-frame`).
pub fn make_callback(
    rt: &mut Runtime<Model>,
    f: ObjectId,
    recv: Value,
    resource_frame: Option<Value>,
) {
    let context_frame = resource_frame.unwrap_or(Value::Undefined);
    // 1.
    rt.push_callback_scope();
    let prior = rt.exchange_context_frame(context_frame);
    // 2.
    // `prior_context_frame_` is a v8::Global: a root while the scope is open.
    let held = [prior.clone()];
    let failed = match rt.holding(&held, |rt| rt.call_function(f, recv, &[])) {
        Ok(_) => false,
        Err(e) => {
            rt.report_uncaught(&e);
            true
        }
    };
    // 3.
    rt.exchange_context_frame(prior);
    if !failed && rt.callback_scope_depth() <= 1 {
        // 4.
        if !rt.has_tick_scheduled() {
            rt.perform_microtask_checkpoint();
        }
        // 5.
        if rt.has_tick_scheduled() || rt.has_rejection_to_warn() {
            rt.process_ticks_and_rejections();
        }
    }
    // 6.
    rt.pop_callback_scope();
}
