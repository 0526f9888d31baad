//! Coordinate mode, and refused dispatch commands (the text, the select-all key) keeping the
//! partial result.

use super::*;

#[test]
fn rule_coordinate_mode_sends_the_original_text_and_cannot_verify() {
    let e = env();
    let c = center_of(NAME);
    let r = e.ok(json!({"x": c.x, "y": c.y, "text": "plain ascii"}));
    assert_eq!(r["dispatched"], true);
    assert_eq!(r["verified"], false);
    assert_eq!(r["actual_text"], Value::Null);
    assert_eq!(r["resolved_via"], "coordinates");
    assert_eq!(r["input_strategy"], "direct");
    assert_eq!(r["clipboard_modified"], false);
    assert_eq!(r["element_handle"], Value::Null);
    assert_eq!(r["focus_dispatched"], false);
    assert_eq!(r["stage"], "dispatched");
    assert_eq!(
        (r["x"].as_i64(), r["y"].as_i64()),
        (Some(c.x as i64), Some(c.y as i64))
    );
    assert_eq!(e.trips(), 1);
    assert_eq!(
        e.phone.acts(),
        vec![Act::Text(TextTarget::At(c), "plain ascii".into())],
        "no sentinel, no select-all, no dump"
    );
    assert_eq!(e.phone.value(NAME), "plain ascii");

    let e = env();
    let r = e.ok(json!({"x": c.x, "y": c.y, "text": "中文"}));
    assert_eq!(r["clipboard_modified"], true, "uitest pastes non-ASCII");
    assert_eq!(e.phone.value(NAME), "中文");
}

#[test]
fn rule_a_refused_text_command_keeps_the_partial_result() {
    let e = env();
    e.phone.knobs().text_error = Some(DeviceError::Command {
        code: tapflow_core::codes::INPUT_FAILED,
        what: "text input".into(),
        device_says: "Invalid parameters.".into(),
    });
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(NAME, "name"), "text": "abc"}));
    assert_eq!(code, "INPUT_TEXT_FAILED");
    assert_eq!(d["focus_verified"], true);
    assert_eq!(d["dispatched"], false);
    assert_eq!(d["stage"], "dispatch");
    assert_eq!(d["device_says"], "Invalid parameters.");
    let (code, d) = e.err_with_partial(json!({"x": 100, "y": 360, "text": "abc"}));
    assert_eq!(code, "INPUT_TEXT_FAILED");
    assert_eq!(d["dispatched"], false);
}

/// The select-all key travels with the text (one round trip on hdc, where the shell sends the
/// text whatever the key answered): a refused key fails the call at `prepare`, and
/// `dispatched` says whether the text itself went out, never more.
#[test]
fn rule_a_refused_select_all_fails_the_call_and_dispatched_tells_the_truth() {
    for chaining in [true, false] {
        let e = env();
        e.phone.knobs().no_chaining = !chaining;
        e.phone.set_value(NAME, "old");
        e.phone.knobs().key_error = Some(DeviceError::Command {
            code: tapflow_core::codes::KEY_EVENT_FAILED,
            what: "key event".into(),
            device_says: "Illegal argument".into(),
        });
        let (code, d) =
            e.err_with_partial(json!({"element_handle": handle(NAME, "name"), "text": "abc"}));
        assert_eq!(code, "INPUT_TEXT_FAILED", "chaining: {chaining}");
        assert_eq!(d["stage"], "prepare");
        assert_eq!(d["focus_verified"], true);
        assert_eq!(d["verified"], false);
        assert_eq!(d["device_says"], "Illegal argument");
        let typed = !texts(&e.phone.acts()).is_empty();
        assert_eq!(
            d["dispatched"], typed,
            "chaining: {chaining}: dispatched is what happened"
        );
        // The chained shell sent the text after the refused key; one call per action stops.
        assert_eq!(typed, chaining);
    }
}
