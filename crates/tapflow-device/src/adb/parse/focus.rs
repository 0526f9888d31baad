//! The focused window from `dumpsys window displays` (`mCurrentFocus=` / `mFocusedApp=` lines).
//!
//! Shapes (docs/reference/adb.md §4.9, all real): `mCurrentFocus=Window{5c4591 u0 com.x/com.x.Main}`;
//! non-app windows (`Application Error: com.x`, `Application Not Responding: com.x`,
//! `NotificationShade`, `StatusBar`, `InputMethod`, `Splash Screen com.x`, `PopupWindow:…`);
//! `null` for ~100 ms after a crash; Android 4 without `u0`; `mFocusedApp=ActivityRecord{… u0
//! com.x/.Main t82}`, on API 33 with the task id outside the braces, on Android ≤ 9 inside an
//! `AppWindowToken{… token=Token{… ActivityRecord{…}}}`. Multi-display devices print one block
//! per display: the first non-null focus wins.

use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;

/// What the window manager says has the focus.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Focus {
    /// The inside of `mCurrentFocus=Window{…}` after the hash and user (`com.x/com.x.Main`,
    /// `Application Error: com.x`); `None` when `null` or absent.
    pub current_focus: Option<String>,
    /// The hash of the focused window (`5c4591`).
    pub window_hash: Option<String>,
    /// The package of the focused window: from an app window, or named by an error / ANR /
    /// splash window; `None` for system windows.
    pub package: Option<String>,
    /// The activity of an app window as printed (`com.x.Main` or `.Main`).
    pub activity: Option<String>,
    /// `mFocusedApp`'s package and activity (the app that has the focus even while a system
    /// window is on top).
    pub focused_app: Option<(String, String)>,
    /// The focused window is a crash (`Application Error`) or ANR dialog.
    pub error_dialog: bool,
}

fn current_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"mCurrentFocus=(?:null|Window\{([0-9a-f]+) (?:u\d+ )?(.*?)(?: paused=\w+)?\})")
            .expect("static focus regex")
    })
}

fn app_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"mFocusedApp=.*?ActivityRecord\{[0-9a-f]+ (?:u\d+ )?([A-Za-z0-9_.]+)/([^\s}]+)")
            .expect("static focused-app regex")
    })
}

/// Parses the focus lines of a `dumpsys window` output.
pub fn parse_focus(text: &str) -> Focus {
    let mut f = Focus::default();
    for line in text.lines() {
        let line = line.trim();
        if f.current_focus.is_none()
            && let Some(c) = current_re().captures(line)
            && let (Some(hash), Some(inner)) = (c.get(1), c.get(2))
        {
            f.window_hash = Some(hash.as_str().to_string());
            let inner = inner.as_str().trim().to_string();
            for prefix in ["Application Error: ", "Application Not Responding: "] {
                if let Some(pkg) = inner.strip_prefix(prefix) {
                    f.error_dialog = true;
                    f.package = Some(pkg.trim().to_string());
                }
            }
            if let Some(pkg) = inner.strip_prefix("Splash Screen ") {
                f.package = Some(pkg.trim().to_string());
            }
            if f.package.is_none()
                && let Some((pkg, act)) = inner.split_once('/')
                && is_package(pkg)
            {
                f.package = Some(pkg.to_string());
                f.activity = Some(act.to_string());
            }
            f.current_focus = Some(inner);
        }
        if f.focused_app.is_none()
            && let Some(c) = app_re().captures(line)
        {
            f.focused_app = Some((c[1].to_string(), c[2].to_string()));
        }
    }
    f
}

fn is_package(s: &str) -> bool {
    !s.is_empty()
        && s.contains('.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_window_api29() {
        let f = parse_focus(
            "  mCurrentFocus=Window{5c4591 u0 com.hq.android.androiddemo/com.hq.android.androiddemo.MainActivity}\n  mFocusedApp=ActivityRecord{b3a1ec9 u0 com.hq.android.androiddemo/.MainActivity t82}\n",
        );
        assert_eq!(f.package.as_deref(), Some("com.hq.android.androiddemo"));
        assert_eq!(
            f.activity.as_deref(),
            Some("com.hq.android.androiddemo.MainActivity")
        );
        assert_eq!(f.window_hash.as_deref(), Some("5c4591"));
        assert_eq!(
            f.focused_app,
            Some(("com.hq.android.androiddemo".into(), ".MainActivity".into()))
        );
        assert!(!f.error_dialog);
    }

    #[test]
    fn other_real_shapes() {
        let f = parse_focus(
            "mCurrentFocus=Window{1fab589 u0 Application Error: com.android.settings}\nmFocusedApp=ActivityRecord{a8f0c97 u0 com.android.settings/.Settings} t271}",
        );
        assert!(f.error_dialog);
        assert_eq!(f.package.as_deref(), Some("com.android.settings"));
        assert_eq!(f.activity, None);
        assert_eq!(
            f.focused_app,
            Some(("com.android.settings".into(), ".Settings".into()))
        );
        let f = parse_focus(
            "mCurrentFocus=Window{9 u0 NotificationShade}\nmFocusedApp=ActivityRecord{1 u0 com.x/.A t1}",
        );
        assert_eq!(f.package, None);
        assert_eq!(f.current_focus.as_deref(), Some("NotificationShade"));
        let f = parse_focus("mCurrentFocus=null\nmFocusedApp=null");
        assert_eq!(f, Focus::default());
        let f = parse_focus(
            "mFocusedApp=AppWindowToken{422df168 token=Token{422def98 ActivityRecord{422dee38 u0 com.example/.UI.play.PlayActivity t14}}}\nmCurrentFocus=Window{b4d2a948 com.pkg/com.pkg.MainActivity paused=false}",
        );
        assert_eq!(f.package.as_deref(), Some("com.pkg"));
        assert_eq!(f.activity.as_deref(), Some("com.pkg.MainActivity"));
        assert_eq!(
            f.focused_app,
            Some(("com.example".into(), ".UI.play.PlayActivity".into()))
        );
        // Multi-display: the first non-null focus.
        let f = parse_focus(
            "mCurrentFocus=null\nmCurrentFocus=Window{2 u0 com.b/.B}\nmCurrentFocus=Window{3 u0 com.c/.C}",
        );
        assert_eq!(f.package.as_deref(), Some("com.b"));
    }
}
