//! A bare `input_text` into a password field over MCP, with the official Python SDK (1.26)
//! over stdio on both simulated platforms (tests/mcp/password_check.py): the login the issue's
//! reporter could not do. The mask of the typed length succeeds with `verified: false,
//! length_verified: true`; a mask of another length (characters lost, injected with
//! `drop-first-chars`) stays `TEXT_NOT_READABLE`; the password is echoed in neither case.

use crate::common::adb_env;
use crate::common::mcp_proc;

use std::process::Command;
use std::time::Duration;

use mcp_proc::{python, repo, run};

/// Typed through a paste route on HarmonyOS (not ASCII digits only).
const SECRET: &str = "hunter2-Secret";
/// Digits are typed key by key on both platforms, so `drop-first-chars` can lose them.
const DIGITS: &str = "73194628";

fn check(platform: &str, faults: Option<&str>) {
    let secret = if faults.is_some() { DIGITS } else { SECRET };
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(python("1.26"));
    cmd.arg(repo().join("tests/mcp/password_check.py"))
        .arg(crate::common::cli::bin())
        .arg(secret)
        .args(["--platform", platform])
        .args(faults.map(|f| ["--faults", f]).into_iter().flatten())
        .current_dir(tmp.path())
        .env("HOME", tmp.path())
        .env("TAPFLOW_ADB", adb_env::adb_path())
        .env("INPUT_VERIFY_TIMEOUT_MS", "1500")
        .env_remove("ANDROID_SERIAL")
        .env_remove("ADB_SERVER_SOCKET")
        .env_remove("ANDROID_ADB_SERVER_PORT");
    let (ok, out, err) = run(&mut cmd, Duration::from_secs(300));
    assert!(
        ok,
        "password_check {platform} {faults:?} failed:\n{err}\n{out}"
    );
    eprintln!("{}", out.lines().last().unwrap_or(""));
}

#[test]
fn bare_input_text_into_password_fields_succeeds_on_length_over_mcp_on_harmonyos() {
    check("harmonyos", None);
}

#[test]
fn bare_input_text_into_password_fields_succeeds_on_length_over_mcp_on_android() {
    check("android", None);
}

#[test]
fn bare_input_text_into_password_fields_of_another_length_fails_without_echo_over_mcp() {
    check("harmonyos", Some("drop-first-chars=2"));
    check("android", Some("drop-first-chars=2"));
}
