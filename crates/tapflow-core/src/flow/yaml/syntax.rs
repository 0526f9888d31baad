//! Parser errors as diagnostics: one error at the parser's position, with the size limits
//! ([`MAX_DEPTH`], [`MAX_NODES`], alias expansion) and a second document explained in flow terms.

use super::{MAX_DEPTH, MAX_NODES};
use crate::flow::diag::Diagnostic;
use crate::flow::source::{SourceFile, Span};

/// The error itself, without the wrappers that only add context (snippet, alias location).
fn original(e: &serde_saphyr::Error) -> &serde_saphyr::Error {
    match e {
        serde_saphyr::Error::WithSnippet { error, .. }
        | serde_saphyr::Error::AliasError { error, .. } => original(error),
        other => other,
    }
}

/// Byte offset of a parser location (its byte offset when known, else its line and column).
fn offset_of_location(src: &SourceFile, loc: &serde_saphyr::Location) -> Option<(usize, usize)> {
    if loc.line() == 0 {
        return None;
    }
    let start = match loc.span().byte_offset() {
        Some(b) if loc.span().byte_len().is_some() => b as usize,
        _ => src.offset_of(loc.line() as usize, loc.column() as usize),
    };
    Some((start, loc.span().byte_len().unwrap_or(0) as usize))
}

pub(super) fn syntax_diagnostic(src: &SourceFile, e: &serde_saphyr::Error) -> Diagnostic {
    use serde_saphyr::Error as E;
    use serde_saphyr::budget::BudgetBreach as B;
    let (offset, len) = e
        .location()
        .and_then(|loc| offset_of_location(src, &loc))
        .unwrap_or((src.text().len(), 0));
    let at = Span::new(offset, offset + len);
    let limit = |message: String, help: &str| {
        Diagnostic::error(src, at, "yaml-limit", message, "limit reached here").with_help(help)
    };
    let too_big = "flows are small: split the file, or move repeated steps into a sub-flow (`run_flow`) or a `repeat` block";
    match original(e) {
        E::MultipleDocuments { .. } => return second_document(src, offset),
        E::Budget { breach, .. } => {
            return match breach {
                B::Depth { .. } => limit(
                    format!("the YAML nests deeper than {MAX_DEPTH} levels"),
                    &format!(
                        "flows may nest at most {MAX_DEPTH} levels; move deep blocks into a sub-flow"
                    ),
                ),
                B::Nodes { .. } => limit(
                    format!(
                        "the file holds more than {MAX_NODES} YAML values (an alias counts its anchored value each time it is used)"
                    ),
                    too_big,
                ),
                other => limit(
                    format!("the YAML exceeds a size limit ({other:?})"),
                    too_big,
                ),
            };
        }
        E::AliasReplayLimitExceeded { .. }
        | E::AliasExpansionLimitExceeded { .. }
        | E::AliasReplayStackDepthExceeded { .. }
        | E::AliasReplayCounterOverflow { .. } => {
            return limit(
                format!("aliases expand to more than {MAX_NODES} YAML values (an alias bomb?)"),
                too_big,
            );
        }
        _ => {}
    }
    let rendered = e.to_string();
    let first = rendered.lines().next().unwrap_or("invalid YAML");
    let message = strip_location_prefix(first);
    let help = if message.contains("duplicate mapping key") {
        Some("each key may appear once per mapping; remove or rename one of them".to_string())
    } else if message.contains("tab") {
        Some("indent with spaces; YAML does not allow tabs for indentation".to_string())
    } else {
        None
    };
    Diagnostic::error(
        src,
        at,
        crate::codes::diag::YAML_SYNTAX,
        format!("invalid YAML: {message}"),
        "here",
    )
    .with_help_opt(help)
}

/// A second YAML document: the diagnostic points at the marker that starts it (`---`) or ends
/// the first one (`...`), found from the parser's position (the second document's content).
fn second_document(src: &SourceFile, content: usize) -> Diagnostic {
    let is_marker = |line: &str, m: &str| {
        line.strip_prefix(m)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
    };
    let content_line = src.line_col(content).line;
    let mut found = None;
    for n in (1..=content_line).rev() {
        let line = src.line(n);
        if is_marker(line, "---") || is_marker(line, "...") {
            found = src.line_range(n).map(|(s, _)| Span::new(s, s + 3));
            break;
        }
    }
    let span = found.unwrap_or(Span::new(content, content));
    let marker = src.slice(span).to_string();
    let label = if marker == "..." {
        "the first document ends here"
    } else {
        "a second document starts here"
    };
    Diagnostic::error(
        src,
        span,
        "multiple-documents",
        "a flow file holds one YAML document, and this file has more",
        label,
    )
    .with_help(
        "put all steps in one document (remove this marker), or move the second document into its own flow file",
    )
}

/// serde-saphyr prefixes messages with `error: line N column M: `; we print positions ourselves.
fn strip_location_prefix(msg: &str) -> String {
    let mut m = msg.trim_start_matches("error: ");
    if let Some(rest) = m.strip_prefix("line ")
        && let Some(idx) = rest.find(": ")
        && rest[..idx].contains("column")
    {
        m = &rest[idx + 2..];
    }
    let m = m.split(", set DuplicateKeyPolicy").next().unwrap_or(m);
    static SUFFIX: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\s*at line \d+,? column \d+\s*$").expect("valid regex")
    });
    SUFFIX.replace(m, "").into_owned()
}
