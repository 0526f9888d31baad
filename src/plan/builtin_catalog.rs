//! The interim tool catalog: hand-written JSON Schemas (in the shape schemars produces) for a
//! realistic subset of the HarmonyOS tools of the contract (click, long_press, input_text,
//! press_key, wait_for_element, screenshot, swipe, logs_query, run_app, find_elements,
//! query_package), their static rules, defaults, shorthands and result fields.
//!
//! It exists so that `tapflow validate` and `tapflow plan` work, and are tested, before the
//! real tool registry implements [`ToolCatalog`]; the CLI obtains its catalog from
//! `cli::flow_cmd::catalog()`, which is the single place to switch to the registry.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::catalog::{StaticIssue, ToolCatalog};
use super::keys;
use crate::flow::suggest::did_you_mean;

struct ToolDef {
    schema: Value,
    shorthand: Option<&'static str>,
    result_fields: &'static [&'static str],
}

/// See the module documentation.
pub struct BuiltinCatalog {
    tools: BTreeMap<&'static str, ToolDef>,
}

impl Default for BuiltinCatalog {
    fn default() -> Self {
        Self::new()
    }
}

fn opt(ty: &str, description: &str) -> Value {
    json!({"type": [ty, "null"], "default": null, "description": description})
}

fn routing() -> Vec<(&'static str, Value)> {
    vec![
        (
            "device_id",
            opt("string", "Target device (set by the runner)"),
        ),
        (
            "hdc_server",
            opt("string", "Wireless HDC endpoint (set by the runner)"),
        ),
    ]
}

fn handle_def() -> Value {
    json!({
        "ElementHandle": {
            "type": "object",
            "description": "A handle returned by find_elements or wait_for_element",
            "properties": {
                "window_id": {"type": "integer"},
                "id": {"type": "string"},
                "compid": {"type": "string"},
                "type": {"type": "string"},
                "lookup_hint": {"type": ["object", "null"]}
            },
            "required": ["window_id", "id"]
        }
    })
}

fn schema(
    title: &str,
    props: Vec<(&'static str, Value)>,
    required: &[&str],
    defs: Option<Value>,
) -> Value {
    let mut properties = serde_json::Map::new();
    for (k, v) in routing().into_iter().chain(props) {
        properties.insert(k.to_string(), v);
    }
    let mut s = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": title,
        "type": "object",
        "properties": properties,
        "additionalProperties": false
    });
    if !required.is_empty() {
        s["required"] = json!(required);
    }
    if let Some(d) = defs {
        s["$defs"] = d;
    }
    s
}

fn target_props(text_param: &'static str) -> Vec<(&'static str, Value)> {
    vec![
        (
            "x",
            json!({"type": ["integer", "null"], "format": "int64", "default": null, "description": "Coordinate mode"}),
        ),
        (
            "y",
            json!({"type": ["integer", "null"], "format": "int64", "default": null, "description": "Coordinate mode"}),
        ),
        (
            "element_handle",
            json!({"anyOf": [{"$ref": "#/$defs/ElementHandle"}, {"type": "null"}], "default": null}),
        ),
        (text_param, opt("string", "Search mode: element text")),
        ("element_type", opt("string", "Search mode: element type")),
        ("element_id", opt("string", "Search mode: element id")),
        ("bundle_name", opt("string", "Search scope only")),
    ]
}

fn search_props() -> Vec<(&'static str, Value)> {
    vec![
        ("text", opt("string", "Search criteria")),
        ("element_type", opt("string", "Search criteria")),
        ("element_id", opt("string", "Search criteria")),
        ("bundle_name", opt("string", "Narrow search scope")),
        (
            "window_id",
            json!({"type": ["integer", "null"], "default": null}),
        ),
    ]
}

