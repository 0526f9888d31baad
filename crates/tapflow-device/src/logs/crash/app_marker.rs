//! Crash blocks printed into the log itself: AppKit's `<bundle> is about to exit due to …` block
//! in hilog, and Android's `FATAL EXCEPTION` / `ANR in` blocks in logcat.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;
use schemars::JsonSchema;
use serde::Serialize;

use super::non_empty;
use crate::logs::hilog::{LogRecord, group_multiline};

/// An app's JS crash as AppKit prints it to hilog:
/// `<bundle> is about to exit due to RuntimeError`, then `Error type:`, `Error name:`,
/// `Error message:`, `Stacktrace:` and `    at …` lines, all with the same prefix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct AppCrashMarker {
    pub bundle: String,
    /// `RuntimeError`, …
    pub cause: String,
    pub error_type: Option<String>,
    pub error_name: Option<String>,
    pub error_message: Option<String>,
    pub stacktrace: Vec<String>,
    pub pid: Option<u32>,
    /// 1-based line of the `is about to exit` line in its text.
    pub line_no: usize,
    /// Records (indices into the slice given to [`find_app_crash_markers`]) the block spans.
    #[serde(skip)]
    pub records: Range<usize>,
    /// Where the block comes from: `appkit_hilog`, `logcat_androidruntime` or `logcat_anr`.
    #[serde(skip)]
    pub origin: &'static str,
}

fn exit_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^(\S+) is about to exit due to (.+)$").expect("static exit regex")
    })
}

/// Finds AppKit crash blocks in parsed records.
pub fn find_app_crash_markers(records: &[LogRecord]) -> Vec<AppCrashMarker> {
    let mut out = Vec::new();
    for group in group_multiline(records) {
        let Some(start) = group.clone().find(|&i| {
            records[i]
                .hilog
                .as_ref()
                .is_some_and(|h| h.tag == "AppKit" && exit_regex().is_match(h.message.trim()))
        }) else {
            continue;
        };
        let head = records[start].hilog.as_ref().expect("checked above");
        let caps = exit_regex()
            .captures(head.message.trim())
            .expect("checked above");
        let mut m = AppCrashMarker {
            bundle: caps[1].to_string(),
            cause: caps[2].trim().to_string(),
            error_type: None,
            error_name: None,
            error_message: None,
            stacktrace: Vec::new(),
            pid: head.pid,
            line_no: records[start].line_no,
            records: group.clone(),
            origin: "appkit_hilog",
        };
        let mut in_stack = false;
        for rec in &records[start + 1..group.end] {
            let Some(h) = rec.hilog.as_ref() else {
                continue;
            };
            let msg = h.message.trim();
            if in_stack {
                if !msg.is_empty() {
                    m.stacktrace.push(msg.to_string());
                }
            } else if let Some(v) = msg.strip_prefix("Error type:") {
                m.error_type = non_empty(v);
            } else if let Some(v) = msg.strip_prefix("Error name:") {
                m.error_name = non_empty(v);
            } else if let Some(v) = msg.strip_prefix("Error message:") {
                m.error_message = non_empty(v);
            } else if msg == "Stacktrace:" {
                in_stack = true;
            }
        }
        out.push(m);
    }
    out
}

