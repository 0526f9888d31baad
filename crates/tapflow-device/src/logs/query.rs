//! The `logs_query` engine: sources, filters, modes, grouping, context, snapshot, crash info.
//!
//! [`execute`] validates the parameters, picks the source (inline `logs` > `input_file(s)` >
//! device), runs [`analyze`] (a pure function of texts, the query and `now`), and then attaches
//! what needs side effects: the `save_path` snapshot and, with `include_crash`, the faultlogger
//! files through [`LogCapture`]. The rules are documented in `docs/logs.md`.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use crate::hostfs::PathPolicy;

use chrono::{DateTime, FixedOffset, NaiveDateTime};

use super::classify::{
    ItemKind, is_crash_text, is_exception_text, is_generic_error_text, normalize_message,
};
use super::crash::{AppCrashMarker, CrashReport, parse_crash_file, parse_crash_file_name};
use super::error::{INVALID_PARAM, LogsError};
use super::files::{prepare_snapshot, read_text, write_snapshot};
use super::hilog::Level;
use super::package::{attribute_pids, is_relevant};
use super::params::{LogsQueryParams, QueryMode, ValidatedQuery};
use super::result::{
    AppliedWindow, CrashInfo, FiltersApplied, LogItem, LogsQueryResult, MarkerStatus,
};
use super::scan::{Candidate, Scanned, SourceText, candidates, scan};
use super::source::{CaptureError, DeviceLogFilter, LogCapture};

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

const TIME_FMT: &str = "%Y-%m-%d %H:%M:%S%.3f";

fn fmt_time(t: Option<NaiveDateTime>) -> Option<String> {
    t.map(|t| t.format(TIME_FMT).to_string())
}

/// What [`analyze`] found in a set of texts.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub items: Vec<LogItem>,
    pub match_count: usize,
    pub group_count: usize,
    pub lines_scanned: usize,
    pub markers: Option<Vec<MarkerStatus>>,
    pub package_pids: Option<Vec<u32>>,
    pub app_markers: Vec<AppCrashMarker>,
    pub input_reports: Vec<CrashReport>,
    pub notes: Vec<String>,
}

/// The errors-mode decision for one candidate (see `docs/logs.md`, "What counts as an error").
fn error_kind(c: &Candidate, explicit: Option<Level>) -> Option<ItemKind> {
    if c.crash.is_some() {
        // A crash block or crash file is fatal by nature, whatever the level floor.
        return Some(ItemKind::Crash);
    }
    let by_text = || {
        if is_crash_text(&c.text) {
            Some(ItemKind::Crash)
        } else if is_exception_text(&c.message) {
            Some(ItemKind::Exception)
        } else {
            None
        }
    };
    match (explicit, c.level) {
        (Some(min), Some(l)) if l >= min => Some(by_text().unwrap_or(ItemKind::Error)),
        (Some(_), _) => None,
        (None, Some(l)) if l >= Level::Error => Some(by_text().unwrap_or(ItemKind::Error)),
        (None, Some(_)) => by_text(),
        (None, None) => {
            by_text().or_else(|| is_generic_error_text(&c.text).then_some(ItemKind::Error))
        }
    }
}

/// Filters shared by both modes, except the time window (see [`in_window`]).
fn passes_common(c: &Candidate, q: &ValidatedQuery, package_pids: Option<&BTreeSet<u32>>) -> bool {
    if let Some(tag) = &q.tag
        && c.tag.as_deref() != Some(tag.as_str())
    {
        return false;
    }
    if let Some(ts) = &q.tag_search
        && !c
            .tag
            .as_deref()
            .is_some_and(|t| t.to_lowercase().contains(ts.as_str()))
    {
        return false;
    }
    if let Some(k) = &q.keyword
        && !c.text_lc.contains(k.as_str())
    {
        return false;
    }
    if let Some(d) = &q.domain
        && (c.domain != Some(d.domain) || d.log_type.is_some_and(|t| c.log_type != Some(t)))
    {
        return false;
    }
    if let Some(pid) = q.pid
        && c.pid != Some(pid)
    {
        return false;
    }
    if let (Some(pkg), Some(pids)) = (&q.package_name, package_pids)
        && !is_relevant(c, pkg, pids)
    {
        return false;
    }
    true
}

/// The time window test; a record without a wall-clock time cannot be shown to lie inside a
/// bounded window and is excluded.
fn in_window(c: &Candidate, q: &ValidatedQuery) -> bool {
    q.window.is_unbounded() || c.time.is_some_and(|t| q.window.contains(t))
}

