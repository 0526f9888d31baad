//! Parsers for everything hdc and the device-side tools print. Pure functions of text; each is
//! tested over every relevant fixture in `tests/fixtures/harmonyos/`.

pub mod aa;
pub mod bm;
pub mod failure;
pub mod faultlog;
pub mod layout;
pub mod outcome;
pub mod param;
pub mod power;
pub mod screen;
pub mod targets;
pub mod windows;

/// Output that could not be understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what}: {detail}")]
pub struct ParseError {
    pub what: &'static str,
    pub detail: String,
}

/// Normalises raw hdc output: strips every `\r`, and drops hdc's own log lines
/// (`[I][2024-05-28 20:15:45] …`, any of `I W E D F`).
pub fn clean_output(raw: &str) -> String {
    todo!("parsers helper: {raw}")
}
