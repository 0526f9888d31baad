//! Lost keystrokes, a flow-level behaviour (docs/run.md, "When a failure is the device's").
//!
//! Text typed key by key (`input_strategy: direct`: Android's `input text`, uitest's direct
//! entry of digits) can lose keys on the way: the field then shows a subsequence of the text
//! (`tools::input_text::lost_keys`), and in a flow the tool stops waiting for the missing keys
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
//! An `append` step is retyped as `replace` with the whole expected value, since the field
//! already holds part of the text. A bare tool call never gets here.

use serde_json::{Value, json};

use super::FlowRun;
use super::implicit_wait::{add_cost, cost_of};
use super::password;
use crate::run::cancel::CancelToken;
use crate::run::worker::CallOutcome;
use tapflow_core::plan::model::PlanStep;
use tapflow_tools::Tool;
use tapflow_tools::input_text::InputText;
use tapflow_tools::input_text::lost_keys::shows_lost_keys;
use tapflow_tools::input_text::strategy::Strategy;

/// Tries in all (the step's own call included).
pub const TRIES: usize = 3;

/// What a failed `input_text` showed, when it shows lost keys.
#[derive(Debug, Clone, PartialEq)]
struct Lost {
    seen: String,
    expected: String,
    append: bool,
}

fn lost_of(outcome: &CallOutcome) -> Option<Lost> {
    let CallOutcome::Done(env) = outcome else {
        return None;
    };
    let e = env.structured.error.as_ref()?;
    if e.code != tapflow_core::codes::TEXT_VERIFICATION_TIMEOUT
        && e.code != tapflow_core::codes::TEXT_NOT_READABLE
    {
        return None;
    }
    let d = &e.details;
    let s = |k: &str| d.get(k).and_then(Value::as_str);
    if s("input_strategy")? != Strategy::Direct.name() {
        return None;
    }
    let expected = s("text")?;
    let seen = s("actual_text")?;
    shows_lost_keys(expected, seen, s("before_text")).then(|| Lost {
        seen: seen.to_string(),
        expected: expected.to_string(),
        append: s("mode") == Some("append"),
    })
}

/// The arguments of a retype: an `append` becomes a `replace` of the whole expected value.
fn retype_args(args: &Value, lost: &Lost) -> Value {
    let mut args = args.clone();
    if lost.append
        && let Value::Object(o) = &mut args
    {
        o.insert("mode".into(), "replace".into());
        o.insert("text".into(), lost.expected.clone().into());
    }
    args
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
fn verdict(last: &mut CallOutcome, seen: &[String]) {
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
    /// Types the text of an `input_text` step again when its first call lost keys (see the
    /// module doc); any other outcome is returned as it is. `args`: the arguments as sent.
    pub(super) fn retype_lost_keys(
        &mut self,
        step: &PlanStep,
        tool: &str,
        args: &Value,
        deadline: Option<std::time::Instant>,
        token: &CancelToken,
        first: CallOutcome,
    ) -> CallOutcome {
        if tool != InputText::NAME {
            return first;
        }
        let Some(lost) = lost_of(&first) else {
            return first;
        };
        let again = retype_args(args, &lost);
        let mut seen = vec![lost.seen];
        let mut earlier = cost_of(&first);
        let mut last = first;
        for _ in 1..TRIES {
            let mut outcome = password::accept_masked(
                tool,
                self.call_waiting(step, tool, again.clone(), deadline, token),
            );
            match lost_of(&outcome) {
                Some(l) => {
                    let c = cost_of(&outcome);
                    earlier = (earlier.0 + c.0, earlier.1 + c.1);
                    seen.push(l.seen);
                    last = outcome;
                }
                None => {
                    // Landed, or failed otherwise: that is the step's outcome.
                    add_cost(&mut outcome, earlier);
                    note(&mut outcome, "retyped", json!(seen));
                    return outcome;
                }
            }
        }
        let mine = cost_of(&last);
        add_cost(&mut last, (earlier.0 - mine.0, earlier.1 - mine.1));
        verdict(&mut last, &seen);
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
            InputText::NAME,
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
    fn only_direct_text_showing_lost_keys_is_retyped() {
        let t = tapflow_core::codes::TEXT_VERIFICATION_TIMEOUT;
        assert!(lost_of(&failed(t, details("direct", "emo"))).is_some());
        assert!(lost_of(&failed(t, details("direct", "Username"))).is_some());
        assert!(lost_of(&failed(t, details("sentinel_paste", "emo"))).is_none());
        assert!(lost_of(&failed(t, details("direct", "demox"))).is_none());
        let other = tapflow_core::codes::INPUT_FOCUS_TIMEOUT;
        assert!(lost_of(&failed(other, details("direct", "emo"))).is_none());
        let mut d = details("direct", "de");
        d["mode"] = "append".into();
        d["text"] = "hello demo".into();
        let l = lost_of(&failed(t, d)).unwrap();
        let a = retype_args(
            &json!({"element_id": "u", "mode": "append", "text": "demo"}),
            &l,
        );
        assert_eq!(a["mode"], "replace");
        assert_eq!(a["text"], "hello demo");
    }

    #[test]
    fn differing_tries_are_the_devices_and_identical_ones_the_fields() {
        let t = tapflow_core::codes::TEXT_VERIFICATION_TIMEOUT;
        let mut o = failed(t, details("direct", "dm"));
        verdict(&mut o, &["emo".into(), "dmo".into(), "dm".into()]);
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
        verdict(&mut o, &["12".into(), "12".into(), "12".into()]);
        let CallOutcome::Done(env) = &o else { panic!() };
        let e = env.structured.error.as_ref().unwrap();
        assert_eq!(e.code, t, "a field that refuses keys is the app's");
        assert!(e.message.contains("refuses these characters"));

        note(&mut o, "retyped", json!(["12"]));
        add_cost(&mut o, (6, 4));
        assert_eq!(cost_of(&o), (9, 6));
    }
}
