//! The runner's rules for failures that are the device's (docs/run.md, "When a failure is
//! the device's"), end to end through the binary on both simulated platforms (Android through
//! the real adb): slow UI dumps end in `DEVICE_UNRESPONSIVE` and exit 4; keys lost at random
//! end in `INPUT_KEYS_LOST` and exit 4; a lost key that a retype recovers passes; a field that
//! shows the same thing on every try keeps the tool's verdict (exit 1), a password field only
//! when its counts agree over five tries; a crash the device
//! proves wins over the device faults that follow it (exit 1, `APP_CRASHED`). (A bare tool
//! call keeps the reference's contract, no settling and no retyping:
//! `tests/tools/sim_faults.rs`.) Wall-time bounds are hang guards.

use crate::common::adb_env;
use crate::common::cli;

use std::time::{Duration, Instant};

use serde_json::Value;

const HANG_GUARD: Duration = Duration::from_secs(150);

struct Run {
    code: Option<i32>,
    all: String,
    result: Value,
}

/// Runs `flow` (YAML text, or a path under the repository) on one simulated device.
fn run(platform: &str, faults: &str, flow: &str) -> Run {
    run_seeded(platform, faults, flow, 1)
}

/// [`run`] with the simulator's seed (which commands the faults hit).
fn run_seeded(platform: &str, faults: &str, flow: &str, seed: u32) -> Run {
    let home = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let report = tempfile::tempdir().unwrap();
    let (cwd, path) = if flow.ends_with(".yaml") {
        (cli::repo().to_path_buf(), flow.to_string())
    } else {
        std::fs::write(root.path().join("flow.yaml"), flow).unwrap();
        (root.path().to_path_buf(), "flow.yaml".to_string())
    };
    let started = Instant::now();
    let out = cli::android(home.path(), &cwd, &adb_env::adb_path())
        .args(["run", &path, "--sim", "1", "--platform", platform])
        .args(["--sim-latency", "none", "--sim-faults", faults])
        .args(["--sim-seed", &seed.to_string()])
        .args(["--no-progress", "--report-dir"])
        .arg(report.path())
        .output()
        .unwrap();
    assert!(
        started.elapsed() < HANG_GUARD,
        "{platform} {faults}: took {:?}",
        started.elapsed()
    );
    Run {
        code: out.status.code(),
        all: cli::text(&out),
        result: cli::result(report.path()),
    }
}

/// The failed step's error (the deepest failed tool step).
fn failure(r: &Run) -> Value {
    cli::steps(&r.result["flows"][0])
        .into_iter()
        .filter(|s| s["status"] == "failed" && s["tool"].is_string())
        .filter(|s| s["tool"] != "run_flow")
        .map(|s| s["error"].clone())
        .next()
        .unwrap_or_else(|| panic!("no failed step: {}", r.all))
}

fn input_steps(r: &Run) -> Vec<Value> {
    cli::steps(&r.result["flows"][0])
        .into_iter()
        .filter(|s| s["tool"] == "input_text")
        .collect()
}

const SLOW_SCREEN: &str = "name: Slow screen
app: com.tapflow.demo
steps:
  - wait_for_element: {element_id: login, timeout_ms: 6000}
";

/// Every dump takes 7 s: the device check passes (within the backend's 30 s), but the wait's
/// only dump is still unanswered after 6 s. Nothing was seen, so nothing is the app's.
fn slow_dumps_are_the_devices(platform: &str) {
    let r = run(platform, "slow-dump=7s", SLOW_SCREEN);
    assert_eq!(r.code, Some(4), "{platform}: {}", r.all);
    let e = failure(&r);
    assert_eq!(e["code"], "DEVICE_UNRESPONSIVE", "{platform}: {e:#}");
    assert_eq!(e["details"]["cause"]["code"], "WAIT_TIMEOUT", "{e:#}");
    let screen = &e["details"]["screen"];
    assert_eq!(screen["answered"], 0, "{e:#}");
    assert!(screen["unanswered_ms"].as_u64().unwrap() >= 5_000, "{e:#}");
    assert!(
        r.all.contains("never showed its screen"),
        "{platform}: {}",
        r.all
    );
    assert!(r.all.contains("help: the device's UI dumps"), "{}", r.all);
}

#[test]
fn slow_dumps_end_in_device_unresponsive_and_exit_4_on_harmonyos() {
    slow_dumps_are_the_devices("harmonyos");
}

#[test]
fn slow_dumps_end_in_device_unresponsive_and_exit_4_on_android() {
    slow_dumps_are_the_devices("android");
}

