//! The `build_app` tool: the registry's face of [`build_app::build_app`](crate::build_app).
//!
//! Parameters are the contract's ([`BuildAppParams`]'s schema). They are decoded here rather than
//! by serde so that a missing `project_path` is the contract's `INVALID_PROJECT_PATH`, not a
//! serde message; `project_path` goes through the host-path policy (a directory under the allowed
//! roots; a relative one resolves against the working directory). The
//! [`BuildConfig`] comes from the [`ToolConfig`]'s [`BuildSettings`]. Errors keep their codes and
//! details: a failed build is `BUILD_FAILED` with `details.errors`, `details.error_count` and
//! `details.result` (the envelope's `result` is `null` on failure, so the partial result stays
//! in the details). No device is involved.

use std::borrow::Cow;
use std::time::Duration;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::build_app::{
    BuildAppParams, BuildAppResult, BuildConfig, BuildError, check_args, codes,
};
use crate::config::{BuildSettings, ToolConfig};
use crate::context::Call;
use crate::decode::FieldCodes;
use crate::envelope::ToolError;
use crate::policy::{Hints, Policy, Risk};
use crate::presets;
use crate::registry::{Routing, Tool};
use tapflow_device::hostfs::{Expect, HostPathError, PathErrorKind};

pub struct BuildApp;

/// The checked arguments as JSON; published with [`BuildAppParams`]'s schema.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(transparent)]
pub struct BuildAppArgs(pub Map<String, Value>);

impl JsonSchema for BuildAppArgs {
    fn schema_name() -> Cow<'static, str> {
        BuildAppParams::schema_name()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        BuildAppParams::json_schema(generator)
    }
}

impl Tool for BuildApp {
    // hvigor builds HarmonyOS artifacts only.
    const HARMONYOS_ONLY: bool = true;
    const NAME: &'static str = "build_app";
    const TITLE: &'static str = "Build app";
    const DESCRIPTION: &'static str = "Build HarmonyOS artifacts with hvigor on the host: target `hap` (default), `har`, `hsp` (module_name required for har/hsp), `app`, or `hnp` (repack native packages and sign). `include_hsp` with a hap builds the shared modules, repacks and signs the HAP. Runs project code on the host. Long-running: allow at least 60 s (120 s for cold builds); send a progressToken to get progress. A failed build returns BUILD_FAILED with the extracted compiler errors in `error.details.errors`. Use `install_app` next with `output_path`.";
    // hvigor runs the project's `hvigorw` and `hvigorfile.ts`: host code from the caller's
    // files. Approval is required (MCP enforces it).
    const POLICY: Policy = Policy {
        risk: Risk::Build,
        mutates_device: false,
        writes_host_files: true,
        executes_host_code: true,
        needs_approval: true,
    };
    const HINTS: Hints = presets::IDEMPOTENT;
    const ROUTING: Routing = Routing::None;
    const CODES: FieldCodes = FieldCodes {
        value: &[
            ("build_mode", codes::INVALID_BUILD_MODE),
            ("target", codes::INVALID_BUILD_TARGET),
        ],
        wrong_type: &[("project_path", codes::INVALID_PROJECT_PATH)],
    };
    const REQUIRED: &'static [&'static str] = &["project_path"];

    type Params = BuildAppArgs;
    type Output = BuildAppResult;

    /// The rules that need no file system: a project path given (`INVALID_PROJECT_PATH`; that
    /// it exists is checked when the build starts), build mode, target, module name for
    /// `har`/`hsp` (`MISSING_MODULE_NAME`), plain product and module names.
    fn check(args: &BuildAppArgs) -> Result<(), ToolError> {
        let blank = args
            .0
            .get("project_path")
            .and_then(Value::as_str)
            .is_none_or(|p| p.trim().is_empty());
        if blank {
            return Err(ToolError::new(
                codes::INVALID_PROJECT_PATH,
                "project_path is required: the project's root directory",
            )
            .at("project_path"));
        }
        let params: BuildAppParams = serde_json::from_value(Value::Object(args.0.clone()))
            .map_err(|e| {
                ToolError::invalid_param(
                    "arguments",
                    crate::decode::clip(&format!("invalid build_app arguments: {e}")),
                )
            })?;
        check_args(&params).map(drop).map_err(tool_error)
    }

    /// The configured build budget (`TAPFLOW_BUILD_TIMEOUT_MS`, default 600 s): the contract
    /// asks for at least 60 s, 120 s for cold builds.
    fn budget_ms(_args: &BuildAppArgs, config: &ToolConfig) -> Option<u64> {
        Some(config.build.timeout_ms)
    }

    fn run(args: BuildAppArgs, call: &mut Call<'_>) -> Result<BuildAppResult, ToolError> {
        let params = decode(args, call.config())?;
        let cfg = build_config(&call.config().build);
        crate::build_app::build_app(&params, &cfg).map_err(tool_error)
    }
}

