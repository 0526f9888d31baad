//! Run-time values: what a plan leaves for the run (secret references and kept step results
//! in `{{ … }}`, and `\{{` escapes), resolved per step into data; and the comparisons of
//! conditions and `expect:`. Masking of what the run writes is `run::mask`.

use std::collections::BTreeMap;

use serde_json::Value;

use tapflow_core::flow::ast::CompareOp;
use tapflow_core::flow::template;
use tapflow_core::plan::FlowPlan;
use tapflow_core::plan::model::MASK;

/// Failure code: a `{{ … }}` had no value at run time (e.g. its kept step did not run).
pub use tapflow_core::codes::UNRESOLVED_VARIABLE;

/// The variables of one flow execution: plan variables, secrets and kept results.
#[derive(Clone, Debug, Default)]
pub struct Vars {
    plain: BTreeMap<String, String>,
    /// Every secret value of the flow (looked up by name through [`FlowPlan::secret`]; kept
    /// here for masking).
    secrets: Vec<String>,
    kept: BTreeMap<String, Value>,
}

impl Vars {
    pub fn for_flow(fp: &FlowPlan) -> Self {
        let plain = fp
            .variables
            .iter()
            .filter(|v| !v.secret)
            .map(|v| (v.name.clone(), v.value.clone()))
            .collect();
        Vars {
            plain,
            secrets: fp.secret_values().map(str::to_string).collect(),
            kept: BTreeMap::new(),
        }
    }

    pub fn keep(&mut self, name: &str, result: Value) {
        self.kept.insert(name.to_string(), result);
    }

    /// A kept result by path (`steps.NAME.result.a.0.b`).
    pub fn kept_path(&self, path: &str) -> Option<Value> {
        let mut segs = path.split('.');
        if segs.next() != Some("steps") {
            return None;
        }
        let name = segs.next()?;
        if segs.next() != Some("result") {
            return None;
        }
        let mut cur = self.kept.get(name)?;
        for seg in segs {
            cur = field(cur, seg)?;
        }
        Some(cur.clone())
    }

    /// The value of `path` (variable, secret or kept result) and whether it is secret.
    fn lookup(&self, fp: &FlowPlan, path: &str) -> Option<(Value, bool)> {
        if path.starts_with("steps.") {
            return self.kept_path(path).map(|v| (v, false));
        }
        if let Some(s) = fp.secret(path) {
            return Some((Value::String(s.to_string()), true));
        }
        self.plain
            .get(path)
            .map(|v| (Value::String(v.clone()), false))
    }

    /// Resolves every reference in `value`. `reveal`: secrets get their value (for the
    /// device); otherwise the mask (for the record).
    pub fn resolve(&self, fp: &FlowPlan, value: &Value, reveal: bool) -> Result<Value, String> {
        Ok(match value {
            Value::String(s) if s.contains("{{") => self.resolve_str(fp, s, reveal)?,
            Value::Array(a) => Value::Array(
                a.iter()
                    .map(|v| self.resolve(fp, v, reveal))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, v)| Ok((k.clone(), self.resolve(fp, v, reveal)?)))
                    .collect::<Result<_, String>>()?,
            ),
            other => other.clone(),
        })
    }

    /// Plan text → data: references resolved, escapes (`\{{`) decoded; the values inserted
    /// (a kept result, a secret) are never read as templates themselves.
    fn resolve_str(&self, fp: &FlowPlan, s: &str, reveal: bool) -> Result<Value, String> {
        let Ok(refs) = template::scan(s) else {
            return Ok(Value::String(s.to_string()));
        };
        for r in &refs {
            if self.lookup(fp, &r.path).is_none() {
                return Err(format!(
                    "`{{{{ {} }}}}` has no value at run time{}",
                    r.path,
                    if r.path.starts_with("steps.") {
                        " (the step that keeps it did not run or has no such field)"
                    } else {
                        ""
                    }
                ));
            }
        }
        // A string that is exactly one kept result keeps the result's type (numbers, lists).
        if let [only] = refs.as_slice()
            && only.range == (0, s.len())
            && let Some((v, false)) = self.lookup(fp, &only.path)
        {
            return Ok(v);
        }
        template::render(s, |p| {
            self.lookup(fp, p).map(|(v, secret)| {
                if secret && !reveal {
                    MASK.to_string()
                } else {
                    as_text(&v)
                }
            })
        })
        .map(Value::String)
        .map_err(|p| format!("`{{{{ {p} }}}}` has no value at run time"))
    }

    /// The value a condition's `var` names: its plan-time value when known, else a secret or a
    /// kept result.
    pub fn condition_value(
        &self,
        fp: &FlowPlan,
        var: &str,
        resolved: Option<&str>,
    ) -> Option<Value> {
        if let Some(r) = resolved {
            return Some(Value::String(r.to_string()));
        }
        self.lookup(fp, var).map(|(v, _)| v)
    }

    /// Every secret value of the flow (for masking).
    pub fn secret_values(&self) -> Vec<String> {
        self.secrets.clone()
    }
}

