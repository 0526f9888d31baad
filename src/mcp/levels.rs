//! `response_level` for tools that return trees, lists or bulky summaries: `default` is the
//! tool's own result (the reference contract, unchanged); `digest` is sized for a model's
//! context — counts plus the first [`DIGEST_ITEMS`] actionable elements (with their reusable
//! handles) or list entries, or a summary's essential fields; `full` is the default result plus
//! the call's cost accounting (`cost`: wall time, device round trips, UI dumps), i.e. everything
//! the server knows about the call. A tree's level is `digest` when none is asked for (as its
//! description says): a whole tree rarely fits a model's context.
//!
//! The digest is computed on the host from the result the tool returned: no extra round trip.

use serde_json::{Map, Value, json};

use tapflow_device::model::UiNode;
use tapflow_device::ui::handle_of;
use tapflow_device::ui::matching::{Match, window_nodes};
use tapflow_device::ui::selector::{Selector, TextMatch};
use tapflow_device::ui::windows::foreground_app;
use tapflow_tools::target::describe_all;
use tapflow_tools::{Digest, ToolError};

/// The argument name (stripped before the engine sees the arguments).
pub const PARAM: &str = "response_level";

/// Entries a digest keeps.
pub const DIGEST_ITEMS: usize = 25;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// The result summed up as its tool declares ([`Digest`]).
    Digest(Digest),
    Default,
    Full,
}

/// The level of a call that names none.
pub fn default_level(digest: Digest) -> Level {
    match digest {
        Digest::Tree => Level::Digest(digest),
        _ => Level::Default,
    }
}

fn level_name(level: Level) -> &'static str {
    match level {
        Level::Digest(_) => "digest",
        Level::Default => "default",
        Level::Full => "full",
    }
}

/// Reads (and removes) `response_level` from the arguments of a tool whose results are summed
/// up as `digest` says.
pub fn take(args: &mut Map<String, Value>, digest: Digest) -> Result<Level, ToolError> {
    match args.remove(PARAM) {
        None | Some(Value::Null) => Ok(default_level(digest)),
        Some(Value::String(s)) => match s.as_str() {
            "digest" => Ok(Level::Digest(digest)),
            "default" => Ok(Level::Default),
            "full" => Ok(Level::Full),
            other => Err(bad(&format!(
                "response_level `{other}` is not one of digest, default, full"
            ))),
        },
        Some(other) => Err(bad(&format!(
            "response_level must be a string (digest, default or full), not {other}"
        ))),
    }
}

fn bad(msg: &str) -> ToolError {
    ToolError::new(tapflow_core::codes::INVALID_PARAM, msg).with_details(json!({ "param": PARAM }))
}

/// The input-schema property.
pub fn param_schema(digest: Digest) -> Value {
    let what = match digest {
        Digest::Fields(_) => "`digest`: the essentials",
        _ => "`digest`: counts + first 25 entries with handles",
    };
    json!({
        "type": "string",
        "enum": ["digest", "default", "full"],
        "default": level_name(default_level(digest)),
        "description": format!("{what}; `default`: all; `full`: + cost.")
    })
}

/// The schema of a digest result (accepted beside the tool's own result schema).
pub fn digest_schema(digest: Digest) -> Value {
    if let Digest::Fields(_) = digest {
        return json!({
            "type": "object",
            "properties": { "response_level": { "type": "string", "const": "digest" } },
            "required": ["response_level"]
        });
    }
    json!({
        "type": "object",
        "description": "response_level=digest: counts and the first entries; call again with response_level=default for everything.",
        "properties": {
            "response_level": { "type": "string", "const": "digest" },
            "counts": { "type": "object", "additionalProperties": { "type": "integer", "minimum": 0 } },
            "first": { "type": "array", "items": { "type": "object" } },
            "omitted": { "type": "integer", "minimum": 0, "description": "Entries not shown." },
            "foreground_app": { "type": ["string", "null"] }
        },
        "required": ["response_level", "counts", "first", "omitted"]
    })
}

/// Turns a tool's result into its digest.
pub fn digest(how: Digest, result: &Value) -> Value {
    let (field, keep) = match how {
        Digest::Tree => return tree_digest(result),
        Digest::Fields(fields) => {
            let mut out = compact_entry(fields, result.clone());
            out["response_level"] = json!("digest");
            return out;
        }
        Digest::List { field, keep } => (field, keep),
    };
    let items: Vec<Value> = result
        .get(field)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let total = items.len();
    let first: Vec<Value> = items
        .into_iter()
        .take(DIGEST_ITEMS)
        .map(|v| compact_entry(keep, v))
        .collect();
    json!({
        "response_level": "digest",
        "counts": { field: total },
        "omitted": total - first.len(),
        "first": first,
    })
}

/// An entry with only the fields its tool keeps in a digest.
fn compact_entry(keep: &[&str], v: Value) -> Value {
    match v {
        Value::Object(o) if !keep.is_empty() => Value::Object(
            o.into_iter()
                .filter(|(k, _)| keep.contains(&k.as_str()))
                .collect(),
        ),
        other => other,
    }
}

const TEXT_INPUTS: &[&str] = &["TextInput", "TextArea", "Search", "SearchField"];

fn actionable(n: &UiNode) -> bool {
    ["clickable", "longClickable", "checkable", "scrollable"]
        .iter()
        .any(|f| n.flag(f))
        || TEXT_INPUTS.contains(&n.node_type())
}

