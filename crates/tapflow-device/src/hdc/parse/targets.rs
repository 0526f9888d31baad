//! `hdc list targets [-v]`.
//!
//! Plain: one connect key per line, `\tUnauthorized` appended for an unauthorised device.
//! `-v`: `key\t\tCONN\tSTATE\tNAME[\tDAEMON]`. Columns are split on any whitespace (the
//! awesome-hdc capture has extra spaces after the tabs).
use crate::model::{Target, TargetState};

/// Every device line; `[Empty]` gives no targets.
pub fn parse_targets(text: &str) -> Vec<Target> {
    super::lines(text).filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<Target> {
    // `[Empty]`, and any `[Fail]…`/`[Info]…` line, is hdc talking, not a device.
    if line.starts_with('[') {
        return None;
    }
    let cols: Vec<&str> = line.split_whitespace().collect();
    let serial = cols.first()?.to_string();
    let target = match cols.len() {
        1 => Target {
            serial,
            connection: None,
            state: TargetState::Connected,
            name: None,
        },
        2 => Target {
            serial,
            connection: None,
            state: parse_state(cols[1]),
            name: None,
        },
        _ => Target {
            serial,
            connection: Some(cols[1].to_string()),
            state: parse_state(cols[2]),
            // A fifth column (`hdc`, the daemon type) follows the name on newer builds.
            name: cols.get(3).map(|s| s.to_string()),
        },
    };
    Some(target)
}

fn parse_state(s: &str) -> TargetState {
    match s.to_ascii_lowercase().as_str() {
        "connected" => TargetState::Connected,
        "ready" => TargetState::Ready,
        "offline" => TargetState::Offline,
        "unauthorized" => TargetState::Unauthorized,
        _ => TargetState::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_fail_give_nothing() {
        assert!(parse_targets("[Empty]\n").is_empty());
        assert!(parse_targets("").is_empty());
        assert!(parse_targets("[Fail]something\n").is_empty());
    }

    #[test]
    fn plain_unauthorized_suffix() {
        let t = parse_targets("FMR0223C13000649\tUnauthorized\n");
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].serial, "FMR0223C13000649");
        assert_eq!(t[0].state, TargetState::Unauthorized);
        assert_eq!(t[0].connection, None);
    }

    #[test]
    fn verbose_with_daemon_column_and_offline() {
        let t = parse_targets("127.0.0.1:5555\t\tTCP\tOffline\tlocalhost\thdc\r\n");
        assert_eq!(
            t,
            vec![Target {
                serial: "127.0.0.1:5555".into(),
                connection: Some("TCP".into()),
                state: TargetState::Offline,
                name: Some("localhost".into()),
            }]
        );
        let t = parse_targets("X\t\tUSB\tWeird\n");
        assert_eq!(t[0].state, TargetState::Unknown);
        assert_eq!(t[0].name, None);
    }
}
