//! the model's `ReadableStream.from` and async iterator, driven directly through
//! the library's operations on a runtime: a ruler of chained reactions logs
//! `t1`, `t2`, ... one microtask apart, so each log says on which
//! microtask each step ran. Every expected log was read from the pinned
//! Node 26.12.1 running the JavaScript written above each test (with
//! `const gen = (values) => (async function* () { for (let i = 0; i <
//! values.length; i++) yield values[i]; })();` and `function ruler(n) { let
//! p = Promise.resolve(); for (let i = 1; i <= n; i++) p = p.then(() =>
//! log('t' + i)); }`).

use nodesem_model::Model as Lib;

#[path = "../../tests/support/iterate_cases.rs"]
mod cases;
