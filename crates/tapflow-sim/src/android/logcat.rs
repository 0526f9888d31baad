//! The phone's log as Android's logcat shows it: records become `threadtime` lines in the
//! main, system and crash buffers.
//!
//! The shared phone model logs what happens (an app starts, a process dies, the app's own
//! `log` actions, a crash with its stack); this module says it the way Android does:
//!
//! | phone record | logcat line |
//! |---|---|
//! | an app's own record (`A` type, its tag) | the same tag and message, main buffer |
//! | `StartAbility, want: bundle:B, ability:A` | system_server `I ActivityTaskManager: START u0 {flg=0x10000000 cmp=B/.A} from uid 2000` |
//! | `LaunchApplication B` | system_server `I ActivityManager: Start proc PID:B/u0aN for next-top-activity {B/.A}` |
//! | `PendingSessionActivation: B A` | system_server `I ActivityTaskManager: Displayed B/.A for user 0: +350ms` |
//! | `KillProcess … reason: js crash` | system_server `I ActivityManager: Process B (pid P) has died: fg  TOP` |
//! | `KillProcess … reason: R` | system_server `I ActivityManager: Force stopping B appid=N user=0: R` |
//! | the crash block (`B is about to exit…`, `Error name:`, `Error message:`, stack) | `E AndroidRuntime: FATAL EXCEPTION: main`, `Process: B, PID: P`, `java.lang.RuntimeException: NAME: MESSAGE`, `\tat B.Page.fn(Page.ets:L)` (crash buffer) |
//! | battery / wifi / power / render noise | `healthd`, `WifiService`, `PowerManagerService`, `SurfaceFlinger` |
//!
//! Records with no Android counterpart (touch dispatch, IME, faultlogger, page routing) are not
//! shown. The line format is logcat's `%s %5d %5d %c %-8s: %s` (`logprint.cpp`).

use std::sync::OnceLock;

use chrono::{DateTime, Datelike, Local, NaiveDateTime};
use regex::Regex;

use super::component::{activity_class, short_class};
use crate::phone::{LogRecord, Phone};

/// Pids of the Android system processes that log.
pub const SYSTEM_SERVER: u32 = 542;
pub const SURFACEFLINGER: u32 = 410;
pub const HEALTHD: u32 = 350;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Buffer {
    Main,
    System,
    Crash,
}

impl Buffer {
    pub fn name(self) -> &'static str {
        match self {
            Buffer::Main => "main",
            Buffer::System => "system",
            Buffer::Crash => "crash",
        }
    }
}

/// One logcat entry (a message may span lines; each printed line repeats the prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub time: DateTime<Local>,
    pub pid: u32,
    pub tid: u32,
    pub level: char,
    pub tag: String,
    pub message: String,
    pub buffer: Buffer,
}

