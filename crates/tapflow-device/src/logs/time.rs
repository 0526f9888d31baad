//! Time windows for log queries.
//!
//! Owns: resolving a printed hilog time to a calendar time (hilog prints no year by default:
//! the year is taken from `now`, and a line that would then lie more than a day in the future
//! belongs to the previous year), the `start_time`/`end_time` point formats, `seconds`, and the
//! natural-language `time_expr` (English and Chinese). Every function takes `now` as a parameter;
//! nothing here reads a clock, so results are reproducible.
//!
//! All calendar times are the device's local wall clock (`NaiveDateTime`); `now` carries the
//! UTC offset so that `-v epoch` lines can be converted to the same local clock.

mod expr;

use std::sync::OnceLock;

use chrono::{
    DateTime, Datelike, Duration, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeZone,
};
use regex::Regex;
use serde::Serialize;

use super::hilog::LineTime;

pub use expr::{ACCEPTED_TIME_EXPRS, parse_time_expr};

/// How far in the future a year-less line may lie (device/host clock skew) before it is taken
/// to belong to the previous year.
const FUTURE_TOLERANCE_SECS: i64 = 24 * 3600;

/// Largest relative span accepted (10 years): beyond that a number is a typo, and chrono's
/// arithmetic would overflow long before anything meaningful.
const MAX_SPAN_SECS: i64 = 10 * 366 * 24 * 3600;

/// The point formats `start_time`, `end_time` and the points inside `time_expr` accept.
pub const ACCEPTED_TIME_POINTS: &[&str] = &[
    "HH:MM:SS",
    "HH:MM",
    "YYYY-MM-DD HH:MM:SS",
    "YYYY-MM-DDTHH:MM:SS",
    "YYYY-MM-DD HH:MM",
    "YYYY-MM-DD",
    "MM-DD HH:MM:SS (hilog style)",
    "any of the above with .fff fractional seconds",
];

/// A half-open-ended interval on the device's local clock; `None` means unbounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct TimeWindow {
    pub start: Option<NaiveDateTime>,
    pub end: Option<NaiveDateTime>,
}

impl TimeWindow {
    pub fn unbounded() -> Self {
        Self::default()
    }

    pub fn is_unbounded(&self) -> bool {
        self.start.is_none() && self.end.is_none()
    }

    /// Inclusive at both ends.
    pub fn contains(&self, t: NaiveDateTime) -> bool {
        self.start.is_none_or(|s| t >= s) && self.end.is_none_or(|e| t <= e)
    }

    /// Both constraints at once (every given time parameter applies).
    pub fn intersect(&self, other: &TimeWindow) -> TimeWindow {
        let start = match (self.start, other.start) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        let end = match (self.end, other.end) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        TimeWindow { start, end }
    }

    /// True when no instant can satisfy the window.
    pub fn is_empty(&self) -> bool {
        matches!((self.start, self.end), (Some(s), Some(e)) if s > e)
    }
}

/// Why a time parameter could not be understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TimeError(pub String);

/// The calendar time of a printed line, or `None` for monotonic times (no wall clock).
pub fn resolve_line_time(t: &LineTime, now: &DateTime<FixedOffset>) -> Option<NaiveDateTime> {
    match *t {
        LineTime::Wall {
            year,
            month,
            day,
            hour,
            minute,
            second,
            nanos,
        } => {
            let time = NaiveTime::from_hms_nano_opt(hour, minute, second.min(59), nanos)?;
            match year {
                Some(y) => NaiveDate::from_ymd_opt(y, month, day).map(|d| d.and_time(time)),
                None => resolve_yearless(month, day, time, now.naive_local()),
            }
        }
        LineTime::Epoch { secs, nanos } => now
            .offset()
            .timestamp_opt(secs, nanos)
            .single()
            .map(|dt| dt.naive_local()),
        LineTime::Monotonic { .. } => None,
    }
}

