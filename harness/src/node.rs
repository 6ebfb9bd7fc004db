//! The Node engine: scenarios run on a real Node.js binary, the oracle.
//!
//! A Node process costs about 18 ms to start and a scenario about 0.1 ms to
//! run, so scenarios are not run one process each: [`NodeEngine`] keeps
//! long-lived servers (`harness/js/server.js`), each a Node process that reads
//! one scenario body per line of JSON on stdin and answers with its log on
//! stdout, and it spreads a batch over one server per core. Each server runs
//! its scenarios one at a time, so a scenario that hangs or crashes Node is
//! attributed exactly: that scenario gets [`EngineError::TimedOut`] or
//! [`EngineError::Crashed`], the server is replaced by a fresh one and the
//! batch goes on. Servers outlive a batch (an idle pool), so that a fuzz
//! loop's many small batches do not pay for process starts.
//!
//! The protocol, from `server.js`: a request is
//! `{"id", "code", "budget", "maxDepth"}`; the answer is
//! `{"id", "status": "ok", "log": [...]}` or
//! `{"id", "status": "error", "error": "SyntaxError: ...", "log": [...]}`.
//! `code` is a body as [`crate::emit::emit_body`] writes it; the server runs it
//! as a function of `$` (the prelude's scenario object) and `events`
//! (`node:events`).
//!
//! The JavaScript files are embedded in this crate with `include_str!` and
//! written, when missing or different, to a folder of the system's temporary
//! directory named after a hash of their contents. The engine therefore works
//! from any installed `nodesem` binary, not only from a checkout, and two
//! builds with different JavaScript never share files.
//!
//! Node is spawned with `--expose-gc --expose-internals`, and without
//! `NODE_OPTIONS` (a user's options would change behaviour) or
//! `NODE_EXTRA_CA_CERTS` (it costs some Node versions 33 ms per start).

use std::collections::hash_map::DefaultHasher;
use std::collections::VecDeque;
use std::hash::{Hash, Hasher};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use nodesem_lang::{Engine, EngineError, Log, RunConfig, Scenario};
use serde::{Deserialize, Serialize};

use crate::emit::{emit_body, NODE_FLAGS};

/// The Node.js version nodesem targets, installed by `scripts/install-node.sh`.
pub const PINNED_NODE_VERSION: &str = "26.12.1";

/// How long one scenario may run before its Node process is killed.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a fresh Node process may take to say it is ready.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// How much of a process's stderr is kept for crash reports.
const STDERR_TAIL_BYTES: usize = 4096;

/// The lines of stderr a crash report quotes at most.
const STDERR_TAIL_LINES: usize = 20;

const SERVER_JS: &str = include_str!("../js/server.js");
const PRELUDE_JS: &str = include_str!("../js/prelude.js");

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

