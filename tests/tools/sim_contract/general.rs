//! Cases of the general tools: list_devices and device routing, query_package, install_app and
//! uninstall_app, run_app, stop_app and clear_app_data.

use super::*;

/// The general tools' cases.
pub(super) fn cases() -> Vec<Case> {
    use Given::*;
    vec![
        // ---- list_devices
        case(
            "list_devices › Key result fields › devices, count",
            "list_devices",
            Launcher,
            |e| {
                let r = e.ok("list_devices", json!({}));
                assert_eq!(r["count"], 1);
                let d = &r["devices"][0];
                assert_eq!(d["device_id"], e.provider.serial().as_str());
                assert_eq!(d["state"], "Connected");
                assert_eq!(d["info"]["model"], "ALN-AL00");
                assert_eq!(d["info"]["screen"], json!({"width": 1260, "height": 2720}));
            },
        ),
        case(
            "Shared Device Routing › device_id plus hdc_server",
            "list_devices",
            Launcher,
            |e| {
                let r = e.ok("list_devices", json!({"hdc_server": "127.0.0.1:8710"}));
                assert_eq!(r["count"], 1);
                let serial = e.provider.serial();
                let r = e.ok("query_package", json!({"device_id": serial, "hdc_server": "127.0.0.1:8710", "keyword": "tapflow"}));
                assert_eq!(r["packages"], json!([DEMO]));
            },
        ),
        fails(
            "Shared Device Routing › device_id only (unknown device)",
            "query_package",
            Launcher,
            json!({"device_id": "NOPE0000000000"}),
            "DEVICE_NOT_FOUND",
        ),
        fails(
            "Shared Device Routing › hdc_server only is the target",
            "query_package",
            Launcher,
            json!({"hdc_server": "127.0.0.1:8710"}),
            "DEVICE_NOT_FOUND",
        ),
        // ---- query_package
        case(
            "query_package › Key result fields › packages, count for list",
            "query_package",
            Launcher,
            |e| {
                let r = e.ok("query_package", json!({}));
                let pk = r["packages"].as_array().unwrap();
                assert!(pk.contains(&json!(DEMO)), "{pk:?}");
                assert_eq!(r["count"], pk.len());
                let r = e.ok(
                    "query_package",
                    json!({"info_type": "list", "keyword": "TAPFLOW"}),
                );
                assert_eq!(r["packages"], json!([DEMO]));
                assert_eq!(r["count"], 1);
            },
        ),
        case(
            "query_package › Key result fields › abilities, modules, main_ability, ability_count",
            "query_package",
            Launcher,
            |e| {
                let r = e.ok(
                    "query_package",
                    json!({"bundle_name": DEMO, "info_type": "abilities"}),
                );
                let names: Vec<&str> = r["abilities"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| a["name"].as_str().or(a["ability_name"].as_str()).unwrap())
                    .collect();
                assert!(names.contains(&"EntryAbility"), "{r}");
                assert!(r["modules"].to_string().contains("entry"), "{r}");
                assert_eq!(r["ability_count"], names.len());
                assert!(
                    r["main_ability"].to_string().contains("EntryAbility"),
                    "{r}"
                );
            },
        ),
        case(
            "query_package › Key result fields › ability_name, module_name, candidates, recommended",
            "query_package",
            Launcher,
            |e| {
                let r = e.ok(
                    "query_package",
                    json!({"bundle_name": DEMO, "info_type": "main_ability"}),
                );
                assert_eq!(r["ability_name"], "EntryAbility");
                assert_eq!(r["module_name"], "entry");
                assert!(!r["candidates"].as_array().unwrap().is_empty());
                assert_eq!(r["recommended"]["ability_name"], "EntryAbility");
            },
        ),
        case(
            "query_package › Key result fields › requested_permissions, permission_count",
            "query_package",
            Launcher,
            |e| {
                let r = e.ok(
                    "query_package",
                    json!({"bundle_name": DEMO, "info_type": "permissions"}),
                );
                assert!(
                    r["requested_permissions"]
                        .to_string()
                        .contains("ohos.permission.INTERNET"),
                    "{r}"
                );
                assert_eq!(
                    r["permission_count"],
                    r["requested_permissions"].as_array().unwrap().len()
                );
            },
        ),
        fails(
            "query_package › Rules › basic is not supported",
            "query_package",
            Launcher,
            json!({"info_type": "basic"}),
            "INVALID_INFO_TYPE",
        ),
        fails(
            "query_package › Rules › list cannot be combined with bundle_name",
            "query_package",
            Launcher,
            json!({"info_type": "list", "bundle_name": DEMO}),
            "PARAM_CONFLICT",
        ),
        fails(
            "query_package › Rules › bundle_name required for abilities",
            "query_package",
            Launcher,
            json!({"info_type": "abilities"}),
            "MISSING_BUNDLE_NAME",
        ),
        fails(
            "query_package › Rules › bundle_name required for main_ability",
            "query_package",
            Launcher,
            json!({"info_type": "main_ability"}),
            "MISSING_BUNDLE_NAME",
        ),
        fails(
            "query_package › Rules › bundle_name required for permissions",
            "query_package",
            Launcher,
            json!({"info_type": "permissions"}),
            "MISSING_BUNDLE_NAME",
        ),
        // ---- install_app / uninstall_app
        case(
            "install_app › Key result fields › device_id, hap_path (signed .hap built in the test)",
            "install_app",
            Launcher,
            |e| {
                let hap = e.hap("hello.hap", "com.example.hello", true);
                let r = e.ok("install_app", json!({"hap_path": hap}));
                assert_eq!(r["device_id"], e.provider.serial().as_str());
                assert_eq!(r["hap_path"], hap.as_str());
                let r = e.ok("query_package", json!({"keyword": "com.example.hello"}));
                assert_eq!(r["packages"], json!(["com.example.hello"]));
                // and it runs: its main ability is detected from the installed module.json
                let r = e.ok("run_app", json!({"bundle_name": "com.example.hello"}));
                assert_eq!(r["ability_name"], "MainAbility");
                assert_eq!(r["window_found"], true);
            },
        ),
        fails(
            "install_app › Common errors › MISSING_HAP_PATH",
            "install_app",
            Launcher,
            json!({}),
            "MISSING_HAP_PATH",
        ),
        fails(
            "install_app › Parameters › hap_path must end with .hap or .app",
            "install_app",
            Launcher,
            json!({"hap_path": "/tmp/x.zip"}),
            "INVALID_APP_PACKAGE",
        ),
        fails(
            "docs/tools.md install_app › the file must exist",
            "install_app",
            Launcher,
            json!({"hap_path": "missing.hap"}),
            "FILE_NOT_FOUND",
        ),
        case(
            "install_app › Common errors › INSTALL_FAILED (unsigned / invalid package)",
            "install_app",
            Launcher,
            |e| {
                let unsigned = e.hap("unsigned.hap", "com.example.unsigned", false);
                let (code, d) = e.err("install_app", json!({"hap_path": unsigned}));
                assert_eq!(code, "INSTALL_FAILED", "{d}");
                assert!(
                    d["device_says"].as_str().unwrap_or("").contains("install"),
                    "{d}"
                );
                let garbage = e.tmp.path().join("garbage.hap");
                std::fs::write(&garbage, b"this is not a zip").unwrap();
                let (code, d) = e.err("install_app", json!({"hap_path": garbage}));
                assert_eq!(code, "INSTALL_FAILED", "{d}");
                let r = e.ok("query_package", json!({}));
                assert!(!r["packages"].to_string().contains("com.example.unsigned"));
            },
        ),
        case(
            "uninstall_app › Purpose › uninstall an app",
            "uninstall_app",
            Launcher,
            |e| {
                let hap = e.hap("bye.hap", "com.example.bye", true);
                e.ok("install_app", json!({"hap_path": hap}));
                let r = e.ok("uninstall_app", json!({"bundle_name": "com.example.bye"}));
                assert_eq!(r["bundle_name"], "com.example.bye");
                assert_eq!(r["uninstalled"], true);
                let r = e.ok("query_package", json!({}));
                assert!(!r["packages"].to_string().contains("com.example.bye"));
            },
        ),
        fails(
            "uninstall_app › Common errors › MISSING_BUNDLE_NAME",
            "uninstall_app",
            Launcher,
            json!({}),
            "MISSING_BUNDLE_NAME",
        ),
        fails(
            "uninstall_app › Common errors › UNINSTALL_FAILED",
            "uninstall_app",
            Launcher,
            json!({"bundle_name": "com.example.notinstalled"}),
            "UNINSTALL_FAILED",
        ),
        // ---- run_app
        case(
            "run_app › Behavior › auto-detect main ability; window verified",
            "run_app",
            Launcher,
            |e| {
                let r = e.ok(
                    "run_app",
                    json!({"bundle_name": DEMO, "include_cost": true}),
                );
                assert_eq!(
                    cost(&r),
                    (2, 0),
                    "bm dump -n; aa start + window table + pidof in one shell"
                );
                assert_eq!(r["window_checks"], 1);
                assert_eq!(r["bundle_name"], DEMO);
                assert_eq!(r["ability_name"], "EntryAbility");
                assert_eq!(r["module_name"], "entry");
                assert_eq!(r["auto_detected"], true);
                assert_eq!(r["command_success"], true);
                assert_eq!(r["window_found"], true);
                assert_eq!(r["window"]["bundle_name"], DEMO);
                assert_eq!(e.foreground_bundle().as_deref(), Some(DEMO));
                assert!(e.visible(json!({"element_id": "login"})));
            },
        ),
        case(
            "run_app › Parameters › explicit ability_name and module_name",
            "run_app",
            Launcher,
            |e| {
                let r = e.ok("run_app", json!({"bundle_name": DEMO, "ability_name": "EntryAbility", "module_name": "entry", "include_cost": true}));
                assert_eq!(
                    cost(&r),
                    (1, 0),
                    "the launch and its window check: one shell"
                );
                assert_eq!(r["auto_detected"], false);
                assert_eq!(r["ability_name"], "EntryAbility");
                assert_eq!(r["window_found"], true);
            },
        ),
        fails(
            "run_app › Common errors › RUN_APP_FAILED (unknown ability)",
            "run_app",
            Launcher,
            json!({"bundle_name": DEMO, "ability_name": "NoSuchAbility"}),
            "RUN_APP_FAILED",
        ),
        fails(
            "run_app › Common errors › ABILITY_RESOLUTION_FAILED (unknown bundle)",
            "run_app",
            Launcher,
            json!({"bundle_name": "com.example.none"}),
            "ABILITY_RESOLUTION_FAILED",
        ),
        fails(
            "run_app › Parameters › auto_detect=false without ability",
            "run_app",
            Launcher,
            json!({"bundle_name": DEMO, "auto_detect": false}),
            "ABILITY_RESOLUTION_FAILED",
        ),
        fails(
            "run_app › Parameters › bundle_name required",
            "run_app",
            Launcher,
            json!({}),
            "MISSING_BUNDLE_NAME",
        ),
        // ---- stop_app / clear_app_data
        case(
            "docs/tools.md stop_app › force-stops the app",
            "stop_app",
            Login,
            |e| {
                let r = e.ok("stop_app", json!({"bundle_name": DEMO}));
                assert_eq!(r["stopped"], true);
                assert_ne!(e.foreground_bundle().as_deref(), Some(DEMO));
                assert_eq!(e.device().pid_of(DEMO).unwrap(), None);
            },
        ),
        fails(
            "docs/tools.md stop_app › MISSING_BUNDLE_NAME",
            "stop_app",
            Launcher,
            json!({}),
            "MISSING_BUNDLE_NAME",
        ),
        case(
            "docs/tools.md clear_app_data › clears the app's data",
            "clear_app_data",
            Home,
            |e| {
                let r = e.ok("clear_app_data", json!({"bundle_name": DEMO}));
                assert_eq!(r["cleared"], true);
                assert_eq!(r["bundle_name"], DEMO);
            },
        ),
        fails(
            "docs/tools.md clear_app_data › MISSING_BUNDLE_NAME",
            "clear_app_data",
            Launcher,
            json!({}),
            "MISSING_BUNDLE_NAME",
        ),
        fails(
            "docs/tools.md clear_app_data › CLEAR_APP_DATA_FAILED (unknown bundle)",
            "clear_app_data",
            Launcher,
            json!({"bundle_name": "com.example.none"}),
            "CLEAR_APP_DATA_FAILED",
        ),
    ]
}
