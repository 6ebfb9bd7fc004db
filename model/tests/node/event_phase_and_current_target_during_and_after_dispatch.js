// Why this file exists: the Node 26.12.1 side of the model test `event_phase_and_current_target_during_and_after_dispatch` in
// model/tests/node26.rs; run it with model/tests/node/confirm.mjs.
let t;
$.segment(() => {
  t = new EventTarget();
  t.addEventListener("x", $.cb((event) => { $.log("l1", event.eventPhase, event.currentTarget, event.target, event.srcElement); throw new Error("l1"); }));
  t.addEventListener("x", $.cb((event) => { $.log("l2", event.eventPhase, event.currentTarget); event.stopPropagation(); }));
  t.addEventListener("x", $.cb((event) => {
    $.log("l3", event.eventPhase, event.currentTarget, event.target);
    queueMicrotask($.cb(() => { $.log("after", event.eventPhase, event.currentTarget, event.target, event.cancelBubble, event.bubbles, event.composed); }));
  }));
  t.dispatchEvent(new Event("x"));
});
// log: l1 2 [EventTarget] [EventTarget] [EventTarget]
// log: l2 2 [EventTarget]
// log: l3 0 null [EventTarget]
// log: uncaught Error: l1
// log: after 0 null [EventTarget] true false false
