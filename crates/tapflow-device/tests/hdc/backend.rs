//! The hdc backend against a recording fake transport: the exact argv of every `Device`
//! operation and routing case (golden argv), round trips and UI dumps per operation, and the
//! typed errors for timeouts, a missing hdc, `[Fail]…` texts, unauthorised devices and a locked
//! screen. Canned answers are the real captures in `tests/fixtures/harmonyos/`.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pretty_assertions::assert_eq;
use tapflow_device::hdc::{HdcClient, HdcConfig, HdcDevice, HdcRoute};
use tapflow_device::{
    Bounds, Cost, Device, DeviceError, Direction, DumpScope, Gesture, ImageFormat, KeyInput,
    LogQuery, Output, Point, ScreenshotRequest, TapKind, TextTarget, Transport, TransportError,
};

const SERIAL: &str = "FMR0223C13000649";

fn fixture(name: &str) -> String {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/harmonyos")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

type Responder = Box<dyn Fn(&[String]) -> Result<Output, TransportError> + Send + Sync>;

/// Answers calls in order from a script and records every argv and deadline it was given.
#[derive(Default)]
struct Fake {
    script: Mutex<VecDeque<Responder>>,
    calls: Mutex<Vec<(Vec<String>, Duration)>>,
}

fn ok(text: &str) -> Result<Output, TransportError> {
    Ok(Output {
        stdout: text.as_bytes().to_vec(),
        stderr: Vec::new(),
        status: Some(0),
    })
}

impl Fake {
    fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    fn reply(self: &Arc<Self>, text: impl Into<String>) -> Arc<Self> {
        let text = text.into();
        self.script
            .lock()
            .unwrap()
            .push_back(Box::new(move |_| ok(&text)));
        self.clone()
    }

    fn reply_with(
        self: &Arc<Self>,
        f: impl Fn(&[String]) -> Result<Output, TransportError> + Send + Sync + 'static,
    ) -> Arc<Self> {
        self.script.lock().unwrap().push_back(Box::new(f));
        self.clone()
    }

    fn calls(&self) -> Vec<Vec<String>> {
        self.calls
            .lock()
            .unwrap()
            .iter()
            .map(|(a, _)| a.clone())
            .collect()
    }

    fn timeouts(&self) -> Vec<Duration> {
        self.calls.lock().unwrap().iter().map(|(_, t)| *t).collect()
    }

    fn assert_script_used(&self) {
        assert!(
            self.script.lock().unwrap().is_empty(),
            "some scripted answers were never asked for"
        );
    }
}

impl Transport for Fake {
    fn run(&self, args: &[String], timeout: Duration) -> Result<Output, TransportError> {
        self.calls.lock().unwrap().push((args.to_vec(), timeout));
        let next = self.script.lock().unwrap().pop_front();
        match next {
            Some(f) => f(args),
            None => panic!("unexpected hdc call: {args:?}"),
        }
    }

    fn program(&self) -> String {
        "fake-hdc".into()
    }
}

fn config() -> HdcConfig {
    HdcConfig {
        command_timeout: Duration::from_secs(5),
        dump_timeout: Duration::from_secs(9),
        transfer_timeout: Duration::from_secs(20),
        install_timeout: Duration::from_secs(60),
        ..HdcConfig::default()
    }
}

fn device(fake: &Arc<Fake>) -> HdcDevice {
    HdcDevice::new(SERIAL, HdcRoute::target(SERIAL), fake.clone(), config())
}

/// `-t SERIAL shell <cmd>`
fn shell(cmd: &str) -> Vec<String> {
    vec!["-t".into(), SERIAL.into(), "shell".into(), cmd.into()]
}

fn hdc(sub: &[&str]) -> Vec<String> {
    let mut v = vec!["-t".to_string(), SERIAL.to_string()];
    v.extend(sub.iter().map(|s| s.to_string()));
    v
}

fn cost(round_trips: u64, ui_dumps: u64) -> Cost {
    Cost {
        round_trips,
        ui_dumps,
    }
}

/// The device path a command wrote to (`/data/local/tmp/tapflow_<uuid>.<ext>`), checked for form.
fn scratch_path_in(cmd: &str, ext: &str) -> String {
    let re = regex::Regex::new(&format!(
        r"'(/data/local/tmp/tapflow_[0-9a-f]{{32}}\.{ext})'"
    ))
    .unwrap();
    re.captures(cmd)
        .unwrap_or_else(|| panic!("no scratch .{ext} path in {cmd:?}"))[1]
        .to_string()
}

/// The last scratch path in `cmd` (a command may first delete an earlier file).
fn last_scratch_path_in(cmd: &str, ext: &str) -> String {
    let re = regex::Regex::new(&format!(
        r"'(/data/local/tmp/tapflow_[0-9a-f]{{32}}\.{ext})'"
    ))
    .unwrap();
    re.captures_iter(cmd)
        .last()
        .unwrap_or_else(|| panic!("no scratch .{ext} path in {cmd:?}"))[1]
        .to_string()
}

// ---------------------------------------------------------------- routing

/// `(device_id, hdc_server, HARMONYOS_HDC_SERVER, expected flags)`
type RouteCase = (
    Option<&'static str>,
    Option<&'static str>,
    Option<&'static str>,
    &'static [&'static str],
);

#[test]
fn routing_golden_argv_for_every_case() {
    let cases: [RouteCase; 7] = [
        (None, None, None, &[]),
        (
            None,
            Some("192.168.43.34:35215"),
            None,
            &["-t", "192.168.43.34:35215"],
        ),
        (
            Some("3QC0124C11000711"),
            None,
            None,
            &["-t", "3QC0124C11000711"],
        ),
        (
            Some("3QC0124C11000711"),
            Some("192.168.43.34:35215"),
            None,
            &["-t", "3QC0124C11000711", "-s", "192.168.43.34:35215"],
        ),
        (None, None, Some("10.1.1.1:5555"), &["-t", "10.1.1.1:5555"]),
        (
            Some("3QC0124C11000711"),
            None,
            Some("10.1.1.1:5555"),
            &["-t", "3QC0124C11000711", "-s", "10.1.1.1:5555"],
        ),
        (
            None,
            Some("192.168.43.34:35215"),
            Some("10.1.1.1:5555"),
            &["-t", "192.168.43.34:35215"],
        ),
    ];
    for (device_id, server, default_server, flags) in cases {
        let fake = Fake::new().reply("\n");
        let client = HdcClient::new(
            HdcConfig {
                default_server: default_server.map(String::from),
                ..config()
            },
            fake.clone(),
        );
        let route = client.route(device_id, server);
        client
            .device("X", route)
            .tap(Point::new(10, 20), TapKind::Single)
            .unwrap();
        let mut expected: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
        expected.extend([
            "shell".to_string(),
            "uitest uiInput click 10 20".to_string(),
        ]);
        assert_eq!(
            fake.calls(),
            vec![expected],
            "{device_id:?} {server:?} {default_server:?}"
        );
    }
}

