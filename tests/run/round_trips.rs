//! Round trips of issue 8's login flow through the real runner on the simulated phone (latency
//! none), counted per step from every hdc invocation (a recording transport), attributed to
//! the step whose start/finish events enclose it (the device thread emits them in order, so the
//! attribution is exact). Timings are the benchmark's business (`benches/login.rs`); counts
//! are asserted here.
//!
//! The flow-level behaviours of `docs/flow-format.md` ("Flow-level behaviours") are what make
//! these counts: a step hands its last screen to the next, the step before one that looks first
//! brings the screen back with its action, and a flow's `wait_for_element` polls without the
//! second confirmation. A bare tool call has none of them (last test).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tapflow::run::{self, DeviceChoice, EventSink, RunEvent, RunOptions, Status};
use tapflow_core::flow::SourceFile;
use tapflow_core::plan::{MapLoader, Plan, PlanOptions, compile};
use tapflow_device::hdc::{HdcClient, HdcConfig};
use tapflow_device::{Output, Transport, TransportError};
use tapflow_sim::{Latency, SimOptions, SimTransport, Simulator};
use tapflow_tools::RegistryCatalog;
use tapflow_tools::hdc_provider::HdcProvider;
use tapflow_tools::{CachingProvider, DeviceProvider, Engine, ToolConfig, ToolContext};

const LOGIN: &str = include_str!("../../benches/login/flow.yaml");

/// Every hdc invocation's arguments after the route, in order.
struct Recorder {
    inner: SimTransport,
    calls: Mutex<Vec<String>>,
}

impl Transport for Recorder {
    fn run(&self, args: &[String], timeout: Duration) -> Result<Output, TransportError> {
        let what = match args.iter().position(|a| a == "shell") {
            Some(i) => args[i..].join(" "),
            None => args.join(" "),
        };
        self.calls.lock().unwrap().push(what);
        self.inner.run(args, timeout)
    }

    fn program(&self) -> String {
        self.inner.program()
    }
}

/// At each step's start and finish: how many hdc calls had been made.
struct Marks {
    recorder: Arc<Recorder>,
    marks: Mutex<Vec<(bool, String, usize)>>,
}

impl EventSink for Marks {
    fn emit(&self, event: &RunEvent) {
        let n = self.recorder.calls.lock().unwrap().len();
        match event {
            RunEvent::StepStarted { step_id, .. } => {
                self.marks.lock().unwrap().push((true, step_id.clone(), n))
            }
            RunEvent::StepFinished { step_id, .. } => {
                self.marks.lock().unwrap().push((false, step_id.clone(), n))
            }
            _ => {}
        }
    }
}

struct Rig {
    recorder: Arc<Recorder>,
    ctx: ToolContext,
    engine: Arc<Engine>,
    serial: String,
    _dir: tempfile::TempDir,
}

fn rig() -> Rig {
    let dir = tempfile::tempdir().unwrap();
    let sim = Arc::new(Simulator::new(SimOptions {
        latency: Latency::None,
        ..SimOptions::default()
    }));
    let serial = sim.serials()[0].clone();
    let recorder = Arc::new(Recorder {
        inner: SimTransport::new(sim, dir.path()),
        calls: Mutex::new(Vec::new()),
    });
    let client = HdcClient::new(HdcConfig::default(), recorder.clone());
    let inner: Arc<dyn DeviceProvider> = Arc::new(HdcProvider(client));
    let provider = Arc::new(CachingProvider::new(inner, Duration::from_secs(3600)));
    let config = ToolConfig {
        screenshots_dir: dir.path().join("shots"),
        ..ToolConfig::rooted_at(dir.path())
    };
    Rig {
        recorder,
        ctx: ToolContext::new(provider, config),
        engine: Arc::new(Engine::new()),
        serial,
        _dir: dir,
    }
}

fn plan_of(text: &str, engine: &Arc<Engine>) -> Plan {
    let files = [SourceFile::new("login.yaml".to_string(), text.to_string())];
    let catalog = RegistryCatalog::new(engine.clone());
    let c = compile(
        &files,
        &[],
        &catalog,
        &MapLoader::new(),
        &PlanOptions::default(),
    );
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    c.plan
}

/// Runs `text` as one flow; returns per top-level step (id, hdc calls made during it, result),
/// and every call's text for messages.
/// Per top-level step (id, the hdc calls made during it, its result), and every call.
type Counted = (Vec<(String, Vec<String>, serde_json::Value)>, Vec<String>);

