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

use serde_json::Value;

mod args;
pub use args::ASSERT_TOOL;
mod sink;
mod subflow;
mod top;
pub use top::slug as flow_id_of;
mod vars;

use super::catalog::ToolCatalog;
use super::loader::{SourceLoader, normalize};
use super::model::*;
use super::schema_check::generic;
use super::scope::Scope;
use crate::flow::ast::{Flow, Step, StepKind};
use crate::flow::source::{SourceFile, Span};
use crate::flow::template;
use crate::flow::yaml::Value as Y;
use crate::flow::{Diagnostic, DiagnosticReport, Omitted, SourceMap};

/// Settings the CLI passes in (it alone reads the environment and `tapflow.toml`).
#[derive(Clone, Debug)]
pub struct PlanOptions {
    /// `--env NAME=value` (highest precedence after a caller's `run_flow` env).
    pub env: BTreeMap<String, String>,
    /// The process's `TAPFLOW_*` environment variables, names as found (`TAPFLOW_USER`);
    /// `TAPFLOW_USER` supplies `{{ USER }}`.
    pub environment: BTreeMap<String, String>,
    /// Project-level defaults for variables (`tapflow.toml` `[env]`), below everything else.
    pub project_env: BTreeMap<String, String>,
    /// Devices to spread flows over, round robin; empty = `auto`.
    pub devices: Vec<String>,
    pub default_flow_timeout_ms: u64,
    pub default_step_timeout_ms: u64,
    /// How long element steps wait for their target (`tapflow.toml` `wait`; a flow's
    /// `defaults.wait` and a step's `wait` win).
    pub default_wait_ms: u64,
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
            default_wait_ms: DEFAULT_WAIT_MS,
        }
    }
}

/// The format's limits (`flow::format`): retries per step and per retry block, passes of a
/// `repeat` block (the runner stops there too).
pub use crate::flow::format::{MAX_REPEAT, MAX_RETRIES};
/// The built-in implicit wait of element steps.
pub const DEFAULT_WAIT_MS: u64 = 5_000;
/// Extra time a step's deadline gets over its tool's own wait budget (`timeout_ms`, …).
pub const DEADLINE_MARGIN_MS: u64 = 5_000;
/// Deepest accepted nesting of blocks and sub-flows.
const MAX_DEPTH: usize = 32;
/// Largest plan one flow compiles to, in steps and sub-flow variables: every step of its
/// blocks, hooks and inlined sub-flows, and every variable a sub-flow call binds (each call
/// inlines the sub-flow again, with its variables). Real flows have hundreds; the limit keeps
/// the work and memory of compiling small when sub-flows are called many times over (a file of
/// `run_flow` lines calling a file of `run_flow` lines grows multiplicatively).
pub const MAX_PLAN_SIZE: usize = 50_000;

/// The outcome of validating and compiling: the plan of everything valid, the diagnostics
/// (at most [`crate::flow::MAX_DIAGNOSTICS_PER_FILE`] per file, sorted by position), how many more each
/// file had, and the sources they point into.
#[derive(Debug)]
pub struct Compiled {
    pub plan: Plan,
    pub diagnostics: Vec<Diagnostic>,
    /// Files with more diagnostics than are listed: how many were left out.
    pub omitted: Vec<Omitted>,
    pub sources: SourceMap,
}

impl Compiled {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
            || self.omitted.iter().any(|o| o.errors > 0)
    }

    /// Errors and warnings found, listed or not.
    pub fn counts(&self) -> (usize, usize) {
        let r = DiagnosticReport::with_omitted(&self.diagnostics, &self.omitted);
        (r.errors, r.warnings)
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
        diags: sink::Sink::default(),
        sources: SourceMap::new(),
        parsed: HashMap::new(),
        stack: Vec::new(),
        referenced: BTreeSet::new(),
        secrets: RefCell::new(BTreeMap::new()),
        secret_keys: RefCell::new(SecretKeys::default()),
        ids: BTreeSet::new(),
        plan_size: 0,
        id_suffixes: HashMap::new(),
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
    let (diagnostics, omitted) = c.diags.finish();
    Compiled {
        plan,
        diagnostics,
        omitted,
        sources: c.sources,
    }
}

type Parsed = Option<Rc<(SourceFile, Flow)>>;

/// Which reference stands for a secret's value, and the next `__N` suffix to try per name.
#[derive(Default)]
struct SecretKeys {
    keys: HashMap<(String, String), String>,
    next: HashMap<String, usize>,
}

