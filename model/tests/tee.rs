//! The model's `ReadableStream.prototype.tee()`, driven directly through its
//! operations on a `Runtime<Model>`, as `tests/streams.rs` drives the
//! stream: the source's methods are built-in functions that log, and a
//! "ruler" of chained reactions logs `t1`, `t2`, ... one microtask apart.
//!
//! Every expected log was read from the pinned Node 26.12.1 running the
//! JavaScript written above each test, with `log` printing a read result as
//! `{value: v, done: b}`, an array as `Array(a, b)` and an error as
//! `Name: message`, and `ruler(n)` as `let p = Promise.resolve(); for (let
//! i = 1; i <= n; i++) p = p.then(() => log('t' + i));`. Where a test
//! drains the event loop between steps, the JavaScript runs each step in a
//! `setTimeout(step, 0)` of its own.

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use nodesem_model::streams;
use nodesem_runtime::{ObjectData, ObjectId, UnderlyingSource, Value};

use common::*;

/// A built-in function that logs `text` alone.
fn mark(rt: &mut Rt, text: &'static str) -> ObjectId {
    rt.native_function(move |rt, _this, _args| {
        rt.log_line(text.to_string());
        Ok(Value::Undefined)
    })
}

/// `p.then(v => log(text, v), e => log(text + ' rejected', e))`.
fn then_show(rt: &mut Rt, p: &Value, text: &'static str, rejected: &'static str) {
    let id = p.as_object().expect("a promise");
    let on_fulfilled = show(rt, text);
    let on_rejected = show(rt, rejected);
    rt.promise_then(id, Some(on_fulfilled), Some(on_rejected));
}

/// A source whose `start` keeps its controller in the cell returned, and
/// whose `cancel` logs `cancel <reason>`.
fn source(rt: &mut Rt, pull: Option<ObjectId>) -> (UnderlyingSource, Rc<RefCell<Value>>) {
    let cell = Rc::new(RefCell::new(Value::Undefined));
    let kept = Rc::clone(&cell);
    let start = rt.native_function(move |_, _, args| {
        *kept.borrow_mut() = args[0].clone();
        Ok(Value::Undefined)
    });
    let cancel = show(rt, "cancel");
    let src = UnderlyingSource {
        object: Value::Object(rt.heap.alloc(ObjectData::Host)),
        start: Some(start),
        pull,
        cancel: Some(cancel),
    };
    (src, cell)
}

/// `log('locked', s1.locked, s2.locked, ...)`.
fn log_locked(rt: &mut Rt, streams: &[&Value]) {
    let mut line = String::from("locked");
    for s in streams {
        let locked = get(rt, s, "locked");
        line.push(' ');
        line.push_str(&rt.fmt(&locked));
    }
    rt.log_line(line);
}

/// `stream.tee()`, as its two branches.
fn tee(rt: &mut Rt, s: &Value) -> (Value, Value) {
    let pair = streams::tee(rt, s.clone()).expect("the two branches");
    let id = pair.as_object().expect("an array");
    match rt.heap.get(id) {
        ObjectData::Array(items) if items.len() == 2 => (items[0].clone(), items[1].clone()),
        _ => panic!("tee returns an array of two branches"),
    }
}

/// ```js
/// const rs = new ReadableStream({ start(c) { log('start'); c.enqueue('a'); },
///   pull(c) { log('pull', c.desiredSize); } });
/// const [b1, b2] = rs.tee();
/// log('locked', rs.locked, b1.locked, b2.locked);
/// const r1 = b1.getReader(), r2 = b2.getReader();
/// r1.read().then(v => log('r1', v));
/// r2.read().then(v => log('r2', v));
/// r1.read().then(v => log('r1b', v));
/// ruler(6);
/// ```
/// Branch1's start microtask pulls (it has read requests): the tee reads
/// the queued chunk, which makes the source pull; the chunk reaches both
/// branches a microtask later, and branch1's second read pulls again.
#[test]
fn tee_then_read_both_branches() {
    let mut rt = runtime();
    let pull = rt.native_function(|rt, _, args| {
        let d = get(rt, &args[0], "desiredSize");
        let shown = rt.fmt(&d);
        rt.log_line(format!("pull {shown}"));
        Ok(Value::Undefined)
    });
    let start = rt.native_function(|rt, _, args| {
        rt.log_line("start".to_string());
        streams::controller_enqueue(rt, args[0].clone(), Value::string("a"))?;
        Ok(Value::Undefined)
    });
    let src = UnderlyingSource {
        object: Value::Object(rt.heap.alloc(ObjectData::Host)),
        start: Some(start),
        pull: Some(pull),
        cancel: None,
    };
    let rs = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    let (b1, b2) = tee(&mut rt, &rs);
    log_locked(&mut rt, &[&rs, &b1, &b2]);
    let r1 = streams::get_reader(&mut rt, b1).expect("a reader");
    let r2 = streams::get_reader(&mut rt, b2).expect("a reader");
    let p = streams::reader_read(&mut rt, r1.clone()).expect("a read");
    then_show(&mut rt, &p, "r1", "r1 rejected");
    let p = streams::reader_read(&mut rt, r2).expect("a read");
    then_show(&mut rt, &p, "r2", "r2 rejected");
    let p = streams::reader_read(&mut rt, r1).expect("a read");
    then_show(&mut rt, &p, "r1b", "r1b rejected");
    ruler(&mut rt, 6);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "start",
            "locked true false false",
            "pull 1",
            "t1",
            "pull 1",
            "t2",
            "r1 {value: a, done: false}",
            "r2 {value: a, done: false}",
            "t3",
            "t4",
            "t5",
            "t6",
        ]
    );
}

