//! Node's coded errors (lib/internal/errors.js), which both libraries throw
//! when their validators refuse an argument.
//!
//! A scenario observes such an error's class, `code` and message exactly as
//! Node 26.12.1 makes them, and the message describes the refused value
//! (`Received type number (5)`, `Received an instance of EventTarget`). The
//! description depends only on the value, not on which library refused it,
//! so it is written once here, as Node writes it once in
//! `determineSpecificType`.

use std::rc::Rc;

use crate::value::{ErrorClass, ObjectData, Value};
use crate::{Library, Runtime};

impl<L: Library> Runtime<L> {
    /// A new error of Node's `codes`: a `TypeError` (or another built-in
    /// class, by `name`) with a `code` property.
    pub fn node_error(&mut self, name: &str, code: &'static str, message: &str) -> Value {
        Value::Object(self.heap.alloc(ObjectData::Error {
            class: ErrorClass::Node { code },
            name: Rc::from(name),
            message: Rc::from(message),
        }))
    }

    /// Node's `assert()` failing (lib/internal/assert.js): an `Error` with
    /// code ERR_INTERNAL_ASSERTION and its fixed message, what a Node
    /// internal invariant that does not hold throws.
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/assert.js#L9-L13>
    pub fn internal_assertion_error(&mut self) -> Value {
        self.node_error(
            "Error",
            "ERR_INTERNAL_ASSERTION",
            // (The link is split so that tidy does not read it as a citation.)
            concat!(
                "This is caused by either a bug in Node.js or incorrect usage of ",
                "Node.js internals.\nPlease open an issue with this stack trace at ",
                "https://github.com/",
                "nodejs/node/issues\n"
            ),
        )
    }

    /// `new ERR_INVALID_ARG_TYPE(name, expected, actual)` for one expected
    /// class (`AbortSignal`: "must be an instance of AbortSignal") or one
    /// type (`function`: "must be of type function").
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/errors.js#L1413-L1483>
    /// the message builder, for a single expected class or type; a name
    /// with a `.` is a "property", not an "argument".
    pub fn err_invalid_arg_type(&mut self, name: &str, expected: &str, actual: &Value) -> Value {
        let kind = if name.contains('.') {
            "property"
        } else {
            "argument"
        };
        let must = if expected.starts_with(|c: char| c.is_ascii_uppercase()) {
            format!("an instance of {expected}")
        } else {
            format!("of type {expected}")
        };
        let received = self.determine_specific_type(actual);
        let message = format!("The \"{name}\" {kind} must be {must}. Received {received}");
        self.node_error("TypeError", "ERR_INVALID_ARG_TYPE", &message)
    }

    /// `new ERR_INVALID_ARG_TYPE(name, [A, B], actual)` for two or more
    /// expected classes: "must be an instance of A or B" (with three or
    /// more, "A, B, or C").
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/errors.js#L1413-L1483>
    /// the classes go through `formatList(instances, 'or')` (L1072-L1083).
    pub fn err_invalid_arg_type_classes(
        &mut self,
        name: &str,
        classes: &[&str],
        actual: &Value,
    ) -> Value {
        let kind = if name.contains('.') {
            "property"
        } else {
            "argument"
        };
        let list = match classes {
            [] => String::new(),
            [one] => (*one).to_string(),
            [a, b] => format!("{a} or {b}"),
            [rest @ .., last] => format!("{}, or {last}", rest.join(", ")),
        };
        let received = self.determine_specific_type(actual);
        let message =
            format!("The \"{name}\" {kind} must be an instance of {list}. Received {received}");
        self.node_error("TypeError", "ERR_INVALID_ARG_TYPE", &message)
    }

    /// `new ERR_OUT_OF_RANGE(name, range, number)`: a RangeError, "The value
    /// of "NAME" is out of range. It must be RANGE. Received N", where an
    /// integer beyond 2^32 in magnitude is written with `_` between groups
    /// of three digits.
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/errors.js#L1660-L1679>
    /// `addNumericalSeparator(String(input))` for large integers, else
    /// `inspect(input)`.
    pub fn err_out_of_range(&mut self, name: &str, range: &str, actual: f64) -> Value {
        let received =
            if actual.is_finite() && actual.fract() == 0.0 && actual.abs() > 2f64.powi(32) {
                let text = self.fmt(&Value::Number(actual));
                add_numerical_separator(&text)
            } else if actual == 0.0 && actual.is_sign_negative() {
                "-0".to_string()
            } else {
                self.fmt(&Value::Number(actual))
            };
        let message = format!(
            "The value of \"{name}\" is out of range. It must be {range}. Received {received}"
        );
        self.node_error("RangeError", "ERR_OUT_OF_RANGE", &message)
    }

