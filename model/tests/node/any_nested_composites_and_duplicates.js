// Why this file exists: the Node 26.12.1 side of the model test `any_nested_composites_and_duplicates` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let a, b, c1, c2, c3;
$.segment(() => {
  a = new AbortController();
  b = new AbortController();
  c1 = AbortSignal.any([a.signal, a.signal]);
  c2 = AbortSignal.any([c1, b.signal, c1]);
  c3 = AbortSignal.any([c2]);
  c3.addEventListener("abort", $.cb((event) => { $.log("c3", c3.reason); }));
  c2.addEventListener("abort", $.cb((event) => { $.log("c2", c2.reason); }));
  c1.addEventListener("abort", $.cb((event) => { $.log("c1", c1.reason); }));
  a.signal.addEventListener("abort", $.cb((event) => { $.log("a", c1.aborted, c2.aborted, c3.aborted); }));
  a.abort("A");
  b.abort("B");
  $.log(c2.reason, c3.reason);
});
// log: a true true true
// log: c1 A
// log: c2 A
// log: c3 A
// log: A A
