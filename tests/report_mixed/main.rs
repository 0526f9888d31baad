//! The reports of one run with passes, failures, a flaky retry, a skipped flow, a device lost
//! mid-run and hostile log content (tests/common/mixed_run.rs): insta snapshots of
//! `result.json` and `junit.xml` (times and hashes normalised), the JUnit file checked by real
//! consumers (PyPI `xmlschema` against junit-10.xsd, `junitparser`), every pass of a block
//! keeping its own evidence (issue 12, "Seen"), `tapflow report` rendering the same files from
//! `result.json` alone, and `--verify` catching a changed artifact.
//!
//! A binary of its own, as before the tests were grouped: the snapshots hold counts of device
//! round trips made while a step waits in real time, which fewer polls reach when other test
//! modules (the browser, the binary's runs) load the same process and CPU.

#[path = "../common/mod.rs"]
mod common;

use common::cli;
use common::mixed_run;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tapflow::run::Status;

fn shared() -> &'static (PathBuf, tapflow::run::RunResult) {
    mixed_run::shared_run()
}

/// Times, durations and content hashes vary between runs; everything else must not.
fn normalise_text(s: &str) -> String {
    let iso =
        regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)").unwrap();
    let hilog = regex::Regex::new(r"\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}").unwrap();
    let dur = regex::Regex::new(r"\b\d+(\.\d+)? ?(ms|s)\b").unwrap();
    let time_attr = regex::Regex::new(r#"time="[0-9.,]+""#).unwrap();
    let s = iso.replace_all(s, "<time>");
    let s = hilog.replace_all(&s, "<hilog-time>");
    let s = time_attr.replace_all(&s, r#"time="<s>""#);
    dur.replace_all(&s, "<dur>").into_owned()
}

fn normalise_json(v: &mut Value) {
    match v {
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                if k.ends_with("_ms") && x.is_number() && k != "timeout_ms" {
                    *x = Value::from(0);
                } else if k == "sha256" || k == "tapflow_version" {
                    *x = Value::String(format!("<{k}>"));
                } else {
                    normalise_json(x);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(normalise_json),
        Value::String(s) => *s = normalise_text(s),
        _ => {}
    }
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn the_run_has_every_kind_of_outcome() {
    let (_, r) = shared();
    let by_id = |id: &str| r.flows.iter().find(|f| f.id == id).unwrap();
    assert_eq!(by_id("a_pass").status, Status::Passed);
    let flaky = by_id("b_flaky");
    assert_eq!(flaky.status, Status::Passed);
    assert_eq!(flaky.steps[0].attempts.len(), 2, "{flaky:#?}");
    assert_eq!(by_id("c_hostile").status, Status::Failed);
    let lost = by_id("d_lost");
    assert_eq!(lost.status, Status::Failed);
    assert!(
        lost.error
            .as_ref()
            .unwrap()
            .code
            .as_str()
            .starts_with("DEVICE_"),
        "{lost:#?}"
    );
    assert_eq!(by_id("e_passes").status, Status::Passed);
    let never = by_id("f_never");
    assert_eq!(never.status, Status::NotRun);
    assert!(never.reason.as_deref().unwrap().contains("was lost"));
    assert_eq!(by_id("g_skipped").status, Status::Skipped);
    assert!(r.complete && !r.interrupted);
    assert_eq!(r.status, Status::Failed);
}

#[test]
fn result_json_snapshot() {
    let (dir, _) = shared();
    let mut v: Value = serde_json::from_str(&read(&dir.join("result.json"))).unwrap();
    normalise_json(&mut v);
    insta::assert_snapshot!("result_json", serde_json::to_string_pretty(&v).unwrap());
}

#[test]
fn junit_snapshot() {
    let (dir, _) = shared();
    insta::assert_snapshot!("junit_xml", normalise_text(&read(&dir.join("junit.xml"))));
}

#[test]
fn hostile_logs_are_kept_whole_in_the_file_and_clipped_in_reports() {
    let (dir, r) = shared();
    let f = r.flows.iter().find(|f| f.id == "c_hostile").unwrap();
    let failed = &f.steps[1];
    assert_eq!(failed.status, Status::Failed);
    let hilog = failed.evidence.iter().find(|e| e.kind == "hilog").unwrap();
    assert_eq!(hilog.lines, Some(10_000));
    let file = read(&dir.join(&hilog.path));
    assert_eq!(file.lines().count(), 10_000);
    // The evidence file keeps what the device printed (hilog's own colour escapes aside).
    assert!(file.contains("]]>") && file.contains('\u{0}') && file.contains('\u{fffe}'));
    let excerpt = hilog.excerpt.as_deref().unwrap();
    assert!(
        excerpt.starts_with("… 9800 earlier lines"),
        "{}",
        &excerpt[..100]
    );
    // The source of the failing line, marked.
    assert!(
        failed.source.iter().any(|l| l.marked && l.line == 4),
        "{:?}",
        failed.source
    );
    let junit = read(&dir.join("junit.xml"));
    for bad in ['\u{1b}', '\u{0}', '\u{7}', '\u{fffe}'] {
        assert!(!junit.contains(bad), "junit.xml holds {bad:?}");
    }
    assert!(!junit.contains("]]>"), "a literal ]]> is escaped as ]]&gt;");
    let html = read(&dir.join("report.html"));
    for bad in ['\u{1b}', '\u{0}', '\u{fffe}'] {
        assert!(!html.contains(bad), "report.html holds {bad:?}");
    }
    assert!(!html.contains("<tag>"), "log text is escaped in HTML");
    // What to try next travels with the failure: result.json, JUnit and HTML.
    assert!(failed.error.as_ref().and_then(|e| e.help()).is_some());
    let result = read(&dir.join("result.json"));
    assert!(
        result.contains("\"help\": "),
        "result.json carries the help line"
    );
    assert!(junit.contains("help: check the near misses"), "{junit}");
    assert!(
        html.contains(
            "<p class=\"help\"><span class=\"sr-only\">Help: </span>help: check the near misses"
        ),
        "report.html shows the help line"
    );
}

/// Issue 12, Seen: a failing step inside `repeat` wrote its evidence under one name in every
/// pass; the manifest listed the same path several times and the earlier hashes no longer
/// matched. Every pass now keeps its own files.
#[test]
fn every_pass_of_a_block_keeps_its_own_evidence() {
    let (dir, r) = shared();
    let f = r.flows.iter().find(|f| f.id == "e_passes").unwrap();
    let passes = &f.steps[0].children;
    assert_eq!(passes.len(), 3);
    let mut paths = Vec::new();
    for (i, pass) in passes.iter().enumerate() {
        let step = &pass.children[0];
        assert_eq!(step.status, Status::Failed);
        let shot = step
            .evidence
            .iter()
            .find(|e| e.kind == "screenshot")
            .unwrap();
        assert_eq!(shot.pass.as_deref(), Some((i + 1).to_string().as_str()));
        assert!(
            shot.path.contains(&format!(".pass-{}.", i + 1)),
            "{}",
            shot.path
        );
        paths.extend(step.evidence.iter().map(|e| e.path.clone()));
    }
    let unique: std::collections::BTreeSet<_> = paths.iter().collect();
    assert_eq!(unique.len(), paths.len(), "{paths:?}");
    let manifest: Value = serde_json::from_str(&read(&dir.join("manifest.json"))).unwrap();
    let listed: Vec<&str> = manifest["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["path"].as_str().unwrap())
        .collect();
    let unique: std::collections::BTreeSet<_> = listed.iter().collect();
    assert_eq!(
        unique.len(),
        listed.len(),
        "the manifest lists a path twice"
    );
    let out = cli::assert_command(cli::repo())
        .args(["report", "--verify"])
        .arg(dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn copy_dir(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from) {
        let e = e.unwrap();
        let rel = e.path().strip_prefix(from).unwrap();
        let dest = to.join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

#[test]
fn tapflow_report_renders_the_same_files_from_result_json_alone() {
    let (dir, _) = shared();
    let copy = tempfile::tempdir().unwrap();
    copy_dir(dir, copy.path());
    for f in ["junit.xml", "report.html", "manifest.json"] {
        std::fs::remove_file(copy.path().join(f)).unwrap();
    }
    let out = cli::assert_command(cli::repo())
        .arg("report")
        .arg(copy.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    for f in ["junit.xml", "report.html", "manifest.json"] {
        assert_eq!(
            read(&copy.path().join(f)),
            read(&dir.join(f)),
            "{f} differs when rendered again"
        );
    }
    // Reports written elsewhere point back into the run directory.
    let elsewhere = tempfile::tempdir().unwrap();
    let junit = elsewhere.path().join("ci/junit.xml");
    let out = cli::assert_command(cli::repo())
        .arg("report")
        .arg(copy.path())
        .arg("--junit")
        .arg(&junit)
        .arg("--no-html")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = read(&junit);
    let att = regex::Regex::new(r"\[\[ATTACHMENT\|([^\]]+)\]\]").unwrap();
    let mut n = 0;
    for c in att.captures_iter(&text) {
        let p = junit.parent().unwrap().join(&c[1]);
        assert!(p.is_file(), "{} does not resolve", &c[1]);
        n += 1;
    }
    assert!(n > 0);
}

#[test]
fn verify_catches_a_changed_or_missing_artifact() {
    let (dir, r) = shared();
    let copy = tempfile::tempdir().unwrap();
    copy_dir(dir, copy.path());
    let all: Vec<String> = r
        .flows
        .iter()
        .flat_map(|f| f.steps.iter())
        .flat_map(|s| s.evidence.iter().map(|e| e.path.clone()))
        .collect();
    std::fs::write(copy.path().join(&all[0]), b"tampered").unwrap();
    std::fs::remove_file(copy.path().join(&all[1])).unwrap();
    let out = cli::assert_command(cli::repo())
        .args(["report", "--verify"])
        .arg(copy.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!("MISMATCH {}: SHA-256", all[0])),
        "{text}"
    );
    assert!(
        text.contains(&format!("MISMATCH {}: missing", all[1])),
        "{text}"
    );
}

/// The venv with the pinned consumers, from scripts/test-deps.d/20-reports-python.sh.
fn python() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(".test-deps/reports-venv/bin/python");
    assert!(
        p.exists(),
        "{} is missing: run scripts/test-deps.d/20-reports-python.sh (scripts/test does)",
        p.display()
    );
    p
}

#[test]
fn junit_validates_against_junit_10_xsd_and_junitparser_reads_it() {
    let (dir, r) = shared();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(python())
        .arg(root.join("tests/report_consumers/check_junit.py"))
        .arg(dir.join("junit.xml"))
        .arg(root.join("tests/fixtures/junit/junit-10.xsd"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_str(&stdout).unwrap();
    // junitparser sees every flow, with the verdict the run gave it.
    let cases = seen["cases"].as_array().unwrap();
    assert_eq!(cases.len(), r.flows.len());
    let case = |classname: &str| {
        cases
            .iter()
            .find(|c| c["classname"] == classname)
            .unwrap_or_else(|| panic!("{classname} missing: {stdout}"))
    };
    assert_eq!(case("a_pass")["result"], "passed");
    assert_eq!(case("b_flaky")["result"], "passed");
    assert_eq!(case("b_flaky")["flaky"], 1);
    assert_eq!(case("c_hostile")["result"], "failure");
    assert_eq!(case("c_hostile")["type"], "ELEMENT_NOT_FOUND");
    assert!(
        case("c_hostile")["message"]
            .as_str()
            .unwrap()
            .contains("c_hostile.2"),
        "the failure names the failing step"
    );
    assert!(
        case("c_hostile")["message"]
            .as_str()
            .unwrap()
            .contains("flows/c_hostile.yaml:4"),
        "and its file:line"
    );
    assert!(case("c_hostile")["attachments"].as_array().unwrap().len() >= 2);
    assert_eq!(case("d_lost")["result"], "error");
    assert_eq!(case("e_passes")["result"], "passed");
    assert_eq!(case("f_never")["result"], "skipped");
    assert!(
        case("f_never")["message"]
            .as_str()
            .unwrap()
            .contains("was lost")
    );
    assert_eq!(case("g_skipped")["result"], "skipped");
    let props = &seen["suites"][0]["properties"];
    for p in [
        "device.serial",
        "device.platform",
        "device.model",
        "flow.file",
        "flow.tags",
    ] {
        assert!(
            props.get(p).is_some(),
            "suite property {p} missing: {props}"
        );
    }
}
