//! UI tools that observe: find_elements, screenshot, get_ui_tree, list_windows and
//! wait_for_element; failing dumps and their codes; a caching provider resolving each route
//! once, and the engine and context shared across threads.

use super::*;

#[test]
fn find_elements_returns_handles_bounds_and_scope() {
    let e = env();
    let r = e.ok("find_elements", json!({"text":"Item"}));
    assert_eq!(r["count"], 2);
    let el = &r["elements"][0];
    assert_eq!(
        el["bounds"],
        json!({"left":100,"top":900,"right":600,"bottom":1000})
    );
    assert_eq!(el["element_handle"]["window_id"], APP_WINDOW);
    assert_eq!(el["element_handle"]["type"], "Text");
    assert_eq!(el["lookup_is_broad"], true);
    assert_eq!(el["bundle_name"], BUNDLE);
    let r = e.ok("find_elements", json!({"text":"12:00","window_id":3}));
    assert_eq!(r["count"], 1);
    let r = e.ok("find_elements", json!({"text":"Item","index":1}));
    assert_eq!(r["count"], 1);
    assert_eq!(r["elements"][0]["bounds"]["left"], 660);
}

#[test]
fn screenshot_full_region_and_default_path() {
    let e = env();
    let r = e.ok("screenshot", json!({}));
    let path = r["local_path"].as_str().unwrap();
    assert!(
        path.starts_with(e.tmp.path().join("shots").to_str().unwrap()),
        "{path}"
    );
    assert!(path.ends_with(".png"));
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(bytes.len() as u64, r["file_size"].as_u64().unwrap());
    assert_eq!(image::load_from_memory(&bytes).unwrap().width(), 126);
    assert_eq!(r["display_id"], 0);
    let r = e.ok(
        "screenshot",
        json!({"local_path":"out/region.jpg","left":10,"top":20,"right":110,"bottom":70}),
    );
    assert_eq!(
        r["bounds"],
        json!({"left":10,"top":20,"right":110,"bottom":70})
    );
    assert_eq!(r["format"], "jpeg");
    assert_eq!(
        (r["width"].as_u64(), r["height"].as_u64()),
        (Some(100), Some(50))
    );
    assert!(e.tmp.path().join("out/region.jpg").is_file());
    *e.dev.next_screenshot_error.lock().unwrap() = Some(tapflow_device::DeviceError::Command {
        code: tapflow_core::codes::SCREENSHOT_ERROR,
        what: "snapshot_display".into(),
        device_says: "error: current mode is not developer mode, just return.".into(),
    });
    let (code, details) = e.err("screenshot", json!({}));
    assert_eq!(code, "SCREENSHOT_ERROR");
    assert_eq!(details["cause_code"], "SCREENSHOT_ERROR");
}

#[test]
fn get_ui_tree_global_and_validated_window() {
    let e = env();
    let r = e.ok("get_ui_tree", json!({}));
    assert_eq!(r["capture_scope"], "global");
    assert_eq!(r["validation_applied"], false);
    assert_eq!(r["ui_tree"]["children"].as_array().unwrap().len(), 2);
    let total = r["node_count"].as_u64().unwrap();
    let before = e.cost();
    let r = e.ok("get_ui_tree", json!({"bundle_name": BUNDLE}));
    assert_eq!((e.cost() - before).ui_dumps, 1);
    assert_eq!(r["capture_scope"], "window");
    assert_eq!(r["validated_window_id"], APP_WINDOW);
    assert_eq!(r["window_id"], Value::Null);
    assert_eq!(r["validation_applied"], true);
    assert_eq!(r["ui_tree"]["attributes"]["bundleName"], BUNDLE);
    assert!(r["node_count"].as_u64().unwrap() < total);
    let r = e.ok("get_ui_tree", json!({"window_id": 3}));
    assert_eq!(r["node_count"], 2);
    // Bundles resolved through the dump when the window table does not name them.
    *e.dev.windows_name_bundles.lock().unwrap() = false;
    assert_eq!(
        e.ok("get_ui_tree", json!({"bundle_name": BUNDLE}))["validated_window_id"],
        APP_WINDOW
    );
}

