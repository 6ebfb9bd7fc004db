//! Mutants: known historical or plausible bugs that the optimized
//! implementation can switch back on, one at a time.
//!
//! They exist to measure the harness: a differential run of `impl+<mutant>`
//! against the model (or against Node) must find each of them. Every mutant
//! is off by default and changes one line of behaviour, guarded by
//! `if rt.lib.mutant == Some(Mutant::X)` at the place named below (in
//! `listeners.rs`, which has no `rt`, the scenario's mutant is passed in),
//! so that grepping for the variant finds the whole change.

use std::fmt;
use std::str::FromStr;

/// A bug the implementation can re-introduce. The doc of each variant says
/// what it changes and how a script can observe it; `impl/tests/mutants.rs`
/// has one scenario per mutant whose log differs from the correct one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mutant {
    /// `abort.rs`, `abort_signal`: the pre-Node-22 order of
    /// `AbortSignal.any()`: the source fires its abort event first and only
    /// then aborts each dependent signal in turn (mark and fire, one by one).
    /// Observable: inside the source's abort listener, a composite that
    /// follows it still reads `aborted false` (Node 26: `true`); as in
    /// Node 20, which had no `refreshCompositeSignal`, that read does not
    /// abort the composite from its aborted source either.
    DependantsAbortedLate,
    /// `event_target.rs`, the listener behind `addEventListener`'s `signal`
    /// option removes the listener with `capture` false instead of the flag
    /// it was added with (the bug the seed's new test catches).
    /// Observable: a `capture` listener added with `signal s` still runs
    /// after `s` aborted.
    SignalRemovalIgnoresCapture,
    /// `abort.rs`, `abort_signal`: the "if signal is aborted, return" guard
    /// is missing, so aborting an aborted signal replaces its reason and
    /// fires a second abort event. Observable: `abort c "one"` then
    /// `abort c "two"` runs an abort listener twice and the reason reads
    /// `two`.
    AbortTwice,
    /// `abort.rs`, `abort_signal`: the no-listener fast path is decided for
    /// every dependent signal when the dependents are marked, before the
    /// source's listeners run, instead of when each dependent's abort steps
    /// run. Observable: a listener that the source's abort listener adds to
    /// a composite never fires.
    StaleListenerCheck,
    /// `event_target.rs`, `dispatch`: the walk does not skip listeners that
    /// were removed during the dispatch. Observable: `off t x g` inside an
    /// earlier listener of the same dispatch does not stop `g` from running.
    RemovedListenerRuns,
    /// `abort.rs`, `add_abort_listener`: the listener is added without
    /// Node's `kResistStopPropagation`. Observable: an earlier abort
    /// listener that calls `stopImmediatePropagation` silences it.
    AbortListenerStoppable,
    /// `listeners.rs`, `Listeners::release`: a removed node goes back to the
    /// free list at once, even while a dispatch walk is running, instead of
    /// when the last walk ends. A walk that cached the removed node as its
    /// `next` (or follows a removed node's stale links) then lands in
    /// whatever reused the slot. Observable: a listener that removes the
    /// next listener and adds a new one during a dispatch makes the walk
    /// call the new one (reusing the removed node), which Node does not
    /// visit (it was appended after the removed node's stale end).
    RecycleDuringWalk,
    /// `event_target.rs`, `dispatch`: a `once` listener is removed after its
    /// call instead of before it. Observable: a `once` listener that re-adds
    /// itself with `once` is a duplicate during its call (ignored) and then
    /// removed, so a second dispatch calls nothing (Node: it runs again); a
    /// `once` listener that dispatches the same type again is called again
    /// by the inner dispatch.
    OnceRemovedAfterCall,
    /// `event_target.rs`, `emit_uncaught_exception`: a listener's exception
    /// (and the rejection of a promise it returned) is rethrown from a
    /// microtask instead of from `process.nextTick`. Observable: a
    /// microtask queued before the listener threw runs before the
    /// `uncaught` line (Node: after it, since ticks run first).
    ExceptionInMicrotask,
    /// `abort.rs`, `set_onabort`: replacing one `onabort` function by
    /// another takes the old handler's count off the root's size but skips
    /// adding the new one's ("a function replacing a function changes no
    /// count", applied after the decrement had already run). Observable:
    /// after `onabort s F`, `onabort s G`, adding and removing another abort
    /// listener empties the list's count, so the root and the `onabort`
    /// wrapper with it are dropped and aborting no longer calls `G`.
    OnabortCountLost,
    /// `lib.rs`, `Impl::intern`: the table of event types is searched by a
    /// cheap key, the name's length, and the first entry with that key is
    /// taken without comparing the text (a hash lookup that forgot the
    /// equality check), so a type is interned under another type's name.
    /// Observable: `dispatch t bar` calls the listeners of `foo` (same
    /// length), whose `event.type` reads `foo`.
    TypeInternedByLength,
    /// `abort.rs`, `run_abort`: the no-listener fast path counts only the
    /// listeners added by `addEventListener` and forgets the `onabort`
    /// wrapper, so a signal whose only listener is its `onabort` handler
    /// aborts without an event. Observable: `onabort s { ... }` then aborting
    /// the controller calls nothing.
    OnabortSkippedByFastPath,
    /// `event_target.rs`, `add_listener`: the duplicate check of
    /// `addEventListener` ("find or update") copies the new call's `once`
    /// and `passive` onto the registered listener instead of ignoring the
    /// duplicate. Observable: `on t x f passive` then `on t x f` loses
    /// `passive`, so `preventDefault` in `f` works and the cancelable
    /// dispatch returns `false` (Node: `true`).
    ReaddOverwritesFlags,
    /// `event_target.rs`, `op_remove_event_listener`: removing a listener
    /// that was added with `signal S` also drops the removal listener the
    /// `signal` option put on `S` (a leak "fix"). Node keeps it, and when
    /// `S` aborts it removes whatever matches the listener then. Observable:
    /// `on t x f signal s`, `off t x f`, `on t x f`, then aborting `s`
    /// removes the re-added `f` in Node, not with the mutant, so a later
    /// dispatch calls `f`.
    RemovalListenerDropped,
    /// `event_target.rs`, `dispatch`: `kIsBeingDispatched` is cleared once,
    /// after the walk, instead of after every listener that returns (the
    /// store hoisted out of the loop). Observable: a second listener of the
    /// same dispatch reads `event.eventPhase` 2 and `event.currentTarget`
    /// the target (Node: 0 and null).
    DispatchFlagHoisted,
    /// `abort.rs`, `new_signal`: an AbortSignal keeps `initEventTarget`'s
    /// maximum of 10 listeners per type, as Node 20's did, instead of the
    /// 0 (no limit) that Node 26's constructor sets. Observable: an
    /// eleventh abort listener on a signal logs a
    /// MaxListenersExceededWarning, and `getMaxListeners` reads 10.
    SignalMaxListenersTen,
    /// `streams.rs`, `setup_default_controller`: the seed's "no post-start
    /// microtask" fast path is taken for sources that have pull() too, so
    /// the started flag is set at once and nothing calls pull after start.
    /// Observable: a source with pull() and a highWaterMark above 0 is not
    /// pulled on the first microtask (Node: `pull` logs after `start`
    /// without any read).
    StartShortcutWithPull,
    /// `streams.rs`, `setup_default_controller`: the fast path for a source
    /// without pull() is taken whatever start() returned, so a promise it
    /// returned is never watched. Observable: start() returning a rejected
    /// promise leaves the stream readable (reads stay pending instead of
    /// rejecting) and the rejection is reported as unhandled.
    StartShortcutIgnoresPromise,
    /// `streams.rs`, `call_pull_if_needed`'s fulfilment reaction: the
    /// pulling flag is cleared but a pull asked for meanwhile
    /// (`pullAgain`) is dropped. Observable: a read that arrives while
    /// pull's promise is pending is never served by another pull.
    PullAgainLost,
    /// `streams.rs`, `dequeue_for_read`: taking the last chunk of a stream
    /// whose close was requested does not close it. Observable: after
    /// `enqueue` then `close`, the read of the chunk works but `closed`
    /// never settles and the next read stays pending (Node: `done`).
    LastChunkKeepsStreamOpen,
    /// `streams.rs`, `tee_cancel`: the tee's cancel promise is resolved
    /// (with undefined) by the first branch cancel, instead of when both
    /// branches are cancelled (with the result of cancelling the teed
    /// stream) or when the teed stream closes or errors. Observable:
    /// `cancel` of one branch fulfils while the other branch is still
    /// readable and the source open (Node: it stays pending); a source
    /// cancel() that rejects no longer rejects the cancels.
    TeeCancelResolvedEarly,
    /// `pipe.rs`, `queue_watcher`: a pipe's closed watcher (the source's
    /// close and error watchers, the destination's error watcher, installed
    /// as `ClosedPromiseHook` records) is queued one microtask later than
    /// the reaction to the settled `[[closedPromise]]` would have run.
    /// Observable: after the source closes, the destination's `close()`
    /// (its sink's `close`) runs a tick later against a ruler.
    PipeWatcherLate,
    /// `byte_streams.rs`, `clone_for_branch`: the byte tee forgets to clone
    /// a chunk for the second branch, so both branches get the same
    /// Uint8Array. Observable: branch 1's enqueue transfers the chunk's
    /// buffer, so the view branch 2 gets is detached: its enqueue's
    /// transfer throws out of the tee's forwarding reaction (an unhandled
    /// rejection) and a read of branch 2 stays pending (Node: it gets a
    /// copy of the bytes, a view that is not branch 1's).
    ByteTeeNoClone,
    /// `gc.rs`, `composite_collected`: the composite registration's cleanup
    /// does nothing, so a collected composite's WeakRef stays in its
    /// sources' dependant sets for good (the dependant-set leak Node fixed
    /// more than once). Observable: `dependants c.signal` still counts a
    /// composite after it was collected and the cleanups' poll phase ran
    /// (Node: 0).
    DependantsNeverPruned,
    /// `abort.rs`, `signal_new_abort_listener`: a timeout signal's first
    /// strong abort listener does not put it in `gcPersistentSignals`, so
    /// nothing keeps it alive until its timer fires. Observable: a timeout
    /// signal with an abort listener, dropped and collected before its
    /// timer fires, never calls the listener (Node: it fires).
    TimeoutCollectedEarly,
    /// `gc.rs`, `source_collected`: the source registration's cleanup takes
    /// the collected source out of its composites' source sets but leaves a
    /// composite whose last source went in `gcPersistentSignals`. Observable:
    /// a composite with an abort listener, dropped, stays `alive` after its
    /// only source was collected, the cleanup ran and `gc` ran again (Node:
    /// collected).
    CompositeOutlivesSources,
    /// `gc.rs`, `trace_target`: the target that a listener with `signal S`
    /// was added to does not hold the remover that `S` holds weakly (Node:
    /// target -> WeakMap entry -> the arrow), so the first collection after
    /// the job frees the remover and its node is unlinked from `S`.
    /// Observable: after `gc` (and a turn for the cleanup), aborting `S`
    /// does not remove the listener, and a later dispatch on the target
    /// still calls it (Node: removed).
    SignalRemoverWeak,
    /// `abort.rs`, `on_timeout`: the seed's "fired timeouts" item: the
    /// timer empties its holder but leaves the signal's registration, so
    /// that when the fired signal is collected, its registry's cleanup is a
    /// task of the poll phase (Node 26.12.1 unregisters it when the timer
    /// fires). Observable: that task's callback scope runs the ticks and
    /// microtasks an uncaught exception left waiting, before the immediates
    /// of that loop iteration (Node: after the next macrotask).
    TimeoutRegistrationKept,
    /// `gc.rs`, `register_source`: the seed's "one registration per
    /// source, without unregister tokens": a source keeps its registration
    /// after every composite that followed it was collected and cleaned up
    /// (Node 26.12.1 registers a cell per composite with the composite as
    /// its token, and the composite's cleanup unregisters it). Observable:
    /// when the source is collected later, its registry's cleanup is a task
    /// whose callback scope runs the ticks an uncaught exception left
    /// waiting, before the immediates of that loop iteration (Node: after
    /// the next macrotask).
    SourceRegistrationKept,
    /// `emitter.rs`, `remove_listener`: the seed's first version (#64373
    /// before #64475): the last listener of a name is removed by storing
    /// `undefined` for every emitter, not only in shape mode, so names are
    /// never deleted and `_events` is never replaced. Observable through
    /// `eventNames`: a name removed and added again keeps its old place
    /// (Node: it moves to the end).
    EmitterKeepsDynamicNames,
    /// `emitter.rs`, `remove_listener`: removing a name's single once
    /// wrapper emits 'removeListener' with the wrapper instead of
    /// `list.listener || listener`, the original. Observable: a
    /// 'removeListener' listener compares its second argument with the
    /// original of a once listener that fired (Node: the same).
    OnceWrapperInRemoveEvent,
    /// `emitter.rs`, `ensure_mutable`: an array that an emit is walking is
    /// changed in place instead of through a copy, so the emit walks the
    /// live array. Observable: a listener removed by an earlier one of the
    /// same emit does not run (Node: it runs).
    EmitLiveArray,
    /// `emitter.rs`, `add_listener`: the `warned` flag of a listener array
    /// is not consulted, so every listener past the maximum warns.
    /// Observable: a third listener with a maximum of 1 logs a second
    /// MaxListenersExceededWarning (Node: one per name).
    WarningEveryListener,
    /// `async_context.rs`, `make_callback`: `AsyncResource::MakeCallback`
    /// as Node 26.12.1 has it: the resource's saved frame is entered
    /// around a callback scope that then runs the callback in no frame
    /// (the bug at the end of `seeds/callback-scope-env-lookups.txt`).
    /// Observable: `getStore` inside `native MS resource {` made in an
    /// `alsRun` reads the default value, not the store.
    ResourceCallbackLosesStore,
    /// `async_context.rs`, `make_callback`: the outermost callback scope's
    /// close runs the microtask checkpoint before the ticks even when ticks
    /// are queued. Observable: a native callback that queues a tick and
    /// then a microtask logs the microtask first (Node: the tick).
    CallbackScopeMicrotasksFirst,
}

