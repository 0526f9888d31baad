//! Asking the person through MCP elicitation, in both protocol eras, and reading their answer.
//!
//! - Handshake era (2025-06-18 … 2025-11-25): the server sends `elicitation/create` while the
//!   call waits ([`ask_now`]).
//! - 2026-07-28 era, which forbids server-to-client requests: the call answers with an
//!   `InputRequiredResult` carrying the same form and an opaque `requestState`; the client asks
//!   the person and retries the call with `inputResponses` ([`Pending`]). The state is only a
//!   key into the server's own table (one use, bound to the tool, its arguments and the steps
//!   asked about, expiring with [`ANSWER_WITHIN`]), so a retry cannot carry an answer to a
//!   question that was never asked, or to a different call.
//!
//! Either way the form is a flat object (`approve` ticked, optional name and note); accept with
//! `approve` → the record for `meta.approval`; decline (or accept unticked) →
//! `APPROVAL_DECLINED`; dismissed → `APPROVAL_CANCELLED`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rmcp::model::{
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    InputRequest, InputRequiredResult, InputResponses,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value, json};

use crate::mcp::approval::{CALL, HOW};
use crate::mcp::flow_gate::StepRef;
use tapflow_tools::ToolError;

/// How long a person has to answer.
pub const ANSWER_WITHIN: Duration = Duration::from_secs(600);

/// The key of the approval form in `inputRequests` / `inputResponses`.
const KEY: &str = "approval";

/// Questions asked in the 2026-07-28 era are kept at most this many at once (the oldest goes).
const MAX_PENDING: usize = 1024;

/// The question for these steps.
fn question(tool: &str, steps: &[&StepRef]) -> Result<ElicitRequestParams, ToolError> {
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
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema: schema,
    })
}

/// Handshake era: asks now and waits for the answer.
pub async fn ask_now(
    tool: &str,
    steps: &[&StepRef],
    rctx: &RequestContext<RoleServer>,
) -> Result<Value, ToolError> {
    let request = question(tool, steps)?;
    let asked = tokio::select! {
        r = rctx.peer.create_elicitation_with_timeout(request, Some(ANSWER_WITHIN)) => r,
        _ = rctx.ct.cancelled() => return Err(tapflow_tools::context::cancelled()),
    };
    let answer = asked.map_err(|e| failed(tool, &e.to_string()))?;
    record(tool, steps, &answer)
}

fn failed(tool: &str, why: &str) -> ToolError {
    ToolError::new(
        tapflow_core::codes::APPROVAL_REQUIRED,
        format!(
            "`{tool}` needs a person's approval and asking them failed: {why}; nothing ran. {HOW}"
        ),
    )
}

