// Why this file exists: the Node 26.12.1 side of the model test `is_trusted_only_for_node_abort_events` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let c;
$.segment(() => {
  c = new AbortController();
  c.signal.addEventListener("abort", $.cb((event) => { $.log(event, event.isTrusted, event.target, event.cancelable); }));
  c.signal.dispatchEvent(new Event("abort"));
  $.log("still", c.signal.aborted);
  c.abort();
});
// log: Event(abort) false [AbortSignal] false
// log: still false
// log: Event(abort) true [AbortSignal] false
