//! Concurrency and cancellation over MCP (rmcp client in-process, two simulated phones): a
//! busy device does not hold up another; a call that cannot get its device within its own
//! budget fails with DEVICE_BUSY; a cancelled long call (a wait, a whole flow) stops its device
//! work and hands the device on — measured, with generous hang guards only.

use crate::common::mcp_harness;

use std::time::{Duration, Instant};

use mcp_harness::start;
use rmcp::model::CallToolRequestParams;
use serde_json::{Map, Value, json};
use tapflow_sim::DEMO_BUNDLE as DEMO;

fn params(tool: &str, args: Value) -> CallToolRequestParams {
    let m: Map<String, Value> = args.as_object().unwrap().clone();
    CallToolRequestParams::new(tool.to_string()).with_arguments(m)
}

/// Polls (hang guard 10 s) until `f` holds.
async fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !f() {
        assert!(Instant::now() < deadline, "never happened: {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn busy_devices_queue_and_cancelled_calls_release_them() {
    let s = start(2, mcp_harness::all_tools()).await;
    let (a, b) = (s.serial(0), s.serial(1));
    s.ok("run_app", json!({"bundle_name": DEMO, "device_id": a}))
        .await;
    let peer = s.client.peer().clone();
    let long = tokio::spawn(async move {
        peer.call_tool(params(
            "wait_for_element",
            json!({"text": "never there", "timeout_ms": 60000, "device_id": a}),
        ))
        .await
    });
    // While the wait holds device a, a call with a short budget of its own gives up.
    let a = s.serial(0);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let busy = s
        .call(
            "wait_for_element",
            json!({"text": "x", "timeout_ms": 300, "device_id": a}),
        )
        .await;
    let sc = busy.structured_content.unwrap();
    assert_eq!(sc["error"]["code"], "DEVICE_BUSY", "{sc:#}");
    assert_eq!(sc["error"]["details"]["calls_ahead"], 1);
    // Device b is not held up by a.
    let r = s.call("list_windows", json!({"device_id": b})).await;
    let sc = r.structured_content.unwrap();
    assert_eq!(sc["ok"], true);
    assert_eq!(sc["meta"]["lane"]["calls_ahead"], 0, "{sc:#}");

    // Cancel the wait (dropping the request future sends notifications/cancelled).
    let cancelled_at = Instant::now();
    long.abort();
    let r = s.call("list_windows", json!({"device_id": a})).await;
    let handed_on = cancelled_at.elapsed();
    let sc = r.structured_content.unwrap();
    assert_eq!(sc["ok"], true, "{sc:#}");
    eprintln!(
        "cancelled wait_for_element: next call on the device answered {} ms after the cancel (queued {} ms)",
        handed_on.as_millis(),
        sc["meta"]["lane"]["waited_ms"]
    );
    assert!(
        handed_on < Duration::from_secs(30),
        "hang guard: the cancelled wait held the device"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_cancelled_flow_run_stops_and_says_so() {
    let s = start(1, mcp_harness::all_tools()).await;
    let flow = "name: waits\napp: com.tapflow.demo\nsteps:\n  - run_app: com.tapflow.demo\n  - wait_for_element: {text: never there, timeout_ms: 60000}\n";
    let peer = s.client.peer().clone();
    let run = tokio::spawn(async move {
        peer.call_tool(params("run_flow", json!({"yaml": flow})))
            .await
    });
    let reports = s.tmp.path().join("reports");
    // Wait until the run has started (its directory exists), then cancel it.
    eventually("the run starts", || {
        std::fs::read_dir(&reports).is_ok_and(|mut d| d.next().is_some())
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let cancelled_at = Instant::now();
    run.abort();
    let r = s.call("list_windows", json!({})).await;
    let handed_on = cancelled_at.elapsed();
    assert_eq!(r.structured_content.unwrap()["ok"], true);
    eprintln!(
        "cancelled run_flow: next call answered {} ms after the cancel",
        handed_on.as_millis()
    );
    assert!(handed_on < Duration::from_secs(30), "hang guard");
    // The run's result says it was interrupted.
    let dir = std::fs::read_dir(&reports)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap()).unwrap();
    assert_eq!(result["interrupted"], true, "{result:#}");
    assert_eq!(result["complete"], true);
}
