//! From source texts to the candidates a query filters.
//!
//! Owns: splitting a source into physical lines (for context and snapshots) and records;
//! recognising a source that is a faultlogger file (its header becomes one crash candidate, its
//! `HiLog:` section is scanned as log lines); collapsing an AppKit crash block into one crash
//! candidate when asked; resolving every record's time against `now`.

use chrono::{DateTime, FixedOffset, NaiveDateTime};

use super::crash::{
    AppCrashMarker, CrashReport, find_android_crash_markers, find_app_crash_markers,
    looks_like_crash_file, parse_crash_file,
};
use super::hilog::{Level, LogRecord, LogType, clean_line, parse_text};
use super::result::CrashSummary;
use super::time::resolve_line_time;

/// A text to query and the label items report as their `source`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceText {
    pub label: String,
    pub text: String,
}

/// A source after parsing.
#[derive(Debug, Clone)]
pub struct Scanned {
    pub label: String,
    /// Cleaned physical lines of the whole text.
    pub lines: Vec<String>,
    /// Records of the log part (the whole text, or a crash file's `HiLog:` section).
    pub records: Vec<LogRecord>,
    /// Added to a record's `line_no` to get its line number in `lines`.
    pub line_offset: usize,
    /// Set when the source is a faultlogger file.
    pub crash_report: Option<CrashReport>,
    /// Physical lines of the crash file header (before `HiLog:`), 0 otherwise.
    pub header_lines: usize,
    pub app_markers: Vec<AppCrashMarker>,
}

/// Parses one source.
pub fn scan(source: &SourceText) -> Scanned {
    let lines: Vec<String> = source.text.lines().map(clean_line).collect();
    if looks_like_crash_file(&source.text) {
        let report = parse_crash_file(&source.text, None);
        // The log part starts after the `HiLog:` line; without one the file is all header.
        let hilog_at = lines.iter().position(|l| l.trim() == "HiLog:");
        let (records, offset, header_lines) = match hilog_at {
            Some(i) => (parse_text(&lines[i + 1..].join("\n")), i + 1, i + 1),
            None => (Vec::new(), lines.len(), lines.len()),
        };
        let app_markers = find_app_crash_markers(&records);
        return Scanned {
            label: source.label.clone(),
            lines,
            records,
            line_offset: offset,
            crash_report: Some(report),
            header_lines,
            app_markers,
        };
    }
    let records = parse_text(&source.text);
    let mut app_markers = find_app_crash_markers(&records);
    app_markers.extend(find_android_crash_markers(&records));
    app_markers.sort_by_key(|m| m.records.start);
    Scanned {
        label: source.label.clone(),
        lines,
        records,
        line_offset: 0,
        crash_report: None,
        header_lines: 0,
        app_markers,
    }
}

/// One thing a query can match: a log record, a collapsed crash block, or a crash file header.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Index of its [`Scanned`] source.
    pub source: usize,
    /// 1-based line in the source's `lines`.
    pub line_no: usize,
    /// Physical lines it spans.
    pub span: usize,
    pub time: Option<NaiveDateTime>,
    pub level: Option<Level>,
    pub tag: Option<String>,
    pub log_type: Option<LogType>,
    pub domain: Option<u32>,
    pub domain_text: Option<String>,
    pub pid: Option<u32>,
    pub message: String,
    /// Full text as printed.
    pub text: String,
    /// Lower-cased `text`, for case-insensitive matching.
    pub text_lc: String,
    pub crash: Option<CrashSummary>,
    /// False for a crash file header (not a log line; markers mode skips it).
    pub is_log_line: bool,
}

fn record_candidate(
    source: usize,
    offset: usize,
    rec: &LogRecord,
    now: &DateTime<FixedOffset>,
) -> Candidate {
    let text = rec.full_text();
    let (time, level, tag, log_type, domain, domain_text, pid, message) = match &rec.hilog {
        Some(h) => (
            resolve_line_time(&h.time, now),
            Some(h.level),
            Some(h.tag.clone()),
            h.log_type,
            (!h.logcat).then_some(h.domain),
            (!h.logcat).then(|| h.domain_text()),
            h.pid,
            h.message.clone(),
        ),
        None => (None, None, None, None, None, None, None, rec.raw.clone()),
    };
    Candidate {
        source,
        line_no: rec.line_no + offset,
        span: rec.line_span(),
        time,
        level,
        tag,
        log_type,
        domain,
        domain_text,
        pid,
        message,
        text_lc: text.to_lowercase(),
        text,
        crash: None,
        is_log_line: true,
    }
}

