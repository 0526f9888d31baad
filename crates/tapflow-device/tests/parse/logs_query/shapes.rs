//! Shapes: the result's and the parameter schema's contract fields, the demo app's markers, and
//! crash file failures reported rather than fatal.

use serde_json::json;
use tapflow_device::logs::{LogsQueryParams, LogsQueryResult};

use super::fake_device::{FakeDevice, run_dev};
use super::{run, synthetic};

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
