//! The walk: a schema over an [`Instance`], keyword by keyword, collecting [`Finding`]s (all of
//! them, in the order of the value: the flow compiler reports every one, the engine the first)
//! and, when asked, building the value as JSON on the way.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::{Finding, Instance, Problem, Rule, Seg, Shape, types_of};

/// The choices that differ between front ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Check integer `format` widths (`int32`, `uint8`, …). JSON Schema treats `format` as an
    /// annotation; the engine checks them, since a value outside the parameter's Rust type
    /// would not deserialise.
    pub integer_formats: bool,
    /// Check the properties of objects inside the value (the outermost object's are always
    /// checked). JSON Schema does.
    pub nested_objects: bool,
    /// Build the value as JSON while walking ([`Validator::value`] returns it; `Null` where
    /// refused). Needed when the instance is not JSON already (a flow's YAML).
    pub convert: bool,
}

impl Rules {
    /// JSON Schema's own meaning of the subset (what a third-party validator decides).
    pub const JSON_SCHEMA: Rules = Rules {
        integer_formats: false,
        nested_objects: true,
        convert: false,
    };
}

/// How the outermost object, given as entries ([`Validator::object`]), is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outer {
    /// Report `required` properties that are absent.
    pub required: bool,
    /// Refuse a property the schema does not declare even when the schema allows others.
    pub closed: bool,
    /// `null` for a declared property means "not given": it is neither checked nor passed on
    /// (a tool's parameters, in a call and in a flow alike). For an undeclared one it is not.
    pub nulls_absent: bool,
}

/// A schema's root (for `$ref`) and the rules of one front end.
pub struct Validator<'a> {
    root: &'a Value,
    rules: Rules,
}

/// Accepts anything (`items` absent, a property of an open object).
static ANY: Value = Value::Bool(true);

impl<'a> Validator<'a> {
    pub fn new(root: &'a Value, rules: Rules) -> Self {
        Self { root, rules }
    }

    /// `schema` with `$ref`s into the root's `$defs` (or `definitions`) followed (at most 16:
    /// a cycle of references stops there rather than looping).
    pub fn resolve(&self, schema: &'a Value) -> &'a Value {
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

    /// Checks one value against `schema`, appending what it finds to `out`. Returns the value
    /// as JSON when the rules say to convert (else `Null`).
    pub fn value<I: Instance<'a>>(
        &self,
        v: I,
        schema: &'a Value,
        out: &mut Vec<Finding<'a, I>>,
    ) -> Value {
        self.walk(v, schema, &mut Vec::new(), out)
    }

    /// Checks the entries of an object (a tool's parameters) against an object schema.
    /// Returns the object as JSON when converting (a refused property is left out or `Null`).
    pub fn object<I: Instance<'a>>(
        &self,
        entries: impl IntoIterator<Item = (I::Key, I)>,
        schema: &'a Value,
        outer: Outer,
        out: &mut Vec<Finding<'a, I>>,
    ) -> Map<String, Value> {
        let schema = self.resolve(schema);
        self.entries(entries, None, schema, outer, &mut Vec::new(), out)
    }

