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
            let value = template::display(&b.value).into_owned();
            let mut secrets = self.secrets.borrow_mut();
            let mut key = p.to_string();
            let mut n = 2;
            while let Some(existing) = secrets.get(&key) {
                if *existing == value {
                    break;
                }
                key = format!("{p}__{n}");
                n += 1;
            }
            secrets.insert(key.clone(), value);
            Some(format!("{{{{ {key} }}}}"))
        })
    }

    /// Reports malformed templates and undefined references in one string.
    pub(super) fn check_text_vars(
        &mut self,
        src: &SourceFile,
        text: &str,
        span: Span,
        scope: &Scope,
    ) {
        let raw = src.slice(span);
        let locate = |inner: &str| -> Span {
            match raw.find(inner) {
                Some(i) => Span::new(span.start + i, span.start + i + inner.len()),
                None => span,
            }
        };
        let refs = match template::scan(text) {
            Ok(r) => r,
            Err(e) => {
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
        };
        for r in refs {
            let at = locate(&text[r.range.0..r.range.1]);
            if let Some(d) = self.check_ref(src, &r.path, at, scope) {
                self.push(d);
            }
        }
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
