//! The exact device commands of every operation, as pure builders (no I/O), so each one can be
//! checked argv-for-argv in tests. Forms follow `docs/reference/hdc.md`; user text always enters
//! through [`ShellCommand::arg`] (single-quoted), numbers through [`ShellCommand::int`].

use crate::error::DeviceError;
use crate::hdc::quote::ShellCommand;
use crate::hdc::sections;
use crate::hdc::validate::{self, INVALID_PARAM};
use crate::model::{Direction, DumpScope, Gesture, KeyInput, LogQuery, Point, TapKind, TextTarget};

/// Where faultlogger keeps crash reports.
pub const FAULTLOG_DIR: &str = "/data/log/faultlog/faultlogger";

/// `param get` keys read by `info`, in section order.
pub const INFO_KEYS: [&str; 7] = [
    "const.product.model",
    "const.product.name",
    "const.product.brand",
    "const.product.software.version",
    "const.ohos.apiversion",
    "const.product.cpu.abilist",
    "const.product.devicetype",
];

/// uitest's accepted velocity range (px/s); outside it uitest warns and silently uses 600,
/// so the backend clamps instead of letting the device pick a different speed.
pub const MIN_SPEED: u32 = 200;
pub const MAX_SPEED: u32 = 40_000;

/// uitest rejects coordinates `<= 0` (`atoi`), so anything smaller than 1 is sent as 1.
fn coord(v: i32) -> i64 {
    i64::from(v.max(1))
}

fn speed(v: u32) -> i64 {
    i64::from(v.clamp(MIN_SPEED, MAX_SPEED))
}

/// All `param get` keys and the RenderService screen dump, in one round trip
/// (sections `0..INFO_KEYS.len()` are the keys, the last one the screen).
pub fn info() -> ShellCommand {
    let mut parts: Vec<ShellCommand> = INFO_KEYS
        .iter()
        .map(|k| ShellCommand::new("param").word("get").arg(k))
        .collect();
    parts.push(render_screen());
    sections::chain(parts)
}

/// The device check in one round trip: the sections of [`info`] (keys, screen), then the
/// power state, then a dump of the whole screen (as [`dump_layout`] to `path`).
pub fn check_ready(path: &str) -> ShellCommand {
    let mut parts: Vec<ShellCommand> = INFO_KEYS
        .iter()
        .map(|k| ShellCommand::new("param").word("get").arg(k))
        .collect();
    parts.push(render_screen());
    parts.push(power());
    parts.push(dump_layout(path, &DumpScope::default()));
    sections::chain(parts)
}

pub fn render_screen() -> ShellCommand {
    ShellCommand::new("hidumper")
        .word("-s")
        .word("RenderService")
        .word("-a")
        .word("screen")
}

/// Fallback screen source for builds whose RenderService dump has no size.
pub fn display_manager_screen() -> ShellCommand {
    ShellCommand::new("hidumper")
        .word("-s")
        .word("DisplayManagerService")
        .word("-a")
        .word("-a")
}

pub fn power() -> ShellCommand {
    ShellCommand::new("hidumper")
        .word("-s")
        .word("PowerManagerService")
        .word("-a")
        .word("-s")
}

/// Dump, read and delete the layout in one round trip. uitest's own stdout is kept (not sent
/// to /dev/null) so a `DumpLayout failed:…` reaches the caller in the device's words; `cat` only
/// runs after a successful dump, and the file is removed whatever happened.
pub fn dump_layout(path: &str, scope: &DumpScope) -> ShellCommand {
    let mut dump = ShellCommand::new("uitest")
        .word("dumpLayout")
        .opt("-p", path)
        .opt_maybe("-b", scope.bundle.as_deref());
    if let Some(w) = scope.window_id {
        dump = dump.word("-w").int(w);
    }
    dump.and_then(ShellCommand::new("cat").arg(path))
        .then(ShellCommand::new("rm").word("-f").arg(path))
}

/// The window table. `'-a'` is quoted so hidumper receives it as the service's argument.
pub fn window_table() -> ShellCommand {
    ShellCommand::new("hidumper")
        .word("-s")
        .word("WindowManagerService")
        .word("-a")
        .arg("-a")
}

/// `/proc/<pid>/cmdline` of every pid, one section each, in one round trip.
pub fn pid_cmdlines(pids: &[i64]) -> ShellCommand {
    sections::chain(
        pids.iter()
            .map(|pid| {
                ShellCommand::new("cat")
                    .arg(&format!("/proc/{pid}/cmdline"))
                    .word("2>/dev/null")
            })
            .collect(),
    )
}

