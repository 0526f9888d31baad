//! An in-test fake [`Device`]: a scripted two-screen demo app whose UI tree changes on taps,
//! swipes and keys, with counted round trips, recorded actions and a few injectable faults.
//! Used by the tool tests (`crates/tapflow-tools/tests/tools/`) until the hdc backend and the simulator are wired in.
//!
//! Screens (physical 1260x2720; app window 10 of `com.example.demo`, status bar window 3):
//! - login: "Welcome", TextInput id `user`, Button "Login" (id `loginBtn`, with its own Text
//!   label "Login"), two Texts "Item", Button "Later" (does nothing).
//!   Tapping Login shows "Loading…" and switches to home after `transition_delay`.
//! - home: "Home", a scrollable List of 30 rows ("Row 0".. "Row 29", 10 visible, a swipe up
//!   moves 5 rows), Button "Back" (id `backBtn`) → login. Key Back → login.
//! - desktop (after key Home): no app window.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tapflow_device::*;
use tapflow_tools::{DeviceProvider, DeviceRoute};

pub const BUNDLE: &str = "com.example.demo";
pub const APP_WINDOW: i64 = 10;
pub const W: i32 = 1260;
pub const H: i32 = 2720;
pub const ROWS: usize = 30;
pub const VISIBLE_ROWS: usize = 10;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Tap(Point, TapKind),
    Gesture(Gesture),
    Key(KeyInput),
    Start {
        bundle: String,
        ability: String,
        module: Option<String>,
    },
    Stop(String),
    Clear(String),
    Install(String),
    Uninstall(String),
    Screenshot(Option<Bounds>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Login,
    Home,
    Desktop,
}

#[derive(Debug)]
struct State {
    screen: Screen,
    loading: bool,
    pending: Option<(Instant, Screen)>,
    offset: usize,
    typed: String,
    /// When the app's window becomes visible after a launch.
    window_at: Option<Instant>,
}

pub struct FakeDevice {
    serial: String,
    state: Mutex<State>,
    pub actions: Mutex<Vec<Action>>,
    cost: CostCounter,
    /// Delay between tapping Login and the home screen.
    pub transition_delay: Mutex<Duration>,
    /// Delay between `start_app` and the app window showing.
    pub launch_delay: Mutex<Duration>,
    /// Simulated device time for each dump.
    pub dump_latency: Mutex<Duration>,
    /// The next N dumps fail transiently (`DumpLayout failed`).
    pub failing_dumps: AtomicU32,
    /// The window table names bundles (the hdc backend may not).
    pub windows_name_bundles: Mutex<bool>,
    /// The next dump fails with exactly this error.
    pub next_dump_error: Mutex<Option<DeviceError>>,
    /// The next N dumps chained to an action (`act_then_tree`) fail transiently.
    pub failing_chained_dumps: AtomicU32,
    /// Dumps that travelled with an action in one round trip.
    pub chained_dumps: AtomicU32,
    /// Behave like a backend that cannot chain an action and its dump (the trait's default:
    /// two round trips). Off: one round trip, as the hdc backend does.
    pub no_chaining: std::sync::atomic::AtomicBool,
    /// The next screenshot fails with exactly this error.
    pub next_screenshot_error: Mutex<Option<DeviceError>>,
    pub installed: Mutex<Vec<String>>,
    /// What `logs` answers (hilog text); empty by default.
    pub log_text: Mutex<String>,
}

impl FakeDevice {
    pub fn new(serial: &str) -> Arc<Self> {
        Arc::new(FakeDevice {
            serial: serial.to_string(),
            state: Mutex::new(State {
                screen: Screen::Login,
                loading: false,
                pending: None,
                offset: 0,
                typed: String::new(),
                window_at: None,
            }),
            actions: Mutex::new(Vec::new()),
            cost: CostCounter::default(),
            transition_delay: Mutex::new(Duration::ZERO),
            launch_delay: Mutex::new(Duration::ZERO),
            dump_latency: Mutex::new(Duration::ZERO),
            failing_dumps: AtomicU32::new(0),
            windows_name_bundles: Mutex::new(true),
            next_dump_error: Mutex::new(None),
            failing_chained_dumps: AtomicU32::new(0),
            chained_dumps: AtomicU32::new(0),
            no_chaining: std::sync::atomic::AtomicBool::new(false),
            next_screenshot_error: Mutex::new(None),
            installed: Mutex::new(vec![
                BUNDLE.to_string(),
                "com.example.pages".to_string(),
                "com.example.service".to_string(),
                "com.example.hidden".to_string(),
                "com.ohos.settings".to_string(),
            ]),
            log_text: Mutex::new(String::new()),
        })
    }

