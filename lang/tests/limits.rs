//! The static limits of `nodesem_lang::limits`: each one is a diagnostic
//! at an exact line and column, reported with the file's other errors, and
//! no input past one of them crashes the parser or overflows its stack.

use nodesem_lang::limits::{
    MAX_LIST, MAX_NESTING, MAX_PROPERTY_CHAIN, MAX_SAFE_INTEGER, MAX_SOURCE_BYTES,
};
use nodesem_lang::parser::parse_bytes;
use nodesem_lang::{parse, print, Scenario};

/// The diagnostics of `text`, as `file:line:col: message`.
fn errors(text: &str) -> Vec<String> {
    shown(parse("bad.scn", text).expect_err("the text should be refused"))
}

fn byte_errors(bytes: &[u8]) -> Vec<String> {
    shown(parse_bytes("bad.scn", bytes).expect_err("the bytes should be refused"))
}

fn shown(e: nodesem_lang::ParseError) -> Vec<String> {
    e.diagnostics.iter().map(|d| d.to_string()).collect()
}

/// Runs `f` on a thread with a 256 KiB stack: parsing 1 MB that recursed
/// per line (or per property, or per value) would overflow it many times
/// over, and a stack overflow aborts the whole test binary.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .expect("a thread starts")
        .join()
        .expect("the thread does not panic")
}

// ---- MAX_SOURCE_BYTES ------------------------------------------------------

#[test]
fn a_file_past_the_size_limit_is_one_diagnostic_where_it_crosses_the_limit() {
    assert_eq!(MAX_SOURCE_BYTES, 1_048_576);
    // 174,763 lines of 6 bytes: line 174,763 starts at byte 1,048,572, so
    // byte 1,048,576 (the first past the limit) is its 5th character.
    let text = "log 1\n".repeat(174_763);
    assert_eq!(
        errors(&text),
        vec!["bad.scn:174763:5: expected a scenario of at most 1048576 bytes, found 1048578 bytes (the limit is crossed here)"]
    );
    // The same one diagnostic for a far larger text, and from bytes.
    let huge = format!("{text}{}", "log x\n".repeat(200_000));
    assert_eq!(
        byte_errors(huge.as_bytes()),
        vec!["bad.scn:174763:5: expected a scenario of at most 1048576 bytes, found 2248578 bytes (the limit is crossed here)"]
    );
}

#[test]
fn a_file_of_exactly_the_size_limit_parses() {
    let mut text = "log 1\n".repeat(174_762);
    text.push_str("#abc");
    assert_eq!(text.len(), MAX_SOURCE_BYTES);
    let s = parse("max.scn", &text).expect("a file of exactly the limit is accepted");
    assert_eq!(s.body.len(), 174_763);
}

#[test]
fn the_size_limit_is_placed_at_the_character_it_falls_in() {
    // `#` then two-byte characters: byte 1,048,576 is the second byte of the
    // character that starts at byte 1,048,575, the 524,288th `é`, which is
    // column 524,289 (after the `#`).
    let text = format!("#{}", "é".repeat(600_000));
    assert_eq!(
        errors(&text),
        vec!["bad.scn:1:524289: expected a scenario of at most 1048576 bytes, found 1200001 bytes (the limit is crossed here)"]
    );
    // The limit is checked on the bytes before they are decoded.
    let mut bytes = text.into_bytes();
    bytes.push(0xff);
    assert_eq!(
        byte_errors(&bytes),
        vec!["bad.scn:1:524289: expected a scenario of at most 1048576 bytes, found 1200002 bytes (the limit is crossed here)"]
    );
}

// ---- MAX_NESTING -----------------------------------------------------------

/// `depth` nested `microtask` blocks, indented, each with a `log`.
fn nested(depth: usize) -> String {
    let mut text = String::new();
    for level in 0..depth {
        text.push_str(&"  ".repeat(level));
        text.push_str("microtask {\n");
    }
    text.push_str(&"  ".repeat(depth));
    text.push_str("log \"deepest\"\n");
    for level in (0..depth).rev() {
        text.push_str(&"  ".repeat(level));
        text.push_str("}\n");
    }
    text
}