pub fn missions() -> ShellCommand {
    ShellCommand::new("aa").word("dump").word("-l")
}

fn ui_input(action: &'static str) -> ShellCommand {
    ShellCommand::new("uitest").word("uiInput").word(action)
}

pub fn tap(at: Point, kind: TapKind) -> ShellCommand {
    let action = match kind {
        TapKind::Single => "click",
        TapKind::Double => "doubleClick",
        TapKind::Long => "longClick",
    };
    ui_input(action).int(coord(at.x)).int(coord(at.y))
}

pub fn gesture(g: &Gesture) -> ShellCommand {
    let line = |action, from: &Point, to: &Point, v: u32| {
        ui_input(action)
            .int(coord(from.x))
            .int(coord(from.y))
            .int(coord(to.x))
            .int(coord(to.y))
            .int(speed(v))
    };
    match g {
        Gesture::Swipe { from, to, speed } => line("swipe", from, to, *speed),
        Gesture::Drag { from, to, speed } => line("drag", from, to, *speed),
        Gesture::Fling {
            from,
            to,
            speed,
            step,
        } => {
            let cmd = line("fling", from, to, *speed);
            match step {
                Some(s) => cmd.int(*s),
                None => cmd,
            }
        }
        Gesture::DirectionalFling {
            direction,
            speed: v,
            step,
        } => {
            let dir: i64 = match direction {
                Direction::Left => 0,
                Direction::Right => 1,
                Direction::Up => 2,
                Direction::Down => 3,
            };
            let cmd = ui_input("dircFling").int(dir).int(speed(*v));
            match step {
                Some(s) => cmd.int(*s),
                None => cmd,
            }
        }
    }
}

pub fn input_text(target: TextTarget, text: &str) -> Result<ShellCommand, DeviceError> {
    validate::no_nul("text", text)?;
    Ok(match target {
        TextTarget::At(p) => ui_input("inputText")
            .int(coord(p.x))
            .int(coord(p.y))
            .typed(text),
        TextTarget::Focused => ui_input("text").typed(text),
    })
}

/// uitest takes one named key, or one to three numeric codes pressed together; anything else
/// is refused here and never sent.
pub fn key_event(key: &KeyInput) -> Result<ShellCommand, DeviceError> {
    let cmd = ui_input("keyEvent");
    Ok(match key {
        KeyInput::Back => cmd.word("Back"),
        KeyInput::Home => cmd.word("Home"),
        KeyInput::Power => cmd.word("Power"),
        KeyInput::Codes(codes) => {
            if codes.is_empty() || codes.len() > 3 {
                return Err(DeviceError::Command {
                    code: tapflow_core::codes::INVALID_KEY,
                    what: "key event".into(),
                    device_says: format!(
                        "uitest keyEvent takes 1 to 3 key codes at once, got {}",
                        codes.len()
                    ),
                });
            }
            codes.iter().fold(cmd, |c, code| c.int(*code))
        }
    })
}

pub fn snapshot_display(path: &str, display_id: Option<u32>) -> ShellCommand {
    let cmd = ShellCommand::new("snapshot_display").opt("-f", path);
    match display_id {
        Some(d) => cmd.word("-i").int(d),
        None => cmd,
    }
}

pub fn screen_cap(path: &str, display_id: Option<u32>) -> ShellCommand {
    let cmd = ShellCommand::new("uitest")
        .word("screenCap")
        .opt("-p", path);
    match display_id {
        Some(d) => cmd.word("-d").int(d),
        None => cmd,
    }
}

pub fn remove(path: &str) -> ShellCommand {
    ShellCommand::new("rm").word("-f").arg(path)
}

/// `hdc file recv <remote> <local>`: an hdc sub-command, so plain argv (no shell involved).
pub fn file_recv(remote: &str, local: &str) -> Vec<String> {
    vec!["file".into(), "recv".into(), remote.into(), local.into()]
}

pub fn install(package: &str, replace: bool) -> Vec<String> {
    let mut argv = vec!["install".to_string()];
    if replace {
        argv.push("-r".into());
    }
    argv.push(package.into());
    argv
}

pub fn uninstall(bundle: &str) -> Vec<String> {
    vec!["uninstall".into(), bundle.into()]
}

