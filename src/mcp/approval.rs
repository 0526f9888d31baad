//! Who approves a call that needs approval, and how the answer is recorded (`meta.approval`).
//!
//! In order:
//! 1. a caller's own `approval` argument counts only in trusted-caller mode (the operator's
//!    `--trust-caller-approval` / `[mcp] approval = "caller"`, for CI); otherwise it is refused
//!    with `APPROVAL_NOT_TRUSTED`, whatever it says;
//! 2. tools the operator approved in advance (`--approve-tools`, `[mcp] approve_tools`) need
//!    nothing more;
//! 3. anything left is asked of the person through `elicitation/create` when the client declared
//!    elicitation and the session can carry a server-to-client request (the handshake era; the
//!    2026-07-28 era forbids them): one question per call — for `run_flow`, one for the whole
//!    flow, listing its steps that need approval. Accept (with `approve` ticked) runs the call;
//!    decline → `APPROVAL_DECLINED`, dismiss → `APPROVAL_CANCELLED`;
//! 4. otherwise → `APPROVAL_REQUIRED`, saying how the operator can approve.

use std::time::Duration;

use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema, ProtocolVersion};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value, json};

use crate::mcp::call::Core;
use crate::mcp::flow_gate::{StepRef, tools_of};
use crate::mcp::policy;
use tapflow_tools::ToolError;

/// How approval is given on a server (quoted by every refusal).
pub const HOW: &str = "A person approves through a client that supports MCP elicitation (the server asks them); or the operator approves the tools in advance (tapflow mcp --approve-tools TOOLS, or [mcp] approve_tools in tapflow.toml), or lets callers carry their own approval (--trust-caller-approval, or [mcp] approval = \"caller\").";

/// How long a person has to answer an elicitation.
const ANSWER_WITHIN: Duration = Duration::from_secs(600);

/// Decides the approval of one call. `needing`: the steps that need approval (a step tool's own
/// call is one step named after it); empty when none does. `Ok(Some(record))` goes into
/// `meta.approval` (and a run's `result.json`).
pub async fn decide(
    core: &Core,
    tool: &str,
    needing: &[StepRef],
    given: Option<Value>,
    rctx: &RequestContext<RoleServer>,
) -> Result<Option<Value>, ToolError> {
    let tools: Vec<String> = tools_of(needing).into_iter().collect();
    if let Some(given) = given {
        if !core.options.trust_caller_approval {
            return Err(ToolError::new(
                tapflow_core::codes::APPROVAL_NOT_TRUSTED,
                format!(
                    "`{tool}` carried its own `approval`, but this server does not accept a caller's approval: a person approves through elicitation, or the operator approves tools (--approve-tools / [mcp] approve_tools). The operator enables caller approvals (CI) with tapflow mcp --trust-caller-approval or [mcp] approval = \"caller\" in tapflow.toml"
                ),
            )
            .with_details(json!({ "param": policy::APPROVAL })));
        }
        let echo = policy::check_approval(
            tool,
            !needing.is_empty(),
            true,
            Some(given),
            chrono::Utc::now(),
        )?;
        return Ok(echo.map(|mut e| {
            e["via"] = json!("caller");
            e["tools"] = json!(tools);
            e
        }));
    }
    if needing.is_empty() {
        return Ok(None);
    }
    let left: Vec<&StepRef> = needing
        .iter()
        .filter(|s| !core.filter.operator_approved(&s.tool))
        .collect();
    if left.is_empty() {
        return Ok(Some(json!({
            "via": "operator", "approved": true, "required": true, "tools": tools,
        })));
    }
    if let Some(why_not) = cannot_elicit(rctx) {
        let what = if needing.len() == 1 && needing[0].id == CALL {
            format!("`{tool}` needs a person's approval on this server")
        } else {
            let list: Vec<String> = left.iter().map(|s| s.describe()).collect();
            format!(
                "the flow has {} step(s) that need a person's approval on this server: {}; nothing ran",
                left.len(),
                list.join(", ")
            )
        };
        return Err(ToolError::new(
            tapflow_core::codes::APPROVAL_REQUIRED,
            format!("{what} ({why_not}). {HOW}"),
        )
        .with_details(json!({ "steps": left, "elicitation": why_not })));
    }
    elicit(tool, &left, rctx).await.map(|mut record| {
        record["tools"] = json!(tools);
        Some(record)
    })
}

