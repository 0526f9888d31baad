//! The schemas `tools/list` publishes, sized for a model's context and for every client's
//! validator. The registry keeps each tool's *exact* schemas (flat, nullable, with schemars'
//! integer formats) for its own validator, the flow compiler and the docs; what it publishes is
//! derived from the same Rust types with four changes that never widen what a call may send:
//!
//! - a type used more than once in one schema (a selector anchor, an element handle) is written
//!   once under `$defs` and referenced (`$ref`); one used once, or too small to be worth a
//!   reference, is inlined;
//! - optional parameters are simply not `required`: `null` is left out of their types, enums
//!   and `anyOf`s (the engine still takes `null` as "not given", `decode`);
//! - schemars' non-standard formats go: an integer width becomes `minimum`/`maximum` (the
//!   64- and 32-bit bounds only as `minimum: 0` for unsigned, since the engine checks widths);
//! - vendor annotations (`x-…`) go; a form still accepted but marked `deprecated` in an
//!   `anyOf` is not advertised.
//!
//! Output schemas keep `null` (a result field written as `null` is a value there) and lose
//! their descriptions (no host shows them to a model; docs/tools.md documents the fields).

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// Formats JSON Schema defines; any other (`int32`, `uint`, `double`, …) is dropped.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "uuid",
    "regex",
];

/// The published input schema of `T`: named `$defs` for types used more than once.
pub fn input_of<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12().into_generator();
    let mut v = generator.into_root_schema_for::<T>().to_value();
    if let Value::Object(o) = &mut v {
        // The parameter struct's own doc (or a flattened one's) says nothing to a model that
        // the tool's description does not; a defined type's is repeated by every property
        // that uses it.
        o.remove("$schema");
        o.remove("title");
        o.remove("description");
        if let Some(Value::Object(defs)) = o.get_mut("$defs") {
            for d in defs.values_mut().filter_map(Value::as_object_mut) {
                d.remove("description");
            }
        }
    }
    compact(&mut v, Side::Input);
    inline_cheap_defs(&mut v);
    v
}

/// Makes an already built schema (an input with the registry's own parameters, an MCP-only
/// parameter) publishable in place.
pub fn compact_input(schema: &mut Value) {
    compact(schema, Side::Input);
}

/// The published form of an output schema (flat already): formats and descriptions dropped,
/// and anything nested deeper than [`OUTPUT_DEPTH`] objects and arrays reduced to its type.
pub fn compact_output(schema: &mut Value) {
    compact(schema, Side::Output);
    prune(schema, 0);
}

/// The published output schema of a tool: its envelope ([`crate::envelope::structured_schema`])
/// compacted, with the frame every tool shares (`error`, `meta`) stated by its required fields
/// only — seventeen copies of the same nested keywords describe nothing new.
pub fn envelope_output(mut envelope: Value) -> Value {
    compact_output(&mut envelope);
    if let Some(p) = envelope
        .get_mut("properties")
        .and_then(Value::as_object_mut)
    {
        for (field, required) in [
            ("error", &["code", "message", "details"][..]),
            ("meta", &["request_id", "timestamp", "duration_ms"][..]),
        ] {
            let nullable = field == "error";
            let ty = if nullable {
                serde_json::json!(["object", "null"])
            } else {
                serde_json::json!("object")
            };
            p.insert(
                field.into(),
                serde_json::json!({ "type": ty, "required": required }),
            );
        }
    }
    envelope
}

/// How deep a published output schema describes a result: the envelope (0), the result (1), its
/// fields (2), by type. Below, nothing more: no host shows output schemas to a model, while
/// every client that validates `structuredContent` pays for each keyword on every call (the
/// Python SDK 1.x compiles the schema each time: about 6 ms of client CPU per KB of schema,
/// docs/benchmarks.md). docs/tools.md documents the whole shapes.
pub const OUTPUT_DEPTH: usize = 2;

