// Why this file exists: the Node 26.12.1 side of the model test `abort_inside_dispatch_of_another_target` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let c, t;
$.segment(() => {
  c = new AbortController();
  t = new EventTarget();
  t.addEventListener("x", $.cb((event) => { $.log("x1"); c.abort("from x1"); $.log("x1 after abort"); }));
  t.addEventListener("x", $.cb((event) => { $.log("never: removed by the abort"); }), { signal: c.signal });
  t.addEventListener("x", $.cb((event) => { $.log("x3"); }));
  c.signal.addEventListener("abort", $.cb((event) => { $.log("abort", c.signal.reason); }));
  t.dispatchEvent(new Event("x"));
});
// log: x1
// log: abort from x1
// log: x1 after abort
// log: x3
