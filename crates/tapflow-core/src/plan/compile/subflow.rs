//! `run_flow`: inline steps or a sub-flow file, loaded and parsed once, checked for cycles,
//! compiled with the caller's variables overridden by the call's `env`.

use super::{Compiler, Ctx};
use crate::flow::ast::{Flow, RunTarget, Step, Str};
use crate::flow::source::SourceFile;
use crate::flow::{Diagnostic, parse_flow};
use crate::plan::loader::resolve;
use crate::plan::model::*;
use crate::plan::scope::Scope;
use std::rc::Rc;

impl Compiler<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_flow(
        &mut self,
        ctx: &Ctx,
        step: &Step,
        id: &str,
        target: &RunTarget,
        env: &[(Str, Str)],
        scope: &mut Scope,
    ) -> Option<Action> {
        let src = ctx.src;
        let inner = Ctx {
            depth: ctx.depth + 1,
            ..*ctx
        };
        if !self.depth_ok(&inner, step.span) {
            return None;
        }
        if !self.grow_plan(src, step.span, env.len()) {
            return None;
        }
        // The child sees the caller's variables, overridden by the call's `env`.
        let mut child = scope.clone();
        for (k, v) in env {
            self.check_text_vars(src, &v.value, v.span, scope);
            let (value, secret) = self.resolve_full(scope, &v.value);
            child.bind(&k.value, value, secret, VarSource::RunFlow);
        }
        match target {
            RunTarget::Inline(steps) => {
                let steps = self.steps(&inner, steps, id, &mut child);
                // The child started from the caller's kept results and only added to them.
                scope.kept = child.kept.clone();
                Some(Action::SubFlow {
                    file: None,
                    variables: bound(&child, env),
                    steps,
                })
            }
            RunTarget::File(f) => {
                self.check_text_vars(src, &f.value, f.span, scope);
                let rel = crate::flow::template::display(&self.subst(scope, &f.value)).into_owned();
                let path = resolve(src.name(), &rel);
                if let Some(pos) = self.stack.iter().position(|p| *p == path) {
                    let mut chain: Vec<&str> =
                        self.stack[pos..].iter().map(String::as_str).collect();
                    chain.push(&path);
                    self.push(
                        Diagnostic::error(
                            src,
                            f.span,
                            crate::codes::diag::RUN_FLOW_CYCLE,
                            format!("sub-flow cycle: {}", chain.join(" → ")),
                            "calls a flow that is already running",
                        )
                        .with_help("break the cycle; use `repeat` to run steps more than once"),
                    );
                    return None;
                }
                let parsed = self.load(src, f, &path)?;
                let (sub_src, sub_flow) = (&parsed.0, &parsed.1);
                if !self.grow_plan(src, step.span, sub_flow.env.len()) {
                    return None;
                }
                // The sub-flow's own defaults apply where neither caller nor call set a value.
                for var in &sub_flow.env {
                    if child.vars.contains_key(&var.name.value) {
                        if var.secret
                            && let Some(b) = child.vars.get_mut(&var.name.value)
                        {
                            b.secret = true;
                        }
                        continue;
                    }
                    match &var.default {
                        Some(d) => {
                            self.check_text_vars(sub_src, &d.value, d.span, &child);
                            let (value, secret) = self.resolve_full(&child, &d.value);
                            child.bind(
                                &var.name.value,
                                value,
                                var.secret || secret,
                                VarSource::Flow,
                            );
                        }
                        None => {
                            self.push(
                                Diagnostic::error(
                                    src,
                                    f.span,
                                    crate::codes::diag::UNDEFINED_VARIABLE,
                                    format!(
                                        "`{}` needs the variable `{}`, which has no value here",
                                        rel, var.name.value
                                    ),
                                    "missing variable",
                                )
                                .with_help(format!(
                                    "pass it: `run_flow: {{file: {rel}, env: {{{}: …}}}}`",
                                    var.name.value
                                )),
                            );
                            let name = &var.name.value;
                            child.bind(
                                name,
                                format!("{{{{ {name} }}}}"),
                                var.secret,
                                VarSource::RunFlow,
                            );
                        }
                    }
                }
                let sub_ctx = Ctx {
                    src: sub_src,
                    step_default: ctx.step_default,
                    wait_default: sub_flow.default_wait.map_or(ctx.wait_default, |w| w.ms),
                    depth: inner.depth,
                };
                self.stack.push(path.clone());
                let steps = self.steps(&sub_ctx, &sub_flow.steps, id, &mut child);
                self.stack.pop();
                // The child started from the caller's kept results and only added to them.
                scope.kept = child.kept.clone();
                // Hooks and isolation belong to the flow that runs; a sub-flow's are not run.
                let ignored = [
                    ("on_failure", sub_flow.on_failure.first().map(|s| s.span)),
                    ("finally", sub_flow.finally.first().map(|s| s.span)),
                    ("clean_state", sub_flow.clean_state.map(|(_, span)| span)),
                ];
                for (what, span) in ignored {
                    if let Some(span) = span {
                        self.push(
                            Diagnostic::warning(sub_src, span, crate::codes::diag::IGNORED_IN_SUB_FLOW, format!("`{what}` of a sub-flow is not run when it is called with `run_flow`"), "ignored here")
                                .with_help(format!("move `{what}` to the calling flow")),
                        );
                    }
                }
                let mut variables = bound(&child, env);
                let set_by_call: std::collections::HashSet<&str> =
                    env.iter().map(|(k, _)| k.value.as_str()).collect();
                variables.extend(
                    sub_flow
                        .env
                        .iter()
                        .filter(|v| !set_by_call.contains(v.name.value.as_str()))
                        .filter_map(|v| {
                            child.vars.get(&v.name.value).map(|b| PlanVariable {
                                name: v.name.value.clone(),
                                value: if b.secret {
                                    MASK.into()
                                } else {
                                    crate::flow::template::display(&b.value).into_owned()
                                },
                                secret: b.secret,
                                source: b.source,
                            })
                        }),
                );
                Some(Action::SubFlow {
                    file: Some(path),
                    variables,
                    steps,
                })
            }
        }
    }

    /// Loads and parses a sub-flow once; reports read and parse errors.
    pub(super) fn load(
        &mut self,
        src: &SourceFile,
        f: &Str,
        path: &str,
    ) -> Option<Rc<(SourceFile, Flow)>> {
        self.referenced.insert(path.to_string());
        if let Some(p) = self.parsed.get(path) {
            return p.clone();
        }
        let result = match self.loader.load(path) {
            Ok(text) => {
                let sub = SourceFile::new(path, text);
                self.sources.insert(sub.clone());
                let parsed = parse_flow(&sub);
                parsed.diagnostics.into_iter().for_each(|d| self.push(d));
                parsed.flow.map(|fl| Rc::new((sub, fl)))
            }
            Err(why) => {
                self.push(
                    Diagnostic::error(
                        src,
                        f.span,
                        crate::codes::diag::RUN_FLOW_MISSING,
                        format!("cannot read sub-flow `{path}`: {why}"),
                        "cannot be read",
                    )
                    .with_help(
                        "sub-flow paths are relative to the calling file's directory and stay under the flow root",
                    ),
                );
                None
            }
        };
        self.parsed.insert(path.to_string(), result.clone());
        result
    }
}

fn bound(scope: &Scope, env: &[(Str, Str)]) -> Vec<PlanVariable> {
    env.iter()
        .filter_map(|(k, _)| {
            scope.vars.get(&k.value).map(|b| PlanVariable {
                name: k.value.clone(),
                value: if b.secret {
                    MASK.into()
                } else {
                    crate::flow::template::display(&b.value).into_owned()
                },
                secret: b.secret,
                source: VarSource::RunFlow,
            })
        })
        .collect()
}
