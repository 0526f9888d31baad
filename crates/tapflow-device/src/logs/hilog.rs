//! hilog text → typed lines.
//!
//! Owns the parsing of one printed hilog line (every `-v` time format the tool can print: default
//! `MM-DD HH:MM:SS.mmm`, `year`, `zone`, `epoch`, `monotonic`, `usec`/`nsec`, `color`), kmsg lines that
//! carry no pid/tid, and the grouping of a text into records where unparseable lines are kept as
//! continuation text of the record before them. Nothing here resolves a year or reads a clock: a
//! line's time stays as printed ([`LineTime`]) and `time.rs` resolves it against a supplied `now`.
//!
//! Line layout (hilog `log_print.cpp`): `<time>.<frac> <pid:5> <tid:5> <L> <T><domain:5 hex>/<tag>: <msg>`,
//! where `T` (log type letter) is absent on older builds and pid/tid are absent on kmsg lines.

use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// hilog severity, ordered so that `level >= Level::Error` means "error or worse".
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
pub enum Level {
    #[serde(rename = "D")]
    Debug,
    #[serde(rename = "I")]
    Info,
    #[serde(rename = "W")]
    Warn,
    #[serde(rename = "E")]
    Error,
    #[serde(rename = "F")]
    Fatal,
}

impl Level {
    /// The single letter hilog prints.
    pub fn letter(self) -> char {
        match self {
            Level::Debug => 'D',
            Level::Info => 'I',
            Level::Warn => 'W',
            Level::Error => 'E',
            Level::Fatal => 'F',
        }
    }

    pub fn from_letter(c: char) -> Option<Level> {
        match c {
            'D' => Some(Level::Debug),
            'I' => Some(Level::Info),
            'W' => Some(Level::Warn),
            'E' => Some(Level::Error),
            'F' => Some(Level::Fatal),
            _ => None,
        }
    }

    /// A user-supplied level: a letter or the long name hilog's `-L` accepts, any case.
    pub fn parse_user(text: &str) -> Option<Level> {
        match text.trim().to_ascii_uppercase().as_str() {
            "D" | "DEBUG" => Some(Level::Debug),
            "I" | "INFO" => Some(Level::Info),
            "W" | "WARN" | "WARNING" => Some(Level::Warn),
            "E" | "ERROR" => Some(Level::Error),
            "F" | "FATAL" => Some(Level::Fatal),
            _ => None,
        }
    }
}

/// hilog log type letter in front of the domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LogType {
    App,
    Core,
    Init,
    Kmsg,
    OnlyPrerelease,
}

impl LogType {
    pub fn from_letter(c: char) -> Option<LogType> {
        match c {
            'A' => Some(LogType::App),
            'C' => Some(LogType::Core),
            'I' => Some(LogType::Init),
            'K' => Some(LogType::Kmsg),
            'P' => Some(LogType::OnlyPrerelease),
            _ => None,
        }
    }

    pub fn letter(self) -> char {
        match self {
            LogType::App => 'A',
            LogType::Core => 'C',
            LogType::Init => 'I',
            LogType::Kmsg => 'K',
            LogType::OnlyPrerelease => 'P',
        }
    }
}

/// The time of a line exactly as printed; resolution to a calendar date happens in `time.rs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineTime {
    /// Local wall clock; `year` only with `-v year`.
    Wall {
        year: Option<i32>,
        month: u32,
        day: u32,
        hour: u32,
        minute: u32,
        second: u32,
        nanos: u32,
    },
    /// `-v epoch`: seconds since 1970 (UTC instant).
    Epoch { secs: i64, nanos: u32 },
    /// `-v monotonic`: seconds since boot; no wall time can be derived from it.
    Monotonic { secs: u64, nanos: u32 },
}

/// One parsed hilog line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HilogLine {
    pub time: LineTime,
    /// Absent on kmsg lines.
    pub pid: Option<u32>,
    pub tid: Option<u32>,
    pub level: Level,
    /// Absent on builds that print only the domain.
    pub log_type: Option<LogType>,
    /// The printed (short, 20-bit) domain.
    pub domain: u32,
    pub tag: String,
    pub message: String,
    /// The line is Android logcat's `threadtime` (`MM-DD HH:MM:SS.mmm PID TID L TAG: msg`),
    /// which has no log type and no domain (`domain` is then 0 and meaningless).
    pub logcat: bool,
}

impl HilogLine {
    /// Everything before the message: two lines with equal prefixes come from one hilog call
    /// when the message contained newlines (hilog repeats the prefix on every line).
    pub fn same_prefix(&self, other: &HilogLine) -> bool {
        self.time == other.time
            && self.pid == other.pid
            && self.tid == other.tid
            && self.level == other.level
            && self.log_type == other.log_type
            && self.domain == other.domain
            && self.tag == other.tag
    }

