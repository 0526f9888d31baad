//! The few source lines a diagnostic shows: the line of the problem with one line of context on
//! each side, clipped to a window of characters around the problem when a line is long, with the
//! underline moved into the clipped text and the true line and column kept for the header.
//!
//! miette draws the excerpt. It is handed only this small text, never the whole file: its own
//! span lookup scans the file from the start for every diagnostic, and it cannot print a column
//! past 65 535 (it panics with `Formatting argument out of range`). Built from the
//! [`SourceFile`] index, an excerpt costs the same whether the file is 100 bytes or one 20 MB
//! line, so rendering costs what is shown.

use miette::{MietteError, SourceCode, SourceSpan, SpanContents};

use super::source::{SourceFile, Span};

/// Characters of a line shown around the problem; longer lines are clipped (`…` marks a cut).
pub const WINDOW: usize = 100;
/// Characters shown before the problem's column on a clipped line.
const LEAD: usize = 30;
/// A span over more lines than this is underlined on its first line only.
const MAX_LABEL_LINES: usize = 6;
/// Context lines shown before and after the underlined lines.
const CONTEXT: usize = 1;
const ELLIPSIS: char = '…';

/// A clipped piece of a source file and where the diagnostic's span falls in it.
#[derive(Debug)]
pub struct Excerpt {
    name: String,
    text: String,
    /// 0-based line number (in the file) of the excerpt's first line.
    first_line: usize,
    /// 0-based line and character column (in the file) of the span's start.
    start_line: usize,
    start_column: usize,
    /// The span in the excerpt's own byte offsets.
    pub label: SourceSpan,
}

impl Excerpt {
    /// The excerpt for `span` of `src` (offsets already clamped onto character boundaries).
    pub fn new(src: &SourceFile, span: Span) -> Self {
        let start = src.line_col(span.start);
        let end = src.line_col(span.end);
        // The underlined lines, then the context around them.
        let last_label_line = if end.line - start.line < MAX_LABEL_LINES {
            end.line
        } else {
            start.line
        };
        let lines = src.last_line_number();
        let first = start.line.saturating_sub(CONTEXT).max(1);
        let last = (last_label_line + CONTEXT).min(lines);

        // One window of characters for every line, so that a multi-line span stays aligned.
        let widest = (first..=last)
            .filter_map(|l| src.line_range(l))
            .map(|(s, e)| src.char_len(s, e))
            .max()
            .unwrap_or(0);
        let column0 = start.column - 1;
        let window = if widest <= WINDOW {
            None
        } else if column0 + LEAD < WINDOW {
            Some(0)
        } else {
            Some(column0 - LEAD)
        };

        let mut b = Builder {
            text: String::new(),
            points: [span.start, span.end],
            found: [None, None],
        };
        for line in first..=last {
            let Some((ls, le)) = src.line_range(line) else {
                break;
            };
            let next = src.next_line_start(line);
            let (ws, we) = match window {
                Some(w0) => (src.advance(ls, w0, le), src.advance(ls, w0 + WINDOW, le)),
                None => (ls, le),
            };
            // A point left of the window (the end of a span on a later line) goes to its start.
            if ws > ls {
                b.text.push(ELLIPSIS);
            }
            b.mark_range(ls, ws);
            for (i, c) in src.text()[ws..we].char_indices() {
                b.mark(ws + i);
                crate::visible::push_visible(&mut b.text, shown(c));
            }
            // The line's end (its break included), and anything right of the window.
            b.mark_range(we, next.max(we + 1));
            if line == last_label_line && b.found[1].is_none() {
                b.found[1] = Some(b.text.len());
            }
            if we < le {
                b.text.push(ELLIPSIS);
            }
            // Line breaks as the file has them (also after the last line shown), so that
            // miette finds the same lines in the excerpt as it would in the file.
            if next > le {
                b.text.push('\n');
            }
        }
        let s = b.found[0].unwrap_or(b.text.len());
        let e = b.found[1].unwrap_or(b.text.len()).max(s);
        Self {
            name: src.name().to_string(),
            text: b.text,
            first_line: first - 1,
            start_line: start.line - 1,
            start_column: column0,
            label: SourceSpan::new(s.into(), e - s),
        }
    }

    /// The excerpt's text (for tests).
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// Collects the excerpt text and where the span's two ends land in it.
struct Builder {
    text: String,
    points: [usize; 2],
    found: [Option<usize>; 2],
}

impl Builder {
    fn mark(&mut self, offset: usize) {
        self.mark_range(offset, offset + 1);
    }

