//! # nodesem-harness: the `nodesem` command's library
//!
//! Everything that is not an engine: turning scenarios into JavaScript
//! ([`emit`]), running them on real Node ([`node`]), the registry of engines
//! by name, the runner, the differ and the reports. Engines know nothing of
//! this crate; it adapts each of them to the [`nodesem_lang::Engine`] trait.

pub mod bisect;
pub mod check;
pub mod deviations;
pub mod emit;
pub mod engines;
pub mod fuzz;
pub mod gen_stats;
pub mod js_source;
pub mod mutants;
pub mod native;
pub mod node;
pub mod oracle;
pub mod plain;
pub mod realclock;
pub mod releases;
pub mod shrink;
pub mod signature;
