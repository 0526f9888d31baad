//! [`HdcDevice`]: the [`Device`] trait over hdc. Each method sends the command built in
//! [`commands`] through the [`Runner`] (one round trip unless noted) and judges the answer with
//! the parsers; multi-step operations live beside this file (`info`, `ui_dump`, `window_list`,
//! `screenshot`). The backend is transport-agnostic: a real `hdc` process and the in-process
//! simulator receive the same argv.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::error::{DeviceError, DeviceResult};
use crate::hdc::classify::{Op, Scan, command_failed, outcome};
use crate::hdc::commands;
use crate::hdc::config::HdcConfig;
use crate::hdc::leftovers::{self, Leftovers};
use crate::hdc::parse;
use crate::hdc::quote::ShellCommand;
use crate::hdc::route::HdcRoute;
use crate::hdc::runner::Runner;
use crate::hdc::sections;
use crate::hdc::validate;
use crate::model::*;
use crate::transport::{Cost, CostCounter, Transport};
use crate::{ActObserved, ActsObserved, AppStarted, AppWindows, Device, Readiness, UiAction};

/// One HarmonyOS device reached through hdc.
#[derive(Debug, Clone)]
pub struct HdcDevice {
    serial: String,
    route: HdcRoute,
    runner: Runner,
    config: HdcConfig,
    /// Device files to delete with the next command (see [`Leftovers`]).
    leftovers: Leftovers,
}

impl HdcDevice {
    /// A device addressed by `route`, known as `serial`, with its own cost counter. No round
    /// trip happens here; [`super::HdcClient::connect`] verifies the device first.
    pub fn new(
        serial: impl Into<String>,
        route: HdcRoute,
        transport: Arc<dyn Transport>,
        config: HdcConfig,
    ) -> Self {
        Self::with_cost(serial, route, transport, config, CostCounter::default())
    }

    /// Like [`HdcDevice::new`], counting into a shared `cost` counter.
    pub fn with_cost(
        serial: impl Into<String>,
        route: HdcRoute,
        transport: Arc<dyn Transport>,
        config: HdcConfig,
        cost: CostCounter,
    ) -> Self {
        Self {
            serial: serial.into(),
            route,
            runner: Runner::new(transport, cost, config.transient_retry),
            config,
            leftovers: Leftovers::default(),
        }
    }

    /// The same device, sharing `leftovers` with other handles (its client's), so a file left
    /// by one handle is deleted by the next command of any of them.
    pub fn sharing_leftovers(mut self, leftovers: Leftovers) -> Self {
        self.leftovers = leftovers;
        self
    }

    pub(super) fn leftovers(&self) -> &Leftovers {
        &self.leftovers
    }

    pub fn route(&self) -> &HdcRoute {
        &self.route
    }

    pub fn config(&self) -> &HdcConfig {
        &self.config
    }

    pub fn cost_counter(&self) -> &CostCounter {
        self.runner.cost()
    }

    /// `hdc <route> shell "<cmd>"`, with the delete of files left by earlier commands (a
    /// received screenshot) in front of it: no round trip of their own.
    pub(super) fn shell(
        &self,
        cmd: &ShellCommand,
        timeout: Duration,
        op: &Op,
        scan: Scan,
    ) -> DeviceResult<String> {
        let pending = self.leftovers.take(&self.serial);
        if pending.is_empty() {
            return self.runner.shell(&self.route, cmd, timeout, op, scan);
        }
        let with_delete = leftovers::prefixed(&pending, cmd);
        let answer = self
            .runner
            .shell(&self.route, &with_delete, timeout, op, scan);
        if answer.is_err() {
            // The command may never have reached the device: delete them next time.
            self.leftovers.restore(&self.serial, pending);
        }
        answer
    }

    /// `hdc <route> <sub…>` (install, uninstall, file recv).
    pub(super) fn hdc(
        &self,
        sub: &[String],
        timeout: Duration,
        op: &Op,
        scan: Scan,
    ) -> DeviceResult<String> {
        self.runner.run(&self.route, sub, timeout, op, scan)
    }

