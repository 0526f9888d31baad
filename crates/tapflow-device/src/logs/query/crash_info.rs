//! `include_crash`: the crash reports a query returns beside its items — crash files given as
//! input, AppKit blocks seen in the lines and, for a device source, faultlogger files.

use chrono::NaiveDateTime;

use super::{Analysis, QueryEnv};
use crate::logs::crash::{parse_crash_file, parse_crash_file_name};
use crate::logs::params::ValidatedQuery;
use crate::logs::result::CrashInfo;
use crate::logs::source::LogCapture;

/// `include_crash`: crash files given as input, AppKit blocks seen in the lines and, when the
/// device was the source, matching faultlogger files.
pub(super) fn crash_info(
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