pub fn aa_start(bundle: &str, ability: &str, module: Option<&str>) -> ShellCommand {
    ShellCommand::new("aa")
        .word("start")
        .opt("-a", ability)
        .opt("-b", bundle)
        .opt_maybe("-m", module)
}

pub fn aa_force_stop(bundle: &str) -> ShellCommand {
    ShellCommand::new("aa").word("force-stop").arg(bundle)
}

/// Data then cache, in one round trip (two sections).
pub fn bm_clean(bundle: &str) -> ShellCommand {
    sections::chain(vec![
        ShellCommand::new("bm")
            .word("clean")
            .opt("-n", bundle)
            .word("-d"),
        ShellCommand::new("bm")
            .word("clean")
            .opt("-n", bundle)
            .word("-c"),
    ])
}

pub fn bm_dump_all() -> ShellCommand {
    ShellCommand::new("bm").word("dump").word("-a")
}

pub fn bm_dump_bundle(bundle: &str) -> ShellCommand {
    ShellCommand::new("bm").word("dump").opt("-n", bundle)
}

pub fn pidof(bundle: &str) -> ShellCommand {
    ShellCommand::new("pidof").arg(bundle)
}

/// The window table and the app's pids in one round trip (sections: table, pids). The pids
/// name the app's rows, which spares reading every owner's `/proc/<pid>/cmdline`.
pub fn app_windows(bundle: &str) -> ShellCommand {
    sections::chain(vec![window_table(), pidof(bundle)])
}

/// `aa start`, then the app's windows (as [`app_windows`]), then optionally a dump (as
/// [`dump_layout`]), in one round trip. Sections: start, table, pids[, dump].
pub fn launch_checked(
    bundle: &str,
    ability: &str,
    module: Option<&str>,
    dump: Option<(&str, &DumpScope)>,
) -> ShellCommand {
    let mut parts = vec![
        aa_start(bundle, ability, module),
        window_table(),
        pidof(bundle),
    ];
    if let Some((path, scope)) = dump {
        parts.push(dump_layout(path, scope));
    }
    sections::chain(parts)
}

const LEVELS: [char; 5] = ['D', 'I', 'W', 'E', 'F'];

fn bad_query(detail: String) -> DeviceError {
    DeviceError::Command {
        code: INVALID_PARAM,
        what: "log query".into(),
        device_says: detail,
    }
}

/// `hilog -x` (non-blocking read of the buffer) with the query's filters. hilog's `-L` selects
/// exact levels, so a minimum level is sent as the list of that level and all above it.
pub fn hilog(query: &LogQuery) -> Result<ShellCommand, DeviceError> {
    let mut cmd = ShellCommand::new("hilog").word("-x");
    if let Some(t) = &query.log_type {
        validate::no_nul("log type", t)?;
        cmd = cmd.opt("-t", t);
    }
    if let Some(level) = query.level {
        let level = level.to_ascii_uppercase();
        let Some(pos) = LEVELS.iter().position(|l| *l == level) else {
            return Err(bad_query(format!(
                "log level {level:?} is not one of D, I, W, E, F"
            )));
        };
        let list: Vec<String> = LEVELS[pos..].iter().map(char::to_string).collect();
        cmd = cmd.opt("-L", &list.join(","));
    }
    if let Some(d) = &query.domain {
        validate::no_nul("domain", d)?;
        cmd = cmd.opt("-D", d);
    }
    if !query.tags.is_empty() {
        if query.tags.len() > 10 {
            return Err(bad_query(format!(
                "hilog filters at most 10 tags, got {}",
                query.tags.len()
            )));
        }
        for t in &query.tags {
            validate::no_nul("tag", t)?;
            if t.is_empty() || t.contains(',') {
                return Err(bad_query(format!(
                    "tag {t:?} cannot be filtered (empty or contains ',')"
                )));
            }
        }
        cmd = cmd.opt("-T", &query.tags.join(","));
    }
    if !query.pids.is_empty() {
        if query.pids.len() > 5 {
            return Err(bad_query(format!(
                "hilog filters at most 5 pids, got {}",
                query.pids.len()
            )));
        }
        let list: Vec<String> = query.pids.iter().map(u32::to_string).collect();
        cmd = cmd.opt("-P", &list.join(","));
    }
    if let Some(re) = &query.regex {
        validate::no_nul("regex", re)?;
        cmd = cmd.opt("-e", re);
    }
    if let Some(n) = query.tail {
        cmd = cmd.opt("-z", &n.to_string());
    }
    Ok(cmd)
}