    /// `C01317` style domain text as printed.
    pub fn domain_text(&self) -> String {
        match self.log_type {
            Some(t) => format!("{}{:05x}", t.letter(), self.domain),
            None => format!("{:05x}", self.domain),
        }
    }
}

fn line_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(concat!(
            r"^(?:[A-Za-z][A-Za-z0-9+\-]{1,9} )?", // -v zone: abbreviation before the date
            r"(?:",
            r"(?:(?P<year>\d{4})-)?(?P<mon>\d{2})-(?P<day>\d{2}) (?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2})",
            r"|\s*(?P<num>\d{1,12})", // -v epoch (width 10) or -v monotonic (width 8)
            r")\.(?P<frac>\d{3}|\d{6}|\d{9})",
            r"(?:\s+(?P<pid>\d+)\s+(?P<tid>\d+))?",
            r"\s+(?P<lvl>[DIWEF])",
            r"\s+(?P<typ>[ACIKP])?(?P<dom>[0-9a-fA-F]{5})/(?P<tag>[^:]*): ?(?P<msg>.*)$"
        ))
        .expect("static hilog regex")
    })
}

fn ansi_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\x1B\[[0-9;]*m").expect("static ansi regex"))
}

/// Removes `\r` (Windows hosts) and `-v color` escapes.
pub fn clean_line(raw: &str) -> String {
    let no_cr = raw.trim_end_matches(['\r', '\n']).replace('\r', "");
    if no_cr.contains('\x1B') {
        ansi_regex().replace_all(&no_cr, "").into_owned()
    } else {
        no_cr
    }
}

/// Epoch values below this are taken as `-v monotonic` (seconds since boot), at or above as
/// `-v epoch`: 10^9 s is September 2001, and no device has been up for 31 years.
const EPOCH_THRESHOLD: u64 = 1_000_000_000;

/// Parses one line (after [`clean_line`]); `None` when it is neither a hilog line nor an
/// Android logcat `threadtime` line (read as one, with logcat's `V` counted as `D` and `A`
/// (assert) as `F`; see [`super::logcat`]).
pub fn parse_line(line: &str) -> Option<HilogLine> {
    match line_regex().captures(line) {
        Some(_) => parse_hilog_line(line),
        None => from_logcat(line),
    }
}

fn from_logcat(line: &str) -> Option<HilogLine> {
    let l = super::logcat::parse_line(line)?;
    let level = match l.level {
        'V' | 'D' => Level::Debug,
        'I' => Level::Info,
        'W' => Level::Warn,
        'E' => Level::Error,
        'F' | 'A' => Level::Fatal,
        _ => return None,
    };
    Some(HilogLine {
        time: LineTime::Wall {
            year: None,
            month: l.month,
            day: l.day,
            hour: l.hour,
            minute: l.minute,
            second: l.second,
            nanos: l.millis * 1_000_000,
        },
        pid: Some(l.pid),
        tid: Some(l.tid),
        level,
        log_type: None,
        domain: 0,
        tag: l.tag,
        message: l.message,
        logcat: true,
    })
}

fn parse_hilog_line(line: &str) -> Option<HilogLine> {
    let caps = line_regex().captures(line)?;
    let frac = caps.name("frac")?.as_str();
    // Scale .mmm / .uuuuuu / .nnnnnnnnn to nanoseconds.
    let nanos: u32 = frac.parse::<u32>().ok()? * 10u32.pow(9 - frac.len() as u32);
    let time = if let Some(num) = caps.name("num") {
        let value: u64 = num.as_str().parse().ok()?;
        if value >= EPOCH_THRESHOLD {
            LineTime::Epoch {
                secs: i64::try_from(value).ok()?,
                nanos,
            }
        } else {
            LineTime::Monotonic { secs: value, nanos }
        }
    } else {
        let year = match caps.name("year") {
            Some(y) => Some(y.as_str().parse().ok()?),
            None => None,
        };
        let month: u32 = caps["mon"].parse().ok()?;
        let day: u32 = caps["day"].parse().ok()?;
        let hour: u32 = caps["h"].parse().ok()?;
        let minute: u32 = caps["mi"].parse().ok()?;
        let second: u32 = caps["s"].parse().ok()?;
        if !(1..=12).contains(&month)
            || !(1..=31).contains(&day)
            || hour > 23
            || minute > 59
            || second > 60
        {
            return None;
        }
        LineTime::Wall {
            year,
            month,
            day,
            hour,
            minute,
            second,
            nanos,
        }
    };
    let pid = match caps.name("pid") {
        Some(p) => Some(p.as_str().parse().ok()?),
        None => None,
    };
    let tid = match caps.name("tid") {
        Some(t) => Some(t.as_str().parse().ok()?),
        None => None,
    };
    let level = Level::from_letter(caps["lvl"].chars().next()?)?;
    let log_type = caps
        .name("typ")
        .and_then(|t| t.as_str().chars().next())
        .and_then(LogType::from_letter);
    let domain = u32::from_str_radix(&caps["dom"], 16).ok()?;
    Some(HilogLine {
        time,
        pid,
        tid,
        level,
        log_type,
        domain,
        tag: caps["tag"].to_string(),
        message: caps["msg"].to_string(),
        logcat: false,
    })
}

