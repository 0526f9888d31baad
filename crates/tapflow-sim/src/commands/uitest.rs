//! `uitest`: `dumpLayout`, `screenCap`, `uiInput …` and `--version`, with uitest's own texts.
//!
//! Argument checking follows uitest's `ui_input.cpp` rules: counts are checked per operation
//! against the whole argv (`uitest uiInput <op> …`), coordinates go through `atoi` and must be
//! `> 0`, an out-of-range swipe velocity prints a warning and falls back to 600, every rejection
//! prints its message, an empty line and the uiInput usage. A successful operation prints the
//! driver's status line `No Error`.

use std::time::Duration;

use crate::faults::DumpFault;
use crate::latency::Cost;
use crate::phone::{KeyPress, LayoutOptions};
use crate::shell::CmdResult;
use crate::shell::DeviceCtx;
use crate::shell::absolute;
use tapflow_device::model::ImageFormat;

/// The uitest version reported by `uitest --version`.
pub const UITEST_VERSION: &str = "5.0.1.2";

const DEFAULT_VELOCITY: u32 = 600;
const MIN_VELOCITY: u32 = 200;
const MAX_VELOCITY: u32 = 40000;

/// uiInput's usage text, printed after every argument error (device output, kept verbatim).
const USAGE: &str = "USAGE : \n\
help                                                                                  print uiInput usage\n\
dircFling <direction> [velocity] [stepLength] [displayId]                fling in the specified direction\n\
\x20                                                   direction ranges from 0,1,2,3 (left, right, up, down)\n\
\x20                                                          velocity ranges from 200 to 40000, default 600\n\
\x20                                 stepLength defaults to the width or height of the screen divided by 200\n\
\x20                                                            displayId defaults to the default display id\n\
click/doubleClick/longClick <x> <y> [displayId]                           click on the target coordinates\n\
\x20                                                            displayId defaults to the default display id\n\
swipe/drag <from_x> <from_y> <to_x> <to_y> [velocity] [displayId]                                        \n\
\x20                                                          velocity ranges from 200 to 40000, default 600\n\
\x20                                                            displayId defaults to the default display id\n\
fling <from_x> <from_y> <to_x> <to_y> [velocity] [stepLength] [displayId]                                \n\
\x20                                                          velocity ranges from 200 to 40000, default 600\n\
\x20                                                       stepLength defaults to the distance divided by 50\n\
\x20                                                            displayId defaults to the default display id\n\
keyEvent <keyID/Back/Home/Power> [displayId]                                              inject keyEvent\n\
\x20                                                            displayId defaults to the default display id\n\
keyEvent <keyID_0> <keyID_1> [keyID_2] [displayId]                               keyID_2 defaults to None\n\
\x20                                                            displayId defaults to the default display id\n\
inputText <x> <y> <text> [displayId]                             inputText at the target coordinate point\n\
\x20                                                            displayId defaults to the default display id\n\
text <text> [displayId]                               input text at the location where is already focused\n\
\x20                                                            displayId defaults to the default display id\n";

/// Messages uiInput prints before its usage.
pub mod msg {
    pub const MISSING: &str = "Missing parameter. ";
    pub const TOO_MANY: &str = " Too many parameters. ";
    pub const COUNT: &str = "The number of parameters is incorrect. ";
    pub const INVALID: &str = "Invalid parameters. ";
    pub const COORDS: &str = "Please confirm that the coordinate values are correct. ";
    pub const VELOCITY: &str = "The swipe velocity out of range, the default value will be used. ";
    pub const OK: &str = "No Error";
}

pub fn run(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    match args.first().map(String::as_str) {
        Some("dumpLayout") => dump_layout(ctx, &args[1..]),
        Some("screenCap") => screen_cap(ctx, &args[1..]),
        Some("uiInput") => ui_input(ctx, args),
        Some("--version") | Some("-v") => CmdResult::ok(format!("{UITEST_VERSION}\n")),
        Some(other) => {
            CmdResult::fail_out(format!("Illegal argument: {other}\n{}", uitest_help()), 1)
        }
        None => CmdResult::fail_out(uitest_help(), 1),
    }
}

fn uitest_help() -> String {
    "usage: uitest <command> [options]\n\
help                                                            print help messages\n\
screenCap                                                       capture the screen\n\
dumpLayout                                                      get the current layout of the UI\n\
uiInput                                                         inject UI input events\n\
--version                                                       print the current version\n"
        .to_string()
}

