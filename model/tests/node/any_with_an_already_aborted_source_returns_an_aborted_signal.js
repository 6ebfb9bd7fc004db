// Why this file exists: the Node 26.12.1 side of the model test `any_with_an_already_aborted_source_returns_an_aborted_signal` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let a, x, y, s;
$.segment(() => {
  a = new AbortController();
  x = AbortSignal.abort("x");
  y = AbortSignal.abort("y");
  s = AbortSignal.any([a.signal, y, x]);
  $.log(s.aborted, s.reason);
  s.addEventListener("abort", $.cb((event) => { $.log("never"); }));
  a.abort("late");
  $.log(s.reason);
});
// log: true y
// log: y
