//! The result of `logs_query`: the contract's fields (`query_mode`, `source_attempted`,
//! `source_used`, `matched`, `match_count`, `group_count`, `items`, `filters_applied`,
//! `saved_path`, `crash_info`) plus a few that only report what was observed (`lines_scanned`,
//! `truncated`, `markers`, `notes`).

use schemars::JsonSchema;
use serde::Serialize;

use super::classify::ItemKind;
use super::crash::{AppCrashMarker, CrashReport};
use super::hilog::Level;

/// One group of matching log records (errors with the same signature, or hits of one marker).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct LogItem {
    pub kind: ItemKind,
    /// The grouping key: kind, tag and the message with variable parts replaced.
    pub signature: String,
    /// How many records fell into this group.
    pub count: usize,
    /// Device local time of the first and last record (`YYYY-MM-DD HH:MM:SS.mmm`), when the lines
    /// carry a wall-clock time.
    pub first_time: Option<String>,
    pub last_time: Option<String>,
    pub level: Option<Level>,
    pub tag: Option<String>,
    /// As printed, e.g. `C01317`.
    pub domain: Option<String>,
    pub pid: Option<u32>,
    /// The first record's message (for non-hilog text, the whole line).
    pub message: String,
    /// The first record's full text as printed (continuation lines included).
    pub line: String,
    /// Where the first record came from: `inline`, a file path, `device_realtime`, `device_historical`.
    pub source: String,
    /// 1-based line number of the first record in its source.
    pub line_no: usize,
    /// The marker keyword (markers mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marker: Option<String>,
    /// The AppKit crash block or faultlogger summary behind a crash item.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crash: Option<CrashSummary>,
    /// Up to `context_lines` source lines before and after the first record.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub context_before: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub context_after: Vec<String>,
}

/// The error of a crash item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct CrashSummary {
    /// `appkit_hilog` (crash block in hilog), `faultlogger_file` (an input that is a crash file),
    /// `logcat_androidruntime` (an `AndroidRuntime: FATAL EXCEPTION` block in logcat) or
    /// `logcat_anr` (an `ActivityManager: ANR in` block).
    pub origin: String,
    pub bundle: Option<String>,
    pub reason: Option<String>,
    pub error_name: Option<String>,
    pub error_message: Option<String>,
    pub stacktrace: Vec<String>,
}

/// Markers mode: what each keyword found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct MarkerStatus {
    pub keyword: String,
    pub matched: bool,
    pub count: usize,
    pub first_time: Option<String>,
    pub last_time: Option<String>,
}

/// The resolved time window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct AppliedWindow {
    pub start: Option<String>,
    pub end: Option<String>,
    /// The parameters it came from.
    pub from: Vec<String>,
}

/// Every filter in effect, after defaults and parsing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct FiltersApplied {
    /// Minimum level (errors mode without `level`: `E`, plus crash/exception text at any level).
    pub level: Option<Level>,
    pub level_rule: String,
    pub tag: Option<String>,
    pub tag_search: Option<String>,
    pub keyword: Option<String>,
    pub domain: Option<String>,
    pub pid: Option<u32>,
    pub package_name: Option<String>,
    /// Processes attributed to `package_name` from the scanned lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub package_pids: Option<Vec<u32>>,
    pub time_window: Option<AppliedWindow>,
    pub lines: usize,
    pub context_lines: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marker_keywords: Option<Vec<String>>,
    /// What was pushed down to the device's hilog reader (device source only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_command: Option<String>,
}

/// Crash evidence attached with `include_crash`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CrashInfo {
    /// `faultlogger` (device files), `input` (crash files given as input) or both.
    pub sources: Vec<String>,
    /// Number of faultlogger files listed on the device (device source only).
    pub files_listed: Option<usize>,
    /// Names of the faultlogger files that matched the query and were read.
    pub files_matched: Vec<String>,
    pub reports: Vec<CrashReport>,
    /// AppKit crash blocks found in the scanned log lines.
    pub hilog_markers: Vec<AppCrashMarker>,
    /// Device-side failures while fetching crash files (the query itself still succeeded).
    pub errors: Vec<String>,
}

/// The result of one query.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct LogsQueryResult {
    pub query_mode: String,
    /// Sources tried, in order: `inline`, `file`, `device_realtime`, `device_historical`.
    pub source_attempted: Vec<String>,
    /// The source whose lines were queried; `None` only if no source produced text.
    pub source_used: Option<String>,
    /// True when at least one item was found.
    pub matched: bool,
    /// Matching records (before grouping and before the `lines` cap).
    pub match_count: usize,
    /// Groups found (before the `lines` cap).
    pub group_count: usize,
    pub items: Vec<LogItem>,
    pub filters_applied: FiltersApplied,
    pub saved_path: Option<String>,
    pub crash_info: Option<CrashInfo>,
    /// Physical lines read from the source.
    pub lines_scanned: usize,
    /// True when `items` holds fewer groups than `group_count`.
    pub truncated: bool,
    /// Markers mode: each keyword's outcome (a missing marker is `matched: false`, not an error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub markers: Option<Vec<MarkerStatus>>,
    /// Caveats about what the result can and cannot show.
    pub notes: Vec<String>,
}
