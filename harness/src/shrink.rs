//! The shrinker: a divergent scenario cut down to a small one that still
//! diverges in the same way.
//!
//! A generated scenario that shows a bug is 40 to 200 statements long; a
//! user acts on five. The shrinker is delta debugging over the scenario's
//! syntax tree, greedy and to a fixpoint: it tries candidates that are
//! smaller or simpler than the current scenario and keeps the first that
//! still *keeps the divergence*, meaning the same pair of engines still
//! differs with the same [`Signature`] (the shape of the first differing
//! line on both sides), so that shrinking does not wander to another bug.
//! Candidates, in the order tried:
//!
//! 1. removing statements: chunks of every statement list (the main script
//!    and every block), halves first, then quarters, down to single
//!    statements, which also empties callback bodies;
//! 2. hoisting: a statement replaced by the statements of one of its blocks
//!    (a `try` or a callback body spliced into its place);
//! 3. simplifying: optional operands dropped (a reason, a resolution), flags
//!    and options removed, values made smaller (`""`, `0`, `Error("")`,
//!    a `repeat` count to 1, half or one less),
//!    delays made shorter, `let x = OP` made `OP`;
//! 4. at the end, bindings renamed canonically (`c1` for a controller, `t1`
//!    for a target, ... in order of declaration) and the result printed in
//!    canonical form.
//!
//! A directive (`use module`) is a statement like any other here: removing
//! it is tried too, and kept only when the divergence survives without it
//! (the signature check is what keeps a divergence that needs the ES module
//! order), so the finding is as small as the bug allows and says `use
//! module` only when the bug needs it.
//!
//! Against an engine that is not deterministic (real Node), a candidate
//! that keeps the divergence is rerun before it is kept
//! ([`crate::check::rerun_instability`]): a log that changes from run to run
//! could otherwise lead the shrinker from a real divergence to a flaky one,
//! which would then be the finding. An unstable candidate counts as not
//! keeping it.
//!
//! Every candidate is validated (printed and parsed back) before it runs,
//! so the result is always a valid scenario. Candidates run in batches
//! through [`Engine::run_batch`], so that shrinking against a Node engine
//! uses its worker processes.

use std::time::{Duration, Instant};

use nodesem_lang::{validate, Engine, Expr, Op, RunConfig, RunMode, Scenario, Stmt};

use crate::signature::Signature;

/// How a shrink runs.
#[derive(Clone, Copy, Debug)]
pub struct ShrinkConfig {
    /// The limits the engines run each candidate with.
    pub run: RunConfig,
    /// How many candidates run together (1 for in-process engines; more
    /// when an engine is a Node process, whose batches are cheaper).
    pub batch: usize,
    /// The most candidates to try before stopping with what is left.
    pub max_candidates: usize,
    /// The longest a shrink may take before it stops with what is left.
    pub max_time: Duration,
}

impl Default for ShrinkConfig {
    fn default() -> Self {
        ShrinkConfig {
            run: RunConfig::default(),
            batch: 1,
            max_candidates: 20_000,
            max_time: Duration::from_secs(120),
        }
    }
}

/// What a shrink produced.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The smallest scenario found that keeps the divergence.
    pub scenario: Scenario,
    /// The signature it keeps.
    pub signature: Signature,
    /// How many candidates ran.
    pub candidates: usize,
    /// How many of those kept the divergence on a first run and were run
    /// again to see that it held (none between deterministic engines).
    pub reruns: usize,
    /// Statements (all blocks included, comments not) before and after.
    pub statements: (usize, usize),
    /// How long it took.
    pub elapsed: Duration,
}

/// The signature of `scenario`'s divergence between the two engines, or
/// `None` when their logs agree. An engine failure is a divergence too.
pub fn divergence(
    engines: [&dyn Engine; 2],
    scenario: &Scenario,
    config: &RunConfig,
) -> Option<Signature> {
    divergences(engines, std::slice::from_ref(scenario), config)
        .pop()
        .flatten()
}

