//! The model's EventEmitter against the pinned Node 26.12.1: each test runs
//! a scenario of `scenarios/emitter/` on the model and compares its
//! log with the one `nodesem run FILE --engine node` printed for the same
//! file (copied here verbatim). `nodesem check scenarios/emitter
//! --engines model,node` runs the same comparison through the harness.

use nodesem_lang::{parse, RunConfig};
use nodesem_model::Model;
use nodesem_runtime::run_scenario;

/// Runs `text` on the model and asserts its log is `expected`, line by line.
fn check(name: &str, text: &str, expected: &[&str]) {
    let scenario = parse(name, text).unwrap_or_else(|e| panic!("{name} does not parse: {e:?}"));
    let log = run_scenario::<Model>(&scenario, &RunConfig::default());
    assert_eq!(log.lines, expected, "{name}");
}

/// Listener order with `prependListener` and `prependOnceListener`, `this` is the emitter, every argument (`arguments.length`), emit's return value, and an emit from inside a listener.
///
/// Expected log: printed by `--engine node` (Node 26.12.1).
#[test]
fn order_this_arguments_and_return() {
    check(
        "order_this_arguments_and_return.scn",
        include_str!("../../scenarios/emitter/order_this_arguments_and_return.scn"),
        &[
            "po true",
            "p true",
            "a true 2 3 true",
            "b true",
            "p false",
            "a false undefined 1 true",
            "b false",
            "inner true",
            "r1 true",
            "r2 false",
            "count 3",
        ],
    );
}

/// emit calls a snapshot: a listener added during the emit waits for the next one, a once listener removed by an earlier listener still runs (once), and `listenerCount` inside sees the changes.
///
/// Expected log: printed by `--engine node` (Node 26.12.1).
#[test]
fn snapshot_and_once_inside_emit() {
    check(
        "snapshot_and_once_inside_emit.scn",
        include_str!("../../scenarios/emitter/snapshot_and_once_inside_emit.scn"),
        &[
            "first 1",
            "count inside 2",
            "o 1",
            "first 2",
            "count inside 3",
            "later",
            "Array([Function], [Function], [Function])",
        ],
    );
}

/// removeListener removes the most recently added match (a plain function after a once wrapper of it); `listenerCount(name, f)` counts once wrappers of f; `listeners` and `rawListeners`.
///
/// Expected log: printed by `--engine node` (Node 26.12.1).
#[test]
fn remove_most_recent_and_counts() {
    check(
        "remove_most_recent_and_counts.scn",
        include_str!("../../scenarios/emitter/remove_most_recent_and_counts.scn"),
        &[
            "count of f 3",
            "Array([Function], [Function], [Function]) Array([Function], [Function], [Function])",
            "f 1",
            "f 1",
            "g 1",
            "f 2",
            "g 2",
            "count of f after 1",
        ],
    );
}

/// What `'removeListener'` receives: the original when the name had one listener, the value removeListener was given (a once wrapper removing itself, or removed by `removeAllListeners(name)`, LIFO) when it had more.
///
/// Expected log: printed by `--engine node` (Node 26.12.1).
#[test]
fn remove_listener_event_gets_the_wrapper_from_a_list() {
    check(
        "remove_listener_event_gets_the_wrapper_from_a_list.scn",
        include_str!(
            "../../scenarios/emitter/remove_listener_event_gets_the_wrapper_from_a_list.scn"
        ),
        &[
            "removeListener x original false",
            "f ran",
            "g ran",
            "removeListener y original true",
            "f ran",
            "removeListener z original false",
            "removeListener z original true",
            "removeListener w original true",
        ],
    );
}

/// `removeAllListeners()` with `'removeListener'` listeners: names in key order, each name's listeners last to first, `'removeListener'` itself last, and listeners added meanwhile dropped without an event.
///
/// Expected log: printed by `--engine node` (Node 26.12.1).
#[test]
fn remove_all_with_listeners_added_meanwhile() {
    check(
        "remove_all_with_listeners_added_meanwhile.scn",
        include_str!("../../scenarios/emitter/remove_all_with_listeners_added_meanwhile.scn"),
        &[
            "removed b",
            "second remover b",
            "removed a",
            "second remover a",
            "removed a",
            "second remover a",
            "removed removeListener",
            "names Array()",
        ],
    );
}

/// A `'newListener'` listener that throws stops the addition; `removeAllListeners(name)` without `'removeListener'` listeners.
///
/// Expected log: printed by `--engine node` (Node 26.12.1).
#[test]
fn new_listener_that_throws() {
    check(
        "new_listener_that_throws.scn",
        include_str!("../../scenarios/emitter/new_listener_that_throws.scn"),
        &["newListener x", "caught Error: no", "count 0", "Array()"],
    );
}

