//! Flow files: YAML text → [`Flow`] AST with a span on every node, plus diagnostics (with
//! `file:line:col`, the offending text and a suggestion) rendered as text or JSON.
//!
//! This module is a pure function of text: it uses nothing else in the crate and never reads
//! files or the environment. Tool names and parameters are not checked here (the planner does
//! that against the tool catalog); everything about the file's own structure is.

pub mod ast;
pub mod diag;
pub mod duration;
pub mod excerpt;
pub mod format;
pub mod parse;
pub mod render;
pub mod source;
pub mod suggest;
pub mod template;
pub mod yaml;

pub use ast::Flow;
pub use diag::{
    Diagnostic, DiagnosticReport, MAX_DIAGNOSTICS_PER_FILE, Omitted, Severity, SourceMap,
    cap_per_file, sort_and_dedup,
};
pub use parse::{Parsed, parse_flow};
pub use render::{render_report, render_text};
pub use source::{LineCol, SourceFile, Span};

/// True for files that are sub-flows by convention (a `subflows/` directory anywhere in the
/// path, or a `*.subflow.yaml` / `*.subflow.yml` name): `tapflow run DIR` does not run them on
/// their own; they are validated in the context of the flows that call them.
pub fn is_subflow_path(path: &str) -> bool {
    let normal = path.replace('\\', "/");
    normal.ends_with(".subflow.yaml")
        || normal.ends_with(".subflow.yml")
        || normal.split('/').any(|seg| seg == "subflows")
}

/// True for file names that hold flows (`.yaml`, `.yml`).
pub fn is_flow_path(path: &str) -> bool {
    path.ends_with(".yaml") || path.ends_with(".yml")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subflow_convention() {
        assert!(is_subflow_path("flows/subflows/login.yaml"));
        assert!(is_subflow_path("flows/login.subflow.yaml"));
        assert!(!is_subflow_path("flows/login.yaml"));
        assert!(!is_subflow_path("flows/mysubflows/login.yaml"));
    }
}
