//! A small fault matrix (docs/benchmarks.md, "Fault matrix"): `scripts/fault-matrix` runs the
//! example flows on two simulated devices of each platform under the dump faults and dropped
//! connections, at 5 % and 30 %, with two seeds through
//! the binary under test and the real `adb`. Every one of these faults is the device's, so no run may exit 1 (the app blamed):
//! each ends 0 or 4, and every flow that failed did so with an infrastructure code.
//!
//! Seen before the resends and reconnects: `empty-dump=0.3` and `truncate-dump=0.3` ended runs
//! with exit 1 (`UI_TREE_FETCH_ERROR`, `INVALID_UI_TREE_PAYLOAD`), and `drop-conn` took every
//! Android device out (0 of 15 flows passed).

use crate::common::adb_env;
use crate::common::cli;

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The codes that blame the device or the host (docs/run.md, exit code 4).
const INFRA: &[&str] = &[
    "DEVICE_NOT_FOUND",
    "DEVICE_DISCONNECTED",
    "DEVICE_UNAUTHORIZED",
    "HDC_TIMEOUT",
    "HDC_CHANNEL_NOT_READY",
    "HDC_SERVER_UNREACHABLE",
    "HDC_FAILED",
    "ADB_TIMEOUT",
    "ADB_SERVER_UNREACHABLE",
    "DEVICE_UNRESPONSIVE",
    "INPUT_KEYS_LOST",
];

const HANG_GUARD: Duration = Duration::from_secs(1800);

/// Runs `scripts/fault-matrix` with `args` and checks that every run ended 0 or 4, every
/// failure with an infrastructure code; returns the runs and how many passed.
fn matrix(args: &[&str], runs_expected: usize) -> (Vec<Value>, usize) {
    let out_dir = tempfile::tempdir().unwrap();
    let json = out_dir.path().join("runs.json");
    let started = Instant::now();
    let out = Command::new("python3")
        .arg(cli::repo().join("scripts/fault-matrix"))
        .arg("--bin")
        .arg(cli::bin())
        .args(args)
        .arg("--json")
        .arg(&json)
        .env("TAPFLOW_ADB", adb_env::adb_path())
        .output()
        .expect("python3 runs scripts/fault-matrix (scripts/test-deps.d/10-python.sh)");
    assert!(started.elapsed() < HANG_GUARD, "hang guard");
    let all = cli::text(&out);
    let runs: Vec<Value> = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(runs.len(), runs_expected, "{all}");
    let mut passed = 0;
    for r in &runs {
        let what = format!("{} {} seed {}", r["platform"], r["spec"], r["seed"]);
        match r["exit"].as_i64() {
            Some(0) => passed += 1,
            Some(4) => {
                for f in r["failures"].as_array().unwrap() {
                    let code = f["code"].as_str().unwrap_or("none");
                    assert!(INFRA.contains(&code), "{what}: {f}\n{all}");
                }
            }
            other => panic!("{what}: exit {other:?}: {r:#}\n{all}"),
        }
    }
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("| **all** |"), "the table is printed: {all}");
    (runs, passed)
}

#[test]
fn device_faults_are_never_blamed_on_the_app() {
    let (_, passed) = matrix(
        &[
            "--faults",
            "empty-dump,truncate-dump,drop-conn",
            "--levels",
            "0.05,0.3",
            "--seeds",
            "1,2",
            "--jobs",
            "2",
        ],
        24,
    );
    // The resends and reconnects ride most of these faults out.
    assert!(passed >= 12, "only {passed} of 24 runs passed");
}
