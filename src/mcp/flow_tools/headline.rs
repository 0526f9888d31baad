//! The flow tools' outcomes in words (the first line of their MCP text block): a model that
//! reads only the text learns whether a flow is valid and where it is not, and whether a run
//! passed and, if not, which step failed with which code and where its evidence is.

use serde_json::Value;

/// Diagnostics listed in the line (the JSON after it has them all).
const FIRST: u64 = 3;

fn n(v: &Value, k: &str) -> u64 {
    v.get(k).and_then(Value::as_u64).unwrap_or(0)
}

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

fn plural(count: u64, one: &str) -> String {
    if count == 1 {
        format!("1 {one}")
    } else {
        format!("{count} {one}s")
    }
}

/// `validate_flow`, `plan_flow`: `valid` (with warnings), or `invalid: N errors: file:L:C code:
/// message; …`.
pub fn diagnostics(r: &Value) -> Option<String> {
    let (errors, warnings) = (n(r, "errors"), n(r, "warnings"));
    if r.get("valid").and_then(Value::as_bool)? {
        return Some(match warnings {
            0 => "valid".into(),
            w => format!("valid, {}", plural(w, "warning")),
        });
    }
    let first: Vec<String> = r
        .get("diagnostics")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|d| s(d, "severity") == "error")
        .take(FIRST as usize)
        .map(|d| {
            format!(
                "{}:{}:{} {}: {}",
                s(d, "file"),
                n(d, "line"),
                n(d, "column"),
                s(d, "code"),
                s(d, "message")
            )
        })
        .collect();
    let more = if errors > FIRST { "; …" } else { "" };
    Some(format!(
        "invalid: {}: {}{more}",
        plural(errors, "error"),
        first.join("; ")
    ))
}

/// `run_flow`, `get_run`: `passed: N flows, M steps`, or `FAILED at step …` with its code,
/// message, location and evidence paths (or the run's status when no step failed).
pub fn run(r: &Value) -> Option<String> {
    let totals = r.get("totals").unwrap_or(&Value::Null);
    let count = |k: &str| n(totals, k);
    if r.get("passed").and_then(Value::as_bool)? {
        return Some(format!(
            "passed: {}, {} ({})",
            plural(count("flows"), "flow"),
            plural(count("steps"), "step"),
            s(r, "run_id")
        ));
    }
    let status = s(r, "status").to_uppercase();
    let Some(failing) = r.get("failing_step").filter(|f| !f.is_null()) else {
        return Some(format!("{status}: no step failed ({})", s(r, "run_id")));
    };
    let step = &failing["step"];
    let title = match s(step, "title") {
        "" => s(step, "id"),
        t => t,
    };
    let error = &step["error"];
    let at = &step["location"];
    let evidence: Vec<&str> = step
        .get("evidence")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|e| e.get("path").and_then(Value::as_str))
        .collect();
    let mut line = format!(
        "{status} at step `{title}` of {} ({}:{}:{}, {}): {}",
        s(failing, "flow"),
        s(at, "file"),
        n(at, "line"),
        n(at, "column"),
        s(error, "code"),
        s(error, "message"),
    );
    if !evidence.is_empty() {
        line.push_str(&format!("; evidence: {}", evidence.join(", ")));
    }
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn diagnostics_say_valid_or_where_the_first_errors_are() {
        assert_eq!(
            diagnostics(&json!({"valid": true, "errors": 0, "warnings": 2})).unwrap(),
            "valid, 2 warnings"
        );
        let d = |l: u64| json!({"severity": "error", "code": "unknown-step", "message": "`clik`", "file": "f.yaml", "line": l, "column": 5});
        let r = json!({"valid": false, "errors": 4, "warnings": 0,
                       "diagnostics": [d(1), {"severity": "warning", "code": "w"}, d(2), d(3), d(4)]});
        assert_eq!(
            diagnostics(&r).unwrap(),
            "invalid: 4 errors: f.yaml:1:5 unknown-step: `clik`; f.yaml:2:5 unknown-step: `clik`; f.yaml:3:5 unknown-step: `clik`; …"
        );
    }

    #[test]
    fn a_failed_run_names_its_step_code_and_evidence() {
        let r = json!({"run_id": "r1", "status": "failed", "passed": false,
            "failing_step": {"flow": "login", "step": {"id": "3", "title": "click Login",
                "location": {"file": "login.yaml", "line": 7, "column": 5},
                "error": {"code": "ELEMENT_NOT_FOUND", "message": "no element"},
                "evidence": [{"path": "artifacts/a.png"}, {"path": "artifacts/a.json"}]}}});
        assert_eq!(
            run(&r).unwrap(),
            "FAILED at step `click Login` of login (login.yaml:7:5, ELEMENT_NOT_FOUND): no element; evidence: artifacts/a.png, artifacts/a.json"
        );
        let ok = json!({"run_id": "r2", "passed": true,
            "totals": {"flows": 1, "passed": 1, "steps": 5}});
        assert_eq!(run(&ok).unwrap(), "passed: 1 flow, 5 steps (r2)");
    }
}
