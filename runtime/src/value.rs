//! JavaScript values, the heap of objects and lexical environments.
//!
//! Both engines share this representation so that the only thing that
//! differs between them is the library layer (EventTarget, AbortSignal, ...).
//! Library objects live in the heap as [`ObjectData::Host`] and keep their
//! state in the library's own tables, keyed by [`ObjectId`].

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use nodesem_lang::Block;

use crate::promise::PromiseData;
use crate::Runtime;

/// A handle to an object in the heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId(pub u32);

/// A JavaScript value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `undefined`.
    Undefined,
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number.
    Number(f64),
    /// A string.
    String(Rc<str>),
    /// A symbol.
    Symbol(Symbol),
    /// An object.
    Object(ObjectId),
}

/// A symbol: a primitive value with an identity of its own and a
/// description (empty when it has none: `String(Symbol())` and
/// `String(Symbol(""))` are both `Symbol()`, and the language reads no
/// `description`). Two symbols are equal only when they are one.
#[derive(Clone, Debug)]
pub struct Symbol(Rc<str>);

impl Symbol {
    /// A new symbol, `Symbol(description)`.
    pub fn new(description: &str) -> Symbol {
        Symbol(Rc::from(description))
    }

    /// `String(symbol)` (ECMA-262 20.4.3.3.1 SymbolDescriptiveString):
    /// `Symbol(` description `)`.
    pub fn descriptive_string(&self) -> String {
        format!("Symbol({})", self.0)
    }
}

impl PartialEq for Symbol {
    fn eq(&self, other: &Symbol) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Value {
    /// A string value.
    pub fn string(s: &str) -> Value {
        Value::String(Rc::from(s))
    }

    /// ToBoolean (ECMA-262 7.1.2): false for undefined, null, false, +0,
    /// -0, NaN and the empty string.
    pub fn to_boolean(&self) -> bool {
        match self {
            Value::Undefined | Value::Null => false,
            Value::Bool(b) => *b,
            Value::Number(n) => !(*n == 0.0 || n.is_nan()),
            Value::String(s) => !s.is_empty(),
            Value::Symbol(_) | Value::Object(_) => true,
        }
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<ObjectId> {
        match self {
            Value::Object(id) => Some(*id),
            _ => None,
        }
    }
}

/// The result of running JavaScript: a value, or a thrown value.
pub type Completion = Result<Value, Value>;

/// The built-in error classes scripts can observe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    /// `Error`, `TypeError`, `RangeError`: ordinary errors.
    Error,
    /// `DOMException`, such as the default abort reason.
    DomException,
    /// One of Node's coded errors (lib/internal/errors.js), with its `code`.
    Node {
        /// `code`, such as `ERR_INVALID_ARG_TYPE`.
        code: &'static str,
    },
    /// `AggregateError`, with its `errors` array: what `Promise.any`
    /// rejects with.
    Aggregate {
        /// The `errors` array.
        errors: ObjectId,
    },
}

/// A function object.
pub enum FunctionData<L: 'static> {
    /// A function written in the scenario: a block with its closure.
    Script {
        /// The body: its statements are the scenario's own, shared, and it
        /// knows what a call costs up front ([`Block::cost`]).
        body: Block,
        /// The name of its implicit parameter (`event`, `value`, `reason`).
        param: Option<&'static str>,
        /// The name of its second implicit parameter (`controller` of a
        /// sink's `write` or a transformer's `transform`, after `chunk`).
        second: Option<&'static str>,
        /// The environment it closes over.
        env: Env,
        /// The identity of the block this function was made from, for
        /// [`crate::RunStats`]; 0 when the run collects none.
        origin: u64,
        /// Whether it is an async function: a call runs the body up to its
        /// first `await` and returns a promise ([`crate::async_fn`]).
        is_async: bool,
    },
    /// A built-in function of the runtime or the library, with what it
    /// captured for the collector ([`crate::gc::Captures`]).
    Native(NativeFn<L>, crate::gc::Captures),
    /// A promise resolve or reject function (ECMA-262 27.2.1.3.1 and
    /// 27.2.1.3.2): a built-in function with the slots [[Promise]] and
    /// [[AlreadyResolved]], the record it shares with its twin. Its own
    /// variant, not a [`FunctionData::Native`] closure: a promise makes a
    /// pair of these for every `new Promise`, thenable job and combinator
    /// element, and a closure costs two allocations more.
    Resolving {
        /// [[Promise]].
        promise: ObjectId,
        /// [[AlreadyResolved]]: shared by the resolve and reject functions
        /// of one CreateResolvingFunctions.
        already_resolved: Rc<Cell<bool>>,
        /// Whether this is the reject function (else the resolve one).
        reject: bool,
    },
}

