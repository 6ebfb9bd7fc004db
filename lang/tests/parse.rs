//! Parser and printer tests: examples that must parse, errors that must be
//! reported with their position, and the round trip.

use nodesem_lang::{parse, print};

const EXAMPLE: &str = r#"# Composites are already aborted inside the source's own listener.
let a = controller
let b = controller
let ab = any [a.signal, b.signal]
let only_a = any [a.signal]
on a.signal abort {
  log "a fired" ab.aborted only_a.aborted
}
on ab abort {
  log "ab fired" ab.reason
}
on only_a abort once capture signal b.signal {
  log "only_a fired"
}
microtask {
  log "microtask"
}
abort a "boom"
log "after abort"
let p = promise
then p {
  log value
} else {
  log reason
}
let t = target
let f = fn {
  preventDefault event
}
on t "my event" f passive
let r = dispatch t "my event" cancelable
run advance 10
try {
  throwIfAborted a.signal
}
"#;

#[test]
fn example_round_trips() {
    let s = parse("example.scn", EXAMPLE).unwrap();
    let printed = print(&s);
    assert_eq!(parse("printed", &printed).unwrap(), s);
    assert_eq!(printed, EXAMPLE);
}

/// Asserts that `text` parses, prints back as itself (it is canonical) and
/// that the printed form parses to the same tree.
fn assert_round_trips(text: &str) {
    let s = parse("ok.scn", text).unwrap();
    assert_eq!(print(&s), text);
    assert_eq!(parse("printed", &print(&s)).unwrap(), s);
}

fn errors(text: &str) -> Vec<String> {
    parse("bad.scn", text)
        .unwrap_err()
        .diagnostics
        .iter()
        .map(|d| d.to_string())
        .collect()
}

#[test]
fn aborting_an_event_target_is_a_kind_error() {
    assert_eq!(
        errors("let t = target\nabort t\n"),
        vec!["bad.scn:2:7: expected an AbortController, a WritableStream or a WritableStreamDefaultWriter, found `t`, which is an EventTarget"]
    );
}

#[test]
fn unknown_binding_and_every_error_reported() {
    let errs = errors("log x\nlet c = controller\nabort c \"r\" extra\nrun sideways\n");
    assert_eq!(
        errs,
        vec![
            "bad.scn:1:5: unknown binding `x`",
            "bad.scn:3:13: expected the end of the line, found `extra`",
            "bad.scn:4:5: expected `turn`, `idle` or `advance MS` after `run`, found `sideways`",
        ]
    );
}

#[test]
fn unclosed_block_and_run_in_callback() {
    let errs = errors("microtask {\n  run idle\n");
    assert_eq!(
        errs,
        vec![
            "bad.scn:2:3: `run` is only allowed at the top level of the script",
            // At the end of the last line with text, not on the empty
            // "line" after the final line break.
            "bad.scn:2:11: expected `}` closing the block opened at line 1, found the end of the file",
        ]
    );
}

#[test]
fn redefinition_is_refused() {
    assert_eq!(
        errors("let c = controller\nmicrotask {\n  let c = target\n}\n"),
        vec!["bad.scn:3:7: the binding `c` is already defined at line 1"]
    );
}

#[test]
fn event_only_in_listeners() {
    assert_eq!(
        errors("microtask {\n  log event.type\n}\n"),
        vec!["bad.scn:2:7: unknown binding `event` (`event` exists only in listener bodies)"]
    );
}

#[test]
fn a_binding_used_before_its_let_says_where_it_is_declared() {
    // A callback may read a binding of the main script made further down
    // (the emitted module declares those up front: undefined until the
    // `let` has run), as a plain value; the main script itself may not, nor
    // may anything read a later binding of a block.
    assert_round_trips("let t = target\non t go {\n  log later\n}\nlet later = \"x\"\n");
    let text = "log later\nlet t = target\non t go {\n  microtask {\n    log inner\n  }\n  let inner = 1\n  abort later\n}\nlet later = controller\n";
    assert_eq!(
        errors(text),
        vec![
            "bad.scn:1:5: unknown binding `later` (it is declared further down, at line 10; \
             a binding can be used only after its `let`, except by callbacks reading a binding of the main script)",
            "bad.scn:5:9: unknown binding `inner` (it is declared further down, at line 7; \
             a binding can be used only after its `let`, except by callbacks reading a binding of the main script)",
            "bad.scn:8:9: expected an AbortController, a WritableStream or a WritableStreamDefaultWriter, found `later`, which is a plain value",
        ]
    );
    // Not a `let` of that name (a longer name, a use): no hint.
    let text = "log late\nlet later = 1\nlog late\n";
    assert_eq!(
        errors(text),
        vec![
            "bad.scn:1:5: unknown binding `late`",
            "bad.scn:3:5: unknown binding `late`"
        ]
    );
}

