//! From a session's recorded calls to flow steps: which calls become steps (and why the others
//! do not), and how a call's arguments become a step's.
//!
//! - Kept: successful calls of step tools that act (UI actions, keys, app lifecycle, installs,
//!   builds) or wait (`wait_for_element`, `wait_for_stable`); an `input_text` into a password
//!   field that typed the right number of characters (a bare call cannot read the value back:
//!   it succeeds on the mask's length, `verified: false`; a server before that said
//!   `TEXT_NOT_READABLE`, also accepted; a flow step passes on the length).
//! - Dropped, each with its reason: failed calls, read-only exploration (`find_elements`,
//!   `get_ui_tree`, `screenshot`, `list_*`, `logs_query`, …: they assert nothing), the flow
//!   tools (`run_flow`, `validate_flow`, `save_flow`, …), and a handle whose element cannot be
//!   named.
//! - Arguments: the route (`device_id`, `hdc_server`), `include_cost`, `verify` and `window_id`
//!   (a window id is only valid on the device and run it came from) are left out. An
//!   `element_handle` becomes the selector of the element it came from, known from the
//!   session's own results (`find_elements`, `wait_for_element`, `scroll_until_visible`): its
//!   id when it has one, else the criteria the handle was minted with (`lookup_hint`).
//!   Coordinates stay coordinates: that is what the call used.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::secrets::{Secrets, secret_field, secret_shape};
use crate::mcp::session_log::Recorded;
use tapflow_tools::Engine;
use tapflow_tools::registry::{EXTRA_PARAMS, ROUTING_PARAMS};

/// Read-only tools that can be steps but, in a session, are the agent looking around.
const OBSERVE: &[&str] = &[
    "find_elements",
    "get_ui_tree",
    "screenshot",
    "list_devices",
    "list_windows",
    "query_package",
    "logs_query",
];

/// Read-only tools that are waits: the flow waits where the agent waited.
const WAITS: &[&str] = &["wait_for_element", "wait_for_stable"];

/// Arguments that only mean something on the device and session they came from.
const SESSION_ONLY: &[&str] = &["window_id"];

/// One step of the saved flow, its strings still literal (secrets are templated on output).
#[derive(Debug, Clone)]
pub struct Step {
    pub call: u64,
    pub tool: String,
    pub args: Map<String, Value>,
}

/// A call that is not in the flow, and why.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct Dropped {
    /// Its number in the session (`meta.session_call`).
    pub call: u64,
    pub tool: String,
    pub reason: String,
}

/// The elements the session's results named, by handle.
#[derive(Default)]
pub struct Elements(HashMap<String, Map<String, Value>>);

impl Elements {
    /// Every element named by the results of `calls` (all of the session: a handle may come
    /// from exploration before the cut).
    pub fn of(calls: &[Recorded]) -> Self {
        let mut e = Elements::default();
        for c in calls.iter().filter(|c| c.ok) {
            let r = &c.kept;
            let listed = r["elements"].as_array().into_iter().flatten();
            for el in listed.chain(r.get("element")) {
                if let (Some(key), Some(obj)) = (handle_key(&el["element_handle"]), el.as_object())
                {
                    e.0.insert(key, obj.clone());
                }
            }
        }
        e
    }

    fn get(&self, handle: &Value) -> Option<&Map<String, Value>> {
        self.0.get(&handle_key(handle)?)
    }
}

/// A handle's identity (its lookup hint aside).
fn handle_key(h: &Value) -> Option<String> {
    Some(format!(
        "{}/{}/{}",
        h.get("window_id")?,
        h.get("id")?.as_str()?,
        h.get("compid")?.as_str()?
    ))
}

fn s<'a>(m: &'a Map<String, Value>, k: &str) -> Option<&'a str> {
    m.get(k).and_then(Value::as_str).filter(|v| !v.is_empty())
}

