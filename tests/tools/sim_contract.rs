//! The tool contract against the SIMULATED HarmonyOS device: every tool of the registry runs
//! through `Engine::call` → the real hdc backend → `SimTransport` → the simulator, on the demo
//! app `com.tapflow.demo`. Table-driven: each case names the section of
//! `docs/reference/tool-contract.md` (or of `docs/tools.md` for our own decisions) it
//! checks, starts from a fresh device brought to a named screen, and validates every envelope
//! against the tool's published output schema. Round trips are asserted by count (via
//! `include_cost`), never by time. Latency is off; the demo app's own delays (800 ms login) are
//! real, or fast-forwarded through the phone's clock where a case does not test them.

use crate::common::envelope;
use tapflow::sim_provider;

use std::collections::BTreeSet;
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use sim_provider::SimProvider;
use tapflow_device::{Device, Point, TextTarget};
use tapflow_sim::phone::hap::{build_hap, module_json};
use tapflow_sim::{FaultSpec, Latency};
use tapflow_tools::{Engine, Envelope, ToolConfig, ToolContext};

use tapflow_sim::DEMO_BUNDLE as DEMO;

/// A fresh simulated phone, the engine, and a scratch directory.
struct Env {
    provider: Arc<SimProvider>,
    ctx: ToolContext,
    engine: Engine,
    tmp: tempfile::TempDir,
}

fn env() -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let provider = SimProvider::single(Latency::None, FaultSpec::none(), 7, tmp.path());
    let config = ToolConfig {
        screenshots_dir: tmp.path().join("shots"),
        launch_verify_timeout_ms: 2000,
        ..ToolConfig::rooted_at(tmp.path())
    };
    Env {
        ctx: ToolContext::new(provider.clone(), config),
        provider,
        engine: Engine::new(),
        tmp,
    }
}

impl Env {
    /// Calls a tool; checks the envelope and validates structuredContent against the tool's
    /// published output schema.
    fn call(&self, tool: &str, args: Value) -> Envelope {
        let env = self.engine.call(tool, args, &self.ctx);
        let v = env.to_value();
        assert_eq!(v["isError"], json!(!env.ok()));
        assert_eq!(v["structuredContent"]["tool"], tool);
        let def = self.engine.get(tool).expect("registered tool");
        envelope::assert_matches_schema(tool, &def.output_schema(), &v["structuredContent"]);
        env
    }

    fn ok(&self, tool: &str, args: Value) -> Value {
        envelope::expect_ok(&self.call(tool, args.clone()), tool, &args)
    }

    fn err(&self, tool: &str, args: Value) -> (String, Value) {
        envelope::expect_err(self.call(tool, args.clone()), tool, &args)
    }

    fn device(&self) -> Arc<tapflow_device::hdc::HdcDevice> {
        self.provider.device()
    }

    /// Applies the phone's delayed transitions as if `by` had passed.
    fn fast_forward(&self, by: Duration) {
        let serial = self.provider.serial();
        let mut phone = self.provider.simulator().phone(&serial).unwrap();
        phone.tick(SystemTime::now() + by);
    }

    /// The centre of the one element matching `args` (through find_elements).
    fn center(&self, args: Value) -> Point {
        let r = self.ok("find_elements", args.clone());
        assert_eq!(r["count"], 1, "{args}");
        let c = &r["elements"][0]["center"];
        Point::new(
            c["x"].as_i64().unwrap() as i32,
            c["y"].as_i64().unwrap() as i32,
        )
    }

    fn visible(&self, args: Value) -> bool {
        self.call("find_elements", args).ok()
    }

    /// Texts of the visible list items, in reading order.
    fn item_texts(&self) -> Vec<String> {
        let r = self.ok(
            "find_elements",
            json!({"text": "^Item \\d+$", "match_mode": "regex"}),
        );
        r["elements"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["text"].as_str().unwrap().to_string())
            .collect()
    }

    fn foreground_bundle(&self) -> Option<String> {
        let r = self.ok("list_windows", json!({}));
        r["windows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["is_foreground"] == true)
            .map(|w| w["bundle_name"].as_str().unwrap_or("").to_string())
    }

    /// A signed test package (real `module.json`, signing block) written into the scratch dir.
    fn hap(&self, name: &str, bundle: &str, signed: bool) -> String {
        let bytes = build_hap(
            &module_json(bundle, 1, "1.0.0", "MainAbility"),
            None,
            signed,
        );
        let path = self.tmp.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_string_lossy().into_owned()
    }
}

/// Where a case starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Given {
    /// Fresh phone: launcher in front, demo app installed but not running.
    Launcher,
    /// Demo app launched: login page.
    Login,
    /// Logged in as `alice`: home page.
    Home,
    Items,
    Settings,
    /// Settings with the reset dialog open.
    Dialog,
}

fn bring(e: &Env, given: Given) {
    if given == Given::Launcher {
        return;
    }
    e.device().start_app(DEMO, "EntryAbility", None).unwrap();
    if given == Given::Login {
        return;
    }
    let at = e.center(json!({"element_id": "username"}));
    e.device().input_text(TextTarget::At(at), "alice").unwrap();
    e.ok("click", json!({"element_id": "login"}));
    e.fast_forward(Duration::from_secs(1));
    assert!(e.visible(json!({"text": "Hello, alice!"})), "logged in");
    match given {
        Given::Items => {
            e.ok("click", json!({"element_id": "open_items"}));
        }
        Given::Settings | Given::Dialog => {
            e.ok("click", json!({"element_id": "open_settings"}));
            if given == Given::Dialog {
                e.ok("click", json!({"element_id": "reset"}));
                assert!(e.visible(json!({"text": "Reset all data?"})));
            }
        }
        _ => {}
    }
}

