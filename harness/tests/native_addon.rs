//! Tests of the native-callback addon (`harness/native/nodesem_callbacks.cc`,
//! built by `nodesem_harness::native`) on the pinned Node 26.12.1, with real
//! compiles and real Node processes: it is built once and then found in the
//! cache; a callback made from a libuv timer through `node::MakeCallback` or
//! a `node::AsyncResource` runs its ticks and then its microtasks before the
//! next macrotask, in the order of Node's `InternalCallbackScope`; what an
//! AsyncLocalStorage store looks like inside such callbacks, with and
//! without AsyncContextFrame; a Node without headers, with the wrong
//! headers or with headers that do not compile gives a clear error; and the
//! Node engine runs `native` scenarios through the addon, or fails only
//! those, with the reason.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use nodesem_harness::native::{addon_for, build_addon, NativeError};
use nodesem_harness::node::pinned_node_path;

fn node() -> &'static Path {
    static NODE: OnceLock<PathBuf> = OnceLock::new();
    NODE.get_or_init(|| pinned_node_path().unwrap_or_else(|e| panic!("{e}")))
}

/// The addon for the pinned Node, from its own cache beside the binary.
fn addon() -> &'static Path {
    static ADDON: OnceLock<PathBuf> = OnceLock::new();
    ADDON.get_or_init(|| addon_for(node(), None).unwrap_or_else(|e| panic!("{e}")))
}

/// The pinned package's headers (`<package>/include/node`).
fn pinned_headers() -> PathBuf {
    node()
        .parent()
        .and_then(Path::parent)
        .expect("the pinned node is in <package>/bin")
        .join("include")
        .join("node")
}

/// A folder with `bin/node`, a symlink to the pinned node, and with
/// `include/node`, a symlink to its headers, when `with_headers`.
fn fake_install(with_headers: bool) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::create_dir(dir.path().join("bin")).unwrap();
    let bin = dir.path().join("bin").join("node");
    std::os::unix::fs::symlink(node(), &bin).unwrap();
    if with_headers {
        std::fs::create_dir(dir.path().join("include")).unwrap();
        std::os::unix::fs::symlink(pinned_headers(), dir.path().join("include").join("node"))
            .unwrap();
    }
    (dir, bin)
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|read| {
            read.map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Runs `script` with the pinned node (`node FLAGS file ADDON`) and returns
/// its stdout lines; panics with its stderr when it fails.
fn run_js(script: &str, flags: &[&str]) -> Vec<String> {
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = dir.path().join("main.js");
    std::fs::write(&file, script).unwrap();
    let output = Command::new(node())
        .args(flags)
        .arg(&file)
        .arg(addon())
        .env_remove("NODE_OPTIONS")
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "node failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout.lines().map(str::to_string).collect()
}

const LOAD: &str = "const mod = { exports: {} };\n\
                    process.dlopen(mod, process.argv[2]);\n\
                    const addon = mod.exports;\n";

#[test]
fn the_addon_builds_once_then_comes_from_the_cache() {
    let (dir, bin) = fake_install(true);
    let cache = dir.path().join("nodesem-native");

    let first = build_addon(&bin, None).unwrap_or_else(|e| panic!("{e}"));
    let took = first.compile_time.expect("the first call compiles");
    eprintln!("compiled in {took:?}");
    assert!(first.was_built());
    assert_eq!(first.path.parent(), Some(cache.as_path()));
    let name = first
        .path
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        name.starts_with("nodesem_callbacks-v26.12.1-") && name.ends_with(".node"),
        "{name}"
    );
    // Only the renamed file is left: no temporary output.
    assert_eq!(entries(&cache), vec![name.clone()]);
    let built_at = std::fs::metadata(&first.path).unwrap().modified().unwrap();

    // Let a rebuild show in the modification time, then ask again.
    std::thread::sleep(Duration::from_millis(20));
    let second = build_addon(&bin, None).unwrap_or_else(|e| panic!("{e}"));
    assert!(!second.was_built(), "the second call compiled again");
    assert_eq!(second.path, first.path);
    assert_eq!(
        std::fs::metadata(&second.path).unwrap().modified().unwrap(),
        built_at
    );
    assert_eq!(addon_for(&bin, None).unwrap(), first.path);
    assert_eq!(entries(&cache), vec![name]);

    // Another path to the same binary is another key, in its own folder.
    let pinned = addon();
    assert_ne!(pinned.file_name(), first.path.file_name());
    assert!(pinned.starts_with(node().parent().unwrap().parent().unwrap()));

    // What was built loads, and exports the two functions.
    let lines = run_js(
        &format!(
            "{LOAD}const again = {{ exports: {{}} }};\n\
             process.dlopen(again, {:?});\n\
             console.log(Object.keys(addon).sort().join(','), Object.keys(again.exports).sort().join(','));\n\
             try {{ addon.makeCallbackAfter('1', () => {{}}); }} catch (e) {{ console.log(e.name); }}\n\
             try {{ addon.makeResourceCallbackAfter(1); }} catch (e) {{ console.log(e.name); }}\n",
            first.path.to_str().unwrap()
        ),
        &[],
    );
    assert_eq!(
        lines,
        vec![
            "makeCallbackAfter,makeResourceCallbackAfter makeCallbackAfter,makeResourceCallbackAfter",
            "TypeError",
            "TypeError",
        ]
    );
}

