//! What an Android device keeps beyond the shared phone model: its build properties, the
//! `settings` tables, and the input methods (`ime`), which decide whether ADBKeyBoard's text
//! broadcasts are typed.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use super::profile::AndroidProfile;
use crate::shell::DeviceCtx;

/// The stock keyboard.
pub const LATIN_IME: &str = "com.android.inputmethod.latin/.LatinIME";
/// The broadcast keyboard the adb backend types non-ASCII text with.
pub const ADB_KEYBOARD_IME: &str = "com.android.adbkeyboard/.AdbIME";

#[derive(Debug, Clone)]
pub struct AndroidState {
    pub profile: AndroidProfile,
    /// `(namespace, key)` → value (`settings get secure default_input_method`).
    pub settings: BTreeMap<(String, String), String>,
    /// Installed input methods with whether they are enabled.
    pub imes: Vec<(String, bool)>,
}

/// The settings a device boots with (`settings reset` returns a namespace to them).
fn boot_settings() -> BTreeMap<(String, String), String> {
    let mut settings = BTreeMap::new();
    let mut put = |ns: &str, k: &str, v: &str| {
        settings.insert((ns.to_string(), k.to_string()), v.to_string());
    };
    put("secure", "default_input_method", LATIN_IME);
    put("secure", "enabled_input_methods", LATIN_IME);
    put("global", "adb_enabled", "1");
    put("global", "animator_duration_scale", "1.0");
    put("global", "transition_animation_scale", "1.0");
    put("global", "window_animation_scale", "1.0");
    put("system", "screen_off_timeout", "600000");
    put("system", "accelerometer_rotation", "1");
    put("system", "user_rotation", "0");
    put("secure", "ui_night_mode", "1");
    put("global", "wifi_on", "1");
    put("global", "mobile_data", "1");
    settings
}

impl AndroidState {
    pub fn new(profile: AndroidProfile) -> Self {
        let settings = boot_settings();
        Self {
            profile,
            settings,
            imes: vec![
                (LATIN_IME.to_string(), true),
                (ADB_KEYBOARD_IME.to_string(), false),
            ],
        }
    }

    pub fn setting(&self, ns: &str, key: &str) -> Option<&str> {
        self.settings
            .get(&(ns.to_string(), key.to_string()))
            .map(String::as_str)
    }

    pub fn put_setting(&mut self, ns: &str, key: &str, value: &str) {
        self.settings
            .insert((ns.to_string(), key.to_string()), value.to_string());
    }

    /// Puts namespace `ns` back to its boot values (`settings reset NS MODE`).
    pub fn reset_settings(&mut self, ns: &str) {
        self.settings.retain(|(n, _), _| n != ns);
        for ((n, k), v) in boot_settings() {
            if n == ns {
                self.settings.insert((n, k), v);
            }
        }
    }

    /// The active input method.
    pub fn current_ime(&self) -> &str {
        self.setting("secure", "default_input_method")
            .unwrap_or(LATIN_IME)
    }

    fn sync_enabled_setting(&mut self) {
        let enabled: Vec<String> = self
            .imes
            .iter()
            .filter(|(_, e)| *e)
            .map(|(id, _)| id.clone())
            .collect();
        self.put_setting("secure", "enabled_input_methods", &enabled.join(":"));
    }

    /// `ime enable ID`: `Some(true)` newly enabled, `Some(false)` already, `None` unknown.
    pub fn enable_ime(&mut self, id: &str) -> Option<bool> {
        let entry = self.imes.iter_mut().find(|(i, _)| i == id)?;
        let newly = !entry.1;
        entry.1 = true;
        self.sync_enabled_setting();
        Some(newly)
    }

    /// `ime disable ID`: whether it was enabled; `None` unknown.
    pub fn disable_ime(&mut self, id: &str) -> Option<bool> {
        let entry = self.imes.iter_mut().find(|(i, _)| i == id)?;
        let was = entry.1;
        entry.1 = false;
        self.sync_enabled_setting();
        if self.current_ime() == id {
            self.put_setting("secure", "default_input_method", LATIN_IME);
        }
        Some(was)
    }

    /// `ime set ID`: only an installed, enabled input method can be selected (false otherwise).
    pub fn set_ime(&mut self, id: &str) -> bool {
        match self.imes.iter().find(|(i, _)| i == id) {
            Some((_, true)) => {
                self.put_setting("secure", "default_input_method", id);
                true
            }
            _ => false,
        }
    }
}

/// The Android state of the device a shell runs on (`AndroidDevice::run` puts it in the
/// context's platform slot), for the Android programs.
pub(crate) fn state<'a>(ctx: &DeviceCtx<'a>) -> MutexGuard<'a, AndroidState> {
    ctx.platform
        .and_then(|p| p.downcast_ref::<Mutex<AndroidState>>())
        .expect("Android programs run with the Android state")
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}
