//! The device a cancellable call hands to its tool: before every operation (every device round
//! trip) it looks at the call's [`Signals`]; once the caller has cancelled, nothing more is sent
//! and the operation fails at once. Tools keep calling the device as they always did.

use std::path::Path;
use std::sync::Arc;

use super::Signals;
use crate::device::*;

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
    forward_device! {
        fn serial(&self) -> &str;
        fn platform(&self) -> &'static str;
        fn cost(&self) -> Cost;
    }
    forward_device! {
        after check:
        fn info(&self) -> DeviceResult<DeviceInfo>;
        fn power_state(&self) -> DeviceResult<PowerState>;
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
        fn pid_of(&self, bundle: &str) -> DeviceResult<Option<u32>>;
        fn logs(&self, query: &LogQuery) -> DeviceResult<String>;
        fn clear_logs(&self) -> DeviceResult<()>;
        fn crash_files(&self) -> DeviceResult<Vec<CrashEntry>>;
        fn read_crash_file(&self, file_name: &str) -> DeviceResult<String>;
        fn act(&self, action: &UiAction) -> DeviceResult<()>;
        fn app_windows(&self, bundle: &str) -> DeviceResult<AppWindows>;
    }

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
