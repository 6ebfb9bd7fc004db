// Why this file exists: it is the runtime that scenario bodies emitted by nodesem's JavaScript
// emitter run on inside real Node.js (the oracle). It provides `createScenario(options)`, which
// returns the `$` object the bodies use: logging with a stable value format, callback budgets,
// promise helpers, and a virtual clock plus event-loop driver (timers, immediates,
// AbortSignal.timeout) whose phases mirror nodesem's Rust runtime. A whole scenario runs inside
// one real setImmediate callback, and after every virtual macrotask the driver calls Node's own
// runNextTicks() so that real Node drains nextTicks and microtasks exactly as after a real timer.
//
// The file is used two ways and must work in both:
//  - inlined at the top of a standalone ESM file (`nodesem emit-js`), followed by
//    `const $ = createScenario({ print: (line) => console.log(line) });`, the body and `$.start();`
//    (for a `use module` scenario: `$.startModule();`, then the body, whose first part is the
//    module's own top-level code, in `if ($.evaluate(cost)) { ...; $.evaluated(); }`)
//  - loaded with require() by harness/js/server.js (batch mode).
// It therefore declares exactly one top-level name, `createScenario`, uses no `require` (internal
// modules come from process.getBuiltinModule) and exports through `module` only when it exists.
// Run with `--expose-internals` (needed by the driver and $.timeoutSignal), `--expose-gc` and
// `--stack-trace-limit=0` (see NODE_FLAGS in harness/src/emit.rs).
//
// Garbage collection (`gc`, `watch`, `alive`, WeakRef, FinalizationRegistry): nothing here holds a
// scenario's object strongly once the scenario no longer does (callbacks of timers and immediates
// that ran or were cleared are let go, the log holds strings, per-object side tables are WeakMaps,
// `watch` keeps only a WeakRef, $.timeoutSignal holds its signal only as Node does, through the
// WeakRef its real timer closes over). A FinalizationRegistry's cleanup runs on real Node only when
// the real event loop turns (a V8 platform task of the poll phase, one registry per real loop
// iteration, harness/js/NODE_GC_FACTS.md §2, §5): after a `$.gc()`, the driver suspends at the
// virtual loop's poll phase and continues from fresh real setImmediate callbacks ("hops"), enough
// of them for every pending registry, Node's internal ones included, to have run before the
// virtual check phase, as the Rust runtime's cleanup_phase runs every dirty registry there.

