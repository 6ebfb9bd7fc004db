//! Garbage collection: which objects a scenario can still reach, WeakRef
//! (ECMA-262 §26.1) and FinalizationRegistry (§26.2) with their jobs.
//!
//! Node keeps shipping leaks and premature collections in the bookkeeping of
//! `AbortSignal.any()` and `AbortSignal.timeout()`; a harness that can say
//! "this composite is still alive after gc in one engine and not in the
//! other" catches that whole class. So the runtime has a real collector:
//! `gc` marks every object reachable from the roots (the main script's
//! bindings, the frames of the callbacks running, every queued task,
//! timer and immediate with what it captures, the kept objects of the
//! current job, and what the library says it retains, Node's
//! `gcPersistentSignals` among them) through explicit strong edges, and
//! every other object is collected: its slot in the heap becomes
//! [`ObjectData::Collected`], so that touching it again is an invariant
//! violation that fails the run instead of a silent wrong answer.
//!
//! The edges of the runtime's own objects are written here; a library
//! object's come from [`Library::trace`]. A built-in closure lists what it
//! captures ([`Captures`]); one that does not ([`Captures::Unknown`], the
//! default of [`Runtime::native_function`]) makes a collection that reaches
//! it conservative: nothing is collected, which is always safe and never
//! wrong about what Node could still reach, only less precise.
//!
//! When cleanups run and when kept objects are released is Node 26.12.1's
//! behaviour as measured (`harness/js/NODE_GC_FACTS.md`): a registry's
//! cleanup is a macrotask of its own in the loop's poll phase, between the
//! timers and the immediates ([`Runtime::cleanup_phase`]); the kept list is
//! emptied at the end of every microtask checkpoint, as V8's
//! `MicrotaskQueue::PerformCheckpoint` calls `ClearKeptObjects`.

use std::collections::{HashSet, VecDeque};
use std::rc::Rc;

use crate::async_gen::ResumptionValue;
use crate::interp::same_value;
use crate::value::{Completion, Env, FunctionData, ObjectData, ObjectId, Value};
use crate::{Job, Library, Runtime, Task};

/// What a built-in closure holds: the values and environments it captured,
/// which the collector follows as strong edges.
#[derive(Clone, Default)]
pub enum Captures {
    /// Not listed: a collection that reaches the closure collects nothing.
    #[default]
    Unknown,
    /// Exactly these values and environments (and nothing that can come to
    /// hold another object later).
    Exactly {
        /// The values.
        values: Vec<Value>,
        /// The environments (a frame and its parents).
        envs: Vec<Env>,
    },
    /// These values, and the lists shared with other closures (a promise
    /// combinator's values or errors), as they are when a collection runs.
    Lists {
        /// The values.
        values: Vec<Value>,
        /// The shared lists.
        lists: Vec<Rc<std::cell::RefCell<Vec<Value>>>>,
    },
}

impl Captures {
    /// A closure that holds these values and no environment.
    pub fn values(values: Vec<Value>) -> Captures {
        Captures::Exactly {
            values,
            envs: Vec::new(),
        }
    }

    /// A closure that holds these objects and no environment.
    pub fn objects(objects: &[ObjectId]) -> Captures {
        Captures::values(objects.iter().map(|id| Value::Object(*id)).collect())
    }

    /// A closure that holds no object.
    pub fn nothing() -> Captures {
        Captures::values(Vec::new())
    }
}

/// One cell of a FinalizationRegistry's [[Cells]] (ECMA-262 §26.2.1): a
/// Record { [[WeakRefTarget]], [[HeldValue]], [[UnregisterToken]] }.
#[derive(Clone, Debug)]
pub struct RegistryCell {
    /// [[WeakRefTarget]]: `None` once the target was collected (empty).
    pub target: Option<Value>,
    /// [[HeldValue]], held strongly.
    pub held: Value,
    /// [[UnregisterToken]], held weakly: `None` when empty.
    pub token: Option<Value>,
}

/// A FinalizationRegistry's slots.
pub struct RegistryData {
    /// [[CleanupCallback]]: a function object, the script's or a library's.
    pub cleanup: ObjectId,
    /// [[Cells]].
    pub cells: Vec<RegistryCell>,
}

