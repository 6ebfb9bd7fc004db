// Why this file exists: the Node 26.12.1 side of the model test `add_abort_listener_shares_identity_with_a_plain_listener` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
import { addAbortListener } from 'node:events';
let c, f, d;
$.segment(() => {
  c = new AbortController();
  f = $.cb((event) => { $.log("f"); });
  c.signal.addEventListener("abort", f);
  d = addAbortListener(c.signal, f);
  d[Symbol.dispose]();
  c.abort();
  $.log("aborted", c.signal.aborted);
});
// log: aborted true
