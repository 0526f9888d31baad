//! The inline source in errors mode: grouping of repeated lines, crash blocks collapsed into one
//! item, explicit levels, non-hilog text and the `lines` cap.

use serde_json::json;
use tapflow_device::logs::classify::ItemKind;
use tapflow_device::logs::hilog::Level;
use tapflow_device::logs::{NoDevice, execute};

use super::{env_in, excerpt_lines, fixture, fixture_path, params, run, synthetic};

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
