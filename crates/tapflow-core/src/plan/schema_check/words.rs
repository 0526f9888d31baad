//! How the flow compiler words what the schema validator finds: one diagnostic per finding,
//! at the value's (or the key's) span, naming it as a flow writes it ("`text`", "item 2 of
//! `keys`"), with a near miss or an example where one helps.

use serde_json::Value;

use super::Arg;
use crate::flow::Diagnostic;
use crate::flow::source::{SourceFile, Span};
use crate::flow::yaml::{Node, Value as Y};
use crate::schema::{Finding, Problem, Rule, Seg, Type, Validator};
use crate::suggest::did_you_mean;

/// Words findings as diagnostics.
pub(super) struct Words<'w, 'a> {
    pub validator: &'w Validator<'a>,
    pub src: &'a SourceFile,
    pub subst: &'a dyn Fn(&str) -> String,
    /// Names the outermost object ("`click`").
    pub owner: &'w str,
    /// Underlined for what the outermost object lacks.
    pub owner_span: Span,
}

impl<'a> Words<'_, 'a> {
    /// How messages name the value at `path`: "`text`", "item 2 of `list`", or the owner.
    fn what(&self, path: &[Seg]) -> String {
        match path.split_last() {
            None => self.owner.to_string(),
            Some((Seg::Prop(name), _)) => format!("`{name}`"),
            Some((Seg::Item(i), parent)) => format!("item {} of {}", i + 1, self.what(parent)),
        }
    }

    fn push(
        &self,
        diags: &mut Vec<Diagnostic>,
        span: Span,
        code: &str,
        message: String,
        label: &str,
        help: Option<String>,
    ) {
        diags.push(Diagnostic::error(self.src, span, code, message, label).with_help_opt(help));
    }

    pub fn say(&self, f: &Finding<'a, Arg<'a>>, diags: &mut Vec<Diagnostic>) {
        let what = self.what(&f.path);
        let span = f.at.map_or(self.owner_span, |a| a.node.span);
        match &f.problem {
            Problem::WrongType { schema } => {
                let node = f.at.expect("a wrong type is a value's").node;
                self.wrong_type(node, schema, &what, diags);
            }
            Problem::NotAllowed { rule, value } => {
                let (code, message, label, help) = match rule {
                    Rule::Enum(_) | Rule::Const(_) => {
                        let allowed: Vec<&Value> = match rule {
                            Rule::Enum(e) => e.iter().collect(),
                            Rule::Const(c) => vec![*c],
                            _ => Vec::new(),
                        };
                        let (message, help) = not_one_of(&what, &text_of(value), &allowed);
                        (
                            crate::codes::diag::INVALID_VALUE,
                            message,
                            "not an allowed value",
                            help,
                        )
                    }
                    Rule::Minimum(min) => (
                        crate::codes::diag::OUT_OF_RANGE,
                        format!("{what} must be at least {min}, found {}", number(value)),
                        "too small",
                        None,
                    ),
                    Rule::Maximum(max) => (
                        crate::codes::diag::OUT_OF_RANGE,
                        format!("{what} must be at most {max}, found {}", number(value)),
                        "too large",
                        None,
                    ),
                    // Not checked for flows (RULES): the engine's check words it.
                    Rule::Format { format, min, max } => (
                        crate::codes::diag::OUT_OF_RANGE,
                        format!("{what} must fit {format} ({min}..={max}), found {value}"),
                        "out of range",
                        None,
                    ),
                };
                self.push(diags, span, code, message, label, help);
            }
            Problem::Unknown { key, known } => {
                let help = did_you_mean(&key.name, known.iter().copied()).or_else(|| {
                    let mut names = known.clone();
                    names.retain(|n| !matches!(*n, "device_id" | "hdc_server"));
                    Some(format!("{what} takes: {}", names.join(", ")))
                });
                self.push(
                    diags,
                    key.span,
                    crate::codes::diag::UNKNOWN_PARAM,
                    format!("{what} has no parameter `{}`", key.name),
                    "unknown parameter",
                    help,
                );
            }
            Problem::Missing { name, schema } => self.push(
                diags,
                span,
                crate::codes::diag::MISSING_PARAM,
                format!("{what} is missing its required parameter `{name}`"),
                &format!("`{name}` is required"),
                Some(format!("add `{name}: {}`", example_for(*schema))),
            ),
            Problem::NoBranch { branches, findings } => {
                let node = f.at.expect("a branch judges a value").node;
                self.no_branch(node, branches, findings, &what, diags);
            }
        }
    }

    fn wrong_type(&self, node: &Node, schema: &Value, what: &str, diags: &mut Vec<Diagnostic>) {
        let expected = describe(schema);
        let label = format!("expected {expected}");
        let (message, help) = match &node.value {
            Y::Null => {
                let raw = self.src.slice(node.span).trim().to_string();
                let help = if raw.is_empty() || raw == "~" {
                    format!("give {what} a value, or remove it")
                } else {
                    format!("`{raw}` is YAML's null; quote it (\"{raw}\") for the text")
                };
                (format!("{what} has no value"), Some(help))
            }
            // Its variables are all known, and spell no value of the type.
            Y::Str(s) if s.contains("{{") => (
                format!(
                    "{what} must be {expected}, but its variables make it `{}`",
                    (self.subst)(s)
                ),
                None,
            ),
            // A number the schema allows, but not a finite one.
            Y::Float(_) if Type::Number.allowed_by(&crate::schema::types_of(schema)) => (
                format!(
                    "{what} must be a finite number, found `{}`",
                    self.src.slice(node.value_span)
                ),
                None,
            ),
            _ => (
                format!("{what} must be {expected}, found {}", node.type_name()),
                None,
            ),
        };
        self.push(
            diags,
            node.span,
            crate::codes::diag::WRONG_TYPE,
            message,
            &label,
            help,
        );
    }

    fn no_branch(
        &self,
        node: &Node,
        branches: &'a [Value],
        findings: &[Vec<Finding<'a, Arg<'a>>>],
        what: &str,
        diags: &mut Vec<Diagnostic>,
    ) {
        // An enumeration written as `oneOf` of `const`s (schemars does this for documented
        // enum variants): one message listing every allowed value. `null` means "not given",
        // which a flow says by leaving the parameter out: never offered as a value.
        let choices = self
            .validator
            .enumerated(branches)
            .map(|all| all.into_iter().filter(|c| !c.is_null()).collect::<Vec<_>>())
            .filter(|c| !c.is_empty());
        if let Some(choices) = choices
            && node.is_scalar()
        {
            let shown = node
                .scalar_text(self.src)
                .unwrap_or_else(|| "null".to_string());
            let (message, help) = not_one_of(what, &shown, &choices);
            self.push(
                diags,
                node.span,
                crate::codes::diag::INVALID_VALUE,
                message,
                "not an allowed value",
                help,
            );
            return;
        }
        // When the value has the right shape for the first branch, that branch's complaint is
        // the most precise; otherwise say which shapes would do.
        let mut first = Vec::new();
        for f in findings.first().into_iter().flatten() {
            self.say(f, &mut first);
        }
        if first
            .iter()
            .all(|d| d.code != crate::codes::diag::WRONG_TYPE)
        {
            diags.extend(first);
            return;
        }
        let expected: Vec<String> = branches
            .iter()
            .map(|b| describe(self.validator.resolve(b)))
            .filter(|s| s != "null")
            .collect();
        let expected = expected.join(" or ");
        self.push(
            diags,
            node.span,
            crate::codes::diag::WRONG_TYPE,
            format!("{what} must be {expected}, found {}", node.type_name()),
            &format!("expected {expected}"),
            None,
        );
    }
}

