//! A generator of valid stream scenarios, the streams family of the fuzz
//! loop (`--family streams`).
//!
//! The abort-and-dispatch generator ([`crate::gen`]) tracks listeners,
//! signals and obligations; a stream scenario's questions are others: on
//! which microtask a source's `start`, `pull` and `cancel` run, when a read
//! settles, what a `close`, `error`, `cancel` or `releaseLock` does to the
//! reads in flight. So this generator builds scenarios around those:
//!
//! - one to three `readable` streams, each with a drawn highWaterMark and
//!   any of `start`, `pull` and `cancel`. `start` enqueues, closes or errors
//!   at once or from a timer or a microtask, and may return a *gate* (a
//!   `promise` the main script settles later) or a settled promise; `pull`
//!   counts its calls in a binding of the main script, enqueues the count
//!   until a drawn limit and then closes (so pulls never go on forever),
//!   now or from a timer, and may return a gate; `cancel` logs its reason
//!   and may throw or return a gate. Every body starts with a `log` naming
//!   it, so that a change in which ran, and when, shows;
//! - main-script steps among tees (`let [A, B] = tee S` of an unlocked
//!   stream; each branch is a stream the later steps use like any other),
//!   readers (`getReader`, a second one refused
//!   while the first holds the lock), reads whose both outcomes are logged,
//!   `releaseLock`, `cancel` of a stream or a reader, the reader's `closed`
//!   promise, the gates settled either way, `locked`, turns of the loop,
//!   and microtask rulers (`ruler N`) that pin each event to its tick;
//! - WritableStreams (`writable`, sinks whose `start`, `write`, `close`
//!   and `abort` log and may return a gate or a settled promise, or throw)
//!   and steps on them: a writer's `write`, `close`, `abort`, `ready`,
//!   `closed`, `desiredSize` and `releaseLock`, or the stream's own
//!   `close` and `abort`;
//! - pipes: `pipeTo` from an unlocked readable into an unlocked writable,
//!   and `pipeThrough` a new `transform` (whose `transform` enqueues the
//!   chunk once or twice and may terminate or error, whose `flush` may
//!   enqueue), with any of the prevent options and sometimes the signal of
//!   an AbortController that a later step aborts (or that is aborted
//!   already): the way to reach every shutdown path;
//! - `from [...]` and `from async [...]` streams, whose values may include
//!   a gate, and async iterators (`values S [preventCancel]`) driven by
//!   `next` and `iterReturn`;
//! - byte streams (`readable bytes`, sometimes with autoAllocateChunkSize),
//!   whose `start` enqueues new Uint8Arrays and whose `pull` answers the
//!   BYOB request (`respond`) when there is one and enqueues otherwise,
//!   read through default or BYOB readers (`read R V [min N]` into a new
//!   view), teed like the others;
//! - an epilogue that lets every timer fire and reads every stream's
//!   `locked`.
//!
//! Operations that may throw in some states (`getReader` on a locked
//! stream, `enqueue` after `close`) run inside `try`, so that the main
//! script goes on and the `caught` line shows the error. Like
//! [`crate::gen`], every choice comes from [`Unstructured`] and falls back
//! to its first option when the bytes run out; every scenario parses and
//! prints back to itself.

use arbitrary::Unstructured;

use crate::ast::{
    Block, BuiltinError, BytesInit, Expr, Number, Op, PipeOptions, RunMode, Scenario, Stmt,
    Strategy,
};

/// The most streams in one scenario.
const MAX_STREAMS: usize = 3;

/// The most WritableStreams in one scenario.
const MAX_WRITABLES: usize = 2;

/// The most main-script steps after the streams are made.
const MAX_STEPS: usize = 24;

/// Generates a stream scenario from the bytes of `u`.
pub fn generate_streams(u: &mut Unstructured<'_>) -> Scenario {
    StreamGenerator::new(u).scenario()
}

/// Generates a stream scenario from `size` bytes of the seeded stream of
/// [`crate::gen::seeded_bytes`]: the same `(seed, size)` gives the same
/// scenario.
pub fn generate_streams_from_seed(seed: u64, size: usize) -> Scenario {
    let bytes = crate::gen::seeded_bytes(seed, size);
    let mut u = Unstructured::new(&bytes);
    generate_streams(&mut u)
}

/// What the generator knows of one stream.
struct StreamInfo {
    name: String,
    /// The readers made for it so far (the first holds the lock until it is
    /// released).
    readers: Vec<String>,
    /// Whether something may error it (an `error`, a rejected or gated
    /// promise returned by `start` or `pull`): else its reads never reject
    /// while its reader holds the lock.
    may_error: bool,
    /// Whether its source's `cancel` may throw or reject.
    cancel_may_reject: bool,
    /// Whether its first reader was released: its reads then reject.
    released: bool,
    /// Whether it has a source `cancel` that no step has called yet (the
    /// epilogue cancels it then, so that the body runs).
    cancel_pending: bool,
    /// Whether a tee, a pipe or an async iterator holds it (locked for
    /// good, as far as the generator tracks it).
    held: bool,
    /// Whether it is a byte stream (`readable bytes`, or a branch of one's
    /// tee): its readers may be BYOB readers.
    bytes: bool,
    /// Which of its readers are BYOB readers.
    byob: Vec<String>,
}

impl StreamInfo {
    /// A stream just made: no reader yet, not teed.
    fn new(name: String, may_error: bool, cancel_may_reject: bool, cancel_pending: bool) -> Self {
        StreamInfo {
            name,
            readers: Vec::new(),
            may_error,
            cancel_may_reject,
            released: false,
            cancel_pending,
            held: false,
            bytes: false,
            byob: Vec::new(),
        }
    }
}

/// What the generator knows of one WritableStream.
struct WritableInfo {
    name: String,
    /// Its writer, once made.
    writer: Option<String>,
    /// Whether the writer was released.
    released: bool,
    /// Whether a pipe holds it.
    piped: bool,
}