struct Group {
    kind: ItemKind,
    signature: String,
    first: usize,
    count: usize,
    first_time: Option<NaiveDateTime>,
    last_time: Option<NaiveDateTime>,
    last_order: usize,
    marker: Option<String>,
}

/// Runs the query over already-acquired texts. Pure: no clock, no file system, no device.
pub fn analyze(
    q: &ValidatedQuery,
    sources: &[SourceText],
    now: &DateTime<FixedOffset>,
) -> Analysis {
    let scanned: Vec<Scanned> = sources.iter().map(scan).collect();
    let collapse = q.mode == QueryMode::Errors;
    let cands = candidates(&scanned, now, collapse);
    let package_pids = q
        .package_name
        .as_ref()
        .map(|pkg| attribute_pids(pkg, &cands, &scanned));
    let mut notes = Vec::new();

    let mut groups: Vec<Group> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut match_count = 0;
    let mut untimed_excluded = 0;
    let mut marker_hits: Vec<(usize, Option<NaiveDateTime>, Option<NaiveDateTime>)> =
        vec![(0, None, None); q.markers.len()];

    for (order, c) in cands.iter().enumerate() {
        if !passes_common(c, q, package_pids.as_ref()) {
            continue;
        }
        if !in_window(c, q) {
            if c.time.is_none() {
                untimed_excluded += 1;
            }
            continue;
        }
        let (kind, marker, signature) = match q.mode {
            QueryMode::Errors => {
                let Some(kind) = error_kind(c, q.level) else {
                    continue;
                };
                let sig = match &c.crash {
                    Some(cr) => format!(
                        "crash|{}|{}",
                        cr.error_name
                            .as_deref()
                            .or(cr.reason.as_deref())
                            .unwrap_or(""),
                        normalize_message(cr.error_message.as_deref().unwrap_or(&c.message))
                    ),
                    None => format!(
                        "{}|{}|{}",
                        kind_str(kind),
                        c.tag.as_deref().unwrap_or(""),
                        normalize_message(&c.message)
                    ),
                };
                (kind, None, sig)
            }
            QueryMode::Markers => {
                if !c.is_log_line || q.level.is_some_and(|min| c.level.is_none_or(|l| l < min)) {
                    continue;
                }
                let mut first_hit = None;
                for (mi, m) in q.markers.iter().enumerate() {
                    if m.matches(&c.text, &c.text_lc) {
                        let h = &mut marker_hits[mi];
                        h.0 += 1;
                        h.1 = match (h.1, c.time) {
                            (Some(a), Some(b)) => Some(a.min(b)),
                            (a, b) => a.or(b),
                        };
                        h.2 = match (h.2, c.time) {
                            (Some(a), Some(b)) => Some(a.max(b)),
                            (a, b) => a.or(b),
                        };
                        first_hit.get_or_insert(mi);
                    }
                }
                let Some(mi) = first_hit else { continue };
                let kw = q.markers[mi].keyword.clone();
                let sig = format!(
                    "marker|{kw}|{}|{}",
                    c.tag.as_deref().unwrap_or(""),
                    normalize_message(&c.message)
                );
                (ItemKind::Marker, Some(kw), sig)
            }
        };
        match_count += 1;
        match index.get(&signature) {
            Some(&gi) => {
                let g = &mut groups[gi];
                g.count += 1;
                g.last_order = order;
                if let Some(t) = c.time {
                    g.first_time = Some(g.first_time.map_or(t, |f| f.min(t)));
                    g.last_time = Some(g.last_time.map_or(t, |l| l.max(t)));
                }
            }
            None => {
                index.insert(signature.clone(), groups.len());
                groups.push(Group {
                    kind,
                    signature,
                    first: order,
                    count: 1,
                    first_time: c.time,
                    last_time: c.time,
                    last_order: order,
                    marker,
                });
            }
        }
    }

    let group_count = groups.len();
    // Keep crashes first, then the most recently seen groups; present them in order of first
    // appearance.
    let mut ranked: Vec<usize> = (0..groups.len()).collect();
    ranked.sort_by_key(|&i| {
        (
            groups[i].kind != ItemKind::Crash,
            std::cmp::Reverse(groups[i].last_order),
        )
    });
    ranked.truncate(q.lines);
    ranked.sort_by_key(|&i| groups[i].first);

    let items: Vec<LogItem> = ranked
        .into_iter()
        .map(|gi| {
            let g = &groups[gi];
            let c = &cands[g.first];
            let s = &scanned[c.source];
            let (before, after) = context(s, c, q.context_lines);
            LogItem {
                kind: g.kind,
                signature: g.signature.clone(),
                count: g.count,
                first_time: fmt_time(g.first_time),
                last_time: fmt_time(g.last_time),
                level: c.level,
                tag: c.tag.clone(),
                domain: c.domain_text.clone(),
                pid: c.pid,
                message: c.message.clone(),
                line: c.text.clone(),
                source: s.label.clone(),
                line_no: c.line_no,
                marker: g.marker.clone(),
                crash: c.crash.clone(),
                context_before: before,
                context_after: after,
            }
        })
        .collect();

    if untimed_excluded > 0 {
        notes.push(format!(
            "{untimed_excluded} record(s) without a wall-clock time (unparsed text or -v monotonic) were excluded by the time window"
        ));
    }
    let markers = (q.mode == QueryMode::Markers).then(|| {
        let status: Vec<MarkerStatus> = q
            .markers
            .iter()
            .zip(&marker_hits)
            .map(|(m, h)| MarkerStatus {
                keyword: m.keyword.clone(),
                matched: h.0 > 0,
                count: h.0,
                first_time: fmt_time(h.1),
                last_time: fmt_time(h.2),
            })
            .collect();
        if status.iter().any(|s| !s.matched) {
            notes.push(
                "a marker that was not found is not proof that the event did not happen: the log buffer may have wrapped, the level may be filtered on the device, or the window may be too narrow"
                    .into(),
            );
        }
        status
    });
    let app_markers = scanned
        .iter()
        .flat_map(|s| s.app_markers.iter().cloned())
        .filter(|m| q.package_name.as_ref().is_none_or(|p| &m.bundle == p))
        .filter(|m| q.pid.is_none_or(|p| m.pid == Some(p)))
        .collect();
    let input_reports = scanned
        .iter()
        .filter_map(|s| s.crash_report.clone())
        .collect();
    Analysis {
        items,
        match_count,
        group_count,
        lines_scanned: scanned.iter().map(|s| s.lines.len()).sum(),
        markers,
        package_pids: package_pids.map(|p| p.into_iter().collect()),
        app_markers,
        input_reports,
        notes,
    }
}

