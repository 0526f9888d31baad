//! An independent oracle of the forms in which tapflow could write a secret (raw, JSON-escaped
//! as serde_json writes it, single-quoted for `sh` once or twice (an argv quoted again in an
//! error message), Rust's `{:?}` of those (tracing fields) and JSON of that (a JSON log),
//! Android's `input text` form (spaces as `%s`) and ADBKeyBoard's base64, percent-encoded,
//! HTML/XML-escaped, and each line of a multi-line secret), and a grep of files and outputs for
//! them; [`pieces`] adds what a secret cut into `input text` chunks leaves. Deliberately written
//! without `tapflow::run::mask`, so the tests do not trust the list the masker computes for
//! itself.
//!
//! Used as `crate::common::leaks`.

#![allow(dead_code)]

use std::path::Path;

use base64::Engine;

/// Lines of a multi-line secret shorter than this (after trimming) are not looked for on their
/// own (the documented rule: they would match unrelated text).
pub const MIN_LINE_CHARS: usize = 4;

fn json_inner(s: &str) -> String {
    let q = serde_json::to_string(s).unwrap();
    q[1..q.len() - 1].to_string()
}

fn debug_inner(s: &str) -> String {
    let q = format!("{s:?}");
    q[1..q.len() - 1].to_string()
}

fn shell_inner(s: &str) -> String {
    s.replace('\'', "'\\''")
}

fn percent(s: &str, keep: &[u8], space_plus: bool) -> String {
    let mut out = String::new();
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || keep.contains(&b) {
            out.push(b as char);
        } else if b == b' ' && space_plus {
            out.push('+');
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// The forms of one text.
fn forms(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    // As is, quoted once (inside a device command), quoted twice (that command in an error
    // message's argv), with Android's `%s` for spaces; each raw, `{:?}`, JSON and JSON of `{:?}`.
    let sent = s.replace(' ', "%s");
    for x in [
        s.to_string(),
        shell_inner(s),
        shell_inner(&shell_inner(s)),
        shell_inner(&sent),
        shell_inner(&shell_inner(&sent)),
    ] {
        out.push(json_inner(&debug_inner(&x)));
        out.push(json_inner(&x));
        out.push(debug_inner(&x));
        out.push(x);
    }
    out.extend([
        percent(s, b"-._~", false),
        percent(s, b"-._*", true),
        percent(s, b"", false),
        handlebars::html_escape(s),
        xml(s),
    ]);
    out
}

/// The 5-character runs of letters and digits of `secret`: what stays readable of it in every
/// text encoding, also when `input text` cuts it into chunks (a piece of 5 such characters in
/// an output means the piece was not masked). Give secrets whose runs appear nowhere else.
pub fn pieces(secret: &str) -> Vec<String> {
    let chars: Vec<char> = secret.chars().collect();
    let mut out: Vec<String> = chars
        .windows(5)
        .filter(|w| w.iter().all(char::is_ascii_alphanumeric))
        .map(|w| w.iter().collect())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Every piece of [`pieces`] found in `hay`, with some context.
pub fn piece_leaks(hay: &[u8], secret: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for p in pieces(secret) {
        if let Some(at) = find(hay, p.as_bytes()) {
            let from = at.saturating_sub(60);
            let to = (at + p.len() + 60).min(hay.len());
            out.push((p, String::from_utf8_lossy(&hay[from..to]).into_owned()));
        }
    }
    out
}

/// Every encoding of `secret` that must never be written.
pub fn encodings(secret: &str) -> Vec<String> {
    let mut out = forms(secret);
    // Typed through ADBKeyBoard (whole).
    out.push(base64::engine::general_purpose::STANDARD.encode(secret.as_bytes()));
    if secret.contains('\n') {
        for line in secret.split('\n') {
            let line = line.trim();
            if line.chars().count() >= MIN_LINE_CHARS {
                out.extend(forms(line));
            }
        }
    }
    out.sort();
    out.dedup();
    out.retain(|e| !e.is_empty());
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Every encoding of `secret` found in `hay`, with some context.
pub fn leaks(hay: &[u8], secret: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for enc in encodings(secret) {
        if let Some(at) = find(hay, enc.as_bytes()) {
            let from = at.saturating_sub(60);
            let to = (at + enc.len() + 60).min(hay.len());
            out.push((enc, String::from_utf8_lossy(&hay[from..to]).into_owned()));
        }
    }
    out
}

/// Greps every file under `dir` and the given outputs; panics naming each leak. Returns the
/// number of files read.
pub fn assert_nowhere(secret: &str, dir: &Path, outputs: &[(&str, &[u8])]) -> usize {
    let mut found = Vec::new();
    let mut files = 0;
    for e in walkdir::WalkDir::new(dir) {
        let e = e.unwrap();
        if e.file_type().is_file() {
            files += 1;
            let bytes = std::fs::read(e.path()).unwrap();
            for l in leaks(&bytes, secret) {
                found.push((e.path().display().to_string(), l));
            }
        }
    }
    for (name, bytes) in outputs {
        for l in leaks(bytes, secret) {
            found.push((name.to_string(), l));
        }
    }
    assert!(found.is_empty(), "{secret:?} leaked: {found:#?}");
    files
}
