// Why this file exists: the Node 26.12.1 side of the model test `signal_option_with_an_aborted_signal_adds_nothing` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let s, t, r;
$.segment(() => {
  s = AbortSignal.abort();
  t = new EventTarget();
  t.addEventListener("x", $.cb((event) => { $.log("never"); }), { signal: s });
  r = t.dispatchEvent(new Event("x"));
  $.log("dispatched", r);
});
// log: dispatched true
