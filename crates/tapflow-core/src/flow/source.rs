//! Source text and positions: a [`SourceFile`] owns one flow file's text and maps byte offsets to
//! 1-based line and column numbers, where columns count characters (Unicode scalar values), not
//! bytes, so that a caret under `登录` points at the right place. Nothing here knows about YAML.
//!
//! Every position lookup costs O(log n + 4 KiB) whatever the file looks like: a sparse index
//! keeps the number of characters before every 4 KiB block, so a file that is one 1 MB line
//! with 50 000 diagnostics on it is not rescanned from the line start for each of them. The
//! text is shared (`Arc`), so keeping a file for rendering does not copy it.

use std::sync::Arc;

use serde::Serialize;

/// A byte range `[start, end)` into a [`SourceFile`]'s text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, PartialOrd, Ord)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }

    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A line/column position, both 1-based; the column counts characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

/// Bytes per block of the character index.
const BLOCK: usize = 4096;

/// One flow file: its display name (the path as the user gave it) and its text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    name: String,
    /// `Arc<String>`, not `Arc<str>`: made from the `String` read, without copying it.
    text: Arc<String>,
    /// Byte offset of the first byte of every line.
    line_starts: Arc<[usize]>,
    /// `block_chars[k]`: the number of characters that start before byte `k * BLOCK`.
    block_chars: Arc<[usize]>,
}

/// True for the first byte of a UTF-8 sequence.
fn starts_char(b: u8) -> bool {
    b & 0xC0 != 0x80
}

fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|b| starts_char(**b)).count()
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        let text = Arc::new(text.into());
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        let mut block_chars = Vec::with_capacity(text.len() / BLOCK + 1);
        let mut total = 0;
        for block in text.as_bytes().chunks(BLOCK) {
            block_chars.push(total);
            total += count_chars(block);
        }
        block_chars.push(total);
        Self {
            name: name.into(),
            text,
            line_starts: line_starts.into(),
            block_chars: block_chars.into(),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Number of lines (a final line break does not start another line).
    pub fn line_count(&self) -> usize {
        let n = self.line_starts.len();
        if n > 1 && self.line_starts[n - 1] == self.text.len() {
            n - 1
        } else {
            n
        }
    }

    /// The number of the last line, counting the empty line after a final line break (where
    /// a diagnostic at the very end of the file is).
    pub fn last_line_number(&self) -> usize {
        self.line_starts.len()
    }

    /// The byte offset where the line after 1-based `line` starts, or the text's length.
    pub fn next_line_start(&self, line: usize) -> usize {
        self.line_starts
            .get(line)
            .copied()
            .unwrap_or(self.text.len())
    }

    /// Clamps an offset into the text and onto a character boundary (never panics).
    pub fn clamp(&self, offset: usize) -> usize {
        let mut o = offset.min(self.text.len());
        while !self.text.is_char_boundary(o) {
            o -= 1;
        }
        o
    }

    /// Number of characters that start before byte `offset`.
    fn chars_before(&self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        let k = offset / BLOCK;
        self.block_chars[k] + count_chars(&self.text.as_bytes()[k * BLOCK..offset])
    }

    /// The byte offset of the `n`-th character (0-based) of the text, or the text's length.
    fn offset_of_char(&self, n: usize) -> usize {
        let k = self
            .block_chars
            .partition_point(|&c| c <= n)
            .saturating_sub(1);
        let mut seen = self.block_chars[k];
        let bytes = self.text.as_bytes();
        for (i, b) in bytes.iter().enumerate().skip(k * BLOCK) {
            if starts_char(*b) {
                if seen == n {
                    return i;
                }
                seen += 1;
            }
        }
        bytes.len()
    }

    /// Byte range of a 1-based line without its line break (`\n`, `\r\n`); `None` past the end.
    pub fn line_range(&self, line: usize) -> Option<(usize, usize)> {
        let start = *self.line_starts.get(line.checked_sub(1)?)?;
        let mut end = self
            .line_starts
            .get(line)
            .map_or(self.text.len(), |next| next - 1);
        if end > start && self.text.as_bytes()[end - 1] == b'\r' {
            end -= 1;
        }
        Some((start, end))
    }

    /// The byte offset of a 1-based line and character column (clamped to the line).
    pub fn offset_of(&self, line: usize, column: usize) -> usize {
        let Some((start, end)) = self.line_range(line.max(1)) else {
            return self.text.len();
        };
        let target = self.chars_before(start) + column.saturating_sub(1);
        self.offset_of_char(target).min(end)
    }

    /// The byte offset `chars` characters after `from` (a character boundary), stopping at `to`.
    pub fn advance(&self, from: usize, chars: usize, to: usize) -> usize {
        self.offset_of_char(self.chars_before(from) + chars).min(to)
    }

    /// Number of characters in `[from, to)`.
    pub fn char_len(&self, from: usize, to: usize) -> usize {
        self.chars_before(to)
            .saturating_sub(self.chars_before(from))
    }

    /// Line and character column of a byte offset.
    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = self.clamp(offset);
        let line_idx = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line_idx];
        LineCol {
            line: line_idx + 1,
            column: self.char_len(start, offset) + 1,
        }
    }

    /// The text of a 1-based line, without its line break.
    pub fn line(&self, line: usize) -> &str {
        match self.line_range(line) {
            Some((s, e)) => &self.text[s..e],
            None => "",
        }
    }

    /// The text a span covers (clamped; never panics).
    pub fn slice(&self, span: Span) -> &str {
        let s = self.clamp(span.start);
        let e = self.clamp(span.end.max(span.start));
        &self.text[s..e]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_not_bytes() {
        let src = SourceFile::new("f.yaml", "name: 登录\nsteps: [x]\n");
        // "x" is on line 2; on line 1 the character after "登录" is at column 9.
        let x = src.text().find('x').unwrap();
        assert_eq!(src.line_col(x), LineCol { line: 2, column: 9 });
        let end_of_name = src.text().find('\n').unwrap();
        assert_eq!(src.line_col(end_of_name), LineCol { line: 1, column: 9 });
        assert_eq!(src.offset_of(1, 9), end_of_name);
        assert_eq!(src.line(2), "steps: [x]");
        assert_eq!(src.line_count(), 2);
    }

    #[test]
    fn offsets_inside_a_character_are_clamped() {
        let src = SourceFile::new("f.yaml", "a: é");
        assert_eq!(src.line_col(4).column, 4);
        assert_eq!(src.slice(Span::new(4, 99)), "é");
        assert_eq!(src.line(7), "");
        assert_eq!(src.offset_of(9, 1), src.text().len());
        assert_eq!(src.offset_of(1, 99), src.text().len());
    }

    #[test]
    fn crlf_line_breaks_are_not_part_of_the_line() {
        let src = SourceFile::new("f.yaml", "a: 1\r\nb: 2\r\n");
        assert_eq!(src.line(1), "a: 1");
        assert_eq!(src.offset_of(1, 9), 4);
        assert_eq!(src.line_col(7), LineCol { line: 2, column: 2 });
    }

    /// The block index must agree with a plain character count everywhere, including offsets
    /// next to block boundaries that fall inside a multi-byte character.
    #[test]
    fn the_block_index_agrees_with_counting_from_the_line_start() {
        let line: String = (0..3000)
            .map(|i| match i % 5 {
                0 => '登',
                1 => 'é',
                2 => '😀',
                _ => 'a',
            })
            .collect();
        let text = format!("k: 1\n{line}\n{line}");
        let src = SourceFile::new("f.yaml", text.clone());
        for (offset, _) in text.char_indices().step_by(7) {
            let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
            let expected = LineCol {
                line: text[..offset].matches('\n').count() + 1,
                column: text[start..offset].chars().count() + 1,
            };
            let got = src.line_col(offset);
            assert_eq!(got, expected, "offset {offset}");
            assert_eq!(src.offset_of(got.line, got.column), offset);
        }
    }

    #[test]
    fn a_column_on_a_huge_line_is_found_without_rescanning_it() {
        let text = format!("steps: [{}x]", "a, ".repeat(400_000));
        let src = SourceFile::new("f.yaml", text.clone());
        let x = text.find('x').unwrap();
        let t = std::time::Instant::now();
        for _ in 0..50_000 {
            assert_eq!(src.line_col(x).column, x + 1);
        }
        // A hang guard, not a benchmark: a rescan per call would take minutes.
        assert!(t.elapsed() < std::time::Duration::from_secs(20));
    }
}