/// "`x` cannot be `shown`", with a near miss among the allowed values or the list of them.
fn not_one_of(what: &str, shown: &str, allowed: &[&Value]) -> (String, Option<String>) {
    let names: Vec<String> = allowed
        .iter()
        .filter(|a| !a.is_null())
        .map(|a| text_of(a))
        .collect();
    let help = did_you_mean(shown, names.iter().map(String::as_str))
        .or_else(|| Some(format!("use one of: {}", names.join(", "))));
    (format!("{what} cannot be `{shown}`"), help)
}

/// A value as messages show it: a string bare, anything else as JSON.
fn text_of(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// A number as range messages show it.
fn number(v: &Value) -> String {
    v.as_f64().map_or_else(|| v.to_string(), |n| n.to_string())
}

/// "an integer", "a string or null", "one of found, gone", …
fn describe(schema: &Value) -> String {
    if let Some(e) = schema.get("enum").and_then(Value::as_array) {
        let names: Vec<String> = e.iter().filter(|a| !a.is_null()).map(text_of).collect();
        return format!("one of {}", names.join(", "));
    }
    let types: Vec<Type> = crate::schema::types_of(schema)
        .into_iter()
        .filter(|t| *t != Type::Null)
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
        .map(|t| match t {
            Type::Integer => "an integer",
            Type::Number => "a number",
            Type::String => "a string",
            Type::Boolean => "`true` or `false`",
            Type::Array => "a list",
            Type::Object => "a mapping",
            Type::Null => "null",
        })
        .collect::<Vec<_>>()
        .join(" or ")
}

/// What to write for a missing parameter of this schema.
fn example_for(schema: Option<&Value>) -> String {
    match schema
        .map(crate::schema::types_of)
        .unwrap_or_default()
        .first()
    {
        Some(Type::Integer | Type::Number) => "0".into(),
        Some(Type::Boolean) => "true".into(),
        Some(Type::Array) => "[]".into(),
        Some(Type::Object) => "{}".into(),
        _ => "…".into(),
    }
}
