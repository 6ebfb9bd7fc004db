//! ReadableStream, its default controller and reader, built the way Node's
//! lib/internal/webstreams/readablestream.js builds them, with the
//! optimizations of seeds/webstreams-idle-start-and-watchers.txt.
//!
//! FIXME(streams, issue 9): not written yet; every operation throws a
//! TypeError so that a scenario that uses one diverges from Node visibly.

use nodesem_runtime::{Completion, HostClass, ObjectId, Runtime, UnderlyingSource, Value};

use crate::Impl;

type Rt = Runtime<Impl>;

/// The streams' state for one scenario.
#[derive(Debug, Default)]
pub struct Streams {}

impl Streams {
    /// Empties the state for another scenario.
    pub fn clear(&mut self) {}
}

fn not_yet(rt: &mut Rt) -> Completion {
    Err(rt.new_error("TypeError", "ReadableStream is not implemented yet"))
}

/// `new ReadableStream(source, { highWaterMark })`.
pub fn new_readable_stream(rt: &mut Rt, _: UnderlyingSource, _: Option<f64>) -> Completion {
    not_yet(rt)
}

/// `controller.enqueue(chunk)`.
pub fn controller_enqueue(rt: &mut Rt, _: Value, _: Value) -> Completion {
    not_yet(rt)
}

/// `controller.close()`.
pub fn controller_close(rt: &mut Rt, _: Value) -> Completion {
    not_yet(rt)
}

/// `controller.error(e)`.
pub fn controller_error(rt: &mut Rt, _: Value, _: Value) -> Completion {
    not_yet(rt)
}

/// `stream.getReader()`.
pub fn get_reader(rt: &mut Rt, _: Value) -> Completion {
    not_yet(rt)
}

/// `stream.cancel(reason)`.
pub fn stream_cancel(rt: &mut Rt, _: Value, _: Option<Value>) -> Completion {
    not_yet(rt)
}

/// `reader.read()`.
pub fn reader_read(rt: &mut Rt, _: Value) -> Completion {
    not_yet(rt)
}

/// `reader.releaseLock()`.
pub fn reader_release_lock(rt: &mut Rt, _: Value) -> Completion {
    not_yet(rt)
}

/// `reader.cancel(reason)`.
pub fn reader_cancel(rt: &mut Rt, _: Value, _: Option<Value>) -> Completion {
    not_yet(rt)
}

/// A property of a stream object, or `None` when `obj` is none.
pub fn get(_: &mut Rt, _: ObjectId, _: &str) -> Option<Completion> {
    None
}

/// What a stream object is, or `None` when `obj` is none.
pub fn host_class(_: &Rt, _: ObjectId) -> Option<HostClass> {
    None
}
