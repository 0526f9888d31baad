//! Semantic checks and compilation: flow ASTs → [`Plan`], against a [`ToolCatalog`].
//!
//! Checks every step's tool and arguments (generically, through the tool's JSON Schema, then
//! the tool's static rules), variables (`{{ NAME }}` must be defined before the run), kept
//! results, conditions, and sub-flows (found, parsed, not cyclic, checked with their callers'
//! variables). Compiles what is valid: deterministic step ids, defaults made explicit,
//! deadlines and retries, hooks, sub-flows inlined with their variables bound.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

use serde_json::{Map, Value, json};

use super::catalog::ToolCatalog;
use super::loader::{SourceLoader, normalize, resolve};
use super::model::*;
use super::schema_check::{SchemaCheck, generic};
use super::scope::Scope;
use crate::flow::ast::{self, Condition, Flow, RunTarget, Step, StepKind, Str};
use crate::flow::source::{SourceFile, Span};
use crate::flow::suggest::did_you_mean;
use crate::flow::template;
use crate::flow::yaml::{Key, Node, Value as Y};
use crate::flow::{Diagnostic, SourceMap, parse_flow, sort_and_dedup};

/// Settings the CLI passes in (it alone reads the environment and `tapflow.toml`).
#[derive(Clone, Debug)]
pub struct PlanOptions {
    /// `--env NAME=value` (highest precedence after a caller's `run_flow` env).
    pub env: BTreeMap<String, String>,
    /// The process's `TAPFLOW_*` environment variables, names as found (`TAPFLOW_USER`);
    /// `TAPFLOW_USER` supplies `{{ USER }}`.
    pub environment: BTreeMap<String, String>,
    /// Project-level defaults for variables (`tapflow.toml` `[env]`), below everything else
    /// except a flow's own defaults.
    pub project_env: BTreeMap<String, String>,
    /// Devices to spread flows over, round robin; empty = `auto`.
    pub devices: Vec<String>,
    pub default_flow_timeout_ms: u64,
    pub default_step_timeout_ms: u64,
}

impl Default for PlanOptions {
    fn default() -> Self {
        Self {
            env: BTreeMap::new(),
            environment: BTreeMap::new(),
            project_env: BTreeMap::new(),
            devices: Vec::new(),
            default_flow_timeout_ms: 600_000,
            default_step_timeout_ms: 30_000,
        }
    }
}

/// Largest accepted retry count (per step and per retry block).
pub const MAX_RETRIES: u64 = 10;
/// Extra time a step's deadline gets over its tool's own wait budget (`timeout_ms`, …).
pub const DEADLINE_MARGIN_MS: u64 = 5_000;
/// Deepest accepted nesting of blocks and sub-flows.
const MAX_DEPTH: usize = 32;

/// The outcome of validating and compiling: the plan of everything valid, every diagnostic,
/// and the sources they point into.
#[derive(Debug)]
pub struct Compiled {
    pub plan: Plan,
    pub diagnostics: Vec<Diagnostic>,
    pub sources: SourceMap,
}

