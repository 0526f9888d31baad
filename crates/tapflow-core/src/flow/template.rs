//! `{{ NAME }}` references inside flow strings: finding them (with their byte ranges, so an
//! undefined variable can be underlined), substituting the ones whose value is known, and the
//! escaping that keeps data (a `--env` value, a kept result) from ever being read as a template.
//!
//! The syntax is the variable subset of handlebars (`{{ NAME }}`, `{{ steps.login.result.x }}`);
//! values are inserted byte-exact, with no HTML escaping. Escapes, as in handlebars:
//!
//! - `\{{` is a literal `{{`;
//! - `\\{{ NAME }}` is a literal `\` followed by the reference (in general, before `{{` a run of
//!   n backslashes stands for n/2 of them, and an odd run makes the braces literal);
//! - a backslash anywhere else is an ordinary character (Windows paths and regexes are safe);
//! - in a run of three or more `{`, the last two open the reference (`{{{ NAME }}}` is the value
//!   between literal braces; there is no triple-stash, since nothing is ever HTML-escaped).
//!
//! Two forms of text exist: *template text* (what a flow writes, and what a plan keeps in its
//! arguments) and *data* (what reaches the device). [`escape`] turns data into template text that
//! stands for exactly that data; [`substitute`] splices values (template text) into template
//! text at the level of [`Piece`]s, so that a value's braces or trailing backslashes never join
//! the surrounding text into a new reference; [`render`] produces data.

use std::borrow::Cow;

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

/// A template, decoded: literal text (escapes resolved) and references.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    Text(Cow<'a, str>),
    /// A reference; `raw` is its text as written (`{{ USER }}`), kept when it stays unresolved.
    Ref {
        path: String,
        raw: Cow<'a, str>,
    },
}

/// What decoding meets, in order; every text is a slice of the input (no allocation).
enum Event<'a> {
    Text(&'a str),
    Ref {
        path: &'a str,
        raw: &'a str,
        range: (usize, usize),
    },
}

/// Decodes `text`, calling `on` for each literal slice and each reference.
fn decode<'a>(text: &'a str, mut on: impl FnMut(Event<'a>)) -> Result<(), TemplateError> {
    let bytes = text.as_bytes();
    // Start of the literal text not yet passed on.
    let mut i = 0;
    // Where the next `{{` is searched from.
    let mut from = 0;
    while let Some(pos) = text[from..].find("{{") {
        let p = from + pos;
        let run = bytes[i..p]
            .iter()
            .rev()
            .take_while(|b| **b == b'\\')
            .count();
        on(Event::Text(&text[i..p - run]));
        // n backslashes before `{{` stand for n/2 of them.
        on(Event::Text(&text[p - run..p - run + run / 2]));
        if run % 2 == 1 {
            on(Event::Text(&text[p..p + 2]));
            i = p + 2;
            from = i;
            continue;
        }
        if bytes.get(p + 2) == Some(&b'{') {
            // `{{{`: the first brace is literal; the reference opens one further on.
            on(Event::Text(&text[p..p + 1]));
            i = p + 1;
            from = i;
            continue;
        }
        let Some(close) = text[p + 2..].find("}}") else {
            return Err(TemplateError {
                message: "`{{` is never closed with `}}`".into(),
                range: (p, text.len()),
            });
        };
        let end = p + 2 + close + 2;
        let inner = text[p + 2..end - 2].trim();
        if !is_path(inner) {
            return Err(TemplateError {
                message: format!(
                    "`{{{{ {inner} }}}}` is not a variable reference (only names such as `USER` or `steps.login.result.verified` are allowed)"
                ),
                range: (p, end),
            });
        }
        on(Event::Ref {
            path: inner,
            raw: &text[p..end],
            range: (p, end),
        });
        i = end;
        from = end;
    }
    on(Event::Text(&text[i..]));
    Ok(())
}

/// Decodes `text` into literal text (adjacent slices merged) and references.
pub fn pieces(text: &str) -> Result<Vec<Piece<'_>>, TemplateError> {
    let mut out: Vec<Piece<'_>> = Vec::new();
    decode(text, |e| match e {
        Event::Text("") => {}
        Event::Text(t) => match out.last_mut() {
            Some(Piece::Text(prev)) => prev.to_mut().push_str(t),
            _ => out.push(Piece::Text(Cow::Borrowed(t))),
        },
        Event::Ref { path, raw, .. } => out.push(Piece::Ref {
            path: path.to_string(),
            raw: Cow::Borrowed(raw),
        }),
    })?;
    Ok(out)
}

