//! The private adb server of `--platform android` (docs/android.md, "Starting it") is stopped
//! on every exit path of the real binary: a run that passes, one that fails, one or three
//! Ctrl-C, SIGTERM, SIGKILL of tapflow itself (the server asks the kernel to kill it with its
//! parent), and SIGTERM of `tapflow mcp --platform android`. The server is found through /proc
//! while tapflow runs (an adb server process with the test's own `HOME`); afterwards neither a
//! live process nor a listener on its port may remain. Every wait polls against a deadline (a
//! hang guard).

use crate::common::adb_env;
use crate::common::cli;

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const HANG_GUARD: Duration = Duration::from_secs(60);
const POLL: Duration = Duration::from_millis(10);

/// A private adb server seen running: its process and its port.
#[derive(Debug, Clone, Copy)]
struct Server {
    pid: u32,
    port: u16,
}

/// The state letter of a process, from /proc/PID/stat (after its name, which may hold spaces).
fn state(pid: u32) -> Option<char> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    s[s.rfind(')')? + 2..].chars().next()
}

/// The adb server started for a tapflow process whose `HOME` is `home` (each test has its
/// own), however it was started (`adb -P PORT nodaemon server`, or a daemon a client forked:
/// `adb -L tcp:PORT fork-server server`), if one runs.
fn server_of(home: &Path) -> Option<Server> {
    let want = format!("HOME={}", home.display());
    for e in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let words = |file: &str| -> Vec<String> {
            std::fs::read(format!("/proc/{pid}/{file}"))
                .unwrap_or_default()
                .split(|b| *b == 0)
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect()
        };
        let args = words("cmdline");
        let is_adb = args
            .first()
            .is_some_and(|a| Path::new(a).file_name().is_some_and(|n| n == "adb"));
        if !is_adb || !args.iter().any(|a| a == "server") || dead(pid) {
            continue;
        }
        if !words("environ").contains(&want) {
            continue;
        }
        let port = args.windows(2).find_map(|w| match w[0].as_str() {
            "-P" => w[1].parse().ok(),
            "-L" => w[1].rsplit(':').next()?.parse().ok(),
            _ => None,
        })?;
        return Some(Server { pid, port });
    }
    None
}

/// Polls until the tapflow process `child` (run with `HOME=home`) has its private adb server.
fn wait_for_server(child: &mut Child, home: &Path) -> Server {
    let deadline = Instant::now() + HANG_GUARD;
    loop {
        if let Some(s) = server_of(home) {
            return s;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("tapflow exited ({status}) before its adb server was seen");
        }
        assert!(Instant::now() < deadline, "no private adb server appeared");
        std::thread::sleep(POLL);
    }
}

/// Dead: no such process, or a zombie (ended, not reaped yet by whoever adopted it).
fn dead(pid: u32) -> bool {
    state(pid).is_none_or(|s| s == 'Z' || s == 'X')
}

fn listening(port: u16) -> bool {
    TcpStream::connect_timeout(&SocketAddr::from(([127, 0, 0, 1], port)), POLL).is_ok()
}

/// Polls until the server has ended and its port no longer accepts connections.
fn assert_gone(s: Server, path: &str) {
    let deadline = Instant::now() + HANG_GUARD;
    while !dead(s.pid) || listening(s.port) {
        assert!(
            Instant::now() < deadline,
            "{path}: the private adb server {s:?} is still running"
        );
        std::thread::sleep(POLL);
    }
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on the pid of a child this test spawned and has not reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
}

const LONG: &str = "name: Long wait
app: com.tapflow.demo
finally:
  - stop_app: com.tapflow.demo
steps:
  - run_app: com.tapflow.demo
  - wait_for_element: {text: Never shown, timeout_ms: 60000}
";

const PASSES: &str = "name: Passes
app: com.tapflow.demo
steps:
  - run_app: com.tapflow.demo
  - wait_for_element: {element_id: login, timeout_ms: 20000}
";

const FAILS: &str = "name: Fails
app: com.tapflow.demo
steps:
  - run_app: com.tapflow.demo
  - assert_visible: {text: Never shown, timeout_ms: 300}
";

struct RunDirs {
    home: tempfile::TempDir,
    root: tempfile::TempDir,
}

impl RunDirs {
    fn new(flow: &str) -> RunDirs {
        let d = RunDirs {
            home: tempfile::tempdir().unwrap(),
            root: tempfile::tempdir().unwrap(),
        };
        std::fs::write(d.root.path().join("flow.yaml"), flow).unwrap();
        d
    }

