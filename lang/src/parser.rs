//! The parser and validator: scenario text into a [`Scenario`], or every error
//! with its file, line and column.
//!
//! Parsing and validation happen in one pass because validation (unknown
//! bindings, the wrong kind of object, `run` inside a callback) needs the
//! source positions, which the AST deliberately does not keep. The parser
//! never panics: every malformed input becomes a [`Diagnostic`]. After an
//! error it resynchronises at the next line, so one run reports every
//! problem in the file.

use std::collections::HashMap;
use std::fmt;

use crate::ast::{
    Block, Callback, Expr, Handler, ListenerOptions, Name, Op, RunMode, Scenario, Stmt,
};
use crate::syntax::{lex_line, Spanned, Tok};

/// One problem in a scenario file, with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file name as given to [`parse`].
    pub file: String,
    /// The 1-based line.
    pub line: usize,
    /// The 1-based column, in characters.
    pub col: usize,
    /// What was expected and what was found.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.col, self.message
        )
    }
}

/// Every problem found in one scenario file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ParseError {
    /// The problems, in source order.
    pub diagnostics: Vec<Diagnostic>,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

/// The static kind of a binding or expression, used to reject scripts that
/// would use an object the wrong way (such as aborting an EventTarget).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An AbortController.
    Controller,
    /// An AbortSignal (also an EventTarget).
    Signal,
    /// An EventTarget.
    Target,
    /// An Event.
    Event,
    /// A function made with `fn`.
    Function,
    /// A promise.
    Promise,
    /// A promise made with `promise`, whose resolving functions the script has.
    Deferred,
    /// A timer from `setTimeout`.
    Timer,
    /// An immediate from `setImmediate`.
    Immediate,
    /// A Disposable from `addAbortListener`.
    Disposable,
    /// A thenable object.
    Thenable,
    /// An Error.
    Error,
    /// Any other value, or one whose kind is not known statically.
    Value,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Controller => "an AbortController",
            Kind::Signal => "an AbortSignal",
            Kind::Target => "an EventTarget",
            Kind::Event => "an Event",
            Kind::Function => "a function",
            Kind::Promise => "a promise",
            Kind::Deferred => "a promise made with `promise`",
            Kind::Timer => "a timer",
            Kind::Immediate => "an immediate",
            Kind::Disposable => "a disposable",
            Kind::Thenable => "a thenable",
            Kind::Error => "an Error",
            Kind::Value => "a plain value",
        }
    }

    /// Whether a value of this kind may stand where `wanted` is required.
    pub fn fits(self, wanted: Kind) -> bool {
        self == wanted
            || (wanted == Kind::Target && self == Kind::Signal)
            || (wanted == Kind::Promise && self == Kind::Deferred)
    }

    /// The kind of `self.prop`, or `None` when the property is not readable.
    pub fn property(self, prop: &str) -> Option<Kind> {
        match (self, prop) {
            (Kind::Controller, "signal") => Some(Kind::Signal),
            (Kind::Signal, "aborted" | "reason" | "onabort") => Some(Kind::Value),
            (
                Kind::Event,
                "type" | "cancelable" | "defaultPrevented" | "isTrusted" | "eventPhase" | "bubbles"
                | "composed" | "returnValue" | "cancelBubble",
            ) => Some(Kind::Value),
            (Kind::Event, "target" | "currentTarget" | "srcElement") => Some(Kind::Target),
            (Kind::Error | Kind::Value, "name" | "message") => Some(Kind::Value),
            _ => None,
        }
    }

    /// The properties readable on this kind, for error messages.
    fn properties(self) -> &'static str {
        match self {
            Kind::Controller => "signal",
            Kind::Signal => "aborted, reason, onabort",
            Kind::Event => "type, cancelable, defaultPrevented, isTrusted, eventPhase, bubbles, composed, returnValue, cancelBubble, target, currentTarget, srcElement",
            Kind::Error | Kind::Value => "name, message",
            _ => "none",
        }
    }
}

