//! [`AdbDevice`]: the [`Device`] trait over adb. Each method sends the command built in
//! [`commands`] through the [`Runner`] (one round trip unless noted) and judges the answer with
//! the parsers; the UI dump, actions chained with it, text input and screenshots live beside
//! this file (`ui_dump`, `input`, `screenshot`).
//!
//! Operations Android has no equivalent for answer `Unsupported` (missions; faultlogger crash
//! files: on Android crashes are read from logcat, see `logs::logcat`).

use std::path::Path;
use std::sync::{Arc, OnceLock};

use crate::adb::classify::{Answer, Op, Streams, command_failed, outcome};
use crate::adb::commands;
use crate::adb::config::AdbConfig;
use crate::adb::parse::{focus, outcome as verdict, packages, props};
use crate::adb::runner::Runner;
use crate::error::{DeviceError, DeviceResult};
use crate::hdc::quote::ShellCommand;
use crate::hdc::sections;
use crate::model::*;
use crate::transport::{Cost, CostCounter, Transport};
use crate::{ActObserved, Device, UiAction};

/// One Android device reached through adb.
#[derive(Debug, Clone)]
pub struct AdbDevice {
    serial: String,
    runner: Runner,
    config: AdbConfig,
    /// `wm size`, read once (directional flings start from the screen's centre).
    screen: Arc<OnceLock<Option<ScreenSize>>>,
}

impl AdbDevice {
    /// A device known as `serial`, counting into `cost`. No round trip happens here;
    /// [`super::AdbClient::connect`] verifies the device first.
    pub fn new(
        serial: impl Into<String>,
        transport: Arc<dyn Transport>,
        config: AdbConfig,
        cost: CostCounter,
    ) -> Self {
        let globals = config.global_args();
        Self {
            serial: serial.into(),
            runner: Runner::new(transport, cost, globals, config.refused_retry),
            config,
            screen: Arc::new(OnceLock::new()),
        }
    }

    pub fn config(&self) -> &AdbConfig {
        &self.config
    }

    pub fn cost_counter(&self) -> &CostCounter {
        self.runner.cost()
    }

    /// `adb -s SERIAL shell "<cmd>"` under `timeout`.
    pub(super) fn shell_with(
        &self,
        cmd: &ShellCommand,
        timeout: std::time::Duration,
    ) -> DeviceResult<Answer> {
        self.runner.shell(&self.serial, cmd, timeout)
    }

    /// An ordinary shell command under the command deadline.
    pub(super) fn shell(&self, cmd: &ShellCommand) -> DeviceResult<Answer> {
        self.shell_with(cmd, self.config.command_timeout)
    }

    /// `adb -s SERIAL exec-out "<cmd>"` under `timeout`.
    pub(super) fn exec_out(
        &self,
        cmd: &ShellCommand,
        timeout: std::time::Duration,
    ) -> DeviceResult<Answer> {
        self.runner.exec_out(&self.serial, cmd, timeout)
    }

    /// `adb -s SERIAL <sub…>` (install, pull, push).
    pub(super) fn adb(&self, sub: &[String], timeout: std::time::Duration) -> DeviceResult<Answer> {
        self.runner
            .run(Some(&self.serial), sub, timeout, Streams::Both)
    }

    /// The screen size (`wm size`, override first), read once per handle.
    pub fn screen_size(&self) -> DeviceResult<Option<ScreenSize>> {
        if let Some(s) = self.screen.get() {
            return Ok(*s);
        }
        let answer = self.shell(&commands::wm_size())?;
        let size = props::parse_wm_size(&answer.stdout);
        let _ = self.screen.set(size);
        Ok(size)
    }

    /// What the window manager says has the focus (`dumpsys window displays`).
    pub fn focus(&self) -> DeviceResult<focus::Focus> {
        let answer = self.shell(&commands::focus())?;
        Ok(focus::parse_focus(&answer.stdout))
    }

    /// `logcat -c`-free read of the whole default buffer (`logcat -d -v threadtime`).
    pub fn logcat(&self, query: &LogQuery) -> DeviceResult<String> {
        self.logs(query)
    }

    pub(super) fn serial_str(&self) -> &str {
        &self.serial
    }
}

/// At most the first 300 characters of `text`, for error details.
pub(super) fn excerpt(text: &str) -> String {
    let t = text.trim();
    match t.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None if t.is_empty() => "(no output)".to_string(),
        None => t.to_string(),
    }
}

