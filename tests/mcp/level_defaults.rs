//! Response levels as the tool list states them (issue 19, "platform-aware tools"): get_ui_tree
//! answers with the digest its description promises unless a level is asked for, run_flow takes
//! a level (its digest: the verdict without the lists and paths), and the flow tools take `env`
//! as the strict-mode-friendly list of `{name, value}` (the older map still works).

use crate::common::mcp_harness;

use mcp_harness::{start, validate};
use serde_json::json;
use tapflow_sim::DEMO_BUNDLE as DEMO;

const LOGIN_FLOW: &str = "name: MCP login\napp: com.tapflow.demo\nclean_state: true\nsteps:\n  - input_text: {element_id: username, text: \"{{ USER }}\"}\n  - click: {element_id: login}\n  - wait_for_element: {text: \"Hello, {{ USER }}!\", timeout_ms: 8000}\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn get_ui_tree_answers_with_its_digest_unless_asked() {
    let s = start(1, mcp_harness::all_tools()).await;
    s.ok("run_app", json!({"bundle_name": DEMO})).await;
    let tools = s.tools().await;
    let tool = tools.iter().find(|t| t.name == "get_ui_tree").unwrap();
    let r = s.call("get_ui_tree", json!({})).await;
    validate(tool, &r);
    let sc = r.structured_content.unwrap();
    assert_eq!(sc["result"]["response_level"], "digest", "{sc:#}");
    assert!(sc["result"].get("ui_tree").is_none());
    let whole = s
        .ok("get_ui_tree", json!({"response_level": "default"}))
        .await;
    assert!(whole["ui_tree"].is_object());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn run_flow_takes_a_level_and_env_as_a_list() {
    let s = start(1, mcp_harness::all_tools()).await;
    let tools = s.tools().await;
    let tool = tools.iter().find(|t| t.name == "run_flow").unwrap();
    let r = s
        .call(
            "run_flow",
            json!({"yaml": LOGIN_FLOW, "env": [{"name": "USER", "value": "alice"}], "response_level": "digest"}),
        )
        .await;
    validate(tool, &r);
    let sc = r.structured_content.unwrap();
    let d = &sc["result"];
    assert_eq!(d["response_level"], "digest", "{sc:#}");
    assert_eq!(d["passed"], true, "{sc:#}");
    assert!(d["run_id"].is_string() && d["totals"].is_object(), "{d:#}");
    assert!(
        d.get("flows").is_none() && d.get("junit_path").is_none(),
        "{d:#}"
    );
    // The default level is the whole summary; the older map form of env still works.
    let whole = s
        .ok(
            "run_flow",
            json!({"yaml": LOGIN_FLOW, "env": {"USER": "bob"}}),
        )
        .await;
    assert_eq!(whole["passed"], true, "{whole:#}");
    assert!(whole["flows"].is_array());
    // A variable given twice is refused with what to do.
    let (_, twice) = s
        .err(
            "run_flow",
            json!({"yaml": LOGIN_FLOW, "env": [{"name": "USER", "value": "a"}, {"name": "USER", "value": "b"}]}),
        )
        .await;
    assert!(
        twice["error"]["message"]
            .as_str()
            .unwrap()
            .contains("given twice"),
        "{twice:#}"
    );
}
