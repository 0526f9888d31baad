//! The exact device commands of every operation, as pure builders (no I/O), so each one can be
//! checked word for word in tests. Forms follow `docs/reference/adb.md`; user text always enters
//! through [`ShellCommand::arg`] (single-quoted for the device's `sh -c`), numbers through
//! [`ShellCommand::int`].

use crate::adb::validate;
use crate::error::DeviceError;
use crate::hdc::quote::ShellCommand;
use crate::hdc::sections;
use crate::hdc::validate::INVALID_PARAM;
use crate::model::{Gesture, LogQuery, Point, TapKind};

/// `getprop` keys read by `info`, in section order; the last section is `wm size`.
pub const INFO_PROPS: [&str; 7] = [
    "ro.product.model",
    "ro.product.name",
    "ro.product.brand",
    "ro.build.version.release",
    "ro.build.version.sdk",
    "ro.product.cpu.abi",
    "ro.build.characteristics",
];

/// Hold time of a long press (`input swipe x y x y 800`).
pub const LONG_PRESS_MS: i64 = 800;
/// Bounds of a swipe's duration: `input swipe` below ~10 ms is a teleport, and nothing a user
/// does lasts longer than a few seconds.
pub const MIN_SWIPE_MS: i64 = 10;
pub const MAX_SWIPE_MS: i64 = 10_000;

/// Android keycodes of the named system keys.
pub const KEYCODE_HOME: u32 = 3;
pub const KEYCODE_BACK: u32 = 4;
pub const KEYCODE_POWER: u32 = 26;

fn coord(v: i32) -> i64 {
    i64::from(v.max(0))
}

pub fn info() -> ShellCommand {
    let mut parts: Vec<ShellCommand> = INFO_PROPS
        .iter()
        .map(|k| ShellCommand::new("getprop").arg(k))
        .collect();
    parts.push(wm_size());
    sections::chain(parts)
}

pub fn wm_size() -> ShellCommand {
    ShellCommand::new("wm").word("size")
}

pub fn power() -> ShellCommand {
    ShellCommand::new("dumpsys").word("power")
}

/// `dumpsys window displays`: the `mCurrentFocus` / `mFocusedApp` lines.
pub fn focus() -> ShellCommand {
    ShellCommand::new("dumpsys").word("window").word("displays")
}

/// `uiautomator dump /dev/tty` (sent with `exec-out`): the XML goes straight to the stream,
/// followed by `UI hierchary dumped to: /dev/tty`; no file is left on the device.
pub fn ui_dump() -> ShellCommand {
    ShellCommand::new("uiautomator")
        .word("dump")
        .word("/dev/tty")
}

pub fn tap(at: Point, kind: TapKind) -> ShellCommand {
    let one = || {
        ShellCommand::new("input")
            .word("tap")
            .int(coord(at.x))
            .int(coord(at.y))
    };
    match kind {
        TapKind::Single => one(),
        // Two taps in one shell call: the second follows within the double-tap timeout.
        TapKind::Double => one().and_then(one()),
        TapKind::Long => ShellCommand::new("input")
            .word("swipe")
            .int(coord(at.x))
            .int(coord(at.y))
            .int(coord(at.x))
            .int(coord(at.y))
            .int(LONG_PRESS_MS),
    }
}

/// How long a move from `a` to `b` at `speed` px/s lasts, in ms, clamped.
pub fn duration_ms(a: Point, b: Point, speed: u32) -> i64 {
    let dx = f64::from(b.x - a.x);
    let dy = f64::from(b.y - a.y);
    let dist = (dx * dx + dy * dy).sqrt();
    let ms = dist / f64::from(speed.max(1)) * 1000.0;
    (ms.round() as i64).clamp(MIN_SWIPE_MS, MAX_SWIPE_MS)
}

