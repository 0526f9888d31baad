//! The roots are configuration, read once by the CLI. Read roots: the project directory, the
//! output roots, `[paths] allowed_roots` of `tapflow.toml` (relative to the file) and
//! `TAPFLOW_ALLOWED_ROOTS`. Output (write) roots: the reports, screenshots and logs directories,
//! `[paths] output_roots` and `TAPFLOW_OUTPUT_ROOTS`. Never the system temp directory by
//! default. The run directory (`--report-dir`, `TAPFLOW_REPORTS_DIR`, `report_dir`) is created
//! through the policy. Tool calls need no device here: `logs_query` with inline logs writes its
//! `save_path`.

use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;
use serde_json::{Value, json};

use crate::common::cli;

fn isolated(dir: &Path) -> Command {
    let mut c = cli::assert_command(dir);
    // A home beside the project: one inside it would make the project too wide to be a root.
    c.env("HOME", dir.parent().unwrap().join("home"))
        .env_remove("TAPFLOW_ALLOWED_ROOTS")
        .env_remove("TAPFLOW_REPORTS_DIR")
        .env_remove("TAPFLOW_SCREENSHOT_DIR")
        .env_remove("TAPFLOW_LOGS_DIR")
        .env_remove("TAPFLOW_OUTPUT_ROOTS")
        .timeout(Duration::from_secs(120));
    c
}

/// `tapflow tool logs_query` saving inline logs to `save_path`: the envelope.
fn save(dir: &Path, save_path: &str, env: &[(&str, &str)]) -> Value {
    let args = json!({"logs": ["01-23 21:05:00.000 1 1 E A0/t: x"], "save_path": save_path});
    let mut c = isolated(dir);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c
        .args(["tool", "logs_query", &args.to_string()])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn code(v: &Value) -> Option<&str> {
    v["structuredContent"]["error"]["code"].as_str()
}

fn roots_of(v: &Value) -> Vec<&str> {
    v["structuredContent"]["error"]["details"]["allowed_roots"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect()
}

#[test]
fn roots_come_from_the_project_file_and_the_environment() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("project");
    let shared = tmp.path().join("shared");
    let extra = tmp.path().join("extra");
    for d in [&project, &shared, &extra] {
        std::fs::create_dir_all(d).unwrap();
    }
    // Snapshots go under the output roots (<project>/logs by default); the project itself is
    // read, not written.
    assert_eq!(code(&save(&project, "logs/snap.log", &[])), None);
    assert!(project.join("logs/snap.log").is_file());
    let v = save(&project, "snap.log", &[]);
    assert_eq!(code(&v), Some("PATH_NOT_ALLOWED"));
    let roots = roots_of(&v);
    for out in ["reports", "screenshots", "logs"] {
        assert!(
            roots.contains(&project.join(out).to_str().unwrap()),
            "{roots:?}"
        );
    }
    assert!(!roots.contains(&project.to_str().unwrap()), "{roots:?}");
    // Never the system temp directory (the project itself lives under it here, so look for
    // the temp directory itself among the roots).
    let temp = std::env::temp_dir();
    assert!(!roots.iter().any(|r| Path::new(r) == temp), "{roots:?}");
    assert_eq!(
        code(&save(&project, "../shared/a.log", &[])),
        Some("PATH_NOT_ALLOWED")
    );

    // tapflow.toml adds output roots, relative to its directory; allowed_roots are read only.
    std::fs::write(
        project.join("tapflow.toml"),
        "[paths]\noutput_roots = [\"../shared\"]\nallowed_roots = [\"../extra\"]\n",
    )
    .unwrap();
    assert_eq!(code(&save(&project, "../shared/a.log", &[])), None);
    assert!(shared.join("a.log").is_file());
    assert_eq!(
        code(&save(&project, "../extra/b.log", &[])),
        Some("PATH_NOT_ALLOWED")
    );
    std::fs::write(extra.join("in.log"), "01-23 21:05:00.000 1 1 E A0/t: y\n").unwrap();
    let args = json!({"input_file": "../extra/in.log"});
    let out = isolated(&project)
        .args(["tool", "logs_query", &args.to_string()])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(code(&v), None, "{v}");
    // TAPFLOW_OUTPUT_ROOTS adds more.
    let extra_s = extra.display().to_string();
    assert_eq!(
        code(&save(
            &project,
            "../extra/b.log",
            &[("TAPFLOW_OUTPUT_ROOTS", &extra_s)]
        )),
        None
    );
    // A bad project file is a usage error naming the key.
    std::fs::write(project.join("tapflow.toml"), "[paths]\nallowed_root = []\n").unwrap();
    let out = isolated(&project)
        .args(["tool", "logs_query", "{\"logs\":[\"x\"]}"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("did you mean `allowed_roots`"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const FLOW: &str = "name: Back\nsteps:\n  - press_key: Back\n";

fn run(dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut c = isolated(dir);
    for (k, v) in env {
        c.env(k, v);
    }
    c.args(["run", "back.yaml", "--sim", "1", "--sim-latency", "none"])
        .args(extra)
        .output()
        .unwrap()
}

fn text(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn the_run_directory_is_created_through_the_policy() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("back.yaml"), FLOW).unwrap();

    // Default: <project>/reports/<run id>.
    let o = run(&project, &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let runs: Vec<_> = std::fs::read_dir(project.join("reports"))
        .unwrap()
        .collect();
    assert_eq!(runs.len(), 1);

    // TAPFLOW_REPORTS_DIR is the parent of run directories (and a root).
    let ci = tmp.path().join("ci-reports");
    let o = run(
        &project,
        &[],
        &[("TAPFLOW_REPORTS_DIR", ci.to_str().unwrap())],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let run_dir = std::fs::read_dir(&ci)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert!(run_dir.join("result.json").is_file());

    // --report-dir names the run directory itself, anywhere the operator wants it.
    let named = tmp.path().join("elsewhere/run-1");
    let o = run(&project, &["--report-dir", named.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(named.join("result.json").is_file());

    // A file where the directory should be is a usage error, before any device is used.
    let file = project.join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let o = run(&project, &["--report-dir", "not-a-dir/run"], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not a directory"), "{}", text(&o));
}