impl Mutant {
    /// Every mutant, in declaration order.
    pub const ALL: [Mutant; 35] = [
        Mutant::DependantsAbortedLate,
        Mutant::SignalRemovalIgnoresCapture,
        Mutant::AbortTwice,
        Mutant::StaleListenerCheck,
        Mutant::RemovedListenerRuns,
        Mutant::AbortListenerStoppable,
        Mutant::RecycleDuringWalk,
        Mutant::OnceRemovedAfterCall,
        Mutant::ExceptionInMicrotask,
        Mutant::OnabortCountLost,
        Mutant::TypeInternedByLength,
        Mutant::OnabortSkippedByFastPath,
        Mutant::ReaddOverwritesFlags,
        Mutant::RemovalListenerDropped,
        Mutant::DispatchFlagHoisted,
        Mutant::SignalMaxListenersTen,
        Mutant::StartShortcutWithPull,
        Mutant::StartShortcutIgnoresPromise,
        Mutant::PullAgainLost,
        Mutant::LastChunkKeepsStreamOpen,
        Mutant::TeeCancelResolvedEarly,
        Mutant::PipeWatcherLate,
        Mutant::ByteTeeNoClone,
        Mutant::DependantsNeverPruned,
        Mutant::TimeoutCollectedEarly,
        Mutant::CompositeOutlivesSources,
        Mutant::SignalRemoverWeak,
        Mutant::TimeoutRegistrationKept,
        Mutant::SourceRegistrationKept,
        Mutant::EmitterKeepsDynamicNames,
        Mutant::OnceWrapperInRemoveEvent,
        Mutant::EmitLiveArray,
        Mutant::WarningEveryListener,
        Mutant::ResourceCallbackLosesStore,
        Mutant::CallbackScopeMicrotasksFirst,
    ];

