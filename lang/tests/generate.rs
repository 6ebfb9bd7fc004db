//! Tests of the scenario generator: everything it makes is valid and
//! survives printing, parsing and JSON; it keeps covering every operation
//! and every interesting shape it is meant to, so that it cannot silently
//! degenerate into trivial scripts; what it sets up is triggered and
//! observed by the epilogue, as far as that can be checked without running
//! a scenario (`harness/examples/gen_stats_probe.rs` measures how many
//! bodies run); and its sizes are mostly small with a long tail.

use std::collections::BTreeMap;

use arbitrary::Unstructured;
use nodesem_lang::gen::{
    generate_from_seed, generate_with, scenario_strategy, seeded_bytes, GenConfig,
    MAX_GENERATED_LINE, MAX_GENERATED_STATEMENTS,
};
use nodesem_lang::limits::{
    MAX_LIST, MAX_NESTING, MAX_PROPERTY_CHAIN, MAX_SAFE_INTEGER, MAX_SOURCE_BYTES,
};
use nodesem_lang::{
    parse, print, validate, Block, Callback, Expr, Handler, Op, RunMode, Scenario, Stmt,
};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The round trip the language promises: `parse(print(s)) == s`, for
    /// every generated scenario; and the serde JSON form round-trips too.
    #[test]
    fn generated_scenarios_are_valid_and_round_trip(s in scenario_strategy()) {
        let text = print(&s);
        if let Err(e) = validate(&s) {
            return Err(TestCaseError::fail(format!("{e}\n{text}")));
        }
        let parsed = parse("generated.scn", &text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&parsed, &s, "{}", text);
        prop_assert_eq!(print(&parsed), text);
        let json = serde_json::to_string(&s).expect("a scenario serializes");
        let back: Scenario = serde_json::from_str(&json).expect("its JSON deserializes");
        prop_assert_eq!(back, s);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Tight limits reach the edges of the statement budget and the depth
    /// limit far more often than the defaults do. (libFuzzer once found an
    /// `on` with no listener at the budget's edge.)
    #[test]
    fn generated_scenarios_are_valid_under_tight_limits(
        bytes in prop::collection::vec(any::<u8>(), 0..1024),
        max_top_level in 0usize..8,
        max_block in 0usize..4,
        max_depth in 0usize..4,
        max_statements in 0usize..24,
    ) {
        let config = GenConfig { max_top_level, max_block, max_depth, max_statements };
        let s = generate_with(&mut Unstructured::new(&bytes), &config).expect("generation never fails");
        if let Err(e) = validate(&s) {
            return Err(TestCaseError::fail(format!("{e}\n{}", print(&s))));
        }
        prop_assert!(depth(&s.body) <= max_depth);
    }
}

