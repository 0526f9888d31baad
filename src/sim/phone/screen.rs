//! The current screen as a model: which windows are up (app or desktop, status bar, navigation
//! indicator, IME) and each window's laid-out element tree in absolute screen pixels.
//!
//! Layout is deliberately simple and deterministic: containers stack children vertically (`Row`
//! splits its width equally), heights come from the spec (pixels at reference width 1260, scaled to
//! the phone's width) or the type's default, a `List` fills the remaining height and only shows the
//! items that intersect its viewport (as ArkUI's lazy lists do), a dialog is centred over the page.

use super::loader::{IME_BUNDLE, SCENEBOARD};
use super::logs::sys;
use super::model::{Action, ElementSpec, Size, expand};
use super::state::AppProcess;
use super::{Phone, launcher};
use crate::device::model::Bounds;

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

/// Default height (reference px) of a leaf of this type.
fn default_height(kind: &str) -> i32 {
    match kind {
        "TextInput" | "Search" => 140,
        "TextArea" => 280,
        "Button" => 130,
        "Toggle" | "Checkbox" | "Radio" => 110,
        "ListItem" | "GridItem" | "Image" => 200,
        "Divider" => 2,
        _ => 100,
    }
}

fn is_container(e: &ElementSpec) -> bool {
    !e.children.is_empty()
        || e.repeat.is_some()
        || matches!(e.kind.as_str(), "Column" | "Row" | "Stack" | "Dialog")
}

/// Number of nodes an element contributes (for stable accessibility ids of skipped items).
fn node_count(e: &ElementSpec) -> i64 {
    1 + e.children.iter().map(node_count).sum::<i64>()
        + e.repeat
            .as_ref()
            .map_or(0, |r| r.count as i64 * node_count(&r.item))
}

/// Replaces `${n}` in every string of the actions (list templates), leaving other placeholders.
fn subst_n(actions: &[Action], n: u32) -> Vec<Action> {
    fn walk(v: &mut serde_json::Value, n: &str) {
        match v {
            serde_json::Value::String(s) => *s = s.replace("${n}", n),
            serde_json::Value::Array(a) => a.iter_mut().for_each(|x| walk(x, n)),
            serde_json::Value::Object(o) => o.values_mut().for_each(|x| walk(x, n)),
            _ => {}
        }
    }
    let Ok(mut v) = serde_json::to_value(actions) else {
        return actions.to_vec();
    };
    walk(&mut v, &n.to_string());
    serde_json::from_value(v).unwrap_or_else(|_| actions.to_vec())
}

/// Lays out app pages against one process's state.
pub struct PageLayout<'a> {
    pub proc: &'a AppProcess,
    pub m: Metrics,
    /// Keep out-of-viewport items (marked invisible) for `-i` dumps.
    pub keep_invisible: bool,
    pub next_acc: i64,
}

