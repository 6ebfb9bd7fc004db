// Why this file exists: nodesem's Node engine runs many scenarios on real Node.js without paying
// a process start (~18 ms) per scenario. This long-lived server loads the prelude once, reads
// scenario requests as JSON lines on stdin and answers each with JSON lines on stdout, running
// the scenarios one at a time, each with a fresh `$`, so that no scenario sees another's output.
//
// Run, as nodesem does (no file on disk: the prelude, then this file, as one -e argument):
//      node --expose-gc --expose-internals -e "'use strict';<prelude.js><server.js>"
// or, from a checkout (then `createScenario` is not defined yet and ./prelude.js is required):
//      node --expose-gc --expose-internals harness/js/server.js
// In:  {"id": 7, "code": "<scenario body>"}
//      optional: "budget", "maxDepth", "work", "maxLogBytes" (passed to createScenario)
//      The body runs in strict mode, like the standalone ES module `nodesem emit-js` writes, as
//      a function of `$` (its scenario object) and `events` (the node:events module, which the
//      standalone program imports under the same name for `events.addAbortListener`).
//      optional: "module": true, for a `use module` scenario: the body is then the code of a
//      real ES module (see runModule), evaluated by Node's own ESM loader.
// Out: {"ready":true}                                   once, at start
//      {"id":7,"started":true}                          the acknowledgement: request 7 starts now
//      {"id":7,"status":"ok","log":["line",...]}        its answer, after the acknowledgement
//      {"id":7,"status":"error","error":"SyntaxError: ...","log":[...]}
//      {"id":null,"status":"error","error":"bad request: ..."}   a line that is not JSON (no
//                                                       acknowledgement: it never starts)
// A request starts only once its acknowledgement has been handed to the kernel, and the answer
// of the one before it is written before that; so if this process dies, the request that was
// acknowledged and not answered is the one that was running, and if none is, the last answered
// one was settling its leftovers (or nothing was running at all).
// Exits with status 0 when stdin ends and every request has been answered. A watchdog thread
// kills the process when its parent (nodesem) dies, even while a scenario never returns.
'use strict';

const events = require('node:events');
// Under -e the prelude comes first in the same script and has declared `createScenario`; as a
// file this script requires the prelude beside it. (`typeof` of an undeclared name is safe.)
const makeScenario = typeof createScenario === 'function'
  ? createScenario
  : require(require('node:path').join(__dirname, 'prelude.js')).createScenario;

// ---- the parent-death watchdog ---------------------------------------------------------------

// When nodesem dies without closing our stdin in a way we can see (SIGKILL while a scenario spins
// in `for (;;) {}`, so the main thread never reads stdin again), this process would run for ever.
// A worker thread has its own event loop, so it keeps polling while the main thread spins: when
// the parent process id changes (we were re-parented), it kills this whole process. It is
// unref'd, never messages the main thread, and its errors are ignored, so no scenario can
// observe it: a scenario runs inside one real setImmediate callback of the main thread. But the
// worker's start does reach the main thread: three MessagePort messages up to its 'online' event
// (measured on 26.12.1, 40 to 360 ms after the process starts), each an I/O callback whose
// callback scope drains ticks. A scenario whose gc lets the real loop turn (prelude.js, the poll
// phase's hops) must not meet one, so the server says it is ready only once the worker is online
// (`then` is called then, or at once when there is no worker).
function startWatchdog(then) {
  let Worker;
  try {
    ({ Worker } = require('node:worker_threads'));
  } catch {
    then();
    return;
  }
  let started = false;
  const go = () => {
    if (!started) {
      started = true;
      then();
    }
  };
  const source = `
    const { workerData } = require('node:worker_threads');
    const timer = setInterval(() => {
      if (process.ppid !== workerData.ppid) {
        clearInterval(timer);
        process.kill(workerData.pid, 'SIGKILL');
      }
    }, 200);
  `;
  try {
    const watchdog = new Worker(source, {
      eval: true,
      execArgv: [],
      workerData: { ppid: process.ppid, pid: process.pid },
      stdout: true, // the worker's own output, if any, goes nowhere
      stderr: true,
    });
    watchdog.on('error', go);
    watchdog.once('online', go);
    watchdog.once('exit', go);
    watchdog.unref();
  } catch {
    // Without a watchdog the server still works; nodesem also kills its workers itself.
    go();
  }
}

