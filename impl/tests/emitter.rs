//! impl's EventEmitter (`impl/src/emitter.rs`), run from scenario texts.
//!
//! Each test runs one scenario on impl and compares its log with the log
//! the pinned Node 26.12.1 printed for the same scenario (`nodesem run FILE
//! --engine node`): every expected log here was first printed by Node.
//! The scenarios are `scenarios/emitter/*.scn` (`nodesem check
//! scenarios/emitter --engines impl,node` compares them with
//! Node again). The mutant tests check that each EventEmitter mutant
//! changes the log (the mutant's log is typed from the bug, not Node's).

use nodesem_impl::{ImplEngine, Mutant};
use nodesem_lang::{parse, RunConfig};

fn run(file: &str, text: &str, mutant: Option<Mutant>) -> Vec<String> {
    let scenario = parse(file, text).unwrap_or_else(|e| panic!("{e}"));
    ImplEngine { mutant }
        .run_scenario(&scenario, &RunConfig::default())
        .lines
}

fn assert_log(file: &str, text: &str, node: &[&str]) {
    assert_eq!(run(file, text, None), node, "{file}");
}

const WARNING_2_X: &str = "warning MaxListenersExceededWarning: Possible EventEmitter memory leak \
detected. 2 x listeners added to [EventEmitter]. MaxListeners is 1. Use emitter.setMaxListeners() \
to increase limit";

/// emit walks the array it found (`kEmitting` and copy-on-write): a
/// listener removed meanwhile still runs, one added does not; listenerCount
/// with a value that is no function; removeListener's ERR_INVALID_ARG_TYPE;
/// ERR_UNHANDLED_ERROR's `inspect` of a target, strings, -0, a function.
#[test]
fn emit_snapshot_and_errors() {
    assert_log(
        "emit_snapshot_and_errors.scn",
        include_str!("../../scenarios/emitter/emit_snapshot_and_errors.scn"),
        &[
            "a 1",
            "b 1",
            "c 1",
            "a 2",
            "b 2",
            "added 2",
            "Array([Function], [Function], [Function], [Function])",
            "caught TypeError: The \"listener\" argument must be of type function. Received type string ('str')",
            "count 0",
            "caught TypeError: The \"listener\" argument must be of type function. Received null",
            "count 4",
            "count 0",
            "caught Error: Unhandled error. (EventTarget {})",
            "caught Error: Unhandled error. (\"it's\")",
            "caught Error: Unhandled error. (-0)",
            "caught Error: Unhandled error. ([Function (anonymous)])",
        ],
    );
}

/// The emitter holds its listeners and once wrappers (the wrappers hold
/// the originals through their captures); a fired once wrapper is freed,
/// and so is everything once the emitter is dropped.
#[test]
fn gc_listeners_held_by_emitter() {
    assert_log(
        "gc_listeners_held_by_emitter.scn",
        include_str!("../../scenarios/emitter/gc_listeners_held_by_emitter.scn"),
        &[
            "alive f g h e",
            "f ran 1",
            "g ran 1",
            "alive f h e",
            "Array([Function])",
            "alive",
        ],
    );
}

/// 'removeListener' for a fired once listener: the original when it was
/// the name's only listener (`list.listener || listener`), the wrapper when
/// it was in an array (the `listener` argument).
#[test]
fn once_wrapper_in_remove_event() {
    assert_log(
        "once_wrapper_in_remove_event.scn",
        include_str!("../../scenarios/emitter/once_wrapper_in_remove_event.scn"),
        &[
            "removed solo true",
            "f ran",
            "removed pair false",
            "f ran",
            "other",
        ],
    );
}

