// Why this file exists: the Node 26.12.1 side of the model test `listener_identity_is_callback_and_capture` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let t, f;
$.segment(() => {
  t = new EventTarget();
  f = $.cb((event) => { $.log("f", event.type); });
  t.addEventListener("x", f);
  t.addEventListener("x", f, { once: true });
  t.addEventListener("x", f, { capture: true });
  t.dispatchEvent(new Event("x"));
  t.dispatchEvent(new Event("x"));
  t.removeEventListener("x", f);
  t.dispatchEvent(new Event("x"));
  t.removeEventListener("x", f, { capture: true });
  t.dispatchEvent(new Event("x"));
  $.log("done");
});
// log: f x
// log: f x
// log: f x
// log: f x
// log: f x
// log: done