/// Parses uitest's getopt-style options: `flags` take no value, `valued` take one.
fn getopt(
    args: &[String],
    flags: &str,
    valued: &str,
) -> Result<Vec<(char, Option<String>)>, String> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let Some(rest) = a.strip_prefix('-').filter(|r| !r.is_empty()) else {
            return Err(format!("uitest: unexpected argument: {a}"));
        };
        let mut chars = rest.chars();
        while let Some(c) = chars.next() {
            if flags.contains(c) {
                out.push((c, None));
            } else if valued.contains(c) {
                let inline: String = chars.by_ref().collect();
                let v = if inline.is_empty() {
                    it.next()
                        .cloned()
                        .ok_or_else(|| format!("uitest: option requires an argument: {c}"))?
                } else {
                    inline
                };
                out.push((c, Some(v)));
                break;
            } else {
                return Err(format!("uitest: unrecognized option: {c}"));
            }
        }
    }
    Ok(out)
}

fn dump_layout(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let opts = match getopt(args, "ia", "pbwmde") {
        Ok(o) => o,
        Err(e) => return CmdResult::fail_out(format!("{e}\n"), 1),
    };
    let mut path = None;
    let mut lo = LayoutOptions::default();
    let mut saw_i = false;
    for (c, v) in opts {
        let v = v.unwrap_or_default();
        match c {
            'p' => path = Some(absolute(&v)),
            'i' => {
                saw_i = true;
                lo.per_window = true;
            }
            'a' => lo.extra_attrs = true,
            'b' => lo.bundle = Some(v),
            'w' => match v.parse::<i64>() {
                Ok(id) => lo.window_id = Some(id),
                Err(_) => return CmdResult::fail_out("DumpLayout failed:invalid window id\n", 1),
            },
            'm' => match v.as_str() {
                "true" => {}
                "false" => lo.per_window = true,
                _ => {
                    return CmdResult::fail_out(
                        "Invalid merge option, only true or false are supported.\n",
                        1,
                    );
                }
            },
            'd' if v.parse::<i64>().map(|d| d != 0).unwrap_or(true) => {
                return CmdResult::fail_out("DumpLayout failed:invalid display id\n", 1);
            }
            'e' => {
                if v != "uniqueId" {
                    return CmdResult::fail_out(
                        "Invalid attribute name, currently supported names are 'uniqueId'.\n",
                        1,
                    );
                }
                lo.unique_id = true;
            }
            _ => {}
        }
    }
    if lo.extra_attrs && saw_i {
        return CmdResult::fail_out("The -a and -i options cannot be used together.\n", 1);
    }
    let path = path.unwrap_or_else(|| format!("/data/local/tmp/layout_{}.json", ctx.micros()));
    ctx.spend(Cost::DumpLayout);
    let (fault, slow) = ctx.faults().dump_fault();
    ctx.spent += slow;
    let mut phone = ctx.phone();
    let json = match phone.layout(&lo) {
        Ok(v) => v,
        Err(m) => return CmdResult::fail_out(format!("DumpLayout failed:{m}\n"), 1),
    };
    // uitest writes nlohmann's compact `dump()`: one line, no trailing newline.
    let mut bytes = serde_json::to_vec(&json).unwrap_or_default();
    match fault {
        DumpFault::None => {}
        DumpFault::Empty => bytes.clear(),
        DumpFault::Truncate(per_mille) => {
            let keep = bytes.len() * per_mille as usize / 1000;
            bytes.truncate(keep.max(1));
        }
    }
    phone.fs.write(&path, bytes);
    CmdResult::ok(format!("DumpLayout saved to:{path}\n"))
}

fn screen_cap(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let opts = match getopt(args, "", "pd") {
        Ok(o) => o,
        Err(e) => return CmdResult::fail_out(format!("{e}\n"), 1),
    };
    let mut path = None;
    for (c, v) in opts {
        let v = v.unwrap_or_default();
        match c {
            'p' => path = Some(absolute(&v)),
            'd' if v != "0" => {
                return CmdResult::fail_out("ScreenCap failed: invalid display id\n", 1);
            }
            _ => {}
        }
    }
    let path = path.unwrap_or_else(|| format!("/data/local/tmp/screenCap_{}.png", ctx.micros()));
    ctx.spend(Cost::Screenshot);
    let mut phone = ctx.phone();
    let png = phone.screenshot(ImageFormat::Png);
    phone.fs.write(&path, png);
    CmdResult::ok(format!("ScreenCap saved to {path}\n"))
}