// ---------------------------------------------------------------- info and state

fn info_answer(render: &str) -> String {
    let params = [
        fixture("param_get_const_product_model.txt"),
        fixture("param_get_const_product_name.txt"),
        fixture("param_get_const_product_brand.txt"),
        fixture("param_get_const_product_software_version.txt"),
        fixture("param_get_const_ohos_apiversion.txt"),
        fixture("param_get_const_product_cpu_abilist.txt"),
        "Get parameter \"const.product.devicetype\" fail! errNum is:106!\n".to_string(),
    ];
    let mut out = String::new();
    for (i, p) in params.iter().enumerate() {
        out.push_str(&format!("==tapflow:{i}==\n{p}"));
    }
    out.push_str(&format!("==tapflow:7==\n{render}"));
    // Windows hosts deliver CRLF; the backend must not care.
    out.replace('\n', "\r\n")
}

const INFO_CMD: &str = "echo '==tapflow:0=='; param get 'const.product.model'; \
echo '==tapflow:1=='; param get 'const.product.name'; \
echo '==tapflow:2=='; param get 'const.product.brand'; \
echo '==tapflow:3=='; param get 'const.product.software.version'; \
echo '==tapflow:4=='; param get 'const.ohos.apiversion'; \
echo '==tapflow:5=='; param get 'const.product.cpu.abilist'; \
echo '==tapflow:6=='; param get 'const.product.devicetype'; \
echo '==tapflow:7=='; hidumper -s RenderService -a screen";

#[test]
fn info_is_one_round_trip() {
    let fake = Fake::new().reply(info_answer(&fixture(
        "hidumper_renderservice_screen_mate60pro.txt",
    )));
    let d = device(&fake);
    let info = d.info().unwrap();
    assert_eq!(fake.calls(), vec![shell(INFO_CMD)]);
    assert_eq!(d.cost(), cost(1, 0));
    assert_eq!(info.serial, SERIAL);
    assert_eq!(info.platform, "harmonyos");
    assert_eq!(info.model.as_deref(), Some("ALN-AL00"));
    assert_eq!(info.name.as_deref(), Some("HUAWEI Mate 60 Pro"));
    assert_eq!(info.brand.as_deref(), Some("HUAWEI"));
    assert_eq!(
        info.software_version.as_deref(),
        Some("ALN-AL00 5.0.0.22(SP35DEVC00E22R4P1log)")
    );
    assert_eq!(info.api_level, Some(12));
    assert_eq!(info.cpu_abi.as_deref(), Some("arm64-v8a"));
    assert_eq!(
        info.device_type, None,
        "a missing key is unknown, not an error"
    );
    let screen = info.screen.unwrap();
    assert_eq!((screen.width, screen.height), (1260, 2720));
}

#[test]
fn info_falls_back_to_display_manager_when_render_service_has_no_size() {
    let fake = Fake::new()
        .reply(info_answer("-- ScreenInfo\n"))
        .reply(fixture("hidumper_displaymanager_a_a_mate60pro.txt"));
    let d = device(&fake);
    let info = d.info().unwrap();
    assert_eq!(
        fake.calls(),
        vec![
            shell(INFO_CMD),
            shell("hidumper -s DisplayManagerService -a -a")
        ]
    );
    assert_eq!(d.cost(), cost(2, 0));
    let screen = info.screen.unwrap();
    assert_eq!((screen.width, screen.height), (1260, 2720));
}

#[test]
fn power_state() {
    let fake = Fake::new().reply(fixture("hidumper_powermanager_a_s_mate60pro.txt"));
    let d = device(&fake);
    let p = d.power_state().unwrap();
    assert_eq!(
        fake.calls(),
        vec![shell("hidumper -s PowerManagerService -a -s")]
    );
    assert_eq!(p.state, "AWAKE");
    assert!(p.awake);
    assert_eq!(d.cost(), cost(1, 0));
}

#[test]
fn power_state_without_a_state_line_is_a_parse_error() {
    let fake = Fake::new().reply("hidumper: no such service\n");
    let e = device(&fake).power_state().unwrap_err();
    assert_eq!(e.code(), "DEVICE_INFO_FAILED");
}

// ---------------------------------------------------------------- UI tree

fn dump_answer(json: String) -> impl Fn(&[String]) -> Result<Output, TransportError> {
    move |argv: &[String]| {
        let path = scratch_path_in(&argv[3], "json");
        ok(&format!("DumpLayout saved to:{path}\r\n{json}"))
    }
}

#[test]
fn ui_tree_dumps_reads_and_deletes_in_one_round_trip() {
    let json = fixture("layout_hmdriver2_uitest_demo_mate60pro_pretty.json");
    let fake = Fake::new().reply_with(dump_answer(json));
    let d = device(&fake);
    let root = d.ui_tree(&DumpScope::default()).unwrap();
    let calls = fake.calls();
    assert_eq!(calls.len(), 1);
    let path = scratch_path_in(&calls[0][3], "json");
    assert_eq!(
        calls[0],
        shell(&format!(
            "uitest dumpLayout -p '{path}' && cat '{path}'; rm -f '{path}'"
        ))
    );
    assert_eq!(
        fake.timeouts(),
        vec![Duration::from_secs(9)],
        "the dump deadline applies"
    );
    assert_eq!(d.cost(), cost(1, 1));
    assert_eq!(root.attr("bounds"), "[0,0][1260,2720]");
    assert!(root.node_count() > 20);
    assert!(!root.children.is_empty());
}

