//! Which typed text is a secret, the variable it becomes, and how text is written into the
//! saved flow: every occurrence of a secret replaced by `{{ NAME }}`, every other `{{` escaped
//! so the flow types exactly what the session typed (`docs/flow-format.md`, "Escaping").
//!
//! A text is a secret when it went into a password field (the field showed a mask, or its id
//! or search text names a password, PIN, token, …), or when it has the shape of a well-known
//! credential (API tokens, private keys, JWTs). The saved flow declares each as a variable
//! `secret: true` with no value: the value must come from `--env`, `TAPFLOW_<NAME>` or the
//! caller, and never lands on disk.

use std::sync::LazyLock;

use regex::Regex;

/// Field names that say "what is typed here is a secret".
static SECRET_FIELD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)pass(word|wd|code|phrase)?|pwd|\bpin\b|pin_?code|secret|token|otp|api_?key|credential|密码|口令")
        .expect("valid regex")
});

/// Well-known credential shapes, whatever field they were typed into.
static SECRET_SHAPE: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"^(ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}$", // GitHub
        r"^sk-[A-Za-z0-9_-]{20,}$",                              // OpenAI-style keys
        r"^(AKIA|ASIA)[0-9A-Z]{16}$",                            // AWS access key id
        r"^xox[abprs]-[A-Za-z0-9-]{10,}$",                       // Slack
        r"^AIza[0-9A-Za-z_-]{35}$",                              // Google API key
        r"^eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}$", // JWT
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----",
    ]
    .iter()
    .map(|p| Regex::new(p).expect("valid regex"))
    .collect()
});

/// A secret shorter than this is replaced only where it is a whole value (a 4-digit PIN must
/// not turn every `1234` inside other text into a variable).
const MIN_SUBSTRING: usize = 6;

/// Whether a field named by these words (its id, search text, hint) takes secrets.
pub fn secret_field<'a>(words: impl IntoIterator<Item = &'a str>) -> bool {
    words.into_iter().any(|w| SECRET_FIELD.is_match(w))
}

/// Whether the text itself looks like a credential.
pub fn secret_shape(text: &str) -> bool {
    SECRET_SHAPE.iter().any(|r| r.is_match(text))
}

/// The secrets met so far, each with its variable.
#[derive(Debug, Default)]
pub struct Secrets {
    /// (value, variable), in the order met.
    found: Vec<(String, String)>,
}

impl Secrets {
    /// The variable for `value`: the one it already has, else a new one named after the field
    /// (`password` → `PASSWORD`), made unique.
    pub fn name(&mut self, value: &str, field: Option<&str>, masked: bool) -> String {
        if let Some((_, n)) = self.found.iter().find(|(v, _)| v == value) {
            return n.clone();
        }
        let base = field
            .map(var_name)
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| if masked { "PASSWORD" } else { "SECRET" }.to_string());
        let mut name = base.clone();
        let mut n = 1;
        while self.found.iter().any(|(_, v)| *v == name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        self.found.push((value.to_string(), name.clone()));
        name
    }

    /// The variables, in the order met.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.found.iter().map(|(_, n)| n.as_str())
    }

    pub fn values(&self) -> impl Iterator<Item = &str> {
        self.found.iter().map(|(v, _)| v.as_str())
    }

    /// `text` as a flow string: secrets as `{{ NAME }}`, everything else literal.
    pub fn template(&self, text: &str) -> String {
        if let Some((_, n)) = self.found.iter().find(|(v, _)| v == text) {
            return reference(n);
        }
        // Longest secrets first, so one that contains another wins.
        let mut by_len: Vec<&(String, String)> = self
            .found
            .iter()
            .filter(|(v, _)| v.chars().count() >= MIN_SUBSTRING)
            .collect();
        by_len.sort_by_key(|(v, _)| std::cmp::Reverse(v.len()));
        let mut out = String::new();
        let mut rest = text;
        'scan: while !rest.is_empty() {
            let next = by_len
                .iter()
                .filter_map(|(v, n)| rest.find(v.as_str()).map(|at| (at, v, n)))
                .min_by_key(|(at, _, _)| *at);
            match next {
                Some((at, v, n)) => {
                    out.push_str(&escape(&rest[..at]));
                    out.push_str(&reference(n));
                    rest = &rest[at + v.len()..];
                }
                None => {
                    out.push_str(&escape(rest));
                    break 'scan;
                }
            }
        }
        out
    }
}

fn reference(name: &str) -> String {
    format!("{{{{ {name} }}}}")
}

/// A flow variable name from a field id: `user-password` → `USER_PASSWORD` (an Android id
/// `<package>:id/password` by its last part).
fn var_name(field: &str) -> String {
    let last = field.rsplit(['/', ':']).next().unwrap_or(field);
    let mut s: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    s = s.trim_matches('_').to_string();
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert_str(0, "SECRET_");
    }
    s
}

/// Literal text in a flow string. The flow opens a reference at the last two `{` of a run, and
/// pairs the backslashes right before them: so those two get `2k + 1` backslashes where the text
/// had `k` (`\{{` is literal braces), and everything else stays as it is.
pub fn escape(text: &str) -> String {
    if !text.contains("{{") {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 4);
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '{' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|c| **c == '{').count();
        if run < 2 {
            out.push('{');
        } else {
            if run == 2 {
                // The backslashes just written precede the opener: double them, plus one.
                let k = out.chars().rev().take_while(|c| *c == '\\').count();
                out.push_str(&"\\".repeat(k + 1));
            } else {
                out.extend(std::iter::repeat_n('{', run - 2));
                out.push('\\');
            }
            out.push_str("{{");
        }
        i += run;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_braces_are_escaped_as_the_flow_reads_them() {
        assert_eq!(escape("plain"), "plain");
        assert_eq!(escape("a {{ b }}"), "a \\{{ b }}");
        assert_eq!(escape("\\{{x"), "\\\\\\{{x");
        assert_eq!(escape("{{{x"), "{\\{{x");
        assert_eq!(escape("{x}"), "{x}");
    }

    #[test]
    fn secrets_become_references_in_any_text() {
        let mut s = Secrets::default();
        assert_eq!(s.name("hunter2-secret", Some("password"), true), "PASSWORD");
        assert_eq!(s.name("hunter2-secret", None, false), "PASSWORD");
        assert_eq!(s.name("other-secret", Some("password"), true), "PASSWORD_2");
        assert_eq!(s.name("1234", Some("pin-code"), true), "PIN_CODE");
        assert_eq!(s.name("x-secret", Some("com.app:id/pass"), true), "PASS");
        assert_eq!(s.template("hunter2-secret"), "{{ PASSWORD }}");
        assert_eq!(s.template("me:hunter2-secret {{"), "me:{{ PASSWORD }} \\{{");
        // A short secret is replaced only as a whole value.
        assert_eq!(s.template("1234"), "{{ PIN_CODE }}");
        assert_eq!(s.template("room 1234"), "room 1234");
    }

    #[test]
    fn secret_fields_and_shapes() {
        assert!(secret_field(["password"]));
        assert!(secret_field(["user_pwd"]));
        assert!(secret_field(["密码"]));
        assert!(!secret_field(["username", "Login"]));
        assert!(secret_shape("ghp_abcdefghijklmnopqrstuvwxyz0123"));
        assert!(secret_shape("AKIAABCDEFGHIJKLMNOP"));
        assert!(!secret_shape("hello world"));
    }
}
