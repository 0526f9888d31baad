//! The window manager's view (`hidumper -s WindowManagerService -a '-a'`): visible windows
//! consistent with the layout dump (same ids, pids, rects), background app windows, the focus.

use super::nodes::{WIN_DESKTOP, WindowKind, window_name};
use super::{Phone, WindowRow};
use tapflow_device::model::Bounds;

fn rect(b: Bounds) -> (i32, i32, i32, i32) {
    (b.left, b.top, b.width(), b.height())
}

/// Window rows of a recorded layout: one per window node, in z-order (last node on top).
fn recorded_rows(rec: &serde_json::Value) -> Vec<WindowRow> {
    let wins = rec["children"].as_array().cloned().unwrap_or_default();
    let n = wins.len() as i64;
    wins.iter()
        .enumerate()
        .rev()
        .filter_map(|(i, w)| {
            let a = &w["attributes"];
            let s = |k: &str| a[k].as_str().unwrap_or("").to_string();
            let id: i64 = s("hostWindowId").parse().ok()?;
            let b = Bounds::parse(&s("origBounds")).or_else(|| Bounds::parse(&s("bounds")))?;
            let bundle = s("bundleName");
            Some(WindowRow {
                name: if s("type") == "WindowScene" {
                    format!("SCBWindowScene{id}")
                } else {
                    window_name(&bundle)
                },
                display_id: 0,
                // Recordings carry no pids: a stable stand-in per window.
                pid: 10_000 + id,
                window_id: id,
                window_type: if s("type") == "WindowScene" { 2108 } else { 1 },
                mode: 1,
                flag: 0,
                z_order: n - i as i64,
                orientation: 0,
                rect: rect(b),
                visible: true,
            })
        })
        .collect()
}

impl Phone {
    /// Visible windows first (top z-order first), then background app windows (z -1, empty rect).
    pub fn windows(&self) -> Vec<WindowRow> {
        let mut rows: Vec<WindowRow> = Vec::new();
        if let Some(rec) = &self.recorded {
            return recorded_rows(rec);
        }
        if self.awake {
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
        if self.foreground.is_some() || !self.awake {
            rows.push(WindowRow {
                name: "SCBDesktop1".into(),
                display_id: 0,
                pid: super::logs::sys::SCENEBOARD as i64,
                window_id: WIN_DESKTOP,
                window_type: 2001,
                mode: 1,
                flag: 0,
                z_order: if self.awake { 0 } else { -1 },
                orientation: 0,
                rect: (0, 0, m.w, m.h),
                visible: false,
            });
        }
        for p in self.procs.values().filter(|p| p.ui) {
            if self.awake && self.foreground.as_deref() == Some(p.bundle.as_str()) {
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
        if let Some(rec) = &self.recorded {
            let wins = rec["children"].as_array()?;
            let focused = wins.iter().find(|w| w["attributes"]["focused"] == "true")?;
            return focused["attributes"]["hostWindowId"].as_str()?.parse().ok();
        }
        if !self.awake {
            return None;
        }
        self.screen_windows(false)
            .iter()
            .find(|w| w.focused && matches!(w.kind, WindowKind::App | WindowKind::Desktop))
            .map(|w| w.id)
    }
}
