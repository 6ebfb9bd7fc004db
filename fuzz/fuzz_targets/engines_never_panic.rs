//! No generated scenario makes the model or impl panic or overflow, under
//! any small run configuration (few callbacks, shallow nesting, little work,
//! a short log), so every way a scenario can be stopped is exercised.

#![no_main]

use libfuzzer_sys::fuzz_target;
use nodesem_harness::oracle::{run_both, small_config};
use nodesem_lang::gen::GeneratedScenario;

fuzz_target!(|input: ([u8; 4], GeneratedScenario)| {
    run_both(&input.1 .0, &small_config(input.0));
});
