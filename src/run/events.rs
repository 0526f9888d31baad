//! Typed run events, emitted while a run progresses. The runner does nothing else with output:
//! the terminal progress display, `result.json`, the reports and MCP progress notifications are
//! all consumers of this one stream ([`EventSink`]). Events carry masked values only (no
//! secrets), and together they hold everything the run result holds: [`super::aggregate`]
//! folds them into a [`super::RunResult`].
//!
//! Order: `RunStarted`, `DeviceChecked`*, `FlowsAssigned`, `FlowNotRun`*, then per device
//! (devices in parallel) `FlowStarted`, (`StepStarted`, `AttemptFailed`*, `StepFinished`,
//! `StepRecorded`)*, `FlowFinished` or `FlowNotRun`, `DeviceLost`?, and at the end
//! `Interrupted`? and `RunFinished`.

use serde::{Deserialize, Serialize};

use super::result::{Coverage, DeviceResult, FlowResult, Location, Status, StepError, StepResult};

/// What a run is, known before any device is touched.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunHeader {
    pub run_id: String,
    pub tapflow_version: String,
    /// The command line (values of `--env` masked), when the caller gives it.
    pub command: Option<String>,
    /// The approval the MCP server recorded for the run (`run_flow`), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<serde_json::Value>,
    pub started_at: String,
    pub shard: Option<String>,
    pub coverage: Coverage,
}

/// The part of a flow a step belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    Setup,
    Steps,
    OnFailure,
    Finally,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RunEvent {
    RunStarted {
        run_id: String,
        flows: usize,
        devices: Vec<String>,
        header: Box<RunHeader>,
    },
    DeviceChecked {
        device: DeviceResult,
    },
    /// Every (flow, device) slot of the result, in order: flows to run (as `not_run`, "not
    /// started"), and those that will not run with their final status.
    FlowsAssigned {
        flows: Vec<FlowResult>,
    },
    FlowStarted {
        device: String,
        flow_id: String,
        name: String,
        steps: usize,
        slot: usize,
        started_at: String,
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
    /// A top-level step of a flow (a whole block with its passes) is done: what a report of
    /// the flow in progress shows.
    StepRecorded {
        device: String,
        slot: usize,
        section: Section,
        step: Box<StepResult>,
    },
    FlowFinished {
        device: String,
        slot: usize,
        flow: Box<FlowResult>,
    },
    /// A flow that will not run (tags, device failure, a lost device, fail-fast, interruption).
    FlowNotRun {
        flow_id: String,
        /// Its slot in the result; `None` for flows that never had one.
        slot: Option<usize>,
        status: Status,
        reason: String,
    },
    /// A device went away during a flow; its remaining flows will not run.
    DeviceLost {
        device: String,
        reason: String,
    },
    Interrupted,
    RunFinished {
        status: Status,
        interrupted: bool,
        finished_at: String,
        duration_ms: u64,
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

/// Sends every event to several sinks, in order.
pub struct Fanout<'a>(pub Vec<&'a dyn EventSink>);

impl EventSink for Fanout<'_> {
    fn emit(&self, event: &RunEvent) {
        for s in &self.0 {
            s.emit(event);
        }
    }
}