impl PageLayout<'_> {
    fn lookup(&self, name: &str, n: Option<u32>) -> Option<String> {
        if name == "n"
            && let Some(n) = n
        {
            return Some(n.to_string());
        }
        self.proc.lookup(name)
    }

    fn expand(&self, t: &str, n: Option<u32>) -> String {
        expand(t, &|k| self.lookup(k, n))
    }

    fn is_shown(&self, e: &ElementSpec) -> bool {
        match &e.visible_if {
            None => true,
            Some(v) => self
                .proc
                .lookup(v)
                .is_some_and(|x| !x.is_empty() && x != "false"),
        }
    }

    /// Lays out `e` at (x, y) with width `w`; `bottom` is where the window's content ends.
    /// Returns the node (None when hidden) and the height consumed.
    pub fn layout(
        &mut self,
        e: &ElementSpec,
        x: i32,
        y: i32,
        w: i32,
        bottom: i32,
        n: Option<u32>,
    ) -> (Option<ScreenNode>, i32) {
        if !self.is_shown(e) {
            self.next_acc += node_count(e);
            return (None, 0);
        }
        let acc = self.next_acc;
        self.next_acc += 1;
        let m = self.m;
        let margin = e.margin.map(|v| m.px(v)).unwrap_or(0);
        let spacing = e.spacing.map(|v| m.px(v)).unwrap_or(0);
        let (cx, cw) = (x + margin, (w - 2 * margin).max(0));
        let id =
            e.id.as_deref()
                .map(|i| self.expand(i, n))
                .unwrap_or_default();
        let (d_click, d_check, d_scroll, _focusable) = ElementSpec::flag_defaults(&e.kind);
        let mut node = ScreenNode {
            kind: e.kind.clone(),
            id: id.clone(),
            text: e
                .text
                .as_deref()
                .map(|t| self.expand(t, n))
                .unwrap_or_default(),
            hint: e
                .hint
                .as_deref()
                .map(|t| self.expand(t, n))
                .unwrap_or_default(),
            description: e.description.clone().unwrap_or_default(),
            accessibility_id: acc,
            enabled: e.flags.enabled.unwrap_or(true),
            clickable: e.flags.clickable.unwrap_or(d_click),
            long_clickable: e.flags.long_clickable.unwrap_or(false),
            scrollable: e.flags.scrollable.unwrap_or(d_scroll),
            checkable: e.flags.checkable.unwrap_or(d_check),
            password: e.flags.password,
            visible: true,
            background: e
                .background
                .clone()
                .unwrap_or_else(|| default_background(&e.kind)),
            on_tap: if n.is_some() {
                subst_n(&e.on_tap, n.unwrap_or(0))
            } else {
                e.on_tap.clone()
            },
            on_enter: e.on_enter.clone(),
            ..Default::default()
        };
        let key = if id.is_empty() {
            format!("#{acc}")
        } else {
            id.clone()
        };
        if node.checkable {
            node.checked = match self.proc.vars.get(&key) {
                Some(v) => v == "true",
                None => e.flags.checked.unwrap_or(false),
            };
            node.toggle_key = Some(key.clone());
        }
        if e.is_text_input() {
            let f = self.proc.fields.get(&key);
            let text = f.map(|f| f.text.as_str()).unwrap_or("");
            node.text = if e.flags.password {
                mask(text)
            } else {
                text.to_string()
            };
            node.focused = self.proc.focus.as_deref() == Some(key.as_str());
            node.field_key = Some(key.clone());
        }
        let height;
        if e.kind == "List" || e.kind == "Scroll" || e.kind == "Grid" {
            height = match e.height {
                Some(Size::Px(v)) => m.px(v),
                _ => (bottom - y).max(0),
            };
            let viewport = Bounds::new(cx, y, cx + cw, y + height);
            let offset = self.proc.scroll.get(&key).copied().unwrap_or(0);
            let mut content_y = y - offset;
            let mut total = 0;
            let items: Vec<(ElementSpec, Option<u32>)> = match &e.repeat {
                Some(r) => (1..=r.count)
                    .map(|i| ((*r.item).clone(), Some(i)))
                    .collect(),
                None => e.children.iter().map(|c| (c.clone(), n)).collect(),
            };
            for (item, item_n) in &items {
                let ih = self.measure(item, cw);
                let ib = Bounds::new(cx, content_y, cx + cw, content_y + ih);
                if ib.intersects(&viewport) || self.keep_invisible {
                    let inside = ib.intersects(&viewport);
                    let (child, _) = self.layout(item, cx, content_y, cw, content_y + ih, *item_n);
                    if let Some(mut c) = child {
                        clip(&mut c, &viewport, inside);
                        node.children.push(c);
                    }
                } else {
                    self.next_acc += node_count(item);
                }
                content_y += ih + spacing;
                total += ih + spacing;
            }
            node.scroll = Some((key.clone(), (total - spacing - height).max(0)));
        } else if is_container(e) {
            let mut cy = y + if e.kind == "Dialog" { m.px(48) } else { 0 };
            if e.kind == "Row" {
                let k = e.children.len().max(1) as i32;
                let gap = if spacing > 0 { spacing } else { m.px(24) };
                let cwid = (cw - gap * (k - 1)) / k;
                let mut maxh = 0;
                for (i, c) in e.children.iter().enumerate() {
                    let (child, ch) =
                        self.layout(c, cx + i as i32 * (cwid + gap), cy, cwid, bottom, n);
                    maxh = maxh.max(ch);
                    node.children.extend(child);
                }
                cy += maxh;
            } else {
                let mut first = true;
                for c in &e.children {
                    let top = if first { cy } else { cy + spacing };
                    let (child, ch) = self.layout(c, cx, top, cw, bottom, n);
                    if child.is_some() {
                        cy = top + ch;
                        first = false;
                    }
                    node.children.extend(child);
                }
            }
            if e.kind == "Dialog" {
                cy += m.px(48);
            }
            height = match e.height {
                Some(Size::Px(v)) => m.px(v),
                Some(Size::Fill(_)) => (bottom - y).max(0),
                None => cy - y,
            };
        } else {
            height = match e.height {
                Some(Size::Px(v)) => m.px(v),
                Some(Size::Fill(_)) => (bottom - y).max(0),
                None => m.px(default_height(&e.kind)),
            };
        }
        node.bounds = Bounds::new(x, y, x + w, y + height);
        node.orig = node.bounds;
        // ArkUI focus is hierarchical: every ancestor of the focused field is in the focus chain.
        if node.children.iter().any(|c| c.focused) {
            node.focused = true;
        }
        (Some(node), height)
    }

    /// Height an element would take (list items), without consuming accessibility ids.
    fn measure(&self, e: &ElementSpec, w: i32) -> i32 {
        let mut probe = PageLayout {
            proc: self.proc,
            m: self.m,
            keep_invisible: false,
            next_acc: 0,
        };
        probe.layout(e, 0, 0, w, i32::MAX / 4, Some(0)).1
    }
}

/// A password field's dump text: one `•` per character (the value itself never leaves the app).
pub fn mask(text: &str) -> String {
    "•".repeat(text.chars().count())
}

fn default_background(kind: &str) -> String {
    match kind {
        "Button" => "#FF0A59F7",
        "TextInput" | "TextArea" | "Search" => "#0C000000",
        "Dialog" => "#FFFFFFFF",
        _ => "#00000000",
    }
    .to_string()
}

/// Clips a subtree's visible bounds to `viewport`; subtrees outside it are marked invisible.
fn clip(n: &mut ScreenNode, viewport: &Bounds, inside: bool) {
    if !inside || !n.bounds.intersects(viewport) {
        n.visible = false;
    } else {
        n.bounds = Bounds::new(
            n.bounds.left.max(viewport.left),
            n.bounds.top.max(viewport.top),
            n.bounds.right.min(viewport.right),
            n.bounds.bottom.min(viewport.bottom),
        );
    }
    for c in &mut n.children {
        clip(c, viewport, inside);
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
                children: launcher::keyboard(m, b),
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
