//! Handle mode: the acceptance criterion and the strategies (direct, sentinel paste, native
//! paste), replace and append.

use super::*;

#[test]
fn acceptance_handle_mode_digits_cost_at_most_six_round_trips() {
    // Rule: "Short ASCII digits use direct entry"; replace selects all and types over it.
    let e = env();
    e.phone.set_value(PIN, "0000");
    let r = e.ok(json!({"element_handle": handle(PIN, "pin"), "text": "123456"}));
    assert!(e.trips() <= 6, "round trips: {}", e.trips());
    // dump; click + dump (chained); Ctrl+A + text + dump (chained).
    assert_eq!(e.trips(), 3);
    assert_eq!(e.phone.cost().ui_dumps, 3);
    assert_eq!(
        e.phone.chained(),
        2,
        "the click, and Ctrl+A with the text, each carry their observation"
    );
    assert_eq!(e.phone.value(PIN), "123456");
    assert_eq!(r["input_strategy"], "direct");
    assert_eq!(r["clipboard_modified"], false);
    assert_eq!(r["verified"], true);
    assert_eq!(r["actual_text"], "123456");
    assert_eq!(r["before_text"], "0000");
    assert_eq!(r["requested_text"], "123456");
    assert_eq!(r["text"], "123456");
    assert_eq!(r["mode"], "replace");
    assert_eq!(r["dispatched"], true);
    assert_eq!(r["focus_dispatched"], true);
    assert_eq!(r["focus_verified"], true);
    assert_eq!(r["focused"], true);
    assert_eq!(r["window_foreground"], true);
    assert_eq!(r["foreground_window_id"], APP);
    assert_eq!(r["focus_observations"], 1);
    assert_eq!(r["observations"], 1);
    assert_eq!(r["cleanup_performed"], false);
    assert_eq!(r["resolved_via"], "element_handle");
    assert_eq!(r["handle_refreshed"], false);
    assert_eq!(r["element_handle"]["compid"], format!("{APP}:{PIN}"));
    assert_eq!(r["stage"], "done");
    let c = center_of(PIN);
    assert_eq!(
        (r["x"].as_i64(), r["y"].as_i64()),
        (Some(c.x as i64), Some(c.y as i64))
    );
    // Rule: the text is typed over the selection, never pre-cleared.
    let acts = e.phone.acts();
    assert_eq!(shape(&acts), "DTDKXD");
    assert_eq!(
        keys(&acts),
        vec![CTRL_A.to_vec()],
        "Ctrl+A as ONE keyEvent, no Backspace"
    );
    assert_eq!(acts[1], Act::Tap(c));
    assert_eq!(acts[4], Act::Text(TextTarget::Focused, "123456".into()));
}

#[test]
fn rule_other_ascii_uses_the_sentinel_and_backspace_after_observation() {
    // The contract's correct example: a handle and "security".
    let e = env();
    e.phone.set_value(NAME, "old value");
    let r = e.ok(json!({
        "element_handle": {"window_id": 80, "id": "420", "compid": "80:420", "type": "TextInput"},
        "text": "security"
    }));
    assert_eq!(e.phone.value(NAME), "security");
    assert_eq!(r["input_strategy"], "sentinel_paste");
    assert_eq!(r["clipboard_modified"], true);
    assert_eq!(r["cleanup_performed"], true);
    assert_eq!(r["verified"], true);
    assert_eq!(r["actual_text"], "security");
    assert_eq!(r["before_text"], "old value");
    assert_eq!(
        r["observations"], 2,
        "sentinel observation + final verification"
    );
    // The sentinel route costs Backspace (chained with its observation) more than the others.
    assert_eq!(e.trips(), 4);
    assert_eq!(e.phone.chained(), 3);
    let acts = e.phone.acts();
    assert_eq!(shape(&acts), "DTDKXDKD");
    assert_eq!(texts(&acts), vec![format!("security{SENTINEL}")]);
    assert_eq!(keys(&acts), vec![CTRL_A.to_vec(), vec![BACKSPACE]]);
    assert_eq!(
        acts[5],
        Act::Dump {
            focused_value: Some(format!("security{SENTINEL}"))
        },
        "the sentinel-bearing value was observed right before Backspace"
    );
    assert_eq!(e.phone.clipboard(), format!("security{SENTINEL}"));
}