#[test]
fn repeat_round_trips_and_its_count_is_bounded() {
    let text = "let t = target\nrepeat 3 {\n  let f = fn {\n    log event.type\n  }\n  on t go f\n  repeat 0 {\n    log \"never\"\n  }\n}\non t go {\n  repeat 1000 {\n    return\n  }\n}\n";
    assert_round_trips(text);
    // Bindings made in the body are its own.
    assert_eq!(
        errors("repeat 2 {\n  let x = 1\n}\nlog x\n"),
        vec!["bad.scn:4:5: unknown binding `x`"]
    );
    assert_eq!(
        errors("repeat 1001 {\n}\nrepeat -1 {\n}\nrepeat {\n}\n"),
        vec![
            "bad.scn:1:8: expected a count (a whole number from 0 to 1000) after `repeat`, found the number 1001",
            "bad.scn:3:8: expected a count (a whole number from 0 to 1000) after `repeat`, found the number -1",
            "bad.scn:5:8: expected a count (a whole number from 0 to 1000) after `repeat`, found `{`",
        ]
    );
    // `run` stays a top-level statement.
    assert_eq!(
        errors("repeat 2 {\n  run turn\n}\n"),
        vec!["bad.scn:2:3: `run` is only allowed at the top level of the script"]
    );
}

#[test]
fn a_repeat_costs_its_body_n_times() {
    let s = parse(
        "ok.scn",
        "repeat 4 {\n  log 1\n  try {\n    log 2\n  }\n}\nlog 3\n",
    )
    .unwrap();
    // The repeat itself, 4 times its 3 statements, and the last log.
    assert_eq!(nodesem_lang::statement_cost(&s.body), 1 + 4 * 3 + 1);
}

#[test]
fn errors_of_other_classes_round_trip() {
    let text = "let a = aborted TypeError(\"t\")\nlet b = aborted RangeError(\"r\")\nlet c = aborted DOMException(\"m\", \"NotAllowedError\")\nthrow Error(\"e\")\n";
    assert_round_trips(text);
    assert_eq!(
        errors("let a = aborted DOMException(\"m\")\nlet b = aborted TypeError\n"),
        vec![
            "bad.scn:1:33: expected `,` and the DOMException's name, found `)`",
            "bad.scn:2:26: expected `(` after `TypeError`, found the end of the line",
        ]
    );
}

#[test]
fn onabort_takes_values_that_are_not_callable() {
    let text = "let c = controller\nlet v = onabort c.signal \"text\"\nonabort c.signal 42\nonabort c.signal true\nonabort c.signal undefined\nonabort c.signal Error(\"e\")\nonabort c.signal null\n";
    assert_round_trips(text);
}

#[test]
fn a_bare_boolean_capture_round_trips() {
    let text = "let t = target\nlet f = fn {\n}\non t go f true\non t go false {\n}\noff t go f true\noff t go f false\noff t go f capture\n";
    assert_round_trips(text);
    // The boolean is the only option.
    assert!(parse(
        "bad.scn",
        "let t = target\nlet f = fn {\n}\non t go f true once\n"
    )
    .is_err());
}

#[test]
fn same_and_typeof_round_trip_and_do_not_nest() {
    let text = "let c = controller\nlog same c.signal c.signal typeof c.signal.reason\nlet x = same 1 \"1\"\nlog typeof x same x true\n";
    assert_round_trips(text);
    assert_eq!(
        errors("log same typeof 1 2\nlet typeof = controller\nlog same 1\n"),
        vec![
            "bad.scn:1:10: expected a value, found `typeof` (`same`, `typeof`, `instanceof`, `add` and `less` take a value, a binding or a property, not another operator)",
            "bad.scn:2:5: `typeof` is reserved and cannot name a binding",
            "bad.scn:3:11: expected a value, found the end of the line",
        ]
    );
}

#[test]
fn instanceof_round_trips_and_names_its_classes() {
    let text = "let c = controller\nlog instanceof c AbortController instanceof c.signal EventTarget instanceof 1 Object\n";
    assert_round_trips(text);
    assert_eq!(
        errors("let c = controller\nlog instanceof c Map\n"),
        vec!["bad.scn:2:18: expected a class (AbortController, AbortSignal, EventTarget, Event, Error, TypeError, RangeError, DOMException, AggregateError, Promise, Array, Function, Object), found `Map`"]
    );
}

#[test]
fn this_round_trips_and_cannot_name_a_binding() {
    assert_round_trips("log this\nlet t = target\non t go {\n  log same this t\n}\n");
    assert_eq!(
        errors("let this = controller\n"),
        vec!["bad.scn:1:5: `this` is reserved and cannot name a binding"]
    );
}

#[test]
fn promise_combinators_and_thenable_bodies_round_trip() {
    let text = "let a = resolved 1\nlet t = thenable 2 {\n  log \"then\" this\n}\nlet p = all [a, t, 3, \"x\"]\nlet q = allSettled []\nlet r = race [p, q]\nlet e = promiseAny [a]\ncatch e {\n  log reason.errors\n}\n";
    assert_round_trips(text);
    assert_eq!(
        errors("let p = all 1\nlet all = controller\nlet q = race [1 2]\n"),
        vec![
            "bad.scn:1:13: expected `[` starting the list of values, found the number 1",
            "bad.scn:2:5: `all` is reserved and cannot name a binding",
            "bad.scn:3:17: expected `,` or `]`, found the number 2",
        ]
    );
}