/// A built-in function: called with `this` and the arguments.
pub type NativeFn<L> = Rc<dyn Fn(&mut Runtime<L>, Value, &[Value]) -> Completion>;

/// What an object is.
pub enum ObjectData<L: 'static> {
    /// An Error or DOMException.
    Error {
        /// Which constructor made it.
        class: ErrorClass,
        /// Its `name`.
        name: Rc<str>,
        /// Its `message`.
        message: Rc<str>,
    },
    /// A function.
    Function(FunctionData<L>),
    /// A promise.
    Promise(PromiseData),
    /// A `thenable V` object: `{ then(resolve) { ...; resolve(V); } }`.
    Thenable {
        /// What `then` resolves with.
        value: Value,
        /// The script code `then` runs first, as a function.
        then: Option<ObjectId>,
    },
    /// An EventListener object of `handleEvent { ... }`: `{ handleEvent }`.
    ListenerObject {
        /// Its `handleEvent` method.
        handle_event: ObjectId,
    },
    /// The record `Promise.withResolvers()` returns.
    Resolvers {
        /// `promise`, a deferred whose resolving functions are `resolve`
        /// and `reject`.
        promise: ObjectId,
    },
    /// An array (only built-ins make them: CreateArrayFromList).
    Array(Rc<[Value]>),
    /// A record of `Promise.allSettled`: `{ status: "fulfilled", value }`
    /// or `{ status: "rejected", reason }`.
    Settled {
        /// Whether the status is "fulfilled".
        fulfilled: bool,
        /// The value or the reason.
        value: Value,
    },
    /// An iterator result, `{ value, done }` (ECMA-262 7.4.14
    /// CreateIterResultObject): what a stream reader's `read()` fulfils
    /// with.
    IterResult {
        /// `value`.
        value: Value,
        /// `done`.
        done: bool,
    },
    /// An ArrayBuffer: its bytes, `None` once detached ([`crate::bytes`]).
    ArrayBuffer(Option<Vec<u8>>),
    /// A Uint8Array: a window on an ArrayBuffer ([`crate::bytes`]).
    Uint8Array(crate::bytes::View),
    /// An async generator object ([`crate::async_gen`]).
    AsyncGenerator(Box<crate::async_gen::AsyncGeneratorData>),
    /// An Array Iterator (`array[Symbol.iterator]()`, [`crate::iteration`]).
    ArrayIterator(crate::iteration::ArrayIteratorData),
    /// An async-from-sync iterator (CreateAsyncFromSyncIterator): its
    /// [[SyncIteratorRecord]].
    AsyncFromSyncIterator(Box<crate::iteration::IteratorRecord>),
    /// A timer handle (setTimeout).
    Timer(u64),
    /// An immediate handle (setImmediate).
    Immediate(u64),
    /// A plain object with nothing the runtime needs to know about.
    Plain,
    /// An object of the library layer; its state lives in the library.
    Host,
    /// A WeakRef: its [[WeakRefTarget]], `undefined` once the target was
    /// collected ([`crate::gc`]).
    WeakRef(Value),
    /// A FinalizationRegistry ([`crate::gc`]).
    FinalizationRegistry(Box<crate::gc::RegistryData>),
    /// What the slot of a collected object holds: nothing may read it
    /// again.
    Collected,
}

/// The heap: every object a scenario made, by id.
pub struct Heap<L: 'static> {
    objects: Vec<ObjectData<L>>,
}

impl<L> Default for Heap<L> {
    fn default() -> Self {
        Heap {
            // A generated scenario makes a dozen objects or so: growing
            // from empty cost more than this.
            objects: Vec::with_capacity(64),
        }
    }
}

impl<L> Heap<L> {
    /// Allocates an object.
    pub fn alloc(&mut self, data: ObjectData<L>) -> ObjectId {
        let id = ObjectId(u32::try_from(self.objects.len()).expect("fewer than 2^32 objects"));
        self.objects.push(data);
        id
    }

    /// The object with this id.
    pub fn get(&self, id: ObjectId) -> &ObjectData<L> {
        &self.objects[id.0 as usize]
    }

    /// The object with this id, mutably.
    pub fn get_mut(&mut self, id: ObjectId) -> &mut ObjectData<L> {
        &mut self.objects[id.0 as usize]
    }

