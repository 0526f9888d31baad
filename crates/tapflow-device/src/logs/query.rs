//! The `logs_query` engine: sources, filters, modes, grouping, context, snapshot, crash info.
//!
//! [`execute`] validates the parameters, picks the source (inline `logs` > `input_file(s)` >
//! device), runs [`analyze`] (a pure function of texts, the query and `now`), and then attaches
//! what needs side effects: the `save_path` snapshot and, with `include_crash`, the faultlogger
//! files through [`LogCapture`]. The rules are documented in `docs/logs.md`.

mod analysis;
mod crash_info;
mod device;

use std::path::PathBuf;

use crate::hostfs::PathPolicy;

use chrono::{DateTime, FixedOffset};

use super::error::{INVALID_PARAM, LogsError};
use super::files::{prepare_snapshot, read_text, write_snapshot};
use super::hilog::Level;
use super::params::{LogsQueryParams, QueryMode};
use super::result::{AppliedWindow, FiltersApplied, LogsQueryResult};
use super::scan::SourceText;
use super::source::LogCapture;
use analysis::fmt_time;
use crash_info::crash_info;
use device::device_query;

pub use analysis::{Analysis, analyze};
pub use device::device_filter;

/// Default per-file (and inline total) size limit: 64 MiB. hilog's default buffer is a few MiB
/// and a faultlogger file rarely exceeds 1 MiB; anything larger is almost certainly the wrong
/// file, and every line is held in memory.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Most faultlogger files read for `include_crash`.
pub const DEFAULT_MAX_CRASH_REPORTS: usize = 5;

/// Everything a query needs from its surroundings, passed in (never read from the process).
#[derive(Debug, Clone)]
pub struct QueryEnv {
    /// The device's current local time with its UTC offset.
    pub now: DateTime<FixedOffset>,
    /// The host-path policy `input_file(s)` and `save_path` go through (relative paths resolve
    /// against its base, the project directory).
    pub paths: PathPolicy,
    pub max_file_bytes: u64,
    pub max_crash_reports: usize,
}

impl QueryEnv {
    /// `base_dir` as the base and the only allowed root, default limits.
    pub fn new(now: DateTime<FixedOffset>, base_dir: PathBuf) -> Self {
        QueryEnv {
            now,
            paths: PathPolicy::new(base_dir.clone(), [base_dir]),
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            max_crash_reports: DEFAULT_MAX_CRASH_REPORTS,
        }
    }
}

