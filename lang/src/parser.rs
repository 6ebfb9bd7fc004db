//! The parser and validator: scenario text into a [`Scenario`], or every error
//! with its file, line and column.
//!
//! Parsing and validation happen in one pass because validation (unknown
//! bindings, the wrong kind of object, `run` inside a callback) needs the
//! source positions, which the AST deliberately does not keep. The parser
//! never panics: every malformed input becomes a [`Diagnostic`]. After an
//! error it resynchronises at the next line, so one run reports every
//! problem in the file.
//!
//! Input is untrusted. The parser enforces the static limits of
//! [`crate::limits`] (file size, nesting, property chains, lists, integers),
//! each as a diagnostic, and it recurses only once per level of block
//! nesting, at most [`MAX_NESTING`] levels of a few kilobytes each: a block
//! nested deeper is reported and its body skipped in a loop, so no input
//! overflows its stack.

use std::collections::HashMap;
use std::fmt;

use crate::ast::{
    Block, BuiltinError, BytesInit, Callback, Class, Combinator, Directive, EventAttribute, Expr,
    Handler, ListenerOptions, Name, Number, OnEvents, Op, PipeOptions, ProcessEvent, RunMode,
    Scenario, Stmt, Strategy, Temporary, EMITTER_ADD_FORMS,
};
use crate::limits::{
    MAX_BYTES, MAX_LIST, MAX_NESTING, MAX_PROPERTY_CHAIN, MAX_REPEAT, MAX_RULER, MAX_SOURCE_BYTES,
    MAX_TEMPORARY_DEPTH,
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
    /// An EventEmitter.
    Emitter,
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
    /// An EventListener object made with `handleEvent {`.
    ListenerObject,
    /// The record of `withResolvers`.
    Resolvers,
    /// An Error.
    Error,
    /// A ReadableStream.
    Readable,
    /// A ReadableStreamDefaultController (`controller` in a source's
    /// `start` and `pull`).
    StreamController,
    /// A ReadableStreamDefaultReader.
    Reader,
    /// A WritableStream.
    Writable,
    /// A WritableStreamDefaultController (`controller` in a sink's `start`
    /// and `write`).
    WritableController,
    /// A WritableStreamDefaultWriter.
    Writer,
    /// A TransformStream.
    Transform,
    /// A TransformStreamDefaultController (`controller` in a transformer's
    /// `start`, `transform` and `flush`).
    TransformController,
    /// A ReadableStream's async iterator, from `values`.
    Iterator,
    /// The async iterator of `events.on`, from `onEvents`.
    EmitterIterator,
    /// A Uint8Array.
    Bytes,
    /// A ReadableByteStreamController (`controller` in a byte source's
    /// `start` and `pull`).
    ByteController,
    /// A ReadableStreamBYOBRequest (a byte controller's `byobRequest`, or
    /// `null`).
    ByobRequest,
    /// A ReadableStreamBYOBReader.
    ByobReader,
    /// A WeakRef.
    WeakRef,
    /// A FinalizationRegistry.
    Registry,
    /// An AsyncLocalStorage.
    Als,
    /// An AsyncResource.
    AsyncResource,
    /// Any other value, or one whose kind is not known statically.
    Value,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Controller => "an AbortController",
            Kind::Signal => "an AbortSignal",
            Kind::Target => "an EventTarget",
            Kind::Emitter => "an EventEmitter",
            Kind::Event => "an Event",
            Kind::Function => "a function",
            Kind::Promise => "a promise",
            Kind::Deferred => "a promise made with `promise`",
            Kind::Timer => "a timer",
            Kind::Immediate => "an immediate",
            Kind::Disposable => "a disposable",
            Kind::Thenable => "a thenable",
            Kind::ListenerObject => "an EventListener object",
            Kind::Resolvers => "the record of withResolvers",
            Kind::Error => "an Error",
            Kind::Readable => "a ReadableStream",
            Kind::StreamController => "a ReadableStreamDefaultController",
            Kind::Reader => "a ReadableStreamDefaultReader",
            Kind::Writable => "a WritableStream",
            Kind::WritableController => "a WritableStreamDefaultController",
            Kind::Writer => "a WritableStreamDefaultWriter",
            Kind::Transform => "a TransformStream",
            Kind::TransformController => "a TransformStreamDefaultController",
            Kind::Iterator => "a ReadableStream's async iterator",
            Kind::EmitterIterator => "an events.on async iterator",
            Kind::Bytes => "a Uint8Array",
            Kind::ByteController => "a ReadableByteStreamController",
            Kind::ByobRequest => "a ReadableStreamBYOBRequest",
            Kind::ByobReader => "a ReadableStreamBYOBReader",
            Kind::WeakRef => "a WeakRef",
            Kind::Registry => "a FinalizationRegistry",
            Kind::Als => "an AsyncLocalStorage",
            Kind::AsyncResource => "an AsyncResource",
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
            (Kind::Resolvers, "promise") => Some(Kind::Deferred),
            (Kind::Resolvers, "resolve" | "reject") => Some(Kind::Value),
            (Kind::Signal, "aborted" | "reason" | "onabort") => Some(Kind::Value),
            (
                Kind::Event,
                "type" | "cancelable" | "defaultPrevented" | "isTrusted" | "eventPhase" | "bubbles"
                | "composed" | "returnValue" | "cancelBubble" | "detail",
            ) => Some(Kind::Value),
            (Kind::Event, "target" | "currentTarget" | "srcElement") => Some(Kind::Target),
            (Kind::Error | Kind::Value, "name" | "message" | "code" | "errors") => {
                Some(Kind::Value)
            }
            (Kind::Readable | Kind::Writable, "locked")
            | (Kind::StreamController | Kind::Writer | Kind::TransformController, "desiredSize") => {
                Some(Kind::Value)
            }
            (Kind::Reader | Kind::ByobReader, "closed") | (Kind::Writer, "closed" | "ready") => {
                Some(Kind::Promise)
            }
            (Kind::ByteController, "desiredSize") => Some(Kind::Value),
            (Kind::ByteController, "byobRequest") => Some(Kind::ByobRequest),
            (Kind::ByobRequest, "view") => Some(Kind::Bytes),
            (Kind::Bytes, "byteLength" | "byteOffset" | "length") => Some(Kind::Value),
            (Kind::WritableController, "signal") => Some(Kind::Signal),
            (Kind::Transform, "readable") => Some(Kind::Readable),
            (Kind::Transform, "writable") => Some(Kind::Writable),
            // `{ value, done }` of `read`, and whatever a callback is given.
            (Kind::Value, "value" | "done") => Some(Kind::Value),
            _ => None,
        }
    }

    /// The properties readable on this kind, for error messages.
    fn properties(self) -> &'static str {
        match self {
            Kind::Controller => "signal",
            Kind::Resolvers => "promise, resolve, reject",
            Kind::Signal => "aborted, reason, onabort",
            Kind::Event => "type, cancelable, defaultPrevented, isTrusted, eventPhase, bubbles, composed, returnValue, cancelBubble, target, currentTarget, srcElement, detail; timeStamp under typeof",
            Kind::Error => "name, message, code, errors",
            Kind::Value => "name, message, code, errors, value, done",
            Kind::Readable | Kind::Writable => "locked",
            Kind::StreamController | Kind::TransformController => "desiredSize",
            Kind::Reader => "closed",
            Kind::Writer => "closed, ready, desiredSize",
            Kind::WritableController => "signal",
            Kind::Transform => "readable, writable",
            Kind::ByobReader => "closed",
            Kind::ByteController => "desiredSize, byobRequest",
            Kind::ByobRequest => "view",
            Kind::Bytes => "byteLength, byteOffset, length",
            _ => "none",
        }
    }
}

/// The words that cannot be binding names: the language's keywords, its
/// implicit parameters and literals.
pub const KEYWORDS: &[&str] = &[
    "same",
    "add",
    "less",
    "if",
    "typeof",
    "instanceof",
    "let",
    "log",
    "try",
    "repeat",
    "throw",
    "return",
    "run",
    "use",
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
    "setMaxListeners",
    "getMaxListeners",
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
    "withResolvers",
    "process",
    "options",
    "setInterval",
    "clearInterval",
    "ref",
    "unref",
    "handleEvent",
    "new",
    "dispatchEvent",
    "composedPath",
    "set",
    "async",
    "await",
    "all",
    "allSettled",
    "race",
    "promiseAny",
    "ruler",
    "readable",
    "enqueue",
    "close",
    "error",
    "getReader",
    "read",
    "releaseLock",
    "cancel",
    "tee",
    "writable",
    "getWriter",
    "write",
    "transform",
    "terminate",
    "pipeTo",
    "pipeThrough",
    "from",
    "drop",
    "gc",
    "watch",
    "alive",
    "weakref",
    "deref",
    "registry",
    "register",
    "unregister",
    "token",
    "dependants",
    "values",
    "next",
    "iterReturn",
    "bytes",
    "subarray",
    "respond",
    "respondWithNewView",
    "preventClose",
    "preventAbort",
    "preventCancel",
    "undefined",
    "null",
    "true",
    "false",
    "Error",
    "TypeError",
    "RangeError",
    "DOMException",
    "event",
    "value",
    "reason",
    "chunk",
    "held",
    "emitter",
    "addListener",
    "prependListener",
    "prependOnceListener",
    "removeListener",
    "removeAllListeners",
    "als",
    "getStore",
    "enterWith",
    "alsRun",
    "alsExit",
    "disable",
    "bind",
    "snapshot",
    "call",
    "asyncResource",
    "runInAsyncScope",
    "emitDestroy",
    "native",
    "emit",
    "listenerCount",
    "eventNames",
    "listeners",
    "rawListeners",
    "eventsKeyCount",
    "setDefaultMaxListeners",
    "onceEvent",
    "onEvents",
    "onRejection",
    "iterThrow",
    "errorMonitor",
    "defaultMaxListeners",
    "arg1",
    "arg2",
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

/// The expression of a number literal with a fraction (or `-0`): an
/// [`Expr::Int`] when its value is an integer other than -0 (`2.0` is `2`),
/// so that a number has one canonical form.
fn number_literal(value: f64) -> Expr {
    let integer = value.fract() == 0.0 && !(value == 0.0 && value.is_sign_negative());
    if integer {
        Expr::Int(value as i64)
    } else {
        Expr::Number(Number::new(value))
    }
}

/// Whether a word is one of the language's keywords.
pub fn is_keyword(word: &str) -> bool {
    KEYWORDS.contains(&word)
}

/// The implicit parameters a callback body sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockKind {
    /// The main script.
    TopLevel,
    /// The body of `try` or `repeat` at the top level (no `return`, no
    /// `run`).
    TopTry,
    /// An event listener: sees `event`.
    Listener,
    /// A fulfilment reaction: sees `value`.
    Fulfilled,
    /// A rejection reaction, or a stream source's `cancel`: sees `reason`.
    Rejected,
    /// A stream source's `start` or `pull`, a sink's `start`, a
    /// transformer's `start` or `flush`: sees `controller`, of this kind.
    Source(Kind),
    /// A sink's `write` or a transformer's `transform`: sees `chunk` and
    /// `controller`, of this kind.
    Sink(Kind),
    /// A strategy's `size`: sees `chunk`.
    Size,
    /// A FinalizationRegistry's cleanup callback: sees `held`.
    Cleanup,
    /// An EventEmitter's listener: sees its first two arguments as `arg1`
    /// and `arg2`.
    EmitterListener,
    /// A callback without parameters.
    Plain,
    /// A `try` or `repeat` inside a callback.
    NestedTry,
}

struct Scope {
    bindings: HashMap<Name, (Kind, usize)>,
    kind: BlockKind,
    /// Whether `await` may stand here: the body of an async function, or a
    /// `try` or `repeat` block inside one.
    awaits: bool,
}