    /// Frees every object, keeping the table's memory.
    pub fn clear(&mut self) {
        self.objects.clear();
    }

    /// How many objects were allocated.
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    /// Whether nothing was allocated.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }
}

/// A lexical environment: the bindings of one block activation and its
/// parent. Closures keep their environment alive, as in JavaScript.
#[derive(Clone, Default)]
pub struct Env(Rc<RefCell<EnvFrame>>);

#[derive(Default)]
struct EnvFrame {
    /// A callback's implicit parameter (`event`, `value`, `reason`), kept
    /// apart so that the frame of a callback that makes no `let` allocates
    /// no list.
    param: Option<(&'static str, Value)>,
    /// A callback's `this`; `None` in the frames of blocks that are not
    /// functions (`try`, `repeat`) and of the main script.
    this: Option<Value>,
    /// How many arguments the callback was called with (`arguments.length`).
    argc: u32,
    /// The block whose scope this frame is, for the collector: through a
    /// closure, only the bindings some inner function reads stay
    /// ([`nodesem_lang::Block::closed_over_names`]). `None` for the main
    /// script's frame, whose bindings the emitted module's segments all
    /// read.
    block: Option<Block>,
    /// The `let`s of this activation. A frame holds a handful of them, so a
    /// list searched from the end beats hashing each name on every lookup
    /// ...
    vars: Vec<(Arc<str>, Value)>,
    /// ... until it holds more than [`FRAME_LIST_MAX`]: then an index keeps
    /// a main script of ten thousand bindings linear to run. It shares the
    /// names of `vars`. The names are the scenario's, so the hash is the
    /// standard keyed one: a script cannot choose names that collide.
    /// Boxed: most frames never have one, and every call makes a frame.
    #[allow(clippy::box_collection)] // one word in every frame, not six
    index: Option<Box<HashMap<Arc<str>, usize>>>,
    parent: Option<Env>,
}

/// Whether two binding names are equal. Names are short and, in generated
/// scenarios, differ in their numeric suffix (`c1`, `c4`): comparing from
/// the end, inline, settles most pairs at the first byte where a call to
/// `memcmp` cost more than the comparison.
fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().rev().zip(b.bytes().rev()).all(|(x, y)| x == y)
}

/// The most bindings a frame searches as a list (see [`EnvFrame::index`]).
const FRAME_LIST_MAX: usize = 16;

/// Where a frame holds a binding.
enum Slot {
    Param,
    Var(usize),
}

impl EnvFrame {
    fn find(&self, name: &str) -> Option<Slot> {
        let var = match &self.index {
            Some(index) => index.get(name).copied(),
            None => self.vars.iter().rposition(|(n, _)| same_name(n, name)),
        };
        match var {
            Some(i) => Some(Slot::Var(i)),
            None => match &self.param {
                Some((param, _)) if *param == name => Some(Slot::Param),
                _ => None,
            },
        }
    }

    fn value(&self, slot: Slot) -> &Value {
        match slot {
            Slot::Param => &self.param.as_ref().expect("a parameter").1,
            Slot::Var(i) => &self.vars[i].1,
        }
    }

    fn define(&mut self, name: &Arc<str>, value: Value) {
        match self.find(name) {
            Some(Slot::Param) => self.param.as_mut().expect("a parameter").1 = value,
            Some(Slot::Var(i)) => self.vars[i].1 = value,
            None => {
                let name = Arc::clone(name);
                let at = self.vars.len();
                if let Some(index) = &mut self.index {
                    index.insert(Arc::clone(&name), at);
                }
                if self.vars.capacity() == 0 {
                    // A frame that makes one `let` usually makes more.
                    self.vars.reserve(8);
                }
                self.vars.push((name, value));
                if self.index.is_none() && self.vars.len() > FRAME_LIST_MAX {
                    let mut index = HashMap::with_capacity(4 * FRAME_LIST_MAX);
                    index.extend(
                        self.vars
                            .iter()
                            .enumerate()
                            .map(|(i, (n, _))| (Arc::clone(n), i)),
                    );
                    self.index = Some(Box::new(index));
                }
            }
        }
    }
}

impl Env {
    /// A new environment whose parent is `self`, the scope of `block`.
    pub fn child(&self, block: &Block) -> Env {
        Env(Rc::new(RefCell::new(EnvFrame {
            parent: Some(self.clone()),
            block: Some(block.clone()),
            ..EnvFrame::default()
        })))
    }

