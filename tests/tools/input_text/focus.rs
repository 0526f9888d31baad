//! Focus acquisition: observed before anything is typed, its deadline, the foreground window,
//! refused focus clicks and targets that cannot take text.

use super::*;

#[test]
fn rule_focus_is_observed_before_any_text_or_shortcut_is_sent() {
    // Focus shows up two dumps after the click: nothing is sent until it does.
    let e = env_with(5000, 5000);
    e.phone.knobs().focus_lag = 2;
    let r = e.ok(json!({"element_handle": handle(PIN, "pin"), "text": "42"}));
    assert_eq!(r["focus_observations"], 3);
    assert_eq!(shape(&e.phone.acts()), "DTDDDKXD");
    assert_eq!(e.phone.value(PIN), "42");
}

#[test]
fn rule_focus_timeout_sends_nothing_and_reports_dispatched_false() {
    let e = env();
    e.phone.knobs().never_focus = true;
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(NAME, "name"), "text": "abc"}));
    assert_eq!(code, "INPUT_FOCUS_TIMEOUT");
    assert_eq!(d["dispatched"], false);
    assert_eq!(d["focus_dispatched"], true, "the click was delivered");
    assert_eq!(d["focus_verified"], false);
    assert_eq!(d["focused"], false);
    assert_eq!(d["window_foreground"], true);
    assert_eq!(d["stage"], "focus");
    assert!(d["focus_observations"].as_u64().unwrap() >= 1);
    let acts = e.phone.acts();
    assert!(
        keys(&acts).is_empty() && texts(&acts).is_empty(),
        "{acts:?}"
    );
}

#[test]
fn rule_the_focus_deadline_comes_from_input_focus_timeout_ms() {
    // A zero budget allows no observation at all: the click is sent, nothing else.
    let e = env_with(0, 400);
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(NAME, "name"), "text": "abc"}));
    assert_eq!(code, "INPUT_FOCUS_TIMEOUT");
    assert_eq!(d["focus_observations"], 0);
    assert_eq!(d["focus_timeout_ms"], 0);
    assert_eq!(shape(&e.phone.acts()), "DT");
}

#[test]
fn rule_focus_needs_a_foreground_target_window_too() {
    // The field takes focus, but a system dialog holds window focus.
    let e = env();
    e.phone.knobs().dialog_on_top = true;
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(NAME, "name"), "text": "abc"}));
    assert_eq!(code, "INPUT_FOCUS_TIMEOUT");
    assert_eq!(d["focused"], true);
    assert_eq!(d["window_foreground"], false);
    assert_eq!(d["foreground_window_id"], DIALOG_WINDOW);
    assert_eq!(d["dispatched"], false);
    assert!(keys(&e.phone.acts()).is_empty());
}

#[test]
fn rule_a_failed_focus_click_is_input_focus_dispatch_failed() {
    let e = env();
    e.phone.knobs().tap_error = Some(DeviceError::Command {
        code: tapflow_core::codes::INPUT_FAILED,
        what: "click".into(),
        device_says: "Please confirm that the coordinate values are correct.".into(),
    });
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(NAME, "name"), "text": "abc"}));
    assert_eq!(code, "INPUT_FOCUS_DISPATCH_FAILED");
    assert_eq!(d["focus_dispatched"], false);
    assert_eq!(d["dispatched"], false);
    assert_eq!(
        d["device_says"],
        "Please confirm that the coordinate values are correct."
    );
    assert_eq!(e.trips(), 2, "one dump, one refused click, nothing more");
}

#[test]
fn rule_disabled_or_non_text_targets_are_not_interactable() {
    let e = env();
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(LOCKED, "locked"), "text": "x"}));
    assert_eq!(code, "INPUT_TARGET_NOT_INTERACTABLE");
    assert_eq!(d["enabled"], false);
    assert_eq!(d["focus_dispatched"], false);
    let (code, d) = e.err_with_partial(json!({"element_text": "Name", "text": "x"}));
    assert_eq!(code, "INPUT_TARGET_NOT_INTERACTABLE");
    assert_eq!(d["element_type"], "Text");
    let (code, _) = e.err_with_partial(json!({"element_id": "submit", "text": "x"}));
    assert_eq!(code, "INPUT_TARGET_NOT_INTERACTABLE");
    assert_eq!(e.trips(), 3, "one dump each, no click");
}
