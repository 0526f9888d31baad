//! The tool contract, table-driven: each case names the section of
//! `docs/reference/tool-contract.md` (or of docs/tools.md for our own decisions) it checks.
//! Every envelope is validated against the tool's published output schema; round trips are
//! asserted by count through `Device::cost`, never by time.

use crate::common::envelope;
use crate::common::fake_device;
use tapflow::sim_provider;

use std::sync::Arc;
use std::time::Duration;

use fake_device::{APP_WINDOW, Action, BUNDLE, FakeDevice, FakeProvider, Screen};
use serde_json::{Value, json};
use tapflow_device::{Device, Gesture, KeyInput, Point, TapKind};
use tapflow_tools::{Engine, Envelope, ToolConfig, ToolContext};

struct Env {
    dev: Arc<FakeDevice>,
    provider: Arc<FakeProvider>,
    ctx: ToolContext,
    engine: Engine,
    tmp: tempfile::TempDir,
}

fn env() -> Env {
    let dev = FakeDevice::new("FAKE0001");
    let provider = FakeProvider::new(vec![dev.clone()]);
    let tmp = tempfile::tempdir().unwrap();
    let config = ToolConfig {
        screenshots_dir: tmp.path().join("shots"),
        launch_verify_timeout_ms: 1000,
        ..ToolConfig::rooted_at(tmp.path())
    };
    Env {
        ctx: ToolContext::new(provider.clone(), config),
        dev,
        provider,
        engine: Engine::new(),
        tmp,
    }
}

impl Env {
    /// Calls a tool, checks the envelope shape and validates structuredContent against the
    /// tool's published output schema.
    fn call(&self, tool: &str, args: Value) -> Envelope {
        let env = self.engine.call(tool, args, &self.ctx);
        let v = env.to_value();
        assert_eq!(v["isError"], json!(!env.ok()));
        assert_eq!(v["content"][0]["type"], "text");
        if let Some(def) = self.engine.get(tool) {
            envelope::assert_matches_schema(tool, &def.output_schema(), &v["structuredContent"]);
        }
        env
    }

    fn ok(&self, tool: &str, args: Value) -> Value {
        envelope::expect_ok(&self.call(tool, args.clone()), tool, &args)
    }

    fn err(&self, tool: &str, args: Value) -> (String, Value) {
        envelope::expect_err(self.call(tool, args.clone()), tool, &args)
    }

    fn cost(&self) -> tapflow_device::Cost {
        self.dev.cost()
    }
}

