//! The flow compiler's front end of the schema validator ([`crate::schema`]): checks a step's
//! YAML arguments against the tool's JSON Schema, converts them to JSON, and words what the
//! validator finds as position-precise diagnostics (file:line:col, the value underlined,
//! "did you mean", an example of what to write).
//!
//! What is a flow's own is how YAML presents itself to the schema ([`Arg`]): a plain YAML scalar
//! is accepted where a string is expected and keeps its source text (`text: 007` is the string
//! `007`); a string holding a `{{ … }}` reference only known at run time is accepted for any
//! type and checked when it is resolved; one whose variables are all known stands for the
//! number or boolean it spells. Integer widths (`format: int32`) are left to the engine, whose
//! device-free check runs next on the converted arguments and words them with the contract's
//! code ([`RULES`]).

use std::borrow::Cow;

use serde_json::{Map, Number, Value};

use crate::flow::Diagnostic;
use crate::flow::source::{SourceFile, Span};
use crate::flow::template;
use crate::flow::yaml::{Key, Node, Value as Y};
use crate::schema::{Instance, Outer, Rules, Shape, Type, Validator};

mod words;

use words::Words;

/// The validator's rules for flows: objects are checked all the way down (a flow's mistake
/// anywhere gets its own position), the YAML is converted, integer widths are the engine's.
const RULES: Rules = Rules {
    integer_formats: false,
    nested_objects: true,
    convert: true,
};

/// Context for one check: the file, the schema root (for `$ref`), and how strings are
/// substituted (statically known variables replaced, the rest left for run time).
pub struct SchemaCheck<'a> {
    pub src: &'a SourceFile,
    pub root: &'a Value,
    pub subst: &'a dyn Fn(&str) -> String,
    pub diags: Vec<Diagnostic>,
}

impl<'a> SchemaCheck<'a> {
    pub fn new(src: &'a SourceFile, root: &'a Value, subst: &'a dyn Fn(&str) -> String) -> Self {
        Self {
            src,
            root,
            subst,
            diags: Vec::new(),
        }
    }

    /// A tool's parameters: like [`SchemaCheck::object`], except that a required parameter
    /// left out is not reported here: the tool reports its absence with its own code (its
    /// device-free rules run next). A parameter written as YAML null is not given, as in a
    /// bare tool call (left out of the result); one the tool does not have is refused.
    pub fn params(
        &mut self,
        entries: &[(Key, Node)],
        schema: &'a Value,
        owner: &str,
        owner_span: Span,
    ) -> Value {
        self.object_with(entries, schema, owner, owner_span, false)
    }

    /// Checks a mapping of parameters against an object schema. `owner` names it in messages
    /// (e.g. "`click`"); `owner_span` is underlined for missing parameters.
    pub fn object(
        &mut self,
        entries: &[(Key, Node)],
        schema: &'a Value,
        owner: &str,
        owner_span: Span,
    ) -> Value {
        self.object_with(entries, schema, owner, owner_span, true)
    }

    fn object_with(
        &mut self,
        entries: &[(Key, Node)],
        schema: &'a Value,
        owner: &str,
        owner_span: Span,
        required: bool,
    ) -> Value {
        let (src, subst) = (self.src, self.subst);
        let validator = Validator::new(self.root, RULES);
        let mut findings = Vec::new();
        let args = entries
            .iter()
            .map(|(k, node)| (k, Arg { node, src, subst }));
        // `required` marks a plain object; without it, a tool's parameters.
        let outer = Outer {
            required,
            closed: false,
            nulls_absent: !required,
        };
        let out = validator.object(args, schema, outer, &mut findings);
        let words = Words {
            validator: &validator,
            src,
            subst,
            owner,
            owner_span,
        };
        for f in &findings {
            words.say(f, &mut self.diags);
        }
        Value::Object(out)
    }
}

/// A YAML node as the schema sees it.
#[derive(Clone, Copy)]
struct Arg<'a> {
    node: &'a Node,
    src: &'a SourceFile,
    subst: &'a dyn Fn(&str) -> String,
}

impl std::fmt::Debug for Arg<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.node.fmt(f)
    }
}

impl<'a> Arg<'a> {
    fn with(self, node: &'a Node) -> Self {
        Arg { node, ..self }
    }
}

