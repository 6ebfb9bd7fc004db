//! The Node engine: scenarios run on a real Node.js binary, the oracle.
//!
//! A Node process costs about 18 ms to start and a scenario about 0.1 ms to
//! run, so scenarios are not run one process each: [`NodeEngine`] keeps
//! long-lived *workers*, each a Node process running nodesem's batch server
//! (`harness/js/server.js`), which reads one request per line of JSON on
//! stdin and answers on stdout, and it spreads a batch over one worker per
//! core. Each worker runs its scenarios one at a time, so a scenario that
//! hangs or crashes Node is attributed exactly: that scenario gets
//! [`EngineError::TimedOut`] or [`EngineError::Crashed`], the worker is
//! replaced by a fresh one and the batch goes on. Workers outlive a batch (an
//! idle pool), so that a fuzz loop's many small batches do not pay for
//! process starts.
//!
//! # How a worker starts
//!
//! `node --expose-gc --expose-internals --stack-trace-limit=0 -e <source>`, where the source is
//! `'use strict';`, the prelude (`harness/js/prelude.js`, which declares the
//! one top-level name `createScenario`) and the server, embedded in this crate
//! with `include_str!` ([`server_source`]). No JavaScript is written to disk,
//! so no other user can swap it, and any installed `nodesem` binary works.
//! Node is spawned without `NODE_OPTIONS` (a user's options would change
//! behaviour) or `NODE_EXTRA_CA_CERTS` (it costs some Node versions 33 ms per
//! start), in a process group of its own. The worker first prints
//! `{"ready":true}`; it has [`DEFAULT_STARTUP_TIMEOUT`] to do so
//! ([`NodeEngine::with_startup_timeout`]). When starting a worker fails twice
//! in a row, across all the threads of a batch, the batch stops: every
//! scenario left gets one [`EngineError::Failed`] naming the binary and the
//! error, so a broken `node:PATH` costs seconds, not a timeout per scenario.
//!
//! # The protocol
//!
//! A request is `{"id", "code", "budget", "maxDepth", "work",
//! "maxLogBytes"}`; `code` is a body as [`crate::emit::emit_body`] writes it,
//! which the server runs as a function of `$` (the prelude's scenario object)
//! and `events` (`node:events`). A `use module` scenario's request also
//! says `"module": true`: its `code` is then the code of an ES module, which
//! the worker evaluates through Node's own ESM loader, as `node main.mjs`
//! evaluates its main script (see `harness/js/server.js`). Node never frees
//! a module record, so a worker that has run [`MAX_MODULES_PER_WORKER`] of
//! them is settled and retired, and the next request gets a fresh one.
//! For each request the worker prints:
//!
//! 1. `{"id", "started": true}`, the acknowledgement, which reaches the pipe
//!    before anything of the request runs (and after the answer of the
//!    request before it);
//! 2. the answer, `{"id", "status": "ok", "log": [...]}` or `{"id", "status":
//!    "error", "error": "SyntaxError: ...", "log": [...]}`.
//!
//! After an answer the worker settles what the scenario left in Node's queues
//! before it takes the next request. So when a worker dies (crash, exit,
//! closed stdout), the scenario to blame is the one acknowledged and not yet
//! answered; if there is none, the death belongs to the scenario answered
//! last: its result is replaced by an [`EngineError::Crashed`] that says it
//! crashed after its log was complete, and the next scenario, which never
//! started, runs again on a fresh worker. At the end of a batch each worker
//! runs an empty *settle probe*, so the last scenario of a batch is held to
//! the same rule before the worker goes back to the idle pool. (A real
//! timer that a raw JavaScript body sets may fire later still, during
//! another scenario; emitted bodies set none: their clock is virtual.)
//!
//! # Deadlines
//!
//! Nothing waits on a worker without a deadline. A request longer than 4
//! KiB is written by a thread of each worker, so a worker that stops reading
//! cannot block the caller (a shorter one goes into an empty pipe, which
//! never blocks); the per-scenario timeout ([`NodeEngine::with_timeout`])
//! covers sending the request, running it and reading the answer. A worker
//! whose stdout ends gets [`EXIT_GRACE`] to exit on its own and is then
//! killed, so a worker that closed its stdout but runs on cannot hang
//! nodesem either. A worker that hangs before acknowledging a request is,
//! by the same rule as a crash, blamed on the scenario it answered last
//! ([`EngineError::TimedOut`]); on a fresh worker, on the request itself.
//!
//! # Workers die with nodesem
//!
//! Every live worker's process group is in a registry; [`kill_all_workers`]
//! sends SIGKILL to each, and [`install_signal_handler`] makes SIGINT, SIGTERM
//! and SIGHUP do that before nodesem exits (status 130). For the case no
//! handler can catch (nodesem is SIGKILLed while a scenario spins), the server
//! runs a watchdog thread that kills its own process within about 200 ms once
//! its parent process is gone.

