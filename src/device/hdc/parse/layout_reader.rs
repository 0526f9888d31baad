//! A reader for uitest's layout JSON that builds [`UiNode`] trees without recursion.
//!
//! Why not serde: serde_json stops at 128 nested JSON values, which is 63 levels of UI nodes
//! (every level is an object plus a `children` array). Real ArkUI trees, Web content in
//! particular, can be deeper; uitest's own writer has no such limit. This reader keeps an explicit
//! stack instead, so depth is bounded only by [`MAX_DEPTH`] (chosen so that everything downstream,
//! including recursive `Drop` and serde serialisation of the tree, stays far from the thread stack
//! limit). It is a strict JSON reader for exactly the layout shape: nodes are objects with a
//! required `attributes` object of string values and an optional `children` array of nodes; any
//! other member (`extraAttrs` from `-a`) is validated and skipped through serde_json.
//!
//! Work is linear in the input: every byte is looked at a bounded number of times, strings are
//! copied once.
use crate::device::model::UiNode;
use indexmap::IndexMap;

/// Deepest node level accepted (the root is level 1).
pub(super) const MAX_DEPTH: usize = 1000;

/// Where reading failed (byte offset into the text) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ReadError {
    pub offset: usize,
    pub message: String,
}

/// What the text held at top level.
#[derive(Debug)]
pub(super) enum Top {
    Node(UiNode),
    Array(Vec<UiNode>),
}

/// Reads one node object or one array of node objects, with only whitespace around it.
pub(super) fn read(text: &str) -> Result<Top, ReadError> {
    let mut r = Reader { text, pos: 0 };
    r.skip_ws();
    let top = match r.peek() {
        Some(b'{') => Top::Node(r.node()?),
        Some(b'[') => Top::Array(r.node_array()?),
        Some(_) => return Err(r.error("expected a JSON object or array")),
        None => return Err(r.error("empty input")),
    };
    r.skip_ws();
    if r.pos < text.len() {
        return Err(r.error("trailing characters after the layout"));
    }
    Ok(top)
}

/// `line L column C` (1-based, columns in characters) of a byte offset.
pub(super) fn position(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

struct Reader<'a> {
    text: &'a str,
    pos: usize,
}

/// One open node: what it has read so far and where it is.
struct Frame {
    attributes: Option<IndexMap<String, String>>,
    children: Vec<UiNode>,
    seen_children: bool,
    state: State,
}

#[derive(Clone, Copy)]
enum State {
    /// Just after `{`: a key or `}`.
    ObjectStart,
    /// After a member: `,` then a key, or `}`.
    AfterMember,
    /// Just after `"children": [`: a node or `]`.
    ChildrenStart,
    /// After a child node: `,` then a node, or `]`.
    AfterChild,
}

impl Frame {
    fn new() -> Self {
        Self {
            attributes: None,
            children: Vec::new(),
            seen_children: false,
            state: State::ObjectStart,
        }
    }
}

