// Why this file exists: the Node 26.12.1 side of the model test `abort_listener_exceptions_do_not_stop_the_abort` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let c, d;
$.segment(() => {
  c = new AbortController();
  d = AbortSignal.any([c.signal]);
  c.signal.addEventListener("abort", $.cb((event) => { throw new Error("first"); }));
  c.signal.addEventListener("abort", $.cb((event) => { $.log("second", d.aborted); }));
  d.addEventListener("abort", $.cb((event) => { throw new Error("dependent"); }));
  c.abort();
  $.log("after abort");
});
// log: second true
// log: after abort
// log: uncaught Error: first
// log: uncaught Error: dependent