/// A configuration field: usually small, sometimes unbounded.
fn limit(small: usize) -> impl Strategy<Value = usize> {
    prop_oneof![3 => 0..small, 1 => Just(usize::MAX)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Whatever the configuration, even an unbounded one, and however many
    /// bytes, a generated scenario is within every static limit of
    /// `nodesem_lang::limits`, so it always parses after printing.
    #[test]
    fn generated_scenarios_stay_within_the_static_limits(
        seed in any::<u64>(),
        size in 0usize..65_536,
        max_top_level in limit(2_000),
        max_block in limit(64),
        max_depth in limit(64),
        max_statements in limit(5_000),
    ) {
        let config = GenConfig { max_top_level, max_block, max_depth, max_statements };
        let bytes = seeded_bytes(seed, size);
        let s = generate_with(&mut Unstructured::new(&bytes), &config).expect("generation never fails");
        check_static_limits(&s)?;
    }
}

/// Checks every static limit on a scenario and on its printed form, and
/// that the printed form parses back to it.
fn check_static_limits(s: &Scenario) -> Result<(), TestCaseError> {
    let text = print(s);
    prop_assert!(
        depth(&s.body) <= MAX_NESTING,
        "nested {} deep",
        depth(&s.body)
    );
    prop_assert!(text.len() <= MAX_SOURCE_BYTES, "{} bytes", text.len());
    for line in text.lines() {
        prop_assert!(
            line.len() <= MAX_GENERATED_LINE,
            "a line of {} bytes: {line}",
            line.len()
        );
    }
    let mut problems = Vec::new();
    walk(
        &s.body,
        &mut |stmt, _| {
            let (exprs, list) = exprs(stmt);
            if list > MAX_LIST {
                problems.push(format!("a list of {list}"));
            }
            for e in exprs {
                let mut chain = 0;
                let mut base = e;
                while let Expr::Prop(obj, _) = base {
                    chain += 1;
                    base = obj;
                }
                if chain > MAX_PROPERTY_CHAIN {
                    problems.push(format!("a chain of {chain}"));
                }
                if let Expr::Int(i) = base {
                    if i.unsigned_abs() > MAX_SAFE_INTEGER.unsigned_abs() {
                        problems.push(format!("the integer {i}"));
                    }
                }
            }
        },
        &mut Vec::new(),
        0,
        &mut 0,
    );
    prop_assert!(problems.is_empty(), "{:?}\n{}", problems, text);
    let parsed =
        parse("generated.scn", &text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    prop_assert_eq!(&parsed, s);
    Ok(())
}

/// The expressions of one statement (not those of the blocks in it), and
/// the length of its list (a `log`'s values or an `any`'s signals), if any.
fn exprs(stmt: &Stmt) -> (Vec<&Expr>, usize) {
    let op = match stmt {
        Stmt::Log(values) => return (values.iter().collect(), values.len()),
        Stmt::Throw(e) | Stmt::Return(Some(e)) => return (vec![e], 0),
        Stmt::Let { op, .. } | Stmt::Do(op) => op,
        _ => return (Vec::new(), 0),
    };
    if let Op::SignalAny { signals, .. } = op {
        return (signals.iter().collect(), signals.len());
    }
    (op.exprs(), 0)
}

#[test]
fn configurations_are_capped_at_the_static_limits() {
    let unbounded = GenConfig {
        max_top_level: usize::MAX,
        max_block: usize::MAX,
        max_depth: usize::MAX,
        max_statements: usize::MAX,
    };
    assert_eq!(
        unbounded.within_limits(),
        GenConfig {
            max_top_level: MAX_GENERATED_STATEMENTS,
            max_block: MAX_GENERATED_STATEMENTS,
            max_depth: MAX_NESTING,
            max_statements: MAX_GENERATED_STATEMENTS,
        }
    );
    // The defaults are within the limits already.
    assert_eq!(GenConfig::default().within_limits(), GenConfig::default());
    // What the capped configuration allows prints within the size limit
    // (gen.rs asserts that 3 lines of MAX_GENERATED_LINE bytes per statement
    // fit; `check_static_limits` checks the lines).
    for seed in 0..20 {
        let bytes = seeded_bytes(seed, 65_536);
        let s = generate_with(&mut Unstructured::new(&bytes), &unbounded)
            .expect("generation never fails");
        check_static_limits(&s).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
}

#[test]
fn seeded_generation_is_deterministic_and_bounded() {
    for seed in 0..200 {
        let a = generate_from_seed(seed, 1500);
        assert_eq!(a, generate_from_seed(seed, 1500));
        assert!(
            a.body.len() <= 31,
            "seed {seed}: {} top-level statements",
            a.body.len()
        );
        assert!(
            depth(&a.body) <= 3,
            "seed {seed}: nested {} deep",
            depth(&a.body)
        );
        assert!(
            longest_block(&a.body) <= 8,
            "seed {seed}: a block of {} statements",
            longest_block(&a.body)
        );
        validate(&a).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", print(&a)));
    }
    assert_eq!(generate_from_seed(7, 0), Scenario::default());
}

/// The most statements in any block.
fn longest_block(stmts: &[Stmt]) -> usize {
    stmts
        .iter()
        .flat_map(blocks)
        .map(|(b, _)| b.body().len().max(longest_block(b.body())))
        .max()
        .unwrap_or(0)
}

fn depth(stmts: &[Stmt]) -> usize {
    let mut deepest = 0;
    walk(stmts, &mut |_, _| {}, &mut Vec::new(), 0, &mut deepest);
    deepest
}

/// The blocks directly inside a statement, with the (target, type) of the
/// listener when the block is a listener body.
fn blocks(stmt: &Stmt) -> Vec<(&Block, Option<Listener<'_>>)> {
    let op = match stmt {
        Stmt::Try(b) => return vec![(b, None)],
        Stmt::If {
            then, otherwise, ..
        } => {
            return std::iter::once(then)
                .chain(otherwise)
                .map(|b| (b, None))
                .collect()
        }
        Stmt::Let { op, .. } | Stmt::Do(op) => op,
        _ => return Vec::new(),
    };
    match op {
        Op::SetOnAbort {
            signal,
            handler: Handler::Callback(Callback::Inline(b)),
        } => vec![(b, Some((signal, "abort")))],
        Op::AddAbortListener {
            signal,
            listener: Callback::Inline(b),
        } => vec![(b, Some((signal, "abort")))],
        Op::AddEventListener {
            target,
            event_type,
            listener: Callback::Inline(b),
            ..
        } => {
            vec![(b, Some((target, event_type.as_str())))]
        }
        Op::Function(b)
        | Op::AsyncFunction(b)
        | Op::Async(b)
        | Op::QueueMicrotask(b)
        | Op::NextTick(b)
        | Op::SetImmediate(b)
        | Op::Thenable { body: Some(b), .. }
        | Op::ListenerObject(b) => vec![(b, None)],
        Op::SetTimeout { body, .. } | Op::SetInterval { body, .. } => vec![(body, None)],
        Op::Then {
            on_fulfilled,
            on_rejected,
            ..
        } => on_fulfilled
            .iter()
            .chain(on_rejected.iter())
            .map(|b| (b, None))
            .collect(),
        Op::Catch { on_rejected: b, .. } | Op::Finally { on_finally: b, .. } => vec![(b, None)],
        _ => Vec::new(),
    }
}

/// A listener body's target and event type.
type Listener<'a> = (&'a Expr, &'a str);

/// Visits every statement with the stack of listener (target, type) pairs
/// it is inside of, and records the deepest nesting.
fn walk<'a>(
    stmts: &'a [Stmt],
    visit: &mut dyn FnMut(&'a Stmt, &[Listener<'a>]),
    listeners: &mut Vec<Listener<'a>>,
    depth: usize,
    deepest: &mut usize,
) {
    *deepest = (*deepest).max(depth);
    for stmt in stmts {
        visit(stmt, listeners);
        for (block, listener) in blocks(stmt) {
            let pushed = listener.is_some();
            listeners.extend(listener);
            walk(block.body(), visit, listeners, depth + 1, deepest);
            if pushed {
                listeners.pop();
            }
        }
    }
}

fn reason_kind(reason: &Option<Expr>) -> &'static str {
    match reason {
        None => "no reason",
        Some(Expr::Str(_)) => "string reason",
        Some(Expr::Int(_)) => "number reason",
        Some(Expr::NewError(_)) => "Error reason",
        Some(Expr::Undefined) => "undefined reason",
        Some(_) => "other reason",
    }
}

