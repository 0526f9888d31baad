//! The forms in which tapflow can write a secret: what the [`super::Masker`] looks for.
//!
//! A text reaches an output through a chain of encodings, each one a character-by-character
//! map:
//!
//! 1. **On its way to the device** ([`super::android`] for Android's own): as is (hdc's
//!    `uitest … inputText`, evidence, UI trees), or single-quoted for the device's `sh`
//!    (`'` → `'\''`, `device::hdc::quote`).
//! 2. **As part of a command line**: as is (a log's `argv`), or the whole line quoted for `sh`
//!    once more (`display_argv` in an error message: `adb … shell 'input text '\''…'\'''`).
//! 3. **In the output**: as is (a `%` field of a text log, a terminal line), Rust's `{:?}` (a `?`
//!    field of a text log: the adb backend's argv), JSON-escaped as serde_json writes it
//!    (`result.json`, a `%` field of a JSON log), or JSON of `{:?}` (a `?` field of a JSON log).
//!
//! Every combination is a [`Needle`]. Web forms (percent-encoded, HTML- and XML-escaped) are
//! added for the text itself: reports and URLs carry values, never command lines.
//!
//! A needle may keep **anchors** around the secret's piece (the quote that ends an Android
//! `input text` chunk, the `text '` that starts one): they make a short piece specific to the
//! command it was cut for; the masker replaces the piece and writes the anchors back.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

/// Unreserved characters of RFC 3986 stay as they are.
pub(crate) const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `application/x-www-form-urlencoded` (before space becomes `+`).
const FORM: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'*');

/// One string the masker looks for: `text`, of which the first `keep_front` and the last
/// `keep_back` bytes are anchors that stay in the output.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Needle {
    pub text: String,
    pub keep_front: usize,
    pub keep_back: usize,
}

impl Needle {
    fn plain(text: String) -> Self {
        Needle {
            text,
            keep_front: 0,
            keep_back: 0,
        }
    }
}

/// The inside of Rust's `{:?}` of a string (as `tracing` fields and debug output print argv).
pub fn debug_inner(s: &str) -> String {
    let quoted = format!("{s:?}");
    quoted[1..quoted.len() - 1].to_string()
}

/// The inside of serde_json's string literal of `s`.
pub fn json_inner(s: &str) -> String {
    let quoted = Value::String(s.to_string()).to_string();
    quoted[1..quoted.len() - 1].to_string()
}

/// The inside of `quote(s)` (`device::hdc::quote`): what shows of `s` inside a quoted word.
pub fn shell_inner(s: &str) -> String {
    s.replace('\'', "'\\''")
}

fn xml(s: &str, all: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if all => out.push_str("&quot;"),
            '\'' if all => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Steps 2 and 3 of the module documentation: how a piece of a command line shows in output.
/// Each is a map character by character, so the anchors' forms are computed on their own.
fn output_maps() -> [fn(&str) -> String; 8] {
    [
        |s| s.to_string(),
        debug_inner,
        json_inner,
        |s| json_inner(&debug_inner(s)),
        shell_inner,
        |s| debug_inner(&shell_inner(s)),
        |s| json_inner(&shell_inner(s)),
        |s| json_inner(&debug_inner(&shell_inner(s))),
    ]
}

/// Every output form of `front` + `body` + `back`, a piece of a command line (or any text),
/// with `front` and `back` kept.
pub fn line_forms(front: &str, body: &str, back: &str, out: &mut Vec<Needle>) {
    if body.is_empty() {
        return;
    }
    for map in output_maps() {
        let (f, b) = (map(front), map(back));
        out.push(Needle {
            text: format!("{f}{}{b}", map(body)),
            keep_front: f.len(),
            keep_back: b.len(),
        });
    }
}

/// The forms of a value: as is and single-quoted for `sh` (step 1), each in every output form,
/// plus the web forms.
pub fn value_forms(s: &str, out: &mut Vec<Needle>) {
    if s.is_empty() {
        return;
    }
    line_forms("", s, "", out);
    line_forms("", &shell_inner(s), "", out);
    for web in [
        utf8_percent_encode(s, COMPONENT).to_string(),
        utf8_percent_encode(s, FORM).to_string().replace("%20", "+"),
        utf8_percent_encode(s, NON_ALPHANUMERIC).to_string(),
        handlebars::html_escape(s),
        xml(s, true),
        xml(s, false),
    ] {
        out.push(Needle::plain(web));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_measured_in_each_form() {
        let mut out = Vec::new();
        line_forms("text '", "a\"b", "'", &mut out);
        let debug_of_sh = out
            .iter()
            .find(|n| n.text == r#"text '\\''a\"b'\\''"#)
            .expect("the {:?} of the line quoted again");
        assert_eq!(debug_of_sh.keep_front, r"text '\\''".len());
        assert_eq!(debug_of_sh.keep_back, r"'\\''".len());
        for n in &out {
            assert!(n.keep_front + n.keep_back < n.text.len(), "{n:?}");
        }
    }

    #[test]
    fn a_value_has_its_command_line_forms() {
        let mut out = Vec::new();
        value_forms("it's", &mut out);
        let texts: Vec<&str> = out.iter().map(|n| n.text.as_str()).collect();
        // Quoted once (hdc argv), twice (display_argv of it), and {:?}/JSON of those.
        for f in [
            "it's",
            r"it'\''s",
            r"it'\''\'\'''\''s",
            r"it'\\''s",
            r"it'\\\\''s",
            "it%27s",
            "it&#x27;s",
        ] {
            assert!(texts.contains(&f), "{f} not in {texts:?}");
        }
    }
}
