//! `uiautomator dump` XML → the platform-neutral [`UiNode`] tree.
//!
//! The dump is one line: `<?xml …?><hierarchy rotation="0"><node index=… text=… resource-id=…
//! class=… package=… content-desc=… checkable checked clickable enabled focusable focused
//! scrollable long-clickable password selected bounds="[l,t][r,b]">…</hierarchy>`, no trailing
//! newline; newer APIs add `drawing-order`, `hint` and more (kept, whatever they are). Values
//! may be delimited by `'` when they contain `"`, and carry `&#10;` / `&#128247;` references
//! (see `fixtures/android/`), so a real XML reader parses it, never a regex.
//!
//! Shape of the result (documented in `docs/android.md`):
//! - a synthetic root (`bounds` = union of the windows, nothing else), as the hdc backend's;
//! - one window node per top-level `<node>` of the hierarchy (uiautomator dumps the active
//!   window, so normally one): `type=root`, `hostWindowId` = its 1-based position,
//!   `bundleName` = the node's `package`, `bounds`, `focused=true` on the first (the active
//!   window); tapflow made these, the device did not print them;
//! - under it, every `<node>` with its attributes **verbatim and in order**, plus two derived
//!   ones the ui layer keys on: `hostWindowId` (the window's number) and `accessibilityId`
//!   (the node's pre-order position within its window, counted from 1; not a device id).
//!
//! Typed accessors of [`UiNode`] read Android's names where uitest's are absent: `id()` is the
//! `resource-id` entry name (`com.tapflow.demo:id/username` → `username`), `node_type()` the
//! `class`.

use indexmap::IndexMap;
use quick_xml::Reader;
use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};

use super::ParseError;
use crate::model::{Bounds, UiNode};

/// What the dump command printed: the XML, and whatever text surrounded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpAnswer<'a> {
    /// `<?xml … </hierarchy>` (or from `<hierarchy` when the declaration is missing).
    pub xml: Option<&'a str>,
    /// Text before the XML (warnings, `ERROR: …` lines when there is no XML).
    pub before: &'a str,
    /// Text after it (`UI hierchary dumped to: /dev/tty`).
    pub after: &'a str,
}

/// Cuts the XML out of a `uiautomator dump /dev/tty` answer: from `<?xml` (or `<hierarchy`) to
/// the last `>` of `</hierarchy>`.
pub fn split_answer(text: &str) -> DumpAnswer<'_> {
    let start = text.find("<?xml").or_else(|| text.find("<hierarchy"));
    let Some(start) = start else {
        return DumpAnswer {
            xml: None,
            before: text,
            after: "",
        };
    };
    const END: &str = "</hierarchy>";
    match text[start..].rfind(END) {
        Some(rel) => {
            let end = start + rel + END.len();
            DumpAnswer {
                xml: Some(&text[start..end]),
                before: &text[..start],
                after: &text[end..],
            }
        }
        // Started but never finished: a truncated dump (the caller reports it as unparseable).
        None => DumpAnswer {
            xml: Some(&text[start..]),
            before: &text[..start],
            after: "",
        },
    }
}

/// The `UI hierchary dumped to: <path>` confirmation (sic), when present.
pub fn confirmation(text: &str) -> Option<&str> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("UI hierchary dumped to:"))
        .map(str::trim)
}

/// One parsed dump: the rotation and the top-level nodes as the device printed them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hierarchy {
    pub rotation: Option<String>,
    /// Top-level `<node>`s, attributes verbatim (no derived ones).
    pub windows: Vec<UiNode>,
}

fn err(detail: impl Into<String>) -> ParseError {
    ParseError::new("uiautomator dump", detail)
}

fn attributes(e: &BytesStart<'_>) -> Result<IndexMap<String, String>, ParseError> {
    let mut out = IndexMap::new();
    for a in e.attributes() {
        let a = a.map_err(|e| err(format!("bad attribute: {e}")))?;
        let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
        let value = a
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| err(format!("bad value of {key}: {e}")))?;
        out.insert(key, value.into_owned());
    }
    Ok(out)
}

