//! Progress notifications for one `tools/call` whose request carried a `progressToken`: the tool
//! (on a blocking thread) reports short messages through its [`tapflow_tools::context::Signals`];
//! they are numbered here (`progress` 1, 2, 3, … strictly increasing, as the protocol requires)
//! and sent as `notifications/progress`. While a tool reports nothing (a build, a device
//! command), a heartbeat every second says it is still running. Nothing is sent after
//! [`Reporter::finish`], which the call awaits before answering (no progress after the response),
//! nor once the request is cancelled: no notification starts after the server has read the
//! client's `notifications/cancelled` (the spec's receiver stops all work on the request).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RoleServer};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// How long a silent call waits before a heartbeat.
const HEARTBEAT: Duration = Duration::from_secs(1);

type Slot = Arc<Mutex<Option<mpsc::UnboundedSender<String>>>>;

/// Sends one call's progress.
pub struct Reporter {
    slot: Slot,
    task: tokio::task::JoinHandle<()>,
}

impl Reporter {
    /// Starts forwarding progress of `tool` for `token` to `peer`, until the request's
    /// `cancelled` token fires.
    pub fn start(
        peer: Peer<RoleServer>,
        token: ProgressToken,
        tool: String,
        cancelled: CancellationToken,
    ) -> Self {
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        let slot: Slot = Arc::new(Mutex::new(Some(tx)));
        let task = tokio::spawn(async move {
            let started = Instant::now();
            let mut n: u64 = 0;
            loop {
                let next = tokio::select! {
                    biased;
                    _ = cancelled.cancelled() => return,
                    next = tokio::time::timeout(HEARTBEAT, rx.recv()) => next,
                };
                let message = match next {
                    Ok(Some(m)) => m,
                    Ok(None) => return,
                    Err(_) => format!("{tool}: running, {} s elapsed", started.elapsed().as_secs()),
                };
                if cancelled.is_cancelled() {
                    return;
                }
                n += 1;
                let param =
                    ProgressNotificationParam::new(token.clone(), n as f64).with_message(message);
                if peer.notify_progress(param).await.is_err() {
                    // The client is gone; the call's cancellation handles the rest.
                    return;
                }
            }
        });
        Reporter { slot, task }
    }

    /// The sink the tool's signals report into.
    pub fn sink(&self) -> tapflow_tools::context::signals::Progress {
        let slot = self.slot.clone();
        Arc::new(move |m: &str| {
            if let Some(tx) = slot.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
                let _ = tx.send(m.to_string());
            }
        })
    }

    /// The request was cancelled: stops at once, dropping what is queued.
    pub fn stop(self) {
        self.slot.lock().unwrap_or_else(|p| p.into_inner()).take();
        self.task.abort();
    }

    /// Stops taking messages, sends those already queued, and ends.
    pub async fn finish(self) {
        self.slot.lock().unwrap_or_else(|p| p.into_inner()).take();
        let _ = self.task.await;
    }
}
