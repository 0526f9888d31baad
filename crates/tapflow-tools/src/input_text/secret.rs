//! A password field's text is never echoed: once the field is known to hide its value (it
//! showed a mask, or the dump marks it `password="true"`, as Android's does), every text of the
//! result and of the error — `text`, `requested_text`, `before_text`, `actual_text`,
//! `expected_text` and the message's quotes — is replaced by one `•` per character, so the
//! length stays readable and the value never reaches a transcript, a report or a log.
//!
//! A HarmonyOS password field carries no password attribute and shows an empty value until it
//! is typed into (see `src/run/exec/flow_level/masked.rs`): it is known as one from its first
//! mask, so a call that never observed a mask (the field vanished before any observation) has
//! nothing to tell it from a plain field.

use serde_json::Value;

use super::Output;
use super::field::is_masked;
use crate::envelope::ToolError;

/// One `•` per character of `s`.
pub fn dots(s: &str) -> String {
    "\u{2022}".repeat(s.chars().count())
}

/// Whether what `out` observed says the field hides its value.
pub fn hides(out: &Output) -> bool {
    out.masked == Some(true)
        || out.masked_length.is_some()
        || out.actual_text.as_deref().is_some_and(is_masked)
        || out.before_text.as_deref().is_some_and(is_masked)
}

/// Hides a password field's texts in the call's result and error (`requested`: the `text`
/// argument); anything else is returned as it was.
pub fn seal(
    out: &mut Output,
    outcome: Result<(), ToolError>,
    requested: &str,
) -> Result<(), ToolError> {
    let hidden = hides(out) || outcome.as_ref().is_err_and(|e| e.details["masked"] == true);
    if !hidden {
        return outcome;
    }
    out.masked = Some(true);
    let before = out.before_text.clone().unwrap_or_default();
    let plain = [requested.to_string(), out.text.clone(), before];
    hide(out);
    outcome.map_err(|mut e| {
        hide_error(&mut e, &plain.each_ref().map(String::as_str));
        e
    })
}

/// Replaces every text of a password field's result by its mask (see the module doc).
pub fn hide(out: &mut Output) {
    if !hides(out) {
        return;
    }
    out.masked = Some(true);
    out.text = dots(&out.text);
    out.requested_text = dots(&out.requested_text);
    for t in [&mut out.before_text, &mut out.actual_text]
        .into_iter()
        .flatten()
    {
        *t = dots(t);
    }
}

/// The same for an error: its own details' texts and every quoted text in its message.
/// `secrets` are the plain texts the call knew (requested and expected values, what the field
/// showed before).
pub fn hide_error(e: &mut ToolError, secrets: &[&str]) {
    if let Value::Object(d) = &mut e.details {
        for k in [
            "text",
            "requested_text",
            "expected_text",
            "before_text",
            "actual_text",
        ] {
            if let Some(Value::String(s)) = d.get_mut(k) {
                *s = dots(s);
            }
        }
        d.insert("masked".into(), Value::Bool(true));
    }
    let mut secrets: Vec<&str> = secrets.iter().copied().filter(|s| !s.is_empty()).collect();
    // Longest first, so a value inside another is not revealed by the shorter one's mask.
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    for s in secrets {
        e.message = e
            .message
            .replace(&format!("{s:?}"), &format!("{:?}", dots(s)));
    }
}

#[cfg(test)]
mod tests {
    use super::super::InputMode;
    use super::super::strategy::Strategy;
    use super::*;
    use serde_json::json;

    #[test]
    fn a_masked_field_keeps_lengths_and_loses_every_text() {
        let mut out = Output::new("hunter2", InputMode::Replace, Strategy::Direct);
        hide(&mut out);
        assert_eq!(
            out.text, "hunter2",
            "nothing says the field hides its value yet"
        );
        out.before_text = Some(String::new());
        out.actual_text = Some("•••••••".into());
        hide(&mut out);
        assert_eq!(out.masked, Some(true));
        assert_eq!(out.text, "•••••••");
        assert_eq!(out.requested_text, "•••••••");
        assert_eq!(out.before_text.as_deref(), Some(""));

        let mut e = ToolError::new(
            tapflow_core::codes::TEXT_NOT_READABLE,
            "expected \"hunter2\", last saw \"•••\"",
        )
        .with_details(json!({"expected_text": "hunter2", "requested_text": "hunter2"}));
        hide_error(&mut e, &["hunter2", ""]);
        assert!(!e.message.contains("hunter2"), "{}", e.message);
        assert!(!e.details.to_string().contains("hunter2"));
        assert_eq!(e.details["expected_text"], "•••••••");
        assert_eq!(e.details["masked"], true);
    }
}
