//! Input files: order, inline text winning, crash files as input (whole and truncated) and the
//! file errors.

use serde_json::{Value, json};
use tapflow_device::logs::classify::ItemKind;
use tapflow_device::logs::{NoDevice, execute};

use super::{env_in, fixture_path, params, synthetic};

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
