//! The device layer: the [`Device`] trait (the narrow waist every tool goes through), the
//! platform-neutral model, typed errors, the transport to device tools, and the backends.
//!
//! Owns: everything that talks to a device and turns its output into [`model`] types.
//! Must not use: anything above it (`ui`, `tools`, `run`, `cli`). Backends are argv builders plus
//! output parsers; a backend that cannot do an operation returns [`DeviceError::Unsupported`].

pub mod adb;
pub mod error;
pub mod hdc;
pub mod model;
pub mod transport;

use std::path::Path;

pub use error::{DeviceError, DeviceResult};
pub use model::*;
pub use transport::{Cost, CostCounter, Output, ProcessTransport, Transport, TransportError};

/// One device, whatever its platform. All coordinates are physical pixels.
///
/// Implementations are cheap to share across threads; each call is one or a few round trips,
/// counted in [`Device::cost`].
pub trait Device: Send + Sync {
    /// The connect key / serial the backend addresses.
    fn serial(&self) -> &str;
    /// `harmonyos`, `android`, `webdriver`.
    fn platform(&self) -> &'static str;

    fn info(&self) -> DeviceResult<DeviceInfo>;
    fn power_state(&self) -> DeviceResult<PowerState>;

    /// The merged UI tree (synthetic root, one child per window), optionally scoped.
    fn ui_tree(&self, scope: &DumpScope) -> DeviceResult<UiNode>;
    fn windows(&self) -> DeviceResult<WindowTable>;
    fn missions(&self) -> DeviceResult<Vec<Mission>>;

    fn tap(&self, at: Point, kind: TapKind) -> DeviceResult<()>;
    fn gesture(&self, gesture: &Gesture) -> DeviceResult<()>;
    fn input_text(&self, target: TextTarget, text: &str) -> DeviceResult<()>;
    fn key_event(&self, key: &KeyInput) -> DeviceResult<()>;
    fn screenshot(&self, request: &ScreenshotRequest) -> DeviceResult<Screenshot>;

    fn install(&self, package: &Path, replace: bool) -> DeviceResult<()>;
    fn uninstall(&self, bundle: &str) -> DeviceResult<()>;
    fn start_app(&self, bundle: &str, ability: &str, module: Option<&str>) -> DeviceResult<()>;
    fn stop_app(&self, bundle: &str) -> DeviceResult<()>;
    fn clear_app_data(&self, bundle: &str) -> DeviceResult<()>;
    fn packages(&self) -> DeviceResult<Vec<String>>;
    fn package_info(&self, bundle: &str) -> DeviceResult<PackageInfo>;
    /// The pid of a running app, `None` when it is not running.
    fn pid_of(&self, bundle: &str) -> DeviceResult<Option<u32>>;

    /// Buffered log lines matching `query`, as the device prints them (non-blocking read).
    fn logs(&self, query: &LogQuery) -> DeviceResult<String>;
    fn clear_logs(&self) -> DeviceResult<()>;
    fn crash_files(&self) -> DeviceResult<Vec<CrashEntry>>;
    fn read_crash_file(&self, file_name: &str) -> DeviceResult<String>;

    /// Round trips and UI dumps so far (subtract two snapshots for the cost of a step).
    fn cost(&self) -> Cost;

    /// Performs one UI action (the same as calling [`Device::tap`], [`Device::gesture`],
    /// [`Device::input_text`] or [`Device::key_event`]).
    fn act(&self, action: &UiAction) -> DeviceResult<()> {
        match action {
            UiAction::Tap(at, kind) => self.tap(*at, *kind),
            UiAction::Gesture(g) => self.gesture(g),
            UiAction::Text(target, text) => self.input_text(*target, text),
            UiAction::Key(key) => self.key_event(key),
        }
    }

    /// Performs a UI action and observes the tree right after it. Backends that can chain
    /// both into one round trip (hdc: one `hdc shell`) override this; the default costs two.
    /// The tree is only observed when the action was accepted.
    fn act_then_tree(&self, action: &UiAction, scope: &DumpScope) -> ActObserved {
        let action = self.act(action);
        let tree = action.is_ok().then(|| self.ui_tree(scope));
        ActObserved { action, tree }
    }
}

/// A UI action that [`Device::act_then_tree`] can chain with the dump observing its effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UiAction {
    Tap(Point, TapKind),
    Gesture(Gesture),
    Text(TextTarget, String),
    Key(KeyInput),
}

/// What [`Device::act_then_tree`] observed: whether the action was accepted and, when it was,
/// the tree dumped right after it (or why that dump failed). The two are kept apart so a
/// caller never loses the fact that an action was dispatched because the dump after it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActObserved {
    pub action: DeviceResult<()>,
    pub tree: Option<DeviceResult<UiNode>>,
}
