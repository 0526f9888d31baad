//! `logs_query` end to end: sources, modes, filters, time windows, grouping, context, snapshot,
//! crash info and every error code, over real fixtures and a fake device.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, FixedOffset};
use serde_json::{Value, json};
use tapflow_device::logs::classify::ItemKind;
use tapflow_device::logs::hilog::Level;
use tapflow_device::logs::{
    CaptureError, DeviceLogFilter, LogCapture, LogsError, LogsQueryParams, LogsQueryResult,
    NoDevice, QueryEnv, execute,
};

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(format!(
        "{}/tests/fixtures/harmonyos/{name}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    ))
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(fixture_path(name)).unwrap()
}

/// 4 minutes after the emulator excerpt's last line.
fn now() -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339("2026-01-23T21:05:00+08:00").unwrap()
}

fn env_in(dir: &Path) -> QueryEnv {
    QueryEnv::new(now(), dir.to_path_buf())
}

fn params(v: Value) -> LogsQueryParams {
    LogsQueryParams::from_value(v).unwrap()
}

fn run(v: Value) -> LogsQueryResult {
    let dir = tempfile::tempdir().unwrap();
    execute(&params(v), &env_in(dir.path()), &NoDevice).unwrap()
}

fn run_err(v: Value) -> LogsError {
    let dir = tempfile::tempdir().unwrap();
    execute(&params(v), &env_in(dir.path()), &NoDevice).unwrap_err()
}

fn excerpt_lines() -> Vec<String> {
    fixture("hilog_excerpt_emulator6_nwpucampus_webview.txt")
        .lines()
        .map(str::to_string)
        .collect()
}

