//! `tapflow report`: renders a run's reports again from its `result.json` alone
//! (`tapflow report RUN_DIR [--open]`), checks its artifacts against `manifest.json`
//! (`--verify`), and merges the run directories of CI shards into one run
//! (`--merge OUT RUN_DIR…`, which checks that they cover the plan exactly once).
//!
//! Exit codes: 0 written (or verified); 1 `--verify` found a missing or changed file, or the
//! shards do not cover the plan exactly once; 2 usage (no such directory, no or unreadable
//! `result.json`).

use std::path::{Path, PathBuf};

use clap::Args;

use super::exit;
use crate::report::{self, Outputs, merge};
use crate::run::evidence::Manifest;
use crate::run::{Masker, RunResult};
use tapflow_device::hostfs::PathPolicy;

/// Arguments of `tapflow report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Run directories (one, or the shards to merge with --merge).
    #[arg(required = true, value_name = "RUN_DIR")]
    pub dirs: Vec<PathBuf>,
    /// Merge the given run directories (shards of one plan) into OUT.
    #[arg(long, value_name = "OUT")]
    pub merge: Option<PathBuf>,
    /// Check every artifact against manifest.json (exists, size, SHA-256); write nothing.
    #[arg(long, conflicts_with = "merge")]
    pub verify: bool,
    /// Open the HTML report in the default browser afterwards.
    #[arg(long)]
    pub open: bool,
    /// Write the JUnit report to PATH (default: junit.xml in the run directory).
    #[arg(long, value_name = "PATH")]
    pub junit: Option<PathBuf>,
    /// Write the HTML report to PATH (default: report.html in the run directory).
    #[arg(long, value_name = "PATH", conflicts_with = "no_html")]
    pub html: Option<PathBuf>,
    /// Write no HTML report.
    #[arg(long)]
    pub no_html: bool,
    /// GitHub Actions: append a summary to $GITHUB_STEP_SUMMARY and print `::error` lines.
    #[arg(long)]
    pub github_summary: bool,
}

/// `result.json` can be large (thousands of steps with excerpts), never this large.
const MAX_RESULT_BYTES: u64 = 1 << 31;

fn read_json<T: serde::de::DeserializeOwned>(dir: &Path, name: &str) -> Result<T, String> {
    let policy = PathPolicy::new(dir, [dir.to_path_buf()]);
    let (_, bytes) = policy
        .read_file(name, MAX_RESULT_BYTES)
        .map_err(|e| format!("{}: {}", dir.join(name).display(), e.message))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| format!("{}: not a tapflow {name} ({e})", dir.join(name).display()))
}

/// Reads a run directory's `result.json`.
pub fn read_result(dir: &Path) -> Result<RunResult, String> {
    if !dir.is_dir() {
        return Err(format!("{}: no such run directory", dir.display()));
    }
    read_json(dir, "result.json")
}

fn outputs(args: &ReportArgs, run_dir: &Path, cwd: &Path) -> Outputs {
    let mut o = Outputs::in_run_dir(&cwd.join(run_dir));
    let mut roots = vec![o.run_dir.clone()];
    if let Some(j) = &args.junit {
        o.junit = report::write::absolute(&cwd.join(j));
        roots.extend(o.junit.parent().map(report::write::existing_ancestor));
    }
    if args.no_html {
        o.html = None;
    } else if let Some(h) = &args.html {
        let h = report::write::absolute(&cwd.join(h));
        roots.extend(h.parent().map(report::write::existing_ancestor));
        o.html = Some(h);
    }
    o.policy = PathPolicy::new(cwd, roots);
    o
}

/// `tapflow report`.
pub fn run(args: ReportArgs) -> i32 {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    if let Some(out) = args.merge.clone() {
        return run_merge(&args, &out, &cwd);
    }
    if args.dirs.len() != 1 {
        eprintln!("tapflow report: give one run directory (or --merge OUT with several)");
        return exit::USAGE;
    }
    let dir = cwd.join(&args.dirs[0]);
    let result = match read_result(&dir) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("tapflow report: {e}");
            return exit::USAGE;
        }
    };
    if args.verify {
        return verify(&dir, &result);
    }
    if !result.complete {
        eprintln!(
            "tapflow report: run {} did not finish (result.json last written {}; the process \
             was killed or crashed, or it is still running): rendering what it observed",
            result.run_id, result.updated_at
        );
    }
    let o = outputs(&args, &args.dirs[0], &cwd);
    finish(&args, &result, &o)
}

