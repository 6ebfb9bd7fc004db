//! The printer: a scenario back to its text.
//!
//! The printed form is the canonical one (two-space indentation, options in a
//! fixed order), so that a generated scenario can be saved, read in a pull
//! request and parsed again: `parse(print(s)) == s` for every valid scenario.
//!
//! The printer recurses once per nested block and is otherwise linear in
//! its input: a line's indentation is two spaces per level, and a scenario
//! that parses nests at most [`MAX_NESTING`](crate::limits::MAX_NESTING)
//! deep, so the text is at most a constant factor larger than the scenario.

use std::fmt::Write;

use crate::ast::{
    Block, BytesInit, Callback, Expr, Handler, ListenerOptions, Op, RunMode, Scenario, Stmt,
    Strategy, Temporary,
};
use crate::syntax::is_bare_word;

/// Prints a scenario in the canonical text form.
pub fn print(scenario: &Scenario) -> String {
    let mut printer = Printer::default();
    printer.stmts(&scenario.body);
    printer.out
}

/// Prints one expression.
pub fn print_expr(expr: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, expr);
    out
}

/// Quotes a string literal, escaping `"`, `\` and control characters.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[derive(Default)]
struct Printer {
    out: String,
    indent: usize,
}

impl Printer {
    fn stmts(&mut self, stmts: &[Stmt]) {
        for stmt in stmts {
            self.stmt(stmt);
        }
    }

