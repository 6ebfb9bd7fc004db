// Why this file exists: the Node 26.12.1 side of the model test `add_abort_listener_resists_stop_immediate_propagation` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
import { addAbortListener } from 'node:events';
let c, d;
$.segment(() => {
  c = new AbortController();
  c.signal.addEventListener("abort", $.cb((event) => { $.log("first stops"); event.stopImmediatePropagation(); }));
  c.signal.addEventListener("abort", $.cb((event) => { $.log("skipped"); }));
  d = addAbortListener(c.signal, $.cb((event) => { $.log("abort listener", event.type, event.isTrusted, event.cancelBubble); }));
  c.signal.addEventListener("abort", $.cb((event) => { $.log("skipped too"); }));
  $.log(d);
  c.abort();
  c.signal.dispatchEvent(new Event("abort"));
});
// log: [Object]
// log: first stops
// log: abort listener abort true true
// log: first stops
