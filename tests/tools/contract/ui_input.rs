//! UI tools that act: click (by text, coordinates, handles and their match modes, ambiguous
//! matches), long_press, swipe, drag and press_key.

use super::*;

#[test]
fn click_by_text_costs_one_dump_and_one_input_command() {
    let e = env();
    let before = e.cost();
    let r = e.ok("click", json!({"text":"Login"}));
    let spent = e.cost() - before;
    assert_eq!(
        (spent.ui_dumps, spent.round_trips),
        (1, 2),
        "1 dump + 1 tap"
    );
    assert_eq!(r["resolved_via"], "search");
    assert_eq!(
        (r["x"].as_i64(), r["y"].as_i64()),
        (Some(630), Some(760)),
        "the Button, not its nested label"
    );
    assert_eq!(r["element_handle"]["compid"], "10:4");
    assert_eq!(r["handle_refreshed"], false);
    assert_eq!(r["dispatched"], true);
    assert_eq!(e.dev.screen(), Screen::Home);
}

#[test]
fn click_coordinates_double_click_and_index() {
    let e = env();
    let before = e.cost();
    let r = e.ok("click", json!({"x":630,"y":1160,"count":2}));
    assert_eq!((e.cost() - before).ui_dumps, 0, "coordinates need no dump");
    assert_eq!(r["resolved_via"], "coordinates");
    assert_eq!(r["element_handle"], Value::Null);
    assert_eq!(
        e.dev.actions().last(),
        Some(&Action::Tap(Point::new(630, 1160), TapKind::Double))
    );
    // "Item" twice: index picks in reading order (left one first on the same row).
    let r = e.ok("click", json!({"text":"Item","index":0}));
    assert_eq!(r["x"], 350);
    let r = e.ok(
        "click",
        json!({"text":"Ite","match_mode":"contains","index":1}),
    );
    assert_eq!(r["x"], 910);
    let r = e.ok("click", json!({"text":"^Wel.*e$","match_mode":"regex"}));
    assert_eq!(r["y"], 250);
}

#[test]
fn ambiguous_match_lists_candidates() {
    let e = env();
    let (code, details) = e.err("click", json!({"text":"Item"}));
    assert_eq!(code, "AMBIGUOUS_ELEMENT_MATCH");
    assert_eq!(details["match_count"], 2);
    assert_eq!(details["candidates"].as_array().unwrap().len(), 2);
}

