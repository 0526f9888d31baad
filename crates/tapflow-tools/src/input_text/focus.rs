//! Focus acquisition for handle and search modes: click the target, then observe until the
//! target reports `focused: true` AND its window is the focused (foreground) window, within
//! `INPUT_FOCUS_TIMEOUT_MS`. Nothing is typed or pressed before both are seen.
//!
//! The click and the first observation travel together (one round trip on hdc); further
//! observations are plain dumps until the deadline, which starts when the click has returned.
//!
//! A failed click is `INPUT_FOCUS_DISPATCH_FAILED` (`focus_dispatched: false`); focus never
//! observed is `INPUT_FOCUS_TIMEOUT` (`focus_dispatched: true`, `dispatched: false`).

use serde_json::json;

use crate::context::Call;
use crate::envelope::ToolError;
use crate::input_text::Output;
use crate::input_text::field::{self, FieldView};
use crate::input_text::poll;
use tapflow_device::UiAction;
use tapflow_device::model::{ElementHandle, Point, TapKind};

/// Clicks `at` and waits for focus on `handle`'s element; returns its view at that moment and
/// records every focus fact in `out`.
pub fn acquire(
    call: &mut Call<'_>,
    handle: &ElementHandle,
    at: Point,
    out: &mut Output,
) -> Result<FieldView, ToolError> {
    let budget = call.config().input_focus_timeout_ms;
    let acted = poll::act_observing(call, &UiAction::Tap(at, TapKind::Single), budget)?;
    acted.action.map_err(|e| {
        ToolError::from_device_op(e, tapflow_core::codes::INPUT_FOCUS_DISPATCH_FAILED)
    })?;
    out.focus_dispatched = true;

    let deadline = poll::deadline_in(budget);
    let mut observations = 0;
    let mut last: Option<(Option<FieldView>, Option<i64>)> = None;
    let got = poll::until(
        call,
        handle,
        deadline,
        acted.tree,
        &mut observations,
        |view, tree| {
            let fg = field::foreground_window_id(tree);
            last = Some((view.cloned(), fg));
            view.filter(|v| v.focused && v.window_foreground).cloned()
        },
    )?;
    out.focus_observations = observations;
    if let Some((view, fg)) = &last {
        out.focused = view.as_ref().is_some_and(|v| v.focused);
        out.window_foreground = view.as_ref().is_some_and(|v| v.window_foreground);
        out.foreground_window_id = *fg;
    }
    match got {
        Some(view) => {
            out.focus_verified = true;
            Ok(view)
        }
        None => {
            let target_seen = last.as_ref().is_some_and(|(v, _)| v.is_some());
            Err(ToolError::new(
                tapflow_core::codes::INPUT_FOCUS_TIMEOUT,
                format!(
                    "the field did not show focus in a foreground window within {}ms \
                     (focused: {}, window_foreground: {}, {observations} observation(s)); no text was sent",
                    call.config().input_focus_timeout_ms,
                    out.focused,
                    out.window_foreground
                ),
            )
            .with_details(json!({
                "target_seen": target_seen,
                "focus_timeout_ms": call.config().input_focus_timeout_ms,
            })))
        }
    }
}