pub fn hilog_clear() -> ShellCommand {
    ShellCommand::new("hilog").word("-r")
}

pub fn crash_listing() -> ShellCommand {
    ShellCommand::new("ls").arg(&format!("{FAULTLOG_DIR}/"))
}

pub fn crash_read(file_name: &str) -> Result<ShellCommand, DeviceError> {
    validate::crash_file_name(file_name)?;
    Ok(ShellCommand::new("cat").arg(&format!("{FAULTLOG_DIR}/{file_name}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_are_clamped_to_one() {
        assert_eq!(
            tap(Point::new(0, -5), TapKind::Single).as_str(),
            "uitest uiInput click 1 1"
        );
        assert_eq!(
            tap(Point::new(540, 1200), TapKind::Long).as_str(),
            "uitest uiInput longClick 540 1200"
        );
    }

    #[test]
    fn speeds_are_kept_in_uitest_range() {
        let g = Gesture::Swipe {
            from: Point::new(1, 2),
            to: Point::new(3, 4),
            speed: 5,
        };
        assert_eq!(gesture(&g).as_str(), "uitest uiInput swipe 1 2 3 4 200");
        let g = Gesture::DirectionalFling {
            direction: Direction::Down,
            speed: 90_000,
            step: Some(50),
        };
        assert_eq!(gesture(&g).as_str(), "uitest uiInput dircFling 3 40000 50");
    }

    #[test]
    fn keys_beyond_three_codes_are_refused() {
        assert_eq!(
            key_event(&KeyInput::Codes(vec![2072, 2017]))
                .unwrap()
                .as_str(),
            "uitest uiInput keyEvent 2072 2017"
        );
        for codes in [vec![], vec![1, 2, 3, 4]] {
            assert_eq!(
                key_event(&KeyInput::Codes(codes)).unwrap_err().code(),
                "INVALID_KEY"
            );
        }
    }

    #[test]
    fn hilog_filters_are_quoted_and_checked() {
        let q = LogQuery {
            level: Some('w'),
            tags: vec!["JSAPP".into(), "Ace Focus".into()],
            domain: Some("0x3200".into()),
            pids: vec![6724, 1],
            regex: Some("it's $(x)".into()),
            log_type: Some("app".into()),
            tail: Some(200),
            since: None,
        };
        assert_eq!(
            hilog(&q).unwrap().as_str(),
            "hilog -x -t 'app' -L 'W,E,F' -D '0x3200' -T 'JSAPP,Ace Focus' -P '6724,1' -e 'it'\\''s $(x)' -z '200'"
        );
        assert_eq!(hilog(&LogQuery::default()).unwrap().as_str(), "hilog -x");
        let bad = [
            LogQuery {
                level: Some('X'),
                ..LogQuery::default()
            },
            LogQuery {
                tags: vec!["a,b".into()],
                ..LogQuery::default()
            },
            LogQuery {
                tags: vec!["t".into(); 11],
                ..LogQuery::default()
            },
            LogQuery {
                pids: vec![1; 6],
                ..LogQuery::default()
            },
        ];
        for q in bad {
            assert_eq!(hilog(&q).unwrap_err().code(), INVALID_PARAM, "{q:?}");
        }
    }

    #[test]
    fn crash_reads_stay_in_the_faultlogger_directory() {
        assert_eq!(
            crash_read("jscrash-com.x-20010043-1700000000000.log")
                .unwrap()
                .as_str(),
            "cat '/data/log/faultlog/faultlogger/jscrash-com.x-20010043-1700000000000.log'"
        );
        assert_eq!(
            crash_read("../../etc/passwd").unwrap_err().code(),
            "PATH_NOT_ALLOWED"
        );
    }

    #[test]
    fn dump_layout_reads_and_deletes_in_one_line() {
        let scope = DumpScope {
            bundle: Some("com.x".into()),
            window_id: Some(7),
        };
        assert_eq!(
            dump_layout("/data/local/tmp/t.json", &scope).as_str(),
            "uitest dumpLayout -p '/data/local/tmp/t.json' -b 'com.x' -w 7 && cat '/data/local/tmp/t.json'; rm -f '/data/local/tmp/t.json'"
        );
    }
}
