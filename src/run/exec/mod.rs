//! Executing one flow of a plan on one device: tool steps through `Engine::call` (under their
//! deadline, with retries and expectations), the control steps (`repeat`, `retry` blocks,
//! inlined sub-flows, `when` conditions), clean-state setup, `on_failure` and `finally`
//! hooks, kept results and run-time `{{ … }}` values. Produces a [`FlowResult`] and emits
//! events; collects evidence for failed steps.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod blocks;
mod condition;
mod crash_cause;
mod flow_level;
mod tool;
mod unresponsive;

use crate::run::cancel::CancelToken;
use crate::run::events::{EventSink, RunEvent, Section};
use crate::run::evidence::{CrashBaseline, EvidenceCollector};
use crate::run::mask::Masker;
use crate::run::result::*;
use crate::run::values::{Vars, as_text};
use crate::run::worker::Caller;
use tapflow_core::plan::model::{Action, FlowPlan, PlanStep, SourceRef};

/// Failure codes the runner itself assigns (tools have their own).
pub mod codes {
    /// An `expect:` did not hold.
    pub use tapflow_core::codes::EXPECTATION_FAILED;
    /// The flow's `timeout` passed.
    pub use tapflow_core::codes::FLOW_TIMEOUT;
    /// The run was interrupted (Ctrl-C) during the step.
    pub use tapflow_core::codes::INTERRUPTED;
    /// A `repeat` had an invalid count or ran too often.
    pub use tapflow_core::codes::INVALID_REPEAT;
    /// A step's deadline passed before its tool answered.
    pub use tapflow_core::codes::STEP_TIMEOUT;
}

/// Most passes of a `repeat` with only a `while` (the flow's deadline bounds it as well).
pub const MAX_REPEAT: u64 = tapflow_core::plan::MAX_REPEAT;

pub fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn ms(d: Duration) -> u64 {
    d.as_millis().min(u128::from(u64::MAX)) as u64
}

fn location(s: &SourceRef) -> Location {
    Location {
        file: s.file.clone(),
        line: s.line,
        column: s.column,
    }
}

/// Everything a device thread holds while it runs flows.
pub struct DeviceCtx<'a> {
    pub serial: String,
    pub platform: String,
    pub caller: Caller,
    pub events: &'a dyn EventSink,
    /// Stops steps (Ctrl-C).
    pub cancel: CancelToken,
    /// Stops hooks as well (a second Ctrl-C).
    pub abort: CancelToken,
    pub evidence: Option<&'a EvidenceCollector>,
    /// The result slot of the flow being run (events name it).
    pub slot: usize,
    /// Flow file texts by path, to quote the source around a failure.
    pub sources: &'a std::collections::BTreeMap<String, String>,
    /// A screenshot after every tool step, not only failed ones.
    pub every_step_screenshots: bool,
    /// Every secret of the run (not only this flow's): a value one flow typed can show in a
    /// later flow's observations on the same device.
    pub masker: Masker,
}

/// What a sequence of steps ended with.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Flow {
    Continue,
    Failed,
    Interrupted,
}

fn flow_of(s: &StepResult) -> Flow {
    match s.status {
        Status::Failed if !s.optional => Flow::Failed,
        Status::Interrupted => Flow::Interrupted,
        _ => Flow::Continue,
    }
}

struct FlowRun<'a, 'b> {
    dev: &'b mut DeviceCtx<'a>,
    fp: &'b FlowPlan,
    vars: Vars,
    masker: Masker,
    flow_deadline: Option<Instant>,
    /// Running hooks: the flow deadline no longer applies and only `abort` stops them.
    in_hooks: bool,
    /// The step after the current one starts by looking at the screen.
    next_looks: bool,
    crash_baseline: Option<CrashBaseline>,
    /// Crash files already reported as the cause of a failed step.
    blamed: crash_cause::Blamed,
    /// When the flow started (host clock): the default start of its log windows.
    started_local: chrono::DateTime<chrono::Local>,
    /// The section being run and how deep inside blocks (0: a top-level step).
    section: Section,
    depth: usize,
    /// The pass numbers of the enclosing `repeat`/`retry` blocks, outermost first.
    passes: Vec<u64>,
}