/// A wait shorter than one dump ends during it: nothing was seen, but a dump still running for
/// 2 s proves nothing against the device. The verdict stands; `details.screen` says why.
#[test]
fn a_short_wait_during_its_first_dump_keeps_its_verdict() {
    let r = run(
        "harmonyos",
        "slow-dump=3s",
        &SLOW_SCREEN.replace("6000", "1500"),
    );
    assert_eq!(r.code, Some(1), "{}", r.all);
    let e = failure(&r);
    assert_eq!(e["code"], "WAIT_TIMEOUT", "{e:#}");
    assert_eq!(e["details"]["screen"]["answered"], 0, "{e:#}");
    assert!(e["details"]["screen"]["unanswered_ms"].as_u64().unwrap() < 5_000);
}

/// Seen: a wait that ended while its only dump was still running (under 5 s then) kept its
/// `WAIT_TIMEOUT` and exit 1, though that dump went on for 7 s. The runner watches a dump that
/// has run 2 s or more until it answers or has run 5 s: a device that slow is at fault.
fn a_dump_that_outlasts_the_wait_by_5_s_is_the_devices(platform: &str) {
    let r = run(
        platform,
        "slow-dump=7s",
        &SLOW_SCREEN.replace("6000", "2500"),
    );
    assert_eq!(r.code, Some(4), "{platform}: {}", r.all);
    let e = failure(&r);
    assert_eq!(e["code"], "DEVICE_UNRESPONSIVE", "{platform}: {e:#}");
    assert_eq!(e["details"]["cause"]["code"], "WAIT_TIMEOUT", "{e:#}");
    assert!(
        e["details"]["screen"]["unanswered_ms"].as_u64().unwrap() >= 5_000,
        "{e:#}"
    );
}

#[test]
fn a_dump_that_outlasts_the_wait_by_5_s_is_the_devices_on_harmonyos() {
    a_dump_that_outlasts_the_wait_by_5_s_is_the_devices("harmonyos");
}

#[test]
fn a_dump_that_outlasts_the_wait_by_5_s_is_the_devices_on_android() {
    a_dump_that_outlasts_the_wait_by_5_s_is_the_devices("android");
}

/// Seen: the app crashed (the crash file / logcat block was there), then a device fault hit
/// the next step, and the flow failed with the device's code (`DEVICE_DISCONNECTED`,
/// `UI_TREE_FETCH_ERROR`) instead of `APP_CRASHED`. Under device faults, every run of the
/// crash example in which the app crashed fails with `APP_CRASHED` and exit 1.
#[test]
fn a_proven_crash_wins_over_the_device_faults_that_follow_it() {
    let mut crashed = 0;
    for (platform, faults, seeds) in [
        ("android", "drop-conn=0.05", [1, 2]),
        ("android", "drop-conn=0.3", [1, 3]),
        ("android", "empty-dump=0.3", [1, 3]),
        ("harmonyos", "empty-dump=0.3", [2, 3]),
    ] {
        for seed in seeds {
            let r = run_seeded(platform, faults, "examples/first-hour/crash.yaml", seed);
            let flow = &r.result["flows"][0];
            let steps = cli::steps(flow);
            let tapped_crash = steps.iter().any(|s| {
                s["tool"] == "click" && s["args"]["text"] == "Crash" && s["status"] == "passed"
            });
            if !tapped_crash {
                // The device failed before the app could crash: the device's, exit 4.
                assert_eq!(r.code, Some(4), "{platform} {faults} {seed}: {}", r.all);
                continue;
            }
            crashed += 1;
            assert_eq!(
                flow["error"]["code"], "APP_CRASHED",
                "{platform} {faults} seed {seed}: {}",
                r.all
            );
            assert_eq!(r.code, Some(1), "{platform} {faults} {seed}: {}", r.all);
        }
    }
    assert!(
        crashed >= 6,
        "only {crashed} of 8 runs got as far as the crash"
    );
}

