//! Conformance rows of the recorded layouts, `param get` and `uitest`.

use super::checks::*;
use super::*;

/// The rows from `layout_…` to `uitest_…`.
pub(super) fn rows() -> Vec<Row> {
    vec![
        Row {
            fixture: "layout_haptest_logindemo_login_pretty.json",
            command: "uitest dumpLayout",
            status: Status::Differs,
            note: "an older uitest (17 attributes on the root); the simulator writes the newer set, a superset",
            check: Some(|| layout_keys_cover("layout_haptest_logindemo_login_pretty.json")),
        },
        Row {
            fixture: "layout_haptest_logindemo_save_keyboard_pretty.json",
            command: "uitest dumpLayout",
            status: Status::Differs,
            note: "older attribute set, as above; its secure keyboard's nodes are reproduced exactly (tests/e2e/sim_fidelity.rs)",
            check: Some(|| layout_keys_cover("layout_haptest_logindemo_save_keyboard_pretty.json")),
        },
        Row {
            fixture: "layout_haptest_soundrecorder_modalpage_pretty.json",
            command: "uitest dumpLayout",
            status: Status::Differs,
            note: "older attribute set, as above",
            check: Some(|| layout_keys_cover("layout_haptest_soundrecorder_modalpage_pretty.json")),
        },
        Row {
            fixture: "layout_haptest_vmall_web_keyboard_large_pretty.json",
            command: "uitest dumpLayout",
            status: Status::Same,
            note: "the same attribute names on the root and window nodes",
            check: Some(|| {
                layout_keys_cover("layout_haptest_vmall_web_keyboard_large_pretty.json")
            }),
        },
        Row {
            fixture: "layout_hmdriver2_uitest_demo_mate60pro_pretty.json",
            command: "uitest dumpLayout",
            status: Status::Same,
            note: "the same attribute names on the root and window nodes",
            check: Some(|| layout_keys_equal("layout_hmdriver2_uitest_demo_mate60pro_pretty.json")),
        },
        Row {
            fixture: "layout_ohauto_dayu200_locked_screen_no_window_compact.json",
            command: "power-shell suspend; uitest dumpLayout",
            status: Status::Same,
            note: "screen off: the compact root alone, bounds `[0,0][0,0]`, no children, same attribute names",
            check: Some(|| {
                let p = Phone::new();
                p.sh("power-shell suspend");
                let ours = p.sh("uitest dumpLayout -p /data/local/tmp/l.json >/dev/null && cat /data/local/tmp/l.json");
                let v: Value = serde_json::from_str(&ours).map_err(|e| e.to_string())?;
                let real: Value = serde_json::from_str(&fixture(
                    "layout_ohauto_dayu200_locked_screen_no_window_compact.json",
                ))
                .unwrap();
                ensure(
                    !ours.contains('\n')
                        && v["attributes"]["bounds"] == "[0,0][0,0]"
                        && v["children"] == serde_json::json!([]),
                    || ours.clone(),
                )?;
                ensure(layout_keys(&v).0 == layout_keys(&real).0, || {
                    "root attribute names differ".into()
                })
            }),
        },
        Row {
            fixture: "param_get_const_ohos_apiversion.txt",
            command: "param get const.ohos.apiversion",
            status: Status::Same,
            note: "line for line",
            check: Some(|| {
                param(
                    "const.ohos.apiversion",
                    "param_get_const_ohos_apiversion.txt",
                )
            }),
        },
        Row {
            fixture: "param_get_const_product_brand.txt",
            command: "param get const.product.brand",
            status: Status::Same,
            note: "line for line",
            check: Some(|| param("const.product.brand", "param_get_const_product_brand.txt")),
        },
        Row {
            fixture: "param_get_const_product_cpu_abilist.txt",
            command: "param get const.product.cpu.abilist",
            status: Status::Same,
            note: "line for line",
            check: Some(|| {
                param(
                    "const.product.cpu.abilist",
                    "param_get_const_product_cpu_abilist.txt",
                )
            }),
        },
        Row {
            fixture: "param_get_const_product_model.txt",
            command: "param get const.product.model",
            status: Status::Same,
            note: "line for line",
            check: Some(|| param("const.product.model", "param_get_const_product_model.txt")),
        },
        Row {
            fixture: "param_get_const_product_name.txt",
            command: "param get const.product.name",
            status: Status::Same,
            note: "line for line",
            check: Some(|| param("const.product.name", "param_get_const_product_name.txt")),
        },
        Row {
            fixture: "param_get_const_product_software_version.txt",
            command: "param get const.product.software.version",
            status: Status::Differs,
            note: "the same model on a later build (`5.0.0.60` vs the capture's `5.0.0.22`)",
            check: Some(|| {
                let ours = Phone::new().sh("param get const.product.software.version");
                ensure(
                    ours.starts_with("ALN-AL00 5.0.0.")
                        && fixture("param_get_const_product_software_version.txt")
                            .starts_with("ALN-AL00 5.0.0."),
                    || ours.clone(),
                )
            }),
        },
        Row {
            fixture: "uitest_dumplayout_stdout.txt",
            command: "uitest dumpLayout -p /data/local/tmp/layout_407568854.json",
            status: Status::Same,
            note: "line for line",
            check: Some(|| {
                same_lines(
                    &Phone::new().sh("uitest dumpLayout -p /data/local/tmp/layout_407568854.json"),
                    &fixture("uitest_dumplayout_stdout.txt"),
                )
            }),
        },
        Row {
            fixture: "uitest_uirecord_record_stdout.txt",
            command: "uitest uiRecord record",
            status: Status::NotModelled,
            note: "recording a person's touches is not simulated; uitest answers `Illegal argument: uiRecord`",
            check: Some(|| {
                refused(
                    Phone::new().sh("uitest uiRecord record"),
                    "Illegal argument: uiRecord",
                )
            }),
        },
    ]
}
