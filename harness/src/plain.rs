//! `nodesem emit-js --plain` and `--node-test`: a scenario as a short
//! program in plain JavaScript for real Node, with no prelude and no flags.
//!
//! The prelude's program (`emit-js`) is for the differential check: it runs
//! every scenario deterministically on a virtual clock, at the price of 650
//! lines and Node's internals. A Node contributor wants the scenario itself:
//! real `setTimeout`, `setImmediate`, process hooks and `console.log`. That
//! is only possible where real Node orders what the scenario does the same
//! way on every run, so this module first decides whether it does (see
//! [`emit`]), refuses the rest with the construct, its line and why, and
//! otherwise writes the scenario through the one emitter
//! ([`crate::emit::emit_flavoured`]) with a handful of helpers of its own.
//!
//! The model's run ([`nodesem_model::ModelEngine`]) gives what the program
//! cannot know statically: which process events the log needs handlers for,
//! whether the run hit a limit, and, for `--node-test`, the expected log and
//! how many times each callback ran (from a run of the scenario with a
//! marker line at the start of every block).
//!
//! Timers. A timer's order on real Node depends on real time: two timers run
//! in the order of their expiry, `start + delay` (lib/internal/timers.js:
//! one list per delay, in insertion order, and a priority queue of the lists
//! by expiry; libuv runs the timers phase when the earliest is due). So a
//! plain program accepts timers (`setTimeout`, `timeout`) only when all of
//! them are made before the first one runs (by the main script, or by
//! callbacks that run in its drains, which a run of the model with marker
//! lines shows), and no immediate is made: every start is then within the
//! main script's run and the drains after it, before the loop starts. The `n` distinct virtual
//! delays, sorted, become `SPACING_MS`, `2 * SPACING_MS`, ... real ms; two
//! timers of one virtual delay share a real delay and so one list, which
//! runs them in insertion order, as the model does; two of different
//! delays expire `SPACING_MS` or more apart, which only a main script that
//! ran for longer than that between the two could flip. Timers made after a
//! timer ran would start at moments that depend on how late that timer
//! ran, and a timer against an immediate depends on how long the
//! loop took to reach its first iteration (the classic `setTimeout(0)`
//! against `setImmediate` race), so both are refused.
//!
//! A `run idle` in the middle of the main script becomes
//! `process.once('beforeExit', partN)`, a `run turn` `setImmediate(partN)`
//! and a `run advance` `setTimeout(partN, ms)` (see the emitter's
//! `plain_top_level`): the moment an advance stops at is ranked with the
//! timers' deadlines, just after those due then (keys `2 * ms` for timers,
//! `2 * ms + 1` for stops), so it never ties with a timer of the scenario.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write;

use nodesem_lang::{Block, Engine, Expr, Log, RunConfig, Scenario, Stmt};

pub use crate::emit::Flavour;
use crate::emit::{binding_names, emit_flavoured, is_module, Fact, FlavourOptions, Site};
use crate::js_source::{line_comment, string_literal};

/// The real ms between two distinct virtual timer delays (see the module
/// doc): far longer than a small main script runs, even on a loaded machine.
pub const SPACING_MS: u64 = 100;

/// Why a scenario cannot be written as a plain program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The first line of the statement (or what else) that is refused.
    pub construct: String,
    /// Its line in the scenario file, when found.
    pub line: Option<usize>,
    /// Why.
    pub why: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: `{}`: {}", self.construct, self.why),
            None => write!(f, "`{}`: {}", self.construct, self.why),
        }
    }
}

/// The marker line a counting run logs at the start of each block.
const MARK: &str = "\u{1}nodesem-block-";

/// Every helper a plain program may declare, with the bindings they need.
const HELPER_NAMES: &[&str] = &[
    "log",
    "record",
    "fmt",
    "events",
    "asyncHooks",
    "deferred",
    "withResolvers",
    "resolve",
    "reject",
    "resolvers",
    "thenable",
    "ruler",
    "asyncGenerator",
    "common",
    "assert",
    "onUncaught",
];

