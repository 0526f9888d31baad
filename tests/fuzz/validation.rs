//! The seed flows, one validation as `tapflow validate FILE` does it (measured), the checks the
//! acceptance criteria make of its outcome, and where a failing case is saved.

use super::counting::{LIVE, PEAK};
use super::*;

/// A hang guard, not a speed check (speed is measured in benchmarks): far above what a linear
/// check of the biggest input takes even on a loaded 2-core machine (20 MB of templates: ~8 s
/// in a debug build alone, 23 s with four builds beside it), far below what a quadratic one
/// would need (hours).
fn time_limit() -> Duration {
    if cfg!(debug_assertions) {
        Duration::from_secs(120)
    } else {
        Duration::from_secs(20)
    }
}

/// A seed file: its path (as `tapflow validate` would name it) and text.
pub(super) struct Seed {
    pub(super) name: String,
    pub(super) text: String,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub(super) fn seeds() -> Vec<Seed> {
    let mut out = Vec::new();
    for dir in ["flows", "tests/golden/flow"] {
        for entry in walkdir::WalkDir::new(repo().join(dir))
            .sort_by_file_name()
            .into_iter()
            .filter_map(Result::ok)
        {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "yaml") {
                let name = path
                    .strip_prefix(repo())
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push(Seed {
                    name,
                    text: std::fs::read_to_string(path).unwrap(),
                });
            }
        }
    }
    assert!(out.len() > 50, "only {} seed flows found", out.len());
    out
}

/// What one validation cost and said.
pub(super) struct Outcome {
    pub(super) compiled: Compiled,
    pub(super) text: String,
    json: String,
    pub(super) elapsed: Duration,
    pub(super) peak: usize,
}

/// Validates `file` as `tapflow validate FILE` does (sub-flows it calls come from `loader`).
pub(super) fn validate(name: &str, text: String, loader: &MapLoader) -> Outcome {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let started = Instant::now();
    let src = SourceFile::new(name, text);
    let (flows, subflows) = if tapflow_core::flow::is_subflow_path(name) {
        (vec![], vec![src])
    } else {
        (vec![src], vec![])
    };
    let catalog = catalog();
    let compiled = compile(
        &flows,
        &subflows,
        catalog.as_ref(),
        loader,
        &PlanOptions::default(),
    );
    let text = diagnostics_text(&compiled);
    let json = diagnostics_json(&compiled);
    drop((flows, subflows, catalog));
    Outcome {
        elapsed: started.elapsed(),
        peak: PEAK.load(Ordering::Relaxed).saturating_sub(before),
        compiled,
        text,
        json,
    }
}

/// Everything the acceptance criteria say about one outcome; `Err` says what is wrong.
pub(super) fn check(o: &Outcome) -> Result<(), String> {
    if o.elapsed > time_limit() {
        return Err(format!("took {:?}", o.elapsed));
    }
    if o.peak > MEMORY_LIMIT {
        return Err(format!("peak memory {} MB", o.peak >> 20));
    }
    let c = &o.compiled;
    for d in &c.diagnostics {
        let src = c
            .sources
            .get(&d.file)
            .ok_or_else(|| format!("diagnostic in a file that was not checked: {d:?}"))?;
        for (line, col) in [(d.line, d.column), (d.end_line, d.end_column)] {
            let max_line = src.last_line_number();
            let max_col = src.line(line).chars().count() + 1;
            if !(1..=max_line).contains(&line) || !(1..=max_col).contains(&col) {
                return Err(format!(
                    "{}:{line}:{col} is outside the file ({max_line} lines, line {line} has {} columns): {d:?}",
                    d.file,
                    max_col - 1
                ));
            }
        }
        if (d.end_line, d.end_column) < (d.line, d.column) {
            return Err(format!("end before start: {d:?}"));
        }
        let locator = format!("{}:{}:{}]", d.file, d.line, d.column);
        if !o.text.contains(&locator) {
            return Err(format!("`{locator}` not printed for {d:?}"));
        }
    }
    for file in c.diagnostics.iter().map(|d| &d.file) {
        let n = c.diagnostics.iter().filter(|d| &d.file == file).count();
        if n > MAX_DIAGNOSTICS_PER_FILE {
            return Err(format!("{n} diagnostics listed for {file}"));
        }
    }
    let json: serde_json::Value =
        serde_json::from_str(&o.json).map_err(|e| format!("JSON output does not parse: {e}"))?;
    let listed = json["diagnostics"].as_array().map_or(0, Vec::len);
    if listed != c.diagnostics.len() {
        return Err(format!("JSON lists {listed} of {}", c.diagnostics.len()));
    }
    let (errors, warnings) = c.counts();
    if json["errors"] != errors || json["warnings"] != warnings {
        return Err(format!("JSON counts differ: {}", o.json));
    }
    Ok(())
}

pub(super) fn loader_with(seeds: &[Seed], replaced: Option<(&str, &str)>) -> MapLoader {
    let mut loader = MapLoader::new();
    for s in seeds {
        let text = match replaced {
            Some((name, text)) if name == s.name => text,
            _ => s.text.as_str(),
        };
        loader = loader.with(&s.name, text);
    }
    loader
}

pub(super) fn save_failure(case: usize, name: &str, text: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("validate-fuzz");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!(
        "case-{case}-{}",
        name.rsplit('/').next().unwrap_or("flow.yaml")
    ));
    std::fs::write(&file, text).unwrap();
    file
}
