//! What a caller can tell a running tool call, and hear back from it while it runs:
//! cancellation (an MCP client gave up on the call) and progress messages (an MCP client asked
//! for `notifications/progress`). The engine is synchronous, so both travel through
//! [`Signals`], carried by the [`super::ToolContext`]:
//!
//! - cancellation is checked before every device round trip a [`super::Call`] makes, while a
//!   polling observation is pending, and during every deliberate wait ([`super::sleep_within`]),
//!   so a cancelled call stops its device work within one poll slice (20 ms) plus the round trip
//!   already on the wire;
//! - progress is a short human message; the caller (the MCP server) numbers and sends it.
//!
//! The default [`Signals`] is never cancelled and drops progress (CLI, flows without MCP).

use std::cell::RefCell;
use std::sync::{Arc, Mutex};
use std::time::Duration;

type Hook = Box<dyn FnOnce() + Send>;
/// Where progress messages go.
pub type Progress = Arc<dyn Fn(&str) + Send + Sync>;

#[derive(Default)]
struct CancelState {
    /// Held while the cancellation is decided, so that hooks run exactly once.
    hooks: Mutex<Vec<Hook>>,
    /// The cancellation itself: raised, it also abandons the device round trip in flight (its
    /// child process killed, its answer discarded; see [`tapflow_device::abort`]), and its
    /// waits end ([`Signals::wait`]).
    abort: tapflow_device::abort::Abort,
}

/// Cancellation and progress of one call (cheap to clone; clones share the state).
#[derive(Clone, Default)]
pub struct Signals {
    cancel: Option<Arc<CancelState>>,
    progress: Option<Progress>,
}

impl std::fmt::Debug for Signals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signals")
            .field("cancellable", &self.cancel.is_some())
            .field("cancelled", &self.is_cancelled())
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl Signals {
    /// Cancellable signals; `progress` receives the tool's progress messages.
    pub fn new(progress: Option<Progress>) -> Self {
        Signals {
            cancel: Some(Arc::new(CancelState::default())),
            progress,
        }
    }

    /// The same cancellation, with progress going to `progress` instead (`None`: dropped).
    /// A flow run hands this to its steps so that only step events reach the client.
    pub fn with_progress(&self, progress: Option<Progress>) -> Self {
        Signals {
            cancel: self.cancel.clone(),
            progress,
        }
    }

    /// Cancels the call: running waits end, the next device round trip is not made, and every
    /// hook registered with [`Signals::on_cancel`] runs (once, on this thread).
    pub fn cancel(&self) {
        let Some(state) = &self.cancel else { return };
        let hooks = {
            let mut hooks = state.hooks.lock().unwrap_or_else(|p| p.into_inner());
            if state.abort.is_raised() {
                return;
            }
            state.abort.raise();
            std::mem::take(&mut *hooks)
        };
        for hook in hooks {
            hook();
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|s| s.abort.is_raised())
    }

    /// Runs `hook` when the call is cancelled (at once when it already is). Used to pass the
    /// cancellation on to machinery with its own token (a flow run).
    pub fn on_cancel(&self, hook: impl FnOnce() + Send + 'static) {
        let Some(state) = &self.cancel else { return };
        let mut hooks = state.hooks.lock().unwrap_or_else(|p| p.into_inner());
        if state.abort.is_raised() {
            drop(hooks);
            hook();
        } else {
            hooks.push(Box::new(hook));
        }
    }

    /// Reports progress (no-op when nobody listens).
    pub fn progress(&self, message: &str) {
        if let Some(p) = &self.progress {
            p(message);
        }
    }

    /// The flag that abandons this call's device round trip in flight (`None`: not cancellable).
    pub fn abort(&self) -> Option<tapflow_device::abort::Abort> {
        self.cancel.as_ref().map(|s| s.abort.clone())
    }

    /// Whether a caller can cancel calls run with these signals.
    pub fn is_cancellable(&self) -> bool {
        self.cancel.is_some()
    }

    pub fn wants_progress(&self) -> bool {
        self.progress.is_some()
    }

    /// Waits `wanted`; returns false as soon as the call is cancelled (true when the whole
    /// time passed). This is a deliberate wait (a poll interval), not a poll for device state.
    pub fn wait(&self, wanted: Duration) -> bool {
        let Some(state) = &self.cancel else {
            std::thread::sleep(wanted);
            return true;
        };
        state.abort.wait_until(std::time::Instant::now() + wanted)
    }
}

thread_local! {
    /// The signals of the call running on this thread ([`super::Call`] sets them), so that the
    /// free-standing waits tools use ([`super::sleep_within`]) can end early on cancellation.
    static CURRENT: RefCell<Signals> = RefCell::new(Signals::default());
}

/// The signals of the tool call running on this thread (the default ones outside a call).
pub fn current() -> Signals {
    CURRENT.with(|c| c.borrow().clone())
}

/// Makes `signals` (and their abort flag, for the transports) current on this thread until the
/// returned guard is dropped.
pub(super) fn enter(signals: &Signals) -> Entered {
    let abort = tapflow_device::abort::enter(signals.abort());
    let previous = CURRENT.with(|c| c.replace(signals.clone()));
    Entered {
        previous: Some(previous),
        _abort: abort,
    }
}

/// Restores the previous thread's signals when dropped.
pub(super) struct Entered {
    previous: Option<Signals>,
    _abort: tapflow_device::abort::Entered,
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
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Instant;

    #[test]
    fn wait_ends_on_cancel_and_hooks_run_once() {
        let s = Signals::new(None);
        let runs = Arc::new(AtomicUsize::new(0));
        let r = runs.clone();
        s.on_cancel(move || {
            r.fetch_add(1, Ordering::SeqCst);
        });
        let s2 = s.clone();
        let waiter = std::thread::spawn(move || {
            let t = Instant::now();
            (s2.wait(Duration::from_secs(30)), t.elapsed())
        });
        s.cancel();
        s.cancel();
        let (full, took) = waiter.join().unwrap();
        assert!(!full);
        assert!(took < Duration::from_secs(20), "hang guard");
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        // A hook registered after the cancellation runs at once.
        let r = runs.clone();
        s.on_cancel(move || {
            r.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn default_signals_never_cancel_and_current_is_scoped() {
        let d = Signals::default();
        d.cancel();
        assert!(!d.is_cancelled());
        assert!(d.wait(Duration::from_millis(1)));
        let s = Signals::new(None);
        s.cancel();
        {
            let _g = enter(&s);
            assert!(current().is_cancelled());
            assert!(
                tapflow_device::abort::is_raised(),
                "cancelling raises the abort flag"
            );
        }
        assert!(!tapflow_device::abort::is_raised());
        assert!(!current().is_cancelled());
    }

    #[test]
    fn progress_goes_to_the_listener_only() {
        let seen = Arc::new(Mutex::new(Vec::<String>::new()));
        let s2 = seen.clone();
        let s = Signals::new(Some(Arc::new(move |m: &str| {
            s2.lock().unwrap().push(m.to_string())
        })));
        s.progress("one");
        s.with_progress(None).progress("dropped");
        assert_eq!(*seen.lock().unwrap(), vec!["one".to_string()]);
    }
}
