//! Session limits of `tapflow mcp --http` (handshake-era clients, `Mcp-Session-Id`), against
//! the real binary: beyond the cap an `initialize` gets 503 with `Retry-After` until a session
//! ends (DELETE) or idles out; the default cap holds, and what a session costs is measured.
//! Before, sessions were uncapped (the issue's probe: 3 000 sessions, 163 MB).

use crate::http_proc::{INIT, rss_kib, start};

use std::time::{Duration, Instant};

const GUARD: Duration = Duration::from_secs(20);

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(GUARD))
        .build()
        .into()
}

/// An `initialize`: (status, `Mcp-Session-Id`, `Retry-After`).
fn init(url: &str) -> (u16, Option<String>, Option<String>) {
    let r = agent()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .send(INIT)
        .expect("an answer");
    let h = |name: &str| {
        r.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    (r.status().as_u16(), h("mcp-session-id"), h("retry-after"))
}

/// A `tools/list` in session `id`: its status.
fn list_in(url: &str, id: &str) -> u16 {
    agent()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("Mcp-Session-Id", id)
        .header("MCP-Protocol-Version", "2025-11-25")
        .send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
        .expect("an answer")
        .status()
        .as_u16()
}

#[test]
fn sessions_beyond_the_cap_get_503_until_one_ends() {
    let s = start("", &["--http-max-sessions", "2"]);
    let (sa, a, _) = init(&s.url);
    let (sb, b, _) = init(&s.url);
    assert_eq!((sa, sb), (200, 200));
    let (a, b) = (a.expect("a session id"), b.expect("a session id"));
    let (sc, c, retry) = init(&s.url);
    assert_eq!(sc, 503, "a third session is refused");
    assert_eq!(c, None);
    assert_eq!(retry.as_deref(), Some("5"));
    assert_eq!(list_in(&s.url, &b), 200, "live sessions keep working");
    let deleted = agent()
        .delete(&s.url)
        .header("Mcp-Session-Id", &a)
        .call()
        .expect("an answer")
        .status()
        .as_u16();
    assert!((200..300).contains(&deleted), "DELETE: {deleted}");
    let (sd, d, _) = init(&s.url);
    assert_eq!(sd, 200, "the ended session's slot is free");
    assert!(d.is_some());
}

#[test]
fn an_idle_session_expires_and_frees_its_slot() {
    let s = start(
        "",
        &[
            "--http-max-sessions",
            "1",
            "--http-session-idle-timeout",
            "1s",
        ],
    );
    let (sa, a, _) = init(&s.url);
    assert_eq!(sa, 200);
    let a = a.expect("a session id");
    assert_eq!(init(&s.url).0, 503, "the table is full");
    let deadline = Instant::now() + GUARD;
    while init(&s.url).0 != 200 {
        assert!(
            Instant::now() < deadline,
            "the idle session did not expire within {GUARD:?}"
        );
        // The polling interval.
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(list_in(&s.url, &a), 404, "the expired session is gone");
}

#[test]
fn the_default_session_cap_holds_and_what_a_session_costs() {
    let s = start("", &[]);
    let pid = s.child.id();
    let before = rss_kib(pid);
    let started = Instant::now();
    for i in 0..256 {
        let (st, id, _) = init(&s.url);
        assert_eq!(st, 200, "session {i}");
        assert!(id.is_some());
    }
    let took = started.elapsed();
    let after = rss_kib(pid);
    let (st, _, retry) = init(&s.url);
    assert_eq!(st, 503, "the 257th session is refused by default");
    assert!(retry.is_some());
    eprintln!(
        "256 sessions (debug build): {} ms to open, RSS {before} → {after} KiB ({:.1} KiB per session)",
        took.as_millis(),
        after.saturating_sub(before) as f64 / 256.0
    );
}