#[test]
fn async_bodies_and_await_round_trip_where_await_is_allowed() {
    let text = "let p = async {\n  let v = await 1\n  try {\n    await v\n  }\n  repeat 2 {\n    await v\n  }\n  return v\n}\nlet f = fn async {\n  await event\n}\n";
    assert_round_trips(text);
    let outside = "`await` is only valid in the body of an async function (`async {` or `fn async {`), not in the main script or another callback";
    assert_eq!(
        errors("await 1\nlet f = fn {\n  await 2\n}\nlet p = async {\n  microtask {\n    await 3\n  }\n}\nlet await = 1\n"),
        vec![
            format!("bad.scn:1:1: {outside}"),
            format!("bad.scn:3:3: {outside}"),
            format!("bad.scn:7:5: {outside}"),
            "bad.scn:10:5: `await` is reserved and cannot name a binding".to_string(),
        ]
    );
}

#[test]
fn validated_arguments_take_values_of_any_kind() {
    assert_round_trips("let c = controller\nlet t = target\nlet d = addAbortListener 5 c\nlet e = addAbortListener t \"s\"\nlet s = any [c, 1, null]\non t go null\non t go \"str\" signal 5\noff t go 7 capture\noff t go undefined\n");
    assert_eq!(
        errors("let c = controller\non c.signal go c\noff c.signal go c.signal\n"),
        vec![
            "bad.scn:2:16: expected a function, an EventListener object or a plain value, found `c`, which is an AbortController",
            "bad.scn:3:17: expected a function, an EventListener object or a plain value, found `c.signal`, which is an AbortSignal",
        ]
    );
}

#[test]
fn events_made_outside_a_dispatch_round_trip() {
    assert_round_trips("let t = target\nlet e = new Event go bubbles cancelable composed\nlet c = new CustomEvent \"my type\" detail 5 cancelable\nlet n = new Event\nlet s = new AbortSignal\nlet r = dispatchEvent t e\nlet x = dispatchEvent t 5\nlet p = composedPath e\nset e.returnValue false\nset c.cancelBubble 1\nlog typeof e.timeStamp c.detail\n");
    assert_eq!(
        errors("let e = new Event go\nlog e.timeStamp\nset e.type 1\nlet m = new Map\nlet f = new Event go cancelable cancelable\n"),
        vec![
            "bad.scn:2:7: an Event has no property `timeStamp` (readable: type, cancelable, defaultPrevented, isTrusted, eventPhase, bubbles, composed, returnValue, cancelBubble, target, currentTarget, srcElement, detail; timeStamp under typeof)",
            "bad.scn:3:5: expected an event's `returnValue` or `cancelBubble` after `set` (the only attributes a script writes), found `e.type`",
            "bad.scn:4:13: expected `Event`, `CustomEvent` or `AbortSignal` after `new`, found `Map`",
            "bad.scn:5:33: the option `cancelable` is given twice",
        ]
    );
}

#[test]
fn listener_objects_round_trip_and_stand_where_listeners_do() {
    assert_round_trips("let t = target\nlet o = handleEvent {\n  log same this o event.type\n}\non t go o once\noff t go o\n");
    assert_eq!(
        errors("let o = handleEvent {\n}\nlet c = controller\nonabort c.signal o\n"),
        vec!["bad.scn:4:18: expected a function, found `o`, which is an EventListener object"]
    );
}

#[test]
fn intervals_and_timer_refs_round_trip() {
    assert_round_trips(
        "let h = setInterval 5 {\n  clearInterval h\n}\nlet u = unref h\nref u\nclearTimeout h\n",
    );
    assert_eq!(
        errors("let c = controller\nunref c\n"),
        vec!["bad.scn:2:7: expected a timer, found `c`, which is an AbortController"]
    );
}

#[test]
fn with_resolvers_round_trips_and_its_promise_is_resolvable() {
    assert_round_trips(
        "let w = withResolvers\nresolve w.promise 1\nlog typeof w.resolve w.reject\n",
    );
    assert_eq!(
        errors("let w = withResolvers\nresolve w 1\n"),
        vec!["bad.scn:2:9: expected a promise made with `promise`, found `w`, which is the record of withResolvers"]
    );
}

#[test]
fn arguments_length_round_trips_inside_callbacks_only() {
    assert_round_trips("microtask {\n  log arguments.length\n}\n");
    assert_eq!(
        errors("log arguments.length\nmicrotask {\n  log arguments\n}\n"),
        vec![
            "bad.scn:1:5: `arguments` may only be read as `arguments.length`, inside a callback",
            "bad.scn:3:7: `arguments` may only be read as `arguments.length`, inside a callback",
        ]
    );
}

#[test]
fn conditions_assignments_and_arithmetic_round_trip() {
    assert_round_trips("let n = 0\nlet t = target\non t go {\n  set n add n 1\n  if less 1 n {\n    log n\n  } else {\n    log \"first\"\n  }\n}\nif n {\n  log add \"a\" n\n}\n");
    assert_eq!(
        errors("let t = target\nset t 1\nset m 1\nlog add add 1 2 3\nlet if = 1\n"),
        vec![
            "bad.scn:2:5: expected a binding that holds a plain value after `set`, found `t`, which is an EventTarget",
            "bad.scn:3:5: unknown binding `m`",
            "bad.scn:4:9: expected a value, found `add` (`same`, `typeof`, `instanceof`, `add` and `less` take a value, a binding or a property, not another operator)",
            "bad.scn:5:5: `if` is reserved and cannot name a binding",
        ]
    );
}

