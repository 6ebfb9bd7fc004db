// Why this file exists: the Node 26.12.1 side of the model test `listeners_removed_during_dispatch_never_run` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let t, b, c;
$.segment(() => {
  t = new EventTarget();
  b = $.cb((event) => { $.log("B"); });
  c = $.cb((event) => { $.log("C"); });
  t.addEventListener("x", $.cb((event) => { $.log("A"); t.removeEventListener("x", b); t.removeEventListener("x", c); t.addEventListener("x", c); }));
  t.addEventListener("x", b);
  t.addEventListener("x", c);
  t.addEventListener("x", $.cb((event) => { $.log("D"); }));
  t.dispatchEvent(new Event("x"));
});
// log: A
// log: D
// log: C
