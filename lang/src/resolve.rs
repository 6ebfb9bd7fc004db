//! Where each read of a binding finds it, worked out once per scenario
//! instead of by name at every read.
//!
//! An engine keeps a scenario's bindings in scopes, each the bindings of
//! one run of a block, chained outwards:
//!
//! - the main script is one scope, its `let`s in order;
//! - each call of a callback (a listener, `fn`, a reaction, a timer, a
//!   tick...) is a scope of its own, whose parent is the scope the callback
//!   was made in; it holds the callback's `let`s, and the implicit `event`,
//!   `value` or `reason`;
//! - a `try` block, an `if` branch or a round of `repeat` is a scope only if
//!   it declares a `let` itself ([`Block::declares`]): a scope without
//!   bindings cannot be observed (ECMA-262 14.2.2, Block evaluation, makes
//!   one to hold the block's declarations), so none is made.
//!
//! The parser lets no binding shadow another (nor `event`, `value` or
//! `reason`) and none be read before its `let`, and a scope's `let`s run in
//! the order they are written. So a read finds its binding the same number
//! of scopes out every time, at the same index among that scope's `let`s:
//! [`resolve`] writes that place into each [`Binding`]. An engine checks the
//! hint against the name it reads (no other binding of that name can be in
//! the chain), and searches by name when it does not match, for instance
//! after a tool edited the tree without resolving it again.
//!
//! The implicit parameters are left to that search: which callbacks have
//! which is the engines' business.

use crate::ast::{Binding, Block, Expr, Place, Scenario, Stmt};
use std::sync::Arc;

/// Writes into every [`Binding`] of the scenario where it lies, or clears
/// the hints when the scenario breaks the rules that make them sound (a
/// binding that shadows another, which only a tree built by hand can have).
/// Run it again after editing a tree; hints a tool left stale cost speed,
/// not correctness.
pub fn resolve(scenario: &mut Scenario) {
    let mut scopes = Scopes {
        names: vec![Vec::new()],
        shadowed: false,
    };
    scopes.stmts(scenario.body_mut());
    if scopes.shadowed {
        clear(scenario.body_mut());
    }
}

/// The scopes around the statement being resolved, innermost last.
struct Scopes {
    names: Vec<Vec<Arc<str>>>,
    shadowed: bool,
}

/// Names no `let` may take: a callback's implicit parameters.
const PARAMETERS: [&str; 8] = [
    "event",
    "value",
    "reason",
    "controller",
    "chunk",
    "held",
    "arg1",
    "arg2",
];

