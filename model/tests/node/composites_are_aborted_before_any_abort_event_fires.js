// Why this file exists: the Node 26.12.1 side of the model test `composites_are_aborted_before_any_abort_event_fires` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let a, b, ab, only_a;
$.segment(() => {
  a = new AbortController();
  b = new AbortController();
  ab = AbortSignal.any([a.signal, b.signal]);
  only_a = AbortSignal.any([a.signal]);
  a.signal.addEventListener("abort", $.cb((event) => { $.log("a fired", ab.aborted, only_a.aborted); }));
  ab.addEventListener("abort", $.cb((event) => { $.log("ab fired", ab.reason); }));
  only_a.addEventListener("abort", $.cb((event) => { $.log("only_a fired"); }));
  queueMicrotask($.cb(() => { $.log("microtask"); }));
  a.abort("boom");
  $.log("after abort");
});
// log: a fired true true
// log: ab fired boom
// log: only_a fired
// log: after abort
// log: microtask
