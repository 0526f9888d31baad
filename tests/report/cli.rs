//! `tapflow run` and `tapflow report` end to end through the binary, on in-process simulated
//! devices: a run killed with `kill -9` mid-flow leaves a `result.json` that says so (issue 9,
//! item 5) and `tapflow report` renders it honestly; sharded runs merge into one report equal
//! in flows and verdicts to an unsharded run, and a missing or doubled shard is refused;
//! `--github-summary`, `--junit`, `--html`, `--no-html`; a flow's `logs_query` reads only this
//! flow's lines (issue 12, item 5).

use crate::common::cli;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The binary, from `dir`, without this process's `GITHUB_STEP_SUMMARY`.
fn no_step_summary(dir: &Path) -> Command {
    let mut c = cli::command(dir);
    c.env_remove("GITHUB_STEP_SUMMARY");
    c
}

/// Polls `cond` until it holds or `limit` passes (a hang guard, not a timing assertion).
fn wait_until(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Issue 9, item 5. Seen: after `kill -9`, result.json said `"status":"passed"`,
/// `"interrupted":false`, with a `finished_at` and without the flow in progress.
#[test]
fn r9_a_killed_run_says_it_did_not_finish() {
    let dir = tempfile::tempdir().unwrap();
    // As many steps as the long flow: a split run starts the flows with most steps first,
    // plan order among equals (`src/run/schedule.rs`), so this one runs first.
    cli::write(
        dir.path(),
        "flows/a_first.yaml",
        "name: First\nsteps:\n  - press_key: Home\n  - press_key: Home\n",
    );
    cli::write(
        dir.path(),
        "flows/b_long.yaml",
        "name: Long wait
app: com.tapflow.demo
steps:
  - run_app: com.tapflow.demo
  - wait_for_element: {text: Never shown, timeout_ms: 60000}
",
    );
    cli::write(
        dir.path(),
        "flows/c_later.yaml",
        "name: Later\nsteps:\n  - press_key: Home\n",
    );
    let run_dir = dir.path().join("run");
    let mut child = no_step_summary(dir.path())
        .args(["run", "flows/", "--sim", "1"])
        .args(["--sim-latency", "none", "--report-dir"])
        .arg(&run_dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let result = run_dir.join("result.json");
    // Wait until the file shows the long flow running and its first step done.
    let reached = wait_until(Duration::from_secs(60), || {
        std::fs::read_to_string(&result)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .is_some_and(|r| {
                r["flows"][1]["status"] == "running"
                    && r["flows"][1]["steps"][0]["status"] == "passed"
            })
    });
    assert!(reached, "the run never reached the long wait");
    let killed = Command::new("kill")
        .args(["-9", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), None, "killed by a signal");

    let r = cli::json(&result);
    assert_eq!(r["status"], "running", "{r:#}");
    assert_eq!(r["complete"], false);
    assert_eq!(r["interrupted"], false);
    assert!(
        r.get("finished_at").is_none(),
        "a killed run has no end: {r:#}"
    );
    assert!(r["updated_at"].as_str().is_some());
    assert_eq!(r["flows"][0]["status"], "passed");
    assert_eq!(r["flows"][1]["status"], "running");
    assert_eq!(r["flows"][1]["steps"][0]["tool"], "run_app");
    assert_eq!(r["flows"][2]["status"], "not_run");
    assert!(
        r["flows"][2]["reason"]
            .as_str()
            .unwrap()
            .contains("not started")
    );
    assert_eq!(r["totals"]["running"], 1);

    // `tapflow report` renders it, and says what it is.
    let out = no_step_summary(dir.path())
        .args(["report"])
        .arg(&run_dir)
        .output()
        .unwrap();
    let all = cli::text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("did not finish"), "{all}");
    let html = std::fs::read_to_string(run_dir.join("report.html")).unwrap();
    assert!(html.contains("Did not finish."), "the HTML says it");
    assert!(html.contains("running when the run stopped"));
    let junit = std::fs::read_to_string(run_dir.join("junit.xml")).unwrap();
    assert!(junit.contains(r#"type="RUN_STOPPED""#), "{junit}");
    // The result itself is not rewritten by a report.
    assert_eq!(cli::json(&result), r);
}

fn shard_flows(dir: &Path) {
    for f in [
        "login.yaml",
        "settings_dialog.yaml",
        "items_scroll.yaml",
        "unicode_input.yaml",
        "subflows/login.yaml",
    ] {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("flows").join(f);
        cli::write(
            dir,
            &format!("flows/{f}"),
            std::fs::read_to_string(src).unwrap(),
        );
    }
    cli::write(
        dir,
        "flows/broken.yaml",
        "name: Broken on purpose
app: com.tapflow.demo
clean_state: true
steps:
  - assert_visible: {text: Not on this screen, timeout_ms: 300}
",
    );
    cli::write(
        dir,
        "flows/slow_tagged.yaml",
        "name: Tagged slow\ntags: [slow]\nsteps:\n  - press_key: Home\n",
    );
}

fn run_shard(dir: &Path, shard: Option<&str>, out: &str) -> Output {
    let mut c = no_step_summary(dir);
    c.args(["run", "flows/", "--sim", "1", "--sim-latency", "none"])
        .args(["--exclude-tags", "slow", "--report-dir", out]);
    if let Some(s) = shard {
        c.args(["--shard", s]);
    }
    c.output().unwrap()
}

fn verdicts(r: &Value) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = r["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["id"].as_str().unwrap().to_string(),
                f["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn shards_merge_into_the_same_report_as_one_run() {
    let dir = tempfile::tempdir().unwrap();
    shard_flows(dir.path());
    let whole = run_shard(dir.path(), None, "whole");
    assert_eq!(whole.status.code(), Some(1), "{}", cli::text(&whole));
    for i in 1..=3 {
        let out = run_shard(dir.path(), Some(&format!("{i}/3")), &format!("shard-{i}"));
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{}",
            cli::text(&out)
        );
    }
    let out = no_step_summary(dir.path())
        .args([
            "report", "--merge", "merged", "shard-1", "shard-2", "shard-3",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", cli::text(&out));
    let merged = cli::json(&dir.path().join("merged/result.json"));
    let single = cli::json(&dir.path().join("whole/result.json"));
    assert_eq!(verdicts(&merged), verdicts(&single));
    assert_eq!(merged["status"], single["status"]);
    assert_eq!(merged["totals"]["flows"], single["totals"]["flows"]);
    assert_eq!(merged["merged_from"].as_array().unwrap().len(), 3);
    // One JUnit, one HTML, one manifest, with every artifact path valid in OUT.
    for f in ["junit.xml", "report.html", "manifest.json"] {
        assert!(dir.path().join("merged").join(f).is_file(), "{f}");
    }
    let verify = no_step_summary(dir.path())
        .args(["report", "--verify", "merged"])
        .output()
        .unwrap();
    assert_eq!(verify.status.code(), Some(0), "{}", cli::text(&verify));
    let manifest = cli::json(&dir.path().join("merged/manifest.json"));
    assert!(
        !manifest["artifacts"].as_array().unwrap().is_empty(),
        "the broken flow's evidence was merged"
    );
    let junit = std::fs::read_to_string(dir.path().join("merged/junit.xml")).unwrap();
    assert_eq!(junit.matches("<testcase ").count(), verdicts(&single).len());

    // A missing shard, or one given twice, is refused with the flows named.
    let out = no_step_summary(dir.path())
        .args(["report", "--merge", "bad", "shard-1", "shard-2"])
        .output()
        .unwrap();
    let all = cli::text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("no shard ran"), "{all}");
    let out = no_step_summary(dir.path())
        .args([
            "report", "--merge", "bad", "shard-1", "shard-2", "shard-3", "shard-3",
        ])
        .output()
        .unwrap();
    let all = cli::text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("exactly one"), "{all}");
    assert!(!dir.path().join("bad/result.json").exists());
}

#[test]
fn github_summary_and_annotations_and_report_paths() {
    let dir = tempfile::tempdir().unwrap();
    cli::write(
        dir.path(),
        "flows/fails.yaml",
        "name: \"Fails, on: purpose\"
app: com.tapflow.demo
clean_state: true
steps:
  - assert_visible: {text: \"50% done\", timeout_ms: 300}
",
    );
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "earlier step's summary\n").unwrap();
    let out = no_step_summary(dir.path())
        .args(["run", "flows/", "--sim", "1", "--sim-latency", "none"])
        .args(["--report-dir", "run", "--github-summary"])
        .args(["--junit", "ci/junit.xml", "--html", "ci/html/index.html"])
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    let all = cli::text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let ann = stdout
        .lines()
        .find(|l| l.starts_with("::error "))
        .unwrap_or_else(|| panic!("no annotation: {all}"));
    assert!(
        ann.starts_with("::error file=flows/fails.yaml,line=5,col=5,title=tapflow%3A Fails%2C on%3A purpose failed on "),
        "{ann}"
    );
    assert!(ann.contains("50%25 done"), "{ann}");
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md.starts_with("earlier step's summary\n"),
        "appended, not replaced"
    );
    assert!(md.contains("## tapflow run"), "{md}");
    // Every text of the summary is a code span (nothing in it renders as Markdown).
    assert!(md.contains("| `Fails, on: purpose` |"), "{md}");
    // --junit and --html elsewhere: their artifact links point back into the run directory.
    let junit = std::fs::read_to_string(dir.path().join("ci/junit.xml")).unwrap();
    assert!(junit.contains("[[ATTACHMENT|../run/artifacts/"), "{junit}");
    let html = std::fs::read_to_string(dir.path().join("ci/html/index.html")).unwrap();
    assert!(
        html.contains("src=\"../../run/artifacts/") || html.contains("href=\"../../run/artifacts/")
    );
    assert!(all.contains("report: "), "{all}");
    assert!(!dir.path().join("run/report.html").exists());

    // --no-html writes none.
    let out = no_step_summary(dir.path())
        .args(["run", "flows/", "--sim", "1", "--sim-latency", "none"])
        .args(["--report-dir", "run2", "--no-html"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(dir.path().join("run2/junit.xml").is_file());
    assert!(!dir.path().join("run2/report.html").exists());
}

/// Issue 12, item 5. Seen: `logs_query` markers in a flow matched `LOGIN_SUCCESS` lines logged
/// by earlier runs on the same device. In a flow, the default window starts at the flow's start;
/// a flow that names a window keeps it.
#[test]
fn r12_a_flows_logs_query_reads_only_this_flows_lines() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    cli::write(
        dir.path(),
        "flows/subflows/login.yaml",
        std::fs::read_to_string(root.join("flows/subflows/login.yaml")).unwrap(),
    );
    cli::write(
        dir.path(),
        "flows/a_logs_in.yaml",
        "name: Logs in
app: com.tapflow.demo
clean_state: true
env:
  USER: earlier
  PASSWORD: {default: pw-earlier, secret: true}
steps:
  - run_flow: {file: subflows/login.yaml}
",
    );
    cli::write(
        dir.path(),
        "flows/b_later.yaml",
        "name: Later flow, no login
app: com.tapflow.demo
clean_state: true
steps:
  - logs_query: {mode: markers, marker_keywords: [LOGIN_SUCCESS], realtime_wait_ms: 0}
    expect: {matched: false}
  - logs_query: {mode: markers, marker_keywords: [LOGIN_SUCCESS], realtime_wait_ms: 0, seconds: 600}
    expect: {matched: true}
",
    );
    let out = cli::run_on_one_sim(
        no_step_summary(dir.path()),
        &["flows/"],
        &[],
        Path::new("run"),
    );
    let all = cli::text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    let r = cli::json(&dir.path().join("run/result.json"));
    let later = &r["flows"][1];
    assert_eq!(later["id"], "b_later");
    // The window the flow gave the tool is recorded with the step.
    assert!(
        later["steps"][0]["args"]["start_time"].as_str().is_some(),
        "{later:#}"
    );
    assert!(later["steps"][1]["args"]["start_time"].is_null());
}
