//! Beyond the reference (docs/tools.md): `verify` evidence and `include_cost`,
//! scroll_until_visible, wait_for_stable, the published tool list, and `verify` on the real hdc
//! backend.

use super::*;

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
