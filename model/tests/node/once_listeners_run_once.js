// Why this file exists: the Node 26.12.1 side of the model test `once_listeners_run_once` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let t;
$.segment(() => {
  t = new EventTarget();
  t.addEventListener("x", $.cb((event) => { $.log("once", event.type); t.dispatchEvent(new Event("x")); }), { once: true });
  t.addEventListener("x", $.cb((event) => { $.log("always"); }));
  t.dispatchEvent(new Event("x"));
  t.dispatchEvent(new Event("x"));
});
// log: once x
// log: always
// log: always
// log: always
