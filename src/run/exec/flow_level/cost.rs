//! Cost accounting in flows: the runner asks every tool call for its cost (`include_cost`),
//! adds the cost of calls a flow made on the step's behalf (the looks of an implicit wait, the
//! tries of a retype) to the envelope's, and sums a step's attempts into its `cost` (reports
//! show round trips and UI dumps per step). A step that asked for its cost itself keeps it in
//! its result; otherwise the runner's request leaves no trace in what is recorded.

use serde_json::Value;

use crate::run::result::StepCost;
use crate::run::worker::CallOutcome;
use tapflow_tools::registry::INCLUDE_COST;

/// `(device_round_trips, ui_dumps)`.
pub(super) type Cost = (u64, u64);

/// Asks the call for its cost; whether the step had asked itself.
pub(super) fn ask(args: &mut Value) -> bool {
    let asked = args.get(INCLUDE_COST).and_then(Value::as_bool) == Some(true);
    if let Value::Object(o) = args {
        o.insert(INCLUDE_COST.into(), Value::Bool(true));
    }
    asked
}

/// The cost an envelope reports (`cost`, in its result or error details).
pub(super) fn of(outcome: &CallOutcome) -> Cost {
    let CallOutcome::Done(env) = outcome else {
        return (0, 0);
    };
    let holder = env.structured.payload();
    let n = |k: &str| {
        holder
            .get("cost")
            .and_then(|c| c.get(k))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    (n("device_round_trips"), n("ui_dumps"))
}

pub(super) fn plus(a: Cost, b: Cost) -> Cost {
    (a.0 + b.0, a.1 + b.1)
}

pub(super) fn minus(a: Cost, b: Cost) -> Cost {
    (a.0.saturating_sub(b.0), a.1.saturating_sub(b.1))
}

/// Adds `extra` to the cost the envelope reports (nothing when it reports none).
pub(super) fn add(outcome: &mut CallOutcome, extra: Cost) {
    if extra == (0, 0) {
        return;
    }
    let CallOutcome::Done(env) = outcome else {
        return;
    };
    if let Some(Value::Object(c)) = env.structured.payload_mut().get_mut("cost") {
        for (k, v) in [("device_round_trips", extra.0), ("ui_dumps", extra.1)] {
            let now = c.get(k).and_then(Value::as_u64).unwrap_or(0);
            c.insert(k.into(), (now + v).into());
        }
    }
}

/// Adds the attempt's cost to the step's; takes it out of the envelope unless the step asked
/// for it (`asked`). A failed call left with an empty payload has none.
pub(super) fn settle(outcome: &mut CallOutcome, asked: bool, total: &mut Option<StepCost>) {
    let CallOutcome::Done(env) = outcome else {
        return;
    };
    let is_err = env.structured.error.is_some();
    let holder = env.structured.payload_mut();
    let cost = if asked {
        holder.get("cost").cloned()
    } else {
        holder.as_object_mut().and_then(|o| o.remove("cost"))
    };
    if holder.as_object().is_some_and(|o| o.is_empty()) && is_err {
        *holder = Value::Null;
    }
    if let Some(c) = cost {
        let n = |k: &str| c.get(k).and_then(Value::as_u64).unwrap_or(0);
        let total = total.get_or_insert_with(StepCost::default);
        total.device_round_trips += n("device_round_trips");
        total.ui_dumps += n("ui_dumps");
    }
}
