//! Markers: found and missing, the default markers and regex markers.

use serde_json::json;
use tapflow_device::logs::classify::ItemKind;

use super::{excerpt_lines, run, synthetic};

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
