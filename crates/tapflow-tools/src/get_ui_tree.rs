//! `get_ui_tree`: the layout tree of the whole screen, or of one validated window.
//!
//! With `bundle_name` and/or `window_id`, the target window is validated against the window
//! table first (`WINDOW_RESOLUTION_ERROR` when it does not exist, is not visible or belongs to
//! another bundle); a bundle alone resolves to its foreground (else top-most visible) window.
//! The dump is always the full screen (one dump); the window's subtree is cut out on the host.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::app_ops::given_bundle;
use crate::context::Call;
use crate::envelope::ToolError;
use crate::flow_hooks::FlowHooks;
use crate::policy::{Hints, Policy};
use crate::registry::{Digest, Tool};
use tapflow_device::model::{UiNode, WindowInfo};
use tapflow_device::ui::matching::{same_bundle, window_nodes};
use tapflow_device::ui::windows::foreground_flags;

pub struct GetUiTree;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// Resolve this app's window first and return only its tree.
    pub bundle_name: Option<String>,
    /// Validate this window and return only its tree.
    pub window_id: Option<i64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    /// The window_id requested (null when none was).
    pub window_id: Option<i64>,
    /// The window the tree was taken from after validation (null for the global dump).
    pub validated_window_id: Option<i64>,
    /// A window was validated before the dump.
    pub validation_applied: bool,
    /// `global` (whole screen, synthetic root with one child per window) or `window`.
    pub capture_scope: String,
    /// The layout tree exactly as uitest writes it: `{attributes: {…}, children: […]}`.
    pub ui_tree: Value,
    pub node_count: usize,
    pub bundle_name: Option<String>,
}

fn resolution_error(msg: String, details: Value) -> ToolError {
    ToolError::new(tapflow_core::codes::WINDOW_RESOLUTION_ERROR, msg).with_details(details)
}

/// The window node with this id in a dump.
fn window_subtree(root: &UiNode, wid: i64) -> Option<UiNode> {
    window_nodes(root)
        .into_iter()
        .find(|(_, w)| w.window_id() == Some(wid))
        .map(|(_, w)| w.clone())
}

impl Tool for GetUiTree {
    const CORE: bool = true;
    const NAME: &'static str = "get_ui_tree";
    const TITLE: &'static str = "Get UI tree";
    const DESCRIPTION: &'static str = "The UI tree of the screen, or of one window (bundle_name / window_id). Over MCP, a digest by default (counts and the first actionable elements with handles); response_level=default for the whole tree. Use `find_elements` when you know what you look for.";
    const POLICY: Policy = Policy::READ;
    const HINTS: Hints = Hints::READ;
    const DIGEST: Option<Digest> = Some(Digest::Tree);
    const FLOW: FlowHooks<Params> = FlowHooks {
        shorthand: Some("bundle_name"),
        ..FlowHooks::NONE
    };
    type Params = Params;
    type Output = Output;

    fn run(p: Params, call: &mut Call<'_>) -> Result<Output, ToolError> {
        let bundle = given_bundle(p.bundle_name);
        if bundle.is_none() && p.window_id.is_none() {
            let tree = call.ui_tree()?;
            return Ok(Output {
                window_id: None,
                validated_window_id: None,
                validation_applied: false,
                capture_scope: "global".into(),
                node_count: tree.node_count(),
                ui_tree: serde_json::to_value(&*tree).unwrap_or(Value::Null),
                bundle_name: None,
            });
        }
        // The window table is part of resolving the target: a table the device refuses or
        // garbles is a resolution failure (the contract's code), with the device's own code
        // as the cause; an unreachable device keeps its code.
        let table = call.device()?.windows().map_err(|e| {
            ToolError::from_device_op(e, tapflow_core::codes::WINDOW_RESOLUTION_ERROR)
        })?;
        let names_known = table.windows.iter().any(|w| w.bundle_name.is_some());
        let flags = foreground_flags(&table.windows);
        let validated: i64 = match p.window_id {
            Some(wid) => {
                let Some(row) = table.windows.iter().find(|w| w.window_id == wid) else {
                    return Err(resolution_error(
                        format!("window {wid} does not exist"),
                        json!({ "window_id": wid, "known_window_ids": table.windows.iter().map(|w| w.window_id).collect::<Vec<_>>() }),
                    ));
                };
                if !row.visible {
                    return Err(resolution_error(
                        format!("window {wid} is not visible"),
                        json!({ "window_id": wid }),
                    ));
                }
                if let (Some(b), Some(rb)) = (&bundle, &row.bundle_name)
                    && !same_bundle(b, rb)
                {
                    return Err(resolution_error(
                        format!("window {wid} belongs to {rb}, not {b}"),
                        json!({ "window_id": wid, "window_bundle": rb }),
                    ));
                }
                wid
            }
            None => {
                let b = bundle.as_deref().unwrap_or_default();
                let mut rows: Vec<(&WindowInfo, bool)> = table
                    .windows
                    .iter()
                    .zip(flags.iter().copied())
                    .filter(|(w, _)| {
                        w.visible
                            && w.bundle_name
                                .as_deref()
                                .is_some_and(|wb| same_bundle(wb, b))
                    })
                    .collect();
                rows.sort_by_key(|(w, fg)| (!fg, -w.z_order));
                match rows.first() {
                    Some((w, _)) => w.window_id,
                    None if !names_known => {
                        // The table does not name bundles: the dump's window nodes do.
                        let tree = call.ui_tree()?;
                        let found = window_nodes(&tree)
                            .into_iter()
                            .find(|(_, w)| same_bundle(w.attr("bundleName"), b))
                            .and_then(|(_, w)| w.window_id());
                        found.ok_or_else(|| {
                            resolution_error(
                                format!("no visible window of {b}"),
                                json!({ "bundle_name": b }),
                            )
                        })?
                    }
                    None => {
                        return Err(resolution_error(
                            format!("no visible window of {b}"),
                            json!({ "bundle_name": b }),
                        ));
                    }
                }
            }
        };
        let tree = call.ui_tree()?;
        let Some(sub) = window_subtree(&tree, validated) else {
            return Err(resolution_error(
                format!("window {validated} is in the window table but not in the layout dump"),
                json!({ "window_id": validated }),
            ));
        };
        if let Some(b) = &bundle
            && !sub.attr("bundleName").is_empty()
            && !same_bundle(sub.attr("bundleName"), b)
        {
            return Err(resolution_error(
                format!(
                    "window {validated} shows {}, not {b}",
                    sub.attr("bundleName")
                ),
                json!({ "window_id": validated }),
            ));
        }
        Ok(Output {
            window_id: p.window_id,
            validated_window_id: Some(validated),
            validation_applied: true,
            capture_scope: "window".into(),
            node_count: sub.node_count(),
            bundle_name: Some(sub.attr("bundleName").to_string()).filter(|s| !s.is_empty()),
            ui_tree: serde_json::to_value(&sub).unwrap_or(Value::Null),
        })
    }
}
