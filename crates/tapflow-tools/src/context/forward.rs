//! `forward_device!`: the `Device` methods a decorator of this module (cancelling, carry's
//! tracking, observing) leaves alone, forwarded to its `inner` device. Each decorator names the
//! methods it forwards; the signatures are written once, here.

/// Forwards `Device` methods, named in a list, to `self.inner` unchanged, for the decorators
/// below, each of which changes only a few: `plain: a, b` forwards as they are, `check: a, b`
/// after `self.check()?` (the signatures are written once, here).
macro_rules! forward_device {
    ($how:ident: $($name:ident),* $(,)?) => {
        $(forward_device!(@one $how $name);)*
    };
    (@pre plain $s:tt) => {};
    (@pre check $s:tt) => {
        $s.check()?;
    };
    (@one $how:ident serial) => {
        fn serial(&self) -> &str {
            forward_device!(@pre $how self);
            self.inner.serial()
        }
    };
    (@one $how:ident platform) => {
        fn platform(&self) -> tapflow_device::Platform {
            forward_device!(@pre $how self);
            self.inner.platform()
        }
    };
    (@one $how:ident info) => {
        fn info(&self) -> DeviceResult<DeviceInfo> {
            forward_device!(@pre $how self);
            self.inner.info()
        }
    };
    (@one $how:ident power_state) => {
        fn power_state(&self) -> DeviceResult<PowerState> {
            forward_device!(@pre $how self);
            self.inner.power_state()
        }
    };
    (@one $how:ident ui_tree) => {
        fn ui_tree(&self, scope: &DumpScope) -> DeviceResult<UiNode> {
            forward_device!(@pre $how self);
            self.inner.ui_tree(scope)
        }
    };
    (@one $how:ident windows) => {
        fn windows(&self) -> DeviceResult<WindowTable> {
            forward_device!(@pre $how self);
            self.inner.windows()
        }
    };
    (@one $how:ident missions) => {
        fn missions(&self) -> DeviceResult<Vec<Mission>> {
            forward_device!(@pre $how self);
            self.inner.missions()
        }
    };
    (@one $how:ident tap) => {
        fn tap(&self, at: Point, kind: TapKind) -> DeviceResult<()> {
            forward_device!(@pre $how self);
            self.inner.tap(at, kind)
        }
    };
    (@one $how:ident gesture) => {
        fn gesture(&self, gesture: &Gesture) -> DeviceResult<()> {
            forward_device!(@pre $how self);
            self.inner.gesture(gesture)
        }
    };
    (@one $how:ident input_text) => {
        fn input_text(&self, target: TextTarget, text: &str) -> DeviceResult<()> {
            forward_device!(@pre $how self);
            self.inner.input_text(target, text)
        }
    };
    (@one $how:ident key_event) => {
        fn key_event(&self, key: &KeyInput) -> DeviceResult<()> {
            forward_device!(@pre $how self);
            self.inner.key_event(key)
        }
    };
    (@one $how:ident screenshot) => {
        fn screenshot(&self, request: &ScreenshotRequest) -> DeviceResult<Screenshot> {
            forward_device!(@pre $how self);
            self.inner.screenshot(request)
        }
    };
    (@one $how:ident install) => {
        fn install(&self, package: &Path, replace: bool) -> DeviceResult<()> {
            forward_device!(@pre $how self);
            self.inner.install(package, replace)
        }
    };
    (@one $how:ident uninstall) => {
        fn uninstall(&self, bundle: &str) -> DeviceResult<()> {
            forward_device!(@pre $how self);
            self.inner.uninstall(bundle)
        }
    };
    (@one $how:ident start_app) => {
        fn start_app(&self, bundle: &str, ability: &str, module: Option<&str>) -> DeviceResult<()> {
            forward_device!(@pre $how self);
            self.inner.start_app(bundle, ability, module)
        }
    };
    (@one $how:ident stop_app) => {
        fn stop_app(&self, bundle: &str) -> DeviceResult<()> {
            forward_device!(@pre $how self);
            self.inner.stop_app(bundle)
        }
    };
    (@one $how:ident clear_app_data) => {
        fn clear_app_data(&self, bundle: &str) -> DeviceResult<()> {
            forward_device!(@pre $how self);
            self.inner.clear_app_data(bundle)
        }
    };
    (@one $how:ident packages) => {
        fn packages(&self) -> DeviceResult<Vec<String>> {
            forward_device!(@pre $how self);
            self.inner.packages()
        }
    };
    (@one $how:ident package_info) => {
        fn package_info(&self, bundle: &str) -> DeviceResult<PackageInfo> {
            forward_device!(@pre $how self);
            self.inner.package_info(bundle)
        }
    };
    (@one $how:ident pid_of) => {
        fn pid_of(&self, bundle: &str) -> DeviceResult<Option<u32>> {
            forward_device!(@pre $how self);
            self.inner.pid_of(bundle)
        }
    };
    (@one $how:ident logs) => {
        fn logs(&self, query: &LogQuery) -> DeviceResult<String> {
            forward_device!(@pre $how self);
            self.inner.logs(query)
        }
    };
    (@one $how:ident clear_logs) => {
        fn clear_logs(&self) -> DeviceResult<()> {
            forward_device!(@pre $how self);
            self.inner.clear_logs()
        }
    };
    (@one $how:ident crash_files) => {
        fn crash_files(&self) -> DeviceResult<Vec<CrashEntry>> {
            forward_device!(@pre $how self);
            self.inner.crash_files()
        }
    };
    (@one $how:ident read_crash_file) => {
        fn read_crash_file(&self, file_name: &str) -> DeviceResult<String> {
            forward_device!(@pre $how self);
            self.inner.read_crash_file(file_name)
        }
    };
    (@one $how:ident cost) => {
        fn cost(&self) -> Cost {
            forward_device!(@pre $how self);
            self.inner.cost()
        }
    };
    (@one $how:ident act) => {
        fn act(&self, action: &UiAction) -> DeviceResult<()> {
            forward_device!(@pre $how self);
            self.inner.act(action)
        }
    };
    (@one $how:ident app_windows) => {
        fn app_windows(&self, bundle: &str) -> DeviceResult<AppWindows> {
            forward_device!(@pre $how self);
            self.inner.app_windows(bundle)
        }
    };
    (@one $how:ident check_ready) => {
        fn check_ready(&self) -> Readiness {
            forward_device!(@pre $how self);
            self.inner.check_ready()
        }
    };
}
