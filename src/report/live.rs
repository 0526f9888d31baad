//! The `result.json` reporter: folds the run's events ([`ResultBuilder`]) and keeps the file on
//! disk current while the run goes on, so that a run killed outright (`kill -9`, a crash, a
//! lost CI runner) still leaves what it observed and says that it did not finish:
//! `"status": "running"`, `"complete": false`, no `finished_at`, the flow in progress
//! `running` with the steps it finished, the flows not started `not_run`.
//!
//! The file is written (through the run directory's [`PathPolicy`], atomically: a reader never
//! sees half a file) when the run starts, when flows are assigned, when a flow starts or ends,
//! when a device is lost, at the end, and after a finished top-level step once
//! [`STEP_WRITE_INTERVAL`] has passed since the last write (so that thousands of fast steps do
//! not rewrite a large file thousands of times).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::hostfs::{Overwrite, PathPolicy};
use crate::run::result::RunResult;
use crate::run::{EventSink, ResultBuilder, RunEvent};

/// Least time between two writes caused by finished steps.
pub const STEP_WRITE_INTERVAL: Duration = Duration::from_millis(250);

struct State {
    builder: ResultBuilder,
    last_write: Option<Instant>,
    error: Option<String>,
}

/// Writes `result.json` into a run directory as events arrive.
pub struct LiveResult {
    policy: PathPolicy,
    path: String,
    state: Mutex<State>,
}

impl LiveResult {
    /// `policy` must allow writing `path` (`<run dir>/result.json`).
    pub fn new(policy: PathPolicy, path: impl Into<String>) -> Self {
        LiveResult {
            policy,
            path: path.into(),
            state: Mutex::new(State {
                builder: ResultBuilder::new(),
                last_write: None,
                error: None,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The result as far as the events went.
    pub fn snapshot(&self) -> RunResult {
        self.lock().builder.snapshot()
    }

    /// The first write that failed, if any (the run goes on; the caller says so at the end).
    pub fn error(&self) -> Option<String> {
        self.lock().error.clone()
    }

    fn write(&self, st: &mut State) {
        let r = st.builder.snapshot();
        let res = serde_json::to_vec_pretty(&r)
            .map_err(|e| e.to_string())
            .and_then(|bytes| {
                self.policy
                    .prepare_write(&self.path)
                    .and_then(|t| t.write(&bytes, Overwrite::Replace))
                    .map_err(|e| e.message)
            });
        st.last_write = Some(Instant::now());
        if let Err(e) = res
            && st.error.is_none()
        {
            st.error = Some(format!("cannot write {}: {e}", self.path));
        }
    }
}

impl EventSink for LiveResult {
    fn emit(&self, e: &RunEvent) {
        let mut st = self.lock();
        st.builder.apply(e);
        let now = match e {
            RunEvent::RunStarted { .. }
            | RunEvent::FlowsAssigned { .. }
            | RunEvent::FlowStarted { .. }
            | RunEvent::FlowFinished { .. }
            | RunEvent::FlowNotRun { .. }
            | RunEvent::DeviceLost { .. }
            | RunEvent::Interrupted
            | RunEvent::RunFinished { .. } => true,
            RunEvent::StepRecorded { .. } => st
                .last_write
                .is_none_or(|t| t.elapsed() >= STEP_WRITE_INTERVAL),
            RunEvent::DeviceChecked { .. }
            | RunEvent::StepStarted { .. }
            | RunEvent::AttemptFailed { .. }
            | RunEvent::StepFinished { .. } => false,
        };
        if now {
            self.write(&mut st);
        }
    }
}
