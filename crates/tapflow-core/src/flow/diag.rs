//! Diagnostics: plain, serialisable data (`Diagnostic`) describing one problem in one file, with
//! a span, a label for the underlined text and an optional suggestion; the cap on how many are
//! listed per file; and their JSON form. Text rendering is in `render`.
//!
//! Sizes are bounded whatever the input: the underlined text and every message are clipped
//! (a 20 MB scalar is not copied into each diagnostic about it), and at most
//! [`MAX_DIAGNOSTICS_PER_FILE`] diagnostics are listed per file, the rest counted.

use std::collections::BTreeMap;

use serde::Serialize;

use super::source::{SourceFile, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// Most diagnostics listed per file; the others are counted in an [`Omitted`] entry
/// ("… and N more"). Fixing the first ones usually removes many of the rest.
pub const MAX_DIAGNOSTICS_PER_FILE: usize = 100;
/// Longest underlined text kept in a diagnostic (characters; longer text ends with `…`).
pub const MAX_TEXT_CHARS: usize = 200;
/// Longest message, label or help (characters; longer ones end with `…`), so that a 1 MB key
/// named in "unknown step `…`" is not printed whole.
pub const MAX_MESSAGE_CHARS: usize = 500;

/// `s` cut to `max` characters, with `…` when something was cut.
pub fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

fn clip_owned(s: String, max: usize) -> String {
    if s.len() <= max { s } else { clip(&s, max) }
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
            message: clip_owned(message.into(), MAX_MESSAGE_CHARS),
            file: src.name().to_string(),
            line: start.line,
            column: start.column,
            end_line: end.line,
            end_column: end.column,
            text: clip(
                src.slice(Span::new(
                    span.start,
                    span.end.min(span.start + 4 * MAX_TEXT_CHARS + 4),
                )),
                MAX_TEXT_CHARS,
            ),
            label: clip_owned(label.into(), MAX_MESSAGE_CHARS),
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
        self.help = Some(clip_owned(help.into(), MAX_MESSAGE_CHARS));
        self
    }

    pub fn with_help_opt(mut self, help: Option<String>) -> Self {
        self.help = help.map(|h| clip_owned(h, MAX_MESSAGE_CHARS));
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

/// Diagnostics of one file that were found but not listed (past [`MAX_DIAGNOSTICS_PER_FILE`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Omitted {
    pub file: String,
    pub errors: usize,
    pub warnings: usize,
}

impl Omitted {
    pub fn total(&self) -> usize {
        self.errors + self.warnings
    }
}

/// Keeps the first `max` diagnostics of each file (`diags` sorted by file, as
/// [`sort_and_dedup`] leaves them) and counts the others per file.
pub fn cap_per_file(diags: &mut Vec<Diagnostic>, max: usize) -> Vec<Omitted> {
    let mut omitted: Vec<Omitted> = Vec::new();
    let mut kept_in_file = 0;
    let mut file: Option<String> = None;
    diags.retain(|d| {
        if file.as_deref() != Some(d.file.as_str()) {
            file = Some(d.file.clone());
            kept_in_file = 0;
        }
        if kept_in_file < max {
            kept_in_file += 1;
            return true;
        }
        if omitted.last().is_none_or(|o| o.file != d.file) {
            omitted.push(Omitted {
                file: d.file.clone(),
                errors: 0,
                warnings: 0,
            });
        }
        let o = omitted.last_mut().expect("pushed above");
        match d.severity {
            Severity::Error => o.errors += 1,
            Severity::Warning => o.warnings += 1,
        }
        false
    });
    omitted
}

/// The JSON form of a validation result: the listed diagnostics, what was left out per file,
/// and counts of everything found (listed or not).
#[derive(Debug, Serialize)]
pub struct DiagnosticReport<'a> {
    pub errors: usize,
    pub warnings: usize,
    pub diagnostics: &'a [Diagnostic],
    /// Files with more than [`MAX_DIAGNOSTICS_PER_FILE`] diagnostics: how many were not listed.
    #[serde(skip_serializing_if = "<[Omitted]>::is_empty")]
    pub omitted: &'a [Omitted],
}

impl<'a> DiagnosticReport<'a> {
    pub fn new(diagnostics: &'a [Diagnostic]) -> Self {
        Self::with_omitted(diagnostics, &[])
    }

    pub fn with_omitted(diagnostics: &'a [Diagnostic], omitted: &'a [Omitted]) -> Self {
        let listed_errors = diagnostics.iter().filter(|d| d.is_error()).count();
        Self {
            errors: listed_errors + omitted.iter().map(|o| o.errors).sum::<usize>(),
            warnings: diagnostics.len() - listed_errors
                + omitted.iter().map(|o| o.warnings).sum::<usize>(),
            diagnostics,
            omitted,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_spans_widen_to_one_character() {
        let src = SourceFile::new("f.yaml", "ab");
        let d = Diagnostic::error(&src, Span::new(1, 1), "x", "m", "l");
        assert_eq!(d.text, "b");
        let at_end = Diagnostic::error(&src, Span::new(9, 9), "x", "m", "l");
        assert_eq!(at_end.text, "");
    }

    #[test]
    fn huge_text_and_messages_are_clipped() {
        let key = "k".repeat(1_000_000);
        let src = SourceFile::new("f.yaml", format!("{key}: 1\n"));
        let d = Diagnostic::error(
            &src,
            Span::new(0, key.len()),
            "unknown-key",
            format!("unknown flow key `{key}`"),
            "l",
        )
        .with_help(format!("did you mean {key}"));
        assert_eq!(d.text.chars().count(), MAX_TEXT_CHARS + 1);
        assert!(d.text.ends_with('…'));
        assert_eq!(d.message.chars().count(), MAX_MESSAGE_CHARS + 1);
        assert!(d.help.unwrap().ends_with('…'));
        // The true extent is kept.
        assert_eq!((d.column, d.end_column), (1, 1_000_001));
        let wide = "登".repeat(300);
        let src = SourceFile::new("f.yaml", wide.clone());
        let d = Diagnostic::error(&src, Span::new(0, wide.len()), "x", "m", "l");
        assert_eq!(d.text, format!("{}…", "登".repeat(MAX_TEXT_CHARS)));
    }

    #[test]
    fn the_cap_keeps_the_first_diagnostics_of_each_file_and_counts_the_rest() {
        let a = SourceFile::new("a.yaml", "x".repeat(500));
        let b = SourceFile::new("b.yaml", "y".repeat(10));
        let mut diags: Vec<Diagnostic> = (0..250)
            .map(|i| {
                let d = Diagnostic::error(&a, Span::new(i, i + 1), "x", "m", "l");
                if i % 2 == 0 {
                    d
                } else {
                    Diagnostic::warning(&a, Span::new(i, i + 1), "w", "m", "l")
                }
            })
            .chain((0..3).map(|i| Diagnostic::error(&b, Span::new(i, i + 1), "x", "m", "l")))
            .collect();
        sort_and_dedup(&mut diags);
        let omitted = cap_per_file(&mut diags, 100);
        assert_eq!(diags.len(), 103);
        assert_eq!(
            omitted,
            [Omitted {
                file: "a.yaml".into(),
                errors: 75,
                warnings: 75
            }]
        );
        let report = DiagnosticReport::with_omitted(&diags, &omitted);
        assert_eq!((report.errors, report.warnings), (125 + 3, 125));
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["omitted"][0]["errors"], 75);
        let plain = serde_json::to_value(DiagnosticReport::new(&diags[100..])).unwrap();
        assert!(plain.get("omitted").is_none(), "{plain}");
    }
}