/// (reference section, tool, arguments, expected error code)
const ERROR_CASES: &[(&str, &str, &str, &str)] = &[
    // Shared envelope / decoding (docs/reference/architecture.md §6, "Errors")
    (
        "design Errors: unknown tool",
        "no_such_tool",
        "{}",
        "UNKNOWN_TOOL",
    ),
    (
        "design Errors: unknown parameter",
        "click",
        r#"{"x":1,"y":2,"colour":"red"}"#,
        "INVALID_PARAM",
    ),
    (
        "design Errors: wrong type",
        "click",
        r#"{"x":"1","y":2}"#,
        "INVALID_PARAM",
    ),
    (
        "design Errors: arguments not an object",
        "list_windows",
        "[1]",
        "INVALID_PARAM",
    ),
    // query_package
    (
        "query_package Rules: basic not supported",
        "query_package",
        r#"{"info_type":"basic"}"#,
        "INVALID_INFO_TYPE",
    ),
    (
        "query_package: info_type outside enumeration",
        "query_package",
        r#"{"info_type":"everything"}"#,
        "INVALID_INFO_TYPE",
    ),
    (
        "query_package Rules: list + bundle_name",
        "query_package",
        r#"{"info_type":"list","bundle_name":"com.example.demo"}"#,
        "PARAM_CONFLICT",
    ),
    (
        "query_package Rules: default list + bundle_name",
        "query_package",
        r#"{"bundle_name":"com.example.demo"}"#,
        "PARAM_CONFLICT",
    ),
    (
        "query_package Rules: abilities needs bundle",
        "query_package",
        r#"{"info_type":"abilities"}"#,
        "MISSING_BUNDLE_NAME",
    ),
    (
        "query_package Rules: main_ability needs bundle",
        "query_package",
        r#"{"info_type":"main_ability"}"#,
        "MISSING_BUNDLE_NAME",
    ),
    (
        "query_package Rules: permissions needs bundle",
        "query_package",
        r#"{"info_type":"permissions","bundle_name":"  "}"#,
        "MISSING_BUNDLE_NAME",
    ),
    (
        "docs/tools.md: keyword only with list",
        "query_package",
        r#"{"info_type":"abilities","bundle_name":"com.example.demo","keyword":"x"}"#,
        "PARAM_CONFLICT",
    ),
    (
        "docs/tools.md: no launchable ability",
        "query_package",
        r#"{"info_type":"main_ability","bundle_name":"com.example.service"}"#,
        "ABILITY_RESOLUTION_FAILED",
    ),
    // install_app
    (
        "install_app: MISSING_HAP_PATH",
        "install_app",
        "{}",
        "MISSING_HAP_PATH",
    ),
    (
        "install_app: INVALID_APP_PACKAGE",
        "install_app",
        r#"{"hap_path":"app.apk"}"#,
        "INVALID_APP_PACKAGE",
    ),
    (
        "docs/tools.md: package must exist",
        "install_app",
        r#"{"hap_path":"missing.hap"}"#,
        "FILE_NOT_FOUND",
    ),
    // run_app
    (
        "run_app: ABILITY_RESOLUTION_FAILED (service only)",
        "run_app",
        r#"{"bundle_name":"com.example.service"}"#,
        "ABILITY_RESOLUTION_FAILED",
    ),
    (
        "run_app: ABILITY_RESOLUTION_FAILED (unknown bundle)",
        "run_app",
        r#"{"bundle_name":"com.nobody"}"#,
        "ABILITY_RESOLUTION_FAILED",
    ),
    (
        "docs/tools.md: auto_detect=false needs ability",
        "run_app",
        r#"{"bundle_name":"com.example.demo","auto_detect":false}"#,
        "ABILITY_RESOLUTION_FAILED",
    ),
    (
        "run_app: RUN_APP_FAILED",
        "run_app",
        r#"{"bundle_name":"com.example.demo","ability_name":"NoSuchAbility"}"#,
        "RUN_APP_FAILED",
    ),
    (
        "run_app: bundle required",
        "run_app",
        "{}",
        "MISSING_BUNDLE_NAME",
    ),
    // uninstall / stop / clear
    (
        "uninstall_app: MISSING_BUNDLE_NAME",
        "uninstall_app",
        "{}",
        "MISSING_BUNDLE_NAME",
    ),
    (
        "uninstall_app: UNINSTALL_FAILED",
        "uninstall_app",
        r#"{"bundle_name":"com.not.installed"}"#,
        "UNINSTALL_FAILED",
    ),
    (
        "stop_app: MISSING_BUNDLE_NAME",
        "stop_app",
        "{}",
        "MISSING_BUNDLE_NAME",
    ),
    (
        "docs/tools.md: STOP_APP_FAILED",
        "stop_app",
        r#"{"bundle_name":"com.not.installed"}"#,
        "STOP_APP_FAILED",
    ),
    (
        "clear_app_data: CLEAR_APP_DATA_FAILED",
        "clear_app_data",
        r#"{"bundle_name":"com.not.installed"}"#,
        "CLEAR_APP_DATA_FAILED",
    ),
    // click
    (
        "click Rules: coordinates + handle",
        "click",
        r#"{"x":1,"y":1,"element_handle":{"window_id":10,"id":"4","compid":"10:4","type":"Button"}}"#,
        "PARAM_CONFLICT",
    ),
    (
        "click Rules: coordinates + search",
        "click",
        r#"{"x":1,"y":1,"text":"Login"}"#,
        "PARAM_CONFLICT",
    ),
    (
        "click Rules: handle + search",
        "click",
        r#"{"text":"Login","element_handle":{"window_id":10,"id":"4","compid":"10:4","type":"Button"}}"#,
        "PARAM_CONFLICT",
    ),
    (
        "docs/tools.md: bundle_name with coordinates",
        "click",
        r#"{"x":1,"y":1,"bundle_name":"com.example.demo"}"#,
        "PARAM_CONFLICT",
    ),
    ("click: no mode", "click", "{}", "MISSING_PARAMS"),
    (
        "click: half a coordinate pair",
        "click",
        r#"{"x":5}"#,
        "MISSING_PARAMS",
    ),
    (
        "click: bundle_name alone is no target",
        "click",
        r#"{"bundle_name":"com.example.demo"}"#,
        "MISSING_PARAMS",
    ),
    (
        "click: INVALID_CLICK_COUNT",
        "click",
        r#"{"x":1,"y":1,"count":3}"#,
        "INVALID_CLICK_COUNT",
    ),
    (
        "click: INVALID_CLICK_COUNT (zero)",
        "click",
        r#"{"x":1,"y":1,"count":0}"#,
        "INVALID_CLICK_COUNT",
    ),
    (
        "input_text: handle as JSON string",
        "click",
        r#"{"element_handle":"{\"window_id\":80,\"id\":\"420\"}"}"#,
        "INVALID_ELEMENT_HANDLE",
    ),
    (
        "click: handle missing fields",
        "click",
        r#"{"element_handle":{"window_id":80}}"#,
        "INVALID_ELEMENT_HANDLE",
    ),
    (
        "click: AMBIGUOUS_ELEMENT_MATCH",
        "click",
        r#"{"text":"Item"}"#,
        "AMBIGUOUS_ELEMENT_MATCH",
    ),
    (
        "click: ELEMENT_NOT_FOUND",
        "click",
        r#"{"text":"Nope"}"#,
        "ELEMENT_NOT_FOUND",
    ),
    (
        "docs/tools.md: exact text by default",
        "click",
        r#"{"text":"Welc"}"#,
        "ELEMENT_NOT_FOUND",
    ),
    (
        "docs/tools.md: index out of range",
        "click",
        r#"{"text":"Item","index":2}"#,
        "ELEMENT_NOT_FOUND",
    ),
    (
        "docs/tools.md: bad regex",
        "click",
        r#"{"text":"(","match_mode":"regex"}"#,
        "INVALID_PARAM",
    ),
    (
        "docs/tools.md: match_mode outside enumeration",
        "click",
        r#"{"text":"x","match_mode":"fuzzy"}"#,
        "INVALID_MATCH_MODE",
    ),
    (
        "click: stale handle without hint",
        "click",
        r#"{"element_handle":{"window_id":10,"id":"999","compid":"10:999","type":"Button"}}"#,
        "ELEMENT_NOT_FOUND",
    ),
    (
        "docs/tools.md: negative coordinates",
        "click",
        r#"{"x":-1,"y":5}"#,
        "INVALID_PARAM",
    ),
    // long_press
    (
        "long_press: PARAM_CONFLICT",
        "long_press",
        r#"{"x":1,"y":1,"text":"Login"}"#,
        "PARAM_CONFLICT",
    ),
    (
        "long_press: MISSING_PARAMS",
        "long_press",
        "{}",
        "MISSING_PARAMS",
    ),
    (
        "long_press: INVALID_ELEMENT_HANDLE",
        "long_press",
        r#"{"element_handle":7}"#,
        "INVALID_ELEMENT_HANDLE",
    ),
    (
        "long_press: ELEMENT_NOT_FOUND",
        "long_press",
        r#"{"element_id":"nope"}"#,
        "ELEMENT_NOT_FOUND",
    ),
    (
        "long_press: no count",
        "long_press",
        r#"{"x":1,"y":1,"count":2}"#,
        "INVALID_PARAM",
    ),
    // swipe / drag
    (
        "swipe Rules: direction + coordinates",
        "swipe",
        r#"{"direction":"up","from_x":1}"#,
        "PARAM_CONFLICT",
    ),
    (
        "swipe Rules: all four coordinates",
        "swipe",
        r#"{"from_x":1,"from_y":1,"to_x":5}"#,
        "MISSING_PARAMS",
    ),
    ("swipe: nothing", "swipe", "{}", "MISSING_PARAMS"),
    (
        "docs/tools.md: direction outside enumeration",
        "swipe",
        r#"{"direction":"diagonal"}"#,
        "INVALID_DIRECTION",
    ),
    (
        "docs/tools.md: speed range",
        "swipe",
        r#"{"direction":"up","speed":50}"#,
        "INVALID_PARAM",
    ),
    (
        "drag: MISSING_PARAMS",
        "drag",
        r#"{"from_x":1,"from_y":1,"to_x":5}"#,
        "MISSING_PARAMS",
    ),
    (
        "drag: MISSING_PARAMS (none)",
        "drag",
        "{}",
        "MISSING_PARAMS",
    ),
    // press_key
    (
        "press_key: INVALID_KEY unknown name",
        "press_key",
        r#"{"key":"Hyper"}"#,
        "INVALID_KEY",
    ),
    (
        "press_key Rules: unknown numeric rejected",
        "press_key",
        r#"{"key":3}"#,
        "INVALID_KEY",
    ),
    (
        "press_key Rules: raw fragment rejected",
        "press_key",
        r#"{"key":"2072 2038"}"#,
        "INVALID_KEY",
    ),
    (
        "press_key: shell text rejected",
        "press_key",
        r#"{"key":"A; reboot"}"#,
        "INVALID_KEY",
    ),
    (
        "docs/tools.md: KEYCODE_UNKNOWN cannot be sent",
        "press_key",
        r#"{"key":-1}"#,
        "INVALID_KEY",
    ),
    ("press_key: key required", "press_key", "{}", "INVALID_KEY"),
    (
        "press_key: key wrong type",
        "press_key",
        r#"{"key":true}"#,
        "INVALID_KEY",
    ),
    (
        "press_key: INVALID_MODIFIER",
        "press_key",
        r#"{"key":"V","modifiers":["Hyper"]}"#,
        "INVALID_MODIFIER",
    ),
    (
        "press_key: INVALID_MODIFIER_COUNT",
        "press_key",
        r#"{"key":"V","modifiers":["Ctrl","Alt","Shift"]}"#,
        "INVALID_MODIFIER_COUNT",
    ),
    (
        "press_key: DUPLICATE_MODIFIER",
        "press_key",
        r#"{"key":"V","modifiers":["Ctrl","Ctrl"]}"#,
        "DUPLICATE_MODIFIER",
    ),
    (
        "docs/tools.md: key equal to a modifier",
        "press_key",
        r#"{"key":"CTRL_LEFT","modifiers":["Ctrl"]}"#,
        "DUPLICATE_MODIFIER",
    ),
    (
        "docs/tools.md: system keys take no modifiers",
        "press_key",
        r#"{"key":"Home","modifiers":["Ctrl"]}"#,
        "INVALID_MODIFIER",
    ),
    // find_elements
    (
        "find_elements: MISSING_SEARCH_CRITERIA",
        "find_elements",
        r#"{"bundle_name":"com.example.demo"}"#,
        "MISSING_SEARCH_CRITERIA",
    ),
    (
        "docs/tools.md: find_elements with no match",
        "find_elements",
        r#"{"text":"Nope"}"#,
        "ELEMENT_NOT_FOUND",
    ),
    (
        "find_elements: scope excludes",
        "find_elements",
        r#"{"text":"Login","bundle_name":"com.ohos.systemui"}"#,
        "ELEMENT_NOT_FOUND",
    ),
    // screenshot
    (
        "screenshot Rules: partial region",
        "screenshot",
        r#"{"left":0,"top":0,"right":10}"#,
        "PARAM_CONFLICT",
    ),
    (
        "docs/tools.md: display_id with region",
        "screenshot",
        r#"{"left":0,"top":0,"right":10,"bottom":10,"display_id":1}"#,
        "PARAM_CONFLICT",
    ),
    (
        "docs/tools.md: empty region",
        "screenshot",
        r#"{"left":10,"top":0,"right":10,"bottom":10}"#,
        "INVALID_PARAM",
    ),
    (
        "docs/tools.md: path outside allowed roots",
        "screenshot",
        r#"{"local_path":"/definitely/elsewhere/x.png"}"#,
        "PATH_NOT_ALLOWED",
    ),
    (
        "docs/tools.md: unknown image extension",
        "screenshot",
        r#"{"local_path":"x.gif"}"#,
        "INVALID_PARAM",
    ),
    // get_ui_tree
    (
        "get_ui_tree: WINDOW_RESOLUTION_ERROR unknown window",
        "get_ui_tree",
        r#"{"window_id":999}"#,
        "WINDOW_RESOLUTION_ERROR",
    ),
    (
        "get_ui_tree: WINDOW_RESOLUTION_ERROR invisible window",
        "get_ui_tree",
        r#"{"window_id":11}"#,
        "WINDOW_RESOLUTION_ERROR",
    ),
    (
        "get_ui_tree: WINDOW_RESOLUTION_ERROR bundle without window",
        "get_ui_tree",
        r#"{"bundle_name":"com.nobody"}"#,
        "WINDOW_RESOLUTION_ERROR",
    ),
    (
        "get_ui_tree: WINDOW_RESOLUTION_ERROR window of another bundle",
        "get_ui_tree",
        r#"{"window_id":3,"bundle_name":"com.example.demo"}"#,
        "WINDOW_RESOLUTION_ERROR",
    ),
    // wait_for_element
    (
        "wait_for_element: INVALID_WAIT_TARGET",
        "wait_for_element",
        r#"{"state":"found"}"#,
        "INVALID_WAIT_TARGET",
    ),
    (
        "wait_for_element: INVALID_WAIT_STATE",
        "wait_for_element",
        r#"{"text":"Login","state":"present"}"#,
        "INVALID_WAIT_STATE",
    ),
    (
        "wait_for_element: INVALID_TIMEOUT",
        "wait_for_element",
        r#"{"text":"Login","timeout_ms":-1}"#,
        "INVALID_TIMEOUT",
    ),
    (
        "wait_for_element: INVALID_TIMEOUT (type)",
        "wait_for_element",
        r#"{"text":"Login","timeout_ms":"5s"}"#,
        "INVALID_TIMEOUT",
    ),
    (
        "wait_for_element: INVALID_INTERVAL",
        "wait_for_element",
        r#"{"text":"Login","interval_ms":-5}"#,
        "INVALID_INTERVAL",
    ),
    (
        "wait_for_element: WAIT_TIMEOUT",
        "wait_for_element",
        r#"{"text":"Never","timeout_ms":300,"interval_ms":50}"#,
        "WAIT_TIMEOUT",
    ),
    (
        "wait_for_element: WAIT_TIMEOUT gone",
        "wait_for_element",
        r#"{"text":"Welcome","state":"gone","timeout_ms":200,"interval_ms":50}"#,
        "WAIT_TIMEOUT",
    ),
    // extras
    (
        "scroll_until_visible: MISSING_SEARCH_CRITERIA",
        "scroll_until_visible",
        "{}",
        "MISSING_SEARCH_CRITERIA",
    ),
    (
        "wait_for_stable: unknown parameter",
        "wait_for_stable",
        r#"{"quiet":5}"#,
        "INVALID_PARAM",
    ),
    (
        "design: verify only on UI actions",
        "find_elements",
        r#"{"text":"Login","verify":true}"#,
        "INVALID_PARAM",
    ),
];