/// What a promise the script watches will do, as far as the generator
/// knows: a watcher logs only the outcomes that can happen, so that the
/// bodies it writes run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Fulfils,
    Rejects,
    Either,
}

struct StreamGenerator<'u, 'a> {
    u: &'u mut Unstructured<'a>,
    next: usize,
    streams: Vec<StreamInfo>,
    /// The gates (`promise`s) of the main script, with whether they were
    /// settled already.
    gates: Vec<(String, bool)>,
    /// Whether the source body being written may fail (see
    /// [`StreamInfo::may_error`]).
    may_fail: bool,
    /// The WritableStreams.
    writables: Vec<WritableInfo>,
    /// The async iterators (`values`).
    iterators: Vec<String>,
    /// The AbortControllers whose signals pipes were given, with whether
    /// they were aborted already.
    pipe_signals: Vec<(String, bool)>,
}

impl<'u, 'a> StreamGenerator<'u, 'a> {
    fn new(u: &'u mut Unstructured<'a>) -> Self {
        StreamGenerator {
            u,
            next: 0,
            streams: Vec::new(),
            gates: Vec::new(),
            may_fail: false,
            writables: Vec::new(),
            iterators: Vec::new(),
            pipe_signals: Vec::new(),
        }
    }

    // ---- choices --------------------------------------------------------

    fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        self.u.int_in_range(0..=n - 1).unwrap_or(0)
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }

    fn chunk(&mut self) -> Expr {
        match self.below(4) {
            0 => Expr::Int(self.below(10) as i64),
            1 => Expr::Str(["a", "b", "chunk"][self.below(3)].to_string()),
            2 => Expr::Undefined,
            _ => Expr::Null,
        }
    }

    fn error_value(&mut self) -> Expr {
        match self.below(3) {
            0 => Expr::Str("boom".to_string()),
            1 => Expr::NewBuiltinError {
                class: BuiltinError::TypeError,
                message: "broken".to_string(),
            },
            _ => Expr::NewError("failed".to_string()),
        }
    }

    // ---- the scenario ---------------------------------------------------

    fn scenario(&mut self) -> Scenario {
        let mut body = Vec::new();
        for _ in 0..self.below(3) {
            let gate = self.fresh("g");
            body.push(Stmt::Let {
                name: gate.as_str().into(),
                op: Op::NewPromise,
            });
            self.gates.push((gate, false));
        }
        for _ in 0..=self.below(MAX_STREAMS) {
            // (With no bytes left, a `readable`.)
            if self.chance(85) {
                self.stream(&mut body);
            } else {
                self.stream_from_iterable(&mut body);
            }
        }
        for _ in 0..self.below(MAX_WRITABLES + 1) {
            self.writable(&mut body);
        }
        let steps = 3 + self.below(MAX_STEPS - 2);
        for _ in 0..steps {
            self.step(&mut body);
        }
        // The epilogue: every timer fires, every pending gate settles, and
        // each stream says whether it is locked.
        body.push(Stmt::Run(RunMode::Advance(50)));
        let pending: Vec<String> = self
            .gates
            .iter()
            .filter(|(_, settled)| !settled)
            .map(|(g, _)| g.clone())
            .collect();
        for gate in pending {
            body.push(Stmt::Do(Op::Resolve {
                promise: Expr::var(gate),
                value: None,
            }));
        }
        body.push(Stmt::Run(RunMode::Advance(50)));
        // One more read of each stream through its last reader.
        for i in 0..self.streams.len() {
            if let Some(reader) = self.streams[i].readers.last().cloned() {
                self.read(i, &reader, "last read", &mut body);
            }
        }
        // Cancel the streams whose source's cancel no step called: through
        // the reader that holds the lock, or the stream when none does.
        for i in 0..self.streams.len() {
            let info = &self.streams[i];
            if !info.cancel_pending || info.held {
                continue;
            }
            let target = match info.readers.first() {
                Some(reader) if !info.released => reader.clone(),
                Some(_) => continue,
                None => info.name.clone(),
            };
            let name = self.fresh("c");
            body.push(Stmt::Let {
                name: name.as_str().into(),
                op: Op::Cancel {
                    target: Expr::var(target.as_str()),
                    reason: Some(Expr::Str("end".to_string())),
                },
            });
            self.watch(
                Expr::var(name.as_str()),
                format!("end cancel {target}"),
                Outcome::Either,
                &mut body,
            );
        }
        body.push(Stmt::Run(RunMode::Advance(10)));
        let names = self
            .streams
            .iter()
            .map(|s| &s.name)
            .chain(self.writables.iter().map(|w| &w.name));
        for name in names {
            body.push(Stmt::Log(vec![
                Expr::Str(format!("end {name}")),
                Expr::var(name.as_str()).prop("locked"),
            ]));
        }
        let mut scenario = Scenario::new(body);
        crate::resolve(&mut scenario);
        scenario
    }

    /// `let kN = 0` (a pull counter) and `let sN = readable ...`.
    fn stream(&mut self, out: &mut Vec<Stmt>) {
        if !self.chance(80) {
            return self.byte_stream(out);
        }
        let name = self.fresh("s");
        let high_water_mark = match self.below(6) {
            0 => None,
            1 => Some(Number::new(0.0)),
            2 | 3 => Some(Number::new(1.0)),
            4 => Some(Number::new(2.0)),
            _ => Some(Number::new(4.0)),
        };
        self.may_fail = false;
        let start = self.chance(70).then(|| self.start_body(&name));
        let pull = if self.chance(60) {
            let counter = self.fresh("k");
            out.push(Stmt::Let {
                name: counter.as_str().into(),
                op: Op::Value(Expr::Int(0)),
            });
            Some(self.pull_body(&name, &counter))
        } else {
            None
        };
        let may_error = self.may_fail;
        self.may_fail = false;
        let cancel = self.chance(50).then(|| self.cancel_body(&name));
        let cancel_may_reject = self.may_fail;
        let cancel_pending = cancel.is_some();
        out.push(Stmt::Let {
            name: name.as_str().into(),
            op: Op::NewReadable {
                strategy: Strategy {
                    high_water_mark,
                    size: None,
                },
                start,
                pull,
                cancel,
            },
        });
        self.streams.push(StreamInfo::new(
            name,
            may_error,
            cancel_may_reject,
            cancel_pending,
        ));
        if self.chance(70) {
            let s = self.streams.len() - 1;
            self.get_reader(s, out);
        }
    }

    /// `let kN = 0` and `let sN = readable bytes ...`: a byte source whose
    /// `start` enqueues Uint8Arrays (each made just before: `enqueue`
    /// detaches it) or closes or errors, and whose `pull` answers the BYOB
    /// request when there is one (filling part of it) or enqueues, then
    /// closes after a drawn number of calls.
    fn byte_stream(&mut self, out: &mut Vec<Stmt>) {
        let name = self.fresh("s");
        let high_water_mark = match self.below(4) {
            0 | 1 => None,
            2 => Some(Number::new(1.0)),
            _ => Some(Number::new(8.0)),
        };
        let auto_allocate_chunk_size = self
            .chance(30)
            .then(|| Number::new((1 + self.below(4)) as f64));
        self.may_fail = false;
        let start = self.chance(70).then(|| {
            let mut body = vec![Stmt::Log(vec![
                Expr::Str(format!("start {name}")),
                Expr::var("controller").prop("desiredSize"),
            ])];
            for _ in 0..self.below(3) {
                self.byte_controller_op(&mut body);
            }
            self.returned(&mut body);
            Block::new(body)
        });
        let pull = self.chance(70).then(|| {
            let counter = self.fresh("k");
            out.push(Stmt::Let {
                name: counter.as_str().into(),
                op: Op::Value(Expr::Int(0)),
            });
            let request = self.fresh("q");
            let limit = 1 + self.below(3) as i64;
            let mut answer = Vec::new();
            let filled = 1 + self.below(2) as i64;
            answer.push(Stmt::Log(vec![
                Expr::Str(format!("request {name}")),
                Expr::var(request.as_str()).prop("view").prop("byteLength"),
            ]));
            answer.push(Stmt::Try(Block::new(vec![Stmt::Do(Op::Respond {
                request: Expr::var(request.as_str()),
                bytes_written: Expr::Int(filled),
            })])));
            let mut enqueue = Vec::new();
            self.byte_enqueue(&mut enqueue);
            let act = Stmt::If {
                cond: Expr::Less(
                    Box::new(Expr::var(counter.as_str())),
                    Box::new(Expr::Int(limit + 1)),
                ),
                then: Block::new(vec![Stmt::If {
                    cond: Expr::var(request.as_str()),
                    then: Block::new(answer),
                    otherwise: Some(Block::new(enqueue)),
                }]),
                otherwise: Some(Block::new(vec![Stmt::Try(Block::new(vec![Stmt::Do(
                    Op::CloseController {
                        controller: Expr::var("controller"),
                    },
                )]))])),
            };
            let mut body = vec![
                Stmt::Do(Op::Assign {
                    target: Expr::var(counter.as_str()),
                    value: Expr::Add(
                        Box::new(Expr::var(counter.as_str())),
                        Box::new(Expr::Int(1)),
                    ),
                }),
                Stmt::Let {
                    name: request.as_str().into(),
                    op: Op::Value(Expr::var("controller").prop("byobRequest")),
                },
                Stmt::Log(vec![
                    Expr::Str(format!("pull {name}")),
                    Expr::var(counter.as_str()),
                    Expr::var("controller").prop("desiredSize"),
                ]),
            ];
            if self.chance(25) {
                body.push(Stmt::Do(Op::SetTimeout {
                    ms: 1 + self.below(2) as u32,
                    body: Block::new(vec![act]),
                }));
            } else {
                body.push(act);
            }
            self.returned(&mut body);
            Block::new(body)
        });
        let may_error = self.may_fail;
        self.may_fail = false;
        let cancel = self.chance(50).then(|| self.cancel_body(&name));
        let cancel_may_reject = self.may_fail;
        let cancel_pending = cancel.is_some();
        out.push(Stmt::Let {
            name: name.as_str().into(),
            op: Op::NewReadableBytes {
                high_water_mark,
                auto_allocate_chunk_size,
                start,
                pull,
                cancel,
            },
        });
        let mut info = StreamInfo::new(name, may_error, cancel_may_reject, cancel_pending);
        info.bytes = true;
        self.streams.push(info);
        if self.chance(70) {
            let s = self.streams.len() - 1;
            self.get_reader(s, out);
        }
    }

    /// `let bN = bytes [...]` and `enqueue controller bN` (in `try`), then
    /// sometimes a log of the enqueued view, which `enqueue` detached.
    fn byte_enqueue(&mut self, body: &mut Vec<Stmt>) {
        let name = self.fresh("u");
        let bytes: Vec<u8> = (0..1 + self.below(4))
            .map(|_| self.below(256) as u8)
            .collect();
        body.push(Stmt::Let {
            name: name.as_str().into(),
            op: Op::NewBytes(BytesInit::Values(bytes)),
        });
        body.push(Stmt::Try(Block::new(vec![Stmt::Do(Op::Enqueue {
            controller: Expr::var("controller"),
            chunk: Expr::var(name.as_str()),
        })])));
        if self.chance(30) {
            body.push(Stmt::Log(vec![
                Expr::Str("enqueued".to_string()),
                Expr::var(name.as_str()),
            ]));
        }
    }

    /// One of a byte controller's operations, inside `try`.
    fn byte_controller_op(&mut self, body: &mut Vec<Stmt>) {
        let controller = Expr::var("controller");
        match self.below(6) {
            0..=3 => self.byte_enqueue(body),
            4 => body.push(Stmt::Try(Block::new(vec![Stmt::Do(Op::CloseController {
                controller,
            })]))),
            _ => {
                self.may_fail = true;
                body.push(Stmt::Try(Block::new(vec![Stmt::Do(Op::ErrorController {
                    controller,
                    error: self.error_value(),
                })])));
            }
        }
    }

    /// One of the controller's operations, inside `try` where it can throw.
    fn controller_op(&mut self, body: &mut Vec<Stmt>) {
        let controller = Expr::var("controller");
        let op = match self.below(5) {
            0..=2 => Op::Enqueue {
                controller,
                chunk: self.chunk(),
            },
            3 => Op::CloseController { controller },
            _ => {
                self.may_fail = true;
                Op::ErrorController {
                    controller,
                    error: self.error_value(),
                }
            }
        };
        body.push(Stmt::Try(Block::new(vec![Stmt::Do(op)])));
    }

    fn start_body(&mut self, stream: &str) -> Block {
        let mut body = vec![Stmt::Log(vec![
            Expr::Str(format!("start {stream}")),
            Expr::var("controller").prop("desiredSize"),
        ])];
        for _ in 0..self.below(4) {
            match self.below(4) {
                0 | 1 => self.controller_op(&mut body),
                2 => {
                    let mut timer = vec![Stmt::Log(vec![Expr::Str(format!("timer {stream}"))])];
                    self.controller_op(&mut timer);
                    body.push(Stmt::Do(Op::SetTimeout {
                        ms: self.below(4) as u32,
                        body: Block::new(timer),
                    }));
                }
                _ => {
                    let mut task = vec![Stmt::Log(vec![Expr::Str(format!("microtask {stream}"))])];
                    self.controller_op(&mut task);
                    body.push(Stmt::Do(Op::QueueMicrotask(Block::new(task))));
                }
            }
        }
        self.returned(&mut body);
        Block::new(body)
    }

    fn pull_body(&mut self, stream: &str, counter: &str) -> Block {
        let limit = 1 + self.below(4) as i64;
        let mut body = vec![
            Stmt::Do(Op::Assign {
                target: Expr::var(counter),
                value: Expr::Add(Box::new(Expr::var(counter)), Box::new(Expr::Int(1))),
            }),
            Stmt::Log(vec![
                Expr::Str(format!("pull {stream}")),
                Expr::var(counter),
                Expr::var("controller").prop("desiredSize"),
            ]),
        ];
        // Enqueue the count until the limit, then close: now, or later
        // from a timer.
        let act = Stmt::If {
            cond: Expr::Less(Box::new(Expr::var(counter)), Box::new(Expr::Int(limit + 1))),
            then: Block::new(vec![Stmt::Try(Block::new(vec![Stmt::Do(Op::Enqueue {
                controller: Expr::var("controller"),
                chunk: Expr::var(counter),
            })]))]),
            otherwise: Some(Block::new(vec![Stmt::Try(Block::new(vec![Stmt::Do(
                Op::CloseController {
                    controller: Expr::var("controller"),
                },
            )]))])),
        };
        if self.chance(30) {
            body.push(Stmt::Do(Op::SetTimeout {
                ms: 1 + self.below(3) as u32,
                body: Block::new(vec![
                    Stmt::Log(vec![Expr::Str(format!("pull timer {stream}"))]),
                    act,
                ]),
            }));
        } else {
            body.push(act);
        }
        self.returned(&mut body);
        Block::new(body)
    }

    fn cancel_body(&mut self, stream: &str) -> Block {
        let mut body = vec![Stmt::Log(vec![
            Expr::Str(format!("cancel {stream}")),
            Expr::var("reason"),
        ])];
        match self.below(4) {
            0 => {
                self.may_fail = true;
                body.push(Stmt::Throw(self.error_value()));
            }
            1 => self.returned(&mut body),
            _ => {}
        }
        Block::new(body)
    }

    /// Maybe a `return` of what the stream then waits on: a gate, a settled
    /// promise, or a plain value.
    fn returned(&mut self, body: &mut Vec<Stmt>) {
        match self.below(6) {
            0 if !self.gates.is_empty() => {
                self.may_fail = true;
                let i = self.below(self.gates.len());
                let gate = self.gates[i].0.clone();
                body.push(Stmt::Return(Some(Expr::var(gate))));
            }
            1 => {
                let value = self.chunk();
                self.return_settled(Op::PromiseResolve { value }, body);
            }
            2 => {
                self.may_fail = true;
                let value = self.error_value();
                self.return_settled(Op::PromiseReject { value }, body);
            }
            3 => body.push(Stmt::Return(Some(self.chunk()))),
            _ => {}
        }
    }

    /// `let vN = OP` (a settled promise) and `return vN`.
    fn return_settled(&mut self, op: Op, body: &mut Vec<Stmt>) {
        let name = self.fresh("v");
        body.push(Stmt::Let {
            name: name.as_str().into(),
            op,
        });
        body.push(Stmt::Return(Some(Expr::var(name))));
    }

    /// `then P { log LABEL value } else { log LABEL rejected reason }`,
    /// with only the reactions `outcome` allows.
    fn watch(&mut self, promise: Expr, label: String, outcome: Outcome, out: &mut Vec<Stmt>) {
        let fulfilled = (outcome != Outcome::Rejects).then(|| {
            Block::new(vec![Stmt::Log(vec![
                Expr::Str(label.clone()),
                Expr::var("value"),
            ])])
        });
        let rejected = (outcome != Outcome::Fulfils).then(|| {
            Block::new(vec![Stmt::Log(vec![
                Expr::Str(format!("{label} rejected")),
                Expr::var("reason"),
            ])])
        });
        out.push(Stmt::Do(Op::Then {
            promise,
            on_fulfilled: fulfilled,
            on_rejected: rejected,
        }));
    }

    /// `let pN = read R` through stream `s`'s reader `reader`, watched; a
    /// BYOB reader reads into a new view (`let vN = bytes N`, `read R vN
    /// [min M]`), which the log then shows detached.
    fn read(&mut self, s: usize, reader: &str, label: &str, out: &mut Vec<Stmt>) {
        let name = self.fresh("p");
        let op = if self.streams[s].byob.iter().any(|r| r == reader) {
            let view = self.fresh("v");
            let length = 1 + self.below(4);
            out.push(Stmt::Let {
                name: view.as_str().into(),
                op: Op::NewBytes(BytesInit::Zeros(length as u32)),
            });
            let min = self
                .chance(30)
                .then(|| Expr::Int(1 + self.below(length) as i64));
            Op::ReadInto {
                reader: Expr::var(reader),
                view: Expr::var(view.as_str()),
                min,
            }
        } else {
            Op::Read {
                reader: Expr::var(reader),
            }
        };
        out.push(Stmt::Let {
            name: name.as_str().into(),
            op,
        });
        let outcome = self.read_outcome(s);
        self.watch(
            Expr::var(name.as_str()),
            format!("{label} {reader}"),
            outcome,
            out,
        );
    }

    /// What a read through stream `s`'s first reader does.
    fn read_outcome(&self, s: usize) -> Outcome {
        let info = &self.streams[s];
        if info.released {
            Outcome::Rejects
        } else if info.may_error {
            Outcome::Either
        } else {
            Outcome::Fulfils
        }
    }

    /// One main-script step, drawn among those that apply to a stream.
    fn step(&mut self, out: &mut Vec<Stmt>) {
        #[derive(Clone, Copy)]
        enum Step {
            GetReader,
            Tee,
            Read,
            Release,
            Cancel,
            Closed,
            Settle,
            Locked,
            Run,
            Ruler,
            Writable,
            PipeTo,
            PipeThrough,
            AbortPipe,
            Values,
            Iterate,
        }
        let s = self.below(self.streams.len());
        let stream = self.streams[s].name.clone();
        let reader = self.streams[s].readers.last().cloned();
        let mut steps = vec![(Step::GetReader, 2), (Step::Cancel, 1), (Step::Locked, 1)];
        let unlocked = self.streams[s].readers.is_empty() && !self.streams[s].held;
        if unlocked && self.streams.len() < 2 * MAX_STREAMS {
            steps.push((Step::Tee, 2));
        }
        if reader.is_some() {
            steps.extend([(Step::Read, 6), (Step::Release, 1), (Step::Closed, 1)]);
        }
        if self.gates.iter().any(|(_, settled)| !settled) {
            steps.push((Step::Settle, 2));
        }
        steps.extend([(Step::Run, 1), (Step::Ruler, 1)]);
        if !self.writables.is_empty() {
            steps.push((Step::Writable, 6));
        }
        if unlocked {
            steps.push((Step::Values, 1));
            if self.streams.len() < 2 * MAX_STREAMS {
                steps.push((Step::PipeThrough, 2));
            }
            if self
                .writables
                .iter()
                .any(|w| w.writer.is_none() && !w.piped)
            {
                steps.push((Step::PipeTo, 3));
            }
        }
        if self.pipe_signals.iter().any(|(_, aborted)| !aborted) {
            steps.push((Step::AbortPipe, 1));
        }
        if !self.iterators.is_empty() {
            steps.push((Step::Iterate, 4));
        }
        let total: usize = steps.iter().map(|(_, w)| w).sum();
        let mut at = self.below(total);
        let mut step = steps[0].0;
        for (candidate, weight) in &steps {
            if at < *weight {
                step = *candidate;
                break;
            }
            at -= weight;
        }
        match step {
            Step::GetReader => self.get_reader(s, out),
            Step::Tee => {
                let branches = [self.fresh("b"), self.fresh("b")];
                out.push(Stmt::Tee {
                    branches: [branches[0].as_str().into(), branches[1].as_str().into()],
                    stream: Expr::var(stream.as_str()),
                });
                self.streams[s].held = true;
                // A branch errors when its source does; its cancel settles
                // with the source's once both branches cancelled.
                let (may_error, cancel_may_reject) =
                    (self.streams[s].may_error, self.streams[s].cancel_may_reject);
                let bytes = self.streams[s].bytes;
                for name in branches {
                    let mut info = StreamInfo::new(name, may_error, cancel_may_reject, false);
                    info.bytes = bytes;
                    self.streams.push(info);
                    if self.chance(70) {
                        let b = self.streams.len() - 1;
                        self.get_reader(b, out);
                    }
                }
            }
            Step::Read => self.read(s, &reader.unwrap_or_default(), "read", out),
            Step::Release => {
                self.streams[s].released = true;
                out.push(Stmt::Do(Op::ReleaseLock {
                    reader: Expr::var(reader.unwrap_or_default()),
                }));
            }
            Step::Cancel => {
                let name = self.fresh("c");
                let (target, through_reader) = match reader {
                    Some(reader) if self.chance(50) => (reader, true),
                    _ => (stream, false),
                };
                self.streams[s].cancel_pending = false;
                let info = &self.streams[s];
                // A locked stream refuses cancel; a released reader, too.
                let outcome = if (through_reader && info.released)
                    || (!through_reader && !info.readers.is_empty() && !info.released)
                    || (!through_reader && info.held)
                {
                    Outcome::Rejects
                } else if info.may_error || info.cancel_may_reject || info.released {
                    Outcome::Either
                } else {
                    Outcome::Fulfils
                };
                let reason = self.chance(70).then(|| self.error_value());
                out.push(Stmt::Let {
                    name: name.as_str().into(),
                    op: Op::Cancel {
                        target: Expr::var(target.as_str()),
                        reason,
                    },
                });
                self.watch(
                    Expr::var(name.as_str()),
                    format!("cancel {target}"),
                    outcome,
                    out,
                );
            }
            Step::Closed => {
                let reader = reader.unwrap_or_default();
                self.watch(
                    Expr::var(reader.as_str()).prop("closed"),
                    format!("closed {reader}"),
                    Outcome::Either,
                    out,
                );
            }
            Step::Settle => {
                let open: Vec<usize> = (0..self.gates.len())
                    .filter(|&i| !self.gates[i].1)
                    .collect();
                let i = open[self.below(open.len())];
                self.gates[i].1 = true;
                let promise = Expr::var(self.gates[i].0.as_str());
                out.push(Stmt::Do(if self.chance(70) {
                    Op::Resolve {
                        promise,
                        value: None,
                    }
                } else {
                    Op::Reject {
                        promise,
                        value: Some(self.error_value()),
                    }
                }));
            }
            Step::Locked => out.push(Stmt::Log(vec![
                Expr::Str(format!("{stream} locked")),
                Expr::var(stream.as_str()).prop("locked"),
            ])),
            Step::Run => out.push(Stmt::Run(if self.chance(50) {
                RunMode::Turn
            } else {
                RunMode::Advance(1 + self.below(3) as u32)
            })),
            Step::Ruler => out.push(Stmt::Do(Op::Ruler {
                ticks: 1 + self.below(6) as u32,
            })),
            Step::Writable => {
                let w = self.below(self.writables.len());
                self.writable_step(w, out);
            }
            Step::PipeTo => {
                let free: Vec<usize> = (0..self.writables.len())
                    .filter(|&w| self.writables[w].writer.is_none() && !self.writables[w].piped)
                    .collect();
                let w = free[self.below(free.len())];
                self.pipe_to(s, w, out);
            }
            Step::PipeThrough => self.pipe_through(s, out),
            Step::AbortPipe => {
                let open: Vec<usize> = (0..self.pipe_signals.len())
                    .filter(|&i| !self.pipe_signals[i].1)
                    .collect();
                let i = open[self.below(open.len())];
                self.pipe_signals[i].1 = true;
                let reason = self.chance(60).then(|| self.error_value());
                out.push(Stmt::Do(Op::Abort {
                    controller: Expr::var(self.pipe_signals[i].0.as_str()),
                    reason,
                }));
            }
            Step::Values => {
                let name = self.fresh("i");
                self.streams[s].held = true;
                out.push(Stmt::Let {
                    name: name.as_str().into(),
                    op: Op::Values {
                        stream: Expr::var(stream.as_str()),
                        prevent_cancel: self.chance(40),
                    },
                });
                self.iterators.push(name);
            }
            Step::Iterate => {
                let i = self.below(self.iterators.len());
                let iterator = self.iterators[i].clone();
                let name = self.fresh("n");
                let op = if self.chance(75) {
                    Op::Next {
                        iterator: Expr::var(iterator.as_str()),
                    }
                } else {
                    Op::IterReturn {
                        iterator: Expr::var(iterator.as_str()),
                        value: self.chance(50).then(|| self.chunk()),
                    }
                };
                let label = match op {
                    Op::Next { .. } => format!("next {iterator}"),
                    _ => format!("return {iterator}"),
                };
                out.push(Stmt::Let {
                    name: name.as_str().into(),
                    op,
                });
                self.watch(Expr::var(name.as_str()), label, Outcome::Either, out);
            }
        }
    }

    // ---- ReadableStream.from -------------------------------------------

    /// `let sN = from [...]` or `from async [...]`: chunks, and sometimes a
    /// gate (a promise the script settles later), which the stream then
    /// waits on (and errors with, if it rejects).
    fn stream_from_iterable(&mut self, out: &mut Vec<Stmt>) {
        let name = self.fresh("s");
        let mut values = Vec::new();
        let mut may_error = false;
        for _ in 0..self.below(5) {
            if !self.gates.is_empty() && self.chance(25) {
                let i = self.below(self.gates.len());
                values.push(Expr::var(self.gates[i].0.as_str()));
                may_error = true;
            } else {
                values.push(self.chunk());
            }
        }
        out.push(Stmt::Let {
            name: name.as_str().into(),
            op: Op::From {
                is_async: self.chance(50),
                values,
            },
        });
        self.streams
            .push(StreamInfo::new(name, may_error, false, false));
        if self.chance(60) {
            let s = self.streams.len() - 1;
            self.get_reader(s, out);
        }
    }

    // ---- WritableStream, pipes, TransformStream --------------------------

    /// `let wN = writable ...`, a sink whose every method logs, and maybe
    /// its writer.
    fn writable(&mut self, out: &mut Vec<Stmt>) {
        let name = self.fresh("w");
        let high_water_mark = match self.below(5) {
            0 => None,
            1 => Some(Number::new(0.0)),
            2 | 3 => Some(Number::new(1.0)),
            _ => Some(Number::new(3.0)),
        };
        let start = self.chance(50).then(|| {
            let mut body = vec![Stmt::Log(vec![
                Expr::Str(format!("start {name}")),
                Expr::var("controller").prop("signal").prop("aborted"),
            ])];
            self.returned(&mut body);
            Block::new(body)
        });
        let write = self.chance(85).then(|| {
            let mut body = vec![Stmt::Log(vec![
                Expr::Str(format!("write {name}")),
                Expr::var("chunk"),
            ])];
            if self.chance(10) {
                body.push(Stmt::Try(Block::new(vec![Stmt::Do(Op::ErrorController {
                    controller: Expr::var("controller"),
                    error: self.error_value(),
                })])));
            }
            if self.chance(10) {
                body.push(Stmt::Throw(self.error_value()));
            } else {
                self.returned(&mut body);
            }
            Block::new(body)
        });
        let close = self.chance(60).then(|| {
            let mut body = vec![Stmt::Log(vec![Expr::Str(format!("close {name}"))])];
            self.returned(&mut body);
            Block::new(body)
        });
        let abort = self.chance(50).then(|| {
            let mut body = vec![Stmt::Log(vec![
                Expr::Str(format!("abort {name}")),
                Expr::var("reason"),
            ])];
            if self.chance(20) {
                body.push(Stmt::Throw(self.error_value()));
            } else {
                self.returned(&mut body);
            }
            Block::new(body)
        });
        out.push(Stmt::Let {
            name: name.as_str().into(),
            op: Op::NewWritable {
                strategy: Strategy {
                    high_water_mark,
                    size: None,
                },
                start,
                write,
                close,
                abort,
            },
        });
        self.writables.push(WritableInfo {
            name,
            writer: None,
            released: false,
            piped: false,
        });
        if self.chance(50) {
            let w = self.writables.len() - 1;
            self.get_writer(w, out);
        }
    }

    /// `let xN = getWriter W`, inside `try` when the stream may be locked.
    fn get_writer(&mut self, w: usize, out: &mut Vec<Stmt>) {
        let name = self.fresh("x");
        let op = Op::GetWriter {
            stream: Expr::var(self.writables[w].name.as_str()),
        };
        let info = &mut self.writables[w];
        if info.writer.is_none() && !info.piped {
            out.push(Stmt::Let {
                name: name.as_str().into(),
                op,
            });
            info.writer = Some(name);
        } else {
            out.push(Stmt::Try(Block::new(vec![
                Stmt::Let {
                    name: name.as_str().into(),
                    op,
                },
                Stmt::Log(vec![Expr::Str(format!("got {name}"))]),
            ])));
        }
    }

    /// One step on WritableStream `w`: through its writer when it has one
    /// (write, close, abort, ready, closed, desiredSize, releaseLock), or
    /// on the stream (getWriter, close, abort).
    fn writable_step(&mut self, w: usize, out: &mut Vec<Stmt>) {
        let stream = self.writables[w].name.clone();
        let writer = self.writables[w].writer.clone();
        let Some(writer) = writer else {
            match self.below(4) {
                0 | 1 => self.get_writer(w, out),
                2 => self.watched(
                    Op::CloseWritable {
                        target: Expr::var(stream.as_str()),
                    },
                    format!("close {stream}"),
                    out,
                ),
                _ => {
                    let reason = self.chance(70).then(|| self.error_value());
                    self.watched(
                        Op::AbortWritable {
                            target: Expr::var(stream.as_str()),
                            reason,
                        },
                        format!("abort {stream}"),
                        out,
                    )
                }
            }
            return;
        };
        let target = Expr::var(writer.as_str());
        match self.below(12) {
            0..=4 => {
                let chunk = self.chunk();
                self.watched(
                    Op::Write {
                        writer: target,
                        chunk,
                    },
                    format!("write {writer}"),
                    out,
                );
            }
            5 => self.watched(Op::CloseWritable { target }, format!("close {writer}"), out),
            6 => {
                let reason = self.chance(70).then(|| self.error_value());
                self.watched(
                    Op::AbortWritable { target, reason },
                    format!("abort {writer}"),
                    out,
                );
            }
            7 => self.watch(
                target.prop("ready"),
                format!("ready {writer}"),
                Outcome::Either,
                out,
            ),
            8 => self.watch(
                target.prop("closed"),
                format!("closed {writer}"),
                Outcome::Either,
                out,
            ),
            9 | 10 => out.push(Stmt::Log(vec![
                Expr::Str(format!("{writer} desiredSize")),
                target.prop("desiredSize"),
            ])),
            _ => {
                // A new writer after a release (refused before it).
                if !self.writables[w].released {
                    self.writables[w].released = true;
                    out.push(Stmt::Do(Op::ReleaseLock { reader: target }));
                    self.writables[w].writer = None;
                } else {
                    self.get_writer(w, out);
                }
            }
        }
    }

    /// `let pN = OP` (an operation returning a promise), both outcomes
    /// watched.
    fn watched(&mut self, op: Op, label: String, out: &mut Vec<Stmt>) {
        let name = self.fresh("p");
        out.push(Stmt::Let {
            name: name.as_str().into(),
            op,
        });
        self.watch(Expr::var(name.as_str()), label, Outcome::Either, out);
    }

    /// Options for a pipe: any of the prevent flags, and sometimes the
    /// signal of a new AbortController that a later step may abort (or
    /// one aborted already).
    fn pipe_options(&mut self, out: &mut Vec<Stmt>) -> PipeOptions {
        let mut options = PipeOptions {
            prevent_close: self.chance(25),
            prevent_abort: self.chance(25),
            prevent_cancel: self.chance(25),
            signal: None,
        };
        if self.chance(35) {
            let name = self.fresh("a");
            out.push(Stmt::Let {
                name: name.as_str().into(),
                op: Op::NewController,
            });
            let aborted = self.chance(20);
            if aborted {
                out.push(Stmt::Do(Op::Abort {
                    controller: Expr::var(name.as_str()),
                    reason: Some(self.error_value()),
                }));
            }
            options.signal = Some(Expr::var(name.as_str()).prop("signal"));
            self.pipe_signals.push((name, aborted));
        }
        options
    }

    /// `let pN = pipeTo S W ...`, watched; both streams are then locked.
    fn pipe_to(&mut self, s: usize, w: usize, out: &mut Vec<Stmt>) {
        let options = self.pipe_options(out);
        self.streams[s].held = true;
        self.writables[w].piped = true;
        let (source, dest) = (self.streams[s].name.clone(), self.writables[w].name.clone());
        self.watched(
            Op::PipeTo {
                source: Expr::var(source.as_str()),
                dest: Expr::var(dest.as_str()),
                options,
            },
            format!("pipe {source} {dest}"),
            out,
        );
    }

    /// `let tN = transform ...` and `let oN = pipeThrough S tN ...`: the
    /// transform's readable side is a stream the later steps use like any
    /// other.
    fn pipe_through(&mut self, s: usize, out: &mut Vec<Stmt>) {
        let transform = self.fresh("t");
        let hwm = |g: &mut Self| match g.below(4) {
            0 | 1 => None,
            2 => Some(Number::new(0.0)),
            _ => Some(Number::new(2.0)),
        };
        let (writable_hwm, readable_hwm) = (hwm(self), hwm(self));
        self.may_fail = false;
        let start = self.chance(40).then(|| {
            let mut body = vec![Stmt::Log(vec![
                Expr::Str(format!("start {transform}")),
                Expr::var("controller").prop("desiredSize"),
            ])];
            self.returned(&mut body);
            Block::new(body)
        });
        let transform_body = self.chance(80).then(|| {
            let mut body = vec![Stmt::Log(vec![
                Expr::Str(format!("transform {transform}")),
                Expr::var("chunk"),
            ])];
            for _ in 0..1 + self.below(2) {
                body.push(Stmt::Try(Block::new(vec![Stmt::Do(Op::Enqueue {
                    controller: Expr::var("controller"),
                    chunk: Expr::var("chunk"),
                })])));
            }
            match self.below(12) {
                0 => body.push(Stmt::Try(Block::new(vec![Stmt::Do(Op::Terminate {
                    controller: Expr::var("controller"),
                })]))),
                1 => {
                    self.may_fail = true;
                    body.push(Stmt::Try(Block::new(vec![Stmt::Do(Op::ErrorController {
                        controller: Expr::var("controller"),
                        error: self.error_value(),
                    })])));
                }
                _ => self.returned(&mut body),
            }
            Block::new(body)
        });
        let flush = self.chance(50).then(|| {
            let mut body = vec![Stmt::Log(vec![Expr::Str(format!("flush {transform}"))])];
            if self.chance(50) {
                body.push(Stmt::Try(Block::new(vec![Stmt::Do(Op::Enqueue {
                    controller: Expr::var("controller"),
                    chunk: Expr::Str("flushed".to_string()),
                })])));
            }
            self.returned(&mut body);
            Block::new(body)
        });
        let may_error = self.may_fail || self.streams[s].may_error;
        let cancel = self.chance(40).then(|| {
            Block::new(vec![Stmt::Log(vec![
                Expr::Str(format!("cancel {transform}")),
                Expr::var("reason"),
            ])])
        });
        out.push(Stmt::Let {
            name: transform.as_str().into(),
            op: Op::NewTransform {
                writable_high_water_mark: writable_hwm,
                readable_high_water_mark: readable_hwm,
                start,
                transform: transform_body,
                flush,
                cancel,
            },
        });
        let options = self.pipe_options(out);
        self.streams[s].held = true;
        let name = self.fresh("o");
        out.push(Stmt::Let {
            name: name.as_str().into(),
            op: Op::PipeThrough {
                source: Expr::var(self.streams[s].name.as_str()),
                transform: Expr::var(transform.as_str()),
                options,
            },
        });
        self.streams
            .push(StreamInfo::new(name, may_error, false, false));
        if self.chance(70) {
            let o = self.streams.len() - 1;
            self.get_reader(o, out);
        }
    }

    /// `let rN = getReader S`: inside `try` when a reader was made before
    /// (refused while it holds the lock; made after a `releaseLock`).
    fn get_reader(&mut self, s: usize, out: &mut Vec<Stmt>) {
        let name = self.fresh("r");
        let stream = Expr::var(self.streams[s].name.as_str());
        let op = if self.streams[s].bytes && self.chance(60) {
            self.streams[s].byob.push(name.clone());
            Op::GetByobReader { stream }
        } else {
            Op::GetReader { stream }
        };
        if self.streams[s].readers.is_empty() && !self.streams[s].held {
            out.push(Stmt::Let {
                name: name.as_str().into(),
                op,
            });
            self.streams[s].readers.push(name);
        } else {
            out.push(Stmt::Try(Block::new(vec![
                Stmt::Let {
                    name: name.as_str().into(),
                    op,
                },
                Stmt::Log(vec![Expr::Str(format!("got {name}"))]),
            ])));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_generated_stream_scenario_parses_and_prints_back() {
        let mut kinds = std::collections::BTreeSet::new();
        for seed in 0..500 {
            let scenario = generate_streams_from_seed(seed, 512);
            let text = crate::print(&scenario);
            let parsed = crate::parse("gen.scn", &text)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
            assert_eq!(parsed, scenario, "seed {seed}");
            for word in [
                "readable",
                "getReader",
                "read",
                "cancel",
                "releaseLock",
                "ruler",
                "tee",
                "writable",
                "getWriter",
                "write",
                "close",
                "abort",
                "pipeTo",
                "pipeThrough",
                "transform",
                "from",
                "values",
                "next",
                "iterReturn",
                "readable bytes",
                "respond",
                "bytes",
            ] {
                if text.contains(&format!("{word} ")) || text.contains(&format!("= {word}")) {
                    kinds.insert(word);
                }
            }
        }
        // The steps are drawn among all the operations.
        assert_eq!(kinds.len(), 22, "{kinds:?}");
    }

    #[test]
    fn no_bytes_still_make_a_stream_scenario() {
        let mut u = Unstructured::new(&[]);
        let scenario = generate_streams(&mut u);
        let text = crate::print(&scenario);
        assert!(text.contains("= readable"), "{text}");
        assert_eq!(crate::parse("gen.scn", &text).unwrap(), scenario);
    }
}
