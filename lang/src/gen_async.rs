//! Async context in generated scenarios: an overlay that puts
//! AsyncLocalStorages, AsyncResources and native callbacks into a scenario
//! of the abort family.
//!
//! What a rewrite of a callback path breaks is the store a callback sees:
//! the frame a tick, a microtask, a promise reaction, a timer, an immediate
//! or a native callback was given when it was made, and the frame that is
//! current again after it. So the overlay, driven by its own bytes:
//!
//! - makes one or two storages (`als1`, one with a default value) and an
//!   AsyncResource at the start of the main script;
//! - enters stores (`enterWith`, `alsRun`, `alsExit`), disables a storage,
//!   runs code in a resource's scope, binds and snapshots functions and
//!   calls them later, and schedules native callbacks with and without a
//!   resource, whose bodies queue ticks and microtasks;
//! - logs `getStore` between the base scenario's statements and at the
//!   start of its callbacks (ticks, microtasks, timers, immediates,
//!   listeners, reactions, async bodies), so that every way the base
//!   scenario makes a callback shows the frame it was given.

use std::sync::Arc;

use arbitrary::Unstructured;

use crate::ast::{Block, Callback, Expr, Op, Scenario, Stmt};

use crate::gen::byte_chance as chance;

/// What the overlay has made.
struct Made {
    storages: usize,
    /// Whether native callbacks may go through an AsyncResource.
    resource_natives: bool,
    /// Bound functions and snapshots made so far (`acb1`, ...), each
    /// made at the top level, so later top-level statements may call it.
    bound: usize,
    /// A counter for labels.
    labels: usize,
}

impl Made {
    fn storage(&self, u: &mut Unstructured<'_>) -> Expr {
        let i = u.int_in_range(1..=self.storages).unwrap_or(1);
        Expr::var(format!("als{i}"))
    }

    fn store(&mut self, u: &mut Unstructured<'_>) -> Expr {
        match u.int_in_range(0..=5).unwrap_or(0) {
            0 => Expr::Undefined,
            1 => Expr::Object,
            _ => {
                self.labels += 1;
                Expr::Str(format!("s{}", self.labels))
            }
        }
    }

    /// `let acgN = getStore A` then `log "acgN" acgN`.
    fn observe(&mut self, u: &mut Unstructured<'_>) -> Vec<Stmt> {
        self.labels += 1;
        let label = format!("acg{}", self.labels);
        let als = self.storage(u);
        vec![
            Stmt::Let {
                name: Arc::from(label.as_str()),
                op: Op::GetStore { als },
            },
            Stmt::Log(vec![Expr::Str(label.clone()), Expr::var(label.as_str())]),
        ]
    }

    /// A callback body that observes, and at `depth` 0 sometimes queues a
    /// tick, a microtask or a reaction that observes too.
    fn body(&mut self, u: &mut Unstructured<'_>, depth: usize) -> Block {
        let mut body = self.observe(u);
        if depth == 0 {
            for _ in 0..u.int_in_range(0..=2).unwrap_or(0) {
                let inner = self.body(u, depth + 1);
                let op = match u.int_in_range(0..=4).unwrap_or(0) {
                    0 => Op::NextTick(inner),
                    1 => Op::QueueMicrotask(inner),
                    2 => Op::SetImmediate(inner),
                    3 => Op::SetTimeout {
                        ms: u.int_in_range(0..=2).unwrap_or(0),
                        body: inner,
                    },
                    _ => Op::EnterWith {
                        als: self.storage(u),
                        value: self.store(u),
                    },
                };
                body.push(Stmt::Do(op));
            }
        }
        Block::new(body)
    }