/// The collector's state in a runtime.
#[derive(Default)]
pub struct GcState {
    /// The agent's [[KeptAlive]] list (ECMA-262 §9.10, AddToKeptObjects).
    pub(crate) kept: Vec<ObjectId>,
    /// Registries with cells whose target was collected, in the order
    /// their cleanup tasks run (V8's dirty list).
    pub(crate) dirty: VecDeque<ObjectId>,
    /// The environment of the main script.
    pub(crate) global: Option<Env>,
    /// The environments of the callbacks running now, innermost last.
    pub(crate) frames: Vec<Env>,
    /// Values the running code holds outside any environment: a called
    /// function and its arguments, a native task's captures.
    pub(crate) stack: Vec<Value>,
    /// What the running native tasks captured.
    pub(crate) task_captures: Vec<Captures>,
    /// `watch V`: the label and the WeakRef the engine keeps.
    pub(crate) watches: Vec<(Rc<str>, ObjectId)>,
    /// How many collections ran (for the invariants' messages).
    pub(crate) collections: u64,
}

impl GcState {
    pub(crate) fn clear(&mut self) {
        let GcState {
            kept,
            dirty,
            global,
            frames,
            stack,
            task_captures,
            watches,
            collections,
        } = self;
        kept.clear();
        dirty.clear();
        *global = None;
        frames.clear();
        stack.clear();
        task_captures.clear();
        watches.clear();
        *collections = 0;
    }
}

/// The marking of one collection.
struct Marker {
    live: Vec<bool>,
    work: Vec<ObjectId>,
    frames_seen: HashSet<(*const (), bool)>,
    /// A reachable closure whose captures are unknown: collect nothing.
    conservative: bool,
}

impl Marker {
    fn value(&mut self, v: &Value) {
        if let Value::Object(id) = v {
            self.object(*id);
        }
    }

    fn object(&mut self, id: ObjectId) {
        let i = id.0 as usize;
        if i < self.live.len() && !self.live[i] {
            self.live[i] = true;
            self.work.push(id);
        }
    }

    /// A frame and its parents: the whole frame when it is running, else
    /// what its scope's closures keep ([`Env::trace`]).
    fn env(&mut self, env: &Env, whole: bool) {
        let mut values = Vec::new();
        env.trace(whole, &mut self.frames_seen, &mut values);
        for v in &values {
            self.value(v);
        }
    }

    fn captures(&mut self, captures: &Captures) {
        match captures {
            Captures::Unknown => self.conservative = true,
            Captures::Exactly { values, envs } => {
                for v in values {
                    self.value(v);
                }
                for env in envs {
                    self.env(env, true);
                }
            }
            Captures::Lists { values, lists } => {
                for v in values {
                    self.value(v);
                }
                for list in lists {
                    for v in list.borrow().iter() {
                        self.value(v);
                    }
                }
            }
        }
    }

    fn task<L>(&mut self, task: &Task<L>) {
        match task {
            Task::Script(f, this) => {
                self.object(*f);
                self.value(this);
            }
            Task::Native(_) => self.conservative = true,
            Task::Captured(_, captures) => self.captures(captures),
        }
    }
}

impl<L: Library> Runtime<L> {
    // ---- WeakRef ----------------------------------------------------------

    /// `new WeakRef(target)` (ECMA-262 §26.1.1.1).
    pub fn new_weak_ref(&mut self, target: Value) -> Completion {
        // 2. If CanBeHeldWeakly(target) is false, throw a TypeError.
        if !can_be_held_weakly(&target) {
            return Err(self.new_error("TypeError", "WeakRef: invalid target"));
        }
        // 4. Perform AddToKeptObjects(target).
        self.add_to_kept_objects(&target);
        // 3, 5. weakRef.[[WeakRefTarget]] = target.
        Ok(Value::Object(self.heap.alloc(ObjectData::WeakRef(target))))
    }

    /// `weakRef.deref()` (§26.1.3.2, WeakRefDeref §26.1.4.1).
    pub fn weak_ref_deref(&mut self, weak_ref: &Value) -> Completion {
        let target = match weak_ref {
            Value::Object(id) => match self.heap.get(*id) {
                ObjectData::WeakRef(target) => target.clone(),
                _ => return Err(self.incompatible_receiver("WeakRef.prototype.deref")),
            },
            _ => return Err(self.incompatible_receiver("WeakRef.prototype.deref")),
        };
        // WeakRefDeref 2. If target is not empty, AddToKeptObjects(target).
        if !matches!(target, Value::Undefined) {
            self.add_to_kept_objects(&target);
        }
        Ok(target)
    }

