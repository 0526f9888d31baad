//! Android's binary XML (AXML), the form `AndroidManifest.xml` takes inside a built APK,
//! decoded back to text XML so the installer reads real APKs with the same manifest parser as
//! text ones (`super::apk`).
//!
//! The format (AOSP `ResourceTypes.h`): chunks of `type u16, headerSize u16, size u32`, all
//! little-endian. An `RES_XML_TYPE` (0x0003) file holds a string pool (0x0001: UTF-8 or
//! UTF-16 strings by offset), a resource-id map (0x0180), namespace starts and ends
//! (0x0100/0x0101), element starts (0x0102: namespace, name, attributes of 20 bytes each:
//! namespace, name, raw string, `Res_value` size/res0/type/data) and ends (0x0103), and text
//! (0x0104). Attribute values print as `aapt dump xmltree` shows them: strings as themselves,
//! integers in decimal, booleans `true`/`false`, references `@0x7f…`. Attributes named only by
//! resource id (no name string) get their framework name from the id map when it is one the
//! installer reads.

use std::fmt::Write;

const RES_XML_TYPE: u16 = 0x0003;
const RES_STRING_POOL_TYPE: u16 = 0x0001;
const RES_XML_RESOURCE_MAP_TYPE: u16 = 0x0180;
const RES_XML_START_NAMESPACE_TYPE: u16 = 0x0100;
const RES_XML_START_ELEMENT_TYPE: u16 = 0x0102;
const RES_XML_END_ELEMENT_TYPE: u16 = 0x0103;
const UTF8_FLAG: u32 = 1 << 8;

/// The `android:` attributes the installer reads, by framework resource id (`R.attr`).
const ATTR_IDS: &[(u32, &str)] = &[
    (0x0101_0001, "label"),
    (0x0101_0003, "name"),
    (0x0101_0010, "exported"),
    (0x0101_021b, "versionCode"),
    (0x0101_021c, "versionName"),
    (0x0101_0021, "targetPackage"),
    (0x0101_0272, "testOnly"),
];

fn u16_at(b: &[u8], at: usize) -> Result<u16, String> {
    b.get(at..at + 2)
        .map(|s| u16::from_le_bytes([s[0], s[1]]))
        .ok_or_else(|| format!("binary XML truncated at byte {at}"))
}

