//! Password fields in flows (a flow-level behaviour; a bare `input_text` call keeps the
//! reference's `TEXT_NOT_READABLE`).
//!
//! A password field never shows its value: a HarmonyOS dump carries it as a `TextInput` whose
//! `text` is empty until typed into (the HapTest login demo in the fixtures: `hint: 密码`,
//! `text: ""`, no password attribute), and the simulator, like the ArkUI password field,
//! shows one `•` per character. What can be verified is the masked length: when the field
//! shows exactly as many mask characters as were typed, the step passes with `verified:
//! false` (nothing was read back) and `masked_length` / `length_verified: true`; so
//! `expect: {verified: true}` still fails, honestly. A different length (dropped or extra
//! characters) stays a failure.

use serde_json::Value;

use crate::run::worker::CallOutcome;
use tapflow_tools::envelope::Envelope;

/// The count of mask characters the field showed, from the error's details.
fn masked_length(details: &Value) -> Option<usize> {
    if let Some(n) = details.get("observed_length").and_then(Value::as_u64) {
        return Some(n as usize);
    }
    details
        .get("actual_text")
        .and_then(Value::as_str)
        .map(|s| s.chars().count())
}

fn typed_length(details: &Value) -> Option<usize> {
    if let Some(n) = details.get("expected_length").and_then(Value::as_u64) {
        return Some(n as usize);
    }
    details
        .get("expected_text")
        .or_else(|| details.get("requested_text"))
        .and_then(Value::as_str)
        .map(|s| s.chars().count())
}

/// An `input_text` that typed into a password field whose masked length matches: a passing
/// outcome with `verified: false`. Anything else is returned as it was.
pub(super) fn accept_masked(tool: &str, outcome: CallOutcome) -> CallOutcome {
    let CallOutcome::Done(env) = &outcome else {
        return outcome;
    };
    // Only `input_text` answers TEXT_NOT_READABLE.
    if env.ok() {
        return outcome;
    }
    let Some(e) = &env.structured.error else {
        return outcome;
    };
    if e.code != tapflow_core::codes::TEXT_NOT_READABLE
        || e.details.get("masked").and_then(Value::as_bool) != Some(true)
    {
        return outcome;
    }
    let (Some(shown), Some(typed)) = (masked_length(&e.details), typed_length(&e.details)) else {
        return outcome;
    };
    if shown != typed {
        return outcome;
    }
    let mut result = match &e.details {
        Value::Object(m) => m.clone(),
        _ => return outcome,
    };
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
    let duration = env.structured.meta.duration_ms;
    CallOutcome::Done(Box::new(Envelope::new(
        tool,
        Ok(Value::Object(result)),
        duration,
    )))
}