/// [`divergence`] of each scenario, the engines running them as a batch.
pub fn divergences(
    engines: [&dyn Engine; 2],
    scenarios: &[Scenario],
    config: &RunConfig,
) -> Vec<Option<Signature>> {
    let names = [engines[0].name(), engines[1].name()];
    let (ra, rb) = std::thread::scope(|scope| {
        let a = scope.spawn(|| engines[0].run_batch(scenarios, config));
        let b = engines[1].run_batch(scenarios, config);
        (a.join().unwrap_or_default(), b)
    });
    (0..scenarios.len())
        .map(|i| match (ra.get(i), rb.get(i)) {
            (Some(Ok(a)), Some(Ok(b))) => Signature::of_logs(names.clone(), a, b),
            (Some(Err(e)), _) | (_, Some(Err(e))) => {
                Some(Signature::of_failure(names.clone(), failure_kind(e)))
            }
            _ => Some(Signature::of_failure(names.clone(), "failed")),
        })
        .collect()
}

fn failure_kind(e: &nodesem_lang::EngineError) -> &'static str {
    match e {
        nodesem_lang::EngineError::Crashed(_) => "crashed",
        nodesem_lang::EngineError::TimedOut(_) => "timed out",
        nodesem_lang::EngineError::Failed(_) => "failed",
    }
}

/// Shrinks `scenario`, which diverges between the engines with `signature`.
pub fn shrink(
    engines: [&dyn Engine; 2],
    scenario: &Scenario,
    signature: &Signature,
    config: &ShrinkConfig,
) -> Shrunk {
    let start = Instant::now();
    let mut search = Search {
        engines,
        signature,
        config,
        start,
        candidates: 0,
        reruns: 0,
    };
    let mut current = scenario.clone();
    strip_comments(current.body_mut());
    loop {
        let mut progress = false;
        for pass in [removals as Pass, hoistings, simplifications] {
            while let Some(better) = search.first_keeping(pass(&current)) {
                current = better;
                progress = true;
            }
        }
        if !progress || search.exhausted() {
            break;
        }
    }
    let renamed = canonical_names(&current);
    if renamed != current && search.first_keeping(vec![renamed.clone()]).is_some() {
        current = renamed;
    }
    Shrunk {
        statements: (
            count_statements(&scenario.body),
            count_statements(&current.body),
        ),
        scenario: current,
        signature: signature.clone(),
        candidates: search.candidates,
        reruns: search.reruns,
        elapsed: start.elapsed(),
    }
}

type Pass = fn(&Scenario) -> Vec<Scenario>;

struct Search<'a> {
    engines: [&'a dyn Engine; 2],
    signature: &'a Signature,
    config: &'a ShrinkConfig,
    start: Instant,
    candidates: usize,
    reruns: usize,
}

impl Search<'_> {
    fn exhausted(&self) -> bool {
        self.candidates >= self.config.max_candidates
            || self.start.elapsed() >= self.config.max_time
    }

    /// Whether a candidate that kept the divergence keeps it when rerun
    /// (always, between deterministic engines).
    fn stable(&mut self, candidate: &Scenario) -> bool {
        if self.engines.iter().all(|e| e.deterministic()) {
            return true;
        }
        self.reruns += 1;
        crate::check::rerun_instability(self.engines, candidate, &self.config.run).is_none()
    }

    /// The first candidate, in order, that is valid and keeps the
    /// divergence, stably.
    fn first_keeping(&mut self, candidates: Vec<Scenario>) -> Option<Scenario> {
        // Each candidate is an edited tree: resolved again, so that the
        // engines find its bindings by the quick path.
        let valid: Vec<Scenario> = candidates
            .into_iter()
            .filter(|c| validate(c).is_ok())
            .map(|mut c| {
                nodesem_lang::resolve(&mut c);
                c
            })
            .collect();
        for batch in valid.chunks(self.config.batch.max(1)) {
            if self.exhausted() {
                return None;
            }
            self.candidates += batch.len();
            let found = divergences(self.engines, batch, &self.config.run);
            let keeping = found
                .iter()
                .enumerate()
                .filter(|(_, s)| s.as_ref() == Some(self.signature));
            for (i, _) in keeping {
                if self.stable(&batch[i]) {
                    return Some(batch[i].clone());
                }
            }
        }
        None
    }
}

// ---- walking the tree ---------------------------------------------------------------------

/// Calls `f` on every statement list, the main script first, then each
/// block in pre-order, with its index in that order.
fn for_each_list(body: &mut Vec<Stmt>, f: &mut dyn FnMut(usize, &mut Vec<Stmt>), next: &mut usize) {
    f(*next, body);
    *next += 1;
    for stmt in body.iter_mut() {
        for block in stmt.blocks_mut() {
            for_each_list(&mut block.body_mut(), f, next);
        }
    }
}

