//! Parsers of the logs module over every real fixture they read.

use std::collections::BTreeMap;

use tapflow_device::logs::crash::{
    CrashKind, find_app_crash_markers, looks_like_crash_file, parse_crash_file,
};
use tapflow_device::logs::hilog::{LogType, parse_line, parse_text};

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/harmonyos/{name}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn level_counts(lines: &[&str]) -> BTreeMap<char, usize> {
    let mut counts = BTreeMap::new();
    for line in lines {
        let parsed = parse_line(line).unwrap_or_else(|| panic!("not parsed: {line}"));
        *counts.entry(parsed.level.letter()).or_insert(0) += 1;
    }
    counts
}

#[test]
fn every_line_of_the_emulator_excerpt_parses_with_level_counts() {
    let text = fixture("hilog_excerpt_emulator6_nwpucampus_webview.txt");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1007);
    let counts = level_counts(&lines);
    assert_eq!(
        counts,
        BTreeMap::from([('D', 430), ('E', 74), ('I', 447), ('W', 56)])
    );
    let recs = parse_text(&text);
    assert_eq!(recs.len(), 1007);
    assert!(
        recs.iter()
            .all(|r| r.hilog.is_some() && r.continuation.is_empty())
    );
    // All from one process; both app (A) and core (C) types occur.
    assert!(
        recs.iter()
            .all(|r| r.hilog.as_ref().unwrap().pid == Some(6724))
    );
    let types: std::collections::BTreeSet<_> = recs
        .iter()
        .map(|r| r.hilog.as_ref().unwrap().log_type.map(|t| t.letter()))
        .collect();
    assert_eq!(types, [Some('A'), Some('C')].into_iter().collect());
    let last = recs.last().unwrap().hilog.as_ref().unwrap();
    assert_eq!(last.tag, "AppKit");
    assert_eq!(last.log_type, Some(LogType::Core));
    assert_eq!(last.domain, 0x01317);
}

#[test]
fn the_emulator_excerpt_ends_with_an_appkit_crash_block() {
    let text = fixture("hilog_excerpt_emulator6_nwpucampus_webview.txt");
    let recs = parse_text(&text);
    let markers = find_app_crash_markers(&recs);
    assert_eq!(markers.len(), 1);
    let m = &markers[0];
    assert_eq!(m.bundle, "com.example.nwpucampus");
    assert_eq!(m.cause, "RuntimeError");
    assert_eq!(m.error_type.as_deref(), Some("TypeError"));
    assert_eq!(m.error_name.as_deref(), Some("TypeError"));
    assert_eq!(
        m.error_message.as_deref(),
        Some("Cannot read property injectOsmToWeb of undefined")
    );
    assert_eq!(
        m.stacktrace,
        vec!["at onWebPageEnd entry (entry/src/main/ets/pages/Index.ets:212:10)"]
    );
    assert_eq!(m.pid, Some(6724));
    assert_eq!(m.line_no, 1002);
    // The block starts at the `[MAINTHD2051]` line with the same prefix.
    assert_eq!(m.records, 1000..1007);
}

#[test]
fn help_text_parses_as_non_log_text() {
    let text = fixture("hilog_help_older_version.txt");
    let recs = parse_text(&text);
    assert_eq!(recs.len(), text.lines().count());
    assert!(recs.iter().all(|r| r.hilog.is_none()));
    assert!(find_app_crash_markers(&recs).is_empty());
    assert!(!looks_like_crash_file(&text));
}