/// `ro.build.characteristics` (a comma list: `default`, `nosdcard`, `tablet,nosdcard`, `tv`,
/// `watch`, `automotive`, …) as a device type.
pub fn device_type(characteristics: &str) -> &'static str {
    let has = |k: &str| characteristics.split(',').any(|c| c.trim() == k);
    if has("tablet") {
        "tablet"
    } else if has("tv") {
        "tv"
    } else if has("watch") {
        "watch"
    } else if has("automotive") {
        "car"
    } else {
        "phone"
    }
}

fn unsupported(op: &str) -> DeviceError {
    DeviceError::Unsupported {
        op: op.to_string(),
        backend: "adb".to_string(),
    }
}

impl Device for AdbDevice {
    fn serial(&self) -> &str {
        &self.serial
    }

    fn platform(&self) -> crate::Platform {
        crate::Platform::Android
    }

    fn info(&self) -> DeviceResult<DeviceInfo> {
        let answer = self.shell(&commands::info())?;
        let parts = sections::split(&answer.stdout, commands::INFO_PROPS.len() + 1);
        let value =
            |i: usize| -> Option<String> { props::parse_getprop(parts.get(i)?.as_deref()?) };
        let screen = parts[commands::INFO_PROPS.len()]
            .as_deref()
            .and_then(props::parse_wm_size);
        if let Some(s) = screen {
            let _ = self.screen.set(Some(s));
        }
        Ok(DeviceInfo {
            serial: self.serial.clone(),
            platform: crate::Platform::Android,
            model: value(0),
            name: value(1),
            brand: value(2),
            software_version: value(3),
            api_level: value(4).and_then(|v| v.parse().ok()),
            cpu_abi: value(5),
            device_type: value(6).map(|c| device_type(&c).to_string()),
            screen,
        })
    }

    fn power_state(&self) -> DeviceResult<PowerState> {
        let answer = self.shell(&commands::power())?;
        props::parse_power(&answer.stdout).ok_or_else(|| DeviceError::Parse {
            code: tapflow_core::codes::DEVICE_INFO_FAILED,
            what: "power state".into(),
            detail: format!(
                "no `mWakefulness=` in `dumpsys power`: {}",
                excerpt(&answer.text())
            ),
        })
    }

    fn ui_tree(&self, scope: &DumpScope) -> DeviceResult<UiNode> {
        self.dump_ui(scope)
    }

    fn act_then_tree(&self, action: &UiAction, scope: &DumpScope) -> ActObserved {
        self.act_and_dump(action, scope)
    }

    /// The focused window only (Android's window list is not needed by any tool): window `1`,
    /// the same number the active window has in a UI dump, full screen, visible, named as
    /// `mCurrentFocus` prints it, with its package.
    fn windows(&self) -> DeviceResult<WindowTable> {
        let f = self.focus()?;
        let screen = self.screen_size()?;
        let Some(name) = f.current_focus.clone() else {
            return Ok(WindowTable::default());
        };
        let rect = screen
            .map(|s| Rect {
                x: 0,
                y: 0,
                w: s.width as i32,
                h: s.height as i32,
            })
            .unwrap_or_default();
        Ok(WindowTable {
            windows: vec![WindowInfo {
                name,
                display_id: 0,
                pid: 0,
                window_id: 1,
                window_type: 1,
                mode: 1,
                flag: 0,
                z_order: 0,
                orientation: 0,
                rect,
                visible: true,
                bundle_name: f.package.clone(),
            }],
            focus_window: Some(1),
            total: Some(1),
        })
    }

    fn missions(&self) -> DeviceResult<Vec<Mission>> {
        Err(unsupported(
            "missions (HarmonyOS `aa dump -l`; on Android read the focused window instead)",
        ))
    }

    fn tap(&self, at: Point, kind: TapKind) -> DeviceResult<()> {
        let op = Op::new(tapflow_core::codes::INPUT_FAILED, "tap");
        let answer = self.shell(&commands::tap(at, kind))?;
        outcome(&op, verdict::input(&answer.text()))
    }

    fn gesture(&self, gesture: &Gesture) -> DeviceResult<()> {
        let op = Op::new(tapflow_core::codes::INPUT_FAILED, "gesture");
        let screen = self.screen_for(gesture)?;
        let cmd = commands::gesture(gesture, screen)?;
        let answer = self.shell_with(&cmd, self.action_timeout(gesture))?;
        outcome(&op, verdict::input(&answer.text()))
    }

