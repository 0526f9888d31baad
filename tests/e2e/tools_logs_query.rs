//! `logs_query` through `Engine::call`: inline logs, files and the allowlist, parameter codes,
//! and device capture against the in-process simulated phone driven through the real hdc
//! backend (`HdcClient` over `SimTransport`). Every envelope is validated against the tool's
//! published output schema; a call that needs no device must not even resolve one.

use crate::common::cli;
use crate::common::envelope;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tapflow_device::hdc::{HdcClient, HdcConfig};
use tapflow_device::{Device, DeviceError, DumpScope, Point, TapKind, Target, TextTarget, UiNode};
use tapflow_sim::{FaultSpec, Latency, SimOptions, SimTransport, Simulator};
use tapflow_tools::{
    DeviceProvider, DeviceRoute, Engine, Envelope, NoBackend, ToolConfig, ToolContext,
};

use tapflow_sim::DEMO_BUNDLE as DEMO;

/// Any provider, counting how often a device is resolved.
struct Counting {
    inner: Arc<dyn DeviceProvider>,
    resolves: AtomicUsize,
}

impl DeviceProvider for Counting {
    fn resolve(&self, route: &DeviceRoute) -> Result<Arc<dyn Device>, DeviceError> {
        self.resolves.fetch_add(1, Ordering::SeqCst);
        self.inner.resolve(route)
    }
    fn targets(&self, hdc_server: Option<&str>) -> Result<Vec<Target>, DeviceError> {
        self.inner.targets(hdc_server)
    }
}

/// Devices from the hdc backend, whose transport is the in-process simulator.
struct SimProvider {
    client: HdcClient,
}

impl DeviceProvider for SimProvider {
    fn resolve(&self, route: &DeviceRoute) -> Result<Arc<dyn Device>, DeviceError> {
        let r = self
            .client
            .route(route.device_id.as_deref(), route.hdc_server.as_deref());
        Ok(Arc::new(self.client.connect(r)?))
    }
    fn targets(&self, hdc_server: Option<&str>) -> Result<Vec<Target>, DeviceError> {
        self.client
            .list_targets_via(&self.client.route(None, hdc_server))
    }
}

struct Env {
    engine: Engine,
    ctx: ToolContext,
    provider: Arc<Counting>,
    /// The project (working) directory.
    project: PathBuf,
    /// In none of the roots.
    outside: PathBuf,
    _tmp: tempfile::TempDir,
}

fn env_with(inner: Arc<dyn DeviceProvider>) -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("project");
    let outside = tmp.path().join("outside");
    let extra = tmp.path().join("extra");
    for d in [&project, &outside, &extra] {
        std::fs::create_dir_all(d).unwrap();
    }
    // As the CLI builds it: the project (the working directory), its reports and screenshots,
    // and one more root from TAPFLOW_ALLOWED_ROOTS.
    let vars: std::collections::HashMap<String, String> = [
        ("HOME", tmp.path().join("home")),
        ("TAPFLOW_ALLOWED_ROOTS", extra.clone()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.display().to_string()))
    .collect();
    let config = ToolConfig::from_env_map(&vars, &project).unwrap();
    let provider = Arc::new(Counting {
        inner,
        resolves: AtomicUsize::new(0),
    });
    Env {
        engine: Engine::new(),
        ctx: ToolContext::new(provider.clone(), config),
        provider,
        project,
        outside,
        _tmp: tmp,
    }
}

/// No device backend at all.
fn env() -> Env {
    env_with(Arc::new(NoBackend("no device in this test".into())))
}

impl Env {
    fn call(&self, args: Value) -> Envelope {
        let e = self.engine.call("logs_query", args, &self.ctx);
        let v = e.to_value();
        assert_eq!(v["isError"], json!(!e.ok()));
        let schema = self.engine.get("logs_query").unwrap().output_schema();
        envelope::assert_matches_schema("logs_query", &schema, &v["structuredContent"]);
        e
    }

    fn ok(&self, args: Value) -> Value {
        envelope::expect_ok(&self.call(args.clone()), "logs_query", &args)
    }

    fn err(&self, args: Value) -> (String, Value) {
        envelope::expect_err(self.call(args.clone()), "logs_query", &args)
    }

    fn resolves(&self) -> usize {
        self.provider.resolves.load(Ordering::SeqCst)
    }
}

