//! The device a cancellable call hands to its tool: before every operation (every device round
//! trip) it looks at the call's [`Signals`]; once the caller has cancelled, nothing more is sent
//! and the operation fails at once. Tools keep calling the device as they always did.

use std::path::Path;
use std::sync::Arc;

use super::Signals;
use tapflow_device::*;

pub(super) struct Cancelling {
    pub inner: Arc<dyn Device>,
    pub signals: Signals,
}

impl Cancelling {
    fn check(&self) -> DeviceResult<()> {
        if self.signals.is_cancelled() {
            Err(DeviceError::Io {
                what: "cancelled".into(),
                detail: "the call was cancelled by its caller; the command was not sent".into(),
            })
        } else {
            Ok(())
        }
    }
}

impl Device for Cancelling {
    forward_device!(
        plain:
        serial, platform, cost
    );
    forward_device!(
        check:
        info, power_state, ui_tree, windows, missions, tap, gesture, input_text, key_event,
        screenshot, install, uninstall, start_app, stop_app, clear_app_data, packages,
        package_info, pid_of, logs, clear_logs, crash_files, read_crash_file, act, app_windows
    );

    fn act_then_tree(&self, action: &UiAction, scope: &DumpScope) -> ActObserved {
        if let Err(e) = self.check() {
            return ActObserved {
                action: Err(e),
                tree: None,
            };
        }
        self.inner.act_then_tree(action, scope)
    }

    fn acts_then_tree(&self, actions: &[UiAction], scope: &DumpScope) -> ActsObserved {
        if let Err(e) = self.check() {
            return ActsObserved {
                actions: vec![Err(e)],
                tree: None,
            };
        }
        self.inner.acts_then_tree(actions, scope)
    }

    fn start_app_checked(
        &self,
        bundle: &str,
        ability: &str,
        module: Option<&str>,
        observe: Option<&DumpScope>,
    ) -> AppStarted {
        if let Err(e) = self.check() {
            return AppStarted {
                started: Err(e),
                windows: None,
                tree: None,
            };
        }
        self.inner
            .start_app_checked(bundle, ability, module, observe)
    }

    fn check_ready(&self) -> Readiness {
        if let Err(e) = self.check() {
            return Readiness {
                info: Err(e),
                power: None,
                tree: None,
            };
        }
        self.inner.check_ready()
    }
}
