//! The flow format, described once: every key a flow file, a step's options, a control step or
//! a condition may hold, with its documentation, as Rust types that schemars turns into JSON
//! Schema. The parser's key lists ([`TOP_LEVEL_KEYS`], [`STEP_OPTIONS`], [`CONTROL_STEPS`],
//! [`CONDITION_KEYS`], …) are read from these types, and `plan::flow_schema` publishes them
//! (with every tool's parameters) as `schemas/flow.schema.json`; a test checks that the parser
//! handles every key listed here.
//!
//! The types only describe; the parser (`flow::parse`) reads flows, with positions, and is
//! stricter where a schema cannot say enough (one comparison per condition, …).

#![allow(
    dead_code,
    reason = "fields exist to be described by schemars, never read"
)]

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::LazyLock;

use crate::platform::Platform;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::Value;

use super::ast::CompareOp;

/// Most passes of a `repeat` block (its `times`, and the cap of a `while` loop).
pub const MAX_REPEAT: u64 = 10_000;
/// Most retries of a step (`retries`) and most extra runs of a `retry` block.
pub const MAX_RETRIES: u64 = 10;
/// Variable names: a letter or `_`, then letters, digits or `_`.
pub const VAR_NAME_PATTERN: &str = "^[A-Za-z_][A-Za-z0-9_]*$";
/// A string holding a `{{ … }}` reference, known only when the flow runs.
pub const TEMPLATE_PATTERN: &str = r"\{\{";

/// A tapflow flow: steps run in order on one device, with hooks that run on failure and
/// always. A file that is only a list of steps is a flow too (usually a sub-flow).
#[derive(JsonSchema)]
#[schemars(title = "tapflow flow", deny_unknown_fields)]
pub struct FlowFile {
    /// Display name in reports (default: the file name).
    name: Option<String>,
    /// The app's bundle name; needed by `clean_state`.
    app: Option<String>,
    /// Tags for selecting flows (`tapflow run --tag`).
    tags: Option<Vec<String>>,
    /// Variables (`{{ NAME }}`) with their defaults; `--env NAME=…` and `TAPFLOW_NAME` override.
    #[schemars(extend("propertyNames" = {"pattern": VAR_NAME_PATTERN}))]
    env: Option<BTreeMap<String, EnvValue>>,
    /// Budget of the whole flow: milliseconds or a duration such as "2m".
    timeout: Option<DurationValue>,
    /// Default deadline of each step: milliseconds or a duration such as "30s".
    step_timeout: Option<DurationValue>,
    /// Start from a clean state: stop the app, clear its data, launch it.
    clean_state: Option<bool>,
    /// Flow-wide defaults of step options (`wait`).
    defaults: Option<Defaults>,
    /// Steps run when a step fails (before `finally`).
    on_failure: Option<Vec<StepRef>>,
    /// Steps that always run at the end, even after a failure.
    finally: Option<Vec<StepRef>>,
    /// The steps, in order.
    steps: Vec<StepRef>,
}

/// Flow-wide defaults of step options.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Defaults {
    /// How long a step that acts on an element (click, long_press, input_text) waits for it
    /// to appear (default 5s, or `wait` in `tapflow.toml`; 0 turns implicit waits off).
    wait: Option<DurationValue>,
}

/// A variable's default, or its settings.
#[derive(JsonSchema)]
#[serde(untagged)]
enum EnvValue {
    Text(String),
    Number(f64),
    Bool(bool),
    Settings(EnvSettings),
    /// No default: the value must be supplied.
    None(()),
}

/// A variable's settings.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct EnvSettings {
    /// The default value.
    default: Option<String>,
    /// Masked wherever it would be printed or stored.
    secret: Option<bool>,
}

