//! Source text and positions: a [`SourceFile`] owns one flow file's text and maps byte offsets to
//! 1-based line and column numbers, where columns count characters (Unicode scalar values), not
//! bytes, so that a caret under `登录` points at the right place. Nothing here knows about YAML.

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

/// One flow file: its display name (the path as the user gave it) and its text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    name: String,
    text: String,
    /// Byte offset of the first byte of every line.
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self {
            name: name.into(),
            text,
            line_starts,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Clamps an offset into the text and onto a character boundary (never panics).
    pub fn clamp(&self, offset: usize) -> usize {
        let mut o = offset.min(self.text.len());
        while !self.text.is_char_boundary(o) {
            o -= 1;
        }
        o
    }

    /// The byte offset of a 1-based line and character column (clamped to the text).
    pub fn offset_of(&self, line: usize, column: usize) -> usize {
        let Some(&start) = self.line_starts.get(line.saturating_sub(1)) else {
            return self.text.len();
        };
        let line_text = self.line_text_at(start);
        let col = column.saturating_sub(1);
        start
            + line_text
                .char_indices()
                .nth(col)
                .map(|(i, _)| i)
                .unwrap_or(line_text.len())
    }

    fn line_text_at(&self, start: usize) -> &str {
        let rest = &self.text[start..];
        rest.split('\n').next().unwrap_or("").trim_end_matches('\r')
    }

    /// Line and character column of a byte offset.
    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = self.clamp(offset);
        let line_idx = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line_idx];
        let column = self.text[start..offset].chars().count() + 1;
        LineCol {
            line: line_idx + 1,
            column,
        }
    }

    /// The text of a 1-based line, without its line break.
    pub fn line(&self, line: usize) -> &str {
        match self.line_starts.get(line.saturating_sub(1)) {
            Some(&start) => self.line_text_at(start),
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
    }

    #[test]
    fn offsets_inside_a_character_are_clamped() {
        let src = SourceFile::new("f.yaml", "a: é");
        assert_eq!(src.line_col(4).column, 4);
        assert_eq!(src.slice(Span::new(4, 99)), "é");
        assert_eq!(src.line(7), "");
    }
}