    /// AddToKeptObjects (§9.10): the object survives every collection until
    /// the end of the current job (ClearKeptObjects).
    pub fn add_to_kept_objects(&mut self, value: &Value) {
        if let Value::Object(id) = value {
            self.gc.kept.push(*id);
        }
    }

    /// ClearKeptObjects (§9.10), at the end of a microtask checkpoint.
    pub(crate) fn clear_kept_objects(&mut self) {
        self.gc.kept.clear();
    }

    // ---- FinalizationRegistry ----------------------------------------------

    /// `new FinalizationRegistry(cleanupCallback)` (§26.2.1.1).
    pub fn new_finalization_registry(&mut self, cleanup: Value) -> Completion {
        match cleanup {
            Value::Object(f) if self.is_function(&cleanup) => Ok(Value::Object(self.heap.alloc(
                ObjectData::FinalizationRegistry(Box::new(RegistryData {
                    cleanup: f,
                    cells: Vec::new(),
                })),
            ))),
            _ => Err(self.new_error(
                "TypeError",
                "FinalizationRegistry: cleanup must be callable",
            )),
        }
    }

    fn registry_id(&mut self, registry: &Value, method: &str) -> Result<ObjectId, Value> {
        if let Value::Object(id) = registry {
            if let ObjectData::FinalizationRegistry(_) = self.heap.get(*id) {
                return Ok(*id);
            }
        }
        Err(self.incompatible_receiver(&format!("FinalizationRegistry.prototype.{method}")))
    }

    /// `registry.register(target, heldValue, unregisterToken)` (§26.2.3.2).
    pub fn registry_register(
        &mut self,
        registry: &Value,
        target: Value,
        held: Value,
        token: Option<Value>,
    ) -> Completion {
        let id = self.registry_id(registry, "register")?;
        // 3. If CanBeHeldWeakly(target) is false, throw a TypeError.
        if !can_be_held_weakly(&target) {
            return Err(self.new_error(
                "TypeError",
                "FinalizationRegistry.prototype.register: invalid target",
            ));
        }
        // 4. If SameValue(target, heldValue) is true, throw a TypeError.
        if same_value(&target, &held) {
            return Err(self.new_error(
                "TypeError",
                "FinalizationRegistry.prototype.register: target and holdings must not be same",
            ));
        }
        // 5. If CanBeHeldWeakly(unregisterToken) is false: if it is not
        //    undefined, throw a TypeError; else set it to empty.
        let token = match token {
            None | Some(Value::Undefined) => None,
            Some(t) if can_be_held_weakly(&t) => Some(t),
            Some(t) => return Err(self.invalid_unregister_token(&t)),
        };
        // 6-7. Append the cell.
        if let ObjectData::FinalizationRegistry(data) = self.heap.get_mut(id) {
            data.cells.push(RegistryCell {
                target: Some(target),
                held,
                token,
            });
        }
        Ok(Value::Undefined)
    }

    /// `registry.unregister(unregisterToken)` (§26.2.3.3).
    pub fn registry_unregister(&mut self, registry: &Value, token: Value) -> Completion {
        let id = self.registry_id(registry, "unregister")?;
        // 3. If CanBeHeldWeakly(unregisterToken) is false, throw a TypeError.
        if !can_be_held_weakly(&token) {
            return Err(self.invalid_unregister_token(&token));
        }
        // 4-6. Remove every cell whose token is SameValue to it.
        let ObjectData::FinalizationRegistry(data) = self.heap.get_mut(id) else {
            unreachable!("checked above")
        };
        let before = data.cells.len();
        data.cells
            .retain(|cell| !cell.token.as_ref().is_some_and(|t| same_value(t, &token)));
        Ok(Value::Bool(data.cells.len() != before))
    }

    fn invalid_unregister_token(&mut self, token: &Value) -> Value {
        // V8's message shows the value as String() would.
        let shown = match token {
            Value::Symbol(s) => s.descriptive_string(),
            other => self.fmt(other),
        };
        self.new_error("TypeError", &format!("Invalid unregisterToken ('{shown}')"))
    }

    fn incompatible_receiver(&mut self, method: &str) -> Value {
        self.new_error(
            "TypeError",
            &format!("Method {method} called on incompatible receiver"),
        )
    }

