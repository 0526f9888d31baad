//! `tapflow run` end to end through the binary, on in-process simulated devices: the demo
//! command passes, exit codes (0 passed, 1 failed, 2 usage, 3 invalid), the summary names a
//! failure's location and evidence, and secrets never appear in output or files.

use crate::common::cli;

use std::path::Path;
use std::process::{Command, Output};

fn in_repo() -> Command {
    let mut c = cli::command(cli::repo());
    c.env_remove("TAPFLOW_USER");
    c
}

/// `tapflow run FLOWS… --sim 1 --sim-latency none EXTRA… --report-dir REPORT`.
fn run(flows: &[&str], extra: &[&str], report: &Path) -> Output {
    cli::run_on_one_sim(in_repo(), flows, extra, report)
}

#[test]
fn the_demo_command_passes() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&["flows/"], &[], dir.path());
    let all = cli::text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("PASSED: 5 passed"), "{all}");
    let r = cli::result(dir.path());
    assert_eq!(r["status"], "passed");
    for f in ["manifest.json", "junit.xml", "report.html"] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
    assert!(
        all.contains("report: "),
        "the summary names the HTML report: {all}"
    );
}

#[test]
fn a_failing_flow_exits_1_and_names_location_and_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let flow = cli::write(
        dir.path(),
        "fails.yaml",
        "name: Fails
app: com.tapflow.demo
clean_state: true
steps:
  - assert_visible: {text: Not on this screen, timeout_ms: 500}
",
    );
    let report = dir.path().join("report");
    let out = run(&[&flow], &[], &report);
    let all = cli::text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains(&format!("{flow}:5:5: WAIT_TIMEOUT")), "{all}");
    assert!(all.contains("screenshot: "), "{all}");
    assert!(report.join("result.json").exists());
}

#[test]
fn invalid_flows_exit_3_and_are_listed_in_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let flow = cli::write(
        dir.path(),
        "bad.yaml",
        "name: Bad\nsteps:\n  - clik: Login\n",
    );
    let out = in_repo()
        .args(["run", &flow, "--sim", "1", "--report-dir"])
        .arg(dir.path().join("r"))
        .output()
        .unwrap();
    let all = cli::text(&out);
    assert_eq!(out.status.code(), Some(3), "{all}");
    assert!(all.contains("did you mean"), "{all}");
    // Listed, not silently dropped (issue 7): the result says `invalid`, with the diagnostic.
    let result = cli::result(&dir.path().join("r"));
    assert_eq!(result["flows"][0]["status"], "invalid", "{result}");
    assert_eq!(result["flows"][0]["error"]["code"], "INVALID_FLOW");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["run", "no/such/dir"],
        vec!["run", "flows/", "--shard", "3/2"],
        vec!["run", "flows/", "--sim", "1", "--sim-faults", "bogus=1"],
        vec!["run", "flows/", "--sim-faults", "fail=0.1"],
    ] {
        let out = in_repo().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", cli::text(&out));
    }
}

