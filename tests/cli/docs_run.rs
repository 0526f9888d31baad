//! The README and docs run as printed (issue 7): every shell block marked `sh runnable` in
//! `README.md` and `docs/*.md` runs, line by line under `bash -euo pipefail`, with the `tapflow`
//! just built first on `PATH`, on simulated devices, and must succeed; no link or `*.md` file
//! named in them is missing from the repository.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::cli;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn documents() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    out.extend(docs);
    out
}

/// (info string, body) of every fenced block.
fn blocks(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in text.lines() {
        match &mut open {
            None => {
                if let Some(info) = line.strip_prefix("```") {
                    open = Some((info.trim().to_string(), String::new()));
                }
            }
            Some((_, body)) if line.trim_start().starts_with("```") => {
                let _ = body;
                out.push(open.take().unwrap());
            }
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    out
}

#[test]
fn runnable_shell_blocks_run_on_the_simulator() {
    let bin = cli::bin();
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let reports = tempfile::tempdir().unwrap();
    let mut ran = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for (info, body) in blocks(&text) {
            if info != "sh runnable" {
                continue;
            }
            ran += 1;
            let script = format!("set -euo pipefail\n{body}");
            let out = Command::new("bash")
                .arg("-c")
                .arg(&script)
                .current_dir(root())
                .env("PATH", &path)
                .env("TAPFLOW_REPORTS_DIR", reports.path())
                .env_remove("TAPFLOW_USER")
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}: this block failed ({:?}):\n{body}\n--- stdout\n{}\n--- stderr\n{}",
                doc.display(),
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    assert!(ran >= 1, "no `sh runnable` block found");
}

/// Seen 10: the docs named files that are not in the repository. Links are checked here; a
/// document named in prose anywhere, and any repository path the docs name, are checked by
/// `repo_standalone` (one walk over the whole repository, not only the docs).
#[test]
fn no_dangling_links() {
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut missing = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let dir = doc.parent().unwrap();
        for m in link.captures_iter(&text) {
            let target = m[1].split('#').next().unwrap();
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            if !dir.join(target).exists() {
                missing.push(format!("{}: link to {target}", doc.display()));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
