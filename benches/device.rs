//! Device-layer benchmarks.
//!
//! - `parse_layout/*`: parse time of every fixture layout (the 1.5 MB one included).
//! - Round trips: every `Device` operation is run once against the in-process simulator with
//!   latency `none`, and its cost (`Device::cost`: hdc round trips and UI dumps) is printed as a
//!   table at bench start. Counts are deterministic, so they are printed, not measured.
//! - `device_op_realistic/*`: wall time of each operation through the hdc backend against the
//!   in-process simulator with realistic simulated latency (what a real phone costs).
//!
//! Figures and how to read them: docs/benchmarks.md.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use std::hint::black_box;
use tapflow_device::hdc::parse::layout::parse_layout;
use tapflow_device::hdc::{HdcClient, HdcConfig, HdcDevice, HdcRoute};
use tapflow_device::{
    Cost, Device, Direction, DumpScope, Gesture, ImageFormat, KeyInput, LogQuery, Point,
    ScreenshotRequest, TapKind, TextTarget, UiNode,
};
use tapflow_sim::phone::hap::{build_hap, module_json};
use tapflow_sim::{Latency, SimOptions, SimTransport, Simulator};

const LAYOUTS: &[&str] = &[
    "layout_haptest_logindemo_login_pretty.json",
    "layout_haptest_logindemo_save_keyboard_pretty.json",
    "layout_haptest_soundrecorder_modalpage_pretty.json",
    "layout_haptest_vmall_web_keyboard_large_pretty.json",
    "layout_hmdriver2_uitest_demo_mate60pro_pretty.json",
    "layout_ohauto_dayu200_locked_screen_no_window_compact.json",
];

use tapflow_sim::DEMO_BUNDLE as DEMO;

fn layouts(c: &mut Criterion) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/harmonyos/");
    let mut group = c.benchmark_group("parse_layout");
    for name in LAYOUTS {
        let text = std::fs::read_to_string(format!("{dir}{name}")).expect("fixture");
        group.throughput(criterion::Throughput::Bytes(text.len() as u64));
        group.bench_function(*name, |b| {
            b.iter(|| parse_layout(black_box(&text)).expect("parses"))
        });
    }
    group.finish();
}

/// A connected device on a fresh in-process simulator (and the client that listed it).
fn device(latency: Latency, cwd: &Path) -> (HdcClient, HdcDevice) {
    let sim = Arc::new(Simulator::new(SimOptions {
        latency,
        ..Default::default()
    }));
    let client = HdcClient::new(HdcConfig::default(), Arc::new(SimTransport::new(sim, cwd)));
    let serial = client.list_targets().expect("list")[0].serial.clone();
    let device = client.connect(HdcRoute::target(serial)).expect("connect");
    (client, device)
}

fn by_id(root: &UiNode, id: &str) -> Point {
    root.walk()
        .find(|n| n.id() == id)
        .and_then(UiNode::bounds)
        .unwrap_or_else(|| panic!("no #{id}"))
        .center()
}

fn jpeg() -> ScreenshotRequest {
    ScreenshotRequest {
        format: ImageFormat::Jpeg,
        display_id: None,
        region: None,
    }
}

