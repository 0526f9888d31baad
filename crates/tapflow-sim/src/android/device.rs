//! One simulated Android phone: the shared phone model (screen, apps, input, logs, files) plus
//! the Android device's own state, its faults and its latency, and a shell that runs the
//! Android programs ([`super::commands`]) over it.

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use super::commands::Android;
use super::profile::AndroidProfile;
use super::state::AndroidState;
use crate::faults::{FaultSpec, FaultState};
use crate::latency::Latency;
use crate::phone::loader_apps;
use crate::phone::{Phone, model::AppSpec};
use crate::shell::{self, DeviceCtx, Sink};

/// Android's system packages (embedded).
pub const APPS_YAML: &str = include_str!("apps.yaml");
/// ADBKeyBoard (embedded).
pub const ADB_KEYBOARD_YAML: &str = include_str!("adbkeyboard.yaml");

/// What one shell run printed and how long it took on the device.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellRun {
    pub out: Vec<u8>,
    /// Empty unless stderr was kept apart.
    pub err: Vec<u8>,
    pub status: i32,
    /// Simulated device time (the caller sleeps it after releasing the device).
    pub spent: Duration,
}

pub struct AndroidDevice {
    pub index: usize,
    phone: Mutex<Phone>,
    faults: Mutex<FaultState>,
    state: Mutex<AndroidState>,
    latency: Latency,
    boot: Instant,
}

/// The apps an Android phone boots with: `(spec, system, on the launcher)`.
pub fn boot_apps() -> Vec<(AppSpec, bool, bool)> {
    let system = loader_apps::parse_apps(APPS_YAML).expect("the embedded Android apps are valid");
    let keyboard =
        loader_apps::parse_app(ADB_KEYBOARD_YAML).expect("the embedded ADBKeyBoard is valid");
    let demo = loader_apps::parse_app(loader_apps::DEMO_YAML).expect("the demo app is valid");
    let on_launcher = |s: &AppSpec| s.abilities.iter().any(|a| a.launcher);
    let mut apps: Vec<(AppSpec, bool, bool)> = system
        .into_iter()
        .map(|s| {
            let l = on_launcher(&s);
            (s, true, l)
        })
        .collect();
    apps.push((keyboard, false, false));
    apps.push((demo, false, true));
    apps
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl AndroidDevice {
    pub fn new(
        profile: AndroidProfile,
        index: usize,
        seed: u64,
        faults: FaultSpec,
        latency: Latency,
    ) -> Self {
        let phone = Phone::with_apps(profile.phone_profile(), boot_apps());
        Self {
            index,
            phone: Mutex::new(phone),
            faults: Mutex::new(FaultState::new(faults, seed, index)),
            state: Mutex::new(AndroidState::new(profile)),
            latency,
            boot: Instant::now(),
        }
    }

    /// The phone, with every transition due by now applied.
    pub fn phone(&self) -> MutexGuard<'_, Phone> {
        let mut p = lock(&self.phone);
        p.tick(SystemTime::now());
        p
    }

    pub fn faults(&self) -> MutexGuard<'_, FaultState> {
        lock(&self.faults)
    }

    pub fn state(&self) -> MutexGuard<'_, AndroidState> {
        lock(&self.state)
    }

    pub fn profile(&self) -> AndroidProfile {
        self.state().profile.clone()
    }

    pub fn latency(&self) -> Latency {
        self.latency
    }

    /// Runs `script` with the device's `sh -c` and the Android programs. With `split_stderr`
    /// stderr is returned apart (shell protocol v2); otherwise merged into `out`.
    pub fn run(&self, script: &str, split_stderr: bool) -> ShellRun {
        self.run_streaming(script, split_stderr, None)
    }

    /// [`AndroidDevice::run`], with a streaming program (`logcat` without `-d`) writing to
    /// `sink` until the sink refuses more (the client went away); what it wrote before the
    /// stream started is flushed to the sink first, so `out` holds only what came after.
    pub fn run_streaming<'s>(
        &'s self,
        script: &str,
        split_stderr: bool,
        sink: Option<Sink<'s>>,
    ) -> ShellRun {
        let mut ctx = DeviceCtx::new(&self.phone, &self.faults, self.latency, self.boot, &Android);
        ctx.sink = sink;
        ctx.split_stderr = split_stderr;
        ctx.platform = Some(&self.state);
        let status = shell::run_script(&mut ctx, script);
        ShellRun {
            out: std::mem::take(&mut ctx.out),
            err: std::mem::take(&mut ctx.err),
            status,
            spent: ctx.spent,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boots_with_android_packages_and_the_demo() {
        let d = AndroidDevice::new(
            AndroidProfile::default_for("SIM", 0),
            0,
            1,
            FaultSpec::none(),
            Latency::None,
        );
        let p = d.phone();
        let names = p.bundles();
        for b in [
            "android",
            "com.android.settings",
            "com.tapflow.demo",
            "com.android.adbkeyboard",
        ] {
            assert!(names.iter().any(|n| n == b), "{b}");
        }
        assert!(!names.iter().any(|n| n.starts_with("com.huawei")));
        assert_eq!(p.screen_size(), (1080, 2400));
    }
}
