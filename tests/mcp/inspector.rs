//! The MCP Inspector CLI (npm `@modelcontextprotocol/inspector` 2.12.0, pinned by
//! scripts/test-deps.d/40-mcp-inspector.sh) lists every tool (`--tools all`) — with `--strict`,
//! so every schema, `$defs` and `$ref` included, must be portable — and calls them, over stdio and over HTTP with a bearer token.

use crate::common::cli;
use crate::common::mcp_proc;

use std::process::Command;
use std::time::Duration;

use mcp_proc::{inspector, run, start_http};
use serde_json::Value;

const GUARD: Duration = Duration::from_secs(180);

fn inspect(args: &[&str], cwd: &std::path::Path) -> (bool, Value, String) {
    let (ok, out, err) = run(
        Command::new(inspector())
            .arg("--cli")
            .args(args)
            .args(["-q", "--format", "json"])
            .env("MCP_INSPECTOR_SECRET_STORE", "memory")
            .current_dir(cwd),
        GUARD,
    );
    let v = serde_json::from_str(out.trim()).unwrap_or(Value::Null);
    (ok, v, format!("{err}\n{out}"))
}

#[test]
fn inspector_lists_strictly_and_calls_over_stdio() {
    let tmp = tempfile::tempdir().unwrap();
    let bin = cli::bin();
    let server = [
        bin.to_str().unwrap(),
        "mcp",
        "--sim",
        "1",
        "--sim-latency",
        "none",
        "--tools",
        "all",
    ];
    let mut args = server.to_vec();
    args.extend(["--method", "tools/list", "--strict"]);
    let (ok, v, log) = inspect(&args, tmp.path());
    assert!(
        ok,
        "tools/list --strict failed (unportable schema?):\n{log}"
    );
    let tools = v["result"]["tools"].as_array().expect("tools");
    let engine = tapflow::mcp::engine();
    assert_eq!(tools.len(), engine.tools().count(), "{log}");
    assert!(tools.iter().all(|t| t["outputSchema"].is_object()));

    let mut args = server.to_vec();
    args.extend(["--method", "tools/call", "--tool-name", "list_windows"]);
    let (ok, v, log) = inspect(&args, tmp.path());
    assert!(ok, "{log}");
    assert_eq!(v["result"]["structuredContent"]["ok"], true, "{log}");
    // The text block: the outcome line with the reference's prefix, then the result as JSON.
    let text = v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    let (line, json) = text.split_once('\n').unwrap_or((text, ""));
    assert_eq!(line, "list_windows: ok", "{log}");
    assert_eq!(
        serde_json::from_str::<Value>(json).ok().as_ref(),
        Some(&v["result"]["structuredContent"]["result"]),
        "{log}"
    );

    // A tool error is isError: the Inspector exits 5 and the envelope still names the code.
    let mut args = server.to_vec();
    args.extend([
        "--method",
        "tools/call",
        "--tool-name",
        "wait_for_element",
        "--tool-arg",
        "text=Nowhere",
        "timeout_ms=200",
    ]);
    let (ok, _, log) = inspect(&args, tmp.path());
    assert!(!ok, "an isError result must not look like success:\n{log}");
    assert!(log.contains("WAIT_TIMEOUT"), "{log}");
}

#[test]
fn inspector_over_http_with_a_bearer_token() {
    let tmp = tempfile::tempdir().unwrap();
    let token_file = tmp.path().join("token");
    std::fs::write(&token_file, "s3cr3t-token\n").unwrap();
    let server = start_http(
        &[
            "--sim",
            "1",
            "--sim-latency",
            "none",
            "--token-file",
            token_file.to_str().unwrap(),
        ],
        tmp.path(),
    );
    let (ok, v, log) = inspect(
        &[
            &server.url,
            "--header",
            "Authorization: Bearer s3cr3t-token",
            "--method",
            "tools/list",
        ],
        tmp.path(),
    );
    assert!(ok, "{log}");
    assert!(
        v["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{log}"
    );
    let (ok, v, log) = inspect(
        &[
            &server.url,
            "--header",
            "Authorization: Bearer s3cr3t-token",
            "--method",
            "tools/call",
            "--tool-name",
            "get_ui_tree",
            "--tool-arg",
            "response_level=digest",
        ],
        tmp.path(),
    );
    assert!(ok, "{log}");
    assert_eq!(
        v["result"]["structuredContent"]["result"]["response_level"], "digest",
        "{log}"
    );
    // Without the token the Inspector cannot even list.
    let (ok, _, log) = inspect(&[&server.url, "--method", "tools/list"], tmp.path());
    assert!(!ok, "no token must be refused:\n{log}");
}