/// A small synthetic log with known times, pids, tags and levels.
fn synthetic() -> Vec<String> {
    [
        "01-23 20:50:00.000   100   100 I C01300/AbilityMgr: start com.demo.app, pid=4321",
        "01-23 20:55:00.000  4321  4321 I A00000/Login: onCreate",
        "01-23 21:00:00.000  4321  4321 E A00000/Login: request failed code 17",
        "01-23 21:01:00.000  4321  4321 E A00000/Login: request failed code 42",
        "01-23 21:02:00.000  4321  4322 W A00000/Login: retrying",
        "01-23 21:03:00.000   200   200 E C03900/Ace: render error in frame 7",
        "01-23 21:04:00.000  4321  4321 I A00000/Login: saveResult ok",
        "01-23 21:04:30.000   300   300 F C01d02/Other: fatal thing",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

// ---------- inline source, errors mode, grouping ----------

#[test]
fn errors_mode_over_the_emulator_excerpt_groups_and_collapses_the_crash_block() {
    let r = run(json!({"logs": excerpt_lines()}));
    assert_eq!(r.query_mode, "errors");
    assert_eq!(r.source_attempted, vec!["inline"]);
    assert_eq!(r.source_used.as_deref(), Some("inline"));
    assert_eq!(r.lines_scanned, 1007);
    // 74 E lines; the 7-line AppKit block collapses into one crash item, and the ArkCompiler
    // stack frame joins the TypeError line it belongs to: 74 - 7 - 1 + 1.
    assert_eq!(r.match_count, 67);
    assert!(r.matched);
    assert_eq!(r.items.len(), r.group_count);
    assert!(!r.truncated);
    assert_eq!(r.items.iter().map(|i| i.count).sum::<usize>(), 67);
    let crash = r.items.iter().find(|i| i.kind == ItemKind::Crash).unwrap();
    assert_eq!(
        crash.message,
        "com.example.nwpucampus is about to exit due to RuntimeError"
    );
    let summary = crash.crash.as_ref().unwrap();
    assert_eq!(summary.origin, "appkit_hilog");
    assert_eq!(
        summary.error_message.as_deref(),
        Some("Cannot read property injectOsmToWeb of undefined")
    );
    assert_eq!(crash.line_no, 1001);
    assert_eq!(crash.first_time.as_deref(), Some("2026-01-23 21:01:52.839"));
    // Repeated lines form one group with a count and a time range.
    let repeated = r
        .items
        .iter()
        .find(|i| {
            i.message
                .contains("Failed to get ArkWeb version from any of the specified paths")
        })
        .unwrap();
    assert_eq!(repeated.count, 3);
    assert_eq!(repeated.kind, ItemKind::Error);
    assert!(repeated.first_time <= repeated.last_time);
    // The ArkCompiler TypeError line is an exception.
    let exc = r
        .items
        .iter()
        .find(|i| i.message.starts_with("TypeError: Cannot read property"))
        .unwrap();
    assert_eq!(exc.kind, ItemKind::Exception);
    assert!(
        exc.line
            .ends_with("    at onWebPageEnd entry (entry/src/main/ets/pages/Index.ets:212:10)")
    );
    assert_eq!(exc.tag.as_deref(), Some("ArkCompiler"));
    assert_eq!(exc.domain.as_deref(), Some("C03f00"));
    assert_eq!(exc.pid, Some(6724));
    assert_eq!(exc.source, "inline");
    // Items are in order of first appearance.
    let lines: Vec<usize> = r.items.iter().map(|i| i.line_no).collect();
    assert!(lines.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn variable_numbers_group_together() {
    let r = run(json!({"logs": synthetic()}));
    let failed = r
        .items
        .iter()
        .find(|i| i.message.starts_with("request failed"))
        .unwrap();
    assert_eq!(failed.count, 2);
    assert_eq!(
        failed.first_time.as_deref(),
        Some("2026-01-23 21:00:00.000")
    );
    assert_eq!(failed.last_time.as_deref(), Some("2026-01-23 21:01:00.000"));
    assert_eq!(failed.signature, "error|Login|request failed code <n>");
    // E, E (grouped), E (Ace), F.
    assert_eq!(r.match_count, 4);
    assert_eq!(r.group_count, 3);
}

#[test]
fn explicit_level_is_a_strict_minimum() {
    let r = run(json!({"logs": synthetic(), "level": "W"}));
    assert_eq!(r.match_count, 5);
    assert_eq!(r.filters_applied.level, Some(Level::Warn));
    let f = run(json!({"logs": synthetic(), "level": "fatal"}));
    assert_eq!(f.match_count, 1);
    assert_eq!(f.items[0].tag.as_deref(), Some("Other"));
    // Explicit E excludes the W-level "Kill Reason" crash line the default rule keeps.
    let lines = fixture("jscrash_with_hilog_emulator6_illegal_prop.txt");
    let hilog: Vec<&str> = lines
        .lines()
        .skip_while(|l| *l != "HiLog:")
        .skip(1)
        .collect();
    let default = run(json!({"logs": hilog}));
    let strict = run(json!({"logs": hilog, "level": "E"}));
    assert!(
        default
            .items
            .iter()
            .any(|i| i.message.contains("Kill Reason:Js Error"))
    );
    assert!(
        !strict
            .items
            .iter()
            .any(|i| i.message.contains("Kill Reason:Js Error"))
    );
}

#[test]
fn non_hilog_text_is_kept_and_scanned() {
    let r = run(json!({"logs": ["plain text line", "ERROR: disk full", "all good"]}));
    assert_eq!(r.match_count, 1);
    assert_eq!(r.items[0].message, "ERROR: disk full");
    assert_eq!(r.items[0].level, None);
    // The help text is not a log: nothing in it is an error.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixture_path("hilog_help_older_version.txt"),
        dir.path().join("help.txt"),
    )
    .unwrap();
    let h = execute(
        &params(json!({"input_file": "help.txt"})),
        &env_in(dir.path()),
        &NoDevice,
    )
    .unwrap();
    assert_eq!(h.lines_scanned, 156);
    assert!(!h.matched && h.items.is_empty());
}

#[test]
fn lines_caps_items_keeping_crashes_and_recent_groups() {
    let mut logs = excerpt_lines();
    logs.truncate(1000); // drop the crash block for a plain count
    let all = run(json!({"logs": logs}));
    let capped = run(json!({"logs": logs, "lines": 3}));
    assert_eq!(capped.items.len(), 3);
    assert!(capped.truncated);
    assert_eq!(capped.group_count, all.group_count);
    assert_eq!(capped.match_count, all.match_count);
    // The three kept are the most recently seen groups.
    let with_crash = run(json!({"logs": excerpt_lines(), "lines": 1}));
    assert_eq!(with_crash.items[0].kind, ItemKind::Crash);
}

// ---------- filters ----------

#[test]
fn tag_tag_search_keyword_domain_pid_filters() {
    let base = json!({"logs": synthetic(), "level": "D"});
    let with = |k: &str, v: Value| {
        let mut p = base.clone();
        p[k] = v;
        run(p)
    };
    assert_eq!(with("tag", json!("Login")).match_count, 5);
    assert_eq!(with("tag", json!("login")).match_count, 0, "tag is exact");
    assert_eq!(with("tag_search", json!("LOG")).match_count, 5);
    assert_eq!(with("tag_search", json!("ace")).match_count, 1);
    assert_eq!(
        with("keyword", json!("FAILED CODE")).match_count,
        2,
        "case-insensitive"
    );
    assert_eq!(with("keyword", json!("failedcode")).match_count, 0);
    assert_eq!(with("keyword", json!("request FAILED")).match_count, 2);
    assert_eq!(with("domain", json!("0x3900")).match_count, 1);
    assert_eq!(with("domain", json!("0xD003900")).match_count, 1);
    assert_eq!(
        with("domain", json!("A03900")).match_count,
        0,
        "type letter must match too"
    );
    assert_eq!(with("domain", json!("C01d02")).match_count, 1);
    assert_eq!(with("pid", json!(4321)).match_count, 5);
    assert_eq!(
        with("pid", json!(4322)).match_count,
        0,
        "4322 is a tid, not a pid"
    );
    let f = with("pid", json!(4321)).filters_applied;
    assert_eq!(f.pid, Some(4321));
}

#[test]
fn package_name_takes_mentions_and_attributed_pids() {
    let r = run(json!({"logs": synthetic(), "level": "D", "package_name": "com.demo.app"}));
    // The AbilityMgr line mentions it (pid=4321 attributes 4321); the 5 lines of 4321 follow.
    assert_eq!(r.match_count, 6);
    assert_eq!(r.filters_applied.package_pids, Some(vec![4321]));
    let errors = run(json!({"logs": synthetic(), "package_name": "com.demo.app"}));
    assert_eq!(errors.match_count, 2);
    // On the real crash hilog the app pid is attributed from APPSPAWN/AppKit lines.
    let text = fixture("jscrash_with_hilog_emulator6_illegal_prop.txt");
    let hilog: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "HiLog:")
        .skip(1)
        .collect();
    let r = run(json!({"logs": hilog, "package_name": "com.example.nwpucampus"}));
    assert_eq!(r.filters_applied.package_pids, Some(vec![8960]));
    let none = run(json!({"logs": hilog, "package_name": "com.other.app"}));
    assert!(!none.matched);
}

// ---------- time windows ----------

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

// ---------- markers ----------

#[test]
fn markers_found_and_missing() {
    let r = run(json!({
        "logs": synthetic(),
        "mode": "markers",
        "marker_keywords": ["saveResult", "errorcode is = 0"],
    }));
    assert_eq!(r.query_mode, "markers");
    assert!(r.matched);
    assert_eq!(r.match_count, 1);
    assert_eq!(r.items[0].kind, ItemKind::Marker);
    assert_eq!(r.items[0].marker.as_deref(), Some("saveResult"));
    let m = r.markers.as_ref().unwrap();
    assert_eq!(m.len(), 2);
    assert!(m[0].matched && m[0].count == 1);
    assert_eq!(m[0].first_time.as_deref(), Some("2026-01-23 21:04:00.000"));
    assert!(!m[1].matched && m[1].count == 0);
    assert!(r.notes.iter().any(|n| n.contains("not proof")));
    assert_eq!(r.filters_applied.marker_keywords.as_ref().unwrap().len(), 2);

    let missing =
        run(json!({"logs": synthetic(), "mode": "markers", "marker_keywords": ["never logged"]}));
    assert!(!missing.matched);
    assert!(missing.items.is_empty());
    assert_eq!(missing.markers.unwrap()[0].keyword, "never logged");
}

#[test]
fn default_markers_and_regex_markers() {
    let r = run(json!({"logs": excerpt_lines(), "mode": "markers"}));
    let status = r.markers.unwrap();
    let load = status
        .iter()
        .find(|s| s.keyword == "LoadPage Success")
        .unwrap();
    assert!(load.matched);
    let exit = status
        .iter()
        .find(|s| s.keyword == "is about to exit")
        .unwrap();
    assert_eq!(exit.count, 1);
    let re = run(
        json!({"logs": synthetic(), "mode": "markers", "marker_keywords": ["re:code \\d{2}$"]}),
    );
    assert_eq!(re.match_count, 2);
    assert_eq!(re.group_count, 1);
}

// ---------- context ----------

#[test]
fn context_lines_before_and_after() {
    let r = run(json!({"logs": synthetic(), "keyword": "render error", "context_lines": 2}));
    let item = &r.items[0];
    assert_eq!(item.context_before, synthetic()[3..5].to_vec());
    assert_eq!(item.context_after, synthetic()[6..8].to_vec());
    // At the edges the context is shorter, never padded.
    let first = run(
        json!({"logs": synthetic(), "level": "D", "lines": 1, "keyword": "AbilityMgr", "context_lines": 3}),
    );
    assert!(first.items[0].context_before.is_empty());
    assert_eq!(first.items[0].context_after.len(), 3);
    // A crash block's context starts after the whole block.
    let c = run(json!({"logs": excerpt_lines(), "context_lines": 2}));
    let crash = c.items.iter().find(|i| i.kind == ItemKind::Crash).unwrap();
    assert_eq!(crash.context_before.len(), 2);
    assert!(crash.context_after.is_empty());
}

// ---------- files ----------

#[test]
fn input_files_are_read_in_order_and_inline_wins() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.log"), synthetic()[..4].join("\n")).unwrap();
    std::fs::write(dir.path().join("b.log"), synthetic()[4..].join("\r\n")).unwrap();
    let env = env_in(dir.path());
    let r = execute(
        &params(json!({"input_file": "a.log", "input_files": ["b.log"]})),
        &env,
        &NoDevice,
    )
    .unwrap();
    assert_eq!(r.source_attempted, vec!["file"]);
    assert_eq!(r.source_used.as_deref(), Some("file"));
    assert_eq!(r.lines_scanned, 8);
    assert_eq!(r.match_count, 4);
    let sources: Vec<&str> = r.items.iter().map(|i| i.source.as_str()).collect();
    assert_eq!(sources, vec!["a.log", "b.log", "b.log"]);
    // `\r\n` was stripped.
    assert!(!r.items[1].line.contains('\r'));
    let inline = execute(
        &params(json!({"logs": ["x"], "input_file": "a.log"})),
        &env,
        &NoDevice,
    )
    .unwrap();
    assert_eq!(inline.source_used.as_deref(), Some("inline"));
}

#[test]
fn a_crash_file_as_input_is_one_crash_item_plus_its_hilog() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixture_path("jscrash_with_hilog_emulator6_typeerror_web.txt"),
        dir.path().join("c.log"),
    )
    .unwrap();
    let env = env_in(dir.path());
    let r = execute(
        &params(json!({"input_file": "c.log", "include_crash": true})),
        &env,
        &NoDevice,
    )
    .unwrap();
    let crash_items: Vec<_> = r
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::Crash)
        .collect();
    // The file header and the AppKit block report the same error: one group, seen twice.
    assert_eq!(crash_items.len(), 1);
    assert_eq!(crash_items[0].count, 2);
    assert_eq!(
        crash_items[0].crash.as_ref().unwrap().origin,
        "faultlogger_file"
    );
    assert_eq!(
        crash_items[0].first_time.as_deref(),
        Some("2026-01-23 21:01:52.833")
    );
    let info = r.crash_info.unwrap();
    assert_eq!(info.sources, vec!["input"]);
    assert_eq!(info.reports.len(), 1);
    assert_eq!(info.reports[0].pid, Some(6724));
    assert_eq!(info.hilog_markers.len(), 1);
    assert_eq!(info.files_listed, None, "no device was asked");
}

