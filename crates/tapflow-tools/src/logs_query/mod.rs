//! The `logs_query` tool: the registry's face of [`tapflow_device::logs::execute`].
//!
//! Parameters are exactly [`LogsQueryParams`] (the contract's); the registry strips `device_id`,
//! `hdc_server` and `include_cost` before decoding and routes the call with them. The source is
//! inline `logs` > `input_file(s)` > the device; a call with inline logs or files never resolves a
//! device. Device access goes through [`capture::DeviceCapture`]. The query environment comes
//! from the [`ToolConfig`]: `now` is the host clock at call time, and files are read and written
//! through the configuration's host-path policy (relative paths resolve against the working
//! directory; only the allowed roots, see `docs/security.md`). `save_path` never replaces a file,
//! never gets a name a build tool would run and is never executable (`logs::files`).

pub mod capture;
pub mod signature;

use chrono::{DateTime, FixedOffset};

use crate::config::ToolConfig;
use crate::context::Call;
use crate::decode::FieldCodes;
use crate::envelope::ToolError;
use crate::flow_hooks::{FlowHooks, LogWindow};
use crate::policy::{Hints, Policy, Risk};
use crate::registry::{Digest, Tool};
use tapflow_device::logs::query::{DEFAULT_MAX_CRASH_REPORTS, DEFAULT_MAX_FILE_BYTES};
use tapflow_device::logs::{
    LogsError, LogsQueryParams, LogsQueryResult, NoDevice, QueryEnv, execute,
};

use capture::DeviceCapture;

pub struct LogsQuery;

impl Tool for LogsQuery {
    const CORE: bool = true;
    const NAME: &'static str = "logs_query";
    const TITLE: &'static str = "Query logs";
    const DESCRIPTION: &'static str = "Query HarmonyOS logs for actionable errors (mode `errors`) or business markers (mode `markers`). Sources, by priority: inline `logs`, host `input_file`(s), the device's hilog buffer plus `realtime_wait_ms` of new lines. `include_crash` attaches crash reports; `save_path` writes the scanned text to a host file. A marker not found is `matched: false`, not an error. Use it to confirm an action reached the app's logic or to explain a failure.";
    const POLICY: Policy = Policy {
        risk: Risk::Read,
        mutates_device: false,
        // `save_path` writes a snapshot on the host.
        writes_host_files: true,
        executes_host_code: false,
        needs_approval: false,
    };
    // Not read-only in MCP's sense only because of `save_path` (as screenshot's file).
    const HINTS: Hints = Hints {
        read_only: false,
        destructive: false,
        idempotent: true,
    };
    const CODES: FieldCodes = FieldCodes {
        value: &[("mode", tapflow_core::codes::INVALID_QUERY_MODE)],
        wrong_type: &[],
    };

    const DIGEST: Option<Digest> = Some(Digest::List {
        field: "items",
        keep: &[],
    });
    const FLOW: FlowHooks<LogsQueryParams> = FlowHooks {
        // A step that reads the device and sets no window reads from the flow's start.
        log_window: Some(LogWindow {
            start: "start_time",
            window: &["start_time", "end_time", "seconds", "time_expr"],
            host_sources: &["logs", "input_file", "input_files"],
        }),
        ..FlowHooks::NONE
    };

    type Params = LogsQueryParams;
    // The registry publishes result schemas as serialised (fields skipped when empty, such as
    // an item's `context_before`, are optional), so the result type is used as is.
    type Output = LogsQueryResult;

    /// Every parameter (mode, ranges, level, domain, pid, time window against now, marker
    /// patterns), as [`LogsQueryParams::validate`] checks them.
    fn check(params: &LogsQueryParams) -> Result<(), ToolError> {
        params
            .validate(&chrono::Local::now().fixed_offset())
            .map(drop)
            .map_err(tool_error)
    }

    fn budget_ms(params: &LogsQueryParams, _config: &ToolConfig) -> Option<u64> {
        // Only a device capture waits (for new lines).
        needs_device(params)
            .then(|| u64::try_from(params.realtime_wait_ms).ok())
            .flatten()
    }

    fn run(params: LogsQueryParams, call: &mut Call<'_>) -> Result<LogsQueryResult, ToolError> {
        let env = query_env(call.config(), chrono::Local::now().fixed_offset());
        let result = if !needs_device(&params) {
            execute(&params, &env, &NoDevice)
        } else {
            let capture = DeviceCapture::new(call.device()?);
            execute(&params, &env, &capture)
        };
        let mut result = result.map_err(tool_error)?;
        if let Some(redact) = &call.ctx.redact {
            signature::redact_signatures(&mut result, redact.as_ref());
        }
        Ok(result)
    }
}

/// True when the query reads the device (no inline logs, no input files): the same rule as
/// the engine's source priority.
pub fn needs_device(p: &LogsQueryParams) -> bool {
    p.logs.is_none() && p.input_file.is_none() && p.input_files.is_none()
}

/// The query environment of one call: the configuration's host-path policy (relative paths
/// resolve against the working directory; files are read and written under the allowed roots).
pub fn query_env(config: &ToolConfig, now: DateTime<FixedOffset>) -> QueryEnv {
    QueryEnv {
        now,
        paths: config.paths.clone(),
        max_file_bytes: DEFAULT_MAX_FILE_BYTES,
        max_crash_reports: DEFAULT_MAX_CRASH_REPORTS,
    }
}

/// A query error keeps its code (contract codes, `IO_ERROR`, or the device's own) and details.
pub fn tool_error(e: LogsError) -> ToolError {
    let err = ToolError::new(e.code, e.message);
    if e.details.is_null() {
        err
    } else {
        err.with_details(e.details)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn env_uses_the_configured_policy() {
        let config = ToolConfig::rooted_at(PathBuf::from("/p"));
        let now = DateTime::parse_from_rfc3339("2026-01-23T21:05:00+08:00").unwrap();
        let env = query_env(&config, now);
        assert_eq!(env.paths, config.paths);
        assert_eq!(env.paths.base(), std::path::Path::new("/p"));
        assert_eq!(env.now, now);
    }

    #[test]
    fn only_a_query_without_logs_or_files_needs_a_device() {
        let mut p = LogsQueryParams::default();
        assert!(needs_device(&p));
        p.input_files = Some(vec![]);
        assert!(!needs_device(&p));
        let p = LogsQueryParams {
            logs: Some(vec!["x".into()]),
            ..LogsQueryParams::default()
        };
        assert!(!needs_device(&p));
    }

    #[test]
    fn errors_keep_code_and_details() {
        let e = tool_error(LogsError::invalid_param("lines", "bad"));
        assert_eq!(e.code, "INVALID_PARAM");
        assert_eq!(e.details["param"], "lines");
        let e = tool_error(LogsError::new(tapflow_core::codes::IO_ERROR, "disk full"));
        assert!(e.details.is_null());
    }
}
