//! Time windows: `seconds`, `start`/`end`, every time expression form, the year boundary and
//! untimed lines.

use chrono::DateTime;
use serde_json::{Value, json};
use tapflow_device::logs::{NoDevice, execute};

use super::{env_in, params, run, synthetic};

#[test]
fn seconds_start_end_and_every_time_expr_form() {
    let count = |extra: Value| {
        let mut p = json!({"logs": synthetic(), "level": "D"});
        for (k, v) in extra.as_object().unwrap() {
            p[k] = v.clone();
        }
        run(p).match_count
    };
    assert_eq!(count(json!({})), 8);
    assert_eq!(count(json!({"seconds": 90})), 2); // 21:04:00 and 21:04:30
    assert_eq!(count(json!({"start_time": "21:00:00"})), 6);
    assert_eq!(
        count(json!({"start_time": "21:00:00", "end_time": "21:02:00"})),
        3
    );
    assert_eq!(
        count(json!({"start_time": "2026-01-23 21:03:00", "end_time": "2026-01-23 21:04:00"})),
        2
    );
    assert_eq!(count(json!({"time_expr": "last 5 minutes"})), 6);
    assert_eq!(count(json!({"time_expr": "PAST 2 HOURS"})), 8);
    assert_eq!(count(json!({"time_expr": "last 30s"})), 1); // 21:04:30..21:05:00, inclusive
    assert_eq!(count(json!({"time_expr": "last 31s"})), 1);
    assert_eq!(count(json!({"time_expr": "since 21:01"})), 5);
    assert_eq!(count(json!({"time_expr": "since 21:01:00"})), 5);
    assert_eq!(count(json!({"time_expr": "between 21:00 and 21:01"})), 2);
    assert_eq!(count(json!({"time_expr": "today"})), 8);
    assert_eq!(count(json!({"time_expr": "yesterday"})), 0);
    assert_eq!(count(json!({"time_expr": "10 minutes ago"})), 7);
    assert_eq!(count(json!({"time_expr": "最近5分钟"})), 6);
    assert_eq!(count(json!({"time_expr": "过去1小时"})), 8);
    // Every given parameter applies.
    assert_eq!(
        count(json!({"time_expr": "last 5 minutes", "seconds": 90})),
        2
    );
}

#[test]
fn last_30s_includes_its_start_instant() {
    // 21:04:30 is exactly 30 s before now: the window is inclusive.
    let r = run(json!({"logs": synthetic(), "level": "D", "time_expr": "last 30s"}));
    assert_eq!(r.match_count, 1);
    let w = r.filters_applied.time_window.unwrap();
    assert_eq!(w.start.as_deref(), Some("2026-01-23 21:04:30.000"));
    assert_eq!(w.from, vec!["time_expr"]);
}

#[test]
fn lines_from_last_year_resolve_before_new_year() {
    let env_now = DateTime::parse_from_rfc3339("2026-01-01T00:02:00+08:00").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut env = env_in(dir.path());
    env.now = env_now;
    let p = params(json!({"logs": [
        "12-31 23:59:00.000  1  1 E A00000/t: old year",
        "01-01 00:01:00.000  1  1 E A00000/t: new year"
    ], "time_expr": "last 5 minutes"}));
    let r = execute(&p, &env, &NoDevice).unwrap();
    assert_eq!(r.match_count, 2);
    assert_eq!(
        r.items[0].first_time.as_deref(),
        Some("2025-12-31 23:59:00.000")
    );
}

#[test]
fn untimed_lines_are_excluded_by_a_window_with_a_note() {
    let r = run(
        json!({"logs": ["ERROR: no timestamp", "01-23 21:04:00.000  1  1 E A00000/t: timed"], "seconds": 600}),
    );
    assert_eq!(r.match_count, 1);
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("without a wall-clock time"))
    );
}
