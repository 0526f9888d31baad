//! [`logs::LogCapture`](tapflow_device::logs::LogCapture) over the [`Device`] trait: how `logs_query`
//! reads a device's hilog buffer, samples the lines logged during `realtime_wait_ms`, and fetches
//! faultlogger files.
//!
//! The realtime window polls the (filtered) buffer against a wall-clock deadline and keeps only
//! what follows the previous read (`logs::source::lines_after_snapshot`); the first baseline is
//! the buffer [`LogCapture::capture`] just returned, so nothing logged between the two calls is
//! lost and no extra round trip is spent. Persisted (historical) logs are `UNSUPPORTED`: the
//! `Device` trait has no operation for `/data/log/hilog/` yet.

use std::cell::RefCell;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::context::sleep_within;
use tapflow_device::logs::source::lines_after_snapshot;
use tapflow_device::logs::{CaptureError, DeviceLogFilter, LogCapture};
use tapflow_device::{Device, DeviceError, LogQuery};

/// How often the buffer is re-read during a realtime window. A read costs one round trip; a
/// quarter second keeps a one-second window at about four reads while still catching a buffer
/// that rotates quickly.
pub const POLL_INTERVAL: Duration = Duration::from_millis(250);

/// hilog filters at most this many tags (`-T`) and pids (`-P`); more are filtered on the host.
const MAX_TAGS: usize = 10;
const MAX_PIDS: usize = 5;

/// Code of the historical read, which no `Device` backend offers yet.
pub use tapflow_core::codes::UNSUPPORTED;

/// A device's logs, as the query engine sees them.
pub struct DeviceCapture {
    device: Arc<dyn Device>,
    poll_interval: Duration,
    /// The last buffer `capture` returned, with its filter: the realtime window's baseline.
    last_capture: RefCell<Option<(DeviceLogFilter, String)>>,
}

impl DeviceCapture {
    pub fn new(device: Arc<dyn Device>) -> Self {
        Self::with_poll_interval(device, POLL_INTERVAL)
    }

    pub fn with_poll_interval(device: Arc<dyn Device>, poll_interval: Duration) -> Self {
        DeviceCapture {
            device,
            poll_interval: poll_interval.max(Duration::from_millis(1)),
            last_capture: RefCell::new(None),
        }
    }

    fn read(&self, query: &LogQuery) -> Result<String, DeviceError> {
        self.device.logs(query)
    }
}

/// The engine's filter as the device trait takes it. Values hilog cannot filter on (a tag with a
/// `,`, which `-T` uses as its separator; more tags or pids than hilog takes) are left to the
/// host-side filter, which the engine always applies: the answer is the same, only larger.
pub fn log_query(filter: &DeviceLogFilter) -> LogQuery {
    let tags: Vec<String> = filter
        .tags
        .iter()
        .filter(|t| !t.is_empty() && !t.contains(',') && !t.contains('\0'))
        .cloned()
        .collect();
    let pushable_tags = tags.len() == filter.tags.len() && tags.len() <= MAX_TAGS;
    LogQuery {
        level: filter.min_level.map(|l| l.letter()),
        tags: if pushable_tags { tags } else { Vec::new() },
        domain: filter.domain.clone().filter(|d| !d.contains('\0')),
        pids: if filter.pids.len() <= MAX_PIDS {
            filter.pids.clone()
        } else {
            Vec::new()
        },
        ..LogQuery::default()
    }
}

fn capture_error(e: DeviceError) -> CaptureError {
    CaptureError::new(e.code(), e.to_string())
}

impl LogCapture for DeviceCapture {
    fn capture(&self, filter: &DeviceLogFilter) -> Result<String, CaptureError> {
        let text = self.read(&log_query(filter)).map_err(capture_error)?;
        *self.last_capture.borrow_mut() = Some((filter.clone(), text.clone()));
        Ok(text)
    }

    fn wait_realtime(
        &self,
        wait: Duration,
        filter: &DeviceLogFilter,
    ) -> Result<String, CaptureError> {
        let deadline = Instant::now() + wait;
        let query = log_query(filter);
        let baseline = match self.last_capture.borrow().as_ref() {
            Some((f, text)) if f == filter => Some(text.clone()),
            _ => None,
        };
        let mut previous = match baseline {
            Some(text) => text,
            None => self.read(&query).map_err(capture_error)?,
        };
        let mut fresh: Vec<String> = Vec::new();
        loop {
            // Sleeps at most until the deadline; the read after the deadline is the last one,
            // so lines logged right up to the end of the window are seen.
            let more_to_come = sleep_within(self.poll_interval, deadline);
            let last = !more_to_come || Instant::now() >= deadline;
            match self.read(&query) {
                Ok(current) => {
                    let new = lines_after_snapshot(&previous, &current);
                    if !new.is_empty() {
                        fresh.push(new);
                    }
                    previous = current;
                }
                // A refused read (`[Fail]`, a slow answer) may succeed next time.
                Err(e) if e.is_transient() && !last => continue,
                Err(e) => return Err(capture_error(e)),
            }
            if last {
                return Ok(fresh.join("\n"));
            }
        }
    }

    fn historical(&self, _filter: &DeviceLogFilter) -> Result<String, CaptureError> {
        Err(CaptureError::new(
            UNSUPPORTED,
            format!(
                "persisted logs (/data/log/hilog/) cannot be read from {}: the device interface has no operation for them yet",
                self.device.serial()
            ),
        ))
    }

    fn crash_files(&self) -> Result<Vec<String>, CaptureError> {
        Ok(self
            .device
            .crash_files()
            .map_err(capture_error)?
            .into_iter()
            .map(|e| e.file_name)
            .collect())
    }

    fn read_crash_file(&self, name: &str) -> Result<String, CaptureError> {
        self.device.read_crash_file(name).map_err(capture_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tapflow_device::logs::hilog::Level;

    #[test]
    fn filters_hilog_cannot_take_stay_on_the_host() {
        let f = DeviceLogFilter {
            min_level: Some(Level::Warn),
            tags: vec!["DemoApp".into()],
            domain: Some("0xd0d0".into()),
            pids: vec![42],
        };
        let q = log_query(&f);
        assert_eq!(q.level, Some('W'));
        assert_eq!(q.tags, vec!["DemoApp".to_string()]);
        assert_eq!(q.domain.as_deref(), Some("0xd0d0"));
        assert_eq!(q.pids, vec![42]);
        assert_eq!(q.tail, None);

        let comma = DeviceLogFilter {
            tags: vec!["a,b".into()],
            ..DeviceLogFilter::default()
        };
        assert!(log_query(&comma).tags.is_empty());
        let many = DeviceLogFilter {
            pids: (1..=6).collect(),
            ..DeviceLogFilter::default()
        };
        assert!(log_query(&many).pids.is_empty());
        assert_eq!(log_query(&DeviceLogFilter::default()), LogQuery::default());
    }
}
