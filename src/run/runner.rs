//! Orchestration of a run: select flows (shard, tags), run one thread per device that checks
//! its device and then runs the flows [`super::schedule`] gives it (split round robin, or every
//! flow on every device; a device starts as soon as its own check passed), honour fail-fast
//! and cancellation, and assemble and write the [`RunResult`] (`result.json`,
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
use super::schedule::{Dropped, Health, Schedule};
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
        }
    }
}

/// A fresh run id: UTC time plus a random suffix (sortable, unique across parallel CI jobs).
pub fn new_run_id() -> String {
    let t = chrono::Utc::now().format("%Y%m%d-%H%M%S");
    let r = uuid::Uuid::new_v4().simple().to_string();
    format!("{t}-{}", &r[..6])
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

    // 2. Devices (checked below, each on its own thread).
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
    // 3. Assignment (deterministic, see `schedule`); each device is checked on its own thread
    //    below and starts its flows as soon as its own check passed. Nothing to run: no check.
    let device_count = if runnable.is_empty() { 0 } else { routes.len() };
    let schedule = Schedule::new(&runnable, device_count, opts.each_device);
    slots.resize_with(schedule.slots(), || None);
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
    // Check results, in device order, as they come in.
    let checks: Mutex<Vec<Option<DeviceResult>>> = Mutex::new(vec![None; device_count]);

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
        devices: Vec::new(),
        flows: Vec::new(),
        totals: Totals::default(),
        artifacts_manifest: "artifacts/manifest.json".into(),
    };
    let slots = Mutex::new(slots);
    let snapshot = |complete: bool| -> RunResult {
        let mut r = base.clone();
        r.devices = lock(&checks).iter().flatten().cloned().collect();
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
        for (d, route) in routes.iter().enumerate().take(device_count) {
            let engine = engine.clone();
            let ctx = ctx.clone();
            let (failed, collector, slots) = (&failed, collector.as_ref(), &slots);
            let (snapshot, save, writing) = (&snapshot, &save, &writing);
            let (schedule, checks) = (&schedule, &checks);
            let provider = ctx.provider.clone();
            let masker = masker.clone();
            s.spawn(move || {
                let dev = preflight::check_guarded(ctx.provider.as_ref(), route);
                events.emit(&RunEvent::DeviceChecked {
                    device: dev.clone(),
                });
                lock(checks)[d] = Some(dev.clone());
                let verdict = if dev.ready {
                    Ok(())
                } else {
                    let why = dev
                        .error
                        .as_ref()
                        .map_or_else(String::new, |e| format!(": {}", e.message));
                    Err(format!("device {} failed its check{why}", dev.serial))
                };
                let dropped = schedule.checked(d, verdict);
                if !dropped.is_empty() {
                    let serials: Vec<String> = lock(checks)
                        .iter()
                        .map(|c| c.as_ref().map(|c| c.serial.clone()).unwrap_or_default())
                        .collect();
                    for Dropped {
                        job,
                        device,
                        reason,
                    } in dropped
                    {
                        let r = not_run(job.flow, Some(&serials[device]), Status::NotRun, reason);
                        events.emit(&RunEvent::FlowNotRun {
                            flow_id: r.id.clone(),
                            status: r.status,
                            reason: r.reason.clone().unwrap_or_default(),
                        });
                        lock(slots)[job.slot] = Some(r);
                    }
                }
                {
                    let _one_writer = lock(writing);
                    save(&snapshot(false));
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
                    masker,
                };
                // Once the device is gone, its remaining flows are not run (not failed).
                let mut health = Health::default();
                while let Some(job) = schedule.next(d, &opts.cancel) {
                    let gone = health.gone(&dev.serial, &opts.cancel, || {
                        preflight::check_guarded(provider.as_ref(), route)
                    });
                    let r = if let Some(why) = gone {
                        not_run(job.flow, Some(&dev.serial), Status::NotRun, why.to_string())
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
                                code: "INTERNAL_ERROR".into(),
                                message: format!("the runner failed unexpectedly: {what}"),
                                details: serde_json::Value::Null,
                                location: None,
                            });
                            r
                        });
                        if r.status == Status::Failed {
                            failed.store(true, Ordering::SeqCst);
                        }
                        health.after(&dev.serial, r.error.as_ref());
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
