//! A flow-level rule (docs/run.md, "When a failure is the device's"): a step that failed
//! without its device ever showing the screen failed because of the device, not the app.
//!
//! A wait that timed out, a field that was never seen holding its text, a step whose deadline
//! passed: each of these verdicts is about what the screen showed. When none of the UI dumps
//! sent during the step's last attempt returned a tree — they failed (killed at their
//! deadline, refused, empty, unparsable) or one was still unanswered after
//! [`UNANSWERED_AFTER`] — nothing was seen, so nothing can be blamed on the app: the step's
//! error becomes `DEVICE_UNRESPONSIVE` (an infrastructure code: the run exits 4), with the
//! step's own verdict kept in `details.cause` and the dumps' fate in `details.screen`.
//!
//! The same holds for a verdict that a deadline gave (a wait, a text verification or focus
//! that ran out of time, the step's or the flow's deadline, an implicit wait that ran out)
//! when one of the attempt's dumps took [`UNANSWERED_AFTER`] or longer: the time went to a
//! device that answers too slowly, not to an app that did not show what was awaited.
//!
//! A dump that has run [`WATCHED_FROM`] or more (slower than any real dump) and is still
//! running when such a verdict is given is watched a little longer, until it answers or has
//! run [`UNANSWERED_AFTER`] (never longer, and Ctrl-C ends the watch): a wait whose budget a
//! 6 s dump ate after 4.9 s is the device's too. A dump that answers within that time, or a
//! younger one, proves nothing (a short wait may end before any dump could): the verdict
//! stands, with `details.screen` saying what the step saw (nothing, when it had no answer yet).
//!
//! And a step whose own verdict is a failed dump (`UI_TREE_FETCH_ERROR`,
//! `INVALID_UI_TREE_PAYLOAD`: the backends resend an empty or truncated dump within their
//! budget, so what is left is a device that keeps answering garbage) is the device's, whatever
//! its earlier dumps showed: the screen the step needed never arrived.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::FlowRun;
use crate::run::result::StepError;
use tapflow_tools::context::screen_log::ScreenReport;

/// A UI dump unanswered this long is a device that does not answer (a dump takes well under
/// 2 s on a real phone, uitest's and uiautomator's alike).
pub const UNANSWERED_AFTER: Duration = Duration::from_secs(5);

/// A dump still running this long when a deadline gave the verdict is watched until it
/// answers or reaches [`UNANSWERED_AFTER`]: it is already slower than any real dump. A dump
/// running for less is not waited for (a failing step is not held back for nothing).
pub const WATCHED_FROM: Duration = Duration::from_secs(2);

fn screen_json(r: &ScreenReport) -> Value {
    json!({
        "dumps_sent": r.sent(),
        "answered": r.answered,
        "failed": r.failed,
        "last_failure": r.last_failure.as_ref().map(|f| json!({"code": f.code, "message": f.message})),
        "unanswered_ms": r.pending.map(|p| p.as_millis() as u64),
        "slowest_ms": r.slowest.as_millis() as u64,
    })
}

/// Whether `e` is a verdict a deadline gave (see the module doc).
fn deadline_verdict(e: &StepError) -> bool {
    use tapflow_core::codes::*;
    [
        WAIT_TIMEOUT,
        INPUT_FOCUS_TIMEOUT,
        TEXT_VERIFICATION_TIMEOUT,
        STEP_TIMEOUT,
        FLOW_TIMEOUT,
    ]
    .contains(&e.code)
        || (e.code == ELEMENT_NOT_FOUND && e.details.get("waited_ms").is_some())
}

/// Whether `e` is the verdict of a dump that failed (see the module doc).
fn dump_verdict(e: &StepError) -> bool {
    use tapflow_core::codes::*;
    e.code == UI_TREE_FETCH_ERROR || e.code == INVALID_UI_TREE_PAYLOAD
}

/// How the rule reads a step's verdict.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Verdict {
    /// Given by a deadline (see [`deadline_verdict`]).
    Deadline,
    /// A dump that failed (see [`dump_verdict`]).
    Dump,
    Other,
}

