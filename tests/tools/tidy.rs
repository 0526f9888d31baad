//! Round-trip counts of the tools that share code after the tidy-up (`src/tools/gesture.rs`,
//! `src/tools/app_ops.rs`), on the in-process simulated phone (real hdc backend, no latency):
//! sharing must not cost a device call more.

use tapflow::sim_provider;

use std::sync::Arc;

use serde_json::{Value, json};
use sim_provider::SimProvider;
use tapflow_device::Device;
use tapflow_sim::{FaultSpec, Latency};
use tapflow_tools::{Engine, ToolConfig, ToolContext};

use tapflow_sim::DEMO_BUNDLE as DEMO;

/// The engine over a fresh simulated phone with the demo app in front.
struct Phone {
    sim: Arc<SimProvider>,
    tools: (Engine, ToolContext),
    _scratch: tempfile::TempDir,
}

impl Phone {
    fn new() -> Self {
        let scratch = tempfile::tempdir().unwrap();
        let sim = SimProvider::single(Latency::None, FaultSpec::none(), 11, scratch.path());
        sim.device().start_app(DEMO, "EntryAbility", None).unwrap();
        let working_dir = scratch.path().to_path_buf();
        let config = ToolConfig::rooted_at(working_dir);
        let tools = (Engine::new(), ToolContext::new(sim.clone(), config));
        Phone {
            sim,
            tools,
            _scratch: scratch,
        }
    }

    /// The result (or error) of one call, plus its `(round trips, ui dumps)` as `include_cost`
    /// reports them.
    fn call(&self, tool: &str, mut args: Value) -> (bool, Value, (u64, u64)) {
        args["include_cost"] = json!(true);
        let (engine, ctx) = &self.tools;
        let sc = engine.call(tool, args, ctx).to_value()["structuredContent"].clone();
        let ok = sc["ok"] == true;
        let body = sc[if ok { "result" } else { "error" }].clone();
        let cost = if ok {
            &body["cost"]
        } else {
            &body["details"]["cost"]
        };
        let n = |k: &str| cost[k].as_u64().expect("cost reported");
        let spent = (n("device_round_trips"), n("ui_dumps"));
        (ok, body, spent)
    }
}

#[test]
fn swipe_by_direction_is_one_screen_size_query_and_the_swipe() {
    let e = Phone::new();
    let before = e.sim.device_cost();
    let (ok, r, cost) = e.call("swipe", json!({"direction": "up", "speed": 40000}));
    assert!(ok, "{r}");
    assert_eq!(cost, (2, 0), "screen size + swipe, no dump");
    let spent = e.sim.device_cost() - before;
    assert_eq!(spent.round_trips, 2, "the device saw what cost reports");
    // The simulated Mate 60 Pro reports 1260x2720: up = 75% → 25% on the centre line.
    assert_eq!(
        (&r["from_x"], &r["from_y"], &r["to_x"], &r["to_y"]),
        (&json!(630), &json!(2040), &json!(630), &json!(680))
    );
}

#[test]
fn swipe_with_verify_adds_only_the_evidence_dumps() {
    let e = Phone::new();
    let (ok, r, cost) = e.call(
        "swipe",
        json!({"direction": "down", "speed": 40000, "verify": true}),
    );
    assert!(ok, "{r}");
    assert_eq!(
        cost,
        (3, 2),
        "screen size + pre dump + swipe chained with the post dump (act_then_tree)"
    );
    assert!(r["evidence"]["digest"].is_string(), "{r}");
}

#[test]
fn drag_and_coordinate_swipe_are_one_round_trip() {
    let e = Phone::new();
    let (ok, r, cost) = e.call(
        "drag",
        json!({"from_x": 630, "from_y": 2000, "to_x": 630, "to_y": 1000, "speed": 40000}),
    );
    assert!(ok, "{r}");
    assert_eq!(cost, (1, 0));
    let (ok, r, cost) = e.call(
        "swipe",
        json!({"from_x": 630, "from_y": 2000, "to_x": 630, "to_y": 1000, "speed": 40000}),
    );
    assert!(ok, "{r}");
    assert_eq!(cost, (1, 0));
    assert_eq!(r["direction"], Value::Null);
}

#[test]
fn bundle_tools_make_one_device_call_and_validate_first() {
    let e = Phone::new();
    for (tool, flag) in [
        ("stop_app", "stopped"),
        ("clear_app_data", "cleared"),
        ("uninstall_app", "uninstalled"),
    ] {
        let (ok, r, cost) = e.call(tool, json!({"bundle_name": format!(" {DEMO} ")}));
        assert!(ok, "{tool}: {r}");
        assert_eq!(cost, (1, 0), "{tool}");
        assert_eq!(r["bundle_name"], DEMO, "{tool}: trimmed");
        assert_eq!(r[flag], true, "{tool}");
        assert_eq!(r["device_id"], e.sim.serial(), "{tool}");
        let (ok, err, cost) = e.call(tool, json!({"bundle_name": "  "}));
        assert!(!ok);
        assert_eq!(err["code"], "MISSING_BUNDLE_NAME", "{tool}");
        assert_eq!(cost, (0, 0), "{tool}: nothing touched");
    }
    // Uninstalled above: the device now refuses, under each tool's own code.
    let (ok, err, _) = e.call("uninstall_app", json!({"bundle_name": DEMO}));
    assert!(!ok);
    assert_eq!(err["code"], "UNINSTALL_FAILED", "{err}");
}
