//! The JSON Schema of flow files (`schemas/flow.schema.json`), generated from the types below
//! (schemars) and the tool catalog: the file's shape, the step options and control steps come
//! from these types; each tool step's parameters are the tool's own input schema. Editors use
//! it through `# yaml-language-server: $schema=…`; a test fails when the committed file drifts.
//!
//! These types only describe the format for editors; the parser (`flow::parse`) is what reads
//! flows, with positions, and is stricter where a schema cannot say enough.

#![allow(
    dead_code,
    reason = "fields exist to be described by schemars, never read"
)]

use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::{Map, Value, json};

use super::catalog::ToolCatalog;

/// A tapflow flow: steps run in order on one device, with hooks that run on failure and always.
#[derive(JsonSchema)]
#[schemars(title = "tapflow flow", deny_unknown_fields)]
struct FlowFile {
    /// Display name in reports (default: the file name).
    name: Option<String>,
    /// The app's bundle name; needed by `clean_state`.
    app: Option<String>,
    /// Tags for selecting flows (`tapflow run --tag`).
    tags: Option<Vec<String>>,
    /// Variables (`{{ NAME }}`) with their defaults; `--env NAME=…` and `TAPFLOW_NAME` override.
    env: Option<BTreeMap<String, EnvValue>>,
    /// Budget of the whole flow: milliseconds or a duration such as "2m".
    timeout: Option<DurationValue>,
    /// Default deadline of each step: milliseconds or a duration such as "30s".
    step_timeout: Option<DurationValue>,
    /// Start from a clean state: stop the app, clear its data, launch it.
    clean_state: Option<bool>,
    /// Steps run when a step fails (before `finally`).
    on_failure: Option<Vec<StepRef>>,
    /// Steps that always run at the end, even after a failure.
    finally: Option<Vec<StepRef>>,
    /// The steps, in order.
    steps: Vec<StepRef>,
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

#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
struct EnvSettings {
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

/// Options any step may carry beside its tool.
#[derive(JsonSchema)]
struct StepOptions {
    /// Text shown in output and reports instead of the step's description.
    label: Option<String>,
    /// Wall-clock budget of one attempt.
    deadline: Option<DurationValue>,
    /// Retries of this step on failure: a count, or count and delay.
    retries: Option<RetriesValue>,
    /// A failure of this step is reported as a warning and the flow goes on.
    optional: Option<bool>,
    /// Run the step only when the condition holds.
    when: Option<Condition>,
    /// Keep the result for later steps as `{{ steps.NAME.result.FIELD }}`.
    keep: Option<String>,
    /// Assertions on result fields: `field: value` or `field: {gte: 1}`.
    expect: Option<BTreeMap<String, Value>>,
}

#[derive(JsonSchema)]
#[serde(untagged)]
enum RetriesValue {
    Count(u8),
    Settings(RetriesSettings),
}

#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
struct RetriesSettings {
    count: u8,
    delay: Option<DurationValue>,
}

/// All present parts must hold.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
struct Condition {
    platform: Option<Platform>,
    /// An element that must be visible (its text, or selector parameters).
    visible: Option<Value>,
    /// An element that must not be visible.
    not_visible: Option<Value>,
    /// A variable or kept result (`steps.NAME.result.FIELD`) to compare.
    var: Option<String>,
    equals: Option<Value>,
    not_equals: Option<Value>,
    #[serde(rename = "in")]
    in_: Option<Vec<Value>>,
}

#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Platform {
    Harmonyos,
    Android,
    Ios,
}

/// Runs another flow file, or inline steps, with extra variables.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
struct RunFlow {
    file: Option<String>,
    steps: Option<Vec<StepRef>>,
    env: Option<BTreeMap<String, String>>,
}

/// Repeats steps `times` times and/or while a condition holds.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
struct Repeat {
    times: Option<Value>,
    #[serde(rename = "while")]
    while_: Option<Condition>,
    steps: Vec<StepRef>,
}

/// Runs steps again, up to `times` more times, when one of them fails.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
struct Retry {
    times: Option<u8>,
    delay: Option<DurationValue>,
    steps: Vec<StepRef>,
}

/// A step (defined in `$defs/Step`, built from the tool catalog).
struct StepRef;

impl JsonSchema for StepRef {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "StepRef".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"$ref": "#/$defs/Step"})
    }

    fn inline_schema() -> bool {
        true
    }
}

