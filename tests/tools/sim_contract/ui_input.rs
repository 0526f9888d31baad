//! Cases of the UI tools that act: click, long_press, swipe, drag and press_key.

use super::*;

/// The acting UI tools' cases.
pub(super) fn cases() -> Vec<Case> {
    use Given::*;
    vec![
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
    ]
}
