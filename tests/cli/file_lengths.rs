//! Every Rust file of the repository, source or test, has 600 lines or fewer (issue 27), so each
//! file stays small enough to own one concept. A file that grows past that is split along its
//! own seams into a directory module (`x.rs` becomes `x/mod.rs` with the module doc, the shared
//! imports and the `mod` lines, and one file per group). The files are the ones the repository
//! walker of `repo_standalone` reads (everything but `target/`, `.git/`, `.test-deps/`,
//! `reports/`), read once for both checks.

use super::repo_standalone::text_files;

/// The most lines a Rust file may have.
const MAX_LINES: usize = 600;

/// What is wrong with `files` (path from the root, text): each Rust file over the limit. There
/// is no allowlist: the last long files were split, and a file over the limit is split before it
/// lands rather than excused.
fn problems<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<String> {
    let mut found = Vec::new();
    for (file, text) in files {
        if !file.ends_with(".rs") {
            continue;
        }
        let lines = text.lines().count();
        if lines <= MAX_LINES {
            continue;
        }
        found.push(format!(
            "{file}: {lines} lines, more than {MAX_LINES}: split it along its seams into a \
             directory module ({file} becomes {}/mod.rs plus one file per group)",
            file.trim_end_matches(".rs")
        ));
    }
    found
}

#[test]
fn no_rust_file_is_longer_than_600_lines() {
    let files = text_files().iter().map(|(f, t)| (f.as_str(), t.as_str()));
    let found = problems(files);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_length_check_catches_what_it_is_for() {
    let lines = |n: usize| "x\n".repeat(n);
    let (at_limit, over) = (lines(MAX_LINES), lines(MAX_LINES + 1));
    // At the limit passes; one line more fails and says where and what to do.
    assert!(problems([("src/a.rs", at_limit.as_str())]).is_empty());
    let found = problems([("tests/x/big.rs", over.as_str())]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("tests/x/big.rs: 601 lines"),
        "{found:?}"
    );
    assert!(found[0].contains("tests/x/big/mod.rs"), "{found:?}");
    // A last line without a newline counts too.
    let unterminated = format!("{at_limit}x");
    assert_eq!(problems([("src/b.rs", unterminated.as_str())]).len(), 1);
    // Only Rust files are measured.
    assert!(problems([("docs/long.md", over.as_str())]).is_empty());
}