/// A rejection: message, empty line, usage (what uitest prints).
fn reject(message: &str) -> CmdResult {
    CmdResult::fail_out(format!("{message}\n\n{USAGE}\n"), 1)
}

fn done(prefix: String) -> CmdResult {
    CmdResult::ok(format!("{prefix}{}\n", msg::OK))
}

/// C `atoi`: optional whitespace and sign, leading digits, 0 when none.
pub fn atoi(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut n: i64 = 0;
    for b in digits.bytes() {
        if !b.is_ascii_digit() {
            break;
        }
        n = n.saturating_mul(10).saturating_add((b - b'0') as i64);
    }
    if neg { -n } else { n }
}

fn velocity(arg: Option<&String>, warn: &mut String) -> u32 {
    let Some(a) = arg else {
        return DEFAULT_VELOCITY;
    };
    // uitest casts atoi's result to an unsigned before checking the range.
    let v = atoi(a) as u32;
    if !(MIN_VELOCITY..=MAX_VELOCITY).contains(&v) {
        warn.push_str(msg::VELOCITY);
        warn.push_str("\n\n");
        return DEFAULT_VELOCITY;
    }
    v
}

/// `uitest uiInput <op> …`; `args[0]` is `uiInput`, so `args.len() + 1` is uitest's argc.
fn ui_input(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let argc = args.len() + 1;
    if argc < 4 {
        return reject(msg::MISSING);
    }
    let op = args[1].as_str();
    // p[i] = uitest's argv[3 + i]
    let p = &args[2..];
    let coords = |a: &String, b: &String| -> Option<(i32, i32)> {
        let (x, y) = (atoi(a), atoi(b));
        (x > 0 && y > 0).then_some((x.min(i32::MAX as i64) as i32, y.min(i32::MAX as i64) as i32))
    };
    let now = std::time::SystemTime::now();
    match op {
        "click" | "doubleClick" | "longClick" => {
            if argc != 5 && argc != 6 {
                return reject(msg::COUNT);
            }
            let Some((x, y)) = coords(&p[0], &p[1]) else {
                return reject(msg::COORDS);
            };
            ctx.spend(Cost::UiInput);
            let mut phone = ctx.phone();
            match op {
                "click" => phone.click(x, y, now),
                "doubleClick" => phone.double_click(x, y, now),
                _ => phone.long_click(x, y, now),
            }
            done(String::new())
        }
        "swipe" | "drag" => {
            if argc < 7 {
                return reject(msg::MISSING);
            }
            let (Some(from), Some(to)) = (coords(&p[0], &p[1]), coords(&p[2], &p[3])) else {
                return reject(msg::COORDS);
            };
            if argc > 9 {
                return reject(msg::TOO_MANY);
            }
            let mut warn = String::new();
            let v = velocity(p.get(4), &mut warn);
            ctx.spend(Cost::UiInput);
            ctx.spend(Cost::Wait(gesture_time(from, to, v)));
            ctx.phone().swipe(from, to, v, now);
            done(warn)
        }
        "fling" => {
            if argc < 7 {
                return reject(msg::MISSING);
            }
            let (Some(from), Some(to)) = (coords(&p[0], &p[1]), coords(&p[2], &p[3])) else {
                return reject(msg::COORDS);
            };
            let mut prefix = String::new();
            if let Some(step) = p.get(5) {
                let step = atoi(step) as u32;
                let (dx, dy) = ((to.0 - from.0) as f64, (to.1 - from.1) as f64);
                let distance = (dx * dx + dy * dy).sqrt() as u32;
                // uitest prints this and still flings (its check returns a truthy failure).
                if step == 0 || step > distance {
                    prefix.push_str("The stepLen is out of range\n");
                }
            }
            if argc > 10 {
                return CmdResult::fail_out(format!("{prefix}{}\n\n{USAGE}\n", msg::TOO_MANY), 1);
            }
            let mut warn = String::new();
            let v = velocity(p.get(4), &mut warn);
            ctx.spend(Cost::UiInput);
            ctx.phone().swipe(from, to, v, now);
            done(format!("{prefix}{warn}"))
        }
        "dircFling" => {
            let direction = atoi(&p[0]);
            if argc > 7 {
                return reject(msg::TOO_MANY);
            }
            let mut warn = String::new();
            let v = velocity(p.get(1), &mut warn);
            let (w, h) = {
                let phone = ctx.phone();
                let (w, h) = phone.screen_size();
                (w as i32, h as i32)
            };
            let to = (w / 2, h / 2);
            let from = match direction {
                0 => (to.0 - w / 4, to.1),
                1 => (to.0 + w / 4, to.1),
                2 => (to.0, to.1 - h / 4),
                3 => (to.0, to.1 + h / 4),
                d => {
                    return CmdResult::fail_out(format!("Illegal argument: {d}\n{USAGE}\n"), 1);
                }
            };
            ctx.spend(Cost::UiInput);
            ctx.phone().swipe(from, to, v, now);
            done(warn)
        }
        "keyEvent" => key_event(ctx, p, argc, now),
        "inputText" => {
            if argc != 6 && argc != 7 {
                return reject(msg::COUNT);
            }
            let Some((x, y)) = coords(&p[0], &p[1]) else {
                return reject(msg::COORDS);
            };
            ctx.spend(Cost::UiInput);
            ctx.phone().click(x, y, now);
            // uitest waits for the focus to settle before typing.
            ctx.spend(Cost::Wait(crate::latency::INPUT_TEXT_FOCUS_WAIT));
            type_text(ctx, &p[2]);
            done(String::new())
        }
        "text" => {
            if argc != 4 && argc != 5 {
                return reject(msg::COUNT);
            }
            ctx.spend(Cost::UiInput);
            type_text(ctx, &p[0]);
            done(String::new())
        }
        "help" => CmdResult::ok(format!("{USAGE}\n")),
        _ => reject(msg::INVALID),
    }
}