/// ```js
/// const rs = new ReadableStream({ start(c) { c.enqueue('a'); },
///   cancel(r) { log('cancel', r); } });
/// const [b1, b2] = rs.tee();
/// b1.cancel('one').then(v => log('c1', v));
/// ruler(3);
/// b2.cancel('two').then(v => log('c2', v));
/// ruler(5);
/// ```
/// The second cancel cancels the stream with the array of both reasons, at
/// once; cancelPromise adopts the stream's cancel promise, and each
/// branch's cancel fulfils after it, on the fourth microtask.
#[test]
fn cancel_one_branch_then_the_other_cancels_the_stream_with_both_reasons() {
    let mut rt = runtime();
    let start = rt.native_function(|rt, _, args| {
        streams::controller_enqueue(rt, args[0].clone(), Value::string("a"))
    });
    let (src, _) = source(&mut rt, None);
    let src = UnderlyingSource {
        start: Some(start),
        ..src
    };
    let rs = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    let (b1, b2) = tee(&mut rt, &rs);
    let c1 = streams::stream_cancel(&mut rt, b1, Some(Value::string("one"))).expect("a promise");
    then_show(&mut rt, &c1, "c1", "c1 rejected");
    ruler(&mut rt, 3);
    let c2 = streams::stream_cancel(&mut rt, b2, Some(Value::string("two"))).expect("a promise");
    then_show(&mut rt, &c2, "c2", "c2 rejected");
    ruler(&mut rt, 5);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "cancel Array(one, two)",
            "t1",
            "t1",
            "t2",
            "t2",
            "t3",
            "t3",
            "c1 undefined",
            "c2 undefined",
            "t4",
            "t5",
        ]
    );
}

/// ```js
/// // step 1
/// [b1, b2] = rs.tee(); r2 = b2.getReader();
/// r2.read().then(v => log('r2', v)); r2.closed.then(() => log('r2 closed'));
/// b1.cancel('one').then(v => log('c1', v)); ruler(3);
/// // step 2
/// log('close'); c.close(); ruler(4);
/// // step 3
/// r2.cancel('two').then(v => log('c2', v)); ruler(3);
/// ```
/// The close steps run on the tick after the close, before the ruler's
/// first microtask: branch2 closes, cancelPromise fulfils (so branch1's
/// cancel does), and the stream's cancel is never called. Canceling the
/// closed branch2 then fulfils at once.
#[test]
fn cancel_one_branch_then_close_the_stream() {
    let mut rt = runtime();
    let (src, controller) = source(&mut rt, None);
    let rs = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    let (b1, b2) = tee(&mut rt, &rs);
    let r2 = streams::get_reader(&mut rt, b2).expect("a reader");
    let p = streams::reader_read(&mut rt, r2.clone()).expect("a read");
    then_show(&mut rt, &p, "r2", "r2 rejected");
    let closed = get(&mut rt, &r2, "closed");
    let closed_mark = mark(&mut rt, "r2 closed");
    rt.promise_then(closed.as_object().unwrap(), Some(closed_mark), None);
    let c1 = streams::stream_cancel(&mut rt, b1, Some(Value::string("one"))).expect("a promise");
    then_show(&mut rt, &c1, "c1", "c1 rejected");
    ruler(&mut rt, 3);
    drain(&mut rt);

    rt.log_line("close".to_string());
    let c = controller.borrow().clone();
    streams::controller_close(&mut rt, c).expect("a close");
    ruler(&mut rt, 4);
    drain(&mut rt);

    let c2 = streams::reader_cancel(&mut rt, r2, Some(Value::string("two"))).expect("a promise");
    then_show(&mut rt, &c2, "c2", "c2 rejected");
    ruler(&mut rt, 3);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "t1",
            "t2",
            "t3",
            "close",
            "t1",
            "r2 closed",
            "r2 {value: undefined, done: true}",
            "t2",
            "c1 undefined",
            "t3",
            "t4",
            "c2 undefined",
            "t1",
            "t2",
            "t3",
        ]
    );
}

