//! `tapflow mcp --sim 1 --platform android --tools all` as a real process, driven over stdio by
//! the rmcp client: tools/list is the one registry (the same list as on HarmonyOS but for
//! `build_app`, which builds HarmonyOS artifacts only; no Android-only tools), in Android's
//! words and without the HarmonyOS-only `hdc_server` (refused when passed), every answer matches the tool's outputSchema, `meta.platform` says `android` when a
//! device answered (and is absent for a host-only call), a `.hap` is `UNSUPPORTED_ON_PLATFORM`,
//! `press_key` sends Android keycodes, `run_flow` passes a HarmonyOS flow unchanged, and closing stdin stops the server and its private adb
//! server (exit 0).

use crate::common::adb_env;
use crate::common::cli;

use std::process::Stdio;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};

use tapflow_sim::DEMO_BUNDLE as DEMO;

struct Client {
    session: RunningService<RoleClient, ()>,
    tools: Vec<Tool>,
}

impl Client {
    async fn call(&self, tool: &str, args: Value) -> Value {
        let Value::Object(args) = args else {
            panic!("arguments must be an object")
        };
        let r: CallToolResult = tokio::time::timeout(
            Duration::from_secs(60),
            self.session
                .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args)),
        )
        .await
        .unwrap_or_else(|_| panic!("{tool}: no answer within the hang guard"))
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
        let def = self.tools.iter().find(|t| t.name == tool).expect("listed");
        let schema = Value::Object(
            def.output_schema
                .as_ref()
                .expect("outputSchema")
                .as_ref()
                .clone(),
        );
        let sc = r.structured_content.clone().expect("structuredContent");
        if let Err(e) = jsonschema::validate(&schema, &sc) {
            panic!("{tool}: does not match its outputSchema: {e}\n{sc:#}");
        }
        assert_eq!(
            r.is_error,
            Some(sc["ok"] != true),
            "{tool}: isError mirrors ok"
        );
        sc
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_serves_the_registry_on_a_simulated_android_device() {
    let tmp = tempfile::tempdir().unwrap();
    let mut child = tokio::process::Command::new(cli::bin())
        .args([
            "mcp",
            "--sim",
            "1",
            "--platform",
            "android",
            "--sim-latency",
            "none",
            "--tools",
            "all",
        ])
        .arg("--allow-root")
        .arg(tmp.path())
        .current_dir(tmp.path())
        // The real adb, with its keys in a scratch home and no inherited server choice.
        .env("TAPFLOW_ADB", adb_env::adb_path())
        .env("HOME", tmp.path())
        .env_remove("ANDROID_SERIAL")
        .env_remove("ADB_SERVER_SOCKET")
        .env_remove("ANDROID_ADB_SERVER_PORT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("tapflow mcp starts");
    let transport = (
        child.stdout.take().expect("stdout"),
        child.stdin.take().expect("stdin"),
    );
    let session = tokio::time::timeout(Duration::from_secs(60), ().serve(transport))
        .await
        .expect("the handshake within the hang guard")
        .expect("the MCP session starts");
    let tools = session.list_all_tools().await.expect("tools/list");
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    let registry: Vec<String> = tapflow::mcp::engine()
        .tools()
        .map(|t| t.name.to_string())
        .filter(|n| n != "build_app")
        .collect();
    assert_eq!(
        names, registry,
        "the same registry as on HarmonyOS, but build_app"
    );
    // Platform-aware: Android's words, no HarmonyOS-only parameter.
    for t in &tools {
        let words = format!(
            "{} {}",
            t.description.as_deref().unwrap_or(""),
            Value::Object(t.input_schema.as_ref().clone())
        );
        for w in [
            "HarmonyOS",
            "hdc",
            "hilog",
            "ArkUI",
            "aa force-stop",
            "bm clean",
        ] {
            assert!(!words.contains(w), "{}: says `{w}`: {words}", t.name);
        }
    }
    let stop = tools.iter().find(|t| t.name == "stop_app").unwrap();
    assert!(
        stop.description
            .as_deref()
            .unwrap()
            .contains("am force-stop"),
        "{stop:?}"
    );
    let install = tools.iter().find(|t| t.name == "install_app").unwrap();
    let hap_doc = install.input_schema["properties"]["hap_path"].to_string();
    assert!(
        hap_doc.contains(".apk"),
        "install_app says what Android takes: {hap_doc}"
    );
    let c = Client { session, tools };

    let devices = c.call("list_devices", json!({})).await;
    assert_eq!(devices["ok"], true, "{devices:#}");
    assert_eq!(
        devices["result"]["devices"][0]["info"]["platform"],
        "android"
    );
    assert!(
        devices["meta"].get("platform").is_none(),
        "a listing resolves no device: {devices:#}"
    );

    // hdc_server is not in the schemas, and not taken either.
    let foreign = c
        .call("list_devices", json!({ "hdc_server": "127.0.0.1:8710" }))
        .await;
    assert_eq!(foreign["error"]["code"], "INVALID_PARAM", "{foreign:#}");
    assert_eq!(foreign["error"]["details"]["param"], "hdc_server");

    let run = c.call("run_app", json!({ "bundle_name": DEMO })).await;
    assert_eq!(run["ok"], true, "{run:#}");
    assert_eq!(run["meta"]["platform"], "android");

    let found = c
        .call("find_elements", json!({ "element_id": "username" }))
        .await;
    assert_eq!(found["ok"], true, "{found:#}");
    assert_eq!(found["meta"]["platform"], "android");
    let el = &found["result"]["elements"][0];
    assert_eq!(el["type"], "android.widget.EditText", "{el:#}");

    let key = c.call("press_key", json!({ "key": "Enter" })).await;
    assert_eq!(key["ok"], true, "{key:#}");
    assert_eq!(key["result"]["key_code"], 66, "KEYCODE_ENTER on Android");

    let hap = tmp.path().join("entry.hap");
    std::fs::write(&hap, b"not for Android").unwrap();
    let refused = c
        .call("install_app", json!({ "hap_path": hap.to_string_lossy() }))
        .await;
    assert_eq!(
        refused["error"]["code"], "UNSUPPORTED_ON_PLATFORM",
        "{refused:#}"
    );
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains(".apk"),
        "names the alternative: {refused:#}"
    );
    assert_eq!(refused["meta"]["platform"], "android");

    // A whole flow over MCP, unchanged from HarmonyOS, on the Android device.
    let flow = c
        .call(
            "run_flow",
            json!({ "yaml": "name: MCP login on Android\napp: com.tapflow.demo\nclean_state: true\nsteps:\n  - input_text: {element_id: username, text: alice}\n  - click: {element_id: login}\n  - wait_for_element: {text: \"Hello, alice!\", timeout_ms: 8000}\n" }),
        )
        .await;
    assert_eq!(flow["result"]["passed"], true, "{flow:#}");

    // Closing the client closes stdin: the server, its simulated device and its private adb
    // server stop.
    let Client { session, .. } = c;
    let _ = session.cancel().await;
    let status = tokio::time::timeout(Duration::from_secs(60), child.wait())
        .await
        .expect("the server exits once stdin closes")
        .expect("wait");
    assert_eq!(status.code(), Some(0));
}
