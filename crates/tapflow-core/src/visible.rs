//! Bidirectional control characters shown, not obeyed. A name that carries U+202E (RIGHT-TO-LEFT
//! OVERRIDE) displays its text reversed: `login\u{202E}gpj.exe` reads as `loginexe.jpg`, and a
//! flow, step or device name in a report or on the terminal can hide what it really says
//! ("Trojan Source", CVE-2021-42574). Wherever tapflow shows text to a person (the HTML report,
//! progress lines, the run summary, diagnostics, the plan), these characters are written as
//! `<U+202E>` instead: visible, and inert.
//!
//! The set is UAX #9's explicit directional formatting characters and implicit marks: the
//! embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069, LRM U+200E, RLM U+200F
//! and ALM U+061C. It is fixed by the standard and cannot be derived from the characters' bidi
//! classes (LRM, RLM and ALM have the classes of ordinary letters), hence the list here.
//! Machine output (JSON, `result.json`, JUnit XML) keeps the text as it is.

use std::borrow::Cow;

/// Whether `c` is a bidirectional control character (see the module documentation).
pub fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
    )
}

/// Appends `c` to `out`, a bidirectional control character as `<U+XXXX>`.
pub fn push_visible(out: &mut String, c: char) {
    if is_bidi_control(c) {
        out.push_str(&format!("<U+{:04X}>", c as u32));
    } else {
        out.push(c);
    }
}

/// `s` with every bidirectional control character written as `<U+XXXX>` (borrowed when there
/// is none, which is almost always).
pub fn escape_bidi(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_bidi_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        push_visible(&mut out, c);
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bidi_control_is_shown_by_its_code_point() {
        let all: Vec<char> = ('\u{202A}'..='\u{202E}')
            .chain('\u{2066}'..='\u{2069}')
            .chain(['\u{200E}', '\u{200F}', '\u{061C}'])
            .collect();
        assert_eq!(all.len(), 12);
        for c in all {
            let shown = escape_bidi(&format!("a{c}b")).into_owned();
            assert_eq!(shown, format!("a<U+{:04X}>b", c as u32));
        }
        assert_eq!(escape_bidi("login\u{202E}gpj.exe"), "login<U+202E>gpj.exe");
    }

    #[test]
    fn other_text_is_untouched_and_borrowed() {
        for s in [
            "plain",
            "Grüße",
            "שלום עולם",
            "مرحبا",
            "emoji 🙂",
            "zero\u{200B}width",
        ] {
            assert!(matches!(escape_bidi(s), Cow::Borrowed(_)), "{s}");
        }
    }
}
