//! The simulated device: markers after a login, the realtime window waited out or seeing lines
//! logged during the call, a device lost during the window, crash info from the jscrash file,
//! and the CLI running an inline query without a device.

use super::*;

fn sim_env() -> (Env, Arc<dyn Device>) {
    sim_env_with("")
}

fn sim_env_with(faults: &str) -> (Env, Arc<dyn Device>) {
    let sim = Arc::new(Simulator::new(SimOptions {
        devices: 1,
        latency: Latency::None,
        faults: FaultSpec::parse(faults).unwrap(),
        ..SimOptions::default()
    }));
    let transport = Arc::new(SimTransport::new(sim, std::env::temp_dir()));
    let client = HdcClient::new(HdcConfig::default(), transport);
    let e = env_with(Arc::new(SimProvider { client }));
    let device = e.ctx.provider.resolve(&DeviceRoute::default()).unwrap();
    (e, device)
}

fn find<'a>(tree: &'a UiNode, id: &str) -> Option<&'a UiNode> {
    tree.walk().find(|n| n.id() == id)
}

fn center(device: &dyn Device, id: &str) -> Point {
    let tree = device.ui_tree(&DumpScope::default()).unwrap();
    find(&tree, id)
        .and_then(UiNode::bounds)
        .unwrap_or_else(|| panic!("no {id} on screen"))
        .center()
}

