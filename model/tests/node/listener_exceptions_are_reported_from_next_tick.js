// Why this file exists: the Node 26.12.1 side of the model test `listener_exceptions_are_reported_from_next_tick` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let t, r;
$.segment(() => {
  t = new EventTarget();
  t.addEventListener("x", $.cb((event) => { $.log("l1"); throw new Error("x"); }));
  t.addEventListener("x", $.cb((event) => { $.log("l2"); }));
  process.nextTick($.cb(() => { $.log("tick queued before dispatch"); }));
  r = t.dispatchEvent(new Event("x"));
  $.log("after dispatch", r);
  queueMicrotask($.cb(() => { $.log("micro"); }));
  process.nextTick($.cb(() => { $.log("tick queued after dispatch"); }));
});
// log: l1
// log: l2
// log: after dispatch true
// log: tick queued before dispatch
// log: uncaught Error: x
// log: tick queued after dispatch
// log: micro