/// Candidates of all sources, in source order. With `collapse_crash_blocks`, each AppKit crash
/// block is one crash candidate instead of one candidate per line, and each crash file header
/// is one crash candidate.
pub fn candidates(
    scanned: &[Scanned],
    now: &DateTime<FixedOffset>,
    collapse_crash_blocks: bool,
) -> Vec<Candidate> {
    let mut out = Vec::new();
    for (si, s) in scanned.iter().enumerate() {
        if collapse_crash_blocks && let Some(r) = &s.crash_report {
            // The header as text, without the trailing blank line and `HiLog:` marker.
            let text = s.lines[..s.header_lines]
                .iter()
                .map(String::as_str)
                .filter(|l| l.trim() != "HiLog:")
                .collect::<Vec<_>>()
                .join("\n")
                .trim_end()
                .to_string();
            out.push(Candidate {
                source: si,
                line_no: 1,
                span: s.header_lines.max(1),
                time: r.time(),
                level: None,
                tag: None,
                log_type: None,
                domain: None,
                domain_text: None,
                pid: r.pid,
                message: crash_headline(r),
                text_lc: text.to_lowercase(),
                text,
                crash: Some(CrashSummary {
                    origin: "faultlogger_file".into(),
                    bundle: r.subject().map(str::to_string),
                    reason: r.reason.clone(),
                    error_name: r.error_name.clone(),
                    error_message: r.error_message.clone(),
                    stacktrace: if r.stacktrace.is_empty() {
                        r.fault_thread
                            .as_ref()
                            .map(|t| t.frames.iter().map(|f| f.raw.clone()).collect())
                            .unwrap_or_default()
                    } else {
                        r.stacktrace.clone()
                    },
                }),
                is_log_line: false,
            });
        }
        let mut i = 0;
        // Index just past the record that produced the last candidate of this source.
        let mut last_record_end: Option<usize> = None;
        let markers = if collapse_crash_blocks {
            &s.app_markers[..]
        } else {
            &[]
        };
        while i < s.records.len() {
            if let Some(m) = markers.iter().find(|m| m.records.start == i) {
                let recs = &s.records[m.records.clone()];
                // All lines of the block share one prefix: the first gives time, pid and tag.
                let mut c = record_candidate(si, s.line_offset, &recs[0], now);
                // The block's headline is the `is about to exit` line (logcat: the exception),
                // its text the whole block.
                c.message = match m.origin {
                    "appkit_hilog" => format!("{} is about to exit due to {}", m.bundle, m.cause),
                    _ => format!(
                        "{} in {}: {}",
                        m.cause,
                        m.bundle,
                        m.error_message
                            .as_deref()
                            .or(m.error_name.as_deref())
                            .unwrap_or("")
                    ),
                };
                c.text = recs
                    .iter()
                    .map(LogRecord::full_text)
                    .collect::<Vec<_>>()
                    .join("\n");
                c.text_lc = c.text.to_lowercase();
                c.span = recs.iter().map(LogRecord::line_span).sum();
                c.crash = Some(CrashSummary {
                    origin: m.origin.into(),
                    bundle: Some(m.bundle.clone()),
                    reason: Some(m.cause.clone()),
                    error_name: m.error_name.clone().or_else(|| m.error_type.clone()),
                    error_message: m.error_message.clone(),
                    stacktrace: m.stacktrace.clone(),
                });
                out.push(c);
                i = m.records.end;
                last_record_end = None;
                continue;
            }
            // A JS stack frame printed with the same prefix as the line before it is part of
            // that message (hilog splits a multi-line message into lines with one prefix).
            if collapse_crash_blocks
                && i > 0
                && last_record_end == Some(i)
                && is_stack_frame_of(&s.records[i - 1], &s.records[i])
                && let Some(last) = out.last_mut()
            {
                let rec = &s.records[i];
                last.text.push('\n');
                last.text.push_str(&rec.full_text());
                last.text_lc = last.text.to_lowercase();
                last.span += rec.line_span();
                i += 1;
                last_record_end = Some(i);
                continue;
            }
            out.push(record_candidate(si, s.line_offset, &s.records[i], now));
            i += 1;
            last_record_end = Some(i);
        }
    }
    out
}

