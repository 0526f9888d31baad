//! `hidumper -s PowerManagerService -a -s` → `Current State: AWAKE`.
use crate::device::model::PowerState;

pub fn parse_power_state(text: &str) -> Option<PowerState> {
    todo!("parsers helper: {text}")
}
