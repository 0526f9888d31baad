//! The `result.json` reporter: folds the run's events ([`ResultBuilder`]) and keeps the file on
//! disk current while the run goes on, so that a run killed outright (`kill -9`, a crash, a
//! lost CI runner) still leaves what it observed and says that it did not finish:
//! `"status": "running"`, `"complete": false`, no `finished_at`, the flow in progress
//! `running` with the steps it finished, the flows not started `not_run`.
//!
//! The file is written (through the run directory's [`PathPolicy`], atomically: a reader never
//! sees half a file) when the run starts, when flows are assigned, when a flow starts or ends,
//! when a device is lost, at the end; a finished top-level step is written by a flusher thread
//! at most [`STEP_WRITE_INTERVAL`] after the previous write (so that thousands of fast steps do
//! not rewrite a large file thousands of times, and a step that finished before a long wait is
//! on disk when the process is killed during that wait).

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::run::result::RunResult;
use crate::run::{EventSink, Masker, ResultBuilder, RunEvent};
use tapflow_device::hostfs::{Overwrite, PathPolicy};

/// Least time between two writes caused by finished steps; a finished step is on disk at most
/// this long after it finished (a flusher thread writes what is pending).
pub const STEP_WRITE_INTERVAL: Duration = Duration::from_millis(250);

struct State {
    builder: ResultBuilder,
    last_write: Option<Instant>,
    /// How long the last write took: the next step-caused write waits at least a few times
    /// that, so a large result (a 1 000-step flow) costs the run a bounded share of its time.
    last_cost: Duration,
    /// Number of the latest snapshot taken for writing.
    taken: u64,
    error: Option<String>,
    /// A finished step not yet on disk.
    dirty: bool,
    /// The run ended (or the reporter is dropped): the flusher stops.
    done: bool,
}

struct Inner {
    policy: PathPolicy,
    masker: Masker,
    path: String,
    state: Mutex<State>,
    wake: Condvar,
    /// Serialises writes (outside the state lock, so events never wait for the disk) and
    /// holds the number of the snapshot on disk: an older one never replaces a newer one.
    written: Mutex<u64>,
}

/// Writes `result.json` into a run directory as events arrive.
pub struct LiveResult {
    inner: Arc<Inner>,
    flusher: Mutex<Option<JoinHandle<()>>>,
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes what is to be written (under the state lock: a clone of the result so far).
    fn take(&self, st: &mut State) -> (u64, RunResult) {
        st.taken += 1;
        st.dirty = false;
        st.last_write = Some(Instant::now());
        (st.taken, st.builder.snapshot())
    }

    /// Masks, serialises and writes a taken snapshot, without the state lock.
    fn write_out(&self, (seq, r): (u64, RunResult)) {
        let mut on_disk = self.written.lock().unwrap_or_else(|p| p.into_inner());
        if *on_disk >= seq {
            return;
        }
        let started = Instant::now();
        // Masked as values (before JSON escaping), at the one place the file is written.
        let res = self
            .masker
            .to_value(&r)
            .and_then(|v| serde_json::to_vec_pretty(&v))
            .map_err(|e| e.to_string())
            .and_then(|bytes| {
                self.policy
                    .prepare_write(&self.path)
                    .and_then(|t| t.write(&bytes, Overwrite::Replace))
                    .map_err(|e| e.message)
            });
        *on_disk = seq;
        drop(on_disk);
        let mut st = self.lock();
        st.last_cost = started.elapsed();
        if let Err(e) = res
            && st.error.is_none()
        {
            st.error = Some(format!("cannot write {}: {e}", self.path));
        }
    }

    /// Writes pending steps once the interval since the last write has passed; waits on the
    /// condition variable (woken by new events and by the end), never polls.
    fn flush_loop(&self) {
        loop {
            let (job, last) = {
                let mut st = self.lock();
                loop {
                    if st.done {
                        break (st.dirty.then(|| self.take(&mut st)), true);
                    }
                    if !st.dirty {
                        st = self.wake.wait(st).unwrap_or_else(|p| p.into_inner());
                        continue;
                    }
                    let gap = STEP_WRITE_INTERVAL.max(st.last_cost * 4);
                    let due = st.last_write.map_or_else(Instant::now, |t| t + gap);
                    let now = Instant::now();
                    if now >= due {
                        break (Some(self.take(&mut st)), false);
                    }
                    st = self
                        .wake
                        .wait_timeout(st, due - now)
                        .unwrap_or_else(|p| p.into_inner())
                        .0;
                }
            };
            if let Some(job) = job {
                self.write_out(job);
            }
            if last {
                return;
            }
        }
    }
}

