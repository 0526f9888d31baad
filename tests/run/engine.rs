//! The runner over the in-test fake device (tests/common/fake_device.rs): passing and failing
//! flows, error locations and evidence, `finally` after a failure, retries over transient
//! faults, shards and tags, an interrupted run keeping its result, secrets masked everywhere,
//! a device that fails its check, and every flow on every device.

use crate::common::fake_device;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use fake_device::{FakeDevice, FakeProvider};
use tapflow::run::{
    self, CollectEvents, DeviceChoice, RunEvent, RunOptions, RunResult, Shard, Status, TagFilter,
};
use tapflow_core::flow::SourceFile;
use tapflow_core::plan::{MapLoader, Plan, PlanOptions, compile};
use tapflow_tools::RegistryCatalog;
use tapflow_tools::{Engine, ToolConfig, ToolContext};

fn plan(files: &[(&str, &str)]) -> Plan {
    let engine = Arc::new(Engine::new());
    let catalog = RegistryCatalog::new(engine);
    let mut loader = MapLoader::new();
    let mut flows = Vec::new();
    let mut subs = Vec::new();
    for (name, text) in files {
        loader = loader.with(name, text);
        let src = SourceFile::new(name.to_string(), text.to_string());
        if tapflow_core::flow::is_subflow_path(name) {
            subs.push(src);
        } else {
            flows.push(src);
        }
    }
    let c = compile(&flows, &subs, &catalog, &loader, &PlanOptions::default());
    assert!(
        !c.has_errors(),
        "{}",
        tapflow_core::flow::render_text(&c.diagnostics, &c.sources)
    );
    c.plan
}

fn ctx(devices: Vec<Arc<FakeDevice>>) -> (ToolContext, Arc<FakeProvider>) {
    let provider = FakeProvider::new(devices);
    let dir = std::env::temp_dir();
    let config = ToolConfig {
        screenshots_dir: dir.clone(),
        ..ToolConfig::rooted_at(dir)
    };
    (ToolContext::new(provider.clone(), config), provider)
}

/// Makes the next `n` dumps of `dev` fail once its flow has started (after the device check).
struct FailDumpsOnStart {
    dev: Arc<FakeDevice>,
    n: u32,
}

impl run::EventSink for FailDumpsOnStart {
    fn emit(&self, e: &RunEvent) {
        if matches!(e, RunEvent::FlowStarted { .. }) {
            self.dev.failing_dumps.store(self.n, Ordering::SeqCst);
        }
    }
}

fn run_faulty(p: &Plan, dev: Arc<FakeDevice>, n: u32) -> RunResult {
    let (ctx, _) = ctx(vec![dev.clone()]);
    let opts = RunOptions::new("faulty");
    run::run(
        p,
        Arc::new(Engine::new()),
        ctx,
        &opts,
        &FailDumpsOnStart { dev, n },
    )
}

fn run_with(
    p: &Plan,
    devices: Vec<Arc<FakeDevice>>,
    tweak: impl FnOnce(&mut RunOptions),
) -> (RunResult, tempfile::TempDir, Vec<RunEvent>) {
    let dir = tempfile::tempdir().unwrap();
    let (ctx, _) = ctx(devices);
    let mut opts = RunOptions::new("test-run");
    opts.run_dir = Some(dir.path().to_path_buf());
    tweak(&mut opts);
    let events = CollectEvents::default();
    // With a run directory, the reporters write result.json and the reports; without one,
    // the runner alone (nothing written).
    let r = match &opts.run_dir {
        Some(d) => {
            let out = tapflow::report::Outputs::in_run_dir(d);
            tapflow::session::run_with_reports(
                p,
                Arc::new(Engine::new()),
                ctx,
                &opts,
                &events,
                &out,
            )
            .result
        }
        None => run::run(p, Arc::new(Engine::new()), ctx, &opts, &events),
    };
    (r, dir, events.take())
}

const LOGIN: &str = "name: Login
tags: [smoke]
steps:
  - assert_visible: Welcome
  - click: Login
  - assert_visible: {text: Home, timeout_ms: 2000}
";

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

fn many_flows(n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|i| {
            let tag = if i % 2 == 0 { "even" } else { "odd" };
            (
                format!("flows/f{i:02}.yaml"),
                format!("name: F{i}\ntags: [{tag}]\nsteps:\n  - assert_visible: Welcome\n"),
            )
        })
        .collect()
}

