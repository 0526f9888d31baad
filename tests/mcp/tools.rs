//! Every tool over MCP, with the rmcp client in-process, on the simulated device: tools/list
//! carries schemas, titles, annotations and the policy in `_meta`; each call returns the
//! reference envelope as structuredContent (validated against the tool's outputSchema) plus a
//! text block (the outcome line, then the result), isError mirrors `ok`; JSON-RPC errors only for unknown tools; the policy
//! (approval, tool and device allowlists) and response levels.

use crate::common::mcp_harness;

use std::collections::BTreeSet;

use mcp_harness::{Server, start, validate};
use serde_json::{Value, json};
use tapflow::mcp::McpOptions;
use tapflow_sim::DEMO_BUNDLE as DEMO;
use tapflow_sim::phone::hap::{build_hap, module_json};

/// A flow that logs in on the demo app (clean state first).
const LOGIN_FLOW: &str = "name: MCP login\napp: com.tapflow.demo\nclean_state: true\nsteps:\n  - input_text: {element_id: username, text: alice}\n  - click: {element_id: login}\n  - wait_for_element: {text: \"Hello, alice!\", timeout_ms: 8000}\n";

/// A signed test package written into the server's scratch directory.
fn hap(s: &Server, name: &str, bundle: &str) -> String {
    let bytes = build_hap(&module_json(bundle, 1, "1.0.0", "MainAbility"), None, true);
    let path = s.tmp.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_string_lossy().into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_tool_is_listed_with_schemas_annotations_and_policy() {
    // Trusted-caller mode: the one mode in which `approval` is honoured, hence listed.
    let s = start(
        1,
        McpOptions {
            trust_caller_approval: true,
            ..mcp_harness::all_tools()
        },
    )
    .await;
    let tools = s.tools().await;
    let engine = tapflow::mcp::engine();
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    let registry: Vec<String> = engine.tools().map(|t| t.name.to_string()).collect();
    assert_eq!(
        names, registry,
        "the MCP list is the registry, in registry order"
    );
    for t in &tools {
        let v = serde_json::to_value(t).unwrap();
        assert_eq!(v["inputSchema"]["type"], "object", "{}", t.name);
        assert_eq!(v["outputSchema"]["type"], "object", "{}", t.name);
        assert!(
            v["title"].as_str().is_some_and(|s| !s.is_empty()),
            "{}",
            t.name
        );
        for hint in [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ] {
            assert!(
                v["annotations"][hint].is_boolean(),
                "{} lacks {hint}",
                t.name
            );
        }
        let policy = &v["_meta"]["policy"];
        assert!(
            policy["risk"].is_string() && policy["needs_approval"].is_boolean(),
            "{}",
            t.name
        );
        let d = t.description.as_deref().unwrap_or("");
        // Each says when to use the tool and what to use instead (the model: agent-device's
        // `press`).
        assert!(
            d.contains("Use "),
            "{}: the description names no alternative: {d}",
            t.name
        );
    }
    let approval: BTreeSet<&str> = tools
        .iter()
        .filter(|t| {
            t.input_schema
                .get("properties")
                .and_then(|p| p.get("approval"))
                .is_some()
        })
        .map(|t| t.name.as_ref())
        .collect();
    for t in ["install_app", "uninstall_app", "clear_app_data"] {
        assert!(approval.contains(t), "{t} takes an approval: {approval:?}");
    }
    let get_ui_tree = tools.iter().find(|t| t.name == "get_ui_tree").unwrap();
    assert!(
        get_ui_tree.input_schema["properties"]
            .get("response_level")
            .is_some()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_tool_answers_with_the_reference_envelope() {
    let s = start(1, mcp_harness::all_tools()).await;
    let tools = s.tools().await;
    let tool = |n: &str| tools.iter().find(|t| t.name == n).unwrap().clone();
    let mut called = BTreeSet::new();
    let hello = hap(&s, "hello.hap", "com.example.hello");
    let handle;
    // (tool, arguments, expected ok) in an order that walks the demo app.
    let mut plan: Vec<(&str, Value, bool)> = vec![
        ("list_devices", json!({}), true),
        ("query_package", json!({"keyword": "tapflow"}), true),
        ("run_app", json!({"bundle_name": DEMO}), true),
        ("list_windows", json!({}), true),
        ("get_ui_tree", json!({}), true),
    ];
    for (name, args, ok) in plan.drain(..) {
        let r = s.call(name, args.clone()).await;
        validate(&tool(name), &r);
        assert_eq!(
            r.is_error,
            Some(!ok),
            "{name} {args}: {:#}",
            r.structured_content.unwrap()
        );
        // The text block: the outcome line with the reference's prefix, then the result.
        let text = r.content[0].as_text().unwrap().text.clone();
        let (line, json) = text.split_once('\n').expect("two parts");
        assert!(line.starts_with(&format!("{name}: ok")), "{line}");
        let sc = r.structured_content.clone().unwrap();
        assert_eq!(serde_json::from_str::<Value>(json).unwrap(), sc["result"]);
        called.insert(name);
    }
    let found = s
        .ok("find_elements", json!({"element_id": "username"}))
        .await;
    called.insert("find_elements");
    handle = found["elements"][0]["element_handle"].clone();
    let typed = s
        .ok(
            "input_text",
            json!({"element_handle": handle, "text": "alice"}),
        )
        .await;
    assert_eq!(typed["verified"], true, "{typed:#}");
    called.insert("input_text");
    let mut plan: Vec<(&str, Value)> = vec![
        ("click", json!({"element_id": "login"})),
        (
            "wait_for_element",
            json!({"text": "Hello, alice!", "timeout_ms": 8000}),
        ),
        ("wait_for_stable", json!({})),
        ("screenshot", json!({})),
        (
            "logs_query",
            json!({"mode": "markers", "marker_keywords": ["LOGIN_SUCCESS user=alice"], "seconds": 120}),
        ),
        ("long_press", json!({"text": "Hello, alice!"})),
        ("press_key", json!({"key": "Back"})),
        ("run_app", json!({"bundle_name": DEMO})),
        ("swipe", json!({"direction": "up"})),
        (
            "drag",
            json!({"from_x": 300, "from_y": 1500, "to_x": 300, "to_y": 900}),
        ),
        ("stop_app", json!({"bundle_name": DEMO})),
        ("run_app", json!({"bundle_name": DEMO})),
        (
            "input_text",
            json!({"element_id": "username", "text": "bob"}),
        ),
        ("click", json!({"element_id": "login"})),
        (
            "wait_for_element",
            json!({"text": "Hello, bob!", "timeout_ms": 8000}),
        ),
        ("click", json!({"element_id": "open_items"})),
        (
            "scroll_until_visible",
            json!({"text": "Item 42", "direction": "up", "max_swipes": 30, "speed": 4000}),
        ),
        ("clear_app_data", json!({"bundle_name": DEMO})),
        ("install_app", json!({"hap_path": hello})),
        ("uninstall_app", json!({"bundle_name": "com.example.hello"})),
    ];
    for (name, args) in plan.drain(..) {
        let r = s.call(name, args.clone()).await;
        validate(&tool(name), &r);
        let sc = r.structured_content.clone().unwrap();
        assert_eq!(r.is_error, Some(false), "{name} {args}: {sc:#}");
        assert_eq!(sc["tool"], name);
        assert!(sc["meta"]["request_id"].is_string() && sc["meta"]["duration_ms"].is_u64());
        assert_eq!(
            sc["meta"]["lane"]["device"],
            format!("local/{}", s.serial(0))
        );
        called.insert(name);
    }
    // build_app runs host code: the call path over MCP (its builds are tested with the fake
    // SDK in crates/tapflow-tools/tests/tools/build_app_tool.rs); a project that does not exist is the contract's error.
    let r = s
        .call("build_app", json!({"project_path": "no/such/project"}))
        .await;
    validate(&tool("build_app"), &r);
    assert_eq!(r.is_error, Some(true));
    assert_eq!(
        r.structured_content.unwrap()["error"]["code"],
        "INVALID_PROJECT_PATH"
    );
    assert_eq!(
        r.content[0].as_text().unwrap().text.split(':').next(),
        Some("build_app")
    );
    called.insert("build_app");

    // The flow tools.
    let v = s
        .ok(
            "validate_flow",
            json!({"yaml": "name: x\nsteps:\n  - clik: Login\n"}),
        )
        .await;
    assert_eq!(v["valid"], false);
    let d = &v["diagnostics"][0];
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(3), Some(5)),
        "{v:#}"
    );
    assert!(d.to_string().contains("click"), "did you mean: {d}");
    called.insert("validate_flow");
    let p = s.ok("plan_flow", json!({"yaml": LOGIN_FLOW})).await;
    assert_eq!(p["valid"], true, "{p:#}");
    assert!(p["plan"]["flows"][0]["steps"].as_array().unwrap().len() >= 3);
    called.insert("plan_flow");
    let r = s.call("run_flow", json!({"yaml": LOGIN_FLOW})).await;
    validate(&tool("run_flow"), &r);
    let sc = r.structured_content.unwrap();
    assert_eq!(sc["result"]["passed"], true, "{sc:#}");
    let run_id = sc["result"]["run_id"].as_str().unwrap().to_string();
    assert!(std::path::Path::new(sc["result"]["result_path"].as_str().unwrap()).is_file());
    called.insert("run_flow");
    let g = s.ok("get_run", json!({"run_id": run_id})).await;
    assert_eq!(g["status"], "passed");
    assert_eq!(g["run_id"], run_id);
    called.insert("get_run");
    let (code, _) = s.err("get_run", json!({"run_id": "../etc"})).await;
    assert_eq!(code, "INVALID_PARAM");
    // The session so far as a flow (tests/mcp/save_flow.rs replays one on a fresh device).
    let r = s
        .call("save_flow", json!({"path": "flows/session.yaml"}))
        .await;
    validate(&tool("save_flow"), &r);
    let saved = r.structured_content.unwrap()["result"].clone();
    assert!(saved["steps"].as_u64().unwrap() >= 2, "{saved:#}");
    called.insert("save_flow");

    let listed: BTreeSet<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    let missing: Vec<&&str> = listed.difference(&called).collect();
    assert!(
        missing.is_empty(),
        "tools not exercised over MCP: {missing:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn errors_are_tool_results_except_unknown_tools() {
    let s = start(1, mcp_harness::all_tools()).await;
    // A bad argument is the agent's to read: isError with the contract's code.
    let (code, _) = s
        .err("wait_for_element", json!({"text": "x", "state": "later"}))
        .await;
    assert_eq!(code, "INVALID_WAIT_STATE");
    let (code, _) = s.err("click", json!({"x": 1, "text": "Login"})).await;
    assert_eq!(code, "PARAM_CONFLICT");
    let (code, _) = s
        .err("get_ui_tree", json!({"response_level": "huge"}))
        .await;
    assert_eq!(code, "INVALID_PARAM");
    // An unknown tool is a protocol error (-32602), not a result.
    let e = s.try_call("tap_everything", json!({})).await.unwrap_err();
    let text = format!("{e}");
    assert!(
        text.contains("unknown tool") && text.contains("-32602"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn approval_is_required_validated_and_echoed() {
    // Trusted-caller mode: the caller's own approval counts (tests/mcp/approval_flows.rs shows
    // it refused otherwise).
    let s = start(
        1,
        McpOptions {
            require_approval: true,
            trust_caller_approval: true,
            ..mcp_harness::all_tools()
        },
    )
    .await;
    let hello = hap(&s, "hello.hap", "com.example.hello");
    let (code, _) = s.err("install_app", json!({"hap_path": hello})).await;
    assert_eq!(code, "APPROVAL_REQUIRED");
    let (code, _) = s
        .err(
            "install_app",
            json!({"hap_path": hello, "approval": {"approved": true, "approved_by": "qa"}}),
        )
        .await;
    assert_eq!(code, "INVALID_APPROVAL");
    let (code, _) = s
        .err("install_app", json!({"hap_path": hello, "approval": {"approved": true, "approved_by": "qa", "reason": "r", "expires_at": "2020-01-01T00:00:00Z"}}))
        .await;
    assert_eq!(code, "APPROVAL_EXPIRED");
    let approval = json!({"approved": true, "approved_by": "qa-lead", "reason": "smoke test of build 42", "expires_at": "2999-01-01T00:00:00Z"});
    let r = s
        .call(
            "install_app",
            json!({"hap_path": hello, "approval": approval}),
        )
        .await;
    let sc = r.structured_content.unwrap();
    assert_eq!(sc["ok"], true, "{sc:#}");
    assert_eq!(sc["meta"]["approval"]["approved_by"], "qa-lead");
    assert_eq!(sc["meta"]["approval"]["required"], true);
    assert_eq!(sc["meta"]["approval"]["via"], "caller");
    // Tools whose policy needs none are not held up.
    s.ok("list_windows", json!({})).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn tool_globs_and_the_device_allowlist() {
    let s = start(
        2,
        McpOptions {
            deny_tools: vec!["*_app".into(), "build_*".into()],
            allow_devices: vec![],
            ..mcp_harness::all_tools()
        },
    )
    .await;
    let names: Vec<String> = s.tools().await.iter().map(|t| t.name.to_string()).collect();
    assert!(!names.iter().any(|n| n.ends_with("_app")), "{names:?}");
    assert!(names.contains(&"click".to_string()));
    let e = s
        .try_call("install_app", json!({"hap_path": "x.hap"}))
        .await
        .unwrap_err();
    assert!(format!("{e}").contains("not served"), "{e}");

    let allowed = start(2, mcp_harness::all_tools()).await;
    let first = allowed.serial(0);
    drop(allowed);
    let s = start(
        2,
        McpOptions {
            allow_devices: vec![first.clone()],
            ..mcp_harness::all_tools()
        },
    )
    .await;
    s.ok("list_windows", json!({"device_id": first})).await;
    let other = s.serial(1);
    let (code, _) = s.err("list_windows", json!({"device_id": other})).await;
    assert_eq!(code, "DEVICE_NOT_ALLOWED");
    // Two devices and none named: the allowlist needs a name.
    let (code, _) = s.err("list_windows", json!({})).await;
    assert_eq!(code, "DEVICE_NOT_ALLOWED");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn response_levels_on_the_demo_login_page() {
    let s = start(1, mcp_harness::all_tools()).await;
    s.ok("run_app", json!({"bundle_name": DEMO})).await;
    let tools = s.tools().await;
    let tool = tools.iter().find(|t| t.name == "get_ui_tree").unwrap();
    let mut sizes = Vec::new();
    for level in ["digest", "default", "full"] {
        let r = s
            .call("get_ui_tree", json!({"response_level": level}))
            .await;
        validate(tool, &r);
        let sc = r.structured_content.clone().unwrap();
        sizes.push((level, serde_json::to_string(&sc).unwrap().len()));
        match level {
            "digest" => {
                let d = &sc["result"];
                assert_eq!(d["response_level"], "digest");
                assert!(d["counts"]["nodes"].as_u64().unwrap() > 5);
                let first = d["first"].as_array().unwrap();
                assert!(first.iter().any(|e| e["id"] == "login"), "{d:#}");
                // A digest handle works as is.
                let login = first.iter().find(|e| e["id"] == "username").unwrap();
                s.ok(
                    "input_text",
                    json!({"element_handle": login["element_handle"], "text": "carol"}),
                )
                .await;
            }
            "default" => assert!(sc["result"]["ui_tree"].is_object()),
            _ => assert!(sc["result"]["cost"]["ui_dumps"].as_u64().unwrap() >= 1),
        }
    }
    eprintln!("get_ui_tree structuredContent bytes on the demo login page: {sizes:?}");
    assert!(sizes[0].1 < sizes[1].1, "digest is smaller: {sizes:?}");
}

/// The bytes of get_ui_tree's structuredContent at each level, for the real 1.5 MB layout
/// fixture served by the simulated device (docs/mcp.md quotes them).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn response_levels_on_the_large_real_layout() {
    let s = start(1, mcp_harness::all_tools()).await;
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/harmonyos/layout_haptest_vmall_web_keyboard_large_pretty.json"),
    )
    .unwrap();
    s.provider
        .simulator()
        .phone(&s.serial(0))
        .unwrap()
        .show_recorded_layout(&text)
        .unwrap();
    let tools = s.tools().await;
    let tool = tools.iter().find(|t| t.name == "get_ui_tree").unwrap();
    let mut sizes = Vec::new();
    for level in ["digest", "default", "full"] {
        let r = s
            .call("get_ui_tree", json!({"response_level": level}))
            .await;
        validate(tool, &r);
        let sc = r.structured_content.unwrap();
        assert_eq!(sc["ok"], true, "{level}");
        sizes.push((level, serde_json::to_string(&sc).unwrap().len()));
        if level == "digest" {
            let d = &sc["result"];
            assert!(d["counts"]["nodes"].as_u64().unwrap() > 300, "{d:#}");
            assert_eq!(d["first"].as_array().unwrap().len(), 25);
            assert!(d["omitted"].as_u64().unwrap() > 0);
        }
    }
    eprintln!("get_ui_tree structuredContent bytes on the 1.5 MB fixture: {sizes:?}");
    assert!(
        sizes[0].1 * 20 < sizes[1].1,
        "a digest is a small fraction: {sizes:?}"
    );
}

/// Flow tools with host paths (inside / outside the allowed roots) and a failing run that
/// points at its evidence.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn flow_tools_with_paths_and_a_failing_run() {
    let s = start(1, mcp_harness::all_tools()).await;
    let dir = s.tmp.path().join("flows");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("fails.yaml");
    std::fs::write(
        &file,
        "name: fails\napp: com.tapflow.demo\nclean_state: true\nsteps:\n  - wait_for_element: {text: \"Not on this page\", timeout_ms: 500}\n",
    )
    .unwrap();
    let v = s
        .ok("validate_flow", json!({"path": "flows/fails.yaml"}))
        .await;
    assert_eq!(v["valid"], true, "{v:#}");
    let (code, _) = s
        .err("validate_flow", json!({"path": "/etc/hostname"}))
        .await;
    assert_eq!(code, "PATH_NOT_ALLOWED");
    let (code, _) = s
        .err("validate_flow", json!({"path": "flows/missing.yaml"}))
        .await;
    assert_eq!(code, "FILE_NOT_FOUND");
    let (code, _) = s
        .err("validate_flow", json!({"yaml": "x", "path": "y"}))
        .await;
    assert_eq!(code, "PARAM_CONFLICT");
    let (code, sc) = s
        .err(
            "run_flow",
            json!({"yaml": "name: x\nsteps:\n  - clik: a\n"}),
        )
        .await;
    assert_eq!(code, "FLOW_INVALID");
    assert!(sc["error"]["details"]["diagnostics"][0]["line"].is_u64());

    let r = s
        .ok("run_flow", json!({"path": file.to_str().unwrap()}))
        .await;
    assert_eq!(r["passed"], false);
    let failing = &r["failing_step"];
    assert_eq!(failing["step"]["error"]["code"], "WAIT_TIMEOUT", "{r:#}");
    // The evidence of the failed step is on disk, under the run directory.
    let run_dir = std::path::PathBuf::from(r["run_dir"].as_str().unwrap());
    let text = failing.to_string();
    let evidence: Vec<&str> = text
        .split('"')
        .filter(|p| p.starts_with("artifacts/"))
        .collect();
    assert!(!evidence.is_empty(), "no evidence paths in {failing:#}");
    for p in evidence {
        assert!(run_dir.join(p).is_file(), "{p} missing");
    }
    let g = s.ok("get_run", json!({"run_id": r["run_id"]})).await;
    assert_eq!(g["failing_step"], r["failing_step"]);
}
