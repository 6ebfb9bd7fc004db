//! Mutants: known historical or plausible bugs that the optimized
//! implementation can switch back on, one at a time.
//!
//! They exist to measure the harness: a differential run of `impl+<mutant>`
//! against the model (or against Node) must find each of them. Every mutant
//! is off by default and changes one line of behaviour, guarded by
//! `if rt.lib.mutant == Some(Mutant::X)` at the place named below, so that
//! grepping for the variant finds the whole change.

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
    /// follows it still reads `aborted false` (Node 26: `true`).
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
}

impl Mutant {
    /// Every mutant, in declaration order.
    pub const ALL: [Mutant; 6] = [
        Mutant::DependantsAbortedLate,
        Mutant::SignalRemovalIgnoresCapture,
        Mutant::AbortTwice,
        Mutant::StaleListenerCheck,
        Mutant::RemovedListenerRuns,
        Mutant::AbortListenerStoppable,
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
