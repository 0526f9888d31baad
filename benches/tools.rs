//! Tool benchmarks on the simulated HarmonyOS device with REALISTIC latency (`docs/sim.md`:
//! 30 ms per `hdc shell`, 250 ms per `uitest dumpLayout`, 90 ms per uiInput, …): every tool of
//! the registry through `Engine::call` → the real hdc backend → `SimTransport`.
//!
//! For each case it first prints the device round trips and UI dumps of one call (`include_cost`;
//! counts, deterministic) and then lets criterion time the call (wall time, dominated by the
//! simulated device time). The screen each case needs is restored before every iteration through
//! the phone's own API (no hdc command, no simulated latency), outside the measurement.
//!
//! Kept short for a shared 2-core machine: 10 samples, 2 s measurement.
//! Run: `cargo bench --bench tools -- --quick` (figures in docs/benchmarks.md, "## Tools").
//!
//! `host_write/*` (no device) times a `logs_query` that writes its `save_path`, under a policy
//! with one root and under the CLI's (read and output roots, trusted files to refuse): what the
//! trusted-configuration checks of every tool write cost.

use tapflow::sim_provider;

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use sim_provider::SimProvider;
use tapflow_device::Point;
use tapflow_sim::phone::hap::{build_hap, module_json};
use tapflow_sim::phone::{KeyPress, keycode};
use tapflow_sim::{FaultSpec, Latency};
use tapflow_tools::{Engine, ToolConfig, ToolContext};

use tapflow_sim::DEMO_BUNDLE as DEMO;
const TEST_BUNDLE: &str = "com.example.bench";

/// The screens cases start from.
#[derive(Clone, Copy)]
enum Screen {
    Launcher,
    Login,
    /// The login page left running (same window, so element handles stay live) with its
    /// username field emptied and unfocused. The app must be on the login page already.
    LoginField,
    /// Logged in (the demo app logged `LOGIN_SUCCESS`), home page.
    Home,
    Items,
    Dialog,
}

/// Where the demo app's controls are (read once with the tools on a latency-free phone with
/// the same profile, so the benchmark never hard-codes layout).
struct Coords {
    username: Point,
    login: Point,
    open_items: Point,
    open_settings: Point,
    reset: Point,
}

fn coords() -> Coords {
    let tmp = tempfile::tempdir().unwrap();
    let p = SimProvider::single(Latency::None, FaultSpec::none(), 1, tmp.path());
    let ctx = ToolContext::new(p.clone(), ToolConfig::default());
    let e = Engine::new();
    let at = |id: &str| {
        let r = e.call("find_elements", json!({"element_id": id}), &ctx);
        assert!(r.ok(), "{id}: {:?}", r.structured.error);
        let c = &r.result()["elements"][0]["center"];
        Point::new(
            c["x"].as_i64().unwrap() as i32,
            c["y"].as_i64().unwrap() as i32,
        )
    };
    let ok = |tool: &str, args: Value| assert!(e.call(tool, args, &ctx).ok());
    ok("run_app", json!({"bundle_name": DEMO}));
    let (username, login) = (at("username"), at("login"));
    let serial = p.serial();
    {
        let mut ph = p.simulator().phone(&serial).unwrap();
        let now = SystemTime::now();
        ph.click(username.x, username.y, now);
        ph.type_text("alice", &mut |_| false, now).unwrap();
        ph.click(login.x, login.y, now);
        ph.tick(now + Duration::from_secs(1));
    }
    let (open_items, open_settings) = (at("open_items"), at("open_settings"));
    ok("click", json!({"element_id": "open_settings"}));
    let reset = at("reset");
    Coords {
        username,
        login,
        open_items,
        open_settings,
        reset,
    }
}

struct Bench {
    provider: Arc<SimProvider>,
    ctx: ToolContext,
    engine: Engine,
    coords: Coords,
    hap: Vec<u8>,
    _tmp: tempfile::TempDir,
}