/// The program of the order tests: a `setImmediate` queued first, then a
/// native callback (0 ms, so it fires in the loop's first timers phase) that
/// queues two ticks and two microtasks; the first tick queues a tick and a
/// microtask, the promise reaction queues a tick.
fn order_program(function: &str) -> String {
    format!(
        "{LOAD}const order = [];\n\
         setImmediate(() => {{ order.push('immediate'); console.log(JSON.stringify(order)); }});\n\
         addon.{function}(0, function (a, b) {{\n\
           order.push(`callback ${{a}} ${{b}} this=${{typeof this}}`);\n\
           Promise.resolve().then(() => {{\n\
             order.push('promise');\n\
             process.nextTick(() => order.push('tick from promise'));\n\
           }});\n\
           queueMicrotask(() => order.push('queueMicrotask'));\n\
           process.nextTick(() => {{\n\
             order.push('tick 1');\n\
             process.nextTick(() => order.push('tick 3 from tick 1'));\n\
             queueMicrotask(() => order.push('microtask from tick 1'));\n\
           }});\n\
           process.nextTick(() => order.push('tick 2'));\n\
         }}, 'x', 1);\n"
    )
}

/// Node's InternalCallbackScope::Close with ticks queued calls
/// processTicksAndRejections: every tick (those queued by ticks too), then
/// the microtasks, then again while ticks were queued, all before the loop
/// goes on to the check phase.
const EXPECTED_ORDER: &[&str] = &[
    "callback x 1 this=object",
    "tick 1",
    "tick 2",
    "tick 3 from tick 1",
    "promise",
    "queueMicrotask",
    "microtask from tick 1",
    "tick from promise",
    "immediate",
];

fn observed_order(function: &str) -> Vec<String> {
    let lines = run_js(&order_program(function), &[]);
    assert_eq!(lines.len(), 1, "{lines:?}");
    let order: Vec<String> = serde_json::from_str(&lines[0]).unwrap();
    eprintln!("{function}: {order:?}");
    order
}

#[test]
fn make_callback_drains_ticks_then_microtasks_before_the_next_macrotask() {
    assert_eq!(observed_order("makeCallbackAfter"), EXPECTED_ORDER);
}

#[test]
fn an_async_resource_callback_drains_the_same_way() {
    assert_eq!(observed_order("makeResourceCallbackAfter"), EXPECTED_ORDER);
}

