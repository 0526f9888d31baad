//! The executable mode end to end: `tapflow sim start` in a temp state dir, the generated
//! `bin/hdc` script run as a real process (no environment needed), state kept across hdc
//! processes, streaming `hilog`, `status`/`stop`, and two simulators side by side.

use crate::common::cli;
use crate::common::sim_daemon;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sim_daemon::SimDaemon;

/// A daemon (stopped on drop) and the `hdc` path `sim hdc-path` gives for it.
struct Running {
    daemon: SimDaemon,
    hdc: PathBuf,
}

impl Running {
    fn start(extra: &[&str]) -> Running {
        let daemon = SimDaemon::start(extra);
        let path = cli::tapflow()
            .args(["sim", "hdc-path", "--state-dir"])
            .arg(daemon.dir.path())
            .output()
            .unwrap();
        assert!(path.status.success());
        let hdc = PathBuf::from(String::from_utf8(path.stdout).unwrap().trim());
        assert!(hdc.is_absolute());
        Running { daemon, hdc }
    }

    /// Runs the `hdc` script with an empty environment, like a third-party client might.
    fn hdc(&self, cwd: &Path, args: &[&str]) -> String {
        let out = Command::new(&self.hdc)
            .args(args)
            .current_dir(cwd)
            .env_clear()
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn ctl(&self, sub: &str) -> std::process::Output {
        cli::tapflow()
            .args(["sim", sub, "--state-dir"])
            .arg(self.daemon.dir.path())
            .output()
            .unwrap()
    }
}

#[test]
fn start_use_and_stop() {
    let sim = Running::start(&["--devices", "1", "--seed", "5"]);
    let cwd = tempfile::tempdir().unwrap();
    let targets = sim.hdc(cwd.path(), &["list", "targets"]);
    let key = targets.trim().to_string();
    assert!(
        regex::Regex::new(r"^[A-Z]{3}\d{4}[A-Z]\d{8}$")
            .unwrap()
            .is_match(&key),
        "{targets}"
    );
    assert_eq!(sim.hdc(cwd.path(), &["-v"]), "Ver: 3.1.0e\n");

    // State lives in the daemon: a file written by one hdc process is read by the next.
    let saved = sim.hdc(
        cwd.path(),
        &[
            "-t",
            &key,
            "shell",
            "uitest dumpLayout -p /data/local/tmp/l.json",
        ],
    );
    assert_eq!(saved, "DumpLayout saved to:/data/local/tmp/l.json\n");
    let json = sim.hdc(
        cwd.path(),
        &["-t", &key, "shell", "cat", "/data/local/tmp/l.json"],
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(v["children"].is_array());

    // Host paths are relative to the hdc process's working directory.
    let recv = sim.hdc(
        cwd.path(),
        &["file", "recv", "/data/local/tmp/l.json", "local.json"],
    );
    assert!(recv.starts_with("[I]["), "{recv}");
    assert!(recv.contains("\nFileTransfer finish, Size:"), "{recv}");
    assert_eq!(
        std::fs::read_to_string(cwd.path().join("local.json")).unwrap(),
        json
    );

    let status = sim.ctl("status");
    assert!(status.status.success());
    assert!(String::from_utf8_lossy(&status.stdout).contains(&key));

    // Starting twice in the same state dir fails clearly.
    let again = cli::tapflow()
        .args(["sim", "start", "--state-dir"])
        .arg(sim.daemon.dir.path())
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already running"));

    let stop = sim.ctl("stop");
    assert!(stop.status.success());
    let after = Command::new(&sim.hdc)
        .args(["list", "targets"])
        .output()
        .unwrap();
    assert_eq!(after.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&after.stderr).contains("no simulator is running"));
}

#[test]
fn hilog_streams_until_killed() {
    let sim = Running::start(&[]);
    let mut child = Command::new(&sim.hdc)
        .args(["shell", "hilog"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    // A record produced by another hdc process after the stream started must arrive.
    let cwd = tempfile::tempdir().unwrap();
    assert_eq!(
        sim.hdc(
            cwd.path(),
            &["shell", "aa start -a EntryAbility -b com.tapflow.demo"]
        ),
        "start ability successfully.\n"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seen = false;
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(line) if line.contains("DemoApp: PAGE_SHOWN page=LoginPage") => {
                seen = true;
                break;
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    assert!(seen, "the streamed hilog never showed the new record");
    assert!(
        child.try_wait().unwrap().is_none(),
        "hilog must keep streaming"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    // The daemon is still healthy after the reader vanished.
    assert!(!sim.hdc(cwd.path(), &["list", "targets"]).is_empty());
}

#[test]
fn two_simulators_do_not_interfere() {
    let a = Running::start(&["--devices", "1", "--seed", "1"]);
    let b = Running::start(&["--devices", "2", "--seed", "2"]);
    let cwd = tempfile::tempdir().unwrap();
    let ta = a.hdc(cwd.path(), &["list", "targets"]);
    let tb = b.hdc(cwd.path(), &["list", "targets"]);
    assert_eq!(ta.lines().count(), 1);
    assert_eq!(tb.lines().count(), 2);
    a.hdc(cwd.path(), &["shell", "echo from-a > /data/local/tmp/who"]);
    let kb = tb.lines().next().unwrap();
    assert_eq!(
        b.hdc(cwd.path(), &["-t", kb, "shell", "cat /data/local/tmp/who"]),
        "cat: /data/local/tmp/who: No such file or directory\n"
    );
    assert_eq!(
        a.hdc(cwd.path(), &["shell", "cat /data/local/tmp/who"]),
        "from-a\n"
    );
}

#[test]
fn bad_options_fail_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let out = cli::tapflow()
        .args(["sim", "start", "--faults", "bogus=1", "--state-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown fault `bogus`"));
    let out = cli::tapflow()
        .args(["sim", "status", "--state-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
}

#[test]
fn a_recorded_layout_can_be_shown_at_start() {
    let fixture = format!(
        "{}/tests/fixtures/harmonyos/layout_haptest_logindemo_login_pretty.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let sim = Running::start(&["--layout", &fixture]);
    let cwd = tempfile::tempdir().unwrap();
    let dumped = sim.hdc(
        cwd.path(),
        &[
            "shell",
            "uitest dumpLayout -p /data/local/tmp/r.json >/dev/null && cat /data/local/tmp/r.json",
        ],
    );
    let got: serde_json::Value = serde_json::from_str(&dumped).unwrap();
    let want: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&fixture).unwrap()).unwrap();
    assert_eq!(got, want);
}
