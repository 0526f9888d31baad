//! What the HTTP limit tests share: `tapflow mcp --http` started under a given open-file limit
//! (through `sh`'s `ulimit`, then `exec`, so the pid is the server's), raw HTTP/1.1 exchanges
//! over a TCP socket (for what an HTTP client library will not send: duplicate or empty
//! `Host`, absolute-URI request lines, silence), and the server's resident memory.

use crate::common::{cli, mcp_proc};

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub use mcp_proc::HttpServer;

/// Starts `tapflow mcp --http 127.0.0.1:0 --sim 1 --sim-latency none ARGS…` after running
/// `ulimit` with `ulimit_args` (e.g. `-Sn 1024`; empty: unchanged) in the shell that execs it.
pub fn start(ulimit_args: &str, args: &[&str]) -> HttpServer {
    let script = if ulimit_args.is_empty() {
        "exec \"$0\" \"$@\"".to_string()
    } else {
        format!("ulimit {ulimit_args} && exec \"$0\" \"$@\"")
    };
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(cli::bin())
        .args([
            "mcp",
            "--http",
            "127.0.0.1:0",
            "--sim",
            "1",
            "--sim-latency",
            "none",
        ])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh starts tapflow mcp");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut sent = false;
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            match line.strip_prefix("tapflow mcp: listening on ") {
                Some(url) if !sent => {
                    let _ = tx.send(url.trim().to_string());
                    sent = true;
                }
                _ => eprintln!("[tapflow mcp] {line}"),
            }
        }
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(url) => {
            let addr = url
                .trim_start_matches("http://")
                .trim_end_matches("/mcp")
                .to_string();
            HttpServer { child, url, addr }
        }
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("tapflow mcp --http did not report its address ({e}); its stderr is above");
        }
    }
}

/// The port of `addr` (`127.0.0.1:PORT`).
pub fn port(addr: &str) -> u16 {
    addr.rsplit(':').next().unwrap().parse().unwrap()
}

/// Sends `request` on a new connection and reads until the server closes it (hang guard 30 s);
/// the whole response as text (empty if the server closed the connection unanswered).
pub fn exchange(addr: &str, request: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    // A server that answers early (413) may close before taking all of it; its answer counts.
    let _ = s.write_all(request);
    let mut out = Vec::new();
    match s.read_to_end(&mut out) {
        Ok(_) => {}
        Err(e) if e.kind() == ErrorKind::ConnectionReset => {}
        Err(e) => panic!(
            "no complete answer to {:?}: {e}",
            String::from_utf8_lossy(request)
        ),
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The status code of a raw response.
pub fn status(response: &str) -> u16 {
    response
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {response:?}"))
}

/// The body of a raw response with `content-length`.
pub fn body(response: &str) -> &str {
    response.split_once("\r\n\r\n").map_or("", |(_, b)| b)
}

/// Waits (up to `guard`) for the server to close `s`: `Some(what it sent before closing)` if
/// it did (end of stream or a reset), `None` if the guard ran out with the connection open.
pub fn closed_within(s: &mut TcpStream, guard: Duration) -> Option<String> {
    let deadline = Instant::now() + guard;
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        s.set_read_timeout(Some(left)).unwrap();
        match s.read(&mut buf) {
            Ok(0) => return Some(String::from_utf8_lossy(&got).into_owned()),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return None;
            }
            Err(_) => return Some(String::from_utf8_lossy(&got).into_owned()),
        }
    }
}

/// Whether the server has closed `s` already (checked without waiting).
pub fn is_closed_now(s: &TcpStream) -> bool {
    s.set_nonblocking(true).unwrap();
    let mut b = [0u8; 1];
    let closed = match s.peek(&mut b) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => e.kind() != ErrorKind::WouldBlock,
    };
    s.set_nonblocking(false).unwrap();
    closed
}

/// Resident memory of process `pid` in KiB (Linux: /proc; elsewhere: `ps`).
pub fn rss_kib(pid: u32) -> u64 {
    if let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
        return status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS in /proc/PID/status");
    }
    let out = Command::new("ps")
        .args(["-o", "rss=", "-p", &pid.to_string()])
        .output()
        .expect("ps runs");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("ps prints the RSS")
}

/// Raises this test process's soft open-file limit to its hard limit; the hard limit.
pub fn raise_own_nofile() -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit read or write the struct they are given, alive for the call.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim), 0);
        lim.rlim_cur = lim.rlim_max;
        // macOS refuses a soft limit above OPEN_MAX.
        #[cfg(target_os = "macos")]
        {
            lim.rlim_cur = lim.rlim_cur.min(10_240);
        }
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &lim), 0);
    }
    // rlim_t is u64 on Linux and macOS, not on every Unix.
    #[allow(clippy::unnecessary_cast)]
    let hard = lim.rlim_cur as u64;
    hard
}

/// A JSON POST of `body` to `/mcp` with `host_lines` as its `Host` header lines, on a
/// connection the server closes after answering.
pub fn post(target: &str, host_lines: &[&str], body: &str) -> Vec<u8> {
    let mut r = format!("POST {target} HTTP/1.1\r\n");
    for h in host_lines {
        r.push_str(&format!("Host: {h}\r\n"));
    }
    r.push_str(&format!(
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    ));
    r.into_bytes()
}

/// The `initialize` of a handshake-era client.
pub const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"limits-test","version":"1"}}}"#;
