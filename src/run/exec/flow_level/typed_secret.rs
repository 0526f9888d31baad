//! What a field showed while a secret was typed into it is part of the secret: the value left
//! after lost keys (`actual_text`), a value one try left for the next (`before_text`), the
//! values of earlier tries (`retyped`). The masker knows whole secrets only, so for an
//! typing step whose text carries a secret these values are replaced by as many `•` as they
//! have characters, in the result, the error's details and its message (docs/security.md).

use serde_json::Value;

use tapflow_tools::flow_hooks::Typing;

use crate::run::mask::Masker;
use crate::run::worker::CallOutcome;

fn dots(s: &str) -> String {
    "•".repeat(s.chars().count())
}

/// Redacts what the field showed when `args` (as sent) typed a secret (see the module doc).
pub(super) fn redact(masker: &Masker, typing: &Typing, args: &Value, outcome: &mut CallOutcome) {
    let Some(text) = args.get(typing.text).and_then(Value::as_str) else {
        return;
    };
    if masker.text(text) == text {
        return;
    }
    let CallOutcome::Done(env) = outcome else {
        return;
    };
    let mut shown: Vec<String> = Vec::new();
    let payload = env.structured.payload_mut();
    for k in typing.shown {
        if let Some(v) = payload.get_mut(k)
            && let Some(s) = v.as_str()
        {
            shown.push(s.to_string());
            *v = Value::String(dots(s));
        }
    }
    if let Some(Value::Array(tries)) = payload.get_mut("retyped") {
        for t in tries.iter_mut() {
            if let Some(s) = t.as_str() {
                shown.push(s.to_string());
                *t = Value::String(dots(s));
            }
        }
    }
    if let Some(e) = env.structured.error.as_mut() {
        // Longest first, so a value inside another is not revealed by the shorter one's mask.
        shown.sort_by_key(|s| std::cmp::Reverse(s.len()));
        for s in shown.iter().filter(|s| !s.is_empty()) {
            e.message = e
                .message
                .replace(&format!("{s:?}"), &format!("{:?}", dots(s)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tapflow_tools::envelope::{Envelope, ToolError};

    const TYPING: Typing = Typing {
        text: "words",
        shown: &["actual_text", "before_text"],
        reading: |_| None,
        retype_args: |a, _| a.clone(),
        masked: |_| None,
    };

    #[test]
    fn parts_of_a_typed_secret_are_dotted_out() {
        let masker = Masker::new(["tok-abcdef"]);
        let details = json!({"actual_text": "tk-abef", "before_text": "to-acdf",
                             "retyped": ["tok-bcef", "tk-abef"], "mode": "replace"});
        let err = ToolError::new(
            tapflow_core::codes::INPUT_KEYS_LOST,
            "showed \"tok-bcef\", \"tk-abef\"; last saw \"tk-abef\"",
        )
        .with_details(details);
        let mut o = CallOutcome::Done(Box::new(Envelope::new("t", Err(err), 1)));
        redact(&masker, &TYPING, &json!({"words": "tok-abcdef"}), &mut o);
        let CallOutcome::Done(env) = &o else { panic!() };
        let e = env.structured.error.as_ref().unwrap();
        assert_eq!(e.details["actual_text"], "•••••••");
        assert_eq!(e.details["before_text"], "•••••••");
        assert_eq!(e.details["retyped"], json!(["••••••••", "•••••••"]));
        assert_eq!(e.details["mode"], "replace");
        assert!(
            !e.message.contains("tk-") && !e.message.contains("tok-"),
            "{}",
            e.message
        );

        // Text without a secret keeps what the field showed.
        let err = ToolError::new(tapflow_core::codes::INTERNAL_ERROR, "m")
            .with_details(json!({"actual_text": "de"}));
        let mut o = CallOutcome::Done(Box::new(Envelope::new("t", Err(err), 1)));
        redact(&masker, &TYPING, &json!({"words": "demo"}), &mut o);
        let CallOutcome::Done(env) = &o else { panic!() };
        assert_eq!(
            env.structured.error.as_ref().unwrap().details["actual_text"],
            "de"
        );
    }
}
