//! Cases of the UI tools that wait or repeat: wait_for_element, scroll_until_visible and
//! wait_for_stable.

use super::*;

/// The waiting UI tools' cases.
pub(super) fn cases() -> Vec<Case> {
    use Given::*;
    vec![
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