/// True when `rec` is a `    at f (file:line:col)` line with the same prefix as `prev`.
fn is_stack_frame_of(prev: &LogRecord, rec: &LogRecord) -> bool {
    match (&prev.hilog, &rec.hilog) {
        (Some(p), Some(r)) => {
            p.same_prefix(r)
                && r.message.starts_with(char::is_whitespace)
                && r.message.trim_start().starts_with("at ")
        }
        _ => false,
    }
}

/// `jscrash com.x: TypeError: Cannot read property …` style one-line summary of a crash file.
fn crash_headline(r: &CrashReport) -> String {
    let kind = serde_json::to_value(r.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let mut parts = vec![format!("{kind} {}", r.subject().unwrap_or("?"))];
    if let Some(reason) = &r.reason {
        parts.push(reason.clone());
    }
    if let Some(msg) = &r.error_message {
        parts.push(msg.lines().next().unwrap_or_default().to_string());
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339("2026-01-23T21:05:00+08:00").unwrap()
    }

    const BLOCK: &str = "\
01-23 21:01:52.800  6724  6724 I C03900/Ace: before
01-23 21:01:52.839  6724  6724 E C01317/AppKit: com.x.y is about to exit due to RuntimeError
01-23 21:01:52.839  6724  6724 E C01317/AppKit: Error name:TypeError
01-23 21:01:52.839  6724  6724 E C01317/AppKit: Error message:boom
01-23 21:01:52.850  6724  6724 I C03900/Ace: after
";

    #[test]
    fn collapses_crash_blocks_only_when_asked() {
        let s = vec![scan(&SourceText {
            label: "inline".into(),
            text: BLOCK.into(),
        })];
        let collapsed = candidates(&s, &now(), true);
        assert_eq!(collapsed.len(), 3);
        let crash = &collapsed[1];
        assert_eq!(crash.line_no, 2);
        assert_eq!(crash.span, 3);
        assert_eq!(
            crash.message,
            "com.x.y is about to exit due to RuntimeError"
        );
        assert_eq!(
            crash.crash.as_ref().unwrap().error_name.as_deref(),
            Some("TypeError")
        );
        assert_eq!(crash.time.unwrap().to_string(), "2026-01-23 21:01:52.839");
        assert_eq!(collapsed[2].line_no, 5);
        assert_eq!(candidates(&s, &now(), false).len(), 5);
    }

    #[test]
    fn stack_frames_join_the_line_before_them() {
        let text = "\
01-23 21:01:52.832  1  1 E C03f00/ArkCompiler: TypeError: boom
01-23 21:01:52.832  1  1 E C03f00/ArkCompiler:     at f entry (a.ets:1:1)
01-23 21:01:52.832  1  1 E C03f00/ArkCompiler:     at g entry (a.ets:2:2)
01-23 21:01:52.833  1  1 E C03f00/ArkCompiler:     at h entry (a.ets:3:3)
";
        let s = vec![scan(&SourceText {
            label: "t".into(),
            text: text.into(),
        })];
        let c = candidates(&s, &now(), true);
        // The third frame has another millisecond: a separate message.
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].span, 3);
        assert!(c[0].text.ends_with("at g entry (a.ets:2:2)"));
        assert_eq!(c[0].message, "TypeError: boom");
        assert_eq!(candidates(&s, &now(), false).len(), 4);
    }

    #[test]
    fn crash_file_source_has_header_candidate_and_offset_lines() {
        let text = "Module name:com.x\nPid:7\nReason:TypeError\nError name:TypeError\nError message:bad\nStacktrace:\n    at f (a:1:1)\n\nHiLog:\n01-23 21:01:52.800  7  7 E A00000/biz: late\n";
        let s = vec![scan(&SourceText {
            label: "f".into(),
            text: text.into(),
        })];
        assert!(s[0].crash_report.is_some());
        assert_eq!(s[0].header_lines, 9);
        let c = candidates(&s, &now(), true);
        assert_eq!(c.len(), 2);
        assert!(!c[0].is_log_line);
        assert_eq!(c[0].message, "jscrash com.x: TypeError: bad");
        assert_eq!(c[1].line_no, 10);
        assert_eq!(
            s[0].lines[c[1].line_no - 1],
            "01-23 21:01:52.800  7  7 E A00000/biz: late"
        );
        assert_eq!(candidates(&s, &now(), false).len(), 1);
    }
}
