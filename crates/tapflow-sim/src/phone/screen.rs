//! The current screen as a model: which windows are up (app or desktop, status bar, navigation
//! indicator, IME) and each window's laid-out element tree in absolute screen pixels. The app's
//! page comes from `page_layout`; a shown dialog is centred over it; the IME shrinks the window.

use super::loader::{IME_BUNDLE, SCENEBOARD};
use super::logs::sys;
use super::nodes::{
    Metrics, WIN_DESKTOP, WIN_IME, WIN_NAV_BAR, WIN_STATUS_BAR, Window, WindowKind, window_name,
};
use super::page_layout::{PageLayout, clip};
use super::state::AppProcess;
use super::{Phone, launcher};
use tapflow_device::model::Bounds;

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
    pub fn secure_input_focused(&self) -> bool {
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
