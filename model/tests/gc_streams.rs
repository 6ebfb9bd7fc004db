//! The model's garbage collection of the web streams (model/src/gc.rs and
//! the `trace` of each streams module): the scenarios in
//! `scenarios/gc/streams_*.scn`, each run on the model and checked against the log
//! the pinned Node 26.12.1 printed for it
//! (`nodesem run FILE --engine node`; the model prints the same).
//!
//! Each would fail on a model that collects nothing while a stream exists
//! (every watched object would stay alive), and most on one that forgets an
//! edge (a collected object read again fails the run) or keeps one Node
//! does not hold (the async iterator's).

use nodesem_lang::{parse, RunConfig};
use nodesem_model::Model;
use nodesem_runtime::run_scenario;

fn check(file: &str, expected: &[&str]) {
    let path = format!(
        "{}/../scenarios/gc/streams_{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let scenario = parse(file, &text).unwrap_or_else(|e| panic!("{file}: {e:?}"));
    let log = run_scenario::<Model>(&scenario, &RunConfig::default());
    assert_eq!(log.lines, expected, "{file}");
}

/// An async iterator's next() waits on a source that never enqueues: the
/// read request holds the iterator's state (and its reader), not the
/// iterator object (Node's ReadableStreamAsyncIteratorReadRequest), so the
/// dropped iterator object is collected while the stream, still bound,
/// keeps the read pending.
#[test]
fn async_iterator_object_is_not_held_by_its_read() {
    check(
        "async_iterator_object_is_not_held_by_its_read.scn",
        &["alive", "end"],
    );
}

/// A BYOB read waits on a byte source's pull: the controller holds its
/// byobRequest (and the pull-into's buffer), the stream its controller and
/// BYOB reader; all live while the reader is bound, and all go after.
#[test]
fn byte_stream_byob_request_lives_with_its_controller() {
    check(
        "byte_stream_byob_request_lives_with_its_controller.scn",
        &[
            "pull Uint8Array(0, 0, 0, 0)",
            "alive rs controller.byobRequest",
            "alive",
        ],
    );
}

/// A ReadableStream with nothing pending (its start settled, a chunk queued,
/// no reader): once its binding is dropped nothing reaches it, its
/// controller or its source, and a gc frees them.
#[test]
fn dropped_readable_is_collected() {
    check("dropped_readable_is_collected.scn", &["alive s", "alive"]);
}

/// Collections inside a source's start and pull, a size function and a
/// sink's write, with the streams' bindings dropped or not yet made: what
/// the running algorithms use afterwards is held by them, as Node's frames
/// hold it.
#[test]
fn gc_inside_stream_callbacks() {
    check(
        "gc_inside_stream_callbacks.scn",
        &["pull", "write a", "pull", "alive"],
    );
}

/// A pipe waiting on a source that can never enqueue (no source object):
/// the pipe's read request is held only by the source's reader, so the two
/// dropped streams and the pipe are garbage, though pipeTo's promise is
/// still bound.
#[test]
fn idle_pipe_between_dropped_streams_is_collected() {
    check(
        "idle_pipe_between_dropped_streams_is_collected.scn",
        &["alive", "end"],
    );
}

/// A read waits for a pull that never enqueues: the reader holds its read
/// request, the stream its reader and the reader its stream, so the stream
/// lives while the reader's binding does, and both go once it is dropped
/// (the read's promise, still bound, holds neither).
#[test]
fn pending_read_keeps_the_stream_through_its_reader() {
    check(
        "pending_read_keeps_the_stream_through_its_reader.scn",
        &["pull", "alive s r", "alive"],
    );
}

/// pipeTo with a signal: the signal's abort listener closes over the pipe,
/// so while the controller's binding keeps the signal, the pipe keeps both
/// dropped streams; the abort shuts the pipe down, the listener is removed,
/// and both streams go.
#[test]
fn pipe_signal_keeps_the_pipe() {
    check(
        "pipe_signal_keeps_the_pipe.scn",
        &[
            "alive rs ws",
            "sink abort stop",
            "source cancel stop",
            "pipe stop",
            "alive",
        ],
    );
}

/// A pipe between two dropped streams whose source still has work queued
/// (a timer that enqueues): the timer reaches the source's controller, the
/// source its reader, the reader the pipe's read request, the pipe the
/// destination. Once the timer has run and the chunk is written, nothing
/// reaches either stream.
#[test]
fn pipe_with_queued_work_lives_until_it_is_done() {
    check(
        "pipe_with_queued_work_lives_until_it_is_done.scn",
        &["alive rs ws", "write late", "alive"],
    );
}

/// A tee's branches share the tee's variables (the source, its reader, both
/// branches): either branch keeps the source and the other branch alive;
/// once both are dropped everything goes.
#[test]
fn tee_branches_keep_the_source() {
    check(
        "tee_branches_keep_the_source.scn",
        &["alive s a b", "alive s a b", "alive"],
    );
}

/// A TransformStream's readable side reaches the TransformStream through
/// its source's pull and cancel algorithms, and the TransformStream its
/// writable side: while the readable is bound all three live; then none.
#[test]
fn transform_readable_keeps_the_transform() {
    check(
        "transform_readable_keeps_the_transform.scn",
        &["alive ts w", "alive"],
    );
}

/// A write whose sink returned a pending promise: that promise's reactions
/// reach the writable's controller, so the stream and its writer live while
/// the promise (bound) is pending, though both bindings are dropped; once it
/// settles and the write completes, they go.
#[test]
fn writable_pending_write_is_kept_by_the_sink_promise() {
    check(
        "writable_pending_write_is_kept_by_the_sink_promise.scn",
        &["write a", "alive ws w", "written", "alive"],
    );
}

/// A pull that closes the byte stream and then collects: the read's
/// promise, settled by the close and in no slot any more, is still returned
/// by read() (its frame holds it), and the script's reaction runs on it.
/// (Shrunk from a generated scenario on which the model failed.)
#[test]
fn read_promise_settled_by_a_collecting_pull() {
    check(
        "read_promise_settled_by_a_collecting_pull.scn",
        &["read true"],
    );
}