/// Finds Android crash blocks in parsed logcat records: `AndroidRuntime: FATAL EXCEPTION: <thread>`
/// followed by the same process's `AndroidRuntime` lines (`Process: <pkg>, PID: <n>`, the
/// exception, `\tat …` frames, `Caused by: …`), and `ActivityManager: ANR in <pkg>` followed by
/// the same thread's lines (`PID:`, `Reason:`). Each block is the contiguous run of such
/// records (the crash buffer prints them together); `cause` is `FATAL EXCEPTION` or `ANR`.
pub fn find_android_crash_markers(records: &[LogRecord]) -> Vec<AppCrashMarker> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < records.len() {
        let Some(h) = records[i].hilog.as_ref().filter(|h| h.logcat) else {
            i += 1;
            continue;
        };
        let java = h.tag == "AndroidRuntime" && h.message.starts_with("FATAL EXCEPTION");
        let anr = h.tag == "ActivityManager" && h.message.starts_with("ANR in ");
        if !java && !anr {
            i += 1;
            continue;
        }
        let (pid, tid, tag) = (h.pid, h.tid, h.tag.clone());
        let mut end = i + 1;
        while end < records.len() {
            let Some(n) = records[end].hilog.as_ref() else {
                break;
            };
            let same = n.pid == pid
                && n.tag == tag
                && (java && !n.message.starts_with("FATAL EXCEPTION") || anr && n.tid == tid);
            if !same {
                break;
            }
            end += 1;
        }
        let lines: Vec<&str> = records[i..end]
            .iter()
            .filter_map(|r| r.hilog.as_ref())
            .flat_map(|h| h.message.lines())
            .collect();
        let mut m = AppCrashMarker {
            bundle: String::new(),
            cause: if java { "FATAL EXCEPTION" } else { "ANR" }.into(),
            error_type: None,
            error_name: None,
            error_message: None,
            stacktrace: Vec::new(),
            pid,
            line_no: records[i].line_no,
            records: i..end,
            origin: if java {
                "logcat_androidruntime"
            } else {
                "logcat_anr"
            },
        };
        if anr {
            m.bundle = h.message["ANR in ".len()..]
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_string();
        }
        for l in &lines[1..] {
            let t = l.trim();
            if let Some(rest) = t.strip_prefix("Process: ") {
                let (name, p) = rest.split_once(", PID: ").unwrap_or((rest, ""));
                m.bundle = name.trim().to_string();
                if let Ok(p) = p.trim().parse() {
                    m.pid = Some(p);
                }
            } else if let Some(p) = t.strip_prefix("PID: ") {
                m.pid = p.trim().parse().ok().or(m.pid);
            } else if let Some(r) = t.strip_prefix("Reason: ") {
                m.error_message = non_empty(r);
            } else if t.starts_with("at ") || t.starts_with("Caused by: ") || t.starts_with("... ")
            {
                m.stacktrace.push(t.to_string());
            } else if java && m.error_name.is_none() && !t.is_empty() {
                // `java.lang.RuntimeException: message`
                match t.split_once(": ") {
                    Some((name, msg)) => {
                        m.error_name = non_empty(name);
                        m.error_message = non_empty(msg);
                    }
                    None => m.error_name = non_empty(t),
                }
            }
        }
        out.push(m);
        i = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::hilog::parse_text;

    #[test]
    fn app_crash_marker_in_synthetic_hilog() {
        let text = "\
01-23 21:01:52.839  6724  6724 E C01317/AppKit: [MAINTHD2051]
01-23 21:01:52.839  6724  6724 E C01317/AppKit: com.x.y is about to exit due to RuntimeError
01-23 21:01:52.839  6724  6724 E C01317/AppKit: Error type:TypeError
01-23 21:01:52.839  6724  6724 E C01317/AppKit: Error name:TypeError
01-23 21:01:52.839  6724  6724 E C01317/AppKit: Error message:boom
01-23 21:01:52.839  6724  6724 E C01317/AppKit: Stacktrace:
01-23 21:01:52.839  6724  6724 E C01317/AppKit:     at f (a.ets:1:1)
01-23 21:01:52.840  6724  6724 W C01317/AppKit: after
";
        let recs = parse_text(text);
        let m = find_app_crash_markers(&recs);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].bundle, "com.x.y");
        assert_eq!(m[0].cause, "RuntimeError");
        assert_eq!(m[0].error_message.as_deref(), Some("boom"));
        assert_eq!(m[0].stacktrace, vec!["at f (a.ets:1:1)".to_string()]);
        assert_eq!(m[0].records, 0..7);
        assert_eq!(m[0].line_no, 2);
    }
}
