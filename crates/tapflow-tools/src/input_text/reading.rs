//! What a failed `input_text` call read in its field, for the flow hooks ([`Typing`]): the
//! tool knows its own error details; the runner's flow-level module decides what to do with
//! them (type again, accept a masked field of the right length, dot out a secret's parts).

use serde_json::Value;

use super::field::is_masked;
use super::lost_keys::shows_lost_keys;
use super::strategy::Strategy;
use crate::envelope::ToolError;
use crate::flow_hooks::{FieldReading, MaskedReading, Typing};

/// `input_text`'s typing hooks.
pub const TYPING: Typing = Typing {
    text: "text",
    shown: &["actual_text", "before_text"],
    reading,
    retype_args,
    masked,
};

/// The field's value when the error is about it (`TEXT_VERIFICATION_TIMEOUT`,
/// `TEXT_NOT_READABLE`) and says what was expected and seen.
fn reading(e: &ToolError) -> Option<FieldReading> {
    if e.code != tapflow_core::codes::TEXT_VERIFICATION_TIMEOUT
        && e.code != tapflow_core::codes::TEXT_NOT_READABLE
    {
        return None;
    }
    let s = |k: &str| e.details.get(k).and_then(Value::as_str);
    let expected = s("text")?;
    let seen = s("actual_text")?;
    // Only text typed key by key can lose keys on the way.
    let direct = s("input_strategy") == Some(Strategy::Direct.name());
    Some(FieldReading {
        expected: expected.to_string(),
        seen: seen.to_string(),
        lost_keys: direct && shows_lost_keys(expected, seen, s("before_text")),
        masked: e.details.get("masked").and_then(Value::as_bool) == Some(true)
            || is_masked(seen)
            || (seen.is_empty() && s("before_text").is_some_and(is_masked)),
    })
}

/// Types the whole expected value again: an `append` becomes a `replace` of it, since the
/// field already holds part of the text.
fn retype_args(args: &Value, r: &FieldReading) -> Value {
    let mut args = args.clone();
    if let Value::Object(o) = &mut args
        && o.get("mode").and_then(Value::as_str) == Some("append")
    {
        o.insert("mode".into(), "replace".into());
        o.insert("text".into(), r.expected.clone().into());
    }
    args
}

/// A field that hides its value (`TEXT_NOT_READABLE` with `masked: true`): the mask
/// characters it showed, the characters typed, and the result as observed.
fn masked(e: &ToolError) -> Option<MaskedReading> {
    let d = &e.details;
    if e.code != tapflow_core::codes::TEXT_NOT_READABLE
        || d.get("masked").and_then(Value::as_bool) != Some(true)
    {
        return None;
    }
    let count = |k: &str| d.get(k).and_then(Value::as_u64).map(|n| n as usize);
    let chars = |k: &str| d.get(k).and_then(Value::as_str).map(|s| s.chars().count());
    let shown = count("observed_length").or_else(|| chars("actual_text"))?;
    let typed = count("expected_length")
        .or_else(|| chars("expected_text"))
        .or_else(|| chars("requested_text"))?;
    let mut result = d.as_object()?.clone();
    for k in [
        "observed_length",
        "expected_length",
        "expected_text",
        "verify_timeout_ms",
    ] {
        result.remove(k);
    }
    result.insert("verified".into(), false.into());
    result.insert("masked".into(), true.into());
    result.insert("masked_length".into(), shown.into());
    result.insert("length_verified".into(), true.into());
    result.insert("stage".into(), "done".into());
    Some(MaskedReading {
        shown,
        typed,
        result: Value::Object(result),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn failed(code: tapflow_core::codes::Code, details: Value) -> ToolError {
        ToolError::new(code, "the field never showed exactly the expected value")
            .with_details(details)
    }

    fn details(strategy: &str, seen: &str) -> Value {
        json!({"input_strategy": strategy, "text": "demo", "actual_text": seen,
               "before_text": "Username", "mode": "replace"})
    }

    #[test]
    fn only_direct_text_showing_a_subsequence_lost_keys() {
        let t = tapflow_core::codes::TEXT_VERIFICATION_TIMEOUT;
        let lost = |e: &ToolError| reading(e).is_some_and(|r| r.lost_keys);
        assert!(lost(&failed(t, details("direct", "emo"))));
        assert!(lost(&failed(t, details("direct", "Username"))));
        assert!(!lost(&failed(t, details("sentinel_paste", "emo"))));
        assert!(!lost(&failed(t, details("direct", "demox"))));
        let other = tapflow_core::codes::INPUT_FOCUS_TIMEOUT;
        assert!(reading(&failed(other, details("direct", "emo"))).is_none());
        let r = reading(&failed(t, details("direct", "emo"))).unwrap();
        assert_eq!((r.expected.as_str(), r.seen.as_str()), ("demo", "emo"));
        assert!(!r.masked);
        let r = reading(&failed(t, details("direct", "•••"))).unwrap();
        assert!(
            r.lost_keys && r.masked,
            "a password field showing fewer dots"
        );
    }

    #[test]
    fn an_append_is_typed_again_as_a_replace_of_the_whole_value() {
        let r = FieldReading {
            expected: "hello demo".into(),
            seen: "hello de".into(),
            lost_keys: true,
            masked: false,
        };
        let a = retype_args(
            &json!({"element_id": "u", "mode": "append", "text": "demo"}),
            &r,
        );
        assert_eq!(
            a,
            json!({"element_id": "u", "mode": "replace", "text": "hello demo"})
        );
        let same = json!({"element_id": "u", "text": "demo"});
        assert_eq!(retype_args(&same, &r), same);
    }

    #[test]
    fn a_masked_field_reports_its_length_and_the_observed_result() {
        let e = failed(
            tapflow_core::codes::TEXT_NOT_READABLE,
            json!({"masked": true, "observed_length": 4, "expected_length": 4,
                   "verify_timeout_ms": 5, "element_handle": "h"}),
        );
        let m = masked(&e).unwrap();
        assert_eq!((m.shown, m.typed), (4, 4));
        assert_eq!(m.result["verified"], false);
        assert_eq!(m.result["masked_length"], 4);
        assert_eq!(m.result["element_handle"], "h");
        assert!(m.result.get("verify_timeout_ms").is_none());
        let unmasked = failed(
            tapflow_core::codes::TEXT_NOT_READABLE,
            json!({"masked": false, "observed_length": 4, "expected_length": 4}),
        );
        assert!(masked(&unmasked).is_none());
        let shown = failed(
            tapflow_core::codes::TEXT_NOT_READABLE,
            json!({"masked": true, "actual_text": "•••", "expected_text": "abcd"}),
        );
        let m = masked(&shown).unwrap();
        assert_eq!((m.shown, m.typed), (3, 4));
    }
}