#[test]
fn truncated_cppcrash_input_still_yields_a_crash_item() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixture_path("cppcrash_faultlogger_com_ohos_note_dayu200_head.txt"),
        dir.path().join("cpp.log"),
    )
    .unwrap();
    let r = execute(
        &params(json!({"input_file": "cpp.log"})),
        &env_in(dir.path()),
        &NoDevice,
    )
    .unwrap();
    assert_eq!(r.match_count, 1);
    let c = r.items[0].crash.as_ref().unwrap();
    assert_eq!(
        c.reason.as_deref(),
        Some("Signal:SIGSEGV(SI_USER)@0x000025d9 from:9689:0")
    );
    assert_eq!(c.stacktrace.len(), 21);
    assert_eq!(r.items[0].pid, Some(9639));
}

#[test]
fn file_errors() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.log"), "x".repeat(2048)).unwrap();
    std::fs::write(outside.path().join("o.log"), "x").unwrap();
    let mut env = env_in(dir.path());
    env.max_file_bytes = 1024;
    let code = |v: Value| execute(&params(v), &env, &NoDevice).unwrap_err();
    assert_eq!(
        code(json!({"input_file": "missing.log"})).code,
        "FILE_NOT_FOUND"
    );
    let big = code(json!({"input_file": "big.log"}));
    assert_eq!(big.code, "FILE_TOO_LARGE");
    assert_eq!(big.details["max_bytes"], 1024);
    let o = outside.path().join("o.log").display().to_string();
    assert_eq!(code(json!({"input_files": [o]})).code, "PATH_NOT_ALLOWED");
    assert_eq!(
        code(json!({"input_file": "../../../../etc/passwd"})).code,
        "PATH_NOT_ALLOWED"
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.path().join("o.log"), dir.path().join("link.log"))
            .unwrap();
        assert_eq!(
            code(json!({"input_file": "link.log"})).code,
            "PATH_NOT_ALLOWED"
        );
    }
    // A second allowed root admits the outside file.
    env.paths = env.paths.with_root(outside.path());
    let o = outside.path().join("o.log").display().to_string();
    assert!(execute(&params(json!({"input_file": o})), &env, &NoDevice).is_ok());
}

