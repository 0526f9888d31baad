//! tapflow's adb backend (`device::adb`) driving the simulated Android device through the real
//! `adb` client on a private server: every `Device` operation, its costs, and its typed errors.

use crate::common::adb_env;

use std::time::{Duration, Instant};

use adb_env::AdbEnv;
use tapflow_device::adb::{AdbClient, AdbDevice};
use tapflow_device::{
    Bounds, Device, DumpScope, ImageFormat, KeyInput, LogQuery, Point, ScreenshotRequest, TapKind,
    TextTarget, UiAction, UiNode,
};
use tapflow_sim::Latency;
use tapflow_sim::android::{AndroidFarm, FarmOptions};

use tapflow_sim::DEMO_BUNDLE as DEMO;
const MAIN: &str = "com.tapflow.demo.EntryAbility";

struct Setup {
    farm: AndroidFarm,
    env: AdbEnv,
    client: AdbClient,
}

fn setup(n: usize) -> Setup {
    let farm = AndroidFarm::start(&FarmOptions {
        devices: n,
        latency: Latency::None,
        seed: 5,
        ..Default::default()
    })
    .unwrap();
    let env = AdbEnv::start();
    let client = AdbClient::with_process(env.config());
    for a in farm.addresses() {
        client
            .adb_connect(&a)
            .expect("adb connect through the backend");
    }
    Setup { farm, env, client }
}

fn node<'a>(t: &'a UiNode, id: &str) -> &'a UiNode {
    t.walk()
        .find(|n| n.id() == id)
        .unwrap_or_else(|| panic!("no {id}"))
}

fn wait_for(d: &AdbDevice, id: &str) -> UiNode {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let t = d.ui_tree(&DumpScope::default()).expect("dump");
        if t.walk().any(|n| n.id() == id) || Instant::now() > deadline {
            return t;
        }
    }
}

#[test]
fn listing_connecting_and_device_info() {
    let s = setup(2);
    let listed = s.client.list_devices().unwrap();
    assert_eq!(listed.len(), 2);
    let addrs = s.farm.addresses();
    for a in &addrs {
        let t = listed.iter().find(|t| &t.serial == a).expect("listed");
        assert_eq!(t.state, "device");
        assert!(t.transport_id.is_some());
    }
    // Two devices: no serial is ambiguous; a wrong one is not found, naming `adb connect`.
    assert_eq!(
        s.client.connect(None).unwrap_err().code(),
        "MULTIPLE_DEVICES"
    );
    let e = s.client.connect(Some("127.0.0.1:1")).unwrap_err();
    assert_eq!(e.code(), "DEVICE_NOT_FOUND");
    assert!(e.to_string().contains("adb connect 127.0.0.1:1"), "{e}");
    let d = s.client.connect(Some(&addrs[1])).unwrap();
    let info = d.info().unwrap();
    assert_eq!(info.platform, "android");
    assert_eq!(info.model.as_deref(), Some("Pixel 6a"));
    assert_eq!(info.api_level, Some(33));
    assert_eq!(info.software_version.as_deref(), Some("13"));
    assert_eq!(info.device_type.as_deref(), Some("phone"));
    assert_eq!(info.screen.map(|s| (s.width, s.height)), Some((1080, 2400)));
    assert!(d.power_state().unwrap().awake);
    assert_eq!(d.platform(), "android");
}