#[test]
fn shards_are_deterministic_and_cover_every_flow_once() {
    let files = many_flows(7);
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let p = plan(&refs);
    // The same flows given in another order shard identically.
    let mut reversed = refs.clone();
    reversed.reverse();
    let p2 = plan(&reversed);
    let mut seen = Vec::new();
    for i in 1..=3 {
        let shard = Shard { index: i, total: 3 };
        let (r, _d, _) = run_with(&p, vec![FakeDevice::new("SER1")], |o| o.shard = Some(shard));
        let (r2, _d2, _) = run_with(&p2, vec![FakeDevice::new("SER1")], |o| {
            o.shard = Some(shard)
        });
        let mut ids: Vec<String> = r.flows.iter().map(|f| f.id.clone()).collect();
        let mut ids2: Vec<String> = r2.flows.iter().map(|f| f.id.clone()).collect();
        ids.sort();
        ids2.sort();
        assert_eq!(ids, ids2);
        assert!(ids.len() == 2 || ids.len() == 3, "{ids:?}");
        assert_eq!(r.shard.as_deref(), Some(format!("{i}/3").as_str()));
        assert!(r.flows.iter().all(|f| f.status == Status::Passed));
        seen.extend(ids);
    }
    seen.sort();
    let mut all: Vec<String> = p.flows.iter().map(|f| f.id.clone()).collect();
    all.sort();
    assert_eq!(seen, all);
}

#[test]
fn tags_include_and_exclude() {
    let files = many_flows(4);
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let p = plan(&refs);
    let (r, _d, _) = run_with(&p, vec![FakeDevice::new("SER1")], |o| {
        o.tags = TagFilter {
            include: vec!["even".into()],
            exclude: vec![],
        }
    });
    let ran: Vec<&str> = r
        .flows
        .iter()
        .filter(|f| f.status == Status::Passed)
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(ran, ["F0", "F2"]);
    let skipped: Vec<&str> = r
        .flows
        .iter()
        .filter(|f| f.status == Status::Skipped)
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(skipped, ["F1", "F3"]);
    assert_eq!(r.status, Status::Passed);
    let (r, _d, _) = run_with(&p, vec![FakeDevice::new("SER1")], |o| {
        o.tags = TagFilter {
            include: vec![],
            exclude: vec!["EVEN".into()],
        }
    });
    assert_eq!(r.totals.passed, 2);
    assert_eq!(r.totals.skipped, 2);
}

#[test]
fn an_interrupted_run_keeps_its_result_and_runs_finally() {
    let p = plan(&[
        (
            "flows/a_wait.yaml",
            "name: Waits
finally:
  - press_key: Home
steps:
  - wait_for_element: {text: Never there, timeout_ms: 20000}
",
        ),
        (
            "flows/b_next.yaml",
            "name: Next\nsteps:\n  - press_key: Back\n",
        ),
    ]);
    let dev = FakeDevice::new("SER1");
    let dir = tempfile::tempdir().unwrap();
    let (ctx, _) = ctx(vec![dev.clone()]);
    let mut opts = RunOptions::new("intr");
    opts.run_dir = Some(dir.path().to_path_buf());
    let cancel = opts.cancel.clone();
    let started = Instant::now();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        cancel.cancel();
    });
    let out = tapflow::report::Outputs::in_run_dir(dir.path());
    let r = tapflow::session::run_with_reports(
        &p,
        Arc::new(Engine::new()),
        ctx,
        &opts,
        &run::NoEvents,
        &out,
    )
    .result;
    canceller.join().unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(r.interrupted);
    assert_eq!(r.status, Status::Interrupted);
    assert_eq!(r.flows[0].status, Status::Interrupted);
    assert_eq!(r.flows[0].steps[0].status, Status::Interrupted);
    assert_eq!(r.flows[0].finally[0].status, Status::Passed);
    assert_eq!(r.flows[1].status, Status::NotRun);
    let saved: RunResult =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("result.json")).unwrap())
            .unwrap();
    assert!(saved.interrupted);
    assert!(saved.complete);
    assert_eq!(saved.flows.len(), 2);
}

/// Reads `result.json` when the second flow starts.
struct PeekResult {
    path: std::path::PathBuf,
    seen: std::sync::Mutex<Option<RunResult>>,
}

impl run::EventSink for PeekResult {
    fn emit(&self, e: &RunEvent) {
        if let RunEvent::FlowStarted { flow_id, .. } = e
            && flow_id == "f01"
        {
            let text = std::fs::read_to_string(&self.path).unwrap();
            *self.seen.lock().unwrap() = Some(serde_json::from_str(&text).unwrap());
        }
    }
}

