//! Arbitrary text into the parser: it must never panic, and whatever it
//! accepts must survive printing and parsing again.

#![no_main]

use libfuzzer_sys::fuzz_target;
use nodesem_lang::{parse, print};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(scenario) = parse("fuzz.scn", text) {
        let printed = print(&scenario);
        let again = parse("printed.scn", &printed).unwrap_or_else(|e| {
            panic!("accepted {text:?} but not its printed form {printed:?}: {e}")
        });
        assert_eq!(again, scenario, "accepted {text:?}, printed as {printed:?}");
    }
});
