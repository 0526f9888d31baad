//! logcat text (`-v threadtime`) → typed lines, and app failures found in it: Java crashes
//! (`AndroidRuntime: FATAL EXCEPTION` blocks), native crashes (`libc: Fatal signal`) and ANRs
//! (`ActivityManager: ANR in`).
//!
//! Line layout: `MM-DD HH:MM:SS.mmm  PID  TID L TAG     : message`. The tag is matched lazily up
//! to the first `: ` because tags are padded (`netd    :`), may start with `.`
//! (`.apps.wellbeing:`), may be empty (`I         : Booting Linux…`), and messages contain `: `.
//! Buffer switches print `--------- beginning of main|system|crash|events`. A multi-line log
//! call repeats the prefix on every line (stack traces: `\tat …`, `Caused by: …`, `... 29
//! more`). Nothing here reads a clock: a line's time stays as printed (no year).

use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;

/// One `threadtime` line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogcatLine {
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub millis: u32,
    pub pid: u32,
    pub tid: u32,
    /// `V D I W E F` (and `A`/`S` on some builds).
    pub level: char,
    pub tag: String,
    pub message: String,
}

impl LogcatLine {
    /// `MM-DD HH:MM:SS.mmm` as printed (logcat's `-T` takes this form back).
    pub fn time_text(&self) -> String {
        format!(
            "{:02}-{:02} {:02}:{:02}:{:02}.{:03}",
            self.month, self.day, self.hour, self.minute, self.second, self.millis
        )
    }
}

fn line_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(concat!(
            r"^(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3})\s+(\d+)\s+(\d+) ",
            r"([VDIWEFAS]) (.*?)\s*:(?: (.*))?$"
        ))
        .expect("static logcat regex")
    })
}

/// Parses one line (`\r` tolerated); `None` when it is not a `threadtime` line.
pub fn parse_line(line: &str) -> Option<LogcatLine> {
    let line = line.trim_end_matches(['\r', '\n']);
    let c = line_regex().captures(line)?;
    let num = |i: usize| c.get(i)?.as_str().parse::<u32>().ok();
    let (month, day, hour, minute, second) = (num(1)?, num(2)?, num(3)?, num(4)?, num(5)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    Some(LogcatLine {
        month,
        day,
        hour,
        minute,
        second,
        millis: num(6)?,
        pid: num(7)?,
        tid: num(8)?,
        level: c[9].chars().next()?,
        tag: c[10].to_string(),
        message: c
            .get(11)
            .map(|m| m.as_str().to_string())
            .unwrap_or_default(),
    })
}

/// One line of a logcat text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Line(LogcatLine),
    /// `--------- beginning of <buffer>`.
    BufferStart(String),
    /// Anything else (kept, never dropped).
    Other(String),
}

pub fn parse_entry(line: &str) -> Entry {
    let t = line.trim_end_matches(['\r', '\n']);
    if let Some(b) = t.strip_prefix("--------- beginning of ") {
        return Entry::BufferStart(b.trim().to_string());
    }
    match parse_line(t) {
        Some(l) => Entry::Line(l),
        None => Entry::Other(t.to_string()),
    }
}

pub fn parse_text(text: &str) -> Vec<Entry> {
    text.lines().map(parse_entry).collect()
}

/// What kind of failure a [`Crash`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CrashKind {
    /// An uncaught Java/Kotlin exception (`AndroidRuntime: FATAL EXCEPTION`).
    Java,
    /// A native signal (`libc: Fatal signal N (SIG…)`).
    Native,
    /// Application Not Responding (`ActivityManager: ANR in <pkg>`).
    Anr,
}

/// One app failure found in a logcat text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Crash {
    pub kind: CrashKind,
    /// The process (package) that failed, as the log names it.
    pub process: Option<String>,
    pub pid: Option<u32>,
    /// The exception line (`java.lang.RuntimeException: …`), the signal, or the ANR reason.
    pub summary: Option<String>,
    /// 1-based number of the block's first line in the text.
    pub line_no: usize,
    /// Time of the first line, as printed.
    pub time: String,
    /// The block's lines, verbatim (messages only, prefixes stripped).
    pub lines: Vec<String>,
}

/// Every crash block in `text`, in order.
pub fn find_crashes(text: &str) -> Vec<Crash> {
    let entries: Vec<(usize, LogcatLine)> = text
        .lines()
        .enumerate()
        .filter_map(|(i, l)| parse_line(l).map(|p| (i + 1, p)))
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < entries.len() {
        let (no, l) = &entries[i];
        if l.tag == "AndroidRuntime" && l.message.starts_with("FATAL EXCEPTION") {
            let (crash, next) = java_block(&entries, i, *no);
            out.push(crash);
            i = next;
            continue;
        }
        if l.tag == "libc" && l.message.starts_with("Fatal signal") {
            out.push(native(l, *no));
        } else if l.tag == "ActivityManager" && l.message.starts_with("ANR in ") {
            out.push(anr(&entries, i, *no));
        }
        i += 1;
    }
    out
}

