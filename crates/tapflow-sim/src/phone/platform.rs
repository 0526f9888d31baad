//! What another platform's rendering of the same phone reads and does: the Android simulator
//! (`crate::android`) shows this phone's screen as Android views, lists its apps as
//! packages, installs APKs as apps, and commits IME text. Nothing here formats output.

use super::error::{PhoneError, codes};
use super::logs::sys;
use super::model::AppSpec;
use super::nodes::Window;
use super::{Phone, PhoneProfile};
use std::time::SystemTime;

/// An installed app as the package manager sees it.
#[derive(Debug, Clone, Copy)]
pub struct InstalledView<'a> {
    pub spec: &'a AppSpec,
    pub uid: u32,
    /// Preinstalled (cannot be uninstalled).
    pub system: bool,
    pub on_launcher: bool,
    pub install_time: SystemTime,
}

impl Phone {
    /// A booted phone with the given apps instead of the HarmonyOS system bundles:
    /// `(spec, system app, shown on the launcher)` each.
    pub fn with_apps(profile: PhoneProfile, apps: Vec<(AppSpec, bool, bool)>) -> Self {
        let mut phone = Phone::new_empty(profile);
        let now = phone.clock;
        for (spec, system, on_launcher) in apps {
            phone.add_app(spec, system, on_launcher, now, None);
        }
        phone
    }

    /// Every window on screen, in z-order (app or desktop, status bar, navigation, IME), with
    /// the laid-out content in screen pixels; list items outside their viewport are left out.
    pub fn windows_on_screen(&self) -> Vec<Window> {
        self.screen_windows(false)
    }

    /// The app in front (`None`: the launcher / desktop).
    pub fn foreground_bundle(&self) -> Option<&str> {
        self.foreground.as_deref()
    }

    /// True while the app in front shows a dialog (the last child of its window).
    pub fn dialog_shown(&self) -> bool {
        self.fg_proc().is_some_and(|p| p.dialog.is_some())
    }

    /// True while a text field of the app in front has the focus (the keyboard is up).
    pub fn keyboard_shown(&self) -> bool {
        self.ime_shown()
    }

    /// An installed app, `None` when not installed.
    pub fn installed_app(&self, bundle: &str) -> Option<InstalledView<'_>> {
        self.apps.get(bundle).map(|a| InstalledView {
            spec: &a.spec,
            uid: a.uid,
            system: a.system,
            on_launcher: a.on_launcher,
            install_time: a.install_time,
        })
    }

    /// Installed apps in install order.
    pub fn installed_apps(&self) -> Vec<InstalledView<'_>> {
        self.apps
            .values()
            .map(|a| InstalledView {
                spec: &a.spec,
                uid: a.uid,
                system: a.system,
                on_launcher: a.on_launcher,
                install_time: a.install_time,
            })
            .collect()
    }

    /// Installs (or updates) an app parsed from a package another platform defines (an APK):
    /// its bytes are kept at `code_path`. A lower version than the installed one, or replacing
    /// a system app, fails with `INSTALL_VERSION_DOWNGRADE`; updating a running app kills it.
    pub fn install_app(
        &mut self,
        spec: AppSpec,
        code_path: &str,
        bytes: Vec<u8>,
        now: SystemTime,
    ) -> Result<(), PhoneError> {
        self.tick(now);
        let bundle = spec.bundle.clone();
        if let Some(old) = self.apps.get(&bundle) {
            if old.system || spec.version_code < old.spec.version_code {
                return Err(PhoneError::new(
                    codes::INSTALL_VERSION_DOWNGRADE,
                    "install version downgrade.",
                ));
            }
            self.kill_app(&bundle, now, "update");
        }
        self.fs.write(code_path, bytes);
        self.logs.core(
            now,
            sys::FOUNDATION,
            'I',
            0x1120,
            "BMS",
            format!("install {bundle} success, replace:true"),
        );
        self.add_app(spec, false, true, now, None);
        Ok(())
    }

    /// An input method commits `text` at the caret of the focused field at once (no key
    /// events, so nothing can be dropped). `Err` when no field has the focus.
    pub fn commit_text(&mut self, text: &str, now: SystemTime) -> Result<(), String> {
        self.tick(now);
        self.insert_text(text, now)?;
        self.logs.core(
            now,
            sys::IME,
            'I',
            0x1f01,
            "ImsaKit",
            format!("InsertText, length: {}", text.chars().count()),
        );
        Ok(())
    }
}
