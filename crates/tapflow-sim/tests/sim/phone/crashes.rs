//! Crashes: the jscrash file the crash button writes and its real section order.

use super::*;

#[test]
fn crash_writes_jscrash_and_kills_the_app() {
    let (mut p, t0) = phone();
    let t = login(&mut p, "dave", t0);
    let pid = p.pid_of(DEMO).unwrap();
    tap_id(&mut p, "crash", t);
    assert_eq!(p.pid_of(DEMO), None);
    assert!(p.missions().is_empty());
    let files = p.fs.list("/data/log/faultlog/faultlogger").unwrap();
    assert_eq!(files.len(), 1, "{files:?}");
    let name = &files[0];
    assert!(
        name.starts_with("jscrash-com.tapflow.demo-") && name.ends_with(".log"),
        "{name}"
    );
    let ts = name.trim_end_matches(".log").rsplit('-').next().unwrap();
    assert_eq!(ts.len(), 17, "YYYYMMDDHHMMSSmmm: {ts}");
    let body = String::from_utf8(
        p.fs.read(&format!("/data/log/faultlog/faultlogger/{name}"))
            .unwrap()
            .to_vec(),
    )
    .unwrap();
    for needle in [
        "Module name:com.tapflow.demo",
        "Reason:TypeError",
        "Error name:TypeError",
        "Stacktrace:",
        &format!("Pid:{pid}"),
        "\nHiLog:\n",
        "LOGIN_SUCCESS user=dave",
    ] {
        assert!(body.contains(needle), "missing {needle:?} in\n{body}");
    }
    let lines: Vec<String> = p.hilog().iter().map(|r| r.format()).collect();
    assert!(lines.iter().any(|l| {
        l.contains("E C01317/AppKit: com.tapflow.demo is about to exit due to RuntimeError")
    }));
    // Launcher shown again.
    let d = dump(&p);
    assert_eq!(attr(&d["children"][0], "bundleName"), "com.ohos.sceneboard");
    assert!(by_text(&d, "Tapflow Demo").is_some());
}

/// The `Key:` headers of a faultlogger file up to its `HiLog:` section, in order.
fn crash_headers(text: &str) -> Vec<String> {
    text.lines()
        .take_while(|l| *l != "HiLog:")
        .filter(|l| !l.starts_with(' ') && !l.is_empty())
        .filter_map(|l| l.split_once(':').map(|(k, _)| k.to_string()))
        .collect()
}

#[test]
fn jscrash_file_has_the_real_section_order() {
    let real = std::fs::read_to_string(concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/tests/fixtures/harmonyos/jscrash_with_hilog_emulator6_illegal_prop.txt"
    ))
    .unwrap();
    let (mut p, t0) = phone();
    let t = login(&mut p, "frank", t0);
    tap_id(&mut p, "crash", t);
    let name =
        p.fs.list("/data/log/faultlog/faultlogger")
            .unwrap()
            .remove(0);
    let mine = String::from_utf8(
        p.fs.read(&format!("/data/log/faultlog/faultlogger/{name}"))
            .unwrap()
            .to_vec(),
    )
    .unwrap();
    assert_eq!(crash_headers(&mine), crash_headers(&real));
    // The HiLog section holds well-formed hilog lines of the crashed process.
    let hilog: Vec<&str> = mine
        .lines()
        .skip_while(|l| *l != "HiLog:")
        .skip(1)
        .filter(|l| !l.is_empty())
        .collect();
    assert!(!hilog.is_empty());
    let re = regex::Regex::new(
        r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ [DIWEF] [ACIK][0-9a-f]{5}/[^:]+: ",
    )
    .unwrap();
    assert!(hilog.iter().all(|l| re.is_match(l)), "{hilog:#?}");
}