    /// An ordinary shell command under the command deadline, every line scanned.
    fn simple(&self, cmd: &ShellCommand, op: &Op) -> DeviceResult<String> {
        self.shell(cmd, self.config.command_timeout, op, Scan::Whole)
    }

    pub(super) fn serial_str(&self) -> &str {
        &self.serial
    }
}

/// The device's words for an `error:`-style refusal (`bm dump -n` of an unknown bundle, …).
fn error_line(text: &str) -> Option<&str> {
    text.lines()
        .map(str::trim)
        .find(|l| l.starts_with("error:"))
}

fn parse_error(code: tapflow_core::codes::Code, what: &str, e: parse::ParseError) -> DeviceError {
    DeviceError::Parse {
        code,
        what: what.to_string(),
        detail: e.to_string(),
    }
}

/// `ls` / `cat` complain on their first line as `ls: <path>: <reason>`.
fn tool_complaint<'a>(text: &'a str, tool: &str) -> Option<&'a str> {
    let first = text.lines().find(|l| !l.trim().is_empty())?.trim();
    let rest = first.strip_prefix(tool)?;
    rest.starts_with(": ").then_some(first)
}

impl Device for HdcDevice {
    fn serial(&self) -> &str {
        &self.serial
    }

    fn platform(&self) -> crate::Platform {
        crate::Platform::Harmonyos
    }

    fn info(&self) -> DeviceResult<DeviceInfo> {
        self.read_info()
    }

    fn power_state(&self) -> DeviceResult<PowerState> {
        let op = Op::new(tapflow_core::codes::DEVICE_INFO_FAILED, "power state");
        let text = self.simple(&commands::power(), &op)?;
        parse::power::parse_power_state(&text).ok_or_else(|| DeviceError::Parse {
            code: tapflow_core::codes::DEVICE_INFO_FAILED,
            what: "power state".into(),
            detail: format!(
                "no `Current State:` in the PowerManagerService dump: {}",
                excerpt(&text)
            ),
        })
    }

    fn ui_tree(&self, scope: &DumpScope) -> DeviceResult<UiNode> {
        self.dump_ui(scope)
    }

    fn act_then_tree(&self, action: &UiAction, scope: &DumpScope) -> ActObserved {
        let seen = self.act_and_dump(std::slice::from_ref(action), scope);
        ActObserved {
            action: seen.first_error(),
            tree: seen.tree,
        }
    }

    fn acts_then_tree(&self, actions: &[UiAction], scope: &DumpScope) -> ActsObserved {
        self.act_and_dump(actions, scope)
    }

    fn app_windows(&self, bundle: &str) -> DeviceResult<AppWindows> {
        self.read_app_windows(bundle)
    }

    fn check_ready(&self) -> Readiness {
        self.check_ready_chained()
    }

    fn start_app_checked(
        &self,
        bundle: &str,
        ability: &str,
        module: Option<&str>,
        observe: Option<&DumpScope>,
    ) -> AppStarted {
        self.launch_checked(bundle, ability, module, observe)
    }

    fn windows(&self) -> DeviceResult<WindowTable> {
        self.window_table()
    }

    fn missions(&self) -> DeviceResult<Vec<Mission>> {
        let op = Op::new(tapflow_core::codes::MISSION_QUERY_FAILED, "mission list");
        let text = self.simple(&commands::missions(), &op)?;
        if let Some(err) = error_line(&text) {
            return Err(command_failed(&op, err));
        }
        Ok(parse::aa::parse_missions(&text))
    }

    fn tap(&self, at: Point, kind: TapKind) -> DeviceResult<()> {
        let op = Op::new(tapflow_core::codes::INPUT_FAILED, "tap");
        let text = self.simple(&commands::tap(at, kind), &op)?;
        outcome(&op, parse::outcome::ui_input(&text))
    }