#[test]
fn every_error_rule_yields_its_code() {
    let mut failures = Vec::new();
    for (section, tool, args, code) in ERROR_CASES {
        let e = env();
        let args: Value = serde_json::from_str(args).unwrap();
        let got = e.engine.call(tool, args.clone(), &e.ctx);
        // Schema validation (also done by Env::call for known tools).
        if let Some(def) = e.engine.get(tool) {
            jsonschema::validate(&def.output_schema(), &got.to_value()["structuredContent"])
                .unwrap();
        }
        match got.error_code() {
            Some(c) if c == *code => {}
            other => failures.push(format!(
                "[{section}] {tool} {args}: expected {code}, got {other:?}"
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn validation_errors_touch_no_device() {
    // design: "calls that fail validation touch nothing" (the device is resolved on first use)
    let validation = |code: &str| {
        code.starts_with("INVALID_")
            || code.starts_with("MISSING_")
            || [
                "PARAM_CONFLICT",
                "DUPLICATE_MODIFIER",
                "UNKNOWN_TOOL",
                "FILE_NOT_FOUND",
                "PATH_NOT_ALLOWED",
            ]
            .contains(&code)
    };
    let mut checked = 0;
    for (_, tool, args, code) in ERROR_CASES {
        if !validation(code) {
            continue;
        }
        let e = env();
        e.engine
            .call(tool, serde_json::from_str(args).unwrap(), &e.ctx);
        assert_eq!(e.cost().round_trips, 0, "{tool} {args} reached the device");
        // An `.apk` is a package on Android only: whether it is valid depends on the device's
        // platform, so that one case resolves the device (and still sends it nothing).
        if args.contains(".apk") {
            checked += 1;
            continue;
        }
        assert!(
            e.provider.routes().is_empty(),
            "{tool} {args} resolved a device"
        );
        checked += 1;
    }
    assert!(checked > 50);
}

#[test]
fn unknown_parameter_error_names_it_and_suggests() {
    let e = env();
    let (code, details) = e.err("wait_for_element", json!({"text":"Login","timout_ms":5}));
    assert_eq!(code, "INVALID_PARAM");
    assert_eq!(details["param"], "timout_ms");
    assert_eq!(details["suggestion"], "timeout_ms");
}

#[test]
fn nulls_are_defaults() {
    // Shared Response Shape / parameters with default null
    let e = env();
    let r = e.ok("click", json!({"text":"Login","x":null,"y":null,"element_handle":null,"count":null,"device_id":null}));
    assert_eq!(r["count"], 1);
}

// ---------------------------------------------------------------- General tools

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

// ---------------------------------------------------------------- UI tools

#[test]
fn click_by_text_costs_one_dump_and_one_input_command() {
    let e = env();
    let before = e.cost();
    let r = e.ok("click", json!({"text":"Login"}));
    let spent = e.cost() - before;
    assert_eq!(
        (spent.ui_dumps, spent.round_trips),
        (1, 2),
        "1 dump + 1 tap"
    );
    assert_eq!(r["resolved_via"], "search");
    assert_eq!(
        (r["x"].as_i64(), r["y"].as_i64()),
        (Some(630), Some(760)),
        "the Button, not its nested label"
    );
    assert_eq!(r["element_handle"]["compid"], "10:4");
    assert_eq!(r["handle_refreshed"], false);
    assert_eq!(r["dispatched"], true);
    assert_eq!(e.dev.screen(), Screen::Home);
}

#[test]
fn click_coordinates_double_click_and_index() {
    let e = env();
    let before = e.cost();
    let r = e.ok("click", json!({"x":630,"y":1160,"count":2}));
    assert_eq!((e.cost() - before).ui_dumps, 0, "coordinates need no dump");
    assert_eq!(r["resolved_via"], "coordinates");
    assert_eq!(r["element_handle"], Value::Null);
    assert_eq!(
        e.dev.actions().last(),
        Some(&Action::Tap(Point::new(630, 1160), TapKind::Double))
    );
    // "Item" twice: index picks in reading order (left one first on the same row).
    let r = e.ok("click", json!({"text":"Item","index":0}));
    assert_eq!(r["x"], 350);
    let r = e.ok(
        "click",
        json!({"text":"Ite","match_mode":"contains","index":1}),
    );
    assert_eq!(r["x"], 910);
    let r = e.ok("click", json!({"text":"^Wel.*e$","match_mode":"regex"}));
    assert_eq!(r["y"], 250);
}

#[test]
fn ambiguous_match_lists_candidates() {
    let e = env();
    let (code, details) = e.err("click", json!({"text":"Item"}));
    assert_eq!(code, "AMBIGUOUS_ELEMENT_MATCH");
    assert_eq!(details["match_count"], 2);
    assert_eq!(details["candidates"].as_array().unwrap().len(), 2);
}

#[test]
fn handles_from_find_elements_click_and_refresh_when_stale() {
    let e = env();
    let found = e.ok("find_elements", json!({"element_type":"Button"}));
    assert_eq!(found["count"], 2);
    let later = found["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|el| el["text"] == "Later")
        .unwrap()
        .clone();
    assert_eq!(later["lookup_is_broad"], true);
    assert_eq!(later["element_handle"]["lookup_hint"]["index"], 1);
    let r = e.ok("click", json!({"element_handle": later["element_handle"]}));
    assert_eq!(r["resolved_via"], "element_handle");
    assert_eq!(r["handle_refreshed"], false);

    // A handle whose compid no longer exists is refreshed through its lookup_hint.
    let login = e.ok("find_elements", json!({"text":"Login"}));
    let mut handle = login["elements"][0]["element_handle"].clone();
    assert_eq!(login["elements"][0]["lookup_is_broad"], false);
    handle["compid"] = json!("10:777");
    handle["id"] = json!("777");
    let before = e.cost();
    let r = e.ok("click", json!({"element_handle": handle}));
    assert_eq!(r["handle_refreshed"], true);
    assert_eq!(r["resolved_via"], "lookup_hint");
    assert_eq!(r["element_handle"]["compid"], "10:4");
    assert_eq!((e.cost() - before).ui_dumps, 1);
    // On the home screen the hint no longer matches anything.
    assert_eq!(
        e.err("click", json!({"element_handle": handle})).0,
        "ELEMENT_NOT_FOUND"
    );
}

/// docs/tools.md "Element handles": the hint records how its text was compared
/// (`match_mode`), a live handle must still satisfy it that way, and a stale one is refreshed
/// the same way. Hints without it (older handles) keep exact-then-contains.
#[test]
fn handles_remember_their_match_mode() {
    let e = env();
    // Found by a regular expression: the handle is live as is (the pattern is no substring of
    // the text, so without the mode it would look stale and never refresh).
    let found = e.ok(
        "find_elements",
        json!({"text":"^L.gin$","match_mode":"regex"}),
    );
    let h = found["elements"][0]["element_handle"].clone();
    assert_eq!(h["lookup_hint"]["match_mode"], "regex");
    assert_eq!(h["lookup_hint"]["text"], "^L.gin$");
    let r = e.ok("long_press", json!({"element_handle": h}));
    assert_eq!(r["resolved_via"], "element_handle");
    // Stale: refreshed with the same regular expression.
    let mut stale = h.clone();
    stale["compid"] = json!("10:777");
    stale["id"] = json!("777");
    let r = e.ok("long_press", json!({"element_handle": stale}));
    assert_eq!(r["resolved_via"], "lookup_hint");
    assert_eq!(r["element_handle"]["compid"], "10:4");
    assert_eq!(r["element_handle"]["lookup_hint"]["match_mode"], "regex");

    // contains: "ogi" finds Login and refreshes by substring.
    let found = e.ok(
        "find_elements",
        json!({"text":"ogi","match_mode":"contains"}),
    );
    let mut stale = found["elements"][0]["element_handle"].clone();
    assert_eq!(stale["lookup_hint"]["match_mode"], "contains");
    stale["compid"] = json!("10:778");
    let r = e.ok("long_press", json!({"element_handle": stale}));
    assert_eq!(r["element_handle"]["compid"], "10:4");

    // exact stays exact: a stale exact hint for "Logi" finds nothing, where the legacy
    // fallback (no match_mode) would have taken the substring.
    let mut exact = h.clone();
    exact["compid"] = json!("10:779");
    exact["lookup_hint"] = json!({"text": "Logi", "match_mode": "exact"});
    assert_eq!(
        e.err("long_press", json!({"element_handle": exact})).0,
        "ELEMENT_NOT_FOUND"
    );
    let mut legacy = exact.clone();
    legacy["lookup_hint"] = json!({"text": "Logi"});
    let r = e.ok("long_press", json!({"element_handle": legacy}));
    assert_eq!(r["element_handle"]["compid"], "10:4");

    // A mode outside the three is a malformed handle.
    let mut odd = exact.clone();
    odd["lookup_hint"]["match_mode"] = json!("fuzzy");
    assert_eq!(
        e.err("long_press", json!({"element_handle": odd})).0,
        "INVALID_ELEMENT_HANDLE"
    );
    // Criteria without text record no mode.
    let found = e.ok("find_elements", json!({"element_id":"loginBtn"}));
    assert!(
        found["elements"][0]["element_handle"]["lookup_hint"]
            .get("match_mode")
            .is_none()
    );
    assert_eq!(e.dev.screen(), Screen::Login);
}

#[test]
fn long_press_reports_delivery_only() {
    let e = env();
    let r = e.ok("long_press", json!({"element_id":"loginBtn"}));
    assert_eq!(r["dispatched"], true);
    assert_eq!(r["effect_verified"], false);
    assert_eq!(
        e.dev.actions().last(),
        Some(&Action::Tap(Point::new(630, 760), TapKind::Long))
    );
    assert_eq!(e.dev.screen(), Screen::Login);
}

#[test]
fn swipe_and_drag() {
    let e = env();
    let before = e.cost();
    let r = e.ok("swipe", json!({"direction":"up"}));
    let spent = e.cost() - before;
    assert_eq!(
        (spent.round_trips, spent.ui_dumps),
        (2, 0),
        "screen size + swipe"
    );
    assert_eq!(
        (
            r["from_x"].as_i64(),
            r["from_y"].as_i64(),
            r["to_y"].as_i64()
        ),
        (Some(630), Some(2040), Some(680))
    );
    assert_eq!(r["speed"], 600);
    let r = e.ok(
        "swipe",
        json!({"from_x":10,"from_y":20,"to_x":30,"to_y":40,"speed":1200}),
    );
    assert_eq!(r["direction"], Value::Null);
    assert_eq!(
        e.dev.actions().last(),
        Some(&Action::Gesture(Gesture::Swipe {
            from: Point::new(10, 20),
            to: Point::new(30, 40),
            speed: 1200
        }))
    );
    let r = e.ok("drag", json!({"from_x":1,"from_y":2,"to_x":3,"to_y":4}));
    assert_eq!(r["speed"], 600);
    assert_eq!(
        e.dev.actions().last(),
        Some(&Action::Gesture(Gesture::Drag {
            from: Point::new(1, 2),
            to: Point::new(3, 4),
            speed: 600
        }))
    );
}

#[test]
fn press_key_contract_examples() {
    let e = env();
    let r = e.ok("press_key", json!({"key":"Home"}));
    assert_eq!(
        (r["key"].as_str(), r["key_code"].as_i64()),
        (Some("KEYCODE_HOME"), Some(1))
    );
    assert_eq!(e.dev.actions().last(), Some(&Action::Key(KeyInput::Home)));
    assert_eq!(r["effect_verified"], false);
    assert_eq!(r["dispatched"], true);
    let r = e.ok("press_key", json!({"key":"V","modifiers":["Ctrl"]}));
    assert_eq!(r["key"], "KEYCODE_V");
    assert_eq!(r["event_key_codes"], json!([2072, 2038]));
    assert_eq!(r["modifiers"], json!(["Ctrl"]));
    assert_eq!(
        e.dev.actions().last(),
        Some(&Action::Key(KeyInput::Codes(vec![2072, 2038])))
    );
    let r = e.ok("press_key", json!({"key":"KEYCODE_F24"}));
    assert_eq!(r["key_code"], 2827);
    assert_eq!(e.ok("press_key", json!({"key":"Delete"}))["key_code"], 2071);
    assert_eq!(
        e.ok("press_key", json!({"key":"Backspace"}))["key_code"],
        2055
    );
    assert_eq!(
        e.ok("press_key", json!({"key":"page-up"}))["key_code"],
        2068
    );
    assert_eq!(
        e.ok("press_key", json!({"key":2068}))["key"],
        "KEYCODE_PAGE_UP"
    );
    assert_eq!(e.ok("press_key", json!({"key":"End"}))["key_code"], 2082);
    assert_eq!(
        e.ok("press_key", json!({"key":"Back"}))["event_key_codes"],
        json!([2])
    );
    assert_eq!(e.dev.actions().last(), Some(&Action::Key(KeyInput::Back)));
    assert_eq!(
        e.ok("press_key", json!({"key":"KEYCODE_POWER"}))["key_code"],
        18
    );
    assert_eq!(e.dev.actions().last(), Some(&Action::Key(KeyInput::Power)));
    // Two modifiers, sent in the fixed order Ctrl, Alt, Shift, Meta: at most 3 codes.
    let r = e.ok("press_key", json!({"key":"Z","modifiers":["Shift","Ctrl"]}));
    assert_eq!(r["event_key_codes"], json!([2072, 2047, 2042]));
    assert_eq!(r["modifiers"], json!(["Ctrl", "Shift"]));
}

#[test]
fn find_elements_returns_handles_bounds_and_scope() {
    let e = env();
    let r = e.ok("find_elements", json!({"text":"Item"}));
    assert_eq!(r["count"], 2);
    let el = &r["elements"][0];
    assert_eq!(
        el["bounds"],
        json!({"left":100,"top":900,"right":600,"bottom":1000})
    );
    assert_eq!(el["element_handle"]["window_id"], APP_WINDOW);
    assert_eq!(el["element_handle"]["type"], "Text");
    assert_eq!(el["lookup_is_broad"], true);
    assert_eq!(el["bundle_name"], BUNDLE);
    let r = e.ok("find_elements", json!({"text":"12:00","window_id":3}));
    assert_eq!(r["count"], 1);
    let r = e.ok("find_elements", json!({"text":"Item","index":1}));
    assert_eq!(r["count"], 1);
    assert_eq!(r["elements"][0]["bounds"]["left"], 660);
}

#[test]
fn screenshot_full_region_and_default_path() {
    let e = env();
    let r = e.ok("screenshot", json!({}));
    let path = r["local_path"].as_str().unwrap();
    assert!(
        path.starts_with(e.tmp.path().join("shots").to_str().unwrap()),
        "{path}"
    );
    assert!(path.ends_with(".png"));
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(bytes.len() as u64, r["file_size"].as_u64().unwrap());
    assert_eq!(image::load_from_memory(&bytes).unwrap().width(), 126);
    assert_eq!(r["display_id"], 0);
    let r = e.ok(
        "screenshot",
        json!({"local_path":"out/region.jpg","left":10,"top":20,"right":110,"bottom":70}),
    );
    assert_eq!(
        r["bounds"],
        json!({"left":10,"top":20,"right":110,"bottom":70})
    );
    assert_eq!(r["format"], "jpeg");
    assert_eq!(
        (r["width"].as_u64(), r["height"].as_u64()),
        (Some(100), Some(50))
    );
    assert!(e.tmp.path().join("out/region.jpg").is_file());
    *e.dev.next_screenshot_error.lock().unwrap() = Some(tapflow_device::DeviceError::Command {
        code: tapflow_core::codes::SCREENSHOT_ERROR,
        what: "snapshot_display".into(),
        device_says: "error: current mode is not developer mode, just return.".into(),
    });
    let (code, details) = e.err("screenshot", json!({}));
    assert_eq!(code, "SCREENSHOT_ERROR");
    assert_eq!(details["cause_code"], "SCREENSHOT_ERROR");
}

#[test]
fn get_ui_tree_global_and_validated_window() {
    let e = env();
    let r = e.ok("get_ui_tree", json!({}));
    assert_eq!(r["capture_scope"], "global");
    assert_eq!(r["validation_applied"], false);
    assert_eq!(r["ui_tree"]["children"].as_array().unwrap().len(), 2);
    let total = r["node_count"].as_u64().unwrap();
    let before = e.cost();
    let r = e.ok("get_ui_tree", json!({"bundle_name": BUNDLE}));
    assert_eq!((e.cost() - before).ui_dumps, 1);
    assert_eq!(r["capture_scope"], "window");
    assert_eq!(r["validated_window_id"], APP_WINDOW);
    assert_eq!(r["window_id"], Value::Null);
    assert_eq!(r["validation_applied"], true);
    assert_eq!(r["ui_tree"]["attributes"]["bundleName"], BUNDLE);
    assert!(r["node_count"].as_u64().unwrap() < total);
    let r = e.ok("get_ui_tree", json!({"window_id": 3}));
    assert_eq!(r["node_count"], 2);
    // Bundles resolved through the dump when the window table does not name them.
    *e.dev.windows_name_bundles.lock().unwrap() = false;
    assert_eq!(
        e.ok("get_ui_tree", json!({"bundle_name": BUNDLE}))["validated_window_id"],
        APP_WINDOW
    );
}

#[test]
fn list_windows_foreground_and_filter() {
    let e = env();
    let r = e.ok("list_windows", json!({}));
    assert_eq!(r["total_count"], 3);
    assert_eq!(r["count"], 3);
    let fg: Vec<i64> = r["windows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["is_foreground"] == true)
        .map(|w| w["window_id"].as_i64().unwrap())
        .collect();
    assert_eq!(fg, vec![APP_WINDOW]);
    let sys = r["windows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["window_id"] == 3)
        .unwrap();
    assert_eq!(sys["is_app"], false);
    let r = e.ok("list_windows", json!({"bundle_name":" COM.EXAMPLE.DEMO "}));
    assert_eq!(
        (r["count"].as_u64(), r["total_count"].as_u64()),
        (Some(1), Some(3))
    );
    // On the desktop, SceneBoard is never the application foreground window.
    e.dev.set_screen(Screen::Desktop);
    let r = e.ok("list_windows", json!({}));
    assert!(
        r["windows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| w["is_foreground"] == false)
    );
}

#[test]
fn wait_for_element_first_poll_costs_two_dumps() {
    let e = env();
    let before = e.cost();
    let r = e.ok("wait_for_element", json!({"text":"Login","interval_ms":10}));
    let spent = e.cost() - before;
    assert_eq!(spent.ui_dumps, 2, "one poll + one confirmation");
    assert_eq!(r["satisfied"], true);
    assert_eq!(r["state"], "found");
    assert_eq!(r["element"]["element_handle"]["compid"], "10:4");
    assert_eq!(r["polls"], 2);
    let r = e.ok(
        "wait_for_element",
        json!({"text":"Item","index":1,"interval_ms":0}),
    );
    assert_eq!(
        r["element"]["bounds"]["left"], 660,
        "index in reading order"
    );
    assert_eq!(
        e.err(
            "wait_for_element",
            json!({"text":"Item","index":2,"timeout_ms":100,"interval_ms":20})
        )
        .0,
        "WAIT_TIMEOUT"
    );
    assert_eq!(
        e.err(
            "wait_for_element",
            json!({"text":"Item","index":0,"state":"gone"})
        )
        .0,
        "PARAM_CONFLICT"
    );
    let before = e.cost();
    e.ok("wait_for_element", json!({"text":"Login","interval_ms":0}));
    assert_eq!(
        (e.cost() - before).ui_dumps,
        1,
        "interval 0: no confirmation"
    );
}

#[test]
fn wait_for_element_zero_timeout_touches_nothing() {
    let e = env();
    let before = e.cost();
    let (code, details) = e.err("wait_for_element", json!({"text":"Login","timeout_ms":0}));
    assert_eq!(code, "WAIT_TIMEOUT");
    assert_eq!(details["polls"], 0);
    assert_eq!(e.cost() - before, tapflow_device::Cost::default());
    assert!(
        e.provider.routes().is_empty(),
        "not even the device was resolved"
    );
}

#[test]
fn wait_for_element_sees_a_delayed_transition_and_gone() {
    let e = env();
    *e.dev.transition_delay.lock().unwrap() = Duration::from_millis(200);
    e.ok("click", json!({"text":"Login"}));
    assert_eq!(e.dev.screen(), Screen::Login);
    let r = e.ok(
        "wait_for_element",
        json!({"text":"Loading…","state":"gone","timeout_ms":3000,"interval_ms":50}),
    );
    assert_eq!(r["element"], Value::Null);
    assert!(r["elapsed_ms"].as_u64().unwrap() >= 100);
    let r = e.ok(
        "wait_for_element",
        json!({"text":"Home","timeout_ms":3000,"interval_ms":50,"bundle_name":BUNDLE}),
    );
    assert_eq!(r["element"]["text"], "Home");
}

#[test]
fn wait_for_element_budget_is_strict_even_with_a_slow_device() {
    let e = env();
    *e.dev.dump_latency.lock().unwrap() = Duration::from_millis(400);
    let start = std::time::Instant::now();
    let (code, details) = e.err(
        "wait_for_element",
        json!({"text":"Login","timeout_ms":250,"interval_ms":10}),
    );
    assert_eq!(code, "WAIT_TIMEOUT");
    assert_eq!(details["polls"], 0, "the pending dump was abandoned");
    // Generous bound: the call must not wait for the 400ms dump.
    assert!(
        start.elapsed() < Duration::from_millis(390),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn wait_for_element_confirmation_shares_the_budget() {
    // "Device queries, polling sleeps, and stability confirmation all share the timeout_ms budget"
    let e = env();
    let start = std::time::Instant::now();
    let (code, details) = e.err(
        "wait_for_element",
        json!({"text":"Login","timeout_ms":150,"interval_ms":1000}),
    );
    assert_eq!(code, "WAIT_TIMEOUT");
    assert_eq!(details["polls"], 1, "seen once, confirmation did not fit");
    assert_eq!(details["last_match_count"], 1);
    assert!(
        start.elapsed() < Duration::from_millis(900),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn wait_for_element_rides_out_transient_dump_failures() {
    let e = env();
    e.dev
        .failing_dumps
        .store(2, std::sync::atomic::Ordering::SeqCst);
    let r = e.ok(
        "wait_for_element",
        json!({"text":"Login","timeout_ms":2000,"interval_ms":10}),
    );
    assert_eq!(r["polls"], 4);
}

#[test]
fn a_failing_dump_maps_to_ui_tree_fetch_error() {
    let e = env();
    e.dev
        .failing_dumps
        .store(1, std::sync::atomic::Ordering::SeqCst);
    let (code, details) = e.err("get_ui_tree", json!({}));
    assert_eq!(code, "UI_TREE_FETCH_ERROR");
    assert!(
        details["device_says"]
            .as_str()
            .unwrap()
            .starts_with("DumpLayout failed")
    );
}

#[test]
fn dump_failures_map_to_payload_fetch_or_infrastructure_codes() {
    use tapflow_device::DeviceError;
    let e = env();
    *e.dev.next_dump_error.lock().unwrap() = Some(DeviceError::Parse {
        // A code that the tool replaces (a backend's `INVALID_*` refusal would pass through).
        code: tapflow_core::codes::UI_TREE_FETCH_ERROR,
        what: "layout JSON".into(),
        detail: "EOF while parsing".into(),
    });
    let (code, details) = e.err("get_ui_tree", json!({}));
    assert_eq!(code, "INVALID_UI_TREE_PAYLOAD");
    assert_eq!(details["cause_code"], "UI_TREE_FETCH_ERROR");
    *e.dev.next_dump_error.lock().unwrap() = Some(DeviceError::Timeout {
        command: "uitest dumpLayout".into(),
        after: Duration::from_secs(10),
    });
    assert_eq!(
        e.err("click", json!({"text":"Login"})).0,
        "HDC_TIMEOUT",
        "infrastructure codes pass through"
    );
    assert!(
        !e.dev.actions().iter().any(|a| matches!(a, Action::Tap(..))),
        "nothing tapped"
    );
    *e.dev.next_dump_error.lock().unwrap() = Some(DeviceError::ScreenLocked {
        serial: "FAKE0001".into(),
    });
    assert_eq!(
        e.err("find_elements", json!({"text":"Login"})).0,
        "SCREEN_LOCKED"
    );
    // A non-transient error ends a wait at once instead of burning the budget.
    *e.dev.next_dump_error.lock().unwrap() = Some(DeviceError::Disconnected {
        device_says: "gone".into(),
    });
    assert_eq!(
        e.err(
            "wait_for_element",
            json!({"text":"Login","timeout_ms":5000})
        )
        .0,
        "DEVICE_DISCONNECTED"
    );
}

#[test]
fn a_caching_provider_resolves_each_route_once() {
    use tapflow_tools::CachingProvider;
    let dev = FakeDevice::new("C1");
    let inner = FakeProvider::new(vec![dev]);
    let caching = Arc::new(CachingProvider::new(inner.clone(), Duration::from_secs(60)));
    let ctx = ToolContext::new(caching.clone(), ToolConfig::default());
    let engine = Engine::new();
    for _ in 0..3 {
        assert!(
            engine
                .call("find_elements", json!({"text":"Welcome"}), &ctx)
                .ok()
        );
    }
    assert!(
        engine
            .call(
                "find_elements",
                json!({"text":"Welcome","device_id":"C1"}),
                &ctx
            )
            .ok()
    );
    assert_eq!(inner.routes().len(), 2, "one resolution per distinct route");
    caching.forget();
    assert!(
        engine
            .call("find_elements", json!({"text":"Welcome"}), &ctx)
            .ok()
    );
    assert_eq!(inner.routes().len(), 3);
    let expired = CachingProvider::new(inner.clone(), Duration::ZERO);
    let ctx = ToolContext::new(Arc::new(expired), ToolConfig::default());
    engine.call("list_windows", json!({}), &ctx);
    engine.call("list_windows", json!({}), &ctx);
    assert_eq!(inner.routes().len(), 5, "no reuse after the ttl");
}

#[test]
fn engine_and_context_are_shareable_across_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Engine>();
    shareable::<ToolContext>();
    let e = Arc::new(env());
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let e = e.clone();
            std::thread::spawn(move || {
                e.engine
                    .call("find_elements", json!({"text":"Welcome"}), &e.ctx)
                    .ok()
            })
        })
        .collect();
    assert!(handles.into_iter().all(|h| h.join().unwrap()));
}

// ---------------------------------------------------------------- Beyond the reference

#[test]
fn verify_adds_evidence_and_include_cost_adds_cost() {
    let e = env();
    let r = e.ok(
        "click",
        json!({"text":"Login","verify":true,"include_cost":true}),
    );
    let ev = &r["evidence"];
    assert_eq!(ev["changed_from_before"], true);
    assert_eq!(ev["foreground_app"], BUNDLE);
    assert_eq!(ev["digest"].as_str().unwrap().len(), 16);
    assert!(
        ev["interactive_node_count"].as_u64().unwrap() > 10,
        "list rows are clickable"
    );
    // The pre-action dump is the one the search already made and the post-action dump travels
    // with the tap: 2 dumps, 2 round trips.
    assert_eq!(r["cost"]["ui_dumps"], 2);
    assert_eq!(r["cost"]["device_round_trips"], 2);
    assert_eq!(
        e.dev
            .chained_dumps
            .load(std::sync::atomic::Ordering::SeqCst),
        1
    );
    // Tapping "Later" changes nothing.
    e.ok("click", json!({"element_id":"backBtn"}));
    let r = e.ok("click", json!({"text":"Later","verify":true}));
    assert_eq!(r["evidence"]["changed_from_before"], false);
    assert!(r.get("cost").is_none(), "default shape unchanged");
    let plain = e.ok("click", json!({"text":"Later"}));
    assert!(plain.get("evidence").is_none());
    // Evidence is best-effort: a failed observation never fails the action.
    e.dev
        .failing_dumps
        .store(1, std::sync::atomic::Ordering::SeqCst);
    let r = e.ok("press_key", json!({"key":"Back","verify":true}));
    assert!(r.get("evidence").is_none());
    assert!(r["evidence_error"].as_str().unwrap().contains("pre-action"));
    assert_eq!(r["dispatched"], true);
    // include_cost on a failing call goes to the error details.
    let (_, details) = e.err("click", json!({"text":"Nope","include_cost":true}));
    assert_eq!(details["cost"]["ui_dumps"], 1);
}

/// docs/tools.md "Beyond the reference", `verify`: evidence costs no round trip after the
/// action (the post-action dump travels with it); a failed chained dump is `evidence_error`,
/// never a failed action; a backend that cannot chain pays one more round trip.
#[test]
fn verify_evidence_rides_with_the_action() {
    use std::sync::atomic::Ordering::SeqCst;
    let cost_of = |e: &Env, tool: &str, args: Value| {
        let before = e.cost();
        let r = e.ok(tool, args);
        (r, e.cost() - before)
    };
    // Every UI action with verify: pre-action dump + action-with-dump.
    let e = env();
    let (r, c) = cost_of(&e, "press_key", json!({"key":"Home","verify":true}));
    assert_eq!((c.round_trips, c.ui_dumps), (2, 2));
    assert_eq!(r["evidence"]["changed_from_before"], true);
    assert_eq!(e.dev.screen(), Screen::Desktop);
    let e = env();
    let (r, c) = cost_of(
        &e,
        "swipe",
        json!({"from_x":600,"from_y":2000,"to_x":600,"to_y":800,"verify":true}),
    );
    assert_eq!(
        (c.round_trips, c.ui_dumps),
        (2, 2),
        "no dump is needed for explicit coordinates"
    );
    assert!(r["evidence"]["digest"].is_string());
    let (_, c) = cost_of(
        &e,
        "drag",
        json!({"from_x":600,"from_y":2000,"to_x":600,"to_y":800,"verify":true}),
    );
    assert_eq!((c.round_trips, c.ui_dumps), (2, 2));
    assert_eq!(e.dev.chained_dumps.load(SeqCst), 2);

    // The chained dump fails: the action happened and says so; the evidence error says why.
    let e = env();
    e.dev.failing_chained_dumps.store(1, SeqCst);
    let (r, c) = cost_of(&e, "click", json!({"text":"Login","verify":true}));
    assert_eq!(r["dispatched"], true);
    assert!(r.get("evidence").is_none());
    let why = r["evidence_error"].as_str().unwrap();
    assert!(
        why.contains("post-action") && why.contains("DumpLayout failed"),
        "{why}"
    );
    assert_eq!(c.round_trips, 2, "no retry behind the caller's back");
    assert_eq!(e.dev.screen(), Screen::Home);

    // Without verify nothing is chained and no dump follows the action.
    let e = env();
    let (r, c) = cost_of(&e, "click", json!({"text":"Login"}));
    assert!(r.get("evidence").is_none());
    assert_eq!((c.round_trips, c.ui_dumps), (2, 1));
    assert_eq!(e.dev.chained_dumps.load(SeqCst), 0);

    // A backend that cannot chain: the trait's default costs one more round trip.
    let e = env();
    e.dev.no_chaining.store(true, SeqCst);
    let (r, c) = cost_of(&e, "click", json!({"text":"Login","verify":true}));
    assert_eq!(r["evidence"]["changed_from_before"], true);
    assert_eq!((c.round_trips, c.ui_dumps), (3, 2));
}

#[test]
fn scroll_until_visible_scrolls_and_stops_at_the_end() {
    let e = env();
    e.ok("click", json!({"text":"Login"}));
    let r = e.ok("scroll_until_visible", json!({"text":"Row 17"}));
    assert_eq!(r["swipes"], 2);
    assert_eq!(r["element"]["text"], "Row 17");
    assert_eq!(e.dev.offset(), 10);
    let before = e.cost();
    let (code, details) = e.err("scroll_until_visible", json!({"text":"Row 99"}));
    assert_eq!(code, "ELEMENT_NOT_FOUND");
    assert_eq!(details["reached_end"], true);
    let spent = e.cost() - before;
    assert_eq!(spent.ui_dumps, 4, "offset 10 → 15 → 20 → unchanged");
    let (code, details) = e.err(
        "scroll_until_visible",
        json!({"text":"Row 0","direction":"down","max_swipes":1}),
    );
    assert_eq!(
        (code.as_str(), details["reached_end"].as_bool()),
        ("ELEMENT_NOT_FOUND", Some(false))
    );
    let r = e.ok(
        "scroll_until_visible",
        json!({"text":"Row 0","direction":"down"}),
    );
    assert_eq!(r["element"]["text"], "Row 0");
}

#[test]
fn wait_for_stable_reports_what_changed() {
    let e = env();
    *e.dev.transition_delay.lock().unwrap() = Duration::from_millis(150);
    e.ok("click", json!({"text":"Login"}));
    let r = e.ok(
        "wait_for_stable",
        json!({"quiet_ms":200,"timeout_ms":3000,"interval_ms":30}),
    );
    assert_eq!(r["stable"], true);
    assert_eq!(r["changed"], true);
    let added: Vec<&str> = r["changes"]["added"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["text"].as_str().unwrap())
        .collect();
    assert!(added.contains(&"Home"), "{added:?}");
    let removed: Vec<&str> = r["changes"]["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["text"].as_str().unwrap())
        .collect();
    assert!(removed.contains(&"Loading…"));
    // Already stable: unchanged.
    let r = e.ok("wait_for_stable", json!({"quiet_ms":50,"interval_ms":30}));
    assert_eq!(r["changed"], false);
    assert!(r["polls"].as_u64().unwrap() >= 2);
    // Never stable within the budget.
    *e.dev.transition_delay.lock().unwrap() = Duration::from_millis(5000);
    e.ok("click", json!({"text":"Back"}));
    e.ok("click", json!({"text":"Login"}));
    assert_eq!(
        e.err(
            "wait_for_stable",
            json!({"quiet_ms":500,"timeout_ms":200,"interval_ms":30})
        )
        .0,
        "WAIT_TIMEOUT"
    );
}

#[test]
fn every_tool_is_listed_with_schemas_annotations_and_policy() {
    let e = env();
    let tools = e.engine.mcp_tools();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for n in [
        "list_devices",
        "query_package",
        "install_app",
        "run_app",
        "uninstall_app",
        "click",
        "long_press",
        "swipe",
        "drag",
        "press_key",
        "find_elements",
        "screenshot",
        "get_ui_tree",
        "list_windows",
        "wait_for_element",
        "stop_app",
        "clear_app_data",
        "scroll_until_visible",
        "wait_for_stable",
    ] {
        assert!(names.contains(&n), "{n} missing");
    }
    for t in &tools {
        assert!(
            jsonschema::meta::is_valid(&t["inputSchema"]),
            "{}",
            t["name"]
        );
        assert!(
            jsonschema::meta::is_valid(&t["outputSchema"]),
            "{}",
            t["name"]
        );
        assert!(t["annotations"]["readOnlyHint"].is_boolean());
        assert!(t["_meta"]["policy"]["risk"].is_string());
    }
    let uninstall = tools.iter().find(|t| t["name"] == "uninstall_app").unwrap();
    assert_eq!(uninstall["annotations"]["destructiveHint"], true);
    assert_eq!(uninstall["_meta"]["policy"]["needs_approval"], true);
    let wait = tools
        .iter()
        .find(|t| t["name"] == "wait_for_element")
        .unwrap();
    assert_eq!(
        wait["inputSchema"]["properties"]["state"]["enum"],
        json!(["found", "gone"])
    );
}

/// `verify` on the real stack: the hdc backend chains the tap with the dump observing it, so a
/// click by search with evidence costs the search's dump plus ONE `hdc shell` (and the
/// provider's own listing that resolves the route).
#[test]
fn verify_on_the_hdc_backend_costs_no_round_trip_after_the_action() {
    use tapflow_tools::DeviceProvider;

    let dir = tempfile::tempdir().unwrap();
    let provider = sim_provider::hdc_provider_with_demo(dir.path());
    let ctx = ToolContext::new(provider.clone(), ToolConfig::default());
    let engine = Engine::new();
    let before = provider.cost().round_trips;
    let env = engine.call(
        "click",
        json!({"element_id": "username", "verify": true, "include_cost": true}),
        &ctx,
    );
    assert!(env.ok(), "{:?}", env.structured.error);
    let v = env.to_value();
    let schema = engine.get("click").unwrap().output_schema();
    if let Err(e) = jsonschema::validate(&schema, &v["structuredContent"]) {
        panic!("not schema-valid: {e}");
    }
    let r = env.result();
    let listing = provider.cost().round_trips - before;
    assert_eq!(listing, 1);
    let device = r["cost"]["device_round_trips"].as_u64().unwrap() - listing;
    assert_eq!(device, 2, "search dump + tap with its dump");
    assert_eq!(r["cost"]["ui_dumps"], 2);
    // Tapping the field focuses it and raises the keyboard: the screen changed.
    assert_eq!(r["evidence"]["changed_from_before"], true);
    assert!(r.get("evidence_error").is_none());
}