use std::collections::{BTreeSet, VecDeque};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard, Once, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, Signal};
use nix::sys::wait::{waitid, Id, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use nodesem_lang::{Engine, EngineError, Log, RunConfig, Scenario};
use serde::{Deserialize, Serialize};

use crate::emit::{emit_body, is_module, NODE_FLAGS};

/// The Node.js version nodesem targets, installed by `scripts/install-node.sh`.
pub const PINNED_NODE_VERSION: &str = "26.12.1";

/// How long one scenario may take, from sending it to reading its answer,
/// before its worker is killed.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// How much longer the one retry of a scenario that timed out may take.
pub const TIMEOUT_RETRY_FACTOR: u32 = 3;

/// How long a fresh worker may take to say it is ready.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a worker whose stdout has ended may take to exit by itself
/// before it is killed (so that its own exit status is reported).
pub const EXIT_GRACE: Duration = Duration::from_secs(2);

/// The real clock's default scale: real milliseconds per virtual one
/// ([`NodeEngine::with_real_clock`]). A timer must not run a whole scale
/// late, so it is well above a loaded machine's scheduling delays.
pub const DEFAULT_REAL_SCALE: u32 = 20;

/// How many times a scenario that ran late on the real clock runs again (a
/// loaded machine stalls a process for 100 ms and more at times): first at
/// [`REAL_RETRY_FACTOR`] times the scale, then, as a larger scale takes a
/// long virtual span past the real-time cap (a refusal, which a retry does
/// not keep), at the scale again.
pub const REAL_RETRIES: u32 = 3;

/// How many times larger the scale of the first retry of a late scenario is.
pub const REAL_RETRY_FACTOR: u32 = 4;

/// How many failed worker starts in a row stop a batch.
const MAX_FAILED_STARTS: usize = 2;

/// How many `use module` scenarios a worker runs before it is retired: each
/// leaves a module record, its source and its compiled code in Node's
/// loader for good (measured on 26.12.1: 1,000 modules of a 3.4 KiB body
/// grew the heap by 55 MiB), so this bounds a long fuzz run's memory per
/// worker to some 15 MiB of them.
pub const MAX_MODULES_PER_WORKER: usize = 256;

/// A body for the Node engine: JavaScript for the prelude's `$`, as
/// [`emit_body`] writes it, and whether it is an ES module's code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsBody {
    /// The JavaScript.
    pub code: String,
    /// Whether the worker evaluates it as an ES module (`use module`)
    /// instead of as the body of a function.
    pub module: bool,
}

impl JsBody {
    /// The body of a scenario, of the kind its main script is.
    pub fn of(scenario: &Scenario) -> JsBody {
        JsBody {
            code: emit_body(scenario),
            module: is_module(scenario),
        }
    }
}

/// How long a crash report waits for the rest of a dead worker's stderr.
const STDERR_DRAIN: Duration = Duration::from_secs(1);

/// How much of a process's stderr is kept for crash reports.
const STDERR_TAIL_BYTES: usize = 4096;

/// The lines of stderr a crash report quotes at most.
const STDERR_TAIL_LINES: usize = 20;

/// The longest request written to a worker's stdin by the calling thread
/// itself; longer ones go through the worker's writer thread. A request is
/// only sent once the worker has read every byte of the one before (it
/// answered it), so the pipe is empty then, and a write of up to `PIPE_BUF`
/// (4096 bytes, also the least a Linux pipe holds) into an empty pipe never
/// blocks, whatever the worker does. This saves a thread hand-off per
/// scenario (about a third of the engine's throughput on two cores).
const DIRECT_WRITE_MAX: usize = 4096;

/// The most characters of an unexpected line an error message quotes.
const QUOTE_CHARS: usize = 300;

/// The prelude, then the server, in strict mode, as the files have them.
const SERVER_FILES: &str = concat!(
    "'use strict';\n",
    include_str!("../js/prelude.js"),
    "\n",
    include_str!("../js/server.js"),
);

/// The JavaScript a worker runs, passed to `node -e`: [`SERVER_FILES`]
/// without their whole-line `//` comments (the files' documentation, a
/// third of their bytes). It is one command-line argument, so it must stay
/// well under Linux's 128 KiB limit on one argument (a unit test checks).
/// No line of the two files that starts with `//` is inside a template
/// literal or a string (a unit test checks that the two forms define the
/// same code: every other line is kept, in order).
pub fn server_source() -> &'static str {
    static SOURCE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        SERVER_FILES
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .fold(
                String::with_capacity(SERVER_FILES.len()),
                |mut out, line| {
                    out.push_str(line);
                    out.push('\n');
                    out
                },
            )
    });
    &SOURCE
}

/// Why the pinned Node could not be installed or found.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The install script could not be started.
    #[error("cannot run the install script {script}")]
    Spawn {
        /// The script.
        script: PathBuf,
        /// Why it could not start.
        #[source]
        source: std::io::Error,
    },
    /// The install script failed.
    #[error("the install script {script} failed ({status}): {stderr}")]
    Failed {
        /// The script.
        script: PathBuf,
        /// Its exit status.
        status: ExitStatus,
        /// The end of what it printed on stderr.
        stderr: String,
    },
    /// The install script succeeded but printed no usable path.
    #[error("the install script printed {path:?}, which is not a file")]
    NotInstalled {
        /// What it printed.
        path: PathBuf,
    },
}

/// The repository's install script for the pinned Node.
pub fn install_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("scripts")
        .join("install-node.sh")
}