// ---------- save_path ----------

#[test]
fn save_path_writes_a_requeryable_snapshot_inside_the_allowlist() {
    let dir = tempfile::tempdir().unwrap();
    let env = env_in(dir.path());
    let r = execute(
        &params(json!({"logs": synthetic(), "save_path": "out/snap.log"})),
        &env,
        &NoDevice,
    )
    .unwrap();
    let saved = PathBuf::from(r.saved_path.as_ref().unwrap());
    assert!(saved.ends_with("out/snap.log"));
    assert_eq!(
        std::fs::read_to_string(&saved).unwrap(),
        synthetic().join("\n") + "\n"
    );
    // Querying the snapshot gives the same items.
    let again = execute(
        &params(json!({"input_file": "out/snap.log"})),
        &env,
        &NoDevice,
    )
    .unwrap();
    assert_eq!(again.match_count, r.match_count);
    assert_eq!(again.group_count, r.group_count);

    let denied = execute(
        &params(json!({"logs": ["x"], "save_path": "/etc/tapflow-snap.log"})),
        &env,
        &NoDevice,
    );
    assert_eq!(denied.unwrap_err().code, "PATH_NOT_ALLOWED");
    let escape = execute(
        &params(json!({"logs": ["x"], "save_path": "../escape.log"})),
        &env,
        &NoDevice,
    );
    assert_eq!(escape.unwrap_err().code, "PATH_NOT_ALLOWED");
    assert!(r.saved_path.is_some());
}