/// The names of the main script's own `let NAME =` lines (at block depth 0),
/// each with the line of its first. Blocks are lines ending with `{` and
/// lines starting with `}` (so `} else {` closes one and opens one); a string
/// cannot end a line with `{`, since it ends with its quote.
fn top_level_lets(lines: &[&str]) -> HashMap<String, usize> {
    let mut names = HashMap::new();
    let mut depth = 0usize;
    for (i, line) in lines.iter().enumerate() {
        let text = line.trim();
        if text.starts_with('#') {
            continue;
        }
        if text.starts_with('}') {
            depth = depth.saturating_sub(1);
        } else if depth == 0 {
            if let Some(rest) = text.strip_prefix("let ") {
                // `let NAME =`, or `let [A, B] =` (tee's two branches).
                let rest = rest.trim_start();
                let (list, rest) = match rest.strip_prefix('[') {
                    Some(inner) => (true, inner),
                    None => (false, rest),
                };
                let mut rest = rest;
                loop {
                    let rest_trimmed = rest.trim_start();
                    let name: String = rest_trimmed
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if name.is_empty() {
                        break;
                    }
                    rest = rest_trimmed[name.len()..].trim_start();
                    names.entry(name).or_insert(i + 1);
                    match rest.strip_prefix(',') {
                        Some(after) if list => rest = after,
                        _ => break,
                    }
                }
            }
        }
        if text.ends_with('{') {
            depth += 1;
        }
    }
    names
}

/// Parses and validates a scenario. `file` names the input in diagnostics.
///
/// A text larger than [`MAX_SOURCE_BYTES`] is refused with one diagnostic,
/// where the limit is crossed, before any of it is lexed. Every other static
/// limit of [`crate::limits`] is a diagnostic among the others of the file.
pub fn parse(file: &str, text: &str) -> Result<Scenario, ParseError> {
    if let Some(d) = too_large(file, text.as_bytes()) {
        return Err(ParseError {
            diagnostics: vec![d],
        });
    }
    parse_lines(file, text, Vec::new())
}

/// Parses and validates a scenario read as bytes, such as a file's content.
///
/// Like [`parse`], but the text need not be UTF-8: each line with bytes that
/// are not valid UTF-8 is a diagnostic at the first of them (its column
/// counted in characters), reported with the file's other errors. The size
/// limit is applied first, to the bytes.
pub fn parse_bytes(file: &str, bytes: &[u8]) -> Result<Scenario, ParseError> {
    if let Some(d) = too_large(file, bytes) {
        return Err(ParseError {
            diagnostics: vec![d],
        });
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => parse_lines(file, text, Vec::new()),
        Err(_) => {
            let invalid = invalid_utf8_lines(bytes);
            // The replacement characters keep every line where it was; the
            // lines that hold them are reported and not parsed.
            let text = String::from_utf8_lossy(bytes);
            parse_lines(file, &text, invalid)
        }
    }
}

/// The diagnostic for a text larger than [`MAX_SOURCE_BYTES`], at the
/// character holding the first byte past the limit; `None` for a text
/// within it. Only the bytes up to the limit are read.
fn too_large(file: &str, bytes: &[u8]) -> Option<Diagnostic> {
    if bytes.len() <= MAX_SOURCE_BYTES {
        return None;
    }
    let is_continuation = |b: u8| b & 0xc0 == 0x80;
    // Back to the start of the character the limit falls in (at most three
    // bytes back in UTF-8).
    let mut at = MAX_SOURCE_BYTES;
    while at > MAX_SOURCE_BYTES - 3 && is_continuation(bytes[at]) {
        at -= 1;
    }
    let before = &bytes[..at];
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let col = 1 + before[line_start..]
        .iter()
        .filter(|&&b| !is_continuation(b))
        .count();
    Some(Diagnostic {
        file: file.to_string(),
        line,
        col,
        message: format!(
            "expected a scenario of at most {MAX_SOURCE_BYTES} bytes, found {} bytes (the limit is crossed here)",
            bytes.len()
        ),
    })
}

/// For each line that is not valid UTF-8: its 0-based index, the 1-based
/// column (in characters) of its first invalid byte, and that byte.
fn invalid_utf8_lines(bytes: &[u8]) -> Vec<InvalidLine> {
    let mut out = Vec::new();
    for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if let Err(e) = std::str::from_utf8(line) {
            let valid = &line[..e.valid_up_to()];
            // The prefix is valid UTF-8: its characters are its non-continuation bytes.
            let col = 1 + valid.iter().filter(|&&b| b & 0xc0 != 0x80).count();
            out.push(InvalidLine {
                index,
                col,
                byte: line[e.valid_up_to()],
            });
        }
    }
    out
}

/// A line of the input that is not valid UTF-8.
struct InvalidLine {
    /// The 0-based line index.
    index: usize,
    /// The 1-based column of the first invalid byte, in characters.
    col: usize,
    /// The first invalid byte.
    byte: u8,
}

