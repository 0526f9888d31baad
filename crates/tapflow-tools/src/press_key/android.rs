//! press_key on Android: the logical key (resolved by the OpenHarmony table, whose `KEYCODE_*`
//! names Android shares for the common keys) is sent as the Android `KeyEvent` code of the same
//! name (`android_key_codes.tsv`: AOSP `keycodes.h`, see
//! `tests/fixtures/android_key_codes.SOURCES.md`). Home, Back and Power go as the device's
//! named keys; modifiers are the left-hand Android ones (Ctrl 113, Alt 57, Shift 59, Meta 117).
//! A key Android has no code for is `UNSUPPORTED_ON_PLATFORM`, naming the alternative.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::keys::Key;

const TSV: &str = include_str!("android_key_codes.tsv");

static BY_NAME: LazyLock<HashMap<&'static str, i64>> = LazyLock::new(|| {
    TSV.lines()
        .skip(1)
        .filter_map(|l| {
            let (name, value) = l.split_once('\t')?;
            Some((name, value.trim().parse().ok()?))
        })
        .collect()
});

/// Every Android key in the table (name, code).
pub fn all() -> Vec<(&'static str, i64)> {
    let mut v: Vec<(&str, i64)> = BY_NAME.iter().map(|(n, c)| (*n, *c)).collect();
    v.sort_by_key(|(_, c)| *c);
    v
}

/// The Android code of an OpenHarmony key, by its `KEYCODE_*` name.
pub fn code_of(key: &Key) -> Option<i64> {
    BY_NAME.get(key.name).copied()
}

/// The Android code of a modifier (its left-hand key).
pub fn modifier_code(m: super::Modifier) -> i64 {
    match m {
        super::Modifier::Ctrl => 113,
        super::Modifier::Alt => 57,
        super::Modifier::Shift => 59,
        super::Modifier::Meta => 117,
    }
}

#[cfg(test)]
mod tests {
    use super::super::keys::from_text;
    use super::*;

    #[test]
    fn the_table_is_aosp_keycodes() {
        let all = all();
        assert_eq!(all.len(), 284);
        for (i, (_, c)) in all.iter().enumerate() {
            assert_eq!(*c, i as i64, "codes 0..283 without gaps");
        }
        let code = |s: &str| code_of(&from_text(s).unwrap());
        assert_eq!(code("Enter"), Some(66));
        assert_eq!(code("Backspace"), Some(67));
        assert_eq!(code("Delete"), Some(112));
        assert_eq!(code("MoveEnd"), Some(123));
        assert_eq!(code("PageDown"), Some(93));
        assert_eq!(code("a"), Some(29));
        assert_eq!(code("7"), Some(14));
        assert_eq!(code("F12"), Some(142));
        assert_eq!(code("Escape"), Some(111));
        assert_eq!(code("F24"), None, "no Android F24");
    }
}
