//! Conformance rows of the `hidumper` captures (display, power, render service, windows), `hilog`,
//! the host's `hvigor` output and the jscrash files.

use super::checks::*;
use super::*;

/// The rows from `hidumper_…` to `jscrash_…`.
pub(super) fn rows() -> Vec<Row> {
    vec![
        Row {
            fixture: "hidumper_displaymanager_a_a_mate60pro.txt",
            command: "hidumper -s DisplayManagerService -a -a",
            status: Status::Same,
            note: "line shapes",
            check: Some(|| {
                same_shapes(
                    &Phone::new().sh("hidumper -s DisplayManagerService -a -a"),
                    &fixture("hidumper_displaymanager_a_a_mate60pro.txt"),
                )
            }),
        },
        Row {
            fixture: "hidumper_powermanager_a_s_mate60pro.txt",
            command: "hidumper -s PowerManagerService -a -s",
            status: Status::Same,
            note: "line shapes",
            check: Some(|| {
                same_shapes(
                    &Phone::new().sh("hidumper -s PowerManagerService -a -s"),
                    &fixture("hidumper_powermanager_a_s_mate60pro.txt"),
                )
            }),
        },
        Row {
            fixture: "hidumper_renderservice_screen_1216x2688_midscene_test_embedded.txt",
            command: "hidumper -s RenderService -a screen",
            status: Status::Differs,
            note: "a newer RenderService format (`render resolution=WxH`); the simulator prints the Mate 60 Pro capture's (`render size: WxH`), which clients parse alike",
            check: Some(|| {
                let ours = Phone::new().sh("hidumper -s RenderService -a screen");
                ensure(
                    ours.contains("render size: 1260x2720") && !ours.contains("render resolution="),
                    || ours.clone(),
                )
            }),
        },
        Row {
            fixture: "hidumper_renderservice_screen_mate60pro.txt",
            command: "hidumper -s RenderService -a screen",
            status: Status::Same,
            note: "line shapes, with the screen off as in the capture (`powerstatus=POWER_STATUS_OFF`)",
            check: Some(|| {
                let p = Phone::new();
                p.sh("power-shell suspend");
                same_shapes(
                    &p.sh("hidumper -s RenderService -a screen"),
                    &fixture("hidumper_renderservice_screen_mate60pro.txt"),
                )
            }),
        },
        Row {
            fixture: "hidumper_renderservice_screen_matex7_foldable_annotated.txt",
            command: "hidumper -s RenderService -a screen",
            status: Status::Differs,
            note: "a foldable with two screens; simulated phones have one screen",
            check: Some(|| {
                let ours = Phone::new().sh("hidumper -s RenderService -a screen");
                ensure(
                    ours.contains("screen[0]") && !ours.contains("screen[1]"),
                    || ours.clone(),
                )
            }),
        },
        Row {
            fixture: "hidumper_wms_a_window_list_next_2in1_trimmed_test_embedded.txt",
            command: "hidumper -s WindowManagerService -a '-a'",
            status: Status::Same,
            note: "the same header line, rows of 9 columns and three `[ … ]` groups, and the `Focus window:`, `Total window num:`, `Highlighted windows:` trailer (the capture is trimmed to two rows; banners and a phone's other trailer lines are ours only)",
            check: Some(|| {
                let ours = Phone::new()
                    .demo()
                    .sh("hidumper -s WindowManagerService -a '-a'");
                let real =
                    fixture("hidumper_wms_a_window_list_next_2in1_trimmed_test_embedded.txt");
                let row = regex::Regex::new(
                    r"^\S+ +\d+ +\d+ +\d+ +\d+ +\d+ +\d+ +-?\d+ +\d+ +\[ [^\]]+\] \[ [^\]]+\] \[ [^\]]+\]$",
                )
                .unwrap();
                let header = real.lines().next().unwrap();
                ensure(ours.lines().any(|l| l == header), || {
                    format!("no header {header:?} in\n{ours}")
                })?;
                for t in [ours.as_str(), real.as_str()] {
                    let rows = t.lines().filter(|l| row.is_match(l)).count();
                    ensure(rows >= 2, || format!("fewer than 2 rows in\n{t}"))?;
                    for k in [
                        "Focus window: ",
                        "Total window num: ",
                        "Highlighted windows: ",
                    ] {
                        ensure(t.lines().any(|l| l.starts_with(k)), || {
                            format!("no {k:?} in\n{t}")
                        })?;
                    }
                }
                Ok(())
            }),
        },
        Row {
            fixture: "hidumper_wms_a_window_list_openharmony_docs_720x1280.txt",
            command: "hidumper -s WindowManagerService -a '-a'",
            status: Status::Differs,
            note: "the pre-SceneBoard OpenHarmony format (lowercase `total window num:`, no Offset/Scale); the simulator is a HarmonyOS NEXT phone",
            check: Some(|| {
                let ours = Phone::new().sh("hidumper -s WindowManagerService -a '-a'");
                ensure(
                    ours.contains("Total window num:") && ours.contains("[ OffsetX OffsetY ]"),
                    || ours.clone(),
                )
            }),
        },
        Row {
            fixture: "hidumper_wms_w_window_detail_2in1_test_embedded.txt",
            command: "hidumper -s WindowManagerService -a '-w ID'",
            status: Status::Same,
            note: "every `Key:` of the capture (a trimmed sample) appears, in the same value shapes",
            check: Some(|| {
                let p = Phone::new();
                p.demo();
                let list = p.sh("hidumper -s WindowManagerService -a '-a'");
                let id = list
                    .lines()
                    .find(|l| l.starts_with("Focus window: "))
                    .map(|l| l.trim_start_matches("Focus window: ").trim().to_string())
                    .unwrap();
                let ours = shapes(&p.sh(&format!("hidumper -s WindowManagerService -a '-w {id}'")));
                let real = shapes(&fixture(
                    "hidumper_wms_w_window_detail_2in1_test_embedded.txt",
                ));
                let key = |s: &String| s.split(':').next().unwrap_or("").to_string();
                let ours_keys: BTreeSet<String> = ours.iter().map(key).collect();
                let missing: Vec<String> = real
                    .iter()
                    .map(key)
                    .filter(|k| !ours_keys.contains(k))
                    .collect();
                ensure(missing.is_empty(), || format!("missing keys {missing:?}"))
            }),
        },
        Row {
            fixture: "hilog_excerpt_emulator6_nwpucampus_webview.txt",
            command: "hilog -x",
            status: Status::Same,
            note: "every line has the capture's line format (`MM-DD HH:MM:SS.mmm pid tid L Tdomain/tag: msg`, pid and tid right-aligned)",
            check: Some(|| {
                let re = regex::Regex::new(
                    r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ [DIWEF] [ACIKP][0-9a-f]{5}/\S*: ",
                )
                .unwrap();
                let ours = Phone::new().demo().sh("hilog -x");
                for t in [
                    ours.as_str(),
                    &fixture("hilog_excerpt_emulator6_nwpucampus_webview.txt"),
                ] {
                    if let Some(bad) = t.lines().find(|l| !re.is_match(l)) {
                        return Err(format!("line out of format: {bad:?}"));
                    }
                }
                Ok(())
            }),
        },
        Row {
            fixture: "hilog_help_older_version.txt",
            command: "hilog -h",
            status: Status::NotModelled,
            note: "hilog's help text is not reproduced (the capture is an older build's); the simulator refuses `-h`",
            check: Some(|| refused(Phone::new().sh("hilog -h"), "Unsupported option")),
        },
        Row {
            fixture: "hvigor_build_failed_arkts_compiler_errors.txt",
            command: "hvigorw assembleHap",
            status: Status::Host,
            note: "a host build tool's output, parsed by the build_app tool (crates/tapflow-tools/tests/tools/build_app*.rs)",
            check: None,
        },
        Row {
            fixture: "jscrash_with_hilog_emulator6_illegal_prop.txt",
            command: "cat /data/log/faultlog/faultlogger/jscrash-…",
            status: Status::Same,
            note: "the demo app's crash file has every header field of the capture",
            check: Some(|| crash_keys_cover("jscrash_with_hilog_emulator6_illegal_prop.txt")),
        },
        Row {
            fixture: "jscrash_with_hilog_emulator6_typeerror_web.txt",
            command: "cat /data/log/faultlog/faultlogger/jscrash-…",
            status: Status::Same,
            note: "the demo app's crash file has every header field of the capture",
            check: Some(|| crash_keys_cover("jscrash_with_hilog_emulator6_typeerror_web.txt")),
        },
    ]
}