const LINES: &[&str] = &[
    "01-23 21:00:00.000  1200  1200 I A0d0d0/DemoApp: PAGE_SHOWN page=LoginPage",
    "01-23 21:00:01.000  1200  1200 E A0d0d0/DemoApp: request 17 failed: timeout",
    "01-23 21:00:02.000  1200  1200 E A0d0d0/DemoApp: request 18 failed: timeout",
    "01-23 21:00:03.000  1200  1200 W A0d0d0/DemoApp: slow frame",
    "01-23 21:00:04.000  1200  1200 I A0d0d0/DemoApp: TypeError: Cannot read property x of undefined",
    "01-23 21:00:05.000  1200  1200 I A0d0d0/DemoApp: LOGIN_SUCCESS user=alice",
];

fn lines() -> Vec<String> {
    LINES.iter().map(|s| s.to_string()).collect()
}

// ------------------------------------------------------------------ inline and files

#[test]
fn inline_errors_mode_groups_errors_and_needs_no_device() {
    let e = env();
    let r = e.ok(json!({"logs": lines()}));
    assert_eq!(r["query_mode"], "errors");
    assert_eq!(r["source_attempted"], json!(["inline"]));
    assert_eq!(r["source_used"], "inline");
    assert_eq!(r["matched"], true);
    // Two E lines with the same shape are one group; the exception text counts at level I.
    assert_eq!(r["match_count"], 3);
    assert_eq!(r["group_count"], 2);
    let items = r["items"].as_array().unwrap();
    assert_eq!(items[0]["kind"], "error");
    assert_eq!(items[0]["count"], 2);
    assert_eq!(items[0]["tag"], "DemoApp");
    assert_eq!(items[1]["kind"], "exception");
    assert_eq!(r["filters_applied"]["level"], "E");
    assert_eq!(r["saved_path"], Value::Null);
    assert_eq!(r["crash_info"], Value::Null);
    assert_eq!(r["lines_scanned"], 6);
    // include_crash without a device source reads no device either.
    let r = e.ok(json!({"logs": lines(), "include_crash": true, "level": "W"}));
    assert_eq!(r["crash_info"]["sources"], json!([]));
    assert_eq!(r["match_count"], 3);
    assert_eq!(e.resolves(), 0, "inline logs must not resolve a device");
}

#[test]
fn inline_markers_found_and_missing() {
    let e = env();
    let r = e.ok(json!({
        "logs": lines(),
        "mode": "markers",
        "marker_keywords": ["LOGIN_SUCCESS", "PAYMENT_DONE"]
    }));
    assert_eq!(r["matched"], true);
    assert_eq!(r["items"][0]["marker"], "LOGIN_SUCCESS");
    assert_eq!(r["items"][0]["line"], LINES[5]);
    assert_eq!(r["markers"][0]["matched"], true);
    assert_eq!(r["markers"][0]["count"], 1);
    assert_eq!(
        r["markers"][1],
        json!({"keyword": "PAYMENT_DONE", "matched": false, "count": 0, "first_time": null, "last_time": null})
    );
    // Nothing found is a successful answer, not an error.
    let r = e.ok(json!({"logs": lines(), "mode": "markers", "marker_keywords": ["PAYMENT_DONE"]}));
    assert_eq!(r["matched"], false);
    assert_eq!(r["match_count"], 0);
    assert_eq!(r["items"], json!([]));
    assert!(!r["notes"].as_array().unwrap().is_empty());
    assert_eq!(e.resolves(), 0);
}

#[test]
fn input_files_relative_to_the_project_and_save_path() {
    let e = env();
    std::fs::create_dir_all(e.project.join("logs")).unwrap();
    std::fs::write(e.project.join("logs/a.log"), LINES[..3].join("\n")).unwrap();
    std::fs::write(e.project.join("logs/b.log"), LINES[3..].join("\n")).unwrap();
    let r = e.ok(json!({
        "input_file": "logs/a.log",
        "input_files": ["logs/b.log"],
        "mode": "markers",
        "marker_keywords": ["LOGIN_SUCCESS"],
        "save_path": "reports/snapshot.log"
    }));
    assert_eq!(r["source_used"], "file");
    assert_eq!(r["source_attempted"], json!(["file"]));
    assert_eq!(r["items"][0]["source"], "logs/b.log");
    assert_eq!(r["items"][0]["line_no"], 3);
    assert_eq!(r["lines_scanned"], 6);
    let saved = PathBuf::from(r["saved_path"].as_str().unwrap());
    assert!(saved.ends_with("reports/snapshot.log"), "{saved:?}");
    let text = std::fs::read_to_string(&saved).unwrap();
    assert_eq!(text, format!("{}\n", LINES.join("\n")));
    assert_eq!(e.resolves(), 0, "files must not resolve a device");
}

