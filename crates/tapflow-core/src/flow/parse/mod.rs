//! Builds the [`Flow`] AST from the YAML node tree, reporting every structural problem (unknown
//! keys, wrong types, malformed steps, options and conditions) and carrying on past each one.

mod control;
mod options;
mod steps;

use crate::flow::ast::*;
use crate::flow::diag::Diagnostic;
use crate::flow::duration;
use crate::flow::format::ENV_SETTINGS_KEYS;
use crate::flow::source::{SourceFile, Span};
use crate::flow::suggest::{self, did_you_mean};
use crate::flow::yaml::{self, Node, Value};

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