impl BuiltinCatalog {
    pub fn new() -> Self {
        let mut tools = BTreeMap::new();
        let mut click = target_props("text");
        click.push(("count", json!({"type": "integer", "enum": [1, 2], "default": 1, "description": "Single or double click"})));
        tools.insert(
            "click",
            ToolDef {
                schema: schema("ClickParams", click, &[], Some(handle_def())),
                shorthand: Some("text"),
                result_fields: &[
                    "x",
                    "y",
                    "count",
                    "resolved_via",
                    "handle_refreshed",
                    "element_handle",
                    "dispatched",
                    "effect_verified",
                ],
            },
        );
        tools.insert(
            "long_press",
            ToolDef {
                schema: schema(
                    "LongPressParams",
                    target_props("text"),
                    &[],
                    Some(handle_def()),
                ),
                shorthand: Some("text"),
                result_fields: &[
                    "x",
                    "y",
                    "resolved_via",
                    "handle_refreshed",
                    "element_handle",
                    "dispatched",
                    "effect_verified",
                ],
            },
        );
        let mut input = target_props("element_text");
        input.push((
            "text",
            json!({"type": "string", "description": "Text to input"}),
        ));
        input.push((
            "mode",
            json!({"type": "string", "enum": ["replace", "append"], "default": "replace"}),
        ));
        tools.insert(
            "input_text",
            ToolDef {
                schema: schema("InputTextParams", input, &["text"], Some(handle_def())),
                shorthand: Some("text"),
                result_fields: &[
                    "text",
                    "requested_text",
                    "before_text",
                    "x",
                    "y",
                    "mode",
                    "input_strategy",
                    "dispatched",
                    "focus_dispatched",
                    "focus_verified",
                    "focus_observations",
                    "focused",
                    "window_foreground",
                    "foreground_window_id",
                    "clipboard_modified",
                    "resolved_via",
                    "handle_refreshed",
                    "element_handle",
                    "effect_verified",
                    "verified",
                    "actual_text",
                    "cleanup_performed",
                    "observations",
                    "elapsed_ms",
                    "stage",
                ],
            },
        );
        tools.insert("press_key", ToolDef {
            schema: schema("PressKeyParams", vec![
                ("key", json!({"anyOf": [{"type": "string"}, {"type": "integer"}], "description": "KEYCODE_* name or numeric value"})),
                ("modifiers", json!({"type": ["array", "null"], "items": {"type": "string", "enum": ["Ctrl", "Alt", "Shift", "Meta"]}, "default": null})),
            ], &["key"], None),
            shorthand: Some("key"),
            result_fields: &["key", "key_code", "modifiers", "event_key_codes", "dispatched", "effect_verified"],
        });
        let mut wait = search_props();
        wait.push((
            "state",
            json!({"$ref": "#/$defs/WaitState", "default": "found"}),
        ));
        wait.push(("timeout_ms", json!({"type": "integer", "minimum": 0, "default": 5000, "description": "Strict wall-clock budget"})));
        wait.push((
            "interval_ms",
            json!({"type": "integer", "minimum": 0, "default": 300}),
        ));
        tools.insert(
            "wait_for_element",
            ToolDef {
                schema: schema(
                    "WaitForElementParams",
                    wait,
                    &[],
                    Some(json!({"WaitState": {"type": "string", "enum": ["found", "gone"]}})),
                ),
                shorthand: Some("text"),
                result_fields: &["state", "satisfied", "elapsed_ms", "element"],
            },
        );
        tools.insert(
            "find_elements",
            ToolDef {
                schema: schema("FindElementsParams", search_props(), &[], None),
                shorthand: Some("text"),
                result_fields: &["elements", "count"],
            },
        );
        tools.insert(
            "screenshot",
            ToolDef {
                schema: schema(
                    "ScreenshotParams",
                    vec![
                        ("local_path", opt("string", "Output path")),
                        (
                            "display_id",
                            json!({"type": "integer", "minimum": 0, "default": 0}),
                        ),
                        (
                            "left",
                            json!({"type": ["integer", "null"], "default": null}),
                        ),
                        ("top", json!({"type": ["integer", "null"], "default": null})),
                        (
                            "right",
                            json!({"type": ["integer", "null"], "default": null}),
                        ),
                        (
                            "bottom",
                            json!({"type": ["integer", "null"], "default": null}),
                        ),
                    ],
                    &[],
                    None,
                ),
                shorthand: Some("local_path"),
                result_fields: &["local_path", "file_size", "bounds"],
            },
        );
        tools.insert("swipe", ToolDef {
            schema: schema("SwipeParams", vec![
                ("from_x", json!({"type": ["integer", "null"], "default": null})),
                ("from_y", json!({"type": ["integer", "null"], "default": null})),
                ("to_x", json!({"type": ["integer", "null"], "default": null})),
                ("to_y", json!({"type": ["integer", "null"], "default": null})),
                ("direction", json!({"anyOf": [{"type": "string", "enum": ["up", "down", "left", "right"]}, {"type": "null"}], "default": null})),
                ("speed", json!({"type": "integer", "minimum": 1, "default": 600})),
            ], &[], None),
            shorthand: Some("direction"),
            result_fields: &["from_x", "from_y", "to_x", "to_y", "direction"],
        });
        let strs = |d: &str| json!({"type": ["array", "null"], "items": {"type": "string"}, "default": null, "description": d});
        tools.insert("logs_query", ToolDef {
            schema: schema("LogsQueryParams", vec![
                ("logs", strs("Inline raw log lines")),
                ("input_file", opt("string", "Single local log file")),
                ("input_files", strs("Multiple local log files")),
                ("lines", json!({"type": "integer", "minimum": 1, "default": 100})),
                ("level", opt("string", "Minimum level filter")),
                ("tag", opt("string", "Structured tag filter")),
                ("tag_search", opt("string", "Raw tag text filter")),
                ("keyword", opt("string", "Raw keyword filter")),
                ("domain", opt("string", "Hilog domain filter")),
                ("pid", json!({"type": ["integer", "null"], "default": null})),
                ("package_name", opt("string", "Business package relevance filter")),
                ("start_time", opt("string", "HH:MM:SS or YYYY-MM-DD HH:MM:SS")),
                ("end_time", opt("string", "Same format as start_time")),
                ("seconds", json!({"type": ["integer", "null"], "minimum": 0, "default": null})),
                ("save_path", opt("string", "Optional output snapshot path")),
                ("time_expr", opt("string", "Natural language time expression")),
                ("include_crash", json!({"type": "boolean", "default": false})),
                ("mode", json!({"type": "string", "enum": ["errors", "markers"], "default": "errors"})),
                ("marker_keywords", strs("Used mainly in markers mode")),
                ("fallback_to_historical", json!({"type": "boolean", "default": false})),
                ("realtime_wait_ms", json!({"type": "integer", "minimum": 0, "default": 1000})),
                ("context_lines", json!({"type": "integer", "minimum": 0, "default": 0})),
            ], &[], None),
            shorthand: None,
            result_fields: &["query_mode", "source_attempted", "source_used", "matched", "match_count", "group_count", "items", "filters_applied", "saved_path", "crash_info"],
        });
        tools.insert(
            "run_app",
            ToolDef {
                schema: schema(
                    "RunAppParams",
                    vec![
                        (
                            "bundle_name",
                            json!({"type": "string", "description": "Target app bundle"}),
                        ),
                        ("ability_name", opt("string", "Explicit launch ability")),
                        ("module_name", opt("string", "Explicit module")),
                        ("auto_detect", json!({"type": "boolean", "default": true})),
                    ],
                    &["bundle_name"],
                    None,
                ),
                shorthand: Some("bundle_name"),
                result_fields: &[
                    "bundle_name",
                    "ability_name",
                    "module_name",
                    "auto_detected",
                    "command_success",
                    "window_found",
                    "window",
                ],
            },
        );
        tools.insert("query_package", ToolDef {
            schema: schema("QueryPackageParams", vec![
                ("bundle_name", opt("string", "Required for abilities, main_ability, permissions")),
                ("keyword", opt("string", "Used only for package listing")),
                ("info_type", json!({"type": "string", "enum": ["list", "abilities", "main_ability", "permissions"], "default": "list"})),
            ], &[], None),
            shorthand: None,
            result_fields: &["packages", "count", "abilities", "modules", "main_ability", "ability_count", "ability_name", "module_name", "candidates", "recommended", "requested_permissions", "permission_count"],
        });
        Self { tools }
    }
}

