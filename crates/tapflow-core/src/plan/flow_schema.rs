//! The JSON Schema of flow files (`schemas/flow.schema.json`), generated from the one
//! description of the format (`flow::format`: the file, step options, control steps,
//! conditions, with their doc comments) and from the tool catalog (every tool as a step, its
//! parameters being the tool's own input schema, its description the tool's). Editors use it
//! through `# yaml-language-server: $schema=…`; a test fails when the committed file drifts
//! (`TAPFLOW_BLESS=1 cargo test -p tapflow-tools --test flow` regenerates it), and a third-party
//! validator checks the example flows against it (`crates/tapflow-tools/tests/flow/schema.rs`).
//!
//! What a flow may write differs from a bare tool call in the ways `tapflow validate` allows,
//! and the schema says so: a plain YAML scalar is accepted where a tool expects a string (it
//! keeps its source text), any value may be a `{{ … }}` reference known only at run time, a
//! parameter may be null (not given), and `device_id`/`hdc_server` are the run's, not the
//! flow's.

use schemars::SchemaGenerator;
use serde_json::{Map, Value, json};

use super::catalog::ToolCatalog;
use super::compile::ASSERT_TOOL;
use crate::flow::format::{ControlSteps, FlowFile, StepOptions, TEMPLATE_PATTERN};

/// Where the published schema lives (its `$id`).
pub const SCHEMA_ID: &str = "https://tapflow.dev/schemas/flow.schema.json";

/// Builds the flow schema for a catalog.
pub fn flow_schema(catalog: &dyn ToolCatalog) -> Value {
    let mut generator = SchemaGenerator::default();
    let mut flow = generator.root_schema_for::<FlowFile>().to_value();
    let options = generator.subschema_for::<StepOptions>().to_value();
    let control = generator.subschema_for::<ControlSteps>().to_value();
    let mut defs: Map<String, Value> = match flow.as_object_mut().and_then(|o| o.remove("$defs")) {
        Some(Value::Object(d)) => d,
        _ => Map::new(),
    };
    for (name, schema) in generator.take_definitions(true) {
        defs.entry(name).or_insert(schema);
    }
    if let Some(o) = flow.as_object_mut() {
        o.remove("$schema");
        o.remove("title");
    }
    let option_props = properties(resolve_local(&options, &defs));
    let control_props = properties(resolve_local(&control, &defs));
    defs.remove("StepOptions");
    defs.remove("ControlSteps");
    let run_level = catalog.run_level_params();

    let mut variants = Vec::new();
    let mut bare = Vec::new();
    for tool in catalog.tool_names() {
        let Some(input) = catalog.input_schema(tool) else {
            continue;
        };
        let def_name = format!("tool.{tool}");
        let params = tool_params(tool, input, &run_level, &[], &mut defs);
        let shorthand = catalog
            .scalar_shorthand(tool)
            .and_then(|p| params["properties"].get(p).map(|s| (p, s.clone())));
        defs.insert(def_name.clone(), params);
        // A tool that needs nothing may be written bare (`- screenshot`) or with no value.
        let needs_nothing = catalog
            .check_static(tool, &catalog.defaults(tool))
            .is_empty();
        let mut forms = vec![json!({"$ref": format!("#/$defs/{def_name}")})];
        if needs_nothing {
            bare.push(tool.to_string());
            forms.push(json!({"type": "null"}));
        }
        let mut doc = catalog.description(tool).unwrap_or_default().to_string();
        if let Some((param, scalar)) = shorthand {
            forms.insert(0, scalar_only(&scalar));
            doc.push_str(&format!(" A bare value is its `{param}`."));
        }
        variants.push(step_variant(
            tool,
            json!({"anyOf": forms}),
            &option_props,
            &doc,
        ));
    }
    for (name, body) in &control_props {
        let doc = body
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        variants.push(step_variant(name, body.clone(), &option_props, &doc));
    }
    variants.insert(
        0,
        json!({"type": "string", "enum": bare, "description": "A tool that needs no parameters, without arguments."}),
    );
    defs.insert(
        "Step".into(),
        json!({"description": "One step: a tool by name with its parameters, or a control step, plus options.", "anyOf": variants}),
    );
    let element = element(catalog, &run_level, &mut defs);
    defs.insert("Element".into(), element);
    defs.insert("Flow".into(), flow);
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "tapflow flow",
        "description": "A tapflow flow file: a mapping with `steps` (and a name, variables, hooks, …), or just a list of steps (a sub-flow).",
        "anyOf": [
            {"$ref": "#/$defs/Flow"},
            {"type": "array", "items": {"$ref": "#/$defs/Step"}}
        ],
        "$defs": defs
    })
}

