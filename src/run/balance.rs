//! How a run balances its flows across devices (the initial split of [`super::schedule`]):
//! longest expected first, each to the device with the least expected work so far ("longest
//! processing time first" list scheduling, within 4/3 of the best split). Unlike round robin,
//! one device does not get two long flows while another gets two short ones, and a long flow
//! does not start last. The split is decided before the run starts, so it is reproducible
//! (the same inputs give the same placement: reports and tests can rely on it), and a device
//! lost mid-run leaves its own remaining flows `not_run` as before.
//!
//! A flow's expected duration is what it took in the previous run when a result is at hand
//! ([`Expected::from_result_json`], fed by `tapflow run` from the latest `result.json` in the
//! reports directory). A flow without such a figure is estimated from its step count, at the
//! per-step time the known flows took (or [`NOMINAL_STEP_MS`] when nothing is known): only the
//! order matters, so a rough figure is enough.

use std::collections::HashMap;

use serde_json::Value;

use tapflow_core::plan::{Action, FlowPlan, PlanStep};

/// Per-step time assumed when no previous run says anything (a UI action plus a dump on a
/// phone, roughly).
pub const NOMINAL_STEP_MS: f64 = 700.0;

/// Expected durations of flows, by flow id, from an earlier run.
#[derive(Clone, Debug, Default)]
pub struct Expected {
    by_id: HashMap<String, u64>,
}

impl Expected {
    /// The durations in a `result.json` (any schema version that has `flows[].id` and
    /// `flows[].duration_ms`); flows that did not run (`not_run`, `skipped`, zero duration)
    /// say nothing about their duration and are left out. Unreadable text gives nothing.
    pub fn from_result_json(text: &str) -> Self {
        let mut by_id = HashMap::new();
        let Ok(v) = serde_json::from_str::<Value>(text) else {
            return Self { by_id };
        };
        for f in v["flows"].as_array().into_iter().flatten() {
            let ran = matches!(f["status"].as_str(), Some("passed" | "failed"));
            if let (true, Some(id), Some(ms)) = (ran, f["id"].as_str(), f["duration_ms"].as_u64())
                && ms > 0
            {
                // A flow run on several devices (`--each-device`): the longest counts.
                let e = by_id.entry(id.to_string()).or_insert(0);
                *e = (*e).max(ms);
            }
        }
        Self { by_id }
    }

    /// Known durations, by flow id.
    pub fn from_durations(by_id: impl IntoIterator<Item = (String, u64)>) -> Self {
        Self {
            by_id: by_id.into_iter().collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Expected milliseconds of each flow: its previous duration, else its step count times
    /// the per-step time of the flows that have one.
    pub fn estimate(&self, flows: &[&FlowPlan]) -> Vec<f64> {
        let (mut ms, mut steps) = (0.0, 0.0);
        for f in flows {
            if let Some(d) = self.by_id.get(&f.id) {
                ms += *d as f64;
                steps += step_count(f);
            }
        }
        let per_step = if steps > 0.0 {
            ms / steps
        } else {
            NOMINAL_STEP_MS
        };
        flows
            .iter()
            .map(|f| match self.by_id.get(&f.id) {
                Some(d) => *d as f64,
                None => step_count(f) * per_step,
            })
            .collect()
    }
}

/// Steps a flow runs, counted through blocks and sub-flows (a `repeat` with a literal count
/// counts that many times; one with a run-time count, once).
pub fn step_count(f: &FlowPlan) -> f64 {
    (count(&f.steps) + count(&f.finally)).max(1.0)
}

fn count(steps: &[PlanStep]) -> f64 {
    steps
        .iter()
        .map(|s| match &s.action {
            Action::Tool { .. } => 1.0,
            Action::Repeat { times, steps, .. } => {
                let n = times.as_ref().and_then(Value::as_u64).unwrap_or(1) as f64;
                n * count(steps)
            }
            Action::Retry { steps, .. } | Action::SubFlow { steps, .. } => count(steps),
        })
        .sum()
}

/// The order in which flows are handed out: longest expected first; equal ones in plan order.
pub fn longest_first(expected: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..expected.len()).collect();
    order.sort_by(|a, b| expected[*b].total_cmp(&expected[*a]).then(a.cmp(b)));
    order
}

/// Splits flows over `devices` devices: per device, the indices of its flows in the order it
/// runs them (longest expected first). Each flow, longest first, goes to the device with the
/// least expected work so far (the first such device on a tie).
pub fn assign(expected: &[f64], devices: usize) -> Vec<Vec<usize>> {
    let mut lists = vec![Vec::new(); devices];
    if devices == 0 {
        return lists;
    }
    let mut load = vec![0.0f64; devices];
    for i in longest_first(expected) {
        let d = (0..devices)
            .min_by(|a, b| load[*a].total_cmp(&load[*b]).then(a.cmp(b)))
            .unwrap_or(0);
        load[d] += expected[i];
        lists[d].push(i);
    }
    lists
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(id: &str, steps: usize) -> FlowPlan {
        let mut f = FlowPlan::new(id.into(), id.into(), format!("{id}.yaml"));
        f.steps = (0..steps)
            .map(|i| {
                PlanStep::plain(
                    format!("{id}.{i}"),
                    Action::Tool {
                        tool: "press_key".into(),
                        args: serde_json::json!({"key": "Back"}),
                    },
                    tapflow_core::plan::model::SourceRef {
                        file: format!("{id}.yaml"),
                        line: i + 1,
                        column: 3,
                    },
                )
            })
            .collect();
        f
    }

    #[test]
    fn previous_durations_win_and_unknown_flows_are_estimated_from_their_steps() {
        let (a, b, c) = (flow("a", 2), flow("b", 10), flow("c", 4));
        let prev = Expected::from_result_json(
            r#"{"flows": [
                {"id": "a", "status": "passed", "duration_ms": 9000},
                {"id": "b", "status": "failed", "duration_ms": 1000},
                {"id": "c", "status": "not_run", "duration_ms": 0}
            ]}"#,
        );
        let est = prev.estimate(&[&a, &b, &c]);
        assert_eq!(est[0], 9000.0);
        assert_eq!(est[1], 1000.0);
        // 10 s over 12 known steps, times c's 4 steps.
        assert!((est[2] - 4.0 * 10_000.0 / 12.0).abs() < 1e-6, "{est:?}");
        assert_eq!(longest_first(&est), vec![0, 2, 1]);
    }

    #[test]
    fn without_a_previous_run_the_step_counts_order_the_flows() {
        let (a, b, c) = (flow("a", 3), flow("b", 8), flow("c", 3));
        let est = Expected::default().estimate(&[&a, &b, &c]);
        assert_eq!(longest_first(&est), vec![1, 0, 2], "ties keep plan order");
        assert!(Expected::from_result_json("not json").is_empty());
    }

    #[test]
    fn each_flow_goes_to_the_least_loaded_device_longest_first() {
        // Round robin would give device 0 the 9 and the 8 (17 vs 3).
        let est = [9.0, 1.0, 8.0, 1.0, 1.0];
        assert_eq!(assign(&est, 2), vec![vec![0, 3], vec![2, 1, 4]]);
        // Equal flows alternate, in plan order.
        assert_eq!(assign(&[1.0; 4], 2), vec![vec![0, 2], vec![1, 3]]);
        assert!(assign(&est, 0).is_empty());
    }
}
