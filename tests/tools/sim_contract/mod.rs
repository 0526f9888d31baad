//! The tool contract against the SIMULATED HarmonyOS device: every tool of the registry runs
//! through `Engine::call` → the real hdc backend → `SimTransport` → the simulator, on the demo
//! app `com.tapflow.demo`. Table-driven: each case names the section of
//! `docs/reference/tool-contract.md` (or of `docs/tools.md` for our own decisions) it
//! checks, starts from a fresh device brought to a named screen, and validates every envelope
//! against the tool's published output schema. Round trips are asserted by count (via
//! `include_cost`), never by time. Latency is off; the demo app's own delays (800 ms login) are
//! real, or fast-forwarded through the phone's clock where a case does not test them.
//!
//! `harness` holds the environment ([`Env`]), the screens a case starts from ([`Given`]) and the
//! case type; the cases come one module per group of tools, in the order they were written:
//! `general`, `ui_input`, `ui_observe`, `ui_waits`.

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

mod general;
mod harness;
mod ui_input;
mod ui_observe;
mod ui_waits;

use harness::*;

/// Every case, group after group.
fn cases() -> Vec<Case> {
    [
        general::cases(),
        ui_input::cases(),
        ui_observe::cases(),
        ui_waits::cases(),
    ]
    .into_iter()
    .flatten()
    .collect()
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
