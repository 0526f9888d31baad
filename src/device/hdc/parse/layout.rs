//! `uitest dumpLayout` JSON: compact or pretty, the merged root object or the `-i` per-window array.
//!
//! Every node is `{"attributes":{string→string}, "children":[node…]}`; attributes are kept verbatim
//! and in file order ([`UiNode`] uses an `IndexMap`, serde_json has `preserve_order`), so
//! re-serialising a parsed dump gives the same tree. Keys other than `attributes`/`children`
//! (`extraAttrs` from `-a`) are not part of the model and are dropped.
//!
//! Parsing is one pass straight into [`UiNode`] (no intermediate `Value`), linear in the input and
//! without recursion (see `layout_reader.rs` for why not serde), so deep Web trees parse.
use super::ParseError;
use super::layout_reader::{self, Top};
use crate::device::model::{Bounds, UiNode};
use indexmap::IndexMap;

const WHAT: &str = "layout";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayoutDump {
    /// One synthetic root whose children are windows (the default).
    Merged(UiNode),
    /// `-i`: one tree per window, not merged.
    PerWindow(Vec<UiNode>),
}

impl LayoutDump {
    /// The dump as one tree, the way uitest merges it by default.
    ///
    /// `PerWindow` gets a synthetic root like uitest's: every attribute key the windows' roots
    /// carry (first window's order first), all `""`, except `bounds`, which is the union of the
    /// windows' bounds (`[0,0][0,0]` when there is none, as on a locked screen).
    pub fn into_merged(self) -> UiNode {
        match self {
            LayoutDump::Merged(root) => root,
            LayoutDump::PerWindow(windows) => {
                let mut attributes: IndexMap<String, String> = IndexMap::new();
                for w in &windows {
                    for key in w.attributes.keys() {
                        if !attributes.contains_key(key) {
                            attributes.insert(key.clone(), String::new());
                        }
                    }
                }
                let union = windows
                    .iter()
                    .filter_map(UiNode::bounds)
                    .filter(|b| !b.is_empty())
                    .reduce(|a, b| {
                        Bounds::new(
                            a.left.min(b.left),
                            a.top.min(b.top),
                            a.right.max(b.right),
                            a.bottom.max(b.bottom),
                        )
                    })
                    .unwrap_or(Bounds::new(0, 0, 0, 0));
                attributes.insert("bounds".to_string(), union.to_string());
                UiNode {
                    attributes,
                    children: windows,
                }
            }
        }
    }

    /// The window trees: the merged root's children, or the `-i` array itself.
    pub fn windows(&self) -> &[UiNode] {
        match self {
            LayoutDump::Merged(root) => &root.children,
            LayoutDump::PerWindow(windows) => windows,
        }
    }
}

/// Parses a dump in any of its forms. Whitespace around and inside the JSON does not matter.
///
/// Rejected with a [`ParseError`] (`what = "layout"`): empty text, invalid JSON, JSON of another
/// shape (a node without `attributes`, non-string attribute values, `children` not an array of
/// nodes), a tree deeper than 1000 levels, and a root without a `bounds` attribute (uitest always
/// writes one, even when locked). The detail names the line and column where reading stopped.
pub fn parse_layout(text: &str) -> Result<LayoutDump, ParseError> {
    // A UTF-8 byte-order mark is not JSON, but Windows tools like to add one.
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let dump = match layout_reader::read(body) {
        Ok(Top::Node(root)) => LayoutDump::Merged(root),
        Ok(Top::Array(windows)) => LayoutDump::PerWindow(windows),
        Err(e) => {
            let (line, column) = layout_reader::position(body, e.offset);
            return Err(ParseError::new(
                WHAT,
                format!(
                    "not a uitest layout: {} at line {line} column {column}",
                    e.message
                ),
            ));
        }
    };
    let roots: &[UiNode] = match &dump {
        LayoutDump::Merged(root) => std::slice::from_ref(root),
        LayoutDump::PerWindow(windows) => windows,
    };
    if let Some(pos) = roots
        .iter()
        .position(|r| !r.attributes.contains_key("bounds"))
    {
        return Err(ParseError::new(
            WHAT,
            format!("root node {pos} has no `bounds` attribute; not a uitest layout"),
        ));
    }
    Ok(dump)
}

