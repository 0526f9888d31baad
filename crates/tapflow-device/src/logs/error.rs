//! The typed error of log queries, with the contract's error codes.
//!
//! Codes come from the `logs_query` contract (`INVALID_QUERY_MODE`, `INVALID_PARAM`,
//! `FILE_NOT_FOUND`, `FILE_TOO_LARGE`, `PATH_NOT_ALLOWED`); a failed device capture keeps the code
//! its [`super::source::CaptureError`] carries (e.g. `DEVICE_NOT_FOUND`), so the tool layer's table
//! of project codes applies unchanged.

use serde_json::Value;

pub use tapflow_core::codes::FILE_NOT_FOUND;
pub use tapflow_core::codes::FILE_TOO_LARGE;
pub use tapflow_core::codes::INVALID_PARAM;
pub use tapflow_core::codes::INVALID_QUERY_MODE;
/// Reading an input file or writing `save_path` failed for a reason other than the checks above
/// (permissions, disk full).
pub use tapflow_core::codes::IO_ERROR;
pub use tapflow_core::codes::PATH_NOT_ALLOWED;

/// Every code this module itself produces (capture errors add the device's own codes).
pub const ALL_CODES: &[tapflow_core::codes::Code] = &[
    INVALID_QUERY_MODE,
    INVALID_PARAM,
    FILE_NOT_FOUND,
    FILE_TOO_LARGE,
    PATH_NOT_ALLOWED,
    IO_ERROR,
];

/// A query failure: a stable code, a human message, and machine-readable details.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct LogsError {
    pub code: tapflow_core::codes::Code,
    pub message: String,
    pub details: Value,
}

impl LogsError {
    pub fn new(code: tapflow_core::codes::Code, message: impl Into<String>) -> Self {
        LogsError {
            code,
            message: message.into(),
            details: Value::Null,
        }
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = details;
        self
    }

    pub fn invalid_param(param: &str, message: impl Into<String>) -> Self {
        LogsError::new(INVALID_PARAM, message).with_details(serde_json::json!({ "param": param }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_details() {
        let e = LogsError::invalid_param("lines", "lines must be at least 1");
        assert_eq!(e.to_string(), "INVALID_PARAM: lines must be at least 1");
        assert_eq!(e.details["param"], "lines");
        assert!(ALL_CODES.contains(&e.code));
    }
}
