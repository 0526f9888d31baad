//! The natural-language `time_expr` (English and Chinese): relative spans (`last 5 minutes`,
//! `10 minutes ago`, `最近5分钟`), `today`/`yesterday`, and `since`/`before`/`between` around
//! time points. Like the rest of `time`, it takes `now` as a parameter.

use std::sync::OnceLock;

use chrono::{DateTime, Duration, FixedOffset, NaiveTime};
use regex::Regex;

use super::{
    MAX_SPAN_SECS, PointRole, TimeError, TimeWindow, parse_time_point, window_from_seconds,
};

/// The forms `time_expr` accepts, listed in error messages.
pub const ACCEPTED_TIME_EXPRS: &[&str] = &[
    "last 5 minutes | past 2 hours | last 30s | last minute | within the last 2 days",
    "10 minutes ago",
    "since 10:30 | since 10:30:15 | since 2026-01-23 10:30:00",
    "before 10:30 | until 2026-01-23 10:30:00",
    "between 10:00 and 10:05 | from 10:00 to 10:05",
    "today | yesterday",
    "最近5分钟 | 过去1小时 | 近30秒 | 5分钟前 | 今天 | 昨天 | 从10:00到10:05 | 10:30以后",
];

fn unit_seconds(unit: &str) -> Option<i64> {
    Some(match unit {
        "s" | "sec" | "secs" | "second" | "seconds" | "秒" | "秒钟" => 1,
        "m" | "min" | "mins" | "minute" | "minutes" | "分" | "分钟" => 60,
        "h" | "hr" | "hrs" | "hour" | "hours" | "小时" | "个小时" | "钟头" | "个钟头" => {
            3600
        }
        "d" | "day" | "days" | "天" | "日" => 86_400,
        "w" | "week" | "weeks" | "周" | "星期" | "个星期" => 7 * 86_400,
        _ => return None,
    })
}

fn count_value(text: Option<&str>) -> Option<i64> {
    match text.map(str::trim) {
        None | Some("") | Some("a") | Some("an") | Some("one") => Some(1),
        Some(n) => n.parse().ok(),
    }
}

struct ExprRegexes {
    relative: Regex,
    ago: Regex,
    zh_relative: Regex,
    zh_ago: Regex,
    since: Regex,
    before: Regex,
    between: Regex,
    zh_between: Regex,
    zh_since: Regex,
}

fn expr_regexes() -> &'static ExprRegexes {
    static RE: OnceLock<ExprRegexes> = OnceLock::new();
    const UNIT: &str = r"(?P<unit>[a-z]+)";
    const NUM: &str = r"(?P<n>\d+|an|a|one)?";
    RE.get_or_init(|| ExprRegexes {
        relative: Regex::new(&format!(
            r"^(?:(?:in|within)\s+(?:the\s+)?)?(?:(?:last|past|recent|previous)\s*)?{NUM}\s*{UNIT}$"
        ))
        .expect("static regex"),
        ago: Regex::new(&format!(r"^{NUM}\s*{UNIT}\s+ago$")).expect("static regex"),
        zh_relative: Regex::new(r"^(?:最近|过去|近|前)\s*(?P<n>\d+)?\s*(?P<unit>秒钟|秒|分钟|分|个小时|小时|个钟头|钟头|天|日|个星期|星期|周)(?:内|以内|之内)?$")
            .expect("static regex"),
        zh_ago: Regex::new(r"^(?P<n>\d+)\s*(?P<unit>秒钟|秒|分钟|分|个小时|小时|个钟头|钟头|天|日)(?:前|以前|之前)$")
            .expect("static regex"),
        since: Regex::new(r"^(?:since|after|from)\s+(?P<p>.+)$").expect("static regex"),
        before: Regex::new(r"^(?:before|until|till)\s+(?P<p>.+)$").expect("static regex"),
        between: Regex::new(r"^(?:between|from)\s+(?P<a>.+?)\s+(?:and|to|until|till|-)\s+(?P<b>.+)$")
            .expect("static regex"),
        zh_between: Regex::new(r"^(?:从|在)?\s*(?P<a>[0-9:\- Tt.]+?)\s*(?:到|至|~|-)\s*(?P<b>[0-9:\- Tt.]+?)\s*(?:之间)?$")
            .expect("static regex"),
        zh_since: Regex::new(r"^(?:从|自)?\s*(?P<p>[0-9:\- Tt.]+?)\s*(?:以后|之后|以来|开始|起)$").expect("static regex"),
    })
}