/// Parses the XML of a dump into its top-level nodes.
pub fn parse_hierarchy(xml: &str) -> Result<Hierarchy, ParseError> {
    let mut reader = Reader::from_str(xml);
    let mut rotation = None;
    let mut seen_hierarchy = false;
    let mut closed_hierarchy = false;
    // The node being built at each depth.
    let mut stack: Vec<UiNode> = Vec::new();
    let mut windows = Vec::new();
    loop {
        let event = reader
            .read_event()
            .map_err(|e| err(format!("at byte {}: {e}", reader.buffer_position())))?;
        match event {
            Event::Start(ref e) | Event::Empty(ref e) if e.name().as_ref() == b"hierarchy" => {
                if seen_hierarchy {
                    return Err(err("more than one <hierarchy>"));
                }
                seen_hierarchy = true;
                rotation = attributes(e)?.get("rotation").cloned();
                // `<hierarchy rotation="0"/>`: an empty dump, closed at once.
                closed_hierarchy = matches!(event, Event::Empty(_));
            }
            Event::Start(e) if e.name().as_ref() == b"node" => {
                if !seen_hierarchy {
                    return Err(err("<node> outside <hierarchy>"));
                }
                stack.push(UiNode {
                    attributes: attributes(&e)?,
                    children: Vec::new(),
                });
            }
            Event::Empty(e) if e.name().as_ref() == b"node" => {
                if !seen_hierarchy {
                    return Err(err("<node> outside <hierarchy>"));
                }
                let node = UiNode {
                    attributes: attributes(&e)?,
                    children: Vec::new(),
                };
                attach(&mut stack, &mut windows, node);
            }
            Event::End(e) if e.name().as_ref() == b"node" => {
                let node = stack.pop().ok_or_else(|| err("unbalanced </node>"))?;
                attach(&mut stack, &mut windows, node);
            }
            Event::End(e) if e.name().as_ref() == b"hierarchy" => {
                if !stack.is_empty() {
                    return Err(err("</hierarchy> with unclosed <node>s"));
                }
                closed_hierarchy = true;
            }
            Event::Start(e) | Event::Empty(e) => {
                return Err(err(format!(
                    "unexpected element <{}>",
                    String::from_utf8_lossy(e.name().as_ref())
                )));
            }
            Event::Eof => break,
            // Declaration, whitespace between elements, comments.
            _ => {}
        }
    }
    if !seen_hierarchy {
        return Err(err("no <hierarchy> element"));
    }
    if !closed_hierarchy || !stack.is_empty() {
        return Err(err("the dump ends before </hierarchy> (truncated)"));
    }
    Ok(Hierarchy { rotation, windows })
}

fn attach(stack: &mut [UiNode], windows: &mut Vec<UiNode>, node: UiNode) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(node),
        None => windows.push(node),
    }
}

/// Parses a dump's XML into the neutral tree (see the module docs).
pub fn parse_dump(xml: &str) -> Result<UiNode, ParseError> {
    Ok(to_neutral(parse_hierarchy(xml)?))
}

/// Builds the neutral tree from a parsed hierarchy.
pub fn to_neutral(h: Hierarchy) -> UiNode {
    let mut windows = Vec::with_capacity(h.windows.len());
    let mut union: Option<Bounds> = None;
    for (i, top) in h.windows.into_iter().enumerate() {
        let wid = (i + 1) as i64;
        let bounds = top.bounds();
        if let Some(b) = bounds {
            union = Some(match union {
                None => b,
                Some(u) => Bounds::new(
                    u.left.min(b.left),
                    u.top.min(b.top),
                    u.right.max(b.right),
                    u.bottom.max(b.bottom),
                ),
            });
        }
        let mut attrs = IndexMap::new();
        attrs.insert("type".to_string(), "root".to_string());
        attrs.insert("hostWindowId".to_string(), wid.to_string());
        attrs.insert("bundleName".to_string(), top.attr("package").to_string());
        attrs.insert(
            "bounds".to_string(),
            bounds.map(|b| b.to_string()).unwrap_or_default(),
        );
        attrs.insert("focused".to_string(), (i == 0).to_string());
        let mut counter = 0;
        let content = derive(top, wid, &mut counter);
        windows.push(UiNode {
            attributes: attrs,
            children: vec![content],
        });
    }
    let mut root = IndexMap::new();
    root.insert(
        "bounds".to_string(),
        union.unwrap_or(Bounds::new(0, 0, 0, 0)).to_string(),
    );
    UiNode {
        attributes: root,
        children: windows,
    }
}

