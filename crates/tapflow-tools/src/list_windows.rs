//! `list_windows`: the window manager's windows, with `is_foreground` per the contract (the
//! visible application window with the highest z-order on its display; SceneBoard/system
//! layers never are), optionally filtered by bundle (case-insensitive, trimmed).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::app_ops::given_bundle;
use crate::context::Call;
use crate::envelope::ToolError;
use crate::flow_hooks::FlowHooks;
use crate::policy::{Hints, Policy};
use crate::registry::{Digest, Tool};
use tapflow_device::model::Bounds;
use tapflow_device::ui::matching::same_bundle;
use tapflow_device::ui::windows::{foreground_flags, is_app_window};

pub struct ListWindows;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// Only windows of this bundle (normalised: trimmed, case-insensitive).
    pub bundle_name: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct WindowEntry {
    pub window_id: i64,
    pub name: String,
    pub bundle_name: Option<String>,
    pub display_id: i64,
    pub pid: i64,
    #[serde(rename = "type")]
    pub window_type: i64,
    pub mode: i64,
    pub z_order: i64,
    pub bounds: Bounds,
    pub visible: bool,
    /// An application window (not a system/SceneBoard layer).
    pub is_app: bool,
    /// The visible application window with the highest z-order on its display.
    pub is_foreground: bool,
    /// The window manager's focus window.
    pub is_focused: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub windows: Vec<WindowEntry>,
    /// Windows returned (after the bundle filter).
    pub count: usize,
    /// Windows on the device.
    pub total_count: usize,
    pub focus_window_id: Option<i64>,
}

impl Tool for ListWindows {
    const NAME: &'static str = "list_windows";
    const TITLE: &'static str = "List windows";
    const DESCRIPTION: &'static str = "List the device's windows with z-order, bounds and which application window is in the foreground (filter with bundle_name). Use it to check which app is in front or to get a window_id for `get_ui_tree` / `find_elements`; use `get_ui_tree` for the elements inside a window.";
    const POLICY: Policy = Policy::READ;
    const HINTS: Hints = Hints::READ;
    const DIGEST: Option<Digest> = Some(Digest::List {
        field: "windows",
        keep: &[],
    });
    const FLOW: FlowHooks<Params> = FlowHooks {
        shorthand: Some("bundle_name"),
        ..FlowHooks::NONE
    };
    type Params = Params;
    type Output = Output;

    fn run(p: Params, call: &mut Call<'_>) -> Result<Output, ToolError> {
        let table = call.device()?.windows()?;
        let flags = foreground_flags(&table.windows);
        let total = table.windows.len();
        let filter = given_bundle(p.bundle_name);
        let windows: Vec<WindowEntry> = table
            .windows
            .iter()
            .zip(flags)
            .filter(|(w, _)| match &filter {
                Some(b) => w
                    .bundle_name
                    .as_deref()
                    .is_some_and(|wb| same_bundle(wb, b)),
                None => true,
            })
            .map(|(w, fg)| WindowEntry {
                window_id: w.window_id,
                name: w.name.clone(),
                bundle_name: w.bundle_name.clone(),
                display_id: w.display_id,
                pid: w.pid,
                window_type: w.window_type,
                mode: w.mode,
                z_order: w.z_order,
                bounds: w.rect.to_bounds(),
                visible: w.visible,
                is_app: is_app_window(w),
                is_foreground: fg,
                is_focused: table.focus_window == Some(w.window_id),
            })
            .collect();
        Ok(Output {
            count: windows.len(),
            windows,
            total_count: total,
            focus_window_id: table.focus_window,
        })
    }
}
