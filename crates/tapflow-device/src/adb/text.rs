//! Typing text on Android: how a string becomes device commands.
//!
//! **ASCII** goes through `input text`, whose rules (AOSP `InputShellCommand.sendText`) are:
//! only the first argument is typed, so the whole text is ONE single-quoted word; the device
//! turns every `%s` into a space, so spaces are sent as `%s` and a literal `%s` is split over
//! two `input text` calls (`…%` then `s…`); characters go through the virtual keyboard's key
//! map, which has printable ASCII only, so newline and tab are sent as `input keyevent 66`
//! (ENTER) / `61` (TAB) and other control characters are refused. Long text is cut into chunks
//! of [`CHUNK`] characters (one key event per character; some IMEs drop keys in long bursts).
//!
//! **Anything else** (any non-ASCII character: accents, CJK, emoji) cannot be typed by `input
//! text` on any Android version (the key map cannot produce it; the whole call fails with a
//! `NullPointerException` and types nothing). tapflow sends such text through ADBKeyBoard
//! (`com.android.adbkeyboard/.AdbIME`, the open-source input method that takes text from a
//! broadcast): `ime enable` + `ime set` it, `am broadcast -a ADB_INPUT_B64 --es msg <base64 of
//! the UTF-8>` (base64, because `am` on Android 8+ mangles raw UTF-8 extras), then `ime set`
//! back to the input method that was active. This works on stock Android (no root, no custom
//! ROM) once that app is installed; without it the call fails with `INPUT_FAILED` naming it.

use base64::Engine;

use crate::error::DeviceError;
use crate::hdc::quote::ShellCommand;
use crate::hdc::validate::INVALID_PARAM;

/// Characters per `input text` call.
pub const CHUNK: usize = 100;
/// The input method that types non-ASCII text.
pub const ADB_KEYBOARD_IME: &str = "com.android.adbkeyboard/.AdbIME";
/// Its package (to tell the user what to install).
pub const ADB_KEYBOARD_PACKAGE: &str = "com.android.adbkeyboard";
/// The broadcast action ADBKeyBoard types from (base64 of UTF-8 in the `msg` extra).
pub const ADB_INPUT_B64: &str = "ADB_INPUT_B64";

/// Android keycodes used while typing.
pub const KEYCODE_TAB: i64 = 61;
pub const KEYCODE_ENTER: i64 = 66;

/// True when `input text` can type `text` (printable ASCII, newline, tab).
pub fn is_typeable(text: &str) -> bool {
    text.chars()
        .all(|c| c == '\n' || c == '\t' || (' '..='~').contains(&c))
}

fn refused(detail: String) -> DeviceError {
    DeviceError::Command {
        code: INVALID_PARAM,
        what: "text input".into(),
        device_says: detail,
    }
}

/// The `input text` / `input keyevent` commands typing ASCII `text`, in order.
pub fn key_commands(text: &str) -> Result<Vec<ShellCommand>, DeviceError> {
    if let Some(c) = text
        .chars()
        .find(|c| c.is_control() && *c != '\n' && *c != '\t')
    {
        return Err(refused(format!(
            "control character U+{:04X} cannot be typed on Android",
            c as u32
        )));
    }
    let mut out = Vec::new();
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut Vec<ShellCommand>| {
        for piece in split_literal_percent_s(run) {
            for chunk in chunks(&piece, CHUNK) {
                out.push(
                    ShellCommand::new("input")
                        .word("text")
                        .typed(&chunk.replace(' ', "%s")),
                );
            }
        }
        run.clear();
    };
    for c in text.chars() {
        match c {
            '\n' | '\t' => {
                flush(&mut run, &mut out);
                let code = if c == '\n' {
                    KEYCODE_ENTER
                } else {
                    KEYCODE_TAB
                };
                out.push(ShellCommand::new("input").word("keyevent").int(code));
            }
            _ => run.push(c),
        }
    }
    flush(&mut run, &mut out);
    Ok(out)
}

/// Splits at every literal `%s` between the `%` and the `s`, so no piece sent holds the
/// sequence the device would turn into a space.
fn split_literal_percent_s(text: &str) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    let mut pieces = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("%s") {
        pieces.push(rest[..=i].to_string());
        rest = &rest[i + 1..];
    }
    pieces.push(rest.to_string());
    pieces
}

/// Cuts into pieces of at most `n` characters, never between a `%` and the character after it
/// (a space, sent as `%s`, must stay whole).
fn chunks(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut start = 0;
    while start < chars.len() {
        let mut end = (start + n).min(chars.len());
        if end < chars.len() && chars[end - 1] == '%' && end - start > 1 {
            end -= 1;
        }
        out.push(chars[start..end].iter().collect());
        start = end;
    }
    out
}

/// `settings get secure default_input_method`: the active input method.
pub fn current_ime() -> ShellCommand {
    ShellCommand::new("settings")
        .word("get")
        .word("secure")
        .word("default_input_method")
}

