//! Flows only: the screen one step hands to the next on the same device.
//!
//! A flow's steps run one after another on one device, with nothing else touching it in
//! between. The observation a step ends with — a UI dump made after its last action (or with
//! no action at all) — still describes the screen when the next step starts a few milliseconds
//! later, so the next step may start from it instead of dumping again: a click, long press,
//! `input_text` or `scroll_until_visible` resolves its target on it, a wait takes it as its
//! first poll. Tools whose result *is* the observation (`find_elements`, `get_ui_tree`) always
//! dump for themselves. And when the runner knows that the next step starts by looking at the
//! screen, the current step brings the screen back with its last action, in the same round
//! trip (`Device::act_then_tree`, or the launch's shell for `run_app`). See
//! `docs/flow-format.md`, "Flow-level behaviours".
//!
//! The rules that keep this honest:
//! - only a tree observed by the previous call is handed over, and only when that call sent no
//!   action after observing it ([`Tracking`] counts every operation that may change the screen);
//! - only a call that succeeded hands anything on (a retry, or a loop after a failure, observes
//!   afresh);
//! - a call hands on only its own observation, except a wait that ended on the screen handed
//!   to it: it relays that screen once (the state it waited for is what the next step acts
//!   on), never twice;
//! - it is handed to the very next call on the device only (taken when that call starts), and
//!   only while it is younger than [`MAX_AGE`], counted from when it arrived from the device;
//! - a bare tool call (MCP, `tapflow tool`) has no carry: it always observes for itself.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tapflow_device::*;

use super::screen_log::ScreenLog;

/// Oldest observation a step may start from (measured from when it arrived). Steps follow
/// each other within milliseconds; anything older (a retry's delay, a hook) observes afresh.
pub const MAX_AGE: Duration = Duration::from_secs(1);

/// One device's hand-over slot, shared by the flow runner and the calls it makes.
#[derive(Debug, Default)]
pub struct Carry {
    state: Mutex<State>,
    /// Bumped when the runner abandons a call (its deadline passed): what that call leaves
    /// when it finally ends is not handed over.
    generation: AtomicU64,
    /// Every screen query the calls sent, and how it ended.
    screen: ScreenLog,
}

#[derive(Debug, Default)]
struct State {
    /// The next call should bring the screen back with its last action.
    observe_after: bool,
    tree: Option<Handed>,
}

/// A screen handed from one call to the next.
#[derive(Clone, Debug)]
pub struct Handed {
    pub tree: Arc<UiNode>,
    /// When it arrived from the device (its age counts from here).
    pub at: Instant,
    /// Already handed on once by a wait that ended on it: not relayed again.
    pub relayed: bool,
}

impl Handed {
    pub fn new(tree: Arc<UiNode>, at: Instant, relayed: bool) -> Self {
        Self { tree, at, relayed }
    }
}

impl Carry {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Set by the runner before a call: the step after it starts by looking at the screen.
    pub fn set_observe_after(&self, yes: bool) {
        self.lock().observe_after = yes;
    }

    /// Forgets the handed-over screen (something else may have touched the device).
    pub fn clear(&self) {
        self.lock().tree = None;
    }

    /// The runner gave up waiting for a call: forget the screen, and ignore what that call
    /// leaves when it ends.
    pub fn abandon(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.clear();
    }

    pub(super) fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// What a starting call takes: the hint, and the previous call's screen when still fresh.
    /// The screen comes with the instant it arrived, so a call that hands it on unchanged
    /// (a wait satisfied by it, a step that does not act) does not make it younger.
    pub(super) fn take(&self) -> (bool, Option<Handed>) {
        let mut s = self.lock();
        let hint = std::mem::take(&mut s.observe_after);
        let tree = s.tree.take().filter(|h| h.at.elapsed() <= MAX_AGE);
        (hint, tree)
    }

    /// What a finishing call that started in `generation` leaves: its last observation if
    /// nothing acted after it.
    pub(super) fn leave(&self, generation: u64, tree: Option<Handed>) {
        let mut s = self.lock();
        if self.generation() == generation {
            s.tree = tree;
        }
    }

    /// The screen queries sent so far (see [`ScreenLog`]).
    pub fn screen_log(&self) -> &ScreenLog {
        &self.screen
    }

    /// Whether a screen is waiting to be handed over (tests).
    pub fn holds_screen(&self) -> bool {
        self.lock().tree.is_some()
    }
}

/// Counts the operations that may change the screen, so a call knows whether an observation
/// still describes it, and records every screen query in the carry's [`ScreenLog`]. Other
/// reads pass straight through.
pub(super) struct Tracking {
    pub inner: Arc<dyn Device>,
    pub epoch: Arc<AtomicU64>,
    pub carry: Arc<Carry>,
}