fn u32_at(b: &[u8], at: usize) -> Result<u32, String> {
    b.get(at..at + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        .ok_or_else(|| format!("binary XML truncated at byte {at}"))
}

/// True when `bytes` start like an AXML document.
pub fn is_axml(bytes: &[u8]) -> bool {
    u16_at(bytes, 0) == Ok(RES_XML_TYPE)
}

/// A UTF-8 pool length: `(value, bytes it took)`.
fn len8(b: &[u8], p: usize) -> Result<(usize, usize), String> {
    let first = *b.get(p).ok_or("string pool truncated")? as usize;
    if first & 0x80 == 0 {
        return Ok((first, 1));
    }
    let second = *b.get(p + 1).ok_or("string pool truncated")? as usize;
    Ok((((first & 0x7f) << 8) | second, 2))
}

/// The strings of a string-pool chunk starting at `at`.
fn string_pool(b: &[u8], at: usize) -> Result<Vec<String>, String> {
    let count = u32_at(b, at + 8)? as usize;
    let flags = u32_at(b, at + 16)?;
    let strings_start = at + u32_at(b, at + 20)? as usize;
    let header = u16_at(b, at + 2)? as usize;
    // A damaged count must not reserve memory the file cannot back.
    let mut out = Vec::with_capacity(count.min(b.len() / 4));
    for i in 0..count {
        let mut p = strings_start + u32_at(b, at + header + 4 * i)? as usize;
        if flags & UTF8_FLAG != 0 {
            // The character count, then the byte count, each 1 or 2 bytes (high bit: 2).
            let (_, n) = len8(b, p)?;
            p += n;
            let (len, n) = len8(b, p)?;
            p += n;
            let s = b.get(p..p + len).ok_or("string pool truncated")?;
            out.push(String::from_utf8_lossy(s).into_owned());
        } else {
            let mut len = u16_at(b, p)? as usize;
            p += 2;
            if len & 0x8000 != 0 {
                len = ((len & 0x7fff) << 16) | u16_at(b, p)? as usize;
                p += 2;
            }
            let units: Vec<u16> = (0..len)
                .map(|k| u16_at(b, p + 2 * k))
                .collect::<Result<_, _>>()?;
            out.push(String::from_utf16_lossy(&units));
        }
    }
    Ok(out)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('"', "&quot;")
        .replace('>', "&gt;")
}

/// Decodes an AXML document to text XML (elements and attributes; text nodes are dropped,
/// a manifest has none that matter).
pub fn to_text(b: &[u8]) -> Result<String, String> {
    if !is_axml(b) {
        return Err("not binary XML (no RES_XML_TYPE header)".into());
    }
    let end = (u32_at(b, 4)? as usize).min(b.len());
    let mut at = u16_at(b, 2)? as usize;
    let mut strings: Vec<String> = Vec::new();
    let mut ids: Vec<u32> = Vec::new();
    let mut prefixes: Vec<(u32, String)> = Vec::new();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
    let str_of = |strings: &[String], i: u32| -> String {
        strings.get(i as usize).cloned().unwrap_or_default()
    };
    while at + 8 <= end {
        let kind = u16_at(b, at)?;
        let size = u32_at(b, at + 4)? as usize;
        if size < 8 || at + size > end {
            return Err(format!(
                "binary XML chunk at byte {at} has a bad size {size}"
            ));
        }
        match kind {
            RES_STRING_POOL_TYPE => strings = string_pool(b, at)?,
            RES_XML_RESOURCE_MAP_TYPE => {
                ids = (at + 8..at + size)
                    .step_by(4)
                    .map(|p| u32_at(b, p))
                    .collect::<Result<_, _>>()?;
            }
            RES_XML_START_NAMESPACE_TYPE => {
                let prefix = str_of(&strings, u32_at(b, at + 16)?);
                prefixes.push((u32_at(b, at + 20)?, prefix));
            }
            RES_XML_START_ELEMENT_TYPE => {
                let ext = at + u16_at(b, at + 2)? as usize;
                let name = str_of(&strings, u32_at(b, ext + 4)?);
                let attr_start = u16_at(b, ext + 8)? as usize;
                let attr_size = u16_at(b, ext + 10)? as usize;
                let count = u16_at(b, ext + 12)? as usize;
                write!(out, "<{name}").ok();
                if name == "manifest" {
                    for (uri, p) in &prefixes {
                        write!(out, " xmlns:{p}=\"{}\"", escape(&str_of(&strings, *uri))).ok();
                    }
                }
                for k in 0..count {
                    let a = ext + attr_start + k * attr_size;
                    let ns = u32_at(b, a)?;
                    let name_idx = u32_at(b, a + 4)?;
                    let mut an = str_of(&strings, name_idx);
                    if an.is_empty() {
                        let id = ids.get(name_idx as usize).copied().unwrap_or(0);
                        an = ATTR_IDS
                            .iter()
                            .find(|(i, _)| *i == id)
                            .map(|(_, n)| n.to_string())
                            .unwrap_or_else(|| format!("attr_{id:08x}"));
                    }
                    let prefix = prefixes
                        .iter()
                        .find(|(uri, _)| *uri == ns)
                        .map(|(_, p)| format!("{p}:"))
                        .unwrap_or_default();
                    let raw = u32_at(b, a + 8)?;
                    let data_type = *b.get(a + 15).ok_or("attribute truncated")?;
                    let data = u32_at(b, a + 16)?;
                    let value = match data_type {
                        0x03 => str_of(&strings, data),
                        0x10 => (data as i32).to_string(),
                        0x11 => format!("0x{data:x}"),
                        0x12 => (data != 0).to_string(),
                        0x01 => format!("@0x{data:08x}"),
                        _ if raw != u32::MAX => str_of(&strings, raw),
                        _ => format!("0x{data:x}"),
                    };
                    write!(out, " {prefix}{an}=\"{}\"", escape(&value)).ok();
                }
                out.push('>');
            }
            RES_XML_END_ELEMENT_TYPE => {
                let ext = at + u16_at(b, at + 2)? as usize;
                write!(out, "</{}>", str_of(&strings, u32_at(b, ext + 4)?)).ok();
            }
            _ => {}
        }
        at += size;
    }
    if !out.contains("</") {
        return Err("it holds no element".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Damaged input is an error, never a panic or an allocation the bytes cannot back:
    /// seeded pseudo-random bodies behind a valid header, and every truncation of one.
    #[test]
    fn damaged_binary_xml_is_an_error_not_a_panic() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for round in 0..2_000 {
            let len = 8 + (round % 300);
            let mut b = vec![0x03, 0x00, 0x08, 0x00];
            b.extend_from_slice(&(len as u32).to_le_bytes());
            while b.len() < len {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Mostly chunk-like words, so the decoder gets past the first checks.
                let word = match x % 4 {
                    0 => RES_STRING_POOL_TYPE as u64 | (28 << 16),
                    1 => RES_XML_START_ELEMENT_TYPE as u64 | (16 << 16),
                    _ => x,
                };
                b.extend_from_slice(&(word as u32).to_le_bytes());
            }
            b.truncate(len);
            let _ = to_text(&b);
            for cut in [len / 2, len - 1] {
                let _ = to_text(&b[..cut]);
            }
        }
        assert!(to_text(b"\x03\x00\x08\x00\x08\x00\x00\x00").is_err());
        assert!(!is_axml(b"<?xml"));
    }
}
