//! The cases of `model/tests/iterate.rs` and `impl/tests/iterate.rs`, one
//! text for both engines (each mounts this file as a module after naming
//! its library `Lib`): the expected logs are the pinned Node's, so they are
//! the same for both.

use super::Lib;
use nodesem_lang::{parse, RunConfig};
use nodesem_runtime::{
    Library, ObjectData, QueuingStrategy, Runtime, Task, UnderlyingSource, Value,
};

type Rt = Runtime<Lib>;

/// Runs `f` as an immediate of an empty scenario, then the loop until
/// idle: the log's lines.
fn run(f: impl FnOnce(&mut Rt) + 'static) -> Vec<String> {
    let mut rt = Runtime::<Lib>::pooled(RunConfig::default());
    rt.set_immediate(Task::Native(Box::new(move |rt| {
        f(rt);
        Ok(Value::Undefined)
    })));
    let scenario = parse("iterate.scn", "").expect("an empty scenario parses");
    rt.run_main(&scenario);
    rt.into_log().lines
}

/// `p.then(v => log(tag, v), e => log(tag + ' rejected', e))`.
fn on(rt: &mut Rt, p: &Value, tag: &'static str) {
    let fulfilled = rt.native_function(move |rt, _, args| {
        let shown = rt.fmt(args.first().unwrap_or(&Value::Undefined));
        rt.log_line(format!("{tag} {shown}"));
        Ok(Value::Undefined)
    });
    let rejected = rt.native_function(move |rt, _, args| {
        let shown = rt.fmt(args.first().unwrap_or(&Value::Undefined));
        rt.log_line(format!("{tag} rejected {shown}"));
        Ok(Value::Undefined)
    });
    let p = p.as_object().expect("a promise");
    rt.promise_then(p, Some(fulfilled), Some(rejected));
}

fn ruler(rt: &mut Rt, n: u32) {
    let mut p = rt.promise_resolve(Value::Undefined);
    for i in 1..=n {
        let f = rt.native_function(move |rt, _, _| {
            rt.log_line(format!("t{i}"));
            Ok(Value::Undefined)
        });
        p = rt.promise_then(p, Some(f), None);
    }
}

/// A stream whose `start` runs `f` with the controller.
fn readable(rt: &mut Rt, f: impl Fn(&mut Rt, Value) + 'static) -> Value {
    let start = rt.native_function(move |rt, _, args| {
        f(rt, args.first().cloned().unwrap_or(Value::Undefined));
        Ok(Value::Undefined)
    });
    let source = UnderlyingSource {
        object: Value::Object(rt.heap.alloc(ObjectData::Plain)),
        start: Some(start),
        pull: None,
        cancel: None,
    };
    Lib::new_readable_stream(rt, source, QueuingStrategy::default()).expect("a stream")
}

fn lines(expected: &str) -> Vec<String> {
    expected.split('|').map(str::to_string).collect()
}

fn num(n: f64) -> Value {
    Value::Number(n)
}

/// `const r = ReadableStream.from([1, 2]).getReader(); r.read().then(...)`
/// three times, `ruler(6)`: highWaterMark 0, so each read pulls; the array
/// iterator's result is taken with PromiseResolve, a microtask each.
#[test]
fn from_an_array_pulls_one_value_per_read() {
    let log = run(|rt| {
        let array = rt.create_array_from_list(vec![num(1.0), num(2.0)]);
        let rs = Lib::readable_from(rt, array).expect("a stream");
        let r = Lib::readable_get_reader(rt, rs).expect("a reader");
        for tag in ["r1", "r2", "r3"] {
            let p = Lib::reader_read(rt, r.clone()).expect("a promise");
            on(rt, &p, tag);
        }
        ruler(rt, 6);
    });
    assert_eq!(
        log,
        lines("t1|t2|r1 {value: 1, done: false}|t3|r2 {value: 2, done: false}|t4|r3 {value: undefined, done: true}|t5|t6")
    );
}

