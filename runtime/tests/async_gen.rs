//! The runtime's async generator objects (`from async [...]`'s
//! `(async function* () { for (...) yield values[i]; })()`) and its
//! iterator protocol, driven directly: `next`, `return` and `throw` in the
//! states of ECMA-262 §27.6 (suspended-start, executing, suspended-yield,
//! awaiting-return, completed), each log read from the pinned Node 26.12.1
//! running the JavaScript written above the test, with
//! `const gen = (values) => (async function* () { for (let i = 0; i <
//! values.length; i++) yield values[i]; })();` and a ruler
//! `function ruler(n) { let p = Promise.resolve(); for (let i = 1; i <= n;
//! i++) p = p.then(() => log('t' + i)); }`.

mod common;

use common::NoLibrary;
use nodesem_lang::{parse, RunConfig};
use nodesem_runtime::{AsyncGeneratorState, IteratorKind, ObjectId, Runtime, Task, Value};

type Rt = Runtime<NoLibrary>;

/// Runs `f` as an immediate of an empty scenario, then the loop until
/// idle: the log's lines.
fn run(f: impl FnOnce(&mut Rt) + 'static) -> Vec<String> {
    let mut rt = Runtime::<NoLibrary>::pooled(RunConfig::default());
    rt.set_immediate(Task::Native(Box::new(move |rt| {
        f(rt);
        Ok(Value::Undefined)
    })));
    let scenario = parse("gen.scn", "").expect("an empty scenario parses");
    rt.run_main(&scenario);
    rt.into_log().lines
}