/// The scenario as a plain program (`flavour` [`Flavour::Plain`]) or a test
/// of Node's test/parallel ([`Flavour::NodeTest`]), or why it cannot be.
/// `source_name` names the scenario in the header; `source_text`, when
/// given, is searched for a refused statement's line.
pub fn emit(
    scenario: &Scenario,
    flavour: Flavour,
    source_name: &str,
    source_text: Option<&str>,
) -> Result<String, Refusal> {
    let refuse_at = |site: &Site, why: String| Refusal {
        construct: site.text.clone(),
        line: source_text.and_then(|text| find_line(text, &site.text, site.nth)),
        why,
    };
    let refuse = |construct: &str, why: String| Refusal {
        construct: construct.to_string(),
        line: None,
        why,
    };
    let config = RunConfig::default();
    let log = nodesem_model::ModelEngine
        .run(scenario, &config)
        .map_err(|e| refuse("the scenario", format!("the model cannot run it: {e}")))?;
    if let Some(last) = log
        .lines
        .last()
        .filter(|l| l.starts_with("budget exhausted"))
    {
        return Err(refuse(
            "the scenario",
            format!("the model's run hits a limit ({last}), which real Node does not have"),
        ));
    }
    if let Some(line) = log
        .lines
        .iter()
        .find(|l| l.contains("nodesem: `add`") || l.contains("nodesem: `less`"))
    {
        return Err(refuse(
            "add/less",
            format!("`add` or `less` of an object throws nodesem's own error ({line})"),
        ));
    }
    if let Some(line) = log.lines.iter().find(|l| l.contains(" (anonymous)]")) {
        return Err(refuse(
            "the scenario",
            format!("its log shows a function as util.inspect does, and the plain program's `f = function` gives the language's anonymous functions a name ({line})"),
        ));
    }
    let names = binding_names(&scenario.body);
    let part_name = |n: &String| {
        n.strip_prefix("part")
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    };
    let helper_prefix =
        if HELPER_NAMES.iter().any(|h| names.contains(*h)) || names.iter().any(part_name) {
            "$"
        } else {
            ""
        };
    // A first pass finds what the scenario does.
    let first = emit_flavoured(
        scenario,
        FlavourOptions {
            flavour: Flavour::Plain,
            helper_prefix,
            ..FlavourOptions::default()
        },
    );
    let mut delays = BTreeSet::new();
    let mut first_timer = None;
    let mut first_immediate = None;
    let mut first_turn = None;
    let mut advances: Vec<(&Site, u32)> = Vec::new();
    let signals = first
        .facts
        .iter()
        .any(|f| matches!(f, Fact::Timer { signal: true, .. }));
    let needs_counts = flavour == Flavour::NodeTest
        || first.facts.iter().any(|f| {
            matches!(
                f,
                Fact::Timer {
                    in_callback: true,
                    ..
                }
            )
        });
    let counts = if needs_counts {
        Some(counted_run(scenario, &log, &config).map_err(|why| refuse("the scenario", why))?)
    } else {
        None
    };
    for fact in &first.facts {
        match fact {
            Fact::Refused(stmt, why) => return Err(refuse_at(stmt, why.to_string())),
            Fact::Timer {
                stmt,
                ms,
                in_callback,
                ..
            } => {
                // A timer made in a callback is as plain as one of the main
                // script when every timer is made before the first one runs
                // (at virtual time 0: in the main script or its drains, before
                // the loop starts) and no timeout signal, whose firing the
                // counting run cannot see, could have run the callback.
                let at_zero = counts.as_ref().is_some_and(|c| c.timers_at_zero) && !signals;
                if *in_callback && !at_zero {
                    return Err(refuse_at(
                        stmt,
                        "a timer made inside a callback, after the first timer ran or with a timeout signal in the scenario, starts when real time decides, so its order against other timers could flip".to_string(),
                    ));
                }
                delays.insert(2 * u64::from(*ms));
                first_timer.get_or_insert(stmt);
            }
            Fact::Immediate(stmt) => {
                first_immediate.get_or_insert(stmt);
            }
            Fact::Run(stmt, mode) => {
                if let nodesem_lang::RunMode::Advance(ms) = mode {
                    advances.push((stmt, *ms));
                }
                if first.helpers.contains("asyncHooks") {
                    return Err(refuse_at(
                        stmt,
                        "the rest of the main script goes on in the async context frame the part before left, and a 'beforeExit' listener runs in none".to_string(),
                    ));
                }
                if *mode == nodesem_lang::RunMode::Turn {
                    first_turn.get_or_insert(stmt);
                }
            }
        }
    }
    if let (Some(timer), Some(immediate)) = (first_timer, first_immediate) {
        return Err(refuse_at(
            immediate,
            format!(
                "an immediate in a scenario with timers (`{timer}`): real Node orders a timer against an immediate by how long the loop took to reach them"
            ),
        ));
    }
    if let Some(&(advance, _)) = advances.first() {
        // `run advance` is a timer of the program, made at the end of the
        // part before it: plain when every other timer is made at virtual
        // time 0 (at the moment the program starts) and no immediate or
        // other kind of run is there.
        let other_run = first.facts.iter().any(
            |f| matches!(f, Fact::Run(_, m) if !matches!(m, nodesem_lang::RunMode::Advance(_))),
        );
        if first_immediate.is_some() || other_run {
            return Err(refuse_at(
                advance,
                "`run advance` is a timer here, which an immediate or another kind of `run` in the scenario could run before or after".to_string(),
            ));
        }
        if let Some(Fact::Timer { stmt, .. }) = first.facts.iter().find(|f| {
            matches!(
                f,
                Fact::Timer {
                    later_part: true,
                    ..
                }
            )
        }) {
            return Err(refuse_at(
                stmt,
                "a timer made after a `run advance` starts when that part of the main script runs, which real time decides".to_string(),
            ));
        }
        // Each stop is a moment of its own just after the timers due then,
        // so no timer of the scenario is ever due with it.
        let mut clock = 0u64;
        for (_, ms) in &advances {
            clock = clock.saturating_add(u64::from(*ms));
            delays.insert(2 * clock + 1);
        }
    }
    if let Some(turn) = first_turn {
        if let Some(other) = first_timer.or(first_immediate) {
            return Err(refuse_at(
                turn,
                format!("a turn of the loop is a `setImmediate` here, which runs in the first check phase only with no other immediate or timer (`{other}`)"),
            ));
        }
    }
    let timer_ms: BTreeMap<u64, u64> = delays
        .iter()
        .zip(1u64..)
        .map(|(&ms, rank)| (ms, rank * SPACING_MS))
        .collect();
    let calls = match counts {
        Some(counts) if flavour == Flavour::NodeTest => counts.calls,
        _ => HashMap::new(),
    };
    let emitted = emit_flavoured(
        scenario,
        FlavourOptions {
            flavour,
            timer_ms: timer_ms.clone(),
            calls,
            helper_prefix,
        },
    );
    Ok(program(
        scenario,
        flavour,
        source_name,
        &log,
        &emitted.body,
        &emitted.helpers,
        &timer_ms,
        helper_prefix,
    ))
}

