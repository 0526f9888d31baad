//! Implicit waits, a flow-level behaviour: a step that acts on an element (a tool declaring
//! `waits_for_target` in its [`tapflow_tools::FlowHooks`]: click, long_press, input_text) and finds no such
//! element yet calls its tool again until the element appears or the step's `wait_ms` passes.
//!
//! The tool's own dump is the poll: when the target is already there the first call acts on
//! it and nothing extra is spent; when it appears later, the dump that finds it is the one the
//! action uses. Only `ELEMENT_NOT_FOUND` is waited on: these tools return it before they touch
//! the device, so a repeated call never repeats an action. A bare tool call (MCP, `tapflow
//! tool`) never gets here and keeps the reference semantics.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Attempt, FlowRun, cost};
use crate::run::worker::CallOutcome;

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

impl FlowRun<'_, '_> {
    /// Calls the step's tool, waiting up to `step.wait_ms` for its element; never past the
    /// attempt's deadline. A final `ELEMENT_NOT_FOUND` says how long it waited (`details.waited_ms`).
    pub(super) fn call_waiting(&mut self, at: &Attempt<'_>, args: Value) -> CallOutcome {
        let started = Instant::now();
        let (step, tool, deadline, token) = (at.step, at.tool, at.deadline, at.token);
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
                cost::add(&mut outcome, spent);
                return outcome;
            }
            spent = cost::plus(spent, cost::of(&outcome));
            if Instant::now() >= wait_until {
                let earlier = cost::minus(spent, cost::of(&outcome));
                cost::add(&mut outcome, earlier);
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