/// Runs `logs_query`.
pub fn execute(
    params: &LogsQueryParams,
    env: &QueryEnv,
    source: &dyn LogCapture,
) -> Result<LogsQueryResult, LogsError> {
    let q = params.validate(&env.now)?;
    // Refuse a bad save_path before any work (and before touching the device).
    let save_target = match &params.save_path {
        Some(p) => Some(prepare_snapshot(&env.paths, p)?),
        None => None,
    };
    let mut attempted: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut device_command = None;

    let (source_used, texts, analysis) = if let Some(logs) = &params.logs {
        attempted.push("inline".into());
        if logs.is_empty() {
            return Err(LogsError::invalid_param(
                "logs",
                "logs is empty; omit it to read files or the device",
            ));
        }
        let total: u64 = logs.iter().map(|l| l.len() as u64 + 1).sum();
        if total > env.max_file_bytes {
            return Err(LogsError::invalid_param(
                "logs",
                format!(
                    "inline logs are {total} bytes; the limit is {} bytes",
                    env.max_file_bytes
                ),
            ));
        }
        let texts = vec![SourceText {
            label: "inline".into(),
            text: logs.join("\n"),
        }];
        let a = analyze(&q, &texts, &env.now);
        ("inline".to_string(), texts, a)
    } else if params.input_file.is_some() || params.input_files.is_some() {
        attempted.push("file".into());
        let mut files: Vec<(&str, &String)> = Vec::new();
        if let Some(f) = &params.input_file {
            files.push(("input_file", f));
        }
        for f in params.input_files.iter().flatten() {
            files.push(("input_files", f));
        }
        if files.is_empty() {
            return Err(LogsError::new(INVALID_PARAM, "input_files is empty")
                .with_details(serde_json::json!({ "param": "input_files" })));
        }
        let mut texts = Vec::new();
        let mut total = 0u64;
        for (param, f) in files {
            let text = read_text(&env.paths, param, f, env.max_file_bytes)?;
            total += text.len() as u64;
            if total > env.max_file_bytes {
                return Err(LogsError::new(
                    super::error::FILE_TOO_LARGE,
                    format!("input files total more than {} bytes", env.max_file_bytes),
                )
                .with_details(
                    serde_json::json!({ "param": param, "max_bytes": env.max_file_bytes }),
                ));
            }
            texts.push(SourceText {
                label: f.clone(),
                text,
            });
        }
        let a = analyze(&q, &texts, &env.now);
        ("file".to_string(), texts, a)
    } else {
        let filter = device_filter(&q);
        device_command = Some(filter.to_hilog_command());
        device_query(&q, env, source, &filter, &mut attempted, &mut notes)?
    };

    let saved_path = match save_target {
        Some(target) => {
            let mut snapshot = texts
                .iter()
                .map(|t| t.text.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            if !snapshot.is_empty() && !snapshot.ends_with('\n') {
                snapshot.push('\n');
            }
            Some(write_snapshot(&target, &snapshot)?.display().to_string())
        }
        None => None,
    };

    let crash_info = params
        .include_crash
        .then(|| crash_info(&q, env, source, &source_used, &analysis));

    notes.extend(analysis.notes.iter().cloned());
    let filters_applied = FiltersApplied {
        level: match (q.level, q.mode) {
            (Some(l), _) => Some(l),
            (None, QueryMode::Errors) => Some(Level::Error),
            (None, QueryMode::Markers) => None,
        },
        level_rule: match (q.level, q.mode) {
            (Some(_), _) => "strict minimum level".into(),
            (None, QueryMode::Errors) => {
                "level E or above, plus crash and exception text at any level (and error words in non-hilog lines)".into()
            }
            (None, QueryMode::Markers) => "all levels".into(),
        },
        tag: q.tag.clone(),
        tag_search: params.tag_search.as_ref().map(|s| s.trim().to_string()),
        keyword: params.keyword.as_ref().map(|s| s.trim().to_string()),
        domain: q.domain.map(|d| match d.log_type {
            Some(t) => format!("{}{:05x}", t.letter(), d.domain),
            None => format!("0x{:05x}", d.domain),
        }),
        pid: q.pid,
        package_name: q.package_name.clone(),
        package_pids: analysis.package_pids.clone(),
        time_window: (!q.window.is_unbounded()).then(|| AppliedWindow {
            start: fmt_time(q.window.start),
            end: fmt_time(q.window.end),
            from: q.window_from.iter().map(|s| s.to_string()).collect(),
        }),
        lines: q.lines,
        context_lines: q.context_lines,
        marker_keywords: (q.mode == QueryMode::Markers).then(|| q.markers.iter().map(|m| m.keyword.clone()).collect()),
        device_command,
    };
    Ok(LogsQueryResult {
        query_mode: q.mode.as_str().to_string(),
        source_attempted: attempted,
        source_used: Some(source_used),
        matched: !analysis.items.is_empty(),
        match_count: analysis.match_count,
        group_count: analysis.group_count,
        truncated: analysis.items.len() < analysis.group_count,
        items: analysis.items,
        filters_applied,
        saved_path,
        crash_info,
        lines_scanned: analysis.lines_scanned,
        markers: analysis.markers,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::analysis::{context, error_kind};
    use super::*;
    use crate::logs::classify::ItemKind;
    use crate::logs::params::{LogsQueryParams, ValidatedQuery};
    use crate::logs::scan::{Candidate, Scanned, candidates, scan};
    use crate::logs::source::DeviceLogFilter;
    use serde_json::json;

    fn now() -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339("2026-01-23T21:05:00+08:00").unwrap()
    }

    fn query(v: serde_json::Value) -> ValidatedQuery {
        LogsQueryParams::from_value(v)
            .unwrap()
            .validate(&now())
            .unwrap()
    }

    fn cands(text: &str) -> (Vec<Scanned>, Vec<Candidate>) {
        let s = vec![scan(&SourceText {
            label: "t".into(),
            text: text.into(),
        })];
        let c = candidates(&s, &now(), true);
        (s, c)
    }

    #[test]
    fn error_kind_matrix() {
        let (_, c) = cands(concat!(
            "01-23 21:00:00.000  1  1 E A00000/t: plain error\n",
            "01-23 21:00:00.000  1  1 W A00000/t: Kill Reason:Js Error\n",
            "01-23 21:00:00.000  1  1 I A00000/t: TypeError: x is undefined\n",
            "01-23 21:00:00.000  1  1 I A00000/t: all fine\n",
            "ERROR: plain text\n",
        ));
        // The plain-text line follows a hilog record: it is continuation, not its own candidate.
        assert_eq!(c.len(), 4);
        assert_eq!(error_kind(&c[0], None), Some(ItemKind::Error));
        assert_eq!(error_kind(&c[1], None), Some(ItemKind::Crash));
        assert_eq!(error_kind(&c[2], None), Some(ItemKind::Exception));
        assert_eq!(error_kind(&c[3], None), None);
        assert_eq!(error_kind(&c[1], Some(Level::Error)), None);
        assert_eq!(error_kind(&c[3], Some(Level::Info)), Some(ItemKind::Error));
        let (_, raw) = cands("ERROR: plain text\nnothing here\n");
        assert_eq!(error_kind(&raw[0], None), Some(ItemKind::Error));
        assert_eq!(error_kind(&raw[1], None), None);
        assert_eq!(
            error_kind(&raw[0], Some(Level::Debug)),
            None,
            "no level: excluded by an explicit level"
        );
    }

    #[test]
    fn context_is_clamped_to_the_source() {
        let (s, c) = cands("a\nb\nc\nd\n");
        assert_eq!(
            context(&s[0], &c[0], 2),
            (vec![], vec!["b".to_string(), "c".to_string()])
        );
        assert_eq!(
            context(&s[0], &c[3], 9),
            (vec!["a".into(), "b".into(), "c".into()], vec![])
        );
        assert_eq!(context(&s[0], &c[1], 0), (vec![], vec![]));
    }

    #[test]
    fn device_filter_push_down_rules() {
        let q = query(json!({"level": "W", "tag": "T", "pid": 5, "domain": "C03900"}));
        let f = device_filter(&q);
        assert_eq!(f.min_level, Some(Level::Warn));
        assert_eq!(f.domain.as_deref(), Some("0x3900"));
        assert_eq!(
            device_filter(&query(json!({"level": "W", "package_name": "a.b"}))),
            DeviceLogFilter::default()
        );
        assert_eq!(device_filter(&query(json!({}))), DeviceLogFilter::default());
    }

    #[test]
    fn analyze_is_pure_and_reports_signatures() {
        let q = query(json!({}));
        let texts = vec![SourceText {
            label: "x".into(),
            text: "01-23 21:00:00.000  1  1 E A00000/t: fd 3 bad\n01-23 21:00:01.000  1  1 E A00000/t: fd 4 bad\n".into(),
        }];
        let a = analyze(&q, &texts, &now());
        let b = analyze(&q, &texts, &now());
        assert_eq!(a.items, b.items);
        assert_eq!(a.items[0].signature, "error|t|fd <n> bad");
        assert_eq!(a.items[0].count, 2);
        assert_eq!(a.lines_scanned, 2);
    }
}
