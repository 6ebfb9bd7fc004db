//! The lexer: one line of scenario text into tokens with their columns.
//!
//! The language is line-oriented, so the lexer works a line at a time and
//! every token knows its 1-based column; the parser adds the line number.

use crate::limits::MAX_SAFE_INTEGER;

/// A token of one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// An identifier or keyword: `[A-Za-z_$][A-Za-z0-9_$-]*`.
    Word(String),
    /// A string literal, unescaped.
    Str(String),
    /// An integer literal, within ±[`MAX_SAFE_INTEGER`].
    Int(i64),
    /// A number literal with a fraction, such as `1.5`, or `-0`: the bits
    /// of its value.
    Number(u64),
    /// `{}` written without a space: an empty object literal.
    EmptyObject,
    /// One of `= [ ] , { } . ( )`.
    Punct(char),
}

impl Tok {
    /// How the token is named in an error message.
    pub fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("`{w}`"),
            Tok::Str(s) => format!("the string {}", crate::printer::quote(s)),
            Tok::Int(i) => format!("the number {i}"),
            Tok::Number(bits) => format!(
                "the number {:?}",
                crate::ast::Number::new(f64::from_bits(*bits))
            ),
            Tok::EmptyObject => "`{}`".into(),
            Tok::Punct(c) => format!("`{c}`"),
        }
    }
}

/// A token with its 1-based column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spanned {
    /// The token.
    pub tok: Tok,
    /// The column of its first character, 1-based, in characters.
    pub col: usize,
}

/// A lexical error: the column and what went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    /// The 1-based column.
    pub col: usize,
    /// What was expected and found.
    pub message: String,
}

/// Whether `s` can be written without quotes as an event type.
pub fn is_bare_word(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn is_word_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '$'
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '-'
}

/// The longest number literal with a fraction, in characters: enough for
/// every digit a double has, and a bound on what the lexer reads.
const MAX_NUMBER_CHARS: usize = 40;

/// How an out-of-range integer literal is named in a message: itself, or its
/// length when it is too long to show.
fn shown_number(text: &str) -> String {
    const SHOWN: usize = 40;
    if text.len() <= SHOWN {
        text.to_string()
    } else {
        let digits = text.trim_start_matches('-').len();
        format!("a number of {digits} digits")
    }
}