/// removeAllListeners() with a 'removeListener' listener: names in V8's
/// key order (array indices ascending first), LIFO within a name, then
/// 'removeListener'; names reach the listener as property keys (strings).
#[test]
fn remove_all_with_listeners_and_index_names() {
    assert_log(
        "remove_all_with_listeners_and_index_names.scn",
        include_str!("../../scenarios/emitter/remove_all_with_listeners_and_index_names.scn"),
        &[
            "Array(1, 2, 10, removeListener, b, Symbol(s))",
            "removed 1 string true",
            "removed 2 string true",
            "removed 10 string false",
            "removed b string false",
            "removed b string true",
            "removed Symbol(s) symbol false",
            "left Array()",
        ],
    );
}

/// setMaxListeners/getMaxListeners on an emitter (default 10, validation
/// before the targets); the warning once per listener array, again for a
/// new array after the old one collapsed to a function.
#[test]
fn warning_once_per_array() {
    assert_log(
        "warning_every_listener.scn",
        include_str!("../../scenarios/emitter/warning_every_listener.scn"),
        &[
            "count 2",
            "max 1",
            "caught RangeError: The value of \"setMaxListeners\" is out of range. It must be >= 0. Received -1",
            "default again 10",
            WARNING_2_X,
            WARNING_2_X,
        ],
    );
}

const NAMES: &str = r#"let e = emitter
let f = fn {
  log "f"
}
addListener e "b" f
addListener e "2" f
addListener e "10" f
addListener e "1" f
addListener e "01" f
addListener e "4294967294" f
addListener e "4294967295" f
addListener e "-1" f
addListener e "a" f
let n = eventNames e
log n
removeListener e "b" f
removeListener e "1" f
addListener e "1" f
addListener e "b" f
let m = eventNames e
log m
removeAllListeners e
let k = eventNames e
log k
"#;

/// eventNames in V8's key order: array indices (up to 2^32 - 2, canonical)
/// ascending, then strings in insertion order; a deleted and re-added
/// string goes to the end.
#[test]
fn event_names_in_property_order() {
    assert_log(
        "names.scn",
        NAMES,
        &[
            "Array(1, 2, 10, 4294967294, b, 01, 4294967295, -1, a)",
            "Array(1, 2, 10, 4294967294, 01, 4294967295, -1, a, b)",
            "Array()",
        ],
    );
}

#[test]
fn mutant_emitter_keeps_dynamic_names() {
    assert_eq!(
        run("names.scn", NAMES, Some(Mutant::EmitterKeepsDynamicNames)),
        [
            "Array(1, 2, 10, 4294967294, b, 01, 4294967295, -1, a)",
            // mutant: "b" kept its place as an undefined property
            "Array(1, 2, 10, 4294967294, b, 01, 4294967295, -1, a)",
            "Array()",
        ]
    );
}

#[test]
fn mutant_once_wrapper_in_remove_event() {
    assert_eq!(
        run(
            "once_wrapper_in_remove_event.scn",
            include_str!("../../scenarios/emitter/once_wrapper_in_remove_event.scn"),
            Some(Mutant::OnceWrapperInRemoveEvent),
        ),
        [
            "removed solo false", // mutant: the wrapper, not f
            "f ran",
            "removed pair false",
            "f ran",
            "other",
        ]
    );
}

#[test]
fn mutant_emit_live_array() {
    assert_eq!(
        run(
            "emit_snapshot_and_errors.scn",
            include_str!("../../scenarios/emitter/emit_snapshot_and_errors.scn"),
            Some(Mutant::EmitLiveArray),
        )[..6],
        [
            "a 1", "b 1",
            // mutant: c, removed by a during the emit, does not run
            "added 1", // mutant: the listener a added runs in the same emit
            "a 2", "b 2", "added 2",
        ]
    );
}

#[test]
fn mutant_warning_every_listener() {
    let log = run(
        "warning_every_listener.scn",
        include_str!("../../scenarios/emitter/warning_every_listener.scn"),
        Some(Mutant::WarningEveryListener),
    );
    let third = WARNING_2_X.replace(" 2 x ", " 3 x ");
    assert_eq!(
        log[4..],
        [
            WARNING_2_X,
            third.as_str(), // mutant: the array had warned already
            WARNING_2_X,
        ]
    );
}
