//! `screenshot`: capture on the device, `hdc file recv` to a host temporary file, then decode on
//! the host (to learn the real size) and crop a region if asked.
//!
//! JPEG comes from `snapshot_display -f x.jpeg`, PNG from `uitest screenCap -p x.png`. Two round
//! trips (capture, receive): binary data cannot travel through `hdc shell`'s text channel
//! intact, so the receive is a separate hdc sub-command. The device file is deleted by the next
//! shell command sent to the device (the next capture, usually), in front of it
//! ([`super::leftovers`]), instead of by a third round trip of its own. A cropped region is
//! re-encoded in the format that was asked for.

use std::io::Cursor;

use image::DynamicImage;

use crate::error::{DeviceError, DeviceResult};
use crate::hdc::classify::{Op, Scan, outcome};
use crate::hdc::commands;
use crate::hdc::device::HdcDevice;
use crate::hdc::parse;
use crate::model::{Bounds, ImageFormat, Screenshot, ScreenshotRequest};

pub use tapflow_core::codes::SCREENSHOT_ERROR;

impl HdcDevice {
    pub(super) fn capture(&self, request: &ScreenshotRequest) -> DeviceResult<Screenshot> {
        let op = Op::new(SCREENSHOT_ERROR, "screenshot");
        let config = self.config();
        let (ext, remote) = match request.format {
            ImageFormat::Jpeg => ("jpeg", config.scratch_path("jpeg")),
            ImageFormat::Png => ("png", config.scratch_path("png")),
        };
        let capture = match request.format {
            ImageFormat::Jpeg => commands::snapshot_display(&remote, request.display_id),
            ImageFormat::Png => commands::screen_cap(&remote, request.display_id),
        };
        let text = self.shell(&capture, config.command_timeout, &op, Scan::Whole)?;
        match request.format {
            ImageFormat::Jpeg => {
                outcome(&op, parse::outcome::snapshot_display(&text))?;
            }
            ImageFormat::Png => {
                outcome(&op, parse::outcome::screen_cap(&text))?;
            }
        }

        let dir = host_temp_dir(config.host_tmp_dir.as_deref())?;
        let local = dir.path().join(format!("screen.{ext}"));
        let local_str = local.to_str().ok_or_else(|| DeviceError::Io {
            what: "screenshot".into(),
            detail: format!("temporary path {} is not valid UTF-8", local.display()),
        })?;
        let received = self
            .hdc(
                &commands::file_recv(&remote, local_str),
                config.transfer_timeout,
                &op,
                Scan::Whole,
            )
            .and_then(|t| outcome(&op, parse::outcome::file_transfer(&t)));
        // The device file is deleted whatever the transfer did, so captures never pile up in
        // /data/local/tmp: by the next command to this device, in front of it.
        self.leftovers().add(self.serial_str(), remote);
        received?;

        let bytes = std::fs::read(&local).map_err(|e| DeviceError::Io {
            what: "read received screenshot".into(),
            detail: format!("{}: {e}", local.display()),
        })?;
        finish(bytes, request.format, request.region)
    }
}

fn host_temp_dir(base: Option<&std::path::Path>) -> DeviceResult<tempfile::TempDir> {
    let mut builder = tempfile::Builder::new();
    builder.prefix("tapflow-screenshot-");
    let dir = match base {
        Some(b) => builder.tempdir_in(b),
        None => builder.tempdir(),
    };
    dir.map_err(|e| DeviceError::Io {
        what: "create a temporary directory for the screenshot".into(),
        detail: e.to_string(),
    })
}

fn to_image_format(format: ImageFormat) -> image::ImageFormat {
    match format {
        ImageFormat::Jpeg => image::ImageFormat::Jpeg,
        ImageFormat::Png => image::ImageFormat::Png,
    }
}

fn bad_image(detail: String) -> DeviceError {
    DeviceError::Parse {
        code: SCREENSHOT_ERROR,
        what: "screenshot image".into(),
        detail,
    }
}

