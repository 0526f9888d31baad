//! adbutils 2.12 (PyPI), a third-party adb client library, runs its adb-level API unmodified
//! against `tapflow sim start --platform android` through the simulator's private adb server:
//! shell with exit status, push/pull/stat/list, screencap, the UI dump, app info, window size,
//! rotation, screen state, forward, logcat (`tests/android/adbutils_api.py` checks each call as
//! a device answers it). The venv comes from scripts/test-deps.d/45-adbutils.sh; a missing one
//! fails the test and names the script.

use crate::common::adb_env;
use crate::common::cli;

use std::process::Command;

use adb_env::{AdbEnv, free_port};

#[test]
fn adbutils_api_behaves_as_on_a_device() {
    let python = cli::repo().join(".test-deps/adbutils-2.12/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/test-deps.d/45-adbutils.sh (or scripts/test, which runs every install script)",
        python.display()
    );
    let home = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let port = free_port();
    let sim = |sub: &str, extra: &[&str]| {
        cli::android(home.path(), cli::repo(), &adb_env::adb_path())
            .args(["sim", sub, "--platform", "android"])
            .args(extra)
            .arg("--state-dir")
            .arg(state.path())
            .output()
            .unwrap()
    };
    let port_arg = port.to_string();
    let out = sim("start", &["--latency", "none", "--adb-port", &port_arg]);
    assert_eq!(out.status.code(), Some(0), "{}", cli::text(&out));
    let env = AdbEnv {
        adb: adb_env::adb_path(),
        port,
        home: tempfile::tempdir().unwrap(),
    };
    let listed = env.run(&["devices"]).text();
    let serial = listed
        .lines()
        .skip(1)
        .find(|l| l.ends_with("\tdevice"))
        .and_then(|l| l.split('\t').next())
        .unwrap_or_else(|| panic!("no device listed: {listed}"))
        .to_string();
    let mut c = Command::new(&python);
    c.arg(cli::repo().join("tests/android/adbutils_api.py"))
        .arg(&port_arg)
        .arg(&serial);
    let out = env.run_with(c, "adbutils_api.py");
    let stop = sim("stop", &[]);
    let text = out.text();
    assert_eq!(out.status, Some(0), "{text}\n{}", out.stderr);
    assert!(text.ends_with("ALL OK\n"), "{text}");
    for call in [
        "shell2 v2 exit status",
        "sync.pull",
        "sync.stat size",
        "sync.list",
        "screenshot",
        "dump_hierarchy",
        "app_info",
        "window_size",
        "rotation",
        "is_screen_on",
        "forward_list",
        "logcat -v time line",
    ] {
        assert!(text.contains(&format!("ok {call}\n")), "{call}: {text}");
    }
    assert_eq!(stop.status.code(), Some(0), "{}", cli::text(&stop));
}