fn run_counted(text: &str) -> Counted {
    run_flow_counted(text, true)
}

/// As [`run_counted`], without requiring the flow to pass.
fn run_counted_any(text: &str) -> Counted {
    run_flow_counted(text, false)
}

fn run_flow_counted(text: &str, must_pass: bool) -> Counted {
    let r = rig();
    let plan = plan_of(text, &r.engine);
    let marks = Marks {
        recorder: r.recorder.clone(),
        marks: Mutex::new(Vec::new()),
    };
    let mut opts = RunOptions::new("round-trips");
    opts.devices = DeviceChoice::Serials(vec![r.serial.clone()]);
    let result = run::run(&plan, r.engine.clone(), r.ctx.clone(), &opts, &marks);
    let flow = &result.flows[0];
    if must_pass {
        assert_eq!(flow.status, Status::Passed, "{:#?}", flow.error);
    }
    let calls = r.recorder.calls.lock().unwrap().clone();
    let marks = marks.marks.into_inner().unwrap();
    let mut steps = Vec::new();
    for s in &flow.steps {
        let start = marks
            .iter()
            .find(|(st, id, _)| *st && *id == s.id)
            .expect("started")
            .2;
        let end = marks
            .iter()
            .find(|(st, id, _)| !*st && *id == s.id)
            .expect("finished")
            .2;
        steps.push((
            s.id.clone(),
            calls[start..end].to_vec(),
            s.result.clone().unwrap_or_default(),
        ));
    }
    (steps, calls)
}

#[test]
fn the_login_flow_makes_the_round_trips_of_its_work_and_no_more() {
    let (steps, all) = run_counted(LOGIN);
    let counts: Vec<usize> = steps.iter().map(|(_, c, _)| c.len()).collect();
    let show = || {
        format!(
            "{:#?}",
            steps.iter().map(|s| (&s.0, &s.1)).collect::<Vec<_>>()
        )
    };
    assert_eq!(steps.len(), 7, "{}", show());
    // launch: the package's abilities (`bm dump -n`), then ONE shell: `aa start`, the window
    // table, the app's pids and (the next step looks first) the dump of the launched screen.
    assert_eq!(counts[0], 2, "launch: {}", show());
    assert!(steps[0].1[1].contains("aa start") && steps[0].1[1].contains("dumpLayout"));
    // wait for the title: satisfied by the screen the launch brought back; no dump of its own.
    assert_eq!(counts[1], 0, "wait for title: {}", show());
    assert_eq!(steps[1].2["polls"], 0, "polls counts the wait's own dumps");
    // input + verify: the field is resolved on the handed-over screen; focus click + dump;
    // select-all key + text + dump; the sentinel's Backspace + dump.
    assert_eq!(counts[2], 3, "input: {}", show());
    assert_eq!(steps[2].2["verified"], true);
    // tap Login: the tap and (the next step waits) the dump after it, one shell.
    assert_eq!(counts[3], 1, "tap: {}", show());
    assert!(steps[3].1[0].contains("uiInput click") && steps[3].1[0].contains("dumpLayout"));
    // wait for the greeting: the app's login takes 800 ms of real time, so the wait polls
    // (back to back: the latency is none here) until it shows; each poll is one dump, and
    // `polls` is exactly the dumps it made.
    assert!(counts[4] >= 1, "{}", show());
    assert_eq!(steps[4].2["polls"], counts[4] as u64, "{}", show());
    assert!(steps[4].1.iter().all(|c| c.contains("dumpLayout")));
    // screenshot: capture, receive; the device file is removed by the next shell command.
    assert_eq!(counts[5], 2, "screenshot: {}", show());
    assert_eq!(counts[6], 1, "logs: {}", show());
    assert!(steps[6].1[0].contains("rm -f") && steps[6].1[0].contains("hilog"));
    // Everything but the greeting's polls: 9 calls; on a real phone the greeting takes one
    // dump after the app's delay (see `docs/benchmarks.md`), 10 in all, plus 1-2 polls that
    // land in the delay.
    assert_eq!(counts.iter().sum::<usize>() - counts[4], 9, "{}", show());
    assert!(!all.is_empty());
}

#[test]
fn a_wait_with_an_explicit_interval_confirms_as_a_bare_call_does() {
    // `interval_ms: 300` written in the flow: the satisfied first poll (the handed-over
    // screen) is confirmed by one dump 300 ms after the call started.
    let flow = LOGIN.replace(
        "wait_for_element: {element_id: title}",
        "wait_for_element: {element_id: title, interval_ms: 300}",
    );
    let (steps, _) = run_counted(&flow);
    assert_eq!(
        steps[1].1.len(),
        1,
        "one confirmation dump: {:?}",
        steps[1].1
    );
    assert_eq!(steps[1].2["polls"], 1);
}

