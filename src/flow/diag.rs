//! Diagnostics: plain, serialisable data (`Diagnostic`) describing one problem in one file, with
//! a span, a label for the underlined text and an optional suggestion; and their rendering as
//! text (miette's graphical report, no colour, so golden files are stable) and as JSON.

use std::collections::BTreeMap;
use std::fmt;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceSpan};
use serde::Serialize;

use super::source::{SourceFile, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One problem found in a flow file. Line and column are 1-based; columns count characters.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable machine-readable code, e.g. `unknown-step`.
    pub code: String,
    /// What is wrong, as one sentence fragment.
    pub message: String,
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    /// The underlined source text.
    pub text: String,
    /// The short note printed under the carets.
    pub label: String,
    /// What to do about it (`did you mean click?`), when we know.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    #[serde(skip)]
    pub span: Span,
}

impl Diagnostic {
    /// A diagnostic at `span` of `src`. Empty spans are widened to one character so that there
    /// is always something to underline.
    pub fn error(
        src: &SourceFile,
        span: Span,
        code: &str,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> Self {
        let mut span = Span::new(src.clamp(span.start), src.clamp(span.end.max(span.start)));
        if span.is_empty() {
            let next = src.text()[span.start..]
                .chars()
                .next()
                .filter(|c| *c != '\n')
                .map_or(0, char::len_utf8);
            span.end = span.start + next;
        }
        let start = src.line_col(span.start);
        let end = src.line_col(span.end);
        Self {
            severity: Severity::Error,
            code: code.to_string(),
            message: message.into(),
            file: src.name().to_string(),
            line: start.line,
            column: start.column,
            end_line: end.line,
            end_column: end.column,
            text: src.slice(span).to_string(),
            label: label.into(),
            help: None,
            span,
        }
    }

    pub fn warning(
        src: &SourceFile,
        span: Span,
        code: &str,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> Self {
        let mut d = Self::error(src, span, code, message, label);
        d.severity = Severity::Warning;
        d
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_help_opt(mut self, help: Option<String>) -> Self {
        self.help = help;
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// The sources diagnostics point into, by file name, so they can be rendered with context.
#[derive(Default, Debug, Clone)]
pub struct SourceMap {
    files: BTreeMap<String, SourceFile>,
}

impl SourceMap {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn insert(&mut self, file: SourceFile) {
        self.files.insert(file.name().to_string(), file);
    }

    pub fn get(&self, name: &str) -> Option<&SourceFile> {
        self.files.get(name)
    }
}

/// Sorts diagnostics by file and position and drops exact duplicates (a sub-flow checked once
/// per caller reports the same problem once).
pub fn sort_and_dedup(diags: &mut Vec<Diagnostic>) {
    diags.sort_by(|a, b| {
        (&a.file, a.span.start, a.span.end, &a.code, &a.message).cmp(&(
            &b.file,
            b.span.start,
            b.span.end,
            &b.code,
            &b.message,
        ))
    });
    diags.dedup_by(|a, b| {
        a.file == b.file && a.span == b.span && a.code == b.code && a.message == b.message
    });
}

/// Renders diagnostics for a terminal (no colour): a header with `file:line:col`, the source
/// lines, the underlined text with its label, and the suggestion.
pub fn render_text(diags: &[Diagnostic], sources: &SourceMap) -> String {
    render_text_styled(diags, sources, false)
}

/// [`render_text`], with miette's colours when `color` (a terminal that wants them).
pub fn render_text_styled(diags: &[Diagnostic], sources: &SourceMap, color: bool) -> String {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_links(false)
        .with_context_lines(1);
    let mut out = String::new();
    for d in diags {
        out.push_str(&render_one(&handler, d, sources));
        out.push('\n');
    }
    out
}

fn render_one(handler: &GraphicalReportHandler, d: &Diagnostic, sources: &SourceMap) -> String {
    let kind = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut out = format!("{kind}[{}]: {}\n", d.code, d.message);
    let Some(src) = sources.get(&d.file) else {
        out.push_str(&format!("  --> {}:{}:{}\n", d.file, d.line, d.column));
        if let Some(help) = &d.help {
            out.push_str(&format!("  help: {help}\n"));
        }
        return out;
    };
    let report = MietteView {
        diag: d,
        source: CharColumns { src },
    };
    let mut body = String::new();
    if handler.render_report(&mut body, &report).is_err() {
        body = format!("  --> {}:{}:{}\n  {}\n", d.file, d.line, d.column, d.label);
    }
    // miette repeats the message (`× …`) above the snippet; our first line already has it.
    match body.find('╭') {
        Some(i) => {
            let line_start = body[..i].rfind('\n').map_or(0, |n| n + 1);
            out.push_str(&body[line_start..]);
        }
        None => out.push_str(&body),
    }
    out
}

/// Source text for miette whose locator (`╭─[file:line:col]`) counts columns in characters,
/// like every other position we print (miette's own count is in bytes).
struct CharColumns<'s> {
    src: &'s SourceFile,
}

impl miette::SourceCode for CharColumns<'_> {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'a> + 'a>, miette::MietteError> {
        let inner = self
            .src
            .text()
            .read_span(span, context_lines_before, context_lines_after)?;
        let column = if context_lines_before == 0 && context_lines_after == 0 {
            self.src.line_col(span.offset()).column - 1
        } else {
            inner.column()
        };
        Ok(Box::new(miette::MietteSpanContents::new_named(
            self.src.name().to_string(),
            inner.data(),
            *inner.span(),
            inner.line(),
            column,
            inner.line_count(),
        )))
    }
}

/// Adapter that lets miette draw one of our diagnostics.
struct MietteView<'a> {
    diag: &'a Diagnostic,
    source: CharColumns<'a>,
}

impl fmt::Debug for MietteView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MietteView")
            .field("diag", self.diag)
            .finish()
    }
}

