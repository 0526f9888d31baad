//! The tool engine's front end of the schema validator (`tapflow_core::schema`): decodes call
//! arguments against a tool's published input schema (docs/reference/architecture.md §6,
//! "Errors") and words what the validator finds as errors with the contract's codes.
//!
//! Arguments are checked as JSON first, field by field, so that every failure names its
//! parameter and carries the contract's code: an unknown parameter or a wrong JSON type is
//! `INVALID_PARAM` (unless the tool names a code for that field's type), a value outside a
//! published enumeration or range is the tool's code for that field (`INVALID_WAIT_STATE`, …).
//! The first finding is reported. Only then are they deserialised into the tool's parameter
//! type, which also judges the fields of objects inside a parameter (an `element_handle`'s),
//! as it always has ([`RULES`]). Explicit `null` means "not given" for every parameter the tool
//! has (agents often send nulls for the defaults); a parameter the tool does not have is refused
//! even when it is `null`, since it is a typo or a misunderstanding either way. Values echoed in
//! messages are clipped ([`clip`]): an argument of megabytes never comes back whole.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use tapflow_core::codes::Code;
use tapflow_core::schema::{Finding, Outer, Problem, Rule, Rules, Seg, Validator, types_of};

use crate::envelope::ToolError;

/// Per-field error codes a tool assigns (field name → code).
#[derive(Debug, Clone, Copy, Default)]
pub struct FieldCodes {
    /// Used when the value has the right type but lies outside the enumeration or range.
    pub value: &'static [(&'static str, Code)],
    /// Used when the value has the wrong JSON type (default `INVALID_PARAM`).
    pub wrong_type: &'static [(&'static str, Code)],
}

impl FieldCodes {
    fn value_code(&self, field: &str) -> Code {
        lookup(self.value, field).unwrap_or(tapflow_core::codes::INVALID_PARAM)
    }
    fn type_code(&self, field: &str) -> Code {
        lookup(self.wrong_type, field).unwrap_or(tapflow_core::codes::INVALID_PARAM)
    }
}

fn lookup(table: &[(&'static str, Code)], field: &str) -> Option<Code> {
    table.iter().find(|(f, _)| *f == field).map(|(_, c)| *c)
}

/// The validator's rules for calls: integer widths are checked (a value outside the Rust type
/// would only fail deserialisation, without the parameter's code); the fields of objects inside
/// a parameter are left to deserialisation, whose message names the field.
const RULES: Rules = Rules {
    integer_formats: true,
    nested_objects: false,
    convert: false,
};

/// Checks `args` against `schema` (an object schema with `properties`) and returns the
/// arguments with nulls removed.
pub fn check(
    args: Value,
    schema: &Value,
    codes: &FieldCodes,
) -> Result<Map<String, Value>, ToolError> {
    let map = match args {
        Value::Null => Map::new(),
        Value::Object(m) => m,
        other => {
            return Err(ToolError::invalid_param(
                "arguments",
                format!("arguments must be a JSON object, got {}", type_name(&other)),
            ));
        }
    };
    let validator = Validator::new(schema, RULES);
    // `null` for a parameter the tool has means "not given"; for any other, it is refused.
    let outer = Outer {
        required: false,
        closed: true,
        nulls_absent: true,
    };
    let mut findings = Vec::new();
    validator.object(&map, schema, outer, &mut findings);
    if let Some(f) = findings.first() {
        return Err(error_of(&validator, f, &map, codes));
    }
    Ok(map.into_iter().filter(|(_, v)| !v.is_null()).collect())
}

/// The error for the first finding on a call's arguments.
fn error_of<'a>(
    validator: &Validator<'a>,
    f: &Finding<'a, &'a Value>,
    args: &Map<String, Value>,
    codes: &FieldCodes,
) -> ToolError {
    let param = match (f.path.first(), &f.problem) {
        (Some(Seg::Prop(name)), _) => *name,
        (_, Problem::Unknown { key, known }) => {
            let suggestion = tapflow_core::suggest::closest(key, known.iter().copied());
            let shown = clip(key);
            let mut msg = format!("unknown parameter `{shown}`");
            if let Some(s) = &suggestion {
                msg.push_str(&format!(" (did you mean `{s}`?)"));
            }
            return ToolError::invalid_param(&shown, msg).with_details(json!({
                "known_parameters": known,
                "suggestion": suggestion,
            }));
        }
        // Every other finding is about a parameter's value (absent required ones are not
        // asked for: a tool reports those itself, with its own code).
        (_, _) => {
            return ToolError::invalid_param(
                "arguments",
                "the arguments do not match the tool's input schema",
            );
        }
    };
    let value = &args[param];
    match verdict(validator, f, value, 1) {
        Verdict::WrongType(expected) => ToolError::new(
            codes.type_code(param),
            format!(
                "parameter `{param}` must be {expected}, got {}",
                type_name(value)
            ),
        )
        .with_details(json!({ "param": param, "expected": expected })),
        Verdict::NotAllowed(why) => {
            let shown = clip(&value.to_string());
            ToolError::new(
                codes.value_code(param),
                format!("parameter `{param}`: {shown} is not allowed: {why}"),
            )
            .with_details(json!({ "param": param, "value": shown }))
        }
    }
}

/// The longest piece of an argument a message or `details` repeats (in characters).
pub const ECHO_LIMIT: usize = 120;

/// `text` as messages may echo it: whole when short, else its first [`ECHO_LIMIT`] characters
/// and how long it really was (`…(10485760 bytes)`).
pub fn clip(text: &str) -> String {
    match text.char_indices().nth(ECHO_LIMIT) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}…({} bytes)", &text[..cut], text.len()),
    }
}

