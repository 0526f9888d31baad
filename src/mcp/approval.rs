//! Who approves a call that needs approval, and how the answer is recorded (`meta.approval`).
//!
//! In order:
//! 1. a caller's own `approval` argument counts only in trusted-caller mode (the operator's
//!    `--trust-caller-approval` / `[mcp] approval = "caller"`, for CI); otherwise it is refused
//!    with `APPROVAL_NOT_TRUSTED`, whatever it says;
//! 2. tools the operator approved in advance (`--approve-tools`, `[mcp] approve_tools`) need
//!    nothing more;
//! 3. anything left is asked of the person through elicitation when the client declared it
//!    ([`elicit`]: `elicitation/create` in the handshake era, an `InputRequiredResult` in the
//!    2026-07-28 era): one question per call — for `run_flow`, one for the whole flow, listing
//!    its steps that need approval. Accept (with `approve` ticked) runs the call; decline →
//!    `APPROVAL_DECLINED`, dismiss → `APPROVAL_CANCELLED`;
//! 4. otherwise → `APPROVAL_REQUIRED`, saying how the operator can approve.

use rmcp::model::{InputRequiredResult, InputResponses, ProtocolVersion};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};

use crate::mcp::call::Core;
use crate::mcp::elicit::{self, Modern};
use crate::mcp::flow_gate::{StepRef, tools_of};
use crate::mcp::policy;
use tapflow_tools::ToolError;

/// How approval is given on a server (quoted by every refusal).
pub const HOW: &str = "A person approves through a client that supports MCP elicitation (the server asks them); or the operator approves the tools in advance (tapflow mcp --approve-tools TOOLS, or [mcp] approve_tools in tapflow.toml), or lets callers carry their own approval (--trust-caller-approval, or [mcp] approval = \"caller\").";

/// What a call's approval came to.
pub enum Decision {
    /// Go ahead; the record for `meta.approval` (and a run's `result.json`), if any.
    Go(Option<Value>),
    /// 2026-07-28 era: return this question; the client retries with the person's answer.
    Ask(InputRequiredResult),
}

/// The call as it arrived, for binding a 2026-07-28 answer to it.
pub struct Retry<'a> {
    /// The arguments without `approval`, as JSON text.
    pub args: String,
    pub request_state: Option<&'a str>,
    pub input_responses: Option<&'a InputResponses>,
}

/// Decides the approval of one call. `needing`: the steps that need approval (a step tool's own
/// call is one step named after it); empty when none does.
pub async fn decide(
    core: &Core,
    tool: &str,
    needing: &[StepRef],
    given: Option<Value>,
    retry: &Retry<'_>,
    rctx: &RequestContext<RoleServer>,
) -> Result<Decision, ToolError> {
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
        return Ok(Decision::Go(echo.map(|mut e| {
            e["via"] = json!("caller");
            e["tools"] = json!(tools);
            e
        })));
    }
    if needing.is_empty() {
        return Ok(Decision::Go(None));
    }
    let left: Vec<&StepRef> = needing
        .iter()
        .filter(|s| !core.filter.operator_approved(&s.tool))
        .collect();
    if left.is_empty() {
        return Ok(Decision::Go(Some(json!({
            "via": "operator", "approved": true, "required": true, "tools": tools,
        }))));
    }
    let with_tools = |mut record: Value| {
        record["tools"] = json!(tools);
        Decision::Go(Some(record))
    };
    let why_not = match channel(rctx) {
        Channel::Request => return elicit::ask_now(tool, &left, rctx).await.map(with_tools),
        Channel::InputRequired => {
            return match core.pending.ask_or_answer(
                tool,
                &retry.args,
                &left,
                retry.request_state,
                retry.input_responses,
            )? {
                Modern::Ask(question) => Ok(Decision::Ask(question)),
                Modern::Answered(record) => Ok(with_tools(record)),
            };
        }
        Channel::None(why) => why,
    };
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
    Err(ToolError::new(
        tapflow_core::codes::APPROVAL_REQUIRED,
        format!("{what} ({why_not}). {HOW}"),
    )
    .with_details(json!({ "steps": left, "elicitation": why_not })))
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

/// How this request can ask the person.
enum Channel {
    /// `elicitation/create` (handshake era).
    Request,
    /// An `InputRequiredResult` the client answers by retrying (2026-07-28 era).
    InputRequired,
    /// It cannot, and why.
    None(&'static str),
}

fn channel(rctx: &RequestContext<RoleServer>) -> Channel {
    let caps = rctx.client_capabilities();
    let Some(e) = caps.as_ref().and_then(|c| c.elicitation.as_ref()) else {
        return Channel::None("the client did not declare elicitation");
    };
    // A client that declares neither mode supports the form (MCP 2025-06-18).
    if e.form.is_none() && e.url.is_some() {
        return Channel::None("the client declared URL elicitation only, not forms");
    }
    if rctx
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
    {
        Channel::InputRequired
    } else {
        Channel::Request
    }
}
