//! Lost keystrokes: what a field shows when keys typed one at a time were dropped on the way
//! (Android's `input text`, uitest's direct entry of digits: the `direct` route). The keys that
//! arrived keep their order, so the field shows a *subsequence* of the expected value; when no
//! key arrived it shows what it showed before (an empty Android field shows its hint there). A
//! password field shows fewer mask characters than were typed.
//!
//! Flows only (docs/run.md, "When a failure is the device's"): a `direct` verification that
//! settles on such a value ends after [`SETTLE`] instead of waiting out its whole deadline, and
//! the runner types the text again to tell a device that loses keys at random from a field
//! that refuses some characters every time. A bare tool call never uses this.

use std::time::Duration;

use crate::input_text::field::is_masked;

/// How long a value showing lost keys must stay unchanged before a flow's verification stops
/// waiting for the missing keys. `input text` and uitest return once every key event was
/// injected and handled, so a second of silence is far beyond any late key.
pub const SETTLE: Duration = Duration::from_millis(1000);

/// Whether `seen` looks like `expected` typed with some keys lost (`before`: the field's value
/// before typing).
pub fn shows_lost_keys(expected: &str, seen: &str, before: Option<&str>) -> bool {
    if seen == expected || expected.is_empty() {
        return false;
    }
    if is_masked(seen) || (seen.is_empty() && before.is_some_and(is_masked)) {
        return seen.chars().count() < expected.chars().count();
    }
    before == Some(seen) || is_subsequence(seen, expected)
}

/// `small`'s characters appear in `big` in the same order (not necessarily together).
fn is_subsequence(small: &str, big: &str) -> bool {
    let mut rest = big.chars();
    small.chars().all(|c| rest.any(|b| b == c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsequences_unchanged_fields_and_short_masks_show_lost_keys() {
        assert!(shows_lost_keys("demo", "emo", Some("Username")));
        assert!(shows_lost_keys("demo", "dm", None));
        assert!(shows_lost_keys("demo", "", None));
        assert!(
            shows_lost_keys("demo", "Username", Some("Username")),
            "nothing arrived: the hint still shows"
        );
        assert!(shows_lost_keys("12345678", "•••••", None));
        assert!(
            !shows_lost_keys("12345678", "••••••••", None),
            "length matches"
        );
        assert!(!shows_lost_keys("demo", "demo", None));
        assert!(
            !shows_lost_keys("demo", "odem", None),
            "reordered, not lost"
        );
        assert!(!shows_lost_keys("demo", "demos", None), "an extra key");
        assert!(!shows_lost_keys("demo", "Username", None));
        assert!(!shows_lost_keys("", "x", None));
        assert!(shows_lost_keys("名前です", "名です", None));
    }
}
