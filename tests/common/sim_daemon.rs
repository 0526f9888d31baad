//! A simulator daemon (`tapflow sim start`) in a private state directory, driven through the
//! `hdc` executable it writes, as a third-party client would drive it: a real process per call,
//! an empty environment, the exact argv. Stopped on drop. Used as
//! `crate::common::sim_daemon`. A test file that runs the binary with its
//! own environment starts and stops the daemon with that command ([`SimDaemon::start_with`]).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct SimDaemon {
    pub dir: tempfile::TempDir,
    /// The `tapflow` command that started the daemon (and stops it).
    tapflow: fn() -> Command,
    pub hdc: PathBuf,
    /// Where host paths of `file recv`/`install` are relative to.
    pub cwd: tempfile::TempDir,
}

impl SimDaemon {
    /// Starts a daemon with `--latency none` plus `extra` options.
    pub fn start(extra: &[&str]) -> SimDaemon {
        SimDaemon::start_with(super::cli::tapflow, extra)
    }

    /// [`SimDaemon::start`] through `tapflow` (a command for the binary, environment included).
    pub fn start_with(tapflow: fn() -> Command, extra: &[&str]) -> SimDaemon {
        let dir = tempfile::tempdir().unwrap();
        let out = tapflow()
            .args(["sim", "start", "--latency", "none", "--state-dir"])
            .arg(dir.path())
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "sim start failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let hdc = dir.path().join("bin/hdc");
        assert!(hdc.is_file(), "no hdc script at {}", hdc.display());
        SimDaemon {
            dir,
            tapflow,
            hdc,
            cwd: tempfile::tempdir().unwrap(),
        }
    }

    /// Runs `hdc ARGS…` and returns its stdout (hdc exits 0 even on failure).
    pub fn hdc(&self, args: &[&str]) -> String {
        let out = Command::new(&self.hdc)
            .args(args)
            .current_dir(self.cwd.path())
            .env_clear()
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "hdc {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// `hdc shell ARGS…` (argv elements after `shell`, joined by hdc).
    pub fn shell(&self, args: &[&str]) -> String {
        let mut v = vec!["shell"];
        v.extend_from_slice(args);
        self.hdc(&v)
    }

    /// `hdc shell "<one command string>"`.
    pub fn sh(&self, cmd: &str) -> String {
        self.hdc(&["shell", cmd])
    }

    pub fn host(&self, rel: &str) -> PathBuf {
        self.cwd.path().join(rel)
    }

    pub fn cwd(&self) -> &Path {
        self.cwd.path()
    }
}

impl Drop for SimDaemon {
    fn drop(&mut self) {
        let _ = (self.tapflow)()
            .args(["sim", "stop", "--state-dir"])
            .arg(self.dir.path())
            .output();
    }
}

/// A fixture's text with `\r` stripped (several captures come from Windows hosts).
pub fn fixture(name: &str) -> String {
    let p = format!(
        "{}/tests/fixtures/harmonyos/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{p}: {e}"))
        .replace('\r', "")
}
