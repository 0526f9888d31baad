//! Structural comparison of device output with a real capture: a line's *shape* keeps its
//! indentation, punctuation and field names and blanks out the values (numbers → `N`,
//! `[…]` → `[]`, `#WORD` → `#X`, trailing spaces dropped), so two dumps of different devices in
//! different states compare equal when they have the same sections, line shapes and fields.
//! Used as `crate::common::shapes` (here and by the root package's tests).

#![allow(dead_code)]

use std::collections::BTreeSet;

/// The shape of one line.
pub fn shape(line: &str) -> String {
    let line = line.trim_end();
    let re_br = regex::Regex::new(r"\[[^\]]*\]").unwrap();
    let re_hash = regex::Regex::new(r"#[A-Z_]+").unwrap();
    let re_num = regex::Regex::new(r"-?\d+").unwrap();
    let s = re_br.replace_all(line, "[]");
    let s = re_hash.replace_all(&s, "#X");
    re_num.replace_all(&s, "N").into_owned()
}

/// The distinct line shapes of a text.
pub fn shapes(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(shape)
        .collect()
}

/// Asserts that `ours` has exactly the line shapes of `real` (set equality), listing the
/// differences when not.
pub fn assert_same_shapes(what: &str, ours: &str, real: &str) {
    let (a, b) = (shapes(ours), shapes(real));
    let only_ours: Vec<_> = a.difference(&b).collect();
    let only_real: Vec<_> = b.difference(&a).collect();
    assert!(
        only_ours.is_empty() && only_real.is_empty(),
        "{what}: line shapes differ\nonly in the simulator: {only_ours:#?}\nonly in the capture: {only_real:#?}\n--- simulator ---\n{ours}"
    );
}

/// The lines whose shape is a section header (ends with `:` or `{`, no value), in order,
/// consecutive duplicates collapsed.
pub fn section_headers(text: &str) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for l in text.lines() {
        let t = l.trim_end();
        let header = (t.ends_with(':') || t.ends_with('{')) && !t.trim().starts_with('>');
        if header && v.last().is_none_or(|last| *last != shape(t)) {
            v.push(shape(t));
        }
    }
    v
}