#[test]
fn a_refused_save_path_never_touches_the_device() {
    let dir = tempfile::tempdir().unwrap();
    let dev = FakeDevice::new(&synthetic().join("\n"));
    let e = execute(
        &params(json!({"save_path": "/etc/x.log"})),
        &env_in(dir.path()),
        &dev,
    )
    .unwrap_err();
    assert_eq!(e.code, "PATH_NOT_ALLOWED");
    assert!(dev.calls.borrow().is_empty());
}

// ---------- parameter errors ----------

#[test]
fn parameter_errors_use_contract_codes() {
    assert_eq!(
        run_err(json!({"logs": ["x"], "mode": "warnings"})).code,
        "INVALID_QUERY_MODE"
    );
    let bad_expr = run_err(json!({"logs": ["x"], "time_expr": "around lunch"}));
    assert_eq!(bad_expr.code, "INVALID_PARAM");
    assert!(bad_expr.message.contains("last 5 minutes"));
    assert_eq!(
        run_err(json!({"logs": ["x"], "start_time": "25:00:00"})).code,
        "INVALID_PARAM"
    );
    assert_eq!(
        run_err(json!({"logs": ["x"], "lines": 0})).code,
        "INVALID_PARAM"
    );
    assert_eq!(run_err(json!({"logs": []})).code, "INVALID_PARAM");
    assert_eq!(run_err(json!({"input_files": []})).code, "INVALID_PARAM");
    assert_eq!(
        run_err(json!({"logs": ["x"], "level": "loud"})).code,
        "INVALID_PARAM"
    );
    assert_eq!(
        LogsQueryParams::from_value(json!({"lins": 5}))
            .unwrap_err()
            .code,
        "INVALID_PARAM",
        "unknown parameter"
    );
}

// ---------- device source ----------

struct FakeDevice {
    buffer: String,
    realtime: String,
    historical: Result<String, CaptureError>,
    capture_fails: bool,
    crash_files: Vec<(String, String)>,
    /// Listed but unreadable crash files; `Some("FAIL")` as the only entry fails the listing.
    unreadable: Vec<String>,
    calls: RefCell<Vec<String>>,
    filters: RefCell<Vec<DeviceLogFilter>>,
}

impl FakeDevice {
    fn new(buffer: &str) -> Self {
        FakeDevice {
            buffer: buffer.to_string(),
            realtime: String::new(),
            historical: Err(CaptureError::new(
                tapflow_core::codes::UNSUPPORTED,
                "hilog persistence is off",
            )),
            capture_fails: false,
            crash_files: Vec::new(),
            unreadable: Vec::new(),
            calls: RefCell::new(Vec::new()),
            filters: RefCell::new(Vec::new()),
        }
    }
}