/// Calls `on` with every reference's path and byte range, in order, collecting nothing (a
/// 20 MB string holds three million of them); `Err` at the first malformed `{{ … }}`.
pub fn each_ref<'a>(
    text: &'a str,
    mut on: impl FnMut(&'a str, (usize, usize)),
) -> Result<(), TemplateError> {
    decode(text, |e| {
        if let Event::Ref { path, range, .. } = e {
            on(path, range);
        }
    })
}

/// Finds every reference in `text`.
pub fn scan(text: &str) -> Result<Vec<VarRef>, TemplateError> {
    let mut refs = Vec::new();
    decode(text, |e| {
        if let Event::Ref { path, range, .. } = e {
            refs.push(VarRef {
                path: path.to_string(),
                range,
            });
        }
    })?;
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

/// Writes literal `text` as template text; `before_ref`: a reference follows directly.
fn encode_text(text: &str, before_ref: bool, out: &mut String) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(pos) = text[i..].find("{{") {
        let p = i + pos;
        let run = bytes[i..p]
            .iter()
            .rev()
            .take_while(|b| **b == b'\\')
            .count();
        out.push_str(&text[i..p - run]);
        out.extend(std::iter::repeat_n('\\', 2 * run + 1));
        out.push_str("{{");
        i = p + 2;
    }
    let rest = &text[i..];
    if !before_ref {
        out.push_str(rest);
        return;
    }
    // Before a reference, trailing backslashes (also those before one final `{`, which then
    // joins the reference's braces) must not escape it: double them.
    let core = rest.strip_suffix('{').unwrap_or(rest);
    let run = core.bytes().rev().take_while(|b| *b == b'\\').count();
    out.push_str(&core[..core.len() - run]);
    out.extend(std::iter::repeat_n('\\', 2 * run));
    out.push_str(&rest[core.len()..]);
}

/// Template text written piece by piece: literal text is held until it is known whether a
/// reference follows it.
#[derive(Default)]
struct Encoder {
    out: String,
    text: String,
}

impl Encoder {
    fn text(&mut self, t: &str) {
        self.text.push_str(t);
    }

    fn reference(&mut self, raw: &str) {
        encode_text(&self.text, true, &mut self.out);
        self.text.clear();
        self.out.push_str(raw);
    }

    fn finish(mut self) -> String {
        encode_text(&self.text, false, &mut self.out);
        self.out
    }
}

/// Template text for `pieces` (adjacent texts are merged; references keep their raw form).
pub fn encode(pieces: &[Piece<'_>]) -> String {
    let mut e = Encoder::default();
    for p in pieces {
        match p {
            Piece::Text(t) => e.text(t),
            Piece::Ref { raw, .. } => e.reference(raw),
        }
    }
    e.finish()
}

/// Template text that stands for exactly `data` (its `{{` never start a reference).
pub fn escape(data: &str) -> Cow<'_, str> {
    if !data.contains("{{") {
        return Cow::Borrowed(data);
    }
    let mut out = String::with_capacity(data.len() + 4);
    encode_text(data, false, &mut out);
    Cow::Owned(out)
}

/// Replaces every reference for which `lookup` returns a value (template text, spliced as its
/// pieces); others are left as written. A malformed template is returned unchanged
/// (validation reports it); a malformed value is inserted as data.
pub fn substitute(text: &str, lookup: impl Fn(&str) -> Option<String>) -> String {
    if !text.contains("{{") {
        return text.to_string();
    }
    // Streamed from the decoder into the encoder: a 20 MB string of three million references
    // never becomes a `Vec` of them (that took 395 MB).
    let mut e = Encoder {
        out: String::with_capacity(text.len()),
        text: String::new(),
    };
    let decoded = decode(text, |ev| match ev {
        Event::Text(t) => e.text(t),
        Event::Ref { path, raw, .. } => match lookup(path) {
            Some(v) if decode(&v, |_| {}).is_ok() => {
                let _ = decode(&v, |inner| match inner {
                    Event::Text(t) => e.text(t),
                    Event::Ref { raw, .. } => e.reference(raw),
                });
            }
            Some(v) => e.text(&v),
            None => e.reference(raw),
        },
    });
    match decoded {
        Ok(()) => e.finish(),
        Err(_) => text.to_string(),
    }
}

/// The data `text` stands for: escapes resolved, every reference replaced by `lookup`'s value
/// (data, inserted as is: never read as a template again). `Err(path)` names the first
/// reference without a value. A malformed template is data as written.
pub fn render(
    text: &str,
    mut lookup: impl FnMut(&str) -> Option<String>,
) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut missing = None;
    let decoded = decode(text, |e| match e {
        Event::Text(t) => out.push_str(t),
        Event::Ref { path, .. } => match lookup(path) {
            Some(v) => out.push_str(&v),
            None => {
                missing.get_or_insert_with(|| path.to_string());
            }
        },
    });
    if decoded.is_err() {
        return Ok(text.to_string());
    }
    match missing {
        Some(path) => Err(path),
        None => Ok(out),
    }
}

