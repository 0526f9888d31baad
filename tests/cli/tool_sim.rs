//! `tapflow tool NAME JSON` against the simulated device through its `hdc` executable: the CLI
//! builds the real hdc backend over a real process, exactly as it would for a phone. And
//! `tapflow tool --sim 1` on an in-process device of either platform (Android through the real
//! adb on a private server), with faults.

use crate::common::adb_env;
use crate::common::cli;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

struct Sim {
    dir: tempfile::TempDir,
    hdc: PathBuf,
}

impl Sim {
    fn start() -> Sim {
        let dir = tempfile::tempdir().unwrap();
        let ok = hdc_only(
            &["sim", "start", "--latency", "none", "--state-dir"],
            Some(dir.path()),
        )
        .status()
        .unwrap()
        .success();
        assert!(ok, "sim start failed");
        let out = hdc_only(&["sim", "hdc-path", "--state-dir"], Some(dir.path()))
            .output()
            .unwrap();
        let hdc = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
        Sim { dir, hdc }
    }

    fn tool(&self, name: &str, args: &str) -> (bool, Value) {
        let out = hdc_only(&[], None)
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
        let _ = hdc_only(&["sim", "stop", "--state-dir"], Some(self.dir.path())).status();
    }
}

fn hdc_only(args: &[&str], dir: Option<&Path>) -> Command {
    let mut c = cli::tapflow();
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
    let out = hdc_only(
        &["--hdc", "/nonexistent/hdc", "tool", "list_devices", "{}"],
        None,
    )
    .output()
    .unwrap();
    assert!(!out.status.success());
    let env: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(env["structuredContent"]["error"]["code"], "HDC_NOT_FOUND");
}

/// One call on `--sim 1` (`extra`: more flags), its envelope and exit code.
fn sim_call(extra: &[&str], env: &[(&str, &str)], name: &str, args: &str) -> (Option<i32>, Value) {
    let home = tempfile::tempdir().unwrap();
    let mut c = cli::android(home.path(), cli::repo(), &adb_env::adb_path());
    c.envs(env.iter().copied())
        .args(["tool", "--sim", "1"])
        .args(extra)
        .args([name, args]);
    let out = c.output().unwrap();
    let v =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", cli::text(&out)));
    (out.status.code(), v)
}

#[test]
fn tool_sim_runs_on_a_simulated_android_device_too() {
    let (code, v) = sim_call(
        &["--platform", "android"],
        &[],
        "input_text",
        r#"{"element_id": "username", "text": "Zoë 名前"}"#,
    );
    let s = &v["structuredContent"];
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(s["result"]["verified"], true, "{v:#}");
    assert_eq!(s["result"]["input_strategy"], "ime_commit");
    assert_eq!(s["meta"]["platform"], "android");
    // `--platform` and `--sim-faults` describe simulated devices only.
    let home = tempfile::tempdir().unwrap();
    let out = cli::android(home.path(), cli::repo(), &adb_env::adb_path())
        .args(["tool", "--platform", "android", "click", "{}"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", cli::text(&out));
}

/// With faults, a bare call keeps the reference's contract: keys lost by direct entry are
/// reported as they are seen, after the whole verification deadline, and never typed again.
#[test]
fn tool_sim_takes_faults_and_keeps_the_contract() {
    let (code, v) = sim_call(
        &["--sim-faults", "drop-first-chars=2"],
        &[("INPUT_VERIFY_TIMEOUT_MS", "1500")],
        "input_text",
        r#"{"element_id": "username", "text": "1234"}"#,
    );
    let e = &v["structuredContent"]["error"];
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(e["code"], "TEXT_VERIFICATION_TIMEOUT", "{v:#}");
    assert_eq!(e["details"]["actual_text"], "34");
    assert!(e["details"].get("retyped").is_none(), "{v:#}");
    assert!(e["details"].get("settled_ms").is_none(), "{v:#}");
}
