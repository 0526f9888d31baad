//! `logs_query` end to end: sources, modes, filters, time windows, grouping, context, snapshot,
//! crash info and every error code, over real fixtures and a fake device.
//!
//! One module per group of tests; the fixtures and the query helpers they share live here.

use std::path::{Path, PathBuf};

use chrono::{DateTime, FixedOffset};
use serde_json::Value;
use tapflow_device::logs::{
    LogsError, LogsQueryParams, LogsQueryResult, NoDevice, QueryEnv, execute,
};

mod context;
mod device;
mod fake_device;
mod files;
mod filters;
mod grouping;
mod markers;
mod parameter_errors;
mod save_path;
mod shapes;
mod time_windows;

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(format!(
        "{}/tests/fixtures/harmonyos/{name}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    ))
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(fixture_path(name)).unwrap()
}

/// 4 minutes after the emulator excerpt's last line.
fn now() -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339("2026-01-23T21:05:00+08:00").unwrap()
}

fn env_in(dir: &Path) -> QueryEnv {
    QueryEnv::new(now(), dir.to_path_buf())
}

fn params(v: Value) -> LogsQueryParams {
    LogsQueryParams::from_value(v).unwrap()
}

fn run(v: Value) -> LogsQueryResult {
    let dir = tempfile::tempdir().unwrap();
    execute(&params(v), &env_in(dir.path()), &NoDevice).unwrap()
}

fn run_err(v: Value) -> LogsError {
    let dir = tempfile::tempdir().unwrap();
    execute(&params(v), &env_in(dir.path()), &NoDevice).unwrap_err()
}

fn excerpt_lines() -> Vec<String> {
    fixture("hilog_excerpt_emulator6_nwpucampus_webview.txt")
        .lines()
        .map(str::to_string)
        .collect()
}

/// A small synthetic log with known times, pids, tags and levels.
fn synthetic() -> Vec<String> {
    [
        "01-23 20:50:00.000   100   100 I C01300/AbilityMgr: start com.demo.app, pid=4321",
        "01-23 20:55:00.000  4321  4321 I A00000/Login: onCreate",
        "01-23 21:00:00.000  4321  4321 E A00000/Login: request failed code 17",
        "01-23 21:01:00.000  4321  4321 E A00000/Login: request failed code 42",
        "01-23 21:02:00.000  4321  4322 W A00000/Login: retrying",
        "01-23 21:03:00.000   200   200 E C03900/Ace: render error in frame 7",
        "01-23 21:04:00.000  4321  4321 I A00000/Login: saveResult ok",
        "01-23 21:04:30.000   300   300 F C01d02/Other: fatal thing",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}
