//! Tests of the scenario generator: everything it makes is valid and
//! survives printing, parsing and JSON; and it keeps covering every operation
//! and every interesting shape it is meant to, so that it cannot silently
//! degenerate into trivial scripts.

use std::collections::BTreeMap;

use arbitrary::Unstructured;
use nodesem_lang::gen::{generate_from_seed, generate_with, scenario_strategy, GenConfig};
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
        .map(|(b, _)| b.body.len().max(longest_block(&b.body)))
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
        Op::Function(b) | Op::QueueMicrotask(b) | Op::NextTick(b) | Op::SetImmediate(b) => {
            vec![(b, None)]
        }
        Op::SetTimeout { body, .. } => vec![(body, None)],
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
            walk(&block.body, visit, listeners, depth + 1, deepest);
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
            if matches!(b.body.first(), Some(Stmt::Do(Op::ThrowIfAborted { .. }))) {
                out.push("throwIfAborted in try".into());
            }
            return;
        }
        Stmt::Throw(_) if in_listener => return out.push("throw in listener".into()),
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
        Op::SignalAny { signals } => {
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
                    Handler::Callback(Callback::Value(_)) => "onabort fn",
                    Handler::Callback(Callback::Inline(_)) => "onabort block",
                }
                .into(),
            );
            "onabort"
        }
        Op::AddAbortListener { .. } => "addAbortListener",
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
        _ => return,
    };
    out.push(name.into());
}

/// Every feature the generator must show at least once in 500 seeds.
const REQUIRED: &[&str] = &[
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
    "throwIfAborted",
    "throwIfAborted in try",
    "onabort",
    "onabort block",
    "onabort fn",
    "onabort null",
    "addAbortListener",
    "dispose",
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
