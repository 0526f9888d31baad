//! Parameters: MISSING_TEXT, PARAM_CONFLICT, MISSING_PARAMS, INVALID_ELEMENT_HANDLE.

use super::*;

#[test]
fn rule_text_is_always_required() {
    let e = env();
    let cases = [
        json!({"element_handle": handle(NAME, "name")}),
        json!({"x": 10, "y": 10}),
        json!({"element_id": "name", "text": null}),
        json!({}),
    ];
    for args in cases {
        let (code, _) = e.err(args.clone());
        assert_eq!(code, "MISSING_TEXT", "{args}");
    }
    assert_eq!(e.trips(), 0, "validation touches no device");
    let schema = e.engine.get("input_text").unwrap().input_schema().clone();
    assert_eq!(schema["required"], json!(["text"]));
}

#[test]
fn rule_empty_text_is_allowed_only_in_replace_mode() {
    let e = env();
    let (code, _) =
        e.err(json!({"element_handle": handle(NAME, "name"), "text": "", "mode": "append"}));
    assert_eq!(code, "MISSING_TEXT");
    // Coordinate mode cannot select the field, so it cannot clear it (docs/tools.md).
    let (code, _) = e.err(json!({"x": 100, "y": 360, "text": ""}));
    assert_eq!(code, "MISSING_TEXT");
    assert_eq!(e.trips(), 0);
}

#[test]
fn rule_use_one_resolution_mode_only() {
    let e = env();
    let conflicts = [
        json!({"x": 1, "y": 2, "element_handle": handle(NAME, "name"), "text": "a"}),
        json!({"x": 1, "y": 2, "element_id": "name", "text": "a"}),
        json!({"element_handle": handle(NAME, "name"), "element_text": "a", "text": "a"}),
        json!({"element_handle": handle(NAME, "name"), "element_type": "TextInput", "text": "a"}),
        json!({"x": 1, "y": 2, "bundle_name": BUNDLE, "text": "a"}),
    ];
    for args in conflicts {
        let (code, _) = e.err(args.clone());
        assert_eq!(code, "PARAM_CONFLICT", "{args}");
    }
    let missing = [
        json!({"text": "a"}),
        json!({"x": 1, "text": "a"}),
        json!({"y": 1, "text": "a"}),
        json!({"bundle_name": BUNDLE, "text": "a"}),
    ];
    for args in missing {
        let (code, _) = e.err(args.clone());
        assert_eq!(code, "MISSING_PARAMS", "{args}");
    }
    assert_eq!(e.trips(), 0);
}

#[test]
fn rule_do_not_pass_element_handle_as_a_json_string() {
    let e = env();
    // The contract's own incorrect example.
    let (code, _) = e.err(json!({
        "element_handle": "{\"window_id\":80,\"id\":\"420\"}",
        "text": "security"
    }));
    assert_eq!(code, "INVALID_ELEMENT_HANDLE");
    let (code, _) = e.err(json!({"element_handle": {"window_id": 80}, "text": "x"}));
    assert_eq!(code, "INVALID_ELEMENT_HANDLE");
    let (code, _) = e.err(json!({"element_handle": [80, 420], "text": "x"}));
    assert_eq!(code, "INVALID_ELEMENT_HANDLE");
    assert_eq!(e.trips(), 0);
}

#[test]
fn rule_mode_is_replace_or_append() {
    let e = env();
    let (code, details) = e.err(json!({"element_id": "name", "text": "a", "mode": "prepend"}));
    assert_eq!(code, "INVALID_PARAM");
    assert_eq!(details["param"], "mode");
    let schema = e.engine.get("input_text").unwrap().input_schema().clone();
    let mode = serde_json::to_string(&schema["properties"]["mode"]).unwrap();
    assert!(
        mode.contains("replace") && mode.contains("append"),
        "{mode}"
    );
}
