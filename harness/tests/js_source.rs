//! The one escaping function between scenario text and JavaScript source:
//! for arbitrary text (any Unicode, line terminators and invisible
//! characters weighted in), the emitted comment and literal are one comment
//! and one literal, decoding back to the text, as a real JavaScript
//! tokenizer reads them. The `js_escape` fuzz target checks the same
//! property on libFuzzer's inputs; the reliability tests run the known
//! vectors on real Node.

use nodesem_harness::js_source::{line_comment, string_literal, verify};
use proptest::prelude::*;

/// Text biased towards what breaks JavaScript source: line terminators,
/// quotes, backslashes, comment closers, controls and format characters.
fn hostile_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("\u{2028}".to_string()),
        Just("\u{2029}".to_string()),
        Just("\n".to_string()),
        Just("\r".to_string()),
        Just("\"".to_string()),
        Just("'".to_string()),
        Just("\\".to_string()),
        Just("*/".to_string()),
        Just("`${".to_string()),
        Just("\u{202e}".to_string()),
        Just("\u{feff}".to_string()),
        Just("\u{0}".to_string()),
        Just("</script>".to_string()),
        "[a-z ]{0,4}",
        any::<char>().prop_map(String::from),
    ];
    proptest::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn hostile_text_stays_a_comment_and_a_literal(text in hostile_text()) {
        prop_assert!(verify(&text).is_ok(), "{:?}", verify(&text));
    }

    #[test]
    fn any_text_stays_a_comment_and_a_literal(text in any::<String>()) {
        prop_assert!(verify(&text).is_ok(), "{:?}", verify(&text));
    }

    #[test]
    fn escaped_text_has_no_line_terminator(text in hostile_text()) {
        for source in [line_comment(&text), string_literal(&text)] {
            prop_assert!(!source.contains(['\n', '\r', '\u{2028}', '\u{2029}']), "{source:?}");
        }
    }
}
