//! One hvigor invocation inside a `build_app` call: run it against the shared deadline and turn its
//! output into success or a typed error (`BUILD_TIMEOUT`, `BUILD_FAILED` with the extracted errors, …).

use std::time::Instant;

use serde_json::json;

use super::config::BuildConfig;
use super::error::{BuildError, codes};
use super::hvigor_output::{self, HvigorReport, Verdict};
use super::process::{self, Finished};
use super::result::CompileError;

/// At most this many structured errors travel in a result or error (the count is never capped).
pub const MAX_ERRORS: usize = 100;
/// Lines of raw output kept in error details.
const TAIL_LINES: usize = 60;

/// Runs hvigor with `args` in the project. `fail_code` is the code for a reported failure
/// (`BUILD_FAILED`, or `HSP_BUILD_FAILED` for the shared-module builds of the HSP flow).
pub fn run_hvigor(
    cfg: &BuildConfig,
    project: &std::path::Path,
    args: &[String],
    step: &str,
    fail_code: tapflow_core::codes::Code,
    deadline: Instant,
) -> Result<(), BuildError> {
    let inv = cfg.hvigor_invocation(project)?.args(args);
    let argv = inv.argv();
    let finished = process::run(&inv, deadline).map_err(|e| {
        BuildError::with_details(
            codes::BUILD_ERROR,
            format!("failed to start hvigor ({}): {e}", argv[0]),
            json!({"step": step, "command": argv}),
        )
    })?;
    classify(argv, finished, step, fail_code, cfg)
}

fn classify(
    argv: Vec<String>,
    f: Finished,
    step: &str,
    fail_code: tapflow_core::codes::Code,
    cfg: &BuildConfig,
) -> Result<(), BuildError> {
    let output = f.combined();
    let report = hvigor_output::parse(&output);
    if f.timed_out() {
        return Err(BuildError::with_details(
            codes::BUILD_TIMEOUT,
            format!(
                "hvigor {step} did not finish within the {} s budget and was killed; cold builds often need 120 s or more",
                cfg.timeout.as_secs_f64()
            ),
            json!({"step": step, "command": argv, "timeout_s": cfg.timeout.as_secs_f64(), "output_tail": tail(&output)}),
        ));
    }
    let exit_code = f.status.and_then(|s| s.code());
    let failed = report.verdict == Verdict::Failed || !f.success();
    if !failed {
        return Ok(());
    }
    let reason = match (report.verdict, report.compile) {
        (_, Some(c)) if !c.passed => format!(
            "COMPILE RESULT:FAIL with {} errors and {} warnings",
            c.errors, c.warnings
        ),
        (Verdict::Failed, _) => "hvigor reported BUILD FAILED".to_string(),
        _ => format!(
            "hvigor exited with status {}",
            exit_code.map_or("unknown".to_string(), |c| c.to_string())
        ),
    };
    let first = report
        .errors
        .first()
        .map(|e| format!("; first error: {}", describe(e)))
        .unwrap_or_default();
    Err(failure(
        fail_code,
        format!("{step} failed: {reason}{first}"),
        &report,
        &output,
        step,
        &argv,
        exit_code,
    ))
}

fn failure(
    code: tapflow_core::codes::Code,
    message: String,
    report: &HvigorReport,
    output: &str,
    step: &str,
    argv: &[String],
    exit_code: Option<i32>,
) -> BuildError {
    BuildError::with_details(
        code,
        message,
        json!({
            "step": step,
            "command": argv,
            "exit_code": exit_code,
            "errors": report.errors.iter().take(MAX_ERRORS).collect::<Vec<_>>(),
            "error_count": report.errors.len(),
            "compile_result": report.compile.map(|c| json!({"passed": c.passed, "errors": c.errors, "warnings": c.warnings})),
            "output_tail": tail(output),
        }),
    )
}

fn describe(e: &CompileError) -> String {
    match (&e.file, e.line, e.column) {
        (Some(f), Some(l), Some(c)) => format!("{} ({f}:{l}:{c})", e.message),
        (Some(f), _, _) => format!("{} ({f})", e.message),
        _ => e.message.clone(),
    }
}

/// The last lines of an output, for error details.
pub fn tail(output: &str) -> String {
    let lines: Vec<&str> = output.lines().collect();
    lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n")
}