/// As [`cancel_one_branch_then_close_the_stream`], with `c.error('boom')`
/// in step 2 and rejection handlers logging `... rejected`: the closed
/// promise's rejection errors both branches a microtask later, which
/// fulfils cancelPromise (branch2 was not canceled); canceling the errored
/// branch2 then rejects with the error.
#[test]
fn cancel_one_branch_then_error_the_stream() {
    let mut rt = runtime();
    let (src, controller) = source(&mut rt, None);
    let rs = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    let (b1, b2) = tee(&mut rt, &rs);
    let r2 = streams::get_reader(&mut rt, b2).expect("a reader");
    let p = streams::reader_read(&mut rt, r2.clone()).expect("a read");
    then_show(&mut rt, &p, "r2", "r2 rejected");
    let closed = get(&mut rt, &r2, "closed");
    then_show(&mut rt, &closed, "r2 closed", "r2 closed rejected");
    let c1 = streams::stream_cancel(&mut rt, b1, Some(Value::string("one"))).expect("a promise");
    then_show(&mut rt, &c1, "c1", "c1 rejected");
    ruler(&mut rt, 3);
    drain(&mut rt);

    rt.log_line("error".to_string());
    let c = controller.borrow().clone();
    streams::controller_error(&mut rt, c, Value::string("boom")).expect("an error");
    ruler(&mut rt, 4);
    drain(&mut rt);

    let c2 = streams::reader_cancel(&mut rt, r2, Some(Value::string("two"))).expect("a promise");
    then_show(&mut rt, &c2, "c2", "c2 rejected");
    ruler(&mut rt, 3);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "t1",
            "t2",
            "t3",
            "error",
            "t1",
            "r2 closed rejected boom",
            "r2 rejected boom",
            "t2",
            "c1 undefined",
            "t3",
            "t4",
            "c2 rejected boom",
            "t1",
            "t2",
            "t3",
        ]
    );
}

/// ```js
/// // step 1
/// [b1, b2] = rs.tee(); ruler(2);
/// // step 2
/// log('close'); c.close(); ruler(2);
/// // step 3
/// b1.cancel('one').then(v => log('c1', v));
/// b2.cancel('two').then(v => log('c2', v));
/// log('locked', b1.locked, b2.locked); ruler(3);
/// ```
/// Both branches closed on the close's tick; canceling them fulfils at
/// once and does not reach the stream's cancel.
#[test]
fn close_then_cancel_both_branches() {
    let mut rt = runtime();
    let (src, controller) = source(&mut rt, None);
    let rs = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    let (b1, b2) = tee(&mut rt, &rs);
    ruler(&mut rt, 2);
    drain(&mut rt);

    rt.log_line("close".to_string());
    let c = controller.borrow().clone();
    streams::controller_close(&mut rt, c).expect("a close");
    ruler(&mut rt, 2);
    drain(&mut rt);

    let c1 =
        streams::stream_cancel(&mut rt, b1.clone(), Some(Value::string("one"))).expect("a promise");
    then_show(&mut rt, &c1, "c1", "c1 rejected");
    let c2 =
        streams::stream_cancel(&mut rt, b2.clone(), Some(Value::string("two"))).expect("a promise");
    then_show(&mut rt, &c2, "c2", "c2 rejected");
    log_locked(&mut rt, &[&b1, &b2]);
    ruler(&mut rt, 3);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "t1",
            "t2",
            "close",
            "t1",
            "t2",
            "locked false false",
            "c1 undefined",
            "c2 undefined",
            "t1",
            "t2",
            "t3",
        ]
    );
}