fn present(args: &Value, name: &str) -> bool {
    args.get(name).is_some_and(|v| !v.is_null())
}

/// The one-mode-only rule of click, long_press and input_text.
fn check_target(args: &Value, text_param: &str, issues: &mut Vec<StaticIssue>) {
    let coords = ["x", "y"].iter().filter(|p| present(args, p)).count();
    let search: Vec<&str> = [text_param, "element_type", "element_id"]
        .into_iter()
        .filter(|p| present(args, p))
        .collect();
    let handle = present(args, "element_handle");
    let modes = usize::from(coords > 0) + usize::from(handle) + usize::from(!search.is_empty());
    if modes > 1 {
        let param = if handle {
            "element_handle"
        } else if coords > 0 {
            "x"
        } else {
            search[0]
        };
        issues.push(
            StaticIssue::new(
                Some(param),
                "PARAM_CONFLICT",
                "give one target mode only: coordinates (x, y), element_handle, or search criteria",
            )
            .suggest(format!(
                "keep one of them; search uses {text_param}, element_type, element_id"
            )),
        );
    } else if modes == 0 {
        issues.push(
            StaticIssue::new(
                None,
                "MISSING_PARAMS",
                "no target: give coordinates (x, y), an element_handle, or search criteria",
            )
            .suggest(format!("e.g. {text_param}: Login")),
        );
    } else if coords == 1 {
        let missing = if present(args, "x") { "y" } else { "x" };
        let given = if missing == "x" { "y" } else { "x" };
        issues.push(StaticIssue::new(
            Some(given),
            "MISSING_PARAMS",
            format!("coordinate mode needs both x and y; `{missing}` is missing"),
        ));
    }
}

