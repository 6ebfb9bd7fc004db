// Why this file exists: the Node 26.12.1 side of the model test `listeners_added_during_dispatch_follow_the_live_list` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let t1, t2, t3, b3;
$.segment(() => {
  t1 = new EventTarget();
  t1.addEventListener("x", $.cb((event) => { $.log("A1"); t1.addEventListener("x", $.cb((event) => { $.log("new behind B1 runs"); })); }));
  t1.addEventListener("x", $.cb((event) => { $.log("B1"); }));
  t1.dispatchEvent(new Event("x"));
  t2 = new EventTarget();
  t2.addEventListener("x", $.cb((event) => { $.log("A2 alone"); t2.addEventListener("x", $.cb((event) => { $.log("new behind the last does not run"); })); }));
  t2.dispatchEvent(new Event("x"));
  $.log("second dispatch");
  t2.dispatchEvent(new Event("x"));
  t3 = new EventTarget();
  b3 = $.cb((event) => { $.log("B3 removed"); });
  t3.addEventListener("x", $.cb((event) => { $.log("A3"); t3.removeEventListener("x", b3); t3.addEventListener("x", $.cb((event) => { $.log("new after removing the cached next does not run"); })); }));
  t3.addEventListener("x", b3);
  t3.dispatchEvent(new Event("x"));
});
// log: A1
// log: B1
// log: new behind B1 runs
// log: A2 alone
// log: second dispatch
// log: A2 alone
// log: new behind the last does not run
// log: new behind the last does not run
// log: A3
