//! Masking of secret values in everything that leaves the process: `result.json`, evidence files
//! (UI trees, hilog excerpts, crash files), reports, terminal output and MCP responses. One
//! [`Masker`] is built per run from every secret of the plan ([`Masker::for_plan`]); each egress
//! point calls it right before writing:
//!
//! - [`Masker::text`] for text (log lines, progress lines, messages, crash files);
//! - [`Masker::bytes`] for bytes that may not be UTF-8;
//! - [`Masker::value`] / [`Masker::mask_value`] / [`Masker::to_value`] for JSON, *before* it is
//!   serialised: masking the decoded strings covers any escaping the serialiser then chooses;
//! - [`SharedMasker`] for output set up before the plan's secrets are known (the log
//!   subscriber): a handle filled in once the plan is compiled, and a masking `io::Write`.
//!
//! A secret is looked for in every form tapflow itself can give it ([`encodings`]): as is;
//! JSON-escaped as serde_json writes it (`"` → `\"`, `\` → `\\`, control characters as `\n` or
//! `\u00XX`); single-quoted for the device's `sh` as the hdc backend quotes it (`'` → `'\''`,
//! see `device::hdc::quote`) and that JSON-escaped; both as Rust's `{:?}` prints them (how
//! `tracing` shows an hdc argv with `-v`); percent-encoded (upper-case hex: the URI
//! component set, the form set with `+` for space, and every non-alphanumeric byte); HTML-escaped
//! as handlebars writes it; XML-escaped (all five entities, or only `&`, `<`, `>`). A multi-line
//! secret is also looked for line by line (a log prints each line as its own record), in the same
//! forms, for every line that has at least [`MIN_LINE_CHARS`] characters once trimmed: shorter
//! lines would match unrelated text everywhere, so they are not masked on their own.
//!
//! All forms of all secrets go into one Aho-Corasick automaton, built once, that replaces the
//! leftmost-longest match with [`MASK`] (so a secret that contains another is masked whole). With
//! no secrets every call returns its input borrowed.

use std::borrow::Cow;
use std::io::Write;
use std::sync::{Arc, RwLock};

use aho_corasick::{AhoCorasick, MatchKind};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::Serialize;
use serde_json::Value;

use tapflow_core::plan::Plan;
pub use tapflow_core::plan::model::MASK;

/// A line of a multi-line secret is masked on its own only with at least this many characters
/// (after trimming surrounding whitespace).
pub const MIN_LINE_CHARS: usize = 4;

/// Unreserved characters of RFC 3986 stay as they are.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `application/x-www-form-urlencoded` (before space becomes `+`).
const FORM: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'*');

/// The inside of Rust's `{:?}` of a string (as `tracing` fields and debug output print argv).
fn debug_inner(s: &str) -> String {
    let quoted = format!("{s:?}");
    quoted[1..quoted.len() - 1].to_string()
}

fn json_inner(s: &str) -> String {
    let quoted = Value::String(s.to_string()).to_string();
    quoted[1..quoted.len() - 1].to_string()
}

/// The inside of `quote(s)` (`device::hdc::quote`): what shows of `s` inside a quoted word.
fn shell_inner(s: &str) -> String {
    s.replace('\'', "'\\''")
}

fn xml(s: &str, all: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if all => out.push_str("&quot;"),
            '\'' if all => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// The forms of one text.
fn forms(s: &str, out: &mut Vec<String>) {
    let shell = shell_inner(s);
    out.push(json_inner(&shell));
    out.push(debug_inner(&shell));
    out.push(shell);
    out.push(json_inner(s));
    out.push(debug_inner(s));
    out.push(utf8_percent_encode(s, COMPONENT).to_string());
    out.push(utf8_percent_encode(s, FORM).to_string().replace("%20", "+"));
    out.push(utf8_percent_encode(s, NON_ALPHANUMERIC).to_string());
    out.push(handlebars::html_escape(s));
    out.push(xml(s, true));
    out.push(xml(s, false));
    out.push(s.to_string());
}

/// Every form of `secret` that is masked (see the module documentation), without duplicates.
pub fn encodings(secret: &str) -> Vec<String> {
    let mut out = Vec::new();
    if secret.is_empty() {
        return out;
    }
    forms(secret, &mut out);
    if secret.contains('\n') {
        for line in secret.split('\n').map(str::trim) {
            if line.chars().count() >= MIN_LINE_CHARS {
                forms(line, &mut out);
            }
        }
    }
    out.retain(|s| !s.is_empty());
    out.sort();
    out.dedup();
    out
}

/// Replaces every form of every secret with [`MASK`]. Cheap to clone (shared automaton).
#[derive(Clone, Default)]
pub struct Masker(Option<Arc<AhoCorasick>>);

impl std::fmt::Debug for Masker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the patterns: they are the secrets.
        match &self.0 {
            None => f.write_str("Masker(no secrets)"),
            Some(ac) => write!(f, "Masker({} patterns)", ac.patterns_len()),
        }
    }
}

