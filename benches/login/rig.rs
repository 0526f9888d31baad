//! The bench's world: in-process simulated phones with realistic latency behind the real hdc
//! backend (`SimTransport` → `HdcClient` → `HdcProvider`, as `tapflow run --sim N` builds it),
//! with every hdc invocation recorded (start, end, device, argv) by a transport wrapper, and
//! every run event time-stamped, so wall time and hdc calls can be attributed to steps.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tapflow::report::Outputs;
use tapflow::run::schedule::Expected;
use tapflow::run::{self, DeviceChoice, EventSink, RunEvent, RunOptions, RunResult};
use tapflow::session::run_with_reports;
use tapflow_core::plan::{MapLoader, Plan, PlanOptions, compile};
use tapflow_device::hdc::{HdcClient, HdcConfig};
use tapflow_device::{Output, Transport, TransportError};
use tapflow_sim::{FaultSpec, Latency, SimOptions, SimTransport, Simulator};
use tapflow_tools::RegistryCatalog;
use tapflow_tools::hdc_provider::HdcProvider;
use tapflow_tools::{CachingProvider, DeviceProvider, Engine, ToolConfig, ToolContext};

/// One hdc invocation.
#[derive(Clone, Debug)]
pub struct CallRec {
    pub start: Instant,
    pub end: Instant,
    /// The argv after the route, for reading what a step sent.
    pub what: String,
}

/// A [`Transport`] that records every call it forwards.
pub struct Recorder {
    inner: Arc<dyn Transport>,
    calls: Mutex<Vec<CallRec>>,
}

impl Recorder {
    pub fn calls(&self) -> Vec<CallRec> {
        self.calls.lock().unwrap().clone()
    }
}

impl Transport for Recorder {
    fn run(&self, args: &[String], timeout: Duration) -> Result<Output, TransportError> {
        let start = Instant::now();
        let out = self.inner.run(args, timeout);
        let end = Instant::now();
        let rest = match args.iter().position(|a| a == "shell") {
            Some(i) => args[i..].join(" "),
            None => args.join(" "),
        };
        self.calls.lock().unwrap().push(CallRec {
            start,
            end,
            what: rest,
        });
        out
    }

    fn program(&self) -> String {
        self.inner.program()
    }
}

/// Run events with the instant each was emitted.
#[derive(Default)]
pub struct TimedEvents(pub Mutex<Vec<(Instant, RunEvent)>>);

impl EventSink for TimedEvents {
    fn emit(&self, event: &RunEvent) {
        self.0.lock().unwrap().push((Instant::now(), event.clone()));
    }
}

/// `n` simulated phones (realistic latency) and a tool context over them.
pub struct World {
    pub recorder: Arc<Recorder>,
    pub ctx: ToolContext,
    pub engine: Arc<Engine>,
    pub serials: Vec<String>,
}

impl World {
    pub fn new(n: usize, dir: &Path) -> World {
        World::with_latency(n, dir, Latency::Realistic)
    }

    pub fn with_latency(n: usize, dir: &Path, latency: Latency) -> World {
        let sim = Arc::new(Simulator::new(SimOptions {
            devices: n,
            seed: 8,
            latency,
            faults: FaultSpec::none(),
            ..SimOptions::default()
        }));
        let serials = sim.serials();
        let recorder = Arc::new(Recorder {
            inner: Arc::new(SimTransport::new(sim.clone(), dir)),
            calls: Mutex::new(Vec::new()),
        });
        let client = HdcClient::new(HdcConfig::default(), recorder.clone());
        let inner: Arc<dyn DeviceProvider> = Arc::new(HdcProvider(client));
        // As `tapflow run --sim`: a run resolves each device once.
        let provider = Arc::new(CachingProvider::new(inner, Duration::from_secs(3600)));
        let config = ToolConfig {
            screenshots_dir: dir.join("shots"),
            ..ToolConfig::rooted_at(dir)
        };
        World {
            recorder,
            ctx: ToolContext::new(provider, config),
            engine: Arc::new(Engine::new()),
            serials,
        }
    }

    /// Runs `plan` over every device of the world (flows split across them), writing the run
    /// directory under `dir` (result.json, reports, evidence) as `tapflow run` does.
    pub fn run(&self, plan: &Plan, dir: &Path, events: &dyn EventSink) -> RunResult {
        self.run_expecting(plan, dir, events, Expected::default())
    }

    /// As [`World::run`], with expected flow durations for the split (a previous run's).
    pub fn run_expecting(
        &self,
        plan: &Plan,
        dir: &Path,
        events: &dyn EventSink,
        expected: Expected,
    ) -> RunResult {
        let out = Outputs::in_run_dir(&dir.join("run"));
        let mut opts = RunOptions::new(run::new_run_id());
        opts.devices = DeviceChoice::Serials(self.serials.clone());
        opts.run_dir = Some(out.run_dir.clone());
        opts.expected = expected;
        // As `tapflow run`: result.json kept current while the run goes on, then the reports.
        let reported = run_with_reports(
            plan,
            self.engine.clone(),
            self.ctx.clone(),
            &opts,
            events,
            &out,
        );
        assert!(
            reported.written.errors.is_empty(),
            "{:?}",
            reported.written.errors
        );
        reported.result
    }
}

/// Compiles flow texts against the real registry; panics on any diagnostic error.
pub fn plan_of(flows: &[(String, String)], engine: &Arc<Engine>) -> Plan {
    let files: Vec<_> = flows
        .iter()
        .map(|(name, text)| tapflow_core::flow::SourceFile::new(name.clone(), text.clone()))
        .collect();
    let catalog = RegistryCatalog::new(engine.clone());
    let compiled = compile(
        &files,
        &[],
        &catalog,
        &MapLoader::new(),
        &PlanOptions::default(),
    );
    assert!(!compiled.has_errors(), "{:?}", compiled.diagnostics);
    compiled.plan
}

pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The machine's load averages (`/proc/loadavg`), for the record.
pub fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}