    pub fn set_screen(&self, s: Screen) {
        let mut st = self.state.lock().unwrap();
        st.screen = s;
        st.loading = false;
        st.pending = None;
    }

    pub fn screen(&self) -> Screen {
        let mut st = self.state.lock().unwrap();
        Self::settle(&mut st);
        st.screen
    }

    pub fn offset(&self) -> usize {
        self.state.lock().unwrap().offset
    }

    pub fn actions(&self) -> Vec<Action> {
        self.actions.lock().unwrap().clone()
    }

    fn record(&self, a: Action) {
        self.actions.lock().unwrap().push(a);
    }

    fn trip(&self) {
        self.cost.round_trip();
    }

    fn settle(st: &mut State) {
        if let Some((at, to)) = st.pending
            && Instant::now() >= at
        {
            st.screen = to;
            st.loading = false;
            st.pending = None;
            st.offset = 0;
        }
    }

    /// The current tree (what a dump returns).
    pub fn tree(&self) -> UiNode {
        let mut st = self.state.lock().unwrap();
        Self::settle(&mut st);
        let mut windows = Vec::new();
        let app_visible = st.window_at.is_none_or(|t| Instant::now() >= t);
        match st.screen {
            Screen::Login if app_visible => windows.push(login(&st)),
            Screen::Home if app_visible => windows.push(home(&st)),
            _ => windows.push(desktop()),
        }
        windows.push(status_bar());
        let mut root = UiNode::default();
        for k in [
            "accessibilityId",
            "bounds",
            "hostWindowId",
            "id",
            "key",
            "text",
            "type",
        ] {
            root.attributes.insert(k.into(), String::new());
        }
        root.attributes
            .insert("bounds".into(), format!("[0,0][{W},{H}]"));
        root.children = windows;
        root
    }

    fn on_tap(&self, p: Point) {
        let tree = self.tree();
        // The deepest clickable node under the point wins, as on a device.
        let mut hit: Option<&UiNode> = None;
        for n in tree.walk() {
            if n.flag("clickable") && n.bounds().is_some_and(|b| b.contains(p)) {
                hit = Some(n);
            }
        }
        let Some(n) = hit else { return };
        let mut st = self.state.lock().unwrap();
        match n.id() {
            "loginBtn" => {
                let delay = *self.transition_delay.lock().unwrap();
                if delay.is_zero() {
                    st.screen = Screen::Home;
                    st.offset = 0;
                } else {
                    st.loading = true;
                    st.pending = Some((Instant::now() + delay, Screen::Home));
                }
            }
            "backBtn" => st.screen = Screen::Login,
            "user" => st.typed.clear(),
            _ => {}
        }
    }
}

fn attrs(ty: &str, text: &str, id: &str, aid: u32, b: Bounds, clickable: bool) -> UiNode {
    let mut n = UiNode::default();
    let a = &mut n.attributes;
    a.insert("accessibilityId".into(), aid.to_string());
    a.insert("bounds".into(), b.to_string());
    a.insert("clickable".into(), clickable.to_string());
    a.insert("enabled".into(), "true".into());
    a.insert("focused".into(), "false".into());
    a.insert("hashcode".into(), format!("{APP_WINDOW}:{aid}"));
    a.insert("hostWindowId".into(), APP_WINDOW.to_string());
    a.insert("id".into(), id.into());
    a.insert("key".into(), id.into());
    a.insert("longClickable".into(), "false".into());
    a.insert("scrollable".into(), "false".into());
    a.insert("text".into(), text.into());
    a.insert("type".into(), ty.into());
    a.insert("visible".into(), "true".into());
    n
}

