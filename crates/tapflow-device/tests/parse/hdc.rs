//! The hdc parsers over every real fixture in `tests/fixtures/harmonyos/` (one test per fixture,
//! named after it). Edge cases live beside each parser as unit tests.

use std::fs;
use std::path::PathBuf;

use tapflow_device::hdc::parse::{
    aa::parse_missions,
    bm::{parse_bundle_info, parse_bundle_list},
    clean_output,
    failure::detect_hdc_failure,
    faultlog::{parse_crash_file_name, parse_crash_listing},
    layout, outcome,
    param::parse_param,
    power::parse_power_state,
    screen::{parse_display_manager_screen, parse_render_service_screen},
    targets::parse_targets,
    windows::{parse_window_detail, parse_window_table},
};
use tapflow_device::model::{Bounds, CrashKind, Rect, ScreenSize, TargetState, UiNode};

fn fixture(name: &str) -> String {
    let path: PathBuf = [
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
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

// ---------------------------------------------------------------- bm

#[test]
fn bm_dump_a_truncated() {
    let bundles = parse_bundle_list(&cleaned("bm_dump_a_truncated.txt")).unwrap();
    assert_eq!(bundles.len(), 12);
    assert_eq!(bundles[0], "com.huawei.associateassistant");
    assert_eq!(bundles[11], "com.huawei.hmos.authcredmgr");
    // The README's `  ...` elision is not a bundle.
    assert!(bundles.iter().all(|b| !b.contains("...")));
}

#[test]
fn bm_dump_n_camera_abridged() {
    let p = parse_bundle_info(&cleaned("bm_dump_n_camera_abridged.txt")).unwrap();
    assert_eq!(p.bundle_name, "com.huawei.hmos.camera");
    assert_eq!(p.entry_module.as_deref(), Some("phone"));
    assert_eq!(
        p.main_ability.as_deref(),
        Some("com.huawei.hmos.camera.MainAbility")
    );
    assert_eq!(p.main_module.as_deref(), Some("phone"));
    let modules: Vec<(&str, Option<&str>)> = p
        .modules
        .iter()
        .map(|m| (m.name.as_str(), m.module_type.as_deref()))
        .collect();
    assert_eq!(
        modules,
        [("phone", Some("entry")), ("picker", Some("feature"))]
    );
    assert_eq!(p.modules[1].main_ability, None, "\"\" is unset");
    let names: Vec<&str> = p.abilities.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "com.huawei.hmos.camera.CollaborationAbility",
            "com.huawei.hmos.camera.MainAbility",
            "PickerAbility"
        ]
    );
    // isLauncherAbility says false, but the home skill makes MainAbility the launcher.
    let launchers: Vec<&str> = p
        .abilities
        .iter()
        .filter(|a| a.is_launcher)
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(launchers, ["com.huawei.hmos.camera.MainAbility"]);
    assert_eq!(p.abilities[1].entities, ["entity.system.home"]);
    assert_eq!(
        p.abilities[1].actions,
        ["action.system.home", "ohos.want.action.home"]
    );
    assert_eq!(p.abilities[2].module, "picker");
    assert_eq!(p.abilities[2].bundle, "com.huawei.hmos.camera");
    assert_eq!(p.abilities[2].kind, None);
    assert_eq!(p.version_name, None);
    assert!(p.permissions.is_empty());
}

#[test]
fn bm_dump_n_himovie_abridged() {
    let p = parse_bundle_info(&cleaned("bm_dump_n_himovie_abridged.txt")).unwrap();
    assert_eq!(p.bundle_name, "com.huawei.hmsapp.himovie");
    assert_eq!(p.main_ability.as_deref(), Some("MainAbility"));
    assert_eq!(p.main_module.as_deref(), Some("entry"));
    assert_eq!(p.modules.len(), 1);
    assert_eq!(p.abilities.len(), 1);
    let a = &p.abilities[0];
    assert!(a.is_launcher);
    // Actions and entities over all skills, deduplicated, in order.
    assert_eq!(
        a.actions,
        [
            "action.system.home",
            "ohos.want.action.viewData",
            "wxentity.action.open"
        ]
    );
    assert_eq!(
        a.entities,
        ["entity.system.home", "entity.system.browsable"]
    );
}