impl<'a> Instance<'a> for Arg<'a> {
    type Key = &'a Key;

    fn key_name(key: &'a Key) -> &'a str {
        &key.name
    }

    fn shape(self, types: &[Type]) -> Shape<'a, Self> {
        let allows = |t: Type| t.allowed_by(types);
        let scalar = |v: Value| Shape::Scalar(Cow::Owned(v));
        match &self.node.value {
            Y::Null if allows(Type::Null) => scalar(Value::Null),
            Y::Str(s) => {
                let text = (self.subst)(s);
                if template::has_refs(&text) {
                    // Only known at run time; the runner converts it.
                    return Shape::Pending(Value::String(text));
                }
                if allows(Type::String) {
                    return scalar(Value::String(text));
                }
                if s.contains("{{") {
                    // A statically resolved variable standing for a number or boolean.
                    let t = text.trim();
                    if allows(Type::Integer)
                        && let Ok(i) = t.parse::<i64>()
                    {
                        return scalar(Value::from(i));
                    }
                    if allows(Type::Number)
                        && let Some(n) = t.parse::<f64>().ok().and_then(Number::from_f64)
                    {
                        return scalar(Value::Number(n));
                    }
                    if allows(Type::Boolean)
                        && let Ok(b) = t.parse::<bool>()
                    {
                        return scalar(Value::Bool(b));
                    }
                }
                Shape::Mismatch
            }
            Y::Int(i) if allows(Type::Integer) || allows(Type::Number) => scalar(Value::from(*i)),
            Y::UInt(u) if allows(Type::Integer) || allows(Type::Number) => scalar(Value::from(*u)),
            // `.inf` / `.nan` are YAML floats, but no parameter takes them (JSON cannot carry
            // them either).
            Y::Float(f) if allows(Type::Number) => {
                Number::from_f64(*f).map_or(Shape::Mismatch, |n| scalar(Value::Number(n)))
            }
            Y::Bool(b) if allows(Type::Boolean) => scalar(Value::Bool(*b)),
            Y::Int(_) | Y::UInt(_) | Y::Float(_) | Y::Bool(_) if allows(Type::String) => self
                .node
                .scalar_text(self.src)
                .map_or(Shape::Mismatch, |t| scalar(Value::String(t))),
            Y::Seq(items) if allows(Type::Array) => {
                Shape::Array(items.iter().map(|n| self.with(n)).collect())
            }
            Y::Map(entries) if allows(Type::Object) => {
                Shape::Object(entries.iter().map(|(k, n)| (k, self.with(n))).collect())
            }
            _ => Shape::Mismatch,
        }
    }

    fn unchecked(self) -> Value {
        generic(self.node, self.subst)
    }

    fn is_null(self) -> bool {
        self.node.value == Y::Null
    }
}

/// Converts a node without a schema (strings substituted).
pub fn generic(node: &Node, subst: &dyn Fn(&str) -> String) -> Value {
    match &node.value {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(*b),
        Y::Int(i) => Value::from(*i),
        Y::UInt(u) => Value::from(*u),
        Y::Float(f) => Number::from_f64(*f).map_or(Value::Null, Value::Number),
        Y::Str(s) => Value::String(subst(s)),
        Y::Seq(items) => Value::Array(items.iter().map(|n| generic(n, subst)).collect()),
        Y::Map(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| (k.name.clone(), generic(v, subst)))
                .collect::<Map<String, Value>>(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::yaml;
    use serde_json::json;

    fn run(schema: Value, yaml_text: &str) -> (Value, Vec<Diagnostic>) {
        let src = SourceFile::new("t.yaml", yaml_text);
        let node = yaml::parse(&src).unwrap();
        let subst = |s: &str| s.replace("{{ N }}", "7");
        let mut c = SchemaCheck::new(&src, &schema, &subst);
        let v = c.object(node.as_map().unwrap(), &schema, "`t`", node.span);
        (v, c.diags)
    }

    fn schema() -> Value {
        json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "n": {"type": "integer", "minimum": 0},
                "s": {"type": ["string", "null"]},
                "mode": {"$ref": "#/$defs/Mode"},
                "list": {"type": "array", "items": {"type": "integer"}}
            },
            "required": ["n"],
            "$defs": {"Mode": {"oneOf": [
                {"const": "fast", "description": "quick"},
                {"const": "slow", "description": "careful"}
            ]}}
        })
    }

    #[test]
    fn converts_and_coerces() {
        let (v, d) = run(
            schema(),
            "n: \"{{ N }}\"\ns: 007\nmode: slow\nlist: [1, 2]\n",
        );
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(
            v,
            json!({"n": 7, "s": "007", "mode": "slow", "list": [1, 2]})
        );
    }

    #[test]
    fn run_time_references_are_accepted_for_any_scalar_type() {
        let (v, d) = run(schema(), "n: \"{{ steps.a.result.count }}\"\n");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(v["n"], "{{ steps.a.result.count }}");
    }

    #[test]
    fn reports_unknown_missing_wrong_and_out_of_range() {
        let (_, d) = run(schema(), "m: 1\nmode: fats\nlist: [1, x]\n");
        let codes: Vec<&str> = d.iter().map(|x| x.code.as_str()).collect();
        assert_eq!(
            codes,
            [
                "unknown-param",
                "invalid-value",
                crate::codes::diag::WRONG_TYPE,
                "missing-param"
            ]
        );
        assert_eq!(d[1].help.as_deref(), Some("did you mean `fast`?"));
        assert!(
            d[2].message.starts_with("item 2 of `list`"),
            "{}",
            d[2].message
        );
        let (_, d) = run(schema(), "n: -1\n");
        assert_eq!(d[0].code, "out-of-range");
    }
}
