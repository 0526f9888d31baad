//! A run with its reporters, the one place that drives the engine and the reporters together
//! (the reporters only consume events and results, and never start a run): `result.json` kept current from the first event to the last
//! ([`LiveResult`]), the caller's progress display beside it, and JUnit, HTML and the manifest
//! rendered from the final result. A run interrupted with Ctrl-C, or whose devices went away,
//! still ends normally here, so every report is written; a run killed outright leaves at least
//! `result.json`, which says it did not finish (`tapflow report` renders the rest from it).

use std::path::PathBuf;
use std::sync::Arc;

use crate::report::live::LiveResult;
use crate::report::write::{Outputs, Written, write_reports};
use crate::run::result::RunResult;
use crate::run::{EventSink, Fanout, Masker, RunOptions};
use tapflow_core::plan::Plan;
use tapflow_tools::{Engine, ToolContext};

/// A finished run and what was written for it.
pub struct ReportedRun {
    pub result: RunResult,
    pub result_json: PathBuf,
    pub written: Written,
}

/// Runs `plan` with `opts` (whose `run_dir` should be `out.run_dir`, for the evidence) and
/// writes every report into `out`. Problems writing are in `written.errors`; the run's own
/// outcome is in `result`.
pub fn run_with_reports(
    plan: &Plan,
    engine: Arc<Engine>,
    ctx: ToolContext,
    opts: &RunOptions,
    progress: &dyn EventSink,
    out: &Outputs,
) -> ReportedRun {
    let mut early = Vec::new();
    if let Err(e) = out.create_run_dir() {
        early.push(e);
    }
    // Every secret of the plan, in every form: what the reporters write is masked again at
    // the moment it leaves, whatever the runner already masked.
    let masker = Masker::for_plan(plan);
    let live = LiveResult::new(
        out.policy.clone(),
        out.result_json().to_string_lossy().into_owned(),
        masker.clone(),
    );
    let sinks = Fanout(vec![&live, progress]);
    let result = crate::run::run(plan, engine, ctx, opts, &sinks);
    let mut written = write_reports(&result, out, &masker);
    if let Some(e) = live.error() {
        written.errors.insert(0, e);
    }
    early.append(&mut written.errors);
    written.errors = early;
    ReportedRun {
        result,
        result_json: out.result_json(),
        written,
    }
}
