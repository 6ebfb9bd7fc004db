//! EventEmitters in generated scenarios: an overlay that puts emitters,
//! their listeners and emits into a scenario of the abort family.
//!
//! The EventEmitter's hot paths (the `once` wrapper, removal during an
//! emit, the listener array's snapshot, `'newListener'` and
//! `'removeListener'`, the unhandled `'error'`, the max-listeners warning)
//! are what its optimizations rewrite, and they go wrong where they meet:
//! a listener that removes another, or the one being run, or emits again;
//! an emit from a tick or a timer while another listener is being added.
//! So the overlay, driven by its own bytes:
//!
//! - makes one or two emitters (`ee1`, `ee2`) and some listener functions
//!   (`eef1` ...) at the start of the main script, sometimes with a
//!   maximum of listeners;
//! - adds listeners of a few names (strings, `error`, `newListener`,
//!   `removeListener`, a symbol) with `addListener`, `prependListener`,
//!   `once` and `prependOnceListener`, inline ones whose bodies log their
//!   arguments and sometimes emit, remove a listener, add one or throw;
//! - emits with arguments, removes listeners (one, all of a name, all),
//!   and logs `listenerCount`, `eventNames`, `listeners` and
//!   `rawListeners`, between the base scenario's statements and inside its
//!   callbacks (ticks, microtasks, timers, listeners), so that emits meet
//!   the event loop's order;
//! - listens with `events.errorMonitor` as a name, so that emits of
//!   `'error'` meet the monitor's listeners (which may remove all, add an
//!   `'error'` listener or throw);
//! - sometimes sets `events.defaultMaxListeners` first (so that emitters
//!   and the base's EventTargets warn early) or later (valid or not), and
//!   logs it and `eventsKeyCount`;
//! - waits with `onceEvent` (`events.once`), with or without the signal of
//!   its own controller `eeac`, which an overlay statement may abort, and
//!   logs how the promise settles;
//! - makes some emitters with `captureRejections`, adds an async listener
//!   (`eea1`, which throws at once or after an `await`) among the others,
//!   and sometimes gives an emitter a `Symbol.for('nodejs.rejection')`
//!   method (`onRejection`), so that rejections meet `addCatch`'s tick;
//! - iterates with `onEvents` (`events.on`), with or without the signal of
//!   `eeac`, a `close` name and small watermarks: one to three `next`
//!   reads whose reactions log how they settle, sometimes an emit between
//!   them, an `iterThrow` and an `iterReturn` after them, so that later
//!   emits, errors and aborts meet waiting reads.

use std::sync::Arc;

use arbitrary::Unstructured;

use crate::ast::{Block, Callback, Expr, OnEvents, Op, Scenario, Stmt};

/// Event names: two plain ones that meet often, the special ones, and a
/// quoted one the printer has to escape.
const NAMES: &[&str] = &[
    "a",
    "a",
    "b",
    "error",
    "newListener",
    "removeListener",
    "my event",
];

/// The symbol name's binding.
const SYMBOL: &str = "ees";

/// The binding of the overlay's controller, whose signal `onceEvent` takes.
const CONTROLLER: &str = "eeac";

use crate::gen::byte_chance as chance;

/// The binding of the overlay's async listener.
const ASYNC_LISTENER: &str = "eea1";

/// What the overlay has made: emitters and listener functions.
struct Made {
    emitters: usize,
    functions: usize,
    /// A counter for inline listeners' labels.
    labels: usize,
}

impl Made {
    fn emitter(&self, u: &mut Unstructured<'_>) -> Expr {
        let i = u.int_in_range(1..=self.emitters).unwrap_or(1);
        Expr::var(format!("ee{i}"))
    }

    fn function(&self, u: &mut Unstructured<'_>) -> Expr {
        let i = u.int_in_range(1..=self.functions).unwrap_or(1);
        Expr::var(format!("eef{i}"))
    }

    fn name(&self, u: &mut Unstructured<'_>) -> Expr {
        if chance(u, 24) {
            return Expr::var(SYMBOL);
        }
        if chance(u, 24) {
            return Expr::ErrorMonitor;
        }
        let at = u.choose_index(NAMES.len()).unwrap_or(0);
        Expr::Str(NAMES[at].to_string())
    }

    fn arg(u: &mut Unstructured<'_>) -> Expr {
        match u.int_in_range(0..=4).unwrap_or(0) {
            0 => Expr::Int(u.int_in_range(0..=9).unwrap_or(1)),
            1 => Expr::Str("x".into()),
            2 => Expr::NewError("boom".into()),
            3 => Expr::Undefined,
            _ => Expr::Object,
        }
    }