// ---- the protocol ----------------------------------------------------------------------------

// stdout carries the protocol only: anything a scenario (or Node code it calls) prints with
// console goes to stderr instead.
const stdoutWrite = process.stdout.write.bind(process.stdout);
for (const name of ['log', 'info', 'debug', 'dir', 'table', 'trace', 'group', 'groupCollapsed']) {
  console[name] = console.error.bind(console);
}
process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);

function send(obj, callback) {
  stdoutWrite(JSON.stringify(obj) + '\n', callback);
}

function describeError(e) {
  if (e !== null && typeof e === 'object' && 'name' in e && 'message' in e) return `${e.name}: ${e.message}`;
  return String(e);
}

const queue = [];
let head = 0;
let running = false;
let inputEnded = false;
let ready = false; // the module loader is warm: requests may run

// Runs queued requests one at a time. A request that is not JSON is answered at once and the loop
// goes on; every other request is acknowledged, and runs once the acknowledgement is written; it
// answers (at once for a SyntaxError, else from its completion callback) and then calls runNext
// again from a fresh real callback.
function runNext() {
  if (!ready) return;
  while (!running && head < queue.length) {
    const line = queue[head];
    queue[head++] = undefined;
    runOne(line);
  }
  if (!running && head === queue.length) {
    queue.length = 0;
    head = 0;
    if (inputEnded) stdoutWrite('', () => process.exit(0));
  }
}

// Lets the next request start from a fresh real callback: whatever the last scenario left in
// Node's nextTick and microtask queues (a budget-stopped one may leave jobs) drains first, while
// no scenario is current, so nothing of it can reach the next scenario's log.
function finishOne() {
  setImmediate(() => {
    running = false;
    runNext();
  });
}

function runOne(line) {
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    send({ id: null, status: 'error', error: `bad request: ${describeError(e)}`, log: [] });
    return;
  }
  const id = req !== null && typeof req === 'object' ? req.id ?? null : null;
  running = true;
  // The acknowledgement reaches the kernel (after the answer of the request before it) before
  // anything of this request runs: a crash from here on is this request's.
  send({ id, started: true }, (error) => {
    if (error) return; // stdout is gone: nodesem is gone
    if (execute(id, req)) finishOne();
  });
}

// Runs one acknowledged request; returns true when it has already answered (it never started a
// scenario), false when the scenario's completion callback will.
function execute(id, req) {
  if (req === null || typeof req !== 'object' || typeof req.code !== 'string') {
    send({ id, status: 'error', error: 'bad request: "code" must be a string', log: [] });
    return true;
  }
  if (req.module === true) {
    runModule(id, req);
    return false;
  }
  let body;
  try {
    body = new Function('$', 'events', `'use strict';\n${req.code}`);
  } catch (e) {
    send({ id, status: 'error', error: describeError(e), log: [] });
    return true;
  }
  const options = {};
  for (const name of ['budget', 'maxDepth', 'work', 'maxLogBytes', 'clock', 'scale']) {
    if (req[name] != null) options[name] = req[name];
  }
  const $ = makeScenario(options);
  try {
    body($, events);
  } catch (e) {
    send({ id, status: 'error', error: describeError(e), log: $.lines });
    return true;
  }
  $.start((lines, internalError) => {
    if (internalError && internalError.fatal === true) {
      // This process is broken for good (the prelude says why): the answer is written at once,
      // as the loop may never turn again, and the worker exits; nodesem starts another.
      require('node:fs').writeSync(1, JSON.stringify({ id, status: 'error', error: `nodesem prelude: ${describeError(internalError)}`, log: lines }) + '\n');
      process.exit(70);
    }
    if (internalError) {
      send({ id, status: 'error', error: `nodesem prelude: ${describeError(internalError)}`, log: lines });
    } else {
      send({ id, status: 'ok', log: lines });
    }
    finishOne();
  });
  return false;
}

// ---- `use module` scenarios -------------------------------------------------------------------

// The `$` of the module being evaluated, which its code reads (a data: URL module has no other
// way to receive an object).
const MODULE_SCENARIO = Symbol.for('nodesem.moduleScenario');
// Each module gets a URL of its own (Node's loader caches modules by URL, so the same code twice
// would be evaluated once). Node never frees a module record: nodesem retires a worker after a
// bounded number of module scenarios (MAX_MODULES_PER_WORKER in harness/src/node.rs).
let modulesRun = 0;
let runEntryPoint;