#[test]
fn rule_backspace_is_sent_only_after_the_sentinel_bearing_value_is_observed() {
    // The paste shows up late: the tool keeps observing and sends Backspace only then.
    let e = env_with(400, 5000);
    e.phone.knobs().value_lag = 3;
    let r = e.ok(json!({"element_handle": handle(NAME, "name"), "text": "a b"}));
    assert_eq!(e.phone.value(NAME), "a b");
    assert_eq!(r["observations"], 5, "3 stale + sentinel + final");
    let acts = e.phone.acts();
    let bs = acts
        .iter()
        .position(|a| *a == Act::Key(vec![BACKSPACE]))
        .unwrap();
    let dumps_before: Vec<&Act> = acts[..bs]
        .iter()
        .filter(|a| matches!(a, Act::Dump { .. }))
        .collect();
    assert_eq!(
        dumps_before.last().unwrap(),
        &&Act::Dump {
            focused_value: Some(format!("a b{SENTINEL}"))
        }
    );
    assert!(
        dumps_before[..dumps_before.len() - 1].iter().all(|d| **d
            != Act::Dump {
                focused_value: Some(format!("a b{SENTINEL}"))
            }),
        "no earlier observation showed it"
    );
}

#[test]
fn rule_sentinel_never_observed_means_no_backspace_and_a_verification_timeout() {
    let e = env();
    e.phone.knobs().paste_lost = true;
    e.phone.set_value(NAME, "keep");
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(NAME, "name"), "text": "abc"}));
    assert_eq!(code, "TEXT_VERIFICATION_TIMEOUT");
    assert_eq!(d["stage"], "observe_sentinel");
    assert_eq!(d["dispatched"], true);
    assert_eq!(d["cleanup_performed"], false);
    assert_eq!(d["actual_text"], "keep", "the last observed value");
    assert!(d["observations"].as_u64().unwrap() >= 1);
    assert!(
        !keys(&e.phone.acts()).contains(&vec![BACKSPACE]),
        "Backspace must not be sent before the sentinel is seen"
    );
}

#[test]
fn rule_cleanup_that_fails_is_text_cleanup_failed() {
    let e = env();
    e.phone.knobs().ignore_backspace = true;
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(NAME, "name"), "text": "hello"}));
    assert_eq!(code, "TEXT_CLEANUP_FAILED");
    assert_eq!(d["cleanup_performed"], true, "Backspace was sent");
    assert_eq!(d["actual_text"], format!("hello{SENTINEL}"));
    assert_eq!(d["stage"], "verify");
    assert_eq!(d["sentinel"], SENTINEL.to_string());
}

#[test]
fn rule_unicode_uses_the_native_paste_route_byte_exact() {
    for text in [
        "中文输入",
        "emoji 😀👍🏽 ok",
        "مرحبا بالعالم",
        "עברית 123",
        "naïve café",
    ] {
        let e = env();
        let r = e.ok(json!({"element_handle": handle(NAME, "name"), "text": text}));
        assert_eq!(e.phone.value(NAME), text);
        assert_eq!(r["input_strategy"], "native_paste", "{text}");
        assert_eq!(r["clipboard_modified"], true);
        assert_eq!(r["actual_text"], text);
        assert_eq!(e.trips(), 3, "{text}");
        assert_eq!(
            texts(&e.phone.acts()),
            vec![text.to_string()],
            "no sentinel"
        );
    }
}

