//! Garbage collection as explored nondeterminism: an overlay that puts
//! collection points, dropped bindings and observations of what is still
//! alive into a scenario of any family.
//!
//! Whether an outcome depends on when the collector runs is a question for
//! every family, and Node's GC bugs (a composite kept in a source's
//! dependants, a timeout collected before it fires, a listener whose
//! `{signal}` remover was collected) only show when a collection happens at
//! the right moment with the right bindings gone. So the overlay takes a
//! generated scenario and, driven by its own bytes:
//!
//! - watches objects as the main script makes them (`watch a`), sometimes
//!   registering them with one FinalizationRegistry whose cleanup logs
//!   their name;
//! - drops main-script bindings after their last use, when no callback
//!   reads them (so that what changes is what can be collected, not what a
//!   callback sees);
//! - puts `gc` points into the main script (each followed by `alive`, and
//!   sometimes by the dependant count of a signal) and into callback bodies;
//! - adds a small network of its own (controllers, timeouts, `any()`
//!   composites over them and over each other, abort listeners, an
//!   EventTarget listener with the `signal` option), watched, with some of
//!   its bindings dropped, and later aborts and dispatches: the shapes whose
//!   retention Node's rules decide (a timeout with listeners kept until it
//!   fires, a composite kept while a source can abort, a `{signal}`
//!   remover reached from its target);
//! - ends with a last `run idle`, `gc` and `alive`, whose cleanups run in
//!   the loop that follows.
//!
//! One registry, no unregister tokens, cleanups that only log: the order of
//! cleanups across registries, and of cells with tokens, is not fixed in
//! V8 (`harness/js/NODE_GC_FACTS.md`), and a generated scenario must give
//! one log on Node.

use std::sync::Arc;

use arbitrary::Unstructured;

use crate::ast::{Block, Callback, Expr, ListenerOptions, Op, Scenario, Stmt, Temporary};

/// The registry's binding: the generators' own names are a letter and a
/// number (`c1`, `s3`), so this one cannot collide.
const REGISTRY: &str = "gc_registry";

/// How an overlay is dense: the chance, in 256ths, of each insertion.
#[derive(Clone, Copy, Debug)]
pub struct GcDensity {
    /// A `gc` point after a main-script statement.
    pub main_gc: u8,
    /// A `gc` point at the start or the end of a callback body.
    pub callback_gc: u8,
    /// A `watch` after a `let` that makes an object.
    pub watch: u8,
    /// A `drop` of a binding no callback reads, after its last use.
    pub drop: u8,
}

impl Default for GcDensity {
    fn default() -> Self {
        GcDensity {
            main_gc: 48,
            callback_gc: 24,
            watch: 160,
            drop: 160,
        }
    }
}

/// Whether `op` makes an object a WeakRef can hold (the kinds a GC bug
/// can keep or lose).
fn makes_object(op: &Op) -> bool {
    matches!(
        op,
        Op::NewController
            | Op::SignalAbort { .. }
            | Op::SignalTimeout { .. }
            | Op::SignalAny { .. }
            | Op::NewTarget
            | Op::Function(_)
            | Op::AsyncFunction(_)
            | Op::ListenerObject(_)
            | Op::NewPromise
            | Op::WithResolvers
            | Op::AddAbortListener { .. }
            | Op::NewReadable { .. }
            | Op::NewWritable { .. }
            | Op::NewTransform { .. }
    ) || matches!(op, Op::Value(Expr::Object))
}

/// Whether `op` makes an AbortSignal (whose dependants can be counted).
fn makes_signal(op: &Op) -> bool {
    matches!(
        op,
        Op::SignalAbort { .. } | Op::SignalTimeout { .. } | Op::SignalAny { .. }
    )
}

