//! `logs_query` parameters: the contract's names, types and defaults, and their validation into
//! a typed query.
//!
//! Numbers are decoded as signed integers so that a negative value is reported as
//! `INVALID_PARAM` with the parameter's name rather than a serde type error; `mode` is a string
//! (the schema still publishes the enumeration) so that an unknown mode yields the contract's
//! `INVALID_QUERY_MODE`.

use std::time::Duration;

use chrono::{DateTime, FixedOffset};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::error::{INVALID_PARAM, INVALID_QUERY_MODE, LogsError};
use super::hilog::{Level, LogType};
use super::markers::{Marker, compile_markers};
use super::time::{
    ACCEPTED_TIME_EXPRS, ACCEPTED_TIME_POINTS, PointRole, TimeWindow, parse_time_expr,
    parse_time_point, window_from_seconds,
};

pub const DEFAULT_LINES: i64 = 100;
pub const MAX_LINES: i64 = 10_000;
pub const DEFAULT_REALTIME_WAIT_MS: i64 = 1000;
pub const MAX_REALTIME_WAIT_MS: i64 = 60_000;
pub const MAX_CONTEXT_LINES: i64 = 50;

fn default_lines() -> i64 {
    DEFAULT_LINES
}
fn default_mode() -> String {
    "errors".to_string()
}
fn default_wait() -> i64 {
    DEFAULT_REALTIME_WAIT_MS
}

/// Parameters of `logs_query` (names, types and defaults are the contract's).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogsQueryParams {
    /// Target device (carried to the device layer; auto-resolved when absent).
    #[serde(default)]
    pub device_id: Option<String>,
    /// Optional wireless hdc endpoint `host:port` (carried to the device layer).
    #[serde(default)]
    pub hdc_server: Option<String>,
    /// Inline raw log lines; highest-priority source.
    #[serde(default)]
    pub logs: Option<Vec<String>>,
    /// One local log file (inside the allowed directories).
    #[serde(default)]
    pub input_file: Option<String>,
    /// Several local log files, read in order after `input_file`.
    #[serde(default)]
    pub input_files: Option<Vec<String>>,
    /// Maximum items (groups) returned.
    #[serde(default = "default_lines")]
    #[schemars(range(min = 1, max = 10000))]
    pub lines: i64,
    /// Minimum level: D, I, W, E, F (or DEBUG … FATAL).
    #[serde(default)]
    pub level: Option<String>,
    /// Exact tag.
    #[serde(default)]
    pub tag: Option<String>,
    /// Case-insensitive substring of the tag.
    #[serde(default)]
    pub tag_search: Option<String>,
    /// Case-insensitive substring of the line.
    #[serde(default)]
    pub keyword: Option<String>,
    /// hilog domain, hex: `0x3200`, `3200`, `0xD003900`, `C03900`.
    #[serde(default)]
    pub domain: Option<String>,
    /// Strict process id.
    #[serde(default)]
    pub pid: Option<i64>,
    /// App (bundle name): lines mentioning it or from its processes.
    #[serde(default)]
    pub package_name: Option<String>,
    /// `HH:MM:SS` or `YYYY-MM-DD HH:MM:SS` (device local time).
    #[serde(default)]
    pub start_time: Option<String>,
    /// Same formats as `start_time`.
    #[serde(default)]
    pub end_time: Option<String>,
    /// Only the last N seconds.
    #[serde(default)]
    pub seconds: Option<i64>,
    /// Also write the scanned text to this host file.
    #[serde(default)]
    pub save_path: Option<String>,
    /// Window in words: `last 5 minutes`, `since 10:30`, `today`, …
    #[serde(default)]
    pub time_expr: Option<String>,
    /// Attach matching crash evidence (`crash_info`).
    #[serde(default)]
    pub include_crash: bool,
    /// `errors` or `markers`.
    #[serde(default = "default_mode")]
    #[schemars(extend("enum" = ["errors", "markers"]))]
    pub mode: String,
    /// `markers` mode: keywords (`re:` prefix: a regex); built-in defaults otherwise.
    #[serde(default)]
    pub marker_keywords: Option<Vec<String>>,
    /// If the realtime capture fails or finds nothing, query persisted logs.
    #[serde(default)]
    pub fallback_to_historical: bool,
    /// Realtime sampling window on the device, in ms.
    #[serde(default = "default_wait")]
    #[schemars(range(min = 0, max = 60000))]
    pub realtime_wait_ms: i64,
    /// Lines of context around each item.
    #[serde(default)]
    #[schemars(range(min = 0, max = 50))]
    pub context_lines: i64,
}

