//! `uitest dumpLayout` JSON: compact or pretty, the merged root object or the `-i` per-window array.
use super::ParseError;
use crate::device::model::UiNode;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayoutDump {
    /// One synthetic root whose children are windows (the default).
    Merged(UiNode),
    /// `-i`: one tree per window, not merged.
    PerWindow(Vec<UiNode>),
}

pub fn parse_layout(text: &str) -> Result<LayoutDump, ParseError> {
    todo!("parsers helper: {text}")
}

/// The root uitest writes with the screen locked / no window: bounds `[0,0][0,0]`, no children.
pub fn is_locked_screen_root(root: &UiNode) -> bool {
    todo!("parsers helper: {root:?}")
}