#[test]
fn blocks_nest_up_to_the_limit_and_no_deeper() {
    assert_eq!(MAX_NESTING, 32);
    let deepest = nested(MAX_NESTING);
    let s = parse("deep.scn", &deepest).expect("32 levels are allowed");
    assert_eq!(print(&s), deepest);
    // Line 33 is `microtask {` indented by 64 spaces: its `{` is column 75.
    // The block's body is skipped, the rest of the file is parsed: the error
    // after it (33 openers, the `log`, 33 closers, then line 68) is reported
    // too.
    let text = format!("{}log nothing\n", nested(MAX_NESTING + 1));
    assert_eq!(
        errors(&text),
        vec![
            "bad.scn:33:75: expected blocks nested at most 32 deep, found a block at depth 33",
            "bad.scn:68:5: unknown binding `nothing`",
        ]
    );
}

#[test]
fn a_megabyte_of_nested_blocks_is_one_diagnostic_on_a_small_stack() {
    // 74,898 `microtask {` lines, then as many `}`: 1,048,572 bytes.
    let n = 74_898;
    let text = format!("{}{}", "microtask {\n".repeat(n), "}\n".repeat(n));
    assert!(text.len() <= MAX_SOURCE_BYTES);
    let errs = on_small_stack(move || errors(&text));
    assert_eq!(
        errs,
        vec!["bad.scn:33:11: expected blocks nested at most 32 deep, found a block at depth 33"]
    );
}

#[test]
fn a_megabyte_of_unclosed_blocks_is_two_diagnostics_on_a_small_stack() {
    // 87,381 `microtask {` lines and nothing else: 1,048,572 bytes. The
    // blocks left open are one diagnostic, at the end of the last line.
    let n = 87_381;
    let text = "microtask {\n".repeat(n);
    assert!(text.len() <= MAX_SOURCE_BYTES);
    let errs = on_small_stack(move || errors(&text));
    assert_eq!(
        errs,
        vec![
            "bad.scn:33:11: expected blocks nested at most 32 deep, found a block at depth 33",
            "bad.scn:87381:12: expected `}` closing the block opened at line 32, found the end of the file (the 31 blocks around it are not closed either)",
        ]
    );
}

#[test]
fn every_kind_of_block_counts_towards_the_nesting_limit() {
    // A listener, a reaction, a `try` and a function, nested 33 deep.
    let openers = ["on t x {", "then p {", "try {", "let f{} = fn {"];
    let mut text = String::from("let t = target\nlet p = resolved 1\n");
    for level in 0..=MAX_NESTING {
        text.push_str(&"  ".repeat(level));
        text.push_str(&openers[level % openers.len()].replace("{}", &level.to_string()));
        text.push('\n');
    }
    for level in (0..=MAX_NESTING).rev() {
        text.push_str(&"  ".repeat(level));
        text.push_str("}\n");
    }
    // Level 32 (0-based) is `on t x {` at line 35, indented by 64: `{` is
    // column 64 + 8 = 72.
    assert_eq!(
        errors(&text),
        vec!["bad.scn:35:72: expected blocks nested at most 32 deep, found a block at depth 33"]
    );
}

// ---- MAX_PROPERTY_CHAIN ----------------------------------------------------

#[test]
fn property_chains_are_limited() {
    assert_eq!(MAX_PROPERTY_CHAIN, 8);
    let eight = format!("let x = \"s\"\nlog x{}\n", ".name".repeat(8));
    parse("ok.scn", &eight).expect("a chain of 8 properties is allowed");
    // `log x` is columns 1 to 5; the 9th `.` is at column 6 + 5 * 8 = 46.
    let nine = format!("let x = \"s\"\nlog x{}\nlog y\n", ".name".repeat(9));
    assert_eq!(
        errors(&nine),
        vec![
            "bad.scn:2:46: expected a property chain of at most 8 properties, found 9",
            "bad.scn:3:5: unknown binding `y`",
        ]
    );
}

#[test]
fn a_megabyte_property_chain_is_one_diagnostic_on_a_small_stack() {
    let n = (MAX_SOURCE_BYTES - 20) / 5;
    let text = format!("let x = \"s\"\nlog x{}\n", ".name".repeat(n));
    assert!(text.len() <= MAX_SOURCE_BYTES);
    let errs = on_small_stack(move || errors(&text));
    assert_eq!(
        errs,
        vec![format!(
            "bad.scn:2:46: expected a property chain of at most 8 properties, found {n}"
        )]
    );
}

// ---- MAX_LIST ----------------------------------------------------------------

#[test]
fn a_log_holds_at_most_the_list_limit() {
    assert_eq!(MAX_LIST, 256);
    let full = format!("log{}\n", " 1".repeat(256));
    parse("ok.scn", &full).expect("256 values are allowed");
    // `log` then ` 1` per value: value k is at column 3 + 2k, the 257th at
    // 517.
    let text = format!("log{}\nlog y\n", " 1".repeat(300));
    assert_eq!(
        errors(&text),
        vec![
            "bad.scn:1:517: expected at most 256 values in one `log`, found 300",
            "bad.scn:2:5: unknown binding `y`",
        ]
    );
}

