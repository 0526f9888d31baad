//! "Did you mean …?": the one rule every layer uses to suggest a known name for a mistyped one
//! (flow keys, step and tool names, tool parameters in flows and in bare tool calls, key names).
//!
//! A leaf: a pure function of strings (strsim), using nothing else in the crate, so `flow`,
//! `plan` and `tools` can all share it without depending on each other.

/// Longest word a suggestion is looked for (names are short; a longer word is no typo of one,
/// and comparing megabytes of argument with every name would take seconds).
pub const MAX_WORD: usize = 64;

/// More candidates than this (a flow with thousands of variables) get no suggestion: every
/// undefined reference would be compared with all of them.
pub const MAX_CANDIDATES: usize = 1_000;

/// The candidate closest to `word`, when it is close enough to be a plausible typo.
pub fn closest<'a, I>(word: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    if word.len() > MAX_WORD {
        return None;
    }
    let candidates: Vec<&'a str> = candidates.into_iter().take(MAX_CANDIDATES + 1).collect();
    if candidates.len() > MAX_CANDIDATES {
        return None;
    }
    let lower = word.to_ascii_lowercase();
    let mut best: Option<(f64, &'a str)> = None;
    for cand in candidates {
        let score = strsim::jaro_winkler(&lower, &cand.to_ascii_lowercase());
        // A containment match (`text` vs `element_text`) is a good hint even when jaro is low.
        let contained = lower.len() >= 3 && cand.contains(lower.as_str());
        let score = if contained { score.max(0.85) } else { score };
        if best.is_none_or(|(b, _)| score > b) {
            best = Some((score, cand));
        }
    }
    best.filter(|(score, _)| *score >= 0.8).map(|(_, c)| c)
}

/// `did you mean `x`?` or nothing.
pub fn did_you_mean<'a, I>(word: &str, candidates: I) -> Option<String>
where
    I: IntoIterator<Item = &'a str>,
{
    closest(word, candidates).map(|c| format!("did you mean `{c}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        let names = ["click", "input_text", "press_key", "swipe"];
        assert_eq!(closest("clik", names), Some("click"));
        assert_eq!(closest("presskey", names), Some("press_key"));
        assert_eq!(closest("inputText", names), Some("input_text"));
        assert_eq!(closest("zzzz", names), None);
        assert_eq!(closest(&"click".repeat(20), names), None);
        let many: Vec<String> = (0..5_000).map(|i| format!("V{i}")).collect();
        assert_eq!(closest("V1", many.iter().map(String::as_str)), None);
    }
}
