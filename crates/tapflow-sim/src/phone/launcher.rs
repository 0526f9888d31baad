//! System UI content: the desktop (launcher icons of installed apps), the status bar, the gesture
//! navigation bar, the soft keyboard, and the default page of apps installed without a page spec.

use super::Phone;
use super::nodes::{Metrics, ScreenNode};
use chrono::{DateTime, Local};
use tapflow_device::model::Bounds;

/// A plain node with the given type, id, text and bounds (ids numbered by the caller).
fn node(kind: &str, id: &str, text: &str, b: Bounds, acc: &mut i64) -> ScreenNode {
    *acc += 1;
    ScreenNode {
        kind: kind.into(),
        id: id.into(),
        text: text.into(),
        bounds: b,
        orig: b,
        accessibility_id: *acc,
        enabled: true,
        visible: true,
        background: "#00000000".into(),
        ..Default::default()
    }
}

/// Desktop: a 4-column grid of the launcher icons (icon image + label); tapping starts the app.
pub fn desktop(phone: &Phone, m: Metrics) -> Vec<ScreenNode> {
    let mut acc = 0;
    let top = m.status_h + m.px(120);
    let grid_b = Bounds::new(0, top, m.w, m.h - m.nav_h);
    let mut grid = node("Grid", "desktop_grid", "", grid_b, &mut acc);
    let cell_w = m.w / 4;
    let cell_h = m.px(300);
    let icons = phone.apps.values().filter(|a| a.on_launcher);
    for (i, app) in icons.enumerate() {
        let (col, row) = ((i % 4) as i32, (i / 4) as i32);
        let b = Bounds::new(
            col * cell_w,
            top + row * cell_h,
            (col + 1) * cell_w,
            top + (row + 1) * cell_h,
        );
        let mut item = node("GridItem", "", "", b, &mut acc);
        item.clickable = true;
        item.long_clickable = true;
        item.launch = Some(app.spec.bundle.clone());
        item.description = app.spec.label.clone();
        let icon = Bounds::new(
            b.left + m.px(75),
            b.top + m.px(30),
            b.right - m.px(75),
            b.top + m.px(190),
        );
        let mut img = node("Image", "", "", icon, &mut acc);
        img.background = "#FF3F7FE0".into();
        let label_b = Bounds::new(b.left, b.top + m.px(205), b.right, b.top + m.px(265));
        let label = node("Text", "", &app.spec.label, label_b, &mut acc);
        item.children = vec![img, label];
        grid.children.push(item);
    }
    vec![grid]
}

/// Status bar: clock on the left; signal, wifi and battery on the right, with SceneBoard's ids.
pub fn status_bar(phone: &Phone, m: Metrics) -> Vec<ScreenNode> {
    let mut acc = 465;
    let full = Bounds::new(0, 0, m.w, m.status_h);
    let px = |l: i32, t: i32, r: i32, b: i32| Bounds::new(m.px(l), m.px(t), m.px(r), m.px(b));
    let mut stack = node("Stack", "", "", full, &mut acc);
    let mut rc = node(
        "RelativeContainer",
        "StatusBarComponent_RelativeContainer_container",
        "",
        full,
        &mut acc,
    );
    let background = node("Row", "StatusBarBackground_Row_0", "", full, &mut acc);
    let now: DateTime<Local> = phone.clock.into();
    let mut left = node("Row", "sbgleft", "", px(61, 33, 231, 111), &mut acc);
    let mut clock_row = node(
        "Row",
        "PluginRootComponent_Stack_status_bar_clock",
        "",
        px(61, 33, 172, 111),
        &mut acc,
    );
    let mut clock = node(
        "TextClock",
        "TimeView_Text_timeText",
        "",
        px(61, 44, 159, 101),
        &mut acc,
    );
    clock.children.push(node(
        "Text",
        "",
        &now.format("%-H:%M").to_string(),
        px(61, 44, 159, 101),
        &mut acc,
    ));
    clock_row.children.push(clock);
    left.children.push(clock_row);
    let mut right = node("Row", "sbgright", "", px(950, 33, 1260, 111), &mut acc);
    // Each status-bar indicator is a Row plugin holding one component, as SceneBoard draws it.
    let battery = status_item(
        (
            "battery",
            "Text",
            "BatteryComponent-batteryIcon_Text_batterySoc",
            "85",
        ),
        (1090, 1220, 1185),
        &px,
        &mut acc,
    );
    let signal = status_item(
        (
            "signal",
            "Image",
            "SignalComponent-SignalIcon_Image_cellularImage",
            "",
        ),
        (1040, 1083, 1083),
        &px,
        &mut acc,
    );
    let wifi = status_item(
        (
            "wifi",
            "Image",
            "WifiComponent-WifiIcon_Image_wifiImage",
            "",
        ),
        (970, 1034, 1034),
        &px,
        &mut acc,
    );
    right.children = vec![battery, signal, wifi];
    rc.children = vec![background, left, right];
    stack.children.push(rc);
    vec![stack]
}

/// The gesture navigation indicator.
pub fn nav_bar(m: Metrics) -> Vec<ScreenNode> {
    let mut acc = 900;
    let b = Bounds::new(
        m.w / 2 - m.px(130),
        m.h - m.px(40),
        m.w / 2 + m.px(130),
        m.h - m.px(28),
    );
    vec![node(
        "Row",
        "GestureNavigationBar_Row_indicator",
        "",
        b,
        &mut acc,
    )]
}

