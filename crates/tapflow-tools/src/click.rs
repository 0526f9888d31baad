//! `click`: one or two taps on a target given by coordinates, an element handle or search
//! criteria (exactly one mode). Search and handle modes cost one UI dump; the tap one command.
//! A successful result confirms delivery only, not the application's reaction (use
//! `verify: true` for cheap post-action evidence).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::Call;
use crate::decode::FieldCodes;
use crate::envelope::ToolError;
use crate::flow_hooks::FlowHooks;
use crate::gesture::dispatch;
use crate::policy::{Hints, Policy};
use crate::registry::Tool;
use crate::search::search_args;
use crate::target::{TargetMode, choose_mode, resolve};
use tapflow_device::UiAction;
use tapflow_device::model::{ElementHandle, TapKind};
use tapflow_device::ui::selector::TextMatch;

pub struct Click;

fn one() -> u8 {
    1
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// Coordinate mode: x px (with y).
    pub x: Option<i32>,
    /// Coordinate mode: y px (with x).
    pub y: Option<i32>,
    /// Handle mode: an `element_handle` object, as returned.
    #[schemars(with = "Option<ElementHandle>")]
    pub element_handle: Option<Value>,
    /// Search mode: the element's text (exact unless match_mode says otherwise).
    pub text: Option<String>,
    /// Search mode: node type, e.g. `Button`.
    pub element_type: Option<String>,
    /// Search mode: ArkUI id / key.
    pub element_id: Option<String>,
    /// 1 = single click, 2 = double click.
    #[serde(default = "one")]
    #[schemars(default = "one", extend("enum" = [1, 2]))]
    pub count: u8,
    /// Search scope only: the app whose windows are searched.
    pub bundle_name: Option<String>,
    /// Search mode: how `text` is compared (default exact).
    pub match_mode: Option<TextMatch>,
    /// Search mode: the n-th match (0-based, reading order), not the only one.
    pub index: Option<usize>,
    /// Search mode, tapflow extensions: state and position filters.
    #[serde(flatten)]
    pub refine: tapflow_device::ui::refine::Refine,
}

/// The common result of tap-like actions.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub x: i32,
    pub y: i32,
    pub count: u8,
    /// `coordinates`, `element_handle`, `lookup_hint` (stale handle refreshed) or `search`.
    pub resolved_via: String,
    pub handle_refreshed: bool,
    /// The handle of the clicked element (null in coordinate mode).
    pub element_handle: Option<ElementHandle>,
    /// The click command was accepted by the device.
    pub dispatched: bool,
}

/// Resolves the target and taps it; shared with long_press.
pub(crate) fn tap(
    call: &mut Call<'_>,
    mode: TargetMode,
    kind: TapKind,
) -> Result<crate::target::Resolved, ToolError> {
    let resolved = resolve(call, &mode)?;
    dispatch(call, &UiAction::Tap(resolved.point, kind))?;
    Ok(resolved)
}

fn tap_kind(count: u8) -> Result<TapKind, ToolError> {
    match count {
        1 => Ok(TapKind::Single),
        2 => Ok(TapKind::Double),
        n => Err(ToolError::new(
            tapflow_core::codes::INVALID_CLICK_COUNT,
            format!("count must be 1 or 2, got {n}"),
        )
        .at("count")),
    }
}

/// The one target mode of the call (device-free).
fn target(p: &Params) -> Result<TargetMode, ToolError> {
    let search = search_args(
        p.text.clone(),
        p.element_type.clone(),
        p.element_id.clone(),
        p.bundle_name.clone(),
        p.match_mode,
        p.index,
        p.refine.clone(),
    );
    choose_mode(p.x, p.y, p.element_handle.clone(), search)
}

impl Tool for Click {
    const CORE: bool = true;
    const NAME: &'static str = "click";
    const TITLE: &'static str = "Click";
    const DESCRIPTION: &'static str = "Click (or double-click) a target: an element handle (preferred: from `find_elements` / `wait_for_element`), search criteria, or coordinates (one mode only). Confirms delivery, not the app's reaction: follow with `wait_for_element` (or pass `verify: true`). Use `input_text` to type into a field.";
    const POLICY: Policy = Policy::UI_ACTION;
    const HINTS: Hints = Hints::ACTION;
    const VERIFY: bool = true;
    const CODES: FieldCodes = FieldCodes {
        value: &[
            ("count", tapflow_core::codes::INVALID_CLICK_COUNT),
            ("match_mode", tapflow_core::codes::INVALID_MATCH_MODE),
        ],
        wrong_type: &[
            (
                "element_handle",
                tapflow_core::codes::INVALID_ELEMENT_HANDLE,
            ),
            ("count", tapflow_core::codes::INVALID_CLICK_COUNT),
        ],
    };
    const FLOW: FlowHooks<Params> = FlowHooks {
        waits_for_target: true,
        shorthand: Some("text"),
        known_as: &[
            ("tapOn", ""),
            ("tap", ""),
            ("doubleTapOn", "with `count: 2`"),
        ],
        // Flows: a target found by criteria or handle is looked up on the screen first.
        looks_first: |p| p.x.is_none() || p.y.is_none(),
        ..FlowHooks::NONE
    };
    type Params = Params;
    type Output = Output;

    fn check(p: &Params) -> Result<(), ToolError> {
        tap_kind(p.count)?;
        target(p).map(drop)
    }

    fn run(p: Params, call: &mut Call<'_>) -> Result<Output, ToolError> {
        let kind = tap_kind(p.count)?;
        let mode = target(&p)?;
        // Flows: the target is resolved on the screen the previous step handed over.
        call.start_from_carried();
        let r = tap(call, mode, kind)?;
        Ok(Output {
            x: r.point.x,
            y: r.point.y,
            count: p.count,
            resolved_via: r.resolved_via.to_string(),
            handle_refreshed: r.handle_refreshed,
            element_handle: r.element_handle,
            dispatched: true,
        })
    }
}
