//! The `tapflow` binary as a test runs it: a scratch `HOME`, no inherited device selection or
//! adb server, the real adb for Android runs, and the run's `result.json` read back. Include it
//! with `#[path = "common/cli.rs"] mod cli;` (it needs `common/adb_env.rs` as `adb_env`).

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

use assert_cmd::cargo::CommandCargoExt;

/// The binary under test (`TAPFLOW_TEST_BIN` overrides cargo's), run from `cwd`.
pub fn tapflow(home: &Path, cwd: &Path) -> Command {
    let mut c = match std::env::var_os("TAPFLOW_TEST_BIN") {
        Some(p) => Command::new(p),
        None => Command::cargo_bin("tapflow").unwrap(),
    };
    c.current_dir(cwd)
        .env("HOME", home)
        .env("ADB_EMU", "0")
        .env("TAPFLOW_ADB", super::adb_env::adb_path())
        .env_remove("ANDROID_SERIAL")
        .env_remove("ADB_SERVER_SOCKET")
        .env_remove("ANDROID_ADB_SERVER_PORT")
        .env_remove("INPUT_VERIFY_TIMEOUT_MS")
        .env_remove("INPUT_FOCUS_TIMEOUT_MS")
        .env_remove("TAPFLOW_USER");
    c
}

/// Standard output, then standard error.
pub fn text(out: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The `result.json` of a run directory.
pub fn result(dir: &Path) -> serde_json::Value {
    let path = dir.join("result.json");
    let body = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&body).unwrap()
}

/// The steps of a result, depth first (sub-flows' and blocks' children included).
pub fn steps(flow: &serde_json::Value) -> Vec<serde_json::Value> {
    fn walk(s: &serde_json::Value, out: &mut Vec<serde_json::Value>) {
        for x in s.as_array().into_iter().flatten() {
            out.push(x.clone());
            walk(&x["children"], out);
        }
    }
    let mut out = Vec::new();
    walk(&flow["steps"], &mut out);
    out
}
