//! UI reasoning over layout trees: selectors and matching, disambiguation, element handles,
//! order-independent tree digests and diffs.
//!
//! Owns: pure functions over [`crate::model::UiNode`]; no I/O, no device access.
//! Used by the tools (and later by flows' assertions); must not use `tools`, `run` or `cli`.

pub mod diff;
pub mod digest;
pub mod handle;
pub mod matching;
pub mod near;
pub mod refine;
pub mod selector;
pub mod windows;

#[cfg(test)]
mod props;

pub use handle::{handle_of, locate};
pub use matching::{Match, find};
pub use selector::{Selector, TextMatch};
