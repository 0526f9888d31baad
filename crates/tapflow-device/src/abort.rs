//! Abandoning a round trip in flight: an [`Abort`] flag that a caller (an MCP client that
//! cancelled its call) raises from another thread, made current on the threads doing that
//! call's device work ([`enter`]). A transport looks at the current flag while its round trip
//! runs: [`crate::ProcessTransport`] kills its `hdc` / `adb` child and the simulator stops
//! spending simulated device time, and both answer [`crate::TransportError::Abandoned`] — the
//! late answer is discarded, never parsed. Once raised, no further round trip of that call is
//! started.
//!
//! Thread-local because the [`crate::Device`] methods carry no token; code that moves device
//! work to a helper thread hands the flag over ([`current`] then [`enter`] there).

use std::cell::RefCell;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How often a running child process is looked at for an abort (the kill's latency bound).
pub const SLICE: Duration = Duration::from_millis(5);

#[derive(Default)]
struct Flag {
    raised: Mutex<bool>,
    cv: Condvar,
}

/// One call's abort flag (cheap to clone; clones share it).
#[derive(Clone, Default)]
pub struct Abort(Arc<Flag>);

impl std::fmt::Debug for Abort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Abort").field(&self.is_raised()).finish()
    }
}

impl Abort {
    /// Raises the flag: round trips in flight end, none is started any more.
    pub fn raise(&self) {
        *self.0.raised.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.0.cv.notify_all();
    }

    pub fn is_raised(&self) -> bool {
        *self.0.raised.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits until `until`; returns false as soon as the flag is raised (true when the whole
    /// time passed).
    pub fn wait_until(&self, until: Instant) -> bool {
        let mut raised = self.0.raised.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if *raised {
                return false;
            }
            let now = Instant::now();
            if now >= until {
                return true;
            }
            raised = self
                .0
                .cv
                .wait_timeout(raised, until - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Abort>> = const { RefCell::new(None) };
}

/// The flag of the call whose device work runs on this thread, if it can be aborted.
pub fn current() -> Option<Abort> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Whether the current call's flag is raised.
pub fn is_raised() -> bool {
    CURRENT.with(|c| c.borrow().as_ref().is_some_and(Abort::is_raised))
}

/// Makes `abort` current on this thread until the returned guard is dropped.
pub fn enter(abort: Option<Abort>) -> Entered {
    Entered {
        previous: Some(CURRENT.with(|c| c.replace(abort))),
    }
}

/// Sleeps until `until` unless the current flag is raised first; false when it was.
pub fn sleep_until(until: Instant) -> bool {
    match current() {
        Some(a) => a.wait_until(until),
        None => {
            let now = Instant::now();
            if until > now {
                std::thread::sleep(until - now);
            }
            true
        }
    }
}

/// Restores the thread's previous flag when dropped.
pub struct Entered {
    previous: Option<Option<Abort>>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        if let Some(p) = self.previous.take() {
            CURRENT.with(|c| *c.borrow_mut() = p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raised_flag_ends_waits_and_is_scoped_to_its_thread() {
        let a = Abort::default();
        assert!(!is_raised());
        {
            let _g = enter(Some(a.clone()));
            let b = a.clone();
            let raiser = std::thread::spawn(move || b.raise());
            let started = Instant::now();
            let full = sleep_until(started + Duration::from_secs(30));
            raiser.join().unwrap();
            assert!(
                !full && started.elapsed() < Duration::from_secs(20),
                "hang guard"
            );
            assert!(is_raised());
        }
        assert!(current().is_none(), "the previous (no) flag is back");
        assert!(sleep_until(Instant::now()));
    }

    /// Children of this process running `sleep 30` (Linux /proc).
    fn sleepers() -> usize {
        let me = std::process::id().to_string();
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter(|e| {
                let dir = e.path();
                let stat = std::fs::read_to_string(dir.join("stat")).unwrap_or_default();
                let ppid = stat
                    .rsplit(')')
                    .next()
                    .and_then(|r| r.split_whitespace().nth(1));
                let cmd = std::fs::read(dir.join("cmdline")).unwrap_or_default();
                ppid == Some(me.as_str()) && cmd == b"sleep\x0030\x00"
            })
            .count()
    }

    #[test]
    fn a_raised_flag_kills_the_child_in_flight_and_starts_no_other() {
        use crate::transport::{ProcessTransport, Transport, TransportError};
        let a = Abort::default();
        let b = a.clone();
        // Raises the flag once the child runs (polled against a hang guard).
        let raiser = std::thread::spawn(move || {
            let guard = Instant::now() + Duration::from_secs(20);
            while sleepers() == 0 && Instant::now() < guard {
                std::thread::sleep(Duration::from_millis(2));
            }
            b.raise();
        });
        let _g = enter(Some(a.clone()));
        let t = ProcessTransport::new("sleep");
        let started = Instant::now();
        let r = t.run(&["30".into()], Duration::from_secs(60));
        raiser.join().unwrap();
        assert_eq!(r, Err(TransportError::Abandoned));
        assert!(started.elapsed() < Duration::from_secs(25), "hang guard");
        assert_eq!(
            sleepers(),
            0,
            "the child was killed and reaped, not left running"
        );
        // Nothing more is started for a cancelled call.
        assert_eq!(
            t.run(&["30".into()], Duration::from_secs(60)),
            Err(TransportError::Abandoned)
        );
    }
}