/// Runs one flow on the device of `dev`.
pub fn run_flow(dev: &mut DeviceCtx<'_>, fp: &FlowPlan) -> FlowResult {
    // A flow starts from the device, not from the screen an earlier flow ended on.
    dev.caller.forget_screen();
    let started = Instant::now();
    let started_local = chrono::Local::now();
    let started_at = now_rfc3339();
    dev.events.emit(&RunEvent::FlowStarted {
        device: dev.serial.clone(),
        flow_id: fp.id.clone(),
        name: fp.name.clone(),
        steps: fp.steps.len(),
        slot: dev.slot,
        started_at: started_at.clone(),
    });
    let vars = Vars::for_flow(fp);
    let masker = dev.masker.clone();
    let crash_baseline = dev
        .evidence
        .map(|e| e.crash_baseline(&dev.caller, &dev.serial));
    let mut run = FlowRun {
        dev,
        fp,
        vars,
        masker,
        flow_deadline: (fp.timeout_ms > 0).then(|| started + Duration::from_millis(fp.timeout_ms)),
        in_hooks: false,
        next_looks: false,
        crash_baseline,
        blamed: Default::default(),
        started_local,
        section: Section::Setup,
        depth: 0,
        passes: Vec::new(),
    };
    let mut result = FlowResult {
        id: fp.id.clone(),
        run_id: None,
        name: fp.name.clone(),
        file: fp.file.clone(),
        tags: fp.tags.clone(),
        device: Some(run.dev.serial.clone()),
        status: Status::Passed,
        reason: None,
        started_at: Some(started_at),
        duration_ms: 0,
        error: None,
        setup: Vec::new(),
        steps: Vec::new(),
        on_failure: Vec::new(),
        finally: Vec::new(),
    };
    let mut outcome = Flow::Continue;
    if let Some(iso) = &fp.isolation {
        let setup = setup_steps(fp, iso);
        let (steps, o) = run.sequence(&setup);
        result.setup = steps;
        outcome = o;
    }
    if outcome == Flow::Continue {
        run.section = Section::Steps;
        let (steps, o) = run.sequence(&fp.steps);
        result.steps = steps;
        outcome = o;
    } else {
        result.steps = fp
            .steps
            .iter()
            .map(|s| StepResult {
                title: run.title(s),
                ..not_run(s, "the clean-state setup failed")
            })
            .collect();
    }
    run.in_hooks = true;
    if outcome == Flow::Failed && !fp.on_failure.is_empty() {
        run.section = Section::OnFailure;
        result.on_failure = run.sequence(&fp.on_failure).0;
    }
    if !fp.finally.is_empty() {
        run.section = Section::Finally;
        result.finally = run.sequence(&fp.finally).0;
    }
    let hook_failed = result
        .on_failure
        .iter()
        .chain(&result.finally)
        .any(|s| flow_of(s) == Flow::Failed);
    result.status = match outcome {
        Flow::Interrupted => Status::Interrupted,
        Flow::Failed => Status::Failed,
        Flow::Continue if hook_failed => Status::Failed,
        Flow::Continue => Status::Passed,
    };
    result.error = first_error(
        result
            .setup
            .iter()
            .chain(&result.steps)
            .chain(&result.on_failure)
            .chain(&result.finally),
    );
    if result.status == Status::Interrupted {
        result.reason = Some("the run was interrupted".into());
    }
    result.duration_ms = ms(started.elapsed());
    result
}

/// The first non-tolerated failure, depth first.
fn first_error<'s>(steps: impl Iterator<Item = &'s StepResult>) -> Option<StepError> {
    for s in steps {
        if s.status == Status::Failed && !s.optional {
            if let Some(e) = first_error(s.children.iter()) {
                return Some(e);
            }
            if let Some(e) = &s.error {
                return Some(e.clone());
            }
        }
    }
    None
}

/// The clean-state steps (stop, clear data, launch) as tool steps of the plan.
pub(crate) fn setup_steps(
    fp: &FlowPlan,
    iso: &tapflow_core::plan::model::Isolation,
) -> Vec<PlanStep> {
    let mut out = Vec::new();
    let mut push = |tool: &str| {
        let mut step = PlanStep::plain(
            format!("{}.setup.{}", fp.id, out.len() + 1),
            Action::Tool {
                tool: tool.into(),
                args: json!({ "bundle_name": iso.bundle }),
            },
            SourceRef {
                file: fp.file.clone(),
                line: 1,
                column: 1,
            },
        );
        step.label = Some(format!("clean state: {tool} {}", iso.bundle));
        step.deadline_ms = Some(30_000);
        out.push(step);
    };
    if iso.stop {
        push("stop_app");
    }
    if iso.clear_data {
        push("clear_app_data");
    }
    if iso.launch {
        push("run_app");
    }
    out
}

fn kind_of(a: &Action) -> StepKind {
    match a {
        Action::Tool { .. } => StepKind::Tool,
        Action::Repeat { .. } => StepKind::Repeat,
        Action::Retry { .. } => StepKind::Retry,
        Action::SubFlow { .. } => StepKind::SubFlow,
    }
}

