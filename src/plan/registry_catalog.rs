//! The planner's view of the tool registry: the catalog flows are validated and compiled
//! against, over the real tool registry ([`Engine`]): names, input schemas, defaults and result fields come from the registered
//! tools themselves, so `tapflow validate`, `plan` and `run` agree with what `run` executes.
//!
//! Two things the registry does not publish live here: the scalar shorthand of each tool
//! (`click: Login` → `text`), and the static (device-free) rules, which reuse the rule set of
//! `plan::builtin_catalog` (one-mode-only targets, key names, info_type rules, …). A tool the
//! registry does not have is unknown to flows: validation reports it before any run.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::plan::{BuiltinCatalog, StaticIssue, ToolCatalog};
use crate::tools::Engine;

/// Parameters every tool takes that a flow never sets or that are off by default.
const COMMON_PARAMS: &[&str] = &["device_id", "hdc_server", "include_cost", "verify"];

/// The parameter a scalar shorthand fills, per tool (used only when the tool has it).
const SHORTHANDS: &[(&str, &str)] = &[
    ("click", "text"),
    ("long_press", "text"),
    ("input_text", "text"),
    ("press_key", "key"),
    ("wait_for_element", "text"),
    ("find_elements", "text"),
    ("scroll_until_visible", "text"),
    ("screenshot", "local_path"),
    ("swipe", "direction"),
    ("run_app", "bundle_name"),
    ("stop_app", "bundle_name"),
    ("clear_app_data", "bundle_name"),
    ("uninstall_app", "bundle_name"),
    ("install_app", "hap_path"),
    ("get_ui_tree", "bundle_name"),
    ("list_windows", "bundle_name"),
    ("wait_for_stable", "bundle_name"),
];

/// See the module documentation.
pub struct RegistryCatalog {
    engine: Arc<Engine>,
    /// Only its static rules are used.
    rules: BuiltinCatalog,
    result_fields: std::collections::BTreeMap<&'static str, Vec<String>>,
}

impl RegistryCatalog {
    pub fn new(engine: Arc<Engine>) -> Self {
        let result_fields = engine
            .tools()
            .map(|t| {
                let fields = t
                    .result_schema()
                    .get("properties")
                    .and_then(Value::as_object)
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default();
                (t.name, fields)
            })
            .collect();
        RegistryCatalog {
            engine,
            rules: BuiltinCatalog::new(),
            result_fields,
        }
    }

    fn registered(&self, tool: &str) -> bool {
        self.engine.get(tool).is_some()
    }
}

impl ToolCatalog for RegistryCatalog {
    fn tool_names(&self) -> Vec<&str> {
        self.engine.tools().map(|t| t.name).collect()
    }

    fn input_schema(&self, tool: &str) -> Option<&Value> {
        self.engine.get(tool).map(|t| t.input_schema())
    }

    fn check_static(&self, tool: &str, args: &Value) -> Vec<StaticIssue> {
        if !self.registered(tool) {
            return Vec::new();
        }
        let mut issues = self.rules.check_static(tool, args);
        if tool == "press_key" {
            // Key names are judged by the tool's own table (all official OpenHarmony keys),
            // not by the interim catalog's subset, so validate accepts exactly what runs.
            issues.retain(|i| i.code != "INVALID_KEY");
            issues.extend(key_issue(args.get("key")));
        }
        issues
    }

    fn defaults(&self, tool: &str) -> Value {
        let mut out = Map::new();
        if let Some(props) = self
            .input_schema(tool)
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
        {
            for (name, p) in props {
                if COMMON_PARAMS.contains(&name.as_str()) {
                    continue;
                }
                if let Some(d) = p.get("default")
                    && !d.is_null()
                {
                    out.insert(name.clone(), d.clone());
                }
            }
        }
        // A flow step's own defaults where they differ from a bare call's.
        if let Some(def) = self.engine.get(tool) {
            for (k, v) in def.flow_defaults() {
                out.insert(k.clone(), v.clone());
            }
        }
        Value::Object(out)
    }

    fn scalar_shorthand(&self, tool: &str) -> Option<&str> {
        let (_, param) = SHORTHANDS.iter().find(|(t, _)| *t == tool)?;
        self.input_schema(tool)?
            .get("properties")?
            .get(*param)
            .map(|_| *param)
    }

    fn result_fields(&self, tool: &str) -> Option<Vec<&str>> {
        self.result_fields
            .get(tool)
            .filter(|f| !f.is_empty())
            .map(|f| f.iter().map(String::as_str).collect())
    }
}

