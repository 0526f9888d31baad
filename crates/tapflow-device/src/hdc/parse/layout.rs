//! `uitest dumpLayout` JSON: compact or pretty, the merged root object or the `-i` per-window array.
//!
//! Every node is `{"attributes":{string→string}, "children":[node…]}`; attributes are kept verbatim
//! and in file order ([`UiNode`] uses an `IndexMap`, serde_json has `preserve_order`), so
//! re-serialising a parsed dump gives the same tree. Keys other than `attributes`/`children`
//! (`extraAttrs` from `-a`) are not part of the model: they are checked to be valid JSON and
//! dropped.
//!
//! Parsing is serde_json straight into [`UiNode`] (no intermediate `Value`). serde_json's default
//! recursion limit (128 nested values) would stop at 63 node levels, and real Web trees go deeper,
//! so that limit is off (`unbounded_depth`) and [`serde_stacker`] moves the reader's recursion onto
//! a fresh heap-allocated stack segment whenever the thread's stack runs low: reading is safe on
//! any thread at any depth. The tree it builds is not: `UiNode`'s derived `Drop`, `Clone`,
//! `Serialize` and `Debug` recurse on the plain thread stack. So depth is capped at
//! [`MAX_DEPTH`] node levels *while reading* (a tree that deep is never built, not even a partial
//! one on an error path), by a small [`DeserializeSeed`] that reads nodes exactly like `UiNode`'s
//! derived `Deserialize` would but knows its level.
use super::ParseError;
use crate::model::{Bounds, UiNode};
use indexmap::IndexMap;
use serde::de::{self, DeserializeSeed, Deserializer as _, IgnoredAny, MapAccess, SeqAccess};
use std::fmt;

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

/// Deepest node level accepted (a root is level 1). 24 times the deepest real dump in the fixtures
/// (21 levels, a Web page), and low enough that a tree this deep survives the recursive derived
/// impls of [`UiNode`] on a 2 MiB thread, even unoptimised, with half the stack to spare (see
/// `tests::depth_cap_keeps_downstream_recursion_safe` for the measurements).
pub const MAX_DEPTH: usize = 512;