fn window(page: &str, children: Vec<UiNode>) -> UiNode {
    let mut w = attrs("root", "", "", 0, Bounds::new(0, 100, W, H), false);
    w.attributes.insert("bundleName".into(), BUNDLE.into());
    w.attributes
        .insert("abilityName".into(), "EntryAbility".into());
    w.attributes.insert("pagePath".into(), page.into());
    w.attributes.insert("focused".into(), "true".into());
    w.children = children;
    w
}

fn login(st: &State) -> UiNode {
    let mut button = attrs(
        "Button",
        "Login",
        "loginBtn",
        4,
        Bounds::new(100, 700, 1160, 820),
        true,
    );
    button.children.push(attrs(
        "Text",
        "Login",
        "",
        5,
        Bounds::new(500, 730, 760, 790),
        false,
    ));
    let mut kids = vec![
        attrs(
            "Text",
            "Welcome",
            "",
            1,
            Bounds::new(100, 200, 1160, 300),
            false,
        ),
        attrs(
            "TextInput",
            &st.typed,
            "user",
            2,
            Bounds::new(100, 400, 1160, 520),
            true,
        ),
        button,
        attrs(
            "Text",
            "Item",
            "",
            6,
            Bounds::new(660, 900, 1160, 1000),
            false,
        ),
        attrs(
            "Text",
            "Item",
            "",
            7,
            Bounds::new(100, 900, 600, 1000),
            false,
        ),
        attrs(
            "Button",
            "Later",
            "laterBtn",
            8,
            Bounds::new(100, 1100, 1160, 1220),
            true,
        ),
    ];
    if st.loading {
        kids.push(attrs(
            "Text",
            "Loading…",
            "",
            9,
            Bounds::new(100, 1300, 1160, 1400),
            false,
        ));
    }
    let column = {
        let mut c = attrs("Column", "", "", 20, Bounds::new(0, 100, W, 2600), false);
        c.children = kids;
        c
    };
    window("pages/Login", vec![column])
}

fn home(st: &State) -> UiNode {
    let mut list = attrs("List", "", "list", 30, Bounds::new(0, 300, W, 2500), false);
    list.attributes.insert("scrollable".into(), "true".into());
    for (slot, i) in (st.offset..(st.offset + VISIBLE_ROWS).min(ROWS)).enumerate() {
        let top = 300 + slot as i32 * 220;
        let mut item = attrs(
            "ListItem",
            "",
            "",
            100 + i as u32 * 2,
            Bounds::new(0, top, W, top + 220),
            true,
        );
        item.children.push(attrs(
            "Text",
            &format!("Row {i}"),
            "",
            101 + i as u32 * 2,
            Bounds::new(40, top + 40, 1000, top + 180),
            false,
        ));
        list.children.push(item);
    }
    window(
        "pages/Home",
        vec![
            attrs(
                "Text",
                "Home",
                "",
                1,
                Bounds::new(100, 150, 1160, 250),
                false,
            ),
            list,
            attrs(
                "Button",
                "Back",
                "backBtn",
                40,
                Bounds::new(100, 2520, 1160, 2640),
                true,
            ),
        ],
    )
}

fn desktop() -> UiNode {
    let mut w = attrs("root", "", "", 0, Bounds::new(0, 0, W, H), false);
    w.attributes.insert("hostWindowId".into(), "2".into());
    w.attributes.insert("hashcode".into(), "2:0".into());
    w.attributes
        .insert("bundleName".into(), "com.ohos.sceneboard".into());
    w.children.push({
        let mut t = attrs(
            "Text",
            "Desktop",
            "",
            1,
            Bounds::new(100, 200, 1160, 300),
            false,
        );
        t.attributes.insert("hostWindowId".into(), "2".into());
        t.attributes.insert("hashcode".into(), "2:1".into());
        t
    });
    w
}

