//! `info`: every `param get` key and the RenderService screen size in ONE round trip (see
//! [`commands::info`]); a second round trip to DisplayManagerService only when RenderService
//! gave no size (older or unusual builds).

use crate::device::error::DeviceResult;
use crate::device::hdc::classify::{Op, Scan};
use crate::device::hdc::commands::{self, INFO_KEYS};
use crate::device::hdc::device::HdcDevice;
use crate::device::hdc::parse;
use crate::device::hdc::sections;
use crate::device::model::DeviceInfo;

impl HdcDevice {
    pub(super) fn read_info(&self) -> DeviceResult<DeviceInfo> {
        let op = Op::new(crate::codes::DEVICE_INFO_FAILED, "device info");
        let timeout = self.config().command_timeout;
        let text = self.shell(&commands::info(), timeout, &op, Scan::Whole)?;
        let mut info = info_from_sections(self.serial_str(), &text);
        if info.screen.is_none() {
            let text = self.shell(
                &commands::display_manager_screen(),
                timeout,
                &op,
                Scan::Whole,
            )?;
            info.screen = parse::screen::parse_display_manager_screen(&text);
        }
        Ok(info)
    }
}

/// Builds the info from the chained output. A key the device does not have
/// (`Get parameter "x" fail! errNum is:106!`) is simply unknown (`None`).
pub(super) fn info_from_sections(serial: &str, text: &str) -> DeviceInfo {
    let parts = sections::split(text, INFO_KEYS.len() + 1);
    let value = |i: usize| -> Option<String> {
        let part = parts.get(i)?.as_deref()?;
        let v = parse::param::parse_param(part).ok()?;
        let v = v.trim();
        (!v.is_empty()).then(|| v.to_string())
    };
    DeviceInfo {
        serial: serial.to_string(),
        platform: "harmonyos".to_string(),
        model: value(0),
        name: value(1),
        brand: value(2),
        software_version: value(3),
        api_level: value(4).and_then(|v| v.parse().ok()),
        cpu_abi: value(5),
        device_type: value(6),
        screen: parts[INFO_KEYS.len()]
            .as_deref()
            .and_then(parse::screen::parse_render_service_screen),
    }
}
