//! `save_flow` on the cases an agent's session has beyond the plain login (in-process server,
//! simulated device): text with literal `{{` typed verbatim on replay, a credential-shaped
//! secret, a tap by coordinates kept as coordinates, a handle whose element has no id saved as
//! the criteria it was found by, a cut by `since`; and every saved flow replays with
//! `run_flow`. Sessions do not share their logs, and a cut with no action saves nothing.

use crate::common::mcp_harness::start;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use tapflow::mcp::TapflowMcp;

const DEMO: &str = "com.tapflow.demo";
/// Literal braces a flow would otherwise read as a variable.
const BRACES: &str = r"a{{b}} \{{c";
/// Has the shape of a GitHub token: a secret wherever it is typed.
const TOKEN: &str = "ghp_0123456789abcdefghijABCDEFGHIJ";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn session_cases_save_and_replay() {
    let s = start(1, crate::common::mcp_harness::all_tools()).await;
    s.ok("stop_app", json!({"bundle_name": DEMO})).await;
    s.ok("clear_app_data", json!({"bundle_name": DEMO})).await;
    s.ok("run_app", json!({"bundle_name": DEMO})).await;
    s.ok(
        "input_text",
        json!({"element_id": "username", "text": BRACES}),
    )
    .await;
    // The password field hides the token: a bare call verifies its length only, and never
    // echoes it.
    let typed = s
        .ok(
            "input_text",
            json!({"element_id": "password", "text": TOKEN}),
        )
        .await;
    assert_eq!(typed["length_verified"], true, "{typed:#}");
    assert!(!typed.to_string().contains(TOKEN), "{typed:#}");
    let login = s.ok("find_elements", json!({"element_id": "login"})).await;
    let center = &login["elements"][0]["center"];
    s.ok("click", json!({"x": center["x"], "y": center["y"]}))
        .await;
    s.ok(
        "wait_for_element",
        json!({"element_id": "greeting", "timeout_ms": 10000}),
    )
    .await;
    // The second half, cut off by `since`: a handle to an element that has no id.
    let items = s.call("click", json!({"text": "Items"})).await;
    let since = items.structured_content.unwrap()["meta"]["timestamp"].clone();
    let found = s
        .ok(
            "find_elements",
            json!({"text": "Item 2", "element_type": "Text"}),
        )
        .await;
    assert_eq!(found["elements"][0]["id"], "", "{found:#}");
    let handle = found["elements"][0]["element_handle"].clone();
    s.ok("click", json!({"element_handle": handle})).await;
    s.ok(
        "wait_for_element",
        json!({"text": "Selected: Item 2", "timeout_ms": 10000}),
    )
    .await;

    let all = s
        .ok(
            "save_flow",
            json!({"path": "flows/all.yaml", "name": "All"}),
        )
        .await;
    let yaml = all["yaml"].as_str().unwrap();
    eprintln!("{yaml}");
    assert!(!yaml.contains(TOKEN), "{yaml}");
    assert_eq!(all["env"], json!(["PASSWORD"]));
    for line in [
        // `\{{` is literal braces; before it, backslashes pair up (docs/flow-format.md).
        r#"- input_text: {element_id: username, text: "a\\{{b}} \\\\\\{{c"}"#,
        r#"- input_text: {element_id: password, text: "{{ PASSWORD }}"}"#,
        "- click: Items",
        "text: Item 2",
    ] {
        assert!(yaml.contains(line), "missing `{line}` in:\n{yaml}");
    }
    let x = center["x"].as_i64().unwrap();
    assert!(
        yaml.contains(&format!("- click: {{x: {x}, \"y\": ")),
        "{yaml}"
    );
    assert!(!yaml.contains("element_handle"), "{yaml}");

    let tail = s
        .ok(
            "save_flow",
            json!({"path": "flows/tail.yaml", "since": since}),
        )
        .await;
    let steps: Vec<&str> = tail["yaml"]
        .as_str()
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("- "))
        .collect();
    assert_eq!(steps.len(), 3, "{steps:?}");
    assert_eq!(steps[0], "- click: Items");
    assert_eq!(tail["env"], json!([]));
    let (code, _) = s
        .err(
            "save_flow",
            json!({"path": "flows/x.yaml", "since": "yesterday"}),
        )
        .await;
    assert_eq!(code, "INVALID_PARAM");

    // The whole session replays; the braces are typed verbatim (verified read-back).
    let run = s
        .ok(
            "run_flow",
            json!({"path": "flows/all.yaml", "env": {"PASSWORD": TOKEN}}),
        )
        .await;
    assert_eq!(run["passed"], true, "{run:#}");
    let result: Value =
        serde_json::from_slice(&std::fs::read(run["result_path"].as_str().unwrap()).unwrap())
            .unwrap();
    let steps = result["flows"][0]["steps"].as_array().unwrap();
    let user = steps
        .iter()
        .find(|st| st["args"]["element_id"] == "username")
        .unwrap();
    assert_eq!(user["result"]["verified"], true, "{user:#}");
    assert_eq!(user["result"]["actual_text"], BRACES, "{user:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn each_session_saves_only_its_own_calls() {
    let s = start(1, crate::common::mcp_harness::all_tools()).await;
    s.ok("run_app", json!({"bundle_name": DEMO})).await;
    s.ok(
        "input_text",
        json!({"element_id": "username", "text": "first-session"}),
    )
    .await;
    // A second session on the same server (as a second HTTP session or client would be).
    let (a, b) = tokio::io::duplex(1 << 20);
    let (server, client) = tokio::join!(TapflowMcp::new(s.core.clone()).serve(a), ().serve(b));
    let server = server.unwrap();
    tokio::spawn(async move {
        let _ = server.waiting().await;
    });
    let other = client.unwrap();
    let call = |tool: &str, args: Value| {
        CallToolRequestParams::new(tool.to_string())
            .with_arguments(args.as_object().unwrap().clone())
    };
    let r = other
        .call_tool(call("press_key", json!({"key": "Back"})))
        .await
        .unwrap();
    let sc = r.structured_content.unwrap();
    assert_eq!(sc["meta"]["session_call"], 1, "{sc:#}");
    let r = other
        .call_tool(call("save_flow", json!({"path": "flows/other.yaml"})))
        .await
        .unwrap();
    let saved = r.structured_content.unwrap()["result"].clone();
    assert_eq!(saved["steps"], 1, "{saved:#}");
    let yaml = saved["yaml"].as_str().unwrap();
    assert!(yaml.contains("- press_key: Back"), "{yaml}");
    assert!(!yaml.contains("first-session"), "{yaml}");

    // The first session's own flow, then a cut past its last call: nothing to save.
    let mine = s.ok("save_flow", json!({"path": "flows/mine.yaml"})).await;
    assert!(mine["yaml"].as_str().unwrap().contains("first-session"));
    assert!(!mine["yaml"].as_str().unwrap().contains("press_key"));
    let (code, sc) = s
        .err(
            "save_flow",
            json!({"path": "flows/none.yaml", "from": 1000}),
        )
        .await;
    assert_eq!(code, "FLOW_INVALID");
    assert!(
        sc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nothing to save"),
        "{sc:#}"
    );
    assert!(!s.tmp.path().join("flows/none.yaml").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn credential_shaped_text_in_a_plain_field_is_a_variable() {
    let s = start(1, crate::common::mcp_harness::all_tools()).await;
    s.ok("run_app", json!({"bundle_name": DEMO})).await;
    // An unmasked field whose name says nothing: only the text's shape marks it a secret.
    let typed = s
        .ok(
            "input_text",
            json!({"element_id": "username", "text": TOKEN}),
        )
        .await;
    assert_eq!(typed["verified"], true, "{typed:#}");
    let saved = s.ok("save_flow", json!({"path": "flows/token.yaml"})).await;
    let yaml = saved["yaml"].as_str().unwrap();
    assert_eq!(saved["env"], json!(["USERNAME"]), "{yaml}");
    assert!(
        yaml.contains(r#"- input_text: {element_id: username, text: "{{ USERNAME }}"}"#),
        "{yaml}"
    );
    let on_disk = std::fs::read_to_string(saved["path"].as_str().unwrap()).unwrap();
    assert!(!on_disk.contains(TOKEN) && !saved.to_string().contains(TOKEN));
}
