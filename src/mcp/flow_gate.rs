//! The server's policy over a whole flow, at plan time: every tool step of the compiled plan —
//! each flow's clean-state setup, its steps, the bodies of `repeat`, `retry` and sub-flows
//! (`run_flow` steps, includes), conditional (`when`) steps, and the `on_failure` and `finally`
//! hooks — must use a tool this server serves (`--deny-tools` / `--allow-tools`), a flow that
//! pins a device must pin an allowed one (`--allow-device`), and every step whose tool needs
//! approval must be approved. A refusal names each offending step with its file:line, before any
//! step runs.
//!
//! [`FlowGate`] is what the flow tools call after compiling ([`tapflow_tools::context::PlanGate`]):
//! the call path checks the flow first (to ask for approval before it queues for the device), and
//! the tool checks the plan it really runs again, so a flow file changed in between cannot slip a
//! step past the check.

use std::collections::BTreeSet;
use std::sync::Arc;

use rmcp::model::JsonObject;
use serde::Serialize;
use serde_json::{Value, json};

use crate::mcp::call::Core;
use crate::mcp::flow_tools::{FlowSource, compile};
use crate::mcp::options::Compiled;
use tapflow_core::plan::{Action, Plan, PlanStep};
use tapflow_tools::context::PlanGate;
use tapflow_tools::{Engine, ToolError};

/// One tool step of a plan, where it was written.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct StepRef {
    /// The plan's step id (`flow.3.2`, `flow.finally.1`, `flow.setup.2`).
    pub id: String,
    pub tool: String,
    pub file: String,
    pub line: usize,
    pub column: usize,
}

impl StepRef {
    /// `` `tool` at file:line (id) `` for messages.
    pub fn describe(&self) -> String {
        format!(
            "`{}` at {}:{} ({})",
            self.tool, self.file, self.line, self.id
        )
    }
}

/// Every tool step of the plan, in run order per flow: setup, steps (nested bodies depth
/// first), `on_failure`, `finally`.
pub fn tool_steps(plan: &Plan) -> Vec<StepRef> {
    fn walk(steps: &[PlanStep], out: &mut Vec<StepRef>) {
        for s in steps {
            match &s.action {
                Action::Tool { tool, .. } => out.push(StepRef {
                    id: s.id.clone(),
                    tool: tool.clone(),
                    file: s.source.file.clone(),
                    line: s.source.line,
                    column: s.source.column,
                }),
                Action::Repeat { steps, .. }
                | Action::Retry { steps, .. }
                | Action::SubFlow { steps, .. } => walk(steps, out),
            }
        }
    }
    let mut out = Vec::new();
    for fp in &plan.flows {
        if let Some(iso) = &fp.isolation {
            walk(&crate::run::exec::setup_steps(fp, iso), &mut out);
        }
        walk(&fp.steps, &mut out);
        walk(&fp.on_failure, &mut out);
        walk(&fp.finally, &mut out);
    }
    out
}

/// The steps whose tool needs approval on this server (`--require-approval` and the tool's
/// policy).
pub fn needing_approval(plan: &Plan, engine: &Engine, require_approval: bool) -> Vec<StepRef> {
    if !require_approval {
        return Vec::new();
    }
    tool_steps(plan)
        .into_iter()
        .filter(|s| engine.get(&s.tool).is_some_and(|d| d.policy.needs_approval))
        .collect()
}

/// Refuses a plan with a step this server does not serve, or a flow pinned to a device outside
/// the allowlist.
pub fn check_served(plan: &Plan, filter: &Compiled) -> Result<(), ToolError> {
    let denied: Vec<StepRef> = tool_steps(plan)
        .into_iter()
        .filter(|s| !filter.serves(&s.tool))
        .collect();
    if !denied.is_empty() {
        let list: Vec<String> = denied.iter().map(StepRef::describe).collect();
        return Err(ToolError::new(
            tapflow_core::codes::STEP_DENIED,
            format!(
                "the flow has {} step(s) using tools this server does not serve: {}; nothing ran. Remove them from the flow, or ask the operator (tools are denied by --deny-tools / --allow-tools / [mcp] deny_tools of tapflow.toml)",
                denied.len(),
                list.join(", ")
            ),
        )
        .with_details(json!({ "steps": denied })));
    }
    if let Some(fp) = plan
        .flows
        .iter()
        .find(|f| f.device != "auto" && !filter.device_allowed(&f.device))
    {
        return Err(ToolError::new(
            tapflow_core::codes::STEP_DENIED,
            format!(
                "flow `{}` ({}) pins device `{}`, which is not in this server's device allowlist (--allow-device); nothing ran",
                fp.name, fp.file, fp.device
            ),
        )
        .with_details(json!({ "flow": fp.id, "device": fp.device })));
    }
    Ok(())
}

