//! Text as reports may carry it. Device logs and tool messages hold anything: ANSI colour
//! escapes, NUL and other control characters, U+FFFE, `]]>`, megabytes on one line. XML 1.0
//! allows only TAB, LF, CR and U+0020–U+D7FF, U+E000–U+FFFD, U+10000–U+10FFFF, and escaping does
//! not make a forbidden character legal (`&#x1B;` is refused too), so forbidden characters are
//! removed, ANSI sequences first (else their tails would stay as text). HTML and Markdown get
//! the same clean text; their own escaping is done by their writers.

/// At most this many bytes of one text (a message, a log excerpt) go into a report.
pub const MAX_TEXT_BYTES: usize = 64 * 1024;

/// Whether XML 1.0 allows `c` (and it is not a C1 control, which no reader wants to see).
fn allowed(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r')
        || matches!(c, '\u{20}'..='\u{7e}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// ANSI sequences and every character XML cannot carry removed; clipped to
/// [`MAX_TEXT_BYTES`] (at a character boundary, with a note of how much was left out).
pub fn clean(s: &str) -> String {
    clean_max(s, MAX_TEXT_BYTES)
}

/// [`clean`] with another bound.
pub fn clean_max(s: &str, max_bytes: usize) -> String {
    let needs_strip = s.contains('\u{1b}');
    let stripped;
    let s = if needs_strip {
        // The stripper drops tabs as control characters; they are text here.
        stripped = s
            .split('\t')
            .map(strip_ansi_escapes::strip_str)
            .collect::<Vec<_>>()
            .join("\t");
        stripped.as_str()
    } else {
        s
    };
    let mut out: String = s.chars().filter(|&c| allowed(c)).collect();
    if out.len() > max_bytes {
        let mut cut = max_bytes;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        let left = out.len() - cut;
        out.truncate(cut);
        out.push_str(&format!("\n… ({left} more bytes not shown)"));
    }
    out
}

/// One line: newlines and tabs become spaces (for attributes and titles).
pub fn one_line(s: &str, max_bytes: usize) -> String {
    clean_max(s, max_bytes)
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forbidden_characters_and_ansi_go() {
        let s = "\u{1b}[31mred\u{1b}[0m a\u{0}b\u{7}c\u{fffe}d\u{85}e ]]> ok\ttab\nnext\r\n";
        // A CR goes with the escapes (hilog -v color output ends lines with one).
        assert_eq!(clean(s), "red abcde ]]> ok\ttab\nnext\n");
    }

    #[test]
    fn long_text_is_clipped_at_a_char_boundary() {
        let s = "é".repeat(100);
        let c = clean_max(&s, 11);
        assert!(c.starts_with("ééééé\n… ("), "{c}");
    }

    #[test]
    fn one_line_has_no_line_breaks() {
        assert_eq!(one_line("a\nb\r\nc", 100), "a b  c");
    }
}
