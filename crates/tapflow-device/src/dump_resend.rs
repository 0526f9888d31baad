//! Damaged UI dumps are the device's hiccup, not an answer: a dump whose file came back empty
//! (`uitest dumpLayout` printed `saved to` but `cat` gave nothing; `uiautomator dump` printed
//! only its confirmation) or whose payload does not parse (cut short) is sent again, by both
//! backends, on the budget of [`TransientRetry`]: up to `retries` more dumps, pausing `backoff`
//! and twice as long before each next one, never past the dump's own deadline (counted from
//! the first send). Every resend is one more round trip and one more UI dump in the cost, and is
//! logged at INFO. A dump is only ever resent on its own: when it was chained behind an action,
//! the action is never sent twice.
//!
//! What is still damaged after the budget keeps the contract's code (`UI_TREE_FETCH_ERROR` for
//! an empty dump, `INVALID_UI_TREE_PAYLOAD` for one that does not parse), its message saying how
//! many dumps were tried; the flow runner then blames the device, not the app (docs/run.md,
//! "When a failure is the device's"). Any other failure (a refused dump, a locked screen, a
//! timeout, a lost device) is returned at once.

use std::time::{Duration, Instant};

use crate::error::{DeviceError, DeviceResult};
use crate::model::UiNode;
use crate::retry::TransientRetry;

/// How one dump answer failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DumpFailure {
    /// The answer came, but empty or cut short: worth sending the dump again.
    Damaged(DeviceError),
    /// Anything else: reported as it is.
    Other(DeviceError),
}

impl DumpFailure {
    pub fn into_error(self) -> DeviceError {
        match self {
            DumpFailure::Damaged(e) | DumpFailure::Other(e) => e,
        }
    }
}

impl From<DeviceError> for DumpFailure {
    fn from(e: DeviceError) -> Self {
        DumpFailure::Other(e)
    }
}

/// Where the resends are logged and what the backend calls a dump.
pub struct Resend<'a> {
    pub retry: TransientRetry,
    /// The dump's deadline (its first send plus its timeout): no resend starts after it.
    pub deadline: Instant,
    /// `tapflow::hdc` or `tapflow::adb` (the logging target of the backend).
    pub backend: &'static str,
    pub serial: &'a str,
}

impl Resend<'_> {
    /// `first` is the verdict on the answer already received; `again(left)` sends one more
    /// dump (with `left` of the deadline for its transport) and judges its answer.
    pub fn run(
        &self,
        first: Result<UiNode, DumpFailure>,
        mut again: impl FnMut(Duration) -> Result<UiNode, DumpFailure>,
    ) -> DeviceResult<UiNode> {
        let mut verdict = first;
        let mut sent: u32 = 1;
        loop {
            let damage = match verdict {
                Ok(tree) => {
                    if sent > 1 {
                        tracing::info!(target: "tapflow::dump", backend = self.backend,
                            serial = self.serial, dumps = sent, "a resent UI dump arrived whole");
                    }
                    return Ok(tree);
                }
                Err(DumpFailure::Other(e)) => return Err(e),
                Err(DumpFailure::Damaged(e)) => e,
            };
            let pause = self.retry.pause_before(sent);
            let now = Instant::now();
            if sent > self.retry.retries || now + pause >= self.deadline {
                tracing::warn!(target: "tapflow::dump", backend = self.backend,
                    serial = self.serial, dumps = sent, error = %damage,
                    "every UI dump came back empty or truncated; giving up");
                return Err(noted(damage, sent));
            }
            tracing::info!(target: "tapflow::dump", backend = self.backend,
                serial = self.serial, dump = sent, pause_ms = pause.as_millis() as u64,
                error = %damage, "UI dump resent: the answer was empty or truncated");
            crate::abort::sleep_until(Instant::now() + pause);
            let left = self.deadline.saturating_duration_since(Instant::now());
            verdict = again(left);
            sent += 1;
        }
    }
}

/// The last damaged answer's error, saying how many dumps were tried.
fn noted(e: DeviceError, sent: u32) -> DeviceError {
    if sent < 2 {
        return e;
    }
    let note = format!(" ({sent} dumps sent, every answer empty or truncated)");
    match e {
        DeviceError::Command {
            code,
            what,
            device_says,
        } => DeviceError::Command {
            code,
            what,
            device_says: device_says + &note,
        },
        DeviceError::Parse { code, what, detail } => DeviceError::Parse {
            code,
            what,
            detail: detail + &note,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty() -> DumpFailure {
        DumpFailure::Damaged(DeviceError::Command {
            code: tapflow_core::codes::UI_TREE_FETCH_ERROR,
            what: "UI dump".into(),
            device_says: "saved, but the file is empty".into(),
        })
    }

    fn resend(retries: u32, backoff: Duration, within: Duration) -> Resend<'static> {
        Resend {
            retry: TransientRetry { retries, backoff },
            deadline: Instant::now() + within,
            backend: "test",
            serial: "S",
        }
    }

    #[test]
    fn a_damaged_dump_is_sent_again_until_one_is_whole() {
        let mut calls = 0;
        let r = resend(4, Duration::ZERO, Duration::from_secs(60)).run(Err(empty()), |_| {
            calls += 1;
            if calls < 3 {
                Err(empty())
            } else {
                Ok(UiNode::default())
            }
        });
        assert!(r.is_ok());
        assert_eq!(calls, 3);
    }

    #[test]
    fn the_budget_runs_out_with_the_contract_code_and_the_count() {
        let mut calls = 0;
        let e = resend(2, Duration::ZERO, Duration::from_secs(60))
            .run(Err(empty()), |_| {
                calls += 1;
                Err(empty())
            })
            .unwrap_err();
        assert_eq!(calls, 2);
        assert_eq!(e.code(), "UI_TREE_FETCH_ERROR");
        assert!(e.to_string().contains("3 dumps sent"), "{e}");
    }

    #[test]
    fn other_failures_and_the_deadline_stop_at_once() {
        let gone = DumpFailure::Other(DeviceError::Disconnected {
            device_says: "offline".into(),
        });
        let mut calls = 0;
        let e = resend(4, Duration::ZERO, Duration::from_secs(60))
            .run(Err(gone), |_| {
                calls += 1;
                Ok(UiNode::default())
            })
            .unwrap_err();
        assert_eq!(calls, 0);
        assert_eq!(e.code(), "DEVICE_DISCONNECTED");
        // A pause that would pass the deadline is not taken.
        let started = Instant::now();
        let e = resend(4, Duration::from_secs(3600), Duration::from_secs(1))
            .run(Err(empty()), |_| Ok(UiNode::default()))
            .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(60), "hang guard");
        assert_eq!(e.code(), "UI_TREE_FETCH_ERROR");
    }
}