type Check = Box<dyn Fn(&Env)>;

struct Case {
    section: &'static str,
    /// The tool under test (coverage is checked against the registry).
    tool: &'static str,
    given: Given,
    check: Check,
}

fn case(
    section: &'static str,
    tool: &'static str,
    given: Given,
    check: impl Fn(&Env) + 'static,
) -> Case {
    Case {
        section,
        tool,
        given,
        check: Box::new(check),
    }
}

/// A case that expects one error code.
fn fails(
    section: &'static str,
    tool: &'static str,
    given: Given,
    args: Value,
    code: &'static str,
) -> Case {
    case(section, tool, given, move |e| {
        let (got, details) = e.err(tool, args.clone());
        assert_eq!(got, code, "{args}: {details}");
    })
}

fn cost(r: &Value) -> (u64, u64) {
    let c = &r["cost"];
    (
        c["device_round_trips"].as_u64().unwrap(),
        c["ui_dumps"].as_u64().unwrap(),
    )
}

fn cases() -> Vec<Case> {
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
        // ---- click
        case(
            "click › Key result fields (coordinates mode) › 1 input command",
            "click",
            Login,
            |e| {
                let at = e.center(json!({"element_id": "remember"}));
                let r = e.ok("click", json!({"x": at.x, "y": at.y, "include_cost": true}));
                assert_eq!(
                    (r["x"].as_i64(), r["y"].as_i64()),
                    (Some(at.x as i64), Some(at.y as i64))
                );
                assert_eq!(r["count"], 1);
                assert_eq!(r["resolved_via"], "coordinates");
                assert_eq!(r["handle_refreshed"], false);
                assert_eq!(r["element_handle"], Value::Null);
                assert_eq!(cost(&r), (1, 0));
                let t = e.ok("find_elements", json!({"element_id": "remember"}));
                assert_eq!(t["elements"][0]["checked"], true, "the toggle took the tap");
            },
        ),
        case(
            "click › Rules › search mode = 1 UI dump + 1 input command",
            "click",
            Login,
            |e| {
                let r = e.ok("click", json!({"text": "Login", "include_cost": true}));
                assert_eq!(r["resolved_via"], "search");
                assert_eq!(r["element_handle"]["type"], "Button");
                assert_eq!(cost(&r), (2, 1), "click by text = 1 dump + 1 input command");
                assert!(e.visible(json!({"text": "Username is required"})));
            },
        ),
        case(
            "click › Rules › element_handle mode",
            "click",
            Login,
            |e| {
                let f = e.ok("find_elements", json!({"element_id": "remember"}));
                let h = f["elements"][0]["element_handle"].clone();
                let r = e.ok("click", json!({"element_handle": h, "include_cost": true}));
                assert_eq!(r["resolved_via"], "element_handle");
                assert_eq!(r["handle_refreshed"], false);
                assert_eq!(r["element_handle"], h);
                assert_eq!(cost(&r), (2, 1));
            },
        ),
        case(
            "click › Rules › a live handle follows its element when the list scrolls",
            "click",
            Items,
            |e| {
                let f = e.ok("find_elements", json!({"text": "Item 8"}));
                let h = f["elements"][0]["element_handle"].clone();
                let before = f["elements"][0]["center"].clone();
                e.ok("swipe", json!({"from_x": 630, "from_y": 1600, "to_x": 630, "to_y": 1400, "speed": 40000}));
                let now = e.ok("find_elements", json!({"text": "Item 8"}));
                assert_ne!(now["elements"][0]["center"], before, "the list scrolled");
                let r = e.ok("click", json!({"element_handle": h}));
                assert_eq!(r["resolved_via"], "element_handle");
                assert_eq!(
                    json!({"x": r["x"], "y": r["y"]}),
                    now["elements"][0]["center"]
                );
                assert!(e.visible(json!({"text": "Selected: Item 8"})));
            },
        ),
        case(
            "click › Rules › stale element_handle refreshed through lookup_hint",
            "click",
            Login,
            |e| {
                let f = e.ok("find_elements", json!({"text": "Login"}));
                let h = f["elements"][0]["element_handle"].clone();
                // The screen changes under the handle: the app is restarted in a new window.
                e.ok("stop_app", json!({"bundle_name": DEMO}));
                e.ok("run_app", json!({"bundle_name": DEMO}));
                let now = e.ok("find_elements", json!({"text": "Login"}));
                assert_ne!(
                    now["elements"][0]["element_handle"]["compid"], h["compid"],
                    "{now}"
                );
                let r = e.ok("click", json!({"element_handle": h, "include_cost": true}));
                assert_eq!(r["handle_refreshed"], true, "{r}");
                assert_eq!(r["resolved_via"], "lookup_hint");
                assert_eq!(r["element_handle"], now["elements"][0]["element_handle"]);
                assert_eq!(cost(&r), (2, 1), "the refresh reuses the one dump");
                assert!(e.visible(json!({"text": "Username is required"})));
            },
        ),
        case(
            "docs/tools.md Element handles › stale without a matching hint is ELEMENT_NOT_FOUND",
            "click",
            Login,
            |e| {
                let f = e.ok("find_elements", json!({"text": "Login"}));
                let h = f["elements"][0]["element_handle"].clone();
                e.ok("press_key", json!({"key": "Back"}));
                let (code, _) = e.err("click", json!({"element_handle": h}));
                assert_eq!(code, "ELEMENT_NOT_FOUND");
            },
        ),
        case(
            "click › Parameters › count 2 = double click",
            "click",
            Login,
            |e| {
                let r = e.ok("click", json!({"element_id": "remember", "count": 2}));
                assert_eq!(r["count"], 2);
            },
        ),
        fails(
            "click › Rules › one mode only (coordinates + search)",
            "click",
            Login,
            json!({"x": 10, "y": 10, "text": "Login"}),
            "PARAM_CONFLICT",
        ),
        fails(
            "click › Rules › coordinates cannot be combined with element_handle",
            "click",
            Login,
            json!({"x": 10, "y": 10, "element_handle": {"window_id": 1, "id": "1", "compid": "1:1", "type": "Button"}}),
            "PARAM_CONFLICT",
        ),
        fails(
            "click › Common errors › MISSING_PARAMS (no mode)",
            "click",
            Login,
            json!({}),
            "MISSING_PARAMS",
        ),
        fails(
            "click › Common errors › MISSING_PARAMS (half a coordinate pair)",
            "click",
            Login,
            json!({"x": 10}),
            "MISSING_PARAMS",
        ),
        fails(
            "click › Common errors › INVALID_CLICK_COUNT",
            "click",
            Login,
            json!({"text": "Login", "count": 3}),
            "INVALID_CLICK_COUNT",
        ),
        fails(
            "input_text › Rules › do not pass element_handle as a JSON string (click)",
            "click",
            Login,
            json!({"element_handle": "{\"window_id\":80,\"id\":\"420\"}"}),
            "INVALID_ELEMENT_HANDLE",
        ),
        case(
            "click › Common errors › AMBIGUOUS_ELEMENT_MATCH",
            "click",
            Home,
            |e| {
                let (code, d) = e.err("click", json!({"element_type": "Button"}));
                assert_eq!(code, "AMBIGUOUS_ELEMENT_MATCH");
                assert_eq!(d["match_count"], 4, "{d}");
                assert_eq!(d["candidates"].as_array().unwrap().len(), 4);
            },
        ),
        fails(
            "click › Common errors › ELEMENT_NOT_FOUND",
            "click",
            Home,
            json!({"text": "No such button"}),
            "ELEMENT_NOT_FOUND",
        ),
        case(
            "click › Rules › delivery only; the app reacts on its own (Items opens)",
            "click",
            Home,
            |e| {
                e.ok("click", json!({"text": "Items"}));
                assert!(e.visible(json!({"element_id": "items"})));
            },
        ),
        case(
            "click › Rules › search by id toggles the dark_mode switch",
            "click",
            Settings,
            |e| {
                let checked = |e: &Env| {
                    e.ok("find_elements", json!({"element_id": "dark_mode"}))["elements"][0]
                        ["checked"]
                        .clone()
                };
                assert_eq!(checked(e), false);
                e.ok("click", json!({"element_id": "dark_mode"}));
                assert_eq!(checked(e), true);
            },
        ),
        case(
            "click › Rules › delivery only: dialog Cancel closes it, Confirm resets",
            "click",
            Dialog,
            |e| {
                e.ok("click", json!({"text": "Cancel"}));
                assert!(!e.visible(json!({"text": "Reset all data?"})));
                e.ok("click", json!({"element_id": "dark_mode"}));
                e.ok("click", json!({"element_id": "reset"}));
                e.ok("click", json!({"element_id": "confirm"}));
                assert!(!e.visible(json!({"text": "Reset all data?"})));
                let t = e.ok("find_elements", json!({"element_id": "dark_mode"}));
                assert_eq!(
                    t["elements"][0]["checked"], false,
                    "Confirm cleared dark_mode"
                );
            },
        ),
        case(
            "docs/tools.md Beyond the reference › verify: true gives post-action evidence",
            "click",
            Home,
            |e| {
                let r = e.ok(
                    "click",
                    json!({"text": "Settings", "verify": true, "include_cost": true}),
                );
                assert_eq!(r["evidence"]["changed_from_before"], true, "{r}");
                assert_eq!(r["evidence"]["foreground_app"], DEMO);
                // the pre-action digest reuses the search dump; the post-action tree rides in
                // the same `hdc shell` as the tap (act_then_tree): 2 round trips, 2 dumps
                assert_eq!(cost(&r), (2, 2));
                let r = e.ok("press_key", json!({"key": "A", "verify": true}));
                assert_eq!(r["evidence"]["changed_from_before"], false);
            },
        ),
        // ---- long_press
        case(
            "long_press › Successful delivery returns dispatched: true, effect_verified: false",
            "long_press",
            Home,
            |e| {
                let r = e.ok(
                    "long_press",
                    json!({"element_id": "greeting", "include_cost": true}),
                );
                assert_eq!(r["dispatched"], true);
                assert_eq!(r["effect_verified"], false);
                assert_eq!(r["resolved_via"], "search");
                assert_eq!(cost(&r), (2, 1));
                let r = e.ok("long_press", json!({"x": 100, "y": 200}));
                assert_eq!(r["resolved_via"], "coordinates");
            },
        ),
        fails(
            "long_press › Common errors › PARAM_CONFLICT",
            "long_press",
            Home,
            json!({"x": 1, "y": 1, "element_id": "greeting"}),
            "PARAM_CONFLICT",
        ),
        fails(
            "long_press › Common errors › MISSING_PARAMS",
            "long_press",
            Home,
            json!({}),
            "MISSING_PARAMS",
        ),
        fails(
            "long_press › Common errors › INVALID_ELEMENT_HANDLE",
            "long_press",
            Home,
            json!({"element_handle": {"id": "1"}}),
            "INVALID_ELEMENT_HANDLE",
        ),
        fails(
            "long_press › Common errors › ELEMENT_NOT_FOUND",
            "long_press",
            Home,
            json!({"text": "nothing"}),
            "ELEMENT_NOT_FOUND",
        ),
        // ---- swipe
        case(
            "swipe › Key result fields (direction mode) › the list scrolls",
            "swipe",
            Items,
            |e| {
                let before = e.item_texts();
                assert_eq!(before.first().map(String::as_str), Some("Item 1"));
                assert!(
                    !before.contains(&"Item 60".to_string()),
                    "only the viewport is dumped"
                );
                let r = e.ok("swipe", json!({"direction": "up", "speed": 40000}));
                assert_eq!(r["direction"], "up");
                assert!(
                    r["from_y"].as_i64() > r["to_y"].as_i64(),
                    "up: the finger moves up"
                );
                assert_eq!(r["from_x"], r["to_x"]);
                let after = e.item_texts();
                assert_ne!(
                    after.first(),
                    before.first(),
                    "the list scrolled: {after:?}"
                );
            },
        ),
        case(
            "swipe › Key result fields (coordinate mode)",
            "swipe",
            Items,
            |e| {
                let r = e.ok("swipe", json!({"from_x": 630, "from_y": 2000, "to_x": 630, "to_y": 800, "speed": 40000}));
                assert_eq!(
                    (
                        r["from_x"].as_i64(),
                        r["from_y"].as_i64(),
                        r["to_x"].as_i64(),
                        r["to_y"].as_i64()
                    ),
                    (Some(630), Some(2000), Some(630), Some(800))
                );
                assert_eq!(r["direction"], Value::Null);
                assert_ne!(e.item_texts().first().map(String::as_str), Some("Item 1"));
            },
        ),
        fails(
            "swipe › Rules › direction cannot be combined with explicit coordinates",
            "swipe",
            Items,
            json!({"direction": "up", "from_x": 1, "from_y": 1, "to_x": 2, "to_y": 2}),
            "PARAM_CONFLICT",
        ),
        fails(
            "swipe › Rules › coordinate mode requires all four values",
            "swipe",
            Items,
            json!({"from_x": 1, "from_y": 1, "to_x": 2}),
            "MISSING_PARAMS",
        ),
        fails(
            "swipe › Common errors › MISSING_PARAMS (nothing given)",
            "swipe",
            Items,
            json!({}),
            "MISSING_PARAMS",
        ),
        fails(
            "docs/tools.md swipe › INVALID_DIRECTION",
            "swipe",
            Items,
            json!({"direction": "sideways"}),
            "INVALID_DIRECTION",
        ),
        // ---- drag
        case(
            "drag › Parameters › from/to coordinates",
            "drag",
            Items,
            |e| {
                let r = e.ok("drag", json!({"from_x": 630, "from_y": 2000, "to_x": 630, "to_y": 1000, "speed": 40000, "include_cost": true}));
                assert_eq!(r["dispatched"], true);
                assert_eq!(r["to_y"], 1000);
                assert_eq!(cost(&r), (1, 0));
                assert_ne!(
                    e.item_texts().first().map(String::as_str),
                    Some("Item 1"),
                    "dragging scrolls the list"
                );
            },
        ),
        fails(
            "drag › Common errors › MISSING_PARAMS",
            "drag",
            Items,
            json!({"from_x": 1, "from_y": 1, "to_x": 2}),
            "MISSING_PARAMS",
        ),
        // ---- press_key
        case(
            "press_key › Examples › Back closes the dialog",
            "press_key",
            Dialog,
            |e| {
                let r = e.ok("press_key", json!({"key": "Back"}));
                assert_eq!(r["key_code"], 2);
                assert_eq!(r["dispatched"], true);
                assert_eq!(r["effect_verified"], false);
                assert!(
                    !e.visible(json!({"text": "Reset all data?"})),
                    "dialog closed"
                );
                assert!(
                    e.visible(json!({"element_id": "dark_mode"})),
                    "still on Settings"
                );
            },
        ),
        case(
            "press_key › Rules › Home is the system Home key (1)",
            "press_key",
            Home,
            |e| {
                let r = e.ok("press_key", json!({"key": "Home"}));
                assert_eq!(r["key"], "KEYCODE_HOME");
                assert_eq!(r["event_key_codes"], json!([1]));
                assert_ne!(
                    e.foreground_bundle().as_deref(),
                    Some(DEMO),
                    "launcher in front"
                );
            },
        ),
        case(
            "press_key › Rules › modifiers sent with the key as one keyEvent",
            "press_key",
            Login,
            |e| {
                let r = e.ok(
                    "press_key",
                    json!({"key": "V", "modifiers": ["Ctrl"], "include_cost": true}),
                );
                assert_eq!(r["key"], "KEYCODE_V");
                assert_eq!(r["event_key_codes"], json!([2072, 2038]));
                assert_eq!(cost(&r), (1, 0));
            },
        ),
        fails(
            "press_key › Examples › raw shell fragments are rejected",
            "press_key",
            Home,
            json!({"key": "2072 2038"}),
            "INVALID_KEY",
        ),
        fails(
            "press_key › Common errors › INVALID_KEY",
            "press_key",
            Home,
            json!({"key": "NoSuchKey"}),
            "INVALID_KEY",
        ),
        fails(
            "press_key › Common errors › INVALID_MODIFIER",
            "press_key",
            Home,
            json!({"key": "A", "modifiers": ["Hyper"]}),
            "INVALID_MODIFIER",
        ),
        fails(
            "press_key › Common errors › INVALID_MODIFIER_COUNT",
            "press_key",
            Home,
            json!({"key": "A", "modifiers": ["Ctrl", "Alt", "Shift"]}),
            "INVALID_MODIFIER_COUNT",
        ),
        fails(
            "press_key › Common errors › DUPLICATE_MODIFIER",
            "press_key",
            Home,
            json!({"key": "A", "modifiers": ["Ctrl", "Ctrl"]}),
            "DUPLICATE_MODIFIER",
        ),
        // ---- find_elements
        case(
            "find_elements › Key result fields › elements[].element_handle, lookup_is_broad, bounds",
            "find_elements",
            Login,
            |e| {
                let r = e.ok(
                    "find_elements",
                    json!({"element_id": "username", "include_cost": true}),
                );
                assert_eq!(r["count"], 1);
                let el = &r["elements"][0];
                assert_eq!(el["lookup_is_broad"], false);
                assert_eq!(el["type"], "TextInput");
                assert_eq!(el["bundle_name"], DEMO);
                let h = &el["element_handle"];
                assert_eq!(
                    h["compid"],
                    format!("{}:{}", h["window_id"], h["id"].as_str().unwrap())
                );
                assert!(el["bounds"]["right"].as_i64() > el["bounds"]["left"].as_i64());
                assert_eq!(cost(&r), (1, 1), "one dump");
            },
        ),
        case(
            "find_elements › Key result fields › lookup_is_broad for several matches",
            "find_elements",
            Items,
            |e| {
                let r = e.ok(
                    "find_elements",
                    json!({"text": "Item ", "match_mode": "contains", "bundle_name": DEMO}),
                );
                let n = r["count"].as_u64().unwrap();
                assert!(n > 3 && n < 60, "only the viewport: {n}");
                assert!(
                    r["elements"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|x| x["lookup_is_broad"] == true)
                );
                assert_eq!(r["elements"][0]["text"], "Item 1");
            },
        ),
        case(
            "find_elements › Parameters › window_id narrows the scope",
            "find_elements",
            Login,
            |e| {
                let w = e.ok("list_windows", json!({"bundle_name": DEMO}));
                let wid = w["windows"][0]["window_id"].as_i64().unwrap();
                let r = e.ok(
                    "find_elements",
                    json!({"element_id": "login", "window_id": wid}),
                );
                assert_eq!(r["elements"][0]["window_id"], wid);
                let (code, _) = e.err(
                    "find_elements",
                    json!({"element_id": "login", "window_id": wid + 1000}),
                );
                assert_eq!(code, "ELEMENT_NOT_FOUND");
                let (code, _) = e.err(
                    "find_elements",
                    json!({"element_id": "login", "bundle_name": "com.other.app"}),
                );
                assert_eq!(code, "ELEMENT_NOT_FOUND");
            },
        ),
        fails(
            "find_elements › Rules › at least one criterion",
            "find_elements",
            Login,
            json!({"bundle_name": DEMO}),
            "MISSING_SEARCH_CRITERIA",
        ),
        fails(
            "find_elements › Common errors › ELEMENT_NOT_FOUND",
            "find_elements",
            Login,
            json!({"text": "Nothing"}),
            "ELEMENT_NOT_FOUND",
        ),
        case(
            "design Devices › a password field never exposes its value",
            "find_elements",
            Login,
            |e| {
                let at = e.center(json!({"element_id": "password"}));
                e.device().input_text(TextTarget::At(at), "s3cret").unwrap();
                let r = e.ok("find_elements", json!({"element_id": "password"}));
                assert!(!r.to_string().contains("s3cret"));
            },
        ),
        // ---- screenshot
        case(
            "screenshot › Rules › default path under the screenshots directory; full size",
            "screenshot",
            Home,
            |e| {
                let r = e.ok("screenshot", json!({"include_cost": true}));
                assert_eq!(
                    cost(&r),
                    (2, 0),
                    "capture + receive; the device file is deleted by the next command"
                );
                let path = r["local_path"].as_str().unwrap();
                assert!(
                    Path::new(path).starts_with(e.tmp.path().join("shots")),
                    "{path}"
                );
                let img = image::open(path).unwrap();
                assert_eq!((img.width(), img.height()), (1260, 2720));
                assert_eq!(r["file_size"], std::fs::metadata(path).unwrap().len());
                assert_eq!(r["bounds"], Value::Null);
            },
        ),
        case(
            "screenshot › Key result fields › bounds for region screenshots",
            "screenshot",
            Home,
            |e| {
                let out = e.tmp.path().join("region.png");
                let r = e.ok(
                    "screenshot",
                    json!({"local_path": out, "left": 10, "top": 20, "right": 310, "bottom": 220}),
                );
                assert_eq!(
                    r["bounds"],
                    json!({"left": 10, "top": 20, "right": 310, "bottom": 220})
                );
                let img = image::open(&out).unwrap();
                assert_eq!((img.width(), img.height()), (300, 200));
                let jpg = e.tmp.path().join("full.jpg");
                e.ok("screenshot", json!({"local_path": jpg}));
                assert_eq!(
                    image::ImageFormat::from_path(&jpg).unwrap(),
                    image::ImageFormat::Jpeg
                );
                assert_eq!(image::open(&jpg).unwrap().width(), 1260);
            },
        ),
        case(
            "screenshot › different screens give different images",
            "screenshot",
            Login,
            |e| {
                let a = e.tmp.path().join("a.png");
                e.ok("screenshot", json!({"local_path": a}));
                e.ok("click", json!({"text": "Login"}));
                let b = e.tmp.path().join("b.png");
                e.ok("screenshot", json!({"local_path": b}));
                assert_ne!(std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
            },
        ),
        case(
            "docs/tools.md screenshot › a name without an extension is saved as .png",
            "screenshot",
            Home,
            |e| {
                let bare = e.tmp.path().join("login");
                let r = e.ok("screenshot", json!({"local_path": bare}));
                let written = e.tmp.path().join("login.png");
                assert_eq!(r["local_path"], written.display().to_string());
                assert_eq!(r["format"], "png");
                assert_eq!(
                    image::ImageFormat::from_path(&written).unwrap(),
                    image::ImageFormat::Png
                );
                assert!(image::open(&written).is_ok());
                assert!(!bare.exists());
            },
        ),
        fails(
            "docs/tools.md screenshot › another extension is INVALID_PARAM",
            "screenshot",
            Home,
            json!({"local_path": "shot.gif"}),
            "INVALID_PARAM",
        ),
        fails(
            "screenshot › Rules › region requires left, top, right, bottom together",
            "screenshot",
            Home,
            json!({"left": 1, "top": 1, "right": 10}),
            "PARAM_CONFLICT",
        ),
        fails(
            "screenshot › Parameters › display_id is for full screenshots only",
            "screenshot",
            Home,
            json!({"display_id": 0, "left": 1, "top": 1, "right": 10, "bottom": 10}),
            "PARAM_CONFLICT",
        ),
        fails(
            "docs/tools.md screenshot › PATH_NOT_ALLOWED",
            "screenshot",
            Home,
            json!({"local_path": "/etc/tapflow-shot.png"}),
            "PATH_NOT_ALLOWED",
        ),
        // ---- get_ui_tree
        case(
            "get_ui_tree › Key result fields (global dump)",
            "get_ui_tree",
            Login,
            |e| {
                let r = e.ok("get_ui_tree", json!({"include_cost": true}));
                assert_eq!(r["capture_scope"], "global");
                assert_eq!(r["validation_applied"], false);
                assert!(r["node_count"].as_u64().unwrap() > 5);
                assert!(r["ui_tree"].to_string().contains("\"login\""));
                assert_eq!(cost(&r).1, 1);
            },
        ),
        case(
            "get_ui_tree › Behavior › bundle_name resolves and validates a target window",
            "get_ui_tree",
            Login,
            |e| {
                let r = e.ok("get_ui_tree", json!({"bundle_name": DEMO}));
                assert_eq!(r["capture_scope"], "window");
                assert_eq!(r["validation_applied"], true);
                let wid = r["validated_window_id"].as_i64().unwrap();
                let r2 = e.ok("get_ui_tree", json!({"window_id": wid}));
                assert_eq!(r2["validated_window_id"], wid);
                assert_eq!(r2["window_id"], wid);
                assert!(r2["ui_tree"].to_string().contains("\"username\""));
                assert!(
                    r2["node_count"].as_u64()
                        < e.ok("get_ui_tree", json!({}))["node_count"].as_u64()
                );
            },
        ),
        fails(
            "get_ui_tree › Common errors › WINDOW_RESOLUTION_ERROR (unknown window)",
            "get_ui_tree",
            Login,
            json!({"window_id": 99999}),
            "WINDOW_RESOLUTION_ERROR",
        ),
        fails(
            "get_ui_tree › Common errors › WINDOW_RESOLUTION_ERROR (bundle without a window)",
            "get_ui_tree",
            Launcher,
            json!({"bundle_name": DEMO}),
            "WINDOW_RESOLUTION_ERROR",
        ),
        // ---- list_windows
        case(
            "list_windows › is_foreground: the visible app window with the highest z-order",
            "list_windows",
            Login,
            |e| {
                let r = e.ok("list_windows", json!({}));
                let ws = r["windows"].as_array().unwrap();
                let fg: Vec<&Value> = ws.iter().filter(|w| w["is_foreground"] == true).collect();
                assert_eq!(fg.len(), 1, "{r}");
                assert_eq!(fg[0]["bundle_name"], DEMO);
                assert!(
                    ws.iter().any(|w| w["bundle_name"] == "com.ohos.sceneboard"
                        && w["is_foreground"] == false)
                );
                assert_eq!(r["total_count"], ws.len());
                let f = e.ok("list_windows", json!({"bundle_name": DEMO}));
                assert_eq!(f["count"], 1);
                assert_eq!(f["total_count"], r["total_count"]);
            },
        ),
        case(
            "list_windows › SceneBoard layers are not application foreground windows",
            "list_windows",
            Launcher,
            |e| {
                let r = e.ok("list_windows", json!({}));
                assert!(
                    r["windows"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|w| w["bundle_name"] != DEMO)
                );
            },
        ),
        // ---- wait_for_element
        case(
            "wait_for_element › Rules › found after the login delay (real 800 ms)",
            "wait_for_element",
            Login,
            |e| {
                let at = e.center(json!({"element_id": "username"}));
                e.device().input_text(TextTarget::At(at), "bob").unwrap();
                e.ok("click", json!({"element_id": "login"}));
                let r = e.ok("wait_for_element", json!({"element_id": "greeting", "timeout_ms": 5000, "interval_ms": 100, "include_cost": true}));
                assert_eq!(r["state"], "found");
                assert_eq!(r["satisfied"], true);
                assert_eq!(r["element"]["text"], "Hello, bob!");
                assert!(
                    r["polls"].as_u64().unwrap() >= 2,
                    "the page was not there at once: {r}"
                );
                assert!(r["elapsed_ms"].as_u64().unwrap() <= 5000);
            },
        ),
        case(
            "wait_for_element › Rules › satisfied on the first poll = 2 dumps (with confirmation)",
            "wait_for_element",
            Login,
            |e| {
                let r = e.ok(
                    "wait_for_element",
                    json!({"text": "Login", "interval_ms": 50, "include_cost": true}),
                );
                assert_eq!(cost(&r), (2, 2));
                let r = e.ok(
                    "wait_for_element",
                    json!({"text": "Login", "interval_ms": 0, "include_cost": true}),
                );
                assert_eq!(cost(&r), (1, 1), "interval_ms=0: no confirmation");
            },
        ),
        case(
            "wait_for_element › Parameters › state gone",
            "wait_for_element",
            Login,
            |e| {
                let at = e.center(json!({"element_id": "username"}));
                e.device().input_text(TextTarget::At(at), "carol").unwrap();
                e.ok("click", json!({"element_id": "login"}));
                let r = e.ok("wait_for_element", json!({"element_id": "login", "state": "gone", "timeout_ms": 5000, "interval_ms": 100}));
                assert_eq!(r["state"], "gone");
                assert_eq!(r["element"], Value::Null);
                assert!(e.visible(json!({"element_id": "greeting"})));
            },
        ),
        case(
            "wait_for_element › Rules › timeout_ms=0 returns immediately without querying the device",
            "wait_for_element",
            Login,
            |e| {
                let (code, d) = e.err(
                    "wait_for_element",
                    json!({"text": "Login", "timeout_ms": 0, "include_cost": true}),
                );
                assert_eq!(code, "WAIT_TIMEOUT");
                assert_eq!(d["cost"]["device_round_trips"], 0, "{d}");
                assert_eq!(d["cost"]["ui_dumps"], 0);
            },
        ),
        case(
            "wait_for_element › Common errors › WAIT_TIMEOUT (never appears)",
            "wait_for_element",
            Login,
            |e| {
                let (code, d) = e.err(
                    "wait_for_element",
                    json!({"text": "Never", "timeout_ms": 400, "interval_ms": 100}),
                );
                assert_eq!(code, "WAIT_TIMEOUT");
                assert!(d["polls"].as_u64().unwrap() >= 1, "{d}");
            },
        ),
        fails(
            "wait_for_element › Rules › at least one target",
            "wait_for_element",
            Login,
            json!({"state": "found"}),
            "INVALID_WAIT_TARGET",
        ),
        fails(
            "wait_for_element › Rules › state must be found or gone",
            "wait_for_element",
            Login,
            json!({"text": "Login", "state": "visible"}),
            "INVALID_WAIT_STATE",
        ),
        fails(
            "wait_for_element › Rules › timeout_ms >= 0",
            "wait_for_element",
            Login,
            json!({"text": "Login", "timeout_ms": -1}),
            "INVALID_TIMEOUT",
        ),
        fails(
            "wait_for_element › Rules › interval_ms >= 0",
            "wait_for_element",
            Login,
            json!({"text": "Login", "interval_ms": -5}),
            "INVALID_INTERVAL",
        ),
        // ---- scroll_until_visible
        case(
            "docs/tools.md scroll_until_visible › Item 45 is scrolled into view",
            "scroll_until_visible",
            Items,
            |e| {
                assert!(!e.visible(json!({"text": "Item 45"})));
                let r = e.ok(
                    "scroll_until_visible",
                    json!({"text": "Item 45", "speed": 40000, "include_cost": true}),
                );
                assert_eq!(r["element"]["text"], "Item 45");
                let swipes = r["swipes"].as_u64().unwrap();
                assert!(swipes >= 1);
                let (rt, dumps) = cost(&r);
                assert_eq!(dumps, swipes + 1, "one dump per round");
                assert!(rt <= 2 * swipes + 2, "{rt} round trips for {swipes} swipes");
                let b = &r["element"]["bounds"];
                assert!(b["bottom"].as_i64().unwrap() <= 2720);
            },
        ),
        case(
            "docs/tools.md scroll_until_visible › end of list: ELEMENT_NOT_FOUND, reached_end",
            "scroll_until_visible",
            Items,
            |e| {
                let (code, d) = e.err(
                    "scroll_until_visible",
                    json!({"text": "Item 99", "speed": 40000, "max_swipes": 30}),
                );
                assert_eq!(code, "ELEMENT_NOT_FOUND");
                assert_eq!(d["reached_end"], true, "{d}");
            },
        ),
        fails(
            "docs/tools.md scroll_until_visible › MISSING_SEARCH_CRITERIA",
            "scroll_until_visible",
            Items,
            json!({}),
            "MISSING_SEARCH_CRITERIA",
        ),
        // ---- wait_for_stable
        case(
            "docs/tools.md wait_for_stable › a still screen is stable",
            "wait_for_stable",
            Home,
            |e| {
                let r = e.ok(
                    "wait_for_stable",
                    json!({"quiet_ms": 200, "interval_ms": 50, "include_cost": true}),
                );
                assert_eq!(r["stable"], true);
                assert_eq!(r["changed"], false);
                assert_eq!(cost(&r).1, r["polls"].as_u64().unwrap());
            },
        ),
        case(
            "docs/tools.md wait_for_stable › settles after the login transition (changed)",
            "wait_for_stable",
            Login,
            |e| {
                let at = e.center(json!({"element_id": "username"}));
                e.device().input_text(TextTarget::At(at), "dave").unwrap();
                e.ok("click", json!({"element_id": "login"}));
                let r = e.ok("wait_for_stable", json!({"bundle_name": DEMO, "quiet_ms": 1000, "interval_ms": 100, "timeout_ms": 5000}));
                assert_eq!(r["changed"], true, "{r}");
                assert!(e.visible(json!({"element_id": "greeting"})));
            },
        ),
    ]
}