fn verify(dir: &Path, result: &RunResult) -> i32 {
    let manifest: Manifest = match read_json(dir, "manifest.json") {
        Ok(m) => m,
        Err(e) => {
            eprintln!("tapflow report --verify: {e}");
            return exit::FAILURE;
        }
    };
    let problems = report::manifest::verify(dir, &manifest, Some(result));
    for p in &problems {
        println!("MISMATCH {p}");
    }
    if problems.is_empty() {
        println!(
            "verified: {} artifact(s) of run {} match manifest.json",
            manifest.artifacts.len(),
            result.run_id
        );
        exit::SUCCESS
    } else {
        println!(
            "{} problem(s) in {} artifact(s) of run {}",
            problems.len(),
            manifest.artifacts.len(),
            result.run_id
        );
        exit::FAILURE
    }
}

fn run_merge(args: &ReportArgs, out: &Path, cwd: &Path) -> i32 {
    let out_abs = report::write::absolute(&cwd.join(out));
    let mut shards = Vec::new();
    for d in &args.dirs {
        let abs = report::write::absolute(&cwd.join(d));
        if abs == out_abs {
            eprintln!(
                "tapflow report --merge: OUT ({}) must not be one of the run directories",
                out.display()
            );
            return exit::USAGE;
        }
        match read_result(&abs) {
            Ok(r) => shards.push((abs, d.display().to_string(), r)),
            Err(e) => {
                eprintln!("tapflow report --merge: {e}");
                return exit::USAGE;
            }
        }
    }
    let inputs: Vec<merge::ShardInput> = shards
        .iter()
        .map(|(_, label, r)| merge::ShardInput {
            dir: label.clone(),
            result: r.clone(),
        })
        .collect();
    let merged = match merge::merge(&inputs) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("tapflow report --merge: the shards cannot be merged:");
            for p in &e.0 {
                eprintln!("  {p}");
            }
            return exit::FAILURE;
        }
    };
    let o = outputs(args, out, cwd);
    if let Err(e) = o.create_run_dir() {
        eprintln!("tapflow report --merge: {e}");
        return exit::USAGE;
    }
    let sources: Vec<(PathBuf, &RunResult)> =
        shards.iter().map(|(p, _, r)| (p.clone(), r)).collect();
    match merge::copy_artifacts(&sources, &o.run_dir) {
        Ok(n) => println!(
            "merged {} shard(s): {} flow(s), {n} artifact(s)",
            shards.len(),
            merged.flows.len()
        ),
        Err(e) => {
            for p in &e.0 {
                eprintln!("tapflow report --merge: {p}");
            }
            return exit::FAILURE;
        }
    }
    match report::write::write_result(&merged, &o) {
        Ok(p) => println!("result: {}", p.display()),
        Err(e) => {
            eprintln!("tapflow report --merge: {e}");
            return exit::FAILURE;
        }
    }
    finish(args, &merged, &o)
}

/// Writes the reports, prints where, opens the HTML when asked.
fn finish(args: &ReportArgs, result: &RunResult, o: &Outputs) -> i32 {
    // The result was written masked; no secret is known here to mask again.
    let w = report::write_reports(result, o, &Masker::none());
    for e in &w.errors {
        eprintln!("tapflow report: {e}");
    }
    if let Some(p) = &w.junit {
        println!("junit: {}", p.display());
    }
    if let Some(p) = &w.manifest {
        println!("manifest: {}", p.display());
    }
    if let Some(p) = &w.html {
        println!("report: {}", p.display());
    }
    if args.github_summary {
        for line in report::github::annotations(result, &Masker::none()) {
            println!("{line}");
        }
        if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty())
            && let Err(e) = report::write::append_github_summary(
                result,
                Path::new(&path),
                w.html.as_deref(),
                &Masker::none(),
            )
        {
            eprintln!("tapflow report: {e}");
        }
    }
    if args.open
        && let Some(h) = &w.html
    {
        open_in_browser(h);
    }
    if w.errors.is_empty() {
        exit::SUCCESS
    } else {
        exit::FAILURE
    }
}

/// Opens a file with the desktop's opener (argv, no shell); says so when there is none.
fn open_in_browser(path: &Path) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    match std::process::Command::new(opener)
        .arg(path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        Ok(_) => {}
        Err(e) => eprintln!(
            "tapflow report --open: cannot start {opener} ({e}); open {} yourself",
            path.display()
        ),
    }
}
