//! Logs: hilog and logcat parsing, time windows, error extraction, markers, crash files and the
//! `logs_query` engine.
//!
//! Pure text processing plus reading host files: this module depends on no other tapflow module.
//! Everything device-side (capturing the hilog buffer, listing and reading faultlogger files) goes
//! through the small [`source::LogCapture`] trait, which the tool layer implements over a `Device`.
//! No function here reads a clock or the environment: `now` and the path allowlist arrive in
//! [`query::QueryEnv`]. Decisions are documented in `docs/logs.md`.

pub mod classify;
pub mod crash;
pub mod error;
pub mod hilog;
pub mod logcat;
pub mod markers;
pub mod package;
pub mod params;
pub mod paths;
pub mod query;
pub mod result;
pub mod scan;
pub mod source;
pub mod time;

pub use error::LogsError;
pub use params::LogsQueryParams;
pub use query::{QueryEnv, execute};
pub use result::LogsQueryResult;
pub use source::{CaptureError, DeviceLogFilter, LogCapture, NoDevice};
