//! Screenshots: the current screen drawn from its layout dump (so recorded layouts render too):
//! window and element backgrounds as filled boxes, element outlines, ASCII text with font8x8,
//! other glyphs as boxes; encoded as PNG or JPEG at the screen size. The screen off is black.
//!
//! Drawing works on whole rows (`copy_from_slice`) so it stays fast in unoptimised test builds
//! (PNG ≈ 0.1 s there). The JPEG encoder is generic and so compiled at this crate's opt-level:
//! ≈ 1 s per 1260x2720 frame in debug builds, fast in release.

use super::{LayoutOptions, Phone};
use font8x8::UnicodeFonts;
use serde_json::Value;
use std::io::Cursor;
use tapflow_device::model::{Bounds, ImageFormat};

pub type Rgb = [u8; 3];

struct Canvas {
    w: i32,
    h: i32,
    buf: Vec<u8>,
}

impl Canvas {
    fn new(w: u32, h: u32, bg: Rgb) -> Self {
        // One row by hand, then whole-row memcpys: per-pixel generic code would be monomorphised
        // into this crate and crawl in unoptimised test builds.
        let row_len = w as usize * 3;
        let mut buf = vec![0u8; row_len * h as usize];
        if bg != [0, 0, 0] && h > 0 {
            for px in buf[..row_len].chunks_exact_mut(3) {
                px.copy_from_slice(&bg);
            }
            for y in 1..h as usize {
                buf.copy_within(0..row_len, y * row_len);
            }
        }
        Canvas {
            w: w as i32,
            h: h as i32,
            buf,
        }
    }

    fn fill(&mut self, b: Bounds, c: Rgb) {
        let (l, t) = (b.left.clamp(0, self.w), b.top.clamp(0, self.h));
        let (r, bo) = (b.right.clamp(0, self.w), b.bottom.clamp(0, self.h));
        if r <= l || bo <= t {
            return;
        }
        let row: Vec<u8> = c
            .iter()
            .copied()
            .cycle()
            .take((r - l) as usize * 3)
            .collect();
        for y in t..bo {
            let start = (y as usize * self.w as usize + l as usize) * 3;
            self.buf[start..start + row.len()].copy_from_slice(&row);
        }
    }

    fn outline(&mut self, b: Bounds, c: Rgb) {
        self.fill(Bounds::new(b.left, b.top, b.right, b.top + 2), c);
        self.fill(Bounds::new(b.left, b.bottom - 2, b.right, b.bottom), c);
        self.fill(Bounds::new(b.left, b.top, b.left + 2, b.bottom), c);
        self.fill(Bounds::new(b.right - 2, b.top, b.right, b.bottom), c);
    }

    /// Draws `text` left-aligned and vertically centred in `b`, clipped to `b`.
    fn text(&mut self, b: Bounds, text: &str, c: Rgb) {
        // Glyph scale: from the box height, shrunk so the text fits the width when it can.
        let n = text.chars().count().max(1) as i32;
        let k = (b.height() / 12)
            .clamp(2, 5)
            .min((b.width() - 8) / (n * 8))
            .max(1);
        let gw = 8 * k;
        let mut x = b.left + k * 4;
        let y = b.top + (b.height() - gw) / 2;
        for ch in text.chars() {
            if x + gw > b.right {
                break;
            }
            match font8x8::BASIC_FONTS.get(ch) {
                Some(glyph) => {
                    for (gy, bits) in glyph.iter().enumerate() {
                        for gx in 0..8 {
                            if bits & (1 << gx) != 0 {
                                let px = x + gx * k;
                                let py = y + gy as i32 * k;
                                self.fill(Bounds::new(px, py, px + k, py + k), c);
                            }
                        }
                    }
                }
                None => self.outline(Bounds::new(x + k, y, x + gw - k, y + gw), c),
            }
            x += gw;
        }
    }
}

/// `#AARRGGBB` or `#RRGGBB` → (alpha, rgb).
fn parse_color(s: &str) -> Option<(u8, Rgb)> {
    let h = s.strip_prefix('#')?;
    let v = u32::from_str_radix(h, 16).ok()?;
    match h.len() {
        8 => Some(((v >> 24) as u8, [(v >> 16) as u8, (v >> 8) as u8, v as u8])),
        6 => Some((255, [(v >> 16) as u8, (v >> 8) as u8, v as u8])),
        _ => None,
    }
}

fn luminance(c: Rgb) -> u32 {
    (c[0] as u32 * 299 + c[1] as u32 * 587 + c[2] as u32 * 114) / 1000
}

