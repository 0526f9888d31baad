//! `hidumper -s PowerManagerService -a -s` → `Current State: AWAKE`.
//!
//! `awake` means the screen is on and takes input: `AWAKE`, and `DIM` (the screen is dimmed
//! before turning off but still on). `INACTIVE`, `SLEEP`, `HIBERNATE`, … are not awake.
use crate::model::PowerState;

pub fn parse_power_state(text: &str) -> Option<PowerState> {
    let state = super::lines(text)
        .find_map(|l| l.strip_prefix("Current State:"))?
        .split_whitespace()
        .next()?
        .to_string();
    let awake = matches!(state.as_str(), "AWAKE" | "DIM");
    Some(PowerState { state, awake })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states() {
        let s = parse_power_state("Current State: INACTIVE  Reason: 1  Time: 2\n").unwrap();
        assert_eq!(s.state, "INACTIVE");
        assert!(!s.awake);
        assert!(parse_power_state("Current State: DIM").unwrap().awake);
        assert_eq!(parse_power_state("Current State:   \n"), None);
        assert_eq!(parse_power_state(""), None);
    }
}