fn derive(mut node: UiNode, wid: i64, counter: &mut u64) -> UiNode {
    *counter += 1;
    node.attributes
        .insert("hostWindowId".to_string(), wid.to_string());
    node.attributes
        .insert("accessibilityId".to_string(), counter.to_string());
    let children = std::mem::take(&mut node.children);
    node.children = children
        .into_iter()
        .map(|c| derive(c, wid, counter))
        .collect();
    node
}

/// True for the tree of an empty dump (`<hierarchy rotation="0"/>`, no window): what a device
/// shows with the screen off or locked behind a secure keyguard.
pub fn is_empty_dump(root: &UiNode) -> bool {
    root.children.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.x" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2340]"><node index="0" text='Tap "Go"&#10;now &#128247; &amp; more' resource-id="com.x:id/go" class="android.widget.Button" package="com.x" content-desc="go button" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[10,20][110,220]" drawing-order="2" hint="" /></node></hierarchy>"#;

    #[test]
    fn parses_into_the_neutral_shape() {
        let root = parse_dump(SMALL).unwrap();
        assert_eq!(root.attr("bounds"), "[0,0][1080,2340]");
        assert_eq!(root.children.len(), 1);
        let w = &root.children[0];
        assert_eq!(w.attr("type"), "root");
        assert_eq!(w.attr("bundleName"), "com.x");
        assert_eq!(w.window_id(), Some(1));
        assert!(w.flag("focused"));
        let frame = &w.children[0];
        assert_eq!(frame.node_type(), "android.widget.FrameLayout");
        assert_eq!(frame.attr("accessibilityId"), "1");
        let b = &frame.children[0];
        assert_eq!(b.text(), "Tap \"Go\"\nnow \u{1F4F7} & more");
        assert_eq!(b.id(), "go");
        assert_eq!(b.attr("content-desc"), "go button");
        assert_eq!(b.attr("drawing-order"), "2");
        assert_eq!(b.attr("accessibilityId"), "2");
        assert_eq!(b.window_id(), Some(1));
        assert!(b.flag("clickable"));
        assert_eq!(b.bounds(), Some(Bounds::new(10, 20, 110, 220)));
        // Attribute order is the device's, derived ones last.
        let keys: Vec<&str> = b.attributes.keys().map(String::as_str).collect();
        assert_eq!(&keys[..3], ["index", "text", "resource-id"]);
        assert_eq!(&keys[keys.len() - 2..], ["hostWindowId", "accessibilityId"]);
    }

    #[test]
    fn answers_are_cut_around_the_xml() {
        let text = format!("{SMALL}UI hierchary dumped to: /dev/tty\n");
        let a = split_answer(&text);
        assert_eq!(a.xml, Some(SMALL));
        assert_eq!(confirmation(a.after), Some("/dev/tty"));
        let a = split_answer("ERROR: could not get idle state.\n");
        assert_eq!(a.xml, None);
        assert_eq!(a.before, "ERROR: could not get idle state.\n");
    }

    #[test]
    fn truncated_and_garbled_dumps_are_errors() {
        for cut in [40, 200, SMALL.len() - 20, SMALL.len() - 1] {
            assert!(parse_dump(&SMALL[..cut]).is_err(), "cut at {cut}");
        }
        assert!(parse_dump("<hierarchy><foo/></hierarchy>").is_err());
        assert!(parse_dump("").is_err());
        let empty = parse_dump(r#"<?xml version='1.0' ?><hierarchy rotation="0"/>"#).unwrap();
        assert!(is_empty_dump(&empty));
        let empty = parse_dump(r#"<hierarchy rotation="1"></hierarchy>"#).unwrap();
        assert!(is_empty_dump(&empty));
    }
}
