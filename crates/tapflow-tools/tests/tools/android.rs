//! Every registered tool on the simulated Android device, through `Engine::call` → the adb
//! backend → the real `adb` client → the simulated device: each works, or answers the documented
//! `UNSUPPORTED_ON_PLATFORM` naming the alternative. Envelopes are validated against each tool's
//! published output schema.

use crate::common::adb_env;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use adb_env::AdbEnv;
use serde_json::{Value, json};
use tapflow_device::adb::AdbClient;
use tapflow_sim::Latency;
use tapflow_sim::android::apk::{build_apk, manifest};
use tapflow_sim::android::{AndroidFarm, FarmOptions};
use tapflow_tools::adb_provider::AdbProvider;
use tapflow_tools::{CachingProvider, DeviceProvider, Engine, Envelope, ToolConfig, ToolContext};

use tapflow_sim::DEMO_BUNDLE as DEMO;

struct Env {
    _farm: AndroidFarm,
    _adb: AdbEnv,
    ctx: ToolContext,
    engine: Engine,
    tmp: tempfile::TempDir,
    called: std::cell::RefCell<BTreeSet<String>>,
}

fn env() -> Env {
    let farm = AndroidFarm::start(&FarmOptions {
        latency: Latency::None,
        seed: 9,
        ..Default::default()
    })
    .unwrap();
    let adb = AdbEnv::start();
    let client = AdbClient::with_process(adb.config());
    client.adb_connect(&farm.addresses()[0]).unwrap();
    let provider: Arc<dyn DeviceProvider> = Arc::new(CachingProvider::new(
        Arc::new(AdbProvider(client)),
        Duration::from_secs(600),
    ));
    let tmp = tempfile::tempdir().unwrap();
    let config = ToolConfig {
        screenshots_dir: tmp.path().join("shots"),
        launch_verify_timeout_ms: 5000,
        ..ToolConfig::rooted_at(tmp.path())
    };
    Env {
        _farm: farm,
        _adb: adb,
        ctx: ToolContext::new(provider, config),
        engine: Engine::new(),
        tmp,
        called: Default::default(),
    }
}

impl Env {
    fn call(&self, tool: &str, args: Value) -> Envelope {
        self.called.borrow_mut().insert(tool.to_string());
        let env = self.engine.call(tool, args, &self.ctx);
        let v = env.to_value();
        let def = self.engine.get(tool).expect("registered");
        if let Err(e) = jsonschema::validate(&def.output_schema(), &v["structuredContent"]) {
            panic!("{tool}: does not match its output schema: {e}\n{v:#}");
        }
        env
    }

    fn ok(&self, tool: &str, args: Value) -> Value {
        let e = self.call(tool, args.clone());
        assert!(e.ok(), "{tool} {args}: {:?}", e.structured.error);
        e.result().clone()
    }

    fn unsupported(&self, tool: &str, args: Value) -> String {
        let e = self.call(tool, args.clone());
        assert_eq!(
            e.error_code(),
            Some("UNSUPPORTED_ON_PLATFORM"),
            "{tool} {args}: {:?}",
            e.structured
        );
        e.structured.error.unwrap().message
    }
}

