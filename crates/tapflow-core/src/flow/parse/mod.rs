//! Builds the [`Flow`] AST from the YAML node tree, reporting every structural problem (unknown
//! keys, wrong types, malformed steps, options and conditions) and carrying on past each one.

mod options;

use crate::flow::ast::*;
use crate::flow::diag::Diagnostic;
use crate::flow::duration;
use crate::flow::format::{ENV_SETTINGS_KEYS, REPEAT_KEYS, RETRY_KEYS, RUN_FLOW_KEYS};
use crate::flow::source::{SourceFile, Span};
use crate::flow::suggest::{self, did_you_mean};
use crate::flow::yaml::{self, Key, Node, Value};

/// The result of parsing one file: the AST (when the YAML was readable) and all diagnostics.
#[derive(Debug)]
pub struct Parsed {
    pub flow: Option<Flow>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses a flow file's text.
pub fn parse_flow(src: &SourceFile) -> Parsed {
    let root = match yaml::parse(src) {
        Ok(root) => root,
        Err(d) => {
            return Parsed {
                flow: None,
                diagnostics: vec![*d],
            };
        }
    };
    let mut p = Parser {
        src,
        diags: Vec::new(),
    };
    let flow = p.flow(&root);
    Parsed {
        flow: Some(flow),
        diagnostics: p.diags,
    }
}

struct Parser<'a> {
    src: &'a SourceFile,
    diags: Vec<Diagnostic>,
}

