//! The tool reference in Markdown, generated from the registry (names, descriptions, policies,
//! parameters with types, defaults and enumerations, result fields), so the documentation can
//! never drift from the code: `docs/tools.md` embeds it and a test compares.

use serde_json::Value;

use crate::registry::{Engine, ToolDef};

/// Markers around the generated block in `docs/tools.md`.
pub const BEGIN: &str = "<!-- BEGIN GENERATED TOOL REFERENCE (tapflow tools --markdown) -->";
pub const END: &str = "<!-- END GENERATED TOOL REFERENCE -->";

/// Parameters a front end adds to a tool's own (MCP's `response_level`): name and schema.
pub type Extras<'a> = &'a dyn Fn(&ToolDef) -> Vec<(&'static str, Value)>;

/// The reference of every tool in `engine`, in registry order.
pub fn markdown(engine: &Engine) -> String {
    markdown_with(engine, &|_| Vec::new())
}

/// [`markdown`] with the parameters `extras` adds to each tool, in its table (marked
/// "MCP only" in their description).
pub fn markdown_with(engine: &Engine, extras: Extras<'_>) -> String {
    let mut out = String::new();
    for t in engine.tools() {
        tool(&mut out, t, extras);
    }
    out
}

fn tool(out: &mut String, t: &ToolDef, extras: Extras<'_>) {
    let p = t.policy;
    let risk = serde_json::to_value(p.risk)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    out.push_str(&format!("### `{}`\n\n{}\n\n", t.name, t.description));
    out.push_str(&format!(
        "Policy: risk `{risk}`, mutates device: {}, writes host files: {}, executes host code: {}, needs approval: {}.\n\n",
        yes(p.mutates_device),
        yes(p.writes_host_files),
        yes(p.executes_host_code),
        yes(p.needs_approval)
    ));
    let schema = t.input_schema();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    out.push_str(
        "| parameter | type | required | default | description |\n|---|---|---|---|---|\n",
    );
    let added: Vec<(String, Value)> = extras(t)
        .into_iter()
        .map(|(name, mut prop)| {
            let what = prop["description"].as_str().unwrap_or("").to_string();
            prop["description"] = Value::String(format!("MCP only: {what}"));
            (name.to_string(), prop)
        })
        .collect();
    let own = schema["properties"].as_object().into_iter().flatten();
    for (name, prop) in own.chain(added.iter().map(|(n, p)| (n, p))) {
        out.push_str(&format!(
            "| `{name}` | {} | {} | {} | {} |\n",
            type_of(prop),
            if required.contains(&name.as_str()) {
                "yes"
            } else {
                "no"
            },
            prop.get("default")
                .map(|d| format!("`{d}`"))
                .unwrap_or_else(|| "—".into()),
            cell(
                prop.get("description")
                    .and_then(Value::as_str)
                    .unwrap_or("")
            )
        ));
    }
    let fields: Vec<String> = t.result_schema()["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, _)| format!("`{k}`"))
        .collect();
    out.push_str(&format!("\nResult fields: {}.\n", fields.join(", ")));
    let mut flows = Vec::new();
    if let Some(p) = t.flow.shorthand {
        flows.push(format!("a bare value fills `{p}` (`{}: …`)", t.name));
    }
    let others: Vec<String> = t
        .flow
        .known_as
        .iter()
        .map(|(n, note)| match *note {
            "" => format!("`{n}`"),
            note => format!("`{n}` ({note})"),
        })
        .collect();
    if !others.is_empty() {
        flows.push(format!("other runners call it {}", others.join(", ")));
    }
    if !flows.is_empty() {
        out.push_str(&format!("\nIn flows: {}.\n", flows.join("; ")));
    }
    out.push('\n');
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// A short type description: `string`, `integer`, `"found" \| "gone"`, `string or integer`, …
fn type_of(prop: &Value) -> String {
    if let Some(values) = prop.get("enum").and_then(Value::as_array) {
        let vs: Vec<String> = values
            .iter()
            .filter(|v| !v.is_null())
            .map(|v| format!("`{v}`"))
            .collect();
        return vs.join(" \\| ");
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = prop.get(key).and_then(Value::as_array) {
            let parts: Vec<String> = branches
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"))
                .map(type_of)
                .collect();
            return parts.join(" or ");
        }
    }
    match prop.get("type") {
        Some(Value::String(t)) => array_of(t, prop),
        Some(Value::Array(ts)) => {
            let parts: Vec<String> = ts
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null")
                .map(|t| array_of(t, prop))
                .collect();
            parts.join(" or ")
        }
        _ => "any".into(),
    }
}

fn array_of(t: &str, prop: &Value) -> String {
    match (t, prop.get("items")) {
        ("array", Some(items)) => format!("array of {}", type_of(items)),
        _ => t.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_lists_every_tool_with_typed_parameters() {
        let md = markdown(&Engine::new());
        assert!(md.contains("### `wait_for_element`"));
        assert!(md.contains("| `state` | `\"found\"` \\| `\"gone\"` | no | `\"found\"` |"));
        assert!(md.contains("| `key` | integer or string | yes |"));
        assert!(md.contains(
            "| `modifiers` | array of `\"Ctrl\"` \\| `\"Alt\"` \\| `\"Shift\"` \\| `\"Meta\"` |"
        ));
    }
}