fn status_bar() -> UiNode {
    let mut w = attrs("root", "", "", 0, Bounds::new(0, 0, W, 100), false);
    w.attributes.insert("hostWindowId".into(), "3".into());
    w.attributes.insert("hashcode".into(), "3:0".into());
    w.attributes
        .insert("bundleName".into(), "com.ohos.systemui".into());
    w.children.push({
        let mut t = attrs("Text", "12:00", "", 1, Bounds::new(20, 20, 200, 80), false);
        t.attributes.insert("hostWindowId".into(), "3".into());
        t.attributes.insert("hashcode".into(), "3:1".into());
        t
    });
    w
}

fn package(bundle: &str) -> Option<PackageInfo> {
    let ability = |name: &str, kind: &str, visible: bool, launcher: bool| AbilityInfo {
        name: name.into(),
        module: "entry".into(),
        bundle: bundle.into(),
        kind: Some(kind.into()),
        visible: Some(visible),
        is_launcher: launcher,
        actions: vec![],
        entities: vec![],
    };
    let module = ModuleInfo {
        name: "entry".into(),
        module_type: Some("entry".into()),
        main_ability: None,
    };
    let mut p = PackageInfo {
        bundle_name: bundle.into(),
        version_name: Some("1.0.0".into()),
        version_code: Some(1000000),
        debug: Some(true),
        entry_module: Some("entry".into()),
        main_ability: None,
        main_module: None,
        modules: vec![module],
        abilities: vec![],
        permissions: vec![],
    };
    match bundle {
        BUNDLE => {
            p.main_ability = Some("EntryAbility".into());
            p.main_module = Some("entry".into());
            p.abilities = vec![
                ability("EntryAbility", "page", true, true),
                ability("SyncService", "service", false, false),
            ];
            p.permissions = vec![
                "ohos.permission.INTERNET".into(),
                "ohos.permission.CAMERA".into(),
            ];
        }
        "com.example.pages" => {
            p.abilities = vec![
                ability("HiddenAbility", "page", false, false),
                ability("ShownAbility", "page", true, false),
            ];
        }
        "com.example.service" => {
            p.abilities = vec![ability("OnlyService", "service", false, false)]
        }
        "com.example.hidden" => {
            p.abilities = vec![
                ability("OnlyService", "service", false, false),
                ability("HiddenAbility", "page", false, false),
            ]
        }
        "com.ohos.settings" => p.abilities = vec![ability("MainAbility", "page", true, true)],
        _ => return None,
    }
    Some(p)
}

impl FakeDevice {
    /// One dump as the device answers it (the caller counts the round trip).
    fn dump(&self) -> DeviceResult<UiNode> {
        self.cost.ui_dump();
        let latency = *self.dump_latency.lock().unwrap();
        if !latency.is_zero() {
            std::thread::sleep(latency); // simulated device time
        }
        if let Some(e) = self.next_dump_error.lock().unwrap().take() {
            return Err(e);
        }
        if self
            .failing_dumps
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
        {
            return Err(DeviceError::Command {
                code: tapflow_core::codes::UI_TREE_FETCH_ERROR,
                what: "uitest dumpLayout".into(),
                device_says: "DumpLayout failed:get root failed".into(),
            });
        }
        Ok(self.tree())
    }
}

