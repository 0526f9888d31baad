//! Screenshots: capture and receive (JPEG and PNG, display and region), deleting the device
//! file with the next command, failed transfers and refused captures.

use pretty_assertions::assert_eq;
use tapflow_device::{Bounds, Device, ImageFormat, Output, ScreenshotRequest, TransportError};

use super::{Fake, cost, device, fixture, hdc, last_scratch_path_in, ok, scratch_path_in, shell};

fn test_image(format: image::ImageFormat) -> Vec<u8> {
    let img = image::RgbImage::from_fn(72, 128, |x, y| image::Rgb([x as u8 * 3, y as u8, 200]));
    let mut buf = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut buf, format)
        .unwrap();
    buf.into_inner()
}

/// Answers `hdc file recv <remote> <local>` the way hdc does: writes the file, prints the summary.
fn recv_writing(bytes: Vec<u8>) -> impl Fn(&[String]) -> Result<Output, TransportError> {
    move |argv: &[String]| {
        let local = argv.last().unwrap();
        std::fs::write(local, &bytes).unwrap();
        ok(&fixture("hdc_file_recv_success.txt"))
    }
}

/// A capture answered the way `snapshot_display` answers.
fn jpeg_captured(argv: &[String]) -> Result<Output, TransportError> {
    let p = last_scratch_path_in(&argv[3], "jpeg");
    ok(&format!(
        "process: display 0, file type: jpeg, width: 72, height: 128\nsuccess: snapshot display 0 , write to {p} as jpeg, width: 72, height: 128\n"
    ))
}

#[test]
fn jpeg_screenshot_is_capture_and_receive_and_the_next_capture_deletes_it() {
    let fake = Fake::new()
        .reply_with(jpeg_captured)
        .reply_with(recv_writing(test_image(image::ImageFormat::Jpeg)))
        .reply_with(jpeg_captured)
        .reply_with(recv_writing(test_image(image::ImageFormat::Jpeg)));
    let d = device(&fake);
    let request = ScreenshotRequest {
        format: ImageFormat::Jpeg,
        display_id: None,
        region: None,
    };
    let shot = d.screenshot(&request).unwrap();
    let calls = fake.calls();
    let remote = scratch_path_in(&calls[0][3], "jpeg");
    assert_eq!(calls[0], shell(&format!("snapshot_display -f '{remote}'")));
    assert_eq!(calls[1][..5], hdc(&["file", "recv", &remote])[..]);
    assert!(calls[1][5].ends_with("screen.jpeg"), "{:?}", calls[1]);
    assert_eq!(
        d.cost(),
        cost(2, 0),
        "capture + receive, no round trip to delete"
    );
    assert_eq!((shot.width, shot.height), (72, 128));
    assert_eq!(shot.format, ImageFormat::Jpeg);
    assert!(
        !std::path::Path::new(&calls[1][5]).exists(),
        "the host temp file is removed"
    );

    // The next capture deletes the previous device file in the same shell.
    d.screenshot(&request).unwrap();
    let calls = fake.calls();
    let second = last_scratch_path_in(&calls[2][3], "jpeg");
    assert_ne!(second, remote);
    assert_eq!(
        calls[2],
        shell(&format!(
            "rm -f '{remote}' 2>/dev/null; snapshot_display -f '{second}'"
        ))
    );
    assert_eq!(d.cost(), cost(4, 0));
    fake.assert_script_used();
}

#[test]
fn png_screenshot_with_display_and_region() {
    let fake = Fake::new()
        .reply_with(|argv| {
            let p = scratch_path_in(&argv[3], "png");
            ok(&format!("ScreenCap saved to {p}\n"))
        })
        .reply_with(recv_writing(test_image(image::ImageFormat::Png)));
    let d = device(&fake);
    let shot = d
        .screenshot(&ScreenshotRequest {
            format: ImageFormat::Png,
            display_id: Some(1),
            region: Some(Bounds::new(10, 20, 50, 100)),
        })
        .unwrap();
    let calls = fake.calls();
    let remote = scratch_path_in(&calls[0][3], "png");
    assert_eq!(
        calls[0],
        shell(&format!("uitest screenCap -p '{remote}' -d 1"))
    );
    assert_eq!(calls.len(), 2);
    assert_eq!((shot.width, shot.height), (40, 80));
    let back = image::load_from_memory_with_format(&shot.bytes, image::ImageFormat::Png).unwrap();
    assert_eq!((back.width(), back.height()), (40, 80));
    assert_eq!(back.to_rgb8().get_pixel(0, 0), &image::Rgb([30, 20, 200]));
}

#[test]
fn failed_transfer_still_deletes_the_device_file_with_the_next_command() {
    let fake = Fake::new()
        .reply_with(|argv| {
            let p = scratch_path_in(&argv[3], "jpeg");
            ok(&format!(
                "success: snapshot display 0 , write to {p} as jpeg, width: 1, height: 1\n"
            ))
        })
        .reply("[Fail]Error opening file: no such file or directory, path:/data/local/tmp/x.jpeg\n")
        .reply("Current State: AWAKE  Reason: 1  Time: 2\n");
    let d = device(&fake);
    let e = d
        .screenshot(&ScreenshotRequest {
            format: ImageFormat::Jpeg,
            display_id: Some(0),
            region: None,
        })
        .unwrap_err();
    assert_eq!(e.code(), "SCREENSHOT_ERROR");
    assert!(e.device_says().unwrap().contains("Error opening file"));
    assert_eq!(fake.calls().len(), 2);
    // Any next shell command of the device carries the delete, and its answer is unchanged.
    let power = d.power_state().unwrap();
    assert!(power.awake);
    let calls = fake.calls();
    assert!(calls[0][3].ends_with(".jpeg' -i 0"), "{:?}", calls[0]);
    let remote = scratch_path_in(&calls[0][3], "jpeg");
    assert_eq!(
        calls[2],
        shell(&format!(
            "rm -f '{remote}' 2>/dev/null; hidumper -s PowerManagerService -a -s"
        ))
    );
    // Sent once: the command after it carries nothing.
    let fake2 = fake.reply("Current State: AWAKE  Reason: 1  Time: 2\n");
    d.power_state().unwrap();
    assert_eq!(
        fake2.calls()[3],
        shell("hidumper -s PowerManagerService -a -s")
    );
}

#[test]
fn refused_capture_is_a_screenshot_error_in_the_device_words() {
    let fake = Fake::new().reply("current mode is not developer mode, just return.\n");
    let e = device(&fake)
        .screenshot(&ScreenshotRequest {
            format: ImageFormat::Jpeg,
            display_id: None,
            region: None,
        })
        .unwrap_err();
    assert_eq!(e.code(), "SCREENSHOT_ERROR");
    assert_eq!(
        e.device_says(),
        Some("current mode is not developer mode, just return.")
    );
    assert_eq!(fake.calls().len(), 1);
}
