//! Touch input: taps (focus, toggles, actions, launcher icons, soft-keyboard keys), double and
//! long taps, swipes (list scrolling, the home gesture). Keys and text live in `keys`.

use super::logs::sys;
use super::nodes::{ScreenNode, Window, WindowKind};
use super::{Phone, launcher};
use std::time::SystemTime;
use tapflow_device::model::Point;

/// What a tap lands on.
#[derive(Debug, Clone)]
enum Target {
    Node(Box<ScreenNode>),
    ImeKey(String),
    /// The secure keyboard's hide button.
    HideIme,
    Nothing,
}

/// The deepest node containing `p` that reacts to taps, searching depth-first (later siblings are
/// drawn on top, so they win).
fn hit(nodes: &[ScreenNode], p: Point) -> Option<&ScreenNode> {
    for n in nodes.iter().rev() {
        if !n.visible || !n.bounds.contains(p) {
            continue;
        }
        if let Some(inner) = hit(&n.children, p) {
            return Some(inner);
        }
        let reacts = n.field_key.is_some()
            || n.toggle_key.is_some()
            || n.launch.is_some()
            || !n.on_tap.is_empty()
            || n.clickable;
        if reacts && n.enabled {
            return Some(n);
        }
    }
    None
}

fn find_id<'a>(nodes: &'a [ScreenNode], id: &str) -> Option<&'a ScreenNode> {
    nodes.iter().find_map(|n| {
        if n.id == id {
            Some(n)
        } else {
            find_id(&n.children, id)
        }
    })
}

fn find_scrollable(nodes: &[ScreenNode], p: Point) -> Option<(String, i32)> {
    for n in nodes.iter().rev() {
        if !n.bounds.contains(p) {
            continue;
        }
        if let Some(s) = find_scrollable(&n.children, p) {
            return Some(s);
        }
        if let Some(s) = &n.scroll {
            return Some(s.clone());
        }
    }
    None
}

impl Phone {
    fn target_at(&self, p: Point) -> Target {
        let wins = self.screen_windows(false);
        for w in wins.iter().rev() {
            if !w.bounds.contains(p) {
                continue;
            }
            return match w.kind {
                WindowKind::StatusBar | WindowKind::NavBar => Target::Nothing,
                WindowKind::Ime => match hit(&w.children, p) {
                    Some(k) if k.kind == "Button" => Target::ImeKey(k.text.clone()),
                    Some(k) if k.id == "hideButton" => Target::HideIme,
                    _ => find_id(&w.children, "CanvasKeyboard")
                        .and_then(|c| launcher::canvas_key_at(c.bounds, p))
                        .map_or(Target::Nothing, |ch| Target::ImeKey(ch.to_string())),
                },
                WindowKind::App | WindowKind::Desktop => self.hit_in_window(w, p),
            };
        }
        Target::Nothing
    }

    fn hit_in_window(&self, w: &Window, p: Point) -> Target {
        // A dialog is modal: it is the last child of the app window and takes every tap.
        let dialog_up =
            w.kind == WindowKind::App && self.fg_proc().is_some_and(|x| x.dialog.is_some());
        let scope: &[ScreenNode] = if dialog_up && w.children.len() > 1 {
            &w.children[w.children.len() - 1..]
        } else {
            &w.children
        };
        hit(scope, p)
            .map(|n| Target::Node(Box::new(n.clone())))
            .unwrap_or(Target::Nothing)
    }

    /// `uitest uiInput click x y`.
    pub fn click(&mut self, x: i32, y: i32, now: SystemTime) {
        self.tick(now);
        self.logs.touch_noise(now, x, y);
        if !self.awake || self.recorded.is_some() {
            return;
        }
        match self.target_at(Point::new(x, y)) {
            Target::Nothing => {}
            Target::ImeKey(k) => {
                let _ = self.insert_text(&k, now);
            }
            Target::HideIme => {
                if let Some(b) = self.foreground.clone()
                    && let Some(p) = self.procs.get_mut(&b)
                {
                    p.focus = None;
                }
            }
            Target::Node(n) => self.activate(*n, now),
        }
    }