    fn input_text(&self, target: TextTarget, text: &str) -> DeviceResult<()> {
        self.type_text(target, text)
    }

    fn key_event(&self, key: &KeyInput) -> DeviceResult<()> {
        let op = Op::new(tapflow_core::codes::KEY_EVENT_FAILED, "key event");
        let cmd = key_command(key)?;
        let answer = self.shell(&cmd)?;
        outcome(&op, verdict::input(&answer.text()))
    }

    fn screenshot(&self, request: &ScreenshotRequest) -> DeviceResult<Screenshot> {
        self.capture(request)
    }

    fn install(&self, package: &Path, replace: bool) -> DeviceResult<()> {
        let op = Op::new(tapflow_core::codes::INSTALL_FAILED, "install");
        if !package.is_file() {
            return Err(DeviceError::Io {
                what: "install package".into(),
                detail: format!("{} is not a readable file", package.display()),
            });
        }
        let Some(path) = package.to_str() else {
            return Err(DeviceError::Io {
                what: "install package".into(),
                detail: format!("{} is not valid UTF-8", package.display()),
            });
        };
        let answer = self.adb(
            &commands::install(path, replace),
            self.config.install_timeout,
        )?;
        outcome(&op, verdict::success_line(&answer.text()))
    }

    /// `pm uninstall PKG` through the shell (`adb uninstall` waits forever for a missing
    /// device; the shell fails at once).
    fn uninstall(&self, bundle: &str) -> DeviceResult<()> {
        let op = Op::new(
            tapflow_core::codes::UNINSTALL_FAILED,
            format!("uninstall {bundle}"),
        );
        let cmd = commands::pm_uninstall(bundle)?;
        let answer = self.shell_with(&cmd, self.config.install_timeout)?;
        outcome(&op, verdict::success_line(&answer.text()))
    }

    /// `am start -n PKG/ACTIVITY`; with an empty activity, the launcher activity through
    /// `monkey`. (`module` is HarmonyOS's; Android apps have none and it must be absent.)
    fn start_app(&self, bundle: &str, ability: &str, module: Option<&str>) -> DeviceResult<()> {
        let op = Op::new(
            tapflow_core::codes::RUN_APP_FAILED,
            format!("start {bundle}/{ability}"),
        );
        if let Some(m) = module.filter(|m| !m.is_empty()) {
            return Err(command_failed(
                &op,
                format!("Android apps have no modules (got module {m:?})"),
            ));
        }
        if ability.is_empty() {
            let answer = self.shell(&commands::monkey_launch(bundle)?)?;
            return outcome(&op, verdict::monkey(&answer.text()));
        }
        let answer = self.shell(&commands::am_start(bundle, ability)?)?;
        outcome(&op, verdict::am_start(&answer.text()))
    }

    fn stop_app(&self, bundle: &str) -> DeviceResult<()> {
        let op = Op::new(
            tapflow_core::codes::STOP_APP_FAILED,
            format!("force-stop {bundle}"),
        );
        let answer = self.shell(&commands::force_stop(bundle)?)?;
        // Silent on success, even for an unknown package.
        let text = answer.text();
        if text.trim().is_empty() {
            Ok(())
        } else {
            Err(command_failed(&op, text.trim()))
        }
    }

    fn clear_app_data(&self, bundle: &str) -> DeviceResult<()> {
        let op = Op::new(
            tapflow_core::codes::CLEAR_DATA_FAILED,
            format!("clear data of {bundle}"),
        );
        let answer = self.shell(&commands::pm_clear(bundle)?)?;
        outcome(&op, verdict::success_line(&answer.text()))
    }

    fn packages(&self) -> DeviceResult<Vec<String>> {
        let op = Op::new(tapflow_core::codes::PACKAGE_QUERY_FAILED, "package list");
        let answer = self.shell(&commands::pm_list_packages())?;
        let list = packages::parse_package_list(&answer.stdout);
        if list.is_empty() && !answer.stderr.trim().is_empty() {
            return Err(command_failed(&op, answer.stderr.trim()));
        }
        Ok(list)
    }