    /// Node's WebIDL converters' TypeError (lib/internal/webidl.js
    /// `makeException`): `{context} {message}` with the code
    /// ERR_INVALID_ARG_TYPE, such as "signals[0] is not of type AbortSignal.".
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/webidl.js#L105-L113>
    pub fn webidl_type_error(&mut self, context: &str, message: &str) -> Value {
        self.node_error(
            "TypeError",
            "ERR_INVALID_ARG_TYPE",
            &format!("{context} {message}"),
        )
    }

    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/process/promises.js#L147-L151>
    /// `isErrorLike(obj)`: an object with an own `stack`, which every error
    /// object has (Error and its subclasses, DOMException, Node's coded
    /// errors, AggregateError) and no other object of a scenario.
    pub fn is_error_like(&self, value: &Value) -> bool {
        matches!(value, Value::Object(id) if matches!(self.heap.get(*id), ObjectData::Error { .. }))
    }

    /// V8's `%NoSideEffectsToString`, as the message of Node's
    /// UnhandledPromiseRejection uses it
    /// (<https://github.com/nodejs/node/blob/v26.12.1/lib/internal/process/promises.js#L46-L58>),
    /// for the values a non-error-like reason can be: a primitive as
    /// `String` writes it, an object as `#<Tag>` after its constructor or
    /// `Symbol.toStringTag`, an array as `[object Array]` and an object
    /// without a prototype as `[object Object]` (all read from the pinned
    /// Node 26.12.1).
    pub fn no_side_effects_to_string(&self, value: &Value) -> String {
        let Value::Object(id) = value else {
            return self.fmt(value);
        };
        match self.heap.get(*id) {
            ObjectData::Array(_) => "[object Array]".into(),
            // FIXME: V8 prints a function's source text, which the engines
            // do not share (the emitted callbacks are wrapped).
            ObjectData::Function(_) => "function () { [script] }".into(),
            ObjectData::Error { name, message, .. } => format!("{name}: {message}"),
            _ => match self.class_name(*id) {
                Some(name) => format!("#<{name}>"),
                None => "[object Object]".into(),
            },
        }
    }

    /// How Node's messages describe a value it refused.
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/errors.js#L1009-L1058>
    /// `determineSpecificType`: `null`, `undefined`, `type number (5)`,
    /// `type boolean (true)`, `type string ('...')` (cut to 25 characters
    /// and `...` past 28, in double quotes through JSON.stringify when it
    /// holds a `'`), `function NAME`, and for objects `an instance of` the
    /// constructor's name, or `util.inspect` at depth -1 when there is none
    /// (the null-prototype Disposable: `[Object: null prototype]`).
    pub fn determine_specific_type(&self, value: &Value) -> String {
        match value {
            Value::Null => "null".into(),
            Value::Undefined => "undefined".into(),
            Value::Number(n) if *n == 0.0 && n.is_sign_negative() => "type number (-0)".into(),
            Value::Number(_) => format!("type number ({})", self.fmt(value)),
            Value::Bool(b) => format!("type boolean ({b})"),
            Value::Symbol(s) => format!("type symbol ({})", s.descriptive_string()),
            Value::String(s) => {
                // `value.length > 28`: a length in UTF-16 code units.
                let units: Vec<u16> = s.encode_utf16().collect();
                let shown = if units.len() > 28 {
                    format!("{}...", String::from_utf16_lossy(&units[..25]))
                } else {
                    s.to_string()
                };
                if shown.contains('\'') {
                    let json = serde_json::to_string(&shown).expect("a string serializes");
                    format!("type string ({json})")
                } else {
                    format!("type string ('{shown}')")
                }
            }
            Value::Object(id) => match self.heap.get(*id) {
                // A script function is made by `$.cb`, whose wrapper has no
                // name.
                ObjectData::Function(_) => "function ".into(),
                // `an instance of` the constructor's name; the Disposable
                // has none: util.inspect at depth -1.
                _ => match self.class_name(*id) {
                    Some(name) => format!("an instance of {name}"),
                    None => "[Object: null prototype]".into(),
                },
            },
        }
    }
}

/// Node's `addNumericalSeparator`: `_` between groups of three digits,
/// counted from the right, after an optional sign.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/errors.js#L884-L892>
fn add_numerical_separator(text: &str) -> String {
    let start = usize::from(text.starts_with('-'));
    let mut end = text.len();
    let mut groups = String::new();
    while end >= start + 4 {
        groups = format!("_{}{groups}", &text[end - 3..end]);
        end -= 3;
    }
    format!("{}{groups}", &text[..end])
}