/// The `FATAL EXCEPTION` block: the same pid's `AndroidRuntime` lines after it (other
/// processes' lines may interleave), up to that pid's first line with another tag or the next
/// `FATAL EXCEPTION`.
fn java_block(entries: &[(usize, LogcatLine)], start: usize, no: usize) -> (Crash, usize) {
    let first = &entries[start].1;
    let mut lines = vec![first.message.clone()];
    let mut process = None;
    let mut pid = Some(first.pid);
    let mut summary = None;
    let mut j = start + 1;
    let mut last_in_block = start;
    while j < entries.len() {
        let l = &entries[j].1;
        if l.pid != first.pid {
            j += 1;
            continue;
        }
        if l.tag != "AndroidRuntime" || l.message.starts_with("FATAL EXCEPTION") {
            break;
        }
        if let Some(rest) = l.message.strip_prefix("Process: ") {
            // `Process: com.x, PID: 5572`
            let (name, p) = rest.split_once(", PID: ").unwrap_or((rest, ""));
            process = Some(name.trim().to_string());
            if let Ok(p) = p.trim().parse() {
                pid = Some(p);
            }
        } else if summary.is_none()
            && !l.message.starts_with('\t')
            && !l.message.trim_start().starts_with("at ")
        {
            summary = Some(l.message.clone());
        }
        lines.push(l.message.clone());
        last_in_block = j;
        j += 1;
    }
    (
        Crash {
            kind: CrashKind::Java,
            process,
            pid,
            summary,
            line_no: no,
            time: first.time_text(),
            lines,
        },
        last_in_block + 1,
    )
}

fn native(l: &LogcatLine, no: usize) -> Crash {
    // `Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0 in tid 1234 (RenderThread), pid 1234 (com.x)`
    let (pid, process) = match l.message.rsplit_once(", pid ") {
        Some((_, rest)) => {
            let (p, name) = rest.split_once(' ').unwrap_or((rest, ""));
            (
                p.parse().ok(),
                Some(
                    name.trim()
                        .trim_start_matches('(')
                        .trim_end_matches(')')
                        .to_string(),
                )
                .filter(|n| !n.is_empty()),
            )
        }
        None => (Some(l.pid), None),
    };
    Crash {
        kind: CrashKind::Native,
        process,
        pid,
        summary: Some(l.message.clone()),
        line_no: no,
        time: l.time_text(),
        lines: vec![l.message.clone()],
    }
}

/// `ANR in com.x (com.x/.Main)` then the same thread's `PID:`, `Reason:`, … lines.
fn anr(entries: &[(usize, LogcatLine)], start: usize, no: usize) -> Crash {
    let first = &entries[start].1;
    let name = first.message["ANR in ".len()..]
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_string();
    let mut lines = vec![first.message.clone()];
    let mut pid = None;
    let mut summary = None;
    for (_, l) in entries[start + 1..].iter() {
        if l.pid != first.pid || l.tid != first.tid || l.tag != first.tag {
            break;
        }
        if let Some(p) = l.message.strip_prefix("PID: ") {
            pid = p.trim().parse().ok();
        }
        if let Some(r) = l.message.strip_prefix("Reason: ") {
            summary = Some(r.to_string());
        }
        lines.push(l.message.clone());
    }
    Crash {
        kind: CrashKind::Anr,
        process: Some(name).filter(|n| !n.is_empty()),
        pid,
        summary,
        line_no: no,
        time: first.time_text(),
        lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_padded_empty_dotted_and_colons_in_messages() {
        let l = parse_line("02-23 10:03:26.249   615   658 I ActivityTaskManager: Displayed com.nku.app/androidx.activity.ComponentActivity for user 0: +310ms").unwrap();
        assert_eq!((l.pid, l.tid, l.level), (615, 658, 'I'));
        assert_eq!(l.tag, "ActivityTaskManager");
        assert!(l.message.ends_with("for user 0: +310ms"));
        assert_eq!(l.time_text(), "02-23 10:03:26.249");
        let l = parse_line("02-23 10:03:26.249   615   658 D netd    : a: b").unwrap();
        assert_eq!((l.tag.as_str(), l.message.as_str()), ("netd", "a: b"));
        let l = parse_line("02-23 10:03:26.249     0     0 I         : Booting Linux").unwrap();
        assert_eq!((l.tag.as_str(), l.message.as_str()), ("", "Booting Linux"));
        let l = parse_line("02-23 10:03:26.249  1234  1250 W .apps.wellbeing: x").unwrap();
        assert_eq!(l.tag, ".apps.wellbeing");
        let l = parse_line("02-23 10:03:26.249  1234  1250 E DemoApp:").unwrap();
        assert_eq!(l.message, "");
        assert!(parse_line("--------- beginning of main").is_none());
        assert_eq!(
            parse_entry("--------- beginning of crash"),
            Entry::BufferStart("crash".into())
        );
        assert!(parse_line("13-40 10:03:26.249  1 1 I x: y").is_none());
    }

    #[test]
    fn anr_and_native() {
        let text = "12-02 10:00:00.000   500   520 E ActivityManager: ANR in com.x (com.x/.Main)\n12-02 10:00:00.000   500   520 E ActivityManager: PID: 4242\n12-02 10:00:00.000   500   520 E ActivityManager: Reason: Input dispatching timed out\n12-02 10:00:01.000  4300  4310 F libc    : Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0 in tid 4310 (RenderThread), pid 4300 (com.y)\n";
        let c = find_crashes(text);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].kind, CrashKind::Anr);
        assert_eq!(c[0].process.as_deref(), Some("com.x"));
        assert_eq!(c[0].pid, Some(4242));
        assert_eq!(c[0].summary.as_deref(), Some("Input dispatching timed out"));
        assert_eq!(c[1].kind, CrashKind::Native);
        assert_eq!(c[1].process.as_deref(), Some("com.y"));
        assert_eq!(c[1].pid, Some(4300));
    }
}