/// ```js
/// let c;
/// const rs = new ReadableStream({ start(ctl) { c = ctl; },
///   cancel(r) { log('cancel', r); } });
/// const [b1, b2] = rs.tee();
/// const r2 = b2.getReader();
/// r2.read().then(v => log('r2', v));
/// Promise.resolve().then(() => log('s')).then(() => {
///   log('close'); c.close();
///   b1.cancel('one').then(v => log('c1', v));
/// });
/// ruler(7);
/// ```
/// Node's close steps wait for a nextTick: the stream closes in a
/// microtask, so the branches close only once every microtask has run.
/// Branch1, canceled in between, waits for them too.
#[test]
fn the_close_steps_wait_for_every_microtask_of_the_drain() {
    let mut rt = runtime();
    let (src, controller) = source(&mut rt, None);
    let rs = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    let (b1, b2) = tee(&mut rt, &rs);
    let r2 = streams::get_reader(&mut rt, b2).expect("a reader");
    let p = streams::reader_read(&mut rt, r2).expect("a read");
    then_show(&mut rt, &p, "r2", "r2 rejected");
    let s = mark(&mut rt, "s");
    let close = rt.native_function(move |rt, _, _| {
        rt.log_line("close".to_string());
        let c = controller.borrow().clone();
        streams::controller_close(rt, c)?;
        let c1 = streams::stream_cancel(rt, b1.clone(), Some(Value::string("one")))?;
        then_show(rt, &c1, "c1", "c1 rejected");
        Ok(Value::Undefined)
    });
    let start = rt.promise_resolve(Value::Undefined);
    let after_s = rt.promise_then(start, Some(s), None);
    rt.promise_then(after_s, Some(close), None);
    ruler(&mut rt, 7);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "s",
            "t1",
            "close",
            "t2",
            "t3",
            "t4",
            "t5",
            "t6",
            "t7",
            "r2 {value: undefined, done: true}",
            "c1 undefined",
        ]
    );
}

/// ```js
/// const rs = new ReadableStream({ start(c) { c.error('bad'); },
///   cancel(r) { log('cancel', r); } });
/// const [b1, b2] = rs.tee();
/// const r1 = b1.getReader();
/// r1.closed.then(() => log('r1 closed'), e => log('r1 closed rejected', e));
/// r1.read().then(v => log('read', v), e => log('read rejected', e));
/// b2.cancel('two').then(v => log('c2', v), e => log('c2 rejected', e));
/// ruler(4);
/// ```
/// The branches of an errored stream are readable until the closed
/// promise's rejection reaction, on the first microtask, errors both; the
/// cancel of branch2 before then waits for cancelPromise, which that
/// reaction fulfils.
#[test]
fn a_tee_of_an_errored_stream_errors_both_branches_a_microtask_later() {
    let mut rt = runtime();
    let start = rt.native_function(|rt, _, args| {
        streams::controller_error(rt, args[0].clone(), Value::string("bad"))
    });
    let (src, _) = source(&mut rt, None);
    let src = UnderlyingSource {
        start: Some(start),
        ..src
    };
    let rs = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    let (b1, b2) = tee(&mut rt, &rs);
    let r1 = streams::get_reader(&mut rt, b1).expect("a reader");
    let closed = get(&mut rt, &r1, "closed");
    then_show(&mut rt, &closed, "r1 closed", "r1 closed rejected");
    let p = streams::reader_read(&mut rt, r1).expect("a read");
    then_show(&mut rt, &p, "read", "read rejected");
    let c2 = streams::stream_cancel(&mut rt, b2, Some(Value::string("two"))).expect("a promise");
    then_show(&mut rt, &c2, "c2", "c2 rejected");
    ruler(&mut rt, 4);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "t1",
            "r1 closed rejected bad",
            "read rejected bad",
            "t2",
            "c2 undefined",
            "t3",
            "t4",
        ]
    );
}

/// ```js
/// const rs = new ReadableStream(); rs.getReader();
/// try { rs.tee(); } catch (e) { log('caught', e, e.code); }
/// const rs2 = new ReadableStream();
/// const [x, y] = rs2.tee();
/// try { rs2.tee(); } catch (e) { log('caught', e, e.code); }
/// log('locked', rs2.locked, x.locked, y.locked);
/// ```
#[test]
fn a_tee_of_a_locked_stream_throws() {
    let mut rt = runtime();
    let src = UnderlyingSource {
        object: Value::Undefined,
        start: None,
        pull: None,
        cancel: None,
    };
    let rs = streams::new_readable_stream(&mut rt, src.clone(), None).expect("a stream");
    streams::get_reader(&mut rt, rs.clone()).expect("a reader");
    let rs2 = streams::new_readable_stream(&mut rt, src, None).expect("a stream");
    let (x, y) = tee(&mut rt, &rs2);
    for s in [rs, rs2.clone()] {
        let e = streams::tee(&mut rt, s).expect_err("a locked stream");
        let code = rt.get_property(&e, "code").expect("a code");
        let line = format!("caught {} {}", rt.fmt(&e), rt.fmt(&code));
        rt.log_line(line);
    }
    log_locked(&mut rt, &[&rs2, &x, &y]);
    assert_eq!(
        lines(&rt),
        [
            "caught TypeError: Invalid state: ReadableStream is locked ERR_INVALID_STATE",
            "caught TypeError: Invalid state: ReadableStream is locked ERR_INVALID_STATE",
            "locked true false false",
        ]
    );
}

