//! The Android simulator as a background daemon (`tapflow sim start --platform android`): the
//! devices listen on TCP for adb, and the daemon's control socket ([`crate::daemon`])
//! answers `status` and `stop` only (hdc requests are refused: these devices speak adb).

use std::path::Path;

use super::farm::{AndroidFarm, FarmOptions};
use crate::SimOutput;
use crate::daemon::DaemonBackend;

/// Run once at `stop` (the CLI stops the private adb server it started with it).
pub type OnStop = Box<dyn FnOnce() + Send>;

pub struct FarmDaemon {
    farm: AndroidFarm,
    opts: FarmOptions,
    /// Extra status lines (the private adb server the devices were attached to).
    note: String,
    on_stop: std::sync::Mutex<Option<OnStop>>,
}

impl FarmDaemon {
    pub fn new(
        farm: AndroidFarm,
        opts: FarmOptions,
        note: impl Into<String>,
        on_stop: Option<OnStop>,
    ) -> Self {
        Self {
            farm,
            opts,
            note: note.into(),
            on_stop: std::sync::Mutex::new(on_stop),
        }
    }

    pub fn farm(&self) -> &AndroidFarm {
        &self.farm
    }
}

impl DaemonBackend for FarmDaemon {
    fn hdc(
        &self,
        _argv: &[String],
        _cwd: &Path,
        _sink: &mut dyn FnMut(&[u8]) -> bool,
    ) -> SimOutput {
        SimOutput {
            stdout: b"[Fail]this simulator runs Android devices: drive them with adb (`tapflow sim status --platform android` lists their `adb connect` addresses)\n".to_vec(),
            exit: 0,
        }
    }

    fn status(&self) -> String {
        let mut s = format!(
            "platform: android\nseed: {}\nlatency: {:?}\n{}devices:\n",
            self.opts.seed, self.opts.latency, self.note
        );
        for i in 0..self.farm.len() {
            let server = self.farm.server(i);
            let state = if server.ctl().is_offline() {
                "offline"
            } else {
                "listening"
            };
            let model = self.farm.device(i).profile().model;
            s.push_str(&format!("  {}\t{state}\t{model}\n", server.address()));
        }
        s
    }

    fn shutdown(&self) {
        let hook = self
            .on_stop
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(f) = hook {
            f();
        }
        for i in 0..self.farm.len() {
            self.farm.server(i).ctl().drop_connections();
        }
    }
}

/// The `adb connect` addresses listed by a status text.
pub fn addresses_in_status(status: &str) -> Vec<String> {
    status
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .filter_map(|l| l.split('\t').next())
        .filter(|a| a.starts_with("127.0.0.1:"))
        .map(str::to_string)
        .collect()
}
