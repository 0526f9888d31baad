//! `save_flow`: the session so far becomes a flow file. The calls an agent made over MCP (its
//! session's log, [`crate::mcp::session_log`]) are cut (`from` / `since`), turned into steps
//! ([`convert`]), written as YAML with secrets as variables ([`render`], [`secrets`]), compiled
//! as `validate_flow` would, and only then written, under the output roots of the host-path
//! policy. MCP only: `tapflow tool` has no session.

mod convert;
mod render;
mod secrets;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{FlowSource, compile, diagnostics, step_engine};
use crate::mcp::session_log;
use convert::{Dropped, Elements};
use secrets::Secrets;
use tapflow_device::hostfs::{HostPathError, Overwrite};
use tapflow_tools::policy::{Hints, Policy};
use tapflow_tools::presets;
use tapflow_tools::registry::{Routing, Tool};
use tapflow_tools::{Call, ToolError};

pub struct SaveFlow;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// The `.yaml` file to write, inside the output roots.
    pub path: String,
    /// The flow's `name` (default: the file's).
    pub name: Option<String>,
    /// The first call to save (its `meta.session_call`).
    pub from: Option<u64>,
    /// Only calls finished since this RFC 3339 time.
    pub since: Option<String>,
    /// Replace an existing file.
    #[serde(default)]
    pub overwrite: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Saved {
    /// The real path written.
    pub path: String,
    /// The flow as written.
    pub yaml: String,
    /// Steps in the flow.
    pub steps: usize,
    /// The session calls the steps came from, in order (`meta.session_call`).
    pub from_calls: Vec<u64>,
    /// Variables the flow declares without a value (secrets typed in the session): supply them
    /// with `--env NAME=…`, `TAPFLOW_<NAME>` or `run_flow`'s `env`.
    pub env: Vec<String>,
    /// Calls of the cut that are not in the flow, and why.
    pub dropped: Vec<Dropped>,
    /// Earlier calls the session's log no longer held (it keeps the latest 10 000).
    #[serde(skip_serializing_if = "is_zero")]
    pub calls_cut_off: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Tool for SaveFlow {
    const NAME: &'static str = "save_flow";
    const TITLE: &'static str = "Save the session as a flow";
    const DESCRIPTION: &'static str = "Write this session's successful actions and waits as a validated flow file: handles become selectors, secrets `{{ VAR }}` variables; exploration and failed calls go to `dropped`. Use it once the session did what the flow should do; `run_flow` replays it.";
    const POLICY: Policy = presets::READ_TO_HOST_FILE;
    const HINTS: Hints = presets::IDEMPOTENT;
    const ROUTING: Routing = Routing::None;
    const CORE: bool = true;
    type Params = Params;
    type Output = Saved;

    fn headline(result: &serde_json::Value) -> Option<String> {
        Some(format!(
            "{} steps saved to {} ({} calls dropped)",
            result["steps"],
            result["path"].as_str().unwrap_or("?"),
            result["dropped"].as_array().map_or(0, Vec::len)
        ))
    }

    fn check(p: &Params) -> Result<(), ToolError> {
        let lower = p.path.to_ascii_lowercase();
        if !(lower.ends_with(".yaml") || lower.ends_with(".yml")) {
            return Err(ToolError::invalid_param(
                "path",
                format!(
                    "`{}` is not a flow file name: use a .yaml or .yml file",
                    p.path
                ),
            ));
        }
        if let Some(s) = &p.since {
            since(s)?;
        }
        Ok(())
    }

    fn run(p: Params, call: &mut Call<'_>) -> Result<Saved, ToolError> {
        Self::check(&p)?;
        let Some(log) = session_log::current() else {
            return Err(ToolError::new(
                tapflow_core::codes::UNSUPPORTED,
                "save_flow saves an MCP session's calls, and this call has no session: `tapflow tool` runs one call at a time, and MCP 2026-07-28 over HTTP is stateless (each request stands alone). Use stdio, or HTTP with the initialize handshake (protocol 2025-11-25 or older, Mcp-Session-Id)",
            ));
        };
        // The path first: a refused one is reported before anything is built.
        let target = super::policy(call.config())
            .prepare_inert_write(&p.path)
            .map_err(path_error)?;
        let (all, calls_cut_off) = log.snapshot();
        let since = p.since.as_deref().map(since).transpose()?;
        let cut: Vec<_> = all
            .iter()
            .filter(|c| p.from.is_none_or(|f| c.seq >= f))
            .filter(|c| since.is_none_or(|t| c.at >= t))
            .cloned()
            .collect();
        let engine = step_engine();
        let mut secrets = Secrets::default();
        let (steps, dropped) = convert::convert(&cut, &Elements::of(&all), &engine, &mut secrets);
        if steps.is_empty() {
            return Err(ToolError::new(
                tapflow_core::codes::FLOW_INVALID,
                format!(
                    "nothing to save: none of the {} calls from the cut is a successful action or wait (details.dropped says why each was left out); nothing was written",
                    cut.len()
                ),
            )
            .with_details(json!({ "dropped": dropped })));
        }
        let name = p.name.clone().unwrap_or_else(|| stem(&p.path));
        let yaml = render::flow(&name, &steps, &secrets, &engine).map_err(|e| {
            ToolError::new(
                tapflow_core::codes::INTERNAL_ERROR,
                format!("the flow could not be written as YAML: {e}"),
            )
        })?;
        // Never a secret on disk: a value that survived templating is a bug, not a file.
        if secrets.values().any(|v| yaml.contains(v)) {
            return Err(ToolError::new(
                tapflow_core::codes::INTERNAL_ERROR,
                "a secret value would have been written; nothing was saved",
            ));
        }
        let env: Vec<String> = secrets.names().map(str::to_string).collect();
        check_valid(&yaml, &env, call, &dropped)?;
        let mode = if p.overwrite {
            Overwrite::Replace
        } else {
            Overwrite::Never
        };
        let written = target.write(yaml.as_bytes(), mode).map_err(path_error)?;
        Ok(Saved {
            path: written.display().to_string(),
            steps: steps.len(),
            from_calls: steps.iter().map(|s| s.call).collect(),
            yaml,
            env,
            dropped,
            calls_cut_off,
        })
    }
}

/// Compiles the flow as `validate_flow` does (the secret variables given placeholder values:
/// only their presence matters here); `FLOW_INVALID` with the diagnostics, nothing written.
fn check_valid(
    yaml: &str,
    env: &[String],
    call: &Call<'_>,
    dropped: &[Dropped],
) -> Result<(), ToolError> {
    let src = FlowSource {
        yaml: Some(yaml.to_string()),
        path: None,
        env: env
            .iter()
            .map(|n| (n.clone(), "placeholder".into()))
            .collect(),
    };
    let c = compile(&src, call.config())?;
    let (errors, _, diags, _) = diagnostics(&c);
    if errors == 0 {
        return Ok(());
    }
    Err(ToolError::new(
        tapflow_core::codes::FLOW_INVALID,
        format!(
            "the saved calls do not make a valid flow ({errors} error{}); nothing was written",
            if errors == 1 { "" } else { "s" }
        ),
    )
    .with_details(json!({ "diagnostics": diags, "yaml": yaml, "dropped": dropped })))
}

fn since(s: &str) -> Result<DateTime<Utc>, ToolError> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| {
            ToolError::invalid_param(
                "since",
                format!("`{s}` is not an RFC 3339 time ({e}); e.g. 2026-01-31T12:00:00Z, or a result's meta.timestamp"),
            )
        })
}

fn stem(path: &str) -> String {
    std::path::Path::new(path)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "saved flow".into())
}

fn path_error(e: HostPathError) -> ToolError {
    ToolError::new(e.kind.code(), e.message.clone()).with_details(e.details())
}
