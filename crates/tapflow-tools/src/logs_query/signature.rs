//! Signatures that hold no secret in any form. An item's `signature` ends with the grouped
//! message normalised for grouping (`tapflow_device::logs::classify::normalize_message`: digits
//! become `<n>`, hex runs `<hex>`, …), so a secret in the message is stored there in a form the
//! run's masker cannot know: `LOGIN_SUCCESS user=UsrSecretAlpha9` gives
//! `…|LOGIN_SUCCESS user=UsrSecretAlpha<n>`. In a flow run (the call has the run's
//! [`Redact`]), the normalised part is derived from the **masked** message instead
//! (`…|LOGIN_SUCCESS user=******`). The rest of the signature (kind, tag, marker keyword, crash
//! name) holds text as it is, which the masker finds when the result is masked.

use tapflow_core::plan::model::MASK;
use tapflow_device::logs::LogsQueryResult;
use tapflow_device::logs::classify::normalize_message;

use crate::context::Redact;

/// Re-derives the normalised part of every signature whose message holds a secret.
pub fn redact_signatures(result: &mut LogsQueryResult, redact: &dyn Redact) {
    for item in &mut result.items {
        // The text the signature normalised: a crash's error message, else the message.
        let text = item
            .crash
            .as_ref()
            .and_then(|c| c.error_message.as_deref())
            .unwrap_or(&item.message);
        let masked = redact.redact(text);
        if masked == text {
            continue;
        }
        let normalised = normalize_message(text);
        item.signature = match item.signature.strip_suffix(normalised.as_str()) {
            Some(head) => format!("{head}{}", normalize_message(&masked)),
            // Not the shape analysis writes: keep nothing of it but the kind.
            None => format!(
                "{}|{MASK}",
                item.signature.split('|').next().unwrap_or_default()
            ),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;
    use tapflow_device::logs::{LogsQueryParams, NoDevice, QueryEnv, execute};

    struct Secrets(&'static [&'static str]);

    impl Redact for Secrets {
        fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
            let mut out = Cow::Borrowed(text);
            for s in self.0 {
                if out.contains(s) {
                    out = Cow::Owned(out.replace(s, MASK));
                }
            }
            out
        }
    }

    fn query(v: serde_json::Value) -> LogsQueryResult {
        let params = LogsQueryParams::from_value(v).unwrap();
        let now = chrono::DateTime::parse_from_rfc3339("2026-12-02T10:00:00+08:00").unwrap();
        execute(
            &params,
            &QueryEnv::new(now, std::env::temp_dir()),
            &NoDevice,
        )
        .unwrap()
    }

    /// Seen: the marker's signature stored `UsrSecretAlpha<n>` in `result.json`.
    #[test]
    fn a_secret_is_masked_before_its_digits_are_normalised() {
        let mut r = query(serde_json::json!({
            "mode": "markers",
            "marker_keywords": ["LOGIN_SUCCESS"],
            "logs": ["12-02 09:59:58.100  1200  1200 I A0d0d0/DemoApp: LOGIN_SUCCESS user=UsrSecretAlpha9 n=17"],
        }));
        assert!(r.items[0].signature.contains("UsrSecretAlpha<n>"));
        redact_signatures(&mut r, &Secrets(&["UsrSecretAlpha9"]));
        let sig = &r.items[0].signature;
        assert!(sig.ends_with("|LOGIN_SUCCESS user=****** n=<n>"), "{sig}");
        assert!(!sig.contains("UsrSecretAlpha"), "{sig}");
        // A message without a secret keeps its signature.
        let mut plain = query(serde_json::json!({
            "mode": "errors",
            "logs": ["12-02 09:59:58.100  1200  1200 E A0d0d0/DemoApp: request failed code 503"],
        }));
        let before = plain.items[0].signature.clone();
        redact_signatures(&mut plain, &Secrets(&["UsrSecretAlpha9"]));
        assert_eq!(plain.items[0].signature, before);
    }
}
