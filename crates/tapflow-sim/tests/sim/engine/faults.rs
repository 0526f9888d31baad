//! Faults: deterministic from the seed, and each kind as the client sees it.

use super::*;
use pretty_assertions::assert_eq;

fn scripted_session(s: &Simulator) -> Vec<String> {
    let k = s.serials()[0].clone();
    (0..40)
        .map(|i| match i % 4 {
            0 => run(s, &["-t", &k, "shell", "echo ping"]),
            1 => run(s, &["-t", &k, "shell", "uitest dumpLayout -p /data/local/tmp/f.json >/dev/null; cat /data/local/tmp/f.json"]).len().to_string(),
            2 => run(s, &["-t", &k, "shell", "uitest uiInput keyEvent Home"]),
            _ => run(s, &["list", "targets"]),
        })
        .collect()
}

#[test]
fn faults_are_deterministic_from_the_seed() {
    let spec = "fail=0.2,empty-dump=0.2,truncate-dump=0.2";
    let a = scripted_session(&sim_with(1, spec, 11));
    let b = scripted_session(&sim_with(1, spec, 11));
    let c = scripted_session(&sim_with(1, spec, 12));
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert!(
        a.iter()
            .any(|l| l
                .starts_with("[Fail][E000004]:The communication channel is being established."))
    );
}

#[test]
fn fault_kinds() {
    let s = sim_with(1, "fail=1", 0);
    assert_eq!(
        sh(&s, "echo hi"),
        "[Fail][E000004]:The communication channel is being established.\r\nPlease wait for several seconds and try again.\n"
    );
    assert_eq!(
        run(&s, &["list", "targets"]).lines().count(),
        1,
        "host-side commands never fail"
    );

    let s = sim_with(1, "empty-dump=1", 0);
    assert_eq!(
        sh(
            &s,
            "uitest dumpLayout -p /data/local/tmp/e.json >/dev/null; cat /data/local/tmp/e.json"
        ),
        ""
    );

    let s = sim_with(1, "truncate-dump=1", 0);
    let t = sh(
        &s,
        "uitest dumpLayout -p /data/local/tmp/e.json >/dev/null; cat /data/local/tmp/e.json",
    );
    assert!(!t.is_empty() && serde_json::from_str::<Value>(&t).is_err());

    let s = sim_with(1, "drop-chars=1", 0);
    start_demo(&s);
    let (x, y) = center(&dump(&s), "username").unwrap();
    sh(&s, &format!("uitest uiInput inputText {x} {y} abc"));
    assert_eq!(text_of(&dump(&s), "username").as_deref(), Some(""));

    let s = sim_with(2, "disconnect-after=2", 0);
    let keys = s.serials();
    assert_eq!(run(&s, &["-t", &keys[0], "shell", "echo 1"]), "1\n");
    assert_eq!(run(&s, &["-t", &keys[0], "shell", "echo 2"]), "2\n");
    assert_eq!(
        run(&s, &["-t", &keys[0], "shell", "echo 3"]),
        "[Fail][E001005] Device not found or connected\n"
    );
    assert_eq!(run(&s, &["list", "targets"]), format!("{}\n", keys[1]));
    assert!(
        run(&s, &["list", "targets", "-v"]).starts_with(&format!("{}\t\tUSB\tOffline\t", keys[0]))
    );
    // With one device left, no -t is needed any more.
    assert_eq!(sh(&s, "echo only"), "only\n");
}
