//! `info`: every `param get` key and the RenderService screen size in ONE round trip (see
//! [`commands::info`]); a second round trip to DisplayManagerService only when RenderService
//! gave no size (older or unusual builds).

use std::time::Instant;

use crate::Readiness;
use crate::dump_resend::DumpFailure;
use crate::error::DeviceError;
use crate::error::DeviceResult;
use crate::hdc::classify::{Op, Scan, command_failed};
use crate::hdc::commands::{self, INFO_KEYS};
use crate::hdc::device::HdcDevice;
use crate::hdc::device::excerpt;
use crate::hdc::parse;
use crate::hdc::sections;
use crate::hdc::ui_dump::UI_TREE_FETCH_ERROR;
use crate::model::DeviceInfo;
use crate::model::DumpScope;

impl HdcDevice {
    pub(super) fn read_info(&self) -> DeviceResult<DeviceInfo> {
        let op = Op::new(tapflow_core::codes::DEVICE_INFO_FAILED, "device info");
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

impl HdcDevice {
    /// [`crate::Device::check_ready`]: info, power state and a dump in ONE round trip
    /// (one more, as for `info`, only when RenderService gave no screen size).
    pub(super) fn check_ready_chained(&self) -> Readiness {
        let op = Op::new(tapflow_core::codes::DEVICE_INFO_FAILED, "device check");
        let path = self.config().scratch_path("json");
        let timeout = self.config().command_timeout + self.config().dump_timeout;
        let sent_at = Instant::now();
        // A layout ends the answer: only its edges can be hdc's own failure lines.
        let text = match self.shell(&commands::check_ready(&path), timeout, &op, Scan::Edges) {
            Ok(text) => text,
            Err(e) => {
                return Readiness {
                    info: Err(e),
                    power: None,
                    tree: None,
                };
            }
        };
        self.cost_counter().ui_dump();
        let keys = INFO_KEYS.len() + 1;
        let parts = sections::split(&text, keys + 2);
        let mut info = info_from_parts(self.serial_str(), &parts[..keys]);
        if info.screen.is_none() {
            let timeout = self.config().command_timeout;
            if let Ok(text) = self.shell(
                &commands::display_manager_screen(),
                timeout,
                &op,
                Scan::Whole,
            ) {
                info.screen = parse::screen::parse_display_manager_screen(&text);
            }
        }
        let power_op = Op::new(tapflow_core::codes::DEVICE_INFO_FAILED, "power state");
        let power = match parts[keys].as_deref() {
            Some(answer) => {
                parse::power::parse_power_state(answer).ok_or_else(|| DeviceError::Parse {
                    code: tapflow_core::codes::DEVICE_INFO_FAILED,
                    what: "power state".into(),
                    detail: format!(
                        "no `Current State:` in the PowerManagerService dump: {}",
                        excerpt(answer)
                    ),
                })
            }
            None => Err(command_failed(&power_op, "the device gave no answer")),
        };
        let dump_op = Op::new(UI_TREE_FETCH_ERROR, "UI dump");
        let scope = DumpScope::default();
        let first = match parts[keys + 1].as_deref() {
            Some(answer) => self.finish_dump(answer, &scope, &dump_op),
            None => Err(DumpFailure::Damaged(command_failed(
                &dump_op,
                "the device gave no answer for the dump",
            ))),
        };
        let tree = self.resending(first, &scope, sent_at + timeout);
        Readiness {
            info: Ok(info),
            power: Some(power),
            tree: Some(tree),
        }
    }
}

/// Builds the info from the chained output. A key the device does not have
/// (`Get parameter "x" fail! errNum is:106!`) is simply unknown (`None`).
pub(super) fn info_from_sections(serial: &str, text: &str) -> DeviceInfo {
    info_from_parts(serial, &sections::split(text, INFO_KEYS.len() + 1))
}

/// The info from its sections (the keys in [`INFO_KEYS`] order, then the screen).
fn info_from_parts(serial: &str, parts: &[Option<String>]) -> DeviceInfo {
    let value = |i: usize| -> Option<String> {
        let part = parts.get(i)?.as_deref()?;
        let v = parse::param::parse_param(part).ok()?;
        let v = v.trim();
        (!v.is_empty()).then(|| v.to_string())
    };
    DeviceInfo {
        serial: serial.to_string(),
        platform: crate::Platform::Harmonyos,
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