#[test]
fn app_lifecycle_ui_text_and_keys() {
    let s = setup(1);
    let d = s.client.connect(None).unwrap();
    let pkgs = d.packages().unwrap();
    assert!(pkgs.iter().any(|p| p == DEMO));
    let info = d.package_info(DEMO).unwrap();
    assert_eq!(info.main_ability.as_deref(), Some(MAIN));
    assert_eq!(info.version_name.as_deref(), Some("1.0.0"));
    assert_eq!(
        d.package_info("com.not.there").unwrap_err().code(),
        "PACKAGE_QUERY_FAILED"
    );
    assert_eq!(d.pid_of(DEMO).unwrap(), None);
    d.start_app(DEMO, MAIN, None).unwrap();
    assert!(d.pid_of(DEMO).unwrap().is_some());
    let e = d.start_app(DEMO, ".Nope", None).unwrap_err();
    assert_eq!(e.code(), "RUN_APP_FAILED");
    assert!(e.device_says().unwrap().contains("does not exist"), "{e:?}");
    let t = wait_for(&d, "username");
    let w = d.windows().unwrap();
    assert_eq!(w.windows[0].bundle_name.as_deref(), Some(DEMO));
    assert_eq!(w.focus_window, Some(1));
    // ASCII through `input text`, hostile characters included.
    let user = node(&t, "username").bounds().unwrap().center();
    let hostile = "it's $HOME `id` 100%s; & | \"q\" ~";
    d.input_text(TextTarget::At(user), hostile).unwrap();
    let t = d.ui_tree(&DumpScope::default()).unwrap();
    assert_eq!(node(&t, "username").text(), hostile);
    // Clear it with keys, then non-ASCII through ADBKeyBoard (the previous IME comes back).
    d.key_event(&KeyInput::Codes(vec![123])).unwrap();
    for _ in 0..hostile.chars().count() {
        d.key_event(&KeyInput::Codes(vec![67])).unwrap();
    }
    assert_eq!(
        node(&d.ui_tree(&DumpScope::default()).unwrap(), "username").text(),
        "Username"
    );
    d.input_text(TextTarget::Focused, "Zoë 用户 ✓").unwrap();
    let t = d.ui_tree(&DumpScope::default()).unwrap();
    assert_eq!(node(&t, "username").text(), "Zoë 用户 ✓");
    let ime = s
        .env
        .on(
            d.serial(),
            &["shell", "settings get secure default_input_method"],
        )
        .text();
    assert_eq!(ime.trim(), "com.android.inputmethod.latin/.LatinIME");
    // Scoped dumps: by package, and a package not in front.
    let scoped = d
        .ui_tree(&DumpScope {
            bundle: Some(DEMO.into()),
            window_id: None,
        })
        .unwrap();
    assert_eq!(scoped.children.len(), 1);
    let e = d
        .ui_tree(&DumpScope {
            bundle: Some("com.android.settings".into()),
            window_id: None,
        })
        .unwrap_err();
    assert_eq!(e.code(), "UI_TREE_FETCH_ERROR");
    // Back leaves the app; stop, clear.
    d.key_event(&KeyInput::Back).unwrap();
    d.stop_app(DEMO).unwrap();
    assert_eq!(d.pid_of(DEMO).unwrap(), None);
    d.clear_app_data(DEMO).unwrap();
    assert_eq!(
        d.clear_app_data("com.not.there").unwrap_err().code(),
        "CLEAR_DATA_FAILED"
    );
    assert_eq!(d.missions().unwrap_err().code(), "UNSUPPORTED");
    assert_eq!(d.crash_files().unwrap_err().code(), "UNSUPPORTED");
}

#[test]
fn act_then_tree_is_one_round_trip_and_costs_are_counted() {
    let s = setup(1);
    let d = s.client.connect(None).unwrap();
    d.start_app(DEMO, MAIN, None).unwrap();
    let t = wait_for(&d, "username");
    let at = node(&t, "username").bounds().unwrap().center();
    let before = d.cost();
    let seen = d.act_then_tree(&UiAction::Tap(at, TapKind::Single), &DumpScope::default());
    seen.action.unwrap();
    let tree = seen.tree.unwrap().unwrap();
    assert_eq!(node(&tree, "username").attr("focused"), "true");
    let cost = d.cost() - before;
    assert_eq!((cost.round_trips, cost.ui_dumps), (1, 1));
    let before = d.cost();
    let seen = d.act_then_tree(
        &UiAction::Text(TextTarget::Focused, "abc".into()),
        &DumpScope::default(),
    );
    seen.action.unwrap();
    assert_eq!(node(&seen.tree.unwrap().unwrap(), "username").text(), "abc");
    assert_eq!((d.cost() - before).round_trips, 1);
    // A tap and a dump cost one round trip each on their own.
    let before = d.cost();
    d.tap(Point::new(1, 1), TapKind::Single).unwrap();
    d.ui_tree(&DumpScope::default()).unwrap();
    let c = d.cost() - before;
    assert_eq!((c.round_trips, c.ui_dumps), (2, 1));
}