impl LiveResult {
    /// `policy` must allow writing `path` (`<run dir>/result.json`); `masker` holds the run's
    /// secrets (`Masker::for_plan`).
    pub fn new(policy: PathPolicy, path: impl Into<String>, masker: Masker) -> Self {
        LiveResult {
            inner: Arc::new(Inner {
                policy,
                masker,
                path: path.into(),
                state: Mutex::new(State {
                    builder: ResultBuilder::new(),
                    last_write: None,
                    last_cost: Duration::ZERO,
                    taken: 0,
                    error: None,
                    dirty: false,
                    done: false,
                }),
                wake: Condvar::new(),
                written: Mutex::new(0),
            }),
            flusher: Mutex::new(None),
        }
    }

    /// The result as far as the events went.
    pub fn snapshot(&self) -> RunResult {
        self.inner.lock().builder.snapshot()
    }

    /// The first write that failed, if any (the run goes on; the caller says so at the end).
    pub fn error(&self) -> Option<String> {
        self.inner.lock().error.clone()
    }

    fn start_flusher(&self) {
        let mut f = self.flusher.lock().unwrap_or_else(|p| p.into_inner());
        if f.is_none() {
            let inner = self.inner.clone();
            *f = std::thread::Builder::new()
                .name("result-json".into())
                .spawn(move || inner.flush_loop())
                .ok();
        }
    }

    fn stop_flusher(&self) {
        self.inner.lock().done = true;
        self.inner.wake.notify_all();
        let handle = self
            .flusher
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(h) = handle {
            let _ = h.join();
        }
    }
}

impl Drop for LiveResult {
    fn drop(&mut self) {
        self.stop_flusher();
    }
}

impl EventSink for LiveResult {
    fn emit(&self, e: &RunEvent) {
        let (pending, job) = {
            let mut st = self.inner.lock();
            st.builder.apply(e);
            match e {
                RunEvent::RunStarted { .. }
                | RunEvent::FlowsAssigned { .. }
                | RunEvent::FlowStarted { .. }
                | RunEvent::FlowFinished { .. }
                | RunEvent::FlowNotRun { .. }
                | RunEvent::DeviceLost { .. }
                | RunEvent::Interrupted
                | RunEvent::RunFinished { .. } => (false, Some(self.inner.take(&mut st))),
                RunEvent::StepRecorded { .. } => {
                    st.dirty = true;
                    (true, None)
                }
                RunEvent::DeviceChecked { .. }
                | RunEvent::StepStarted { .. }
                | RunEvent::AttemptFailed { .. }
                | RunEvent::StepFinished { .. } => (false, None),
            }
        };
        // A flow's start and end are on disk before the run goes on (a kill -9 right after
        // still leaves them); written outside the state lock.
        if let Some(job) = job {
            self.inner.write_out(job);
        }
        if pending {
            self.start_flusher();
            self.inner.wake.notify_all();
        }
        if matches!(e, RunEvent::RunFinished { .. }) {
            self.stop_flusher();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::result::*;
    use crate::run::{RunHeader, Section};

    #[test]
    fn a_finished_step_reaches_the_disk_without_another_event() {
        let dir = tempfile::tempdir().unwrap();
        let policy = PathPolicy::new(dir.path(), [dir.path().to_path_buf()]);
        let path = dir.path().join("result.json");
        let live = LiveResult::new(policy, path.display().to_string(), Masker::none());
        live.emit(&RunEvent::RunStarted {
            run_id: "r".into(),
            flows: 1,
            devices: vec![],
            header: Box::new(RunHeader {
                run_id: "r".into(),
                tapflow_version: "0".into(),
                command: None,
                approval: None,
                started_at: "2026-01-01T00:00:00.000Z".into(),
                shard: None,
                coverage: Coverage::default(),
            }),
        });
        let flow: FlowResult = serde_json::from_value(serde_json::json!({
            "id": "f", "name": "f", "file": "f.yaml", "tags": [], "status": "not_run",
            "duration_ms": 0, "steps": []
        }))
        .unwrap();
        live.emit(&RunEvent::FlowsAssigned { flows: vec![flow] });
        live.emit(&RunEvent::FlowStarted {
            device: "d".into(),
            flow_id: "f".into(),
            name: "f".into(),
            steps: 1,
            slot: 0,
            started_at: "2026-01-01T00:00:00.000Z".into(),
        });
        let step: StepResult = serde_json::from_value(serde_json::json!({
            "id": "f.1", "kind": "tool", "status": "passed", "optional": false,
            "location": {"file": "f.yaml", "line": 3, "column": 5}, "duration_ms": 1
        }))
        .unwrap();
        live.emit(&RunEvent::StepRecorded {
            device: "d".into(),
            slot: 0,
            section: Section::Steps,
            step: Box::new(step),
        });
        // No further event: the flusher writes it within the interval (hang guard: 10 s).
        let start = Instant::now();
        let mut seen = false;
        while start.elapsed() < Duration::from_secs(10) {
            let r: RunResult =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            if r.flows[0].steps.len() == 1 {
                assert_eq!(r.status, Status::Running);
                seen = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(seen, "the finished step never reached result.json");
    }
}
