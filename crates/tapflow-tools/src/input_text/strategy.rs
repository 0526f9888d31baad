//! How `input_text` gets the text into a focused field (tool reference, `input_text` rules):
//! short ASCII digits by direct entry (uitest types them key by key, which numeric fields
//! accept), Unicode and text longer than 200 characters through uitest's native paste route, and
//! every other ASCII text with an internal sentinel appended so that uitest pastes it too (key-by-
//! key typing of ASCII can drop or reorder characters and trips IME auto-completion).
//!
//! On Android (`adb`) there is no paste route to force: ASCII is typed by `input text` (`direct`;
//! the backend escapes and chunks it) and anything else is committed by the ADBKeyBoard input
//! method (`ime_commit`; see `device::adb::text`), which does not touch the clipboard.
//!
//! Owns the choice, the exact string dispatched and the editing keys of each platform; knows
//! nothing about devices beyond their platform name.

use serde::Serialize;
use tapflow_device::Platform;

/// uitest types ASCII text up to this many characters key by key; longer text is pasted.
pub const DIRECT_MAX_CHARS: usize = 200;

/// Appended to ASCII text to force the paste route, removed with one Backspace once observed.
/// Non-ASCII (so uitest pastes), one UTF-16 unit and one grapheme (so one Backspace removes it),
/// visible (so a failed cleanup is noticeable to a human looking at the field).
pub const SENTINEL: char = '\u{A4}';

/// The keys `input_text` sends around the text, in the platform's own key codes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditKeys {
    /// Select all (pressed together).
    pub select_all: Vec<u32>,
    /// Caret to the end.
    pub move_end: u32,
    /// Backspace.
    pub backspace: u32,
}

/// The editing keys of a platform (`Device::platform`): OpenHarmony InputKit codes, or
/// Android `KeyEvent` codes (`KEYCODE_CTRL_LEFT` 113 + `KEYCODE_A` 29, `KEYCODE_MOVE_END` 123,
/// `KEYCODE_DEL` 67).
pub fn edit_keys(platform: Platform) -> EditKeys {
    if platform == Platform::Android {
        EditKeys {
            select_all: vec![113, 29],
            move_end: 123,
            backspace: 67,
        }
    } else {
        EditKeys {
            select_all: vec![keycode::CTRL_LEFT, keycode::A],
            move_end: keycode::MOVE_END,
            backspace: keycode::DEL,
        }
    }
}

/// HarmonyOS key codes used around the text (OpenHarmony InputKit `oh_key_code.h`).
pub mod keycode {
    pub const CTRL_LEFT: u32 = 2072;
    pub const A: u32 = 2017;
    /// Backspace (`KEYCODE_DEL`).
    pub const DEL: u32 = 2055;
    /// Caret to the end of the line (`KEYCODE_MOVE_END`).
    pub const MOVE_END: u32 = 2082;
}

/// The chosen route, as `input_strategy` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Short ASCII digits, typed as given.
    Direct,
    /// Unicode or long text, pasted by uitest as given.
    NativePaste,
    /// Other ASCII: text + [`SENTINEL`] pasted, then one Backspace after observation.
    SentinelPaste,
    /// Empty text in replace mode: select all, then Backspace.
    Clear,
    /// Android, non-ASCII: committed at once by the ADBKeyBoard input method.
    ImeCommit,
}

impl Strategy {
    /// The route for `text` (empty text only reaches here in replace mode).
    pub fn for_text(text: &str) -> Strategy {
        let chars = text.chars().count();
        if text.is_empty() {
            Strategy::Clear
        } else if !text.is_ascii() || chars > DIRECT_MAX_CHARS {
            Strategy::NativePaste
        } else if text.bytes().all(|b| b.is_ascii_digit()) {
            Strategy::Direct
        } else {
            Strategy::SentinelPaste
        }
    }

