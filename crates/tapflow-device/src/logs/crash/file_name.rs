//! Faultlogger file names, `<kind>-<process>-<uid>-<timestamp>[.log]`: parsing one and reading
//! its timestamp, so files can be picked by process and time before any is read.

use std::sync::OnceLock;

use chrono::{DateTime, FixedOffset, NaiveDateTime, TimeZone};
use regex::Regex;
use schemars::JsonSchema;
use serde::Serialize;

use super::CrashKind;

/// The parts of a faultlogger file name `<kind>-<process>-<uid>-<timestamp>[.log]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct CrashFileName {
    pub kind: CrashKind,
    pub process: String,
    pub uid: u32,
    /// As in the name: local `YYYYMMDDHHMMSSmmm` or epoch milliseconds.
    pub timestamp: String,
}

impl CrashFileName {
    /// The name's timestamp as local time (`now` supplies the UTC offset for epoch values).
    pub fn time(&self, now: &DateTime<FixedOffset>) -> Option<NaiveDateTime> {
        let t = &self.timestamp;
        if t.len() == 17 {
            NaiveDateTime::parse_from_str(t, "%Y%m%d%H%M%S%3f").ok()
        } else if t.len() == 14 {
            NaiveDateTime::parse_from_str(t, "%Y%m%d%H%M%S").ok()
        } else if t.len() <= 10 {
            // Epoch seconds (10 digits until the year 2286).
            let secs: i64 = t.parse().ok()?;
            now.offset()
                .timestamp_opt(secs, 0)
                .single()
                .map(|d| d.naive_local())
        } else {
            let ms: i64 = t.parse().ok()?;
            now.offset()
                .timestamp_millis_opt(ms)
                .single()
                .map(|d| d.naive_local())
        }
    }
}

fn file_name_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^(cppcrash|jscrash|appfreeze|sysfreeze|syswarning)-(.+)-(\d+)-(\d{10,17})(?:\.log)?$",
        )
        .expect("static crash name regex")
    })
}

/// Parses a faultlogger file name (with or without a directory in front).
pub fn parse_crash_file_name(name: &str) -> Option<CrashFileName> {
    let base = name.rsplit('/').next().unwrap_or(name).trim();
    let caps = file_name_regex().captures(base)?;
    Some(CrashFileName {
        kind: CrashKind::from_prefix(&caps[1]),
        process: caps[2].to_string(),
        uid: caps[3].parse().ok()?,
        timestamp: caps[4].to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names() {
        let n = parse_crash_file_name(
            "/data/log/faultlog/faultlogger/jscrash-com.example.app-20020059-20260125022222183.log",
        )
        .unwrap();
        assert_eq!(n.kind, CrashKind::Jscrash);
        assert_eq!(n.process, "com.example.app");
        assert_eq!(n.uid, 20020059);
        let now = DateTime::parse_from_rfc3339("2026-01-25T03:00:00+08:00").unwrap();
        assert_eq!(
            n.time(&now),
            Some(
                NaiveDateTime::parse_from_str("2026-01-25 02:22:22.183", "%Y-%m-%d %H:%M:%S%.f")
                    .unwrap()
            )
        );
        let e = parse_crash_file_name("cppcrash-my-proc-0-1769278942183.log").unwrap();
        assert_eq!(e.process, "my-proc");
        assert_eq!(e.kind, CrashKind::Cppcrash);
        assert_eq!(
            e.time(&now),
            Some(
                NaiveDateTime::parse_from_str("2026-01-25 02:22:22.183", "%Y-%m-%d %H:%M:%S%.f")
                    .unwrap()
            )
        );
        let secs = parse_crash_file_name("appfreeze-com.x-1-1769278942.log").unwrap();
        assert_eq!(secs.kind, CrashKind::Appfreeze);
        assert_eq!(
            secs.time(&now),
            Some(
                NaiveDateTime::parse_from_str("2026-01-25 02:22:22", "%Y-%m-%d %H:%M:%S").unwrap()
            )
        );
        assert!(parse_crash_file_name("README.txt").is_none());
        assert!(parse_crash_file_name("jscrash-x-notanumber-1.log").is_none());
    }
}
