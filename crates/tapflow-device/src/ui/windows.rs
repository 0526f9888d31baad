//! Facts about windows: which window table rows are application windows, which one is in the
//! foreground on each display, and which app a layout tree shows in front.
//!
//! Application windows are window types below 2000 (OpenHarmony's `APP_WINDOW_BASE` 1 ..
//! `SYSTEM_WINDOW_BASE` 2000); SceneBoard layers (`SCB…` names, system types, windows owned by
//! `com.ohos.sceneboard`) are never
//! application foreground windows.

use crate::model::{UiNode, WindowInfo};
use crate::ui::matching::window_nodes;

/// OpenHarmony's first system window type.
pub const SYSTEM_WINDOW_BASE: i64 = 2000;

/// SceneBoard, the system UI process that draws the desktop and system layers.
pub const SCENEBOARD_BUNDLE: &str = "com.ohos.sceneboard";

pub fn is_app_window(w: &WindowInfo) -> bool {
    w.window_type >= 1
        && w.window_type < SYSTEM_WINDOW_BASE
        && !w.name.starts_with("SCB")
        && w.bundle_name.as_deref() != Some(SCENEBOARD_BUNDLE)
}

/// For each window, whether it is the visible application window with the highest z-order
/// on its display (the contract's `is_foreground`).
pub fn foreground_flags(windows: &[WindowInfo]) -> Vec<bool> {
    let mut flags = vec![false; windows.len()];
    let mut best: Vec<(i64, usize)> = Vec::new(); // (display, index)
    for (i, w) in windows.iter().enumerate() {
        if !(w.visible && is_app_window(w)) {
            continue;
        }
        match best.iter_mut().find(|(d, _)| *d == w.display_id) {
            Some(slot) if windows[slot.1].z_order < w.z_order => slot.1 = i,
            Some(_) => {}
            None => best.push((w.display_id, i)),
        }
    }
    for (_, i) in best {
        flags[i] = true;
    }
    flags
}

/// The bundle of the application window in front in a layout tree: the focused window with a
/// bundle, else the first window with a page, else the first window with a bundle.
pub fn foreground_app(root: &UiNode) -> Option<String> {
    let windows: Vec<&UiNode> = window_nodes(root)
        .into_iter()
        .map(|(_, w)| w)
        .filter(|w| !w.attr("bundleName").is_empty())
        .collect();
    windows
        .iter()
        .find(|w| w.flag("focused"))
        .or_else(|| windows.iter().find(|w| !w.attr("pagePath").is_empty()))
        .or_else(|| windows.first())
        .map(|w| w.attr("bundleName").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Rect;

    fn w(name: &str, display: i64, id: i64, ty: i64, z: i64, visible: bool) -> WindowInfo {
        WindowInfo {
            name: name.into(),
            display_id: display,
            pid: 1,
            window_id: id,
            window_type: ty,
            mode: 1,
            flag: 0,
            z_order: z,
            orientation: 0,
            rect: Rect::default(),
            visible,
            bundle_name: None,
        }
    }

    #[test]
    fn foreground_is_the_top_visible_app_window_per_display() {
        // The docs' 720x1280 table: settings0 is the only visible app window on display 0.
        let ws = vec![
            w("ScreenLockWindow", 0, 2, 2110, 4, true),
            w("settings0", 0, 11, 1, 1, true),
            w("EntryView", 0, 8, 2001, 0, true),
            w("SCBDesktop", 0, 20, 1, 9, true),
            w("other0", 0, 12, 1, 5, false),
            w("ext0", 1, 30, 1, 2, true),
        ];
        assert_eq!(
            foreground_flags(&ws),
            vec![false, true, false, false, false, true]
        );
    }
}
