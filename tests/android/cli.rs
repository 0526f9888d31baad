//! The Android side of the `tapflow` binary: `run … --sim N --platform android` (the five
//! example flows, unchanged, on 1 and 4 simulated devices through the real adb on a private
//! server), `sim start --platform android` (addresses, or attached to a private server),
//! `devices` listing both platforms, `--device` with an adb serial, and infrastructure faults
//! ending with exit 4. Every adb the tests run has a scratch `HOME` and its own server port.

use crate::common::adb_env;
use crate::common::cli;

use std::path::Path;
use std::process::{Command, Output};

use adb_env::{AdbEnv, free_port};

/// The binary for an Android run, from the repository root.
fn android(home: &Path) -> Command {
    cli::android(home, cli::repo(), &adb_env::adb_path())
}

/// `tapflow sim SUB --platform android OPTIONS… --state-dir STATE`.
fn android_sim(home: &Path, sub: &str, options: &[&str], state: &Path) -> Output {
    android(home)
        .args(["sim", sub, "--platform", "android"])
        .args(options)
        .arg("--state-dir")
        .arg(state)
        .output()
        .unwrap()
}

/// The example flows pass unchanged on Android, on one device and on four.
#[test]
fn the_example_flows_pass_on_android_on_1_and_4_devices() {
    for n in ["1", "4"] {
        let home = tempfile::tempdir().unwrap();
        let report = tempfile::tempdir().unwrap();
        let out = android(home.path())
            .args([
                "run",
                "flows/",
                "--sim",
                n,
                "--platform",
                "android",
                "--sim-latency",
                "none",
            ])
            .args(["--no-progress", "--report-dir"])
            .arg(report.path())
            .output()
            .unwrap();
        let all = cli::text(&out);
        assert_eq!(out.status.code(), Some(0), "{n} device(s): {all}");
        assert!(all.contains("PASSED: 5 passed"), "{all}");
        let r = cli::result(report.path());
        let devices = r["devices"].as_array().unwrap();
        assert_eq!(devices.len(), n.parse::<usize>().unwrap());
        for d in devices {
            assert_eq!(d["platform"], "android", "{d}");
            assert!(d["serial"].as_str().unwrap().starts_with("127.0.0.1:"));
        }
    }
}

/// `sim start --platform android --adb-port P`: the devices are on a private server; `devices`
/// lists them (with the platform) through that server; `--device SERIAL` runs a flow there;
/// `sim stop` ends the devices and the server.
#[test]
fn sim_start_android_private_server_devices_and_device_choice() {
    let home = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let port = free_port();
    let port_arg = port.to_string();
    let out = android_sim(
        home.path(),
        "start",
        &[
            "--devices",
            "2",
            "--latency",
            "none",
            "--adb-port",
            &port_arg,
        ],
        state.path(),
    );
    let all = cli::text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains(&format!("adb -P {port} devices -l")), "{all}");
    let env = AdbEnv {
        adb: adb_env::adb_path(),
        port,
        home: tempfile::tempdir().unwrap(),
    };
    let listed = env.run(&["devices", "-l"]).text();
    let serials: Vec<String> = listed
        .lines()
        .skip(1)
        .filter(|l| l.contains(" device "))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    assert_eq!(serials.len(), 2, "{listed}");
    // `tapflow devices` through the same server (adb's own ANDROID_ADB_SERVER_PORT), hdc absent.
    let out = android(home.path())
        .env("ANDROID_ADB_SERVER_PORT", port.to_string())
        .env("TAPFLOW_HDC", "/nonexistent/hdc")
        .args(["devices", "--json"])
        .output()
        .unwrap();
    let all = cli::text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(
        all.contains("HDC_NOT_FOUND"),
        "the missing hdc is a note: {all}"
    );
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2, "{rows:?}");
    for r in rows {
        assert_eq!(r["platform"], "android");
        assert_eq!(r["api_level"], 33);
        assert_eq!(r["screen"]["width"], 1080);
    }
    // A flow on one of them, chosen by its adb serial.
    let report = tempfile::tempdir().unwrap();
    let out = android(home.path())
        .env("ANDROID_ADB_SERVER_PORT", port.to_string())
        .env("TAPFLOW_HDC", "/nonexistent/hdc")
        .args([
            "run",
            "flows/login.yaml",
            "--device",
            &serials[1],
            "--no-progress",
            "--report-dir",
        ])
        .arg(report.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", cli::text(&out));
    assert_eq!(
        cli::result(report.path())["devices"][0]["serial"],
        serials[1].as_str()
    );
    let out = android_sim(home.path(), "stop", &[], state.path());
    assert_eq!(out.status.code(), Some(0), "{}", cli::text(&out));
    // The private server went with the simulator.
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "server still up"
    );
}

/// Without `--adb-port`, `sim start` prints the `adb connect` addresses; they attach.
#[test]
fn sim_start_android_prints_adb_connect_addresses() {
    let home = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let out = android_sim(home.path(), "start", &["--latency", "none"], state.path());
    let all = cli::text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    let addr = all
        .lines()
        .find_map(|l| l.trim().strip_prefix("adb connect "))
        .expect(&all)
        .to_string();
    let env = AdbEnv::start();
    env.connect(&addr);
    assert_eq!(
        env.on(&addr, &["shell", "getprop ro.product.model"]).text(),
        "Pixel 7\n"
    );
    let out = android_sim(home.path(), "stop", &[], state.path());
    assert_eq!(out.status.code(), Some(0), "{}", cli::text(&out));
}

