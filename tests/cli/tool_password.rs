//! `tapflow tool input_text --sim 1` into the demo app's password field, on both simulated
//! platforms (Android through the real adb on a private server), with debug logging on: the
//! mask of the typed length succeeds with `verified: false, length_verified: true` (exit 0),
//! a shorter mask (characters lost, `drop-first-chars`) fails with `TEXT_NOT_READABLE` (exit
//! 1), and the password appears neither in the envelope nor in the log, only its length as `•`.

use crate::common::adb_env;
use crate::common::cli;

use serde_json::Value;

/// One logged call (`-vv`): exit code, envelope, everything printed.
fn call(platform: &str, faults: Option<&str>, text: &str) -> (Option<i32>, Value, String) {
    let home = tempfile::tempdir().unwrap();
    let mut c = cli::android(home.path(), cli::repo(), &adb_env::adb_path());
    c.env("INPUT_VERIFY_TIMEOUT_MS", "1500")
        .args(["-vv", "tool", "--sim", "1", "--platform", platform])
        .args(faults.map(|f| ["--sim-faults", f]).into_iter().flatten())
        .arg("input_text")
        .arg(serde_json::json!({"element_id": "password", "text": text}).to_string());
    let out = c.output().unwrap();
    let v =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", cli::text(&out)));
    (out.status.code(), v, cli::text(&out))
}

fn dots(s: &str) -> String {
    "\u{2022}".repeat(s.chars().count())
}

fn succeeds_on_length(platform: &str) {
    let secret = "hunter2-Secret";
    let (code, v, all) = call(platform, None, secret);
    let r = &v["structuredContent"]["result"];
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(r["verified"], false);
    assert_eq!(r["length_verified"], true);
    assert_eq!(r["masked_length"], 14);
    assert_eq!(r["masked"], true);
    assert_eq!(r["requested_text"], dots(secret));
    assert!(all.contains("input_text"), "debug logging ran: {all}");
    assert!(!all.contains(secret), "the password was echoed:\n{all}");
}

#[test]
fn bare_input_text_into_password_fields_succeeds_on_length_on_harmonyos() {
    succeeds_on_length("harmonyos");
}

#[test]
fn bare_input_text_into_password_fields_succeeds_on_length_on_android() {
    succeeds_on_length("android");
}

#[test]
fn bare_input_text_into_password_fields_of_another_length_fails_without_echo() {
    let secret = "73194628"; // digits: typed key by key, so the fault can drop them
    for platform in ["harmonyos", "android"] {
        let (code, v, all) = call(platform, Some("drop-first-chars=2"), secret);
        let e = &v["structuredContent"]["error"];
        assert_eq!(code, Some(1), "{v:#}");
        assert_eq!(e["code"], "TEXT_NOT_READABLE", "{v:#}");
        assert_eq!(e["details"]["masked"], true);
        assert_eq!(e["details"]["requested_text"], dots(secret));
        assert_eq!(e["details"]["actual_text"], dots("194628"));
        assert!(
            !all.contains(secret),
            "{platform}: the password was echoed:\n{all}"
        );
    }
}