    /// The environment of one run of `block` inside `self`: a new one if
    /// the block declares a binding of its own, `self` if it declares none.
    /// A scope without bindings cannot be observed (ECMA-262 14.2.2, Block
    /// evaluation, makes one only to hold the block's declarations), and a
    /// `try`, `if` or `repeat` block often has none: a round of `repeat`
    /// then allocates nothing.
    pub fn block_scope(&self, block: &nodesem_lang::Block) -> Env {
        if block.declares() {
            self.child(block)
        } else {
            self.clone()
        }
    }

    /// The environment of a call of a function that closes over `self`:
    /// its receiver and its implicit parameter, if it has one.
    pub fn call_frame(
        &self,
        body: &Block,
        this: Value,
        param: Option<(&'static str, Value)>,
        argc: u32,
    ) -> Env {
        Env(Rc::new(RefCell::new(EnvFrame {
            param,
            this: Some(this),
            argc,
            parent: Some(self.clone()),
            block: Some(body.clone()),
            ..EnvFrame::default()
        })))
    }

    /// Whether both are the one frame.
    pub fn same(&self, other: &Env) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }

    /// `this`: the receiver of the innermost function call around this
    /// environment, undefined outside every call.
    pub fn this(&self) -> Value {
        let frame = self.0.borrow();
        match (&frame.this, &frame.parent) {
            (Some(this), _) => this.clone(),
            (None, Some(parent)) => parent.this(),
            (None, None) => Value::Undefined,
        }
    }

    /// `arguments.length`: the argument count of the innermost function call
    /// around this environment, 0 outside every call.
    pub fn argument_count(&self) -> u32 {
        let frame = self.0.borrow();
        match (&frame.this, &frame.parent) {
            (Some(_), _) => frame.argc,
            (None, Some(parent)) => parent.argument_count(),
            (None, None) => 0,
        }
    }

    /// Defines a binding in this environment. The name is the scenario's
    /// own (`Stmt::Let`), shared rather than copied.
    pub fn define(&self, name: &Arc<str>, value: Value) {
        self.0.borrow_mut().define(name, value);
    }

    /// `name = value`: sets the nearest binding of that name. Returns false
    /// when there is none (the parser lets only bindings in scope be set).
    pub fn assign(&self, name: &str, value: Value) -> bool {
        let mut frame = self.0.borrow_mut();
        match frame.find(name) {
            Some(Slot::Param) => frame.param.as_mut().expect("a parameter").1 = value,
            Some(Slot::Var(i)) => frame.vars[i].1 = value,
            None => {
                let parent = frame.parent.clone();
                drop(frame);
                return parent.is_some_and(|p| p.assign(name, value));
            }
        }
        true
    }

    /// The value of the binding `name` at `place`, `hops` frames up the
    /// chain, if the `slot`th `let` of that frame is of that name; `None`
    /// when it is not (a stale hint, or a binding not made yet): then
    /// [`Env::lookup`] searches by name. No binding shadows another
    /// (`nodesem_lang::resolve`), so a frame of the chain that holds `name`
    /// holds the one binding a search would find.
    pub fn lookup_at(&self, place: nodesem_lang::Place, name: &str) -> Option<Value> {
        let frame = self.0.borrow();
        if place.hops > 0 {
            let outer = nodesem_lang::Place {
                hops: place.hops - 1,
                slot: place.slot,
            };
            return frame.parent.as_ref()?.lookup_at(outer, name);
        }
        match frame.vars.get(place.slot as usize) {
            Some((n, value)) if same_name(n, name) => Some(value.clone()),
            _ => None,
        }
    }

    /// The values this environment and its parents hold, for the
    /// collector. A running frame (`whole`) holds all its bindings, its
    /// receiver and its parameter; a frame reached through a closure (the
    /// parents, or a function's environment) only the bindings some inner
    /// function of its scope reads, as V8 allocates them in the scope's
    /// context ([`nodesem_lang::Block::closed_over_names`]). `seen` holds
    /// the frames already visited, by address and by how.
    pub fn trace(
        &self,
        whole: bool,
        seen: &mut std::collections::HashSet<(*const (), bool)>,
        out: &mut Vec<Value>,
    ) {
        let mut env = Some(self.clone());
        let mut whole = whole;
        while let Some(e) = env {
            let address = Rc::as_ptr(&e.0) as *const ();
            if seen.contains(&(address, true)) || !seen.insert((address, whole)) {
                return;
            }
            let frame = e.0.borrow();
            match (&frame.block, whole) {
                (None, _) | (_, true) => {
                    if let Some((_, v)) = &frame.param {
                        out.push(v.clone());
                    }
                    if whole {
                        if let Some(this) = &frame.this {
                            out.push(this.clone());
                        }
                    }
                    out.extend(frame.vars.iter().map(|(_, v)| v.clone()));
                }
                (Some(block), false) => {
                    let names = block.closed_over_names();
                    if let Some((name, v)) = &frame.param {
                        if names.contains(name) {
                            out.push(v.clone());
                        }
                    }
                    out.extend(
                        frame
                            .vars
                            .iter()
                            .filter(|(n, _)| names.contains(&&**n))
                            .map(|(_, v)| v.clone()),
                    );
                }
            }
            env = frame.parent.clone();
            whole = false;
        }
    }