/// Every statement list of a scenario, in the order [`for_each_list`]
/// numbers them, read without copying anything.
fn lists(scenario: &Scenario) -> Vec<&[Stmt]> {
    fn walk<'a>(body: &'a [Stmt], out: &mut Vec<&'a [Stmt]>) {
        out.push(body);
        for stmt in body {
            for block in stmt.blocks() {
                walk(block.body(), out);
            }
        }
    }
    let mut out = Vec::new();
    walk(&scenario.body, &mut out);
    out
}

/// A copy of `scenario` with `edit` applied to its `k`-th statement list.
fn edit_list(scenario: &Scenario, k: usize, edit: &mut dyn FnMut(&mut Vec<Stmt>)) -> Scenario {
    let mut copy = scenario.clone();
    let mut next = 0;
    for_each_list(
        copy.body_mut(),
        &mut |i, list| {
            if i == k {
                edit(list);
            }
        },
        &mut next,
    );
    copy
}

fn count_statements(body: &[Stmt]) -> usize {
    body.iter()
        .map(|stmt| {
            let nested: usize = stmt
                .blocks()
                .iter()
                .map(|b| count_statements(b.body()))
                .sum();
            usize::from(!matches!(stmt, Stmt::Comment(_))) + nested
        })
        .sum()
}

fn strip_comments(body: &mut Vec<Stmt>) {
    body.retain(|s| !matches!(s, Stmt::Comment(_)));
    for stmt in body.iter_mut() {
        for block in stmt.blocks_mut() {
            strip_comments(&mut block.body_mut());
        }
    }
}

// ---- the passes -----------------------------------------------------------------------------

/// Removing chunks of statements from each list: large chunks first.
fn removals(scenario: &Scenario) -> Vec<Scenario> {
    let mut out = Vec::new();
    let lengths: Vec<usize> = lists(scenario).iter().map(|l| l.len()).collect();
    let longest = lengths.iter().copied().max().unwrap_or(0);
    let mut size = longest.next_power_of_two().max(1);
    while size >= 1 {
        for (k, &len) in lengths.iter().enumerate() {
            if len < size {
                continue;
            }
            let mut start = 0;
            while start < len {
                let end = (start + size).min(len);
                out.push(edit_list(scenario, k, &mut |list| {
                    list.drain(start..end);
                }));
                start = end;
            }
        }
        size /= 2;
    }
    out
}

/// A statement replaced by the statements of one of its blocks.
fn hoistings(scenario: &Scenario) -> Vec<Scenario> {
    let mut out = Vec::new();
    for (k, list) in lists(scenario).into_iter().enumerate() {
        for (i, stmt) in list.iter().enumerate() {
            let inner: Vec<Vec<Stmt>> = stmt
                .blocks()
                .into_iter()
                .map(|b| b.body().to_vec())
                .collect();
            for body in inner {
                out.push(edit_list(scenario, k, &mut |list| {
                    list.splice(i..=i, body.iter().cloned());
                }));
            }
        }
    }
    out
}

/// Simpler forms of each statement, one change at a time.
fn simplifications(scenario: &Scenario) -> Vec<Scenario> {
    let mut out = Vec::new();
    for (k, list) in lists(scenario).into_iter().enumerate() {
        for (i, stmt) in list.iter().enumerate() {
            for simpler in simpler_statements(stmt) {
                out.push(edit_list(scenario, k, &mut |list| {
                    list[i] = simpler.clone()
                }));
            }
        }
    }
    out
}

/// Smaller values, tried in place of an expression.
fn simpler_exprs(e: &Expr) -> Vec<Expr> {
    match e {
        Expr::Str(s) if !s.is_empty() => vec![Expr::Str(String::new())],
        Expr::Int(i) if *i != 0 => vec![Expr::Int(0)],
        Expr::Number(_) => vec![Expr::Int(0)],
        Expr::Symbol(Some(_)) => vec![Expr::Symbol(None)],
        Expr::NewError(m) if !m.is_empty() => vec![Expr::NewError(String::new())],
        Expr::NewBuiltinError { class, message } if !message.is_empty() => {
            vec![Expr::NewBuiltinError {
                class: *class,
                message: String::new(),
            }]
        }
        Expr::NewDomException { message, name } if !message.is_empty() => {
            vec![Expr::NewDomException {
                message: String::new(),
                name: name.clone(),
            }]
        }
        Expr::Bool(true) => vec![Expr::Bool(false)],
        _ => Vec::new(),
    }
}

