//! The command line a QA author and a CI job meet first (issue 7), through the binary on
//! in-process simulated devices: a selection that runs nothing fails unless `--allow-empty`;
//! an invalid flow file is listed as `invalid` while the valid flows run (exit 3); duration
//! flags take the flow syntax; a closed pipe ends the process quietly; colour follows
//! `--color` and `NO_COLOR`.

use crate::common::cli;

use std::io::Read;
use std::process::{Command, Stdio};

/// The binary, from the repository root, without this process's `NO_COLOR`.
fn in_repo() -> Command {
    let mut c = cli::command(cli::repo());
    c.env_remove("NO_COLOR");
    c
}

/// Seen 8a: `--include-tags nope` ran nothing and exited 0.
#[test]
fn a_selection_that_runs_nothing_fails_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str], sub: &str| {
        let args = [&["--include-tags", "nope"], extra].concat();
        cli::run_on_one_sim(in_repo(), &["flows/"], &args, &dir.path().join(sub))
    };
    let out = run(&[], "a");
    let all = cli::text(&out);
    assert_eq!(out.status.code(), Some(5), "{all}");
    assert!(all.contains("nothing was run"), "{all}");
    assert!(all.contains("--include-tags nope"), "{all}");
    assert!(all.contains("--allow-empty"), "{all}");
    let out = run(&["--allow-empty"], "b");
    assert_eq!(out.status.code(), Some(0), "{}", cli::text(&out));
}

/// Seen 8b and 8d: one invalid flow file made the run run nothing, silently; `--step-timeout
/// 30s` was refused.
#[test]
fn an_invalid_flow_is_listed_while_the_valid_ones_run_and_durations_take_the_flow_syntax() {
    let dir = tempfile::tempdir().unwrap();
    let flows = dir.path().join("flows");
    std::fs::create_dir(&flows).unwrap();
    cli::write(
        &flows,
        "good.yaml",
        "name: Good\napp: com.tapflow.demo\nclean_state: true\nsteps:\n  - assert_visible: {element_id: username}\n",
    );
    cli::write(&flows, "bad.yaml", "name: Bad\nsteps:\n  - clik: Login\n");
    let out = in_repo()
        .arg("run")
        .arg(&flows)
        .args(["--sim", "1", "--sim-latency", "none"])
        .args(["--step-timeout", "30s", "--flow-timeout", "2m"])
        .arg("--report-dir")
        .arg(dir.path().join("r"))
        .output()
        .unwrap();
    let all = cli::text(&out);
    assert_eq!(out.status.code(), Some(3), "{all}");
    assert!(all.contains("1 flow file(s) invalid"), "{all}");
    let result = cli::result(&dir.path().join("r"));
    let status = |id: &str| {
        result["flows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["id"] == id)
            .map(|f| f["status"].clone())
    };
    assert_eq!(status("good"), Some("passed".into()), "{result}");
    assert_eq!(status("bad"), Some("invalid".into()), "{result}");
    assert_eq!(result["totals"]["invalid"], 1);
    let junit = std::fs::read_to_string(dir.path().join("r/junit.xml")).unwrap();
    assert!(junit.contains("INVALID_FLOW"), "{junit}");
}

/// Seen 9: `tapflow tools --json | head -2` panicked with a broken pipe (exit 101).
#[test]
fn a_closed_pipe_ends_the_process_quietly() {
    let mut child = cli::tapflow()
        .args(["tools", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The reader is gone (dropped): the rest of the output meets a closed pipe.
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(out.status.code(), Some(101), "{err}");
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let dir = tempfile::tempdir().unwrap();
    let bad = cli::write(dir.path(), "bad.yaml", "steps:\n  - clik: Login\n");
    let out = in_repo()
        .args(["validate", &bad, "--color", "always"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("\x1b["));
    for (flag, no_color) in [("never", None), ("auto", Some("1"))] {
        let mut c = in_repo();
        if let Some(v) = no_color {
            c.env("NO_COLOR", v);
        }
        let out = c
            .args(["validate", &bad, "--color", flag])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("unknown step"), "{err}");
        assert!(!err.contains("\x1b["), "{flag}: {err}");
    }
}

/// Seen 7: `screenshot: x.png` wrote into the current directory, outside the run, and was not
/// in `manifest.json`.
#[test]
fn a_relative_screenshot_lands_in_the_run_and_its_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let flow = cli::write(
        dir.path(),
        "shot.yaml",
        "name: Shot\napp: com.tapflow.demo\nclean_state: true\nsteps:\n  - screenshot: shots/login.png\n",
    );
    let run = dir.path().join("r");
    let mut c = in_repo();
    c.current_dir(dir.path());
    let out = cli::run_on_one_sim(c, &[&flow], &[], &run);
    assert_eq!(out.status.code(), Some(0), "{}", cli::text(&out));
    assert!(
        !dir.path().join("shots").exists(),
        "written outside the run"
    );
    let manifest = cli::json(&run.join("manifest.json"));
    let entry = manifest["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| {
            a["path"]
                .as_str()
                .unwrap()
                .ends_with("/shot/shots/login.png")
        })
        .unwrap_or_else(|| panic!("not in the manifest: {manifest}"));
    let path = entry["path"].as_str().unwrap();
    assert!(path.starts_with("artifacts/"), "{path}");
    let png = std::fs::read(run.join(path)).unwrap();
    assert!(png.starts_with(b"\x89PNG"));
    assert_eq!(entry["bytes"].as_u64().unwrap(), png.len() as u64);
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(html.contains("login.png"), "the report shows it");
}

/// Issue 7, item 9: `tapflow devices` takes `--device` as `tool` and `run` do: one device, or
/// exit 4 naming the devices that are listed.
#[test]
fn devices_takes_device_as_the_other_commands_do() {
    let all = in_repo()
        .args(["devices", "--sim", "2", "--json"])
        .output()
        .unwrap();
    assert_eq!(all.status.code(), Some(0), "{}", cli::text(&all));
    let rows: serde_json::Value = serde_json::from_slice(&all.stdout).unwrap();
    let serials: Vec<String> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["serial"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(serials.len(), 2, "{rows}");
    let one = in_repo()
        .args(["devices", "--sim", "2", "--json", "--device", &serials[1]])
        .output()
        .unwrap();
    assert_eq!(one.status.code(), Some(0), "{}", cli::text(&one));
    let rows: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1, "{rows}");
    assert_eq!(rows[0]["serial"], serials[1].as_str());
    let none = in_repo()
        .args(["devices", "--sim", "2", "--device", "NOPE"])
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(4), "{}", cli::text(&none));
    let err = String::from_utf8_lossy(&none.stderr);
    assert!(
        err.contains("DEVICE_NOT_FOUND") && err.contains(&serials[0]),
        "{err}"
    );
}
