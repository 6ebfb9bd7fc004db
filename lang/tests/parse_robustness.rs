//! The parser never panics, and every diagnostic points inside the input.
//!
//! Five kinds of input: arbitrary strings; arbitrary bytes, through
//! `parse_bytes`; a soup of the language's own tokens, which reaches deeper
//! into the parser than random characters; pieces of the language repeated
//! hundreds of times, past the static limits (nesting, lists, property
//! chains); and valid printed scenarios with characters deleted, duplicated
//! or swapped, which are almost right and so exercise the error paths most.
//! Whatever parses must also survive printing and parsing again.

use nodesem_lang::gen::scenario_strategy;
use nodesem_lang::parser::parse_bytes;
use nodesem_lang::{parse, print, ParseError, Scenario};
use proptest::prelude::*;

/// Parses `text` and checks what the parser promises for any input: no
/// panic (a panic fails the test), diagnostics inside the text, and the
/// round trip for whatever it accepts.
fn check(text: &str) -> Result<(), TestCaseError> {
    check_result(text, parse("input.scn", text))
}

/// The same for bytes: positions are checked against the text with each
/// invalid sequence replaced by one character, as columns count them.
fn check_bytes(bytes: &[u8]) -> Result<(), TestCaseError> {
    let result = parse_bytes("input.scn", bytes);
    if std::str::from_utf8(bytes).is_err() {
        prop_assert!(result.is_err(), "accepted invalid UTF-8 {:?}", bytes);
    }
    check_result(&String::from_utf8_lossy(bytes), result)
}

fn check_result(text: &str, result: Result<Scenario, ParseError>) -> Result<(), TestCaseError> {
    let lines: Vec<&str> = text.split('\n').collect();
    match result {
        Ok(s) => {
            let printed = print(&s);
            let again = parse("printed.scn", &printed).map_err(|e| {
                TestCaseError::fail(format!(
                    "accepted {text:?}, but not its printed form {printed:?}: {e}"
                ))
            })?;
            prop_assert_eq!(again, s, "accepted {:?}, printed as {:?}", text, printed);
        }
        Err(e) => {
            prop_assert!(
                !e.diagnostics.is_empty(),
                "an error without diagnostics for {:?}",
                text
            );
            for d in &e.diagnostics {
                prop_assert_eq!(&d.file, "input.scn");
                prop_assert!(
                    (1..=lines.len()).contains(&d.line),
                    "line {} outside 1..={} in {}, for {:?}",
                    d.line,
                    lines.len(),
                    d,
                    text
                );
                let width = lines[d.line - 1].chars().count();
                prop_assert!(
                    (1..=width + 1).contains(&d.col),
                    "column outside 1..={} in {}, for {:?}",
                    width + 1,
                    d,
                    text
                );
            }
        }
    }
    Ok(())
}

/// Pieces of the language, so that random concatenations get past the lexer.
const PIECES: &[&str] = &[
    "let ",
    "x",
    "c",
    "s",
    "t",
    "f",
    " = ",
    "controller",
    "target",
    "abort ",
    "aborted",
    "timeout ",
    "any [",
    "]",
    ", ",
    "throwIfAborted ",
    "onabort ",
    "addAbortListener ",
    "dispose ",
    "fn",
    "on ",
    "off ",
    "dispatch ",
    "preventDefault ",
    "event",
    ".type",
    ".signal",
    ".aborted",
    ".reason",
    "value",
    "reason",
    " once",
    " capture",
    " passive",
    " signal ",
    " cancelable",
    "microtask",
    "tick",
    "setTimeout ",
    "clearTimeout ",
    "setImmediate",
    "promise",
    "resolve ",
    "reject ",
    "then ",
    " else",
    "catch ",
    "finally ",
    "log ",
    "try",
    "throw ",
    "return",
    "run turn",
    "run idle",
    "run advance ",
    "0",
    "5",
    "-1",
    "99999999999999999999",
    "\"boom\"",
    "\"a\\\"b\"",
    "\"\\u{41}\"",
    "\"\\u{d800}\"",
    "\"\\q\"",
    "\"unterminated",
    "Error(\"e\")",
    "Error(",
    "undefined",
    "null",
    " {",
    "{",
    "}",
    "} else {",
    "\n",
    "\n",
    "\n",
    "  ",
    "# comment\n",
    "\r\n",
    "\t",
    "(",
    ")",
    ".",
    "$",
    "é",
    "@",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..80).prop_map(|pieces| pieces.concat())
}