    fn report(&self) -> std::path::PathBuf {
        self.root.path().join("report")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = cli::android(self.home.path(), self.root.path(), &adb_env::adb_path());
        c.args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    fn run(&self) -> Child {
        self.command(&["run", "flow.yaml", "--sim", "1", "--platform", "android"])
            .args(["--sim-latency", "none", "--no-progress", "--report-dir"])
            .arg(self.report())
            .spawn()
            .unwrap()
    }
}

/// Polls `result.json` until the first step of the first flow passed (the long wait runs).
fn wait_for_long_wait(report: &Path, child: &mut Child) {
    let deadline = Instant::now() + HANG_GUARD;
    let result = report.join("result.json");
    loop {
        let passed = std::fs::read_to_string(&result)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .is_some_and(|r| r["flows"][0]["steps"][0]["status"] == "passed");
        if passed {
            return;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("tapflow exited ({status}) before its long wait");
        }
        assert!(Instant::now() < deadline, "the long wait never started");
        std::thread::sleep(POLL);
    }
}

fn finish(child: Child) -> (Option<i32>, String) {
    let out = child.wait_with_output().unwrap();
    (out.status.code(), cli::text(&out))
}

#[test]
fn a_run_that_passes_or_fails_stops_its_adb_server() {
    for (flow, code) in [(PASSES, 0), (FAILS, 1)] {
        let dirs = RunDirs::new(flow);
        let mut child = dirs.run();
        let server = wait_for_server(&mut child, dirs.home.path());
        let (got, all) = finish(child);
        assert_eq!(got, Some(code), "{all}");
        assert_gone(server, &format!("exit {code}"));
    }
}

/// One Ctrl-C: hooks, reports, exit 130. Three: exit at once (the kernel ends the server).
/// Each press after the first is sent once the previous one was acknowledged on stderr (a
/// signal sent while the same one is still pending would be merged with it).
#[test]
fn ctrl_c_once_or_three_times_stops_the_adb_server() {
    for presses in [1, 3] {
        let dirs = RunDirs::new(LONG);
        let mut child = dirs.run();
        let server = wait_for_server(&mut child, dirs.home.path());
        wait_for_long_wait(&dirs.report(), &mut child);
        let lines = stderr_lines(&mut child);
        signal(&child, libc::SIGINT);
        if presses == 3 {
            wait_line(&lines, "interrupted: stopping after cleanup");
            signal(&child, libc::SIGINT);
            wait_line(&lines, "interrupted again");
            signal(&child, libc::SIGINT);
        }
        let (code, all) = finish(child);
        assert_eq!(code, Some(130), "{presses}: {all}");
        assert_gone(server, &format!("Ctrl-C x{presses}"));
    }
}

/// The child's stderr, line by line, as it comes.
fn stderr_lines(child: &mut Child) -> std::sync::mpsc::Receiver<String> {
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Waits (hang guard) for a line containing `text`.
fn wait_line(lines: &std::sync::mpsc::Receiver<String>, text: &str) {
    let deadline = Instant::now() + HANG_GUARD;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(l) if l.contains(text) => return,
            Ok(_) => {}
            Err(e) => panic!("no line with {text:?} ({e})"),
        }
    }
}

/// Seen: SIGTERM ended the run at once: no `finally` hook, `result.json` still `running`, and
/// the private adb server left running. It is handled as a first Ctrl-C: the hook runs, the
/// reports are written, the server is stopped, exit 143.
#[test]
fn sigterm_runs_finally_writes_the_result_stops_the_adb_server_and_exits_143() {
    let dirs = RunDirs::new(LONG);
    let mut child = dirs.run();
    let server = wait_for_server(&mut child, dirs.home.path());
    wait_for_long_wait(&dirs.report(), &mut child);
    signal(&child, libc::SIGTERM);
    let (code, all) = finish(child);
    assert_eq!(code, Some(143), "{all}");
    let r = cli::result(&dirs.report());
    assert_eq!(r["status"], "interrupted", "{all}");
    assert_eq!(r["complete"], true);
    assert_eq!(r["flows"][0]["finally"][0]["status"], "passed", "{all}");
    assert!(dirs.report().join("junit.xml").is_file());
    assert_gone(server, "SIGTERM");
}

/// SIGKILL leaves tapflow no chance to stop anything: the server dies with its parent.
#[test]
fn sigkill_of_tapflow_takes_its_adb_server_along() {
    let dirs = RunDirs::new(LONG);
    let mut child = dirs.run();
    let server = wait_for_server(&mut child, dirs.home.path());
    wait_for_long_wait(&dirs.report(), &mut child);
    signal(&child, libc::SIGKILL);
    let (code, _) = finish(child);
    assert_eq!(code, None, "killed by the signal");
    assert_gone(server, "SIGKILL");
}

/// Seen: SIGTERM of `tapflow mcp --platform android` left its adb server running. The server
/// stops serving on SIGTERM and cleans up (exit 0, as after Ctrl-C).
#[test]
fn sigterm_of_the_mcp_server_stops_its_adb_server() {
    let dirs = RunDirs::new(PASSES);
    let mut child = dirs
        .command(&["mcp", "--sim", "1", "--platform", "android"])
        .args(["--sim-latency", "none"])
        // The client's end stays open: the server waits for requests.
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let server = wait_for_server(&mut child, dirs.home.path());
    // Serving (an answer to `initialize`) means the signal handlers are in place.
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"test","version":"1"}}}}}}"#
    )
    .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let answer = rx
        .recv_timeout(HANG_GUARD)
        .expect("an answer to initialize");
    assert!(answer.contains("\"result\""), "{answer}");
    signal(&child, libc::SIGTERM);
    let (code, all) = finish(child);
    assert_eq!(code, Some(0), "{all}");
    assert_gone(server, "mcp SIGTERM");
    drop(stdin);
}