#[test]
fn the_result_is_written_after_every_flow() {
    let files = many_flows(2);
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let p = plan(&refs);
    let dir = tempfile::tempdir().unwrap();
    let (ctx, _) = ctx(vec![FakeDevice::new("SER1")]);
    let mut opts = RunOptions::new("partial");
    opts.run_dir = Some(dir.path().to_path_buf());
    let peek = PeekResult {
        path: dir.path().join("result.json"),
        seen: Default::default(),
    };
    let out = tapflow::report::Outputs::in_run_dir(dir.path());
    let live = tapflow::report::LiveResult::new(
        out.policy.clone(),
        out.result_json().display().to_string(),
        run::Masker::for_plan(&p),
    );
    let both = run::Fanout(vec![&live, &peek]);
    let r = run::run(&p, Arc::new(Engine::new()), ctx, &opts, &both);
    assert!(r.complete);
    // When the second flow starts, the file says the run is still going: the first flow
    // passed, the second is in progress, nothing claims an end.
    let partial = peek.seen.lock().unwrap().take().unwrap();
    assert!(!partial.complete);
    assert_eq!(partial.status, Status::Running);
    assert!(partial.finished_at.is_none());
    assert_eq!(partial.flows.len(), 2);
    assert_eq!(partial.flows[0].id, "f00");
    assert_eq!(partial.flows[0].status, Status::Passed);
    assert_eq!(partial.flows[1].id, "f01");
    assert_eq!(partial.flows[1].status, Status::Running);
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
fn secrets_never_reach_results_events_or_files() {
    let secret = "s3cr3t-Pa55";
    let p = plan(&[(
        "flows/secret.yaml",
        &format!(
            "name: Secret
env:
  PASSWORD: {{default: {secret}, secret: true}}
steps:
  - click: {{text: \"{{{{ PASSWORD }}}}\"}}
"
        ),
    )]);
    let (r, dir, events) = run_with(&p, vec![FakeDevice::new("SER1")], |_| {});
    assert_eq!(r.status, Status::Failed);
    let step = &r.flows[0].steps[0];
    assert_eq!(step.args.as_ref().unwrap()["text"], "******");
    let json = serde_json::to_string(&r).unwrap();
    assert!(!json.contains(secret), "{json}");
    let ev = serde_json::to_string(&events).unwrap();
    assert!(!ev.contains(secret));
    for entry in walkdir::WalkDir::new(dir.path()) {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let bytes = std::fs::read(entry.path()).unwrap();
            let text = String::from_utf8_lossy(&bytes);
            assert!(!text.contains(secret), "{}", entry.path().display());
        }
    }
}

#[test]
fn a_device_that_fails_its_check_leaves_its_flows_not_run() {
    let p = plan(&[("flows/login.yaml", LOGIN)]);
    let dev = FakeDevice::new("SER1");
    let (ctx, provider) = ctx(vec![dev]);
    provider
        .disconnected
        .lock()
        .unwrap()
        .insert("SER1".into(), true);
    let mut opts = RunOptions::new("dev");
    opts.devices = DeviceChoice::Serials(vec!["SER1".into()]);
    let r = run::run(&p, Arc::new(Engine::new()), ctx, &opts, &run::NoEvents);
    assert!(!r.devices[0].ready);
    assert_eq!(
        r.devices[0].error.as_ref().unwrap().code,
        "DEVICE_DISCONNECTED"
    );
    assert_eq!(r.flows[0].status, Status::NotRun);
    assert!(r.flows[0].reason.as_ref().unwrap().contains("SER1"));
    assert_eq!(tapflow::cli::run_cmd::exit_code(&r), 4);
}

#[test]
fn flows_split_across_devices_or_run_on_each() {
    let files = many_flows(4);
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let p = plan(&refs);
    let devs = || vec![FakeDevice::new("A"), FakeDevice::new("B")];
    let (r, _d, _) = run_with(&p, devs(), |o| {
        o.devices = DeviceChoice::Serials(vec!["A".into(), "B".into()])
    });
    assert_eq!(r.flows.len(), 4);
    let on_a = r
        .flows
        .iter()
        .filter(|f| f.device.as_deref() == Some("A"))
        .count();
    assert_eq!(on_a, 2, "equal flows alternate");
    assert_eq!(r.status, Status::Passed);
    let (r, _d, _) = run_with(&p, devs(), |o| {
        o.devices = DeviceChoice::Serials(vec!["A".into(), "B".into()]);
        o.each_device = true;
    });
    assert_eq!(r.flows.len(), 8);
    assert_eq!(r.status, Status::Passed);
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

#[test]
fn fail_fast_stops_starting_flows_after_a_failure() {
    let p = plan(&[
        (
            "flows/a.yaml",
            "name: A\nsteps:\n  - click: {text: Missing}\n",
        ),
        (
            "flows/b.yaml",
            "name: B\nsteps:\n  - assert_visible: Welcome\n",
        ),
    ]);
    let (r, _d, _) = run_with(&p, vec![FakeDevice::new("SER1")], |o| {
        o.run_dir = None;
        o.fail_fast = true;
    });
    assert_eq!(r.flows[0].status, Status::Failed);
    assert_eq!(r.flows[1].status, Status::NotRun);
    assert!(r.flows[1].reason.as_ref().unwrap().contains("fail-fast"));
    // Without it, the run continues.
    let (r, _d, _) = run_with(&p, vec![FakeDevice::new("SER1")], |o| o.run_dir = None);
    assert_eq!(r.flows[1].status, Status::Passed);
    assert_eq!(tapflow::cli::run_cmd::exit_code(&r), 1);
}