fn tree_digest(result: &Value) -> Value {
    let tree: UiNode = match result
        .get("ui_tree")
        .cloned()
        .map(serde_json::from_value::<UiNode>)
    {
        Some(Ok(t)) => t,
        _ => {
            return json!({
                "response_level": "digest", "counts": {}, "first": [], "omitted": 0,
                "foreground_app": null
            });
        }
    };
    let windows = window_nodes(&tree);
    // Every visible actionable node, window by window in dump order.
    let mut hits: Vec<Match<'_>> = Vec::new();
    for (_, window) in &windows {
        let wid = window.window_id();
        let bundle = window.attr("bundleName");
        for node in window.walk() {
            if node.attr("visible") == "false" || !actionable(node) {
                continue;
            }
            let Some(bounds) = node.bounds().filter(|b| !b.is_empty()) else {
                continue;
            };
            hits.push(Match {
                node,
                window_id: node.window_id().or(wid),
                bundle,
                path: Vec::new(),
                bounds,
            });
        }
    }
    let mut first = Vec::new();
    for m in hits.iter().take(DIGEST_ITEMS) {
        let n = m.node;
        let (text, id, kind) = (n.text(), n.id(), n.node_type());
        // A handle whose lookup hint finds this element again (by id, else type + text).
        let sel = if !id.is_empty() {
            Selector::new(None, Some(kind.into()), Some(id.into()), TextMatch::Exact)
        } else if !text.is_empty() {
            Selector::new(Some(text.into()), Some(kind.into()), None, TextMatch::Exact)
        } else {
            Selector::new(None, Some(kind.into()), None, TextMatch::Exact)
        }
        .expect("exact selectors have no regex");
        let own = handle_of(m, sel.hint(None));
        let handle = describe_all(&tree, &sel)
            .into_iter()
            .find(|e| e.element_handle.compid == own.compid)
            .map(|e| e.element_handle)
            .unwrap_or(own);
        let mut entry = json!({
            "element_handle": handle,
            "type": kind,
            "center": m.bounds.center(),
        });
        if !text.is_empty() {
            entry["text"] = json!(text);
        }
        if !id.is_empty() {
            entry["id"] = json!(id);
        }
        for flag in ["clickable", "checkable", "scrollable", "focused", "checked"] {
            if n.flag(flag) {
                entry[flag] = json!(true);
            }
        }
        if n.attr("enabled") == "false" {
            entry["enabled"] = json!(false);
        }
        first.push(entry);
    }
    let nodes = result
        .get("node_count")
        .and_then(Value::as_u64)
        .unwrap_or(tree.node_count() as u64);
    json!({
        "response_level": "digest",
        "counts": { "nodes": nodes, "windows": windows.len(), "actionable": hits.len() },
        "omitted": hits.len() - first.len(),
        "first": first,
        "foreground_app": foreground_app(&tree),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_and_reject() {
        let mut a = Map::new();
        // A tree is summed up unless asked otherwise; a list is not.
        assert_eq!(
            take(&mut a, Digest::Tree).unwrap(),
            Level::Digest(Digest::Tree)
        );
        let list = Digest::List {
            field: "rows",
            keep: &[],
        };
        assert_eq!(take(&mut a, list).unwrap(), Level::Default);
        a.insert(PARAM.into(), json!("default"));
        assert_eq!(take(&mut a, Digest::Tree).unwrap(), Level::Default);
        a.insert(PARAM.into(), json!("digest"));
        assert_eq!(
            take(&mut a, Digest::Tree).unwrap(),
            Level::Digest(Digest::Tree)
        );
        assert!(a.is_empty());
        a.insert(PARAM.into(), json!("tiny"));
        assert_eq!(
            take(&mut a, Digest::Tree).unwrap_err().code,
            "INVALID_PARAM"
        );
        a.insert(PARAM.into(), json!(3));
        assert_eq!(
            take(&mut a, Digest::Tree).unwrap_err().code,
            "INVALID_PARAM"
        );
    }

    #[test]
    fn list_digest_keeps_counts_and_the_first_entries() {
        let items: Vec<Value> = (0..40).map(|i| json!({"n": i, "x": 1})).collect();
        let how = Digest::List {
            field: "rows",
            keep: &["n"],
        };
        let d = digest(how, &json!({"rows": items, "count": 40}));
        assert_eq!(d["first"][3], json!({"n": 3}));
        assert_eq!(d["counts"]["rows"], 40);
        assert_eq!(d["first"].as_array().unwrap().len(), DIGEST_ITEMS);
        assert_eq!(d["omitted"], 40 - DIGEST_ITEMS);
        let schema = digest_schema(how);
        let v = jsonschema::validator_for(&schema).unwrap();
        assert!(v.is_valid(&d));
    }

    #[test]
    fn a_summary_digest_keeps_its_essential_fields() {
        let how = Digest::Fields(&["run_id", "status"]);
        let d = digest(
            how,
            &json!({"run_id": "r1", "status": "failed", "flows": [1, 2]}),
        );
        assert_eq!(
            d,
            json!({"run_id": "r1", "status": "failed", "response_level": "digest"})
        );
        let v = jsonschema::validator_for(&digest_schema(how)).unwrap();
        assert!(v.is_valid(&d));
    }
}
