// Why this file exists: the Node 26.12.1 side of the model test `throw_if_aborted_throws_the_reason` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let c, t;
$.segment(() => {
  c = new AbortController();
  $.try(() => { c.signal.throwIfAborted(); $.log("not aborted"); });
  c.abort(new Error("why"));
  $.try(() => { c.signal.throwIfAborted(); $.log("unreachable"); });
  t = AbortSignal.abort("plain");
  $.try(() => { t.throwIfAborted(); });
});
// log: not aborted
// log: caught Error: why
// log: caught plain
