//! Infrastructure faults are not app failures (issue 9, item 6), end to end through the binary:
//! hdc's transient `[Fail][E000004]` at 5 % and 30 % over the example flows on three simulated
//! devices, and the hdc server (a `tapflow sim start` daemon, driven through its `hdc`
//! executable) killed in the middle of a run. Wall-time bounds are hang guards only.

use crate::common::cli;
use crate::common::sim_daemon;

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use sim_daemon::SimDaemon;

/// Error codes that blame the infrastructure, not the app (`docs/run.md`, exit code 4).
const INFRA: &[&str] = &[
    "DEVICE_NOT_FOUND",
    "DEVICE_DISCONNECTED",
    "DEVICE_UNAUTHORIZED",
    "MULTIPLE_DEVICES",
    "HDC_NOT_FOUND",
    "HDC_TIMEOUT",
    "HDC_CHANNEL_NOT_READY",
    "HDC_SERVER_UNREACHABLE",
    "HDC_FAILED",
];

fn flows(r: &Value) -> &Vec<Value> {
    r["flows"].as_array().unwrap()
}

/// The example flows, every one on each of three simulated devices (15 flow runs), with hdc
/// answering `[Fail][E000004]:The communication channel is being established.` to a share
/// `rate` of the device commands.
fn example_flows_with_channel_faults(rate: &str, seed: &str) -> (Output, Value) {
    let dir = tempfile::tempdir().unwrap();
    let out = cli::command(cli::repo())
        .args(["run", "flows/", "--sim", "3", "--each-device"])
        .args(["--sim-latency", "none", "--sim-seed", seed, "--no-progress"])
        .arg("--sim-faults")
        .arg(format!("fail={rate}"))
        .arg("--report-dir")
        .arg(dir.path())
        .output()
        .unwrap();
    let r = cli::result(dir.path());
    (out, r)
}

/// Seen: at a 5 % rate, 10 of 15 flows failed with the operations' codes (`STOP_APP_FAILED`, …)
/// and exit 1: CI blamed the app. The backend resends what hdc never delivered: all pass.
#[test]
fn at_5_percent_every_example_flow_passes() {
    let (out, r) = example_flows_with_channel_faults("0.05", "1");
    let all = cli::text(&out);
    assert_eq!(flows(&r).len(), 15, "{all}");
    for f in flows(&r) {
        assert_eq!(f["status"], "passed", "{f:#}\n{all}");
    }
    assert_eq!(out.status.code(), Some(0), "{all}");
}

/// At 30 % a command can still be refused five times in a row: such a flow fails, as the
/// infrastructure's (exit 4), never with an app code and never with exit 1.
#[test]
fn at_30_percent_nothing_is_blamed_on_the_app() {
    for seed in ["1", "2"] {
        let (out, r) = example_flows_with_channel_faults("0.3", seed);
        let all = cli::text(&out);
        assert_eq!(flows(&r).len(), 15, "{all}");
        for f in flows(&r) {
            match f["status"].as_str().unwrap() {
                "passed" => {}
                "failed" => {
                    let code = f["error"]["code"].as_str().unwrap();
                    assert!(INFRA.contains(&code), "seed {seed}: {code}: {f:#}");
                }
                "not_run" => assert!(f["reason"].is_string(), "{f:#}"),
                other => panic!("seed {seed}: {other}: {f:#}"),
            }
        }
        let code = out.status.code();
        assert!(
            matches!(code, Some(0) | Some(4)),
            "seed {seed}: {code:?}\n{all}"
        );
    }
}

/// A background simulator (`tapflow sim start`): its daemon is the hdc server the `hdc`
/// executable talks to.
struct Daemon(SimDaemon);

impl Daemon {
    fn start() -> Daemon {
        Daemon(SimDaemon::start_with(
            || cli::command(cli::repo()),
            &["--devices", "1"],
        ))
    }

    fn hdc(&self) -> PathBuf {
        self.0.hdc.clone()
    }

    fn serial(&self) -> String {
        let out = Command::new(self.hdc())
            .args(["list", "targets"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    /// Kills the daemon outright (SIGKILL, by the pid it wrote).
    fn kill(&self) {
        let pid = std::fs::read_to_string(self.0.dir.path().join("daemon.pid")).unwrap();
        let status = Command::new("kill")
            .args(["-9", pid.trim()])
            .status()
            .unwrap();
        assert!(status.success());
    }
}

/// The hdc server dies between the first flow and the last: the flow in progress fails as the
/// infrastructure's, the device's remaining flows are `not_run` with the reason, exit 4.
/// Seen before: the dead server's words were parsed as the device's answers (app codes, exit 1).
#[test]
fn the_hdc_server_dying_mid_run_leaves_the_remaining_flows_not_run() {
    let sim = Daemon::start();
    let serial = sim.serial();
    assert!(!serial.is_empty());
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for i in 1..=4 {
        let p = dir.path().join(format!("loop_{i}.yaml"));
        std::fs::write(
            &p,
            format!(
                "name: Loop {i}\napp: com.tapflow.demo\nsteps:\n  - run_app: com.tapflow.demo\n  - repeat:\n      times: 150\n      steps:\n        - find_elements: {{element_id: login}}\n"
            ),
        )
        .unwrap();
        files.push(p);
    }
    let report = dir.path().join("report");
    let mut child = cli::command(cli::repo())
        .arg("--hdc")
        .arg(sim.hdc())
        .arg("run")
        .args(&files)
        .args(["--device", &serial, "--no-progress", "--report-dir"])
        .arg(&report)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Kill the server once the first flow has passed (result.json is rewritten after every flow).
    let guard = Instant::now() + Duration::from_secs(120);
    loop {
        let first = std::fs::read_to_string(report.join("result.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .map(|r| {
                flows(&r)
                    .iter()
                    .any(|f| f["id"] == "loop_1" && f["status"] == "passed")
            });
        if first == Some(true) {
            break;
        }
        assert!(Instant::now() < guard, "the first flow never passed");
        if child.try_wait().unwrap().is_some() {
            let out = child.wait_with_output().unwrap();
            panic!("the run ended early: {}", cli::text(&out));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    sim.kill();
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > guard {
            let _ = child.kill();
            panic!("the run hung after its hdc server died");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let all = cli::text(&out);
    let r = cli::result(&report);
    let fs = flows(&r);
    assert_eq!(fs.len(), 4, "{all}");
    assert_eq!(fs[0]["status"], "passed", "{all}");
    // The flow running when the server died fails as the infrastructure's…
    assert_eq!(fs[1]["status"], "failed", "{:#}", fs[1]);
    let code = fs[1]["error"]["code"].as_str().unwrap();
    assert!(INFRA.contains(&code), "{code}: {:#}", fs[1]);
    // …and the device's remaining flows are not run, saying why.
    for f in &fs[2..] {
        assert_eq!(f["status"], "not_run", "{f:#}");
        let why = f["reason"].as_str().unwrap();
        assert!(why.contains(&serial), "{why}");
        assert!(
            why.contains("HDC_SERVER_UNREACHABLE") || why.contains("Connect server failed"),
            "{why}"
        );
    }
    assert_eq!(out.status.code(), Some(4), "{all}");
}