/// Polls the screen until `id` shows `text` (the app answers after a delay).
fn wait_for_text(device: &dyn Device, id: &str, text: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let tree = device.ui_tree(&DumpScope::default()).unwrap();
        if find(&tree, id).is_some_and(|n| n.text() == text) {
            return;
        }
        assert!(Instant::now() < deadline, "{id} never showed {text:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A UI action's outcome. This branch's hdc backend takes uitest's `No Error` status line (which
/// the simulator prints after every successful uiInput) for a failure; `main` already accepts
/// it (`parse::outcome::ui_input`), after which this tolerance is a no-op.
fn acted(r: Result<(), DeviceError>) {
    match r {
        Ok(()) => {}
        Err(DeviceError::Command { device_says, .. }) if device_says.trim() == "No Error" => {}
        Err(e) => panic!("UI action failed: {e}"),
    }
}

fn tap(device: &dyn Device, id: &str) {
    acted(device.tap(center(device, id), TapKind::Single));
}

/// Starts the demo app and logs in as `user` through the `Device` trait.
fn log_in(device: &dyn Device, user: &str) {
    device.start_app(DEMO, "EntryAbility", None).unwrap();
    acted(device.input_text(TextTarget::At(center(device, "username")), user));
    tap(device, "login");
    wait_for_text(device, "greeting", &format!("Hello, {user}!"));
}

#[test]
fn device_markers_after_login() {
    let (e, device) = sim_env();
    log_in(device.as_ref(), "alice");
    let r = e.ok(json!({
        "mode": "markers",
        "marker_keywords": ["LOGIN_SUCCESS"],
        "package_name": DEMO,
        "include_cost": true
    }));
    assert_eq!(r["source_attempted"], json!(["device_realtime"]));
    assert_eq!(r["source_used"], "device_realtime");
    assert_eq!(r["matched"], true);
    assert_eq!(r["markers"][0]["matched"], true);
    let line = r["items"][0]["line"].as_str().unwrap();
    assert!(
        line.ends_with("I A0d0d0/DemoApp: LOGIN_SUCCESS user=alice"),
        "{line}"
    );
    assert_eq!(r["items"][0]["source"], "device_realtime");
    assert_eq!(r["filters_applied"]["device_command"], "hilog -x");
    // The buffer already held the marker: one read, no realtime window.
    assert_eq!(r["cost"]["device_round_trips"], 1);

    // Filters are pushed down to hilog; the answer is the same.
    let r = e.ok(json!({
        "mode": "markers",
        "marker_keywords": ["LOGIN_SUCCESS"],
        "tag": "DemoApp",
        "level": "I"
    }));
    assert_eq!(r["markers"][0]["count"], 1);
    assert_eq!(
        r["filters_applied"]["device_command"],
        "hilog -x -L I,W,E,F -T 'DemoApp'"
    );
}

#[test]
fn device_missing_marker_waits_out_the_realtime_window() {
    let (e, _device) = sim_env();
    let started = Instant::now();
    let r = e.ok(json!({
        "mode": "markers",
        "marker_keywords": ["PAYMENT_DONE"],
        "realtime_wait_ms": 600,
        "include_cost": true
    }));
    let elapsed = started.elapsed();
    assert_eq!(r["matched"], false);
    assert_eq!(r["markers"][0]["matched"], false);
    assert!(elapsed >= Duration::from_millis(600), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    // One buffer read, then polls every 250 ms until the window closes (at least the read at
    // the deadline; about three when reads are fast).
    let trips = r["cost"]["device_round_trips"].as_u64().unwrap();
    assert!((2..=6).contains(&trips), "{trips} round trips");
    // Historical logs are not available through the device interface: said in the notes.
    let r = e.ok(json!({
        "mode": "markers",
        "marker_keywords": ["PAYMENT_DONE"],
        "realtime_wait_ms": 0,
        "fallback_to_historical": true
    }));
    assert_eq!(
        r["source_attempted"],
        json!(["device_realtime", "device_historical"])
    );
    assert_eq!(r["source_used"], "device_realtime");
    let notes = r["notes"].to_string();
    assert!(
        notes.contains("UNSUPPORTED") && notes.contains("/data/log/hilog/"),
        "{notes}"
    );
}

#[test]
fn device_lost_during_the_window_keeps_the_buffer_with_a_note() {
    // Commands answered: the listing that resolves the device, the buffer read, one poll;
    // then the device is gone (hdc: `Device not found or connected`).
    let (e, _device) = sim_env_with("disconnect-after=3");
    let r = e.ok(json!({
        "mode": "markers",
        "marker_keywords": ["PAYMENT_DONE"],
        "realtime_wait_ms": 2000
    }));
    assert_eq!(r["source_used"], "device_realtime");
    assert_eq!(r["matched"], false);
    let notes = r["notes"].to_string();
    assert!(
        notes.contains("realtime sampling failed") && notes.contains("DEVICE_NOT_FOUND"),
        "{notes}"
    );
    // Without a buffer to fall back on, the device's code is the error.
    let (code, d) = e.err(json!({"mode": "markers", "marker_keywords": ["X"]}));
    assert_eq!(code, "DEVICE_NOT_FOUND", "{d}");
}

#[test]
fn realtime_window_sees_lines_logged_during_the_call() {
    let (e, device) = sim_env();
    log_in(device.as_ref(), "bob");
    let logout = center(device.as_ref(), "logout");
    let d = device.clone();
    let tapper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        acted(d.tap(logout, TapKind::Single));
    });
    let r = e.ok(json!({
        "mode": "markers",
        "marker_keywords": ["LOGOUT"],
        "realtime_wait_ms": 1500
    }));
    tapper.join().unwrap();
    assert_eq!(r["markers"][0]["matched"], true, "{r:#}");
    assert_eq!(r["markers"][0]["count"], 1, "each new line is taken once");
    assert!(
        r["items"][0]["line"]
            .as_str()
            .unwrap()
            .ends_with("DemoApp: LOGOUT")
    );
}

#[test]
fn crash_button_gives_crash_info_from_the_jscrash_file() {
    let (e, device) = sim_env();
    log_in(device.as_ref(), "carol");
    tap(device.as_ref(), "crash");
    let r = e.ok(json!({
        "mode": "errors",
        "include_crash": true,
        "package_name": DEMO,
        "realtime_wait_ms": 0
    }));
    assert_eq!(r["matched"], true);
    let info = &r["crash_info"];
    assert_eq!(info["sources"], json!(["faultlogger"]));
    assert_eq!(info["errors"], json!([]));
    let file = info["files_matched"][0].as_str().unwrap();
    assert!(file.starts_with("jscrash-com.tapflow.demo-"), "{file}");
    let report = &info["reports"][0];
    assert_eq!(report["file_name"], file);
    assert_eq!(report["error_name"], "TypeError");
    assert_eq!(
        report["error_message"],
        "Cannot read property name of undefined"
    );
    assert_eq!(report["module_name"], DEMO);
    assert!(
        report["stacktrace"][0]
            .as_str()
            .unwrap()
            .contains("HomePage.ets:48:13"),
        "{report:#}"
    );
    // The crash also shows as a crash item from the AppKit lines in hilog.
    let kinds: Vec<&str> = r["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"crash"), "{kinds:?}");
}

#[test]
fn cli_runs_an_inline_query_without_a_device() {
    let out = cli::assert_tapflow()
        .args(["tool", "logs_query"])
        .arg(json!({"logs": [LINES[1]]}).to_string())
        .env("TAPFLOW_HDC", Path::new("/nonexistent/hdc"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["structuredContent"]["ok"], true);
    assert_eq!(v["structuredContent"]["result"]["match_count"], 1);
    let list = cli::assert_tapflow()
        .args(["tools", "--json"])
        .output()
        .unwrap();
    let tools: Value = serde_json::from_slice(&list.stdout).unwrap();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"logs_query") && names.contains(&"build_app"),
        "{names:?}"
    );
}
