//! One tool step: its attempts (each under its deadline, sent with what a flow adds by
//! `flow_level`), retries with their cancellable delay, `expect:` checks, kept results, masking of what is recorded, the
//! target's bounds, and evidence when it finally fails.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::flow_level::Attempt as Sending;
use super::{FlowRun, codes, location, ms, now_rfc3339};
use crate::run::events::RunEvent;
use crate::run::evidence::{StepRef, StepWindow};
use crate::run::result::*;
use crate::run::values::{UNRESOLVED_VARIABLE, at_path, compare};
use crate::run::worker::CallOutcome;
use tapflow_core::plan::model::PlanStep;

/// `[l,t][r,b]` of the element a result (or error details) names, where it says.
fn bounds_of(v: &Value) -> Option<String> {
    fn fmt(b: &Value) -> Option<String> {
        if let Some(s) = b.as_str() {
            return Some(s.to_string());
        }
        let g = |k: &str| b.get(k).and_then(Value::as_i64);
        Some(format!(
            "[{},{}][{},{}]",
            g("left")?,
            g("top")?,
            g("right")?,
            g("bottom")?
        ))
    }
    for path in [
        "bounds",
        "element.bounds",
        "element_handle.bounds",
        "elements.0.bounds",
    ] {
        if let Some(b) = at_path(v, path).and_then(fmt) {
            return Some(b);
        }
    }
    None
}