#[test]
fn every_case_passes_on_the_simulated_device() {
    let cases = cases();
    let mut failed = Vec::new();
    for c in &cases {
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let e = env();
            bring(&e, c.given);
            (c.check)(&e);
        }));
        if let Err(p) = outcome {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failed.push(format!("[{}] {}: {msg}", c.tool, c.section));
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} cases failed:\n{}",
        failed.len(),
        cases.len(),
        failed.join("\n\n")
    );
}

#[test]
fn every_registered_tool_has_cases() {
    // Tools added on other branches bring their own simulated-device suites.
    const COVERED_ELSEWHERE: &[&str] = &["input_text", "logs_query", "build_app"];
    let mut covered: BTreeSet<&str> = cases().iter().map(|c| c.tool).collect();
    covered.extend(COVERED_ELSEWHERE);
    let registered: BTreeSet<&str> = Engine::new().tools().map(|t| t.name).collect();
    let missing: Vec<_> = registered.difference(&covered).collect();
    assert!(
        missing.is_empty(),
        "tools without a simulated-device case: {missing:?}"
    );
}

/// Shared Device Routing with two simulated phones: no `device_id` is `MULTIPLE_DEVICES`
/// (docs/tools.md "Device routing"); each `device_id` reaches its own phone.
#[test]
fn two_devices_need_a_device_id() {
    let tmp = tempfile::tempdir().unwrap();
    let sim = Arc::new(tapflow_sim::Simulator::new(tapflow_sim::SimOptions {
        devices: 2,
        seed: 3,
        latency: Latency::None,
        ..tapflow_sim::SimOptions::default()
    }));
    let provider = SimProvider::new(sim.clone(), tmp.path());
    let config = ToolConfig::rooted_at(tmp.path());
    let e = Env {
        ctx: ToolContext::new(provider.clone(), config),
        provider,
        engine: Engine::new(),
        tmp,
    };
    let r = e.ok("list_devices", json!({}));
    assert_eq!(r["count"], 2);
    let (code, _) = e.err("list_windows", json!({}));
    assert_eq!(code, "MULTIPLE_DEVICES");
    let serials = sim.serials();
    let r = e.ok(
        "run_app",
        json!({"bundle_name": DEMO, "device_id": serials[1]}),
    );
    assert_eq!(r["window_found"], true);
    let fg = |serial: &str| {
        let r = e.ok("list_windows", json!({"device_id": serial}));
        r["windows"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["bundle_name"] == DEMO && w["is_foreground"] == true)
    };
    assert!(fg(&serials[1]), "launched on the device named");
    assert!(!fg(&serials[0]), "the other phone is untouched");
    // The odd-numbered phone is the Mate 60-like one (docs/sim.md "Devices").
    let r = e.ok(
        "screenshot",
        json!({"device_id": serials[1], "local_path": e.tmp.path().join("b.png")}),
    );
    assert_eq!(
        (r["width"].as_u64(), r["height"].as_u64()),
        (Some(1216), Some(2688))
    );
}
