//! Golden tests for `tapflow validate` and `tapflow plan`.
//!
//! `tests/golden/flow/*.yaml` are malformed flows: each must produce at least one error, and
//! its rendered diagnostics (`.txt`: file:line:col, source line, carets, suggestion) and their
//! JSON form (`.json`) must equal the committed files. `tests/golden/flow/valid/*.yaml` must
//! be valid, and their plan (`.plan.txt`, `.plan.json`) must equal the committed files.
//! Set `TAPFLOW_BLESS=1` to rewrite the expected files after an intended change.

use std::path::{Path, PathBuf};

use tapflow::flow::{DiagnosticReport, SourceFile, render_text};
use tapflow::plan::{PlanOptions, RegistryCatalog, SourceLoader, compile, render};

struct DirLoader(PathBuf);

impl SourceLoader for DirLoader {
    fn load(&self, path: &str) -> Result<String, String> {
        std::fs::read_to_string(self.0.join(path)).map_err(|_| "no such file".to_string())
    }
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

fn compile_one(dir: &Path, name: &str) -> tapflow::plan::Compiled {
    let text = std::fs::read_to_string(dir.join(name)).unwrap();
    let src = SourceFile::new(name, text);
    let catalog = RegistryCatalog::builtin();
    let opts = PlanOptions {
        devices: vec!["emulator-1".into()],
        ..PlanOptions::default()
    };
    compile(&[src], &[], &catalog, &DirLoader(dir.to_path_buf()), &opts)
}

#[test]
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
        let compiled = compile_one(&dir, name);
        if !compiled.has_errors() {
            failures.push(format!("{name}: expected at least one error, got none"));
            continue;
        }
        let stem = name.trim_end_matches(".yaml");
        let text = render_text(&compiled.diagnostics, &compiled.sources);
        let json = serde_json::to_string_pretty(&DiagnosticReport::new(&compiled.diagnostics))
            .unwrap()
            + "\n";
        failures.extend(check(&dir.join(format!("{stem}.txt")), &text));
        failures.extend(check(&dir.join(format!("{stem}.json")), &json));
        // Every diagnostic is located and underlines something (except at end of file).
        for d in &compiled.diagnostics {
            assert!(d.line >= 1 && d.column >= 1, "{name}: {d:?}");
            assert!(
                text.contains(&format!("{}:{}:{}]", d.file, d.line, d.column)),
                "{name}: locator of {d:?} missing in\n{text}"
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

#[test]
fn valid_flows_compile_to_their_expected_plans() {
    let dir = golden_dir().join("valid");
    let mut failures = Vec::new();
    for name in cases(&dir) {
        let compiled = compile_one(&dir, &name);
        let diags = render_text(&compiled.diagnostics, &compiled.sources);
        assert!(!compiled.has_errors(), "{name} should be valid:\n{diags}");
        let stem = name.trim_end_matches(".yaml");
        let text = render::render_text(&compiled.plan);
        let json = serde_json::to_string_pretty(&compiled.plan).unwrap() + "\n";
        failures.extend(check(&dir.join(format!("{stem}.plan.txt")), &text));
        failures.extend(check(&dir.join(format!("{stem}.plan.json")), &json));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
