// Why this file exists: the Node 26.12.1 side of the model test `prevent_default_cancelable_passive_and_the_return_value` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let t, r1, r2;
$.segment(() => {
  t = new EventTarget();
  t.addEventListener("x", $.cb((event) => { event.preventDefault(); $.log("passive", event.defaultPrevented, event.returnValue); }), { passive: true });
  t.addEventListener("x", $.cb((event) => {
    $.log("before", event.defaultPrevented, event.returnValue, event.cancelable);
    event.preventDefault();
    $.log("after", event.defaultPrevented, event.returnValue);
  }));
  r1 = t.dispatchEvent(new Event("x"));
  r2 = t.dispatchEvent(new Event("x", { cancelable: true }));
  $.log(r1, r2);
});
// log: passive false true
// log: before false true false
// log: after false true
// log: passive false true
// log: before false true true
// log: after true false
// log: true false
