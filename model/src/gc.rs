//! Garbage collection of the library's objects: their strong edges, the
//! objects Node retains without a script reference, and what the library
//! forgets when the collector frees an object.
//!
//! FIXME: not written yet. Until it is, the library reports that it cannot
//! tell what it holds, so no collection frees anything.

use nodesem_runtime::{Completion, ObjectId, Runtime, Value};

use crate::Model;

/// `dependants S`.
pub(crate) fn dependant_count(_rt: &mut Runtime<Model>, _signal: Value) -> Completion {
    Ok(Value::Number(0.0))
}

/// The strong edges of one of the library's objects.
pub(crate) fn trace(_rt: &Runtime<Model>, _obj: ObjectId, _edges: &mut Vec<Value>) {}

/// The library's roots; false: it cannot tell yet.
pub(crate) fn trace_roots(_rt: &Runtime<Model>, _roots: &mut Vec<Value>) -> bool {
    false
}

/// Forgets collected objects.
pub(crate) fn collected(_rt: &mut Runtime<Model>, _dead: &[ObjectId]) {}
