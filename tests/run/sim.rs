//! The runner against the simulated device (in-process, through the real hdc backend):
//! the example flows pass on four devices in parallel; a flow that fails on purpose yields its
//! error with the source location and the evidence files (screenshot, UI tree, hilog lines,
//! the crash file); retries recover from injected transient faults.

use std::path::Path;
use std::sync::Arc;

use tapflow::run::{self, DeviceChoice, RunOptions, RunResult, Status};
use tapflow::sim_provider::sim_provider;
use tapflow_core::flow::SourceFile;
use tapflow_core::plan::{Plan, PlanOptions, SourceLoader, compile};
use tapflow_sim::Latency;
use tapflow_tools::RegistryCatalog;
use tapflow_tools::{Engine, ToolConfig, ToolContext};

struct Fs;

impl SourceLoader for Fs {
    fn load(&self, path: &str) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    }
}

fn compile_files(files: &[(String, String)]) -> Plan {
    let engine = Arc::new(Engine::new());
    let catalog = RegistryCatalog::new(engine);
    let (mut flows, mut subs) = (Vec::new(), Vec::new());
    for (name, text) in files {
        let src = SourceFile::new(name.clone(), text.clone());
        if tapflow_core::flow::is_subflow_path(name) {
            subs.push(src);
        } else {
            flows.push(src);
        }
    }
    let c = compile(&flows, &subs, &catalog, &Fs, &PlanOptions::default());
    assert!(
        !c.has_errors(),
        "{}",
        tapflow_core::flow::render_text(&c.diagnostics, &c.sources)
    );
    c.plan
}

fn example_flows() -> Plan {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("flows");
    let mut files = Vec::new();
    for e in walkdir::WalkDir::new(&dir).sort_by_file_name() {
        let e = e.unwrap();
        if e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "yaml") {
            files.push((
                e.path().display().to_string(),
                std::fs::read_to_string(e.path()).unwrap(),
            ));
        }
    }
    compile_files(&files)
}

fn run_on_sim(
    plan: &Plan,
    devices: usize,
    faults: Option<&str>,
    run_dir: Option<&Path>,
) -> RunResult {
    let cwd = std::env::temp_dir();
    let (provider, serials) = sim_provider(devices, faults, 7, Latency::None, &cwd).unwrap();
    let config = ToolConfig {
        screenshots_dir: cwd.clone(),
        ..ToolConfig::rooted_at(cwd)
    };
    let ctx = ToolContext::new(provider, config);
    let mut opts = RunOptions::new("sim-test");
    opts.devices = DeviceChoice::Serials(serials);
    opts.run_dir = run_dir.map(Path::to_path_buf);
    match run_dir {
        Some(d) => {
            let out = tapflow::report::Outputs::in_run_dir(d);
            tapflow::session::run_with_reports(
                plan,
                Arc::new(Engine::new()),
                ctx,
                &opts,
                &run::NoEvents,
                &out,
            )
            .result
        }
        None => run::run(plan, Arc::new(Engine::new()), ctx, &opts, &run::NoEvents),
    }
}