/// The path of the pinned Node binary, installing it first (from the npm
/// registry, about 5 s) when it is missing. Runs `scripts/install-node.sh`,
/// which downloads nothing when the binary is already there.
pub fn pinned_node_path() -> Result<PathBuf, InstallError> {
    let script = install_script();
    let output = Command::new("bash")
        .arg(&script)
        .env_remove("NODE_OPTIONS")
        .env_remove("NODE_EXTRA_CA_CERTS")
        .stdin(Stdio::null())
        .output()
        .map_err(|source| InstallError::Spawn {
            script: script.clone(),
            source,
        })?;
    if !output.status.success() {
        return Err(InstallError::Failed {
            script,
            status: output.status,
            stderr: tail_lines(&String::from_utf8_lossy(&output.stderr)),
        });
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let path = PathBuf::from(stdout.lines().last().unwrap_or_default().trim());
    if !path.is_file() {
        return Err(InstallError::NotInstalled { path });
    }
    Ok(path)
}

// ---- the registry of live workers ------------------------------------------------

/// The process groups of the workers not yet reaped. A group is removed from
/// here before its leader is reaped (never after), so a signal sent to a
/// group found here never reaches a process that reused the id.
static WORKER_GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

/// Set by the signal handler: no worker starts any more.
static SHUTTING_DOWN: AtomicBool = AtomicBool::new(false);

fn worker_groups() -> MutexGuard<'static, BTreeSet<i32>> {
    WORKER_GROUPS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Sends SIGKILL to the process group of every live worker of this process.
/// The engines notice their workers' deaths as crashes; nothing else is
/// cleaned up, so this is for a nodesem that is about to exit.
pub fn kill_all_workers() {
    let groups = worker_groups();
    for &group in groups.iter() {
        let _ = killpg(Pid::from_raw(group), Signal::SIGKILL);
    }
}

/// The CPU time the workers of this process have used so far, all their
/// threads (V8's helper threads and the watchdog included), read from
/// `/proc/<pid>/task/*/schedstat` in nanoseconds: the live ones', and what
/// the ones killed since (a worker retired after its ES modules, a crashed
/// one) had used when they were killed. For measuring what a scenario costs
/// on Node (the `generated` benchmark); zero where `/proc` has no such
/// files.
pub fn workers_cpu_time() -> Duration {
    let groups = worker_groups();
    let live: Duration = groups.iter().map(|&pid| process_cpu_time(pid)).sum();
    live + Duration::from_nanos(KILLED_WORKERS_CPU_NANOS.load(Ordering::SeqCst))
}

/// What the workers killed so far had used ([`workers_cpu_time`]).
static KILLED_WORKERS_CPU_NANOS: AtomicU64 = AtomicU64::new(0);

/// The CPU time of every thread of process `pid`, from `/proc`.
fn process_cpu_time(pid: i32) -> Duration {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Duration::ZERO;
    };
    let mut total = Duration::ZERO;
    for task in tasks.flatten() {
        let Ok(stat) = std::fs::read_to_string(task.path().join("schedstat")) else {
            continue;
        };
        let on_cpu = stat.split_whitespace().next().and_then(|n| n.parse().ok());
        total += Duration::from_nanos(on_cpu.unwrap_or(0));
    }
    total
}

/// Makes SIGINT, SIGTERM and SIGHUP kill every worker ([`kill_all_workers`])
/// and then exit the process with status 130. Call it once at the start of
/// `main`; later calls do nothing, and so does a call in a process that
/// already has a handler (the `ctrlc` crate allows one per process).
pub fn install_signal_handler() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            SHUTTING_DOWN.store(true, Ordering::SeqCst);
            kill_all_workers();
            std::process::exit(130);
        });
    });
}

// ---- the engine -------------------------------------------------------------------

/// Runs scenarios on a Node.js binary through long-lived worker processes.
pub struct NodeEngine {
    node: PathBuf,
    /// Options for the binary after nodesem's own ([`NodeEngine::with_options`]).
    options: Vec<String>,
    /// The real clock's scale, when the engine runs on it ([`NodeEngine::with_real_clock`]).
    real_scale: Option<u32>,
    name: String,
    timeout: Duration,
    startup_timeout: Duration,
    workers: usize,
    /// Workers left running (and settled) by earlier batches.
    idle: Mutex<Vec<Server>>,
    /// The headers to build the native-callback addon against, for a Node
    /// whose package has none (`NODESEM_NODE_HEADERS`).
    headers: Option<PathBuf>,
    /// The native-callback addon for this binary ([`crate::native`]), built
    /// or found when the first worker starts; the reason when it cannot be.
    addon: OnceLock<Result<PathBuf, String>>,
}

/// What the threads of one batch share.
struct Batch<'a> {
    bodies: &'a [JsBody],
    config: &'a RunConfig,
    next: AtomicUsize,
    /// Failed worker starts since the last successful one, over all threads.
    failed_starts: AtomicUsize,
    /// Set once starts failed [`MAX_FAILED_STARTS`] times in a row: the error
    /// every scenario left gets.
    gave_up: OnceLock<String>,
}

impl Batch<'_> {
    fn take(&self) -> Option<usize> {
        let index = self.next.fetch_add(1, Ordering::Relaxed);
        (index < self.bodies.len()).then_some(index)
    }
}

/// The results one thread produced, by index in the batch.
type Done = Vec<(usize, Result<Log, EngineError>)>;

impl NodeEngine {
    /// The pinned Node.js 26.12.1 (see [`pinned_node_path`]), named `node`.
    pub fn pinned() -> Result<NodeEngine, InstallError> {
        let path = pinned_node_path()?;
        Ok(NodeEngine::with_name(path, "node".to_string()))
    }

    /// The Node binary at `path`, named `node:<path>`. Nothing is downloaded
    /// or checked here: a missing or broken binary makes every scenario fail
    /// with an [`EngineError`] that says why.
    pub fn at(path: impl Into<PathBuf>) -> NodeEngine {
        let path = path.into();
        let name = format!("node:{}", path.display());
        NodeEngine::with_name(path, name)
    }