const createScenario = (() => {
  'use strict';

  // The real collector of `node --expose-gc` (the global `gc`), looked up once.
  const realGc = typeof gc === 'function' ? gc : undefined;

  // How many real loop turns the driver lets pass at a virtual poll phase after a `$.gc()`, besides
  // one per registry the scenario made: each turn runs at most one dirty registry's cleanup task,
  // and Node's own registries (abort_controller's three, event_target's weak listeners) queue in
  // the same line (NODE_GC_FACTS.md §5). A gc or an uncaught exception during the turns (a
  // cleanup that collects again, or one whose callback threw: its registry's other cells come in
  // a later task) starts the count again.
  const POLL_HOPS = 6;

  // ---- process-wide state, shared by every scenario of this process ----------------------------

  // The scenario now running; process-level events are routed to it and to nothing else.
  let current = null;
  let anyScenarioStarted = false;
  let handlersInstalled = false;

  // The scenario's view of process 'unhandledRejection'. `process off unhandledRejection` really
  // removes it for the scenario's run, so that Node's default mode raises each unhandled
  // rejection as an uncaught exception from a promise, as in a program that never listened.
  function onUnhandledRejection(reason) {
    if (current !== null) current.log('unhandled rejection', reason);
  }

  // The virtual timer and immediate handles a script holds are of classes named as Node's
  // (lib/internal/timers.js Timeout, lib/timers.js Immediate), so that `constructor.name` and
  // Node's validators ("an instance of Timeout") read as they do on real handles.
  // Like Node's own Timeout and Immediate (lib/internal/timers.js), a virtual one keeps the async
  // context frame current when it was made; the driver runs its callback in that frame.
  class Timeout {
    constructor(deadline, seq, fn, ref) {
      this.kind = 'timeout';
      this.deadline = deadline;
      this.seq = seq;
      this.fn = fn;
      this.ref = ref;
      this.active = true;
      this.frame = currentFrame();
    }
  }
  class Immediate {
    constructor(fn) {
      this.kind = 'immediate';
      this.fn = fn;
      this.active = true;
      this.frame = currentFrame();
    }
  }

  // The async context frame (V8's continuation-preserved embedder data, which AsyncLocalStorage
  // reads): internal/async_context_frame, present from Node 24 on.
  function currentFrame() {
    const { contextFrame } = getAsyncState();
    return contextFrame === undefined ? undefined : contextFrame.current();
  }
  function exchangeFrame(frame) {
    const { contextFrame } = getAsyncState();
    return contextFrame === undefined ? undefined : contextFrame.exchange(frame);
  }
  function setFrame(frame) {
    const { contextFrame } = getAsyncState();
    if (contextFrame !== undefined) contextFrame.set(frame);
  }

  // The native-callback addon (harness/native/nodesem_callbacks.cc), loaded on first use from the
  // path the node engine gives its workers in NODESEM_ADDON.
  let addon;
  function getAddon() {
    if (addon === undefined) {
      const path = process.env.NODESEM_ADDON;
      if (typeof path !== 'string' || path === '') {
        throw new Error('nodesem prelude: native callbacks need the nodesem_callbacks addon (NODESEM_ADDON is not set)');
      }
      const mod = { exports: {} };
      process.dlopen(mod, path);
      addon = mod.exports;
    }
    return addon;
  }

  function installProcessHandlers() {
    if (handlersInstalled) return;
    handlersInstalled = true;
    // A reader that stops reading (`| head`) ends the program quietly instead of turning every
    // further log line into an EPIPE exception.
    process.stdout.on('error', (error) => {
      if (error && error.code === 'EPIPE') process.exit(0);
    });
    process.on('uncaughtException', (error, origin) => {
      if (current !== null) {
        current.uncaught(error, origin);
      } else if (anyScenarioStarted) {
        // A late exception of a finished (budget-stopped) scenario: real Node would report it in
        // that scenario, whose log is already closed. It belongs to no other scenario.
      } else {
        // Not a scenario's exception (the prelude itself failed): say so and fail.
        process.stderr.write(`${error && error.stack ? error.stack : String(error)}\n`);
        process.exitCode = 1;
      }
    });
    process.on('unhandledRejection', onUnhandledRejection);
    // A rejection reported as unhandled that got a handler since (Node's processPromiseRejections).
    process.on('rejectionHandled', (promise) => {
      if (current !== null) current.log('rejection handled', promise);
    });
    // process.emitWarning(w) emits 'warning' from a process.nextTick queued where it was called
    // (lib/internal/process/warning.js): the scenario's MaxListenersExceededWarning and
    // AddEventListenerArgumentTypeWarning, logged as `warning Name: message` (Runtime::emit_warning).
    // Node's own listener still prints them to stderr, which the worker protocol does not read.
    process.on('warning', (warning) => {
      if (current !== null) current.log('warning', warning);
    });
  }

  // Node's clamp for timer durations (lib/internal/timers.js, class Timeout): anything outside
  // [1, TIMEOUT_MAX] becomes 1. (Node also prints a warning for some cases; we do not.)
  const TIMEOUT_MAX = 2 ** 31 - 1;
  function clampDelay(ms) {
    const after = ms * 1;
    return after >= 1 && after <= TIMEOUT_MAX ? after : 1;
  }

  // AbortSignal.timeout support. Each virtual timeout signal owns a real Node timer created with
  // a huge, currently unused delay (BASE + slot), so that its internal timer list holds exactly
  // that one Timeout and we can find it. Slots are reused once released so that Node's
  // timerListMap stays small in a long-lived server process. BASE + slot must stay <= TIMEOUT_MAX
  // (above it Node would clamp the real timer to 1 ms).
  const TIMEOUT_SLOT_BASE = 2_000_000_000;
  const freeSlots = [];
  let nextSlot = 0;
  function acquireSlot() {
    if (freeSlots.length > 0) return freeSlots.pop();
    if (TIMEOUT_SLOT_BASE + nextSlot >= TIMEOUT_MAX) throw new Error('nodesem prelude: too many live timeout signals');
    return nextSlot++;
  }
  function releaseSlot(slot) { freeSlots.push(slot); }

  let internalTimers;
  function getInternalTimers() {
    if (internalTimers === undefined) {
      let mod;
      try { mod = process.getBuiltinModule('internal/timers'); } catch { mod = undefined; }
      if (mod == null || typeof mod.timerListMap !== 'object') {
        throw new Error('nodesem prelude: $.timeoutSignal needs Node internals; run node with --expose-internals');
      }
      internalTimers = mod;
    }
    return internalTimers;
  }

  // Node's own drain between two macrotasks: run the nextTick queue, the microtask queue and the
  // unhandled rejections (runNextTicks in lib/internal/process/task_queues.js). setupTaskQueue()
  // re-installs the same tick and rejection callbacks Node installed at startup and returns it.
  let runNextTicks;
  function getRunNextTicks() {
    if (runNextTicks === undefined) {
      let mod;
      try { mod = process.getBuiltinModule('internal/process/task_queues'); } catch { mod = undefined; }
      if (mod == null || typeof mod.setupTaskQueue !== 'function') {
        throw new Error('nodesem prelude: the event loop driver needs Node internals; run node with --expose-internals');
      }
      runNextTicks = mod.setupTaskQueue().runNextTicks;
      installTickCallback();
    }
    return runNextTicks;
  }

  // The drain that closes a real callback scope. Node's InternalCallbackScope::Close (src/api/
  // callback.cc) runs a microtask checkpoint when no tick is scheduled, then, when ticks or
  // rejections are pending, calls the tick callback, processTicksAndRejections. The prelude
  // installs its own tick callback, which is runNextTicks (the same drain: with a tick or a
  // rejection pending it calls processTicksAndRejections), except at the close of the driver's
  // own real callback when it suspends for poll-phase hops (`skipOwnClose`): a real program has
  // no such callback, so the ticks and microtasks an interrupted drain left must not run there.
  // They run, as in a real program, after the next macrotask (the virtual check phase's), or in
  // the callback scope of a FinalizationRegistry cleanup task (a V8 platform task that Node runs
  // in an InternalCallbackScope of its own; NODE_GC_FACTS.md §8), whose close is not skipped.
  // `tickInfo[kHasTickScheduled]` is set before such a close so that Close calls the tick
  // callback instead of running the checkpoint itself. Without the binding (a Node whose
  // internals differ) the hops drain as before.
  let tickInfo = null;
  let skipOwnClose = false;
  function tickCallback() {
    if (skipOwnClose) {
      skipOwnClose = false;
      return;
    }
    runNextTicks();
  }
  function installTickCallback() {
    let binding;
    const emitWarning = process.emitWarning;
    try {
      // internal/test/binding warns "These APIs are for internal testing only" from a nextTick,
      // which would reach the scenario's log; the warning is not the scenario's.
      process.emitWarning = () => {};
      binding = process.getBuiltinModule('internal/test/binding').internalBinding('task_queue');
    } catch {
      binding = undefined;
    } finally {
      process.emitWarning = emitWarning;
    }
    if (binding == null || typeof binding.setTickCallback !== 'function' || binding.tickInfo == null) return;
    binding.setTickCallback(tickCallback);
    tickInfo = binding.tickInfo;
  }

  // Makes the close of the real callback now running (the driver's, about to return for a hop)
  // drain nothing, and takes out of Node's immediate queues the real `setImmediate(noop)` that
  // Node queues after its handler handled an uncaught exception (lib/internal/process/
  // execution.js): the prelude's virtual noop immediate stands for it (see `uncaught`), and the
  // real one, running between two hops or after the driver's callback in the same batch (where
  // processImmediate calls runNextTicks() before it), would be a drain point a real program
  // does not have. `running` is the real Immediate whose callback is the driver's.
  function suspendOwnClose(running) {
    if (tickInfo === null) return;
    clearRealNoops(running);
    skipOwnClose = true;
    tickInfo[0] = 1; // kHasTickScheduled: Close calls tickCallback, which skips this one drain
  }
  function isNodeNoop(immediate) {
    const fn = immediate._onImmediate;
    return typeof fn === 'function' && fn.name === 'noop' && immediate._argv === undefined
      && Function.prototype.toString.call(fn) === 'function noop() {}';
  }
  function clearRealNoops(running) {
    const found = [];
    // The rest of the batch processImmediate is running (detached from immediateQueue), then
    // the immediates queued since.
    for (let im = running == null ? null : running._idleNext; im != null; im = im._idleNext) {
      if (isNodeNoop(im)) found.push(im);
    }
    for (let im = getInternalTimers().immediateQueue.head; im != null; im = im._idleNext) {
      if (isNodeNoop(im)) found.push(im);
    }
    for (let i = 0; i < found.length; i++) clearImmediate(found[i]);
  }

  // Node's async id stack and async context frame, restored after a nextTick callback threw
  // out of runNextTicks().
  let asyncState;
  function getAsyncState() {
    if (asyncState === undefined) {
      asyncState = {
        asyncHooks: process.getBuiltinModule('internal/async_hooks'),
        contextFrame: process.getBuiltinModule('internal/async_context_frame'),
      };
    }
    return asyncState;
  }

  // ---- value formatting ------------------------------------------------------------------------

  const objectToString = Object.prototype.toString;
  const isErrorValue = typeof Error.isError === 'function'
    ? (v) => Error.isError(v)
    : (v) => v instanceof Error;

  // How many arrays and allSettled records deep a value's contents print (FMT_MAX_DEPTH).
  const FMT_MAX_DEPTH = 2;
  const INSPECT_CUSTOM = Symbol.for('nodejs.util.inspect.custom');
  const isArray = Array.isArray;
  const hasOwn = Object.hasOwn;

  function fmt(v, depth = 0) {
    switch (typeof v) {
      case 'string': return v;
      case 'function': return '[Function]';
      case 'object': break;
      default: return String(v); // number, boolean, undefined, bigint, symbol
    }
    if (v === null) return 'null';
    const tag = objectToString.call(v).slice(8, -1);
    if (tag === 'Error' || tag === 'DOMException' || isErrorValue(v)) return `${v.name}: ${v.message}`;
    if (typeof Event === 'function' && v instanceof Event) return `Event(${v.type})`;
    if (isArray(v)) {
      if (depth >= FMT_MAX_DEPTH) return '[Array]';
      let out = 'Array(';
      for (let i = 0; i < v.length; i++) out += (i === 0 ? '' : ', ') + fmt(v[i], depth + 1);
      return `${out})`;
    }
    // A Uint8Array prints its bytes (none once its buffer is detached).
    if (tag === 'Uint8Array') return `Uint8Array(${Array.prototype.join.call(v, ', ')})`;
    // A record of Promise.allSettled, the only plain object with an own `status`.
    if (tag === 'Object' && hasOwn(v, 'status')) {
      if (depth >= FMT_MAX_DEPTH) return '[Object]';
      return v.status === 'fulfilled'
        ? `{status: fulfilled, value: ${fmt(v.value, depth + 1)}}`
        : `{status: rejected, reason: ${fmt(v.reason, depth + 1)}}`;
    }
    // A reader's `{ value, done }`, the only plain object with an own `done`.
    if (tag === 'Object' && hasOwn(v, 'done') && hasOwn(v, 'value')) {
      if (depth >= FMT_MAX_DEPTH) return '[Object]';
      return `{value: ${fmt(v.value, depth + 1)}, done: ${v.done}}`;
    }
    return `[${tag}]`;
  }

  // ---- a min-heap of virtual timers ordered by (deadline, seq) ----------------------------------

  function before(a, b) { return a.deadline < b.deadline || (a.deadline === b.deadline && a.seq < b.seq); }
  function heapPush(h, x) {
    let i = h.length;
    h.push(x);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }
  function heapPop(h) {
    const top = h[0];
    const last = h.pop();
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < h.length && before(h[l], h[m])) m = l;
        if (r < h.length && before(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return top;
  }

  // ---- one scenario ----------------------------------------------------------------------------

  return function createScenario(options = {}) {
    installProcessHandlers();
    const print = typeof options.print === 'function' ? options.print : null;
    const budget = options.budget ?? 10000;
    const maxDepth = options.maxDepth ?? 64;
    // RunConfig::work and RunConfig::max_log_bytes (lang/src/engine.rs): every engine charges the
    // same steps, computed from what JavaScript can observe, and stops at the same point.
    const workLimit = options.work ?? 1000000;
    const maxLogBytes = options.maxLogBytes ?? 1048576;

    const lines = [];
    let stopped = false;   // budget exhausted or finished: no more logging, no more tasks
    let started = false;
    let looping = false;   // runAll has begun: the program is complete
    let finished = false;
    let onDone = null;
    let steps = 0;
    let depth = 0;
    let work = 0;
    let logBytes = 0;

    // The program: segments and run commands, in the order the body declared them.
    const program = [];
    // Whether a segment's code calls `$.gc()` (see start).
    let programCollects = false;
    let pc = 0;

    // Virtual loop state.
    let now = 0;
    let seq = 0;
    const timerHeap = [];  // entries: { kind: 'timeout', deadline, seq, fn, ref, active }
    let refTimers = 0;     // active ref'd timers
    let immediates = [];   // entries: { kind: 'immediate', fn, active }
    let immHead = 0;
    let pendingImmediates = 0;
    let goal = null;       // null (run the next program item) or { mode, target }
    let phase = 'timers';  // within an iteration: 'timers', 'poll', then 'check'
    // Counts the phases begun (each part of the main script is one too): each is one callback of
    // Node's loop, whose callback scope opens in no async context frame (runLoop).
    let phaseSerial = 0;
    let phaseRun = -1;
    let checkLeft = 0;     // immediates of the current check phase still to visit
    const realTimeouts = new Set(); // { real, slot } of timeout signals not yet fired

    // Garbage collection. `gcSincePoll`: a `$.gc()` ran since the last virtual poll phase, so a
    // registry's cleanup may be pending (the Rust runtime's cleanup_pending). `activity` counts
    // the gcs and uncaught exceptions, which restart the hops of a poll phase.
    let gcSincePoll = false;
    let activity = 0;
    let registriesMade = 0;
    let hopsLeft = 0;
    let hopActivity = 0;
    const watches = []; // { label, ref }: `watch V`, a WeakRef each, in watch order

    // Set when an exception was reported. When the throw came from a nextTick callback, the drain
    // was abandoned and the rest waits for the drain after the next virtual macrotask; when there
    // is none (the loop would go idle or the scenario would finish), the driver drains once more
    // (a "flush", like the drain inside Node's beforeExit callback scope) and decides again.
    let drainMaybeDeferred = false;

    // Whether the last virtual macrotask threw (see the check phase in nextTask).
    let lastTaskThrew = false;

    // Set when the driver itself failed; the scenario then ends with this error.
    let internalError = null;

    // Set when a segment threw: like a module whose top level threw, no later segment runs; the
    // `run` items still let the loop run, as the Rust runtime's run_main does.
    let segmentsSkipped = false;
    // The frame the main script's last part left current, for its next part (runTask).
    let mainFrame;
    // A native callback's virtual timer has asked the addon for its real libuv timer: the driver
    // waits in real immediates until the callback has run (beginNativeWait).
    let nativeAsked = false;
    let nativeRan = false;

    // A `use module` scenario (started with $.startModule): its first part is the ES module's own
    // top-level code, evaluated by Node before the virtual loop begins. 'none' (a CommonJS
    // scenario), 'loading' (started, the module's code has not begun), 'evaluating' (it began and
    // has not reached its end: if that is still so when the loop begins, it threw) or 'evaluated'.
    let moduleState = 'none';
    // An exception of a module that never began evaluating (a SyntaxError of the emitted code):
    // an error of nodesem, not an event of the scenario.
    let loadError = null;
    let importModule = null;

    const resolvers = new WeakMap();

    function emit(line) {
      lines.push(line);
      if (print !== null) print(line);
    }

    function stop(line) {
      if (stopped) return;
      emit(line);
      stopped = true;
    }

    function log(...values) {
      if (stopped) return;
      let line = '';
      for (let i = 0; i < values.length; i++) line += (i === 0 ? '' : ' ') + fmt(values[i]);
      // One event, one line: line breaks in a value are written as escapes (Runtime::log_line).
      if (line.includes('\n') || line.includes('\r')) line = line.replace(/\r/g, '\\r').replace(/\n/g, '\\n');
      // The UTF-8 length plus the line break, as the Rust runtime's log_line counts it.
      const bytes = Buffer.byteLength(line, 'utf8') + 1;
      if (logBytes + bytes > maxLogBytes) {
        stop(`budget exhausted: the log would be larger than ${maxLogBytes} bytes`);
        return;
      }
      logBytes += bytes;
      emit(line);
    }

    // Charges steps of work (Runtime::charge); past the budget the scenario stops.
    function charge(n) {
      if (stopped) return false;
      work += n;
      if (work > workLimit) {
        stop(`budget exhausted: more than ${workLimit} steps of work`);
        return false;
      }
      return true;
    }

    // The listeners a walk of `type` on `target` visits, as getEventListeners counts them (the
    // Library::listener_count of the Rust engines); 0 for what is no EventTarget.
    const getEventListeners = process.getBuiltinModule('node:events').getEventListeners;
    // events.defaultMaxListeners, reset by finish (`setDefaultMaxListeners N`).
    const defaultMaxListeners = {
      get: () => process.getBuiltinModule('node:events').defaultMaxListeners,
      set: (n) => { process.getBuiltinModule('node:events').defaultMaxListeners = n; },
    };
    function listeners(target, type) {
      if (target === null || typeof target !== 'object' || !(target instanceof EventTarget)) return 0;
      return getEventListeners(target, type).length;
    }

    // The type a `dispatchEvent T E` walks: E's, when E is an Event (Op::DispatchEvent).
    function eventType(e) {
      return e instanceof Event ? e.type : undefined;
    }

    // AbortSignal.any and events.addAbortListener with their work charged (Runtime::charge_op):
    // any() costs the weight of each signal it is given, 1 or, for a composite, what making it
    // cost; a Disposable remembers its signal so that disposing costs that signal's listeners.
    const anyWeights = new WeakMap();
    function anySignal(signals) {
      let n = 0;
      for (const s of signals) n += anyWeights.get(s) ?? 1;
      charge(n);
      const result = AbortSignal.any(signals);
      if (result !== null && typeof result === 'object' && !result.aborted) anyWeights.set(result, n);
      return result;
    }
    const disposableSignals = new WeakMap();
    function addAbortListener(signal, listener) {
      charge(listeners(signal, 'abort'));
      const disposable = process.getBuiltinModule('node:events').addAbortListener(signal, listener);
      if (disposable !== null && typeof disposable === 'object') disposableSignals.set(disposable, signal);
      return disposable;
    }
    function dispose(disposable) {
      charge(listeners(disposableSignals.get(disposable), 'abort'));
      return disposable[Symbol.dispose]();
    }

    // A script callback; `cost` is its body's statement cost (lang's statement_cost), charged
    // when it is called.
    function cb(fn, cost = 0) {
      if (typeof fn !== 'function') throw new TypeError('$.cb expects a function');
      const wrapper = function (...args) {
        // Only while this scenario is the one running: a registry of a finished scenario may still
        // call back, from a later real loop turn, during another scenario's.
        if (stopped || current !== self) return undefined;
        if (++steps > budget) {
          stop(`budget exhausted: more than ${budget} callbacks`);
          return undefined;
        }
        if (depth >= maxDepth) {
          stop(`budget exhausted: callbacks nested more than ${maxDepth} deep`);
          return undefined;
        }
        if (!charge(cost)) return undefined;
        depth++;
        try {
          return Reflect.apply(fn, this, args);
        } finally {
          depth--;
        }
      };
      // An async function's wrapper is still one to `constructor.name` (AsyncFunction).
      const proto = Object.getPrototypeOf(fn);
      if (proto !== Function.prototype) Object.setPrototypeOf(wrapper, proto);
      // util.inspect (events' ERR_UNHANDLED_ERROR shows what was emitted) shows the scenario's own
      // function, as a program without this wrapper would: `[Function (anonymous)]`.
      Object.defineProperty(wrapper, INSPECT_CUSTOM, {
        value: (_depth, options, inspect) => inspect(fn, options),
      });
      return wrapper;
    }

    function tryRun(fn) {
      try {
        fn();
      } catch (e) {
        log('caught', e);
      }
    }

    // -- virtual timers and immediates --

    function addTimer(ms, fn, ref) {
      const t = new Timeout(now + clampDelay(ms), seq++, fn, ref);
      heapPush(timerHeap, t);
      if (ref) refTimers++;
      return t;
    }

    function deactivateTimer(t) {
      t.active = false;
      if (t.ref) refTimers--;
    }

    // The earliest active timer, dropping cleared ones from the top of the heap.
    function peekTimer() {
      while (timerHeap.length > 0 && !timerHeap[0].active) heapPop(timerHeap);
      return timerHeap.length > 0 ? timerHeap[0] : null;
    }

    function setTimeoutV(ms, fn) {
      if (typeof fn !== 'function') throw new TypeError('$.setTimeout(ms, fn) expects a function');
      return addTimer(ms, fn, true);
    }

    // NODE: listOnTimeout (lib/internal/timers.js) runs a repeating timer and then, in a `finally`,
    // re-inserts it unless it was cleared: after the timers its callback made with the same deadline
    // (Runtime::arm_interval).
    function setIntervalV(ms, fn) {
      if (typeof fn !== 'function') throw new TypeError('$.setInterval(ms, fn) expects a function');
      const t = addTimer(ms, null, true);
      t.repeat = clampDelay(ms);
      t.fn = function () {
        try {
          return Reflect.apply(fn, this, []);
        } finally {
          if (!t.cleared) {
            t.deadline = now + t.repeat;
            t.seq = seq++;
            t.active = true;
            if (t.ref) refTimers++;
            heapPush(timerHeap, t);
          }
        }
      };
      return t;
    }

    function clearTimeoutV(h) {
      if (h == null || h.kind !== 'timeout') return;
      h.cleared = true;
      if (h.active) {
        deactivateTimer(h);
        // Node's clearTimeout unlinks the timer from its list at once; a cleared timer waiting in
        // the heap would keep the handle alive. A tombstone with its key takes its place.
        const i = timerHeap.indexOf(h);
        if (i >= 0) timerHeap[i] = { deadline: h.deadline, seq: h.seq, active: false };
      }
      // Node's clearTimeout lets go of the callback (`_onTimeout = null`); a handle the script
      // still holds must not keep it alive.
      h.fn = null;
    }

    // timer.unref() and timer.ref(): whether it keeps the loop alive; both return the timer.
    function unrefV(h) {
      if (h.ref) {
        h.ref = false;
        if (h.active) refTimers--;
      }
      return h;
    }
    function refV(h) {
      if (!h.ref) {
        h.ref = true;
        if (h.active) refTimers++;
      }
      return h;
    }

    const CLEARED_IMMEDIATE = { kind: 'immediate', fn: null, active: false };
    function setImmediateV(fn) {
      if (typeof fn !== 'function') throw new TypeError('$.setImmediate(fn) expects a function');
      const im = new Immediate(fn);
      immediates.push(im);
      pendingImmediates++;
      return im;
    }

    function clearImmediateV(h) {
      if (h != null && h.kind === 'immediate' && h.active) {
        h.active = false;
        h.fn = null;
        pendingImmediates--;
        // Node's clearImmediate unlinks it from the queue at once: the handle is not kept.
        const i = immediates.indexOf(h, immHead);
        if (i >= 0) immediates[i] = CLEARED_IMMEDIATE;
      }
    }

    // A real AbortSignal.timeout signal whose real Node timer is fired at a virtual moment.
    function timeoutSignal(ms) {
      // Let Node reject what it rejects (validateUint32), with its own error.
      if (!(typeof ms === 'number' && Number.isInteger(ms) && ms >= 0 && ms <= 0xFFFFFFFF)) {
        return AbortSignal.timeout(ms);
      }
      const timers = getInternalTimers();
      const slot = acquireSlot();
      const delay = TIMEOUT_SLOT_BASE + slot;
      let signal;
      try {
        signal = AbortSignal.timeout(delay);
      } catch (e) {
        releaseSlot(slot);
        throw e;
      }
      const list = timers.timerListMap[delay];
      const real = list !== undefined ? list._idlePrev : undefined;
      if (real == null || real._idleTimeout !== delay || typeof real._onTimeout !== 'function') {
        throw new Error('nodesem prelude: cannot find the internal timer of AbortSignal.timeout');
      }
      const entry = { real, slot };
      realTimeouts.add(entry);
      // Unref'd, like Node's own AbortSignal.timeout timer: it never keeps the loop alive.
      (realClock ? (d, f) => realTimeout(d, f, false, false) : addTimer)(ms, () => {
        try {
          // When the signal was garbage-collected, Node's own FinalizationRegistry for timeout
          // signals has already cleared the real timer (clearTimeout sets _onTimeout to null):
          // like that real timer, fire nothing.
          if (typeof real._onTimeout === 'function') real._onTimeout();
        } finally {
          releaseReal(entry);
        }
      }, false);
      return signal;
    }

    function releaseReal(entry) {
      if (!realTimeouts.delete(entry)) return;
      clearTimeout(entry.real);
      releaseSlot(entry.slot);
    }

    // -- native callbacks --

    // `native MS [resource] F`: a virtual timer due in MS whose callback asks the addon for a real
    // 0 ms libuv timer, from which native code calls F through node::MakeCallback (or a
    // node::AsyncResource's MakeCallback, the resource made now: the virtual timer runs in the
    // frame of the `native` statement, so the resource keeps that frame). The driver then lets
    // the real loop turn until F has run, in a real InternalCallbackScope with nothing of the
    // scenario below it (beginNativeWait).
    function nativeV(ms, fn, resource) {
      if (typeof fn !== 'function') throw new TypeError('$.native(ms, fn, resource) expects a function');
      const lib = getAddon();
      const ran = function (...args) {
        nativeRan = true;
        return Reflect.apply(fn, this, args);
      };
      addTimer(ms, () => {
        if (resource) lib.makeResourceCallbackAfter(0, ran);
        else lib.makeCallbackAfter(0, ran);
        nativeAsked = true;
      }, true);
    }

    // -- garbage collection --

    // `gc`: a full, synchronous collection (WeakRefs to what it collected are empty at once); the
    // registries with collected cells run their cleanups at the next virtual poll phase.
    function gcV() {
      if (realGc === undefined) throw new Error('nodesem prelude: `gc` needs node --expose-gc');
      realGc();
      gcSincePoll = true;
      activity++;
    }

    // `registry { ... }`: a real FinalizationRegistry; the driver lets one more real loop turn
    // pass at each poll phase for each registry the scenario made.
    // `$.keep(() => [a, b])`: a `use module` scenario's bindings, held until the end like the
    // Rust runtime's global environment (see module_top_level in harness/src/emit.rs).
    let bindings = null;
    function keep(fn) { bindings = fn; }

    function registry(cleanup) {
      const made = new FinalizationRegistry(cleanup);
      registriesMade++;
      return made;
    }

    // `watch V`: a WeakRef to V, kept under its label; V8's constructor throws `TypeError:
    // WeakRef: invalid target` for what cannot be held weakly, and keeps V until the end of the
    // job (AddToKeptObjects), as Runtime::watch does.
    function watch(label, value) {
      const ref = new WeakRef(value);
      watches.push({ label: String(label), ref });
    }

    // `alive`: `alive` and the labels whose target is still there, in watch order; each deref
    // is a real one, which keeps the target until the end of the job (Runtime::alive_line).
    function alive() {
      let line = 'alive';
      for (let i = 0; i < watches.length; i++) {
        if (watches[i].ref.deref() !== undefined) line += ` ${watches[i].label}`;
      }
      log(line);
    }

    // `dependants S`: the size of Node's `S[kDependantSignals]` (the WeakRefs to the composites
    // that follow S, lib/internal/abort_controller.js), 0 for what has none.
    function dependants(signal) {
      if (signal === null || (typeof signal !== 'object' && typeof signal !== 'function')) return 0;
      const symbols = Object.getOwnPropertySymbols(signal);
      for (let i = 0; i < symbols.length; i++) {
        if (symbols[i].description === 'kDependantSignals') return signal[symbols[i]]?.size ?? 0;
      }
      return 0;
    }

    // -- promises --

    function deferred() {
      let resolve;
      let reject;
      const promise = new Promise((res, rej) => {
        resolve = res;
        reject = rej;
      });
      resolvers.set(promise, { resolve, reject });
      return promise;
    }
    // `add A B` and `less A B`: + and < on primitive values; an object is refused, as by the Rust
    // runtime's primitive_operator (ToPrimitive of a function would give this prelude's source).
    function primitives(op, a, b) {
      if ((a !== null && (typeof a === 'object' || typeof a === 'function'))
          || (b !== null && (typeof b === 'object' || typeof b === 'function'))) {
        throw new TypeError(`nodesem: \`${op}\` takes primitive values`);
      }
    }
    function add(a, b) {
      primitives('add', a, b);
      return a + b;
    }
    function less(a, b) {
      primitives('less', a, b);
      return a < b;
    }

    // Promise.withResolvers(), its functions kept for $.resolve and $.reject as deferred()'s are.
    function withResolvers() {
      const r = Promise.withResolvers();
      resolvers.set(r.promise, { resolve: r.resolve, reject: r.reject });
      return r;
    }
    function resolverOf(p) {
      const r = resolvers.get(p);
      if (r === undefined) throw new Error('nodesem prelude: not a $.deferred() promise');
      return r;
    }

    // -- the program and the loop driver --

    // A part of the main script; like a callback it pays for its statements up front.
    function segment(fn, cost = 0) {
      if (looping) throw new Error('nodesem prelude: $.segment after the loop began');
      if (typeof fn !== 'function') throw new TypeError('$.segment expects a function');
      if (!programCollects && Function.prototype.toString.call(fn).includes('$.gc(')) programCollects = true;
      program.push({ segment: () => { if (charge(cost)) fn(); } });
    }

    function run(mode, n) {
      if (looping) throw new Error('nodesem prelude: $.run after the loop began');
      if (mode !== 'turn' && mode !== 'idle' && mode !== 'advance') throw new Error(`nodesem prelude: unknown run mode ${mode}`);
      if (mode === 'advance' && !(typeof n === 'number' && n >= 0)) throw new Error('nodesem prelude: $.run("advance", n) needs n >= 0');
      program.push({ mode, n });
    }

    // Decides what happens after a full loop iteration (timers phase + check phase): AGAIN
    // (iterate, or run the next program item when goal became null), FLUSH (first let a
    // deferred drain finish; the decision is then taken again) or DONE (scenario finished).
    const AGAIN = 0, FLUSH = 1, DONE = 2;
    function afterIteration() {
      const mode = goal.mode;
      if (mode === 'turn') {
        goal = null;
        return AGAIN;
      }
      // A cleanup that may be pending makes the loop iterate, at the same time (runnable_now).
      if (pendingImmediates > 0 || gcSincePoll) return AGAIN;
      const t = peekTimer();
      if (t !== null && t.deadline <= now) return AGAIN;
      if (mode === 'advance') {
        if (t !== null && t.deadline <= goal.target) {
          now = t.deadline;
          return AGAIN;
        }
        now = goal.target;
        goal = null;
        return AGAIN;
      }
      // 'idle' and 'final'
      if (refTimers > 0) {
        now = t.deadline; // earliest pending timer, ref'd or not
        return AGAIN;
      }
      // The loop is idle, unless a postponed drain is still pending: let it run, decide again.
      if (drainMaybeDeferred) {
        drainMaybeDeferred = false;
        return FLUSH;
      }
      if (mode === 'final') return DONE;
      goal = null;
      return AGAIN;
    }

    // The next virtual macrotask as { kind, fn }, or null when the scenario is finished.
    function nextTask() {
      for (;;) {
        if (stopped) return null;
        if (goal === null) {
          if (pc < program.length) {
            // (The segments stay in `program` until the end: they hold the context of the main
            // script's bindings, which the Rust runtime's global environment is, a root.)
            const item = program[pc++];
            if (item.segment !== undefined) {
              if (segmentsSkipped) continue;
              phaseSerial++;
              return { kind: 'segment', fn: item.segment };
            }
            goal = { mode: item.mode, target: item.mode === 'advance' ? now + item.n : now };
          } else {
            goal = { mode: 'final', target: now };
          }
          phaseSerial++;
          phase = 'timers';
          continue;
        }
        if (phase === 'timers') {
          const t = peekTimer();
          if (t !== null && t.deadline <= now) {
            heapPop(timerHeap);
            deactivateTimer(t);
            const fn = t.fn;
            // A timer that ran holds its callback no more (an interval's wrapper re-arms it).
            if (t.repeat === undefined) t.fn = null;
            return { kind: 'timer', fn, handle: t };
          }
          phaseSerial++;
          phase = 'poll';
          continue;
        }
        if (phase === 'poll') {
          // The poll phase: after a gc, the real loop turns until every pending cleanup ran (see
          // hop); the check phase's batch is taken after it, with what the cleanups queued.
          if (gcSincePoll && !stopped) {
            gcSincePoll = false;
            return POLL_TASK;
          }
          phaseSerial++;
          phase = 'check';
          checkLeft = immediates.length - immHead;
          continue;
        }
        // check phase
        while (checkLeft > 0) {
          checkLeft--;
          const im = immediates[immHead];
          // A visited entry is let go (a handle that ran is not kept by the queue).
          immediates[immHead++] = CLEARED_IMMEDIATE;
          if (im.active) {
            im.active = false;
            pendingImmediates--;
            const fn = im.fn;
            im.fn = null;
            return { kind: 'immediate', fn, handle: im };
          }
        }
        // NODE: when the last immediate of a batch throws, Node re-enters processImmediate
        // (lib/internal/timers.js), which takes every immediate queued since as a new batch of the
        // same check phase; the Rust runtime's check_phase does the same.
        if (lastTaskThrew && pendingImmediates > 0) {
          lastTaskThrew = false;
          checkLeft = immediates.length - immHead;
          continue;
        }
        if (immHead > 1024 && immHead * 2 > immediates.length) {
          immediates = immediates.slice(immHead);
          immHead = 0;
        }
        const next = afterIteration();
        if (next === DONE) return null;
        // On FLUSH the phase stays 'check' with nothing left, so the decision is retaken.
        if (next === FLUSH) return FLUSH_TASK;
        phaseSerial++;
        phase = 'timers';
      }
    }
    const FLUSH_TASK = { kind: 'flush', fn: null };
    const POLL_TASK = { kind: 'poll', fn: null };

    // The whole scenario runs inside ONE real setImmediate callback. After each virtual macrotask
    // the driver calls Node's own runNextTicks() (lib/internal/process/task_queues.js, the drain
    // Node runs between two timers), which runs the real nextTick queue, the real microtask queue
    // and the unhandled-rejection processing exactly as after a real timer or immediate. Nothing
    // of the real event loop runs between two virtual macrotasks, so no I/O callback, no V8
    // platform task (FinalizationRegistry cleanup) and no other real immediate can become a drain
    // point that the Rust runtime does not have: the log cannot depend on timing or on GC.
    //
    // Exceptions, as Node handles them (see runtime/src/event_loop.rs and NODE_FACTS.md):
    // - a virtual macrotask that throws is reported; the next callback of the same phase runs
    //   before the drain, and the drain at the end of the phase always happens;
    // - a nextTick callback that throws inside the drain propagates out of runNextTicks(), exactly
    //   as it propagates out of processTicksAndRejections() in Node: it is reported, the drain is
    //   abandoned, and the rest waits for the drain after the next virtual macrotask;
    // - a microtask that throws is reported by Node itself (triggerUncaughtException) through
    //   process 'uncaughtException', and the checkpoint goes on.
    function runAll() {
      current = self;
      try {
        const drain = getRunNextTicks();
        if (importModule !== null) {
          // The batch server's module: import() it and drain the way the close of a callback
          // scope does (runNextTicks: a microtask checkpoint, in which the loader's promise jobs
          // evaluate the module and its microtasks run, then, when ticks or rejections are
          // pending, processTicksAndRejections). All within this one real callback, so no other
          // real callback can drain what a throwing tick left.
          importModule();
          drainNow(drain);
        }
        looping = true;
        if (moduleState === 'loading' && loadError === null) {
          loadError = new Error('nodesem prelude: the module was not evaluated within one drain');
        }
        if (loadError === null) {
          // Like a module whose top level threw: no later segment runs, the loop still does.
          if (moduleState === 'evaluating') segmentsSkipped = true;
          // Suspended at a poll phase: the loop goes on from a real immediate (hop).
          if (!runLoop(drain)) return;
        }
      } catch (e) {
        // A failure of the driver itself (not of the scenario), e.g. on a Node without an internal
        // it needs: the scenario ends at once and says why, instead of never finishing.
        internalError = e;
      }
      finish();
    }

    // The virtual poll phase after a gc. The scenario's real callback returns and the driver
    // continues from a fresh real setImmediate, `hopsLeft` times: before each, the real loop's
    // poll phase runs one dirty registry's cleanup task (V8 platform task), each in Node's own
    // callback scope, which runs the ticks and microtasks the cleanup queued right after it, and
    // routes a throwing callback's exception to 'uncaughtException' (to this scenario: it stays
    // current). Nothing else of the scenario runs meanwhile. Then the loop goes on, in the check
    // phase. Costs nothing to a scenario that never calls gc.
    function hopQuota() { return POLL_HOPS + Math.min(registriesMade, 1000); }
    // The real Immediate whose callback is the driver's (runAll's, then each hop's).
    let realImmediate = null;
    function beginHops() {
      hopsLeft = hopQuota();
      hopActivity = activity;
      const running = realImmediate;
      realImmediate = setImmediate(hop);
      suspendOwnClose(running);
    }
    function hop() {
      current = self;
      if (activity !== hopActivity) {
        hopActivity = activity;
        hopsLeft = hopQuota();
      }
      if (--hopsLeft > 0 && !stopped) {
        const running = realImmediate;
        realImmediate = setImmediate(hop);
        suspendOwnClose(running);
        return;
      }
      // Every cleanup of this poll phase ran, the ones a cleanup's gc made pending too.
      gcSincePoll = false;
      try {
        if (!runLoop(getRunNextTicks())) return;
      } catch (e) {
        internalError = e;
      }
      finish();
    }

    // The real loop turns (the driver's callback returns and goes on from a real immediate) until
    // the native callback asked for has run: its libuv timer is due in the next timers phase, before
    // the check phase of that immediate. Nothing else of the scenario runs meanwhile. Then the
    // drain that the runtime's timers phase runs before its next callback (which a callback scope
    // that failed did not run), and the loop goes on.
    function beginNativeWait() {
      nativeWaits = 0;
      const running = realImmediate;
      realImmediate = setImmediate(nativeHop);
      suspendOwnClose(running);
    }
    let nativeWaits = 0;
    function nativeHop() {
      current = self;
      if (!nativeRan) {
        if (++nativeWaits > 1000) {
          internalError = new Error('nodesem prelude: the native callback did not run');
          finish();
          return;
        }
        const running = realImmediate;
        realImmediate = setImmediate(nativeHop);
        suspendOwnClose(running);
        return;
      }
      nativeRan = false;
      try {
        const drain = getRunNextTicks();
        drainNow(drain);
        if (!runLoop(drain)) return;
      } catch (e) {
        internalError = e;
      }
      finish();
    }

    // Runs virtual macrotasks until the scenario is finished (returns true) or the loop suspends
    // at a poll phase (returns false; hop resumes it).
    function runLoop(drain) {
      for (;;) {
        let task = nextTask();
        if (task === null) break;
        if (task === POLL_TASK) {
          beginHops();
          return false;
        }
        if (task === FLUSH_TASK) {
          lastTaskThrew = false;
          drainNow(drain);
          continue;
        }
        const segment = task.kind === 'segment';
        if (phaseRun !== phaseSerial) {
          // A new phase: a new callback scope, in no frame (what a throwing microtask left in the
          // previous one's drains does not reach it).
          phaseRun = phaseSerial;
          setFrame(undefined);
        }
        const threw = runTask(task);
        // After a throw Node goes on from a new callback scope, in no frame.
        if (threw) setFrame(undefined);
        if (nativeAsked) {
          nativeAsked = false;
          task = null;
          beginNativeWait();
          return false;
        }
        // This frame stays live while later tasks run, and V8 scans a frame's registers whole:
        // it must not keep the task (its callback, its handle) that ran, which the Rust runtime's
        // Timer and Immediate objects, with no edges, do not keep (NODE_GC_FACTS.md §8).
        task = null;
        if (threw && !segment && phaseHasMore()) continue;
        drainNow(drain);
      }
      return true;
    }

    // Runs one virtual macrotask; returns whether it threw. A frame of its own, gone before the
    // drain after the task and before the next task, so that nothing that stays live holds the
    // callback, its handle or the exception.
    function runTask(task) {
      lastTaskThrew = false;
      // NODE: listOnTimeout and processImmediate (lib/internal/timers.js) exchange the handle's
      // frame in around the callback, and set the prior one back in a `finally`. A part of the
      // main script goes on in the frame the previous part left (a module after an `await`).
      const prior = exchangeFrame(task.kind === 'segment' ? mainFrame : task.handle.frame);
      try {
        // Node calls a timer's or an immediate's callback on its handle.
        Reflect.apply(task.fn, task.handle, []);
        return false;
      } catch (e) {
        lastTaskThrew = true;
        // Like a module whose top level threw: no later segment runs, the loop still does.
        if (task.kind === 'segment') segmentsSkipped = true;
        uncaught(e);
        return true;
      } finally {
        if (task.kind === 'segment') mainFrame = currentFrame();
        setFrame(prior);
      }
    }

    function settleLeftovers() {
      const drain = getRunNextTicks();
      for (let attempts = 0; attempts < 100000; attempts++) {
        if (!drainOnce(drain)) return;
      }
    }

    function drainNow(drain) {
      const error = drainOnce(drain);
      if (error !== null) uncaught(error.value);
    }

    // Runs one drain; returns null, or { value } when a nextTick callback threw out of it.
    function drainOnce(drain) {
      const { asyncHooks, contextFrame } = getAsyncState();
      const asyncId = asyncHooks.executionAsyncId();
      // internal/async_context_frame exists from Node 24 on; older Nodes have no frame to restore.
      const frame = contextFrame === undefined ? undefined : contextFrame.current();
      try {
        drain();
      } catch (e) {
        // The throwing tick left its async id pushed and its context frame current (Node's own
        // path clears them in the uncaught-exception handler); put back this callback's, or
        // Node's bookkeeping sees a corrupted async stack when our callback returns.
        while (asyncHooks.executionAsyncId() !== asyncId && asyncHooks.popAsyncContext(asyncHooks.executionAsyncId())) {
          // popped one
        }
        if (contextFrame !== undefined) contextFrame.set(frame);
        return { value: e };
      }
      return null;
    }

    // Whether the current phase has another callback to run. It must not call nextTask(), which
    // may compute the check phase's immediates or advance the clock before the drain.
    function phaseHasMore() {
      if (phase === 'timers') {
        const t = peekTimer();
        return t !== null && t.deadline <= now;
      }
      for (let i = immHead, end = immHead + checkLeft; i < end; i++) {
        if (immediates[i].active) return true;
      }
      // Called after a callback threw: the immediates queued since form the next batch.
      return pendingImmediates > 0;
    }

    // NODE: once a handler has handled an uncaught exception, Node queues setImmediate(noop) "to
    // make sure any ticks get processed" (lib/internal/process/execution.js). That immediate is
    // a macrotask like any other, and the Rust runtime's report_uncaught queues it too: it keeps
    // the loop alive and the drain after it runs what an interrupted drain left. The virtual
    // one here mirrors it (Node's real one, queued when Node itself reports a microtask's
    // exception, runs only after the scenario, which runs inside one real callback); it is not a
    // script callback, so it does not count against the budget.
    //
    // The handler's `origin` is 'unhandledRejection' for an error from a promise (only without an
    // 'unhandledRejection' listener). After `process off uncaughtException` there is no handler:
    // Node would emit 'exit' with code 1, print the error and exit (lib/internal/process/
    // execution.js, createOnGlobalUncaughtException). The worker must live on, so this ends the
    // scenario as that exit would: the line, then nothing more runs. (selftest.mjs checks the rule
    // against a real process that dies.)
    function uncaught(error, origin) {
      if (moduleState === 'loading') {
        if (loadError === null) loadError = error;
        return;
      }
      activity++;
      if (realClock && error instanceof TypeError && error.message.includes("reading '_idleNext'")) {
        // NODE: processImmediate, re-entered after a nextTick threw in its drain between two
        // immediates, meets the next immediate cleared by an earlier tick of that drain and reads
        // `prevImmediate._idleNext` of undefined, again on every re-entry (26.12.1, lib/internal/
        // timers.js; NODE_FACTS.md). The virtual loop has no such bug to copy.
        refuse('a tick cleared the next immediate and a later tick threw: real Node then fails in processImmediate for ever (TypeError reading _idleNext)');
        // The process cannot run another immediate: the worker answers and exits (server.js).
        internalError.fatal = true;
        finishReal();
        return;
      }
      const from = origin === 'unhandledRejection' ? ' from unhandledRejection' : '';
      if (uncaughtHandlerOff) {
        log(`exit 1 after uncaught ${fmt(error)}${from}`);
        stopped = true;
        return;
      }
      log(`uncaught ${fmt(error)}${from}`);
      // On the real clock, Node queues its own setImmediate(noop).
      if (realClock) {
        uncaughtSeen = true;
        return;
      }
      drainMaybeDeferred = true;
      if (!stopped) setImmediateV(noop);
    }

    // `process off uncaughtException` / `process off unhandledRejection`.
    let uncaughtHandlerOff = false;
    let rejectionListenerRemoved = false;
    function processOff(event) {
      if (event === 'uncaughtException') {
        uncaughtHandlerOff = true;
      } else if (event === 'unhandledRejection' && !rejectionListenerRemoved) {
        rejectionListenerRemoved = true;
        process.removeListener('unhandledRejection', onUnhandledRejection);
      }
    }
    function noop() {}

    function finish() {
      if (finished) return;
      finished = true;
      stopped = true;
      bindings = null;
      for (const entry of realTimeouts) releaseReal(entry);
      if (current === self) current = null;
      if (rejectionListenerRemoved) {
        rejectionListenerRemoved = false;
        process.on('unhandledRejection', onUnhandledRejection);
      }
      // `setDefaultMaxListeners N` changed events.defaultMaxListeners for the whole process: the
      // next scenario starts from Node's default again, as the Rust engines' fresh state does.
      if (defaultMaxListeners.get() !== 10) defaultMaxListeners.set(10);
      // A scenario stopped by its budget may leave Node's queues non-empty (the callbacks are
      // no-ops now, but Node's own jobs, such as the nextTick that rethrows a listener's error,
      // still run). Drain them here, while no scenario is current, until a drain completes:
      // each throwing tick abandons a drain, so this may take several.
      settleLeftovers();
      if (gcSincePoll) {
        // A scenario that stopped after a gc: its pending cleanups (no-ops now, as every callback
        // of a stopped scenario) run here, in the same hops, so that they take none of the next
        // scenario's.
        gcSincePoll = false;
        let left = hopQuota();
        const settle = () => {
          if (--left > 0) setImmediate(settle);
          else deliver();
        };
        setImmediate(settle);
        return;
      }
      deliver();
    }

    function deliver() {
      const done = onDone;
      onDone = null;
      if (done !== null) {
        done(lines, internalError, loadError);
      } else if (loadError !== null) {
        process.stderr.write(`nodesem prelude: the module failed to load: ${loadError && loadError.stack ? loadError.stack : loadError}\n`);
        process.exitCode = 1;
      } else if (internalError !== null) {
        process.stderr.write(`nodesem prelude: ${internalError && internalError.stack ? internalError.stack : internalError}\n`);
        process.exitCode = 1;
      }
    }

    function start(callback) {
      if (started) throw new Error('nodesem prelude: $.start called twice');
      started = true;
      if (typeof callback === 'function') onDone = callback;
      getRunNextTicks(); // fails here, clearly, without --expose-internals
      if (realClock) {
        anyScenarioStarted = true;
        if (realGc !== undefined) {
          // Whatever the scenarios before left for the collector has FinalizationRegistry cells
          // (Node's own registries), whose cleanup tasks run as callback scopes that drain, in
          // whichever real loop turn V8 posts them: on the real clock, between two of this
          // scenario's phases. Collect now and let those tasks run first (as start does for the
          // virtual clock's first scenario).
          realGc();
          let left = POLL_HOPS;
          const settle = () => {
            if (--left > 0) setImmediate(settle);
            else startReal();
          };
          setImmediate(settle);
          return;
        }
        startReal();
        return;
      }
      const first = !anyScenarioStarted;
      anyScenarioStarted = true;
      if (onDone !== null && realGc !== undefined && (first || programCollects)) {
        // Batch mode, before the first scenario of a worker and before each scenario that
        // collects: what the server's start-up or the scenarios before left for the collector
        // has FinalizationRegistry cells (Node's own: abort_controller's, the weak listeners';
        // a finished scenario's registries), whose cleanup tasks would run, as callback scopes
        // that drain, in the hops of this scenario's first gc (measured: one such task right
        // after the first gc of a fresh worker, NODE_GC_FACTS.md §8). A real program has none
        // of that garbage. Collect it and let those tasks run before the scenario begins; the
        // scenario's own objects do not exist yet (its body only declared its bindings).
        realGc();
        let left = POLL_HOPS;
        const settle = () => {
          if (--left > 0) setImmediate(settle);
          else realImmediate = setImmediate(runAll);
        };
        setImmediate(settle);
        return;
      }
      realImmediate = setImmediate(runAll);
    }

    // $.start for a `use module` scenario, called before the module's own code: the virtual loop
    // (runAll, a real immediate) waits behind the module's evaluation and the drain Node runs
    // after it, and, like Node's, the process handlers report to this scenario meanwhile. The
    // parts after the first may be declared until the loop begins.
    // The batch server passes `importer`, which starts the module's import: it then runs as the
    // first thing the virtual loop's real callback does (see runAll). A standalone program is the
    // module, already being evaluated.
    function startModule(callback, importer) {
      start(callback);
      moduleState = 'loading';
      current = self;
      if (typeof importer === 'function') importModule = importer;
    }

    // The first part of a `use module` scenario begins: it pays for its statements up front, and
    // runs only when that is within the budget.
    function evaluate(cost = 0) {
      if (moduleState !== 'loading') throw new Error('nodesem prelude: $.evaluate needs $.startModule first, once');
      moduleState = 'evaluating';
      return charge(cost);
    }

    // The first part of a `use module` scenario reached its end without throwing.
    function evaluated() {
      mainFrame = currentFrame();
      if (moduleState === 'evaluating') moduleState = 'evaluated';
    }

    // ---- the real clock (createScenario({ clock: 'real', scale })) --------------------------------
    //
    // The same scenario on libuv's real loop instead of the virtual one, to check the virtual loop
    // against Node's own timers (harness/js/NODE_FACTS.md, "the real clock"). The rule: virtual
    // time v is real loop time base + v * scale, where base is the loop time when the main script
    // begins (inside a real setImmediate, the check phase, as in the virtual loop). A timer made
    // at virtual time v for d ms is a real Timeout of duration d * scale, inserted into Node's own
    // per-duration list with the start base + v * scale (internal/timers insert), whatever the
    // real time of the insertion: so its real expiry is exactly base + (v + d) * scale, Node's
    // lists keep their own order (FIFO in a list; across lists by expiry, then list id), and
    // lateness of the machine cannot reorder two timers whose virtual deadlines differ, unless
    // the loop is a whole virtual millisecond (scale ms) late, which the driver detects: a timer
    // that runs scale ms or more after its expiry, or finds an immediate of an earlier turn still
    // waiting, ends the scenario with a "late" error instead of a log (the engine retries it). `run advance N` is a real driver timer due half a virtual millisecond after
    // the target; `run idle` and the end of the scenario are decided in a real "probe" immediate
    // queued after each scenario callback, which sees the loop idle when no ref'd timer and no
    // immediate of the scenario is pending. `run turn` ends in a real immediate linked after the
    // last immediate of the next check phase's batch (appendTurnEnd), or at once when nothing is
    // pending.
    const realClock = options.clock === 'real';
    const scale = realClock ? (options.scale ?? 20) : 0;
    // The longest real time a scenario may wait for (ms); beyond it the scenario is refused.
    const REAL_CAP = options.realCap ?? 20000;
    let realTimers;      // internal/timers
    let libuvNow;        // () => the loop's cached time (internalBinding('timers').getLibuvNow)
    let scheduleTimer;   // (ms) => re-arms Node's one libuv timer
    let base = 0;
    let nowV = 0;        // the virtual time of the callback now running
    let lastDeadline = 0;
    const realHandles = new Set(); // live real Timeouts and Immediates of this scenario
    const handleState = new WeakMap(); // real handle -> { active, ref, deadline, repeat }
    let probeQueued = false;
    let realGoal = null; // like `goal`: null, { mode, target, index }
    let runIndex = 0;    // how many `run` items were reached
    let driver = null;   // the driver timer of `run advance`
    let segmentThrew = false; // the exception leaving a real callback is a segment's
    let uncaughtSeen = false; // an exception was reported since the last probe

    function getRealBindings() {
      if (realTimers !== undefined) return;
      const emitWarning = process.emitWarning;
      let binding;
      try {
        process.emitWarning = () => {};
        binding = process.getBuiltinModule('internal/test/binding').internalBinding('timers');
      } finally {
        process.emitWarning = emitWarning;
      }
      realTimers = getInternalTimers();
      libuvNow = () => binding.getLibuvNow();
      scheduleTimer = (ms) => binding.scheduleTimer(ms);
    }

    function refuse(what) {
      if (internalError === null) internalError = new Error(`cannot run on a real clock: ${what}`);
      stopped = true;
    }
    function late(what) {
      if (internalError === null) internalError = new Error(`real clock late: ${what} (scale ${scale} ms per virtual ms)`);
      stopped = true;
    }

    // Inserts a real Timeout into Node's list for `ms * scale`, started at virtual time `startV`.
    function realInsert(t, ms, startV) {
      const msecs = ms * scale;
      const start = base + startV * scale;
      const expiry = start + msecs;
      if (expiry - base > REAL_CAP && t[realTimers.kRefed]) {
        refuse(`a timer due at virtual ${startV + ms} ms would take ${expiry - base} ms of real time (at most ${REAL_CAP})`);
        return;
      }
      realTimers.insert(t, msecs, start);
      // insert arms libuv's timer `msecs` after the real now, later than `expiry` when the start is
      // in the past: re-arm it for the expiry when this list is now the earliest.
      const first = realTimers.timerListQueue.peek();
      if (first != null && first.expiry === expiry) scheduleTimer(Math.max(1, expiry - libuvNow()));
    }

    function queueProbe() {
      if (probeQueued || finished) return;
      probeQueued = true;
      const im = setImmediate(probe);
      realHandles.add(im);
    }

    // Runs a scenario callback of a real timer or immediate.
    function realCall(fn, handle) {
      current = self;
      try {
        Reflect.apply(fn, handle, []);
      } finally {
        maybeProbe();
      }
    }

    // A probe is a real immediate of its own, so it is queued only where it cannot change the
    // order of the scenario's callbacks: when none of the scenario's immediates is pending (it
    // then comes before every immediate queued later, and a batch that ends in a throwing
    // immediate still ends there: Node re-enters processImmediate for the immediates queued
    // since only when the one that threw was the batch's last), and only when the goal is
    // decided by one (`run advance` is decided by its driver timer, and a ref'd timer pending
    // means the loop is not idle: that timer's callback looks again).
    function maybeProbe() {
      if (realGoal === null || realGoal.mode === 'advance' || pendingImmediates > 0) return;
      if (refTimers > 0 && (realGoal.mode === 'idle' || realGoal.mode === 'final')) return;
      queueProbe();
    }

    function realTimeout(ms, fn, ref, repeat) {
      const d = clampDelay(ms);
      const t = new realTimers.Timeout(null, d * scale, undefined, false, true);
      const state = { active: true, ref: true, deadline: nowV + d, repeat };
      handleState.set(t, state);
      t._onTimeout = function () {
        realHandles.delete(t);
        if (stopped || current !== self && current !== null) return;
        state.active = false;
        if (state.ref) refTimers--;
        const lag = libuvNow() - (base + state.deadline * scale);
        if (lag >= scale) {
          late(`a timer due at virtual ${state.deadline} ms ran ${lag} ms late`);
          queueProbe();
          return;
        }
        if (state.deadline > lastDeadline && pendingImmediates > 0) {
          late(`a timer due at virtual ${state.deadline} ms ran before an immediate of an earlier turn`);
          queueProbe();
          return;
        }
        lastDeadline = state.deadline;
        nowV = state.deadline;
        if (!repeat) {
          realCall(fn, t);
          return;
        }
        try {
          realCall(fn, t);
        } finally {
          // Node re-inserts an interval in listOnTimeout's `finally`, after its callback, with the
          // start it read before the callback: here that start is the virtual deadline's.
          if (!state.cleared && !stopped) {
            state.deadline = nowV + d;
            state.active = true;
            if (state.ref) refTimers++;
            realHandles.add(t);
            realInsert(t, d, nowV);
          }
        }
      };
      if (!ref) {
        t.unref();
        state.ref = false;
      } else {
        refTimers++;
      }
      realHandles.add(t);
      realInsert(t, d, nowV);
      return t;
    }

    function realClearTimeout(h) {
      const state = h == null ? undefined : handleState.get(h);
      if (state === undefined) return;
      state.cleared = true;
      if (state.active) {
        state.active = false;
        if (state.ref) refTimers--;
      }
      realHandles.delete(h);
      clearTimeout(h);
      // The loop may be idle now (a tick cleared the last timer): a probe looks.
      maybeProbe();
    }
    function realRef(h, on) {
      const state = handleState.get(h);
      if (state === undefined) return h;
      if (state.ref !== on) {
        state.ref = on;
        if (state.active) refTimers += on ? 1 : -1;
        if (on) h.ref(); else h.unref();
        maybeProbe();
      }
      return h;
    }

    function realSetImmediate(fn) {
      const state = { active: true };
      const im = setImmediate(() => {
        realHandles.delete(im);
        if (!state.active) return;
        state.active = false;
        pendingImmediates--;
        if (stopped) return;
        if (turnPending) appendTurnEnd(im);
        lastImmediateThrew = true;
        realCall(fn, im);
        lastImmediateThrew = false;
      });
      handleState.set(im, state);
      realHandles.add(im);
      pendingImmediates++;
      return im;
    }
    function realClearImmediate(h) {
      const state = h == null ? undefined : handleState.get(h);
      if (state === undefined || !state.active || h.constructor.name !== 'Immediate') return;
      state.active = false;
      pendingImmediates--;
      realHandles.delete(h);
      clearImmediate(h);
      maybeProbe();
    }

    // The program's next items, from where the loop reached its goal: segments run here (inside
    // the probe, a check-phase callback, or the driver timer, a timers-phase one, each a macrotask
    // of its own as in the virtual loop), until a `run` sets a new goal or the program ends.
    function realProgram() {
      for (;;) {
        if (stopped) return finishReal();
        if (realGoal !== null) return;
        if (pc >= program.length) {
          realGoal = { mode: 'final' };
          return maybeProbe();
        }
        const item = program[pc++];
        if (item.segment !== undefined) {
          if (segmentsSkipped) continue;
          current = self;
          // A part of the main script goes on in the frame the previous part left (runTask).
          const prior = exchangeFrame(mainFrame);
          let error = null;
          try {
            item.segment();
          } catch (e) {
            segmentsSkipped = true;
            error = { value: e };
          } finally {
            mainFrame = currentFrame();
            setFrame(prior);
          }
          // What comes next is decided now, before the segment's drain: a driver timer, a goal.
          if (pc < program.length && program[pc].segment !== undefined) {
            realGoal = { mode: 'segment' };
            queueProbe();
          } else {
            realProgram();
          }
          if (error !== null) {
            // Thrown as a real callback would throw: Node reports it through 'uncaughtException'.
            segmentThrew = true;
            throw error.value;
          }
          return;
        }
        runIndex++;
        if (item.mode === 'advance') {
          const target = nowV + item.n;
          realGoal = { mode: 'advance', target };
          const half = scale / 2;
          const t = new realTimers.Timeout(null, item.n * scale + half, undefined, false, true);
          t._onTimeout = () => {
            realHandles.delete(t);
            driver = null;
            if (stopped) return finishReal();
            const lag = libuvNow() - (base + target * scale + half);
            if (lag >= half) return late(`run advance to virtual ${target} ms ran ${lag} ms late`), finishReal();
            if (pendingImmediates > 0) return late(`run advance to virtual ${target} ms found immediates still pending`), finishReal();
            nowV = target;
            lastDeadline = target;
            realGoal = null;
            realProgram();
          };
          driver = t;
          realHandles.add(t);
          if (target * scale + half > REAL_CAP) {
            refuse(`run advance ${item.n} (run statement ${runIndex}): it would take ${target * scale} ms of real time (at most ${REAL_CAP}; idle gaps are not compressed)`);
            return finishReal();
          }
          realTimers.insert(t, item.n * scale + half, base + nowV * scale);
          const first = realTimers.timerListQueue.peek();
          if (first != null && first.expiry === base + target * scale + half) {
            scheduleTimer(Math.max(1, base + target * scale + half - libuvNow()));
          }
          return;
        }
        realGoal = { mode: item.mode, index: runIndex };
        if (item.mode === 'turn' && pendingImmediates > 0) {
          turnPending = true;
          return undefined;
        }
        // Decided after the drain now due, in a probe (when one cannot reorder anything).
        return maybeProbe();
      }
    }

    // `run turn` with immediates pending: the turn is the next check phase's batch, which is
    // every immediate queued before that phase begins, the ones the drain after the segment
    // queued included. The first of the scenario's immediates to run in it sees the batch whole
    // (processImmediate has detached it from the queue): the turn's end, a real immediate, is
    // linked after the batch's last one, so the next part of the main script runs after the batch
    // and its drains, and before any immediate the batch queued.
    let turnPending = false;
    let lastImmediateThrew = false;
    function appendTurnEnd(first) {
      turnPending = false;
      let last = first;
      while (last._idleNext != null) last = last._idleNext;
      const end = setImmediate(turnEnd);
      realHandles.add(end);
      realTimers.immediateQueue.remove(end);
      last._idleNext = end;
      end._idlePrev = last;
      end._idleNext = null;
      function turnEnd() {
        realHandles.delete(end);
        if (stopped) return finishReal();
        if (lastImmediateThrew && pendingImmediates > 0) {
          // NODE: when the batch's last immediate throws, Node re-enters processImmediate, which
          // takes the immediates queued since as a new batch of the same check phase (and so does
          // the virtual loop's check phase), and the turn ends after them. Here this immediate was
          // the batch's last: the re-entry ran only it, and the immediates queued since run in the
          // next iteration's check phase, this immediate's successor after them. Only a timer
          // due in between could tell the difference, and it finds those immediates pending: the
          // run is reported late.
          lastImmediateThrew = false;
          const again = setImmediate(turnEnd2);
          realHandles.add(again);
          function turnEnd2() {
            realHandles.delete(again);
            endTurn();
          }
          return undefined;
        }
        return endTurn();
      }
    }
    function endTurn() {
      if (stopped) return finishReal();
      realGoal = null;
      current = self;
      return realProgram();
    }

    // Whether the goal of a `run turn`, `run idle` or the end is reached, with the loop where it is
    // (all the scenario's callbacks and drains so far done).
    function realCheckGoal() {
      if (stopped) return finishReal();
      const goalNow = realGoal;
      if (goalNow === null) return realProgram();
      switch (goalNow.mode) {
        case 'segment':
          realGoal = null;
          return realProgram();
        case 'turn':
          if (pendingImmediates > 0) {
            // Queued by the drain after the segment: the turn ends after the batch they form.
            turnPending = true;
            return undefined;
          }
          turnPending = false;
          realGoal = null;
          return realProgram();
        case 'advance':
          return undefined; // the driver timer decides
        default: // 'idle', 'final'
          if (pendingImmediates > 0 || refTimers > 0) return undefined;
          if (goalNow.mode === 'final') return finishReal();
          realGoal = null;
          return realProgram();
      }
    }

    function probe() {
      probeQueued = false;
      current = self;
      if (uncaughtSeen) {
        // Node queued its own setImmediate(noop) after the exception, and the ticks a throwing
        // tick left drain around it: decide after it.
        uncaughtSeen = false;
        queueProbe();
        return;
      }
      try {
        realCheckGoal();
      } catch (e) {
        if (segmentThrew) {
          segmentThrew = false;
          throw e;
        }
        internalError = e;
        finishReal();
      }
    }

    function finishReal() {
      if (finished) return;
      stopped = true;
      for (const h of realHandles) {
        if (h.constructor.name === 'Immediate') clearImmediate(h);
        else clearTimeout(h);
      }
      realHandles.clear();
      finish();
    }

    function startReal() {
      getRealBindings();
      realImmediateDriver = setImmediate(() => {
        current = self;
        looping = true;
        base = libuvNow();
        segmentThrew = false;
        realProgram();
      });
    }
    let realImmediateDriver = null;

    const self = {
      lines,
      log,
      fmt,
      cb,
      try: tryRun,
      setTimeout: realClock ? (ms, fn) => realTimeout(ms, fn, true, false) : setTimeoutV,
      clearTimeout: realClock ? realClearTimeout : clearTimeoutV,
      setInterval: realClock ? (ms, fn) => realTimeout(ms, fn, true, true) : setIntervalV,
      ref: realClock ? (h) => realRef(h, true) : refV,
      unref: realClock ? (h) => realRef(h, false) : unrefV,
      setImmediate: realClock ? realSetImmediate : setImmediateV,
      clearImmediate: realClock ? realClearImmediate : clearImmediateV,
      timeoutSignal,
      native: nativeV,
      get asyncHooks() { return process.getBuiltinModule('node:async_hooks'); },
      gc: gcV,
      registry,
      keep,
      watch,
      alive,
      dependants,
      charge,
      listeners,
      any: anySignal,
      addAbortListener,
      dispose,
      deferred,
      resolve(p, v) { resolverOf(p).resolve(v); },
      reject(p, v) { resolverOf(p).reject(v); },
      // `thenable V [{ ... }]`: its script code runs inside then, on the thenable, before it resolves.
      thenable(v, body) {
        return { then(resolve) { if (body !== undefined) Reflect.apply(body, this, []); resolve(v); } };
      },
      // `ruler N`: Promise.resolve() and a chain of N thens, the K-th logging tK (Runtime::ruler).
      ruler(n) {
        let p = Promise.resolve();
        for (let k = 1; k <= n; k++) p = p.then(() => { log(`t${k}`); });
      },
      // `from async [...]`: an async generator yielding each value in turn (Runtime::new_async_generator).
      asyncGenerator(values) {
        return (async function* () { for (let i = 0; i < values.length; i++) yield values[i]; })();
      },
      same: Object.is,
      eventType,
      withResolvers,
      processOff,
      add,
      less,
      segment,
      run,
      start,
      startModule,
      evaluate,
      evaluated,
      uncaught,
      get now() { return realClock ? nowV : now; },
      get finished() { return finished; },
      get stopped() { return stopped; },
    };
    return self;
  };
})();

if (typeof module !== 'undefined' && module.exports) module.exports = { createScenario };
