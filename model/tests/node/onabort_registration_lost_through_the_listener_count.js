// Why this file exists: the Node 26.12.1 side of the model test `onabort_registration_lost_through_the_listener_count` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let c, s, g, c2, s2;
$.segment(() => {
  c = new AbortController();
  s = c.signal;
  s.onabort = $.cb((event) => { $.log("f"); });
  s.onabort = null;
  g = $.cb((event) => { $.log("g"); });
  s.addEventListener("abort", g);
  s.removeEventListener("abort", g);
  s.addEventListener("abort", $.cb((event) => { $.log("k"); }));
  s.onabort = $.cb((event) => { $.log("h"); });
  $.log("handler set", s.onabort);
  c.abort();
  c2 = new AbortController();
  s2 = c2.signal;
  s2.onabort = $.cb((event) => { $.log("f2"); });
  s2.onabort = null;
  s2.addEventListener("abort", g);
  s2.removeEventListener("abort", g);
  s2.onabort = $.cb((event) => { $.log("h2"); });
  s2.addEventListener("abort", $.cb((event) => { $.log("after h2"); }));
  c2.abort();
});
// log: handler set [Function]
// log: k
// log: h2
// log: after h2
