//! Issue 19, part 2: the server's policy over whole flows. `run_flow` with
//! `- uninstall_app: com.tapflow.demo` used to uninstall the app even under `--require-approval
//! --deny-tools uninstall_app,clear_app_data`. Now every step — inline, in `on_failure`,
//! `finally`, `repeat`, `retry`, a `when` step, an inline or file sub-flow, and the clean-state
//! setup — is checked at plan time: the flow is refused before any step runs, naming the step's
//! file:line, and the app is still installed afterwards (asked of the simulated phone itself).
//! Approval comes from the operator (`approve_tools`) or, in trusted-caller mode only, from the
//! caller's own `approval` (echoed in `meta.approval` and the run's `result.json`).

use crate::common::mcp_harness::{Server, start};

use serde_json::{Value, json};
use tapflow::mcp::McpOptions;

const DEMO: &str = "com.tapflow.demo";

fn installed(s: &Server) -> bool {
    s.provider
        .simulator()
        .phone(&s.serial(0))
        .unwrap()
        .installed_app(DEMO)
        .is_some()
}

fn guarded() -> McpOptions {
    McpOptions {
        require_approval: true,
        deny_tools: vec!["uninstall_app".into(), "clear_app_data".into()],
        ..McpOptions::default()
    }
}

/// Every flow construct, with the location its `uninstall_app` (or `clear_app_data`) step has.
const CONSTRUCTS: &[(&str, &str, &str)] = &[
    (
        "a step",
        "name: f\nsteps:\n  - uninstall_app: com.tapflow.demo\n",
        "inline.yaml:3",
    ),
    (
        "on_failure",
        "name: f\nsteps:\n  - press_key: Home\non_failure:\n  - uninstall_app: com.tapflow.demo\n",
        "inline.yaml:5",
    ),
    (
        "finally",
        "name: f\nsteps:\n  - press_key: Home\nfinally:\n  - uninstall_app: com.tapflow.demo\n",
        "inline.yaml:5",
    ),
    (
        "repeat",
        "name: f\nsteps:\n  - repeat:\n      times: 2\n      steps:\n        - uninstall_app: com.tapflow.demo\n",
        "inline.yaml:6",
    ),
    (
        "retry",
        "name: f\nsteps:\n  - retry:\n      times: 1\n      steps:\n        - press_key: Home\n        - uninstall_app: com.tapflow.demo\n",
        "inline.yaml:7",
    ),
    (
        "when",
        "name: f\nsteps:\n  - press_key: Home\n  - uninstall_app: com.tapflow.demo\n    when: {platform: harmonyos}\n",
        "inline.yaml:4",
    ),
    (
        "an inline sub-flow",
        "name: f\nsteps:\n  - run_flow:\n      steps:\n        - press_key: Home\n        - uninstall_app: com.tapflow.demo\n",
        "inline.yaml:6",
    ),
    (
        "a sub-flow file",
        "name: f\nsteps:\n  - press_key: Home\n  - run_flow: subflows/remove.yaml\n",
        "remove.yaml:2",
    ),
    (
        "the clean-state setup",
        "name: f\napp: com.tapflow.demo\nclean_state: true\nsteps:\n  - press_key: Home\n",
        "inline.yaml:1",
    ),
];

