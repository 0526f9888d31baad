//! What the UI-action tools (`click`, `long_press`, `swipe`, `drag`, `scroll_until_visible`)
//! share: dispatching one action inside the `verify` evidence bracket, the all-or-none
//! from/to coordinate pair, and the default gesture speed.

use serde_json::json;

use crate::device::UiAction;
use crate::device::model::Point;
use crate::tools::context::Call;
use crate::tools::envelope::ToolError;

/// Gesture speed when none is given, in px/s (uitest accepts 200..40000).
pub(crate) fn default_speed() -> u32 {
    600
}

/// Sends one action to the routed device: the pre-action digest first (with `verify`, reusing
/// the step's observation), then the action (one round trip), then the post-action evidence.
pub(crate) fn dispatch(call: &mut Call<'_>, action: &UiAction) -> Result<(), ToolError> {
    let device = call.device()?;
    call.before_action()?;
    device.act(action)?;
    call.after_action()
}

/// All four coordinates or none (`MISSING_PARAMS` names the missing ones); negative ones are
/// `INVALID_PARAM`.
pub(crate) fn four(
    from_x: Option<i32>,
    from_y: Option<i32>,
    to_x: Option<i32>,
    to_y: Option<i32>,
) -> Result<Option<(Point, Point)>, ToolError> {
    let named = [
        ("from_x", from_x),
        ("from_y", from_y),
        ("to_x", to_x),
        ("to_y", to_y),
    ];
    let missing: Vec<&str> = named
        .iter()
        .filter(|(_, v)| v.is_none())
        .map(|(n, _)| *n)
        .collect();
    if missing.len() == 4 {
        return Ok(None);
    }
    if !missing.is_empty() {
        return Err(ToolError::new(
            "MISSING_PARAMS",
            format!(
                "coordinate mode needs from_x, from_y, to_x and to_y; missing {}",
                missing.join(", ")
            ),
        )
        .with_details(json!({ "missing": missing })));
    }
    if let Some((n, _)) = named.iter().find(|(_, v)| v.is_some_and(|v| v < 0)) {
        return Err(ToolError::invalid_param(
            n,
            "coordinates are physical pixels and cannot be negative",
        ));
    }
    let v = |o: Option<i32>| o.unwrap_or_default();
    Ok(Some((
        Point::new(v(from_x), v(from_y)),
        Point::new(v(to_x), v(to_y)),
    )))
}