/// Infrastructure faults of the simulated Android device end the run with a typed error and
/// exit 4, never a hang: a TCP connection dropped mid-command, and a device that goes offline.
#[test]
fn dropped_connections_and_offline_devices_exit_4() {
    for (faults, codes) in [
        (
            "drop-conn=1",
            &["DEVICE_DISCONNECTED", "DEVICE_NOT_FOUND"][..],
        ),
        (
            "disconnect-after=25",
            &["DEVICE_DISCONNECTED", "DEVICE_NOT_FOUND"][..],
        ),
    ] {
        let home = tempfile::tempdir().unwrap();
        let report = tempfile::tempdir().unwrap();
        let started = std::time::Instant::now();
        let out = android(home.path())
            .args([
                "run",
                "flows/login.yaml",
                "--sim",
                "1",
                "--platform",
                "android",
            ])
            .args([
                "--sim-latency",
                "none",
                "--sim-faults",
                faults,
                "--no-progress",
                "--report-dir",
            ])
            .arg(report.path())
            .output()
            .unwrap();
        let all = cli::text(&out);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(120),
            "{faults}: took {:?}",
            started.elapsed()
        );
        assert_eq!(out.status.code(), Some(4), "{faults}: {all}");
        let r = cli::result(report.path());
        let flow = &r["flows"][0];
        let code = flow["error"]["code"]
            .as_str()
            .or_else(|| r["devices"][0]["error"]["code"].as_str())
            .unwrap_or_else(|| panic!("{faults}: no error code in {r:#}"));
        assert!(codes.contains(&code), "{faults}: {code}");
    }
}

/// Where a step differs between the platforms, `when: {platform: …}` expresses it: the same
/// flow file runs its Android step on Android and its HarmonyOS step on HarmonyOS (where that
/// step fails on purpose, so the condition is seen to be evaluated both ways).
#[test]
fn when_platform_picks_the_steps_of_the_device_platform() {
    let home = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    std::fs::write(
        root.path().join("platforms.yaml"),
        "name: Platform steps\napp: com.tapflow.demo\nclean_state: true\nsteps:\n  - wait_for_element: {text: \"Only on HarmonyOS\", timeout_ms: 300}\n    when: {platform: harmonyos}\n  - input_text: {element_id: username, text: droid}\n    when: {platform: android}\n  - click: {element_id: login}\n  - wait_for_element: {text: \"Hello, droid!\", timeout_ms: 8000}\n",
    )
    .unwrap();
    let run = |platform: &str| {
        let report = tempfile::tempdir().unwrap();
        let out = android(home.path())
            .current_dir(root.path())
            .args([
                "run",
                "platforms.yaml",
                "--sim",
                "1",
                "--platform",
                platform,
            ])
            .args(["--sim-latency", "none", "--no-progress", "--report-dir"])
            .arg(report.path())
            .output()
            .unwrap();
        (
            out.status.code(),
            cli::text(&out),
            cli::result(report.path()),
        )
    };
    let (code, all, r) = run("android");
    assert_eq!(code, Some(0), "{all}");
    let steps = r["flows"][0]["steps"].as_array().unwrap();
    assert_eq!(steps[0]["status"], "skipped", "{:#}", steps[0]);
    assert_eq!(steps[1]["status"], "passed", "{:#}", steps[1]);
    let (code, all, r) = run("harmonyos");
    assert_eq!(code, Some(1), "{all}");
    let steps = r["flows"][0]["steps"].as_array().unwrap();
    assert_eq!(steps[0]["error"]["code"], "WAIT_TIMEOUT", "{:#}", steps[0]);
}

/// A crash is the cause of the failure on Android as on HarmonyOS: the first-hour crash
/// example fails with `APP_CRASHED`, the exception read from logcat's `FATAL EXCEPTION` block.
#[test]
fn the_crash_example_fails_with_app_crashed_from_logcat() {
    let home = tempfile::tempdir().unwrap();
    let report = tempfile::tempdir().unwrap();
    let out = android(home.path())
        .args(["run", "examples/first-hour/crash.yaml", "--sim", "1"])
        .args(["--platform", "android", "--sim-latency", "none"])
        .args(["--no-progress", "--report-dir"])
        .arg(report.path())
        .output()
        .unwrap();
    let all = cli::text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let r = cli::result(report.path());
    let step = r["flows"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["status"] == "failed")
        .unwrap_or_else(|| panic!("{all}"))
        .clone();
    let e = &step["error"];
    assert_eq!(e["code"], "APP_CRASHED", "{e:#}");
    assert_eq!(
        e["details"]["exception"],
        "java.lang.RuntimeException: TypeError: Cannot read property name of undefined"
    );
    assert_eq!(e["details"]["crash_log"]["kind"], "java");
    assert_eq!(e["details"]["cause"]["code"], "ELEMENT_NOT_FOUND");
    assert!(
        e["details"]["stack"][0]
            .as_str()
            .unwrap()
            .contains("onCrashClick"),
        "{e:#}"
    );
    // The block is in the log excerpt attached to the step.
    let log = step["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["kind"] == "hilog")
        .expect("a log excerpt");
    assert!(
        log["path"].as_str().unwrap().ends_with(".logcat.txt"),
        "{log:#}"
    );
    let path = report.path().join(log["path"].as_str().unwrap());
    let body = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(body.contains("FATAL EXCEPTION"), "{body}");
}
