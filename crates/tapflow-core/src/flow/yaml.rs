//! YAML text → a generic node tree with a byte span on every node (mapping keys included).
//!
//! Built on serde-saphyr: its `Spanned<T>` wrapper reports the character *and* byte range of
//! every scalar and the start of every collection, which is all the flow format needs, so the
//! lower-level parser event API is not used. Scalars are resolved with YAML 1.2 core rules
//! (`strict_booleans`: `yes`/`no`/`on`/`off` stay strings; `.inf`, `-.Inf`, `.nan` are floats,
//! left to the schema to judge). Anchors and aliases are expanded by serde-saphyr under a budget
//! sized for flow files ([`MAX_NODES`] nodes, aliases counted each time they are used), so
//! "billion laughs" inputs fail cleanly and small. A file holds one YAML document.

mod syntax;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use super::diag::Diagnostic;
use super::source::{SourceFile, Span};
use syntax::syntax_diagnostic;

/// A YAML node and where it is in the file.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub value: Value,
    /// For scalars the whole token (quotes included); for flow collections the whole `[…]` or
    /// `{…}`; for block collections their start (a block mapping: its first key). For an
    /// alias (`*n`), the alias: where the value is used.
    pub span: Span,
    /// Where the value is written: the anchored scalar for an alias, else `span`. Plain
    /// numbers and booleans read as text come from here (`*n` to `&n 007` is `007`).
    pub value_span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    /// Integers above `i64::MAX`.
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(Key, Node)>),
}

/// A mapping key: always read as text (a key `1:` is the string `"1"`).
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    pub name: String,
    pub span: Span,
}

impl Node {
    /// Name of the YAML type, for "expected X, found Y" messages.
    pub fn type_name(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) | Value::UInt(_) => "an integer",
            Value::Float(_) => "a number",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[(Key, Node)]> {
        match &self.value {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(s) => Some(s),
            _ => None,
        }
    }

    pub fn is_scalar(&self) -> bool {
        !matches!(self.value, Value::Seq(_) | Value::Map(_))
    }

    /// The scalar as text, as the user wrote it for plain numbers and booleans (so that
    /// `text: 007` stays `007` when a string is expected; an alias gives its anchored value's
    /// text), or `None` for collections and null.
    pub fn scalar_text(&self, src: &SourceFile) -> Option<String> {
        match &self.value {
            Value::Str(s) => Some(s.clone()),
            Value::Bool(_) | Value::Int(_) | Value::UInt(_) | Value::Float(_) => {
                Some(plain_text(src.slice(self.value_span)).to_string())
            }
            _ => None,
        }
    }

    /// Looks a key up in a mapping node.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.name == key)
            .map(|(_, v)| v)
    }
}

/// Deepest accepted nesting of YAML collections.
pub const MAX_DEPTH: usize = 40;
/// Most YAML nodes (scalars and collections) a flow file may hold, counting an alias's whole
/// anchored value each time it is used. A 1 MiB flow of one-line steps has about 80 000.
pub const MAX_NODES: usize = 100_000;

/// Parses one YAML document. Syntax errors come back as a single diagnostic at the parser's
/// position (a YAML parser cannot resynchronise reliably, so later errors would be noise).
pub fn parse(src: &SourceFile) -> Result<Node, Box<Diagnostic>> {
    // Flows nest a few levels deep; a low depth cap keeps the recursive descent well inside
    // a 2 MiB thread stack (test and async worker threads), even in debug builds.
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = MAX_DEPTH;
    budget.max_nodes = MAX_NODES;
    let mut aliases = serde_saphyr::options::AliasLimits::default();
    aliases.max_total_replayed_events = MAX_NODES;
    let options = serde_saphyr::options! {
        strict_booleans: true,
        with_snippet: false,
        budget: Some(budget),
        alias_limits: aliases,
        non_finite_float_policy: serde_saphyr::NonFiniteFloatPolicy::PassThrough,
    };
    let parsed: Result<Spanned<RawNode>, _> =
        serde_saphyr::from_str_with_options(src.text(), options);
    match parsed {
        Ok(root) => Ok(convert(src, root)),
        Err(e) => Err(Box::new(syntax_diagnostic(src, &e))),
    }
}