/// Soft keyboard: rows of key buttons.
pub fn keyboard(m: Metrics, area: Bounds) -> Vec<ScreenNode> {
    let mut acc = 0;
    let mut col = node("Column", "", "", area, &mut acc);
    col.background = "#FFE8EAED".into();
    let key_h = m.px(150);
    for (r, keys) in KEY_ROWS.iter().enumerate() {
        let top = area.top + m.px(80) + r as i32 * (key_h + m.px(24));
        let rb = Bounds::new(area.left, top, area.right, top + key_h);
        let mut row = node("Row", "", "", rb, &mut acc);
        let kw = m.w / 10;
        let pad = (m.w - kw * keys.len() as i32) / 2;
        for (i, k) in keys.chars().enumerate() {
            let kb = Bounds::new(
                pad + i as i32 * kw + m.px(6),
                top,
                pad + (i as i32 + 1) * kw - m.px(6),
                top + key_h,
            );
            let mut key = node("Button", "", &k.to_string(), kb, &mut acc);
            key.clickable = true;
            key.background = "#FFFFFFFF".into();
            row.children.push(key);
        }
        col.children.push(row);
    }
    vec![col]
}

/// Rows of letter keys (the normal keyboard's buttons; the secure keyboard draws the same grid on
/// its canvas).
const KEY_ROWS: [&str; 3] = ["qwertyuiop", "asdfghjkl", "zxcvbnm"];

/// Huawei's secure keyboard, raised for a password field, with the node structure of the real
/// capture (`layout_haptest_logindemo_save_keyboard_pretty.json`): a title row (`safeImage`, the
/// `tile` text 华为安全键盘, the clickable `hideButton`) over a `CanvasKeyboard` canvas. Its keys are
/// drawn, not nodes, so a dump shows no key to tap; tapping the canvas still types.
pub fn secure_keyboard(m: Metrics, area: Bounds) -> Vec<ScreenNode> {
    let mut acc = 0;
    let (l, t, r, b) = (area.left, area.top, area.right, area.bottom);
    let y = |v: i32| t + m.px(v);
    let mut root = node("RelativeContainer", "", "", area, &mut acc);
    let mut content = node("Row", "content", "", area, &mut acc);
    let mut stack = node("Stack", "", "", area, &mut acc);
    let back = node("Column", "", "", area, &mut acc);
    let mut outer = node("Column", "", "", area, &mut acc);
    let mut inner = node("Column", "", "", area, &mut acc);
    let mut title = node(
        "RelativeContainer",
        "",
        "",
        Bounds::new(l, t, r, y(125)),
        &mut acc,
    );
    let safe = node(
        "Image",
        "safeImage",
        "",
        Bounds::new(l + m.px(52), y(39), l + m.px(118), y(105)),
        &mut acc,
    );
    let mut tile = node(
        "Row",
        "tile",
        "",
        Bounds::new(l + m.px(131), y(39), l + m.px(408), y(105)),
        &mut acc,
    );
    tile.children.push(node(
        "Text",
        "",
        "华为安全键盘",
        Bounds::new(l + m.px(131), y(46), l + m.px(408), y(99)),
        &mut acc,
    ));
    let mut hide = node(
        "Image",
        "hideButton",
        "",
        Bounds::new(r - m.px(138), y(29), r - m.px(52), y(114)),
        &mut acc,
    );
    hide.clickable = true;
    title.children = vec![safe, tile, hide];
    let mut keys = node(
        "RelativeContainer",
        "",
        "",
        Bounds::new(l, y(125), r, b),
        &mut acc,
    );
    let mut canvas = node(
        "Canvas",
        "CanvasKeyboard",
        "",
        Bounds::new(l, y(125), r, y(923)),
        &mut acc,
    );
    canvas.background = "#FFE8EAED".into();
    keys.children.push(canvas);
    inner.children = vec![title, keys];
    outer.children.push(inner);
    stack.children = vec![back, outer];
    content.children.push(stack);
    root.children.push(content);
    vec![root]
}

/// The letter the secure keyboard's canvas draws at `p` (the same grid as the normal keyboard:
/// three letter rows in the top three quarters of the canvas).
pub fn canvas_key_at(canvas: Bounds, p: tapflow_device::model::Point) -> Option<char> {
    if !canvas.contains(p) {
        return None;
    }
    let row_h = (canvas.height() / 4).max(1);
    let row = ((p.y - canvas.top) / row_h) as usize;
    let keys = KEY_ROWS.get(row)?;
    let kw = (canvas.width() / 10).max(1);
    let pad = (canvas.width() - kw * keys.len() as i32) / 2;
    let col = (p.x - canvas.left - pad).div_euclid(kw);
    usize::try_from(col).ok().and_then(|c| keys.chars().nth(c))
}

/// The page of an app installed without a page spec: its label, centred.
pub fn default_page(label: &str, m: Metrics, bottom: i32) -> ScreenNode {
    let mut acc = 0;
    let mut col = node(
        "Column",
        "",
        "",
        Bounds::new(0, m.status_h, m.w, bottom),
        &mut acc,
    );
    let mid = (m.status_h + bottom) / 2;
    let t = Bounds::new(m.px(48), mid - m.px(50), m.w - m.px(48), mid + m.px(50));
    col.children.push(node("Text", "", label, t, &mut acc));
    col
}

/// One status-bar plugin: `(plugin, child type, child id, text)` and `(left, row right, child
/// right)` in reference pixels, scaled by `px`.
fn status_item(
    (plugin, kind, id, text): (&str, &str, &str, &str),
    (left, row_right, child_right): (i32, i32, i32),
    px: &dyn Fn(i32, i32, i32, i32) -> Bounds,
    acc: &mut i64,
) -> ScreenNode {
    let mut row = node(
        "Row",
        &format!("PluginRootComponent_Stack_status_bar_{plugin}"),
        "",
        px(left, 33, row_right, 111),
        acc,
    );
    row.children
        .push(node(kind, id, text, px(left, 47, child_right, 97), acc));
    row
}
