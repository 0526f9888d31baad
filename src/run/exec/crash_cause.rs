//! A crash as the cause of a failure: when a step fails and the app wrote a new faultlogger
//! file since the flow started (one not blamed on an earlier step), the step's error becomes
//! `APP_CRASHED` with the exception's first line (`TypeError: Cannot read property …`); the
//! step's own error stays in `details.cause`, and the crash file is attached as evidence by
//! the collector. Costs one crash-directory listing, on failure only.

use std::collections::BTreeSet;

use serde_json::json;

use super::{FlowRun, codes};
use crate::logs::crash::parse_crash_file;
use crate::plan::model::PlanStep;
use crate::run::result::StepError;
use crate::tools::DeviceRoute;

/// Crash files already blamed on a failed step of this flow.
#[derive(Default)]
pub(super) struct Blamed(BTreeSet<String>);

/// The exception as a one-liner: `TypeError: message`, else the reason.
fn exception_line(report: &crate::logs::crash::CrashReport) -> String {
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
    /// (any app when the flow names none) is on the device.
    pub(super) fn crash_cause(&mut self, step: &PlanStep, error: StepError) -> StepError {
        if error.code == codes::INTERRUPTED || error.code == crate::codes::APP_CRASHED {
            return error;
        }
        let Some(known) = self.crash_baseline.as_ref().and_then(|b| b.known()) else {
            return error;
        };
        let route = DeviceRoute {
            device_id: Some(self.dev.serial.clone()),
            hdc_server: self.dev.caller.context().config.default_hdc_server.clone(),
        };
        let Ok(device) = self.dev.caller.context().provider.resolve(&route) else {
            return error;
        };
        let Ok(files) = device.crash_files() else {
            return error;
        };
        for c in files {
            if known.contains(&c.file_name) || self.blamed.0.contains(&c.file_name) {
                continue;
            }
            let Ok(text) = device.read_crash_file(&c.file_name) else {
                continue;
            };
            let report = parse_crash_file(&text, Some(&c.file_name));
            if let (Some(app), Some(subject)) = (&self.fp.app, report.subject())
                && !crate::ui::matching::same_bundle(app, subject)
            {
                continue;
            }
            self.blamed.0.insert(c.file_name.clone());
            let exception = self.masker.text(&exception_line(&report)).into_owned();
            let app = report.subject().unwrap_or("the app").to_string();
            let mut e = self.err(
                step,
                crate::codes::APP_CRASHED,
                format!(
                    "{app} crashed: {exception} (crash file {}); the step then failed with {}",
                    c.file_name, error.code
                ),
            );
            e.details = json!({
                "exception": exception,
                "crash_file": c.file_name,
                "stack": report.stacktrace.iter().take(3).collect::<Vec<_>>(),
                "cause": error,
            });
            return e;
        }
        error
    }
}
