//! The runner over the in-test fake device (`crates/tapflow-tools/tests/common/fake_device/`):
//! passing and failing flows, error locations and evidence, `finally` after a failure, retries
//! over transient faults, shards and tags, an interrupted run keeping its result, secrets masked
//! everywhere, a device that fails its check, and every flow on every device.
//!
//! Here: plans compiled from inline flows, contexts over fake devices, and runs with or without
//! reports. `steps` holds what happens inside a flow (failures, retries, timeouts, repeats, kept
//! results, deadlines); `runs` what happens to the run as a whole (shards, tags, interruption,
//! the result written as it goes, secrets, device checks, devices, fail-fast).

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

mod runs;
mod steps;

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