#[test]
fn numbers_symbols_and_plain_objects_round_trip_in_canonical_form() {
    assert_round_trips(
        "let a = 1.5\nlet z = -0\nlet n = NaN\nlet i = Infinity\nlet s = Symbol(\"tag\")\nlet b = Symbol()\nlet o = {}\nlog a z n i s b o add 0.1 -2.25\nlet t = target\non t e {}\non t e o\noff t e Symbol(\"x\")\nlet c = controller\nonabort c.signal {}\nabort c Symbol()\n",
    );
    // A fraction whose value is an integer is that integer; -0 is not 0.
    let scenario = parse("f.scn", "log 2.0 -0 0.50\n").expect("valid");
    assert_eq!(print(&scenario), "log 2 -0 0.5\n");
    assert_eq!(
        errors("log 1.\nlog 1.5x\nlog 0.1234567890123456789012345678901234567890123\nlog { }\n"),
        vec![
            "bad.scn:1:7: expected a property name after `.`, found the end of the line",
            "bad.scn:2:5: expected a number, found `1.5x`",
            "bad.scn:3:5: expected a number of at most 40 characters from -9007199254740991 to 9007199254740991, found a number of 45 digits",
            "bad.scn:4:5: expected a value, found `{`",
        ]
    );
}

#[test]
fn process_off_round_trips_for_both_events_only() {
    assert_round_trips(
        "process off unhandledRejection\nmicrotask {\n  process off uncaughtException\n}\n",
    );
    assert_eq!(
        errors("process off exit\nprocess on uncaughtException\n"),
        vec![
            "bad.scn:1:13: expected `uncaughtException` or `unhandledRejection`, found `exit`",
            "bad.scn:2:9: expected `off` after `process`, found `on`",
        ]
    );
}

#[test]
fn max_listeners_round_trip_and_need_a_target() {
    let text = "let t = target\nlet c = controller\nsetMaxListeners 2 t c.signal\nsetMaxListeners undefined t\nsetMaxListeners -1 \"x\" null\nlet m = getMaxListeners c.signal\nlog m\ngetMaxListeners 5\non t go null\n";
    assert_round_trips(text);
    assert_eq!(
        errors("let t = target\nsetMaxListeners 2\nsetMaxListeners\ngetMaxListeners\nlet setMaxListeners = 1\n"),
        vec![
            "bad.scn:2:18: expected a target after the maximum, found the end of the line",
            "bad.scn:3:16: expected a value, found the end of the line",
            "bad.scn:4:16: expected a value, found the end of the line",
            "bad.scn:5:5: `setMaxListeners` is reserved and cannot name a binding",
        ]
    );
}

#[test]
fn use_module_round_trips_after_comments_and_is_a_directive() {
    let text = "# An ES module.\nuse module\n# The script.\ntick {\n  log \"t\"\n}\nrun turn\nlog \"after\"\n";
    assert_round_trips(text);
    let s = parse("ok.scn", text).unwrap();
    assert!(s.uses(nodesem_lang::Directive::Module));
    assert_eq!(
        s.body[1],
        nodesem_lang::Stmt::Use(nodesem_lang::Directive::Module)
    );
    assert!(!parse("ok.scn", "log 1\n")
        .unwrap()
        .uses(nodesem_lang::Directive::Module));
    let json = serde_json::to_string(&s).unwrap();
    assert_eq!(
        serde_json::from_str::<nodesem_lang::Scenario>(&json).unwrap(),
        s
    );
}

#[test]
fn a_misplaced_unknown_or_repeated_directive_says_where_and_what() {
    assert_eq!(
        errors("log 1\nuse module\n"),
        ["bad.scn:2:1: `use` must come before every other statement (comments aside), and the statement at line 1 comes first"]
    );
    assert_eq!(
        errors("use strict\nuse\n"),
        [
            "bad.scn:1:5: expected a directive (`module`) after `use`, found `strict`",
            "bad.scn:2:4: expected a directive (`module`) after `use`, found the end of the line",
        ]
    );
    assert_eq!(
        errors("use module\nuse module\n"),
        ["bad.scn:2:5: `use module` is already given at line 1"]
    );
    assert_eq!(
        errors("use module extra\n"),
        ["bad.scn:1:12: expected the end of the line, found `extra`"]
    );
    assert_eq!(
        errors("microtask {\n  use module\n}\n"),
        ["bad.scn:2:3: `use` is only allowed at the top level of the script, before its other statements"]
    );
    assert_eq!(
        errors("let use = 1\n"),
        ["bad.scn:1:5: `use` is reserved and cannot name a binding"]
    );
    // Top-level await stays outside the language in a module too.
    assert!(errors("use module\nawait 1\n")[0].starts_with("bad.scn:2:1: `await` is only valid"));
}