fn write_subflow(s: &Server) {
    let dir = s.tmp.path().join("subflows");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("remove.yaml"),
        "- press_key: Home\n- uninstall_app: com.tapflow.demo\n",
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_denied_step_anywhere_in_a_flow_is_refused_at_plan_time() {
    let s = start(1, guarded()).await;
    write_subflow(&s);
    assert!(installed(&s), "the demo app starts installed");
    for (construct, yaml, at) in CONSTRUCTS {
        for tool in ["run_flow", "plan_flow"] {
            let (code, sc) = s.err(tool, json!({ "yaml": yaml })).await;
            let msg = sc["error"]["message"].as_str().unwrap_or_default();
            assert_eq!(code, "STEP_DENIED", "{tool} with {construct}: {sc:#}");
            assert!(
                msg.contains(at),
                "{tool} with {construct}: no `{at}` in {msg}"
            );
            let step = &sc["error"]["details"]["steps"][0];
            assert!(
                ["uninstall_app", "clear_app_data"].contains(&step["tool"].as_str().unwrap()),
                "{construct}: {step}"
            );
            assert!(step["line"].as_u64().unwrap() >= 1, "{construct}: {step}");
        }
        assert!(installed(&s), "{construct}: the app was uninstalled");
    }
    // A flow without denied steps still runs.
    let r = s
        .ok(
            "run_flow",
            json!({"yaml": "name: f\nsteps:\n  - press_key: Home\n"}),
        )
        .await;
    assert_eq!(r["passed"], true, "{r:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_unapproved_step_anywhere_in_a_flow_is_refused_at_plan_time() {
    // Served, but needing approval, and this client (rmcp's, no handler) offers no elicitation.
    let s = start(
        1,
        McpOptions {
            require_approval: true,
            ..McpOptions::default()
        },
    )
    .await;
    write_subflow(&s);
    for (construct, yaml, at) in CONSTRUCTS {
        let (code, sc) = s.err("run_flow", json!({ "yaml": yaml })).await;
        let msg = sc["error"]["message"].as_str().unwrap_or_default();
        assert_eq!(code, "APPROVAL_REQUIRED", "{construct}: {sc:#}");
        assert!(msg.contains(at), "{construct}: no `{at}` in {msg}");
        assert!(
            msg.contains("--approve-tools") && msg.contains("elicitation"),
            "{construct}: the refusal says how to approve: {msg}"
        );
        assert!(installed(&s), "{construct}: the app was uninstalled");
    }
    // plan_flow runs nothing: it plans, and says what run_flow would need approved.
    let r = s
        .call("plan_flow", json!({ "yaml": CONSTRUCTS[0].1 }))
        .await;
    let sc = r.structured_content.unwrap();
    assert_eq!(sc["ok"], true, "{sc:#}");
    assert_eq!(sc["meta"]["approval"]["steps"][0]["tool"], "uninstall_app");
    assert_eq!(sc["meta"]["approval"]["decided"], false);
}

fn approval() -> Value {
    json!({"approved": true, "approved_by": "qa-lead", "reason": "reset the demo"})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_made_up_approval_is_refused_unless_the_operator_trusts_callers() {
    let s = start(
        1,
        McpOptions {
            require_approval: true,
            ..McpOptions::default()
        },
    )
    .await;
    let yaml = "name: f\nsteps:\n  - uninstall_app: com.tapflow.demo\n";
    for (tool, args) in [
        ("run_flow", json!({"yaml": yaml, "approval": approval()})),
        (
            "uninstall_app",
            json!({"bundle_name": DEMO, "approval": approval()}),
        ),
    ] {
        let (code, sc) = s.err(tool, args).await;
        assert_eq!(code, "APPROVAL_NOT_TRUSTED", "{tool}: {sc:#}");
        let msg = sc["error"]["message"].as_str().unwrap();
        assert!(
            msg.contains("--trust-caller-approval") && msg.contains("approval = \"caller\""),
            "{tool}: the refusal says how the operator enables it: {msg}"
        );
        assert!(installed(&s), "{tool}: the app was uninstalled");
    }

    let trusting = start(
        1,
        McpOptions {
            require_approval: true,
            trust_caller_approval: true,
            ..McpOptions::default()
        },
    )
    .await;
    let r = trusting
        .call("run_flow", json!({"yaml": yaml, "approval": approval()}))
        .await;
    let sc = r.structured_content.unwrap();
    assert_eq!(sc["ok"], true, "{sc:#}");
    assert_eq!(sc["result"]["passed"], true, "{sc:#}");
    let echo = &sc["meta"]["approval"];
    assert_eq!(echo["via"], "caller");
    assert_eq!(echo["approved_by"], "qa-lead");
    assert_eq!(echo["tools"], json!(["uninstall_app"]));
    // The run's own evidence records who approved it.
    let result: Value = serde_json::from_slice(
        &std::fs::read(sc["result"]["result_path"].as_str().unwrap()).unwrap(),
    )
    .unwrap();
    assert_eq!(result["approval"]["approved_by"], "qa-lead", "{result:#}");
    assert_eq!(result["approval"]["via"], "caller");
    assert!(!installed(&trusting), "the approved flow ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_operator_approves_tools_in_advance_and_deny_still_wins() {
    let s = start(
        1,
        McpOptions {
            require_approval: true,
            approve_tools: vec!["uninstall_*".into()],
            ..McpOptions::default()
        },
    )
    .await;
    let yaml =
        "name: f\nsteps:\n  - press_key: Home\nfinally:\n  - uninstall_app: com.tapflow.demo\n";
    let r = s.call("run_flow", json!({ "yaml": yaml })).await;
    let sc = r.structured_content.unwrap();
    assert_eq!(sc["ok"], true, "{sc:#}");
    assert_eq!(sc["meta"]["approval"]["via"], "operator");
    assert_eq!(sc["meta"]["approval"]["tools"], json!(["uninstall_app"]));
    assert!(!installed(&s), "the operator-approved flow ran");

    let denied = start(
        1,
        McpOptions {
            require_approval: true,
            approve_tools: vec!["uninstall_app".into()],
            deny_tools: vec!["uninstall_app".into()],
            ..McpOptions::default()
        },
    )
    .await;
    let (code, _) = denied.err("run_flow", json!({ "yaml": yaml })).await;
    assert_eq!(code, "STEP_DENIED");
    assert!(installed(&denied));
}