#[test]
fn ui_tree_scope_is_passed_to_uitest_and_paths_are_unique() {
    let json = fixture("layout_hmdriver2_uitest_demo_mate60pro_pretty.json");
    let fake = Fake::new()
        .reply_with(dump_answer(json.clone()))
        .reply_with(dump_answer(json));
    let d = device(&fake);
    let scope = DumpScope {
        bundle: Some("com.samples.test.uitest".into()),
        window_id: Some(155),
    };
    d.ui_tree(&scope).unwrap();
    d.ui_tree(&scope).unwrap();
    let calls = fake.calls();
    let p1 = scratch_path_in(&calls[0][3], "json");
    let p2 = scratch_path_in(&calls[1][3], "json");
    assert_ne!(p1, p2);
    assert_eq!(
        calls[0],
        shell(&format!(
            "uitest dumpLayout -p '{p1}' -b 'com.samples.test.uitest' -w 155 && cat '{p1}'; rm -f '{p1}'"
        ))
    );
    assert_eq!(d.cost(), cost(2, 2));
}

#[test]
fn locked_screen_is_recognised() {
    let json = fixture("layout_ohauto_dayu200_locked_screen_no_window_compact.json");
    let fake = Fake::new().reply_with(dump_answer(json.clone()));
    let e = device(&fake).ui_tree(&DumpScope::default()).unwrap_err();
    assert_eq!(
        e,
        DeviceError::ScreenLocked {
            serial: SERIAL.into()
        }
    );
    assert_eq!(e.code(), "SCREEN_LOCKED");

    // Scoped to a bundle, an empty dump means the scope matched no window.
    let fake = Fake::new().reply_with(dump_answer(json));
    let scope = DumpScope {
        bundle: Some("com.x.y".into()),
        window_id: None,
    };
    let e = device(&fake).ui_tree(&scope).unwrap_err();
    assert_eq!(e.code(), "UI_TREE_FETCH_ERROR");
}

#[test]
fn failed_dump_keeps_uitest_words() {
    let fake = Fake::new().reply(
        "DumpLayout failed:Get root node failed\ncat: /data/local/tmp/x.json: No such file or directory\n",
    );
    let e = device(&fake).ui_tree(&DumpScope::default()).unwrap_err();
    assert_eq!(e.code(), "UI_TREE_FETCH_ERROR");
    assert!(
        e.device_says()
            .unwrap()
            .contains("DumpLayout failed:Get root node failed")
    );
}

#[test]
fn truncated_dump_is_an_invalid_payload() {
    let json = fixture("layout_hmdriver2_uitest_demo_mate60pro_pretty.json");
    let cut = json[..json.len() / 2].to_string();
    let fake = Fake::new().reply_with(dump_answer(cut));
    let e = device(&fake).ui_tree(&DumpScope::default()).unwrap_err();
    assert_eq!(e.code(), "INVALID_UI_TREE_PAYLOAD");
}

#[test]
fn saved_but_unreadable_dump_is_a_fetch_error() {
    let fake = Fake::new().reply("DumpLayout saved to:/data/local/tmp/x.json\n");
    let e = device(&fake).ui_tree(&DumpScope::default()).unwrap_err();
    assert_eq!(e.code(), "UI_TREE_FETCH_ERROR");
}

// ---------------------------------------------------------------- windows and missions

#[test]
fn windows_resolve_bundles_in_a_second_round_trip() {
    let fake = Fake::new()
        .reply(fixture("hidumper_wms_a_window_list_openharmony_docs_720x1280.txt"))
        .reply(
            "==tapflow:0==\ncom.ohos.systemui\0\n==tapflow:1==\ncom.ohos.settings\0==tapflow:2==\ncom.ohos.launcher\0==tapflow:3==\n",
        );
    let d = device(&fake);
    let table = d.windows().unwrap();
    assert_eq!(
        fake.calls(),
        vec![
            shell("hidumper -s WindowManagerService -a '-a'"),
            shell(
                "echo '==tapflow:0=='; cat '/proc/1274/cmdline' 2>/dev/null; \
echo '==tapflow:1=='; cat '/proc/10733/cmdline' 2>/dev/null; \
echo '==tapflow:2=='; cat '/proc/1546/cmdline' 2>/dev/null; \
echo '==tapflow:3=='; cat '/proc/1530/cmdline' 2>/dev/null"
            ),
        ]
    );
    assert_eq!(d.cost(), cost(2, 0));
    assert_eq!(table.windows.len(), 10);
    assert_eq!(table.focus_window, Some(2));
    let bundle = |name: &str| {
        table
            .windows
            .iter()
            .find(|w| w.name == name)
            .unwrap()
            .bundle_name
            .clone()
    };
    assert_eq!(bundle("settings0").as_deref(), Some("com.ohos.settings"));
    assert_eq!(
        bundle("SystemUi_StatusBar").as_deref(),
        Some("com.ohos.systemui")
    );
    assert_eq!(bundle("EntryView").as_deref(), Some("com.ohos.launcher"));
    assert_eq!(bundle("imeWindow"), None, "the process is gone: no bundle");
}

#[test]
fn next_format_windows() {
    let fake = Fake::new()
        .reply(fixture(
            "hidumper_wms_a_window_list_next_2in1_trimmed_test_embedded.txt",
        ))
        .reply("==tapflow:0==\ncom.ohos.installer\0==tapflow:1==\ncom.huawei.hmos.browser\0");
    let table = device(&fake).windows().unwrap();
    assert_eq!(table.windows.len(), 2);
    assert_eq!(
        table.windows[1].bundle_name.as_deref(),
        Some("com.huawei.hmos.browser")
    );
}

#[test]
fn missions() {
    let fake = Fake::new().reply(fixture("aa_dump_l_mission_list.txt"));
    let d = device(&fake);
    let missions = d.missions().unwrap();
    assert_eq!(fake.calls(), vec![shell("aa dump -l")]);
    let fg = missions.iter().find(|m| m.state == "FOREGROUND").unwrap();
    assert_eq!(fg.bundle, "com.huawei.hmsapp.himovie");
    assert_eq!(fg.ability, "MainAbility");
    assert_eq!(d.cost(), cost(1, 0));
}

// ---------------------------------------------------------------- input

#[test]
fn taps_of_every_kind() {
    for (kind, cmd) in [
        (TapKind::Single, "uitest uiInput click 540 1200"),
        (TapKind::Double, "uitest uiInput doubleClick 540 1200"),
        (TapKind::Long, "uitest uiInput longClick 540 1200"),
    ] {
        let fake = Fake::new().reply("\n");
        let d = device(&fake);
        d.tap(Point::new(540, 1200), kind).unwrap();
        assert_eq!(fake.calls(), vec![shell(cmd)]);
        assert_eq!(d.cost(), cost(1, 0));
    }
    let fake = Fake::new().reply("\n");
    device(&fake)
        .tap(Point::new(0, -3), TapKind::Single)
        .unwrap();
    assert_eq!(
        fake.calls(),
        vec![shell("uitest uiInput click 1 1")],
        "clamped to 1"
    );
}

