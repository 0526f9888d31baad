//! The chained device operations of the hdc backend, on the simulated phone (latency none):
//! each is ONE `hdc shell` round trip, and every part keeps its own verdict. Round trips are
//! asserted by count (`Device::cost`), never by time.
//!
//! - `acts_then_tree`: several UI actions and the dump after them (input_text's select-all key,
//!   text and verification);
//! - `start_app_checked`: `aa start`, the window table and the app's pids (run_app's launch and
//!   first window check), optionally a dump;
//! - `app_windows`: the window table and the app's pids;
//! - `check_ready`: the device check before a run (info, power state, a dump);
//! - a screenshot's device file is deleted by the next shell command, not by a round trip of
//!   its own.

use std::sync::Arc;

use tapflow_device::hdc::{HdcClient, HdcConfig, HdcDevice, HdcRoute};
use tapflow_device::{
    Device, DumpScope, ImageFormat, KeyInput, ScreenshotRequest, TapKind, TextTarget, UiAction,
    UiNode,
};
use tapflow_sim::{Latency, SimOptions, SimTransport, Simulator};

use tapflow_sim::DEMO_BUNDLE as DEMO;

fn by_id<'a>(root: &'a UiNode, id: &str) -> Option<&'a UiNode> {
    root.walk().find(|n| n.id() == id)
}

fn sim() -> Arc<Simulator> {
    Arc::new(Simulator::new(SimOptions {
        latency: Latency::None,
        ..SimOptions::default()
    }))
}

fn device_on(sim: &Arc<Simulator>, dir: &std::path::Path) -> HdcDevice {
    let client = HdcClient::new(
        HdcConfig::default(),
        Arc::new(SimTransport::new(sim.clone(), dir)),
    );
    client.connect(HdcRoute::default()).expect("connect")
}

/// `(round trips, ui dumps)` spent by `f` on `d`.
/// Opens the demo app and finds its username field: where to tap.
fn username_on_login_page(d: &HdcDevice) -> tapflow_device::Point {
    d.start_app(DEMO, "EntryAbility", None).unwrap();
    let tree = d.ui_tree(&DumpScope::default()).unwrap();
    by_id(&tree, "username").unwrap().bounds().unwrap().center()
}

fn spent<T>(d: &HdcDevice, f: impl FnOnce() -> T) -> (T, (u64, u64)) {
    let before = d.cost();
    let out = f();
    let c = d.cost() - before;
    (out, (c.round_trips, c.ui_dumps))
}

#[test]
fn select_all_text_and_dump_travel_in_one_round_trip_each_with_its_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim();
    let d = device_on(&sim, dir.path());
    let at = username_on_login_page(&d);
    d.input_text(TextTarget::At(at), "old").unwrap();

    let actions = [
        UiAction::Key(KeyInput::Codes(vec![2072, 2017])),
        UiAction::Text(TextTarget::Focused, "new\u{A4}".into()),
    ];
    let (seen, cost) = spent(&d, || d.acts_then_tree(&actions, &DumpScope::default()));
    assert_eq!(cost, (1, 1), "key + text + dump: one shell");
    assert_eq!(seen.actions.len(), 2);
    assert!(seen.actions.iter().all(Result::is_ok), "{:?}", seen.actions);
    let tree = seen.tree.expect("observed").expect("dump");
    assert_eq!(
        by_id(&tree, "username").unwrap().text(),
        "new\u{A4}",
        "typed over the selection"
    );
}

#[test]
fn a_refused_action_in_a_chain_is_reported_and_the_rest_still_ran() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim();
    let d = device_on(&sim, dir.path());
    let at = username_on_login_page(&d);
    d.tap(at, TapKind::Single).unwrap();

    // uitest refuses key code 0 (`Illegal argument`); the shell goes on with the text (`;`),
    // each keeps its verdict, and no tree is claimed.
    let actions = [
        UiAction::Key(KeyInput::Codes(vec![0])),
        UiAction::Text(TextTarget::Focused, "still\u{A4}".into()),
    ];
    let (seen, cost) = spent(&d, || d.acts_then_tree(&actions, &DumpScope::default()));
    assert_eq!(cost.0, 1);
    assert_eq!(seen.actions.len(), 2, "every action's verdict: {seen:?}");
    let refusal = seen.actions[0].clone().unwrap_err();
    assert!(refusal.device_says().is_some(), "{refusal:?}");
    assert!(seen.actions[1].is_ok(), "the text went through: {seen:?}");
    assert_eq!(seen.first_error(), Err(refusal));
    assert!(seen.tree.is_none());
    let tree = d.ui_tree(&DumpScope::default()).unwrap();
    assert_eq!(by_id(&tree, "username").unwrap().text(), "still\u{A4}");
}

