//! Exact-value verification: observe the target until its value is exactly what is expected,
//! within a deadline (`INPUT_VERIFY_TIMEOUT_MS`). A suffix match, a prefix match or "close
//! enough" never counts.
//!
//! Masked (password) values cannot be compared: a mask of the expected length is reported as
//! [`Observed::MaskedLength`] at once (waiting longer cannot reveal more), any other mask is
//! waited on like a wrong value. Callers turn these outcomes into their error codes.
//!
//! Flows only, for text typed key by key: a value showing lost keys that stays unchanged for
//! [`lost_keys::SETTLE`] ends the wait early ([`Observed::Settled`]; see [`lost_keys`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::context::Call;
use crate::envelope::ToolError;
use crate::input_text::field::is_masked;
use crate::input_text::{lost_keys, poll};
use tapflow_device::DeviceResult;
use tapflow_device::model::{ElementHandle, UiNode};

/// How a verification ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observed {
    /// The exact value was seen.
    Exact,
    /// The field shows a mask with as many characters as expected: as far as it can be read,
    /// the value is right, but it cannot be confirmed.
    MaskedLength(String),
    /// The deadline passed; the last value seen (`None`: the target was absent or no
    /// observation arrived).
    Timeout(Option<String>),
    /// Flows only ([`Settle`]): the value showed lost keys and stayed unchanged this long.
    Settled(String, Duration),
}

/// Flows only: end the wait once a value showing lost keys has stayed unchanged for `after`.
#[derive(Debug, Clone, Copy)]
pub struct Settle<'a> {
    /// The field's value before the text was sent.
    pub before: Option<&'a str>,
    pub after: Duration,
}

impl Observed {
    /// The value last seen, if any.
    pub fn actual(&self, expected: &str) -> Option<String> {
        match self {
            Observed::Exact => Some(expected.to_string()),
            Observed::MaskedLength(m) => Some(m.clone()),
            Observed::Timeout(last) => last.clone(),
            Observed::Settled(v, _) => Some(v.clone()),
        }
    }
}

/// Polls until `expected` is the field's exact value (see the module doc); `first` is the
/// observation chained to the action, if one was (see [`poll::until`]).
pub fn until_value(
    call: &mut Call<'_>,
    handle: &ElementHandle,
    expected: &str,
    deadline: Instant,
    first: Option<DeviceResult<Arc<UiNode>>>,
    observations: &mut u32,
    settle: Option<Settle<'_>>,
) -> Result<Observed, ToolError> {
    let want_chars = expected.chars().count();
    let mut last: Option<String> = None;
    // The value seen and since when it has been seen unchanged.
    let mut steady: Option<(String, Instant)> = None;
    let got = poll::until(call, handle, deadline, first, observations, |view, _| {
        let text = view.map(|v| v.text.clone());
        last = text.clone();
        let text = text?;
        if text == expected {
            return Some(Observed::Exact);
        } else if is_masked(&text) && text.chars().count() == want_chars {
            return Some(Observed::MaskedLength(text));
        }
        let s = settle?;
        let now = Instant::now();
        let since = match &steady {
            Some((v, at)) if *v == text => *at,
            _ => {
                steady = Some((text.clone(), now));
                now
            }
        };
        let held = now.saturating_duration_since(since);
        (held >= s.after && lost_keys::shows_lost_keys(expected, &text, s.before))
            .then_some(Observed::Settled(text, held))
    })?;
    Ok(got.unwrap_or(Observed::Timeout(last)))
}
