//! 2 000 idle connections against `tapflow mcp --http`, started with a soft open-file limit of
//! 1 024 (the server): while they are all held, the official Python SDK still connects
//! and completes a `tools/call`, as a handshake-era and as a 2026-07-28 client
//! (tests/mcp/idle_load_check.py; 10 s each at most, a hang guard, not a target). Before, the
//! server's `accept` ran out of descriptors after about 1 000 connections and every later
//! client waited unanswered. The latencies, the time to open the connections and the server's
//! memory per idle connection are printed (measured, not asserted; docs/benchmarks.md).

use crate::common::mcp_proc::{python, repo, run};
use crate::http_proc::{is_closed_now, raise_own_nofile, rss_kib, start};

use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

const IDLE: usize = 2000;

/// The server's open descriptors (Linux; `None` elsewhere).
fn open_fds(pid: u32) -> Option<usize> {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .ok()
        .map(|d| d.count())
}

#[test]
fn a_client_is_served_while_two_thousand_idle_connections_are_held() {
    let hard = raise_own_nofile();
    assert!(
        hard >= 4096,
        "this test holds {IDLE} connections in each of two processes: raise the open-file hard limit (ulimit -Hn) to 4096 or more; it is {hard}"
    );
    // Idle connections are not timed out during the test: the load stays for the whole call.
    let s = start("-Sn 1024", &["--http-header-timeout", "120s"]);
    let pid = s.child.id();
    let base_fds = open_fds(pid);
    let rss_before = rss_kib(pid);
    let started = Instant::now();
    let addr: SocketAddr = s.addr.parse().unwrap();
    let idle: Vec<TcpStream> = (0..IDLE)
        .map(|i| {
            TcpStream::connect_timeout(&addr, Duration::from_secs(10)).unwrap_or_else(|e| {
                panic!("connection {i}: {e} (the server stopped accepting connections)")
            })
        })
        .collect();
    let connected = started.elapsed();
    // Wait until the server has accepted them all (Linux: its descriptor count).
    if let Some(base) = base_fds {
        let deadline = Instant::now() + Duration::from_secs(60);
        while open_fds(pid).unwrap_or(0) < base + IDLE {
            assert!(
                Instant::now() < deadline,
                "the server accepted {} of {IDLE} connections",
                open_fds(pid).unwrap_or(0).saturating_sub(base)
            );
            // The polling interval.
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    let accepted = started.elapsed();
    let rss_idle = rss_kib(pid);
    let (ok, out, err) = run(
        Command::new(python("2.3"))
            .arg(repo().join("tests/mcp/idle_load_check.py"))
            .args([s.url.as_str(), "10"]),
        Duration::from_secs(120),
    );
    assert!(ok, "the client was not served under load:\n{err}\n{out}");
    let facts: serde_json::Value =
        serde_json::from_str(out.lines().last().unwrap_or("")).expect("a facts line");
    // The load was there throughout: no idle connection was closed.
    let still_open = idle.iter().filter(|c| !is_closed_now(c)).count();
    assert_eq!(still_open, IDLE, "idle connections closed during the call");
    eprintln!(
        "{IDLE} idle connections (debug build): connected in {} ms, all accepted after {} ms; server RSS {rss_before} → {rss_idle} KiB ({:.1} KiB per idle connection); Python SDK under that load: {facts}",
        connected.as_millis(),
        accepted.as_millis(),
        rss_idle.saturating_sub(rss_before) as f64 / IDLE as f64
    );
}
