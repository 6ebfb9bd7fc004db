// Why this file exists: nodesem's Node engine runs many scenarios on real Node.js without paying
// a process start (~18 ms) per scenario. This long-lived server loads the prelude once, reads
// scenario requests as JSON lines on stdin and answers each with one JSON line on stdout, running
// the scenarios one at a time, each with a fresh `$`, so that no scenario sees another's output.
//
// Run: node --expose-gc --expose-internals harness/js/server.js
// In:  {"id": 7, "code": "<scenario body>"}            optional: "budget", "maxDepth"
//      The body runs in strict mode, like the standalone ES module `nodesem emit-js` writes, as
//      a function of `$` (its scenario object) and `events` (the node:events module, which the
//      standalone program imports under the same name for `events.addAbortListener`).
// Out: {"ready":true}                                   once, at start
//      {"id":7,"status":"ok","log":["line",...]}
//      {"id":7,"status":"error","error":"SyntaxError: ...","log":[...]}
// Exits with status 0 when stdin ends and every request has been answered.
'use strict';

const path = require('node:path');
const events = require('node:events');
const { createScenario } = require(path.join(__dirname, 'prelude.js'));

// stdout carries the protocol only: anything a scenario (or Node code it calls) prints with
// console goes to stderr instead.
const stdoutWrite = process.stdout.write.bind(process.stdout);
for (const name of ['log', 'info', 'debug', 'dir', 'table', 'trace', 'group', 'groupCollapsed']) {
  console[name] = console.error.bind(console);
}
process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);

function send(obj) {
  stdoutWrite(JSON.stringify(obj) + '\n');
}

function describeError(e) {
  if (e !== null && typeof e === 'object' && 'name' in e && 'message' in e) return `${e.name}: ${e.message}`;
  return String(e);
}

const queue = [];
let head = 0;
let pending = '';
let running = false;
let inputEnded = false;

// Runs queued requests one at a time. A request that fails before it starts (bad JSON, a
// SyntaxError) is answered at once and the loop goes on; a started scenario answers from its
// completion callback, which calls runNext again.
function runNext() {
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

function runOne(line) {
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    send({ id: null, status: 'error', error: `bad request: ${describeError(e)}`, log: [] });
    return;
  }
  const id = req.id ?? null;
  if (typeof req.code !== 'string') {
    send({ id, status: 'error', error: 'bad request: "code" must be a string', log: [] });
    return;
  }
  let body;
  try {
    body = new Function('$', 'events', `'use strict';\n${req.code}`);
  } catch (e) {
    send({ id, status: 'error', error: describeError(e), log: [] });
    return;
  }
  const options = {};
  if (req.budget != null) options.budget = req.budget;
  if (req.maxDepth != null) options.maxDepth = req.maxDepth;
  const $ = createScenario(options);
  try {
    body($, events);
  } catch (e) {
    send({ id, status: 'error', error: describeError(e), log: $.lines });
    return;
  }
  running = true;
  $.start((lines, internalError) => {
    if (internalError) {
      send({ id, status: 'error', error: `nodesem prelude: ${describeError(internalError)}`, log: lines });
    } else {
      send({ id, status: 'ok', log: lines });
    }
    // The next scenario starts from a fresh real callback: whatever a stopped scenario left in
    // Node's nextTick and microtask queues drains first, while no scenario is current, so
    // nothing of it can reach the next scenario's log.
    setImmediate(() => {
      running = false;
      runNext();
    });
  });
}

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let start = 0;
  let nl;
  while ((nl = pending.indexOf('\n', start)) !== -1) {
    const line = pending.slice(start, nl);
    start = nl + 1;
    if (line.trim() !== '') queue.push(line);
  }
  pending = pending.slice(start);
  runNext();
});
process.stdin.on('end', () => {
  if (pending.trim() !== '') queue.push(pending);
  pending = '';
  inputEnded = true;
  runNext();
});

send({ ready: true });