#[test]
fn launch_and_window_check_are_one_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim();
    let d = device_on(&sim, dir.path());
    let (seen, cost) = spent(&d, || {
        d.start_app_checked(DEMO, "EntryAbility", Some("entry"), None)
    });
    assert_eq!(cost, (1, 0));
    seen.started.expect("started");
    assert!(seen.tree.is_none(), "not asked for");
    let windows = seen.windows.expect("read after the start").expect("table");
    assert!(!windows.pids.is_empty(), "the app runs: {windows:?}");
    let pid = i64::from(windows.pids[0]);
    assert!(
        windows
            .table
            .windows
            .iter()
            .any(|w| w.visible && w.pid == pid),
        "a visible window of the app's pid: {windows:?}"
    );

    // With a dump chained: still one round trip, and the screen of the started app.
    d.stop_app(DEMO).unwrap();
    let (seen, cost) = spent(&d, || {
        d.start_app_checked(DEMO, "EntryAbility", None, Some(&DumpScope::default()))
    });
    assert_eq!(cost, (1, 1));
    seen.started.unwrap();
    let tree = seen.tree.expect("asked for").expect("dump");
    assert!(by_id(&tree, "login").is_some(), "the login page");

    // The window check alone: one round trip.
    let (w, cost) = spent(&d, || d.app_windows(DEMO));
    assert_eq!(cost, (1, 0));
    assert!(!w.unwrap().pids.is_empty());
    d.stop_app(DEMO).unwrap();
    assert!(d.app_windows(DEMO).unwrap().pids.is_empty(), "not running");
}

#[test]
fn a_refused_start_yields_no_windows_and_keeps_the_device_words() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim();
    let d = device_on(&sim, dir.path());
    let (seen, cost) = spent(&d, || {
        d.start_app_checked(DEMO, "NoSuchAbility", None, Some(&DumpScope::default()))
    });
    assert_eq!(cost.0, 1);
    let e = seen.started.unwrap_err();
    assert_eq!(e.code(), "RUN_APP_FAILED");
    assert!(e.device_says().is_some_and(|s| !s.is_empty()), "{e:?}");
    assert!(seen.windows.is_none() && seen.tree.is_none());
    // Refused before anything is sent: a bundle name sh could misread.
    let (seen, cost) = spent(&d, || d.start_app_checked("x; rm -rf /", "A", None, None));
    assert_eq!(cost.0, 0);
    assert!(seen.started.is_err());
}

#[test]
fn the_device_check_is_one_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim();
    let d = device_on(&sim, dir.path());
    let (ready, cost) = spent(&d, || d.check_ready());
    assert_eq!(cost, (1, 1), "info, power state and a dump in one shell");
    let info = ready.info.expect("info");
    assert_eq!(info.model.as_deref(), Some("ALN-AL00"));
    assert!(info.screen.is_some(), "{info:?}");
    assert!(ready.power.unwrap().unwrap().awake);
    assert!(!ready.tree.unwrap().unwrap().children.is_empty());

    // The same answers as the three separate operations.
    assert_eq!(d.info().unwrap(), info);

    // Screen off: the power part says so, the dump shows no window.
    sim.handle(
        &["shell".to_string(), "power-shell suspend".to_string()],
        dir.path(),
    );
    let ready = d.check_ready();
    assert!(ready.info.is_ok());
    assert!(!ready.power.unwrap().unwrap().awake);
    assert!(ready.tree.unwrap().is_err(), "locked: no window to dump");
}

#[test]
fn a_screenshot_file_is_deleted_by_the_next_command_not_a_round_trip_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let sim = sim();
    let d = device_on(&sim, dir.path());
    let listing = |sim: &Simulator| {
        sim.handle(
            &["shell".to_string(), "ls /data/local/tmp".to_string()],
            dir.path(),
        )
        .stdout_text()
    };
    let request = ScreenshotRequest {
        format: ImageFormat::Png,
        display_id: None,
        region: None,
    };
    let (shot, cost) = spent(&d, || d.screenshot(&request));
    assert_eq!(cost, (2, 0), "capture + receive");
    assert_eq!((shot.unwrap().width, 2720), (1260, 2720));
    assert_eq!(
        listing(&sim).matches("tapflow_").count(),
        1,
        "the capture waits on the device for the next command"
    );
    // The next command (any) deletes it in passing, at no extra round trip.
    let (_, cost) = spent(&d, || d.power_state().unwrap());
    assert_eq!(cost, (1, 0));
    assert_eq!(
        listing(&sim).matches("tapflow_").count(),
        0,
        "{}",
        listing(&sim)
    );

    // Two screenshots in a row: the second capture deletes the first.
    d.screenshot(&request).unwrap();
    d.screenshot(&request).unwrap();
    assert_eq!(listing(&sim).matches("tapflow_").count(), 1);
    // Another handle of the same client (a device resolved again) deletes it too.
    let client = HdcClient::new(
        HdcConfig::default(),
        Arc::new(SimTransport::new(sim.clone(), dir.path())),
    );
    let a = client.connect(HdcRoute::default()).unwrap();
    a.screenshot(&request).unwrap();
    let b = client.connect(HdcRoute::default()).unwrap();
    assert_eq!(
        listing(&sim).matches("tapflow_").count(),
        2,
        "one per client"
    );
    b.power_state().unwrap();
    assert_eq!(listing(&sim).matches("tapflow_").count(), 1);
}
