//! `hdc list targets`, plain and verbose.

use tapflow_device::hdc::parse::targets::parse_targets;
use tapflow_device::model::TargetState;

use super::cleaned;

#[test]
fn hdc_list_targets() {
    let t = parse_targets(&cleaned("hdc_list_targets.txt"));
    let serials: Vec<&str> = t.iter().map(|t| t.serial.as_str()).collect();
    assert_eq!(serials, ["127.0.0.1:5555", "FMR0223C13000649"]);
    assert!(t.iter().all(|t| t.state == TargetState::Connected));
    assert!(t.iter().all(|t| t.connection.is_none() && t.name.is_none()));
}

#[test]
fn hdc_list_targets_v() {
    let t = parse_targets(&cleaned("hdc_list_targets_v.txt"));
    assert_eq!(t.len(), 2);
    assert_eq!(t[0].serial, "127.0.0.1:5555");
    assert_eq!(t[0].connection.as_deref(), Some("TCP"));
    assert_eq!(t[0].state, TargetState::Connected);
    assert_eq!(t[0].name.as_deref(), Some("localhost"));
    assert_eq!(t[1].serial, "FMR0223C13000649");
    assert_eq!(t[1].connection.as_deref(), Some("USB"));
    assert_eq!(t[1].state, TargetState::Connected);
    assert_eq!(t[1].name.as_deref(), Some("unknown..."));
}
