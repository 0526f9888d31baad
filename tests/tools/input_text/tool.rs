//! The tool as a whole: round trips reported and counted per route with and without chaining,
//! the published definition, and the property that any text arrives exactly.

use super::*;

#[test]
fn rule_include_cost_reports_the_same_round_trips() {
    let e = env();
    let r = e.ok(json!({"element_handle": handle(PIN, "pin"), "text": "99", "include_cost": true}));
    assert_eq!(r["cost"]["device_round_trips"], 3);
    assert_eq!(r["cost"]["ui_dumps"], 3);
}

/// Rule (acceptance): "input_text in handle mode ≤ 6 hdc calls", on every route. Each action
/// followed by an observation carries it in the same round trip (docs/tools.md "Round trips");
/// a backend that cannot chain pays one more per observation and still finishes correctly.
#[test]
fn round_trips_per_route_with_and_without_chaining() {
    let h = |aid, id| handle(aid, id);
    // (route, before value, arguments, chained trips, unchained trips, dumps)
    let routes = [
        (
            "direct",
            PIN,
            "",
            json!({"element_handle": h(PIN, "pin"), "text": "123456"}),
            3,
            6,
            3,
        ),
        (
            "native_paste",
            NAME,
            "",
            json!({"element_handle": h(NAME, "name"), "text": "中文🎉"}),
            3,
            6,
            3,
        ),
        (
            "sentinel_paste",
            NAME,
            "",
            json!({"element_handle": h(NAME, "name"), "text": "security"}),
            4,
            8,
            4,
        ),
        (
            "clear",
            NAME,
            "x",
            json!({"element_handle": h(NAME, "name"), "text": ""}),
            3,
            6,
            3,
        ),
        (
            "append sentinel",
            NAME,
            "ab",
            json!({"element_handle": h(NAME, "name"), "text": "cd", "mode": "append"}),
            4,
            8,
            4,
        ),
        (
            "append direct",
            PIN,
            "12",
            json!({"element_handle": h(PIN, "pin"), "text": "34", "mode": "append"}),
            3,
            6,
            3,
        ),
        (
            "search sentinel",
            NAME,
            "",
            json!({"element_id": "name", "text": "a b"}),
            4,
            8,
            4,
        ),
        (
            "coordinates",
            NAME,
            "",
            json!({"x": center_of(NAME).x, "y": center_of(NAME).y, "text": "plain"}),
            1,
            1,
            0,
        ),
    ];
    for (route, aid, before, args, chained, unchained, dumps) in routes {
        for chaining in [true, false] {
            let e = env();
            e.phone.knobs().no_chaining = !chaining;
            e.phone.set_value(aid, before);
            let r = e.ok(args.clone());
            let want = if chaining { chained } else { unchained };
            assert_eq!(e.trips(), want, "{route} (chaining: {chaining})");
            assert_eq!(
                e.phone.cost().ui_dumps,
                dumps,
                "{route} (chaining: {chaining})"
            );
            if route != "coordinates" {
                assert!(e.trips() <= 6 || !chaining, "{route}");
                assert_eq!(r["verified"], true, "{route}");
                assert_eq!(r["actual_text"], r["text"], "{route}");
            }
        }
    }
}

#[test]
fn the_tool_is_published_with_its_policy() {
    let e = env();
    let def = e.engine.get("input_text").unwrap();
    let entry = def.mcp_entry();
    assert_eq!(entry["annotations"]["readOnlyHint"], false);
    assert_eq!(entry["_meta"]["policy"]["mutates_device"], true);
    let props = entry["inputSchema"]["properties"].as_object().unwrap();
    for p in [
        "x",
        "y",
        "text",
        "element_handle",
        "element_text",
        "element_type",
        "element_id",
        "bundle_name",
        "mode",
        "device_id",
        "hdc_server",
    ] {
        assert!(props.contains_key(p), "{p}");
    }
    let result = def.result_schema()["properties"]
        .as_object()
        .unwrap()
        .clone();
    for f in [
        "text",
        "requested_text",
        "before_text",
        "x",
        "y",
        "mode",
        "input_strategy",
        "dispatched",
        "focus_dispatched",
        "focus_verified",
        "focus_observations",
        "focused",
        "window_foreground",
        "foreground_window_id",
        "clipboard_modified",
        "resolved_via",
        "handle_refreshed",
        "element_handle",
        "effect_verified",
        "verified",
        "actual_text",
        "cleanup_performed",
        "observations",
        "elapsed_ms",
        "stage",
    ] {
        assert!(result.contains_key(f), "result field {f}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Rule: whatever the text, the field ends up holding exactly it, in both modes.
    #[test]
    fn any_text_arrives_exactly(text in "\\PC{1,40}", before in "[a-z]{0,5}", append in any::<bool>()) {
        let e = env();
        e.phone.set_value(NAME, &before);
        let mode = if append { "append" } else { "replace" };
        let r = e.ok(json!({"element_handle": handle(NAME, "name"), "text": text, "mode": mode}));
        let want = if append { format!("{before}{text}") } else { text.clone() };
        prop_assert_eq!(e.phone.value(NAME), want.clone());
        prop_assert_eq!(r["actual_text"].as_str(), Some(want.as_str()));
        prop_assert!(e.trips() <= 5, "{} round trips", e.trips());
        // Rule: input_text never presses Shift or otherwise changes the IME: the only keys it
        // sends are select-all, MoveEnd and Backspace.
        for k in keys(&e.phone.acts()) {
            prop_assert!(k == CTRL_A.to_vec() || k == vec![MOVE_END] || k == vec![BACKSPACE], "{:?}", k);
        }
    }
}
