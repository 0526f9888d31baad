//! `tapflow tools` and `tapflow tool`: the listing is exactly MCP tools/list, a call prints the
//! whole envelope and exits 0 when ok, 1 when not.

use assert_cmd::Command;
use serde_json::Value;

fn tapflow() -> Command {
    Command::cargo_bin("tapflow").unwrap()
}

#[test]
fn tools_json_is_the_mcp_listing() {
    let out = tapflow().args(["tools", "--json"]).output().unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let tools = v.as_array().unwrap();
    assert_eq!(tools.len(), tapflow::tools::Engine::new().tools().count());
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
    let human = tapflow().arg("tools").output().unwrap();
    assert!(String::from_utf8_lossy(&human.stdout).contains("wait_for_element"));
}

fn envelope(args: &[&str]) -> (i32, Value) {
    let out = tapflow().args(args).output().unwrap();
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