#[test]
fn constructor_names_and_interface_constants_round_trip() {
    assert_round_trips("let e = new CustomEvent go\nlog e.constructor.name e.target.constructor.name 1.constructor.name\nlog Event.AT_TARGET DOMException.ABORT_ERR e.NONE\nlet a = aborted\nlog a.reason.TIMEOUT_ERR\n");
    assert_eq!(
        errors("log Event.LATER\nlog DOMException.ABORT\nlet e = new Event go\nlog e.constructor\nlog e.ABORT_ERR\n"),
        vec![
            "bad.scn:1:11: expected a constant of Event (NONE, CAPTURING_PHASE, AT_TARGET, BUBBLING_PHASE), found `LATER`",
            "bad.scn:2:18: expected a constant of DOMException (INDEX_SIZE_ERR, DOMSTRING_SIZE_ERR, HIERARCHY_REQUEST_ERR, WRONG_DOCUMENT_ERR, INVALID_CHARACTER_ERR, NO_DATA_ALLOWED_ERR, NO_MODIFICATION_ALLOWED_ERR, NOT_FOUND_ERR, NOT_SUPPORTED_ERR, INUSE_ATTRIBUTE_ERR, INVALID_STATE_ERR, SYNTAX_ERR, INVALID_MODIFICATION_ERR, NAMESPACE_ERR, INVALID_ACCESS_ERR, VALIDATION_ERR, TYPE_MISMATCH_ERR, SECURITY_ERR, NETWORK_ERR, ABORT_ERR, URL_MISMATCH_ERR, QUOTA_EXCEEDED_ERR, TIMEOUT_ERR, INVALID_NODE_TYPE_ERR, DATA_CLONE_ERR), found `ABORT`",
            "bad.scn:4:18: expected `.name` after `constructor`, found the end of the line",
            "bad.scn:5:7: an Event has no property `ABORT_ERR` (readable: type, cancelable, defaultPrevented, isTrusted, eventPhase, bubbles, composed, returnValue, cancelBubble, target, currentTarget, srcElement, detail; timeStamp under typeof)",
        ]
    );
}

#[test]
fn options_as_a_value_round_trip_alone() {
    assert_round_trips(
        "let t = target\nlet f = fn {\n}\non t go f options 5\non t go options {} {\n  log 1\n}\n",
    );
    assert_eq!(
        errors("let t = target\nlet f = fn {\n}\non t go f options 5 once\non t go options 5\n"),
        vec![
            "bad.scn:4:21: `options V` is the whole third argument: `once` cannot come with it",
            "bad.scn:5:18: expected a listener: `{` at the end of the line, found the end of the line",
        ]
    );
}

#[test]
fn a_tiny_fraction_prints_with_an_exponent_and_parses_back() {
    // Number::toString writes 5e-7 in exponent notation; the lexer reads it.
    let scenario = parse("f.scn", "log 0.0000005 -2.5e-10 1e-7\n").expect("valid");
    assert_eq!(print(&scenario), "log 5e-7 -2.5e-10 1e-7\n");
    assert_round_trips("log 5e-7 -2.5e-10\n");
}

#[test]
fn a_readable_stream_and_its_reader_round_trip() {
    let text = "let rs = readable highWaterMark 2 start {\n  enqueue controller \"a\"\n  log controller.desiredSize\n} pull {\n  close controller\n} cancel {\n  log reason\n}\nlet r = getReader rs\nlet p = read r\nthen p {\n  log value.value value.done\n}\nthen r.closed {\n}\nlog rs.locked\nreleaseLock r\nlet c = cancel rs \"why\"\nlet d = cancel r\nruler 3\nlet bare = readable\nlet pulled = readable pull {\n  error controller \"e\"\n}\nlet fraction = readable highWaterMark 0.5\n";
    assert_round_trips(text);
    let s = parse("t.scn", text).unwrap();
    let nodesem_lang::Stmt::Let { op, .. } = &s.body[0] else {
        panic!("a let")
    };
    let nodesem_lang::Op::NewReadable {
        strategy,
        start,
        pull,
        cancel,
    } = op
    else {
        panic!("a readable: {op:?}")
    };
    assert_eq!(strategy.high_water_mark.map(|n| n.value()), Some(2.0));
    assert!(strategy.size.is_none());
    assert!(start.is_some() && pull.is_some() && cancel.is_some());
}

#[test]
fn stream_operations_check_their_operands_and_the_order_of_methods() {
    let cases = [
        // `controller` is the stream's only in start and pull.
        (
            "let rs = readable cancel {\n  enqueue controller 1\n}\n",
            "bad.scn:2:11: unknown binding `controller` (`controller` exists only in the `start`, `pull`, `write`, `transform` and `flush` bodies of streams)",
        ),
        (
            "let t = target\nenqueue t 1\n",
            "bad.scn:2:9: expected a ReadableStreamDefaultController, a ReadableByteStreamController or a TransformStreamDefaultController, found `t`, which is an EventTarget",
        ),
        (
            "let rs = readable\nread rs\n",
            "bad.scn:2:6: expected a ReadableStreamDefaultReader or a ReadableStreamBYOBReader, found `rs`, which is a ReadableStream",
        ),
        (
            "let t = target\ncancel t\n",
            "bad.scn:2:8: expected a ReadableStream, a ReadableStreamDefaultReader or a ReadableStreamBYOBReader, found `t`, which is an EventTarget",
        ),
        (
            "let rs = readable pull {\n} start {\n}\n",
            "bad.scn:2:3: expected `cancel {` after `}`, in the order size, start, pull, cancel, or the end of the line, found `start`",
        ),
        (
            "let rs = readable highWaterMark -1\n",
            "bad.scn:1:33: expected a highWaterMark (a number from 0 up), found the number -1",
        ),
        ("ruler 0\n", "bad.scn:1:7: expected a number of marks (a whole number from 1 to 64) after `ruler`, found the number 0"),
        ("let read = 1\n", "bad.scn:1:5: "),
    ];
    for (text, want) in cases {
        let got = errors(text);
        assert!(
            got.iter().any(|e| e.starts_with(want)),
            "{text:?}: want {want:?}, got {got:?}"
        );
    }
}

