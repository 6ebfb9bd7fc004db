//! Arbitrary bytes into the parser: it must never panic nor overflow its
//! stack, and whatever it accepts must survive printing and parsing again.
//!
//! A dictionary of the language (fuzz/dict/scenario.dict) and seeds past
//! each static limit (fuzz/corpus-seeds/parse_text) take it deep into the
//! grammar and across the limits of lang/src/limits.rs. From the root:
//!
//!   cargo fuzz run -s none parse_text -- -dict=fuzz/dict/scenario.dict
//!   cargo fuzz run -s none parse_text fuzz/corpus/parse_text fuzz/corpus-seeds/parse_text -- -dict=fuzz/dict/scenario.dict
//!
//! (New inputs go to the first corpus folder. Add -max_len=1100000 to
//! reach the size limit, at the cost of speed.)

#![no_main]

use libfuzzer_sys::fuzz_target;
use nodesem_lang::{parse, parse_bytes, print};

fuzz_target!(|data: &[u8]| {
    if let Ok(scenario) = parse_bytes("fuzz.scn", data) {
        let (text, printed) = (String::from_utf8_lossy(data), print(&scenario));
        let again = parse("printed.scn", &printed).unwrap_or_else(|e| {
            panic!("accepted {text:?} but not its printed form {printed:?}: {e}")
        });
        assert_eq!(again, scenario, "accepted {text:?}, printed as {printed:?}");
    }
});
