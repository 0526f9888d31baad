//! The hdc parsers over every real fixture in `tests/fixtures/harmonyos/` (one test per fixture,
//! named after it). Edge cases live beside each parser as unit tests.

use std::fs;
use std::path::PathBuf;

use tapflow::device::hdc::parse::{
    clean_output, failure::detect_hdc_failure, layout, outcome, param::parse_param,
    targets::parse_targets,
};
use tapflow::device::model::{Bounds, TargetState, UiNode};

fn fixture(name: &str) -> String {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "fixtures",
        "harmonyos",
        name,
    ]
    .iter()
    .collect();
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Fixture text as the backend hands it to parsers.
fn cleaned(name: &str) -> String {
    clean_output(&fixture(name))
}

// ---------------------------------------------------------------- clean_output / failures

#[test]
fn hdc_file_recv_success_log_line_is_dropped() {
    let text = cleaned("hdc_file_recv_success.txt");
    assert_eq!(
        text,
        "FileTransfer finish, Size:71792, File count = 1, time:12ms rate:5982.67kB/s\n"
    );
    assert_eq!(outcome::file_transfer(&text), Ok(()));
    assert_eq!(detect_hdc_failure(&text), None);
}

#[test]
fn hdc_file_send_success() {
    let text = cleaned("hdc_file_send_success.txt");
    assert_eq!(outcome::file_transfer(&text), Ok(()));
    assert_eq!(detect_hdc_failure(&text), None);
}

#[test]
fn aa_dump_l_mission_list_crlf_is_cleaned() {
    let raw = fixture("aa_dump_l_mission_list.txt");
    assert!(raw.contains("\r\n"));
    let text = clean_output(&raw);
    assert!(!text.contains('\r'));
    assert_eq!(text.lines().count(), raw.lines().count());
}

// ---------------------------------------------------------------- outcomes

#[test]
fn hdc_install_success() {
    let text = cleaned("hdc_install_success.txt");
    assert_eq!(detect_hdc_failure(&text), None);
    assert_eq!(outcome::install(&text), Ok(()));
}

#[test]
fn hdc_uninstall_success() {
    let text = cleaned("hdc_uninstall_success.txt");
    assert_eq!(detect_hdc_failure(&text), None);
    assert_eq!(outcome::uninstall(&text), Ok(()));
    // The uninstall message is not an install success the other way round.
    assert!(outcome::install("[Info]App install path:/x.hap, msg:\nAppMod finish").is_err());
}

#[test]
fn aa_start_u_stdout() {
    let text = cleaned("aa_start_U_stdout.txt");
    assert_eq!(outcome::aa_start(&text), Ok(()));
    // The same success line is not accepted as another command's success.
    assert!(outcome::aa_force_stop(&text).is_err());
}

#[test]
fn uitest_dumplayout_stdout() {
    let text = cleaned("uitest_dumplayout_stdout.txt");
    assert_eq!(
        outcome::dump_layout(&text),
        Ok("/data/local/tmp/layout_407568854.json".to_string())
    );
}

// ---------------------------------------------------------------- targets

#[test]
fn hdc_list_targets() {
    let t = parse_targets(&cleaned("hdc_list_targets.txt"));
    let serials: Vec<&str> = t.iter().map(|t| t.serial.as_str()).collect();
    assert_eq!(serials, ["127.0.0.1:5555", "FMR0223C13000649"]);
    assert!(t.iter().all(|t| t.state == TargetState::Connected));
    assert!(t.iter().all(|t| t.connection.is_none() && t.name.is_none()));
}

#[test]
fn hdc_list_targets_v() {
    let t = parse_targets(&cleaned("hdc_list_targets_v.txt"));
    assert_eq!(t.len(), 2);
    assert_eq!(t[0].serial, "127.0.0.1:5555");
    assert_eq!(t[0].connection.as_deref(), Some("TCP"));
    assert_eq!(t[0].state, TargetState::Connected);
    assert_eq!(t[0].name.as_deref(), Some("localhost"));
    assert_eq!(t[1].serial, "FMR0223C13000649");
    assert_eq!(t[1].connection.as_deref(), Some("USB"));
    assert_eq!(t[1].state, TargetState::Connected);
    assert_eq!(t[1].name.as_deref(), Some("unknown..."));
}

// ---------------------------------------------------------------- param

fn param(name: &str) -> Result<String, String> {
    parse_param(&cleaned(name))
}

#[test]
fn param_get_const_ohos_apiversion() {
    assert_eq!(
        param("param_get_const_ohos_apiversion.txt").as_deref(),
        Ok("12")
    );
}

#[test]
fn param_get_const_product_brand() {
    assert_eq!(
        param("param_get_const_product_brand.txt").as_deref(),
        Ok("HUAWEI")
    );
}

#[test]
fn param_get_const_product_cpu_abilist() {
    assert_eq!(
        param("param_get_const_product_cpu_abilist.txt").as_deref(),
        Ok("arm64-v8a")
    );
}

#[test]
fn param_get_const_product_model() {
    assert_eq!(
        param("param_get_const_product_model.txt").as_deref(),
        Ok("ALN-AL00")
    );
}

#[test]
fn param_get_const_product_name() {
    assert_eq!(
        param("param_get_const_product_name.txt").as_deref(),
        Ok("HUAWEI Mate 60 Pro")
    );
}

#[test]
fn param_get_const_product_software_version() {
    assert_eq!(
        param("param_get_const_product_software_version.txt").as_deref(),
        Ok("ALN-AL00 5.0.0.22(SP35DEVC00E22R4P1log)")
    );
}

// ---------------------------------------------------------------- layout

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
