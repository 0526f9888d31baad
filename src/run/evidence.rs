//! Evidence for failed steps, collected automatically into the run's `artifacts/` directory:
//! a screenshot, the UI tree, the hilog lines of the step's time window and any crash file
//! written since the flow started. Every file is listed in `artifacts/manifest.json` with its
//! step, device and SHA-256. Collection goes straight to the device (it is an observation
//! of the failure, not a step), and what it cannot collect it leaves out.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::mask::Masker;
use super::result::EvidenceRef;
use super::worker::Caller;
use crate::device::{Device, DumpScope, ImageFormat, LogQuery, ScreenshotRequest};
use crate::tools::DeviceRoute;

/// One file in `artifacts/manifest.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// Relative to the run directory.
    pub path: String,
    pub kind: String,
    pub device: String,
    pub flow: String,
    pub step: String,
    pub sha256: String,
    pub bytes: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub run_id: String,
    pub artifacts: Vec<ManifestEntry>,
}

/// The step's time window (local wall clock, as hilog prints it).
pub struct StepWindow {
    pub from: chrono::DateTime<chrono::Local>,
    pub to: chrono::DateTime<chrono::Local>,
}

/// Crash files present when the flow started (only newer ones are evidence).
pub struct CrashBaseline(Option<BTreeSet<String>>);

impl CrashBaseline {
    /// The crash file names known at the start (`None` when they could not be listed).
    pub fn known(&self) -> Option<&BTreeSet<String>> {
        self.0.as_ref()
    }
}

/// Writes evidence files and keeps the manifest; shared by all device threads.
pub struct EvidenceCollector {
    run_dir: PathBuf,
    entries: Mutex<Vec<ManifestEntry>>,
}

/// A path component safe on every file system (serials may hold `:`).
pub fn safe_name(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '#') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn device_of(caller: &Caller, serial: &str) -> Option<Arc<dyn Device>> {
    let route = DeviceRoute {
        device_id: Some(serial.to_string()),
        hdc_server: caller.context().config.default_hdc_server.clone(),
    };
    caller.context().provider.resolve(&route).ok()
}

impl EvidenceCollector {
    pub fn new(run_dir: &Path) -> Self {
        EvidenceCollector {
            run_dir: run_dir.to_path_buf(),
            entries: Mutex::new(Vec::new()),
        }
    }

