//! `run_flow` (a whole flow on one device through the runner, with progress per step from the
//! run's events, cancellable) and `get_run` (a finished run's `result.json`, summarised).

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{FlowSource, MAX_RESULT_BYTES, compile, diagnostics, headline, policy, step_engine};
use crate::report::Outputs;
use crate::run::mask::Masker;
use crate::run::{self, DeviceChoice, EventSink, RunEvent, RunOptions, RunResult, Status};
use crate::session;
use tapflow_tools::policy::{Hints, Policy, Risk};
use tapflow_tools::registry::{Routing, Tool};
use tapflow_tools::{Call, ToolError};

pub struct RunFlow;

/// A finished run as the flow tools report it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RunSummary {
    pub run_id: String,
    /// `passed`, `failed`, `interrupted`, … (the run's overall status).
    pub status: String,
    pub passed: bool,
    pub duration_ms: u64,
    /// Counts of flows and steps by status.
    pub totals: Map<String, Value>,
    /// Each flow: id, name, device, status, duration_ms, error.
    pub flows: Vec<Map<String, Value>>,
    /// The first failing step: flow, step id, title, error (code, message, evidence paths).
    pub failing_step: Option<Map<String, Value>>,
    /// The run's directory and its reports (result.json, artifact manifest, JUnit, HTML).
    pub run_dir: String,
    pub result_path: String,
    pub artifacts_manifest: String,
    pub junit_path: String,
    pub html_path: String,
    /// Reports that could not be written (one line each); empty when all were.
    pub report_errors: Vec<String>,
}