impl FlowRun<'_, '_> {
    pub(super) fn tool_step(
        &mut self,
        step: &PlanStep,
        tool: &str,
        args: &Value,
        started: Instant,
        r: &mut StepResult,
    ) {
        let hooks = self.hooks(tool);
        let as_meant = self.flow_args(&hooks, args);
        let args = as_meant.as_ref().unwrap_or(args);
        r.args = Some(match self.vars.resolve(self.fp, args, false) {
            Ok(v) => self.masker.value(&v),
            Err(_) => self.masker.value(args),
        });
        let attempts = step.retries + 1;
        let token = self.token();
        let window_start = chrono::Local::now();
        let mut last_attempt = Instant::now();
        for n in 1..=attempts {
            let attempt_started = Instant::now();
            last_attempt = attempt_started;
            let attempt_at = now_rfc3339();
            let real = match self.vars.resolve(self.fp, args, true) {
                Ok(v) => v,
                Err(m) => {
                    r.status = Status::Failed;
                    r.error = Some(self.err(step, UNRESOLVED_VARIABLE, m));
                    break;
                }
            };
            let mut deadline = step
                .deadline_ms
                .map(|d| attempt_started + Duration::from_millis(d));
            let flow_bound = match (deadline, self.flow_deadline()) {
                (Some(d), Some(f)) if f < d => true,
                (None, Some(_)) => true,
                _ => false,
            };
            if flow_bound {
                deadline = self.flow_deadline();
            }
            let sending = Sending {
                step,
                tool,
                deadline,
                token: &token,
            };
            let outcome = self.flow_call(&hooks, &sending, real, &mut r.cost);
            let mut attempt = Attempt {
                number: n,
                status: Status::Passed,
                started_at: attempt_at,
                duration_ms: 0,
                result: None,
                error: None,
            };
            let mut final_attempt = n == attempts;
            match outcome {
                CallOutcome::Done(env) if env.ok() => {
                    let result = env.result().clone();
                    match self.expectations(step, &result) {
                        None => {
                            if let Some(k) = &step.keep {
                                self.vars.keep(k, result.clone());
                            }
                            let masked = self.masker.value(&result);
                            r.bounds = bounds_of(&masked);
                            attempt.result = Some(masked.clone());
                            r.result = Some(masked);
                            r.error = None;
                            r.status = Status::Passed;
                        }
                        Some(e) => {
                            let masked = self.masker.value(&result);
                            r.bounds = bounds_of(&masked);
                            attempt.result = Some(masked.clone());
                            attempt.status = Status::Failed;
                            attempt.error = Some(e.clone());
                            r.result = Some(masked);
                            r.error = Some(e);
                            r.status = Status::Failed;
                        }
                    }
                }
                CallOutcome::Done(env) => {
                    let e = env.structured.error.clone().unwrap_or_else(|| {
                        tapflow_tools::ToolError::new(
                            tapflow_core::codes::INTERNAL_ERROR,
                            "no error given",
                        )
                    });
                    let details = self.masker.value(&e.details);
                    let err = StepError {
                        code: e.code,
                        message: self.masker.text(&e.message).into_owned(),
                        details,
                        location: Some(location(&step.source)),
                    };
                    r.bounds = bounds_of(&err.details);
                    attempt.status = Status::Failed;
                    attempt.error = Some(err.clone());
                    r.result = None;
                    r.error = Some(err);
                    r.status = Status::Failed;
                }
                CallOutcome::TimedOut => {
                    let err = if flow_bound {
                        final_attempt = true;
                        self.flow_timeout(step)
                    } else {
                        self.err(
                            step,
                            codes::STEP_TIMEOUT,
                            format!(
                                "`{tool}` did not finish within the step deadline ({} ms)",
                                step.deadline_ms.unwrap_or(0)
                            ),
                        )
                    };
                    attempt.status = Status::Failed;
                    attempt.error = Some(err.clone());
                    r.error = Some(err);
                    r.status = Status::Failed;
                }
                CallOutcome::Cancelled => {
                    let err = self.err(step, codes::INTERRUPTED, "the run was interrupted");
                    attempt.status = Status::Interrupted;
                    attempt.error = Some(err.clone());
                    r.error = Some(err);
                    r.status = Status::Interrupted;
                    final_attempt = true;
                }
            }
            attempt.duration_ms = ms(attempt_started.elapsed());
            r.attempts.push(attempt);
            if r.status == Status::Passed || final_attempt {
                break;
            }
            if let Some(e) = &r.error {
                self.dev.events.emit(&RunEvent::AttemptFailed {
                    device: self.dev.serial.clone(),
                    step_id: step.id.clone(),
                    attempt: n,
                    error: e.clone(),
                });
            }
            // The delay between retries is a deliberate, cancellable wait.
            if step.retry_delay_ms > 0
                && !token.wait(
                    Duration::from_millis(step.retry_delay_ms),
                    self.flow_deadline(),
                )
            {
                r.status = Status::Interrupted;
                r.error = Some(self.err(step, codes::INTERRUPTED, "the run was interrupted"));
                break;
            }
            if self.flow_expired() {
                r.error = Some(self.flow_timeout(step));
                break;
            }
        }
        if r.status == Status::Failed
            && let Some(e) = r.error.take()
        {
            let e = self.device_unresponsive(last_attempt, e);
            r.error = Some(self.crash_cause(step, e));
        }
        r.duration_ms = ms(started.elapsed());
        let pass = (!self.passes.is_empty()).then(|| {
            self.passes
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(".")
        });
        if r.status == Status::Passed
            && self.dev.every_step_screenshots
            && let Some(col) = self.dev.evidence
        {
            let at = StepRef {
                serial: &self.dev.serial,
                flow: &self.fp.id,
                step: &step.id,
                pass: pass.clone(),
                bounds: r.bounds.as_deref(),
            };
            r.evidence.extend(col.screenshot(&self.dev.caller, &at));
        }
        if r.status == Status::Passed
            && let Some(e) = r
                .result
                .as_ref()
                .and_then(|v| self.flow_evidence(&hooks, v))
        {
            r.evidence.push(e);
        }
        if r.status == Status::Failed
            && let Some(col) = self.dev.evidence
        {
            let window = StepWindow {
                from: window_start,
                to: chrono::Local::now(),
                not_before: Some(self.started_local),
            };
            let at = StepRef {
                serial: &self.dev.serial,
                flow: &self.fp.id,
                step: &step.id,
                pass,
                bounds: r.bounds.as_deref(),
            };
            r.evidence = col.collect(
                &self.dev.caller,
                &at,
                &window,
                self.crash_baseline.as_ref(),
                &self.masker,
            );
        }
    }

    /// The first `expect:` that does not hold, as an error.
    pub(super) fn expectations(&self, step: &PlanStep, result: &Value) -> Option<StepError> {
        for e in &step.expect {
            let actual = at_path(result, &e.field).cloned().unwrap_or(Value::Null);
            let expected = match self.vars.resolve(self.fp, &e.value, true) {
                Ok(v) => v,
                Err(m) => return Some(self.err(step, UNRESOLVED_VARIABLE, m)),
            };
            if !compare(&actual, e.op, &expected) {
                let mut err = self.err(
                    step,
                    codes::EXPECTATION_FAILED,
                    format!(
                        "expected `{}` {} {}, found {}",
                        e.field,
                        e.op.as_str(),
                        expected,
                        actual
                    ),
                );
                err.details = self.masker.value(&json!({
                    "field": e.field,
                    "op": e.op.as_str(),
                    "expected": expected,
                    "actual": actual,
                }));
                return Some(err);
            }
        }
        None
    }
}
