//! Removing the sentinel of the sentinel-paste route. The contract's order is binding: the
//! sentinel-bearing value (`expected + SENTINEL`) must have been observed before Backspace is
//! sent, so a paste still in flight can never be cut short. After Backspace the field must show
//! exactly the expected value, else `TEXT_CLEANUP_FAILED` (the sentinel or more may be gone or
//! left; `actual_text` says what the field shows). Backspace and the first observation after it
//! travel together (one round trip on hdc).

use serde_json::json;

use crate::context::Call;
use crate::envelope::ToolError;
use crate::input_text::Output;
use crate::input_text::poll;
use crate::input_text::strategy::{SENTINEL, keycode};
use crate::input_text::verify::{Observed, until_value};
use tapflow_device::UiAction;
use tapflow_device::model::{ElementHandle, KeyInput};

/// Sends one Backspace and verifies the result; the caller has observed the sentinel.
/// Returns how the post-cleanup verification ended (`Exact` or `MaskedLength`).
pub fn remove_sentinel(
    call: &mut Call<'_>,
    handle: &ElementHandle,
    expected: &str,
    out: &mut Output,
) -> Result<Observed, ToolError> {
    let budget = call.config().input_verify_timeout_ms;
    let backspace = UiAction::Key(KeyInput::Codes(vec![keycode::DEL]));
    let acted = poll::act_observing(call, &backspace, budget)?;
    acted.action.map_err(|e| {
            ToolError::from_device_op(e, tapflow_core::codes::TEXT_CLEANUP_FAILED).with_details(json!({
                "sentinel": SENTINEL.to_string(),
                "reason": "the Backspace that removes the sentinel was refused, or it is unknown whether it ran",
            }))
        })?;
    out.cleanup_performed = true;
    out.stage = "verify".into();
    // The cleanup gets its own verification budget: a slow paste must not eat it.
    let deadline = poll::deadline_in(budget);
    let seen = until_value(
        call,
        handle,
        expected,
        deadline,
        acted.tree,
        &mut out.observations,
        None,
    )?;
    out.actual_text = seen.actual(expected);
    match seen {
        Observed::Exact | Observed::MaskedLength(_) => Ok(seen),
        Observed::Settled(..) => unreachable!("no settling was asked for"),
        Observed::Timeout(last) => Err(ToolError::new(
            tapflow_core::codes::TEXT_CLEANUP_FAILED,
            format!(
                "after Backspace the field should read exactly the requested value but shows {}",
                describe(last.as_deref())
            ),
        )
        .with_details(json!({ "sentinel": SENTINEL.to_string() }))),
    }
}

/// A value for messages (quoted, or "nothing" when the target was not seen).
pub fn describe(v: Option<&str>) -> String {
    match v {
        Some(t) => format!("{t:?}"),
        None => "nothing (the field was not found)".into(),
    }
}