impl LogCapture for FakeDevice {
    fn capture(&self, filter: &DeviceLogFilter) -> Result<String, CaptureError> {
        self.calls.borrow_mut().push("capture".into());
        self.filters.borrow_mut().push(filter.clone());
        if self.capture_fails {
            return Err(CaptureError::new(
                tapflow_core::codes::DEVICE_DISCONNECTED,
                "device went away",
            ));
        }
        Ok(self.buffer.clone())
    }
    fn wait_realtime(&self, wait: Duration, _: &DeviceLogFilter) -> Result<String, CaptureError> {
        self.calls
            .borrow_mut()
            .push(format!("wait {}", wait.as_millis()));
        if self.realtime == "FAIL" {
            return Err(CaptureError::new(
                tapflow_core::codes::HDC_TIMEOUT,
                "hilog stream timed out",
            ));
        }
        Ok(self.realtime.clone())
    }
    fn historical(&self, _: &DeviceLogFilter) -> Result<String, CaptureError> {
        self.calls.borrow_mut().push("historical".into());
        self.historical.clone()
    }
    fn crash_files(&self) -> Result<Vec<String>, CaptureError> {
        self.calls.borrow_mut().push("crash_files".into());
        if self.unreadable == ["FAIL"] {
            return Err(CaptureError::new(
                tapflow_core::codes::HDC_TIMEOUT,
                "ls timed out",
            ));
        }
        let mut names: Vec<String> = self.crash_files.iter().map(|(n, _)| n.clone()).collect();
        names.extend(self.unreadable.iter().cloned());
        Ok(names)
    }
    fn read_crash_file(&self, name: &str) -> Result<String, CaptureError> {
        self.calls.borrow_mut().push(format!("read {name}"));
        self.crash_files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| {
                CaptureError::new(tapflow_core::codes::FILE_NOT_FOUND, "no such crash file")
            })
    }
}

fn run_dev(dev: &FakeDevice, v: Value) -> Result<LogsQueryResult, LogsError> {
    let dir = tempfile::tempdir().unwrap();
    execute(&params(v), &env_in(dir.path()), dev)
}

#[test]
fn device_realtime_snapshot_plus_sampling_window() {
    let mut dev = FakeDevice::new(&synthetic()[..4].join("\n"));
    dev.realtime = synthetic()[4..].join("\n");
    let r = run_dev(&dev, json!({})).unwrap();
    assert_eq!(r.source_attempted, vec!["device_realtime"]);
    assert_eq!(r.source_used.as_deref(), Some("device_realtime"));
    assert_eq!(
        r.match_count, 4,
        "lines from the buffer and from the window"
    );
    assert_eq!(*dev.calls.borrow(), vec!["capture", "wait 1000"]);
    assert_eq!(
        r.filters_applied.device_command.as_deref(),
        Some("hilog -x")
    );
    // Without a window, only the buffer.
    let dev0 = FakeDevice::new(&synthetic()[..4].join("\n"));
    let r0 = run_dev(&dev0, json!({"realtime_wait_ms": 0})).unwrap();
    assert_eq!(r0.match_count, 2);
    assert_eq!(*dev0.calls.borrow(), vec!["capture"]);
    // A failed window keeps the buffer, with a note.
    let mut dev_fail = FakeDevice::new(&synthetic()[..4].join("\n"));
    dev_fail.realtime = "FAIL".into();
    let rf = run_dev(&dev_fail, json!({})).unwrap();
    assert_eq!(rf.match_count, 2);
    assert!(rf.notes.iter().any(|n| n.contains("HDC_TIMEOUT")));
}

#[test]
fn markers_already_in_the_buffer_skip_the_wait() {
    let dev = FakeDevice::new(&synthetic().join("\n"));
    let r = run_dev(
        &dev,
        json!({"mode": "markers", "marker_keywords": ["saveResult"], "realtime_wait_ms": 1500}),
    )
    .unwrap();
    assert!(r.matched);
    assert_eq!(*dev.calls.borrow(), vec!["capture"]);
    let dev2 = FakeDevice::new(&synthetic().join("\n"));
    let r2 = run_dev(
        &dev2,
        json!({"mode": "markers", "marker_keywords": ["later"], "realtime_wait_ms": 1500}),
    )
    .unwrap();
    assert!(!r2.matched);
    assert_eq!(*dev2.calls.borrow(), vec!["capture", "wait 1500"]);
}

#[test]
fn filters_are_pushed_down_only_when_they_cannot_change_the_answer() {
    let dev = FakeDevice::new("");
    run_dev(&dev, json!({"level": "E", "tag": "Login", "pid": 4321, "domain": "0x3900", "realtime_wait_ms": 0})).unwrap();
    let f = dev.filters.borrow()[0].clone();
    assert_eq!(f.min_level, Some(Level::Error));
    assert_eq!(f.tags, vec!["Login"]);
    assert_eq!(f.pids, vec![4321]);
    assert_eq!(f.domain.as_deref(), Some("0x3900"));
    let dev2 = FakeDevice::new("");
    run_dev(
        &dev2,
        json!({"level": "E", "pid": 4321, "context_lines": 2, "realtime_wait_ms": 0}),
    )
    .unwrap();
    assert_eq!(dev2.filters.borrow()[0], DeviceLogFilter::default());
}

