//! Golden tests for `tapflow validate` and `tapflow plan`, produced by the shipped binary
//! itself (the same code path a user runs: the CLI, the real tool registry, the renderers).
//!
//! `tests/golden/flow/*.yaml` are malformed flows: each must make `tapflow validate` fail
//! (exit 3), and what it prints must equal the committed files: `.txt` is the text report
//! (stderr: file:line:col, source lines, carets, suggestion, the closing count), `.json` the
//! `--format json` report. `tests/golden/flow/valid/*.yaml` must be valid, and `tapflow plan
//! --device emulator-1` must print the committed `.plan.txt` and `.plan.json`.
//! `TAPFLOW_BLESS=1 cargo test --test golden` rewrites the expected files after an
//! intended change (review the diff).
//!
//! How the CLI is run: this test has no libtest harness (`harness = false` in Cargo.toml).
//! Started with a `tapflow` subcommand as its arguments, the executable *is* `tapflow`: it
//! calls `tapflow::cli::main()`, the binary's whole `main`. The checks run it that way, as a
//! child process, instead of `target/debug/tapflow`: that file is shared by every checkout that
//! builds into the same target directory, this executable is not.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn main() {
    let args: Vec<OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "validate" || a == "plan") {
        std::process::exit(tapflow::cli::main());
    }
    let checks: [(&str, fn()); 2] = [
        (
            "malformed_flows_render_their_expected_diagnostics",
            malformed_flows_render_their_expected_diagnostics,
        ),
        (
            "valid_flows_compile_to_their_expected_plans",
            valid_flows_compile_to_their_expected_plans,
        ),
    ];
    let mut failed = 0;
    for (name, check) in checks {
        match std::panic::catch_unwind(check) {
            Ok(()) => println!("test {name} ... ok"),
            Err(_) => {
                println!("test {name} ... FAILED");
                failed += 1;
            }
        }
    }
    println!("{} passed, {failed} failed", checks.len() - failed);
    std::process::exit(i32::from(failed > 0));
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/flow")
}

fn cases(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yaml"))
        .collect();
    names.sort();
    names
}

fn bless() -> bool {
    std::env::var_os("TAPFLOW_BLESS").is_some()
}

/// `tapflow ARGS` in `dir`, with no `TAPFLOW_*` variable of this process leaking into the
/// flows (`TAPFLOW_BLESS` itself would become `{{ BLESS }}`).
fn shipped_cli(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.current_dir(dir).args(args);
    for (k, _) in std::env::vars() {
        if k.starts_with("TAPFLOW_") {
            cmd.env_remove(k);
        }
    }
    cmd.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("tapflow prints UTF-8")
}

/// Compares with (or, when blessing, writes) an expected file; returns a mismatch message.
fn check(path: &Path, actual: &str) -> Option<String> {
    if bless() {
        std::fs::write(path, actual).unwrap();
        return None;
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    (expected != actual).then(|| {
        format!(
            "--- {} differs ---\n{}",
            path.display(),
            pretty_assertions::StrComparison::new(&expected, actual)
        )
    })
}

fn malformed_flows_render_their_expected_diagnostics() {
    let dir = golden_dir();
    let names = cases(&dir);
    assert!(
        names.len() >= 30,
        "only {} malformed golden flows",
        names.len()
    );
    let mut failures = Vec::new();
    for name in &names {
        let stem = name.trim_end_matches(".yaml");
        let human = shipped_cli(&dir, &["validate", name]);
        let json = shipped_cli(&dir, &["validate", "--format", "json", name]);
        if human.status.code() != Some(3) || json.status.code() != Some(3) {
            failures.push(format!(
                "{name}: expected exit 3 (invalid), got {:?} / {:?}: {}",
                human.status.code(),
                json.status.code(),
                text(&human.stderr)
            ));
            continue;
        }
        let rendered = text(&human.stderr);
        failures.extend(check(&dir.join(format!("{stem}.txt")), &rendered));
        failures.extend(check(
            &dir.join(format!("{stem}.json")),
            &text(&json.stdout),
        ));
        // Every diagnostic is located, and its locator is in the text report.
        let report: Value = serde_json::from_slice(&json.stdout).unwrap();
        for d in report["diagnostics"].as_array().unwrap() {
            let (line, col) = (d["line"].as_u64().unwrap(), d["column"].as_u64().unwrap());
            assert!(line >= 1 && col >= 1, "{name}: {d}");
            let locator = format!("{}:{line}:{col}]", d["file"].as_str().unwrap());
            assert!(
                rendered.contains(&locator),
                "{name}: {locator} missing in\n{rendered}"
            );
        }
    }
    // No expected file may outlive its case.
    for entry in std::fs::read_dir(&dir).unwrap().filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(stem) = name
            .strip_suffix(".txt")
            .or_else(|| name.strip_suffix(".json"))
            && !names.contains(&format!("{stem}.yaml"))
        {
            failures.push(format!("{name} has no {stem}.yaml"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn valid_flows_compile_to_their_expected_plans() {
    let dir = golden_dir().join("valid");
    let mut failures = Vec::new();
    for name in cases(&dir) {
        let stem = name.trim_end_matches(".yaml");
        let human = shipped_cli(&dir, &["plan", "--device", "emulator-1", &name]);
        let json = shipped_cli(
            &dir,
            &["plan", "--format", "json", "--device", "emulator-1", &name],
        );
        assert!(
            human.status.success() && json.status.success(),
            "{name} should be valid:\n{}",
            text(&human.stderr)
        );
        assert_eq!(text(&human.stderr), "", "{name}: no warnings expected");
        failures.extend(check(
            &dir.join(format!("{stem}.plan.txt")),
            &text(&human.stdout),
        ));
        failures.extend(check(
            &dir.join(format!("{stem}.plan.json")),
            &text(&json.stdout),
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
