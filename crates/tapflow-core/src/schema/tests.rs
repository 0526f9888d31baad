//! The walk over plain JSON: each keyword of the subset, where findings point, and the rules.

use serde_json::{Value, json};

use super::*;

const STRICT: Rules = Rules {
    integer_formats: true,
    ..Rules::JSON_SCHEMA
};

fn schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "n": {"type": "integer", "format": "uint8", "minimum": 1, "maximum": 100},
            "s": {"type": ["string", "null"]},
            "mode": {"$ref": "#/$defs/Mode"},
            "list": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
            "obj": {
                "type": "object",
                "properties": {"k": {"type": "boolean"}},
                "required": ["k"],
                "additionalProperties": {"type": "integer"}
            },
            "c": {"const": 3},
            "key": {"anyOf": [{"type": "integer"}, {"type": "string", "enum": ["x"]}]}
        },
        "required": ["n"],
        "$defs": {"Mode": {"oneOf": [{"const": "fast"}, {"const": "slow"}]}}
    })
}

/// One line per finding: path, then what.
fn findings(rules: Rules, value: Value) -> Vec<String> {
    let schema = schema();
    let v = Validator::new(&schema, rules);
    let mut out = Vec::new();
    v.value(&value, &schema, &mut out);
    out.iter().map(line).collect()
}

fn line<'a>(f: &Finding<'a, &'a Value>) -> String {
    let path: Vec<String> = f
        .path
        .iter()
        .map(|s| match s {
            Seg::Prop(p) => p.to_string(),
            Seg::Item(i) => i.to_string(),
        })
        .collect();
    let what = match &f.problem {
        Problem::WrongType { schema } => format!("wrong type, expected {}", schema["type"]),
        Problem::NotAllowed { rule, value } => format!("{value} refused by {rule:?}"),
        Problem::Unknown { key, known } => format!("unknown {key} (known: {})", known.join(" ")),
        Problem::Missing { name, .. } => format!("missing {name}"),
        Problem::NoBranch { findings, .. } => {
            let each: Vec<String> = findings
                .iter()
                .map(|b| b.iter().map(line).collect::<Vec<_>>().join("; "))
                .collect();
            format!("no branch: [{}]", each.join(" | "))
        }
    };
    format!("{}: {what}", path.join("."))
}

#[test]
fn a_valid_value_has_no_findings() {
    let ok = json!({"n": 5, "s": null, "mode": "slow", "list": ["a"], "obj": {"k": true, "x": 1},
                    "c": 3, "key": "x"});
    assert_eq!(findings(STRICT, ok), Vec::<String>::new());
}

#[test]
fn each_keyword_reports_where_and_what() {
    let bad = json!({"n": 0, "s": 1, "mode": "fats", "list": ["a", 1, "c"],
                     "obj": {"x": "y"}, "c": 4, "key": "z", "extra": true});
    assert_eq!(
        findings(STRICT, bad),
        [
            "n: 0 refused by Minimum(1.0)",
            "s: wrong type, expected [\"string\",\"null\"]",
            "mode: no branch: [mode: \"fats\" refused by Const(String(\"fast\")) | mode: \"fats\" refused by Const(String(\"slow\"))]",
            "list.1: wrong type, expected \"string\"",
            "list.2: \"c\" refused by Enum([String(\"a\"), String(\"b\")])",
            "obj.x: wrong type, expected \"integer\"",
            "obj: missing k",
            "c: 4 refused by Const(Number(3))",
            "key: no branch: [key: wrong type, expected \"integer\" | key: \"z\" refused by Enum([String(\"x\")])]",
            ": unknown extra (known: n s mode list obj c key)",
        ]
    );
    assert_eq!(findings(STRICT, json!({})), [": missing n"]);
    assert_eq!(
        findings(STRICT, json!([1])),
        [": wrong type, expected \"object\""]
    );
}

#[test]
fn integer_formats_and_ranges_follow_the_rules() {
    // 300 is within `maximum`? No: both the width (uint8) and the maximum refuse it.
    assert_eq!(
        findings(STRICT, json!({"n": 300})),
        [
            "n: 300 refused by Format { format: \"uint8\", min: 0, max: 255 }",
            "n: 300 refused by Maximum(100.0)",
        ]
    );
    // JSON Schema treats `format` as an annotation.
    assert_eq!(
        findings(Rules::JSON_SCHEMA, json!({"n": 300})),
        ["n: 300 refused by Maximum(100.0)"]
    );
    // An integer is written without a fraction.
    assert_eq!(
        findings(STRICT, json!({"n": 5.0})),
        ["n: wrong type, expected \"integer\""]
    );
}

#[test]
fn nested_objects_are_walked_only_when_the_rules_say() {
    let shallow = Rules {
        nested_objects: false,
        ..STRICT
    };
    let v = json!({"n": 5, "obj": {"x": "y"}});
    assert_eq!(findings(shallow, v.clone()), Vec::<String>::new());
    assert_eq!(findings(STRICT, v).len(), 2);
    // The outermost object is always walked.
    assert_eq!(findings(shallow, json!({"n": 5, "z": 1})).len(), 1);
}

#[test]
fn outer_options_and_open_objects() {
    let schema =
        json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]});
    let v = Validator::new(&schema, Rules::JSON_SCHEMA);
    let args = json!({"b": "anything"});
    let entries = args.as_object().unwrap();
    let mut out = Vec::new();
    v.object(
        entries.iter(),
        &schema,
        Outer {
            required: false,
            closed: false,
            nulls_absent: false,
        },
        &mut out,
    );
    assert!(out.is_empty(), "an open object takes other properties");
    v.object(
        entries.iter(),
        &schema,
        Outer {
            required: true,
            closed: true,
            nulls_absent: false,
        },
        &mut out,
    );
    let lines: Vec<String> = out.iter().map(line).collect();
    assert_eq!(lines, [": unknown b (known: a)", ": missing a"]);
    assert!(
        out[1].at.is_none(),
        "the outermost object has no value of its own"
    );
}

#[test]
fn conversion_builds_the_value_and_refs_are_followed() {
    let schema = schema();
    let convert = Rules {
        convert: true,
        ..STRICT
    };
    let v = Validator::new(&schema, convert);
    let value = json!({"n": 5, "mode": "fast", "list": ["b"], "obj": {"k": false}});
    let mut out = Vec::new();
    assert_eq!(v.value(&value, &schema, &mut out), value);
    assert!(out.is_empty());
    assert_eq!(
        v.resolve(&json!({"$ref": "#/$defs/Mode"})),
        &schema["$defs"]["Mode"]
    );
    // A reference that leads nowhere (or in a circle) stops rather than looping.
    let looped = json!({"$defs": {"A": {"$ref": "#/$defs/A"}}});
    let v = Validator::new(&looped, convert);
    assert_eq!(v.resolve(&looped["$defs"]["A"]), &looped["$defs"]["A"]);
}

#[test]
fn enumerated_branches_list_their_values() {
    let schema = schema();
    let v = Validator::new(&schema, STRICT);
    let branches = json!([{"$ref": "#/$defs/Mode"}, {"type": "null"}, {"enum": ["x", null]}]);
    let branches = branches.as_array().unwrap();
    // `$ref` to a oneOf is not itself an enumeration.
    assert_eq!(v.enumerated(branches), None);
    let branches = json!([{"const": "fast"}, {"type": "null"}, {"enum": ["x", null]}]);
    let all = v.enumerated(branches.as_array().unwrap()).unwrap();
    assert_eq!(all, [&json!("fast"), &json!("x"), &Value::Null]);
}
