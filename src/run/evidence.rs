//! Evidence for failed steps, collected automatically into the run's `artifacts/` directory:
//! a screenshot, the UI tree, the hilog lines of the step's time window and any crash file
//! written since the flow started. Collection goes straight to the device (it is an
//! observation of the failure, not a step), and what it cannot collect it leaves out.
//!
//! Every file gets a name of its own: a step inside `repeat`/`retry` blocks carries its pass
//! (`<step>.pass-2.screenshot.png`), and a name already used in this run is never written over
//! (files are created under the run directory's [`PathPolicy`], without replacing anything).
//! Each [`EvidenceRef`] records the file's SHA-256, size and an excerpt, so the manifest and
//! the reports are rendered from `result.json` alone.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

mod excerpt;

use super::mask::Masker;
use super::result::EvidenceRef;
use super::worker::Caller;
use tapflow_device::hostfs::{Overwrite, PathPolicy};
use tapflow_device::{
    Bounds, Device, DeviceError, DeviceResult, DumpScope, ImageFormat, LogQuery, ScreenshotRequest,
};
use tapflow_tools::DeviceRoute;

pub use excerpt::{MAX_LOG_LINES, MAX_TREE_LINES};

/// One file in `manifest.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// Relative to the run directory.
    pub path: String,
    pub kind: String,
    /// The run that wrote it (shards keep theirs in a merged manifest).
    pub run_id: String,
    pub device: String,
    pub flow: String,
    pub step: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass: Option<String>,
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
    /// No line before this is evidence of this flow (the flow's start), whatever the slack.
    pub not_before: Option<chrono::DateTime<chrono::Local>>,
}

/// Crash files present when the flow started (only newer ones are evidence).
pub struct CrashBaseline(Option<BTreeSet<String>>);

impl CrashBaseline {
    /// The crash file names known at the start (`None` when they could not be listed).
    pub fn known(&self) -> Option<&BTreeSet<String>> {
        self.0.as_ref()
    }
}

/// Tries of each crash query (the listing, a file, logcat) while the device fails it: whether
/// the app crashed decides whom a failure is blamed on, so a device fault met on the way is
/// worth another try (on top of the backends' own resends).
pub const CRASH_QUERY_ATTEMPTS: u32 = 3;

/// `query`, asked again while it fails ([`CRASH_QUERY_ATTEMPTS`] in all); a backend that
/// cannot do it at all is not asked twice.
pub(crate) fn asked<T>(query: impl Fn() -> DeviceResult<T>) -> DeviceResult<T> {
    let mut r = query();
    for _ in 1..CRASH_QUERY_ATTEMPTS {
        match &r {
            Err(DeviceError::Unsupported { .. }) | Ok(_) => break,
            Err(_) => r = query(),
        }
    }
    r
}

/// Which step failed, for naming and listing its evidence.
pub struct StepRef<'a> {
    pub serial: &'a str,
    pub flow: &'a str,
    pub step: &'a str,
    /// Pass numbers of the enclosing blocks (`2.1`), if any.
    pub pass: Option<String>,
    /// The bounds of the step's target, where known (the UI tree excerpt centres on it).
    pub bounds: Option<&'a str>,
}

/// Writes evidence files; shared by all device threads.
pub struct EvidenceCollector {
    policy: PathPolicy,
    used: Mutex<HashSet<String>>,
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
    /// Files go under `run_dir`, the only directory this collector may write in.
    pub fn new(run_dir: &Path) -> Self {
        let run_dir = std::path::absolute(run_dir).unwrap_or_else(|_| run_dir.to_path_buf());
        // The run directory itself is created under its deepest existing ancestor (the
        // caller chose it), without following links; what fails shows as missing evidence.
        if let Some(base) = run_dir
            .ancestors()
            .find(|a| std::fs::symlink_metadata(a).is_ok())
        {
            let _ =
                PathPolicy::new(base, [base.to_path_buf()]).ensure_dir(&run_dir.to_string_lossy());
        }
        EvidenceCollector {
            policy: PathPolicy::new(&run_dir, [run_dir.clone()]),
            used: Mutex::new(HashSet::new()),
        }
    }

    /// The crash files on the device when a flow starts (asked again while the device fails
    /// the listing: without it, no crash of the flow can be told from older ones).
    pub fn crash_baseline(&self, caller: &Caller, serial: &str) -> CrashBaseline {
        let known = device_of(caller, serial)
            .and_then(|d| asked(|| d.crash_files()).ok())
            .map(|files| files.into_iter().map(|c| c.file_name).collect());
        CrashBaseline(known)
    }