/// How `text` reads to a person: escapes resolved, references shown as written.
pub fn display(text: &str) -> Cow<'_, str> {
    if !text.contains("{{") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let decoded = decode(text, |e| match e {
        Event::Text(t) => out.push_str(t),
        Event::Ref { raw, .. } => out.push_str(raw),
    });
    match decoded {
        Ok(()) => Cow::Owned(out),
        Err(_) => Cow::Borrowed(text),
    }
}

/// True when the string still contains a reference (to be resolved at run time).
pub fn has_refs(text: &str) -> bool {
    let mut any = false;
    text.contains("{{") && decode(text, |e| any |= matches!(e, Event::Ref { .. })).is_ok() && any
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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

    #[test]
    fn escapes_follow_handlebars() {
        let v = |p: &str| (p == "U").then(|| "demo".to_string());
        assert_eq!(render(r"a \{{ U }}", v).unwrap(), "a {{ U }}");
        assert_eq!(render(r"a \\{{ U }}", v).unwrap(), r"a \demo");
        assert_eq!(render(r"a \\\{{ U }}", v).unwrap(), r"a \{{ U }}");
        assert_eq!(render(r"C:\dir\{{U}}", v).unwrap(), r"C:\dir{{U}}");
        assert_eq!(render(r"C:\dir\ {{U}}", v).unwrap(), r"C:\dir\ demo");
        assert_eq!(render("{{{ U }}}", v).unwrap(), "{demo}");
        assert_eq!(render(r"no \ refs", v).unwrap(), r"no \ refs");
        assert_eq!(render("{{ X }}", v), Err("X".to_string()));
        // The reference's range is where it is written, not where its braces run starts.
        assert_eq!(scan("{{{ U }}").unwrap()[0].range, (1, 8));
    }

    #[test]
    fn data_is_never_read_as_a_template() {
        let secret = |p: &str| (p == "PASSWORD").then(|| "s3cret".to_string());
        for data in [
            "{{ PASSWORD }}",
            r"\{{ PASSWORD }}",
            r"x\",
            "{",
            r"\{",
            "{{{",
        ] {
            let t = escape(data);
            assert_eq!(render(&t, secret).unwrap(), data, "{t}");
            // Spliced before a reference, it neither escapes nor swallows it.
            let spliced = substitute("{{ NOTE }}{{ PASSWORD }}", |p| {
                (p == "NOTE").then(|| t.to_string())
            });
            assert_eq!(
                render(&spliced, secret).unwrap(),
                format!("{data}s3cret"),
                "{spliced}"
            );
        }
        assert_eq!(display(r"a \{{ b }} {{ C }}"), "a {{ b }} {{ C }}");
        assert_eq!(escape("plain"), Cow::Borrowed("plain"));
    }

    fn piece() -> impl Strategy<Value = Piece<'static>> {
        prop_oneof![
            "[\\\\{} a]{0,6}".prop_map(|s| Piece::Text(Cow::Owned(s))),
            "[A-Z]{1,3}".prop_map(|p| Piece::Ref {
                raw: Cow::Owned(format!("{{{{ {p} }}}}")),
                path: p,
            }),
        ]
    }

    fn owned<'b>(p: Piece<'_>) -> Piece<'b> {
        match p {
            Piece::Text(t) => Piece::Text(Cow::Owned(t.into_owned())),
            Piece::Ref { path, raw } => Piece::Ref {
                path,
                raw: Cow::Owned(raw.into_owned()),
            },
        }
    }

    fn merged(ps: &[Piece<'_>]) -> Vec<Piece<'static>> {
        let mut out: Vec<Piece<'static>> = Vec::new();
        for p in ps {
            match (out.last_mut(), p) {
                (Some(Piece::Text(a)), Piece::Text(b)) => a.to_mut().push_str(b),
                (_, Piece::Text(b)) if b.is_empty() => {}
                (_, p) => out.push(owned(p.clone())),
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Any sequence of literal text (backslashes and braces included) and references
        /// encodes to template text that decodes to the same sequence.
        #[test]
        fn encoding_round_trips(ps in proptest::collection::vec(piece(), 0..8)) {
            let text = encode(&ps);
            let back = pieces(&text).unwrap();
            prop_assert_eq!(merged(&back), merged(&ps), "{}", text);
        }
    }
}
