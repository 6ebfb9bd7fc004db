//! What the harness's integration tests share: the repository root and the
//! `nodesem` binary run from it, as a user runs it.

use std::process::{Command, Output};

pub use nodesem_conformance::root;

/// Runs `nodesem ARGS` in the repository root and waits for it.
pub fn nodesem(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nodesem"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the nodesem binary runs")
}