/// A swipe takes distance / velocity of device time.
fn gesture_time(from: (i32, i32), to: (i32, i32), velocity: u32) -> Duration {
    let (dx, dy) = ((to.0 - from.0) as f64, (to.1 - from.1) as f64);
    Duration::from_secs_f64((dx * dx + dy * dy).sqrt() / velocity.max(1) as f64)
}

fn key_event(
    ctx: &mut DeviceCtx<'_>,
    p: &[String],
    argc: usize,
    now: std::time::SystemTime,
) -> CmdResult {
    let key = p[0].as_str();
    let keys: Vec<KeyPress> = match key {
        "Home" | "Back" | "Power" => {
            if argc != 4 && argc != 5 {
                return reject(msg::TOO_MANY);
            }
            vec![match key {
                "Home" => KeyPress::Home,
                "Back" => KeyPress::Back,
                _ => KeyPress::Power,
            }]
        }
        _ if atoi(key) != 0 => {
            if argc > 7 {
                return reject(msg::TOO_MANY);
            }
            // argv[3..=5] are codes; with 7 args the last one is the display id.
            let codes = &p[..(argc - 3).min(3)];
            codes
                .iter()
                .map(|c| KeyPress::Code(atoi(c) as u32))
                .collect()
        }
        _ => return reject(msg::INVALID),
    };
    ctx.spend(Cost::UiInput);
    ctx.phone().key_event(&keys, now);
    done(String::new())
}

/// Types into the focused field; under faults characters typed key by key may be lost.
fn type_text(ctx: &mut DeviceCtx<'_>, text: &str) {
    let key_by_key = text.is_ascii() && text.chars().count() <= 200;
    let now = std::time::SystemTime::now();
    let slow = ctx.faults().spec().slow_chars;
    {
        let mut phone = ctx.phone();
        let mut faults = ctx.faults();
        // Lock order is always phone → faults.
        let _ = phone.type_text(text, &mut |_c| faults.drop_char(), now);
    }
    if key_by_key {
        let n = text.chars().count() as u32;
        ctx.spent += ctx.latency.cost(Cost::KeyStroke) * n + slow * n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atoi_like_c() {
        assert_eq!(atoi("12"), 12);
        assert_eq!(atoi("  -3x"), -3);
        assert_eq!(atoi("abc"), 0);
        assert_eq!(atoi("12.7"), 12);
        assert_eq!(atoi("+5"), 5);
    }

    #[test]
    fn getopt_parses_grouped_and_valued() {
        let a: Vec<String> = ["-ia", "-p", "/x", "-b/y"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let o = getopt(&a, "ia", "pb").unwrap();
        assert_eq!(o.len(), 4);
        assert_eq!(o[3], ('b', Some("/y".to_string())));
        assert!(
            getopt(&["-z".to_string()], "ia", "p")
                .unwrap_err()
                .contains("unrecognized option: z")
        );
        assert!(
            getopt(&["-p".to_string()], "ia", "p")
                .unwrap_err()
                .contains("requires an argument")
        );
    }
}
