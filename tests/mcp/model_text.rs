//! What a model sees in hosts that hand it only a result's `content` (openai-agents' default,
//! many chat hosts): the text block states the outcome in words on its first line, keeping the
//! reference's `<tool>: ok` / `<tool>: error CODE` prefix, then carries the result at the call's
//! response level in compact JSON. Seen before (issue 19): every text was `<tool>: ok`, so a
//! model saw no handles, `validate_flow: ok` for an invalid flow and `run_flow: ok` for a
//! failed run.

use crate::common::mcp_harness;

use mcp_harness::start;
use serde_json::{Value, json};

/// The one text block of a result: its first line and the JSON after it.
fn text(r: &rmcp::model::CallToolResult) -> (String, Value) {
    assert_eq!(r.content.len(), 1, "one text block");
    let t = r.content[0].as_text().expect("a text block").text.clone();
    let (line, json) = t.split_once('\n').expect("an outcome line, then JSON");
    (
        line.to_string(),
        serde_json::from_str(json).expect("compact JSON"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_text_carries_handles_verdicts_and_failing_steps() {
    let s = start(1, mcp_harness::all_tools()).await;
    s.ok("run_app", json!({"bundle_name": tapflow_sim::DEMO_BUNDLE}))
        .await;

    // find_elements: the handles, at the default level and in a digest.
    let r = s
        .call("find_elements", json!({"element_id": "username"}))
        .await;
    let (line, json) = text(&r);
    assert_eq!(line, "find_elements: ok: 1 element found");
    let handle = json["elements"][0]["element_handle"].clone();
    assert!(handle.is_object(), "{json:#}");
    let all = r.content[0].as_text().unwrap().text.clone();
    assert!(all.contains(&handle.to_string()), "{all}");
    let r = s
        .call("get_ui_tree", json!({"response_level": "digest"}))
        .await;
    let (line, json) = text(&r);
    assert_eq!(line, "get_ui_tree: ok");
    assert_eq!(
        json["response_level"], "digest",
        "the text carries the level asked"
    );
    assert!(json["first"][0]["element_handle"].is_object(), "{json:#}");

    // A tool error keeps the reference prefix and says what went wrong.
    let r = s.call("click", json!({"text": "No such button"})).await;
    let (line, json) = text(&r);
    assert!(
        line.starts_with("click: error ELEMENT_NOT_FOUND: "),
        "{line}"
    );
    assert_eq!(json["error"]["code"], "ELEMENT_NOT_FOUND");

    // validate_flow on an invalid flow says so, with the place.
    let r = s
        .call(
            "validate_flow",
            json!({"yaml": "name: x\nsteps:\n  - clik: Login\n"}),
        )
        .await;
    let (line, _) = text(&r);
    assert!(
        line.starts_with("validate_flow: ok: invalid: 1 error: "),
        "{line}"
    );
    assert!(line.contains(":3:5 "), "the line:col of the error: {line}");

    // A failed run is not a failed call, but its text says FAILED first, with the step and code.
    let failing = "name: fails\napp: com.tapflow.demo\nclean_state: true\nsteps:\n  - click: No such button\n    wait: 0\n";
    let r = s.call("run_flow", json!({"yaml": failing})).await;
    let (line, json) = text(&r);
    assert_eq!(r.is_error, Some(false), "{line}");
    assert!(
        line.starts_with("run_flow: ok: FAILED at step `click No such button`"),
        "{line}"
    );
    assert!(line.contains("ELEMENT_NOT_FOUND"), "{line}");
    assert!(line.contains("evidence: "), "the evidence paths: {line}");
    assert_eq!(json["passed"], false);
}
