//! [`analyze`]: the pure heart of a query — filtering candidates, deciding what counts as an
//! error or a marker hit, grouping by signature, ranking and attaching context lines.

use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, FixedOffset, NaiveDateTime};

use crate::logs::classify::{
    ItemKind, is_crash_text, is_exception_text, is_generic_error_text, normalize_message,
};
use crate::logs::crash::{AppCrashMarker, CrashReport};
use crate::logs::hilog::Level;
use crate::logs::package::{attribute_pids, is_relevant};
use crate::logs::params::{QueryMode, ValidatedQuery};
use crate::logs::result::{LogItem, MarkerStatus};
use crate::logs::scan::{Candidate, Scanned, SourceText, candidates, scan};

const TIME_FMT: &str = "%Y-%m-%d %H:%M:%S%.3f";

pub(super) fn fmt_time(t: Option<NaiveDateTime>) -> Option<String> {
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
pub(super) fn error_kind(c: &Candidate, explicit: Option<Level>) -> Option<ItemKind> {
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
pub(super) fn context(s: &Scanned, c: &Candidate, n: usize) -> (Vec<String>, Vec<String>) {
    if n == 0 {
        return (Vec::new(), Vec::new());
    }
    let start = c.line_no.saturating_sub(1).min(s.lines.len());
    let end = (start + c.span).min(s.lines.len());
    let before = s.lines[start.saturating_sub(n)..start].to_vec();
    let after = s.lines[end..(end + n).min(s.lines.len())].to_vec();
    (before, after)
}
