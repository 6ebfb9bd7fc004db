//! The registry of engines by the names the command line uses.
//!
//! `model`, `impl`, `impl+<mutant>`, `node` (the pinned Node 26.12.1, installed
//! on first use) and `node:<path>` (any Node binary; nothing is downloaded).
//! A Node engine may end with options for the binary, each after a `+`:
//! `node+--no-async-context-frame` is the pinned Node started with that
//! option (the seed's stress ran streams both ways). `node@VERSION` (`20`,
//! `22.12`, `22.12.0`) is any release from the npm registry, installed once
//! into a shared cache ([`crate::releases`]), and takes options the same way.
//! A Node engine's name may also end with `?clock=real` (before its `+`
//! options): the scenario's timers and immediates then run on libuv's real
//! loop instead of the prelude's virtual clock ([`NodeEngine::with_real_clock`]);
//! `?clock=real&scale=N` sets the real milliseconds per virtual one.
//! Engines are adapted to the one [`Engine`] trait, so every command can
//! compare any two of them.

use std::path::PathBuf;

use nodesem_lang::{Engine, EngineError, Log, RunConfig, Scenario};

use crate::node::NodeEngine;

/// A name that does not denote an engine.
#[derive(Debug, thiserror::Error)]
pub enum EngineSpecError {
    /// The name is not one of the known forms.
    #[error("unknown engine `{0}` (expected model, impl, impl+<mutant>, node, node:<path> or node@<version>, a Node engine optionally followed by +--option ...)")]
    Unknown(String),
    /// `impl+<mutant>` names no mutant.
    #[error("unknown mutant `{name}` (known: {known})")]
    UnknownMutant {
        /// The name given.
        name: String,
        /// The known names.
        known: String,
    },
    /// The Node engine could not be set up.
    #[error("cannot use `{spec}`: {reason}")]
    Node {
        /// The engine name.
        spec: String,
        /// Why.
        reason: String,
    },
}

/// An in-process engine whose panics (a failed invariant check in the model,
/// a bug in impl) become a per-scenario failure: a long run never loses its
/// other findings to one panic.
///
/// It also runs the engine on a thread of its own with a stack of
/// [`ENGINE_STACK_BYTES`]: the interpreter recurses once per nested callback
/// and block, and although the language's limits bound that depth
/// ([`nodesem_lang::limits`]), the caller's thread may be one with a small
/// stack (a test harness's, a scoped worker's). A stack overflow aborts the
/// process and cannot be caught, so it must not be possible.
pub struct Guarded<E>(pub E);

/// The stack of a [`Guarded`] engine's thread: far more than the deepest
/// scenario the limits allow needs (measured: a debug build at the
/// largest `--max-depth` uses a few MiB); untouched pages cost nothing.
pub const ENGINE_STACK_BYTES: usize = 256 << 20;

impl<E: Engine> Guarded<E> {
    fn on_engine_thread<T: Send>(&self, f: impl FnOnce(&E) -> T + Send) -> Option<T>
    where
        E: Sync,
    {
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("nodesem-engine".into())
                .stack_size(ENGINE_STACK_BYTES)
                .spawn_scoped(scope, || f(&self.0))
                .ok()
                .and_then(|handle| handle.join().ok())
        })
    }
}

fn guarded_run<E: Engine>(
    engine: &E,
    scenario: &Scenario,
    config: &RunConfig,
) -> Result<Log, EngineError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        engine.run(scenario, config)
    }))
    .unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic without a message".into());
        Err(EngineError::Crashed(format!("panicked: {message}")))
    })
}

impl<E: Engine> Engine for Guarded<E> {
    fn name(&self) -> String {
        self.0.name()
    }

    fn run(&self, scenario: &Scenario, config: &RunConfig) -> Result<Log, EngineError> {
        self.on_engine_thread(|engine| guarded_run(engine, scenario, config))
            .unwrap_or_else(|| {
                Err(EngineError::Failed(
                    "cannot start the engine's thread".into(),
                ))
            })
    }

    fn run_batch(
        &self,
        scenarios: &[Scenario],
        config: &RunConfig,
    ) -> Vec<Result<Log, EngineError>> {
        self.on_engine_thread(|engine| {
            scenarios
                .iter()
                .map(|s| guarded_run(engine, s, config))
                .collect()
        })
        .unwrap_or_else(|| {
            scenarios
                .iter()
                .map(|_| {
                    Err(EngineError::Failed(
                        "cannot start the engine's thread".into(),
                    ))
                })
                .collect()
        })
    }
}