fn blank(step: &PlanStep) -> StepResult {
    StepResult {
        id: step.id.clone(),
        label: step.label.clone(),
        kind: kind_of(&step.action),
        tool: match &step.action {
            Action::Tool { tool, .. } => Some(tool.clone()),
            _ => None,
        },
        status: Status::Passed,
        reason: None,
        title: String::new(),
        optional: step.optional,
        location: location(&step.source),
        started_at: None,
        duration_ms: 0,
        args: None,
        attempts: Vec::new(),
        cost: None,
        result: None,
        error: None,
        source: Vec::new(),
        bounds: None,
        evidence: Vec::new(),
        children: Vec::new(),
    }
}

fn not_run(step: &PlanStep, why: &str) -> StepResult {
    StepResult {
        status: Status::NotRun,
        reason: Some(why.to_string()),
        ..blank(step)
    }
}

impl FlowRun<'_, '_> {
    /// A short human title (progress lines, events): the label, else the tool and its main
    /// argument (the one its flow shorthand fills); `{{ … }}` resolved with what is known now,
    /// secrets masked.
    fn title(&self, step: &PlanStep) -> String {
        let shown = |v: &Value| -> String {
            let text = match self.vars.resolve(self.fp, v, false) {
                Ok(r) => as_text(&r),
                // Not resolvable yet (the step will say why): as written.
                Err(_) => tapflow_core::flow::template::display(&as_text(v)).into_owned(),
            };
            self.masker.text(&text).into_owned()
        };
        if let Some(l) = &step.label {
            return shown(&Value::String(l.clone()));
        }
        match &step.action {
            Action::Tool { tool, args } => {
                // As the flow wrote it: `assert_visible`, not the tool behind it.
                let name = step.written_as.as_deref().unwrap_or(tool);
                let gone = if step.written_as.as_deref() == Some("assert_not_visible") {
                    " (gone)"
                } else {
                    ""
                };
                // The parameter the tool's flow shorthand fills, as the tool declares it;
                // else the first text argument.
                let main = self
                    .dev
                    .caller
                    .engine()
                    .get(tool)
                    .and_then(|t| t.flow.shorthand)
                    .and_then(|k| args.get(k).filter(|v| !v.is_null()))
                    .or_else(|| args.as_object()?.values().find(|v| v.is_string()));
                match main {
                    Some(v) => format!("{name} {}{gone}", shown(v)),
                    None => format!("{name}{gone}"),
                }
            }
            Action::Repeat { .. } => "repeat".into(),
            Action::Retry { .. } => "retry".into(),
            Action::SubFlow { file, .. } => match file {
                Some(f) => format!("run_flow {}", self.masker.text(f)),
                None => "run_flow".into(),
            },
        }
    }

    fn token(&self) -> CancelToken {
        if self.in_hooks {
            self.dev.abort.clone()
        } else {
            self.dev.cancel.clone()
        }
    }

    fn flow_deadline(&self) -> Option<Instant> {
        if self.in_hooks {
            None
        } else {
            self.flow_deadline
        }
    }

    fn flow_expired(&self) -> bool {
        self.flow_deadline().is_some_and(|d| Instant::now() >= d)
    }

    fn err(
        &self,
        step: &PlanStep,
        code: tapflow_core::codes::Code,
        message: impl Into<String>,
    ) -> StepError {
        StepError {
            code,
            message: self.masker.text(&message.into()).into_owned(),
            details: Value::Null,
            location: Some(location(&step.source)),
        }
    }

    /// Runs steps in order; stops at the first failure that is not tolerated. Each top-level
    /// step that ran is also an event (`StepRecorded`), for reports of a flow in progress.
    fn sequence(&mut self, steps: &[PlanStep]) -> (Vec<StepResult>, Flow) {
        let top = self.depth == 0;
        self.depth += 1;
        let out = self.sequence_inner(steps, top);
        self.depth -= 1;
        out
    }

    fn sequence_inner(&mut self, steps: &[PlanStep], top: bool) -> (Vec<StepResult>, Flow) {
        let mut out = Vec::with_capacity(steps.len());
        let mut outcome = Flow::Continue;
        for (i, step) in steps.iter().enumerate() {
            if outcome != Flow::Continue {
                let why = match outcome {
                    Flow::Interrupted => "the run was interrupted",
                    _ => "an earlier step failed",
                };
                let mut r = not_run(step, why);
                r.title = self.title(step);
                out.push(r);
                continue;
            }
            self.next_looks = steps.get(i + 1).is_some_and(|n| self.looks_first(n));
            let r = self.step(step);
            outcome = flow_of(&r);
            if top {
                self.dev.events.emit(&RunEvent::StepRecorded {
                    device: self.dev.serial.clone(),
                    slot: self.dev.slot,
                    section: self.section,
                    step: Box::new(r.clone()),
                });
            }
            out.push(r);
        }
        (out, outcome)
    }