/// A gesture; `screen` is needed for directional flings (they start from the screen's centre).
pub fn gesture(g: &Gesture, screen: Option<(i32, i32)>) -> Result<ShellCommand, DeviceError> {
    let swipe = |from: Point, to: Point, ms: i64| {
        ShellCommand::new("input")
            .word("swipe")
            .int(coord(from.x))
            .int(coord(from.y))
            .int(coord(to.x))
            .int(coord(to.y))
            .int(ms)
    };
    Ok(match g {
        Gesture::Swipe { from, to, speed }
        | Gesture::Fling {
            from, to, speed, ..
        } => swipe(*from, *to, duration_ms(*from, *to, *speed)),
        Gesture::Drag { from, to, speed } => ShellCommand::new("input")
            .word("draganddrop")
            .int(coord(from.x))
            .int(coord(from.y))
            .int(coord(to.x))
            .int(coord(to.y))
            .int(duration_ms(*from, *to, *speed)),
        Gesture::DirectionalFling {
            direction, speed, ..
        } => {
            let Some((w, h)) = screen else {
                return Err(DeviceError::Command {
                    code: INVALID_PARAM,
                    what: "fling".into(),
                    device_says: "the screen size is unknown (`wm size` gave none)".into(),
                });
            };
            let c = Point::new(w / 2, h / 2);
            let (dx, dy) = (w / 3, h / 3);
            use crate::model::Direction::*;
            let to = match direction {
                Left => Point::new(c.x - dx, c.y),
                Right => Point::new(c.x + dx, c.y),
                Up => Point::new(c.x, c.y - dy),
                Down => Point::new(c.x, c.y + dy),
            };
            swipe(c, to, duration_ms(c, to, *speed))
        }
    })
}

/// One key, or several in sequence (`input keyevent 67 67 67`).
pub fn keyevent(codes: &[u32]) -> ShellCommand {
    let mut cmd = ShellCommand::new("input").word("keyevent");
    for c in codes {
        cmd = cmd.int(i64::from(*c));
    }
    cmd
}

/// Keys pressed together (`input keycombination 113 29` = Ctrl+A; Android 12+).
pub fn keycombination(codes: &[u32]) -> ShellCommand {
    let mut cmd = ShellCommand::new("input").word("keycombination");
    for c in codes {
        cmd = cmd.int(i64::from(*c));
    }
    cmd
}

/// `screencap -p [-d ID]` (sent with `exec-out`): PNG bytes on stdout.
pub fn screencap(display_id: Option<u32>) -> ShellCommand {
    let cmd = ShellCommand::new("screencap").word("-p");
    match display_id {
        Some(d) => cmd.word("-d").int(i64::from(d)),
        None => cmd,
    }
}

pub fn am_start(package: &str, activity: &str) -> Result<ShellCommand, DeviceError> {
    validate::package_name(package)?;
    validate::activity(activity)?;
    Ok(ShellCommand::new("am")
        .word("start")
        .opt("-n", &format!("{package}/{activity}")))
}

/// Starts the launcher activity without knowing its name.
pub fn monkey_launch(package: &str) -> Result<ShellCommand, DeviceError> {
    validate::package_name(package)?;
    Ok(ShellCommand::new("monkey")
        .opt("-p", package)
        .word("-c")
        .word("android.intent.category.LAUNCHER")
        .int(1))
}

pub fn force_stop(package: &str) -> Result<ShellCommand, DeviceError> {
    validate::package_name(package)?;
    Ok(ShellCommand::new("am").word("force-stop").arg(package))
}

pub fn pm_clear(package: &str) -> Result<ShellCommand, DeviceError> {
    validate::package_name(package)?;
    Ok(ShellCommand::new("pm").word("clear").arg(package))
}

pub fn pm_uninstall(package: &str) -> Result<ShellCommand, DeviceError> {
    validate::package_name(package)?;
    Ok(ShellCommand::new("pm").word("uninstall").arg(package))
}

pub fn pm_list_packages() -> ShellCommand {
    ShellCommand::new("pm").word("list").word("packages")
}