/// Runs scenarios on a Node.js binary through long-lived server processes.
pub struct NodeEngine {
    node: PathBuf,
    name: String,
    timeout: Duration,
    workers: usize,
    /// Servers left running by earlier batches, ready for the next one.
    idle: Mutex<Vec<Server>>,
}

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
            name,
            timeout: DEFAULT_TIMEOUT,
            workers,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// Sets the per-scenario time limit (default [`DEFAULT_TIMEOUT`]).
    pub fn with_timeout(mut self, timeout: Duration) -> NodeEngine {
        self.timeout = timeout;
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
        let workers = self.workers.min(bodies.len());
        if workers == 0 {
            return Vec::new();
        }
        let js_dir = match js_dir() {
            Ok(dir) => dir,
            Err(message) => {
                return bodies
                    .iter()
                    .map(|_| Err(EngineError::Failed(message.clone())))
                    .collect();
            }
        };
        let next = AtomicUsize::new(0);
        let mut results: Vec<Option<Result<Log, EngineError>>> = vec![None; bodies.len()];
        thread::scope(|scope| {
            let mut handles = Vec::new();
            for _ in 1..workers {
                let spawned = thread::Builder::new()
                    .name("nodesem-node-worker".into())
                    .spawn_scoped(scope, || self.worker(js_dir, bodies, config, &next));
                // Without a thread the remaining workers do the work.
                if let Ok(handle) = spawned {
                    handles.push(handle);
                }
            }
            for (index, result) in self.worker(js_dir, bodies, config, &next) {
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

    /// One worker: takes bodies by index until none is left, on one server
    /// at a time (replaced whenever it dies).
    fn worker(
        &self,
        js_dir: &Path,
        bodies: &[String],
        config: &RunConfig,
        next: &AtomicUsize,
    ) -> Vec<(usize, Result<Log, EngineError>)> {
        let mut done = Vec::new();
        let mut server: Option<Server> = None;
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            if index >= bodies.len() {
                break;
            }
            if server.as_mut().is_some_and(|s| !s.is_alive()) {
                server = None;
            }
            let mut current = match server.take() {
                Some(s) => s,
                None => match self.take_idle() {
                    Some(s) => s,
                    None => match Server::start(&self.node, js_dir) {
                        Ok(s) => s,
                        Err(e) => {
                            done.push((index, Err(e)));
                            continue;
                        }
                    },
                },
            };
            let (result, alive) = current.run(&bodies[index], config, self.timeout);
            done.push((index, result));
            if alive {
                server = Some(current);
            }
        }
        if let Some(s) = server {
            self.put_idle(s);
        }
        done
    }

    fn take_idle(&self) -> Option<Server> {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        while let Some(mut server) = idle.pop() {
            if server.is_alive() {
                return Some(server);
            }
        }
        None
    }

    fn put_idle(&self, server: Server) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < self.workers {
            idle.push(server);
        }
    }
}

impl Engine for NodeEngine {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn run(&self, scenario: &Scenario, config: &RunConfig) -> Result<Log, EngineError> {
        self.run_js_batch(&[emit_body(scenario)], config)
            .pop()
            .unwrap_or_else(|| Err(EngineError::Failed("no result".into())))
    }

    fn run_batch(
        &self,
        scenarios: &[Scenario],
        config: &RunConfig,
    ) -> Vec<Result<Log, EngineError>> {
        let bodies: Vec<String> = scenarios.iter().map(emit_body).collect();
        self.run_js_batch(&bodies, config)
    }
}

// ---- the JavaScript files ---------------------------------------------------

/// The folder holding `server.js` and `prelude.js`, written once per process.
fn js_dir() -> Result<&'static Path, String> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(write_js_files)
        .as_ref()
        .map(|p| p.as_path())
        .map_err(|e| e.clone())
}

fn write_js_files() -> Result<PathBuf, String> {
    let mut hasher = DefaultHasher::new();
    SERVER_JS.hash(&mut hasher);
    PRELUDE_JS.hash(&mut hasher);
    let dir = std::env::temp_dir().join(format!("nodesem-js-{:016x}", hasher.finish()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| format!("cannot create the folder {}: {e}", dir.display()))?;
    for (name, contents) in [("server.js", SERVER_JS), ("prelude.js", PRELUDE_JS)] {
        let path = dir.join(name);
        if std::fs::read_to_string(&path).is_ok_and(|existing| existing == contents) {
            continue;
        }
        // Written under a private name and renamed, so that a concurrent
        // process never reads a half-written file.
        let partial = dir.join(format!("{name}.{}.partial", std::process::id()));
        std::fs::write(&partial, contents)
            .and_then(|()| std::fs::rename(&partial, &path))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(dir)
}

// ---- one server process -------------------------------------------------------

#[derive(Serialize)]
struct Request<'a> {
    id: u64,
    code: &'a str,
    budget: u32,
    #[serde(rename = "maxDepth")]
    max_depth: u32,
}

#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    ready: bool,
    #[serde(default)]
    id: Option<u64>,
    #[serde(default)]
    status: String,
    #[serde(default)]
    log: Vec<String>,
    #[serde(default)]
    error: Option<String>,
}

/// The last bytes a process wrote to stderr.
type StderrTail = Arc<Mutex<VecDeque<u8>>>;

/// One `server.js` process and the threads that read its output.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout_lines: Receiver<String>,
    stderr_tail: StderrTail,
    readers: Vec<JoinHandle<()>>,
    next_id: u64,
}

