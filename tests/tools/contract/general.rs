//! General tools: list_devices, device routing, query_package, install_app, run_app,
//! uninstall_app, stop_app and clear_app_data.

use super::*;

#[test]
fn list_devices_lists_targets_with_info() {
    let e = env();
    let r = e.ok("list_devices", json!({}));
    assert_eq!(r["count"], 2);
    assert_eq!(r["devices"][0]["device_id"], "FAKE0001");
    assert_eq!(r["devices"][0]["info"]["model"], "FAKE-AL00");
    assert_eq!(r["devices"][1]["state"], "Offline");
    assert_eq!(r["devices"][1]["info"], Value::Null);
    // list_devices takes hdc_server only.
    assert_eq!(
        e.err("list_devices", json!({"device_id":"X"})).0,
        "INVALID_PARAM"
    );
}

#[test]
fn routing_passes_device_id_and_hdc_server_and_the_default_server() {
    // Shared Device Routing
    let a = FakeDevice::new("A1");
    let b = FakeDevice::new("192.168.43.34:35215");
    let provider = FakeProvider::new(vec![a.clone(), b.clone()]);
    let mut ctx = ToolContext::new(provider.clone(), ToolConfig::default());
    let engine = Engine::new();
    let env = engine.call("list_windows", json!({}), &ctx);
    assert_eq!(env.error_code(), Some("MULTIPLE_DEVICES"));
    assert!(
        engine
            .call("list_windows", json!({"device_id":"A1"}), &ctx)
            .ok()
    );
    assert!(
        engine
            .call(
                "list_windows",
                json!({"hdc_server":"192.168.43.34:35215"}),
                &ctx
            )
            .ok()
    );
    assert!(
        engine
            .call(
                "list_windows",
                json!({"device_id":"A1","hdc_server":"10.0.0.1:8710"}),
                &ctx
            )
            .ok()
    );
    assert_eq!(
        engine
            .call("list_windows", json!({"device_id":"ZZ"}), &ctx)
            .error_code(),
        Some("DEVICE_NOT_FOUND")
    );
    ctx.config.default_hdc_server = Some("10.9.9.9:8710".into());
    assert!(
        engine
            .call("list_windows", json!({"device_id":"A1"}), &ctx)
            .ok()
    );
    let routes = provider.routes();
    assert_eq!(routes[1].device_id.as_deref(), Some("A1"));
    assert_eq!(routes[1].hdc_server, None);
    assert_eq!(routes[2].hdc_server.as_deref(), Some("192.168.43.34:35215"));
    assert_eq!(routes[3].hdc_server.as_deref(), Some("10.0.0.1:8710"));
    assert_eq!(
        routes.last().unwrap().hdc_server.as_deref(),
        Some("10.9.9.9:8710"),
        "HARMONYOS_HDC_SERVER default"
    );
    provider
        .disconnected
        .lock()
        .unwrap()
        .insert("A1".into(), true);
    assert_eq!(
        engine
            .call("list_windows", json!({"device_id":"A1"}), &ctx)
            .error_code(),
        Some("DEVICE_DISCONNECTED")
    );
}

#[test]
fn query_package_all_info_types() {
    let e = env();
    let r = e.ok("query_package", json!({}));
    assert_eq!(r["info_type"], "list");
    assert_eq!(r["count"], 5);
    let r = e.ok("query_package", json!({"keyword":"EXAMPLE"}));
    assert_eq!(
        r["packages"],
        json!([
            "com.example.demo",
            "com.example.pages",
            "com.example.service",
            "com.example.hidden"
        ])
    );
    let r = e.ok(
        "query_package",
        json!({"info_type":"main_ability","bundle_name":"com.example.hidden"}),
    );
    assert_eq!(r["ability_name"], "HiddenAbility", "then any page ability");
    assert_eq!(r["recommended"]["reason"], "page");
    let r = e.ok(
        "query_package",
        json!({"info_type":"abilities","bundle_name":BUNDLE}),
    );
    assert_eq!(r["ability_count"], 2);
    assert_eq!(r["main_ability"], "EntryAbility");
    assert_eq!(r["modules"][0]["name"], "entry");
    let r = e.ok(
        "query_package",
        json!({"info_type":"main_ability","bundle_name":BUNDLE}),
    );
    assert_eq!(r["ability_name"], "EntryAbility");
    assert_eq!(r["module_name"], "entry");
    assert_eq!(r["recommended"]["reason"], "main_element");
    let r = e.ok(
        "query_package",
        json!({"info_type":"main_ability","bundle_name":"com.example.pages"}),
    );
    assert_eq!(
        r["ability_name"], "ShownAbility",
        "visible page abilities first"
    );
    assert_eq!(r["candidates"].as_array().unwrap().len(), 2);
    let r = e.ok(
        "query_package",
        json!({"info_type":"permissions","bundle_name":BUNDLE}),
    );
    assert_eq!(r["permission_count"], 2);
    assert_eq!(r["requested_permissions"][0], "ohos.permission.INTERNET");
    let (code, details) = e.err(
        "query_package",
        json!({"info_type":"permissions","bundle_name":"com.nobody"}),
    );
    assert_eq!(code, "PACKAGE_QUERY_FAILED");
    assert!(
        details["device_says"]
            .as_str()
            .unwrap()
            .contains("failed to get information")
    );
}

