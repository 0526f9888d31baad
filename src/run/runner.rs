//! Orchestration of a run: select flows (shard, tags), check devices, hand flows to devices
//! (split: each free device takes the longest expected flow left, see [`super::schedule`]; or
//! every flow on every device), run one thread per device, honour
//! fail-fast and cancellation, and assemble and write the [`RunResult`] (`result.json`,
//! `artifacts/manifest.json`) — also when the run was interrupted.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::cancel::CancelToken;
use super::events::{EventSink, RunEvent};
use super::evidence::{EvidenceCollector, write_atomic};
use super::exec::{DeviceCtx, now_rfc3339, run_flow};
use super::mask::Masker;
use super::preflight;
use super::result::*;
use super::schedule::{Expected, Queue, longest_first};
use super::select::{Shard, TagFilter, sorted_positions};
use super::worker::Caller;
use crate::plan::{FlowPlan, Plan};
use crate::tools::{DeviceRoute, Engine, ToolContext};

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
    /// Expected flow durations (the previous run's, when at hand): split runs hand out the
    /// longest first.
    pub expected: Expected,
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
            expected: Expected::default(),
        }
    }
}

/// A fresh run id: UTC time plus a random suffix (sortable, unique across parallel CI jobs).
pub fn new_run_id() -> String {
    let t = chrono::Utc::now().format("%Y%m%d-%H%M%S");
    let r = uuid::Uuid::new_v4().simple().to_string();
    format!("{t}-{}", &r[..6])
}

/// One (flow, device) pair to run, with its slot in the result.
struct Job<'p> {
    slot: usize,
    flow: &'p FlowPlan,
}