impl Bench {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let provider = SimProvider::single(Latency::Realistic, FaultSpec::none(), 1, tmp.path());
        let config = ToolConfig {
            screenshots_dir: tmp.path().join("shots"),
            ..ToolConfig::rooted_at(tmp.path())
        };
        let hap = build_hap(
            &module_json(TEST_BUNDLE, 1, "1.0.0", "EntryAbility"),
            None,
            true,
        );
        std::fs::write(tmp.path().join("bench.hap"), &hap).unwrap();
        Bench {
            ctx: ToolContext::new(provider.clone(), config),
            provider,
            engine: Engine::new(),
            coords: coords(),
            hap,
            _tmp: tmp,
        }
    }

    /// Restores `screen` through the phone's API (no hdc, no simulated latency).
    fn bring(&self, screen: Screen) {
        let serial = self.provider.serial();
        let mut ph = self.provider.simulator().phone(&serial).unwrap();
        let now = SystemTime::now();
        if matches!(screen, Screen::LoginField) {
            // Focus the field, select all, delete, then Back drops the focus (keyboard).
            let u = self.coords.username;
            ph.click(u.x, u.y, now);
            ph.key_event(
                &[
                    KeyPress::Code(keycode::CTRL_LEFT),
                    KeyPress::Code(keycode::A),
                ],
                now,
            );
            ph.key_event(&[KeyPress::Code(keycode::DEL)], now);
            ph.key_event(&[KeyPress::Back], now);
            return;
        }
        let _ = ph.force_stop(DEMO, now);
        if ph.bundles().iter().all(|b| b != TEST_BUNDLE) {
            ph.install_hap(&self.hap, true, now).unwrap();
        }
        if matches!(screen, Screen::Launcher) {
            return;
        }
        ph.start_ability(DEMO, "EntryAbility", None, now).unwrap();
        if matches!(screen, Screen::Login) {
            return;
        }
        let c = &self.coords;
        ph.click(c.username.x, c.username.y, now);
        ph.type_text("alice", &mut |_| false, now).unwrap();
        ph.click(c.login.x, c.login.y, now);
        let later = now + Duration::from_secs(1);
        ph.tick(later);
        match screen {
            Screen::Items => ph.click(c.open_items.x, c.open_items.y, later),
            Screen::Dialog => {
                ph.click(c.open_settings.x, c.open_settings.y, later);
                ph.click(c.reset.x, c.reset.y, later);
            }
            _ => {}
        }
    }

    fn call(&self, tool: &str, args: &Value) -> Value {
        let env = self.engine.call(tool, args.clone(), &self.ctx);
        assert!(env.ok(), "{tool} {args}: {:?}", env.structured.error);
        env.result().clone()
    }
}

/// The element handle of the demo app's username field, as `find_elements` returns it on the
/// bench's own (realistic) phone, on a freshly started login page. The `input_text` cases then
/// start from [`Screen::LoginField`] (the same window, field emptied), so the handle stays live
/// for every iteration (`resolved_via: element_handle`; restarting the app gives a new window
/// id, and the handle would be refreshed through its `lookup_hint` instead).
fn username_handle(b: &Bench) -> Value {
    b.bring(Screen::Login);
    let r = b.call("find_elements", &json!({"element_id": "username"}));
    r["elements"][0]["element_handle"].clone()
}

/// (label, tool, arguments, starting screen). Cases starting from [`Screen::LoginField`] get
/// the username field's `element_handle` filled in when they run.
fn cases() -> Vec<(&'static str, &'static str, Value, Screen)> {
    use Screen::*;
    vec![
        ("list_devices", "list_devices", json!({}), Launcher),
        ("query_package list", "query_package", json!({}), Launcher),
        (
            "query_package main_ability",
            "query_package",
            json!({"bundle_name": DEMO, "info_type": "main_ability"}),
            Launcher,
        ),
        (
            "install_app (replace)",
            "install_app",
            json!({"hap_path": "bench.hap"}),
            Launcher,
        ),
        (
            "run_app (auto-detect + window check)",
            "run_app",
            json!({"bundle_name": DEMO}),
            Launcher,
        ),
        (
            "uninstall_app",
            "uninstall_app",
            json!({"bundle_name": TEST_BUNDLE}),
            Launcher,
        ),
        ("stop_app", "stop_app", json!({"bundle_name": DEMO}), Login),
        (
            "clear_app_data",
            "clear_app_data",
            json!({"bundle_name": DEMO}),
            Login,
        ),
        ("click by text", "click", json!({"text": "Login"}), Login),
        (
            "click by text, verify",
            "click",
            json!({"text": "Login", "verify": true}),
            Login,
        ),
        (
            "click by coordinates",
            "click",
            json!({"x": 630, "y": 866}),
            Login,
        ),
        (
            "long_press by id",
            "long_press",
            json!({"element_id": "remember"}),
            Login,
        ),
        (
            "swipe up (direction, speed 2000)",
            "swipe",
            json!({"direction": "up", "speed": 2000}),
            Items,
        ),
        (
            "drag (speed 2000)",
            "drag",
            json!({"from_x": 630, "from_y": 2000, "to_x": 630, "to_y": 1000, "speed": 2000}),
            Items,
        ),
        (
            "press_key Back (closes dialog)",
            "press_key",
            json!({"key": "Back"}),
            Dialog,
        ),
        (
            "find_elements by text",
            "find_elements",
            json!({"text": "Login"}),
            Login,
        ),
        ("screenshot full (png)", "screenshot", json!({}), Login),
        (
            "screenshot region",
            "screenshot",
            json!({"left": 0, "top": 0, "right": 600, "bottom": 400}),
            Login,
        ),
        ("get_ui_tree global", "get_ui_tree", json!({}), Login),
        (
            "get_ui_tree bundle scope",
            "get_ui_tree",
            json!({"bundle_name": DEMO}),
            Login,
        ),
        ("list_windows", "list_windows", json!({}), Login),
        (
            "wait_for_element (first poll + confirm)",
            "wait_for_element",
            json!({"text": "Login"}),
            Login,
        ),
        (
            "scroll_until_visible Item 45 (speed 2000)",
            "scroll_until_visible",
            json!({"text": "Item 45", "speed": 2000}),
            Items,
        ),
        (
            "wait_for_stable (defaults)",
            "wait_for_stable",
            json!({}),
            Login,
        ),
        // The field is emptied before every iteration, the window kept (`Screen::LoginField`).
        (
            "input_text handle \"security\" (sentinel paste)",
            "input_text",
            json!({"text": "security"}),
            LoginField,
        ),
        (
            "input_text handle \"中文🎉\" (native paste)",
            "input_text",
            json!({"text": "中文🎉"}),
            LoginField,
        ),
        (
            "logs_query markers LOGIN_SUCCESS (device)",
            "logs_query",
            json!({"mode": "markers", "marker_keywords": ["LOGIN_SUCCESS"], "seconds": 120}),
            Home,
        ),
    ]
}

