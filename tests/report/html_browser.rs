//! The HTML report in a real browser: a `tapflow run` on a simulated device (the example flows
//! plus one that fails on purpose, screenshots of every step) writes `report.html`, which headless
//! Chromium (Debian's, driven by playwright-core: tests/report_browser/check.cjs) opens from
//! disk. The page loads with no console error and no network request, the DOM shows every flow
//! and its steps, the failed step shows its screenshot with the target outlined and its source
//! line marked, the keyboard reaches every flow, images have alternative text, it fits a phone
//! screen without sideways scrolling, and its screenshots are not blank.
//!
//! Needs scripts/test-deps.d/30-chromium.sh (scripts/test runs it).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::cli;

const FAILING: &str = "name: Login button count is wrong on purpose
app: com.tapflow.demo
tags: [demo]
clean_state: true
steps:
  - assert_visible: {element_id: username, timeout_ms: 5000}
  - find_elements: {element_id: login}
    expect: {count: 2}
";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn browser_deps() -> PathBuf {
    let modules = root().join(".test-deps/browser/node_modules");
    assert!(
        Path::new("/usr/bin/chromium").exists() && modules.join("playwright-core").is_dir(),
        "Chromium or playwright-core is missing: run scripts/test-deps.d/30-chromium.sh \
         (scripts/test does)"
    );
    modules
}

/// Share of pixels that differ from the most common colour.
fn non_background_share(png: &Path) -> f64 {
    let img = image::open(png)
        .unwrap_or_else(|e| panic!("{}: {e}", png.display()))
        .to_rgb8();
    let mut counts = std::collections::HashMap::new();
    for p in img.pixels() {
        *counts.entry(p.0).or_insert(0u64) += 1;
    }
    let total = u64::from(img.width()) * u64::from(img.height());
    let most = counts.values().copied().max().unwrap_or(0);
    (total - most) as f64 / total as f64
}

#[test]
fn the_html_report_works_in_headless_chromium() {
    let modules = browser_deps();
    let dir = tempfile::tempdir().unwrap();
    let flows = dir.path().join("flows");
    std::fs::create_dir_all(flows.join("subflows")).unwrap();
    for f in ["login.yaml", "settings_dialog.yaml", "subflows/login.yaml"] {
        std::fs::copy(root().join("flows").join(f), flows.join(f)).unwrap();
    }
    std::fs::write(flows.join("wrong_count.yaml"), FAILING).unwrap();
    let run_dir = dir.path().join("run");
    let out = cli::tapflow()
        .current_dir(dir.path())
        .args(["run", "flows/", "--sim", "1", "--sim-latency", "none"])
        .args(["--screenshots", "every-step", "--report-dir"])
        .arg(&run_dir)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{text}");
    let html = run_dir.join("report.html");
    assert!(
        text.contains(&format!("report: {}", html.display())),
        "{text}"
    );

    let shots = tempfile::tempdir().unwrap();
    let out = Command::new("node")
        .env("NODE_PATH", &modules)
        .arg(root().join("tests/report_browser/check.cjs"))
        .arg(&html)
        .arg(shots.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(seen["console_errors"], Value::Array(vec![]), "{stdout}");
    assert_eq!(seen["page_errors"], Value::Array(vec![]), "{stdout}");
    assert_eq!(
        seen["network"],
        Value::Array(vec![]),
        "no network request: {stdout}"
    );
    let dom = &seen["dom"];
    assert_eq!(dom["scripts"], 0);
    assert_eq!(dom["external"], Value::Array(vec![]));
    assert_eq!(dom["lang"], "en");
    assert_eq!(dom["landmarks"]["main"], true);
    assert_eq!(dom["imgsWithoutAlt"], 0);
    assert_eq!(dom["svgsUnlabelled"], 0);
    assert_eq!(dom["brokenImages"], Value::Array(vec![]), "{stdout}");

    // Every flow with its steps, as the run recorded them.
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("result.json")).unwrap())
            .unwrap();
    let flows = dom["flows"].as_array().unwrap();
    assert_eq!(flows.len(), result["flows"].as_array().unwrap().len());
    for (f, r) in flows.iter().zip(result["flows"].as_array().unwrap()) {
        assert!(
            f["name"]
                .as_str()
                .unwrap()
                .contains(r["name"].as_str().unwrap()),
            "{f}"
        );
        assert_eq!(f["status"], r["status"], "{f}");
        assert!(!f["steps"].as_array().unwrap().is_empty(), "{f}");
    }
    let failed = flows
        .iter()
        .find(|f| f["status"] == "failed")
        .expect("the failing flow");
    assert_eq!(failed["details"], 1, "{failed}");
    assert_eq!(failed["screenshots"], 1, "{failed}");
    assert_eq!(
        failed["targets"], 1,
        "the target's bounds are drawn: {failed}"
    );
    assert_eq!(failed["source_marked"], 1, "{failed}");
    let steps = failed["steps"].as_array().unwrap();
    assert!(
        steps
            .iter()
            .any(|s| s["title"].as_str().unwrap_or("").contains("find_elements")),
        "{failed}"
    );

    // Keyboard and phone.
    assert_eq!(seen["first_focus"]["tag"], "A", "{stdout}");
    assert!(
        seen["first_focus"]["text"]
            .as_str()
            .unwrap()
            .contains("Skip")
    );
    assert_eq!(
        seen["summaries_reached_by_tab"], dom["summaries"],
        "Tab reaches every flow's steps: {stdout}"
    );
    assert_eq!(seen["enter_toggles"], true);
    let phone = &seen["phone"];
    assert!(
        phone["scrollWidth"].as_u64().unwrap() <= phone["innerWidth"].as_u64().unwrap(),
        "the page scrolls sideways on a phone: {phone}"
    );

    for png in ["desktop.png", "phone.png"] {
        let share = non_background_share(&shots.path().join(png));
        assert!(share > 0.05, "{png} is (nearly) blank: {share}");
    }
}