/// Runs that reach the static limits: a prefix, a piece repeated many
/// times, a suffix. Blocks to nest, values for a `log` or an `any`,
/// properties for a chain, digits for an integer.
const RUNS: &[(&str, &str, &str)] = &[
    ("", "microtask {\n", ""),
    ("", "  tick {\n", ""),
    ("let p = resolved 1\n", "then p {\n", ""),
    ("let t = target\n", "on t x {\n", ""),
    ("", "}\n", ""),
    ("", "} else {\n", ""),
    ("", "\n", ""),
    ("let x = \"s\"\nlog x", ".name", "\n"),
    ("log Error(\"e\")", ".message", "\n"),
    ("log", " 1", "\n"),
    ("log", " x.name", "\n"),
    ("let s = aborted\nlet a = any [s", ", s", "]\n"),
    ("log ", "9", "\n"),
    ("log -", "1", "\n"),
];

/// A few runs, each repeated up to 600 times.
fn repeated() -> impl Strategy<Value = String> {
    prop::collection::vec((prop::sample::select(RUNS), 1usize..600), 0..8).prop_map(|runs| {
        runs.iter()
            .map(|((prefix, piece, suffix), n)| format!("{prefix}{}{suffix}", piece.repeat(*n)))
            .collect()
    })
}

/// A small edit of a text: delete, duplicate or swap characters.
#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize),
    Duplicate(usize),
    Swap(usize, usize),
    Insert(usize, char),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Duplicate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        (
            any::<usize>(),
            prop::sample::select(vec![
                '{', '}', '"', '\n', '\r', ' ', '.', '#', '\\', 'x', '0'
            ])
        )
            .prop_map(|(a, c)| Mutation::Insert(a, c)),
    ]
}

fn mutate(text: &str, mutations: &[Mutation]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for m in mutations {
        if chars.is_empty() {
            break;
        }
        let n = chars.len();
        match *m {
            Mutation::Delete(i) => {
                chars.remove(i % n);
            }
            Mutation::Duplicate(i) => {
                let c = chars[i % n];
                chars.insert(i % n, c);
            }
            Mutation::Swap(i, j) => chars.swap(i % n, j % n),
            Mutation::Insert(i, c) => chars.insert(i % (n + 1), c),
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn parser_survives_arbitrary_strings(text in any::<String>()) {
        check(&text)?;
    }

    #[test]
    fn parser_survives_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        check_bytes(&bytes)?;
    }

    #[test]
    fn parser_survives_token_soup(text in soup()) {
        check(&text)?;
    }

    #[test]
    fn parser_survives_inputs_past_the_limits(text in repeated()) {
        check(&text)?;
    }

    #[test]
    fn parser_survives_mutated_scenarios(
        s in scenario_strategy(),
        mutations in prop::collection::vec(mutation(), 1..6),
    ) {
        check(&mutate(&print(&s), &mutations))?;
    }
}

#[test]
fn edge_inputs() {
    let texts = [
        "",
        "\n",
        "{",
        "}",
        "on t x {",
        "let",
        "\"",
        "log \"\\",
        "log \"\\u{",
        "try {\n}\n}",
        "\r",
        "#",
        // A comment ending in two `\r`s once lost one in the round trip.
        "# a\r\r\n",
        "#\r \r",
        "  # \r\r",
    ];
    for text in texts {
        check(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    }
}