fn prune(v: &mut Value, depth: usize) {
    let Value::Object(o) = v else { return };
    if depth > OUTPUT_DEPTH {
        o.retain(|k, _| k == "type");
        return;
    }
    for (k, x) in o.iter_mut() {
        match (k.as_str(), x) {
            ("properties", Value::Object(m)) => m.values_mut().for_each(|s| prune(s, depth + 1)),
            ("items" | "additionalProperties", x) => prune(x, depth + 1),
            ("anyOf" | "oneOf" | "allOf", Value::Array(a)) => {
                a.iter_mut().for_each(|s| prune(s, depth))
            }
            _ => {}
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Input,
    Output,
}

fn is_null_schema(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("null")
        && v.as_object().is_some_and(|o| o.len() == 1)
}

fn compact(v: &mut Value, side: Side) {
    match v {
        Value::Array(a) => a.iter_mut().for_each(|x| compact(x, side)),
        Value::Object(o) => {
            compact_object(o, side);
            for (k, x) in o.iter_mut() {
                match (k.as_str(), x) {
                    // Schemas by name: each value is a schema (a property may be *named*
                    // `description` or `x-…`).
                    ("properties" | "$defs" | "patternProperties", Value::Object(m)) => {
                        m.values_mut().for_each(|s| compact(s, side))
                    }
                    // Values, not schemas.
                    ("enum" | "const" | "default" | "examples", _) => {}
                    (_, x) => compact(x, side),
                }
            }
        }
        _ => {}
    }
}

fn compact_object(o: &mut Map<String, Value>, side: Side) {
    o.retain(|k, _| !k.starts_with("x-"));
    if side == Side::Output {
        o.remove("description");
    }
    if let Some(format) = o.get("format").and_then(Value::as_str).map(str::to_string)
        && !STANDARD_FORMATS.contains(&format.as_str())
    {
        o.remove("format");
        if let Some((min, max)) = tapflow_core::schema::integer_range(&format) {
            if !o.contains_key("minimum") && min == 0 {
                o.insert("minimum".into(), Value::from(0));
            }
            // Only narrow widths are worth stating; wider ones the engine checks itself.
            if max <= i128::from(u16::MAX) && !o.contains_key("maximum") {
                o.insert("maximum".into(), Value::from(max as i64));
            }
            if min < 0 && min >= i128::from(i16::MIN) && !o.contains_key("minimum") {
                o.insert("minimum".into(), Value::from(min as i64));
            }
        }
    }
    if o.contains_key("enum") {
        // The values say it all.
        o.remove("minimum");
        o.remove("maximum");
    }
    if side == Side::Output {
        return;
    }
    // A `null` default says "absent" — what leaving it out says.
    if o.get("default") == Some(&Value::Null) {
        o.remove("default");
    }
    // `type: [X, "null"]` → `type: X`.
    if let Some(Value::Array(types)) = o.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let t = types.remove(0);
            o.insert("type".into(), t);
        }
    }
    if let Some(Value::Array(values)) = o.get_mut("enum") {
        values.retain(|x| !x.is_null());
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = o.get_mut(key) else {
            continue;
        };
        branches.retain(|b| !is_null_schema(b) && b.get("deprecated") != Some(&Value::Bool(true)));
        if branches.len() == 1 {
            // One branch left: it is the schema (the property's own keywords win).
            let Value::Object(only) = branches.remove(0) else {
                continue;
            };
            o.remove(key);
            for (k, x) in only {
                o.entry(k).or_insert(x);
            }
        }
    }
}

/// Inlines each `$defs` entry whose references cost more than its body repeated (used once,
/// or tiny), until none is left to inline; drops `$defs` when empty.
fn inline_cheap_defs(root: &mut Value) {
    loop {
        let Some(defs) = root.get("$defs").and_then(Value::as_object).cloned() else {
            return;
        };
        let mut uses = std::collections::HashMap::<String, usize>::new();
        count_refs(root, &mut uses);
        let cheap = defs.iter().find(|(name, body)| {
            let n = uses.get(*name).copied().unwrap_or(0);
            let text = body.to_string();
            let target = format!("\"#/$defs/{name}\"");
            // A recursive type stays defined (inlining it would never end).
            let recursive = text.contains(&target);
            let ref_len = target.len() + 10;
            !recursive && (n <= 1 || n * text.len() <= text.len() + n * ref_len + name.len() + 4)
        });
        let Some((name, body)) = cheap else {
            return;
        };
        let name = name.clone();
        let target = format!("#/$defs/{name}");
        let body = body.clone();
        if let Some(o) = root.as_object_mut() {
            let emptied = match o.get_mut("$defs") {
                Some(Value::Object(d)) => {
                    d.remove(name.as_str());
                    d.is_empty()
                }
                _ => false,
            };
            if emptied {
                o.remove("$defs");
            }
        }
        replace_refs(root, &target, &body);
    }
}