    /// The mutant's name as engine names spell it (`impl+<name>`).
    pub fn name(self) -> &'static str {
        match self {
            Mutant::DependantsAbortedLate => "dependants-aborted-late",
            Mutant::SignalRemovalIgnoresCapture => "signal-removal-ignores-capture",
            Mutant::AbortTwice => "abort-twice",
            Mutant::StaleListenerCheck => "stale-listener-check",
            Mutant::RemovedListenerRuns => "removed-listener-runs",
            Mutant::AbortListenerStoppable => "abort-listener-stoppable",
            Mutant::RecycleDuringWalk => "recycle-during-walk",
            Mutant::OnceRemovedAfterCall => "once-removed-after-call",
            Mutant::ExceptionInMicrotask => "exception-in-microtask",
            Mutant::OnabortCountLost => "onabort-count-lost",
            Mutant::TypeInternedByLength => "type-interned-by-length",
            Mutant::OnabortSkippedByFastPath => "onabort-skipped-by-fast-path",
            Mutant::ReaddOverwritesFlags => "readd-overwrites-flags",
            Mutant::RemovalListenerDropped => "removal-listener-dropped",
            Mutant::DispatchFlagHoisted => "dispatch-flag-hoisted",
            Mutant::SignalMaxListenersTen => "signal-max-listeners-ten",
            Mutant::StartShortcutWithPull => "start-shortcut-with-pull",
            Mutant::StartShortcutIgnoresPromise => "start-shortcut-ignores-promise",
            Mutant::PullAgainLost => "pull-again-lost",
            Mutant::LastChunkKeepsStreamOpen => "last-chunk-keeps-stream-open",
            Mutant::TeeCancelResolvedEarly => "tee-cancel-resolved-early",
            Mutant::PipeWatcherLate => "pipe-watcher-late",
            Mutant::ByteTeeNoClone => "byte-tee-no-clone",
            Mutant::DependantsNeverPruned => "dependants-never-pruned",
            Mutant::TimeoutCollectedEarly => "timeout-collected-early",
            Mutant::CompositeOutlivesSources => "composite-outlives-sources",
            Mutant::SignalRemoverWeak => "signal-remover-weak",
            Mutant::TimeoutRegistrationKept => "timeout-registration-kept",
            Mutant::SourceRegistrationKept => "source-registration-kept",
            Mutant::EmitterKeepsDynamicNames => "emitter-keeps-dynamic-names",
            Mutant::OnceWrapperInRemoveEvent => "once-wrapper-in-remove-event",
            Mutant::EmitLiveArray => "emit-live-array",
            Mutant::WarningEveryListener => "warning-every-listener",
            Mutant::ResourceCallbackLosesStore => "resource-callback-loses-store",
            Mutant::CallbackScopeMicrotasksFirst => "callback-scope-microtasks-first",
        }
    }

    /// The family of generated scenarios that can find it (`nodesem
    /// mutants` hunts each with its own).
    pub fn family(self) -> nodesem_lang::gen::Family {
        match self {
            Mutant::StartShortcutWithPull
            | Mutant::StartShortcutIgnoresPromise
            | Mutant::PullAgainLost
            | Mutant::LastChunkKeepsStreamOpen
            | Mutant::TeeCancelResolvedEarly
            | Mutant::PipeWatcherLate
            | Mutant::ByteTeeNoClone => nodesem_lang::gen::Family::Streams,
            // Their bugs show only when a collection runs at the right
            // moment with the right bindings gone.
            Mutant::DependantsNeverPruned
            | Mutant::TimeoutCollectedEarly
            | Mutant::CompositeOutlivesSources
            | Mutant::SignalRemoverWeak
            | Mutant::TimeoutRegistrationKept
            | Mutant::SourceRegistrationKept => nodesem_lang::gen::Family::Gc,
            Mutant::EmitterKeepsDynamicNames
            | Mutant::OnceWrapperInRemoveEvent
            | Mutant::EmitLiveArray
            | Mutant::WarningEveryListener => nodesem_lang::gen::Family::Emitter,
            Mutant::ResourceCallbackLosesStore | Mutant::CallbackScopeMicrotasksFirst => {
                nodesem_lang::gen::Family::Async
            }
            _ => nodesem_lang::gen::Family::Abort,
        }
    }
}

impl fmt::Display for Mutant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a mutant name that names no mutant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownMutant(pub String);

impl fmt::Display for UnknownMutant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown mutant `{}`; known mutants:", self.0)?;
        for m in Mutant::ALL {
            write!(f, " {}", m.name())?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownMutant {}

impl FromStr for Mutant {
    type Err = UnknownMutant;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Mutant::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| UnknownMutant(s.to_string()))
    }
}
