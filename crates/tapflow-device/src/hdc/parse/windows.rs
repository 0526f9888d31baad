//! `hidumper -s WindowManagerService -a '-a'` (old and NEXT formats) and `-a '-w <id>'`.
//!
//! The table: a header line starting `WindowName`, then one fixed-width row per window:
//! `name displayId pid winId type mode flag zOrd orientation [ x y w h ]` and, on NEXT/SceneBoard,
//! `[ OffsetX OffsetY ] [ ScaleX ScaleY PivotX PivotY ]`. Rows above the all-dash separator are
//! shown on screen; rows below it are not. Names are cut to 20 characters by WMS and kept as is.
//! Trailer: `Focus window: N`, `Total window num: N` (old format: lower-case `total`).
use super::ParseError;
use crate::model::{Rect, WindowInfo, WindowTable};

/// `Key: value` lines of one window.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WindowDetail {
    pub window_name: Option<String>,
    pub window_id: Option<i64>,
    pub pid: Option<i64>,
    pub visible: Option<bool>,
    pub rect: Option<Rect>,
    pub fields: indexmap::IndexMap<String, String>,
}

/// The numeric columns after the name, before the first `[`.
const NUMERIC_COLUMNS: usize = 8;

/// A missing header (e.g. hidumper's `no such service` text) is a [`ParseError`]; lines in the
/// table region that are not rows (banners, `ScreenGroup` lines, `All Focus window:` …) are skipped.
pub fn parse_window_table(text: &str) -> Result<WindowTable, ParseError> {
    let mut table = WindowTable::default();
    let mut in_table = false;
    let mut visible = true;
    for line in super::lines(text) {
        if line.starts_with("WindowName") && line.contains("WinId") {
            // A new table (one per screen group on older builds) starts visible again.
            in_table = true;
            visible = true;
            continue;
        }
        if line.len() >= 20 && line.bytes().all(|b| b == b'-') {
            visible = false;
            continue;
        }
        if let Some(v) = value_after(line, "Focus window:") {
            // Should a dump carry several tables (screen groups), the first focus line wins.
            if table.focus_window.is_none() {
                table.focus_window = v.parse().ok();
            }
            continue;
        }
        if let Some(v) = strip_prefix_ignore_case(line, "total window num:") {
            table.total = v.trim().parse().ok();
            continue;
        }
        if in_table && let Some(row) = parse_row(line, visible) {
            table.windows.push(row);
        }
    }
    if !in_table {
        let start: String = text.trim().chars().take(80).collect();
        return Err(ParseError::new(
            "window table",
            format!("no `WindowName … WinId` header in: {start:?}"),
        ));
    }
    Ok(table)
}

/// `get` keeps this safe on lines with multi-byte characters at the cut.
fn strip_prefix_ignore_case<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    let head = line.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &line[prefix.len()..])
}

fn value_after<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.strip_prefix(key).map(str::trim)
}

fn parse_row(line: &str, visible: bool) -> Option<WindowInfo> {
    let bracket = line.find('[')?;
    let head: Vec<&str> = line[..bracket].split_whitespace().collect();
    if head.len() < NUMERIC_COLUMNS + 1 {
        return None;
    }
    let (name, nums) = head.split_at(head.len() - NUMERIC_COLUMNS);
    let n: Vec<i64> = nums.iter().map(|s| s.parse().ok()).collect::<Option<_>>()?;
    let rect_text = line[bracket + 1..].split(']').next()?;
    let rect = parse_rect(rect_text)?;
    Some(WindowInfo {
        name: name.join(" "),
        display_id: n[0],
        pid: n[1],
        window_id: n[2],
        window_type: n[3],
        mode: n[4],
        flag: n[5],
        z_order: n[6],
        orientation: n[7],
        rect,
        visible,
        bundle_name: None,
    })
}

/// `x y w h` or `x, y, w, h` (the detail dump uses commas).
fn parse_rect(text: &str) -> Option<Rect> {
    let v: Vec<i32> = text
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().ok())
        .collect::<Option<_>>()?;
    match v.as_slice() {
        [x, y, w, h] => Some(Rect {
            x: *x,
            y: *y,
            w: *w,
            h: *h,
        }),
        _ => None,
    }
}

/// Every `Key: value` line is kept in `fields` (in order); the common ones are typed too.
/// Text without a `WindowName`/`WinId` line is a [`ParseError`] (e.g. an unknown window id).
pub fn parse_window_detail(text: &str) -> Result<WindowDetail, ParseError> {
    let mut d = WindowDetail::default();
    for line in super::lines(text) {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let (key, value) = (key.trim(), value.trim());
        if key.is_empty() || key.contains(' ') {
            continue;
        }
        match key {
            "WindowName" => d.window_name = Some(value.to_string()),
            "WinId" | "WindowId" => d.window_id = value.parse().ok(),
            "Pid" => d.pid = value.parse().ok(),
            "IsVisible" => {
                d.visible = match value {
                    "true" | "1" => Some(true),
                    "false" | "0" => Some(false),
                    _ => None,
                }
            }
            "WindowRect" => {
                d.rect = parse_rect(value.trim_start_matches('[').trim_end_matches(']'));
            }
            _ => {}
        }
        d.fields
            .entry(key.to_string())
            .or_insert_with(|| value.to_string());
    }
    if d.window_name.is_none() && d.window_id.is_none() {
        let start: String = text.trim().chars().take(80).collect();
        return Err(ParseError::new(
            "window detail",
            format!("no WindowName/WinId in: {start:?}"),
        ));
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_header_is_an_error() {
        assert_eq!(parse_window_table("").unwrap_err().what, "window table");
        assert!(parse_window_table("hidumper: No such service\n").is_err());
    }

    #[test]
    fn malformed_rows_are_skipped_not_fatal() {
        let t = "WindowName DisplayId Pid WinId Type Mode Flag ZOrd Orientation [ x y w h ]\n\
                 a 0 1 2 3 4 5 6 7 [ 1 2 3 ]\n\
                 b 0 1 x 3 4 5 6 7 [ 1 2 3 4 ]\n\
                 name with space 0 1 2 3 4 5 -1 7 [ -5 0 10 10 ]\n";
        let table = parse_window_table(t).unwrap();
        assert_eq!(table.windows.len(), 1);
        assert_eq!(table.windows[0].name, "name with space");
        assert_eq!(table.windows[0].z_order, -1);
        assert_eq!(table.windows[0].rect.x, -5);
        assert_eq!(table.focus_window, None);
    }

    #[test]
    fn detail_without_window_is_an_error() {
        assert!(parse_window_detail("").is_err());
        assert!(parse_window_detail("error: window not found").is_err());
        let d = parse_window_detail("WinId: 3\nWindowRect: [ 1, 2 ]\nIsVisible: maybe\n").unwrap();
        assert_eq!(d.window_id, Some(3));
        assert_eq!(d.rect, None);
        assert_eq!(d.visible, None);
    }
}