#[test]
fn file_errors_have_the_contract_codes() {
    let e = env();
    std::fs::write(e.outside.join("x.log"), LINES.join("\n")).unwrap();
    let outside = e.outside.join("x.log").display().to_string();
    let (code, d) = e.err(json!({"input_file": outside}));
    assert_eq!(code, "PATH_NOT_ALLOWED");
    assert_eq!(d["param"], "input_file");
    assert_eq!(
        e.err(json!({"input_files": ["../outside/x.log"]})).0,
        "PATH_NOT_ALLOWED"
    );
    assert_eq!(
        e.err(json!({"logs": ["x"], "save_path": "../outside/out.log"}))
            .0,
        "PATH_NOT_ALLOWED"
    );
    assert!(!e.outside.join("out.log").exists());

    let (code, d) = e.err(json!({"input_file": "missing.log"}));
    assert_eq!(code, "FILE_NOT_FOUND");
    assert_eq!(d["param"], "input_file");

    // A sparse file: over the 64 MiB limit without writing 64 MiB.
    let big = std::fs::File::create(e.project.join("big.log")).unwrap();
    big.set_len(65 * 1024 * 1024).unwrap();
    let (code, d) = e.err(json!({"input_file": "big.log"}));
    assert_eq!(code, "FILE_TOO_LARGE");
    assert_eq!(d["max_bytes"], 64 * 1024 * 1024);

    // A root added with TAPFLOW_ALLOWED_ROOTS admits its files.
    let extra = e.project.parent().unwrap().join("extra");
    assert!(e.ctx.config.paths.read_roots().contains(&extra));
    let temp = extra.join("t.log");
    std::fs::write(&temp, LINES.join("\n")).unwrap();
    assert_eq!(
        e.ok(json!({"input_file": temp.display().to_string()}))["source_used"],
        "file"
    );
    assert_eq!(e.resolves(), 0);
}

#[test]
fn parameter_errors() {
    let e = env();
    let (code, d) = e.err(json!({"logs": ["x"], "mode": "everything"}));
    assert_eq!(code, "INVALID_QUERY_MODE");
    assert_eq!(d["param"], "mode");
    for (args, param) in [
        (json!({"logs": ["x"], "lines": 0}), "lines"),
        (json!({"logs": ["x"], "level": "verbose"}), "level"),
        (json!({"logs": ["x"], "time_expr": "sometime"}), "time_expr"),
        (json!({"logs": []}), "logs"),
        (json!({"logs": ["x"], "colour": "red"}), "colour"),
        (json!({"logs": "x"}), "logs"),
    ] {
        let (code, d) = e.err(args.clone());
        assert_eq!(code, "INVALID_PARAM", "{args}");
        assert_eq!(d["param"], param, "{args}");
    }
    // A bad parameter is reported before any device is resolved.
    assert_eq!(e.err(json!({"level": "verbose"})).0, "INVALID_PARAM");
    assert_eq!(e.resolves(), 0);
    // A device query with no backend fails with the device layer's code.
    assert_eq!(e.err(json!({})).0, "UNSUPPORTED");
    assert_eq!(e.resolves(), 1);
}

#[test]
fn published_parameters_are_the_contracts() {
    let engine = Engine::new();
    let def = engine.get("logs_query").unwrap();
    let mut props: Vec<&str> = def.input_schema()["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    props.sort_unstable();
    let mut want = vec![
        "device_id",
        "hdc_server",
        "logs",
        "input_file",
        "input_files",
        "lines",
        "level",
        "tag",
        "tag_search",
        "keyword",
        "domain",
        "pid",
        "package_name",
        "start_time",
        "end_time",
        "seconds",
        "save_path",
        "time_expr",
        "include_crash",
        "mode",
        "marker_keywords",
        "fallback_to_historical",
        "realtime_wait_ms",
        "context_lines",
        "include_cost",
    ];
    want.sort_unstable();
    assert_eq!(props, want);
    assert_eq!(
        def.input_schema()["properties"]["mode"]["enum"],
        json!(["errors", "markers"])
    );
    assert_eq!(def.policy.risk, tapflow_tools::Risk::Read);
    assert!(def.policy.writes_host_files && !def.policy.mutates_device);
}

// ------------------------------------------------------------------ the simulated device

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
