//! # The nodesem scenario language
//!
//! This crate is the language reference. A scenario is a small,
//! line-oriented script that exercises the parts of Node.js whose observable
//! behaviour optimizations keep changing: aborting, event dispatch, the
//! event loop, promises and streams. Every engine (the reference model, the optimized
//! implementation, real Node through JavaScript) runs the same [`Scenario`]
//! and produces a [`Log`]; the harness diffs logs.
//!
//! ## Lexical structure
//!
//! - One statement per line. Blank lines are ignored.
//! - A line whose first non-blank character is `#` is a comment. Comments are
//!   kept in the syntax tree so that printing preserves them; there are no
//!   trailing comments.
//! - Words: `[A-Za-z_$][A-Za-z0-9_$-]*`. Strings: `"..."` with the escapes
//!   `\" \\ \n \t \r \u{hex}`. Integers: `-?[0-9]+`, within JavaScript's
//!   safe range (see [Limits](#limits)). Fractions: `-?[0-9]+.[0-9]+`,
//!   within the same range, and `5e-7`, the exponent form JavaScript writes
//!   below 1e-6 (and the printer with it); `-0` is negative zero, and a fraction whose
//!   value is an integer is that integer (`2.0` is `2`). `{}`, without a
//!   space, is an empty object literal.
//! - A file is UTF-8 text. [`parse`] takes a `&str`; [`parse_bytes`] takes
//!   the bytes of a file and reports each line that is not UTF-8 at its
//!   first invalid byte.
//! - A block is `{` at the end of a line, the block's statements on the
//!   following lines, and a line starting with `}`. Only `else {` may follow
//!   a closing `}` on the same line.
//!
//! ## Bindings and scope
//!
//! `let NAME = OP` binds the result of an operation. Names start with a
//! lowercase letter or `_` and contain letters, digits and `_`; keywords and
//! JavaScript's reserved words are refused. A binding is visible after its
//! `let`, in its block and in blocks nested in it; a name cannot be defined
//! twice where it would shadow another. The callbacks of the operation a
//! `let` binds may use that binding (a listener made with `let f = fn {` can
//! remove itself with `off t e f`), since they only run after it exists.
//! Its other operands may not: they are evaluated before the binding is
//! initialized, as in JavaScript's temporal dead zone, where
//! `const p = p.then(...)` throws "Cannot access 'p' before
//! initialization". So `let p = then p {` and `let d = addAbortListener s d`
//! are errors, while `let p = then q {` may use `p` inside its blocks.
//! A callback may also read a binding that a later statement of the main
//! script makes (not one of a block): the main script is a module whose
//! bindings are all declared up front, so until that statement runs the
//! callback sees `undefined`, and then the value. Its kind is not known
//! where the callback is written, so it is a plain value there.
//! Callback bodies see implicit
//! parameters: a FinalizationRegistry's cleanup sees `held`; listener bodies (`on`, `fn`, `onabort`, `addAbortListener`)
//! see `event`; `then` bodies see `value`; `else` and `catch` bodies see
//! `reason`; a stream source's `start` and `pull` see `controller`, its
//! `cancel` sees `reason`; a sink's `start`, a transformer's `start` and
//! `flush` see `controller`; a sink's `write` and a transformer's
//! `transform` see `chunk` and `controller`; a sink's `abort` and a
//! transformer's `cancel` see `reason`; a strategy's `size` sees `chunk`.
//!
//! ## Values
//!
//! `undefined`, `null`, `true`, `false`, integers, numbers that are not
//! integers (`1.5`, `-0`, `NaN`, `Infinity`), strings, `Symbol("desc")` and
//! `Symbol()` (a new symbol each time: two are never the same), `{}` (a new
//! plain object each time), `Error("msg")`
//! (a new `Error`), `TypeError("msg")` and `RangeError("msg")`,
//! `DOMException("msg", "Name")` (`new DOMException(msg, name)`), a binding,
//! and property reads `EXPR.NAME`:
//!
//! | kind | readable properties |
//! |---|---|
//! | AbortController | `signal` |
//! | the record of `withResolvers` | `promise`, `resolve`, `reject` |
//! | ReadableStream, WritableStream | `locked` |
//! | ReadableStreamDefaultController, TransformStreamDefaultController | `desiredSize` |
//! | ReadableByteStreamController | `desiredSize`, `byobRequest` (a ReadableStreamBYOBRequest or `null`) |
//! | ReadableStreamBYOBRequest | `view` |
//! | ReadableStreamDefaultReader, ReadableStreamBYOBReader | `closed` |
//! | WritableStreamDefaultWriter | `closed`, `ready`, `desiredSize` |
//! | WritableStreamDefaultController | `signal` |
//! | TransformStream | `readable`, `writable` |
//! | Uint8Array | `byteLength`, `byteOffset`, `length` |
//! | a read result `{ value, done }` | `value`, `done` |
//! | AbortSignal | `aborted`, `reason`, `onabort` |
//! | Event | `type`, `cancelable`, `defaultPrevented`, `isTrusted`, `eventPhase`, `bubbles`, `composed`, `returnValue`, `cancelBubble`, `target`, `currentTarget`, `srcElement`, `detail` (a CustomEvent's; undefined on an Event), `timeStamp` (under `typeof` only) |
//! | Error or plain value | `name`, `message`, `code` (a DOMException's legacy code; undefined on other errors), `errors` (an AggregateError's array) |
//!
//! `this` is the receiver of the innermost callback running, as Node calls
//! it: an EventTarget listener or `onabort` handler gets the target, a
//! timer's or immediate's callback its handle, promise reactions,
//! microtasks and ticks `undefined`; the main script's `this` is
//! `undefined`.
//!
//! `arguments.length`, inside a callback, is how many arguments Node called
//! it with: 1 for listeners, handlers and reactions, 0 for microtasks,
//! ticks, timers, immediates and `finally` callbacks.
//!
//! Operators observe values the log cannot tell apart:
//!
//! | form | JavaScript | value |
//! |---|---|---|
//! | `same A B` | `Object.is(A, B)` | `true` when A and B are the same value: for objects, the same object (is `event.target` the signal, is a reason the object that was passed, does `any [s]` return `s`) |
//! | `typeof A` | `typeof A` | `"undefined"`, `"object"` (null too), `"boolean"`, `"number"`, `"string"`, `"symbol"` or `"function"` |
//! | `add A B` | `A + B` | for primitive values: numbers add, a string concatenates; an object is a TypeError in every engine (its ToPrimitive is not comparable); a symbol is V8's TypeError, `Cannot convert a Symbol value to a string` (or `a number`) |
//! | `less A B` | `A < B` | for primitive values: two strings compare by code units, the rest as numbers; an object is a TypeError, a symbol V8's |
//! | `A.constructor.name` | `A.constructor.name` | the name of the constructor on A's prototype chain: `AbortSignal`, `CustomEvent`, `AsyncFunction`, `Number`, `TypeError` (Node's coded errors too) ...; a TypeError for `undefined`, `null` and the null-prototype Disposable |
//! | `Event.NAME`, `DOMException.NAME` | the same | the constants of the interface objects: `NONE`, `CAPTURING_PHASE`, `AT_TARGET`, `BUBBLING_PHASE`; `INDEX_SIZE_ERR` (1) to `DATA_CLONE_ERR` (25), `ABORT_ERR` and `TIMEOUT_ERR` among them. An error reads the DOMException ones as properties too (a DOMException has them, other errors read undefined), and an event reads Event's (Node 26 defines them on the constructor only, so an event's are undefined) |
//! | `instanceof A CLASS` | `A instanceof CLASS` | `true` when CLASS's prototype is on A's chain; CLASS is one of `AbortController`, `AbortSignal`, `EventTarget`, `Event`, `Error`, `TypeError`, `RangeError`, `DOMException`, `AggregateError`, `Promise`, `Array`, `Function`, `Object` |
//!
//! Their operands are values, bindings or property reads, never another
//! operator; the words are reserved.
//!
//! Every binding has a kind known from the operation that made it, and each
//! operation checks the kinds of its operands: aborting an EventTarget, or
//! passing a timer where a signal is expected, is a validation error.
//!
//! ## Statements
//!
//! | statement | meaning |
//! |---|---|
//! | `log EXPR...` | one log line: the values formatted and joined by spaces |
//! | `let NAME = OP` | perform OP, bind its result (OP may be a plain value) |
//! | `OP` | perform OP, discard its result |
//! | `try {` | run the block; an exception is logged as `caught <value>` |
//! | `if V {` / `if V {` ... `} else {` | run the first block when V is truthy (ToBoolean), else the second; each has bindings of its own |
//! | `set NAME V` | `NAME = V`: assigns a binding that holds a plain value (made by `let` from a value, or an implicit parameter), so that callbacks can keep a counter or a flag that others read; its value is V |
//! | `repeat N {` | run the block N times (0 to 1000), each time with bindings of its own: `for (let i = 0; i < N; i++) { ... }` |
//! | `throw EXPR` | throw the value |
//! | `return [EXPR]` | return from a callback (its value matters to promise reactions) |
//! | `run turn` | top level only: let the loop run one iteration, then resume |
//! | `run idle` | top level only: let the loop run until nothing keeps it alive |
//! | `run advance MS` | top level only: let the loop run until the clock has advanced MS |
//! | `use module` | a directive: the main script is an ES module, not CommonJS (see [The event loop](#the-event-loop)); at the top level, before every other statement but comments, at most once |
//!
//! ## Operations
//!
//! Abort:
//!
//! | operation | JavaScript |
//! |---|---|
//! | `controller` | `new AbortController()` |
//! | `abort C [REASON]` | `C.abort(REASON)` |
//! | `aborted [REASON]` | `AbortSignal.abort(REASON)` |
//! | `timeout MS` | `AbortSignal.timeout(MS)` |
//! | `any [S1, S2, ...]` | `AbortSignal.any([S1, S2, ...])` |
//! | `any [timeout 5, S, any [S2, timeout 9]]` | `AbortSignal.any([AbortSignal.timeout(5), S, AbortSignal.any([S2, AbortSignal.timeout(9)])])`: a `timeout MS` or `any [...]` element is a temporary made in place that no binding holds, two deep at most |
//! | `throwIfAborted S` | `S.throwIfAborted()` |
//! | `onabort S {` / `onabort S F` / `onabort S null` / `onabort S VALUE` (a string, number, boolean, symbol, `undefined`, `{}` or error literal) | `S.onabort = ...`: Node 26 keeps a function or an object and turns any other value into `null` |
//! | `addAbortListener S {` / `addAbortListener S F` | `events.addAbortListener(S, ...)`, a Disposable |
//! | `dispose D` | `D[Symbol.dispose]()` |
//! | `setMaxListeners N T...` | `events.setMaxListeners(N, T...)` with one target or more (for the default, without targets, see `setDefaultMaxListeners`): each EventTarget or AbortSignal T warns once its listeners of one type exceed N; 0 is no limit, `undefined` the default (`events.defaultMaxListeners`, 10 unless changed) |
//! | `getMaxListeners T` | `events.getMaxListeners(T)`: 10 for a new EventTarget, 0 (no limit) for an AbortSignal |
//!
//! Dispatch:
//!
//! | operation | JavaScript |
//! |---|---|
//! | `target` | `new EventTarget()` |
//! | `fn {` | a function, usable as a listener by name |
//! | `handleEvent {` | an EventListener object, `{ handleEvent(event) { ... } }`, usable by name in `on` and `off`: Node calls its `handleEvent` with the object as `this`, inside an async wrapper, so what it throws is reported later, as a rejection of the wrapper's promise |
//! | `fn async {` | an async function (`async function (event) { ... }`), usable as a listener by name: a call returns its promise, and Node's dispatch reports its rejection as an uncaught exception |
//! | `on T TYPE [once] [capture] [passive] [signal S] {` | `T.addEventListener(TYPE, event => {...}, {...})` |
//! | `on T TYPE F [once] [capture] [passive] [signal S]` | `T.addEventListener(TYPE, F, {...})` |
//! | `on T TYPE [F] options V [{]` | `T.addEventListener(TYPE, F, V)` with the third argument a value of any kind: Node reads a boolean as `capture`, `null` and `undefined` as no options and an object's members, and refuses the rest (ERR_INVALID_ARG_TYPE) before it looks at the listener |
//! | `off T TYPE F [capture]` | `T.removeEventListener(TYPE, F, { capture })` |
//! | `on T TYPE [F] true` / `false`, `off T TYPE F true` / `false` | the capture flag as a bare boolean third argument: `T.addEventListener(TYPE, F, true)` |
//! | `dispatch T TYPE [cancelable]` | `T.dispatchEvent(new Event(TYPE, { cancelable }))`, its boolean result |
//! | `preventDefault E`, `stopPropagation E`, `stopImmediatePropagation E` | the Event methods |
//! | `new Event TYPE [bubbles] [cancelable] [composed]` | `new Event(TYPE, { bubbles, cancelable, composed })`: an event the script holds |
//! | `new CustomEvent TYPE [detail V] [bubbles] [cancelable] [composed]` | `new CustomEvent(TYPE, { detail: V, ... })` (its `detail` is null without one) |
//! | `new Event` / `new CustomEvent` | the constructor without arguments, which throws Node's ERR_MISSING_ARGS |
//! | `new AbortSignal` | `new AbortSignal()`, which throws Node's ERR_ILLEGAL_CONSTRUCTOR |
//! | `dispatchEvent T E` | `T.dispatchEvent(E)`, its boolean result: E may be an event made by `new`, one being dispatched (Node throws ERR_EVENT_RECURSION), or any other value (ERR_INVALID_ARG_TYPE) |
//! | `composedPath E` | `E.composedPath()`: an array, `[target]` while E is being dispatched |
//! | `set E.returnValue V` / `set E.cancelBubble V` | assigns an Event's writable attributes: a falsy `returnValue` prevents the default, a truthy `cancelBubble` stops propagation, and neither can be undone |
//!
//! TYPE is a word or a string. T may be an EventTarget or an AbortSignal.
//! An event's `timeStamp` is a time no two engines share: it may be read
//! only as `typeof E.timeStamp`.
//!
//! Arguments that Node validates may be values of any kind, so that a
//! scenario can check what Node refuses and how: the signal and the
//! listener of `addAbortListener`, the elements of `any [...]`, the
//! `signal` option of `on`, and the named listener of `on` and `off`,
//! which may also be a plain value: `null`, `undefined`, a string, a
//! number, a symbol or `{}` (an object without `handleEvent`, which Node
//! accepts and calls as nothing). Node's
//! errors are TypeErrors with a `code` (such as `ERR_INVALID_ARG_TYPE`) and
//! its exact message, `The "signal" argument must be an instance of
//! AbortSignal. Received type number (5)`; a `null` or `undefined` listener
//! is ignored, with a warning (see [The log](#the-log)). The operands of
//! `setMaxListeners` and `getMaxListeners` may be values of any kind too:
//! N must be a number from 0 up (`undefined` is the default), and a
//! target that is no EventTarget is refused with `The "eventTargets"
//! argument must be an instance of EventEmitter or EventTarget` (for
//! `getMaxListeners`, `"emitter"`). To read an error's
//! `code`, let an `async {` body throw it and read `reason.code` in its
//! `catch`.
//!
//! Event loop and promises:
//!
//! | operation | JavaScript |
//! |---|---|
//! | `microtask {` | `queueMicrotask(() => {...})` |
//! | `async {` | `(async () => {...})()`: runs the body at once, to its first `await`; the value is its promise, settled by `return`, the end of the body, or a throw |
//! | `await V` / `let x = await V` | only in the body of an async function and in its `try` and `repeat` blocks (not in another callback inside it): `await V`, which resumes the body a microtask after `Promise.resolve(V)` settles (ECMA-262 27.7.5.3), or throws its reason |
//! | `tick {` | `process.nextTick(() => {...})` |
//! | `setTimeout MS {` / `clearTimeout H` | timers on the virtual clock |
//! | `setInterval MS {` / `clearInterval H` | `setInterval(() => {...}, MS)`: fires every MS until cleared (`clearTimeout` clears it too); after each call it is due again MS later, behind the timers its callback made for the same moment |
//! | `unref H` / `ref H` | `H.unref()` / `H.ref()` on a timer: whether it keeps the loop alive (`run idle` ends when only unref'd timers are left); the value is the timer |
//! | `setImmediate {` / `clearImmediate H` | immediates |
//! | `process off uncaughtException` | from here on, the engine's `process.on('uncaughtException')` handler is gone: the next uncaught exception ends the process with exit code 1 (logged as `exit 1 after uncaught <value>`), and nothing after it runs |
//! | `process off unhandledRejection` | from here on, no `process.on('unhandledRejection')` listener: Node's default mode raises each unhandled rejection as an uncaught exception whose origin is `unhandledRejection` (an error-like reason itself, any other in an `UnhandledPromiseRejection`, code `ERR_UNHANDLED_REJECTION`) |
//! | `promise` | a new pending promise whose resolving functions the script keeps |
//! | `withResolvers` | `Promise.withResolvers()`: a record whose `promise` works with `resolve` and `reject` as a `promise`'s does (`resolve R.promise V`), and whose `resolve` and `reject` are its functions |
//! | `resolve P [V]` / `reject P [V]` | call P's resolving functions |
//! | `then P [{ ... }] [else { ... }]` | `P.then(value => {...}, reason => {...})` |
//! | `catch P {` / `finally P {` | `P.catch(...)`, `P.finally(...)` |
//! | `resolved V` / `rejected V` | `Promise.resolve(V)`, `Promise.reject(V)` |
//! | `thenable V` | `{ then(resolve) { resolve(V); } }` |
//! | `thenable V {` | `{ then(resolve) { ...; resolve(V); } }`: the body runs inside `then`, with the thenable as `this`, before it resolves (a log shows the tick on which the engine calls `then`); a throw from it rejects |
//! | `all [V1, V2, ...]` | `Promise.all([V1, V2, ...])`: fulfils with an array of the values |
//! | `allSettled [...]` | `Promise.allSettled([...])`: fulfils with an array of `{ status, value }` and `{ status, reason }` records |
//! | `race [...]` | `Promise.race([...])` |
//! | `promiseAny [...]` | `Promise.any([...])` (`any` is `AbortSignal.any`): rejects with an `AggregateError` whose `errors` is the array of reasons |
//!
//! The values of a combinator's list may be of any kind: promises, thenables
//! and plain values alike go through `Promise.resolve`, as in JavaScript.
//!
//! `ruler N` (1 to [`MAX_RULER`](limits::MAX_RULER)) is a microtask ruler:
//! `Promise.resolve().then(() => log t1).then(() => log t2)` ... up to `tN`,
//! so the line `tK` comes on the K-th microtask job from the statement, and
//! a log shows on which tick anything else happened. Two rulers started
//! at the same point interleave their marks.
//!
//! Streams:
//!
//! | operation | JavaScript |
//! |---|---|
//! | `readable [highWaterMark N] [start {] ... [} pull {] ... [} cancel {] ... }` | `new ReadableStream({ start(controller) {...}, pull(controller) {...}, cancel(reason) {...} }, { highWaterMark: N })`: each method optional, in this order, each `}` followed on its line by the next method; `readable` alone is a stream without a source. N is a number from 0 up (the default is 1). What a method `return`s is what the stream waits on: a promise a later statement settles, or any value |
//! | `enqueue C V`, `close C`, `error C V` | `C.enqueue(V)`, `C.close()`, `C.error(V)` on the stream's ReadableStreamDefaultController |
//! | `getReader S` | `S.getReader()`: a ReadableStreamDefaultReader |
//! | `read R` | `R.read()`: a promise of `{ value, done }`, whose `value` and `done` are readable (`then (read r)` is written `let p = read r` then `then p {`) |
//! | `releaseLock R` | `R.releaseLock()` |
//! | `cancel S [V]`, `cancel R [V]` | `S.cancel(V)` on a stream, `R.cancel(V)` on a reader: a promise |
//! | `let [A, B] = tee S` (a statement) | `const [A, B] = S.tee()`: the two branches, each a ReadableStream; S is locked from then on |
//!
//! | `readable ... size { ... }` (after `highWaterMark N`, before `start`) | the strategy's `size(chunk)`; so too for `writable` |
//! | `writable [highWaterMark N] [size {] ... [} start {] ... [} write {] ... [} close {] ... [} abort {] ... }` | `new WritableStream({ start(controller) {...}, write(chunk, controller) {...}, close() {...}, abort(reason) {...} }, { highWaterMark: N, size(chunk) {...} })` |
//! | `getWriter W` | `W.getWriter()`: a WritableStreamDefaultWriter |
//! | `write X V` | `X.write(V)` on a writer: a promise |
//! | `close X`, `abort X [V]` on a writer or a WritableStream | `X.close()`, `X.abort(V)`: promises (`close` of a stream controller and `abort` of an AbortController keep their meaning) |
//! | `releaseLock X` on a writer | `X.releaseLock()` |
//! | `error C V` on a WritableStreamDefaultController | `C.error(V)` |
//! | `transform [writableHighWaterMark N] [readableHighWaterMark N] [start {] ... [} transform {] ... [} flush {] ... [} cancel {] ... }` | `new TransformStream({ start(controller) {...}, transform(chunk, controller) {...}, flush(controller) {...}, cancel(reason) {...} }, { highWaterMark: W }, { highWaterMark: R })` |
//! | `enqueue C V`, `error C V`, `terminate C` on a TransformStreamDefaultController | `C.enqueue(V)`, `C.error(V)`, `C.terminate()` |
//! | `pipeTo S W [preventClose] [preventAbort] [preventCancel] [signal G]` | `S.pipeTo(W, { preventClose: true, ..., signal: G })`: a promise; the options in this order |
//! | `pipeThrough S T [options as for pipeTo]` | `S.pipeThrough(T, {...})` with a TransformStream: its readable side |
//! | `from [V, ...]`, `from async [V, ...]` | `ReadableStream.from([V, ...])`; over `(async function* () { yield V; ... })()` |
//! | `values S [preventCancel]` | `S.values({ preventCancel: true })`: the stream's async iterator, as `for await` gets it |
//! | `next I`, `iterReturn I [V]` | `I.next()`, `I.return(V)` of a stream's iterator or of `onEvents`: promises of `{ value, done }` (`for await` with `break` is `next` ... then `iterReturn`) |
//! | `bytes [B, ...]`, `bytes N` | `new Uint8Array([B, ...])` (bytes from 0 to 255), `new Uint8Array(N)` (N up to 4096) |
//! | `subarray V START [END]` | `V.subarray(START, END)`, whole-number indices |
//! | `readable bytes [highWaterMark N] [autoAllocateChunkSize N] [start {] ... [} pull {] ... [} cancel {] ... }` | `new ReadableStream({ type: "bytes", autoAllocateChunkSize: N, ... })`: `controller` is a ReadableByteStreamController, whose `enqueue`, `close` and `error` are written as above |
//! | `getReader S byob` | `S.getReader({ mode: "byob" })`: a ReadableStreamBYOBReader |
//! | `read R V [min N]` on a BYOB reader | `R.read(V, { min: N })`: a promise of `{ value, done }` |
//! | `respond Q N`, `respondWithNewView Q V` | `Q.respond(N)`, `Q.respondWithNewView(V)` on a ReadableStreamBYOBRequest |
//!
//! EventEmitter (Node's `lib/events.js`):
//!
//! | operation | JavaScript |
//! |---|---|
//! | `emitter` | `new EventEmitter()` |
//! | `emitter captureRejections` | `new EventEmitter({ captureRejections: true })`: a listener's result that is a promise gets a rejection handler (`addCatch`), which on a rejection queues a `process.nextTick` that calls E's `Symbol.for('nodejs.rejection')` method when it is a function, with E as `this` and `(err, NAME, ...args)`, and else emits `'error'` with the reason, with the capture off meanwhile (no `'error'` listener: an uncaught exception); a thenable's `then` is called with `(undefined, handler)`, and what it throws is emitted as `'error'` at once |
//! | `onRejection E F` | `E[Symbol.for('nodejs.rejection')] = F`, whose value is F (any value: only a function is called) |
//! | `addListener E NAME F` / `addListener E NAME {` | `E.on(NAME, F)`, returns E; an inline listener's body sees its first two arguments as `arg1` and `arg2` and the emitter as `this`; a `fn` listener sees the first as `event` |
//! | `prependListener E NAME F`, `once E NAME F`, `prependOnceListener E NAME F` | the same methods of E |
//! | `removeListener E NAME F` | `E.removeListener(NAME, F)`, returns E |
//! | `removeAllListeners E [NAME]` | `E.removeAllListeners(NAME)`, returns E |
//! | `emit E NAME [ARG ...]` | `E.emit(NAME, ARG, ...)`: whether NAME had listeners; an `"error"` without listeners throws |
//! | `listenerCount E NAME [F]` | `E.listenerCount(NAME, F)` |
//! | `eventNames E` | `E.eventNames()` |
//! | `listeners E NAME` / `rawListeners E NAME` | `E.listeners(NAME)` / `E.rawListeners(NAME)` (the `once` wrappers) |
//! | `errorMonitor` (a value) | `events.errorMonitor`: a symbol, usable as NAME; `emit E "error" ...` first emits to its listeners, with the same arguments, and then to the `'error'` listeners of the `_events` object it read before (or throws when that object has none) |
//! | `defaultMaxListeners` (a value) | `events.defaultMaxListeners`: 10 at the start of every scenario |
//! | `setDefaultMaxListeners N` | `events.defaultMaxListeners = N`, whose value is N: a number from 0 up (`Infinity` too), else Node's ERR_INVALID_ARG_TYPE or ERR_OUT_OF_RANGE (negative, `NaN`); emitters without a maximum of their own read it whenever a listener is added, an EventTarget copies it when it is made (an AbortSignal has no maximum whatever it is) |
//! | `eventsKeyCount E` | `Object.keys(E._events).length`: how many string keys E's `_events` object holds (names without listeners would be a leak) |
//! | `onceEvent E NAME [signal S]` | `events.once(E, NAME, { signal: S })`: a promise of the array of the arguments of E's next emit of NAME; an `'error'` emitted first rejects it (unless NAME is `"error"`), and so does S's abort, with an `AbortError` (code `ABORT_ERR`); S may be any value, which `events.once` validates into a rejection (it is an async function). Its listeners are `once` listeners of E, and a resisting `once` abort listener of S |
//! | `onEvents E NAME [signal S] [close C] [highWaterMark H] [lowWaterMark L]` | `events.on(E, NAME, { signal: S, close: [C], highWaterMark: H, lowWaterMark: L })` (the options present, in this order): an async iterator of E's emits of NAME, read with `next` and `iterReturn` (as a stream's iterator); it adds a listener of NAME and, unless NAME is `"error"`, one of `'error'` (with E's `on`), and an abort listener of S (`addAbortListener`). An emit with no `next()` waiting is queued; `next I` is a promise of `{ value, done }` whose value is the array of one emit's arguments: already fulfilled when an emit is queued, else fulfilled by the next emit. An `'error'` rejects the first waiting `next()` (or the next one, once, when none waits and the error is truthy) and closes the iterator, and so does S's abort, with an `AbortError`. `iterReturn I [V]` closes it (V is ignored): its listeners go, the last added first, every waiting `next()` resolves `{ value: undefined, done: true }` (one object), and so does its promise and every later `next`. An emit of C closes it as `iterReturn` does. Past H emits queued, `events.on` calls `E.pause()`, which an EventEmitter does not have: that emit throws a TypeError (the event counted, not queued), and once the count falls below L (1 by default) each `next` throws for the missing `resume()`; H and L are validated as integers from 1 (null and undefined are the defaults). `events.on` is no async function: an aborted S throws an `AbortError` at the call, and an S that is no AbortSignal (but undefined) ERR_INVALID_ARG_TYPE |
//! | `iterThrow I V` | `I.throw(V)` of an `onEvents` iterator: undefined; an Error V rejects the first waiting `next()` (or the next one) and closes the iterator, as an `'error'` does; any other V is ERR_INVALID_ARG_TYPE |
//!
//! NAME is any value: a string or a symbol names an event. A scenario
//! that sets `events.defaultMaxListeners` changes it for itself only: every
//! engine starts the next scenario at 10 (real Node's prelude restores it).
//! `setMaxListeners
//! N E` and `getMaxListeners E` (above) work on emitters as
//! `events.setMaxListeners` and `events.getMaxListeners` do; an emitter
//! warns once per event name past its maximum (`MaxListenersExceededWarning:
//! Possible EventEmitter memory leak detected. 11 x listeners added to
//! [EventEmitter]. MaxListeners is 10. Use emitter.setMaxListeners() to
//! increase limit`).
//!
//! Async context (`node:async_hooks`). Every tick, microtask, promise
//! reaction (made by `then` or `await`), timer, interval, immediate and
//! `timeout` signal's timer runs in the async context frame that was
//! current when it was made; EventTarget and EventEmitter listeners run in
//! the frame of the code that dispatches or emits; the main script goes on
//! after a `run` in the frame it left:
//!
//! | operation | JavaScript |
//! |---|---|
//! | `als [default V]` | `new AsyncLocalStorage()`, or `new AsyncLocalStorage({ defaultValue: V })` |
//! | `getStore A` | `A.getStore()` |
//! | `enterWith A V` | `A.enterWith(V)` |
//! | `alsRun A V {` | `A.run(V, () => {...})`: the callback's value (its `this` is `null`, as Node calls it) |
//! | `alsExit A {` | `A.exit(() => {...})` |
//! | `disable A` | `A.disable()`: deletes A's entry from the current frame object, which the tasks queued in that frame share |
//! | `bind F` | `AsyncLocalStorage.bind(F)`: a function that calls F in the frame of now |
//! | `snapshot` | `AsyncLocalStorage.snapshot()`: a function that calls its first argument with the others, in the frame of now |
//! | `call F [ARG ...]` | `F(ARG, ...)`: F's value |
//! | `asyncResource TYPE` | `new AsyncResource(TYPE)`: it keeps the frame of now |
//! | `runInAsyncScope R {` | `R.runInAsyncScope(() => {...})`: the callback's value |
//! | `bind R F` | `R.bind(F)` |
//! | `emitDestroy R` | `R.emitDestroy()`, which returns R |
//! | `native MS [resource] {` / `native MS [resource] F` | a native call into JavaScript: a libuv timer due in MS (taking its turn among the timers as a `setTimeout MS` made now would) calls the callback through `node::MakeCallback`, with no async context frame, or with `resource` through a `node::AsyncResource` made now, in the frame it saved; the callback scope's close drains the ticks, then the microtasks (a callback that throws is reported as uncaught and its scope drains nothing: what it queued waits for the next drain). The Node engine calls the real functions from a small addon built against the Node binary's headers (`harness/native/`) |
//!
//! Garbage collection:
//!
//! | statement or operation | JavaScript |
//! |---|---|
//! | `drop NAME` (a statement) | `NAME = undefined`: the binding no longer holds its object (a later read gives `undefined`) |
//! | `gc` (a statement) | `gc()`, a full collection (Node runs with `--expose-gc`): every object nothing reachable holds is collected |
//! | `watch V` (a statement) | the engine keeps `new WeakRef(V)` labelled with V as written (`watch a.signal`); V must be an object (V8's `TypeError: WeakRef: invalid target`) |
//! | `alive` (a statement) | one log line: `alive` and the labels of the watched objects not collected yet, in the order of their `watch` |
//! | `weakref V` | `new WeakRef(V)` |
//! | `deref W` | `W.deref()`: the target, or `undefined` once it was collected |
//! | `registry {` / `registry F` | `new FinalizationRegistry(held => { ... })`: the body sees `held` |
//! | `register R T H [token K]` | `R.register(T, H, K)`: when T is collected, the cleanup callback gets H |
//! | `unregister R K` | `R.unregister(K)`: whether a cell was removed |
//! | `dependants S` | the size of the signal's set of dependant signals, as Node's internal `S[kDependantSignals]?.size ?? 0` reads it: the composites of `AbortSignal.any()` that follow S, a collected one counted until Node's cleanup removes it |
//!
//! When a collection can free what, and when cleanups run, is Node
//! 26.12.1's behaviour, measured (`harness/js/NODE_GC_FACTS.md`):
//!
//! - A WeakRef's target that was made or deref'd in a job (`new WeakRef`,
//!   `deref`, `watch`, `alive`, and Node's own derefs, such as an abort's
//!   walk of its dependants) survives every `gc` until the end of the
//!   current microtask checkpoint (ECMA-262 AddToKeptObjects; V8 clears the
//!   list when a checkpoint ends): a `gc` in the same callback, its ticks
//!   or its microtasks does not free it; one in a later timer or
//!   immediate does.
//! - A FinalizationRegistry's cleanup is a macrotask of its own in the
//!   loop's poll phase, after the timers phase, before the immediates: all
//!   the callbacks of one registry back to back, the most recently
//!   registered first, then the ticks, then the microtasks they queued. A
//!   cleanup callback that throws is `uncaught`, and the registry's other
//!   cells are cleaned up after it. A registry that is collected calls
//!   nothing. Cells with a token are cleaned up in an order V8 does not
//!   fix, and so are two registries with cells freed by one `gc`: the
//!   engines run them in registration order, and a scenario whose log
//!   depends on that order is not deterministic on Node.
//! - In a scenario that collects garbage, each statement that evaluates
//!   operands (`let`, a bare operation, `log`, `watch`, a `tee`, an `if`'s
//!   condition; not `await`) runs in a JavaScript arrow function of its
//!   own, so that what it evaluated dies with it: V8 scans a running
//!   function's registers whole, and a value a statement used would
//!   otherwise stay alive until its callback returns.
//! - A function keeps the bindings of the scopes around it that some
//!   function made in the same scope reads, the statements' own arrow
//!   frames included (V8's contexts: every closure of a scope shares
//!   one), not those of a `try`, `if` or `repeat` block no closure of
//!   which is alive. The main script's bindings are all kept while the
//!   script can still run.
//! - Node keeps some signals alive without a script reference: a timeout
//!   signal with abort listeners until it fires, an `AbortSignal.any()`
//!   composite with abort listeners while a source can still abort, and
//!   the timeouts given to `any()`.
//!
//! The source's `start` and `pull` bodies see `controller`, the stream's
//! controller; `cancel` sees `reason`. (As an operation, `let c =
//! controller` is still `new AbortController()`; only as an operand, or
//! followed by a property (`let q = controller.byobRequest`), does
//! `controller` name the stream's.) A read result prints as `{value: a,
//! done: false}`, a stream as `[ReadableStream]`, an async iterator as
//! `[ReadableStream AsyncIterator]`, a Uint8Array as `Uint8Array(1, 2, 3)`
//! (its bytes; none once its buffer is detached, as `enqueue` detaches
//! it).
//!
//! ## The log
//!
//! One observable event per line. Values print as: strings without quotes;
//! numbers, booleans, `undefined`, `null` and symbols as JavaScript's
//! `String()` (`0` for -0, `5e-7` in exponent notation below 1e-6); an
//! Error or DOMException as `Name: message`; an Event as `Event(type)`; a
//! function as `[Function]`; an array as `Array(a, b)` and a record of
//! `allSettled` as `{status: fulfilled, value: v}` or `{status: rejected,
//! reason: r}`, their contents two levels deep (deeper ones print as
//! `[Array]` and `[Object]`); any other object as `[Tag]` after its
//! `Symbol.toStringTag` (`[AbortSignal]`, `[EventTarget]`, `[Promise]`,
//! `[Object]`). Besides the script's own `log` lines, engines print:
//!
//! - `caught <value>` for an exception stopped by `try`;
//! - `uncaught <value>` for an exception that reaches
//!   `process.on('uncaughtException')`, `uncaught <value> from
//!   unhandledRejection` when its `origin` argument says it came from a
//!   promise (only after `process off unhandledRejection`);
//! - `exit 1 after uncaught <value>` (with the same `from` suffix) once,
//!   for the uncaught exception that ends the process after `process off
//!   uncaughtException`: the run stops there;
//! - `unhandled rejection <value>` for `process.on('unhandledRejection')`;
//! - `rejection handled [Promise]` for `process.on('rejectionHandled')`: a
//!   rejection reported as unhandled got a handler later (Node emits it at
//!   the end of a later drain, before that drain's own unhandled ones);
//! - `warning <Name>: <message>` for `process.on('warning')`. Node's
//!   `process.emitWarning` emits the event from a `process.nextTick`
//!   queued where the warning arose: the line comes where a `tick { log
//!   ... }` written at that point would log. Two warnings exist in
//!   scenarios:
//!   `MaxListenersExceededWarning: Possible EventTarget memory leak
//!   detected. 11 foo listeners added to EventTarget. MaxListeners is 10.
//!   Use events.setMaxListeners() to increase limit` when adding a listener
//!   takes Node's count of one type's listeners past the target's maximum
//!   (once per target, whatever the type, until `setMaxListeners` sets a
//!   maximum again; an AbortSignal is written `[AbortSignal]`, and has no
//!   maximum until it is given one; the listeners of the `signal` option,
//!   of `addAbortListener` and of `onabort` count), and
//!   `AddEventListenerArgumentTypeWarning: addEventListener called with
//!   null which has no effect.` (or `undefined`) for `on T TYPE null`;
//! - `budget exhausted: ...` once, when a scenario runs more than
//!   [`RunConfig::budget`] callbacks, nests them deeper than
//!   [`RunConfig::max_depth`], does more than [`RunConfig::work`] steps of
//!   work (each body pays for its statements when it is called, see
//!   [`statement_cost`]; a listener-list walk pays for the listeners it can
//!   visit; `any` for the signals it flattens) or would log more than
//!   [`RunConfig::max_log_bytes`]; the scenario then stops, at the same
//!   point in every engine.
//!
//! A logged value never breaks its line: a line break in a string or an
//! error message is logged as the escape `\n` (or `\r`).
//!
//! ## Limits
//!
//! Scenario text is untrusted input, so the parser enforces static limits,
//! defined (with their reasons) in [`limits`]. Each one crossed is a
//! diagnostic with its file, line and column, reported with the file's
//! other errors; no input makes the parser, the printer or an engine
//! overflow its stack.
//!
//! | limit | value | what crosses it |
//! |---|---|---|
//! | [`MAX_SOURCE_BYTES`](limits::MAX_SOURCE_BYTES) | 1 MiB | a larger file: refused with one diagnostic where the limit is crossed, before it is lexed |
//! | [`MAX_NESTING`](limits::MAX_NESTING) | 32 | a block deeper than that (the main script is depth 0, a callback in it depth 1): reported at its `{`, its body skipped |
//! | [`MAX_PROPERTY_CHAIN`](limits::MAX_PROPERTY_CHAIN) | 8 | more property reads in one expression, as in `x.name.name...` |
//! | [`MAX_LIST`](limits::MAX_LIST) | 256 | more values in one `log`, or signals in one `any [...]` |
//! | [`MAX_TEMPORARY_DEPTH`](limits::MAX_TEMPORARY_DEPTH) | 2 | an `any [...]` temporary inside one: `any [any [any [a]]]` |
//! | [`MAX_SAFE_INTEGER`](limits::MAX_SAFE_INTEGER) | 2^53 - 1 | an integer literal outside ±`Number.MAX_SAFE_INTEGER`, where JavaScript would round it |
//!
//! The run-time budgets (callbacks, callback nesting, work and log bytes)
//! are in [`RunConfig`] and capped by the other constants of [`limits`].
//! The generators of [`gen`] stay within every static limit.
//!
//! ## The event loop
//!
//! The main script runs as the first macrotask. After every macrotask the
//! engine runs all `process.nextTick` callbacks, then all microtasks,
//! repeated until both queues are empty, as Node does. A loop iteration is a
//! timers phase (every timer due at the current virtual time, in deadline
//! then creation order; a delay of 0 counts as 1 ms) followed by a check
//! phase (the immediates queued before it began). When nothing is runnable,
//! the clock jumps to the next timer's deadline. The loop stops when no
//! immediate and no ref'd timer is pending; `AbortSignal.timeout` timers are
//! unref'd, as in Node.
//!
//! By default the main script is a CommonJS module, and that first drain
//! runs its ticks before its microtasks. With `use module` it is an ES
//! module, as `node main.mjs` runs it, and the order is the other way
//! round: Node evaluates an ES module inside a promise job of its loader
//! (`ModuleJob.run` awaits `module.evaluate()`,
//! <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/modules/esm/module_job.js#L558-L575>),
//! so the microtasks the main script queues run in the same microtask
//! checkpoint, microtasks they queue included, and only then does the
//! usual drain begin with the ticks. A main script that queues a tick and
//! a microtask logs the microtask first. An exception at an ES module's top
//! level reaches `uncaughtException` only after it has travelled through
//! the loader's `await`s, in the fourth of a chain of microtask jobs that
//! begins at the throw on Node 26 (the third on Node 20), so the
//! microtasks queued before the throw, and the first ones they queue, run
//! before the `uncaught` line; the rest of the main script never runs. Only
//! the first part of the main script, up to its first `run`, is the
//! module's evaluation; the parts after a `run` are macrotasks like any
//! other in both kinds. `await` at the top level (top-level await) is not
//! part of the language.

pub mod ast;
pub mod engine;
pub mod gen;
pub mod gen_async;
pub mod gen_emitter;
pub mod gen_gc;
pub mod gen_streams;
pub mod limits;
pub mod parser;
pub mod printer;
pub mod resolve;
pub mod syntax;

pub use ast::{emitter_add_form, number_to_string, write_number, EMITTER_ADD_FORMS};
pub use ast::{
    Binding, Block, BuiltinError, BytesInit, Callback, Class, Combinator, Directive,
    EventAttribute, Expr, Handler, ListenerOptions, Number, Op, PipeOptions, Place, ProcessEvent,
    RunMode, Scenario, Stmt, Strategy, Temporary,
};
pub use engine::{statement_cost, Engine, EngineError, Log, RunConfig};
pub use parser::{parse, parse_bytes, validate, Diagnostic, Kind, ParseError};
pub use printer::print;
pub use resolve::resolve;
