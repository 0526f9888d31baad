//! Step lists and single steps: a bare tool name, a `tool: args` mapping with its options, and
//! the settings mapping shared by control steps.

use super::Parser;
use crate::flow::ast::*;
use crate::flow::suggest::did_you_mean;
use crate::flow::yaml::{Key, Node, Value};

impl Parser<'_> {
    pub(super) fn steps(&mut self, node: &Node, what: &str) -> Vec<Step> {
        match &node.value {
            Value::Seq(items) => {
                // Sized up front: collecting a filtered iterator grows by doubling, which
                // for a long list of steps holds up to twice the memory it needs.
                let mut steps = Vec::with_capacity(items.len());
                steps.extend(items.iter().filter_map(|n| self.step(n)));
                steps
            }
            Value::Null => Vec::new(),
            _ => {
                self.err_help(
                    node.span,
                    crate::codes::diag::WRONG_TYPE,
                    format!("{what} must be a list of steps, found {}", node.type_name()),
                    "expected a list",
                    Some("write each step on its own line starting with `- `".into()),
                );
                Vec::new()
            }
        }
    }

    fn step(&mut self, node: &Node) -> Option<Step> {
        match &node.value {
            // `- screenshot`: a step with no arguments.
            Value::Str(name) => {
                let key = Key {
                    name: name.clone(),
                    span: node.span,
                };
                self.step_body(&key, None, StepOptions::default())
            }
            Value::Map(entries) => self.step_map(node, entries),
            _ => {
                self.err_help(
                    node.span,
                    crate::codes::diag::INVALID_STEP,
                    format!(
                        "a step must be a tool name or a mapping such as `click: Login`, found {}",
                        node.type_name()
                    ),
                    "not a step",
                    None,
                );
                None
            }
        }
    }

    fn step_map(&mut self, node: &Node, entries: &[(Key, Node)]) -> Option<Step> {
        let mut options = StepOptions::default();
        let mut body: Option<(&Key, &Node)> = None;
        let mut misplaced = false;
        for (key, value) in entries {
            if STEP_OPTIONS.contains(&key.name.as_str()) {
                self.option(&mut options, key, value);
                continue;
            }
            match body {
                None => body = Some((key, value)),
                Some((first, first_value)) => {
                    misplaced |= first_value.value == Value::Null;
                    // A second tool-like key: usually a parameter indented one level too little.
                    let help = did_you_mean(&key.name, STEP_OPTIONS.iter().copied()).or_else(|| {
                        Some(if first_value.value == Value::Null || first_value.is_scalar() {
                            format!(
                                "if `{}` is a parameter of `{}`, indent it under `{}:`; one step runs one tool",
                                key.name, first.name, first.name
                            )
                        } else {
                            format!(
                                "one step runs one tool; start a new step with `- {}:`",
                                key.name
                            )
                        })
                    });
                    self.err_help(
                        key.span,
                        crate::codes::diag::EXTRA_STEP_KEY,
                        format!("step `{}` has an unexpected key `{}`", first.name, key.name),
                        "unexpected here",
                        help,
                    );
                }
            }
        }
        let Some((key, value)) = body else {
            self.err_help(
                node.span,
                crate::codes::diag::MISSING_TOOL,
                "this step has options but no tool",
                "which tool should this step run?",
                Some("add the tool, e.g. `- click: Login`, beside the options".into()),
            );
            return None;
        };
        if misplaced {
            // `- click:` followed by its parameters at step level: the step's arguments are
            // unknown, so checking the tool would only add noise to the error above.
            return None;
        }
        let value = (value.value != Value::Null).then_some(value);
        self.step_body(key, value, options)
    }

    fn step_body(&mut self, key: &Key, value: Option<&Node>, options: StepOptions) -> Option<Step> {
        let kind = match key.name.as_str() {
            "run_flow" => self.run_flow(key, value)?,
            "repeat" => self.repeat(key, value)?,
            "retry" => self.retry(key, value)?,
            "assert_visible" | "assert_not_visible" => {
                let visible = key.name == "assert_visible";
                let Some(args) = value else {
                    self.err_help(
                        key.span,
                        crate::codes::diag::MISSING_PARAM,
                        format!("`{}` needs an element to look for", key.name),
                        "nothing to look for",
                        Some(format!(
                            "write `{}: Welcome` or `{}: {{element_id: banner}}`",
                            key.name, key.name
                        )),
                    );
                    return None;
                };
                StepKind::Assert {
                    visible,
                    args: args.clone(),
                }
            }
            _ => StepKind::Tool {
                name: Str {
                    value: key.name.clone(),
                    span: key.span,
                },
                args: value.cloned(),
            },
        };
        Some(Step {
            span: key.span,
            kind,
            options,
        })
    }

    pub(super) fn control_map<'n>(
        &mut self,
        key: &Key,
        value: Option<&'n Node>,
        shape: &str,
    ) -> Option<&'n [(Key, Node)]> {
        match value {
            Some(v) => match v.as_map() {
                Some(m) => Some(m),
                None => {
                    self.err_help(
                        v.span,
                        crate::codes::diag::WRONG_TYPE,
                        format!("`{}` must be a mapping, found {}", key.name, v.type_name()),
                        "expected a mapping",
                        Some(format!("write `{}: {shape}`", key.name)),
                    );
                    None
                }
            },
            None => {
                self.err_help(
                    key.span,
                    crate::codes::diag::MISSING_PARAM,
                    format!("`{}` needs its settings", key.name),
                    "empty",
                    Some(format!("write `{}: {shape}`", key.name)),
                );
                None
            }
        }
    }

    pub(super) fn unknown_control_key(&mut self, control: &str, k: &Key, allowed: &[&str]) {
        self.err_help(
            k.span,
            crate::codes::diag::UNKNOWN_PARAM,
            format!("`{control}` has no setting `{}`", k.name),
            "unknown setting",
            did_you_mean(&k.name, allowed.iter().copied())
                .or_else(|| Some(format!("`{control}` takes: {}", allowed.join(", ")))),
        );
    }
}