#[test]
fn gestures_of_every_kind() {
    let (a, b) = (Point::new(100, 2000), Point::new(100, 400));
    let cases = [
        (
            Gesture::Swipe {
                from: a,
                to: b,
                speed: 600,
            },
            "uitest uiInput swipe 100 2000 100 400 600",
        ),
        (
            Gesture::Drag {
                from: a,
                to: b,
                speed: 1000,
            },
            "uitest uiInput drag 100 2000 100 400 1000",
        ),
        (
            Gesture::Fling {
                from: a,
                to: b,
                speed: 2000,
                step: None,
            },
            "uitest uiInput fling 100 2000 100 400 2000",
        ),
        (
            Gesture::Fling {
                from: a,
                to: b,
                speed: 2000,
                step: Some(40),
            },
            "uitest uiInput fling 100 2000 100 400 2000 40",
        ),
        (
            Gesture::DirectionalFling {
                direction: Direction::Left,
                speed: 600,
                step: None,
            },
            "uitest uiInput dircFling 0 600",
        ),
        (
            Gesture::DirectionalFling {
                direction: Direction::Right,
                speed: 600,
                step: None,
            },
            "uitest uiInput dircFling 1 600",
        ),
        (
            Gesture::DirectionalFling {
                direction: Direction::Up,
                speed: 600,
                step: Some(50),
            },
            "uitest uiInput dircFling 2 600 50",
        ),
        (
            Gesture::DirectionalFling {
                direction: Direction::Down,
                speed: 100,
                step: None,
            },
            "uitest uiInput dircFling 3 200",
        ),
    ];
    for (g, cmd) in cases {
        let fake = Fake::new().reply("\n");
        let d = device(&fake);
        d.gesture(&g).unwrap();
        assert_eq!(fake.calls(), vec![shell(cmd)], "{g:?}");
        assert_eq!(d.cost(), cost(1, 0));
    }
}

#[test]
fn text_input_quotes_the_text() {
    let fake = Fake::new().reply("\n").reply("\n");
    let d = device(&fake);
    d.input_text(TextTarget::At(Point::new(540, 1200)), "hello world")
        .unwrap();
    d.input_text(TextTarget::Focused, "it's $(reboot) `id` 中文😀")
        .unwrap();
    assert_eq!(
        fake.calls(),
        vec![
            shell("uitest uiInput inputText 540 1200 'hello world'"),
            shell("uitest uiInput text 'it'\\''s $(reboot) `id` 中文😀'"),
        ]
    );
    assert_eq!(d.cost(), cost(2, 0));
}

#[test]
fn text_with_nul_is_refused_before_sending() {
    let fake = Fake::new();
    let e = device(&fake)
        .input_text(TextTarget::Focused, "a\0b")
        .unwrap_err();
    assert_eq!(e.code(), "INVALID_PARAM");
    assert!(fake.calls().is_empty());
}

#[test]
fn uitest_parameter_messages_are_input_failures() {
    let fake = Fake::new().reply("Please confirm that the coordinate values are correct.\n");
    let e = device(&fake)
        .tap(Point::new(5, 5), TapKind::Single)
        .unwrap_err();
    assert_eq!(e.code(), "INPUT_FAILED");
    assert_eq!(
        e.device_says(),
        Some("Please confirm that the coordinate values are correct.")
    );
}

#[test]
fn keys_named_and_combined() {
    for (key, cmd) in [
        (KeyInput::Back, "uitest uiInput keyEvent Back"),
        (KeyInput::Home, "uitest uiInput keyEvent Home"),
        (KeyInput::Power, "uitest uiInput keyEvent Power"),
        (KeyInput::Codes(vec![2054]), "uitest uiInput keyEvent 2054"),
        (
            KeyInput::Codes(vec![2072, 2047, 2017]),
            "uitest uiInput keyEvent 2072 2047 2017",
        ),
    ] {
        let fake = Fake::new().reply("\n");
        let d = device(&fake);
        d.key_event(&key).unwrap();
        assert_eq!(fake.calls(), vec![shell(cmd)]);
        assert_eq!(d.cost(), cost(1, 0));
    }
}

#[test]
fn more_than_three_key_codes_are_never_sent() {
    let fake = Fake::new();
    let d = device(&fake);
    let e = d
        .key_event(&KeyInput::Codes(vec![2072, 2047, 2045, 2017]))
        .unwrap_err();
    assert_eq!(e.code(), "INVALID_KEY");
    assert!(fake.calls().is_empty());
    assert_eq!(d.cost(), cost(0, 0));
}

#[test]
fn key_failure_is_key_event_failed() {
    let fake = Fake::new().reply("Invalid parameters.\n");
    let e = device(&fake).key_event(&KeyInput::Back).unwrap_err();
    assert_eq!(e.code(), "KEY_EVENT_FAILED");
}

// ---------------------------------------------------------------- screenshots

fn test_image(format: image::ImageFormat) -> Vec<u8> {
    let img = image::RgbImage::from_fn(72, 128, |x, y| image::Rgb([x as u8 * 3, y as u8, 200]));
    let mut buf = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut buf, format)
        .unwrap();
    buf.into_inner()
}

/// Answers `hdc file recv <remote> <local>` the way hdc does: writes the file, prints the summary.
fn recv_writing(bytes: Vec<u8>) -> impl Fn(&[String]) -> Result<Output, TransportError> {
    move |argv: &[String]| {
        let local = argv.last().unwrap();
        std::fs::write(local, &bytes).unwrap();
        ok(&fixture("hdc_file_recv_success.txt"))
    }
}

/// A capture answered the way `snapshot_display` answers.
fn jpeg_captured(argv: &[String]) -> Result<Output, TransportError> {
    let p = last_scratch_path_in(&argv[3], "jpeg");
    ok(&format!(
        "process: display 0, file type: jpeg, width: 72, height: 128\nsuccess: snapshot display 0 , write to {p} as jpeg, width: 72, height: 128\n"
    ))
}

