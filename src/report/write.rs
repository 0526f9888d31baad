//! Writing a run's reports into place: `junit.xml`, `report.html` and `manifest.json` (and, for
//! a merge, `result.json`), each rendered from a [`RunResult`] alone and written through the
//! caller's [`PathPolicy`] (no link followed, atomic replace). Paths from the run directory
//! to its artifacts are made relative to each report file, wherever it is written.

use std::path::{Path, PathBuf};

use crate::run::Masker;
use crate::run::result::RunResult;
use tapflow_device::hostfs::{Overwrite, PathPolicy};

/// Where the reports of a run go.
#[derive(Clone, Debug)]
pub struct Outputs {
    /// The run directory (absolute): `result.json`, `manifest.json`, `artifacts/`.
    pub run_dir: PathBuf,
    /// `junit.xml` (default: in the run directory).
    pub junit: PathBuf,
    /// `report.html` (default: in the run directory); `None`: no HTML (`--no-html`).
    pub html: Option<PathBuf>,
    /// Allows writing all of the above.
    pub policy: PathPolicy,
}

impl Outputs {
    /// Every report in `run_dir` (made absolute), under a policy rooted there.
    pub fn in_run_dir(run_dir: &Path) -> Self {
        let run_dir = absolute(run_dir);
        Outputs {
            junit: run_dir.join("junit.xml"),
            html: Some(run_dir.join("report.html")),
            policy: PathPolicy::new(&run_dir, [run_dir.clone()]),
            run_dir,
        }
    }

    /// Creates the run directory (and its missing parents), through a policy rooted at its
    /// deepest existing ancestor: nothing is created through a link, and nothing outside the
    /// directory the user named.
    pub fn create_run_dir(&self) -> Result<PathBuf, String> {
        let base = existing_ancestor(&self.run_dir);
        PathPolicy::new(&base, [base.clone()])
            .ensure_dir(&self.run_dir.to_string_lossy())
            .map_err(|e| format!("cannot create {}: {}", self.run_dir.display(), e.message))
    }

    pub fn result_json(&self) -> PathBuf {
        self.run_dir.join("result.json")
    }

    pub fn manifest(&self) -> PathBuf {
        self.run_dir.join("manifest.json")
    }
}

/// What was written.
#[derive(Clone, Debug, Default)]
pub struct Written {
    pub junit: Option<PathBuf>,
    pub html: Option<PathBuf>,
    pub manifest: Option<PathBuf>,
    /// What could not be written, one line each.
    pub errors: Vec<String>,
}

/// The deepest ancestor of `p` (or `p` itself) that exists: the root under which a report
/// path the user named on the command line may be created.
pub fn existing_ancestor(p: &Path) -> PathBuf {
    let p = absolute(p);
    p.ancestors()
        .find(|a| std::fs::symlink_metadata(a).is_ok())
        .map(Path::to_path_buf)
        .unwrap_or(p)
}

pub fn absolute(p: &Path) -> PathBuf {
    let a = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    tapflow_device::hostfs::normalize_lexically(&a).unwrap_or(a)
}

/// The prefix that turns a path relative to `run_dir` into one relative to the directory of
/// `file` (`""` when the file is in the run directory; always `/`-separated).
pub fn prefix_for(run_dir: &Path, file: &Path) -> String {
    let from = file.parent().map(absolute).unwrap_or_default();
    match pathdiff::diff_paths(absolute(run_dir), &from) {
        Some(p) if p.as_os_str().is_empty() => String::new(),
        Some(p) => {
            let s: Vec<String> = p
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            format!("{}/", s.join("/"))
        }
        None => format!("{}/", absolute(run_dir).display()),
    }
}

fn write_file(policy: &PathPolicy, path: &Path, bytes: &[u8]) -> Result<PathBuf, String> {
    let given = path.to_string_lossy();
    policy
        .prepare_write(&given)
        .and_then(|t| t.write(bytes, Overwrite::Replace))
        .map_err(|e| format!("cannot write {}: {}", path.display(), e.message))
}

/// Writes `result.json` (used by merges; a run's own is kept current by [`super::LiveResult`]).
pub fn write_result(r: &RunResult, o: &Outputs) -> Result<PathBuf, String> {
    let text = serde_json::to_vec_pretty(r).map_err(|e| e.to_string())?;
    // (A merge has no secrets to mask: its inputs are results written masked.)
    write_file(&o.policy, &o.result_json(), &text)
}

/// Renders and writes JUnit, HTML and the manifest. Each is attempted even if another fails.
/// `masker` (the run's secrets, when known) masks every byte written, whatever the format did
/// to the text on the way (escaping, quoting).
pub fn write_reports(r: &RunResult, o: &Outputs, masker: &Masker) -> Written {
    let mut w = Written::default();
    let junit = super::junit::render(
        r,
        &super::junit::JunitOptions {
            attachment_prefix: &prefix_for(&o.run_dir, &o.junit),
        },
    )
    .map_err(|e| format!("cannot render the JUnit report: {e}"))
    .and_then(|x| write_file(&o.policy, &o.junit, masker.text(&x).as_bytes()));
    match junit {
        Ok(p) => w.junit = Some(p),
        Err(e) => w.errors.push(e),
    }
    if let Some(html_path) = &o.html {
        let html = super::html::render(r, &prefix_for(&o.run_dir, html_path))
            .map_err(|e| format!("cannot render the HTML report: {e}"))
            .and_then(|x| write_file(&o.policy, html_path, masker.text(&x).as_bytes()));
        match html {
            Ok(p) => w.html = Some(p),
            Err(e) => w.errors.push(e),
        }
    }
    let manifest = masker
        .to_value(&super::manifest::build(r))
        .and_then(|v| serde_json::to_vec_pretty(&v))
        .map_err(|e| e.to_string())
        .and_then(|m| write_file(&o.policy, &o.manifest(), &m));
    match manifest {
        Ok(p) => w.manifest = Some(p),
        Err(e) => w.errors.push(e),
    }
    w
}

/// Appends the Markdown summary to `$GITHUB_STEP_SUMMARY` (a file the runner of the job owns;
/// appended, as every step does).
pub fn append_github_summary(
    r: &RunResult,
    file: &Path,
    html: Option<&Path>,
    masker: &Masker,
) -> Result<(), String> {
    use std::io::Write;
    // Masked cell by cell (before the Markdown escaping).
    let md = super::github::summary(r, html.map(|h| h.to_string_lossy()).as_deref(), masker);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(file)
        .map_err(|e| format!("cannot append to {}: {e}", file.display()))?;
    f.write_all(md.as_bytes())
        .and_then(|()| f.write_all(b"\n"))
        .map_err(|e| format!("cannot append to {}: {e}", file.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifact_prefixes_are_relative_to_the_report() {
        let run = Path::new("/w/reports/r1");
        assert_eq!(prefix_for(run, Path::new("/w/reports/r1/junit.xml")), "");
        assert_eq!(
            prefix_for(run, Path::new("/w/out/junit.xml")),
            "../reports/r1/"
        );
        assert_eq!(
            prefix_for(run, Path::new("/w/reports/r1/sub/x.html")),
            "../"
        );
    }
}
