// Why this file exists: the Node 26.12.1 side of the model test `reentrant_abort_keeps_the_first_reason_and_fires_once` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let a, b, ab;
$.segment(() => {
  a = new AbortController();
  b = new AbortController();
  ab = AbortSignal.any([a.signal, b.signal]);
  a.signal.addEventListener("abort", $.cb((event) => { $.log("a fired", ab.aborted, ab.reason); b.abort("second"); }));
  b.signal.addEventListener("abort", $.cb((event) => { $.log("b fired", b.signal.reason); }));
  ab.addEventListener("abort", $.cb((event) => { $.log("ab fired", ab.reason); }));
  a.abort("first");
  a.abort("again");
  $.log(a.signal.reason);
});
// log: a fired true first
// log: b fired second
// log: ab fired first
// log: first