/// The features one statement shows, as names to count.
fn features(stmt: &Stmt, listeners: &[Listener<'_>], out: &mut Vec<String>) {
    let in_listener = !listeners.is_empty();
    let op = match stmt {
        Stmt::Log(values) => {
            out.push("log".into());
            for v in values {
                if let Expr::Prop(obj, prop) = v {
                    let on = if **obj == Expr::var("event") {
                        "event"
                    } else {
                        "signal"
                    };
                    out.push(format!("log {on}.{prop}"));
                }
            }
            return;
        }
        Stmt::Try(b) => {
            if matches!(b.body().first(), Some(Stmt::Do(Op::ThrowIfAborted { .. }))) {
                out.push("throwIfAborted in try".into());
            }
            return;
        }
        Stmt::Throw(_) if in_listener => return out.push("throw in listener".into()),
        Stmt::If { .. } => return out.push("if".into()),
        Stmt::Run(RunMode::Turn) => return out.push("run turn".into()),
        Stmt::Run(RunMode::Idle) => return out.push("run idle".into()),
        Stmt::Run(RunMode::Advance(_)) => return out.push("run advance".into()),
        Stmt::Let { op, .. } | Stmt::Do(op) => op,
        _ => return,
    };
    let name = match op {
        Op::NewController => "controller",
        Op::Abort { controller, reason } => {
            out.push(format!("abort, {}", reason_kind(reason)));
            if in_listener {
                let reentrant = listeners
                    .iter()
                    .any(|(target, _)| **target == controller.clone().prop("signal"));
                out.push(
                    if reentrant {
                        "abort in a listener of its own signal"
                    } else {
                        "abort in a listener"
                    }
                    .into(),
                );
            }
            "abort"
        }
        Op::SignalAbort { .. } => "aborted",
        Op::SignalTimeout { .. } => "timeout",
        Op::SignalAny { signals, from_set } => {
            if *from_set {
                out.push("any set".into());
            }
            let distinct: std::collections::BTreeSet<String> = signals
                .iter()
                .map(nodesem_lang::printer::print_expr)
                .collect();
            if distinct.len() < signals.len() {
                out.push("any with duplicates".into());
            }
            "any"
        }
        Op::ThrowIfAborted { .. } => "throwIfAborted",
        Op::SetOnAbort { handler, .. } => {
            out.push(
                match handler {
                    Handler::Null => "onabort null",
                    Handler::Value(_) => "onabort value",
                    Handler::Callback(Callback::Value(_)) => "onabort fn",
                    Handler::Callback(Callback::Inline(_)) => "onabort block",
                }
                .into(),
            );
            "onabort"
        }
        Op::AddAbortListener { listener, .. } => {
            if let Callback::Inline(b) = listener {
                if reads_event(b.body()) {
                    out.push("addAbortListener body reads event".into());
                }
            }
            "addAbortListener"
        }
        Op::Dispose { .. } => "dispose",
        Op::NewTarget => "target",
        Op::Function(_) => "fn",
        Op::AddEventListener {
            target,
            event_type,
            listener,
            options,
        } => {
            for (set, option) in [
                (options.once, "on once"),
                (options.capture, "on capture"),
                (options.passive, "on passive"),
                (options.signal.is_some(), "on signal"),
                (matches!(listener, Callback::Value(_)), "on fn"),
            ] {
                if set {
                    out.push(option.into());
                }
            }
            if listeners
                .iter()
                .any(|(t, ty)| *t == target && *ty == event_type)
            {
                out.push("on during its own dispatch".into());
            }
            "on"
        }
        Op::RemoveEventListener {
            target, event_type, ..
        } => {
            if listeners
                .iter()
                .any(|(t, ty)| *t == target && *ty == event_type)
            {
                out.push("off during its own dispatch".into());
            }
            "off"
        }
        Op::Dispatch {
            target, cancelable, ..
        } => {
            out.push(
                if *cancelable {
                    "dispatch cancelable"
                } else {
                    "dispatch not cancelable"
                }
                .into(),
            );
            if listeners.iter().any(|(t, _)| *t != target) {
                out.push("dispatch in another target's listener".into());
            }
            "dispatch"
        }
        Op::PreventDefault { .. } => "preventDefault",
        Op::StopPropagation { .. } => "stopPropagation",
        Op::StopImmediatePropagation { .. } => "stopImmediatePropagation",
        Op::QueueMicrotask(_) => "microtask",
        Op::NextTick(_) => "tick",
        Op::SetTimeout { .. } => "setTimeout",
        Op::ClearTimeout { .. } => "clearTimeout",
        Op::SetImmediate(_) => "setImmediate",
        Op::ClearImmediate { .. } => "clearImmediate",
        Op::NewPromise => "promise",
        Op::Resolve { .. } => "resolve",
        Op::Reject { .. } => "reject",
        Op::Then { .. } => "then",
        Op::Catch { .. } => "catch",
        Op::Combinator { kind, .. } => kind.keyword(),
        Op::Async(_) => "async",
        Op::AsyncFunction(_) => "fn async",
        Op::Await(_) => "await",
        Op::Thenable { body: Some(_), .. } => "thenable with a body",
        Op::NewEvent { custom: false, .. } => "new Event",
        Op::NewEvent { custom: true, .. } => "new CustomEvent",
        Op::NewAbortSignal => "new AbortSignal",
        Op::ListenerObject(_) => "handleEvent",
        Op::SetInterval { .. } => "setInterval",
        Op::Assign { .. } => "assign",
        Op::ClearInterval { .. } => "clearInterval",
        Op::TimerRef { refed: false, .. } => "unref",
        Op::DispatchEvent { .. } => "dispatchEvent",
        Op::ComposedPath { .. } => "composedPath",
        Op::SetEventAttribute { .. } => "set",
        Op::SetMaxListeners { .. } => "setMaxListeners",
        Op::GetMaxListeners { .. } => "getMaxListeners",
        _ => return,
    };
    out.push(name.into());
}

/// Whether the statements (not the callbacks in them) read `event`.
fn reads_event(body: &[Stmt]) -> bool {
    body.iter().any(|stmt| {
        exprs(stmt)
            .0
            .iter()
            .any(|e| nodesem_lang::printer::print_expr(e).starts_with("event"))
    })
}

/// Every feature the generator must show at least once in 500 seeds.
const REQUIRED: &[&str] = &[
    "all",
    "allSettled",
    "race",
    "promiseAny",
    "async",
    "fn async",
    "await",
    "thenable with a body",
    "new Event",
    "new CustomEvent",
    "new AbortSignal",
    "handleEvent",
    "setInterval",
    "if",
    "assign",
    "clearInterval",
    "unref",
    "dispatchEvent",
    "composedPath",
    "set",
    "controller",
    "abort",
    "abort, no reason",
    "abort, string reason",
    "abort, number reason",
    "abort, Error reason",
    "abort, undefined reason",
    "abort in a listener",
    "abort in a listener of its own signal",
    "aborted",
    "timeout",
    "any",
    "any with duplicates",
    "any set",
    "throwIfAborted",
    "throwIfAborted in try",
    "onabort",
    "onabort block",
    "onabort fn",
    "onabort null",
    "addAbortListener",
    "dispose",
    "setMaxListeners",
    "getMaxListeners",
    "target",
    "fn",
    "on",
    "on once",
    "on capture",
    "on passive",
    "on signal",
    "on fn",
    "on during its own dispatch",
    "off",
    "off during its own dispatch",
    "dispatch",
    "dispatch cancelable",
    "dispatch not cancelable",
    "dispatch in another target's listener",
    "preventDefault",
    "stopPropagation",
    "stopImmediatePropagation",
    "log",
    "log signal.aborted",
    "log signal.reason",
    "log event.type",
    "log event.defaultPrevented",
    "log event.isTrusted",
    "log event.eventPhase",
    "log event.cancelable",
    "log event.target",
    "log event.currentTarget",
    "log event.cancelBubble",
    "log event.returnValue",
    "log signal.onabort",
    "addAbortListener body reads event",
    "microtask",
    "tick",
    "setTimeout",
    "clearTimeout",
    "setImmediate",
    "run turn",
    "run idle",
    "run advance",
    "throw in listener",
    "promise",
    "resolve",
    "reject",
    "then",
];

#[test]
fn generator_covers_every_operation() {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut deepest = 0;
    for seed in 0..500 {
        let s = generate_from_seed(seed, 1024);
        let mut found = Vec::new();
        walk(
            &s.body,
            &mut |stmt, listeners| features(stmt, listeners, &mut found),
            &mut Vec::new(),
            0,
            &mut deepest,
        );
        for f in found {
            *counts.entry(f).or_default() += 1;
        }
    }
    let missing: Vec<&str> = REQUIRED
        .iter()
        .copied()
        .filter(|f| !counts.contains_key(*f))
        .collect();
    assert!(
        missing.is_empty(),
        "never generated in 500 seeds: {missing:?}\ncounts: {counts:#?}"
    );
    assert_eq!(
        deepest, 3,
        "blocks should reach the depth limit, and not pass it"
    );
}

/// The signals the main script declares: the index of each `let` and the
/// signal's expression (`c.signal` for a controller).
fn main_signals(s: &Scenario) -> Vec<(usize, Expr)> {
    s.body
        .iter()
        .enumerate()
        .filter_map(|(i, stmt)| match stmt {
            Stmt::Let {
                name,
                op: Op::NewController,
            } => Some((i, Expr::var(&**name).prop("signal"))),
            Stmt::Let {
                name,
                op: Op::SignalAbort { .. } | Op::SignalTimeout { .. } | Op::SignalAny { .. },
            } => Some((i, Expr::var(&**name))),
            _ => None,
        })
        .collect()
}

/// The operations the main script performs after its statement `at`
/// outside any callback: its own and those in its `try` blocks.
fn later_ops(s: &Scenario, at: usize) -> Vec<&Op> {
    fn flatten<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a Op>) {
        for stmt in stmts {
            match stmt {
                Stmt::Let { op, .. } | Stmt::Do(op) => out.push(op),
                Stmt::Try(b) => flatten(b.body(), out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    flatten(&s.body[at + 1..], &mut out);
    out
}

/// Whether the main script dispatches `event_type` on `target` after `at`.
fn dispatched_later(s: &Scenario, at: usize, target: &Expr, event_type: &str) -> bool {
    // The main script's held events of this type: `dispatchEvent T e` of
    // one dispatches it as `dispatch T TYPE` does.
    let held: Vec<Expr> = s
        .body
        .iter()
        .filter_map(|stmt| match stmt {
            Stmt::Let {
                name,
                op:
                    Op::NewEvent {
                        event_type: Some(ty),
                        ..
                    },
            } if ty == event_type => Some(Expr::var(&**name)),
            _ => None,
        })
        .collect();
    later_ops(s, at).into_iter().any(|op| match op {
        Op::Dispatch {
            target: t,
            event_type: ty,
            ..
        } => t == target && ty == event_type,
        Op::DispatchEvent { target: t, event } => t == target && held.contains(event),
        _ => false,
    })
}

/// Whether the main script aborts controller `c` after `at`, or (when it
/// was aborted already) dispatches `abort` on its signal.
fn aborted_later(s: &Scenario, at: usize, c: &str) -> bool {
    let signal = Expr::var(c).prop("signal");
    later_ops(s, at)
        .into_iter()
        .any(|op| matches!(op, Op::Abort { controller, .. } if *controller == Expr::var(c)))
        || dispatched_later(s, at, &signal, "abort")
}

/// The controller whose signal `e` is (`c.signal`).
fn controller_of(e: &Expr) -> Option<&str> {
    match e {
        Expr::Prop(obj, prop) if prop == "signal" => match &**obj {
            Expr::Var(c) => Some(c),
            _ => None,
        },
        _ => None,
    }
}

/// Every scenario ends with an epilogue in its main script that can be
/// checked statically: every signal of the main script is observed
/// (`aborted`, `reason`, `onabort`) after it is made; every listener the
/// main script adds to a (target, type) is followed by a dispatch of that
/// type on that target, and every abort listener it adds to a controller's
/// signal by an abort of the controller (or, when it was aborted already, a
/// dispatch of `abort`); every `timeout` it makes is followed by a `run
/// advance` at least as long; every `promise` that a reaction of the main
/// script waits for is settled by it.
#[test]
fn every_scenario_ends_with_an_epilogue_that_triggers_and_observes() {
    let mut observed = 0;
    let mut listeners = 0;
    for seed in 0..1000 {
        let s = generate_from_seed(seed, 4096);
        let text = print(&s);
        for (at, signal) in main_signals(&s) {
            let wanted: Vec<Expr> = ["aborted", "reason", "onabort"]
                .iter()
                .map(|p| signal.clone().prop(*p))
                .collect();
            let found = s.body[at + 1..].iter().any(|stmt| {
                matches!(stmt, Stmt::Log(values) if values.len() == 4 && values[1..] == wanted[..])
            });
            assert!(
                found,
                "seed {seed}: {} is never observed\n{text}",
                nodesem_lang::printer::print_expr(&signal)
            );
            observed += 1;
        }
        for (at, stmt) in s.body.iter().enumerate() {
            let op = match stmt {
                Stmt::Let { op, .. } | Stmt::Do(op) => op,
                _ => continue,
            };
            let (signal, event_type) = match op {
                Op::AddEventListener {
                    target,
                    event_type,
                    options,
                    ..
                } => {
                    // A listener whose `signal` option may remove it first
                    // need not run.
                    if options.signal.is_some() {
                        continue;
                    }
                    (target, event_type.as_str())
                }
                Op::SetOnAbort {
                    signal,
                    handler: Handler::Callback(Callback::Inline(_)),
                }
                | Op::AddAbortListener {
                    signal,
                    listener: Callback::Inline(_),
                } => (signal, "abort"),
                Op::SignalTimeout { ms } => {
                    let fires = s.body[at + 1..]
                        .iter()
                        .any(|stmt| matches!(stmt, Stmt::Run(RunMode::Advance(n)) if n >= ms));
                    assert!(
                        fires,
                        "seed {seed}: timeout at line {at} never fires\n{text}"
                    );
                    continue;
                }
                Op::Then { promise, .. } | Op::Catch { promise, .. } => {
                    let Expr::Var(p) = promise else { continue };
                    let p = &p.name;
                    let deferred = s.body[..at].iter().any(
                        |stmt| matches!(stmt, Stmt::Let { name, op: Op::NewPromise } if **name == **p),
                    );
                    let settled = later_ops(&s, 0).into_iter().any(|op| {
                        matches!(op, Op::Resolve { promise, .. } | Op::Reject { promise, .. } if *promise == Expr::var(p))
                    });
                    assert!(
                        !deferred || settled,
                        "seed {seed}: {p} is never settled\n{text}"
                    );
                    continue;
                }
                _ => continue,
            };
            let is_signal = main_signals(&s).iter().any(|(_, e)| e == signal);
            let triggered = if is_signal && event_type == "abort" {
                match controller_of(signal) {
                    // An `addAbortListener` is called even when the
                    // controller was aborted before.
                    Some(c) => {
                        aborted_later(&s, at, c)
                            || (matches!(op, Op::AddAbortListener { .. })
                                && aborted_later(&s, 0, c))
                    }
                    None => continue,
                }
            } else {
                dispatched_later(&s, at, signal, event_type)
            };
            assert!(
                triggered,
                "seed {seed}: the listener at line {at} is never triggered\n{text}"
            );
            listeners += 1;
        }
    }
    assert!(
        observed > 1000 && listeners > 500,
        "{observed} signals, {listeners} listeners"
    );
}

/// Statements in a scenario, blocks included.
fn statement_count(s: &Scenario) -> usize {
    let mut n = 0;
    walk(&s.body, &mut |_, _| n += 1, &mut Vec::new(), 0, &mut 0);
    n
}

/// Most scenarios are small, a few are large, and the size still grows
/// with the input until the drawn size is reached.
#[test]
fn sizes_are_mostly_small_with_a_long_tail_and_grow_with_the_input() {
    let mut sizes: Vec<usize> = (0..1000)
        .map(|seed| statement_count(&generate_from_seed(seed, 4096)))
        .collect();
    sizes.sort_unstable();
    let median = sizes[sizes.len() / 2];
    let large = sizes.iter().filter(|n| **n >= 80).count();
    assert!((5..=30).contains(&median), "median {median}");
    assert!(
        sizes[sizes.len() / 10] <= 12,
        "10th percentile {}",
        sizes[100]
    );
    assert!(
        (10..=150).contains(&large),
        "{large} of 1000 with 80 statements or more"
    );
    assert!(
        sizes[sizes.len() - 1] >= 100,
        "the largest has {}",
        sizes[999]
    );
    let mean_bytes = |size: usize| {
        (0..300)
            .map(|seed| print(&generate_from_seed(seed, size)).len())
            .sum::<usize>()
            / 300
    };
    let (tiny, small, full) = (mean_bytes(32), mean_bytes(128), mean_bytes(2048));
    assert!(tiny < small && small < full, "{tiny} {small} {full} bytes");
}