#[test]
fn without_ticks_the_scope_runs_only_the_microtask_checkpoint() {
    for function in ["makeCallbackAfter", "makeResourceCallbackAfter"] {
        let lines = run_js(
            &format!(
                "{LOAD}const order = [];\n\
                 setImmediate(() => {{ order.push('immediate'); console.log(JSON.stringify(order)); }});\n\
                 addon.{function}(0, () => {{\n\
                   order.push('callback');\n\
                   Promise.resolve().then(() => order.push('promise'));\n\
                   queueMicrotask(() => {{\n\
                     order.push('queueMicrotask');\n\
                     process.nextTick(() => order.push('tick from microtask'));\n\
                   }});\n\
                 }});\n"
            ),
            &[],
        );
        let order: Vec<String> = serde_json::from_str(&lines[0]).unwrap();
        eprintln!("{function} without ticks: {order:?}");
        assert_eq!(
            order,
            [
                "callback",
                "promise",
                "queueMicrotask",
                "tick from microtask",
                "immediate"
            ],
            "{function}"
        );
    }
}

/// The async hooks of both kinds of callback: init with the addon's type
/// when the function is called (triggered by the caller), the callback
/// running as that resource between before and after, destroy after it.
/// Node queues destroy hooks and emits them together later (from a native
/// immediate), so both destroys come after both callbacks, which fire in one
/// timers phase.
#[test]
fn callbacks_run_as_their_own_async_resource() {
    let lines = run_js(
        &format!(
            "{LOAD}const {{ createHook, executionAsyncId, triggerAsyncId }} = require('async_hooks');\n\
             const types = new Map();\n\
             const events = [];\n\
             createHook({{\n\
               init(id, type, trigger) {{ if (type.startsWith('nodesem:')) {{ types.set(id, type); events.push(`init ${{type}} trigger=${{trigger === executionAsyncId()}}`); }} }},\n\
               before(id) {{ if (types.has(id)) events.push(`before ${{types.get(id)}}`); }},\n\
               after(id) {{ if (types.has(id)) events.push(`after ${{types.get(id)}}`); }},\n\
               destroy(id) {{ if (types.has(id)) events.push(`destroy ${{types.get(id)}}`); }},\n\
             }}).enable();\n\
             addon.makeCallbackAfter(0, () => events.push(`callback as ${{types.get(executionAsyncId())}}`));\n\
             addon.makeResourceCallbackAfter(0, () => events.push(`callback as ${{types.get(executionAsyncId())}}`));\n\
             setImmediate(() => setImmediate(() => console.log(JSON.stringify(events))));\n"
        ),
        &[],
    );
    let events: Vec<String> = serde_json::from_str(&lines[0]).unwrap();
    eprintln!("{events:?}");
    assert_eq!(
        events,
        [
            "init nodesem:makeCallbackAfter trigger=true",
            "init nodesem:makeResourceCallbackAfter trigger=true",
            "before nodesem:makeCallbackAfter",
            "callback as nodesem:makeCallbackAfter",
            "after nodesem:makeCallbackAfter",
            "before nodesem:makeResourceCallbackAfter",
            "callback as nodesem:makeResourceCallbackAfter",
            "after nodesem:makeResourceCallbackAfter",
            "destroy nodesem:makeCallbackAfter",
            "destroy nodesem:makeResourceCallbackAfter",
        ]
    );
}

const ALS_PROGRAM: &str = "const { AsyncLocalStorage, AsyncResource } = require('async_hooks');\n\
    const als = new AsyncLocalStorage();\n\
    const store = { name: 'store' };\n\
    const seen = (s) => s === store ? 'store' : s === undefined ? 'undefined' : JSON.stringify(s);\n\
    als.run(store, () => addon.makeResourceCallbackAfter(0, () => console.log('makeResourceCallbackAfter', seen(als.getStore()))));\n\
    als.run(store, () => addon.makeCallbackAfter(1, () => console.log('makeCallbackAfter', seen(als.getStore()))));\n\
    als.run(store, () => { const r = new AsyncResource('js'); addon.makeCallbackAfter(2, () => r.runInAsyncScope(() => console.log('JS AsyncResource', seen(als.getStore())))); });\n\
    als.run(store, () => addon.makeResourceCallbackAfter(3, () => { als.enterWith({ other: 1 }); console.log('enterWith inside', seen(als.getStore())); }));\n\
    addon.makeResourceCallbackAfter(4, () => console.log('outside any run, after enterWith', seen(als.getStore())));\n";

