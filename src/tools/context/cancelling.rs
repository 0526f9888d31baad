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
    fn serial(&self) -> &str {
        self.inner.serial()
    }

    fn platform(&self) -> &'static str {
        self.inner.platform()
    }

    fn info(&self) -> DeviceResult<DeviceInfo> {
        self.check()?;
        self.inner.info()
    }

    fn power_state(&self) -> DeviceResult<PowerState> {
        self.check()?;
        self.inner.power_state()
    }

    fn ui_tree(&self, scope: &DumpScope) -> DeviceResult<UiNode> {
        self.check()?;
        self.inner.ui_tree(scope)
    }

    fn windows(&self) -> DeviceResult<WindowTable> {
        self.check()?;
        self.inner.windows()
    }

    fn missions(&self) -> DeviceResult<Vec<Mission>> {
        self.check()?;
        self.inner.missions()
    }

    fn tap(&self, at: Point, kind: TapKind) -> DeviceResult<()> {
        self.check()?;
        self.inner.tap(at, kind)
    }

    fn gesture(&self, gesture: &Gesture) -> DeviceResult<()> {
        self.check()?;
        self.inner.gesture(gesture)
    }

    fn input_text(&self, target: TextTarget, text: &str) -> DeviceResult<()> {
        self.check()?;
        self.inner.input_text(target, text)
    }

    fn key_event(&self, key: &KeyInput) -> DeviceResult<()> {
        self.check()?;
        self.inner.key_event(key)
    }

    fn screenshot(&self, request: &ScreenshotRequest) -> DeviceResult<Screenshot> {
        self.check()?;
        self.inner.screenshot(request)
    }

    fn install(&self, package: &Path, replace: bool) -> DeviceResult<()> {
        self.check()?;
        self.inner.install(package, replace)
    }

    fn uninstall(&self, bundle: &str) -> DeviceResult<()> {
        self.check()?;
        self.inner.uninstall(bundle)
    }

    fn start_app(&self, bundle: &str, ability: &str, module: Option<&str>) -> DeviceResult<()> {
        self.check()?;
        self.inner.start_app(bundle, ability, module)
    }

    fn stop_app(&self, bundle: &str) -> DeviceResult<()> {
        self.check()?;
        self.inner.stop_app(bundle)
    }

    fn clear_app_data(&self, bundle: &str) -> DeviceResult<()> {
        self.check()?;
        self.inner.clear_app_data(bundle)
    }

    fn packages(&self) -> DeviceResult<Vec<String>> {
        self.check()?;
        self.inner.packages()
    }

    fn package_info(&self, bundle: &str) -> DeviceResult<PackageInfo> {
        self.check()?;
        self.inner.package_info(bundle)
    }

    fn pid_of(&self, bundle: &str) -> DeviceResult<Option<u32>> {
        self.check()?;
        self.inner.pid_of(bundle)
    }

    fn logs(&self, query: &LogQuery) -> DeviceResult<String> {
        self.check()?;
        self.inner.logs(query)
    }

    fn clear_logs(&self) -> DeviceResult<()> {
        self.check()?;
        self.inner.clear_logs()
    }

    fn crash_files(&self) -> DeviceResult<Vec<CrashEntry>> {
        self.check()?;
        self.inner.crash_files()
    }

    fn read_crash_file(&self, file_name: &str) -> DeviceResult<String> {
        self.check()?;
        self.inner.read_crash_file(file_name)
    }

    fn cost(&self) -> Cost {
        self.inner.cost()
    }

    fn act(&self, action: &UiAction) -> DeviceResult<()> {
        self.check()?;
        self.inner.act(action)
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

    fn app_windows(&self, bundle: &str) -> DeviceResult<AppWindows> {
        self.check()?;
        self.inner.app_windows(bundle)
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