#[test]
fn secrets_never_appear_in_output_or_files() {
    let secret = "TopSecret-Value-42";
    let dir = tempfile::tempdir().unwrap();
    let flow = cli::write_secret_flow(
        dir.path(),
        "secret.yaml",
        "Secret",
        "  - input_text: {element_id: username, text: \"{{ PASSWORD }}\"}
  - assert_visible: {text: \"{{ PASSWORD }}\", timeout_ms: 2000}
  - assert_visible: {text: \"not {{ PASSWORD }}\", timeout_ms: 300}
",
    );
    let report = dir.path().join("report");
    let out = run(&[&flow], &["--env", &format!("PASSWORD={secret}")], &report);
    let all = cli::text(&out);
    // The value is typed into a plain text field, so the UI tree shows it: the last step fails
    // on purpose, its evidence (UI tree, hilog) is written, and still the value appears nowhere.
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(!all.contains(secret), "{all}");
    assert!(all.contains("ui_tree: "), "{all}");
    let mut files = 0;
    for e in walkdir::WalkDir::new(&report) {
        let e = e.unwrap();
        if e.file_type().is_file() {
            files += 1;
            let bytes = std::fs::read(e.path()).unwrap();
            assert!(
                !String::from_utf8_lossy(&bytes).contains(secret),
                "{}",
                e.path().display()
            );
        }
    }
    assert!(files >= 2);
}

#[test]
fn ctrl_c_stops_cleanly_runs_finally_and_keeps_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let flow = cli::write(
        dir.path(),
        "long.yaml",
        "name: Long wait
app: com.tapflow.demo
finally:
  - stop_app: com.tapflow.demo
steps:
  - run_app: com.tapflow.demo
  - wait_for_element: {text: Never shown, timeout_ms: 60000}
",
    );
    let report = dir.path().join("report");
    let child = in_repo()
        .args(["run", &flow, "--sim", "1"])
        .args(["--sim-latency", "none", "--report-dir"])
        .arg(&report)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // result.json appears once the devices are checked; then give the flow time to reach its
    // long wait (run_app takes well under a second without simulated latency).
    let started = std::time::Instant::now();
    let result = report.join("result.json");
    while !result.exists() && started.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let all = cli::text(&out);
    assert_eq!(out.status.code(), Some(130), "{all}");
    assert!(started.elapsed() < std::time::Duration::from_secs(40));
    let r = cli::json(&result);
    assert_eq!(r["interrupted"], true);
    assert_eq!(r["complete"], true);
    let f = &r["flows"][0];
    assert_eq!(f["status"], "interrupted", "{all}");
    assert_eq!(f["steps"][0]["status"], "passed");
    assert_eq!(f["steps"][1]["status"], "interrupted");
    assert_eq!(f["finally"][0]["status"], "passed");
    // Every report is written for an interrupted run too.
    for f in ["junit.xml", "report.html", "manifest.json"] {
        assert!(report.join(f).is_file(), "{f}");
    }
    let junit = std::fs::read_to_string(report.join("junit.xml")).unwrap();
    assert!(junit.contains(r#"type="INTERRUPTED""#), "{junit}");
}

#[test]
fn a_device_lost_mid_run_exits_4_and_keeps_the_result() {
    let dir = tempfile::tempdir().unwrap();
    cli::write(
        dir.path(),
        "lost_2.yaml",
        "name: Never reached\nsteps:\n  - find_elements: {element_id: login}\n",
    );
    let flow = cli::write(
        dir.path(),
        "lost.yaml",
        "name: Device goes away
app: com.tapflow.demo
steps:
  - run_app: com.tapflow.demo
  - repeat:
      times: 200
      steps:
        - find_elements: {element_id: login}
",
    );
    let report = dir.path().join("report");
    let out = run(
        &[&flow, &flow.replace("lost.yaml", "lost_2.yaml")],
        &["--sim-faults", "disconnect-after=60"],
        &report,
    );
    let all = cli::text(&out);
    assert_eq!(out.status.code(), Some(4), "{all}");
    let r = cli::result(&report);
    assert_eq!(r["flows"][0]["status"], "failed");
    let code = r["flows"][0]["error"]["code"].as_str().unwrap();
    assert!(
        ["DEVICE_DISCONNECTED", "DEVICE_NOT_FOUND"].contains(&code),
        "{code}"
    );
    // What ran before the loss is kept; the next flow is not run, with the reason.
    assert_eq!(r["flows"][0]["steps"][0]["status"], "passed");
    assert_eq!(r["flows"][1]["status"], "not_run");
    assert!(
        r["flows"][1]["reason"]
            .as_str()
            .unwrap()
            .contains("was lost")
    );
    // The reports are written when a device is lost, the lost flow an error, the next skipped.
    let junit = std::fs::read_to_string(report.join("junit.xml")).unwrap();
    assert!(junit.contains("<error "), "{junit}");
    assert!(
        junit.contains("<skipped message=\"not run: device"),
        "{junit}"
    );
    assert!(report.join("report.html").is_file());
}

#[test]
fn retries_recover_from_sim_faults() {
    let dir = tempfile::tempdir().unwrap();
    let flow = cli::write(
        dir.path(),
        "flaky.yaml",
        "name: Flaky
app: com.tapflow.demo
# Finds dump for themselves (a click may act on the screen the step before brought back, and
# a wait rides out a broken dump by polling): the broken dumps reach these steps.
defaults: {wait: 0}
steps:
  - run_app: com.tapflow.demo
    retries: 6
  - wait_for_element: {element_id: username, timeout_ms: 5000}
    retries: 6
  - find_elements: {element_id: remember}
    expect: {count: 1}
    retries: 6
  - find_elements: {element_id: login}
    expect: {count: 1}
    retries: 6
  - click: {element_id: login}
    retries: 6
",
    );
    let report = dir.path().join("report");
    let out = run(
        &[&flow],
        &[
            "--sim-faults",
            // hdc's `[Fail][E000004]` is resent by the backend itself, an empty dump dumped
            // again; dumps empty five times in a row (0.85^5: 44 %) need the steps' retries.
            "fail=0.25,empty-dump=0.85",
            "--sim-seed",
            "7",
        ],
        &report,
    );
    let all = cli::text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("retry "), "no retry was needed: {all}");
    let r = cli::result(&report);
    let retried = r["flows"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["attempts"].as_array().unwrap().len() > 1)
        .count();
    assert!(retried >= 1);
}