/// Year for a `MM-DD` date: `now`'s year unless that lies beyond the tolerance in the future,
/// then the closest earlier year in which the date exists (Feb 29 needs a leap year).
fn resolve_yearless(
    month: u32,
    day: u32,
    time: NaiveTime,
    now: NaiveDateTime,
) -> Option<NaiveDateTime> {
    let limit = now + Duration::seconds(FUTURE_TOLERANCE_SECS);
    (0..=8).find_map(|back| {
        let candidate = NaiveDate::from_ymd_opt(now.year() - back, month, day)?.and_time(time);
        (candidate <= limit).then_some(candidate)
    })
}

/// Which end of a window a point is for: a bare clock time later than `now` means yesterday
/// for a start, but may legitimately lie ahead for an end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointRole {
    Start,
    /// An end; `anchor` is the window's start, if known (a bare end time earlier than the start
    /// is taken to be on the following day).
    End {
        anchor: Option<NaiveDateTime>,
    },
}

fn point_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(concat!(
            r"^(?:(?:(?P<y>\d{4})-)?(?P<mo>\d{1,2})-(?P<d>\d{1,2})(?:[ Tt]+|$))?",
            r"(?:(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:\.(?P<f>\d{1,9}))?)?)?$"
        ))
        .expect("static point regex")
    })
}

/// Parses one time point (see [`ACCEPTED_TIME_POINTS`]) relative to `now`.
pub fn parse_time_point(
    text: &str,
    now: &DateTime<FixedOffset>,
    role: PointRole,
) -> Result<NaiveDateTime, TimeError> {
    let t = text.trim();
    let bad = || {
        TimeError(format!(
            "cannot parse time {t:?}; accepted formats: {}",
            ACCEPTED_TIME_POINTS.join(", ")
        ))
    };
    if t.is_empty() {
        return Err(bad());
    }
    let caps = point_regex().captures(t).ok_or_else(bad)?;
    let has_date = caps.name("mo").is_some();
    let has_time = caps.name("h").is_some();
    if !has_date && !has_time {
        return Err(bad());
    }
    let num = |name: &str| caps.name(name).map(|m| m.as_str().parse::<u32>());
    let time = if has_time {
        let h = num("h").unwrap_or(Ok(0)).map_err(|_| bad())?;
        let mi = num("mi").unwrap_or(Ok(0)).map_err(|_| bad())?;
        let s = num("s").unwrap_or(Ok(0)).map_err(|_| bad())?;
        let nanos = match caps.name("f") {
            Some(f) => {
                let digits = f.as_str();
                digits.parse::<u32>().map_err(|_| bad())? * 10u32.pow(9 - digits.len() as u32)
            }
            None => 0,
        };
        NaiveTime::from_hms_nano_opt(h, mi, s, nanos).ok_or_else(bad)?
    } else {
        NaiveTime::MIN
    };
    let now_local = now.naive_local();
    if has_date {
        let mo = num("mo").unwrap_or(Ok(0)).map_err(|_| bad())?;
        let d = num("d").unwrap_or(Ok(0)).map_err(|_| bad())?;
        return match caps.name("y") {
            Some(y) => {
                let y: i32 = y.as_str().parse().map_err(|_| bad())?;
                NaiveDate::from_ymd_opt(y, mo, d)
                    .map(|date| date.and_time(time))
                    .ok_or_else(bad)
            }
            None => resolve_yearless(mo, d, time, now_local).ok_or_else(bad),
        };
    }
    let today = now_local.date().and_time(time);
    Ok(match role {
        PointRole::Start if today > now_local => today - Duration::days(1),
        PointRole::Start => today,
        PointRole::End { anchor: Some(a) } => {
            let same_day = a.date().and_time(time);
            if same_day < a {
                same_day + Duration::days(1)
            } else {
                same_day
            }
        }
        PointRole::End { anchor: None } => today,
    })
}

