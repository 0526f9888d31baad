//! The current screen as a model: which windows are up (app or desktop, status bar, navigation
//! indicator, IME) and each window's laid-out element tree in absolute screen pixels. The app's
//! page comes from `page_layout`; a shown dialog is centred over it; the IME shrinks the window.

use super::loader::{IME_BUNDLE, SCENEBOARD};
use super::logs::sys;
use super::model::Action;
use super::page_layout::{PageLayout, clip};
use super::state::AppProcess;
use super::{Phone, launcher};
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

impl Phone {
    pub(super) fn metrics(&self) -> Metrics {
        Metrics::of(self.profile.screen)
    }

    /// The app in the foreground, if any (the desktop otherwise).
    pub(super) fn fg_proc(&self) -> Option<&AppProcess> {
        self.foreground.as_ref().and_then(|b| self.procs.get(b))
    }

    /// True while a TextInput of the foreground app is focused (the IME window is up).
    pub(super) fn ime_shown(&self) -> bool {
        self.fg_proc().is_some_and(|p| p.focus.is_some())
    }

    /// True while the focused field is a password field (the secure keyboard is up).
    pub(super) fn secure_input_focused(&self) -> bool {
        self.fg_proc().is_some_and(|p| {
            p.focus
                .as_ref()
                .and_then(|k| p.fields.get(k))
                .is_some_and(|f| f.secret)
        })
    }

    /// Every window on screen in dump order: app (or desktop), status bar, navigation, IME.
    pub(super) fn screen_windows(&self, keep_invisible: bool) -> Vec<Window> {
        let m = self.metrics();
        let full = Bounds::new(0, 0, m.w, m.h);
        let ime = self.ime_shown();
        let app_bottom = if ime { m.h - m.ime_h } else { m.h };
        let mut out = Vec::new();
        match self.fg_proc() {
            Some(p) => {
                let bounds = Bounds::new(0, m.status_h, m.w, app_bottom);
                let mut lay = PageLayout {
                    proc: p,
                    m,
                    keep_invisible,
                    next_acc: 1,
                };
                let mut children = Vec::new();
                let app = self.apps.get(&p.bundle);
                match p
                    .page()
                    .and_then(|pg| app.and_then(|a| a.spec.pages.get(pg)))
                {
                    Some(page) => {
                        let (root, _) =
                            lay.layout(&page.root, 0, m.status_h, m.w, app_bottom, None);
                        children.extend(root);
                        if let Some(d) = p.dialog.as_ref().and_then(|d| page.dialogs.get(d)) {
                            let dw = m.w - 2 * m.px(72);
                            let probe = lay.measure(d, dw);
                            let top = m.status_h + ((app_bottom - m.status_h) - probe).max(0) / 2;
                            let (dn, _) = lay.layout(d, m.px(72), top, dw, app_bottom, None);
                            children.extend(dn);
                        }
                    }
                    None => {
                        let label = app.map(|a| a.spec.label.clone()).unwrap_or_default();
                        children.push(launcher::default_page(&label, m, app_bottom));
                    }
                }
                // The IME shrinks the app window: content under it is clipped or dropped.
                for c in &mut children {
                    clip(c, &bounds, true);
                }
                out.push(Window {
                    id: p.window_id,
                    name: window_name(&p.bundle),
                    kind: WindowKind::App,
                    bundle: p.bundle.clone(),
                    ability: p.ability.clone(),
                    page: p.page().unwrap_or("pages/Index").to_string(),
                    pid: p.pid,
                    bounds,
                    orig: full,
                    focused: true,
                    window_type: 1,
                    z_order: 3,
                    children,
                });
            }
            None => out.push(Window {
                id: WIN_DESKTOP,
                name: "SCBDesktop1".into(),
                kind: WindowKind::Desktop,
                bundle: SCENEBOARD.into(),
                ability: "com.ohos.sceneboard.MainAbility".into(),
                page: String::new(),
                pid: sys::SCENEBOARD,
                bounds: Bounds::new(0, m.status_h, m.w, m.h),
                orig: full,
                focused: true,
                window_type: 2001,
                z_order: 1,
                children: launcher::desktop(self, m),
            }),
        }
        out.push(Window {
            id: WIN_STATUS_BAR,
            name: "SCBStatusBar12".into(),
            kind: WindowKind::StatusBar,
            bundle: SCENEBOARD.into(),
            ability: String::new(),
            page: String::new(),
            pid: sys::SCENEBOARD,
            bounds: Bounds::new(0, 0, m.w, m.status_h),
            orig: Bounds::new(0, 0, m.w, m.status_h),
            focused: false,
            window_type: 2108,
            z_order: 10,
            children: launcher::status_bar(self, m),
        });
        let nav = Bounds::new(0, m.h - m.nav_h, m.w, m.h);
        out.push(Window {
            id: WIN_NAV_BAR,
            name: "SCBGestureNavBar13".into(),
            kind: WindowKind::NavBar,
            bundle: SCENEBOARD.into(),
            ability: String::new(),
            page: String::new(),
            pid: sys::SCENEBOARD,
            bounds: nav,
            orig: nav,
            focused: false,
            window_type: 2131,
            z_order: 11,
            children: launcher::nav_bar(m),
        });
        if ime {
            let b = Bounds::new(0, m.h - m.ime_h, m.w, m.h);
            out.push(Window {
                id: WIN_IME,
                name: "softKeyboard1".into(),
                kind: WindowKind::Ime,
                bundle: IME_BUNDLE.into(),
                ability: String::new(),
                page: String::new(),
                pid: sys::IME,
                bounds: b,
                orig: b,
                focused: false,
                window_type: 2105,
                z_order: 12,
                children: if self.secure_input_focused() {
                    launcher::secure_keyboard(m, b)
                } else {
                    launcher::keyboard(m, b)
                },
            });
        }
        out
    }
}

/// WMS window name of an app's main window: last bundle segment + `0` (e.g. `demo0`).
pub fn window_name(bundle: &str) -> String {
    let last = bundle.rsplit('.').next().unwrap_or(bundle);
    let mut n: String = last.chars().take(19).collect();
    n.push('0');
    n
}