/// Decodes the received bytes (their real size is the truth, whatever the device printed) and
/// crops `region` when given. The region is clipped to the image; one outside it is an error.
pub fn finish(
    bytes: Vec<u8>,
    format: ImageFormat,
    region: Option<Bounds>,
) -> DeviceResult<Screenshot> {
    let img = image::load_from_memory_with_format(&bytes, to_image_format(format))
        .map_err(|e| bad_image(format!("the received file is not a valid {format:?}: {e}")))?;
    let (width, height) = (img.width(), img.height());
    let Some(region) = region else {
        return Ok(Screenshot {
            format,
            width,
            height,
            bytes,
        });
    };
    let clip = |v: i32, max: u32| v.clamp(0, max as i32) as u32;
    let (l, t) = (clip(region.left, width), clip(region.top, height));
    let (r, b) = (clip(region.right, width), clip(region.bottom, height));
    if r <= l || b <= t {
        return Err(DeviceError::Command {
            code: SCREENSHOT_ERROR,
            what: "screenshot region".into(),
            device_says: format!("region {region} lies outside the {width}x{height} screenshot"),
        });
    }
    let cropped = img.crop_imm(l, t, r - l, b - t);
    let bytes = encode(&cropped, format)?;
    Ok(Screenshot {
        format,
        width: r - l,
        height: b - t,
        bytes,
    })
}

fn encode(img: &DynamicImage, format: ImageFormat) -> DeviceResult<Vec<u8>> {
    let mut buf = Cursor::new(Vec::new());
    let result = match format {
        // JPEG has no alpha channel; the device's JPEG never had one either.
        ImageFormat::Jpeg => {
            let rgb = DynamicImage::ImageRgb8(img.to_rgb8());
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut buf, 90).encode_image(&rgb)
        }
        ImageFormat::Png => img.write_to(&mut buf, image::ImageFormat::Png),
    };
    result.map_err(|e| bad_image(format!("re-encoding the cropped region failed: {e}")))?;
    Ok(buf.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{Rgb, RgbImage};

    fn sample(format: ImageFormat) -> Vec<u8> {
        let img = RgbImage::from_fn(40, 30, |x, y| Rgb([(x * 6) as u8, (y * 8) as u8, 90]));
        encode(&DynamicImage::ImageRgb8(img), format).unwrap()
    }

    #[test]
    fn full_images_keep_their_bytes_and_learn_their_size() {
        for f in [ImageFormat::Png, ImageFormat::Jpeg] {
            let bytes = sample(f);
            let s = finish(bytes.clone(), f, None).unwrap();
            assert_eq!((s.width, s.height), (40, 30));
            assert_eq!(s.bytes, bytes);
        }
    }

    #[test]
    fn regions_are_cropped_clipped_and_reencoded() {
        for f in [ImageFormat::Png, ImageFormat::Jpeg] {
            let s = finish(sample(f), f, Some(Bounds::new(10, 5, 30, 25))).unwrap();
            assert_eq!((s.width, s.height), (20, 20));
            let back = image::load_from_memory_with_format(&s.bytes, to_image_format(f)).unwrap();
            assert_eq!((back.width(), back.height()), (20, 20));
            let s = finish(sample(f), f, Some(Bounds::new(-5, -5, 100, 10))).unwrap();
            assert_eq!((s.width, s.height), (40, 10));
        }
    }

    #[test]
    fn png_crop_is_pixel_exact() {
        let s = finish(
            sample(ImageFormat::Png),
            ImageFormat::Png,
            Some(Bounds::new(10, 5, 30, 25)),
        )
        .unwrap();
        let back = image::load_from_memory(&s.bytes).unwrap().to_rgb8();
        assert_eq!(back.get_pixel(0, 0), &Rgb([60, 40, 90]));
    }

    #[test]
    fn bad_bytes_and_outside_regions_are_errors() {
        let e = finish(b"not an image".to_vec(), ImageFormat::Png, None).unwrap_err();
        assert_eq!(e.code(), SCREENSHOT_ERROR);
        let e = finish(
            sample(ImageFormat::Png),
            ImageFormat::Png,
            Some(Bounds::new(50, 50, 60, 60)),
        )
        .unwrap_err();
        assert_eq!(e.code(), SCREENSHOT_ERROR);
    }
}
