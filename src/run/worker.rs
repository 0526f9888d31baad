//! Tool calls under a wall-clock deadline. The tool engine is synchronous, so each device
//! thread hands its calls to one long-lived worker thread and waits for the answer until the
//! step's deadline or a cancellation. A late call is abandoned (its worker is dropped and
//! replaced; the answer, when it comes, goes nowhere), so a hung device cannot hold a run.

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::cancel::CancelToken;
use tapflow_tools::context::Carry;
use tapflow_tools::{Engine, Envelope, ToolContext};

/// How often a waiting device thread looks at the cancellation token.
const CANCEL_POLL: Duration = Duration::from_millis(20);

pub enum CallOutcome {
    Done(Box<Envelope>),
    /// The deadline passed first.
    TimedOut,
    Cancelled,
}

struct Worker {
    jobs: SyncSender<(String, Value)>,
    answers: Receiver<Envelope>,
}

impl Worker {
    fn spawn(engine: Arc<Engine>, ctx: ToolContext) -> Option<Worker> {
        let (jobs, job_rx) = mpsc::sync_channel::<(String, Value)>(1);
        let (answer_tx, answers) = mpsc::sync_channel::<Envelope>(1);
        std::thread::Builder::new()
            .name("tapflow-step".into())
            .spawn(move || {
                while let Ok((tool, args)) = job_rx.recv() {
                    let env = engine.call(&tool, args, &ctx);
                    if answer_tx.send(env).is_err() {
                        return;
                    }
                }
            })
            .ok()?;
        Some(Worker { jobs, answers })
    }
}

/// Calls tools for one device thread.
pub struct Caller {
    engine: Arc<Engine>,
    ctx: ToolContext,
    /// The screen one step hands to the next on this device (flows only; see
    /// `tools::context::carry`).
    carry: Arc<Carry>,
    worker: Option<Worker>,
}

impl Caller {
    pub fn new(engine: Arc<Engine>, ctx: ToolContext) -> Self {
        let carry = Arc::new(Carry::default());
        let ctx = ctx.with_carry(carry.clone());
        Caller {
            engine,
            ctx,
            carry,
            worker: None,
        }
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    pub fn context(&self) -> &ToolContext {
        &self.ctx
    }

    /// The screen queries this device's calls have sent (see
    /// [`tapflow_tools::context::screen_log`]).
    pub fn screen_log(&self) -> &tapflow_tools::context::screen_log::ScreenLog {
        self.carry.screen_log()
    }

    /// Nothing is handed to the next call (a new flow starts on this device).
    pub fn forget_screen(&self) {
        self.carry.clear();
    }

    /// Tells the next call that the step after it starts by looking at the screen, so its
    /// last action should bring the screen back (flow-level behaviour).
    pub fn next_looks_at_screen(&self, yes: bool) {
        self.carry.set_observe_after(yes);
    }

    /// Runs `tool` until `deadline`; `None` = no deadline (still cancellable).
    pub fn call(
        &mut self,
        tool: &str,
        args: Value,
        deadline: Option<Instant>,
        cancel: &CancelToken,
    ) -> CallOutcome {
        if cancel.is_cancelled() {
            return CallOutcome::Cancelled;
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return CallOutcome::TimedOut;
        }
        if self.worker.is_none() {
            self.worker = Worker::spawn(self.engine.clone(), self.ctx.clone());
        }
        let Some(worker) = &self.worker else {
            // No thread could be started: run inline (no deadline enforcement possible).
            return CallOutcome::Done(Box::new(self.engine.call(tool, args, &self.ctx)));
        };
        if worker.jobs.send((tool.to_string(), args.clone())).is_err() {
            self.worker = None;
            return CallOutcome::Done(Box::new(self.engine.call(tool, args, &self.ctx)));
        }
        loop {
            let mut slice = CANCEL_POLL;
            if let Some(d) = deadline {
                slice = slice.min(d.saturating_duration_since(Instant::now()));
            }
            match worker.answers.recv_timeout(slice) {
                Ok(env) => return CallOutcome::Done(Box::new(env)),
                Err(RecvTimeoutError::Timeout) => {
                    if cancel.is_cancelled() {
                        self.worker = None;
                        // The abandoned call may still act on the device: hand nothing over.
                        self.carry.abandon();
                        return CallOutcome::Cancelled;
                    }
                    if deadline.is_some_and(|d| Instant::now() >= d) {
                        self.worker = None;
                        self.carry.abandon();
                        return CallOutcome::TimedOut;
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.worker = None;
                    let err = tapflow_tools::ToolError::new(
                        tapflow_core::codes::INTERNAL_ERROR,
                        "the tool worker stopped unexpectedly",
                    );
                    return CallOutcome::Done(Box::new(Envelope::new(tool, Err(err), 0)));
                }
            }
        }
    }
}
