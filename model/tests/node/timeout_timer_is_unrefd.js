// Why this file exists: the Node 26.12.1 side of the model test `timeout_timer_is_unrefd` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let s, t;
$.segment(() => {
  s = $.timeoutSignal(50);
  s.addEventListener("abort", $.cb((event) => { $.log("never"); }));
  t = AbortSignal.any([s]);
  t.addEventListener("abort", $.cb((event) => { $.log("never either"); }));
  $.log("end of main");
});
// log: end of main