/// The person's answer: the record of a yes, or the refusal.
fn record(tool: &str, steps: &[&StepRef], answer: &ElicitResult) -> Result<Value, ToolError> {
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

/// One question asked in the 2026-07-28 era, awaiting the client's retry.
struct Asked {
    tool: String,
    /// The call's arguments (without `approval`), as JSON text.
    args: String,
    steps: Vec<StepRef>,
    at: Instant,
}

/// The questions asked in the 2026-07-28 era, by their `requestState`.
#[derive(Default)]
pub struct Pending(Mutex<HashMap<String, Asked>>);

/// What a 2026-07-28 call gets: the question to return, or the answer to its retry.
pub enum Modern {
    Ask(InputRequiredResult),
    Answered(Value),
}

impl Pending {
    /// The first call asks (an `InputRequiredResult`); its retry, carrying the state and the
    /// answer, gets the record or the refusal.
    pub fn ask_or_answer(
        &self,
        tool: &str,
        args: &str,
        steps: &[&StepRef],
        state: Option<&str>,
        responses: Option<&InputResponses>,
    ) -> Result<Modern, ToolError> {
        let mut table = self.0.lock().unwrap_or_else(|p| p.into_inner());
        table.retain(|_, a| a.at.elapsed() < ANSWER_WITHIN);
        let Some(state) = state else {
            if responses.is_some() {
                return Err(failed(
                    tool,
                    "the call carried inputResponses without the requestState of a question this server asked",
                ));
            }
            if table.len() >= MAX_PENDING
                && let Some(oldest) = table
                    .iter()
                    .min_by_key(|(_, a)| a.at)
                    .map(|(k, _)| k.clone())
            {
                table.remove(&oldest);
            }
            let key = uuid::Uuid::new_v4().simple().to_string();
            table.insert(
                key.clone(),
                Asked {
                    tool: tool.to_string(),
                    args: args.to_string(),
                    steps: steps.iter().map(|s| (*s).clone()).collect(),
                    at: Instant::now(),
                },
            );
            let mut requests = std::collections::BTreeMap::new();
            requests.insert(
                KEY.to_string(),
                InputRequest::Elicitation(ElicitRequest::new(question(tool, steps)?)),
            );
            return Ok(Modern::Ask(InputRequiredResult::new(
                Some(requests),
                Some(key),
            )));
        };
        let asked = table.remove(state).ok_or_else(|| {
            failed(tool, "its requestState names no open question of this server (answered already, expired, or never asked); call again to be asked")
        })?;
        drop(table);
        let now: Vec<StepRef> = steps.iter().map(|s| (*s).clone()).collect();
        if asked.tool != tool || asked.args != args || asked.steps != now {
            return Err(failed(
                tool,
                "the retried call is not the one the person was asked about (tool, arguments or flow steps differ); call again to be asked",
            ));
        }
        let answer = responses
            .and_then(|r| r.get(KEY))
            .ok_or_else(|| failed(tool, "the retry carried no answer to the approval question"))?;
        let answer: ElicitResult = serde_json::from_value(answer.clone()).map_err(|e| {
            failed(
                tool,
                &format!("the answer is not an elicitation result: {e}"),
            )
        })?;
        record(tool, steps, &answer).map(Modern::Answered)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(line: usize) -> StepRef {
        StepRef {
            id: format!("f.{line}"),
            tool: "uninstall_app".into(),
            file: "inline.yaml".into(),
            line,
            column: 5,
        }
    }

    fn answer(action: &str, approve: bool) -> InputResponses {
        let mut r = InputResponses::new();
        r.insert(
            KEY.into(),
            json!({"action": action, "content": {"approve": approve, "approved_by": "qa-lead"}}),
        );
        r
    }

    fn ask(p: &Pending, args: &str, s: &StepRef) -> String {
        match p.ask_or_answer("run_flow", args, &[s], None, None).unwrap() {
            Modern::Ask(q) => {
                let v = serde_json::to_value(&q).unwrap();
                assert_eq!(v["resultType"], "input_required");
                let message = v["inputRequests"][KEY]["params"]["message"]
                    .as_str()
                    .unwrap();
                assert!(message.contains("inline.yaml:3"), "{message}");
                q.request_state.unwrap()
            }
            Modern::Answered(_) => panic!("answered without being asked"),
        }
    }

    #[test]
    fn an_answer_counts_once_for_the_call_it_was_asked_about() {
        let p = Pending::default();
        let s = step(3);
        let yes = answer("accept", true);
        let code = |r: Result<Modern, ToolError>| match r {
            Err(e) => e.code.to_string(),
            Ok(_) => "ok".to_string(),
        };
        // An answer nobody asked for, or to a question this server never asked.
        assert_eq!(
            code(p.ask_or_answer("run_flow", "{}", &[&s], None, Some(&yes))),
            "APPROVAL_REQUIRED"
        );
        assert_eq!(
            code(p.ask_or_answer("run_flow", "{}", &[&s], Some("made-up"), Some(&yes))),
            "APPROVAL_REQUIRED"
        );
        // Retried with other arguments (or other steps): refused, and the question is spent.
        let state = ask(&p, "{\"yaml\":\"a\"}", &s);
        assert_eq!(
            code(p.ask_or_answer(
                "run_flow",
                "{\"yaml\":\"b\"}",
                &[&s],
                Some(&state),
                Some(&yes)
            )),
            "APPROVAL_REQUIRED"
        );
        assert_eq!(
            code(p.ask_or_answer(
                "run_flow",
                "{\"yaml\":\"a\"}",
                &[&s],
                Some(&state),
                Some(&yes)
            )),
            "APPROVAL_REQUIRED"
        );
        let state = ask(&p, "{}", &s);
        assert_eq!(
            code(p.ask_or_answer("run_flow", "{}", &[&step(4)], Some(&state), Some(&yes))),
            "APPROVAL_REQUIRED"
        );
        // The same call: the person's answer decides, once.
        let state = ask(&p, "{}", &s);
        match p.ask_or_answer("run_flow", "{}", &[&s], Some(&state), Some(&yes)) {
            Ok(Modern::Answered(r)) => {
                assert_eq!(r["via"], "elicitation");
                assert_eq!(r["approved_by"], "qa-lead");
            }
            _ => panic!("an accepted answer approves"),
        }
        assert_eq!(
            code(p.ask_or_answer("run_flow", "{}", &[&s], Some(&state), Some(&yes))),
            "APPROVAL_REQUIRED",
            "an answer is used once"
        );
        for (action, approve, expected) in [
            ("decline", false, "APPROVAL_DECLINED"),
            ("accept", false, "APPROVAL_DECLINED"),
            ("cancel", false, "APPROVAL_CANCELLED"),
        ] {
            let state = ask(&p, "{}", &s);
            let a = answer(action, approve);
            assert_eq!(
                code(p.ask_or_answer("run_flow", "{}", &[&s], Some(&state), Some(&a))),
                expected
            );
        }
    }
}
