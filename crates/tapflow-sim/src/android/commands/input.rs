//! `input` (AOSP `InputShellCommand`): `tap`, `swipe`, `draganddrop`, `keyevent`,
//! `keycombination`, `text`. Successes are silent with status 0; malformed arguments print the
//! framework's Java exception (status 255, on stdout as measured); `input text` with a
//! character the virtual keyboard cannot map types nothing and fails with the
//! `NullPointerException` of `KeyCharacterMap.getEvents`; unknown key codes are silent no-ops.

use std::time::{Duration, SystemTime};

use crate::latency::Cost;
use crate::phone::{KeyPress, keycode};
use crate::shell::CmdResult;
use crate::shell::DeviceCtx;

fn java(what: &str, exception: &str) -> CmdResult {
    CmdResult::fail_out(
        format!("Exception occurred while executing '{what}':\n{exception}\n"),
        255,
    )
}

fn missing(what: &str) -> CmdResult {
    java(
        what,
        &format!("java.lang.IllegalArgumentException: Argument expected after \"{what}\""),
    )
}

fn int(what: &str, s: &str) -> Result<i32, CmdResult> {
    s.parse::<f32>().map(|v| v as i32).map_err(|_| {
        java(
            what,
            &format!("java.lang.NumberFormatException: For input string: \"{s}\""),
        )
    })
}

/// Android keycodes by name (`KEYCODE_` optional), the ones the phone model acts on plus the
/// common system keys.
const NAMES: &[(&str, u32)] = &[
    ("HOME", 3),
    ("BACK", 4),
    ("CALL", 5),
    ("ENDCALL", 6),
    ("0", 7),
    ("1", 8),
    ("2", 9),
    ("3", 10),
    ("4", 11),
    ("5", 12),
    ("6", 13),
    ("7", 14),
    ("8", 15),
    ("9", 16),
    ("DPAD_UP", 19),
    ("DPAD_DOWN", 20),
    ("DPAD_LEFT", 21),
    ("DPAD_RIGHT", 22),
    ("DPAD_CENTER", 23),
    ("VOLUME_UP", 24),
    ("VOLUME_DOWN", 25),
    ("POWER", 26),
    ("CAMERA", 27),
    ("A", 29),
    ("B", 30),
    ("C", 31),
    ("D", 32),
    ("E", 33),
    ("F", 34),
    ("G", 35),
    ("H", 36),
    ("I", 37),
    ("J", 38),
    ("K", 39),
    ("L", 40),
    ("M", 41),
    ("N", 42),
    ("O", 43),
    ("P", 44),
    ("Q", 45),
    ("R", 46),
    ("S", 47),
    ("T", 48),
    ("U", 49),
    ("V", 50),
    ("W", 51),
    ("X", 52),
    ("Y", 53),
    ("Z", 54),
    ("COMMA", 55),
    ("PERIOD", 56),
    ("TAB", 61),
    ("SPACE", 62),
    ("ENTER", 66),
    ("DEL", 67),
    ("MENU", 82),
    ("SEARCH", 84),
    ("ESCAPE", 111),
    ("FORWARD_DEL", 112),
    ("CTRL_LEFT", 113),
    ("CTRL_RIGHT", 114),
    ("MOVE_HOME", 122),
    ("MOVE_END", 123),
    ("APP_SWITCH", 187),
    ("SLEEP", 223),
    ("WAKEUP", 224),
    ("COPY", 278),
    ("PASTE", 279),
];

/// A key argument: a number or a `KEYCODE_*` name; `None` when unknown (a silent no-op).
fn keycode_of(arg: &str) -> Option<u32> {
    if let Ok(n) = arg.parse::<u32>() {
        return Some(n);
    }
    let name = arg.strip_prefix("KEYCODE_").unwrap_or(arg);
    NAMES.iter().find(|(n, _)| *n == name).map(|(_, c)| *c)
}

