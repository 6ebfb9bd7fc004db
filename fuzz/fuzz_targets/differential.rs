//! A generated scenario logs the same on the reference model and on the
//! optimized implementation; a difference is a bug in one of them, and the
//! panic message carries the scenario and the diff.

#![no_main]

use libfuzzer_sys::fuzz_target;
use nodesem_harness::oracle::model_vs_impl;
use nodesem_lang::gen::GeneratedScenario;

fuzz_target!(|generated: GeneratedScenario| {
    if let Some(report) = model_vs_impl(&generated.0, None) {
        panic!("{report}");
    }
});