/// `dumpsys package PKG` and the launcher resolution, in one round trip (two sections).
pub fn package_info(package: &str) -> Result<ShellCommand, DeviceError> {
    validate::package_name(package)?;
    Ok(sections::chain(vec![
        ShellCommand::new("dumpsys").word("package").arg(package),
        resolve_launcher(package),
    ]))
}

pub fn resolve_launcher(package: &str) -> ShellCommand {
    ShellCommand::new("cmd")
        .word("package")
        .word("resolve-activity")
        .word("--brief")
        .word("-a")
        .word("android.intent.action.MAIN")
        .word("-c")
        .word("android.intent.category.LAUNCHER")
        .arg(package)
}

pub fn pidof(package: &str) -> Result<ShellCommand, DeviceError> {
    validate::package_name(package)?;
    Ok(ShellCommand::new("pidof").arg(package))
}

/// The logcat buffers a query may name (`-b`).
pub const LOG_BUFFERS: &[&str] = &[
    "main", "system", "crash", "events", "radio", "kernel", "all", "default",
];

fn log_param(detail: String) -> DeviceError {
    DeviceError::Command {
        code: INVALID_PARAM,
        what: "log query".into(),
        device_says: detail,
    }
}

/// `logcat -d -v threadtime [-b BUF] [-t N] [-T 'MM-DD HH:MM:SS.mmm'] [--pid=N] [-e RE]
/// [TAG:L… *:S | *:L]`: dumps the buffer and exits (never `logcat` without `-d`, which streams
/// forever).
pub fn logcat(q: &LogQuery) -> Result<ShellCommand, DeviceError> {
    let mut cmd = ShellCommand::new("logcat")
        .word("-d")
        .word("-v")
        .word("threadtime");
    if q.domain.is_some() {
        return Err(log_param(
            "`domain` filters are hilog's (HarmonyOS); logcat has none: filter by tag instead"
                .into(),
        ));
    }
    if let Some(b) = &q.log_type {
        if !LOG_BUFFERS.contains(&b.as_str()) {
            return Err(log_param(format!(
                "unknown logcat buffer {b:?} (one of {})",
                LOG_BUFFERS.join(", ")
            )));
        }
        cmd = cmd.opt("-b", b);
    }
    if let Some(n) = q.tail {
        cmd = cmd.word("-t").int(i64::from(n.max(1)));
    }
    if let Some(t) = &q.since {
        cmd = cmd.opt("-T", t);
    }
    match q.pids.as_slice() {
        [] => {}
        [pid] => cmd = cmd.arg(&format!("--pid={pid}")),
        more => {
            return Err(log_param(format!(
                "logcat filters on one pid at a time (got {})",
                more.len()
            )));
        }
    }
    if let Some(re) = &q.regex {
        cmd = cmd.opt("-e", re);
    }
    let level = match q.level {
        None => None,
        Some(c) => {
            let c = c.to_ascii_uppercase();
            if !"VDIWEF".contains(c) {
                return Err(log_param(format!("unknown log level {c:?} (V D I W E F)")));
            }
            Some(c)
        }
    };
    let lvl = level.unwrap_or('V');
    if !q.tags.is_empty() {
        for t in &q.tags {
            if t.is_empty() || t.contains([':', ' ', '*']) {
                return Err(log_param(format!(
                    "tag {t:?} cannot be a logcat filter (no ':', '*' or spaces)"
                )));
            }
            cmd = cmd.arg(&format!("{t}:{lvl}"));
        }
        cmd = cmd.arg("*:S");
    } else if level.is_some() {
        cmd = cmd.arg(&format!("*:{lvl}"));
    }
    Ok(cmd)
}

pub fn logcat_clear() -> ShellCommand {
    ShellCommand::new("logcat").word("-c")
}

