//! HTTP security of `tapflow mcp --http` against real requests: a wrong `Host` (DNS rebinding),
//! a foreign `Origin`, a missing or wrong bearer token, and a non-loopback bind without a token
//! are all refused; the legitimate request passes. Loopback only.

use crate::common::cli;
use crate::common::mcp_proc;

use std::process::Command;
use std::time::Duration;

use mcp_proc::{run, start_http};

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"security-test","version":"1"}}}"#;

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

/// POSTs an initialize with these extra headers; the status.
fn post(url: &str, headers: &[(&str, &str)]) -> u16 {
    let mut req = agent()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.send(INIT)
        .expect("the server answers")
        .status()
        .as_u16()
}

#[test]
fn host_and_origin_are_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let s = start_http(&["--sim", "1", "--sim-latency", "none"], tmp.path());
    let port = s.addr.rsplit(':').next().unwrap().to_string();
    assert_eq!(post(&s.url, &[]), 200, "a plain local client is served");
    let evil_host = format!("evil.example:{port}");
    assert_eq!(
        post(&s.url, &[("Host", &evil_host)]),
        403,
        "DNS rebinding: wrong Host"
    );
    let other_port = format!("127.0.0.1:{}", port.parse::<u16>().unwrap().wrapping_add(1));
    assert_eq!(
        post(&s.url, &[("Host", &other_port)]),
        403,
        "Host of another port"
    );
    assert_eq!(
        post(&s.url, &[("Origin", "http://evil.example")]),
        403,
        "foreign Origin"
    );
    let other_origin = format!(
        "http://localhost:{}",
        port.parse::<u16>().unwrap().wrapping_add(1)
    );
    assert_eq!(
        post(&s.url, &[("Origin", &other_origin)]),
        403,
        "another local port's page"
    );
    assert_eq!(post(&s.url, &[("Origin", "null")]), 403, "sandboxed page");
    let own = format!("http://localhost:{port}");
    assert_eq!(
        post(&s.url, &[("Origin", &own)]),
        200,
        "the server's own origin"
    );
}

#[test]
fn a_token_is_required_when_configured() {
    let tmp = tempfile::tempdir().unwrap();
    let token = tmp.path().join("token");
    std::fs::write(&token, "correct-horse\n").unwrap();
    let s = start_http(
        &[
            "--sim",
            "1",
            "--sim-latency",
            "none",
            "--token-file",
            token.to_str().unwrap(),
        ],
        tmp.path(),
    );
    assert_eq!(post(&s.url, &[]), 401, "missing token");
    assert_eq!(
        post(&s.url, &[("Authorization", "Bearer wrong")]),
        401,
        "wrong token"
    );
    assert_eq!(
        post(&s.url, &[("Authorization", "Basic Y29ycmVjdC1ob3JzZQ==")]),
        401
    );
    assert_eq!(
        post(&s.url, &[("Authorization", "Bearer correct-horse")]),
        200
    );
    // The token does not replace the Host check.
    assert_eq!(
        post(
            &s.url,
            &[
                ("Authorization", "Bearer correct-horse"),
                ("Host", "evil.example")
            ]
        ),
        403
    );
}

#[test]
fn a_non_loopback_bind_without_a_token_is_refused() {
    for addr in ["0.0.0.0:0", "[::]:0"] {
        let (ok, out, err) = run(
            Command::new(cli::bin()).args(["mcp", "--http", addr, "--sim", "1"]),
            Duration::from_secs(60),
        );
        assert!(!ok, "{addr} must be refused:\n{out}{err}");
        assert!(
            err.contains("refusing to serve MCP") && err.contains("--token-file"),
            "{err}"
        );
    }
    // An empty token file does not count as a token.
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    std::fs::write(&empty, "\n").unwrap();
    let (ok, _, err) = run(
        Command::new(cli::bin())
            .args(["mcp", "--http", "0.0.0.0:0", "--token-file"])
            .arg(&empty),
        Duration::from_secs(60),
    );
    assert!(!ok && err.contains("token file is empty"), "{err}");
}