/// One logical entry of a text: a hilog line, or a run of unparseable text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRecord {
    /// 1-based number of the record's first line in its text.
    pub line_no: usize,
    /// The record's first line, cleaned.
    pub raw: String,
    /// `None` for text that is not hilog (a crash header, help text, another tool's output).
    pub hilog: Option<HilogLine>,
    /// Unparseable lines that followed a hilog line (kept, never dropped).
    pub continuation: Vec<String>,
}

impl LogRecord {
    /// The record's full text: first line plus continuation lines.
    pub fn full_text(&self) -> String {
        if self.continuation.is_empty() {
            self.raw.clone()
        } else {
            let mut s = self.raw.clone();
            for c in &self.continuation {
                s.push('\n');
                s.push_str(c);
            }
            s
        }
    }

    /// Number of physical lines the record spans.
    pub fn line_span(&self) -> usize {
        1 + self.continuation.len()
    }

    pub fn level(&self) -> Option<Level> {
        self.hilog.as_ref().map(|h| h.level)
    }
}

/// Splits `text` into records. A line that is not hilog becomes continuation text of the hilog
/// record before it (hilog itself repeats the prefix, so such text comes from something else
/// interleaved or from a wrapped paste); before the first hilog line, each such line is a record
/// of its own. Empty lines are kept as records only when no hilog record precedes them.
pub fn parse_text(text: &str) -> Vec<LogRecord> {
    let mut records: Vec<LogRecord> = Vec::new();
    let mut last_was_hilog = false;
    for (idx, raw_line) in text.lines().enumerate() {
        let line = clean_line(raw_line);
        match parse_line(&line) {
            Some(h) => {
                records.push(LogRecord {
                    line_no: idx + 1,
                    raw: line,
                    hilog: Some(h),
                    continuation: Vec::new(),
                });
                last_was_hilog = true;
            }
            None if last_was_hilog => {
                if let Some(last) = records.last_mut() {
                    last.continuation.push(line);
                }
            }
            None => records.push(LogRecord {
                line_no: idx + 1,
                raw: line,
                hilog: None,
                continuation: Vec::new(),
            }),
        }
    }
    records
}