    /// An inline listener's body: it logs its label and arguments, and
    /// sometimes acts on an emitter (at `depth` 0 only, so bodies stay
    /// small and emits cannot recurse without bound beyond the budget).
    fn listener_body(&mut self, u: &mut Unstructured<'_>, depth: usize) -> Block {
        self.labels += 1;
        let mut shown = vec![
            Expr::Str(format!("l{}", self.labels)),
            Expr::var("arg1"),
            Expr::var("arg2"),
        ];
        // Functions all print as `[Function]`: whether 'newListener' and
        // 'removeListener' pass a listener or its once wrapper shows only
        // by identity.
        if chance(u, 96) {
            shown.push(Expr::Same(
                Box::new(Expr::var("arg2")),
                Box::new(self.function(u)),
            ));
        }
        let mut body = vec![Stmt::Log(shown)];
        if depth == 0 {
            match u.int_in_range(0..=9).unwrap_or(0) {
                0 => body.push(self.emit(u)),
                1 => body.push(self.remove(u)),
                2 => body.push(self.add(u, depth + 1)),
                3 => body.push(Stmt::Throw(Expr::NewError("listener".into()))),
                4 => body.push(self.count(u)),
                _ => {}
            }
        }
        Block::new(body)
    }

    fn add(&mut self, u: &mut Unstructured<'_>, depth: usize) -> Stmt {
        let emitter = self.emitter(u);
        let name = self.name(u);
        let listener = if chance(u, 32) {
            Callback::Value(Expr::var(ASYNC_LISTENER))
        } else if chance(u, 96) {
            Callback::Value(self.function(u))
        } else {
            Callback::Inline(self.listener_body(u, depth))
        };
        let prepend = chance(u, 64);
        // Not a `once` 'removeListener' listener added by a listener: one
        // added by a 'removeListener' listener makes a chain of once
        // wrappers that each remove themselves inside the emit of the one
        // before, a recursion of Node's own frames that no script callback
        // nests in (so the depth budget does not see it): real Node
        // overflows its stack (a RangeError the engines do not model)
        // where the engines stop at the callback budget.
        let once = chance(u, 96) && !(depth > 0 && name == Expr::Str("removeListener".into()));
        Stmt::Do(Op::EmitterAdd {
            emitter,
            name,
            listener,
            prepend,
            once,
        })
    }

    fn emit(&mut self, u: &mut Unstructured<'_>) -> Stmt {
        let emitter = self.emitter(u);
        let name = self.name(u);
        let count = u.int_in_range(0..=2).unwrap_or(0);
        let args = (0..count).map(|_| Made::arg(u)).collect();
        let emit = Op::Emit {
            emitter,
            name,
            args,
        };
        if chance(u, 64) {
            // Logged by a `let` of its own: whether it had listeners.
            self.labels += 1;
            let label = format!("eer{}", self.labels);
            return Stmt::Try(Block::new(vec![
                Stmt::Let {
                    name: Arc::from(label.as_str()),
                    op: emit,
                },
                Stmt::Log(vec![Expr::Str("emitted".into()), Expr::var(label.as_str())]),
            ]));
        }
        Stmt::Try(Block::new(vec![Stmt::Do(emit)]))
    }

    fn remove(&mut self, u: &mut Unstructured<'_>) -> Stmt {
        let emitter = self.emitter(u);
        match u.int_in_range(0..=5).unwrap_or(0) {
            0 => Stmt::Do(Op::EmitterRemoveAll {
                emitter,
                name: None,
            }),
            1 => Stmt::Do(Op::EmitterRemoveAll {
                emitter,
                name: Some(self.name(u)),
            }),
            _ => Stmt::Do(Op::EmitterRemove {
                emitter,
                name: self.name(u),
                listener: self.function(u),
            }),
        }
    }

    fn count(&mut self, u: &mut Unstructured<'_>) -> Stmt {
        self.labels += 1;
        let label = format!("eec{}", self.labels);
        let emitter = self.emitter(u);
        let op = match u.int_in_range(0..=6).unwrap_or(0) {
            0 => Op::EventNames { emitter },
            5 => Op::EventsKeyCount { emitter },
            6 => Op::Value(Expr::DefaultMaxListeners),
            1 => Op::EmitterListeners {
                emitter,
                name: self.name(u),
                raw: chance(u, 128),
            },
            2 => Op::EmitterListenerCount {
                emitter,
                name: self.name(u),
                listener: Some(self.function(u)),
            },
            _ => Op::EmitterListenerCount {
                emitter,
                name: self.name(u),
                listener: None,
            },
        };
        Stmt::Try(Block::new(vec![
            Stmt::Let {
                name: Arc::from(label.as_str()),
                op,
            },
            Stmt::Log(vec![Expr::Str(label.clone()), Expr::var(label.as_str())]),
        ]))
    }

