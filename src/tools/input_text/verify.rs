//! Exact-value verification: observe the target until its value is exactly what is expected,
//! within a deadline (`INPUT_VERIFY_TIMEOUT_MS`). A suffix match, a prefix match or "close
//! enough" never counts.
//!
//! Masked (password) values cannot be compared: a mask of the expected length is reported as
//! [`Observed::MaskedLength`] at once (waiting longer cannot reveal more), any other mask is
//! waited on like a wrong value. Callers turn these outcomes into their error codes.

use std::time::Instant;

use crate::device::model::ElementHandle;
use crate::tools::context::Call;
use crate::tools::envelope::ToolError;
use crate::tools::input_text::field::is_masked;
use crate::tools::input_text::poll;

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
}

impl Observed {
    /// The value last seen, if any.
    pub fn actual(&self, expected: &str) -> Option<String> {
        match self {
            Observed::Exact => Some(expected.to_string()),
            Observed::MaskedLength(m) => Some(m.clone()),
            Observed::Timeout(last) => last.clone(),
        }
    }
}

/// Polls until `expected` is the field's exact value (see the module doc).
pub fn until_value(
    call: &mut Call<'_>,
    handle: &ElementHandle,
    expected: &str,
    deadline: Instant,
    observations: &mut u32,
) -> Result<Observed, ToolError> {
    let want_chars = expected.chars().count();
    let mut last: Option<String> = None;
    let got = poll::until(call, handle, deadline, observations, |view, _| {
        let text = view.map(|v| v.text.clone());
        last = text.clone();
        let text = text?;
        if text == expected {
            Some(Observed::Exact)
        } else if is_masked(&text) && text.chars().count() == want_chars {
            Some(Observed::MaskedLength(text))
        } else {
            None
        }
    })?;
    Ok(got.unwrap_or(Observed::Timeout(last)))
}