    /// Looks a binding up through the chain.
    pub fn lookup(&self, name: &str) -> Option<Value> {
        let frame = self.0.borrow();
        match frame.find(name) {
            Some(slot) => Some(frame.value(slot).clone()),
            None => frame.parent.as_ref().and_then(|p| p.lookup(name)),
        }
    }
}

/// Formats a number as JavaScript's `Number.prototype.toString` does, for
/// the integers and simple fractions scenarios produce.
pub fn number_to_string(n: f64) -> String {
    nodesem_lang::number_to_string(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(text: &str) -> Arc<str> {
        Arc::from(text)
    }

    #[test]
    fn a_place_is_trusted_only_where_its_name_is() {
        use nodesem_lang::Place;
        let global = Env::default();
        global.define(&name("a"), Value::Number(1.0));
        global.define(&name("b"), Value::Number(2.0));
        let body = Block::new(Vec::new());
        let call = global.call_frame(&body, Value::Null, Some(("event", Value::Number(3.0))), 1);
        call.define(&name("c"), Value::Number(4.0));
        let place = |hops, slot| Place { hops, slot };
        assert_eq!(call.lookup_at(place(1, 1), "b"), Some(Value::Number(2.0)));
        assert_eq!(call.lookup_at(place(0, 0), "c"), Some(Value::Number(4.0)));
        // A stale hint: another name there, no such slot, no such frame.
        assert_eq!(call.lookup_at(place(1, 0), "b"), None);
        assert_eq!(call.lookup_at(place(0, 5), "c"), None);
        assert_eq!(call.lookup_at(place(2, 0), "a"), None);
    }

    #[test]
    fn a_lookup_finds_the_nearest_binding_and_the_parameter_last() {
        let global = Env::default();
        global.define(&name("event"), Value::Number(0.0));
        global.define(&name("a"), Value::Number(1.0));
        let body = Block::new(Vec::new());
        let call = global.call_frame(&body, Value::Null, Some(("event", Value::Number(2.0))), 1);
        assert_eq!(call.child(&body).argument_count(), 1);
        assert_eq!(global.argument_count(), 0);
        assert_eq!(call.lookup("event"), Some(Value::Number(2.0)));
        assert_eq!(call.lookup("a"), Some(Value::Number(1.0)));
        // A `let` of the parameter's name replaces the parameter's value.
        call.define(&name("event"), Value::Number(3.0));
        assert_eq!(call.lookup("event"), Some(Value::Number(3.0)));
        assert_eq!(global.lookup("event"), Some(Value::Number(0.0)));
        assert_eq!(call.lookup("b"), None);
        assert_eq!(
            call.child(&body).this(),
            Value::Null,
            "a try block inside sees the call's this"
        );
        assert_eq!(global.child(&body).this(), Value::Undefined);
    }

    #[test]
    fn a_frame_keeps_every_binding_across_the_switch_to_an_index() {
        let frame = Env::default().child(&Block::new(Vec::new()));
        let count = 3 * FRAME_LIST_MAX;
        for i in 0..count {
            frame.define(&name(&format!("b{i}")), Value::Number(i as f64));
            // Names that differ only in their first byte, for same_name.
            frame.define(&name(&format!("{i}x")), Value::Number(-(i as f64)));
        }
        frame.define(&name("b3"), Value::Bool(true));
        for i in 0..count {
            let expected = if i == 3 {
                Value::Bool(true)
            } else {
                Value::Number(i as f64)
            };
            assert_eq!(frame.lookup(&format!("b{i}")), Some(expected), "b{i}");
            assert_eq!(
                frame.lookup(&format!("{i}x")),
                Some(Value::Number(-(i as f64)))
            );
        }
        assert_eq!(frame.lookup(&format!("b{count}")), None);
    }
}
