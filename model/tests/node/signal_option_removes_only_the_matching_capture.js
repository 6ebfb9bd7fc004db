// Why this file exists: the Node 26.12.1 side of the model test `signal_option_removes_only_the_matching_capture` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let c, t, f;
$.segment(() => {
  c = new AbortController();
  t = new EventTarget();
  f = $.cb((event) => { $.log("f", event.type); });
  t.addEventListener("x", f, { capture: true, signal: c.signal });
  t.addEventListener("x", f);
  t.dispatchEvent(new Event("x"));
  c.abort();
  t.dispatchEvent(new Event("x"));
});
// log: f x
// log: f x
// log: f x