/// What each callback sees of an AsyncLocalStorage store set around the call
/// that scheduled it, with Node's default AsyncContextFrame store.
///
/// On 26.12.1 a `node::AsyncResource` made inside `als.run` captures the
/// frame, but its `MakeCallback` enters that frame and then calls the free
/// `node::MakeCallback`, whose InternalCallbackScope exchanges it for the
/// empty frame: the callback sees no store (the JS `AsyncResource` does).
/// nodejs/node#66326 ("src: keep ALS store in AsyncResource::MakeCallback")
/// is the fix; when the pinned Node gets it, the first line says `store`.
#[test]
fn async_local_storage_with_async_context_frame() {
    let lines = run_js(&format!("{LOAD}{ALS_PROGRAM}"), &[]);
    eprintln!("{lines:#?}");
    assert_eq!(
        lines,
        [
            "makeResourceCallbackAfter undefined",
            "makeCallbackAfter undefined",
            "JS AsyncResource store",
            "enterWith inside {\"other\":1}",
            "outside any run, after enterWith undefined",
        ]
    );
}

/// The same with `--no-async-context-frame` (the async_hooks store): the
/// store travels with the resource made by EmitAsyncInit, so both kinds of
/// native callback see it.
#[test]
fn async_local_storage_with_async_hooks() {
    let lines = run_js(
        &format!("{LOAD}{ALS_PROGRAM}"),
        &["--no-async-context-frame"],
    );
    eprintln!("{lines:#?}");
    assert_eq!(
        lines,
        [
            "makeResourceCallbackAfter store",
            "makeCallbackAfter store",
            "JS AsyncResource store",
            "enterWith inside {\"other\":1}",
            "outside any run, after enterWith undefined",
        ]
    );
}

#[test]
fn a_node_without_headers_is_refused_without_compiling() {
    let (dir, bin) = fake_install(false);
    let error = build_addon(&bin, None).expect_err("no headers");
    let message = error.to_string();
    eprintln!("{message}");
    let NativeError::NoHeaders { node, looked } = &error else {
        panic!("not NoHeaders: {error:?}");
    };
    assert_eq!(node, &bin);
    assert_eq!(looked, &dir.path().join("bin/../include/node"));
    assert!(message.contains("native-callback scenarios cannot run on"));
    assert!(message.contains("include/node"));
    assert!(message.contains("headers path"));
    // Nothing was built or even prepared.
    assert_eq!(entries(dir.path()), vec!["bin"]);

    // A headers folder given without node.h is refused too.
    let empty = tempfile::tempdir().unwrap();
    let error = addon_for(&bin, Some(empty.path())).expect_err("no node.h");
    assert!(matches!(error, NativeError::BadHeaders { .. }), "{error:?}");
    assert_eq!(entries(dir.path()), vec!["bin"]);
}

/// Writes a headers folder with the given `node_version.h` major version and
/// a `node.h` holding `node_h`.
fn fake_headers(major: u32, node_h: &str) -> tempfile::TempDir {
    let headers = tempfile::tempdir().unwrap();
    std::fs::write(
        headers.path().join("node_version.h"),
        format!("#define NODE_MAJOR_VERSION {major}\n"),
    )
    .unwrap();
    std::fs::write(headers.path().join("node.h"), node_h).unwrap();
    headers
}

#[test]
fn headers_of_another_major_version_are_refused() {
    let (dir, bin) = fake_install(false);
    let headers = fake_headers(20, "");
    let error = build_addon(&bin, Some(headers.path())).expect_err("wrong version");
    assert!(
        matches!(&error, NativeError::HeadersVersion { headers_major, .. } if headers_major == "20"),
        "{error:?}"
    );
    assert_eq!(entries(dir.path()), vec!["bin"]);
}

#[test]
fn a_failed_compile_returns_the_compilers_stderr_and_leaves_nothing() {
    let (dir, bin) = fake_install(false);
    let headers = fake_headers(26, "#error nodesem-test-broken-headers\n");
    let error = build_addon(&bin, Some(headers.path())).expect_err("a broken node.h");
    let NativeError::Compile { stderr, .. } = &error else {
        panic!("not Compile: {error:?}");
    };
    assert!(stderr.contains("nodesem-test-broken-headers"), "{stderr}");
    // The cache folder was made, but neither the temporary output nor a
    // .node file is left in it.
    assert_eq!(
        entries(&dir.path().join("nodesem-native")),
        Vec::<String>::new()
    );
}