/// The line of `text` (1-based) whose trimmed content is `construct`, the
/// `nth` such line (1 for the first).
fn find_line(text: &str, construct: &str, nth: usize) -> Option<usize> {
    let construct = construct.trim();
    text.lines()
        .enumerate()
        .filter(|(_, line)| line.trim() == construct)
        .nth(nth.checked_sub(1)?)
        .map(|(i, _)| i + 1)
}

/// What the model's run with markers shows.
struct Counts {
    /// How many times each block ran, by the block's address in the
    /// scenario.
    calls: HashMap<usize, u32>,
    /// Every `setTimeout` statement that ran, ran before the first timer
    /// callback.
    timers_at_zero: bool,
}

/// Whether a statement makes a timer with `setTimeout`.
fn makes_timer(stmt: &Stmt) -> bool {
    matches!(
        stmt,
        Stmt::Let {
            op: nodesem_lang::Op::SetTimeout { .. },
            ..
        } | Stmt::Do(nodesem_lang::Op::SetTimeout { .. })
    )
}

/// How many times each block of the scenario ran in the model's run, and
/// whether every timer was made before the first timer ran: the model runs
/// a copy with a marker line at the start of every block and before every
/// `setTimeout`, whose log without the markers must be the scenario's own.
fn counted_run(scenario: &Scenario, log: &Log, config: &RunConfig) -> Result<Counts, String> {
    /// The marker of a block (`B<index>`, and whether it is a timer's
    /// callback) or of a `setTimeout` about to run (`T`).
    fn instrument(orig: &[Stmt], order: &mut Vec<(usize, bool)>) -> Vec<Stmt> {
        let mut out = Vec::new();
        for stmt in orig {
            let mut copy = stmt.clone();
            let timer = makes_timer(stmt);
            for (block, copied) in stmt.blocks().into_iter().zip(copy.blocks_mut()) {
                let index = order.len();
                order.push((block as *const Block as usize, timer));
                let mut body = vec![Stmt::Log(vec![Expr::Str(format!("{MARK}B{index}"))])];
                body.extend(instrument(block.body(), order));
                *copied = Block::new(body);
            }
            if timer {
                out.push(Stmt::Log(vec![Expr::Str(format!("{MARK}T"))]));
            }
            let advance = matches!(stmt, Stmt::Run(nodesem_lang::RunMode::Advance(_)));
            out.push(copy);
            if advance {
                // The clock moved: what comes after is not at time 0.
                out.push(Stmt::Log(vec![Expr::Str(format!("{MARK}A"))]));
            }
        }
        out
    }
    if log.lines.iter().any(|l| l.starts_with(MARK)) {
        return Err("its log has nodesem's marker lines".to_string());
    }
    let mut order = Vec::new();
    let counting = Scenario {
        body: std::sync::Arc::new(instrument(&scenario.body, &mut order)),
    };
    let counted = nodesem_model::ModelEngine
        .run(&counting, config)
        .map_err(|e| format!("the model cannot run it with its callbacks counted: {e}"))?;
    let mut counts: HashMap<usize, u32> = order.iter().map(|&(a, _)| (a, 0)).collect();
    let mut rest = Vec::new();
    let mut a_timer_ran = false;
    let mut timers_at_zero = true;
    for line in counted.lines {
        let Some(marker) = line.strip_prefix(MARK) else {
            rest.push(line);
            continue;
        };
        if marker == "T" {
            timers_at_zero &= !a_timer_ran;
            continue;
        }
        if marker == "A" {
            a_timer_ran = true;
            continue;
        }
        match marker
            .strip_prefix('B')
            .and_then(|i| i.parse::<usize>().ok())
        {
            Some(index) if index < order.len() => {
                let (block, timer) = order[index];
                *counts.entry(block).or_default() += 1;
                a_timer_ran |= timer;
            }
            _ => rest.push(line),
        }
    }
    if rest != log.lines {
        return Err(
            "counting its callbacks changes the model's log (a limit it comes close to)"
                .to_string(),
        );
    }
    Ok(Counts {
        calls: counts,
        timers_at_zero,
    })
}