    /// Places every span end in `[from, to)` at the current position.
    fn mark_range(&mut self, from: usize, to: usize) {
        for (p, f) in self.points.iter().zip(self.found.iter_mut()) {
            if f.is_none() && (from..to).contains(p) {
                *f = Some(self.text.len());
            }
        }
    }
}

/// Control characters (escape sequences, a lone carriage return) are shown as `�`, so a flow
/// file cannot drive the terminal through a diagnostic; tabs stay (miette expands them).
/// Bidirectional controls are then written out as `<U+202E>` ([`crate::visible`]), so a line
/// cannot hide what it says.
fn shown(c: char) -> char {
    if c.is_control() && c != '\t' {
        char::REPLACEMENT_CHARACTER
    } else {
        c
    }
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner =
            self.text
                .as_str()
                .read_span(span, context_lines_before, context_lines_after)?;
        // Without context, miette wants the span's own position: the file's, in characters.
        let column = if context_lines_before == 0 && context_lines_after == 0 {
            self.start_column
        } else {
            inner.column()
        };
        let line = if context_lines_before == 0 && context_lines_after == 0 {
            self.start_line
        } else {
            inner.line() + self.first_line
        };
        Ok(Box::new(miette::MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            *inner.span(),
            line,
            column,
            inner.line_count(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn excerpt(text: &str, needle: &str) -> (SourceFile, Excerpt) {
        let src = SourceFile::new("f.yaml", text);
        let at = text.find(needle).unwrap();
        let ex = Excerpt::new(&src, Span::new(at, at + needle.len()));
        (src, ex)
    }

    fn labelled(ex: &Excerpt) -> &str {
        &ex.text()[ex.label.offset()..ex.label.offset() + ex.label.len()]
    }

    #[test]
    fn short_lines_are_copied_with_one_line_of_context() {
        let (_, ex) = excerpt("a: 1\nb: 2\nc: 3\nd: 4\n", "c");
        assert_eq!(ex.text(), "b: 2\nc: 3\nd: 4\n");
        assert_eq!(labelled(&ex), "c");
        assert_eq!(ex.first_line, 1);
    }

    #[test]
    fn a_long_line_is_clipped_around_the_column() {
        let text = format!(
            "steps: [{{input_text: \"{}\"}}, {{clik: Login}}]\n",
            "a".repeat(70_000)
        );
        let (src, ex) = excerpt(&text, "clik");
        assert_eq!(labelled(&ex), "clik");
        let shown = ex.text().trim_end();
        assert!(
            shown.starts_with('…') && shown.ends_with("Login}]"),
            "{shown}"
        );
        assert!(shown.chars().count() <= WINDOW + 2, "{shown}");
        let col = src.line_col(text.find("clik").unwrap()).column;
        assert_eq!((ex.start_line, ex.start_column + 1), (0, col));
    }

    #[test]
    fn context_lines_share_the_window_and_the_end_of_a_span_is_clipped() {
        let long = "x".repeat(500);
        let text = format!("{long}\n{long}BAD{long}\n{long}\n");
        let (_, ex) = excerpt(&text, &format!("BAD{}", &long[..300]));
        let lines: Vec<&str> = ex.text().lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines.iter().all(|l| l.starts_with('…')), "{lines:?}");
        assert_eq!(lines[0].chars().count(), 1 + 30);
        assert!(lines[1].ends_with('…'), "{lines:?}");
        assert!(labelled(&ex).starts_with("BAD"));
        assert_eq!(labelled(&ex).chars().count(), WINDOW - LEAD);
    }

    #[test]
    fn control_characters_are_not_passed_to_the_terminal() {
        let (_, ex) = excerpt("a: \"\u{1b}[31mred\"\nb: \r1\n", "red");
        assert!(!ex.text().contains('\u{1b}') && !ex.text().contains('\r'));
        assert_eq!(labelled(&ex), "red");
    }

    /// Issue 18, seen 2: a right-to-left override in a flow reached the terminal raw.
    #[test]
    fn bidi_controls_are_shown_escaped_and_the_underline_stays_on_its_text() {
        let (_, ex) = excerpt("name: \"a\u{202E}b\"\nsteps: [x\u{2066}y, BAD]\n", "BAD");
        assert!(!ex.text().chars().any(crate::visible::is_bidi_control));
        assert!(ex.text().contains("a<U+202E>b") && ex.text().contains("x<U+2066>y"));
        assert_eq!(labelled(&ex), "BAD");
    }

    #[test]
    fn a_tall_span_is_underlined_on_its_first_line() {
        let text = format!("k: [\n{}]\n", "  a,\n".repeat(50));
        let src = SourceFile::new("f.yaml", text.clone());
        let start = text.find('[').unwrap();
        let ex = Excerpt::new(&src, Span::new(start, text.len() - 1));
        assert_eq!(ex.text(), "k: [\n  a,\n");
        assert_eq!(labelled(&ex), "[");
    }

    #[test]
    fn a_span_at_the_end_of_the_file_is_empty_at_the_end() {
        let text = "a: 1\nb: [";
        let src = SourceFile::new("f.yaml", text);
        let ex = Excerpt::new(&src, Span::new(text.len(), text.len()));
        assert_eq!(ex.text(), "a: 1\nb: [");
        assert_eq!(ex.label.offset(), ex.text().len());
        assert_eq!(ex.label.len(), 0);
    }
}
