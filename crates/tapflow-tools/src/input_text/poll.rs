//! Polling the target field: observations (one dump each) until a check accepts one or a
//! wall-clock deadline passes. The first observation is the dump that travelled with the
//! action it observes ([`act_observing`], one round trip on hdc), else a fresh dump taken at
//! once; a successful one returns at once; between unsuccessful ones there is a short gap
//! bounded by the deadline, and further observations are plain dumps, so no fixed delay is ever
//! added. A refused or unparsable dump counts as an observation that saw nothing; other device
//! errors (device gone, hdc missing) end the poll.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::context::{Acted, ActedAll, Call, sleep_within, tree_error};
use crate::envelope::ToolError;
use crate::input_text::field::{self, FieldView};
use tapflow_device::model::{ElementHandle, UiNode};
use tapflow_device::{DeviceResult, UiAction};

/// Pause between two unsuccessful observations (a real dump itself takes hundreds of ms).
pub const POLL_GAP: Duration = Duration::from_millis(40);

/// Performs `action`; when the observation budget that follows it (`budget_ms`) allows any
/// observation at all, the dump observing it is chained to it (one round trip where the
/// backend can). A zero budget allows none: the action is sent alone.
pub fn act_observing(
    call: &mut Call<'_>,
    action: &UiAction,
    budget_ms: u64,
) -> Result<Acted, ToolError> {
    if budget_ms == 0 {
        call.act_only(action)
    } else {
        call.act_then_observe(action)
    }
}

/// [`act_observing`] for several actions sent in order (one round trip where the backend can
/// chain them); a zero budget sends them alone, each until one is refused.
pub fn acts_observing(
    call: &mut Call<'_>,
    actions: &[UiAction],
    budget_ms: u64,
) -> Result<ActedAll, ToolError> {
    if budget_ms > 0 {
        return call.acts_then_observe(actions);
    }
    let mut verdicts = Vec::new();
    for a in actions {
        let v = call.act_only(a)?.action;
        let refused = v.is_err();
        verdicts.push(v);
        if refused {
            break;
        }
    }
    Ok(ActedAll {
        actions: verdicts,
        tree: None,
    })
}

/// Observes until `check` returns `Some` (→ `Ok(Some)`) or `deadline` passes (→ `Ok(None)`).
/// `first` is an observation already made (the dump chained to the action): it is judged
/// before any new dump is taken, whenever it arrived, since the action had to be awaited
/// anyway. `count` is incremented for every observation that arrived (dumps that produced a
/// tree).
pub fn until<T>(
    call: &mut Call<'_>,
    handle: &ElementHandle,
    deadline: Instant,
    first: Option<DeviceResult<Arc<UiNode>>>,
    count: &mut u32,
    mut check: impl FnMut(Option<&FieldView>, &UiNode) -> Option<T>,
) -> Result<Option<T>, ToolError> {
    let mut pending = first;
    loop {
        let seen: Option<Arc<UiNode>> = match pending.take() {
            Some(Ok(tree)) => Some(tree),
            Some(Err(e)) if e.is_transient() => None,
            Some(Err(e)) => return Err(tree_error(e)),
            None => match call.observe(deadline)? {
                None => return Ok(None),
                Some(Err(_refused)) => None,
                Some(Ok(tree)) => Some(Arc::new(tree)),
            },
        };
        if let Some(tree) = seen {
            *count += 1;
            let view = field::view(&tree, handle);
            if let Some(done) = check(view.as_ref(), &tree) {
                return Ok(Some(done));
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
