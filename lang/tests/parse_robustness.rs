//! The parser never panics, and every diagnostic points inside the input.
//!
//! Three kinds of input: arbitrary strings; a soup of the language's own
//! tokens, which reaches deeper into the parser than random characters; and
//! valid printed scenarios with characters deleted, duplicated or swapped,
//! which are almost right and so exercise the error paths most. Whatever
//! parses must also survive printing and parsing again.

use nodesem_lang::gen::scenario_strategy;
use nodesem_lang::{parse, print};
use proptest::prelude::*;

/// Parses `text` and checks what the parser promises for any input: no
/// panic (a panic fails the test), diagnostics inside the text, and the
/// round trip for whatever it accepts.
fn check(text: &str) -> Result<(), TestCaseError> {
    let lines: Vec<&str> = text.split('\n').collect();
    match parse("input.scn", text) {
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
    fn parser_survives_token_soup(text in soup()) {
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
