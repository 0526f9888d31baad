//! The flow AST: what a flow file says, with a span on every node. Tool steps keep their
//! arguments as YAML nodes, because only the planner (with the tool catalog) knows their types.

use super::source::Span;
use super::yaml::Node;

// The key lists of the format live with its one description (`flow::format`).
pub use super::format::{CONDITION_KEYS, CONTROL_STEPS, PLATFORMS, STEP_OPTIONS, TOP_LEVEL_KEYS};

/// A string with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Str {
    pub value: String,
    pub span: Span,
}

/// A duration in milliseconds with its span.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Duration {
    pub ms: u64,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Flow {
    pub file: String,
    /// A file that is only a list of steps (a sub-flow) has no header.
    pub is_step_list: bool,
    pub name: Option<Str>,
    pub app: Option<Str>,
    pub tags: Vec<Str>,
    pub env: Vec<EnvVar>,
    pub timeout: Option<Duration>,
    pub step_timeout: Option<Duration>,
    pub clean_state: Option<(bool, Span)>,
    /// `defaults: {wait: …}`: how long element steps wait for their target.
    pub default_wait: Option<Duration>,
    pub on_failure: Vec<Step>,
    pub finally: Vec<Step>,
    pub steps: Vec<Step>,
    pub span: Span,
}

/// An `env:` entry: `NAME: default`, or `NAME: {default: …, secret: true}`.
#[derive(Clone, Debug, PartialEq)]
pub struct EnvVar {
    pub name: Str,
    /// `None`: the value must come from `--env`, `TAPFLOW_*` or a caller's `run_flow` env.
    pub default: Option<Str>,
    pub secret: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The span of the step's key (`click` in `- click: Login`).
    pub span: Span,
    pub kind: StepKind,
    pub options: StepOptions,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StepKind {
    /// A registry tool: `- click: Login`, `- click: {text: Login}`, `- screenshot`.
    Tool { name: Str, args: Option<Node> },
    RunFlow {
        target: RunTarget,
        env: Vec<(Str, Str)>,
    },
    Repeat {
        times: Option<Node>,
        /// Boxed, like `when`: a condition is large and rare, and every step pays for the
        /// size of the largest variant (a 1 MiB flow has tens of thousands of steps).
        while_: Option<Box<Condition>>,
        steps: Vec<Step>,
    },
    Retry {
        times: Option<(u64, Span)>,
        delay: Option<Duration>,
        steps: Vec<Step>,
    },
    /// `assert_visible` / `assert_not_visible`: a selector (scalar = text) plus `timeout_ms`.
    Assert { visible: bool, args: Node },
}

#[derive(Clone, Debug, PartialEq)]
pub enum RunTarget {
    File(Str),
    Inline(Vec<Step>),
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct StepOptions {
    pub label: Option<Str>,
    pub deadline: Option<Duration>,
    /// How long the step waits for its element (implicit wait).
    pub wait: Option<Duration>,
    pub retries: Option<Retries>,
    pub optional: bool,
    pub when: Option<Box<Condition>>,
    pub keep: Option<Str>,
    pub expect: Vec<Expectation>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Retries {
    pub count: u64,
    pub delay: Option<Duration>,
    pub span: Span,
}

/// All present parts must hold.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Condition {
    pub span: Span,
    pub platform: Option<Str>,
    pub visible: Option<Node>,
    pub not_visible: Option<Node>,
    pub compare: Option<Comparison>,
}

/// `var: NAME` with one of `equals`, `not_equals`, `in`.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub var: Str,
    pub op: CompareOp,
    pub value: Node,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CompareOp {
    Equals,
    NotEquals,
    In,
    Gt,
    Gte,
    Lt,
    Lte,
    Contains,
}

impl CompareOp {
    pub const EXPECT_OPS: &'static [&'static str] = &[
        "equals",
        "not_equals",
        "in",
        "gt",
        "gte",
        "lt",
        "lte",
        "contains",
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Equals => "equals",
            Self::NotEquals => "not_equals",
            Self::In => "in",
            Self::Gt => "gt",
            Self::Gte => "gte",
            Self::Lt => "lt",
            Self::Lte => "lte",
            Self::Contains => "contains",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "equals" => Self::Equals,
            "not_equals" => Self::NotEquals,
            "in" => Self::In,
            "gt" => Self::Gt,
            "gte" => Self::Gte,
            "lt" => Self::Lt,
            "lte" => Self::Lte,
            "contains" => Self::Contains,
            _ => return None,
        })
    }
}

/// `expect: {field.path: value}` or `{field.path: {gte: 1}}` on a tool's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    pub field: Str,
    pub op: CompareOp,
    pub value: Node,
}