fn tools(c: &mut Criterion) {
    let b = Bench::new();
    let mut rows = Vec::new();
    let mut group = c.benchmark_group("tools_sim_realistic");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(2));
    group.warm_up_time(Duration::from_millis(300));
    for (label, tool, mut args, screen) in cases() {
        if matches!(screen, Screen::LoginField) {
            // Minted on the window the case then keeps (a restart would stale it).
            args["element_handle"] = username_handle(&b);
        }
        // One counted call first: round trips and dumps are counts, not timings.
        b.bring(screen);
        let mut counted = args.clone();
        counted["include_cost"] = json!(true);
        let started = Instant::now();
        let r = b.call(tool, &counted);
        let wall = started.elapsed().as_millis();
        let cost = &r["cost"];
        println!(
            "{label}: device_round_trips={} ui_dumps={} one_call_wall_ms={wall}{}",
            cost["device_round_trips"],
            cost["ui_dumps"],
            detail(tool, &r)
        );
        rows.push((
            label,
            cost["device_round_trips"].clone(),
            cost["ui_dumps"].clone(),
            wall,
        ));
        group.bench_function(label, |bencher| {
            bencher.iter_batched(
                || b.bring(screen),
                |_| b.call(tool, &args),
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
    println!("\n| tool call | device round trips | UI dumps | one call (ms) |");
    println!("|---|---:|---:|---:|");
    for (label, rt, dumps, wall) in rows {
        println!("| {label} | {rt} | {dumps} | {wall} |");
    }
}

/// What decided a call's round trips, where the result says (input route, marker found).
fn detail(tool: &str, r: &Value) -> String {
    match tool {
        "input_text" => format!(
            " input_strategy={} resolved_via={} verified={} text={}",
            r["input_strategy"], r["resolved_via"], r["verified"], r["actual_text"]
        ),
        "logs_query" => format!(
            " source_used={} matched={} match_count={} lines_scanned={}",
            r["source_used"], r["matched"], r["match_count"], r["lines_scanned"]
        ),
        _ => String::new(),
    }
}

/// `logs_query` with inline logs writing a new `save_path` each call: under `rooted_at` (one
/// root, nothing protected) and under the configuration the CLI builds (output roots apart from
/// read roots, a project file, a token file and two build tools protected).
fn host_writes(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("project");
    std::fs::create_dir_all(project.join("logs")).unwrap();
    for f in ["tapflow.toml", "token"] {
        std::fs::write(project.join(f), "x").unwrap();
    }
    let sources = tapflow_tools::config::RootSources {
        project_dir: Some(project.clone()),
        trusted_files: vec![project.join("tapflow.toml"), project.join("token")],
        ..Default::default()
    };
    let env = [
        ("HOME", tmp.path().join("home")),
        ("TAPFLOW_HVIGORW", project.join("tools/hvigorw")),
        ("DEVECO_SDK_HOME", tmp.path().join("sdk")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.display().to_string()))
    .collect();
    let cli = ToolConfig::configure(&env, &project, &sources).unwrap();
    let provider = SimProvider::single(Latency::None, FaultSpec::none(), 1, &project);
    let engine = Engine::new();
    let mut group = c.benchmark_group("host_write");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(2));
    group.warm_up_time(Duration::from_millis(300));
    let mut n = 0u64;
    for (label, config) in [
        ("save_path/one_root", ToolConfig::rooted_at(&project)),
        ("save_path/cli_config", cli),
    ] {
        let ctx = ToolContext::new(provider.clone(), config);
        group.bench_function(label, |bencher| {
            bencher.iter(|| {
                n += 1;
                let args = json!({"logs": ["x"], "save_path": format!("logs/s{n}.log")});
                let r = engine.call("logs_query", args, &ctx);
                assert!(r.ok(), "{:?}", r.structured.error);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, tools, host_writes);
criterion_main!(benches);
