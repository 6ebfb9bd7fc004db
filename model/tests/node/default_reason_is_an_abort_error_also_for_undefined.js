// Why this file exists: the Node 26.12.1 side of the model test `default_reason_is_an_abort_error_also_for_undefined` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let c, d, s, u, r;
$.segment(() => {
  c = new AbortController();
  $.log(c.signal.aborted, c.signal.reason);
  c.abort();
  $.log(c.signal.aborted, c.signal.reason);
  d = new AbortController();
  d.abort(undefined);
  $.log(d.signal.reason, d.signal.reason.name);
  s = AbortSignal.abort();
  $.log(s.aborted, s.reason);
  u = AbortSignal.abort(undefined);
  $.log(u.reason);
  r = AbortSignal.abort(0);
  $.log(r.aborted, r.reason);
});
// log: false undefined
// log: true AbortError: This operation was aborted
// log: AbortError: This operation was aborted AbortError
// log: true AbortError: This operation was aborted
// log: AbortError: This operation was aborted
// log: true 0
