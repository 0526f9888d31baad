//! Listing of `/data/log/faultlog/faultlogger/` (`ls` output) into crash entries.
use crate::device::model::CrashEntry;

pub fn parse_crash_listing(text: &str) -> Vec<CrashEntry> {
    todo!("parsers helper: {text}")
}

/// `cppcrash-<process>-<uid>-<timestamp>.log` and friends; `None` for other names.
pub fn parse_crash_file_name(name: &str) -> Option<CrashEntry> {
    todo!("parsers helper: {name}")
}