    /// Performs what tapping `n` does.
    fn activate(&mut self, n: ScreenNode, now: SystemTime) {
        if let Some(bundle) = &n.launch {
            let ability = self
                .apps
                .get(bundle)
                .and_then(|a| a.spec.abilities.iter().find(|x| x.launcher))
                .map(|a| a.name.clone());
            if let Some(ability) = ability {
                let _ = self.start_ability(&bundle.clone(), &ability, None, now);
            }
            return;
        }
        let Some(bundle) = self.foreground.clone() else {
            return;
        };
        if let Some(key) = &n.field_key {
            if let Some(p) = self.procs.get_mut(&bundle) {
                p.focus = Some(key.clone());
                let field = p.fields.entry(key.clone()).or_default();
                field.secret = n.password;
                field.move_end();
            }
            self.logs.core(
                now,
                sys::IME,
                'I',
                0x1f01,
                "ImsaKit",
                "ShowKeyboard, input attached",
            );
            return;
        }
        if n.takes_focus
            && let Some(p) = self.procs.get_mut(&bundle)
        {
            p.focus = None;
        }
        if let Some(key) = &n.toggle_key
            && let Some(p) = self.procs.get_mut(&bundle)
        {
            p.vars.insert(key.clone(), (!n.checked).to_string());
        }
        let key = n.toggle_key.clone().or(n.field_key.clone());
        self.run_actions(&bundle, key.as_deref(), &n.on_tap, now);
    }

    /// `uitest uiInput doubleClick x y`.
    pub fn double_click(&mut self, x: i32, y: i32, now: SystemTime) {
        self.click(x, y, now);
        self.click(x, y, now);
    }

    /// `uitest uiInput longClick x y`: focuses fields; other elements have no long-press action.
    pub fn long_click(&mut self, x: i32, y: i32, now: SystemTime) {
        self.tick(now);
        self.logs.touch_noise(now, x, y);
        if !self.awake || self.recorded.is_some() {
            return;
        }
        if let Target::Node(n) = self.target_at(Point::new(x, y))
            && n.field_key.is_some()
        {
            self.activate(*n, now);
        }
    }

    /// Swipe/drag/fling. Upward from the navigation bar = home gesture; inside a scrollable list the
    /// content moves by the finger distance times a velocity factor (600 px/s = 1×, up to 3×).
    pub fn swipe(&mut self, from: (i32, i32), to: (i32, i32), velocity: u32, now: SystemTime) {
        self.tick(now);
        self.logs.core(
            now,
            sys::MMI,
            'I',
            0x2800,
            "MMIService",
            format!(
                "Pointer event dispatched, action:MOVE, from:({},{}) to:({},{})",
                from.0, from.1, to.0, to.1
            ),
        );
        if !self.awake || self.recorded.is_some() {
            return;
        }
        let m = self.metrics();
        if from.1 >= m.h - m.nav_h && from.1 - to.1 > m.px(200) {
            self.go_home(now);
            return;
        }
        let Some(bundle) = self.foreground.clone() else {
            return;
        };
        let wins = self.screen_windows(false);
        let Some(w) = wins.iter().find(|w| w.kind == WindowKind::App) else {
            return;
        };
        if !w.bounds.contains(Point::new(from.0, from.1)) {
            return;
        }
        let Some((key, max)) = find_scrollable(&w.children, Point::new(from.0, from.1)) else {
            return;
        };
        let factor = (velocity.max(1) as f32 / 600.0).clamp(1.0, 3.0);
        let delta = ((from.1 - to.1) as f32 * factor).round() as i32;
        if let Some(p) = self.procs.get_mut(&bundle) {
            let off = p.scroll.entry(key).or_insert(0);
            *off = (*off + delta).clamp(0, max);
        }
    }

    pub(super) fn go_home(&mut self, now: SystemTime) {
        self.recorded = None;
        if let Some(b) = self.foreground.take()
            && let Some(p) = self.procs.get_mut(&b)
        {
            p.focus = None;
            self.logs.core(
                now,
                sys::FOUNDATION,
                'I',
                0x1300,
                "AbilityManagerService",
                format!("MoveAbilityToBackground, bundle: {b}"),
            );
        }
    }
}
