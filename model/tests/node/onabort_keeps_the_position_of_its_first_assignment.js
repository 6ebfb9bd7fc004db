// Why this file exists: the Node 26.12.1 side of the model test `onabort_keeps_the_position_of_its_first_assignment` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let c, s;
$.segment(() => {
  c = new AbortController();
  s = c.signal;
  $.log(s.onabort);
  s.addEventListener("abort", $.cb((event) => { $.log("A"); }));
  s.onabort = $.cb((event) => { $.log("H1"); });
  s.addEventListener("abort", $.cb((event) => { $.log("B"); }));
  s.onabort = $.cb((event) => { $.log("H2"); });
  s.onabort = null;
  $.log(s.onabort);
  s.onabort = $.cb((event) => { $.log("H3", event.type, event.isTrusted); });
  $.log(s.onabort);
  c.abort();
});
// log: null
// log: null
// log: [Function]
// log: A
// log: H3 abort true
// log: B
