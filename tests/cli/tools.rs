//! `tapflow tools` and `tapflow tool`: the listing is exactly MCP tools/list, a call prints the
//! whole envelope and exits 0 when ok, 1 when not.

use serde_json::Value;

use crate::common::cli;

#[test]
fn tools_json_is_the_mcp_listing() {
    let out = cli::assert_tapflow()
        .args(["tools", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let tools = v.as_array().unwrap();
    assert_eq!(tools.len(), tapflow_tools::Engine::new().tools().count());
    for t in tools {
        let keys: Vec<&str> = t.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "name",
                "title",
                "description",
                "inputSchema",
                "outputSchema",
                "annotations",
                "_meta"
            ]
        );
        for hint in [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ] {
            assert!(t["annotations"][hint].is_boolean(), "{} {hint}", t["name"]);
        }
        for p in [
            "risk",
            "mutates_device",
            "writes_host_files",
            "needs_approval",
        ] {
            assert!(!t["_meta"]["policy"][p].is_null(), "{} {p}", t["name"]);
        }
    }
    let human = cli::assert_tapflow().arg("tools").output().unwrap();
    assert!(String::from_utf8_lossy(&human.stdout).contains("wait_for_element"));
}

fn envelope(args: &[&str]) -> (i32, Value) {
    let out = cli::assert_tapflow().args(args).output().unwrap();
    (
        out.status.code().unwrap(),
        serde_json::from_slice(&out.stdout).unwrap(),
    )
}

#[test]
fn tool_call_prints_the_envelope_and_exits_1_when_not_ok() {
    let (code, v) = envelope(&["tool", "press_key", r#"{"key":"Hyper"}"#]);
    assert_eq!(code, 1);
    assert_eq!(v["structuredContent"]["error"]["code"], "INVALID_KEY");
    assert_eq!(v["isError"], true);
    let (code, v) = envelope(&["tool", "nope"]);
    assert_eq!(code, 1);
    assert_eq!(v["structuredContent"]["error"]["code"], "UNKNOWN_TOOL");
    let (code, v) = envelope(&["tool", "click", "{not json"]);
    assert_eq!(code, 1);
    assert_eq!(v["structuredContent"]["error"]["code"], "INVALID_PARAM");
    // No device here (and, until the hdc backend is merged, no backend): a clear, typed error.
    let (code, v) = envelope(&["tool", "list_windows", "{}"]);
    assert_eq!(code, 1);
    let err = v["structuredContent"]["error"]["code"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        ["UNSUPPORTED", "HDC_NOT_FOUND", "DEVICE_NOT_FOUND"].contains(&err.as_str()),
        "{err}"
    );
}

#[test]
fn docs_embed_the_generated_reference() {
    use tapflow_tools::reference::{BEGIN, END};
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/tools.md");
    let doc = std::fs::read_to_string(path).unwrap();
    let (head, rest) = doc
        .split_once(BEGIN)
        .expect("docs/tools.md has the BEGIN marker");
    let (block, tail) = rest
        .split_once(END)
        .expect("docs/tools.md has the END marker");
    let fresh = tapflow::mcp::catalog::reference_markdown(&tapflow_tools::Engine::new());
    if block.trim() != fresh.trim() {
        if std::env::var_os("TAPFLOW_BLESS").is_some() {
            std::fs::write(path, format!("{head}{BEGIN}\n{fresh}{END}{tail}")).unwrap();
            return;
        }
        panic!("docs/tools.md's tool reference is stale: rerun with TAPFLOW_BLESS=1");
    }
    let cli = cli::assert_tapflow()
        .args(["tools", "--markdown"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(cli.stdout).unwrap().trim(), fresh.trim());
}

/// Issue 9: what `tapflow tool` used to accept silently, and an argument echoed whole.
#[test]
fn tool_call_refuses_duplicate_keys_and_unknown_nulls_and_clips_what_it_echoes() {
    let (code, v) = envelope(&["tool", "click", r#"{"text":"OK","text":"Cancel"}"#]);
    assert_eq!(code, 1);
    let err = &v["structuredContent"]["error"];
    assert_eq!(err["code"], "INVALID_PARAM");
    assert_eq!(err["details"]["param"], "text");
    assert!(err["message"].as_str().unwrap().contains("twice"), "{err}");
    // Nested objects too.
    let (_, v) = envelope(&[
        "tool",
        "click",
        r#"{"element_handle":{"window_id":1,"id":"a","id":"b","compid":"1:a","type":"Button"}}"#,
    ]);
    assert_eq!(v["structuredContent"]["error"]["details"]["param"], "id");
    // An unknown parameter is refused even when null; a known one set to null is "not given".
    let (code, v) = envelope(&["tool", "press_key", r#"{"key":"Hyper","modifers":null}"#]);
    assert_eq!(code, 1);
    let err = &v["structuredContent"]["error"];
    assert_eq!(
        (&err["code"], &err["details"]["param"]),
        (&Value::from("INVALID_PARAM"), &Value::from("modifers"))
    );
    assert_eq!(err["details"]["suggestion"], "modifiers");
    let (_, v) = envelope(&["tool", "press_key", r#"{"key":"Hyper","modifiers":null}"#]);
    assert_eq!(v["structuredContent"]["error"]["code"], "INVALID_KEY");
    // A 10 MB argument (read from stdin) does not come back whole.
    let huge = format!(r#"{{"key":"{}"}}"#, "Z".repeat(10 * 1024 * 1024));
    let out = cli::assert_tapflow()
        .args(["tool", "press_key", "-"])
        .write_stdin(huge)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stdout.len() < 8 * 1024,
        "{} bytes printed",
        out.stdout.len()
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let err = &v["structuredContent"]["error"];
    assert_eq!(err["code"], "INVALID_KEY");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("(10485760 bytes)"),
        "{err}"
    );
}
