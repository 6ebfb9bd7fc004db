// Why this file exists: the Node 26.12.1 side of the model test `add_abort_listener_exception_on_an_aborted_signal` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
import { addAbortListener } from 'node:events';
let s, d;
$.segment(() => {
  s = AbortSignal.abort();
  d = addAbortListener(s, $.cb((event) => { $.log("throws"); throw new Error("in microtask"); }));
  queueMicrotask($.cb(() => { $.log("next micro"); }));
  process.nextTick($.cb(() => { $.log("tick"); }));
});
// log: tick
// log: throws
// log: uncaught Error: in microtask
// log: next micro
