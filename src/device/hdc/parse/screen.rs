//! Screen size from `hidumper -s RenderService -a screen` (both formats, foldables) or
//! `hidumper -s DisplayManagerService -a -a`.
use crate::device::model::ScreenSize;

pub fn parse_render_service_screen(text: &str) -> Option<ScreenSize> {
    todo!("parsers helper: {text}")
}

pub fn parse_display_manager_screen(text: &str) -> Option<ScreenSize> {
    todo!("parsers helper: {text}")
}
