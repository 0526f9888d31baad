//! `hidumper -s WindowManagerService -a '-a'` (old and NEXT formats) and `-a '-w <id>'`.
use super::ParseError;
use crate::device::model::{Rect, WindowTable};

/// `Key: value` lines of one window.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WindowDetail {
    pub window_name: Option<String>,
    pub window_id: Option<i64>,
    pub pid: Option<i64>,
    pub visible: Option<bool>,
    pub rect: Option<Rect>,
    pub fields: indexmap::IndexMap<String, String>,
}

pub fn parse_window_table(text: &str) -> Result<WindowTable, ParseError> {
    todo!("parsers helper: {text}")
}

pub fn parse_window_detail(text: &str) -> Result<WindowDetail, ParseError> {
    todo!("parsers helper: {text}")
}