#[test]
fn handles_from_find_elements_click_and_refresh_when_stale() {
    let e = env();
    let found = e.ok("find_elements", json!({"element_type":"Button"}));
    assert_eq!(found["count"], 2);
    let later = found["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|el| el["text"] == "Later")
        .unwrap()
        .clone();
    assert_eq!(later["lookup_is_broad"], true);
    assert_eq!(later["element_handle"]["lookup_hint"]["index"], 1);
    let r = e.ok("click", json!({"element_handle": later["element_handle"]}));
    assert_eq!(r["resolved_via"], "element_handle");
    assert_eq!(r["handle_refreshed"], false);

    // A handle whose compid no longer exists is refreshed through its lookup_hint.
    let login = e.ok("find_elements", json!({"text":"Login"}));
    let mut handle = login["elements"][0]["element_handle"].clone();
    assert_eq!(login["elements"][0]["lookup_is_broad"], false);
    handle["compid"] = json!("10:777");
    handle["id"] = json!("777");
    let before = e.cost();
    let r = e.ok("click", json!({"element_handle": handle}));
    assert_eq!(r["handle_refreshed"], true);
    assert_eq!(r["resolved_via"], "lookup_hint");
    assert_eq!(r["element_handle"]["compid"], "10:4");
    assert_eq!((e.cost() - before).ui_dumps, 1);
    // On the home screen the hint no longer matches anything.
    assert_eq!(
        e.err("click", json!({"element_handle": handle})).0,
        "ELEMENT_NOT_FOUND"
    );
}

/// docs/tools.md "Element handles": the hint records how its text was compared
/// (`match_mode`), a live handle must still satisfy it that way, and a stale one is refreshed
/// the same way. Hints without it (older handles) keep exact-then-contains.
#[test]
fn handles_remember_their_match_mode() {
    let e = env();
    // Found by a regular expression: the handle is live as is (the pattern is no substring of
    // the text, so without the mode it would look stale and never refresh).
    let found = e.ok(
        "find_elements",
        json!({"text":"^L.gin$","match_mode":"regex"}),
    );
    let h = found["elements"][0]["element_handle"].clone();
    assert_eq!(h["lookup_hint"]["match_mode"], "regex");
    assert_eq!(h["lookup_hint"]["text"], "^L.gin$");
    let r = e.ok("long_press", json!({"element_handle": h}));
    assert_eq!(r["resolved_via"], "element_handle");
    // Stale: refreshed with the same regular expression.
    let mut stale = h.clone();
    stale["compid"] = json!("10:777");
    stale["id"] = json!("777");
    let r = e.ok("long_press", json!({"element_handle": stale}));
    assert_eq!(r["resolved_via"], "lookup_hint");
    assert_eq!(r["element_handle"]["compid"], "10:4");
    assert_eq!(r["element_handle"]["lookup_hint"]["match_mode"], "regex");

    // contains: "ogi" finds Login and refreshes by substring.
    let found = e.ok(
        "find_elements",
        json!({"text":"ogi","match_mode":"contains"}),
    );
    let mut stale = found["elements"][0]["element_handle"].clone();
    assert_eq!(stale["lookup_hint"]["match_mode"], "contains");
    stale["compid"] = json!("10:778");
    let r = e.ok("long_press", json!({"element_handle": stale}));
    assert_eq!(r["element_handle"]["compid"], "10:4");

    // exact stays exact: a stale exact hint for "Logi" finds nothing, where the legacy
    // fallback (no match_mode) would have taken the substring.
    let mut exact = h.clone();
    exact["compid"] = json!("10:779");
    exact["lookup_hint"] = json!({"text": "Logi", "match_mode": "exact"});
    assert_eq!(
        e.err("long_press", json!({"element_handle": exact})).0,
        "ELEMENT_NOT_FOUND"
    );
    let mut legacy = exact.clone();
    legacy["lookup_hint"] = json!({"text": "Logi"});
    let r = e.ok("long_press", json!({"element_handle": legacy}));
    assert_eq!(r["element_handle"]["compid"], "10:4");

    // A mode outside the three is a malformed handle.
    let mut odd = exact.clone();
    odd["lookup_hint"]["match_mode"] = json!("fuzzy");
    assert_eq!(
        e.err("long_press", json!({"element_handle": odd})).0,
        "INVALID_ELEMENT_HANDLE"
    );
    // Criteria without text record no mode.
    let found = e.ok("find_elements", json!({"element_id":"loginBtn"}));
    assert!(
        found["elements"][0]["element_handle"]["lookup_hint"]
            .get("match_mode")
            .is_none()
    );
    assert_eq!(e.dev.screen(), Screen::Login);
}

#[test]
fn long_press_reports_delivery_only() {
    let e = env();
    let r = e.ok("long_press", json!({"element_id":"loginBtn"}));
    assert_eq!(r["dispatched"], true);
    assert_eq!(r["effect_verified"], false);
    assert_eq!(
        e.dev.actions().last(),
        Some(&Action::Tap(Point::new(630, 760), TapKind::Long))
    );
    assert_eq!(e.dev.screen(), Screen::Login);
}

#[test]
fn swipe_and_drag() {
    let e = env();
    let before = e.cost();
    let r = e.ok("swipe", json!({"direction":"up"}));
    let spent = e.cost() - before;
    assert_eq!(
        (spent.round_trips, spent.ui_dumps),
        (2, 0),
        "screen size + swipe"
    );
    assert_eq!(
        (
            r["from_x"].as_i64(),
            r["from_y"].as_i64(),
            r["to_y"].as_i64()
        ),
        (Some(630), Some(2040), Some(680))
    );
    assert_eq!(r["speed"], 600);
    let r = e.ok(
        "swipe",
        json!({"from_x":10,"from_y":20,"to_x":30,"to_y":40,"speed":1200}),
    );
    assert_eq!(r["direction"], Value::Null);
    assert_eq!(
        e.dev.actions().last(),
        Some(&Action::Gesture(Gesture::Swipe {
            from: Point::new(10, 20),
            to: Point::new(30, 40),
            speed: 1200
        }))
    );
    let r = e.ok("drag", json!({"from_x":1,"from_y":2,"to_x":3,"to_y":4}));
    assert_eq!(r["speed"], 600);
    assert_eq!(
        e.dev.actions().last(),
        Some(&Action::Gesture(Gesture::Drag {
            from: Point::new(1, 2),
            to: Point::new(3, 4),
            speed: 600
        }))
    );
}

#[test]
fn press_key_contract_examples() {
    let e = env();
    let r = e.ok("press_key", json!({"key":"Home"}));
    assert_eq!(
        (r["key"].as_str(), r["key_code"].as_i64()),
        (Some("KEYCODE_HOME"), Some(1))
    );
    assert_eq!(e.dev.actions().last(), Some(&Action::Key(KeyInput::Home)));
    assert_eq!(r["effect_verified"], false);
    assert_eq!(r["dispatched"], true);
    let r = e.ok("press_key", json!({"key":"V","modifiers":["Ctrl"]}));
    assert_eq!(r["key"], "KEYCODE_V");
    assert_eq!(r["event_key_codes"], json!([2072, 2038]));
    assert_eq!(r["modifiers"], json!(["Ctrl"]));
    assert_eq!(
        e.dev.actions().last(),
        Some(&Action::Key(KeyInput::Codes(vec![2072, 2038])))
    );
    let r = e.ok("press_key", json!({"key":"KEYCODE_F24"}));
    assert_eq!(r["key_code"], 2827);
    assert_eq!(e.ok("press_key", json!({"key":"Delete"}))["key_code"], 2071);
    assert_eq!(
        e.ok("press_key", json!({"key":"Backspace"}))["key_code"],
        2055
    );
    assert_eq!(
        e.ok("press_key", json!({"key":"page-up"}))["key_code"],
        2068
    );
    assert_eq!(
        e.ok("press_key", json!({"key":2068}))["key"],
        "KEYCODE_PAGE_UP"
    );
    assert_eq!(e.ok("press_key", json!({"key":"End"}))["key_code"], 2082);
    assert_eq!(
        e.ok("press_key", json!({"key":"Back"}))["event_key_codes"],
        json!([2])
    );
    assert_eq!(e.dev.actions().last(), Some(&Action::Key(KeyInput::Back)));
    assert_eq!(
        e.ok("press_key", json!({"key":"KEYCODE_POWER"}))["key_code"],
        18
    );
    assert_eq!(e.dev.actions().last(), Some(&Action::Key(KeyInput::Power)));
    // Two modifiers, sent in the fixed order Ctrl, Alt, Shift, Meta: at most 3 codes.
    let r = e.ok("press_key", json!({"key":"Z","modifiers":["Shift","Ctrl"]}));
    assert_eq!(r["event_key_codes"], json!([2072, 2047, 2042]));
    assert_eq!(r["modifiers"], json!(["Ctrl", "Shift"]));
}
