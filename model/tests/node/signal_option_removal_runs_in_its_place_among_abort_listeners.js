// Why this file exists: the Node 26.12.1 side of the model test `signal_option_removal_runs_in_its_place_among_abort_listeners` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let c, t;
$.segment(() => {
  c = new AbortController();
  t = new EventTarget();
  c.signal.addEventListener("abort", $.cb((event) => { $.log("first abort listener"); event.stopImmediatePropagation(); t.dispatchEvent(new Event("y")); }));
  t.addEventListener("y", $.cb((event) => { $.log("F"); }), { signal: c.signal });
  c.signal.addEventListener("abort", $.cb((event) => { $.log("skipped"); }));
  c.abort();
  t.dispatchEvent(new Event("y"));
  $.log("end");
});
// log: first abort listener
// log: F
// log: end
