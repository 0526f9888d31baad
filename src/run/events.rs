//! Typed run events, emitted while a run progresses: for the terminal progress display and,
//! later, MCP progress notifications. Events carry masked values only (no secrets).

use serde::Serialize;

use super::result::{DeviceResult, FlowResult, Location, Status, StepError};

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RunEvent {
    RunStarted {
        run_id: String,
        flows: usize,
        devices: Vec<String>,
    },
    DeviceChecked {
        device: DeviceResult,
    },
    FlowStarted {
        device: String,
        flow_id: String,
        name: String,
        steps: usize,
    },
    StepStarted {
        device: String,
        flow_id: String,
        step_id: String,
        title: String,
    },
    /// A failed attempt that will be retried.
    AttemptFailed {
        device: String,
        step_id: String,
        attempt: u64,
        error: StepError,
    },
    StepFinished {
        device: String,
        flow_id: String,
        step_id: String,
        title: String,
        status: Status,
        duration_ms: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<StepError>,
        location: Location,
    },
    FlowFinished {
        device: String,
        flow: Box<FlowResult>,
    },
    /// A flow that will not run (tags, device failure, fail-fast, interruption).
    FlowNotRun {
        flow_id: String,
        status: Status,
        reason: String,
    },
    Interrupted,
    RunFinished {
        status: Status,
        result_path: Option<String>,
    },
}

/// Receives events; called from device threads, so it must be thread-safe and quick.
pub trait EventSink: Send + Sync {
    fn emit(&self, event: &RunEvent);
}

/// Discards events.
pub struct NoEvents;

impl EventSink for NoEvents {
    fn emit(&self, _event: &RunEvent) {}
}

/// Collects events in memory (tests, the MCP server's progress buffer).
#[derive(Default)]
pub struct CollectEvents(pub std::sync::Mutex<Vec<RunEvent>>);

impl EventSink for CollectEvents {
    fn emit(&self, event: &RunEvent) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(event.clone());
    }
}

impl CollectEvents {
    pub fn take(&self) -> Vec<RunEvent> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }
}
