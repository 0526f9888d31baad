//! Logs: hilog and logcat parsing, time windows, error extraction, markers, crash files and the
//! `logs_query` engine.
//!
//! Pure text processing plus reading and writing host files, which go through the host-path
//! policy ([`crate::hostfs`], the one other tapflow module this one uses).
//! Everything device-side (capturing the hilog buffer, listing and reading faultlogger files) goes
//! through the small [`source::LogCapture`] trait, which the tool layer implements over a `Device`.
//! No function here reads a clock or the environment: `now` and the host-path policy arrive in
//! [`query::QueryEnv`]. Decisions are documented in `docs/logs.md`.

pub mod classify;
pub mod crash;
pub mod error;
pub mod files;
pub mod hilog;
pub mod logcat;
pub mod markers;
pub mod package;
pub mod params;
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