fn relative_window(
    n: i64,
    unit_secs: i64,
    now: &DateTime<FixedOffset>,
) -> Result<TimeWindow, TimeError> {
    let secs = n
        .checked_mul(unit_secs)
        .filter(|s| *s <= MAX_SPAN_SECS)
        .ok_or_else(|| {
            TimeError(format!(
                "time span too large (maximum {MAX_SPAN_SECS} seconds)"
            ))
        })?;
    window_from_seconds(secs, now)
}

fn expr_error(expr: &str, why: Option<&str>) -> TimeError {
    let mut msg = format!("cannot understand time_expr {expr:?}");
    if let Some(w) = why {
        msg.push_str(": ");
        msg.push_str(w);
    }
    msg.push_str("; accepted forms: ");
    msg.push_str(&ACCEPTED_TIME_EXPRS.join("; "));
    TimeError(msg)
}

/// Parses a natural-language time expression (case-insensitive; see [`ACCEPTED_TIME_EXPRS`]).
pub fn parse_time_expr(expr: &str, now: &DateTime<FixedOffset>) -> Result<TimeWindow, TimeError> {
    let norm = expr
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    let re = expr_regexes();
    let today = now.naive_local().date().and_time(NaiveTime::MIN);
    let point_err = |e: TimeError| expr_error(expr, Some(&e.0));
    match norm.as_str() {
        "" => return Err(expr_error(expr, Some("empty"))),
        "today" | "今天" | "今日" => {
            return Ok(TimeWindow {
                start: Some(today),
                end: None,
            });
        }
        "yesterday" | "昨天" | "昨日" => {
            return Ok(TimeWindow {
                start: Some(today - Duration::days(1)),
                end: Some(today - Duration::nanoseconds(1)),
            });
        }
        _ => {}
    }
    for rel in [&re.relative, &re.ago, &re.zh_relative, &re.zh_ago] {
        if let Some(c) = rel.captures(&norm) {
            let unit = &c["unit"];
            if let Some(unit_secs) = unit_seconds(unit) {
                let n = count_value(c.name("n").map(|m| m.as_str()))
                    .ok_or_else(|| expr_error(expr, Some("bad number")))?;
                return relative_window(n, unit_secs, now).map_err(point_err);
            }
        }
    }
    for between in [&re.between, &re.zh_between] {
        if let Some(c) = between.captures(&norm) {
            let start = parse_time_point(&c["a"], now, PointRole::Start).map_err(point_err)?;
            let end = parse_time_point(
                &c["b"],
                now,
                PointRole::End {
                    anchor: Some(start),
                },
            )
            .map_err(point_err)?;
            return Ok(TimeWindow {
                start: Some(start),
                end: Some(end),
            });
        }
    }
    for since in [&re.since, &re.zh_since] {
        if let Some(c) = since.captures(&norm) {
            let start = parse_time_point(&c["p"], now, PointRole::Start).map_err(point_err)?;
            return Ok(TimeWindow {
                start: Some(start),
                end: None,
            });
        }
    }
    if let Some(c) = re.before.captures(&norm) {
        let end =
            parse_time_point(&c["p"], now, PointRole::End { anchor: None }).map_err(point_err)?;
        return Ok(TimeWindow {
            start: None,
            end: Some(end),
        });
    }
    Err(expr_error(expr, None))
}