/// The words that cannot be binding names: the language's keywords, its
/// implicit parameters and literals.
pub const KEYWORDS: &[&str] = &[
    "let",
    "log",
    "try",
    "throw",
    "return",
    "run",
    "turn",
    "idle",
    "advance",
    "controller",
    "abort",
    "aborted",
    "timeout",
    "any",
    "throwIfAborted",
    "onabort",
    "addAbortListener",
    "dispose",
    "target",
    "fn",
    "on",
    "off",
    "dispatch",
    "preventDefault",
    "stopPropagation",
    "stopImmediatePropagation",
    "microtask",
    "tick",
    "setTimeout",
    "clearTimeout",
    "setImmediate",
    "clearImmediate",
    "promise",
    "resolve",
    "reject",
    "then",
    "catch",
    "finally",
    "resolved",
    "rejected",
    "thenable",
    "undefined",
    "null",
    "true",
    "false",
    "Error",
    "event",
    "value",
    "reason",
    "once",
    "capture",
    "passive",
    "signal",
    "cancelable",
    "else",
];

/// JavaScript names a binding may not take, because the emitted program
/// would not parse or would shadow a global it uses.
const JS_RESERVED: &[&str] = &[
    "await",
    "break",
    "case",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "enum",
    "export",
    "extends",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "new",
    "super",
    "switch",
    "this",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "yield",
    "static",
    "implements",
    "package",
    "protected",
    "interface",
    "private",
    "public",
    "arguments",
    "eval",
    "globalThis",
    "process",
    "queueMicrotask",
    "console",
    "require",
    "module",
    "exports",
    "events",
    "async",
    "of",
    "get",
    "set",
];

/// Whether a word is one of the language's keywords.
pub fn is_keyword(word: &str) -> bool {
    KEYWORDS.contains(&word)
}

/// The implicit parameters a callback body sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockKind {
    /// The main script.
    TopLevel,
    /// The body of `try` at the top level (no `return`, no `run`).
    TopTry,
    /// An event listener: sees `event`.
    Listener,
    /// A fulfilment reaction: sees `value`.
    Fulfilled,
    /// A rejection reaction: sees `reason`.
    Rejected,
    /// A callback without parameters.
    Plain,
    /// A `try` inside a callback.
    NestedTry,
}

struct Scope {
    bindings: HashMap<Name, (Kind, usize)>,
    kind: BlockKind,
}

/// Parses and validates a scenario. `file` names the input in diagnostics.
pub fn parse(file: &str, text: &str) -> Result<Scenario, ParseError> {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut p = Parser {
        file,
        lines,
        next: 0,
        diagnostics: Vec::new(),
        scopes: Vec::new(),
        closing: None,
    };
    p.scopes.push(Scope {
        bindings: HashMap::new(),
        kind: BlockKind::TopLevel,
    });
    let body = p.block_body(None);
    if p.diagnostics.is_empty() {
        Ok(Scenario { body })
    } else {
        Err(ParseError {
            diagnostics: p.diagnostics,
        })
    }
}

/// Validates a scenario made by other means (a generator, JSON) by printing
/// and parsing it, so that its errors read as they would in a file.
pub fn validate(scenario: &Scenario) -> Result<(), ParseError> {
    let text = crate::printer::print(scenario);
    let parsed = parse("<generated>", &text)?;
    if &parsed != scenario {
        return Err(ParseError {
            diagnostics: vec![Diagnostic {
                file: "<generated>".into(),
                line: 1,
                col: 1,
                message: "the scenario does not survive printing and parsing (a comment with a line break, or a string the printer cannot express)".into(),
            }],
        });
    }
    Ok(())
}

struct Parser<'a> {
    file: &'a str,
    lines: Vec<&'a str>,
    next: usize,
    diagnostics: Vec<Diagnostic>,
    scopes: Vec<Scope>,
    /// The line that closed the innermost block, handed back to the caller
    /// so that `} else {` can continue it.
    closing: Option<Line>,
}

/// A failed statement: the diagnostic has been recorded.
struct Failed;

type PResult<T> = Result<T, Failed>;

/// The tokens of one line and a cursor over them.
struct Line {
    number: usize,
    toks: Vec<Spanned>,
    pos: usize,
    end_col: usize,
}

