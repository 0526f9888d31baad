//! `hidumper -s WindowManagerService`: the window table and a window's detail.

use tapflow_device::hdc::parse::windows::{parse_window_detail, parse_window_table};
use tapflow_device::model::Rect;

use super::cleaned;

#[test]
fn hidumper_wms_a_window_list_openharmony_docs_720x1280() {
    let t = parse_window_table(&cleaned(
        "hidumper_wms_a_window_list_openharmony_docs_720x1280.txt",
    ))
    .unwrap();
    assert_eq!(t.windows.len(), 10);
    assert_eq!(t.focus_window, Some(2));
    assert_eq!(t.total, Some(10));
    let visible: Vec<&str> = t
        .windows
        .iter()
        .filter(|w| w.visible)
        .map(|w| w.name.as_str())
        .collect();
    assert_eq!(
        visible,
        [
            "ScreenLockWindow",
            "SystemUi_NavigationBar",
            "SystemUi_StatusBar",
            "settings0",
            "EntryView"
        ]
    );
    let settings = &t.windows[3];
    assert_eq!(
        (
            settings.display_id,
            settings.pid,
            settings.window_id,
            settings.window_type
        ),
        (0, 10733, 11, 1)
    );
    assert_eq!(
        (
            settings.mode,
            settings.flag,
            settings.z_order,
            settings.orientation
        ),
        (1, 1, 1, 0)
    );
    assert_eq!(
        settings.rect,
        Rect {
            x: 0,
            y: 72,
            w: 720,
            h: 1136
        }
    );
    let hidden = &t.windows[6];
    assert_eq!(hidden.name, "SystemUi_DropdownPan", "truncated name kept");
    assert!(!hidden.visible);
    assert_eq!(hidden.z_order, -1);
    assert_eq!(hidden.rect, Rect::default());
    assert!(t.windows.iter().all(|w| w.bundle_name.is_none()));
}

#[test]
fn hidumper_wms_a_window_list_next_2in1_trimmed_test_embedded() {
    let t = parse_window_table(&cleaned(
        "hidumper_wms_a_window_list_next_2in1_trimmed_test_embedded.txt",
    ))
    .unwrap();
    assert_eq!(t.windows.len(), 2);
    assert_eq!(t.focus_window, Some(225));
    assert_eq!(
        t.total,
        Some(92),
        "the trailer's count, not the trimmed row count"
    );
    let w = &t.windows[0];
    assert_eq!(w.name, "installer0");
    assert_eq!(
        (w.pid, w.window_id, w.mode, w.z_order),
        (54500, 225, 102, 114)
    );
    assert_eq!(
        w.rect,
        Rect {
            x: 584,
            y: 732,
            w: 1600,
            h: 1065
        }
    );
    assert!(w.visible);
    assert_eq!(
        t.windows[1].rect,
        Rect {
            x: 0,
            y: 0,
            w: 2080,
            h: 1303
        }
    );
}

#[test]
fn hidumper_wms_w_window_detail_2in1_test_embedded() {
    let d = parse_window_detail(&cleaned(
        "hidumper_wms_w_window_detail_2in1_test_embedded.txt",
    ))
    .unwrap();
    assert_eq!(d.window_name.as_deref(), Some("filemanager0"));
    assert_eq!(d.window_id, Some(266));
    assert_eq!(d.pid, Some(44667));
    assert_eq!(d.visible, Some(true));
    assert_eq!(
        d.rect,
        Some(Rect {
            x: 1026,
            y: 320,
            w: 2068,
            h: 1394
        })
    );
    assert_eq!(d.fields.len(), 20);
    assert_eq!(d.fields.get("Mode").map(String::as_str), Some("102"));
    assert_eq!(
        d.fields.get("Scale").map(String::as_str),
        Some("[ 1, 1, 0.5, 0.5 ]")
    );
    assert_eq!(
        d.fields.keys().next().map(String::as_str),
        Some("WindowName")
    );
}