/// What an Android keycode does on the phone model (its own key codes), if anything.
fn phone_keys(code: u32, awake: bool) -> Vec<KeyPress> {
    match code {
        3 => vec![KeyPress::Home],
        4 | 111 => vec![KeyPress::Back],
        26 => vec![KeyPress::Power],
        224 if !awake => vec![KeyPress::Power],
        223 if awake => vec![KeyPress::Power],
        66 => vec![KeyPress::Code(keycode::ENTER)],
        67 => vec![KeyPress::Code(keycode::DEL)],
        112 => vec![KeyPress::Code(keycode::FORWARD_DEL)],
        122 => vec![KeyPress::Code(keycode::MOVE_HOME)],
        123 => vec![KeyPress::Code(keycode::MOVE_END)],
        21 => vec![KeyPress::Code(keycode::DPAD_LEFT)],
        22 => vec![KeyPress::Code(keycode::DPAD_RIGHT)],
        113 => vec![KeyPress::Code(keycode::CTRL_LEFT)],
        114 => vec![KeyPress::Code(keycode::CTRL_RIGHT)],
        7..=16 => vec![KeyPress::Code(2000 + code - 7)],
        29..=54 => vec![KeyPress::Code(keycode::A + code - 29)],
        62 => vec![KeyPress::Code(2050)],
        279 => vec![
            KeyPress::Code(keycode::CTRL_LEFT),
            KeyPress::Code(keycode::V),
        ],
        278 => vec![
            KeyPress::Code(keycode::CTRL_LEFT),
            KeyPress::Code(keycode::C),
        ],
        _ => Vec::new(),
    }
}

/// `input text`'s `%s` rule (`InputShellCommand.sendText`): `%s` becomes a space, `%%s` a `%`
/// and a space, any other `%x` stays.
pub fn decode_text(arg: &str) -> String {
    let mut buf: Vec<char> = arg.chars().collect();
    let mut escape = false;
    let mut i = 0;
    while i < buf.len() {
        if escape {
            escape = false;
            if buf[i] == 's' {
                buf[i] = ' ';
                buf.remove(i - 1);
                i -= 1;
            }
        }
        if buf[i] == '%' {
            escape = true;
        }
        i += 1;
    }
    buf.into_iter().collect()
}

