//! Connection-level limits of `tapflow mcp --http`, against the real binary over raw sockets:
//! the header timeout closes a silent, a slow and an idle keep-alive connection before any
//! token is checked; connections beyond the cap get 503 with `Retry-After` at once; the cap
//! stays below the process's open-file limit, so a flood of idle connections (the issue's
//! 1 100 against a limit of 1 024) meets refusals instead of a server that cannot `accept`.

use crate::http_proc::{
    INIT, body, closed_within, exchange, is_closed_now, port, post, raise_own_nofile, start, status,
};

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{cli, mcp_proc};

/// Far longer than any timeout configured below: only a hang reaches it.
const GUARD: Duration = Duration::from_secs(20);

fn retry_after(response: &str) -> Option<&str> {
    response
        .lines()
        .take_while(|l| !l.is_empty())
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("retry-after").then(|| v.trim())
        })
}

#[test]
fn silent_slow_and_idle_connections_are_closed_before_authentication() {
    let tmp = tempfile::tempdir().unwrap();
    let token = tmp.path().join("token");
    std::fs::write(&token, "s3cret\n").unwrap();
    let s = start(
        "",
        &[
            "--token-file",
            token.to_str().unwrap(),
            "--http-header-timeout",
            "1s",
        ],
    );
    let own = format!("127.0.0.1:{}", port(&s.addr));
    // Connects and sends nothing.
    let mut silent = TcpStream::connect(&s.addr).unwrap();
    // Sends a request head one header line every 200 ms, never ending it.
    let mut slow = TcpStream::connect(&s.addr).unwrap();
    let mut writer = slow.try_clone().unwrap();
    let trickle = std::thread::spawn(move || {
        let deadline = Instant::now() + GUARD;
        let mut line = b"POST /mcp HTTP/1.1\r\n".to_vec();
        let mut i = 0;
        while Instant::now() < deadline && writer.write_all(&line).is_ok() {
            // The pace of a slow client, not a wait for the server.
            std::thread::sleep(Duration::from_millis(200));
            i += 1;
            line = format!("X-Slow-{i}: x\r\n").into_bytes();
        }
    });
    // Gets an answer (401: no token), then leaves the keep-alive connection idle.
    let mut idle = TcpStream::connect(&s.addr).unwrap();
    write!(idle, "GET /mcp HTTP/1.1\r\nHost: {own}\r\n\r\n").unwrap();

    assert!(
        closed_within(&mut silent, GUARD).is_some(),
        "a connection that sends nothing must be closed"
    );
    assert!(
        closed_within(&mut slow, GUARD).is_some(),
        "a connection that sends its headers slowly must be closed"
    );
    let answered =
        closed_within(&mut idle, GUARD).expect("an idle keep-alive connection must be closed");
    assert_eq!(status(&answered), 401, "{answered}");
    trickle.join().unwrap();
    // A client that sends its request in time is served as before.
    let r = ureq_post(&s.url, Some("s3cret"));
    assert_eq!(r, 200);
}

fn ureq_post(url: &str, token: Option<&str>) -> u16 {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(GUARD))
        .build()
        .into();
    let mut req = agent
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream");
    if let Some(t) = token {
        req = req.header("Authorization", &format!("Bearer {t}"));
    }
    req.send(INIT).expect("an answer").status().as_u16()
}

#[test]
fn connections_beyond_the_cap_get_503_with_retry_after() {
    let s = start(
        "",
        &["--http-max-connections", "4", "--http-header-timeout", "3s"],
    );
    let own = format!("127.0.0.1:{}", port(&s.addr));
    let mut idle: Vec<TcpStream> = (0..4)
        .map(|_| TcpStream::connect(&s.addr).unwrap())
        .collect();
    // The kernel hands connections to `accept` in order: the four idle ones hold the slots.
    let r = exchange(&s.addr, &post("/mcp", &[&own], INIT));
    assert_eq!(status(&r), 503, "{r}");
    assert_eq!(retry_after(&r), Some("3"), "{r}");
    assert!(body(&r).contains("maximum of 4 connections"), "{r}");
    assert!(
        idle.iter().all(|c| !is_closed_now(c)),
        "the refusal closes no held connection"
    );
    for c in &mut idle {
        assert!(
            closed_within(c, GUARD).is_some(),
            "idle connections time out"
        );
    }
    let r = exchange(&s.addr, &post("/mcp", &[&own], INIT));
    assert_eq!(status(&r), 200, "slots free again:\n{r}");
}

#[test]
fn the_connection_cap_stays_below_the_open_file_limit() {
    let hard = raise_own_nofile();
    assert!(
        hard >= 2048,
        "this test holds 1 100 connections: raise the open-file hard limit (ulimit -Hn) to 2048 or more; it is {hard}"
    );
    // The scenario: a server limited to 1 024 files, 1 100 idle connections. Before,
    // `accept` failed with EMFILE and every later client waited in the backlog unanswered.
    let s = start("-n 1024", &["--http-header-timeout", "10s"]);
    let own = format!("127.0.0.1:{}", port(&s.addr));
    let addr: SocketAddr = s.addr.parse().unwrap();
    let mut idle: Vec<TcpStream> = (0..1100)
        .map(|i| {
            TcpStream::connect_timeout(&addr, GUARD).unwrap_or_else(|e| {
                panic!("connection {i}: {e} (the server stopped accepting connections)")
            })
        })
        .collect();
    // The cap is 1 024 − 256 kept − 32 refusal slots: the first 736 (accepted in order) are
    // held; the rest are refused (503 after a 2 s read, or closed at once when all refusal
    // slots are busy) long before the 10 s header timeout.
    let cap = 736;
    for c in &mut idle[cap..] {
        assert!(
            closed_within(c, GUARD).is_some(),
            "connections beyond the cap are closed"
        );
    }
    assert!(
        idle[..cap].iter().all(|c| !is_closed_now(c)),
        "the first {cap} are held"
    );
    let refused = exchange(&s.addr, &post("/mcp", &[&own], INIT));
    assert_eq!(status(&refused), 503, "{refused}");
    assert!(
        body(&refused).contains("maximum of 736 connections"),
        "{refused}"
    );
    assert_eq!(retry_after(&refused), Some("10"), "{refused}");
    // Once the idle connections have timed out, clients are served again.
    for c in &mut idle[..cap] {
        assert!(
            closed_within(c, GUARD).is_some(),
            "idle connections time out"
        );
    }
    let r = exchange(&s.addr, &post("/mcp", &[&own], INIT));
    assert_eq!(status(&r), 200, "{r}");
    // A cap the limit cannot hold is refused at start-up, with what to do.
    let (ok, _, err) = mcp_proc::run(
        Command::new("sh")
            .arg("-c")
            .arg("ulimit -n 1024 && exec \"$0\" \"$@\"")
            .arg(cli::bin())
            .args([
                "mcp",
                "--http",
                "127.0.0.1:0",
                "--http-max-connections",
                "2000",
            ]),
        Duration::from_secs(60),
    );
    assert!(!ok, "{err}");
    assert!(
        err.contains("--http-max-connections 2000") && err.contains("ulimit -n"),
        "{err}"
    );
}
