//! Small system facts: `getprop KEY`, `wm size`, `dumpsys power`'s wakefulness, `pidof`.

use crate::model::{PowerState, ScreenSize};

/// `getprop KEY`: the value line; a missing key prints an empty line (`None`).
pub fn parse_getprop(text: &str) -> Option<String> {
    let v = text.lines().next().unwrap_or("").trim();
    (!v.is_empty()).then(|| v.to_string())
}

fn size(s: &str) -> Option<ScreenSize> {
    let (w, h) = s.trim().split_once('x')?;
    Some(ScreenSize {
        width: w.trim().parse().ok()?,
        height: h.trim().parse().ok()?,
    })
}

/// `wm size`: `Physical size: 1280x2856`, plus `Override size: 720x1600` when overridden (the
/// override is what apps and input coordinates use).
pub fn parse_wm_size(text: &str) -> Option<ScreenSize> {
    let mut physical = None;
    let mut over = None;
    for line in text.lines() {
        let l = line.trim();
        if let Some(v) = l.strip_prefix("Physical size:") {
            physical = size(v);
        } else if let Some(v) = l.strip_prefix("Override size:") {
            over = size(v);
        }
    }
    over.or(physical)
}

/// `dumpsys power`: `mWakefulness=Awake|Asleep|Dozing|Dreaming` (Android 5+).
pub fn parse_power(text: &str) -> Option<PowerState> {
    let v = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("mWakefulness="))?
        .trim();
    Some(PowerState {
        state: v.to_uppercase(),
        awake: v.eq_ignore_ascii_case("Awake"),
    })
}

/// `pidof [-s] NAME`: the first pid, `None` when nothing is printed.
pub fn parse_pidof(text: &str) -> Result<Option<u32>, String> {
    match text.split_whitespace().next() {
        None => Ok(None),
        Some(w) => w
            .parse()
            .map(Some)
            .map_err(|_| format!("not a pid: {}", text.trim())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn props() {
        assert_eq!(parse_getprop("34\n").as_deref(), Some("34"));
        assert_eq!(parse_getprop("\n"), None);
        assert_eq!(
            parse_wm_size("Physical size: 1280x2856\n"),
            Some(ScreenSize {
                width: 1280,
                height: 2856
            })
        );
        assert_eq!(
            parse_wm_size("Physical size: 1280x2856\nOverride size: 720x1600\n"),
            Some(ScreenSize {
                width: 720,
                height: 1600
            })
        );
        assert_eq!(parse_wm_size("garbage"), None);
        let p = parse_power("POWER MANAGER (dumpsys power)\n  mWakefulness=Asleep\n").unwrap();
        assert!(!p.awake);
        assert_eq!(p.state, "ASLEEP");
        assert!(parse_power("  mWakefulness=Awake\n").unwrap().awake);
        assert_eq!(parse_pidof("12034\n"), Ok(Some(12034)));
        assert_eq!(parse_pidof(""), Ok(None));
        assert!(parse_pidof("pidof: bad").is_err());
    }
}
