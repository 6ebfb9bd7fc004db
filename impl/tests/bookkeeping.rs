//! The seed's fast paths and bookkeeping, pinned down through
//! `Impl::bookkeeping` (none of it is visible in a log): no abort event
//! without listeners, dependant lists only where there are dependants, one
//! registration per composite and per source, shared weak references,
//! emptied timeout holders, and listener nodes that are recycled.

use nodesem_impl::{Bookkeeping, Impl};
use nodesem_lang::{parse, RunConfig};
use nodesem_runtime::Runtime;

fn bookkeeping(text: &str) -> Bookkeeping {
    let scenario = parse("test.scn", text).unwrap_or_else(|e| panic!("{e}"));
    let mut rt = Runtime::<Impl>::new(RunConfig::default());
    rt.run_main(&scenario);
    rt.lib.bookkeeping()
}

#[test]
fn abort_without_listeners_makes_no_event() {
    let b = bookkeeping(
        "let c = controller\nabort c\nlet d = controller\nlet x = any [d.signal]\nabort d\n",
    );
    assert_eq!(b.events, 0);
    let b = bookkeeping("let c = controller\non c.signal abort {\n  log \"l\"\n}\nabort c\n");
    assert_eq!(b.events, 1);
}

#[test]
fn dispatch_without_listeners_makes_no_event() {
    let b = bookkeeping("let t = target\nlet r = dispatch t x cancelable\nlog r\n");
    assert_eq!(b.events, 0);
}

#[test]
fn any_registers_once_per_side_and_shares_weak_refs() {
    let b = bookkeeping(
        "let a = controller\nlet b = controller\nlet x = any [a.signal, a.signal, b.signal]\nlet y = any [a.signal, b.signal]\nlet z = any [x, a.signal]\n",
    );
    assert_eq!(b.composite_registrations, 3);
    assert_eq!(b.source_registrations, 2);
    // a and b each follow x, y and z once; nothing else has a list.
    assert_eq!(b.dependant_lists, 2);
    assert_eq!(b.dependant_entries, 6);
}

#[test]
fn plain_signals_never_allocate_a_dependant_list() {
    let b = bookkeeping("let c = controller\nlet s = aborted\nlet e = any []\nabort c\n");
    assert_eq!(b.dependant_lists, 0);
    assert_eq!(b.source_registrations, 0);
    // A composite with no source follows nothing and registers nothing.
    assert_eq!(b.composite_registrations, 0);
}

#[test]
fn the_timeout_holder_is_emptied_when_the_timer_fires() {
    let b = bookkeeping("let t = timeout 5\nlet u = timeout 50\nrun advance 10\n");
    assert_eq!(b.timeout_registrations, 2);
    assert_eq!(b.armed_timeout_holders, 1);
}

#[test]
fn gc_persistence_follows_abort_listeners_of_timeouts_and_composites() {
    let b = bookkeeping("let t = timeout 5\nlet f = fn {\n  log \"f\"\n}\non t abort f\n");
    assert_eq!(b.gc_persistent_signals, 1);
    let b = bookkeeping(
        "let t = timeout 5\nlet f = fn {\n  log \"f\"\n}\non t abort f\noff t abort f\n",
    );
    assert_eq!(b.gc_persistent_signals, 0);
}

#[test]
fn adding_and_removing_listeners_recycles_nodes() {
    let mut text = String::from("let t = target\nlet f = fn {\n  log \"f\"\n}\n");
    for _ in 0..100 {
        text.push_str("on t x f once\ndispatch t x\non t x f\noff t x f\n");
    }
    let b = bookkeeping(&text);
    // One root and one listener at a time.
    assert!(b.listener_nodes <= 2, "{b:?}");
}
