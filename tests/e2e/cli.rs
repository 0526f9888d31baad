//! The CLI end to end: `tapflow devices [--json]` against the simulator's `hdc` executable
//! (flag, `TAPFLOW_HDC`, `HARMONYOS_HDC_SERVER`, a missing hdc), and `tapflow sim demo` with
//! its default (realistic) latency, as the README runs it.

use crate::common::cli;
use crate::common::sim_daemon;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sim_daemon::SimDaemon;

fn hdc_only() -> Command {
    let mut c = cli::tapflow();
    // The environment must not leak into what is being tested.
    c.env_remove("TAPFLOW_HDC")
        .env_remove("HARMONYOS_HDC_SERVER")
        // HarmonyOS only: no adb (it would list Android devices next to hdc's and start the
        // default adb server; tests/android/cli.rs covers both platforms together).
        .env("TAPFLOW_ADB", "/nonexistent/adb");
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `tapflow --hdc <the daemon's hdc> ARGS…` (ARGS start with `devices`).
fn devices(sim: &SimDaemon, args: &[&str]) -> Output {
    hdc_only()
        .arg("--hdc")
        .arg(&sim.hdc)
        .args(args)
        .output()
        .unwrap()
}

fn ok(out: Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {}\nstderr: {}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

#[test]
fn devices_lists_every_simulated_device_with_its_facts() {
    let sim = SimDaemon::start_with(hdc_only, &["--devices", "2", "--emulator", "--seed", "4"]);
    let json = ok(devices(&sim, &["devices", "--json"]));
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2, "{json}");
    let usb = &rows[0];
    assert_eq!(usb["state"], "Connected");
    assert_eq!(usb["connection"], "USB");
    assert_eq!(usb["model"], "ALN-AL00");
    assert!(usb["api_level"].as_u64().is_some(), "{json}");
    assert_eq!(usb["screen"]["width"], 1260);
    assert_eq!(usb["screen"]["height"], 2720);
    assert!(usb["error"].is_null());
    let emu = &rows[1];
    assert_eq!(emu["serial"], "127.0.0.1:5555");
    assert_eq!(emu["connection"], "TCP");
    assert_eq!(emu["model"], "BRA-AL00");
    assert_eq!(emu["screen"]["width"], 1216);

    // The table, with hdc given through TAPFLOW_HDC and the server through the environment.
    let table = ok(hdc_only()
        .env("TAPFLOW_HDC", &sim.hdc)
        .env("HARMONYOS_HDC_SERVER", "127.0.0.1:8710")
        .arg("devices")
        .output()
        .unwrap());
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 3, "{table}");
    assert!(lines[0].starts_with("SERIAL"), "{table}");
    assert!(
        lines[1].contains("Connected") && lines[1].contains("1260x2720"),
        "{table}"
    );
    assert!(lines[2].starts_with("127.0.0.1:5555"), "{table}");
}

#[test]
fn devices_shows_an_empty_listing_and_infra_failures() {
    let sim = SimDaemon::start_with(hdc_only, &["--devices", "0"]);
    let out = ok(devices(&sim, &["devices", "--json"]));
    assert_eq!(out.trim(), "[]");

    // A server hdc cannot reach: hdc's own words, infrastructure exit code.
    let out = devices(&sim, &["devices", "--hdc-server", "127.0.0.1:9"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("Connect server failed"));

    let out = hdc_only()
        .args(["--hdc", "/nonexistent/dir/hdc", "devices"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let err = text(&out.stderr);
    assert!(
        err.contains("HDC_NOT_FOUND") && err.contains("/nonexistent/dir/hdc"),
        "{err}"
    );
}

fn jpegs(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jpeg"))
        .collect()
}

#[test]
fn sim_demo_runs_the_whole_scenario() {
    let out_dir = tempfile::tempdir().unwrap();
    let stdout = ok(hdc_only()
        .args(["sim", "demo", "--name", "ada", "--out"])
        .arg(out_dir.path())
        .output()
        .unwrap());
    for step in [
        "list devices",
        "device info",
        "launch the demo app",
        "dump the UI",
        "TextInput #username",
        "tap the username field",
        "type the user name",
        "wait for the greeting",
        "\"Hello, ada!\"",
        "screenshot",
        "LOGIN_SUCCESS user=ada",
        "demo passed",
    ] {
        assert!(stdout.contains(step), "missing {step:?} in:\n{stdout}");
    }
    // Every step line reports its round trips and wall time.
    let step_lines = stdout.lines().filter(|l| l.starts_with('[')).count();
    assert_eq!(step_lines, 10, "{stdout}");
    let shots = jpegs(out_dir.path());
    assert_eq!(shots.len(), 1);
    let img = image::open(&shots[0]).unwrap();
    assert_eq!((img.width(), img.height()), (1260, 2720));
}

#[test]
fn devices_keeps_a_device_that_cannot_be_asked_with_the_reason() {
    // Every device command fails transiently: the device is listed, its facts are missing and
    // the row says why (listing itself is host-only and works).
    let sim = SimDaemon::start_with(hdc_only, &["--faults", "fail=1"]);
    let json = ok(devices(&sim, &["devices", "--json"]));
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    let row = &rows[0];
    assert_eq!(row["state"], "Connected", "{json}");
    assert!(row["model"].is_null());
    // hdc never delivered the commands (`[Fail][E000004]`, resent within the backend's budget):
    // the infrastructure's code, not the info query's.
    assert_eq!(row["error"]["code"], "HDC_CHANNEL_NOT_READY", "{json}");
    assert!(
        row["error"]["message"]
            .as_str()
            .unwrap()
            .contains("E000004"),
        "{json}"
    );
}