    fn line_start(&mut self) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        self.line_start();
        match stmt {
            Stmt::Comment(text) => {
                self.out.push('#');
                if !text.is_empty() {
                    self.out.push(' ');
                    self.out.push_str(text);
                }
                self.out.push('\n');
            }
            Stmt::Let { name, op } => {
                let _ = write!(self.out, "let {name} = ");
                self.op(op);
            }
            Stmt::Tee {
                branches: [a, b],
                stream,
            } => {
                let _ = write!(self.out, "let [{a}, {b}] = tee");
                self.expr(stream);
                self.out.push('\n');
            }
            Stmt::Do(op) => self.op(op),
            Stmt::Log(values) => {
                self.out.push_str("log");
                for v in values {
                    self.out.push(' ');
                    write_expr(&mut self.out, v);
                }
                self.out.push('\n');
            }
            Stmt::Try(block) => {
                self.out.push_str("try");
                self.block(block);
                self.out.push('\n');
            }
            Stmt::Repeat { count, body } => {
                self.out.push_str(&format!("repeat {count}"));
                self.block(body);
                self.out.push('\n');
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                self.out.push_str("if ");
                write_expr(&mut self.out, cond);
                self.block(then);
                if let Some(otherwise) = otherwise {
                    self.out.push_str(" else");
                    self.block(otherwise);
                }
                self.out.push('\n');
            }
            Stmt::Throw(e) => {
                self.out.push_str("throw ");
                write_expr(&mut self.out, e);
                self.out.push('\n');
            }
            Stmt::Return(e) => {
                self.out.push_str("return");
                if let Some(e) = e {
                    self.out.push(' ');
                    write_expr(&mut self.out, e);
                }
                self.out.push('\n');
            }
            Stmt::Run(mode) => {
                match mode {
                    RunMode::Turn => self.out.push_str("run turn"),
                    RunMode::Idle => self.out.push_str("run idle"),
                    RunMode::Advance(ms) => {
                        let _ = write!(self.out, "run advance {ms}");
                    }
                }
                self.out.push('\n');
            }
            Stmt::Use(directive) => {
                let _ = writeln!(self.out, "use {}", directive.word());
            }
            Stmt::Drop(e) => {
                self.out.push_str("drop ");
                write_expr(&mut self.out, e);
                self.out.push('\n');
            }
            Stmt::Gc => self.out.push_str("gc\n"),
            Stmt::Watch(e) => {
                self.out.push_str("watch ");
                write_expr(&mut self.out, e);
                self.out.push('\n');
            }
            Stmt::Alive => self.out.push_str("alive\n"),
        }
    }

    /// Prints ` {`, the body one level deeper, and the closing `}` (without
    /// the final newline, so that `else` can follow).
    fn block(&mut self, block: &Block) {
        self.out.push_str(" {\n");
        self.indent += 1;
        self.stmts(block.body());
        self.indent -= 1;
        self.line_start();
        self.out.push('}');
    }

    /// `KEYWORD [E1, E2, ...]`.
    fn list(&mut self, keyword: &str, items: &[Expr]) {
        write_list(&mut self.out, keyword, items);
    }

    fn word(&mut self, word: &str) {
        self.out.push(' ');
        self.out.push_str(word);
    }

    /// `highWaterMark N` and `size { ... }` of a queuing strategy.
    fn strategy(&mut self, strategy: &Strategy) {
        if let Some(n) = &strategy.high_water_mark {
            self.word("highWaterMark");
            self.word(&n.text());
        }
        if let Some(size) = &strategy.size {
            self.word("size");
            self.block(size);
        }
    }

    /// ` NAME { ... }` for each method that is given.
    fn methods(&mut self, methods: &[(&str, &Option<Block>)]) {
        for (word, block) in methods {
            if let Some(block) = block {
                self.word(word);
                self.block(block);
            }
        }
    }

    fn expr(&mut self, e: &Expr) {
        self.out.push(' ');
        write_expr(&mut self.out, e);
    }

    fn event_type(&mut self, t: &str) {
        self.out.push(' ');
        if is_bare_word(t) {
            self.out.push_str(t);
        } else {
            self.out.push_str(&quote(t));
        }
    }

    /// Prints a callback argument; an inline block must come last on the line.
    fn callback(&mut self, cb: &Callback) {
        match cb {
            Callback::Value(e) => self.expr(e),
            Callback::Inline(b) => self.block(b),
        }
    }

    fn options(&mut self, o: &ListenerOptions) {
        if let Some(value) = &o.value {
            self.word("options");
            self.expr(value);
            return;
        }
        if o.as_boolean {
            self.word(if o.capture { "true" } else { "false" });
            return;
        }
        if o.once {
            self.word("once");
        }
        if o.capture {
            self.word("capture");
        }
        if o.passive {
            self.word("passive");
        }
        if let Some(s) = &o.signal {
            self.word("signal");
            self.expr(s);
        }
    }

    fn op(&mut self, op: &Op) {
        match op {
            Op::Value(e) => write_expr(&mut self.out, e),
            Op::NewController => self.out.push_str("controller"),
            Op::Abort { controller, reason } => {
                self.out.push_str("abort");
                self.expr(controller);
                if let Some(r) = reason {
                    self.expr(r);
                }
            }
            Op::SignalAbort { reason } => {
                self.out.push_str("aborted");
                if let Some(r) = reason {
                    self.expr(r);
                }
            }
            Op::SignalTimeout { ms } => {
                let _ = write!(self.out, "timeout {ms}");
            }
            Op::SignalAny {
                signals,
                from_set: false,
            } => self.list("any", signals),
            Op::SignalAny {
                signals,
                from_set: true,
            } => self.list("any set", signals),
            Op::Combinator { kind, values } => self.list(kind.keyword(), values),
            Op::NewEvent {
                custom,
                event_type,
                detail,
                bubbles,
                cancelable,
                composed,
            } => {
                self.out.push_str(if *custom {
                    "new CustomEvent"
                } else {
                    "new Event"
                });
                if let Some(t) = event_type {
                    self.event_type(t);
                }
                if let Some(d) = detail {
                    self.word("detail");
                    self.expr(d);
                }
                for (set, word) in [
                    (*bubbles, "bubbles"),
                    (*cancelable, "cancelable"),
                    (*composed, "composed"),
                ] {
                    if set {
                        self.word(word);
                    }
                }
            }
            Op::NewAls { default } => {
                self.out.push_str("als");
                if let Some(d) = default {
                    self.word("default");
                    self.expr(d);
                }
            }
            Op::GetStore { als } => {
                self.out.push_str("getStore");
                self.expr(als);
            }
            Op::EnterWith { als, value } => {
                self.out.push_str("enterWith");
                self.expr(als);
                self.expr(value);
            }
            Op::AlsRun { als, value, body } => {
                self.out.push_str("alsRun");
                self.expr(als);
                self.expr(value);
                self.block(body);
            }
            Op::AlsExit { als, body } => {
                self.out.push_str("alsExit");
                self.expr(als);
                self.block(body);
            }
            Op::DisableAls { als } => {
                self.out.push_str("disable");
                self.expr(als);
            }
            Op::Bind { resource, function } => {
                self.out.push_str("bind");
                if let Some(r) = resource {
                    self.expr(r);
                }
                self.expr(function);
            }
            Op::Snapshot => self.out.push_str("snapshot"),
            Op::Call { function, args } => {
                self.out.push_str("call");
                self.expr(function);
                for arg in args {
                    self.expr(arg);
                }
            }
            Op::NewAsyncResource { kind } => {
                self.out.push_str("asyncResource");
                self.expr(kind);
            }
            Op::RunInAsyncScope { resource, body } => {
                self.out.push_str("runInAsyncScope");
                self.expr(resource);
                self.block(body);
            }
            Op::EmitDestroy { resource } => {
                self.out.push_str("emitDestroy");
                self.expr(resource);
            }
            Op::NativeCallback {
                ms,
                resource,
                callback,
            } => {
                let _ = write!(self.out, "native {ms}");
                if *resource {
                    self.word("resource");
                }
                self.callback(callback);
            }
            Op::NewEmitter => self.out.push_str("emitter"),
            Op::NewCapturingEmitter => self.out.push_str("emitter captureRejections"),
            Op::EmitterAdd {
                emitter,
                name,
                listener,
                prepend,
                once,
            } => {
                self.out
                    .push_str(crate::ast::emitter_add_form(*prepend, *once).0);
                self.expr(emitter);
                self.expr(name);
                self.callback(listener);
            }
            Op::EmitterRemove {
                emitter,
                name,
                listener,
            } => {
                self.out.push_str("removeListener");
                self.expr(emitter);
                self.expr(name);
                self.expr(listener);
            }
            Op::EmitterRemoveAll { emitter, name } => {
                self.out.push_str("removeAllListeners");
                self.expr(emitter);
                if let Some(name) = name {
                    self.expr(name);
                }
            }
            Op::Emit {
                emitter,
                name,
                args,
            } => {
                self.out.push_str("emit");
                self.expr(emitter);
                self.expr(name);
                for arg in args {
                    self.expr(arg);
                }
            }
            Op::EmitterListenerCount {
                emitter,
                name,
                listener,
            } => {
                self.out.push_str("listenerCount");
                self.expr(emitter);
                self.expr(name);
                if let Some(listener) = listener {
                    self.expr(listener);
                }
            }
            Op::EventNames { emitter } => {
                self.out.push_str("eventNames");
                self.expr(emitter);
            }
            Op::EmitterListeners { emitter, name, raw } => {
                self.out
                    .push_str(if *raw { "rawListeners" } else { "listeners" });
                self.expr(emitter);
                self.expr(name);
            }
            Op::EventsKeyCount { emitter } => {
                self.out.push_str("eventsKeyCount");
                self.expr(emitter);
            }
            Op::SetDefaultMaxListeners { n } => {
                self.out.push_str("setDefaultMaxListeners");
                self.expr(n);
            }
            Op::OnceEvent {
                emitter,
                name,
                signal,
            } => {
                self.out.push_str("onceEvent");
                self.expr(emitter);
                self.expr(name);
                if let Some(signal) = signal {
                    self.out.push_str(" signal");
                    self.expr(signal);
                }
            }
            Op::OnEvents(o) => {
                let crate::ast::OnEvents {
                    emitter,
                    name,
                    signal,
                    close,
                    high_water_mark,
                    low_water_mark,
                } = &**o;
                self.out.push_str("onEvents");
                self.expr(emitter);
                self.expr(name);
                for (word, option) in [
                    (" signal", signal),
                    (" close", close),
                    (" highWaterMark", high_water_mark),
                    (" lowWaterMark", low_water_mark),
                ] {
                    if let Some(value) = option {
                        self.out.push_str(word);
                        self.expr(value);
                    }
                }
            }
            Op::IterThrow { iterator, value } => {
                self.out.push_str("iterThrow");
                self.expr(iterator);
                self.expr(value);
            }
            Op::OnRejection { emitter, function } => {
                self.out.push_str("onRejection");
                self.expr(emitter);
                self.expr(function);
            }
            Op::NewAbortSignal => self.out.push_str("new AbortSignal"),
            Op::WithResolvers => self.out.push_str("withResolvers"),
            Op::ProcessOff(event) => {
                self.out.push_str("process off ");
                self.out.push_str(event.name());
            }
            Op::Assign { target, value } => {
                self.out.push_str("set ");
                write_expr(&mut self.out, target);
                self.expr(value);
            }
            Op::DispatchEvent { target, event } => {
                self.out.push_str("dispatchEvent");
                self.expr(target);
                self.expr(event);
            }
            Op::ComposedPath { event } => {
                self.out.push_str("composedPath");
                self.expr(event);
            }
            Op::SetEventAttribute {
                event,
                attribute,
                value,
            } => {
                self.out.push_str("set ");
                write_expr(&mut self.out, event);
                self.out.push('.');
                self.out.push_str(attribute.name());
                self.expr(value);
            }
            Op::ThrowIfAborted { signal } => {
                self.out.push_str("throwIfAborted");
                self.expr(signal);
            }
            Op::SetOnAbort { signal, handler } => {
                self.out.push_str("onabort");
                self.expr(signal);
                match handler {
                    Handler::Null => self.word("null"),
                    Handler::Value(e) => self.expr(e),
                    Handler::Callback(cb) => self.callback(cb),
                }
            }
            Op::AddAbortListener { signal, listener } => {
                self.out.push_str("addAbortListener");
                self.expr(signal);
                self.callback(listener);
            }
            Op::Dispose { disposable } => {
                self.out.push_str("dispose");
                self.expr(disposable);
            }
            Op::NewWeakRef { target } => {
                self.out.push_str("weakref");
                self.expr(target);
            }
            Op::Deref { weak_ref } => {
                self.out.push_str("deref");
                self.expr(weak_ref);
            }
            Op::NewRegistry(cleanup) => {
                self.out.push_str("registry");
                self.callback(cleanup);
            }
            Op::Register {
                registry,
                target,
                held,
                token,
            } => {
                self.out.push_str("register");
                self.expr(registry);
                self.expr(target);
                self.expr(held);
                if let Some(token) = token {
                    self.word("token");
                    self.expr(token);
                }
            }
            Op::Unregister { registry, token } => {
                self.out.push_str("unregister");
                self.expr(registry);
                self.expr(token);
            }
            Op::Dependants { signal } => {
                self.out.push_str("dependants");
                self.expr(signal);
            }
            Op::SetMaxListeners { n, targets } => {
                self.out.push_str("setMaxListeners");
                self.expr(n);
                for target in targets {
                    self.expr(target);
                }
            }
            Op::GetMaxListeners { target } => {
                self.out.push_str("getMaxListeners");
                self.expr(target);
            }
            Op::NewTarget => self.out.push_str("target"),
            Op::Function(b) => {
                self.out.push_str("fn");
                self.block(b);
            }
            Op::ListenerObject(b) => {
                self.out.push_str("handleEvent");
                self.block(b);
            }
            Op::AsyncFunction(b) => {
                self.out.push_str("fn async");
                self.block(b);
            }
            Op::Async(b) => {
                self.out.push_str("async");
                self.block(b);
            }
            Op::Await(e) => {
                self.out.push_str("await");
                self.expr(e);
            }
            Op::AddEventListener {
                target,
                event_type,
                listener,
                options,
            } => {
                self.out.push_str("on");
                self.expr(target);
                self.event_type(event_type);
                // Options come before an inline block, after a named listener.
                match listener {
                    Callback::Value(e) => {
                        self.expr(e);
                        self.options(options);
                    }
                    Callback::Inline(b) => {
                        self.options(options);
                        self.block(b);
                    }
                }
            }
            Op::RemoveEventListener {
                target,
                event_type,
                listener,
                capture,
                as_boolean,
            } => {
                self.out.push_str("off");
                self.expr(target);
                self.event_type(event_type);
                self.expr(listener);
                if *as_boolean {
                    self.word(if *capture { "true" } else { "false" });
                } else if *capture {
                    self.word("capture");
                }
            }
            Op::Dispatch {
                target,
                event_type,
                cancelable,
            } => {
                self.out.push_str("dispatch");
                self.expr(target);
                self.event_type(event_type);
                if *cancelable {
                    self.word("cancelable");
                }
            }
            Op::PreventDefault { event } => {
                self.out.push_str("preventDefault");
                self.expr(event);
            }
            Op::StopPropagation { event } => {
                self.out.push_str("stopPropagation");
                self.expr(event);
            }
            Op::StopImmediatePropagation { event } => {
                self.out.push_str("stopImmediatePropagation");
                self.expr(event);
            }
            Op::QueueMicrotask(b) => {
                self.out.push_str("microtask");
                self.block(b);
            }
            Op::NextTick(b) => {
                self.out.push_str("tick");
                self.block(b);
            }
            Op::SetTimeout { ms, body } => {
                let _ = write!(self.out, "setTimeout {ms}");
                self.block(body);
            }
            Op::SetInterval { ms, body } => {
                let _ = write!(self.out, "setInterval {ms}");
                self.block(body);
            }
            Op::ClearInterval { timer } => {
                self.out.push_str("clearInterval");
                self.expr(timer);
            }
            Op::TimerRef { timer, refed } => {
                self.out.push_str(if *refed { "ref" } else { "unref" });
                self.expr(timer);
            }
            Op::ClearTimeout { timer } => {
                self.out.push_str("clearTimeout");
                self.expr(timer);
            }
            Op::SetImmediate(b) => {
                self.out.push_str("setImmediate");
                self.block(b);
            }
            Op::ClearImmediate { immediate } => {
                self.out.push_str("clearImmediate");
                self.expr(immediate);
            }
            Op::NewPromise => self.out.push_str("promise"),
            Op::Resolve { promise, value } => {
                self.out.push_str("resolve");
                self.expr(promise);
                if let Some(v) = value {
                    self.expr(v);
                }
            }
            Op::Reject { promise, value } => {
                self.out.push_str("reject");
                self.expr(promise);
                if let Some(v) = value {
                    self.expr(v);
                }
            }
            Op::Then {
                promise,
                on_fulfilled,
                on_rejected,
            } => {
                self.out.push_str("then");
                self.expr(promise);
                if let Some(b) = on_fulfilled {
                    self.block(b);
                }
                if let Some(b) = on_rejected {
                    if on_fulfilled.is_some() {
                        self.out.push_str(" else");
                    } else {
                        self.word("else");
                    }
                    self.block(b);
                }
            }
            Op::Catch {
                promise,
                on_rejected,
            } => {
                self.out.push_str("catch");
                self.expr(promise);
                self.block(on_rejected);
            }
            Op::Finally {
                promise,
                on_finally,
            } => {
                self.out.push_str("finally");
                self.expr(promise);
                self.block(on_finally);
            }
            Op::PromiseResolve { value } => {
                self.out.push_str("resolved");
                self.expr(value);
            }
            Op::PromiseReject { value } => {
                self.out.push_str("rejected");
                self.expr(value);
            }
            Op::Thenable { value, body } => {
                self.out.push_str("thenable");
                self.expr(value);
                if let Some(body) = body {
                    self.block(body);
                }
            }
            Op::Ruler { ticks } => {
                self.out.push_str("ruler ");
                self.out.push_str(&ticks.to_string());
            }
            Op::NewReadable {
                strategy,
                start,
                pull,
                cancel,
            } => {
                self.out.push_str("readable");
                self.strategy(strategy);
                self.methods(&[("start", start), ("pull", pull), ("cancel", cancel)]);
            }
            Op::NewWritable {
                strategy,
                start,
                write,
                close,
                abort,
            } => {
                self.out.push_str("writable");
                self.strategy(strategy);
                self.methods(&[
                    ("start", start),
                    ("write", write),
                    ("close", close),
                    ("abort", abort),
                ]);
            }
            Op::NewTransform {
                writable_high_water_mark,
                readable_high_water_mark,
                start,
                transform,
                flush,
                cancel,
            } => {
                self.out.push_str("transform");
                for (word, n) in [
                    ("writableHighWaterMark", writable_high_water_mark),
                    ("readableHighWaterMark", readable_high_water_mark),
                ] {
                    if let Some(n) = n {
                        self.word(word);
                        self.word(&n.text());
                    }
                }
                self.methods(&[
                    ("start", start),
                    ("transform", transform),
                    ("flush", flush),
                    ("cancel", cancel),
                ]);
            }
            Op::GetWriter { stream } => {
                self.out.push_str("getWriter");
                self.expr(stream);
            }
            Op::Write { writer, chunk } => {
                self.out.push_str("write");
                self.expr(writer);
                self.expr(chunk);
            }
            Op::CloseWritable { target } => {
                self.out.push_str("close");
                self.expr(target);
            }
            Op::AbortWritable { target, reason } => {
                self.out.push_str("abort");
                self.expr(target);
                if let Some(r) = reason {
                    self.expr(r);
                }
            }
            Op::Terminate { controller } => {
                self.out.push_str("terminate");
                self.expr(controller);
            }
            Op::PipeTo {
                source,
                dest: other,
                options,
            }
            | Op::PipeThrough {
                source,
                transform: other,
                options,
            } => {
                self.out.push_str(if matches!(op, Op::PipeTo { .. }) {
                    "pipeTo"
                } else {
                    "pipeThrough"
                });
                self.expr(source);
                self.expr(other);
                for (word, set) in [
                    ("preventClose", options.prevent_close),
                    ("preventAbort", options.prevent_abort),
                    ("preventCancel", options.prevent_cancel),
                ] {
                    if set {
                        self.word(word);
                    }
                }
                if let Some(signal) = &options.signal {
                    self.word("signal");
                    self.expr(signal);
                }
            }
            Op::From { is_async, values } => {
                self.list(if *is_async { "from async" } else { "from" }, values)
            }
            Op::Values {
                stream,
                prevent_cancel,
            } => {
                self.out.push_str("values");
                self.expr(stream);
                if *prevent_cancel {
                    self.word("preventCancel");
                }
            }
            Op::Next { iterator } => {
                self.out.push_str("next");
                self.expr(iterator);
            }
            Op::IterReturn { iterator, value } => {
                self.out.push_str("iterReturn");
                self.expr(iterator);
                if let Some(v) = value {
                    self.expr(v);
                }
            }
            Op::NewBytes(BytesInit::Zeros(n)) => {
                self.out.push_str("bytes ");
                self.out.push_str(&n.to_string());
            }
            Op::NewBytes(BytesInit::Values(bytes)) => {
                self.out.push_str("bytes [");
                for (i, b) in bytes.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.out.push_str(&b.to_string());
                }
                self.out.push(']');
            }
            Op::Subarray { view, start, end } => {
                self.out.push_str("subarray");
                self.expr(view);
                self.word(&start.to_string());
                if let Some(end) = end {
                    self.word(&end.to_string());
                }
            }
            Op::NewReadableBytes {
                high_water_mark,
                auto_allocate_chunk_size,
                start,
                pull,
                cancel,
            } => {
                self.out.push_str("readable bytes");
                for (word, n) in [
                    ("highWaterMark", high_water_mark),
                    ("autoAllocateChunkSize", auto_allocate_chunk_size),
                ] {
                    if let Some(n) = n {
                        self.word(word);
                        self.word(&n.text());
                    }
                }
                self.methods(&[("start", start), ("pull", pull), ("cancel", cancel)]);
            }
            Op::GetByobReader { stream } => {
                self.out.push_str("getReader");
                self.expr(stream);
                self.word("byob");
            }
            Op::ReadInto { reader, view, min } => {
                self.out.push_str("read");
                self.expr(reader);
                self.expr(view);
                if let Some(min) = min {
                    self.word("min");
                    self.expr(min);
                }
            }
            Op::Respond {
                request,
                bytes_written,
            } => {
                self.out.push_str("respond");
                self.expr(request);
                self.expr(bytes_written);
            }
            Op::RespondWithNewView { request, view } => {
                self.out.push_str("respondWithNewView");
                self.expr(request);
                self.expr(view);
            }
            Op::Enqueue { controller, chunk } => {
                self.out.push_str("enqueue");
                self.expr(controller);
                self.expr(chunk);
            }
            Op::CloseController { controller } => {
                self.out.push_str("close");
                self.expr(controller);
            }
            Op::ErrorController { controller, error } => {
                self.out.push_str("error");
                self.expr(controller);
                self.expr(error);
            }
            Op::GetReader { stream } => {
                self.out.push_str("getReader");
                self.expr(stream);
            }
            Op::Read { reader } => {
                self.out.push_str("read");
                self.expr(reader);
            }
            Op::ReleaseLock { reader } => {
                self.out.push_str("releaseLock");
                self.expr(reader);
            }
            Op::Cancel { target, reason } => {
                self.out.push_str("cancel");
                self.expr(target);
                if let Some(r) = reason {
                    self.expr(r);
                }
            }
        }
        self.out.push('\n');
    }
}