#[test]
fn tee_binds_both_branches() {
    let text = "let rs = readable\nlet [a, b] = tee rs\nlet r = getReader a\nlog b.locked\nthen r.closed {\n  let [c, d] = tee b\n  log c d\n}\n";
    assert_round_trips(text);
    let s = parse("t.scn", text).unwrap();
    assert!(
        matches!(&s.body[1], nodesem_lang::Stmt::Tee { branches, .. } if &*branches[0] == "a" && &*branches[1] == "b")
    );
    let cases = [
        (
            "let rs = readable\nlet [a, a] = tee rs\n",
            "bad.scn:2:9: `a` names both branches of `tee`",
        ),
        (
            "let t = target\nlet [a, b] = tee t\n",
            "bad.scn:2:18: expected a ReadableStream, found `t`, which is an EventTarget",
        ),
        (
            "let rs = readable\nlet [a, b] = readable\n",
            "bad.scn:2:14: expected `tee S` (only `tee` binds two names)",
        ),
        (
            "let rs = readable\nlet [a] = tee rs\n",
            "bad.scn:2:7: expected `,` and the second branch's name",
        ),
        ("let rs = readable\nlet [a, rs] = tee rs\n", "bad.scn:2:9: "),
    ];
    for (text, want) in cases {
        let got = errors(text);
        assert!(
            got.iter().any(|e| e.starts_with(want)),
            "{text:?}: want {want:?}, got {got:?}"
        );
    }
}

#[test]
fn writable_transform_pipe_from_and_iteration_round_trip() {
    let text = "let ws = writable highWaterMark 2 size {\n  return 1\n} start {\n  log controller.signal\n} write {\n  log chunk\n  error controller chunk\n} close {\n} abort {\n  log reason\n}\nlet w = getWriter ws\nlog w.desiredSize ws.locked\nlet p = write w \"a\"\nthen w.ready {\n}\nthen w.closed {\n}\nlet c = close w\nlet a = abort w \"why\"\nlet a2 = abort ws\nlet c2 = close ws\nreleaseLock w\nlet t = transform writableHighWaterMark 1 readableHighWaterMark 0 start {\n  log controller.desiredSize\n} transform {\n  enqueue controller chunk\n} flush {\n  terminate controller\n} cancel {\n  log reason\n}\nlet rs = from [1, 2]\nlet ra = from async [p, 3]\nlet out = pipeThrough rs t preventClose\nlet s = aborted\nlet piped = pipeTo out t.writable preventClose preventAbort preventCancel signal s\nlet piped2 = pipeTo ra ws\nlet it = values out preventCancel\nlet n = next it\nlet r = iterReturn it 5\nlet r2 = iterReturn it\nlet sized = readable size {\n  return 2\n} pull {\n}\n";
    assert_round_trips(text);
    let s = parse("t.scn", text).unwrap();
    let ops: Vec<&nodesem_lang::Op> = s
        .body
        .iter()
        .filter_map(|stmt| match stmt {
            nodesem_lang::Stmt::Let { op, .. } => Some(op),
            _ => None,
        })
        .collect();
    assert!(matches!(
        ops[0],
        nodesem_lang::Op::NewWritable { strategy, start: Some(_), write: Some(_), close: Some(_), abort: Some(_) }
            if strategy.size.is_some()
    ));
    assert!(ops
        .iter()
        .any(|op| matches!(op, nodesem_lang::Op::CloseWritable { .. })));
    assert!(ops
        .iter()
        .any(|op| matches!(op, nodesem_lang::Op::AbortWritable { reason: None, .. })));
    assert!(ops.iter().any(|op| matches!(
        op,
        nodesem_lang::Op::PipeTo { options, .. }
            if options.prevent_close && options.prevent_abort && options.prevent_cancel && options.signal.is_some()
    )));
    assert!(ops.iter().any(
        |op| matches!(op, nodesem_lang::Op::From { is_async: true, values } if values.len() == 2)
    ));
}

#[test]
fn writable_and_transform_operations_check_their_operands() {
    let cases = [
        (
            "let ws = writable write {\n}\nwrite ws 1\n",
            "bad.scn:3:7: expected a WritableStreamDefaultWriter, found `ws`, which is a WritableStream",
        ),
        (
            "let rs = readable\nclose rs\n",
            "bad.scn:2:7: expected a ReadableStreamDefaultController, a ReadableByteStreamController, a WritableStream or a WritableStreamDefaultWriter, found `rs`, which is a ReadableStream",
        ),
        (
            "let ws = writable close {\n  log chunk\n}\n",
            "bad.scn:2:7: unknown binding `chunk` (`chunk` exists only in the `write`, `transform` and `size` bodies of streams)",
        ),
        (
            "let ws = writable write {\n} start {\n}\n",
            "bad.scn:2:3: expected `close {` or `abort {` after `}`, in the order size, start, write, close, abort, or the end of the line, found `start`",
        ),
        (
            "let t = transform start {\n  terminate controller\n}\nlet rs = readable start {\n  terminate controller\n}\n",
            "bad.scn:5:13: expected a TransformStreamDefaultController, found `controller`, which is a ReadableStreamDefaultController",
        ),
        (
            "let rs = readable\nlet p = pipeTo rs rs\n",
            "bad.scn:2:19: expected a WritableStream, found `rs`, which is a ReadableStream",
        ),
        (
            "let rs = readable\nlet t = target\nlet p = pipeTo rs (transform).writable signal t\n",
            "bad.scn:3:",
        ),
        (
            "let rs = readable\nlet it = values rs\nlet n = read it\n",
            "bad.scn:3:14: expected a ReadableStreamDefaultReader or a ReadableStreamBYOBReader, found `it`, which is a ReadableStream's async iterator",
        ),
        ("let chunk = 1\n", "bad.scn:1:5: "),
        ("let next = 1\n", "bad.scn:1:5: "),
    ];
    for (text, want) in cases {
        let got = errors(text);
        assert!(
            got.iter().any(|e| e.starts_with(want)),
            "{text:?}: want {want:?}, got {got:?}"
        );
    }
}

