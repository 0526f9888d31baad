//! Step options (`label`, `deadline`, `retries`, `optional`, `when`, `keep`, `expect`) and
//! conditions.

use super::{Parser, is_var_name};
use crate::flow::ast::*;
use crate::flow::suggest::did_you_mean;
use crate::flow::yaml::{Key, Node, Value};

impl Parser<'_> {
    pub(super) fn option(&mut self, opts: &mut StepOptions, key: &Key, value: &Node) {
        match key.name.as_str() {
            "label" => opts.label = self.string(value, "`label`"),
            "deadline" => opts.deadline = self.duration(value, "`deadline`"),
            "wait" => opts.wait = self.duration(value, "`wait`"),
            "optional" => opts.optional = self.boolean(value, "`optional`").is_some_and(|(b, _)| b),
            "when" => opts.when = self.condition(value).map(Box::new),
            "keep" => {
                opts.keep = self.string(value, "`keep`");
                if let Some(k) = &opts.keep
                    && !is_var_name(&k.value)
                {
                    let span = k.span;
                    self.err_help(
                        span,
                        crate::codes::diag::INVALID_VARIABLE_NAME,
                        format!("`{}` is not a valid name for a kept result", k.value),
                        "invalid name",
                        Some("use letters, digits and `_`; later steps read `{{ steps.NAME.result.FIELD }}`".into()),
                    );
                    opts.keep = None;
                }
            }
            "retries" => opts.retries = self.retries(value),
            "expect" => opts.expect = self.expect(value),
            _ => unreachable!("STEP_OPTIONS and this match agree"),
        }
    }

    /// A flow's `defaults:` mapping; returns its `wait`.
    pub(super) fn defaults(&mut self, value: &Node) -> Option<Duration> {
        let Value::Map(entries) = &value.value else {
            self.wrong_type(value, "`defaults`", "a mapping such as `{wait: 5s}`");
            return None;
        };
        let mut wait = None;
        for (k, v) in entries {
            match k.name.as_str() {
                "wait" => wait = self.duration(v, "`defaults.wait`"),
                _ => self.unknown_control_key("defaults", k, &crate::flow::format::DEFAULTS_KEYS),
            }
        }
        wait
    }

    pub(super) fn retries(&mut self, value: &Node) -> Option<Retries> {
        match &value.value {
            Value::Int(i) if *i >= 0 => Some(Retries {
                count: *i as u64,
                delay: None,
                span: value.span,
            }),
            Value::Map(entries) => {
                let mut r = Retries {
                    count: 0,
                    delay: None,
                    span: value.span,
                };
                let mut has_count = false;
                for (k, v) in entries {
                    match k.name.as_str() {
                        "count" => {
                            if let Some((c, _)) = self.count(v, "`retries.count`") {
                                r.count = c;
                                has_count = true;
                            }
                        }
                        "delay" => r.delay = self.duration(v, "`retries.delay`"),
                        _ => self.unknown_control_key(
                            "retries",
                            k,
                            &crate::flow::format::RETRIES_KEYS,
                        ),
                    }
                }
                if !has_count {
                    self.err(
                        value.span,
                        crate::codes::diag::MISSING_PARAM,
                        "`retries` needs `count`",
                        "how many retries?",
                    );
                }
                Some(r)
            }
            _ => {
                self.wrong_type(value, "`retries`", "a count or `{count: 2, delay: 500ms}`");
                None
            }
        }
    }

    pub(super) fn expect(&mut self, value: &Node) -> Vec<Expectation> {
        let Some(entries) = value.as_map() else {
            self.wrong_type(
                value,
                "`expect`",
                "a mapping of result fields to expected values",
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for (k, v) in entries {
            let field = Str {
                value: k.name.clone(),
                span: k.span,
            };
            match &v.value {
                Value::Map(ops) if ops.len() == 1 => {
                    let (opk, opv) = &ops[0];
                    match CompareOp::from_name(&opk.name) {
                        Some(op) => out.push(Expectation {
                            field,
                            op,
                            value: opv.clone(),
                        }),
                        None => self.err_help(
                            opk.span,
                            crate::codes::diag::UNKNOWN_OPERATOR,
                            format!("unknown comparison `{}`", opk.name),
                            "not a comparison",
                            did_you_mean(&opk.name, CompareOp::EXPECT_OPS.iter().copied()).or_else(
                                || {
                                    Some(format!(
                                        "use one of: {}",
                                        CompareOp::EXPECT_OPS.join(", ")
                                    ))
                                },
                            ),
                        ),
                    }
                }
                Value::Map(_) => self.err_help(
                    v.span,
                    crate::codes::diag::WRONG_TYPE,
                    "an expectation takes exactly one comparison",
                    "one comparison per field",
                    Some("write `field: value` or `field: {gte: 1}`".into()),
                ),
                _ => out.push(Expectation {
                    field,
                    op: CompareOp::Equals,
                    value: v.clone(),
                }),
            }
        }
        out
    }

    pub(super) fn condition(&mut self, node: &Node) -> Option<Condition> {
        let Some(entries) = node.as_map() else {
            self.err_help(
                node.span,
                crate::codes::diag::WRONG_TYPE,
                format!("a condition must be a mapping, found {}", node.type_name()),
                "expected a mapping",
                Some("write e.g. `when: {platform: harmonyos}` or `when: {visible: Allow}`".into()),
            );
            return None;
        };
        let mut c = Condition {
            span: node.span,
            ..Condition::default()
        };
        let mut var = None;
        let mut op = None;
        for (k, v) in entries {
            match k.name.as_str() {
                "platform" => {
                    c.platform = self.string(v, "`platform`");
                    if let Some(p) = &c.platform
                        && !PLATFORMS.contains(&p.value.to_ascii_lowercase().as_str())
                    {
                        let (span, val) = (p.span, p.value.clone());
                        self.err_help(
                            span,
                            crate::codes::diag::INVALID_VALUE,
                            format!("unknown platform `{val}`"),
                            "not a platform",
                            did_you_mean(&val, PLATFORMS.iter().copied())
                                .or_else(|| Some(format!("use one of: {}", PLATFORMS.join(", ")))),
                        );
                    }
                }
                "visible" => c.visible = Some(v.clone()),
                "not_visible" => c.not_visible = Some(v.clone()),
                "var" => var = self.string(v, "`var`"),
                "equals" | "not_equals" | "in" => {
                    if op.is_some() {
                        self.err(
                            k.span,
                            crate::codes::diag::PARAM_CONFLICT,
                            "a condition takes one comparison",
                            "second comparison",
                        );
                    }
                    op = CompareOp::from_name(&k.name).map(|o| (o, v.clone(), k.span));
                }
                other => self.err_help(
                    k.span,
                    crate::codes::diag::UNKNOWN_KEY,
                    format!("unknown condition `{other}`"),
                    "not a condition",
                    did_you_mean(other, CONDITION_KEYS.iter().copied()).or_else(|| {
                        Some(format!(
                            "a condition may use: {}",
                            CONDITION_KEYS.join(", ")
                        ))
                    }),
                ),
            }
        }
        match (var, op) {
            (Some(var), Some((op, value, _))) => c.compare = Some(Comparison { var, op, value }),
            (Some(var), None) => self.err_help(
                var.span,
                crate::codes::diag::MISSING_PARAM,
                "`var` needs a comparison",
                "compared with what?",
                Some("add `equals: value`, `not_equals: value` or `in: [a, b]`".into()),
            ),
            (None, Some((_, _, span))) => self.err_help(
                span,
                crate::codes::diag::MISSING_PARAM,
                "a comparison needs `var`",
                "compare which variable?",
                Some("add `var: NAME`".into()),
            ),
            (None, None) => {}
        }
        Some(c)
    }
}