#[test]
fn jscrash_illegal_prop_header_stack_and_hilog() {
    let text = fixture("jscrash_with_hilog_emulator6_illegal_prop.txt");
    assert!(looks_like_crash_file(&text));
    let r = parse_crash_file(&text, None);
    assert_eq!(r.kind, CrashKind::Jscrash);
    assert_eq!(r.device_info.as_deref(), Some("emulator"));
    assert_eq!(
        r.build_info.as_deref(),
        Some("emulator 6.0.0.129(DEVC00E129R4P11)")
    );
    assert_eq!(r.timestamp.as_deref(), Some("2026-01-25 02:22:22.183"));
    assert_eq!(r.time().unwrap().to_string(), "2026-01-25 02:22:22.183");
    assert_eq!(r.module_name.as_deref(), Some("com.example.nwpucampus"));
    assert_eq!(r.version.as_deref(), Some("1.0.0"));
    assert_eq!(r.version_code.as_deref(), Some("1000000"));
    assert_eq!(r.pre_installed, Some(false));
    assert_eq!(r.foreground, Some(true));
    assert_eq!(r.pid, Some(8960));
    assert_eq!(r.uid, Some(20020059));
    assert_eq!(r.process_name, None, "this build prints no Process name");
    assert_eq!(r.process_life_time.as_deref(), Some("346s"));
    assert_eq!(r.reason.as_deref(), Some("TypeError"));
    assert_eq!(r.error_name.as_deref(), Some("TypeError"));
    assert!(
        r.error_message
            .as_deref()
            .unwrap()
            .starts_with("@Component '@Component 'MapCanvas'[7]': Illegal variable value error")
    );
    assert_eq!(r.stacktrace.len(), 10);
    assert!(r.stacktrace[0].starts_with("at varValueCheckFailed ("));
    assert_eq!(
        r.stacktrace[4],
        "at MapCanvas entry (entry/src/main/ets/components/MapCanvas.ets:14:1)"
    );
    assert!(r.fault_thread.is_none());
    assert!(!r.truncated);
    assert_eq!(r.subject(), Some("com.example.nwpucampus"));

    // The HiLog section: every line is hilog.
    assert_eq!(r.hilog.len(), 372);
    let lines: Vec<&str> = r.hilog.iter().map(String::as_str).collect();
    assert_eq!(
        level_counts(&lines),
        BTreeMap::from([('E', 60), ('I', 246), ('W', 66)])
    );
    let recs = parse_text(&r.hilog.join("\n"));
    let markers = find_app_crash_markers(&recs);
    assert_eq!(markers.len(), 1);
    assert_eq!(markers[0].stacktrace.len(), 10);
    assert_eq!(markers[0].error_message, r.error_message);
}

#[test]
fn jscrash_typeerror_web_header_stack_and_hilog() {
    let text = fixture("jscrash_with_hilog_emulator6_typeerror_web.txt");
    let r = parse_crash_file(
        &text,
        Some("jscrash-com.example.nwpucampus-20020059-20260123210152833.log"),
    );
    assert_eq!(r.kind, CrashKind::Jscrash);
    assert_eq!(
        r.file_name.as_deref(),
        Some("jscrash-com.example.nwpucampus-20020059-20260123210152833.log")
    );
    assert_eq!(r.pid, Some(6724));
    assert_eq!(r.timestamp.as_deref(), Some("2026-01-23 21:01:52.833"));
    assert_eq!(
        r.error_message.as_deref(),
        Some("Cannot read property injectOsmToWeb of undefined")
    );
    assert_eq!(
        r.stacktrace,
        vec!["at onWebPageEnd entry (entry/src/main/ets/pages/Index.ets:212:10)"]
    );
    assert_eq!(r.hilog.len(), 1007);
    let lines: Vec<&str> = r.hilog.iter().map(String::as_str).collect();
    assert_eq!(
        level_counts(&lines),
        BTreeMap::from([('D', 430), ('E', 74), ('I', 447), ('W', 56)])
    );
    // The whole file through the record parser: 22 header records (the blank line kept), then
    // 1007 hilog records; the `HiLog:` line is a raw record of its own.
    let recs = parse_text(&text);
    assert_eq!(recs.iter().filter(|r| r.hilog.is_some()).count(), 1007);
    assert_eq!(recs.iter().filter(|r| r.hilog.is_none()).count(), 23);
}