// A `use module` scenario: its body is the code of an ES module, evaluated the way Node evaluates
// the main script of `node main.mjs`: through runEntryPointWithESMLoader and the cascaded loader's
// import() (lib/internal/modules/run_main.js), so that the module's evaluation runs inside the
// loader's promise jobs and a top-level throw takes the same awaits to 'uncaughtException' as the
// main entry's. The import starts inside the virtual loop's one real callback, which drains as
// the close of Node's callback scope would, before the loop begins ($.startModule, runAll in the
// prelude). The URL is data:, so no file is written; the body imports node:events itself.
function runModule(id, req) {
  const options = {};
  for (const name of ['budget', 'maxDepth', 'work', 'maxLogBytes', 'clock', 'scale']) {
    if (req[name] != null) options[name] = req[name];
  }
  const $ = makeScenario(options);
  modulesRun += 1;
  const source = `import events from "node:events";\nconst $ = globalThis[Symbol.for('nodesem.moduleScenario')];\n${req.code}\n// nodesem module ${modulesRun}\n`;
  const url = `data:text/javascript,${encodeURIComponent(source)}`;
  globalThis[MODULE_SCENARIO] = $;
  $.startModule((lines, internalError, loadError) => {
    delete globalThis[MODULE_SCENARIO];
    if (loadError) {
      send({ id, status: 'error', error: describeError(loadError), log: lines });
    } else if (internalError) {
      send({ id, status: 'error', error: `nodesem prelude: ${describeError(internalError)}`, log: lines });
    } else {
      send({ id, status: 'ok', log: lines });
    }
    finishOne();
  }, () => {
    runEntryPoint((loader) => loader.import(url, undefined, { __proto__: null }));
  });
}

// Node's ESM loader does work of its own the first time it imports (initializing the cascaded
// loader, loading its own modules). One empty module, imported before the server says it is
// ready, does that work outside any scenario, so every module scenario meets the same warm
// loader and the first one of a worker takes no longer than the others.
function warmModuleLoader(then) {
  let settled;
  try {
    runEntryPoint = require('internal/modules/run_main').runEntryPointWithESMLoader;
    settled = runEntryPoint((loader) => loader.import('data:text/javascript,export%20%7B%7D%3B', undefined, { __proto__: null }));
  } catch (e) {
    // Without the loader's internals only module scenarios fail, each with its error.
    runEntryPoint = () => { throw e; };
    then();
    return;
  }
  Promise.resolve(settled).then(() => setImmediate(then), () => setImmediate(then));
}

// The input, read in linear time however long a line is: each chunk is scanned once for line
// breaks, and the pieces of a line are joined once, when its end arrives.
let partial = [];
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  let start = 0;
  let nl;
  while ((nl = chunk.indexOf('\n', start)) !== -1) {
    partial.push(chunk.slice(start, nl));
    const line = partial.length === 1 ? partial[0] : partial.join('');
    partial = [];
    start = nl + 1;
    if (line.trim() !== '') queue.push(line);
  }
  if (start < chunk.length) partial.push(chunk.slice(start));
  runNext();
});
process.stdin.on('end', () => {
  const rest = partial.join('');
  partial = [];
  if (rest.trim() !== '') queue.push(rest);
  inputEnded = true;
  runNext();
});

// ---- the internals the prelude relies on --------------------------------------------------------