#[test]
fn every_tool_works_on_android_or_says_it_is_unsupported() {
    let e = env();
    // Devices and packages.
    let d = e.ok("list_devices", json!({}));
    assert_eq!(d["count"], 1);
    assert_eq!(d["devices"][0]["info"]["platform"], "android");
    let q = e.ok(
        "query_package",
        json!({"bundle_name": DEMO, "info_type": "main_ability"}),
    );
    assert!(
        q.to_string().contains("com.tapflow.demo.EntryAbility"),
        "{q}"
    );
    e.ok("clear_app_data", json!({"bundle_name": DEMO}));
    let r = e.ok("run_app", json!({"bundle_name": DEMO}));
    assert_eq!(r["window_found"], true, "{r}");
    assert_eq!(r["ability_name"], "com.tapflow.demo.EntryAbility");
    // UI: find, type (ASCII typed, Unicode committed), click, wait.
    let f = e.ok("find_elements", json!({"element_id": "username"}));
    assert_eq!(f["count"], 1, "{f}");
    assert_eq!(f["elements"][0]["type"], "android.widget.EditText");
    let t = e.ok(
        "input_text",
        json!({"element_id": "username", "text": "Zoë 用户"}),
    );
    assert_eq!(
        (t["verified"].clone(), t["input_strategy"].clone()),
        (json!(true), json!("ime_commit")),
        "{t}"
    );
    let t = e.ok(
        "input_text",
        json!({"element_id": "username", "text": "it's ann"}),
    );
    assert_eq!(
        (t["verified"].clone(), t["input_strategy"].clone()),
        (json!(true), json!("direct")),
        "{t}"
    );
    e.ok("press_key", json!({"key": "a", "modifiers": ["Ctrl"]}));
    let k = e.ok("press_key", json!({"key": "MoveEnd"}));
    assert_eq!(k["event_key_codes"], json!([123]));
    let why = e.unsupported("press_key", json!({"key": "F24"}));
    assert!(why.contains("no Android keycode"), "{why}");
    e.ok("click", json!({"element_id": "login"}));
    let w = e.ok(
        "wait_for_element",
        json!({"element_id": "greeting", "timeout_ms": 5000}),
    );
    assert_eq!(w["state"], "found", "{w}");
    e.ok(
        "wait_for_stable",
        json!({"quiet_ms": 300, "timeout_ms": 5000}),
    );
    let tree = e.ok("get_ui_tree", json!({}));
    assert!(tree["node_count"].as_u64().unwrap() > 5);
    let wins = e.ok("list_windows", json!({}));
    assert!(wins.to_string().contains(DEMO), "{wins}");
    let shot = e.ok("screenshot", json!({}));
    assert_eq!(
        (shot["width"].clone(), shot["height"].clone()),
        (json!(1080), json!(2400))
    );
    // Lists and gestures.
    e.ok("click", json!({"element_id": "open_items"}));
    e.ok(
        "wait_for_element",
        json!({"text": "Item 1", "timeout_ms": 5000}),
    );
    let s = e.ok(
        "scroll_until_visible",
        json!({"text": "Item 30", "direction": "up", "max_swipes": 20}),
    );
    assert_eq!(s["element"]["text"], "Item 30", "{s}");
    e.ok("long_press", json!({"text": "Item 30"}));
    e.ok("swipe", json!({"direction": "down"}));
    e.ok(
        "drag",
        json!({"from_x": 500, "from_y": 1500, "to_x": 500, "to_y": 900}),
    );
    // Logs: the app's marker through logcat.
    let l = e.ok("logs_query", json!({"mode": "markers", "marker_keywords": ["LOGIN_SUCCESS user=it's ann"], "seconds": 120}));
    assert!(l["match_count"].as_u64().unwrap() >= 1, "{l}");
    // Packages: an .apk installs, a .hap is HarmonyOS only.
    let apk = e.tmp.path().join("hello.apk");
    std::fs::write(
        &apk,
        build_apk(
            &manifest("com.example.hello", 1, "1.0", ".MainActivity"),
            None,
        ),
    )
    .unwrap();
    let i = e.ok("install_app", json!({"hap_path": apk}));
    assert_eq!(i["installed"], true);
    let hap = e.tmp.path().join("entry.hap");
    std::fs::write(&hap, b"PK").unwrap();
    let why = e.unsupported("install_app", json!({"hap_path": hap}));
    assert!(why.contains(".apk"), "{why}");
    e.ok("uninstall_app", json!({"bundle_name": "com.example.hello"}));
    e.ok("stop_app", json!({"bundle_name": DEMO}));
    // build_app runs on the host (hvigor, HarmonyOS artifacts) and never touches a device.
    let b = e.call(
        "build_app",
        json!({"project_path": e.tmp.path().join("no-project")}),
    );
    assert!(!b.ok());
    assert_ne!(b.error_code(), Some("UNSUPPORTED_ON_PLATFORM"));
    // Every registered tool was called.
    let all: BTreeSet<String> = e.engine.tools().map(|t| t.name.to_string()).collect();
    let called = e.called.borrow().clone();
    assert_eq!(
        all.difference(&called).collect::<Vec<_>>(),
        Vec::<&String>::new()
    );
}
