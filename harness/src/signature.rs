//! The cause of a divergence, as a key: which engines part ways, and the
//! shape of the first line where they do.
//!
//! A fuzz run finds the same bug through thousands of scenarios, each with
//! its own binding names and log labels (`listener7 fired`, `h33`), so their
//! first differing lines are all different strings. The *shape* of a line
//! keeps what the engines themselves print (the values JavaScript formats,
//! `true`, `[AbortSignal]`, the class of an error, the `caught` and
//! `uncaught` prefixes) and replaces what the script chose (labels such as
//! `l3` or `log12`, strings, numbers) with a placeholder. Two divergences with the same engines and the
//! same shapes on both sides are taken to have the same cause: the shrinker
//! keeps a candidate only if its signature is unchanged, so shrinking cannot
//! wander to another bug, and the fuzz loop groups findings by the
//! signature of their shrunk form.

use std::fmt;

use serde::{Deserialize, Serialize};

use nodesem_lang::Log;

use crate::check::first_difference;

/// The cause of one divergence.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Signature {
    /// The reference engine and the other one.
    pub engines: [String; 2],
    /// The shape of the reference engine's first differing line (`None`:
    /// its log ended there).
    pub expected: Option<String>,
    /// The shape of the other engine's line there.
    pub actual: Option<String>,
    /// For an engine failure: its kind (`crashed`, `timed out`, `failed`),
    /// instead of lines.
    pub failure: Option<String>,
}

impl Signature {
    /// The signature of two logs that differ, or `None` when they agree.
    pub fn of_logs(engines: [String; 2], a: &Log, b: &Log) -> Option<Signature> {
        let (_, x, y) = first_difference(a, b)?;
        let (expected, actual) = match (x.as_deref().map(shape), y.as_deref().map(shape)) {
            // One side reports an exception where the other goes on: the
            // exception is the cause, whatever the other side was doing.
            (Some(x), Some(y)) if is_exception(&x) != is_exception(&y) => {
                if is_exception(&x) {
                    (Some(x), Some("*".into()))
                } else {
                    (Some("*".into()), Some(y))
                }
            }
            (Some(x), Some(y)) => {
                let (x, y) = differing_core(&x, &y);
                (Some(x), Some(y))
            }
            other => other,
        };
        Some(Signature {
            engines,
            expected,
            actual,
            failure: None,
        })
    }

    /// The signature of an engine failure.
    pub fn of_failure(engines: [String; 2], kind: &str) -> Signature {
        Signature {
            engines,
            expected: None,
            actual: None,
            failure: Some(kind.to_string()),
        }
    }

    /// A short stable id: 12 hex digits of an FNV-1a hash of the display
    /// form (stable across runs and builds, unlike std's hasher).
    pub fn id(&self) -> String {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in self.to_string().bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        format!("{:012x}", hash >> 16)
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} vs {}: ", self.engines[0], self.engines[1])?;
        if let Some(kind) = &self.failure {
            return write!(f, "engine {kind}");
        }
        let side = |s: &Option<String>| s.clone().unwrap_or_else(|| "<end of log>".into());
        write!(f, "{} | {}", side(&self.expected), side(&self.actual))
    }
}

/// Whether a shape is an engine's report of an exception.
fn is_exception(shape: &str) -> bool {
    shape.starts_with("caught ")
        || shape.starts_with("uncaught ")
        || shape.starts_with("unhandled rejection")
}