/// What `assert_visible`, `assert_not_visible` and conditions look for: the assertion tool's
/// parameters (without `state`, which the assertion sets), or its shorthand scalar.
fn element(catalog: &dyn ToolCatalog, run_level: &[&str], defs: &mut Map<String, Value>) -> Value {
    let Some(input) = catalog.input_schema(ASSERT_TOOL) else {
        return json!({"description": "An element (no assertion tool in this catalog)."});
    };
    let params = tool_params("element", input, run_level, &["state"], defs);
    let mut forms = vec![params.clone()];
    if let Some(s) = catalog
        .scalar_shorthand(ASSERT_TOOL)
        .and_then(|p| params["properties"].get(p))
    {
        forms.insert(0, scalar_only(s));
    }
    json!({
        "description": format!("An element: its text, or the parameters of `{ASSERT_TOOL}` (without `state`)."),
        "anyOf": forms
    })
}

fn properties(schema: &Value) -> Map<String, Value> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

fn step_variant(name: &str, body: Value, option_props: &Map<String, Value>, doc: &str) -> Value {
    let mut props = option_props.clone();
    let mut body = body;
    if !doc.is_empty() {
        body["description"] = json!(doc);
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

/// A tool's input schema as a flow writes it, for `$defs/tool.<name>`: its own `$defs`
/// hoisted (renamed `tool.<name>.<Def>`), run-level and `dropped` parameters removed, every
/// parameter widened the way validate reads YAML ([`flow_value`]) and nullable.
fn tool_params(
    tool: &str,
    input: &Value,
    run_level: &[&str],
    dropped: &[&str],
    defs: &mut Map<String, Value>,
) -> Value {
    let mut schema = input.clone();
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("$schema");
        obj.remove("title");
        if let Some(Value::Object(own)) = obj.remove("$defs") {
            for (name, d) in own {
                let mut d = flow_value(&d);
                rewrite_refs(&mut d, tool);
                defs.insert(format!("tool.{tool}.{name}"), d);
            }
        }
        if let Some(Value::Object(props)) = obj.get_mut("properties") {
            for p in run_level.iter().chain(dropped) {
                props.remove(*p);
            }
            for v in props.values_mut() {
                *v = json!({"anyOf": [flow_value(v), {"type": "null"}]});
            }
        }
        if let Some(Value::Array(req)) = obj.get_mut("required") {
            req.retain(|r| !dropped.iter().any(|d| r == d));
        }
    }
    rewrite_refs(&mut schema, tool);
    schema
}

fn types_of(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// A parameter schema as a flow may write the value: a plain scalar where a string is
/// expected (YAML `007`, `true` keep their text), a `{{ … }}` reference anywhere, and
/// schemars' integer formats (`int32`, …) spelled out as bounds.
pub fn flow_value(schema: &Value) -> Value {
    let Some(obj) = schema.as_object() else {
        return schema.clone();
    };
    let mut out = obj.clone();
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = out.get_mut(key) {
            for b in branches.iter_mut() {
                *b = flow_value(b);
            }
        }
    }
    if let Some(Value::Object(props)) = out.get_mut("properties") {
        for v in props.values_mut() {
            *v = flow_value(v);
        }
    }
    if let Some(items) = out.get_mut("items") {
        *items = flow_value(items);
    }
    if let Some((min, max)) = out
        .get("format")
        .and_then(Value::as_str)
        .and_then(integer_bounds)
    {
        out.entry("minimum").or_insert(json!(min));
        out.entry("maximum").or_insert(json!(max));
    }
    let types: Vec<String> = types_of(&Value::Object(out.clone()))
        .into_iter()
        .map(str::to_string)
        .collect();
    let enumerated = out.contains_key("enum") || out.contains_key("const");
    if types.iter().any(|t| t == "string") && !enumerated {
        // Any plain string, hence any template; YAML scalars read as their text.
        let mut widened = types.clone();
        for t in ["number", "boolean"] {
            if !widened.iter().any(|x| x == t) {
                widened.push(t.to_string());
            }
        }
        out.insert("type".into(), json!(widened));
        return Value::Object(out);
    }
    if out.is_empty() {
        return Value::Object(out);
    }
    json!({"anyOf": [Value::Object(out), template()]})
}

/// A string holding a run-time reference.
fn template() -> Value {
    json!({"type": "string", "pattern": TEMPLATE_PATTERN, "description": "A `{{ … }}` reference, resolved when the step runs."})
}

/// The scalar forms of a shorthand parameter's (already widened) schema.
fn scalar_only(schema: &Value) -> Value {
    // `anyOf: [value, null]` from `tool_params`: the value part.
    let value = schema
        .get("anyOf")
        .and_then(Value::as_array)
        .and_then(|b| b.first())
        .unwrap_or(schema);
    json!({"allOf": [value, {"type": ["string", "number", "integer", "boolean"]}]})
}

/// Bounds of schemars' integer formats that JSON numbers can hold exactly.
fn integer_bounds(format: &str) -> Option<(i64, i64)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        _ => return None,
    })
}

fn rewrite_refs(v: &mut Value, tool: &str) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get_mut("$ref")
                && let Some(name) = r.strip_prefix("#/$defs/")
                && !name.starts_with("tool.")
            {
                *r = format!("#/$defs/tool.{tool}.{name}");
            }
            m.values_mut().for_each(|x| rewrite_refs(x, tool));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| rewrite_refs(x, tool)),
        _ => {}
    }
}
