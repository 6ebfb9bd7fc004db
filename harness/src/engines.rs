//! The registry of engines by the names the command line uses.
//!
//! `model`, `impl`, `impl+<mutant>`, `node` (the pinned Node 26.12.1, installed
//! on first use) and `node:<path>` (any Node binary; nothing is downloaded).
//! Engines are adapted to the one [`Engine`] trait, so every command can
//! compare any two of them.

use std::path::PathBuf;

use nodesem_lang::Engine;

use crate::node::NodeEngine;

/// A name that does not denote an engine.
#[derive(Debug, thiserror::Error)]
pub enum EngineSpecError {
    /// The name is not one of the known forms.
    #[error("unknown engine `{0}` (expected model, impl, impl+<mutant>, node or node:<path>)")]
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

/// The names of every mutant, for messages.
pub fn mutant_names() -> String {
    nodesem_impl::Mutant::ALL.iter().map(|m| m.name()).collect::<Vec<_>>().join(", ")
}

/// Parses an engine name and builds the engine.
pub fn engine_by_name(spec: &str) -> Result<Box<dyn Engine>, EngineSpecError> {
    let spec = spec.trim();
    match spec {
        "model" => return Ok(Box::new(nodesem_model::ModelEngine)),
        "impl" => return Ok(Box::new(nodesem_impl::ImplEngine { mutant: None })),
        "node" => {
            let engine =
                NodeEngine::pinned().map_err(|e| EngineSpecError::Node { spec: spec.into(), reason: e.to_string() })?;
            return Ok(Box::new(engine));
        }
        _ => {}
    }
    if let Some(name) = spec.strip_prefix("impl+") {
        let mutant = name
            .parse::<nodesem_impl::Mutant>()
            .map_err(|_| EngineSpecError::UnknownMutant { name: name.into(), known: mutant_names() })?;
        return Ok(Box::new(nodesem_impl::ImplEngine { mutant: Some(mutant) }));
    }
    if let Some(path) = spec.strip_prefix("node:") {
        let path = PathBuf::from(path);
        if !path.is_file() {
            return Err(EngineSpecError::Node { spec: spec.into(), reason: format!("{} is not a file", path.display()) });
        }
        return Ok(Box::new(NodeEngine::at(path)));
    }
    Err(EngineSpecError::Unknown(spec.into()))
}