/// The commands typing `text` through ADBKeyBoard, restoring `previous` afterwards (unless it
/// already was ADBKeyBoard). In order: enable, select, broadcast, restore.
pub fn adb_keyboard_commands(text: &str, previous: Option<&str>) -> Vec<ShellCommand> {
    let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    let broadcast = ShellCommand::new("am")
        .word("broadcast")
        .opt("-a", ADB_INPUT_B64)
        .word("--es")
        .word("msg")
        // The base64 of typed text is the text: logs see its length only.
        .typed(&b64);
    let switch = previous != Some(ADB_KEYBOARD_IME);
    let mut out = Vec::new();
    if switch {
        out.push(
            ShellCommand::new("ime")
                .word("enable")
                .arg(ADB_KEYBOARD_IME),
        );
        out.push(ShellCommand::new("ime").word("set").arg(ADB_KEYBOARD_IME));
    }
    out.push(broadcast);
    if switch && let Some(p) = previous.filter(|p| !p.is_empty() && *p != "null") {
        out.push(ShellCommand::new("ime").word("set").arg(p));
    }
    out
}

/// Judges the answer of one `ime enable|set` call: `Unknown input method …` means ADBKeyBoard
/// is not installed.
pub fn ime_verdict(text: &str) -> Result<(), String> {
    let t = text.trim();
    if t.contains("Unknown input method") || t.contains("cannot be") {
        return Err(format!(
            "{t} (non-ASCII text needs the ADBKeyBoard input method `{ADB_KEYBOARD_IME}`: install the `{ADB_KEYBOARD_PACKAGE}` app, or type ASCII only)"
        ));
    }
    Ok(())
}

/// Judges `am broadcast`: `Broadcast completed: result=…` is delivery.
pub fn broadcast_verdict(text: &str) -> Result<(), String> {
    if text
        .lines()
        .any(|l| l.trim_start().starts_with("Broadcast completed"))
    {
        Ok(())
    } else {
        Err(format!(
            "the text broadcast was not delivered: {}",
            text.trim()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        key_commands(text)
            .unwrap()
            .into_iter()
            .map(|c| c.into_string())
            .collect()
    }

    #[test]
    fn the_documented_example() {
        // docs/reference/adb.md §4.5: `It's 5 & <ok>` → input text 'It'\''s%s5%s&%s<ok>'
        assert_eq!(
            lines("It's 5 & <ok>"),
            ["input text 'It'\\''s%s5%s&%s<ok>'"]
        );
    }

    #[test]
    fn literal_percent_s_newlines_and_tabs() {
        assert_eq!(
            lines("100%sure"),
            ["input text '100%'", "input text 'sure'"]
        );
        assert_eq!(
            lines("a\nb\tc"),
            [
                "input text 'a'",
                "input keyevent 66",
                "input text 'b'",
                "input keyevent 61",
                "input text 'c'"
            ]
        );
        assert_eq!(lines(""), Vec::<String>::new());
        assert!(key_commands("bell\u{7}").is_err());
    }

    #[test]
    fn chunks_never_split_an_encoded_space() {
        let text = "x".repeat(CHUNK - 1) + " y";
        let l = lines(&text);
        assert_eq!(l.len(), 2);
        // Reassembling what the device types gives the text back.
        let typed: String = l
            .iter()
            .map(|c| {
                c.strip_prefix("input text '")
                    .unwrap()
                    .strip_suffix('\'')
                    .unwrap()
                    .replace("%s", " ")
            })
            .collect();
        assert_eq!(typed, text);
    }

    #[test]
    fn typeable_and_keyboard_route() {
        assert!(is_typeable("Hello, world! ~"));
        assert!(!is_typeable("Zoë"));
        let cmds: Vec<String> =
            adb_keyboard_commands("Zoë 用户", Some("com.android.inputmethod.latin/.LatinIME"))
                .into_iter()
                .map(|c| c.into_string())
                .collect();
        assert_eq!(
            cmds,
            [
                "ime enable 'com.android.adbkeyboard/.AdbIME'",
                "ime set 'com.android.adbkeyboard/.AdbIME'",
                "am broadcast -a 'ADB_INPUT_B64' --es msg 'Wm/DqyDnlKjmiLc='",
                "ime set 'com.android.inputmethod.latin/.LatinIME'",
            ]
        );
        assert_eq!(adb_keyboard_commands("é", Some(ADB_KEYBOARD_IME)).len(), 1);
        assert!(
            ime_verdict(
                "Unknown input method com.android.adbkeyboard/.AdbIME cannot be enabled for user #0"
            )
            .is_err()
        );
        assert!(ime_verdict("Input method com.android.adbkeyboard/.AdbIME: now enabled").is_ok());
        assert!(broadcast_verdict("Broadcasting: Intent { act=ADB_INPUT_B64 flg=0x400000 (has extras) }\nBroadcast completed: result=0\n").is_ok());
    }
}

/// What kind of answer a typing command gives, to judge it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerKind {
    /// `input …`: silent on success.
    Input,
    /// `ime enable|set …`.
    Ime,
    /// `am broadcast …`.
    Broadcast,
}

impl AnswerKind {
    pub fn verdict(self, words: &str) -> Result<(), String> {
        match self {
            AnswerKind::Input => crate::adb::parse::outcome::input(words),
            AnswerKind::Ime => ime_verdict(words),
            AnswerKind::Broadcast => broadcast_verdict(words),
        }
    }
}
