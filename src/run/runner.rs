//! Orchestration of a run: select flows (shard, tags), run one thread per device that checks
//! its device and then runs the flows [`super::schedule`] gives it (split round robin, or every
//! flow on every device; a device starts as soon as its own check passed, and the flows of a
//! device that failed its check go to those that passed), honour fail-fast and cancellation.
//! Everything it observes leaves as [`RunEvent`]s; the
//! [`RunResult`] it returns is those events folded ([`super::aggregate`]), and the files
//! (`result.json`, the reports) are written by reporters that listen to them.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::aggregate::{NOT_STARTED, ResultBuilder};
use super::cancel::CancelToken;
use super::events::{EventSink, RunEvent, RunHeader};
use super::evidence::EvidenceCollector;
use super::exec::{DeviceCtx, now_rfc3339, run_flow};
use super::mask::Masker;
use super::preflight;
use super::result::*;
use super::schedule::{Dropped, Expected, Health, Schedule};
use super::select::{Shard, TagFilter, sorted_positions};
use super::worker::Caller;
use tapflow_core::plan::{FlowPlan, Plan};
use tapflow_tools::{DeviceRoute, Engine, ToolContext};

/// Which devices a run uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    /// The only connected device.
    Auto,
    /// These serials / connect keys, in this order.
    Serials(Vec<String>),
    /// Every device the provider lists.
    All,
}

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub run_id: String,
    pub devices: DeviceChoice,
    /// Run every flow on every device (instead of splitting the flows across them).
    pub each_device: bool,
    pub shard: Option<Shard>,
    pub tags: TagFilter,
    /// Stop starting flows after the first failed flow.
    pub fail_fast: bool,
    /// The run's directory (`result.json`, `artifacts/`); `None` writes nothing and collects
    /// no evidence (benchmarks, callers that only want the [`RunResult`]).
    pub run_dir: Option<PathBuf>,
    /// First cancellation (Ctrl-C): stop steps, still run `finally`.
    pub cancel: CancelToken,
    /// Second cancellation: stop hooks too.
    pub abort: CancelToken,
    /// Take a screenshot after every tool step (a film strip in the HTML report), not only
    /// for failed ones (`--screenshots every-step`).
    pub every_step_screenshots: bool,
    /// The command line, as reports show it (values of `--env` masked by the caller).
    pub command: Option<String>,
    /// The approval an MCP caller's run was given (`run_flow`), recorded in `result.json`.
    pub approval: Option<serde_json::Value>,
    /// The text of the flow files by path (as in the plan's locations), so that a failed
    /// step's result can quote the lines around it.
    pub sources: BTreeMap<String, String>,
    /// Expected flow durations (the previous run's, when at hand): split runs hand out the
    /// longest first, each to the least loaded device.
    pub expected: Expected,
    /// Flow files that did not validate, listed in the result as [`Status::Invalid`] (with
    /// their diagnostics) while the valid flows run.
    pub invalid: Vec<FlowResult>,
}

impl RunOptions {
    pub fn new(run_id: impl Into<String>) -> Self {
        RunOptions {
            run_id: run_id.into(),
            devices: DeviceChoice::Auto,
            each_device: false,
            shard: None,
            tags: TagFilter::default(),
            fail_fast: false,
            run_dir: None,
            cancel: CancelToken::new(),
            abort: CancelToken::new(),
            every_step_screenshots: false,
            command: None,
            approval: None,
            sources: BTreeMap::new(),
            expected: Expected::default(),
            invalid: Vec::new(),
        }
    }
}

/// A fresh run id: UTC time plus a random suffix (sortable, unique across parallel CI jobs).
pub fn new_run_id() -> String {
    let t = chrono::Utc::now().format("%Y%m%d-%H%M%S");
    let r = uuid::Uuid::new_v4().simple().to_string();
    format!("{t}-{}", &r[..6])
}

/// Records every event in a [`ResultBuilder`] (the runner's own result), then passes it on.
struct Recorder<'a> {
    builder: Mutex<ResultBuilder>,
    out: &'a dyn EventSink,
}

impl EventSink for Recorder<'_> {
    fn emit(&self, e: &RunEvent) {
        lock(&self.builder).apply(e);
        self.out.emit(e);
    }
}