/// Two shapes without the words they share at their start and at their end:
/// what is the same on both sides is not the difference (`_ true true` and
/// `_ true false` differ in `true | false`).
pub fn differing_core(x: &str, y: &str) -> (String, String) {
    let xs: Vec<&str> = x.split(' ').collect();
    let ys: Vec<&str> = y.split(' ').collect();
    let prefix = xs.iter().zip(&ys).take_while(|(a, b)| a == b).count();
    let room = xs.len().min(ys.len()) - prefix;
    let suffix = xs
        .iter()
        .rev()
        .zip(ys.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    let core = |words: &[&str]| words[prefix..words.len() - suffix].join(" ");
    (core(&xs), core(&ys))
}

/// The shape of a log line: what the engines themselves print is kept,
/// what the script chose is `_`.
///
/// Kept: the values JavaScript formats (`true`, `false`, `undefined`,
/// `null`, `[AbortSignal]` and other tags, `Event(type)`), the class of an
/// error (`AbortError:`, `TypeError:`, its message dropped), and the
/// engines' own line prefixes (`caught`, `uncaught`, `unhandled
/// rejection`, `budget exhausted:`). Everything else (labels, strings the
/// script logged or aborted with, numbers) becomes `_`, and a run of them
/// one `_`: `l3 fired true` and `h9 true` are both `_ true`, `caught quote"d`
/// and `caught boom` both `caught _`.
pub fn shape(line: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut first = true;
    let mut in_message = false;
    for word in line.split(' ') {
        let prefix = first && matches!(word, "caught" | "uncaught" | "unhandled" | "budget")
            || (out.last() == Some(&"unhandled") && word == "rejection")
            || (out.last() == Some(&"budget") && word == "exhausted:");
        first = false;
        let kept = prefix
            || matches!(word, "true" | "false" | "undefined" | "null")
            || (word.starts_with('[') && word.ends_with(']') && word.len() > 2)
            || (word.starts_with("Event(") && word.ends_with(')'));
        let error_class = word.len() > 1
            && word.ends_with(':')
            && word.starts_with(|c: char| c.is_ascii_uppercase())
            && word[..word.len() - 1]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric());
        // `undefined` and `null` also stand in messages ("Cannot read
        // properties of null"): inside one they are part of it.
        let ends_message = kept && !matches!(word, "undefined" | "null");
        if kept && (!in_message || ends_message) {
            in_message = false;
            out.push(word);
        } else if error_class {
            // The message that follows is the script's or the engine's
            // words; the class says what kind of error it is.
            in_message = true;
            out.push(word);
        } else if in_message {
            continue;
        } else if out.last() != Some(&"_") {
            out.push("_");
        }
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers_are_placeholders_values_stay() {
        assert_eq!(shape("l3 fired true"), "_ true");
        assert_eq!(shape("log12 -4 [AbortSignal]"), "_ [AbortSignal]");
        assert_eq!(shape("caught quote\"d"), shape("caught tab\there"));
        assert_eq!(
            shape("uncaught TypeError: Cannot read properties of null (reading 'x')"),
            "uncaught TypeError:"
        );
        assert_eq!(
            shape("l1 AbortError: This operation was aborted true"),
            "_ AbortError: true"
        );
        assert_eq!(
            shape("budget exhausted: more than 10000 callbacks"),
            "budget exhausted: _"
        );
        assert_eq!(shape("unhandled rejection x"), "unhandled rejection _");
    }

    #[test]
    fn the_shared_start_and_end_are_not_the_difference() {
        assert_eq!(
            differing_core("_ true true", "_ true false"),
            ("true".to_string(), "false".to_string())
        );
        assert_eq!(
            differing_core("caught _", "_ false"),
            ("caught _".to_string(), "_ false".to_string())
        );
        assert_eq!(differing_core("_", "_ _"), (String::new(), "_".to_string()));
    }

    #[test]
    fn an_exception_on_one_side_is_the_cause() {
        let log = |line: &str| Log {
            lines: vec![line.to_string()],
        };
        let names = || ["a".to_string(), "b".to_string()];
        let one =
            Signature::of_logs(names(), &log("l1 true"), &log("uncaught TypeError: x")).unwrap();
        let two = Signature::of_logs(
            names(),
            &log("h3 [AbortSignal] null"),
            &log("uncaught TypeError: y"),
        )
        .unwrap();
        assert_eq!(one, two);
        assert_eq!(one.to_string(), "a vs b: * | uncaught TypeError:");
    }

    #[test]
    fn the_id_is_stable_and_depends_on_the_shapes() {
        let a = Signature {
            engines: ["model".into(), "impl".into()],
            expected: Some("_ true".into()),
            actual: None,
            failure: None,
        };
        assert_eq!(a.id(), a.clone().id());
        assert_eq!(a.id().len(), 12);
        let mut b = a.clone();
        b.actual = Some("_ false".into());
        assert_ne!(a.id(), b.id());
    }
}
