//! Issue 19, part 2: a person approves through MCP elicitation, with the official Python SDK
//! (1.26, and 2.3 in both eras) as the real client, against the real `tapflow mcp` process over
//! stdio and streamable HTTP with `--require-approval`, in a directory whose tapflow.toml denies
//! `clear_app_data` for MCP. The agent-side script is tests/mcp/elicit_check.py (decline → APPROVAL_DECLINED,
//! dismiss → APPROVAL_CANCELLED, app still installed; accept → the flow runs, `meta.approval`
//! and the run's result.json record the answer; one question per flow listing its steps). The
//! handshake era asks with `elicitation/create`; the 2026-07-28 era, which forbids
//! server-to-client requests, with an `InputRequiredResult` the SDK answers by retrying.

use crate::common::cli;
use crate::common::mcp_proc::{python, repo, run, start_http};

use std::process::Command;
use std::time::Duration;

use serde_json::Value;

const GUARD: Duration = Duration::from_secs(300);

/// A directory whose tapflow.toml denies `clear_app_data` to MCP callers.
fn project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("tapflow.toml"),
        "[mcp]\ndeny_tools = [\"clear_app_data\"]\n",
    )
    .unwrap();
    tmp
}

/// Over stdio: the script starts the server in the project directory.
fn check(version: &str, mode: &str) -> Value {
    let tmp = project();
    let bin = cli::bin();
    script(
        version,
        &["--stdio", bin.to_str().unwrap(), "--mode", mode],
        &tmp,
    )
}

fn script(version: &str, target: &[&str], tmp: &tempfile::TempDir) -> Value {
    let mode = target.last().copied().unwrap_or_default();
    let (ok, out, err) = run(
        Command::new(python(version))
            .arg(repo().join("tests/mcp/elicit_check.py"))
            .args(target)
            .current_dir(tmp.path()),
        GUARD,
    );
    assert!(ok, "mcp {version} ({mode}) failed:\n{err}\n{out}");
    let facts: Value = serde_json::from_str(out.lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("no facts line from elicit_check.py ({e}):\n{out}\n{err}"));
    eprintln!("mcp {version} ({mode}): {facts}");
    facts
}

#[test]
fn python_sdk_2_3_person_accepts_declines_or_dismisses() {
    let f = check("2.3", "legacy");
    assert_eq!(f["protocol"], "2025-11-25");
    assert_eq!(f["asked"], 3, "decline, dismiss, accept: one question each");
    assert_eq!(f["meta_approval"]["via"], "elicitation");
}

#[test]
fn python_sdk_1_26_person_accepts_declines_or_dismisses() {
    let f = check("1.26", "legacy");
    assert_eq!(f["asked"], 3);
    assert_eq!(f["meta_approval"]["approved_by"], "qa-lead");
}

#[test]
fn python_sdk_2_3_modern_era_asks_through_input_required() {
    let f = check("2.3", "auto");
    assert_eq!(f["protocol"], "2026-07-28");
    assert_eq!(f["asked"], 3, "decline, dismiss, accept: one question each");
    assert_eq!(f["meta_approval"]["via"], "elicitation");
}

#[test]
fn python_sdks_over_http_both_eras() {
    // One server per client: an accepted run uninstalls the app.
    for (version, mode, protocol) in [
        ("1.26", "legacy", "2025-11-25"),
        ("2.3", "legacy", "2025-11-25"),
        ("2.3", "auto", "2026-07-28"),
    ] {
        let tmp = project();
        let server = start_http(
            &["--sim", "1", "--sim-latency", "none", "--require-approval"],
            tmp.path(),
        );
        let f = script(version, &["--url", &server.url, "--mode", mode], &tmp);
        assert_eq!(f["protocol"], protocol, "{version} {mode}");
        assert_eq!(f["asked"], 3, "{version} {mode}");
        assert_eq!(f["meta_approval"]["via"], "elicitation", "{version} {mode}");
    }
}