/// Runs `plan`. Never panics on device trouble: everything ends up in the result.
pub fn run(
    plan: &Plan,
    engine: Arc<Engine>,
    ctx: ToolContext,
    opts: &RunOptions,
    events: &dyn EventSink,
) -> RunResult {
    let started = Instant::now();
    let started_at = now_rfc3339();
    let collector = opts.run_dir.as_deref().map(EvidenceCollector::new);
    // Built once: every secret of the plan, in every form, for everything the run writes.
    let masker = Masker::for_plan(plan);

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
    let mut slots: Vec<Option<FlowResult>> = Vec::new();
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
    });
    let devices: Vec<DeviceResult> = if runnable.is_empty() {
        Vec::new()
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = routes
                .iter()
                .map(|r| s.spawn(|| preflight::check(ctx.provider.as_ref(), r)))
                .collect();
            handles
                .into_iter()
                .zip(&routes)
                .map(|(h, r)| {
                    h.join().unwrap_or_else(|_| DeviceResult {
                        serial: r.device_id.clone().unwrap_or_else(|| "auto".into()),
                        platform: "unknown".into(),
                        model: None,
                        name: None,
                        api_level: None,
                        software_version: None,
                        ready: false,
                        error: Some(StepError {
                            code: crate::codes::INTERNAL_ERROR.into(),
                            message: "the device check failed unexpectedly".into(),
                            details: serde_json::Value::Null,
                            location: None,
                        }),
                    })
                })
                .collect()
        })
    };
    for d in &devices {
        events.emit(&RunEvent::DeviceChecked { device: d.clone() });
    }

    // 3. Assignment: every flow on every device (each device's own list), or split: one queue
    //    of the flows, longest expected first, from which each device takes the next flow when
    //    it is free. Results stay in plan order (slots).
    let mut per_device: Vec<std::collections::VecDeque<Job>> =
        (0..devices.len()).map(|_| Default::default()).collect();
    let mut split = Vec::new();
    let not_ready = |f: &FlowPlan, dev: &DeviceResult| {
        let why = dev
            .error
            .as_ref()
            .map_or_else(String::new, |e| format!(": {}", e.message));
        not_run(
            f,
            Some(&dev.serial),
            Status::NotRun,
            format!("device {} failed its check{why}", dev.serial),
        )
    };
    let any_ready = devices.iter().any(|d| d.ready);
    for f in &runnable {
        if opts.each_device {
            for (d, dev) in devices.iter().enumerate() {
                let slot = slots.len();
                if dev.ready {
                    slots.push(None);
                    per_device[d].push_back(Job { slot, flow: f });
                } else {
                    slots.push(Some(not_ready(f, dev)));
                }
            }
        } else if let Some(dev) = devices.first().filter(|_| !any_ready) {
            slots.push(Some(not_ready(f, dev)));
        } else if !devices.is_empty() {
            split.push(Job {
                slot: slots.len(),
                flow: f,
            });
            slots.push(None);
        }
    }
    let expected = opts
        .expected
        .estimate(&split.iter().map(|j| j.flow).collect::<Vec<_>>());
    let mut split: Vec<Option<Job>> = split.into_iter().map(Some).collect();
    let queue = Queue::new(
        longest_first(&expected)
            .into_iter()
            .filter_map(|i| split[i].take()),
    );
    for (f, why) in &filtered {
        slots.push(Some(not_run(f, None, Status::Skipped, why.clone())));
    }
    for r in slots.iter().flatten() {
        events.emit(&RunEvent::FlowNotRun {
            flow_id: r.id.clone(),
            status: r.status,
            reason: r.reason.clone().unwrap_or_default(),
        });
    }

    // 4. One thread per device. After every flow the result so far is written, so a run that
    //    is killed outright still leaves what it observed (`complete: false`).
    let base = RunResult {
        schema_version: RESULT_SCHEMA_VERSION,
        run_id: opts.run_id.clone(),
        tapflow_version: env!("CARGO_PKG_VERSION").to_string(),
        started_at,
        finished_at: String::new(),
        duration_ms: 0,
        status: Status::Passed,
        complete: false,
        interrupted: false,
        shard: opts.shard.map(|s| s.to_string()),
        devices,
        flows: Vec::new(),
        totals: Totals::default(),
        artifacts_manifest: "artifacts/manifest.json".into(),
    };
    let slots = Mutex::new(slots);
    let snapshot = |complete: bool| -> RunResult {
        let mut r = base.clone();
        r.flows = lock(&slots).iter().flatten().cloned().collect();
        r.finished_at = now_rfc3339();
        r.duration_ms = started.elapsed().as_millis() as u64;
        r.interrupted = opts.cancel.is_cancelled();
        r.complete = complete;
        r.finish_totals();
        if r.flows.is_empty() && !r.interrupted {
            // Nothing selected is not a failure of any flow.
            r.status = Status::Passed;
        }
        r
    };
    let save = |r: &RunResult| -> bool {
        match (&opts.run_dir, &collector) {
            (Some(dir), Some(col)) => {
                let _ = col.write_manifest(&opts.run_id);
                write_result(r, dir, &masker).is_ok()
            }
            _ => false,
        }
    };
    let writing = Mutex::new(());
    save(&snapshot(false));
    let failed = AtomicBool::new(false);
    std::thread::scope(|s| {
        for (d, mut jobs) in per_device.into_iter().enumerate() {
            let dev = &base.devices[d];
            if !dev.ready || (opts.each_device && jobs.is_empty()) {
                continue;
            }
            let queue = &queue;
            let engine = engine.clone();
            let ctx = ctx.clone();
            let (failed, collector, slots) = (&failed, collector.as_ref(), &slots);
            let (snapshot, save, writing) = (&snapshot, &save, &writing);
            let masker = masker.clone();
            s.spawn(move || {
                let mut dctx = DeviceCtx {
                    serial: dev.serial.clone(),
                    platform: dev.platform.clone(),
                    caller: Caller::new(engine, ctx),
                    events,
                    cancel: opts.cancel.clone(),
                    abort: opts.abort.clone(),
                    evidence: collector,
                    masker,
                };
                // Once the device is gone, its remaining flows are not run (not failed).
                let mut lost: Option<String> = None;
                // A lost device takes no more flows from the shared queue (the others do).
                while let Some(job) = jobs
                    .pop_front()
                    .or_else(|| lost.is_none().then(|| queue.next()).flatten())
                {
                    let r = if let Some(why) = &lost {
                        not_run(job.flow, Some(&dev.serial), Status::NotRun, why.clone())
                    } else if opts.cancel.is_cancelled() {
                        not_run(
                            job.flow,
                            Some(&dev.serial),
                            Status::NotRun,
                            "the run was interrupted before this flow started".into(),
                        )
                    } else if opts.fail_fast && failed.load(Ordering::SeqCst) {
                        not_run(
                            job.flow,
                            Some(&dev.serial),
                            Status::NotRun,
                            "fail-fast: an earlier flow failed".into(),
                        )
                    } else {
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
                            r.error = Some(StepError {
                                code: crate::codes::INTERNAL_ERROR.into(),
                                message: format!("the runner failed unexpectedly: {what}"),
                                details: serde_json::Value::Null,
                                location: None,
                            });
                            r
                        });
                        if r.status == Status::Failed {
                            failed.store(true, Ordering::SeqCst);
                        }
                        if let Some(e) = r.error.as_ref().filter(|e| {
                            matches!(
                                e.code.as_str(),
                                crate::codes::DEVICE_DISCONNECTED | crate::codes::DEVICE_NOT_FOUND
                            )
                        }) {
                            lost = Some(format!(
                                "device {} was lost during an earlier flow ({}: {})",
                                dev.serial, e.code, e.message
                            ));
                        }
                        events.emit(&RunEvent::FlowFinished {
                            device: dev.serial.clone(),
                            flow: Box::new(r.clone()),
                        });
                        r
                    };
                    lock(slots)[job.slot] = Some(r);
                    let _one_writer = lock(writing);
                    save(&snapshot(false));
                }
            });
        }
    });
    // Flows left in the queue when every device that could take them was lost.
    while let Some(job) = queue.next() {
        lock(&slots)[job.slot] = Some(not_run(
            job.flow,
            None,
            Status::NotRun,
            "every device was lost before this flow started".into(),
        ));
    }
    let result = snapshot(true);
    if result.interrupted {
        events.emit(&RunEvent::Interrupted);
    }
    let result_path = save(&result)
        .then(|| {
            opts.run_dir
                .as_ref()
                .map(|d| d.join("result.json").display().to_string())
        })
        .flatten();
    events.emit(&RunEvent::RunFinished {
        status: result.status,
        result_path,
    });
    result
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn not_run(f: &FlowPlan, device: Option<&str>, status: Status, reason: String) -> FlowResult {
    FlowResult {
        id: f.id.clone(),
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

/// Writes `result.json` into `dir` (atomically), masked by `masker`.
pub fn write_result(result: &RunResult, dir: &Path, masker: &Masker) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let value = masker.to_value(result).map_err(std::io::Error::other)?;
    let text = serde_json::to_string_pretty(&value).map_err(std::io::Error::other)?;
    write_atomic(&dir.join("result.json"), text.as_bytes())
}