impl Device for FakeDevice {
    fn serial(&self) -> &str {
        &self.serial
    }
    fn platform(&self) -> tapflow_device::Platform {
        tapflow_device::Platform::Harmonyos
    }
    fn info(&self) -> DeviceResult<DeviceInfo> {
        self.trip();
        Ok(DeviceInfo {
            serial: self.serial.clone(),
            platform: tapflow_device::Platform::Harmonyos,
            model: Some("FAKE-AL00".into()),
            screen: Some(ScreenSize {
                width: W as u32,
                height: H as u32,
            }),
            ..Default::default()
        })
    }
    fn power_state(&self) -> DeviceResult<PowerState> {
        self.trip();
        Ok(PowerState {
            state: "AWAKE".into(),
            awake: true,
        })
    }
    fn ui_tree(&self, _scope: &DumpScope) -> DeviceResult<UiNode> {
        self.trip();
        self.dump()
    }
    /// Mirrors the hdc backend: the action and the dump observing it are ONE round trip (the
    /// action's own counts it); a refused action yields no tree.
    fn act_then_tree(&self, action: &UiAction, scope: &DumpScope) -> ActObserved {
        let action = self.act(action);
        let tree = action.is_ok().then(|| {
            if self.no_chaining.load(Ordering::SeqCst) {
                return self.ui_tree(scope);
            }
            self.chained_dumps.fetch_add(1, Ordering::SeqCst);
            if self
                .failing_chained_dumps
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_ok()
            {
                self.cost.ui_dump();
                return Err(DeviceError::Command {
                    code: tapflow_core::codes::UI_TREE_FETCH_ERROR,
                    what: "uitest dumpLayout".into(),
                    device_says: "DumpLayout failed:get root failed".into(),
                });
            }
            self.dump()
        });
        ActObserved { action, tree }
    }
    fn windows(&self) -> DeviceResult<WindowTable> {
        self.trip();
        let tree = self.tree();
        let names = *self.windows_name_bundles.lock().unwrap();
        let mut rows = Vec::new();
        for (z, w) in tree.children.iter().enumerate() {
            let id = w.window_id().unwrap_or_default();
            let b = w.bounds().unwrap_or(Bounds::new(0, 0, 0, 0));
            let app = id == APP_WINDOW;
            rows.push(WindowInfo {
                name: match id {
                    APP_WINDOW => "demo0".into(),
                    2 => "SCBDesktop".into(),
                    _ => "SCBStatusBar".into(),
                },
                display_id: 0,
                pid: if app { 4242 } else { 1000 + id },
                window_id: id,
                window_type: if app { 1 } else { 2108 },
                mode: 1,
                flag: 0,
                z_order: 10 - z as i64,
                orientation: 0,
                rect: Rect {
                    x: b.left,
                    y: b.top,
                    w: b.width(),
                    h: b.height(),
                },
                visible: true,
                bundle_name: names.then(|| w.attr("bundleName").to_string()),
            });
        }
        rows.push(WindowInfo {
            name: "settings0".into(),
            display_id: 0,
            pid: 777,
            window_id: 11,
            window_type: 1,
            mode: 1,
            flag: 0,
            z_order: -1,
            orientation: 0,
            rect: Rect::default(),
            visible: false,
            bundle_name: names.then(|| "com.ohos.settings".to_string()),
        });
        Ok(WindowTable {
            focus_window: rows.first().map(|w| w.window_id),
            total: Some(rows.len()),
            windows: rows,
        })
    }
    fn missions(&self) -> DeviceResult<Vec<Mission>> {
        self.trip();
        Ok(vec![])
    }
    fn tap(&self, at: Point, kind: TapKind) -> DeviceResult<()> {
        self.trip();
        self.record(Action::Tap(at, kind));
        if kind != TapKind::Long {
            self.on_tap(at);
        }
        Ok(())
    }
    fn gesture(&self, gesture: &Gesture) -> DeviceResult<()> {
        self.trip();
        self.record(Action::Gesture(gesture.clone()));
        if let Gesture::Swipe { from, to, .. } = gesture {
            let mut st = self.state.lock().unwrap();
            if st.screen == Screen::Home {
                if from.y > to.y {
                    st.offset = (st.offset + 5).min(ROWS - VISIBLE_ROWS);
                } else if from.y < to.y {
                    st.offset = st.offset.saturating_sub(5);
                }
            }
        }
        Ok(())
    }
    fn input_text(&self, _target: TextTarget, text: &str) -> DeviceResult<()> {
        self.trip();
        self.state.lock().unwrap().typed.push_str(text);
        Ok(())
    }
    fn key_event(&self, key: &KeyInput) -> DeviceResult<()> {
        self.trip();
        self.record(Action::Key(key.clone()));
        let mut st = self.state.lock().unwrap();
        match key {
            KeyInput::Back if st.screen == Screen::Home => st.screen = Screen::Login,
            KeyInput::Home => st.screen = Screen::Desktop,
            _ => {}
        }
        Ok(())
    }
    fn screenshot(&self, request: &ScreenshotRequest) -> DeviceResult<Screenshot> {
        self.trip();
        self.record(Action::Screenshot(request.region));
        if let Some(e) = self.next_screenshot_error.lock().unwrap().take() {
            return Err(e);
        }
        let (w, h) = match request.region {
            Some(b) => (b.width() as u32, b.height() as u32),
            None => (W as u32 / 10, H as u32 / 10),
        };
        let img = image::RgbImage::from_pixel(w.max(1), h.max(1), image::Rgb([30, 60, 90]));
        let mut bytes = Vec::new();
        let fmt = match request.format {
            ImageFormat::Png => image::ImageFormat::Png,
            ImageFormat::Jpeg => image::ImageFormat::Jpeg,
        };
        img.write_to(&mut std::io::Cursor::new(&mut bytes), fmt)
            .map_err(|e| DeviceError::Io {
                what: "encode".into(),
                detail: e.to_string(),
            })?;
        Ok(Screenshot {
            format: request.format,
            width: w,
            height: h,
            bytes,
        })
    }
    fn install(&self, package: &Path, _replace: bool) -> DeviceResult<()> {
        self.trip();
        self.record(Action::Install(package.display().to_string()));
        if package.to_string_lossy().contains("unsigned") {
            return Err(DeviceError::Command {
                code: tapflow_core::codes::INSTALL_FAILED,
                what: "install".into(),
                device_says:
                    "error: failed to install bundle. code:9568320 error: no signature file.".into(),
            });
        }
        Ok(())
    }
    fn uninstall(&self, bundle: &str) -> DeviceResult<()> {
        self.trip();
        self.record(Action::Uninstall(bundle.into()));
        let mut inst = self.installed.lock().unwrap();
        match inst.iter().position(|b| b == bundle) {
            Some(i) => {
                inst.remove(i);
                Ok(())
            }
            None => Err(DeviceError::Command {
                code: tapflow_core::codes::UNINSTALL_FAILED,
                what: "uninstall".into(),
                device_says: "error: failed to uninstall bundle. code:9568386 error: uninstall missing installed bundle.".into(),
            }),
        }
    }
    fn start_app(&self, bundle: &str, ability: &str, module: Option<&str>) -> DeviceResult<()> {
        self.trip();
        self.record(Action::Start {
            bundle: bundle.into(),
            ability: ability.into(),
            module: module.map(Into::into),
        });
        let known = package(bundle).is_some_and(|p| p.abilities.iter().any(|a| a.name == ability));
        if !known {
            return Err(DeviceError::Command {
                code: tapflow_core::codes::RUN_APP_FAILED,
                what: "aa start".into(),
                device_says: "error: failed to start ability.\nError Code:10104001  Error Message:The specified ability does not exist".into(),
            });
        }
        if bundle == BUNDLE {
            let delay = *self.launch_delay.lock().unwrap();
            let mut st = self.state.lock().unwrap();
            st.screen = Screen::Login;
            st.window_at = Some(Instant::now() + delay);
        }
        Ok(())
    }
    fn stop_app(&self, bundle: &str) -> DeviceResult<()> {
        self.trip();
        self.record(Action::Stop(bundle.into()));
        if !self.installed.lock().unwrap().iter().any(|b| b == bundle) {
            return Err(DeviceError::Command {
                code: tapflow_core::codes::STOP_APP_FAILED,
                what: "aa force-stop".into(),
                device_says: "error: failed to force stop process.".into(),
            });
        }
        if bundle == BUNDLE {
            self.state.lock().unwrap().screen = Screen::Desktop;
        }
        Ok(())
    }
    fn clear_app_data(&self, bundle: &str) -> DeviceResult<()> {
        self.trip();
        self.record(Action::Clear(bundle.into()));
        if !self.installed.lock().unwrap().iter().any(|b| b == bundle) {
            return Err(DeviceError::Command {
                code: tapflow_core::codes::CLEAR_APP_DATA_FAILED,
                what: "bm clean".into(),
                device_says: "error: failed to clean bundle data files.".into(),
            });
        }
        Ok(())
    }
    fn packages(&self) -> DeviceResult<Vec<String>> {
        self.trip();
        Ok(self.installed.lock().unwrap().clone())
    }
    fn package_info(&self, bundle: &str) -> DeviceResult<PackageInfo> {
        self.trip();
        package(bundle).ok_or_else(|| DeviceError::Command {
            code: tapflow_core::codes::PACKAGE_QUERY_FAILED,
            what: "bm dump -n".into(),
            device_says: "error: failed to get information and the parameters may be wrong.".into(),
        })
    }
    fn pid_of(&self, bundle: &str) -> DeviceResult<Option<u32>> {
        self.trip();
        let st = self.state.lock().unwrap();
        Ok((bundle == BUNDLE && st.screen != Screen::Desktop).then_some(4242))
    }
    fn logs(&self, _query: &LogQuery) -> DeviceResult<String> {
        self.trip();
        Ok(self.log_text.lock().unwrap().clone())
    }
    fn clear_logs(&self) -> DeviceResult<()> {
        self.trip();
        Ok(())
    }
    fn crash_files(&self) -> DeviceResult<Vec<CrashEntry>> {
        self.trip();
        Ok(vec![])
    }
    fn read_crash_file(&self, file_name: &str) -> DeviceResult<String> {
        self.trip();
        Err(DeviceError::Command {
            code: tapflow_core::codes::FILE_NOT_FOUND,
            what: "cat".into(),
            device_says: format!("{file_name}: No such file"),
        })
    }
    fn cost(&self) -> Cost {
        self.cost.snapshot()
    }
}