    /// `let eeoN = onceEvent E NAME [signal eeac.signal]` and a reaction
    /// that logs how it settles.
    fn once_event(&mut self, u: &mut Unstructured<'_>) -> Stmt {
        self.labels += 1;
        let label = format!("eeo{}", self.labels);
        let emitter = self.emitter(u);
        let name = self.name(u);
        let signal = chance(u, 128).then(|| Expr::var(CONTROLLER).prop("signal"));
        Stmt::Try(Block::new(vec![
            Stmt::Let {
                name: Arc::from(label.as_str()),
                op: Op::OnceEvent {
                    emitter,
                    name,
                    signal,
                },
            },
            Stmt::Do(Op::Then {
                promise: Expr::var(label.as_str()),
                on_fulfilled: Some(Block::new(vec![Stmt::Log(vec![
                    Expr::Str(label.clone()),
                    Expr::var("value"),
                ])])),
                on_rejected: Some(Block::new(vec![Stmt::Log(vec![
                    Expr::Str(format!("{label} rejected")),
                    Expr::var("reason"),
                ])])),
            }),
        ]))
    }

    /// `let eeiN = onEvents E NAME [signal eeac.signal]`, then one to three
    /// `next` reads whose reactions log how they settle, sometimes an emit
    /// among them, and sometimes `iterReturn` at the end.
    fn on_events(&mut self, u: &mut Unstructured<'_>) -> Stmt {
        self.labels += 1;
        let label = format!("eei{}", self.labels);
        let emitter = self.emitter(u);
        let name = self.name(u);
        let signal = chance(u, 96).then(|| Expr::var(CONTROLLER).prop("signal"));
        let close = chance(u, 48).then(|| self.name(u));
        // Small watermarks: past the high one, `events.on` calls the
        // `pause()` an EventEmitter does not have.
        let high_water_mark = chance(u, 32).then(|| Expr::Int(u.int_in_range(0..=2).unwrap_or(1)));
        let low_water_mark = chance(u, 32).then(|| Expr::Int(u.int_in_range(1..=3).unwrap_or(1)));
        let mut body = vec![Stmt::Let {
            name: Arc::from(label.as_str()),
            op: Op::OnEvents(Box::new(OnEvents {
                emitter,
                name,
                signal,
                close,
                high_water_mark,
                low_water_mark,
            })),
        }];
        let logged = |shown: String, promise: &str| {
            Stmt::Do(Op::Then {
                promise: Expr::var(promise),
                on_fulfilled: Some(Block::new(vec![Stmt::Log(vec![
                    Expr::Str(shown.clone()),
                    Expr::var("value"),
                ])])),
                on_rejected: Some(Block::new(vec![Stmt::Log(vec![
                    Expr::Str(format!("{shown} rejected")),
                    Expr::var("reason"),
                ])])),
            })
        };
        for k in 1..=u.int_in_range(1..=3).unwrap_or(1) {
            if chance(u, 64) {
                body.push(self.emit(u));
            }
            let read = format!("{label}n{k}");
            body.push(Stmt::Let {
                name: Arc::from(read.as_str()),
                op: Op::Next {
                    iterator: Expr::var(label.as_str()),
                },
            });
            body.push(logged(read.clone(), &read));
        }
        if chance(u, 32) {
            let value = if chance(u, 200) {
                Expr::NewError("thrown in".into())
            } else {
                Expr::Str("no error".into())
            };
            body.push(Stmt::Do(Op::IterThrow {
                iterator: Expr::var(label.as_str()),
                value,
            }));
        }
        if chance(u, 80) {
            let ret = format!("{label}r");
            body.push(Stmt::Let {
                name: Arc::from(ret.as_str()),
                op: Op::IterReturn {
                    iterator: Expr::var(label.as_str()),
                    value: None,
                },
            });
            body.push(logged(ret.clone(), &ret));
        }
        Stmt::Try(Block::new(body))
    }

    /// `onRejection E F`, F a listener function or a value.
    fn on_rejection(&mut self, u: &mut Unstructured<'_>) -> Stmt {
        let emitter = self.emitter(u);
        let function = if chance(u, 200) {
            self.function(u)
        } else {
            Expr::Int(1)
        };
        Stmt::Try(Block::new(vec![Stmt::Do(Op::OnRejection {
            emitter,
            function,
        })]))
    }

    /// `setDefaultMaxListeners N`, N sometimes one the setter refuses.
    fn set_default(u: &mut Unstructured<'_>) -> Stmt {
        let n = match u.int_in_range(0..=5).unwrap_or(0) {
            4 => Expr::Int(-1),
            5 => Expr::Str("2".into()),
            n => Expr::Int(n),
        };
        Stmt::Try(Block::new(vec![Stmt::Do(Op::SetDefaultMaxListeners { n })]))
    }

