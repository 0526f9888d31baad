//! Lost keystrokes, a flow-level behaviour (docs/run.md, "When a failure is the device's").
//!
//! Text typed key by key (`input_strategy: direct`: Android's `input text`, uitest's direct
//! entry of digits) can lose keys on the way: the field then shows a subsequence of the text
//! (the tool's [`Typing::reading`] says so), and in a flow the tool stops waiting for the missing keys
//! once that value has settled. The runner then types the text again, up to [`TRIES`] times
//! in all, to tell the two causes apart:
//!
//! - a try that lands passes the step; its result says what the earlier tries showed
//!   (`retyped`);
//! - tries that all lost keys but showed *different* values: the device loses keys at random,
//!   an infrastructure fault: `INPUT_KEYS_LOST`, and the run exits 4;
//! - tries that all showed the *same* value: the field refuses those characters (a filter, a
//!   length limit) every time, which is the app's behaviour: the tool's own verification
//!   error stands (a device that loses every key cannot be told from a field that refuses
//!   every key, and is reported the same way; the message says so).
//!
//! A field that hides its value (a password field) shows only how many characters it holds:
//! equal readings prove equal lengths, not equal values, and a device dropping keys at random
//! shows the same count three times in a row often enough (about 1 run in 20 at a 30 % drop
//! rate on an 8-character password, measured in the fault matrix). Such a field is typed up to
//! [`TRIES_MASKED`] times; it is judged to refuse the characters (a length limit) only when
//! every try showed the same count, and a device otherwise.
//!
//! An `append` step is retyped as `replace` with the whole expected value, since the field
//! already holds part of the text. A bare tool call never gets here.

use serde_json::{Value, json};
use tapflow_tools::flow_hooks::Typing;

use super::{Attempt, FlowRun, cost, masked};
use crate::run::worker::CallOutcome;

/// Tries in all (the step's own call included).
pub const TRIES: usize = 3;

/// Tries in all into a field that hides its value (see the module doc): the chance that
/// random drops repeat the same count on every try falls from about 5 % (3 tries) to below
/// 0.4 % (5 tries) at a 30 % drop rate on 8 characters.
pub const TRIES_MASKED: usize = 5;

/// What a failed call showed in its field, when it shows lost keys.
fn lost_of(
    typing: &Typing,
    outcome: &CallOutcome,
) -> Option<tapflow_tools::flow_hooks::FieldReading> {
    let CallOutcome::Done(env) = outcome else {
        return None;
    };
    (typing.reading)(env.structured.error.as_ref()?).filter(|r| r.lost_keys)
}

/// Puts `key: value` into the envelope's result (passed) or error details (failed).
fn note(outcome: &mut CallOutcome, key: &str, value: Value) {
    let CallOutcome::Done(env) = outcome else {
        return;
    };
    let holder = env.structured.payload_mut();
    if holder.is_null() {
        *holder = json!({});
    }
    if let Value::Object(o) = holder {
        o.insert(key.into(), value);
    }
}

/// How the tries that all lost keys end: `INPUT_KEYS_LOST` when they differ, the tool's own
/// error (with a note) when they agree.
fn verdict(last: &mut CallOutcome, seen: &[String], masked: bool) {
    let CallOutcome::Done(env) = last else {
        return;
    };
    let Some(e) = env.structured.error.as_mut() else {
        return;
    };
    let mut distinct: Vec<&String> = seen.iter().collect();
    distinct.sort();
    distinct.dedup();
    let shown = seen
        .iter()
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    if distinct.len() > 1 {
        e.message = format!(
            "the device lost keystrokes: the text was typed key by key {} times and the field showed a different part of it each time ({shown}); a device that drops keys at random is an infrastructure fault (the tool's verdict was {}: {})",
            seen.len(),
            e.code,
            e.message
        );
        if let Value::Object(d) = &mut e.details {
            d.insert("cause_code".into(), e.code.as_str().into());
        }
        e.code = tapflow_core::codes::INPUT_KEYS_LOST;
    } else if masked {
        e.message = format!(
            "{}; typed {} times, the field (which hides its value) showed {} characters every time: it refuses characters beyond that (a length limit; a device that loses the same number of keys on every try looks the same)",
            e.message,
            seen.len(),
            distinct.first().map_or(0, |s| s.chars().count())
        );
    } else {
        e.message = format!(
            "{}; typed {} times, the field showed the same {:?} every time: it refuses these characters (a device that loses every key looks the same)",
            e.message,
            seen.len(),
            distinct.first().map_or("", |s| s.as_str())
        );
    }
}