    fn package_info(&self, bundle: &str) -> DeviceResult<PackageInfo> {
        let answer = self.shell(&commands::package_info(bundle)?)?;
        let parts = sections::split(&answer.stdout, 2);
        let dump = parts[0].as_deref().unwrap_or("");
        let mut info =
            packages::parse_dumpsys_package(dump, bundle).map_err(|e| DeviceError::Command {
                code: tapflow_core::codes::PACKAGE_QUERY_FAILED,
                what: format!("package info of {bundle}"),
                device_says: e.detail,
            })?;
        if let Some((pkg, class)) = parts[1]
            .as_deref()
            .and_then(packages::parse_resolve_activity)
            && pkg == bundle
        {
            info.main_ability = Some(packages::full_class(&pkg, &class));
        }
        Ok(info)
    }

    fn pid_of(&self, bundle: &str) -> DeviceResult<Option<u32>> {
        let answer = self.shell(&commands::pidof(bundle)?)?;
        props::parse_pidof(&answer.stdout).map_err(|detail| DeviceError::Parse {
            code: tapflow_core::codes::PID_QUERY_FAILED,
            what: format!("pidof {bundle}"),
            detail,
        })
    }

    fn logs(&self, query: &LogQuery) -> DeviceResult<String> {
        let op = Op::new(tapflow_core::codes::LOG_QUERY_FAILED, "log query");
        let cmd = commands::logcat(query)?;
        let answer = self.shell_with(&cmd, self.config.transfer_timeout)?;
        // logcat complains on stderr (`logcat: Invalid filter expression`, bad `-T`) and exits
        // non-zero; an empty buffer is zero bytes and status 0.
        if answer.stdout.is_empty() && !answer.stderr.trim().is_empty() {
            return Err(command_failed(&op, answer.stderr.trim()));
        }
        Ok(answer.stdout)
    }

    fn clear_logs(&self) -> DeviceResult<()> {
        let op = Op::new(tapflow_core::codes::LOG_CLEAR_FAILED, "clear logs");
        let answer = self.shell(&commands::logcat_clear())?;
        let text = answer.text();
        if text.trim().is_empty() {
            Ok(())
        } else {
            Err(command_failed(&op, text.trim()))
        }
    }

    fn crash_files(&self) -> DeviceResult<Vec<CrashEntry>> {
        Err(unsupported(
            "crash files (HarmonyOS faultlogger; on Android crashes are read from logcat: `AndroidRuntime: FATAL EXCEPTION` blocks and ANRs)",
        ))
    }

    fn read_crash_file(&self, _file_name: &str) -> DeviceResult<String> {
        Err(unsupported(
            "reading crash files (HarmonyOS faultlogger; on Android crashes are read from logcat)",
        ))
    }

    fn cost(&self) -> Cost {
        self.runner.cost().snapshot()
    }
}

impl AdbDevice {
    /// A directional fling needs the screen; other gestures carry their points.
    fn screen_for(&self, g: &Gesture) -> DeviceResult<Option<(i32, i32)>> {
        Ok(match g {
            Gesture::DirectionalFling { .. } => self
                .screen_size()?
                .map(|s| (s.width as i32, s.height as i32)),
            _ => None,
        })
    }

    /// A gesture's own duration on top of the command deadline.
    fn action_timeout(&self, g: &Gesture) -> std::time::Duration {
        let ms = match g {
            Gesture::Swipe { .. } | Gesture::Drag { .. } | Gesture::Fling { .. } => {
                commands::MAX_SWIPE_MS
            }
            Gesture::DirectionalFling { .. } => commands::MAX_SWIPE_MS,
        };
        self.config.command_timeout + std::time::Duration::from_millis(ms as u64)
    }
}

/// The `input` command of a key: the named system keys by their Android keycodes; one code as
/// `input keyevent`, several (a chord) as `input keycombination` (Android 12+).
pub(super) fn key_command(key: &KeyInput) -> DeviceResult<ShellCommand> {
    Ok(match key {
        KeyInput::Back => commands::keyevent(&[commands::KEYCODE_BACK]),
        KeyInput::Home => commands::keyevent(&[commands::KEYCODE_HOME]),
        KeyInput::Power => commands::keyevent(&[commands::KEYCODE_POWER]),
        KeyInput::Codes(codes) => match codes.as_slice() {
            [] => {
                return Err(DeviceError::Command {
                    code: tapflow_core::codes::INVALID_KEY,
                    what: "key event".into(),
                    device_says: "no key code given".into(),
                });
            }
            [one] => commands::keyevent(&[*one]),
            chord => commands::keycombination(chord),
        },
    })
}
