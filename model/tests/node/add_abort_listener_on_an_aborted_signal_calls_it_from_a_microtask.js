// Why this file exists: the Node 26.12.1 side of the model test `add_abort_listener_on_an_aborted_signal_calls_it_from_a_microtask` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
import { addAbortListener } from 'node:events';
let s, d;
$.segment(() => {
  s = AbortSignal.abort("r");
  queueMicrotask($.cb(() => { $.log("micro before"); }));
  d = addAbortListener(s, $.cb((event) => {
    $.log("listener", event, event?.isTrusted, event?.eventPhase, event?.target, event?.currentTarget);
    queueMicrotask($.cb(() => { $.log("later", event.eventPhase, event.currentTarget); }));
  }));
  queueMicrotask($.cb(() => { $.log("micro after"); }));
  process.nextTick($.cb(() => { $.log("tick"); }));
  $.log("main");
});
// log: main
// log: tick
// log: micro before
// log: listener Event(abort) true 2 [AbortSignal] [AbortSignal]
// log: micro after
// log: later 0 null
