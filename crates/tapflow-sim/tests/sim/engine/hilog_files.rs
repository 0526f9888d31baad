//! hilog and files: the login marker and filters, streaming until the reader leaves, ls, cat,
//! rm and the faultlog.

use super::*;
use pretty_assertions::assert_eq;

#[test]
fn hilog_login_marker_and_filters() {
    let s = sim();
    start_demo(&s);
    let tree = dump(&s);
    let (ux, uy) = center(&tree, "username").unwrap();
    let (lx, ly) = center(&tree, "login").unwrap();
    sh(&s, &format!("uitest uiInput inputText {ux} {uy} alice"));
    sh(&s, &format!("uitest uiInput click {lx} {ly}"));
    // The login completes after a delay; poll the log against a deadline.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let marker = loop {
        let out = sh(&s, "hilog -x -T DemoApp -e LOGIN_SUCCESS");
        if !out.is_empty() || std::time::Instant::now() > deadline {
            break out;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let line = norm_time(&marker);
    let re = regex::Regex::new(
        r"^MM-DD hh:mm:ss\.mmm +\d+ +\d+ I A0d0d0/DemoApp: LOGIN_SUCCESS user=alice\n$",
    )
    .unwrap();
    assert!(re.is_match(&line), "{line:?}");
    assert_eq!(sh(&s, "hilog -x -T DemoApp -L E"), "");
    assert_eq!(sh(&s, "hilog -x -z 1").lines().count(), 1);
    assert_eq!(
        sh(&s, "hilog -r"),
        "Log type core,app buffer clear successfully\n"
    );
    assert_eq!(sh(&s, "hilog -x"), "");
    assert!(sh(&s, "hilog -x -L X").starts_with("Invalid log level"));
}

#[test]
fn hilog_streams_until_the_reader_leaves() {
    let s = sim();
    let mut seen = Vec::new();
    let mut calls = 0;
    let mut sink = |b: &[u8]| {
        seen.extend_from_slice(b);
        calls += 1;
        calls < 3
    };
    let rest = s.handle_streaming(&["shell".into(), "hilog".into()], Path::new("/"), &mut sink);
    assert!(rest.stdout.is_empty());
    assert!(calls >= 3);
    assert!(!seen.is_empty(), "the buffer is printed first");
    // Buffered callers get the buffer and return.
    assert!(!sh(&s, "hilog").is_empty());
}

#[test]
fn files_ls_cat_rm_and_faultlog() {
    let s = sim();
    assert_eq!(sh(&s, "ls /data/log/faultlog/faultlogger/"), "");
    start_demo(&s);
    let tree = dump(&s);
    let (ux, uy) = center(&tree, "username").unwrap();
    let (lx, ly) = center(&tree, "login").unwrap();
    sh(&s, &format!("uitest uiInput inputText {ux} {uy} bob"));
    sh(&s, &format!("uitest uiInput click {lx} {ly}"));
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let crash = loop {
        if let Some(c) = center(&dump(&s), "crash") {
            break c;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "home page never appeared"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    sh(&s, &format!("uitest uiInput click {} {}", crash.0, crash.1));
    let listing = sh(&s, "ls /data/log/faultlog/faultlogger/");
    let name = listing.lines().next().expect("a crash file");
    assert!(name.starts_with("jscrash-com.tapflow.demo-"), "{name}");
    let body = sh(&s, &format!("cat /data/log/faultlog/faultlogger/{name}"));
    assert!(body.contains("Module name:com.tapflow.demo"), "{body}");
    let long = sh(&s, "ls -l /data/log/faultlog/faultlogger");
    assert!(long.starts_with("total "));
    assert!(long.contains(&format!(" {name}\n")));
    assert_eq!(
        sh(
            &s,
            "rm /data/log/faultlog/faultlogger/*.log; ls /data/log/faultlog/faultlogger"
        ),
        ""
    );
    assert_eq!(
        sh(&s, "rm /data/x"),
        "rm: /data/x: No such file or directory\n"
    );
    assert_eq!(sh(&s, "rm -f /data/x; echo $?"), "0\n");
    assert_eq!(
        sh(
            &s,
            "echo > /data/local/tmp/d/.hidden; echo > /data/local/tmp/d/shown; ls /data/local/tmp/d; ls -A /data/local/tmp/d"
        ),
        "shown\n.hidden\nshown\n"
    );
    assert_eq!(
        sh(&s, "cat /data/local/tmp"),
        "cat: /data/local/tmp: Is a directory\n"
    );
}