/// The uv timer is ref'd: a program whose only pending work is native
/// callbacks waits for them (a timer's due time counts from the loop's
/// cached time, taken before the main script ran, as for `setTimeout`).
#[test]
fn the_timer_keeps_the_loop_alive() {
    let lines = run_js(
        &format!(
            "{LOAD}addon.makeResourceCallbackAfter(60, (s) => console.log(s), 'resource 60 ms');\n\
             addon.makeCallbackAfter(50, (s) => console.log(s), 'plain 50 ms');\n\
             process.on('exit', () => console.log('exit'));\n"
        ),
        &[],
    );
    assert_eq!(lines, ["plain 50 ms", "resource 60 ms", "exit"]);
}

/// A Worker whose timers have not fired is terminated: the addon's
/// asynchronous environment cleanup hook closes them and holds the teardown
/// until they are closed (with a synchronous hook the close callback ran
/// after Node had unloaded the Worker's addon, and the process died of
/// SIGSEGV), and the callbacks never run; the same at `process.exit()`.
#[test]
fn a_terminated_worker_closes_its_pending_timers() {
    let started = std::time::Instant::now();
    let lines = run_js(
        "const { Worker } = require('worker_threads');\n\
         const worker = new Worker(`\n\
           const mod = { exports: {} };\n\
           process.dlopen(mod, ${JSON.stringify(process.argv[2])});\n\
           mod.exports.makeCallbackAfter(60000, () => console.log('plain fired'));\n\
           mod.exports.makeResourceCallbackAfter(60000, () => console.log('resource fired'));\n\
           require('worker_threads').parentPort.postMessage('scheduled');\n\
         `, { eval: true });\n\
         worker.on('message', (m) => { console.log(m); worker.terminate(); });\n\
         worker.on('exit', (code) => console.log('worker exit', code));\n",
        &[],
    );
    assert_eq!(lines, ["scheduled", "worker exit 1"]);
    // The main environment's teardown at process.exit() closes them too.
    let lines = run_js(
        &format!(
            "{LOAD}addon.makeCallbackAfter(60000, () => console.log('plain fired'));\n\
             addon.makeResourceCallbackAfter(60000, () => console.log('resource fired'));\n\
             setTimeout(() => {{ console.log('exiting'); process.exit(0); }}, 1);\n"
        ),
        &[],
    );
    assert_eq!(lines, ["exiting"]);
    assert!(started.elapsed() < Duration::from_secs(30));
}

/// The Node engine on a binary without headers: the scenarios that make
/// native callbacks fail with the reason, the others run; with the pinned
/// Node, a native callback scenario runs through the real addon.
#[test]
fn the_node_engine_runs_native_callbacks_or_says_why_it_cannot() {
    use nodesem_lang::{Engine, RunConfig};
    let native = nodesem_lang::parse(
        "native.scn",
        "native 0 {\n  log \"native\"\n}\nlog \"main\"\n",
    )
    .expect("a valid scenario");
    let plain = nodesem_lang::parse("plain.scn", "log \"plain\"\n").expect("a valid scenario");
    let config = RunConfig::default();

    let (_dir, bin) = fake_install(false);
    let engine = nodesem_harness::node::NodeEngine::at(&bin).with_workers(1);
    let results = engine.run_batch(&[native.clone(), plain.clone()], &config);
    let error = results[0].as_ref().expect_err("no headers, no addon");
    let message = error.to_string();
    assert!(
        message.contains("native-callback scenarios cannot run on")
            && message.contains("include/node"),
        "{message}"
    );
    assert_eq!(results[1].as_ref().expect("runs").lines, vec!["plain"]);

    let pinned = nodesem_harness::node::NodeEngine::at(node()).with_workers(1);
    let log = pinned.run(&native, &config).expect("runs");
    assert_eq!(log.lines, vec!["main", "native"]);
}