/// The last `seconds` seconds up to `now`.
pub fn window_from_seconds(
    seconds: i64,
    now: &DateTime<FixedOffset>,
) -> Result<TimeWindow, TimeError> {
    if !(0..=MAX_SPAN_SECS).contains(&seconds) {
        return Err(TimeError(format!(
            "seconds must be between 0 and {MAX_SPAN_SECS}, got {seconds}"
        )));
    }
    let n = now.naive_local();
    Ok(TimeWindow {
        start: Some(n - Duration::seconds(seconds)),
        end: Some(n),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339("2026-01-23T21:05:00+08:00").unwrap()
    }

    fn at(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.f").unwrap()
    }

    fn wall(month: u32, day: u32, hour: u32) -> LineTime {
        LineTime::Wall {
            year: None,
            month,
            day,
            hour,
            minute: 0,
            second: 0,
            nanos: 5_000_000,
        }
    }

    #[test]
    fn yearless_lines_take_nows_year_or_the_previous() {
        assert_eq!(
            resolve_line_time(&wall(1, 23, 21), &now()),
            Some(at("2026-01-23 21:00:00.005"))
        );
        // Within a day of skew stays this year.
        assert_eq!(
            resolve_line_time(&wall(1, 24, 10), &now()),
            Some(at("2026-01-24 10:00:00.005"))
        );
        // December seen in January is last year's.
        assert_eq!(
            resolve_line_time(&wall(12, 31, 23), &now()),
            Some(at("2025-12-31 23:00:00.005"))
        );
        // Feb 29 goes back to the last leap year.
        assert_eq!(
            resolve_line_time(&wall(2, 29, 1), &now()),
            Some(at("2024-02-29 01:00:00.005"))
        );
    }

    #[test]
    fn year_epoch_and_monotonic_lines() {
        let y = LineTime::Wall {
            year: Some(2020),
            month: 5,
            day: 6,
            hour: 7,
            minute: 8,
            second: 9,
            nanos: 0,
        };
        assert_eq!(
            resolve_line_time(&y, &now()),
            Some(at("2020-05-06 07:08:09"))
        );
        // 2026-01-23T13:05:00Z is 21:05 at +08:00.
        let e = LineTime::Epoch {
            secs: 1_769_173_500,
            nanos: 0,
        };
        assert_eq!(
            resolve_line_time(&e, &now()),
            Some(at("2026-01-23 21:05:00"))
        );
        assert_eq!(
            resolve_line_time(&LineTime::Monotonic { secs: 1, nanos: 0 }, &now()),
            None
        );
    }

    #[test]
    fn points() {
        let n = now();
        assert_eq!(
            parse_time_point("21:01:50", &n, PointRole::Start).unwrap(),
            at("2026-01-23 21:01:50")
        );
        // Later than now as a start: yesterday.
        assert_eq!(
            parse_time_point("22:00", &n, PointRole::Start).unwrap(),
            at("2026-01-22 22:00:00")
        );
        assert_eq!(
            parse_time_point("22:00", &n, PointRole::End { anchor: None }).unwrap(),
            at("2026-01-23 22:00:00")
        );
        // End before the anchor: next day.
        let anchor = at("2026-01-22 23:50:00");
        assert_eq!(
            parse_time_point(
                "00:10",
                &n,
                PointRole::End {
                    anchor: Some(anchor)
                }
            )
            .unwrap(),
            at("2026-01-23 00:10:00")
        );
        assert_eq!(
            parse_time_point("2025-12-01 10:00:00", &n, PointRole::Start).unwrap(),
            at("2025-12-01 10:00:00")
        );
        assert_eq!(
            parse_time_point("2025-12-01T10:00:00.250", &n, PointRole::Start).unwrap(),
            at("2025-12-01 10:00:00.25")
        );
        assert_eq!(
            parse_time_point("2025-12-01", &n, PointRole::Start).unwrap(),
            at("2025-12-01 00:00:00")
        );
        assert_eq!(
            parse_time_point("01-23 21:01:50.181", &n, PointRole::Start).unwrap(),
            at("2026-01-23 21:01:50.181")
        );
        for bad in [
            "",
            "25:00:00",
            "10:61",
            "2026-02-30 10:00:00",
            "noon",
            "10",
            "10:00:00 pm",
        ] {
            let e = parse_time_point(bad, &n, PointRole::Start).unwrap_err();
            assert!(e.0.contains("HH:MM:SS"), "{bad}: {e}");
        }
    }

    #[test]
    fn seconds_window() {
        let w = window_from_seconds(30, &now()).unwrap();
        assert_eq!(w.start, Some(at("2026-01-23 21:04:30")));
        assert_eq!(w.end, Some(at("2026-01-23 21:05:00")));
        assert!(window_from_seconds(-1, &now()).is_err());
    }

    fn expr(s: &str) -> TimeWindow {
        parse_time_expr(s, &now()).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn relative_expressions() {
        let last5 = TimeWindow {
            start: Some(at("2026-01-23 21:00:00")),
            end: Some(at("2026-01-23 21:05:00")),
        };
        for s in [
            "last 5 minutes",
            "Last 5 Minutes",
            "past 5 min",
            "last 5m",
            "5 minutes ago",
            "最近5分钟",
            "最近 5 分钟",
            "5分钟前",
            "within the last 5 minutes",
            "5 minutes",
        ] {
            assert_eq!(expr(s), last5, "{s}");
        }
        assert_eq!(expr("past 2 hours").start, Some(at("2026-01-23 19:05:00")));
        assert_eq!(expr("过去1小时").start, Some(at("2026-01-23 20:05:00")));
        assert_eq!(expr("last 30s").start, Some(at("2026-01-23 21:04:30")));
        assert_eq!(expr("近30秒").start, Some(at("2026-01-23 21:04:30")));
        assert_eq!(expr("last minute").start, Some(at("2026-01-23 21:04:00")));
        assert_eq!(expr("last 2 days").start, Some(at("2026-01-21 21:05:00")));
    }

    #[test]
    fn absolute_expressions() {
        assert_eq!(
            expr("since 10:30"),
            TimeWindow {
                start: Some(at("2026-01-23 10:30:00")),
                end: None
            }
        );
        assert_eq!(
            expr("SINCE 10:30:15").start,
            Some(at("2026-01-23 10:30:15"))
        );
        assert_eq!(
            expr("since 2026-01-20 08:00:00").start,
            Some(at("2026-01-20 08:00:00"))
        );
        assert_eq!(
            expr("between 10:00 and 10:05"),
            TimeWindow {
                start: Some(at("2026-01-23 10:00:00")),
                end: Some(at("2026-01-23 10:05:00"))
            }
        );
        assert_eq!(expr("from 10:00 to 10:05"), expr("between 10:00 and 10:05"));
        assert_eq!(expr("从10:00到10:05"), expr("between 10:00 and 10:05"));
        assert_eq!(expr("10:30以后"), expr("since 10:30"));
        assert_eq!(
            expr("today"),
            TimeWindow {
                start: Some(at("2026-01-23 00:00:00")),
                end: None
            }
        );
        assert_eq!(expr("今天"), expr("today"));
        let y = expr("yesterday");
        assert_eq!(y.start, Some(at("2026-01-22 00:00:00")));
        assert!(
            y.contains(at("2026-01-22 23:59:59.999")) && !y.contains(at("2026-01-23 00:00:00"))
        );
        assert_eq!(expr("before 10:30").end, Some(at("2026-01-23 10:30:00")));
    }

    #[test]
    fn bad_expressions_list_accepted_forms() {
        for bad in [
            "",
            "whenever",
            "last 5 fortnights",
            "since noon",
            "between 10:00 and later",
            "last 999999999999 days",
        ] {
            let e = parse_time_expr(bad, &now()).unwrap_err();
            assert!(
                e.0.contains("accepted forms") && e.0.contains("最近5分钟"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn window_algebra() {
        let a = TimeWindow {
            start: Some(at("2026-01-23 10:00:00")),
            end: None,
        };
        let b = TimeWindow {
            start: Some(at("2026-01-23 09:00:00")),
            end: Some(at("2026-01-23 11:00:00")),
        };
        let i = a.intersect(&b);
        assert_eq!(i.start, Some(at("2026-01-23 10:00:00")));
        assert_eq!(i.end, Some(at("2026-01-23 11:00:00")));
        assert!(!i.is_empty() && i.contains(at("2026-01-23 11:00:00")));
        assert!(TimeWindow::unbounded().is_unbounded());
        let empty = TimeWindow {
            start: b.end,
            end: b.start,
        };
        assert!(empty.is_empty());
    }
}