#[test]
fn a_step_under_when_is_not_prepared_for_and_still_observes_for_itself() {
    // The click's next step runs under `when`: the click sends its tap alone, and the wait
    // dumps for itself.
    let flow = LOGIN.replace(
        "  - wait_for_element: {text: \"Hello, {{ USER }}!\"}",
        "  - wait_for_element: {text: \"Hello, {{ USER }}!\"}\n    when: {platform: harmonyos}",
    );
    let (steps, _) = run_counted(&flow);
    assert_eq!(steps[3].1.len(), 1);
    assert!(
        !steps[3].1[0].contains("dumpLayout"),
        "tap alone: {:?}",
        steps[3].1
    );
    assert!(!steps[4].1.is_empty());
}

#[test]
fn reads_dump_for_themselves_and_a_screen_is_relayed_at_most_once() {
    // Finds in a row each observe the device (their result is the observation); a wait that
    // ends on a handed-over screen relays it once, the next wait does not relay it again.
    let flow = "name: reads\napp: com.tapflow.demo\nsteps:
  - run_app: com.tapflow.demo
  - find_elements: {element_id: title}
  - find_elements: {element_id: title}
  - find_elements: {element_id: title}
  - wait_for_element: {element_id: title}
  - wait_for_element: {element_id: title}
  - wait_for_element: {element_id: title}
  - click: {element_id: login}
";
    let (steps, _) = run_counted(flow);
    let counts: Vec<usize> = steps.iter().map(|(_, c, _)| c.len()).collect();
    // run_app: nothing after it looks first, so no dump with the launch.
    assert!(
        !steps[0].1.iter().any(|c| c.contains("dumpLayout")),
        "{counts:?}"
    );
    assert_eq!(&counts[1..4], &[1, 1, 1], "each find dumps");
    // The third find's screen goes to the first wait (0 dumps), which relays it to the
    // second (0 dumps); not relayed twice: the third wait dumps, and hands its own to the click.
    assert_eq!(&counts[4..7], &[0, 0, 1], "{counts:?}");
    assert_eq!(counts[7], 1, "tap only: {:?}", steps[7].1);
    assert!(!steps[7].1[0].contains("dumpLayout"));
}

#[test]
fn a_step_after_a_failed_one_observes_afresh() {
    // The first missing click looks on the wait's screen, misses, and looks again with a fresh
    // dump before failing (as a bare call would); the ones after a failure start from a dump
    // (the screen may have changed: that is why flows retry). Nothing is sent but dumps.
    let flow = "name: misses\napp: com.tapflow.demo\nsteps:
  - run_app: com.tapflow.demo
  - wait_for_element: {element_id: title}
  - click: {text: Missing}
    optional: true
    wait: 0
  - click: {text: Missing}
    optional: true
    wait: 0
  - click: {text: Missing}
    optional: true
    wait: 0
";
    let (steps, _) = run_counted_any(flow);
    let counts: Vec<usize> = steps.iter().map(|(_, c, _)| c.len()).collect();
    assert_eq!(&counts[2..], &[1, 1, 1], "{counts:?}");
    assert!(steps[2..].iter().all(|(_, c, _)| {
        c.iter()
            .all(|c| c.contains("dumpLayout") && !c.contains("uiInput"))
    }));
}

#[test]
fn bare_tool_calls_never_start_from_an_earlier_screen() {
    let r = rig();
    let route = json!({ "device_id": r.serial });
    let call = |tool: &str, mut args: serde_json::Value| {
        args.as_object_mut()
            .unwrap()
            .extend(route.as_object().unwrap().clone());
        let env = r.engine.call(tool, args, &r.ctx);
        assert!(env.ok(), "{tool}: {env:?}");
        env
    };
    call("run_app", json!({ "bundle_name": "com.tapflow.demo" }));
    let before = r.recorder.calls.lock().unwrap().len();
    call(
        "wait_for_element",
        json!({ "element_id": "title", "interval_ms": 0 }),
    );
    call("find_elements", json!({ "element_id": "title" }));
    let calls = r.recorder.calls.lock().unwrap()[before..].to_vec();
    assert_eq!(calls.len(), 2, "one dump each: {calls:?}");
    assert!(calls.iter().all(|c| c.contains("dumpLayout")));
}