fn kind_str(k: ItemKind) -> &'static str {
    match k {
        ItemKind::Crash => "crash",
        ItemKind::Exception => "exception",
        ItemKind::Error => "error",
        ItemKind::Marker => "marker",
    }
}

/// Up to `n` source lines before and after a candidate (never across sources).
fn context(s: &Scanned, c: &Candidate, n: usize) -> (Vec<String>, Vec<String>) {
    if n == 0 {
        return (Vec::new(), Vec::new());
    }
    let start = c.line_no.saturating_sub(1).min(s.lines.len());
    let end = (start + c.span).min(s.lines.len());
    let before = s.lines[start.saturating_sub(n)..start].to_vec();
    let after = s.lines[end..(end + n).min(s.lines.len())].to_vec();
    (before, after)
}

/// The filter pushed to the device. Pushing down is only done when it cannot change the
/// answer: with `context_lines` the neighbours of every level and process are needed, and
/// `package_name` attribution needs the lines of every process.
pub fn device_filter(q: &ValidatedQuery) -> DeviceLogFilter {
    if q.context_lines > 0 || q.package_name.is_some() {
        return DeviceLogFilter::default();
    }
    DeviceLogFilter {
        min_level: q.level,
        tags: q.tag.iter().cloned().collect(),
        domain: q.domain.map(|d| format!("0x{:x}", d.domain)),
        pids: q.pid.into_iter().collect(),
    }
}

fn capture_error(e: CaptureError, attempted: &[String]) -> LogsError {
    LogsError::new(e.code, e.message)
        .with_details(serde_json::json!({ "source_attempted": attempted }))
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

/// The realtime source: the buffer snapshot plus, for `realtime_wait_ms`, the lines logged
/// after it. A failed sampling window does not discard the buffer already read.
fn sample_realtime(
    q: &ValidatedQuery,
    env: &QueryEnv,
    source: &dyn LogCapture,
    filter: &DeviceLogFilter,
    buffer: String,
    notes: &mut Vec<String>,
) -> (Vec<SourceText>, Analysis) {
    let as_source = |text: String| {
        vec![SourceText {
            label: "device_realtime".into(),
            text,
        }]
    };
    let mut texts = as_source(buffer);
    if q.realtime_wait.is_zero() {
        let a = analyze(q, &texts, &env.now);
        return (texts, a);
    }
    // Markers mode: when the buffer already holds every marker, waiting adds nothing.
    if q.mode == QueryMode::Markers {
        let first = analyze(q, &texts, &env.now);
        if first
            .markers
            .as_ref()
            .is_some_and(|m| m.iter().all(|s| s.matched))
        {
            return (texts, first);
        }
    }
    match source.wait_realtime(q.realtime_wait, filter) {
        Ok(more) if !more.is_empty() => {
            let text = &mut texts[0].text;
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&more);
        }
        Ok(_) => {}
        Err(e) => notes.push(format!(
            "realtime sampling failed ({e}); only the buffer snapshot was queried"
        )),
    }
    let a = analyze(q, &texts, &env.now);
    (texts, a)
}