#[test]
fn an_any_holds_at_most_the_list_limit() {
    let list = |n: usize| vec!["a"; n].join(", ");
    let full = format!("let a = aborted\nlet s = any [{}]\n", list(256));
    parse("ok.scn", &full).expect("256 signals are allowed");
    // `let s = any [` is 13 columns; signal k starts at 14 + 3(k - 1), the
    // 257th at 782.
    let text = format!("let a = aborted\nlet s = any [{}]\n", list(257));
    assert_eq!(
        errors(&text),
        vec!["bad.scn:2:782: expected at most 256 signals in one `any [...]`, found 257"]
    );
}

#[test]
fn a_megabyte_log_line_is_one_diagnostic_on_a_small_stack() {
    let n = (MAX_SOURCE_BYTES - 10) / 2;
    let text = format!("log{}\n", " 7".repeat(n));
    let errs = on_small_stack(move || errors(&text));
    assert_eq!(
        errs,
        vec![format!(
            "bad.scn:1:517: expected at most 256 values in one `log`, found {n}"
        )]
    );
}

// ---- MAX_SAFE_INTEGER ----------------------------------------------------------

#[test]
fn integers_lie_in_javascripts_safe_range() {
    assert_eq!(MAX_SAFE_INTEGER, 9_007_199_254_740_991);
    let edges = "log 9007199254740991 -9007199254740991\n";
    let s = parse("ok.scn", edges).expect("the safe range's ends are allowed");
    assert_eq!(print(&s), edges);
    assert_eq!(
        errors("log 9007199254740993\nlog 1 -9007199254740992\nlog 99999999999999999999\n"),
        vec![
            "bad.scn:1:5: expected an integer from -9007199254740991 to 9007199254740991 (JavaScript's safe range), found 9007199254740993",
            "bad.scn:2:7: expected an integer from -9007199254740991 to 9007199254740991 (JavaScript's safe range), found -9007199254740992",
            "bad.scn:3:5: expected an integer from -9007199254740991 to 9007199254740991 (JavaScript's safe range), found 99999999999999999999",
        ]
    );
}

// ---- the temporal dead zone of `let` ----------------------------------------------

#[test]
fn a_binding_is_not_initialized_in_its_own_operands() {
    assert_eq!(
        errors("let p = then p {\n}\n"),
        vec!["bad.scn:1:14: `p` is used in its own `let` before it is initialized (JavaScript throws: Cannot access 'p' before initialization)"]
    );
    // Inside a listener, for `catch`, and with other errors after it.
    let text = "let t = target\non t x {\n  let q = catch q {\n    log reason\n  }\n}\nlog z\n";
    assert_eq!(
        errors(text),
        vec![
            "bad.scn:3:17: `q` is used in its own `let` before it is initialized (JavaScript throws: Cannot access 'q' before initialization)",
            "bad.scn:7:5: unknown binding `z`",
        ]
    );
    // A named listener operand of `addAbortListener` is an operand too.
    assert_eq!(
        errors("let a = aborted\nlet d = addAbortListener a d\n"),
        vec!["bad.scn:2:28: `d` is used in its own `let` before it is initialized (JavaScript throws: Cannot access 'd' before initialization)"]
    );
}

#[test]
fn a_binding_is_initialized_in_its_own_callbacks() {
    let text = "\
let t = target
let f = fn {
  off t x f
}
let h = setTimeout 5 {
  clearTimeout h
}
let p = resolved 1
let q = then p {
  log q
} else {
  then q {
    log value
  }
}
let d = addAbortListener t.signal {
  dispose d
}
";
    // `t.signal` is not a property of an EventTarget: use a controller.
    let text = text.replace(
        "let d = addAbortListener t.signal {",
        "let c = controller\nlet d = addAbortListener c.signal {",
    );
    let s = parse("ok.scn", &text).expect("callbacks may use their own binding");
    assert_eq!(print(&s), text);
}

// ---- UTF-8 -------------------------------------------------------------------------

