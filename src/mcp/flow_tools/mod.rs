//! The flow tools MCP serves beside the step tools, as tools of the same engine (registered by
//! [`crate::mcp::engine`], so `tools/list` stays one list): `validate_flow` and `plan_flow`
//! (inline YAML or a host path → diagnostics with line/col, or the compiled plan), `run_flow`
//! (a whole flow on a device, progress per step), `get_run` (a finished run's summary and
//! report paths) and `save_flow` (the session's calls as a flow file). Host paths obey the host-path policy ([`tapflow_device::hostfs::PathPolicy`]) with the
//! server's roots.

mod env;
mod headline;
mod run;
mod save;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::project::{FlowLoader, ReadError};
use tapflow_core::flow::{DiagnosticReport, SourceFile};
use tapflow_core::plan::{self, Compiled, PlanOptions};
use tapflow_device::hostfs::{Expect, HostPathError, PathPolicy};
use tapflow_tools::RegistryCatalog;
use tapflow_tools::policy::{Hints, Policy};
use tapflow_tools::registry::{Routing, Tool, ToolDef};
use tapflow_tools::{Call, ToolConfig, ToolError};

pub use run::{GetRun, RunFlow};
pub use save::SaveFlow;

/// Registers the flow tools.
pub fn defs() -> Vec<ToolDef> {
    vec![
        ToolDef::of::<ValidateFlow>(),
        ToolDef::of::<PlanFlow>(),
        ToolDef::of::<RunFlow>(),
        ToolDef::of::<GetRun>(),
        ToolDef::of::<SaveFlow>(),
    ]
}

/// A run's `result.json` read back by `get_run` is at most this big.
const MAX_RESULT_BYTES: u64 = 64 << 20;

/// The engine flows run their steps on: the step tools only (a flow cannot call flow tools).
pub(crate) fn step_engine() -> Arc<tapflow_tools::Engine> {
    static ENGINE: OnceLock<Arc<tapflow_tools::Engine>> = OnceLock::new();
    ENGINE
        .get_or_init(|| Arc::new(tapflow_tools::Engine::new()))
        .clone()
}

/// Where a flow comes from.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FlowSource {
    /// The flow as YAML text (or give `path`).
    pub yaml: Option<String>,
    /// A flow file on the host (or give `yaml`).
    pub path: Option<String>,
    /// Flow variables (`{{ NAME }}`), like `tapflow run --env NAME=value`.
    #[serde(default)]
    pub env: env::FlowEnv,
}

/// The server's host-path policy (its allowed roots; relative paths against its working
/// directory).
pub(crate) fn policy(config: &ToolConfig) -> PathPolicy {
    config.paths.clone()
}

/// Reads and compiles the flow of `src`. A `path` must lie under the allowed roots; flow files
/// are then read as `tapflow validate` reads them ([`FlowLoader`]: regular files of at most
/// 1 MiB, UTF-8, under the flow root), the flow root being the project directory when the flow
/// lies in it, else the flow's own directory (inline YAML: the project directory).
pub(crate) fn compile(src: &FlowSource, config: &ToolConfig) -> Result<Compiled, ToolError> {
    let policy = policy(config);
    let (file, root) = match (&src.yaml, &src.path) {
        (Some(_), Some(_)) => {
            return Err(ToolError::new(
                tapflow_core::codes::PARAM_CONFLICT,
                "give either yaml or path, not both",
            ));
        }
        (None, None) => {
            return Err(ToolError::new(
                tapflow_core::codes::MISSING_PARAMS,
                "give the flow: yaml (text) or path (a host file)",
            ));
        }
        (Some(text), None) => (
            SourceFile::new("inline.yaml", text.clone()),
            config.project_dir.clone(),
        ),
        (None, Some(path)) => {
            let path_error = |e: HostPathError| {
                ToolError::new(e.kind.code(), e.message.clone())
                    .with_details(json!({ "param": "path", "reason": e.kind.as_str() }))
            };
            let real = policy
                .check_existing(path, Expect::File)
                .map_err(path_error)?;
            let root = if real.starts_with(&config.project_dir) {
                config.project_dir.clone()
            } else {
                real.parent().map(PathBuf::from).unwrap_or_default()
            };
            let text = FlowLoader::new(policy.base(), [root.clone()])
                .read(path)
                .map_err(|e| match e {
                    ReadError::Refused(e) => path_error(e),
                    e => ToolError::invalid_param("path", format!("{path}: {}", e.describe(&[]))),
                })?;
            (SourceFile::new(path.clone(), text), root)
        }
    };
    let catalog = RegistryCatalog::new(step_engine());
    let opts = PlanOptions {
        env: src.env.0.clone(),
        ..PlanOptions::default()
    };
    let loader = FlowLoader::new(policy.base(), [root]);
    Ok(plan::compile(&[file], &[], &catalog, &loader, &opts))
}

