//! The compiled plan: what will run, in what order, with which arguments (defaults explicit),
//! deadlines, retries, hooks and device. Plain data, serialisable (`tapflow plan --format
//! json`), and what the runner executes. Secret values are never serialised or printed: the
//! arguments keep `{{ NAME }}` for them and the runner binds them from [`FlowPlan::secret`].

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::flow::ast::CompareOp;

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Shown instead of a secret value.
pub const MASK: &str = "******";

#[derive(Clone, Debug, Default, Serialize)]
pub struct Plan {
    pub flows: Vec<FlowPlan>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FlowPlan {
    /// Stable id (from the file name), the prefix of every step id.
    pub id: String,
    pub name: String,
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    pub tags: Vec<String>,
    /// The device this flow will run on (`auto`: the only connected device).
    pub device: String,
    pub timeout_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub isolation: Option<Isolation>,
    pub variables: Vec<PlanVariable>,
    pub steps: Vec<PlanStep>,
    /// Runs when a step fails (before `finally`).
    pub on_failure: Vec<PlanStep>,
    /// Always runs, after the steps (and `on_failure`), even when they failed.
    pub finally: Vec<PlanStep>,
    #[serde(skip)]
    secrets: BTreeMap<String, String>,
}

impl FlowPlan {
    /// An empty flow (no steps, no secrets): the compiler fills it; schedulers' tests build one.
    pub fn new(id: String, name: String, file: String) -> Self {
        Self {
            id,
            name,
            file,
            app: None,
            tags: Vec::new(),
            device: "auto".into(),
            timeout_ms: 0,
            isolation: None,
            variables: Vec::new(),
            steps: Vec::new(),
            on_failure: Vec::new(),
            finally: Vec::new(),
            secrets: BTreeMap::new(),
        }
    }

    /// The value of a secret referenced as `{{ name }}` in this plan's arguments.
    pub fn secret(&self, name: &str) -> Option<&str> {
        self.secrets.get(name).map(String::as_str)
    }

    /// Every secret value (for masking runner output and reports).
    pub fn secret_values(&self) -> impl Iterator<Item = &str> {
        self.secrets.values().map(String::as_str)
    }

    pub(crate) fn set_secrets(&mut self, secrets: BTreeMap<String, String>) {
        self.secrets = secrets;
    }
}

/// Start the app from a clean state before the steps: stop it, clear its data, launch it.
#[derive(Clone, Debug, Serialize)]
pub struct Isolation {
    pub bundle: String,
    pub stop: bool,
    pub clear_data: bool,
    pub launch: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VarSource {
    /// `tapflow.toml` `[env]`.
    Project,
    /// The flow file's `env` default.
    Flow,
    /// A `TAPFLOW_<NAME>` environment variable.
    Environment,
    /// `--env NAME=value`.
    Cli,
    /// A caller's `run_flow` `env`.
    RunFlow,
}

#[derive(Clone, Debug, Serialize)]
pub struct PlanVariable {
    pub name: String,
    /// The value, or [`MASK`] for a secret.
    pub value: String,
    pub secret: bool,
    pub source: VarSource,
}

#[derive(Clone, Debug, Serialize)]
pub struct SourceRef {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct PlanStep {
    /// Deterministic id: `<flow>.<n>`, nested `<flow>.3.2`, hooks `<flow>.finally.1`.
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The step as the flow names it when that is not its tool (`assert_visible`,
    /// `assert_not_visible`): what progress, diagnostics and reports show.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_as: Option<String>,
    #[serde(flatten)]
    pub action: Action,
    /// Implicit wait (ms): how long the step waits for its element to appear before acting
    /// (a flow-level behaviour; 0 = none).
    #[serde(skip_serializing_if = "is_zero")]
    pub wait_ms: u64,
    /// Wall-clock budget of one attempt; `None` for blocks (their steps have their own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
    pub retries: u64,
    pub retry_delay_ms: u64,
    pub optional: bool,
    /// Boxed (like `while`): a condition is large and rare, and a plan may hold tens of
    /// thousands of steps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when: Option<Box<PlanCondition>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expect: Vec<PlanExpectation>,
    pub source: SourceRef,
}

impl PlanStep {
    /// A step the runner makes itself (clean-state setup, a block's pass): no label, no wait,
    /// no deadline, no retries, no condition, nothing kept or expected.
    pub fn plain(id: String, action: Action, source: SourceRef) -> Self {
        PlanStep {
            id,
            label: None,
            written_as: None,
            action,
            wait_ms: 0,
            deadline_ms: None,
            retries: 0,
            retry_delay_ms: 0,
            optional: false,
            when: None,
            keep: None,
            expect: Vec::new(),
            source,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Action {
    /// Call a registry tool with these arguments (defaults made explicit).
    Tool { tool: String, args: Value },
    /// Run the steps `times` times (when set), each time only while `while` holds (when set).
    Repeat {
        #[serde(skip_serializing_if = "Option::is_none")]
        times: Option<Value>,
        #[serde(rename = "while", skip_serializing_if = "Option::is_none")]
        while_: Option<Box<PlanCondition>>,
        steps: Vec<PlanStep>,
    },
    /// Run the steps; on failure run them again, up to `times` more times.
    Retry {
        times: u64,
        delay_ms: u64,
        steps: Vec<PlanStep>,
    },
    /// A sub-flow, inlined with its variables bound.
    SubFlow {
        #[serde(skip_serializing_if = "Option::is_none")]
        file: Option<String>,
        variables: Vec<PlanVariable>,
        steps: Vec<PlanStep>,
    },
}

/// All present parts must hold.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PlanCondition {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform: Option<crate::platform::Platform>,
    /// `wait_for_element`-style selector arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visible: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_visible: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compare: Option<PlanComparison>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PlanComparison {
    /// The variable (`MODE`) or kept result (`steps.login.result.verified`) compared.
    pub var: String,
    /// Its value when known before the run (not for secrets or kept results).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<String>,
    pub op: CompareOp,
    pub value: Value,
}

#[derive(Clone, Debug, Serialize)]
pub struct PlanExpectation {
    /// A dotted path into the tool's result (`verified`, `items.0.tag`).
    pub field: String,
    pub op: CompareOp,
    pub value: Value,
}
