//! Keys and text: key events (Back/Home/Power, editing keys, Ctrl chords, letter keys) and typing
//! into the focused field (key by key for short ASCII, pasted otherwise, as uitest does).

use super::logs::sys;
use super::nodes::{ScreenNode, WindowKind};
use super::{KeyPress, Phone, keycode};
use std::time::SystemTime;

/// uitest types ASCII text up to this many characters key by key; longer or non-ASCII text is pasted.
pub const KEY_BY_KEY_MAX: usize = 200;

fn find_field<'a>(nodes: &'a [ScreenNode], key: &str) -> Option<&'a ScreenNode> {
    nodes.iter().find_map(|n| {
        if n.field_key.as_deref() == Some(key) {
            Some(n)
        } else {
            find_field(&n.children, key)
        }
    })
}

impl Phone {
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
                        // Secure inputs refuse to copy, so a password never reaches the clipboard.
                        if let Some(f) = self.focused_field().filter(|f| !f.secret) {
                            self.clipboard = f.text.clone();
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
    pub(super) fn insert_text(&mut self, text: &str, now: SystemTime) -> Result<(), String> {
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