struct Compiler<'a> {
    catalog: &'a dyn ToolCatalog,
    loader: &'a dyn SourceLoader,
    opts: &'a PlanOptions,
    diags: sink::Sink,
    sources: SourceMap,
    /// Sub-flow files by normalised path, parsed once.
    parsed: HashMap<String, Parsed>,
    /// Sub-flow files being inlined (cycle detection).
    stack: Vec<String>,
    referenced: BTreeSet<String>,
    /// Secrets of the flow being compiled: reference name → value.
    secrets: RefCell<BTreeMap<String, String>>,
    /// The reverse of `secrets`, to find a value's reference without a scan.
    secret_keys: RefCell<SecretKeys>,
    ids: BTreeSet<String>,
    /// Steps and sub-flow variables compiled for the current top-level flow (sub-flows
    /// inlined, hooks included), against [`MAX_PLAN_SIZE`].
    plan_size: usize,
    /// Per flow id base, the next `-N` suffix to try.
    id_suffixes: HashMap<String, usize>,
}

impl<'a> Compiler<'a> {
    fn push(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn steps(
        &mut self,
        ctx: &Ctx,
        steps: &[Step],
        prefix: &str,
        scope: &mut Scope,
    ) -> Vec<PlanStep> {
        // Sized up front (collecting a filtered iterator grows by doubling), to no more than
        // the budget has left.
        let left = (MAX_PLAN_SIZE + 1).saturating_sub(self.plan_size);
        let mut out = Vec::with_capacity(steps.len().min(left));
        for (i, s) in steps.iter().enumerate() {
            if self.plan_size > MAX_PLAN_SIZE {
                break;
            }
            out.extend(self.step(ctx, s, &format!("{prefix}.{}", i + 1), scope));
        }
        out
    }

    fn step(&mut self, ctx: &Ctx, step: &Step, id: &str, scope: &mut Scope) -> Option<PlanStep> {
        let src = ctx.src;
        if !self.grow_plan(src, step.span, 1) {
            return None;
        }
        let o = &step.options;
        let when = o
            .when
            .as_ref()
            .and_then(|c| self.condition(src, c, scope))
            .map(Box::new);
        if let Some(l) = &o.label {
            self.check_text_vars(src, &l.value, l.span, scope);
        }
        let mut retries = 0;
        let mut retry_delay_ms = 0;
        if let Some(r) = &o.retries {
            if r.count > MAX_RETRIES {
                self.push(Diagnostic::error(src, r.span, crate::codes::diag::OUT_OF_RANGE, format!("at most {MAX_RETRIES} retries, found {}", r.count), "too many")
                    .with_help("a step that needs more retries is waiting for something: use wait_for_element"));
            }
            retries = r.count.min(MAX_RETRIES);
            retry_delay_ms = r.delay.map_or(0, |d| d.ms);
        }
        let mut tool_for_result: Option<String> = None;
        let mut written_as: Option<String> = None;
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
                tool_for_result = Some(args::ASSERT_TOOL.into());
                written_as = Some(assert_name(*visible).into());
                Action::Tool {
                    tool: args::ASSERT_TOOL.into(),
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
                    let too_many = |this: &mut Self, n: u64| {
                        this.push(
                            Diagnostic::error(
                                src,
                                t.span,
                                crate::codes::diag::OUT_OF_RANGE,
                                format!("`repeat` runs at most {MAX_REPEAT} times, found {n}"),
                                "too many",
                            )
                            .with_help("a loop that long is waiting for something: use `while` with a condition, or wait_for_element"),
                        );
                    };
                    if let Y::Int(n) = t.value
                        && n > 0
                        && n as u64 > MAX_REPEAT
                    {
                        too_many(self, n as u64);
                    }
                    match &t.value {
                        Y::Str(s) => {
                            let v = self.subst(scope, s);
                            match v.trim().parse::<u64>() {
                                Ok(n) => {
                                    if n > MAX_REPEAT {
                                        too_many(self, n);
                                    }
                                    Value::from(n)
                                }
                                Err(_) => {
                                    // Known now and not a count: say so before the run.
                                    if !template::has_refs(&v) && !scope.lenient {
                                        self.push(
                                            Diagnostic::error(src, t.span, crate::codes::diag::WRONG_TYPE, format!("`times` must be a non-negative integer, but its variables make it `{v}`"), "expected an integer"),
                                        );
                                    }
                                    Value::String(v)
                                }
                            }
                        }
                        _ => generic(t, &|s| s.to_string()),
                    }
                });
                let while_ = while_
                    .as_ref()
                    .and_then(|c| self.condition(src, c, scope))
                    .map(Box::new);
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
                            crate::codes::diag::OUT_OF_RANGE,
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
                            crate::codes::diag::INVALID_OPTION,
                            format!("`{what}` applies to tool steps, not to blocks"),
                            "not on a block",
                        )
                        .with_help(format!("move `{what}` to the tool step inside the block")),
                    );
                }
            }
        }
        let expect = self.expectations(src, o, tool_for_result.as_deref(), scope);
        let wait_ms = match &action {
            Action::Tool { tool, .. }
                if written_as.is_none() && self.catalog.waits_for_target(tool) =>
            {
                o.wait.map_or(ctx.wait_default, |w| w.ms)
            }
            _ => {
                if let Some(w) = o.wait {
                    self.push(
                        Diagnostic::error(
                            src,
                            w.span,
                            crate::codes::diag::INVALID_OPTION,
                            format!(
                                "`wait` applies to steps that act on an element ({})",
                                self.catalog
                                    .tool_names()
                                    .into_iter()
                                    .filter(|t| self.catalog.waits_for_target(t))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                            "nothing to wait for",
                        )
                        .with_help("assertions and waits take `timeout_ms`; remove `wait` here"),
                    );
                }
                0
            }
        };
        let deadline_ms = if let Action::Tool { tool, args } = &action {
            Some(self.deadline(ctx, step, tool, args, wait_ms))
        } else {
            o.deadline.map(|d| d.ms)
        };
        if let Some(k) = &o.keep
            && is_tool
        {
            scope
                .kept
                .insert_mut(k.value.clone(), tool_for_result.clone());
        }
        let lc = src.line_col(step.span.start);
        Some(PlanStep {
            id: id.to_string(),
            label: o.label.as_ref().map(|l| self.subst(scope, &l.value)),
            written_as,
            action,
            wait_ms,
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

    /// Adds `n` entries to the plan being compiled; false once it is over [`MAX_PLAN_SIZE`]
    /// (reported once, where it went over; nothing after that is compiled).
    fn grow_plan(&mut self, src: &SourceFile, at: Span, n: usize) -> bool {
        if self.plan_size > MAX_PLAN_SIZE {
            return false;
        }
        self.plan_size += n;
        if self.plan_size <= MAX_PLAN_SIZE {
            return true;
        }
        let flow = self.stack.first().cloned().unwrap_or_default();
        self.push(
            Diagnostic::error(
                src,
                at,
                "plan-too-large",
                format!("the flow `{flow}` compiles to more than {MAX_PLAN_SIZE} steps and sub-flow variables (a sub-flow is inlined again at every call)"),
                "limit reached here",
            )
            .with_help("use `repeat` to run steps many times; call sub-flows from fewer places"),
        );
        false
    }

    fn depth_ok(&mut self, ctx: &Ctx, span: Span) -> bool {
        if ctx.depth > MAX_DEPTH {
            self.push(Diagnostic::error(
                ctx.src,
                span,
                crate::codes::diag::TOO_DEEP,
                format!("blocks and sub-flows nest more than {MAX_DEPTH} levels"),
                "too deep",
            ));
            return false;
        }
        true
    }

    /// The deadline of one attempt of a tool step: explicit, or the default raised to cover
    /// the tool's own time budget (from its own timeout parameters and settings).
    /// An implicit wait (`wait_ms`) adds to the tool's own budget.
    fn deadline(&mut self, ctx: &Ctx, step: &Step, tool: &str, args: &Value, wait_ms: u64) -> u64 {
        let budget = match self.catalog.budget_ms(tool, args) {
            Some(b) => Some(b.saturating_add(wait_ms)),
            None if wait_ms > 0 => Some(wait_ms),
            None => None,
        };
        match (step.options.deadline, budget) {
            (Some(d), Some(b)) if d.ms < b => {
                self.push(Diagnostic::warning(ctx.src, d.span, crate::codes::diag::DEADLINE_TOO_SHORT, format!("the step deadline ({} ms) is shorter than the tool's own wait ({b} ms)", d.ms), "the step will be cut short")
                    .with_help(format!("raise the deadline above {b} ms or lower the tool's wait")));
                d.ms
            }
            (Some(d), _) => d.ms,
            (None, Some(b)) => ctx.step_default.max(b.saturating_add(DEADLINE_MARGIN_MS)),
            (None, None) => ctx.step_default,
        }
    }
}

/// The name a flow writes for an assertion (`assert_visible` / `assert_not_visible`).
fn assert_name(visible: bool) -> &'static str {
    if visible {
        "assert_visible"
    } else {
        "assert_not_visible"
    }
}

#[derive(Clone, Copy)]
struct Ctx<'s> {
    src: &'s SourceFile,
    step_default: u64,
    /// The implicit wait of element steps here (a sub-flow inherits its caller's).
    wait_default: u64,
    depth: usize,
}