/// Applies the contract's defaults; `project_path` goes through the host-path policy and
/// becomes the real path of a directory under the allowed roots (`PATH_NOT_ALLOWED` outside
/// them, `INVALID_PROJECT_PATH` when missing or not a directory). A missing or blank one stays
/// blank so that validation reports `INVALID_PROJECT_PATH` (resolving it would silently build
/// the working directory).
fn decode(args: BuildAppArgs, config: &ToolConfig) -> Result<BuildAppParams, ToolError> {
    let mut map = args.0;
    let given = map
        .get("project_path")
        .and_then(Value::as_str)
        .map(str::trim)
        .unwrap_or("");
    let project = if given.is_empty() {
        String::new()
    } else {
        config
            .paths
            .check_existing(given, Expect::Dir)
            .map_err(project_path_error)?
            .display()
            .to_string()
    };
    map.insert("project_path".into(), Value::String(project));
    serde_json::from_value(Value::Object(map)).map_err(|e| {
        ToolError::new(
            tapflow_core::codes::INVALID_PARAM,
            format!("invalid build_app arguments: {e}"),
        )
    })
}

fn project_path_error(e: HostPathError) -> ToolError {
    let code = match e.kind {
        PathErrorKind::NotAllowed | PathErrorKind::Symlink => tapflow_core::codes::PATH_NOT_ALLOWED,
        _ => codes::INVALID_PROJECT_PATH,
    };
    let mut details = e.details();
    details["param"] = "project_path".into();
    ToolError::new(code, e.message).with_details(details)
}

/// The per-call build configuration.
pub fn build_config(s: &BuildSettings) -> BuildConfig {
    BuildConfig {
        hvigorw: s.hvigorw.clone(),
        node: s.node.clone(),
        sdk_home: s.sdk_home.clone(),
        toolchains_lib: s.toolchains_lib.clone(),
        java: s.java.clone(),
        timeout: Duration::from_millis(s.timeout_ms),
        passwords: s.passwords.clone(),
        extra_env: s.extra_env.clone(),
    }
}

/// A build error keeps its code, message and details (`errors`, `error_count`, `result`, …).
pub fn tool_error(e: BuildError) -> ToolError {
    ToolError {
        code: e.code,
        message: e.message,
        details: e.details,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn project_path_resolves_through_the_policy() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("work");
        std::fs::create_dir_all(root.join("apps/demo")).unwrap();
        std::fs::create_dir_all(root.join("demo")).unwrap();
        let config = ToolConfig::rooted_at(&root);
        let args = |v: Value| BuildAppArgs(v.as_object().unwrap().clone());
        let p = decode(
            args(serde_json::json!({"project_path": "apps/../demo", "target": "har"})),
            &config,
        )
        .unwrap();
        let real = std::fs::canonicalize(root.join("demo")).unwrap();
        assert_eq!(p.project_path, real.display().to_string());
        assert_eq!((p.target.as_str(), p.build_mode.as_str()), ("har", "debug"));
        let p = decode(args(serde_json::json!({})), &config).unwrap();
        assert_eq!(p.project_path, "");
        let p = decode(args(serde_json::json!({"project_path": "  "})), &config).unwrap();
        assert_eq!(p.project_path, "");
        let code = |v: Value| decode(args(v), &config).unwrap_err().code;
        assert_eq!(
            code(serde_json::json!({"project_path": "../elsewhere"})),
            tapflow_core::codes::PATH_NOT_ALLOWED
        );
        assert_eq!(
            code(serde_json::json!({"project_path": "missing"})),
            codes::INVALID_PROJECT_PATH
        );
    }

    #[test]
    fn settings_become_the_build_config() {
        let s = BuildSettings {
            java: Some("/j".into()),
            timeout_ms: 1500,
            ..BuildSettings::default()
        };
        let c = build_config(&s);
        assert_eq!(c.java, Some(PathBuf::from("/j")));
        assert_eq!(c.timeout, Duration::from_millis(1500));
        assert_eq!(c.hvigorw, None);
    }
}