    fn gesture(&self, gesture: &Gesture) -> DeviceResult<()> {
        let op = Op::new(tapflow_core::codes::INPUT_FAILED, "gesture");
        let text = self.simple(&commands::gesture(gesture), &op)?;
        outcome(&op, parse::outcome::ui_input(&text))
    }

    fn input_text(&self, target: TextTarget, text: &str) -> DeviceResult<()> {
        let op = Op::new(tapflow_core::codes::INPUT_FAILED, "text input");
        let cmd = commands::input_text(target, text)?;
        let out = self.simple(&cmd, &op)?;
        outcome(&op, parse::outcome::ui_input(&out))
    }

    fn key_event(&self, key: &KeyInput) -> DeviceResult<()> {
        let op = Op::new(tapflow_core::codes::KEY_EVENT_FAILED, "key event");
        let cmd = commands::key_event(key)?;
        let text = self.simple(&cmd, &op)?;
        outcome(&op, parse::outcome::ui_input(&text))
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
        let text = self.hdc(
            &commands::install(path, replace),
            self.config.install_timeout,
            &op,
            Scan::Whole,
        )?;
        outcome(&op, parse::outcome::install(&text))
    }

    fn uninstall(&self, bundle: &str) -> DeviceResult<()> {
        validate::bundle_name(bundle)?;
        let op = Op::new(
            tapflow_core::codes::UNINSTALL_FAILED,
            format!("uninstall {bundle}"),
        );
        let text = self.hdc(
            &commands::uninstall(bundle),
            self.config.install_timeout,
            &op,
            Scan::Whole,
        )?;
        outcome(&op, parse::outcome::uninstall(&text))
    }

    fn start_app(&self, bundle: &str, ability: &str, module: Option<&str>) -> DeviceResult<()> {
        validate::bundle_name(bundle)?;
        validate::component_name("ability name", ability)?;
        if let Some(m) = module {
            validate::component_name("module name", m)?;
        }
        let op = Op::new(
            tapflow_core::codes::RUN_APP_FAILED,
            format!("start {bundle}/{ability}"),
        );
        let text = self.simple(&commands::aa_start(bundle, ability, module), &op)?;
        outcome(&op, parse::outcome::aa_start(&text))
    }

    fn stop_app(&self, bundle: &str) -> DeviceResult<()> {
        validate::bundle_name(bundle)?;
        let op = Op::new(
            tapflow_core::codes::STOP_APP_FAILED,
            format!("force-stop {bundle}"),
        );
        let text = self.simple(&commands::aa_force_stop(bundle), &op)?;
        outcome(&op, parse::outcome::aa_force_stop(&text))
    }

    fn clear_app_data(&self, bundle: &str) -> DeviceResult<()> {
        validate::bundle_name(bundle)?;
        let op = Op::new(
            tapflow_core::codes::CLEAR_DATA_FAILED,
            format!("clear data of {bundle}"),
        );
        let text = self.simple(&commands::bm_clean(bundle), &op)?;
        let parts = sections::split(&text, 2);
        // Sections in the order `commands::bm_clean` chains them.
        for (part, flag) in parts.iter().zip(["-d", "-c"]) {
            let Some(part) = part else {
                return Err(command_failed(
                    &op,
                    format!("no answer from `bm clean {flag}`: {}", excerpt(&text)),
                ));
            };
            outcome(&op, parse::outcome::bm_clean(part))?;
        }
        Ok(())
    }

    fn packages(&self) -> DeviceResult<Vec<String>> {
        let op = Op::new(tapflow_core::codes::PACKAGE_QUERY_FAILED, "package list");
        let text = self.simple(&commands::bm_dump_all(), &op)?;
        if let Some(err) = error_line(&text) {
            return Err(command_failed(&op, err));
        }
        parse::bm::parse_bundle_list(&text)
            .map_err(|e| parse_error(tapflow_core::codes::PACKAGE_QUERY_FAILED, "package list", e))
    }

