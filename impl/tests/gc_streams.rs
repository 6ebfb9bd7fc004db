//! Precise collection with streams: impl traces its stream objects, the
//! hidden objects standing for the state their algorithms share, and the
//! closures they make, so a `gc` collects dropped streams (see
//! `impl/src/gc.rs`). Each scenario is a file `scenarios/gc/streams_*.scn`;
//! every log below is real Node 26.12.1's output for it (`nodesem run FILE
//! --engine node`, the pinned binary), taken when the test was written.

use nodesem_impl::ImplEngine;
use nodesem_lang::{parse, RunConfig};

/// impl prints Node's `log` for the scenario `name`.
fn node_log(name: &str, text: &str, log: &[&str]) {
    let scenario = parse(name, text).unwrap_or_else(|e| panic!("{e}"));
    let lines = ImplEngine::default()
        .run_scenario(&scenario, &RunConfig::default())
        .lines;
    assert_eq!(lines, log, "{name}: impl's log is not Node's");
}

/// A byte stream with a BYOB request: a gc inside pull() keeps the request and its view; the stream goes with its bindings.
#[test]
fn byte_stream_byob_request() {
    node_log(
        "byte_stream_byob_request.scn",
        include_str!("../../scenarios/gc/streams_byte_stream_byob_request.scn"),
        &["pull 3", "alive"],
    );
}

/// A dropped ReadableStream with no pending work is collected; a bound one is kept.
#[test]
fn dropped_readable_is_collected() {
    node_log(
        "dropped_readable_is_collected.scn",
        include_str!(
            "../../scenarios/gc/streams_dropped_readable_is_collected_beside_a_bound_one.scn"
        ),
        &["alive k", "false"],
    );
}

/// A reader with a pending read keeps its stream while its binding lives; both go once it is dropped.
#[test]
fn pending_read_keeps_stream_while_reader_lives() {
    node_log(
        "pending_read_keeps_stream_while_reader_lives.scn",
        include_str!("../../scenarios/gc/streams_pending_read_keeps_stream_while_reader_lives.scn"),
        &["alive rs r", "alive"],
    );
}

/// A pipe in progress between two dropped streams is kept by the source's pending pull promise, and freed with it.
#[test]
fn pipe_between_dropped_streams() {
    node_log(
        "pipe_between_dropped_streams.scn",
        include_str!("../../scenarios/gc/streams_pipe_between_dropped_streams.scn"),
        &[
            "write a",
            "t1",
            "pull",
            "t2",
            "t3",
            "t4",
            "alive rs ws",
            "alive",
        ],
    );
}

/// pipeTo with a signal: the signal's listener keeps the pipe and its dropped streams until the abort shuts it down.
#[test]
fn pipe_with_signal() {
    node_log(
        "pipe_with_signal.scn",
        include_str!("../../scenarios/gc/streams_pipe_with_signal.scn"),
        &[
            "pull",
            "alive rs ws",
            "sink abort stop",
            "source cancel stop",
            "t1",
            "t2",
            "t3",
            "t4",
            "t5",
            "t6",
            "pipe stop",
            "alive",
        ],
    );
}

/// A tee's branches keep the teed stream and each other through the tee's shared state.
#[test]
fn tee_branches() {
    node_log(
        "tee_branches.scn",
        include_str!("../../scenarios/gc/streams_tee_branches.scn"),
        &[
            "alive rs one two",
            "alive rs one two",
            "two {value: a, done: false}",
            "alive",
        ],
    );
}

/// A TransformStream is kept by its writer and its readable side, and freed with them.
#[test]
fn transform_stream() {
    node_log(
        "transform_stream.scn",
        include_str!("../../scenarios/gc/streams_transform_stream.scn"),
        &[
            "alive ts w",
            "transform a",
            "read {value: a, done: false}",
            "alive",
        ],
    );
}

/// A writable with a pending write is kept by the sink's promise; a gc inside write() keeps what the write holds.
#[test]
fn writable_pending_write() {
    node_log(
        "writable_pending_write.scn",
        include_str!("../../scenarios/gc/streams_writable_pending_write.scn"),
        &["write a", "alive ws w", "written", "alive"],
    );
}