impl Compiled {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Validates and compiles `flows` (top-level flows) and `standalone` (sub-flow files given
/// or found directly; checked on their own with variables not required, unless a flow calls
/// them, in which case they are checked with that flow's variables instead).
pub fn compile(
    flows: &[SourceFile],
    standalone: &[SourceFile],
    catalog: &dyn ToolCatalog,
    loader: &dyn SourceLoader,
    opts: &PlanOptions,
) -> Compiled {
    let mut c = Compiler {
        catalog,
        loader,
        opts,
        diags: Vec::new(),
        sources: SourceMap::new(),
        parsed: HashMap::new(),
        stack: Vec::new(),
        referenced: BTreeSet::new(),
        secrets: RefCell::new(BTreeMap::new()),
        ids: BTreeSet::new(),
    };
    let mut plan = Plan::default();
    for src in flows {
        if let Some(fp) = c.top_flow(src, plan.flows.len(), false) {
            plan.flows.push(fp);
        }
    }
    for src in standalone {
        if !c.referenced.contains(&normalize(src.name())) {
            let _ = c.top_flow(src, 0, true);
        }
    }
    sort_and_dedup(&mut c.diags);
    Compiled {
        plan,
        diagnostics: c.diags,
        sources: c.sources,
    }
}

type Parsed = Option<Rc<(SourceFile, Flow)>>;

struct Compiler<'a> {
    catalog: &'a dyn ToolCatalog,
    loader: &'a dyn SourceLoader,
    opts: &'a PlanOptions,
    diags: Vec<Diagnostic>,
    sources: SourceMap,
    /// Sub-flow files by normalised path, parsed once.
    parsed: HashMap<String, Parsed>,
    /// Sub-flow files being inlined (cycle detection).
    stack: Vec<String>,
    referenced: BTreeSet<String>,
    /// Secrets of the flow being compiled: reference name → value.
    secrets: RefCell<BTreeMap<String, String>>,
    ids: BTreeSet<String>,
}

fn slug(file: &str) -> String {
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

/// Tool names of other tools users reach for, with ours.
const FOREIGN_NAMES: &[(&str, &str)] = &[
    ("tapOn", "`click`"),
    ("tap", "`click`"),
    ("doubleTapOn", "`click` with `count: 2`"),
    ("longPressOn", "`long_press`"),
    ("inputText", "`input_text`"),
    ("type", "`input_text`"),
    ("pressKey", "`press_key`"),
    ("back", "`press_key: Back`"),
    (
        "launchApp",
        "`run_app` (or `clean_state: true` on the flow)",
    ),
    ("takeScreenshot", "`screenshot`"),
    ("assertVisible", "`assert_visible`"),
    ("assertNotVisible", "`assert_not_visible`"),
    ("extendedWaitUntil", "`wait_for_element`"),
    ("runFlow", "`run_flow`"),
    ("scroll", "`swipe`"),
];

impl<'a> Compiler<'a> {
    fn push(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn top_flow(&mut self, src: &SourceFile, index: usize, lenient: bool) -> Option<FlowPlan> {
        self.sources.insert(src.clone());
        let parsed = parse_flow(src);
        self.diags.extend(parsed.diagnostics);
        let flow = parsed.flow?;
        self.referenced.insert(normalize(src.name()));
        self.stack = vec![normalize(src.name())];
        self.secrets.borrow_mut().clear();
        let mut id = slug(src.name());
        if !lenient {
            let mut n = 2;
            let base = id.clone();
            while self.ids.contains(&id) {
                id = format!("{base}-{n}");
                n += 1;
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
                        "missing-app",
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
        let ctx = Ctx {
            src,
            step_default,
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

    /// Binds a top-level flow's variables: file defaults < project env < `TAPFLOW_*` < `--env`.
    fn bind_top(&mut self, src: &SourceFile, flow: &Flow, scope: &mut Scope) {
        for (k, v) in &self.opts.project_env {
            scope.bind(k, v.clone(), false, VarSource::Flow);
        }
        for (k, v) in &self.opts.environment {
            if let Some(name) = k.strip_prefix("TAPFLOW_").filter(|n| !n.is_empty()) {
                scope.bind(name, v.clone(), false, VarSource::Environment);
            }
        }
        for (k, v) in &self.opts.env {
            scope.bind(k, v.clone(), false, VarSource::Cli);
        }
        for var in &flow.env {
            let name = &var.name.value;
            if let Some(b) = scope.vars.get_mut(name) {
                b.secret |= var.secret;
                continue;
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
                            "undefined-variable",
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

    /// Full substitution (secrets included) for binding values; also says whether a secret
    /// went into the result.
    fn resolve_full(&self, scope: &Scope, text: &str) -> (String, bool) {
        let secret = std::cell::Cell::new(false);
        let out = template::substitute(text, |p| {
            scope.vars.get(p).map(|b| {
                secret.set(secret.get() | b.secret);
                b.value.clone()
            })
        });
        (out, secret.get())
    }

    /// Substitution for the plan: known values inserted, secrets kept as references (their
    /// values go to the flow's secret table), run-time references untouched.
    fn subst(&self, scope: &Scope, text: &str) -> String {
        template::substitute(text, |p| {
            let b = scope.vars.get(p)?;
            if !b.secret {
                return Some(b.value.clone());
            }
            let mut secrets = self.secrets.borrow_mut();
            let mut key = p.to_string();
            let mut n = 2;
            while let Some(existing) = secrets.get(&key) {
                if *existing == b.value {
                    break;
                }
                key = format!("{p}__{n}");
                n += 1;
            }
            secrets.insert(key.clone(), b.value.clone());
            Some(format!("{{{{ {key} }}}}"))
        })
    }

    /// Reports malformed templates and undefined references in one string.
    fn check_text_vars(&mut self, src: &SourceFile, text: &str, span: Span, scope: &Scope) {
        let raw = src.slice(span);
        let locate = |inner: &str| -> Span {
            match raw.find(inner) {
                Some(i) => Span::new(span.start + i, span.start + i + inner.len()),
                None => span,
            }
        };
        let refs = match template::scan(text) {
            Ok(r) => r,
            Err(e) => {
                let bad = &text[e.range.0..e.range.1];
                self.push(
                    Diagnostic::error(
                        src,
                        locate(bad),
                        "invalid-template",
                        e.message,
                        "invalid reference",
                    )
                    .with_help("write `{{ NAME }}`; use `\\{{` for literal braces"),
                );
                return;
            }
        };
        for r in refs {
            let at = locate(&text[r.range.0..r.range.1]);
            if let Some(d) = self.check_ref(src, &r.path, at, scope) {
                self.push(d);
            }
        }
    }

    fn check_ref(
        &self,
        src: &SourceFile,
        path: &str,
        at: Span,
        scope: &Scope,
    ) -> Option<Diagnostic> {
        let segs: Vec<&str> = path.split('.').collect();
        if segs[0] == "steps" {
            let Some(name) = segs.get(1) else {
                return Some(
                    Diagnostic::error(
                        src,
                        at,
                        "invalid-template",
                        "`steps` needs a kept step's name",
                        "incomplete reference",
                    )
                    .with_help("write `{{ steps.NAME.result.FIELD }}`"),
                );
            };
            let Some(tool) = scope.kept.get(*name) else {
                if scope.lenient {
                    return None;
                }
                let help = did_you_mean(name, scope.kept.keys().map(String::as_str))
                    .unwrap_or_else(|| format!("add `keep: {name}` to an earlier step"));
                return Some(
                    Diagnostic::error(
                        src,
                        at,
                        "undefined-variable",
                        format!("no earlier step keeps its result as `{name}`"),
                        "not kept by an earlier step",
                    )
                    .with_help(help),
                );
            };
            if segs.get(2) != Some(&"result") || segs.len() < 4 {
                return Some(
                    Diagnostic::error(
                        src,
                        at,
                        "invalid-template",
                        format!("`{path}` does not name a result field"),
                        "incomplete reference",
                    )
                    .with_help(format!("write `{{{{ steps.{name}.result.FIELD }}}}`")),
                );
            }
            if let Some(fields) = tool.as_deref().and_then(|t| self.catalog.result_fields(t))
                && !fields.contains(&segs[3])
            {
                let help = did_you_mean(segs[3], fields.iter().copied())
                    .unwrap_or_else(|| format!("its result has: {}", fields.join(", ")));
                return Some(
                    Diagnostic::error(
                        src,
                        at,
                        "unknown-result-field",
                        format!(
                            "`{}` results have no field `{}`",
                            tool.as_deref().unwrap_or("?"),
                            segs[3]
                        ),
                        "unknown field",
                    )
                    .with_help(help),
                );
            }
            return None;
        }
        if segs.len() > 1 {
            return Some(Diagnostic::error(src, at, "invalid-template", format!("`{path}` is not a variable"), "not a variable")
                .with_help("variables are plain names (`{{ USER }}`); results are `{{ steps.NAME.result.FIELD }}`"));
        }
        if scope.vars.contains_key(path) || scope.lenient {
            return None;
        }
        let help = did_you_mean(path, scope.vars.keys().map(String::as_str))
            .unwrap_or_else(|| format!("declare it under `env:` or pass `--env {path}=…`"));
        Some(
            Diagnostic::error(
                src,
                at,
                "undefined-variable",
                format!("undefined variable `{path}`"),
                "not defined",
            )
            .with_help(help),
        )
    }

    /// Checks the variables in every string of a node.
    fn check_node_vars(&mut self, src: &SourceFile, node: &Node, scope: &Scope) {
        match &node.value {
            Y::Str(s) if s.contains("{{") => self.check_text_vars(src, s, node.span, scope),
            Y::Seq(items) => items
                .iter()
                .for_each(|n| self.check_node_vars(src, n, scope)),
            Y::Map(entries) => entries
                .iter()
                .for_each(|(_, n)| self.check_node_vars(src, n, scope)),
            _ => {}
        }
    }

    fn steps(
        &mut self,
        ctx: &Ctx,
        steps: &[Step],
        prefix: &str,
        scope: &mut Scope,
    ) -> Vec<PlanStep> {
        steps
            .iter()
            .enumerate()
            .filter_map(|(i, s)| self.step(ctx, s, &format!("{prefix}.{}", i + 1), scope))
            .collect()
    }

    fn step(&mut self, ctx: &Ctx, step: &Step, id: &str, scope: &mut Scope) -> Option<PlanStep> {
        let src = ctx.src;
        let o = &step.options;
        let when = o.when.as_ref().and_then(|c| self.condition(src, c, scope));
        if let Some(l) = &o.label {
            self.check_text_vars(src, &l.value, l.span, scope);
        }
        let mut retries = 0;
        let mut retry_delay_ms = 0;
        if let Some(r) = &o.retries {
            if r.count > MAX_RETRIES {
                self.push(Diagnostic::error(src, r.span, "out-of-range", format!("at most {MAX_RETRIES} retries, found {}", r.count), "too many")
                    .with_help("a step that needs more retries is waiting for something: use wait_for_element"));
            }
            retries = r.count.min(MAX_RETRIES);
            retry_delay_ms = r.delay.map_or(0, |d| d.ms);
        }
        let mut tool_for_result: Option<String> = None;
        let action = match &step.kind {
            StepKind::Tool { name, args } => {
                let args = self.tool_step(src, name, args.as_ref(), scope)?;
                tool_for_result = Some(name.value.clone());
                Action::Tool {
                    tool: name.value.clone(),
                    args,
                }
            }
            StepKind::Assert { visible, args } => {
                let args = self.assert_step(src, step.span, *visible, args, scope)?;
                tool_for_result = Some("wait_for_element".into());
                Action::Tool {
                    tool: "wait_for_element".into(),
                    args,
                }
            }
            StepKind::RunFlow { target, env } => {
                self.run_flow(ctx, step, id, target, env, scope)?
            }
            StepKind::Repeat {
                times,
                while_,
                steps,
            } => {
                let times = times.as_ref().map(|t| {
                    self.check_node_vars(src, t, scope);
                    match &t.value {
                        Y::Str(s) => {
                            let v = self.subst(scope, s);
                            v.trim()
                                .parse::<u64>()
                                .map_or(Value::String(v), Value::from)
                        }
                        _ => generic(t, &|s| s.to_string()),
                    }
                });
                let while_ = while_.as_ref().and_then(|c| self.condition(src, c, scope));
                let inner = Ctx {
                    depth: ctx.depth + 1,
                    ..*ctx
                };
                if !self.depth_ok(&inner, step.span) {
                    return None;
                }
                Action::Repeat {
                    times,
                    while_,
                    steps: self.steps(&inner, steps, id, scope),
                }
            }
            StepKind::Retry {
                times,
                delay,
                steps,
            } => {
                let times = match times {
                    Some((t, span)) if *t > MAX_RETRIES => {
                        self.push(Diagnostic::error(
                            src,
                            *span,
                            "out-of-range",
                            format!(
                                "a retry block runs at most {MAX_RETRIES} more times, found {t}"
                            ),
                            "too many",
                        ));
                        MAX_RETRIES
                    }
                    Some((t, _)) => *t,
                    None => 1,
                };
                let inner = Ctx {
                    depth: ctx.depth + 1,
                    ..*ctx
                };
                if !self.depth_ok(&inner, step.span) {
                    return None;
                }
                Action::Retry {
                    times,
                    delay_ms: delay.map_or(0, |d| d.ms),
                    steps: self.steps(&inner, steps, id, scope),
                }
            }
        };
        let is_tool = matches!(action, Action::Tool { .. });
        if !is_tool {
            for (what, span) in [
                ("keep", o.keep.as_ref().map(|k| k.span)),
                ("expect", o.expect.first().map(|e| e.field.span)),
            ] {
                if let Some(span) = span {
                    self.push(
                        Diagnostic::error(
                            src,
                            span,
                            "invalid-option",
                            format!("`{what}` applies to tool steps, not to blocks"),
                            "not on a block",
                        )
                        .with_help(format!("move `{what}` to the tool step inside the block")),
                    );
                }
            }
        }
        let expect = self.expectations(src, o, tool_for_result.as_deref(), scope);
        let deadline_ms = if let Action::Tool { args, .. } = &action {
            Some(self.deadline(ctx, step, args))
        } else {
            o.deadline.map(|d| d.ms)
        };
        if let Some(k) = &o.keep
            && is_tool
        {
            scope.kept.insert(k.value.clone(), tool_for_result.clone());
        }
        let lc = src.line_col(step.span.start);
        Some(PlanStep {
            id: id.to_string(),
            label: o.label.as_ref().map(|l| self.subst(scope, &l.value)),
            action,
            deadline_ms,
            retries,
            retry_delay_ms,
            optional: o.optional,
            when,
            keep: o.keep.as_ref().filter(|_| is_tool).map(|k| k.value.clone()),
            expect,
            source: SourceRef {
                file: src.name().to_string(),
                line: lc.line,
                column: lc.column,
            },
        })
    }

    fn depth_ok(&mut self, ctx: &Ctx, span: Span) -> bool {
        if ctx.depth > MAX_DEPTH {
            self.push(Diagnostic::error(
                ctx.src,
                span,
                "too-deep",
                format!("blocks and sub-flows nest more than {MAX_DEPTH} levels"),
                "too deep",
            ));
            return false;
        }
        true
    }

    /// The deadline of one attempt of a tool step: explicit, or the default raised to cover
    /// the tool's own wait budget.
    fn deadline(&mut self, ctx: &Ctx, step: &Step, args: &Value) -> u64 {
        let budget = ["timeout_ms", "realtime_wait_ms"]
            .iter()
            .filter_map(|p| args.get(*p).and_then(Value::as_u64))
            .max();
        match (step.options.deadline, budget) {
            (Some(d), Some(b)) if d.ms < b => {
                self.push(Diagnostic::warning(ctx.src, d.span, "deadline-too-short", format!("the step deadline ({} ms) is shorter than the tool's own wait ({b} ms)", d.ms), "the step will be cut short")
                    .with_help(format!("raise the deadline above {b} ms or lower the tool's wait")));
                d.ms
            }
            (Some(d), _) => d.ms,
            (None, Some(b)) => ctx.step_default.max(b.saturating_add(DEADLINE_MARGIN_MS)),
            (None, None) => ctx.step_default,
        }
    }

    fn unknown_step(&mut self, src: &SourceFile, name: &Str) {
        let n = name.value.as_str();
        let help = if matches!(n, "sleep" | "wait" | "delay" | "pause") {
            Some("tapflow has no fixed sleep: wait for what you need with `wait_for_element` or `assert_visible` (with `timeout_ms`), or add `retries: {count: 2, delay: 1s}` to a step".to_string())
        } else if let Some((_, ours)) = FOREIGN_NAMES.iter().find(|(f, _)| *f == n) {
            Some(format!("tapflow calls this {ours}"))
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
                "unknown-step",
                format!("unknown step `{n}`"),
                label,
            )
            .with_help_opt(help),
        );
    }

    /// Checks and compiles a tool step's arguments.
    fn tool_step(
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
        self.check_args(src, &name.value, name.span, &entries, schema, scope, &[])
    }

    /// The step's arguments as key/value pairs (scalar shorthand expanded).
    fn arg_entries(
        &mut self,
        src: &SourceFile,
        tool: &str,
        at: Span,
        args: Option<&Node>,
    ) -> Option<Vec<(Key, Node)>> {
        match args {
            None => Some(Vec::new()),
            Some(n) => match &n.value {
                Y::Map(m) => Some(m.clone()),
                Y::Seq(_) => {
                    self.push(
                        Diagnostic::error(
                            src,
                            n.span,
                            "wrong-type",
                            format!("the parameters of `{tool}` must be a mapping, found a list"),
                            "expected a mapping",
                        )
                        .with_help(format!("write `{tool}: {{name: value, …}}`")),
                    );
                    None
                }
                _ => {
                    match self.catalog.scalar_shorthand(tool) {
                        Some(param) => Some(vec![(
                            Key {
                                name: param.to_string(),
                                span: n.span,
                            },
                            n.clone(),
                        )]),
                        None => {
                            self.push(Diagnostic::error(src, n.span, "no-shorthand", format!("`{tool}` has no shorthand; give its parameters as a mapping"), "expected a mapping")
                            .with_help(format!("write `{tool}: {{name: value, …}}`")));
                            let _ = at;
                            None
                        }
                    }
                }
            },
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn check_args(
        &mut self,
        src: &SourceFile,
        tool: &str,
        at: Span,
        entries: &[(Key, Node)],
        schema: &Value,
        scope: &Scope,
        forbidden: &[(&str, &str)],
    ) -> Option<Value> {
        let run_level = self.catalog.run_level_params();
        let mut kept = Vec::new();
        for (k, v) in entries {
            if run_level.contains(&k.name.as_str()) {
                self.push(
                    Diagnostic::error(
                        src,
                        k.span,
                        "run-level-param",
                        format!("`{}` is chosen by the run, not by a flow", k.name),
                        "not allowed in a flow",
                    )
                    .with_help(
                        "remove it; choose devices with `tapflow run --device` or `tapflow.toml`",
                    ),
                );
            } else if let Some((_, why)) = forbidden.iter().find(|(p, _)| *p == k.name) {
                self.push(
                    Diagnostic::error(
                        src,
                        k.span,
                        "unknown-param",
                        format!("`{}` cannot be set here", k.name),
                        "not allowed here",
                    )
                    .with_help(why.to_string()),
                );
            } else {
                self.check_node_vars(src, v, scope);
                kept.push((k.clone(), v.clone()));
            }
        }
        let subst = |s: &str| self.subst(scope, s);
        let mut check = SchemaCheck::new(src, schema, &subst);
        let value = check.object(&kept, schema, &format!("`{tool}`"), at);
        let failed = !check.diags.is_empty();
        self.diags.extend(check.diags);
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
            let span = issue
                .param
                .as_deref()
                .and_then(|p| entries.iter().find(|(k, _)| k.name == p))
                .map_or(at, |(_, v)| v.span);
            let label = issue
                .param
                .as_deref()
                .map_or_else(|| format!("`{tool}`"), |p| format!("`{p}`"));
            self.push(
                Diagnostic::error(
                    src,
                    span,
                    &static_code(&issue.code),
                    format!("{tool}: {}", issue.message),
                    format!("{label} ({})", issue.code),
                )
                .with_help_opt(issue.suggestion),
            );
        }
        ok.then_some(merged)
    }

    fn assert_step(
        &mut self,
        src: &SourceFile,
        at: Span,
        visible: bool,
        args: &Node,
        scope: &Scope,
    ) -> Option<Value> {
        let Some(schema) = self.catalog.input_schema("wait_for_element") else {
            self.push(Diagnostic::error(
                src,
                at,
                "unknown-step",
                "assertions need the `wait_for_element` tool, which this catalog lacks",
                "unavailable",
            ));
            return None;
        };
        let entries = self.selector_entries(src, args)?;
        let mut v = self.check_args(
            src,
            "wait_for_element",
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

    fn selector_entries(&mut self, src: &SourceFile, node: &Node) -> Option<Vec<(Key, Node)>> {
        match &node.value {
            Y::Map(m) => Some(m.clone()),
            Y::Seq(_) | Y::Null => {
                self.push(Diagnostic::error(src, node.span, "wrong-type", format!("an element must be its text or a mapping such as `{{element_id: banner}}`, found {}", node.type_name()), "expected text or a mapping"));
                None
            }
            _ => Some(vec![(
                Key {
                    name: "text".into(),
                    span: node.span,
                },
                node.clone(),
            )]),
        }
    }

    fn condition(
        &mut self,
        src: &SourceFile,
        c: &Condition,
        scope: &Scope,
    ) -> Option<PlanCondition> {
        let mut out = PlanCondition {
            platform: c.platform.as_ref().map(|p| p.value.to_ascii_lowercase()),
            ..PlanCondition::default()
        };
        let mut ok = true;
        for (node, slot, state) in [
            (&c.visible, &mut out.visible, "found"),
            (&c.not_visible, &mut out.not_visible, "gone"),
        ] {
            let Some(node) = node else { continue };
            let schema = match self.catalog.input_schema("wait_for_element") {
                Some(s) => s,
                None => {
                    self.push(Diagnostic::error(src, node.span, "unknown-step", "element conditions need the `wait_for_element` tool, which this catalog lacks", "unavailable"));
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
                "wait_for_element",
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
                        "wrong-type",
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
                .map(|b| b.value.clone());
            out.compare = Some(PlanComparison {
                var: path.to_string(),
                resolved,
                op: cmp.op,
                value,
            });
        }
        ok.then_some(out)
    }

    fn expectations(
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
                        "unknown-result-field",
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

    #[allow(clippy::too_many_arguments)]
    fn run_flow(
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
                scope.kept.extend(child.kept.clone());
                Some(Action::SubFlow {
                    file: None,
                    variables: bound(&child, env),
                    steps,
                })
            }
            RunTarget::File(f) => {
                self.check_text_vars(src, &f.value, f.span, scope);
                let rel = self.subst(scope, &f.value);
                let path = resolve(src.name(), &rel);
                if let Some(pos) = self.stack.iter().position(|p| *p == path) {
                    let mut chain: Vec<&str> =
                        self.stack[pos..].iter().map(String::as_str).collect();
                    chain.push(&path);
                    self.push(
                        Diagnostic::error(
                            src,
                            f.span,
                            "run-flow-cycle",
                            format!("sub-flow cycle: {}", chain.join(" → ")),
                            "calls a flow that is already running",
                        )
                        .with_help("break the cycle; use `repeat` to run steps more than once"),
                    );
                    return None;
                }
                let parsed = self.load(src, f, &path)?;
                let (sub_src, sub_flow) = (&parsed.0, &parsed.1);
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
                                    "undefined-variable",
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
                    depth: inner.depth,
                };
                self.stack.push(path.clone());
                let steps = self.steps(&sub_ctx, &sub_flow.steps, id, &mut child);
                self.stack.pop();
                let mut variables = bound(&child, env);
                variables.extend(
                    sub_flow
                        .env
                        .iter()
                        .filter(|v| !env.iter().any(|(k, _)| k.value == v.name.value))
                        .filter_map(|v| {
                            child.vars.get(&v.name.value).map(|b| PlanVariable {
                                name: v.name.value.clone(),
                                value: if b.secret {
                                    MASK.into()
                                } else {
                                    b.value.clone()
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
    fn load(&mut self, src: &SourceFile, f: &Str, path: &str) -> Option<Rc<(SourceFile, Flow)>> {
        self.referenced.insert(path.to_string());
        if let Some(p) = self.parsed.get(path) {
            return p.clone();
        }
        let result = match self.loader.load(path) {
            Ok(text) => {
                let sub = SourceFile::new(path, text);
                self.sources.insert(sub.clone());
                let parsed = parse_flow(&sub);
                self.diags.extend(parsed.diagnostics);
                parsed.flow.map(|fl| Rc::new((sub, fl)))
            }
            Err(why) => {
                self.push(
                    Diagnostic::error(
                        src,
                        f.span,
                        "run-flow-missing",
                        format!("cannot read sub-flow `{path}`: {why}"),
                        "file not found",
                    )
                    .with_help("sub-flow paths are relative to the calling file's directory"),
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
                    b.value.clone()
                },
                secret: b.secret,
                source: VarSource::RunFlow,
            })
        })
        .collect()
}

/// The tools' `PARAM_CONFLICT` becomes the diagnostic code `param-conflict`.
fn static_code(code: &str) -> String {
    code.to_ascii_lowercase().replace('_', "-")
}

#[derive(Clone, Copy)]
struct Ctx<'s> {
    src: &'s SourceFile,
    step_default: u64,
    depth: usize,
}
