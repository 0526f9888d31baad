//! Configuration of the hdc backend: where `hdc` is, the default server, per-kind deadlines and
//! scratch locations. Built by the CLI from flags and the environment (this module reads none).

use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HdcConfig {
    /// The hdc executable (default `hdc`, looked up on `PATH` when spawned).
    pub program: PathBuf,
    /// `HARMONYOS_HDC_SERVER`: used when a tool omits `hdc_server` (see [`super::route`]).
    pub default_server: Option<String>,
    /// Deadline of an ordinary command (`uitest uiInput`, `aa`, `bm`, `param`, `hidumper`, …).
    pub command_timeout: Duration,
    /// Deadline of a UI dump round trip (`uitest dumpLayout` can take seconds on a busy screen).
    pub dump_timeout: Duration,
    /// Deadline of bulk transfers: `hdc file recv`, `hilog -x`, reading crash files.
    pub transfer_timeout: Duration,
    /// Deadline of `hdc install` (signature checks on large HAPs take long).
    pub install_timeout: Duration,
    /// Writable scratch directory on the device (dumps and screenshots go there, then are deleted).
    pub device_tmp_dir: String,
    /// Host directory for received files; `None` = the system temporary directory.
    pub host_tmp_dir: Option<PathBuf>,
    /// How hdc's transient "channel is being established" answer is ridden out.
    pub transient_retry: TransientRetry,
}

pub use crate::retry::TransientRetry;

impl Default for HdcConfig {
    fn default() -> Self {
        Self {
            program: PathBuf::from("hdc"),
            default_server: None,
            command_timeout: Duration::from_secs(15),
            dump_timeout: Duration::from_secs(30),
            transfer_timeout: Duration::from_secs(60),
            install_timeout: Duration::from_secs(300),
            device_tmp_dir: "/data/local/tmp".to_string(),
            host_tmp_dir: None,
            transient_retry: TransientRetry::DEFAULT,
        }
    }
}

impl HdcConfig {
    /// A fresh device path `<device_tmp_dir>/tapflow_<uuid>.<ext>`: unique across hosts and
    /// processes sharing one device, so concurrent runs never read each other's files.
    pub fn scratch_path(&self, ext: &str) -> String {
        format!(
            "{}/tapflow_{}.{ext}",
            self.device_tmp_dir.trim_end_matches('/'),
            uuid::Uuid::new_v4().simple()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_docs() {
        let c = HdcConfig::default();
        assert_eq!(c.program, PathBuf::from("hdc"));
        assert!(c.default_server.is_none());
        assert!(c.dump_timeout >= c.command_timeout);
    }

    #[test]
    fn the_retry_pauses_double_and_stay_bounded() {
        let r = TransientRetry::DEFAULT;
        let pauses: Vec<u64> = (1..=r.retries)
            .map(|n| r.pause_before(n).as_millis() as u64)
            .collect();
        assert_eq!(pauses, [200, 400, 800, 1600]);
        assert_eq!(
            TransientRetry {
                retries: 40,
                backoff: Duration::from_secs(1)
            }
            .pause_before(40),
            Duration::from_secs(u32::MAX as u64)
        );
    }

    #[test]
    fn scratch_paths_are_unique_and_under_tmp() {
        let c = HdcConfig::default();
        let a = c.scratch_path("json");
        let b = c.scratch_path("json");
        assert_ne!(a, b);
        let re = regex::Regex::new(r"^/data/local/tmp/tapflow_[0-9a-f]{32}\.json$").unwrap();
        assert!(re.is_match(&a), "{a}");
    }
}
