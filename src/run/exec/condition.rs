//! Conditions (`when`, `repeat.while`): platform, variable comparisons (variables, secrets,
//! kept results) and element presence through a `wait_for_element` call.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::{FlowRun, codes, location};
use crate::run::result::StepError;
use crate::run::values::{UNRESOLVED_VARIABLE, compare};
use crate::run::worker::CallOutcome;
use tapflow_core::plan::compile::ASSERT_TOOL;
use tapflow_core::plan::model::{PlanCondition, PlanStep};

impl FlowRun<'_, '_> {
    /// Evaluates a `when` / `while` condition; `Err` when it cannot be evaluated.
    pub(super) fn condition_holds(
        &mut self,
        step: &PlanStep,
        cond: Option<&PlanCondition>,
    ) -> Result<bool, Box<StepError>> {
        let Some(c) = cond else { return Ok(true) };
        if let Some(p) = &c.platform
            && !p.as_str().eq_ignore_ascii_case(&self.dev.platform)
        {
            return Ok(false);
        }
        if let Some(cmp) = &c.compare {
            let Some(actual) =
                self.vars
                    .condition_value(self.fp, &cmp.var, cmp.resolved.as_deref())
            else {
                return Err(Box::new(self.err(
                    step,
                    UNRESOLVED_VARIABLE,
                    format!("the condition's `{}` has no value at run time", cmp.var),
                )));
            };
            let expected = self
                .vars
                .resolve(self.fp, &cmp.value, true)
                .map_err(|m| Box::new(self.err(step, UNRESOLVED_VARIABLE, m)))?;
            if !compare(&actual, cmp.op, &expected) {
                return Ok(false);
            }
        }
        for args in [&c.visible, &c.not_visible].into_iter().flatten() {
            let args = self
                .vars
                .resolve(self.fp, args, true)
                .map_err(|m| Box::new(self.err(step, UNRESOLVED_VARIABLE, m)))?;
            // The assertion tool's own time budget (its `timeout_ms`), as it declares it.
            let budget = match &args {
                Value::Object(params) => self.dev.caller.engine().budget_ms(
                    ASSERT_TOOL,
                    params,
                    &self.dev.caller.context().config,
                ),
                _ => None,
            }
            .unwrap_or(0);
            let mut deadline = Instant::now()
                + Duration::from_millis(budget + tapflow_core::plan::compile::DEADLINE_MARGIN_MS);
            if let Some(fd) = self.flow_deadline() {
                deadline = deadline.min(fd);
            }
            let args = self.route_to(ASSERT_TOOL, args);
            let token = self.token();
            match self
                .dev
                .caller
                .call(ASSERT_TOOL, args, Some(deadline), &token)
            {
                CallOutcome::Done(env) if env.ok() => {}
                CallOutcome::Done(env) if env.code() == Some(tapflow_core::codes::WAIT_TIMEOUT) => {
                    return Ok(false);
                }
                CallOutcome::Done(env) => {
                    let e = env.structured.error.clone().unwrap_or_else(|| {
                        tapflow_tools::ToolError::new(
                            tapflow_core::codes::INTERNAL_ERROR,
                            "no error given",
                        )
                    });
                    return Err(Box::new(StepError {
                        code: e.code,
                        message: self
                            .masker
                            .text(&format!("condition: {}", e.message))
                            .into_owned(),
                        details: self.masker.value(&e.details),
                        location: Some(location(&step.source)),
                    }));
                }
                CallOutcome::TimedOut => {
                    return Err(Box::new(self.err(
                        step,
                        codes::STEP_TIMEOUT,
                        "the condition's element check did not answer in time",
                    )));
                }
                CallOutcome::Cancelled => {
                    return Err(Box::new(self.err(
                        step,
                        codes::INTERRUPTED,
                        "the run was interrupted",
                    )));
                }
            }
        }
        Ok(true)
    }
}