/// The gate of one flow-tool call: the served tools, and the tools approved for this call.
pub struct FlowGate {
    pub filter: Compiled,
    pub engine: Arc<Engine>,
    /// `None`: approval is not checked (`plan_flow` runs nothing).
    pub approval: Option<Approved>,
    /// What `meta.approval` says (recorded in a run's `result.json`).
    pub record: Option<Value>,
}

/// What a flow call was approved for.
pub struct Approved {
    pub require_approval: bool,
    /// Tools approved by the operator or by this call's approval (elicited or trusted caller).
    pub tools: BTreeSet<String>,
}

impl PlanGate for FlowGate {
    fn check(&self, plan: &Plan) -> Result<(), ToolError> {
        check_served(plan, &self.filter)?;
        if let Some(a) = &self.approval {
            let missing: Vec<StepRef> = needing_approval(plan, &self.engine, a.require_approval)
                .into_iter()
                .filter(|s| !a.tools.contains(&s.tool) && !self.filter.operator_approved(&s.tool))
                .collect();
            if !missing.is_empty() {
                return Err(unapproved(&missing));
            }
        }
        Ok(())
    }

    fn approval(&self) -> Option<Value> {
        self.record.clone()
    }
}

/// `APPROVAL_REQUIRED` for these steps of a flow, saying how approval is given.
pub fn unapproved(steps: &[StepRef]) -> ToolError {
    let list: Vec<String> = steps.iter().map(StepRef::describe).collect();
    ToolError::new(
        tapflow_core::codes::APPROVAL_REQUIRED,
        format!(
            "the flow has {} step(s) that need a person's approval on this server: {}; nothing ran. {}",
            steps.len(),
            list.join(", "),
            crate::mcp::approval::HOW
        ),
    )
    .with_details(json!({ "steps": steps }))
}

/// The approval set of a flow the caller may not change: every tool of `steps`.
pub fn tools_of(steps: &[StepRef]) -> BTreeSet<String> {
    steps.iter().map(|s| s.tool.clone()).collect()
}

/// The flow of a `run_flow` / `plan_flow` call, checked before the call queues for its device:
/// `Ok(steps needing approval)`; `Ok(empty)` also when the flow does not compile (the tool then
/// reports why, with its diagnostics).
pub async fn precheck(core: &Arc<Core>, args: &JsonObject) -> Result<Vec<StepRef>, ToolError> {
    let Ok(src) = serde_json::from_value::<FlowSource>(Value::Object(args.clone())) else {
        return Ok(Vec::new());
    };
    let config = core.ctx.config.clone();
    let compiled = tokio::task::spawn_blocking(move || compile(&src, &config))
        .await
        .map_err(|e| {
            ToolError::new(
                tapflow_core::codes::INTERNAL_ERROR,
                format!("the flow check failed: {e}"),
            )
        })?;
    let Ok(c) = compiled else {
        return Ok(Vec::new());
    };
    if c.has_errors() {
        return Ok(Vec::new());
    }
    check_served(&c.plan, &core.filter)?;
    Ok(needing_approval(
        &c.plan,
        &core.engine,
        core.options.require_approval,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::McpOptions;
    use tapflow_tools::ToolConfig;

    fn plan(yaml: &str) -> Plan {
        let tmp = tempfile::tempdir().unwrap();
        let src = FlowSource {
            yaml: Some(yaml.into()),
            path: None,
            env: Default::default(),
        };
        let c = compile(&src, &ToolConfig::rooted_at(tmp.path())).unwrap();
        assert!(!c.has_errors(), "{:?}", c.diagnostics);
        c.plan
    }

    /// The plan that runs is checked again: a step added after the approval (a flow file
    /// rewritten between the check and the run) is refused.
    #[test]
    fn the_gate_refuses_steps_beyond_what_was_approved() {
        let options = McpOptions {
            require_approval: true,
            ..McpOptions::default()
        };
        let gate = FlowGate {
            filter: options.compile().unwrap(),
            engine: Arc::new(crate::mcp::engine()),
            approval: Some(Approved {
                require_approval: true,
                tools: ["clear_app_data".to_string()].into(),
            }),
            record: None,
        };
        let approved = plan("name: f\nsteps:\n  - clear_app_data: com.tapflow.demo\n");
        assert!(gate.check(&approved).is_ok());
        let grown = plan(
            "name: f\nsteps:\n  - clear_app_data: com.tapflow.demo\nfinally:\n  - uninstall_app: com.tapflow.demo\n",
        );
        let e = gate.check(&grown).unwrap_err();
        assert_eq!(e.code, "APPROVAL_REQUIRED");
        assert!(
            e.message.contains("`uninstall_app` at inline.yaml:5"),
            "{}",
            e.message
        );
    }
}