/// The names the callback blocks of `body` read, at any depth.
fn read_by_callbacks(body: &[Stmt]) -> Vec<String> {
    Block::new(body.to_vec())
        .closed_over_names()
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// The scenario with collection points, drops and observations added,
/// driven by `u`'s bytes. It stays valid: every name it uses is in scope
/// where it stands, and it is resolved again.
pub fn add_gc_points(
    scenario: &Scenario,
    u: &mut Unstructured<'_>,
    density: GcDensity,
) -> Scenario {
    let chance = |u: &mut Unstructured<'_>, p: u8| u.arbitrary::<u8>().is_ok_and(|b| b < p);
    let main: Vec<Stmt> = scenario.body.to_vec();
    let captured = read_by_callbacks(&main);
    // Where each main-script binding is last read at the top level.
    let mut last_use: Vec<(String, usize)> = Vec::new();
    for (i, stmt) in main.iter().enumerate() {
        if let Stmt::Let { name, .. } = stmt {
            last_use.push((name.to_string(), i));
        }
    }
    for (name, at) in &mut last_use {
        for (i, stmt) in main.iter().enumerate().skip(*at + 1) {
            if stmt.reads(name) {
                *at = i;
            }
        }
    }
    let use_registry = chance(u, 128);
    let directives = main
        .iter()
        .take_while(|s| matches!(s, Stmt::Use(_) | Stmt::Comment(_)))
        .count();
    let mut out: Vec<Stmt> = Vec::with_capacity(main.len() * 2);
    out.extend(main[..directives].iter().cloned());
    if use_registry {
        out.push(Stmt::Let {
            name: Arc::from(REGISTRY),
            op: Op::NewRegistry(Callback::Inline(Block::new(vec![Stmt::Log(vec![
                Expr::Str("cleanup".into()),
                Expr::var("held"),
            ])]))),
        });
    }
    let (setup, mut later, network_signals) = network(u);
    let mut watched = usize::from(!setup.is_empty());
    out.extend(setup);
    let mut live_signals: Vec<String> = network_signals;
    let mut dropped: Vec<String> = Vec::new();
    let mut counts = 0usize;
    for (i, stmt) in main.iter().enumerate().skip(directives) {
        let mut stmt = stmt.clone();
        add_callback_gc(&mut stmt, u, density.callback_gc, 0);
        let made = match &stmt {
            Stmt::Let { name, op } if makes_object(op) => {
                Some((name.to_string(), makes_signal(op)))
            }
            _ => None,
        };
        let is_run = matches!(stmt, Stmt::Run(_));
        out.push(stmt);
        if let Some((name, signal)) = made {
            if signal {
                live_signals.push(name.clone());
            }
            if chance(u, density.watch) {
                out.push(Stmt::Watch(Expr::var(&*name)));
                watched += 1;
                if use_registry && chance(u, 96) {
                    out.push(Stmt::Do(Op::Register {
                        registry: Expr::var(REGISTRY),
                        target: Expr::var(&*name),
                        held: Expr::Str(name.clone()),
                        token: None,
                    }));
                }
            }
        }
        // Drops after a binding's last top-level read, when no callback
        // reads it.
        for (name, at) in &last_use {
            if *at == i
                && !captured.contains(name)
                && !dropped.contains(name)
                && chance(u, density.drop)
            {
                out.push(Stmt::Drop(Expr::var(name.as_str())));
                dropped.push(name.clone());
                live_signals.retain(|s| s != name);
            }
        }
        if !is_run && chance(u, density.main_gc) {
            push_gc_point(&mut out, u, watched > 0, &live_signals, &mut counts);
        }
        if !later.is_empty() && chance(u, 64) {
            let (stmt, dropped_name) = later.remove(0);
            if let Some(name) = dropped_name {
                live_signals.retain(|s| *s != name);
            }
            out.push(stmt);
            if chance(u, 128) {
                push_gc_point(&mut out, u, true, &live_signals, &mut counts);
            }
        }
    }
    for (stmt, _) in later {
        out.push(stmt);
    }
    // The last word: what is left once the loop is idle, and the cleanups
    // of what that collection frees, which run in the loop after it.
    out.push(Stmt::Run(crate::ast::RunMode::Idle));
    push_gc_point(&mut out, u, watched > 0, &live_signals, &mut counts);
    let mut result = Scenario::new(out);
    crate::resolve(&mut result);
    result
}

/// `gc`, then `alive` when something is watched, and sometimes the
/// dependant count of a live signal.
fn push_gc_point(
    out: &mut Vec<Stmt>,
    u: &mut Unstructured<'_>,
    watched: bool,
    signals: &[String],
    counts: &mut usize,
) {
    out.push(Stmt::Gc);
    if watched {
        out.push(Stmt::Alive);
    }
    if !signals.is_empty() && u.arbitrary::<u8>().is_ok_and(|b| b < 96) {
        let at = u.choose_index(signals.len()).unwrap_or(0);
        let signal = &signals[at];
        *counts += 1;
        let count = format!("gc_count{counts}");
        out.push(Stmt::Let {
            name: Arc::from(count.as_str()),
            op: Op::Dependants {
                signal: Expr::var(signal.as_str()),
            },
        });
        out.push(Stmt::Log(vec![
            Expr::Str(format!("dependants {signal}")),
            Expr::var(count.as_str()),
        ]));
    }
}

/// Puts `gc` at the start or the end of the callback bodies of `stmt`, at
/// any depth (not after a `return` or a `throw`, where it would not run).
fn add_callback_gc(stmt: &mut Stmt, u: &mut Unstructured<'_>, chance: u8, depth: usize) {
    if depth > 8 {
        return;
    }
    let callbacks = matches!(stmt, Stmt::Let { .. } | Stmt::Do(_));
    for block in stmt.blocks_mut() {
        let mut body = block.body_mut();
        for inner in body.iter_mut() {
            add_callback_gc(inner, u, chance, depth + 1);
        }
        if callbacks && u.arbitrary::<u8>().is_ok_and(|b| b < chance) {
            let at_end = u.arbitrary::<bool>().unwrap_or(false);
            let ends_in_jump = matches!(body.last(), Some(Stmt::Return(_) | Stmt::Throw(_)));
            if at_end && !ends_in_jump {
                body.push(Stmt::Gc);
            } else {
                body.insert(0, Stmt::Gc);
            }
        }
    }
}

/// The overlay's own network of signals (see the module doc): the
/// statements that make it, the later statements (with the signal binding
/// each drops, if any), and the signal bindings it makes.
#[allow(clippy::type_complexity)]
fn network(u: &mut Unstructured<'_>) -> (Vec<Stmt>, Vec<(Stmt, Option<String>)>, Vec<String>) {
    let mut setup = Vec::new();
    let mut later: Vec<(Stmt, Option<String>)> = Vec::new();
    let mut signals: Vec<String> = Vec::new();
    let size = u.int_in_range(0..=4).unwrap_or(0);
    if size == 0 {
        return (setup, later, signals);
    }
    let log_body = |label: String| {
        Block::new(vec![Stmt::Log(vec![
            Expr::Str(label),
            Expr::Prop(Box::new(Expr::var("event")), "type".into()),
        ])])
    };
    let mut controllers = Vec::new();
    let mut composites = Vec::new();
    for i in 1..=size {
        // A source: a controller or a timeout.
        let (name, signal) = if u.arbitrary::<bool>().unwrap_or(true) {
            let name = format!("gc_c{i}");
            setup.push(Stmt::Let {
                name: Arc::from(name.as_str()),
                op: Op::NewController,
            });
            controllers.push(name.clone());
            (
                name.clone(),
                Expr::Prop(Box::new(Expr::var(name.as_str())), "signal".into()),
            )
        } else {
            let name = format!("gc_s{i}");
            let ms = u.int_in_range(1..=20).unwrap_or(5);
            setup.push(Stmt::Let {
                name: Arc::from(name.as_str()),
                op: Op::SignalTimeout { ms },
            });
            signals.push(name.clone());
            (name.clone(), Expr::var(name.as_str()))
        };
        setup.push(Stmt::Watch(Expr::var(name.as_str())));
        // A composite over it, the sources before it and, sometimes, an
        // earlier composite.
        let any = format!("gc_a{i}");
        let mut sources = vec![signal.clone()];
        if let Some(previous) = composites
            .last()
            .filter(|_| u.arbitrary::<bool>().unwrap_or(false))
        {
            sources.push(Expr::var(String::as_str(previous)));
        }
        if i > 1 && u.arbitrary::<bool>().unwrap_or(false) {
            let other = &controllers.first().cloned().unwrap_or_default();
            if !other.is_empty() {
                sources.push(Expr::Prop(
                    Box::new(Expr::var(other.as_str())),
                    "signal".into(),
                ));
            }
        }
        // Sometimes a temporary that no binding holds (`any [timeout 5]`):
        // a timeout, or a composite over this source and a timeout.
        let temporary_timeout = |u: &mut Unstructured<'_>| {
            Expr::Temporary(Box::new(Temporary::Timeout(
                u.int_in_range(1..=20).unwrap_or(5),
            )))
        };
        match u.int_in_range(0..=5).unwrap_or(0) {
            1 => sources.push(temporary_timeout(u)),
            2 => {
                let inner = vec![signal.clone(), temporary_timeout(u)];
                sources.push(Expr::Temporary(Box::new(Temporary::Any {
                    signals: inner,
                    from_set: false,
                })));
            }
            _ => {}
        }
        setup.push(Stmt::Let {
            name: Arc::from(any.as_str()),
            op: Op::SignalAny {
                signals: sources,
                from_set: false,
            },
        });
        setup.push(Stmt::Watch(Expr::var(any.as_str())));
        signals.push(any.clone());
        composites.push(any.clone());
        // Listeners: on the composite, on the source, or none.
        match u.int_in_range(0..=3).unwrap_or(0) {
            1 | 2 => setup.push(Stmt::Do(Op::AddEventListener {
                target: Expr::var(any.as_str()),
                event_type: "abort".into(),
                listener: Callback::Inline(log_body(format!("{any} abort"))),
                options: ListenerOptions::default(),
            })),
            3 => setup.push(Stmt::Do(Op::AddEventListener {
                target: signal.clone(),
                event_type: "abort".into(),
                listener: Callback::Inline(log_body(format!("{name} abort"))),
                options: ListenerOptions::default(),
            })),
            _ => {}
        }
        // Drops: the source's binding, the composite's, both or neither.
        match u.int_in_range(0..=3).unwrap_or(0) {
            1 => later.push((Stmt::Drop(Expr::var(any.as_str())), Some(any.clone()))),
            2 if !name.starts_with("gc_c") => {
                later.push((Stmt::Drop(Expr::var(name.as_str())), Some(name.clone())))
            }
            _ => {}
        }
    }
    // A target whose listener a controller's signal removes on abort.
    if let Some(c) = controllers
        .first()
        .filter(|_| u.arbitrary::<bool>().unwrap_or(false))
    {
        setup.push(Stmt::Let {
            name: Arc::from("gc_t"),
            op: Op::NewTarget,
        });
        setup.push(Stmt::Do(Op::AddEventListener {
            target: Expr::var("gc_t"),
            event_type: "foo".into(),
            listener: Callback::Inline(log_body("gc_t foo".into())),
            options: ListenerOptions {
                signal: Some(Expr::Prop(Box::new(Expr::var(c.as_str())), "signal".into())),
                ..ListenerOptions::default()
            },
        }));
        later.push((Stmt::Gc, None));
        later.push((
            Stmt::Do(Op::Abort {
                controller: Expr::var(c.as_str()),
                reason: None,
            }),
            None,
        ));
        later.push((
            Stmt::Do(Op::Dispatch {
                target: Expr::var("gc_t"),
                event_type: "foo".into(),
                cancelable: false,
            }),
            None,
        ));
    }
    // Later: abort some controllers, drop others.
    for c in &controllers {
        match u.int_in_range(0..=3).unwrap_or(0) {
            0 | 1 => later.push((
                Stmt::Do(Op::Abort {
                    controller: Expr::var(c.as_str()),
                    reason: None,
                }),
                None,
            )),
            2 => later.push((Stmt::Drop(Expr::var(c.as_str())), None)),
            _ => {}
        }
    }
    // Interleave: the order of the later statements is the input's.
    for i in (1..later.len()).rev() {
        let j = u.int_in_range(0..=i).unwrap_or(i);
        later.swap(i, j);
    }
    (setup, later, signals)
}