/// `adb install [-r] PATH` (an adb sub-command: the client pushes or streams the APK).
pub fn install(path: &str, replace: bool) -> Vec<String> {
    let mut v = vec!["install".to_string()];
    if replace {
        v.push("-r".to_string());
    }
    v.push(path.to_string());
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Direction;

    #[test]
    fn input_commands() {
        assert_eq!(
            tap(Point::new(540, 1200), TapKind::Single).as_str(),
            "input tap 540 1200"
        );
        assert_eq!(
            tap(Point::new(1, 2), TapKind::Double).as_str(),
            "input tap 1 2 && input tap 1 2"
        );
        assert_eq!(
            tap(Point::new(5, 6), TapKind::Long).as_str(),
            "input swipe 5 6 5 6 800"
        );
        let g = Gesture::Swipe {
            from: Point::new(540, 1800),
            to: Point::new(540, 600),
            speed: 4000,
        };
        assert_eq!(
            gesture(&g, None).unwrap().as_str(),
            "input swipe 540 1800 540 600 300"
        );
        let g = Gesture::DirectionalFling {
            direction: Direction::Up,
            speed: 2000,
            step: None,
        };
        assert_eq!(
            gesture(&g, Some((1080, 2400))).unwrap().as_str(),
            "input swipe 540 1200 540 400 400"
        );
        assert!(gesture(&g, None).is_err());
        assert_eq!(keyevent(&[67, 67]).as_str(), "input keyevent 67 67");
        assert_eq!(
            keycombination(&[113, 29]).as_str(),
            "input keycombination 113 29"
        );
    }

    #[test]
    fn app_commands_quote_and_validate() {
        assert_eq!(
            am_start("com.x", ".Main").unwrap().as_str(),
            "am start -n 'com.x/.Main'"
        );
        assert_eq!(
            monkey_launch("com.x").unwrap().as_str(),
            "monkey -p 'com.x' -c android.intent.category.LAUNCHER 1"
        );
        assert_eq!(
            force_stop("com.x").unwrap().as_str(),
            "am force-stop 'com.x'"
        );
        assert!(force_stop("com.x; reboot").is_err());
        assert!(am_start("com.x", "-n").is_err());
        assert_eq!(
            install("/tmp/a b.apk", true),
            ["install", "-r", "/tmp/a b.apk"]
        );
    }

    #[test]
    fn logcat_filters() {
        assert_eq!(
            logcat(&LogQuery::default()).unwrap().as_str(),
            "logcat -d -v threadtime"
        );
        let q = LogQuery {
            level: Some('w'),
            tags: vec!["DemoApp".into(), "AndroidRuntime".into()],
            pids: vec![42],
            regex: Some("it's $(x)".into()),
            log_type: Some("crash".into()),
            tail: Some(200),
            since: Some("12-02 10:00:00.000".into()),
            ..LogQuery::default()
        };
        assert_eq!(
            logcat(&q).unwrap().as_str(),
            "logcat -d -v threadtime -b 'crash' -t 200 -T '12-02 10:00:00.000' '--pid=42' -e 'it'\\''s $(x)' 'DemoApp:W' 'AndroidRuntime:W' '*:S'"
        );
        let q = LogQuery {
            level: Some('E'),
            ..LogQuery::default()
        };
        assert_eq!(
            logcat(&q).unwrap().as_str(),
            "logcat -d -v threadtime '*:E'"
        );
        for bad in [
            LogQuery {
                domain: Some("0x1".into()),
                ..LogQuery::default()
            },
            LogQuery {
                pids: vec![1, 2],
                ..LogQuery::default()
            },
            LogQuery {
                tags: vec!["a:b".into()],
                ..LogQuery::default()
            },
            LogQuery {
                log_type: Some("app".into()),
                ..LogQuery::default()
            },
            LogQuery {
                level: Some('X'),
                ..LogQuery::default()
            },
        ] {
            assert_eq!(logcat(&bad).unwrap_err().code(), INVALID_PARAM, "{bad:?}");
        }
    }
}
