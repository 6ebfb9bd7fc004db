//! The listener lists: one intrusive doubly linked list per (target, type),
//! kept in an index-linked arena, with Node's flag bits.
//!
//! NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L445-L572>
//! (`class Listener`, `kFlagOnce` ... `kFlagResistStopPropagation`) keeps
//! each type's listeners as a linked list hanging off a root object
//! `{ size, next, resistStopPropagation }`. Which listeners a dispatch
//! visits when listeners are added or removed during it follows from that
//! layout: the walk caches `next` before calling a listener, a removed
//! listener keeps its own (stale) `next` and is flagged and skipped, and a
//! listener appended during the dispatch is visited only if the walk has
//! not yet passed the old end of the list. This module keeps exactly that
//! layout, so those rules hold here without being special-cased: roots are
//! arena nodes too, `remove` relinks the neighbours and leaves the removed
//! node's own links alone, `append` only writes `previous.next`.
//!
//! Removed nodes are recycled (so adding and removing a listener allocates
//! nothing once the arena has warmed up), but only when no dispatch walk is
//! running anywhere: a walk may still hold a removed node through its cached
//! `next` or through another removed node's stale links.

use nodesem_runtime::ObjectId;

use crate::Mutant;

/// "No node": Node's `undefined` in `next` / `previous`.
pub(crate) const NIL: u32 = u32::MAX;

/// `kFlagOnce`.
pub(crate) const ONCE: u8 = 1 << 0;
/// `kFlagCapture`.
pub(crate) const CAPTURE: u8 = 1 << 1;
/// `kFlagPassive`.
pub(crate) const PASSIVE: u8 = 1 << 2;
/// `kFlagWeak`: the listener of the `signal` option, held weakly by its
/// signal (its arrow lives as long as its retainer, see `gc.rs`).
pub(crate) const WEAK: u8 = 1 << 4;
/// `kFlagRemoved`.
pub(crate) const REMOVED: u8 = 1 << 5;
/// `kFlagResistStopPropagation`; on a root, the root's
/// `resistStopPropagation`.
pub(crate) const RESIST: u8 = 1 << 6;
/// Not Node's: the node is on the free list (or waiting to go there), so a
/// second release is ignored.
const FREED: u8 = 1 << 7;

/// What a listener node calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Callback {
    /// The list's root (holds `size`, has no callback).
    Root,
    /// A script function (added by `on`, or by `addAbortListener`).
    Function(ObjectId),
    /// The `onabort` wrapper of the signal with this index
    /// (NODE: `makeEventHandler` in <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L1155>).
    EventHandler(u32),
    /// The listener that the `signal` option adds to the signal: it removes
    /// `listener` with `capture` from type `ty` of target `target`.
    ///
    /// Seed ("addEventListener(): ... The abort-removal closure captures a
    /// copy of capture"): the closure's state is stored by value in the
    /// node, capture flag included; nothing is allocated for it.
    RemoveOnAbort {
        /// The target's index.
        target: u32,
        /// The event type.
        ty: u32,
        /// The listener to remove.
        listener: ObjectId,
        /// Its capture flag, copied.
        capture: bool,
        /// Its arrow's record in `Impl::removers` (held weakly: see
        /// `gc.rs`).
        remover: u32,
    },
    /// The `signal` option's listener for a listener argument that was no
    /// function: Node's `removeEventListener` then ignores `null` and
    /// `undefined`, and throws for the rest (this error, made when the
    /// listener was refused).
    RemoveInvalid {
        /// What the removal throws, if anything.
        error: Option<ObjectId>,
        /// Its arrow's record in `Impl::removers`.
        remover: u32,
    },
}

impl Callback {
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L547-L550> `Listener.prototype.same`, the listener half: the same function
    /// (the `onabort` wrapper is one object per signal; a removal closure is
    /// a fresh function every time, so never the same).
    fn same(self, other: Callback) -> bool {
        match (self, other) {
            (Callback::Function(a), Callback::Function(b)) => a == b,
            (Callback::EventHandler(a), Callback::EventHandler(b)) => a == b,
            _ => false,
        }
    }
}

/// A listener, or a list's root.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    /// `next`.
    pub(crate) next: u32,
    /// `previous`.
    pub(crate) previous: u32,
    /// Node's flag bits, plus `FREED`.
    pub(crate) flags: u8,
    /// The root's `size` (listeners minus `onabort` wrappers whose handler
    /// is not a function; Node's own accounting, kept as is).
    pub(crate) size: i32,
    /// What the node calls.
    pub(crate) callback: Callback,
}

