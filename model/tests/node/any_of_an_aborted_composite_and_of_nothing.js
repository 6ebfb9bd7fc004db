// Why this file exists: the Node 26.12.1 side of the model test `any_of_an_aborted_composite_and_of_nothing` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let a, c1, c2, e, e2;
$.segment(() => {
  a = new AbortController();
  c1 = AbortSignal.any([a.signal]);
  a.abort("gone");
  c2 = AbortSignal.any([c1]);
  $.log(c2.aborted, c2.reason);
  e = AbortSignal.any([]);
  e2 = AbortSignal.any([e]);
  $.log(e.aborted, e2.aborted);
});
// log: true gone
// log: false false