impl Default for LogsQueryParams {
    fn default() -> Self {
        serde_json::from_value(Value::Object(Default::default()))
            .expect("all parameters have defaults")
    }
}

impl LogsQueryParams {
    /// Decodes tool arguments; unknown fields and wrong types are `INVALID_PARAM`.
    pub fn from_value(value: Value) -> Result<Self, LogsError> {
        serde_json::from_value(value).map_err(|e| {
            LogsError::new(INVALID_PARAM, format!("invalid logs_query arguments: {e}"))
        })
    }
}

/// `errors` or `markers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryMode {
    Errors,
    Markers,
}

impl QueryMode {
    pub fn as_str(self) -> &'static str {
        match self {
            QueryMode::Errors => "errors",
            QueryMode::Markers => "markers",
        }
    }
}

/// A parsed `domain` filter: the printed 20-bit domain, optionally with its type letter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DomainFilter {
    pub domain: u32,
    pub log_type: Option<LogType>,
}

impl DomainFilter {
    /// Accepts `0x3200`, `3200` (hex, as hilog prints), `0xD003900` (full core domain: hilog
    /// prints its low 20 bits), `C03900` (type letter + 5 hex digits, as printed).
    pub fn parse(text: &str) -> Option<DomainFilter> {
        let t = text.trim();
        let (log_type, hex) = if t.len() == 6 && !t.starts_with("0x") && !t.starts_with("0X") {
            let first = t.chars().next()?;
            (
                Some(LogType::from_letter(first.to_ascii_uppercase())?),
                &t[1..],
            )
        } else {
            (
                None,
                t.strip_prefix("0x")
                    .or_else(|| t.strip_prefix("0X"))
                    .unwrap_or(t),
            )
        };
        if hex.is_empty() || hex.len() > 8 {
            return None;
        }
        let value = u32::from_str_radix(hex, 16).ok()?;
        Some(DomainFilter {
            domain: value & 0xFFFFF,
            log_type,
        })
    }
}

/// The validated form of [`LogsQueryParams`].
#[derive(Debug, Clone)]
pub struct ValidatedQuery {
    pub mode: QueryMode,
    pub lines: usize,
    /// The user's `level`; `None` lets errors mode use its default rule.
    pub level: Option<Level>,
    pub tag: Option<String>,
    /// Lower-cased.
    pub tag_search: Option<String>,
    /// Lower-cased.
    pub keyword: Option<String>,
    pub domain: Option<DomainFilter>,
    pub pid: Option<u32>,
    pub package_name: Option<String>,
    pub window: TimeWindow,
    /// Which parameters made the window (`time_expr`, `seconds`, `start_time`, `end_time`).
    pub window_from: Vec<&'static str>,
    pub markers: Vec<Marker>,
    pub context_lines: usize,
    pub realtime_wait: Duration,
    pub fallback_to_historical: bool,
}

fn non_blank(param: &str, v: &Option<String>) -> Result<Option<String>, LogsError> {
    match v {
        Some(s) if s.trim().is_empty() => Err(LogsError::invalid_param(
            param,
            format!("{param} must not be empty"),
        )),
        Some(s) => Ok(Some(s.trim().to_string())),
        None => Ok(None),
    }
}

fn in_range(param: &str, v: i64, min: i64, max: i64) -> Result<i64, LogsError> {
    if (min..=max).contains(&v) {
        Ok(v)
    } else {
        Err(LogsError::invalid_param(
            param,
            format!("{param} must be between {min} and {max}, got {v}"),
        ))
    }
}

