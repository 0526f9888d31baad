//! What the UI-action tools (`click`, `long_press`, `swipe`, `drag`, `scroll_until_visible`)
//! share: dispatching one action inside the `verify` evidence bracket, and the default gesture
//! speed.

use crate::context::Call;
use crate::envelope::ToolError;
use tapflow_device::UiAction;

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