/// The README copy elides parts with `...`: not JSON. The parser refuses it and says where;
/// with the elision lines removed (done here, not in the parser) the real content maps fully.
#[test]
fn bm_dump_n_kuaishou_abridged_readme() {
    let text = cleaned("bm_dump_n_kuaishou_abridged_readme.txt");
    let err = parse_bundle_info(&text).unwrap_err();
    assert_eq!(err.what, "bundle info");
    assert!(err.detail.contains("line 7 column 9"), "{}", err.detail);

    let unelided: String = text
        .lines()
        .filter(|l| l.trim() != "...")
        .map(|l| format!("{l}\n"))
        .collect();
    let p = parse_bundle_info(&unelided).unwrap();
    assert_eq!(p.bundle_name, "com.kuaishou.hmapp");
    assert_eq!(p.version_name.as_deref(), Some("12.2.40"));
    assert_eq!(p.version_code, Some(999_999));
    assert_eq!(p.debug, Some(true));
    // applicationInfo.entryModuleName is "" there; the top-level one names the module.
    assert_eq!(p.entry_module.as_deref(), Some("kwai"));
    assert!(p.modules.is_empty());
    assert_eq!(p.main_ability, None);
    assert_eq!(p.permissions.len(), 6);
    assert_eq!(p.permissions[0], "ohos.permission.ACCELEROMETER");
    assert_eq!(p.permissions[5], "ohos.permission.STORE_PERSISTENT_DATA");
}

// ---------------------------------------------------------------- aa

#[test]
fn aa_dump_l_kuaishou() {
    let m = parse_missions(&cleaned("aa_dump_l_kuaishou.txt"));
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].mission_id, 139);
    assert_eq!(m[0].bundle, "com.kuaishou.hmapp");
    assert_eq!(m[0].module.as_deref(), Some("kwai"));
    assert_eq!(m[0].ability, "EntryAbility");
    assert_eq!(m[0].state, "FOREGROUND");
}

#[test]
fn aa_dump_l_mission_list() {
    // CRLF as captured on Windows: parsed raw and cleaned alike.
    let raw = fixture("aa_dump_l_mission_list.txt");
    let m = parse_missions(&clean_output(&raw));
    assert_eq!(parse_missions(&raw), m);
    // Extension records below the mission list are not missions.
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].mission_id, 368);
    assert_eq!(m[0].bundle, "com.huawei.hmsapp.himovie");
    assert_eq!(m[0].module.as_deref(), Some("entry"));
    assert_eq!(m[0].ability, "MainAbility");
    assert_eq!(m[0].state, "FOREGROUND");
}

// ---------------------------------------------------------------- windows

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

// ---------------------------------------------------------------- screen / power

fn size(width: u32, height: u32) -> Option<ScreenSize> {
    Some(ScreenSize { width, height })
}

#[test]
fn hidumper_renderservice_screen_mate60pro() {
    // `render size: WxH`, screen reported off: still the phone's only screen.
    let text = cleaned("hidumper_renderservice_screen_mate60pro.txt");
    assert_eq!(parse_render_service_screen(&text), size(1260, 2720));
}

#[test]
fn hidumper_renderservice_screen_1216x2688_midscene_test_embedded() {
    let text = cleaned("hidumper_renderservice_screen_1216x2688_midscene_test_embedded.txt");
    assert_eq!(parse_render_service_screen(&text), size(1216, 2688));
}

#[test]
fn hidumper_renderservice_screen_matex7_foldable_annotated() {
    let text = cleaned("hidumper_renderservice_screen_matex7_foldable_annotated.txt");
    // The file holds two captures, each introduced by a `### === …` annotation line:
    // A = unfolded (inner screen[0] on), B = folded (outer screen[1] on).
    let captures: Vec<&str> = text.split("\n### ===").skip(1).collect();
    assert_eq!(captures.len(), 2);
    assert_eq!(parse_render_service_screen(captures[0]), size(2416, 2210));
    assert_eq!(parse_render_service_screen(captures[1]), size(1080, 2444));
    // Whole file: the first powered-on screen; the annotations (which mention sizes) are ignored.
    assert_eq!(parse_render_service_screen(&text), size(2416, 2210));
}

#[test]
fn hidumper_displaymanager_a_a_mate60pro() {
    let text = cleaned("hidumper_displaymanager_a_a_mate60pro.txt");
    assert_eq!(parse_display_manager_screen(&text), size(1260, 2720));
    // Not a RenderService dump.
    assert_eq!(parse_render_service_screen(&text), None);
}

#[test]
fn hidumper_powermanager_a_s_mate60pro() {
    let p = parse_power_state(&cleaned("hidumper_powermanager_a_s_mate60pro.txt")).unwrap();
    assert_eq!(p.state, "AWAKE");
    assert!(p.awake);
}

// ---------------------------------------------------------------- faultlog