    /// One statement (or a few) of the overlay; `top` says whether it is at
    /// the top level, where bound functions are made and called.
    fn statement(&mut self, u: &mut Unstructured<'_>, top: bool) -> Vec<Stmt> {
        match u.int_in_range(0..=12).unwrap_or(0) {
            0..=2 => self.observe(u),
            3 | 4 => vec![Stmt::Do(Op::EnterWith {
                als: self.storage(u),
                value: self.store(u),
            })],
            5 => {
                let als = self.storage(u);
                let value = self.store(u);
                let body = self.body(u, 0);
                vec![Stmt::Do(Op::AlsRun { als, value, body })]
            }
            6 => {
                let als = self.storage(u);
                let body = self.body(u, 0);
                vec![Stmt::Do(Op::AlsExit { als, body })]
            }
            7 => vec![Stmt::Do(Op::DisableAls {
                als: self.storage(u),
            })],
            8 => {
                let body = self.body(u, 0);
                vec![Stmt::Do(Op::RunInAsyncScope {
                    resource: Expr::var("acr"),
                    body,
                })]
            }
            9 | 10 => {
                let body = self.body(u, 0);
                vec![Stmt::Do(Op::NativeCallback {
                    ms: u.int_in_range(0..=2).unwrap_or(0),
                    resource: chance(u, 128) && self.resource_natives,
                    callback: Callback::Inline(body),
                })]
            }
            _ if top => {
                if self.bound > 0 && chance(u, 128) {
                    let i = u.int_in_range(1..=self.bound).unwrap_or(1);
                    return vec![Stmt::Do(Op::Call {
                        function: Expr::var(format!("acb{i}")),
                        args: Vec::new(),
                    })];
                }
                self.bound += 1;
                let name = format!("acb{}", self.bound);
                let resource = chance(u, 96).then(|| Expr::var("acr"));
                vec![Stmt::Let {
                    name: Arc::from(name.as_str()),
                    op: Op::Bind {
                        resource,
                        function: Expr::var("acf"),
                    },
                }]
            }
            _ => self.observe(u),
        }
    }
}

/// The scenario with async context added, driven by `u`'s bytes. It stays
/// valid: what the overlay names is made before the base's first
/// statement, and it is resolved again. Without `resource_natives` no
/// native callback goes through an AsyncResource (Node 26.12.1 runs those
/// without the resource's frame, a known bug: `deviations.toml`).
pub fn add_async_context(
    scenario: &Scenario,
    u: &mut Unstructured<'_>,
    resource_natives: bool,
) -> Scenario {
    let main: Vec<Stmt> = scenario.body.to_vec();
    let directives = main
        .iter()
        .take_while(|s| matches!(s, Stmt::Use(_) | Stmt::Comment(_)))
        .count();
    let mut made = Made {
        storages: u.int_in_range(1..=2).unwrap_or(1),
        resource_natives,
        bound: 0,
        labels: 0,
    };
    let mut out: Vec<Stmt> = Vec::with_capacity(main.len() * 2);
    out.extend(main[..directives].iter().cloned());
    for i in 1..=made.storages {
        let default = (i == 2).then(|| Expr::Str("d".into()));
        out.push(Stmt::Let {
            name: Arc::from(format!("als{i}").as_str()),
            op: Op::NewAls { default },
        });
    }
    if chance(u, 128) {
        let value = made.store(u);
        out.push(Stmt::Do(Op::EnterWith {
            als: Expr::var("als1"),
            value,
        }));
    }
    out.push(Stmt::Let {
        name: Arc::from("acr"),
        op: Op::NewAsyncResource {
            kind: Expr::Str("r".into()),
        },
    });
    let observed = made.body(u, 1);
    out.push(Stmt::Let {
        name: Arc::from("acf"),
        op: Op::Function(observed),
    });
    for stmt in main.iter().skip(directives) {
        let mut stmt = stmt.clone();
        add_to_callbacks(&mut stmt, u, &mut made);
        out.push(stmt);
        if chance(u, 96) {
            let extra = made.statement(u, true);
            out.extend(extra);
        }
    }
    for _ in 0..u.int_in_range(1..=3).unwrap_or(1) {
        let extra = made.statement(u, true);
        out.extend(extra);
    }
    let mut result = Scenario::new(out);
    crate::resolve(&mut result);
    result
}

/// Puts an overlay statement at the start of some callback bodies of
/// `stmt`, at any depth.
fn add_to_callbacks(stmt: &mut Stmt, u: &mut Unstructured<'_>, made: &mut Made) {
    crate::gen::visit_callback_bodies(stmt, 4, &mut |body| {
        if chance(u, 96) {
            let extra = made.statement(u, false);
            for (i, s) in extra.into_iter().enumerate() {
                body.insert(i, s);
            }
        }
    });
}