#[test]
fn jpeg_screenshot_is_capture_and_receive_and_the_next_capture_deletes_it() {
    let fake = Fake::new()
        .reply_with(jpeg_captured)
        .reply_with(recv_writing(test_image(image::ImageFormat::Jpeg)))
        .reply_with(jpeg_captured)
        .reply_with(recv_writing(test_image(image::ImageFormat::Jpeg)));
    let d = device(&fake);
    let request = ScreenshotRequest {
        format: ImageFormat::Jpeg,
        display_id: None,
        region: None,
    };
    let shot = d.screenshot(&request).unwrap();
    let calls = fake.calls();
    let remote = scratch_path_in(&calls[0][3], "jpeg");
    assert_eq!(calls[0], shell(&format!("snapshot_display -f '{remote}'")));
    assert_eq!(calls[1][..5], hdc(&["file", "recv", &remote])[..]);
    assert!(calls[1][5].ends_with("screen.jpeg"), "{:?}", calls[1]);
    assert_eq!(
        d.cost(),
        cost(2, 0),
        "capture + receive, no round trip to delete"
    );
    assert_eq!((shot.width, shot.height), (72, 128));
    assert_eq!(shot.format, ImageFormat::Jpeg);
    assert!(
        !std::path::Path::new(&calls[1][5]).exists(),
        "the host temp file is removed"
    );

    // The next capture deletes the previous device file in the same shell.
    d.screenshot(&request).unwrap();
    let calls = fake.calls();
    let second = last_scratch_path_in(&calls[2][3], "jpeg");
    assert_ne!(second, remote);
    assert_eq!(
        calls[2],
        shell(&format!(
            "rm -f '{remote}' 2>/dev/null; snapshot_display -f '{second}'"
        ))
    );
    assert_eq!(d.cost(), cost(4, 0));
    fake.assert_script_used();
}

#[test]
fn png_screenshot_with_display_and_region() {
    let fake = Fake::new()
        .reply_with(|argv| {
            let p = scratch_path_in(&argv[3], "png");
            ok(&format!("ScreenCap saved to {p}\n"))
        })
        .reply_with(recv_writing(test_image(image::ImageFormat::Png)));
    let d = device(&fake);
    let shot = d
        .screenshot(&ScreenshotRequest {
            format: ImageFormat::Png,
            display_id: Some(1),
            region: Some(Bounds::new(10, 20, 50, 100)),
        })
        .unwrap();
    let calls = fake.calls();
    let remote = scratch_path_in(&calls[0][3], "png");
    assert_eq!(
        calls[0],
        shell(&format!("uitest screenCap -p '{remote}' -d 1"))
    );
    assert_eq!(calls.len(), 2);
    assert_eq!((shot.width, shot.height), (40, 80));
    let back = image::load_from_memory_with_format(&shot.bytes, image::ImageFormat::Png).unwrap();
    assert_eq!((back.width(), back.height()), (40, 80));
    assert_eq!(back.to_rgb8().get_pixel(0, 0), &image::Rgb([30, 20, 200]));
}

#[test]
fn failed_transfer_still_deletes_the_device_file_with_the_next_command() {
    let fake = Fake::new()
        .reply_with(|argv| {
            let p = scratch_path_in(&argv[3], "jpeg");
            ok(&format!(
                "success: snapshot display 0 , write to {p} as jpeg, width: 1, height: 1\n"
            ))
        })
        .reply("[Fail]Error opening file: no such file or directory, path:/data/local/tmp/x.jpeg\n")
        .reply("Current State: AWAKE  Reason: 1  Time: 2\n");
    let d = device(&fake);
    let e = d
        .screenshot(&ScreenshotRequest {
            format: ImageFormat::Jpeg,
            display_id: Some(0),
            region: None,
        })
        .unwrap_err();
    assert_eq!(e.code(), "SCREENSHOT_ERROR");
    assert!(e.device_says().unwrap().contains("Error opening file"));
    assert_eq!(fake.calls().len(), 2);
    // Any next shell command of the device carries the delete, and its answer is unchanged.
    let power = d.power_state().unwrap();
    assert!(power.awake);
    let calls = fake.calls();
    assert!(calls[0][3].ends_with(".jpeg' -i 0"), "{:?}", calls[0]);
    let remote = scratch_path_in(&calls[0][3], "jpeg");
    assert_eq!(
        calls[2],
        shell(&format!(
            "rm -f '{remote}' 2>/dev/null; hidumper -s PowerManagerService -a -s"
        ))
    );
    // Sent once: the command after it carries nothing.
    let fake2 = fake.reply("Current State: AWAKE  Reason: 1  Time: 2\n");
    d.power_state().unwrap();
    assert_eq!(
        fake2.calls()[3],
        shell("hidumper -s PowerManagerService -a -s")
    );
}

#[test]
fn refused_capture_is_a_screenshot_error_in_the_device_words() {
    let fake = Fake::new().reply("current mode is not developer mode, just return.\n");
    let e = device(&fake)
        .screenshot(&ScreenshotRequest {
            format: ImageFormat::Jpeg,
            display_id: None,
            region: None,
        })
        .unwrap_err();
    assert_eq!(e.code(), "SCREENSHOT_ERROR");
    assert_eq!(
        e.device_says(),
        Some("current mode is not developer mode, just return.")
    );
    assert_eq!(fake.calls().len(), 1);
}

// ---------------------------------------------------------------- apps

fn temp_hap() -> tempfile::NamedTempFile {
    let f = tempfile::Builder::new().suffix(".hap").tempfile().unwrap();
    std::fs::write(f.path(), b"PK\x03\x04").unwrap();
    f
}

#[test]
fn install_replace_and_success() {
    let hap = temp_hap();
    let path = hap.path().to_str().unwrap().to_string();
    let fake = Fake::new()
        .reply(fixture("hdc_install_success.txt"))
        .reply(fixture("hdc_install_success.txt"));
    let d = device(&fake);
    d.install(hap.path(), true).unwrap();
    d.install(hap.path(), false).unwrap();
    assert_eq!(
        fake.calls(),
        vec![hdc(&["install", "-r", &path]), hdc(&["install", &path])]
    );
    assert_eq!(fake.timeouts()[0], Duration::from_secs(60));
    assert_eq!(d.cost(), cost(2, 0));
}

