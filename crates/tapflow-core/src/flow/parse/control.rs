//! Control steps: `run_flow` (a file or inline steps, with its `env`), `repeat` and `retry`,
//! each a settings mapping around a list of steps.

use super::Parser;
use crate::flow::ast::*;
use crate::flow::format::{REPEAT_KEYS, RETRY_KEYS, RUN_FLOW_KEYS};
use crate::flow::yaml::{Key, Node, Value};

impl Parser<'_> {
    pub(super) fn run_flow(&mut self, key: &Key, value: Option<&Node>) -> Option<StepKind> {
        if let Some(v) = value
            && let Value::Str(s) = &v.value
        {
            return Some(StepKind::RunFlow {
                target: RunTarget::File(Str {
                    value: s.clone(),
                    span: v.span,
                }),
                env: Vec::new(),
            });
        }
        let entries =
            self.control_map(key, value, "{file: login.subflow.yaml, env: {USER: demo}}")?;
        let mut file = None;
        let mut inline = None;
        let mut env = Vec::new();
        for (k, v) in entries {
            match k.name.as_str() {
                "file" => file = self.string(v, "`file`"),
                "steps" => inline = Some((self.steps(v, "`steps`"), k.span)),
                "env" => env = self.run_flow_env(v),
                _ => self.unknown_control_key("run_flow", k, &RUN_FLOW_KEYS),
            }
        }
        let target = match (file, inline) {
            (Some(f), None) => RunTarget::File(f),
            (None, Some((steps, _))) => RunTarget::Inline(steps),
            (Some(_), Some((_, span))) => {
                self.err(
                    span,
                    crate::codes::diag::PARAM_CONFLICT,
                    "`run_flow` takes either `file` or `steps`, not both",
                    "second target",
                );
                return None;
            }
            (None, None) => {
                self.err_help(
                    key.span,
                    crate::codes::diag::MISSING_PARAM,
                    "`run_flow` needs a `file` or inline `steps`",
                    "nothing to run",
                    Some("write `run_flow: login.subflow.yaml`".into()),
                );
                return None;
            }
        };
        Some(StepKind::RunFlow { target, env })
    }

    fn run_flow_env(&mut self, v: &Node) -> Vec<(Str, Str)> {
        let Some(m) = v.as_map() else {
            self.wrong_type(v, "`env`", "a mapping of variable names to values");
            return Vec::new();
        };
        m.iter()
            .filter_map(|(k, val)| {
                let value = self.string(val, "a variable value")?;
                Some((
                    Str {
                        value: k.name.clone(),
                        span: k.span,
                    },
                    value,
                ))
            })
            .collect()
    }

    pub(super) fn repeat(&mut self, key: &Key, value: Option<&Node>) -> Option<StepKind> {
        let entries = self.control_map(key, value, "{times: 3, steps: [...]}")?;
        let mut times = None;
        let mut while_ = None;
        let mut steps = None;
        for (k, v) in entries {
            match k.name.as_str() {
                "times" => match &v.value {
                    Value::Int(i) if *i >= 0 => times = Some(v.clone()),
                    Value::Str(s) if s.contains("{{") => times = Some(v.clone()),
                    _ => self.wrong_type(v, "`times`", "a non-negative integer"),
                },
                "while" => while_ = self.condition(v).map(Box::new),
                "steps" => steps = Some(self.steps(v, "`steps`")),
                _ => self.unknown_control_key("repeat", k, &REPEAT_KEYS),
            }
        }
        if times.is_none() && while_.is_none() {
            self.err_help(
                key.span,
                crate::codes::diag::MISSING_PARAM,
                "`repeat` needs `times`, `while`, or both",
                "would never stop",
                Some("add `times: 3` (a cap) and/or `while: {visible: More}`".into()),
            );
        }
        let Some(steps) = steps else {
            self.err(
                key.span,
                crate::codes::diag::MISSING_PARAM,
                "`repeat` needs `steps`",
                "nothing to repeat",
            );
            return None;
        };
        Some(StepKind::Repeat {
            times,
            while_,
            steps,
        })
    }

    pub(super) fn retry(&mut self, key: &Key, value: Option<&Node>) -> Option<StepKind> {
        let entries = self.control_map(key, value, "{times: 2, steps: [...]}")?;
        let mut times = None;
        let mut delay = None;
        let mut steps = None;
        for (k, v) in entries {
            match k.name.as_str() {
                "times" => times = self.count(v, "`times`"),
                "delay" => delay = self.duration(v, "`delay`"),
                "steps" => steps = Some(self.steps(v, "`steps`")),
                _ => self.unknown_control_key("retry", k, &RETRY_KEYS),
            }
        }
        let Some(steps) = steps else {
            self.err(
                key.span,
                crate::codes::diag::MISSING_PARAM,
                "`retry` needs `steps`",
                "nothing to retry",
            );
            return None;
        };
        Some(StepKind::Retry {
            times,
            delay,
            steps,
        })
    }
}