#[test]
fn historical_fallback() {
    // Realtime finds nothing: historical is queried.
    let mut dev = FakeDevice::new("01-23 21:04:00.000  1  1 I A00000/t: fine");
    dev.historical = Ok(synthetic().join("\n"));
    let r = run_dev(
        &dev,
        json!({"fallback_to_historical": true, "realtime_wait_ms": 0}),
    )
    .unwrap();
    assert_eq!(
        r.source_attempted,
        vec!["device_realtime", "device_historical"]
    );
    assert_eq!(r.source_used.as_deref(), Some("device_historical"));
    assert_eq!(r.match_count, 4);
    // Realtime matched: no fallback.
    let mut dev2 = FakeDevice::new(&synthetic().join("\n"));
    dev2.historical = Ok(String::new());
    let r2 = run_dev(
        &dev2,
        json!({"fallback_to_historical": true, "realtime_wait_ms": 0}),
    )
    .unwrap();
    assert_eq!(r2.source_attempted, vec!["device_realtime"]);
    // Realtime fails, historical works.
    let mut dev3 = FakeDevice::new("");
    dev3.capture_fails = true;
    dev3.historical = Ok(synthetic().join("\n"));
    let r3 = run_dev(&dev3, json!({"fallback_to_historical": true})).unwrap();
    assert_eq!(r3.source_used.as_deref(), Some("device_historical"));
    assert!(
        r3.notes
            .iter()
            .any(|n| n.contains("realtime capture failed"))
    );
    // Realtime finds nothing and historical is unavailable: the realtime result, with a note.
    let dev4 = FakeDevice::new("01-23 21:04:00.000  1  1 I A00000/t: fine");
    let r4 = run_dev(
        &dev4,
        json!({"fallback_to_historical": true, "realtime_wait_ms": 0}),
    )
    .unwrap();
    assert_eq!(r4.source_used.as_deref(), Some("device_realtime"));
    assert!(!r4.matched);
    assert!(
        r4.notes
            .iter()
            .any(|n| n.contains("historical logs were not available"))
    );
}

#[test]
fn device_failures_keep_the_device_code() {
    let mut dev = FakeDevice::new("");
    dev.capture_fails = true;
    let e = run_dev(&dev, json!({})).unwrap_err();
    assert_eq!(e.code, "DEVICE_DISCONNECTED");
    assert_eq!(e.details["source_attempted"], json!(["device_realtime"]));
    let both = run_dev(&dev, json!({"fallback_to_historical": true})).unwrap_err();
    assert_eq!(both.code, "DEVICE_DISCONNECTED");
    assert_eq!(both.details["historical_code"], "UNSUPPORTED");
    let none = execute(&params(json!({})), &env_in(Path::new("/tmp")), &NoDevice).unwrap_err();
    assert_eq!(none.code, "DEVICE_NOT_FOUND");
}

#[test]
fn include_crash_reads_matching_faultlogger_files() {
    let mut dev = FakeDevice::new(&fixture("hilog_excerpt_emulator6_nwpucampus_webview.txt"));
    dev.crash_files = vec![
        (
            "jscrash-com.example.nwpucampus-20020059-20260123210152833.log".into(),
            fixture("jscrash_with_hilog_emulator6_typeerror_web.txt"),
        ),
        (
            "jscrash-com.example.nwpucampus-20020059-20260125022222183.log".into(),
            fixture("jscrash_with_hilog_emulator6_illegal_prop.txt"),
        ),
        (
            "cppcrash-com.ohos.note-20010019-20260916151446000.log".into(),
            fixture("cppcrash_faultlogger_com_ohos_note_dayu200_head.txt"),
        ),
        ("README".into(), String::new()),
    ];
    let r = run_dev(
        &dev,
        json!({"include_crash": true, "package_name": "com.example.nwpucampus", "time_expr": "last 10 minutes", "realtime_wait_ms": 0}),
    )
    .unwrap();
    let info = r.crash_info.unwrap();
    assert_eq!(info.sources, vec!["faultlogger"]);
    assert_eq!(info.files_listed, Some(4));
    // Only the crash inside the window (21:01:52 on 01-23); the 01-25 one is outside it.
    assert_eq!(
        info.files_matched,
        vec!["jscrash-com.example.nwpucampus-20020059-20260123210152833.log"]
    );
    assert_eq!(
        info.reports[0].error_message.as_deref(),
        Some("Cannot read property injectOsmToWeb of undefined")
    );
    assert_eq!(info.hilog_markers.len(), 1);
    assert!(info.errors.is_empty());
    // Without constraints the most recent files come first, capped.
    let dir = tempfile::tempdir().unwrap();
    let mut env = env_in(dir.path());
    env.max_crash_reports = 2;
    let all = execute(
        &params(json!({"include_crash": true, "realtime_wait_ms": 0})),
        &env,
        &dev,
    )
    .unwrap();
    let names = all.crash_info.unwrap().files_matched;
    assert_eq!(names.len(), 2);
    assert!(names[0].starts_with("cppcrash-com.ohos.note"));
    // pid narrows after reading.
    let by_pid = run_dev(
        &dev,
        json!({"include_crash": true, "pid": 8960, "realtime_wait_ms": 0}),
    )
    .unwrap();
    assert_eq!(by_pid.crash_info.unwrap().reports.len(), 1);
    // Not asked: no crash_info and no faultlogger calls.
    let plain = FakeDevice::new("");
    let r = run_dev(&plain, json!({"realtime_wait_ms": 0})).unwrap();
    assert!(r.crash_info.is_none());
    assert!(!plain.calls.borrow().iter().any(|c| c == "crash_files"));
}

