// Why this file exists: the Node 26.12.1 side of the model test `onabort_null_first_still_takes_a_position` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let c;
$.segment(() => {
  c = new AbortController();
  c.signal.onabort = null;
  c.signal.addEventListener("abort", $.cb((event) => { $.log("A"); }));
  c.signal.onabort = $.cb((event) => { $.log("H"); });
  c.abort();
});
// log: H
// log: A
