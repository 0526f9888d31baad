//! Resolution: stale handles (refreshed through the lookup hint or not found), search mode.

use super::*;

#[test]
fn rule_a_stale_handle_is_refreshed_through_lookup_hint() {
    let e = env();
    let stale = json!({
        "window_id": APP, "id": "999", "compid": format!("{APP}:999"), "type": "TextInput",
        "lookup_hint": {"element_id": "name"}
    });
    let r = e.ok(json!({"element_handle": stale, "text": "fresh"}));
    assert_eq!(r["resolved_via"], "lookup_hint");
    assert_eq!(r["handle_refreshed"], true);
    assert_eq!(r["element_handle"]["compid"], format!("{APP}:{NAME}"));
    assert_eq!(e.phone.value(NAME), "fresh");
}

#[test]
fn a_handle_found_by_its_old_value_stays_live_after_the_value_changed() {
    // find_elements(text: "Alice") minted this handle; the field now reads "Bob". It is the same
    // field (same window, accessibility id, type), so it is used as is, not refreshed.
    let e = env();
    e.phone.set_value(NAME, "Bob");
    let mut h = handle(NAME, "name");
    h["lookup_hint"] = json!({"text": "Alice"});
    let r = e.ok(json!({"element_handle": h, "text": "Carol"}));
    assert_eq!(r["resolved_via"], "element_handle");
    assert_eq!(r["handle_refreshed"], false);
    assert_eq!(r["before_text"], "Bob");
    assert_eq!(e.phone.value(NAME), "Carol");
}

#[test]
fn rule_a_stale_handle_without_a_way_back_is_element_not_found() {
    let e = env();
    let stale =
        json!({"window_id": APP, "id": "999", "compid": format!("{APP}:999"), "type": "TextInput"});
    let (code, d) = e.err_with_partial(json!({"element_handle": stale, "text": "x"}));
    assert_eq!(code, "ELEMENT_NOT_FOUND");
    assert_eq!(d["stage"], "resolve");
    assert_eq!(d["dispatched"], false);
    assert_eq!(e.trips(), 1);
}

#[test]
fn rule_search_mode_matches_exactly_one_element_and_is_verified_like_a_handle() {
    let e = env();
    e.phone.set_value(NAME, "Alice");
    let r = e.ok(json!({"element_text": "Alice", "text": "Bob"}));
    assert_eq!(r["resolved_via"], "search");
    assert_eq!(r["verified"], true);
    assert_eq!(r["element_handle"]["compid"], format!("{APP}:{NAME}"));
    assert_eq!(
        e.phone.value(NAME),
        "Bob",
        "found by its old value, verified by identity"
    );
    let e = env();
    let r = e.ok(json!({"element_id": "pin", "element_type": "TextInput", "bundle_name": BUNDLE, "text": "7"}));
    assert_eq!(r["resolved_via"], "search");
    assert_eq!(e.trips(), 3);

    let e = env();
    let (code, d) = e.err_with_partial(json!({"element_type": "TextInput", "text": "x"}));
    assert_eq!(code, "AMBIGUOUS_ELEMENT_MATCH");
    assert_eq!(d["match_count"], 4);
    assert_eq!(d["stage"], "resolve");
    let (code, d) = e.err_with_partial(json!({"element_id": "nope", "text": "x"}));
    assert_eq!(code, "ELEMENT_NOT_FOUND");
    assert_eq!(d["focus_dispatched"], false);
    let (code, _) =
        e.err_with_partial(json!({"element_id": "name", "bundle_name": "com.other", "text": "x"}));
    assert_eq!(code, "ELEMENT_NOT_FOUND");
    assert!(!shape(&e.phone.acts()).contains('T'), "nothing was clicked");
}