impl Line {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    fn peek_word(&self) -> Option<&str> {
        match self.peek() {
            Some(Tok::Word(w)) => Some(w),
            _ => None,
        }
    }

    fn col(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end_col, |t| t.col)
    }

    fn found(&self) -> String {
        self.peek()
            .map_or_else(|| "the end of the line".to_string(), Tok::describe)
    }

    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    fn bump(&mut self) {
        self.pos += 1;
    }

    /// Whether the rest of the line is exactly `{`.
    fn at_block_open(&self) -> bool {
        self.pos + 1 == self.toks.len() && self.peek() == Some(&Tok::Punct('{'))
    }
}

impl<'a> Parser<'a> {
    fn error(&mut self, line: usize, col: usize, message: impl Into<String>) -> Failed {
        self.diagnostics.push(Diagnostic {
            file: self.file.to_string(),
            line,
            col,
            message: message.into(),
        });
        Failed
    }

    fn expected(&mut self, line: &Line, what: &str) -> Failed {
        let found = line.found();
        self.error(
            line.number,
            line.col(),
            format!("expected {what}, found {found}"),
        )
    }

    /// Parses statements until the end of the input or, when `in_block`,
    /// until a line starting with `}`; returns the statements. The closing
    /// line's remaining tokens are left in `self.closing`.
    fn block_body(&mut self, opened_at: Option<usize>) -> Vec<Stmt> {
        let mut body = Vec::new();
        loop {
            let Some(raw) = self.lines.get(self.next).copied() else {
                if let Some(opened) = opened_at {
                    let line = self.lines.len();
                    self.error(line, 1, format!("expected `}}` closing the block opened at line {opened}, found the end of the file"));
                }
                return body;
            };
            let number = self.next + 1;
            self.next += 1;
            let trimmed = raw.trim_start_matches([' ', '\t']);
            if trimmed.is_empty() {
                continue;
            }
            if let Some(text) = trimmed.strip_prefix('#') {
                let text = text.strip_prefix(' ').unwrap_or(text);
                // Only one `\r` is stripped from a line (a CRLF ending). A
                // comment that kept further trailing `\r`s would be printed
                // with them and lose one when parsed again, breaking
                // `parse(print(s)) == s`: trailing `\r`s are not part of a
                // comment.
                body.push(Stmt::Comment(text.trim_end_matches('\r').to_string()));
                continue;
            }
            let toks = match lex_line(raw) {
                Ok(t) => t,
                Err(e) => {
                    self.error(number, e.col, e.message);
                    self.skip_block_if_opened(raw);
                    continue;
                }
            };
            let end_col = raw.chars().count() + 1;
            let mut line = Line {
                number,
                toks,
                pos: 0,
                end_col,
            };
            if line.peek() == Some(&Tok::Punct('}')) {
                if opened_at.is_some() {
                    self.closing = Some(line);
                    return body;
                }
                self.error(
                    number,
                    line.col(),
                    "expected a statement, found `}` with no block open",
                );
                continue;
            }
            match self.statement(&mut line) {
                Ok(stmt) => body.push(stmt),
                Err(Failed) => {
                    // Keep the block structure in step: skip the body of a
                    // block this bad line opened.
                    if line.toks.last().map(|t| &t.tok) == Some(&Tok::Punct('{')) {
                        self.skip_block();
                    }
                }
            }
        }
    }

    fn skip_block_if_opened(&mut self, raw: &str) {
        if raw.trim_end().ends_with('{') {
            self.skip_block();
        }
    }

    /// Skips lines up to the `}` that closes a block whose body is not parsed.
    fn skip_block(&mut self) {
        let mut depth = 1usize;
        while let Some(raw) = self.lines.get(self.next) {
            self.next += 1;
            let t = raw.trim();
            if t.starts_with('#') {
                continue;
            }
            if t.starts_with('}') {
                depth -= 1;
            }
            if t.ends_with('{') {
                depth += 1;
            }
            if depth == 0 {
                return;
            }
        }
    }

    // ---- scopes ---------------------------------------------------------

