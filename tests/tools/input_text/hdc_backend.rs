//! The real hdc backend against the in-process simulator.

use super::*;

/// Acceptance on the real stack: the hdc backend (argv building, quoting, chaining, parsing)
/// drives the simulated phone's demo app; the username field is found once with find_elements
/// and its handle reused. Whatever the route, the field ends up exact and the device part of
/// the cost stays ≤ 6 round trips (the provider's own `hdc list targets`, made to resolve the
/// route, is measured separately and taken out).
#[test]
fn acceptance_on_the_hdc_backend_and_simulator_by_handle() {
    let dir = tempfile::tempdir().unwrap();
    let provider = sim_provider::hdc_provider_with_demo(dir.path());
    let ctx = ToolContext::new(provider.clone(), ToolConfig::default());
    let engine = Engine::new();
    let found = engine.call(
        "find_elements",
        json!({"element_id": "username", "bundle_name": "com.tapflow.demo"}),
        &ctx,
    );
    assert!(found.ok(), "{:?}", found.structured.error);
    let handle = found.result()["elements"][0]["element_handle"].clone();
    assert_eq!(handle["type"], "TextInput");

    let hostile = "it's \"q\" $HOME `id` $(rm -rf /) ; && || > /dev/null \\ %s {{v}}";
    let cases = [
        ("security", "sentinel_paste", 4),
        ("12345", "direct", 3),
        ("中文🎉", "native_paste", 3),
        (hostile, "sentinel_paste", 4),
    ];
    for (text, strategy, trips) in cases {
        let provider_before = provider.cost().round_trips;
        let env = engine.call(
            "input_text",
            json!({"element_handle": handle, "text": text, "include_cost": true}),
            &ctx,
        );
        let v = env.to_value();
        let def = engine.get("input_text").unwrap();
        if let Err(e) = jsonschema::validate(&def.output_schema(), &v["structuredContent"]) {
            panic!(
                "{text}: not schema-valid: {e}\n{:#}",
                v["structuredContent"]
            );
        }
        assert!(env.ok(), "{text}: {:?}", env.structured.error);
        let r = env.result();
        assert_eq!(r["verified"], true, "{text}");
        assert_eq!(r["actual_text"], text, "{text}");
        assert_eq!(r["input_strategy"], strategy, "{text}");
        assert_eq!(r["resolved_via"], "element_handle", "{text}");
        let provider_trips = provider.cost().round_trips - provider_before;
        assert_eq!(
            provider_trips, 1,
            "{text}: the route is resolved with one listing"
        );
        let total = r["cost"]["device_round_trips"].as_u64().unwrap();
        let device_trips = total - provider_trips;
        assert!(
            device_trips <= 6,
            "{text}: {device_trips} device round trips"
        );
        // With no simulated faults every first observation is final.
        assert_eq!(device_trips, trips, "{text}");
    }

    // What the app holds is what a fresh dump shows.
    let seen = engine.call(
        "find_elements",
        json!({"element_id": "username", "bundle_name": "com.tapflow.demo"}),
        &ctx,
    );
    assert_eq!(seen.result()["elements"][0]["text"], hostile);
}
