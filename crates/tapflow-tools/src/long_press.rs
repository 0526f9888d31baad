//! `long_press`: a long press on a target, resolved exactly like `click` (without `count`).
//! Delivery only: `dispatched: true, effect_verified: false`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::click::tap;
use crate::context::Call;
use crate::decode::FieldCodes;
use crate::envelope::ToolError;
use crate::flow_hooks::FlowHooks;
use crate::policy::{Hints, Policy};
use crate::registry::Tool;
use crate::search::search_args;
use crate::target::{TargetMode, choose_mode};
use tapflow_device::model::{ElementHandle, TapKind};
use tapflow_device::ui::selector::TextMatch;

pub struct LongPress;

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
    /// Search mode: node type.
    pub element_type: Option<String>,
    /// Search mode: ArkUI id / key.
    pub element_id: Option<String>,
    /// Search scope only.
    pub bundle_name: Option<String>,
    /// Search mode: how `text` is compared (default exact).
    pub match_mode: Option<TextMatch>,
    /// Search mode: the n-th match (0-based, reading order).
    pub index: Option<usize>,
    /// Search mode, tapflow extensions: state and position filters.
    #[serde(flatten)]
    pub refine: tapflow_device::ui::refine::Refine,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub x: i32,
    pub y: i32,
    pub resolved_via: String,
    pub handle_refreshed: bool,
    pub element_handle: Option<ElementHandle>,
    /// The long-press command was accepted.
    pub dispatched: bool,
    /// Always false: the app's reaction needs a separate observation.
    pub effect_verified: bool,
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

impl Tool for LongPress {
    const NAME: &'static str = "long_press";
    const TITLE: &'static str = "Long press";
    const DESCRIPTION: &'static str = "Dispatch a long press (a hold gesture) to a target (coordinates, element handle or search criteria; one mode only), e.g. to open a context menu or start a selection. Use `click` for an ordinary tap, `drag` to move something.";
    const POLICY: Policy = Policy::UI_ACTION;
    const HINTS: Hints = Hints::ACTION;
    const VERIFY: bool = true;
    const CODES: FieldCodes = FieldCodes {
        value: &[("match_mode", tapflow_core::codes::INVALID_MATCH_MODE)],
        wrong_type: &[(
            "element_handle",
            tapflow_core::codes::INVALID_ELEMENT_HANDLE,
        )],
    };
    const FLOW: FlowHooks<Params> = FlowHooks {
        waits_for_target: true,
        shorthand: Some("text"),
        known_as: &[("longPressOn", "")],
        // Flows: a target found by criteria or handle is looked up on the screen first.
        looks_first: |p| p.x.is_none() || p.y.is_none(),
        ..FlowHooks::NONE
    };
    type Params = Params;
    type Output = Output;

    fn check(p: &Params) -> Result<(), ToolError> {
        target(p).map(drop)
    }

    fn run(p: Params, call: &mut Call<'_>) -> Result<Output, ToolError> {
        let mode = target(&p)?;
        // Flows: the target is resolved on the screen the previous step handed over.
        call.start_from_carried();
        let r = tap(call, mode, TapKind::Long)?;
        Ok(Output {
            x: r.point.x,
            y: r.point.y,
            resolved_via: r.resolved_via.to_string(),
            handle_refreshed: r.handle_refreshed,
            element_handle: r.element_handle,
            dispatched: true,
            effect_verified: false,
        })
    }
}