impl LogsQueryParams {
    /// Checks every parameter and resolves the time window against `now`.
    pub fn validate(&self, now: &DateTime<FixedOffset>) -> Result<ValidatedQuery, LogsError> {
        let mode = match self.mode.trim().to_ascii_lowercase().as_str() {
            "errors" | "error" => QueryMode::Errors,
            "markers" | "marker" => QueryMode::Markers,
            other => {
                return Err(LogsError::new(
                    INVALID_QUERY_MODE,
                    format!("unknown mode {other:?}; expected \"errors\" or \"markers\""),
                )
                .with_details(
                    serde_json::json!({ "param": "mode", "allowed": ["errors", "markers"] }),
                ));
            }
        };
        let lines = in_range("lines", self.lines, 1, MAX_LINES)? as usize;
        let context_lines =
            in_range("context_lines", self.context_lines, 0, MAX_CONTEXT_LINES)? as usize;
        let wait_ms = in_range(
            "realtime_wait_ms",
            self.realtime_wait_ms,
            0,
            MAX_REALTIME_WAIT_MS,
        )?;
        let level = match non_blank("level", &self.level)? {
            Some(l) => Some(Level::parse_user(&l).ok_or_else(|| {
                LogsError::invalid_param(
                    "level",
                    format!("unknown level {l:?}; expected D, I, W, E or F"),
                )
            })?),
            None => None,
        };
        let domain = match non_blank("domain", &self.domain)? {
            Some(d) => Some(DomainFilter::parse(&d).ok_or_else(|| {
                LogsError::invalid_param(
                    "domain",
                    format!(
                        "invalid domain {d:?}; expected hex such as 0x3200, 0xD003900 or C03900"
                    ),
                )
            })?),
            None => None,
        };
        let pid = match self.pid {
            Some(p) => Some(u32::try_from(p).map_err(|_| {
                LogsError::invalid_param(
                    "pid",
                    format!("pid must be a non-negative 32-bit integer, got {p}"),
                )
            })?),
            None => None,
        };
        let (window, window_from) = self.window(now)?;
        let markers = match mode {
            QueryMode::Markers => compile_markers(self.marker_keywords.as_deref())?,
            // Keywords given in errors mode are still validated, so a typo is not silently ignored.
            QueryMode::Errors => match &self.marker_keywords {
                Some(k) => compile_markers(Some(k))?,
                None => Vec::new(),
            },
        };
        if let Some(files) = &self.input_files
            && files.iter().any(|f| f.trim().is_empty())
        {
            return Err(LogsError::invalid_param(
                "input_files",
                "input_files must not contain empty paths",
            ));
        }
        Ok(ValidatedQuery {
            mode,
            lines,
            level,
            tag: non_blank("tag", &self.tag)?,
            tag_search: non_blank("tag_search", &self.tag_search)?.map(|s| s.to_lowercase()),
            keyword: non_blank("keyword", &self.keyword)?.map(|s| s.to_lowercase()),
            domain,
            pid,
            package_name: non_blank("package_name", &self.package_name)?,
            window,
            window_from,
            markers,
            context_lines,
            realtime_wait: Duration::from_millis(wait_ms as u64),
            fallback_to_historical: self.fallback_to_historical,
        })
    }