/// Builds the flow schema for a catalog.
pub fn flow_schema(catalog: &dyn ToolCatalog) -> Value {
    let mut generator = SchemaGenerator::default();
    let mut root: Value = generator.root_schema_for::<FlowFile>().to_value();
    let options = generator.subschema_for::<StepOptions>().to_value();
    // Control-step bodies, referenced by name from the step variants below.
    for body in [
        generator.subschema_for::<RunFlow>(),
        generator.subschema_for::<Repeat>(),
        generator.subschema_for::<Retry>(),
    ] {
        let _ = body;
    }
    let mut defs: Map<String, Value> = root
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for (name, schema) in generator.take_definitions(true) {
        defs.entry(name).or_insert(schema);
    }
    let option_props = resolve_local(&options, &defs)
        .get("properties")
        .cloned()
        .unwrap_or_else(|| json!({}));
    let run_level = catalog.run_level_params();

    let mut variants = Vec::new();
    let mut bare = Vec::new();
    for tool in catalog.tool_names() {
        let Some(input) = catalog.input_schema(tool) else {
            continue;
        };
        let def_name = format!("tool.{tool}");
        let params = tool_params(tool, input, &run_level, &mut defs);
        defs.insert(def_name.clone(), params);
        let mut forms = vec![
            json!({"$ref": format!("#/$defs/{def_name}")}),
            json!({"type": "null"}),
        ];
        if catalog.scalar_shorthand(tool).is_some() {
            forms.insert(0, json!({"type": ["string", "number", "boolean"]}));
        }
        let required: Vec<&str> = input
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if required.is_empty() {
            bare.push(tool.to_string());
        }
        variants.push(step_variant(
            tool,
            json!({"anyOf": forms}),
            &option_props,
            input.get("description"),
        ));
    }
    let selector = json!({"anyOf": [{"type": ["string", "number"]}, {"type": "object"}]});
    for (name, body, doc) in [
        (
            "run_flow",
            json!({"anyOf": [{"type": "string"}, {"$ref": "#/$defs/RunFlow"}]}),
            "Run a sub-flow file (path relative to this file) or inline steps.",
        ),
        (
            "repeat",
            json!({"$ref": "#/$defs/Repeat"}),
            "Repeat steps a number of times and/or while a condition holds.",
        ),
        (
            "retry",
            json!({"$ref": "#/$defs/Retry"}),
            "Run steps again when one of them fails.",
        ),
        (
            "assert_visible",
            selector.clone(),
            "Fail unless the element appears (wait_for_element, state found).",
        ),
        (
            "assert_not_visible",
            selector,
            "Fail unless the element is gone (wait_for_element, state gone).",
        ),
    ] {
        variants.push(step_variant(name, body, &option_props, Some(&json!(doc))));
    }
    variants.insert(0, json!({"type": "string", "enum": bare, "description": "A tool with no required parameters, without arguments."}));
    defs.insert("Step".into(), json!({"description": "One step: a tool by name with its parameters, or a control step, plus options.", "anyOf": variants}));
    root["$defs"] = Value::Object(defs);
    root["$id"] = json!("https://tapflow.dev/schemas/flow.schema.json");
    root
}

fn step_variant(name: &str, body: Value, option_props: &Value, doc: Option<&Value>) -> Value {
    let mut props = option_props.as_object().cloned().unwrap_or_default();
    let mut body = body;
    if let Some(d) = doc {
        body["description"] = d.clone();
    }
    props.insert(name.to_string(), body);
    json!({
        "type": "object",
        "properties": props,
        "required": [name],
        "additionalProperties": false
    })
}

fn resolve_local<'v>(schema: &'v Value, defs: &'v Map<String, Value>) -> &'v Value {
    match schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
    {
        Some(name) => defs.get(name).unwrap_or(schema),
        None => schema,
    }
}

/// A tool's input schema embedded under `$defs/tool.<name>`: its own `$defs` hoisted (renamed
/// `tool.<name>.<Def>`), run-level parameters removed.
fn tool_params(
    tool: &str,
    input: &Value,
    run_level: &[&str],
    defs: &mut Map<String, Value>,
) -> Value {
    let mut schema = input.clone();
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("$schema");
        if let Some(Value::Object(own)) = obj.remove("$defs") {
            for (name, d) in own {
                let mut d = d;
                rewrite_refs(&mut d, tool);
                defs.insert(format!("tool.{tool}.{name}"), d);
            }
        }
        if let Some(Value::Object(props)) = obj.get_mut("properties") {
            for p in run_level {
                props.remove(*p);
            }
        }
    }
    rewrite_refs(&mut schema, tool);
    schema
}

fn rewrite_refs(v: &mut Value, tool: &str) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get_mut("$ref")
                && let Some(name) = r.strip_prefix("#/$defs/")
            {
                *r = format!("#/$defs/tool.{tool}.{name}");
            }
            m.values_mut().for_each(|x| rewrite_refs(x, tool));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| rewrite_refs(x, tool)),
        _ => {}
    }
}
