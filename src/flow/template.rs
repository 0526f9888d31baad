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
    refs(text)
        .map(|r| {
            r.map(|r| VarRef {
                path: r.path.to_string(),
                range: r.range,
            })
        })
        .collect()
}

/// One reference found by [`refs`], borrowing its path from the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefAt<'a> {
    pub path: &'a str,
    pub range: (usize, usize),
}

/// The references of `text`, one at a time, up to the first malformed one (its error is the
/// last item). Nothing is collected, so a 20 MB string of `{{ X }}` costs no memory to walk
/// (a `Vec` of its three million references took 170 MB).
pub fn refs(text: &str) -> Refs<'_> {
    Refs { text, at: 0 }
}

/// Iterator of [`refs`].
pub struct Refs<'a> {
    text: &'a str,
    /// Where to look next; past the end once an error was returned.
    at: usize,
}

impl<'a> Iterator for Refs<'a> {
    type Item = Result<RefAt<'a>, TemplateError>;

    fn next(&mut self) -> Option<Self::Item> {
        let text = self.text;
        let bytes = text.as_bytes();
        loop {
            let start = self.at + text.get(self.at..)?.find("{{")?;
            if start > 0 && bytes[start - 1] == b'\\' {
                self.at = start + 2;
                continue;
            }
            self.at = usize::MAX;
            let Some(close) = text[start + 2..].find("}}") else {
                return Some(Err(TemplateError {
                    message: "`{{` is never closed with `}}`".into(),
                    range: (start, text.len()),
                }));
            };
            let end = start + 2 + close + 2;
            let inner = text[start + 2..end - 2].trim();
            if !is_path(inner) {
                return Some(Err(TemplateError {
                    message: format!(
                        "`{{{{ {inner} }}}}` is not a variable reference (only names such as `USER` or `steps.login.result.verified` are allowed)"
                    ),
                    range: (start, end),
                }));
            }
            self.at = end;
            return Some(Ok(RefAt {
                path: inner,
                range: (start, end),
            }));
        }
    }
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
    if refs(text).any(|r| r.is_err()) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for r in refs(text).flatten() {
        if let Some(v) = lookup(r.path) {
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
    let mut found = false;
    for r in refs(text) {
        match r {
            Ok(_) => found = true,
            Err(_) => return false,
        }
    }
    found
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
