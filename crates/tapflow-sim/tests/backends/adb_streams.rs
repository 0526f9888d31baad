//! The simulated Android device's streaming programs through the real `adb` client (issue 26):
//! `adb shell logcat -v time --pid N` streams new entries until the client is killed, and
//! `adb shell screenrecord FILE` records until the client goes away, then leaves the MP4 on the
//! device. Deadlines are wall-clock hang guards, never timings.

use crate::common::adb_env;

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use adb_env::AdbEnv;
use tapflow_sim::Latency;
use tapflow_sim::android::{AndroidFarm, FarmOptions};

const GUARD: Duration = Duration::from_secs(30);

fn farm() -> AndroidFarm {
    AndroidFarm::start(&FarmOptions {
        devices: 1,
        latency: Latency::None,
        seed: 5,
        ..Default::default()
    })
    .expect("start the simulated device")
}

#[test]
fn logcat_streams_new_entries_until_the_client_is_killed() {
    let f = farm();
    let env = AdbEnv::start();
    let addr = &f.addresses()[0];
    env.connect(addr);
    let mut child = env
        .command(&["-s", addr, "shell", "logcat", "-v", "time"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn adb logcat");
    let (tx, rx) = mpsc::channel();
    let out = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    // The snapshot first, then what happens while the stream is open: the demo starts.
    let first = rx.recv_timeout(GUARD).expect("logcat prints the buffer");
    assert!(first.starts_with("--------- beginning of "), "{first}");
    env.on(
        addr,
        &["shell", "am start -n com.tapflow.demo/.EntryAbility"],
    );
    let deadline = Instant::now() + GUARD;
    let mut seen = Vec::new();
    let time_line = regex::Regex::new(r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} [VDIWEF]/").unwrap();
    let started = loop {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(l) => {
                assert!(
                    l.starts_with("---------") || time_line.is_match(&l),
                    "time format: {l}"
                );
                if l.contains("PAGE_SHOWN page=LoginPage") {
                    break l;
                }
                seen.push(l);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                panic!("logcat ended by itself: {seen:#?}")
            }
        }
        assert!(
            Instant::now() < deadline,
            "no new entry streamed: {seen:#?}"
        );
    };
    assert!(started.contains(" I/"), "{started}");
    assert!(
        child.try_wait().unwrap().is_none(),
        "logcat without -d keeps running"
    );
    let _ = child.kill();
    let _ = child.wait();
    // The device is free again: the stream ended with its client.
    let out = env.on(addr, &["shell", "echo after"]);
    assert_eq!(out.text(), "after\n");
    // `--pid N` (a space, not `=`) keeps the demo's entries only.
    let pid = env.on(addr, &["shell", "pidof com.tapflow.demo"]).text();
    let pid = pid.trim();
    let out = env.on(addr, &["shell", "logcat", "-d", "-v", "time", "--pid", pid]);
    assert_eq!(out.status, Some(0), "{}", out.stderr);
    let text = out.text();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with("-----")).collect();
    assert!(!lines.is_empty(), "{text}");
    for l in lines {
        assert!(l.contains(&format!("({pid:>5}): ")), "only pid {pid}: {l}");
    }
}

#[test]
fn screenrecord_records_until_the_client_goes_away() {
    let f = farm();
    let env = AdbEnv::start();
    let addr = &f.addresses()[0];
    env.connect(addr);
    let mut child = env
        .command(&["-s", addr, "shell", "screenrecord", "/sdcard/rec.mp4"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn adb screenrecord");
    // The screen changes while it records.
    env.on(
        addr,
        &["shell", "am start -n com.tapflow.demo/.EntryAbility"],
    );
    let out = env.on(addr, &["shell", "test -e /sdcard/rec.mp4; echo $?"]);
    assert_eq!(
        out.text(),
        "1\n",
        "nothing is written before the recording ends"
    );
    assert!(
        child.try_wait().unwrap().is_none(),
        "screenrecord runs until killed"
    );
    let _ = child.kill();
    let _ = child.wait();
    let deadline = Instant::now() + GUARD;
    let size = loop {
        let out = env.on(addr, &["shell", "stat -c %s /sdcard/rec.mp4"]);
        if out.status == Some(0) {
            break out.text().trim().parse::<u64>().unwrap();
        }
        assert!(
            Instant::now() < deadline,
            "no recording after the client went away"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(size > 1000, "an MP4 of the recorded frames: {size} bytes");
    let local = tempfile::tempdir().unwrap();
    let dst = local.path().join("rec.mp4");
    let out = env.on(addr, &["pull", "/sdcard/rec.mp4", dst.to_str().unwrap()]);
    assert_eq!(out.status, Some(0), "{}", out.stderr);
    let bytes = std::fs::read(&dst).unwrap();
    assert_eq!(&bytes[4..8], b"ftyp", "an MP4 file");
}
