//! The forms a secret takes when the adb backend types it (`device::adb::text`), so the
//! [`super::Masker`] finds it in the adb argv a `-v` log prints and in error messages.
//!
//! **`input text`** (ASCII): the typed text is cut at every newline and tab (sent as key
//! events), between the `%` and the `s` of every literal `%s`, and into chunks of
//! [`CHUNK`] characters (99 when the 100th is a `%`); each piece is sent with its spaces as `%s`,
//! single-quoted, as `input text '<piece>'`. Where the secret sits in the typed text is not
//! known (`"user: {{ PASSWORD }}"`), so a chunk boundary may fall anywhere in it. For each
//! segment of the secret between two cuts of the first kinds, the masker looks for:
//!
//! - the segment whole (the whole secret whatever its length, a segment of it from
//!   [`MIN_PIECE_CHARS`] characters on);
//! - every prefix of at least [`MIN_PIECE_CHARS`] characters followed by the chunk's closing
//!   quote, and every suffix of at least that length after `text '` (a chunk boundary inside
//!   the secret), shorter than a chunk (the chunk holds other text too): the anchors keep a
//!   short piece from matching ordinary text;
//! - every window of `CHUNK - 1` and `CHUNK` characters (a chunk wholly inside a long secret).
//!
//! **ADBKeyBoard** (any non-ASCII text): the whole typed text as standard base64 in one
//! broadcast. The secret's base64 is looked for whole, and, for a secret typed after 1 or 2
//! other bytes, the part of the typed text's base64 that depends on the secret's bytes only
//! (at least [`MIN_PIECE_CHARS`] base64 characters).
//!
//! Pieces shorter than [`MIN_PIECE_CHARS`] are not masked: they would mask unrelated text (a
//! chunk boundary one character into the secret leaves that character in the previous chunk).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use super::forms::{Needle, line_forms, shell_inner};
pub use tapflow_device::adb::text::CHUNK;

/// The shortest piece of a secret masked on its own (see the module documentation).
pub const MIN_PIECE_CHARS: usize = 4;

/// The segments `input text` calls cannot join: cut at newlines and tabs, and inside `%s`.
fn segments(secret: &str) -> Vec<String> {
    let mut out = Vec::new();
    for run in secret.split(['\n', '\t']) {
        let mut rest = run;
        while let Some(i) = rest.find("%s") {
            out.push(rest[..=i].to_string());
            rest = &rest[i + 1..];
        }
        out.push(rest.to_string());
    }
    out.retain(|s| !s.is_empty());
    out
}

/// A piece as `input text` sends it, inside its quotes.
fn sent(piece: &[char]) -> String {
    let text: String = piece.iter().collect();
    shell_inner(&text.replace(' ', "%s"))
}

/// Every `input text` form of `secret` (see the module documentation).
pub fn key_forms(secret: &str, out: &mut Vec<Needle>) {
    let whole: Vec<char> = secret.chars().collect();
    for seg in segments(secret) {
        let chars: Vec<char> = seg.chars().collect();
        let n = chars.len();
        if chars == whole || n >= MIN_PIECE_CHARS {
            line_forms("", &sent(&chars), "", out);
        }
        // A piece cut off by a chunk boundary shares its chunk with text before or after the
        // secret, so it is shorter than a chunk.
        for k in MIN_PIECE_CHARS..n.min(CHUNK) {
            line_forms("", &sent(&chars[..k]), "'", out);
            line_forms("text '", &sent(&chars[n - k..]), "", out);
        }
        for w in [CHUNK - 1, CHUNK] {
            if n > w {
                for start in 0..=n - w {
                    line_forms("", &sent(&chars[start..start + w]), "", out);
                }
            }
        }
    }
}

/// The base64 characters that depend only on `secret`'s bytes when it follows `shift` other
/// bytes (and is followed by any), from its first to its last whole character.
fn base64_core(secret: &[u8], shift: usize) -> String {
    let mut padded = vec![0u8; shift];
    padded.extend_from_slice(secret);
    let b64 = STANDARD.encode(&padded);
    let first = (8 * shift).div_ceil(6);
    let last = 8 * padded.len() / 6;
    b64.get(first..last).unwrap_or("").to_string()
}

/// The ADBKeyBoard forms of `secret` (see the module documentation).
pub fn base64_forms(secret: &str, out: &mut Vec<Needle>) {
    let bytes = secret.as_bytes();
    let mut forms = vec![STANDARD.encode(bytes)];
    forms.extend((0..3).map(|shift| base64_core(bytes, shift)));
    for f in forms {
        if f.len() >= MIN_PIECE_CHARS {
            // Base64 has no character any output form escapes.
            line_forms("", &f, "", out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_cut_where_the_encoder_cuts() {
        assert_eq!(segments("ab cd"), ["ab cd"]);
        assert_eq!(segments("a\nb\tc"), ["a", "b", "c"]);
        assert_eq!(segments("100%sure"), ["100%", "sure"]);
        assert_eq!(segments("x%s%sy"), ["x%", "s%", "sy"]);
    }

    #[test]
    fn the_base64_core_is_in_every_shifted_encoding() {
        let secret = "Zoë 用户-secret".as_bytes();
        for shift in 0..3 {
            let core = base64_core(secret, shift);
            assert!(core.len() >= 16, "{core}");
            for before in [&b""[..], b"a", b"ab", b"abc", b"abcd"] {
                if before.len() % 3 != shift {
                    continue;
                }
                for after in [&b""[..], b"x", b"xy"] {
                    let typed = [before, secret, after].concat();
                    assert!(STANDARD.encode(&typed).contains(&core), "{shift} {typed:?}");
                }
            }
        }
    }

    #[test]
    fn a_short_secret_has_its_anchored_pieces() {
        let mut out = Vec::new();
        key_forms("pa ss", &mut out);
        let texts: Vec<&str> = out.iter().map(|n| n.text.as_str()).collect();
        assert!(texts.contains(&"pa%sss"));
        // "pa s" before a chunk's closing quote, "a ss" after `text '`.
        assert!(texts.contains(&"pa%ss'"), "{texts:?}");
        assert!(texts.contains(&"text 'a%sss"));
        assert!(
            !texts.contains(&"pa%ss"),
            "a 4-character piece is kept anchored"
        );
    }
}
