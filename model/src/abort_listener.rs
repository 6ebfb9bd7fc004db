//! `events.addAbortListener(signal, listener)` and the Disposable it returns.
//!
//! It is not in the DOM Standard: Node added it so that libraries can listen
//! for abort safely (the listener runs even if an earlier one called
//! `stopImmediatePropagation()`), and so that an already aborted signal still
//! calls the listener, one microtask later. It has its own module because its
//! already-aborted path builds and "dispatches" an event by hand.
//!
//! NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/events/abort_listener.js#L27>

use std::cell::Cell;
use std::rc::Rc;

use nodesem_runtime::gc::Captures;
use nodesem_runtime::{Job, ObjectData, ObjectId, Runtime, Task, Value};

use crate::event_target::{self, ListenerOptions};
use crate::{abort, event, Model};

/// What `[Symbol.dispose]()` of the returned object undoes.
#[derive(Clone, Debug)]
pub enum Disposable {
    /// The signal was aborted: cancels the queued call (`disposed = true`).
    Queued {
        /// `disposed`.
        disposed: Rc<Cell<bool>>,
        /// The signal (in the function's context, which the method keeps).
        signal: ObjectId,
        /// The listener (likewise).
        listener: ObjectId,
    },
    /// The listener was added: removes it again.
    Listener {
        /// The signal.
        signal: ObjectId,
        /// The listener function.
        listener: ObjectId,
    },
}

impl Disposable {
    /// What its method's context holds strongly: the signal and the listener.
    pub fn holds(&self) -> (ObjectId, ObjectId) {
        match self {
            Disposable::Queued {
                signal, listener, ..
            }
            | Disposable::Listener { signal, listener } => (*signal, *listener),
        }
    }
}

/// `events.addAbortListener(signal, listener)`; returns the Disposable (a
/// null-prototype object, printed `[Object]`).
pub fn add_abort_listener(
    rt: &mut Runtime<Model>,
    signal: ObjectId,
    listener: ObjectId,
) -> ObjectId {
    let disposable = if abort::aborted(rt, signal) {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/events/abort_listener.js#L39-L47
        // queueMicrotask(() => { if (disposed) return; listener(event) }) with
        // a new trusted Event('abort') whose target is the signal and whose
        // dispatch flag is set around the call (so eventPhase is 2 and
        // currentTarget the signal inside it). The listener is called outside
        // any dispatch: an exception is reported by queueMicrotask, at once,
        // and then leaves the dispatch flag set.
        let disposed = Rc::new(Cell::new(false));
        let flag = disposed.clone();
        // The arrow's context holds `signal` and `listener`.
        rt.enqueue_microtask(Job::Task(Task::Captured(
            Box::new(move |rt: &mut Runtime<Model>| {
                if flag.get() {
                    return Ok(Value::Undefined);
                }
                let ev = event::create_an_event(rt, "abort", false, true);
                event::set_dispatching(rt, ev, Some(signal), true);
                rt.call_function(listener, Value::Undefined, &[Value::Object(ev)])?;
                event::set_dispatching(rt, ev, None, false);
                Ok(Value::Undefined)
            }),
            Captures::objects(&[signal, listener]),
        )));
        Disposable::Queued {
            disposed,
            signal,
            listener,
        }
    } else {
        // NODE: https://github.com/nodejs/node/blob/v26.12.1/lib/internal/events/abort_listener.js#L53-L55
        // signal.addEventListener('abort', listener, { once: true,
        // [kResistStopPropagation]: true }). If the same function is already
        // an abort listener (capture false), this adds nothing.
        let added = event_target::add_an_event_listener(
            rt,
            signal,
            "abort",
            listener,
            ListenerOptions {
                once: true,
                resist_stop_propagation: true,
                ..ListenerOptions::default()
            },
        );
        debug_assert!(added.is_ok(), "no signal option, nothing can throw");
        Disposable::Listener { signal, listener }
    };
    let id = rt.heap.alloc(ObjectData::Host);
    rt.lib.disposables.insert(id, disposable);
    id
}

/// `disposable[Symbol.dispose]()`.
///
/// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/events/abort_listener.js#L57>
/// `signal.removeEventListener('abort', listener)`: it removes the
/// non-capture abort listener with that function, whoever added it.
pub fn dispose(rt: &mut Runtime<Model>, disposable: ObjectId) {
    match rt.lib.disposables[&disposable].clone() {
        Disposable::Queued { disposed, .. } => disposed.set(true),
        Disposable::Listener { signal, listener } => {
            event_target::remove_an_event_listener(rt, signal, "abort", listener, false)
        }
    }
}
