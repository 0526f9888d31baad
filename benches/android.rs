//! Android benchmarks (through the real `adb` client on a private server; install it with
//! `scripts/test-deps.d/40-adb.sh`).
//!
//! - Round trips: every `Device` operation of the adb backend run once against the simulated
//!   Android device with latency `none`; its cost (`Device::cost`: adb round trips and UI
//!   dumps) is printed as a table. Counts are deterministic, so they are printed, not measured.
//! - The login flow (`flows/login.yaml` with its sub-flow, unchanged) run on one simulated
//!   HarmonyOS device (in-process hdc simulator) and one simulated Android device (TCP + adb),
//!   both with realistic simulated latency: round trips, UI dumps and wall time of each,
//!   printed side by side (median of a few runs).
//! - `android_op_realistic/*`: criterion timings of the common operations on Android.
//!
//! Run: `cargo bench --bench android -- --quick`. Figures: docs/benchmarks.md and docs/android.md.

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use tapflow::cli::android_sim::AndroidSimSession;
use tapflow::run::{self, DeviceChoice, RunOptions, Status};
use tapflow_core::flow::SourceFile;
use tapflow_core::plan::{MapLoader, Plan, PlanOptions, compile};
use tapflow_device::{
    Cost, Device, DumpScope, Gesture, ImageFormat, KeyInput, LogQuery, Point, ScreenshotRequest,
    TapKind, TextTarget, UiNode,
};
use tapflow_sim::Latency;
use tapflow_tools::RegistryCatalog;
use tapflow_tools::{DeviceProvider, DeviceRoute, Engine, ToolConfig, ToolContext};

use tapflow_sim::DEMO_BUNDLE as DEMO;
const MAIN: &str = "com.tapflow.demo.EntryAbility";
const REPS: usize = 3;

fn session(latency: Latency) -> AndroidSimSession {
    AndroidSimSession::start(1, None, 1, latency, None).expect(
        "simulated Android device on a private adb server (is adb installed? scripts/test-deps.d/40-adb.sh)",
    )
}

fn device(s: &AndroidSimSession) -> Arc<dyn Device> {
    s.provider()
        .resolve(&DeviceRoute {
            device_id: Some(s.serials()[0].clone()),
            hdc_server: None,
        })
        .expect("resolve")
}

fn by_id(root: &UiNode, id: &str) -> Point {
    root.walk()
        .find(|n| n.id() == id)
        .and_then(UiNode::bounds)
        .unwrap_or_else(|| panic!("no #{id}"))
        .center()
}

fn round_trip_table() {
    let s = session(Latency::None);
    let d = device(&s);
    let tmp = tempfile::tempdir().expect("tmp");
    let apk = tmp.path().join("bench.apk");
    std::fs::write(
        &apk,
        tapflow_sim::android::apk::build_apk(
            &tapflow_sim::android::apk::manifest("com.example.bench", 1, "1.0", ".Main"),
            None,
        ),
    )
    .expect("apk");
    let mut rows: Vec<(&str, Cost)> = Vec::new();
    let mut measure = |name: &'static str, op: &mut dyn FnMut()| {
        let before = d.cost();
        op();
        rows.push((name, d.cost() - before));
    };
    measure("info", &mut || drop(d.info().expect("info")));
    measure("power_state", &mut || drop(d.power_state().expect("power")));
    measure("start_app", &mut || {
        d.start_app(DEMO, MAIN, None).expect("start")
    });
    let mut tree = UiNode::default();
    measure("ui_tree", &mut || {
        tree = d.ui_tree(&DumpScope::default()).expect("dump")
    });
    let user = by_id(&tree, "username");
    measure("windows (focused window)", &mut || {
        drop(d.windows().expect("windows"))
    });
    measure("tap", &mut || d.tap(user, TapKind::Single).expect("tap"));
    measure("input_text (ASCII, focused)", &mut || {
        d.input_text(TextTarget::Focused, "bench user")
            .expect("type")
    });
    measure(
        "input_text (non-ASCII: IME query + ADBKeyBoard)",
        &mut || d.input_text(TextTarget::Focused, "Zoë").expect("commit"),
    );
    measure("key_event", &mut || {
        d.key_event(&KeyInput::Codes(vec![123])).expect("key")
    });
    measure("act_then_tree (tap + dump)", &mut || {
        let o = d.act_then_tree(
            &tapflow_device::UiAction::Tap(user, TapKind::Single),
            &DumpScope::default(),
        );
        o.action.expect("tap");
    });
    measure("gesture (swipe)", &mut || {
        d.gesture(&Gesture::Swipe {
            from: Point::new(540, 1800),
            to: Point::new(540, 900),
            speed: 3000,
        })
        .expect("swipe")
    });
    measure("screenshot (PNG)", &mut || {
        d.screenshot(&ScreenshotRequest {
            format: ImageFormat::Png,
            display_id: None,
            region: None,
        })
        .expect("png");
    });
    measure("packages", &mut || drop(d.packages().expect("packages")));
    measure("package_info", &mut || {
        drop(d.package_info(DEMO).expect("info"))
    });
    measure("pid_of", &mut || {
        let _ = d.pid_of(DEMO).expect("pid");
    });
    measure("logs", &mut || {
        drop(d.logs(&LogQuery::default()).expect("logs"))
    });
    measure("install (.apk)", &mut || {
        d.install(&apk, true).expect("install")
    });
    measure("uninstall", &mut || {
        d.uninstall("com.example.bench").expect("uninstall")
    });
    measure("stop_app", &mut || d.stop_app(DEMO).expect("stop"));
    measure("clear_app_data", &mut || {
        d.clear_app_data(DEMO).expect("clear")
    });
    println!("\n| Device operation (adb) | round trips | UI dumps |\n|---|---|---|");
    for (name, c) in rows {
        println!("| `{name}` | {} | {} |", c.round_trips, c.ui_dumps);
    }
}

