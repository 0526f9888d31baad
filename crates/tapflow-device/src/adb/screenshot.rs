//! `screenshot`: `screencap -p` through `exec-out`, ONE round trip: the PNG arrives on stdout
//! byte-exact (never through `adb shell`, whose pty mangles binary data on older devices). A
//! JPEG request is encoded on the host from that PNG (Android's screencap writes PNG or raw
//! only); a region is cropped on the host.

use std::io::Cursor;

use crate::adb::classify::{Op, command_failed};
use crate::adb::commands;
use crate::adb::device::{AdbDevice, excerpt};
use crate::adb::parse::outcome::PNG_MAGIC;
use crate::error::{DeviceError, DeviceResult};
use crate::hdc::screenshot::finish;
use crate::model::{ImageFormat, Screenshot, ScreenshotRequest};

pub const SCREENSHOT_ERROR: tapflow_core::codes::Code = tapflow_core::codes::SCREENSHOT_ERROR;

impl AdbDevice {
    pub(super) fn capture(&self, request: &ScreenshotRequest) -> DeviceResult<Screenshot> {
        let op = Op::new(SCREENSHOT_ERROR, "screenshot");
        let answer = self.exec_out(
            &commands::screencap(request.display_id),
            self.config().transfer_timeout,
        )?;
        if !answer.raw.starts_with(PNG_MAGIC) {
            return Err(command_failed(
                &op,
                format!(
                    "screencap did not return a PNG: {}",
                    excerpt(&String::from_utf8_lossy(&answer.raw))
                ),
            ));
        }
        let bytes = match request.format {
            ImageFormat::Png => answer.raw,
            ImageFormat::Jpeg => png_to_jpeg(&answer.raw)?,
        };
        finish(bytes, request.format, request.region)
    }
}

fn png_to_jpeg(png: &[u8]) -> DeviceResult<Vec<u8>> {
    let bad = |detail: String| DeviceError::Parse {
        code: SCREENSHOT_ERROR,
        what: "screenshot image".into(),
        detail,
    };
    let img = image::load_from_memory_with_format(png, image::ImageFormat::Png)
        .map_err(|e| bad(format!("the screencap PNG does not decode: {e}")))?;
    let rgb = image::DynamicImage::ImageRgb8(img.to_rgb8());
    let mut buf = Cursor::new(Vec::new());
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut buf, 90)
        .encode_image(&rgb)
        .map_err(|e| bad(format!("JPEG encoding failed: {e}")))?;
    Ok(buf.into_inner())
}