    /// Every given time parameter applies (their intersection); start after end is an error.
    fn window(
        &self,
        now: &DateTime<FixedOffset>,
    ) -> Result<(TimeWindow, Vec<&'static str>), LogsError> {
        let mut window = TimeWindow::unbounded();
        let mut from = Vec::new();
        if let Some(expr) = &self.time_expr {
            let w = parse_time_expr(expr, now).map_err(|e| {
                LogsError::invalid_param("time_expr", e.0).with_details(serde_json::json!({
                    "param": "time_expr",
                    "accepted_forms": ACCEPTED_TIME_EXPRS,
                }))
            })?;
            window = window.intersect(&w);
            from.push("time_expr");
        }
        if let Some(secs) = self.seconds {
            let w = window_from_seconds(secs, now)
                .map_err(|e| LogsError::invalid_param("seconds", e.0))?;
            window = window.intersect(&w);
            from.push("seconds");
        }
        let point_err = |param: &'static str| {
            move |e: super::time::TimeError| {
                LogsError::invalid_param(param, e.0).with_details(serde_json::json!({
                    "param": param,
                    "accepted_formats": ACCEPTED_TIME_POINTS,
                }))
            }
        };
        let start = match &self.start_time {
            Some(s) => {
                Some(parse_time_point(s, now, PointRole::Start).map_err(point_err("start_time"))?)
            }
            None => None,
        };
        let end = match &self.end_time {
            Some(e) => Some(
                parse_time_point(e, now, PointRole::End { anchor: start })
                    .map_err(point_err("end_time"))?,
            ),
            None => None,
        };
        if let (Some(s), Some(e)) = (start, end)
            && s > e
        {
            return Err(LogsError::invalid_param(
                "start_time",
                format!("start_time {s} is after end_time {e}"),
            ));
        }
        if start.is_some() || end.is_some() {
            window = window.intersect(&TimeWindow { start, end });
            if start.is_some() {
                from.push("start_time");
            }
            if end.is_some() {
                from.push("end_time");
            }
        }
        Ok((window, from))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn now() -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339("2026-01-23T21:05:00+08:00").unwrap()
    }

    fn validate(v: Value) -> Result<ValidatedQuery, LogsError> {
        LogsQueryParams::from_value(v)?.validate(&now())
    }

    #[test]
    fn defaults_are_the_contracts() {
        let p = LogsQueryParams::default();
        assert_eq!(p.lines, 100);
        assert_eq!(p.mode, "errors");
        assert_eq!(p.realtime_wait_ms, 1000);
        assert_eq!(p.context_lines, 0);
        assert!(!p.include_crash && !p.fallback_to_historical);
        assert!(p.logs.is_none() && p.level.is_none() && p.marker_keywords.is_none());
        let v = p.validate(&now()).unwrap();
        assert_eq!(v.mode, QueryMode::Errors);
        assert!(v.window.is_unbounded() && v.markers.is_empty());
    }

    #[test]
    fn unknown_fields_and_wrong_types_are_invalid_param() {
        assert_eq!(
            validate(json!({"keywords": ["x"]})).unwrap_err().code,
            "INVALID_PARAM"
        );
        assert_eq!(
            validate(json!({"lines": "ten"})).unwrap_err().code,
            "INVALID_PARAM"
        );
    }

    #[test]
    fn mode_errors() {
        let e = validate(json!({"mode": "everything"})).unwrap_err();
        assert_eq!(e.code, "INVALID_QUERY_MODE");
        assert_eq!(
            validate(json!({"mode": "Markers"})).unwrap().mode,
            QueryMode::Markers
        );
    }

    #[test]
    fn ranges_and_values() {
        for bad in [
            json!({"lines": 0}),
            json!({"lines": -5}),
            json!({"context_lines": 51}),
            json!({"realtime_wait_ms": -1}),
            json!({"pid": -1}),
            json!({"level": "verbose"}),
            json!({"domain": "0xZZ"}),
            json!({"tag": "  "}),
            json!({"seconds": -3}),
            json!({"input_files": ["a.log", ""]}),
            json!({"start_time": "10:05:00", "end_time": "2026-01-23 10:00:00"}),
            json!({"start_time": "noon"}),
            json!({"mode": "markers", "marker_keywords": []}),
        ] {
            let e = validate(bad.clone()).unwrap_err();
            assert_eq!(e.code, "INVALID_PARAM", "{bad}");
        }
        let e = validate(json!({"time_expr": "sometime"})).unwrap_err();
        assert_eq!(e.details["param"], "time_expr");
        assert!(e.details["accepted_forms"].as_array().unwrap().len() >= 5);
    }

    #[test]
    fn domains() {
        assert_eq!(DomainFilter::parse("0x3200").unwrap().domain, 0x3200);
        assert_eq!(DomainFilter::parse("0xD003900").unwrap().domain, 0x03900);
        let c = DomainFilter::parse("C01317").unwrap();
        assert_eq!((c.domain, c.log_type), (0x01317, Some(LogType::Core)));
        assert_eq!(DomainFilter::parse("3d00").unwrap().domain, 0x3d00);
        assert!(DomainFilter::parse("").is_none());
        assert!(DomainFilter::parse("0x123456789").is_none());
    }

    #[test]
    fn windows_intersect() {
        let v = validate(json!({"seconds": 600, "start_time": "21:00:00"})).unwrap();
        assert_eq!(v.window.start.unwrap().to_string(), "2026-01-23 21:00:00");
        assert_eq!(v.window.end.unwrap().to_string(), "2026-01-23 21:05:00");
        assert_eq!(v.window_from, vec!["seconds", "start_time"]);
    }
}
