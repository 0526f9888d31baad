//! The device a `verify: true` call hands to its tool: every operation goes straight to the
//! real device, except the one UI action (tap, gesture, text, key) sent between
//! [`super::Call::before_action`] and [`super::Call::after_action`], which travels with the
//! post-action dump in one round trip (`Device::act_then_tree`; one `hdc shell` on hdc). The
//! tree is parked here for `after_action`, so `verify` evidence costs no round trip of its own.
//!
//! Tools keep calling `device.tap(..)` etc. as they always did; they need not know about it.

use std::path::Path;
use std::sync::{Arc, Mutex};

use tapflow_device::*;

/// What `after_action` will read: whether the next action should be chained, and the tree
/// that came back with it (`None`: no action was chained, or it was refused).
#[derive(Debug, Default)]
pub(super) struct PostAction {
    pub armed: bool,
    pub tree: Option<DeviceResult<UiNode>>,
}

pub(super) type Slot = Arc<Mutex<PostAction>>;

pub(super) struct Observing {
    pub inner: Arc<dyn Device>,
    pub slot: Slot,
}

impl Observing {
    fn lock(&self) -> std::sync::MutexGuard<'_, PostAction> {
        self.slot.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sends `action`; when armed, chained with the dump that observes it (and disarmed).
    fn send(&self, action: UiAction) -> DeviceResult<()> {
        let armed = std::mem::take(&mut self.lock().armed);
        if !armed {
            return self.inner.act(&action);
        }
        let seen = self.inner.act_then_tree(&action, &DumpScope::default());
        self.lock().tree = seen.tree;
        seen.action
    }
}

impl Device for Observing {
    forward_device!(
        plain:
        serial, platform, info, power_state, ui_tree, windows, missions, screenshot, install,
        uninstall, start_app, stop_app, clear_app_data, packages, package_info, pid_of, logs,
        clear_logs, crash_files, read_crash_file, cost, app_windows, check_ready
    );

    fn tap(&self, at: Point, kind: TapKind) -> DeviceResult<()> {
        self.send(UiAction::Tap(at, kind))
    }
    fn gesture(&self, gesture: &Gesture) -> DeviceResult<()> {
        self.send(UiAction::Gesture(gesture.clone()))
    }
    fn input_text(&self, target: TextTarget, text: &str) -> DeviceResult<()> {
        self.send(UiAction::Text(target, text.to_string()))
    }
    fn key_event(&self, key: &KeyInput) -> DeviceResult<()> {
        self.send(UiAction::Key(key.clone()))
    }
    fn act(&self, action: &UiAction) -> DeviceResult<()> {
        self.send(action.clone())
    }
    /// An explicit chain is the caller's own observation; when armed it also serves as the
    /// post-action tree.
    fn act_then_tree(&self, action: &UiAction, scope: &DumpScope) -> ActObserved {
        let armed = std::mem::take(&mut self.lock().armed);
        let seen = self.inner.act_then_tree(action, scope);
        if armed && scope == &DumpScope::default() {
            self.lock().tree = seen.tree.clone();
        }
        seen
    }
    /// Like [`Observing::act_then_tree`]: the tree after the last action is the post-action
    /// tree when armed.
    fn acts_then_tree(&self, actions: &[UiAction], scope: &DumpScope) -> ActsObserved {
        let armed = std::mem::take(&mut self.lock().armed);
        let seen = self.inner.acts_then_tree(actions, scope);
        if armed && scope == &DumpScope::default() {
            self.lock().tree = seen.tree.clone();
        }
        seen
    }
    fn start_app_checked(
        &self,
        bundle: &str,
        ability: &str,
        module: Option<&str>,
        observe: Option<&DumpScope>,
    ) -> AppStarted {
        self.inner
            .start_app_checked(bundle, ability, module, observe)
    }
}
