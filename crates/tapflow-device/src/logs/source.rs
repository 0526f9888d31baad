//! The device side of log queries, as a small trait the tool layer implements over a `Device`.
//!
//! Semantics every implementation must keep (the query engine relies on them):
//! - [`LogCapture::capture`]: non-blocking dump of the in-memory hilog buffer (`hilog -x`), with
//!   the filter pushed down where the device can apply it. Returns the text as printed.
//! - [`LogCapture::wait_realtime`]: only lines logged *after* the call, collected for at most
//!   `wait` of wall-clock time (poll the buffer or stream `hilog` against a deadline; never a
//!   fixed sleep longer than the deadline). Returning early when nothing more can arrive is fine.
//! - [`LogCapture::historical`]: the persisted logs (`/data/log/hilog/`, written by `hilog -w`),
//!   decompressed to text; `Unsupported`-style [`CaptureError`] when persistence is off.
//! - [`LogCapture::crash_files`] / [`LogCapture::read_crash_file`]: the faultlogger directory
//!   listing (file names) and one file's content.
//!
//! The filter is an optimisation only: the engine re-applies every filter on the host, so a
//! backend that ignores part of it returns a larger text but the same answer.

use std::time::Duration;

use super::hilog::Level;

/// Filters pushed down to the device's hilog reader. Empty means everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceLogFilter {
    /// Minimum level (hilog `-L` takes a list: this becomes e.g. `E,F`).
    pub min_level: Option<Level>,
    pub tags: Vec<String>,
    /// As hilog `-D` takes it: `0x` + hex.
    pub domain: Option<String>,
    pub pids: Vec<u32>,
}

impl DeviceLogFilter {
    /// The device-side command `hilog -x …` for this filter, with every user-supplied value
    /// single-quoted for `sh` (the command travels as one argv element after `hdc shell`).
    pub fn to_hilog_command(&self) -> String {
        let mut cmd = String::from("hilog -x");
        if let Some(min) = self.min_level {
            let levels: Vec<String> = [
                Level::Debug,
                Level::Info,
                Level::Warn,
                Level::Error,
                Level::Fatal,
            ]
            .into_iter()
            .filter(|l| *l >= min)
            .map(|l| l.letter().to_string())
            .collect();
            cmd.push_str(" -L ");
            cmd.push_str(&levels.join(","));
        }
        if !self.tags.is_empty() {
            cmd.push_str(" -T ");
            cmd.push_str(&sh_quote(&self.tags.join(",")));
        }
        if let Some(d) = &self.domain {
            cmd.push_str(" -D ");
            cmd.push_str(&sh_quote(d));
        }
        if !self.pids.is_empty() {
            let pids: Vec<String> = self.pids.iter().map(u32::to_string).collect();
            cmd.push_str(" -P ");
            cmd.push_str(&pids.join(","));
        }
        cmd
    }
}

/// Single-quotes `s` for POSIX `sh` (`'` becomes `'\''`).
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A device-side failure, with the project code the tool layer reports (`DEVICE_NOT_FOUND`,
/// `HDC_TIMEOUT`, `UNSUPPORTED`, …).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct CaptureError {
    pub code: tapflow_core::codes::Code,
    pub message: String,
}

impl CaptureError {
    pub fn new(code: tapflow_core::codes::Code, message: impl Into<String>) -> Self {
        CaptureError {
            code,
            message: message.into(),
        }
    }
}

/// Lines of `current` logged after the buffer snapshot `previous`: the lines following the last
/// occurrence of `previous`'s final lines (three when possible, so repeated identical lines do
/// not confuse it; fewer when the buffer's head has rotated into them). When none can be found
/// the buffer wrapped or was cleared since, and all of `current` is new. Blank lines are
/// dropped. Helps implement [`LogCapture::wait_realtime`] by polling `hilog -x`.
pub fn lines_after_snapshot(previous: &str, current: &str) -> String {
    let prev: Vec<&str> = previous.lines().filter(|l| !l.trim().is_empty()).collect();
    let cur: Vec<&str> = current.lines().filter(|l| !l.trim().is_empty()).collect();
    // Longest anchor first; shorter ones cover a buffer whose head rotated into the anchor.
    for k in (1..=prev.len().min(3)).rev() {
        let anchor = &prev[prev.len() - k..];
        if let Some(i) = (0..=cur.len().saturating_sub(k))
            .rev()
            .find(|&i| cur.len() >= i + k && cur[i..i + k] == *anchor)
        {
            return cur[i + k..].join("\n");
        }
    }
    cur.join("\n")
}

