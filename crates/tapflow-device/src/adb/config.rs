//! Configuration of the adb backend: where `adb` is, which adb server it talks to, per-kind
//! deadlines and scratch locations. Built by the CLI from flags and the environment (this module
//! reads none).

use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdbConfig {
    /// The adb executable (default `adb`, looked up on `PATH` when spawned).
    pub program: PathBuf,
    /// `adb -P PORT`: a private adb server on `localhost:PORT` instead of the default 5037, so
    /// the user's own server is untouched (the simulator's devices are attached there).
    pub server_port: Option<u16>,
    /// `adb -H HOST`: the server's host. `127.0.0.1` (not `localhost`) also stops the client
    /// from starting a server of its own when none answers (`* cannot start server on remote
    /// host`, docs/reference/adb-protocol.md rule 21): for a server tapflow owns and stops, so
    /// that a late command cannot start one that outlives tapflow.
    pub server_host: Option<String>,
    /// Deadline of an ordinary command (`input`, `am`, `pm`, `getprop`, `dumpsys`, …).
    pub command_timeout: Duration,
    /// Deadline of a UI dump round trip (`uiautomator dump` waits for the UI to be idle).
    pub dump_timeout: Duration,
    /// Deadline of bulk transfers: `screencap`, `logcat -d`, `push`/`pull`.
    pub transfer_timeout: Duration,
    /// Deadline of `adb install` (push + package verification of large APKs).
    pub install_timeout: Duration,
    /// Writable scratch directory on the device.
    pub device_tmp_dir: String,
    /// How a stream the device refused to open (`error: closed`: the command never ran) is
    /// sent again.
    pub refused_retry: crate::retry::TransientRetry,
}

impl Default for AdbConfig {
    fn default() -> Self {
        Self {
            program: PathBuf::from("adb"),
            server_port: None,
            server_host: None,
            command_timeout: Duration::from_secs(15),
            dump_timeout: Duration::from_secs(30),
            transfer_timeout: Duration::from_secs(60),
            install_timeout: Duration::from_secs(300),
            device_tmp_dir: "/data/local/tmp".to_string(),
            refused_retry: crate::retry::TransientRetry::DEFAULT,
        }
    }
}

impl AdbConfig {
    /// The global options every invocation starts with (`-H HOST`, `-P PORT` for a private
    /// server).
    pub fn global_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if let Some(h) = &self.server_host {
            args.extend(["-H".to_string(), h.clone()]);
        }
        if let Some(p) = self.server_port {
            args.extend(["-P".to_string(), p.to_string()]);
        }
        args
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_private_server() {
        let c = AdbConfig::default();
        assert_eq!(c.program, PathBuf::from("adb"));
        assert!(c.global_args().is_empty());
        assert!(c.dump_timeout >= c.command_timeout);
        let c = AdbConfig {
            server_port: Some(15037),
            ..c
        };
        assert_eq!(c.global_args(), ["-P", "15037"]);
        let c = AdbConfig {
            server_host: Some("127.0.0.1".into()),
            ..c
        };
        assert_eq!(c.global_args(), ["-H", "127.0.0.1", "-P", "15037"]);
    }
}