impl Masker {
    /// A masker for these secret values (empty ones are ignored).
    pub fn new<S: AsRef<str>>(secrets: impl IntoIterator<Item = S>) -> Self {
        let mut needles: Vec<String> = secrets
            .into_iter()
            .flat_map(|s| encodings(s.as_ref()))
            .collect();
        needles.sort();
        needles.dedup();
        if needles.is_empty() {
            return Masker(None);
        }
        let ac = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&needles)
            .expect("plain string patterns always build");
        Masker(Some(Arc::new(ac)))
    }

    /// Masks nothing.
    pub fn none() -> Self {
        Masker(None)
    }

    /// A masker for every secret of every flow of `plan` (a value one flow typed may show in
    /// another flow's evidence on the same device).
    pub fn for_plan(plan: &Plan) -> Self {
        Masker::new(plan.flows.iter().flat_map(|f| f.secret_values()))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// `s` with every form of every secret replaced by [`MASK`].
    pub fn text<'a>(&self, s: &'a str) -> Cow<'a, str> {
        match &self.0 {
            Some(ac) if ac.is_match(s) => {
                let mut out = String::with_capacity(s.len());
                ac.replace_all_with(s, &mut out, |_, _, dst| {
                    dst.push_str(MASK);
                    true
                });
                Cow::Owned(out)
            }
            _ => Cow::Borrowed(s),
        }
    }

    /// [`Masker::text`] for bytes that may not be UTF-8 (crash files, raw device output).
    pub fn bytes<'a>(&self, b: &'a [u8]) -> Cow<'a, [u8]> {
        match &self.0 {
            Some(ac) if ac.is_match(b) => {
                let mut out = Vec::with_capacity(b.len());
                ac.replace_all_with_bytes(b, &mut out, |_, _, dst| {
                    dst.extend_from_slice(MASK.as_bytes());
                    true
                });
                Cow::Owned(out)
            }
            _ => Cow::Borrowed(b),
        }
    }

    /// A copy of `v` with every string (and object key) masked.
    pub fn value(&self, v: &Value) -> Value {
        let mut v = v.clone();
        self.mask_value(&mut v);
        v
    }

    /// Masks every string (and object key) of `v` in place.
    pub fn mask_value(&self, v: &mut Value) {
        if self.is_empty() {
            return;
        }
        match v {
            Value::String(s) => {
                if let Cow::Owned(m) = self.text(s) {
                    *s = m;
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| self.mask_value(x)),
            Value::Object(o) => {
                if o.keys().any(|k| matches!(self.text(k), Cow::Owned(_))) {
                    let old = std::mem::take(o);
                    for (k, mut x) in old {
                        self.mask_value(&mut x);
                        o.insert(self.text(&k).into_owned(), x);
                    }
                } else {
                    o.values_mut().for_each(|x| self.mask_value(x));
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// `t` as a JSON value, masked: serialise this (with any serialiser) to write `t`.
    pub fn to_value<T: Serialize + ?Sized>(&self, t: &T) -> serde_json::Result<Value> {
        let mut v = serde_json::to_value(t)?;
        self.mask_value(&mut v);
        Ok(v)
    }
}

/// A [`Masker`] that is filled in later: output that starts before the plan is compiled (the
/// `tracing` subscriber of `-v`, which prints every hdc argv) holds a handle, and the CLI sets
/// the run's masker once it knows the secrets.
#[derive(Clone, Default)]
pub struct SharedMasker(Arc<RwLock<Masker>>);

impl SharedMasker {
    pub fn set(&self, masker: Masker) {
        *self.0.write().unwrap_or_else(|p| p.into_inner()) = masker;
    }

    pub fn get(&self) -> Masker {
        self.0.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// `inner`, masked: each `write` call is masked as a whole, so a writer that receives one
    /// record per call (as `tracing_subscriber::fmt` writes an event) is masked record by
    /// record. Usable as a `MakeWriter`: `move || shared.writer(std::io::stderr())`.
    pub fn writer<W: Write>(&self, inner: W) -> MaskingWriter<W> {
        MaskingWriter {
            inner,
            masker: self.get(),
        }
    }
}

/// The process's log masker: the `tracing` subscriber's writer masks through it, and
/// `tapflow run` sets it to the run's masker as soon as the plan is compiled.
pub fn log_masker() -> &'static SharedMasker {
    static LOG: std::sync::OnceLock<SharedMasker> = std::sync::OnceLock::new();
    LOG.get_or_init(SharedMasker::default)
}

/// An `io::Write` that masks every buffer before passing it on (see [`SharedMasker::writer`]).
pub struct MaskingWriter<W: Write> {
    inner: W,
    masker: Masker,
}

impl<W: Write> Write for MaskingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.inner.write_all(&self.masker.bytes(buf))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn masks_longest_secret_first() {
        let m = Masker::new(["pw", "pw123", ""]);
        assert_eq!(m.text("x pw123 y pw"), "x ****** y ******");
        assert_eq!(
            m.value(&json!({"t": ["pw"], "n": 1, "pw": true})),
            json!({"t": ["******"], "n": 1, "******": true})
        );
    }

    #[test]
    fn no_secrets_borrow() {
        let m = Masker::none();
        assert!(matches!(m.text("a"), Cow::Borrowed(_)));
        assert!(matches!(m.bytes(b"a"), Cow::Borrowed(_)));
        let m = Masker::new(["secret"]);
        assert!(matches!(m.text("nothing here"), Cow::Borrowed(_)));
        assert!(!format!("{m:?}").contains("secret"));
    }

    #[test]
    fn every_form_tapflow_writes_is_masked() {
        let secret = "Us\"er\\Sec/ret1 it's <b>&";
        let m = Masker::new([secret]);
        let json = serde_json::to_string_pretty(&json!({"text": secret})).unwrap();
        assert_eq!(m.text(&json), "{\n  \"text\": \"******\"\n}");
        let cmd = tapflow_device::hdc::quote::command_line("uitest", &["inputText", secret]);
        assert_eq!(m.text(&cmd), "uitest 'inputText' '******'");
        let message = json!({"message": format!("`{cmd}` did not finish")}).to_string();
        assert_eq!(
            m.text(&message),
            r#"{"message":"`uitest 'inputText' '******'` did not finish"}"#
        );
        let url: String = utf8_percent_encode(secret, COMPONENT).to_string();
        assert_eq!(m.text(&format!("?q={url}&x=1")), "?q=******&x=1");
        assert_eq!(
            m.text(&format!("<td>{}</td>", handlebars::html_escape(secret))),
            "<td>******</td>"
        );
        assert_eq!(m.bytes(secret.as_bytes()).as_ref(), MASK.as_bytes());
        let argv = vec!["shell".to_string(), cmd];
        assert_eq!(
            m.text(&format!("argv={argv:?}")),
            r#"argv=["shell", "uitest 'inputText' '******'"]"#
        );
    }

    #[test]
    fn a_shared_masker_masks_what_is_written_after_it_is_set() {
        let shared = SharedMasker::default();
        let mut early = shared.writer(Vec::new());
        early.write_all(b"no secrets yet: pw1").unwrap();
        assert_eq!(early.inner, b"no secrets yet: pw1");
        shared.set(Masker::new(["pw1"]));
        let mut w = shared.writer(Vec::new());
        w.write_all(b"hdc argv [\"pw1\"]").unwrap();
        assert_eq!(w.inner, b"hdc argv [\"******\"]");
    }

    #[test]
    fn long_lines_of_a_multi_line_secret_are_masked_alone() {
        let m = Masker::new(["first-line\nab\n  second-line  "]);
        let log = "I A0d0d0/DemoApp: user=first-line\nI A0d0d0/DemoApp: ab\nI A0d0d0/DemoApp:   second-line  ";
        assert_eq!(
            m.text(log),
            "I A0d0d0/DemoApp: user=******\nI A0d0d0/DemoApp: ab\nI A0d0d0/DemoApp:   ******  "
        );
        // The JSON form of the whole secret (with `\n`) and of each long line.
        assert_eq!(
            m.text(r#""first-line\nab\n  second-line  ""#),
            r#""******""#
        );
        assert!(!encodings("a\nbcd\nefgh").contains(&"bcd".to_string()));
        assert!(encodings("a\nbcd\nefgh").contains(&"efgh".to_string()));
    }

    /// Characters that break naive masking: quoting, escapes, URL and HTML specials, control
    /// characters, non-ASCII (BMP and astral), template braces.
    const HOSTILE: &[&str] = &[
        "\"", "\\", "'", "$", "`", "%", "&", "<", ">", "\n", "\t", " ", "😀", "用户", "{{", "}}",
        "\u{1}", "\u{7f}", "é", "+", "=", "/", "#", "?", "a", "Z", "0", "\r",
    ];

    /// A secret with a marker (`Q`, absent from the contexts and the mask), so that any form of
    /// it left in masked output must come from the secret itself.
    fn secret() -> impl Strategy<Value = String> {
        (
            proptest::collection::vec(proptest::sample::select(HOSTILE), 0..8),
            proptest::collection::vec(proptest::sample::select(HOSTILE), 0..8),
        )
            .prop_map(|(a, b)| format!("{}Q{}Q", a.concat(), b.concat()))
    }

    fn context() -> impl Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(HOSTILE), 0..6).prop_map(|v| v.concat())
    }

    /// No form with the marker is left (forms of a marker-less line of a multi-line secret
    /// are masked too, but may match unrelated context text, so they prove nothing here).
    fn assert_clean(out: &str, secret: &str) -> Result<(), TestCaseError> {
        for e in encodings(secret).into_iter().filter(|e| e.contains('Q')) {
            prop_assert!(!out.contains(&e), "{e:?} in {out:?}");
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// Whatever way tapflow writes a hostile secret (inside JSON, a shell-quoted device
        /// command, a JSON-escaped error message holding that command, a URL, HTML, or a log
        /// that prints a multi-line secret line by line), no form of it survives masking.
        #[test]
        fn no_form_survives(secret in secret(), pre in context(), post in context()) {
            let m = Masker::new([secret.as_str()]);
            let text = format!("{pre}{secret}{post}");
            let cmd = tapflow_device::hdc::quote::command_line("uitest", &[text.as_str()]);
            let outputs = [
                format!("argv={:?}", [&cmd]),
                text.clone(),
                serde_json::to_string(&json!({ "k": text })).unwrap(),
                serde_json::to_string_pretty(&json!([{ "message": cmd }])).unwrap(),
                cmd.clone(),
                utf8_percent_encode(&text, COMPONENT).to_string(),
                handlebars::html_escape(&text),
                text.split('\n').map(|l| format!("I A0d0d0/App: {l}")).collect::<Vec<_>>().join("\n"),
            ];
            for out in &outputs {
                assert_clean(&m.text(out), &secret)?;
                let masked = m.bytes(out.as_bytes()).into_owned();
                assert_clean(&String::from_utf8_lossy(&masked), &secret)?;
            }
            // JSON masked as values, then written by any serialiser.
            let v = m.value(&json!({ text.clone(): [text.clone(), {"cmd": cmd}] }));
            assert_clean(&serde_json::to_string(&v).unwrap(), &secret)?;
            assert_clean(&serde_json::to_string_pretty(&v).unwrap(), &secret)?;
        }
    }
}