/// Devices by serial; records every route it was asked to resolve.
pub struct FakeProvider {
    pub devices: Vec<Arc<FakeDevice>>,
    pub routes: Mutex<Vec<DeviceRoute>>,
    pub disconnected: Mutex<HashMap<String, bool>>,
}

impl FakeProvider {
    pub fn new(devices: Vec<Arc<FakeDevice>>) -> Arc<Self> {
        Arc::new(FakeProvider {
            devices,
            routes: Mutex::new(vec![]),
            disconnected: Mutex::new(HashMap::new()),
        })
    }
    pub fn routes(&self) -> Vec<DeviceRoute> {
        self.routes.lock().unwrap().clone()
    }
}

impl DeviceProvider for FakeProvider {
    fn resolve(&self, route: &DeviceRoute) -> Result<Arc<dyn Device>, DeviceError> {
        self.routes.lock().unwrap().push(route.clone());
        let key = route.device_id.clone().or_else(|| route.hdc_server.clone());
        let found = match key {
            Some(k) => self.devices.iter().find(|d| d.serial() == k).cloned(),
            None if self.devices.len() == 1 => self.devices.first().cloned(),
            None if self.devices.is_empty() => None,
            None => {
                return Err(DeviceError::Ambiguous {
                    serials: self
                        .devices
                        .iter()
                        .map(|d| d.serial().to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
        };
        match found {
            Some(d)
                if self
                    .disconnected
                    .lock()
                    .unwrap()
                    .get(d.serial())
                    .copied()
                    .unwrap_or(false) =>
            {
                Err(DeviceError::Disconnected {
                    device_says: "[Fail]Device not found or connected".into(),
                })
            }
            Some(d) => Ok(d as Arc<dyn Device>),
            None => Err(DeviceError::NotFound {
                serial: route.device_id.clone().unwrap_or_default(),
                device_says: "[Fail][E001005] Device not found or connected".into(),
            }),
        }
    }
    fn targets(&self, _hdc_server: Option<&str>) -> Result<Vec<Target>, DeviceError> {
        let mut t: Vec<Target> = self
            .devices
            .iter()
            .map(|d| Target {
                serial: d.serial().into(),
                connection: Some("USB".into()),
                state: TargetState::Connected,
                name: Some("localhost".into()),
            })
            .collect();
        t.push(Target {
            serial: "OFFLINE01".into(),
            connection: Some("USB".into()),
            state: TargetState::Offline,
            name: None,
        });
        Ok(t)
    }
}
