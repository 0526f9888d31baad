//! Cancellation per the MCP spec (2025-06-18 `notifications/cancelled`), with the official
//! Python SDK (PyPI `mcp` 1.26) over stdio and the simulated device at realistic latency, so a
//! UI dump is in flight when each cancel lands. The client side is tests/mcp/cancel_check.py:
//! 20 cancelled `wait_for_element` calls (an element that never appears) per platform, each
//! followed at once by a call on the same device; it fails on a response to a cancelled
//! request, on progress for a cancelled token after the server read the cancel, or on a next
//! call that does not succeed. The lane latency (`meta.lane.waited_ms` of the next call) is
//! printed and recorded in docs/benchmarks.md, never asserted. On Android, a 60 s slow dump
//! shows that the abandoned `adb` child process is killed, not left running, and that a call
//! whose dump runs on its own thread (`get_ui_tree`) no longer holds the device, nor sends its
//! heartbeat, after the cancel.

use crate::common::adb_env;
use crate::common::mcp_proc;

use std::process::Command;
use std::time::Duration;

use mcp_proc::{python, repo, run};
use serde_json::Value;

const GUARD: Duration = Duration::from_secs(600);

fn check(platform: &str, extra: &[&str]) -> Value {
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(python("1.26"));
    cmd.arg(repo().join("tests/mcp/cancel_check.py"))
        .arg(crate::common::cli::bin())
        .args(["--platform", platform])
        .args(extra)
        .current_dir(tmp.path())
        // Android: the real adb, its keys in a scratch home, no inherited server choice.
        .env("HOME", tmp.path())
        .env("TAPFLOW_ADB", adb_env::adb_path())
        .env_remove("ANDROID_SERIAL")
        .env_remove("ADB_SERVER_SOCKET")
        .env_remove("ANDROID_ADB_SERVER_PORT");
    let (ok, out, err) = run(&mut cmd, GUARD);
    assert!(
        ok,
        "cancel_check {platform} {extra:?} failed:\n{err}\n{out}"
    );
    let facts: Value = serde_json::from_str(out.lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("no facts line from cancel_check.py ({e}):\n{out}\n{err}"));
    eprintln!("cancel_check {platform} {extra:?}: {facts}");
    facts
}

#[test]
fn twenty_cancelled_waits_on_harmonyos_get_no_answer_no_late_progress_and_free_the_device() {
    let f = check("harmonyos", &["--runs", "20"]);
    assert_eq!(f["lane_waited_ms"]["all"].as_array().unwrap().len(), 20);
}

#[test]
fn twenty_cancelled_waits_on_android_get_no_answer_no_late_progress_and_free_the_device() {
    let f = check("android", &["--runs", "20"]);
    assert_eq!(f["lane_waited_ms"]["all"].as_array().unwrap().len(), 20);
}

/// Two `wait_for_element` and two `get_ui_tree` calls, each cancelled while its 60 s dump runs.
#[test]
fn a_cancelled_call_kills_the_adb_child_of_its_dump_in_flight() {
    let f = check("android", &["--runs", "4", "--slow"]);
    assert_eq!(
        f["dump_process_gone_after_cancel_ms"]["all"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
}
