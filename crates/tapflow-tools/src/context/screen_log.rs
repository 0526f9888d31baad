//! Flows only: what became of the screen queries (UI dumps) a device was sent, so that the
//! runner can tell a step that failed on what it saw from a step that never saw the screen at
//! all (docs/run.md, "When a failure is the device's").
//!
//! Every dump a flow's tool makes goes through [`super::carry::Tracking`], which records when it
//! was sent and how it ended: a tree, or the device's error. A dump still running when the step
//! ends (its tool gave up at a deadline and the query was abandoned, or the runner abandoned
//! the whole call) stays recorded as pending, with the time it has been running. The runner
//! asks for the queries sent since a step's attempt began ([`ScreenLog::since`]).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tapflow_device::DeviceError;

/// How many queries are remembered (a step sends a handful; older ones are never asked for).
const KEEP: usize = 256;

#[derive(Debug)]
struct Query {
    id: u64,
    sent: Instant,
    /// `None` while pending; else how long it took, and `None` for a tree or the device's
    /// error.
    ended: Option<(Duration, Option<Failure>)>,
}

/// A screen query the device failed: its code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: tapflow_core::codes::Code,
    pub message: String,
}

/// The queries sent since some instant (see [`ScreenLog::since`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScreenReport {
    /// Queries that returned a tree.
    pub answered: u32,
    /// Queries that failed (timeout, refused, empty or unparsable dump, …).
    pub failed: u32,
    /// The last failure.
    pub last_failure: Option<Failure>,
    /// The longest-running query still unanswered, and for how long it has run.
    pub pending: Option<Duration>,
    /// The longest time one query took or has been running (answered, failed or pending).
    pub slowest: Duration,
}

impl ScreenReport {
    pub fn sent(&self) -> u32 {
        self.answered + self.failed + u32::from(self.pending.is_some())
    }
}

/// One device's screen queries (shared by the calls of one flow device thread and its runner).
#[derive(Debug, Default)]
pub struct ScreenLog {
    queries: Mutex<(u64, VecDeque<Query>)>,
}

impl ScreenLog {
    fn lock(&self) -> std::sync::MutexGuard<'_, (u64, VecDeque<Query>)> {
        self.queries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A query is being sent; returns its id for [`ScreenLog::end`].
    pub(super) fn begin(&self) -> u64 {
        let mut q = self.lock();
        q.0 += 1;
        let id = q.0;
        if q.1.len() == KEEP {
            q.1.pop_front();
        }
        q.1.push_back(Query {
            id,
            sent: Instant::now(),
            ended: None,
        });
        id
    }

    /// How query `id` ended: `None` when no query was made after all (an action refused
    /// before its chained dump), else the tree's verdict.
    pub(super) fn end(&self, id: u64, verdict: Option<Result<(), &DeviceError>>) {
        let mut q = self.lock();
        let Some(at) = q.1.iter().position(|x| x.id == id) else {
            return;
        };
        match verdict {
            None => {
                q.1.remove(at);
            }
            Some(v) => {
                let took = q.1[at].sent.elapsed();
                q.1[at].ended = Some((
                    took,
                    v.err().map(|e| Failure {
                        code: e.code(),
                        message: e.to_string(),
                    }),
                ));
            }
        }
    }

    /// The queries sent at or after `from`, as they stand now.
    pub fn since(&self, from: Instant) -> ScreenReport {
        let now = Instant::now();
        let q = self.lock();
        let mut r = ScreenReport::default();
        for x in q.1.iter().filter(|x| x.sent >= from) {
            let took = match &x.ended {
                None => {
                    let running = now.saturating_duration_since(x.sent);
                    r.pending = Some(r.pending.map_or(running, |p| p.max(running)));
                    running
                }
                Some((took, None)) => {
                    r.answered += 1;
                    *took
                }
                Some((took, Some(f))) => {
                    r.failed += 1;
                    r.last_failure = Some(f.clone());
                    *took
                }
            };
            r.slowest = r.slowest.max(took);
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_answers_failures_and_what_is_still_pending() {
        let log = ScreenLog::default();
        let before = Instant::now();
        let a = log.begin();
        log.end(a, Some(Ok(())));
        let b = log.begin();
        let e = DeviceError::AdbTimeout {
            command: "adb exec-out uiautomator dump".into(),
            after: Duration::from_secs(30),
        };
        log.end(b, Some(Err(&e)));
        let gone = log.begin();
        log.end(gone, None);
        let _pending = log.begin();
        let r = log.since(before);
        assert_eq!((r.answered, r.failed), (1, 1));
        assert_eq!(
            r.last_failure.as_ref().unwrap().code,
            tapflow_core::codes::ADB_TIMEOUT
        );
        assert!(r.pending.is_some());
        assert!(r.slowest >= r.pending.unwrap());
        assert_eq!(r.sent(), 3, "the query that was never made is not counted");
        // Only queries sent from the instant asked for.
        assert_eq!(
            log.since(Instant::now() + Duration::from_secs(1)),
            ScreenReport::default()
        );
    }

    #[test]
    fn remembers_a_bounded_number_of_queries() {
        let log = ScreenLog::default();
        let from = Instant::now();
        for _ in 0..(KEEP + 10) {
            let id = log.begin();
            log.end(id, Some(Ok(())));
        }
        assert_eq!(log.since(from).answered as usize, KEEP);
    }
}
