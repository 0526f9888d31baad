//! `adb devices -l`: one line per transport after the `List of devices attached` header.
//!
//! `127.0.0.1:28531        device product:prod name model:Fake_Model_X_1 device:dev_1 transport_id:18`
//! — the serial is padded to 22 columns; `product:` and `device:` may contain spaces (only
//! newlines are sanitised), `model:` never does; each field appears only when known. States
//! with spaces exist (`no permissions (…)`), so the state is everything between the serial and
//! the first known field. Lines above the header (a daemon's start banner, `error: cannot
//! connect to daemon …` on newer adb) are not devices.

use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;

use super::ParseError;
use crate::model::{Target, TargetState};

/// One transport of `adb devices -l`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AdbTarget {
    pub serial: String,
    /// As printed: `device`, `offline`, `unauthorized`, `authorizing`, `recovery`, …
    pub state: String,
    pub usb: Option<String>,
    pub product: Option<String>,
    pub model: Option<String>,
    pub device: Option<String>,
    pub transport_id: Option<u64>,
}

impl AdbTarget {
    /// The platform-neutral listing row.
    pub fn to_target(&self) -> Target {
        let state = match self.state.as_str() {
            "device" => TargetState::Connected,
            "offline" => TargetState::Offline,
            "unauthorized" | "authorizing" => TargetState::Unauthorized,
            _ => TargetState::Unknown,
        };
        let connection = if self.serial.starts_with("emulator-") {
            "EMULATOR"
        } else if self.serial.contains(':') {
            "TCP"
        } else {
            "USB"
        };
        Target {
            serial: self.serial.clone(),
            connection: Some(connection.to_string()),
            state,
            name: self.model.clone(),
        }
    }
}

pub const HEADER: &str = "List of devices attached";

fn field_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r" (usb|product|model|device|transport_id):").expect("static devices regex")
    })
}

/// Parses one device line (`None` for blank lines).
pub fn parse_line(line: &str) -> Option<AdbTarget> {
    let line = line.trim_end_matches(['\r', '\n']);
    if line.trim().is_empty() {
        return None;
    }
    // The short form separates serial and state with a tab; `-l` pads with spaces.
    let (serial, rest) = line
        .split_once(['\t', ' '])
        .map(|(s, r)| (s, r.trim_start()))
        .unwrap_or((line, ""));
    let rest = format!(" {rest}");
    let fields: Vec<(usize, usize, &str)> = field_regex()
        .captures_iter(&rest)
        .filter_map(|c| {
            let m = c.get(0)?;
            Some((m.start(), m.end(), c.get(1)?.as_str()))
        })
        .collect();
    let state_end = fields.first().map(|f| f.0).unwrap_or(rest.len());
    let mut t = AdbTarget {
        serial: serial.to_string(),
        state: rest[..state_end].trim().to_string(),
        usb: None,
        product: None,
        model: None,
        device: None,
        transport_id: None,
    };
    for (i, (_, value_start, key)) in fields.iter().enumerate() {
        let value_end = fields.get(i + 1).map(|f| f.0).unwrap_or(rest.len());
        let value = rest[*value_start..value_end].to_string();
        match *key {
            "usb" => t.usb = Some(value),
            "product" => t.product = Some(value),
            "model" => t.model = Some(value),
            "device" => t.device = Some(value),
            "transport_id" => t.transport_id = value.trim().parse().ok(),
            _ => {}
        }
    }
    Some(t)
}

/// Parses the whole listing; the header is required (without it the text is not a listing).
pub fn parse_devices(text: &str) -> Result<Vec<AdbTarget>, ParseError> {
    let mut lines = text.lines();
    if !lines.by_ref().any(|l| l.trim() == HEADER) {
        return Err(ParseError::new(
            "adb devices",
            format!("no `{HEADER}` header in: {}", text.trim()),
        ));
    }
    Ok(lines.filter_map(parse_line).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The listing measured with adb 29.0.6 (docs/reference/adb-protocol.md §2.4).
    const MEASURED: &str = "List of devices attached\n127.0.0.1:28531        device product:prod name model:Fake_Model_X_1 device:dev_1 transport_id:18\n127.0.0.1:28532        device product:p model:m device:d transport_id:19\n127.0.0.1:28533        recovery product:p model:m device:d transport_id:20\n127.0.0.1:28534        device transport_id:21\n127.0.0.1:28515        offline transport_id:11\n\n";

    #[test]
    fn measured_listing() {
        let t = parse_devices(MEASURED).unwrap();
        assert_eq!(t.len(), 5);
        assert_eq!(t[0].serial, "127.0.0.1:28531");
        assert_eq!(t[0].state, "device");
        assert_eq!(t[0].product.as_deref(), Some("prod name"));
        assert_eq!(t[0].model.as_deref(), Some("Fake_Model_X_1"));
        assert_eq!(t[0].device.as_deref(), Some("dev_1"));
        assert_eq!(t[0].transport_id, Some(18));
        assert_eq!(t[2].state, "recovery");
        assert_eq!(t[3].model, None);
        assert_eq!(t[3].transport_id, Some(21));
        assert_eq!(t[4].to_target().state, TargetState::Offline);
        assert_eq!(t[0].to_target().connection.as_deref(), Some("TCP"));
    }

    #[test]
    fn other_shapes() {
        // rover's emulator line, the short form, a state with spaces, a USB serial.
        let t = parse_devices("* daemon not running; starting now at tcp:5037\n* daemon started successfully\nList of devices attached\nemulator-5554          device product:sdk_gphone16k_arm64 model:sdk_gphone16k_arm64 device:emu64a16k transport_id:3\n0123456789ABCDEF\tunauthorized\nR58M1234 no permissions (user in plugdev group; are your udev rules wrong?); see [http://developer.android.com/tools/device.html] usb:1-1 transport_id:4\n").unwrap();
        assert_eq!(t[0].to_target().connection.as_deref(), Some("EMULATOR"));
        assert_eq!(t[1].serial, "0123456789ABCDEF");
        assert_eq!(t[1].to_target().state, TargetState::Unauthorized);
        assert!(t[2].state.starts_with("no permissions ("), "{:?}", t[2]);
        assert_eq!(t[2].usb.as_deref(), Some("1-1"));
        assert_eq!(
            parse_devices("List of devices attached\n\n").unwrap(),
            vec![]
        );
        assert!(parse_devices("error: cannot connect to daemon\n").is_err());
    }
}