    /// Only a screenshot (after a step that passed, for `--screenshots every-step`).
    pub fn screenshot(&self, caller: &Caller, at: &StepRef<'_>) -> Option<EvidenceRef> {
        let device = device_of(caller, at.serial)?;
        let s = device
            .screenshot(&ScreenshotRequest {
                format: ImageFormat::Png,
                display_id: None,
                region: None,
            })
            .ok()?;
        let (dir, stem) = self.names(at);
        let ext = match s.format {
            ImageFormat::Png => "png",
            ImageFormat::Jpeg => "jpeg",
        };
        let rel = self.write_unique(&dir, &stem, &format!(".screenshot.{ext}"), &s.bytes)?;
        Some(EvidenceRef {
            kind: "screenshot".into(),
            path: rel,
            sha256: hex::encode(Sha256::digest(&s.bytes)),
            bytes: s.bytes.len() as u64,
            pass: at.pass.clone(),
            width: Some(s.width),
            height: Some(s.height),
            excerpt: None,
            lines: None,
        })
    }

    /// The directory and file stem of a step's evidence.
    fn names(&self, at: &StepRef<'_>) -> (String, String) {
        let dir = format!("artifacts/{}/{}", safe_name(at.serial), safe_name(at.flow));
        let stem = match &at.pass {
            Some(p) => format!("{}.pass-{}", safe_name(at.step), safe_name(p)),
            None => safe_name(at.step),
        };
        (dir, stem)
    }

    /// Collects what it can for a failed step.
    pub fn collect(
        &self,
        caller: &Caller,
        at: &StepRef<'_>,
        window: &StepWindow,
        baseline: Option<&CrashBaseline>,
        masker: &Masker,
    ) -> Vec<EvidenceRef> {
        let Some(device) = device_of(caller, at.serial) else {
            return Vec::new();
        };
        let (rel_dir, stem) = self.names(at);
        let mut out = Vec::new();
        let mut save = |kind: &str, suffix: String, bytes: &[u8]| -> Option<usize> {
            let rel = self.write_unique(&rel_dir, &stem, &suffix, bytes)?;
            out.push(EvidenceRef {
                kind: kind.to_string(),
                path: rel,
                sha256: hex::encode(Sha256::digest(bytes)),
                bytes: bytes.len() as u64,
                pass: at.pass.clone(),
                width: None,
                height: None,
                excerpt: None,
                lines: None,
            });
            Some(out.len() - 1)
        };
        let shot = device.screenshot(&ScreenshotRequest {
            format: ImageFormat::Png,
            display_id: None,
            region: None,
        });
        let mut sized = None;
        if let Ok(s) = shot {
            let ext = match s.format {
                ImageFormat::Png => "png",
                ImageFormat::Jpeg => "jpeg",
            };
            if let Some(i) = save("screenshot", format!(".screenshot.{ext}"), &s.bytes) {
                sized = Some((i, s.width, s.height));
            }
        }
        let mut tree_excerpt = None;
        // JSON is masked as values, before serde_json escapes them.
        if let Ok(tree) = device.ui_tree(&DumpScope::default())
            && let Ok(text) = masker
                .to_value(&tree)
                .and_then(|v| serde_json::to_string_pretty(&v))
        {
            let target = at.bounds.and_then(Bounds::parse);
            let ex = masker
                .text(&excerpt::ui_tree(&tree, target.as_ref()))
                .into_owned();
            if let Some(i) = save("ui_tree", ".ui_tree.json".into(), text.as_bytes()) {
                tree_excerpt = Some((i, ex, text.lines().count()));
            }
        }
        let mut log_excerpt = None;
        if let Ok(text) = device.logs(&LogQuery::default()) {
            let lines = lines_in_window(&text, window);
            if !lines.is_empty() {
                let masked: Vec<String> =
                    lines.iter().map(|l| masker.text(l).into_owned()).collect();
                // The kind stays `hilog` on every platform (the result schema's name for the
                // device log); the file says which log it is.
                let suffix = if device.platform() == "android" {
                    ".logcat.txt"
                } else {
                    ".hilog.txt"
                };
                if let Some(i) = save("hilog", suffix.into(), masked.join("\n").as_bytes()) {
                    log_excerpt = Some((i, excerpt::tail(&masked), masked.len()));
                }
            }
        }
        let mut crash_excerpts = Vec::new();
        if let Some(CrashBaseline(Some(known))) = baseline
            && let Ok(files) = device.crash_files()
        {
            for c in files.into_iter().filter(|c| !known.contains(&c.file_name)) {
                if let Ok(text) = device.read_crash_file(&c.file_name) {
                    let text = masker.text(&text);
                    if let Some(i) = save(
                        "crash",
                        format!(".{}", safe_name(&c.file_name)),
                        text.as_bytes(),
                    ) {
                        crash_excerpts.push((i, excerpt::head(&text), text.lines().count()));
                    }
                }
            }
        }
        if let Some((i, w, h)) = sized {
            out[i].width = Some(w);
            out[i].height = Some(h);
        }
        for (i, ex, n) in tree_excerpt
            .into_iter()
            .chain(log_excerpt)
            .chain(crash_excerpts)
        {
            out[i].excerpt = Some(ex);
            out[i].lines = Some(n);
        }
        out
    }

