//! Checks a step's YAML arguments against the tool's JSON Schema and converts them to JSON.
//!
//! Driven generically by the schema (the subset schemars emits: `type` (one or a list),
//! `properties`, `required`, `additionalProperties`, `items`, `enum`, `const`, `minimum`,
//! `maximum`, `$ref` into `$defs`, `anyOf`/`oneOf`), so a new tool needs no code here.
//! Plain YAML scalars are accepted where a string is expected and keep their source text
//! (`text: 007` is the string `007`); a string holding a `{{ … }}` reference only known at run
//! time is accepted for any scalar type and checked when it is resolved.

use serde_json::{Map, Number, Value};

use crate::flow::Diagnostic;
use crate::flow::source::{SourceFile, Span};
use crate::flow::template;
use crate::flow::yaml::{Node, Value as Y};
use crate::suggest::did_you_mean;

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

    fn resolve(&self, schema: &'a Value) -> &'a Value {
        let mut s = schema;
        for _ in 0..16 {
            let Some(r) = s.get("$ref").and_then(Value::as_str) else {
                break;
            };
            let Some(name) = r
                .strip_prefix("#/$defs/")
                .or_else(|| r.strip_prefix("#/definitions/"))
            else {
                break;
            };
            match self
                .root
                .get("$defs")
                .or_else(|| self.root.get("definitions"))
                .and_then(|d| d.get(name))
            {
                Some(next) => s = next,
                None => break,
            }
        }
        s
    }

    fn push(&mut self, span: Span, code: &str, msg: String, label: &str, help: Option<String>) {
        self.diags
            .push(Diagnostic::error(self.src, span, code, msg, label).with_help_opt(help));
    }

    /// A tool's parameters: like [`SchemaCheck::object`], except that a required parameter
    /// left out is not reported here: the tool reports its absence with its own code (its
    /// device-free rules run next).
    pub fn params(
        &mut self,
        entries: &[(crate::flow::yaml::Key, Node)],
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
        entries: &[(crate::flow::yaml::Key, Node)],
        schema: &'a Value,
        owner: &str,
        owner_span: Span,
    ) -> Value {
        self.object_with(entries, schema, owner, owner_span, true)
    }

    fn object_with(
        &mut self,
        entries: &[(crate::flow::yaml::Key, Node)],
        schema: &'a Value,
        owner: &str,
        owner_span: Span,
        required: bool,
    ) -> Value {
        let schema = self.resolve(schema);
        let props = schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&EMPTY);
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        let mut out = Map::new();
        for (key, node) in entries {
            match props.get(&key.name) {
                Some(p) => {
                    let v = self.value(node, p, &format!("`{}`", key.name));
                    out.insert(key.name.clone(), v);
                }
                None if closed => {
                    let help =
                        did_you_mean(&key.name, props.keys().map(String::as_str)).or_else(|| {
                            let mut names: Vec<&str> = props.keys().map(String::as_str).collect();
                            names.retain(|n| !matches!(*n, "device_id" | "hdc_server"));
                            Some(format!("{owner} takes: {}", names.join(", ")))
                        });
                    self.push(
                        key.span,
                        crate::codes::diag::UNKNOWN_PARAM,
                        format!("{owner} has no parameter `{}`", key.name),
                        "unknown parameter",
                        help,
                    );
                }
                None => {
                    out.insert(key.name.clone(), generic(node, self.subst));
                }
            }
        }
        if let Some(required) = schema
            .get("required")
            .and_then(Value::as_array)
            .filter(|_| required)
        {
            for r in required.iter().filter_map(Value::as_str) {
                if !out.contains_key(r) && !entries.iter().any(|(k, _)| k.name == r) {
                    let example = example_for(props.get(r).map(|p| self.resolve(p)));
                    self.push(
                        owner_span,
                        crate::codes::diag::MISSING_PARAM,
                        format!("{owner} is missing its required parameter `{r}`"),
                        &format!("`{r}` is required"),
                        Some(format!("add `{r}: {example}`")),
                    );
                }
            }
        }
        Value::Object(out)
    }

    /// Checks and converts one value.
    pub fn value(&mut self, node: &Node, schema: &'a Value, what: &str) -> Value {
        let schema = self.resolve(schema);
        if let Some(branches) = schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(Value::as_array)
        {
            let saved = std::mem::take(&mut self.diags);
            let mut first_failure: Option<Vec<Diagnostic>> = None;
            for b in branches {
                let v = self.value(node, b, what);
                let d = std::mem::take(&mut self.diags);
                if d.is_empty() {
                    self.diags = saved;
                    return v;
                }
                if first_failure.is_none() {
                    first_failure = Some(d);
                }
            }
            self.diags = saved;
            // An enumeration written as `oneOf` of `const`s (schemars does this for documented
            // enum variants): one message listing every allowed value.
            if let Some(choices) = self.const_choices(branches)
                && node.is_scalar()
            {
                let shown = node
                    .scalar_text(self.src)
                    .unwrap_or_else(|| "null".to_string());
                let help = did_you_mean(&shown, choices.iter().map(String::as_str))
                    .or_else(|| Some(format!("use one of: {}", choices.join(", "))));
                self.push(
                    node.span,
                    crate::codes::diag::INVALID_VALUE,
                    format!("{what} cannot be `{shown}`"),
                    "not an allowed value",
                    help,
                );
                return Value::Null;
            }
            // When the value has the right shape for one branch, that branch's complaint is the
            // most precise; otherwise say which shapes would do.
            let expected: Vec<String> = branches
                .iter()
                .map(|b| describe(self.resolve(b)))
                .filter(|s| s != "null")
                .collect();
            let precise = first_failure
                .filter(|d| d.iter().all(|x| x.code != crate::codes::diag::WRONG_TYPE));
            match precise {
                Some(d) => self.diags.extend(d),
                None => self.push(
                    node.span,
                    crate::codes::diag::WRONG_TYPE,
                    format!(
                        "{what} must be {}, found {}",
                        expected.join(" or "),
                        node.type_name()
                    ),
                    &format!("expected {}", expected.join(" or ")),
                    None,
                ),
            }
            return Value::Null;
        }
        let types = types_of(schema);
        let v = match self.typed(node, schema, &types, what) {
            Some(v) => v,
            None => return Value::Null,
        };
        self.constraints(node, schema, &v, what);
        v
    }

    /// The allowed values when every (non-null) branch is a `const` or an `enum`.
    fn const_choices(&self, branches: &'a [Value]) -> Option<Vec<String>> {
        let mut out = Vec::new();
        for b in branches {
            let b = self.resolve(b);
            if let Some(c) = b.get("const") {
                out.push(c.as_str().map_or_else(|| c.to_string(), str::to_string));
            } else if let Some(e) = b.get("enum").and_then(Value::as_array) {
                // `null` in an optional parameter's enumeration means "not given", which a
                // flow says by leaving the parameter out: never offer it as a value.
                out.extend(
                    e.iter()
                        .filter(|c| !c.is_null())
                        .map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_string)),
                );
            } else if b.get("type") != Some(&Value::String("null".into())) {
                return None;
            }
        }
        (!out.is_empty()).then_some(out)
    }

    fn typed(
        &mut self,
        node: &Node,
        schema: &'a Value,
        types: &[&str],
        what: &str,
    ) -> Option<Value> {
        let allows = |t: &str| types.is_empty() || types.contains(&t);
        let expected = describe(schema);
        let wrong = |this: &mut Self| {
            this.push(
                node.span,
                crate::codes::diag::WRONG_TYPE,
                format!("{what} must be {expected}, found {}", node.type_name()),
                &format!("expected {expected}"),
                None,
            );
            None
        };
        match &node.value {
            Y::Null if allows("null") => Some(Value::Null),
            Y::Null => {
                let raw = self.src.slice(node.span).trim().to_string();
                let help = if raw.is_empty() || raw == "~" {
                    format!("give {what} a value, or remove it")
                } else {
                    format!("`{raw}` is YAML's null; quote it (\"{raw}\") for the text")
                };
                self.push(
                    node.span,
                    crate::codes::diag::WRONG_TYPE,
                    format!("{what} has no value"),
                    &format!("expected {expected}"),
                    Some(help),
                );
                None
            }
            Y::Str(s) => {
                let text = (self.subst)(s);
                if allows("string") {
                    return Some(Value::String(text));
                }
                if template::has_refs(&text) {
                    // Only known at run time; the runner converts it.
                    return Some(Value::String(text));
                }
                if s.contains("{{") {
                    // A statically resolved variable standing for a number or boolean.
                    if allows("integer")
                        && let Ok(i) = text.trim().parse::<i64>()
                    {
                        return Some(Value::from(i));
                    }
                    if allows("number")
                        && let Some(n) = text.trim().parse::<f64>().ok().and_then(Number::from_f64)
                    {
                        return Some(Value::Number(n));
                    }
                    if allows("boolean")
                        && let Ok(b) = text.trim().parse::<bool>()
                    {
                        return Some(Value::Bool(b));
                    }
                    self.push(
                        node.span,
                        crate::codes::diag::WRONG_TYPE,
                        format!("{what} must be {expected}, but its variables make it `{text}`"),
                        &format!("expected {expected}"),
                        None,
                    );
                    return None;
                }
                wrong(self)
            }
            Y::Int(i) if allows("integer") || allows("number") => Some(Value::from(*i)),
            Y::UInt(u) if allows("integer") || allows("number") => Some(Value::from(*u)),
            Y::Float(f) if allows("number") => match Number::from_f64(*f) {
                Some(n) => Some(Value::Number(n)),
                // `.inf` / `.nan` are YAML floats, but no parameter takes them (JSON cannot
                // carry them either).
                None => {
                    self.push(
                        node.span,
                        crate::codes::diag::WRONG_TYPE,
                        format!(
                            "{what} must be a finite number, found `{}`",
                            self.src.slice(node.value_span)
                        ),
                        &format!("expected {expected}"),
                        None,
                    );
                    None
                }
            },
            Y::Bool(b) if allows("boolean") => Some(Value::Bool(*b)),
            Y::Int(_) | Y::UInt(_) | Y::Float(_) | Y::Bool(_) if allows("string") => {
                node.scalar_text(self.src).map(Value::String)
            }
            Y::Seq(items) if allows("array") => {
                let item_schema: &'a Value = schema.get("items").unwrap_or(&ANY);
                Some(Value::Array(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, n)| {
                            self.value(n, item_schema, &format!("item {} of {what}", i + 1))
                        })
                        .collect(),
                ))
            }
            Y::Map(entries) if allows("object") => {
                Some(self.object(entries, schema, what, node.span))
            }
            _ => wrong(self),
        }
    }

    fn constraints(&mut self, node: &Node, schema: &Value, v: &Value, what: &str) {
        if v.as_str().is_some_and(template::has_refs) {
            return;
        }
        let allowed: Option<Vec<Value>> = schema
            .get("enum")
            .and_then(Value::as_array)
            .cloned()
            .or_else(|| schema.get("const").map(|c| vec![c.clone()]));
        if let Some(allowed) = allowed
            && !allowed.contains(v)
        {
            let names: Vec<String> = allowed
                .iter()
                .filter(|a| !a.is_null())
                .map(|a| a.as_str().map_or_else(|| a.to_string(), str::to_string))
                .collect();
            let shown = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            let help = did_you_mean(&shown, names.iter().map(String::as_str))
                .or_else(|| Some(format!("use one of: {}", names.join(", "))));
            self.push(
                node.span,
                crate::codes::diag::INVALID_VALUE,
                format!("{what} cannot be `{shown}`"),
                "not an allowed value",
                help,
            );
        }
        if let Some(n) = v.as_f64() {
            if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
                && n < min
            {
                self.push(
                    node.span,
                    crate::codes::diag::OUT_OF_RANGE,
                    format!("{what} must be at least {min}, found {n}"),
                    "too small",
                    None,
                );
            }
            if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
                && n > max
            {
                self.push(
                    node.span,
                    crate::codes::diag::OUT_OF_RANGE,
                    format!("{what} must be at most {max}, found {n}"),
                    "too large",
                    None,
                );
            }
        }
    }
}