/// The names of every mutant, for messages.
pub fn mutant_names() -> String {
    nodesem_impl::Mutant::ALL
        .iter()
        .map(|m| m.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `node...+--a+--b`: the Node engine's part and its options, when `spec`
/// names a Node engine with options (each option starts with `--`).
fn node_options(spec: &str) -> Option<(&str, Vec<String>)> {
    if !spec.starts_with("node") {
        return None;
    }
    let at = spec.find("+--")?;
    let options: Vec<String> = spec[at + 1..].split('+').map(str::to_string).collect();
    options
        .iter()
        .all(|o| o.starts_with("--") && o.len() > 2)
        .then(|| (&spec[..at], options))
}

/// `node...?clock=real[&scale=N]`: the engine's name without the query and
/// the real clock's scale, when `spec` asks for one (`Ok(None)`: it does not).
fn real_clock(spec: &str) -> Result<Option<(String, u32)>, EngineSpecError> {
    if !spec.starts_with("node") {
        return Ok(None);
    }
    let Some(at) = spec.find('?') else {
        return Ok(None);
    };
    let end = spec[at..].find("+--").map_or(spec.len(), |i| at + i);
    let mut scale = crate::node::DEFAULT_REAL_SCALE;
    let mut real = false;
    for pair in spec[at + 1..end].split('&') {
        match pair.split_once('=') {
            Some(("clock", "real")) => real = true,
            Some(("scale", n)) => {
                scale = n
                    .parse::<u32>()
                    .ok()
                    .filter(|n| (2..=1000).contains(n) && n % 2 == 0)
                    .ok_or_else(|| EngineSpecError::Node {
                        spec: spec.into(),
                        reason: format!(
                            "scale must be an even number of ms from 2 to 1000, not `{n}`"
                        ),
                    })?;
            }
            _ => {
                return Err(EngineSpecError::Node {
                    spec: spec.into(),
                    reason: format!("unknown option `{pair}` (expected clock=real or scale=N)"),
                })
            }
        }
    }
    if !real {
        return Err(EngineSpecError::Node {
            spec: spec.into(),
            reason: "the options after `?` need clock=real".into(),
        });
    }
    Ok(Some((format!("{}{}", &spec[..at], &spec[end..]), scale)))
}

/// Parses an engine name and builds the engine.
pub fn engine_by_name(spec: &str) -> Result<Box<dyn Engine>, EngineSpecError> {
    let spec = spec.trim();
    if let Some((rest, scale)) = real_clock(spec)? {
        let engine = node_engine(&rest)?;
        return Ok(Box::new(engine.with_real_clock(scale, spec.to_string())));
    }
    match spec {
        "model" => return Ok(Box::new(Guarded(nodesem_model::ModelEngine))),
        "impl" => return Ok(Box::new(Guarded(nodesem_impl::ImplEngine { mutant: None }))),
        _ => {}
    }
    if let Some(name) = spec.strip_prefix("impl+") {
        let mutant =
            name.parse::<nodesem_impl::Mutant>()
                .map_err(|_| EngineSpecError::UnknownMutant {
                    name: name.into(),
                    known: mutant_names(),
                })?;
        return Ok(Box::new(Guarded(nodesem_impl::ImplEngine {
            mutant: Some(mutant),
        })));
    }
    if spec.starts_with("node") {
        return Ok(Box::new(node_engine(spec)?));
    }
    Err(EngineSpecError::Unknown(spec.into()))
}

/// A Node engine by name (`node`, `node:PATH` or `node@VERSION`, each
/// with `+` options or without).
fn node_engine(spec: &str) -> Result<NodeEngine, EngineSpecError> {
    let (base, options) = node_options(spec).unwrap_or((spec, Vec::new()));
    let engine = if base == "node" {
        NodeEngine::pinned().map_err(|e| EngineSpecError::Node {
            spec: spec.into(),
            reason: e.to_string(),
        })?
    } else if let Some(path) = base.strip_prefix("node:") {
        node_at(spec, path)?
    } else if let Some(version) = base.strip_prefix("node@") {
        node_release(spec, version)?
    } else {
        return Err(EngineSpecError::Unknown(spec.into()));
    };
    Ok(if options.is_empty() {
        engine
    } else {
        engine.with_options(options, spec.to_string())
    })
}

/// `node:<path>`: the binary at `path`, which must be a file.
fn node_at(spec: &str, path: &str) -> Result<NodeEngine, EngineSpecError> {
    let path = PathBuf::from(path);
    if !path.is_file() {
        return Err(EngineSpecError::Node {
            spec: spec.into(),
            reason: format!("{} is not a file", path.display()),
        });
    }
    Ok(NodeEngine::at(path))
}

/// `node@VERSION`: that release from the npm registry, installed into the
/// shared cache on first use ([`crate::releases`]); named `node@X.Y.Z`
/// (the resolved release) with the options the name had.
fn node_release(spec: &str, version: &str) -> Result<NodeEngine, EngineSpecError> {
    let error = |e: crate::releases::ReleaseError| EngineSpecError::Node {
        spec: spec.into(),
        reason: e.to_string(),
    };
    let installed = crate::releases::Releases::from_env()
        .and_then(|r| r.get(version))
        .map_err(error)?;
    let options = spec.find("+--").map_or("", |at| &spec[at..]);
    let name = format!("node@{}{options}", installed.version);
    Ok(NodeEngine::at(installed.node).with_options(Vec::new(), name))
}

#[cfg(test)]
mod tests {
    use super::{node_options, real_clock};

    #[test]
    fn a_node_engine_takes_a_real_clock_before_its_options() {
        let real = |s: &str| real_clock(s).map_err(|e| e.to_string());
        assert_eq!(
            real("node?clock=real").unwrap(),
            Some(("node".to_string(), 20))
        );
        assert_eq!(
            real("node:/opt/n?clock=real&scale=40+--a").unwrap(),
            Some(("node:/opt/n+--a".to_string(), 40))
        );
        assert_eq!(real("node+--a").unwrap(), None);
        assert!(real("node?clock=virtual")
            .unwrap_err()
            .contains("unknown option"));
        assert!(real("node?clock=real&scale=3")
            .unwrap_err()
            .contains("even"));
    }

    #[test]
    fn a_node_engine_takes_options_after_plus_signs() {
        assert_eq!(
            node_options("node+--no-async-context-frame"),
            Some(("node", vec!["--no-async-context-frame".to_string()]))
        );
        assert_eq!(
            node_options("node:/opt/node+--a+--b=1"),
            Some((
                "node:/opt/node",
                vec!["--a".to_string(), "--b=1".to_string()]
            ))
        );
        // Not options: no `+--`, an option without its dashes, a mutant.
        assert_eq!(node_options("node"), None);
        assert_eq!(node_options("node+--a+b"), None);
        assert_eq!(node_options("node+--"), None);
        assert_eq!(node_options("impl+abort-twice"), None);
    }
}
