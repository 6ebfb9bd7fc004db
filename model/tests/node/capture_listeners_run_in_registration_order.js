// Why this file exists: the Node 26.12.1 side of the model test `capture_listeners_run_in_registration_order` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let t;
$.segment(() => {
  t = new EventTarget();
  t.addEventListener("x", $.cb((event) => { $.log("A bubble", event.cancelBubble); }));
  t.addEventListener("x", $.cb((event) => { $.log("B capture"); event.stopPropagation(); }), { capture: true });
  t.addEventListener("x", $.cb((event) => { $.log("C bubble", event.cancelBubble); }));
  t.dispatchEvent(new Event("x"));
});
// log: A bubble false
// log: B capture
// log: C bubble true
