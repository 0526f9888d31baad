//! tapflow-device: everything that touches a device or the host on a tool's behalf.
//!
//! - The [`Device`] trait (the narrow waist every tool goes through), the platform-neutral
//!   [`model`], typed errors, the [`transport`] to device tools, and the backends [`hdc`] and
//!   [`adb`]: argv builders plus output parsers. A backend that cannot do an operation returns
//!   [`DeviceError::Unsupported`].
//! - [`ui`]: selectors, matching, element handles, tree digests and diffs over the model.
//! - [`logs`]: hilog and logcat parsing, time windows, markers, crash files.
//! - [`hostfs`]: the host-path policy every host file read or write goes through.
//!
//! May use: `tapflow-core` (error codes and near-miss suggestions) and nothing else of tapflow.
//! The device modules never use `ui` or `logs`: those read the model, not the other way round.

pub mod hostfs;
pub mod logs;
pub mod ui;

pub mod abort;
pub mod adb;
pub mod dump_resend;
pub mod error;
pub mod hdc;
pub mod model;
pub mod retry;
pub mod transport;

use std::path::Path;

pub use error::{DeviceError, DeviceResult};
pub use model::*;
pub use tapflow_core::platform::Platform;
pub use transport::{Cost, CostCounter, Output, ProcessTransport, Transport, TransportError};

/// One device, whatever its platform. All coordinates are physical pixels.
///
/// Implementations are cheap to share across threads; each call is one or a few round trips,
/// counted in [`Device::cost`].
pub trait Device: Send + Sync {
    /// The connect key / serial the backend addresses.
    fn serial(&self) -> &str;
    /// Which platform the device is (`harmonyos`, `android`).
    fn platform(&self) -> Platform;

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

    /// Performs several UI actions in order, then observes the tree, in ONE round trip where
    /// the backend can chain them (hdc: one `hdc shell`, which runs every action whatever the
    /// previous one answered); the default makes one call each and stops at the first refusal.
    /// `actions` holds the verdict of every action that was sent, in order; the tree is only
    /// observed when every action was sent and accepted.
    fn acts_then_tree(&self, actions: &[UiAction], scope: &DumpScope) -> ActsObserved {
        acts_one_by_one(self, actions, scope)
    }

    /// The check before a device runs flows: its info, its power state and a dump of the
    /// screen, in ONE round trip where the backend can chain them (hdc: one `hdc shell`);
    /// the default asks one at a time and stops when the info does not answer.
    fn check_ready(&self) -> Readiness {
        let info = self.info();
        if info.is_err() {
            return Readiness {
                info,
                power: None,
                tree: None,
            };
        }
        Readiness {
            info,
            power: Some(self.power_state()),
            tree: Some(self.ui_tree(&DumpScope::default())),
        }
    }

    /// The window table and the pids of `bundle`'s processes, read together (one round trip
    /// on hdc, where the pids stand in for reading every window owner's `/proc/<pid>/cmdline`:
    /// the table's rows of those pids are the app's and carry its bundle name).
    fn app_windows(&self, bundle: &str) -> DeviceResult<AppWindows> {
        let table = self.windows()?;
        let pids = self.pid_of(bundle)?.into_iter().collect();
        Ok(AppWindows { table, pids })
    }

    /// Starts an ability and, when it started, reads the app's windows right after it (see
    /// [`Device::app_windows`]) and, with `observe`, dumps the screen too: ONE round trip on
    /// hdc (the launch and its first window check chained into one `hdc shell`).
    fn start_app_checked(
        &self,
        bundle: &str,
        ability: &str,
        module: Option<&str>,
        observe: Option<&DumpScope>,
    ) -> AppStarted {
        let started = self.start_app(bundle, ability, module);
        let windows = started.is_ok().then(|| self.app_windows(bundle));
        let tree = match observe {
            Some(scope) if started.is_ok() => Some(self.ui_tree(scope)),
            _ => None,
        };
        AppStarted {
            started,
            windows,
            tree,
        }
    }
}

/// [`Device::acts_then_tree`] without chaining: one call per action, stopping at the first
/// refusal, the last one with its dump (the trait's default; backends and test devices that
/// chain only sometimes fall back on it).
pub fn acts_one_by_one<D: Device + ?Sized>(
    device: &D,
    actions: &[UiAction],
    scope: &DumpScope,
) -> ActsObserved {
    let Some((last, before)) = actions.split_last() else {
        return ActsObserved {
            actions: Vec::new(),
            tree: Some(device.ui_tree(scope)),
        };
    };
    let mut verdicts = Vec::with_capacity(actions.len());
    for a in before {
        let v = device.act(a);
        let refused = v.is_err();
        verdicts.push(v);
        if refused {
            return ActsObserved {
                actions: verdicts,
                tree: None,
            };
        }
    }
    let seen = device.act_then_tree(last, scope);
    verdicts.push(seen.action);
    ActsObserved {
        actions: verdicts,
        tree: seen.tree,
    }
}

/// What [`Device::check_ready`] read: the device's info and, when that answered, its power
/// state and the screen. Each part keeps its own verdict, so the caller can tell an unreachable
/// device from a sleeping or locked one.
#[derive(Debug, Clone, PartialEq)]
pub struct Readiness {
    pub info: DeviceResult<DeviceInfo>,
    pub power: Option<DeviceResult<PowerState>>,
    pub tree: Option<DeviceResult<UiNode>>,
}

/// What [`Device::acts_then_tree`] observed: the verdict of each action sent (a refused
/// action may end the list early), and the tree when every action was sent and accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActsObserved {
    pub actions: Vec<DeviceResult<()>>,
    pub tree: Option<DeviceResult<UiNode>>,
}

impl ActsObserved {
    /// The first refusal, or `Ok` when every action was accepted.
    pub fn first_error(&self) -> DeviceResult<()> {
        self.actions
            .iter()
            .find(|a| a.is_err())
            .cloned()
            .unwrap_or(Ok(()))
    }
}

/// What [`Device::app_windows`] read.
#[derive(Debug, Clone, PartialEq)]
pub struct AppWindows {
    pub table: WindowTable,
    /// The app's processes (empty when it does not run).
    pub pids: Vec<u32>,
}

/// What [`Device::start_app_checked`] saw: whether the start was accepted and, only when it
/// was, the windows read right after it and (when asked) the screen.
#[derive(Debug, Clone, PartialEq)]
pub struct AppStarted {
    pub started: DeviceResult<()>,
    pub windows: Option<DeviceResult<AppWindows>>,
    pub tree: Option<DeviceResult<UiNode>>,
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