fn span_of<T>(src: &SourceFile, s: &Spanned<T>) -> Span {
    span_at(src, &s.referenced)
}

fn span_at(src: &SourceFile, loc: &serde_saphyr::Location) -> Span {
    let sp = loc.span();
    let start = match sp.byte_offset() {
        Some(b) => b as usize,
        None if loc.line() > 0 => src.offset_of(loc.line() as usize, loc.column() as usize),
        None => 0,
    };
    let len = sp.byte_len().unwrap_or(0) as usize;
    Span::new(src.clamp(start), src.clamp(start + len))
}

/// The scalar's text without an anchor or tag in front (`&n 42` → `42`).
fn plain_text(text: &str) -> &str {
    let mut t = text;
    while let Some(rest) = t.strip_prefix(['&', '!']) {
        t = rest
            .split_once([' ', '\t'])
            .map_or("", |(_, after)| after.trim_start());
    }
    t
}

fn convert(src: &SourceFile, raw: Spanned<RawNode>) -> Node {
    let span = span_of(src, &raw);
    let defined = span_at(src, &raw.defined);
    let value_span = if defined.is_empty() { span } else { defined };
    let value = match raw.value {
        RawNode::Null => Value::Null,
        RawNode::Bool(b) => Value::Bool(b),
        RawNode::Int(i) => Value::Int(i),
        RawNode::UInt(u) => match i64::try_from(u) {
            Ok(i) => Value::Int(i),
            Err(_) => Value::UInt(u),
        },
        RawNode::Float(f) => Value::Float(f),
        RawNode::Str(s) => Value::Str(s),
        RawNode::Seq(items) => Value::Seq(items.into_iter().map(|n| convert(src, n)).collect()),
        RawNode::Map(entries) => Value::Map(
            entries
                .into_iter()
                .map(|(k, v)| {
                    let kspan = span_of(src, &k);
                    let name = match &k.value {
                        RawNode::Str(s) => s.clone(),
                        RawNode::Null => String::new(),
                        _ => {
                            let defined = span_at(src, &k.defined);
                            let at = if defined.is_empty() { kspan } else { defined };
                            plain_text(src.slice(at)).to_string()
                        }
                    };
                    (Key { name, span: kspan }, convert(src, v))
                })
                .collect(),
        ),
    };
    // Collections only carry their start: a flow collection (`[a, b]`, `{k: v}`) is extended to
    // its closing bracket; a block mapping is pointed at by its first key.
    let span = match &value {
        Value::Seq(_) | Value::Map(_) => match flow_collection_end(src.text(), span.start) {
            Some(end) => Span::new(span.start, end),
            None => match &value {
                Value::Map(m) if span.is_empty() => m.first().map_or(span, |(k, _)| k.span),
                _ => span,
            },
        },
        _ => span,
    };
    Node {
        value,
        span,
        value_span,
    }
}

/// The end (exclusive) of the flow collection opening at `start`, skipping quoted scalars.
fn flow_collection_end(text: &str, start: usize) -> Option<usize> {
    let rest = text.get(start..)?;
    if !rest.starts_with(['[', '{']) {
        return None;
    }
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut chars = rest.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match quote {
            Some('"') if c == '\\' => {
                chars.next();
            }
            Some(q) if c == q => {
                // `''` inside a single-quoted scalar is an escaped quote.
                if q == '\'' && chars.peek().is_some_and(|(_, n)| *n == '\'') {
                    chars.next();
                } else {
                    quote = None;
                }
            }
            Some(_) => {}
            None => match c {
                '"' | '\'' => quote = Some(c),
                '[' | '{' => depth += 1,
                ']' | '}' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(start + i + 1);
                    }
                }
                _ => {}
            },
        }
    }
    None
}