/// The root uitest writes with the screen locked / no window: bounds `[0,0][0,0]`, no children.
///
/// Any childless root whose bounds are empty or missing counts: there is no window to act on.
pub fn is_locked_screen_root(root: &UiNode) -> bool {
    root.children.is_empty() && root.bounds().is_none_or(|b| b.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(attrs: &[(&str, &str)], children: Vec<UiNode>) -> UiNode {
        UiNode {
            attributes: attrs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            children,
        }
    }

    #[test]
    fn rejects_non_layout_json() {
        for bad in [
            "",
            "   ",
            "null",
            "42",
            "\"x\"",
            "{}",
            "{\"attributes\":{\"bounds\":1},\"children\":[]}",
            "{\"attributes\":{\"bounds\":\"[0,0][1,1]\"},\"children\":{}}",
            "{\"attributes\":{\"text\":\"no bounds\"},\"children\":[]}",
            "[{\"attributes\":{\"type\":\"root\"},\"children\":[]}]",
            "[1,2]",
            "{\"attributes\":{\"bounds\":\"[0,0][1,1]\"},\"children\":[]} trailing",
            "DumpLayout saved to:/data/local/tmp/x.json",
        ] {
            let err = parse_layout(bad).unwrap_err();
            assert_eq!(err.what, "layout", "{bad}");
        }
    }

    #[test]
    fn accepts_minimal_forms() {
        let merged =
            parse_layout("\u{feff} {\"attributes\":{\"bounds\":\"[0,0][10,10]\"}}\n").unwrap();
        assert!(matches!(merged, LayoutDump::Merged(ref r) if r.children.is_empty()));
        assert_eq!(parse_layout("[]").unwrap(), LayoutDump::PerWindow(vec![]));
    }

    #[test]
    fn deeper_than_serde_allows() {
        // serde_json would stop at 63 node levels; real Web trees can go deeper.
        let depth = 200;
        let open = r#"{"attributes":{"bounds":"[0,0][1,1]"},"children":["#;
        let text = format!(
            "{}{}{}",
            open.repeat(depth),
            r#"{"attributes":{}}"#,
            "]}".repeat(depth)
        );
        let LayoutDump::Merged(root) = parse_layout(&text).unwrap() else {
            panic!("merged")
        };
        assert_eq!(root.node_count(), depth + 1);
    }

    #[test]
    fn error_names_line_and_column() {
        let err = parse_layout("{\n  \"attributes\": {\"bounds\": 5}\n}").unwrap_err();
        assert!(err.detail.contains("line 2 column 28"), "{}", err.detail);
        assert!(
            err.detail.contains("`bounds` is not a string"),
            "{}",
            err.detail
        );
    }

    #[test]
    fn extra_keys_are_ignored() {
        let t = r#"{"attributes":{"bounds":"[0,0][1,1]"},"extraAttrs":{"FontSize":"12"},"children":[]}"#;
        let LayoutDump::Merged(root) = parse_layout(t).unwrap() else {
            panic!("merged")
        };
        assert_eq!(root.attributes.len(), 1);
    }

    #[test]
    fn per_window_merges_into_union_root() {
        let a = node(
            &[
                ("bounds", "[0,136][1344,1622]"),
                ("type", "root"),
                ("bundleName", "a"),
            ],
            vec![],
        );
        let b = node(
            &[
                ("type", "root"),
                ("bounds", "[0,1622][1344,2772]"),
                ("hint", "x"),
            ],
            vec![],
        );
        let root = LayoutDump::PerWindow(vec![a.clone(), b.clone()]).into_merged();
        assert_eq!(root.attr("bounds"), "[0,136][1344,2772]");
        let keys: Vec<&str> = root.attributes.keys().map(String::as_str).collect();
        assert_eq!(keys, ["bounds", "type", "bundleName", "hint"]);
        assert!(
            root.attributes
                .iter()
                .all(|(k, v)| k == "bounds" || v.is_empty())
        );
        assert_eq!(root.children, vec![a, b]);
    }

    #[test]
    fn per_window_empty_merges_to_locked_root() {
        let root = LayoutDump::PerWindow(vec![]).into_merged();
        assert_eq!(root.attr("bounds"), "[0,0][0,0]");
        assert!(is_locked_screen_root(&root));
    }

    #[test]
    fn locked_root_detection() {
        assert!(is_locked_screen_root(&node(
            &[("bounds", "[0,0][0,0]")],
            vec![]
        )));
        assert!(is_locked_screen_root(&node(&[("bounds", "")], vec![])));
        assert!(!is_locked_screen_root(&node(
            &[("bounds", "[0,0][0,0]")],
            vec![node(&[], vec![])]
        )));
        assert!(!is_locked_screen_root(&node(
            &[("bounds", "[0,0][1260,2720]")],
            vec![]
        )));
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_text_never_panics(s in "\\PC*") {
            let _ = parse_layout(&s);
        }

        #[test]
        fn json_like_text_never_panics(s in "[\\[\\]{}\",:a-z0-9 ]{0,64}") {
            let _ = parse_layout(&s);
        }
    }
}