fn describe(r: &RunResult) -> String {
    r.flows
        .iter()
        .filter(|f| f.status != Status::Passed)
        .map(|f| format!("{} {:?}: {:?}", f.id, f.status, f.error))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_example_flows_pass_on_four_simulated_devices_in_parallel() {
    let plan = example_flows();
    assert!(plan.flows.len() >= 5);
    let r = run_on_sim(&plan, 4, None, None);
    assert_eq!(r.status, Status::Passed, "{}", describe(&r));
    assert_eq!(r.devices.len(), 4);
    assert!(r.devices.iter().all(|d| d.ready && d.api_level.is_some()));
    // Flows were spread over the devices.
    let used: std::collections::BTreeSet<_> = r.flows.iter().map(|f| f.device.clone()).collect();
    assert_eq!(used.len(), 4);
    // The sub-flow is inlined in several flows, and the crash was found through logs_query.
    let crash = r.flows.iter().find(|f| f.id == "crash_detection").unwrap();
    let q = crash.steps.last().unwrap();
    assert_eq!(q.tool.as_deref(), Some("logs_query"));
    assert!(q.result.as_ref().unwrap()["match_count"].as_u64().unwrap() >= 1);
    // Secrets (the passwords) never show in the result.
    let json = serde_json::to_string(&r).unwrap();
    for secret in [
        "hunter2-secret",
        "pa55-list",
        "pa55-settings",
        "pässwörd",
        "pa55-crash",
    ] {
        assert!(!json.contains(secret), "{secret} leaked");
    }
}

#[test]
fn a_flow_failing_on_purpose_has_its_location_and_evidence() {
    let file = std::env::temp_dir().join(format!("tapflow_fail_{}.yaml", std::process::id()));
    let text = "name: Fails on purpose
app: com.tapflow.demo
clean_state: true
finally:
  - stop_app: com.tapflow.demo
steps:
  - click: {element_id: login}
  - assert_visible: {text: Username is required, timeout_ms: 3000}
  - input_text: {element_id: username, text: crasher}
  - click: {element_id: login}
  - assert_visible: {element_id: crash, timeout_ms: 5000}
  - click: {element_id: crash}
  - assert_visible: {element_id: greeting, timeout_ms: 1500}
";
    std::fs::write(&file, text).unwrap();
    let name = file.display().to_string();
    let plan = compile_files(&[(name.clone(), text.to_string())]);
    let dir = tempfile::tempdir().unwrap();
    let r = run_on_sim(&plan, 1, None, Some(dir.path()));
    let _ = std::fs::remove_file(&file);
    let f = &r.flows[0];
    assert_eq!(f.status, Status::Failed, "{}", describe(&r));
    let err = f.error.as_ref().unwrap();
    // The app crashed before the wait: the crash is the cause (issue 7).
    assert_eq!(err.code, "APP_CRASHED");
    assert_eq!(err.details["cause"]["code"], "WAIT_TIMEOUT");
    let loc = err.location.as_ref().unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line, loc.column),
        (name.as_str(), 13, 5)
    );
    assert_eq!(f.finally[0].status, Status::Passed);
    let step = &f.steps[6];
    let kinds: Vec<&str> = step.evidence.iter().map(|e| e.kind.as_str()).collect();
    for k in ["screenshot", "ui_tree", "hilog", "crash"] {
        assert!(kinds.contains(&k), "{k} missing from {kinds:?}");
    }
    for e in &step.evidence {
        let p = dir.path().join(&e.path);
        assert!(p.metadata().unwrap().len() > 0, "{}", p.display());
    }
    let png = std::fs::read(dir.path().join(&step.evidence[0].path)).unwrap();
    assert!(png.starts_with(b"\x89PNG"));
    let hilog = std::fs::read_to_string(
        dir.path().join(
            &step
                .evidence
                .iter()
                .find(|e| e.kind == "hilog")
                .unwrap()
                .path,
        ),
    )
    .unwrap();
    assert!(hilog.contains("com.tapflow.demo"), "{hilog}");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(
        manifest["artifacts"].as_array().unwrap().len(),
        step.evidence.len()
    );
}

#[test]
fn retries_recover_from_injected_transient_faults() {
    // No implicit waits: they would ride out a broken dump themselves; this is about retries.
    let text = "name: Flaky device
app: com.tapflow.demo
defaults: {wait: 0}
steps:
  - run_app: com.tapflow.demo
    retries: {count: 6, delay: 10ms}
  - wait_for_element: {element_id: username, timeout_ms: 5000}
    retries: 6
  - find_elements: {element_id: remember}
    expect: {count: 1}
    retries: 6
  - find_elements: {element_id: login}
    expect: {count: 1}
    retries: 6
  - click: {element_id: login}
    retries: 6
  - wait_for_element: {element_id: error, timeout_ms: 5000}
    retries: 6
";
    // hdc's transient `[Fail][E000004]` is ridden out by the hdc backend itself (it never ran
    // the command), and so are most empty dumps (dumped again, five dumps in all); what reaches
    // the steps are dumps empty five times in a row (0.85^5: 44 %), which step retries ride out.
    let faults = "fail=0.25,empty-dump=0.85";
    let plan = compile_files(&[("flaky.yaml".into(), text.into())]);
    let r = run_on_sim(&plan, 1, Some(faults), None);
    assert_eq!(r.status, Status::Passed, "{} {:?}", describe(&r), r.devices);
    let retried = r
        .all_steps()
        .iter()
        .filter(|s| s.attempts.len() > 1)
        .count();
    assert!(
        retried >= 1,
        "no step needed a retry: the faults were not injected"
    );
    // Without retries, the same faults (same seed, same commands) fail the flow.
    let plain = text
        .replace("    retries: 6\n", "")
        .replace("    retries: {count: 6, delay: 10ms}\n", "");
    let plan = compile_files(&[("flaky.yaml".into(), plain)]);
    let r = run_on_sim(&plan, 1, Some(faults), None);
    assert_eq!(r.status, Status::Failed);
    // The transport faults alone need no step retry at all.
    let r = run_on_sim(&plan, 1, Some("fail=0.25"), None);
    assert_eq!(r.status, Status::Passed, "{}", describe(&r));
}