/// No listing fixture exists; the crash file's own header gives a real process name, uid and
/// time, from which faultlogger's file name is built and parsed back.
#[test]
fn cppcrash_faultlogger_com_ohos_note_dayu200_head() {
    let text = cleaned("cppcrash_faultlogger_com_ohos_note_dayu200_head.txt");
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .unwrap_or_else(|| panic!("{key}"))
            .trim()
            .to_string()
    };
    let process = field("Process name:");
    let uid = field("Uid:");
    let stamp: String = field("Timestamp:")
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let name = format!("cppcrash-{process}-{uid}-{stamp}.log");
    let e = parse_crash_file_name(&name).unwrap();
    assert_eq!(e.kind, CrashKind::Cppcrash);
    assert_eq!(e.process, "com.ohos.note");
    assert_eq!(e.uid, Some(20_010_019));
    assert_eq!(e.timestamp, "20260916151446000");
    let listing = format!("{name}\njscrash-com.example.nwpucampus-20020059-1769278942183.log\n");
    let all = parse_crash_listing(&listing);
    assert_eq!(all.len(), 2);
    assert_eq!(all[1].kind, CrashKind::Jscrash);
}

// ---------------------------------------------------------------- robustness

/// Every parser over every fixture: never a panic, whatever it is fed.
#[test]
fn every_parser_over_every_fixture_never_panics() {
    let dir: PathBuf = [
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "tests",
        "fixtures",
        "harmonyos",
    ]
    .iter()
    .collect();
    let mut count = 0;
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let text = clean_output(&text);
        let _ = detect_hdc_failure(&text);
        let _ = parse_targets(&text);
        let _ = parse_param(&text);
        let _ = parse_bundle_list(&text);
        let _ = parse_bundle_info(&text);
        let _ = parse_missions(&text);
        let _ = parse_window_table(&text);
        let _ = parse_window_detail(&text);
        let _ = parse_render_service_screen(&text);
        let _ = parse_display_manager_screen(&text);
        let _ = parse_power_state(&text);
        let _ = parse_crash_listing(&text);
        let _ = layout::parse_layout(&text);
        let _ = outcome::install(&text);
        let _ = outcome::snapshot_display(&text);
        let _ = outcome::ui_input(&text);
        count += 1;
    }
    assert!(count >= 45, "read {count} fixtures");
}

proptest::proptest! {
    /// Arbitrary text (any Unicode, multi-byte characters at every cut) never panics a parser.
    #[test]
    fn every_parser_on_arbitrary_text_never_panics(s in "(\\PC|[\\[\\]{}:#\\-\\n\\t x0-9])*") {
        let _ = clean_output(&s);
        let _ = detect_hdc_failure(&s);
        let _ = parse_targets(&s);
        let _ = parse_param(&s);
        let _ = parse_bundle_list(&s);
        let _ = parse_bundle_info(&s);
        let _ = parse_missions(&s);
        let _ = parse_window_table(&s);
        let _ = parse_window_detail(&s);
        let _ = parse_render_service_screen(&s);
        let _ = parse_display_manager_screen(&s);
        let _ = parse_power_state(&s);
        let _ = parse_crash_listing(&s);
        let _ = layout::parse_layout(&s);
        let _ = outcome::install(&s);
        let _ = outcome::uninstall(&s);
        let _ = outcome::aa_start(&s);
        let _ = outcome::file_transfer(&s);
        let _ = outcome::snapshot_display(&s);
        let _ = outcome::ui_input(&s);
        let _ = outcome::dump_layout(&s);
        let _ = outcome::screen_cap(&s);
    }

    /// Table-shaped lines with multi-byte text in every column.
    #[test]
    fn line_parsers_on_prefixed_unicode_never_panic(
        prefix in proptest::sample::select(vec![
            "Mission ID #", "screen[0]: ", "total window num:", "Total window num:", "Focus window:",
            "WindowName DisplayId Pid WinId\n", "Bounds<L,T,W,H>:", "activeModes<id, W, H, RS>:",
            "Current State:", "success: snapshot display 0 , write to ", "ID: ", "cppcrash-",
            "WindowRect: [", "{", "[",
        ]),
        body in "\\PC{0,40}",
    ) {
        let s = format!("{prefix}{body}");
        let _ = parse_missions(&s);
        let _ = parse_window_table(&s);
        let _ = parse_window_detail(&s);
        let _ = parse_render_service_screen(&s);
        let _ = parse_display_manager_screen(&s);
        let _ = parse_power_state(&s);
        let _ = parse_bundle_list(&s);
        let _ = parse_bundle_info(&s);
        let _ = parse_crash_file_name(&s);
        let _ = outcome::snapshot_display(&s);
        let _ = layout::parse_layout(&s);
    }
}
