//! Faults injected by the simulated device (`SimOptions.faults`, grammar in `docs/sim.md`)
//! reach the caller of `Engine::call` as documented error codes: never a panic, never
//! `INTERNAL_ERROR`, never a code missing from `docs/tools.md` / `docs/errors.md`, and never a
//! wrong `ok: true` (an empty or truncated dump must not let a tool claim success with garbage).
//! Every envelope is validated against the tool's published output schema.
//!
//! The demo app is started through the phone's own API (no hdc command), so that fault
//! counters (`disconnect-after=N`) and probabilities apply to the tool calls alone.

use crate::common::envelope;
use tapflow::sim_provider;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use sim_provider::SimProvider;
use tapflow_device::hdc::{HdcConfig, TransientRetry};
use tapflow_device::{Device, Point, TextTarget};
use tapflow_sim::phone::hap::{build_hap, module_json};
use tapflow_sim::{FaultSpec, Latency, SimOptions, Simulator};
use tapflow_tools::{Engine, Envelope, ToolConfig, ToolContext};

use tapflow_sim::DEMO_BUNDLE as DEMO;

struct Env {
    provider: Arc<SimProvider>,
    ctx: ToolContext,
    engine: Engine,
    tmp: tempfile::TempDir,
    documented: BTreeSet<String>,
}

/// A phone with `faults`, the demo app on its login page. `dump_timeout` shortens the hdc
/// backend's UI-dump deadline (for slow-dump faults).
fn env_with(faults: &str, seed: u64, dump_timeout: Option<Duration>) -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let sim = Arc::new(Simulator::new(SimOptions {
        devices: 1,
        seed,
        latency: Latency::None,
        faults: FaultSpec::parse(faults).unwrap(),
        ..SimOptions::default()
    }));
    let mut config = HdcConfig {
        program: "sim:hdc".into(),
        host_tmp_dir: Some(tmp.path().to_path_buf()),
        // `fail=P` is not time-correlated: no pause before resending an undelivered command.
        transient_retry: TransientRetry {
            backoff: Duration::ZERO,
            ..TransientRetry::DEFAULT
        },
        ..HdcConfig::default()
    };
    if let Some(t) = dump_timeout {
        config.dump_timeout = t;
    }
    let provider = SimProvider::with_config(sim, tmp.path(), config);
    {
        let serial = provider.serial();
        let mut phone = provider.simulator().phone(&serial).unwrap();
        phone
            .start_ability(DEMO, "EntryAbility", None, SystemTime::now())
            .unwrap();
    }
    let tool_config = ToolConfig {
        screenshots_dir: tmp.path().join("shots"),
        launch_verify_timeout_ms: 500,
        ..ToolConfig::rooted_at(tmp.path())
    };
    Env {
        ctx: ToolContext::new(provider.clone(), tool_config),
        provider,
        engine: Engine::new(),
        tmp,
        documented: documented_codes(),
    }
}

fn env(faults: &str) -> Env {
    env_with(faults, 11, None)
}

/// Every code the project documents: the tools' table (`docs/tools.md`, "Error codes") and the
/// device layer's (`docs/errors.md`).
fn documented_codes() -> BTreeSet<String> {
    let root = env!("CARGO_MANIFEST_DIR");
    let tools = std::fs::read_to_string(format!("{root}/docs/tools.md")).unwrap();
    let tools = &tools[tools
        .find("## Error codes")
        .expect("tools.md has an error table")..];
    let errors = std::fs::read_to_string(format!("{root}/docs/errors.md")).unwrap();
    let code = regex::Regex::new(r"`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`").unwrap();
    [tools, errors.as_str()]
        .iter()
        .flat_map(|text| {
            text.lines()
                .filter(|l| l.starts_with('|'))
                .flat_map(|l| code.captures_iter(l).map(|c| c[1].to_string()))
                .collect::<Vec<_>>()
        })
        .collect()
}

impl Env {
    /// Calls a tool and checks what must hold whatever the faults: a valid envelope, and on
    /// failure a documented code that is not an internal error.
    fn call(&self, tool: &str, args: Value) -> Envelope {
        let env = self.engine.call(tool, args.clone(), &self.ctx);
        let v = env.to_value();
        assert_eq!(v["isError"], json!(!env.ok()));
        let schema = self.engine.get(tool).unwrap().output_schema();
        envelope::assert_matches_schema(tool, &schema, &v["structuredContent"]);
        if let Some(err) = &env.structured.error {
            assert_ne!(err.code, "INTERNAL_ERROR", "{tool} {args}: {err:?}");
            assert!(
                self.documented.contains(err.code.as_str()),
                "{tool} {args}: code {} is not documented in docs/tools.md or docs/errors.md",
                err.code
            );
        }
        env
    }

