//! The device source: realtime snapshot plus sampling window, markers already in the buffer,
//! filter push-down, the historical fallback, device failures and `include_crash`.

use std::path::Path;

use serde_json::json;
use tapflow_device::logs::hilog::Level;
use tapflow_device::logs::{DeviceLogFilter, NoDevice, execute};

use super::fake_device::{FakeDevice, run_dev};
use super::{env_in, fixture, params, synthetic};

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