impl Scopes {
    fn stmts(&mut self, body: &mut [Stmt]) {
        for stmt in body {
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &mut Stmt) {
        match stmt {
            Stmt::Let { name, op } => {
                // The operands run before the binding exists; the
                // operation's callbacks may read it (the parser declares it
                // early for them), as they run later.
                self.operands(op);
                self.declare(name);
            }
            Stmt::Tee { branches, stream } => {
                self.expr(stream);
                for name in branches.iter() {
                    self.declare(name);
                }
            }
            Stmt::Do(op) => self.operands(op),
            Stmt::Log(exprs) => exprs.iter_mut().for_each(|e| self.expr(e)),
            Stmt::Throw(e) | Stmt::Return(Some(e)) | Stmt::Drop(e) | Stmt::Watch(e) => self.expr(e),
            Stmt::If { cond, .. } => self.expr(cond),
            Stmt::Try(_)
            | Stmt::Repeat { .. }
            | Stmt::Return(None)
            | Stmt::Comment(_)
            | Stmt::Run(_)
            | Stmt::Use(_)
            | Stmt::Gc
            | Stmt::Alive => {}
        }
        // An operation's blocks are callbacks, each call a scope; a `try`,
        // `if` or `repeat` block is one if it declares.
        let callbacks = matches!(stmt, Stmt::Let { .. } | Stmt::Do(_));
        for block in stmt.blocks_mut() {
            let scope = callbacks || block.declares();
            self.block(block, scope);
        }
    }

    /// A `let`'s binding, in the innermost scope (noting a shadowing one).
    fn declare(&mut self, name: &Arc<str>) {
        if PARAMETERS.contains(&&**name) || self.find(name).is_some() {
            self.shadowed = true;
        }
        self.names
            .last_mut()
            .expect("the main script's scope")
            .push(Arc::clone(name));
    }

    /// An operation's operands, in the statement's scope.
    fn operands(&mut self, op: &mut crate::ast::Op) {
        for e in op.exprs_mut() {
            self.expr(e);
        }
    }

    fn block(&mut self, block: &mut Block, scope: bool) {
        if scope {
            self.names.push(Vec::new());
        }
        self.stmts(block.body_mut().as_mut_slice());
        if scope {
            self.names.pop();
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        match e {
            Expr::Var(binding) => binding.place = self.find(&binding.name),
            other => other.for_each_operand_mut(|operand| self.expr(operand)),
        }
    }

    /// The nearest `let` of `name` in the scopes.
    fn find(&self, name: &str) -> Option<Place> {
        self.names
            .iter()
            .rev()
            .enumerate()
            .find_map(|(hops, names)| {
                let slot = names.iter().position(|n| &**n == name)?;
                Some(Place {
                    hops: u32::try_from(hops).ok()?,
                    slot: u32::try_from(slot).ok()?,
                })
            })
    }
}

/// Clears every hint.
fn clear(body: &mut [Stmt]) {
    fn expr(e: &mut Expr) {
        match e {
            Expr::Var(Binding { place, .. }) => *place = None,
            other => other.for_each_operand_mut(expr),
        }
    }
    for stmt in body {
        match stmt {
            Stmt::Let { op, .. } | Stmt::Do(op) => op.exprs_mut().into_iter().for_each(expr),
            Stmt::Log(exprs) => exprs.iter_mut().for_each(expr),
            Stmt::Throw(e) | Stmt::Return(Some(e)) | Stmt::Tee { stream: e, .. } => expr(e),
            Stmt::If { cond, .. } => expr(cond),
            _ => {}
        }
        for block in stmt.blocks_mut() {
            clear(block.body_mut().as_mut_slice());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::Op;

    /// The places of the scenario's reads, in source order, by name.
    fn places(scenario: &Scenario) -> Vec<(String, Option<Place>)> {
        fn walk(body: &[Stmt], out: &mut Vec<(String, Option<Place>)>) {
            fn expr(e: &Expr, out: &mut Vec<(String, Option<Place>)>) {
                match e {
                    Expr::Var(b) => out.push((b.name.clone(), b.place)),
                    Expr::Prop(base, _) | Expr::TypeOf(base) => expr(base, out),
                    _ => {}
                }
            }
            for stmt in body {
                match stmt {
                    Stmt::Let { op, .. } | Stmt::Do(op) => {
                        op.exprs().into_iter().for_each(|e| expr(e, out))
                    }
                    Stmt::Log(exprs) => exprs.iter().for_each(|e| expr(e, out)),
                    Stmt::If { cond, .. } => expr(cond, out),
                    _ => {}
                }
                for block in stmt.blocks() {
                    walk(block.body(), out);
                }
            }
        }
        let mut out = Vec::new();
        walk(&scenario.body, &mut out);
        out
    }

    fn at(hops: u32, slot: u32) -> Option<Place> {
        Some(Place { hops, slot })
    }

    #[test]
    fn a_read_is_resolved_to_the_scope_and_let_of_its_binding() {
        let text = "\
let c = controller
let t = target
on t go {
  log c.signal.aborted event.type
  try {
    log t
  }
  try {
    let inner = target
    log inner c
  }
  if true {
    log t
  }
}
let f = fn {
  off t again f
}
";
        let scenario = crate::parse("resolve.scn", text).expect("a valid scenario");
        let names = |p: &[(String, Option<Place>)]| -> Vec<String> {
            p.iter().map(|(n, _)| n.clone()).collect()
        };
        let found = places(&scenario);
        assert_eq!(
            names(&found),
            ["t", "c", "event", "t", "inner", "c", "t", "t", "f"]
        );
        let expected = [
            at(0, 1), // `on t`: the operand, in the main script
            at(1, 0), // c, from the listener's call
            None,     // event: left to the engines
            at(1, 1), // a `try` without a `let` is no scope
            at(0, 0), // inner, in the `try` that declares it
            at(2, 0), // c, through the `try` and the call
            at(1, 1), // an `if` without a `let` is no scope
            at(1, 1), // `off t` inside the function
            at(1, 2), // f, declared early for its own body
        ];
        let got: Vec<Option<Place>> = found.iter().map(|(_, p)| *p).collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn a_tree_that_shadows_a_binding_gets_no_hints() {
        // `let c` inside a callback that sees the main script's `c`: the
        // parser refuses it, a tree built by hand need not.
        let inner = Block::new(vec![
            Stmt::Let {
                name: "c".into(),
                op: Op::NewController,
            },
            Stmt::Log(vec![Expr::var("c")]),
        ]);
        let mut scenario = Scenario::new(vec![
            Stmt::Let {
                name: "c".into(),
                op: Op::NewController,
            },
            Stmt::Do(Op::QueueMicrotask(inner)),
            Stmt::Log(vec![Expr::var("c")]),
        ]);
        resolve(&mut scenario);
        let found = places(&scenario);
        assert_eq!(found.len(), 2);
        assert!(found.iter().all(|(_, p)| p.is_none()), "{found:?}");
        // Without the shadowing `let`, both reads are resolved.
        let Stmt::Do(Op::QueueMicrotask(block)) = &mut scenario.body_mut()[1] else {
            unreachable!()
        };
        block.body_mut().remove(0);
        resolve(&mut scenario);
        let got: Vec<Option<Place>> = places(&scenario).iter().map(|(_, p)| *p).collect();
        assert_eq!(got, [at(1, 0), at(0, 0)]);
    }

    #[test]
    fn hints_are_not_part_of_the_script() {
        let resolved = crate::parse("a.scn", "let c = controller\nlog c\n").unwrap();
        let plain = Scenario::new(vec![
            Stmt::Let {
                name: "c".into(),
                op: Op::NewController,
            },
            Stmt::Log(vec![Expr::var("c")]),
        ]);
        assert_ne!(places(&resolved), places(&plain));
        assert_eq!(resolved, plain);
        assert_eq!(crate::print(&resolved), crate::print(&plain));
        assert_eq!(
            serde_json::to_string(&resolved).unwrap(),
            serde_json::to_string(&plain).unwrap()
        );
    }
}