    /// One statement of the overlay.
    fn statement(&mut self, u: &mut Unstructured<'_>) -> Stmt {
        match u.int_in_range(0..=16).unwrap_or(0) {
            0..=3 => self.add(u, 0),
            4..=6 => self.emit(u),
            7 => self.remove(u),
            8 | 9 => self.once_event(u),
            10 => Stmt::Do(Op::Abort {
                controller: Expr::var(CONTROLLER),
                reason: Some(Expr::Str("stop".into())),
            }),
            11 => Made::set_default(u),
            12 | 13 => self.on_events(u),
            14 => self.on_rejection(u),
            _ => self.count(u),
        }
    }
}

/// The scenario with emitters added, driven by `u`'s bytes. It stays
/// valid: the emitters and functions are made before the base's first
/// statement, and it is resolved again.
pub fn add_emitters(scenario: &Scenario, u: &mut Unstructured<'_>) -> Scenario {
    let main: Vec<Stmt> = scenario.body.to_vec();
    let directives = main
        .iter()
        .take_while(|s| matches!(s, Stmt::Use(_) | Stmt::Comment(_)))
        .count();
    let mut made = Made {
        emitters: u.int_in_range(1..=2).unwrap_or(1),
        functions: u.int_in_range(1..=3).unwrap_or(1),
        labels: 0,
    };
    let mut out: Vec<Stmt> = Vec::with_capacity(main.len() * 2);
    out.extend(main[..directives].iter().cloned());
    if chance(u, 40) {
        out.push(Made::set_default(u));
    }
    out.push(Stmt::Let {
        name: Arc::from(CONTROLLER),
        op: Op::NewController,
    });
    for i in 1..=made.emitters {
        let name = format!("ee{i}");
        let op = if chance(u, 96) {
            Op::NewCapturingEmitter
        } else {
            Op::NewEmitter
        };
        out.push(Stmt::Let {
            name: Arc::from(name.as_str()),
            op,
        });
        if chance(u, 48) {
            out.push(Stmt::Do(Op::SetMaxListeners {
                n: Expr::Int(u.int_in_range(0..=3).unwrap_or(1)),
                targets: vec![Expr::var(name.as_str())],
            }));
        }
    }
    out.push(Stmt::Let {
        name: Arc::from(SYMBOL),
        op: Op::Value(Expr::Symbol(Some("s".into()))),
    });
    for i in 1..=made.functions {
        let name = format!("eef{i}");
        // A `fn` body sees its first argument as `event`.
        out.push(Stmt::Let {
            name: Arc::from(name.as_str()),
            op: Op::Function(Block::new(vec![Stmt::Log(vec![
                Expr::Str(name.clone()),
                Expr::var("event"),
            ])])),
        });
    }
    // An async listener: it logs, then rejects at once or after an
    // `await` (its promise is what `addCatch` sees).
    let mut body = vec![Stmt::Log(vec![
        Expr::Str(ASYNC_LISTENER.into()),
        Expr::var("event"),
    ])];
    if chance(u, 128) {
        body.push(Stmt::Do(Op::Await(Expr::Null)));
    }
    body.push(Stmt::Throw(Expr::NewError("rejected".into())));
    out.push(Stmt::Let {
        name: Arc::from(ASYNC_LISTENER),
        op: Op::AsyncFunction(Block::new(body)),
    });
    for _ in 0..u.int_in_range(1..=4).unwrap_or(2) {
        let stmt = made.add(u, 0);
        out.push(stmt);
    }
    for stmt in main.iter().skip(directives) {
        let mut stmt = stmt.clone();
        add_to_callbacks(&mut stmt, u, &mut made);
        out.push(stmt);
        if chance(u, 96) {
            let extra = made.statement(u);
            out.push(extra);
        }
    }
    for _ in 0..u.int_in_range(0..=3).unwrap_or(1) {
        let stmt = made.statement(u);
        out.push(stmt);
    }
    let mut result = Scenario::new(out);
    crate::resolve(&mut result);
    result
}

/// Puts an overlay statement at the start of some callback bodies of
/// `stmt` (ticks, microtasks, timers, listeners, reactions), at any depth.
fn add_to_callbacks(stmt: &mut Stmt, u: &mut Unstructured<'_>, made: &mut Made) {
    crate::gen::visit_callback_bodies(stmt, 4, &mut |body| {
        if chance(u, 40) {
            let extra = made.statement(u);
            body.insert(0, extra);
        }
    });
}