#[test]
fn invalid_utf8_is_a_diagnostic_at_its_line_and_column() {
    // The column counts characters: `é` is two bytes but one column.
    let bytes = b"log 1\nlog \"\xc3\xa9\xff\"\n# \xe2\x82\nlog x\n";
    assert_eq!(
        byte_errors(bytes),
        vec![
            "bad.scn:2:7: expected UTF-8 text, found the invalid byte 0xff",
            "bad.scn:3:3: expected UTF-8 text, found the invalid byte 0xe2",
            "bad.scn:4:5: unknown binding `x`",
        ]
    );
}

#[test]
fn an_invalid_line_that_opens_a_block_skips_it() {
    let bytes = b"\xfemicrotask {\n  log x\n}\nlog y\n";
    assert_eq!(
        byte_errors(bytes),
        vec![
            "bad.scn:1:1: expected UTF-8 text, found the invalid byte 0xfe",
            "bad.scn:4:5: unknown binding `y`",
        ]
    );
}

#[test]
fn valid_bytes_parse_as_their_text() {
    let text = "let c = controller\nabort c \"ünï\"\n";
    assert_eq!(
        parse_bytes("ok.scn", text.as_bytes()),
        parse("ok.scn", text)
    );
    assert_eq!(parse_bytes("ok.scn", b""), Ok(Scenario::default()));
}

// ---- the end of the file inside a block ---------------------------------------------

#[test]
fn an_unclosed_block_is_reported_at_the_last_line_with_text() {
    // Not on the empty "line" after the final line break, nor on blank
    // lines: at the end of `  log 1` (7 characters).
    assert_eq!(
        errors("microtask {\n  log 1\n\n  \n"),
        vec!["bad.scn:2:8: expected `}` closing the block opened at line 1, found the end of the file"]
    );
    assert_eq!(
        errors("microtask {\r\n  log 1\r\n"),
        vec!["bad.scn:2:8: expected `}` closing the block opened at line 1, found the end of the file"]
    );
    // Two open blocks: one diagnostic, for the innermost.
    assert_eq!(
        errors("microtask {\n  tick {\n    log 1"),
        vec!["bad.scn:3:10: expected `}` closing the block opened at line 2, found the end of the file (the block around it is not closed either)"]
    );
    // A comment is text too.
    assert_eq!(
        errors("microtask {\n# the end\n"),
        vec!["bad.scn:2:10: expected `}` closing the block opened at line 1, found the end of the file"]
    );
}

// ---- the printer -----------------------------------------------------------------------

/// A valid scenario nested as deep as the language allows, with every
/// kind of block and a statement before and after each nested one.
fn maximally_nested() -> String {
    let openers = [
        "microtask {",
        "tick {",
        "setTimeout 1 {",
        "setImmediate {",
        "then p {",
        "catch p {",
        "finally p {",
        // `let` and `on`: the deepest recursion of the parser per level.
        "let l{} = on t x once {",
        "onabort c.signal {",
        "addAbortListener c.signal {",
        "let f{} = fn {",
        "try {",
    ];
    let mut text = String::from("let c = controller\nlet t = target\nlet p = resolved 1\n");
    for level in 0..MAX_NESTING {
        let indent = "  ".repeat(level);
        text.push_str(&format!("{indent}log \"level {level}\" c.signal.aborted\n"));
        text.push_str(&indent);
        text.push_str(&openers[level % openers.len()].replace("{}", &level.to_string()));
        text.push('\n');
    }
    text.push_str(&"  ".repeat(MAX_NESTING));
    text.push_str("log \"deepest\"\n");
    for level in (0..MAX_NESTING).rev() {
        let indent = "  ".repeat(level);
        if openers[level % openers.len()].starts_with("then") {
            text.push_str(&format!("{indent}}} else {{\n{indent}  log reason\n"));
        }
        text.push_str(&format!("{indent}}}\n{indent}log \"after {level}\"\n"));
    }
    text
}

#[test]
fn the_printer_prints_a_maximally_nested_scenario_on_a_small_stack() {
    let text = maximally_nested();
    let (parsed_back, printed, original) = on_small_stack(move || {
        let s = parse("deep.scn", &text).expect("the deepest valid nesting parses");
        let printed = print(&s);
        let back = parse("printed.scn", &printed).expect("its printed form parses");
        (back == s, printed, text)
    });
    assert!(parsed_back, "parse(print(s)) == s");
    // Canonical already, so printing gives the text back: the output is as
    // long as the input, each line indented by at most 2 * MAX_NESTING.
    assert_eq!(printed, original);
    let widest_indent = printed
        .lines()
        .map(|l| l.len() - l.trim_start().len())
        .max()
        .unwrap_or(0);
    assert_eq!(widest_indent, 2 * MAX_NESTING);
}