fn field<'a>(v: &'a Value, seg: &str) -> Option<&'a Value> {
    match v {
        Value::Object(o) => o.get(seg),
        Value::Array(a) => seg.parse::<usize>().ok().and_then(|i| a.get(i)),
        _ => None,
    }
}

/// A dotted path into a result (`items.0.tag`).
pub fn at_path<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, field)
}

/// Text form of a value inside a string: strings as they are, everything else as JSON.
pub fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        Value::Bool(_) | Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// Equality as flows mean it: `3` equals `"3"`, `true` equals `"true"`.
pub fn loose_eq(a: &Value, b: &Value) -> bool {
    if a == b {
        return true;
    }
    if let (Some(x), Some(y)) = (number(a), number(b))
        && (a.is_number() || b.is_number())
    {
        return x == y;
    }
    match (a, b) {
        (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => false,
        _ => as_text(a) == as_text(b),
    }
}

/// Evaluates `actual OP expected`.
pub fn compare(actual: &Value, op: CompareOp, expected: &Value) -> bool {
    let ord = || number(actual)?.partial_cmp(&number(expected)?);
    use std::cmp::Ordering::*;
    match op {
        CompareOp::Equals => loose_eq(actual, expected),
        CompareOp::NotEquals => !loose_eq(actual, expected),
        CompareOp::In => expected
            .as_array()
            .is_some_and(|a| a.iter().any(|e| loose_eq(actual, e))),
        CompareOp::Gt => ord() == Some(Greater),
        CompareOp::Gte => matches!(ord(), Some(Greater | Equal)),
        CompareOp::Lt => ord() == Some(Less),
        CompareOp::Lte => matches!(ord(), Some(Less | Equal)),
        CompareOp::Contains => match actual {
            Value::String(s) => s.contains(&as_text(expected)),
            Value::Array(a) => a.iter().any(|e| loose_eq(e, expected)),
            _ => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn comparisons() {
        assert!(compare(&json!(3), CompareOp::Equals, &json!("3")));
        assert!(compare(&json!("a"), CompareOp::In, &json!(["b", "a"])));
        assert!(compare(&json!(5), CompareOp::Gte, &json!(5)));
        assert!(!compare(&json!("x"), CompareOp::Gt, &json!(1)));
        assert!(compare(
            &json!("hello world"),
            CompareOp::Contains,
            &json!("lo w")
        ));
        assert!(compare(&json!([1, 2]), CompareOp::Contains, &json!(2)));
        assert!(compare(&json!(true), CompareOp::NotEquals, &json!(false)));
        assert!(!compare(
            &json!({"a": 1}),
            CompareOp::Equals,
            &json!("{\"a\":1}")
        ));
    }

    #[test]
    fn paths_index_lists() {
        let v = json!({"items": [{"tag": "A"}]});
        assert_eq!(at_path(&v, "items.0.tag"), Some(&json!("A")));
        assert_eq!(at_path(&v, "items.1.tag"), None);
    }
}

#[cfg(test)]
mod resolve_tests {
    use super::*;
    use serde_json::json;

    use tapflow_core::flow::SourceFile;
    use tapflow_core::plan::{MapLoader, PlanOptions, compile};
    use tapflow_tools::RegistryCatalog;

    fn flow() -> FlowPlan {
        let text = "name: V
env:
  USER: demo
  PIN: {default: \"12-34\", secret: true}
steps:
  - find_elements: {text: Item}
    keep: found
  - click: {text: \"{{ USER }} {{ PIN }}\"}
";
        let c = compile(
            &[SourceFile::new("v.yaml", text)],
            &[],
            &RegistryCatalog::builtin(),
            &MapLoader::new(),
            &PlanOptions::default(),
        );
        assert!(!c.has_errors(), "{:?}", c.diagnostics);
        c.plan.flows.into_iter().next().unwrap()
    }

    #[test]
    fn secrets_are_revealed_only_for_the_device() {
        let fp = flow();
        let v = Vars::for_flow(&fp);
        let tapflow_core::plan::Action::Tool { args, .. } = &fp.steps[1].action else {
            panic!("a tool step")
        };
        assert_eq!(v.resolve(&fp, args, true).unwrap()["text"], "demo 12-34");
        assert_eq!(v.resolve(&fp, args, false).unwrap()["text"], "demo ******");
        assert_eq!(v.secret_values(), vec!["12-34".to_string()]);
    }

    /// Values from outside the flow are data: their braces reach the device as written, and
    /// `\{{` in the flow is a literal `{{`.
    #[test]
    fn outside_values_are_data_and_escapes_are_literal() {
        let text = "name: D
env:
  PIN: {default: \"12-34\", secret: true}
  NOTE: x
steps:
  - click: {text: '{{ NOTE }}/{{ CFG }}/\\{{ PIN }}/{{ PIN }}'}
";
        let opts = PlanOptions {
            env: [("NOTE".to_string(), "{{ PIN }}\\".to_string())].into(),
            project_env: [("CFG".to_string(), "{{PIN}}".to_string())].into(),
            ..PlanOptions::default()
        };
        let c = compile(
            &[SourceFile::new("d.yaml", text)],
            &[],
            &RegistryCatalog::builtin(),
            &MapLoader::new(),
            &opts,
        );
        assert!(!c.has_errors(), "{:?}", c.diagnostics);
        let fp = &c.plan.flows[0];
        let tapflow_core::plan::Action::Tool { args, .. } = &fp.steps[0].action else {
            panic!("a tool step")
        };
        let v = Vars::for_flow(fp);
        assert_eq!(
            v.resolve(fp, args, true).unwrap()["text"],
            "{{ PIN }}\\/{{PIN}}/{{ PIN }}/12-34"
        );
        let note = fp.variables.iter().find(|v| v.name == "NOTE").unwrap();
        assert_eq!(note.value, "{{ PIN }}\\");
    }

    #[test]
    fn kept_results_keep_their_type_and_missing_ones_are_errors() {
        let fp = flow();
        let mut v = Vars::for_flow(&fp);
        let args = json!({"x": "{{ steps.found.result.elements.0.center.x }}", "t": "n={{ steps.found.result.count }}"});
        let err = v.resolve(&fp, &args, true).unwrap_err();
        assert!(err.contains("steps.found.result"), "{err}");
        v.keep(
            "found",
            json!({"count": 2, "elements": [{"center": {"x": 630}}]}),
        );
        let r = v.resolve(&fp, &args, true).unwrap();
        assert_eq!(r["x"], json!(630));
        assert_eq!(r["t"], json!("n=2"));
        assert_eq!(
            v.condition_value(&fp, "steps.found.result.count", None),
            Some(json!(2))
        );
        assert_eq!(v.condition_value(&fp, "PIN", None), Some(json!("12-34")));
    }
}
