//! An app launch and its window check in ONE `hdc shell` round trip
//! (`aa start …; hidumper -s WindowManagerService -a '-a'; pidof B[; dumpLayout …]`), and the
//! window check alone (`hidumper …; pidof B`), also one round trip.
//!
//! `pidof` names the app's processes, so the table's rows with those pids are the app's: the
//! second round trip that reads every window owner's `/proc/<pid>/cmdline` (what
//! [`crate::Device::windows`] does to name every row) is not needed to find the app's
//! window. Each section is judged on its own: a start the device refused never yields windows
//! or a tree, and a failed window read never hides that the app started.

use std::time::Instant;

use crate::dump_resend::DumpFailure;
use crate::error::{DeviceError, DeviceResult};
use crate::hdc::classify::{Op, Scan, command_failed, outcome};
use crate::hdc::device::HdcDevice;
use crate::hdc::ui_dump::UI_TREE_FETCH_ERROR;
use crate::hdc::window_list::WINDOW_QUERY_FAILED;
use crate::hdc::{commands, parse, sections, validate};
use crate::model::DumpScope;
use crate::{AppStarted, AppWindows};

impl HdcDevice {
    pub(super) fn read_app_windows(&self, bundle: &str) -> DeviceResult<AppWindows> {
        validate::bundle_name(bundle)?;
        let op = Op::new(WINDOW_QUERY_FAILED, format!("windows of {bundle}"));
        let text = self.shell(
            &commands::app_windows(bundle),
            self.config().command_timeout,
            &op,
            Scan::Whole,
        )?;
        let parts = sections::split(&text, 2);
        app_windows_from(&op, parts[0].as_deref(), parts[1].as_deref())
    }

    pub(super) fn launch_checked(
        &self,
        bundle: &str,
        ability: &str,
        module: Option<&str>,
        observe: Option<&DumpScope>,
    ) -> AppStarted {
        let refused = |e: DeviceError| AppStarted {
            started: Err(e),
            windows: None,
            tree: None,
        };
        let valid = validate::bundle_name(bundle)
            .and_then(|_| validate::component_name("ability name", ability))
            .and_then(|_| module.map_or(Ok(()), |m| validate::component_name("module name", m)))
            .and_then(|_| {
                observe
                    .and_then(|s| s.bundle.as_deref())
                    .map_or(Ok(()), validate::bundle_name)
            });
        if let Err(e) = valid {
            return refused(e);
        }
        let op = Op::new(
            tapflow_core::codes::RUN_APP_FAILED,
            format!("start {bundle}/{ability}"),
        );
        let path = observe.map(|_| self.config().scratch_path("json"));
        let dump = path.as_deref().zip(observe);
        let cmd = commands::launch_checked(bundle, ability, module, dump);
        let mut deadline = self.config().command_timeout;
        if observe.is_some() {
            deadline += self.config().dump_timeout;
        }
        // A layout may follow: only the edges of the answer can be hdc's own failure lines.
        let scan = if observe.is_some() {
            Scan::Edges
        } else {
            Scan::Whole
        };
        let sent_at = Instant::now();
        // Transport-level failures leave it unknown whether the app started: not started.
        let text = match self.shell(&cmd, deadline, &op, scan) {
            Ok(text) => text,
            Err(e) => return refused(e),
        };
        if observe.is_some() {
            self.cost_counter().ui_dump();
        }
        let n = if observe.is_some() { 4 } else { 3 };
        let parts = sections::split(&text, n);
        let started = match parts[0].as_deref() {
            Some(answer) => outcome(&op, parse::outcome::aa_start(answer)),
            None => Err(command_failed(
                &op,
                "the device gave no answer for `aa start`",
            )),
        };
        if started.is_err() {
            return AppStarted {
                started,
                windows: None,
                tree: None,
            };
        }
        let win_op = Op::new(WINDOW_QUERY_FAILED, format!("windows of {bundle}"));
        let windows = app_windows_from(&win_op, parts[1].as_deref(), parts[2].as_deref());
        // A damaged dump is sent again on its own: the app is never started twice.
        let tree = observe.map(|scope| {
            let dump_op = Op::new(UI_TREE_FETCH_ERROR, "UI dump");
            let first = match parts[3].as_deref() {
                Some(answer) => self.finish_dump(answer, scope, &dump_op),
                None => Err(DumpFailure::Damaged(command_failed(
                    &dump_op,
                    "the device gave no answer for the dump",
                ))),
            };
            self.resending(first, scope, sent_at + deadline)
        });
        AppStarted {
            started,
            windows: Some(windows),
            tree,
        }
    }
}

/// The table and the pids from their sections.
fn app_windows_from(op: &Op, table: Option<&str>, pids: Option<&str>) -> DeviceResult<AppWindows> {
    let Some(table) = table else {
        return Err(command_failed(
            op,
            "the device gave no answer for the window table",
        ));
    };
    let table = parse::windows::parse_window_table(table).map_err(|e| DeviceError::Parse {
        code: WINDOW_QUERY_FAILED,
        what: "window list".into(),
        detail: e.to_string(),
    })?;
    Ok(AppWindows {
        table,
        pids: pids.map(parse_pids).unwrap_or_default(),
    })
}

/// `pidof` prints the pids separated by spaces, nothing when the app does not run.
fn parse_pids(text: &str) -> Vec<u32> {
    text.split_whitespace()
        .map_while(|w| w.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pidof_answers_are_read() {
        assert_eq!(parse_pids("4242\n"), vec![4242]);
        assert_eq!(parse_pids("4242 4250\n"), vec![4242, 4250]);
        assert_eq!(parse_pids(""), Vec::<u32>::new());
        // A complaint is no pid.
        assert_eq!(parse_pids("sh: pidof: not found\n"), Vec::<u32>::new());
    }
}