#[test]
fn rule_text_longer_than_200_chars_uses_the_native_paste_route() {
    let e = env();
    let long = "abc ".repeat(60); // 240 ASCII chars
    let r = e.ok(json!({"element_handle": handle(NAME, "name"), "text": long}));
    assert_eq!(r["input_strategy"], "native_paste");
    assert_eq!(e.phone.value(NAME), long);
    assert_eq!(texts(&e.phone.acts()), vec![long.clone()]);
    let digits = "9".repeat(201);
    let e = env();
    let r = e.ok(json!({"element_handle": handle(PIN, "pin"), "text": digits}));
    assert_eq!(r["input_strategy"], "native_paste");
}

#[test]
fn rule_text_arrives_byte_exact_whatever_it_contains() {
    let nasty = [
        "it's \"quoted\"",
        "$HOME `id` $(rm -rf /) ; && || > /dev/null",
        "back\\slash\\\\ and \\n literal",
        "line one\nline two\ttab",
        "  leading and trailing  ",
        "'",
        "%s %d {{ var }}",
    ];
    for text in nasty {
        let e = env();
        let r = e.ok(json!({"element_handle": handle(NAME, "name"), "text": text}));
        assert_eq!(e.phone.value(NAME), text);
        assert_eq!(r["actual_text"], text);
        assert_eq!(texts(&e.phone.acts()), vec![format!("{text}{SENTINEL}")]);
    }
}

#[test]
fn rule_empty_text_in_replace_mode_clears_the_field() {
    let e = env();
    e.phone.set_value(NAME, "to be cleared");
    let r = e.ok(json!({"element_handle": handle(NAME, "name"), "text": ""}));
    assert_eq!(e.phone.value(NAME), "");
    assert_eq!(r["input_strategy"], "clear");
    assert_eq!(r["dispatched"], true);
    assert_eq!(r["clipboard_modified"], false);
    assert_eq!(r["actual_text"], "");
    assert_eq!(r["before_text"], "to be cleared");
    assert_eq!(
        e.trips(),
        3,
        "dump; click + dump; Ctrl+A + Backspace + dump"
    );
    assert_eq!(
        keys(&e.phone.acts()),
        vec![CTRL_A.to_vec(), vec![BACKSPACE]]
    );
    assert!(texts(&e.phone.acts()).is_empty());
}

#[test]
fn rule_append_moves_the_caret_to_the_end_and_keeps_the_value() {
    let e = env();
    e.phone.set_value(NAME, "abc");
    // Put the caret at the start, as a user may have left it.
    e.phone
        .state
        .lock()
        .unwrap()
        .fields
        .get_mut(&NAME)
        .unwrap()
        .caret = 0;
    let r = e.ok(json!({"element_handle": handle(NAME, "name"), "text": "def", "mode": "append"}));
    assert_eq!(e.phone.value(NAME), "abcdef");
    assert_eq!(r["mode"], "append");
    assert_eq!(r["text"], "abcdef");
    assert_eq!(r["requested_text"], "def");
    assert_eq!(r["before_text"], "abc");
    assert_eq!(r["actual_text"], "abcdef");
    assert_eq!(
        keys(&e.phone.acts())[0],
        vec![MOVE_END],
        "caret to the end, no select-all"
    );
    assert!(!keys(&e.phone.acts()).contains(&CTRL_A.to_vec()));
}

#[test]
fn rule_append_accepts_exact_equality_only_not_a_matching_suffix() {
    // A buggy app selects everything on focus and ignores MoveEnd: the text replaces the
    // value, which then ends with the requested text but is not before_text + text.
    let e = env();
    e.phone.knobs().select_on_focus_ignore_end = true;
    e.phone.set_value(PIN, "12");
    let (code, d) = e.err_with_partial(
        json!({"element_handle": handle(PIN, "pin"), "text": "34", "mode": "append"}),
    );
    assert_eq!(code, "TEXT_VERIFICATION_TIMEOUT");
    assert_eq!(d["actual_text"], "34");
    assert_eq!(d["expected_text"], "1234");
    assert_eq!(d["text"], "1234");
    assert_eq!(d["stage"], "verify");
}
