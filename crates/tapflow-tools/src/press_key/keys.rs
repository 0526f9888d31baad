//! The OpenHarmony InputKit key table (`oh_key_codes.tsv`, every `KEYCODE_*` of `oh_key_code.h`)
//! and how user spellings resolve to it.
//!
//! Spelling rules: the `KEYCODE_` prefix, letter case and separators (`_`, `-`, space) are
//! optional (`KEYCODE_PAGE_UP`, `PageUp`, `page_up`, `page-up` → 2068); a number (JSON integer
//! or digits) must be an official value; single letters and digits are their keys. Aliases:
//! `Backspace` → DEL (2055), `Delete` → FORWARD_DEL (2071), `CursorHome` → MOVE_HOME (2081),
//! `End`/`CursorEnd` → MOVE_END (2082), `Esc` → ESCAPE, `Return` → ENTER. `Home` stays the system
//! Home key (1). `KEYCODE_UNKNOWN` (-1) cannot be sent and is rejected.

use std::collections::HashMap;

use std::sync::LazyLock;

const TSV: &str = include_str!("oh_key_codes.tsv");

/// One official key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub name: &'static str,
    pub code: i64,
}

struct Table {
    keys: Vec<Key>,
    by_spelling: HashMap<String, Key>,
    by_code: HashMap<i64, Key>,
}

const ALIASES: &[(&str, &str)] = &[
    ("BACKSPACE", "KEYCODE_DEL"),
    ("DELETE", "KEYCODE_FORWARD_DEL"),
    ("CURSORHOME", "KEYCODE_MOVE_HOME"),
    ("CURSOREND", "KEYCODE_MOVE_END"),
    ("END", "KEYCODE_MOVE_END"),
    ("ESC", "KEYCODE_ESCAPE"),
    ("RETURN", "KEYCODE_ENTER"),
];

/// Upper-cases and drops separators and the `KEYCODE` prefix: `page-up` → `PAGEUP`.
pub fn normalize(s: &str) -> String {
    let up: String = s
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .map(|c| c.to_ascii_uppercase())
        .collect();
    match up.strip_prefix("KEYCODE") {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => up,
    }
}

static TABLE: LazyLock<Table> = LazyLock::new(|| {
    let mut keys = Vec::new();
    for line in TSV.lines().skip(1) {
        let mut cols = line.split('\t');
        let (Some(name), Some(value)) = (cols.next(), cols.next()) else {
            continue;
        };
        let Ok(code) = value.trim().parse::<i64>() else {
            continue;
        };
        keys.push(Key { name, code });
    }
    let mut by_spelling = HashMap::new();
    let mut by_code = HashMap::new();
    for k in &keys {
        by_spelling.insert(normalize(k.name), *k);
        by_code.insert(k.code, *k);
    }
    for (alias, target) in ALIASES {
        if let Some(k) = keys.iter().find(|k| k.name == *target) {
            by_spelling.insert((*alias).to_string(), *k);
        }
    }
    Table {
        keys,
        by_spelling,
        by_code,
    }
});

/// The official name closest to a spelling that names no key (compared the way keys are
/// read: case, separators and the `KEYCODE_` prefix do not matter), for "did you mean".
pub fn closest(s: &str) -> Option<&'static str> {
    let wanted = normalize(s);
    let spellings: Vec<(String, &'static str)> =
        all().iter().map(|k| (normalize(k.name), k.name)).collect();
    let hit = tapflow_core::suggest::closest(&wanted, spellings.iter().map(|(n, _)| n.as_str()))?;
    spellings.iter().find(|(n, _)| n == hit).map(|(_, k)| *k)
}

/// Every official key, in header order.
pub fn all() -> &'static [Key] {
    &TABLE.keys
}

pub fn by_name(official: &str) -> Option<Key> {
    TABLE.keys.iter().find(|k| k.name == official).copied()
}

/// A key from a number (`Err` explains the rejection).
pub fn from_code(code: i64) -> Result<Key, String> {
    match TABLE.by_code.get(&code) {
        Some(k) if k.code < 0 => Err(format!("{} ({code}) cannot be sent", k.name)),
        Some(k) => Ok(*k),
        None => Err(format!("{code} is not an official OpenHarmony key code")),
    }
}

/// A key from a user spelling.
pub fn from_text(s: &str) -> Result<Key, String> {
    let t = s.trim();
    let shown = crate::decode::clip(t);
    if t.is_empty() {
        return Err("key is empty".into());
    }
    if !t
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' '))
    {
        return Err(format!(
            "{shown:?} is not a key name (one key only; no shell text)"
        ));
    }
    if t.split_whitespace().count() > 1
        && t.split_whitespace()
            .all(|w| w.chars().all(|c| c.is_ascii_digit()))
    {
        return Err(format!(
            "{shown:?} looks like raw key codes; pass one key and use modifiers for shortcuts"
        ));
    }
    if t.chars().all(|c| c.is_ascii_digit()) && t.len() > 1 {
        return from_code(t.parse::<i64>().map_err(|e| e.to_string())?);
    }
    match TABLE.by_spelling.get(&normalize(t)) {
        Some(k) if k.code < 0 => Err(format!("{} cannot be sent", k.name)),
        Some(k) => Ok(*k),
        None => Err(format!("unknown key {shown:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_whole_header_is_mapped_without_spelling_collisions() {
        assert_eq!(all().len(), 356);
        let mut seen = HashMap::new();
        for k in all() {
            if let Some(other) = seen.insert(normalize(k.name), k.name) {
                panic!("{} and {other} normalise alike", k.name);
            }
            if k.code >= 0 {
                assert_eq!(from_text(k.name).unwrap(), *k);
                assert_eq!(from_code(k.code).unwrap(), *k);
            }
        }
    }

    #[test]
    fn contract_spellings_resolve() {
        for s in ["KEYCODE_PAGE_UP", "PageUp", "page_up", "page-up", "2068"] {
            assert_eq!(from_text(s).unwrap().code, 2068, "{s}");
        }
        assert_eq!(from_text("Backspace").unwrap().code, 2055);
        assert_eq!(from_text("DEL").unwrap().code, 2055);
        assert_eq!(from_text("Delete").unwrap().code, 2071);
        assert_eq!(from_text("Home").unwrap().code, 1);
        assert_eq!(from_text("MoveHome").unwrap().code, 2081);
        assert_eq!(from_text("CursorHome").unwrap().code, 2081);
        assert_eq!(from_text("MoveEnd").unwrap().code, 2082);
        assert_eq!(from_text("End").unwrap().code, 2082);
        assert_eq!(from_text("v").unwrap().name, "KEYCODE_V");
        assert_eq!(from_text("7").unwrap().name, "KEYCODE_7");
        assert_eq!(from_text("KEYCODE_F24").unwrap().name, "KEYCODE_F24");
        assert!(from_text("2072 2038").is_err());
        assert!(from_text("A;reboot").is_err());
        assert!(from_text("Unknown").is_err());
        assert!(from_code(-1).is_err());
        assert!(from_code(3).is_err());
        assert!(from_text("NoSuchKey").is_err());
    }
}