fn draw(cv: &mut Canvas, node: &Value, under: Rgb) {
    let a = &node["attributes"];
    let s = |k: &str| a[k].as_str().unwrap_or("");
    let Some(b) = Bounds::parse(s("bounds")) else {
        return;
    };
    let mut bg = under;
    if let Some((alpha, c)) = parse_color(s("backgroundColor"))
        && alpha >= 0x80
    {
        cv.fill(b, c);
        bg = c;
    }
    let kind = s("type");
    let fg: Rgb = if luminance(bg) < 128 {
        [240, 240, 240]
    } else {
        [20, 20, 20]
    };
    if matches!(
        kind,
        "Button"
            | "TextInput"
            | "Toggle"
            | "Checkbox"
            | "ListItem"
            | "Dialog"
            | "GridItem"
            | "Image"
    ) {
        cv.outline(b, [150, 150, 150]);
    }
    if kind == "Toggle" && s("checked") == "true" {
        cv.fill(
            Bounds::new(b.right - b.height(), b.top + 8, b.right - 8, b.bottom - 8),
            [10, 89, 247],
        );
    }
    let text = if s("text").is_empty() {
        s("hint")
    } else {
        s("text")
    };
    if !text.is_empty() {
        let color = if s("text").is_empty() {
            [140, 140, 140]
        } else {
            fg
        };
        cv.text(b, text, color);
    }
    for c in node["children"].as_array().into_iter().flatten() {
        draw(cv, c, bg);
    }
}

/// Everything a frame of the screen is drawn from (compared to tell whether the screen changed).
#[derive(Debug, Clone, PartialEq)]
pub struct FrameSource {
    pub size: (u32, u32),
    pub awake: bool,
    pub bg: Rgb,
    pub layout: Option<Value>,
}

impl FrameSource {
    /// Draws the frame.
    pub fn draw(&self) -> image::RgbImage {
        let (w, h) = self.size;
        let mut cv = Canvas::new(w, h, if self.awake { self.bg } else { [0, 0, 0] });
        if self.awake
            && let Some(tree) = &self.layout
        {
            for win in tree["children"].as_array().into_iter().flatten() {
                draw(&mut cv, win, self.bg);
            }
        }
        image::RgbImage::from_raw(w, h, cv.buf).unwrap_or_else(|| image::RgbImage::new(w, h))
    }
}

/// Encodes an image as PNG or JPEG (quality 80); empty for a zero-sized image.
pub fn encode(img: &image::RgbImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    let res = match format {
        ImageFormat::Png => {
            let enc = image::codecs::png::PngEncoder::new_with_quality(
                &mut out,
                image::codecs::png::CompressionType::Fast,
                image::codecs::png::FilterType::Up,
            );
            img.write_with_encoder(enc)
        }
        ImageFormat::Jpeg => img.write_with_encoder(
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 80),
        ),
    };
    // Encoding into memory only fails for zero-sized screens: an empty answer then, no panic.
    match res {
        Ok(()) => out.into_inner(),
        Err(_) => Vec::new(),
    }
}

impl Phone {
    /// What the screen shows now, ready to draw.
    pub(super) fn frame_source(&self) -> FrameSource {
        let dark = self
            .fg_proc()
            .is_some_and(|p| p.vars.get("dark_mode").is_some_and(|v| v == "true"));
        FrameSource {
            size: self.profile.screen,
            awake: self.awake,
            bg: if dark { [30, 30, 30] } else { [250, 250, 250] },
            layout: if self.awake {
                self.layout(&LayoutOptions::default()).ok()
            } else {
                None
            },
        }
    }

    /// An encoded screenshot (PNG or JPEG) of the current screen at the screen size.
    pub fn screenshot(&self, format: ImageFormat) -> Vec<u8> {
        encode(&self.frame_source().draw(), format)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_colors() {
        assert_eq!(parse_color("#FF0A59F7"), Some((255, [0x0a, 0x59, 0xf7])));
        assert_eq!(parse_color("#102030"), Some((255, [0x10, 0x20, 0x30])));
        assert_eq!(parse_color("empty"), None);
        assert_eq!(parse_color("#12"), None);
    }

    #[test]
    fn draws_text_inside_its_box_only() {
        let mut cv = Canvas::new(200, 100, [255, 255, 255]);
        let b = Bounds::new(10, 10, 110, 50);
        cv.text(b, "Hello, world — 世界", [0, 0, 0]);
        let mut inked = 0;
        for y in 0..100 {
            for x in 0..200 {
                let i = (y * 200 + x) * 3;
                if cv.buf[i] == 0 {
                    inked += 1;
                    assert!(
                        b.contains(tapflow_device::model::Point::new(x as i32, y as i32)),
                        "ink at {x},{y}"
                    );
                }
            }
        }
        assert!(inked > 50);
        // Out-of-range boxes are clipped, not a panic.
        cv.fill(Bounds::new(-50, -50, 500, 500), [1, 2, 3]);
        cv.text(Bounds::new(190, 90, 400, 400), "clipped", [0, 0, 0]);
    }

    #[test]
    fn zero_sized_screen_gives_empty_bytes_not_a_panic() {
        let mut prof = super::super::PhoneProfile::default_for("Z", 0);
        prof.screen = (0, 0);
        let p = Phone::new(prof);
        assert!(p.screenshot(ImageFormat::Png).is_empty());
    }
}
