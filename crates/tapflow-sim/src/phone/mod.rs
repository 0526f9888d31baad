//! One simulated HarmonyOS phone: installed apps (described as data), running apps and missions,
//! screens and element trees, layout JSON, input/IME/focus, lists, dialogs, delayed transitions,
//! hilog, crashes, the virtual file system, screenshots and hap installation.
//!
//! The engine (`crate`) turns hdc argv into calls on [`Phone`]; this module never formats
//! command output except the JSON/bytes that a device itself produces (layout, screenshots,
//! `bm dump` JSON, faultlogger files, hilog records).

mod abilities;
mod actions;
mod crash;
mod error;
mod field;
pub mod hap;
mod input;
mod keys;
mod launcher;
mod layout;
mod loader;
mod nodes;
/// Loading apps described as data (the demo app, app lists), for other platforms' phones.
pub mod loader_apps {
    pub use super::loader::{DEMO_YAML, parse_app, parse_apps, validate};
}
mod logs;
pub mod media;
pub mod model;
mod packages;
mod page_layout;
mod platform;
mod procfs;
mod profile;
mod recorded;
mod recording;
mod records;
mod render;
mod screen;
mod state;
mod types;
mod vfs;
pub mod video;
mod want;
mod windows;

pub use abilities::Started;
pub use error::{PhoneError, codes};
pub use keys::KEY_BY_KEY_MAX;
pub use logs::LogRecord;
pub use nodes::{Metrics, ScreenNode, Window, WindowKind};
pub use platform::InstalledView;
pub use procfs::ProcInfo;
pub use profile::PhoneProfile;
pub use records::{AbilityRecords, ExtensionRow, PendingWantRow, ProcessRow};
pub use types::{KeyPress, LayoutOptions, MissionRow, WindowRow, keycode};
pub use vfs::Vfs;
pub use want::{Want, WantParam};

/// The demo app's bundle name, installed on every simulated phone (its login page opens first).
pub const DEMO_BUNDLE: &str = "com.tapflow.demo";
/// The demo app's ability.
pub const DEMO_ABILITY: &str = "EntryAbility";

/// The demo app (`com.tapflow.demo`) as every phone installs it: its screens, actions and
/// delays, for tools that reason about it (the login benchmark reads its login delay here).
pub fn demo_app() -> model::AppSpec {
    loader::parse_app(loader::DEMO_YAML).expect("the embedded demo app is valid (tested)")
}

use indexmap::IndexMap;
use logs::LogBuffer;
use state::{AppProcess, InstalledApp, Pending};
use std::time::SystemTime;

/// Period of the system services' background log lines.
const NOISE_PERIOD: std::time::Duration = std::time::Duration::from_secs(3);

/// One simulated phone. See the module docs and `docs/sim.md` for the contract.
#[derive(Debug, Clone)]
pub struct Phone {
    /// The device file system (`hdc file send/recv`, faultlogger files, dumps written with `-p`).
    pub fs: Vfs,
    profile: PhoneProfile,
    apps: IndexMap<String, InstalledApp>,
    /// Running app processes in launch order.
    procs: IndexMap<String, AppProcess>,
    /// Bundle in the foreground; `None` → the launcher (desktop).
    foreground: Option<String>,
    clipboard: String,
    logs: LogBuffer,
    pending: Vec<Pending>,
    pending_seq: u64,
    awake: bool,
    /// Device time of the latest event or tick (status-bar clock, log times of system noise).
    clock: SystemTime,
    /// When the phone booted (process start times in `/proc/<pid>/stat` count from it).
    boot_time: SystemTime,
    next_noise: SystemTime,
    noise_seq: u64,
    /// A recorded uitest layout shown instead of the live screen.
    recorded: Option<serde_json::Value>,
    next_pid: u32,
    next_uid: u32,
    next_window_id: i64,
    next_mission_id: i64,
    /// The media library (screen recordings land here).
    media: Vec<media::MediaAsset>,
    next_media_id: u32,
    /// A screen recording in progress.
    recording: Option<recording::Recording>,
}