impl<'a> Reader<'a> {
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.pos += 1;
        }
    }

    fn error(&self, message: impl Into<String>) -> ReadError {
        ReadError {
            offset: self.pos,
            message: message.into(),
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), ReadError> {
        self.skip_ws();
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(format!("expected `{}`", byte as char)))
        }
    }

    /// `[node, node, …]`
    fn node_array(&mut self) -> Result<Vec<UiNode>, ReadError> {
        self.expect(b'[')?;
        let mut nodes = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(nodes);
        }
        loop {
            nodes.push(self.node()?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(nodes);
                }
                _ => return Err(self.error("expected `,` or `]` after a node")),
            }
        }
    }

    /// One node and its whole subtree, iteratively.
    fn node(&mut self) -> Result<UiNode, ReadError> {
        self.expect(b'{')?;
        let mut stack: Vec<Frame> = vec![Frame::new()];
        loop {
            self.skip_ws();
            let depth = stack.len();
            let Some(top) = stack.last_mut() else {
                return Err(self.error("internal: empty node stack"));
            };
            match top.state {
                State::ObjectStart | State::AfterMember => {
                    let at_start = matches!(top.state, State::ObjectStart);
                    match self.peek() {
                        Some(b'}') => {
                            self.pos += 1;
                            let node = self.finish(&mut stack)?;
                            match stack.last_mut() {
                                None => return Ok(node),
                                Some(parent) => {
                                    parent.children.push(node);
                                    parent.state = State::AfterChild;
                                }
                            }
                            continue;
                        }
                        Some(b',') if !at_start => {
                            self.pos += 1;
                            self.skip_ws();
                        }
                        Some(b'"') if at_start => {}
                        _ => {
                            return Err(self.error(if at_start {
                                "expected a key or `}`"
                            } else {
                                "expected `,` or `}`"
                            }));
                        }
                    }
                    let key_at = self.pos;
                    let key = self.string()?;
                    self.expect(b':')?;
                    self.skip_ws();
                    match key.as_str() {
                        "attributes" => {
                            if top.attributes.is_some() {
                                return Err(at(key_at, "duplicate field `attributes`"));
                            }
                            top.attributes = Some(self.attributes()?);
                            top.state = State::AfterMember;
                        }
                        "children" => {
                            if top.seen_children {
                                return Err(at(key_at, "duplicate field `children`"));
                            }
                            top.seen_children = true;
                            self.expect(b'[')?;
                            top.state = State::ChildrenStart;
                        }
                        _ => {
                            self.skip_value()?;
                            top.state = State::AfterMember;
                        }
                    }
                }
                State::ChildrenStart | State::AfterChild => {
                    let at_start = matches!(top.state, State::ChildrenStart);
                    match self.peek() {
                        Some(b']') => {
                            self.pos += 1;
                            top.state = State::AfterMember;
                            continue;
                        }
                        Some(b',') if !at_start => {
                            self.pos += 1;
                            self.skip_ws();
                        }
                        Some(b'{') if at_start => {}
                        _ => {
                            return Err(self.error(if at_start {
                                "expected a node or `]`"
                            } else {
                                "expected `,` or `]` after a child node"
                            }));
                        }
                    }
                    if self.peek() != Some(b'{') {
                        return Err(self.error("expected a node object"));
                    }
                    if depth >= MAX_DEPTH {
                        return Err(self.error(format!("layout deeper than {MAX_DEPTH} levels")));
                    }
                    self.pos += 1;
                    stack.push(Frame::new());
                }
            }
        }
    }

    /// Closes the top frame into a node.
    fn finish(&self, stack: &mut Vec<Frame>) -> Result<UiNode, ReadError> {
        let frame = stack
            .pop()
            .ok_or_else(|| self.error("internal: empty node stack"))?;
        let attributes = frame
            .attributes
            .ok_or_else(|| self.error("node without `attributes`"))?;
        Ok(UiNode {
            attributes,
            children: frame.children,
        })
    }

    /// `{"k":"v", …}`: string values only (uitest writes every attribute as a string).
    fn attributes(&mut self) -> Result<IndexMap<String, String>, ReadError> {
        self.expect(b'{')?;
        let mut map = IndexMap::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(map);
        }
        loop {
            self.skip_ws();
            let key = self.string()?;
            self.expect(b':')?;
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.error(format!("attribute `{key}` is not a string")));
            }
            let value = self.string()?;
            // Like serde's map: a repeated key keeps its first position, last value.
            map.insert(key, value);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(map);
                }
                _ => return Err(self.error("expected `,` or `}` in attributes")),
            }
        }
    }

    /// Any JSON value we do not keep: validated and skipped by serde_json.
    fn skip_value(&mut self) -> Result<(), ReadError> {
        let rest = &self.text[self.pos..];
        let mut values =
            serde_json::Deserializer::from_str(rest).into_iter::<serde::de::IgnoredAny>();
        match values.next() {
            Some(Ok(_)) => {
                self.pos += values.byte_offset();
                Ok(())
            }
            Some(Err(e)) => Err(self.error(format!("invalid value: {e}"))),
            None => Err(self.error("expected a value")),
        }
    }

    /// A JSON string; the fast path copies the slice between the quotes once.
    fn string(&mut self) -> Result<String, ReadError> {
        if self.peek() != Some(b'"') {
            return Err(self.error("expected a string"));
        }
        self.pos += 1;
        let start = self.pos;
        let bytes = self.bytes();
        while let Some(&b) = bytes.get(self.pos) {
            match b {
                b'"' => {
                    // Both ends are ASCII quotes, so the slice is on char boundaries.
                    let s = self.text[start..self.pos].to_string();
                    self.pos += 1;
                    return Ok(s);
                }
                b'\\' => return self.string_slow(start),
                0x00..=0x1f => return Err(self.error("control character in string")),
                _ => self.pos += 1,
            }
        }
        Err(self.error("unterminated string"))
    }

    /// The rest of a string that has escapes; `start` is just after the opening quote.
    fn string_slow(&mut self, start: usize) -> Result<String, ReadError> {
        let mut out = String::from(&self.text[start..self.pos]);
        let bytes = self.bytes();
        loop {
            let Some(&b) = bytes.get(self.pos) else {
                return Err(self.error("unterminated string"));
            };
            match b {
                b'"' => {
                    self.pos += 1;
                    return Ok(out);
                }
                b'\\' => {
                    self.pos += 1;
                    let Some(&e) = bytes.get(self.pos) else {
                        return Err(self.error("unterminated escape"));
                    };
                    self.pos += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => out.push(self.unicode_escape()?),
                        _ => {
                            self.pos -= 1;
                            return Err(self.error("invalid escape"));
                        }
                    }
                }
                0x00..=0x1f => return Err(self.error("control character in string")),
                _ => {
                    // Copy the run up to the next quote or backslash in one go.
                    let run_end = bytes[self.pos..]
                        .iter()
                        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
                        .map_or(bytes.len(), |i| self.pos + i);
                    out.push_str(&self.text[self.pos..run_end]);
                    self.pos = run_end;
                }
            }
        }
    }

    /// After `\u`: four hex digits, and a second `\uXXXX` for a surrogate pair.
    fn unicode_escape(&mut self) -> Result<char, ReadError> {
        let first = self.hex4()?;
        let code = match first {
            0xD800..=0xDBFF => {
                if self.bytes().get(self.pos..self.pos + 2) != Some(b"\\u") {
                    return Err(self.error("lone leading surrogate in \\u escape"));
                }
                self.pos += 2;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return Err(self.error("invalid trailing surrogate in \\u escape"));
                }
                0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(self.error("lone trailing surrogate in \\u escape")),
            c => c,
        };
        char::from_u32(code).ok_or_else(|| self.error("invalid \\u escape"))
    }

    fn hex4(&mut self) -> Result<u32, ReadError> {
        let digits = self
            .text
            .get(self.pos..self.pos + 4)
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| self.error("expected four hex digits after \\u"))?;
        let v = u32::from_str_radix(digits, 16).map_err(|_| self.error("invalid \\u escape"))?;
        self.pos += 4;
        Ok(v)
    }
}