    fn with_name(node: PathBuf, name: String) -> NodeEngine {
        let workers = thread::available_parallelism().map_or(1, |n| n.get());
        NodeEngine {
            node,
            options: Vec::new(),
            real_scale: None,
            name,
            timeout: DEFAULT_TIMEOUT,
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
            workers,
            idle: Mutex::new(Vec::new()),
            headers: std::env::var_os("NODESEM_NODE_HEADERS")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from),
            addon: OnceLock::new(),
        }
    }

    /// The native-callback addon for this binary: built once against its
    /// package's headers (or `NODESEM_NODE_HEADERS`) and cached beside it.
    fn addon(&self) -> Result<&Path, &str> {
        self.addon
            .get_or_init(|| {
                crate::native::addon_for(&self.node, self.headers.as_deref())
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map(PathBuf::as_path)
            .map_err(String::as_str)
    }

    /// The bodies of `scenarios`, or, for one that makes native callbacks
    /// where the addon cannot be built, the error that says why. Nothing
    /// stands in for the addon.
    fn bodies_of(&self, scenarios: &[Scenario]) -> Vec<Result<JsBody, EngineError>> {
        scenarios
            .iter()
            .map(|scenario| {
                if self.real_scale.is_some() {
                    if let Some(why) = crate::realclock::refusal(scenario) {
                        return Err(EngineError::Failed(why));
                    }
                }
                if crate::emit::uses_native_callbacks(&scenario.body) {
                    if let Err(why) = self.addon() {
                        return Err(EngineError::Failed(format!(
                            "native-callback scenarios cannot run on {}: {why}",
                            self.node.display()
                        )));
                    }
                }
                Ok(JsBody::of(scenario))
            })
            .collect()
    }

    /// [`NodeEngine::run_bodies`] of [`NodeEngine::bodies_of`].
    fn run_scenarios(
        &self,
        scenarios: &[Scenario],
        config: &RunConfig,
    ) -> Vec<Result<Log, EngineError>> {
        let bodies = self.bodies_of(scenarios);
        let runnable: Vec<JsBody> = bodies
            .iter()
            .filter_map(|b| b.as_ref().ok())
            .cloned()
            .collect();
        let mut ran = self.run_bodies(&runnable, config).into_iter();
        bodies
            .into_iter()
            .zip(scenarios)
            .map(|(body, scenario)| match body {
                Ok(_) => match ran.next() {
                    Some(Err(EngineError::Failed(e))) if self.real_scale.is_some() => {
                        Err(EngineError::Failed(crate::realclock::explain(scenario, e)))
                    }
                    Some(result) => result,
                    None => Err(EngineError::Failed("no result".into())),
                },
                Err(e) => Err(e),
            })
            .collect()
    }

    /// Runs the scenarios' timers, intervals, immediates and timeout signals
    /// on libuv's real loop, `scale` real milliseconds per virtual one
    /// (even), instead of the prelude's virtual clock; the engine is then
    /// named `name`. See [`crate::realclock`] for the rule and what is
    /// refused. A scenario that ran late (the machine stalled for a whole
    /// virtual millisecond) runs again, up to [`REAL_RETRIES`] times; a late
    /// last run is its error, which `check` counts apart (it compared
    /// nothing).
    pub fn with_real_clock(mut self, scale: u32, name: String) -> NodeEngine {
        self.real_scale = Some(scale);
        self.name = name;
        self
    }

    /// Starts the binary with `options` too (such as
    /// `--no-async-context-frame`), after nodesem's own; the engine is then
    /// named `name`.
    pub fn with_options(mut self, options: Vec<String>, name: String) -> NodeEngine {
        self.options = options;
        self.name = name;
        self
    }

    /// Sets the per-scenario time limit (default [`DEFAULT_TIMEOUT`]): from
    /// sending a scenario to reading its answer.
    pub fn with_timeout(mut self, timeout: Duration) -> NodeEngine {
        self.timeout = timeout;
        self
    }

    /// Sets how long a fresh worker may take to say it is ready (default
    /// [`DEFAULT_STARTUP_TIMEOUT`]).
    pub fn with_startup_timeout(mut self, timeout: Duration) -> NodeEngine {
        self.startup_timeout = timeout;
        self
    }

    /// Sets how many Node processes a batch uses at most (default: one per
    /// core, as `std::thread::available_parallelism` counts them).
    pub fn with_workers(mut self, workers: usize) -> NodeEngine {
        self.workers = workers.max(1);
        self
    }

    /// The Node binary.
    pub fn node_path(&self) -> &Path {
        &self.node
    }

    /// The per-scenario time limit.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Runs raw scenario bodies (JavaScript for the prelude's `$`, as
    /// [`emit_body`] writes them), spread over the worker processes. Results
    /// come back in input order; every body gets its own result, whatever
    /// the others did.
    pub fn run_js_batch(
        &self,
        bodies: &[String],
        config: &RunConfig,
    ) -> Vec<Result<Log, EngineError>> {
        let bodies: Vec<JsBody> = bodies
            .iter()
            .map(|code| JsBody {
                code: code.clone(),
                module: false,
            })
            .collect();
        self.run_bodies(&bodies, config)
    }

    /// [`NodeEngine::run_js_batch`] of bodies that may be ES modules.
    pub fn run_bodies(
        &self,
        bodies: &[JsBody],
        config: &RunConfig,
    ) -> Vec<Result<Log, EngineError>> {
        let workers = self.workers.min(bodies.len());
        if workers == 0 {
            return Vec::new();
        }
        let batch = Batch {
            bodies,
            config,
            next: AtomicUsize::new(0),
            failed_starts: AtomicUsize::new(0),
            gave_up: OnceLock::new(),
        };
        let mut results: Vec<Option<Result<Log, EngineError>>> = vec![None; bodies.len()];
        thread::scope(|scope| {
            let mut handles = Vec::new();
            for _ in 1..workers {
                let spawned = thread::Builder::new()
                    .name("nodesem-node-worker".into())
                    .spawn_scoped(scope, || self.worker(&batch));
                // Without a thread the remaining workers do the work.
                if let Ok(handle) = spawned {
                    handles.push(handle);
                }
            }
            for (index, result) in self.worker(&batch) {
                results[index] = Some(result);
            }
            for handle in handles {
                if let Ok(done) = handle.join() {
                    for (index, result) in done {
                        results[index] = Some(result);
                    }
                }
            }
        });
        results
            .into_iter()
            .map(|result| {
                result.unwrap_or_else(|| {
                    Err(EngineError::Failed(
                        "internal error: a worker thread panicked".into(),
                    ))
                })
            })
            .collect()
    }

    /// One thread of a batch: takes bodies by index until none is left, on
    /// one worker at a time for its CommonJS scenarios and another for its
    /// ES module ones (see [`Server::for_modules`]), each replaced whenever
    /// it dies.
    fn worker(&self, batch: &Batch) -> Done {
        let mut done = Done::new();
        // Indexed by `JsBody::module`.
        let mut servers: [Option<Server>; 2] = [None, None];
        // The entry of `done` that each server answered last: a death of
        // the server before it acknowledges its next request is that
        // scenario's.
        let mut lasts: [Option<usize>; 2] = [None, None];
        while let Some(index) = batch.take() {
            let kind = usize::from(batch.bodies[index].module);
            let (server, last) = (&mut servers[kind], &mut lasts[kind]);
            let result = self.run_one(batch, index, server, last, &mut done);
            done.push((index, result));
            *last = server.as_ref().map(|_| done.len() - 1);
            if server
                .as_ref()
                .is_some_and(|s| s.modules >= MAX_MODULES_PER_WORKER)
            {
                // Retired: settled first, so that a death while settling is
                // still blamed on the scenario that caused it.
                if let Some(s) = server.take() {
                    drop(self.settle(s, batch, *last, &mut done));
                }
                *last = None;
            }
        }
        for (server, last) in servers.iter_mut().zip(lasts) {
            if let Some(s) = server.take() {
                if let Some(s) = self.settle(s, batch, last, &mut done) {
                    self.put_idle(s);
                }
            }
        }
        done
    }

    /// The settle probe: an empty scenario, acknowledged only once the last
    /// one has settled. Returns the worker when it is alive and settled; a
    /// death before the acknowledgement is the scenario answered last's
    /// (`last`, in `done`).
    fn settle(
        &self,
        mut s: Server,
        batch: &Batch,
        last: Option<usize>,
        done: &mut Done,
    ) -> Option<Server> {
        match s.run("", false, batch.config, self.timeout, None) {
            Outcome::Ran(Ok(_), true) => Some(s),
            Outcome::Ran(..) => None,
            Outcome::NotStarted(fault) => {
                if let Some(prev) = last {
                    if !is_refused(&done[prev].1) {
                        done[prev].1 = Err(fault.after_log_complete());
                    }
                }
                None
            }
        }
    }

    /// Runs one body, on `server` or a fresh worker, and returns its result.
    /// A worker that dies before acknowledging the body is blamed on the
    /// scenario it answered last (`last`, in `done`), and the body runs
    /// again on a fresh worker.
    fn run_one(
        &self,
        batch: &Batch,
        index: usize,
        server: &mut Option<Server>,
        last: &mut Option<usize>,
        done: &mut Done,
    ) -> Result<Log, EngineError> {
        // Fresh workers that died before acknowledging this body.
        let mut lost = 0;
        // A scenario that times out runs once more with a longer limit (a
        // loaded machine must not make a finding up); only a second timeout
        // is reported, as its own kind of failure.
        let mut timeout = self.timeout;
        let mut retried = false;
        let mut scale = self.real_scale;
        let mut late_retries = 0;
        loop {
            let body = &batch.bodies[index];
            let mut current = match server.take() {
                Some(s) => s,
                None => {
                    *last = None;
                    self.fresh_or_idle(batch, body.module)?
                }
            };
            match current.run(&body.code, body.module, batch.config, timeout, scale) {
                Outcome::Ran(Err(EngineError::Failed(e)), alive)
                    if late_retries < REAL_RETRIES
                        && (crate::realclock::is_late(&e)
                            || (late_retries > 0 && crate::realclock::is_over_cap(&e))) =>
                {
                    late_retries += 1;
                    scale = self.real_scale.map(|s| {
                        if late_retries == 1 {
                            s.saturating_mul(REAL_RETRY_FACTOR)
                        } else {
                            s
                        }
                    });
                    if alive {
                        *server = Some(current);
                    }
                    continue;
                }
                Outcome::Ran(Err(EngineError::TimedOut(_)), false) if !retried => {
                    drop(current);
                    retried = true;
                    timeout = timeout.saturating_mul(TIMEOUT_RETRY_FACTOR);
                    continue;
                }
                Outcome::Ran(result, alive) => {
                    if alive {
                        *server = Some(current);
                    }
                    return result;
                }
                Outcome::NotStarted(fault) => {
                    drop(current);
                    if let Some(prev) = last.take() {
                        if !is_refused(&done[prev].1) {
                            done[prev].1 = Err(fault.after_log_complete());
                        }
                        continue;
                    }
                    match fault {
                        // Nothing else ran on it: receiving this body took
                        // too long.
                        Fault::Hung(timeout) => return Err(EngineError::TimedOut(millis(timeout))),
                        Fault::Exited(exit) => {
                            lost += 1;
                            if lost >= 2 {
                                return Err(EngineError::Crashed(
                                    exit.describe("twice before the scenario started"),
                                ));
                            }
                        }
                    }
                }
            }
        }
    }

    /// A settled idle worker, or a fresh one; the batch's error once starts
    /// failed [`MAX_FAILED_STARTS`] times in a row.
    fn fresh_or_idle(&self, batch: &Batch, for_modules: bool) -> Result<Server, EngineError> {
        if let Some(server) = self.take_idle(for_modules) {
            return Ok(server);
        }
        loop {
            if let Some(message) = batch.gave_up.get() {
                return Err(EngineError::Failed(message.clone()));
            }
            // A worker knows where the addon is, when there is one (the
            // prelude loads it for the first native callback).
            let addon = self.addon().ok();
            match Server::start(&self.node, &self.options, self.startup_timeout, addon) {
                Ok(mut server) => {
                    batch.failed_starts.store(0, Ordering::SeqCst);
                    server.for_modules = for_modules;
                    return Ok(server);
                }
                Err(error) => {
                    let failed = batch.failed_starts.fetch_add(1, Ordering::SeqCst) + 1;
                    if failed >= MAX_FAILED_STARTS {
                        let _ = batch.gave_up.set(format!(
                            "{error} (starting a worker failed {MAX_FAILED_STARTS} times in a \
                             row, so the rest of the batch does not run on {})",
                            self.node.display()
                        ));
                    }
                }
            }
        }
    }

    /// An idle worker of the kind asked for (see [`Server::for_modules`]);
    /// dead ones are dropped on the way.
    fn take_idle(&self, for_modules: bool) -> Option<Server> {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        while let Some(at) = idle.iter().rposition(|s| s.for_modules == for_modules) {
            let mut server = idle.swap_remove(at);
            if server.is_alive() {
                return Some(server);
            }
        }
        None
    }

    fn put_idle(&self, server: Server) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        let same = idle
            .iter()
            .filter(|s| s.for_modules == server.for_modules)
            .count();
        if same < self.workers {
            idle.push(server);
        }
    }
}