    /// Writes `bytes` as `dir/<stem><suffix>`, or `dir/<stem>-2<suffix>`… when the name was
    /// taken (by this run, or by a file already in the directory); returns the relative path.
    fn write_unique(&self, dir: &str, stem: &str, suffix: &str, bytes: &[u8]) -> Option<String> {
        for n in 1..1000 {
            let candidate = if n == 1 {
                format!("{dir}/{stem}{suffix}")
            } else {
                format!("{dir}/{stem}-{n}{suffix}")
            };
            if !self
                .used
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(candidate.clone())
            {
                continue;
            }
            let target = self.policy.prepare_write(&candidate).ok()?;
            if target.existed() {
                continue;
            }
            match target.write(bytes, Overwrite::Never) {
                Ok(_) => return Some(candidate),
                Err(e) if e.kind == tapflow_device::hostfs::PathErrorKind::Exists => continue,
                Err(_) => return None,
            }
        }
        None
    }

    /// The run directory the evidence goes into.
    pub fn run_dir(&self) -> PathBuf {
        self.policy.base().to_path_buf()
    }
}

/// The hilog lines (with their continuation lines) printed within the window, one second of
/// slack on each side (hilog prints milliseconds; device and host clocks may differ slightly),
/// never before `not_before`.
pub fn lines_in_window(text: &str, window: &StepWindow) -> Vec<String> {
    let now = chrono::Local::now().fixed_offset();
    let slack = chrono::Duration::seconds(1);
    let mut from = window.from.naive_local() - slack;
    if let Some(nb) = window.not_before {
        from = from.max(nb.naive_local());
    }
    let to = window.to.naive_local() + slack;
    tapflow_device::logs::hilog::parse_text(text)
        .into_iter()
        .filter(|r| {
            r.hilog
                .as_ref()
                .and_then(|h| tapflow_device::logs::time::resolve_line_time(&h.time, &now))
                .is_some_and(|t| t >= from && t <= to)
        })
        .map(|r| r.full_text())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(t: chrono::DateTime<chrono::Local>) -> String {
        t.format("%m-%d %H:%M:%S%.3f").to_string()
    }

    #[test]
    fn keeps_only_lines_in_the_window() {
        let now = chrono::Local::now();
        let old = now - chrono::Duration::minutes(5);
        let text = format!(
            "{}  1234  1234 I A0d0d0/DemoApp: OLD\n{}  1234  1234 E A0d0d0/DemoApp: NEW\n",
            fmt(old),
            fmt(now)
        );
        let w = StepWindow {
            from: now,
            to: now,
            not_before: None,
        };
        let lines = lines_in_window(&text, &w);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].ends_with("NEW"));
    }

    #[test]
    fn the_slack_never_reaches_before_the_flow() {
        let now = chrono::Local::now();
        let before = now - chrono::Duration::milliseconds(500);
        let text = format!(
            "{}  1234  1234 I A0d0d0/DemoApp: EARLIER RUN\n{}  1234  1234 E A0d0d0/DemoApp: THIS RUN\n",
            fmt(before),
            fmt(now)
        );
        let open = StepWindow {
            from: now,
            to: now,
            not_before: None,
        };
        assert_eq!(
            lines_in_window(&text, &open).len(),
            2,
            "the slack reaches back"
        );
        let w = StepWindow {
            not_before: Some(now - chrono::Duration::milliseconds(100)),
            ..open
        };
        let lines = lines_in_window(&text, &w);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].ends_with("THIS RUN"));
    }

    #[test]
    fn names_are_safe() {
        assert_eq!(safe_name("127.0.0.1:5555"), "127.0.0.1_5555");
        assert_eq!(safe_name("a/b"), "a_b");
    }

    #[test]
    fn a_name_is_never_written_twice() {
        let dir = tempfile::tempdir().unwrap();
        let c = EvidenceCollector::new(dir.path());
        let a = c
            .write_unique("artifacts/d/f", "s1", ".screenshot.png", b"one")
            .unwrap();
        let b = c
            .write_unique("artifacts/d/f", "s1", ".screenshot.png", b"two")
            .unwrap();
        assert_eq!(a, "artifacts/d/f/s1.screenshot.png");
        assert_eq!(b, "artifacts/d/f/s1-2.screenshot.png");
        assert_eq!(std::fs::read(dir.path().join(&a)).unwrap(), b"one");
        assert_eq!(std::fs::read(dir.path().join(&b)).unwrap(), b"two");
        // A file left in the directory by an earlier run is not written over either.
        let c2 = EvidenceCollector::new(dir.path());
        let again = c2
            .write_unique("artifacts/d/f", "s1", ".screenshot.png", b"three")
            .unwrap();
        assert_eq!(again, "artifacts/d/f/s1-3.screenshot.png");
    }
}