/// The helpers' JavaScript, in order, for the helpers used. `@` in the
/// text is the helpers' prefix.
fn helper_source(
    used: &BTreeSet<&'static str>,
    flavour: Flavour,
    module: bool,
    log: &Log,
) -> String {
    let mut out = String::new();
    let has = |needle: &str| log.lines.iter().any(|l| l.contains(needle));
    if used.contains("events") {
        out.push_str(if module {
            "import @events from 'node:events';\n"
        } else {
            "const @events = require('node:events');\n"
        });
    }
    if used.contains("asyncHooks") {
        out.push_str(if module {
            "import * as @asyncHooks from 'node:async_hooks';\n"
        } else {
            "const @asyncHooks = require('node:async_hooks');\n"
        });
    }
    if !out.is_empty() {
        out.push('\n');
    }
    // The log's value format (the prelude's `fmt`), with only the kinds of
    // value this log shows.
    out.push_str("// Values as nodesem's log writes them.\n");
    out.push_str("function @fmt(v, depth = 0) {\n");
    if has("[Function]") {
        out.push_str("  if (typeof v === 'function') return '[Function]';\n");
    }
    out.push_str("  if (typeof v !== 'object' || v === null) return String(v);\n");
    out.push_str("  const tag = Object.prototype.toString.call(v).slice(8, -1);\n");
    // (The tag, not `Error.isError`, which Node 24 and later alone have:
    // a reproducer may run on any release.)
    out.push_str(
        "  if (tag === 'Error' || tag === 'DOMException' || v instanceof Error) return `${v.name}: ${v.message}`;\n",
    );
    if has("Event(") {
        out.push_str("  if (v instanceof Event) return `Event(${v.type})`;\n");
    }
    if has("Array(") || has("[Array]") {
        out.push_str("  if (Array.isArray(v)) {\n");
        out.push_str("    if (depth >= 2) return '[Array]';\n");
        out.push_str(
            "    return `Array(${Array.from(v, (x) => @fmt(x, depth + 1)).join(', ')})`;\n",
        );
        out.push_str("  }\n");
    }
    if has("Uint8Array(") {
        // (Array.prototype.join reads a detached view as empty.)
        out.push_str(
            "  if (tag === 'Uint8Array') return `Uint8Array(${Array.prototype.join.call(v, ', ')})`;\n",
        );
    }
    let settled = has("{status: ");
    let reads = has("{value: ");
    if settled || reads || has("[Object]") {
        out.push_str("  if (tag === 'Object' && depth >= 2) return '[Object]';\n");
    }
    if settled {
        out.push_str("  if (tag === 'Object' && Object.hasOwn(v, 'status')) {\n");
        out.push_str("    return v.status === 'fulfilled'\n");
        out.push_str("      ? `{status: fulfilled, value: ${@fmt(v.value, depth + 1)}}`\n");
        out.push_str("      : `{status: rejected, reason: ${@fmt(v.reason, depth + 1)}}`;\n");
        out.push_str("  }\n");
    }
    if reads {
        out.push_str(
            "  if (tag === 'Object' && Object.hasOwn(v, 'done') && Object.hasOwn(v, 'value')) {\n",
        );
        out.push_str("    return `{value: ${@fmt(v.value, depth + 1)}, done: ${v.done}}`;\n");
        out.push_str("  }\n");
    }
    out.push_str("  return `[${tag}]`;\n}\n");
    // One event, one line: a line break in a value is written as an escape.
    let escapes = has("\\n") || has("\\r");
    let line = if escapes {
        "values.map((v) => @fmt(v)).join(' ').replace(/\\r/g, '\\\\r').replace(/\\n/g, '\\\\n')"
    } else {
        "values.map((v) => @fmt(v)).join(' ')"
    };
    match flavour {
        Flavour::NodeTest => {
            out.push_str("const @log = [];\n");
            let _ = writeln!(
                out,
                "function @record(...values) {{\n  @log.push({line});\n}}"
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "function @log(...values) {{\n  console.log({line});\n}}"
            );
        }
    }
    if used.contains("deferred")
        || used.contains("withResolvers")
        || used.contains("resolve")
        || used.contains("reject")
    {
        out.push_str("// Promises whose resolving functions the scenario keeps.\n");
        out.push_str("const @resolvers = new WeakMap();\n");
        if used.contains("deferred") {
            out.push_str("function @deferred() {\n  const r = Promise.withResolvers();\n  @resolvers.set(r.promise, r);\n  return r.promise;\n}\n");
        }
        if used.contains("withResolvers") {
            out.push_str("function @withResolvers() {\n  const r = Promise.withResolvers();\n  @resolvers.set(r.promise, r);\n  return r;\n}\n");
        }
        if used.contains("resolve") {
            out.push_str("function @resolve(p, v) {\n  @resolvers.get(p).resolve(v);\n}\n");
        }
        if used.contains("reject") {
            out.push_str("function @reject(p, v) {\n  @resolvers.get(p).reject(v);\n}\n");
        }
    }
    if used.contains("thenable") {
        out.push_str("// A thenable whose `then` runs the body, then resolves with v.\n");
        out.push_str("function @thenable(v, body) {\n  return { then(resolve) { if (body !== undefined) body.call(this); resolve(v); } };\n}\n");
    }
    if used.contains("ruler") {
        let log_fn = if flavour == Flavour::NodeTest {
            "@record"
        } else {
            "@log"
        };
        out.push_str("// Promise.resolve() and a chain of n thens, the k-th logging `tk`.\n");
        let _ = writeln!(
            out,
            "function @ruler(n) {{\n  let p = Promise.resolve();\n  for (let k = 1; k <= n; k++) p = p.then(() => {{ {log_fn}(`t${{k}}`); }});\n}}"
        );
    }
    if used.contains("asyncGenerator") {
        out.push_str(
            "async function* @asyncGenerator(values) {\n  for (const v of values) yield v;\n}\n",
        );
    }
    out
}