#[test]
fn list_windows_foreground_and_filter() {
    let e = env();
    let r = e.ok("list_windows", json!({}));
    assert_eq!(r["total_count"], 3);
    assert_eq!(r["count"], 3);
    let fg: Vec<i64> = r["windows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["is_foreground"] == true)
        .map(|w| w["window_id"].as_i64().unwrap())
        .collect();
    assert_eq!(fg, vec![APP_WINDOW]);
    let sys = r["windows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["window_id"] == 3)
        .unwrap();
    assert_eq!(sys["is_app"], false);
    let r = e.ok("list_windows", json!({"bundle_name":" COM.EXAMPLE.DEMO "}));
    assert_eq!(
        (r["count"].as_u64(), r["total_count"].as_u64()),
        (Some(1), Some(3))
    );
    // On the desktop, SceneBoard is never the application foreground window.
    e.dev.set_screen(Screen::Desktop);
    let r = e.ok("list_windows", json!({}));
    assert!(
        r["windows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| w["is_foreground"] == false)
    );
}

#[test]
fn wait_for_element_first_poll_costs_two_dumps() {
    let e = env();
    let before = e.cost();
    let r = e.ok("wait_for_element", json!({"text":"Login","interval_ms":10}));
    let spent = e.cost() - before;
    assert_eq!(spent.ui_dumps, 2, "one poll + one confirmation");
    assert_eq!(r["satisfied"], true);
    assert_eq!(r["state"], "found");
    assert_eq!(r["element"]["element_handle"]["compid"], "10:4");
    assert_eq!(r["polls"], 2);
    let r = e.ok(
        "wait_for_element",
        json!({"text":"Item","index":1,"interval_ms":0}),
    );
    assert_eq!(
        r["element"]["bounds"]["left"], 660,
        "index in reading order"
    );
    assert_eq!(
        e.err(
            "wait_for_element",
            json!({"text":"Item","index":2,"timeout_ms":100,"interval_ms":20})
        )
        .0,
        "WAIT_TIMEOUT"
    );
    assert_eq!(
        e.err(
            "wait_for_element",
            json!({"text":"Item","index":0,"state":"gone"})
        )
        .0,
        "PARAM_CONFLICT"
    );
    let before = e.cost();
    e.ok("wait_for_element", json!({"text":"Login","interval_ms":0}));
    assert_eq!(
        (e.cost() - before).ui_dumps,
        1,
        "interval 0: no confirmation"
    );
}

#[test]
fn wait_for_element_zero_timeout_touches_nothing() {
    let e = env();
    let before = e.cost();
    let (code, details) = e.err("wait_for_element", json!({"text":"Login","timeout_ms":0}));
    assert_eq!(code, "WAIT_TIMEOUT");
    assert_eq!(details["polls"], 0);
    assert_eq!(e.cost() - before, tapflow_device::Cost::default());
    assert!(
        e.provider.routes().is_empty(),
        "not even the device was resolved"
    );
}

#[test]
fn wait_for_element_sees_a_delayed_transition_and_gone() {
    let e = env();
    *e.dev.transition_delay.lock().unwrap() = Duration::from_millis(200);
    e.ok("click", json!({"text":"Login"}));
    assert_eq!(e.dev.screen(), Screen::Login);
    let r = e.ok(
        "wait_for_element",
        json!({"text":"Loading…","state":"gone","timeout_ms":3000,"interval_ms":50}),
    );
    assert_eq!(r["element"], Value::Null);
    assert!(r["elapsed_ms"].as_u64().unwrap() >= 100);
    let r = e.ok(
        "wait_for_element",
        json!({"text":"Home","timeout_ms":3000,"interval_ms":50,"bundle_name":BUNDLE}),
    );
    assert_eq!(r["element"]["text"], "Home");
}

#[test]
fn wait_for_element_budget_is_strict_even_with_a_slow_device() {
    let e = env();
    *e.dev.dump_latency.lock().unwrap() = Duration::from_millis(400);
    let start = std::time::Instant::now();
    let (code, details) = e.err(
        "wait_for_element",
        json!({"text":"Login","timeout_ms":250,"interval_ms":10}),
    );
    assert_eq!(code, "WAIT_TIMEOUT");
    assert_eq!(details["polls"], 0, "the pending dump was abandoned");
    // Generous bound: the call must not wait for the 400ms dump.
    assert!(
        start.elapsed() < Duration::from_millis(390),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn wait_for_element_confirmation_shares_the_budget() {
    // "Device queries, polling sleeps, and stability confirmation all share the timeout_ms budget"
    let e = env();
    let start = std::time::Instant::now();
    let (code, details) = e.err(
        "wait_for_element",
        json!({"text":"Login","timeout_ms":150,"interval_ms":1000}),
    );
    assert_eq!(code, "WAIT_TIMEOUT");
    assert_eq!(details["polls"], 1, "seen once, confirmation did not fit");
    assert_eq!(details["last_match_count"], 1);
    assert!(
        start.elapsed() < Duration::from_millis(900),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn wait_for_element_rides_out_transient_dump_failures() {
    let e = env();
    e.dev
        .failing_dumps
        .store(2, std::sync::atomic::Ordering::SeqCst);
    let r = e.ok(
        "wait_for_element",
        json!({"text":"Login","timeout_ms":2000,"interval_ms":10}),
    );
    assert_eq!(r["polls"], 4);
}

#[test]
fn a_failing_dump_maps_to_ui_tree_fetch_error() {
    let e = env();
    e.dev
        .failing_dumps
        .store(1, std::sync::atomic::Ordering::SeqCst);
    let (code, details) = e.err("get_ui_tree", json!({}));
    assert_eq!(code, "UI_TREE_FETCH_ERROR");
    assert!(
        details["device_says"]
            .as_str()
            .unwrap()
            .starts_with("DumpLayout failed")
    );
}

#[test]
fn dump_failures_map_to_payload_fetch_or_infrastructure_codes() {
    use tapflow_device::DeviceError;
    let e = env();
    *e.dev.next_dump_error.lock().unwrap() = Some(DeviceError::Parse {
        // A code that the tool replaces (a backend's `INVALID_*` refusal would pass through).
        code: tapflow_core::codes::UI_TREE_FETCH_ERROR,
        what: "layout JSON".into(),
        detail: "EOF while parsing".into(),
    });
    let (code, details) = e.err("get_ui_tree", json!({}));
    assert_eq!(code, "INVALID_UI_TREE_PAYLOAD");
    assert_eq!(details["cause_code"], "UI_TREE_FETCH_ERROR");
    *e.dev.next_dump_error.lock().unwrap() = Some(DeviceError::Timeout {
        command: "uitest dumpLayout".into(),
        after: Duration::from_secs(10),
    });
    assert_eq!(
        e.err("click", json!({"text":"Login"})).0,
        "HDC_TIMEOUT",
        "infrastructure codes pass through"
    );
    assert!(
        !e.dev.actions().iter().any(|a| matches!(a, Action::Tap(..))),
        "nothing tapped"
    );
    *e.dev.next_dump_error.lock().unwrap() = Some(DeviceError::ScreenLocked {
        serial: "FAKE0001".into(),
    });
    assert_eq!(
        e.err("find_elements", json!({"text":"Login"})).0,
        "SCREEN_LOCKED"
    );
    // A non-transient error ends a wait at once instead of burning the budget.
    *e.dev.next_dump_error.lock().unwrap() = Some(DeviceError::Disconnected {
        device_says: "gone".into(),
    });
    assert_eq!(
        e.err(
            "wait_for_element",
            json!({"text":"Login","timeout_ms":5000})
        )
        .0,
        "DEVICE_DISCONNECTED"
    );
}

#[test]
fn a_caching_provider_resolves_each_route_once() {
    use tapflow_tools::CachingProvider;
    let dev = FakeDevice::new("C1");
    let inner = FakeProvider::new(vec![dev]);
    let caching = Arc::new(CachingProvider::new(inner.clone(), Duration::from_secs(60)));
    let ctx = ToolContext::new(caching.clone(), ToolConfig::default());
    let engine = Engine::new();
    for _ in 0..3 {
        assert!(
            engine
                .call("find_elements", json!({"text":"Welcome"}), &ctx)
                .ok()
        );
    }
    assert!(
        engine
            .call(
                "find_elements",
                json!({"text":"Welcome","device_id":"C1"}),
                &ctx
            )
            .ok()
    );
    assert_eq!(inner.routes().len(), 2, "one resolution per distinct route");
    caching.forget();
    assert!(
        engine
            .call("find_elements", json!({"text":"Welcome"}), &ctx)
            .ok()
    );
    assert_eq!(inner.routes().len(), 3);
    let expired = CachingProvider::new(inner.clone(), Duration::ZERO);
    let ctx = ToolContext::new(Arc::new(expired), ToolConfig::default());
    engine.call("list_windows", json!({}), &ctx);
    engine.call("list_windows", json!({}), &ctx);
    assert_eq!(inner.routes().len(), 5, "no reuse after the ttl");
}

#[test]
fn engine_and_context_are_shareable_across_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Engine>();
    shareable::<ToolContext>();
    let e = Arc::new(env());
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let e = e.clone();
            std::thread::spawn(move || {
                e.engine
                    .call("find_elements", json!({"text":"Welcome"}), &e.ctx)
                    .ok()
            })
        })
        .collect();
    assert!(handles.into_iter().all(|h| h.join().unwrap()));
}
