//! Masking of secret values in everything that leaves the process: `result.json`, evidence files
//! (UI trees, hilog excerpts, crash files), reports, terminal output, log lines and MCP
//! responses. One [`Masker`] is built per run from every secret of the plan
//! ([`Masker::for_plan`]); each egress point calls it right before writing:
//!
//! - [`Masker::text`] for text (log lines, progress lines, messages, crash files);
//! - [`Masker::bytes`] for bytes that may not be UTF-8;
//! - [`Masker::value`] / [`Masker::mask_value`] / [`Masker::to_value`] for JSON, *before* it is
//!   serialised: masking the decoded strings covers any escaping the serialiser then chooses;
//! - [`gate`] for the log subscriber, set up before any plan is compiled: every run of the
//!   process registers its secrets there, and every log line is masked with all of them.
//!
//! A secret is looked for in every form tapflow itself can give it ([`needles`]): the chains of
//! encodings of [`forms`] (as is, `sh`-quoted once or twice, `{:?}`, JSON, JSON of `{:?}`, web
//! forms), how the adb backend types it ([`android`]: `%s` for spaces, pieces cut at newlines,
//! tabs, literal `%s` and 100-character chunks, base64 for ADBKeyBoard), and, for a multi-line
//! secret, each line of at least [`MIN_LINE_CHARS`] characters once trimmed on its own (a log
//! prints each line as its own record; shorter lines would match unrelated text everywhere).
//!
//! All forms of all secrets go into one Aho-Corasick automaton, built once. Every occurrence of
//! every form is found, overlapping ones included, and the union of what they cover (less the
//! anchors a needle keeps) is replaced with [`MASK`], one per stretch: a secret that contains
//! another is masked whole, and a short form that starts earlier never hides a longer one that
//! starts inside it. With no secrets every call returns its input borrowed.

pub mod android;
pub mod forms;
pub mod gate;
#[cfg(test)]
pub(crate) mod tests;

use std::borrow::Cow;
use std::sync::Arc;

use aho_corasick::{AhoCorasick, MatchKind};
use serde::Serialize;
use serde_json::Value;

pub use forms::Needle;
use tapflow_core::plan::Plan;
pub use tapflow_core::plan::model::MASK;

/// A line of a multi-line secret is masked on its own only with at least this many characters
/// (after trimming surrounding whitespace).
pub const MIN_LINE_CHARS: usize = 4;

/// Every form of `secret` that is masked (see the module documentation), without duplicates.
pub fn needles(secret: &str) -> Vec<Needle> {
    let mut out = Vec::new();
    if secret.is_empty() {
        return out;
    }
    forms::value_forms(secret, &mut out);
    if secret.contains('\n') {
        for line in secret.split('\n').map(str::trim) {
            if line.chars().count() >= MIN_LINE_CHARS {
                forms::value_forms(line, &mut out);
            }
        }
    }
    android::key_forms(secret, &mut out);
    android::base64_forms(secret, &mut out);
    out.retain(|n| !n.text.is_empty());
    dedup(&mut out);
    out
}

/// One needle per text: the one keeping the fewest anchor bytes (masking the most).
fn dedup(needles: &mut Vec<Needle>) {
    needles.sort_by(|a, b| {
        (&a.text, a.keep_front + a.keep_back).cmp(&(&b.text, b.keep_front + b.keep_back))
    });
    needles.dedup_by(|later, first| later.text == first.text);
}

/// The texts of [`needles`] that are masked whole (no anchors).
pub fn encodings(secret: &str) -> Vec<String> {
    needles(secret)
        .into_iter()
        .filter(|n| n.keep_front == 0 && n.keep_back == 0)
        .map(|n| n.text)
        .collect()
}

/// Tools mask with the run's masker before deriving text from the device's (log signatures).
impl tapflow_tools::context::Redact for Masker {
    fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.text(text)
    }
}

/// The automaton and, per pattern, the anchor bytes it keeps at each end.
struct Automaton {
    ac: AhoCorasick,
    keep: Vec<(usize, usize)>,
}

/// Replaces every form of every secret with [`MASK`]. Cheap to clone (shared automaton).
#[derive(Clone, Default)]
pub struct Masker(Option<Arc<Automaton>>);

impl std::fmt::Debug for Masker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the patterns: they are the secrets.
        match &self.0 {
            None => f.write_str("Masker(no secrets)"),
            Some(a) => write!(f, "Masker({} patterns)", a.ac.patterns_len()),
        }
    }
}

impl Masker {
    /// A masker for these secret values (empty ones are ignored).
    pub fn new<S: AsRef<str>>(secrets: impl IntoIterator<Item = S>) -> Self {
        let mut all: Vec<Needle> = secrets
            .into_iter()
            .flat_map(|s| needles(s.as_ref()))
            .collect();
        dedup(&mut all);
        if all.is_empty() {
            return Masker(None);
        }
        let ac = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .build(all.iter().map(|n| &n.text))
            .expect("plain string patterns always build");
        let keep = all.iter().map(|n| (n.keep_front, n.keep_back)).collect();
        Masker(Some(Arc::new(Automaton { ac, keep })))
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
        match self.bytes(s.as_bytes()) {
            Cow::Borrowed(_) => Cow::Borrowed(s),
            // Every masked range starts and ends where a pattern or an anchor (both UTF-8
            // strings) starts or ends in `s`: on character boundaries.
            Cow::Owned(b) => Cow::Owned(String::from_utf8(b).expect("masked on char boundaries")),
        }
    }

    /// [`Masker::text`] for bytes that may not be UTF-8 (crash files, raw device output).
    ///
    /// What is masked is the union of every occurrence of every form, overlapping ones
    /// included: with leftmost matching alone, a short form that starts earlier (a chunk of a
    /// secret, a form with anchors) would hide a longer one that starts inside it, and the
    /// longer one's tail would show.
    pub fn bytes<'a>(&self, b: &'a [u8]) -> Cow<'a, [u8]> {
        let Some(a) = &self.0 else {
            return Cow::Borrowed(b);
        };
        let mut ranges: Vec<(usize, usize)> =
            a.ac.find_overlapping_iter(b)
                .filter_map(|m| {
                    let (front, back) = a.keep[m.pattern().as_usize()];
                    let (start, end) = (m.start() + front, m.end() - back);
                    (start < end).then_some((start, end))
                })
                .collect();
        if ranges.is_empty() {
            return Cow::Borrowed(b);
        }
        ranges.sort_unstable();
        let mut out = Vec::with_capacity(b.len());
        let mut at = 0;
        let mut i = 0;
        while i < ranges.len() {
            let (start, mut end) = ranges[i];
            i += 1;
            // Ranges that overlap or touch are one masked stretch.
            while i < ranges.len() && ranges[i].0 <= end {
                end = end.max(ranges[i].1);
                i += 1;
            }
            out.extend_from_slice(&b[at..start]);
            out.extend_from_slice(MASK.as_bytes());
            at = end;
        }
        out.extend_from_slice(&b[at..]);
        Cow::Owned(out)
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
