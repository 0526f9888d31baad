//! One run with everything a report must show, on two in-test fake devices through the real
//! engine and runner, with every reporter (`session::run_with_reports`):
//!
//! | flow | device | what happens |
//! |---|---|---|
//! | `a_pass` | SER1 | passes |
//! | `b_flaky` | SER2 | a step fails once (a UI dump fails), passes on its retry |
//! | `c_hostile` | SER1 | fails; its hilog window holds 10 000 lines of ANSI, NUL, `]]>`, U+FFFE… |
//! | `d_lost` | SER2 | the device disconnects at its second step |
//! | `e_passes` | SER1 | passes; an optional step fails in each of 3 `repeat` passes |
//! | `f_never` | SER2 | not run: its device was lost |
//! | `g_skipped` | — | skipped: excluded by tag |
//!
//! The run is given equal expected durations, so the split (`src/run/schedule.rs`) alternates
//! in plan order; each fault goes to the device that runs its step.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::fake_device::{FakeDevice, FakeProvider};
use tapflow::report::Outputs;
use tapflow::run::{self, DeviceChoice, RunEvent, RunOptions, TagFilter};
use tapflow::session::{ReportedRun, run_with_reports};
use tapflow_core::flow::SourceFile;
use tapflow_core::plan::{MapLoader, PlanOptions, compile};
use tapflow_tools::RegistryCatalog;
use tapflow_tools::{Engine, ToolConfig, ToolContext};

pub const FLOWS: &[(&str, &str)] = &[
    (
        "flows/a_pass.yaml",
        "name: Passes
tags: [smoke]
steps:
  - assert_visible: Welcome
  - click: Login
  - assert_visible: {text: Home, timeout_ms: 2000}
",
    ),
    (
        "flows/b_flaky.yaml",
        "name: Flaky then passes
steps:
  - click: Login
    retries: {count: 2, delay: 10ms}
",
    ),
    (
        "flows/c_hostile.yaml",
        "name: \"Fails <with> & hostile \\e[31mlogs\\e[0m ]]>\"
steps:
  - press_key: Home
  - click: {text: \"No such ]]> button \\e[1m\\0\"}
    wait: 0
  - press_key: Back
",
    ),
    (
        "flows/d_lost.yaml",
        "name: Device goes away
steps:
  - press_key: Home
  - press_key: Back
  - press_key: Back
",
    ),
    (
        "flows/e_passes.yaml",
        "name: Passes with a tolerated failure per pass
steps:
  - repeat:
      times: 3
      steps:
        - click: {text: Missing every time}
          optional: true
  - press_key: Home
",
    ),
    (
        "flows/f_never.yaml",
        "name: Never reached
steps:
  - press_key: Back
",
    ),
    (
        "flows/g_skipped.yaml",
        "name: Skipped by tag
tags: [slow]
steps:
  - press_key: Back
",
    ),
];

/// 10 000 hilog lines stamped now, each hostile to XML and terminals.
pub fn hostile_hilog() -> String {
    let now = chrono::Local::now()
        .format("%m-%d %H:%M:%S%.3f")
        .to_string();
    let mut s = String::with_capacity(10_000 * 120);
    for i in 0..10_000 {
        s.push_str(&format!(
            "{now}  4242  4242 E A0d0d0/DemoApp: line {i} \u{1b}[31mred\u{1b}[0m nul\u{0}here \
             ]]> end <tag> & amp \u{fffe} bell\u{7} 日本語\n"
        ));
    }
    s
}

/// Arranges the faults as the flows reach them.
struct Faults {
    ser1: Arc<FakeDevice>,
    ser2: Arc<FakeDevice>,
    provider: Arc<FakeProvider>,
}

impl run::EventSink for Faults {
    fn emit(&self, e: &RunEvent) {
        // Faults go to whichever device runs the step (the split is by expected duration).
        if let RunEvent::StepStarted {
            step_id, device, ..
        } = e
        {
            let on = if device == "SER1" {
                &self.ser1
            } else {
                &self.ser2
            };
            match step_id.as_str() {
                "b_flaky.1" => on.failing_dumps.store(1, Ordering::SeqCst),
                "c_hostile.2" => *on.log_text.lock().unwrap() = hostile_hilog(),
                "c_hostile.3" => on.log_text.lock().unwrap().clear(),
                "d_lost.2" => {
                    self.provider
                        .disconnected
                        .lock()
                        .unwrap()
                        .insert(device.clone(), true);
                }
                _ => {}
            }
        }
    }
}

/// Runs the mixed flows into `dir` and returns the run.
pub fn run_into(dir: &Path) -> ReportedRun {
    let engine = Arc::new(Engine::new());
    let catalog = RegistryCatalog::new(engine.clone());
    let mut loader = MapLoader::new();
    let mut flows = Vec::new();
    for (name, text) in FLOWS {
        loader = loader.with(name, text);
        flows.push(SourceFile::new(name.to_string(), text.to_string()));
    }
    let c = compile(&flows, &[], &catalog, &loader, &PlanOptions::default());
    assert!(
        !c.has_errors(),
        "{}",
        tapflow_core::flow::render_text(&c.diagnostics, &c.sources)
    );
    let ser1 = FakeDevice::new("SER1");
    let ser2 = FakeDevice::new("SER2");
    let provider = FakeProvider::new(vec![ser1.clone(), ser2.clone()]);
    // The run directory is the only allowed root (the default policy allows nothing).
    let config = ToolConfig::rooted_at(dir);
    let ctx = ToolContext::new(provider.clone(), config);
    let mut opts = RunOptions::new("mixed-run");
    opts.devices = DeviceChoice::Serials(vec!["SER1".into(), "SER2".into()]);
    // Equal expected durations: the split alternates in plan order (SER1: a, c, e; SER2: b,
    // d, f), each device from a fresh screen for its first flow.
    opts.expected =
        tapflow::run::schedule::Expected::from_durations(FLOWS.iter().map(|(name, _)| {
            let id = name.trim_start_matches("flows/").trim_end_matches(".yaml");
            (id.to_string(), 1_000)
        }));
    opts.tags = TagFilter {
        include: Vec::new(),
        exclude: vec!["slow".into()],
    };
    opts.run_dir = Some(dir.to_path_buf());
    opts.command =
        Some("tapflow run flows/ -d SER1,SER2 --exclude-tags slow --env PASSWORD=******".into());
    opts.sources = FLOWS
        .iter()
        .map(|(n, t)| (n.to_string(), t.to_string()))
        .collect();
    let faults = Faults {
        ser1,
        ser2,
        provider,
    };
    run_with_reports(
        &c.plan,
        engine,
        ctx,
        &opts,
        &faults,
        &Outputs::in_run_dir(dir),
    )
}

/// A directory that stays for the whole test binary (the run is made once per binary).
pub fn shared_run() -> &'static (PathBuf, tapflow::run::RunResult) {
    static RUN: std::sync::OnceLock<(PathBuf, tapflow::run::RunResult)> =
        std::sync::OnceLock::new();
    RUN.get_or_init(|| {
        let dir = tempfile::Builder::new()
            .prefix("tapflow-mixed-run-")
            .tempdir()
            .unwrap()
            .keep();
        let r = run_into(&dir);
        assert!(r.written.errors.is_empty(), "{:?}", r.written.errors);
        (dir, r.result)
    })
}
