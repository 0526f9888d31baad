//! Hostile flow files through the real `tapflow` binary (issue 9, "bad input never crashes or
//! explodes"; issue 11's YAML points): each test reproduces what was seen on `main` and checks
//! the exit code and the shape of what is printed.
//!
//! - a diagnostic past column 65 535 panicked inside miette (exit 101) in `validate` and `run`;
//! - 50 000 diagnostics on one line took 42 s and 4 GB;
//! - an alias to a number used as text typed `*code` on the device;
//! - `.inf` / `-.Inf` / `.nan` were syntax errors; a second document named a parser function.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

use crate::common::cli;

fn clean_env(dir: &Path) -> Command {
    let mut cmd = cli::assert_command(dir);
    // No project file or TAPFLOW_* variable of the machine may change the outcome.
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default());
    cmd
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

/// A one-line flow whose unknown step `clik` sits past column 70 000.
fn wide_flow() -> (String, usize) {
    let text = format!(
        "steps: [{{input_text: {{element_id: a, text: \"{}\"}}}}, {{clik: Login}}]\n",
        "a".repeat(70_000)
    );
    let column = text.find("clik").unwrap() + 1;
    (text, column)
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

fn json(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Character column of `pat` in `line`.
fn col(line: &str, pat: &str) -> usize {
    line[..line.find(pat).unwrap()].chars().count()
}

#[test]
fn a_diagnostic_past_column_65535_prints_a_clipped_excerpt() {
    let dir = tempfile::tempdir().unwrap();
    let (text, column) = wide_flow();
    assert!(column > 70_000);
    write(dir.path(), "wide.yaml", &text);

    let out = clean_env(dir.path())
        .args(["validate", "wide.yaml"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.starts_with("error[unknown-step]: unknown step `clik`\n"),
        "{err}"
    );
    assert!(err.contains(&format!("╭─[wide.yaml:1:{column}]")), "{err}");
    // The excerpt is the neighbourhood of the column, and the caret is under `clik`.
    let line = err.lines().find(|l| l.contains("{clik: Login}]")).unwrap();
    assert!(line.contains(" │ …aaa"), "{line}");
    assert!(line.chars().count() < 150, "{line}");
    let caret = err.lines().find(|l| l.contains('┬')).unwrap();
    assert_eq!(col(line, "clik"), col(caret, "──┬─"), "{err}");
    assert!(err.ends_with("1 error(s), 0 warning(s)\n"), "{err}");
    assert!(err.len() < 2_000, "{err}");

    let out = clean_env(dir.path())
        .args(["validate", "--format", "json", "wide.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let j = json(&out);
    let d = &j["diagnostics"][0];
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(1), Some(column as u64))
    );
    assert_eq!(d["end_column"].as_u64(), Some(column as u64 + 4));
    assert_eq!(d["text"], "clik");
}

#[test]
fn run_prints_the_same_clipped_diagnostic_instead_of_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let (text, column) = wide_flow();
    write(dir.path(), "wide.yaml", &text);
    let out = clean_env(dir.path())
        .args(["run", "wide.yaml", "--sim", "1"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains(&format!("╭─[wide.yaml:1:{column}]")), "{err}");
}

/// 50 000 unknown steps on one line.
fn many_flow() -> String {
    format!("steps: [{}]\n", vec!["clik"; 50_000].join(", "))
}

#[test]
fn fifty_thousand_diagnostics_list_the_first_hundred_and_count_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "many.yaml", &many_flow());
    write(dir.path(), "ok.yaml", "steps:\n  - clik: Login\n");

    let out = clean_env(dir.path())
        .args(["validate", "many.yaml", "ok.yaml"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        &err[err.len().saturating_sub(2_000)..]
    );
    assert_eq!(err.matches("error[unknown-step]").count(), 100 + 1);
    assert!(
        err.contains(
            "… and 49900 more in many.yaml (49900 error(s), 0 warning(s)); at most 100 diagnostics are listed per file\n"
        ),
        "{}",
        &err[err.len().saturating_sub(2_000)..]
    );
    // The other file's diagnostic still follows, then the total of everything found.
    let more = err.find("… and 49900 more").unwrap();
    assert!(err[more..].contains("╭─[ok.yaml:2:5]"), "{}", &err[more..]);
    assert!(
        err.ends_with("50001 error(s), 0 warning(s)\n"),
        "{}",
        &err[more..]
    );
    // Headers are in file order, columns increasing.
    let cols: Vec<usize> = err
        .lines()
        .filter_map(|l| l.split("╭─[many.yaml:1:").nth(1))
        .map(|c| c.trim_end_matches(']').parse().unwrap())
        .collect();
    assert_eq!(cols.len(), 100);
    assert!(cols.windows(2).all(|w| w[0] < w[1]), "{cols:?}");
    assert_eq!(cols[0], 9);

    let out = clean_env(dir.path())
        .args(["validate", "--format", "json", "many.yaml", "ok.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let j = json(&out);
    assert_eq!(j["errors"], 50_001);
    assert_eq!(j["warnings"], 0);
    assert_eq!(j["diagnostics"].as_array().unwrap().len(), 101);
    assert_eq!(
        j["omitted"],
        serde_json::json!([{"file": "many.yaml", "errors": 49_900, "warnings": 0}])
    );
}

/// Seen (issue 11): `CODE: &code 4711` then `text: *code` typed `*code` on the device.
#[test]
fn an_alias_to_a_number_types_the_number() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "alias.yaml",
        "name: Alias typed as text\napp: com.tapflow.demo\nclean_state: true\nenv:\n  CODE: &code 4711\nsteps:\n  - input_text: {element_id: username, text: *code}\n  - assert_visible: {element_id: username, text: \"4711\", timeout_ms: 2000}\n",
    );
    let out = clean_env(dir.path())
        .args(["plan", "--format", "json", "alias.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let plan = json(&out);
    let step = &plan["flows"][0]["steps"][0];
    assert_eq!(step["args"]["text"], "4711", "{step}");

    let out = clean_env(dir.path())
        .args(["run", "alias.yaml", "--sim", "1", "--no-progress"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{err}\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn non_finite_floats_are_values_the_schema_judges() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "inf.yaml",
        "steps:\n  - click: {x: .inf, y: 1}\n  - input_text: {element_id: a, text: -.Inf}\n  - input_text: {element_id: a, text: .nan}\n",
    );
    let out = clean_env(dir.path())
        .args(["validate", "--format", "json", "inf.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let j = json(&out);
    let diags = j["diagnostics"].as_array().unwrap();
    assert!(diags.iter().all(|d| d["code"] != "yaml-syntax"), "{j}");
    assert_eq!(diags.len(), 1, "{j}");
    assert_eq!(
        (diags[0]["line"].as_u64(), diags[0]["column"].as_u64()),
        (Some(2), Some(16))
    );
    assert_eq!(diags[0]["code"], "wrong-type");

    write(
        dir.path(),
        "text.yaml",
        "steps:\n  - input_text: {element_id: a, text: -.Inf}\n",
    );
    let out = clean_env(dir.path())
        .args(["plan", "--format", "json", "text.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)["flows"][0]["steps"][0]["args"]["text"], "-.Inf");
}

#[test]
fn a_second_document_is_one_diagnostic_at_its_marker() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "two.yaml",
        "# two flows in one file\nsteps:\n  - click: OK\n---\nsteps:\n  - click: Next\n",
    );
    let out = clean_env(dir.path())
        .args(["validate", "two.yaml"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.starts_with(
            "error[multiple-documents]: a flow file holds one YAML document, and this file has more\n"
        ),
        "{err}"
    );
    assert!(err.contains("╭─[two.yaml:4:1]"), "{err}");
    assert!(!err.contains("from_str"), "{err}");
}
