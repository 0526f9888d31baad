//! A fake device for the device source: a canned buffer, realtime and historical answers, crash
//! files, and a record of every call and pushed-down filter.

use std::cell::RefCell;
use std::time::Duration;

use serde_json::Value;
use tapflow_device::logs::{
    CaptureError, DeviceLogFilter, LogCapture, LogsError, LogsQueryResult, execute,
};

use super::{env_in, params};

pub(super) struct FakeDevice {
    buffer: String,
    pub(super) realtime: String,
    pub(super) historical: Result<String, CaptureError>,
    pub(super) capture_fails: bool,
    pub(super) crash_files: Vec<(String, String)>,
    /// Listed but unreadable crash files; `Some("FAIL")` as the only entry fails the listing.
    pub(super) unreadable: Vec<String>,
    pub(super) calls: RefCell<Vec<String>>,
    pub(super) filters: RefCell<Vec<DeviceLogFilter>>,
}

impl FakeDevice {
    pub(super) fn new(buffer: &str) -> Self {
        FakeDevice {
            buffer: buffer.to_string(),
            realtime: String::new(),
            historical: Err(CaptureError::new(
                tapflow_core::codes::UNSUPPORTED,
                "hilog persistence is off",
            )),
            capture_fails: false,
            crash_files: Vec::new(),
            unreadable: Vec::new(),
            calls: RefCell::new(Vec::new()),
            filters: RefCell::new(Vec::new()),
        }
    }
}

impl LogCapture for FakeDevice {
    fn capture(&self, filter: &DeviceLogFilter) -> Result<String, CaptureError> {
        self.calls.borrow_mut().push("capture".into());
        self.filters.borrow_mut().push(filter.clone());
        if self.capture_fails {
            return Err(CaptureError::new(
                tapflow_core::codes::DEVICE_DISCONNECTED,
                "device went away",
            ));
        }
        Ok(self.buffer.clone())
    }
    fn wait_realtime(&self, wait: Duration, _: &DeviceLogFilter) -> Result<String, CaptureError> {
        self.calls
            .borrow_mut()
            .push(format!("wait {}", wait.as_millis()));
        if self.realtime == "FAIL" {
            return Err(CaptureError::new(
                tapflow_core::codes::HDC_TIMEOUT,
                "hilog stream timed out",
            ));
        }
        Ok(self.realtime.clone())
    }
    fn historical(&self, _: &DeviceLogFilter) -> Result<String, CaptureError> {
        self.calls.borrow_mut().push("historical".into());
        self.historical.clone()
    }
    fn crash_files(&self) -> Result<Vec<String>, CaptureError> {
        self.calls.borrow_mut().push("crash_files".into());
        if self.unreadable == ["FAIL"] {
            return Err(CaptureError::new(
                tapflow_core::codes::HDC_TIMEOUT,
                "ls timed out",
            ));
        }
        let mut names: Vec<String> = self.crash_files.iter().map(|(n, _)| n.clone()).collect();
        names.extend(self.unreadable.iter().cloned());
        Ok(names)
    }
    fn read_crash_file(&self, name: &str) -> Result<String, CaptureError> {
        self.calls.borrow_mut().push(format!("read {name}"));
        self.crash_files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| {
                CaptureError::new(tapflow_core::codes::FILE_NOT_FOUND, "no such crash file")
            })
    }
}

pub(super) fn run_dev(dev: &FakeDevice, v: Value) -> Result<LogsQueryResult, LogsError> {
    let dir = tempfile::tempdir().unwrap();
    execute(&params(v), &env_in(dir.path()), dev)
}