#[test]
fn install_failure_keeps_the_code_lines() {
    let hap = temp_hap();
    let fake = Fake::new().reply(
        "[Info]App install path:/x/entry-default-signed.hap, queuesize:0, msg:error: failed to install bundle.\ncode:9568289\nerror: install failed due to grant request permissions failed.\nPermissionName: ohos.permission.X\nAppMod finish\n",
    );
    let e = device(&fake).install(hap.path(), true).unwrap_err();
    assert_eq!(e.code(), "INSTALL_FAILED");
    let says = e.device_says().unwrap();
    assert!(says.contains("code:9568289"), "{says}");
    assert!(says.contains("ohos.permission.X"), "{says}");
}

#[test]
fn install_of_a_missing_file_sends_nothing() {
    let fake = Fake::new();
    let e = device(&fake)
        .install(std::path::Path::new("/nonexistent/app.hap"), true)
        .unwrap_err();
    assert_eq!(e.code(), "HOST_IO_ERROR");
    assert!(fake.calls().is_empty());
}

#[test]
fn uninstall() {
    let fake = Fake::new()
        .reply(fixture("hdc_uninstall_success.txt"))
        .reply("[Info]App uninstall path:, queuesize:0, msg:error: failed to uninstall bundle. code:9568386 error: uninstall missing installed bundle.\nAppMod finish\n");
    let d = device(&fake);
    d.uninstall("com.kk.hmscrcpy").unwrap();
    let e = d.uninstall("com.kk.hmscrcpy").unwrap_err();
    assert_eq!(e.code(), "UNINSTALL_FAILED");
    assert!(e.device_says().unwrap().contains("9568386"));
    assert_eq!(
        fake.calls(),
        vec![
            hdc(&["uninstall", "com.kk.hmscrcpy"]),
            hdc(&["uninstall", "com.kk.hmscrcpy"])
        ]
    );
    let e = d.uninstall("-k").unwrap_err();
    assert_eq!(e.code(), "INVALID_BUNDLE_NAME");
    assert_eq!(fake.calls().len(), 2, "an option-like bundle is never sent");
    assert_eq!(d.cost(), cost(2, 0));
}

#[test]
fn start_app() {
    let fake = Fake::new()
        .reply(fixture("aa_start_U_stdout.txt"))
        .reply(fixture("aa_start_U_stdout.txt"))
        .reply("error: failed to start ability.\nError Code:10104001  Error Message:The specified ability does not exist\n");
    let d = device(&fake);
    d.start_app("com.example.app", "EntryAbility", None)
        .unwrap();
    d.start_app("com.example.app", "EntryAbility", Some("entry"))
        .unwrap();
    let e = d
        .start_app("com.example.app", "NoSuchAbility", None)
        .unwrap_err();
    assert_eq!(e.code(), "RUN_APP_FAILED");
    assert!(e.device_says().unwrap().contains("10104001"));
    assert_eq!(
        fake.calls(),
        vec![
            shell("aa start -a 'EntryAbility' -b 'com.example.app'"),
            shell("aa start -a 'EntryAbility' -b 'com.example.app' -m 'entry'"),
            shell("aa start -a 'NoSuchAbility' -b 'com.example.app'"),
        ]
    );
    assert_eq!(d.cost(), cost(3, 0));
}

#[test]
fn stop_app() {
    let fake = Fake::new()
        .reply("force stop process successfully.\n")
        .reply("error: failed to force stop process.\n");
    let d = device(&fake);
    d.stop_app("com.example.app").unwrap();
    assert_eq!(
        d.stop_app("com.example.app").unwrap_err().code(),
        "STOP_APP_FAILED"
    );
    assert_eq!(
        fake.calls(),
        vec![
            shell("aa force-stop 'com.example.app'"),
            shell("aa force-stop 'com.example.app'")
        ]
    );
    assert_eq!(d.cost(), cost(2, 0));
}

#[test]
fn clear_app_data_is_data_and_cache_in_one_round_trip() {
    let fake = Fake::new()
        .reply("==tapflow:0==\nclean bundle data files successfully.\n==tapflow:1==\nclean bundle cache files successfully.\n")
        .reply("==tapflow:0==\nclean bundle data files successfully.\n==tapflow:1==\nerror: failed to clean bundle cache files.\n");
    let d = device(&fake);
    d.clear_app_data("com.example.app").unwrap();
    let e = d.clear_app_data("com.example.app").unwrap_err();
    assert_eq!(e.code(), "CLEAR_DATA_FAILED");
    assert!(
        e.device_says()
            .unwrap()
            .contains("failed to clean bundle cache")
    );
    let cmd = "echo '==tapflow:0=='; bm clean -n 'com.example.app' -d; echo '==tapflow:1=='; bm clean -n 'com.example.app' -c";
    assert_eq!(fake.calls(), vec![shell(cmd), shell(cmd)]);
    assert_eq!(d.cost(), cost(2, 0));
}

#[test]
fn clear_app_data_with_a_missing_answer_fails() {
    let fake = Fake::new().reply("==tapflow:0==\nclean bundle data files successfully.\n");
    let e = device(&fake).clear_app_data("com.example.app").unwrap_err();
    assert_eq!(e.code(), "CLEAR_DATA_FAILED");
    assert!(e.device_says().unwrap().contains("bm clean -c"));
}

#[test]
fn packages_and_package_info() {
    let fake = Fake::new()
        .reply(fixture("bm_dump_a_truncated.txt"))
        .reply(fixture("bm_dump_n_camera_abridged.txt"))
        .reply("error: failed to get information and the parameters may be wrong.\n");
    let d = device(&fake);
    let pkgs = d.packages().unwrap();
    assert_eq!(
        pkgs.first().map(String::as_str),
        Some("com.huawei.associateassistant")
    );
    assert_eq!(pkgs.len(), 12);
    let info = d.package_info("com.huawei.hmos.camera").unwrap();
    assert_eq!(info.bundle_name, "com.huawei.hmos.camera");
    assert!(!info.abilities.is_empty());
    let e = d.package_info("com.no.such").unwrap_err();
    assert_eq!(e.code(), "PACKAGE_QUERY_FAILED");
    assert!(
        e.device_says()
            .unwrap()
            .contains("failed to get information")
    );
    assert_eq!(
        fake.calls(),
        vec![
            shell("bm dump -a"),
            shell("bm dump -n 'com.huawei.hmos.camera'"),
            shell("bm dump -n 'com.no.such'"),
        ]
    );
    assert_eq!(d.cost(), cost(3, 0));
}