/// Parses a text within the size limit; `invalid` lists the lines (in
/// order) that were not valid UTF-8, to report instead of parsing.
fn parse_lines(file: &str, text: &str, invalid: Vec<InvalidLine>) -> Result<Scenario, ParseError> {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let top_level_lets = top_level_lets(&lines);
    let mut p = Parser {
        file,
        lines,
        next: 0,
        diagnostics: Vec::new(),
        scopes: Vec::new(),
        closing: None,
        uninitialized: None,
        end_reported: false,
        next_block_awaits: false,
        under_typeof: false,
        top_level_lets,
        first_statement: None,
        directives: Vec::new(),
        invalid,
        next_invalid: 0,
    };
    p.scopes.push(Scope {
        bindings: HashMap::new(),
        kind: BlockKind::TopLevel,
        awaits: false,
    });
    let body = p.block_body(None);
    if p.diagnostics.is_empty() {
        let mut scenario = Scenario::new(body);
        crate::resolve(&mut scenario);
        Ok(scenario)
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
    /// The binding whose `let` is being parsed, declared early for the
    /// operation's callbacks but not yet initialized for its operands.
    uninitialized: Option<Name>,
    /// Whether the end of the file has been reported with blocks open (once
    /// for all of them).
    end_reported: bool,
    /// Set just before the body of an async function is opened.
    next_block_awaits: bool,
    /// Set while the operand of `typeof` is parsed: `timeStamp` may be read.
    under_typeof: bool,
    /// The bindings the main script's own `let`s make (not those of its
    /// blocks), with the line of the first: callbacks may read them before.
    top_level_lets: HashMap<String, usize>,
    /// The line of the first statement that is not a directive: no
    /// directive may follow it.
    first_statement: Option<usize>,
    /// The line of each directive given so far.
    directives: Vec<(Directive, usize)>,
    /// The lines that are not valid UTF-8, in order.
    invalid: Vec<InvalidLine>,
    /// The first entry of `invalid` not yet reached.
    next_invalid: usize,
}

/// What [`Parser::next_line`] found.
enum Next {
    /// The end of the file.
    End,
    /// A line that could not be read, reported (and the block it opened
    /// skipped).
    Skipped,
    /// A comment line, with its text.
    Comment(String),
    /// A line starting with `}`, closing the block.
    Closing(Line),
    /// A statement's line.
    Statement(Line),
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
    /// The line number of a `let NAME =` after the current line, if there
    /// is one: for the hint of an unknown binding that is declared, but
    /// further down.
    fn declared_later(&self, name: &str) -> Option<usize> {
        self.lines
            .iter()
            .enumerate()
            .skip(self.next)
            .find(|(_, text)| {
                let rest = text.trim_start().strip_prefix("let ");
                rest.and_then(|r| r.trim_start().strip_prefix(name))
                    .is_some_and(|r| r.trim_start().starts_with('='))
            })
            .map(|(i, _)| i + 1)
    }

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
        // This loop, `statement`, `op`, the operation's own function and
        // `block` recurse once per level of nesting: whatever needs room on
        // the stack but does not recurse is kept in other functions.
        let mut body = Vec::new();
        loop {
            let mut line = match self.next_line(opened_at) {
                Next::End => return body,
                Next::Skipped => continue,
                Next::Comment(text) => {
                    body.push(Stmt::Comment(text));
                    continue;
                }
                Next::Closing(line) => {
                    self.closing = Some(line);
                    return body;
                }
                Next::Statement(line) => line,
            };
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

    /// Reads the next line that matters to the block being parsed (which
    /// was opened at line `opened_at`, or is the main script), reporting
    /// the errors of lines that cannot be lexed and skipping what they open.
    fn next_line(&mut self, opened_at: Option<usize>) -> Next {
        loop {
            let Some(raw) = self.lines.get(self.next).copied() else {
                if let Some(opened) = opened_at {
                    self.end_of_file_in_block(opened);
                }
                return Next::End;
            };
            let number = self.next + 1;
            self.next += 1;
            if let Some((col, byte)) = self.invalid_utf8(number - 1) {
                self.error(
                    number,
                    col,
                    format!("expected UTF-8 text, found the invalid byte 0x{byte:02x}"),
                );
                self.skip_block_if_opened(raw);
                return Next::Skipped;
            }
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
                return Next::Comment(text.trim_end_matches('\r').to_string());
            }
            let toks = match lex_line(raw) {
                Ok(t) => t,
                Err(e) => {
                    self.error(number, e.col, e.message);
                    self.skip_block_if_opened(raw);
                    return Next::Skipped;
                }
            };
            let end_col = raw.chars().count() + 1;
            let line = Line {
                number,
                toks,
                pos: 0,
                end_col,
            };
            if line.peek() == Some(&Tok::Punct('}')) {
                if opened_at.is_some() {
                    return Next::Closing(line);
                }
                self.error(
                    number,
                    line.col(),
                    "expected a statement, found `}` with no block open",
                );
                continue;
            }
            return Next::Statement(line);
        }
    }

    /// Reports the end of the file inside the block opened at line `opened`
    /// (the innermost open block), at the end of the last line with text.
    /// The blocks around it are counted in the same diagnostic, not given
    /// one each: they all end at the same place.
    fn end_of_file_in_block(&mut self, opened: usize) {
        if self.end_reported {
            return;
        }
        self.end_reported = true;
        // `split('\n')` makes an empty last line of a text that ends with a
        // line break: point at the last line that shows something instead.
        let (line, col) = self
            .lines
            .iter()
            .enumerate()
            .rev()
            .find(|(_, l)| !l.trim_matches([' ', '\t', '\r']).is_empty())
            .map_or((1, 1), |(i, l)| (i + 1, l.chars().count() + 1));
        // The scopes are the main script's, this block's and those around it.
        let around = self.scopes.len().saturating_sub(2);
        let also = match around {
            0 => String::new(),
            1 => " (the block around it is not closed either)".to_string(),
            n => format!(" (the {n} blocks around it are not closed either)"),
        };
        self.error(
            line,
            col,
            format!("expected `}}` closing the block opened at line {opened}, found the end of the file{also}"),
        );
    }

    /// The column and first invalid byte of line `index` (0-based) when it
    /// is not valid UTF-8. Lines are asked for in increasing order.
    fn invalid_utf8(&mut self, index: usize) -> Option<(usize, u8)> {
        while self
            .invalid
            .get(self.next_invalid)
            .is_some_and(|l| l.index < index)
        {
            self.next_invalid += 1;
        }
        let l = self.invalid.get(self.next_invalid)?;
        (l.index == index).then_some((l.col, l.byte))
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
                (BlockKind::Source(kind) | BlockKind::Sink(kind), "controller") => {
                    return Some(kind)
                }
                (BlockKind::Sink(_) | BlockKind::Size, "chunk") => return Some(Kind::Value),
                (BlockKind::Fulfilled, "value") => return Some(Kind::Value),
                (BlockKind::Rejected, "reason") => return Some(Kind::Value),
                (BlockKind::Cleanup, "held") => return Some(Kind::Value),
                (BlockKind::EmitterListener, "arg1" | "arg2") => return Some(Kind::Value),
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
        // No `?` here: on this recursive path, its temporaries would
        // take room on the stack at every level of nesting.
        let stmt = self.statement_words(line);
        if stmt.is_ok() && !line.at_end() {
            return Err(self.expected(line, "the end of the line"));
        }
        stmt
    }

    /// A statement, up to where its words end.
    fn statement_words(&mut self, line: &mut Line) -> PResult<Stmt> {
        if line.peek_word() == Some("use") {
            return self.use_statement(line);
        }
        if self.first_statement.is_none() {
            self.first_statement = Some(line.number);
        }
        match line.peek_word() {
            Some("let") => self.let_statement(line),
            Some("log") => self.log_statement(line),
            Some("try") => self.try_statement(line),
            Some("repeat") => self.repeat_statement(line),
            Some("if") => self.if_statement(line),
            Some("throw") => self.throw_statement(line),
            Some("return") => self.return_statement(line),
            Some("run") => self.run_statement(line),
            Some("drop") => self.drop_statement(line),
            Some("gc") => {
                line.bump();
                Ok(Stmt::Gc)
            }
            Some("watch") => {
                line.bump();
                let (e, _) = self.expr(line)?;
                Ok(Stmt::Watch(e))
            }
            Some("alive") => {
                line.bump();
                Ok(Stmt::Alive)
            }
            Some(_) => self.do_statement(line),
            None => Err(self.expected(line, "a statement")),
        }
    }

    /// `drop NAME`: a binding, set to undefined.
    fn drop_statement(&mut self, line: &mut Line) -> PResult<Stmt> {
        line.bump();
        let col = line.col();
        let (e, _) = self.expr(line)?;
        if !matches!(e, Expr::Var(_)) {
            return Err(self.error(line.number, col, "expected a binding after `drop`"));
        }
        Ok(Stmt::Drop(e))
    }

    /// `OP`: an operation whose result is not bound.
    fn do_statement(&mut self, line: &mut Line) -> PResult<Stmt> {
        self.op(line, false).map(|(op, _)| Stmt::Do(op))
    }

    /// `try {`.
    fn try_statement(&mut self, line: &mut Line) -> PResult<Stmt> {
        line.bump();
        let block = self.block(line, self.inner_block_kind())?;
        self.no_else(line)?;
        Ok(Stmt::Try(block))
    }

    /// `if V {` ... `} [else {` ... `}]`.
    fn if_statement(&mut self, line: &mut Line) -> PResult<Stmt> {
        line.bump();
        let cond = self.expr(line)?.0;
        let then = self.block(line, self.inner_block_kind())?;
        let otherwise = if line.peek_word() == Some("else") {
            line.bump();
            Some(self.block(line, self.inner_block_kind())?)
        } else {
            None
        };
        self.no_else(line)?;
        Ok(Stmt::If {
            cond,
            then,
            otherwise,
        })
    }

    /// `repeat N {`.
    fn repeat_statement(&mut self, line: &mut Line) -> PResult<Stmt> {
        line.bump();
        let count = match line.peek() {
            Some(Tok::Int(i)) if (0..=i64::from(MAX_REPEAT)).contains(i) => {
                let count = *i as u32;
                line.bump();
                count
            }
            _ => {
                return Err(self.expected(
                    line,
                    &format!("a count (a whole number from 0 to {MAX_REPEAT}) after `repeat`"),
                ))
            }
        };
        let body = self.block(line, self.inner_block_kind())?;
        self.no_else(line)?;
        Ok(Stmt::Repeat { count, body })
    }

    /// The kind of a `try` or `repeat` block opened here: it belongs to the
    /// callback (or the main script) around it.
    fn inner_block_kind(&self) -> BlockKind {
        if self.in_callback() {
            BlockKind::NestedTry
        } else {
            BlockKind::TopTry
        }
    }

    /// `throw EXPR`.
    fn throw_statement(&mut self, line: &mut Line) -> PResult<Stmt> {
        line.bump();
        let (e, _) = self.expr(line)?;
        Ok(Stmt::Throw(e))
    }

    /// `return [EXPR]`.
    fn return_statement(&mut self, line: &mut Line) -> PResult<Stmt> {
        if !self.in_callback() {
            return Err(self.error(
                line.number,
                line.col(),
                "`return` is only allowed inside a callback",
            ));
        }
        line.bump();
        if line.at_end() {
            Ok(Stmt::Return(None))
        } else {
            Ok(Stmt::Return(Some(self.expr(line)?.0)))
        }
    }

    /// `use module`: a directive, at the top level before every other
    /// statement (comments aside), each at most once.
    fn use_statement(&mut self, line: &mut Line) -> PResult<Stmt> {
        let col = line.col();
        if self.scopes.len() != 1 {
            return Err(self.error(
                line.number,
                col,
                "`use` is only allowed at the top level of the script, before its other statements",
            ));
        }
        if let Some(first) = self.first_statement {
            return Err(self.error(
                line.number,
                col,
                format!("`use` must come before every other statement (comments aside), and the statement at line {first} comes first"),
            ));
        }
        line.bump();
        let word_col = line.col();
        let Some(directive) = Directive::ALL
            .iter()
            .copied()
            .find(|d| line.peek_word() == Some(d.word()))
        else {
            let words: Vec<String> = Directive::ALL
                .iter()
                .map(|d| format!("`{}`", d.word()))
                .collect();
            return Err(self.expected(
                line,
                &format!("a directive ({}) after `use`", words.join(", ")),
            ));
        };
        if let Some((_, at)) = self.directives.iter().find(|(d, _)| *d == directive) {
            let at = *at;
            return Err(self.error(
                line.number,
                word_col,
                format!("`use {}` is already given at line {at}", directive.word()),
            ));
        }
        line.bump();
        self.directives.push((directive, line.number));
        Ok(Stmt::Use(directive))
    }

    /// `run turn`, `run idle` or `run advance MS`.
    fn run_statement(&mut self, line: &mut Line) -> PResult<Stmt> {
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
            _ => return Err(self.expected(line, "`turn`, `idle` or `advance MS` after `run`")),
        };
        Ok(Stmt::Run(mode))
    }

    /// `let NAME = OP`.
    fn let_statement(&mut self, line: &mut Line) -> PResult<Stmt> {
        if line.toks.get(line.pos + 1).map(|t| &t.tok) == Some(&Tok::Punct('[')) {
            return self.tee_statement(line);
        }
        let (name, col, early) = self.let_head(line)?;
        // The operands are evaluated before the binding is initialized
        // (JavaScript's temporal dead zone), the callbacks after.
        let outer = std::mem::replace(&mut self.uninitialized, early.map(|_| name.clone()));
        let parsed = self.op(line, true);
        self.uninitialized = outer;
        self.let_end(line, col, name, early, parsed)
    }

    /// `let [A, B] = tee S`: the two branches of a stream, each bound.
    fn tee_statement(&mut self, line: &mut Line) -> PResult<Stmt> {
        line.bump(); // `let`
        line.bump(); // `[`
        let mut names: Vec<(Name, usize)> = Vec::new();
        for i in 0..2 {
            if i == 1 {
                if line.peek() != Some(&Tok::Punct(',')) {
                    return Err(self.expected(line, "`,` and the second branch's name"));
                }
                line.bump();
            }
            let col = line.col();
            let Some(name) = line.peek_word().map(str::to_string) else {
                return Err(self.expected(line, "a binding name for a branch of `tee`"));
            };
            line.bump();
            names.push((name, col));
        }
        if line.peek() != Some(&Tok::Punct(']')) {
            return Err(self.expected(line, "`]` after the two names (`let [A, B] = tee S`)"));
        }
        line.bump();
        if line.peek() != Some(&Tok::Punct('=')) {
            return Err(self.expected(line, "`=`"));
        }
        line.bump();
        if line.peek_word() != Some("tee") {
            return Err(self.expected(line, "`tee S` (only `tee` binds two names)"));
        }
        line.bump();
        let stream = self.expr_of(line, Kind::Readable)?;
        if !line.at_end() {
            return Err(self.expected(line, "the end of the line"));
        }
        if names[0].0 == names[1].0 {
            let (name, col) = &names[1];
            return Err(self.error(
                line.number,
                *col,
                format!("`{name}` names both branches of `tee`"),
            ));
        }
        for (name, col) in &names {
            self.declare(line, *col, name, Kind::Readable)?;
        }
        let [(a, _), (b, _)] = [names[0].clone(), names[1].clone()];
        Ok(Stmt::Tee {
            branches: [a.into(), b.into()],
            stream,
        })
    }

    /// `let NAME =`: the name, its column, and the kind it is declared with
    /// before the operation when a callback of the operation may use it.
    fn let_head(&mut self, line: &mut Line) -> PResult<(Name, usize, Option<Kind>)> {
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
            Some("setInterval") => Some(Kind::Timer),
            Some("then" | "catch" | "finally") => Some(Kind::Promise),
            Some("addAbortListener") => Some(Kind::Disposable),
            // Its body runs inside `then`, later.
            Some("thenable") => Some(Kind::Thenable),
            Some("handleEvent") => Some(Kind::ListenerObject),
            // Its cleanup runs after a collection, later.
            Some("registry") => Some(Kind::Registry),
            _ => None,
        };
        if let Some(kind) = early {
            self.declare(line, col, &name, kind)?;
        }
        Ok((name, col, early))
    }

    /// Declares the binding of a `let` once its operation is parsed.
    fn let_end(
        &mut self,
        line: &Line,
        col: usize,
        name: Name,
        early: Option<Kind>,
        parsed: PResult<(Op, Kind)>,
    ) -> PResult<Stmt> {
        let (op, kind) = parsed?;
        if let Some(early) = early {
            debug_assert_eq!(early, kind, "the keyword decides the kind");
        } else {
            self.declare(line, col, &name, kind)?;
        }
        Ok(Stmt::Let {
            name: name.into(),
            op,
        })
    }

    /// `log EXPR...`.
    fn log_statement(&mut self, line: &mut Line) -> PResult<Stmt> {
        line.bump();
        let mut values = Vec::new();
        let mut count = 0usize;
        let mut past_limit = 0;
        while !line.at_end() {
            if count == MAX_LIST {
                past_limit = line.col();
            }
            let (value, _) = self.expr(line)?;
            count += 1;
            // Values past the limit are still parsed, to report
            // how many there are, but not kept.
            if count <= MAX_LIST {
                values.push(value);
            }
        }
        if count > MAX_LIST {
            return Err(self.error(
                line.number,
                past_limit,
                format!("expected at most {MAX_LIST} values in one `log`, found {count}"),
            ));
        }
        Ok(Stmt::Log(values))
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
        // The main script is depth 0 and has the first scope. Deeper blocks
        // are refused here, before their body is parsed: the caller skips
        // it without recursing, so no input nests the parser (or the
        // printer and engines after it) deeper than this.
        if self.scopes.len() > MAX_NESTING {
            return Err(self.too_deep(line));
        }
        self.open_scope(kind);
        // A callback runs only after the `let` around it has bound its
        // result: the binding is initialized there.
        let uninitialized = self.uninitialized.take();
        let body = self.block_body(Some(line.number));
        self.uninitialized = uninitialized;
        self.scopes.pop();
        match self.closing.take() {
            Some(mut closing) => {
                closing.bump(); // the `}`
                *line = closing;
                Ok(Block::new(body))
            }
            // The end of the file was reached; the error is recorded.
            None => {
                line.pos = line.toks.len();
                Err(Failed)
            }
        }
    }

    /// Reports a block opened at the end of `line` that nests deeper than
    /// [`MAX_NESTING`].
    fn too_deep(&mut self, line: &Line) -> Failed {
        let depth = self.scopes.len();
        self.error(
            line.number,
            line.col(),
            format!(
                "expected blocks nested at most {MAX_NESTING} deep, found a block at depth {depth}"
            ),
        )
    }

    fn open_scope(&mut self, kind: BlockKind) {
        // A `try` or `repeat` block belongs to the function around it.
        let awaits = std::mem::take(&mut self.next_block_awaits)
            || (kind == BlockKind::NestedTry && self.scopes.last().is_some_and(|s| s.awaits));
        self.scopes.push(Scope {
            bindings: HashMap::new(),
            kind,
            awaits,
        });
    }

    /// A block that is the body of an async function (`fn async {`,
    /// `async {`), after its keywords.
    fn async_block(&mut self, line: &mut Line, kind: BlockKind) -> PResult<Block> {
        self.next_block_awaits = true;
        let block = self.block(line, kind);
        self.next_block_awaits = false;
        block
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
        // `controller.PROP`: a property of the implicit `controller` (a
        // stream controller's `byobRequest`, say), not a new
        // AbortController, which no property follows.
        let controller_property = line.peek_word() == Some("controller")
            && line.toks.get(line.pos + 1).map(|t| &t.tok) == Some(&Tok::Punct('.'));
        let word = match line.peek_word() {
            Some(w)
                if is_keyword(w)
                    && !controller_property
                    && !matches!(
                        w,
                        "undefined"
                            | "null"
                            | "true"
                            | "false"
                            | "Error"
                            | "TypeError"
                            | "RangeError"
                            | "DOMException"
                            | "same"
                            | "add"
                            | "less"
                            | "typeof"
                            | "instanceof"
                            | "event"
                            | "value"
                            | "reason"
                            | "chunk"
                            | "held"
                            | "arg1"
                            | "arg2"
                            | "errorMonitor"
                            | "defaultMaxListeners"
                    ) =>
            {
                w.to_string()
            }
            _ => return self.value_op(line, bound),
        };
        line.bump();
        // Each operation that opens a block has a function of its own: they
        // recurse, once per level of nesting, and a small frame for each
        // keeps the parser's stack small (in debug builds too).
        match word.as_str() {
            "onabort" => self.onabort_op(line),
            "addAbortListener" => self.add_abort_listener_op(line),
            "fn" => self.function_op(line),
            "handleEvent" => {
                let b = self.block(line, BlockKind::Listener)?;
                self.no_else(line)?;
                Ok((Op::ListenerObject(b), Kind::ListenerObject))
            }
            "async" => self.async_op(line),
            "await" => {
                line.pos -= 1;
                let col = line.col();
                line.pos += 1;
                self.await_op(line, col)
            }
            "on" => self.on_op(line),
            "microtask" => self.microtask_op(line),
            "tick" => self.tick_op(line),
            "setTimeout" => self.set_timeout_op(line),
            "setInterval" => {
                let ms = self.ms(line)?;
                let body = self.block(line, BlockKind::Plain)?;
                self.no_else(line)?;
                Ok((Op::SetInterval { ms, body }, Kind::Timer))
            }
            "setImmediate" => self.set_immediate_op(line),
            "alsRun" | "alsExit" | "runInAsyncScope" | "native" => {
                self.async_context_block_op(&word, line)
            }
            "readable" => self.readable_op(line),
            "writable" => self.writable_op(line),
            "transform" => self.transform_op(line),
            "then" => self.then_op(line),
            "thenable" => self.thenable_op(line),
            "catch" => self.catch_op(line),
            "finally" => self.finally_op(line),
            "registry" => {
                let cleanup = self.callback(line, BlockKind::Cleanup)?;
                self.no_else(line)?;
                Ok((Op::NewRegistry(cleanup), Kind::Registry))
            }
            w if EMITTER_ADD_FORMS.iter().any(|f| f.2 == w) => self.emitter_add_op(w, line),
            _ => self.simple_op(&word, line),
        }
    }

    /// An operation that is not a keyword: a plain value after `let NAME =`,
    /// an error anywhere else.
    fn value_op(&mut self, line: &mut Line, bound: bool) -> PResult<(Op, Kind)> {
        if bound {
            let (e, kind) = self.expr(line)?;
            return Ok((Op::Value(e), kind));
        }
        match line.peek_word().map(str::to_string) {
            Some(word) => Err(self.error(
                line.number,
                line.col(),
                format!("expected a statement, found `{word}`"),
            )),
            None => Err(self.expected(line, "a statement")),
        }
    }

    /// An operation without a block, after its keyword.
    fn simple_op(&mut self, word: &str, line: &mut Line) -> PResult<(Op, Kind)> {
        let result = match word {
            "controller" => (Op::NewController, Kind::Controller),
            // Any value: V8 refuses what cannot be held weakly.
            "weakref" => (
                Op::NewWeakRef {
                    target: self.expr(line)?.0,
                },
                Kind::WeakRef,
            ),
            "deref" => (
                Op::Deref {
                    weak_ref: self.expr_of(line, Kind::WeakRef)?,
                },
                Kind::Value,
            ),
            "register" => {
                let registry = self.expr_of(line, Kind::Registry)?;
                let target = self.expr(line)?.0;
                let held = self.expr(line)?.0;
                let token = if line.peek_word() == Some("token") {
                    line.bump();
                    Some(self.expr(line)?.0)
                } else {
                    None
                };
                (
                    Op::Register {
                        registry,
                        target,
                        held,
                        token,
                    },
                    Kind::Value,
                )
            }
            "unregister" => (
                Op::Unregister {
                    registry: self.expr_of(line, Kind::Registry)?,
                    token: self.expr(line)?.0,
                },
                Kind::Value,
            ),
            "dependants" => (
                Op::Dependants {
                    signal: self.expr_of(line, Kind::Signal)?,
                },
                Kind::Value,
            ),
            "ruler" => {
                let ticks = match line.peek() {
                    Some(Tok::Int(i)) if (1..=i64::from(MAX_RULER)).contains(i) => *i as u32,
                    _ => {
                        return Err(self.expected(
                            line,
                            &format!("a number of marks (a whole number from 1 to {MAX_RULER}) after `ruler`"),
                        ))
                    }
                };
                line.bump();
                (Op::Ruler { ticks }, Kind::Value)
            }
            "enqueue" => {
                let controller = self.expr_of_kinds(
                    line,
                    &[
                        Kind::StreamController,
                        Kind::ByteController,
                        Kind::TransformController,
                    ],
                )?;
                let chunk = self.expr(line)?.0;
                (Op::Enqueue { controller, chunk }, Kind::Value)
            }
            "close" => {
                let (target, kind) = self.expr_of_kinds_with(
                    line,
                    &[
                        Kind::StreamController,
                        Kind::ByteController,
                        Kind::Writable,
                        Kind::Writer,
                    ],
                )?;
                if matches!(kind, Kind::StreamController | Kind::ByteController) {
                    (Op::CloseController { controller: target }, Kind::Value)
                } else {
                    (Op::CloseWritable { target }, Kind::Promise)
                }
            }
            "error" => {
                let controller = self.expr_of_kinds(
                    line,
                    &[
                        Kind::StreamController,
                        Kind::ByteController,
                        Kind::WritableController,
                        Kind::TransformController,
                    ],
                )?;
                let error = self.expr(line)?.0;
                (Op::ErrorController { controller, error }, Kind::Value)
            }
            "terminate" => (
                Op::Terminate {
                    controller: self.expr_of(line, Kind::TransformController)?,
                },
                Kind::Value,
            ),
            "getWriter" => (
                Op::GetWriter {
                    stream: self.expr_of(line, Kind::Writable)?,
                },
                Kind::Writer,
            ),
            "write" => {
                let writer = self.expr_of(line, Kind::Writer)?;
                let chunk = self.expr(line)?.0;
                (Op::Write { writer, chunk }, Kind::Promise)
            }
            "pipeTo" => {
                let source = self.expr_of(line, Kind::Readable)?;
                let dest = self.expr_of(line, Kind::Writable)?;
                let options = self.pipe_options(line)?;
                (
                    Op::PipeTo {
                        source,
                        dest,
                        options,
                    },
                    Kind::Promise,
                )
            }
            "pipeThrough" => {
                let source = self.expr_of(line, Kind::Readable)?;
                let transform = self.expr_of(line, Kind::Transform)?;
                let options = self.pipe_options(line)?;
                (
                    Op::PipeThrough {
                        source,
                        transform,
                        options,
                    },
                    Kind::Readable,
                )
            }
            "from" => {
                let is_async = line.peek_word() == Some("async");
                if is_async {
                    line.bump();
                }
                let values = self.list(line, Kind::Value, "values", word)?;
                (Op::From { is_async, values }, Kind::Readable)
            }
            "values" => {
                let stream = self.expr_of(line, Kind::Readable)?;
                let prevent_cancel = line.peek_word() == Some("preventCancel");
                if prevent_cancel {
                    line.bump();
                }
                (
                    Op::Values {
                        stream,
                        prevent_cancel,
                    },
                    Kind::Iterator,
                )
            }
            "next" => (
                Op::Next {
                    iterator: self.expr_of_kinds(line, &[Kind::Iterator, Kind::EmitterIterator])?,
                },
                Kind::Promise,
            ),
            "iterReturn" => {
                let iterator =
                    self.expr_of_kinds(line, &[Kind::Iterator, Kind::EmitterIterator])?;
                let value = self.opt_expr(line)?;
                (Op::IterReturn { iterator, value }, Kind::Promise)
            }
            "getReader" => {
                let stream = self.expr_of(line, Kind::Readable)?;
                if line.peek_word() == Some("byob") {
                    line.bump();
                    (Op::GetByobReader { stream }, Kind::ByobReader)
                } else {
                    (Op::GetReader { stream }, Kind::Reader)
                }
            }
            "read" => {
                let (reader, kind) =
                    self.expr_of_kinds_with(line, &[Kind::Reader, Kind::ByobReader])?;
                if kind == Kind::Reader {
                    (Op::Read { reader }, Kind::Promise)
                } else {
                    let view = self.expr(line)?.0;
                    let min = if line.peek_word() == Some("min") {
                        line.bump();
                        Some(self.expr(line)?.0)
                    } else {
                        None
                    };
                    (Op::ReadInto { reader, view, min }, Kind::Promise)
                }
            }
            "bytes" => (Op::NewBytes(self.bytes_init(line)?), Kind::Bytes),
            "subarray" => {
                let view = self.expr_of(line, Kind::Bytes)?;
                let index = |p: &mut Self, line: &mut Line| match line.peek() {
                    Some(Tok::Int(i)) if i32::try_from(*i).is_ok() => {
                        let i = *i as i32;
                        line.bump();
                        Ok(i)
                    }
                    _ => Err(p.expected(line, "an index (a whole number) of `subarray`")),
                };
                let start = index(self, line)?;
                let end = if line.at_end() {
                    None
                } else {
                    Some(index(self, line)?)
                };
                (Op::Subarray { view, start, end }, Kind::Bytes)
            }
            "respond" => {
                let request = self.expr_of(line, Kind::ByobRequest)?;
                let bytes_written = self.expr(line)?.0;
                (
                    Op::Respond {
                        request,
                        bytes_written,
                    },
                    Kind::Value,
                )
            }
            "respondWithNewView" => {
                let request = self.expr_of(line, Kind::ByobRequest)?;
                let view = self.expr(line)?.0;
                (Op::RespondWithNewView { request, view }, Kind::Value)
            }
            "releaseLock" => (
                Op::ReleaseLock {
                    reader: self
                        .expr_of_kinds(line, &[Kind::Reader, Kind::ByobReader, Kind::Writer])?,
                },
                Kind::Value,
            ),
            "cancel" => {
                let target =
                    self.expr_of_kinds(line, &[Kind::Readable, Kind::Reader, Kind::ByobReader])?;
                let reason = self.opt_expr(line)?;
                (Op::Cancel { target, reason }, Kind::Promise)
            }
            "target" => (Op::NewTarget, Kind::Target),
            "emitter" => match line.peek_word() {
                Some("captureRejections") => {
                    line.bump();
                    (Op::NewCapturingEmitter, Kind::Emitter)
                }
                _ if line.at_end() => (Op::NewEmitter, Kind::Emitter),
                _ => return Err(self.expected(line, "`captureRejections` or the end of the line")),
            },
            "als" => {
                let default = if line.peek_word() == Some("default") {
                    line.bump();
                    Some(self.expr(line)?.0)
                } else {
                    None
                };
                (Op::NewAls { default }, Kind::Als)
            }
            "getStore" => (
                Op::GetStore {
                    als: self.expr_of(line, Kind::Als)?,
                },
                Kind::Value,
            ),
            "enterWith" => {
                let als = self.expr_of(line, Kind::Als)?;
                let value = self.expr(line)?.0;
                (Op::EnterWith { als, value }, Kind::Value)
            }
            "disable" => (
                Op::DisableAls {
                    als: self.expr_of(line, Kind::Als)?,
                },
                Kind::Value,
            ),
            "bind" => {
                let (first, kind) =
                    self.expr_of_kinds_with(line, &[Kind::AsyncResource, Kind::Function])?;
                if kind == Kind::AsyncResource {
                    let function = self.expr_of(line, Kind::Function)?;
                    (
                        Op::Bind {
                            resource: Some(first),
                            function,
                        },
                        Kind::Function,
                    )
                } else {
                    (
                        Op::Bind {
                            resource: None,
                            function: first,
                        },
                        Kind::Function,
                    )
                }
            }
            "snapshot" => (Op::Snapshot, Kind::Function),
            "call" => {
                let function = self.expr_of(line, Kind::Function)?;
                let mut args = Vec::new();
                while !line.at_end() {
                    if args.len() == MAX_LIST {
                        return Err(self.expected(
                            line,
                            &format!("the end of the line (at most {MAX_LIST} arguments)"),
                        ));
                    }
                    args.push(self.expr(line)?.0);
                }
                (Op::Call { function, args }, Kind::Value)
            }
            "asyncResource" => (
                Op::NewAsyncResource {
                    kind: self.expr(line)?.0,
                },
                Kind::AsyncResource,
            ),
            "emitDestroy" => (
                Op::EmitDestroy {
                    resource: self.expr_of(line, Kind::AsyncResource)?,
                },
                Kind::AsyncResource,
            ),
            "removeListener" => {
                let emitter = self.expr_of(line, Kind::Emitter)?;
                let name = self.expr(line)?.0;
                let listener = self.expr(line)?.0;
                (
                    Op::EmitterRemove {
                        emitter,
                        name,
                        listener,
                    },
                    Kind::Emitter,
                )
            }
            "removeAllListeners" => {
                let emitter = self.expr_of(line, Kind::Emitter)?;
                let name = self.opt_expr(line)?;
                (Op::EmitterRemoveAll { emitter, name }, Kind::Emitter)
            }
            "emit" => {
                let emitter = self.expr_of(line, Kind::Emitter)?;
                let name = self.expr(line)?.0;
                let mut args = Vec::new();
                while !line.at_end() {
                    if args.len() == MAX_LIST {
                        return Err(self.expected(
                            line,
                            &format!("the end of the line (at most {MAX_LIST} arguments)"),
                        ));
                    }
                    args.push(self.expr(line)?.0);
                }
                (
                    Op::Emit {
                        emitter,
                        name,
                        args,
                    },
                    Kind::Value,
                )
            }
            "listenerCount" => {
                let emitter = self.expr_of(line, Kind::Emitter)?;
                let name = self.expr(line)?.0;
                let listener = self.opt_expr(line)?;
                (
                    Op::EmitterListenerCount {
                        emitter,
                        name,
                        listener,
                    },
                    Kind::Value,
                )
            }
            "eventNames" => (
                Op::EventNames {
                    emitter: self.expr_of(line, Kind::Emitter)?,
                },
                Kind::Value,
            ),
            "eventsKeyCount" => (
                Op::EventsKeyCount {
                    emitter: self.expr_of(line, Kind::Emitter)?,
                },
                Kind::Value,
            ),
            // Any value: the setter validates it.
            "setDefaultMaxListeners" => (
                Op::SetDefaultMaxListeners {
                    n: self.expr(line)?.0,
                },
                Kind::Value,
            ),
            "onceEvent" => {
                let emitter = self.expr_of(line, Kind::Emitter)?;
                let name = self.expr(line)?.0;
                let signal = match line.peek_word() {
                    Some("signal") => {
                        line.bump();
                        // Any value: `events.once` validates it.
                        Some(self.expr(line)?.0)
                    }
                    _ if line.at_end() => None,
                    _ => return Err(self.expected(line, "`signal S` or the end of the line")),
                };
                (
                    Op::OnceEvent {
                        emitter,
                        name,
                        signal,
                    },
                    Kind::Promise,
                )
            }
            "onEvents" => {
                let emitter = self.expr_of(line, Kind::Emitter)?;
                let name = self.expr(line)?.0;
                let [signal, close, high_water_mark, low_water_mark] =
                    self.events_on_options(line)?;
                (
                    Op::OnEvents(Box::new(OnEvents {
                        emitter,
                        name,
                        signal,
                        close,
                        high_water_mark,
                        low_water_mark,
                    })),
                    Kind::EmitterIterator,
                )
            }
            "iterThrow" => {
                let iterator = self.expr_of(line, Kind::EmitterIterator)?;
                // Any value: `throw` validates it.
                let value = self.expr(line)?.0;
                (Op::IterThrow { iterator, value }, Kind::Value)
            }
            "onRejection" => {
                let emitter = self.expr_of(line, Kind::Emitter)?;
                // Any value: the emit calls it only if it is a function.
                let (function, kind) = self.expr(line)?;
                (Op::OnRejection { emitter, function }, kind)
            }
            w @ ("listeners" | "rawListeners") => {
                let raw = w == "rawListeners";
                let emitter = self.expr_of(line, Kind::Emitter)?;
                let name = self.expr(line)?.0;
                (Op::EmitterListeners { emitter, name, raw }, Kind::Value)
            }
            "abort" => {
                let (target, kind) = self
                    .expr_of_kinds_with(line, &[Kind::Controller, Kind::Writable, Kind::Writer])?;
                let reason = self.opt_expr(line)?;
                if kind == Kind::Controller {
                    (
                        Op::Abort {
                            controller: target,
                            reason,
                        },
                        Kind::Value,
                    )
                } else {
                    (Op::AbortWritable { target, reason }, Kind::Promise)
                }
            }
            "aborted" => (
                Op::SignalAbort {
                    reason: self.opt_expr(line)?,
                },
                Kind::Signal,
            ),
            "timeout" => (Op::SignalTimeout { ms: self.ms(line)? }, Kind::Signal),
            "any" => {
                // Any values: the WebIDL conversion to sequence<AbortSignal>
                // refuses what is not a signal.
                let from_set = line.peek_word() == Some("set");
                if from_set {
                    line.bump();
                }
                let signals = self.signal_list(line, 0)?;
                (Op::SignalAny { signals, from_set }, Kind::Signal)
            }
            "throwIfAborted" => (
                Op::ThrowIfAborted {
                    signal: self.expr_of(line, Kind::Signal)?,
                },
                Kind::Value,
            ),
            "dispose" => (
                Op::Dispose {
                    disposable: self.expr_of(line, Kind::Disposable)?,
                },
                Kind::Value,
            ),
            "setMaxListeners" => {
                // Any values: events.setMaxListeners validates N, then each
                // target in turn.
                let (n, _) = self.expr(line)?;
                let mut targets = Vec::new();
                let mut count = 0usize;
                let mut past_limit = 0;
                while !line.at_end() {
                    if count == MAX_LIST {
                        past_limit = line.col();
                    }
                    let (target, _) = self.expr(line)?;
                    count += 1;
                    if count <= MAX_LIST {
                        targets.push(target);
                    }
                }
                if targets.is_empty() {
                    return Err(self.expected(line, "a target after the maximum"));
                }
                if count > MAX_LIST {
                    return Err(self.error(
                        line.number,
                        past_limit,
                        format!(
                            "expected at most {MAX_LIST} targets in one `setMaxListeners`, found {count}"
                        ),
                    ));
                }
                (Op::SetMaxListeners { n, targets }, Kind::Value)
            }
            "getMaxListeners" => (
                Op::GetMaxListeners {
                    target: self.expr(line)?.0,
                },
                Kind::Value,
            ),
            "off" => {
                let target = self.expr_of(line, Kind::Target)?;
                let event_type = self.event_type(line)?;
                let listener = self.listener_expr(line)?;
                let (capture, as_boolean) = match line.peek_word() {
                    Some(b @ ("true" | "false")) => {
                        let capture = b == "true";
                        line.bump();
                        (capture, true)
                    }
                    _ => (self.flag(line, "capture"), false),
                };
                (
                    Op::RemoveEventListener {
                        target,
                        event_type,
                        listener,
                        capture,
                        as_boolean,
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
            "clearInterval" => (
                Op::ClearInterval {
                    timer: self.expr_of(line, Kind::Timer)?,
                },
                Kind::Value,
            ),
            "ref" | "unref" => (
                Op::TimerRef {
                    timer: self.expr_of(line, Kind::Timer)?,
                    refed: word == "ref",
                },
                Kind::Timer,
            ),
            "clearTimeout" => (
                Op::ClearTimeout {
                    timer: self.expr_of(line, Kind::Timer)?,
                },
                Kind::Value,
            ),
            "clearImmediate" => (
                Op::ClearImmediate {
                    immediate: self.expr_of(line, Kind::Immediate)?,
                },
                Kind::Value,
            ),
            "promise" => (Op::NewPromise, Kind::Deferred),
            "withResolvers" => (Op::WithResolvers, Kind::Resolvers),
            "process" => {
                if line.peek_word() != Some("off") {
                    return Err(self.expected(line, "`off` after `process`"));
                }
                line.bump();
                let event = line
                    .peek_word()
                    .and_then(|w| ProcessEvent::ALL.into_iter().find(|e| e.name() == w));
                let Some(event) = event else {
                    return Err(self.expected(line, "`uncaughtException` or `unhandledRejection`"));
                };
                line.bump();
                (Op::ProcessOff(event), Kind::Value)
            }
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
            "new" => self.new_op(line)?,
            "dispatchEvent" => {
                let target = self.expr_of(line, Kind::Target)?;
                // Any value: Node validates it.
                let event = self.expr(line)?.0;
                (Op::DispatchEvent { target, event }, Kind::Value)
            }
            "composedPath" => (
                Op::ComposedPath {
                    event: self.expr_of(line, Kind::Event)?,
                },
                Kind::Value,
            ),
            "set"
                if line.peek().is_some_and(|t| matches!(t, Tok::Word(_)))
                    && line.toks.get(line.pos + 1).map(|t| &t.tok) != Some(&Tok::Punct('.')) =>
            {
                // `set NAME V`: a binding that holds a plain value.
                let col = line.col();
                let (target, kind) = self.expr(line)?;
                let assignable = matches!(target, Expr::Var(_)) && kind == Kind::Value;
                if !assignable {
                    let shown = crate::printer::print_expr(&target);
                    return Err(self.error(
                        line.number,
                        col,
                        format!("expected a binding that holds a plain value after `set`, found `{shown}`, which is {}", kind.name()),
                    ));
                }
                let value = self.expr(line)?.0;
                (Op::Assign { target, value }, Kind::Value)
            }
            "set" => {
                let (target, attribute) = self.event_attribute(line)?;
                let value = self.expr(line)?.0;
                (
                    Op::SetEventAttribute {
                        event: target,
                        attribute,
                        value,
                    },
                    Kind::Value,
                )
            }
            "all" | "allSettled" | "race" | "promiseAny" => {
                let kind = Combinator::ALL
                    .into_iter()
                    .find(|c| c.keyword() == word)
                    .expect("a combinator's keyword");
                let values = self.list(line, Kind::Value, "values", word)?;
                (Op::Combinator { kind, values }, Kind::Promise)
            }
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

    /// `onabort S {`, `onabort S F`, `onabort S null` or `onabort S
    /// VALUE` for a literal that is not callable, after the keyword.
    fn onabort_op(&mut self, line: &mut Line) -> PResult<(Op, Kind)> {
        let signal = self.expr_of(line, Kind::Signal)?;
        let literal = match line.peek() {
            Some(Tok::Str(_) | Tok::Int(_) | Tok::Number(_) | Tok::EmptyObject) => true,
            Some(Tok::Word(w)) => matches!(
                w.as_str(),
                "true"
                    | "false"
                    | "undefined"
                    | "NaN"
                    | "Infinity"
                    | "Symbol"
                    | "Error"
                    | "TypeError"
                    | "RangeError"
                    | "DOMException"
            ),
            _ => false,
        };
        let handler = if line.peek_word() == Some("null") {
            line.bump();
            Handler::Null
        } else if literal {
            Handler::Value(self.expr(line)?.0)
        } else {
            Handler::Callback(self.callback(line, BlockKind::Listener)?)
        };
        self.no_else(line)?;
        Ok((Op::SetOnAbort { signal, handler }, Kind::Value))
    }

    /// `addAbortListener S {` or `addAbortListener S F`, after the keyword.
    fn add_abort_listener_op(&mut self, line: &mut Line) -> PResult<(Op, Kind)> {
        // Any values: `events.addAbortListener` validates both.
        let signal = self.expr(line)?.0;
        let listener = if line.at_block_open() {
            Callback::Inline(self.block(line, BlockKind::Listener)?)
        } else {
            Callback::Value(self.expr(line)?.0)
        };
        self.no_else(line)?;
        Ok((Op::AddAbortListener { signal, listener }, Kind::Disposable))
    }

    /// `fn {` or `fn async {`, after the keyword.
    fn function_op(&mut self, line: &mut Line) -> PResult<(Op, Kind)> {
        if line.peek_word() == Some("async") {
            line.bump();
            let b = self.async_block(line, BlockKind::Listener)?;
            self.no_else(line)?;
            return Ok((Op::AsyncFunction(b), Kind::Function));
        }
        let b = self.block(line, BlockKind::Listener)?;
        self.no_else(line)?;
        Ok((Op::Function(b), Kind::Function))
    }

    /// `async {`, after the keyword.
    fn async_op(&mut self, line: &mut Line) -> PResult<(Op, Kind)> {
        let b = self.async_block(line, BlockKind::Plain)?;
        self.no_else(line)?;
        Ok((Op::Async(b), Kind::Promise))
    }

    /// `await V`, after the keyword: only where the innermost function is
    /// async.
    fn await_op(&mut self, line: &mut Line, col: usize) -> PResult<(Op, Kind)> {
        if !self.scopes.last().is_some_and(|s| s.awaits) {
            return Err(self.error(
                line.number,
                col,
                "`await` is only valid in the body of an async function (`async {` or `fn async {`), not in the main script or another callback".to_string(),
            ));
        }
        let (e, _) = self.expr(line)?;
        Ok((Op::Await(e), Kind::Value))
    }

    /// `on T TYPE [F] [once] [capture] [passive] [signal S] [{]`, after the
    /// keyword.
    fn on_op(&mut self, line: &mut Line) -> PResult<(Op, Kind)> {
        let (target, event_type, named, options) = self.on_head(line)?;
        let listener = match named {
            Some(e) => Callback::Value(e),
            None => Callback::Inline(self.block(line, BlockKind::Listener)?),
        };
        self.no_else(line)?;
        Ok((
            Op::AddEventListener {
                target,
                event_type,
                listener,
                options,
            },
            Kind::Value,
        ))
    }

    /// The words of `on` before its inline listener: the target, the type,
    /// the listener when it is named, and the options. Without a named
    /// listener, the line must then end with `{`.
    fn on_head(
        &mut self,
        line: &mut Line,
    ) -> PResult<(Expr, String, Option<Expr>, ListenerOptions)> {
        let target = self.expr_of(line, Kind::Target)?;
        let event_type = self.event_type(line)?;
        let mut named = None;
        if !line.at_block_open()
            && !matches!(
                line.peek_word(),
                Some("once" | "capture" | "passive" | "signal" | "options" | "true" | "false")
            )
        {
            named = Some(self.listener_expr(line)?);
        }
        if line.peek_word() == Some("options") {
            // The whole third argument, as a value of any kind.
            line.bump();
            let value = self.expr(line)?.0;
            if let Some(w @ ("once" | "capture" | "passive" | "signal" | "true" | "false")) =
                line.peek_word()
            {
                let message =
                    format!("`options V` is the whole third argument: `{w}` cannot come with it");
                return Err(self.error(line.number, line.col(), message));
            }
            if named.is_none() && !line.at_block_open() {
                return Err(self.expected(line, "a listener: `{` at the end of the line"));
            }
            let options = ListenerOptions {
                value: Some(value),
                ..ListenerOptions::default()
            };
            return Ok((target, event_type, named, options));
        }
        let mut options = ListenerOptions::default();
        if let Some(b @ ("true" | "false")) = line.peek_word() {
            // The bare boolean third argument: only `capture`, nothing else.
            options.capture = b == "true";
            options.as_boolean = true;
            line.bump();
        }
        loop {
            if options.as_boolean {
                break;
            }
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
                    // Any value: Node validates it (`validateAbortSignal`).
                    options.signal = Some(self.expr(line)?.0);
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
        if named.is_none() && !line.at_block_open() {
            return Err(self.expected(
                line,
                "a listener (a function binding, or `{` at the end of the line) or an option (once, capture, passive, signal S)",
            ));
        }
        Ok((target, event_type, named, options))
    }

    /// `microtask {`, after the keyword.
    fn microtask_op(&mut self, line: &mut Line) -> PResult<(Op, Kind)> {
        let b = self.block(line, BlockKind::Plain)?;
        self.no_else(line)?;
        Ok((Op::QueueMicrotask(b), Kind::Value))
    }

    /// `tick {`, after the keyword.
    fn tick_op(&mut self, line: &mut Line) -> PResult<(Op, Kind)> {
        let b = self.block(line, BlockKind::Plain)?;
        self.no_else(line)?;
        Ok((Op::NextTick(b), Kind::Value))
    }

    /// `setTimeout MS {`, after the keyword.
    fn set_timeout_op(&mut self, line: &mut Line) -> PResult<(Op, Kind)> {
        let ms = self.ms(line)?;
        let body = self.block(line, BlockKind::Plain)?;
        self.no_else(line)?;
        Ok((Op::SetTimeout { ms, body }, Kind::Timer))
    }

    /// `alsRun A V {`, `alsExit A {`, `runInAsyncScope R {` and `native MS
    /// [resource] F` (or `{`), after the keyword.
    fn async_context_block_op(&mut self, word: &str, line: &mut Line) -> PResult<(Op, Kind)> {
        let op = match word {
            "alsRun" => {
                let als = self.expr_of(line, Kind::Als)?;
                let value = self.expr(line)?.0;
                let body = self.block(line, BlockKind::Plain)?;
                Op::AlsRun { als, value, body }
            }
            "alsExit" => {
                let als = self.expr_of(line, Kind::Als)?;
                let body = self.block(line, BlockKind::Plain)?;
                Op::AlsExit { als, body }
            }
            "runInAsyncScope" => {
                let resource = self.expr_of(line, Kind::AsyncResource)?;
                let body = self.block(line, BlockKind::Plain)?;
                Op::RunInAsyncScope { resource, body }
            }
            _ => {
                let ms = self.ms(line)?;
                let resource = line.peek_word() == Some("resource");
                if resource {
                    line.bump();
                }
                let callback = self.callback(line, BlockKind::Plain)?;
                Op::NativeCallback {
                    ms,
                    resource,
                    callback,
                }
            }
        };
        self.no_else(line)?;
        Ok((op, Kind::Value))
    }

    /// `setImmediate {`, after the keyword.
    fn set_immediate_op(&mut self, line: &mut Line) -> PResult<(Op, Kind)> {
        let b = self.block(line, BlockKind::Plain)?;
        self.no_else(line)?;
        Ok((Op::SetImmediate(b), Kind::Immediate))
    }

    /// `readable [highWaterMark N] [size {] ... [} start {] ... [} pull {]
    /// ... [} cancel {] ... }`, after the keyword: each part optional, in
    /// that order.
    fn readable_op(&mut self, line: &mut Line) -> PResult<(Op, Kind)> {
        if line.peek_word() == Some("bytes") {
            line.bump();
            return self.readable_bytes_op(line);
        }
        let high_water_mark = self.high_water_mark(line, "highWaterMark")?;
        let [size, start, pull, cancel] = self.methods(
            line,
            [
                ("size", BlockKind::Size),
                ("start", BlockKind::Source(Kind::StreamController)),
                ("pull", BlockKind::Source(Kind::StreamController)),
                ("cancel", BlockKind::Rejected),
            ],
            high_water_mark.is_some(),
            "`highWaterMark N`",
        )?;
        Ok((
            Op::NewReadable {
                strategy: Strategy {
                    high_water_mark,
                    size,
                },
                start,
                pull,
                cancel,
            },
            Kind::Readable,
        ))
    }

    /// `readable bytes [highWaterMark N] [autoAllocateChunkSize N] [start
    /// {] ... [} pull {] ... [} cancel {] ... }`, after `bytes`.
    fn readable_bytes_op(&mut self, line: &mut Line) -> PResult<(Op, Kind)> {
        let high_water_mark = self.high_water_mark(line, "highWaterMark")?;
        let mut auto_allocate_chunk_size = None;
        if line.peek_word() == Some("autoAllocateChunkSize") {
            line.bump();
            // Any number the script gives: the library refuses 0 and
            // fractions with Node's error; only the size is bounded here.
            let n = match line.peek() {
                Some(Tok::Int(i)) if (0..=i64::from(MAX_BYTES)).contains(i) => *i as f64,
                Some(Tok::Number(bits))
                    if (0.0..=f64::from(MAX_BYTES)).contains(&f64::from_bits(*bits)) =>
                {
                    f64::from_bits(*bits)
                }
                _ => {
                    return Err(self.expected(
                        line,
                        &format!("an autoAllocateChunkSize (a number from 0 to {MAX_BYTES})"),
                    ))
                }
            };
            line.bump();
            auto_allocate_chunk_size = Some(Number::new(n));
        }
        let controller = BlockKind::Source(Kind::ByteController);
        let [start, pull, cancel] = self.methods(
            line,
            [
                ("start", controller),
                ("pull", controller),
                ("cancel", BlockKind::Rejected),
            ],
            high_water_mark.is_some() || auto_allocate_chunk_size.is_some(),
            "`highWaterMark N`, `autoAllocateChunkSize N`",
        )?;
        Ok((
            Op::NewReadableBytes {
                high_water_mark,
                auto_allocate_chunk_size,
                start,
                pull,
                cancel,
            },
            Kind::Readable,
        ))
    }

    /// `[B, ...]` (each a whole number from 0 to 255) or `N` (a length up
    /// to [`MAX_BYTES`]), after `bytes`.
    fn bytes_init(&mut self, line: &mut Line) -> PResult<BytesInit> {
        if let Some(Tok::Int(n)) = line.peek() {
            let n = *n;
            if !(0..=i64::from(MAX_BYTES)).contains(&n) {
                return Err(self.expected(
                    line,
                    &format!("a length from 0 to {MAX_BYTES}, or a list of bytes, after `bytes`"),
                ));
            }
            line.bump();
            return Ok(BytesInit::Zeros(n as u32));
        }
        let col = line.col();
        let values = self.list(line, Kind::Value, "bytes", "bytes")?;
        let mut bytes = Vec::with_capacity(values.len());
        for v in values {
            match v {
                Expr::Int(b) if (0..=255).contains(&b) => bytes.push(b as u8),
                other => {
                    let shown = crate::printer::print_expr(&other);
                    return Err(self.error(
                        line.number,
                        col,
                        format!("expected bytes (whole numbers from 0 to 255) in `bytes [...]`, found `{shown}`"),
                    ));
                }
            }
        }
        Ok(BytesInit::Values(bytes))
    }

    /// `writable [highWaterMark N] [size {] ... [} start {] ... [} write {]
    /// ... [} close {] ... [} abort {] ... }`, after the keyword.
    fn writable_op(&mut self, line: &mut Line) -> PResult<(Op, Kind)> {
        let high_water_mark = self.high_water_mark(line, "highWaterMark")?;
        let [size, start, write, close, abort] = self.methods(
            line,
            [
                ("size", BlockKind::Size),
                ("start", BlockKind::Source(Kind::WritableController)),
                ("write", BlockKind::Sink(Kind::WritableController)),
                ("close", BlockKind::Plain),
                ("abort", BlockKind::Rejected),
            ],
            high_water_mark.is_some(),
            "`highWaterMark N`",
        )?;
        Ok((
            Op::NewWritable {
                strategy: Strategy {
                    high_water_mark,
                    size,
                },
                start,
                write,
                close,
                abort,
            },
            Kind::Writable,
        ))
    }

    /// `transform [writableHighWaterMark N] [readableHighWaterMark N]
    /// [start {] ... [} transform {] ... [} flush {] ... [} cancel {] ...
    /// }`, after the keyword.
    fn transform_op(&mut self, line: &mut Line) -> PResult<(Op, Kind)> {
        let writable_high_water_mark = self.high_water_mark(line, "writableHighWaterMark")?;
        let readable_high_water_mark = self.high_water_mark(line, "readableHighWaterMark")?;
        let controller = Kind::TransformController;
        let [start, transform, flush, cancel] = self.methods(
            line,
            [
                ("start", BlockKind::Source(controller)),
                ("transform", BlockKind::Sink(controller)),
                ("flush", BlockKind::Source(controller)),
                ("cancel", BlockKind::Rejected),
            ],
            writable_high_water_mark.is_some() || readable_high_water_mark.is_some(),
            "`writableHighWaterMark N`, `readableHighWaterMark N`",
        )?;
        Ok((
            Op::NewTransform {
                writable_high_water_mark,
                readable_high_water_mark,
                start,
                transform,
                flush,
                cancel,
            },
            Kind::Transform,
        ))
    }

    /// `WORD N`, a highWaterMark (a number from 0 up), when the line has
    /// `WORD` next.
    fn high_water_mark(&mut self, line: &mut Line, word: &str) -> PResult<Option<Number>> {
        if line.peek_word() != Some(word) {
            return Ok(None);
        }
        line.bump();
        let n = match line.peek() {
            Some(Tok::Int(i)) if *i >= 0 => Some(Number::new(*i as f64)),
            Some(Tok::Number(bits)) if f64::from_bits(*bits) >= 0.0 => {
                Some(Number::new(f64::from_bits(*bits)))
            }
            _ => None,
        };
        let Some(n) = n else {
            return Err(self.expected(line, &format!("a {word} (a number from 0 up)")));
        };
        line.bump();
        Ok(Some(n))
    }

    /// The methods of a stream's underlying source, sink or transformer
    /// (and its strategy's `size`): `NAME {` ... `}` for each that is
    /// given, in the order of `names`, then the end of the line.
    /// `options` names what may come before them, for the error message,
    /// and `had_options` says whether some did.
    fn methods<const N: usize>(
        &mut self,
        line: &mut Line,
        names: [(&str, BlockKind); N],
        had_options: bool,
        options: &str,
    ) -> PResult<[Option<Block>; N]> {
        let mut methods: [Option<Block>; N] = std::array::from_fn(|_| None);
        let mut last = None;
        for (i, (word, kind)) in names.into_iter().enumerate() {
            if line.peek_word() == Some(word) {
                line.bump();
                methods[i] = Some(self.block(line, kind)?);
                last = Some(i);
            }
        }
        if !line.at_end() {
            let words: Vec<String> = names.iter().map(|(w, _)| format!("`{w} {{`")).collect();
            let order: Vec<&str> = names.iter().map(|(w, _)| *w).collect();
            let what = match last {
                Some(i) if i + 1 < N => format!(
                    "{} after `}}`, in the order {}, or the end of the line",
                    words[i + 1..].join(" or "),
                    order.join(", ")
                ),
                Some(_) => "the end of the line".to_string(),
                None if had_options => format!(
                    "{} (in that order), or the end of the line",
                    words.join(", ")
                ),
                None => format!(
                    "{options}, {} (in that order), or the end of the line",
                    words.join(", ")
                ),
            };
            return Err(self.expected(line, &what));
        }
        Ok(methods)
    }

    /// `then P [{ ... }] [else { ... }]`, after the keyword.
    fn then_op(&mut self, line: &mut Line) -> PResult<(Op, Kind)> {
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
        Ok((
            Op::Then {
                promise,
                on_fulfilled,
                on_rejected,
            },
            Kind::Promise,
        ))
    }

    /// `catch P {`, after the keyword.
    fn catch_op(&mut self, line: &mut Line) -> PResult<(Op, Kind)> {
        let promise = self.expr_of(line, Kind::Promise)?;
        let on_rejected = self.block(line, BlockKind::Rejected)?;
        self.no_else(line)?;
        Ok((
            Op::Catch {
                promise,
                on_rejected,
            },
            Kind::Promise,
        ))
    }

    /// `finally P {`, after the keyword.
    /// `new Event ...`, `new CustomEvent ...` or `new AbortSignal`, after
    /// `new`.
    fn new_op(&mut self, line: &mut Line) -> PResult<(Op, Kind)> {
        let custom = match line.peek_word() {
            Some("AbortSignal") => {
                line.bump();
                return Ok((Op::NewAbortSignal, Kind::Signal));
            }
            Some("Event") => false,
            Some("CustomEvent") => true,
            _ => {
                return Err(
                    self.expected(line, "`Event`, `CustomEvent` or `AbortSignal` after `new`")
                )
            }
        };
        line.bump();
        let event_type = if line.at_end() {
            None
        } else {
            Some(self.event_type(line)?)
        };
        let mut detail = None;
        if custom && event_type.is_some() && line.peek_word() == Some("detail") {
            line.bump();
            detail = Some(self.expr(line)?.0);
        }
        let (mut bubbles, mut cancelable, mut composed) = (false, false, false);
        while let Some(word) = line.peek_word() {
            let flag = match word {
                "bubbles" => &mut bubbles,
                "cancelable" => &mut cancelable,
                "composed" => &mut composed,
                _ => break,
            };
            if *flag {
                let message = format!("the option `{word}` is given twice");
                return Err(self.error(line.number, line.col(), message));
            }
            *flag = true;
            line.bump();
        }
        Ok((
            Op::NewEvent {
                custom,
                event_type,
                detail,
                bubbles,
                cancelable,
                composed,
            },
            Kind::Event,
        ))
    }

    /// `E.returnValue` or `E.cancelBubble` after `set`: an event and the
    /// attribute written.
    fn event_attribute(&mut self, line: &mut Line) -> PResult<(Expr, EventAttribute)> {
        let col = line.col();
        let (e, _) = self.expr(line)?;
        let attribute = match e {
            Expr::Prop(ref obj, ref prop) => match prop.as_str() {
                "returnValue" => Some((EventAttribute::ReturnValue, obj)),
                "cancelBubble" => Some((EventAttribute::CancelBubble, obj)),
                _ => None,
            },
            _ => None,
        };
        match attribute {
            Some((attribute, obj)) => {
                let event = (**obj).clone();
                Ok((event, attribute))
            }
            None => {
                let mut shown = String::new();
                crate::printer::write_expr(&mut shown, &e);
                Err(self.error(
                    line.number,
                    col,
                    format!("expected an event's `returnValue` or `cancelBubble` after `set` (the only attributes a script writes), found `{shown}`"),
                ))
            }
        }
    }

    /// `thenable V [{`, after the keyword.
    fn thenable_op(&mut self, line: &mut Line) -> PResult<(Op, Kind)> {
        let value = self.expr(line)?.0;
        let body = if line.at_block_open() {
            let body = self.block(line, BlockKind::Plain)?;
            self.no_else(line)?;
            Some(body)
        } else {
            None
        };
        Ok((Op::Thenable { value, body }, Kind::Thenable))
    }

    /// `[E1, E2, ...]`, each of kind `wanted`: the list of `any` (`what`
    /// is "signals") or of a promise combinator.
    fn list(
        &mut self,
        line: &mut Line,
        wanted: Kind,
        what: &str,
        keyword: &str,
    ) -> PResult<Vec<Expr>> {
        self.list_of(line, what, keyword, |p, line| {
            if wanted == Kind::Value {
                Ok(p.expr(line)?.0)
            } else {
                p.expr_of(line, wanted)
            }
        })
    }

    /// The list of an `any`: values, and temporaries (`timeout MS`, and
    /// `any [...]` while `depth` allows another level) made in place.
    fn signal_list(&mut self, line: &mut Line, depth: usize) -> PResult<Vec<Expr>> {
        self.list_of(line, "signals", "any", |p, line| {
            let col = line.col();
            match line.peek_word() {
                Some("timeout") => {
                    line.bump();
                    Ok(Expr::Temporary(Box::new(Temporary::Timeout(p.ms(line)?))))
                }
                Some("any") if depth + 1 < MAX_TEMPORARY_DEPTH => {
                    line.bump();
                    let from_set = line.peek_word() == Some("set");
                    if from_set {
                        line.bump();
                    }
                    let signals = p.signal_list(line, depth + 1)?;
                    Ok(Expr::Temporary(Box::new(Temporary::Any {
                        signals,
                        from_set,
                    })))
                }
                Some("any") => Err(p.error(
                    line.number,
                    col,
                    format!(
                        "expected a signal or `timeout MS`: temporaries nest at most \
                         {MAX_TEMPORARY_DEPTH} deep (`any [any [timeout 5]]`)"
                    ),
                )),
                _ => Ok(p.expr(line)?.0),
            }
        })
    }

    fn list_of(
        &mut self,
        line: &mut Line,
        what: &str,
        keyword: &str,
        mut item: impl FnMut(&mut Self, &mut Line) -> PResult<Expr>,
    ) -> PResult<Vec<Expr>> {
        if line.peek() != Some(&Tok::Punct('[')) {
            return Err(self.expected(line, &format!("`[` starting the list of {what}")));
        }
        line.bump();
        let mut items = Vec::new();
        let mut count = 0usize;
        let mut past_limit = 0;
        if line.peek() == Some(&Tok::Punct(']')) {
            line.bump();
        } else {
            loop {
                if count == MAX_LIST {
                    past_limit = line.col();
                }
                let item = item(self, line)?;
                count += 1;
                if count <= MAX_LIST {
                    items.push(item);
                }
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
        if count > MAX_LIST {
            return Err(self.error(
                line.number,
                past_limit,
                format!(
                    "expected at most {MAX_LIST} {what} in one `{keyword} [...]`, found {count}"
                ),
            ));
        }
        Ok(items)
    }

    /// `addListener E NAME F`, `prependListener`, `once`,
    /// `prependOnceListener`: the emitter is the result.
    fn emitter_add_op(&mut self, word: &str, line: &mut Line) -> PResult<(Op, Kind)> {
        let emitter = self.expr_of(line, Kind::Emitter)?;
        let name = self.expr(line)?.0;
        let listener = self.callback(line, BlockKind::EmitterListener)?;
        self.no_else(line)?;
        let (prepend, once, _, _) = EMITTER_ADD_FORMS
            .into_iter()
            .find(|f| f.2 == word)
            .expect("the dispatch matched one of the words");
        Ok((
            Op::EmitterAdd {
                emitter,
                name,
                listener,
                prepend,
                once,
            },
            Kind::Emitter,
        ))
    }

    fn finally_op(&mut self, line: &mut Line) -> PResult<(Op, Kind)> {
        let promise = self.expr_of(line, Kind::Promise)?;
        let on_finally = self.block(line, BlockKind::Plain)?;
        self.no_else(line)?;
        Ok((
            Op::Finally {
                promise,
                on_finally,
            },
            Kind::Promise,
        ))
    }

    /// A listener named in `on` or `off`: a function, an EventListener
    /// object, a plain value, or a literal that is not a function (`null`,
    /// `undefined`, a string, a number, a symbol, `{}`), which Node's
    /// `validateEventListener` ignores, refuses or (an object) accepts.
    fn listener_expr(&mut self, line: &mut Line) -> PResult<Expr> {
        let literal = match line.peek() {
            Some(Tok::Str(_) | Tok::Int(_) | Tok::Number(_) | Tok::EmptyObject) => true,
            Some(Tok::Word(w)) => {
                matches!(
                    w.as_str(),
                    "null" | "undefined" | "NaN" | "Infinity" | "Symbol"
                )
            }
            _ => false,
        };
        if literal {
            return Ok(self.expr(line)?.0);
        }
        let col = line.col();
        let (e, kind) = self.expr(line)?;
        if kind.fits(Kind::Function) || kind == Kind::ListenerObject || kind == Kind::Value {
            return Ok(e);
        }
        let shown = crate::printer::print_expr(&e);
        Err(self.error(
            line.number,
            col,
            format!(
                "expected a function, an EventListener object or a plain value, found `{shown}`, which is {}",
                kind.name()
            ),
        ))
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

    /// An expression of one of these kinds.
    fn expr_of_kinds(&mut self, line: &mut Line, wanted: &[Kind]) -> PResult<Expr> {
        Ok(self.expr_of_kinds_with(line, wanted)?.0)
    }

    /// [`Parser::expr_of_kinds`], with the kind found: the operation may
    /// depend on it (`close` of a controller, or of a writer).
    fn expr_of_kinds_with(&mut self, line: &mut Line, wanted: &[Kind]) -> PResult<(Expr, Kind)> {
        let col = line.col();
        let (e, kind) = self.expr(line)?;
        let Some(&fit) = wanted.iter().find(|w| kind.fits(**w)) else {
            let shown = crate::printer::print_expr(&e);
            let names: Vec<&str> = wanted.iter().map(|w| w.name()).collect();
            let expected = match names.split_last() {
                Some((last, [])) => last.to_string(),
                Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                None => unreachable!("at least one kind is wanted"),
            };
            return Err(self.error(
                line.number,
                col,
                format!(
                    "expected {expected}, found `{shown}`, which is {}",
                    kind.name()
                ),
            ));
        };
        Ok((e, fit))
    }

    /// The options of `onEvents`: `[signal V] [close V] [highWaterMark V]
    /// [lowWaterMark V]`, in that order, each any value (`events.on`
    /// validates them). Apart from the operation's arm, so that the frame
    /// of the parser's recursion through blocks does not grow with them.
    #[inline(never)]
    fn events_on_options(&mut self, line: &mut Line) -> PResult<[Option<Expr>; 4]> {
        const WORDS: [&str; 4] = ["signal", "close", "highWaterMark", "lowWaterMark"];
        let mut options: [Option<Expr>; 4] = [None, None, None, None];
        let mut next = 0;
        while !line.at_end() && next < WORDS.len() {
            let at = line
                .peek_word()
                .and_then(|w| WORDS[next..].iter().position(|o| *o == w));
            let Some(at) = at else {
                let wanted = WORDS[next..]
                    .iter()
                    .map(|w| format!("`{w} V`"))
                    .collect::<Vec<_>>()
                    .join(", ");
                return Err(self.expected(line, &format!("{wanted} or the end of the line")));
            };
            line.bump();
            options[next + at] = Some(self.expr(line)?.0);
            next += at + 1;
        }
        Ok(options)
    }

    /// The options of `pipeTo` and `pipeThrough`: `[preventClose]
    /// [preventAbort] [preventCancel] [signal S]`, in that order.
    fn pipe_options(&mut self, line: &mut Line) -> PResult<PipeOptions> {
        let mut options = PipeOptions::default();
        for (word, flag) in [
            ("preventClose", &mut options.prevent_close),
            ("preventAbort", &mut options.prevent_abort),
            ("preventCancel", &mut options.prevent_cancel),
        ] {
            if line.peek_word() == Some(word) {
                line.bump();
                *flag = true;
            }
        }
        if line.peek_word() == Some("signal") {
            line.bump();
            options.signal = Some(self.expr_of(line, Kind::Signal)?);
        }
        Ok(options)
    }

    /// The operand of `same` or `typeof`: any expression but another
    /// `same` or `typeof`, so that operators never nest (and parsing them
    /// never recurses more than once).
    fn operand(&mut self, line: &mut Line) -> PResult<Expr> {
        if let Some(w @ ("same" | "typeof" | "instanceof" | "add" | "less")) = line.peek_word() {
            let message = format!("expected a value, found `{w}` (`same`, `typeof`, `instanceof`, `add` and `less` take a value, a binding or a property, not another operator)");
            return Err(self.error(line.number, line.col(), message));
        }
        Ok(self.expr(line)?.0)
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
            Tok::Number(bits) => (number_literal(f64::from_bits(bits)), Kind::Value),
            Tok::EmptyObject => (Expr::Object, Kind::Value),
            Tok::Str(s) => (Expr::Str(s), Kind::Value),
            Tok::Word(w) => match w.as_str() {
                "undefined" => (Expr::Undefined, Kind::Value),
                "null" => (Expr::Null, Kind::Value),
                "true" => (Expr::Bool(true), Kind::Value),
                "false" => (Expr::Bool(false), Kind::Value),
                "this" => (Expr::This, Kind::Value),
                "errorMonitor" => (Expr::ErrorMonitor, Kind::Value),
                "defaultMaxListeners" => (Expr::DefaultMaxListeners, Kind::Value),
                "NaN" => (Expr::Number(Number::new(f64::NAN)), Kind::Value),
                "Infinity" => (Expr::Number(Number::new(f64::INFINITY)), Kind::Value),
                "Symbol" => {
                    if line.peek() != Some(&Tok::Punct('(')) {
                        return Err(self.expected(line, "`(` after `Symbol`"));
                    }
                    line.bump();
                    let description = match line.peek().cloned() {
                        Some(Tok::Str(d)) => {
                            line.bump();
                            Some(d)
                        }
                        _ => None,
                    };
                    if line.peek() != Some(&Tok::Punct(')')) {
                        return Err(self.expected(line, "a description string or `)`"));
                    }
                    line.bump();
                    (Expr::Symbol(description), Kind::Value)
                }
                "arguments" => {
                    // `arguments.length`, in a callback: module code has no
                    // `arguments`.
                    if line.peek() != Some(&Tok::Punct('.')) || !self.in_callback() {
                        return Err(self.error(
                            line.number,
                            col,
                            "`arguments` may only be read as `arguments.length`, inside a callback"
                                .to_string(),
                        ));
                    }
                    line.bump();
                    if line.peek_word() != Some("length") {
                        return Err(self.expected(line, "`length` after `arguments.`"));
                    }
                    line.bump();
                    (Expr::ArgumentCount, Kind::Value)
                }
                "same" | "add" | "less" => {
                    let a = Box::new(self.operand(line)?);
                    let b = Box::new(self.operand(line)?);
                    let e = match w.as_str() {
                        "same" => Expr::Same(a, b),
                        "add" => Expr::Add(a, b),
                        _ => Expr::Less(a, b),
                    };
                    (e, Kind::Value)
                }
                "typeof" => {
                    // `typeof event.timeStamp`: a time's type, never its value.
                    self.under_typeof = true;
                    let a = self.operand(line);
                    self.under_typeof = false;
                    (Expr::TypeOf(Box::new(a?)), Kind::Value)
                }
                "instanceof" => {
                    let a = self.operand(line)?;
                    let class = match line.peek_word().and_then(Class::from_name) {
                        Some(class) => class,
                        None => {
                            let names: Vec<&str> = Class::ALL.iter().map(|c| c.name()).collect();
                            return Err(
                                self.expected(line, &format!("a class ({})", names.join(", ")))
                            );
                        }
                    };
                    line.bump();
                    (Expr::InstanceOf(Box::new(a), class), Kind::Value)
                }
                "Event" | "DOMException" if line.peek() == Some(&Tok::Punct('.')) => {
                    line.bump();
                    let class = if w == "Event" {
                        Class::Event
                    } else {
                        Class::DomException
                    };
                    let name = line.peek_word().map(str::to_string);
                    match name {
                        Some(name) if crate::ast::class_constant(class, &name).is_some() => {
                            line.bump();
                            (Expr::ClassConstant(class, name), Kind::Value)
                        }
                        _ => {
                            let names = crate::ast::class_constant_names(class);
                            return Err(self.expected(
                                line,
                                &format!("a constant of {w} ({})", names.join(", ")),
                            ));
                        }
                    }
                }
                "Error" | "TypeError" | "RangeError" | "DOMException" => {
                    if line.peek() != Some(&Tok::Punct('(')) {
                        return Err(self.expected(line, &format!("`(` after `{w}`")));
                    }
                    line.bump();
                    let Some(Tok::Str(msg)) = line.peek().cloned() else {
                        return Err(self.expected(line, "a message string"));
                    };
                    line.bump();
                    let name = if w == "DOMException" {
                        if line.peek() != Some(&Tok::Punct(',')) {
                            return Err(self.expected(line, "`,` and the DOMException's name"));
                        }
                        line.bump();
                        let Some(Tok::Str(name)) = line.peek().cloned() else {
                            return Err(self.expected(line, "a name string"));
                        };
                        line.bump();
                        Some(name)
                    } else {
                        None
                    };
                    if line.peek() != Some(&Tok::Punct(')')) {
                        return Err(self.expected(line, "`)`"));
                    }
                    line.bump();
                    let e = match (w.as_str(), name) {
                        ("TypeError", _) => Expr::NewBuiltinError {
                            class: BuiltinError::TypeError,
                            message: msg,
                        },
                        ("RangeError", _) => Expr::NewBuiltinError {
                            class: BuiltinError::RangeError,
                            message: msg,
                        },
                        (_, Some(name)) => Expr::NewDomException { message: msg, name },
                        _ => Expr::NewError(msg),
                    };
                    (e, Kind::Error)
                }
                name => match self.lookup(name) {
                    Some(_) if self.uninitialized.as_deref() == Some(name) => {
                        return Err(self.error(
                            line.number,
                            col,
                            format!("`{name}` is used in its own `let` before it is initialized (JavaScript throws: Cannot access '{name}' before initialization)"),
                        ));
                    }
                    Some(kind) => (Expr::var(name), kind),
                    None if is_keyword(name)
                        && !matches!(
                            name,
                            "event"
                                | "value"
                                | "reason"
                                | "controller"
                                | "chunk"
                                | "held"
                                | "arg1"
                                | "arg2"
                        ) =>
                    {
                        return Err(self.error(
                            line.number,
                            col,
                            format!("expected a value, found the keyword `{name}`"),
                        ));
                    }
                    // A callback may read a binding of the main script that a
                    // later statement makes: the emitted module declares every
                    // top-level binding up front, so the callback sees
                    // undefined until that statement has run, and then its
                    // value, as the engines' lookups do. What it holds is not
                    // known here: a plain value.
                    None if self.in_callback()
                        && self
                            .top_level_lets
                            .get(name)
                            .is_some_and(|at| *at > line.number) =>
                    {
                        (Expr::var(name), Kind::Value)
                    }
                    None => {
                        let later = self.declared_later(name);
                        let hint = match (name, later) {
                            ("event", _) => " (`event` exists only in listener bodies)".into(),
                            ("value", _) => " (`value` exists only in `then` bodies)".into(),
                            ("reason", _) => {
                                " (`reason` exists only in `else`, `catch`, and the `cancel` and `abort` bodies of streams)".into()
                            }
                            ("controller", _) => {
                                " (`controller` exists only in the `start`, `pull`, `write`, `transform` and `flush` bodies of streams)".into()
                            }
                            ("chunk", _) => {
                                " (`chunk` exists only in the `write`, `transform` and `size` bodies of streams)".into()
                            }
                            ("held", _) => {
                                " (`held` exists only in the cleanup callback of `registry`)".into()
                            }
                            ("arg1" | "arg2", _) => {
                                " (`arg1` and `arg2` exist only in inline EventEmitter listeners)".into()
                            }
                            (_, Some(at)) => format!(
                                " (it is declared further down, at line {at}; a binding can be used only after its `let`, except by callbacks reading a binding of the main script)"
                            ),
                            _ => String::new(),
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
        let mut chain = 0usize;
        while line.peek() == Some(&Tok::Punct('.')) {
            if chain == MAX_PROPERTY_CHAIN {
                let dot = line.col();
                // Count the whole chain for the message, without parsing it.
                let longer = line.toks[line.pos..]
                    .chunks_exact(2)
                    .take_while(|pair| {
                        pair[0].tok == Tok::Punct('.') && matches!(pair[1].tok, Tok::Word(_))
                    })
                    .count();
                return Err(self.error(
                    line.number,
                    dot,
                    format!(
                        "expected a property chain of at most {MAX_PROPERTY_CHAIN} properties, found {}",
                        chain + longer.max(1)
                    ),
                ));
            }
            chain += 1;
            line.bump();
            let pcol = line.col();
            let Some(prop) = line.peek_word().map(str::to_string) else {
                return Err(self.expected(line, "a property name after `.`"));
            };
            line.bump();
            if prop == "constructor" {
                // `A.constructor.name`, of a value of any kind.
                if line.peek() != Some(&Tok::Punct('.')) {
                    return Err(self.expected(line, "`.name` after `constructor`"));
                }
                line.bump();
                if line.peek_word() != Some("name") {
                    return Err(self.expected(line, "`name` after `constructor.`"));
                }
                line.bump();
                e = Expr::ConstructorName(Box::new(e));
                kind = Kind::Value;
                continue;
            }
            let constant = match kind {
                Kind::Event => crate::ast::class_constant(Class::Event, &prop),
                Kind::Error | Kind::Value => crate::ast::class_constant(Class::DomException, &prop),
                _ => None,
            };
            if constant.is_some() {
                e = e.prop(prop);
                kind = Kind::Value;
                continue;
            }
            let time = kind == Kind::Event && prop == "timeStamp" && self.under_typeof;
            let Some(k) = kind.property(&prop).or(time.then_some(Kind::Value)) else {
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