/// The whole program around the emitted body.
#[allow(clippy::too_many_arguments)]
fn program(
    scenario: &Scenario,
    flavour: Flavour,
    source_name: &str,
    log: &Log,
    body: &str,
    used: &BTreeSet<&'static str>,
    timer_ms: &BTreeMap<u64, u64>,
    prefix: &str,
) -> String {
    let module = is_module(scenario);
    let mut out = String::new();
    // Only the helpers' own text has `@`: replaced there, not in the body.
    let with_prefix = |text: &str| text.replace('@', prefix);
    let extension = if module { "mjs" } else { "js" };
    match flavour {
        Flavour::NodeTest => {
            if module {
                out.push_str("import * as @common from '../common/index.mjs';\nimport @assert from 'node:assert';\n");
            } else {
                out.push_str("'use strict';\nconst @common = require('../common');\nconst @assert = require('assert');\n");
            }
            out = with_prefix(&out);
            out.push('\n');
            let _ = writeln!(
                out,
                "{}",
                line_comment(&format!(
                    "The nodesem scenario {source_name} (`nodesem emit-js --node-test`): its log, as"
                ))
            );
            out.push_str(
                "// nodesem's model of Node writes it, is checked when the process exits; every\n// callback that must run is a common.mustCall.\n",
            );
        }
        _ => {
            if !module {
                out.push_str("'use strict';\n");
            }
            let _ = writeln!(
                out,
                "{}",
                line_comment(&format!(
                    "The nodesem scenario {source_name} as a plain Node.js program (`nodesem emit-js --plain`)."
                ))
            );
            let _ = writeln!(
                out,
                "// Run with: node FILE.{extension} (no flags). It prints the scenario's log, one event a line."
            );
        }
    }
    if module {
        out.push_str("// The scenario says `use module`: its main script is this ES module's top-level code.\n");
    }
    if !timer_ms.is_empty() {
        let pairs: Vec<String> = timer_ms
            .iter()
            .map(|(key, real)| {
                if key % 2 == 0 {
                    format!("{} -> {real}", key / 2)
                } else {
                    format!("run advance to {} -> {real}", key / 2)
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "// Timers: the scenario's virtual ms become real ms {SPACING_MS} apart ({}), so that",
            pairs.join(", ")
        );
        out.push_str(
            "// their order cannot depend on how fast the main script that makes them runs.\n",
        );
    }
    out.push('\n');
    out.push_str(&with_prefix(&helper_source(used, flavour, module, log)));
    // Process events the log shows.
    let count = |prefix: &str| log.lines.iter().filter(|l| l.starts_with(prefix)).count();
    let log_fn = if flavour == Flavour::NodeTest {
        "@record"
    } else {
        "@log"
    };
    let wrap = |f: &str, n: usize| -> String {
        if flavour == Flavour::NodeTest {
            if n == 1 {
                format!("@common.mustCall({f})")
            } else {
                format!("@common.mustCall({f}, {n})")
            }
        } else {
            f.to_string()
        }
    };
    let mut handlers = String::new();
    let uncaught = count("uncaught ");
    if uncaught > 0 || flavour == Flavour::NodeTest && count("exit 1 after uncaught") > 0 {
        let _ = writeln!(
            handlers,
            "const @onUncaught = {};\nprocess.on('uncaughtException', @onUncaught);",
            wrap(&format!("(error) => {log_fn}('uncaught', error)"), uncaught)
        );
    }
    for (event, line, param) in [
        ("unhandledRejection", "unhandled rejection ", "reason"),
        ("rejectionHandled", "rejection handled ", "promise"),
        ("warning", "warning ", "warning"),
    ] {
        let n = count(line);
        if n > 0 {
            let _ = writeln!(
                handlers,
                "process.on('{event}', {});",
                wrap(
                    &format!("({param}) => {log_fn}('{}', {param})", line.trim_end()),
                    n
                )
            );
        }
    }
    if !handlers.is_empty() {
        out.push_str("// The process events the log shows.\n");
        out.push_str(&with_prefix(&handlers));
    }
    if flavour == Flavour::NodeTest {
        let mut check = String::from("process.on('exit', () => {\n");
        if !handlers.is_empty() && uncaught > 0 {
            // A throw in an 'exit' listener goes to 'uncaughtException'
            // listeners: the scenario's must not take the assertion's.
            check.push_str("  process.off('uncaughtException', @onUncaught);\n");
        }
        check.push_str("  @assert.deepStrictEqual(@log, [\n");
        let check = with_prefix(&check);
        out.push_str(&check);
        for line in &log.lines {
            let _ = writeln!(out, "    {},", string_literal(line));
        }
        out.push_str("  ]);\n});\n");
    }
    out.push('\n');
    out.push_str(body);
    out
}
