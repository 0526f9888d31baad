//! `tapflow tool NAME JSON` against the simulated device through its `hdc` executable: the CLI
//! builds the real hdc backend over a real process, exactly as it would for a phone.

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use serde_json::Value;

struct Sim {
    dir: tempfile::TempDir,
    hdc: PathBuf,
}

impl Sim {
    fn start() -> Sim {
        let dir = tempfile::tempdir().unwrap();
        let ok = tapflow(
            &["sim", "start", "--latency", "none", "--state-dir"],
            Some(dir.path()),
        )
        .status()
        .unwrap()
        .success();
        assert!(ok, "sim start failed");
        let out = tapflow(&["sim", "hdc-path", "--state-dir"], Some(dir.path()))
            .output()
            .unwrap();
        let hdc = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
        Sim { dir, hdc }
    }

    fn tool(&self, name: &str, args: &str) -> (bool, Value) {
        let out = tapflow(&[], None)
            .arg("--hdc")
            .arg(&self.hdc)
            .args(["tool", name, args])
            .output()
            .unwrap();
        let envelope: Value = serde_json::from_slice(&out.stdout).expect("envelope JSON");
        (out.status.success(), envelope)
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        let _ = tapflow(&["sim", "stop", "--state-dir"], Some(self.dir.path())).status();
    }
}

fn tapflow(args: &[&str], dir: Option<&Path>) -> Command {
    let mut c = Command::cargo_bin("tapflow").unwrap();
    // HarmonyOS only: no adb (it would add Android devices and start the default adb server).
    c.env("TAPFLOW_ADB", "/nonexistent/adb");
    c.args(args);
    if let Some(d) = dir {
        c.arg(d);
    }
    c
}

#[test]
fn tools_drive_the_simulator_through_the_cli() {
    let sim = Sim::start();
    let (ok, env) = sim.tool("list_devices", "{}");
    assert!(ok, "{env}");
    assert_eq!(env["structuredContent"]["result"]["count"], 1);

    let (ok, env) = sim.tool("run_app", r#"{"bundle_name":"com.tapflow.demo"}"#);
    assert!(ok, "{env}");
    assert_eq!(env["structuredContent"]["result"]["window_found"], true);

    let (ok, env) = sim.tool("click", r#"{"element_id":"login","include_cost":true}"#);
    assert!(ok, "{env}");
    let cost = &env["structuredContent"]["result"]["cost"];
    assert_eq!(cost["ui_dumps"], 1, "{env}");
    // 1 dump + 1 tap, plus what this fresh process spends resolving the device over both
    // platforms: `hdc list targets` and `adb devices -l` (an attempt, adb is absent here) to
    // find which backend lists it; the hdc backend takes that listing instead of listing again
    // (`DeviceProvider::resolve_listed`; a flow run or an MCP session resolves once for all).
    assert_eq!(cost["device_round_trips"], 4, "{env}");

    // Empty username: the demo app says so; wait_for_element sees it.
    let (ok, env) = sim.tool(
        "wait_for_element",
        r#"{"element_id":"error","timeout_ms":3000}"#,
    );
    assert!(ok, "{env}");

    // A failing call exits non-zero with the contract's code.
    let (ok, env) = sim.tool("click", r#"{"text":"No such button"}"#);
    assert!(!ok);
    assert_eq!(env["isError"], true);
    assert_eq!(
        env["structuredContent"]["error"]["code"],
        "ELEMENT_NOT_FOUND"
    );
}

#[test]
fn without_hdc_the_error_says_what_to_do() {
    let out = tapflow(
        &["--hdc", "/nonexistent/hdc", "tool", "list_devices", "{}"],
        None,
    )
    .output()
    .unwrap();
    assert!(!out.status.success());
    let env: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(env["structuredContent"]["error"]["code"], "HDC_NOT_FOUND");
}