fn at(offset: usize, message: &str) -> ReadError {
    ReadError {
        offset,
        message: message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(depth: usize) -> String {
        let mut s = String::new();
        for _ in 1..depth {
            s.push_str(r#"{"attributes":{"bounds":"[0,0][1,1]"},"children":["#);
        }
        s.push_str(r#"{"attributes":{"bounds":"[0,0][1,1]"},"children":[]}"#);
        for _ in 1..depth {
            s.push_str("]}");
        }
        s
    }

    fn node_of(text: &str) -> Result<UiNode, ReadError> {
        match read(text)? {
            Top::Node(n) => Ok(n),
            Top::Array(_) => panic!("array"),
        }
    }

    #[test]
    fn deep_trees_up_to_the_limit() {
        let n = node_of(&chain(300)).unwrap();
        assert_eq!(n.node_count(), 300);
        assert!(node_of(&chain(MAX_DEPTH)).is_ok());
        let err = node_of(&chain(MAX_DEPTH + 1)).unwrap_err();
        assert!(err.message.contains("deeper than"), "{err:?}");
    }

    #[test]
    fn escapes_decode_like_serde() {
        let text =
            r#"{"attributes":{"text":"a\"b\\c\/d\n\t\u00e9\ud83d\ude00 plain é"},"children":[]}"#;
        let ours = node_of(text).unwrap();
        let theirs: UiNode = serde_json::from_str(text).unwrap();
        assert_eq!(ours, theirs);
        assert_eq!(ours.text(), "a\"b\\c/d\n\té😀 plain é");
    }

    #[test]
    fn malformed_json_is_rejected_with_an_offset() {
        for (text, needle) in [
            (r#"{"attributes":{"a":"\x"}}"#, "invalid escape"),
            (r#"{"attributes":{"a":"\ud800"}}"#, "lone leading surrogate"),
            (
                r#"{"attributes":{"a":"\udc00"}}"#,
                "lone trailing surrogate",
            ),
            (r#"{"attributes":{"a":"\u12"}}"#, "hex digits"),
            ("{\"attributes\":{\"a\":\"x\ny\"}}", "control character"),
            (r#"{"attributes":{"a":"b",}}"#, "expected a string"),
            (r#"{"attributes":{},}"#, "expected a string"),
            (
                r#"{"attributes":{},"children":[{"attributes":{}},]}"#,
                "expected a node object",
            ),
            (
                r#"{"attributes":{},"attributes":{}}"#,
                "duplicate field `attributes`",
            ),
            (
                r#"{"attributes":{},"children":[],"children":[]}"#,
                "duplicate field `children`",
            ),
            (r#"{"attributes":{"a":1}}"#, "not a string"),
            (r#"{"children":[]}"#, "without `attributes`"),
            (r#"{"attributes":{},"children":null}"#, "expected `[`"),
            (
                r#"{"attributes":{},"children":[1]}"#,
                "expected a node or `]`",
            ),
            (r#"{"attributes":{},"x":[1,}"#, "invalid value"),
            (r#"{"attributes":{}} x"#, "trailing"),
            (r#"{"attributes":{"a":"b"#, "unterminated"),
            (r#"{"attributes":{}"#, "expected `,` or `}`"),
            ("{", "expected a key or `}`"),
            ("", "empty"),
            ("true", "expected a JSON object or array"),
        ] {
            let err = read(text).map(|_| ()).unwrap_err();
            assert!(err.message.contains(needle), "{text}: {err:?}");
            assert!(err.offset <= text.len());
        }
    }

    #[test]
    fn unknown_members_are_skipped_whatever_they_hold() {
        let text = r#"{"x":{"a":[1,2.5e3,-0,true,null,{"b":"]}"}]},"attributes":{"k":"v"},"extraAttrs":{"FontSize":"12"},"children":[]}"#;
        let n = node_of(text).unwrap();
        assert_eq!(n.attr("k"), "v");
    }

    #[test]
    fn arrays_and_empty_forms() {
        assert!(matches!(read(" [ ] "), Ok(Top::Array(v)) if v.is_empty()));
        assert!(matches!(
            read(r#"[{"attributes":{}},{"attributes":{},"children":[]}]"#),
            Ok(Top::Array(v)) if v.len() == 2
        ));
        assert!(read("[").is_err());
        assert!(read(r#"[{"attributes":{}} {"attributes":{}}]"#).is_err());
    }

    #[test]
    fn positions_are_line_and_character_column() {
        let text = "{\n  \"é\": x";
        assert_eq!(position(text, text.len() - 1), (2, 8));
        assert_eq!(position(text, 0), (1, 1));
        assert_eq!(position("é", 1), (1, 1));
    }

    proptest::proptest! {
        /// Trees serialised by serde_json (any Unicode, escapes, controls) read back identically.
        #[test]
        fn agrees_with_serde_on_generated_trees(
            attrs in proptest::collection::vec(("\\PC{0,8}|[\"\\\\\\n\\u{0}-\\u{1f}]{0,4}", "\\PC{0,12}|[\"\\\\\\u{0}-\\u{1f}]{0,4}"), 0..5),
            shape in proptest::collection::vec(1usize..3, 0..7),
        ) {
            let leaf = UiNode { attributes: attrs.into_iter().collect(), children: vec![] };
            let mut root = leaf.clone();
            for n in shape {
                root = UiNode { attributes: leaf.attributes.clone(), children: vec![root; n] };
            }
            let compact = serde_json::to_string(&root).unwrap();
            let pretty = serde_json::to_string_pretty(&root).unwrap();
            proptest::prop_assert_eq!(&node_of(&compact).unwrap(), &root);
            proptest::prop_assert_eq!(&node_of(&pretty).unwrap(), &root);
        }
    }
}