pub fn run(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    // An input source (`keyboard`, `touchscreen`, …) and `-d DISPLAY` may come first.
    let mut rest = args;
    while let Some(first) = rest.first() {
        if first == "-d" && rest.len() > 1 {
            rest = &rest[2..];
        } else if matches!(
            first.as_str(),
            "keyboard"
                | "touchscreen"
                | "touchpad"
                | "mouse"
                | "stylus"
                | "trackball"
                | "dpad"
                | "gamepad"
                | "joystick"
                | "keyboard_stylus"
        ) {
            rest = &rest[1..];
        } else {
            break;
        }
    }
    let Some((cmd, args)) = rest.split_first() else {
        return CmdResult::fail_out(
            "Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n\nThe commands and default sources are:\n      text <string> (Default: keyboard)\n      keyevent [--longpress|--doubletap] <key code number or name> ... (Default: keyboard)\n      tap <x> <y> (Default: touchscreen)\n      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)\n      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)\n      keycombination [-t duration(ms)] <key code 1> <key code 2> ... (Default: keyboard)\n",
            1,
        );
    };
    let now = SystemTime::now();
    ctx.spend(Cost::AndroidInput);
    match cmd.as_str() {
        "tap" => {
            let [x, y, ..] = args else {
                return missing("tap");
            };
            let (x, y) = match (int("tap", x), int("tap", y)) {
                (Ok(x), Ok(y)) => (x, y),
                (Err(e), _) | (_, Err(e)) => return e,
            };
            ctx.phone().click(x, y, now);
            CmdResult::ok(Vec::new())
        }
        "swipe" | "draganddrop" => {
            let [x1, y1, x2, y2, more @ ..] = args else {
                return missing(cmd);
            };
            let mut v = Vec::new();
            for s in [x1, y1, x2, y2] {
                match int(cmd, s) {
                    Ok(n) => v.push(n),
                    Err(e) => return e,
                }
            }
            let ms = match more.first() {
                Some(d) => match int(cmd, d) {
                    Ok(n) => n.max(0) as u64,
                    Err(e) => return e,
                },
                None => 300,
            };
            ctx.spend(Cost::Wait(Duration::from_millis(ms)));
            let (from, to) = ((v[0], v[1]), (v[2], v[3]));
            let mut phone = ctx.phone();
            if from == to && ms >= 500 {
                phone.long_click(from.0, from.1, now);
            } else {
                let dist =
                    (((to.0 - from.0) as f64).powi(2) + ((to.1 - from.1) as f64).powi(2)).sqrt();
                let velocity = (dist / (ms.max(1) as f64) * 1000.0).round() as u32;
                phone.swipe(from, to, velocity.max(1), now);
            }
            CmdResult::ok(Vec::new())
        }
        "keyevent" => {
            let codes: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
            if codes.is_empty() {
                return missing("keyevent");
            }
            let mut phone = ctx.phone();
            for c in codes {
                if let Some(code) = keycode_of(c) {
                    let keys = phone_keys(code, phone.power_awake());
                    if !keys.is_empty() {
                        phone.key_event(&keys, now);
                    }
                }
            }
            CmdResult::ok(Vec::new())
        }
        "keycombination" => {
            let codes: Vec<&String> = args
                .iter()
                .skip_while(|a| *a == "-t")
                .filter(|a| a.parse::<u32>().is_ok() || a.starts_with("KEYCODE_"))
                .collect();
            if codes.len() < 2 {
                return java(
                    "keycombination",
                    "java.lang.IllegalArgumentException: keycombination requires at least 2 keycodes",
                );
            }
            let mut phone = ctx.phone();
            let awake = phone.power_awake();
            let keys: Vec<KeyPress> = codes
                .iter()
                .filter_map(|c| keycode_of(c))
                .flat_map(|c| phone_keys(c, awake))
                .collect();
            if !keys.is_empty() {
                phone.key_event(&keys, now);
            }
            CmdResult::ok(Vec::new())
        }
        "text" => {
            let Some(arg) = args.first() else {
                return missing("text");
            };
            let text = decode_text(arg);
            // The virtual keyboard's key map has printable ASCII (and newline / tab) only.
            if text
                .chars()
                .any(|c| !(c == '\n' || c == '\t' || (' '..='~').contains(&c)))
            {
                return java(
                    "text",
                    "java.lang.NullPointerException: Attempt to get length of null array\n\tat com.android.server.input.InputShellCommand.sendText(InputShellCommand.java:295)",
                );
            }
            let per_char = ctx.faults().spec().slow_chars;
            for _ in text.chars() {
                ctx.spend(Cost::KeyStroke);
                ctx.spent += per_char;
            }
            let faults = ctx.faults;
            let mut drop = |_c: char| faults.lock().unwrap_or_else(|e| e.into_inner()).drop_char();
            // Key events with nothing focused go nowhere: silent, as on a device.
            let _ = ctx.phone().type_text(&text, &mut drop, now);
            CmdResult::ok(Vec::new())
        }
        "press" | "roll" | "motionevent" => CmdResult::ok(Vec::new()),
        other => java(
            other,
            &format!("java.lang.IllegalArgumentException: Unknown command: {other}"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_s_rule() {
        assert_eq!(decode_text("hello%sworld"), "hello world");
        assert_eq!(decode_text("100%"), "100%");
        assert_eq!(decode_text("%%s"), "% ");
        assert_eq!(decode_text("a%db"), "a%db");
        assert_eq!(decode_text("It's%s5%s&%s<ok>"), "It's 5 & <ok>");
    }
}
