//! One slow device must not hold back the others (issue 9, item 6). Two simulated devices (the
//! real hdc backend, in-process); the check of the second one hangs until the first device
//! has finished its own flows, then times out. Seen before: the runner joined every device
//! check before any flow started, so a device whose check timed out three times delayed the
//! healthy ones by 90 s. Also: what happens to the flows of a device that fails its check
//! (`docs/run.md`, "Devices and flows").

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use tapflow::run::{self, DeviceChoice, EventSink, RunEvent, RunOptions, RunResult, Status};
use tapflow::sim_provider::sim_provider;
use tapflow_core::flow::SourceFile;
use tapflow_core::plan::{MapLoader, Plan, PlanOptions, compile};
use tapflow_device::{Cost, Device, DeviceError, Target};
use tapflow_sim::Latency;
use tapflow_tools::RegistryCatalog;
use tapflow_tools::{DeviceProvider, DeviceRoute, Engine, ToolConfig, ToolContext};

/// Hang guard of the slow check: long enough never to be what releases it in a passing run.
const GUARD: Duration = Duration::from_secs(60);

/// Four flows that pass on the demo app; split over two devices, each gets two.
fn plan() -> Plan {
    let engine = Arc::new(Engine::new());
    let catalog = RegistryCatalog::new(engine);
    let files: Vec<SourceFile> = (0..4)
        .map(|i| {
            SourceFile::new(
                format!("flows/f{i}.yaml"),
                format!(
                    "name: F{i}\napp: com.tapflow.demo\nsteps:\n  - run_app: com.tapflow.demo\n  - find_elements: {{element_id: login}}\n"
                ),
            )
        })
        .collect();
    let c = compile(
        &files,
        &[],
        &catalog,
        &MapLoader::new(),
        &PlanOptions::default(),
    );
    assert!(!c.has_errors());
    c.plan
}

/// A gate the slow device's check waits at.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    cv: Condvar,
}

impl Gate {
    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.cv.notify_all();
    }

    /// Waits until opened (true) or the guard expired (false).
    fn wait(&self) -> bool {
        let deadline = Instant::now() + GUARD;
        let mut open = self.open.lock().unwrap();
        while !*open {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            open = self.cv.wait_timeout(open, deadline - now).unwrap().0;
        }
        true
    }
}

/// The simulated devices, except that reaching `slow` blocks at the gate, then times out.
struct SlowCheck {
    inner: Arc<dyn DeviceProvider>,
    slow: String,
    gate: Arc<Gate>,
    /// Whether the gate was opened by the healthy device's progress (not the guard).
    opened_in_time: Mutex<Option<bool>>,
}

impl DeviceProvider for SlowCheck {
    fn resolve(&self, route: &DeviceRoute) -> Result<Arc<dyn Device>, DeviceError> {
        if route.device_id.as_deref() == Some(self.slow.as_str()) {
            *self.opened_in_time.lock().unwrap() = Some(self.gate.wait());
            return Err(DeviceError::Timeout {
                command: format!("hdc -t {} shell 'uitest dumpLayout …'", self.slow),
                after: Duration::from_secs(30),
            });
        }
        self.inner.resolve(route)
    }

    fn targets(&self, hdc_server: Option<&str>) -> Result<Vec<Target>, DeviceError> {
        self.inner.targets(hdc_server)
    }

    fn cost(&self) -> Cost {
        self.inner.cost()
    }
}

/// Opens the gate once the healthy device has finished `own` flows.
struct OpenAfter {
    device: String,
    own: usize,
    finished: AtomicUsize,
    gate: Arc<Gate>,
}

impl EventSink for OpenAfter {
    fn emit(&self, e: &RunEvent) {
        if let RunEvent::FlowFinished { device, .. } = e
            && *device == self.device
            && self.finished.fetch_add(1, Ordering::SeqCst) + 1 == self.own
        {
            self.gate.open();
        }
    }
}

fn run_with_a_slow_device(each_device: bool) -> (RunResult, Vec<String>, Option<bool>) {
    let cwd = std::env::temp_dir();
    let (inner, serials) = sim_provider(2, None, 3, Latency::None, &cwd).unwrap();
    let gate = Arc::new(Gate::default());
    let provider = Arc::new(SlowCheck {
        inner,
        slow: serials[1].clone(),
        gate: gate.clone(),
        opened_in_time: Mutex::new(None),
    });
    let config = ToolConfig {
        screenshots_dir: cwd.clone(),
        ..ToolConfig::rooted_at(cwd)
    };
    let ctx = ToolContext::new(provider.clone(), config);
    let mut opts = RunOptions::new("slow-device");
    opts.devices = DeviceChoice::Serials(serials.clone());
    opts.each_device = each_device;
    let sink = OpenAfter {
        device: serials[0].clone(),
        own: if each_device { 4 } else { 2 },
        finished: AtomicUsize::new(0),
        gate,
    };
    let r = run::run(&plan(), Arc::new(Engine::new()), ctx, &opts, &sink);
    let opened = *provider.opened_in_time.lock().unwrap();
    (r, serials, opened)
}

#[test]
fn a_healthy_device_runs_while_a_slow_one_is_checked_and_takes_over_its_flows() {
    let (r, serials, opened) = run_with_a_slow_device(false);
    assert_eq!(
        opened,
        Some(true),
        "the healthy device finished its own flows while the slow one was still being checked"
    );
    let (a, b) = (&serials[0], &serials[1]);
    assert!(r.devices.iter().any(|d| &d.serial == a && d.ready));
    let slow = r.devices.iter().find(|d| &d.serial == b).unwrap();
    assert!(!slow.ready);
    assert_eq!(slow.error.as_ref().unwrap().code, "HDC_TIMEOUT");
    // Flows 1 and 3 were assigned to the slow device; the healthy one ran them after its own.
    let ids: Vec<(&str, &str, Status)> = r
        .flows
        .iter()
        .map(|f| (f.id.as_str(), f.device.as_deref().unwrap(), f.status))
        .collect();
    assert_eq!(
        ids,
        [
            ("f0", a.as_str(), Status::Passed),
            ("f1", a.as_str(), Status::Passed),
            ("f2", a.as_str(), Status::Passed),
            ("f3", a.as_str(), Status::Passed),
        ]
    );
    assert_eq!(tapflow::cli::run_cmd::exit_code(&r), 0);
}

#[test]
fn with_each_device_the_failed_devices_flows_are_not_run_with_the_reason() {
    let (r, serials, opened) = run_with_a_slow_device(true);
    assert_eq!(opened, Some(true));
    let (a, b) = (&serials[0], &serials[1]);
    let on = |dev: &str| -> Vec<Status> {
        r.flows
            .iter()
            .filter(|f| f.device.as_deref() == Some(dev))
            .map(|f| f.status)
            .collect()
    };
    assert_eq!(on(a), [Status::Passed; 4]);
    assert_eq!(on(b), [Status::NotRun; 4]);
    for f in r.flows.iter().filter(|f| f.device.as_deref() == Some(b)) {
        let why = f.reason.as_deref().unwrap();
        assert!(
            why.contains(&format!("device {b} failed its check")) && why.contains("did not finish"),
            "{why}"
        );
    }
    assert_eq!(tapflow::cli::run_cmd::exit_code(&r), 4);
}
