//! The schemas a tool publishes: its parameter and result types as flat JSON Schemas (no
//! `$ref`), with the parameters and result fields the registry adds to every tool.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use super::Routing;

/// A type's schema as input (what deserialises), inlined (no `$ref`; MCP clients handle flat
/// schemas best).
pub fn schema_of<T: JsonSchema>() -> Value {
    flat_schema::<T>(SchemaSettings::draft2020_12())
}

/// A type's schema as output (what *serialises*), inlined: a field skipped when empty
/// (`skip_serializing_if`) is optional, a field always written (an `Option` as `null`
/// included) is required. MCP clients validate `structuredContent` against this.
pub fn result_schema_of<T: JsonSchema>() -> Value {
    flat_schema::<T>(SchemaSettings::draft2020_12().for_serialize())
}

fn flat_schema<T: JsonSchema>(settings: SchemaSettings) -> Value {
    let generator = settings
        .with(|s| {
            s.inline_subschemas = true;
        })
        .into_generator();
    let mut v = generator.into_root_schema_for::<T>().to_value();
    if let Value::Object(o) = &mut v {
        o.remove("$schema");
        o.remove("title");
    }
    v
}

fn props(schema: &mut Value) -> &mut Map<String, Value> {
    let obj = schema.as_object_mut().expect("tool schemas are objects");
    obj.entry("type").or_insert(json!("object"));
    obj.entry("properties")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .expect("properties is an object")
}

pub(super) fn add_common_inputs(
    schema: &mut Value,
    routing: Routing,
    verify: bool,
    required: &[&str],
) {
    let p = props(schema);
    if routing == Routing::Full {
        p.insert(
            "device_id".into(),
            json!({"type": ["string", "null"], "description": "Device serial; default: the only device."}),
        );
    }
    if routing != Routing::None {
        p.insert(
            "hdc_server".into(),
            json!({"type": ["string", "null"], "description": "Remote hdc server `IP:port`."}),
        );
    }
    if verify {
        p.insert(
            "verify".into(),
            json!({"type": ["boolean", "null"], "default": false, "description": "Add post-action evidence (tree digest, what changed)."}),
        );
    }
    p.insert(
        "include_cost".into(),
        json!({"type": ["boolean", "null"], "default": false, "description": "Add `cost` (wall_ms, device round trips, UI dumps) to the result."}),
    );
    let obj = schema.as_object_mut().expect("object");
    obj.insert("additionalProperties".into(), json!(false));
    if !required.is_empty() {
        obj.insert("required".into(), json!(required));
    } else {
        obj.remove("required");
    }
}

pub(super) fn add_common_outputs(schema: &mut Value, verify: bool) {
    let p = props(schema);
    if verify {
        p.insert(
            "evidence".into(),
            result_schema_of::<tapflow_device::ui::digest::Evidence>(),
        );
        p.insert(
            "evidence_error".into(),
            json!({"type": "string", "description": "Present with verify when the evidence could not be observed (the action itself was still dispatched)."}),
        );
    }
    p.insert(
        "cost".into(),
        json!({
            "type": "object",
            "description": "Present with include_cost: what the call spent.",
            "properties": {
                "wall_ms": {"type": "integer", "minimum": 0},
                "device_round_trips": {"type": "integer", "minimum": 0},
                "ui_dumps": {"type": "integer", "minimum": 0}
            },
            "required": ["wall_ms", "device_round_trips", "ui_dumps"]
        }),
    );
}
