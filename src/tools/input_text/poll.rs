//! Polling the target field: fresh observations (one dump each) until a check accepts one or a
//! wall-clock deadline passes. The first observation is taken at once and a successful one
//! returns at once; between unsuccessful ones there is a short gap bounded by the deadline, so
//! no fixed delay is ever added. A refused or unparsable dump counts as an observation that saw
//! nothing; other device errors (device gone, hdc missing) end the poll.

use std::time::{Duration, Instant};

use crate::device::model::{ElementHandle, UiNode};
use crate::tools::context::{Call, sleep_within};
use crate::tools::envelope::ToolError;
use crate::tools::input_text::field::{self, FieldView};

/// Pause between two unsuccessful observations (a real dump itself takes hundreds of ms).
pub const POLL_GAP: Duration = Duration::from_millis(40);

/// Observes until `check` returns `Some` (→ `Ok(Some)`) or `deadline` passes (→ `Ok(None)`).
/// `count` is incremented for every observation that arrived (dumps that produced a tree).
pub fn until<T>(
    call: &mut Call<'_>,
    handle: &ElementHandle,
    deadline: Instant,
    count: &mut u32,
    mut check: impl FnMut(Option<&FieldView>, &UiNode) -> Option<T>,
) -> Result<Option<T>, ToolError> {
    loop {
        match call.observe(deadline)? {
            None => return Ok(None),
            Some(Err(_refused)) => {}
            Some(Ok(tree)) => {
                *count += 1;
                let view = field::view(&tree, handle);
                if let Some(done) = check(view.as_ref(), &tree) {
                    return Ok(Some(done));
                }
            }
        }
        if !sleep_within(POLL_GAP, deadline) {
            return Ok(None);
        }
    }
}

/// `now + ms`, saturating far in the future for absurd configurations.
pub fn deadline_in(ms: u64) -> Instant {
    let now = Instant::now();
    now.checked_add(Duration::from_millis(ms))
        .unwrap_or(now + Duration::from_secs(86_400 * 365))
}
