//! The real-clock Node engine's view of a scenario: whether it uses the
//! event loop's clock at all, and what the real clock refuses.
//!
//! The prelude's virtual clock (`harness/js/prelude.js`) is a second copy of
//! the Rust runtime's event loop. `node?clock=real` runs the same scenarios
//! on libuv's real timers and immediates instead, so that `nodesem check
//! --only-timers --engines node,node?clock=real` compares the virtual loop
//! with the real one on every scenario that uses the clock (the rule that
//! maps virtual time to real time is described in the prelude, "the real
//! clock"). Some constructs have no deterministic real-loop counterpart:
//! such a scenario is refused with one engine error,
//! `cannot run on a real clock: <construct> at line N: <why>`, which `check`
//! counts apart instead of reporting a difference ([`not_compared`]), as it
//! does a scenario that ran late each time it was tried.

use nodesem_lang::{print, Scenario};

use crate::emit::emit_body;

/// The prefix of every refusal.
pub const REFUSAL: &str = "cannot run on a real clock: ";

/// The prelude's words for a scenario whose real loop ran a whole virtual
/// millisecond late (the engine retries it).
const LATE: &str = "real clock late: ";

/// The calls of an emitted body that use the event loop's clock.
const CLOCK_CALLS: [&str; 5] = [
    "$.setTimeout(",
    "$.setInterval(",
    "$.setImmediate(",
    "$.timeoutSignal(",
    "$.run(\"advance\"",
];

/// Whether the scenario uses timers, intervals, immediates, timeout signals
/// or `run advance`: those are what the real clock checks.
pub fn uses_clock(scenario: &Scenario) -> bool {
    let body = emit_body(scenario);
    CLOCK_CALLS.iter().any(|call| body.contains(call))
}

/// What the real clock refuses before running: each construct, the calls
/// that give it away in the emitted body, the words that start its line in
/// the printed scenario, and why.
const REFUSED: [(&str, &str, &str, &str); 5] = [
    (
        "gc",
        "$.gc(",
        "gc",
        "finalization callbacks run as V8 platform tasks whose turn of the real loop is not determined",
    ),
    (
        "registry",
        "$.registry(",
        "let",
        "finalization callbacks run as V8 platform tasks whose turn of the real loop is not determined",
    ),
    (
        "native callback",
        "$.native(",
        "native",
        "the virtual loop waits for the addon's own libuv timer, which the real clock cannot order",
    ),
    (
        "process off uncaughtException",
        "$.processOff('uncaughtException')",
        "process off uncaughtException",
        "without a handler real Node exits, which the batch worker cannot",
    ),
    (
        "use module",
        "$.startModule(",
        "use module",
        "the module's evaluation runs in the loader's own callbacks, not yet mapped to the real clock",
    ),
];

/// Why the real clock refuses the scenario, when it does: the first refused
/// construct, with its line in the printed scenario.
pub fn refusal(scenario: &Scenario) -> Option<String> {
    let body = emit_body(scenario);
    let module = scenario.uses(nodesem_lang::Directive::Module);
    let text = print(scenario);
    REFUSED.iter().find_map(|(construct, call, words, why)| {
        let found = if *construct == "use module" {
            module
        } else {
            body.contains(call)
        };
        found.then(|| {
            let needle = if *construct == "registry" {
                "registry"
            } else {
                words
            };
            let line = line_of(&text, |l| {
                let l = l.trim_start();
                l.starts_with(words) && l.contains(needle)
            });
            format!("{REFUSAL}{construct}{}: {why}", at_line(line))
        })
    })
}

/// The 1-based number of the first line of `text` that `matches`.
fn line_of(text: &str, matches: impl Fn(&str) -> bool) -> Option<usize> {
    text.lines().position(matches).map(|i| i + 1)
}

fn at_line(line: Option<usize>) -> String {
    line.map_or(String::new(), |n| format!(" at line {n}"))
}

/// Whether an engine error is the prelude's report of a late real loop.
pub fn is_late(error: &str) -> bool {
    error.contains(LATE)
}

/// Whether an engine error is a refusal of the real clock.
pub fn is_refusal(error: &str) -> bool {
    error.contains(REFUSAL)
}

/// Whether an engine error is the refusal of a wait longer than the real
/// clock's cap (which a retry at a larger scale can meet).
pub fn is_over_cap(error: &str) -> bool {
    is_refusal(error) && error.contains("of real time (at most")
}

/// Whether an engine error means the real clock compared nothing: a
/// refusal, or a run late on a loaded machine however often it was tried.
/// `check` counts these apart from differences.
pub fn not_compared(error: &str) -> bool {
    is_refusal(error) || is_late(error)
}

/// The prelude's refusal of a `run` statement (it says `run statement K`)
/// with the line of that statement in the printed scenario; other errors as
/// they are.
pub fn explain(scenario: &Scenario, error: String) -> String {
    let Some(at) = error.find("(run statement ") else {
        // The prelude's refusal, without the prelude's own prefix.
        return match error.find(REFUSAL) {
            Some(i) => error[i..].to_string(),
            None => error,
        };
    };
    let rest = &error[at + "(run statement ".len()..];
    let Some(k) = rest.split(')').next().and_then(|k| k.parse::<usize>().ok()) else {
        return error;
    };
    let text = print(scenario);
    let line = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("run "))
        .nth(k.saturating_sub(1))
        .map(|(i, _)| i + 1);
    let start = error.find(REFUSAL).map_or(0, |i| i + REFUSAL.len());
    let construct = error[start..at].trim_end();
    let why = rest.split_once("): ").map_or("", |(_, why)| why);
    format!("{REFUSAL}{construct}{}: {why}", at_line(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Scenario {
        nodesem_lang::parse("test.scn", text).expect("a valid scenario")
    }

    #[test]
    fn the_clock_is_used_by_timers_immediates_and_advances_only() {
        assert!(uses_clock(&parse("setTimeout 5 {\n  log \"t\"\n}\n")));
        assert!(uses_clock(&parse("setImmediate {\n  log \"i\"\n}\n")));
        assert!(uses_clock(&parse("log \"a\"\nrun advance 3\nlog \"b\"\n")));
        assert!(!uses_clock(&parse("log \"a\"\nrun turn\nlog \"b\"\n")));
    }

    #[test]
    fn a_refusal_names_the_construct_and_its_line() {
        let why = refusal(&parse("log \"a\"\nsetTimeout 1 {\n  log \"t\"\n}\ngc\n")).unwrap();
        assert!(
            why.starts_with("cannot run on a real clock: gc at line 5: "),
            "{why}"
        );
        assert_eq!(refusal(&parse("setTimeout 1 {\n  log \"t\"\n}\n")), None);
        let advance = explain(
            &parse("log \"a\"\nrun turn\nlog \"b\"\nrun advance 9000\nlog \"c\"\n"),
            "nodesem prelude: Error: cannot run on a real clock: run advance 9000 (run statement 2): too long".into(),
        );
        assert_eq!(
            advance,
            "cannot run on a real clock: run advance 9000 at line 4: too long"
        );
    }
}
