//! The repository stands alone: a fresh clone has nothing beside it, so no file may point outside
//! it. Checks over every text file of the repository (not `target/`, `.git/`, `.test-deps/`,
//! `reports/`), read once for all of them:
//!
//! - a relative path that climbs (`../…`) in prose (Markdown, comments, scripts) must stay inside
//!   the repository when resolved from the file's own folder, and one that names nothing there
//!   must not leave it when read from the root either (a citation written root-relative);
//! - a Markdown document named anywhere in prose must exist in the repository, so a citation of a
//!   document that was never brought in fails here;
//! - a path of this repository that the README or the docs name must exist.
//!
//! String literals in Rust code are data, not references (the host-path policy's tests feed
//! `../` escapes on purpose), so Rust files are checked in their comments only.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// Climbing paths that are examples, not references: what the host-path policy refuses, and a
/// user's own `tapflow.toml` naming a folder beside that user's project.
const EXAMPLES: &[(&str, &str)] = &[
    ("docs/security.md", "../../../../etc/passwd"),
    ("docs/security.md", "../x"),
    ("docs/security.md", "../haps"),
    ("docs/flow-format.md", "../haps"),
    ("docs/flow-format.md", "../../../../etc/passwd"),
    ("src/project/loader.rs", "../../../../etc/passwd"),
    ("tests/flow/files.rs", "../../../../etc/passwd"),
];

const SKIPPED_DIRS: &[&str] = &[".git", "target", ".test-deps", "reports", "node_modules"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every file of the repository worth reading as text, with its path from the root (walked
/// once, shared by the checks here and by `file_lengths`).
pub(super) fn text_files() -> &'static [(String, String)] {
    static FILES: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    FILES.get_or_init(read_text_files)
}

fn read_text_files() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let walk = walkdir::WalkDir::new(root()).into_iter().filter_entry(|e| {
        !(e.file_type().is_dir() && SKIPPED_DIRS.iter().any(|d| e.file_name() == *d))
    });
    for entry in walk {
        let entry = entry.unwrap();
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(entry.path()) else {
            continue; // binary fixtures (images, archives)
        };
        let rel = entry.path().strip_prefix(root()).unwrap();
        out.push((rel.to_string_lossy().replace('\\', "/"), text));
    }
    out
}