#[test]
fn pid_of_running_and_not_running() {
    let fake = Fake::new().reply("6724\n").reply("").reply("pidof: bad\n");
    let d = device(&fake);
    assert_eq!(d.pid_of("com.example.app").unwrap(), Some(6724));
    assert_eq!(d.pid_of("com.example.app").unwrap(), None);
    assert_eq!(
        d.pid_of("com.example.app").unwrap_err().code(),
        "PID_QUERY_FAILED"
    );
    assert_eq!(fake.calls()[0], shell("pidof 'com.example.app'"));
    assert_eq!(d.cost(), cost(3, 0));
}

// ---------------------------------------------------------------- logs and crashes

#[test]
fn logs_pass_every_filter_quoted() {
    let hilog = fixture("hilog_excerpt_emulator6_nwpucampus_webview.txt");
    let fake = Fake::new().reply(hilog.clone()).reply(hilog.clone());
    let d = device(&fake);
    assert_eq!(d.logs(&LogQuery::default()).unwrap(), hilog);
    let q = LogQuery {
        level: Some('E'),
        tags: vec!["AppKit".into(), "JSAPP".into()],
        domain: Some("0xC01317".into()),
        pids: vec![6724],
        regex: Some("is about to exit|RuntimeError".into()),
        log_type: Some("app,core".into()),
        tail: Some(500),
        since: None,
    };
    d.logs(&q).unwrap();
    assert_eq!(
        fake.calls(),
        vec![
            shell("hilog -x"),
            shell(
                "hilog -x -t 'app,core' -L 'E,F' -D '0xC01317' -T 'AppKit,JSAPP' -P '6724' -e 'is about to exit|RuntimeError' -z '500'"
            ),
        ]
    );
    assert_eq!(fake.timeouts(), vec![Duration::from_secs(20); 2]);
    assert_eq!(d.cost(), cost(2, 0));
}

#[test]
fn clear_logs() {
    let fake = Fake::new()
        .reply("Log type core,app,only_prerelease buffer clear successfully\n")
        .reply("Log type core buffer clear failed\n");
    let d = device(&fake);
    d.clear_logs().unwrap();
    assert_eq!(d.clear_logs().unwrap_err().code(), "LOG_CLEAR_FAILED");
    assert_eq!(fake.calls(), vec![shell("hilog -r"), shell("hilog -r")]);
    assert_eq!(d.cost(), cost(2, 0));
}

#[test]
fn crash_files_and_reading_one() {
    let name = "cppcrash-com.ohos.note-20010043-20240516093015123.log";
    let fake = Fake::new()
        .reply(format!(
            "{name}\njscrash-com.example.nwpucampus-20020048-1737637310181.log\n"
        ))
        .reply(fixture(
            "cppcrash_faultlogger_com_ohos_note_dayu200_head.txt",
        ))
        .reply("ls: /data/log/faultlog/faultlogger/: No such file or directory\n")
        .reply("cat: /data/log/faultlog/faultlogger/x.log: No such file or directory\n");
    let d = device(&fake);
    let files = d.crash_files().unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!(files[0].file_name, name);
    assert_eq!(files[0].process, "com.ohos.note");
    let text = d.read_crash_file(name).unwrap();
    assert!(text.starts_with("Generated by HiviewDFX@OpenHarmony"));
    assert!(
        d.crash_files().unwrap().is_empty(),
        "no faultlogger dir = no crash"
    );
    let e = d.read_crash_file("x.log").unwrap_err();
    assert_eq!(e.code(), "CRASH_READ_FAILED");
    assert!(e.device_says().unwrap().contains("No such file"));
    assert_eq!(
        fake.calls(),
        vec![
            shell("ls '/data/log/faultlog/faultlogger/'"),
            shell(&format!("cat '/data/log/faultlog/faultlogger/{name}'")),
            shell("ls '/data/log/faultlog/faultlogger/'"),
            shell("cat '/data/log/faultlog/faultlogger/x.log'"),
        ]
    );
    assert_eq!(d.cost(), cost(4, 0));
}

#[test]
fn crash_file_names_cannot_escape_the_directory() {
    let fake = Fake::new();
    let d = device(&fake);
    for bad in ["../../../etc/passwd", "a/b.log", "..", ""] {
        assert_eq!(
            d.read_crash_file(bad).unwrap_err().code(),
            "PATH_NOT_ALLOWED"
        );
    }
    assert!(fake.calls().is_empty());
}

// ---------------------------------------------------------------- hdc failures and transport errors

#[test]
fn hdc_fail_texts_become_typed_errors() {
    let cases = [
        ("[Fail]No any connected target\n", "DEVICE_NOT_FOUND"),
        (
            "[Fail][E001005] Device not found or connected\n",
            "DEVICE_NOT_FOUND",
        ),
        (
            "[Fail]ExecuteCommand need connect-key? please confirm a device by help info\n",
            "MULTIPLE_DEVICES",
        ),
        (
            "[E000002]:The device unauthorized.\n",
            "DEVICE_UNAUTHORIZED",
        ),
        (
            "[Fail][E001003] USB communication abnormal, please check the USB communication link.\n",
            "DEVICE_DISCONNECTED",
        ),
    ];
    for (text, code) in cases {
        // Status-like and payload-like operations alike.
        let fake = Fake::new().reply(text).reply(text).reply(text);
        let d = device(&fake);
        assert_eq!(
            d.tap(Point::new(1, 1), TapKind::Single).unwrap_err().code(),
            code
        );
        assert_eq!(d.logs(&LogQuery::default()).unwrap_err().code(), code);
        assert_eq!(d.ui_tree(&DumpScope::default()).unwrap_err().code(), code);
    }
}

#[test]
fn not_found_names_the_device_and_keeps_hdc_words() {
    let fake = Fake::new().reply("[Fail][E001005] Device not found or connected\r\n");
    let e = device(&fake).missions().unwrap_err();
    assert_eq!(
        e,
        DeviceError::NotFound {
            serial: SERIAL.into(),
            device_says: "[Fail][E001005] Device not found or connected".into()
        }
    );
}

#[test]
fn timeout_is_hdc_timeout_with_the_command() {
    let fake = Fake::new().reply_with(|_| Err(TransportError::Timeout(Duration::from_secs(5))));
    let d = device(&fake);
    let e = d.tap(Point::new(3, 4), TapKind::Single).unwrap_err();
    assert_eq!(e.code(), "HDC_TIMEOUT");
    assert_eq!(
        e,
        DeviceError::Timeout {
            command: format!("fake-hdc -t {SERIAL} shell 'uitest uiInput click 3 4'"),
            after: Duration::from_secs(5)
        }
    );
    assert_eq!(d.cost(), cost(1, 0));
}

