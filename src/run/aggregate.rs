//! Folds [`RunEvent`]s into a [`RunResult`]: the runner's own result and the `result.json`
//! reporter are both built this way, so what a report shows is exactly what the events said.
//! A snapshot taken before `RunFinished` is an honest picture of a run in progress: status
//! `running`, `complete: false`, no `finished_at`, the flow in progress `running` with the
//! steps it finished so far, and the flows not started `not_run`.

use super::events::{RunEvent, RunHeader, Section};
use super::result::*;

/// Builds a [`RunResult`] from events; not thread-safe by itself (wrap it in a mutex).
#[derive(Default)]
pub struct ResultBuilder {
    header: Option<RunHeader>,
    /// The run's devices as asked for, in order: checks finish in any order, the result
    /// lists them in this one.
    order: Vec<String>,
    devices: Vec<DeviceResult>,
    slots: Vec<FlowResult>,
    interrupted: bool,
    finished: Option<(bool, String, u64)>,
}

/// Why a flow that was assigned has not started yet.
pub const NOT_STARTED: &str = "not started: the run had not reached this flow";

impl ResultBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether `RunFinished` was seen.
    pub fn is_finished(&self) -> bool {
        self.finished.is_some()
    }

    pub fn apply(&mut self, e: &RunEvent) {
        match e {
            RunEvent::RunStarted {
                header, devices, ..
            } => {
                self.header = Some((**header).clone());
                self.order = devices.clone();
            }
            RunEvent::DeviceChecked { device } => {
                match self.devices.iter_mut().find(|d| d.serial == device.serial) {
                    Some(d) => *d = device.clone(),
                    None => self.devices.push(device.clone()),
                }
                let order = &self.order;
                self.devices.sort_by_key(|d| {
                    order
                        .iter()
                        .position(|s| *s == d.serial)
                        .unwrap_or(usize::MAX)
                });
            }
            RunEvent::FlowsAssigned { flows } => self.slots = flows.clone(),
            RunEvent::FlowStarted {
                slot,
                started_at,
                device,
                ..
            } => {
                if let Some(f) = self.slots.get_mut(*slot) {
                    f.status = Status::Running;
                    f.reason = None;
                    f.started_at = Some(started_at.clone());
                    f.device = Some(device.clone());
                }
            }
            RunEvent::StepRecorded {
                slot,
                section,
                step,
                ..
            } => {
                if let Some(f) = self.slots.get_mut(*slot) {
                    let list = match section {
                        Section::Setup => &mut f.setup,
                        Section::Steps => &mut f.steps,
                        Section::OnFailure => &mut f.on_failure,
                        Section::Finally => &mut f.finally,
                    };
                    list.push((**step).clone());
                }
            }
            RunEvent::FlowFinished { slot, flow, .. } => {
                if let Some(f) = self.slots.get_mut(*slot) {
                    *f = (**flow).clone();
                }
            }
            RunEvent::FlowNotRun {
                slot: Some(slot),
                status,
                reason,
                ..
            } => {
                if let Some(f) = self.slots.get_mut(*slot) {
                    f.status = *status;
                    f.reason = Some(reason.clone());
                }
            }
            RunEvent::Interrupted => self.interrupted = true,
            RunEvent::RunFinished {
                interrupted,
                finished_at,
                duration_ms,
                ..
            } => {
                self.interrupted |= *interrupted;
                self.finished = Some((*interrupted, finished_at.clone(), *duration_ms));
            }
            RunEvent::FlowNotRun { slot: None, .. }
            | RunEvent::StepStarted { .. }
            | RunEvent::AttemptFailed { .. }
            | RunEvent::StepFinished { .. }
            | RunEvent::DeviceLost { .. } => {}
        }
    }

    /// The result as far as the events went.
    pub fn snapshot(&self) -> RunResult {
        let header = self.header.clone().unwrap_or_else(|| RunHeader {
            run_id: String::new(),
            tapflow_version: env!("CARGO_PKG_VERSION").to_string(),
            command: None,
            approval: None,
            started_at: String::new(),
            shard: None,
            coverage: Coverage::default(),
        });
        let now = chrono::Utc::now();
        let since = |at: &str| -> u64 {
            chrono::DateTime::parse_from_rfc3339(at)
                .map(|t| {
                    (now - t.with_timezone(&chrono::Utc))
                        .num_milliseconds()
                        .max(0) as u64
                })
                .unwrap_or(0)
        };
        let mut flows = self.slots.clone();
        for f in flows.iter_mut().filter(|f| f.status == Status::Running) {
            f.duration_ms = f.started_at.as_deref().map_or(0, since);
        }
        let (finished_at, duration_ms) = match &self.finished {
            Some((_, at, d)) => (Some(at.clone()), *d),
            None => (None, since(&header.started_at)),
        };
        let mut r = RunResult {
            schema_version: RESULT_SCHEMA_VERSION,
            run_id: header.run_id,
            tapflow_version: header.tapflow_version,
            command: header.command,
            approval: header.approval,
            started_at: header.started_at,
            finished_at,
            updated_at: now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            duration_ms,
            status: Status::Running,
            complete: self.finished.is_some(),
            interrupted: self.interrupted,
            shard: header.shard,
            coverage: header.coverage,
            merged_from: Vec::new(),
            devices: self.devices.clone(),
            flows,
            totals: Totals::default(),
            artifacts_manifest: "manifest.json".into(),
        };
        r.finish_totals();
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(id: &str, status: Status, reason: Option<&str>) -> FlowResult {
        FlowResult {
            id: id.into(),
            run_id: None,
            name: id.into(),
            file: format!("{id}.yaml"),
            tags: Vec::new(),
            device: Some("d1".into()),
            status,
            reason: reason.map(str::to_string),
            started_at: None,
            duration_ms: 0,
            error: None,
            setup: Vec::new(),
            steps: Vec::new(),
            on_failure: Vec::new(),
            finally: Vec::new(),
        }
    }

    fn header() -> Box<RunHeader> {
        Box::new(RunHeader {
            run_id: "r1".into(),
            tapflow_version: "0".into(),
            command: None,
            approval: None,
            started_at: "2026-01-01T00:00:00.000Z".into(),
            shard: None,
            coverage: Coverage::default(),
        })
    }

    #[test]
    fn a_run_in_progress_says_running_and_lists_every_flow() {
        let mut b = ResultBuilder::new();
        b.apply(&RunEvent::RunStarted {
            run_id: "r1".into(),
            flows: 2,
            devices: vec!["d1".into()],
            header: header(),
        });
        b.apply(&RunEvent::FlowsAssigned {
            flows: vec![
                flow("a", Status::NotRun, Some(NOT_STARTED)),
                flow("b", Status::NotRun, Some(NOT_STARTED)),
            ],
        });
        b.apply(&RunEvent::FlowStarted {
            device: "d1".into(),
            flow_id: "a".into(),
            name: "a".into(),
            steps: 1,
            slot: 0,
            started_at: "2026-01-01T00:00:01.000Z".into(),
        });
        let r = b.snapshot();
        assert_eq!(r.status, Status::Running);
        assert!(!r.complete && r.finished_at.is_none() && !r.interrupted);
        assert_eq!(r.flows[0].status, Status::Running);
        assert_eq!(r.flows[1].status, Status::NotRun);
        assert_eq!(r.totals.running, 1);
        assert_eq!(r.totals.not_run, 1);

        let mut done = flow("a", Status::Passed, None);
        done.started_at = Some("2026-01-01T00:00:01.000Z".into());
        b.apply(&RunEvent::FlowFinished {
            device: "d1".into(),
            slot: 0,
            flow: Box::new(done),
        });
        b.apply(&RunEvent::FlowFinished {
            device: "d1".into(),
            slot: 1,
            flow: Box::new(flow("b", Status::Passed, None)),
        });
        b.apply(&RunEvent::RunFinished {
            status: Status::Passed,
            interrupted: false,
            finished_at: "2026-01-01T00:00:02.000Z".into(),
            duration_ms: 2000,
        });
        let r = b.snapshot();
        assert_eq!(r.status, Status::Passed);
        assert!(r.complete);
        assert_eq!(r.finished_at.as_deref(), Some("2026-01-01T00:00:02.000Z"));
    }
}