static ANY: Value = Value::Bool(true);
static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);

fn types_of(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// "an integer", "a string or null", "one of found, gone", …
fn describe(schema: &Value) -> String {
    if let Some(e) = schema.get("enum").and_then(Value::as_array) {
        let names: Vec<String> = e
            .iter()
            .filter(|a| !a.is_null())
            .map(|a| a.as_str().map_or_else(|| a.to_string(), str::to_string))
            .collect();
        return format!("one of {}", names.join(", "));
    }
    let types: Vec<&str> = types_of(schema)
        .into_iter()
        .filter(|t| *t != "null")
        .collect();
    if types.is_empty() {
        return if schema.get("type") == Some(&Value::String("null".into())) {
            "null".into()
        } else {
            "a value".into()
        };
    }
    types
        .iter()
        .map(|t| match *t {
            "integer" => "an integer",
            "number" => "a number",
            "string" => "a string",
            "boolean" => "`true` or `false`",
            "array" => "a list",
            "object" => "a mapping",
            _ => "a value",
        })
        .collect::<Vec<_>>()
        .join(" or ")
}

fn example_for(schema: Option<&Value>) -> String {
    match schema.map(types_of).unwrap_or_default().first().copied() {
        Some("integer") | Some("number") => "0".into(),
        Some("boolean") => "true".into(),
        Some("array") => "[]".into(),
        Some("object") => "{}".into(),
        _ => "…".into(),
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
                .collect(),
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