    fn code(&self, tool: &str, args: Value) -> (String, Value) {
        let e = self.call(tool, args.clone());
        assert!(
            !e.ok(),
            "{tool} {args} claimed success under faults: {:#}",
            e.result()
        );
        let err = e.structured.error.unwrap();
        (err.code.to_string(), err.details)
    }

    fn hap(&self) -> String {
        let bytes = build_hap(
            &module_json("com.example.f", 1, "1.0", "EntryAbility"),
            None,
            true,
        );
        let p = self.tmp.path().join("f.hap");
        std::fs::write(&p, bytes).unwrap();
        p.to_string_lossy().into_owned()
    }
}

/// Every device tool with arguments valid on the login page (`$HAP` = a signed package), in
/// an order where nothing before the last four leaves the login page.
fn device_calls() -> Vec<(&'static str, Value)> {
    vec![
        ("query_package", json!({})),
        (
            "query_package",
            json!({"bundle_name": DEMO, "info_type": "main_ability"}),
        ),
        ("install_app", json!({"hap_path": "$HAP"})),
        ("run_app", json!({"bundle_name": DEMO})),
        (
            "run_app",
            json!({"bundle_name": DEMO, "ability_name": "EntryAbility"}),
        ),
        ("find_elements", json!({"text": "Login"})),
        ("click", json!({"text": "Login"})),
        ("click", json!({"x": 630, "y": 866})),
        ("long_press", json!({"element_id": "login"})),
        ("long_press", json!({"x": 630, "y": 866})),
        ("swipe", json!({"direction": "up", "speed": 40000})),
        (
            "swipe",
            json!({"from_x": 600, "from_y": 2000, "to_x": 600, "to_y": 1000, "speed": 40000}),
        ),
        (
            "drag",
            json!({"from_x": 600, "from_y": 2000, "to_x": 600, "to_y": 1000, "speed": 40000}),
        ),
        ("screenshot", json!({})),
        ("get_ui_tree", json!({})),
        ("get_ui_tree", json!({"bundle_name": DEMO})),
        ("list_windows", json!({})),
        (
            "wait_for_element",
            json!({"text": "Login", "timeout_ms": 300, "interval_ms": 50}),
        ),
        (
            "wait_for_element",
            json!({"text": "Login", "state": "gone", "timeout_ms": 300, "interval_ms": 50}),
        ),
        (
            "scroll_until_visible",
            json!({"text": "Item 45", "timeout_ms": 500, "speed": 40000}),
        ),
        (
            "wait_for_stable",
            json!({"quiet_ms": 100, "interval_ms": 50, "timeout_ms": 300}),
        ),
        // Leaves the app: kept after every call that needs the login page.
        ("press_key", json!({"key": "Back"})),
        ("stop_app", json!({"bundle_name": DEMO})),
        ("clear_app_data", json!({"bundle_name": DEMO})),
        ("uninstall_app", json!({"bundle_name": DEMO})),
    ]
}

fn with_hap(e: &Env, args: &Value) -> Value {
    if args["hap_path"] == "$HAP" {
        json!({"hap_path": e.hap()})
    } else {
        args.clone()
    }
}

/// hdc's transient `[Fail][E000004]` on every device command. Seen: each tool failed with its
/// operation's code (`STOP_APP_FAILED`, …), blaming the app. The command never reached the
/// device: the backend resends it within its budget, and what still fails is the
/// infrastructure's `HDC_CHANNEL_NOT_READY`, for every tool, with hdc's words kept.
#[test]
fn transient_fail_on_every_command_is_the_infrastructures_code() {
    let e = env("fail=1");
    for (tool, args) in device_calls() {
        let (code, details) = e.code(tool, with_hap(&e, &args));
        assert_eq!(code, "HDC_CHANNEL_NOT_READY", "{tool} {args}: {details}");
        let says = details["device_says"].as_str().unwrap_or("");
        assert!(
            says.contains("[Fail][E000004]"),
            "{tool}: the device's words are kept: {details}"
        );
    }
    // list_devices talks to the host only (never fails); the unreadable info is reported.
    let r = e.call("list_devices", json!({}));
    assert!(r.ok());
    let d = &r.result()["devices"][0];
    assert_eq!(d["info"], Value::Null);
    assert!(d["info_error"].as_str().unwrap().contains("E000004"), "{d}");
}