/// `const it = ReadableStream.from(gen([1, 2])).values(); it.next()...;
/// it.next()...; it.return(7)...; ruler(12);`: the first next waits a
/// microtask, each chained call waits for the one before.
#[test]
fn values_of_a_from_async_stream_next_next_return() {
    let log = run(|rt| {
        let g = rt
            .new_async_generator(vec![num(1.0), num(2.0)])
            .expect("a generator");
        let rs = Lib::readable_from(rt, g).expect("a stream");
        let it = Lib::readable_values(rt, rs, false).expect("an iterator");
        let n1 = Lib::async_iterator_next(rt, it.clone()).expect("a promise");
        on(rt, &n1, "n1");
        let n2 = Lib::async_iterator_next(rt, it.clone()).expect("a promise");
        on(rt, &n2, "n2");
        let r = Lib::async_iterator_return(rt, it, Some(num(7.0))).expect("a promise");
        on(rt, &r, "ret");
        ruler(rt, 12);
    });
    assert_eq!(
        log,
        lines("t1|t2|t3|t4|n1 {value: 1, done: false}|t5|t6|t7|t8|n2 {value: 2, done: false}|t9|t10|t11|t12|ret {value: 7, done: true}")
    );
}

/// `const rs = new ReadableStream({ start(c) { c.enqueue('a');
/// c.enqueue('b'); } }); const it = rs.values({ preventCancel: true });
/// it.next()...; it.return('keep').then(v => { log('ret', v);
/// log('locked', rs.locked); }); ruler(6);`: return releases the lock
/// without cancelling.
#[test]
fn return_with_prevent_cancel_releases_the_lock() {
    let log = run(|rt| {
        let rs = readable(rt, |rt, c| {
            for chunk in ["a", "b"] {
                Lib::readable_controller_enqueue(rt, c.clone(), Value::string(chunk))
                    .expect("enqueued");
            }
        });
        let it = Lib::readable_values(rt, rs.clone(), true).expect("an iterator");
        let n1 = Lib::async_iterator_next(rt, it.clone()).expect("a promise");
        on(rt, &n1, "n1");
        let r = Lib::async_iterator_return(rt, it, Some(Value::string("keep"))).expect("a promise");
        on(rt, &r, "ret");
        let after = rt.native_function(move |rt, _, _| {
            let id = rs.as_object().expect("a stream");
            let locked = Lib::get(rt, id, "locked").expect("locked");
            let shown = rt.fmt(&locked);
            rt.log_line(format!("locked {shown}"));
            Ok(Value::Undefined)
        });
        rt.promise_then(r.as_object().unwrap(), Some(after), None);
        ruler(rt, 6);
    });
    assert_eq!(
        log,
        lines("t1|t2|t3|n1 {value: a, done: false}|t4|t5|t6|ret {value: keep, done: true}|locked false")
    );
}

/// `const it = new ReadableStream({ start(c) { c.error('broken'); }
/// }).values(); it.next()...; it.next()...; ruler(6);`: the first next
/// rejects with the stored error and finishes the iterator.
#[test]
fn next_on_an_errored_stream_rejects_then_is_done() {
    let log = run(|rt| {
        let rs = readable(rt, |rt, c| {
            Lib::readable_controller_error(rt, c, Value::string("broken")).expect("errored");
        });
        let it = Lib::readable_values(rt, rs, false).expect("an iterator");
        let n1 = Lib::async_iterator_next(rt, it.clone()).expect("a promise");
        on(rt, &n1, "n1");
        let n2 = Lib::async_iterator_next(rt, it).expect("a promise");
        on(rt, &n2, "n2");
        ruler(rt, 6);
    });
    assert_eq!(
        log,
        lines("t1|t2|t3|n1 rejected broken|t4|t5|t6|n2 {value: undefined, done: true}")
    );
}