/// Parses call arguments from JSON text (`tapflow tool`), refusing what `serde_json::Value`
/// would silently accept: a key given twice in one object (the last would win, at any depth)
/// is `INVALID_PARAM` naming the key.
pub fn parse_arguments(text: &str) -> Result<Value, ToolError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde::de::DeserializeSeed::deserialize(Strict, &mut de)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| {
            let msg = e.to_string();
            match msg.strip_prefix(DUPLICATE) {
                Some(rest) => {
                    let key = rest.split(" at line ").next().unwrap_or(rest);
                    ToolError::invalid_param(
                        key,
                        format!("parameter `{key}` is given twice; give each parameter once"),
                    )
                }
                None => ToolError::invalid_param(
                    "arguments",
                    format!("arguments are not valid JSON: {}", clip(&msg)),
                ),
            }
        })?;
    Ok(value)
}

const DUPLICATE: &str = "duplicate key: ";

/// Builds a `Value` like serde_json does, but fails on a repeated object key.
struct Strict;

impl<'de> serde::de::DeserializeSeed<'de> for Strict {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Strict {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(Strict)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Strict)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Strict)?;
            if out.contains_key(&key) {
                return Err(serde::de::Error::custom(format!(
                    "{DUPLICATE}{}",
                    clip(&key)
                )));
            }
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

/// Deserialises checked arguments into a tool's parameter type.
pub fn deserialize<P: DeserializeOwned>(map: Map<String, Value>) -> Result<P, ToolError> {
    serde_json::from_value(Value::Object(map)).map_err(|e| {
        // Rare after `check` (e.g. an integer too large for its Rust type).
        ToolError::invalid_param("arguments", clip(&format!("invalid arguments: {e}")))
    })
}

/// What a finding says about the value at `path[depth..]`, from `v` (the value at `depth`).
enum Verdict {
    /// Expected this (e.g. "an integer or a string").
    WrongType(String),
    /// Of the right type, refused for this reason.
    NotAllowed(String),
}

