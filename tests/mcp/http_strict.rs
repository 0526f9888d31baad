//! Strict parsing of what reaches `tapflow mcp --http`, over raw sockets (an HTTP library would
//! not send most of these): the `Host` header must appear exactly once and be an authority
//! only; the request target must be a path; a body that is not JSON gets a JSON-RPC parse
//! error. Each case was accepted before (the probe: an empty `Host`,
//! `evil.com@127.0.0.1:P`, a duplicate `Host` and an absolute-URI request line got 200, and a
//! parse error got HTTP 415).

use crate::http_proc::{INIT, body, exchange, port, post, start, status};

#[test]
fn the_request_line_and_host_header_are_parsed_strictly() {
    let s = start("", &[]);
    let own = format!("127.0.0.1:{}", port(&s.addr));
    let ok = exchange(&s.addr, &post("/mcp", &[&own], INIT));
    assert_eq!(status(&ok), 200, "the well-formed request is served:\n{ok}");
    let userinfo = format!("evil.com@{own}");
    let absolute = format!("http://{own}/mcp");
    let cases: [(&str, &str, Vec<&str>); 7] = [
        ("an empty Host", "/mcp", vec![""]),
        ("userinfo in Host", "/mcp", vec![&userinfo]),
        ("a duplicate Host", "/mcp", vec![&own, &own]),
        ("a second, foreign Host", "/mcp", vec![&own, "evil.example"]),
        ("a path in Host", "/mcp", vec!["127.0.0.1/mcp"]),
        ("an absolute-URI request line", &absolute, vec![&own]),
        (
            "an absolute URI naming another host",
            "http://evil.example/mcp",
            vec![&own],
        ),
    ];
    for (what, target, hosts) in cases {
        let r = exchange(&s.addr, &post(target, &hosts, INIT));
        assert_eq!(status(&r), 400, "{what} must be refused:\n{r}");
        assert!(
            body(&r).starts_with("Bad Request: "),
            "{what}: the refusal says why:\n{r}"
        );
    }
    let r = exchange(&s.addr, &post("/mcp", &[], INIT));
    assert_eq!(status(&r), 400, "a missing Host:\n{r}");
    let r = exchange(&s.addr, &post("/mcp", &["evil.example:1"], INIT));
    assert_eq!(
        status(&r),
        403,
        "a well-formed foreign Host is still 403:\n{r}"
    );
}

#[test]
fn a_body_that_is_not_json_rpc_gets_a_json_rpc_error() {
    let s = start("", &[]);
    let own = format!("127.0.0.1:{}", port(&s.addr));
    for (sent, code) in [
        ("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ", -32700),
        ("not json at all", -32700),
        (&"[".repeat(100_000), -32700),
        ("{\"hello\": \"world\"}", -32600),
    ] {
        let r = exchange(&s.addr, &post("/mcp", &[&own], sent));
        assert_eq!(status(&r), 400, "{sent:.40}:\n{r}");
        assert!(
            r.to_ascii_lowercase()
                .contains("content-type: application/json"),
            "{r}"
        );
        let v: serde_json::Value = serde_json::from_str(body(&r))
            .unwrap_or_else(|e| panic!("a JSON-RPC body ({e}):\n{r}"));
        assert_eq!(v["jsonrpc"], "2.0", "{v}");
        assert_eq!(v["error"]["code"], code, "{sent:.40}: {v}");
        assert!(v.get("id").is_none_or(|id| id.is_null()), "{v}");
    }
    // A declared length over the 4 MiB limit is refused before the body is read.
    let head = post("/mcp", &[&own], "");
    let head = String::from_utf8(head).unwrap().replace(
        "Content-Length: 0",
        &format!("Content-Length: {}", 4 * 1024 * 1024 + 1),
    );
    let r = exchange(&s.addr, head.as_bytes());
    assert_eq!(status(&r), 413, "{r}");
}
