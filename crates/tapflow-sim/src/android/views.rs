//! The phone's screen as Android views: the `uiautomator dump` XML of the active window.
//!
//! Shape of the real dumps (AOSP `AccessibilityNodeInfoDumper`, fixtures in
//! `tests/fixtures/android/`): `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>`, then
//! `<hierarchy rotation="0">` and one `<node>` tree for the root of the **active window** only
//! (the app, its dialog when one is up, or the launcher; never the status bar or the
//! keyboard), every node with the 17 attributes in their fixed order (`NAF="true"` first on
//! clickable nodes with no text or description anywhere below), invisible children left out,
//! one line, no trailing newline. Values are escaped as KXmlSerializer does: `&amp; &lt; &gt;`,
//! `&#10;` for newlines, astral characters as `&#N;`, and the value delimited by `'` when it
//! contains `"`.
//!
//! The window's decor is modelled as on a phone: `FrameLayout` (whole screen) → `LinearLayout` →
//! `FrameLayout` `android:id/content` (the app's area) → the page. Element types map to widget
//! classes ([`class_of`]); an element id becomes `<package>:id/<id>`; an empty `EditText`
//! reports its hint as its text (Android 8+ accessibility), a password field one `•` per
//! character.

use crate::phone::{Phone, ScreenNode, Window, WindowKind};
use tapflow_device::model::Bounds;

/// The launcher's package (the phone model's desktop).
pub const LAUNCHER: &str = "com.android.launcher3";

/// The widget class an element type is shown as.
pub fn class_of(kind: &str) -> &'static str {
    match kind {
        "Column" | "Row" | "ListItem" | "GridItem" => "android.widget.LinearLayout",
        "Stack" | "Dialog" | "root" => "android.widget.FrameLayout",
        "Text" => "android.widget.TextView",
        "TextInput" | "TextArea" | "Search" => "android.widget.EditText",
        "Button" => "android.widget.Button",
        "Toggle" => "android.widget.Switch",
        "Checkbox" => "android.widget.CheckBox",
        "Radio" => "android.widget.RadioButton",
        "List" | "Grid" => "androidx.recyclerview.widget.RecyclerView",
        "Scroll" => "android.widget.ScrollView",
        "Image" => "android.widget.ImageView",
        _ => "android.view.View",
    }
}

fn is_text_input(kind: &str) -> bool {
    matches!(kind, "TextInput" | "TextArea" | "Search")
}

/// One node to write: the 17 attributes and the children.
#[derive(Debug, Clone)]
struct View {
    naf: bool,
    text: String,
    resource_id: String,
    class: String,
    package: String,
    desc: String,
    checkable: bool,
    checked: bool,
    clickable: bool,
    enabled: bool,
    focusable: bool,
    focused: bool,
    scrollable: bool,
    long_clickable: bool,
    password: bool,
    selected: bool,
    bounds: Bounds,
    children: Vec<View>,
}

fn has_label(v: &View) -> bool {
    !v.text.is_empty() || !v.desc.is_empty() || v.children.iter().any(has_label)
}

fn container(class: &str, package: &str, rid: &str, bounds: Bounds) -> View {
    View {
        naf: false,
        text: String::new(),
        resource_id: rid.to_string(),
        class: class.to_string(),
        package: package.to_string(),
        desc: String::new(),
        checkable: false,
        checked: false,
        clickable: false,
        enabled: true,
        focusable: false,
        focused: false,
        scrollable: false,
        long_clickable: false,
        password: false,
        selected: false,
        bounds,
        children: Vec::new(),
    }
}

fn view_of(n: &ScreenNode, package: &str) -> View {
    let input = is_text_input(&n.kind);
    // A launcher icon is one TextView labelled with the app (Pixel launcher style).
    if n.launch.is_some() {
        let mut v = container("android.widget.TextView", package, "", n.bounds);
        v.text = n.description.clone();
        v.desc = n.description.clone();
        v.clickable = true;
        v.long_clickable = true;
        v.focusable = true;
        return v;
    }
    let text = if input && n.text.is_empty() {
        n.hint.clone()
    } else {
        n.text.clone()
    };
    let resource_id = if n.id.is_empty() {
        String::new()
    } else {
        format!("{package}:id/{}", n.id)
    };
    let clickable = n.clickable || input || n.toggle_key.is_some() || !n.on_tap.is_empty();
    let mut v = View {
        naf: false,
        text,
        resource_id,
        class: class_of(&n.kind).to_string(),
        package: package.to_string(),
        desc: n.description.clone(),
        checkable: n.checkable,
        checked: n.checked,
        clickable,
        enabled: n.enabled,
        focusable: clickable || input,
        // Android focus is the field's own (the phone model marks ArkUI's focus chain).
        focused: input && n.focused,
        scrollable: n.scrollable,
        long_clickable: n.long_clickable || input,
        password: n.password,
        selected: n.selected,
        bounds: n.bounds,
        children: n
            .children
            .iter()
            .filter(|c| c.visible && !c.bounds.is_empty())
            .map(|c| view_of(c, package))
            .collect(),
    };
    v.naf = v.clickable && v.enabled && !has_label(&v);
    v
}

