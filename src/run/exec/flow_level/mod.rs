//! Everything a flow adds to a bare tool call, in one place (`docs/flow-format.md`,
//! "Flow-level behaviours"). The tools declare what a flow may use, as typed hooks
//! ([`tapflow_tools::FlowHooks`]); this module does it, and nothing else in the runner knows
//! any tool:
//!
//! - **routing**: the step's device goes to the tools that take one (a device-free tool such
//!   as `build_app` gets none);
//! - **log windows** ([`log_window`]): a device log query with no window reads from the
//!   flow's start;
//! - **step files** ([`step_files`]): a relative file path lands in the run and is evidence;
//! - **hand-over of screens**: a step whose successor starts by looking at the screen brings
//!   the screen back with its last action (`tapflow_tools::context::carry`);
//! - **implicit waits** ([`implicit_wait`]): a step whose element is missing calls again;
//! - **typing**: lost keys typed again ([`retype`]), a masked field of the right length
//!   passes unverified ([`masked`]), what a field showed of a secret is dotted out
//!   ([`typed_secret`]);
//! - **cost accounting** ([`cost`]): every call's cost, summed per step.
//!
//! The rest of `exec` runs a step's attempts, retries, expectations and evidence, for any tool.

use std::time::Instant;

use serde_json::Value;
use tapflow_tools::Routing;
use tapflow_tools::flow_hooks::{LogWindow, StepFile, Typing};

use super::FlowRun;
use crate::run::cancel::CancelToken;
use crate::run::result::{EvidenceRef, StepCost};
use crate::run::worker::CallOutcome;
use tapflow_core::plan::model::{Action, PlanStep};

mod cost;
mod implicit_wait;
mod log_window;
mod masked;
mod retype;
mod step_files;
mod typed_secret;

/// What a flow adds to one tool's calls, as the tool declared it.
#[derive(Clone, Copy, Default)]
pub(super) struct Hooks {
    /// The tool takes a device (`device_id`).
    routed: bool,
    step_file: Option<StepFile>,
    log_window: Option<LogWindow>,
    typing: Option<Typing>,
}

/// One attempt of a step, as the flow sends it.
pub(super) struct Attempt<'s> {
    pub step: &'s PlanStep,
    pub tool: &'s str,
    pub deadline: Option<Instant>,
    pub token: &'s CancelToken,
}

impl FlowRun<'_, '_> {
    /// The hooks of `tool` (none for a tool the engine does not know: its call says so).
    pub(super) fn hooks(&self, tool: &str) -> Hooks {
        let engine = self.dev.caller.engine();
        let Some(def) = engine.get(tool) else {
            return Hooks {
                routed: true,
                ..Hooks::default()
            };
        };
        Hooks {
            routed: def.routing == Routing::Full,
            step_file: def.flow.step_file,
            log_window: def.flow.log_window,
            typing: def.flow.typing,
        }
    }

    /// The step's arguments as a flow means them (before `{{ … }}` are resolved): a log
    /// window from the flow's start, a relative file in the run. `None`: as written.
    pub(super) fn flow_args(&self, h: &Hooks, args: &Value) -> Option<Value> {
        let windowed = h
            .log_window
            .and_then(|w| log_window::from_flow_start(&w, args, &self.started_local));
        let args_now = windowed.as_ref().unwrap_or(args);
        match h.step_file.and_then(|f| self.file_in_run(&f, args_now)) {
            Some(moved) => Some(moved),
            None => windowed,
        }
    }

    /// `args` routed to this flow's device, when the tool takes one.
    pub(super) fn route(&self, h: &Hooks, mut args: Value) -> Value {
        if h.routed
            && let Value::Object(o) = &mut args
        {
            o.insert("device_id".into(), Value::String(self.dev.serial.clone()));
        }
        args
    }

    /// `route` for a tool known by name (the conditions' waits).
    pub(super) fn route_to(&self, tool: &str, args: Value) -> Value {
        let h = self.hooks(tool);
        self.route(&h, args)
    }

    /// Sends one attempt with everything a flow adds (resolved arguments in, outcome out):
    /// its cost asked for and added to `cost`, the device, the screen handed on, the implicit
    /// wait, retyping, a masked field's length, a secret's parts dotted out.
    pub(super) fn flow_call(
        &mut self,
        h: &Hooks,
        at: &Attempt<'_>,
        mut args: Value,
        step_cost: &mut Option<StepCost>,
    ) -> CallOutcome {
        let asked = cost::ask(&mut args);
        self.dev.caller.next_looks_at_screen(self.next_looks);
        let sent = self.route(h, args);
        let first = self.call_waiting(at, sent.clone());
        let mut outcome = match &h.typing {
            Some(t) => {
                let o = self.retype_lost_keys(at, t, &sent, first);
                let mut o = masked::accept(at.tool, t, o);
                typed_secret::redact(&self.masker, t, &sent, &mut o);
                o
            }
            None => first,
        };
        cost::settle(&mut outcome, asked, step_cost);
        outcome
    }

    /// The file a passed step wrote in the run, as evidence.
    pub(super) fn flow_evidence(&self, h: &Hooks, result: &Value) -> Option<EvidenceRef> {
        self.file_evidence(&h.step_file?, result)
    }

    /// Hand-over of screens: whether `step` starts by looking at the screen (a plain tool step
    /// whose tool says so for these arguments), so the step before it should bring the screen
    /// back with its last action (see `tapflow_tools::context::carry`).
    pub(super) fn looks_first(&self, step: &PlanStep) -> bool {
        match &step.action {
            Action::Tool { tool, args } if step.when.is_none() => self
                .dev
                .caller
                .engine()
                .get(tool)
                .is_some_and(|t| t.flow.looks_first(args)),
            _ => false,
        }
    }
}
