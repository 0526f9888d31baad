//! Screen size from `hidumper -s RenderService -a screen` (both formats, foldables) or
//! `hidumper -s DisplayManagerService -a -a`.
//!
//! RenderService prints one `screen[i]: id=…, powerStatus=…, render size: WxH, …` line per screen
//! (newer builds: `render resolution=WxH`). A foldable lists its inner and outer screens; the one
//! in use is the powered-on one. A phone whose screen is off reports `POWER_STATUS_OFF` for its
//! only screen, so when none is on, the first real screen is still the answer.
use crate::model::ScreenSize;

struct RsScreen {
    size: ScreenSize,
    powered_on: bool,
    is_virtual: bool,
}

pub fn parse_render_service_screen(text: &str) -> Option<ScreenSize> {
    let mut screens: Vec<RsScreen> = Vec::new();
    let mut active_mode: Option<ScreenSize> = None;
    for line in super::lines(text) {
        // `###` lines are annotations in copied captures, never device output.
        if line.starts_with("###") {
            continue;
        }
        if line.starts_with("screen[") {
            let lower = line.to_ascii_lowercase();
            let size = size_after(&lower, "render resolution=")
                .or_else(|| size_after(&lower, "render size:"))
                .or_else(|| size_after(&lower, "physical resolution="))
                .or_else(|| size_after(&lower, "physical screen resolution:"));
            if let Some(size) = size {
                screens.push(RsScreen {
                    size,
                    powered_on: lower.contains("powerstatus=power_status_on"),
                    is_virtual: lower.contains("isvirtual=true"),
                });
            }
        } else if active_mode.is_none()
            && let Some(rest) = line.strip_prefix("activeMode:")
        {
            active_mode = parse_size(rest);
        }
    }
    let real = || screens.iter().filter(|s| !s.is_virtual);
    real()
        .find(|s| s.powered_on)
        .or_else(|| real().next())
        .or_else(|| screens.first())
        .map(|s| s.size)
        .or(active_mode)
}

/// `Bounds<L,T,W,H>: 0, 0, 1260, 2720,` of the first screen; else `activeModes<id, W, H, RS>`.
pub fn parse_display_manager_screen(text: &str) -> Option<ScreenSize> {
    let mut bounds = None;
    let mut mode = None;
    for line in super::lines(text) {
        if bounds.is_none()
            && let Some(rest) = line.strip_prefix("Bounds<L,T,W,H>:")
        {
            bounds = numbers(rest)
                .get(2..4)
                .and_then(|wh| screen_size(wh[0], wh[1]));
        } else if mode.is_none()
            && let Some(rest) = line.strip_prefix("activeModes<id, W, H, RS>:")
        {
            mode = numbers(rest)
                .get(1..3)
                .and_then(|wh| screen_size(wh[0], wh[1]));
        }
    }
    bounds.or(mode)
}

fn numbers(text: &str) -> Vec<f64> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map_while(|s| s.parse().ok())
        .collect()
}

fn screen_size(w: f64, h: f64) -> Option<ScreenSize> {
    let ok = |v: f64| v >= 1.0 && v <= u32::MAX as f64 && v.fract() == 0.0;
    (ok(w) && ok(h)).then_some(ScreenSize {
        width: w as u32,
        height: h as u32,
    })
}

fn size_after(line: &str, key: &str) -> Option<ScreenSize> {
    let (_, rest) = line.split_once(key)?;
    parse_size(rest)
}

/// `1260x2720` at the start of `text` (after spaces); both sides non-zero.
fn parse_size(text: &str) -> Option<ScreenSize> {
    let text = text.trim_start();
    let (w, rest) = text.split_once('x')?;
    let h_end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let width: u32 = w.trim().parse().ok()?;
    let height: u32 = rest[..h_end].parse().ok()?;
    (width > 0 && height > 0).then_some(ScreenSize { width, height })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_screens_lose_to_real_ones() {
        let t = "screen[0]: id=9, powerStatus=POWER_STATUS_ON, render resolution=100x200, isVirtual=true\n\
                 screen[1]: id=0, powerStatus=POWER_STATUS_OFF, render resolution=1080x2400, isVirtual=false\n";
        assert_eq!(
            parse_render_service_screen(t),
            Some(ScreenSize {
                width: 1080,
                height: 2400
            })
        );
    }

    #[test]
    fn zero_or_garbage_sizes_are_none() {
        assert_eq!(parse_render_service_screen(""), None);
        assert_eq!(
            parse_render_service_screen("screen[0]: id=0, render size: 0x0\n"),
            None
        );
        assert_eq!(
            parse_render_service_screen(
                "screen[0]: id=0, render size: axb\nactiveMode: 720x1280, refreshRate=60\n"
            ),
            Some(ScreenSize {
                width: 720,
                height: 1280
            })
        );
        assert_eq!(
            parse_display_manager_screen("Bounds<L,T,W,H>: 0, 0, 0, 0,\n"),
            None
        );
        assert_eq!(parse_display_manager_screen("Bounds<L,T,W,H>: x\n"), None);
    }

    #[test]
    fn display_manager_falls_back_to_active_mode() {
        assert_eq!(
            parse_display_manager_screen("activeModes<id, W, H, RS>:    0, 1260, 2720, 120\n"),
            Some(ScreenSize {
                width: 1260,
                height: 2720
            })
        );
    }
}
