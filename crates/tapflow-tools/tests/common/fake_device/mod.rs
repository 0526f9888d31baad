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
//!
//! Here: the constants, the recorded [`Action`]s, the [`Screen`]s, and [`FakeDevice`] with its
//! knobs and state machine; `screens` builds each screen's tree and the packages' info, `device`
//! answers the [`Device`] trait, `provider` holds [`FakeProvider`].
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tapflow_device::*;
use tapflow_tools::{DeviceProvider, DeviceRoute};

mod device;
mod provider;
mod screens;

pub use provider::FakeProvider;
use screens::{desktop, home, login, status_bar};

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