    fn walk<I: Instance<'a>>(
        &self,
        v: I,
        schema: &'a Value,
        path: &mut Vec<Seg<'a>>,
        out: &mut Vec<Finding<'a, I>>,
    ) -> Value {
        let schema = self.resolve(schema);
        if let Some(branches) = any_of(schema) {
            let mut failed = Vec::new();
            for b in branches {
                let mut found = Vec::new();
                let value = self.walk(v, b, path, &mut found);
                if found.is_empty() {
                    return value;
                }
                failed.push(found);
            }
            out.push(Finding {
                path: path.clone(),
                at: Some(v),
                problem: Problem::NoBranch {
                    branches,
                    findings: failed,
                },
            });
            return Value::Null;
        }
        match v.shape(&types_of(schema)) {
            Shape::Mismatch => {
                out.push(Finding {
                    path: path.clone(),
                    at: Some(v),
                    problem: Problem::WrongType { schema },
                });
                Value::Null
            }
            Shape::Pending(value) => value,
            Shape::Scalar(value) => {
                self.refusals(schema, &value, |rule| {
                    out.push(Finding {
                        path: path.clone(),
                        at: Some(v),
                        problem: Problem::NotAllowed {
                            rule,
                            value: value.clone(),
                        },
                    })
                });
                if self.rules.convert {
                    value.into_owned()
                } else {
                    Value::Null
                }
            }
            Shape::Array(items) => {
                self.container_rules(v, schema, path, out);
                let item_schema = schema.get("items").unwrap_or(&ANY);
                let mut converted = Vec::new();
                for (i, item) in items.into_iter().enumerate() {
                    path.push(Seg::Item(i));
                    let value = self.walk(item, item_schema, path, out);
                    path.pop();
                    if self.rules.convert {
                        converted.push(value);
                    }
                }
                if self.rules.convert {
                    Value::Array(converted)
                } else {
                    Value::Null
                }
            }
            Shape::Object(entries) => {
                self.container_rules(v, schema, path, out);
                // The value checked is always walked; objects inside it as the rules say.
                if !self.rules.nested_objects && !path.is_empty() {
                    return if self.rules.convert {
                        v.unchecked()
                    } else {
                        Value::Null
                    };
                }
                let outer = Outer {
                    required: true,
                    closed: false,
                    nulls_absent: false,
                };
                Value::Object(self.entries(entries, Some(v), schema, outer, path, out))
            }
        }
    }

    /// `enum`/`const` on an array or object (schemars emits none; JSON Schema allows them).
    fn container_rules<I: Instance<'a>>(
        &self,
        v: I,
        schema: &'a Value,
        path: &[Seg<'a>],
        out: &mut Vec<Finding<'a, I>>,
    ) {
        if schema.get("enum").is_none() && schema.get("const").is_none() {
            return;
        }
        let value = Cow::Owned(v.unchecked());
        self.refusals(schema, &value, |rule| {
            out.push(Finding {
                path: path.to_vec(),
                at: Some(v),
                problem: Problem::NotAllowed {
                    rule,
                    value: value.clone(),
                },
            })
        });
    }

    /// The rules that refuse a value of an allowed type, in the order the engine reports the
    /// first of them: `enum`, `const`, integer `format`, `minimum`, `maximum`.
    fn refusals(&self, schema: &'a Value, v: &Value, mut refuse: impl FnMut(Rule<'a>)) {
        if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
            && !allowed.contains(v)
        {
            refuse(Rule::Enum(allowed));
        }
        if let Some(c) = schema.get("const")
            && c != v
        {
            refuse(Rule::Const(c));
        }
        if self.rules.integer_formats
            && let Some(format) = schema.get("format").and_then(Value::as_str)
            && let Some((min, max)) = integer_range(format)
            && (v.is_i64() || v.is_u64())
        {
            let fits = match (v.as_i64(), v.as_u64()) {
                (Some(i), _) => (min..=max).contains(&i128::from(i)),
                (None, Some(u)) => i128::from(u) <= max,
                _ => false,
            };
            if !fits {
                refuse(Rule::Format { format, min, max });
            }
        }
        if let Some(n) = v.as_f64() {
            if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
                && n < min
            {
                refuse(Rule::Minimum(min));
            }
            if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
                && n > max
            {
                refuse(Rule::Maximum(max));
            }
        }
    }

    /// An object's entries against its (resolved) schema: each known property against its
    /// schema, the others per `additionalProperties`, then the required ones that are absent.
    fn entries<I: Instance<'a>>(
        &self,
        entries: impl IntoIterator<Item = (I::Key, I)>,
        owner: Option<I>,
        schema: &'a Value,
        outer: Outer,
        path: &mut Vec<Seg<'a>>,
        out: &mut Vec<Finding<'a, I>>,
    ) -> Map<String, Value> {
        let props = schema.get("properties").and_then(Value::as_object);
        let additional = schema.get("additionalProperties");
        let closed = outer.closed || additional == Some(&Value::Bool(false));
        let mut names = Vec::new();
        let mut converted = Map::new();
        for (key, v) in entries {
            let name = I::key_name(key);
            if outer.required {
                names.push(name);
            }
            let declared = props.and_then(|p| p.get(name));
            if outer.nulls_absent && declared.is_some() && v.is_null() {
                continue;
            }
            let value = match (declared, additional) {
                (Some(prop), _) => self.property(v, name, prop, path, out),
                (None, _) if closed => {
                    out.push(Finding {
                        path: path.clone(),
                        at: Some(v),
                        problem: Problem::Unknown {
                            key,
                            known: props
                                .map(|p| p.keys().map(String::as_str).collect())
                                .unwrap_or_default(),
                        },
                    });
                    continue;
                }
                (None, Some(extra)) if extra.is_object() => {
                    self.property(v, name, extra, path, out)
                }
                (None, _) if self.rules.convert => v.unchecked(),
                (None, _) => Value::Null,
            };
            if self.rules.convert {
                converted.insert(name.to_string(), value);
            }
        }
        if outer.required
            && let Some(required) = schema.get("required").and_then(Value::as_array)
        {
            for name in required.iter().filter_map(Value::as_str) {
                if !names.contains(&name) {
                    out.push(Finding {
                        path: path.clone(),
                        at: owner,
                        problem: Problem::Missing {
                            name,
                            schema: props.and_then(|p| p.get(name)).map(|s| self.resolve(s)),
                        },
                    });
                }
            }
        }
        converted
    }

    /// The values a set of branches allows, when every branch is an enumeration (`enum` or
    /// `const`) or the type `null` (schemars writes documented enum variants as a `oneOf` of
    /// `const`s, and an optional one adds `{"type": "null"}`); `None` when a branch is anything
    /// else. Null values are kept ("not given" for an optional parameter): front ends that list
    /// the choices leave them out.
    pub fn enumerated(&self, branches: &'a [Value]) -> Option<Vec<&'a Value>> {
        let mut out = Vec::new();
        for b in branches {
            let b = self.resolve(b);
            if let Some(c) = b.get("const") {
                out.push(c);
            } else if let Some(e) = b.get("enum").and_then(Value::as_array) {
                out.extend(e);
            } else if b.get("type").and_then(Value::as_str) != Some("null") {
                return None;
            }
        }
        Some(out)
    }

    fn property<I: Instance<'a>>(
        &self,
        v: I,
        name: &'a str,
        schema: &'a Value,
        path: &mut Vec<Seg<'a>>,
        out: &mut Vec<Finding<'a, I>>,
    ) -> Value {
        path.push(Seg::Prop(name));
        let value = self.walk(v, schema, path, out);
        path.pop();
        value
    }
}

/// The branches of `anyOf` (or else `oneOf`).
fn any_of(schema: &Value) -> Option<&[Value]> {
    ["anyOf", "oneOf"]
        .iter()
        .find_map(|k| schema.get(*k).and_then(Value::as_array))
        .map(Vec::as_slice)
}

/// The range of schemars' integer formats.
pub fn integer_range(format: &str) -> Option<(i128, i128)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => (i64::MIN.into(), i64::MAX.into()),
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "uint64" | "uint" => (0, u64::MAX.into()),
        _ => return None,
    })
}
