//! Inside a flow: every step recorded, a failing step's location and evidence with `finally`
//! still run, retries over transient faults and retry blocks, flow timeouts, `repeat`, kept
//! results with conditions and expectations, step deadlines.

use super::*;

#[test]
fn a_passing_flow_records_every_step() {
    let p = plan(&[("flows/login.yaml", LOGIN)]);
    let (r, dir, events) = run_with(&p, vec![FakeDevice::new("SER1")], |_| {});
    assert_eq!(r.status, Status::Passed, "{r:#?}");
    assert_eq!(r.devices[0].serial, "SER1");
    assert!(r.devices[0].ready);
    assert_eq!(r.devices[0].model.as_deref(), Some("FAKE-AL00"));
    let f = &r.flows[0];
    assert_eq!(f.steps.len(), 3);
    assert!(f.steps.iter().all(|s| s.status == Status::Passed));
    assert_eq!(f.steps[1].tool.as_deref(), Some("click"));
    assert_eq!(f.steps[1].location.line, 5);
    assert_eq!(f.steps[1].attempts.len(), 1);
    assert!(f.steps[1].result.is_some());
    assert!(f.steps[0].bounds.is_some(), "{:?}", f.steps[0].result);
    assert_eq!(r.totals.steps, 3);
    // result.json and the manifest are written and parse back (only the time of the last
    // write differs from the runner's own fold of the events).
    let text = std::fs::read_to_string(dir.path().join("result.json")).unwrap();
    let mut back: RunResult = serde_json::from_str(&text).unwrap();
    back.updated_at = r.updated_at.clone();
    assert_eq!(back, r);
    assert!(dir.path().join("manifest.json").exists());
    assert!(matches!(events.first(), Some(RunEvent::RunStarted { .. })));
    assert!(matches!(events.last(), Some(RunEvent::RunFinished { .. })));
}

#[test]
fn a_failing_step_has_its_location_evidence_and_finally_runs() {
    let p = plan(&[(
        "flows/broken.yaml",
        "name: Broken
finally:
  - press_key: Home
on_failure:
  - press_key: Back
steps:
  - click: Login
  - click: {text: No such button}
  - press_key: Back
",
    )]);
    let dev = FakeDevice::new("SER1");
    let (r, dir, _) = run_with(&p, vec![dev.clone()], |_| {});
    assert_eq!(r.status, Status::Failed);
    let f = &r.flows[0];
    assert_eq!(f.status, Status::Failed);
    let e = f.error.as_ref().unwrap();
    assert_eq!(e.code, "ELEMENT_NOT_FOUND", "{e:?}");
    let loc = e.location.as_ref().unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line, loc.column),
        ("flows/broken.yaml", 8, 5)
    );
    assert_eq!(f.steps[2].status, Status::NotRun);
    assert_eq!(f.on_failure[0].status, Status::Passed);
    assert_eq!(f.finally[0].status, Status::Passed);
    let failed = &f.steps[1];
    let kinds: Vec<&str> = failed.evidence.iter().map(|e| e.kind.as_str()).collect();
    assert!(kinds.contains(&"screenshot"), "{kinds:?}");
    assert!(kinds.contains(&"ui_tree"), "{kinds:?}");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("manifest.json")).unwrap())
            .unwrap();
    let entries = manifest["artifacts"].as_array().unwrap();
    assert_eq!(entries.len(), failed.evidence.len());
    for (ev, m) in failed.evidence.iter().zip(entries) {
        let bytes = std::fs::read(dir.path().join(&ev.path)).unwrap();
        assert_eq!(m["path"], ev.path.as_str());
        assert_eq!(m["step"], "broken.2");
        assert_eq!(m["device"], "SER1");
        use sha2::Digest;
        assert_eq!(m["sha256"], hex::encode(sha2::Sha256::digest(&bytes)));
    }
    // The hooks really ran on the device: Back (on_failure) then Home (finally), in order.
    let keys: Vec<_> = dev
        .actions()
        .into_iter()
        .filter(|a| matches!(a, fake_device::Action::Key(_)))
        .collect();
    assert_eq!(keys.len(), 2, "{keys:?}");
}

#[test]
fn retries_recover_from_transient_dump_failures() {
    let p = plan(&[(
        "flows/retry.yaml",
        "name: Retry
steps:
  - click: Login
    retries: {count: 2, delay: 10ms}
",
    )]);
    let r = run_faulty(&p, FakeDevice::new("SER1"), 1);
    assert_eq!(r.status, Status::Passed, "{r:#?}");
    let s = &r.flows[0].steps[0];
    assert_eq!(s.attempts.len(), 2);
    assert_eq!(s.attempts[0].status, Status::Failed);
    assert_eq!(s.attempts[1].status, Status::Passed);
    // Without retries the same fault fails the step.
    let p = plan(&[(
        "flows/noretry.yaml",
        "name: No retry\nsteps:\n  - click: Login\n",
    )]);
    let r = run_faulty(&p, FakeDevice::new("SER1"), 1);
    assert_eq!(r.status, Status::Failed);
}

