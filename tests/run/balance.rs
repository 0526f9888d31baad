//! Split runs give each flow, longest expected first, to the least loaded device
//! (`src/run/schedule.rs`): the previous run's durations when given, else step counts; each
//! device runs its share longest first; results stay in plan order; a device that fails its
//! check leaves its share to the devices that passed. Orders and placements are asserted,
//! never timings (those are `benches/login.rs`'s `scaling`).

use std::sync::{Arc, Mutex};

use tapflow::run::schedule::Expected;
use tapflow::run::{self, DeviceChoice, EventSink, RunEvent, RunOptions, RunResult, Status};
use tapflow::sim_provider::sim_provider;
use tapflow_core::flow::SourceFile;
use tapflow_core::plan::{MapLoader, Plan, PlanOptions, compile};
use tapflow_sim::Latency;
use tapflow_tools::RegistryCatalog;
use tapflow_tools::{Engine, ToolConfig, ToolContext};

/// A flow that launches the demo app and makes `n` finds on its login page.
fn flow(id: &str, n: usize) -> (String, String) {
    let mut text = format!("name: {id}\nsteps:\n  - run_app: com.tapflow.demo\n");
    for _ in 0..n {
        text.push_str("  - find_elements: {element_id: login}\n");
    }
    (format!("{id}.yaml"), text)
}

fn plan_of(flows: &[(String, String)], engine: &Arc<Engine>) -> Plan {
    let files: Vec<_> = flows
        .iter()
        .map(|(n, t)| SourceFile::new(n.clone(), t.clone()))
        .collect();
    let c = compile(
        &files,
        &[],
        &RegistryCatalog::new(engine.clone()),
        &MapLoader::new(),
        &PlanOptions::default(),
    );
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    c.plan
}

#[derive(Default)]
struct Starts(Mutex<Vec<(String, String)>>);

impl EventSink for Starts {
    fn emit(&self, e: &RunEvent) {
        if let RunEvent::FlowStarted {
            device, flow_id, ..
        } = e
        {
            self.0
                .lock()
                .unwrap()
                .push((flow_id.clone(), device.clone()));
        }
    }
}

/// Runs `flows` split over `devices` sim phones (plus `extra` serials that do not exist).
fn run_split(
    flows: &[(String, String)],
    devices: usize,
    extra: &[&str],
    expected: Expected,
) -> (RunResult, Vec<(String, String)>) {
    let dir = tempfile::tempdir().unwrap();
    let (provider, mut serials) =
        sim_provider(devices.max(1), None, 1, Latency::None, dir.path()).unwrap();
    serials.truncate(devices);
    serials.extend(extra.iter().map(|s| s.to_string()));
    let engine = Arc::new(Engine::new());
    let plan = plan_of(flows, &engine);
    let ctx = ToolContext::new(provider, ToolConfig::rooted_at(dir.path()));
    let mut opts = RunOptions::new("schedule");
    opts.devices = DeviceChoice::Serials(serials);
    opts.expected = expected;
    let starts = Starts::default();
    let r = run::run(&plan, engine, ctx, &opts, &starts);
    (r, starts.0.into_inner().unwrap())
}

fn ids(r: &RunResult) -> Vec<&str> {
    r.flows.iter().map(|f| f.id.as_str()).collect()
}

#[test]
fn the_previous_runs_durations_split_the_flows_and_results_keep_plan_order() {
    let flows = [flow("a", 1), flow("b", 1), flow("c", 1), flow("d", 1)];
    let prev = Expected::from_durations([
        ("a".to_string(), 1_000),
        ("b".to_string(), 200),
        ("c".to_string(), 9_000),
        ("d".to_string(), 8_000),
    ]);
    let (r, starts) = run_split(&flows, 2, &[], prev);
    assert_eq!(ids(&r), ["a", "b", "c", "d"], "plan order");
    assert!(r.flows.iter().all(|f| f.status == Status::Passed));
    // c (9 s) on the first device, d (8 s) on the second, then a (1 s) on the less loaded
    // second, b on the first; round robin would have put a and c together (10 s vs 8.2 s).
    let on = |id: &str| r.flows.iter().find(|f| f.id == id).unwrap().device.clone();
    let (first, second) = (
        Some(r.devices[0].serial.clone()),
        Some(r.devices[1].serial.clone()),
    );
    assert_eq!(
        [on("c"), on("b"), on("d"), on("a")],
        [first.clone(), first.clone(), second.clone(), second.clone()]
    );
    // Each device runs its share longest first.
    let order_on = |dev: &Option<String>| -> Vec<String> {
        starts
            .iter()
            .filter(|(_, d)| Some(d) == dev.as_ref())
            .map(|(f, _)| f.clone())
            .collect()
    };
    assert_eq!(order_on(&first), ["c", "b"]);
    assert_eq!(order_on(&second), ["d", "a"]);
}

#[test]
fn without_a_previous_run_the_flow_with_most_steps_starts_first() {
    let flows = [flow("short1", 1), flow("short2", 1), flow("long", 6)];
    let (r, starts) = run_split(&flows, 1, &[], Expected::default());
    assert!(r.flows.iter().all(|f| f.status == Status::Passed));
    let order: Vec<&str> = starts.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(order, ["long", "short1", "short2"]);
}

#[test]
fn a_device_that_fails_its_check_leaves_its_flows_to_the_others() {
    // Round robin gave every second flow to the missing device, which then were not run.
    let flows = [flow("a", 1), flow("b", 1), flow("c", 1), flow("d", 1)];
    let (r, starts) = run_split(&flows, 1, &["NOSUCHDEVICE"], Expected::default());
    assert!(!r.devices[1].ready);
    assert!(
        r.flows.iter().all(|f| f.status == Status::Passed),
        "{:#?}",
        r.flows
            .iter()
            .map(|f| (&f.id, f.status, &f.reason))
            .collect::<Vec<_>>()
    );
    assert!(starts.iter().all(|(_, d)| *d == r.devices[0].serial));
}

#[test]
fn when_no_device_passes_every_flow_is_not_run_with_the_reason() {
    let flows = [flow("a", 1), flow("b", 1)];
    let (r, starts) = run_split(&flows, 0, &["NOSUCHDEVICE"], Expected::default());
    assert!(starts.is_empty());
    for f in &r.flows {
        assert_eq!(f.status, Status::NotRun);
        assert!(
            f.reason.as_deref().unwrap().contains("failed its check"),
            "{f:?}"
        );
    }
}
