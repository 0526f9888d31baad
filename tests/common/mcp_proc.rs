//! `tapflow mcp` as a real process for the tests that drive it with real clients (Python SDKs,
//! the MCP Inspector, raw HTTP): start it on a free loopback port, find the test dependencies
//! installed by `scripts/test-deps.d/` (a missing one fails the test and names its script).

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Python of the venv with PyPI `mcp` VERSION (1.26 or 2.3).
pub fn python(version: &str) -> PathBuf {
    let p = repo().join(format!(".test-deps/mcp-py-{version}/bin/python"));
    assert!(
        p.exists(),
        "{} is missing: run scripts/test-deps.d/30-mcp-python.sh (or scripts/test, which runs every install script)",
        p.display()
    );
    p
}

/// The MCP Inspector CLI's entry point (run with node).
pub fn inspector() -> PathBuf {
    let p = repo().join(
        ".test-deps/mcp-inspector/node_modules/@modelcontextprotocol/inspector/cli/build/cli.js",
    );
    let bin = repo().join(".test-deps/mcp-inspector/node_modules/.bin/mcp-inspector");
    assert!(
        bin.exists(),
        "{} is missing: run scripts/test-deps.d/40-mcp-inspector.sh (or scripts/test)",
        bin.display()
    );
    let _ = p;
    bin
}

/// A running `tapflow mcp --http`; killed when dropped.
pub struct HttpServer {
    pub child: Child,
    pub url: String,
    pub addr: String,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `tapflow mcp --http 127.0.0.1:0 ARGS…` and waits (hang guard 60 s) for its
/// "listening on" line.
pub fn start_http(args: &[&str], cwd: &Path) -> HttpServer {
    let mut child = Command::new(super::cli::bin())
        .args(["mcp", "--http", "127.0.0.1:0"])
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tapflow mcp starts");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut sent = false;
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if !sent && let Some(url) = line.strip_prefix("tapflow mcp: listening on ") {
                let _ = tx.send(Ok(url.trim().to_string()));
                sent = true;
            } else if !sent {
                let _ = tx.send(Err(line));
            } else {
                eprintln!("[tapflow mcp] {line}");
            }
        }
    });
    loop {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(Ok(url)) => {
                let addr = url
                    .trim_start_matches("http://")
                    .trim_end_matches("/mcp")
                    .to_string();
                return HttpServer { child, url, addr };
            }
            Ok(Err(line)) => eprintln!("[tapflow mcp] {line}"),
            Err(e) => {
                let _ = child.kill();
                panic!("tapflow mcp --http did not report its address: {e}");
            }
        }
    }
}

/// Runs a command to completion with a hang guard; (status ok, stdout, stderr).
pub fn run(cmd: &mut Command, guard: Duration) -> (bool, String, String) {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    let out = child.stdout.take().unwrap();
    let err = child.stderr.take().unwrap();
    let o = std::thread::spawn(move || std::io::read_to_string(out).unwrap_or_default());
    let e = std::thread::spawn(move || std::io::read_to_string(err).unwrap_or_default());
    let status = match wait_timeout::ChildExt::wait_timeout(&mut child, guard).unwrap() {
        Some(s) => s,
        None => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} hung (guard {guard:?})");
        }
    };
    (status.success(), o.join().unwrap(), e.join().unwrap())
}
