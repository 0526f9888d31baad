//! Input: taps (focus, toggles, actions, launcher icons, soft-keyboard keys), swipes (list
//! scrolling, the home gesture), key events (Back/Home/Power, editing keys and Ctrl chords), and
//! text typing into the focused field (key by key for short ASCII, pasted otherwise).

use super::logs::sys;
use super::screen::{ScreenNode, Window, WindowKind};
use super::{KeyPress, Phone, keycode};
use crate::device::model::Point;
use std::time::SystemTime;

/// uitest types ASCII text up to this many characters key by key; longer or non-ASCII text is pasted.
pub const KEY_BY_KEY_MAX: usize = 200;

/// What a tap lands on.
#[derive(Debug, Clone)]
enum Target {
    Node(Box<ScreenNode>),
    ImeKey(String),
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

fn find_field<'a>(nodes: &'a [ScreenNode], key: &str) -> Option<&'a ScreenNode> {
    nodes.iter().find_map(|n| {
        if n.field_key.as_deref() == Some(key) {
            Some(n)
        } else {
            find_field(&n.children, key)
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
                    _ => Target::Nothing,
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
                p.fields.entry(key.clone()).or_default().move_end();
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

    fn go_home(&mut self, now: SystemTime) {
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

    /// `uitest uiInput keyEvent k1 [k2 [k3]]`: the keys are pressed together (chords such as
    /// Ctrl+A = 2072 2017, Ctrl+V = 2072 2038).
    pub fn key_event(&mut self, keys: &[KeyPress], now: SystemTime) {
        self.tick(now);
        let codes: Vec<u32> = keys
            .iter()
            .map(|k| match k {
                KeyPress::Back => keycode::BACK,
                KeyPress::Home => keycode::HOME,
                KeyPress::Power => keycode::POWER,
                KeyPress::Code(c) => *c,
            })
            .collect();
        self.logs.core(
            now,
            sys::MMI,
            'I',
            0x2800,
            "MMIService",
            format!("Key event dispatched, keyCodes:{codes:?}"),
        );
        let ctrl = codes
            .iter()
            .any(|c| *c == keycode::CTRL_LEFT || *c == keycode::CTRL_RIGHT);
        let main: Vec<u32> = codes
            .iter()
            .copied()
            .filter(|c| *c != keycode::CTRL_LEFT && *c != keycode::CTRL_RIGHT)
            .collect();
        if main.contains(&keycode::POWER) {
            self.awake = !self.awake;
            return;
        }
        if !self.awake {
            return;
        }
        if main.contains(&keycode::HOME) {
            self.go_home(now);
            return;
        }
        if main.contains(&keycode::BACK) {
            if self.recorded.is_none()
                && let Some(b) = self.foreground.clone()
            {
                self.app_back(&b, now);
            }
            return;
        }
        for code in main {
            if ctrl {
                match code {
                    keycode::A => self.edit(|f| f.select_all()),
                    keycode::V => {
                        let clip = self.clipboard.clone();
                        let _ = self.insert_text(&clip, now);
                    }
                    keycode::C => {
                        if let Some(t) = self.focused_field().map(|f| f.text.clone()) {
                            self.clipboard = t;
                        }
                    }
                    _ => {}
                }
                continue;
            }
            match code {
                keycode::ENTER => self.enter(now),
                keycode::DEL => self.edit(|f| f.backspace()),
                keycode::FORWARD_DEL => self.edit(|f| f.delete_forward()),
                keycode::MOVE_HOME => self.edit(|f| f.move_home()),
                keycode::MOVE_END => self.edit(|f| f.move_end()),
                keycode::DPAD_LEFT => self.edit(|f| f.move_left()),
                keycode::DPAD_RIGHT => self.edit(|f| f.move_right()),
                c => {
                    if let Some(ch) = printable(c) {
                        let _ = self.insert_text(&ch.to_string(), now);
                    }
                }
            }
        }
    }

    fn focused_field(&self) -> Option<&super::field::FieldState> {
        let p = self.fg_proc()?;
        p.fields.get(p.focus.as_ref()?)
    }

    fn edit(&mut self, f: impl FnOnce(&mut super::field::FieldState)) {
        let Some(b) = self.foreground.clone() else {
            return;
        };
        if let Some(p) = self.procs.get_mut(&b)
            && let Some(k) = p.focus.clone()
        {
            f(p.fields.entry(k).or_default());
        }
    }

    /// Enter in a focused field: its `on_enter` actions run and the keyboard closes.
    fn enter(&mut self, now: SystemTime) {
        let Some(b) = self.foreground.clone() else {
            return;
        };
        let Some(key) = self.procs.get(&b).and_then(|p| p.focus.clone()) else {
            return;
        };
        let wins = self.screen_windows(false);
        let actions = wins
            .iter()
            .find(|w| w.kind == WindowKind::App)
            .and_then(|w| find_field(&w.children, &key))
            .map(|n| n.on_enter.clone())
            .unwrap_or_default();
        if let Some(p) = self.procs.get_mut(&b) {
            p.focus = None;
        }
        self.run_actions(&b, Some(&key), &actions, now);
    }

    /// Inserts text at the caret of the focused field; `Err` when nothing is focused.
    fn insert_text(&mut self, text: &str, now: SystemTime) -> Result<(), String> {
        let b = self.foreground.clone().ok_or("no focused input field")?;
        let p = self.procs.get_mut(&b).ok_or("no focused input field")?;
        let k = p.focus.clone().ok_or("no focused input field")?;
        p.fields.entry(k).or_default().insert(text);
        let _ = now;
        Ok(())
    }

    /// Types into the focused field: ASCII ≤ 200 chars key by key (each char offered to
    /// `drop_char`; true = the key was lost), anything else pasted at once.
    pub fn type_text(
        &mut self,
        text: &str,
        drop_char: &mut dyn FnMut(char) -> bool,
        now: SystemTime,
    ) -> Result<(), String> {
        self.tick(now);
        if self.focused_field_key().is_none() {
            return Err("no focused input field".into());
        }
        if text.is_ascii() && text.chars().count() <= KEY_BY_KEY_MAX {
            for c in text.chars() {
                if !drop_char(c) {
                    self.insert_text(&c.to_string(), now)?;
                }
            }
        } else {
            self.insert_text(text, now)?;
        }
        self.logs.core(
            now,
            sys::IME,
            'I',
            0x1f01,
            "ImsaKit",
            format!("InsertText, length: {}", text.chars().count()),
        );
        Ok(())
    }

    fn focused_field_key(&self) -> Option<String> {
        self.fg_proc().and_then(|p| p.focus.clone())
    }
}

/// The character a HarmonyOS key code types (letters, digits, space), if any.
fn printable(code: u32) -> Option<char> {
    match code {
        2000..=2009 => char::from_digit(code - 2000, 10),
        2017..=2042 => char::from_u32('a' as u32 + (code - 2017)),
        2050 => Some(' '),
        _ => None,
    }
}
