//! `snapshot_display [-i displayId] [-f file.jpeg] [-w width] [-h height] [-t jpeg]`: a JPEG of
//! the current screen written into the phone's file system, with snapshot_display's lines.

use crate::latency::Cost;
use crate::shell::CmdResult;
use crate::shell::DeviceCtx;
use crate::shell::absolute;
use tapflow_device::model::ImageFormat;

pub fn run(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let mut file = None;
    let mut size: (Option<u32>, Option<u32>) = (None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || it.next().cloned();
        match a.as_str() {
            "-i" => match val() {
                Some(v) if v == "0" => {}
                _ => return CmdResult::fail_out("error: displayId is invalid!\n", 1),
            },
            "-f" => match val() {
                Some(v) => file = Some(v),
                None => return CmdResult::fail_out("error: filename is invalid!\n", 1),
            },
            "-w" => size.0 = val().and_then(|v| v.parse().ok()).or(Some(0)),
            "-h" => size.1 = val().and_then(|v| v.parse().ok()).or(Some(0)),
            "-t" => match val().as_deref() {
                Some("jpeg") => {}
                other => {
                    return CmdResult::fail_out(
                        format!(
                            "error: file type {} is not supported!\n",
                            other.unwrap_or("")
                        ),
                        1,
                    );
                }
            },
            "-m" => {}
            other => {
                return CmdResult::fail_out(format!("error: option {other} is invalid!\n"), 1);
            }
        }
    }
    let path = match file {
        Some(f) => {
            if !f.ends_with(".jpeg") {
                return CmdResult::fail_out(format!("error: filename {f} is invalid!\n"), 1);
            }
            absolute(&f)
        }
        None => format!(
            "/data/local/tmp/snapshot_{}.jpeg",
            chrono::Local::now().format("%Y-%m-%d_%H-%M-%S")
        ),
    };
    ctx.spend(Cost::Screenshot);
    let mut phone = ctx.phone();
    let (sw, sh) = phone.screen_size();
    let (w, h) = (size.0.unwrap_or(sw), size.1.unwrap_or(sh));
    if w == 0 || h == 0 || w > sw * 2 || h > sh * 2 {
        return CmdResult::fail_out("error: width or height is invalid!\n", 1);
    }
    let mut jpeg = phone.screenshot(ImageFormat::Jpeg);
    if (w, h) != (sw, sh) {
        jpeg = resize_jpeg(&jpeg, w, h).unwrap_or(jpeg);
    }
    phone.fs.write(&path, jpeg);
    CmdResult::ok(format!(
        "process: display 0, file type: jpeg, width: {w}, height: {h}\n\
success: snapshot display 0 , write to {path} as jpeg, width: {w}, height: {h}\n"
    ))
}

fn resize_jpeg(bytes: &[u8], w: u32, h: u32) -> Option<Vec<u8>> {
    let img = image::load_from_memory(bytes).ok()?;
    let resized = img.resize_exact(w, h, image::imageops::FilterType::Triangle);
    let mut out = std::io::Cursor::new(Vec::new());
    resized
        .to_rgb8()
        .write_to(&mut out, image::ImageFormat::Jpeg)
        .ok()?;
    Some(out.into_inner())
}