/// JSON objects as a result lists them.
type Objects = Vec<Map<String, Value>>;

/// The diagnostics as results carry them: errors and warnings found (listed or not), the
/// listed ones, and per file how many were left out (past 100 per file).
fn diagnostics(c: &Compiled) -> (usize, usize, Objects, Objects) {
    let report = DiagnosticReport::with_omitted(&c.diagnostics, &c.omitted);
    let v = serde_json::to_value(&report).unwrap_or(Value::Null);
    let objects = |key: &str| {
        v[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| d.as_object().cloned())
            .collect()
    };
    (
        report.errors,
        report.warnings,
        objects("diagnostics"),
        objects("omitted"),
    )
}

pub struct ValidateFlow;

#[derive(Debug, Serialize, JsonSchema)]
pub struct Validated {
    /// True when the flow has no errors (warnings allowed).
    pub valid: bool,
    pub errors: usize,
    pub warnings: usize,
    /// Every diagnostic: severity, code, message, file, line, column, end_line, end_column,
    /// the underlined text, a label and, when known, a suggestion. At most 100 per file.
    pub diagnostics: Vec<Map<String, Value>>,
    /// Files with more than 100 diagnostics: `{file, errors, warnings}` not listed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<Map<String, Value>>,
}

impl Tool for ValidateFlow {
    const CORE: bool = true;
    const NAME: &'static str = "validate_flow";
    const TITLE: &'static str = "Validate a flow";
    const DESCRIPTION: &'static str = "Check a YAML flow (inline `yaml` or a host `path`) without a device: every error with file, line, column and a suggestion where one exists. Use `run_flow` to run it.";
    const POLICY: Policy = Policy::READ;
    const HINTS: Hints = Hints::READ;
    const ROUTING: Routing = Routing::None;
    type Params = FlowSource;
    type Output = Validated;

    fn headline(result: &Value) -> Option<String> {
        headline::diagnostics(result)
    }

    fn run(p: FlowSource, call: &mut Call<'_>) -> Result<Validated, ToolError> {
        let c = compile(&p, call.config())?;
        let (errors, warnings, diagnostics, omitted) = diagnostics(&c);
        Ok(Validated {
            valid: errors == 0,
            errors,
            warnings,
            diagnostics,
            omitted,
        })
    }
}

pub struct PlanFlow;

#[derive(Debug, Serialize, JsonSchema)]
pub struct Planned {
    pub valid: bool,
    pub errors: usize,
    pub warnings: usize,
    pub diagnostics: Vec<Map<String, Value>>,
    /// Files with more than 100 diagnostics: `{file, errors, warnings}` not listed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<Map<String, Value>>,
    /// The compiled plan (step ids, tools with every argument and default, deadlines); null
    /// when the flow has errors.
    pub plan: Option<Map<String, Value>>,
}

impl Tool for PlanFlow {
    const NAME: &'static str = "plan_flow";
    const TITLE: &'static str = "Plan a flow";
    const DESCRIPTION: &'static str = "Compile a YAML flow (inline `yaml` or a host `path`) into its execution plan without touching a device: step ids, each step's tool with every argument and default made explicit, deadlines, sub-flows inlined. Use it to check what `run_flow` would do; use `validate_flow` when you only need the diagnostics.";
    const POLICY: Policy = Policy::READ;
    const HINTS: Hints = Hints::READ;
    const ROUTING: Routing = Routing::None;
    type Params = FlowSource;
    type Output = Planned;

    fn headline(result: &Value) -> Option<String> {
        headline::diagnostics(result)
    }

    fn run(p: FlowSource, call: &mut Call<'_>) -> Result<Planned, ToolError> {
        let c = compile(&p, call.config())?;
        let (errors, warnings, diagnostics, omitted) = diagnostics(&c);
        if errors == 0
            && let Some(gate) = &call.ctx.gate
        {
            gate.check(&c.plan)?;
        }
        Ok(Planned {
            valid: errors == 0,
            errors,
            warnings,
            diagnostics,
            omitted,
            plan: if errors == 0 {
                serde_json::to_value(&c.plan)
                    .ok()
                    .and_then(|v| v.as_object().cloned())
            } else {
                None
            },
        })
    }
}