/// The prose of a file: all of it for documents and scripts, the comments of Rust code, nothing
/// of data files (fixtures, snapshots, goldens, schemas: outputs, not references).
fn prose(file: &str, text: &str) -> Option<String> {
    let ext = Path::new(file)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    let data = file.starts_with("tests/fixtures/") && !file.ends_with("SOURCES.md")
        || file.contains("/snapshots/")
        || file.starts_with("tests/golden/")
        || file.starts_with("schemas/")
        || file.ends_with("Cargo.lock");
    if data {
        return None;
    }
    match ext {
        // A comment starts a line or follows a blank (`"/a//b"` in a literal is no comment).
        "rs" => Some(
            text.lines()
                .map(|l| {
                    let at = l
                        .find("//")
                        .filter(|&i| i == 0 || l[..i].ends_with(char::is_whitespace));
                    at.or_else(|| l.find(" //").map(|i| i + 1))
                        .map_or("", |i| &l[i..])
                })
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        "md" | "sh" | "py" | "toml" | "yaml" | "yml" | "txt" | "" => Some(text.to_string()),
        _ => None,
    }
}

/// `path` resolved lexically from `base`; `None` when it climbs above the repository root.
fn resolve_inside(base: &Path, path: &str) -> Option<PathBuf> {
    let mut out: Vec<Component> = base.components().collect();
    for c in Path::new(path).components() {
        match c {
            Component::ParentDir => {
                out.pop()?;
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out.iter().collect())
}

#[test]
fn no_relative_path_leaves_the_repository() {
    let climb = regex::Regex::new(r"(?:\.\./)+[A-Za-z0-9_.\-/]*").unwrap();
    let mut found = Vec::new();
    for (file, text) in text_files() {
        let Some(prose) = prose(file, text) else {
            continue;
        };
        let dir = Path::new(&file).parent().unwrap_or(Path::new(""));
        for (n, line) in prose.lines().enumerate() {
            for m in climb.find_iter(line) {
                let path = m.as_str();
                if EXAMPLES.contains(&(file.as_str(), path)) {
                    continue;
                }
                let leaves = match resolve_inside(dir, path) {
                    None => true,
                    Some(p) => {
                        !root().join(p).exists() && resolve_inside(Path::new(""), path).is_none()
                    }
                };
                if leaves {
                    found.push(format!("{file}:{}: `{path}` leaves the repository", n + 1));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn every_document_named_is_in_the_repository() {
    let files = text_files();
    let present: BTreeSet<&str> = files
        .iter()
        .filter_map(|(f, _)| f.rsplit('/').next())
        .filter(|n| n.ends_with(".md"))
        .collect();
    let named = regex::Regex::new(r"[A-Za-z0-9_\-]+\.md\b").unwrap();
    // A document on the web is cited by its address, which names no file of ours.
    let url = regex::Regex::new(r"[a-z]+://\S+").unwrap();
    let mut found = Vec::new();
    for (file, text) in files {
        let Some(prose) = prose(file, text) else {
            continue;
        };
        for (n, line) in prose.lines().enumerate() {
            let line = url.replace_all(line, "");
            for m in named.find_iter(&line) {
                if !present.contains(m.as_str()) {
                    found.push(format!(
                        "{file}:{}: names {}, which is not in the repository",
                        n + 1,
                        m.as_str()
                    ));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_checks_catch_what_they_are_for() {
    // A climb out of the root, and one that stays in.
    assert!(resolve_inside(Path::new("docs"), "../../outside/docs/x").is_none());
    assert!(resolve_inside(Path::new("tests/fixtures/android"), "../../../docs/x").is_some());
    assert!(resolve_inside(Path::new(""), "../outside/docs/x").is_none());
    // Rust string literals are data; their comments are prose.
    let p = prose(
        "src/x.rs",
        "let p = \"../../etc\"; // see ../../README.md\n",
    )
    .unwrap();
    assert_eq!(p, "// see ../../README.md");
    let p = prose(
        "src/x.rs",
        "assert_eq!(normalize(\"/a//b/../c\"), \"/a/c\");\n",
    )
    .unwrap();
    assert_eq!(p, "");
    assert!(prose("tests/fixtures/harmonyos/x.txt", "../x").is_none());
}

/// `path` exists; with `glob`, some entry of its folder starts with its last part (`tests/x_*.rs`).
fn exists(path: &str, glob: bool) -> bool {
    if !glob {
        return root().join(path).exists();
    }
    let (dir, stem) = path.rsplit_once('/').unwrap_or(("", path));
    std::fs::read_dir(root().join(dir)).is_ok_and(|mut entries| {
        entries.any(|e| e.unwrap().file_name().to_string_lossy().starts_with(stem))
    })
}

/// Paths of this repository named in the README and the docs exist (a file moved by a
/// refactoring leaves no stale name behind). `src/…` of a HarmonyOS project or a CI log is not
/// ours; only this repository's top-level folders, and `src/` followed by a module of the
/// `tapflow` crate or of the single crate it once was, are read as its paths.
#[test]
fn every_repository_path_named_in_the_docs_exists() {
    let ours = regex::Regex::new(
        r"`((?:crates|tests|scripts|benches|flows|examples|schemas)/[A-Za-z0-9_./-]*|src/(?:cli|run|report|mcp|project|device|sim|tools|ui|logs|hostfs|flow|plan|lib\.rs|main\.rs|codes\.rs|suggest\.rs)\b[A-Za-z0-9_./-]*)",
    )
    .unwrap();
    let mut missing = Vec::new();
    for (file, text) in text_files() {
        if !(file == "README.md" || file.starts_with("docs/") && file.ends_with(".md")) {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            for m in ours.captures_iter(line) {
                let path = m[1].trim_end_matches('.');
                let glob = line[m.get(1).unwrap().end()..].starts_with('*');
                if !exists(path, glob) {
                    missing.push(format!(
                        "{file}:{}: names {path}, which does not exist",
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
