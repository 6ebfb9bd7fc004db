// Why this file exists: the Node 26.12.1 side of the model test `a_listener_returning_a_rejected_promise_is_reported` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let t, p;
$.segment(() => {
  t = new EventTarget();
  p = Promise.reject(new Error("rej"));
  t.addEventListener("x", $.cb((event) => { $.log("returns a rejected promise"); return p; }));
  t.addEventListener("x", $.cb((event) => { const th = $.thenable(1); return th; }));
  t.addEventListener("x", $.cb((event) => { return 5; }));
  t.dispatchEvent(new Event("x"));
  queueMicrotask($.cb(() => { $.log("micro"); }));
  $.log("main");
});
// log: returns a rejected promise
// log: main
// log: uncaught TypeError: resolve is not a function
// log: micro
// log: uncaught Error: rej