fn simpler_statements(stmt: &Stmt) -> Vec<Stmt> {
    let mut out = Vec::new();
    match stmt {
        Stmt::Let { name, op } => {
            out.push(Stmt::Do(op.clone()));
            for op in simpler_ops(op) {
                out.push(Stmt::Let {
                    name: name.clone(),
                    op,
                });
            }
        }
        Stmt::Do(op) => out.extend(simpler_ops(op).into_iter().map(Stmt::Do)),
        Stmt::Log(values) => {
            for i in 0..values.len() {
                let mut fewer = values.clone();
                fewer.remove(i);
                out.push(Stmt::Log(fewer));
                for v in simpler_exprs(&values[i]) {
                    let mut smaller = values.clone();
                    smaller[i] = v;
                    out.push(Stmt::Log(smaller));
                }
            }
        }
        Stmt::Throw(e) => out.extend(simpler_exprs(e).into_iter().map(Stmt::Throw)),
        Stmt::Return(Some(_)) => out.push(Stmt::Return(None)),
        Stmt::Run(RunMode::Advance(ms)) if *ms > 0 => {
            out.push(Stmt::Run(RunMode::Advance(ms / 2)));
            out.push(Stmt::Run(RunMode::Turn));
        }
        Stmt::Run(RunMode::Idle) => out.push(Stmt::Run(RunMode::Turn)),
        Stmt::Repeat { count, body } if *count > 1 => {
            let mut counts = vec![1, count / 2, count - 1];
            counts.dedup();
            for fewer in counts {
                out.push(Stmt::Repeat {
                    count: fewer,
                    body: body.clone(),
                });
            }
        }
        _ => {}
    }
    out
}

fn simpler_ops(op: &Op) -> Vec<Op> {
    let mut out = Vec::new();
    let mut with = |f: &dyn Fn(&mut Op)| {
        let mut o = op.clone();
        f(&mut o);
        if &o != op {
            out.push(o);
        }
    };
    match op {
        // An async function that awaits nothing may be a plain one (one
        // that awaits is refused by the parser, so the candidate is
        // dropped).
        Op::AsyncFunction(body) => out.push(Op::Function(body.clone())),
        // An interval that fires once may be a timeout.
        Op::SetInterval { ms, body } => out.push(Op::SetTimeout {
            ms: *ms,
            body: body.clone(),
        }),
        Op::Abort {
            reason: Some(r), ..
        }
        | Op::SignalAbort { reason: Some(r) } => {
            with(&|o| match o {
                Op::Abort { reason, .. } | Op::SignalAbort { reason } => *reason = None,
                _ => {}
            });
            for smaller in simpler_exprs(r) {
                with(&|o| match o {
                    Op::Abort { reason, .. } | Op::SignalAbort { reason } => {
                        *reason = Some(smaller.clone())
                    }
                    _ => {}
                });
            }
        }
        Op::Resolve { value: Some(_), .. } | Op::Reject { value: Some(_), .. } => {
            with(&|o| match o {
                Op::Resolve { value, .. } | Op::Reject { value, .. } => *value = None,
                _ => {}
            })
        }
        Op::SignalTimeout { ms } if *ms > 0 => {
            let half = ms / 2;
            with(&|o| {
                if let Op::SignalTimeout { ms } = o {
                    *ms = half;
                }
            });
        }
        Op::SetTimeout { ms, .. } if *ms > 0 => {
            let half = ms / 2;
            with(&|o| {
                if let Op::SetTimeout { ms, .. } = o {
                    *ms = half;
                }
            });
        }
        Op::SignalAny { from_set: true, .. } => with(&|o| {
            if let Op::SignalAny { from_set, .. } = o {
                *from_set = false;
            }
        }),
        Op::SignalAny { signals: items, .. } | Op::Combinator { values: items, .. }
            if items.len() > 1 =>
        {
            for i in 0..items.len() {
                with(&|o| match o {
                    Op::SignalAny { signals: items, .. } | Op::Combinator { values: items, .. } => {
                        items.remove(i);
                    }
                    _ => {}
                });
            }
        }
        Op::AddEventListener { options, .. } => {
            if options.once {
                with(&|o| {
                    if let Op::AddEventListener { options, .. } = o {
                        options.once = false;
                    }
                });
            }
            if options.capture {
                with(&|o| {
                    if let Op::AddEventListener { options, .. } = o {
                        options.capture = false;
                    }
                });
            }
            if options.passive {
                with(&|o| {
                    if let Op::AddEventListener { options, .. } = o {
                        options.passive = false;
                    }
                });
            }
            if options.signal.is_some() {
                with(&|o| {
                    if let Op::AddEventListener { options, .. } = o {
                        options.signal = None;
                    }
                });
            }
        }
        Op::RemoveEventListener { capture: true, .. } => with(&|o| {
            if let Op::RemoveEventListener { capture, .. } = o {
                *capture = false;
            }
        }),
        Op::Dispatch {
            cancelable: true, ..
        } => with(&|o| {
            if let Op::Dispatch { cancelable, .. } = o {
                *cancelable = false;
            }
        }),
        Op::Then {
            on_fulfilled: Some(_),
            on_rejected: Some(_),
            ..
        } => {
            with(&|o| {
                if let Op::Then { on_fulfilled, .. } = o {
                    *on_fulfilled = None;
                }
            });
            with(&|o| {
                if let Op::Then { on_rejected, .. } = o {
                    *on_rejected = None;
                }
            });
        }
        Op::Value(e)
        | Op::PromiseResolve { value: e }
        | Op::PromiseReject { value: e }
        | Op::Thenable { value: e, .. } => {
            if let Op::Thenable { body: Some(_), .. } = op {
                with(&|o| {
                    if let Op::Thenable { body, .. } = o {
                        *body = None;
                    }
                });
            }
            for smaller in simpler_exprs(e) {
                with(&|o| match o {
                    Op::Value(e)
                    | Op::PromiseResolve { value: e }
                    | Op::PromiseReject { value: e }
                    | Op::Thenable { value: e, .. } => *e = smaller.clone(),
                    _ => {}
                });
            }
        }
        _ => {}
    }
    out
}

