//! hilog records: the record type, its exact one-line format, and the phone's log buffer with the
//! system processes' background noise.

use chrono::{DateTime, Local};
use std::time::SystemTime;

/// One hilog record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRecord {
    pub time: DateTime<Local>,
    pub pid: u32,
    pub tid: u32,
    /// `D I W E F`
    pub level: char,
    /// `A` app, `C` core, `I` init, `K` kmsg
    pub log_type: char,
    /// Printed as 5 lowercase hex digits (`0xd0d0` → `0d0d0`).
    pub domain: u32,
    pub tag: String,
    pub message: String,
}

impl LogRecord {
    /// The exact default hilog line(s): `MM-DD HH:MM:SS.mmm  pid  tid L A0d0d0/Tag: msg`.
    /// A multi-line message gives one line per message line, each with the full prefix
    /// (joined with `\n`, no trailing newline).
    pub fn format(&self) -> String {
        let prefix = format!(
            "{} {:>5} {:>5} {} {}{:05x}/{}: ",
            self.time.format("%m-%d %H:%M:%S%.3f"),
            self.pid,
            self.tid,
            self.level,
            self.log_type,
            self.domain,
            self.tag
        );
        let mut out = String::new();
        for (i, line) in self.message.split('\n').enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(&prefix);
            out.push_str(line);
        }
        out
    }
}

/// Pids of the system processes that log on a HarmonyOS phone.
pub mod sys {
    pub const FOUNDATION: u32 = 1016;
    pub const RENDER_SERVICE: u32 = 1210;
    pub const MMI: u32 = 1183;
    pub const SCENEBOARD: u32 = 1647;
    pub const IME: u32 = 5120;
    pub const HIVIEW: u32 = 1030;
    /// SceneBoard's engine service UI extension process.
    pub const SCB_ENGINE: u32 = 2121;
    pub const MEDIALIBRARY: u32 = 1813;
}

/// The hilog ring buffer.
#[derive(Debug, Clone, Default)]
pub struct LogBuffer {
    records: Vec<LogRecord>,
}

/// Buffer size cap (records); real hilog drops the oldest entries too.
const MAX_RECORDS: usize = 50_000;

impl LogBuffer {
    pub fn records(&self) -> &[LogRecord] {
        &self.records
    }

    pub fn clear(&mut self) {
        self.records.clear();
    }

    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        now: SystemTime,
        pid: u32,
        tid: u32,
        level: char,
        log_type: char,
        domain: u32,
        tag: &str,
        message: impl Into<String>,
    ) {
        // Records must stay ordered even when callers pass a slightly older `now`.
        let mut time: DateTime<Local> = now.into();
        if let Some(last) = self.records.last()
            && last.time > time
        {
            time = last.time;
        }
        self.records.push(LogRecord {
            time,
            pid,
            tid,
            level,
            log_type,
            domain,
            tag: tag.to_string(),
            message: message.into(),
        });
        if self.records.len() > MAX_RECORDS {
            let excess = self.records.len() - MAX_RECORDS;
            self.records.drain(..excess);
        }
    }

    /// A core (system service) record.
    pub fn core(
        &mut self,
        now: SystemTime,
        pid: u32,
        level: char,
        domain: u32,
        tag: &str,
        msg: impl Into<String>,
    ) {
        self.push(now, pid, pid, level, 'C', domain, tag, msg);
    }

    /// The multimodal-input and render noise every touch produces on a real device.
    pub fn touch_noise(&mut self, now: SystemTime, x: i32, y: i32) {
        self.core(
            now,
            sys::MMI,
            'I',
            0x2800,
            "MMIService",
            format!("Pointer event dispatched, action:DOWN, x:{x}, y:{y}"),
        );
        self.core(
            now,
            sys::MMI,
            'I',
            0x2800,
            "MMIService",
            format!("Pointer event dispatched, action:UP, x:{x}, y:{y}"),
        );
    }

    /// One line of the background chatter of system services (battery, wifi, power), chosen by `n`.
    pub fn background_noise(&mut self, now: SystemTime, n: u64) {
        match n % 4 {
            0 => self.core(
                now,
                1243,
                'I',
                0x2b00,
                "BatteryService",
                "capacity=85, status=DISCHARGING, temperature=312",
            ),
            1 => self.core(
                now,
                1310,
                'I',
                0x1560,
                "WifiService",
                "ScanResults: found 7 networks",
            ),
            2 => self.core(
                now,
                1254,
                'I',
                0x2900,
                "PowerState",
                "ScreenState: ON, reason: USER_ACTIVITY",
            ),
            _ => self.core(
                now,
                sys::RENDER_SERVICE,
                'D',
                0x1400,
                "RenderService",
                "RSMainThread: frame rate 120, dirty regions 1",
            ),
        }
    }

    /// Boot-time noise so a fresh buffer is not empty, as on a real device.
    pub fn boot_noise(&mut self, now: SystemTime) {
        self.core(
            now,
            sys::HIVIEW,
            'I',
            0x2d11,
            "HiView",
            "hiview service started, plugins loaded: 42",
        );
        self.core(
            now,
            sys::FOUNDATION,
            'I',
            0x1300,
            "AbilityManagerService",
            "AbilityManagerService start success",
        );
        self.core(
            now,
            sys::RENDER_SERVICE,
            'I',
            0x1400,
            "RenderService",
            "RSMainThread: screen 0 power on, refresh rate 120",
        );
        self.core(
            now,
            sys::SCENEBOARD,
            'I',
            0x3900,
            "SceneSessionManager",
            "SceneBoard ready, desktop shown",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn formats_like_hilog() {
        let r = LogRecord {
            time: Local.with_ymd_and_hms(2026, 1, 23, 21, 1, 50).unwrap()
                + chrono::Duration::milliseconds(181),
            pid: 6724,
            tid: 6724,
            level: 'I',
            log_type: 'C',
            domain: 0x391c,
            tag: "AceFocus".into(),
            message: "a\nb".into(),
        };
        assert_eq!(
            r.format(),
            "01-23 21:01:50.181  6724  6724 I C0391c/AceFocus: a\n01-23 21:01:50.181  6724  6724 I C0391c/AceFocus: b"
        );
    }

    #[test]
    fn app_domain_is_five_hex_digits() {
        let mut b = LogBuffer::default();
        b.push(
            SystemTime::now(),
            123,
            123,
            'I',
            'A',
            0xd0d0,
            "DemoApp",
            "LOGIN_SUCCESS user=x",
        );
        let line = b.records()[0].format();
        assert!(
            line.contains("   123   123 I A0d0d0/DemoApp: LOGIN_SUCCESS user=x"),
            "{line}"
        );
    }
}