impl Engine for NodeEngine {
    fn deterministic(&self) -> bool {
        false
    }

    fn name(&self) -> String {
        self.name.clone()
    }

    /// Starts a worker (kept for the run that follows): a binary that
    /// cannot start one, such as a Node whose internals moved (the worker
    /// names what is missing), fails here, once.
    fn preflight(&self) -> Result<(), EngineError> {
        if let Some(server) = self.take_idle(false) {
            self.put_idle(server);
            return Ok(());
        }
        let addon = self.addon().ok();
        match Server::start(&self.node, &self.options, self.startup_timeout, addon) {
            Ok(server) => {
                self.put_idle(server);
                Ok(())
            }
            Err(error) => Err(EngineError::Failed(error)),
        }
    }

    fn run(&self, scenario: &Scenario, config: &RunConfig) -> Result<Log, EngineError> {
        self.run_scenarios(std::slice::from_ref(scenario), config)
            .pop()
            .unwrap_or_else(|| Err(EngineError::Failed("no result".into())))
    }

    fn run_batch(
        &self,
        scenarios: &[Scenario],
        config: &RunConfig,
    ) -> Vec<Result<Log, EngineError>> {
        self.run_scenarios(scenarios, config)
    }
}

// ---- one worker process ---------------------------------------------------------