/// Splits one line (without its newline) into tokens.
///
/// Integers must lie within JavaScript's safe range,
/// ±[`MAX_SAFE_INTEGER`]: beyond it a literal is not the same number in
/// every engine.
pub fn lex_line(line: &str) -> Result<Vec<Spanned>, LexError> {
    let chars: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c == ' ' || c == '\t' {
            i += 1;
        } else if is_word_start(c) {
            let start = i;
            while i < chars.len() && is_word_char(chars[i]) {
                i += 1;
            }
            out.push(Spanned {
                tok: Tok::Word(chars[start..i].iter().collect()),
                col,
            });
        } else if c.is_ascii_digit()
            || (c == '-' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            // A fraction: digits, `.`, digits (`x.name` never follows a
            // number, so a `.` before a digit is the point).
            let fraction = i + 1 < chars.len() && chars[i] == '.' && chars[i + 1].is_ascii_digit();
            if fraction {
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
            }
            // An exponent, as JavaScript writes a fraction below 1e-6
            // (`1e-7`, `2.5e-10`): what the printer gives such a value.
            let exponent = chars.get(i) == Some(&'e')
                && chars.get(i + 1) == Some(&'-')
                && chars.get(i + 2).is_some_and(char::is_ascii_digit);
            if exponent {
                i += 2;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
            }
            let fraction = fraction || exponent;
            let text: String = chars[start..i].iter().collect();
            if i < chars.len() && is_word_char(chars[i]) {
                return Err(LexError {
                    col,
                    message: format!("expected a number, found `{text}{}`", chars[i]),
                });
            }
            if fraction || text == "-0" {
                let value = text
                    .parse::<f64>()
                    .ok()
                    .filter(|v| text.len() <= MAX_NUMBER_CHARS && v.abs() <= MAX_SAFE_INTEGER as f64)
                    .ok_or_else(|| LexError {
                        col,
                        message: format!(
                            "expected a number of at most {MAX_NUMBER_CHARS} characters from -{MAX_SAFE_INTEGER} to {MAX_SAFE_INTEGER}, found {}",
                            shown_number(&text)
                        ),
                    })?;
                out.push(Spanned {
                    tok: Tok::Number(value.to_bits()),
                    col,
                });
                continue;
            }
            let value = text
                .parse::<i64>()
                .ok()
                .filter(|v| v.unsigned_abs() <= MAX_SAFE_INTEGER.unsigned_abs())
                .ok_or_else(|| LexError {
                    col,
                    message: format!(
                        "expected an integer from -{MAX_SAFE_INTEGER} to {MAX_SAFE_INTEGER} (JavaScript's safe range), found {}",
                        shown_number(&text)
                    ),
                })?;
            out.push(Spanned {
                tok: Tok::Int(value),
                col,
            });
        } else if c == '"' {
            i += 1;
            let mut s = String::new();
            loop {
                let Some(&c) = chars.get(i) else {
                    return Err(LexError {
                        col,
                        message: "expected a closing `\"` before the end of the line".into(),
                    });
                };
                i += 1;
                match c {
                    '"' => break,
                    '\\' => {
                        let Some(&e) = chars.get(i) else {
                            return Err(LexError {
                                col: i + 1,
                                message: "expected an escape after `\\`".into(),
                            });
                        };
                        i += 1;
                        match e {
                            '"' => s.push('"'),
                            '\\' => s.push('\\'),
                            'n' => s.push('\n'),
                            't' => s.push('\t'),
                            'r' => s.push('\r'),
                            'u' => {
                                let esc_col = i - 1;
                                if chars.get(i) != Some(&'{') {
                                    return Err(LexError { col: esc_col, message: "expected `\\u{hex}`".into() });
                                }
                                let start = i + 1;
                                let Some(end) = chars[start..].iter().position(|&c| c == '}').map(|p| start + p) else {
                                    return Err(LexError { col: esc_col, message: "expected `}` closing `\\u{`".into() });
                                };
                                let hex: String = chars[start..end].iter().collect();
                                let ch = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32).ok_or_else(|| LexError {
                                    col: esc_col,
                                    message: format!("expected a Unicode scalar value in hex, found `{hex}`"),
                                })?;
                                s.push(ch);
                                i = end + 1;
                            }
                            other => {
                                return Err(LexError {
                                    col: i,
                                    message: format!("expected one of the escapes \\\" \\\\ \\n \\t \\r \\u{{..}}, found `\\{other}`"),
                                })
                            }
                        }
                    }
                    c => s.push(c),
                }
            }
            out.push(Spanned {
                tok: Tok::Str(s),
                col,
            });
        } else if c == '{' && chars.get(i + 1) == Some(&'}') {
            out.push(Spanned {
                tok: Tok::EmptyObject,
                col,
            });
            i += 2;
        } else if "=[],{}.()".contains(c) {
            out.push(Spanned {
                tok: Tok::Punct(c),
                col,
            });
            i += 1;
        } else {
            return Err(LexError {
                col,
                // Escaped, so that a stray `\r` or other control character
                // is visible in the message instead of garbling it.
                message: format!("unexpected character `{}`", c.escape_debug()),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexes_words_strings_numbers_and_punctuation() {
        let toks = lex_line(r#"let s = any [a.signal, "x\"y", -3]"#).unwrap();
        let kinds: Vec<Tok> = toks.into_iter().map(|t| t.tok).collect();
        assert_eq!(
            kinds,
            vec![
                Tok::Word("let".into()),
                Tok::Word("s".into()),
                Tok::Punct('='),
                Tok::Word("any".into()),
                Tok::Punct('['),
                Tok::Word("a".into()),
                Tok::Punct('.'),
                Tok::Word("signal".into()),
                Tok::Punct(','),
                Tok::Str("x\"y".into()),
                Tok::Punct(','),
                Tok::Int(-3),
                Tok::Punct(']'),
            ]
        );
    }

    #[test]
    fn reports_unterminated_string_with_column() {
        let err = lex_line(r#"log "abc"#).unwrap_err();
        assert_eq!(err.col, 5);
        assert!(err.message.contains("closing"));
    }

    #[test]
    fn integers_stay_in_javascripts_safe_range() {
        let max = lex_line("9007199254740991 -9007199254740991").unwrap();
        assert_eq!(max[0].tok, Tok::Int(MAX_SAFE_INTEGER));
        assert_eq!(max[1].tok, Tok::Int(-MAX_SAFE_INTEGER));
        let err = lex_line("log 9007199254740992").unwrap_err();
        assert_eq!(err.col, 5);
        assert_eq!(
            err.message,
            "expected an integer from -9007199254740991 to 9007199254740991 (JavaScript's safe range), found 9007199254740992"
        );
        let err = lex_line(&format!("log -{}", "9".repeat(100))).unwrap_err();
        assert!(
            err.message.ends_with("found a number of 100 digits"),
            "{}",
            err.message
        );
    }

    #[test]
    fn reports_stray_character() {
        let err = lex_line("log @").unwrap_err();
        assert_eq!(err.col, 5);
    }
}