#[test]
fn a_retry_block_runs_its_steps_again() {
    let p = plan(&[(
        "flows/block.yaml",
        "name: Block
steps:
  - retry:
      times: 2
      steps:
        - click: Login
",
    )]);
    let r = run_faulty(&p, FakeDevice::new("SER1"), 2);
    assert_eq!(r.status, Status::Passed, "{r:#?}");
    let block = &r.flows[0].steps[0];
    assert_eq!(block.children.len(), 3);
    assert_eq!(block.children[2].status, Status::Passed);
}

#[test]
fn a_flow_timeout_stops_the_flow_and_finally_still_runs() {
    let p = plan(&[(
        "flows/slowflow.yaml",
        "name: Slow flow
timeout: 400ms
finally:
  - press_key: Home
steps:
  - wait_for_element: {text: Never there, timeout_ms: 5000}
  - press_key: Back
",
    )]);
    let started = Instant::now();
    let (r, _d, _) = run_with(&p, vec![FakeDevice::new("SER1")], |o| o.run_dir = None);
    assert!(started.elapsed() < Duration::from_secs(4));
    let f = &r.flows[0];
    assert_eq!(f.status, Status::Failed);
    assert_eq!(f.error.as_ref().unwrap().code, "FLOW_TIMEOUT");
    assert_eq!(f.steps[1].status, Status::NotRun);
    assert_eq!(f.finally[0].status, Status::Passed);
}

#[test]
fn repeat_runs_times_and_stops_when_while_fails() {
    let p = plan(&[(
        "flows/rep.yaml",
        "name: Repeat
env:
  N: \"3\"
steps:
  - repeat:
      times: \"{{ N }}\"
      steps:
        - find_elements: {text: Welcome}
  - repeat:
      times: 5
      while: {visible: {text: Welcome, timeout_ms: 2000, interval_ms: 0}}
      steps:
        - click: Login
",
    )]);
    let (r, _d, _) = run_with(&p, vec![FakeDevice::new("SER1")], |o| o.run_dir = None);
    let s = &r.flows[0].steps;
    assert_eq!(s[0].status, Status::Passed, "{:?}", s[0]);
    assert_eq!(s[0].children.len(), 3);
    assert_eq!(s[0].children[2].id, "rep.1#3");
    // After one Login click the home screen shows, so `while` stops the second loop.
    assert_eq!(s[1].status, Status::Passed, "{:?}", s[1]);
    assert_eq!(s[1].children.len(), 1);
}

#[test]
fn kept_results_conditions_and_expectations() {
    let p = plan(&[(
        "flows/keep.yaml",
        "name: Keep
env:
  MODE: fast
steps:
  - find_elements: {text: Item}
    keep: items
    expect: {count: {gte: 2}}
  - click: Login
    when: {var: MODE, equals: slow}
  - click: Login
    when: {var: steps.items.result.count, equals: 2}
  - wait_for_element: {text: Home, timeout_ms: 1000}
  - find_elements: {text: Home}
    expect: {count: 5}
",
    )]);
    let (r, _d, _) = run_with(&p, vec![FakeDevice::new("SER1")], |_| {});
    let s = &r.flows[0].steps;
    assert_eq!(s[0].status, Status::Passed, "{:?}", s[0]);
    assert_eq!(s[1].status, Status::Skipped);
    assert_eq!(s[2].status, Status::Passed, "{:?}", s[2]);
    assert_eq!(s[3].status, Status::Passed);
    assert_eq!(s[4].status, Status::Failed);
    assert_eq!(s[4].error.as_ref().unwrap().code, "EXPECTATION_FAILED");
}

#[test]
fn a_step_deadline_cuts_a_slow_tool_short() {
    let p = plan(&[(
        "flows/slow.yaml",
        "name: Slow
steps:
  - click: Login
    deadline: 200ms
",
    )]);
    let dev = FakeDevice::new("SER1");
    *dev.dump_latency.lock().unwrap() = Duration::from_secs(3);
    let started = Instant::now();
    let (r, _d, _) = run_with(&p, vec![dev], |o| o.run_dir = None);
    let s = &r.flows[0].steps[0];
    assert_eq!(s.error.as_ref().unwrap().code, "STEP_TIMEOUT", "{s:?}");
    // The preflight dump costs one latency; the step itself is cut at 200 ms.
    assert!(started.elapsed() < Duration::from_millis(3000 + 2500));
}