/// Milliseconds, or `<n>ms|s|m|h` parts ("1m30s").
#[derive(JsonSchema)]
#[serde(untagged)]
enum DurationValue {
    Millis(u64),
    Text(#[schemars(pattern(r"^\s*(\d+(ms|s|m|h))+\s*$"))] String),
}

/// Options any step may carry beside its tool or control step. Their names collide with no
/// tool parameter (a test checks this against the registry).
#[derive(JsonSchema)]
pub struct StepOptions {
    /// Text shown in output and reports instead of the step's description.
    label: Option<String>,
    /// Wall-clock budget of one attempt (default: the flow's `step_timeout`, raised to cover
    /// the tool's own timeouts).
    deadline: Option<DurationValue>,
    /// How long this step waits for its element to appear before acting (click, long_press,
    /// input_text; default: the flow's `defaults.wait`, 5s). A flow-level convenience: a bare
    /// tool call does not wait.
    wait: Option<DurationValue>,
    /// Retries of this step on failure: a count, or count and delay.
    retries: Option<RetriesValue>,
    /// A failure of this step is reported as a warning and the flow goes on.
    optional: Option<bool>,
    /// Run the step only when the condition holds.
    when: Option<Condition>,
    /// Keep the result for later steps as `{{ steps.NAME.result.FIELD }}`.
    #[schemars(pattern(VAR_NAME_PATTERN))]
    keep: Option<String>,
    /// Assertions on result fields: `field: value` (equals) or `field: {gte: 1}`.
    expect: Option<BTreeMap<String, Expectation>>,
}

#[derive(JsonSchema)]
#[serde(untagged)]
enum RetriesValue {
    Count(#[schemars(range(max = MAX_RETRIES))] u64),
    Settings(RetriesSettings),
}

/// A step's retries.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct RetriesSettings {
    /// How many times to run the step again after a failure.
    #[schemars(range(max = MAX_RETRIES))]
    count: u64,
    /// Pause before each retry.
    delay: Option<DurationValue>,
}

/// An expected value (equals), or one comparison.
struct Expectation;

impl JsonSchema for Expectation {
    fn schema_name() -> Cow<'static, str> {
        "Expectation".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "The expected value, or one comparison: `{equals|not_equals|in|gt|gte|lt|lte|contains: value}`.",
            "anyOf": [
                {"type": ["string", "number", "integer", "boolean", "array", "null"]},
                {
                    "type": "object",
                    "minProperties": 1,
                    "maxProperties": 1,
                    "propertyNames": {"enum": CompareOp::EXPECT_OPS}
                }
            ]
        })
    }
}

/// The control steps: everything that is not a tool.
#[derive(JsonSchema)]
pub struct ControlSteps {
    /// Run a sub-flow file (path relative to this file) or inline steps, with extra variables.
    run_flow: RunFlowValue,
    /// Repeat steps a number of times and/or while a condition holds.
    repeat: Repeat,
    /// Run steps again when one of them fails.
    retry: Retry,
    /// Fail unless the element appears (`wait_for_element` with `state: found`).
    assert_visible: ElementRef,
    /// Fail unless the element is gone (`wait_for_element` with `state: gone`).
    assert_not_visible: ElementRef,
}

#[derive(JsonSchema)]
#[serde(untagged)]
enum RunFlowValue {
    File(String),
    Settings(RunFlow),
}

/// Runs another flow file, or inline steps, with extra variables.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct RunFlow {
    /// The sub-flow file, relative to the calling file.
    file: Option<String>,
    /// Inline steps (instead of a file).
    steps: Option<Vec<StepRef>>,
    /// Variables for the sub-flow (the most specific binding wins).
    #[schemars(extend("propertyNames" = {"pattern": VAR_NAME_PATTERN}))]
    env: Option<BTreeMap<String, String>>,
}

/// Repeats steps `times` times and/or while a condition holds.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Repeat {
    /// How many passes (at most 10 000), or a `{{ VAR }}` giving it.
    times: Option<TimesValue>,
    /// Run a pass only while this condition holds.
    #[serde(rename = "while")]
    while_: Option<Condition>,
    /// The steps of one pass.
    steps: Vec<StepRef>,
}

#[derive(JsonSchema)]
#[serde(untagged)]
enum TimesValue {
    Count(#[schemars(range(max = MAX_REPEAT))] u64),
    Variable(#[schemars(pattern(TEMPLATE_PATTERN))] String),
}

/// Runs steps again, up to `times` more times, when one of them fails.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Retry {
    /// How many more times (default 1, at most 10).
    #[schemars(range(max = MAX_RETRIES))]
    times: Option<u64>,
    /// Pause before each new run.
    delay: Option<DurationValue>,
    /// The steps.
    steps: Vec<StepRef>,
}

/// All present parts must hold.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Condition {
    /// The device's platform.
    platform: Option<Platform>,
    /// An element that must be visible (its text, or selector parameters).
    visible: Option<ElementRef>,
    /// An element that must not be visible.
    not_visible: Option<ElementRef>,
    /// A variable or kept result (`steps.NAME.result.FIELD`) to compare.
    var: Option<String>,
    /// `var` equals this value.
    equals: Option<Value>,
    /// `var` differs from this value.
    not_equals: Option<Value>,
    /// `var` is one of these values.
    #[serde(rename = "in")]
    in_: Option<Vec<Value>>,
}