impl Tracking {
    fn bump(&self) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
    }

    /// Runs a screen query (alone or chained to actions) and records how it ended; `tree`
    /// picks the query's verdict out of the answer (`None`: no dump was made).
    fn query<T>(
        &self,
        run: impl FnOnce() -> T,
        tree: impl FnOnce(&T) -> Option<Result<(), &DeviceError>>,
    ) -> T {
        let log = self.carry.screen_log();
        let id = log.begin();
        let out = run();
        log.end(id, tree(&out));
        out
    }
}

fn verdict<T>(r: &Option<DeviceResult<T>>) -> Option<Result<(), &DeviceError>> {
    r.as_ref().map(|t| t.as_ref().map(|_| ()))
}

impl Device for Tracking {
    forward_device!(
        plain:
        serial, platform, info, power_state, windows, missions, screenshot, packages,
        package_info, pid_of, logs, clear_logs, crash_files, read_crash_file, cost, app_windows,
        check_ready
    );

    fn ui_tree(&self, scope: &DumpScope) -> DeviceResult<UiNode> {
        self.query(
            || self.inner.ui_tree(scope),
            |r| Some(r.as_ref().map(|_| ())),
        )
    }
    fn tap(&self, at: Point, kind: TapKind) -> DeviceResult<()> {
        self.bump();
        self.inner.tap(at, kind)
    }
    fn gesture(&self, gesture: &Gesture) -> DeviceResult<()> {
        self.bump();
        self.inner.gesture(gesture)
    }
    fn input_text(&self, target: TextTarget, text: &str) -> DeviceResult<()> {
        self.bump();
        self.inner.input_text(target, text)
    }
    fn key_event(&self, key: &KeyInput) -> DeviceResult<()> {
        self.bump();
        self.inner.key_event(key)
    }
    fn install(&self, package: &Path, replace: bool) -> DeviceResult<()> {
        self.bump();
        self.inner.install(package, replace)
    }
    fn uninstall(&self, bundle: &str) -> DeviceResult<()> {
        self.bump();
        self.inner.uninstall(bundle)
    }
    fn start_app(&self, bundle: &str, ability: &str, module: Option<&str>) -> DeviceResult<()> {
        self.bump();
        self.inner.start_app(bundle, ability, module)
    }
    fn stop_app(&self, bundle: &str) -> DeviceResult<()> {
        self.bump();
        self.inner.stop_app(bundle)
    }
    fn clear_app_data(&self, bundle: &str) -> DeviceResult<()> {
        self.bump();
        self.inner.clear_app_data(bundle)
    }
    fn act(&self, action: &UiAction) -> DeviceResult<()> {
        self.bump();
        self.inner.act(action)
    }
    fn act_then_tree(&self, action: &UiAction, scope: &DumpScope) -> ActObserved {
        self.bump();
        self.query(
            || self.inner.act_then_tree(action, scope),
            |r| verdict(&r.tree),
        )
    }
    fn acts_then_tree(&self, actions: &[UiAction], scope: &DumpScope) -> ActsObserved {
        self.bump();
        self.query(
            || self.inner.acts_then_tree(actions, scope),
            |r| verdict(&r.tree),
        )
    }
    fn start_app_checked(
        &self,
        bundle: &str,
        ability: &str,
        module: Option<&str>,
        observe: Option<&DumpScope>,
    ) -> AppStarted {
        self.bump();
        self.query(
            || {
                self.inner
                    .start_app_checked(bundle, ability, module, observe)
            },
            |r| verdict(&r.tree),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_screen_is_taken_once_and_only_while_fresh() {
        let c = Carry::default();
        c.set_observe_after(true);
        let tree = Arc::new(UiNode::default());
        c.leave(
            c.generation(),
            Some(Handed::new(tree.clone(), Instant::now(), false)),
        );
        assert!(c.holds_screen());
        let (hint, got) = c.take();
        assert!(hint);
        assert!(got.is_some());
        let (hint, got) = c.take();
        assert!(!hint && got.is_none(), "taken once");
        // Too old: not handed over.
        let old = Instant::now().checked_sub(MAX_AGE + Duration::from_millis(1));
        if let Some(old) = old {
            c.leave(c.generation(), Some(Handed::new(tree.clone(), old, false)));
            assert!(c.take().1.is_none());
        }
        // A call the runner abandoned leaves nothing.
        let started_in = c.generation();
        c.abandon();
        c.leave(started_in, Some(Handed::new(tree, Instant::now(), false)));
        assert!(!c.holds_screen());
    }
}