/// `eventNames()` in `Reflect.ownKeys` order (array indices ascending, strings, symbols); a number name is its string key, while `'newListener'` sees the number; `removeAllListeners()` empties the names.
///
/// Expected log: printed by `--engine node` (Node 26.12.1).
#[test]
fn event_names_index_keys_first() {
    check(
        "event_names_index_keys_first.scn",
        include_str!("../../scenarios/emitter/event_names_index_keys_first.scn"),
        &[
            "Array(2, 10, b, a, 01, -1, Symbol(s))",
            "count of 2 1",
            "f via string",
            "newListener number 7",
            "after Array()",
        ],
    );
}

/// ERR_INVALID_ARG_TYPE for a listener that is not a function; ERR_UNHANDLED_ERROR's message for strings, symbols, booleans, -0, fractions, script functions, async functions and an array holding a once wrapper; an Error thrown as it is; `listenerCount` with a non-function or undefined listener.
///
/// Expected log: printed by `--engine node` (Node 26.12.1).
#[test]
fn errors_of_listeners_and_values() {
    check(
        "errors_of_listeners_and_values.scn",
        include_str!("../../scenarios/emitter/errors_of_listeners_and_values.scn"),
        &[
            "caught TypeError: The \"listener\" argument must be of type function. Received type number (5)",
            "caught TypeError: The \"listener\" argument must be of type function. Received type string ('str')",
            "caught TypeError: The \"listener\" argument must be of type function. Received null",
            "caught Error: Unhandled error. (\"it's\")",
            "caught Error: Unhandled error. (Symbol(q))",
            "caught Error: Unhandled error. (true)",
            "caught Error: Unhandled error. (-0)",
            "caught Error: Unhandled error. (1.5)",
            "caught TypeError: typed",
            "caught Error: Unhandled error. ([Function (anonymous)])",
            "count with a number 0",
            "count with undefined 0",
            "caught Error: Unhandled error. ([AsyncFunction (anonymous)])",
            "caught Error: Unhandled error. ([ [Function: wrapper] { listener: [Function (anonymous)] } ])",
        ],
    );
}

/// `setMaxListeners`/`getMaxListeners` on an emitter (default 10), the MaxListenersExceededWarning once per name, again after the name dropped to one listener, a symbol name in its message, 0 as no limit, a fractional maximum, delivered on a next tick.
///
/// Expected log: printed by `--engine node` (Node 26.12.1).
#[test]
fn max_listeners_on_emitters() {
    check(
        "max_listeners_on_emitters.scn",
        include_str!("../../scenarios/emitter/max_listeners_on_emitters.scn"),
        &[
            "default 10",
            "set 1",
            "added",
            "warning MaxListenersExceededWarning: Possible EventEmitter memory leak detected. 2 a listeners added to [EventEmitter]. MaxListeners is 1. Use emitter.setMaxListeners() to increase limit",
            "warning MaxListenersExceededWarning: Possible EventEmitter memory leak detected. 2 Symbol(sym) listeners added to [EventEmitter]. MaxListeners is 1. Use emitter.setMaxListeners() to increase limit",
            "warning MaxListenersExceededWarning: Possible EventEmitter memory leak detected. 2 a listeners added to [EventEmitter]. MaxListeners is 1. Use emitter.setMaxListeners() to increase limit",
            "warning MaxListenersExceededWarning: Possible EventEmitter memory leak detected. 2 b listeners added to [EventEmitter]. MaxListeners is 1. Use emitter.setMaxListeners() to increase limit",
            "warning MaxListenersExceededWarning: Possible EventEmitter memory leak detected. 2 d listeners added to [EventEmitter]. MaxListeners is 1.5. Use emitter.setMaxListeners() to increase limit",
            "tick",
        ],
    );
}

/// GC: an emitter keeps its listeners, a once wrapper (kept by a `rawListeners` array) keeps its emitter and original, everything goes once unreferenced; a method on a dropped (undefined) emitter binding throws V8's TypeError.
///
/// Expected log: printed by `--engine node` (Node 26.12.1).
#[test]
fn gc_of_emitters_and_once_wrappers() {
    check(
        "gc_of_emitters_and_once_wrappers.scn",
        include_str!("../../scenarios/emitter/gc_of_emitters_and_once_wrappers.scn"),
        &[
            "alive e f e2 g",
            "f 1",
            "alive e f",
            "alive",
            "caught TypeError: Cannot read properties of undefined (reading 'emit')",
            "caught TypeError: Cannot read properties of undefined (reading 'on')",
        ],
    );
}
