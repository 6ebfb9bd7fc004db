//! A generated scenario, printed and parsed again, is the same scenario:
//! `parse(print(s)) == s`, the language's round-trip promise. Since the
//! parser enforces the static limits of lang/src/limits.rs, this also checks
//! that the generator stays within them.

#![no_main]

use libfuzzer_sys::fuzz_target;
use nodesem_lang::gen::GeneratedScenario;
use nodesem_lang::{parse, print};

fuzz_target!(|generated: GeneratedScenario| {
    let scenario = generated.0;
    let printed = print(&scenario);
    match parse("generated.scn", &printed) {
        Ok(parsed) => assert_eq!(parsed, scenario, "printed as:\n{printed}"),
        Err(e) => panic!("the generator made an invalid scenario: {e}\n{printed}"),
    }
});