const LONG_TEXT: &str = "name: Long text
app: com.tapflow.demo
clean_state: true
steps:
  - input_text: {element_id: username, text: \"TEXT\"}
";

/// Half the keys are lost at random: every try shows another part of the text (the chance
/// of two equal tries of 16 keys is 2^-16, of a landing try 2^-16 as well).
fn keys_lost_at_random_are_the_devices(platform: &str, text: &str) {
    let r = run(platform, "drop-chars=0.5", &LONG_TEXT.replace("TEXT", text));
    assert_eq!(r.code, Some(4), "{platform}: {}", r.all);
    let e = failure(&r);
    assert_eq!(e["code"], "INPUT_KEYS_LOST", "{platform}: {e:#}");
    assert_eq!(e["details"]["cause_code"], "TEXT_VERIFICATION_TIMEOUT");
    assert!(
        e["details"]["settled_ms"].as_u64().unwrap() >= 1_000,
        "{e:#}"
    );
    let tries = e["details"]["retyped"].as_array().unwrap();
    assert_eq!(tries.len(), 3, "{e:#}");
    assert!(tries.iter().any(|t| t != &tries[0]), "{e:#}");
    assert!(r.all.contains("help: the device drops keys"), "{}", r.all);
}

#[test]
fn keys_lost_at_random_end_in_input_keys_lost_and_exit_4_on_android() {
    // `input text` types any ASCII key by key.
    keys_lost_at_random_are_the_devices("android", "abcdefghijklmnop");
}

#[test]
fn keys_lost_at_random_end_in_input_keys_lost_and_exit_4_on_harmonyos() {
    // uitest types digits key by key (other ASCII is pasted, and never loses a key).
    keys_lost_at_random_are_the_devices("harmonyos", "1234567890123456");
}

/// The first two keys the device receives are lost: the first try shows the rest, the second
/// lands, and the example login flow passes, saying what the lost try showed.
#[test]
fn a_retype_that_lands_passes_the_step_and_says_so() {
    let r = run("android", "drop-first-chars=2", "flows/login.yaml");
    assert_eq!(r.code, Some(0), "{}", r.all);
    let username = &input_steps(&r)[0];
    assert_eq!(username["result"]["verified"], true, "{username:#}");
    assert_eq!(username["result"]["retyped"], serde_json::json!(["mo"]));
    let cost = username["cost"]["device_round_trips"].as_u64().unwrap();
    assert!(cost >= 4, "both tries are counted: {username:#}");
}

/// Every key is lost: each try shows the untouched field (its hint), the same every time, as
/// a field that refuses every key would. Reported as the field's (exit 1), after three short
/// tries, not three full verification deadlines; the message says what it cannot tell.
#[test]
fn the_same_value_on_every_try_keeps_the_tools_verdict() {
    let r = run("android", "drop-chars=1", "flows/login.yaml");
    assert_eq!(r.code, Some(1), "{}", r.all);
    let e = failure(&r);
    assert_eq!(e["code"], "TEXT_VERIFICATION_TIMEOUT", "{e:#}");
    assert_eq!(
        e["details"]["retyped"],
        serde_json::json!(["Username", "Username", "Username"])
    );
    assert!(e["details"]["settled_ms"].is_u64(), "{e:#}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("a device that loses every key looks the same"),
        "{e:#}"
    );
}

/// A secret typed into a visible field that lost keys: what the field showed is most of the
/// secret, so the runner dots it out of the result, the message and the retries (docs/security.md).
#[test]
fn what_a_field_showed_of_a_typed_secret_is_dotted_out() {
    let flow = "name: Secret token
app: com.tapflow.demo
clean_state: true
env:
  TOKEN: {default: \"tok-abcdefghijklmnopqrs\", secret: true}
steps:
  - input_text: {element_id: username, text: \"{{ TOKEN }}\"}
";
    let r = run("android", "drop-chars=0.5", flow);
    assert_eq!(r.code, Some(4), "{}", r.all);
    let e = failure(&r);
    assert_eq!(e["code"], "INPUT_KEYS_LOST", "{e:#}");
    for t in e["details"]["retyped"].as_array().unwrap() {
        assert!(t.as_str().unwrap().chars().all(|c| c == '•'), "{e:#}");
    }
    let text = serde_json::to_string(&e).unwrap();
    for part in ["abc", "def", "ghi", "jkl", "mno", "pqr"] {
        assert!(!text.contains(part), "{part} in {text}");
        assert!(!r.all.contains(part), "{part} in the output");
    }
}

/// A password field shows only how many characters it holds, so three tries that show the
/// same *count* do not prove the field refuses the characters: a device dropping keys at random
/// did that in the fault matrix (Android, `drop-chars=0.3`), and the run exited 1. A field that
/// hides its value is typed five times and blamed only when every count agrees; here half the
/// keys are lost, so the counts differ and the device is blamed (exit 4), with nothing of the
/// secret in what the tries showed.
#[test]
fn keys_lost_in_a_password_field_are_typed_five_times_and_blamed_on_the_device() {
    let flow = "name: Long password
app: com.tapflow.demo
clean_state: true
env:
  PASSWORD: {default: \"pw-abcdefghijklmnop\", secret: true}
steps:
  - input_text: {element_id: password, text: \"{{ PASSWORD }}\"}
";
    let r = run("android", "drop-chars=0.5", flow);
    assert_eq!(r.code, Some(4), "{}", r.all);
    let e = failure(&r);
    assert_eq!(e["code"], "INPUT_KEYS_LOST", "{e:#}");
    let tries = e["details"]["retyped"].as_array().unwrap();
    assert_eq!(tries.len(), 5, "a masked field gets five tries: {e:#}");
    for t in tries {
        assert!(t.as_str().unwrap().chars().all(|c| c == '•'), "{e:#}");
    }
    assert!(
        !r.all.contains("abcdef"),
        "the secret stays out of the output"
    );
}