/// The step id of a step tool's own call (not a flow step).
pub const CALL: &str = "call";

/// The one "step" of a step tool's own call.
pub fn call_step(tool: &str) -> StepRef {
    StepRef {
        id: CALL.into(),
        tool: tool.into(),
        file: String::new(),
        line: 0,
        column: 0,
    }
}

/// Why this request cannot ask the person, or `None` when it can.
fn cannot_elicit(rctx: &RequestContext<RoleServer>) -> Option<&'static str> {
    if rctx
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
    {
        return Some("protocol 2026-07-28 has no server-to-client requests");
    }
    let caps = rctx.client_capabilities();
    let Some(e) = caps.as_ref().and_then(|c| c.elicitation.as_ref()) else {
        return Some("the client did not declare elicitation");
    };
    // A client that declares neither mode supports the form (MCP 2025-06-18).
    if e.form.is_none() && e.url.is_some() {
        return Some("the client declared URL elicitation only, not forms");
    }
    None
}

/// Asks the person; the record of a yes, or the refusal.
async fn elicit(
    tool: &str,
    steps: &[&StepRef],
    rctx: &RequestContext<RoleServer>,
) -> Result<Value, ToolError> {
    let message = if steps.len() == 1 && steps[0].id == CALL {
        format!("tapflow: an agent asks to call `{tool}`. Approve this call?")
    } else {
        let mut m = format!(
            "tapflow: an agent asks to run a flow ({tool}) with {} step(s) that need your approval:",
            steps.len()
        );
        for s in steps {
            m.push_str(&format!("\n- {}", s.describe()));
        }
        m.push_str("\nApprove the whole flow?");
        m
    };
    let schema = ElicitationSchema::builder()
        .required_bool_with("approve", |b| {
            b.title("Approve").description("Tick to let this run.")
        })
        .optional_string_with("approved_by", |s| {
            s.title("Your name")
                .description("Recorded with the approval.")
        })
        .optional_string_with("reason", |s| s.title("Note").description("Optional."))
        .build()
        .map_err(|e| ToolError::new(tapflow_core::codes::INTERNAL_ERROR, e))?;
    let request = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema: schema,
    };
    let asked = tokio::select! {
        r = rctx.peer.create_elicitation_with_timeout(request, Some(ANSWER_WITHIN)) => r,
        _ = rctx.ct.cancelled() => return Err(tapflow_tools::context::cancelled()),
    };
    let answer = asked.map_err(|e| {
        ToolError::new(
            tapflow_core::codes::APPROVAL_REQUIRED,
            format!(
                "`{tool}` needs a person's approval and asking them failed: {e}; nothing ran. {HOW}"
            ),
        )
    })?;
    let content = answer.content.as_ref().and_then(Value::as_object);
    let text = |k: &str| {
        content
            .and_then(|c| c.get(k))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| Value::String(s.to_string()))
            .unwrap_or(Value::Null)
    };
    let mut record = Map::new();
    record.insert("via".into(), json!("elicitation"));
    let action = match answer.action {
        ElicitationAction::Accept => "accept",
        ElicitationAction::Decline => "decline",
        ElicitationAction::Cancel => "cancel",
        _ => "unknown",
    };
    record.insert("action".into(), json!(action));
    let ticked = content.and_then(|c| c.get("approve")) == Some(&Value::Bool(true));
    match answer.action {
        ElicitationAction::Accept if ticked => {}
        ElicitationAction::Accept | ElicitationAction::Decline => {
            return Err(ToolError::new(
                tapflow_core::codes::APPROVAL_DECLINED,
                format!("the person declined `{tool}`; nothing ran"),
            )
            .with_details(Value::Object(record)));
        }
        _ => {
            return Err(ToolError::new(
                tapflow_core::codes::APPROVAL_CANCELLED,
                format!("the person dismissed the approval request for `{tool}` without answering; nothing ran"),
            )
            .with_details(Value::Object(record)));
        }
    }
    record.insert("approved".into(), json!(true));
    record.insert("approved_by".into(), text("approved_by"));
    record.insert("reason".into(), text("reason"));
    record.insert("required".into(), json!(true));
    record.insert(
        "steps".into(),
        json!(steps.iter().filter(|s| s.id != CALL).collect::<Vec<_>>()),
    );
    record.insert("answered_at".into(), json!(chrono::Utc::now().to_rfc3339()));
    Ok(Value::Object(record))
}