    fn package_info(&self, bundle: &str) -> DeviceResult<PackageInfo> {
        validate::bundle_name(bundle)?;
        let op = Op::new(
            tapflow_core::codes::PACKAGE_QUERY_FAILED,
            format!("package info of {bundle}"),
        );
        let text = self.shell(
            &commands::bm_dump_bundle(bundle),
            self.config.command_timeout,
            &op,
            Scan::Edges,
        )?;
        if !text.contains('{')
            && let Some(err) = error_line(&text)
        {
            return Err(command_failed(&op, err));
        }
        parse::bm::parse_bundle_info(&text)
            .map_err(|e| parse_error(tapflow_core::codes::PACKAGE_QUERY_FAILED, "package info", e))
    }

    fn pid_of(&self, bundle: &str) -> DeviceResult<Option<u32>> {
        validate::bundle_name(bundle)?;
        let op = Op::new(
            tapflow_core::codes::PID_QUERY_FAILED,
            format!("pid of {bundle}"),
        );
        let text = self.simple(&commands::pidof(bundle), &op)?;
        let Some(first) = text.split_whitespace().next() else {
            return Ok(None);
        };
        first
            .parse::<u32>()
            .map(Some)
            .map_err(|_| DeviceError::Parse {
                code: tapflow_core::codes::PID_QUERY_FAILED,
                what: format!("pidof {bundle}"),
                detail: format!("not a pid: {}", excerpt(&text)),
            })
    }

    fn logs(&self, query: &LogQuery) -> DeviceResult<String> {
        let op = Op::new(tapflow_core::codes::LOG_QUERY_FAILED, "log query");
        let cmd = commands::hilog(query)?;
        self.shell(&cmd, self.config.transfer_timeout, &op, Scan::Edges)
    }

    fn clear_logs(&self) -> DeviceResult<()> {
        let op = Op::new(tapflow_core::codes::LOG_CLEAR_FAILED, "clear logs");
        let text = self.simple(&commands::hilog_clear(), &op)?;
        // `Log type core,app,only_prerelease buffer clear successfully`
        if text.contains("successfully") {
            Ok(())
        } else {
            Err(command_failed(&op, text.trim()))
        }
    }

    fn crash_files(&self) -> DeviceResult<Vec<CrashEntry>> {
        let op = Op::new(tapflow_core::codes::CRASH_QUERY_FAILED, "crash file list");
        let text = self.simple(&commands::crash_listing(), &op)?;
        if let Some(complaint) = tool_complaint(&text, "ls") {
            // No crash ever happened on this device: faultlogger has not created its directory.
            if complaint.contains("No such file or directory") {
                return Ok(Vec::new());
            }
            return Err(command_failed(&op, complaint));
        }
        Ok(parse::faultlog::parse_crash_listing(&text))
    }

    fn read_crash_file(&self, file_name: &str) -> DeviceResult<String> {
        let cmd = commands::crash_read(file_name)?;
        let op = Op::new(
            tapflow_core::codes::CRASH_READ_FAILED,
            format!("read crash file {file_name}"),
        );
        let text = self.shell(&cmd, self.config.transfer_timeout, &op, Scan::Edges)?;
        if let Some(complaint) = tool_complaint(&text, "cat") {
            return Err(command_failed(&op, complaint));
        }
        Ok(text)
    }

    fn cost(&self) -> Cost {
        self.runner.cost().snapshot()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complaints_and_error_lines_are_recognised() {
        assert_eq!(
            tool_complaint(
                "ls: /data/log/faultlog/faultlogger/: No such file or directory\n",
                "ls"
            ),
            Some("ls: /data/log/faultlog/faultlogger/: No such file or directory")
        );
        assert_eq!(tool_complaint("lsof.log\n", "ls"), None);
        assert_eq!(
            tool_complaint("Generated by HiviewDFX@OpenHarmony\n", "cat"),
            None
        );
        assert_eq!(
            error_line(
                "com.x:\nerror: failed to get information and the parameters may be wrong.\n"
            ),
            Some("error: failed to get information and the parameters may be wrong.")
        );
        assert_eq!(excerpt("  "), "(no output)");
        assert_eq!(excerpt(&"x".repeat(400)).chars().count(), 301);
    }
}