#[test]
fn truncated_cppcrash_head_still_parses() {
    let text = fixture("cppcrash_faultlogger_com_ohos_note_dayu200_head.txt");
    assert!(looks_like_crash_file(&text));
    let r = parse_crash_file(&text, None);
    assert_eq!(r.kind, CrashKind::Cppcrash);
    assert_eq!(r.device_info.as_deref(), Some("OpenHarmony 3.2"));
    assert_eq!(r.module_name.as_deref(), Some("com.ohos.note"));
    assert_eq!(r.process_name.as_deref(), Some("com.ohos.note"));
    assert_eq!(r.pid, Some(9639));
    assert_eq!(r.uid, Some(20010019));
    assert_eq!(r.pre_installed, Some(true));
    assert_eq!(r.timestamp.as_deref(), Some("2026-09-16 15:14:46.000"));
    assert_eq!(
        r.reason.as_deref(),
        Some("Signal:SIGSEGV(SI_USER)@0x000025d9 from:9689:0")
    );
    assert_eq!(r.process_life_time.as_deref(), Some("6s"));
    let ft = r.fault_thread.as_ref().unwrap();
    assert_eq!(ft.tid, Some(9639));
    assert_eq!(ft.name.as_deref(), Some("com.ohos.note"));
    assert_eq!(ft.frames.len(), 21);
    assert_eq!(ft.frames[0].symbol.as_deref(), Some("epoll_wait"));
    assert_eq!(
        ft.frames[6].library,
        "/system/lib/platformsdk/libappkit_native.z.so"
    );
    assert_eq!(
        ft.frames[6].symbol.as_deref(),
        Some("OHOS::AppExecFwk::MainThread::Start()")
    );
    assert_eq!(ft.frames[6].offset, Some(278));
    assert_eq!(ft.frames[20].index, 20);
    assert_eq!(ft.frames[20].symbol, None);
    assert!(r.stacktrace.is_empty() && r.hilog.is_empty());
    assert!(r.truncated, "the fixture stops at `Other thread info:`");
    // Registers are not mistaken for frames or header fields.
    assert!(ft.frames.iter().all(|f| !f.raw.starts_with("r0:")));
}

mod never_panics {
    use chrono::DateTime;
    use proptest::prelude::*;
    use tapflow_device::logs::crash::{
        parse_crash_file, parse_crash_file_name, parse_native_frame,
    };
    use tapflow_device::logs::hilog::{parse_line, parse_text};
    use tapflow_device::logs::time::{PointRole, parse_time_expr, parse_time_point};

    /// Text built from the pieces real lines are made of, so the parsers' deeper branches run.
    fn loggy() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("01-23 21:01:52.839".to_string()),
                Just("  6724  6724 ".to_string()),
                Just("E C01317/AppKit: ".to_string()),
                Just("is about to exit due to RuntimeError".to_string()),
                Just("Error message:".to_string()),
                Just("Stacktrace:\n".to_string()),
                Just("HiLog:\n".to_string()),
                Just("#00 pc 0001 /lib.so(f(a)+1)(90eb79e807337289ff99d3d78741363f)\n".to_string()),
                Just("Fault thread info:\n".to_string()),
                Just("\r\n".to_string()),
                Just("\x1B[0m".to_string()),
                "\\PC{0,12}",
            ],
            0..24,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #[test]
        fn hilog_and_crash_parsers(text in loggy()) {
            let _ = parse_text(&text);
            for line in text.lines() {
                let _ = parse_line(line);
                let _ = parse_native_frame(line);
                let _ = parse_crash_file_name(line);
            }
            let _ = parse_crash_file(&text, None);
        }

        #[test]
        fn arbitrary_unicode(text in "\\PC{0,200}") {
            let _ = parse_text(&text);
            let _ = parse_crash_file(&text, Some(&text));
        }

        #[test]
        fn time_parsers(expr in "(last|since|between|最近|from)? ?[0-9:a-z -]{0,20}") {
            let now = DateTime::parse_from_rfc3339("2026-01-23T21:05:00+08:00").unwrap();
            let _ = parse_time_expr(&expr, &now);
            let _ = parse_time_point(&expr, &now, PointRole::Start);
        }
    }
}
