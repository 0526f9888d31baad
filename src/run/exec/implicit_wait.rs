//! Implicit waits, a flow-level behaviour: a step that acts on an element (a tool declaring
//! [`tapflow_tools::Tool::WAITS_FOR_TARGET`]: click, long_press, input_text) and finds no such
//! element yet calls its tool again until the element appears or the step's `wait_ms` passes.
//!
//! The tool's own dump is the poll: when the target is already there the first call acts on
//! it and nothing extra is spent; when it appears later, the dump that finds it is the one the
//! action uses. Only `ELEMENT_NOT_FOUND` is waited on: these tools return it before they touch
//! the device, so a repeated call never repeats an action. A bare tool call (MCP, `tapflow
//! tool`) never gets here and keeps the reference semantics.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::FlowRun;
use crate::run::cancel::CancelToken;
use crate::run::worker::CallOutcome;
use tapflow_core::plan::model::PlanStep;

/// Pause between two looks for a missing element (a cancellable wait, bounded by the wait's
/// and the step's deadlines).
const POLL: Duration = Duration::from_millis(200);

/// The envelope says the target is not on screen (yet).
fn target_missing(outcome: &CallOutcome) -> bool {
    match outcome {
        CallOutcome::Done(env) => {
            !env.ok()
                && env
                    .structured
                    .error
                    .as_ref()
                    .is_some_and(|e| e.code == tapflow_core::codes::ELEMENT_NOT_FOUND)
        }
        _ => false,
    }
}

/// `(device_round_trips, ui_dumps)` an envelope reports (`cost`, in its result or error
/// details).
pub(super) fn cost_of(outcome: &CallOutcome) -> (u64, u64) {
    let CallOutcome::Done(env) = outcome else {
        return (0, 0);
    };
    let holder = env.structured.payload();
    let n = |k: &str| {
        holder
            .get("cost")
            .and_then(|c| c.get(k))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    (n("device_round_trips"), n("ui_dumps"))
}

fn add(a: (u64, u64), b: (u64, u64)) -> (u64, u64) {
    (a.0 + b.0, a.1 + b.1)
}

fn sub(a: (u64, u64), b: (u64, u64)) -> (u64, u64) {
    (a.0.saturating_sub(b.0), a.1.saturating_sub(b.1))
}

/// Adds `extra` to the cost the envelope reports (nothing when it reports none).
pub(super) fn add_cost(outcome: &mut CallOutcome, extra: (u64, u64)) {
    if extra == (0, 0) {
        return;
    }
    let CallOutcome::Done(env) = outcome else {
        return;
    };
    if let Some(Value::Object(c)) = env.structured.payload_mut().get_mut("cost") {
        for (k, v) in [("device_round_trips", extra.0), ("ui_dumps", extra.1)] {
            let now = c.get(k).and_then(Value::as_u64).unwrap_or(0);
            c.insert(k.into(), (now + v).into());
        }
    }
}

impl FlowRun<'_, '_> {
    /// Calls the step's tool, waiting up to `step.wait_ms` for its element; never past
    /// `deadline`. A final `ELEMENT_NOT_FOUND` says how long it waited (`details.waited_ms`).
    pub(super) fn call_waiting(
        &mut self,
        step: &PlanStep,
        tool: &str,
        args: Value,
        deadline: Option<Instant>,
        token: &CancelToken,
    ) -> CallOutcome {
        let started = Instant::now();
        let mut wait_until = started + Duration::from_millis(step.wait_ms);
        if let Some(d) = deadline {
            wait_until = wait_until.min(d);
        }
        // The cost of the looks that found nothing, added to the last one's (when the call
        // reports its cost), so the step's cost counts every dump.
        let mut spent = (0u64, 0u64);
        loop {
            let mut outcome = self.dev.caller.call(tool, args.clone(), deadline, token);
            if step.wait_ms == 0 || !target_missing(&outcome) {
                add_cost(&mut outcome, spent);
                return outcome;
            }
            spent = add(spent, cost_of(&outcome));
            if Instant::now() >= wait_until {
                let earlier = sub(spent, cost_of(&outcome));
                add_cost(&mut outcome, earlier);
                if let CallOutcome::Done(env) = &mut outcome
                    && let Some(e) = env.structured.error.as_mut()
                {
                    let waited = started.elapsed().as_millis() as u64;
                    e.message = format!("{} (waited {waited} ms for it)", e.message);
                    if let Value::Object(d) = &mut e.details {
                        d.insert("waited_ms".into(), waited.into());
                    } else if e.details.is_null() {
                        e.details = serde_json::json!({ "waited_ms": waited });
                    }
                }
                return outcome;
            }
            if !token.wait(POLL, Some(wait_until)) {
                return CallOutcome::Cancelled;
            }
        }
    }
}
