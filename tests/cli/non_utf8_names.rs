//! Issue 18, seen 3: a flow file whose name is not valid UTF-8 (Linux allows any bytes but `/`
//! and NUL) was reported as "no such file". With a real file named `caf\xe9.yaml` (Latin-1),
//! `validate`, `plan` and `run` now say what is wrong and what to do; `run` still runs the
//! other flows, lists the file as `invalid` in the result and writes its reports.

#![cfg(unix)]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::common::cli;

const MESSAGE: &str =
    "flow file name is not valid UTF-8: flows/caf\u{FFFD}.yaml (tapflow needs UTF-8 paths)";

fn tree() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let flows = dir.path().join("flows");
    std::fs::create_dir_all(&flows).unwrap();
    let bad = flows.join(OsStr::from_bytes(b"caf\xe9.yaml"));
    std::fs::write(&bad, "name: Latin-1 name\nsteps:\n  - press_key: Home\n").unwrap();
    std::fs::write(
        flows.join("ok.yaml"),
        "name: Ok\nsteps:\n  - press_key: Home\n",
    )
    .unwrap();
    (dir, bad)
}

fn tapflow(dir: &Path, args: &[&OsStr]) -> std::process::Output {
    let mut c = cli::command(dir);
    cli::without_tapflow_vars(&mut c);
    c.env("HOME", dir.join("home"))
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn a_flow_file_name_that_is_not_utf8_is_named_as_such() {
    let (dir, bad) = tree();
    let rel = bad.strip_prefix(dir.path()).unwrap().as_os_str();
    for cmd in ["validate", "plan"] {
        let out = tapflow(dir.path(), &[OsStr::new(cmd), rel]);
        let text = cli::text(&out);
        assert_eq!(out.status.code(), Some(3), "{cmd}: {text}");
        assert!(text.contains(MESSAGE), "{cmd}: {text}");
        assert!(text.contains("rename the file"), "{cmd}: {text}");
        assert!(!text.contains("no such file"), "{cmd}: {text}");
    }
    // Missing, it is still missing, with the reason it may look odd.
    let out = tapflow(
        dir.path(),
        &[OsStr::new("validate"), OsStr::from_bytes(b"gone\xff.yaml")],
    );
    assert_eq!(out.status.code(), Some(2), "{}", cli::text(&out));
    assert!(
        cli::text(&out).contains("not valid UTF-8"),
        "{}",
        cli::text(&out)
    );
}

#[test]
fn a_run_lists_it_as_invalid_and_runs_the_rest() {
    let (dir, _) = tree();
    let run_dir = dir.path().join("run");
    let out = tapflow(
        dir.path(),
        &[
            "run",
            "flows",
            "--sim",
            "1",
            "--sim-latency",
            "none",
            "--no-progress",
            "--report-dir",
        ]
        .map(OsStr::new)
        .into_iter()
        .chain([run_dir.as_os_str()])
        .collect::<Vec<_>>(),
    );
    let text = cli::text(&out);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(text.contains(MESSAGE), "{text}");
    let result = cli::json(&run_dir.join("result.json"));
    let flows = result["flows"].as_array().unwrap();
    let status = |file: &str| {
        flows
            .iter()
            .find(|f| f["file"] == file)
            .map(|f| f["status"].clone())
    };
    assert_eq!(status("flows/ok.yaml"), Some("passed".into()), "{result:#}");
    assert_eq!(
        status("flows/caf\u{FFFD}.yaml"),
        Some("invalid".into()),
        "{result:#}"
    );
    assert!(run_dir.join("report.html").is_file() && run_dir.join("junit.xml").is_file());
}