/// Parses a dump in any of its forms. Whitespace around and inside the JSON does not matter.
///
/// Rejected with a [`ParseError`] (`what = "layout"`): empty text, invalid JSON, JSON of another
/// shape (a node without `attributes`, non-string attribute values, `children` not an array of
/// nodes), a tree deeper than [`MAX_DEPTH`] levels, and a root without a `bounds` attribute
/// (uitest always writes one, even when locked). The detail names the line and column where
/// reading stopped.
pub fn parse_layout(text: &str) -> Result<LayoutDump, ParseError> {
    // A UTF-8 byte-order mark is not JSON, but Windows tools like to add one.
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let dump = read(body).map_err(|e| {
        ParseError::new(
            WHAT,
            format!(
                "not a uitest layout: {e}{}",
                // serde_json ends its message with `at line L column C` whenever it knows them,
                // which for a `&str` source is always; say so if that ever changes.
                if e.line() == 0 {
                    " (position unknown)"
                } else {
                    ""
                }
            ),
        )
    })?;
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

/// One JSON value (a node, or an array of nodes when the first byte says so) and nothing after it.
fn read(body: &str) -> Result<LayoutDump, serde_json::Error> {
    let mut json = serde_json::Deserializer::from_str(body);
    json.disable_recursion_limit();
    let stacked = serde_stacker::Deserializer::new(&mut json);
    let first = body
        .bytes()
        .find(|b| !matches!(b, b' ' | b'\n' | b'\r' | b'\t'));
    let dump = if first == Some(b'[') {
        LayoutDump::PerWindow(stacked.deserialize_seq(NodesVisitor { depth: 1 })?)
    } else {
        // Anything else is read as a node, so serde_json names what it found instead.
        LayoutDump::Merged(NodeSeed { depth: 1 }.deserialize(stacked)?)
    };
    json.end()?;
    Ok(dump)
}

/// Reads one node at node level `depth`, refusing levels past [`MAX_DEPTH`].
#[derive(Clone, Copy)]
struct NodeSeed {
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for NodeSeed {
    type Value = UiNode;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<UiNode, D::Error> {
        if self.depth > MAX_DEPTH {
            return Err(de::Error::custom(format_args!(
                "layout deeper than {MAX_DEPTH} node levels"
            )));
        }
        deserializer.deserialize_map(self)
    }
}

/// The members of a node, as `UiNode`'s derived `Deserialize` would read them.
#[derive(serde::Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum Field {
    Attributes,
    Children,
    #[serde(other)]
    Other,
}

impl<'de> de::Visitor<'de> for NodeSeed {
    type Value = UiNode;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a uitest layout node (an object with `attributes`)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<UiNode, A::Error> {
        let mut attributes: Option<IndexMap<String, String>> = None;
        let mut children: Option<Vec<UiNode>> = None;
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::Attributes if attributes.is_some() => {
                    return Err(de::Error::duplicate_field("attributes"));
                }
                Field::Attributes => attributes = Some(map.next_value()?),
                Field::Children if children.is_some() => {
                    return Err(de::Error::duplicate_field("children"));
                }
                Field::Children => {
                    children = Some(map.next_value_seed(ChildrenSeed {
                        depth: self.depth + 1,
                    })?);
                }
                // `extraAttrs` (and anything newer): validated, not kept. serde_json skips a
                // value without recursion, however deep it is.
                Field::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(UiNode {
            attributes: attributes.ok_or_else(|| de::Error::missing_field("attributes"))?,
            children: children.unwrap_or_default(),
        })
    }
}

/// A `children` array whose nodes are at level `depth`.
struct ChildrenSeed {
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for ChildrenSeed {
    type Value = Vec<UiNode>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Vec<UiNode>, D::Error> {
        d.deserialize_seq(NodesVisitor { depth: self.depth })
    }
}

/// An array of nodes at level `depth`: `children`, or the `-i` top-level array.
struct NodesVisitor {
    depth: usize,
}

impl<'de> de::Visitor<'de> for NodesVisitor {
    type Value = Vec<UiNode>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of uitest layout nodes")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<UiNode>, A::Error> {
        let mut nodes = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let seed = NodeSeed { depth: self.depth };
        while let Some(node) = seq.next_element_seed(seed)? {
            nodes.push(node);
        }
        Ok(nodes)
    }
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

    fn merged(text: &str) -> UiNode {
        match parse_layout(text).unwrap() {
            LayoutDump::Merged(root) => root,
            other => panic!("expected a merged root, got {other:?}"),
        }
    }

    /// `depth` nested nodes, each the only child of the one above; the root has bounds.
    fn chain(depth: usize) -> String {
        let open = r#"{"attributes":{"bounds":"[0,0][1,1]"},"children":["#;
        format!(
            "{}{}{}",
            open.repeat(depth - 1),
            r#"{"attributes":{}}"#,
            "]}".repeat(depth - 1)
        )
    }

    /// Runs `f` on a fresh thread with a `stack`-byte stack and returns its result.
    fn on_stack<T: Send + 'static>(stack: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::Builder::new()
            .stack_size(stack)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap()
    }

    const SMALL_STACK: usize = 256 * 1024;

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
        let root = merged("\u{feff} {\"attributes\":{\"bounds\":\"[0,0][10,10]\"}}\n");
        assert!(root.children.is_empty());
        assert_eq!(parse_layout("[]").unwrap(), LayoutDump::PerWindow(vec![]));
        assert_eq!(
            parse_layout(" \r\n\t[ ] ").unwrap(),
            LayoutDump::PerWindow(vec![])
        );
    }

    #[test]
    fn per_window_array_of_several_windows() {
        let text = r#" [ {"attributes":{"bounds":"[0,0][1,1]"}} , {"attributes":{"bounds":"[0,1][1,2]"},"children":[{"attributes":{}}]} ] "#;
        let LayoutDump::PerWindow(windows) = parse_layout(text).unwrap() else {
            panic!("per window")
        };
        assert_eq!(windows.len(), 2);
        assert_eq!(windows[1].children, vec![node(&[], vec![])]);
    }

    #[test]
    fn error_names_line_and_column() {
        let err = parse_layout("{\n  \"attributes\": {\"bounds\": 5}\n}").unwrap_err();
        assert_eq!(err.what, "layout");
        assert!(err.detail.contains("line 2 column 28"), "{}", err.detail);
        assert!(err.detail.contains("expected a string"), "{}", err.detail);
    }

    #[test]
    fn malformed_json_is_rejected_with_what_and_where() {
        for (text, needle) in [
            ("", "EOF while parsing a value"),
            ("true", "expected a uitest layout node"),
            (r#"{"attributes":{"a":"\x"}}"#, "invalid escape"),
            (r#"{"attributes":{"a":"\ud800"}}"#, "hex escape"),
            (r#"{"attributes":{"a":"\u12"}}"#, "escape"),
            ("{\"attributes\":{\"a\":\"x\ny\"}}", "control character"),
            (r#"{"attributes":{"a":"b",}}"#, "trailing comma"),
            (r#"{"attributes":{},}"#, "trailing comma"),
            (
                r#"{"attributes":{},"children":[{"attributes":{}},]}"#,
                "trailing comma",
            ),
            (
                r#"{"attributes":{},"attributes":{}}"#,
                "duplicate field `attributes`",
            ),
            (
                r#"{"attributes":{},"children":[],"children":[]}"#,
                "duplicate field `children`",
            ),
            (r#"{"children":[]}"#, "missing field `attributes`"),
            (
                r#"{"attributes":{},"children":null}"#,
                "expected an array of uitest layout nodes",
            ),
            (
                r#"{"attributes":{},"children":[1]}"#,
                "expected a uitest layout node",
            ),
            (r#"{"attributes":{},"x":[1,}"#, "expected value"),
            (r#"{"attributes":{}} x"#, "trailing characters"),
            (r#"{"attributes":{"a":"b"#, "EOF while parsing a string"),
            (r#"{"attributes":{}"#, "EOF while parsing an object"),
            (
                r#"[{"attributes":{}} {"attributes":{}}]"#,
                "expected `,` or `]`",
            ),
            ("[", "EOF while parsing a list"),
        ] {
            let err = parse_layout(text).unwrap_err();
            assert_eq!(err.what, "layout");
            assert!(err.detail.contains(needle), "{text}: {}", err.detail);
            assert!(err.detail.contains(" at line "), "{text}: {}", err.detail);
        }
    }

    #[test]
    fn escapes_decode() {
        let text = r#"{"attributes":{"bounds":"[0,0][1,1]","text":"a\"b\\c\/d\n\t\u00e9\ud83d\ude00 plain é"}}"#;
        assert_eq!(merged(text).text(), "a\"b\\c/d\n\té😀 plain é");
    }

    #[test]
    fn repeated_attribute_keeps_first_position_and_last_value() {
        let root =
            merged(r#"{"attributes":{"bounds":"[0,0][1,1]","text":"a","id":"i","text":"b"}}"#);
        let keys: Vec<&str> = root.attributes.keys().map(String::as_str).collect();
        assert_eq!(keys, ["bounds", "text", "id"]);
        assert_eq!(root.text(), "b");
    }

    #[test]
    fn unknown_members_are_validated_and_dropped() {
        let text = r#"{"x":{"a":[1,2.5e3,-0,true,null,{"b":"]}"}]},"attributes":{"bounds":"[0,0][1,1]"},"extraAttrs":{"FontSize":"12"},"children":[]}"#;
        assert_eq!(merged(text), node(&[("bounds", "[0,0][1,1]")], vec![]));
        let bad = r#"{"attributes":{"bounds":"[0,0][1,1]"},"extraAttrs":{"FontSize":}}"#;
        assert!(
            parse_layout(bad)
                .unwrap_err()
                .detail
                .contains("line 1 column")
        );
    }

    #[test]
    fn deeper_than_serde_json_allows_by_default() {
        // serde_json alone stops at 128 nested values = 63 node levels.
        let text = chain(200);
        assert!(serde_json::from_str::<UiNode>(&text).is_err());
        assert_eq!(merged(&text).node_count(), 200);
    }

    #[test]
    fn max_depth_parses_and_one_more_is_rejected() {
        assert_eq!(merged(&chain(MAX_DEPTH)).node_count(), MAX_DEPTH);
        let err = parse_layout(&chain(MAX_DEPTH + 1)).unwrap_err();
        assert_eq!(err.what, "layout");
        let want = format!("layout deeper than {MAX_DEPTH} node levels at line 1 column ");
        assert!(err.detail.contains(&want), "{}", err.detail);
        // The same cap for `-i` window trees.
        let array = format!("[{}]", chain(MAX_DEPTH + 1));
        assert!(parse_layout(&array).unwrap_err().detail.contains(&want));
    }

    #[test]
    fn two_thousand_levels_are_rejected_without_overflow_even_on_a_small_stack() {
        let text = chain(2000);
        let err = parse_layout(&text).unwrap_err();
        assert!(err.detail.contains("deeper than"), "{}", err.detail);
        let small = on_stack(SMALL_STACK, move || parse_layout(&text));
        assert_eq!(small.unwrap_err(), err);
    }

    #[test]
    fn max_depth_parses_and_drops_on_a_small_stack() {
        // serde_stacker grows the stack while reading; dropping the tree recurses on the thread's
        // own stack, which the cap keeps small.
        let count = on_stack(SMALL_STACK, || {
            parse_layout(&chain(MAX_DEPTH)).map(|d| d.into_merged().node_count())
        });
        assert_eq!(count, Ok(MAX_DEPTH));
    }

    #[test]
    fn absurd_depth_is_rejected_without_building_it() {
        // 100 000 levels (5 MB of JSON): refused at level MAX_DEPTH + 1 on a small stack; the
        // partial tree that unwinds is never deeper than the cap.
        let text = chain(100_000);
        let result = on_stack(SMALL_STACK, move || parse_layout(&text).map(|_| ()));
        assert!(result.unwrap_err().detail.contains("deeper than"));
    }

    #[test]
    fn deep_values_in_unknown_members_are_skipped_on_a_small_stack() {
        let levels = 100_000;
        let junk = format!("{}1{}", "[{\"a\":".repeat(levels), "}]".repeat(levels));
        let text = format!(
            r#"{{"attributes":{{"bounds":"[0,0][1,1]"}},"extraAttrs":{junk},"children":[]}}"#
        );
        let root = on_stack(SMALL_STACK, move || {
            parse_layout(&text).map(LayoutDump::into_merged)
        });
        assert_eq!(root.unwrap(), node(&[("bounds", "[0,0][1,1]")], vec![]));
    }

    /// Why [`MAX_DEPTH`] is what it is: a tree at the cap must survive everything downstream does
    /// recursively on the plain stack, on a 2 MiB thread (std's spawn default and tokio's worker
    /// default), in this unoptimised test build. Measured stack per node level (debug / release):
    /// `serde_json::to_value` 1875 / 817 bytes, `Clone` and `==` 850 / 289, `to_string` 770 / 81,
    /// `Debug` 610 / 481, `Drop` 130 / 97 (linear: the same at 1000 and 5000 levels). At 512
    /// levels `to_value` needs 0.96 MB, half the stack; unoptimised it overflows 2 MiB from about
    /// 1100 levels on, so 2000 or 5000 would not be safe downstream.
    #[test]
    fn depth_cap_keeps_downstream_recursion_safe() {
        let sizes = on_stack(2 * 1024 * 1024, || {
            let root = merged(&chain(MAX_DEPTH));
            let copy = root.clone();
            assert_eq!(copy, root);
            let value = serde_json::to_value(&root).unwrap();
            let text = serde_json::to_string(&value).unwrap();
            let debug = format!("{root:?}");
            (text.len(), debug.len())
        });
        assert!(sizes.0 > MAX_DEPTH && sizes.1 > MAX_DEPTH);
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

        /// Generated trees (any Unicode, quotes, backslashes, control characters) survive
        /// serialising, compact and pretty, and parsing back, in both top-level forms.
        #[test]
        fn generated_trees_round_trip(
            attrs in proptest::collection::vec(("\\PC{0,8}|[\"\\\\\\n\\u{0}-\\u{1f}]{0,4}", "\\PC{0,12}|[\"\\\\\\u{0}-\\u{1f}]{0,4}"), 0..5),
            shape in proptest::collection::vec(1usize..3, 0..7),
        ) {
            let leaf = UiNode { attributes: attrs.into_iter().collect(), children: vec![] };
            let mut root = leaf.clone();
            for n in shape {
                root = UiNode { attributes: leaf.attributes.clone(), children: vec![root; n] };
            }
            root.attributes.insert("bounds".to_string(), "[0,0][1,1]".to_string());
            for text in [serde_json::to_string(&root).unwrap(), serde_json::to_string_pretty(&root).unwrap()] {
                proptest::prop_assert_eq!(&merged(&text), &root);
            }
            let windows = vec![root.clone(), root];
            let text = serde_json::to_string(&windows).unwrap();
            proptest::prop_assert_eq!(parse_layout(&text).unwrap(), LayoutDump::PerWindow(windows));
        }
    }
}