/// The selector of the element a handle names: its id, else the handle's own criteria, else
/// its text. `None` when nothing names it.
fn selector_of(handle: &Value, elements: &Elements) -> Option<Map<String, Value>> {
    let mut sel = Map::new();
    let known = elements.get(handle);
    if let Some(id) = known.and_then(|e| s(e, "id")) {
        sel.insert("element_id".into(), id.into());
        return Some(sel);
    }
    // The hint is the criteria the handle was minted with (`LookupHint`): a selector as is.
    if let Some(hint) = handle.get("lookup_hint").and_then(Value::as_object) {
        sel.extend(
            hint.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        if !sel.is_empty() {
            return Some(sel);
        }
    }
    let e = known?;
    let text = s(e, "text")?;
    sel.insert("text".into(), text.into());
    Some(sel)
}

/// The session's calls from the cut on, as steps and dropped calls; secrets collected.
pub fn convert(
    calls: &[Recorded],
    elements: &Elements,
    engine: &Engine,
    secrets: &mut Secrets,
) -> (Vec<Step>, Vec<Dropped>) {
    let mut steps = Vec::new();
    let mut dropped = Vec::new();
    for c in calls {
        match step_of(c, elements, engine, secrets) {
            Ok(step) => steps.push(step),
            Err(reason) => dropped.push(Dropped {
                call: c.seq,
                tool: c.tool.clone(),
                reason,
            }),
        }
    }
    (steps, dropped)
}

fn step_of(
    c: &Recorded,
    elements: &Elements,
    engine: &Engine,
    secrets: &mut Secrets,
) -> Result<Step, String> {
    let Some(def) = engine.get(&c.tool) else {
        return Err(format!(
            "`{}` is a flow tool, not a step (a flow may call another with `run_flow: {{file: …}}`)",
            c.tool
        ));
    };
    let typing = def.flow.typing.is_some();
    let masked_typing = typing && typed_into_mask(c);
    if !c.ok && !masked_typing {
        return Err(format!(
            "failed ({}): only successful calls are replayed",
            c.code.map_or("error".to_string(), |code| code.to_string())
        ));
    }
    let is_wait = WAITS.contains(&c.tool.as_str());
    if OBSERVE.contains(&c.tool.as_str()) || (def.hints.read_only && !is_wait) {
        return Err("read-only exploration: it observes and asserts nothing".into());
    }
    let mut args = c.args.clone();
    for k in ROUTING_PARAMS
        .iter()
        .chain(EXTRA_PARAMS)
        .chain(SESSION_ONLY)
    {
        args.remove(*k);
    }
    if let Some(handle) = args.remove("element_handle") {
        let Some(mut sel) = selector_of(&handle, elements) else {
            return Err("its element_handle names no element this session saw (no id, criteria or text to find it by); use search criteria".into());
        };
        // A typing tool takes its text criterion as `element_text` (its `text` is the text).
        if typing && let Some(t) = sel.remove("text") {
            sel.insert("element_text".into(), t);
        }
        // The selector first, as a person writes it (`{element_id: user, text: bob}`). A
        // bundle_name given with the handle scoped its refresh; it now scopes the search.
        for (k, v) in std::mem::take(&mut args) {
            sel.entry(k).or_insert(v);
        }
        args = sel;
    }
    if typing {
        note_secret(c, &args, masked_typing, secrets);
    }
    Ok(Step {
        call: c.seq,
        tool: c.tool.clone(),
        args,
    })
}

/// A bare `input_text` into a password field: `TEXT_NOT_READABLE` with a mask of exactly the
/// typed length (the text went in; a flow step passes on that), or a success that says the
/// field was masked.
fn typed_into_mask(c: &Recorded) -> bool {
    let d = &c.kept;
    if c.ok {
        return d["masked"] == Value::Bool(true) || d.get("masked_length").is_some();
    }
    c.code == Some(tapflow_core::codes::TEXT_NOT_READABLE)
        && d["masked"] == Value::Bool(true)
        && d["observed_length"].as_u64().is_some()
        && d["observed_length"] == d["expected_length"]
}

/// Registers the typed text as a secret when the field or the text says it is one.
fn note_secret(c: &Recorded, args: &Map<String, Value>, masked: bool, secrets: &mut Secrets) {
    let Some(text) = args
        .get("text")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
    else {
        return;
    };
    let field = s(args, "element_id");
    let words = [field, s(args, "element_text")];
    let masked = masked || typed_into_mask(c);
    if masked || secret_field(words.into_iter().flatten()) || secret_shape(text) {
        secrets.name(text, field, masked);
    }
}