    /// The route for `text` on `platform` (see the module doc).
    pub fn for_platform(text: &str, platform: Platform) -> Strategy {
        if platform != Platform::Android {
            return Strategy::for_text(text);
        }
        let typeable = text
            .chars()
            .all(|c| c == '\n' || c == '\t' || (' '..='~').contains(&c));
        if text.is_empty() {
            Strategy::Clear
        } else if typeable {
            Strategy::Direct
        } else {
            Strategy::ImeCommit
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Direct => "direct",
            Strategy::NativePaste => "native_paste",
            Strategy::SentinelPaste => "sentinel_paste",
            Strategy::Clear => "clear",
            Strategy::ImeCommit => "ime_commit",
        }
    }

    /// The exact string handed to the device (`None`: nothing is typed).
    pub fn payload(self, text: &str) -> Option<String> {
        match self {
            Strategy::Direct | Strategy::NativePaste | Strategy::ImeCommit => {
                Some(text.to_string())
            }
            Strategy::SentinelPaste => Some(format!("{text}{SENTINEL}")),
            Strategy::Clear => None,
        }
    }

    /// Whether the route may replace the device clipboard (uitest pastes through it).
    pub fn may_modify_clipboard(self) -> bool {
        matches!(self, Strategy::NativePaste | Strategy::SentinelPaste)
    }
}

/// Whether uitest would paste `text` when typing it (coordinate mode sends text unchanged).
pub fn uitest_pastes(text: &str) -> bool {
    !text.is_ascii() || text.chars().count() > DIRECT_MAX_CHARS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_follow_the_contract() {
        assert_eq!(Strategy::for_text("0123456789"), Strategy::Direct);
        assert_eq!(Strategy::for_text(&"7".repeat(200)), Strategy::Direct);
        assert_eq!(Strategy::for_text(&"7".repeat(201)), Strategy::NativePaste);
        assert_eq!(Strategy::for_text("中文"), Strategy::NativePaste);
        assert_eq!(Strategy::for_text("12é"), Strategy::NativePaste);
        assert_eq!(Strategy::for_text(&"a".repeat(201)), Strategy::NativePaste);
        assert_eq!(Strategy::for_text("security"), Strategy::SentinelPaste);
        assert_eq!(Strategy::for_text("-12"), Strategy::SentinelPaste);
        assert_eq!(Strategy::for_text("12 34"), Strategy::SentinelPaste);
        assert_eq!(Strategy::for_text(""), Strategy::Clear);
    }

    #[test]
    fn android_types_ascii_and_commits_the_rest() {
        assert_eq!(
            Strategy::for_platform("it's 5 & <ok>", Platform::Android),
            Strategy::Direct
        );
        assert_eq!(
            Strategy::for_platform(&"a".repeat(500), Platform::Android),
            Strategy::Direct
        );
        assert_eq!(
            Strategy::for_platform("Zoë", Platform::Android),
            Strategy::ImeCommit
        );
        assert_eq!(
            Strategy::for_platform("", Platform::Android),
            Strategy::Clear
        );
        assert!(!Strategy::ImeCommit.may_modify_clipboard());
        assert_eq!(
            Strategy::for_platform("abc", Platform::Harmonyos),
            Strategy::SentinelPaste
        );
        assert_eq!(edit_keys(Platform::Android).backspace, 67);
        assert_eq!(edit_keys(Platform::Harmonyos).backspace, keycode::DEL);
    }

    #[test]
    fn the_sentinel_forces_paste_and_is_one_backspace_wide() {
        let p = Strategy::SentinelPaste.payload("a'b").unwrap();
        assert!(uitest_pastes(&p));
        assert_eq!(p.chars().last(), Some(SENTINEL));
        assert_eq!(SENTINEL.len_utf16(), 1);
        assert_eq!(Strategy::Direct.payload("42").as_deref(), Some("42"));
        assert_eq!(Strategy::Clear.payload(""), None);
        assert!(!Strategy::Direct.may_modify_clipboard());
        assert!(Strategy::SentinelPaste.may_modify_clipboard());
    }
}