/// What serde-saphyr hands us: an untyped tree whose children keep their spans.
enum RawNode {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Spanned<RawNode>>),
    Map(Vec<(Spanned<RawNode>, Spanned<RawNode>)>),
}

impl<'de> Deserialize<'de> for RawNode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RawVisitor)
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = RawNode;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E>(self) -> Result<RawNode, E> {
        Ok(RawNode::Null)
    }
    fn visit_none<E>(self) -> Result<RawNode, E> {
        Ok(RawNode::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<RawNode, D::Error> {
        d.deserialize_any(RawVisitor)
    }
    fn visit_bool<E>(self, v: bool) -> Result<RawNode, E> {
        Ok(RawNode::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<RawNode, E> {
        Ok(RawNode::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<RawNode, E> {
        Ok(RawNode::UInt(v))
    }
    fn visit_i128<E>(self, v: i128) -> Result<RawNode, E> {
        Ok(RawNode::Float(v as f64))
    }
    fn visit_u128<E>(self, v: u128) -> Result<RawNode, E> {
        Ok(RawNode::Float(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<RawNode, E> {
        Ok(RawNode::Float(v))
    }
    fn visit_char<E>(self, v: char) -> Result<RawNode, E> {
        Ok(RawNode::Str(v.to_string()))
    }
    fn visit_str<E>(self, v: &str) -> Result<RawNode, E> {
        Ok(RawNode::Str(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<RawNode, E> {
        Ok(RawNode::Str(v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<RawNode, E> {
        Ok(RawNode::Str(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<RawNode, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = a.next_element()? {
            items.push(item);
        }
        Ok(RawNode::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<RawNode, A::Error> {
        let mut entries = Vec::new();
        while let Some(k) = a.next_key()? {
            let v = a.next_value()?;
            entries.push((k, v));
        }
        Ok(RawNode::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(text: &str) -> (SourceFile, Node) {
        let src = SourceFile::new("t.yaml", text);
        let node = parse(&src).expect("valid yaml");
        (src, node)
    }

    #[test]
    fn every_node_has_a_span_including_keys_and_quotes() {
        let (src, root) = parse_ok("name: héllo\nsteps:\n  - click: {text: \"登录\", x: 5}\n");
        let steps = root.get("steps").unwrap().as_seq().unwrap();
        let click = steps[0].as_map().unwrap();
        assert_eq!(src.slice(click[0].0.span), "click");
        let args = &click[0].1;
        assert_eq!(src.slice(args.get("text").unwrap().span), "\"登录\"");
        assert_eq!(args.get("x").unwrap().value, Value::Int(5));
        let x_key = &args.as_map().unwrap()[1].0;
        assert_eq!(src.line_col(x_key.span.start).column, 25);
    }

    #[test]
    fn flow_collections_span_to_their_closing_bracket() {
        let (src, root) = parse_ok("m: [Ctrl, \"]\", 'it''s', {a: [1]}]\nb:\n  k: v\n");
        assert_eq!(
            src.slice(root.get("m").unwrap().span),
            "[Ctrl, \"]\", 'it''s', {a: [1]}]"
        );
        assert_eq!(src.slice(root.get("b").unwrap().span), "k");
    }

    #[test]
    fn yaml_1_1_booleans_stay_strings() {
        let (_, root) = parse_ok("a: yes\nb: no\nc: true\ny: 1\n");
        assert_eq!(root.get("a").unwrap().as_str(), Some("yes"));
        assert_eq!(root.get("b").unwrap().as_str(), Some("no"));
        assert_eq!(root.get("c").unwrap().value, Value::Bool(true));
        assert!(root.get("y").is_some());
    }

    #[test]
    fn plain_numbers_keep_their_source_text() {
        let (src, root) = parse_ok("t: 007\n");
        let n = root.get("t").unwrap();
        assert_eq!(n.scalar_text(&src).as_deref(), Some("007"));
    }

    #[test]
    fn syntax_errors_point_at_the_problem() {
        let src = SourceFile::new("t.yaml", "a: [1, 2\nb: 3\n");
        let d = parse(&src).unwrap_err();
        assert_eq!(d.code, "yaml-syntax");
        assert_eq!(d.line, 2);
        assert!(!d.message.contains("line 2"), "{}", d.message);
    }

    /// Seen (issue 11): an alias to a number or boolean used as text became `"*n"` (on the
    /// device it typed `*code`).
    #[test]
    fn an_alias_used_as_text_gives_the_anchored_value() {
        let (src, root) = parse_ok(
            "n: &code 0x1F\nb: &yes true\nf: &pi 3.50\nuse: [*code, *yes, *pi]\n*code : key\n",
        );
        let used = root.get("use").unwrap().as_seq().unwrap();
        let texts: Vec<_> = used.iter().map(|n| n.scalar_text(&src).unwrap()).collect();
        assert_eq!(texts, ["0x1F", "true", "3.50"]);
        assert_eq!(used[0].value, Value::Int(31));
        // Diagnostics still point at the alias, where the value is used.
        assert_eq!(src.slice(used[0].span), "*code");
        let keys: Vec<_> = root
            .as_map()
            .unwrap()
            .iter()
            .map(|(k, _)| k.name.as_str())
            .collect();
        assert_eq!(keys, ["n", "b", "f", "use", "0x1F"]);
    }

    /// Seen (issue 11): `.inf`, `-.Inf` and `.nan` were syntax errors.
    #[test]
    fn non_finite_floats_are_floats() {
        let (src, root) = parse_ok("a: .inf\nb: -.Inf\nc: .nan\nd: .NaN\n");
        assert_eq!(root.get("a").unwrap().value, Value::Float(f64::INFINITY));
        assert_eq!(
            root.get("b").unwrap().value,
            Value::Float(f64::NEG_INFINITY)
        );
        assert!(matches!(root.get("c").unwrap().value, Value::Float(f) if f.is_nan()));
        assert_eq!(
            root.get("b").unwrap().scalar_text(&src).as_deref(),
            Some("-.Inf")
        );
    }

    /// Seen (issue 11): a second document got a message naming a parser function.
    #[test]
    fn a_second_document_is_reported_at_its_marker() {
        let text = "---\nsteps:\n  - click: OK\n---\nsteps:\n  - click: Next\n";
        let src = SourceFile::new("t.yaml", text);
        let d = parse(&src).unwrap_err();
        assert_eq!(d.code, "multiple-documents");
        assert_eq!((d.line, d.column, d.text.as_str()), (4, 1, "---"));
        assert!(d.message.contains("one YAML document"), "{}", d.message);
        assert!(!d.message.contains("from_str"), "{}", d.message);
        let src = SourceFile::new("t.yaml", "steps: []\n...\nsteps: []\n");
        let d = parse(&src).unwrap_err();
        assert_eq!(
            (d.code.as_str(), d.line, d.text.as_str()),
            ("multiple-documents", 2, "...")
        );
    }

    #[test]
    fn an_alias_bomb_is_a_limit_not_a_blow_up() {
        let mut text = String::from("a0: &a0 [x]\n");
        for i in 1..12 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        let src = SourceFile::new("t.yaml", text);
        let d = parse(&src).unwrap_err();
        assert_eq!(d.code, "yaml-limit", "{d:?}");
        assert!(d.message.contains("100000"), "{}", d.message);
        assert!(d.line > 1, "{d:?}");
        let deep = SourceFile::new("t.yaml", format!("{}{}", "[".repeat(100), "]".repeat(100)));
        let d = parse(&deep).unwrap_err();
        assert_eq!(d.code, "yaml-limit", "{d:?}");
        assert!(d.help.unwrap().contains("at most 40 levels"));
    }

    #[test]
    fn duplicate_keys_are_an_error() {
        let src = SourceFile::new("t.yaml", "a: 1\na: 2\n");
        let d = parse(&src).unwrap_err();
        assert!(d.message.contains("duplicate"), "{}", d.message);
        assert!(d.help.is_some());
    }
}