/// The arena of every listener node and root of one scenario.
#[derive(Default)]
pub(crate) struct Listeners {
    nodes: Vec<Node>,
    free: Vec<u32>,
    /// Released while a walk was running; recycled when the last walk ends.
    pending: Vec<u32>,
    /// How many dispatch walks are running (they nest).
    walking: u32,
}

impl Listeners {
    /// Drops every node, keeping the memory (a new scenario's run).
    pub(crate) fn clear(&mut self) {
        let Listeners {
            nodes,
            free,
            pending,
            walking,
        } = self;
        nodes.clear();
        free.clear();
        pending.clear();
        *walking = 0;
    }

    /// The node at `i`.
    #[inline]
    pub(crate) fn get(&self, i: u32) -> &Node {
        &self.nodes[i as usize]
    }

    /// The node at `i`, mutably.
    #[inline]
    pub(crate) fn get_mut(&mut self, i: u32) -> &mut Node {
        &mut self.nodes[i as usize]
    }

    fn alloc(&mut self, node: Node) -> u32 {
        if let Some(i) = self.free.pop() {
            self.nodes[i as usize] = node;
            i
        } else {
            let i = u32::try_from(self.nodes.len()).expect("fewer than 2^32 listeners");
            self.nodes.push(node);
            i
        }
    }

    /// A new root `{ size: 1, next: undefined, resistStopPropagation }`.
    pub(crate) fn new_root(&mut self, resist: bool) -> u32 {
        self.alloc(Node {
            next: NIL,
            previous: NIL,
            flags: if resist { RESIST } else { 0 },
            size: 1,
            callback: Callback::Root,
        })
    }

    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L461-L466> `new Listener(..., previous, ...)`: links a new node after
    /// `previous` (the list's last node or its root).
    pub(crate) fn append(&mut self, previous: u32, callback: Callback, flags: u8) -> u32 {
        let i = self.alloc(Node {
            next: NIL,
            previous,
            flags,
            size: 0,
            callback,
        });
        self.get_mut(previous).next = i;
        i
    }

    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L552-L557> `Listener.prototype.remove`: relinks the neighbours, flags the
    /// node removed and leaves its own links as they are (a running walk
    /// may still follow them). `mutant` is the scenario's switched-on bug
    /// (see [`Self::release`]).
    pub(crate) fn remove(&mut self, i: u32, mutant: Option<Mutant>) {
        let Node { next, previous, .. } = *self.get(i);
        if previous != NIL {
            self.get_mut(previous).next = next;
        }
        if next != NIL {
            self.get_mut(next).previous = previous;
        }
        self.get_mut(i).flags |= REMOVED;
        self.release(i, mutant);
    }

    /// Gives a node that no list reaches any more back to the arena: now,
    /// or when the last running walk ends.
    pub(crate) fn release(&mut self, i: u32, mutant: Option<Mutant>) {
        let node = self.get_mut(i);
        if node.flags & FREED != 0 {
            return;
        }
        node.flags |= FREED;
        // The mutant recycles at once, under the feet of a running walk.
        if self.walking == 0 || mutant == Some(Mutant::RecycleDuringWalk) {
            self.free.push(i);
        } else {
            self.pending.push(i);
        }
    }

    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/event_target.js#L710-L721> the duplicate walk of `addEventListener`: the node holding the
    /// same listener with the same capture flag, or `Err(last)`, the last
    /// node of the list (the root when it is empty).
    pub(crate) fn find(&self, root: u32, callback: Callback, capture: bool) -> Result<u32, u32> {
        let mut previous = root;
        let mut handler = self.get(root).next;
        while handler != NIL {
            let node = self.get(handler);
            if node.callback.same(callback) && (node.flags & CAPTURE != 0) == capture {
                return Ok(handler);
            }
            previous = handler;
            handler = node.next;
        }
        Err(previous)
    }

    /// How many nodes the arena holds, free ones included.
    pub(crate) fn high_water(&self) -> usize {
        self.nodes.len()
    }

    /// A dispatch walk starts: nothing is recycled until it ends.
    pub(crate) fn begin_walk(&mut self) {
        self.walking += 1;
    }

    /// A dispatch walk ends; after the outermost one, every node released
    /// meanwhile is recycled.
    pub(crate) fn end_walk(&mut self) {
        self.walking -= 1;
        if self.walking == 0 {
            self.free.append(&mut self.pending);
        }
    }
}