fn status_name(s: Status) -> String {
    serde_json::to_value(s)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// `masker` masks what the run kept in memory (a tool's error message may quote a typed secret
/// in any encoding); a `result.json` read back from disk was masked when it was written.
fn summarise(r: &RunResult, dir: &std::path::Path, masker: &Masker) -> RunSummary {
    let v = masker.to_value(r).unwrap_or(Value::Null);
    let obj = |v: Value| match v {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let flows: Vec<Map<String, Value>> = v["flows"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            json!({
                "id": f["id"], "name": f["name"], "file": f["file"], "device": f["device"],
                "status": f["status"], "duration_ms": f["duration_ms"], "error": f["error"],
            })
        })
        .map(obj)
        .collect();
    let failing_step = v["flows"].as_array().into_iter().flatten().find_map(|f| {
        f["steps"].as_array().into_iter().flatten().find_map(|s| {
            (s["status"] == "failed").then(|| obj(json!({ "flow": f["id"], "step": s })))
        })
    });
    RunSummary {
        run_id: r.run_id.clone(),
        status: status_name(r.status),
        passed: r.status == Status::Passed,
        duration_ms: r.duration_ms,
        totals: obj(v["totals"].clone()),
        flows,
        failing_step,
        run_dir: dir.display().to_string(),
        result_path: dir.join("result.json").display().to_string(),
        artifacts_manifest: dir.join(&r.artifacts_manifest).display().to_string(),
        junit_path: dir.join("junit.xml").display().to_string(),
        html_path: dir.join("report.html").display().to_string(),
        report_errors: Vec::new(),
    }
}

/// Run events as progress messages, masked (they leave the process).
struct Progress(tapflow_tools::context::Signals, Masker);

impl EventSink for Progress {
    fn emit(&self, event: &RunEvent) {
        let msg = match event {
            RunEvent::FlowStarted {
                name,
                steps,
                device,
                ..
            } => {
                format!("flow `{name}` started on {device} ({steps} steps)")
            }
            RunEvent::StepFinished {
                step_id,
                title,
                status,
                duration_ms,
                error,
                ..
            } => {
                let why = error
                    .as_ref()
                    .map(|e| format!(": {} {}", e.code, e.message))
                    .unwrap_or_default();
                format!(
                    "step {step_id} `{title}` {} in {duration_ms} ms{why}",
                    status_name(*status)
                )
            }
            RunEvent::FlowFinished { flow, .. } => {
                format!("flow `{}` {}", flow.name, status_name(flow.status))
            }
            RunEvent::Interrupted => "run interrupted".into(),
            _ => return,
        };
        self.0.progress(&self.1.text(&msg));
    }
}

impl Tool for RunFlow {
    const CORE: bool = true;
    const NAME: &'static str = "run_flow";
    const TITLE: &'static str = "Run a flow";
    const DESCRIPTION: &'static str = "Run a YAML flow (inline `yaml` or a host `path`) on one device as `tapflow run` does: deadlines, retries, `finally` hooks, evidence for a failed step, reports in a new run directory. Progress per step; cancellable. Returns the summary, the failing step and the report paths (`get_run` reads them later). Use `validate_flow` first for a new flow.";
    const POLICY: Policy = Policy {
        risk: Risk::Device,
        mutates_device: true,
        writes_host_files: true,
        executes_host_code: false,
        needs_approval: false,
    };
    const HINTS: Hints = Hints::ACTION;
    // The summary's lists and paths are for humans and `get_run`; a model needs the verdict.
    const DIGEST: Option<tapflow_tools::Digest> = Some(tapflow_tools::Digest::Fields(&[
        "run_id",
        "status",
        "passed",
        "duration_ms",
        "totals",
        "failing_step",
        "report_errors",
    ]));
    const ROUTING: Routing = Routing::Full;
    type Params = FlowSource;
    type Output = RunSummary;

    fn headline(result: &Value) -> Option<String> {
        headline::run(result)
    }

    fn run(p: FlowSource, call: &mut Call<'_>) -> Result<RunSummary, ToolError> {
        let compiled = compile(&p, call.config())?;
        let (errors, _, diags, _) = diagnostics(&compiled);
        if errors > 0 {
            return Err(ToolError::new(
                tapflow_core::codes::FLOW_INVALID,
                format!("the flow has {errors} error(s); nothing ran (validate_flow shows them)"),
            )
            .with_details(json!({ "diagnostics": diags })));
        }
        // The server's policy over every step of the plan that runs (MCP; the CLI has no gate).
        let approval = match &call.ctx.gate {
            Some(gate) => {
                gate.check(&compiled.plan)?;
                gate.approval()
            }
            None => None,
        };
        let signals = call.ctx.signals.clone();
        let mut ctx = call.ctx.with_signals(signals.with_progress(None));
        if let Some(server) = &call.route.hdc_server {
            ctx.config.default_hdc_server = Some(server.clone());
        }
        let run_id = run::new_run_id();
        // The run directory is created through the host-path policy (the reports directory is
        // an allowed root).
        let dir: PathBuf = call
            .config()
            .paths
            .ensure_dir(
                &call
                    .config()
                    .reports_dir
                    .join(&run_id)
                    .display()
                    .to_string(),
            )
            .map_err(|e| {
                ToolError::new(e.kind.code(), format!("report directory: {}", e.message))
            })?;
        let mut opts = RunOptions::new(run_id);
        opts.devices = match &call.route.device_id {
            Some(d) => DeviceChoice::Serials(vec![d.clone()]),
            None => DeviceChoice::Auto,
        };
        opts.run_dir = Some(dir.clone());
        opts.approval = approval;
        let cancel = opts.cancel.clone();
        signals.on_cancel(move || cancel.cancel());
        // Every secret of the plan, in every form: built once for the progress and the summary.
        let masker = Masker::for_plan(&compiled.plan);
        // The reporters write result.json (live, as the run goes), JUnit, HTML and the
        // manifest, exactly as `tapflow run` does.
        let reported = session::run_with_reports(
            &compiled.plan,
            step_engine(),
            ctx,
            &opts,
            &Progress(signals, masker.clone()),
            &Outputs::in_run_dir(&dir),
        );
        let mut summary = summarise(&reported.result, &dir, &masker);
        summary.report_errors = reported.written.errors;
        Ok(summary)
    }
}

pub struct GetRun;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetRunParams {
    /// The run id (`run_flow`'s `run_id`, or a directory name under the reports directory).
    pub run_id: String,
}

impl Tool for GetRun {
    const CORE: bool = true;
    const NAME: &'static str = "get_run";
    const TITLE: &'static str = "Get a run";
    const DESCRIPTION: &'static str = "Read a finished run by run_id (from `run_flow` or `tapflow run`): status, totals, each flow's outcome, the failing step with its evidence paths, the report paths. Use `run_flow` to run one.";
    const POLICY: Policy = Policy::READ;
    const HINTS: Hints = Hints::READ;
    const ROUTING: Routing = Routing::None;
    const REQUIRED: &'static [&'static str] = &["run_id"];
    type Params = GetRunParams;
    type Output = RunSummary;

    fn headline(result: &Value) -> Option<String> {
        headline::run(result)
    }

    fn run(p: GetRunParams, call: &mut Call<'_>) -> Result<RunSummary, ToolError> {
        let id = p.run_id.trim();
        if id.is_empty() || id.contains(['/', '\\']) || id.starts_with('.') {
            return Err(ToolError::invalid_param(
                "run_id",
                format!("`{id}` is not a run id (a directory name under the reports directory)"),
            ));
        }
        let dir = call.config().reports_dir.join(id);
        let policy = policy(call.config()).with_root(call.config().reports_dir.clone());
        let file = dir.join("result.json");
        let (_, bytes) = policy
            .read_file(&file.to_string_lossy(), MAX_RESULT_BYTES)
            .map_err(|e| {
                ToolError::new(
                    tapflow_core::codes::RUN_NOT_FOUND,
                    format!("no run `{id}`: {}", e.message),
                )
                .with_details(json!({ "run_id": id, "reason": e.kind.as_str() }))
            })?;
        let result: RunResult = serde_json::from_slice(&bytes).map_err(|e| {
            ToolError::new(
                tapflow_core::codes::RUN_NOT_FOUND,
                format!("{} is not a run result: {e}", file.display()),
            )
        })?;
        Ok(summarise(&result, &dir, &Masker::none()))
    }
}