fn verdict<'a>(
    validator: &Validator<'a>,
    f: &Finding<'a, &'a Value>,
    v: &Value,
    depth: usize,
) -> Verdict {
    match f.path.get(depth) {
        Some(Seg::Item(i)) => {
            let item = &v[*i];
            return match verdict(validator, f, item, depth + 1) {
                Verdict::WrongType(e) => {
                    Verdict::WrongType(format!("an array of {e} (item {i} is not)"))
                }
                Verdict::NotAllowed(w) => {
                    Verdict::NotAllowed(format!("item {i} ({}): {w}", clip(&item.to_string())))
                }
            };
        }
        // Inside an object in a parameter (only when RULES check nested objects).
        Some(Seg::Prop(name)) => return verdict(validator, f, &v[*name], depth + 1),
        None => {}
    }
    match &f.problem {
        Problem::WrongType { schema } => {
            let names: Vec<String> = types_of(schema)
                .into_iter()
                .filter(|t| *t != tapflow_core::schema::Type::Null)
                .map(|t| article(t.name()))
                .collect();
            Verdict::WrongType(names.join(" or "))
        }
        Problem::NotAllowed { rule, .. } => Verdict::NotAllowed(match rule {
            Rule::Enum(allowed) => format!("expected one of {}", list(allowed.iter())),
            Rule::Const(c) => format!("expected {c}"),
            Rule::Format { format, min, max } => {
                format!("out of range for {format} ({min}..={max})")
            }
            Rule::Minimum(min) => format!("must be >= {min}"),
            Rule::Maximum(max) => format!("must be <= {max}"),
        }),
        Problem::NoBranch { branches, findings } => {
            // Each branch by its first finding: refused for a reason when one branch had the
            // right type (all enumerated values listed when every branch is an enumeration),
            // else the types that would do.
            let mut expected = Vec::new();
            let mut not_allowed = None;
            for found in findings {
                match found.first().map(|bf| verdict(validator, bf, v, depth)) {
                    Some(Verdict::WrongType(e)) => expected.push(e),
                    Some(Verdict::NotAllowed(w)) => not_allowed = Some(w),
                    None => {}
                }
            }
            match not_allowed {
                Some(w) => Verdict::NotAllowed(validator.enumerated(branches).map_or(w, |all| {
                    format!("expected one of {}", list(all.into_iter()))
                })),
                None => Verdict::WrongType(expected.join(" or ")),
            }
        }
        Problem::Unknown { key, .. } => Verdict::NotAllowed(format!("no property `{}`", clip(key))),
        Problem::Missing { name, .. } => Verdict::NotAllowed(format!("`{name}` is missing")),
    }
}

