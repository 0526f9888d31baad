//! Variables during compilation: binding a flow's variables by precedence, substituting known
//! values (secrets kept as references), and checking every `{{ … }}` reference.

use super::Compiler;
use crate::flow::Diagnostic;
use crate::flow::source::{SourceFile, Span};
use crate::flow::suggest::did_you_mean;
use crate::flow::template;
use crate::flow::yaml::{Node, Value as Y};
use crate::plan::scope::Scope;

impl Compiler<'_> {
    /// Full substitution (secrets included) for binding values (template text, as every
    /// binding holds); also says whether a secret went into the result.
    pub(super) fn resolve_full(&self, scope: &Scope, text: &str) -> (String, bool) {
        let secret = std::cell::Cell::new(false);
        let out = template::substitute(text, |p| {
            scope.vars.get(p).map(|b| {
                secret.set(secret.get() | b.secret);
                b.value.clone()
            })
        });
        (out, secret.get())
    }

    /// Substitution for the plan: known values inserted, secrets kept as references (their
    /// values, as data, go to the flow's secret table), run-time references untouched.
    pub(super) fn subst(&self, scope: &Scope, text: &str) -> String {
        template::substitute(text, |p| {
            let b = scope.vars.get(p)?;
            if !b.secret {
                return Some(b.value.clone());
            }
            // The data the value stands for (escapes resolved), as the runner types it.
            let value = template::display(&b.value).into_owned();
            // One key per (name, value): `P`, then `P__2`, `P__3`, … for other values of `P`
            // (a sub-flow called with many values). Both lookups are indexed, so 10 000 values
            // cost 10 000 steps, not 50 million (18 s).
            let mut index = self.secret_keys.borrow_mut();
            let key = match index.keys.get(&(p.to_string(), value.clone())) {
                Some(key) => key.clone(),
                None => {
                    let mut secrets = self.secrets.borrow_mut();
                    let mut key = p.to_string();
                    let n = index.next.entry(p.to_string()).or_insert(2);
                    while secrets.contains_key(&key) {
                        key = format!("{p}__{n}");
                        *n += 1;
                    }
                    secrets.insert(key.clone(), value.clone());
                    index.keys.insert((p.to_string(), value), key.clone());
                    key
                }
            };
            Some(format!("{{{{ {key} }}}}"))
        })
    }

    /// Reports malformed templates and undefined references in one string. Each reference is
    /// underlined where it is written (found left to right in the source, so the search is
    /// linear), and a problem with the same reference is reported once per string: a 20 MB
    /// string of `{{ X }}` gives one diagnostic, not three million.
    pub(super) fn check_text_vars(
        &mut self,
        src: &SourceFile,
        text: &str,
        span: Span,
        scope: &Scope,
    ) {
        let raw = src.slice(span);
        // `None` once a reference was not found as written (escapes in a quoted string): the
        // rest are underlined as the whole string, rather than each searched for in vain.
        let mut cursor = Some(0);
        let mut locate = |inner: &str| -> Span {
            let Some(from) = cursor else {
                return span;
            };
            match raw[from..].find(inner) {
                Some(i) => {
                    let start = from + i;
                    cursor = Some(start + inner.len());
                    Span::new(span.start + start, span.start + start + inner.len())
                }
                None => {
                    cursor = None;
                    span
                }
            }
        };
        if let Err(e) = template::each_ref(text, |_, _| {}) {
            let bad = &text[e.range.0..e.range.1];
            self.push(
                Diagnostic::error(
                    src,
                    locate(bad),
                    crate::codes::diag::INVALID_TEMPLATE,
                    e.message,
                    "invalid reference",
                )
                .with_help("write `{{ NAME }}`; use `\\{{` for literal braces"),
            );
            return;
        }
        let mut checked = std::collections::HashSet::new();
        let _ = template::each_ref(text, |path, range| {
            let at = locate(&text[range.0..range.1]);
            if checked.insert(path)
                && let Some(d) = self.check_ref(src, path, at, scope)
            {
                self.push(d);
            }
        });
    }

    pub(super) fn check_ref(
        &self,
        src: &SourceFile,
        path: &str,
        at: Span,
        scope: &Scope,
    ) -> Option<Diagnostic> {
        let segs: Vec<&str> = path.split('.').collect();
        if segs[0] == "steps" {
            let Some(name) = segs.get(1) else {
                return Some(
                    Diagnostic::error(
                        src,
                        at,
                        crate::codes::diag::INVALID_TEMPLATE,
                        "`steps` needs a kept step's name",
                        "incomplete reference",
                    )
                    .with_help("write `{{ steps.NAME.result.FIELD }}`"),
                );
            };
            let Some(tool) = scope.kept.get(*name) else {
                if scope.lenient {
                    return None;
                }
                let help = did_you_mean(name, scope.kept.keys().map(String::as_str))
                    .unwrap_or_else(|| format!("add `keep: {name}` to an earlier step"));
                return Some(
                    Diagnostic::error(
                        src,
                        at,
                        crate::codes::diag::UNDEFINED_VARIABLE,
                        format!("no earlier step keeps its result as `{name}`"),
                        "not kept by an earlier step",
                    )
                    .with_help(help),
                );
            };
            if segs.get(2) != Some(&"result") || segs.len() < 4 {
                return Some(
                    Diagnostic::error(
                        src,
                        at,
                        crate::codes::diag::INVALID_TEMPLATE,
                        format!("`{path}` does not name a result field"),
                        "incomplete reference",
                    )
                    .with_help(format!("write `{{{{ steps.{name}.result.FIELD }}}}`")),
                );
            }
            if let Some(fields) = tool.as_deref().and_then(|t| self.catalog.result_fields(t))
                && !fields.contains(&segs[3])
            {
                let help = did_you_mean(segs[3], fields.iter().copied())
                    .unwrap_or_else(|| format!("its result has: {}", fields.join(", ")));
                return Some(
                    Diagnostic::error(
                        src,
                        at,
                        crate::codes::diag::UNKNOWN_RESULT_FIELD,
                        format!(
                            "`{}` results have no field `{}`",
                            tool.as_deref().unwrap_or("?"),
                            segs[3]
                        ),
                        "unknown field",
                    )
                    .with_help(help),
                );
            }
            return None;
        }
        if segs.len() > 1 {
            return Some(Diagnostic::error(src, at, crate::codes::diag::INVALID_TEMPLATE, format!("`{path}` is not a variable"), "not a variable")
                .with_help("variables are plain names (`{{ USER }}`); results are `{{ steps.NAME.result.FIELD }}`"));
        }
        if scope.vars.contains_key(path) || scope.lenient {
            return None;
        }
        let help = did_you_mean(path, scope.vars.keys().map(String::as_str))
            .unwrap_or_else(|| format!("declare it under `env:` or pass `--env {path}=…`"));
        Some(
            Diagnostic::error(
                src,
                at,
                crate::codes::diag::UNDEFINED_VARIABLE,
                format!("undefined variable `{path}`"),
                "not defined",
            )
            .with_help(help),
        )
    }

    /// Checks the variables in every string of a node.
    pub(super) fn check_node_vars(&mut self, src: &SourceFile, node: &Node, scope: &Scope) {
        match &node.value {
            Y::Str(s) if s.contains("{{") => self.check_text_vars(src, s, node.span, scope),
            Y::Seq(items) => items
                .iter()
                .for_each(|n| self.check_node_vars(src, n, scope)),
            Y::Map(entries) => entries
                .iter()
                .for_each(|(_, n)| self.check_node_vars(src, n, scope)),
            _ => {}
        }
    }
}