    /// Runs `f` with `roots` held as roots of the collector: what library
    /// code keeps in its locals across a call into script code (a promise
    /// capability it settles afterwards), as a JavaScript function's locals
    /// are held by its frame.
    pub fn holding<T>(&mut self, roots: &[Value], f: impl FnOnce(&mut Self) -> T) -> T {
        let mark = self.gc.stack.len();
        self.gc.stack.extend_from_slice(roots);
        let result = f(self);
        self.gc.stack.truncate(mark);
        result
    }

    // ---- watch and alive --------------------------------------------------

    /// `watch V`: the engine keeps a WeakRef to V under `label`.
    pub fn watch(&mut self, label: &str, value: Value) -> Result<(), Value> {
        let weak_ref = self.new_weak_ref(value)?;
        let Value::Object(weak_ref) = weak_ref else {
            unreachable!("a WeakRef is an object")
        };
        self.gc.watches.push((Rc::from(label), weak_ref));
        Ok(())
    }

    /// `alive`: the line `alive` followed by the labels of the watched
    /// objects that are still there (each deref'd, so kept until the end of
    /// the job).
    pub fn alive_line(&mut self) -> String {
        let mut line = String::from("alive");
        for i in 0..self.gc.watches.len() {
            let (label, weak_ref) = self.gc.watches[i].clone();
            let target = self
                .weak_ref_deref(&Value::Object(weak_ref))
                .unwrap_or(Value::Undefined);
            if !matches!(target, Value::Undefined) {
                line.push(' ');
                line.push_str(&label);
            }
        }
        line
    }

    // ---- the collector ------------------------------------------------------

    /// Whether an object is still in the heap (not collected).
    pub fn is_alive(&self, id: ObjectId) -> bool {
        !matches!(self.heap.get(id), ObjectData::Collected)
    }

    /// `gc()`: a full collection. Objects no root reaches are collected;
    /// WeakRefs to them are emptied, registries with cells for them are
    /// queued for cleanup, and the library forgets them
    /// ([`Library::collected`]). Returns the collected objects.
    pub fn collect_garbage(&mut self) -> Vec<ObjectId> {
        self.gc.collections += 1;
        let mut m = Marker {
            live: vec![false; self.heap.len()],
            work: Vec::new(),
            frames_seen: HashSet::new(),
            conservative: false,
        };
        self.mark_roots(&mut m);
        while let Some(id) = m.work.pop() {
            self.mark_edges(id, &mut m);
        }
        if m.conservative {
            return Vec::new();
        }
        let dead: Vec<ObjectId> = (0..self.heap.len())
            .filter(|&i| !m.live[i])
            .map(|i| ObjectId(i as u32))
            .filter(|&id| self.is_alive(id))
            .collect();
        if dead.is_empty() {
            return dead;
        }
        let is_dead = |v: &Value| matches!(v, Value::Object(id) if !m.live[id.0 as usize]);
        // Empty the WeakRefs and the registries' cells of the dead.
        for i in 0..self.heap.len() {
            if !m.live[i] {
                continue;
            }
            match self.heap.get_mut(ObjectId(i as u32)) {
                ObjectData::WeakRef(target) if is_dead(target) => *target = Value::Undefined,
                ObjectData::FinalizationRegistry(data) => {
                    let mut cleared = false;
                    for cell in &mut data.cells {
                        if cell.target.as_ref().is_some_and(is_dead) {
                            cell.target = None;
                            cleared = true;
                        }
                        if cell.token.as_ref().is_some_and(is_dead) {
                            cell.token = None;
                        }
                    }
                    let id = ObjectId(i as u32);
                    if cleared && !self.gc.dirty.contains(&id) {
                        self.gc.dirty.push_back(id);
                    }
                }
                _ => {}
            }
        }
        self.gc.dirty.retain(|id| m.live[id.0 as usize]);
        // The runtime's own weak tables.
        self.reported_rejections.retain(|id| m.live[id.0 as usize]);
        self.any_weights.retain(|id, _| m.live[id.0 as usize]);
        self.disposable_signals
            .retain(|id, _| m.live[id.0 as usize]);
        L::collected(self, &dead);
        for &id in &dead {
            *self.heap.get_mut(id) = ObjectData::Collected;
        }
        dead
    }