/// `const r = ReadableStream.from(gen([1, 2, 3])).getReader();
/// r.read()...; r.cancel('late')...; ReadableStream.from(gen([1, 2,
/// 3])).cancel('why')...; ruler(6);`: the cancel settles the pending read
/// as done at once, and awaits the generator's return (at a yield after the
/// first next, at its start for the second stream).
#[test]
fn cancel_of_a_from_async_stream_awaits_the_generator_return() {
    let log = run(|rt| {
        let g = rt
            .new_async_generator(vec![num(1.0), num(2.0), num(3.0)])
            .expect("a generator");
        let rs = Lib::readable_from(rt, g).expect("a stream");
        let r = Lib::readable_get_reader(rt, rs).expect("a reader");
        let p1 = Lib::reader_read(rt, r.clone()).expect("a promise");
        on(rt, &p1, "r1");
        let c = Lib::reader_cancel(rt, r, Some(Value::string("late"))).expect("a promise");
        on(rt, &c, "cancel");
        let g2 = rt
            .new_async_generator(vec![num(1.0), num(2.0), num(3.0)])
            .expect("a generator");
        let rs2 = Lib::readable_from(rt, g2).expect("a stream");
        let c2 = Lib::readable_cancel(rt, rs2, Some(Value::string("why"))).expect("a promise");
        on(rt, &c2, "cancel2");
        ruler(rt, 6);
    });
    assert_eq!(
        log,
        lines("r1 {value: undefined, done: true}|t1|t2|t3|cancel undefined|cancel2 undefined|t4|t5|t6")
    );
}

/// `const rs = new ReadableStream(); rs.getReader(); rs.values()` throws
/// Node's ERR_INVALID_STATE TypeError.
#[test]
fn values_of_a_locked_stream_throws() {
    let log = run(|rt| {
        let rs = Lib::new_readable_stream(
            rt,
            UnderlyingSource {
                object: Value::Undefined,
                start: None,
                pull: None,
                cancel: None,
            },
            QueuingStrategy::default(),
        )
        .expect("a stream");
        Lib::readable_get_reader(rt, rs.clone()).expect("a reader");
        let e = Lib::readable_values(rt, rs, false).expect_err("a locked stream");
        let shown = rt.fmt(&e);
        rt.log_line(format!("caught {shown}"));
    });
    assert_eq!(
        log,
        lines("caught TypeError: Invalid state: ReadableStream is locked")
    );
}

// ---- a read request record parked twice ---------------------------------

/// Node's ERR_INTERNAL_ASSERTION message, as the log shows it.
const ASSERTION: &str = "Error: This is caused by either a bug in Node.js or incorrect usage of Node.js internals.\\nPlease open an issue with this stack trace at https://github.com/nodejs/node/issues\\n";

/// The log of a curated scenario of scenarios/streams/, run on this engine;
/// each expected log below is Node 26.12.1's for the same file (`nodesem run
/// --engine node`).
fn run_curated(name: &str, text: &str) -> Vec<String> {
    let scenario = parse(name, text).unwrap_or_else(|e| panic!("{e}"));
    nodesem_runtime::run_scenario::<Lib>(&scenario, &RunConfig::default()).lines
}

fn owned(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|l| l.to_string()).collect()
}

/// The close runs the parked record's close steps twice: the first settles
/// the third next() done and releases the reader; the second throws out of
/// `close()` ("not reached" is not logged), and the second next() never
/// settles.
#[test]
fn a_close_with_the_read_request_parked_twice_throws_from_close() {
    let log = run_curated(
        "close.scn",
        include_str!("../../scenarios/streams/iterate_a_close_with_the_read_request_parked_twice_throws_from_close.scn"),
    );
    let expected = owned(&[
        "pull 1",
        "t1",
        "t2",
        "t3",
        "a {value: a, done: false}",
        "pull 2",
        "t4",
        "pull 3",
        "close",
        "c {value: undefined, done: true}",
        "t1",
        "t2",
        "t3",
        "t4",
        "locked false",
        "t1",
        "t2",
        "d {value: undefined, done: true}",
    ]);
    assert_eq!(log, expected);
}