#[derive(Serialize)]
struct Request<'a> {
    id: u64,
    code: &'a str,
    budget: u32,
    #[serde(rename = "maxDepth")]
    max_depth: u32,
    work: u64,
    #[serde(rename = "maxLogBytes")]
    max_log_bytes: u64,
    /// Sent only when true, so a CommonJS request is what it always was.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    module: bool,
    /// `"real"` on the real clock, else not sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    clock: Option<&'static str>,
    /// The real clock's scale.
    #[serde(skip_serializing_if = "Option::is_none")]
    scale: Option<u32>,
}

#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    ready: bool,
    #[serde(default)]
    started: bool,
    #[serde(default)]
    id: Option<u64>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    log: Vec<String>,
    #[serde(default)]
    error: Option<String>,
}

/// The last bytes a process wrote to stderr.
type StderrTail = Arc<Mutex<VecDeque<u8>>>;

/// How a worker ended: its exit status and the end of its stderr.
struct Exit {
    status: String,
    stderr: String,
}

impl Exit {
    /// `node exited <when> (<status>); stderr ...`.
    fn describe(&self, when: &str) -> String {
        if self.stderr.is_empty() {
            format!("node exited {when} ({}); stderr was empty", self.status)
        } else {
            format!(
                "node exited {when} ({}); stderr ends with:\n{}",
                self.status, self.stderr
            )
        }
    }
}

/// What went wrong with a worker before it acknowledged a request.
enum Fault {
    /// It exited (or closed its stdout).
    Exited(Exit),
    /// It neither acknowledged nor died within the timeout.
    Hung(Duration),
}

impl Fault {
    /// The error of the scenario answered last, which the fault belongs to.
    fn after_log_complete(self) -> EngineError {
        match self {
            Fault::Exited(exit) => EngineError::Crashed(exit.describe(
                "after the scenario's log was complete, while it settled the scenario's leftover jobs",
            )),
            Fault::Hung(timeout) => EngineError::TimedOut(millis(timeout)),
        }
    }
}

/// The result of sending a request to a worker.
enum Outcome {
    /// The request was acknowledged, so its scenario ran: its result, and
    /// whether the worker can go on.
    Ran(Result<Log, EngineError>, bool),
    /// The worker died or stopped answering before acknowledging the
    /// request: its scenario never started. The worker is dead.
    NotStarted(Fault),
}

/// One worker: a Node process running the server, the thread that writes
/// its requests and the threads that read its output.
struct Server {
    child: Child,
    /// The process group (the child's pid), while it is in [`WORKER_GROUPS`].
    group: i32,
    /// The worker's stdin, for requests of at most [`DIRECT_WRITE_MAX`]
    /// bytes; `None` once the worker is done.
    stdin: Option<File>,
    /// Longer request lines, for the writer thread (which holds a duplicate
    /// of stdin); `None` once the worker is done.
    requests: Option<Sender<Vec<u8>>>,
    /// Complete lines of stdout; disconnected at its end.
    lines: Receiver<String>,
    stderr_tail: StderrTail,
    /// Disconnected when the stderr reader has read everything.
    stderr_done: Receiver<()>,
    next_id: u64,
    /// How many ES module requests it was sent (see [`MAX_MODULES_PER_WORKER`]).
    modules: usize,
    /// Whether it runs the ES module scenarios of a batch. Each batch thread
    /// keeps them apart from the CommonJS ones: the module records a worker
    /// accumulates slow every scenario it runs after them, until it is
    /// retired.
    for_modules: bool,
}

