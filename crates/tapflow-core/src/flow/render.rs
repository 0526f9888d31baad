//! Diagnostics as text for a terminal (no colour, so golden files are stable): a header with
//! `file:line:col`, the source lines around the problem (clipped, see `excerpt`), the underlined
//! text with its label, and the suggestion; after a file's listed diagnostics, how many more
//! were found ("… and N more"). Bidirectional control characters in messages and names are
//! written out (`<U+202E>`, [`crate::visible`]), as they are in excerpts.

use std::fmt;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan};

use super::diag::{Diagnostic, MAX_DIAGNOSTICS_PER_FILE, Omitted, Severity, SourceMap};
use super::excerpt::Excerpt;

/// Renders diagnostics (all of them, however many).
pub fn render_text(diags: &[Diagnostic], sources: &SourceMap) -> String {
    render_report(diags, &[], sources)
}

/// Renders the listed diagnostics and, after each file's last one, the count of that file's
/// diagnostics that were not listed.
pub fn render_report(diags: &[Diagnostic], omitted: &[Omitted], sources: &SourceMap) -> String {
    render_report_styled(diags, omitted, sources, false)
}

/// [`render_report`], with miette's colours when `color` (a terminal that wants them:
/// `--color`, `NO_COLOR`).
pub fn render_report_styled(
    diags: &[Diagnostic],
    omitted: &[Omitted],
    sources: &SourceMap,
    color: bool,
) -> String {
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
    for (i, d) in diags.iter().enumerate() {
        out.push_str(&render_one(&handler, d, sources));
        out.push('\n');
        let last_of_file = diags.get(i + 1).is_none_or(|next| next.file != d.file);
        if let Some(o) = omitted.iter().find(|o| last_of_file && o.file == d.file) {
            out.push_str(&more_line(o));
        }
    }
    // A file can only have omitted diagnostics after listed ones; this is for callers that
    // pass counts without the diagnostics.
    for o in omitted {
        if !diags.iter().any(|d| d.file == o.file) {
            out.push_str(&more_line(o));
        }
    }
    crate::visible::escape_bidi(&out).into_owned()
}

fn more_line(o: &Omitted) -> String {
    format!(
        "… and {} more in {} ({} error(s), {} warning(s)); at most {MAX_DIAGNOSTICS_PER_FILE} diagnostics are listed per file\n\n",
        o.total(),
        o.file,
        o.errors,
        o.warnings
    )
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
        excerpt: Excerpt::new(src, d.span),
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

/// Adapter that lets miette draw one of our diagnostics over its excerpt.
struct MietteView<'a> {
    diag: &'a Diagnostic,
    excerpt: Excerpt,
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
        Some(&self.excerpt)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(
            Some(self.diag.label.clone()),
            self.excerpt.label,
        ))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::diag::cap_per_file;
    use crate::flow::source::{SourceFile, Span};

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

    /// Seen (issue 9): a diagnostic past column 65 535 panicked inside miette
    /// (`Formatting argument out of range`).
    #[test]
    fn a_diagnostic_past_column_65535_renders_a_clipped_excerpt() {
        let text = format!(
            "steps: [{{input_text: \"{}\"}}, {{clik: Login}}]\n",
            "a".repeat(70_000)
        );
        let src = SourceFile::new("wide.yaml", text.clone());
        let at = text.find("clik").unwrap();
        let d = Diagnostic::error(
            &src,
            Span::new(at, at + 4),
            "unknown-step",
            "m",
            "not a tool",
        );
        assert_eq!((d.line, d.column), (1, at + 1));
        let mut map = SourceMap::new();
        map.insert(src);
        let out = render_text(&[d], &map);
        assert!(
            out.contains(&format!("╭─[wide.yaml:1:{}]", at + 1)),
            "{out}"
        );
        let line = out
            .lines()
            .find(|l| l.contains("{clik: Login}]"))
            .expect(&out);
        let caret = out.lines().find(|l| l.contains("┬")).expect(&out);
        let col = |l: &str, pat: &str| l[..l.find(pat).unwrap()].chars().count();
        assert_eq!(col(line, "clik"), col(caret, "──┬─"), "{out}");
        assert!(out.len() < 1_000, "{out}");
    }

    #[test]
    fn omitted_diagnostics_are_counted_after_the_file() {
        let src = SourceFile::new("many.yaml", "x".repeat(300));
        let mut diags: Vec<Diagnostic> = (0..150)
            .map(|i| Diagnostic::error(&src, Span::new(i, i + 1), "x", "m", "l"))
            .collect();
        let omitted = cap_per_file(&mut diags, MAX_DIAGNOSTICS_PER_FILE);
        let mut map = SourceMap::new();
        map.insert(src);
        let out = render_report(&diags, &omitted, &map);
        assert_eq!(out.matches("error[x]").count(), MAX_DIAGNOSTICS_PER_FILE);
        assert!(
            out.trim_end().ends_with(
                "… and 50 more in many.yaml (50 error(s), 0 warning(s)); at most 100 diagnostics are listed per file"
            ),
            "{}",
            &out[out.len() - 300..]
        );
    }
}