impl Server {
    fn start(node: &Path, js_dir: &Path) -> Result<Server, EngineError> {
        let mut child = Command::new(node)
            .args(NODE_FLAGS)
            .arg(js_dir.join("server.js"))
            .env_remove("NODE_OPTIONS")
            .env_remove("NODE_EXTRA_CA_CERTS")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                EngineError::Failed(format!("cannot start node at {}: {e}", node.display()))
            })?;
        let stdin = child.stdin.take();
        let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
        let (sender, stdout_lines) = mpsc::channel();
        let stderr_tail: StderrTail = Arc::new(Mutex::new(VecDeque::new()));
        let mut readers = Vec::new();
        if let Some(stdout) = stdout {
            let reader = thread::Builder::new()
                .name("nodesem-node-stdout".into())
                .spawn(move || {
                    for line in BufReader::new(stdout).lines() {
                        let Ok(line) = line else { break };
                        if sender.send(line).is_err() {
                            break;
                        }
                    }
                });
            if let Ok(handle) = reader {
                readers.push(handle);
            }
        }
        if let Some(mut stderr) = stderr {
            let tail = Arc::clone(&stderr_tail);
            let reader = thread::Builder::new()
                .name("nodesem-node-stderr".into())
                .spawn(move || {
                    let mut buf = [0u8; 4096];
                    while let Ok(n) = stderr.read(&mut buf) {
                        if n == 0 {
                            break;
                        }
                        let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
                        tail.extend(&buf[..n]);
                        let excess = tail.len().saturating_sub(STDERR_TAIL_BYTES);
                        tail.drain(..excess);
                    }
                });
            if let Ok(handle) = reader {
                readers.push(handle);
            }
        }
        let mut server = Server {
            child,
            stdin,
            stdout_lines,
            stderr_tail,
            readers,
            next_id: 0,
        };
        if server.readers.len() < 2 {
            return Err(EngineError::Failed(
                "cannot start the threads that read node's output".into(),
            ));
        }
        match server.stdout_lines.recv_timeout(STARTUP_TIMEOUT) {
            Ok(line) => match serde_json::from_str::<Response>(&line) {
                Ok(response) if response.ready => Ok(server),
                _ => Err(EngineError::Failed(format!(
                    "node's server did not start as expected; it printed: {line}"
                ))),
            },
            Err(RecvTimeoutError::Timeout) => Err(EngineError::Failed(format!(
                "node's server did not start within {} s",
                STARTUP_TIMEOUT.as_secs()
            ))),
            Err(RecvTimeoutError::Disconnected) => Err(server.crashed("while starting")),
        }
    }

    /// Whether the process is still running.
    fn is_alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Runs one body; the boolean says whether the server can go on.
    fn run(
        &mut self,
        code: &str,
        config: &RunConfig,
        timeout: Duration,
    ) -> (Result<Log, EngineError>, bool) {
        let id = self.next_id;
        self.next_id += 1;
        let request = Request {
            id,
            code,
            budget: config.budget,
            max_depth: config.max_depth,
        };
        let mut line = match serde_json::to_string(&request) {
            Ok(line) => line,
            Err(e) => return (Err(EngineError::Failed(format!("bad request: {e}"))), true),
        };
        line.push('\n');
        // What stderr says from here on belongs to this scenario.
        self.stderr_tail
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        let written = match self.stdin.as_mut() {
            Some(stdin) => stdin.write_all(line.as_bytes()),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        };
        if written.is_err() {
            // The process is gone: its exit explains why.
            return (
                Err(self.crashed("before the scenario could be sent")),
                false,
            );
        }
        match self.stdout_lines.recv_timeout(timeout) {
            Ok(line) => match serde_json::from_str::<Response>(&line) {
                Ok(response) if response.id == Some(id) => match response.status.as_str() {
                    "ok" => (
                        Ok(Log {
                            lines: response.log,
                        }),
                        true,
                    ),
                    _ => {
                        let message = response
                            .error
                            .unwrap_or_else(|| format!("status {:?}", response.status));
                        (Err(EngineError::Failed(message)), true)
                    }
                },
                _ => {
                    self.kill();
                    let message = format!("unexpected answer from node's server: {line}");
                    (Err(EngineError::Failed(message)), false)
                }
            },
            Err(RecvTimeoutError::Timeout) => {
                self.kill();
                let ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
                (Err(EngineError::TimedOut(ms)), false)
            }
            Err(RecvTimeoutError::Disconnected) => {
                (Err(self.crashed("while running the scenario")), false)
            }
        }
    }

    /// The error for a process that exited: its status and the end of its
    /// stderr.
    fn crashed(&mut self, when: &str) -> EngineError {
        self.stdin = None;
        let status = match self.child.wait() {
            Ok(status) => status.to_string(),
            Err(e) => format!("unknown status ({e})"),
        };
        // The readers end at end of file, when everything is read.
        for reader in self.readers.drain(..) {
            let _ = reader.join();
        }
        let tail = {
            let tail = self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
            let bytes: Vec<u8> = tail.iter().copied().collect();
            tail_lines(&String::from_utf8_lossy(&bytes))
        };
        if tail.is_empty() {
            EngineError::Crashed(format!("node exited {when} ({status}); stderr was empty"))
        } else {
            EngineError::Crashed(format!(
                "node exited {when} ({status}); stderr ends with:\n{tail}"
            ))
        }
    }

    fn kill(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
        for reader in self.readers.drain(..) {
            let _ = reader.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The last lines of a text, trimmed.
fn tail_lines(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let start = lines.len().saturating_sub(STDERR_TAIL_LINES);
    lines[start..].join("\n")
}
