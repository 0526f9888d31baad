//! Tool steps: the step's tool must exist, its arguments are checked against the tool's schema
//! and static rules (defaults made explicit), and `assert_*`, conditions and expectations are
//! compiled the same way.

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use super::Compiler;
use crate::flow::Diagnostic;
use crate::flow::ast::{self, Condition, Str};
use crate::flow::source::{SourceFile, Span};
use crate::flow::template;
use crate::flow::yaml::{Key, Node, Value as Y};
use crate::plan::model::*;
use crate::plan::schema_check::{SchemaCheck, generic};
use crate::plan::scope::Scope;
use crate::suggest::did_you_mean;

/// Other runners' names for the flow's own control steps (each tool declares its own names,
/// `Tool::KNOWN_AS`).
/// The tool behind `assert_visible`, `assert_not_visible` and element conditions: the flow
/// format defines them as waits (`state: found` / `gone`).
pub const ASSERT_TOOL: &str = "wait_for_element";

const FOREIGN_CONTROL_STEPS: &[(&str, &str)] = &[
    ("assertVisible", "assert_visible"),
    ("assertNotVisible", "assert_not_visible"),
    ("runFlow", "run_flow"),
];

impl Compiler<'_> {
    pub(super) fn unknown_step(&mut self, src: &SourceFile, name: &Str) {
        let n = name.value.as_str();
        let help = if matches!(n, "sleep" | "wait" | "delay" | "pause") {
            Some("tapflow has no fixed sleep: wait for what you need with `wait_for_element` or `assert_visible` (with `timeout_ms`), or add `retries: {count: 2, delay: 1s}` to a step".to_string())
        } else if let Some((tool, note)) = self.catalog.known_as(n) {
            Some(match note {
                "" => format!("tapflow calls this `{tool}`"),
                note => format!("tapflow calls this `{tool}` ({note})"),
            })
        } else if let Some((_, ours)) = FOREIGN_CONTROL_STEPS.iter().find(|(f, _)| *f == n) {
            Some(format!("tapflow calls this `{ours}`"))
        } else {
            let mut names = self.catalog.tool_names();
            names.extend(ast::CONTROL_STEPS.iter().copied());
            did_you_mean(n, names).or_else(|| {
                Some(
                    "run `tapflow plan --help` or see docs/flow-format.md for the list of steps"
                        .into(),
                )
            })
        };
        let label = if ast::STEP_OPTIONS.iter().any(|o| o.eq_ignore_ascii_case(n)) {
            "an option needs a tool beside it"
        } else {
            "not a tool or control step"
        };
        self.push(
            Diagnostic::error(
                src,
                name.span,
                crate::codes::diag::UNKNOWN_STEP,
                format!("unknown step `{n}`"),
                label,
            )
            .with_help_opt(help),
        );
    }

    /// Checks and compiles a tool step's arguments.
    pub(super) fn tool_step(
        &mut self,
        src: &SourceFile,
        name: &Str,
        args: Option<&Node>,
        scope: &Scope,
    ) -> Option<Value> {
        let Some(schema) = self.catalog.input_schema(&name.value) else {
            self.unknown_step(src, name);
            return None;
        };
        let entries = self.arg_entries(src, &name.value, name.span, args)?;
        self.check_args(
            src,
            &name.value,
            &name.value,
            name.span,
            &entries,
            schema,
            scope,
            &[],
        )
    }

    /// The step's arguments as key/value pairs (scalar shorthand expanded), borrowed from the
    /// AST when written as a mapping (a 20 MB argument is not copied again).
    pub(super) fn arg_entries<'n>(
        &mut self,
        src: &SourceFile,
        tool: &str,
        at: Span,
        args: Option<&'n Node>,
    ) -> Option<Cow<'n, [(Key, Node)]>> {
        match args {
            None => Some(Cow::Borrowed(&[])),
            Some(n) => match &n.value {
                Y::Map(m) => Some(Cow::Borrowed(m)),
                Y::Seq(_) => {
                    self.push(
                        Diagnostic::error(
                            src,
                            n.span,
                            crate::codes::diag::WRONG_TYPE,
                            format!("the parameters of `{tool}` must be a mapping, found a list"),
                            "expected a mapping",
                        )
                        .with_help(format!("write `{tool}: {{name: value, …}}`")),
                    );
                    None
                }
                _ => {
                    match self.catalog.scalar_shorthand(tool) {
                        Some(param) => Some(Cow::Owned(vec![(
                            Key {
                                name: param.to_string(),
                                span: n.span,
                            },
                            n.clone(),
                        )])),
                        None => {
                            self.push(Diagnostic::error(src, n.span, crate::codes::diag::NO_SHORTHAND, format!("`{tool}` has no shorthand; give its parameters as a mapping"), "expected a mapping")
                            .with_help(format!("write `{tool}: {{name: value, …}}`")));
                            let _ = at;
                            None
                        }
                    }
                }
            },
        }
    }

    /// `shown` is the step as the flow writes it (`assert_visible` for the assertion tool):
    /// every message names it, never the tool behind it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check_args(
        &mut self,
        src: &SourceFile,
        tool: &str,
        shown: &str,
        at: Span,
        entries: &[(Key, Node)],
        schema: &Value,
        scope: &Scope,
        forbidden: &[(&str, &str)],
    ) -> Option<Value> {
        let run_level = self.catalog.run_level_params();
        // Which entries go on to the schema check (refused ones were reported above).
        let mut keep = Vec::with_capacity(entries.len());
        let mut nulls: Vec<(String, String)> = Vec::new();
        for (k, v) in entries {
            if run_level.contains(&k.name.as_str()) {
                self.push(
                    Diagnostic::error(
                        src,
                        k.span,
                        crate::codes::diag::RUN_LEVEL_PARAM,
                        format!("`{}` is chosen by the run, not by a flow", k.name),
                        "not allowed in a flow",
                    )
                    .with_help(
                        "remove it; choose devices with `tapflow run --device` or `tapflow.toml`",
                    ),
                );
            } else if let Some(help) = self.step_option_inside(shown, schema, &k.name) {
                self.push(
                    Diagnostic::error(
                        src,
                        k.span,
                        crate::codes::diag::STEP_OPTION_IN_PARAMS,
                        format!("`{}` is not a parameter of `{shown}`", k.name),
                        "a step option, not a parameter",
                    )
                    .with_help(help),
                );
            } else if let Some((_, why)) = forbidden.iter().find(|(p, _)| *p == k.name) {
                self.push(
                    Diagnostic::error(
                        src,
                        k.span,
                        crate::codes::diag::UNKNOWN_PARAM,
                        format!("`{}` cannot be set here", k.name),
                        "not allowed here",
                    )
                    .with_help(why.to_string()),
                );
            } else {
                self.check_node_vars(src, v, scope);
                // A parameter written as YAML null is not given (as in a bare tool call: the
                // schema check leaves it out, or refuses it when the tool has no such
                // parameter); the tool's rules then judge its absence. Remember how it was
                // written, for the hint below.
                if v.value == Y::Null {
                    nulls.push((k.name.clone(), src.slice(v.span).trim().to_string()));
                }
                keep.push(true);
                continue;
            }
            keep.push(false);
        }
        // The entries themselves unless one is left out (copying them is the rare case).
        let kept: Cow<[(Key, Node)]> = if keep.iter().all(|k| *k) {
            Cow::Borrowed(entries)
        } else {
            Cow::Owned(
                entries
                    .iter()
                    .zip(&keep)
                    .filter(|(_, k)| **k)
                    .map(|(e, _)| e.clone())
                    .collect(),
            )
        };
        let subst = |s: &str| self.subst(scope, s);
        let mut check = SchemaCheck::new(src, schema, &subst);
        let value = check.params(&kept, schema, &format!("`{shown}`"), at);
        let failed = !check.diags.is_empty();
        check.diags.into_iter().for_each(|d| self.push(d));
        if failed {
            return None;
        }
        // Given arguments first, in the order written, then the defaults made explicit.
        let mut merged = match value {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        if let Value::Object(defaults) = self.catalog.defaults(tool) {
            for (k, v) in defaults {
                merged.entry(k).or_insert(v);
            }
        }
        let merged = Value::Object(merged);
        let issues = self.catalog.check_static(tool, &merged);
        let ok = issues.is_empty();
        for issue in issues {
            let written = issue
                .param
                .as_deref()
                .and_then(|p| entries.iter().find(|(k, _)| k.name == p));
            let span = written.map_or(at, |(_, v)| v.span);
            let label = issue
                .param
                .as_deref()
                .map_or_else(|| format!("`{shown}`"), |p| format!("`{p}`"));
            let mut help = issue.suggestion;
            if let Some(p) = issue.param.as_deref() {
                if let Some((_, raw)) = nulls.iter().find(|(n, _)| n == p) {
                    help = Some(if raw.is_empty() || raw == "~" {
                        format!("`{p}` is written without a value (YAML null): give it one")
                    } else {
                        format!("`{raw}` is YAML's null; quote it (\"{raw}\") for the text")
                    });
                } else if written.is_none() && help.is_none() {
                    help = Some(format!("add `{p}: …`"));
                }
            }
            self.push(
                Diagnostic::error(
                    src,
                    span,
                    &crate::codes::diag::of_tool_code(issue.code),
                    format!("{shown}: {}", issue.message),
                    format!("{label} ({})", issue.code),
                )
                .with_help_opt(help),
            );
        }
        ok.then_some(merged)
    }

    /// When `key`, written among `tool`'s parameters, is a step option (or `name`, which other
    /// runners use for what tapflow calls `label`), the help that says where it belongs.
    fn step_option_inside(&self, tool: &str, schema: &Value, key: &str) -> Option<String> {
        let is_param = schema.get("properties").and_then(|p| p.get(key)).is_some();
        if is_param {
            return None;
        }
        let option = match key {
            "name" | "title" | "description" => "label",
            k if ast::STEP_OPTIONS.contains(&k) => k,
            _ => return None,
        };
        let renamed = if option == key {
            String::new()
        } else {
            format!(" (tapflow calls it `{option}`)")
        };
        Some(format!(
            "`{option}`{renamed} is a step option: it sits beside the tool, not inside its parameters; write `- {tool}: …` and, on the next line, `  {option}: …`"
        ))
    }

    pub(super) fn assert_step(
        &mut self,
        src: &SourceFile,
        at: Span,
        visible: bool,
        args: &Node,
        scope: &Scope,
    ) -> Option<Value> {
        let Some(schema) = self.catalog.input_schema(ASSERT_TOOL) else {
            self.push(Diagnostic::error(
                src,
                at,
                crate::codes::diag::UNKNOWN_STEP,
                format!("assertions need the `{ASSERT_TOOL}` tool, which this catalog lacks"),
                "unavailable",
            ));
            return None;
        };
        let entries = self.selector_entries(src, args)?;
        let shown = if visible {
            "assert_visible"
        } else {
            "assert_not_visible"
        };
        let mut v = self.check_args(
            src,
            ASSERT_TOOL,
            shown,
            at,
            &entries,
            schema,
            scope,
            &[(
                "state",
                "assert_visible / assert_not_visible set `state` themselves",
            )],
        )?;
        v["state"] = json!(if visible { "found" } else { "gone" });
        Some(v)
    }

    pub(super) fn selector_entries<'n>(
        &mut self,
        src: &SourceFile,
        node: &'n Node,
    ) -> Option<Cow<'n, [(Key, Node)]>> {
        match &node.value {
            Y::Map(m) => Some(Cow::Borrowed(m)),
            Y::Seq(_) | Y::Null => {
                self.push(Diagnostic::error(src, node.span, crate::codes::diag::WRONG_TYPE, format!("an element must be its text or a mapping such as `{{element_id: banner}}`, found {}", node.type_name()), "expected text or a mapping"));
                None
            }
            _ => {
                // A bare value is what the waiting tool's own shorthand fills.
                let Some(param) = self.catalog.scalar_shorthand(ASSERT_TOOL) else {
                    self.push(Diagnostic::error(src, node.span, crate::codes::diag::WRONG_TYPE, format!("`{ASSERT_TOOL}` has no shorthand; give the element as a mapping such as `{{element_id: banner}}`"), "expected a mapping"));
                    return None;
                };
                Some(Cow::Owned(vec![(
                    Key {
                        name: param.to_string(),
                        span: node.span,
                    },
                    node.clone(),
                )]))
            }
        }
    }

    pub(super) fn condition(
        &mut self,
        src: &SourceFile,
        c: &Condition,
        scope: &Scope,
    ) -> Option<PlanCondition> {
        let mut out = PlanCondition {
            // An unknown name was reported by the parser (`invalid-value`).
            platform: c
                .platform
                .as_ref()
                .and_then(|p| p.value.to_ascii_lowercase().parse().ok()),
            ..PlanCondition::default()
        };
        let mut ok = true;
        for (node, slot, state) in [
            (&c.visible, &mut out.visible, "found"),
            (&c.not_visible, &mut out.not_visible, "gone"),
        ] {
            let Some(node) = node else { continue };
            let schema = match self.catalog.input_schema(ASSERT_TOOL) {
                Some(s) => s,
                None => {
                    self.push(Diagnostic::error(src, node.span, crate::codes::diag::UNKNOWN_STEP, format!("element conditions need the `{ASSERT_TOOL}` tool, which this catalog lacks"), "unavailable"));
                    ok = false;
                    continue;
                }
            };
            let Some(entries) = self.selector_entries(src, node) else {
                ok = false;
                continue;
            };
            match self.check_args(
                src,
                ASSERT_TOOL,
                if state == "found" {
                    "visible"
                } else {
                    "not_visible"
                },
                node.span,
                &entries,
                schema,
                scope,
                &[("state", "`visible` / `not_visible` choose the state")],
            ) {
                Some(mut v) => {
                    v["state"] = json!(state);
                    *slot = Some(v);
                }
                None => ok = false,
            }
        }
        if let Some(cmp) = &c.compare {
            let var = &cmp.var.value;
            let path = var
                .trim()
                .trim_start_matches("{{")
                .trim_end_matches("}}")
                .trim();
            if let Some(d) = self.check_ref(src, path, cmp.var.span, scope) {
                self.push(d);
                ok = false;
            }
            self.check_node_vars(src, &cmp.value, scope);
            let subst = |s: &str| self.subst(scope, s);
            let value = generic(&cmp.value, &subst);
            if cmp.op == ast::CompareOp::In && !value.is_array() {
                self.push(
                    Diagnostic::error(
                        src,
                        cmp.value.span,
                        crate::codes::diag::WRONG_TYPE,
                        "`in` needs a list of values",
                        "expected a list",
                    )
                    .with_help("write `in: [a, b]`"),
                );
                ok = false;
            }
            let resolved = scope
                .vars
                .get(path)
                .filter(|b| !b.secret && !template::has_refs(&b.value))
                .map(|b| template::display(&b.value).into_owned());
            out.compare = Some(PlanComparison {
                var: path.to_string(),
                resolved,
                op: cmp.op,
                value,
            });
        }
        ok.then_some(out)
    }

    pub(super) fn expectations(
        &mut self,
        src: &SourceFile,
        o: &ast::StepOptions,
        tool: Option<&str>,
        scope: &Scope,
    ) -> Vec<PlanExpectation> {
        let mut out = Vec::new();
        let fields = tool.and_then(|t| self.catalog.result_fields(t));
        for e in &o.expect {
            let first = e.field.value.split('.').next().unwrap_or("");
            if let (Some(fields), Some(tool)) = (&fields, tool)
                && !fields.contains(&first)
            {
                let help = did_you_mean(first, fields.iter().copied())
                    .unwrap_or_else(|| format!("`{tool}` results have: {}", fields.join(", ")));
                self.push(
                    Diagnostic::error(
                        src,
                        e.field.span,
                        crate::codes::diag::UNKNOWN_RESULT_FIELD,
                        format!("`{tool}` results have no field `{first}`"),
                        "unknown field",
                    )
                    .with_help(help),
                );
                continue;
            }
            self.check_node_vars(src, &e.value, scope);
            let subst = |s: &str| self.subst(scope, s);
            out.push(PlanExpectation {
                field: e.field.value.clone(),
                op: e.op,
                value: generic(&e.value, &subst),
            });
        }
        out
    }
}