fn check_search(args: &Value, code: &str, issues: &mut Vec<StaticIssue>) {
    if !["text", "element_type", "element_id"]
        .iter()
        .any(|p| present(args, p))
    {
        issues.push(
            StaticIssue::new(
                None,
                code,
                "give at least one of text, element_type, element_id",
            )
            .suggest("e.g. text: Welcome"),
        );
    }
}

fn is_runtime(v: &Value) -> bool {
    v.as_str().is_some_and(|s| s.contains("{{"))
}

fn check_time(args: &Value, param: &str, issues: &mut Vec<StaticIssue>) {
    let Some(s) = args.get(param).and_then(Value::as_str) else {
        return;
    };
    if s.contains("{{") {
        return;
    }
    static TIME: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^(\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}:\d{2}$").expect("valid regex")
    });
    let time = &*TIME;
    if !time.is_match(s) {
        issues.push(
            StaticIssue::new(Some(param), "INVALID_PARAM", format!("`{s}` is not a time"))
                .suggest("use HH:MM:SS or YYYY-MM-DD HH:MM:SS"),
        );
    }
}

impl ToolCatalog for BuiltinCatalog {
    fn tool_names(&self) -> Vec<&str> {
        self.tools.keys().copied().collect()
    }

    fn input_schema(&self, tool: &str) -> Option<&Value> {
        self.tools.get(tool).map(|t| &t.schema)
    }

    fn check_static(&self, tool: &str, args: &Value) -> Vec<StaticIssue> {
        let mut issues = Vec::new();
        match tool {
            "click" | "long_press" => check_target(args, "text", &mut issues),
            "input_text" => check_target(args, "element_text", &mut issues),
            "find_elements" => check_search(args, "MISSING_SEARCH_CRITERIA", &mut issues),
            "wait_for_element" => check_search(args, "INVALID_WAIT_TARGET", &mut issues),
            "press_key" => {
                match args.get("key") {
                    Some(Value::String(s)) if !s.contains("{{") && keys::resolve(s).is_none() => {
                        let names = keys::names();
                        let upper = s.to_ascii_uppercase();
                        let hint = did_you_mean(&upper, names.iter().map(String::as_str))
                            .unwrap_or_else(|| "use a KEYCODE_* name (Back, Home, Enter, Backspace, PageUp, …), a letter, a digit or a numeric code; type text with input_text".into());
                        issues.push(
                            StaticIssue::new(
                                Some("key"),
                                "INVALID_KEY",
                                format!("unknown key `{s}`"),
                            )
                            .suggest(hint),
                        );
                    }
                    Some(Value::Number(n)) if !n.as_i64().is_some_and(keys::is_known_code) => {
                        issues.push(StaticIssue::new(
                            Some("key"),
                            "INVALID_KEY",
                            format!("unknown key code {n}"),
                        ));
                    }
                    _ => {}
                }
                if let Some(Value::Array(mods)) = args.get("modifiers") {
                    if mods.len() > 2 {
                        issues.push(StaticIssue::new(
                            Some("modifiers"),
                            "INVALID_MODIFIER_COUNT",
                            "at most two modifiers",
                        ));
                    }
                    let mut seen = Vec::new();
                    for m in mods {
                        if seen.contains(&m) {
                            issues.push(StaticIssue::new(
                                Some("modifiers"),
                                "DUPLICATE_MODIFIER",
                                format!("modifier {m} given twice"),
                            ));
                        }
                        seen.push(m);
                    }
                }
            }
            "swipe" => {
                let coords = ["from_x", "from_y", "to_x", "to_y"];
                let given: Vec<&str> = coords
                    .iter()
                    .copied()
                    .filter(|p| present(args, p))
                    .collect();
                if present(args, "direction") && !given.is_empty() {
                    issues.push(
                        StaticIssue::new(
                            Some("direction"),
                            "PARAM_CONFLICT",
                            "direction cannot be combined with coordinates",
                        )
                        .suggest("use either direction or from_x, from_y, to_x, to_y"),
                    );
                } else if !given.is_empty() && given.len() < 4 {
                    let missing: Vec<&str> = coords
                        .iter()
                        .copied()
                        .filter(|p| !given.contains(p))
                        .collect();
                    issues.push(StaticIssue::new(
                        Some(given[0]),
                        "MISSING_PARAMS",
                        format!(
                            "coordinate mode needs all four coordinates; missing {}",
                            missing.join(", ")
                        ),
                    ));
                } else if given.is_empty() && !present(args, "direction") {
                    issues.push(
                        StaticIssue::new(
                            None,
                            "MISSING_PARAMS",
                            "give a direction or from_x, from_y, to_x, to_y",
                        )
                        .suggest("e.g. swipe: up"),
                    );
                }
            }
            "screenshot" => {
                let region = ["left", "top", "right", "bottom"];
                let given: Vec<&str> = region
                    .iter()
                    .copied()
                    .filter(|p| present(args, p))
                    .collect();
                if !given.is_empty() && given.len() < 4 {
                    let missing: Vec<&str> = region
                        .iter()
                        .copied()
                        .filter(|p| !given.contains(p))
                        .collect();
                    issues.push(StaticIssue::new(Some(given[0]), "PARAM_CONFLICT", format!("a region screenshot needs left, top, right and bottom together; missing {}", missing.join(", "))));
                }
            }
            "query_package" => {
                let info = args
                    .get("info_type")
                    .and_then(Value::as_str)
                    .unwrap_or("list");
                let bundle = present(args, "bundle_name");
                if info == "list" && bundle && !is_runtime(&args["info_type"]) {
                    issues.push(StaticIssue::new(Some("bundle_name"), "PARAM_CONFLICT", "info_type `list` cannot be combined with bundle_name").suggest("drop bundle_name, or set info_type to abilities, main_ability or permissions"));
                }
                if matches!(info, "abilities" | "main_ability" | "permissions") && !bundle {
                    issues.push(StaticIssue::new(
                        Some("info_type"),
                        "MISSING_BUNDLE_NAME",
                        format!("info_type `{info}` needs bundle_name"),
                    ));
                }
            }
            "logs_query" => {
                check_time(args, "start_time", &mut issues);
                check_time(args, "end_time", &mut issues);
            }
            _ => {}
        }
        issues
    }