/// `controller.error()` from a timer: the third next() rejects, and the
/// second error steps' ERR_INTERNAL_ASSERTION is uncaught.
#[test]
fn an_error_with_the_read_request_parked_twice_throws_from_error() {
    let log = run_curated(
        "error.scn",
        include_str!("../../scenarios/streams/iterate_an_error_with_the_read_request_parked_twice_throws_from_error.scn"),
    );
    let uncaught = format!("uncaught {ASSERTION}");
    let expected = owned(&[
        "pull 1",
        "a {value: a, done: false}",
        "pull 2",
        "pull 3",
        "t1",
        "t2",
        "t3",
        "erroring",
        &uncaught,
        "c rejected boom",
        "d {value: undefined, done: true}",
        "t1",
        "t2",
    ]);
    assert_eq!(log, expected);
}

/// A throwing pull: the rejection reaction's ERR_INTERNAL_ASSERTION is an
/// unhandled rejection.
#[test]
fn a_pull_rejection_with_the_read_request_parked_twice_is_unhandled() {
    let log = run_curated(
        "pull.scn",
        include_str!("../../scenarios/streams/iterate_a_pull_rejection_with_the_read_request_parked_twice_is_unhandled.scn"),
    );
    let unhandled = format!("unhandled rejection {ASSERTION}");
    let expected = owned(&[
        "pull 1",
        "a {value: a, done: false}",
        "pull 2",
        "pull 3",
        "t1",
        "c rejected boom",
        "t2",
        "t3",
        "t4",
        &unhandled,
    ]);
    assert_eq!(log, expected);
}

/// return() while a chained next()'s read is parked rejects with
/// ERR_INTERNAL_ASSERTION; nothing is cancelled and the stream stays locked.
#[test]
fn return_with_a_chained_read_parked_rejects() {
    let log = run_curated(
        "return.scn",
        include_str!(
            "../../scenarios/streams/iterate_return_with_a_chained_read_parked_rejects.scn"
        ),
    );
    let rejected = format!("r rejected {ASSERTION}");
    let expected = owned(&[
        "pull 1",
        "t1",
        "t2",
        "t3",
        "a {value: a, done: false}",
        "pull 2",
        "t4",
        "locked true",
        &rejected,
        "t1",
        "t1",
        "t2",
        "t2",
        "t3",
        "d {value: undefined, done: true}",
    ]);
    assert_eq!(log, expected);
}

/// A from() stream's rejectPull errors the stream in a reaction: its
/// ERR_INTERNAL_ASSERTION is an unhandled rejection.
#[test]
fn a_from_rejection_with_the_read_request_parked_twice_is_unhandled() {
    let log = run_curated(
        "from.scn",
        include_str!("../../scenarios/streams/iterate_a_from_rejection_with_the_read_request_parked_twice_is_unhandled.scn"),
    );
    let unhandled = format!("unhandled rejection {ASSERTION}");
    let expected = owned(&[
        "t1",
        "t2",
        "t3",
        "a {value: a, done: false}",
        "t4",
        "t5",
        "t6",
        "t1",
        "c rejected boom",
        "t2",
        "t3",
        "t4",
        "t5",
        "t6",
        &unhandled,
    ]);
    assert_eq!(log, expected);
}

/// The same over a byte stream: the timer's close() throws the second close steps'
/// ERR_INTERNAL_ASSERTION (uncaught), the second next() never settles, and the next timer's
/// close() finds the stream closed.
#[test]
fn a_byte_stream_close_with_the_read_request_parked_twice_throws() {
    let log = run_curated(
        "byte_close.scn",
        include_str!("../../scenarios/streams/iterate_a_byte_stream_close_with_the_read_request_parked_twice_throws.scn"),
    );
    let uncaught = format!("uncaught {ASSERTION}");
    let expected = owned(&[
        "t1",
        "t2",
        "t3",
        "a {value: Uint8Array(1, 47, 86), done: false}",
        "pull",
        "pull",
        "t1",
        "t2",
        "t3",
        "closing",
        &uncaught,
        "closing",
        "uncaught TypeError: Invalid state: ReadableStream is already closed",
        "c {value: undefined, done: true}",
    ]);
    assert_eq!(log, expected);
}