/// Indices of records grouped into hilog messages: consecutive hilog records with the same
/// prefix (time to the printed precision, pid, tid, level, type, domain, tag) form one group.
/// Several distinct messages logged by one thread within the same millisecond also share a
/// prefix, so callers use this only where a block is known to be one message (crash markers).
pub fn group_multiline(records: &[LogRecord]) -> Vec<std::ops::Range<usize>> {
    let mut groups = Vec::new();
    let mut start = 0;
    for i in 1..=records.len() {
        let split = i == records.len()
            || match (&records[i - 1].hilog, &records[i].hilog) {
                (Some(a), Some(b)) => !a.same_prefix(b),
                _ => true,
            };
        if split {
            groups.push(start..i);
            start = i;
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_default_format() {
        let l = parse_line("01-23 21:01:50.181  6724  6724 I C0391c/AceFocus: [(100000:100000:scope)] view: page/2 show")
            .unwrap();
        assert_eq!(l.pid, Some(6724));
        assert_eq!(l.tid, Some(6724));
        assert_eq!(l.level, Level::Info);
        assert_eq!(l.log_type, Some(LogType::Core));
        assert_eq!(l.domain, 0x0391c);
        assert_eq!(l.tag, "AceFocus");
        assert_eq!(l.message, "[(100000:100000:scope)] view: page/2 show");
        assert_eq!(
            l.time,
            LineTime::Wall {
                year: None,
                month: 1,
                day: 23,
                hour: 21,
                minute: 1,
                second: 50,
                nanos: 181_000_000
            }
        );
        assert_eq!(l.domain_text(), "C0391c");
    }

    #[test]
    fn parses_year_zone_usec_and_old_domain_without_type() {
        let l = parse_line("CST 2026-01-23 21:01:50.181234   123 45678 E 03900/Ace: boom").unwrap();
        assert!(matches!(
            l.time,
            LineTime::Wall {
                year: Some(2026),
                nanos: 181_234_000,
                ..
            }
        ));
        assert_eq!(l.log_type, None);
        assert_eq!((l.pid, l.tid), (Some(123), Some(45678)));
        assert_eq!(l.message, "boom");
    }

    #[test]
    fn parses_epoch_and_monotonic() {
        let e = parse_line("1769173310.181  6724  6724 W A00000/testTag: x").unwrap();
        assert_eq!(
            e.time,
            LineTime::Epoch {
                secs: 1_769_173_310,
                nanos: 181_000_000
            }
        );
        let m = parse_line("   12345.000000001  1  1 D C00001/t: y").unwrap();
        assert_eq!(
            m.time,
            LineTime::Monotonic {
                secs: 12345,
                nanos: 1
            }
        );
    }

    #[test]
    fn parses_kmsg_without_pid_tid() {
        let k = parse_line("01-23 21:01:50.181 I K00000/kmsg: [  12.3] usb connected").unwrap();
        assert_eq!(k.pid, None);
        assert_eq!(k.log_type, Some(LogType::Kmsg));
        assert_eq!(k.tag, "kmsg");
        assert_eq!(k.message, "[  12.3] usb connected");
    }

    #[test]
    fn empty_message_and_colons_in_message() {
        let l = parse_line("01-23 21:01:52.839  6724  6724 E C01317/AppKit: Stacktrace:").unwrap();
        assert_eq!(l.message, "Stacktrace:");
        let e = parse_line("01-23 21:01:52.839  6724  6724 E C01317/AppKit:").unwrap();
        assert_eq!(e.message, "");
    }

    #[test]
    fn rejects_non_hilog_and_bad_fields() {
        for bad in [
            "",
            "Usage:",
            "  -x --exit",
            "13-23 21:01:50.181  1  1 I C0391c/T: m", // month 13
            "01-23 21:01:50.181  1  1 X C0391c/T: m", // level X
            "Timestamp:2026-01-25 02:22:22.183",
        ] {
            assert!(parse_line(bad).is_none(), "{bad:?}");
        }
        // A 3-digit domain is not hilog; the same shape is a logcat `threadtime` line whose tag
        // is `C039/T`, and is read as one.
        let l = parse_line("01-23 21:01:50.181  1  1 I C039/T: m").unwrap();
        assert!(l.logcat);
        assert_eq!((l.tag.as_str(), l.domain), ("C039/T", 0));
    }

    #[test]
    fn clean_line_strips_cr_and_color() {
        assert_eq!(clean_line("abc\r"), "abc");
        assert_eq!(clean_line("\x1B[38;5;196m01-23 x\x1B[0m"), "01-23 x");
    }

    #[test]
    fn parse_text_keeps_raw_lines_as_continuation() {
        let text = "header\r\n01-23 21:01:50.181  1  1 E A00000/t: first\r\n  wrapped\r\n01-23 21:01:50.182  1  1 I A00000/t: second\n";
        let recs = parse_text(text);
        assert_eq!(recs.len(), 3);
        assert!(recs[0].hilog.is_none());
        assert_eq!(recs[1].continuation, vec!["  wrapped".to_string()]);
        assert_eq!(recs[1].line_no, 2);
        assert_eq!(recs[2].line_no, 4);
        assert_eq!(
            recs[1].full_text(),
            "01-23 21:01:50.181  1  1 E A00000/t: first\n  wrapped"
        );
    }

    #[test]
    fn parse_text_without_trailing_newline_keeps_last_line() {
        let recs = parse_text("a\nb");
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[1].raw, "b");
    }

    #[test]
    fn groups_same_prefix() {
        let text = "01-23 21:01:52.839  1  1 E C01317/AppKit: a\n01-23 21:01:52.839  1  1 E C01317/AppKit: b\n01-23 21:01:52.840  1  1 E C01317/AppKit: c\n";
        let recs = parse_text(text);
        assert_eq!(group_multiline(&recs), vec![0..2, 2..3]);
        assert!(group_multiline(&[]).is_empty());
    }

    #[test]
    fn level_parsing_and_order() {
        assert_eq!(Level::parse_user("error"), Some(Level::Error));
        assert_eq!(Level::parse_user(" w "), Some(Level::Warn));
        assert_eq!(Level::parse_user("verbose"), None);
        assert!(Level::Fatal > Level::Error && Level::Error > Level::Warn);
    }
}
