//! The text block of a tool result, for hosts that hand a model only `content` (openai-agents'
//! default, many chat hosts): one line stating the outcome in words, then the result at the
//! call's `response_level` (or the error), in compact JSON. The line keeps the reference's
//! prefix, `<tool>: ok` or `<tool>: error CODE`, so scripts that read it still do. The MCP
//! specification asks a tool that returns structured content to return it serialised in a text
//! block as well; `structuredContent` itself is unchanged.
//!
//! The words never claim more than the result says: a call whose result says `verified: false`
//! reads "dispatched, not verified"; a flow run that failed reads "FAILED at step …" though the
//! call itself succeeded (`isError: false`).

use serde_json::{Value, json};

/// Longest one-line message or headline part kept (a model reads the JSON for the rest).
const LINE_LIMIT: usize = 300;

/// The text of a result: the outcome line, then the JSON.
pub fn render(tool: &str, structured: &Value, headline: fn(&Value) -> Option<String>) -> String {
    let ok = structured.get("ok").and_then(Value::as_bool) == Some(true);
    if ok {
        let result = structured.get("result").unwrap_or(&Value::Null);
        let words = headline(result).or_else(|| generic(result));
        let line = match words {
            Some(w) => format!("{tool}: ok: {}", one_line(&w)),
            None => format!("{tool}: ok"),
        };
        format!("{line}\n{}", compact(result))
    } else {
        let error = structured.get("error").unwrap_or(&Value::Null);
        let code = error.get("code").and_then(Value::as_str).unwrap_or("");
        let message = error.get("message").and_then(Value::as_str).unwrap_or("");
        format!(
            "{tool}: error {code}: {}\n{}",
            one_line(message),
            compact(&json!({ "error": error }))
        )
    }
}

/// What any result says about itself: whether its effect was verified.
fn generic(result: &Value) -> Option<String> {
    if result.get("length_verified").and_then(Value::as_bool) == Some(true) {
        // A password field: its mask was checked, its value cannot be read back.
        return Some("length verified (a password field: its text cannot be read back)".into());
    }
    match result.get("verified").and_then(Value::as_bool) {
        Some(true) => Some("verified".into()),
        Some(false) => Some("dispatched, not verified".into()),
        None => None,
    }
}

/// `s` on one line (line breaks as ` / `, a device's text cannot start a line of its own),
/// clipped.
pub fn one_line(s: &str) -> String {
    let joined = s
        .split(['\n', '\r'])
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" / ");
    match joined.char_indices().nth(LINE_LIMIT) {
        Some((i, _)) => format!("{}…", &joined[..i]),
        None => joined,
    }
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: &Value) -> Option<String> {
        None
    }

    fn count(r: &Value) -> Option<String> {
        Some(format!("{} found", r["count"]))
    }

    #[test]
    fn ok_results_state_the_outcome_then_carry_the_result() {
        let s = json!({"ok": true, "result": {"count": 2, "elements": [{"element_handle": "h"}]}});
        let t = render("find_elements", &s, count);
        let (line, rest) = t.split_once('\n').unwrap();
        assert_eq!(line, "find_elements: ok: 2 found");
        assert_eq!(serde_json::from_str::<Value>(rest).unwrap(), s["result"]);

        let s = json!({"ok": true, "result": {"verified": false}});
        assert!(render("click", &s, none).starts_with("click: ok: dispatched, not verified\n"));
        let s = json!({"ok": true, "result": {"verified": false, "length_verified": true}});
        assert!(render("input_text", &s, none).starts_with("input_text: ok: length verified ("));
        let s = json!({"ok": true, "result": {"x": 1}});
        assert!(render("swipe", &s, none).starts_with("swipe: ok\n{"));
    }

    #[test]
    fn errors_keep_the_reference_prefix_and_stay_on_one_line() {
        let s = json!({"ok": false, "result": null,
                       "error": {"code": "ELEMENT_NOT_FOUND", "message": "no `Login`\n::warning::x", "details": {}}});
        let t = render("click", &s, none);
        let (line, rest) = t.split_once('\n').unwrap();
        assert_eq!(
            line,
            "click: error ELEMENT_NOT_FOUND: no `Login` / ::warning::x"
        );
        assert_eq!(
            serde_json::from_str::<Value>(rest).unwrap()["error"]["code"],
            "ELEMENT_NOT_FOUND"
        );
        assert_eq!(t.lines().count(), 2, "{t}");
        let long = "x".repeat(1000);
        assert_eq!(one_line(&long).chars().count(), LINE_LIMIT + 1);
    }
}