impl fmt::Display for MietteView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diag.message)
    }
}

impl std::error::Error for MietteView<'_> {}

impl miette::Diagnostic for MietteView<'_> {
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diag.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.diag
            .help
            .as_ref()
            .map(|h| Box::new(h.clone()) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = SourceSpan::new(self.diag.span.start.into(), self.diag.span.len());
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(
            Some(self.diag.label.clone()),
            span,
        ))))
    }
}

/// The JSON form of a validation result: every diagnostic, plus counts.
#[derive(Debug, Serialize)]
pub struct DiagnosticReport<'a> {
    pub errors: usize,
    pub warnings: usize,
    pub diagnostics: &'a [Diagnostic],
}

impl<'a> DiagnosticReport<'a> {
    pub fn new(diagnostics: &'a [Diagnostic]) -> Self {
        let errors = diagnostics.iter().filter(|d| d.is_error()).count();
        Self {
            errors,
            warnings: diagnostics.len() - errors,
            diagnostics,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_locator_source_caret_and_help() {
        let src = SourceFile::new("login.yaml", "steps:\n  - clik: 登录\n");
        let start = src.text().find("clik").unwrap();
        let d = Diagnostic::error(
            &src,
            Span::new(start, start + 4),
            "unknown-step",
            "unknown step `clik`",
            "not a tool or control step",
        )
        .with_help("did you mean `click`?");
        assert_eq!((d.line, d.column, d.end_column), (2, 5, 9));
        let mut map = SourceMap::new();
        map.insert(src);
        let text = render_text(&[d], &map);
        assert!(
            text.starts_with("error[unknown-step]: unknown step `clik`\n"),
            "{text}"
        );
        assert!(text.contains("╭─[login.yaml:2:5]"), "{text}");
        assert!(!text.contains('×'), "{text}");
        assert!(text.contains("- clik: 登录"), "{text}");
        assert!(text.contains("────"), "{text}");
        assert!(text.contains("did you mean `click`?"), "{text}");
    }

    #[test]
    fn locator_columns_count_characters() {
        let src = SourceFile::new("u.yaml", "steps: [{click: 登录}, {clik: 登录}]\n");
        let start = src.text().find("clik").unwrap();
        let d = Diagnostic::error(&src, Span::new(start, start + 4), "x", "m", "l");
        let mut map = SourceMap::new();
        map.insert(src);
        let text = render_text(&[d], &map);
        assert!(text.contains("╭─[u.yaml:1:23]"), "{text}");
    }

    #[test]
    fn empty_spans_widen_to_one_character() {
        let src = SourceFile::new("f.yaml", "ab");
        let d = Diagnostic::error(&src, Span::new(1, 1), "x", "m", "l");
        assert_eq!(d.text, "b");
        let at_end = Diagnostic::error(&src, Span::new(9, 9), "x", "m", "l");
        assert_eq!(at_end.text, "");
    }
}