/// `p.then(v => log(tag, v), e => log(tag + ' rejected', e))`.
fn on(rt: &mut Rt, p: ObjectId, tag: &'static str) {
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

fn gen(rt: &mut Rt, values: Vec<Value>) -> Value {
    Value::Object(rt.create_async_generator(values))
}

fn num(n: f64) -> Value {
    Value::Number(n)
}

fn lines(expected: &[&str]) -> Vec<String> {
    expected.iter().map(|s| s.to_string()).collect()
}

/// `const g = gen([1, Promise.resolve(2)]); g.next()...; g.next()...;
/// g.next()...; ruler(8);`: the three requests queue while the body runs;
/// each yield awaits its operand, the end completes the third.
#[test]
fn three_next_calls_queue_and_each_yield_awaits_its_operand() {
    let log = run(|rt| {
        let two = Value::Object(rt.promise_resolve(num(2.0)));
        let g = gen(rt, vec![num(1.0), two]);
        for tag in ["n1", "n2", "n3"] {
            let p = rt.async_generator_next(&g, Value::Undefined);
            on(rt, p, tag);
        }
        assert_eq!(
            rt.async_generator_state(g.as_object().unwrap()),
            AsyncGeneratorState::Executing
        );
        ruler(rt, 8);
    });
    assert_eq!(
        log,
        lines(&[
            "t1",
            "n1 {value: 1, done: false}",
            "t2",
            "n2 {value: 2, done: false}",
            "n3 {value: undefined, done: true}",
            "t3",
            "t4",
            "t5",
            "t6",
            "t7",
            "t8",
        ])
    );
}

/// `const g = gen([1, 2]); g.return(7)...; g.next()...; ruler(5);`: a
/// return at suspended-start awaits its value (awaiting-return), then
/// the next is done.
#[test]
fn return_at_suspended_start_awaits_its_value_then_next_is_done() {
    let log = run(|rt| {
        let g = gen(rt, vec![num(1.0), num(2.0)]);
        let r = rt.async_generator_return(&g, num(7.0));
        assert_eq!(
            rt.async_generator_state(g.as_object().unwrap()),
            AsyncGeneratorState::AwaitingReturn
        );
        on(rt, r, "r");
        let n = rt.async_generator_next(&g, Value::Undefined);
        on(rt, n, "n");
        ruler(rt, 5);
    });
    assert_eq!(
        log,
        lines(&[
            "t1",
            "r {value: 7, done: true}",
            "n {value: undefined, done: true}",
            "t2",
            "t3",
            "t4",
            "t5",
        ])
    );
}

/// `g.next()...; g.return(Promise.resolve(9))...; g.next()...; ruler(8);`:
/// the return queued while executing is taken at the yield without
/// suspending and awaited there.
#[test]
fn return_queued_behind_a_next_is_awaited_at_the_yield() {
    let log = run(|rt| {
        let g = gen(rt, vec![num(1.0), num(2.0)]);
        let n1 = rt.async_generator_next(&g, Value::Undefined);
        on(rt, n1, "n1");
        let nine = Value::Object(rt.promise_resolve(num(9.0)));
        let r = rt.async_generator_return(&g, nine);
        on(rt, r, "r");
        let n2 = rt.async_generator_next(&g, Value::Undefined);
        on(rt, n2, "n2");
        ruler(rt, 8);
    });
    assert_eq!(
        log,
        lines(&[
            "t1",
            "n1 {value: 1, done: false}",
            "t2",
            "r {value: 9, done: true}",
            "n2 {value: undefined, done: true}",
            "t3",
            "t4",
            "t5",
            "t6",
            "t7",
            "t8",
        ])
    );
}

/// `const g = gen([Promise.reject('bad'), 2]); g.next()...; g.next()...;
/// ruler(5);`: the rejection is thrown at the yield and completes the
/// generator; the queued next is done.
#[test]
fn a_rejected_yield_operand_throws_and_completes_the_generator() {
    let log = run(|rt| {
        let bad = Value::Object(rt.promise_reject_new(Value::string("bad")));
        let g = gen(rt, vec![bad, num(2.0)]);
        let n1 = rt.async_generator_next(&g, Value::Undefined);
        on(rt, n1, "n1");
        let n2 = rt.async_generator_next(&g, Value::Undefined);
        on(rt, n2, "n2");
        ruler(rt, 5);
    });
    assert_eq!(
        log,
        lines(&[
            "t1",
            "n1 rejected bad",
            "n2 {value: undefined, done: true}",
            "t2",
            "t3",
            "t4",
            "t5",
        ])
    );
}

/// `g.next().then(v => { log('n1', v); g.throw('boom')...; g.next()...; });
/// const h = gen([1]); h.throw('early')...; h.next()...; ruler(6);`: a
/// throw at suspended-start completes at once; one at a yield throws there.
#[test]
fn throw_at_suspended_start_and_at_a_yield() {
    let log = run(|rt| {
        let g = gen(rt, vec![num(1.0), num(2.0)]);
        let n1 = rt.async_generator_next(&g, Value::Undefined);
        let g2 = g.clone();
        let after = rt.native_function(move |rt, _, args| {
            let shown = rt.fmt(args.first().unwrap_or(&Value::Undefined));
            rt.log_line(format!("n1 {shown}"));
            let t = rt.async_generator_throw(&g2, Value::string("boom"));
            on(rt, t, "throw");
            let n2 = rt.async_generator_next(&g2, Value::Undefined);
            on(rt, n2, "n2");
            Ok(Value::Undefined)
        });
        rt.promise_then(n1, Some(after), None);
        let h = gen(rt, vec![num(1.0)]);
        let t = rt.async_generator_throw(&h, Value::string("early"));
        assert_eq!(
            rt.async_generator_state(h.as_object().unwrap()),
            AsyncGeneratorState::Completed
        );
        on(rt, t, "early");
        let hn = rt.async_generator_next(&h, Value::Undefined);
        on(rt, hn, "h next");
        ruler(rt, 6);
    });
    assert_eq!(
        log,
        lines(&[
            "early rejected early",
            "h next {value: undefined, done: true}",
            "t1",
            "n1 {value: 1, done: false}",
            "t2",
            "throw rejected boom",
            "n2 {value: undefined, done: true}",
            "t3",
            "t4",
            "t5",
            "t6",
        ])
    );
}

/// An array through GetIterator(array, async) (no JavaScript reaches
/// CreateAsyncFromSyncIterator alone, so this log follows the spec's steps
/// rather than Node): the async-from-sync iterator's next settles its
/// promise in the reaction to PromiseResolve(value), a microtask later, so
/// its reaction runs after the ruler's first; its return (the array
/// iterator has none) settles at once. An async generator is its own async
/// iterator, and no sync iterable.
#[test]
fn get_iterator_async_wraps_an_array_and_takes_a_generator_as_it_is() {
    let log = run(|rt| {
        let array = rt.create_array_from_list(vec![num(1.0)]);
        let record = rt
            .get_iterator(&array, IteratorKind::Async)
            .expect("an array is iterable");
        let next = rt
            .iterator_next(&record, None)
            .expect("next returns a promise");
        on(rt, next.as_object().unwrap(), "next");
        let ret = rt.get_method(&record.iterator, "return").expect("a method");
        let r = rt
            .call_function(
                ret.as_object().unwrap(),
                record.iterator.clone(),
                &[num(5.0)],
            )
            .expect("return returns a promise");
        on(rt, r.as_object().unwrap(), "return");
        let g = gen(rt, vec![]);
        let grecord = rt.get_iterator(&g, IteratorKind::Async).expect("iterable");
        assert_eq!(grecord.iterator, g);
        let sync = rt.get_iterator(&g, IteratorKind::Sync);
        assert!(sync.is_err(), "an async generator is no sync iterable");
        ruler(rt, 3);
    });
    assert_eq!(
        log,
        lines(&[
            "return {value: 5, done: true}",
            "t1",
            "next {value: 1, done: false}",
            "t2",
            "t3",
        ])
    );
}
