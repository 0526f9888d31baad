//! The window manager's view (`hidumper -s WindowManagerService -a '-a'`): visible windows
//! consistent with the layout dump (same ids, pids, rects), background app windows, the focus.

use super::screen::{WIN_DESKTOP, WindowKind, window_name};
use super::{Phone, WindowRow};
use crate::device::model::Bounds;

fn rect(b: Bounds) -> (i32, i32, i32, i32) {
    (b.left, b.top, b.width(), b.height())
}

impl Phone {
    /// Visible windows first (top z-order first), then background app windows (z -1, empty rect).
    pub fn windows(&self) -> Vec<WindowRow> {
        let mut rows: Vec<WindowRow> = Vec::new();
        if self.recorded.is_none() && self.awake {
            for w in self.screen_windows(false).iter().rev() {
                rows.push(WindowRow {
                    name: w.name.clone(),
                    display_id: 0,
                    pid: w.pid as i64,
                    window_id: w.id,
                    window_type: w.window_type,
                    mode: 1,
                    flag: 0,
                    z_order: w.z_order,
                    orientation: 0,
                    rect: rect(w.orig),
                    visible: true,
                });
            }
        }
        let m = self.metrics();
        if self.foreground.is_some() || self.recorded.is_some() || !self.awake {
            rows.push(WindowRow {
                name: "SCBDesktop1".into(),
                display_id: 0,
                pid: super::logs::sys::SCENEBOARD as i64,
                window_id: WIN_DESKTOP,
                window_type: 2001,
                mode: 1,
                flag: 0,
                z_order: if self.awake && self.recorded.is_none() {
                    0
                } else {
                    -1
                },
                orientation: 0,
                rect: (0, 0, m.w, m.h),
                visible: false,
            });
        }
        for p in self.procs.values() {
            if self.awake
                && self.recorded.is_none()
                && self.foreground.as_deref() == Some(p.bundle.as_str())
            {
                continue;
            }
            rows.push(WindowRow {
                name: window_name(&p.bundle),
                display_id: 0,
                pid: p.pid as i64,
                window_id: p.window_id,
                window_type: 1,
                mode: 1,
                flag: 0,
                z_order: -1,
                orientation: 0,
                rect: (0, 0, 0, 0),
                visible: false,
            });
        }
        rows
    }

    /// `Focus window: <id>`: the foreground app's window, or the desktop.
    pub fn focus_window(&self) -> Option<i64> {
        if self.recorded.is_some() || !self.awake {
            return None;
        }
        self.screen_windows(false)
            .iter()
            .find(|w| w.focused && matches!(w.kind, WindowKind::App | WindowKind::Desktop))
            .map(|w| w.id)
    }
}