/// `press_key`'s `key` checked against the tool's own key table; templated values wait for the run.
fn key_issue(key: Option<&Value>) -> Option<StaticIssue> {
    use crate::tools::press_key::keys;
    let verdict = match key? {
        Value::String(s) if s.contains("{{") => return None,
        Value::String(s) => keys::from_text(s),
        Value::Number(n) => match n.as_i64() {
            Some(code) => keys::from_code(code),
            None => Err(format!("{n} is not a key code")),
        },
        _ => return None,
    };
    let message = verdict.err()?;
    let mut issue = StaticIssue::new(Some("key"), "INVALID_KEY", message);
    if let Some(Value::String(s)) = key {
        // Compare spellings the way the tool reads them (case, separators and the KEYCODE_
        // prefix do not matter), and suggest the official name.
        let wanted = keys::normalize(s);
        let spellings: Vec<(String, &str)> = keys::all()
            .iter()
            .map(|k| (keys::normalize(k.name), k.name))
            .collect();
        let hint =
            crate::flow::suggest::closest(&wanted, spellings.iter().map(|(n, _)| n.as_str()))
                .and_then(|n| spellings.iter().find(|(m, _)| m == n))
                .map(|(_, official)| format!("did you mean `{official}`?"));
        issue = issue.suggest(hint.unwrap_or_else(|| {
            "use a KEYCODE_* name (Back, Home, Enter, Backspace, PageUp, …), a letter, a digit \
             or a numeric code; type text with input_text"
                .into()
        }));
    }
    Some(issue)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cat() -> RegistryCatalog {
        RegistryCatalog::new(Arc::new(Engine::new()))
    }

    #[test]
    fn validate_accepts_every_key_the_tool_sends_and_nothing_else() {
        let c = cat();
        for k in crate::tools::press_key::keys::all() {
            let args = json!({ "key": k.name });
            let issues = c.check_static("press_key", &args);
            assert_eq!(issues.is_empty(), k.code >= 0, "{}: {issues:?}", k.name);
        }
        // The reference's own examples.
        for key in [
            json!("KEYCODE_F24"),
            json!("page-up"),
            json!("Home"),
            json!(2068),
        ] {
            assert!(
                c.check_static("press_key", &json!({ "key": key }))
                    .is_empty()
            );
        }
        let issues = c.check_static("press_key", &json!({"key": "Bakc"}));
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].code, "INVALID_KEY");
        assert!(format!("{issues:?}").contains("KEYCODE_BACK"), "{issues:?}");
        assert_eq!(
            c.check_static("press_key", &json!({"key": "2072 2038"}))
                .len(),
            1
        );
        assert_eq!(c.check_static("press_key", &json!({"key": 99999})).len(), 1);
        assert!(
            c.check_static("press_key", &json!({"key": "{{ KEY }}"}))
                .is_empty()
        );
    }

    #[test]
    fn every_registered_tool_is_named_with_its_schema() {
        let c = cat();
        let engine = Engine::new();
        for t in engine.tools() {
            assert!(c.tool_names().contains(&t.name));
            assert_eq!(c.input_schema(t.name), Some(t.input_schema()));
        }
    }

    #[test]
    fn unregistered_tools_are_unknown() {
        let c = cat();
        assert!(c.input_schema("no_such_tool").is_none());
        assert!(!c.tool_names().contains(&"no_such_tool"));
        assert!(c.tool_names().contains(&"input_text"));
        assert!(c.tool_names().contains(&"logs_query"));
    }

    #[test]
    fn shorthands_exist_in_the_schemas() {
        let c = cat();
        assert_eq!(c.scalar_shorthand("click"), Some("text"));
        assert_eq!(c.scalar_shorthand("press_key"), Some("key"));
        assert_eq!(c.scalar_shorthand("query_package"), None);
        for (tool, param) in SHORTHANDS {
            if let Some(s) = c.input_schema(tool) {
                assert!(
                    s["properties"].get(*param).is_some(),
                    "{tool} has no {param}"
                );
            }
        }
    }

    #[test]
    fn defaults_skip_common_parameters() {
        let d = cat().defaults("wait_for_element");
        assert!(d.get("include_cost").is_none());
        assert!(d.get("timeout_ms").is_some(), "{d}");
    }

    #[test]
    fn result_fields_come_from_the_result_schema() {
        let c = cat();
        let f = c.result_fields("wait_for_element").unwrap();
        assert!(f.contains(&"satisfied"));
        assert!(
            c.check_static("click", &json!({"x": 1, "y": 2, "text": "a"}))[0].code
                == "PARAM_CONFLICT"
        );
    }
}
