//! A caller's own `approval` argument: its schema and its validation. It counts only in
//! trusted-caller mode (the operator's choice, see [`crate::mcp::approval`], which decides who
//! approves); then it is validated here and echoed in the envelope's `meta`.
//!
//! Codes: `APPROVAL_REQUIRED` (missing, or `approved: false`), `APPROVAL_EXPIRED`
//! (`expires_at` has passed), `INVALID_APPROVAL` (not the documented shape). All are tool errors
//! (`isError: true`), so the agent reads them and can ask its human.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

use tapflow_tools::ToolError;

/// The argument name (stripped before the engine sees the arguments).
pub const APPROVAL: &str = "approval";

/// The JSON Schema of the `approval` argument.
pub fn approval_schema() -> Value {
    json!({
        "type": "object",
        "description": "A human's approval of this call, honoured only when the server's operator enabled trusted-caller mode (--trust-caller-approval; refused otherwise: the server asks the person itself through elicitation, or the operator approves tools). Echoed in structuredContent.meta.approval.",
        "properties": {
            "approved": { "type": "boolean", "description": "true when a human approved this call." },
            "approved_by": { "type": "string", "minLength": 1, "description": "Who approved it (name or id)." },
            "reason": { "type": "string", "minLength": 1, "description": "Why the call is needed." },
            "expires_at": { "type": "string", "format": "date-time", "description": "RFC 3339 time after which the approval is void." }
        },
        "required": ["approved", "approved_by", "reason"],
        "additionalProperties": false
    })
}

/// Checks the approval of one call. `Ok(Some(echo))` when an approval was given and is valid,
/// `Ok(None)` when none was given and none is needed.
pub fn check_approval(
    tool: &str,
    needs_approval: bool,
    require_approval: bool,
    given: Option<Value>,
    now: DateTime<Utc>,
) -> Result<Option<Value>, ToolError> {
    let needed = needs_approval && require_approval;
    let Some(given) = given else {
        if needed {
            return Err(ToolError::new(
                tapflow_core::codes::APPROVAL_REQUIRED,
                format!(
                    "`{tool}` needs a human's approval on this server: pass approval {{approved: true, approved_by, reason, expires_at?}}"
                ),
            )
            .with_details(json!({ "param": APPROVAL })));
        }
        return Ok(None);
    };
    let obj = given.as_object().ok_or_else(|| {
        invalid("approval must be an object {approved, approved_by, reason, expires_at?}")
    })?;
    if let Some(k) = obj
        .keys()
        .find(|k| !["approved", "approved_by", "reason", "expires_at"].contains(&k.as_str()))
    {
        return Err(invalid(&format!(
            "approval has an unknown key `{k}` (known: approved, approved_by, reason, expires_at)"
        )));
    }
    let approved = obj
        .get("approved")
        .and_then(Value::as_bool)
        .ok_or_else(|| invalid("approval.approved must be true or false"))?;
    let text = |key: &str| -> Result<String, ToolError> {
        obj.get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .ok_or_else(|| invalid(&format!("approval.{key} must be a non-empty string")))
    };
    let approved_by = text("approved_by")?;
    let reason = text("reason")?;
    let expires_at = match obj.get("expires_at") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(DateTime::parse_from_rfc3339(s).map_err(|e| {
            invalid(&format!(
                "approval.expires_at `{s}` is not an RFC 3339 time ({e}), e.g. 2026-12-31T23:59:00Z"
            ))
        })?),
        Some(_) => return Err(invalid("approval.expires_at must be an RFC 3339 string")),
    };
    if needed && !approved {
        return Err(ToolError::new(
            tapflow_core::codes::APPROVAL_REQUIRED,
            format!("`{tool}` was not approved (approval.approved is false)"),
        )
        .with_details(json!({ "param": APPROVAL, "approved_by": approved_by })));
    }
    if let Some(t) = expires_at
        && t.with_timezone(&Utc) <= now
    {
        return Err(ToolError::new(
            tapflow_core::codes::APPROVAL_EXPIRED,
            format!("the approval of `{tool}` expired at {}", t.to_rfc3339()),
        )
        .with_details(json!({ "param": APPROVAL, "expires_at": t.to_rfc3339() })));
    }
    let mut echo = Map::new();
    echo.insert("approved".into(), Value::Bool(approved));
    echo.insert("approved_by".into(), Value::String(approved_by));
    echo.insert("reason".into(), Value::String(reason));
    echo.insert(
        "expires_at".into(),
        expires_at.map_or(Value::Null, |t| Value::String(t.to_rfc3339())),
    );
    echo.insert("required".into(), Value::Bool(needed));
    Ok(Some(Value::Object(echo)))
}

fn invalid(msg: &str) -> ToolError {
    ToolError::new(tapflow_core::codes::INVALID_APPROVAL, msg)
        .with_details(json!({ "param": APPROVAL }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        "2026-12-02T10:00:00Z".parse().unwrap()
    }

    fn ok() -> Value {
        json!({"approved": true, "approved_by": "qa-lead", "reason": "reinstall build 42"})
    }

    #[test]
    fn required_only_when_the_policy_and_the_server_say_so() {
        let code = |r: Result<Option<Value>, ToolError>| r.unwrap_err().code;
        assert_eq!(
            code(check_approval("install_app", true, true, None, now())),
            "APPROVAL_REQUIRED"
        );
        assert_eq!(
            check_approval("install_app", true, false, None, now()),
            Ok(None)
        );
        assert_eq!(check_approval("click", false, true, None, now()), Ok(None));
        let echo = check_approval("install_app", true, true, Some(ok()), now())
            .unwrap()
            .unwrap();
        assert_eq!(echo["approved_by"], "qa-lead");
        assert_eq!(echo["required"], true);
        assert_eq!(echo["expires_at"], Value::Null);
    }

    #[test]
    fn refusals_expiry_and_malformed_approvals() {
        let code = |v: Value| {
            check_approval("uninstall_app", true, true, Some(v), now())
                .unwrap_err()
                .code
        };
        let mut denied = ok();
        denied["approved"] = json!(false);
        assert_eq!(code(denied), "APPROVAL_REQUIRED");
        let mut expired = ok();
        expired["expires_at"] = json!("2026-12-02T09:59:59Z");
        assert_eq!(code(expired), "APPROVAL_EXPIRED");
        let mut later = ok();
        later["expires_at"] = json!("2026-12-02T11:00:00+01:00");
        assert_eq!(code(later), "APPROVAL_EXPIRED", "11:00+01:00 is 10:00Z");
        let mut future = ok();
        future["expires_at"] = json!("2026-12-03T00:00:00Z");
        assert!(check_approval("uninstall_app", true, true, Some(future), now()).is_ok());
        assert_eq!(code(json!("yes")), "INVALID_APPROVAL");
        assert_eq!(
            code(json!({"approved": true, "reason": "x"})),
            "INVALID_APPROVAL"
        );
        assert_eq!(
            code(json!({"approved": true, "approved_by": " ", "reason": "x"})),
            "INVALID_APPROVAL"
        );
        let mut extra = ok();
        extra["by"] = json!("me");
        assert_eq!(code(extra), "INVALID_APPROVAL");
        let mut bad_time = ok();
        bad_time["expires_at"] = json!("tomorrow");
        assert_eq!(code(bad_time), "INVALID_APPROVAL");
    }
}