impl Phone {
    /// A booted phone: demo app plus launcher/system apps installed, screen awake, launcher shown.
    pub fn new(profile: PhoneProfile) -> Self {
        let mut phone = Phone::new_empty(profile);
        let now = phone.clock;
        for (spec, system, on_launcher) in loader::builtin_apps() {
            phone.add_app(spec, system, on_launcher, now, None);
        }
        phone
    }

    /// A booted phone with no app installed (system logs written).
    fn new_empty(profile: PhoneProfile) -> Self {
        let now = SystemTime::now();
        let mut phone = Phone {
            fs: Vfs::new(),
            profile,
            apps: IndexMap::new(),
            procs: IndexMap::new(),
            foreground: None,
            clipboard: String::new(),
            logs: LogBuffer::default(),
            pending: Vec::new(),
            pending_seq: 0,
            awake: true,
            clock: now,
            boot_time: now - std::time::Duration::from_secs(3_600),
            next_noise: now + NOISE_PERIOD,
            noise_seq: 0,
            recorded: None,
            next_pid: 12_034,
            next_uid: 20_020_050,
            next_window_id: 60,
            next_mission_id: 140,
            media: Vec::new(),
            next_media_id: 0,
            recording: None,
        };
        phone.logs.boot_noise(now);
        phone
    }

    pub fn profile(&self) -> &PhoneProfile {
        &self.profile
    }

    pub fn screen_size(&self) -> (u32, u32) {
        self.profile.screen
    }

    pub fn power_awake(&self) -> bool {
        self.awake
    }

    /// The pasteboard content (what Ctrl+V pastes).
    pub fn clipboard(&self) -> &str {
        &self.clipboard
    }

    pub fn set_clipboard(&mut self, text: &str) {
        self.clipboard = text.to_string();
    }

    pub fn hilog(&self) -> &[LogRecord] {
        self.logs.records()
    }

    pub fn clear_hilog(&mut self) {
        self.logs.clear();
    }

    /// Applies every delayed transition due by `now`, in due-time order.
    pub fn tick(&mut self, now: SystemTime) {
        // System services chatter every few seconds of device time while the phone runs.
        while self.awake && self.next_noise <= now {
            self.noise_seq += 1;
            let at = self.next_noise;
            self.logs.background_noise(at, self.noise_seq);
            self.next_noise = at + NOISE_PERIOD;
            if now
                .duration_since(self.next_noise)
                .is_ok_and(|d| d > NOISE_PERIOD * 8)
            {
                // Long idle gaps: skip ahead instead of flooding the buffer.
                self.next_noise = now;
            }
        }
        self.clock = self.clock.max(now);
        loop {
            let next = self
                .pending
                .iter()
                .enumerate()
                .filter(|(_, p)| p.due <= now)
                .min_by_key(|(_, p)| (p.due, p.seq))
                .map(|(i, _)| i);
            let Some(i) = next else { break };
            let p = self.pending.remove(i);
            let alive = self.procs.get(&p.bundle).is_some_and(|a| a.pid == p.pid);
            if alive {
                self.run_actions(&p.bundle, None, &p.actions, p.due);
                self.capture_frame(p.due);
            }
        }
    }

    fn add_app(
        &mut self,
        spec: model::AppSpec,
        system: bool,
        on_launcher: bool,
        now: SystemTime,
        module_json: Option<serde_json::Value>,
    ) {
        let uid = self
            .apps
            .get(&spec.bundle)
            .map(|a| a.uid)
            .unwrap_or_else(|| {
                self.next_uid += 1;
                self.next_uid
            });
        self.apps.insert(
            spec.bundle.clone(),
            InstalledApp {
                spec,
                uid,
                system,
                on_launcher,
                install_time: now,
                module_json,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boots_with_demo_and_launcher() {
        let p = Phone::new(PhoneProfile::default_for("SIM-0", 0));
        assert!(p.bundles().iter().any(|b| b == DEMO_BUNDLE));
        assert!(p.power_awake());
        assert_eq!(p.screen_size(), (1260, 2720));
        assert!(!p.hilog().is_empty());
    }
}