impl FlowRun<'_, '_> {
    /// Types the text of a typing step again when its first call lost keys (see the module
    /// doc); any other outcome is returned as it is. `args`: the arguments as sent.
    pub(super) fn retype_lost_keys(
        &mut self,
        at: &Attempt<'_>,
        typing: &Typing,
        args: &Value,
        first: CallOutcome,
    ) -> CallOutcome {
        let Some(lost) = lost_of(typing, &first) else {
            return first;
        };
        let again = (typing.retype_args)(args, &lost);
        let masked_field = lost.masked;
        let tries = if masked_field { TRIES_MASKED } else { TRIES };
        let mut seen = vec![lost.seen];
        let mut earlier = cost::of(&first);
        let mut last = first;
        for _ in 1..tries {
            let mut outcome = masked::accept(at.tool, typing, self.call_waiting(at, again.clone()));
            match lost_of(typing, &outcome) {
                Some(l) => {
                    earlier = cost::plus(earlier, cost::of(&outcome));
                    seen.push(l.seen);
                    last = outcome;
                }
                None => {
                    // Landed, or failed otherwise: that is the step's outcome.
                    cost::add(&mut outcome, earlier);
                    note(&mut outcome, "retyped", json!(seen));
                    return outcome;
                }
            }
        }
        let mine = cost::of(&last);
        cost::add(&mut last, cost::minus(earlier, mine));
        verdict(&mut last, &seen, masked_field);
        note(&mut last, "retyped", json!(seen));
        last
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tapflow_tools::envelope::{Envelope, ToolError};

    fn failed(code: tapflow_core::codes::Code, details: Value) -> CallOutcome {
        CallOutcome::Done(Box::new(Envelope::new(
            "a_typing_tool",
            Err(
                ToolError::new(code, "the field never showed exactly the expected value")
                    .with_details(details),
            ),
            5,
        )))
    }

    fn details(strategy: &str, seen: &str) -> Value {
        json!({"input_strategy": strategy, "text": "demo", "actual_text": seen,
               "before_text": "Username", "mode": "replace",
               "cost": {"device_round_trips": 3, "ui_dumps": 2}})
    }

    #[test]
    fn only_what_the_tool_reads_as_lost_keys_is_retyped() {
        let typing = tapflow_tools::Engine::new()
            .tools()
            .find_map(|t| t.flow.typing)
            .expect("a tool types text");
        let t = tapflow_core::codes::TEXT_VERIFICATION_TIMEOUT;
        assert!(lost_of(&typing, &failed(t, details("direct", "emo"))).is_some());
        assert!(lost_of(&typing, &failed(t, details("sentinel_paste", "emo"))).is_none());
        assert!(lost_of(&typing, &CallOutcome::Cancelled).is_none());
    }

    #[test]
    fn differing_tries_are_the_devices_and_identical_ones_the_fields() {
        let t = tapflow_core::codes::TEXT_VERIFICATION_TIMEOUT;
        let mut o = failed(t, details("direct", "dm"));
        verdict(&mut o, &["emo".into(), "dmo".into(), "dm".into()], false);
        let CallOutcome::Done(env) = &o else { panic!() };
        let e = env.structured.error.as_ref().unwrap();
        assert_eq!(e.code, tapflow_core::codes::INPUT_KEYS_LOST);
        assert_eq!(e.details["cause_code"], t.as_str());
        assert!(
            e.message.contains("\"emo\", \"dmo\", \"dm\""),
            "{}",
            e.message
        );

        let mut o = failed(t, details("direct", "12"));
        verdict(&mut o, &["12".into(), "12".into(), "12".into()], false);
        let CallOutcome::Done(env) = &o else { panic!() };
        let e = env.structured.error.as_ref().unwrap();
        assert_eq!(e.code, t, "a field that refuses keys is the app's");
        assert!(e.message.contains("refuses these characters"));

        note(&mut o, "retyped", json!(["12"]));
        cost::add(&mut o, (6, 4));
        assert_eq!(cost::of(&o), (9, 6));
    }

    #[test]
    fn a_masked_field_is_judged_by_counts_over_more_tries() {
        let t = tapflow_core::codes::TEXT_VERIFICATION_TIMEOUT;

        let dots = |n: usize| "•".repeat(n);
        let mut o = failed(t, details("direct", &dots(6)));
        verdict(&mut o, &[dots(6), dots(5), dots(6)], true);
        let CallOutcome::Done(env) = &o else { panic!() };
        let e = env.structured.error.as_ref().unwrap();
        assert_eq!(
            e.code,
            tapflow_core::codes::INPUT_KEYS_LOST,
            "counts that differ"
        );

        let mut o = failed(t, details("direct", &dots(6)));
        verdict(&mut o, &vec![dots(6); TRIES_MASKED], true);
        let CallOutcome::Done(env) = &o else { panic!() };
        let e = env.structured.error.as_ref().unwrap();
        assert_eq!(e.code, t, "the same count on every try: a length limit");
        assert!(
            e.message.contains("6 characters every time"),
            "{}",
            e.message
        );
    }
}