#[test]
fn byte_streams_and_byob_readers_round_trip() {
    let text = "let rs = readable bytes highWaterMark 16 autoAllocateChunkSize 8 start {\n  let b = bytes [1, 2, 255]\n  enqueue controller b\n  log controller.byobRequest controller.desiredSize\n} pull {\n  let q = controller.byobRequest\n  log q.view q.view.byteLength\n  respond q 2\n  let v = subarray q.view 0 2\n  respondWithNewView q v\n} cancel {\n  log reason\n}\nlet r = getReader rs byob\nlet buf = bytes 8\nlet p = read r buf min 2\nlet p2 = read r buf\nlog buf.byteOffset buf.length\nthen r.closed {\n}\nreleaseLock r\nlet c = cancel r\nlet tail = subarray buf -2\nlet plain = readable bytes\nclose controller_of_nothing\n";
    // The last line is not valid: check the rest round-trips, and that
    // line's error.
    let (good, bad) = text.rsplit_once("close controller_of_nothing\n").unwrap();
    assert_round_trips(good);
    assert_eq!(bad, "");
    let got = errors(text);
    assert!(
        got.iter()
            .any(|e| e.contains("unknown binding `controller_of_nothing`")),
        "{got:?}"
    );
    let s = parse("t.scn", good).unwrap();
    let nodesem_lang::Stmt::Let { op, .. } = &s.body[0] else {
        panic!("a let")
    };
    assert!(matches!(
        op,
        nodesem_lang::Op::NewReadableBytes { auto_allocate_chunk_size: Some(n), start: Some(_), pull: Some(_), cancel: Some(_), .. }
            if n.value() == 8.0
    ));
    let cases = [
        ("let b = bytes [1, 256]\n", "bad.scn:1:15: expected bytes (whole numbers from 0 to 255) in `bytes [...]`, found `256`"),
        ("let b = bytes 5000\n", "bad.scn:1:15: expected a length from 0 to 4096, or a list of bytes, after `bytes`"),
        ("let rs = readable\nlet r = getReader rs\nlet b = bytes 2\nlet p = read r b\n", "bad.scn:4:16: expected the end of the line"),
        ("let rs = readable start {\n  let q = controller.byobRequest\n}\n", "bad.scn:2:22: a ReadableStreamDefaultController has no property `byobRequest`"),
        ("let b = bytes 2\nrespond b 1\n", "bad.scn:2:9: expected a ReadableStreamBYOBRequest, found `b`, which is a Uint8Array"),
    ];
    for (text, want) in cases {
        let got = errors(text);
        assert!(
            got.iter().any(|e| e.starts_with(want)),
            "{text:?}: want {want:?}, got {got:?}"
        );
    }
}

#[test]
fn the_gc_statements_and_operations_round_trip() {
    assert_round_trips(
        "let c = controller\nlet a = any [c.signal]\nwatch a\nwatch c.signal\nlet w = weakref a\n\
         let r = registry {\n  log \"cleanup\" held\n}\nlet t = {}\nregister r a \"a\" token t\n\
         register r c 1\nlet removed = unregister r t\nlet n = dependants c.signal\ndrop a\ngc\nalive\n\
         let v = deref w\nlog v n removed\nlet f = fn {\n  log event\n}\nlet g = registry f\n",
    );
}

#[test]
fn the_gc_forms_say_what_they_expected() {
    // `held` exists only in a cleanup callback; `drop` takes a binding;
    // `deref` a WeakRef; `dependants` a signal.
    let found = errors("log held\n");
    assert!(
        found[0].contains("`held` exists only in the cleanup callback"),
        "{found:?}"
    );
    let found = errors("drop 1\n");
    assert!(
        found[0].contains("1:6: expected a binding after `drop`"),
        "{found:?}"
    );
    let found = errors("let o = {}\nlet v = deref o\n");
    assert!(found[0].contains("2:15"), "{found:?}");
    assert!(found[0].contains("a WeakRef"), "{found:?}");
    let found = errors("let t = target\nlet n = dependants t\n");
    assert!(found[0].contains("an AbortSignal"), "{found:?}");
    // The words are reserved.
    let found = errors("let gc = 1\n");
    assert!(found[0].contains("reserved"), "{found:?}");
}