/// Enumerated values as messages list them (JSON, `null` left out: it means "not given").
fn list<'v>(values: impl Iterator<Item = &'v Value>) -> String {
    values
        .filter(|v| !v.is_null())
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn article(t: &str) -> String {
    match t {
        "integer" | "array" | "object" => format!("an {t}"),
        other => format!("a {other}"),
    }
}

pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Value {
        json!({"type":"object","properties":{
            "state": {"type":"string","enum":["found","gone"]},
            "count": {"type":"integer","enum":[1,2]},
            "timeout_ms": {"type":"integer","minimum":0},
            "x": {"type":["integer","null"],"format":"int32"},
            "text": {"type":["string","null"]},
            "mods": {"type":"array","items":{"type":"string","enum":["Ctrl","Alt"]}},
            "key": {"anyOf":[{"type":"string"},{"type":"integer"}]},
            "handle": {"type":"object"}
        }})
    }
    const CODES: FieldCodes = FieldCodes {
        value: &[
            ("state", tapflow_core::codes::INVALID_WAIT_STATE),
            ("count", tapflow_core::codes::INVALID_CLICK_COUNT),
            ("timeout_ms", tapflow_core::codes::INVALID_TIMEOUT),
            ("mods", tapflow_core::codes::INVALID_MODIFIER),
        ],
        wrong_type: &[("handle", tapflow_core::codes::INVALID_ELEMENT_HANDLE)],
    };

    fn code(args: Value) -> tapflow_core::codes::Code {
        check(args, &schema(), &CODES).unwrap_err().code
    }

    #[test]
    fn enumerations_ranges_and_types_get_their_codes() {
        assert_eq!(code(json!({"state":"present"})), "INVALID_WAIT_STATE");
        assert_eq!(code(json!({"state":3})), "INVALID_PARAM");
        assert_eq!(code(json!({"count":3})), "INVALID_CLICK_COUNT");
        assert_eq!(code(json!({"count":1.5})), "INVALID_PARAM");
        assert_eq!(code(json!({"timeout_ms":-1})), "INVALID_TIMEOUT");
        assert_eq!(code(json!({"mods":["Ctrl","Hyper"]})), "INVALID_MODIFIER");
        assert_eq!(code(json!({"mods":"Ctrl"})), "INVALID_PARAM");
        assert_eq!(code(json!({"key":true})), "INVALID_PARAM");
        assert_eq!(
            code(json!({"handle":"{\"window_id\":1}"})),
            "INVALID_ELEMENT_HANDLE"
        );
        assert_eq!(code(json!([1])), "INVALID_PARAM");
        let e = check(json!({"x": 3_000_000_000u64}), &schema(), &CODES).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.details["param"].as_str()),
            ("INVALID_PARAM", Some("x"))
        );
        assert!(check(json!({"x": -2_147_483_648i64}), &schema(), &CODES).is_ok());
    }

    #[test]
    fn unknown_parameters_are_named_with_a_suggestion() {
        let e = check(json!({"stat":"found"}), &schema(), &CODES).unwrap_err();
        assert_eq!(e.code, "INVALID_PARAM");
        assert_eq!(e.details["param"], "stat");
        assert_eq!(e.details["suggestion"], "state");
    }

    #[test]
    fn duplicate_keys_are_refused_at_any_depth() {
        let e = parse_arguments(r#"{"text":"a","text":"b"}"#).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.param()),
            ("INVALID_PARAM", Some("text"))
        );
        let e = parse_arguments(r#"{"element_handle":{"id":"1","id":"2"}}"#).unwrap_err();
        assert_eq!(e.param(), Some("id"));
        assert_eq!(
            parse_arguments(r#"{"a":[1,{"b":null}],"c":1.5,"d":18446744073709551615}"#).unwrap(),
            json!({"a":[1,{"b":null}],"c":1.5,"d":18446744073709551615u64})
        );
        assert!(parse_arguments("{} x").is_err());
        assert!(
            parse_arguments("{")
                .unwrap_err()
                .message
                .contains("not valid JSON")
        );
    }

    #[test]
    fn unknown_parameters_are_refused_even_when_null() {
        let e = check(json!({"stat": null}), &schema(), &CODES).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.param()),
            ("INVALID_PARAM", Some("stat"))
        );
    }

    #[test]
    fn echoed_values_are_clipped() {
        let huge = "x".repeat(10 * 1024 * 1024);
        let e = check(json!({"state": huge}), &schema(), &CODES).unwrap_err();
        assert!(e.message.len() < 400, "{}", e.message.len());
        assert!(
            e.message.contains("(10485762 bytes)"),
            "{}",
            &e.message[..200]
        );
        assert!(e.details.to_string().len() < 400);
        let e = check(json!({ huge.clone(): 1 }), &schema(), &CODES).unwrap_err();
        assert!(e.message.len() < 400 && e.details.to_string().len() < 1000);
    }

    #[test]
    fn echoed_items_are_clipped() {
        let huge = "x".repeat(10 * 1024 * 1024);
        let e = check(json!({"mods": ["Ctrl", huge]}), &schema(), &CODES).unwrap_err();
        assert_eq!(e.code, "INVALID_MODIFIER");
        assert!(e.message.len() < 600, "{}", &e.message[..600]);
        assert!(e.message.contains("item 1 (\"xxx"), "{}", e.message);
        assert!(e.message.contains("(10485762 bytes)"), "{}", e.message);
    }

    #[test]
    fn nulls_mean_absent_and_valid_values_pass() {
        let m = check(
            json!({"text":null,"state":"gone","key":5,"mods":["Alt"]}),
            &schema(),
            &CODES,
        )
        .unwrap();
        assert!(!m.contains_key("text"));
        assert_eq!(m["state"], "gone");
        assert!(check(Value::Null, &schema(), &CODES).unwrap().is_empty());
    }
}
