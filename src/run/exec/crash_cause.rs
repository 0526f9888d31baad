//! A crash as the cause of a failure: when a step fails and the app crashed since the flow
//! started (a crash not blamed on an earlier step), the step's error becomes `APP_CRASHED` with
//! the exception's first line (`TypeError: Cannot read property …`); the step's own error
//! stays in `details.cause`.
//!
//! - HarmonyOS: a new faultlogger file (one not listed when the flow started); the collector
//!   attaches it as evidence. Costs one crash-directory listing, on failure only.
//! - Android: a crash block in logcat since the flow started (`AndroidRuntime: FATAL
//!   EXCEPTION`, a native `Fatal signal`, an `ANR in`; `logs::logcat::find_crashes`) of the
//!   flow's app; the block is in the log excerpt the collector attaches. Costs one `logcat -d`,
//!   on failure only.
//!
//! A proven crash wins over whatever the step failed with afterwards, device codes included
//! (`DEVICE_UNRESPONSIVE`, `HDC_*`, `ADB_*`, `DEVICE_DISCONNECTED`): a device that misbehaves
//! after the app died does not make the crash the device's. So the queries that look for it
//! are asked again when they meet a device fault (`evidence::CRASH_QUERY_ATTEMPTS` in all, on top of
//! the backends' own resends), and a new crash file of the app that cannot be read still
//! proves the crash (its name says whose it is). Only a device that cannot answer at all (gone
//! for good) leaves the step's own error.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::{FlowRun, codes};
use crate::run::evidence::{StepWindow, asked, lines_in_window};
use crate::run::result::StepError;
use tapflow_core::plan::model::PlanStep;
use tapflow_device::logs::crash::parse_crash_file;
use tapflow_device::logs::logcat::{self, CrashKind};
use tapflow_device::{Device, LogQuery};
use tapflow_tools::DeviceRoute;

/// Crash files already blamed on a failed step of this flow.
#[derive(Default)]
pub(super) struct Blamed(BTreeSet<String>);

/// The exception as a one-liner: `TypeError: message`, else the reason.
fn exception_line(report: &tapflow_device::logs::crash::CrashReport) -> String {
    let line = match (&report.error_name, &report.error_message) {
        (Some(n), Some(m)) => format!("{n}: {m}"),
        (Some(n), None) => n.clone(),
        (None, Some(m)) => m.clone(),
        (None, None) => report
            .reason
            .clone()
            .unwrap_or_else(|| "an unknown exception".into()),
    };
    line.lines().next().unwrap_or_default().trim().to_string()
}

impl FlowRun<'_, '_> {
    /// The step's error, or `APP_CRASHED` wrapping it when a new crash of the flow's app
    /// (any app when the flow names none) is on the device; without a crash, the error says
    /// when the flow's app is not running at all (`details.app_running: false`).
    pub(super) fn crash_cause(&mut self, step: &PlanStep, error: StepError) -> StepError {
        if error.code == codes::INTERRUPTED || error.code == tapflow_core::codes::APP_CRASHED {
            return error;
        }
        let route = DeviceRoute {
            device_id: Some(self.dev.serial.clone()),
            hdc_server: self.dev.caller.context().config.default_hdc_server.clone(),
        };
        let Ok(device) = self.dev.caller.context().provider.resolve(&route) else {
            return error;
        };
        let crashed = if device.platform() == "android" {
            self.logcat_crash(step, &error, device.as_ref())
        } else {
            self.faultlog_crash(step, &error, device.as_ref())
        };
        match crashed {
            Some(e) => e,
            None => self.app_not_running(error, device.as_ref()),
        }
    }