#[test]
fn screenshots_install_and_logs() {
    let s = setup(1);
    let d = s.client.connect(None).unwrap();
    let png = d
        .screenshot(&ScreenshotRequest {
            format: ImageFormat::Png,
            display_id: None,
            region: None,
        })
        .unwrap();
    assert_eq!((png.width, png.height), (1080, 2400));
    let jpeg = d
        .screenshot(&ScreenshotRequest {
            format: ImageFormat::Jpeg,
            display_id: None,
            region: Some(Bounds::new(0, 0, 540, 600)),
        })
        .unwrap();
    assert_eq!((jpeg.width, jpeg.height), (540, 600));
    assert!(jpeg.bytes.starts_with(&[0xFF, 0xD8]));
    let dir = tempfile::tempdir().unwrap();
    let apk = dir.path().join("hello world.apk");
    std::fs::write(
        &apk,
        tapflow_sim::android::apk::build_apk(
            &tapflow_sim::android::apk::manifest("com.example.hello", 2, "2.0", ".MainActivity"),
            None,
        ),
    )
    .unwrap();
    d.install(&apk, true).unwrap();
    assert!(
        d.packages()
            .unwrap()
            .iter()
            .any(|p| p == "com.example.hello")
    );
    d.start_app("com.example.hello", "", None).unwrap();
    d.uninstall("com.example.hello").unwrap();
    let e = d.uninstall("com.example.hello").unwrap_err();
    assert_eq!(e.code(), "UNINSTALL_FAILED");
    assert_eq!(e.device_says(), Some("Failure [not installed for 0]"));
    let bad = dir.path().join("bad.apk");
    std::fs::write(&bad, b"garbage").unwrap();
    let e = d.install(&bad, true).unwrap_err();
    assert_eq!(e.code(), "INSTALL_FAILED");
    assert!(
        e.device_says()
            .unwrap()
            .contains("INSTALL_PARSE_FAILED_NOT_APK"),
        "{e:?}"
    );
    let logs = d.logs(&LogQuery::default()).unwrap();
    assert!(logs.contains("ActivityTaskManager: START u0"), "{logs}");
    let only = d
        .logs(&LogQuery {
            tags: vec!["ActivityManager".into()],
            level: Some('I'),
            ..Default::default()
        })
        .unwrap();
    assert!(
        only.lines()
            .filter(|l| !l.starts_with("---"))
            .all(|l| l.contains(" ActivityManager: ")),
        "{only}"
    );
    let tail = d
        .logs(&LogQuery {
            tail: Some(2),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(
        tail.lines().filter(|l| !l.starts_with("---")).count(),
        2,
        "{tail}"
    );
    d.clear_logs().unwrap();
    assert_eq!(d.logs(&LogQuery::default()).unwrap(), "");
}

#[test]
fn a_device_that_left_is_a_typed_error() {
    let s = setup(1);
    let d = s.client.connect(None).unwrap();
    s.farm.server(0).ctl().go_offline();
    let serial = d.serial().to_string();
    assert!(
        s.env
            .wait_state(&serial, "offline", Duration::from_secs(20)),
        "listed offline"
    );
    let e = d.ui_tree(&DumpScope::default()).unwrap_err();
    assert_eq!(e.code(), "DEVICE_DISCONNECTED", "{e:?}");
    let e = s.client.connect(Some(&serial)).unwrap_err();
    assert_eq!(e.code(), "DEVICE_DISCONNECTED", "{e:?}");
    drop(s);
}