/// What the dumps of the attempt come to: `Some(true)` the device is at fault (the rule
/// applies), `Some(false)` nothing was seen but nothing proves the device at fault, `None`
/// the screen was seen in time (or never asked for).
fn unanswered(r: &ScreenReport, verdict: Verdict) -> Option<bool> {
    if r.sent() == 0 {
        return None;
    }
    if verdict == Verdict::Deadline && r.slowest >= UNANSWERED_AFTER {
        return Some(true);
    }
    if verdict == Verdict::Dump && r.failed > 0 {
        return Some(true);
    }
    if r.answered > 0 {
        return None;
    }
    Some(r.failed > 0 || r.pending.is_some_and(|p| p >= UNANSWERED_AFTER))
}

fn describe(r: &ScreenReport) -> String {
    let mut parts = Vec::new();
    if r.failed > 0 {
        let last = r
            .last_failure
            .as_ref()
            .map(|f| format!("; last: {}: {}", f.code, f.message))
            .unwrap_or_default();
        parts.push(format!("{} failed{last}", r.failed));
    }
    if let Some(p) = r.pending {
        parts.push(format!(
            "one still unanswered after {:.1} s",
            p.as_secs_f64()
        ));
    }
    if r.answered > 0 {
        parts.push(format!(
            "{} answered, the slowest after {:.1} s",
            r.answered,
            r.slowest.as_secs_f64()
        ));
    }
    parts.join("; ")
}

impl FlowRun<'_, '_> {
    /// The attempt's dumps once the one still running (if any) has answered or has run
    /// [`UNANSWERED_AFTER`]: a poll of the screen log against that deadline, ended by Ctrl-C.
    fn settled_screen(&self, since: Instant) -> ScreenReport {
        const POLL: Duration = Duration::from_millis(20);
        let log = self.dev.caller.screen_log();
        let mut report = log.since(since);
        let Some(running) = report.pending.filter(|p| *p < UNANSWERED_AFTER) else {
            return report;
        };
        let until = Instant::now() + (UNANSWERED_AFTER - running);
        while report
            .pending
            .is_some_and(|p| p < UNANSWERED_AFTER && Instant::now() < until)
        {
            if !self.dev.cancel.wait(POLL, Some(until)) {
                break;
            }
            report = log.since(since);
        }
        report
    }

