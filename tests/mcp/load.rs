//! A bounded loopback load test of `tapflow mcp --http`: 8 clients (the official Python SDK,
//! mcp 2.3) × 100 calls across 4 simulated devices — 0 errors, per-device order preserved, one
//! call at a time per device; p50/p99 latency printed (measured, never asserted). The checks
//! are in tests/mcp/load_check.py.

use crate::common::mcp_proc;

use std::process::Command;
use std::time::Duration;

use mcp_proc::{python, repo, run, start_http};

#[test]
fn eight_clients_times_a_hundred_calls_across_four_devices() {
    let tmp = tempfile::tempdir().unwrap();
    // Every tool: the mix reads windows too (`list_windows` is beyond the core profile).
    let server = start_http(
        &["--sim", "4", "--sim-latency", "none", "--tools", "all"],
        tmp.path(),
    );
    let (ok, out, err) = run(
        Command::new(python("2.3"))
            .arg(repo().join("tests/mcp/load_check.py"))
            .args([server.url.as_str(), "8", "100"])
            .current_dir(tmp.path()),
        Duration::from_secs(900),
    );
    assert!(ok, "load test failed:\n{err}\n{out}");
    let facts: serde_json::Value =
        serde_json::from_str(out.lines().last().unwrap_or("")).expect("a facts line");
    eprintln!("MCP load (debug build, Python SDK client): {facts}");
    assert_eq!(facts["calls"], 800);
    assert_eq!(facts["errors"], 0);
    assert_eq!(facts["devices"], 4);
}
