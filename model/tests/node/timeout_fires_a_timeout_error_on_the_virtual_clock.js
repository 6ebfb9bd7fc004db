// Why this file exists: the Node 26.12.1 side of the model test `timeout_fires_a_timeout_error_on_the_virtual_clock` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let s;
$.segment(() => {
  s = $.timeoutSignal(10);
  s.addEventListener("abort", $.cb((event) => { $.log("abort", s.reason, s.reason.name, event.isTrusted); process.nextTick($.cb(() => { $.log("tick after abort"); })); }));
  $.setTimeout(10, $.cb(() => { $.log("timer 10 made after", s.aborted); }));
});
$.run("advance", 9);
$.segment(() => { $.log("at 9", s.aborted); });
$.run("advance", 1);
$.segment(() => { $.log("at 10", s.aborted); });
// log: at 9 false
// log: abort TimeoutError: The operation was aborted due to timeout TimeoutError true
// log: tick after abort
// log: timer 10 made after true
// log: at 10 true