#[test]
fn missing_hdc_program_is_hdc_not_found() {
    let client = HdcClient::with_process(HdcConfig {
        program: PathBuf::from("/nonexistent/dir/hdc"),
        ..config()
    });
    let e = client.list_targets().unwrap_err();
    assert_eq!(e.code(), "HDC_NOT_FOUND");
    assert!(e.to_string().contains("/nonexistent/dir/hdc"));
    let d = client.device(SERIAL, HdcRoute::target(SERIAL));
    assert_eq!(d.power_state().unwrap_err().code(), "HDC_NOT_FOUND");
}

// ---------------------------------------------------------------- client

fn client(fake: &Arc<Fake>) -> HdcClient {
    HdcClient::new(config(), fake.clone())
}

#[test]
fn list_targets_verbose() {
    let fake = Fake::new().reply(fixture("hdc_list_targets_v.txt"));
    let c = client(&fake);
    let targets = c.list_targets().unwrap();
    assert_eq!(fake.calls(), vec![vec!["list", "targets", "-v"]]);
    assert_eq!(targets.len(), 2);
    assert_eq!(targets[0].serial, "127.0.0.1:5555");
    assert_eq!(targets[0].connection.as_deref(), Some("TCP"));
    assert_eq!(targets[1].serial, SERIAL);
    assert_eq!(c.cost(), cost(1, 0));
}

#[test]
fn empty_listing_is_no_targets() {
    let fake = Fake::new().reply("[Empty]\n");
    assert!(client(&fake).list_targets().unwrap().is_empty());
}

#[test]
fn listing_goes_to_the_route_server() {
    let fake = Fake::new().reply(format!("{SERIAL}\t\tUSB\tConnected\tlocalhost\n"));
    let c = client(&fake);
    let route = c.route(Some(SERIAL), Some("10.0.0.9:8710"));
    let d = c.connect(route.clone()).unwrap();
    assert_eq!(
        fake.calls(),
        vec![vec!["-s", "10.0.0.9:8710", "list", "targets", "-v"]]
    );
    assert_eq!(d.serial(), SERIAL);
    assert_eq!(d.route(), &route);
}

#[test]
fn connect_to_a_listed_device() {
    let fake = Fake::new()
        .reply(fixture("hdc_list_targets_v.txt"))
        .reply("\n");
    let c = client(&fake);
    let d = c.connect(c.route(Some(SERIAL), None)).unwrap();
    assert_eq!(d.serial(), SERIAL);
    assert_eq!(d.platform(), "harmonyos");
    d.tap(Point::new(5, 6), TapKind::Single).unwrap();
    assert_eq!(fake.calls()[1], shell("uitest uiInput click 5 6"));
    assert_eq!(
        d.cost(),
        cost(1, 0),
        "the device counts its own round trips"
    );
    fake.assert_script_used();
}

#[test]
fn connect_to_an_unlisted_device_is_not_found() {
    let fake = Fake::new().reply(fixture("hdc_list_targets_v.txt"));
    let c = client(&fake);
    let e = c.connect(c.route(Some("NOPE123"), None)).unwrap_err();
    assert_eq!(e.code(), "DEVICE_NOT_FOUND");
    assert!(e.device_says().unwrap().contains(SERIAL));

    let fake = Fake::new().reply("[Empty]\n");
    let c = client(&fake);
    let e = c
        .connect(c.route(None, Some("192.168.1.5:5555")))
        .unwrap_err();
    assert_eq!(e.code(), "DEVICE_NOT_FOUND");
    assert!(
        e.device_says()
            .unwrap()
            .contains("hdc tconn 192.168.1.5:5555")
    );
}

#[test]
fn connect_recognises_unauthorized_and_offline() {
    let fake = Fake::new().reply(format!("{SERIAL}\t\tUSB\tUnauthorized\tunknown...\n"));
    let c = client(&fake);
    let e = c.connect(c.route(Some(SERIAL), None)).unwrap_err();
    assert_eq!(
        e,
        DeviceError::Unauthorized {
            serial: SERIAL.into()
        }
    );

    let fake = Fake::new().reply(format!("{SERIAL}\tUnauthorized\n"));
    let c = client(&fake);
    assert_eq!(
        c.connect(HdcRoute::default()).unwrap_err().code(),
        "DEVICE_UNAUTHORIZED"
    );

    let fake = Fake::new().reply(format!("{SERIAL}\t\tUSB\tOffline\tunknown...\n"));
    let c = client(&fake);
    assert_eq!(
        c.connect(c.route(Some(SERIAL), None)).unwrap_err().code(),
        "DEVICE_DISCONNECTED"
    );
}

#[test]
fn connect_without_target_needs_exactly_one_device() {
    let fake = Fake::new().reply(fixture("hdc_list_targets_v.txt"));
    let e = client(&fake).connect(HdcRoute::default()).unwrap_err();
    assert_eq!(
        e,
        DeviceError::Ambiguous {
            serials: format!("127.0.0.1:5555, {SERIAL}")
        }
    );

    let fake = Fake::new()
        .reply("127.0.0.1:5555\t\tTCP\tConnected\tlocalhost\n")
        .reply("\n");
    let d = client(&fake).connect(HdcRoute::default()).unwrap();
    assert_eq!(d.serial(), "127.0.0.1:5555");
    d.key_event(&KeyInput::Home).unwrap();
    assert_eq!(
        fake.calls()[1],
        vec!["shell", "uitest uiInput keyEvent Home"],
        "no routing given → no flags"
    );

    let fake = Fake::new().reply("[Empty]\n");
    assert_eq!(
        client(&fake)
            .connect(HdcRoute::default())
            .unwrap_err()
            .code(),
        "DEVICE_NOT_FOUND"
    );
}

#[test]
fn listing_failure_is_typed() {
    // hdc's client cannot reach its server: the infrastructure, not the listing.
    let fake = Fake::new().reply("[Fail]Connect server failed\n");
    let e = client(&fake).list_targets().unwrap_err();
    assert_eq!(e.code(), "HDC_SERVER_UNREACHABLE");
    let fake = Fake::new().reply("[Fail]some other server trouble\n");
    let e = client(&fake).list_targets().unwrap_err();
    assert_eq!(e.code(), "DEVICE_LIST_FAILED");
}
