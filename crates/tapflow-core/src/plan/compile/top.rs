//! A top-level flow: its id (from the file name, unique in the plan), its header (app, tags,
//! timeouts, device, `clean_state`), its variables bound by precedence, and its steps and hooks.

use super::{Compiler, Ctx, SecretKeys};
use crate::flow::ast::Flow;
use crate::flow::source::SourceFile;
use crate::flow::template;
use crate::flow::{Diagnostic, parse_flow};
use crate::plan::loader::normalize;
use crate::plan::model::*;
use crate::plan::scope::Scope;

/// A flow's id before de-duplication: its file name without `.yaml`/`.yml`, characters other
/// than letters, digits, `-` and `_` as `-` (also used for files that could not be read).
pub fn slug(file: &str) -> String {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let stem = base
        .strip_suffix(".yaml")
        .or_else(|| base.strip_suffix(".yml"))
        .unwrap_or(base);
    let s: String = stem
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if s.is_empty() { "flow".into() } else { s }
}

impl Compiler<'_> {
    pub(super) fn top_flow(
        &mut self,
        src: &SourceFile,
        index: usize,
        lenient: bool,
    ) -> Option<FlowPlan> {
        self.sources.insert(src.clone());
        let parsed = parse_flow(src);
        parsed.diagnostics.into_iter().for_each(|d| self.push(d));
        let flow = parsed.flow?;
        self.referenced.insert(normalize(src.name()));
        self.stack = vec![normalize(src.name())];
        self.plan_size = 0;
        self.secrets.borrow_mut().clear();
        *self.secret_keys.borrow_mut() = SecretKeys::default();
        let mut id = slug(src.name());
        if !lenient {
            // The next suffix to try per base is remembered, so that 10 000 files with the
            // same name in different directories do not each try every taken suffix.
            let base = id.clone();
            let n = self.id_suffixes.entry(base.clone()).or_insert(2);
            while self.ids.contains(&id) {
                id = format!("{base}-{n}");
                *n += 1;
            }
            self.ids.insert(id.clone());
        }
        let name = flow
            .name
            .as_ref()
            .map_or_else(|| slug(src.name()), |n| n.value.clone());
        let mut fp = FlowPlan::new(id.clone(), name, src.name().to_string());
        let mut scope = Scope {
            lenient: lenient || flow.is_step_list,
            ..Scope::default()
        };
        self.bind_top(src, &flow, &mut scope);
        fp.app = flow.app.as_ref().map(|a| self.subst(&scope, &a.value));
        fp.tags = flow.tags.iter().map(|t| t.value.clone()).collect();
        fp.timeout_ms = flow
            .timeout
            .map_or(self.opts.default_flow_timeout_ms, |t| t.ms);
        if !self.opts.devices.is_empty() {
            fp.device = self.opts.devices[index % self.opts.devices.len()].clone();
        }
        if let Some((true, span)) = flow.clean_state {
            match &fp.app {
                Some(bundle) => {
                    fp.isolation = Some(Isolation {
                        bundle: bundle.clone(),
                        stop: true,
                        clear_data: true,
                        launch: true,
                    })
                }
                None => self.push(
                    Diagnostic::error(
                        src,
                        span,
                        crate::codes::diag::MISSING_APP,
                        "`clean_state` needs the flow's `app`",
                        "which app?",
                    )
                    .with_help("add `app: com.example.app` (the bundle name) to the flow"),
                ),
            }
        }
        let step_default = flow
            .step_timeout
            .map_or(self.opts.default_step_timeout_ms, |t| t.ms);
        let wait_default = flow
            .default_wait
            .map_or(self.opts.default_wait_ms, |t| t.ms);
        let ctx = Ctx {
            src,
            step_default,
            wait_default,
            depth: 0,
        };
        fp.steps = self.steps(&ctx, &flow.steps, &id, &mut scope);
        // Hooks see everything the steps kept (a kept result may be absent if its step did not
        // run; the runner reports that as a failed hook step, not a validation error).
        let mut hook_scope = scope.clone();
        fp.on_failure = self.steps(
            &ctx,
            &flow.on_failure,
            &format!("{id}.on_failure"),
            &mut hook_scope,
        );
        fp.finally = self.steps(
            &ctx,
            &flow.finally,
            &format!("{id}.finally"),
            &mut hook_scope,
        );
        fp.variables = scope.listing();
        fp.set_secrets(self.secrets.borrow().clone());
        Some(fp)
    }

    /// Binds a top-level flow's variables: project env < file defaults < `TAPFLOW_*` < `--env`.
    /// Values from outside the flow are data: escaped, so their `{{` never expand.
    fn bind_top(&mut self, src: &SourceFile, flow: &Flow, scope: &mut Scope) {
        let data = |v: &String| template::escape(v).into_owned();
        for (k, v) in &self.opts.project_env {
            scope.bind(k, data(v), false, VarSource::Project);
        }
        for (k, v) in &self.opts.environment {
            if let Some(name) = k.strip_prefix("TAPFLOW_").filter(|n| !n.is_empty()) {
                scope.bind(name, data(v), false, VarSource::Environment);
            }
        }
        for (k, v) in &self.opts.env {
            scope.bind(k, data(v), false, VarSource::Cli);
        }
        for var in &flow.env {
            let name = &var.name.value;
            if let Some(b) = scope.vars.get_mut(name) {
                // The flow's own default is more specific than the project's.
                if b.source != VarSource::Project || var.default.is_none() {
                    b.secret |= var.secret;
                    continue;
                }
            }
            match &var.default {
                Some(d) => {
                    self.check_text_vars(src, &d.value, d.span, scope);
                    let (value, secret) = self.resolve_full(scope, &d.value);
                    scope.bind(name, value, var.secret || secret, VarSource::Flow);
                }
                None if scope.lenient => {
                    // A sub-flow's required variable: supplied by its callers.
                    scope.bind(
                        name,
                        format!("{{{{ {name} }}}}"),
                        var.secret,
                        VarSource::RunFlow,
                    );
                }
                None => {
                    self.push(
                        Diagnostic::error(
                            src,
                            var.name.span,
                            crate::codes::diag::UNDEFINED_VARIABLE,
                            format!("variable `{name}` has no value"),
                            "declared without a default",
                        )
                        .with_help(format!(
                            "pass `--env {name}=…`, set `TAPFLOW_{name}`, or give it a default"
                        )),
                    );
                    // Reported once, here; its uses are not reported again.
                    scope.bind(
                        name,
                        format!("{{{{ {name} }}}}"),
                        var.secret,
                        VarSource::Flow,
                    );
                }
            }
        }
    }
}
