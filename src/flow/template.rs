//! `{{ NAME }}` references inside flow strings: finding them (with their byte ranges, so an
//! undefined variable can be underlined) and substituting the ones whose value is known.
//!
//! The syntax is the variable subset of handlebars (`{{ NAME }}`, `{{ steps.login.result.x }}`,
//! `\{{` for a literal `{{`); values are inserted byte-exact, with no HTML escaping.

/// One `{{ path }}` reference; `range` is its byte range within the string (braces included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarRef {
    pub path: String,
    pub range: (usize, usize),
}

/// A malformed `{{ … }}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateError {
    pub message: String,
    pub range: (usize, usize),
}

/// Finds every reference in `text`.
pub fn scan(text: &str) -> Result<Vec<VarRef>, TemplateError> {
    let mut refs = Vec::new();
    let mut i = 0;
    let bytes = text.as_bytes();
    while let Some(pos) = text[i..].find("{{") {
        let start = i + pos;
        if start > 0 && bytes[start - 1] == b'\\' {
            i = start + 2;
            continue;
        }
        let Some(close) = text[start + 2..].find("}}") else {
            return Err(TemplateError {
                message: "`{{` is never closed with `}}`".into(),
                range: (start, text.len()),
            });
        };
        let end = start + 2 + close + 2;
        let inner = text[start + 2..end - 2].trim();
        if !is_path(inner) {
            return Err(TemplateError {
                message: format!(
                    "`{{{{ {inner} }}}}` is not a variable reference (only names such as `USER` or `steps.login.result.verified` are allowed)"
                ),
                range: (start, end),
            });
        }
        refs.push(VarRef {
            path: inner.to_string(),
            range: (start, end),
        });
        i = end;
    }
    Ok(refs)
}

fn is_path(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|seg| {
            !seg.is_empty()
                && seg
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        })
        && s.chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Replaces every reference for which `lookup` returns a value; others are left as written.
/// A malformed template is returned unchanged (validation reports it).
pub fn substitute(text: &str, lookup: impl Fn(&str) -> Option<String>) -> String {
    let Ok(refs) = scan(text) else {
        return text.to_string();
    };
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for r in refs {
        if let Some(v) = lookup(&r.path) {
            out.push_str(&text[last..r.range.0]);
            out.push_str(&v);
            last = r.range.1;
        }
    }
    out.push_str(&text[last..]);
    out
}

/// True when the string still contains a reference (to be resolved at run time).
pub fn has_refs(text: &str) -> bool {
    scan(text).is_ok_and(|r| !r.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_and_substitutes_byte_exact() {
        let t = "hi {{ USER }} & {{steps.a.result.x}} <b>";
        let refs = scan(t).unwrap();
        assert_eq!(refs.len(), 2);
        assert_eq!(refs[0].path, "USER");
        assert_eq!(&t[refs[0].range.0..refs[0].range.1], "{{ USER }}");
        let out = substitute(t, |p| (p == "USER").then(|| "<a&b>".to_string()));
        assert_eq!(out, "hi <a&b> & {{steps.a.result.x}} <b>");
    }

    #[test]
    fn rejects_expressions_and_unclosed_braces() {
        assert!(scan("{{ a + b }}").is_err());
        assert!(scan("{{ USER ").is_err());
        assert!(scan("{{}}").is_err());
        assert_eq!(scan(r"\{{ literal }}").unwrap(), vec![]);
    }
}