/// Every Device operation once, in an order that makes each meaningful (the demo app running,
/// a crash file present, …), with its round trips and UI dumps.
fn round_trip_table() -> Vec<(&'static str, Cost)> {
    let tmp = tempfile::tempdir().expect("tmp");
    let (client, d) = device(Latency::None, tmp.path());
    let hap_path = tmp.path().join("bench.hap");
    let hap = build_hap(
        &module_json("com.example.bench", 1, "1.0", "EntryAbility"),
        None,
        true,
    );
    std::fs::write(&hap_path, hap).expect("write hap");

    let mut rows = Vec::new();
    let mut measure = |name: &'static str, op: &mut dyn FnMut()| {
        let before = d.cost();
        op();
        rows.push((name, d.cost() - before));
    };
    let before = client.cost();
    client.list_targets().expect("list");
    let list_cost = client.cost() - before;

    measure("info", &mut || {
        d.info().expect("info");
    });
    measure("power_state", &mut || {
        d.power_state().expect("power");
    });
    measure("start_app", &mut || {
        d.start_app(DEMO, "EntryAbility", None).expect("start")
    });
    let mut tree = UiNode::default();
    measure("ui_tree", &mut || {
        tree = d.ui_tree(&DumpScope::default()).expect("dump")
    });
    measure("ui_tree (scoped to a bundle)", &mut || {
        d.ui_tree(&DumpScope {
            bundle: Some(DEMO.into()),
            window_id: None,
        })
        .expect("scoped dump");
    });
    measure("windows", &mut || {
        d.windows().expect("windows");
    });
    measure("missions", &mut || {
        d.missions().expect("missions");
    });
    let field = by_id(&tree, "username");
    measure("tap", &mut || d.tap(field, TapKind::Single).expect("tap"));
    measure("input_text (focused)", &mut || {
        d.input_text(TextTarget::Focused, "bench").expect("type")
    });
    measure("input_text (at point)", &mut || {
        d.input_text(TextTarget::At(field), "x").expect("type")
    });
    measure("key_event", &mut || {
        d.key_event(&KeyInput::Back).expect("key")
    });
    measure("gesture (swipe)", &mut || {
        d.gesture(&Gesture::Swipe {
            from: Point::new(600, 2000),
            to: Point::new(600, 800),
            speed: 2000,
        })
        .expect("swipe")
    });
    measure("gesture (directional fling)", &mut || {
        d.gesture(&Gesture::DirectionalFling {
            direction: Direction::Up,
            speed: 2000,
            step: None,
        })
        .expect("fling")
    });
    measure("screenshot (jpeg)", &mut || {
        d.screenshot(&jpeg()).expect("jpeg");
    });
    measure("screenshot (png)", &mut || {
        d.screenshot(&ScreenshotRequest {
            format: ImageFormat::Png,
            ..jpeg()
        })
        .expect("png");
    });
    measure("packages", &mut || {
        d.packages().expect("packages");
    });
    measure("package_info", &mut || {
        d.package_info(DEMO).expect("package info");
    });
    measure("pid_of", &mut || {
        d.pid_of(DEMO).expect("pid");
    });
    measure("logs", &mut || {
        d.logs(&LogQuery {
            regex: Some("PAGE_SHOWN".into()),
            ..Default::default()
        })
        .expect("logs");
    });
    measure("clear_logs", &mut || d.clear_logs().expect("clear logs"));
    measure("install", &mut || {
        d.install(&hap_path, true).expect("install")
    });
    measure("uninstall", &mut || {
        d.uninstall("com.example.bench").expect("uninstall")
    });
    measure("stop_app", &mut || d.stop_app(DEMO).expect("stop"));
    measure("clear_app_data", &mut || {
        d.clear_app_data(DEMO).expect("clear data")
    });
    // Log in and press Crash, so faultlogger has a file to list and read.
    d.start_app(DEMO, "EntryAbility", None).expect("start");
    let t = d.ui_tree(&DumpScope::default()).expect("dump");
    d.input_text(TextTarget::At(by_id(&t, "username")), "crash")
        .expect("type");
    d.key_event(&KeyInput::Back).expect("hide IME");
    d.tap(by_id(&t, "login"), TapKind::Single).expect("login");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let home = loop {
        let t = d.ui_tree(&DumpScope::default()).expect("dump");
        if t.walk().any(|n| n.id() == "crash") {
            break t;
        }
        assert!(std::time::Instant::now() < deadline, "no home page");
    };
    d.tap(by_id(&home, "crash"), TapKind::Single)
        .expect("crash");
    let mut files = Vec::new();
    measure("crash_files", &mut || {
        files = d.crash_files().expect("crash files")
    });
    let file = files.first().expect("a crash file").file_name.clone();
    measure("read_crash_file", &mut || {
        d.read_crash_file(&file).expect("read crash");
    });
    rows.insert(0, ("list_targets (client)", list_cost));
    rows
}

fn print_table(rows: &[(&str, Cost)]) {
    println!("\nhdc round trips per Device operation (in-process simulator, latency none)");
    println!("| operation | round trips | UI dumps |");
    println!("|---|---:|---:|");
    for (name, c) in rows {
        println!("| `{name}` | {} | {} |", c.round_trips, c.ui_dumps);
    }
    println!();
}

fn round_trips(c: &mut Criterion) {
    print_table(&round_trip_table());

    let tmp = tempfile::tempdir().expect("tmp");
    let (_client, d) = device(Latency::Realistic, tmp.path());
    d.start_app(DEMO, "EntryAbility", None).expect("start");
    let tree = d.ui_tree(&DumpScope::default()).expect("dump");
    let field = by_id(&tree, "username");
    let title = by_id(&tree, "title");

    let mut g = c.benchmark_group("device_op_realistic");
    // Each iteration is one or more simulated round trips (tens to hundreds of ms): flat
    // sampling keeps the run to ~10 iterations per operation.
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    g.bench_function("info", |b| b.iter(|| d.info().expect("info")));
    g.bench_function("ui_tree", |b| {
        b.iter(|| d.ui_tree(&DumpScope::default()).expect("dump"))
    });
    g.bench_function("windows", |b| b.iter(|| d.windows().expect("windows")));
    // Tapping the title changes nothing, so every sample sees the same screen.
    g.bench_function("tap", |b| {
        b.iter(|| d.tap(title, TapKind::Single).expect("tap"))
    });
    g.bench_function("input_text", |b| {
        b.iter(|| d.input_text(TextTarget::At(field), "ab").expect("type"))
    });
    g.bench_function("key_event", |b| {
        b.iter(|| d.key_event(&KeyInput::Codes(vec![2055])).expect("key"))
    });
    g.bench_function("screenshot_jpeg", |b| {
        b.iter(|| d.screenshot(&jpeg()).expect("jpeg"))
    });
    g.bench_function("start_app", |b| {
        b.iter(|| d.start_app(DEMO, "EntryAbility", None).expect("start"))
    });
    g.bench_function("package_info", |b| {
        b.iter(|| d.package_info(DEMO).expect("package info"))
    });
    g.bench_function("logs", |b| {
        b.iter(|| {
            d.logs(&LogQuery {
                tail: Some(50),
                ..Default::default()
            })
            .expect("logs")
        })
    });
    g.finish();
}

criterion_group!(benches, round_trips, layouts);
criterion_main!(benches);