// ---- canonical names ----------------------------------------------------------------------

/// The scenario with its bindings renamed in order of declaration, each
/// after what its operation makes: `c1` a controller, `s1` a signal, `t1`
/// a target, `f1` a function, `p1` a promise, `h1` a timer, `i1` an
/// immediate, `d1` a disposable, `v1` anything else.
pub fn canonical_names(scenario: &Scenario) -> Scenario {
    let mut names = std::collections::HashMap::new();
    let mut counters = std::collections::HashMap::new();
    collect_names(&scenario.body, &mut names, &mut counters);
    let mut copy = scenario.clone();
    rename_stmts(copy.body_mut(), &names);
    copy
}

fn prefix(op: &Op) -> &'static str {
    match op {
        Op::NewController => "c",
        Op::SignalAbort { .. } | Op::SignalTimeout { .. } | Op::SignalAny { .. } => "s",
        Op::NewTarget => "t",
        Op::Function(_) => "f",
        Op::NewPromise
        | Op::Then { .. }
        | Op::Catch { .. }
        | Op::Finally { .. }
        | Op::PromiseResolve { .. }
        | Op::PromiseReject { .. }
        | Op::Combinator { .. } => "p",
        Op::SetTimeout { .. } => "h",
        Op::SetImmediate(_) => "i",
        Op::AddAbortListener { .. } => "d",
        _ => "v",
    }
}

fn collect_names(
    body: &[Stmt],
    names: &mut std::collections::HashMap<String, String>,
    counters: &mut std::collections::HashMap<&'static str, usize>,
) {
    for stmt in body {
        let declared: Vec<(&str, &'static str)> = match stmt {
            Stmt::Let { name, op } => vec![(&**name, prefix(op))],
            Stmt::Tee { branches, .. } => branches.iter().map(|b| (&**b, "b")).collect(),
            _ => Vec::new(),
        };
        for (name, p) in declared {
            let n = counters.entry(p).or_insert(0);
            *n += 1;
            names
                .entry(name.to_string())
                .or_insert_with(|| format!("{p}{n}"));
        }
        for block in stmt.blocks() {
            collect_names(block.body(), names, counters);
        }
    }
}

