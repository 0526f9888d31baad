//! The official Python MCP SDK against `tapflow mcp`: PyPI `mcp` 1.26 (handshake era) and 2.3
//! (both eras), over stdio and streamable HTTP, on the simulated device. The agent-side script
//! is tests/mcp/client_check.py: list tools, run_app, find_elements, click, input_text
//! (verified), wait_for_element with progress, screenshot, logs_query markers, every
//! structuredContent validated against its tool's outputSchema, cancellation of a long
//! wait_for_element, tool vs protocol errors. The venvs come from
//! scripts/test-deps.d/30-mcp-python.sh; a missing one fails the test and names the script.

use crate::common::cli;
use crate::common::mcp_proc;

use std::process::Command;
use std::time::Duration;

use mcp_proc::{python, repo, run, start_http};
use serde_json::Value;

const GUARD: Duration = Duration::from_secs(300);

fn check(version: &str, target: &[&str]) -> Value {
    let script = repo().join("tests/mcp/client_check.py");
    let tmp = tempfile::tempdir().unwrap();
    let (ok, out, err) = run(
        Command::new(python(version))
            .arg(&script)
            .args(target)
            .current_dir(tmp.path()),
        GUARD,
    );
    assert!(ok, "mcp {version} {target:?} failed:\n{err}\n{out}");
    let facts: Value = serde_json::from_str(out.lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("no facts line from client_check.py ({e}):\n{out}\n{err}"));
    eprintln!("mcp {version} {target:?}: {facts}");
    facts
}

#[test]
fn python_sdk_1_26_over_stdio() {
    let bin = cli::bin();
    let f = check("1.26", &["--stdio", bin.to_str().unwrap()]);
    assert_eq!(f["protocol"], "2025-11-25");
}

#[test]
fn python_sdk_2_3_over_stdio_modern_era() {
    let bin = cli::bin();
    let f = check("2.3", &["--stdio", bin.to_str().unwrap()]);
    assert_eq!(f["protocol"], "2026-07-28");
}

#[test]
fn python_sdk_2_3_over_stdio_legacy_era() {
    let bin = cli::bin();
    let f = check(
        "2.3",
        &["--stdio", bin.to_str().unwrap(), "--mode", "legacy"],
    );
    assert_eq!(f["protocol"], "2025-11-25");
}

#[test]
fn python_sdks_over_http_both_eras() {
    let tmp = tempfile::tempdir().unwrap();
    let server = start_http(&["--sim", "1", "--sim-latency", "none"], tmp.path());
    let url = server.url.clone();
    let f = check("1.26", &["--url", &url]);
    assert_eq!(f["protocol"], "2025-11-25");
    let f = check("2.3", &["--url", &url]);
    assert_eq!(f["protocol"], "2026-07-28");
    let f = check("2.3", &["--url", &url, "--mode", "legacy"]);
    assert_eq!(f["protocol"], "2025-11-25");
}