/// A step: defined by `plan::flow_schema` under `$defs/Step` (tools come from the registry).
pub struct StepRef;

impl JsonSchema for StepRef {
    fn schema_name() -> Cow<'static, str> {
        "StepRef".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"$ref": "#/$defs/Step"})
    }

    fn inline_schema() -> bool {
        true
    }
}

/// An element to look for: defined by `plan::flow_schema` under `$defs/Element` (the
/// parameters of the tool behind assertions).
pub struct ElementRef;

impl JsonSchema for ElementRef {
    fn schema_name() -> Cow<'static, str> {
        "ElementRef".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"$ref": "#/$defs/Element"})
    }

    fn inline_schema() -> bool {
        true
    }
}

/// The property names of a described type, in order.
pub fn keys_of<T: JsonSchema>() -> Vec<&'static str> {
    let schema = schemars::schema_for!(T).to_value();
    let mut out = Vec::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for k in props.keys() {
            out.push(&*Box::leak(k.clone().into_boxed_str()));
        }
    } else if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        for v in values.iter().filter_map(Value::as_str) {
            out.push(&*Box::leak(v.to_string().into_boxed_str()));
        }
    }
    out
}

/// Top-level keys of a flow file.
pub static TOP_LEVEL_KEYS: LazyLock<Vec<&'static str>> = LazyLock::new(keys_of::<FlowFile>);
/// Control steps (everything else is a tool of the registry).
pub static CONTROL_STEPS: LazyLock<Vec<&'static str>> = LazyLock::new(keys_of::<ControlSteps>);
/// Options any step may carry beside its tool.
pub static STEP_OPTIONS: LazyLock<Vec<&'static str>> = LazyLock::new(keys_of::<StepOptions>);
/// Keys of a condition (`when:` and `repeat.while`).
pub static CONDITION_KEYS: LazyLock<Vec<&'static str>> = LazyLock::new(keys_of::<Condition>);
/// Platforms a condition may name.
pub static PLATFORMS: LazyLock<Vec<&'static str>> = LazyLock::new(keys_of::<Platform>);
/// Settings of `run_flow`.
pub static RUN_FLOW_KEYS: LazyLock<Vec<&'static str>> = LazyLock::new(keys_of::<RunFlow>);
/// Settings of `repeat`.
pub static REPEAT_KEYS: LazyLock<Vec<&'static str>> = LazyLock::new(keys_of::<Repeat>);
/// Settings of `retry`.
pub static RETRY_KEYS: LazyLock<Vec<&'static str>> = LazyLock::new(keys_of::<Retry>);
/// Settings of a step's `retries`.
pub static RETRIES_KEYS: LazyLock<Vec<&'static str>> = LazyLock::new(keys_of::<RetriesSettings>);
/// Keys of a flow's `defaults`.
pub static DEFAULTS_KEYS: LazyLock<Vec<&'static str>> = LazyLock::new(keys_of::<Defaults>);
/// Settings of a variable.
pub static ENV_SETTINGS_KEYS: LazyLock<Vec<&'static str>> = LazyLock::new(keys_of::<EnvSettings>);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_lists_come_from_the_described_types() {
        assert_eq!(
            *TOP_LEVEL_KEYS,
            [
                "name",
                "app",
                "tags",
                "env",
                "timeout",
                "step_timeout",
                "clean_state",
                "defaults",
                "on_failure",
                "finally",
                "steps"
            ]
        );
        assert_eq!(
            *CONTROL_STEPS,
            [
                "run_flow",
                "repeat",
                "retry",
                "assert_visible",
                "assert_not_visible"
            ]
        );
        assert_eq!(
            *STEP_OPTIONS,
            [
                "label", "deadline", "wait", "retries", "optional", "when", "keep", "expect"
            ]
        );
        assert_eq!(*PLATFORMS, ["harmonyos", "android", "ios"]);
        assert_eq!(*REPEAT_KEYS, ["times", "while", "steps"]);
        assert_eq!(*RUN_FLOW_KEYS, ["file", "steps", "env"]);
        assert_eq!(*RETRY_KEYS, ["times", "delay", "steps"]);
        assert_eq!(*RETRIES_KEYS, ["count", "delay"]);
        assert_eq!(*ENV_SETTINGS_KEYS, ["default", "secret"]);
        assert_eq!(
            *CONDITION_KEYS,
            [
                "platform",
                "visible",
                "not_visible",
                "var",
                "equals",
                "not_equals",
                "in"
            ]
        );
    }
}