/// The window's root: decor → content frame → its content.
fn decor(win_bounds: Bounds, content: Bounds, package: &str, children: Vec<View>) -> View {
    let mut frame = container(
        "android.widget.FrameLayout",
        package,
        "android:id/content",
        content,
    );
    frame.children = children;
    let mut linear = container("android.widget.LinearLayout", package, "", win_bounds);
    linear.children = vec![frame];
    let mut root = container("android.widget.FrameLayout", package, "", win_bounds);
    root.children = vec![linear];
    root
}

/// The package a window belongs to on Android.
pub fn window_package(w: &Window) -> String {
    match w.kind {
        WindowKind::Desktop => LAUNCHER.to_string(),
        WindowKind::StatusBar | WindowKind::NavBar => "com.android.systemui".to_string(),
        WindowKind::Ime => "com.android.inputmethod.latin".to_string(),
        WindowKind::App => w.bundle.clone(),
    }
}

/// The root view of the active window, `None` with the screen off.
fn active_root(phone: &Phone) -> Option<View> {
    if !phone.power_awake() {
        return None;
    }
    let windows = phone.windows_on_screen();
    let w = windows
        .iter()
        .find(|w| matches!(w.kind, WindowKind::App | WindowKind::Desktop))?;
    let package = window_package(w);
    let kids: Vec<&ScreenNode> = w
        .children
        .iter()
        .filter(|c| c.visible && !c.bounds.is_empty())
        .collect();
    // A dialog is its own window on Android, and the active one while it is up.
    if phone.dialog_shown()
        && let Some(dialog) = kids.last().filter(|d| d.kind == "Dialog")
    {
        let content = view_of(dialog, &package);
        return Some(decor(dialog.bounds, dialog.bounds, &package, vec![content]));
    }
    let content = kids.iter().map(|c| view_of(c, &package)).collect();
    Some(decor(w.orig, w.bounds, &package, content))
}

/// KXmlSerializer's attribute escaping for value `v` delimited by `q`.
fn escape_into(out: &mut String, v: &str, q: char) {
    for c in v.chars() {
        match c {
            '\n' | '\r' | '\t' => out.push_str(&format!("&#{};", c as u32)),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c if c == q => out.push_str(if q == '"' { "&quot;" } else { "&apos;" }),
            c if (c as u32) > 0xFFFF => out.push_str(&format!("&#{};", c as u32)),
            // Characters XML cannot carry become '.', as the dumper's stripInvalidXMLChars.
            c if (c as u32) < 0x20
                || (0x7F..=0x84).contains(&(c as u32))
                || (0x86..=0x9F).contains(&(c as u32)) =>
            {
                out.push('.')
            }
            c => out.push(c),
        }
    }
}

fn attr(out: &mut String, key: &str, value: &str) {
    let q = if value.contains('"') { '\'' } else { '"' };
    out.push(' ');
    out.push_str(key);
    out.push('=');
    out.push(q);
    escape_into(out, value, q);
    out.push(q);
}

fn write_node(out: &mut String, v: &View, index: usize) {
    out.push_str("<node");
    if v.naf {
        attr(out, "NAF", "true");
    }
    let b = |x: bool| if x { "true" } else { "false" };
    attr(out, "index", &index.to_string());
    attr(out, "text", &v.text);
    attr(out, "resource-id", &v.resource_id);
    attr(out, "class", &v.class);
    attr(out, "package", &v.package);
    attr(out, "content-desc", &v.desc);
    attr(out, "checkable", b(v.checkable));
    attr(out, "checked", b(v.checked));
    attr(out, "clickable", b(v.clickable));
    attr(out, "enabled", b(v.enabled));
    attr(out, "focusable", b(v.focusable));
    attr(out, "focused", b(v.focused));
    attr(out, "scrollable", b(v.scrollable));
    attr(out, "long-clickable", b(v.long_clickable));
    attr(out, "password", b(v.password));
    attr(out, "selected", b(v.selected));
    attr(out, "bounds", &v.bounds.to_string());
    if v.children.is_empty() {
        out.push_str(" />");
        return;
    }
    out.push('>');
    for (i, c) in v.children.iter().enumerate() {
        write_node(out, c, i);
    }
    out.push_str("</node>");
}

/// The dump of the current screen (one line, no trailing newline). With the screen off there
/// is no active window: `None` (uiautomator then prints its null-root error).
pub fn dump(phone: &Phone) -> Option<String> {
    let root = active_root(phone)?;
    let mut out = String::from(
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">",
    );
    write_node(&mut out, &root, 0);
    out.push_str("</hierarchy>");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_follows_kxml() {
        let mut s = String::new();
        attr(&mut s, "text", "a\"b");
        assert_eq!(s, " text='a\"b'");
        let mut s = String::new();
        attr(&mut s, "text", "it's <ok> & \u{1F4F7}\nnext");
        assert_eq!(s, " text=\"it's &lt;ok&gt; &amp; &#128247;&#10;next\"");
        let mut s = String::new();
        attr(&mut s, "text", "\"q\" and 'a'");
        assert_eq!(s, " text='\"q\" and &apos;a&apos;'");
    }
}
