//! Cancellation of a run: a token shared by the CLI's Ctrl-C handler (or a test) and every
//! device thread, and the one deliberate wait the runner makes (the delay between retries),
//! which returns early as soon as the token is cancelled.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Cloneable handle; all clones see the same state.
#[derive(Clone, Debug, Default)]
pub struct CancelToken {
    inner: Arc<(Mutex<bool>, Condvar)>,
}

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    /// Requests a clean stop: running steps are abandoned, `finally` hooks still run.
    pub fn cancel(&self) {
        let (lock, cv) = &*self.inner;
        *lock.lock().unwrap_or_else(|p| p.into_inner()) = true;
        cv.notify_all();
    }

    pub fn is_cancelled(&self) -> bool {
        *self.inner.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits `wanted` (never past `deadline`); returns false when cancelled meanwhile.
    /// This is a deliberate wait (a retry delay), not a poll for device state.
    pub fn wait(&self, wanted: Duration, deadline: Option<Instant>) -> bool {
        let mut until = Instant::now() + wanted;
        if let Some(d) = deadline {
            until = until.min(d);
        }
        let (lock, cv) = &*self.inner;
        let mut cancelled = lock.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if *cancelled {
                return false;
            }
            let now = Instant::now();
            if now >= until {
                return true;
            }
            cancelled = cv
                .wait_timeout(cancelled, until - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_ends_early_on_cancel() {
        let t = CancelToken::new();
        let t2 = t.clone();
        let h = std::thread::spawn(move || {
            let start = Instant::now();
            let full = t2.wait(Duration::from_secs(10), None);
            (full, start.elapsed())
        });
        std::thread::sleep(Duration::from_millis(20));
        t.cancel();
        let (full, took) = h.join().unwrap();
        assert!(!full);
        assert!(took < Duration::from_secs(5));
        assert!(t.is_cancelled());
    }

    #[test]
    fn wait_respects_the_deadline() {
        let t = CancelToken::new();
        let start = Instant::now();
        assert!(t.wait(
            Duration::from_secs(10),
            Some(Instant::now() + Duration::from_millis(10))
        ));
        assert!(start.elapsed() < Duration::from_secs(5));
    }
}
