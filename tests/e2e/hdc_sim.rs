//! End to end: the real hdc backend (`HdcClient` → `HdcDevice`) drives the simulated device,
//! once in-process (`SimTransport`) and once through the `hdc` executable that
//! `tapflow sim start` writes (a real process per round trip). The same scenario runs on both:
//! list, connect, info, launch the demo app, dump, tap the username field, type, read the text
//! back, log in, wait for the greeting (polling against a deadline), screenshots that decode as
//! JPEG at the screen's size and differ between screens, and the app's hilog marker.

use crate::common::sim_daemon;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sim_daemon::SimDaemon;
use tapflow_device::hdc::{HdcClient, HdcConfig, HdcDevice, HdcRoute};
use tapflow_device::{
    Device, DumpScope, ImageFormat, LogQuery, Screenshot, ScreenshotRequest, TapKind, TextTarget,
    UiNode,
};
use tapflow_sim::{Latency, SimOptions, SimTransport, Simulator};

use tapflow_sim::DEMO_BUNDLE as DEMO;

fn by_id<'a>(root: &'a UiNode, id: &str) -> Option<&'a UiNode> {
    root.walk().find(|n| n.id() == id)
}

fn jpeg(device: &HdcDevice) -> Screenshot {
    device
        .screenshot(&ScreenshotRequest {
            format: ImageFormat::Jpeg,
            display_id: None,
            region: None,
        })
        .expect("screenshot")
}

/// Checks the bytes really are a JPEG of the announced size (not only what the backend says).
fn assert_jpeg_of_size(shot: &Screenshot, (w, h): (u32, u32)) {
    assert_eq!(shot.format, ImageFormat::Jpeg);
    assert_eq!(
        image::guess_format(&shot.bytes).unwrap(),
        image::ImageFormat::Jpeg
    );
    let img = image::load_from_memory_with_format(&shot.bytes, image::ImageFormat::Jpeg).unwrap();
    assert_eq!((img.width(), img.height()), (w, h));
    assert_eq!((shot.width, shot.height), (w, h));
}

/// Polls the UI until `pred` holds, against a wall-clock deadline (no fixed sleep: each poll
/// is a full dump round trip, which is the device's own pace).
fn wait_for(device: &HdcDevice, deadline: Duration, pred: impl Fn(&UiNode) -> bool) -> UiNode {
    let until = Instant::now() + deadline;
    loop {
        let tree = device.ui_tree(&DumpScope::default()).expect("dump");
        if pred(&tree) {
            return tree;
        }
        assert!(
            Instant::now() < until,
            "condition not met within {deadline:?}"
        );
        std::thread::yield_now();
    }
}

/// The whole acceptance scenario over one client; `name` is typed into the username field.
fn scenario(client: &HdcClient, name: &str) {
    let targets = client.list_targets().expect("list targets");
    assert_eq!(targets.len(), 1, "{targets:?}");
    let device = client.connect(HdcRoute::default()).expect("connect");
    assert_eq!(device.serial(), targets[0].serial);

    let info = device.info().expect("info");
    let screen = info.screen.expect("screen size");
    let size = (screen.width, screen.height);
    assert_eq!(size, (1260, 2720));
    assert_eq!(info.model.as_deref(), Some("ALN-AL00"));
    assert!(info.api_level.is_some());

    let launcher = jpeg(&device);
    assert_jpeg_of_size(&launcher, size);

    let before = device.cost();
    device
        .start_app(DEMO, "EntryAbility", None)
        .expect("start app");
    assert_eq!((device.cost() - before).round_trips, 1);

    let login = device.ui_tree(&DumpScope::default()).expect("dump");
    assert_eq!(by_id(&login, "title").unwrap().text(), "Tapflow Demo");
    let field = by_id(&login, "username").expect("username field");
    assert_eq!(field.text(), "");
    let at = field.bounds().expect("bounds").center();

    device.tap(at, TapKind::Single).expect("tap username");
    device
        .input_text(TextTarget::Focused, name)
        .expect("type name");
    let typed = device.ui_tree(&DumpScope::default()).expect("dump");
    assert_eq!(by_id(&typed, "username").unwrap().text(), name);
    // Focusing the field raised the IME: a window of its own in the dump.
    assert!(
        typed
            .walk()
            .any(|n| n.attr("bundleName").contains("inputmethod")),
        "no IME window in the dump"
    );

    let login_shot = jpeg(&device);
    assert_jpeg_of_size(&login_shot, size);
    assert_ne!(launcher.bytes, login_shot.bytes, "two screens, one image");

    let button = by_id(&typed, "login").expect("login button");
    device
        .tap(button.bounds().unwrap().center(), TapKind::Single)
        .expect("tap login");
    let greeting = format!("Hello, {name}!");
    let home = wait_for(&device, Duration::from_secs(10), |t| {
        by_id(t, "greeting").is_some_and(|g| g.text() == greeting)
    });
    assert!(by_id(&home, "logout").is_some());
    let home_shot = jpeg(&device);
    assert_jpeg_of_size(&home_shot, size);
    assert_ne!(login_shot.bytes, home_shot.bytes);

    let logs = device
        .logs(&LogQuery {
            regex: Some("LOGIN_SUCCESS".into()),
            ..Default::default()
        })
        .expect("hilog");
    let marker = format!("LOGIN_SUCCESS user={name}");
    let line = logs
        .lines()
        .find(|l| l.contains(&marker))
        .unwrap_or_else(|| panic!("no {marker:?} in {logs:?}"));
    assert!(line.contains("A0d0d0/DemoApp"), "{line}");
}

#[test]
fn backend_drives_the_in_process_simulator() {
    let sim = Arc::new(Simulator::new(SimOptions {
        latency: Latency::None,
        seed: 3,
        ..Default::default()
    }));
    let cwd = tempfile::tempdir().unwrap();
    let client = HdcClient::new(
        HdcConfig::default(),
        Arc::new(SimTransport::new(sim, cwd.path())),
    );
    scenario(&client, "alice");
}

#[test]
fn backend_drives_the_hdc_executable() {
    let daemon = SimDaemon::start(&["--seed", "9"]);
    let hdc = daemon.hdc.clone();
    assert!(Path::new(&hdc).is_file());
    let client = HdcClient::with_process(HdcConfig {
        program: hdc,
        ..Default::default()
    });
    // A name with a space and a quote: it crosses a real argv, hdc's join and the device shell.
    scenario(&client, "bob o'neil");
}