/// Empty and truncated dumps: every tool that needs a dump fails with a documented code (or
/// times out waiting); the others are unaffected.
#[test]
fn empty_and_truncated_dumps_never_yield_success() {
    for spec in ["empty-dump=1", "truncate-dump=1"] {
        let e = env(spec);
        for (tool, args) in device_calls() {
            let needs_dump = matches!(
                tool,
                "find_elements"
                    | "get_ui_tree"
                    | "wait_for_element"
                    | "scroll_until_visible"
                    | "wait_for_stable"
            ) || (matches!(tool, "click" | "long_press")
                && args.get("x").is_none());
            let env = e.call(tool, with_hap(&e, &args));
            if needs_dump {
                assert!(
                    !env.ok(),
                    "{spec}: {tool} {args} claimed success: {:#}",
                    env.result()
                );
                let code = env.structured.error.unwrap().code;
                let ok_codes: &[&str] = if tool.starts_with("wait_for") {
                    &["WAIT_TIMEOUT"]
                } else {
                    &["UI_TREE_FETCH_ERROR", "INVALID_UI_TREE_PAYLOAD"]
                };
                assert!(ok_codes.contains(&code.as_str()), "{spec}: {tool}: {code}");
            } else if tool != "uninstall_app" && tool != "stop_app" && tool != "clear_app_data" {
                assert!(
                    env.ok(),
                    "{spec}: {tool} {args} does not need a dump: {:?}",
                    env.structured.error
                );
            }
        }
    }
}

/// A dump slower than the backend's deadline is `HDC_TIMEOUT` (the device layer's code, kept
/// because it says nothing about the operation).
#[test]
fn slow_dumps_beyond_the_deadline_time_out() {
    let e = env_with("slow-dump=3s", 11, Some(Duration::from_millis(300)));
    for (tool, args) in [
        ("find_elements", json!({"text": "Login"})),
        ("click", json!({"text": "Login"})),
        ("get_ui_tree", json!({})),
    ] {
        let (code, d) = e.code(tool, args);
        assert_eq!(code, "HDC_TIMEOUT", "{tool}: {d}");
    }
    // With the default (long) dump deadline, a wait's own budget still wins: the pending dump
    // is abandoned and the call returns WAIT_TIMEOUT at its deadline.
    let e = env_with("slow-dump=3s", 11, None);
    let env = e.call(
        "wait_for_element",
        json!({"text": "Login", "timeout_ms": 400}),
    );
    let err = env.structured.error.clone().expect("times out");
    assert_eq!(err.code, "WAIT_TIMEOUT");
    assert!(
        env.structured.meta.duration_ms < 2000,
        "strict budget: {:?}",
        env.structured.meta
    );
    let env = e.call("wait_for_stable", json!({"timeout_ms": 400}));
    assert_eq!(env.structured.error.unwrap().code, "WAIT_TIMEOUT");
    assert!(env.structured.meta.duration_ms < 2000);
}

/// A device unplugged before the call: DEVICE_NOT_FOUND (hdc no longer lists it as usable) or,
/// addressed by its key, DEVICE_DISCONNECTED (listed Offline).
#[test]
fn a_disconnected_device_is_reported_as_such_by_every_tool() {
    let e = env("disconnect-after=0");
    for (tool, args) in device_calls() {
        let args = with_hap(&e, &args);
        let (code, d) = e.code(tool, args.clone());
        assert_eq!(code, "DEVICE_NOT_FOUND", "{tool} {args}: {d}");
        let mut by_key = args.clone();
        by_key["device_id"] = json!(e.provider.serial());
        let (code, d) = e.code(tool, by_key);
        assert_eq!(code, "DEVICE_DISCONNECTED", "{tool} {args}: {d}");
    }
    let r = e.call("list_devices", json!({}));
    assert!(r.ok());
    assert_eq!(r.result()["devices"][0]["state"], "Offline");
    assert_eq!(r.result()["devices"][0]["info"], Value::Null);
}

/// Unplugged in the middle of a call (after the first of its device commands).
#[test]
fn a_device_unplugged_mid_call_is_not_reported_as_the_operations_failure() {
    for (tool, args) in [
        ("run_app", json!({"bundle_name": DEMO})),
        ("click", json!({"text": "Login"})),
        ("swipe", json!({"direction": "up", "speed": 40000})),
        ("screenshot", json!({})),
        (
            "wait_for_element",
            json!({"text": "Nothing", "timeout_ms": 2000, "interval_ms": 10}),
        ),
    ] {
        let e = env("disconnect-after=1");
        let (code, d) = e.code(tool, args.clone());
        assert!(
            ["DEVICE_NOT_FOUND", "DEVICE_DISCONNECTED"].contains(&code.as_str()),
            "{tool}: {code} {d}"
        );
    }
}

