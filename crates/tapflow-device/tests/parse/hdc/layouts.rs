//! UI layout dumps: counts, root, windows, round trip, compact against pretty, and the parse
//! time of the largest dump.

use tapflow_device::hdc::parse::layout;
use tapflow_device::model::{Bounds, UiNode};

use super::fixture;

struct LayoutExpect {
    nodes: usize,
    root_bounds: Bounds,
    root_keys: usize,
    /// (type, bundleName, hostWindowId) of each window node, in order.
    windows: &'static [(&'static str, &'static str, i64)],
}

fn merged_root(text: &str) -> UiNode {
    match layout::parse_layout(text).expect("fixture parses") {
        layout::LayoutDump::Merged(root) => root,
        other => panic!("expected a merged root, got {other:?}"),
    }
}

/// The checks every layout fixture gets: counts, root, windows, round trip, compact == pretty,
/// and the `-i` array form built from the same windows.
fn check_layout(name: &str, want: &LayoutExpect) -> UiNode {
    let text = fixture(name);
    let root = merged_root(&text);

    assert_eq!(root.node_count(), want.nodes, "node count");
    assert_eq!(root.bounds(), Some(want.root_bounds), "root bounds");
    assert_eq!(
        root.attributes.len(),
        want.root_keys,
        "root attribute count"
    );
    // The synthetic root: every attribute "" except bounds.
    assert!(
        root.attributes
            .iter()
            .all(|(k, v)| k == "bounds" || v.is_empty())
    );
    let windows: Vec<(&str, &str, i64)> = root
        .children
        .iter()
        .map(|w| {
            (
                w.node_type(),
                w.attr("bundleName"),
                w.window_id().expect("hostWindowId"),
            )
        })
        .collect();
    assert_eq!(windows, want.windows, "windows");

    // Attributes verbatim and in file order: compare with serde_json's own reading.
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let file_keys: Vec<&String> = value["attributes"].as_object().unwrap().keys().collect();
    let parsed_keys: Vec<&String> = root.attributes.keys().collect();
    assert_eq!(parsed_keys, file_keys, "root attribute order");

    // Re-serialised and re-parsed: identical tree; and identical JSON to the input's structure.
    let again = serde_json::to_string(&root).unwrap();
    assert_eq!(merged_root(&again), root, "round trip");
    let again_value: serde_json::Value = serde_json::from_str(&again).unwrap();
    assert_eq!(again_value, value, "structural identity with the file");

    // Compact (real uitest output) and pretty forms parse identically.
    let compact = serde_json::to_string(&value).unwrap();
    assert!(!compact.contains('\n'));
    assert_eq!(merged_root(&compact), root, "compact == pretty");

    // `-i` array form of the same windows merges back to the same bounds and children.
    let array = serde_json::to_string(&root.children).unwrap();
    let per_window = layout::parse_layout(&array).unwrap();
    assert!(
        matches!(per_window, layout::LayoutDump::PerWindow(ref w) if w.len() == want.windows.len())
    );
    let merged = per_window.into_merged();
    assert_eq!(merged.bounds(), Some(want.root_bounds), "-i merged bounds");
    assert_eq!(merged.children, root.children, "-i merged children");

    assert_eq!(
        layout::is_locked_screen_root(&root),
        want.windows.is_empty()
    );
    root
}

#[test]
fn layout_haptest_logindemo_login_pretty() {
    let root = check_layout(
        "layout_haptest_logindemo_login_pretty.json",
        &LayoutExpect {
            nodes: 44,
            root_bounds: Bounds::new(0, 0, 1344, 2772),
            root_keys: 17,
            windows: &[
                ("root", "com.huawei.logindemo", 155),
                ("WindowScene", "com.ohos.sceneboard", 30),
            ],
        },
    );
    assert_eq!(root.children[0].attr("bounds"), "[0,136][1344,2772]");
}

