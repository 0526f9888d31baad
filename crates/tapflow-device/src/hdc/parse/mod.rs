//! Parsers for everything hdc and the device-side tools print. Pure functions of text; each is
//! tested over every relevant fixture in `tests/fixtures/harmonyos/` (see `crates/tapflow-device/tests/parse/hdc/`).
//!
//! Owns: turning text into model types or typed errors. Must not do I/O or decide policy (the
//! backend decides what an error means for the caller). Every parser takes *cleaned* output
//! (see [`clean_output`]) but tolerates `\r` anyway, and never panics on arbitrary input.

pub mod aa;
pub mod bm;
pub mod failure;
pub mod faultlog;
pub mod layout;
pub mod outcome;
pub mod param;
pub mod power;
pub mod screen;
pub mod targets;
pub mod windows;

/// Output that could not be understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what}: {detail}")]
pub struct ParseError {
    pub what: &'static str,
    pub detail: String,
}

impl ParseError {
    pub(crate) fn new(what: &'static str, detail: impl Into<String>) -> Self {
        Self {
            what,
            detail: detail.into(),
        }
    }
}

/// Normalises raw hdc output: strips every `\r`, and drops hdc's own log lines
/// (`[I][2024-05-28 20:15:45] …`, any of `I W E D F`).
///
/// Windows hosts end lines with `\r\n` and sometimes `\r\r\n`; removing every `\r` (rather than
/// only a final one) handles both. Line structure, including a final newline, is kept.
pub fn clean_output(raw: &str) -> String {
    // Fast paths for the common cases (layout dumps are megabytes): a log line can only start
    // at the beginning of the text or after a newline, and only with `[`.
    let may_have_log_line = raw.starts_with('[') || raw.contains("\n[");
    if !may_have_log_line {
        return if raw.contains('\r') {
            raw.replace('\r', "")
        } else {
            raw.to_string()
        };
    }
    let mut out = String::with_capacity(raw.len());
    for piece in raw.split_inclusive('\n') {
        if is_hdc_log_line(piece) {
            continue;
        }
        if piece.contains('\r') {
            out.extend(piece.chars().filter(|&c| c != '\r'));
        } else {
            out.push_str(piece);
        }
    }
    out
}

/// `[X][YYYY-…` where X is one of hdc's log levels. Checked by hand (not a regex) because this
/// runs over every byte hdc prints, including megabyte-sized layout dumps.
fn is_hdc_log_line(line: &str) -> bool {
    let b = line.as_bytes();
    b.len() >= 9
        && b[0] == b'['
        && matches!(b[1], b'I' | b'W' | b'E' | b'D' | b'F')
        && b[2] == b']'
        && b[3] == b'['
        && b[4..8].iter().all(u8::is_ascii_digit)
        && b[8] == b'-'
}

/// Non-empty lines, trimmed, with any stray `\r` gone (parsers accept uncleaned text too).
pub(crate) fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(|l| l.trim_matches(|c: char| c.is_whitespace()))
        .filter(|l| !l.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_strips_every_carriage_return() {
        assert_eq!(clean_output("a\r\nb\r\r\nc"), "a\nb\nc");
        assert_eq!(clean_output("x\ry\n"), "xy\n");
        assert_eq!(clean_output(""), "");
    }

    #[test]
    fn clean_drops_hdc_log_lines_of_every_level() {
        for level in ["I", "W", "E", "D", "F"] {
            let raw = format!(
                "[{level}][2024-05-28 20:15:45] HdcFile::TransferSummary success\r\nok\r\n"
            );
            assert_eq!(clean_output(&raw), "ok\n", "level {level}");
        }
    }

    #[test]
    fn clean_keeps_lines_that_only_look_similar() {
        let raw = "[Info]App install path:x\n[Fail]No any connected target\n[I][abcd-]\n[X][2024-01-01] y\n";
        assert_eq!(clean_output(raw), raw);
    }

    #[test]
    fn clean_handles_log_line_without_newline_at_end() {
        assert_eq!(clean_output("ok\n[E][2024-05-28 20:15:45] boom"), "ok\n");
    }
}