    pub fn entries(&self) -> Vec<ManifestEntry> {
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Writes `artifacts/manifest.json`; returns its path relative to the run directory.
    pub fn write_manifest(&self, run_id: &str) -> std::io::Result<String> {
        let manifest = Manifest {
            run_id: run_id.to_string(),
            artifacts: self.entries(),
        };
        let dir = self.run_dir.join("artifacts");
        std::fs::create_dir_all(&dir)?;
        let text = serde_json::to_string_pretty(&manifest).map_err(std::io::Error::other)?;
        write_atomic(&dir.join("manifest.json"), text.as_bytes())?;
        Ok("artifacts/manifest.json".into())
    }

    pub fn crash_baseline(&self, caller: &Caller, serial: &str) -> CrashBaseline {
        let known = device_of(caller, serial)
            .and_then(|d| d.crash_files().ok())
            .map(|files| files.into_iter().map(|c| c.file_name).collect());
        CrashBaseline(known)
    }

    /// Collects what it can for a failed step.
    #[allow(clippy::too_many_arguments)]
    pub fn collect(
        &self,
        caller: &Caller,
        serial: &str,
        flow: &str,
        step: &str,
        window: &StepWindow,
        baseline: Option<&CrashBaseline>,
        masker: &Masker,
    ) -> Vec<EvidenceRef> {
        let Some(device) = device_of(caller, serial) else {
            return Vec::new();
        };
        let rel_dir = format!("artifacts/{}/{}", safe_name(serial), safe_name(flow));
        let stem = safe_name(step);
        let mut out = Vec::new();
        let mut save = |kind: &str, name: String, bytes: &[u8]| {
            let rel = format!("{rel_dir}/{name}");
            if self.write(&rel, kind, serial, flow, step, bytes).is_ok() {
                out.push(EvidenceRef {
                    kind: kind.to_string(),
                    path: rel,
                });
            }
        };
        let shot = device.screenshot(&ScreenshotRequest {
            format: ImageFormat::Png,
            display_id: None,
            region: None,
        });
        if let Ok(s) = shot {
            let ext = match s.format {
                ImageFormat::Png => "png",
                ImageFormat::Jpeg => "jpeg",
            };
            save("screenshot", format!("{stem}.screenshot.{ext}"), &s.bytes);
        }
        // JSON is masked as values, before serde_json escapes them.
        if let Ok(tree) = device.ui_tree(&DumpScope::default())
            && let Ok(text) = masker
                .to_value(&tree)
                .and_then(|v| serde_json::to_string_pretty(&v))
        {
            save("ui_tree", format!("{stem}.ui_tree.json"), text.as_bytes());
        }
        if let Ok(text) = device.logs(&LogQuery::default()) {
            let lines = lines_in_window(&text, window);
            if !lines.is_empty() {
                save(
                    "hilog",
                    format!("{stem}.hilog.txt"),
                    masker.text(&lines.join("\n")).as_bytes(),
                );
            }
        }
        if let Some(CrashBaseline(Some(known))) = baseline
            && let Ok(files) = device.crash_files()
        {
            for c in files.into_iter().filter(|c| !known.contains(&c.file_name)) {
                if let Ok(text) = device.read_crash_file(&c.file_name) {
                    save(
                        "crash",
                        format!("{stem}.{}", safe_name(&c.file_name)),
                        masker.text(&text).as_bytes(),
                    );
                }
            }
        }
        out
    }

    fn write(
        &self,
        rel: &str,
        kind: &str,
        device: &str,
        flow: &str,
        step: &str,
        bytes: &[u8],
    ) -> std::io::Result<()> {
        let path = self.run_dir.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&path, bytes)?;
        let entry = ManifestEntry {
            path: rel.to_string(),
            kind: kind.to_string(),
            device: device.to_string(),
            flow: flow.to_string(),
            step: step.to_string(),
            sha256: hex::encode(Sha256::digest(bytes)),
            bytes: bytes.len() as u64,
        };
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(entry);
        Ok(())
    }
}

/// The hilog lines (with their continuation lines) printed within the window, one second of
/// slack on each side (hilog prints milliseconds; device and host clocks may differ slightly).
pub fn lines_in_window(text: &str, window: &StepWindow) -> Vec<String> {
    let now = chrono::Local::now().fixed_offset();
    let slack = chrono::Duration::seconds(1);
    let from = window.from.naive_local() - slack;
    let to = window.to.naive_local() + slack;
    crate::logs::hilog::parse_text(text)
        .into_iter()
        .filter(|r| {
            r.hilog
                .as_ref()
                .and_then(|h| crate::logs::time::resolve_line_time(&h.time, &now))
                .is_some_and(|t| t >= from && t <= to)
        })
        .map(|r| r.full_text())
        .collect()
}

/// Writes through a temporary file and a rename, so a reader never sees half a file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_lines_in_the_window() {
        let now = chrono::Local::now();
        let fmt = |t: chrono::DateTime<chrono::Local>| t.format("%m-%d %H:%M:%S%.3f").to_string();
        let old = now - chrono::Duration::minutes(5);
        let text = format!(
            "{}  1234  1234 I A0d0d0/DemoApp: OLD\n{}  1234  1234 E A0d0d0/DemoApp: NEW\n",
            fmt(old),
            fmt(now)
        );
        let w = StepWindow { from: now, to: now };
        let lines = lines_in_window(&text, &w);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].ends_with("NEW"));
    }

    #[test]
    fn names_are_safe() {
        assert_eq!(safe_name("127.0.0.1:5555"), "127.0.0.1_5555");
        assert_eq!(safe_name("a/b"), "a_b");
    }
}
