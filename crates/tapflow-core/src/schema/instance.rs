//! What the validator walks: a value presented as the JSON types a schema names ([`Instance`]),
//! and the presentation of a plain `serde_json::Value`.

use std::borrow::Cow;

use serde_json::Value;

/// A JSON type, as a schema's `type` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    Null,
    Boolean,
    Integer,
    Number,
    String,
    Array,
    Object,
}

impl Type {
    /// The type a schema's `type` names; `None` for a name JSON Schema does not have.
    pub fn parse(name: &str) -> Option<Type> {
        Some(match name {
            "null" => Type::Null,
            "boolean" => Type::Boolean,
            "integer" => Type::Integer,
            "number" => Type::Number,
            "string" => Type::String,
            "array" => Type::Array,
            "object" => Type::Object,
            _ => return None,
        })
    }

    /// The name a schema uses.
    pub fn name(self) -> &'static str {
        match self {
            Type::Null => "null",
            Type::Boolean => "boolean",
            Type::Integer => "integer",
            Type::Number => "number",
            Type::String => "string",
            Type::Array => "array",
            Type::Object => "object",
        }
    }

    /// Whether a JSON value is of this type. An integer is a number written without a
    /// fraction or exponent (`1.0` is not one: no tool's integer parameter deserialises it).
    pub fn holds(self, v: &Value) -> bool {
        match self {
            Type::Null => v.is_null(),
            Type::Boolean => v.is_boolean(),
            Type::Integer => v.is_i64() || v.is_u64(),
            Type::Number => v.is_number(),
            Type::String => v.is_string(),
            Type::Array => v.is_array(),
            Type::Object => v.is_object(),
        }
    }

    /// Whether `types` (empty: no `type` keyword) allows this type.
    pub fn allowed_by(self, types: &[Type]) -> bool {
        types.is_empty() || types.contains(&self)
    }
}

/// The types a schema's `type` keyword allows, in the order written (empty: any type). Held
/// inline: the walk asks for them at every value, and calls are checked on the MCP hot path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Types {
    list: [Type; 7],
    len: usize,
}

impl Default for Types {
    fn default() -> Self {
        Types {
            list: [Type::Null; 7],
            len: 0,
        }
    }
}

impl std::ops::Deref for Types {
    type Target = [Type];

    fn deref(&self) -> &[Type] {
        &self.list[..self.len]
    }
}

impl IntoIterator for Types {
    type Item = Type;
    type IntoIter = std::iter::Take<std::array::IntoIter<Type, 7>>;

    fn into_iter(self) -> Self::IntoIter {
        self.list.into_iter().take(self.len)
    }
}

/// The types a schema's `type` keyword allows (names JSON Schema does not have are skipped).
pub fn types_of(schema: &Value) -> Types {
    let mut out = Types::default();
    let mut add = |name: &str| {
        if let Some(t) = Type::parse(name)
            && out.len < out.list.len()
        {
            out.list[out.len] = t;
            out.len += 1;
        }
    };
    match schema.get("type") {
        Some(Value::String(s)) => add(s),
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).for_each(add),
        _ => {}
    }
    out
}

/// How a value presents itself to a schema that allows `types`.
#[derive(Debug)]
pub enum Shape<'a, I: Instance<'a>> {
    /// A scalar, as the JSON value the schema's rules (`enum`, ranges, …) judge.
    Scalar(Cow<'a, Value>),
    /// Known only later (a flow's `{{ … }}` reference resolved at run time): it stands for
    /// any type, and the rules judge it once known. The value is what the walk passes on.
    Pending(Value),
    Array(Vec<I>),
    Object(Vec<(I::Key, I)>),
    /// Not of any of the types.
    Mismatch,
}

/// A value the validator can walk. Implemented by `&serde_json::Value` (below) and by the flow
/// compiler's YAML nodes; a handle, cheap to copy.
pub trait Instance<'a>: Copy + std::fmt::Debug {
    /// How an object's property name is held (the flow compiler's keys carry their span).
    type Key: Copy + std::fmt::Debug;

    /// The property name.
    fn key_name(key: Self::Key) -> &'a str;

    /// The value as one of `types` (empty: whatever it is), or [`Shape::Mismatch`].
    fn shape(self, types: &[Type]) -> Shape<'a, Self>;

    /// The value as JSON, unchecked: a property that no schema describes.
    fn unchecked(self) -> Value;

    /// Whether the value is null (as written: a flow's `~` or empty value).
    fn is_null(self) -> bool;
}

impl<'a> Instance<'a> for &'a Value {
    type Key = &'a String;

    fn key_name(key: &'a String) -> &'a str {
        key
    }

    fn shape(self, types: &[Type]) -> Shape<'a, Self> {
        if !types.is_empty() && !types.iter().any(|t| t.holds(self)) {
            return Shape::Mismatch;
        }
        match self {
            Value::Array(items) => Shape::Array(items.iter().collect()),
            Value::Object(map) => Shape::Object(map.iter().collect()),
            scalar => Shape::Scalar(Cow::Borrowed(scalar)),
        }
    }

    fn unchecked(self) -> Value {
        self.clone()
    }

    fn is_null(self) -> bool {
        Value::is_null(self)
    }
}