    /// Applies the rule to a failed step's error; `since`: when its last attempt began.
    pub(super) fn device_unresponsive(&self, since: Instant, mut error: StepError) -> StepError {
        if error.is_infrastructure() || error.code == super::codes::INTERRUPTED {
            return error;
        }
        let verdict = if deadline_verdict(&error) {
            Verdict::Deadline
        } else if dump_verdict(&error) {
            Verdict::Dump
        } else {
            Verdict::Other
        };
        let mut report = self.dev.caller.screen_log().since(since);
        let mut judged = unanswered(&report, verdict);
        // A deadline's verdict with a dump still running: watched until that dump answers or
        // has run 5 s; only the latter changes the verdict (the step's own view is kept else).
        if verdict == Verdict::Deadline
            && judged != Some(true)
            && report.pending.is_some_and(|p| p >= WATCHED_FROM)
        {
            let settled = self.settled_screen(since);
            if settled.slowest >= UNANSWERED_AFTER {
                judged = Some(true);
                report = settled;
            }
        }
        match judged {
            None => error,
            Some(false) => {
                if let Value::Object(d) = &mut error.details {
                    d.insert("screen".into(), screen_json(&report));
                } else if error.details.is_null() {
                    error.details = json!({ "screen": screen_json(&report) });
                }
                error
            }
            Some(true) => {
                let what = if report.answered == 0 {
                    "the device never showed its screen during this step"
                } else if verdict == Verdict::Dump {
                    "a UI dump of this step failed on the device"
                } else {
                    "the device answered too slowly for this step's deadline"
                };
                let message = format!(
                    "{what}: {} UI dump(s) sent ({}). The step's own verdict, {}, says nothing about the app",
                    report.sent(),
                    describe(&report),
                    error.code
                );
                StepError {
                    code: tapflow_core::codes::DEVICE_UNRESPONSIVE,
                    message: self.masker.text(&message).into_owned(),
                    details: json!({
                        "cause": {
                            "code": error.code,
                            "message": error.message,
                            "details": error.details,
                        },
                        "screen": self.masker.value(&screen_json(&report)),
                    }),
                    location: error.location,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tapflow_tools::context::screen_log::Failure;

    fn report(answered: u32, failed: u32, pending_ms: Option<u64>) -> ScreenReport {
        ScreenReport {
            answered,
            failed,
            last_failure: (failed > 0).then(|| Failure {
                code: tapflow_core::codes::ADB_TIMEOUT,
                message: "`adb exec-out uiautomator dump /dev/tty` did not finish within 30000ms"
                    .into(),
            }),
            pending: pending_ms.map(Duration::from_millis),
            slowest: Duration::from_millis(pending_ms.unwrap_or(0)),
        }
    }

    #[test]
    fn only_a_step_that_saw_nothing_and_was_refused_or_kept_waiting_is_the_devices() {
        let (any, deadline) = (Verdict::Other, Verdict::Deadline);
        assert_eq!(
            unanswered(&report(1, 3, Some(9_000)), any),
            None,
            "it saw the screen once"
        );
        assert_eq!(
            unanswered(&report(0, 0, None), deadline),
            None,
            "it never looked"
        );
        assert_eq!(unanswered(&report(0, 1, None), any), Some(true));
        assert_eq!(unanswered(&report(0, 0, Some(6_000)), any), Some(true));
        assert_eq!(
            unanswered(&report(0, 0, Some(300)), deadline),
            Some(false),
            "a short wait ended during its first dump"
        );
        // A deadline verdict after a dump of 5 s or more: the time went to the device.
        let mut slow = report(2, 0, None);
        slow.slowest = UNANSWERED_AFTER;
        assert_eq!(unanswered(&slow, deadline), Some(true));
        assert_eq!(unanswered(&slow, any), None, "not a deadline's verdict");
        slow.slowest = Duration::from_millis(4_999);
        assert_eq!(unanswered(&slow, deadline), None);
        // A step whose own verdict is a failed dump: the device's, whatever it saw before.
        let dump = Verdict::Dump;
        assert_eq!(unanswered(&report(3, 1, None), dump), Some(true));
        assert_eq!(unanswered(&report(3, 1, None), any), None);
        assert_eq!(
            unanswered(&report(3, 0, None), dump),
            None,
            "no dump failed"
        );
        let e = |code: tapflow_core::codes::Code, details: Value| StepError {
            code,
            message: String::new(),
            details,
            location: None,
        };
        assert!(dump_verdict(&e(
            tapflow_core::codes::INVALID_UI_TREE_PAYLOAD,
            Value::Null
        )));
        assert!(!dump_verdict(&e(
            tapflow_core::codes::ELEMENT_NOT_FOUND,
            Value::Null
        )));
        assert!(deadline_verdict(&e(
            tapflow_core::codes::WAIT_TIMEOUT,
            Value::Null
        )));
        assert!(deadline_verdict(&e(
            tapflow_core::codes::ELEMENT_NOT_FOUND,
            json!({"waited_ms": 10})
        )));
        assert!(!deadline_verdict(&e(
            tapflow_core::codes::ELEMENT_NOT_FOUND,
            Value::Null
        )));
        assert!(!deadline_verdict(&e(
            tapflow_core::codes::EXPECTATION_FAILED,
            Value::Null
        )));
        let d = describe(&report(0, 2, Some(8_000)));
        assert!(d.starts_with("2 failed; last: ADB_TIMEOUT"), "{d}");
        assert!(d.ends_with("one still unanswered after 8.0 s"), "{d}");
        let j = screen_json(&report(0, 0, Some(6_000)));
        assert_eq!(j["dumps_sent"], 1);
        assert_eq!(j["unanswered_ms"], 6_000);
    }
}