fn count_refs(v: &Value, uses: &mut std::collections::HashMap<String, usize>) {
    match v {
        Value::Object(o) => {
            if let Some(r) = o.get("$ref").and_then(Value::as_str)
                && let Some(name) = r.strip_prefix("#/$defs/")
            {
                *uses.entry(name.to_string()).or_default() += 1;
            }
            o.values().for_each(|x| count_refs(x, uses));
        }
        Value::Array(a) => a.iter().for_each(|x| count_refs(x, uses)),
        _ => {}
    }
}

fn replace_refs(v: &mut Value, target: &str, body: &Value) {
    match v {
        Value::Object(o) => {
            if o.get("$ref").and_then(Value::as_str) == Some(target) {
                o.remove("$ref");
                if let Value::Object(b) = body {
                    for (k, x) in b {
                        o.entry(k.clone()).or_insert_with(|| x.clone());
                    }
                }
            }
            o.values_mut().for_each(|x| replace_refs(x, target, body));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| replace_refs(x, target, body)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nulls_formats_and_vendor_keys_leave_the_published_input() {
        let mut s = json!({
            "type": "object",
            "properties": {
                "a": {"type": ["integer", "null"], "format": "uint8", "x-tapflow-extension": true},
                "m": {"type": ["string", "null"], "enum": ["x", "y", null]},
                "o": {"anyOf": [{"type": "object", "properties": {"description": {"type": "string"}}}, {"type": "null"}], "description": "kept"},
                "e": {"anyOf": [{"type": "array"}, {"type": "object", "deprecated": true}]},
                "i": {"type": "integer", "format": "int64"}
            }
        });
        compact_input(&mut s);
        let p = &s["properties"];
        assert_eq!(
            p["a"],
            json!({"type": "integer", "minimum": 0, "maximum": 255})
        );
        assert_eq!(p["m"], json!({"type": "string", "enum": ["x", "y"]}));
        assert_eq!(p["o"]["description"], "kept");
        assert_eq!(
            p["o"]["properties"]["description"],
            json!({"type": "string"})
        );
        assert!(p["o"].get("anyOf").is_none());
        assert_eq!(p["e"], json!({"type": "array"}));
        assert_eq!(p["i"], json!({"type": "integer"}));
    }

    #[test]
    fn outputs_keep_null_and_lose_descriptions_and_depth() {
        let mut s = json!({"type": "object", "description": "d", "properties": {
            "description": {"type": ["string", "null"], "description": "x"},
            "n": {"type": "integer", "format": "uint", "minimum": 0},
            "r": {"anyOf": [{"type": "object", "required": ["list"], "properties": {"list": {"type": "array", "items": {
                "type": "object", "required": ["deep"],
                "properties": {"deep": {"type": "object", "properties": {"x": {"type": "string"}}}}
            }}}}, {"type": "null"}]}
        }});
        compact_output(&mut s);
        assert_eq!(
            s,
            json!({"type": "object", "properties": {
                "description": {"type": ["string", "null"]},
                "n": {"type": "integer", "minimum": 0},
                "r": {"anyOf": [{"type": "object", "required": ["list"], "properties": {
                    "list": {"type": "array", "items": {"type": "object"}}
                }}, {"type": "null"}]}
            }})
        );
    }

    #[test]
    fn a_type_used_twice_is_defined_once_and_one_used_once_is_inlined() {
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        struct Anchor {
            /// The anchor's text, long enough to be worth a reference.
            text: Option<String>,
            /// The anchor's id, long enough to be worth a reference.
            id: Option<String>,
        }
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        struct Once {
            n: u32,
        }
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        struct P {
            /// Below.
            below: Option<Anchor>,
            /// Above.
            above: Option<Anchor>,
            once: Once,
        }
        let s = input_of::<P>();
        assert_eq!(s["properties"]["below"]["$ref"], "#/$defs/Anchor");
        assert_eq!(s["properties"]["above"]["description"], "Above.");
        assert!(s["$defs"].get("Once").is_none(), "{s:#}");
        assert_eq!(s["properties"]["once"]["properties"]["n"]["minimum"], 0);
        assert_eq!(s["$defs"]["Anchor"]["properties"]["text"]["type"], "string");
    }
}