impl Parser<'_> {
    pub(super) fn err(
        &mut self,
        span: Span,
        code: &str,
        msg: impl Into<String>,
        label: impl Into<String>,
    ) {
        self.diags
            .push(Diagnostic::error(self.src, span, code, msg, label));
    }

    pub(super) fn err_help(
        &mut self,
        span: Span,
        code: &str,
        msg: impl Into<String>,
        label: impl Into<String>,
        help: Option<String>,
    ) {
        self.diags
            .push(Diagnostic::error(self.src, span, code, msg, label).with_help_opt(help));
    }

    pub(super) fn wrong_type(&mut self, node: &Node, what: &str, expected: &str) {
        self.err(
            node.span,
            crate::codes::diag::WRONG_TYPE,
            format!("{what} must be {expected}, found {}", node.type_name()),
            format!("expected {expected}"),
        );
    }

    fn flow(&mut self, root: &Node) -> Flow {
        let mut flow = Flow {
            file: self.src.name().to_string(),
            is_step_list: false,
            name: None,
            app: None,
            tags: Vec::new(),
            env: Vec::new(),
            timeout: None,
            step_timeout: None,
            clean_state: None,
            default_wait: None,
            on_failure: Vec::new(),
            finally: Vec::new(),
            steps: Vec::new(),
            span: root.span,
        };
        let entries = match &root.value {
            Value::Map(m) => m,
            Value::Seq(_) => {
                flow.is_step_list = true;
                flow.steps = self.steps(root, "the file");
                return flow;
            }
            Value::Null => {
                self.err_help(
                    Span::new(0, 0),
                    crate::codes::diag::EMPTY_FLOW,
                    "the flow file is empty",
                    "no steps",
                    Some("add `steps:` with at least one step".into()),
                );
                return flow;
            }
            _ => {
                self.err_help(
                    root.span,
                    crate::codes::diag::WRONG_TYPE,
                    format!(
                        "a flow file must be a mapping (name, app, steps, …), found {}",
                        root.type_name()
                    ),
                    "expected a mapping",
                    Some("start the file with `steps:` followed by a list of steps".into()),
                );
                return flow;
            }
        };
        let mut has_steps = false;
        let mut steps_typo = false;
        for (key, value) in entries {
            match key.name.as_str() {
                "name" => flow.name = self.string(value, "`name`"),
                "app" => flow.app = self.string(value, "`app`"),
                "tags" => flow.tags = self.tags(value),
                "env" => flow.env = self.env(value),
                "timeout" => flow.timeout = self.duration(value, "`timeout`"),
                "step_timeout" => flow.step_timeout = self.duration(value, "`step_timeout`"),
                "clean_state" => flow.clean_state = self.boolean(value, "`clean_state`"),
                "defaults" => flow.default_wait = self.defaults(value),
                "on_failure" => flow.on_failure = self.steps(value, "`on_failure`"),
                "finally" => flow.finally = self.steps(value, "`finally`"),
                "steps" => {
                    has_steps = true;
                    flow.steps = self.steps(value, "`steps`");
                }
                other => {
                    steps_typo |=
                        suggest::closest(other, TOP_LEVEL_KEYS.iter().copied()) == Some("steps");
                    let help = did_you_mean(other, TOP_LEVEL_KEYS.iter().copied()).or_else(|| {
                        Some(format!(
                            "a flow file may contain: {}",
                            TOP_LEVEL_KEYS.join(", ")
                        ))
                    });
                    self.err_help(
                        key.span,
                        crate::codes::diag::UNKNOWN_KEY,
                        format!("unknown flow key `{other}`"),
                        "not a flow key",
                        help,
                    );
                }
            }
        }
        if !has_steps && !steps_typo {
            let span = entries.first().map_or(root.span, |(k, _)| k.span);
            self.err_help(
                span,
                crate::codes::diag::MISSING_STEPS,
                "the flow has no `steps`",
                "this flow has no steps",
                Some("add `steps:` with a list of steps to run".into()),
            );
        }
        flow
    }

    pub(super) fn string(&mut self, node: &Node, what: &str) -> Option<Str> {
        match node.scalar_text(self.src) {
            Some(value) => Some(Str {
                value,
                span: node.span,
            }),
            None => {
                self.wrong_type(node, what, "a string");
                if node.value == Value::Null && !self.src.slice(node.span).trim().is_empty() {
                    let raw = self.src.slice(node.span).to_string();
                    if let Some(d) = self.diags.last_mut() {
                        d.help = Some(format!(
                            "`{raw}` is YAML's null; quote it (\"{raw}\") for the text"
                        ));
                    }
                }
                None
            }
        }
    }

    pub(super) fn boolean(&mut self, node: &Node, what: &str) -> Option<(bool, Span)> {
        match node.value {
            Value::Bool(b) => Some((b, node.span)),
            _ => {
                self.wrong_type(node, what, "`true` or `false`");
                None
            }
        }
    }

    pub(super) fn count(&mut self, node: &Node, what: &str) -> Option<(u64, Span)> {
        match node.value {
            Value::Int(i) if i >= 0 => Some((i as u64, node.span)),
            _ => {
                self.wrong_type(node, what, "a non-negative integer");
                None
            }
        }
    }

    pub(super) fn duration(&mut self, node: &Node, what: &str) -> Option<Duration> {
        let result = match &node.value {
            Value::Int(i) if *i >= 0 => Ok(*i as u64),
            Value::Str(s) => duration::parse_ms(s),
            _ => Err(format!(
                "expected milliseconds or a duration such as \"30s\", found {}",
                node.type_name()
            )),
        };
        match result {
            Ok(ms) => Some(Duration {
                ms,
                span: node.span,
            }),
            Err(why) => {
                self.err_help(
                    node.span,
                    crate::codes::diag::INVALID_DURATION,
                    format!("{what} is not a valid duration: {why}"),
                    "invalid duration",
                    Some("write milliseconds (`1500`) or a duration (`500ms`, `30s`, `2m`)".into()),
                );
                None
            }
        }
    }

    fn tags(&mut self, node: &Node) -> Vec<Str> {
        match &node.value {
            Value::Seq(items) => items
                .iter()
                .filter_map(|n| self.string(n, "a tag"))
                .collect(),
            Value::Str(_) => self.string(node, "a tag").into_iter().collect(),
            _ => {
                self.wrong_type(node, "`tags`", "a list of strings");
                Vec::new()
            }
        }
    }

    fn env(&mut self, node: &Node) -> Vec<EnvVar> {
        let Some(entries) = node.as_map() else {
            if node.value != Value::Null {
                self.wrong_type(node, "`env`", "a mapping of variable names to defaults");
            }
            return Vec::new();
        };
        let mut vars = Vec::new();
        for (key, value) in entries {
            if !is_var_name(&key.name) {
                self.err_help(
                    key.span,
                    crate::codes::diag::INVALID_VARIABLE_NAME,
                    format!("`{}` is not a valid variable name", key.name),
                    "invalid name",
                    Some("use letters, digits and `_`, starting with a letter or `_`".into()),
                );
                continue;
            }
            let name = Str {
                value: key.name.clone(),
                span: key.span,
            };
            match &value.value {
                Value::Map(fields) => {
                    let mut var = EnvVar {
                        name,
                        default: None,
                        secret: false,
                    };
                    for (k, v) in fields {
                        match k.name.as_str() {
                            "default" => var.default = self.string(v, "a variable default"),
                            "secret" => {
                                var.secret = self.boolean(v, "`secret`").is_some_and(|(b, _)| b);
                            }
                            other => self.err_help(
                                k.span,
                                crate::codes::diag::UNKNOWN_KEY,
                                format!("unknown variable setting `{other}`"),
                                "not a variable setting",
                                did_you_mean(other, ENV_SETTINGS_KEYS.iter().copied()).or_else(
                                    || {
                                        Some(format!(
                                            "a variable may set: {}",
                                            ENV_SETTINGS_KEYS.join(", ")
                                        ))
                                    },
                                ),
                            ),
                        }
                    }
                    vars.push(var);
                }
                Value::Null => vars.push(EnvVar {
                    name,
                    default: None,
                    secret: false,
                }),
                _ => {
                    let default = self.string(value, "a variable default");
                    vars.push(EnvVar {
                        name,
                        default,
                        secret: false,
                    });
                }
            }
        }
        vars
    }

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

    fn control_map<'n>(
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

    fn run_flow(&mut self, key: &Key, value: Option<&Node>) -> Option<StepKind> {
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

    fn repeat(&mut self, key: &Key, value: Option<&Node>) -> Option<StepKind> {
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

    fn retry(&mut self, key: &Key, value: Option<&Node>) -> Option<StepKind> {
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

/// Variable and kept-result names: a letter or `_`, then letters, digits or `_`.
pub fn is_var_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Parsed {
        parse_flow(&SourceFile::new("t.yaml", text))
    }

    #[test]
    fn parses_tools_shorthands_options_and_control_steps() {
        let p = parse(
            "name: Login\napp: com.example\nenv:\n  USER: demo\n  PASS: {secret: true}\nsteps:\n  - click: Login\n    retries: {count: 2, delay: 500ms}\n    keep: tap\n  - screenshot\n  - repeat:\n      times: 2\n      steps:\n        - press_key: Back\n  - assert_visible: Welcome\n    when: {platform: harmonyos}\n",
        );
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let f = p.flow.unwrap();
        assert_eq!(f.env.len(), 2);
        assert!(f.env[1].secret);
        assert_eq!(f.steps.len(), 4);
        assert_eq!(f.steps[0].options.retries.as_ref().unwrap().count, 2);
        assert!(matches!(f.steps[2].kind, StepKind::Repeat { .. }));
        assert!(matches!(
            f.steps[3].kind,
            StepKind::Assert { visible: true, .. }
        ));
    }

    #[test]
    fn reports_all_structural_errors_at_once() {
        let p = parse(
            "nme: x\nsteps:\n  - click:\n    text: Login\n  - repeat: {steps: []}\n  - label: only\n",
        );
        let codes: Vec<_> = p.diagnostics.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(
            codes,
            [
                "unknown-key",
                "extra-step-key",
                "missing-param",
                "missing-tool"
            ]
        );
        assert_eq!(
            p.diagnostics[0].help.as_deref(),
            Some("did you mean `name`?")
        );
    }

    #[test]
    fn a_bare_list_is_a_step_list_file() {
        let p = parse("- click: OK\n");
        assert!(p.flow.unwrap().is_step_list);
    }
}
