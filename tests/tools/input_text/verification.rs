//! Verification: polling until the exact value shows, refused and failed dumps while observing,
//! timeouts and password fields.

use super::*;

#[test]
fn rule_verification_polls_until_the_exact_value_is_visible() {
    let e = env_with(400, 5000);
    e.phone.knobs().value_lag = 2;
    let r = e.ok(json!({"element_handle": handle(PIN, "pin"), "text": "2024"}));
    assert_eq!(r["observations"], 3);
    assert_eq!(r["verified"], true);
    assert_eq!(
        e.trips(),
        5,
        "3 + two plain dumps after the chained one saw the old value"
    );
}

#[test]
fn rule_a_refused_dump_while_observing_is_ridden_out() {
    // Dumps 3 and 4 (the first verification observations) are refused; the next one counts.
    let e = env_with(400, 5000);
    {
        let mut k = e.phone.knobs();
        k.refuse_dumps_after = Some(2);
        k.refused_dumps = 2;
    }
    let r = e.ok(json!({"element_handle": handle(PIN, "pin"), "text": "31"}));
    assert_eq!(r["verified"], true);
    assert_eq!(r["observations"], 1, "refused dumps are not observations");
    // The refused chained dump rides along with the text; the refused plain one is a trip.
    assert_eq!(e.trips(), 5, "but they are round trips");
}

#[test]
fn rule_an_accepted_action_stays_dispatched_when_the_dump_chained_to_it_fails() {
    // The text went through but the device vanished before the dump that rode with it: the
    // device's own code ends the call, and the partial result says the text WAS sent.
    // The focus click's chained dump succeeds; the one riding with the text fails.
    let e = env();
    e.phone.knobs().fail_chained = Some((
        2,
        DeviceError::Disconnected {
            device_says: "[Fail]Device not found or connected".into(),
        },
    ));
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(NAME, "name"), "text": "abc"}));
    assert_eq!(code, "DEVICE_DISCONNECTED");
    assert_eq!(d["dispatched"], true, "the text was accepted");
    assert_eq!(d["focus_verified"], true);
    assert_eq!(d["stage"], "observe_sentinel");
    assert_eq!(
        d["cleanup_performed"], false,
        "no Backspace without the observation"
    );
    assert!(!keys(&e.phone.acts()).contains(&vec![BACKSPACE]));
    assert_eq!(e.phone.value(NAME), format!("abc{SENTINEL}"));
}

#[test]
fn rule_verification_timeout_reports_the_last_observed_text() {
    let e = env();
    e.phone.knobs().drop_char = Some('5');
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(PIN, "pin"), "text": "12345"}));
    assert_eq!(code, "TEXT_VERIFICATION_TIMEOUT");
    assert_eq!(d["actual_text"], "1234");
    assert_eq!(d["dispatched"], true);
    assert_eq!(d["stage"], "verify");
    assert_eq!(d["verify_timeout_ms"], 400);
    assert!(d["observations"].as_u64().unwrap() >= 1);
}

#[test]
fn rule_password_fields_succeed_on_the_masked_length_and_never_echo_the_text() {
    // Direct entry: the mask has the expected length at once; waiting cannot reveal more. The
    // length is what can be checked: the call succeeds, unverified, and says so.
    let dots = |n: usize| "\u{2022}".repeat(n);
    let e = env();
    let r = e.ok(json!({"element_handle": handle(PASSWORD, "password"), "text": "2580"}));
    assert_eq!(r["verified"], false);
    assert_eq!(r["length_verified"], true);
    assert_eq!(r["masked_length"], 4);
    assert_eq!(r["masked"], true);
    assert_eq!(r["actual_text"], dots(4));
    assert_eq!(r["observations"], 1);
    assert_eq!(
        (r["text"].clone(), r["requested_text"].clone()),
        (json!(dots(4)), json!(dots(4)))
    );
    assert_eq!(
        e.phone.value(PASSWORD),
        "2580",
        "the write itself went through"
    );
    // Sentinel route: the masked sentinel-bearing value is one character longer; Backspace
    // removes it, and the mask of the right length is what is left.
    let e = env();
    let r = e.ok(json!({"element_handle": handle(PASSWORD, "password"), "text": "hunter2"}));
    assert_eq!(r["cleanup_performed"], true);
    assert_eq!(r["length_verified"], true);
    assert_eq!(r["actual_text"], dots(7));
    assert!(!r.to_string().contains("hunter2"), "{r:#}");
    assert_eq!(
        e.phone.value(PASSWORD),
        "hunter2",
        "no sentinel left behind"
    );
    // A masked value of the wrong length stays an error with what was seen, its text masked.
    let e = env();
    e.phone.knobs().drop_char = Some('0');
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(PASSWORD, "password"), "text": "1020"}));
    assert_eq!(code, "TEXT_NOT_READABLE");
    assert_eq!(d["actual_text"], dots(2));
    assert_eq!(d["expected_text"], dots(4));
    assert_eq!(d["masked"], true);
    assert!(!d.to_string().contains("1020"), "{d:#}");
}