/// Transient failures are ridden out by waits: with half the commands failing, the element is
/// still found (deterministic seed).
#[test]
fn waits_ride_out_transient_failures() {
    let e = env_with("fail=0.5,empty-dump=0.2", 5, None);
    let r = e.call(
        "wait_for_element",
        json!({"element_id": "login", "timeout_ms": 5000, "interval_ms": 20, "include_cost": true}),
    );
    assert!(r.ok(), "{:?}", r.structured.error);
    assert_eq!(r.result()["element"]["id"], "login");
}

/// Dropped characters: the tools report what the device really shows, never what was meant.
#[test]
fn dropped_characters_are_observed_as_they_are() {
    let e = env("drop-chars=1");
    let at = Point::new(630, 385);
    e.provider
        .device()
        .input_text(TextTarget::At(at), "alice")
        .unwrap();
    let r = e.call("find_elements", json!({"element_id": "username"}));
    assert!(r.ok());
    assert_eq!(r.result()["elements"][0]["text"], "", "every key was lost");
    let (code, _) = e.code("find_elements", json!({"text": "alice"}));
    assert_eq!(code, "ELEMENT_NOT_FOUND");

    let e = env_with("drop-chars=0.5", 3, None);
    e.provider
        .device()
        .input_text(TextTarget::At(at), "abcdefghij")
        .unwrap();
    let r = e.call("find_elements", json!({"element_id": "username"}));
    let got = r.result()["elements"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(got.len() < 10, "some keys were lost: {got}");
    let mut rest = "abcdefghij".chars();
    assert!(
        got.chars().all(|c| rest.any(|x| x == c)),
        "a subsequence: {got}"
    );
}

/// A bare `input_text` whose keys were lost follows the reference: it waits out
/// `INPUT_VERIFY_TIMEOUT_MS`, never settles early and never types again (both are flow-level
/// behaviours, `tests/android/run_device_faults.rs`).
#[test]
fn a_bare_input_text_that_lost_keys_neither_settles_nor_retypes() {
    let mut e = env("drop-first-chars=2");
    e.ctx.config.input_verify_timeout_ms = 2_000;
    // Digits: uitest types them key by key.
    let r = e.call(
        "input_text",
        json!({"element_id": "username", "text": "1234"}),
    );
    let err = r.structured.error.clone().expect("lost keys fail the call");
    assert_eq!(err.code, "TEXT_VERIFICATION_TIMEOUT", "{err:?}");
    assert_eq!(err.details["actual_text"], "34");
    assert_eq!(err.details["input_strategy"], "direct");
    assert!(err.details.get("settled_ms").is_none(), "{err:?}");
    assert!(err.details.get("retyped").is_none(), "{err:?}");
    assert!(
        r.structured.meta.duration_ms >= 2_000,
        "the whole verification deadline was waited out"
    );
}

/// Random mixes of faults, several seeds, every tool: the invariants of `Env::call` hold, and
/// a success is never a wrong one.
#[test]
fn random_faults_never_give_a_wrong_success() {
    for seed in 1..=6 {
        let e = env_with("fail=0.2,empty-dump=0.15,truncate-dump=0.15", seed, None);
        for (tool, args) in device_calls() {
            if tool == "uninstall_app" || tool == "stop_app" || tool == "clear_app_data" {
                continue; // keep the app on screen for the checks below
            }
            let env = e.call(tool, with_hap(&e, &args));
            if !env.ok() {
                continue;
            }
            let r = env.result();
            match tool {
                "find_elements" => {
                    assert!(r["count"].as_u64().unwrap() >= 1);
                    for el in r["elements"].as_array().unwrap() {
                        assert_eq!(el["text"], "Login", "seed {seed}: {el}");
                    }
                }
                "get_ui_tree" => assert!(r["node_count"].as_u64().unwrap() > 1, "seed {seed}"),
                "wait_for_element" => {
                    assert_ne!(
                        args["state"], "gone",
                        "seed {seed}: Login never leaves the screen"
                    );
                    assert_eq!(r["element"]["text"], "Login");
                }
                "click" | "long_press" if args.get("x").is_none() => {
                    assert_eq!(r["element_handle"]["type"], "Button", "seed {seed}: {r}");
                }
                _ => {}
            }
        }
    }
}