#[test]
fn install_app_installs_and_reports_failures() {
    let e = env();
    let hap = e.tmp.path().join("entry-default-signed.hap");
    std::fs::write(&hap, b"PK").unwrap();
    let r = e.ok("install_app", json!({"hap_path": hap}));
    assert_eq!(r["device_id"], "FAKE0001");
    assert_eq!(r["hap_path"], hap.display().to_string());
    let rel = e.ok(
        "install_app",
        json!({"hap_path":"entry-default-signed.hap"}),
    );
    assert_eq!(
        rel["hap_path"],
        hap.display().to_string(),
        "relative to the working directory"
    );
    let bad = e.tmp.path().join("entry-unsigned.HAP");
    std::fs::write(&bad, b"PK").unwrap();
    let (code, details) = e.err("install_app", json!({"hap_path": bad}));
    assert_eq!(code, "INSTALL_FAILED");
    assert!(details["device_says"].as_str().unwrap().contains("9568320"));
}

#[test]
fn run_app_detects_the_main_ability_and_finds_its_window() {
    let e = env();
    e.dev.set_screen(Screen::Desktop);
    *e.dev.launch_delay.lock().unwrap() = Duration::from_millis(150);
    let r = e.ok("run_app", json!({"bundle_name": BUNDLE}));
    assert_eq!(r["ability_name"], "EntryAbility");
    assert_eq!(r["module_name"], "entry");
    assert_eq!(r["auto_detected"], true);
    assert_eq!(r["command_success"], true);
    assert_eq!(r["window_found"], true);
    assert_eq!(r["window"]["window_id"], APP_WINDOW);
    assert!(
        r["window_checks"].as_u64().unwrap() > 1,
        "polled until the window appeared"
    );
    assert!(e.dev.actions().contains(&Action::Start {
        bundle: BUNDLE.into(),
        ability: "EntryAbility".into(),
        module: Some("entry".into())
    }));

    // Explicit ability, window table without bundle names: matched by pid.
    *e.dev.windows_name_bundles.lock().unwrap() = false;
    let r = e.ok(
        "run_app",
        json!({"bundle_name": BUNDLE, "ability_name":"EntryAbility", "auto_detect": false}),
    );
    assert_eq!(r["auto_detected"], false);
    assert_eq!(r["ability_source"], "explicit");
    assert_eq!(r["window_found"], true);

    // A window that never appears: the launch succeeded, window_found is false at the deadline.
    let r = e.ok(
        "run_app",
        json!({"bundle_name":"com.example.pages", "window_timeout_ms": 200}),
    );
    assert_eq!(r["ability_name"], "ShownAbility");
    assert_eq!(r["window_found"], false);
    assert_eq!(r["window"], Value::Null);
}

#[test]
fn uninstall_stop_and_clear() {
    let e = env();
    assert_eq!(
        e.ok("uninstall_app", json!({"bundle_name":"com.example.pages"}))["uninstalled"],
        true
    );
    assert_eq!(
        e.ok("stop_app", json!({"bundle_name":BUNDLE}))["stopped"],
        true
    );
    assert_eq!(e.dev.screen(), Screen::Desktop);
    assert_eq!(
        e.ok("clear_app_data", json!({"bundle_name":BUNDLE}))["cleared"],
        true
    );
}
