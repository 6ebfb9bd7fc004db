//! Scenario text into JavaScript source, safely.
//!
//! Scenario text is untrusted: a comment, a string, an event type or a file
//! name can hold anything, and the emitted program runs on real Node. So
//! every piece of scenario text that reaches JavaScript source goes through
//! [`escape`], the one escaping function, either inside a string literal
//! ([`string_literal`]) or inside a line comment ([`line_comment`]).
//! Identifiers are not escaped but checked ([`identifier`]).
//!
//! A line comment ends at any ECMAScript *LineTerminator*: LF, CR, and also
//! U+2028 and U+2029 (ECMA-262 §12.3), which is how a comment holding
//! `x<U+2028>process.exit()` ran code before this module existed. [`escape`]
//! writes every line terminator, every control character and every
//! invisible formatting character (bidirectional overrides, zero-width
//! characters, the byte order mark, whose display can make a program read
//! differently from what it does) as an escape sequence, so the text
//! can neither end its comment or literal nor hide anything from a reader.
//! The escapes are JSON's, a subset of JavaScript's, so [`verify`] can
//! check with a real JavaScript tokenizer (ress) that the emitted source
//! holds exactly one comment and one literal that decode back to the text.

use std::fmt::Write;

/// Where escaped text goes: it decides whether `"` needs escaping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    /// Inside a double-quoted string literal.
    DoubleQuoted,
    /// Inside a `//` line comment.
    LineComment,
}

/// Whether a character is written as an escape whatever the context: line
/// terminators, controls and invisible formatting characters.
fn must_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' // LINE and PARAGRAPH SEPARATOR: line terminators in JS
            | '\u{061c}' | '\u{200e}' | '\u{200f}' // bidi marks
            | '\u{202a}'..='\u{202e}' // bidi embeddings and overrides
            | '\u{2066}'..='\u{2069}' // bidi isolates
            | '\u{200b}'..='\u{200d}' // zero-width space and joiners
            | '\u{2060}' | '\u{feff}' // word joiner, byte order mark
        )
}

/// The one escaping function: `text` as the inside of a JavaScript string
/// literal or line comment. The result has no line terminator and no
/// control or invisible character; `\` is always escaped, `"` in a string
/// literal only, so the mapping is reversible in both contexts.
pub fn escape(text: &str, context: Context) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' if context == Context::DoubleQuoted => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if must_escape(c) => {
                // Every such character is in the Basic Multilingual Plane.
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` as a JavaScript string literal.
pub fn string_literal(text: &str) -> String {
    format!("\"{}\"", escape(text, Context::DoubleQuoted))
}

/// `text` as one JavaScript line comment, `// text` (`//` alone when empty).
pub fn line_comment(text: &str) -> String {
    if text.is_empty() {
        "//".to_string()
    } else {
        format!("// {}", escape(text, Context::LineComment))
    }
}

/// Whether `name` is an identifier that can be written into JavaScript as
/// it is: ASCII letters, digits, `_` and `$`, not starting with a digit. The
/// parser only accepts binding and property names of this form (and no
/// reserved word); the emitter checks again, since a [`nodesem_lang::Scenario`]
/// can also come from JSON or a generator.
pub fn is_plain_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// `name` as a JavaScript identifier. A name that is not a plain identifier
/// cannot come from a valid scenario; it becomes an identifier no scenario
/// declares (`$invalid_` and its bytes in hex), so the program fails with a
/// ReferenceError instead of running what the name holds.
pub fn identifier(name: &str) -> String {
    if is_plain_identifier(name) {
        name.to_string()
    } else {
        let mut out = String::from("$invalid_");
        for b in name.bytes() {
            let _ = write!(out, "{b:02x}");
        }
        out
    }
}

/// Checks, with a real JavaScript tokenizer, that `text` emitted as a line
/// comment followed by a string literal is exactly one comment and one
/// string literal, each decoding back to `text`. The property test and the
/// `js_escape` fuzz target call this on arbitrary text.
pub fn verify(text: &str) -> Result<(), String> {
    let source = format!("{}\n{};", line_comment(text), string_literal(text));
    let mut tokens = Vec::new();
    for item in ress::Scanner::new(&source) {
        let item = item.map_err(|e| format!("the tokenizer failed on {source:?}: {e}"))?;
        if item.token.is_eof() {
            break;
        }
        tokens.push(item.token);
    }
    let [comment, literal, semicolon] = tokens.as_slice() else {
        return Err(format!(
            "expected a comment, a string and `;`, found {} tokens in {source:?}: {tokens:?}",
            tokens.len()
        ));
    };
    let ress::tokens::Token::Comment(comment) = comment else {
        return Err(format!("expected a comment first, found {comment:?}"));
    };
    if !comment.is_single_line() {
        return Err(format!("expected a line comment, found {comment:?}"));
    }
    let content = comment.content.to_string();
    let decoded_comment = if text.is_empty() {
        (content.is_empty()).then(String::new)
    } else {
        content
            .strip_prefix(' ')
            .and_then(|inner| decode(&inner.replace('"', "\\\"")))
    };
    if decoded_comment.as_deref() != Some(text) {
        return Err(format!(
            "the comment {content:?} does not decode to {text:?}"
        ));
    }
    let ress::tokens::Token::String(ress::tokens::StringLit::Double(inner)) = literal else {
        return Err(format!(
            "expected a double-quoted string, found {literal:?}"
        ));
    };
    let raw = inner.content.to_string();
    if decode(&raw).as_deref() != Some(text) {
        return Err(format!("the literal {raw:?} does not decode to {text:?}"));
    }
    if !semicolon.matches_punct_str(";") {
        return Err(format!(
            "expected `;` after the literal, found {semicolon:?}"
        ));
    }
    Ok(())
}

/// The value of a string literal's inside, by JSON's rules (the escapes
/// [`escape`] writes are JSON's, which JavaScript reads the same way).
fn decode(inside: &str) -> Option<String> {
    serde_json::from_str(&format!("\"{inside}\"")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_terminators_never_reach_the_source() {
        for text in [
            "a\u{2028}process.exit(1)",
            "a\u{2029}b",
            "a\nb",
            "a\rb",
            "\u{202e}evil",
        ] {
            let comment = line_comment(text);
            assert!(
                !comment.contains(['\n', '\r', '\u{2028}', '\u{2029}', '\u{202e}']),
                "{comment:?}"
            );
            verify(text).unwrap();
        }
    }

    #[test]
    fn comments_stay_readable() {
        assert_eq!(line_comment(r#"it's "quoted""#), r#"// it's "quoted""#);
        assert_eq!(string_literal(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(line_comment(""), "//");
    }

    #[test]
    fn identifiers_are_checked_not_trusted() {
        assert_eq!(identifier("abc_1"), "abc_1");
        assert_eq!(identifier("a;b"), "$invalid_613b62");
        assert_eq!(identifier(""), "$invalid_");
        assert_eq!(identifier("1a"), "$invalid_3161");
    }
}