    fn mark_roots(&mut self, m: &mut Marker) {
        if let Some(global) = &self.gc.global {
            m.env(global, true);
        }
        for env in &self.gc.frames {
            m.env(env, true);
        }
        for v in &self.gc.stack {
            m.value(v);
        }
        for c in &self.gc.task_captures {
            m.captures(c);
        }
        for id in &self.gc.kept {
            m.object(*id);
        }
        for (_, weak_ref) in &self.gc.watches {
            m.object(*weak_ref);
        }
        m.value(&self.frame);
        m.value(&self.main_frame);
        for (frame, task) in &self.ticks {
            m.value(frame);
            m.task(task);
        }
        for (frame, job) in &self.microtasks {
            m.value(frame);
            match job {
                Job::PromiseReaction { reaction, argument } => {
                    m.value(argument);
                    m.value(&reaction.frame);
                    if let Some(c) = &reaction.capability {
                        m.object(c.promise);
                        m.object(c.resolve);
                        m.object(c.reject);
                    }
                    if let Some(h) = reaction.handler {
                        m.object(h);
                    }
                }
                Job::ResolveThenable { promise, thenable } => {
                    m.object(*promise);
                    m.object(*thenable);
                }
                Job::Task(task) => m.task(task),
            }
        }
        for entry in self.timers.values() {
            m.value(&entry.frame);
            m.task(&entry.task);
        }
        for (_, frame, task) in &self.immediates {
            m.value(frame);
            m.task(task);
        }
        for id in &self.pending_unhandled_rejections {
            m.object(*id);
        }
        for id in &self.handled_after_report {
            m.object(*id);
        }
        let mut roots = Vec::new();
        if !L::trace_roots(self, &mut roots) {
            m.conservative = true;
        }
        for v in &roots {
            m.value(v);
        }
    }

    fn mark_edges(&self, id: ObjectId, m: &mut Marker) {
        match self.heap.get(id) {
            ObjectData::Error { class, .. } => {
                if let crate::ErrorClass::Aggregate { errors } = class {
                    m.object(*errors);
                }
            }
            ObjectData::Function(f) => match f {
                FunctionData::Script { env, .. } => m.env(env, false),
                FunctionData::Native(_, captures) => m.captures(captures),
                FunctionData::Resolving { promise, .. } => m.object(*promise),
            },
            ObjectData::Promise(p) => {
                m.value(&p.result);
                for r in p.fulfill_reactions.iter().chain(&p.reject_reactions) {
                    m.value(&r.frame);
                    if let Some(c) = &r.capability {
                        m.object(c.promise);
                        m.object(c.resolve);
                        m.object(c.reject);
                    }
                    if let Some(h) = r.handler {
                        m.object(h);
                    }
                }
                if let Some((resolve, reject)) = p.resolvers {
                    m.object(resolve);
                    m.object(reject);
                }
            }
            ObjectData::Thenable { value, then } => {
                m.value(value);
                if let Some(t) = then {
                    m.object(*t);
                }
            }
            ObjectData::ListenerObject { handle_event } => m.object(*handle_event),
            ObjectData::Resolvers { promise } => m.object(*promise),
            ObjectData::Array(items) => {
                for v in items.iter() {
                    m.value(v);
                }
            }
            ObjectData::Settled { value, .. } | ObjectData::IterResult { value, .. } => {
                m.value(value)
            }
            ObjectData::Uint8Array(view) => m.object(view.buffer),
            // The body `for (const v of values) yield v` holds its values;
            // each queued request its completion's value and capability.
            ObjectData::AsyncGenerator(g) => {
                for v in g.values.iter() {
                    m.value(v);
                }
                for request in &g.queue {
                    let (ResumptionValue::Normal(v)
                    | ResumptionValue::Return(v)
                    | ResumptionValue::Throw(v)) = &request.completion;
                    m.value(v);
                    m.object(request.capability.promise);
                    m.object(request.capability.resolve);
                    m.object(request.capability.reject);
                }
            }
            // [[IteratedObject]]: the array iterated.
            ObjectData::ArrayIterator(it) => {
                for v in it.array.iter() {
                    m.value(v);
                }
            }
            // [[SyncIteratorRecord]].
            ObjectData::AsyncFromSyncIterator(record) => {
                m.value(&record.iterator);
                m.value(&record.next_method);
            }
            ObjectData::WeakRef(_) => {}
            ObjectData::FinalizationRegistry(data) => {
                m.object(data.cleanup);
                for cell in &data.cells {
                    m.value(&cell.held);
                }
            }
            ObjectData::Host => {
                let mut edges = Vec::new();
                L::trace(self, id, &mut edges);
                if let Some(signal) = self.disposable_signals.get(&id) {
                    edges.push(signal.clone());
                }
                for v in &edges {
                    m.value(v);
                }
            }
            ObjectData::ArrayBuffer(_)
            | ObjectData::Timer(_)
            | ObjectData::Immediate(_)
            | ObjectData::Plain => {}
            ObjectData::Collected => panic!(
                "invariant: collected object {id:?} is reachable (collection {})",
                self.gc.collections
            ),
        }
    }

