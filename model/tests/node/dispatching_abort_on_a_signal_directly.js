// Why this file exists: the Node 26.12.1 side of the model test `dispatching_abort_on_a_signal_directly` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
import { addAbortListener } from 'node:events';
let c, d, r;
$.segment(() => {
  c = new AbortController();
  c.signal.onabort = $.cb((event) => { $.log("onabort", event.isTrusted); });
  d = addAbortListener(c.signal, $.cb((event) => { $.log("abort listener", event.isTrusted); }));
  c.signal.addEventListener("abort", $.cb((event) => { $.log("once"); }), { once: true });
  r = c.signal.dispatchEvent(new Event("abort", { cancelable: true }));
  $.log("dispatched", r, c.signal.aborted);
  c.abort("real");
  $.log(c.signal.reason);
});
// log: onabort false
// log: abort listener false
// log: once
// log: dispatched true false
// log: onabort true
// log: real
