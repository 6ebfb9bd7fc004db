// Why this file exists: the Node 26.12.1 side of the model test `stop_immediate_propagation_skips_the_rest` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let t, r;
$.segment(() => {
  t = new EventTarget();
  t.addEventListener("x", $.cb((event) => { $.log("A"); event.stopImmediatePropagation(); $.log("A after stop", event.cancelBubble); }));
  t.addEventListener("x", $.cb((event) => { $.log("once B"); }), { once: true });
  t.dispatchEvent(new Event("x"));
  t.addEventListener("x", $.cb((event) => { $.log("C"); }));
  r = t.dispatchEvent(new Event("x", { cancelable: true }));
  $.log(r);
});
// log: A
// log: A after stop true
// log: A
// log: A after stop true
// log: true