#[test]
fn layout_haptest_logindemo_save_keyboard_pretty() {
    check_layout(
        "layout_haptest_logindemo_save_keyboard_pretty.json",
        &LayoutExpect {
            nodes: 56,
            root_bounds: Bounds::new(0, 0, 1344, 2772),
            root_keys: 17,
            windows: &[
                ("root", "com.huawei.logindemo", 42),
                ("WindowScene", "com.ohos.sceneboard", 28),
                ("root", "com.huawei.hmos.inputmethod", 3),
            ],
        },
    );
}

#[test]
fn layout_haptest_soundrecorder_modalpage_pretty() {
    let root = check_layout(
        "layout_haptest_soundrecorder_modalpage_pretty.json",
        &LayoutExpect {
            nodes: 137,
            root_bounds: Bounds::new(0, 0, 1344, 2772),
            root_keys: 17,
            windows: &[
                ("root", "com.huawei.hmos.soundrecorder", 81),
                ("WindowScene", "com.ohos.sceneboard", 27),
            ],
        },
    );
    assert!(root.walk().any(|n| n.node_type() == "ModalPage"));
}

#[test]
fn layout_haptest_vmall_web_keyboard_large_pretty() {
    let text = fixture("layout_haptest_vmall_web_keyboard_large_pretty.json");
    assert!(text.len() > 1_000_000);
    let root = check_layout(
        "layout_haptest_vmall_web_keyboard_large_pretty.json",
        &LayoutExpect {
            nodes: 358,
            root_bounds: Bounds::new(0, 0, 1136, 2690),
            root_keys: 23,
            windows: &[
                ("root", "com.huawei.hmos.vmall", 282),
                ("WindowScene", "com.ohos.sceneboard", 33),
                ("root", "com.huawei.hmos.inputmethod", 3),
                ("WindowScene", "com.ohos.sceneboard", 4),
            ],
        },
    );
    // Web nodes keep their accessibility roles as types, and opacity verbatim.
    assert!(root.walk().any(|n| n.node_type() == "Web"));
    assert!(root.walk().any(|n| n.attr("opacity") == "0.000000"));
}

#[test]
fn layout_hmdriver2_uitest_demo_mate60pro_pretty() {
    check_layout(
        "layout_hmdriver2_uitest_demo_mate60pro_pretty.json",
        &LayoutExpect {
            nodes: 76,
            root_bounds: Bounds::new(0, 0, 1260, 2720),
            root_keys: 23,
            windows: &[
                ("root", "com.samples.test.uitest", 199),
                ("WindowScene", "com.ohos.sceneboard", 33),
            ],
        },
    );
}

#[test]
fn layout_ohauto_dayu200_locked_screen_no_window_compact() {
    let root = check_layout(
        "layout_ohauto_dayu200_locked_screen_no_window_compact.json",
        &LayoutExpect {
            nodes: 1,
            root_bounds: Bounds::new(0, 0, 0, 0),
            root_keys: 23,
            windows: &[],
        },
    );
    assert!(layout::is_locked_screen_root(&root));
    // Compact in, compact out: byte-identical.
    let text = fixture("layout_ohauto_dayu200_locked_screen_no_window_compact.json");
    assert_eq!(serde_json::to_string(&root).unwrap(), text.trim_end());
}

/// Parse time of the largest real dump (1.3 MB, a Web page), for before/after comparisons of the
/// layout parser. Run: `cargo test -p tapflow-device --test parse -- --ignored --nocapture layout_parse_time`.
#[test]
#[ignore = "timing measurement, prints only"]
fn layout_parse_time_vmall_web_keyboard_large() {
    let text = fixture("layout_haptest_vmall_web_keyboard_large_pretty.json");
    let runs = 20;
    let start = std::time::Instant::now();
    for _ in 0..runs {
        let dump = layout::parse_layout(std::hint::black_box(&text)).unwrap();
        std::hint::black_box(dump);
    }
    let per_run = start.elapsed() / runs;
    println!(
        "parse_layout over {} bytes: {per_run:?} per parse (mean of {runs})",
        text.len()
    );
}