/// Code used by [`NoDevice`].
pub const NO_DEVICE: tapflow_core::codes::Code = tapflow_core::codes::DEVICE_NOT_FOUND;

/// The device side of `logs_query` (see the module doc for the required semantics).
pub trait LogCapture {
    fn capture(&self, filter: &DeviceLogFilter) -> Result<String, CaptureError>;
    fn wait_realtime(
        &self,
        wait: Duration,
        filter: &DeviceLogFilter,
    ) -> Result<String, CaptureError>;
    fn historical(&self, filter: &DeviceLogFilter) -> Result<String, CaptureError>;
    /// File names in the faultlogger directory.
    fn crash_files(&self) -> Result<Vec<String>, CaptureError>;
    fn read_crash_file(&self, name: &str) -> Result<String, CaptureError>;
}

/// A capture for queries that have no device (inline logs and files only): every call fails
/// with [`NO_DEVICE`], so a query that needs the device says so instead of returning nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoDevice;

impl LogCapture for NoDevice {
    fn capture(&self, _: &DeviceLogFilter) -> Result<String, CaptureError> {
        Err(CaptureError::new(
            NO_DEVICE,
            "no device is available for log capture",
        ))
    }
    fn wait_realtime(&self, _: Duration, _: &DeviceLogFilter) -> Result<String, CaptureError> {
        Err(CaptureError::new(
            NO_DEVICE,
            "no device is available for log capture",
        ))
    }
    fn historical(&self, _: &DeviceLogFilter) -> Result<String, CaptureError> {
        Err(CaptureError::new(
            NO_DEVICE,
            "no device is available for historical logs",
        ))
    }
    fn crash_files(&self) -> Result<Vec<String>, CaptureError> {
        Err(CaptureError::new(
            NO_DEVICE,
            "no device is available for crash files",
        ))
    }
    fn read_crash_file(&self, _: &str) -> Result<String, CaptureError> {
        Err(CaptureError::new(
            NO_DEVICE,
            "no device is available for crash files",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hilog_command_quotes_user_text() {
        let f = DeviceLogFilter {
            min_level: Some(Level::Error),
            tags: vec!["it's".into(), "AppKit".into()],
            domain: Some("0x3200".into()),
            pids: vec![12, 34],
        };
        assert_eq!(
            f.to_hilog_command(),
            r"hilog -x -L E,F -T 'it'\''s,AppKit' -D '0x3200' -P 12,34"
        );
        assert_eq!(DeviceLogFilter::default().to_hilog_command(), "hilog -x");
    }

    #[test]
    fn new_lines_after_a_snapshot() {
        assert_eq!(lines_after_snapshot("a\nb\nc", "a\nb\nc\nd\ne"), "d\ne");
        // Identical repeated lines: the anchor is the last three lines, not just the last one.
        assert_eq!(lines_after_snapshot("x\ny\ny", "x\ny\ny\ny\nz"), "y\nz");
        // Ring buffer wrapped past the snapshot: everything is new.
        assert_eq!(lines_after_snapshot("a\nb", "q\nr"), "q\nr");
        assert_eq!(lines_after_snapshot("", "q"), "q");
        assert_eq!(lines_after_snapshot("a\nb", "a\nb"), "");
        // The head of the buffer rotated out but the anchor is still there.
        assert_eq!(lines_after_snapshot("a\nb\nc\nd", "c\nd\ne"), "e");
    }

    #[test]
    fn no_device_fails_every_call() {
        let d = NoDevice;
        assert_eq!(
            d.capture(&DeviceLogFilter::default()).unwrap_err().code,
            NO_DEVICE
        );
        assert!(d.crash_files().is_err() && d.read_crash_file("x").is_err());
        assert!(d.historical(&DeviceLogFilter::default()).is_err());
        assert!(
            d.wait_realtime(Duration::ZERO, &DeviceLogFilter::default())
                .is_err()
        );
    }
}
