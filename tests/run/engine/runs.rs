//! The run as a whole: deterministic shards, tags, an interrupted run keeping its result, the
//! result written after every flow, secrets kept out of results, events and files, a device that
//! fails its check, flows split across devices or run on each, fail-fast.

use super::*;

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