impl Line {
    /// The `threadtime` text of the entry (no trailing newline).
    pub fn threadtime(&self) -> String {
        let t = self.time.format("%m-%d %H:%M:%S%.3f");
        self.message
            .split('\n')
            .map(|m| {
                format!(
                    "{t} {:>5} {:>5} {} {:<8}: {m}",
                    self.pid, self.tid, self.level, self.tag
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// An Android app uid for a phone uid (`u0a<n>` is `10000 + n`).
pub fn android_uid(phone_uid: u32) -> u32 {
    10_000 + phone_uid % 10_000
}

fn stack_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^at (\S+) \S+ \((?:[^()]*/)?([A-Za-z0-9_]+)\.ets:(\d+):\d+\)$")
            .expect("static stack regex")
    })
}

fn launcher_activity(phone: &Phone, bundle: &str) -> String {
    let ability = phone
        .installed_app(bundle)
        .and_then(|a| {
            a.spec
                .abilities
                .iter()
                .find(|x| x.launcher)
                .or(a.spec.abilities.first())
                .map(|x| x.name.clone())
        })
        .unwrap_or_else(|| "MainActivity".into());
    short_class(bundle, &activity_class(bundle, &ability))
}

/// Renders every record the phone holds, in order.
pub fn render(phone: &Phone) -> Vec<Line> {
    let mut out = Vec::new();
    // Per crashing pid: the error name seen, waiting for its message.
    let mut crash: Option<CrashState> = None;
    for r in phone.hilog() {
        let sys = |level: char, tag: &str, message: String| Line {
            time: r.time,
            pid: SYSTEM_SERVER,
            tid: SYSTEM_SERVER + 30,
            level,
            tag: tag.to_string(),
            message,
            buffer: Buffer::System,
        };
        let m = r.message.as_str();
        let line = match (r.log_type, r.tag.as_str()) {
            ('A', _) => Some(Line {
                time: r.time,
                pid: r.pid,
                tid: r.tid,
                level: r.level,
                tag: r.tag.clone(),
                message: r.message.clone(),
                buffer: Buffer::Main,
            }),
            (_, "AbilityManagerService") => m
                .strip_prefix("StartAbility, want: bundle:")
                .and_then(|rest| rest.split_once(", ability:"))
                .map(|(b, a)| {
                    let cls = short_class(b, &activity_class(b, a));
                    sys(
                        'I',
                        "ActivityTaskManager",
                        format!("START u0 {{flg=0x10000000 cmp={b}/{cls}}} from uid 2000"),
                    )
                }),
            (_, "AppKit") if m.starts_with("[MAINTHD] LaunchApplication ") => {
                let b = &m["[MAINTHD] LaunchApplication ".len()..];
                let uid = phone
                    .installed_app(b)
                    .map(|a| android_uid(a.uid) - 10_000)
                    .unwrap_or(0);
                let act = launcher_activity(phone, b);
                Some(sys(
                    'I',
                    "ActivityManager",
                    format!(
                        "Start proc {}:{b}/u0a{uid} for next-top-activity {{{b}/{act}}}",
                        r.pid
                    ),
                ))
            }
            (_, "AppKit") if r.level == 'E' => crash_line(r, &mut crash),
            (_, "SceneSessionManager") => m
                .strip_prefix("PendingSessionActivation: ")
                .and_then(|rest| rest.split_once(' '))
                .map(|(b, a)| {
                    let cls = short_class(b, &activity_class(b, a));
                    sys(
                        'I',
                        "ActivityTaskManager",
                        format!("Displayed {b}/{cls} for user 0: +350ms"),
                    )
                }),
            (_, "AppMgrService") => kill_line(m, phone).map(|t| sys('I', "ActivityManager", t)),
            (_, "BatteryService") => Some(Line {
                time: r.time,
                pid: HEALTHD,
                tid: HEALTHD,
                level: 'I',
                tag: "healthd".into(),
                message: "battery l=85 v=3950 t=31.2 h=2 st=3 c=-210000 fc=3000000 cc=12 chg="
                    .into(),
                buffer: Buffer::Main,
            }),
            (_, "WifiService") => Some(sys('D', "WifiService", m.to_string())),
            (_, "PowerState") => Some(sys('I', "PowerManagerService", m.to_string())),
            (_, "RenderService") => Some(Line {
                time: r.time,
                pid: SURFACEFLINGER,
                tid: SURFACEFLINGER,
                level: r.level,
                tag: "SurfaceFlinger".into(),
                message: m.to_string(),
                buffer: Buffer::Main,
            }),
            _ => None,
        };
        out.extend(line);
    }
    out
}

/// `KillProcess, bundle: B, pid: P, reason: R` as ActivityManager says it.
fn kill_line(m: &str, phone: &Phone) -> Option<String> {
    let rest = m.strip_prefix("KillProcess, bundle: ")?;
    let (b, rest) = rest.split_once(", pid: ")?;
    let (pid, reason) = rest.split_once(", reason: ")?;
    if reason == "js crash" {
        return Some(format!("Process {b} (pid {pid}) has died: fg  TOP "));
    }
    let appid = phone
        .installed_app(b)
        .map(|a| android_uid(a.uid))
        .unwrap_or(0);
    let why = match reason {
        "force-stop" => "from pid 4242",
        "uninstall" | "update" => "pkg removed",
        "clean data" => "clear data",
        other => other,
    };
    Some(format!("Force stopping {b} appid={appid} user=0: {why}"))
}

/// The crash block being rendered: the crashing pid, its package, the error name seen.
#[derive(Debug, Default)]
struct CrashState {
    pid: u32,
    bundle: String,
    name: Option<String>,
}

/// One record of the phone's crash block as `AndroidRuntime` prints an uncaught exception.
fn crash_line(r: &LogRecord, state: &mut Option<CrashState>) -> Option<Line> {
    let m = r.message.as_str();
    let line = |message: String| Line {
        time: r.time,
        pid: r.pid,
        tid: r.tid,
        level: 'E',
        tag: "AndroidRuntime".into(),
        message,
        buffer: Buffer::Crash,
    };
    if let Some(b) = m.strip_suffix(" is about to exit due to RuntimeError") {
        *state = Some(CrashState {
            pid: r.pid,
            bundle: b.to_string(),
            name: None,
        });
        return Some(line(format!(
            "FATAL EXCEPTION: main\nProcess: {b}, PID: {}",
            r.pid
        )));
    }
    let st = state.as_mut().filter(|s| s.pid == r.pid)?;
    if let Some(n) = m.strip_prefix("Error name:") {
        st.name = Some(n.to_string());
        return None;
    }
    if let Some(msg) = m.strip_prefix("Error message:") {
        let n = st.name.clone().unwrap_or_else(|| "Error".to_string());
        return Some(line(format!("java.lang.RuntimeException: {n}: {msg}")));
    }
    let t = m.trim();
    if !t.starts_with("at ") {
        return None;
    }
    let frame = match stack_re().captures(t) {
        // `at onCrashClick entry (entry/src/main/ets/pages/HomePage.ets:48:13)`
        Some(c) => format!(
            "\tat {}.{}.{}({}.ets:{})",
            st.bundle, &c[2], &c[1], &c[2], &c[3]
        ),
        None => format!("\tat {t}"),
    };
    Some(line(frame))
}

/// Parses `MM-DD HH:MM:SS[.mmm]` (logcat's `-T`/`-t` time) in the current year.
pub fn parse_since(text: &str, now: DateTime<Local>) -> Option<DateTime<Local>> {
    let t = text.trim();
    let with_ms = if t.contains('.') {
        t.to_string()
    } else {
        format!("{t}.000")
    };
    let full = format!("{}-{with_ms}", now.year());
    let naive = NaiveDateTime::parse_from_str(&full, "%Y-%m-%d %H:%M:%S%.3f").ok()?;
    naive.and_local_timezone(Local).earliest()
}
