//! What a screen is made of: windows ([`Window`], [`WindowKind`], the system windows' fixed
//! ids and the apps' window names), their laid-out element trees ([`ScreenNode`]), and the
//! screen metrics the layouts scale by ([`Metrics`]). The screen model (`screen`), the system
//! windows' contents (`launcher`) and the app pages (`page_layout`) all build on these.

use super::model::Action;
use tapflow_device::model::Bounds;

/// Fixed window ids of the system windows (the app windows get fresh ids per launch).
pub const WIN_DESKTOP: i64 = 5;
pub const WIN_STATUS_BAR: i64 = 33;
pub const WIN_NAV_BAR: i64 = 34;
pub const WIN_IME: i64 = 3;

/// What kind of window a [`Window`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowKind {
    App,
    Desktop,
    StatusBar,
    NavBar,
    Ime,
}

/// One laid-out element.
#[derive(Debug, Clone)]
pub struct ScreenNode {
    pub kind: String,
    pub id: String,
    pub text: String,
    pub hint: String,
    pub description: String,
    /// Visible (clipped) bounds.
    pub bounds: Bounds,
    /// Bounds before clipping.
    pub orig: Bounds,
    pub accessibility_id: i64,
    pub enabled: bool,
    pub focused: bool,
    pub selected: bool,
    pub clickable: bool,
    pub long_clickable: bool,
    pub scrollable: bool,
    pub checkable: bool,
    pub checked: bool,
    pub password: bool,
    /// Kept only in `-i` dumps (e.g. list items outside the viewport).
    pub visible: bool,
    pub background: String,
    pub on_tap: Vec<Action>,
    pub on_enter: Vec<Action>,
    /// Toggle state variable.
    pub toggle_key: Option<String>,
    /// TextInput id (focus target).
    pub field_key: Option<String>,
    /// `focusOnTouch`: tapping takes the focus from a text field.
    pub takes_focus: bool,
    /// Launcher icon: the bundle it starts.
    pub launch: Option<String>,
    /// Scrollable list: its id and the maximum scroll offset.
    pub scroll: Option<(String, i32)>,
    pub children: Vec<ScreenNode>,
}

impl Default for ScreenNode {
    fn default() -> Self {
        let zero = Bounds::new(0, 0, 0, 0);
        ScreenNode {
            kind: String::new(),
            id: String::new(),
            text: String::new(),
            hint: String::new(),
            description: String::new(),
            bounds: zero,
            orig: zero,
            accessibility_id: 0,
            enabled: true,
            focused: false,
            selected: false,
            clickable: false,
            long_clickable: false,
            scrollable: false,
            checkable: false,
            checked: false,
            password: false,
            visible: true,
            background: "#00000000".into(),
            on_tap: Vec::new(),
            on_enter: Vec::new(),
            toggle_key: None,
            field_key: None,
            takes_focus: false,
            launch: None,
            scroll: None,
            children: Vec::new(),
        }
    }
}

/// One window on screen.
#[derive(Debug, Clone)]
pub struct Window {
    pub id: i64,
    pub name: String,
    pub kind: WindowKind,
    pub bundle: String,
    pub ability: String,
    pub page: String,
    pub pid: u32,
    /// Visible part of the window.
    pub bounds: Bounds,
    /// The full window rect.
    pub orig: Bounds,
    pub focused: bool,
    pub window_type: i64,
    pub z_order: i64,
    /// The window's content (children of the window node).
    pub children: Vec<ScreenNode>,
}

/// Screen metrics derived from the profile.
#[derive(Debug, Clone, Copy)]
pub struct Metrics {
    pub w: i32,
    pub h: i32,
    pub scale: f32,
    pub status_h: i32,
    pub nav_h: i32,
    pub ime_h: i32,
}

impl Metrics {
    pub fn of(screen: (u32, u32)) -> Self {
        let (w, h) = (screen.0 as i32, screen.1 as i32);
        let scale = w as f32 / 1260.0;
        let px = |v: f32| (v * scale).round() as i32;
        Metrics {
            w,
            h,
            scale,
            status_h: px(123.0),
            nav_h: px(84.0),
            ime_h: px(1150.0),
        }
    }

    pub fn px(&self, v: i32) -> i32 {
        (v as f32 * self.scale).round() as i32
    }
}

/// WMS window name of an app's main window: last bundle segment + `0` (e.g. `demo0`).
pub fn window_name(bundle: &str) -> String {
    let last = bundle.rsplit('.').next().unwrap_or(bundle);
    let mut n: String = last.chars().take(19).collect();
    n.push('0');
    n
}