/// Writes an expression. A property chain is walked in a loop, not
/// recursively, so that even a chain longer than the parser accepts (built
/// by other means) cannot overflow the stack here.
/// An expression as the scenario writes it (`a.signal`): the label `watch`
/// gives what it watches.
pub fn expr_text(e: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, e);
    out
}

/// `KEYWORD [A, B, ...]`.
fn write_list(out: &mut String, keyword: &str, items: &[Expr]) {
    out.push_str(keyword);
    out.push_str(" [");
    for (i, e) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_expr(out, e);
    }
    out.push(']');
}

pub(crate) fn write_expr(out: &mut String, e: &Expr) {
    let mut props = Vec::new();
    let mut base = e;
    while let Expr::Prop(obj, name) = base {
        props.push(name);
        base = obj;
    }
    match base {
        Expr::Undefined => out.push_str("undefined"),
        Expr::Null => out.push_str("null"),
        Expr::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Expr::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Expr::Number(n) => out.push_str(&n.text()),
        Expr::Symbol(None) => out.push_str("Symbol()"),
        Expr::Symbol(Some(d)) => {
            out.push_str("Symbol(");
            out.push_str(&quote(d));
            out.push(')');
        }
        Expr::Object => out.push_str("{}"),
        Expr::ConstructorName(a) => {
            write_expr(out, a);
            out.push_str(".constructor.name");
        }
        Expr::ClassConstant(class, name) => {
            out.push_str(class.name());
            out.push('.');
            out.push_str(name);
        }
        Expr::Str(s) => out.push_str(&quote(s)),
        Expr::Var(name) => out.push_str(name),
        Expr::Prop(..) => {} // not reached: the loop above took every `Prop`
        Expr::NewError(msg) => {
            out.push_str("Error(");
            out.push_str(&quote(msg));
            out.push(')');
        }
        Expr::NewBuiltinError { class, message } => {
            out.push_str(class.name());
            out.push('(');
            out.push_str(&quote(message));
            out.push(')');
        }
        Expr::NewDomException { message, name } => {
            out.push_str("DOMException(");
            out.push_str(&quote(message));
            out.push_str(", ");
            out.push_str(&quote(name));
            out.push(')');
        }
        Expr::This => out.push_str("this"),
        Expr::ArgumentCount => out.push_str("arguments.length"),
        Expr::ErrorMonitor => out.push_str("errorMonitor"),
        Expr::DefaultMaxListeners => out.push_str("defaultMaxListeners"),
        Expr::Same(a, b) | Expr::Add(a, b) | Expr::Less(a, b) => {
            out.push_str(match base {
                Expr::Same(..) => "same ",
                Expr::Add(..) => "add ",
                _ => "less ",
            });
            write_expr(out, a);
            out.push(' ');
            write_expr(out, b);
        }
        Expr::TypeOf(a) => {
            out.push_str("typeof ");
            write_expr(out, a);
        }
        Expr::Temporary(t) => match &**t {
            Temporary::Timeout(ms) => {
                let _ = write!(out, "timeout {ms}");
            }
            Temporary::Any { signals, from_set } => {
                write_list(out, if *from_set { "any set" } else { "any" }, signals)
            }
        },
        Expr::InstanceOf(a, class) => {
            out.push_str("instanceof ");
            write_expr(out, a);
            out.push(' ');
            out.push_str(class.name());
        }
    }
    for name in props.iter().rev() {
        out.push('.');
        out.push_str(name);
    }
}
