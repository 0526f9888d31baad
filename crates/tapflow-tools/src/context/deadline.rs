//! Waiting within a deadline: running a device round trip on a helper thread and giving up on
//! it when late or cancelled ([`until`]), and sleeping no further than the deadline
//! ([`sleep_within`]).

use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::signals;

/// How often a pending observation looks at the cancellation.
const CANCEL_SLICE: Duration = Duration::from_millis(20);

/// Runs `f` on a helper thread and waits for it until `deadline`; `None` when it is late.
/// A late call finishes in the background and its answer is dropped (a cancelled call's is
/// abandoned at once: the helper runs under the caller's abort flag).
pub fn until<T: Send + 'static>(
    deadline: Instant,
    f: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    until_or(deadline, f, || false)
}

/// [`until`] that also gives up as soon as `stop()` says so (checked every 20 ms).
pub(super) fn until_or<T: Send + 'static>(
    deadline: Instant,
    f: impl FnOnce() -> T + Send + 'static,
    stop: impl Fn() -> bool,
) -> Option<T> {
    let left = deadline.checked_duration_since(Instant::now())?;
    if left.is_zero() {
        return None;
    }
    let (tx, rx) = mpsc::sync_channel(1);
    // The helper's round trip belongs to this call: a cancellation abandons it there too.
    let abort = tapflow_device::abort::current();
    std::thread::spawn(move || {
        let _abort = tapflow_device::abort::enter(abort);
        let _ = tx.send(f());
    });
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        match rx.recv_timeout(left.min(CANCEL_SLICE)) {
            Ok(v) => return Some(v),
            Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            Err(mpsc::RecvTimeoutError::Timeout) if stop() => return None,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
}

/// Sleeps `wanted`, but never past `deadline`; returns false when the deadline cut it short,
/// or when the tool call running on this thread was cancelled meanwhile.
pub fn sleep_within(wanted: Duration, deadline: Instant) -> bool {
    let now = Instant::now();
    let left = deadline.saturating_duration_since(now);
    let signals = signals::current();
    if wanted > left {
        signals.wait(left);
        false
    } else {
        signals.wait(wanted)
    }
}