/// Device source: realtime first (buffer snapshot plus the sampling window), then, with
/// `fallback_to_historical`, the persisted logs when realtime failed or matched nothing.
fn device_query(
    q: &ValidatedQuery,
    env: &QueryEnv,
    source: &dyn LogCapture,
    filter: &DeviceLogFilter,
    attempted: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> Result<(String, Vec<SourceText>, Analysis), LogsError> {
    attempted.push("device_realtime".into());
    let realtime = source
        .capture(filter)
        .map(|buffer| sample_realtime(q, env, source, filter, buffer, notes));
    let fallback_wanted = match &realtime {
        Err(_) => q.fallback_to_historical,
        Ok((_, a)) => q.fallback_to_historical && a.items.is_empty(),
    };
    if !fallback_wanted {
        return match realtime {
            Ok((texts, a)) => Ok(("device_realtime".into(), texts, a)),
            Err(e) => Err(capture_error(e, attempted)),
        };
    }
    attempted.push("device_historical".into());
    match source.historical(filter) {
        Ok(text) => {
            if let Err(e) = &realtime {
                notes.push(format!(
                    "realtime capture failed ({e}); historical logs were used"
                ));
            }
            let texts = vec![SourceText {
                label: "device_historical".into(),
                text,
            }];
            let a = analyze(q, &texts, &env.now);
            Ok(("device_historical".into(), texts, a))
        }
        Err(he) => match realtime {
            Ok((texts, a)) => {
                notes.push(format!(
                    "historical logs were not available ({he}); the realtime result is shown"
                ));
                Ok(("device_realtime".into(), texts, a))
            }
            Err(re) => Err(LogsError::new(
                re.code,
                format!(
                    "realtime capture failed: {}; historical logs failed: {}",
                    re.message, he.message
                ),
            )
            .with_details(
                serde_json::json!({ "source_attempted": attempted, "historical_code": he.code }),
            )),
        },
    }
}

/// `include_crash`: crash files given as input, AppKit blocks seen in the lines and, when the
/// device was the source, matching faultlogger files.
fn crash_info(
    q: &ValidatedQuery,
    env: &QueryEnv,
    source: &dyn LogCapture,
    source_used: &str,
    a: &Analysis,
) -> CrashInfo {
    let mut info = CrashInfo {
        sources: Vec::new(),
        files_listed: None,
        files_matched: Vec::new(),
        reports: a.input_reports.clone(),
        hilog_markers: a.app_markers.clone(),
        errors: Vec::new(),
    };
    if !a.input_reports.is_empty() {
        info.sources.push("input".into());
    }
    if !source_used.starts_with("device") {
        return info;
    }
    info.sources.push("faultlogger".into());
    let names = match source.crash_files() {
        Ok(n) => n,
        Err(e) => {
            info.errors.push(e.to_string());
            return info;
        }
    };
    info.files_listed = Some(names.len());
    let mut candidates: Vec<(Option<NaiveDateTime>, String)> = names
        .iter()
        .filter_map(|n| parse_crash_file_name(n).map(|p| (p, n)))
        .filter(|(p, _)| q.package_name.as_ref().is_none_or(|pkg| &p.process == pkg))
        .map(|(p, n)| (p.time(&env.now), n.clone()))
        .filter(|(t, _)| q.window.is_unbounded() || t.is_some_and(|t| q.window.contains(t)))
        .collect();
    // Most recent first; names without a readable time last.
    candidates.sort_by_key(|c| std::cmp::Reverse(c.0));
    for (_, name) in candidates {
        if info.reports.len() - a.input_reports.len() >= env.max_crash_reports {
            break;
        }
        match source.read_crash_file(&name) {
            Ok(text) => {
                let report = parse_crash_file(&text, Some(&name));
                if q.pid.is_some_and(|p| report.pid != Some(p)) {
                    continue;
                }
                info.files_matched.push(name);
                info.reports.push(report);
            }
            Err(e) => info.errors.push(format!("{name}: {e}")),
        }
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::params::LogsQueryParams;
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