fn rename_expr(e: &mut Expr, names: &std::collections::HashMap<String, String>) {
    match e {
        Expr::Var(n) => {
            if let Some(new) = names.get(&n.name) {
                *n = nodesem_lang::Binding::new(new.clone());
            }
        }
        other => other.for_each_operand_mut(|operand| rename_expr(operand, names)),
    }
}

fn rename_stmts(body: &mut [Stmt], names: &std::collections::HashMap<String, String>) {
    for stmt in body.iter_mut() {
        match stmt {
            Stmt::Let { name, op } => {
                if let Some(new) = names.get(&**name) {
                    *name = new.as_str().into();
                }
                rename_op(op, names);
            }
            Stmt::Tee { branches, stream } => {
                for branch in branches.iter_mut() {
                    if let Some(new) = names.get(&**branch) {
                        *branch = new.as_str().into();
                    }
                }
                rename_expr(stream, names);
            }
            Stmt::Do(op) => rename_op(op, names),
            Stmt::Log(values) => values.iter_mut().for_each(|v| rename_expr(v, names)),
            Stmt::Throw(e) | Stmt::Return(Some(e)) | Stmt::If { cond: e, .. } => {
                rename_expr(e, names)
            }
            _ => {}
        }
        for block in stmt.blocks_mut() {
            rename_stmts(block.body_mut().as_mut_slice(), names);
        }
    }
}

fn rename_op(op: &mut Op, names: &std::collections::HashMap<String, String>) {
    for e in op.exprs_mut() {
        rename_expr(e, names);
    }
}

/// The statements of a scenario, comments not counted, blocks included.
pub fn statements(scenario: &Scenario) -> usize {
    count_statements(&scenario.body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodesem_lang::{EngineError, Log};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Real Node's part in a flaky divergence: a scenario of two or more
    /// statements always logs `b`; one of a single statement logs `b` and
    /// `a` in turn, so it diverges from the model on every other run.
    struct Flaky {
        runs: AtomicUsize,
    }

    impl Engine for Flaky {
        fn name(&self) -> String {
            "node".into()
        }

        fn deterministic(&self) -> bool {
            false
        }

        fn run(&self, scenario: &Scenario, _: &RunConfig) -> Result<Log, EngineError> {
            let run = self.runs.fetch_add(1, Ordering::SeqCst);
            let line = if statements(scenario) >= 2 || run.is_multiple_of(2) {
                "b"
            } else {
                "a"
            };
            Ok(Log {
                lines: vec![line.to_string()],
            })
        }
    }

    /// The model's part: always `a`.
    struct Steady;

    impl Engine for Steady {
        fn name(&self) -> String {
            "model".into()
        }

        fn run(&self, _: &Scenario, _: &RunConfig) -> Result<Log, EngineError> {
            Ok(Log {
                lines: vec!["a".to_string()],
            })
        }
    }

    #[test]
    fn a_candidate_whose_divergence_comes_and_goes_is_not_kept() {
        let scenario = nodesem_lang::parse("s.scn", "log 1\nlog 2\n").expect("parses");
        let (model, node) = (
            Steady,
            Flaky {
                runs: AtomicUsize::new(0),
            },
        );
        let engines: [&dyn Engine; 2] = [&model, &node];
        let signature = divergence(engines, &scenario, &RunConfig::default()).expect("diverges");
        let shrunk = shrink(engines, &scenario, &signature, &ShrinkConfig::default());
        // Each one-statement candidate diverged on its first run and
        // agreed when rerun, so both statements stay.
        assert_eq!(shrunk.statements, (2, 2), "{shrunk:?}");
        assert!(shrunk.reruns >= 2, "{shrunk:?}");
    }

    #[test]
    fn deterministic_engines_are_not_rerun_while_shrinking() {
        let scenario = nodesem_lang::parse("s.scn", "log 1\nlog 2\n").expect("parses");
        let model = Steady;
        let other = crate::engines::Guarded(nodesem_model::ModelEngine);
        let engines: [&dyn Engine; 2] = [&model, &other];
        let signature = divergence(engines, &scenario, &RunConfig::default()).expect("diverges");
        let shrunk = shrink(engines, &scenario, &signature, &ShrinkConfig::default());
        assert_eq!(shrunk.reruns, 0);
        assert!(shrunk.statements.1 < 2, "{shrunk:?}");
    }
}