/// ```js
/// let c, n = 0;
/// const rs = new ReadableStream({ start(ctl) { c = ctl; },
///   pull(ctl) { n++; log('pull', n); if (n > 1) ctl.enqueue(n); } },
///   { highWaterMark: 0 });
/// // step 1
/// [b1, b2] = rs.tee(); const r1 = b1.getReader(), r2 = b2.getReader();
/// r1.read().then(v => log('r1', v));
/// r1.read().then(v => log('r1b', v));
/// r2.read().then(v => { log('r2', v); r2.read().then(v => log('r2b', v)); });
/// ruler(2);
/// // step 2
/// log('enqueue a'); c.enqueue('a'); ruler(4);
/// ```
/// Node's chunk microtask clears `reading` before its enqueues: the enqueue
/// of `a` into branch1, which still has a read request, makes branch1 pull,
/// and the tee reads from the stream at once (`pull 2`, whose enqueue of 2
/// fulfils the tee's read), before branch2 gets `a`. The reaction to
/// branch1's pull promise is thus queued before the one logging `r2`, and
/// branch1 pulls again in it (`pull 3`: the chunk microtask of 2 found it
/// pulling) before `r2` is logged. With the spec's order (reading cleared
/// after both enqueues, then the read through readAgain) the model logged
/// `pull 3` after `r2`.
#[test]
fn a_pull_that_the_enqueue_into_branch1_asks_for_reads_at_once() {
    let mut rt = runtime();
    let n = Rc::new(std::cell::Cell::new(0));
    let pull = rt.native_function(move |rt, _, args| {
        n.set(n.get() + 1);
        rt.log_line(format!("pull {}", n.get()));
        if n.get() > 1 {
            streams::controller_enqueue(rt, args[0].clone(), Value::Number(f64::from(n.get())))?;
        }
        Ok(Value::Undefined)
    });
    let (src, controller) = source(&mut rt, Some(pull));
    let rs = streams::new_readable_stream(&mut rt, src, Some(0.0)).expect("a stream");
    let (b1, b2) = tee(&mut rt, &rs);
    let r1 = streams::get_reader(&mut rt, b1).expect("a reader");
    let r2 = streams::get_reader(&mut rt, b2).expect("a reader");
    let p = streams::reader_read(&mut rt, r1.clone()).expect("a read");
    then_show(&mut rt, &p, "r1", "r1 rejected");
    let p = streams::reader_read(&mut rt, r1).expect("a read");
    then_show(&mut rt, &p, "r1b", "r1b rejected");
    let p = streams::reader_read(&mut rt, r2.clone()).expect("a read");
    let on_r2 = rt.native_function(move |rt, _, args| {
        let shown = rt.fmt(&args[0]);
        rt.log_line(format!("r2 {shown}"));
        let q = streams::reader_read(rt, r2.clone())?;
        then_show(rt, &q, "r2b", "r2b rejected");
        Ok(Value::Undefined)
    });
    rt.promise_then(p.as_object().unwrap(), Some(on_r2), None);
    ruler(&mut rt, 2);
    drain(&mut rt);

    rt.log_line("enqueue a".to_string());
    let c = controller.borrow().clone();
    streams::controller_enqueue(&mut rt, c, Value::string("a")).expect("an enqueue");
    ruler(&mut rt, 4);
    drain(&mut rt);
    assert_eq!(
        lines(&rt),
        [
            "pull 1",
            "t1",
            "t2",
            "enqueue a",
            "pull 2",
            "t1",
            "r1 {value: a, done: false}",
            "pull 3",
            "r2 {value: a, done: false}",
            "t2",
            "r1b {value: 2, done: false}",
            "r2b {value: 2, done: false}",
            "t3",
            "t4",
        ]
    );
}