    fn defaults(&self, tool: &str) -> Value {
        let mut out = serde_json::Map::new();
        if let Some(props) = self
            .input_schema(tool)
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
        {
            for (name, p) in props {
                if let Some(d) = p.get("default")
                    && !d.is_null()
                {
                    out.insert(name.clone(), d.clone());
                }
            }
        }
        Value::Object(out)
    }

    fn scalar_shorthand(&self, tool: &str) -> Option<&str> {
        self.tools.get(tool).and_then(|t| t.shorthand)
    }

    fn result_fields(&self, tool: &str) -> Option<Vec<&str>> {
        self.tools.get(tool).map(|t| t.result_fields.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_mode_only_and_missing_target() {
        let c = BuiltinCatalog::new();
        let i = c.check_static("click", &json!({"x": 1, "y": 2, "text": "a"}));
        assert_eq!(i[0].code, "PARAM_CONFLICT");
        let i = c.check_static("click", &json!({"count": 1}));
        assert_eq!(i[0].code, "MISSING_PARAMS");
        let i = c.check_static("click", &json!({"x": 1}));
        assert_eq!(i[0].param.as_deref(), Some("x"));
        assert!(c.check_static("click", &json!({"text": "a"})).is_empty());
    }

    #[test]
    fn info_type_rules_and_keys() {
        let c = BuiltinCatalog::new();
        assert_eq!(
            c.check_static("query_package", &json!({"bundle_name": "a"}))[0].code,
            "PARAM_CONFLICT"
        );
        assert_eq!(
            c.check_static("query_package", &json!({"info_type": "abilities"}))[0].code,
            "MISSING_BUNDLE_NAME"
        );
        let i = c.check_static("press_key", &json!({"key": "Bakc"}));
        assert_eq!(i[0].suggestion.as_deref(), Some("did you mean `BACK`?"));
        assert!(
            c.check_static("press_key", &json!({"key": "{{ KEY }}"}))
                .is_empty()
        );
    }

    #[test]
    fn defaults_come_from_the_schema() {
        let c = BuiltinCatalog::new();
        assert_eq!(
            c.defaults("wait_for_element"),
            json!({"state": "found", "timeout_ms": 5000, "interval_ms": 300})
        );
    }
}