impl Server {
    /// Starts a worker and waits (at most `startup_timeout`) for it to say
    /// it is ready. The error names the binary.
    fn start(
        node: &Path,
        options: &[String],
        startup_timeout: Duration,
        addon: Option<&Path>,
    ) -> Result<Server, String> {
        let mut command = Command::new(node);
        match addon {
            Some(addon) => command.env("NODESEM_ADDON", addon),
            None => command.env_remove("NODESEM_ADDON"),
        };
        command
            .args(NODE_FLAGS)
            .args(options)
            .arg("-e")
            .arg(server_source())
            .env_remove("NODE_OPTIONS")
            .env_remove("NODE_EXTRA_CA_CERTS")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let (mut child, group) = {
            // Spawned and registered under one lock, so kill_all_workers
            // sees every worker that exists.
            let mut groups = worker_groups();
            if SHUTTING_DOWN.load(Ordering::SeqCst) {
                return Err("nodesem is shutting down".into());
            }
            let mut child = command
                .spawn()
                .map_err(|e| format!("cannot start node at {}: {e}", node.display()))?;
            let Ok(group) = i32::try_from(child.id()) else {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("node at {} got an impossible pid", node.display()));
            };
            groups.insert(group);
            (child, group)
        };
        let stdin = child.stdin.take();
        let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
        let (requests, to_write) = mpsc::channel::<Vec<u8>>();
        let (line_sender, lines) = mpsc::channel();
        let (stderr_finished, stderr_done) = mpsc::channel::<()>();
        let stderr_tail: StderrTail = Arc::new(Mutex::new(VecDeque::new()));
        let mut server = Server {
            child,
            group,
            stdin: None,
            requests: Some(requests),
            lines,
            stderr_tail: Arc::clone(&stderr_tail),
            stderr_done,
            next_id: 0,
            modules: 0,
            for_modules: false,
        };
        let (Some(stdin), Some(stdout), Some(mut stderr)) = (stdin, stdout, stderr) else {
            return Err(format!("node at {} has no pipes", node.display()));
        };
        let stdin = OwnedFd::from(stdin);
        let mut writer_stdin = match stdin.try_clone() {
            Ok(fd) => File::from(fd),
            Err(e) => return Err(format!("cannot duplicate node's stdin: {e}")),
        };
        server.stdin = Some(File::from(stdin));
        let writer = thread::Builder::new()
            .name("nodesem-node-stdin".into())
            .spawn(move || {
                for line in to_write {
                    if writer_stdin.write_all(&line).is_err() {
                        break;
                    }
                }
            });
        let stdout_reader = thread::Builder::new()
            .name("nodesem-node-stdout".into())
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match reader.read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                    // A line cut short is one the process died writing.
                    if buf.pop() != Some(b'\n') {
                        break;
                    }
                    let line = String::from_utf8_lossy(&buf).into_owned();
                    if line_sender.send(line).is_err() {
                        break;
                    }
                }
            });
        let stderr_reader = thread::Builder::new()
            .name("nodesem-node-stderr".into())
            .spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = stderr.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let mut tail = stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
                    tail.extend(&buf[..n]);
                    let excess = tail.len().saturating_sub(STDERR_TAIL_BYTES);
                    tail.drain(..excess);
                }
                drop(stderr_finished);
            });
        if writer.is_err() || stdout_reader.is_err() || stderr_reader.is_err() {
            return Err("cannot start the threads that talk to node".into());
        }
        match server.lines.recv_timeout(startup_timeout) {
            Ok(line) => match serde_json::from_str::<Response>(&line) {
                Ok(response) if response.ready => Ok(server),
                // The worker's probe of Node's internals failed: it says what is missing.
                Ok(Response {
                    error: Some(error), ..
                }) => Err(format!("{error} (the binary is {})", node.display())),
                _ => Err(format!(
                    "node at {} did not start nodesem's server; it printed: {}",
                    node.display(),
                    quote(&line)
                )),
            },
            Err(RecvTimeoutError::Timeout) => Err(format!(
                "node at {} did not say it was ready within {}",
                node.display(),
                show_duration(startup_timeout)
            )),
            Err(RecvTimeoutError::Disconnected) => Err(format!(
                "{} (the binary is {})",
                server.exited().describe("while starting"),
                node.display()
            )),
        }
    }

    /// Whether the process is still running. A dead one is reaped.
    fn is_alive(&mut self) -> bool {
        if self.peek_exited() {
            self.kill();
            false
        } else {
            true
        }
    }

    /// Whether the process has exited, without reaping it.
    fn peek_exited(&self) -> bool {
        if !worker_groups().contains(&self.group) {
            return true;
        }
        let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
        !matches!(
            waitid(Id::Pid(Pid::from_raw(self.group)), flags),
            Ok(WaitStatus::StillAlive)
        )
    }

    /// Sends one body and reads what happens to it, all within `timeout`.
    fn run(
        &mut self,
        code: &str,
        module: bool,
        config: &RunConfig,
        timeout: Duration,
        scale: Option<u32>,
    ) -> Outcome {
        let id = self.next_id;
        self.next_id += 1;
        self.modules += usize::from(module);
        let request = Request {
            id,
            code,
            budget: config.budget,
            max_depth: config.max_depth,
            work: config.work,
            max_log_bytes: config.max_log_bytes,
            module,
            clock: scale.map(|_| "real"),
            scale,
        };
        let mut line = match serde_json::to_vec(&request) {
            Ok(line) => line,
            Err(e) => {
                let error = EngineError::Failed(format!("bad request: {e}"));
                return Outcome::Ran(Err(error), true);
            }
        };
        line.push(b'\n');
        let deadline = Instant::now() + timeout;
        // What stderr says from here on belongs to this request.
        self.stderr_tail
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        // A write that fails, or a writer thread that is gone, means the
        // process is gone: the end of its stdout, read below, says how.
        if line.len() <= DIRECT_WRITE_MAX {
            if let Some(stdin) = self.stdin.as_mut() {
                let _ = stdin.write_all(&line);
            }
        } else if let Some(requests) = &self.requests {
            let _ = requests.send(line);
        }
        let mut started = false;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let response = match serde_json::from_str::<Response>(&line) {
                        Ok(response) if response.id == Some(id) => response,
                        _ => return self.unexpected(&line),
                    };
                    if response.started && !started {
                        started = true;
                        continue;
                    }
                    let Some(status) = response.status.filter(|_| started) else {
                        return self.unexpected(&line);
                    };
                    let result = if status == "ok" {
                        Ok(Log {
                            lines: response.log,
                        })
                    } else {
                        let message = response
                            .error
                            .unwrap_or_else(|| format!("status {status:?}"));
                        Err(EngineError::Failed(message))
                    };
                    return Outcome::Ran(result, true);
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.kill();
                    return if started {
                        Outcome::Ran(Err(EngineError::TimedOut(millis(timeout))), false)
                    } else {
                        Outcome::NotStarted(Fault::Hung(timeout))
                    };
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let exit = self.exited();
                    return if started {
                        let error =
                            EngineError::Crashed(exit.describe("while running the scenario"));
                        Outcome::Ran(Err(error), false)
                    } else {
                        Outcome::NotStarted(Fault::Exited(exit))
                    };
                }
            }
        }
    }

    /// A line that is not the protocol: the worker is killed, the request
    /// fails.
    fn unexpected(&mut self, line: &str) -> Outcome {
        self.kill();
        let message = format!("unexpected answer from node's server: {}", quote(line));
        Outcome::Ran(Err(EngineError::Failed(message)), false)
    }

    /// How a worker whose stdout ended exited: it gets [`EXIT_GRACE`] to
    /// exit by itself (its own status is the better report), then it is
    /// killed.
    fn exited(&mut self) -> Exit {
        self.stdin = None;
        self.requests = None;
        let grace_ends = Instant::now() + EXIT_GRACE;
        while !self.peek_exited() && Instant::now() < grace_ends {
            thread::sleep(Duration::from_millis(5));
        }
        let status = self.kill();
        // The stderr reader ends at the end of the pipe, once it has read
        // everything; a pipe some other process still holds is not waited
        // for.
        let _ = self.stderr_done.recv_timeout(STDERR_DRAIN);
        let stderr = {
            let tail = self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
            let bytes: Vec<u8> = tail.iter().copied().collect();
            tail_lines(&String::from_utf8_lossy(&bytes))
        };
        Exit { status, stderr }
    }

    /// Kills the process group (if the worker is not reaped yet) and reaps
    /// the worker; returns its exit status. Idempotent.
    fn kill(&mut self) -> String {
        self.stdin = None;
        self.requests = None;
        {
            let mut groups = worker_groups();
            if groups.contains(&self.group) {
                let used = process_cpu_time(self.group);
                let nanos = u64::try_from(used.as_nanos()).unwrap_or(u64::MAX);
                KILLED_WORKERS_CPU_NANOS.fetch_add(nanos, Ordering::SeqCst);
            }
            if groups.remove(&self.group) {
                // Not reaped yet, so the group id is still the worker's. A
                // worker that exited (a zombie) is not affected; anything
                // left in its group is.
                let _ = killpg(Pid::from_raw(self.group), Signal::SIGKILL);
            }
        }
        match self.child.wait() {
            Ok(status) => status.to_string(),
            Err(e) => format!("unknown status ({e})"),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Whether a result is the real clock's refusal, which a worker that then
/// exits (a Node bug left it unable to go on) does not turn into a crash.
fn is_refused(result: &Result<Log, EngineError>) -> bool {
    matches!(result, Err(EngineError::Failed(e)) if crate::realclock::is_refusal(e))
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// `10 s` or `300 ms`.
fn show_duration(duration: Duration) -> String {
    let ms = millis(duration);
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

/// A line of output, cut to [`QUOTE_CHARS`] characters.
fn quote(line: &str) -> String {
    let mut chars = line.chars();
    let quoted: String = chars.by_ref().take(QUOTE_CHARS).collect();
    if chars.next().is_some() {
        format!("{quoted}...")
    } else {
        quoted
    }
}

/// The last lines of a text, trimmed.
fn tail_lines(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let start = lines.len().saturating_sub(STDERR_TAIL_LINES);
    lines[start..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Linux's limit on one command-line argument, counting its final NUL
    /// (`MAX_ARG_STRLEN`, 32 pages of 4 KiB): `execve` fails with E2BIG
    /// beyond it, and then no worker starts.
    const MAX_ARG_STRLEN: usize = 131_072;

    #[test]
    fn the_server_source_fits_well_within_one_argument() {
        let size = server_source().len() + 1;
        assert!(
            size <= MAX_ARG_STRLEN / 2,
            "the JavaScript a worker gets with `node -e` (prelude.js + server.js) is {size} \
             bytes, more than half of Linux's limit of {MAX_ARG_STRLEN} bytes on one \
             command-line argument (MAX_ARG_STRLEN); past that limit every worker start fails \
             with E2BIG. Make harness/js/prelude.js or server.js smaller, or pass the source \
             another way that writes no file (for example as a first line on the worker's \
             stdin, read by a short -e loader) and update this test"
        );
        assert!(
            !server_source().contains('\0'),
            "a command-line argument cannot hold a NUL byte"
        );
    }

    #[test]
    fn the_server_source_is_the_prelude_then_the_server() {
        let prelude = include_str!("../js/prelude.js");
        let server = include_str!("../js/server.js");
        assert!(SERVER_FILES.starts_with("'use strict';\n"));
        let prelude_at = SERVER_FILES.find(prelude).expect("the prelude is in");
        let server_at = SERVER_FILES.find(server).expect("the server is in");
        assert!(prelude_at < server_at);
        // What the worker gets is the files' code lines, every one, in
        // order: only whole-line comments are gone, and none of them is
        // inside a multi-line template literal (the one such literal, the
        // watchdog's source in server.js, has no comment line).
        let code: Vec<&str> = SERVER_FILES
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect();
        assert_eq!(server_source().lines().collect::<Vec<_>>(), code);
        assert!(server_source().contains("function createScenario"));
        assert!(server_source().len() < SERVER_FILES.len() * 9 / 10);
    }

    #[test]
    fn durations_and_quotes_read_well() {
        assert_eq!(show_duration(Duration::from_secs(10)), "10 s");
        assert_eq!(show_duration(Duration::from_millis(300)), "300 ms");
        assert_eq!(quote("short"), "short");
        let long = "x".repeat(QUOTE_CHARS + 1);
        assert_eq!(quote(&long), format!("{}...", "x".repeat(QUOTE_CHARS)));
    }
}
