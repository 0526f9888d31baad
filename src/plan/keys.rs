//! Key names for `press_key`, for the interim catalog's static check: a subset of OpenHarmony
//! InputKit `KEYCODE_*` names (the system, navigation, editing, letter, digit, function and
//! numpad keys) and the contract's aliases. Names match without the `KEYCODE_` prefix,
//! case-insensitively and ignoring `_`, `-` and spaces (`PAGE_UP`, `PageUp`, `page-up`).

const NAMED: &[(&str, i64)] = &[
    ("FN", 0),
    ("HOME", 1),
    ("BACK", 2),
    ("MEDIA_PLAY_PAUSE", 10),
    ("MEDIA_STOP", 11),
    ("MEDIA_NEXT", 12),
    ("MEDIA_PREVIOUS", 13),
    ("MEDIA_REWIND", 14),
    ("MEDIA_FAST_FORWARD", 15),
    ("VOLUME_UP", 16),
    ("VOLUME_DOWN", 17),
    ("POWER", 18),
    ("CAMERA", 19),
    ("VOLUME_MUTE", 22),
    ("MUTE", 23),
    ("BRIGHTNESS_UP", 40),
    ("BRIGHTNESS_DOWN", 41),
    ("STAR", 2010),
    ("POUND", 2011),
    ("DPAD_UP", 2012),
    ("DPAD_DOWN", 2013),
    ("DPAD_LEFT", 2014),
    ("DPAD_RIGHT", 2015),
    ("DPAD_CENTER", 2016),
    ("COMMA", 2043),
    ("PERIOD", 2044),
    ("ALT_LEFT", 2045),
    ("ALT_RIGHT", 2046),
    ("SHIFT_LEFT", 2047),
    ("SHIFT_RIGHT", 2048),
    ("TAB", 2049),
    ("SPACE", 2050),
    ("SYM", 2051),
    ("EXPLORER", 2052),
    ("ENVELOPE", 2053),
    ("ENTER", 2054),
    ("DEL", 2055),
    ("GRAVE", 2056),
    ("MINUS", 2057),
    ("EQUALS", 2058),
    ("LEFT_BRACKET", 2059),
    ("RIGHT_BRACKET", 2060),
    ("BACKSLASH", 2061),
    ("SEMICOLON", 2062),
    ("APOSTROPHE", 2063),
    ("SLASH", 2064),
    ("AT", 2065),
    ("PLUS", 2066),
    ("MENU", 2067),
    ("PAGE_UP", 2068),
    ("PAGE_DOWN", 2069),
    ("ESCAPE", 2070),
    ("FORWARD_DEL", 2071),
    ("CTRL_LEFT", 2072),
    ("CTRL_RIGHT", 2073),
    ("CAPS_LOCK", 2074),
    ("SCROLL_LOCK", 2075),
    ("META_LEFT", 2076),
    ("META_RIGHT", 2077),
    ("FUNCTION", 2078),
    ("SYSRQ", 2079),
    ("BREAK", 2080),
    ("MOVE_HOME", 2081),
    ("MOVE_END", 2082),
    ("INSERT", 2083),
    ("FORWARD", 2084),
    ("MEDIA_PLAY", 2085),
    ("MEDIA_PAUSE", 2086),
    ("MEDIA_CLOSE", 2087),
    ("MEDIA_EJECT", 2088),
    ("MEDIA_RECORD", 2089),
    ("NUM_LOCK", 2102),
];

const ALIASES: &[(&str, &str)] = &[
    ("BACKSPACE", "DEL"),
    ("DELETE", "FORWARD_DEL"),
    ("CURSOR_HOME", "MOVE_HOME"),
    ("END", "MOVE_END"),
    ("ESC", "ESCAPE"),
    ("UP", "DPAD_UP"),
    ("DOWN", "DPAD_DOWN"),
    ("LEFT", "DPAD_LEFT"),
    ("RIGHT", "DPAD_RIGHT"),
];

fn normalise(name: &str) -> String {
    let upper: String = name
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_uppercase)
        .collect();
    upper
        .strip_prefix("KEYCODE")
        .map(str::to_string)
        .unwrap_or(upper)
}

/// Resolves a key name to its canonical `KEYCODE_*` name and code.
pub fn resolve(name: &str) -> Option<(String, i64)> {
    let n = normalise(name);
    if n.is_empty() {
        return None;
    }
    if n.len() == 1 {
        let c = n.chars().next()?;
        if c.is_ascii_uppercase() {
            return Some((format!("KEYCODE_{c}"), 2017 + (c as i64 - 'A' as i64)));
        }
        if c.is_ascii_digit() {
            return Some((format!("KEYCODE_{c}"), 2000 + (c as i64 - '0' as i64)));
        }
    }
    if let Some(rest) = n.strip_prefix("NUMPAD")
        && let Ok(d) = rest.parse::<i64>()
        && (0..=9).contains(&d)
    {
        return Some((format!("KEYCODE_NUMPAD_{d}"), 2103 + d));
    }
    if let Some(rest) = n.strip_prefix('F')
        && let Ok(f) = rest.parse::<i64>()
        && (1..=12).contains(&f)
    {
        return Some((format!("KEYCODE_F{f}"), 2089 + f));
    }
    let target = ALIASES
        .iter()
        .find(|(alias, _)| normalise(alias) == n)
        .map_or(n.clone(), |(_, canon)| normalise(canon));
    NAMED
        .iter()
        .find(|(canon, _)| normalise(canon) == target)
        .map(|(canon, code)| (format!("KEYCODE_{canon}"), *code))
}

/// True when a numeric key code is one this table knows.
pub fn is_known_code(code: i64) -> bool {
    (2000..=2042).contains(&code)
        || (2090..=2112).contains(&code)
        || NAMED.iter().any(|(_, c)| *c == code)
}

/// Every name (for suggestions).
pub fn names() -> Vec<String> {
    NAMED
        .iter()
        .map(|(n, _)| n.to_string())
        .chain(ALIASES.iter().map(|(a, _)| a.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_the_contracts_examples() {
        assert_eq!(resolve("PageUp").unwrap().1, 2068);
        assert_eq!(resolve("page-up").unwrap().1, 2068);
        assert_eq!(resolve("KEYCODE_PAGE_UP").unwrap().1, 2068);
        assert_eq!(resolve("Backspace").unwrap().1, 2055);
        assert_eq!(resolve("DEL").unwrap().1, 2055);
        assert_eq!(resolve("Delete").unwrap().1, 2071);
        assert_eq!(resolve("Home").unwrap().1, 1);
        assert_eq!(resolve("MoveHome").unwrap().1, 2081);
        assert_eq!(resolve("V").unwrap(), ("KEYCODE_V".into(), 2038));
        assert_eq!(resolve("7").unwrap().1, 2007);
        assert!(resolve("Bak").is_none());
        assert!(resolve("2072 2038").is_none());
        assert!(is_known_code(2072));
        assert!(!is_known_code(99999));
    }
}
