//! Blocks: `repeat` (a count and/or a `while` condition) and `retry` (run the steps again
//! after a failure); every pass is recorded as an `iteration` child.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Flow, FlowRun, MAX_REPEAT, blank, codes, ms, status_of};
use crate::run::result::*;
use crate::run::values::UNRESOLVED_VARIABLE;
use tapflow_core::plan::model::{Action, PlanCondition, PlanStep, SourceRef};

impl FlowRun<'_, '_> {
    pub(super) fn iteration(
        &mut self,
        step: &PlanStep,
        n: u64,
        steps: &[PlanStep],
    ) -> (StepResult, Flow) {
        let started = Instant::now();
        self.passes.push(n);
        let (children, o) = self.sequence(steps);
        self.passes.pop();
        let r = StepResult {
            id: format!("{}#{n}", step.id),
            kind: StepKind::Iteration,
            status: status_of(o),
            started_at: None,
            duration_ms: ms(started.elapsed()),
            children,
            label: None,
            tool: None,
            title: format!("pass {n}"),
            optional: false,
            ..blank(step)
        };
        (r, o)
    }

    pub(super) fn repeat(
        &mut self,
        step: &PlanStep,
        times: Option<&Value>,
        while_: Option<&PlanCondition>,
        steps: &[PlanStep],
        r: &mut StepResult,
    ) {
        let limit = match times {
            None => MAX_REPEAT,
            Some(v) => {
                let v = match self.vars.resolve(self.fp, v, true) {
                    Ok(v) => v,
                    Err(m) => {
                        r.status = Status::Failed;
                        r.error = Some(self.err(step, UNRESOLVED_VARIABLE, m));
                        return;
                    }
                };
                match v
                    .as_u64()
                    .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
                {
                    Some(n) if n <= MAX_REPEAT => n,
                    _ => {
                        r.status = Status::Failed;
                        r.error = Some(self.err(
                            step,
                            codes::INVALID_REPEAT,
                            format!(
                                "`times` must be a whole number up to {MAX_REPEAT}, found {}",
                                crate::run::values::as_text(&v)
                            ),
                        ));
                        return;
                    }
                }
            }
        };
        r.status = Status::Passed;
        for n in 1..=limit {
            match self.condition_holds(step, while_) {
                Ok(true) => {}
                Ok(false) => return,
                Err(e) => {
                    r.status = if e.code == codes::INTERRUPTED {
                        Status::Interrupted
                    } else {
                        Status::Failed
                    };
                    r.error = Some(*e);
                    return;
                }
            }
            let (it, o) = self.iteration(step, n, steps);
            r.children.push(it);
            if o != Flow::Continue {
                r.status = status_of(o);
                return;
            }
        }
        if times.is_none() && while_.is_some() {
            r.status = Status::Failed;
            r.error = Some(self.err(
                step,
                codes::INVALID_REPEAT,
                format!("the `while` condition still held after {MAX_REPEAT} passes"),
            ));
        }
    }

    pub(super) fn retry_block(
        &mut self,
        times: u64,
        delay_ms: u64,
        steps: &[PlanStep],
        r: &mut StepResult,
    ) {
        let token = self.token();
        let step_for_ids = PlanStep::plain(
            r.id.clone(),
            Action::SubFlow {
                file: None,
                variables: Vec::new(),
                steps: Vec::new(),
            },
            SourceRef {
                file: r.location.file.clone(),
                line: r.location.line,
                column: r.location.column,
            },
        );
        for n in 1..=times + 1 {
            let (it, o) = self.iteration(&step_for_ids, n, steps);
            r.children.push(it);
            match o {
                Flow::Continue => {
                    r.status = Status::Passed;
                    return;
                }
                Flow::Interrupted => {
                    r.status = Status::Interrupted;
                    return;
                }
                Flow::Failed => r.status = Status::Failed,
            }
            if n <= times
                && delay_ms > 0
                && !token.wait(Duration::from_millis(delay_ms), self.flow_deadline())
            {
                r.status = Status::Interrupted;
                return;
            }
            if self.flow_expired() {
                return;
            }
        }
    }
}