// Everything of Node's internals that the prelude (and this server) touch, probed once before any
// scenario: a Node build where one of them moved or changed would not fail, it would print wrong
// logs (a drain in the wrong place, a frame not restored). Returns what is missing, each as
// `what (why it is needed)`. NODESEM_PROBE_EXTRA (comma-separated builtin module ids) adds modules
// to probe, for the tests of this very check; nodesem never sets it.
function missingInternals() {
  const missing = [];
  const has = (ok, what) => {
    let present;
    try { present = ok(); } catch { present = false; }
    if (!present) missing.push(what);
  };
  const get = process.getBuiltinModule;
  if (typeof get !== 'function') {
    missing.push('process.getBuiltinModule (the prelude loads every internal through it; Node >= 20.16)');
    return missing;
  }
  const mod = (id) => {
    try { return get(id); } catch { return undefined; }
  };
  const timers = mod('internal/timers');
  if (timers == null) {
    missing.push('internal/timers (the driver, $.timeoutSignal, the real clock; run node with --expose-internals)');
  } else {
    has(() => typeof timers.timerListMap === 'object', 'internal/timers.timerListMap ($.timeoutSignal finds its real timer there)');
    has(() => timers.immediateQueue != null && 'head' in timers.immediateQueue, 'internal/timers.immediateQueue.head (the driver clears the noop immediates Node queues)');
    has(() => typeof timers.Timeout === 'function', 'internal/timers.Timeout (the real clock)');
    has(() => typeof timers.insert === 'function' && timers.insert.length >= 2, 'internal/timers.insert (the real clock inserts timers with their virtual start)');
    has(() => timers.timerListQueue != null && typeof timers.timerListQueue.peek === 'function', 'internal/timers.timerListQueue.peek (the real clock)');
    has(() => typeof timers.kRefed === 'symbol', 'internal/timers.kRefed (the real clock)');
    // A real timer as $.timeoutSignal finds it: alone in the list of its duration, with the
    // fields the prelude reads.
    has(() => {
      const delay = 2 ** 31 - 2;
      const t = setTimeout(() => {}, delay);
      t.unref();
      try {
        const list = timers.timerListMap[delay];
        return list !== undefined && list._idlePrev === t && t._idleTimeout === delay && typeof t._onTimeout === 'function';
      } finally {
        clearTimeout(t);
      }
    }, 'the fields of a real Timeout and its list (_idlePrev, _idleTimeout, _onTimeout)');
    has(() => {
      const im = setImmediate(() => {});
      try {
        return typeof im._onImmediate === 'function' && '_idleNext' in im;
      } finally {
        clearImmediate(im);
      }
    }, 'the fields of a real Immediate (_onImmediate, _idleNext)');
  }
  const queues = mod('internal/process/task_queues');
  has(() => typeof queues.setupTaskQueue === 'function' && typeof queues.setupTaskQueue().runNextTicks === 'function',
    'internal/process/task_queues.setupTaskQueue().runNextTicks (the drain between two macrotasks)');
  const emitWarning = process.emitWarning;
  let testBinding;
  try {
    process.emitWarning = () => {};
    testBinding = mod('internal/test/binding');
    has(() => {
      const b = testBinding.internalBinding('task_queue');
      return typeof b.setTickCallback === 'function' && b.tickInfo != null;
    }, "internalBinding('task_queue').setTickCallback and tickInfo (the tick callback)");
    has(() => {
      const b = testBinding.internalBinding('timers');
      return typeof b.getLibuvNow === 'function' && typeof b.scheduleTimer === 'function';
    }, "internalBinding('timers').getLibuvNow and scheduleTimer (the real clock)");
  } finally {
    process.emitWarning = emitWarning;
  }
  const hooks = mod('internal/async_hooks');
  has(() => typeof hooks.executionAsyncId === 'function' && typeof hooks.popAsyncContext === 'function',
    'internal/async_hooks.executionAsyncId and popAsyncContext (restoring the async stack after a throwing tick)');
  // The async context frame exists from Node 24 on (AsyncLocalStorage before it is built on async
  // hooks, and the prelude has no frame to keep): required where it should be.
  if (Number(process.versions.node.split('.')[0]) >= 24) {
    const frame = mod('internal/async_context_frame');
    has(() => ['current', 'exchange', 'set'].every((m) => typeof frame[m] === 'function'),
      'internal/async_context_frame.current, exchange and set (timers and immediates keep their frame)');
  }
  has(() => typeof mod('internal/modules/run_main').runEntryPointWithESMLoader === 'function',
    'internal/modules/run_main.runEntryPointWithESMLoader (`use module` scenarios)');
  const extra = process.env.NODESEM_PROBE_EXTRA;
  if (typeof extra === 'string' && extra !== '') {
    for (const id of extra.split(',')) {
      if (mod(id) == null) missing.push(`${id} (NODESEM_PROBE_EXTRA)`);
    }
  }
  return missing;
}

const missing = missingInternals();
if (missing.length > 0) {
  // One line, the protocol's first: nodesem shows it once for the whole run.
  require('node:fs').writeSync(1, JSON.stringify({
    ready: false,
    error: `node ${process.version} lacks Node internals nodesem's prelude relies on: ${missing.join('; ')}`,
  }) + '\n');
  process.exit(78);
}

startWatchdog(() => warmModuleLoader(() => {
  ready = true;
  send({ ready: true });
  runNext();
}));