#[test]
fn temporaries_in_any_lists_round_trip() {
    assert_round_trips(
        "let c = controller\nlet a = any [timeout 5, c.signal]\n\
         let b = any set [any [c.signal, timeout 3], timeout 20, a]\nlet d = any [any set [a]]\n",
    );
    // A temporary is an expression holding others: the binding it reads
    // counts as read (the overlay's drops and the collector's closure rule
    // depend on it).
    let scenario = nodesem_lang::parse(
        "t.scn",
        "let c = controller\nlet a = any [any [c.signal]]\n",
    )
    .expect("parses");
    let mut names = Vec::new();
    for e in match &scenario.body[1] {
        nodesem_lang::Stmt::Let { op, .. } => op.exprs(),
        other => panic!("not a let: {other:?}"),
    } {
        e.binding_names(&mut names);
    }
    assert_eq!(names, ["c"]);
}

#[test]
fn temporaries_nest_two_deep_and_are_signals_only_in_any_lists() {
    let found = errors("let c = controller\nlet a = any [any [any [c.signal]]]\n");
    assert!(
        found[0].starts_with(
            "bad.scn:2:19: expected a signal or `timeout MS`: temporaries nest at most 2 deep"
        ),
        "{found:?}"
    );
    // Elsewhere `timeout` stays a keyword, not a value.
    let found = errors("log timeout 5\n");
    assert!(found[0].contains("1:5"), "{found:?}");
    let found = errors("let a = any [timeout]\n");
    assert!(found[0].contains("1:21"), "{found:?}");
}

#[test]
fn emitter_extras_round_trip() {
    assert_round_trips(
        "let e = emitter\nlet c = controller\naddListener e errorMonitor {\n  log arg1\n}\n\
         emit e \"error\" 1\nlog errorMonitor defaultMaxListeners\nsetDefaultMaxListeners 3\n\
         let v = setDefaultMaxListeners \"x\"\nlet n = eventsKeyCount e\nlet p = onceEvent e \"a\"\n\
         let q = onceEvent e errorMonitor signal c.signal\nlet r = onceEvent e \"a\" signal 5\n\
         let m = errorMonitor\n",
    );
}

#[test]
fn emitter_extras_check_their_kinds_and_words() {
    assert_eq!(
        errors("let t = target\nlet p = onceEvent t \"a\"\n"),
        vec!["bad.scn:2:19: expected an EventEmitter, found `t`, which is an EventTarget"]
    );
    assert_eq!(
        errors("let e = emitter\nlet p = onceEvent e \"a\" signl 5\n"),
        vec!["bad.scn:2:25: expected `signal S` or the end of the line, found `signl`"]
    );
    assert_eq!(
        errors("let c = controller\nlet n = eventsKeyCount c\n"),
        vec!["bad.scn:2:24: expected an EventEmitter, found `c`, which is an AbortController"]
    );
    let found = errors("let errorMonitor = 1\n");
    assert!(found[0].contains("errorMonitor"), "{found:?}");
    let found = errors("setDefaultMaxListeners\n");
    assert!(found[0].contains("expected a value"), "{found:?}");
}

#[test]
fn events_on_and_capture_rejections_round_trip() {
    assert_round_trips(
        "let e = emitter captureRejections\nlet c = controller\nlet it = onEvents e \"a\"\n\
         let jt = onEvents e errorMonitor signal c.signal\nlet p = next it\nlet q = iterReturn jt 5\n\
         let r = iterReturn it\nlet f = fn async {\n  throw Error(\"x\")\n}\nonRejection e f\n\
         let g = onRejection e 5\nlet k = onEvents e \"a\" signal 5\n\
         let l = onEvents e \"a\" close \"b\" highWaterMark 2 lowWaterMark 1\n\
         let m = onEvents e \"a\" signal c.signal lowWaterMark null\nlet t = iterThrow l Error(\"x\")\n\
         iterThrow m 5\n",
    );
}

#[test]
fn events_on_and_capture_rejections_check_their_kinds_and_words() {
    assert_eq!(
        errors("let t = target\nlet it = onEvents t \"a\"\n"),
        vec!["bad.scn:2:19: expected an EventEmitter, found `t`, which is an EventTarget"]
    );
    assert_eq!(
        errors("let e = emitter\nlet it = onEvents e \"a\" signl 5\n"),
        vec![
            "bad.scn:2:25: expected `signal V`, `close V`, `highWaterMark V`, `lowWaterMark V` \
             or the end of the line, found `signl`"
        ]
    );
    assert_eq!(
        errors("let e = emitter\nlet it = onEvents e \"a\" close \"b\" signal 5\n"),
        vec![
            "bad.scn:2:35: expected `highWaterMark V`, `lowWaterMark V` or the end of the \
             line, found `signal`"
        ]
    );
    assert_eq!(
        errors("let s = readable\nlet it = values s\niterThrow it 1\n"),
        vec![
            "bad.scn:3:11: expected an events.on async iterator, found `it`, which is a \
             ReadableStream's async iterator"
        ]
    );
    assert_eq!(
        errors("let e = emitter capture\n"),
        vec!["bad.scn:1:17: expected `captureRejections` or the end of the line, found `capture`"]
    );
    assert_eq!(
        errors("let c = controller\nonRejection c 5\n"),
        vec!["bad.scn:2:13: expected an EventEmitter, found `c`, which is an AbortController"]
    );
    assert_eq!(
        errors("let e = emitter\nlet p = next e\n"),
        vec![
            "bad.scn:2:14: expected a ReadableStream's async iterator or an events.on async \
             iterator, found `e`, which is an EventEmitter"
        ]
    );
    let found = errors("let onEvents = 1\n");
    assert!(found[0].contains("onEvents"), "{found:?}");
}