// ---------- shapes ----------

#[test]
fn result_has_the_contract_fields() {
    let r = run(json!({"logs": synthetic()}));
    let v = serde_json::to_value(&r).unwrap();
    for key in [
        "query_mode",
        "source_attempted",
        "source_used",
        "matched",
        "match_count",
        "group_count",
        "items",
        "filters_applied",
        "saved_path",
        "crash_info",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["items"][0]["level"], "E");
    assert_eq!(v["items"][0]["kind"], "error");
}

#[test]
fn parameter_schema_has_every_contract_parameter_and_the_mode_enum() {
    let schema = serde_json::to_value(schemars::schema_for!(LogsQueryParams)).unwrap();
    let props = schema["properties"].as_object().unwrap();
    for name in [
        "device_id",
        "hdc_server",
        "logs",
        "input_file",
        "input_files",
        "lines",
        "level",
        "tag",
        "tag_search",
        "keyword",
        "domain",
        "pid",
        "package_name",
        "start_time",
        "end_time",
        "seconds",
        "save_path",
        "time_expr",
        "include_crash",
        "mode",
        "marker_keywords",
        "fallback_to_historical",
        "realtime_wait_ms",
        "context_lines",
    ] {
        assert!(props.contains_key(name), "schema lacks {name}");
    }
    assert_eq!(props.len(), 24);
    assert_eq!(props["mode"]["enum"], json!(["errors", "markers"]));
    assert_eq!(props["lines"]["default"], 100);
    assert_eq!(props["realtime_wait_ms"]["default"], 1000);
    assert_eq!(props["mode"]["default"], "errors");
    let _ = schemars::schema_for!(LogsQueryResult);
}

#[test]
fn demo_app_markers_with_a_domain_filter() {
    // The shape the simulated demo app logs (docs: `I A0d0d0/DemoApp: LOGIN_SUCCESS user=<name>`).
    let logs = [
        "01-23 21:04:10.100  5000  5000 I A0d0d0/DemoApp: LOGIN_SUCCESS user=alice",
        "01-23 21:04:12.200  5000  5000 I A0d0d0/DemoApp: ITEM_OPENED n=7",
        "01-23 21:04:13.300  5000  5000 I A0d0d0/DemoApp: ITEM_OPENED n=12",
        "01-23 21:04:13.400  5000  5000 I A00000/Other: ITEM_OPENED n=99",
    ];
    let r = run(json!({
        "logs": logs,
        "mode": "markers",
        "marker_keywords": ["LOGIN_SUCCESS", "ITEM_OPENED"],
        "domain": "0xd0d0",
        "seconds": 60,
    }));
    let status = r.markers.unwrap();
    assert_eq!((status[0].count, status[1].count), (1, 2));
    // `n=7` and `n=12` are one group.
    assert_eq!(r.group_count, 2);
    let opened = r
        .items
        .iter()
        .find(|i| i.marker.as_deref() == Some("ITEM_OPENED"))
        .unwrap();
    assert_eq!(opened.count, 2);
    assert_eq!(
        opened.first_time.as_deref(),
        Some("2026-01-23 21:04:12.200")
    );
    assert_eq!(opened.last_time.as_deref(), Some("2026-01-23 21:04:13.300"));
    assert_eq!(opened.domain.as_deref(), Some("A0d0d0"));
}

#[test]
fn crash_file_failures_are_reported_not_fatal() {
    let mut dev = FakeDevice::new(&synthetic().join("\n"));
    dev.unreadable = vec!["jscrash-com.demo.app-1-20260123210000000.log".into()];
    let r = run_dev(&dev, json!({"include_crash": true, "realtime_wait_ms": 0})).unwrap();
    let info = r.crash_info.unwrap();
    assert_eq!(info.files_listed, Some(1));
    assert!(info.reports.is_empty());
    assert_eq!(info.errors.len(), 1);
    assert!(info.errors[0].contains("no such crash file"));
    dev.unreadable = vec!["FAIL".into()];
    let r = run_dev(&dev, json!({"include_crash": true, "realtime_wait_ms": 0})).unwrap();
    assert!(r.matched, "the query itself still succeeds");
    let info = r.crash_info.unwrap();
    assert_eq!(info.files_listed, None);
    assert!(info.errors[0].contains("HDC_TIMEOUT"));
}