    fn lookup(&self, name: &str) -> Option<Kind> {
        for scope in self.scopes.iter().rev() {
            if let Some((kind, _)) = scope.bindings.get(name) {
                return Some(*kind);
            }
        }
        // Implicit parameters: the innermost callback that has one decides.
        for scope in self.scopes.iter().rev() {
            match (scope.kind, name) {
                (BlockKind::Listener, "event") => return Some(Kind::Event),
                (BlockKind::Fulfilled, "value") => return Some(Kind::Value),
                (BlockKind::Rejected, "reason") => return Some(Kind::Value),
                _ => {}
            }
        }
        None
    }

    fn in_callback(&self) -> bool {
        self.scopes
            .iter()
            .any(|s| !matches!(s.kind, BlockKind::TopLevel | BlockKind::TopTry))
    }

    fn declare(&mut self, line: &Line, col: usize, name: &str, kind: Kind) -> PResult<()> {
        let valid_start = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c == '_');
        if !valid_start || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(self.error(
                line.number,
                col,
                format!("expected a binding name (a lowercase letter or `_`, then letters, digits or `_`), found `{name}`"),
            ));
        }
        if is_keyword(name) || JS_RESERVED.contains(&name) {
            return Err(self.error(
                line.number,
                col,
                format!("`{name}` is reserved and cannot name a binding"),
            ));
        }
        for scope in self.scopes.iter() {
            if let Some((_, at)) = scope.bindings.get(name) {
                let at = *at;
                return Err(self.error(
                    line.number,
                    col,
                    format!("the binding `{name}` is already defined at line {at}"),
                ));
            }
        }
        let scope = self
            .scopes
            .last_mut()
            .expect("the top-level scope is never popped");
        scope.bindings.insert(name.to_string(), (kind, line.number));
        Ok(())
    }

    // ---- statements -------------------------------------------------------

    fn statement(&mut self, line: &mut Line) -> PResult<Stmt> {
        let Some(word) = line.peek_word().map(str::to_string) else {
            return Err(self.expected(line, "a statement"));
        };
        let stmt = match word.as_str() {
            "let" => {
                line.bump();
                let col = line.col();
                let Some(name) = line.peek_word().map(str::to_string) else {
                    return Err(self.expected(line, "a binding name after `let`"));
                };
                line.bump();
                if line.peek() != Some(&Tok::Punct('=')) {
                    return Err(self.expected(line, "`=`"));
                }
                line.bump();
                // A callback may refer to the binding its own operation makes
                // (a listener that removes itself): the callback runs only
                // after the binding exists, so the name is declared first,
                // with the kind the operation's keyword implies.
                let early = match line.peek_word() {
                    Some("fn") => Some(Kind::Function),
                    Some("setTimeout") => Some(Kind::Timer),
                    Some("setImmediate") => Some(Kind::Immediate),
                    Some("then" | "catch" | "finally") => Some(Kind::Promise),
                    Some("addAbortListener") => Some(Kind::Disposable),
                    _ => None,
                };
                if let Some(kind) = early {
                    self.declare(line, col, &name, kind)?;
                }
                let (op, kind) = self.op(line, true)?;
                if let Some(early) = early {
                    debug_assert_eq!(early, kind, "the keyword decides the kind");
                } else {
                    self.declare(line, col, &name, kind)?;
                }
                Stmt::Let { name, op }
            }
            "log" => {
                line.bump();
                let mut values = Vec::new();
                while !line.at_end() {
                    values.push(self.expr(line)?.0);
                }
                Stmt::Log(values)
            }
            "try" => {
                line.bump();
                let kind = if self.in_callback() {
                    BlockKind::NestedTry
                } else {
                    BlockKind::TopTry
                };
                let block = self.block(line, kind)?;
                self.no_else(line)?;
                Stmt::Try(block)
            }
            "throw" => {
                line.bump();
                Stmt::Throw(self.expr(line)?.0)
            }
            "return" => {
                if !self.in_callback() {
                    return Err(self.error(
                        line.number,
                        line.col(),
                        "`return` is only allowed inside a callback",
                    ));
                }
                line.bump();
                if line.at_end() {
                    Stmt::Return(None)
                } else {
                    Stmt::Return(Some(self.expr(line)?.0))
                }
            }
            "run" => {
                let col = line.col();
                if self.scopes.len() != 1 {
                    return Err(self.error(
                        line.number,
                        col,
                        "`run` is only allowed at the top level of the script",
                    ));
                }
                line.bump();
                let mode = match line.peek_word() {
                    Some("turn") => {
                        line.bump();
                        RunMode::Turn
                    }
                    Some("idle") => {
                        line.bump();
                        RunMode::Idle
                    }
                    Some("advance") => {
                        line.bump();
                        RunMode::Advance(self.ms(line)?)
                    }
                    _ => {
                        return Err(
                            self.expected(line, "`turn`, `idle` or `advance MS` after `run`")
                        )
                    }
                };
                Stmt::Run(mode)
            }
            _ => Stmt::Do(self.op(line, false)?.0),
        };
        if !line.at_end() {
            return Err(self.expected(line, "the end of the line"));
        }
        Ok(stmt)
    }

    fn ms(&mut self, line: &mut Line) -> PResult<u32> {
        match line.peek() {
            Some(Tok::Int(i)) if (0..=i64::from(u32::MAX)).contains(i) => {
                let v = *i as u32;
                line.bump();
                Ok(v)
            }
            _ => Err(self.expected(
                line,
                "a duration in ms (a whole number from 0 to 4294967295)",
            )),
        }
    }

    /// Parses `{` at the end of the line, then the block's lines up to its
    /// `}`; the line cursor is then the closing line.
    fn block(&mut self, line: &mut Line, kind: BlockKind) -> PResult<Block> {
        if !line.at_block_open() {
            return Err(self.expected(line, "`{` at the end of the line"));
        }
        self.scopes.push(Scope {
            bindings: HashMap::new(),
            kind,
        });
        let body = self.block_body(Some(line.number));
        self.scopes.pop();
        match self.closing.take() {
            Some(mut closing) => {
                closing.bump(); // the `}`
                *line = closing;
                Ok(Block { body })
            }
            // The end of the file was reached; the error is recorded.
            None => {
                line.pos = line.toks.len();
                Err(Failed)
            }
        }
    }

    fn no_else(&mut self, line: &Line) -> PResult<()> {
        if line.at_end() {
            Ok(())
        } else {
            Err(self.expected(line, "the end of the line after `}`"))
        }
    }

    fn callback(&mut self, line: &mut Line, kind: BlockKind) -> PResult<Callback> {
        if line.at_block_open() {
            return Ok(Callback::Inline(self.block(line, kind)?));
        }
        let e = self.expr_of(line, Kind::Function)?;
        Ok(Callback::Value(e))
    }

    fn event_type(&mut self, line: &mut Line) -> PResult<String> {
        match line.peek().cloned() {
            Some(Tok::Word(w)) => {
                line.bump();
                Ok(w)
            }
            Some(Tok::Str(s)) => {
                line.bump();
                Ok(s)
            }
            _ => Err(self.expected(line, "an event type (a word or a string)")),
        }
    }

    /// Parses an operation; returns it with the kind of its result.
    fn op(&mut self, line: &mut Line, bound: bool) -> PResult<(Op, Kind)> {
        let word = line.peek_word().map(str::to_string);
        let Some(word) = word else {
            if bound {
                let (e, kind) = self.expr(line)?;
                return Ok((Op::Value(e), kind));
            }
            return Err(self.expected(line, "a statement"));
        };
        if !is_keyword(&word)
            || matches!(
                word.as_str(),
                "undefined" | "null" | "true" | "false" | "Error" | "event" | "value" | "reason"
            )
        {
            if bound {
                let (e, kind) = self.expr(line)?;
                return Ok((Op::Value(e), kind));
            }
            return Err(self.error(
                line.number,
                line.col(),
                format!("expected a statement, found `{word}`"),
            ));
        }
        line.bump();
        let result = match word.as_str() {
            "controller" => (Op::NewController, Kind::Controller),
            "target" => (Op::NewTarget, Kind::Target),
            "abort" => {
                let controller = self.expr_of(line, Kind::Controller)?;
                let reason = self.opt_expr(line)?;
                (Op::Abort { controller, reason }, Kind::Value)
            }
            "aborted" => (
                Op::SignalAbort {
                    reason: self.opt_expr(line)?,
                },
                Kind::Signal,
            ),
            "timeout" => (Op::SignalTimeout { ms: self.ms(line)? }, Kind::Signal),
            "any" => {
                if line.peek() != Some(&Tok::Punct('[')) {
                    return Err(self.expected(line, "`[` starting the list of signals"));
                }
                line.bump();
                let mut signals = Vec::new();
                if line.peek() == Some(&Tok::Punct(']')) {
                    line.bump();
                } else {
                    loop {
                        signals.push(self.expr_of(line, Kind::Signal)?);
                        match line.peek() {
                            Some(Tok::Punct(',')) => line.bump(),
                            Some(Tok::Punct(']')) => {
                                line.bump();
                                break;
                            }
                            _ => return Err(self.expected(line, "`,` or `]`")),
                        }
                    }
                }
                (Op::SignalAny { signals }, Kind::Signal)
            }
            "throwIfAborted" => (
                Op::ThrowIfAborted {
                    signal: self.expr_of(line, Kind::Signal)?,
                },
                Kind::Value,
            ),
            "onabort" => {
                let signal = self.expr_of(line, Kind::Signal)?;
                let handler = if line.peek_word() == Some("null") {
                    line.bump();
                    Handler::Null
                } else {
                    Handler::Callback(self.callback(line, BlockKind::Listener)?)
                };
                self.no_else(line)?;
                (Op::SetOnAbort { signal, handler }, Kind::Value)
            }
            "addAbortListener" => {
                let signal = self.expr_of(line, Kind::Signal)?;
                let listener = self.callback(line, BlockKind::Listener)?;
                self.no_else(line)?;
                (Op::AddAbortListener { signal, listener }, Kind::Disposable)
            }
            "dispose" => (
                Op::Dispose {
                    disposable: self.expr_of(line, Kind::Disposable)?,
                },
                Kind::Value,
            ),
            "fn" => {
                let b = self.block(line, BlockKind::Listener)?;
                self.no_else(line)?;
                (Op::Function(b), Kind::Function)
            }
            "on" => {
                let target = self.expr_of(line, Kind::Target)?;
                let event_type = self.event_type(line)?;
                let mut named = None;
                if !line.at_block_open()
                    && !matches!(
                        line.peek_word(),
                        Some("once" | "capture" | "passive" | "signal")
                    )
                {
                    named = Some(self.expr_of(line, Kind::Function)?);
                }
                let mut options = ListenerOptions::default();
                loop {
                    let col = line.col();
                    let flag = match line.peek_word() {
                        Some("once") => &mut options.once,
                        Some("capture") => &mut options.capture,
                        Some("passive") => &mut options.passive,
                        Some("signal") => {
                            if options.signal.is_some() {
                                return Err(self.error(
                                    line.number,
                                    col,
                                    "the option `signal` is given twice",
                                ));
                            }
                            line.bump();
                            options.signal = Some(self.expr_of(line, Kind::Signal)?);
                            continue;
                        }
                        _ => break,
                    };
                    if *flag {
                        let w = line.peek_word().unwrap_or_default().to_string();
                        return Err(self.error(
                            line.number,
                            col,
                            format!("the option `{w}` is given twice"),
                        ));
                    }
                    *flag = true;
                    line.bump();
                }
                let listener = match named {
                    Some(e) => Callback::Value(e),
                    None => {
                        if !line.at_block_open() {
                            return Err(self.expected(
                                line,
                                "a listener (a function binding, or `{` at the end of the line) or an option (once, capture, passive, signal S)",
                            ));
                        }
                        let b = self.block(line, BlockKind::Listener)?;
                        self.no_else(line)?;
                        Callback::Inline(b)
                    }
                };
                (
                    Op::AddEventListener {
                        target,
                        event_type,
                        listener,
                        options,
                    },
                    Kind::Value,
                )
            }
            "off" => {
                let target = self.expr_of(line, Kind::Target)?;
                let event_type = self.event_type(line)?;
                let listener = self.expr_of(line, Kind::Function)?;
                let capture = self.flag(line, "capture");
                (
                    Op::RemoveEventListener {
                        target,
                        event_type,
                        listener,
                        capture,
                    },
                    Kind::Value,
                )
            }
            "dispatch" => {
                let target = self.expr_of(line, Kind::Target)?;
                let event_type = self.event_type(line)?;
                let cancelable = self.flag(line, "cancelable");
                (
                    Op::Dispatch {
                        target,
                        event_type,
                        cancelable,
                    },
                    Kind::Value,
                )
            }
            "preventDefault" => (
                Op::PreventDefault {
                    event: self.expr_of(line, Kind::Event)?,
                },
                Kind::Value,
            ),
            "stopPropagation" => (
                Op::StopPropagation {
                    event: self.expr_of(line, Kind::Event)?,
                },
                Kind::Value,
            ),
            "stopImmediatePropagation" => (
                Op::StopImmediatePropagation {
                    event: self.expr_of(line, Kind::Event)?,
                },
                Kind::Value,
            ),
            "microtask" => {
                let b = self.block(line, BlockKind::Plain)?;
                self.no_else(line)?;
                (Op::QueueMicrotask(b), Kind::Value)
            }
            "tick" => {
                let b = self.block(line, BlockKind::Plain)?;
                self.no_else(line)?;
                (Op::NextTick(b), Kind::Value)
            }
            "setTimeout" => {
                let ms = self.ms(line)?;
                let body = self.block(line, BlockKind::Plain)?;
                self.no_else(line)?;
                (Op::SetTimeout { ms, body }, Kind::Timer)
            }
            "clearTimeout" => (
                Op::ClearTimeout {
                    timer: self.expr_of(line, Kind::Timer)?,
                },
                Kind::Value,
            ),
            "setImmediate" => {
                let b = self.block(line, BlockKind::Plain)?;
                self.no_else(line)?;
                (Op::SetImmediate(b), Kind::Immediate)
            }
            "clearImmediate" => (
                Op::ClearImmediate {
                    immediate: self.expr_of(line, Kind::Immediate)?,
                },
                Kind::Value,
            ),
            "promise" => (Op::NewPromise, Kind::Deferred),
            "resolve" => {
                let promise = self.expr_of(line, Kind::Deferred)?;
                (
                    Op::Resolve {
                        promise,
                        value: self.opt_expr(line)?,
                    },
                    Kind::Value,
                )
            }
            "reject" => {
                let promise = self.expr_of(line, Kind::Deferred)?;
                (
                    Op::Reject {
                        promise,
                        value: self.opt_expr(line)?,
                    },
                    Kind::Value,
                )
            }
            "then" => {
                let promise = self.expr_of(line, Kind::Promise)?;
                let mut on_fulfilled = None;
                let mut on_rejected = None;
                if line.at_block_open() {
                    on_fulfilled = Some(self.block(line, BlockKind::Fulfilled)?);
                }
                if line.peek_word() == Some("else") {
                    line.bump();
                    on_rejected = Some(self.block(line, BlockKind::Rejected)?);
                }
                self.no_else(line)?;
                (
                    Op::Then {
                        promise,
                        on_fulfilled,
                        on_rejected,
                    },
                    Kind::Promise,
                )
            }
            "catch" => {
                let promise = self.expr_of(line, Kind::Promise)?;
                let on_rejected = self.block(line, BlockKind::Rejected)?;
                self.no_else(line)?;
                (
                    Op::Catch {
                        promise,
                        on_rejected,
                    },
                    Kind::Promise,
                )
            }
            "finally" => {
                let promise = self.expr_of(line, Kind::Promise)?;
                let on_finally = self.block(line, BlockKind::Plain)?;
                self.no_else(line)?;
                (
                    Op::Finally {
                        promise,
                        on_finally,
                    },
                    Kind::Promise,
                )
            }
            "resolved" => (
                Op::PromiseResolve {
                    value: self.expr(line)?.0,
                },
                Kind::Promise,
            ),
            "rejected" => (
                Op::PromiseReject {
                    value: self.expr(line)?.0,
                },
                Kind::Promise,
            ),
            "thenable" => (
                Op::Thenable {
                    value: self.expr(line)?.0,
                },
                Kind::Thenable,
            ),
            other => {
                line.pos -= 1;
                return Err(self.error(
                    line.number,
                    line.col(),
                    format!("expected a statement, found the keyword `{other}`"),
                ));
            }
        };
        Ok(result)
    }

    fn flag(&mut self, line: &mut Line, word: &str) -> bool {
        if line.peek_word() == Some(word) {
            line.bump();
            true
        } else {
            false
        }
    }

    fn opt_expr(&mut self, line: &mut Line) -> PResult<Option<Expr>> {
        if line.at_end() {
            Ok(None)
        } else {
            Ok(Some(self.expr(line)?.0))
        }
    }

    /// Parses an expression that must be of kind `wanted`.
    fn expr_of(&mut self, line: &mut Line, wanted: Kind) -> PResult<Expr> {
        let col = line.col();
        let (e, kind) = self.expr(line)?;
        if !kind.fits(wanted) {
            let shown = crate::printer::print_expr(&e);
            return Err(self.error(
                line.number,
                col,
                format!(
                    "expected {}, found `{shown}`, which is {}",
                    wanted.name(),
                    kind.name()
                ),
            ));
        }
        Ok(e)
    }

    /// Parses an expression and infers its kind.
    fn expr(&mut self, line: &mut Line) -> PResult<(Expr, Kind)> {
        let col = line.col();
        let Some(tok) = line.peek().cloned() else {
            return Err(self.expected(line, "a value"));
        };
        line.bump();
        let (mut e, mut kind) = match tok {
            Tok::Int(i) => (Expr::Int(i), Kind::Value),
            Tok::Str(s) => (Expr::Str(s), Kind::Value),
            Tok::Word(w) => match w.as_str() {
                "undefined" => (Expr::Undefined, Kind::Value),
                "null" => (Expr::Null, Kind::Value),
                "true" => (Expr::Bool(true), Kind::Value),
                "false" => (Expr::Bool(false), Kind::Value),
                "Error" => {
                    if line.peek() != Some(&Tok::Punct('(')) {
                        return Err(self.expected(line, "`(` after `Error`"));
                    }
                    line.bump();
                    let Some(Tok::Str(msg)) = line.peek().cloned() else {
                        return Err(self.expected(line, "a message string"));
                    };
                    line.bump();
                    if line.peek() != Some(&Tok::Punct(')')) {
                        return Err(self.expected(line, "`)`"));
                    }
                    line.bump();
                    (Expr::NewError(msg), Kind::Error)
                }
                name => match self.lookup(name) {
                    Some(kind) => (Expr::Var(name.to_string()), kind),
                    None if is_keyword(name) && !matches!(name, "event" | "value" | "reason") => {
                        return Err(self.error(
                            line.number,
                            col,
                            format!("expected a value, found the keyword `{name}`"),
                        ));
                    }
                    None => {
                        let hint = match name {
                            "event" => " (`event` exists only in listener bodies)",
                            "value" => " (`value` exists only in `then` bodies)",
                            "reason" => " (`reason` exists only in `else` and `catch` bodies)",
                            _ => "",
                        };
                        return Err(self.error(
                            line.number,
                            col,
                            format!("unknown binding `{name}`{hint}"),
                        ));
                    }
                },
            },
            other => {
                line.pos -= 1;
                return Err(self.error(
                    line.number,
                    col,
                    format!("expected a value, found {}", other.describe()),
                ));
            }
        };
        while line.peek() == Some(&Tok::Punct('.')) {
            line.bump();
            let pcol = line.col();
            let Some(prop) = line.peek_word().map(str::to_string) else {
                return Err(self.expected(line, "a property name after `.`"));
            };
            line.bump();
            let Some(k) = kind.property(&prop) else {
                return Err(self.error(
                    line.number,
                    pcol,
                    format!(
                        "{} has no property `{prop}` (readable: {})",
                        kind.name(),
                        kind.properties()
                    ),
                ));
            };
            e = e.prop(prop);
            kind = k;
        }
        Ok((e, kind))
    }
}
