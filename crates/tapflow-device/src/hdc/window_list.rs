//! `windows`: the window manager's table, then the bundle of every owning process. Two round
//! trips at most: `hidumper -s WindowManagerService -a '-a'`, and one shell call reading
//! `/proc/<pid>/cmdline` for all distinct pids (skipped when there is no pid to resolve).

use crate::error::{DeviceError, DeviceResult};
use crate::hdc::classify::{Op, Scan};
use crate::hdc::commands;
use crate::hdc::device::HdcDevice;
use crate::hdc::parse;
use crate::hdc::sections;
use crate::model::WindowTable;

pub use tapflow_core::codes::WINDOW_QUERY_FAILED;

impl HdcDevice {
    pub(super) fn window_table(&self) -> DeviceResult<WindowTable> {
        let op = Op::new(WINDOW_QUERY_FAILED, "window list");
        let timeout = self.config().command_timeout;
        let text = self.shell(&commands::window_table(), timeout, &op, Scan::Whole)?;
        let mut table =
            parse::windows::parse_window_table(&text).map_err(|e| DeviceError::Parse {
                code: WINDOW_QUERY_FAILED,
                what: "window list".into(),
                detail: e.to_string(),
            })?;
        let mut pids: Vec<i64> = Vec::new();
        for w in &table.windows {
            if w.pid > 0 && !pids.contains(&w.pid) {
                pids.push(w.pid);
            }
        }
        if pids.is_empty() {
            return Ok(table);
        }
        let op = Op::new(WINDOW_QUERY_FAILED, "process names of windows");
        let text = self.shell(&commands::pid_cmdlines(&pids), timeout, &op, Scan::Edges)?;
        let names = sections::split(&text, pids.len());
        for w in &mut table.windows {
            if let Some(i) = pids.iter().position(|p| *p == w.pid) {
                w.bundle_name = names[i].as_deref().and_then(bundle_from_cmdline);
            }
        }
        Ok(table)
    }
}

/// An app process's `cmdline` is its bundle name (NUL-terminated; extension processes add
/// `:<kind>`). Native daemons (`/system/bin/…`) and unreadable entries have no bundle.
pub(super) fn bundle_from_cmdline(raw: &str) -> Option<String> {
    let first = raw.split('\0').next()?.trim();
    let name = first.split(':').next()?.trim();
    let plausible = !name.is_empty()
        && !name.starts_with('/')
        && !name.chars().any(char::is_whitespace)
        && name.contains('.');
    plausible.then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmdlines_give_bundles() {
        assert_eq!(
            bundle_from_cmdline("com.ohos.sceneboard\0"),
            Some("com.ohos.sceneboard".into())
        );
        assert_eq!(
            bundle_from_cmdline("com.x.app:render\0--type\0"),
            Some("com.x.app".into())
        );
        assert_eq!(bundle_from_cmdline("/system/bin/render_service\0"), None);
        assert_eq!(bundle_from_cmdline("\n"), None);
        assert_eq!(
            bundle_from_cmdline("cat: /proc/9/cmdline: No such file"),
            None
        );
        assert_eq!(bundle_from_cmdline("foundation\0"), None);
    }
}