    /// The poll phase's part that is ours: the cleanup tasks of the
    /// registries with cleared cells, one task each, each in a callback
    /// scope of its own (its ticks, then its microtasks, after all of its
    /// callbacks). Returns whether one ran.
    ///
    /// Measured on the pinned Node: V8 posts one platform task per dirty registry, and Node runs
    /// platform tasks in the poll phase, one registry per loop iteration, in
    /// an order between registries that is not fixed
    /// (`harness/js/NODE_GC_FACTS.md` §2). The Node engine's driver lets the
    /// real loop turn at its virtual poll phase until every pending
    /// registry has run, so that Node's own registries (the dependant
    /// signals', the timeouts') cannot push a script's cleanup to a later
    /// virtual iteration; the model does the same: every dirty registry
    /// runs in the same poll phase, in the order they became dirty.
    pub(crate) fn cleanup_phase(&mut self) -> bool {
        let mut ran = false;
        while let Some(registry) = self.gc.dirty.pop_front() {
            if self.stopped() {
                return ran;
            }
            ran = true;
            let task = Task::Captured(
                Box::new(move |rt: &mut Runtime<L>| rt.cleanup_finalization_registry(registry)),
                Captures::objects(&[registry]),
            );
            let mut task = Some(task);
            let pending = std::cell::Cell::new(true);
            let threw = self.run_phase(
                |_, _| pending.get(),
                |_| {
                    pending.set(false);
                    // MODEL: a cleanup task is a V8 platform task, which Node
                    // runs in a callback scope of no async context frame.
                    Some((Value::Undefined, task.take()?))
                },
            );
            // Measured on the pinned Node: a callback that throws ends its task; the registry's
            // other cleared cells are called by a later task, without
            // another collection (NODE_GC_FACTS.md §2).
            if threw && self.registry_has_cleared_cells(registry) {
                self.gc.dirty.push_back(registry);
            }
        }
        ran
    }

    fn registry_has_cleared_cells(&self, registry: ObjectId) -> bool {
        matches!(self.heap.get(registry), ObjectData::FinalizationRegistry(data)
            if data.cells.iter().any(|c| c.target.is_none()))
    }

    /// CleanupFinalizationRegistry (§9.13): calls the cleanup callback once
    /// for each cell whose target was collected, removing the cell first.
    fn cleanup_finalization_registry(&mut self, registry: ObjectId) -> Completion {
        loop {
            if self.stopped() || !self.is_alive(registry) {
                return Ok(Value::Undefined);
            }
            let ObjectData::FinalizationRegistry(data) = self.heap.get_mut(registry) else {
                return Ok(Value::Undefined);
            };
            // 3. While finalizationRegistry.[[Cells]] contains a Record cell
            //    such that cell.[[WeakRefTarget]] is empty, an
            //    implementation may perform: choose such a cell, remove it,
            //    call the callback with its held value.
            // Measured on the pinned Node: V8 chooses the most recently registered first (the
            //    reverse of registration order; cells with an unregister
            //    token come in an order that varies per process,
            //    NODE_GC_FACTS.md §2, so scenarios do not rely on theirs).
            let Some(at) = data.cells.iter().rposition(|c| c.target.is_none()) else {
                return Ok(Value::Undefined);
            };
            let cell = data.cells.remove(at);
            let callback = data.cleanup;
            self.call_function(callback, Value::Undefined, &[cell.held])?;
        }
    }

    /// Whether a registry's cleanup is waiting for the poll phase.
    pub(crate) fn cleanup_pending(&self) -> bool {
        !self.gc.dirty.is_empty()
    }
}

/// CanBeHeldWeakly (ECMA-262 §9.13): an object, or a symbol that is not
/// registered (the language makes no registered symbols).
pub fn can_be_held_weakly(v: &Value) -> bool {
    matches!(v, Value::Object(_) | Value::Symbol(_))
}
