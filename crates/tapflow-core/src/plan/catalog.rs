//! The tool catalog the planner validates and compiles against. The planner never names a tool
//! itself: everything it knows about tools (names, JSON Schemas of their parameters, defaults,
//! device-free rules, scalar shorthands, other runners' names, time budgets, result fields)
//! comes through this trait. `tapflow_tools::RegistryCatalog` implements it over the tool
//! registry; tests may implement it for a catalog of their own.

use serde::Serialize;
use serde_json::Value;

use crate::codes::Code;

/// A problem a tool can see in its arguments without a device (one-mode-only rules, enumerated
/// values that depend on each other, key names, …).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StaticIssue {
    /// The parameter at fault, when there is one (its value is underlined); otherwise the tool.
    pub param: Option<String>,
    /// The tool's own error code, e.g. `PARAM_CONFLICT`, `INVALID_KEY`.
    pub code: Code,
    pub message: String,
    pub suggestion: Option<String>,
}

impl StaticIssue {
    pub fn new(param: Option<&str>, code: Code, message: impl Into<String>) -> Self {
        Self {
            param: param.map(str::to_string),
            code,
            message: message.into(),
            suggestion: None,
        }
    }

    pub fn suggest(mut self, s: impl Into<String>) -> Self {
        self.suggestion = Some(s.into());
        self
    }
}

/// What the planner needs to know about the tools.
pub trait ToolCatalog {
    /// Every tool a flow may name.
    fn tool_names(&self) -> Vec<&str>;
    /// The JSON Schema of a tool's parameters (as schemars produces it: `properties`,
    /// `required`, `type`, `enum`, `$defs`/`$ref`, `anyOf` for optional enums, …).
    fn input_schema(&self, tool: &str) -> Option<&Value>;
    /// Rules that can be checked without a device. `args` has defaults applied and variables
    /// substituted; a string still containing `{{` is only known at run time.
    fn check_static(&self, tool: &str, args: &Value) -> Vec<StaticIssue>;
    /// The defaults of a tool's optional parameters, as a JSON object.
    fn defaults(&self, tool: &str) -> Value;
    /// The parameter a scalar shorthand fills (`click: Login` → `text`), if the tool has one.
    fn scalar_shorthand(&self, tool: &str) -> Option<&str>;
    /// What the tool does, in one or two sentences (for the flow schema and docs).
    fn description(&self, _tool: &str) -> Option<&str> {
        None
    }
    /// The tool another test runner's step name stands for (`tapOn` → `click`), with a note on
    /// how to write it here (may be empty).
    fn known_as(&self, _name: &str) -> Option<(&str, &str)> {
        None
    }
    /// Every other runner's name for `tool`, with its note (see [`ToolCatalog::known_as`]).
    fn known_as_of(&self, _tool: &str) -> Vec<(&str, &str)> {
        Vec::new()
    }
    /// How long a call with `args` (defaults applied) may legitimately take, in ms, from the
    /// tool's own timeouts; `None` = quick. A step's default deadline covers it.
    fn budget_ms(&self, _tool: &str, _args: &Value) -> Option<u64> {
        None
    }
    /// Names of the tool's result fields (top level), for checking `expect:`; `None` = unknown.
    fn result_fields(&self, _tool: &str) -> Option<Vec<&str>> {
        None
    }
    /// Flow steps of this tool wait for their element (implicit wait).
    fn waits_for_target(&self, _tool: &str) -> bool {
        false
    }
    /// Parameters that belong to the run, not to a flow (device routing): a flow may not set them.
    fn run_level_params(&self) -> Vec<&str> {
        vec!["device_id", "hdc_server"]
    }
}
