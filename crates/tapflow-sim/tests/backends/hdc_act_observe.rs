//! `Device::act_then_tree` on the hdc backend: the action and the dump that observes it travel
//! in ONE `hdc shell` round trip, and each keeps its own verdict.

use std::sync::Arc;

use tapflow_device::hdc::{HdcClient, HdcConfig, HdcDevice, HdcRoute};
use tapflow_device::{Device, DumpScope, KeyInput, Point, TapKind, TextTarget, UiAction, UiNode};
use tapflow_sim::{Latency, SimOptions, SimTransport, Simulator};

fn by_id<'a>(root: &'a UiNode, id: &str) -> Option<&'a UiNode> {
    root.walk().find(|n| n.id() == id)
}

fn demo_device(dir: &std::path::Path) -> HdcDevice {
    let sim = Arc::new(Simulator::new(SimOptions {
        latency: Latency::None,
        ..SimOptions::default()
    }));
    let client = HdcClient::new(HdcConfig::default(), Arc::new(SimTransport::new(sim, dir)));
    let device = client.connect(HdcRoute::default()).expect("connect");
    device
        .start_app("com.tapflow.demo", "EntryAbility", None)
        .expect("start");
    device
}

#[test]
fn tap_and_type_each_come_back_with_the_tree_in_one_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let device = demo_device(dir.path());
    let login = device.ui_tree(&DumpScope::default()).unwrap();
    let at = by_id(&login, "username")
        .unwrap()
        .bounds()
        .unwrap()
        .center();

    let before = device.cost();
    let seen = device.act_then_tree(&UiAction::Tap(at, TapKind::Single), &DumpScope::default());
    let cost = device.cost() - before;
    assert_eq!((cost.round_trips, cost.ui_dumps), (1, 1));
    seen.action.expect("tap accepted");
    let tree = seen.tree.expect("observed").expect("dump");
    assert_eq!(by_id(&tree, "username").unwrap().attr("focused"), "true");

    let text = "it's $HOME `x` \\ 中文 🎉";
    let before = device.cost();
    let seen = device.act_then_tree(
        &UiAction::Text(TextTarget::Focused, text.to_string()),
        &DumpScope::default(),
    );
    assert_eq!((device.cost() - before).round_trips, 1);
    seen.action.expect("text accepted");
    let tree = seen.tree.unwrap().unwrap();
    assert_eq!(by_id(&tree, "username").unwrap().text(), text);
}

#[test]
fn a_refused_action_yields_no_tree_and_keeps_the_device_words() {
    let dir = tempfile::tempdir().unwrap();
    let device = demo_device(dir.path());
    // Four key codes: refused before anything is sent.
    let before = device.cost();
    let seen = device.act_then_tree(
        &UiAction::Key(KeyInput::Codes(vec![2072, 2017, 2018, 2019])),
        &DumpScope::default(),
    );
    assert!(seen.action.is_err());
    assert!(seen.tree.is_none());
    assert_eq!((device.cost() - before).round_trips, 0);

    // A coordinate uitest rejects: the device's own words come back, and no tree.
    let seen = device.act_then_tree(
        &UiAction::Tap(Point::new(1, 100_000), TapKind::Single),
        &DumpScope::default(),
    );
    if let Err(e) = &seen.action {
        assert!(!e.to_string().is_empty());
        assert!(seen.tree.is_none());
    }
}

#[test]
fn default_implementation_costs_two_round_trips() {
    // The trait's default (used by backends that cannot chain) dispatches, then dumps.
    struct Plain(HdcDevice);
    impl Device for Plain {
        fn serial(&self) -> &str {
            self.0.serial()
        }
        fn platform(&self) -> tapflow_device::Platform {
            self.0.platform()
        }
        fn info(&self) -> tapflow_device::DeviceResult<tapflow_device::DeviceInfo> {
            self.0.info()
        }
        fn power_state(&self) -> tapflow_device::DeviceResult<tapflow_device::PowerState> {
            self.0.power_state()
        }
        fn ui_tree(&self, s: &DumpScope) -> tapflow_device::DeviceResult<UiNode> {
            self.0.ui_tree(s)
        }
        fn windows(&self) -> tapflow_device::DeviceResult<tapflow_device::WindowTable> {
            self.0.windows()
        }
        fn missions(&self) -> tapflow_device::DeviceResult<Vec<tapflow_device::Mission>> {
            self.0.missions()
        }
        fn tap(&self, at: Point, k: TapKind) -> tapflow_device::DeviceResult<()> {
            self.0.tap(at, k)
        }
        fn gesture(&self, g: &tapflow_device::Gesture) -> tapflow_device::DeviceResult<()> {
            self.0.gesture(g)
        }
        fn input_text(&self, t: TextTarget, s: &str) -> tapflow_device::DeviceResult<()> {
            self.0.input_text(t, s)
        }
        fn key_event(&self, k: &KeyInput) -> tapflow_device::DeviceResult<()> {
            self.0.key_event(k)
        }
        fn screenshot(
            &self,
            r: &tapflow_device::ScreenshotRequest,
        ) -> tapflow_device::DeviceResult<tapflow_device::Screenshot> {
            self.0.screenshot(r)
        }
        fn install(&self, p: &std::path::Path, r: bool) -> tapflow_device::DeviceResult<()> {
            self.0.install(p, r)
        }
        fn uninstall(&self, b: &str) -> tapflow_device::DeviceResult<()> {
            self.0.uninstall(b)
        }
        fn start_app(&self, b: &str, a: &str, m: Option<&str>) -> tapflow_device::DeviceResult<()> {
            self.0.start_app(b, a, m)
        }
        fn stop_app(&self, b: &str) -> tapflow_device::DeviceResult<()> {
            self.0.stop_app(b)
        }
        fn clear_app_data(&self, b: &str) -> tapflow_device::DeviceResult<()> {
            self.0.clear_app_data(b)
        }
        fn packages(&self) -> tapflow_device::DeviceResult<Vec<String>> {
            self.0.packages()
        }
        fn package_info(
            &self,
            b: &str,
        ) -> tapflow_device::DeviceResult<tapflow_device::PackageInfo> {
            self.0.package_info(b)
        }
        fn pid_of(&self, b: &str) -> tapflow_device::DeviceResult<Option<u32>> {
            self.0.pid_of(b)
        }
        fn logs(&self, q: &tapflow_device::LogQuery) -> tapflow_device::DeviceResult<String> {
            self.0.logs(q)
        }
        fn clear_logs(&self) -> tapflow_device::DeviceResult<()> {
            self.0.clear_logs()
        }
        fn crash_files(&self) -> tapflow_device::DeviceResult<Vec<tapflow_device::CrashEntry>> {
            self.0.crash_files()
        }
        fn read_crash_file(&self, n: &str) -> tapflow_device::DeviceResult<String> {
            self.0.read_crash_file(n)
        }
        fn cost(&self) -> tapflow_device::Cost {
            self.0.cost()
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let device = Plain(demo_device(dir.path()));
    let before = device.cost();
    let seen = device.act_then_tree(&UiAction::Key(KeyInput::Back), &DumpScope::default());
    seen.action.expect("back accepted");
    seen.tree.unwrap().unwrap();
    assert_eq!((device.cost() - before).round_trips, 2);
}
