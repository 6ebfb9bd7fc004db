// Why this file exists: the Node 26.12.1 side of the model test `add_abort_listener_dispose` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
import { addAbortListener } from 'node:events';
let c, d, kept, s, d2;
$.segment(() => {
  c = new AbortController();
  d = addAbortListener(c.signal, $.cb((event) => { $.log("never"); }));
  kept = addAbortListener(c.signal, $.cb((event) => { $.log("kept"); }));
  d[Symbol.dispose]();
  d[Symbol.dispose]();
  s = AbortSignal.abort();
  d2 = addAbortListener(s, $.cb((event) => { $.log("never either"); }));
  d2[Symbol.dispose]();
  c.abort();
});
// log: kept
