//! Any text, written into JavaScript as a line comment and as a string
//! literal by the emitter's one escaping function, is exactly one comment and
//! one literal that decode back to the text (checked by a real JavaScript
//! tokenizer): no scenario text can become code on the Node oracle.

#![no_main]

use libfuzzer_sys::fuzz_target;
use nodesem_harness::js_source::verify;

fuzz_target!(|text: &str| {
    if let Err(e) = verify(text) {
        panic!("{e}");
    }
});