/// `flows/login.yaml` and its sub-flow, compiled unchanged.
fn login_plan(engine: &Arc<Engine>) -> Plan {
    let root = env!("CARGO_MANIFEST_DIR");
    let read = |p: &str| std::fs::read_to_string(format!("{root}/{p}")).expect("flow file");
    let flows = [SourceFile::new(
        "flows/login.yaml",
        read("flows/login.yaml"),
    )];
    let loader = MapLoader::new().with(
        "flows/subflows/login.yaml",
        &read("flows/subflows/login.yaml"),
    );
    let compiled = compile(
        &flows,
        &[],
        &RegistryCatalog::new(engine.clone()),
        &loader,
        &PlanOptions::default(),
    );
    assert!(!compiled.has_errors(), "{:?}", compiled.diagnostics);
    compiled.plan
}

/// Runs the plan once on the provider's device; returns its cost and wall time.
fn run_login(
    plan: &Plan,
    engine: &Arc<Engine>,
    provider: Arc<dyn DeviceProvider>,
    serial: &str,
) -> (Cost, Duration) {
    let tmp = tempfile::tempdir().expect("tmp");
    let ctx = ToolContext::new(provider.clone(), ToolConfig::rooted_at(tmp.path()));
    let d = provider
        .resolve(&DeviceRoute {
            device_id: Some(serial.to_string()),
            hdc_server: None,
        })
        .expect("resolve");
    let mut opts = RunOptions::new(run::new_run_id());
    opts.devices = DeviceChoice::Serials(vec![serial.to_string()]);
    let before = d.cost();
    let t = Instant::now();
    let r = run::run(plan, engine.clone(), ctx, &opts, &run::NoEvents);
    let took = t.elapsed();
    assert_eq!(r.status, Status::Passed, "{:?}", r.flows[0].error);
    (d.cost() - before, took)
}

fn login_comparison() {
    let engine = Arc::new(Engine::new());
    let plan = login_plan(&engine);
    let mut rows = Vec::new();
    {
        let tmp = tempfile::tempdir().expect("tmp");
        let (provider, serials) =
            tapflow::sim_provider::sim_provider(1, None, 1, Latency::Realistic, tmp.path())
                .expect("hdc sim");
        let runs: Vec<(Cost, Duration)> = (0..REPS)
            .map(|_| run_login(&plan, &engine, provider.clone(), &serials[0]))
            .collect();
        rows.push(("HarmonyOS (hdc, in-process simulator)", runs));
    }
    {
        let s = session(Latency::Realistic);
        let runs: Vec<(Cost, Duration)> = (0..REPS)
            .map(|_| run_login(&plan, &engine, s.provider(), &s.serials()[0]))
            .collect();
        rows.push(("Android (real adb → simulated device over TCP)", runs));
    }
    println!(
        "\n| login flow (realistic latency) | round trips | UI dumps | wall time (median of {REPS}) |\n|---|---|---|---|"
    );
    for (name, runs) in rows {
        let c = runs[0].0;
        assert!(runs.iter().all(|(x, _)| *x == c), "deterministic counts");
        let mut t: Vec<Duration> = runs.iter().map(|(_, t)| *t).collect();
        t.sort();
        println!(
            "| {name} | {} | {} | {:.2} s |",
            c.round_trips,
            c.ui_dumps,
            t[t.len() / 2].as_secs_f64()
        );
    }
}

fn ops(c: &mut Criterion) {
    round_trip_table();
    login_comparison();
    let s = session(Latency::Realistic);
    let d = device(&s);
    d.start_app(DEMO, MAIN, None).expect("start");
    let mut g = c.benchmark_group("android_op_realistic");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(8));
    g.bench_function("ui_tree", |b| {
        b.iter(|| d.ui_tree(&DumpScope::default()).expect("dump"))
    });
    g.bench_function("tap", |b| {
        b.iter(|| d.tap(Point::new(1, 1), TapKind::Single).expect("tap"))
    });
    g.bench_function("screenshot_png", |b| {
        b.iter(|| {
            d.screenshot(&ScreenshotRequest {
                format: ImageFormat::Png,
                display_id: None,
                region: None,
            })
            .expect("png")
        })
    });
    g.finish();
}

criterion_group!(benches, ops);
criterion_main!(benches);
