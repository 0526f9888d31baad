//! `hdc list targets [-v]`.
use crate::device::model::Target;

/// Every device line; `[Empty]` gives no targets.
pub fn parse_targets(text: &str) -> Vec<Target> {
    todo!("parsers helper: {text}")
}
