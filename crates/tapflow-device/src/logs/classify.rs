//! What counts as an error, and when two errors are "the same".
//!
//! Owns the crash and exception patterns `errors` mode recognises, and the message signature
//! used to group repeated errors: numbers, hex values, addresses and ids are replaced by
//! placeholders so that `open fd 17 failed` and `open fd 42 failed` count as one error.

use std::sync::OnceLock;

use regex::Regex;
use schemars::JsonSchema;
use serde::Serialize;

/// Why an item was returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ItemKind {
    /// A process died or froze: AppKit crash block, faultlogger file, signal, kill reason.
    Crash,
    /// An exception or JS error text, whatever its level.
    Exception,
    /// A line at or above the minimum level.
    Error,
    /// A `markers` mode hit.
    Marker,
}

fn crash_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(concat!(
            r"(?i)is about to exit due to|Kill Reason:|\bSIG(?:SEGV|ABRT|BUS|ILL|FPE|TRAP|SYS)\b|",
            r"\b(?:cppcrash|jscrash|appfreeze)\b|\bAPP_INPUT_BLOCK\b|\bTHREAD_BLOCK_\d+S\b|\bLIFECYCLE_TIMEOUT\b|",
            r"FATAL EXCEPTION|Application Not Responding|\bprocess (?:has )?died\b"
        ))
        .expect("static crash regex")
    })
}

fn exception_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(concat!(
            r"\b(?:Type|Reference|Range|Syntax|Eval|URI|Business|Aggregate)Error\b|",
            r"\b[A-Z][A-Za-z]*Exception\b|(?i:\buncaught\b|\bunhandled (?:promise )?rejection\b)|",
            r"terminate called after throwing|^Error (?:name|message):"
        ))
        .expect("static exception regex")
    })
}

fn generic_error_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    // An error word that opens the line or labels a value (`ERROR: …`, `error=…`), or a
    // failure verb; a bare word in prose (a help text listing `ERROR/FATAL`) is not enough.
    RE.get_or_init(|| {
        Regex::new(r"(?i)^\W*(?:error|fatal|panic)\b|\b(?:error|fatal|exception)\s*[:=]|\b(?:failed|failure|panicked)\b")
            .expect("static regex")
    })
}

/// True when `text` reports a crash, freeze or kill.
pub fn is_crash_text(text: &str) -> bool {
    crash_regex().is_match(text)
}

/// True when `text` reports an exception or a JS error.
pub fn is_exception_text(text: &str) -> bool {
    exception_regex().is_match(text)
}

/// True when unstructured text (not hilog) reads like an error report.
pub fn is_generic_error_text(text: &str) -> bool {
    generic_error_regex().is_match(text)
}

fn placeholder_regexes() -> &'static [(Regex, &'static str)] {
    static RE: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    RE.get_or_init(|| {
        [
            (
                r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
                "<uuid>",
            ),
            (r"0[xX][0-9a-fA-F]+", "<hex>"),
            // Runs of 8+ hex digits (build ids, hashes, addresses without 0x); shorter mixed
            // tokens such as `x86` or `el1` are words.
            (r"\b[0-9a-fA-F]{8,}\b", "<hex>"),
            (r"\d+", "<n>"),
            (r"\s+", " "),
        ]
        .into_iter()
        .map(|(p, r)| (Regex::new(p).expect("static placeholder regex"), r))
        .collect()
    })
}

/// A message with its variable parts replaced, for grouping.
pub fn normalize_message(message: &str) -> String {
    let mut s = message.trim().to_string();
    for (re, replacement) in placeholder_regexes() {
        s = re.replace_all(&s, *replacement).into_owned();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crash_texts() {
        assert!(is_crash_text("com.x is about to exit due to RuntimeError"));
        assert!(is_crash_text("msg=Kill Reason:Js Error, foreground=1"));
        assert!(is_crash_text("Reason:Signal:SIGSEGV(SI_USER)@0x000025d9"));
        assert!(is_crash_text("APP_INPUT_BLOCK happened"));
        assert!(!is_crash_text("Observer has subscribed!"));
        assert!(!is_crash_text("signature verified"));
    }

    #[test]
    fn exception_texts() {
        assert!(is_exception_text("Error name:TypeError"));
        assert!(is_exception_text("java.lang.NullPointerException: x"));
        assert!(is_exception_text("Uncaught promise"));
        assert!(is_exception_text("Error message:Cannot read property"));
        assert!(!is_exception_text("exception handler registered"));
        assert!(!is_exception_text("LoadPage Success"));
    }

    #[test]
    fn generic_errors_for_unstructured_text() {
        assert!(is_generic_error_text("E/Thing: open failed"));
        assert!(is_generic_error_text("ERROR: disk"));
        assert!(is_generic_error_text("[E] error: x"));
        assert!(is_generic_error_text("[E] error: x"));
        assert!(!is_generic_error_text("errors=0 terrorist? no: errorless"));
        assert!(!is_generic_error_text(
            "  Long level string: DEBUG/INFO/WARN/ERROR/FATAL."
        ));
        assert!(!is_generic_error_text(
            "  Long level string: DEBUG/INFO/WARN/ERROR/FATAL."
        ));
    }

    #[test]
    fn normalisation_groups_variable_parts() {
        assert_eq!(
            normalize_message("open fd 17 failed"),
            normalize_message("open fd 42 failed")
        );
        assert_eq!(normalize_message("addr 0xdeadbeef  bad"), "addr <hex> bad");
        assert_eq!(
            normalize_message("build 90eb79e807337289ff99d3d78741363f"),
            "build <hex>"
        );
        assert_eq!(
            normalize_message("id 123e4567-e89b-12d3-a456-426614174000"),
            "id <uuid>"
        );
        assert_eq!(normalize_message("libs/x86_64 el1"), "libs/x<n>_<n> el<n>");
        assert_ne!(
            normalize_message("open failed"),
            normalize_message("close failed")
        );
    }
}