    /// HarmonyOS: the first faultlogger file of the flow's app written since the flow started
    /// and not blamed yet. A file that cannot be read is the app's by its name.
    fn faultlog_crash(
        &mut self,
        step: &PlanStep,
        error: &StepError,
        device: &dyn Device,
    ) -> Option<StepError> {
        let known = self.crash_baseline.as_ref().and_then(|b| b.known())?;
        let files = asked(|| device.crash_files()).ok()?;
        for c in files {
            if known.contains(&c.file_name) || self.blamed.0.contains(&c.file_name) {
                continue;
            }
            let report = match asked(|| device.read_crash_file(&c.file_name)) {
                Ok(text) => Ok(parse_crash_file(&text, Some(&c.file_name))),
                Err(e) => Err(e),
            };
            let subject = match &report {
                Ok(r) => r.subject().map(str::to_string),
                Err(_) => Some(c.process.clone()).filter(|p| !p.is_empty()),
            };
            if let (Some(app), Some(subject)) = (&self.fp.app, &subject)
                && !tapflow_device::ui::matching::same_bundle(app, subject)
            {
                continue;
            }
            self.blamed.0.insert(c.file_name.clone());
            let app = subject.unwrap_or_else(|| "the app".to_string());
            let (exception, stack, unread) = match &report {
                Ok(r) => (
                    self.masker.text(&exception_line(r)).into_owned(),
                    r.stacktrace.iter().take(3).cloned().collect::<Vec<_>>(),
                    None,
                ),
                Err(e) => (
                    "an unknown exception (the crash file could not be read)".to_string(),
                    Vec::new(),
                    Some(json!({"code": e.code(), "message": self.masker.text(&e.to_string())})),
                ),
            };
            let mut e = self.err(
                step,
                tapflow_core::codes::APP_CRASHED,
                format!(
                    "{app} crashed: {exception} (crash file {}); the step then failed with {}",
                    c.file_name, error.code
                ),
            );
            e.details = json!({
                "exception": exception,
                "crash_file": c.file_name,
                "stack": stack,
                "cause": error,
            });
            if let (Some(unread), Value::Object(d)) = (unread, &mut e.details) {
                d.insert("crash_file_unread".into(), unread);
            }
            return Some(e);
        }
        None
    }

    /// A failure without a crash, while the flow's app has no process at all (it was stopped,
    /// or died without a crash report): the error says so. One `pidof`, on failure only and
    /// only where evidence is collected (as crash files are); an infrastructure error or an
    /// unanswered `pidof` leaves the error as it is.
    fn app_not_running(&self, mut error: StepError, device: &dyn Device) -> StepError {
        let Some(app) = &self.fp.app else {
            return error;
        };
        if self.dev.evidence.is_none() {
            return error;
        }
        if error.is_infrastructure() || !matches!(device.pid_of(app), Ok(None)) {
            return error;
        }
        error.message = format!("{} ({app} is not running)", error.message);
        match &mut error.details {
            Value::Object(d) => {
                d.insert("app_running".into(), false.into());
            }
            Value::Null => error.details = json!({ "app_running": false }),
            _ => {}
        }
        error
    }

    /// Android: the first crash block of the flow's app logged since the flow started and not
    /// blamed yet (see the module doc).
    fn logcat_crash(
        &mut self,
        step: &PlanStep,
        error: &StepError,
        device: &dyn Device,
    ) -> Option<StepError> {
        let text = asked(|| device.logs(&LogQuery::default())).ok()?;
        let window = StepWindow {
            from: self.started_local,
            to: chrono::Local::now(),
            not_before: Some(self.started_local),
        };
        let lines = lines_in_window(&text, &window).join("\n");
        for c in logcat::find_crashes(&lines) {
            let key = format!(
                "logcat {} pid {}",
                c.time,
                c.pid.map_or_else(|| "?".to_string(), |p| p.to_string())
            );
            if self.blamed.0.contains(&key) {
                continue;
            }
            if let (Some(app), Some(process)) = (&self.fp.app, &c.process)
                && !tapflow_device::ui::matching::same_bundle(app, process)
            {
                continue;
            }
            self.blamed.0.insert(key);
            let what = match c.kind {
                CrashKind::Java => "an uncaught exception",
                CrashKind::Native => "a native crash",
                CrashKind::Anr => "an ANR (not responding)",
            };
            let exception = self
                .masker
                .text(c.summary.as_deref().unwrap_or(what))
                .into_owned();
            let app = c.process.clone().unwrap_or_else(|| "the app".into());
            let pid = c.pid.map_or_else(|| "?".to_string(), |p| p.to_string());
            let mut e = self.err(
                step,
                tapflow_core::codes::APP_CRASHED,
                format!(
                    "{app} crashed: {exception} ({what} in logcat at {}, pid {pid}); the step then failed with {}",
                    c.time, error.code
                ),
            );
            let stack: Vec<String> = c
                .lines
                .iter()
                .filter(|l| l.trim_start().starts_with("at "))
                .take(3)
                .map(|l| self.masker.text(l.trim()).into_owned())
                .collect();
            e.details = json!({
                "exception": exception,
                "crash_log": {"kind": c.kind, "time": c.time, "pid": c.pid},
                "stack": stack,
                "cause": error,
            });
            return Some(e);
        }
        None
    }
}