    /// The flow source around a failed step's line (masked), when the text is known.
    fn source_excerpt(&self, loc: &Location) -> Vec<SourceLine> {
        const AROUND: usize = 3;
        let Some(text) = self.dev.sources.get(&loc.file) else {
            return Vec::new();
        };
        let from = loc.line.saturating_sub(AROUND).max(1);
        text.lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l))
            .skip(from - 1)
            .take(loc.line + AROUND + 1 - from)
            .map(|(n, l)| SourceLine {
                line: n,
                // A flow line is short; a pathological one is clipped for the report.
                text: self
                    .masker
                    .text(&l.chars().take(500).collect::<String>())
                    .into_owned(),
                marked: n == loc.line,
            })
            .collect()
    }

    fn step(&mut self, step: &PlanStep) -> StepResult {
        let started = Instant::now();
        let mut r = blank(step);
        r.started_at = Some(now_rfc3339());
        let title = self.title(step);
        r.title = title.clone();
        let is_tool = matches!(step.action, Action::Tool { .. });
        let mut ran_tool = false;
        if is_tool {
            self.dev.events.emit(&RunEvent::StepStarted {
                device: self.dev.serial.clone(),
                flow_id: self.fp.id.clone(),
                step_id: step.id.clone(),
                title: title.clone(),
            });
        }
        if self.token().is_cancelled() {
            r.status = Status::Interrupted;
            r.error = Some(self.err(step, codes::INTERRUPTED, "the run was interrupted"));
        } else if self.flow_expired() {
            r.status = Status::Failed;
            r.error = Some(self.flow_timeout(step));
        } else {
            match self.condition_holds(step, step.when.as_deref()) {
                Err(e) => {
                    r.status = if e.code == codes::INTERRUPTED {
                        Status::Interrupted
                    } else {
                        Status::Failed
                    };
                    r.error = Some(*e);
                }
                Ok(false) => {
                    r.status = Status::Skipped;
                    r.reason = Some("its `when` condition did not hold".into());
                }
                Ok(true) => match &step.action {
                    Action::Tool { tool, args } => {
                        self.tool_step(step, tool, args, started, &mut r);
                        ran_tool = true;
                    }
                    Action::SubFlow { steps, .. } => {
                        let (children, o) = self.sequence(steps);
                        r.children = children;
                        r.status = status_of(o);
                    }
                    Action::Repeat {
                        times,
                        while_,
                        steps,
                    } => self.repeat(step, times.as_ref(), while_.as_deref(), steps, &mut r),
                    Action::Retry {
                        times,
                        delay_ms,
                        steps,
                    } => self.retry_block(*times, *delay_ms, steps, &mut r),
                },
            }
        }
        if r.status == Status::Failed && step.optional {
            r.reason = Some("optional step: its failure does not fail the flow".into());
        }
        // A tool step sets its own duration (evidence collection is not part of it).
        if !ran_tool {
            r.duration_ms = ms(started.elapsed());
        }
        // A failure of the step itself (not of a step inside it) quotes the flow source.
        if r.status == Status::Failed
            && r.error.is_some()
            && !r.children.iter().any(|c| c.status == Status::Failed)
        {
            r.source = self.source_excerpt(&r.location);
        }
        if is_tool || r.status != Status::Passed {
            self.dev.events.emit(&RunEvent::StepFinished {
                device: self.dev.serial.clone(),
                flow_id: self.fp.id.clone(),
                step_id: step.id.clone(),
                title,
                status: r.status,
                duration_ms: r.duration_ms,
                error: r.error.clone(),
                location: r.location.clone(),
            });
        }
        r
    }

    fn flow_timeout(&self, step: &PlanStep) -> StepError {
        self.err(
            step,
            codes::FLOW_TIMEOUT,
            format!(
                "the flow's timeout ({} ms) passed before this step finished",
                self.fp.timeout_ms
            ),
        )
    }
}

fn status_of(o: Flow) -> Status {
    match o {
        Flow::Continue => Status::Passed,
        Flow::Failed => Status::Failed,
        Flow::Interrupted => Status::Interrupted,
    }
}