/// Runs `plan`. Never panics on device trouble: everything ends up in the result. Writes no
/// file but evidence (under `opts.run_dir`): `result.json` and the reports are written by
/// reporters listening to the events (`crate::report`).
pub fn run(
    plan: &Plan,
    engine: Arc<Engine>,
    ctx: ToolContext,
    opts: &RunOptions,
    events: &dyn EventSink,
) -> RunResult {
    let events = &Recorder {
        builder: Mutex::new(ResultBuilder::new()),
        out: events,
    };
    let started = Instant::now();
    let started_at = now_rfc3339();
    let collector = opts.run_dir.as_deref().map(EvidenceCollector::new);
    // Built once: every secret of the plan, in every form, for everything the run writes; the
    // log gate masks every log line of the process with them from now on (before the first
    // device command of the run).
    let masker = Masker::for_plan(plan);
    super::mask::gate::register(plan.flows.iter().flat_map(|f| f.secret_values()));
    // Tools that derive text from the device's (a log signature) mask before deriving.
    let ctx = ctx.with_redact(Arc::new(masker.clone()));

    // 1. Flows: the shard's slice, then tags.
    let positions = sorted_positions(&plan.flows);
    let selected: Vec<&FlowPlan> = plan
        .flows
        .iter()
        .enumerate()
        .filter(|(i, _)| opts.shard.is_none_or(|s| s.selects(positions[*i])))
        .map(|(_, f)| f)
        .collect();
    let mut runnable = Vec::new();
    let mut slots: Vec<FlowResult> = Vec::new();
    let mut final_slots: Vec<usize> = Vec::new();
    let mut filtered = Vec::new();
    for f in &selected {
        match opts.tags.rejects(&f.tags) {
            Some(why) => filtered.push((*f, why)),
            None => runnable.push(*f),
        }
    }

    // 2. Devices, checked in parallel.
    let routes: Vec<DeviceRoute> = match &opts.devices {
        DeviceChoice::Auto => vec![DeviceRoute::default()],
        DeviceChoice::Serials(s) => s
            .iter()
            .map(|d| DeviceRoute {
                device_id: Some(d.clone()),
                hdc_server: ctx.config.default_hdc_server.clone(),
            })
            .collect(),
        DeviceChoice::All => match ctx
            .provider
            .targets(ctx.config.default_hdc_server.as_deref())
        {
            Ok(ts) if !ts.is_empty() => ts
                .into_iter()
                .map(|t| DeviceRoute {
                    device_id: Some(t.serial),
                    hdc_server: ctx.config.default_hdc_server.clone(),
                })
                .collect(),
            // Nothing listed (or listing failed): the check of the default route says why.
            _ => vec![DeviceRoute::default()],
        },
    };
    events.emit(&RunEvent::RunStarted {
        run_id: opts.run_id.clone(),
        flows: runnable.len(),
        devices: routes
            .iter()
            .map(|r| r.device_id.clone().unwrap_or_else(|| "auto".into()))
            .collect(),
        header: Box::new(RunHeader {
            run_id: opts.run_id.clone(),
            tapflow_version: env!("CARGO_PKG_VERSION").to_string(),
            command: opts.command.clone(),
            approval: opts.approval.clone(),
            started_at,
            shard: opts.shard.map(|s| s.to_string()),
            coverage: Coverage {
                plan_flows: plan.flows.iter().map(|f| f.id.clone()).collect(),
                selected: selected.iter().map(|f| f.id.clone()).collect(),
            },
        }),
    });
    // 3. Assignment (deterministic, see `schedule`): every slot is known before any device is
    //    checked, so reporters list every flow from the start. Each device is checked on its
    //    own thread below and starts its flows as soon as its own check passed. Nothing to
    //    run: no check.
    let device_count = if runnable.is_empty() { 0 } else { routes.len() };
    let expected = opts.expected.estimate(&runnable);
    let schedule = Schedule::new(&runnable, &expected, device_count, opts.each_device);
    for job in schedule.jobs() {
        let device = routes[job.device].device_id.as_deref();
        slots.push(not_run(
            job.flow,
            device,
            Status::NotRun,
            NOT_STARTED.into(),
        ));
    }
    for (f, why) in &filtered {
        final_slots.push(slots.len());
        slots.push(not_run(f, None, Status::Skipped, why.clone()));
    }
    for f in &opts.invalid {
        final_slots.push(slots.len());
        slots.push(f.clone());
    }
    events.emit(&RunEvent::FlowsAssigned {
        flows: slots.clone(),
    });
    for &i in &final_slots {
        let r = &slots[i];
        events.emit(&RunEvent::FlowNotRun {
            flow_id: r.id.clone(),
            slot: Some(i),
            status: r.status,
            reason: r.reason.clone().unwrap_or_default(),
        });
    }
    let not_run_event = |job: &super::schedule::Job<'_>, reason: String| RunEvent::FlowNotRun {
        flow_id: job.flow.id.clone(),
        slot: Some(job.slot),
        status: Status::NotRun,
        reason,
    };

    // 4. One thread per device: its check, then its flows. Every flow's start, top-level step
    //    and end is an event, so a reporter can keep `result.json` current: a run killed
    //    outright still leaves what it observed, and says that it did not finish.
    let failed = AtomicBool::new(false);
    std::thread::scope(|s| {
        for (d, route) in routes.iter().enumerate().take(device_count) {
            let engine = engine.clone();
            let ctx = ctx.clone();
            let (failed, collector, schedule) = (&failed, collector.as_ref(), &schedule);
            let not_run_event = &not_run_event;
            let provider = ctx.provider.clone();
            let masker = masker.clone();
            s.spawn(move || {
                let dev = preflight::check_guarded(ctx.provider.as_ref(), route);
                events.emit(&RunEvent::DeviceChecked {
                    device: dev.clone(),
                });
                let verdict = if dev.ready {
                    Ok(())
                } else {
                    let why = dev
                        .error
                        .as_ref()
                        .map_or_else(String::new, |e| format!(": {}", e.message));
                    Err(format!("device {} failed its check{why}", dev.serial))
                };
                for Dropped { job, reason, .. } in schedule.checked(d, verdict) {
                    events.emit(&not_run_event(&job, reason));
                }
                if !dev.ready {
                    return;
                }
                let mut dctx = DeviceCtx {
                    serial: dev.serial.clone(),
                    platform: dev.platform.clone(),
                    caller: Caller::new(engine, ctx),
                    events,
                    cancel: opts.cancel.clone(),
                    abort: opts.abort.clone(),
                    evidence: collector,
                    slot: 0,
                    sources: &opts.sources,
                    every_step_screenshots: opts.every_step_screenshots,
                    masker,
                };
                // Once the device is gone, its remaining flows are not run (not failed).
                let mut health = Health::default();
                let mut told_lost = false;
                while let Some(job) = schedule.next(d, &opts.cancel) {
                    let gone = health
                        .gone(&dev.serial, &opts.cancel, || {
                            preflight::check_guarded(provider.as_ref(), route)
                        })
                        .map(str::to_string);
                    let skip = if let Some(why) = gone {
                        if !std::mem::replace(&mut told_lost, true) {
                            events.emit(&RunEvent::DeviceLost {
                                device: dev.serial.clone(),
                                reason: why.clone(),
                            });
                        }
                        Some(why)
                    } else if opts.cancel.is_cancelled() {
                        Some("the run was interrupted before this flow started".into())
                    } else if opts.fail_fast && failed.load(Ordering::SeqCst) {
                        Some("fail-fast: an earlier flow failed".into())
                    } else {
                        None
                    };
                    if let Some(reason) = skip {
                        events.emit(&not_run_event(&job, reason));
                        continue;
                    }
                    dctx.slot = job.slot;
                    // A bug in the runner must not lose the run: a panicking flow is
                    // recorded as failed and the device thread goes on.
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        run_flow(&mut dctx, job.flow)
                    }))
                    .unwrap_or_else(|panic| {
                        let what = panic
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        let mut r = not_run(
                            job.flow,
                            Some(&dev.serial),
                            Status::Failed,
                            "the runner failed unexpectedly".into(),
                        );
                        r.error = Some(StepError::new(
                            tapflow_core::codes::INTERNAL_ERROR,
                            format!("the runner failed unexpectedly: {what}"),
                        ));
                        r
                    });
                    if r.status == Status::Failed {
                        failed.store(true, Ordering::SeqCst);
                    }
                    health.after(&dev.serial, r.error.as_ref());
                    events.emit(&RunEvent::FlowFinished {
                        device: dev.serial.clone(),
                        slot: job.slot,
                        flow: Box::new(r),
                    });
                }
            });
        }
    });
    let interrupted = opts.cancel.is_cancelled();
    if interrupted {
        events.emit(&RunEvent::Interrupted);
    }
    let mut last = lock(&events.builder).snapshot();
    last.complete = true;
    last.interrupted = interrupted;
    last.finish_totals();
    events.emit(&RunEvent::RunFinished {
        status: last.status,
        interrupted,
        finished_at: now_rfc3339(),
        duration_ms: started.elapsed().as_millis() as u64,
    });
    lock(&events.builder).snapshot()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn not_run(f: &FlowPlan, device: Option<&str>, status: Status, reason: String) -> FlowResult {
    FlowResult {
        id: f.id.clone(),
        run_id: None,
        name: f.name.clone(),
        file: f.file.clone(),
        tags: f.tags.clone(),
        device: device.map(str::to_string),
        status,
        reason: Some(reason),
        started_at: None,
        duration_ms: 0,
        error: None,
        setup: Vec::new(),
        steps: Vec::new(),
        on_failure: Vec::new(),
        finally: Vec::new(),
    }
}
